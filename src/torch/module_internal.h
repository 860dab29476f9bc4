/* src/torch/module_internal.h — helpers shared by module.c (state, attributes, traversal) and
 * module_call.c (hooks and the call protocol).  Not for use outside src/torch. */
#ifndef EMBER_TORCH_MODULE_INTERNAL_H
#define EMBER_TORCH_MODULE_INTERNAL_H

#include "src/torch/module.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define NNMOD(v) ((NnModuleObj *)(v).as.o)

static inline bool nn_dict_empty(const DictObj *d) { return !d || d->used == 0; }

/* key in d (d may be NULL); never raises for int and str keys. */
static inline bool nn_dict_has(VM *vm, DictObj *d, Value key) {
    Value out;
    if (!d) return false;
    int r = dict_lookup(vm, d, key, &out);
    if (r < 0) {
        vm_clear_exc(vm);
        return false;
    }
    return r == 1;
}

/* A new empty OrderedDict. */
DictObj *nn_odict_new(VM *vm);
/* The hook dict `which` of m, created on first use (NULL + exception on failure). */
DictObj *nn_hook_dict(VM *vm, NnModuleObj *m, NnHookDict which);
/* 0, or -1 + AttributeError "'Net' object has no attribute 'name'" when Module.__init__ has not
 * run on m. */
int nn_check_init(VM *vm, Value self, const char *name) EM_MUST_CHECK;
/* torch.typename(v): "torch.FloatTensor", "int", "mymod.MyClass". */
StrObj *nn_typename(VM *vm, Value v);
/* warnings.warn(msg) (UserWarning). */
int nn_warn(VM *vm, StrObj *msg) EM_MUST_CHECK;
/* A cached value of a library module attribute (torch.utils.hooks.RemovableHandle, ...). */
Value nn_lib_attr(VM *vm, Value *cache, const char *module, const char *name);

/* module_call.c: method table and module-level functions */
extern const MethodDef nn_module_hook_methods[];
extern const MethodDef nn_module_functions[];
Value nn_module_call_native(ARGS);
Value nn_orig_module_call(ARGS);
Value nn_set_fx_hooks(ARGS);

#endif
