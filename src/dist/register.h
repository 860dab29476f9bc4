/* src/dist/register.h — the distributed layer's VM-side entry point for the embedding layer. */
#ifndef EMBER_DIST_REGISTER_H
#define EMBER_DIST_REGISTER_H

#include "vm/vm.h"

/* Register torch._C._distributed_c10d (dist_module.c) with a VM. */
void dist_register(VM *vm);

#endif
