/* vm/str_methods.c — the script-visible methods of str and bytes: construction, indexing and
 * slicing by code point, searching, splitting and joining, case mapping (ASCII and Latin-1),
 * padding, str.format and %-formatting, comparisons and hashing. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/buffer.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"
#include "vm/unicode.h"

#define SSELF AS_STR(argv[0])

static Value sval(StrObj *s) { return s ? val_obj(s) : val_null(); }

static int arg_str(VM *vm, Value v, const char *fname, StrObj **out) {
    if (!val_is_str(vm, v) && !(val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_str))) {
        vm_raise(vm, vm->e_TypeError, "%s arg must be str, not %s", fname, vm_type_name(vm, v));
        return -1;
    }
    *out = AS_STR(v);
    return 0;
}

/* Byte range [b0, b1) of code points [start, end) with Python's clamping of negatives. */
static void cp_range(StrObj *s, int argc, Value *argv, int first, int64_t *b0, int64_t *b1, int64_t *c0) {
    int64_t n = s->ncp, start = 0, end = n;
    if (argc > first && val_is_intlike(argv[first])) {
        start = val_as_intlike(argv[first]);
        if (start < 0) start += n;
        if (start < 0) start = 0;
        if (start > n) start = n;
    }
    if (argc > first + 1 && val_is_intlike(argv[first + 1])) {
        end = val_as_intlike(argv[first + 1]);
        if (end < 0) end += n;
        if (end < 0) end = 0;
        if (end > n) end = n;
    }
    if (end < start) end = start;
    *b0 = str_byte_offset(s, start);
    *b1 = str_byte_offset(s, end);
    *c0 = start;
}

static int64_t byte_to_cp(StrObj *s, int64_t b) { return str_is_ascii(s) ? b : utf8_count(s->data, b); }

/* ---- construction and protocol -------------------------------------------------------------- */

static Value s_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"cls", "object", "encoding", "errors"};
    Value a[4];
    if (native_parse_args(vm, "str", argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    if (!val_is_obj(a[0]) || !vm_isinstance_type(vm, a[0], vm->t_type) || !type_is_subtype(AS_TYPE(a[0]), vm->t_str)) {
        const char *n = val_is_obj(a[0]) && vm_isinstance_type(vm, a[0], vm->t_type) ? AS_TYPE(a[0])->name->data : vm_type_name(vm, a[0]);
        return vm_raise(vm, vm->e_TypeError, "str.__new__(%s): %s is not a subtype of str", n, n);
    }
    TypeObj *cls = AS_TYPE(a[0]);
    if (cls != vm->t_str) {
        /* a subclass instance holding the value str() would give */
        a[0] = val_obj(vm->t_str);
        Value v = s_new(vm, argc, a, NULL, fn);
        if (val_is_null(v)) return v;
        return sval(str_new_typed(vm, cls, AS_STR(v)->data, AS_STR(v)->len));
    }
    if (val_is_null(a[1])) return val_obj(vm->empty_str);
    if (!val_is_null(a[2]) || !val_is_null(a[3])) {
        /* str(bytes-like, encoding, errors): decoded with the codec, as bytes.decode does */
        const char *tn = vm_type_name(vm, a[1]);
        if (val_is_str(vm, a[1]) || vm_isinstance_type(vm, a[1], vm->t_str))
            return vm_raise(vm, vm->e_TypeError, "decoding str is not supported");
        if (!vm_isinstance_type(vm, a[1], vm->t_bytes) && strcmp(tn, "bytearray") && strcmp(tn, "memoryview"))
            return vm_raise(vm, vm->e_TypeError, "decoding to str: need a bytes-like object, %s found", tn);
        const char *enc = "utf-8", *errors = "strict";
        for (int i = 2; i < 4; i++)
            if (!val_is_null(a[i]) && !val_is_str(vm, a[i]))
                return vm_raise(vm, vm->e_TypeError, "str() argument '%s' must be str, not %s",
                                i == 2 ? "encoding" : "errors", vm_type_name(vm, a[i]));
        if (!val_is_null(a[2])) enc = AS_STR(a[2])->data;
        if (!val_is_null(a[3])) errors = AS_STR(a[3])->data;
        Value holder;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, a[1], "str", &holder, &p, &n) < 0) return val_null();
        vm_push_root(vm, holder);
        StrObj *r = codec_decode(vm, p, n, enc, errors);
        vm_pop_root(vm);
        return r ? val_obj(r) : val_null();
    }
    return vm_str(vm, a[1]);
}

static Value s_getitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrObj *s = SSELF;
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, n;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, s->ncp, &start, &stop, &step, &n) < 0) return val_null();
        if (step == 1) return sval(str_substr_cp(vm, s, start, start + n));
        StrBuf b;
        sb_init(&b);
        for (int64_t i = 0; i < n; i++) {
            int64_t cp = start + i * step;
            int64_t b0 = str_byte_offset(s, cp), b1 = str_byte_offset(s, cp + 1);
            sb_add(&b, s->data + b0, b1 - b0);
        }
        return sval(sb_finish(vm, &b));
    }
    if (!val_is_intlike(argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "string indices must be integers, not '%s'", vm_type_name(vm, argv[1]));
    int64_t i;
    if (seq_index(vm, argv[1], s->ncp, "string", &i) < 0) return val_null();
    return sval(str_char_at(vm, s, i));
}

static Value s_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(SSELF->ncp); }
static Value s_str(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return sval(str_exact(vm, SSELF)); }
static Value s_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return sval(str_repr(vm, SSELF)); }
static Value s_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(str_hash(SSELF)); }
static Value s_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "'in <string>' requires string as left operand, not %s",
                        vm_type_name(vm, argv[1]));
    StrObj *h = SSELF, *n = AS_STR(argv[1]);
    if (n->len == 0) return val_bool(true);
    return val_bool(memmem(h->data, (size_t)h->len, n->data, (size_t)n->len) != NULL);
}
static Value s_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    /* a plain str iterates the same code points (a subclass instance included) */
    StrObj *s = str_exact(vm, SSELF);
    return s ? iter_builtin(vm, val_obj(s)) : val_null();
}
static Value s_cmp(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_str(vm, argv[1])) return vm->not_implemented;
    int c = str_cmp(SSELF, AS_STR(argv[1]));
    switch ((CompareOp)(intptr_t)fn->data) {
    case CMP_LT: return val_bool(c < 0);
    case CMP_LE: return val_bool(c <= 0);
    case CMP_EQ: return val_bool(c == 0);
    case CMP_NE: return val_bool(c != 0);
    case CMP_GT: return val_bool(c > 0);
    default: return val_bool(c >= 0);
    }
}
static Value s_add(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "can only concatenate str (not \"%s\") to str", vm_type_name(vm, argv[1]));
    return sval(str_concat(vm, SSELF, AS_STR(argv[1])));
}
static Value s_mul(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_intlike(argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm->not_implemented;
    int64_t k;
    if (vm_index(vm, argv[1], &k) < 0) return val_null();
    StrObj *s = SSELF;
    if (k < 0) k = 0;
    if (s->len && k > (INT64_C(1) << 40) / s->len) return vm_no_memory(vm);
    /* one allocation, then the copies double */
    int64_t total = s->len * k;
    StrBuf sb;
    sb_init(&sb);
    if (total && sb_reserve(&sb, (size_t)total)) {
        memcpy(sb.data, s->data, (size_t)s->len);
        for (int64_t done = s->len; done < total;) {
            int64_t c = done < total - done ? done : total - done;
            memcpy(sb.data + done, sb.data, (size_t)c);
            done += c;
        }
        sb.len = (size_t)total;
        sb.data[total] = 0;
    }
    return sval(sb_finish(vm, &sb));
}
static Value s_format_m(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    StrObj *spec;
    if (arg_str(vm, argv[1], "format()", &spec) < 0) return val_null();
    /* an empty spec is str(self) (a subclass's __str__ shows), as CPython's str.__format__ */
    if (spec->len == 0) return argv[0].as.o->type == vm->t_str ? argv[0] : vm_str(vm, argv[0]);
    return format_str(vm, SSELF, spec);
}

/* ---- searching ------------------------------------------------------------------------------- */

static int64_t find_bytes(const char *h, int64_t hn, const char *n, int64_t nn, bool reverse) {
    if (nn > hn) return -1;
    if (!reverse) {
        if (nn == 0) return 0;
        const char *p = memmem(h, (size_t)hn, n, (size_t)nn);
        return p ? p - h : -1;
    }
    for (int64_t i = hn - nn; i >= 0; i--)
        if (memcmp(h + i, n, (size_t)nn) == 0) return i;
    return -1;
}

static Value find_common(VM *vm, int argc, Value *argv, TupleObj *kw, const char *name, bool reverse, bool raise) {
    if (native_check_args(vm, name, argc, kw, 2, 4) < 0) return val_null();
    StrObj *s = SSELF, *sub;
    if (arg_str(vm, argv[1], name, &sub) < 0) return val_null();
    int64_t b0, b1, c0;
    cp_range(s, argc, argv, 2, &b0, &b1, &c0);
    int64_t r = find_bytes(s->data + b0, b1 - b0, sub->data, sub->len, reverse);
    if (r < 0) {
        if (raise) return vm_raise(vm, vm->e_ValueError, "substring not found");
        return val_int(-1);
    }
    return val_int(byte_to_cp(s, b0 + r));
}

static Value s_find(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return find_common(vm, argc, argv, kw, "find", false, false); }
static Value s_rfind(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return find_common(vm, argc, argv, kw, "rfind", true, false); }
static Value s_index(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return find_common(vm, argc, argv, kw, "index", false, true); }
static Value s_rindex(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return find_common(vm, argc, argv, kw, "rindex", true, true); }

static Value s_count(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "count", argc, kw, 2, 4) < 0) return val_null();
    StrObj *s = SSELF, *sub;
    if (arg_str(vm, argv[1], "count", &sub) < 0) return val_null();
    int64_t b0, b1, c0;
    cp_range(s, argc, argv, 2, &b0, &b1, &c0);
    if (sub->len == 0) return val_int(utf8_count(s->data + b0, b1 - b0) + 1);
    int64_t c = 0;
    for (int64_t i = b0; i + sub->len <= b1;) {
        int64_t r = find_bytes(s->data + i, b1 - i, sub->data, sub->len, false);
        if (r < 0) break;
        c++;
        i += r + sub->len;
    }
    return val_int(c);
}

static Value affix_common(VM *vm, int argc, Value *argv, TupleObj *kw, bool ends) {
    const char *name = ends ? "endswith" : "startswith";
    if (native_check_args(vm, name, argc, kw, 2, 4) < 0) return val_null();
    StrObj *s = SSELF;
    int64_t b0, b1, c0;
    cp_range(s, argc, argv, 2, &b0, &b1, &c0);
    Value *cands = &argv[1];
    int64_t nc = 1;
    if (val_is_type(vm, argv[1], vm->t_tuple)) {
        cands = AS_TUPLE(argv[1])->items;
        nc = AS_TUPLE(argv[1])->len;
    }
    for (int64_t i = 0; i < nc; i++) {
        if (!val_is_str(vm, cands[i]))
            return vm_raise(vm, vm->e_TypeError, "%s first arg must be str or a tuple of str, not %s", name,
                            vm_type_name(vm, cands[i]));
        StrObj *a = AS_STR(cands[i]);
        if (a->len > b1 - b0) continue;
        const char *at = ends ? s->data + b1 - a->len : s->data + b0;
        if (memcmp(at, a->data, (size_t)a->len) == 0) return val_bool(true);
    }
    return val_bool(false);
}
static Value s_startswith(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return affix_common(vm, argc, argv, kw, false); }
static Value s_endswith(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return affix_common(vm, argc, argv, kw, true); }

/* ---- split / join / strip ----------------------------------------------------------------------- */

static bool is_space_cp(uint32_t c) { return uni_is_space(c); }

static Value split_common(VM *vm, int argc, Value *argv, TupleObj *kw, bool right) {
    static const char *const names[] = {"self", "sep", "maxsplit"};
    Value a[3];
    if (native_parse_args(vm, right ? "rsplit" : "split", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    StrObj *s = SSELF;
    int64_t maxsplit = -1;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &maxsplit) < 0) return val_null();
    ListObj *out = list_new(vm, 0);
    if (!out) return val_null();
    vm_push_root(vm, val_obj(out));
    const char *d = s->data;
    int64_t n = s->len;
    bool ok = true;
    if (val_is_null(a[1]) || val_is_none(a[1])) {
        /* whitespace runs */
        if (!right) {
            int64_t i = 0;
            while (i < n) {
                int64_t p = i;
                while (p < n) {
                    int64_t q = p;
                    uint32_t c = utf8_decode(d, n, &q);
                    if (!is_space_cp(c)) break;
                    p = q;
                }
                if (p >= n) break;
                if (maxsplit >= 0 && out->len == maxsplit) {
                    int64_t e = n;
                    while (e > p && isspace((unsigned char)d[e - 1])) e--;
                    ok = list_append(vm, out, sval(str_new(vm, d + p, e - p))) == 0;
                    break;
                }
                int64_t e = p;
                while (e < n) {
                    int64_t q = e;
                    uint32_t c = utf8_decode(d, n, &q);
                    if (is_space_cp(c)) break;
                    e = q;
                }
                StrObj *part = str_new(vm, d + p, e - p);
                if (!part || list_append(vm, out, val_obj(part)) < 0) { ok = false; break; }
                i = e;
            }
        } else {
            int64_t i = n;
            while (i > 0) {
                int64_t e = i;
                while (e > 0 && isspace((unsigned char)d[e - 1])) e--;
                if (e == 0) break;
                if (maxsplit >= 0 && out->len == maxsplit) {
                    int64_t b = 0;
                    while (b < e && isspace((unsigned char)d[b])) b++;
                    ok = list_insert(vm, out, 0, sval(str_new(vm, d + b, e - b))) == 0;
                    break;
                }
                int64_t b = e;
                while (b > 0 && !isspace((unsigned char)d[b - 1])) b--;
                StrObj *part = str_new(vm, d + b, e - b);
                if (!part || list_insert(vm, out, 0, val_obj(part)) < 0) { ok = false; break; }
                i = b;
            }
        }
    } else {
        StrObj *sep;
        if (arg_str(vm, a[1], "must be str or None", &sep) < 0) { vm_pop_root(vm); return val_null(); }
        if (sep->len == 0) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "empty separator");
        }
        if (!right) {
            int64_t i = 0;
            for (;;) {
                int64_t r = (maxsplit >= 0 && out->len >= maxsplit) ? -1
                            : find_bytes(d + i, n - i, sep->data, sep->len, false);
                int64_t e = r < 0 ? n : i + r;
                StrObj *part = str_new(vm, d + i, e - i);
                if (!part || list_append(vm, out, val_obj(part)) < 0) { ok = false; break; }
                if (r < 0) break;
                i = e + sep->len;
            }
        } else {
            int64_t e = n;
            for (;;) {
                int64_t r = (maxsplit >= 0 && out->len >= maxsplit) ? -1
                            : find_bytes(d, e, sep->data, sep->len, true);
                int64_t b = r < 0 ? 0 : r + sep->len;
                StrObj *part = str_new(vm, d + b, e - b);
                if (!part || list_insert(vm, out, 0, val_obj(part)) < 0) { ok = false; break; }
                if (r < 0) break;
                e = r;
            }
        }
    }
    vm_pop_root(vm);
    return ok ? val_obj(out) : val_null();
}
static Value s_split(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return split_common(vm, argc, argv, kw, false); }
static Value s_rsplit(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return split_common(vm, argc, argv, kw, true); }

static Value s_splitlines(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "keepends"};
    Value a[2];
    if (native_parse_args(vm, "splitlines", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    bool keep = !val_is_null(a[1]) && vm_truthy(vm, a[1]) > 0;
    StrObj *s = SSELF;
    ListObj *out = list_new(vm, 0);
    if (!out) return val_null();
    vm_push_root(vm, val_obj(out));
    int64_t i = 0, n = s->len;
    while (i < n) {
        int64_t e = i;
        while (e < n && s->data[e] != '\n' && s->data[e] != '\r') e++;
        int64_t next = e;
        if (e < n) next = (s->data[e] == '\r' && e + 1 < n && s->data[e + 1] == '\n') ? e + 2 : e + 1;
        StrObj *part = str_new(vm, s->data + i, (keep ? next : e) - i);
        if (!part || list_append(vm, out, val_obj(part)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        i = next;
    }
    vm_pop_root(vm);
    return val_obj(out);
}

static Value s_join(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "join", argc, kw, 2, 2) < 0) return val_null();
    StrObj *sep = SSELF;
    Value holder = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, argv[1], &n, &holder);
    if (!items) return val_null();
    vm_push_root(vm, holder);
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < n; i++) {
        if (!val_is_str(vm, items[i])) {
            sb_free(&b);
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "sequence item %lld: expected str instance, %s found", (long long)i,
                            vm_type_name(vm, items[i]));
        }
        if (i) sb_add_str(&b, sep);
        sb_add_str(&b, AS_STR(items[i]));
    }
    vm_pop_root(vm);
    return sval(sb_finish(vm, &b));
}

static Value strip_common(VM *vm, int argc, Value *argv, TupleObj *kw, int which, const char *name) {
    if (native_check_args(vm, name, argc, kw, 1, 2) < 0) return val_null();
    StrObj *s = SSELF;
    StrObj *chars = NULL;
    if (argc == 2 && !val_is_none(argv[1]) && arg_str(vm, argv[1], name, &chars) < 0) return val_null();
    int64_t b = 0, e = s->len;
    if (which & 1) {
        while (b < e) {
            int64_t q = b;
            uint32_t c = utf8_decode(s->data, e, &q);
            bool strip = chars ? memmem(chars->data, (size_t)chars->len, s->data + b, (size_t)(q - b)) != NULL : is_space_cp(c);
            if (!strip) break;
            b = q;
        }
    }
    if (which & 2) {
        while (e > b) {
            int64_t p = e - 1;
            while (p > b && ((unsigned char)s->data[p] & 0xC0) == 0x80) p--;
            int64_t q = p;
            uint32_t c = utf8_decode(s->data, e, &q);
            bool strip = chars ? memmem(chars->data, (size_t)chars->len, s->data + p, (size_t)(e - p)) != NULL : is_space_cp(c);
            if (!strip) break;
            e = p;
        }
    }
    if (b == 0 && e == s->len) return sval(str_exact(vm, s));
    return sval(str_new(vm, s->data + b, e - b));
}
static Value s_strip(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return strip_common(vm, argc, argv, kw, 3, "strip"); }
static Value s_lstrip(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return strip_common(vm, argc, argv, kw, 1, "lstrip"); }
static Value s_rstrip(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return strip_common(vm, argc, argv, kw, 2, "rstrip"); }

static Value s_replace(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "replace", argc, kw, 3, 4) < 0) return val_null();
    StrObj *s = SSELF, *old, *new;
    if (arg_str(vm, argv[1], "replace", &old) < 0 || arg_str(vm, argv[2], "replace", &new) < 0) return val_null();
    int64_t count = -1;
    if (argc == 4 && vm_index(vm, argv[3], &count) < 0) return val_null();
    StrBuf b;
    sb_init(&b);
    int64_t i = 0, done = 0;
    if (old->len == 0) {
        /* insert between every code point */
        while (i <= s->len) {
            if (count < 0 || done < count) {
                sb_add_str(&b, new);
                done++;
            }
            if (i == s->len) break;
            int64_t q = i;
            utf8_decode(s->data, s->len, &q);
            sb_add(&b, s->data + i, q - i);
            i = q;
        }
        return sval(sb_finish(vm, &b));
    }
    while (i < s->len) {
        int64_t r = (count >= 0 && done >= count) ? -1 : find_bytes(s->data + i, s->len - i, old->data, old->len, false);
        if (r < 0) break;
        sb_add(&b, s->data + i, r);
        sb_add_str(&b, new);
        i += r + old->len;
        done++;
    }
    sb_add(&b, s->data + i, s->len - i);
    return sval(sb_finish(vm, &b));
}

static Value partition_common(VM *vm, int argc, Value *argv, TupleObj *kw, bool right) {
    if (native_check_args(vm, right ? "rpartition" : "partition", argc, kw, 2, 2) < 0) return val_null();
    StrObj *s = SSELF, *sep;
    if (arg_str(vm, argv[1], "partition", &sep) < 0) return val_null();
    if (sep->len == 0) return vm_raise(vm, vm->e_ValueError, "empty separator");
    int64_t r = find_bytes(s->data, s->len, sep->data, sep->len, right);
    Value parts[3];
    if (r < 0) {
        parts[0] = right ? val_obj(vm->empty_str) : argv[0];
        parts[1] = val_obj(vm->empty_str);
        parts[2] = right ? argv[0] : val_obj(vm->empty_str);
        TupleObj *t = tuple_from_array(vm, parts, 3);
        return t ? val_obj(t) : val_null();
    }
    TupleObj *t = tuple_new(vm, 3);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    StrObj *a = str_new(vm, s->data, r);
    if (a) t->items[0] = val_obj(a);
    t->items[1] = argv[1];
    StrObj *c = a ? str_new(vm, s->data + r + sep->len, s->len - r - sep->len) : NULL;
    if (c) t->items[2] = val_obj(c);
    vm_pop_root(vm);
    return c ? val_obj(t) : val_null();
}
static Value s_partition(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return partition_common(vm, argc, argv, kw, false); }
static Value s_rpartition(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return partition_common(vm, argc, argv, kw, true); }

static Value s_removeprefix(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "removeprefix", argc, kw, 2, 2) < 0) return val_null();
    StrObj *s = SSELF, *p;
    if (arg_str(vm, argv[1], "removeprefix", &p) < 0) return val_null();
    if (p->len <= s->len && memcmp(s->data, p->data, (size_t)p->len) == 0)
        return sval(str_new(vm, s->data + p->len, s->len - p->len));
    return sval(str_exact(vm, s));
}
static Value s_removesuffix(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "removesuffix", argc, kw, 2, 2) < 0) return val_null();
    StrObj *s = SSELF, *p;
    if (arg_str(vm, argv[1], "removesuffix", &p) < 0) return val_null();
    if (p->len && p->len <= s->len && memcmp(s->data + s->len - p->len, p->data, (size_t)p->len) == 0)
        return sval(str_new(vm, s->data, s->len - p->len));
    return sval(str_exact(vm, s));
}

/* ---- case and classification -------------------------------------------------------------- */

static bool cp_is_upper(uint32_t c) { return uni_is_upper(c); }
static bool cp_is_lower(uint32_t c) { return uni_is_lower(c); }
static bool cp_is_alpha(uint32_t c) { return uni_is_alpha(c); }
static bool cp_is_digit(uint32_t c) { return uni_is_digit(c); }

/* The case methods map each character through Unicode's full mappings ("ß".upper() == "SS").
 * title()/capitalize() put the first cased letter of a word in titlecase, as CPython. */
enum { CASE_UPPER, CASE_LOWER, CASE_SWAP, CASE_TITLE, CASE_CAPITALIZE, CASE_FOLD };
static Value map_case(VM *vm, StrObj *s, int mode) {
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    bool prev_cased = false, first = true;
    while (pos < s->len) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        unsigned out[3];
        int n = 1;
        switch (mode) {
        case CASE_UPPER: n = uni_to_upper(c, out); break;
        case CASE_LOWER: n = uni_to_lower(c, out); break;
        case CASE_SWAP:
            n = uni_is_upper(c) ? uni_to_lower(c, out) : uni_is_lower(c) ? uni_to_upper(c, out) : (out[0] = c, 1);
            break;
        case CASE_TITLE: n = prev_cased ? uni_to_lower(c, out) : uni_to_title(c, out); break;
        case CASE_CAPITALIZE: n = first ? uni_to_title(c, out) : uni_to_lower(c, out); break;
        case CASE_FOLD: n = uni_casefold(c, out); break;
        }
        prev_cased = uni_is_cased(c);
        first = false;
        for (int i = 0; i < n; i++) {
            char tmp[4];
            sb_add(&b, tmp, utf8_encode(out[i], tmp));
        }
    }
    return sval(sb_finish(vm, &b));
}
static Value s_upper(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_UPPER); }
static Value s_lower(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_LOWER); }
static Value s_casefold(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_FOLD); }
static Value s_swapcase(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_SWAP); }
static Value s_title(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_TITLE); }
static Value s_capitalize(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return map_case(vm, SSELF, CASE_CAPITALIZE); }

typedef bool (*CpPred)(uint32_t);
static Value all_of(StrObj *s, CpPred p) {
    if (s->len == 0) return val_bool(false);
    int64_t pos = 0;
    while (pos < s->len)
        if (!p(utf8_decode(s->data, s->len, &pos))) return val_bool(false);
    return val_bool(true);
}
static bool p_printable(uint32_t c) { return uni_is_printable(c); }
static bool p_decimal(uint32_t c) { return uni_is_decimal(c); }
static bool p_numeric(uint32_t c) { return uni_is_numeric(c); }
static bool p_alnum_full(uint32_t c) { return uni_is_alpha(c) || uni_is_decimal(c) || uni_is_digit(c) || uni_is_numeric(c); }
static Value s_isdigit(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, cp_is_digit); }
static Value s_isdecimal(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, p_decimal); }
/* True for the empty string too (CPython: every code point < 128) */
static Value s_isascii(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_bool(str_is_ascii(SSELF)); }
static Value s_isnumeric(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, p_numeric); }
static Value s_isalpha(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, cp_is_alpha); }
static Value s_isalnum(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, p_alnum_full); }
static Value s_isspace(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return all_of(SSELF, is_space_cp); }
static Value s_isprintable(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return SSELF->len == 0 ? val_bool(true) : all_of(SSELF, p_printable);
}
static Value cased_check(StrObj *s, bool want_upper) {
    bool any = false;
    int64_t pos = 0;
    while (pos < s->len) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        if (want_upper ? cp_is_lower(c) : cp_is_upper(c)) return val_bool(false);
        if (want_upper ? cp_is_upper(c) : cp_is_lower(c)) any = true;
    }
    return val_bool(any);
}
static Value s_isupper(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return cased_check(SSELF, true); }
static Value s_islower(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return cased_check(SSELF, false); }
bool str_is_identifier(const StrObj *s) {
    if (s->len == 0) return false;
    int64_t pos = 0;
    bool first = true;
    while (pos < s->len) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        if (!(first ? uni_is_xid_start(c) : uni_is_xid_continue(c))) return false;
        first = false;
    }
    return true;
}
static Value s_isidentifier(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_bool(str_is_identifier(SSELF)); }

/* ---- padding -------------------------------------------------------------------------------- */

static Value pad_common(VM *vm, int argc, Value *argv, TupleObj *kw, char align, const char *name) {
    if (native_check_args(vm, name, argc, kw, 2, 3) < 0) return val_null();
    StrObj *s = SSELF;
    int64_t width;
    if (vm_index(vm, argv[1], &width) < 0) return val_null();
    const char *fill = " ";
    int64_t fill_len = 1;
    if (argc == 3) {
        if (!val_is_str(vm, argv[2]) || AS_STR(argv[2])->ncp != 1)
            return vm_raise(vm, vm->e_TypeError, "The fill character must be exactly one character long");
        fill = AS_STR(argv[2])->data;
        fill_len = AS_STR(argv[2])->len;
    }
    if (width <= s->ncp) return sval(str_exact(vm, s));
    int64_t padn = width - s->ncp, left = 0, right = 0;
    if (align == '<') right = padn;
    else if (align == '>') left = padn;
    else {
        left = padn / 2 + (padn & width & 1);
        right = padn - left;
    }
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < left; i++) sb_add(&b, fill, fill_len);
    sb_add_str(&b, s);
    for (int64_t i = 0; i < right; i++) sb_add(&b, fill, fill_len);
    return sval(sb_finish(vm, &b));
}
static Value s_ljust(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return pad_common(vm, argc, argv, kw, '<', "ljust"); }
static Value s_rjust(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return pad_common(vm, argc, argv, kw, '>', "rjust"); }
static Value s_center(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return pad_common(vm, argc, argv, kw, '^', "center"); }

static Value s_zfill(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "zfill", argc, kw, 2, 2) < 0) return val_null();
    StrObj *s = SSELF;
    int64_t width;
    if (vm_index(vm, argv[1], &width) < 0) return val_null();
    if (width <= s->ncp) return sval(str_exact(vm, s));
    StrBuf b;
    sb_init(&b);
    int64_t i = 0;
    if (s->len && (s->data[0] == '+' || s->data[0] == '-')) sb_addc(&b, s->data[i++]);
    for (int64_t k = 0; k < width - s->ncp; k++) sb_addc(&b, '0');
    sb_add(&b, s->data + i, s->len - i);
    return sval(sb_finish(vm, &b));
}

static Value s_expandtabs(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrObj *s = SSELF;
    int64_t ts = 8;
    if (argc > 1 && vm_index(vm, argv[1], &ts) < 0) return val_null();
    StrBuf b;
    sb_init(&b);
    int64_t col = 0;
    for (int64_t i = 0; i < s->len; i++) {
        char c = s->data[i];
        if (c == '\t') {
            if (ts > 0) {
                int64_t n = ts - col % ts;
                for (int64_t k = 0; k < n; k++) sb_addc(&b, ' ');
                col += n;
            }
        } else {
            sb_addc(&b, c);
            col = (c == '\n' || c == '\r') ? 0 : col + (((unsigned char)c & 0xC0) != 0x80);
        }
    }
    return sval(sb_finish(vm, &b));
}

static Value s_encode(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "encoding", "errors"};
    Value a[3];
    if (native_parse_args(vm, "encode", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    for (int i = 1; i < 3; i++)
        if (!val_is_null(a[i]) && !val_is_str(vm, a[i]))
            return vm_raise(vm, vm->e_TypeError, "encode() argument '%s' must be str, not %s", names[i],
                            vm_type_name(vm, a[i]));
    return codec_encode(vm, SSELF, val_is_null(a[1]) ? "utf-8" : AS_STR(a[1])->data,
                        val_is_null(a[2]) ? "strict" : AS_STR(a[2])->data);
}

/* ---- str.format ------------------------------------------------------------------------------- */

/* Resolve a field name like "0", "name", "x.attr", "x[0]", "" (auto-numbered). */
/* mapping: str.format_map's mapping (named fields are mapping[name]), or VAL_NULL */
static Value format_field(VM *vm, const char *f, int64_t n, int argc, Value *argv, TupleObj *kw, Value mapping,
                          int *autoidx) {
    int64_t i = 0;
    while (i < n && f[i] != '.' && f[i] != '[') i++;
    Value obj;
    if (i == 0) {
        if (*autoidx < 0) return vm_raise(vm, vm->e_ValueError, "cannot switch from manual field specification to automatic field numbering");
        int k = (*autoidx)++;
        if (k + 1 >= argc) return vm_raise(vm, vm->e_IndexError, "Replacement index %d out of range for positional args tuple", k);
        obj = argv[k + 1];
    } else if (isdigit((unsigned char)f[0])) {
        if (*autoidx > 0) return vm_raise(vm, vm->e_ValueError, "cannot switch from automatic field numbering to manual field specification");
        *autoidx = -1;
        int k = atoi(f);
        if (k + 1 >= argc) return vm_raise(vm, vm->e_IndexError, "Replacement index %d out of range for positional args tuple", k);
        obj = argv[k + 1];
    } else if (!val_is_null(mapping)) {
        StrObj *key = str_new(vm, f, i);
        if (!key) return val_null();
        vm_push_root(vm, val_obj(key));
        obj = vm_getitem(vm, mapping, val_obj(key));
        vm_pop_root(vm);
        if (val_is_null(obj)) return obj;
    } else {
        obj = val_null();
        for (int64_t k = 0; kw && k < kw->len; k++) {
            StrObj *kn = AS_STR(kw->items[k]);
            if (kn->len == i && memcmp(kn->data, f, (size_t)i) == 0) obj = argv[argc + k];
        }
        if (val_is_null(obj)) {
            StrObj *key = str_new(vm, f, i);
            if (!key) return val_null();
            return vm_raise_key_error(vm, val_obj(key));
        }
    }
    while (i < n) {
        if (f[i] == '.') {
            int64_t j = ++i;
            while (i < n && f[i] != '.' && f[i] != '[') i++;
            StrObj *name = str_new(vm, f + j, i - j);
            if (!name) return val_null();
            vm_push_root(vm, obj);
            name = str_intern(vm, name);
            obj = name ? vm_getattr(vm, obj, name) : val_null();
            vm_pop_root(vm);
        } else {
            int64_t j = ++i;
            while (i < n && f[i] != ']') i++;
            Value key;
            bool digits = i > j;
            for (int64_t k = j; k < i; k++)
                if (!isdigit((unsigned char)f[k])) digits = false;
            if (digits) key = val_int(atoll(f + j));
            else {
                StrObj *ks = str_new(vm, f + j, i - j);
                if (!ks) return val_null();
                key = val_obj(ks);
            }
            i++;
            vm_push_root(vm, obj);
            vm_push_root(vm, key);
            obj = vm_getitem(vm, obj, key);
            vm_pop_roots(vm, 2);
        }
        if (val_is_null(obj)) return obj;
    }
    return obj;
}

static int format_into(VM *vm, StrBuf *out, StrObj *fmt, int argc, Value *argv, TupleObj *kw, Value mapping,
                       int *autoidx, int depth) {
    const char *s = fmt->data;
    int64_t n = fmt->len, i = 0;
    if (depth > 2) {
        vm_raise(vm, vm->e_ValueError, "Max string recursion exceeded");
        return -1;
    }
    while (i < n) {
        char c = s[i];
        if (c == '}') {
            if (i + 1 < n && s[i + 1] == '}') {
                sb_addc(out, '}');
                i += 2;
                continue;
            }
            vm_raise(vm, vm->e_ValueError, "Single '}' encountered in format string");
            return -1;
        }
        if (c != '{') {
            sb_addc(out, c);
            i++;
            continue;
        }
        if (i + 1 < n && s[i + 1] == '{') {
            sb_addc(out, '{');
            i += 2;
            continue;
        }
        /* a replacement field: {field[!conv][:spec]} with nested {} in spec */
        int64_t j = ++i, nest = 1;
        while (j < n && nest) {
            if (s[j] == '{') nest++;
            else if (s[j] == '}') nest--;
            if (nest) j++;
        }
        if (j >= n) {
            vm_raise(vm, vm->e_ValueError, "expected '}' before end of string");
            return -1;
        }
        int64_t fe = i;
        while (fe < j && s[fe] != '!' && s[fe] != ':') fe++;
        char conv = 0;
        int64_t se = fe;
        if (fe < j && s[fe] == '!') {
            conv = fe + 1 < j ? s[fe + 1] : 0;
            se = fe + 2;
            if (conv != 'r' && conv != 's' && conv != 'a') {
                vm_raise(vm, vm->e_ValueError, "Unknown conversion specifier %c", conv ? conv : '?');
                return -1;
            }
        }
        Value obj = format_field(vm, s + i, fe - i, argc, argv, kw, mapping, autoidx);
        if (val_is_null(obj)) return -1;
        vm_push_root(vm, obj);
        if (conv) {
            obj = conv == 'r' ? vm_repr(vm, obj) : conv == 'a' ? vm_ascii(vm, obj) : vm_str(vm, obj);
            if (val_is_null(obj)) { vm_pop_root(vm); return -1; }
            vm_pop_root(vm);
            vm_push_root(vm, obj);
        }
        Value spec = val_null();
        if (se < j && s[se] == ':') {
            StrObj *raw = str_new(vm, s + se + 1, j - se - 1);
            if (!raw) { vm_pop_root(vm); return -1; }
            vm_push_root(vm, val_obj(raw));
            StrBuf sb;
            sb_init(&sb);
            int rc = format_into(vm, &sb, raw, argc, argv, kw, mapping, autoidx, depth + 1);
            vm_pop_root(vm);
            if (rc < 0) { sb_free(&sb); vm_pop_root(vm); return -1; }
            StrObj *sp = sb_finish(vm, &sb);
            if (!sp) { vm_pop_root(vm); return -1; }
            spec = val_obj(sp);
        }
        vm_push_root(vm, spec);
        Value r = vm_format(vm, obj, spec);
        vm_pop_roots(vm, 2);
        if (val_is_null(r)) return -1;
        sb_add_str(out, AS_STR(r));
        i = j + 1;
    }
    return 0;
}

static Value s_format(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrBuf b;
    sb_init(&b);
    int autoidx = 0;
    if (format_into(vm, &b, SSELF, argc, argv, kw, val_null(), &autoidx, 0) < 0) {
        sb_free(&b);
        return val_null();
    }
    return sval(sb_finish(vm, &b));
}

static Value s_format_map(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrBuf b;
    sb_init(&b);
    int autoidx = 0;
    if (format_into(vm, &b, SSELF, 1, argv, NULL, argv[1], &autoidx, 0) < 0) {
        sb_free(&b);
        return val_null();
    }
    return sval(sb_finish(vm, &b));
}

/* str.maketrans(x[, y[, z]]): a dict from code points to code points, strings or None. */
static Value s_maketrans(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    Value r = val_obj(d);
    if (argc == 1) {
        if (!vm_isinstance_type(vm, argv[0], vm->t_dict)) {
            r = vm_raise(vm, vm->e_TypeError, "if you give only one argument to maketrans it must be a dict");
            goto done;
        }
        int64_t pos = 0;
        Value k, v;
        while (dict_next(AS_DICT(argv[0]), &pos, &k, &v)) {
            Value key = k;
            if (val_is_str(vm, k)) {
                if (AS_STR(k)->ncp != 1) {
                    r = vm_raise(vm, vm->e_ValueError, "string keys in translate table must be of length 1");
                    goto done;
                }
                int64_t p0 = 0;
                key = val_int(utf8_decode(AS_STR(k)->data, AS_STR(k)->len, &p0));
            } else if (!val_is_intlike(k)) {
                r = vm_raise(vm, vm->e_TypeError, "keys in translate table must be strings or integers");
                goto done;
            }
            if (dict_set(vm, d, key, v) < 0) {
                r = val_null();
                goto done;
            }
        }
        goto done;
    }
    if (!val_is_str(vm, argv[0]) || !val_is_str(vm, argv[1])) {
        r = vm_raise(vm, vm->e_TypeError, "maketrans() argument must be str, not %s",
                     vm_type_name(vm, val_is_str(vm, argv[0]) ? argv[1] : argv[0]));
        goto done;
    }
    StrObj *x = AS_STR(argv[0]), *y = AS_STR(argv[1]);
    if (x->ncp != y->ncp) {
        r = vm_raise(vm, vm->e_ValueError, "the first two maketrans arguments must have equal length");
        goto done;
    }
    int64_t px = 0, py = 0;
    while (px < x->len) {
        uint32_t a = utf8_decode(x->data, x->len, &px), c = utf8_decode(y->data, y->len, &py);
        if (dict_set(vm, d, val_int(a), val_int(c)) < 0) {
            r = val_null();
            goto done;
        }
    }
    if (argc == 3) {
        if (!val_is_str(vm, argv[2])) {
            r = vm_raise(vm, vm->e_TypeError, "maketrans() argument 3 must be str, not %s", vm_type_name(vm, argv[2]));
            goto done;
        }
        StrObj *z = AS_STR(argv[2]);
        int64_t pz = 0;
        while (pz < z->len)
            if (dict_set(vm, d, val_int(utf8_decode(z->data, z->len, &pz)), val_none()) < 0) {
                r = val_null();
                goto done;
            }
    }
done:
    vm_pop_root(vm);
    return r;
}

/* str.translate(table): each character's code point looked up in table (table[cp]): a code
 * point, a string, None (delete), or LookupError (keep). */
static Value s_translate(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    while (pos < SSELF->len) {
        int64_t start = pos;
        uint32_t c = utf8_decode(SSELF->data, SSELF->len, &pos);
        Value m = vm_getitem(vm, argv[1], val_int(c));
        if (val_is_null(m)) {
            if (!vm_exc_matches(vm, vm->e_LookupError)) goto fail;
            vm_clear_exc(vm);
            sb_add(&b, SSELF->data + start, pos - start);
            continue;
        }
        if (val_is_none(m)) continue;
        if (val_is_intlike(m)) {
            int64_t v = val_as_intlike(m);
            if (v < 0 || v > 0x10FFFF) {
                vm_raise(vm, vm->e_ValueError, "character mapping must be in range(0x110000)");
                goto fail;
            }
            char tmp[4];
            sb_add(&b, tmp, utf8_encode((uint32_t)v, tmp));
        } else if (val_is_str(vm, m)) {
            sb_add_str(&b, AS_STR(m));
        } else {
            vm_raise(vm, vm->e_TypeError, "character mapping must return integer, None or str");
            goto fail;
        }
    }
    return sval(sb_finish(vm, &b));
fail:
    sb_free(&b);
    return val_null();
}

/* ---- %-formatting (printf style) -------------------------------------------------------------- */

enum { PF_LJUST = 1, PF_SIGN = 2, PF_BLANK = 4, PF_ALT = 8, PF_ZERO = 16 };

/* Lay out sign + prefix + body in width: left-justified, zero-filled after the sign (numbers),
 * or right-justified with spaces; width counts code points. */
static void pct_pad(StrBuf *b, int flags, int64_t width, const char *sign, const char *prefix, const char *body,
                    int64_t blen, bool numeric) {
    int64_t len = (int64_t)strlen(sign) + (int64_t)strlen(prefix) + utf8_count(body, blen);
    int64_t pad = width > len ? width - len : 0;
    if (!(flags & PF_LJUST) && !((flags & PF_ZERO) && numeric))
        for (int64_t k = 0; k < pad; k++) sb_addc(b, ' ');
    sb_adds(b, sign);
    sb_adds(b, prefix);
    if (!(flags & PF_LJUST) && (flags & PF_ZERO) && numeric)
        for (int64_t k = 0; k < pad; k++) sb_addc(b, '0');
    sb_add(b, body, blen);
    if (flags & PF_LJUST)
        for (int64_t k = 0; k < pad; k++) sb_addc(b, ' ');
}

/* One conversion of "%[flags][width][.prec]type" with CPython's rules.  0 or -1. */
static int pct_one(VM *vm, StrBuf *b, char type, int flags, int64_t width, int64_t prec, Value arg) {
    char buf[512];
    const char *sign = "";
    switch (type) {
    case 's': case 'r': case 'a': case 'c': {
        Value conv;
        if (type == 'c') {
            if (val_is_intobj(arg) && !mpz_fits_slong_p(AS_INTOBJ(arg)->z)) {
                vm_raise(vm, vm->e_OverflowError, "%%c arg not in range(0x110000)");
                return -1;
            }
            if (val_is_intlike(arg) || val_is_intobj(arg)) {
                int64_t cp = val_is_intobj(arg) ? mpz_get_si(AS_INTOBJ(arg)->z) : val_as_intlike(arg);
                if (cp < 0 || cp > 0x10FFFF) {
                    vm_raise(vm, vm->e_OverflowError, "%%c arg not in range(0x110000)");
                    return -1;
                }
                int n = utf8_encode((uint32_t)cp, buf);
                pct_pad(b, flags, width, "", "", buf, n, false);
                return 0;
            }
            if (!val_is_str(vm, arg) || AS_STR(arg)->ncp != 1) {
                vm_raise(vm, vm->e_TypeError, "%%c requires int or char");
                return -1;
            }
            conv = arg;
            prec = -1;
        } else {
            conv = type == 's' ? vm_str(vm, arg) : type == 'r' ? vm_repr(vm, arg) : vm_ascii(vm, arg);
            if (val_is_null(conv)) return -1;
        }
        StrObj *t = AS_STR(conv);
        int64_t n = prec >= 0 && prec < t->ncp ? str_byte_offset(t, prec) : t->len;
        pct_pad(b, flags, width, "", "", t->data, n, false);
        return 0;
    }
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
        bool integral = type != 'd' && type != 'i' && type != 'u';
        mpz_t z;
        mpz_init(z);
        int rc = 0;
        if (bigint_check(vm, arg)) {
            bigint_load(arg, z);
        } else if (arg.tag == VAL_FLOAT && !integral) {
            Value iv = bigint_from_double(vm, arg.as.f);
            if (val_is_null(iv)) rc = -1;
            else bigint_load(iv, z);
        } else if (!val_is_null(type_special(vm, vm_type_of(vm, arg), SP_INDEX))) {
            rc = bigint_index_mpz(vm, arg, z);
        } else {
            if (integral)
                vm_raise(vm, vm->e_TypeError, "%%%c format: an integer is required, not %s", type, vm_type_name(vm, arg));
            else
                vm_raise(vm, vm->e_TypeError, "%%%c format: a real number is required, not %s", type,
                         vm_type_name(vm, arg));
            rc = -1;
        }
        if (rc < 0) {
            mpz_clear(z);
            return -1;
        }
        sign = mpz_sgn(z) < 0 ? "-" : (flags & PF_SIGN) ? "+" : (flags & PF_BLANK) ? " " : "";
        const char *prefix = "";
        int base = 10;
        if (type == 'x' || type == 'X') {
            base = type == 'x' ? 16 : -16;   /* GMP: a negative base means upper-case letters */
            if (flags & PF_ALT) prefix = type == 'x' ? "0x" : "0X";
        } else if (type == 'o') {
            base = 8;
            if (flags & PF_ALT) prefix = "0o";
        }
        mpz_abs(z, z);
        /* mpz_sizeinbase may overestimate by one: it sizes the buffer, strlen counts the digits */
        size_t nd = mpz_sizeinbase(z, base < 0 ? -base : base);
        int64_t want = prec < 100000 ? prec : 0;   /* precision: at least that many digits */
        int64_t p = want > (int64_t)nd ? want : (int64_t)nd;
        char *digits = malloc((size_t)p + 2);
        if (!digits) {
            mpz_clear(z);
            vm_no_memory(vm);
            return -1;
        }
        mpz_get_str(digits, base, z);
        mpz_clear(z);
        int64_t n = (int64_t)strlen(digits);
        if (base == 10 && vm->int_max_str_digits > 0 && n > vm->int_max_str_digits) {
            free(digits);
            bigint_digit_limit_error(vm, -1);
            return -1;
        }
        if (want > n) {
            memmove(digits + (want - n), digits, (size_t)n + 1);
            memset(digits, '0', (size_t)(want - n));
            n = want;
        }
        pct_pad(b, flags, width, sign, prefix, digits, n, true);
        free(digits);
        return 0;
    }
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
        double d;
        if (!val_is_number(arg) && val_is_null(type_special(vm, vm_type_of(vm, arg), SP_FLOAT)) &&
            val_is_null(type_special(vm, vm_type_of(vm, arg), SP_INDEX))) {
            vm_raise(vm, vm->e_TypeError, "must be real number, not %s", vm_type_name(vm, arg));
            return -1;
        }
        if (vm_to_double(vm, arg, &d) < 0) return -1;
        if (prec < 0) prec = 6;
        if (prec > 300) prec = 300;
        sign = signbit(d) && !isnan(d) ? "-" : (flags & PF_SIGN) ? "+" : (flags & PF_BLANK) ? " " : "";
        double a = fabs(d);
        bool upper = type == 'E' || type == 'F' || type == 'G';
        if (isnan(d) || isinf(d)) {
            snprintf(buf, sizeof buf, "%s", isnan(d) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
        } else {
            char cf[16];
            snprintf(cf, sizeof cf, "%%%s.*%c", (flags & PF_ALT) ? "#" : "", type);
            snprintf(buf, sizeof buf, cf, (int)prec, a);
        }
        pct_pad(b, flags, width, sign, "", buf, (int64_t)strlen(buf), true);
        return 0;
    }
    default:
        return 1;   /* the caller reports the unsupported character */
    }
}

static Value s_mod(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrObj *f = SSELF;
    Value args = argv[1];
    Value *items = &argv[1];
    int64_t nargs = 1;
    bool is_map = false;
    if (val_is_obj(args) && vm_isinstance_type(vm, args, vm->t_tuple)) {   /* tuple subclasses too (namedtuple reprs) */
        items = AS_TUPLE(args)->items;
        nargs = AS_TUPLE(args)->len;
    } else if (val_is_obj(args) && !val_is_str(vm, args) &&
               !val_is_null(type_special(vm, vm_type_of(vm, args), SP_GETITEM))) {
        is_map = true;   /* "%(name)s" % mapping; the mapping also counts as the single argument */
    }
    StrBuf b;
    sb_init(&b);
    int64_t ai = 0;
    bool used_key = false;
    for (int64_t i = 0; i < f->len; i++) {
        char c = f->data[i];
        if (c != '%') {
            sb_addc(&b, c);
            continue;
        }
        int64_t start = i;
        if (++i >= f->len) goto incomplete;
        Value arg;
        Value key = val_null();
        if (f->data[i] == '(') {
            int64_t j = ++i, depth = 1;
            while (i < f->len && depth) {
                if (f->data[i] == '(') depth++;
                else if (f->data[i] == ')') depth--;
                if (depth) i++;
            }
            if (i >= f->len) {
                sb_free(&b);
                return vm_raise(vm, vm->e_ValueError, "incomplete format key");
            }
            if (!is_map) {
                sb_free(&b);
                return vm_raise(vm, vm->e_TypeError, "format requires a mapping");
            }
            StrObj *k = str_new(vm, f->data + j, i - j);
            if (!k) goto fail;
            key = val_obj(k);
            used_key = true;
            i++;
        }
        int flags = 0;
        for (; i < f->len; i++) {
            char fc = f->data[i];
            if (fc == '-') flags |= PF_LJUST;
            else if (fc == '+') flags |= PF_SIGN;
            else if (fc == ' ') flags |= PF_BLANK;
            else if (fc == '#') flags |= PF_ALT;
            else if (fc == '0') flags |= PF_ZERO;
            else break;
        }
        int64_t width = -1, prec = -1;
        if (i < f->len && f->data[i] == '*') {
            if (ai >= nargs) goto notenough;
            if (!val_is_intlike(items[ai])) {
                sb_free(&b);
                return vm_raise(vm, vm->e_TypeError, "* wants int");
            }
            width = val_as_intlike(items[ai++]);
            if (width < 0) {
                flags |= PF_LJUST;
                width = -width;
            }
            i++;
        } else {
            while (i < f->len && isdigit((unsigned char)f->data[i])) width = (width < 0 ? 0 : width * 10) + (f->data[i++] - '0');
        }
        if (i < f->len && f->data[i] == '.') {
            i++;
            prec = 0;
            if (i < f->len && f->data[i] == '*') {
                if (ai >= nargs) goto notenough;
                if (!val_is_intlike(items[ai])) {
                    sb_free(&b);
                    return vm_raise(vm, vm->e_TypeError, "* wants int");
                }
                prec = val_as_intlike(items[ai++]);
                i++;
            } else {
                while (i < f->len && isdigit((unsigned char)f->data[i])) prec = prec * 10 + (f->data[i++] - '0');
            }
        }
        if (i >= f->len) goto incomplete;
        char type = f->data[i];
        if (type == '%' && i == start + 1) {   /* only "%%" is a literal percent sign */
            sb_addc(&b, '%');
            continue;
        }
        if (!val_is_null(key)) {
            vm_push_root(vm, key);
            arg = vm_getitem(vm, args, key);
            vm_pop_root(vm);
            if (val_is_null(arg)) goto fail;
        } else {
            if (ai >= nargs) goto notenough;
            arg = items[ai++];
        }
        vm_push_root(vm, arg);
        int r = pct_one(vm, &b, type, flags, width, prec, arg);
        vm_pop_root(vm);
        if (r < 0) goto fail;
        if (r > 0) {
            sb_free(&b);
            if ((unsigned char)type < 0x80)
                return vm_raise(vm, vm->e_ValueError, "unsupported format character '%c' (0x%x) at index %lld", type,
                                type, (long long)i);
            return vm_raise(vm, vm->e_ValueError, "unsupported format character at index %lld", (long long)i);
        }
    }
    if (ai < nargs && !is_map && !used_key) {
        sb_free(&b);
        return vm_raise(vm, vm->e_TypeError, "not all arguments converted during string formatting");
    }
    return sval(sb_finish(vm, &b));
incomplete:
    sb_free(&b);
    return vm_raise(vm, vm->e_ValueError, "incomplete format");
notenough:
    sb_free(&b);
    return vm_raise(vm, vm->e_TypeError, "not enough arguments for format string");
fail:
    sb_free(&b);
    return val_null();
}

void bytes_init_type(VM *vm);

void str_init_types(VM *vm) {
#define SCMP {"__lt__", s_cmp, NATIVEF_METHOD, (void *)CMP_LT}, {"__le__", s_cmp, NATIVEF_METHOD, (void *)CMP_LE}, \
        {"__eq__", s_cmp, NATIVEF_METHOD, (void *)CMP_EQ}, {"__ne__", s_cmp, NATIVEF_METHOD, (void *)CMP_NE},      \
        {"__gt__", s_cmp, NATIVEF_METHOD, (void *)CMP_GT}, {"__ge__", s_cmp, NATIVEF_METHOD, (void *)CMP_GE}
    static const MethodDef sm[] = {
        {"__new__", s_new, NATIVEF_STATIC}, {"__getitem__", s_getitem, NATIVEF_METHOD},
        {"__len__", s_len, NATIVEF_METHOD}, {"__str__", s_str, NATIVEF_METHOD}, {"__repr__", s_repr, NATIVEF_METHOD},
        {"__hash__", s_hash, NATIVEF_METHOD}, {"__contains__", s_contains, NATIVEF_METHOD},
        {"__iter__", s_iter, NATIVEF_METHOD}, {"__add__", s_add, NATIVEF_METHOD}, {"__mul__", s_mul, NATIVEF_METHOD},
        {"__rmul__", s_mul, NATIVEF_METHOD}, {"__mod__", s_mod, NATIVEF_METHOD},
        {"__format__", s_format_m, NATIVEF_METHOD}, SCMP,
        {"find", s_find, NATIVEF_METHOD | ARITY_TUPLE(1, 3)}, {"rfind", s_rfind, NATIVEF_METHOD | ARITY_TUPLE(1, 3)}, {"index", s_index, NATIVEF_METHOD | ARITY_TUPLE(1, 3)},
        {"rindex", s_rindex, NATIVEF_METHOD | ARITY_TUPLE(1, 3)}, {"count", s_count, NATIVEF_METHOD | ARITY_TUPLE(1, 3)},
        {"startswith", s_startswith, NATIVEF_METHOD | ARITY_TUPLE(1, 3)}, {"endswith", s_endswith, NATIVEF_METHOD | ARITY_TUPLE(1, 3)},
        {"split", s_split, NATIVEF_METHOD}, {"rsplit", s_rsplit, NATIVEF_METHOD},
        {"splitlines", s_splitlines, NATIVEF_METHOD}, {"join", s_join, NATIVEF_METHOD | ARITY_O},
        {"strip", s_strip, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"lstrip", s_lstrip, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"rstrip", s_rstrip, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"replace", s_replace, NATIVEF_METHOD | ARITY_POS(2, 3)}, {"partition", s_partition, NATIVEF_METHOD | ARITY_O},
        {"rpartition", s_rpartition, NATIVEF_METHOD | ARITY_O}, {"removeprefix", s_removeprefix, NATIVEF_METHOD | ARITY_O},
        {"removesuffix", s_removesuffix, NATIVEF_METHOD | ARITY_O}, {"upper", s_upper, NATIVEF_METHOD | ARITY_NOARGS},
        {"lower", s_lower, NATIVEF_METHOD | ARITY_NOARGS}, {"casefold", s_casefold, NATIVEF_METHOD | ARITY_NOARGS},
        {"swapcase", s_swapcase, NATIVEF_METHOD | ARITY_NOARGS}, {"title", s_title, NATIVEF_METHOD | ARITY_NOARGS},
        {"capitalize", s_capitalize, NATIVEF_METHOD | ARITY_NOARGS}, {"isdigit", s_isdigit, NATIVEF_METHOD | ARITY_NOARGS},
        {"isdecimal", s_isdecimal, NATIVEF_METHOD | ARITY_NOARGS}, {"isascii", s_isascii, NATIVEF_METHOD | ARITY_NOARGS}, {"isnumeric", s_isnumeric, NATIVEF_METHOD | ARITY_NOARGS},
        {"isalpha", s_isalpha, NATIVEF_METHOD | ARITY_NOARGS}, {"isalnum", s_isalnum, NATIVEF_METHOD | ARITY_NOARGS},
        {"isspace", s_isspace, NATIVEF_METHOD | ARITY_NOARGS}, {"isupper", s_isupper, NATIVEF_METHOD | ARITY_NOARGS},
        {"islower", s_islower, NATIVEF_METHOD | ARITY_NOARGS}, {"isidentifier", s_isidentifier, NATIVEF_METHOD | ARITY_NOARGS},
        {"isprintable", s_isprintable, NATIVEF_METHOD | ARITY_NOARGS}, {"ljust", s_ljust, NATIVEF_METHOD | ARITY_POS(1, 2)},
        {"rjust", s_rjust, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"center", s_center, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"zfill", s_zfill, NATIVEF_METHOD | ARITY_O},
        {"expandtabs", s_expandtabs, NATIVEF_METHOD}, {"encode", s_encode, NATIVEF_METHOD},
        {"format", s_format, NATIVEF_METHOD}, {"format_map", s_format_map, NATIVEF_METHOD | ARITY_O},
        {"translate", s_translate, NATIVEF_METHOD | ARITY_O}, {"maketrans", s_maketrans, NATIVEF_STATIC | ARITY_POS(1, 3)},
        {NULL}};
    if (type_add_methods(vm, vm->t_str, sm) < 0) EM_UNREACHABLE();
    bytes_init_type(vm);
}
