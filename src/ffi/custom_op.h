/* src/ffi/custom_op.h — the registry of custom tensor ops loaded from shared libraries
 * (ember/custom_op.h), as a C API for the script bindings (torch.ops), the tracer and the
 * runtime.  It depends only on the tensor and autograd libraries, not on the VM.
 *
 * Design note.  A library registers ops by schema; each op keeps three prepared libffi call
 * interfaces (forward, meta, backward) derived from the schema, so every call is one ffi_call
 * with EmTensor views of Ember tensors.  The registry is process-wide (libraries are loaded
 * once per process, as dlopen does).
 *
 * What the tracer and the runtime call:
 *
 *   const FfiOp *op = ffi_op_lookup("myops::scale_add");        // or "myops.scale_add"
 *   // tracing: output metadata without running the kernel
 *   FfiOpValue in[3] = {{FFI_ARG_TENSOR, .meta = &xm}, {FFI_ARG_TENSOR, .meta = &ym},
 *                       {FFI_ARG_FLOAT, .f = 2.0}};
 *   TensorMeta out[FFI_OP_MAX_OUTPUTS];
 *   int n = ffi_op_infer(op, in, 3, out);                        // -1: tensor error set
 *   // running (eager, or a graph node at runtime): records autograd when grad mode is on and
 *   // a Tensor input requires grad, exactly as an eager call from a script does
 *   FfiOpValue args[3] = {{FFI_ARG_TENSOR, .t = x}, {FFI_ARG_TENSOR, .t = y}, {FFI_ARG_FLOAT, .f = 2.0}};
 *   Tensor *outs[FFI_OP_MAX_OUTPUTS];
 *   n = ffi_op_run(op, args, 3, outs);                           // new references
 *   // a compiled backward can call the backward kernel directly
 *   ffi_op_backward(op, args, 3, outs, grad_outs, grad_ins);
 *
 * Arguments are positional, one per schema argument, defaults already filled in: a call's
 * positional and keyword arguments map to schema positions with ffi_op_bind_slots (the script
 * binding uses it too), omitted ones take ffi_op_arg_default.  FfiOp pointers stay valid for
 * the life of the process (ops are never unregistered), so graphs may hold them.  Errors
 * follow ember/tensor.h: -1 / NULL with the thread-local tensor error set (RuntimeError text).
 */
#ifndef EMBER_FFI_CUSTOM_OP_H
#define EMBER_FFI_CUSTOM_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "ember/autograd.h"
#include "ember/tensor.h"

#define FFI_OP_MAX_ARGS 32
#define FFI_OP_MAX_OUTPUTS 8

typedef struct FfiOp FfiOp;

typedef enum FfiArgKind { FFI_ARG_TENSOR = 0, FFI_ARG_FLOAT, FFI_ARG_INT, FFI_ARG_BOOL } FfiArgKind;

typedef struct FfiOpValue {
    FfiArgKind kind;
    union {
        Tensor *t;                 /* ffi_op_run / ffi_op_backward (borrowed) */
        const TensorMeta *meta;    /* ffi_op_infer */
        double f;
        int64_t i;
        bool b;
    };
} FfiOpValue;

/* dlopen a library and run its ember_register_ops.  Loading a library again is a no-op.
 * -1 with the error message in err; *os_error tells a loader failure (OSError) from a
 * registration failure (RuntimeError). */
int ffi_op_load_library(const char *path, char *err, size_t errcap, bool *os_error);

const FfiOp *ffi_op_lookup(const char *qualname);          /* "ns::name" or "ns.name"; NULL */
int ffi_op_count(void);
const FfiOp *ffi_op_at(int i);                             /* registration order */
const char *ffi_op_qualname(const FfiOp *op);              /* "ns::name" */
const char *ffi_op_namespace(const FfiOp *op);             /* "ns" */
const char *ffi_op_name(const FfiOp *op);                  /* "name" */
const char *ffi_op_schema(const FfiOp *op);                /* "ns::name(Tensor x, ...) -> Tensor" */
int ffi_op_num_args(const FfiOp *op);
FfiArgKind ffi_op_arg_kind(const FfiOp *op, int i);
const char *ffi_op_arg_name(const FfiOp *op, int i);
bool ffi_op_arg_default(const FfiOp *op, int i, FfiOpValue *out);   /* false: required */
int ffi_op_num_outputs(const FfiOp *op);
bool ffi_op_has_backward(const FfiOp *op);
const char *ffi_op_node_name(const FfiOp *op);             /* its autograd node: "ScaleAddBackward0" */

/* Map a call's arguments to schema positions without looking at their values (so a tracer can
 * bind its own trackers): the call has npos positional arguments, then keyword arguments named
 * kwnames[0..nkw).  slot[i] receives, for schema argument i, the index of the call argument
 * that supplies it (keyword k is npos + k), or -1 when its default applies.  Returns the number
 * of schema arguments, or -1 with PyTorch's RuntimeError message set (too many arguments, an
 * unknown or repeated keyword, a missing argument). */
int ffi_op_bind_slots(const FfiOp *op, int npos, int nkw, const char *const *kwnames, int *slot);

/* Output metadata (dtype, shape, contiguous strides) for the given argument metas.  Returns the
 * number of outputs or -1. */
int ffi_op_infer(const FfiOp *op, const FfiOpValue *args, int nargs, TensorMeta *outputs);
/* Run the forward kernel (with autograd recording, see above).  Returns the number of outputs
 * written to outputs (new references) or -1. */
int ffi_op_run(const FfiOp *op, const FfiOpValue *args, int nargs, Tensor **outputs);
/* Run the backward kernel: grad_outputs (one per output; NULL = zeros) -> grad_inputs (one per
 * argument: a new reference for Tensor arguments, NULL for the others).  0 or -1. */
int ffi_op_backward(const FfiOp *op, const FfiOpValue *args, int nargs, Tensor *const *outputs,
                    Tensor *const *grad_outputs, Tensor **grad_inputs);

#endif
