/* lapack.h — the LAPACK-backed linear algebra ops (lapack.c): cholesky, solve_triangular, inv,
 * det, slogdet, qr, svdvals, for dispatch.c's `lapack` category. */
#ifndef EMBER_SRC_TENSOR_LAPACK_H
#define EMBER_SRC_TENSOR_LAPACK_H

#include "src/tensor/tensor.h"

int tensor__infer_lapack(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max);
int tensor__run_lapack(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out);

#endif
