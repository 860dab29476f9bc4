/* vm/exc_syntax.c — SyntaxError as CPython 3.11 writes it in C: the constructor
 * SyntaxError(msg, (filename, lineno, offset, text[, end_lineno, end_offset])), the attributes
 * msg / filename / lineno / offset / text / end_lineno / end_offset / print_file_and_line (None
 * when unset), str() as "msg (file.py, line 3)", and the way an uncaught one is printed
 * ("  File ..., line N", the line, a caret run, then "SyntaxError: msg").  IndentationError and
 * TabError inherit all of it.  The compiler raises them through vm_syntax_error. */
#include "vm/exc_syntax.h"

#include <limits.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define EXC(v) ((ExceptionObj *)(v).as.o)

static const char *const attr_names[] = {"msg", "filename", "lineno", "offset", "text", "end_lineno", "end_offset",
                                         "print_file_and_line"};

static int attr_set(VM *vm, Value self, const char *name, Value v) {
    ExceptionObj *e = EXC(self);
    if (!e->dict) {
        vm_push_root(vm, v);
        e->dict = dict_new(vm);
        vm_pop_root(vm);
        if (!e->dict) return -1;
    }
    return dict_set_c(vm, e->dict, name, val_is_null(v) ? val_none() : v);
}

static Value attr_get(VM *vm, Value self, const char *name) {
    DictObj *d = EXC(self)->dict;
    Value v = d ? dict_get_c(vm, d, name) : val_null();
    return val_is_null(v) ? val_none() : v;
}

static Value get_attr(VM *vm, Value s, void *c) { return attr_get(vm, s, (const char *)c); }

/* msg: set by __init__ from args[0]; an instance made without __init__ (raised from C with a
 * message) reads it from its args */
static Value get_msg(VM *vm, Value s, void *c) {
    DictObj *d = EXC(s)->dict;
    Value v = d ? dict_get_c(vm, d, "msg") : val_null();
    if (!val_is_null(v)) return v;
    TupleObj *args = EXC(s)->args;
    return args && args->len >= 1 ? args->items[0] : val_none();
}
static int set_attr(VM *vm, Value s, Value v, void *c) { return attr_set(vm, s, (const char *)c, v); }

/* SyntaxError_init */
static Value syntax_init(ARGS) {
    if (kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", vm_type_name(vm, argv[0]));
    Value self = argv[0];
    int n = argc - 1;
    TupleObj *args = tuple_from_array(vm, argv + 1, n);
    if (!args) return val_null();
    EXC(self)->args = args;
    if (n >= 1 && attr_set(vm, self, "msg", argv[1]) < 0) return val_null();
    if (n == 2) {
        Value info = argv[2];
        Value t = vm_call1(vm, val_obj(vm->t_tuple), info);
        if (val_is_null(t)) return val_null();
        TupleObj *d = AS_TUPLE(t);
        if (d->len < 4 || d->len > 6) {
            if (d->len < 4)
                return vm_raise(vm, vm->e_TypeError, "function takes at least 4 arguments (%lld given)", (long long)d->len);
            return vm_raise(vm, vm->e_TypeError, "function takes at most 6 arguments (%lld given)", (long long)d->len);
        }
        vm_push_root(vm, t);
        for (int64_t i = 0; i < d->len; i++)
            if (attr_set(vm, self, attr_names[1 + i], d->items[i]) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        vm_pop_root(vm);
        if (d->len == 5)
            return vm_raise(vm, vm->e_TypeError, "end_offset must be provided when end_lineno is provided");
    }
    return val_none();
}

/* my_basename: the part after the last '/' */
static const char *basename_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* SyntaxError_str: "msg (file, line N)", "msg (file)", "msg (line N)" or str(msg) */
static Value syntax_str(ARGS) {
    Value self = argv[0];
    Value msg = get_msg(vm, self, NULL);
    Value filename = attr_get(vm, self, "filename");
    Value lineno = attr_get(vm, self, "lineno");
    Value s = vm_str(vm, msg);
    if (val_is_null(s)) return s;
    const char *file = val_is_str(vm, filename) ? basename_of(AS_STR(filename)->data) : NULL;
    bool have_lineno = val_is_int(lineno);
    if (!file && !have_lineno) return s;
    StrBuf b = SB_INIT;
    sb_add_str(&b, AS_STR(s));
    if (file && have_lineno) sb_printf(&b, " (%s, line %lld)", file, (long long)lineno.as.i);
    else if (file) sb_printf(&b, " (%s)", file);
    else sb_printf(&b, " (line %lld)", (long long)lineno.as.i);
    StrObj *r = sb_finish(vm, &b);
    return r ? val_obj(r) : val_null();
}

Value vm_syntax_error(VM *vm, TypeObj *type, const char *msg, const char *filename, int lineno, int offset,
                      const char *text, int end_lineno, int end_offset, bool details_in_args) {
    Value parts[6];
    int nroots = 0;
    StrObj *m = str_from_c(vm, msg);
    if (!m) return val_null();
    vm_push_root(vm, val_obj(m)), nroots++;
    StrObj *fn = str_from_c(vm, filename);
    if (!fn) goto fail;
    vm_push_root(vm, val_obj(fn)), nroots++;
    StrObj *tx = text ? str_from_c(vm, text) : NULL;
    if (text && !tx) goto fail;
    vm_push_root(vm, tx ? val_obj(tx) : val_none()), nroots++;
    parts[0] = val_obj(fn);
    parts[1] = val_int(lineno);
    parts[2] = val_int(offset);
    parts[3] = tx ? val_obj(tx) : val_none();
    /* INT_MIN: CPython has None there (the __future__ errors' end offset) */
    parts[4] = end_lineno == INT_MIN ? val_none() : val_int(end_lineno);
    parts[5] = end_offset == INT_MIN ? val_none() : val_int(end_offset);
    TupleObj *info = tuple_from_array(vm, parts, 6);
    if (!info) goto fail;
    vm_push_root(vm, val_obj(info)), nroots++;
    Value a[2] = {val_obj(m), val_obj(info)};
    Value e = vm_call(vm, val_obj(type), details_in_args ? 2 : 1, a, NULL);
    if (!val_is_null(e) && !details_in_args) { /* PyErr_SyntaxLocationObject: attributes only */
        vm_push_root(vm, e), nroots++;
        for (int i = 0; i < 6; i++)
            if (attr_set(vm, e, attr_names[1 + i], parts[i]) < 0) {
                e = val_null();
                break;
            }
    }
    vm_pop_roots(vm, nroots);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
fail:
    vm_pop_roots(vm, nroots);
    return val_null();
}

/* ---- printing an uncaught one (pythonrun.c's print_exception SyntaxError case) ------------- */

static bool get_ssize(VM *vm, Value v, int64_t *out) {
    if (!val_is_int(v) && !val_is_bool(v)) return false;
    *out = val_is_int(v) ? v.as.i : v.as.b;
    return true;
}

/* print_error_text: the line without its indentation, then the caret run under it */
static void print_error_text(FILE *out, int64_t offset, int64_t end_offset, const char *text) {
    int64_t carets = end_offset > 0 && end_offset > offset ? end_offset - offset : 1;
    offset--;
    while (*text == ' ' || *text == '\t' || *text == '\f') text++, offset--;
    int64_t len = (int64_t)strlen(text);
    if (len > 0 && text[len - 1] == '\n') len--;
    if (offset > len) offset = len;
    for (;;) { /* newlines inside the text: show the line the offset falls in */
        const char *nl = strchr(text, '\n');
        if (!nl) break;
        int64_t inl = nl - text;
        if (inl >= offset) break;
        inl += 1;
        text += inl, len -= inl, offset -= inl;
    }
    fprintf(out, "    %s", text);
    if (text[len] != '\n') fputc('\n', out);
    if (offset < 0) return;
    fputs("    ", out);
    while (--offset >= 0) fputc(' ', out);
    for (int64_t i = 0; i < carets; i++) fputc('^', out);
    fputc('\n', out);
}

bool vm_syntax_error_print_location(VM *vm, Value exc, FILE *out, Value *message) {
    if (!vm_isinstance_type(vm, exc, vm->e_SyntaxError)) return false;
    int64_t lineno, offset = -1, end_lineno, end_offset = -1;
    Value filename = attr_get(vm, exc, "filename");
    if (!get_ssize(vm, attr_get(vm, exc, "lineno"), &lineno)) return false; /* printed as a plain exception */
    Value off = attr_get(vm, exc, "offset");
    if (!val_is_none(off) && !get_ssize(vm, off, &offset)) return false;
    Value el = attr_get(vm, exc, "end_lineno");
    if (val_is_none(el) || !get_ssize(vm, el, &end_lineno)) end_lineno = lineno;
    Value eo = attr_get(vm, exc, "end_offset");
    if (val_is_none(eo) || !get_ssize(vm, eo, &end_offset)) end_offset = -1;
    Value text = attr_get(vm, exc, "text");
    fprintf(out, "  File \"%s\", line %lld\n", val_is_str(vm, filename) ? AS_STR(filename)->data : "<string>",
            (long long)lineno);
    if (val_is_str(vm, text)) {
        int64_t size = AS_STR(text)->len; /* CPython counts the UTF-8 bytes here too */
        if (end_lineno > lineno) end_offset = size; /* a multi-line range: to the end of the first line */
        if (end_offset > size + 1) end_offset = size + 1;
        print_error_text(out, offset, end_offset, AS_STR(text)->data);
    }
    *message = get_msg(vm, exc, NULL);
    return true;
}

void exc_syntax_init(VM *vm) {
    static const MethodDef methods[] = {{"__init__", syntax_init, NATIVEF_METHOD},
                                        {"__str__", syntax_str, NATIVEF_METHOD | ARITY_NOARGS},
                                        {NULL}};
    static const GetSetDef getsets[] = {
        {"msg", get_msg, set_attr, (void *)"msg"},
        {"filename", get_attr, set_attr, (void *)"filename"},
        {"lineno", get_attr, set_attr, (void *)"lineno"},
        {"offset", get_attr, set_attr, (void *)"offset"},
        {"text", get_attr, set_attr, (void *)"text"},
        {"end_lineno", get_attr, set_attr, (void *)"end_lineno"},
        {"end_offset", get_attr, set_attr, (void *)"end_offset"},
        {"print_file_and_line", get_attr, set_attr, (void *)"print_file_and_line"},
        {NULL}};
    if (type_add_methods(vm, vm->e_SyntaxError, methods) < 0 || type_add_getsets(vm, vm->e_SyntaxError, getsets) < 0)
        EM_UNREACHABLE();
}
