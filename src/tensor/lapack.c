/* lapack.c — linear algebra on OpenBLAS's LAPACK (the kept library, reached through blas_lib.h,
 * which declares its Fortran symbols: there is no LAPACKE header): linalg.cholesky (potrf), solve_triangular (BLAS
 * trsm, which like ATen's does not stop at a zero diagonal), inv (getrf + getrs against the
 * identity), solve (getrf + getrs, as ATen's linalg.solve), det and slogdet (from getrf's LU, as ATen), qr (geqrf +
 * orgqr), svd and svdvals (gesdd, ATen's default driver) and eigh (syevd).  float32 runs the s-routines and float64 the
 * d-routines so results round as PyTorch's; matrices are copied into column-major buffers (what
 * LAPACK reads) one batch element at a time, batch dims broadcast where ATen broadcasts them.
 * Without LAPACK symbols (a plain BLAS build) the ops raise NotImplementedError naming them. */
#include <stdbool.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/blas_lib.h"
#include "src/tensor/dtype.h"
#include "src/tensor/kernels.h"


/* ---- shape inference --------------------------------------------------------------------------- */

static int check_matrix_dims(const char *l, const TensorMeta *x) {
    if (x->ndim < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.", l);
        return -1;
    }
    return 0;
}

static int check_float(const char *l, const TensorMeta *x) {
    if (!tensor__is_float(x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as input. Got %s", l,
                         tensor__cname(x->dtype));
        return -1;
    }
    return 0;
}

static int check_square(const char *l, const TensorMeta *x) {
    if (x->shape[x->ndim - 1] != x->shape[x->ndim - 2]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", l,
                         (long long)x->shape[x->ndim - 2], (long long)x->shape[x->ndim - 1]);
        return -1;
    }
    return 0;
}

static int check_matrix(const char *l, const TensorMeta *x, bool square) {
    if (check_matrix_dims(l, x) < 0 || check_float(l, x) < 0) return -1;
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Low precision dtypes not supported. Got %s", l, tensor__cname(x->dtype));
        return -1;
    }
    return square ? check_square(l, x) : 0;
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

/* square batches (cholesky, inv): the input's shape */
TENSOR_INFER(cholesky) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (check_matrix("linalg.cholesky", in[0], true) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}

TENSOR_INFER(linalg_inv) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (check_matrix("linalg.inv", in[0], true) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}

TENSOR_INFER(linalg_det) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (check_matrix("linalg.det", in[0], true) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim - 2, in[0]->shape);
    return 1;
}

TENSOR_INFER(linalg_slogdet) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (check_matrix("linalg.slogdet", in[0], true) < 0) return -1;
    tensor__meta_contiguous(&out[0], in[0]->dtype, in[0]->ndim - 2, in[0]->shape);
    tensor__meta_contiguous(&out[1], in[0]->dtype, in[0]->ndim - 2, in[0]->shape);
    return 2;
}

/* linalg.svd's checks in ATen's order: dims, a float dtype, then its kernel's dtypes (no half) */
static int check_svd(const TensorMeta *x) {
    if (check_matrix_dims("linalg.svd", x) < 0 || check_float("linalg.svd", x) < 0) return -1;
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"linalg_svd_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    return 0;
}

/* (*, k) singular values, k = min(m, n) */
TENSOR_INFER(linalg_svdvals) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0];
    if (check_svd(x) < 0) return -1;
    int nd = x->ndim;
    int64_t shape[TENSOR_MAX_DIMS], rows = x->shape[nd - 2], cols = x->shape[nd - 1];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
    shape[nd - 2] = rows < cols ? rows : cols;
    tensor__meta_contiguous(out, x->dtype, nd - 1, shape);
    return 1;
}

/* U (*, m, k), S (*, k), Vh (*, k, n); full_matrices (has_max): U (*, m, m), Vh (*, n, n) */
TENSOR_INFER(linalg_svd) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (check_svd(x) < 0) return -1;
    int nd = x->ndim;
    int64_t shape[TENSOR_MAX_DIMS], rows = x->shape[nd - 2], cols = x->shape[nd - 1], k = rows < cols ? rows : cols;
    bool full = a->has_max;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
    shape[nd - 1] = full ? rows : k;
    tensor__meta_contiguous(&out[0], x->dtype, nd, shape);
    shape[nd - 2] = k;
    tensor__meta_contiguous(&out[1], x->dtype, nd - 1, shape);
    shape[nd - 2] = full ? cols : k;
    shape[nd - 1] = cols;
    tensor__meta_contiguous(&out[2], x->dtype, nd, shape);
    return 3;
}

/* L (*, n) and V (*, n, n) (has_max: the vectors are computed; else V is empty, as ATen's);
 * has_min: the upper triangle is read.  ATen's order: dims, square, then its kernel's dtypes. */
TENSOR_INFER(linalg_eigh) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (check_matrix_dims("linalg.eigh", x) < 0 || check_square("linalg.eigh", x) < 0) return -1;
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"linalg_eigh_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    tensor__meta_contiguous(&out[0], x->dtype, x->ndim - 1, x->shape);
    if (a->has_max) {
        tensor__meta_contiguous(&out[1], x->dtype, x->ndim, x->shape);
    } else {
        int64_t z = 0;
        tensor__meta_contiguous(&out[1], x->dtype, 1, &z);
    }
    return 2;
}

/* (A, P): a copy of P, the pseudo-inverse of A that torch/_mathops.py composed (ops.def) */
TENSOR_INFER(linalg_pinv) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *p = in[1];
    int nd = x->ndim;
    if (nd < 2 || p->ndim != nd || p->dtype != x->dtype || p->shape[nd - 2] != x->shape[nd - 1] ||
        p->shape[nd - 1] != x->shape[nd - 2]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "linalg_pinv: P must be A's pseudo-inverse: a (*, n, m) tensor of A's dtype");
        return -1;
    }
    tensor__meta_contiguous(out, p->dtype, p->ndim, p->shape);
    return 1;
}

TENSOR_RUN(linalg_pinv) {
    (void)n_out;
    TensorMeta m[1], xm[2];
    const TensorMeta *mi[2] = {&xm[0], &xm[1]};
    tensor_meta_of(in[0], &xm[0]);
    tensor_meta_of(in[1], &xm[1]);
    if (tensor__infer_linalg_pinv(op, mi, n_in, a, m, 1) < 0) return -1;
    return (out[0] = tensor_clone(in[1])) ? 1 : -1;
}

/* step 1 reduced: Q (m, k), R (k, n); 2 complete: Q (m, m), R (m, n); 3 r: Q empty, R (k, n) */
TENSOR_INFER(linalg_qr) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (check_matrix("linalg.qr", x, false) < 0) return -1;
    int nd = x->ndim;
    int64_t shape[TENSOR_MAX_DIMS], rows = x->shape[nd - 2], cols = x->shape[nd - 1], k = rows < cols ? rows : cols;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
    int64_t qc = a->step == 2 ? rows : k, rr = a->step == 2 ? rows : k;
    if (a->step == 3) {
        int64_t z = 0;
        tensor__meta_contiguous(&out[0], x->dtype, 1, &z);
    } else {
        shape[nd - 1] = qc;
        tensor__meta_contiguous(&out[0], x->dtype, nd, shape);
    }
    shape[nd - 2] = rr;
    shape[nd - 1] = cols;
    tensor__meta_contiguous(&out[1], x->dtype, nd, shape);
    return 2;
}

/* (A, B): X of B's matrix shape over the broadcast batch */
TENSOR_INFER(triangular_solve) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0], *b = in[1];
    if (check_matrix("linalg.solve_triangular", x, true) < 0) return -1;
    int64_t shape[TENSOR_MAX_DIMS], rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
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
    tensor__meta_contiguous(out, x->dtype, bnd + 2, shape);
    return 1;
}

/* (A, B): X = A^-1 B, or B A^-1 (accumulate); B a batch of n x k matrices or, as NumPy's solve, of
 * n-vectors (B 1-D, or A's shape without its last dim).  The checks and messages in the order of
 * ATen's _linalg_solve_ex meta function. */
static bool solve_vector_rhs(const TensorMeta *A, const TensorMeta *B) {
    if (B->ndim == 1) return true;
    if (B->ndim != A->ndim - 1) return false;
    for (int i = 0; i < B->ndim; i++)
        if (B->shape[i] != A->shape[i]) return false;
    return true;
}

TENSOR_INFER(linalg_solve) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *A = in[0], *B = in[1];
    const char *l = "linalg.solve";
    bool left = !a->accumulate;
    if (!tensor__is_float(A->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as input. Got %s", l,
                         tensor__cname(A->dtype));
        return -1;
    }
    if (B->dtype != A->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead", l,
                         tensor__cname(A->dtype), tensor__cname(B->dtype));
        return -1;
    }
    bool vec = solve_vector_rhs(A, B);
    TensorMeta b = *B; /* B_: a vector as an n x 1 matrix */
    if (vec && b.ndim < TENSOR_MAX_DIMS) b.shape[b.ndim++] = 1;
    if (A->ndim < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.", l);
        return -1;
    }
    int64_t n = A->shape[A->ndim - 1];
    if (A->shape[A->ndim - 2] != n) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", l,
                         (long long)A->shape[A->ndim - 2], (long long)n);
        return -1;
    }
    if (b.ndim < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: The input tensor B must have at least 2 dimensions.", l);
        return -1;
    }
    int64_t br = b.shape[b.ndim - 2], bc = b.shape[b.ndim - 1];
    if ((left ? br : bc) != n) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)",
                         l, left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)br, (long long)bc);
        return -1;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int bnd;
    if (broadcast_batch(&b, A, &bnd, shape) < 0) return -1;
    if (!left && vec) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: Vector broadcasting of the left hand side is not supported for left=False. "
                         "In this case linalg.solve is equivalent to B / A.squeeze(-1)", l);
        return -1;
    }
    if (A->dtype != TENSOR_FLOAT32 && A->dtype != TENSOR_FLOAT64) {
        /* ATen's lu kernel has no half types: its dispatch error */
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"lu_cpu\" not implemented for '%s'", tensor__cname(A->dtype));
        return -1;
    }
    shape[bnd] = br;
    shape[bnd + 1] = bc;
    tensor__meta_contiguous(out, A->dtype, vec ? bnd + 1 : bnd + 2, shape);
    return 1;
}

/* ---- kernels --------------------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_LAPACK

static int64_t numel_of(int nd, const int64_t *shape) {
    int64_t r = 1;
    for (int i = 0; i < nd; i++) r *= shape[i];
    return r;
}

/* the offset (in matrices or vectors) of batch element `b` of the broadcast batch shape in t's
 * own batch, its first tn dims */
static int64_t batch_offset_of(int64_t b, int bnd, const int64_t *bshape, const Tensor *t, int tn) {
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

static int64_t batch_offset(int64_t b, int bnd, const int64_t *bshape, const Tensor *t) {
    return batch_offset_of(b, bnd, bshape, t, t->ndim - 2);
}

static void batch_prefix(char *buf, size_t cap, const Tensor *x, int64_t b) {
    if (x->ndim > 2) snprintf(buf, cap, "(Batch element %lld): ", (long long)b);
    else buf[0] = 0;
}

typedef enum { LU_INV, LU_DET, LU_SLOGDET } LuWhat;

#define TILE 16   /* the transposes' tile: 16 x 16 elements */

#define LAPACK_KERNELS(T, P, CB)                                                                   \
    /* row-major n_r x n_c (at src) <-> column-major buffer (leading dim n_r), in tiles of        \
     * TILE x TILE: a whole column's writes one row apart (n_r * sizeof(T), a power of two for     \
     * the usual sizes) fall in a few cache sets and evicted each other, and the transposes were   \
     * 40% of a 128x128 Cholesky */                                                                \
    static void P##_to_col(const T *src, int64_t n_r, int64_t n_c, T *dst) {                    \
        for (int64_t ib = 0; ib < n_r; ib += TILE)                                                 \
            for (int64_t jb = 0; jb < n_c; jb += TILE)                                             \
                for (int64_t i = ib; i < n_r && i < ib + TILE; i++)                                \
                    for (int64_t j = jb; j < n_c && j < jb + TILE; j++) dst[j * n_r + i] = src[i * n_c + j]; \
    }                                                                                              \
    static void P##_from_col(const T *src, int64_t n_r, int64_t n_c, int64_t ld, T *dst) {      \
        for (int64_t ib = 0; ib < n_r; ib += TILE)                                                 \
            for (int64_t jb = 0; jb < n_c; jb += TILE)                                             \
                for (int64_t i = ib; i < n_r && i < ib + TILE; i++)                                \
                    for (int64_t j = jb; j < n_c && j < jb + TILE; j++) dst[i * n_c + j] = src[j * ld + i]; \
    }                                                                                              \
    /* potrf works in the output itself (no buffer to allocate: a fresh 128 KiB one was mapped   \
     * and faulted in at every call): A column-major there, the factor column-major after, then    \
     * transposed in place with the other triangle zeroed.  The upper factor is potrf's "U" of A,  \
     * as ATen asks for it, not the lower one transposed: the same bits as PyTorch's. */           \
    static int P##_cholesky(const Tensor *x, Tensor *r, bool upper) {                            \
        int64_t n = x->shape[x->ndim - 1], mats = n ? x->numel / (n * n) : 0;                      \
        const T *src = (const T *)tensor__data(x);                                                 \
        T *dst = (T *)tensor__data(r);                                                             \
        int ni = (int)n, info = 0;                                                                 \
        for (int64_t m = 0; m < mats; m++) {                                                       \
            T *out = dst + m * n * n;                                                              \
            P##_to_col(src + m * n * n, n, n, out);                                                \
            BLAS(P##potrf_)(upper ? "U" : "L", &ni, out, &ni, &info, 1);                           \
            if (info > 0) {                                                                        \
                char pre[48];                                                                      \
                batch_prefix(pre, sizeof pre, x, m);                                               \
                tensor_error_set(TENSOR_ERR_LINALG,                                                \
                                 "linalg.cholesky: %sThe factorization could not be completed because the input is not " \
                                 "positive-definite (the leading minor of order %d is not positive-definite).", pre, info); \
                return -1;                                                                         \
            }                                                                                      \
            /* column-major F[i][j] is at j * n + i, where row-major (j, i) is */                  \
            for (int64_t ib = 0; ib < n; ib += TILE)                                               \
                for (int64_t jb = 0; jb <= ib; jb += TILE)                                         \
                    for (int64_t i = ib; i < n && i < ib + TILE; i++)                              \
                        for (int64_t j = jb; j < i && j < jb + TILE; j++) {                        \
                            if (upper) {                                                           \
                                out[j * n + i] = out[i * n + j];                                   \
                                out[i * n + j] = (T)0;                                             \
                            } else {                                                               \
                                out[i * n + j] = out[j * n + i];                                   \
                                out[j * n + i] = (T)0;                                             \
                            }                                                                      \
                        }                                                                          \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    /* LU of each matrix (column-major copy of A itself, as ATen factors it) */                   \
    static int P##_lu_each(const Tensor *x, Tensor *r0, Tensor *r1, LuWhat what) {               \
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
            if (n) BLAS(P##getrf_)(&ni, &ni, buf, &ni, piv, &info);                                      \
            if (what == LU_INV) {                                                                  \
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
                if (n) BLAS(P##getrs_)("N", &ni, &ni, buf, &ni, piv, id, &ni, &info, 1);                 \
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
            if (what == LU_DET) {                                                                  \
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
            BLAS(P##geqrf_)(&mi, &nI, buf, &mi, tau, &wq, &lw, &info);                                   \
            if (mode != 3 && qc) BLAS(P##orgqr_)(&mi, &qi, &ki, buf, &mi, tau, &wq2, &lw, &info);        \
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
            if (m && n) BLAS(P##geqrf_)(&mi, &nI, buf, &mi, tau, work, &lwork, &info);                   \
            T *ro = (T *)tensor__data(r) + b * rr * n;                                             \
            for (int64_t i = 0; i < rr; i++)                                                       \
                for (int64_t j = 0; j < n; j++) ro[i * n + j] = j >= i ? buf[j * m + i] : (T)0;    \
            if (mode == 3) continue;                                                               \
            /* orgqr needs the qc columns in place: columns past n start as zero reflectors */   \
            for (int64_t j = n; j < qc; j++)                                                       \
                for (int64_t i = 0; i < m; i++) buf[j * m + i] = (T)0;                             \
            if (m && qc) BLAS(P##orgqr_)(&mi, &qi, &ki, buf, &mi, tau, work, &lwork, &info);             \
            P##_from_col(buf, m, qc, m, (T *)tensor__data(q) + b * m * qc);                        \
        }                                                                                          \
        free(buf);                                                                                 \
        free(tau);                                                                                 \
        free(work);                                                                                \
        return 0;                                                                                  \
    }                                                                                              \
    /* gesdd as ATen's default driver: jobz "N" (values only, u NULL), "S" (reduced) or "A" (full: U  \
     * m x m, Vh n x n); the workspace from gesdd's own query, one buffer for every batch element.    \
     * An empty matrix's full U and Vh are identities, as ATen fills them. */                       \
    static int P##_svd(const Tensor *x, Tensor *r, Tensor *u, Tensor *vh, bool full) {            \
        int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1], k = m < n ? m : n;           \
        int64_t mats = numel_of(x->ndim - 2, x->shape), uc = full ? m : k, vr = full ? n : k;      \
        const T *src = (const T *)tensor__data(x);                                                 \
        if (k == 0) {                                                                              \
            for (int64_t i = 0; u && i < mats * m * uc; i++)                                       \
                ((T *)tensor__data(u))[i] = (i % (m * uc)) % (uc + 1) == 0 ? (T)1 : (T)0;          \
            for (int64_t i = 0; u && i < mats * vr * n; i++)                                       \
                ((T *)tensor__data(vh))[i] = (i % (vr * n)) % (n + 1) == 0 ? (T)1 : (T)0;          \
            return 0;                                                                              \
        }                                                                                          \
        const char *jobz = !u ? "N" : full ? "A" : "S";                                            \
        int mi = (int)m, nI = (int)n, info = 0, lw = -1, ldu = u ? (int)m : 1, ldv = u ? (int)vr : 1; \
        size_t nu = u ? (size_t)(m * uc + vr * n) : 2;                                             \
        T *buf = malloc(sizeof(T) * ((size_t)(m * n) + nu)), wq = 0;                               \
        int *iwork = malloc(sizeof(int) * (size_t)(8 * k));                                        \
        T *work = NULL, *ub = buf ? buf + m * n : NULL, *vb = u ? ub + m * uc : ub + 1;            \
        if (buf && iwork)                                                                          \
            BLAS(P##gesdd_)(jobz, &mi, &nI, buf, &mi, (T *)tensor__data(r), ub, &ldu, vb, &ldv, &wq, &lw, iwork, &info, 1); \
        int lwork = (int)wq > 1 ? (int)wq : 1;                                                     \
        if (!buf || !iwork || !(work = malloc(sizeof(T) * (size_t)lwork))) {                       \
            free(buf);                                                                             \
            free(iwork);                                                                           \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        int rc = 0;                                                                                \
        for (int64_t b = 0; b < mats; b++) {                                                       \
            P##_to_col(src + b * m * n, m, n, buf);                                                \
            BLAS(P##gesdd_)(jobz, &mi, &nI, buf, &mi, (T *)tensor__data(r) + b * k, ub, &ldu, vb, &ldv, work, &lwork, \
                      iwork, &info, 1);                                                            \
            if (info != 0) {                                                                       \
                /* ATen's messages: a negative info is gesdd's refusal of a NaN (LAPACK 3.10+) */   \
                char pre[48];                                                                      \
                batch_prefix(pre, sizeof pre, x, b);                                               \
                if (info < 0)                                                                      \
                    tensor_error_set(TENSOR_ERR_LINALG, "linalg.svd: %sThe algorithm failed to converge because the " \
                                     "input matrix contained non-finite values.", pre);            \
                else                                                                               \
                    tensor_error_set(TENSOR_ERR_LINALG, "linalg.svd: %sThe algorithm failed to converge because the " \
                                     "input matrix is ill-conditioned or has too many repeated singular values " \
                                     "(error code: %d).", pre, info);                              \
                rc = -1;                                                                           \
                break;                                                                             \
            }                                                                                      \
            if (u) {                                                                               \
                P##_from_col(ub, m, uc, m, (T *)tensor__data(u) + b * m * uc);                     \
                P##_from_col(vb, vr, n, vr, (T *)tensor__data(vh) + b * vr * n);                   \
            }                                                                                      \
        }                                                                                          \
        free(buf);                                                                                 \
        free(iwork);                                                                               \
        free(work);                                                                                \
        return rc;                                                                                 \
    }                                                                                              \
    /* syevd as ATen's linalg.eigh: A copied column-major (V's own layout in ATen), its uplo      \
     * triangle read; jobz "V" leaves the eigenvectors there, "N" only the values.  The           \
     * workspaces from syevd's query. */                                                           \
    static int P##_eigh(const Tensor *x, Tensor *l, Tensor *v, bool upper, bool vectors) {       \
        int64_t n = x->shape[x->ndim - 1], mats = numel_of(x->ndim - 2, x->shape);                 \
        const T *src = (const T *)tensor__data(x);                                                 \
        if (n == 0) return 0;                                                                      \
        const char *jobz = vectors ? "V" : "N", *uplo = upper ? "U" : "L";                         \
        int ni = (int)n, info = 0, lw = -1, liw = -1, iwq = 0;                                     \
        T *buf = malloc(sizeof(T) * (size_t)(n * n)), wq = 0, *work = NULL;                        \
        int *iwork = NULL;                                                                         \
        if (buf) BLAS(P##syevd_)(jobz, uplo, &ni, buf, &ni, (T *)tensor__data(l), &wq, &lw, &iwq, &liw, &info, 1, 1); \
        int lwork = (int)wq > 1 ? (int)wq : 1, liwork = iwq > 1 ? iwq : 1;                          \
        if (!buf || !(work = malloc(sizeof(T) * (size_t)lwork)) || !(iwork = malloc(sizeof(int) * (size_t)liwork))) { \
            free(buf);                                                                             \
            free(work);                                                                            \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        int rc = 0;                                                                                \
        for (int64_t b = 0; b < mats; b++) {                                                       \
            P##_to_col(src + b * n * n, n, n, buf);                                                \
            BLAS(P##syevd_)(jobz, uplo, &ni, buf, &ni, (T *)tensor__data(l) + b * n, work, &lwork, iwork, &liwork, \
                      &info, 1, 1);                                                                \
            if (info > 0) {                                                                        \
                char pre[48];                                                                      \
                batch_prefix(pre, sizeof pre, x, b);                                               \
                tensor_error_set(TENSOR_ERR_LINALG, "linalg.eigh: %sThe algorithm failed to converge because the input " \
                                 "matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).", \
                                 pre, info);                                                       \
                rc = -1;                                                                           \
                break;                                                                             \
            }                                                                                      \
            if (vectors) P##_from_col(buf, n, n, n, (T *)tensor__data(v) + b * n * n);             \
        }                                                                                          \
        free(buf);                                                                                 \
        free(work);                                                                                \
        free(iwork);                                                                               \
        return rc;                                                                                 \
    }                                                                                              \
    /* X of linalg.solve as ATen runs it for a row-major A: the LU of A^T (getrf on A's own        \
     * memory, which LAPACK reads column-major), then getrs with "T" for AX = B and "N" for XA = B   \
     * (there X^T solves A^T X^T = B^T, and X^T column-major is X row-major); has_min (the backward's \
     * A^T) swaps the two.  PyTorch factors A itself when A is not contiguous: such inputs may differ \
     * from its result in the last bits (eager and compiled agree: Ember's inputs are made contiguous \
     * first either way). */                                                                       \
    static int P##_solve(const Tensor *A, const Tensor *B, Tensor *X, const TensorOpArgs *a) {    \
        bool right = a->accumulate, vec = X->ndim == A->ndim - 1;                                  \
        int bnd = vec ? X->ndim - 1 : X->ndim - 2;                                                 \
        int64_t n = A->shape[A->ndim - 1], xr = vec ? n : X->shape[bnd], xc = vec ? 1 : X->shape[bnd + 1]; \
        int64_t mats = numel_of(bnd, X->shape);                                                    \
        const char *trans = !right != a->has_min ? "T" : "N";                                      \
        const T *ad = (const T *)tensor__data(A), *bd = (const T *)tensor__data(B);                \
        T *xd = (T *)tensor__data(X);                                                              \
        T *lu = malloc(sizeof(T) * (size_t)(n * n + xr * xc + 1)), *rhs = lu + n * n;              \
        int *piv = malloc(sizeof(int) * (size_t)(n + 1));                                          \
        if (!lu || !piv) {                                                                         \
            free(lu);                                                                              \
            free(piv);                                                                             \
            return tensor_error_set(TENSOR_ERR_MEMORY, "out of memory"), -1;                       \
        }                                                                                          \
        int ni = (int)n, nrhs = (int)(right ? xr : xc), info = 0;                                  \
        for (int64_t b = 0; b < mats; b++) {                                                       \
            const T *am = ad + batch_offset_of(b, bnd, X->shape, A, A->ndim - 2) * n * n;          \
            const T *bm = bd + batch_offset_of(b, bnd, X->shape, B, vec ? B->ndim - 1 : B->ndim - 2) * xr * xc; \
            T *xm = xd + b * xr * xc;                                                              \
            if (n == 0 || nrhs == 0) continue;                                                     \
            memcpy(lu, am, sizeof(T) * (size_t)(n * n));                                           \
            BLAS(P##getrf_)(&ni, &ni, lu, &ni, piv, &info);                                        \
            if (info > 0) {                                                                        \
                char pre[48];                                                                      \
                batch_prefix(pre, sizeof pre, A, batch_offset_of(b, bnd, X->shape, A, A->ndim - 2)); \
                tensor_error_set(TENSOR_ERR_LINALG,                                                \
                                 "torch.linalg.solve: %sThe solver failed because the input matrix is singular.", pre); \
                free(lu);                                                                          \
                free(piv);                                                                         \
                return -1;                                                                         \
            }                                                                                      \
            if (right) {                                                                           \
                memcpy(xm, bm, sizeof(T) * (size_t)(xr * xc));                                     \
                BLAS(P##getrs_)(trans, &ni, &nrhs, lu, &ni, piv, xm, &ni, &info, 1);               \
            } else {                                                                               \
                P##_to_col(bm, xr, xc, rhs);                                                       \
                BLAS(P##getrs_)(trans, &ni, &nrhs, lu, &ni, piv, rhs, &ni, &info, 1);              \
                P##_from_col(rhs, xr, xc, xr, xm);                                                 \
            }                                                                                      \
        }                                                                                          \
        free(lu);                                                                                  \
        free(piv);                                                                                 \
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

LAPACK_KERNELS(float, s, BLAS(cblas_strsm))
LAPACK_KERNELS(double, d, BLAS(cblas_dtrsm))

#endif

/* one op's kernel on contiguous inputs into fresh outputs (float64: the d-routines) */
typedef int (*LapackKernel)(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl);

static int run_lapack(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, TensorInferFn infer,
                      LapackKernel k, const char *label) {
    TensorMeta m[3], xm[2];
    const TensorMeta *mi[2] = {NULL, NULL};
    for (int i = 0; i < n && i < 2; i++) {
        tensor_meta_of(in[i], &xm[i]);
        mi[i] = &xm[i];
    }
    int no = infer(op, mi, n, a, m, 3);
    if (no < 0) return -1;
#ifndef EMBER_HAVE_LAPACK
    (void)k;
    (void)out;
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s needs LAPACK, which this build's BLAS library does not provide", label);
    return -1;
#else
    (void)label;
    Tensor *x[2] = {NULL, NULL}, *r[3] = {NULL, NULL, NULL};
    int rc = -1;
    for (int i = 0; i < n && i < 2; i++)
        if (!(x[i] = tensor_contiguous(in[i]))) goto done;
    for (int i = 0; i < no; i++)
        if (!(r[i] = tensor__new_from_meta(&m[i], false))) goto done;
    if (k(x, r, a, x[0]->dtype == TENSOR_FLOAT64) < 0) goto done;
    for (int i = 0; i < no; i++) {
        out[i] = r[i];
        r[i] = NULL;
    }
    rc = no;
done:
    for (int i = 0; i < 3; i++) tensor_decref(r[i]);
    for (int i = 0; i < 2; i++) tensor_decref(x[i]);
    return rc;
#endif
}

#ifdef EMBER_HAVE_LAPACK
static int k_cholesky(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    return dbl ? d_cholesky(x[0], r[0], a->has_max) : s_cholesky(x[0], r[0], a->has_max);
}
static int k_inv(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    (void)a;
    return dbl ? d_lu_each(x[0], r[0], NULL, LU_INV) : s_lu_each(x[0], r[0], NULL, LU_INV);
}
static int k_det(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    (void)a;
    return dbl ? d_lu_each(x[0], r[0], NULL, LU_DET) : s_lu_each(x[0], r[0], NULL, LU_DET);
}
static int k_slogdet(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    (void)a;
    return dbl ? d_lu_each(x[0], r[0], r[1], LU_SLOGDET) : s_lu_each(x[0], r[0], r[1], LU_SLOGDET);
}
static int k_qr(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    return dbl ? d_qr(x[0], r[0], r[1], (int)a->step) : s_qr(x[0], r[0], r[1], (int)a->step);
}
static int k_svdvals(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    (void)a;
    return dbl ? d_svd(x[0], r[0], NULL, NULL, false) : s_svd(x[0], r[0], NULL, NULL, false);
}
static int k_svd(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    return dbl ? d_svd(x[0], r[1], r[0], r[2], a->has_max) : s_svd(x[0], r[1], r[0], r[2], a->has_max);
}
static int k_eigh(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    return dbl ? d_eigh(x[0], r[0], r[1], a->has_min, a->has_max) : s_eigh(x[0], r[0], r[1], a->has_min, a->has_max);
}
static int k_trsolve(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    if (dbl) d_trsolve(x[0], x[1], r[0], a);
    else s_trsolve(x[0], x[1], r[0], a);
    return 0;
}
static int k_solve(Tensor *const *x, Tensor **r, const TensorOpArgs *a, bool dbl) {
    return dbl ? d_solve(x[0], x[1], r[0], a) : s_solve(x[0], x[1], r[0], a);
}
#else
#define k_solve NULL
#define k_cholesky NULL
#define k_inv NULL
#define k_det NULL
#define k_slogdet NULL
#define k_qr NULL
#define k_svdvals NULL
#define k_svd NULL
#define k_eigh NULL
#define k_trsolve NULL
#endif

TENSOR_RUN(cholesky) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_cholesky, k_cholesky, "linalg.cholesky");
}
TENSOR_RUN(linalg_inv) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_inv, k_inv, "linalg.inv");
}
TENSOR_RUN(linalg_det) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_det, k_det, "linalg.det");
}
TENSOR_RUN(linalg_slogdet) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_slogdet, k_slogdet, "linalg.slogdet");
}
TENSOR_RUN(linalg_qr) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_qr, k_qr, "linalg.qr");
}
TENSOR_RUN(linalg_svdvals) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_svdvals, k_svdvals, "linalg.svdvals");
}
TENSOR_RUN(linalg_svd) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_svd, k_svd, "linalg.svd");
}
TENSOR_RUN(linalg_eigh) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_eigh, k_eigh, "linalg.eigh");
}
TENSOR_RUN(triangular_solve) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_triangular_solve, k_trsolve, "linalg.solve_triangular");
}
TENSOR_RUN(linalg_solve) {
    (void)n_out;
    return run_lapack(op, in, n_in, a, out, tensor__infer_linalg_solve, k_solve, "linalg.solve");
}
