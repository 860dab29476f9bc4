/* vm/mod_string.c — the `_string` module string.Formatter is built on (CPython 3.11's
 * Objects/stringlib/unicode_format.h, exposed by Objects/unicodeobject.c):
 *   formatter_parser(s)            -> iterator of (literal, field_name, format_spec, conversion)
 *   formatter_field_name_split(f)  -> (first, iterator of (is_attribute, key))
 * with CPython's parsing rules and messages.  All delimiters are ASCII, so the UTF-8 text is
 * scanned bytewise and pieces are cut at byte offsets. */
#include <string.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"
#include "vm/unicode.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* Both iterators: a = the str, i = byte position, n = byte end. */
static void strit_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((IterObj *)o)->a); }

static Value piece(VM *vm, StrObj *s, int64_t b, int64_t e) {
    StrObj *r = str_new(vm, s->data + b, e - b);
    return r ? val_obj(r) : val_null();
}

/* The field's integer value when it is all decimal digits (any script), else -1; -2 + error
 * when too large. */
static int64_t get_integer(VM *vm, StrObj *s, int64_t b, int64_t e) {
    if (b >= e) return -1;
    int64_t acc = 0;
    for (int64_t pos = b; pos < e;) {
        uint32_t cp = utf8_decode(s->data, e, &pos);
        int d = cp < 128 ? (cp >= '0' && cp <= '9' ? (int)(cp - '0') : -1) : uni_decimal_value(cp);
        if (d < 0) return -1;
        if (acc > (INT64_MAX - d) / 10) {
            vm_raise(vm, vm->e_ValueError, "Too many decimal digits in format string");
            return -2;
        }
        acc = acc * 10 + d;
    }
    return acc;
}

/* ---- formatter_parser ----------------------------------------------------------------- */

static Value fmt_next(VM *vm, IterObj *it) {
    StrObj *s = AS_STR(it->a);
    const char *p = s->data;
    int64_t pos = it->i, end = it->n;
    if (pos >= end) return val_null();
    int64_t start = pos;
    char c = 0;
    bool markup = false;
    while (pos < end) {
        c = p[pos++];
        if (c == '{' || c == '}') {
            markup = true;
            break;
        }
    }
    bool at_end = pos >= end;
    int64_t len = pos - start;
    if (c == '}' && markup && (at_end || p[pos] != '}'))
        return vm_raise(vm, vm->e_ValueError, "Single '}' encountered in format string");
    if (at_end && c == '{' && markup) return vm_raise(vm, vm->e_ValueError, "Single '{' encountered in format string");
    if (!at_end && markup) {
        if (p[pos] == c) {
            pos++;   /* an escaped brace: literal text only */
            markup = false;
        } else {
            len--;
        }
    } else if (at_end && markup) {
        len--;
    }
    Value literal = piece(vm, s, start, start + len);
    if (val_is_null(literal)) return literal;
    vm_push_root(vm, literal);
    Value field = val_none(), spec = val_none(), conv = val_none();
    if (markup) {
        /* the field name runs to ':', '!' or '}', skipping over [...] */
        int64_t fb = pos;
        c = 0;
        while (pos < end) {
            c = p[pos++];
            if (c == '{') {
                vm_pop_root(vm);
                return vm_raise(vm, vm->e_ValueError, "unexpected '{' in field name");
            }
            if (c == '[') {
                while (pos < end && p[pos] != ']') pos++;
                continue;
            }
            if (c == '}' || c == ':' || c == '!') break;
        }
        int64_t fe = pos - 1;
        bool conversion = false;
        int64_t sb = -1, se = -1, cb = -1, ce = -1;
        if (c == '!' || c == ':') {
            if (c == '!') {
                if (pos >= end) {
                    vm_pop_root(vm);
                    return vm_raise(vm, vm->e_ValueError, "end of string while looking for conversion specifier");
                }
                conversion = true;
                cb = pos;
                utf8_decode(p, end, &pos);   /* the conversion is one code point */
                ce = pos;
                if (pos < end) {
                    char c2 = p[pos++];
                    if (c2 == '}') goto field_done;
                    if (c2 != ':') {
                        vm_pop_root(vm);
                        return vm_raise(vm, vm->e_ValueError, "expected ':' after conversion specifier");
                    }
                }
            }
            sb = pos;
            int count = 1;
            while (pos < end) {
                char c3 = p[pos++];
                if (c3 == '{') count++;
                else if (c3 == '}' && --count == 0) {
                    se = pos - 1;
                    goto field_done;
                }
            }
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "unmatched '{' in format spec");
        } else if (c != '}') {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "expected '}' before end of string");
        }
    field_done:
        field = piece(vm, s, fb, fe);
        if (val_is_null(field)) {
            vm_pop_root(vm);
            return field;
        }
        vm_push_root(vm, field);
        spec = sb >= 0 && se >= 0 ? piece(vm, s, sb, se) : val_obj(vm->empty_str);
        if (val_is_null(spec)) {
            vm_pop_roots(vm, 2);
            return spec;
        }
        vm_push_root(vm, spec);
        if (conversion) {
            conv = piece(vm, s, cb, ce);
            if (val_is_null(conv)) {
                vm_pop_roots(vm, 3);
                return conv;
            }
        }
        vm_push_root(vm, conv);
        it->i = pos;
        TupleObj *t = tuple_pack(vm, 4, literal, field, spec, conv);
        vm_pop_roots(vm, 4);
        return t ? val_obj(t) : val_null();
    }
    it->i = pos;
    TupleObj *t = tuple_pack(vm, 4, literal, field, spec, conv);
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

/* ---- formatter_field_name_split ------------------------------------------------------- */

static Value fieldname_next(VM *vm, IterObj *it) {
    StrObj *s = AS_STR(it->a);
    const char *p = s->data;
    int64_t pos = it->i, end = it->n;
    if (pos >= end) return val_null();
    bool is_attr;
    int64_t nb, ne;
    char c = p[pos++];
    if (c == '.') {
        is_attr = true;
        nb = pos;
        while (pos < end && p[pos] != '[' && p[pos] != '.') pos++;
        ne = pos;
    } else if (c == '[') {
        is_attr = false;
        nb = pos;
        while (pos < end && p[pos] != ']') pos++;
        if (pos >= end) return vm_raise(vm, vm->e_ValueError, "Missing ']' in format string");
        ne = pos++;
    } else {
        return vm_raise(vm, vm->e_ValueError, "Only '.' or '[' may follow ']' in format field specifier");
    }
    if (nb == ne) return vm_raise(vm, vm->e_ValueError, "Empty attribute in format string");
    it->i = pos;
    Value key;
    int64_t idx = is_attr ? -1 : get_integer(vm, s, nb, ne);
    if (idx == -2) return val_null();
    if (idx >= 0) key = val_int(idx);
    else key = piece(vm, s, nb, ne);
    if (val_is_null(key)) return key;
    vm_push_root(vm, key);
    TupleObj *t = tuple_pack(vm, 2, val_bool(is_attr), key);
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value make_iter(VM *vm, TypeObj *t, IterNextFn next, Value str, int64_t i, int64_t n) {
    IterObj *it = gc_alloc(vm, t, sizeof(IterObj));
    if (!it) return val_null();
    it->next = next;
    it->a = str;
    it->b = it->c = val_null();
    it->i = i;
    it->n = n;
    return val_obj(it);
}

static Value m_formatter_parser(ARGS) {
    if (native_check_args(vm, "formatter_parser", argc, kw, 1, 1) < 0) return val_null();
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "expected str, got %s", vm_type_name(vm, argv[0]));
    TupleObj *types = AS_TUPLE(fn->payload);
    return make_iter(vm, AS_TYPE(types->items[0]), fmt_next, argv[0], 0, AS_STR(argv[0])->len);
}

static Value m_field_name_split(ARGS) {
    if (native_check_args(vm, "formatter_field_name_split", argc, kw, 1, 1) < 0) return val_null();
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "expected str, got %s", vm_type_name(vm, argv[0]));
    StrObj *s = AS_STR(argv[0]);
    int64_t i = 0;
    while (i < s->len && s->data[i] != '.' && s->data[i] != '[') i++;
    Value first;
    int64_t idx = get_integer(vm, s, 0, i);
    if (idx == -2) return val_null();
    if (idx >= 0) first = val_int(idx);
    else first = piece(vm, s, 0, i);
    if (val_is_null(first)) return first;
    vm_push_root(vm, first);
    TupleObj *types = AS_TUPLE(fn->payload);
    Value rest = make_iter(vm, AS_TYPE(types->items[1]), fieldname_next, argv[0], i, s->len);
    if (val_is_null(rest)) {
        vm_pop_root(vm);
        return rest;
    }
    vm_push_root(vm, rest);
    TupleObj *t = tuple_pack(vm, 2, first, rest);
    vm_pop_roots(vm, 2);
    return t ? val_obj(t) : val_null();
}

int string_module_init(VM *vm, Value mod) {
    TypeObj *tf = type_new_builtin(vm, "formatteriterator", vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(IterObj), 0,
                                   strit_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!tf) return -1;
    vm_push_root(vm, val_obj(tf));
    TypeObj *tn = type_new_builtin(vm, "fieldnameiterator", vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(IterObj), 0,
                                   strit_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!tn) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(tn));
    TupleObj *types = tuple_pack(vm, 2, val_obj(tf), val_obj(tn));
    vm_pop_roots(vm, 2);   /* the tuple now holds them */
    if (!types) return -1;
    vm_push_root(vm, val_obj(types));
    NativeObj *a = native_new_closure(vm, "formatter_parser", m_formatter_parser, val_obj(types));
    int rc = a ? module_set(vm, mod, "formatter_parser", val_obj(a)) : -1;
    NativeObj *b = rc == 0 ? native_new_closure(vm, "formatter_field_name_split", m_field_name_split, val_obj(types)) : NULL;
    if (!b || module_set(vm, mod, "formatter_field_name_split", val_obj(b)) < 0) rc = -1;
    vm_pop_root(vm);
    return rc;
}
