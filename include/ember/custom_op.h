/* ember/custom_op.h — writing custom tensor operators for Ember in C, in a shared library that
 * scripts load with torch.ops.load_library(path).  The library needs no Ember symbols: it
 * includes this header, exports one registration function, and is called back through libffi.
 *
 * Design note
 * -----------
 * An op is a schema plus plain C kernels whose parameter lists follow the schema, so a kernel
 * reads like the math it computes.  Schema argument types map to C parameters:
 *
 *     Tensor  ->  const EmTensor *     (contiguous; data NULL in a meta function)
 *     float   ->  double
 *     int     ->  int64_t
 *     bool    ->  bool
 *
 * and every output Tensor of the schema adds a trailing `EmTensor *` that Ember has allocated
 * (zero-filled, contiguous) with the shape and dtype the meta function reported.  Kernels return
 * 0 on success; anything else is an error, whose message they may set with `reg->set_error`.
 *
 *   myops::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor
 *
 *   int scale_add(const EmTensor *x, const EmTensor *y, double alpha, EmTensor *out);
 *   int scale_add_meta(const EmTensor *x, const EmTensor *y, double alpha, EmTensor *out);
 *       // fills out->dtype, out->ndim, out->shape only (broadcasting, checks, ...)
 *   int scale_add_backward(const EmTensor *grad_out,                      // one per output
 *                          const EmTensor *x, const EmTensor *y, double alpha,   // the inputs
 *                          const EmTensor *out,                           // the outputs
 *                          EmTensor *grad_x, EmTensor *grad_y);           // one per Tensor input
 *
 *   static const EmOpRegistrar *reg;
 *   int ember_register_ops(const EmOpRegistrar *r) {
 *       reg = r;
 *       EmOpDef def = {"myops::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor",
 *                      (void *)scale_add, (void *)scale_add_backward, (void *)scale_add_meta};
 *       return r->register_op(r, &def);
 *   }
 *
 * Script side: torch.ops.load_library("libmyops.so"); z = torch.ops.myops.scale_add(x, y, 2.0).
 * With autograd on and an input requiring grad, z.grad_fn is a node that calls the backward
 * kernel with the saved inputs and outputs (gradient buffers come zero-filled, shaped like the
 * inputs); without a backward kernel, backward through the op raises RuntimeError.  The meta
 * function lets torch.compile trace the op into a graph without running it; when it is NULL,
 * each output has the shape and dtype of the first Tensor input.
 *
 * Single-threaded, like the rest of Ember.  Kernels must not keep pointers to EmTensors or their
 * data after returning.
 */
#ifndef EMBER_CUSTOM_OP_H
#define EMBER_CUSTOM_OP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EM_CUSTOM_OP_ABI_VERSION 1
#define EM_OP_MAX_DIMS 8
/* The symbol every op library exports: int ember_register_ops(const EmOpRegistrar *reg). */
#define EM_REGISTER_OPS_SYMBOL "ember_register_ops"

/* Element types (the values of Ember's TensorDtype). */
typedef enum EmDtype { EM_FLOAT32 = 0, EM_INT64 = 1, EM_BOOL = 2 } EmDtype;

typedef struct EmTensor {
    void *data;                          /* element [0, ..., 0]; NULL in meta functions */
    int32_t dtype;                       /* EmDtype */
    int32_t ndim;
    int64_t numel;
    int64_t shape[EM_OP_MAX_DIMS];
    int64_t strides[EM_OP_MAX_DIMS];     /* in elements (contiguous for kernels) */
} EmTensor;

typedef struct EmOpDef {
    /* "ns::name(Tensor x, float alpha=1.0, int n=2, bool flag=False) -> Tensor"
     * or "-> (Tensor, Tensor)" for several outputs */
    const char *schema;
    void *forward;                       /* required */
    void *backward;                      /* optional (NULL: not differentiable) */
    void *meta;                          /* optional (NULL: outputs like the first Tensor input) */
} EmOpDef;

typedef struct EmOpRegistrar EmOpRegistrar;
struct EmOpRegistrar {
    int abi_version;                     /* EM_CUSTOM_OP_ABI_VERSION */
    /* Register one op; 0, or -1 with the reason recorded (bad schema, duplicate name). */
    int (*register_op)(const EmOpRegistrar *reg, const EmOpDef *def);
    /* The message of the error a kernel is about to return (printf-style). */
    void (*set_error)(const EmOpRegistrar *reg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    void *internal;
};

/* What an op library defines (and exports with default visibility). */
typedef int (*EmRegisterOpsFn)(const EmOpRegistrar *reg);

#ifdef __cplusplus
}
#endif
#endif
