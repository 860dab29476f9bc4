/* composite.h — decomposition of composite ops against a runner (composite.c). */
#ifndef EMBER_SRC_TENSOR_COMPOSITE_H
#define EMBER_SRC_TENSOR_COMPOSITE_H

#include "src/tensor/tensor.h"

/* Runs a primitive op: tensor_op_run (no autograd) or ag_op_run (recording). */
typedef int (*TensorRunner)(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);

int tensor__run_composite(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                          int n_out) EM_MUST_CHECK;
int tensor__infer_composite(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out,
                            int max_out) EM_MUST_CHECK;
Tensor *tensor__composite_reshape(TensorRunner run, Tensor *x, int n, const int64_t *shape);

#endif
