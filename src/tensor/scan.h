/* scan.h — running products, extrema and log-sum-exps along one dim (scan.c): cumprod (and its
 * backward kernel), cummax, cummin, logcumsumexp, for dispatch.c's `scan` category. */
#ifndef EMBER_SRC_TENSOR_SCAN_H
#define EMBER_SRC_TENSOR_SCAN_H

#include "src/tensor/tensor.h"

int tensor__infer_scan(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max);
int tensor__run_scan(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out);

#endif
