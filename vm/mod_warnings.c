/* vm/mod_warnings.c — _warnings, the C half of warnings that importlib's bootstrap imports.
 * CPython's warnings.py runs its own pure-Python implementation when _warnings lacks the
 * filter state (filters, _defaultaction, ...), which this module leaves out on purpose; warn
 * and warn_explicit here call that implementation, so a warning raised from C (or from
 * importlib, which calls _warnings.warn) takes the same path and the same filters as one
 * raised by warnings.warn. */
#include "vm/import.h"
#include "vm/native.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value wr_call(ARGS) {
    Value w = vm_import_module(vm, "warnings");
    if (val_is_null(w)) return w;
    Value f = vm_getattr_c(vm, w, (const char *)fn->data);
    if (val_is_null(f)) return f;
    if (f.tag == VAL_OBJ && f.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)f.as.o)->fn == wr_call)
        return vm_raise(vm, vm->e_RuntimeError, "warnings.%s is _warnings.%s", (const char *)fn->data, (const char *)fn->data);
    return vm_call(vm, f, argc, argv, kw);
}

int warnings_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"warn", wr_call, 0, (void *)"warn"}, {"warn_explicit", wr_call, 0, (void *)"warn_explicit"}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
