/* src/torch/torch_module.c — registers the torch package with a VM: the native modules
 * torch._C (tensor type, methods, indexing, functions, autograd bindings) and torch._C._nn
 * (the functional kernels), and the library modules written in the script language (the .py
 * files under src/torch/lib, embedded at build time by tools/embed_lib.py). */
#include "src/torch/module.h"
#include "src/torch/torch.h"

#include "vm/import.h"
#include "vm/native.h"

int torch_nn_functions_init(VM *vm, Value nnmod);
int torch_profiler_init(VM *vm, Value mod);   /* profiler.c */

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule torch_lib_modules[];

static int torch_c_init(VM *vm, Value cmod) {
    if (torch_tensor_type_init(vm, cmod) < 0) return -1;
    TorchState *ts = torch_state(vm);
    if (torch_tensor_methods_init(vm, ts->t_tensor) < 0 || torch_indexing_init(vm, ts->t_tensor) < 0 ||
        torch_functions_init(vm, cmod) < 0 || torch_generator_init(vm, cmod) < 0 || torch_storage_init(vm, cmod) < 0 ||
        torch_index_ops_init(vm, cmod) < 0 || torch_autograd_init(vm, cmod) < 0 ||
        torch_tensor_methods_overridable(vm, ts->t_tensor) < 0 || torch_overrides_init(vm, cmod) < 0 ||
        torch_mathops_init(vm, cmod) < 0 || torch_out_init(vm, cmod) < 0 || torch_profiler_init(vm, cmod) < 0)
        return -1;
    return 0;
}

void torch_register(VM *vm) {
    vm_register_native_module(vm, "torch._C", torch_c_init);
    vm_register_native_module(vm, "torch._C._nn", torch_nn_functions_init);
    vm_register_native_module(vm, "torch._C._special", torch_special_functions_init);
    torch_nn_register(vm);
    torch_fx_register(vm);
    for (const EmbeddedModule *m = torch_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
}
