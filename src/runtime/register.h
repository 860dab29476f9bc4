/* src/runtime/register.h — the runtime layer's VM-side entry point for the embedding layer
 * (runtime.h itself is VM-free). */
#ifndef EMBER_RUNTIME_REGISTER_H
#define EMBER_RUNTIME_REGISTER_H

#include "vm/vm.h"

/* Register the runtime's library modules (torch.distributed._tools.mod_tracker, ...) and its
 * backends with a VM; called by the embedding layer after torch_register and tracer_register. */
void rt_register(VM *vm);
/* The "ember" backend of torch.compile (vm_backend.c). */
void rt_register_backend(void);

#endif
