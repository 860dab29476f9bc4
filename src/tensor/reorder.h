/* reorder.h — tril, triu, roll, flip, sort, topk, cumsum (reorder.c): shape inference and kernels
 * for dispatch.c's `reorder` category. */
#ifndef EMBER_SRC_TENSOR_REORDER_H
#define EMBER_SRC_TENSOR_REORDER_H

#include "src/tensor/tensor.h"

int tensor__infer_reorder(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max);
int tensor__run_reorder(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out);

#endif
