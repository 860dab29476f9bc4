/* conv.h — internal entry points of the convolution and pooling kernels (conv.c). */
#ifndef EMBER_SRC_TENSOR_CONV_H
#define EMBER_SRC_TENSOR_CONV_H

#include "src/tensor/tensor.h"

int tensor__infer_conv(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out) EM_MUST_CHECK;
int tensor__run_conv(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) EM_MUST_CHECK;

#endif
