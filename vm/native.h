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
    uint32_t flags;      /* NATIVEF_* (METHOD: receives self as argv[0]) | an ARITY_* below */
    void *data;
} MethodDef;

/* Declared arity, checked by the call path (native_check_arity) before fn runs, with the
 * message CPython gives for the same kind of function.  Counts exclude self (methods) and cls
 * (a type's static __new__, which is reported under the type's name).  No ARITY: fn checks.
 *   ARITY_NOARGS      METH_NOARGS   "list.copy() takes no arguments (1 given)"
 *   ARITY_O           METH_O        "len() takes exactly one argument (0 given)"
 *   ARITY_POS(lo, hi) clinic        "pop expected at most 1 argument, got 2"
 *   ARITY_TUPLE(lo, hi) ParseTuple  "startswith() takes at least 1 argument (0 given)"
 * hi = ARITY_MANY: no upper bound.  None of them accepts keyword arguments. */
#define ARITY_SHIFT 4
#define ARITY_MASK (7u << ARITY_SHIFT)
#define ARITY_NOARGS (1u << ARITY_SHIFT)
#define ARITY_O (2u << ARITY_SHIFT)
#define ARITY_POS(lo, hi) ((3u << ARITY_SHIFT) | ((uint32_t)(lo) << 8) | ((uint32_t)(hi) << 12))
#define ARITY_TUPLE(lo, hi) ((4u << ARITY_SHIFT) | ((uint32_t)(lo) << 8) | ((uint32_t)(hi) << 12))
#define ARITY_MANY 15
/* 0, or -1 + TypeError when argc/kw do not fit n's declared arity. */
int native_check_arity(VM *vm, NativeObj *n, int argc, TupleObj *kw) EM_MUST_CHECK;

NativeObj *native_new(VM *vm, const char *name, NativeFn fn, void *data, uint32_t flags);
/* A native function closing over a traced value (fn->payload inside the NativeFn). */
NativeObj *native_new_closure(VM *vm, const char *name, NativeFn fn, Value payload);
int type_add_methods(VM *vm, TypeObj *t, const MethodDef *defs) EM_MUST_CHECK;

typedef struct GetSetDef {
    const char *name;
    GetterFn get;
    SetterFn set;      /* NULL: read-only */
    void *closure;
} GetSetDef;
int type_add_getsets(VM *vm, TypeObj *t, const GetSetDef *defs) EM_MUST_CHECK;
/* Add functions to a dict (module namespaces); METHOD flag ignored. */
int dict_add_functions(VM *vm, DictObj *d, const MethodDef *defs) EM_MUST_CHECK;

/* Check argument counts (self included for methods) and that no keywords were passed.
 * fname is the Python-visible name.  0 or -1 + TypeError. */
int native_check_args(VM *vm, const char *fname, int argc, TupleObj *kw, int min, int max) EM_MUST_CHECK;
/* General parser: names[0..nnames) are the parameters; the first npos may be positional;
 * the first nreq are required.  out[i] is VAL_NULL for an omitted optional parameter. */
int native_parse_args(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw,
                      int npos, int nreq, const char *const *names, int nnames, Value *out) EM_MUST_CHECK;
/* An optional flag native_parse_args gave (VAL_NULL when omitted: dflt), by truth value. */
int native_bool_arg(VM *vm, Value v, bool dflt, bool *out) EM_MUST_CHECK;

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
void module_trace(VM *vm, Obj *o);

/* Convenience: set a module attribute. */
int module_set(VM *vm, Value module, const char *name, Value v) EM_MUST_CHECK;
int module_add_functions(VM *vm, Value module, const MethodDef *defs) EM_MUST_CHECK;

#endif
