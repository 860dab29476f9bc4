/* blas.c — matrix products: mm, bmm, mv, dot, addmm, on OpenBLAS through blas_lib.h's table:
 * float32 goes through cblas_sgemm/sgemv/sdot and float64 through cblas_dgemm/dgemv/ddot,
 * reading strided operands in place when they are row- or column-major (a transposed weight
 * costs nothing); bfloat16 runs the float32 path on widened operands and rounds the result
 * (PyTorch's CPU gemm accumulates BFloat16 in float); integers use plain loops in int64 and
 * wrap on store.  float16 and bool have no kernel, as in PyTorch 1.13. */
#include "src/tensor/linalg.h"

#include "src/tensor/blas_lib.h"
#include "src/tensor/isa.h"
#include "src/tensor/parallel.h"

#include <stdio.h>
#include <string.h>


/* Can a (rows x cols) matrix with strides (s0, s1) be handed to BLAS? */
static bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, CBLAS_TRANSPOSE *tr, int64_t *ld) {
    if ((s1 == 1 || cols == 1) && (s0 >= (cols > 1 ? cols : 1) || rows == 1)) {
        *tr = CblasNoTrans;
        *ld = rows == 1 ? (cols > 1 ? cols : 1) : s0;
        if (*ld < cols) *ld = cols;
        return true;
    }
    if ((s0 == 1 || rows == 1) && (s1 >= (rows > 1 ? rows : 1) || cols == 1)) {
        *tr = CblasTrans;
        *ld = cols == 1 ? (rows > 1 ? rows : 1) : s1;
        if (*ld < rows) *ld = rows;
        return true;
    }
    return false;
}

/* The k == 1 product (an outer product: a batch-1 linear layer's weight gradient), one loop per
 * vector instruction set (isa.h); a contiguous row of B gets its own loop so it vectorizes. */
#define OUTER(NAME, T)                                                                                     \
    static inline __attribute__((always_inline)) void NAME##__body(int64_t m, int64_t n, T alpha, const T *A, \
                                                                   int64_t as0, const T *B, int64_t bs1,      \
                                                                   T beta, T *C, int64_t ldc) {               \
        for (int64_t i = 0; i < m; i++) {                                                                  \
            const T ai = A[i * as0];                                                                       \
            T *restrict c = C + i * ldc;                                                                   \
            if (bs1 == 1) {                                                                                \
                const T *restrict b = B;                                                                   \
                if (beta == (T)0 && alpha == (T)1)                                                         \
                    for (int64_t j = 0; j < n; j++) c[j] = ai * b[j];                                      \
                else if (beta == (T)0)                                                                     \
                    for (int64_t j = 0; j < n; j++) c[j] = alpha * (ai * b[j]);                            \
                else                                                                                       \
                    for (int64_t j = 0; j < n; j++) c[j] = alpha * (ai * b[j]) + beta * c[j];              \
            } else if (beta == (T)0 && alpha == (T)1) {                                                    \
                for (int64_t j = 0; j < n; j++) c[j] = ai * B[j * bs1];                                    \
            } else if (beta == (T)0) {                                                                     \
                for (int64_t j = 0; j < n; j++) c[j] = alpha * (ai * B[j * bs1]);                          \
            } else {                                                                                       \
                for (int64_t j = 0; j < n; j++) c[j] = alpha * (ai * B[j * bs1]) + beta * c[j];            \
            }                                                                                              \
        }                                                                                                  \
    }                                                                                                      \
    TENSOR_MULTIVERSION(NAME, (int64_t m, int64_t n, T alpha, const T *A, int64_t as0, const T *B, int64_t bs1, \
                               T beta, T *C, int64_t ldc),                                                 \
                        (m, n, alpha, A, as0, B, bs1, beta, C, ldc))
OUTER(souter, float)
OUTER(douter, double)
#undef OUTER

/* Threads.  A large product is cut into blocks of columns of C (rows when C is narrow), each one
 * single-threaded BLAS call, and the blocks go to the pool (parallel.h).  The cut depends on the
 * shapes alone, never on the thread count: OpenBLAS's kernels round differently for different
 * partitions of one product (measured on this AVX-512 machine, its own threading included), so a
 * thread-count-dependent split would change the bits.  OpenBLAS itself stays at one thread.
 * Blocks are at least GEMM_BLOCK wide and about a quarter of the dimension (a multiple of 64),
 * so one thread pays little for the cut (each block packs A again: 1024^3 costs +4% in 256-wide
 * blocks, +15% in 128-wide ones).  Below GEMM_SPLIT_WORK multiply-adds the product is one call. */
#define GEMM_BLOCK 128
#define GEMM_SPLIT_WORK ((int64_t)1 << 21)

static int64_t gemm_block_width(int64_t dim) {
    int64_t w = ((dim + 3) / 4 + 63) / 64 * 64;
    return w < GEMM_BLOCK ? GEMM_BLOCK : w;
}

/* C (contiguous m x n, row stride ldc) = alpha * A(m x k) B(k x n) + beta * C */
#define GEMM_STRIDED(NAME, T, GEMM, GEMV, OUTER)                              \
typedef struct NAME##_job { \
    CBLAS_TRANSPOSE ta, tb; \
    int64_t m, n, k; \
    T alpha; \
    const T *A; \
    int64_t lda; \
    const T *B; \
    int64_t ldb; \
    T beta; \
    T *C; \
    int64_t ldc; \
    bool by_cols; \
    int64_t width; \
} NAME##_job; \
/* blocks [b, e) of C: `width` columns (or rows) each, one single-threaded BLAS call a block */ \
static void NAME##_blocks(void *vj, int64_t b, int64_t e) { \
    const NAME##_job *j = vj; \
    for (int64_t blk = b; blk < e; blk++) { \
        int64_t s = blk * j->width, len = (j->by_cols ? j->n : j->m) - s; \
        if (len > j->width) len = j->width; \
        if (j->by_cols) \
            GEMM(CblasRowMajor, j->ta, j->tb, (int)j->m, (int)len, (int)j->k, j->alpha, j->A, (int)j->lda, \
                 j->tb == CblasNoTrans ? j->B + s : j->B + s * j->ldb, (int)j->ldb, j->beta, j->C + s, (int)j->ldc); \
        else \
            GEMM(CblasRowMajor, j->ta, j->tb, (int)len, (int)j->n, (int)j->k, j->alpha, \
                 j->ta == CblasNoTrans ? j->A + s * j->lda : j->A + s, (int)j->lda, j->B, (int)j->ldb, j->beta, \
                 j->C + s * j->ldc, (int)j->ldc); \
    } \
} \
static void NAME(int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t as0, int64_t as1, \
                          const T *B, int64_t bs0, int64_t bs1, T beta, T *C, int64_t ldc) { \
    if (m == 0 || n == 0) return; \
    if (k == 0) { \
        for (int64_t i = 0; i < m; i++) \
            for (int64_t j = 0; j < n; j++) C[i * ldc + j] = beta == (T)0 ? (T)0 : beta * C[i * ldc + j]; \
        return; \
    } \
    CBLAS_TRANSPOSE ta, tb; \
    int64_t lda, ldb; \
    /* Degenerate shapes skip sgemm's operand packing and its separate beta pass (they are the \
     * batch-1 products of training: a linear layer's forward and input gradient are matrix- \
     * vector products, its weight gradient an outer product). */ \
    if (k == 1) { \
        TENSOR_ISA_CALL(OUTER, (m, n, alpha, A, as0, B, bs1, beta, C, ldc)); \
        return; \
    } \
    /* Operands BLAS cannot read in place (a broadcast gradient: an expand's zero strides) are \
     * packed first, so the kernel chosen below, and with it the rounding, depends on the shapes \
     * alone: compiled code that materializes such a view gets eager's bits. */ \
    T *ca = NULL, *cb = NULL; \
    if (!blas_layout(m, k, as0, as1, &ta, &lda)) { \
        ca = malloc(sizeof(T) * (size_t)(m * k)); \
        EM_ASSERT(ca, "out of memory packing a gemm operand"); \
        for (int64_t i = 0; i < m; i++) \
            for (int64_t j = 0; j < k; j++) ca[i * k + j] = A[i * as0 + j * as1]; \
        A = ca; \
        ta = CblasNoTrans; \
        lda = k; \
        as0 = k; \
        as1 = 1; \
    } \
    if (!blas_layout(k, n, bs0, bs1, &tb, &ldb)) { \
        cb = malloc(sizeof(T) * (size_t)(k * n)); \
        EM_ASSERT(cb, "out of memory packing a gemm operand"); \
        for (int64_t i = 0; i < k; i++) \
            for (int64_t j = 0; j < n; j++) cb[i * n + j] = B[i * bs0 + j * bs1]; \
        B = cb; \
        tb = CblasNoTrans; \
        ldb = n; \
        bs0 = n; \
        bs1 = 1; \
    } \
    /* A BLAS-readable row (m == 1) or column (n == 1) with k > 1 has a positive step: as1 \
     * (resp. bs0) is the gemv increment. */ \
    if (m == 1) { \
        /* C (1 x n) = alpha * a B + beta * C */ \
        if (tb == CblasNoTrans) \
            GEMV(CblasRowMajor, CblasTrans, (int)k, (int)n, alpha, B, (int)ldb, A, (int)as1, beta, C, 1); \
        else \
            GEMV(CblasRowMajor, CblasNoTrans, (int)n, (int)k, alpha, B, (int)ldb, A, (int)as1, beta, C, 1); \
    } else if (n == 1) { \
        /* C (m x 1) = alpha * A b + beta * C */ \
        if (ta == CblasNoTrans) \
            GEMV(CblasRowMajor, CblasNoTrans, (int)m, (int)k, alpha, A, (int)lda, B, (int)bs0, beta, C, (int)ldc); \
        else \
            GEMV(CblasRowMajor, CblasTrans, (int)k, (int)m, alpha, A, (int)lda, B, (int)bs0, beta, C, (int)ldc); \
    } else if (m * n * k < GEMM_SPLIT_WORK || (n < 2 * GEMM_BLOCK && m < 2 * GEMM_BLOCK)) { \
        GEMM(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc); \
    } else { \
        NAME##_job j = {ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, n >= 2 * GEMM_BLOCK, 0}; \
        int64_t dim = j.by_cols ? n : m; \
        j.width = gemm_block_width(dim); \
        int64_t blocks = (dim + j.width - 1) / j.width; \
        tensor_parallel_for(blocks, 1, NAME##_blocks, &j); \
    } \
    free(ca); \
    free(cb); \
}
GEMM_STRIDED(sgemm_strided, float, BLAS(cblas_sgemm), BLAS(cblas_sgemv), souter)
GEMM_STRIDED(dgemm_strided, double, BLAS(cblas_dgemm), BLAS(cblas_dgemv), douter)
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

static Tensor *bmm_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 3, o->shape, false))) return NULL;
    int64_t m = x->shape[1], k = x->shape[2], n = y->shape[2];
    for (int64_t b = 0; b < x->shape[0]; b++)
        gemm_into(r, b * m * n, x, x->offset + b * x->strides[0], x->strides[1], x->strides[2], m, k, y,
                  y->offset + b * y->strides[0], y->strides[1], y->strides[2], n, 1.0, 0.0);
    return r;
}

static Tensor *mv_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 1, o->shape, false))) return NULL;
    if (o->dtype == TENSOR_FLOAT32 && x->shape[0] > 0 && x->shape[1] > 0 && y->strides[0] > 0) {
        CBLAS_TRANSPOSE tr;
        int64_t ld;
        if (blas_layout(x->shape[0], x->shape[1], x->strides[0], x->strides[1], &tr, &ld)) {
            BLAS(cblas_sgemv)(CblasRowMajor, tr, tr == CblasNoTrans ? (int)x->shape[0] : (int)x->shape[1],
                        tr == CblasNoTrans ? (int)x->shape[1] : (int)x->shape[0], 1.0f, tensor__f32(x), (int)ld,
                        tensor__f32(y), (int)y->strides[0], 0.0f, tensor__f32(r), 1);
            return r;
        }
    }
    gemm_into(r, 0, x, x->offset, x->strides[0], x->strides[1], x->shape[0], x->shape[1], y, y->offset, y->strides[0],
              0, 1, 1.0, 0.0);
    return r;
}

static Tensor *dot_kernel(Tensor *const *in, const TensorOpArgs *a, const TensorMeta *o) {
    (void)a;
    const Tensor *x = in[0], *y = in[1];
    Tensor *r;
    if (!(r = tensor__new(o->dtype, 0, NULL, false))) return NULL;
    if (o->dtype == TENSOR_FLOAT32) {
        if (x->shape[0] && (x->strides[0] <= 0 || y->strides[0] <= 0)) {
            double acc = 0;
            for (int64_t i = 0; i < x->shape[0]; i++)
                acc += (double)tensor__f32(x)[i * x->strides[0]] * tensor__f32(y)[i * y->strides[0]];
            *tensor__f32(r) = (float)acc;
            return r;
        }
        *tensor__f32(r) = x->shape[0] ? BLAS(cblas_sdot)((int)x->shape[0], tensor__f32(x), (int)x->strides[0], tensor__f32(y),
                                                   (int)y->strides[0])
                                      : 0.0f;
    } else if (o->dtype == TENSOR_FLOAT64) {
        const double *px = (const double *)tensor__data(x), *py = (const double *)tensor__data(y);
        double acc = 0;
        if (x->shape[0] && x->strides[0] > 0 && y->strides[0] > 0)
            acc = BLAS(cblas_ddot)((int)x->shape[0], px, (int)x->strides[0], py, (int)y->strides[0]);
        else
            for (int64_t i = 0; i < x->shape[0]; i++) acc += px[i * x->strides[0]] * py[i * y->strides[0]];
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
