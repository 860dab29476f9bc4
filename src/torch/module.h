/* src/torch/module.h — torch.nn.Module in C: the object layout, the per-VM nn state (global
 * module hooks) and the call protocol, for src/torch and for the tracer.
 *
 * Design note.  A module is an NnModuleObj.  Its state keeps PyTorch's names and shapes so that
 * code reading it like dynamo does (the tracer, guards) sees what it would see in PyTorch:
 *   _parameters, _buffers, _modules          OrderedDicts name -> Parameter/Tensor/Module or None
 *   _non_persistent_buffers_set              set of buffer names left out of state_dict
 *   training                                 bool
 *   _forward_pre_hooks, _forward_hooks, ...  OrderedDicts handle id -> hook (NN_HOOK_DICTS)
 * They are C fields (read as attributes through getset descriptors on the Module type), so the
 * call path tests "no hooks" with a few loads.  The hook dicts are created on first use: a NULL
 * field is an empty dict.  Plain attributes live in the instance __dict__ (`dict`).
 *
 * Before Module.__init__ has run, `parameters` is NULL: assigning a Parameter or a Module then
 * raises PyTorch's "cannot assign ... before Module.__init__() call".
 *
 *   class Net(nn.Module):              NnModuleObj{type Net, parameters {"w": Parameter},
 *       def __init__(self):                        modules {"fc": <Linear>}, dict {"k": 3},
 *           super().__init__()                     training true, hooks all NULL}
 *           self.w = nn.Parameter(...)
 *           self.fc = nn.Linear(2, 2)
 *           self.k = 3
 *
 * Global hooks (torch.nn.modules.module._global_forward_pre_hooks etc.) are OrderedDicts held by
 * the per-VM NnState and published in that module's namespace; hooks are looked up in the dicts
 * at call time, so adding or removing one is visible at the next call.
 */
#ifndef EMBER_TORCH_MODULE_H
#define EMBER_TORCH_MODULE_H

#include "src/torch/torch.h"

/* Per-module hook dicts: X(enum, attribute name). */
#define NN_HOOK_DICTS(X)                                                                       \
    X(FWD_PRE, "_forward_pre_hooks") X(FWD_PRE_KW, "_forward_pre_hooks_with_kwargs")          \
    X(FWD, "_forward_hooks") X(FWD_KW, "_forward_hooks_with_kwargs")                          \
    X(FWD_ALWAYS, "_forward_hooks_always_called") X(BWD, "_backward_hooks")                   \
    X(BWD_PRE, "_backward_pre_hooks") X(SD, "_state_dict_hooks") X(SD_PRE, "_state_dict_pre_hooks") \
    X(LOAD_PRE, "_load_state_dict_pre_hooks") X(LOAD_POST, "_load_state_dict_post_hooks")

typedef enum NnHookDict {
#define X(e, s) NN_HOOKS_##e,
    NN_HOOK_DICTS(X)
#undef X
    NN_HOOKS_COUNT
} NnHookDict;

/* Global hook dicts of torch.nn.modules.module: X(enum, name). */
#define NN_GLOBAL_HOOK_DICTS(X)                                                                \
    X(FWD_PRE, "_global_forward_pre_hooks") X(FWD, "_global_forward_hooks")                    \
    X(FWD_ALWAYS, "_global_forward_hooks_always_called")                                       \
    X(FWD_KW, "_global_forward_hooks_with_kwargs") X(BWD_PRE, "_global_backward_pre_hooks")   \
    X(BWD, "_global_backward_hooks") X(BUF_REG, "_global_buffer_registration_hooks")           \
    X(MOD_REG, "_global_module_registration_hooks") X(PARAM_REG, "_global_parameter_registration_hooks")

typedef enum NnGlobalHookDict {
#define X(e, s) NN_GLOBAL_##e,
    NN_GLOBAL_HOOK_DICTS(X)
#undef X
    NN_GLOBAL_COUNT
} NnGlobalHookDict;

typedef struct NnModuleObj {
    Obj hdr;
    DictObj *dict;                    /* __dict__: plain attributes */
    DictObj *parameters;              /* NULL until Module.__init__ */
    DictObj *buffers;
    DictObj *modules;
    SetObj *non_persistent;           /* _non_persistent_buffers_set */
    DictObj *hooks[NN_HOOKS_COUNT];   /* NULL: empty (created on first use) */
    Value is_full_backward_hook;      /* _is_full_backward_hook: None, True or False */
    bool training;
} NnModuleObj;

/* Per-VM state of torch.nn (vm->ext[NN_EXT]). */
typedef struct NnState {
    TypeObj *t_module;
    TypeObj *t_parameter;             /* torch.nn.Parameter (a script class; set by nn.parameter) */
    DictObj *global[NN_GLOBAL_COUNT];
    Value global_is_full_backward_hook;   /* None, True or False */
    Value removable_handle;           /* torch.utils.hooks.RemovableHandle (cached) */
    Value backward_hook;              /* torch.utils.hooks.BackwardHook (cached) */
    Value incompatible_keys;          /* torch.nn.modules.module._IncompatibleKeys (cached) */
    StrObj *s_forward;                /* interned "forward" */
    /* The call fast path's forward (module_call.c, plain_forward): fwd_fn is fwd_type's forward
     * as a plain function, or VAL_NULL when that type's forward is not one, as of class_epoch
     * fwd_epoch (any class-dict change bumps vm->class_epoch).  Both are marked: a cached type
     * cannot be freed and its address reused by another. */
    TypeObj *fwd_type;
    uint64_t fwd_epoch;
    Value fwd_fn;
    /* torch.fx's symbolic tracing (set by torch.fx's Tracer.trace, VAL_NULL otherwise): module calls
     * go to fx_call_hook(module, args, kwargs) and parameters, buffers and submodules found by
     * Module.__getattr__ to fx_getattr_hook(module, name, value), as fx's patches of
     * torch.nn.Module.__call__ and __getattr__ route them in PyTorch. */
    Value fx_call_hook, fx_getattr_hook;
} NnState;

static inline NnState *nn_state(VM *vm) { return (NnState *)vm->ext[NN_EXT]; }

static inline bool nn_is_module(VM *vm, Value v) {
    TypeObj *t = nn_state(vm)->t_module;
    return v.tag == VAL_OBJ && (v.as.o->type == t || type_is_subtype(v.as.o->type, t));
}

/* Calling a module: m(*args, **kwargs), arguments vectorcall-style (argv[0..argc) positional,
 * then the values of the keywords named in kwnames).  Runs the hooks in PyTorch 2.x's order
 * (see module.c); with no hook anywhere it is one lookup of `forward` and a call.  Returns the
 * result or VAL_NULL with an exception pending. */
Value torch_module_call(VM *vm, Value self, int argc, Value *argv, TupleObj *kwnames);

/* The call protocol without torch.fx's call hook (fx's _orig_module_call). */
Value torch_module_call_impl(VM *vm, Value self, int argc, Value *argv, TupleObj *kwnames);

/* True when a call of m would run no hook (the fast path of torch_module_call). */
bool torch_module_has_no_hooks(VM *vm, const NnModuleObj *m);
/* The forward-call hooks of m and the global module hooks (ids and hooks of each dict, in a
 * fixed order), and whether they are still exactly those (no allocation): the tracer's guard
 * that a module call it traced with its hooks would run the same hooks. */
TupleObj *torch_module_hooks_snapshot(VM *vm, const NnModuleObj *m);
bool torch_module_hooks_match(VM *vm, const NnModuleObj *m, const TupleObj *snap);

/* Registers the native module torch._C._nn_module (the Module type, module-level hook
 * registration functions, the global hook dicts). */
void torch_nn_register(VM *vm);
/* Registers torch._C._optim (the fused per-parameter update steps of torch.optim, optim.c). */
void torch_optim_register(VM *vm);

#endif
