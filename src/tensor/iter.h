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

/* ops[0] is the output; all operands must broadcast to (ndim, shape). */
void tensor__iter_init(TensorIter *it, int nops, const Tensor *const *ops, int ndim, const int64_t *shape);
void tensor__iter_run(const TensorIter *it, TensorLoopFn fn, const void *ctx);
/* Runs the conversion loop from dtype src (operand 1) to dst (operand 0) over it (dtype.c). */
void tensor__convert_run(TensorIter *it, TensorDtype dst, TensorDtype src);

#endif
