/* blas.c — matrix products: mm, bmm, mv, dot, addmm, on OpenBLAS through blas_lib.h's table,
 * each calling the routine PyTorch 1.13's CPU kernels call, with the same operands, orientation,
 * leading dimensions, alpha and beta, so the bits are PyTorch's: mm / addmm (and so linear, and
 * matmul's 1-D @ 2-D and folded products) one GEMM whatever the shape, as addmm_impl_cpu_ calls it
 * (GEMM_STRIDED); mv one GEMV as addmv_impl_cpu calls it, ATen's own loops for a broadcast vector
 * (MV_ATEN); dot sdot/ddot; bmm ATen's plain loop below 400 multiply-adds a batch, else a GEMM a
 * batch (bmm_kernel).  float32 and float64 only; bfloat16 runs the float32 path on widened
 * operands and rounds the result (PyTorch's small-bmm loop accumulates BFloat16 in float; its
 * larger bfloat16 products go to oneDNN on AVX-512 machines, which Ember does not match);
 * integers use plain loops in int64 and wrap on store.  float16 and bool have no kernel, as in
 * PyTorch 1.13. */
#include "src/tensor/linalg.h"

#include "src/tensor/blas_lib.h"
#include "src/tensor/isa.h"

#include <stdio.h>
#include <string.h>


/* The k == 1 product with alpha 1 and beta 0 (an outer product: a batch-1 linear layer's weight
 * gradient), one loop per vector instruction set (isa.h); a contiguous row of B gets its own loop
 * so it vectorizes.  Bitwise what the GEMM gives: OpenBLAS zeroes C for beta 0 and adds
 * alpha * (a * b) to it, so each element is round(a * b) + 0 (the + 0 turns a -0 product into
 * +0, as the kernel's add does; -ffp-contract=off keeps it an add). */
#define OUTER(NAME, T)                                                                                     \
    static inline __attribute__((always_inline)) void NAME##__body(int64_t m, int64_t n, const T *A,          \
                                                                   int64_t as0, const T *B, int64_t bs1,      \
                                                                   T *C, int64_t ldc) {                       \
        for (int64_t i = 0; i < m; i++) {                                                                  \
            const T ai = A[i * as0];                                                                       \
            T *restrict c = C + i * ldc;                                                                   \
            if (bs1 == 1) {                                                                                \
                const T *restrict b = B;                                                                   \
                for (int64_t j = 0; j < n; j++) c[j] = ai * b[j] + (T)0;                                   \
            } else {                                                                                       \
                for (int64_t j = 0; j < n; j++) c[j] = ai * B[j * bs1] + (T)0;                             \
            }                                                                                              \
        }                                                                                                  \
    }                                                                                                      \
    TENSOR_MULTIVERSION(NAME, (int64_t m, int64_t n, const T *A, int64_t as0, const T *B, int64_t bs1, T *C, \
                               int64_t ldc),                                                               \
                        (m, n, A, as0, B, bs1, C, ldc))
OUTER(souter, float)
OUTER(douter, double)
#undef OUTER

/* C (row-major m x n, row stride ldc) = alpha * A(m x k) B(k x n) + beta * C, as ATen's
 * addmm_impl_cpu_ and cpublas::gemm call BLAS for it (PyTorch 1.13, LinearAlgebra.cpp and
 * CPUBlas.cpp), since OpenBLAS's result depends on more than the product:
 *  - the orientation: ATen sees a result of one column (n == 1, strides (1, 1)) as column-major
 *    and multiplies m x k by k x 1; every other result as row-major, i.e. column-major C^T =
 *    B^T A^T, operands swapped.  OpenBLAS's kernels for a single row or column of C add the k
 *    terms in other orders than its full tiles, so the two orientations give other bits;
 *  - the threads: OpenBLAS splits a product of more than 65536 * 4 multiply-adds between its
 *    own threads, and the split changes the tiles and so the bits.  PyTorch leaves OpenBLAS's
 *    thread count alone (torch.set_num_threads does not reach it), and so does Ember
 *    (blas_lib.c): the same library on the same machine splits a product the same way.
 * Operands are read in place when BLAS can (a transposed weight costs nothing) and copied to
 * row-major otherwise, by ATen's tests in ATen's order. */
#define GEMM_STRIDED(NAME, T, GEMM, OUTER)                                                                       \
    /* an operand of ATen's column-major product (rows x cols, strides st[i0], st[i1]): used in place            \
     * when column-major, or row-major as its transpose, with a valid leading dimension; else                    \
     * copied row-major (r x c, read through st) into *copy, transposed as `copied_tr` says */                   \
    static const T *NAME##_operand(const T *X, const int64_t st[2], int64_t i0, int64_t i1, int64_t rows,        \
                                   int64_t cols, int64_t r, int64_t c, bool copied_tr, bool *tr, int64_t *ld,    \
                                   T **copy) {                                                                   \
        if (st[i0] == 1 && st[i1] >= (rows > 1 ? rows : 1)) {                                                    \
            *tr = false;                                                                                         \
            *ld = st[i1];                                                                                        \
            return X;                                                                                            \
        }                                                                                                        \
        if (st[i1] == 1 && st[i0] >= (cols > 1 ? cols : 1)) {                                                    \
            *tr = true;                                                                                          \
            *ld = st[i0];                                                                                        \
            return X;                                                                                            \
        }                                                                                                        \
        EM_ASSERT((*copy = malloc(sizeof(T) * (size_t)(r * c))), "out of memory packing a gemm operand");        \
        for (int64_t i = 0; i < r; i++)                                                                          \
            for (int64_t j = 0; j < c; j++) (*copy)[i * c + j] = X[i * st[0] + j * st[1]];                       \
        *tr = copied_tr;                                                                                         \
        *ld = c;                                                                                                 \
        return *copy;                                                                                            \
    }                                                                                                            \
    static void NAME(int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t as0, int64_t as1, const T *B, \
                     int64_t bs0, int64_t bs1, T beta, T *C, int64_t ldc) {                                       \
        if (m == 0 || n == 0) return;                                                                            \
        if (k == 0) {                                                                                            \
            for (int64_t i = 0; i < m; i++)                                                                      \
                for (int64_t j = 0; j < n; j++) C[i * ldc + j] = beta == (T)0 ? (T)0 : beta * C[i * ldc + j];    \
            return;                                                                                              \
        }                                                                                                        \
        /* the outer product (k == 1) skips the packing; it gives the GEMM's bits (see OUTER) */                 \
        if (k == 1 && alpha == (T)1 && beta == (T)0) {                                                           \
            TENSOR_ISA_CALL(OUTER, (m, n, A, as0, B, bs1, C, ldc));                                              \
            return;                                                                                              \
        }                                                                                                        \
        /* ATen's names: column-major M x N result c = op(a) op(b), a M x K, b K x N */                          \
        bool tc = !(n == 1 && ldc == 1);                                                                         \
        const T *P = tc ? B : A, *Q = tc ? A : B;                                                                \
        int64_t ps[2] = {tc ? bs0 : as0, tc ? bs1 : as1}, qs[2] = {tc ? as0 : bs0, tc ? as1 : bs1};             \
        int64_t M = tc ? n : m, N = tc ? m : n, K = k, i0 = tc ? 1 : 0, i1 = tc ? 0 : 1;                         \
        int64_t pr = tc ? k : m, pc = tc ? n : k, qr = tc ? m : k, qc = tc ? k : n; /* row-major shapes */    \
        bool ta, tb;                                                                                             \
        int64_t lda, ldb, ldcc = tc ? ldc : 1;                                                                   \
        T *ca = NULL, *cb = NULL;                                                                                \
        P = NAME##_operand(P, ps, i0, i1, M, K, pr, pc, !tc, &ta, &lda, &ca);                                    \
        Q = NAME##_operand(Q, qs, i0, i1, K, N, qr, qc, !tc, &tb, &ldb, &cb);                                    \
        /* cpublas::normalize_last_dims */                                                                       \
        if (N == 1) ldcc = M;                                                                                    \
        if (ta) {                                                                                                \
            if (M == 1) lda = K;                                                                                 \
        } else if (K == 1) {                                                                                     \
            lda = M;                                                                                             \
        }                                                                                                        \
        if (tb) {                                                                                                \
            if (K == 1) ldb = N;                                                                                 \
        } else if (N == 1) {                                                                                     \
            ldb = K;                                                                                             \
        }                                                                                                        \
        EM_ASSERT(lda >= ((ta ? K : M) > 1 ? (ta ? K : M) : 1) && ldb >= ((tb ? N : K) > 1 ? (tb ? N : K) : 1) && \
                      ldcc >= (M > 1 ? M : 1),                                                                   \
                  "gemm leading dimensions out of range");                                                       \
        GEMM(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, \
             alpha, P, (int)lda, Q, (int)ldb, beta, C, (int)ldcc);                                               \
        free(ca);                                                                                                \
        free(cb);                                                                                                \
    }
GEMM_STRIDED(sgemm_strided, float, BLAS(cblas_sgemm), souter)
GEMM_STRIDED(dgemm_strided, double, BLAS(cblas_dgemm), douter)
#undef GEMM_STRIDED

static void igemm_strided(int64_t m, int64_t n, int64_t k, int64_t alpha, const int64_t *A, int64_t as0, int64_t as1,
                          const int64_t *B, int64_t bs0, int64_t bs1, int64_t beta, int64_t *C, int64_t ldc) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t acc = 0;
            for (int64_t p = 0; p < k; p++) acc += A[i * as0 + p * as1] * B[p * bs0 + j * bs1];
            C[i * ldc + j] = alpha * acc + (beta ? beta * C[i * ldc + j] : 0);   /* wraps (-fwrapv) */
        }
}

/* C (m x n, row stride ldc) = alpha * A B + beta * C for strided float32 operands: the same
 * path as mm/addmm, for callers that own the output buffer (src/runtime's arena). */
void tensor__sgemm_into(int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t as0, int64_t as1,
                        const float *B, int64_t bs0, int64_t bs1, float beta, float *C, int64_t ldc) {
    sgemm_strided(m, n, k, alpha, A, as0, as1, B, bs0, bs1, beta, C, ldc);
}

/* The test suite's reference: the library's sgemm path against a direct call. */
void tensor__cblas_sgemm_direct(int m, int n, int k, const float *A, const float *B, float *C) {
    BLAS(cblas_sgemm)(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
}

/* ---- shape checks -------------------------------------------------------------------------------- */

/* PyTorch 1.13's checks: float16 and bool have no kernel (kname), other dtypes must agree */
static int check_mm_dtypes(const TensorMeta *a, const TensorMeta *b, const char *kname) {
    if (a->dtype == TENSOR_BOOL || a->dtype == TENSOR_FLOAT16) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname, tensor__cname(a->dtype));
        return -1;
    }
    if (a->dtype != b->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "expected scalar type %s but found %s", tensor__cname(a->dtype), tensor__cname(b->dtype));
        return -1;
    }
    return 0;
}

/* ---- the matrix products' table entries (ops.def K columns) ---------------------------------- */

TENSOR_INFER(mm) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *y = in[1];
    int64_t shape[3] = {0, 0, 0};
    if (x->ndim != 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "self must be a matrix");
        return -1;
    }
    if (y->ndim != 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mat2 must be a matrix");
        return -1;
    }
    if (x->shape[1] != y->shape[0]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                         (long long)x->shape[0], (long long)x->shape[1], (long long)y->shape[0], (long long)y->shape[1]);
        return -1;
    }
    if (check_mm_dtypes(x, y, "addmm_impl_cpu_") < 0) return -1;
    shape[0] = x->shape[0];
    shape[1] = y->shape[1];
    tensor__meta_contiguous(out, x->dtype, 2, shape);
    return 1;
}

TENSOR_INFER(addmm) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0];
    int64_t shape[3] = {0, 0, 0};
    const TensorMeta *m1 = in[1], *m2 = in[2];
    if (m1->ndim != 2 || m2->ndim != 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s must be a matrix, got %d-D tensor", m1->ndim != 2 ? "mat1" : "mat2",
                         m1->ndim != 2 ? m1->ndim : m2->ndim);
        return -1;
    }
    if (m1->shape[1] != m2->shape[0]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                         (long long)m1->shape[0], (long long)m1->shape[1], (long long)m2->shape[0], (long long)m2->shape[1]);
        return -1;
    }
    /* addmm_impl_cpu_'s order: self against mat2, then mat1 against mat2 */
    if (x->dtype != m2->dtype || m1->dtype != m2->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s and mat2 must have the same dtype", x->dtype != m2->dtype ? "self" : "mat1");
        return -1;
    }
    if (check_mm_dtypes(m1, m2, "addmm_impl_cpu_") < 0) return -1;
    shape[0] = m1->shape[0];
    shape[1] = m2->shape[1];
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(x->ndim, x->shape, 2, shape, &nd, bs) < 0) return -1;
    if (nd != 2 || bs[0] != shape[0] || bs[1] != shape[1]) {
        char b1[64], b2[64];
        tensor__format_shape(b1, sizeof b1, x->ndim, x->shape);
        tensor__format_shape(b2, sizeof b2, 2, shape);
        tensor_error_set(TENSOR_ERR_RUNTIME, "The expanded size of the tensor must match the existing size: self %s vs result %s", b1, b2);
        return -1;
    }
    tensor__meta_contiguous(out, x->dtype, 2, shape);
    return 1;
}

TENSOR_INFER(bmm) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *y = in[1];
    int64_t shape[3] = {0, 0, 0};
    if (x->ndim != 3) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch1 must be a 3D tensor");
        return -1;
    }
    if (y->ndim != 3) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch2 must be a 3D tensor");
        return -1;
    }
    if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[2]) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                         (long long)x->shape[0], (long long)x->shape[2], (long long)y->shape[0], (long long)y->shape[1]);
        return -1;
    }
    if (check_mm_dtypes(x, y, "bmm") < 0) return -1;
    shape[0] = x->shape[0];
    shape[1] = x->shape[1];
    shape[2] = y->shape[2];
    tensor__meta_contiguous(out, x->dtype, 3, shape);
    return 1;
}

TENSOR_INFER(mv) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *y = in[1];
    int64_t shape[3] = {0, 0, 0};
    if (x->ndim != 2 || y->ndim != 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, %d, %d", x->ndim, y->ndim);
        return -1;
    }
    if (x->shape[1] != y->shape[0]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                         (long long)x->shape[0], (long long)x->shape[0], (long long)x->shape[1], (long long)y->shape[0]);
        return -1;
    }
    if (check_mm_dtypes(x, y, "addmv_impl_cpu") < 0) return -1;
    shape[0] = x->shape[0];
    tensor__meta_contiguous(out, x->dtype, 1, shape);
    return 1;
}

TENSOR_INFER(dot) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *y = in[1];
    int64_t shape[3] = {0, 0, 0};
    if (x->ndim != 1 || y->ndim != 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", x->ndim, y->ndim);
        return -1;
    }
    if (x->shape[0] != y->shape[0]) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                         (long long)x->shape[0], (long long)y->shape[0], (long long)x->shape[0], (long long)y->shape[0]);
        return -1;
    }
    if (x->dtype != y->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found %s and %s",
                         tensor__cname(x->dtype), tensor__cname(y->dtype));
        return -1;
    }
    if (check_mm_dtypes(x, y, "dot") < 0) return -1;
    tensor__meta_contiguous(out, x->dtype, 0, shape);
    return 1;
}

static double scalar_d(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* out (contiguous, m x n) = beta*out + alpha * x @ y on 2-D operands */
static void gemm_into(Tensor *out, int64_t ooff, const Tensor *x, int64_t xoff, int64_t xs0, int64_t xs1, int64_t m,
                      int64_t k, const Tensor *y, int64_t yoff, int64_t ys0, int64_t ys1, int64_t n, double alpha,
                      double beta) {
    if (out->dtype == TENSOR_FLOAT32) {
        sgemm_strided(m, n, k, (float)alpha, (const float *)x->storage->data + xoff, xs0, xs1,
                      (const float *)y->storage->data + yoff, ys0, ys1, (float)beta, (float *)out->storage->data + ooff, n);
    } else if (out->dtype == TENSOR_FLOAT64) {
        dgemm_strided(m, n, k, alpha, (const double *)x->storage->data + xoff, xs0, xs1,
                      (const double *)y->storage->data + yoff, ys0, ys1, beta, (double *)out->storage->data + ooff, n);
    } else {
        igemm_strided(m, n, k, (int64_t)alpha, (const int64_t *)x->storage->data + xoff, xs0, xs1,
                      (const int64_t *)y->storage->data + yoff, ys0, ys1, (int64_t)beta, (int64_t *)out->storage->data + ooff,
                      n);
    }
}

/* the products' kernels: output metadata o (already checked), operands in the compute family */
static Tensor *mm_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 2, o->shape, false))) return NULL;
    gemm_into(r, 0, x, x->offset, x->strides[0], x->strides[1], x->shape[0], x->shape[1], y, y->offset, y->strides[0],
              y->strides[1], y->shape[1], 1.0, 0.0);
    return r;
}

static Tensor *addmm_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    Tensor *r = NULL;
    const Tensor *bias = in[0], *m1 = in[1], *m2 = in[2];
    double beta = scalar_d(a->beta), alpha = scalar_d(a->alpha);
    if (!(r = tensor__new(o->dtype, 2, o->shape, beta == 0.0))) return NULL;
    if (beta != 0.0 && bias->ndim == 1 && bias->dtype == r->dtype && (bias->strides[0] == 1 || bias->shape[0] == 1) &&
        bias->shape[0] == r->shape[1]) {
        /* a linear layer's bias (n,) down the rows: one row copy each (the iterator's broadcast
         * copy element by element cost ~5% of a transformer's forward) */
        size_t row = tensor_dtype_size((TensorDtype)r->dtype) * (size_t)r->shape[1];
        const char *src = tensor__data(bias);
        char *dst = tensor__data(r);
        for (int64_t i = 0; i < r->shape[0]; i++) memcpy(dst + (size_t)i * row, src, row);
    } else if (beta != 0.0 && tensor__copy_into(r, bias) < 0) {
        tensor_decref(r);
        return NULL;
    }
    gemm_into(r, 0, m1, m1->offset, m1->strides[0], m1->strides[1], m1->shape[0], m1->shape[1], m2, m2->offset,
              m2->strides[0], m2->strides[1], m2->shape[1], alpha, beta);
    return r;
}

/* ATen's baddbmm_cpu_kernel, which bmm runs when k * m * n < 400: one sum per element in k's
 * order, the element type as accumulator (float for bfloat16, which arrives here widened), no
 * fused multiply-add (LinearAlgebra.cpp is built for baseline x86-64; -ffp-contract=off here). */
#define BMM_SMALL(NAME, T)                                                                                       \
    static void NAME(const Tensor *x, const Tensor *y, T *r, int64_t bs, int64_t m, int64_t n, int64_t k) {     \
        const T *X = (const T *)x->storage->data + x->offset, *Y = (const T *)y->storage->data + y->offset;     \
        for (int64_t b = 0; b < bs; b++)                                                                       \
            for (int64_t i = 0; i < m; i++)                                                                    \
                for (int64_t j = 0; j < n; j++) {                                                              \
                    const T *xr = X + b * x->strides[0] + i * x->strides[1];                                   \
                    const T *yc = Y + b * y->strides[0] + j * y->strides[2];                                   \
                    T acc = 0;                                                                                 \
                    for (int64_t p = 0; p < k; p++) acc += xr[p * x->strides[2]] * yc[p * y->strides[1]];      \
                    r[(b * m + i) * n + j] = acc;                                                              \
                }                                                                                              \
    }
BMM_SMALL(sbmm_small, float)
BMM_SMALL(dbmm_small, double)
#undef BMM_SMALL

/* ATen's bmm_out_or_baddbmm_: small products (k * m * n < 400) by the loop above, others one
 * GEMM a batch (addmm_impl_cpu_ on each slice) */
static Tensor *bmm_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 3, o->shape, false))) return NULL;
    int64_t m = x->shape[1], k = x->shape[2], n = y->shape[2];
    if (k > 0 && k * m * n < 400 && (o->dtype == TENSOR_FLOAT32 || o->dtype == TENSOR_FLOAT64)) {
        if (o->dtype == TENSOR_FLOAT32)
            sbmm_small(x, y, tensor__f32(r), x->shape[0], m, n, k);
        else
            dbmm_small(x, y, (double *)tensor__data(r), x->shape[0], m, n, k);
        return r;
    }
    for (int64_t b = 0; b < x->shape[0]; b++)
        gemm_into(r, b * m * n, x, x->offset + b * x->strides[0], x->strides[1], x->strides[2], m, k, y,
                  y->offset + b * y->strides[0], y->strides[1], y->strides[2], n, 1.0, 0.0);
    return r;
}

/* ATen's gemv (BlasKernel.cpp) in its column-major terms: y (stride incy) = alpha * op(A) x + beta * y
 * with A m x n (leading dimension lda), trans 't' or 'n'.  BLAS when both increments are positive,
 * else ATen's own loops (a broadcast vector: the gradient of a sum has stride 0). */
#define GEMV_ATEN(NAME, T, GEMV)                                                                                  \
    static void NAME(char trans, int64_t m, int64_t n, T alpha, const T *a, int64_t lda, const T *x, int64_t incx, \
                     T beta, T *y, int64_t incy) {                                                               \
        if (n == 1) lda = m;                                                                                     \
        if (incx > 0 && incy > 0) {                                                                              \
            GEMV(CblasColMajor, trans == 't' ? CblasTrans : CblasNoTrans, (int)m, (int)n, alpha, a, (int)lda, x,  \
                 (int)incx, beta, y, (int)incy);                                                                 \
            return;                                                                                              \
        }                                                                                                        \
        if (trans == 't') {                                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                                    \
                T sum = 0;                                                                                       \
                const T *row = a + lda * i;                                                                      \
                for (int64_t j = 0; j < m; j++) sum += x[j * incx] * row[j];                                     \
                y[i * incy] = beta == (T)0 ? alpha * sum : beta * y[i * incy] + alpha * sum;                     \
            }                                                                                                    \
        } else {                                                                                                 \
            if (beta != (T)1 && beta != (T)0)                                                                    \
                for (int64_t i = 0; i < m; i++) y[i * incy] *= beta;                                             \
            for (int64_t j = 0; j < n; j++) {                                                                    \
                const T *col = a + lda * j;                                                                      \
                T z = alpha * x[j * incx];                                                                       \
                for (int64_t i = 0; i < m; i++) {                                                                \
                    if (j == 0 && beta == (T)0) y[i * incy] = 0;                                                 \
                    y[i * incy] += z * col[i];                                                                   \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }
GEMV_ATEN(sgemv_aten, float, BLAS(cblas_sgemv))
GEMV_ATEN(dgemv_aten, double, BLAS(cblas_dgemv))
#undef GEMV_ATEN

/* ATen's addmv_impl_cpu with beta 0 (mv): gemv 'n' on a column-major matrix, 't' on a row-major
 * one, 't' on a contiguous copy of any other */
#define MV_ATEN(NAME, T, GEMV)                                                                                   \
    static void NAME(const Tensor *mat, const Tensor *vec, T *y) {                                              \
        int64_t m = mat->shape[0], k = mat->shape[1], s0 = mat->strides[0], s1 = mat->strides[1];               \
        const T *A = (const T *)mat->storage->data + mat->offset, *x = (const T *)vec->storage->data + vec->offset; \
        T *packed = NULL;                                                                                        \
        if (s0 == 1 && (k == 1 || s1 >= (m > 1 ? m : 1))) {                                                      \
            GEMV('n', m, k, (T)1, A, s1, x, vec->strides[0], (T)0, y, 1);                                        \
            return;                                                                                              \
        }                                                                                                        \
        if (!(s1 == 1 && (m == 1 || s0 >= (k > 1 ? k : 1)))) {                                                   \
            packed = malloc(sizeof(T) * (size_t)(m * k));                                                        \
            EM_ASSERT(packed, "out of memory packing a gemv operand");                                           \
            for (int64_t i = 0; i < m; i++)                                                                      \
                for (int64_t j = 0; j < k; j++) packed[i * k + j] = A[i * s0 + j * s1];                          \
            A = packed;                                                                                          \
            s0 = k;                                                                                              \
        }                                                                                                        \
        GEMV('t', k, m, (T)1, A, s0, x, vec->strides[0], (T)0, y, 1);                                            \
        free(packed);                                                                                            \
    }
MV_ATEN(smv_aten, float, sgemv_aten)
MV_ATEN(dmv_aten, double, dgemv_aten)
#undef MV_ATEN

static Tensor *mv_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 1, o->shape, x->shape[1] == 0))) return NULL;
    if (x->shape[0] == 0 || x->shape[1] == 0) return r;
    if (o->dtype == TENSOR_FLOAT32) {
        smv_aten(x, y, tensor__f32(r));
        return r;
    }
    if (o->dtype == TENSOR_FLOAT64) {
        dmv_aten(x, y, (double *)tensor__data(r));
        return r;
    }
    gemm_into(r, 0, x, x->offset, x->strides[0], x->strides[1], x->shape[0], x->shape[1], y, y->offset, y->strides[0],
              0, 1, 1.0, 0.0);
    return r;
}

/* ATen's dot_impl: BLAS sdot/ddot for every non-negative stride (a broadcast vector's 0 too) */
static Tensor *dot_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 0, NULL, false))) return NULL;
    int64_t n = x->shape[0], ix = n == 1 ? 1 : x->strides[0], iy = n == 1 ? 1 : y->strides[0];
    bool blas = n > 0 && ix >= 0 && iy >= 0;
    if (o->dtype == TENSOR_FLOAT32) {
        const float *px = tensor__f32(x), *py = tensor__f32(y);
        float acc = 0;
        if (blas)
            acc = BLAS(cblas_sdot)((int)n, px, (int)ix, py, (int)iy);
        else
            for (int64_t i = 0; i < n; i++) acc += px[i * ix] * py[i * iy];
        *tensor__f32(r) = acc;
    } else if (o->dtype == TENSOR_FLOAT64) {
        const double *px = (const double *)tensor__data(x), *py = (const double *)tensor__data(y);
        double acc = 0;
        if (blas)
            acc = BLAS(cblas_ddot)((int)n, px, (int)ix, py, (int)iy);
        else
            for (int64_t i = 0; i < n; i++) acc += px[i * ix] * py[i * iy];
        *(double *)tensor__data(r) = acc;
    } else {
        int64_t acc = 0;
        for (int64_t i = 0; i < x->shape[0]; i++)
            acc += tensor__i64(x)[i * x->strides[0]] * tensor__i64(y)[i * y->strides[0]];
        *tensor__i64(r) = acc;
    }
    return r;
}

typedef Tensor *(*LinalgKernel)(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o);

/* A product's kernel: its output metadata from `infer`, operands stored narrower than their
 * family (bfloat16, int32 ...) widened into it and the result rounded back, then `kernel`. */
static inline int linalg_run(TensorInferFn infer, LinalgKernel kernel, TensorOp op, Tensor *const *in, int n_in,
                             const TensorOpArgs *a, Tensor **out) {
    TensorMeta mx, my, mz, om;
    tensor_meta_of(in[0], &mx);
    tensor_meta_of(in[1], &my);
    const TensorMeta *pm[3] = {&mx, &my, &mz};
    if (n_in > 2) tensor_meta_of(in[2], &mz);
    if (infer(op, pm, n_in, a, &om, 1) < 0) return -1;
    TensorDtype fam = tensor__compute_dtype(om.dtype);
    Tensor *conv[3] = {NULL, NULL, NULL};
    if (fam != om.dtype) {
        for (int i = 0; i < n_in; i++)
            if (!(conv[i] = tensor__as_dtype(in[i], fam))) {
                for (int j = 0; j < i; j++) tensor_decref(conv[j]);
                return -1;
            }
        Tensor *r = NULL;
        TensorOpArgs fa = *a;
        int rc = linalg_run(infer, kernel, op, conv, n_in, &fa, &r);
        for (int i = 0; i < n_in; i++) tensor_decref(conv[i]);
        if (rc < 0) return -1;
        out[0] = tensor__as_dtype(r, om.dtype);
        tensor_decref(r);
        return out[0] ? 1 : -1;
    }
    Tensor *r = kernel(in, a, &om);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

#define LINALG_RUN(NAME)                                                                                               \
    TENSOR_RUN(NAME) {                                                                                                 \
        (void)n_out;                                                                                                   \
        return linalg_run(tensor__infer_##NAME, NAME##_kernel, op, in, n_in, a, out);                                  \
    }
LINALG_RUN(mm)
LINALG_RUN(addmm)
LINALG_RUN(bmm)
LINALG_RUN(mv)
LINALG_RUN(dot)

static Tensor *run2(TensorRunFn run, TensorOp op, const Tensor *x, const Tensor *y) {
    Tensor *in[2] = {(Tensor *)x, (Tensor *)y}, *r = NULL;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return run(op, in, 2, &a, &r, 1) < 0 ? NULL : r;
}

Tensor *tensor_mm(const Tensor *a, const Tensor *b) { return run2(tensor__run_mm, TENSOR_OP_MM, a, b); }
Tensor *tensor_bmm(const Tensor *a, const Tensor *b) { return run2(tensor__run_bmm, TENSOR_OP_BMM, a, b); }
Tensor *tensor_mv(const Tensor *a, const Tensor *v) { return run2(tensor__run_mv, TENSOR_OP_MV, a, v); }
Tensor *tensor_dot(const Tensor *a, const Tensor *b) { return run2(tensor__run_dot, TENSOR_OP_DOT, a, b); }

Tensor *tensor_addmm(const Tensor *bias, const Tensor *a, const Tensor *b, TensorScalar beta, TensorScalar alpha) {
    Tensor *in[3] = {(Tensor *)bias, (Tensor *)a, (Tensor *)b}, *r = NULL;
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.beta = beta;
    args.alpha = alpha;
    return tensor__run_addmm(TENSOR_OP_ADDMM, in, 3, &args, &r, 1) < 0 ? NULL : r;
}
