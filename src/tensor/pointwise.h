/* pointwise.h — internal entry points of the elementwise kernels (pointwise.c), used by the
 * dispatcher, the nn/index kernels and autograd's in-place handling.  What each op computes is
 * its kernel expression in ember/ops.def (pwexpr.h). */
#ifndef EMBER_SRC_TENSOR_POINTWISE_H
#define EMBER_SRC_TENSOR_POINTWISE_H

#include "src/tensor/iter.h"
#include "src/tensor/pwexpr.h"

/* out == NULL: new tensor; out == a: in place (no version bump; callers do that). op is a
 * binary / unary kernel op of the table; tensor__binary_scalar takes a scalar form (SC / RSC)
 * or its in-place form. */
Tensor *tensor__binary(TensorOp op, const Tensor *a, const Tensor *b, TensorScalar alpha, Tensor *out);
Tensor *tensor__binary_scalar(TensorOp op, const Tensor *a, TensorScalar s, TensorScalar alpha, Tensor *out);
Tensor *tensor__unary(TensorOp op, const Tensor *a, const TensorOpArgs *args, Tensor *out);
Tensor *tensor__where(const Tensor *cond, const Tensor *a, const Tensor *b);
/* dtype rules shared with shape inference and the runtime; set PyTorch's error and return -1
 * when invalid.  tensor__pw_dtype takes any pointwise form (in: the inputs' metas: dtypes, dims and
 * wrapped-number flags decide the promotion); compute is PyTorch's common dtype (the kernel runs
 * in its family's dtype), result the output's. */
int tensor__binary_dtype(TensorOp op, TensorDtype a, TensorDtype b, TensorScalar alpha, TensorDtype *compute,
                         TensorDtype *result) EM_MUST_CHECK;
int tensor__unary_dtype(TensorOp op, TensorDtype in, const TensorOpArgs *a, TensorDtype *result) EM_MUST_CHECK;
int tensor__pw_dtype(TensorOp op, const TensorMeta *const *in, const TensorOpArgs *a, TensorDtype *compute,
                     TensorDtype *result) EM_MUST_CHECK;
int tensor__inplace_binary(TensorOp op, Tensor *a, const Tensor *b, TensorScalar alpha) EM_MUST_CHECK;
int tensor__inplace_binary_scalar(TensorOp op, Tensor *a, TensorScalar s, TensorScalar alpha) EM_MUST_CHECK;
int tensor__inplace_unary(TensorOp op, Tensor *a, const TensorOpArgs *args) EM_MUST_CHECK;

#endif
