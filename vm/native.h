/* vm/native.h — how C code defines callables for scripts: native functions and methods,
 * method tables for built-in and extension types, native modules, and argument parsing with
 * CPython-style messages.
 *
 *   static Value list_append(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
 *       if (native_check_args(vm, "append", argc, kw, 2, 2) < 0) return val_null();
 *       ...
 *   }
 *   static const MethodDef list_methods[] = {{"append", list_append, NATIVEF_METHOD}, {0}};
 *   type_add_methods(vm, vm->t_list, list_methods);
 */
#ifndef EMBER_VM_NATIVE_H
#define EMBER_VM_NATIVE_H

#include "vm/vm.h"

typedef struct MethodDef {
    const char *name;
    NativeFn fn;
    uint32_t flags;      /* NATIVEF_* (METHOD: receives self as argv[0]) */
    void *data;
} MethodDef;

NativeObj *native_new(VM *vm, const char *name, NativeFn fn, void *data, uint32_t flags);
/* A native function closing over a traced value (fn->payload inside the NativeFn). */
NativeObj *native_new_closure(VM *vm, const char *name, NativeFn fn, Value payload);
int type_add_methods(VM *vm, TypeObj *t, const MethodDef *defs) EM_WUR;

typedef struct GetSetDef {
    const char *name;
    GetterFn get;
    SetterFn set;      /* NULL: read-only */
    void *closure;
} GetSetDef;
int type_add_getsets(VM *vm, TypeObj *t, const GetSetDef *defs) EM_WUR;
/* Add functions to a dict (module namespaces); METHOD flag ignored. */
int dict_add_functions(VM *vm, DictObj *d, const MethodDef *defs) EM_WUR;

/* Check argument counts (self included for methods) and that no keywords were passed.
 * fname is the Python-visible name.  0 or -1 + TypeError. */
int native_check_args(VM *vm, const char *fname, int argc, TupleObj *kw, int min, int max) EM_WUR;
/* General parser: names[0..nnames) are the parameters; the first npos may be positional;
 * the first nreq are required.  out[i] is VAL_NULL for an omitted optional parameter. */
int native_parse_args(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw,
                      int npos, int nreq, const char *const *names, int nnames, Value *out) EM_WUR;

/* Native modules: registered before or after vm_new; imported on first `import name`. */
typedef int (*NativeModuleInit)(VM *vm, Value module);
typedef struct NativeModuleDef {
    const char *name;
    NativeModuleInit init;
    struct NativeModuleDef *next;
} NativeModuleDef;
void vm_register_native_module(VM *vm, const char *name, NativeModuleInit init);
/* A module object with __name__ set, not yet in sys.modules. */
Value module_new(VM *vm, const char *name);

/* Convenience: set a module attribute. */
int module_set(VM *vm, Value module, const char *name, Value v) EM_WUR;
int module_add_functions(VM *vm, Value module, const MethodDef *defs) EM_WUR;

#endif
