/* src/ffi/register.h — wiring of the FFI layer into a VM: the `ctypes` package (native `_ctypes`
 * plus the library modules ctypes and ctypes.util) and `torch.ops` custom operators loaded
 * from shared libraries.  Called by the embedding layer (src/embed) when it creates a VM. */
#ifndef EMBER_FFI_REGISTER_H
#define EMBER_FFI_REGISTER_H

#include "vm/vm.h"

void ffi_register(VM *vm);

/* The custom op a script value stands for (torch.ops.ns.name or its .default), or NULL: how
 * the tracer recognises calls of custom ops (then see src/ffi/custom_op.h). */
typedef struct FfiOp FfiOp;
const FfiOp *ffi_custom_op_of(VM *vm, Value v);

#endif
