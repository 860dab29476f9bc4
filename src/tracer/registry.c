/* src/tracer/registry.c — what the tracer knows a value to be, decided by identity or type and
 * never by tracing: torch natives (torch._C / torch._C._nn members) and their printed names, pure
 * natives (math, operator), the grad-mode context-manager classes and the residual code's own
 * grad-mode restorers, nn.Module (its type, its instances), whether global module hooks are
 * registered, and whether torch.fx's symbolic tracing is running. */
#include <stdio.h>
#include <string.h>

#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"

static Value module_attr(VM *vm, const char *mod, const char *name) {
    Value m = dict_get_c(vm, vm->modules, mod);
    if (m.tag != VAL_OBJ || m.as.o->type->layout != OBJ_LAYOUT_MODULE) return val_null();
    return dict_get_c(vm, ((ModuleObj *)m.as.o)->dict, name);
}

static bool in_module(VM *vm, const char *mod, Value f, const char *name) {
    Value v = module_attr(vm, mod, name);
    return !val_is_null(v) && val_identical(v, f);
}

const char *tracer_torch_native_name(VM *vm, Value f) {
    if (f.tag != VAL_OBJ || f.as.o->type->layout != OBJ_LAYOUT_NATIVE) return NULL;
    NativeObj *n = (NativeObj *)f.as.o;
    static char buf[160];
    if (in_module(vm, "torch._C._nn", f, n->name)) {
        snprintf(buf, sizeof buf, "torch._C._nn.%s", n->name);
        return buf;
    }
    if (in_module(vm, "torch._C", f, n->name)) {
        snprintf(buf, sizeof buf, "torch.%s", n->name);
        return buf;
    }
    return NULL;
}

bool tracer_is_pure_native(VM *vm, Value f) {
    if (f.tag != VAL_OBJ || f.as.o->type->layout != OBJ_LAYOUT_NATIVE) return false;
    NativeObj *n = (NativeObj *)f.as.o;
    return in_module(vm, "math", f, n->name) || in_module(vm, "operator", f, n->name);
}

bool tracer_is_grad_mode_class(VM *vm, Value v, const char **which) {
    static const char *const names[] = {"no_grad", "enable_grad", "set_grad_enabled", "inference_mode", NULL};
    for (const char *const *p = names; *p; p++)
        if (in_module(vm, "torch", v, *p)) {
            *which = *p;
            return true;
        }
    return false;
}

TypeObj *tracer_nn_module_type(VM *vm) { return nn_state(vm) ? nn_state(vm)->t_module : NULL; }

bool tracer_fx_tracing(VM *vm) { return nn_state(vm) && !val_is_null(nn_state(vm)->fx_call_hook); }

bool tracer_global_module_hooks(VM *vm) {
    NnState *ns = nn_state(vm);
    if (!ns) return false;
    for (int i = 0; i < NN_GLOBAL_COUNT; i++)
        if (i != NN_GLOBAL_BUF_REG && i != NN_GLOBAL_MOD_REG && i != NN_GLOBAL_PARAM_REG && ns->global[i] &&
            ns->global[i]->used)
            return true;
    return false;
}

bool tracer_is_nn_module(VM *vm, Value v) { return nn_state(vm) && nn_is_module(vm, v); }

bool tracer_is_grad_restorer(VM *vm, Value f, bool *mode) {
    TracerState *st = tracer_state(vm);
    for (int m = 0; m < 2; m++)
        if (val_identical(f, st->grad_restorer[m])) {
            *mode = m;
            return true;
        }
    return false;
}

Value tracer_compiled_fn_wrapped(VM *vm, Value v) {
    TracerState *st = tracer_state(vm);
    if (!st || v.tag != VAL_OBJ || v.as.o->type != st->t_compiled_fn) return val_null();
    return ((CompiledFnObj *)v.as.o)->fn;
}
