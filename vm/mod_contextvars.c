/* vm/mod_contextvars.c — the `_contextvars` module (PEP 567), which CPython writes in C and
 * contextvars.py re-exports: Context (a read-only mapping of ContextVar -> value, entered by
 * run()), ContextVar (get/set/reset), Token (what set() returns, for reset), copy_context().
 * Ember has one interpreter thread, so the current context is one VM-wide slot
 * (vm->lib[VM_LIB_context_current], an empty Context made on first use).  CPython's contexts are
 * HAMTs so copies are O(1); here a Context owns a dict that set() updates in place and copy()
 * duplicates, which gives the same observable semantics (a copy never sees later sets). */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct ContextObj {
    Obj hdr;
    DictObj *vars;   /* ContextVar -> value */
    bool entered;
} ContextObj;

typedef struct ContextVarObj {
    Obj hdr;
    Value name;
    Value dflt;      /* VAL_NULL: no default */
} ContextVarObj;

typedef struct TokenObj {
    Obj hdr;
    Value ctx, var;
    Value old;       /* VAL_NULL: the variable was not set (Token.MISSING) */
    bool used;
} TokenObj;

#define T_CONTEXT (AS_TYPE(vm->lib[VM_LIB_context_type]))
#define T_VAR (AS_TYPE(vm->lib[VM_LIB_contextvar_type]))
#define T_TOKEN (AS_TYPE(vm->lib[VM_LIB_token_type]))

static void context_trace(VM *vm, Obj *o) { gc_mark(vm, ((ContextObj *)o)->vars); }
static void var_trace(VM *vm, Obj *o) {
    gc_mark_value(vm, ((ContextVarObj *)o)->name);
    gc_mark_value(vm, ((ContextVarObj *)o)->dflt);
}
static void token_trace(VM *vm, Obj *o) {
    TokenObj *t = (TokenObj *)o;
    gc_mark_value(vm, t->ctx);
    gc_mark_value(vm, t->var);
    gc_mark_value(vm, t->old);
}

static bool is_a(Value v, TypeObj *t) { return val_is_obj(v) && v.as.o->type == t; }

static ContextObj *context_new(VM *vm, DictObj *from) {
    DictObj *d = from ? dict_copy(vm, from) : dict_new(vm);
    if (!d) return NULL;
    vm_push_root(vm, val_obj(d));
    ContextObj *c = gc_alloc(vm, T_CONTEXT, sizeof(ContextObj));
    vm_pop_root(vm);
    if (c) c->vars = d;
    return c;
}

/* The current context, made on first use. */
static ContextObj *current(VM *vm) {
    Value c = vm->lib[VM_LIB_context_current];
    if (!val_is_null(c)) return (ContextObj *)c.as.o;
    ContextObj *n = context_new(vm, NULL);
    if (n) vm->lib[VM_LIB_context_current] = val_obj(n);
    return n;
}

/* ---- Context ---------------------------------------------------------------------------------- */

static Value ctx_new(ARGS) {
    if (argc > 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "Context() does not accept any arguments");
    ContextObj *c = context_new(vm, NULL);
    return c ? val_obj(c) : val_null();
}

static int var_key(VM *vm, Value key) {
    if (is_a(key, T_VAR)) return 0;
    vm_raise(vm, vm->e_TypeError, "a ContextVar key was expected, got %s", vm_type_name(vm, key));
    return -1;
}

static Value ctx_getitem(ARGS) {
    if (var_key(vm, argv[1]) < 0) return val_null();
    Value v;
    int r = dict_lookup(vm, ((ContextObj *)argv[0].as.o)->vars, argv[1], &v);
    if (r < 0) return val_null();
    return r ? v : vm_raise_key_error(vm, argv[1]);
}

static Value ctx_get(ARGS) {
    static const char *const names[] = {"self", "key", "default"};
    Value a[3];
    if (native_parse_args(vm, "get", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (var_key(vm, a[1]) < 0) return val_null();
    Value v;
    int r = dict_lookup(vm, ((ContextObj *)a[0].as.o)->vars, a[1], &v);
    if (r < 0) return val_null();
    return r ? v : val_is_null(a[2]) ? val_none() : a[2];
}

static Value ctx_contains(ARGS) {
    if (var_key(vm, argv[1]) < 0) return val_null();
    Value v;
    int r = dict_lookup(vm, ((ContextObj *)argv[0].as.o)->vars, argv[1], &v);
    return r < 0 ? val_null() : val_bool(r);
}

static Value ctx_len(ARGS) { return val_int(((ContextObj *)argv[0].as.o)->vars->used); }

/* keys()/values()/items()/__iter__: the dict's (the mapping is read-only to scripts) */
static Value ctx_view(ARGS) {
    const char *what = fn->data;
    Value d = val_obj(((ContextObj *)argv[0].as.o)->vars);
    if (!strcmp(what, "__iter__")) return vm_iter(vm, d);
    return vm_call_method(vm, d, what, 0, NULL);
}

static Value ctx_copy(ARGS) {
    ContextObj *c = context_new(vm, ((ContextObj *)argv[0].as.o)->vars);
    return c ? val_obj(c) : val_null();
}

static Value ctx_eq(ARGS) {
    if (!is_a(argv[1], T_CONTEXT)) return vm->not_implemented;
    int eq = vm_eq(vm, val_obj(((ContextObj *)argv[0].as.o)->vars), val_obj(((ContextObj *)argv[1].as.o)->vars));
    return eq < 0 ? val_null() : val_bool(eq);
}

/* ctx.run(callable, *args, **kwargs): callable runs with ctx as the current context */
static Value ctx_run(ARGS) {
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "run() missing 1 required positional argument");
    ContextObj *c = (ContextObj *)argv[0].as.o;
    if (c->entered)
        return vm_raise(vm, vm->e_RuntimeError, "cannot enter context: <_contextvars.Context object at %p> is already entered",
                        (void *)c);
    ContextObj *prev = current(vm);
    if (!prev) return val_null();
    vm_push_root(vm, val_obj(prev));
    c->entered = true;
    vm->lib[VM_LIB_context_current] = argv[0];
    Value r = vm_call(vm, argv[1], argc - 2, argv + 2, kw);
    vm->lib[VM_LIB_context_current] = val_obj(prev);
    c->entered = false;
    vm_pop_root(vm);
    return r;
}

static Value copy_context(ARGS) {
    if (native_check_args(vm, "copy_context", argc, kw, 0, 0) < 0) return val_null();
    ContextObj *cur = current(vm);
    ContextObj *c = cur ? context_new(vm, cur->vars) : NULL;
    return c ? val_obj(c) : val_null();
}

/* ---- ContextVar ------------------------------------------------------------------------------- */

static Value var_new(ARGS) {
    static const char *const names[] = {"cls", "name", "default"};
    Value a[3];
    if (native_parse_args(vm, "ContextVar", argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    if (!val_is_str(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "context variable name must be a str");
    ContextVarObj *v = gc_alloc(vm, T_VAR, sizeof(ContextVarObj));
    if (!v) return val_null();
    v->name = a[1];
    v->dflt = a[2];
    return val_obj(v);
}

static Value var_get(ARGS) {
    if (native_check_args(vm, "get", argc, kw, 1, 2) < 0) return val_null();
    ContextVarObj *var = (ContextVarObj *)argv[0].as.o;
    ContextObj *c = current(vm);
    if (!c) return val_null();
    Value v;
    int r = dict_lookup(vm, c->vars, argv[0], &v);
    if (r < 0) return val_null();
    if (r) return v;
    if (argc == 2) return argv[1];
    if (!val_is_null(var->dflt)) return var->dflt;
    Value e = vm_new_exception(vm, vm->e_LookupError, argv[0]);
    return val_is_null(e) ? e : vm_raise_value(vm, e);
}

static Value var_set(ARGS) {
    ContextObj *c = current(vm);
    if (!c) return val_null();
    Value old;
    int r = dict_lookup(vm, c->vars, argv[0], &old);
    if (r < 0) return val_null();
    TokenObj *t = gc_alloc(vm, T_TOKEN, sizeof(TokenObj));
    if (!t) return val_null();
    t->ctx = val_obj(c);
    t->var = argv[0];
    t->old = r ? old : val_null();
    vm_push_root(vm, val_obj(t));
    int rc = dict_set(vm, c->vars, argv[0], argv[1]);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(t);
}

static Value token_error(VM *vm, TypeObj *et, Value tok, const char *what) {
    Value r = vm_repr(vm, tok);
    return val_is_null(r) ? r : vm_raise(vm, et, "%s %s", AS_STR(r)->data, what);
}

static Value var_reset(ARGS) {
    Value tv = argv[1];
    if (!is_a(tv, T_TOKEN)) return vm_raise(vm, vm->e_TypeError, "expected an instance of Token, got '%s'", vm_type_name(vm, tv));
    TokenObj *t = (TokenObj *)tv.as.o;
    if (t->used) return token_error(vm, vm->e_RuntimeError, tv, "has already been used once");
    if (!val_identical(t->var, argv[0])) return token_error(vm, vm->e_ValueError, tv, "was created by a different ContextVar");
    ContextObj *c = current(vm);
    if (!c) return val_null();
    if (t->ctx.as.o != (Obj *)c) return token_error(vm, vm->e_ValueError, tv, "was created in a different Context");
    t->used = true;
    if (val_is_null(t->old)) {
        if (dict_del(vm, c->vars, argv[0], NULL) < 0) return val_null();
    } else if (dict_set(vm, c->vars, argv[0], t->old) < 0) {
        return val_null();
    }
    return val_none();
}

static Value var_repr(ARGS) {
    ContextVarObj *v = (ContextVarObj *)argv[0].as.o;
    StrBuf sb;
    sb_init(&sb);
    Value n = vm_repr(vm, v->name);
    if (val_is_null(n)) return n;
    sb_adds(&sb, "<ContextVar name=");
    sb_add_str(&sb, AS_STR(n));
    if (!val_is_null(v->dflt)) {
        Value d = vm_repr(vm, v->dflt);
        if (val_is_null(d)) {
            sb_free(&sb);
            return d;
        }
        sb_adds(&sb, " default=");
        sb_add_str(&sb, AS_STR(d));
    }
    sb_printf(&sb, " at %p>", (void *)v);
    StrObj *s = sb_finish(vm, &sb);
    return s ? val_obj(s) : val_null();
}

static Value var_get_name(VM *vm, Value s, void *c) { return ((ContextVarObj *)s.as.o)->name; }

static Value var_class_getitem(ARGS) {
    if (native_check_args(vm, "__class_getitem__", argc, kw, 2, 2) < 0) return val_null();
    extern Value genericalias_new(VM *vm, Value origin, Value args);
    return genericalias_new(vm, argv[0], argv[1]);
}

/* ---- Token ------------------------------------------------------------------------------------ */

static Value token_repr(ARGS) {
    TokenObj *t = (TokenObj *)argv[0].as.o;
    Value v = vm_repr(vm, t->var);
    if (val_is_null(v)) return v;
    StrObj *s = str_printf(vm, "<Token%s var=%s at %p>", t->used ? " used" : "", AS_STR(v)->data, (void *)t);
    return s ? val_obj(s) : val_null();
}

static Value token_get_var(VM *vm, Value s, void *c) { return ((TokenObj *)s.as.o)->var; }
static Value token_get_old(VM *vm, Value s, void *c) {
    Value o = ((TokenObj *)s.as.o)->old;
    return val_is_null(o) ? vm->lib[VM_LIB_token_missing] : o;
}

static Value missing_repr(ARGS) { return vm_intern(vm, "<Token.MISSING>"); }

static Value no_new(ARGS) {
    return vm_raise(vm, vm->e_RuntimeError, "Tokens can only be created by ContextVars");
}

/* The three types are made once per VM (the module may be imported again after sys.modules loses it). */
static int make_types(VM *vm) {
    if (!val_is_null(vm->lib[VM_LIB_context_type])) return 0;
    static const MethodDef cm[] = {
        {"__new__", ctx_new, NATIVEF_STATIC}, {"__getitem__", ctx_getitem, NATIVEF_METHOD | ARITY_O},
        {"get", ctx_get, NATIVEF_METHOD}, {"__contains__", ctx_contains, NATIVEF_METHOD | ARITY_O},
        {"__len__", ctx_len, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iter__", ctx_view, NATIVEF_METHOD | ARITY_NOARGS, (void *)"__iter__"},
        {"keys", ctx_view, NATIVEF_METHOD | ARITY_NOARGS, (void *)"keys"},
        {"values", ctx_view, NATIVEF_METHOD | ARITY_NOARGS, (void *)"values"},
        {"items", ctx_view, NATIVEF_METHOD | ARITY_NOARGS, (void *)"items"},
        {"copy", ctx_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"run", ctx_run, NATIVEF_METHOD},
        {"__eq__", ctx_eq, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const MethodDef vm_m[] = {
        {"__new__", var_new, NATIVEF_STATIC}, {"get", var_get, NATIVEF_METHOD},
        {"set", var_set, NATIVEF_METHOD | ARITY_O}, {"reset", var_reset, NATIVEF_METHOD | ARITY_O},
        {"__repr__", var_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__class_getitem__", var_class_getitem, NATIVEF_CLASSMETHOD}, {NULL}};
    static const GetSetDef vgs[] = {{"name", var_get_name, NULL}, {NULL}};
    static const MethodDef tm[] = {
        {"__new__", no_new, NATIVEF_STATIC}, {"__repr__", token_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__class_getitem__", var_class_getitem, NATIVEF_CLASSMETHOD}, {NULL}};
    static const GetSetDef tgs[] = {{"var", token_get_var, NULL}, {"old_value", token_get_old, NULL}, {NULL}};
    static const MethodDef mm[] = {{"__repr__", missing_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    TypeObj *c = type_new_builtin(vm, "Context", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ContextObj), 0,
                                  context_trace, NULL, 0);
    if (!c) return -1;
    vm->lib[VM_LIB_context_type] = val_obj(c);
    TypeObj *v = type_new_builtin(vm, "ContextVar", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ContextVarObj), 0,
                                  var_trace, NULL, 0);
    if (!v) return -1;
    vm->lib[VM_LIB_contextvar_type] = val_obj(v);
    TypeObj *t = type_new_builtin(vm, "Token", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(TokenObj), 0,
                                  token_trace, NULL, 0);
    if (!t) return -1;
    vm->lib[VM_LIB_token_type] = val_obj(t);
    TypeObj *m = type_new_builtin(vm, "Token.MISSING", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(Obj), 0, NULL,
                                  NULL, 0);
    if (!m) return -1;
    vm->lib[VM_LIB_token_missing_type] = val_obj(m);
    Obj *missing = gc_alloc(vm, m, sizeof(Obj));
    if (!missing) return -1;
    vm->lib[VM_LIB_token_missing] = val_obj(missing);
    Value mod = vm_intern(vm, "_contextvars");
    c->module = v->module = t->module = m->module = mod;
    /* the object's hash (identity) serves: contexts are unhashable, variables hash by identity */
    if (type_add_methods(vm, c, cm) < 0 || dict_set_c(vm, c->dict, "__hash__", val_none()) < 0 ||
        type_add_methods(vm, v, vm_m) < 0 || type_add_getsets(vm, v, vgs) < 0 || type_add_methods(vm, t, tm) < 0 ||
        type_add_getsets(vm, t, tgs) < 0 || type_add_methods(vm, m, mm) < 0 ||
        dict_set_c(vm, t->dict, "MISSING", val_obj(missing)) < 0)
        return -1;
    return 0;
}

int contextvars_module_init(VM *vm, Value mod) {
    if (make_types(vm) < 0) return -1;
    static const MethodDef fns[] = {{"copy_context", copy_context}, {NULL}};
    return module_add_functions(vm, mod, fns) < 0 ||
                   module_set(vm, mod, "Context", vm->lib[VM_LIB_context_type]) < 0 ||
                   module_set(vm, mod, "ContextVar", vm->lib[VM_LIB_contextvar_type]) < 0 ||
                   module_set(vm, mod, "Token", vm->lib[VM_LIB_token_type]) < 0
               ? -1
               : 0;
}
