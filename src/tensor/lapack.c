/* lapack.c — linear algebra on OpenBLAS's LAPACK (the kept library; its Fortran symbols are
 * declared here, there is no LAPACKE header): linalg.cholesky (potrf), solve_triangular (BLAS
 * trsm, which like ATen's does not stop at a zero diagonal), inv (getrf + getrs against the
 * identity, as ATen's linalg_solve), det and slogdet (from getrf's LU, as ATen), qr (geqrf +
 * orgqr) and svdvals (gesdd without vectors).  float32 runs the s-routines and float64 the
 * d-routines so results round as PyTorch's; matrices are copied into column-major buffers (what
 * LAPACK reads) one batch element at a time, batch dims broadcast where ATen broadcasts them.
 * Without LAPACK symbols (a plain BLAS build) the ops raise NotImplementedError naming them. */
#include "src/tensor/lapack.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/dtype.h"

/* ---- LAPACK's Fortran interface (column-major; trailing lengths of the character args) -------- */
#ifdef EMBER_HAVE_LAPACK
#define LAPACK_DECLS(T, P)                                                                       \
    void P##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t);     \
    void P##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);      \
    void P##getrs_(const char *tr, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, \
                   T *b, const int *ldb, int *info, size_t);                                     \
    void P##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info); \
    void P##orgqr_(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, \
                   const int *lwork, int *info);                                                 \
    void P##gesdd_(const char *jobz, const int *m, const int *n, T *a, const int *lda, T *s, T *u, const int *ldu, \
                   T *vt, const int *ldvt, T *work, const int *lwork, int *iwork, int *info, size_t);
LAPACK_DECLS(float, s)
LAPACK_DECLS(double, d)
#endif

/* ---- shape inference --------------------------------------------------------------------------- */

static const char *op_label(TensorOp op) {
    switch (op) {
    case TENSOR_OP_CHOLESKY: return "linalg.cholesky";
    case TENSOR_OP_TRIANGULAR_SOLVE: return "linalg.solve_triangular";
    case TENSOR_OP_LINALG_INV: return "linalg.inv";
    case TENSOR_OP_LINALG_DET: return "linalg.det";
    case TENSOR_OP_LINALG_SLOGDET: return "linalg.slogdet";
    case TENSOR_OP_LINALG_QR: return "linalg.qr";
    case TENSOR_OP_LINALG_SVDVALS: case TENSOR_OP_LINALG_SVD: return "linalg.svd";
    default: return tensor_op_name(op);
    }
}

static int check_matrix(TensorOp op, const TensorMeta *x, bool square) {
    const char *l = op_label(op);
    if (x->ndim < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.", l);
        return -1;
    }
    if (!tensor__is_float(x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as input. Got %s", l,
                         tensor__cname(x->dtype));
        return -1;
    }
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Low precision dtypes not supported. Got %s", l, tensor__cname(x->dtype));
        return -1;
    }
    if (square && x->shape[x->ndim - 1] != x->shape[x->ndim - 2]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", l,
                         (long long)x->shape[x->ndim - 2], (long long)x->shape[x->ndim - 1]);
        return -1;
    }
    return 0;
}

/* the broadcast of two batch shapes (all dims but the last two) */
static int broadcast_batch(const TensorMeta *a, const TensorMeta *b, int *nd, int64_t *shape) {
    int na = a->ndim - 2, nb = b->ndim - 2, n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t sa = i - (n - na) >= 0 ? a->shape[i - (n - na)] : 1, sb = i - (n - nb) >= 0 ? b->shape[i - (n - nb)] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                             (long long)sa, (long long)sb, i);
            return -1;
        }
        shape[i] = sa == 1 ? sb : sa;
    }
    *nd = n;
    return 0;
}

int tensor__infer_lapack(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)n;
    (void)max;
    const TensorMeta *x = in[0];
    bool square = op != TENSOR_OP_LINALG_QR && op != TENSOR_OP_LINALG_SVDVALS && op != TENSOR_OP_LINALG_SVD;
    if (check_matrix(op, x, square) < 0) return -1;
    int nd = x->ndim;
    int64_t rows = x->shape[nd - 2], cols = x->shape[nd - 1], k = rows < cols ? rows : cols;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
    switch (op) {
    case TENSOR_OP_CHOLESKY: case TENSOR_OP_LINALG_INV:
        tensor__meta_contiguous(o, x->dtype, nd, x->shape);
        return 1;
    case TENSOR_OP_LINALG_DET:
        tensor__meta_contiguous(o, x->dtype, nd - 2, x->shape);
        return 1;
    case TENSOR_OP_LINALG_SLOGDET:
        tensor__meta_contiguous(&o[0], x->dtype, nd - 2, x->shape);
        tensor__meta_contiguous(&o[1], x->dtype, nd - 2, x->shape);
        return 2;
    case TENSOR_OP_LINALG_SVDVALS:
        shape[nd - 2] = k;
        tensor__meta_contiguous(o, x->dtype, nd - 1, shape);
        return 1;
    case TENSOR_OP_LINALG_SVD:
        /* reduced: U (m, k), S (k), Vh (k, n) */
        shape[nd - 1] = k;
        tensor__meta_contiguous(&o[0], x->dtype, nd, shape);
        tensor__meta_contiguous(&o[1], x->dtype, nd - 1, shape);
        shape[nd - 2] = k;
        shape[nd - 1] = cols;
        tensor__meta_contiguous(&o[2], x->dtype, nd, shape);
        return 3;
    case TENSOR_OP_LINALG_QR: {
        /* reduced: Q (m, k), R (k, n); complete: Q (m, m), R (m, n); r: Q empty, R (k, n) */
        int64_t qc = a->step == 2 ? rows : k, rr = a->step == 2 ? rows : k;
        if (a->step == 3) {
            int64_t z = 0;
            tensor__meta_contiguous(&o[0], x->dtype, 1, &z);
        } else {
            shape[nd - 1] = qc;
            tensor__meta_contiguous(&o[0], x->dtype, nd, shape);
        }
        shape[nd - 2] = rr;
        shape[nd - 1] = cols;
        tensor__meta_contiguous(&o[1], x->dtype, nd, shape);
        return 2;
    }
    case TENSOR_OP_TRIANGULAR_SOLVE: {
        const TensorMeta *b = in[1];
        bool right = a->accumulate;
        if (b->ndim < 2) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
            return -1;
        }
        if (b->dtype != x->dtype) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
                             tensor__cname(x->dtype), tensor__cname(b->dtype));
            return -1;
        }
        int64_t br = b->shape[b->ndim - 2], bc = b->shape[b->ndim - 1];
        if ((right ? bc : br) != rows) {
            if (right)
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B (%lldx%lld and %lldx%lld)",
                                 (long long)br, (long long)bc, (long long)rows, (long long)cols);
            else
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (%lldx%lld and %lldx%lld)",
                                 (long long)rows, (long long)cols, (long long)br, (long long)bc);
            return -1;
        }
        int bnd;
        if (broadcast_batch(x, b, &bnd, shape) < 0) return -1;
        shape[bnd] = br;
        shape[bnd + 1] = bc;
        tensor__meta_contiguous(o, x->dtype, bnd + 2, shape);
        return 1;
    }
    default: break;
    }
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a LAPACK op", tensor_op_name(op));
    return -1;
}

/* ---- kernels --------------------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_LAPACK

static int64_t numel_of(int nd, const int64_t *shape) {
    int64_t r = 1;
    for (int i = 0; i < nd; i++) r *= shape[i];
    return r;
}

/* the offset (in matrices) of batch element `b` of the broadcast batch shape in t's own batch */
static int64_t batch_offset(int64_t b, int bnd, const int64_t *bshape, const Tensor *t) {
    int tn = t->ndim - 2;
    int64_t off = 0, stride = 1;
    for (int i = bnd - 1; i >= 0; i--) {
        int64_t idx = b % bshape[i];
        b /= bshape[i];
        int ti = i - (bnd - tn);
        if (ti >= 0) {
            if (t->shape[ti] != 1) off += idx * stride;
            stride *= t->shape[ti];
        }
    }
    return off;
}

static void batch_prefix(char *buf, size_t cap, const Tensor *x, int64_t b) {
    if (x->ndim > 2) snprintf(buf, cap, "(Batch element %lld): ", (long long)b);
    else buf[0] = 0;
}

#define LAPACK_KERNELS(T, P, CB)                                                                   \
    /* row-major n_r x n_c (at src) <-> column-major buffer (leading dim n_r) */                  \
    static void P##_to_col(const T *src, int64_t n_r, int64_t n_c, T *dst) {                    \
        for (int64_t i = 0; i < n_r; i++)                                                          \
            for (int64_t j = 0; j < n_c; j++) dst[j * n_r + i] = src[i * n_c + j];                 \
    }                                                                                              \
    static void P##_from_col(const T *src, int64_t n_r, int64_t n_c, int64_t ld, T *dst) {      \
        for (int64_t i = 0; i < n_r; i++)                                                          \
            for (int64_t j = 0; j < n_c; j++) dst[i * n_c + j] = src[j * ld + i];                  \
    }                                                                                              \
    static int P##_cholesky(const Tensor *x, Tensor *r, bool upper) {                            \
        int64_t n = x->shape[x->ndim - 1], mats = n ? x->numel / (n * n) : 0;                      \
        const T *src = (const T *)tensor__data(x);                                                 \
        T *dst = (T *)tensor__data(r), *buf = malloc(sizeof(T) * (size_t)(n * n + 1));             \
        if (!buf) return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                 \
        int ni = (int)n, info = 0;                                                                 \
        for (int64_t m = 0; m < mats; m++) {                                                       \
            P##_to_col(src + m * n * n, n, n, buf);                                                \
            P##potrf_("L", &ni, buf, &ni, &info, 1);                                               \
            if (info > 0) {                                                                        \
                char pre[48];                                                                      \
                batch_prefix(pre, sizeof pre, x, m);                                               \
                tensor_error_set(TENSOR_ERR_LINALG,                                                \
                                 "linalg.cholesky: %sThe factorization could not be completed because the input is not " \
                                 "positive-definite (the leading minor of order %d is not positive-definite).", pre, info); \
                free(buf);                                                                         \
                return -1;                                                                         \
            }                                                                                      \
            T *out = dst + m * n * n;                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                for (int64_t j = 0; j < n; j++) {                                                  \
                    T v = j <= i ? buf[j * n + i] : (T)0; /* L[i][j], lower */                     \
                    if (upper) out[j * n + i] = v;                                                 \
                    else out[i * n + j] = v;                                                       \
                }                                                                                  \
        }                                                                                          \
        free(buf);                                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    /* LU of each matrix (column-major copy of A itself, as ATen factors it) */                   \
    static int P##_lu_each(const Tensor *x, Tensor *r0, Tensor *r1, TensorOp op) {               \
        int64_t n = x->shape[x->ndim - 1], mats = numel_of(x->ndim - 2, x->shape);        \
        const T *src = (const T *)tensor__data(x);                                                 \
        T *buf = malloc(sizeof(T) * (size_t)(2 * n * n + 1));                                     \
        int *piv = malloc(sizeof(int) * (size_t)(n + 1));                                          \
        if (!buf || !piv) {                                                                        \
            free(buf);                                                                             \
            free(piv);                                                                             \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        int ni = (int)n, info = 0;                                                                 \
        for (int64_t m = 0; m < mats; m++) {                                                       \
            P##_to_col(src + m * n * n, n, n, buf);                                                \
            if (n) P##getrf_(&ni, &ni, buf, &ni, piv, &info);                                      \
            if (op == TENSOR_OP_LINALG_INV) {                                                      \
                if (info > 0) {                                                                    \
                    char pre[48];                                                                  \
                    batch_prefix(pre, sizeof pre, x, m);                                           \
                    tensor_error_set(TENSOR_ERR_LINALG,                                            \
                                     "linalg.inv: %sThe diagonal element %d is zero, the inversion could not be " \
                                     "completed because the input matrix is singular.", pre, info); \
                    free(buf);                                                                     \
                    free(piv);                                                                     \
                    return -1;                                                                     \
                }                                                                                  \
                T *id = buf + n * n;                                                               \
                for (int64_t i = 0; i < n * n; i++) id[i] = (T)0;                                  \
                for (int64_t i = 0; i < n; i++) id[i * n + i] = (T)1;                              \
                if (n) P##getrs_("N", &ni, &ni, buf, &ni, piv, id, &ni, &info, 1);                 \
                P##_from_col(id, n, n, n, (T *)tensor__data(r0) + m * n * n);                      \
                continue;                                                                          \
            }                                                                                      \
            /* det = prod(diag U) * (-1)^swaps; slogdet: sign and sum(log|diag U|) */             \
            T det = 1, sign = 1, logabs = 0;                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T d = buf[i * n + i];                                                              \
                bool swap = piv[i] != i + 1;                                                       \
                det *= swap ? -d : d;                                                              \
                if (swap) sign = -sign;                                                            \
                sign *= d > 0 ? (T)1 : d < 0 ? (T)-1 : (T)0;                                       \
                logabs += log(fabs(d));                                                            \
            }                                                                                      \
            if (op == TENSOR_OP_LINALG_DET) {                                                      \
                ((T *)tensor__data(r0))[m] = det;                                                  \
            } else {                                                                               \
                ((T *)tensor__data(r0))[m] = sign;                                                 \
                ((T *)tensor__data(r1))[m] = logabs;                                               \
            }                                                                                      \
        }                                                                                          \
        free(buf);                                                                                 \
        free(piv);                                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    static int P##_qr(const Tensor *x, Tensor *q, Tensor *r, int mode) {                         \
        int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1], k = m < n ? m : n;           \
        int64_t mats = numel_of(x->ndim - 2, x->shape);                                    \
        int64_t qc = mode == 2 ? m : k, rr = mode == 2 ? m : k, wide = n > m ? n : m;              \
        const T *src = (const T *)tensor__data(x);                                                 \
        T *buf = malloc(sizeof(T) * (size_t)(m * wide + 1)), *tau = malloc(sizeof(T) * (size_t)(k + 1)); \
        int mi = (int)m, nI = (int)n, ki = (int)k, qi = (int)qc, info = 0, lw = -1;                \
        T wq = 0, wq2 = 0;                                                                         \
        if (buf && m && n) {                                                                       \
            P##geqrf_(&mi, &nI, buf, &mi, tau, &wq, &lw, &info);                                   \
            if (mode != 3 && qc) P##orgqr_(&mi, &qi, &ki, buf, &mi, tau, &wq2, &lw, &info);        \
        }                                                                                          \
        int lwork = (int)(wq > wq2 ? wq : wq2) + 1;                                                \
        T *work = malloc(sizeof(T) * (size_t)lwork);                                               \
        if (!buf || !tau || !work) {                                                               \
            free(buf);                                                                             \
            free(tau);                                                                             \
            free(work);                                                                            \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        for (int64_t b = 0; b < mats; b++) {                                                       \
            P##_to_col(src + b * m * n, m, n, buf);                                                \
            if (m && n) P##geqrf_(&mi, &nI, buf, &mi, tau, work, &lwork, &info);                   \
            T *ro = (T *)tensor__data(r) + b * rr * n;                                             \
            for (int64_t i = 0; i < rr; i++)                                                       \
                for (int64_t j = 0; j < n; j++) ro[i * n + j] = j >= i ? buf[j * m + i] : (T)0;    \
            if (mode == 3) continue;                                                               \
            /* orgqr needs the qc columns in place: columns past n start as zero reflectors */   \
            for (int64_t j = n; j < qc; j++)                                                       \
                for (int64_t i = 0; i < m; i++) buf[j * m + i] = (T)0;                             \
            if (m && qc) P##orgqr_(&mi, &qi, &ki, buf, &mi, tau, work, &lwork, &info);             \
            P##_from_col(buf, m, qc, m, (T *)tensor__data(q) + b * m * qc);                        \
        }                                                                                          \
        free(buf);                                                                                 \
        free(tau);                                                                                 \
        free(work);                                                                                \
        return 0;                                                                                  \
    }                                                                                              \
    static int P##_svdvals(const Tensor *x, Tensor *r, Tensor *u, Tensor *vh) {                  \
        int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1], k = m < n ? m : n;           \
        int64_t mats = numel_of(x->ndim - 2, x->shape);                                    \
        const T *src = (const T *)tensor__data(x);                                                 \
        T *buf = malloc(sizeof(T) * (size_t)(m * n + 1)), wq = 0, dummy = 0;                       \
        T *ub = u ? malloc(sizeof(T) * (size_t)(m * k + 1)) : &dummy;                             \
        T *vb = u ? malloc(sizeof(T) * (size_t)(k * n + 1)) : &dummy;                             \
        int *iwork = malloc(sizeof(int) * (size_t)(8 * k + 1));                                   \
        const char *jobz = u ? "S" : "N";                                                          \
        int mi = (int)m, nI = (int)n, info = 0, lw = -1, ldu = u ? (int)m : 1, ldv = u ? (int)k : 1; \
        if (!ub || !vb) {                                                                          \
            if (u) {                                                                               \
                free(ub == &dummy ? NULL : ub);                                                    \
                free(vb == &dummy ? NULL : vb);                                                    \
            }                                                                                      \
            free(buf);                                                                             \
            free(iwork);                                                                           \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        if (buf && iwork && k) P##gesdd_(jobz, &mi, &nI, buf, &mi, (T *)tensor__data(r), ub, &ldu, vb, &ldv, &wq, &lw, iwork, &info, 1); \
        int lwork = (int)wq + 1;                                                                   \
        T *work = malloc(sizeof(T) * (size_t)lwork);                                               \
        if (!buf || !iwork || !work) {                                                             \
            free(buf);                                                                             \
            free(iwork);                                                                           \
            free(work);                                                                            \
            if (u) {                                                                               \
                free(ub);                                                                          \
                free(vb);                                                                          \
            }                                                                                      \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        for (int64_t b = 0; b < mats && k; b++) {                                                  \
            P##_to_col(src + b * m * n, m, n, buf);                                                \
            P##gesdd_(jobz, &mi, &nI, buf, &mi, (T *)tensor__data(r) + b * k, ub, &ldu, vb, &ldv, work, &lwork, \
                      iwork, &info, 1);                                                            \
            if (u && info == 0) {                                                                  \
                P##_from_col(ub, m, k, m, (T *)tensor__data(u) + b * m * k);                       \
                P##_from_col(vb, k, n, k, (T *)tensor__data(vh) + b * k * n);                      \
            }                                                                                      \
            if (info > 0) {                                                                        \
                tensor_error_set(TENSOR_ERR_LINALG, "linalg.svd: The algorithm failed to converge because the input " \
                                 "matrix is ill-conditioned or has too many repeated singular values (error code: %d).", info); \
                free(buf);                                                                         \
                free(iwork);                                                                       \
                free(work);                                                                        \
                if (u) {                                                                           \
                    free(ub);                                                                      \
                    free(vb);                                                                      \
                }                                                                                  \
                return -1;                                                                         \
            }                                                                                      \
        }                                                                                          \
        free(buf);                                                                                 \
        free(iwork);                                                                               \
        free(work);                                                                                \
        if (u) {                                                                                   \
            free(ub);                                                                              \
            free(vb);                                                                              \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    /* X = A^-1 B (left) or B A^-1 (right) with BLAS trsm on row-major copies, batches broadcast */ \
    static void P##_trsolve(const Tensor *A, const Tensor *B, Tensor *X, const TensorOpArgs *a) {  \
        int bnd = X->ndim - 2;                                                                     \
        int64_t n = A->shape[A->ndim - 1], br = X->shape[bnd], bc = X->shape[bnd + 1];             \
        int64_t mats = numel_of(bnd, X->shape);                                            \
        const T *ad = (const T *)tensor__data(A), *bd = (const T *)tensor__data(B);                \
        T *xd = (T *)tensor__data(X);                                                              \
        for (int64_t b = 0; b < mats; b++) {                                                       \
            const T *am = ad + batch_offset(b, bnd, X->shape, A) * n * n;                          \
            const T *bm = bd + batch_offset(b, bnd, X->shape, B) * br * bc;                        \
            T *xm = xd + b * br * bc;                                                              \
            memcpy(xm, bm, sizeof(T) * (size_t)(br * bc));                                         \
            if (br && bc)                                                                          \
                CB(CblasRowMajor, a->accumulate ? CblasRight : CblasLeft, a->has_min ? CblasUpper : CblasLower, \
                   CblasNoTrans, a->has_max ? CblasUnit : CblasNonUnit, (int)br, (int)bc, (T)1, am, (int)n, xm, (int)bc); \
        }                                                                                          \
    }

LAPACK_KERNELS(float, s, cblas_strsm)
LAPACK_KERNELS(double, d, cblas_dtrsm)

#endif

int tensor__run_lapack(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_out;
    TensorMeta m[3], xm[2];
    const TensorMeta *mi[2];
    for (int i = 0; i < n && i < 2; i++) {
        tensor_meta_of(in[i], &xm[i]);
        mi[i] = &xm[i];
    }
    int no = tensor__infer_lapack(op, mi, n, a, m, 3);
    if (no < 0) return -1;
#ifndef EMBER_HAVE_LAPACK
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s needs LAPACK, which this build's BLAS library does not provide",
                     op_label(op));
    return -1;
#else
    Tensor *x = tensor_contiguous(in[0]), *y = n > 1 ? tensor_contiguous(in[1]) : NULL;
    Tensor *r0 = NULL, *r1 = NULL, *r2 = NULL;
    int rc = -1;
    if (!x || (n > 1 && !y)) goto done;
    r0 = tensor__new_from_meta(&m[0], false);
    r1 = no > 1 ? tensor__new_from_meta(&m[1], false) : NULL;
    r2 = no > 2 ? tensor__new_from_meta(&m[2], false) : NULL;
    if (!r0 || (no > 1 && !r1) || (no > 2 && !r2)) goto done;
    bool dbl = x->dtype == TENSOR_FLOAT64;
    switch (op) {
    case TENSOR_OP_CHOLESKY: rc = dbl ? d_cholesky(x, r0, a->has_max) : s_cholesky(x, r0, a->has_max); break;
    case TENSOR_OP_LINALG_INV: case TENSOR_OP_LINALG_DET: case TENSOR_OP_LINALG_SLOGDET:
        rc = dbl ? d_lu_each(x, r0, r1, op) : s_lu_each(x, r0, r1, op);
        break;
    case TENSOR_OP_LINALG_QR: rc = dbl ? d_qr(x, r0, r1, (int)a->step) : s_qr(x, r0, r1, (int)a->step); break;
    case TENSOR_OP_LINALG_SVDVALS: rc = dbl ? d_svdvals(x, r0, NULL, NULL) : s_svdvals(x, r0, NULL, NULL); break;
    case TENSOR_OP_LINALG_SVD: rc = dbl ? d_svdvals(x, r1, r0, r2) : s_svdvals(x, r1, r0, r2); break;
    case TENSOR_OP_TRIANGULAR_SOLVE:
        if (dbl) d_trsolve(x, y, r0, a);
        else s_trsolve(x, y, r0, a);
        rc = 0;
        break;
    default: break;
    }
    if (rc == 0) rc = no;
done:
    tensor_decref(x);
    tensor_decref(y);
    if (rc < 0) {
        tensor_decref(r0);
        tensor_decref(r1);
        tensor_decref(r2);
        return -1;
    }
    out[0] = r0;
    if (no > 1) out[1] = r1;
    if (no > 2) out[2] = r2;
    return no;
#endif
}
