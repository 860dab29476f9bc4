/* vm/native.c — native callables and descriptors: creation, method/getset tables, argument
 * checking with CPython-style messages, and native module registration. */
#include "vm/native.h"

#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/str.h"
#include "vm/type.h"

NativeObj *native_new(VM *vm, const char *name, NativeFn fn, void *data, uint32_t flags) {
    NativeObj *n = gc_alloc(vm, vm->t_builtin_function, sizeof(NativeObj));
    if (!n) return NULL;
    n->name = name;
    n->fn = fn;
    n->data = data;
    n->flags = flags;
    n->self = val_null();
    n->payload = val_null();
    n->doc = val_none();
    n->module = val_null();
    return n;
}

NativeObj *native_new_closure(VM *vm, const char *name, NativeFn fn, Value payload) {
    vm_push_root(vm, payload);
    NativeObj *n = native_new(vm, name, fn, NULL, 0);
    vm_pop_root(vm);
    if (n) n->payload = payload;
    return n;
}

int type_add_methods(VM *vm, TypeObj *t, const MethodDef *defs) {
    for (const MethodDef *d = defs; d->name; d++) {
        NativeObj *n = native_new(vm, d->name, d->fn, d->data, d->flags);
        if (!n) return -1;
        n->owner = t;
        if (dict_set_c(vm, t->dict, d->name, val_obj(n)) < 0) return -1;
    }
    type_modified(vm, t);
    return 0;
}

int type_add_getsets(VM *vm, TypeObj *t, const GetSetDef *defs) {
    for (const GetSetDef *d = defs; d->name; d++) {
        GetSetObj *g = gc_alloc(vm, vm->t_getset, sizeof(GetSetObj));
        if (!g) return -1;
        g->name = d->name;
        g->get = d->get;
        g->set = d->set;
        g->closure = d->closure;
        g->owner = t;
        if (dict_set_c(vm, t->dict, d->name, val_obj(g)) < 0) return -1;
    }
    type_modified(vm, t);
    return 0;
}

int dict_add_functions(VM *vm, DictObj *dict, const MethodDef *defs) {
    for (const MethodDef *d = defs; d->name; d++) {
        NativeObj *n = native_new(vm, d->name, d->fn, d->data, d->flags & ~NATIVEF_METHOD);
        if (!n) return -1;
        if (dict_set_c(vm, dict, d->name, val_obj(n)) < 0) return -1;
    }
    return 0;
}

int native_check_args(VM *vm, const char *fname, int argc, TupleObj *kw, int min, int max) {
    if (kw && kw->len) {
        vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", fname);
        return -1;
    }
    if (argc < min || argc > max) {
        /* methods count self; messages count only the script-visible arguments, as CPython */
        if (min == max && min == 1)
            vm_raise(vm, vm->e_TypeError, "%s() takes exactly one argument (%d given)", fname, argc);
        else if (min == max)
            vm_raise(vm, vm->e_TypeError, "%s() takes exactly %d argument%s (%d given)", fname,
                     min, min == 1 ? "" : "s", argc);
        else if (argc < min)
            vm_raise(vm, vm->e_TypeError, "%s() takes at least %d argument%s (%d given)", fname,
                     min, min == 1 ? "" : "s", argc);
        else
            vm_raise(vm, vm->e_TypeError, "%s() takes at most %d argument%s (%d given)", fname,
                     max, max == 1 ? "" : "s", argc);
        return -1;
    }
    return 0;
}

/* The TypeError for a call native_check_arity refused, in CPython's words for the style. */
__attribute__((cold, noinline)) static int arity_error(VM *vm, NativeObj *n, uint32_t style, int given, bool has_kw) {
    char qual[160];
    const char *name = n->name;
    /* constructors report under the type's name: "list expected at most 1 argument, got 2" */
    bool ctor = strcmp(n->name, "__new__") == 0 || strcmp(n->name, "__init__") == 0;
    if (ctor && n->owner) name = n->owner->name->data;
    if (n->owner && (n->flags & (NATIVEF_METHOD | NATIVEF_CLASSMETHOD)) && !ctor)
        snprintf(qual, sizeof qual, "%s.%s", n->owner->name->data, n->name);
    else
        snprintf(qual, sizeof qual, "%s", name);
    bool meth_style = style == ARITY_NOARGS || style == ARITY_O;
    if (has_kw) {
        vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", meth_style ? qual : name);
        return -1;
    }
    if (style == ARITY_NOARGS) {
        vm_raise(vm, vm->e_TypeError, "%s() takes no arguments (%d given)", qual, given);
        return -1;
    }
    if (style == ARITY_O) {
        vm_raise(vm, vm->e_TypeError, "%s() takes exactly one argument (%d given)", qual, given);
        return -1;
    }
    int lo = (int)((n->flags >> 8) & 15), hi = (int)((n->flags >> 12) & 15);
    if (hi == ARITY_MANY) hi = 1 << 20;
    int bound = given < lo ? lo : hi;
    const char *s = bound == 1 ? "" : "s";
    if (style == (3u << ARITY_SHIFT)) {   /* ARITY_POS */
        if (lo == hi)
            vm_raise(vm, vm->e_TypeError, "%s expected %d argument%s, got %d", name, bound, s, given);
        else
            vm_raise(vm, vm->e_TypeError, "%s expected %s %d argument%s, got %d", name,
                     given < lo ? "at least" : "at most", bound, s, given);
    } else {
        vm_raise(vm, vm->e_TypeError, "%s() takes %s %d argument%s (%d given)", name,
                 lo == hi ? "exactly" : given < lo ? "at least" : "at most", bound, s, given);
    }
    return -1;
}

/* Every native call with a declared arity comes here (list.append included): the check is a
 * few compares; names are formatted only for the error. */
int native_check_arity(VM *vm, NativeObj *n, int argc, TupleObj *kw) {
    uint32_t style = n->flags & ARITY_MASK;
    if (!style) return 0;
    int given = argc;
    if (n->flags & (NATIVEF_METHOD | NATIVEF_CLASSMETHOD) ||
        ((n->flags & NATIVEF_STATIC) && strcmp(n->name, "__new__") == 0))
        given--;   /* self, cls, or the class passed to __new__ */
    bool has_kw = kw && kw->len;
    bool ok;
    if (style == ARITY_NOARGS) ok = given == 0;
    else if (style == ARITY_O) ok = given == 1;
    else {
        int lo = (int)((n->flags >> 8) & 15), hi = (int)((n->flags >> 12) & 15);
        ok = given >= lo && (hi == ARITY_MANY || given <= hi);
    }
    return ok && !has_kw ? 0 : arity_error(vm, n, style, given, has_kw);
}

int native_parse_args(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, int npos,
                      int nreq, const char *const *names, int nnames, Value *out) {
    for (int i = 0; i < nnames; i++) out[i] = val_null();
    /* messages count only the caller's arguments, not self/cls */
    int skip = nnames && (strcmp(names[0], "self") == 0 || strcmp(names[0], "cls") == 0) ? 1 : 0;
    if (argc > npos) {
        vm_raise(vm, vm->e_TypeError, "%s() takes at most %d argument%s (%d given)", fname, npos - skip,
                 npos - skip == 1 ? "" : "s", argc - skip);
        return -1;
    }
    for (int i = 0; i < argc; i++) out[i] = argv[i];
    int nkw = kw ? (int)kw->len : 0;
    for (int k = 0; k < nkw; k++) {
        StrObj *kn = (StrObj *)kw->items[k].as.o;
        int j = 0;
        for (; j < nnames; j++)
            if (str_eq_c(kn, names[j])) break;
        if (j == nnames) {
            vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument '%s'", fname,
                     kn->data);
            return -1;
        }
        if (!val_is_null(out[j])) {
            vm_raise(vm, vm->e_TypeError, "argument for %s() given by name ('%s') and position (%d)",
                     fname, kn->data, j + 1 - skip);
            return -1;
        }
        out[j] = argv[argc + k];
    }
    for (int i = 0; i < nreq; i++) {
        if (val_is_null(out[i])) {
            vm_raise(vm, vm->e_TypeError, "%s() missing required argument '%s' (pos %d)", fname,
                     names[i], i + 1 - skip);
            return -1;
        }
    }
    return 0;
}

void vm_register_native_module(VM *vm, const char *name, NativeModuleInit init) {
    NativeModuleDef *d = calloc(1, sizeof *d);
    EM_ASSERT(d != NULL, "out of memory");
    d->name = name;
    d->init = init;
    d->next = vm->native_modules;
    vm->native_modules = d;
}

void module_trace(VM *vm, Obj *o) {
    ModuleObj *m = (ModuleObj *)o;
    gc_mark(vm, m->dict);
    gc_mark(vm, m->name);
}

Value module_new(VM *vm, const char *name) {
    ModuleObj *m = gc_alloc(vm, vm->t_module, sizeof(ModuleObj));
    if (!m) return val_null();
    vm_push_root(vm, val_obj(m));
    m->dict = dict_new(vm);
    m->name = m->dict ? vm_intern_str(vm, name) : NULL;
    int rc = m->name ? dict_set_c(vm, m->dict, "__name__", val_obj(m->name)) : -1;
    if (rc == 0) rc = dict_set_c(vm, m->dict, "__doc__", val_none());
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(m);
}

int module_set(VM *vm, Value module, const char *name, Value v) {
    return dict_set_c(vm, ((ModuleObj *)module.as.o)->dict, name, v);
}

int native_bool_arg(VM *vm, Value v, bool dflt, bool *out) {
    if (val_is_null(v)) {
        *out = dflt;
        return 0;
    }
    int t = vm_truthy(vm, v);
    if (t < 0) return -1;
    *out = t;
    return 0;
}

int module_add_functions(VM *vm, Value module, const MethodDef *defs) {
    DictObj *d = ((ModuleObj *)module.as.o)->dict;
    if (dict_add_functions(vm, d, defs) < 0) return -1;
    /* their __module__ is the module's name (pickle's save_global finds them by it) */
    Value name = dict_get_c(vm, d, "__name__");
    for (const MethodDef *def = defs; def->name && !val_is_null(name); def++) {
        Value f = dict_get_c(vm, d, def->name);
        if (val_is_type(vm, f, vm->t_builtin_function)) ((NativeObj *)f.as.o)->module = name;
    }
    return 0;
}
