/* pointwise.h — internal entry points of the elementwise kernels (pointwise.c), used by the
 * dispatcher, the nn/index kernels and autograd's in-place handling. */
#ifndef EMBER_SRC_TENSOR_POINTWISE_H
#define EMBER_SRC_TENSOR_POINTWISE_H

#include "src/tensor/iter.h"

/* Parameters of a pointwise loop: alpha / slope in f0,i0; clamp bounds in f0/f1, i0/i1. */
typedef struct PwCtx {
    float f0, f1;
    int64_t i0, i1;
    bool has_lo, has_hi;
    bool approx;       /* gelu tanh approximation */
    bool clamp_float;  /* a clamp bound is a float: int inputs give float results */
} PwCtx;

/* out == NULL: new tensor; out == a: in place (no version bump; callers do that). */
Tensor *tensor__binary(TensorOp op, const Tensor *a, const Tensor *b, TensorScalar alpha, Tensor *out);
Tensor *tensor__binary_scalar(TensorOp op, const Tensor *a, TensorScalar s, TensorScalar alpha, Tensor *out);
Tensor *tensor__unary(TensorOp op, const Tensor *a, const PwCtx *c, Tensor *out);
Tensor *tensor__where(const Tensor *cond, const Tensor *a, const Tensor *b);
void tensor__clamp_ctx(PwCtx *c, const TensorScalar *min, const TensorScalar *max);
/* dtype rules shared with shape inference; set PyTorch's error and return -1 when invalid */
int tensor__binary_dtype(TensorOp op, TensorDtype a, TensorDtype b, TensorScalar alpha, TensorDtype *compute,
                         TensorDtype *result) EM_MUST_CHECK;
int tensor__unary_dtype(TensorOp op, TensorDtype in, bool clamp_float, TensorDtype *result) EM_MUST_CHECK;
int tensor__inplace_binary(TensorOp op, Tensor *a, const Tensor *b, TensorScalar alpha) EM_MUST_CHECK;
int tensor__inplace_binary_scalar(TensorOp op, Tensor *a, TensorScalar s, TensorScalar alpha) EM_MUST_CHECK;

#endif
