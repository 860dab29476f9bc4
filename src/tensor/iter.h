/* iter.h — strided N-d iteration for pointwise kernels (a small TensorIterator).
 *
 * Operand 0 is the output; every operand is broadcast to the iteration shape (stride 0 on
 * broadcast dims), size-1 dims are dropped and adjacent dims that are contiguous for every
 * operand are merged, so a contiguous op becomes one flat loop. A kernel is an inner loop
 *     loop(data[nops], strides_in_bytes[nops], n, ctx)
 * called once per innermost row; it should special-case unit and zero strides. */
#ifndef EMBER_SRC_TENSOR_ITER_H
#define EMBER_SRC_TENSOR_ITER_H

#include "src/tensor/tensor.h"

#define TENSOR_ITER_MAXOPS 4

typedef void (*TensorLoopFn)(char **data, const int64_t *strides, int64_t n, const void *ctx);

typedef struct TensorIter {
    int ndim;                   /* after coalescing; dims stored innermost first */
    int nops;
    int64_t numel;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_ITER_MAXOPS][TENSOR_MAX_DIMS]; /* bytes */
    char *data[TENSOR_ITER_MAXOPS];
} TensorIter;

/* An operand's geometry, for tensor__iter_out_strides (a Tensor's or a TensorMeta's fields). */
typedef struct TensorGeom {
    int ndim;
    const int64_t *shape, *strides;
} TensorGeom;

/* The strides PyTorch 1.13's TensorIterator gives a new output of an elementwise op over the n
 * inputs g (in the op's argument order), broadcast to (ndim, shape): contiguous when every input
 * is; channels-last when every 4-D input is; an input's own strides when all have the same shape
 * and the same non-overlapping dense strides (its fast set-up); otherwise dense in the order its
 * reorder_dimensions sorts the dims by the inputs' strides (broadcast dims left to the next
 * input).  So `x.t() * 2` is laid out as x.t() is, and a reduction of it adds in the order
 * PyTorch's does. */
void tensor__iter_out_strides(int n, const TensorGeom *g, int ndim, const int64_t *shape, int64_t *strides);

/* c10's is_non_overlapping_and_dense: the strides cover (ndim, shape) densely in some order. */
bool tensor__non_overlapping_dense(int ndim, const int64_t *shape, const int64_t *strides);
/* strides dense in the order `order` (order[0] the fastest dim), size-1 dims skipped as c10's
 * contiguity checks skip them */
bool tensor__dense_in_order(int ndim, const int64_t *shape, const int64_t *strides, const int *order);

/* ops[0] is the output; all operands must broadcast to (ndim, shape). */
void tensor__iter_init(TensorIter *it, int nops, const Tensor *const *ops, int ndim, const int64_t *shape);
void tensor__iter_run(const TensorIter *it, TensorLoopFn fn, const void *ctx);
/* Runs the conversion loop from dtype src (operand 1) to dst (operand 0) over it (dtype.c). */
void tensor__convert_run(TensorIter *it, TensorDtype dst, TensorDtype src);

#endif
