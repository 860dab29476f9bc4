/* linalg.h — internal entry points of the matrix products (blas.c) and of the composite ops
 * (composite.c) that decompose into them. */
#ifndef EMBER_SRC_TENSOR_LINALG_H
#define EMBER_SRC_TENSOR_LINALG_H

#include "src/tensor/kernels.h"

void tensor__cblas_sgemm_direct(int m, int n, int k, const float *A, const float *B, float *C);
/* C = alpha * A B + beta * C into a caller-owned buffer (row stride ldc); strides in elements. */
void tensor__sgemm_into(int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t as0, int64_t as1,
                        const float *B, int64_t bs0, int64_t bs1, float beta, float *C, int64_t ldc);

#endif
