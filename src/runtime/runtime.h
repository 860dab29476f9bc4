/* src/runtime/runtime.h — the runtime layer's entry points for the embedding layer. */
#ifndef EMBER_RUNTIME_RUNTIME_H
#define EMBER_RUNTIME_RUNTIME_H

#include "vm/vm.h"

/* Register the runtime's library modules (torch.distributed._tools.mod_tracker, ...) with a VM;
 * called by the embedding layer after torch_register. */
void rt_register(VM *vm);

#endif
