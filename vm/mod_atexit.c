/* vm/mod_atexit.c — the atexit module: register(func, *args, **kwargs), unregister(func),
 * _run_exitfuncs (last registered first; an exception in one is reported as CPython reports
 * it, "Exception ignored in atexit callback: <func>", and the rest still run), _clear and
 * _ncallbacks.  The embedding layer runs the functions at interpreter shutdown. */
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/mod_sys.h"
#include "vm/native.h"
#include "vm/seq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static ListObj *callbacks(VM *vm) {
    if (val_is_null(vm->lib[VM_LIB_atexit])) {
        ListObj *l = list_new(vm, 0);
        if (!l) return NULL;
        vm->lib[VM_LIB_atexit] = val_obj(l);
    }
    return AS_LIST(vm->lib[VM_LIB_atexit]);
}

/* register(func, /, *args, **kwargs): the entry is (func, args, kwargs) */
static Value ax_register(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "register() takes at least 1 argument (0 given)");
    if (!vm_is_callable(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "the first argument must be callable");
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    Value kwargs = val_none();
    if (kw && kw->len) {
        DictObj *d = dict_new(vm);
        if (!d) goto fail;
        kwargs = val_obj(d);
        vm_push_root(vm, kwargs);
        for (int64_t k = 0; k < kw->len; k++)
            if (dict_set(vm, d, kw->items[k], argv[argc + k]) < 0) {
                vm_pop_root(vm);
                goto fail;
            }
        vm_pop_root(vm);
    }
    vm_push_root(vm, kwargs);
    TupleObj *entry = tuple_pack(vm, 3, argv[0], val_obj(args), kwargs);
    vm_pop_root(vm);
    if (!entry) goto fail;
    /* the first registration creates the callback list: entry stays rooted across it */
    vm_push_root(vm, val_obj(entry));
    ListObj *l = callbacks(vm);
    int rc = l ? list_append(vm, l, val_obj(entry)) : -1;
    vm_pop_root(vm);
    if (rc < 0) goto fail;
    vm_pop_root(vm);
    return argv[0];
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value ax_unregister(ARGS) {
    ListObj *l = callbacks(vm);
    if (!l) return val_null();
    for (int64_t i = 0; i < l->len; i++) {
        int eq = vm_eq(vm, AS_TUPLE(l->items[i])->items[0], argv[0]);
        if (eq < 0) return val_null();
        if (!eq) continue;
        for (int64_t j = i; j + 1 < l->len; j++) l->items[j] = l->items[j + 1];
        l->len--;
        i--;
    }
    return val_none();
}

static Value ax_run(ARGS) {
    ListObj *l = callbacks(vm);
    if (!l) return val_null();
    while (l->len > 0) {
        Value entry = l->items[--l->len];
        vm_push_root(vm, entry);
        TupleObj *t = AS_TUPLE(entry);
        Value r = vm_call_ex(vm, t->items[0], t->items[1], val_is_none(t->items[2]) ? val_null() : t->items[2]);
        if (val_is_null(r)) {
            Value e = vm_fetch_exc(vm);
            vm_push_root(vm, e);
            if (!vm_isinstance_type(vm, e, vm->e_SystemExit))
                vm_write_unraisable(vm, e, "Exception ignored in atexit callback", t->items[0]);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        l = callbacks(vm);
    }
    return val_none();
}

static Value ax_clear(ARGS) {
    ListObj *l = callbacks(vm);
    if (!l) return val_null();
    l->len = 0;
    return val_none();
}

static Value ax_ncallbacks(ARGS) {
    ListObj *l = callbacks(vm);
    return l ? val_int(l->len) : val_null();
}

int atexit_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"register", ax_register}, {"unregister", ax_unregister, ARITY_O}, {"_run_exitfuncs", ax_run, ARITY_NOARGS},
        {"_clear", ax_clear, ARITY_NOARGS}, {"_ncallbacks", ax_ncallbacks, ARITY_NOARGS}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
