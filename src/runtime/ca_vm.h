/* src/runtime/ca_vm.h — the VM side of compiled autograd (ca_vm.c): its native module and the
 * CLI's whole-run switch.  The capturer itself is VM-free (ca.h). */
#ifndef EMBER_SRC_RUNTIME_CA_VM_H
#define EMBER_SRC_RUNTIME_CA_VM_H

#include "vm/vm.h"

/* Registers torch._dynamo._ember_ca (what torch._dynamo.compiled_autograd calls) with a VM. */
void rt_ca_register(VM *vm);
/* `ember run --compiled-autograd`: the whole run is inside compiled_autograd.enable(lambda gm:
 * gm) (a script's own enable() nests inside and restores this on exit). */
void rt_ca_enable_for_run(VM *vm);

#endif
