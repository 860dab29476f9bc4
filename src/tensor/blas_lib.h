/* blas_lib.h — the OpenBLAS entry points the tensor library calls (CBLAS products and, where the
 * build found them, LAPACK's Fortran routines), reached through one table that is filled from
 * the library the first time a product needs it.
 *
 * Why not link OpenBLAS like any other library: loading it costs about 8 million instructions of
 * symbol relocation plus its thread set-up (callgrind: an empty C program linked with
 * -lopenblas runs 8.1M instructions, without it 0.13M), which was half of Ember's start-up
 * (16M instructions for an empty script), paid by every script, most of which never multiply
 * a matrix or run before their first product.  Loaded on first use, a script pays it at its
 * first product instead, as a CPython script pays for numpy's BLAS at `import numpy`.
 *
 * Use: BLAS(cblas_sgemm)(CblasRowMajor, ...), BLAS(spotrf_)(...).  The members have the
 * library's own names and types (typeof the prototypes below), so a call through the table is
 * checked exactly as a direct call would be.  The table is filled once (pthread_once) and
 * published with release/acquire, so pool workers may make the first call. */
#ifndef EMBER_TENSOR_BLAS_LIB_H
#define EMBER_TENSOR_BLAS_LIB_H

#include <cblas.h>
#include <stdatomic.h>
#include <stddef.h>

/* ---- LAPACK's Fortran interface (column-major; trailing lengths of the character args) -------- */
#ifdef EMBER_HAVE_LAPACK
#define EMBER_LAPACK_DECLS(T, P)                                                                   \
    void P##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t);     \
    void P##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);      \
    void P##getrs_(const char *tr, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, \
                   T *b, const int *ldb, int *info, size_t);                                     \
    void P##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info); \
    void P##orgqr_(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, \
                   const int *lwork, int *info);                                                 \
    void P##gesdd_(const char *jobz, const int *m, const int *n, T *a, const int *lda, T *s, T *u, const int *ldu, \
                   T *vt, const int *ldvt, T *work, const int *lwork, int *iwork, int *info, size_t);          \
    void P##syevd_(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *w, T *work,       \
                   const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t);
EMBER_LAPACK_DECLS(float, s)
EMBER_LAPACK_DECLS(double, d)
#undef EMBER_LAPACK_DECLS
#define EMBER_LAPACK_FUNCTIONS(X)                                                                  \
    X(spotrf_) X(sgetrf_) X(sgetrs_) X(sgeqrf_) X(sorgqr_) X(sgesdd_) X(ssyevd_)                 \
    X(dpotrf_) X(dgetrf_) X(dgetrs_) X(dgeqrf_) X(dorgqr_) X(dgesdd_) X(dsyevd_)
#else
#define EMBER_LAPACK_FUNCTIONS(X)
#endif

/* every symbol the tensor library takes from OpenBLAS */
#define EMBER_BLAS_FUNCTIONS(X)                                                                    \
    X(cblas_sgemm) X(cblas_dgemm) X(cblas_sgemv) X(cblas_dgemv) X(cblas_sdot) X(cblas_ddot)        \
    X(cblas_strsm) X(cblas_dtrsm) X(openblas_set_num_threads) EMBER_LAPACK_FUNCTIONS(X)

typedef struct BlasLib {
#define EMBER_BLAS_MEMBER(f) __typeof__(f) *f;
    EMBER_BLAS_FUNCTIONS(EMBER_BLAS_MEMBER)
#undef EMBER_BLAS_MEMBER
} BlasLib;

/* the filled table once loaded, else NULL (read through tensor__blas) */
extern const BlasLib *_Atomic tensor__blas_table;
/* Load OpenBLAS and fill the table (once); exits the process with a message naming what it
 * tried when the library or one of its symbols cannot be found: an installation fault, as a
 * missing shared library at start-up was before. */
const BlasLib *tensor__blas_load(void);

static inline const BlasLib *tensor__blas(void) {
    const BlasLib *b = atomic_load_explicit(&tensor__blas_table, memory_order_acquire);
    return b ? b : tensor__blas_load();
}

#define BLAS(f) (tensor__blas()->f)

#endif
