/* composite.h — decomposition of composite ops against a runner (composite.c). */
#ifndef EMBER_SRC_TENSOR_COMPOSITE_H
#define EMBER_SRC_TENSOR_COMPOSITE_H

#include "src/tensor/kernels.h"

/* Decomposes composite op `op` (its KC column) by running primitives through `run`. */

int tensor__run_composite(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                          int n_out) EM_MUST_CHECK;
Tensor *tensor__composite_reshape(TensorRunner run, Tensor *x, int n, const int64_t *shape);

#endif
