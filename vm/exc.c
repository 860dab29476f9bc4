/* vm/exc.c — raising and inspecting exceptions, exception objects and their attributes,
 * traceback entries, and printing tracebacks in CPython 3.11's format (without the ^^^ range
 * markers, as `python3 -X no_debug_ranges` prints them), chained causes and contexts included. */
#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/exc_syntax.h"
#include "vm/exc.h"
#include "vm/frame.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

static void exc_trace(VM *vm, Obj *o) {
    ExceptionObj *e = (ExceptionObj *)o;
    gc_mark(vm, e->args);
    gc_mark_value(vm, e->traceback);
    gc_mark_value(vm, e->cause);
    gc_mark_value(vm, e->context);
    gc_mark(vm, e->dict);
}

static void tb_trace(VM *vm, Obj *o) {
    TracebackObj *t = (TracebackObj *)o;
    gc_mark_value(vm, t->next);
    gc_mark_value(vm, t->frame);
    gc_mark(vm, t->code);
}

static Value exc_alloc(VM *vm, TypeObj *t) {
    ExceptionObj *e = gc_alloc(vm, t, t->instance_size);
    if (!e) return val_null();
    e->args = vm->empty_tuple;
    e->traceback = val_none();
    e->cause = val_none();
    e->context = val_none();
    return val_obj(e);
}

Value vm_new_exception(VM *vm, TypeObj *type, Value msg) {
    if (val_is_null(msg))
        return type->alloc == exc_alloc ? exc_alloc(vm, type) : type_call(vm, type, 0, NULL, NULL);
    vm_push_root(vm, msg);   /* rooted until it is in the args tuple */
    Value e = type->alloc == exc_alloc ? exc_alloc(vm, type) : type_call(vm, type, 0, NULL, NULL);
    if (val_is_null(e)) {
        vm_pop_root(vm);
        return e;
    }
    vm_push_root(vm, e);
    TupleObj *args = tuple_pack(vm, 1, msg);
    vm_pop_roots(vm, 2);
    if (!args) return val_null();
    ((ExceptionObj *)e.as.o)->args = args;
    return e;
}

Value vm_raise_value(VM *vm, Value exc) {
    if (val_is_obj(exc) && vm_isinstance_type(vm, exc, vm->t_type)) {
        TypeObj *t = AS_TYPE(exc);
        if (!(t->flags & TYPEF_EXCEPTION))
            return vm_raise(vm, vm->e_TypeError, "exceptions must derive from BaseException");
        exc = type_call(vm, t, 0, NULL, NULL);
        if (val_is_null(exc)) return exc;
    }
    if (!val_is_obj(exc) || !(exc.as.o->type->flags & TYPEF_EXCEPTION))
        return vm_raise(vm, vm->e_TypeError, "exceptions must derive from BaseException");
    ExceptionObj *e = (ExceptionObj *)exc.as.o;
    /* implicit chaining: the exception being handled becomes the context */
    if (val_is_obj(vm->handled) && vm->handled.as.o != exc.as.o && val_is_none(e->context)) {
        /* avoid creating a cycle through the context chain */
        Value c = vm->handled;
        Value o = c;
        while (val_is_obj(o)) {
            ExceptionObj *x = (ExceptionObj *)o.as.o;
            if (val_is_obj(x->context) && x->context.as.o == exc.as.o) {
                x->context = val_none();
                break;
            }
            o = x->context;
        }
        e->context = c;
    }
    vm->exc = exc;
    return val_null();
}

Value vm_raise_str(VM *vm, TypeObj *type, StrObj *msg) {
    Value e = vm_new_exception(vm, type, val_obj(msg));
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

Value vm_raise(VM *vm, TypeObj *type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    StrObj *msg = str_vprintf(vm, fmt, ap);
    va_end(ap);
    if (!msg) return val_null();
    return vm_raise_str(vm, type, msg);
}

Value vm_raise_key_error(VM *vm, Value key) {
    Value e = vm_new_exception(vm, vm->e_KeyError, key);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

Value vm_raise_stop_iteration(VM *vm, Value value) {
    Value e = vm_new_exception(vm, vm->e_StopIteration, val_is_none(value) ? val_null() : value);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

Value vm_no_memory(VM *vm) {
    /* a preallocated-free path: MemoryError carries no message and needs no allocation
     * beyond the instance; if even that fails, fall back to the class itself */
    bool was = vm->gc_disabled;
    vm->gc_disabled = true;
    int64_t cd = vm->alloc_fail_countdown;
    vm->alloc_fail_countdown = 0;
    Value e = vm->e_MemoryError ? exc_alloc(vm, vm->e_MemoryError) : val_null();
    vm->alloc_fail_countdown = cd;
    vm->gc_disabled = was;
    vm->exc = val_is_null(e) ? val_obj(vm->e_MemoryError) : e;
    return val_null();
}

bool vm_exc_matches(VM *vm, TypeObj *type) {
    return val_is_obj(vm->exc) && vm_isinstance_type(vm, vm->exc, type);
}

void vm_clear_exc(VM *vm) { vm->exc = val_null(); }

Value vm_fetch_exc(VM *vm) {
    Value e = vm->exc;
    vm->exc = val_null();
    return e;
}

int vm_check_recursion(VM *vm, const char *where) {
    if (vm->c_depth + vm->depth > vm->recursion_limit + 50 || vm->c_depth > 3 * vm->recursion_limit) {
        vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded%s", where);
        return -1;
    }
    vm->c_depth++;
    return 0;
}

/* Append a traceback entry for frame f at its current instruction. */
int exc_add_traceback(VM *vm, Value exc, Frame *f) {
    if (!val_is_obj(exc) || !(exc.as.o->type->flags & TYPEF_EXCEPTION)) return 0;
    ExceptionObj *e = (ExceptionObj *)exc.as.o;
    CodeObj *code = f->code;
    int32_t ip = f->ip;
    vm_push_root(vm, exc);
    Value fo = frame_object(vm, f);
    if (val_is_null(fo)) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, fo);
    TracebackObj *tb = gc_alloc(vm, vm->t_traceback, sizeof(TracebackObj));
    vm_pop_roots(vm, 2);
    if (!tb) return -1;
    tb->frame = fo;
    tb->code = code;
    tb->lineno = code_line(code, ip);
    tb->lasti = ip;
    /* CPython links new entries at the head: the outermost frame comes first */
    tb->next = e->traceback;
    e->traceback = val_obj(tb);
    return 0;
}

/* ---- printing -------------------------------------------------------------------------- */

typedef struct SourceCache {
    char *filename;
    char *text;
    size_t len;
    struct SourceCache *next;
} SourceCache;
static SourceCache *source_cache;

static SourceCache *source_entry(const char *filename) {
    for (SourceCache *c = source_cache; c; c = c->next)
        if (strcmp(c->filename, filename) == 0) return c;
    return NULL;
}

/* An entry whose text is NULL is a pseudo-file ("<...>") known to have no text yet (source_text
 * remembers the miss); registering the text later fills it. */
static SourceCache *source_add(const char *filename) {
    SourceCache *c = calloc(1, sizeof *c);
    c->filename = strdup(filename);
    c->next = source_cache;
    source_cache = c;
    return c;
}

void exc_register_source(const char *filename, const char *text, size_t len) {
    SourceCache *c = source_entry(filename);
    if (!c) c = source_add(filename);
    if (c->text) return;
    c->text = malloc(len + 1);
    memcpy(c->text, text, len);
    c->text[len] = 0;
    c->len = len;
}

void exc_free_sources(void) {
    while (source_cache) {
        SourceCache *n = source_cache->next;
        free(source_cache->filename);
        free(source_cache->text);
        free(source_cache);
        source_cache = n;
    }
}

static const char *source_text(const char *filename) {
    SourceCache *c = source_entry(filename);
    if (c) return c->text;
    FILE *f = fopen(filename, "rb");
    if (!f) {
        /* A name like "<ember>/torch/nn/functional.py" or "<string>" is not a file (CPython's
         * linecache skips them too): remember the miss, so the tracer's node provenance, which
         * asks for every recorded op's line, does not retry the open on each op.  The text of an
         * embedded module loaded from its bytecode cache was never registered; registering it
         * later fills this entry. */
        if (filename[0] == '<') source_add(filename);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        fclose(f);
        return NULL;
    }
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    exc_register_source(filename, buf, got);
    free(buf);
    return source_text(filename);
}

/* Line `lineno` of filename, stripped of surrounding whitespace, into out; false if unknown. */
bool exc_source_line(const char *filename, int lineno, char *out, size_t cap) {
    const char *t = source_text(filename);
    if (!t || lineno < 1) return false;
    for (int l = 1; l < lineno; l++) {
        t = strchr(t, '\n');
        if (!t) return false;
        t++;
    }
    while (*t == ' ' || *t == '\t' || *t == '\f') t++;
    const char *end = t;
    while (*end && *end != '\n') end++;
    while (end > t && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    size_t n = (size_t)(end - t);
    if (n >= cap) n = cap - 1;
    memcpy(out, t, n);
    out[n] = 0;
    return true;
}

static void print_tb(VM *vm, Value tb, FILE *out) {
    fprintf(out, "Traceback (most recent call last):\n");
    /* CPython folds runs of identical entries after three: "[Previous line repeated N more
     * times]" */
    const char *last_file = NULL;
    int last_line = -1;
    const char *last_name = NULL;
    int repeat = 0;
    for (Value t = tb; val_is_obj(t); t = ((TracebackObj *)t.as.o)->next) {
        TracebackObj *e = (TracebackObj *)t.as.o;
        /* Ember's own library code is not the user's: its frames are not shown.  A compiled
         * frame that continued in a resume function shows once, as the resume function (which
         * bears the original's name and lines). */
        if (e->code->flags & CO_LIBRARY) continue;
        Value nx = e->next;
        if ((e->code->flags & CO_RESIDUAL) && val_is_obj(nx) &&
            (((TracebackObj *)nx.as.o)->code->flags & CO_RESUME))
            continue;
        const char *file = e->code->filename->data;
        const char *name = e->code->name->data;
        if (last_file && strcmp(file, last_file) == 0 && e->lineno == last_line &&
            strcmp(name, last_name) == 0) {
            repeat++;
        } else {
            if (repeat > 3)
                fprintf(out, "  [Previous line repeated %d more time%s]\n", repeat - 3,
                        repeat - 3 == 1 ? "" : "s");
            repeat = 1;
            last_file = file;
            last_line = e->lineno;
            last_name = name;
        }
        if (repeat > 3) continue;
        fprintf(out, "  File \"%s\", line %d, in %s\n", file, e->lineno, name);
        char line[1024];
        /* as CPython's traceback module: a blank (or unknown) line is not shown */
        if (exc_source_line(file, e->lineno, line, sizeof line) && line[0]) fprintf(out, "    %s\n", line);
    }
    if (repeat > 3)
        fprintf(out, "  [Previous line repeated %d more time%s]\n", repeat - 3,
                repeat - 3 == 1 ? "" : "s");
}

static void print_one(VM *vm, Value exc, FILE *out) {
    if (!val_is_obj(exc) || !(exc.as.o->type->flags & TYPEF_EXCEPTION)) {
        fprintf(out, "<non-exception>\n");
        return;
    }
    ExceptionObj *e = (ExceptionObj *)exc.as.o;
    if (val_is_obj(e->traceback)) print_tb(vm, e->traceback, out);
    TypeObj *t = exc.as.o->type;
    const char *mod = val_is_str(vm, t->module) ? AS_STR(t->module)->data : "builtins";
    if (strcmp(mod, "builtins") != 0 && strcmp(mod, "__main__") != 0)
        fprintf(out, "%s.", mod);
    Value saved = vm->exc;
    vm->exc = val_null();
    /* a SyntaxError shows its file, line and caret first, then only its msg */
    Value message = val_null();
    bool syntax = vm_syntax_error_print_location(vm, exc, out, &message);
    fputs(type_qualname(t)->data, out);
    Value s = vm_str(vm, syntax ? message : exc);
    if (val_is_null(s)) {
        vm->exc = val_null();
        fprintf(out, ": <exception str() failed>\n");
    } else if (AS_STR(s)->len) {
        fprintf(out, ": %s\n", AS_STR(s)->data);
    } else {
        fputc('\n', out);
    }
    vm->exc = saved;
}

static void print_chain(VM *vm, Value exc, FILE *out, int depth) {
    if (depth > 100) return;
    ExceptionObj *e = (ExceptionObj *)exc.as.o;
    if (val_is_obj(e->cause)) {
        print_chain(vm, e->cause, out, depth + 1);
        fprintf(out, "\nThe above exception was the direct cause of the following exception:\n\n");
    } else if (val_is_obj(e->context) && !e->suppress_context) {
        print_chain(vm, e->context, out, depth + 1);
        fprintf(out, "\nDuring handling of the above exception, another exception occurred:\n\n");
    }
    print_one(vm, exc, out);
}

void vm_print_exception(VM *vm, Value exc, FILE *out) {
    vm_push_root(vm, exc);
    if (val_is_obj(exc) && (exc.as.o->type->flags & TYPEF_EXCEPTION)) print_chain(vm, exc, out, 0);
    else print_one(vm, exc, out);
    vm_pop_root(vm);
    fflush(out);
}

/* ---- exception types and their attributes -------------------------------------------------- */

static Value exc_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc < 1 || !vm_isinstance_type(vm, argv[0], vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "BaseException.__new__(X): X is not a type object");
    TypeObj *t = AS_TYPE(argv[0]);
    Value e = t->alloc(vm, t);
    if (val_is_null(e)) return e;
    vm_push_root(vm, e);
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    vm_pop_root(vm);
    if (!args) return val_null();
    ((ExceptionObj *)e.as.o)->args = args;
    return e;
}

static Value exc_init_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments",
                        vm_type_name(vm, argv[0]));
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    if (!args) return val_null();
    ((ExceptionObj *)argv[0].as.o)->args = args;
    return val_none();
}

static Value exc_str_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ExceptionObj *e = (ExceptionObj *)argv[0].as.o;
    if (e->args->len == 0) return val_obj(vm->empty_str);
    if (e->args->len == 1) {
        /* KeyError shows the repr of its key */
        if (vm_isinstance_type(vm, argv[0], vm->e_KeyError)) return vm_repr(vm, e->args->items[0]);
        return vm_str(vm, e->args->items[0]);
    }
    return vm_repr(vm, val_obj(e->args));
}

static Value exc_repr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ExceptionObj *e = (ExceptionObj *)argv[0].as.o;
    const char *name = type_qualname(argv[0].as.o->type)->data;
    if (e->args->len == 1) {
        Value r = vm_repr(vm, e->args->items[0]);
        if (val_is_null(r)) return r;
        StrObj *s = str_printf(vm, "%s(%s)", name, AS_STR(r)->data);
        return s ? val_obj(s) : val_null();
    }
    Value r = vm_repr(vm, val_obj(e->args));
    if (val_is_null(r)) return r;
    StrObj *s = e->args->len == 0 ? str_printf(vm, "%s()", name)
                                  : str_printf(vm, "%s%s", name, AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value exc_with_tb(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "with_traceback", argc, kw, 2, 2) < 0) return val_null();
    ((ExceptionObj *)argv[0].as.o)->traceback = argv[1];
    return argv[0];
}

#define EXC(v) ((ExceptionObj *)(v).as.o)
static Value get_args(VM *vm, Value s, void *c) { return val_obj(EXC(s)->args); }
static int set_args(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "args may not be deleted");
        return -1;
    }
    ListObj *l = vm_list_from_iterable(vm, v);
    if (!l) return -1;
    vm_push_root(vm, val_obj(l));
    TupleObj *t = tuple_from_array(vm, l->items, l->len);
    vm_pop_root(vm);
    if (!t) return -1;
    EXC(s)->args = t;
    return 0;
}
static Value get_tb(VM *vm, Value s, void *c) { return EXC(s)->traceback; }
static int set_tb(VM *vm, Value s, Value v, void *c) {
    EXC(s)->traceback = val_is_null(v) ? val_none() : v;
    return 0;
}
static Value get_cause(VM *vm, Value s, void *c) { return EXC(s)->cause; }
static int set_cause(VM *vm, Value s, Value v, void *c) {
    EXC(s)->cause = val_is_null(v) ? val_none() : v;
    EXC(s)->suppress_context = true;
    return 0;
}
static Value get_context(VM *vm, Value s, void *c) { return EXC(s)->context; }
static int set_context(VM *vm, Value s, Value v, void *c) {
    EXC(s)->context = val_is_null(v) ? val_none() : v;
    return 0;
}
static Value get_suppress(VM *vm, Value s, void *c) { return val_bool(EXC(s)->suppress_context); }
static int set_suppress(VM *vm, Value s, Value v, void *c) {
    int t = vm_truthy(vm, v);
    if (t < 0) return -1;
    EXC(s)->suppress_context = t;
    return 0;
}
static Value get_value(VM *vm, Value s, void *c) {
    /* StopIteration.value */
    TupleObj *a = EXC(s)->args;
    return a->len ? a->items[0] : val_none();
}

/* ImportError's name, path and msg live in the instance dict (None when unset, as for an
 * ImportError made from C without running __init__). */
static Value get_dict_attr(VM *vm, Value s, void *c) {
    DictObj *d = EXC(s)->dict;
    Value v = d ? dict_get_c(vm, d, (const char *)c) : val_null();
    return val_is_null(v) ? val_none() : v;
}
static int set_dict_attr(VM *vm, Value s, Value v, void *c) {
    ExceptionObj *e = EXC(s);
    if (!e->dict) {
        vm_push_root(vm, v);
        e->dict = dict_new(vm);
        vm_pop_root(vm);
        if (!e->dict) return -1;
    }
    return dict_set_c(vm, e->dict, (const char *)c, val_is_null(v) ? val_none() : v);
}

static Value import_error_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int nkw = kw ? (int)kw->len : 0;
    for (int k = 0; k < nkw; k++) {
        const char *kn = AS_STR(kw->items[k])->data;
        if (strcmp(kn, "name") != 0 && strcmp(kn, "path") != 0)
            return vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for %s()", kn,
                            vm_type_name(vm, argv[0]));
    }
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    if (!args) return val_null();
    ExceptionObj *e = EXC(argv[0]);
    e->args = args;
    if (set_dict_attr(vm, argv[0], args->len == 1 ? args->items[0] : val_none(), "msg") < 0 ||
        set_dict_attr(vm, argv[0], val_none(), "name") < 0 || set_dict_attr(vm, argv[0], val_none(), "path") < 0)
        return val_null();
    for (int k = 0; k < nkw; k++)
        if (set_dict_attr(vm, argv[0], argv[argc + k], AS_STR(kw->items[k])->data) < 0) return val_null();
    return val_none();
}

Value vm_raise_import_error(VM *vm, TypeObj *type, const char *name, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    StrObj *msg = str_vprintf(vm, fmt, ap);
    va_end(ap);
    if (!msg) return val_null();
    Value e = vm_new_exception(vm, type, val_obj(msg));
    if (val_is_null(e)) return e;
    vm_push_root(vm, e);
    StrObj *n = name ? str_from_c(vm, name) : NULL;
    vm_push_root(vm, n ? val_obj(n) : val_none());
    StrObj *p = path ? str_from_c(vm, path) : NULL;
    vm_push_root(vm, p ? val_obj(p) : val_none());
    int rc = set_dict_attr(vm, e, val_obj(msg), "msg");
    if (rc == 0) rc = set_dict_attr(vm, e, n ? val_obj(n) : val_none(), "name");
    if (rc == 0) rc = set_dict_attr(vm, e, p ? val_obj(p) : val_none(), "path");
    vm_pop_roots(vm, 3);
    if (rc < 0) return val_null();
    return vm_raise_value(vm, e);
}

/* SystemExit.code: the single argument, None without one, else the args tuple */
static Value get_exit_code(VM *vm, Value s, void *c) {
    TupleObj *a = EXC(s)->args;
    return a->len == 0 ? val_none() : a->len == 1 ? a->items[0] : val_obj(a);
}

static const MethodDef exc_methods[] = {
    {"__new__", exc_new_fn, NATIVEF_STATIC},
    {"__init__", exc_init_fn, NATIVEF_METHOD},
    {"__str__", exc_str_fn, NATIVEF_METHOD},
    {"__repr__", exc_repr_fn, NATIVEF_METHOD},
    {"with_traceback", exc_with_tb, NATIVEF_METHOD},
    {NULL}};

static const GetSetDef exc_getsets[] = {
    {"args", get_args, set_args},
    {"__traceback__", get_tb, set_tb},
    {"__cause__", get_cause, set_cause},
    {"__context__", get_context, set_context},
    {"__suppress_context__", get_suppress, set_suppress},
    {NULL}};

void exc_init_types(VM *vm) {
    vm->t_traceback = type_new_builtin(vm, "traceback", vm->t_object, OBJ_LAYOUT_TRACEBACK,
                                       sizeof(TracebackObj), 0, tb_trace, NULL, TYPEF_ABSTRACT_NEW);
    TypeObj *base = NULL;
#define X(n, b)                                                                              \
    base = (&vm->e_##b == &vm->e_##n) ? vm->t_object : vm->e_##b;                            \
    vm->e_##n = type_new_builtin(vm, #n, base, OBJ_LAYOUT_EXCEPTION, sizeof(ExceptionObj),  \
                                 offsetof(ExceptionObj, dict), exc_trace, NULL,              \
                                 TYPEF_BASETYPE | TYPEF_EXCEPTION);                          \
    vm->e_##n->alloc = exc_alloc;
    VM_EXCEPTIONS(X)
#undef X
    if (type_add_methods(vm, vm->e_BaseException, exc_methods) < 0 ||
        type_add_getsets(vm, vm->e_BaseException, exc_getsets) < 0)
        EM_UNREACHABLE();
    static const GetSetDef stop_getsets[] = {{"value", get_value, NULL}, {NULL}};
    if (type_add_getsets(vm, vm->e_StopIteration, stop_getsets) < 0) EM_UNREACHABLE();
    static const GetSetDef exit_getsets[] = {{"code", get_exit_code, NULL}, {NULL}};
    if (type_add_getsets(vm, vm->e_SystemExit, exit_getsets) < 0) EM_UNREACHABLE();
    static const GetSetDef import_getsets[] = {
        {"name", get_dict_attr, set_dict_attr, (void *)"name"}, {"path", get_dict_attr, set_dict_attr, (void *)"path"},
        {"msg", get_dict_attr, set_dict_attr, (void *)"msg"}, {NULL}};
    static const MethodDef import_methods[] = {{"__init__", import_error_init, NATIVEF_METHOD}, {NULL}};
    if (type_add_getsets(vm, vm->e_ImportError, import_getsets) < 0 ||
        type_add_methods(vm, vm->e_ImportError, import_methods) < 0)
        EM_UNREACHABLE();
}
