/* count.h — nonzero, bincount, histc (count.c) for dispatch.c's `count` category. */
#ifndef EMBER_SRC_TENSOR_COUNT_H
#define EMBER_SRC_TENSOR_COUNT_H

#include "src/tensor/tensor.h"

int tensor__infer_count(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max);
int tensor__run_count(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out);

#endif
