/* src/runtime/runtime_register.c — registers the runtime layer with a VM: its library modules
 * written in the script language (the .py files under src/runtime/lib, embedded at build time by
 * tools/embed_lib.py): torch.distributed._tools.mod_tracker (ModTracker, seed 001); and the
 * "ember" torch.compile backend (vm_backend.c). */
#include "src/runtime/register.h"
#include "src/runtime/ca_vm.h"

#include "vm/import.h"

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule runtime_lib_modules[];

void rt_register(VM *vm) {
    for (const EmbeddedModule *m = runtime_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
    rt_register_backend();
    rt_ca_register(vm);
}
