/* src/ffi/register.h — wiring of the FFI layer into a VM: the `ctypes` package (native `_ctypes`
 * plus the library modules ctypes and ctypes.util) and `torch.ops` custom operators loaded
 * from shared libraries.  Called by the embedding layer (src/embed) when it creates a VM. */
#ifndef EMBER_FFI_REGISTER_H
#define EMBER_FFI_REGISTER_H

#include "vm/vm.h"

void ffi_register(VM *vm);

/* ---- custom ops in scripts (src/ffi/ops_module.c; the op API is src/ffi/custom_op.h) ----
 * The custom op a script value stands for (torch.ops.ns.name or its .default), or NULL: how
 * the tracer recognises a call of a custom op. */
typedef struct FfiOp FfiOp;
const FfiOp *ffi_custom_op_of(VM *vm, Value v);
/* Bind a call's positional and keyword arguments (vectorcall layout, as a NativeFn gets them)
 * to the schema: bound[i] is the value for schema argument i, defaults filled in as Python
 * numbers.  Returns the number of schema arguments, or -1 with PyTorch's RuntimeError for a
 * wrong count, an unknown or repeated keyword, or a missing argument.  Types are not checked
 * here (a tracer binds its own trackers the same way). */
int ffi_op_bind(VM *vm, const FfiOp *op, int argc, Value *argv, TupleObj *kwnames, Value *bound) EM_MUST_CHECK;
/* Register the custom ops with the tracer's hook (src/tracer/backend.h); ffi_register does. */
void ffi_register_trace_hook(void);

#endif
