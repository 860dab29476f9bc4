/* layer_norm_rows.c — one row of layer_norm's forward in PyTorch 1.13's order, so a transformer's
 * printed loss has PyTorch's last digit: the row's moments as ATen's RowwiseMoments computes them
 * (ATen/native/cpu/moments_utils.h) and the affine map of LayerNormKernelImplInternal
 * (cpu/layer_norm_kernel.cpp).
 *
 * RowwiseMoments: the row's first n = N / L whole vectors of L lanes (8 floats, 4 doubles) in
 * chunks of 16 vectors; each chunk runs Welford's update per lane from zero (delta = x - m1,
 * m1 += delta / (j + 1) with the reciprocal precomputed, m2 += delta * (x - m1)), then joins a
 * cascade of partial moments (level 0, carried up a level whenever the chunk count's low bits
 * say so, the levels finally folded into level 0) by AddMoments' parallel-variance formula; the
 * N % L leftover elements run Welford alone, and each lane's moments are added to theirs.  The
 * variance is m2 / N.  Then rstd = 1 / sqrt(var + eps), and y = (x * rstd + (-rstd * mean)) *
 * weight + bias.  All in the element type.
 *
 * ATen's cpu/ kernels are built with FMA, and GCC contracts a product feeding an add into one
 * fused multiply-add: those steps are fused here too (and not on a CPU without AVX2 + FMA, where
 * PyTorch runs its DEFAULT kernels).
 *
 * The lanes are first written as scalar C (LN_ROW, LN_BW: the reference, and the code for rows
 * shorter than L and for CPUs without AVX2 + FMA); LN_AVX2 runs the same steps on AVX2 vectors,
 * vector lane k being lane k, so it gives the same bits (checked bit for bit against the scalar
 * rows over random shapes and values). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/tensor/aten_order.h"
#include "src/tensor/nn.h"
#include "src/tensor/vmath.h"

enum { LN_CHUNK = 16, LN_MAX_DEPTH = 64 };

static int64_t ceil_log2(int64_t x) {
    int64_t r = 0;
    while (((int64_t)1 << r) < x) r++;
    return r;
}

#define LN_ROW(SUF, T, L, FMA)                                                                               \
    /* AddMoments / AddMomentsVec for one lane: (m0_add, m1_add, m2_add) into (m0, m1, m2) */              \
    static inline __attribute__((always_inline)) void add_moments_##SUF(int64_t m0_add, T m1_add, T m2_add,    \
                                                                       int64_t *m0, T *m1, T *m2) {          \
        int64_t n = *m0 + m0_add;                                                                            \
        T c = n == 0 ? (T)0 : (T)m0_add / (T)n;                                                              \
        T delta = m1_add - *m1;                                                                              \
        *m1 = *m1 + c * delta;                                                                               \
        *m2 = *m2 + (m2_add + delta * delta * c * (T)*m0);                                                   \
        *m0 = n;                                                                                             \
    }                                                                                                        \
    /* the N % L leftover elements by Welford alone, then each lane's moments (l1, l2: the n whole  \
     * vectors' per-lane means and sums of squares) added to theirs: the mean and variance */          \
    static inline __attribute__((always_inline)) void moments_finish_##SUF(const T *x, int64_t n, int64_t N,  \
                                                                          const T *l1, const T *l2,          \
                                                                          T *mean, T *var) {                 \
        int64_t m0 = 0;                                                                                      \
        T m1 = 0, m2 = 0;                                                                                    \
        for (int64_t i = n * L; i < N; i++) {                                                                \
            T delta = x[i] - m1;                                                                             \
            ++m0;                                                                                            \
            m1 = m1 + delta / (T)m0;                                                                         \
            m2 = m2 + delta * (x[i] - m1);                                                                   \
        }                                                                                                    \
        for (int k = 0; k < L; k++) add_moments_##SUF(n, l1[k], l2[k], &m0, &m1, &m2);                       \
        *mean = m1;                                                                                          \
        *var = m2 / (T)N;                                                                                    \
    }                                                                                                        \
    static inline __attribute__((always_inline)) void moments_body_##SUF(const T *x, int64_t N,               \
                                                                        T *mean, T *var) {                  \
        int64_t n = N / L, m = (n + LN_CHUNK - 1) / LN_CHUNK, depth = ceil_log2(m);                         \
        int64_t m0_stk[LN_MAX_DEPTH] = {0};                                                                  \
        T m1_stk[LN_MAX_DEPTH][L], m2_stk[LN_MAX_DEPTH][L];                                                  \
        for (int64_t d = 0; d < (depth ? depth : 1); d++)                                                    \
            for (int k = 0; k < L; k++) m1_stk[d][k] = m2_stk[d][k] = 0;                                     \
        for (int64_t i = 0; i < m; i++) {                                                                    \
            const T *xp = x + i * LN_CHUNK * L;                                                              \
            int64_t m0 = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;                          \
            T m1v[L], m2v[L];                                                                                \
            for (int k = 0; k < L; k++) m1v[k] = m2v[k] = 0;                                                 \
            for (int64_t j = 0; j < m0; j++) {                                                               \
                T cj = (T)1 / (T)(j + 1);                                                                    \
                for (int k = 0; k < L; k++) {                                                                \
                    T xv = xp[j * L + k];                                                                    \
                    T delta = xv - m1v[k];                                                                   \
                    m1v[k] = m1v[k] + delta * cj;                                                            \
                    m2v[k] = m2v[k] + delta * (xv - m1v[k]);                                                 \
                }                                                                                            \
            }                                                                                                \
            int64_t s0 = m0_stk[0];                                                                          \
            for (int k = 0; k < L; k++) {                                                                    \
                int64_t c0 = s0;                                                                             \
                add_moments_##SUF(m0, m1v[k], m2v[k], &c0, &m1_stk[0][k], &m2_stk[0][k]);             \
                if (k == L - 1) m0_stk[0] = c0;                                                              \
            }                                                                                                \
            int64_t mask = i + 1;                                                                            \
            for (int64_t j = 1; j < depth && (mask & 1) == 0; ++j) {                                         \
                int64_t sj = m0_stk[j];                                                                      \
                for (int k = 0; k < L; k++) {                                                                \
                    int64_t c0 = sj;                                                                         \
                    add_moments_##SUF(m0_stk[j - 1], m1_stk[j - 1][k], m2_stk[j - 1][k], &c0,         \
                                      &m1_stk[j][k], &m2_stk[j][k]);                                         \
                    if (k == L - 1) m0_stk[j] = c0;                                                          \
                }                                                                                            \
                m0_stk[j - 1] = 0;                                                                           \
                for (int k = 0; k < L; k++) m1_stk[j - 1][k] = m2_stk[j - 1][k] = 0;                         \
                mask >>= 1;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t i = 1; i < depth; i++) {                                                                \
            int64_t s0 = m0_stk[0];                                                                          \
            for (int k = 0; k < L; k++) {                                                                    \
                int64_t c0 = s0;                                                                             \
                add_moments_##SUF(m0_stk[i], m1_stk[i][k], m2_stk[i][k], &c0, &m1_stk[0][k],          \
                                  &m2_stk[0][k]);                                                            \
                if (k == L - 1) m0_stk[0] = c0;                                                              \
            }                                                                                                \
        }                                                                                                    \
        moments_finish_##SUF(x, n, N, m1_stk[0], m2_stk[0], mean, var);                                      \
    }                                                                                                        \
    /* the row's mean and rstd = 1 / sqrt(var + eps) (RowwiseMoments is not contracted in 1.13's    \
     * build: measured, every row's moments match unfused and differ fused) */                            \
    static inline __attribute__((always_inline)) void stats_##SUF(const T *x, int64_t N, double eps, T *mean,  \
                                                                 T *rstd) {                                 \
        T var;                                                                                               \
        moments_body_##SUF(x, N, mean, &var);                                                             \
        *rstd = (T)1 / (T)sqrt((double)(var + (T)eps));                                                      \
    }                                                                                                        \
    static inline __attribute__((always_inline)) void row_body_##SUF(bool fused, const T *x, const T *w,      \
                                                                    const T *b, T *y, int64_t N, double eps, \
                                                                    T *mean_out, T *rstd_out) {             \
        T mean, rstd;                                                                                        \
        stats_##SUF(x, N, eps, &mean, &rstd);                                                                \
        T bias = -rstd * mean;                                                                               \
        for (int64_t j = 0; j < N; j++) {                                                                    \
            T g = w ? w[j] : (T)1, be = b ? b[j] : (T)0;                                                     \
            y[j] = FMA(fused, FMA(fused, x[j], rstd, bias), g, be);                                          \
        }                                                                                                    \
        if (mean_out) *mean_out = mean;                                                                      \
        if (rstd_out) *rstd_out = rstd;                                                                      \
    }                                                                                                        \
    VMATH_AVX2 static void row_fma_##SUF(const T *x, const T *w, const T *b, T *y, int64_t N, double eps,    \
                                         T *mean_out, T *rstd_out) {                                         \
        row_body_##SUF(true, x, w, b, y, N, eps, mean_out, rstd_out);                                        \
    }                                                                                                        \
    static void row_plain_##SUF(const T *x, const T *w, const T *b, T *y, int64_t N, double eps, T *mean_out, \
                                T *rstd_out) {                                                               \
        row_body_##SUF(false, x, w, b, y, N, eps, mean_out, rstd_out);                                       \
    }                                                                                                        \

/* The backward (LayerNormBackwardKernelImplInternal, one thread): per row a = rstd, grad_weight's
 * buffer += dy * (a * x + (-a * mean)) and grad_bias's += dy; ds = sum of dy * x * w and
 * db = sum of dy * w in L lanes (each later product fused into its lane's add) combined as the
 * forward's reductions; b = (db * mean - ds) * a^3 / N, c = -b * mean - db * a / N and
 * dx = a * dy * w + b * x + c, with the contractions the kernel was measured to have (the
 * differential check that fixed each one: 0 of 40 cases differ). */
#define LN_BW(SUF, T, L, FMA, COMBINE)                                                                       \
    static inline __attribute__((always_inline)) T lanes_##SUF(bool fused, const T *a, const T *b, const T *c, \
                                                               int64_t n) {                                  \
        /* the sum of a * b * c (c may be NULL; b NULL: of a alone, never fused) */                          \
        T l[L];                                                                                              \
        _Static_assert(L <= 8, "lanes");                                                                     \
        if (n < L) {                                                                                         \
            T s = b ? (c ? a[0] * b[0] * c[0] : a[0] * b[0]) : a[0];                                         \
            for (int64_t i = 1; i < n; i++) s = s + (b ? (c ? a[i] * b[i] * c[i] : a[i] * b[i]) : a[i]);     \
            return s;                                                                                        \
        }                                                                                                    \
        for (int k = 0; k < L; k++) l[k] = b ? (c ? a[k] * b[k] * c[k] : a[k] * b[k]) : a[k];                \
        int64_t d = L;                                                                                       \
        for (; d < n; d += L)                                                                                \
            for (int k = 0; k < L && d + k < n; k++) {                                                       \
                int64_t i = d + k;                                                                           \
                if (!b) l[k] = l[k] + a[i];                                                                  \
                else if (c) l[k] = FMA(fused, a[i] * b[i], c[i], l[k]);                                      \
                else l[k] = FMA(fused, a[i], b[i], l[k]);                                                    \
            }                                                                                                \
        return COMBINE(l, ln_add_##SUF);                                                                     \
    }                                                                                                        \
    static inline __attribute__((always_inline)) void backward_body_##SUF(                                   \
        bool fused, const T *g, const T *x, const T *w, T *dx, T *dw, T *db, int64_t rows, int64_t N, double eps) { \
        for (int64_t j = 0; j < N; j++) dw[j] = db[j] = 0;                                                   \
        T scale = (T)1 / (T)N;                                                                               \
        for (int64_t i = 0; i < rows; i++) {                                                                 \
            const T *gr = g + i * N, *xr = x + i * N;                                                        \
            T mean, a;                                                                                       \
            stats_##SUF(xr, N, eps, &mean, &a);                                                              \
            T b0 = -a * mean;                                                                                \
            for (int64_t j = 0; j < N; j++) {                                                                \
                dw[j] = FMA(fused, gr[j], FMA(fused, a, xr[j], b0), dw[j]);                                  \
                db[j] = db[j] + gr[j];                                                                       \
            }                                                                                                \
            T ds = lanes_##SUF(fused, gr, xr, w, N);                                                         \
            T dbs = w ? lanes_##SUF(fused, gr, w, NULL, N) : lanes_##SUF(fused, gr, NULL, NULL, N);          \
            T bb = FMA(fused, dbs, mean, -ds) * a * a * a * scale;                                           \
            T c = FMA(fused, -bb, mean, -(dbs * a * scale));                                                 \
            T *dr = dx + i * N;                                                                              \
            for (int64_t j = 0; j < N; j++)                                                                  \
                dr[j] = FMA(fused, bb, xr[j], w ? a * gr[j] * w[j] : a * gr[j]) + c;                         \
        }                                                                                                    \
        for (int64_t j = 0; j < N; j++) {                                                                    \
            dw[j] = (T)0 + dw[j];                                                                            \
            db[j] = (T)0 + db[j];                                                                            \
        }                                                                                                    \
    }                                                                                                        \
    VMATH_AVX2 static void backward_fma_##SUF(const T *g, const T *x, const T *w, T *dx, T *dw, T *db,       \
                                              int64_t rows, int64_t N, double eps) {                        \
        backward_body_##SUF(true, g, x, w, dx, dw, db, rows, N, eps);                                        \
    }                                                                                                        \
    static void backward_plain_##SUF(const T *g, const T *x, const T *w, T *dx, T *dw, T *db, int64_t rows,  \
                                     int64_t N, double eps) {                                                \
        backward_body_##SUF(false, g, x, w, dx, dw, db, rows, N, eps);                                       \
    }                                                                                                        \

static inline float ln_add_f32(float a, float b) { return a + b; }
static inline double ln_add_f64(double a, double b) { return a + b; }

LN_ROW(f32, float, 8, aten_fmaf)
LN_ROW(f64, double, 4, aten_fma)
LN_BW(f32, float, 8, aten_fmaf, aten_combine_f32)
LN_BW(f64, double, 4, aten_fma, aten_combine_f64)

/* The same forward and backward on AVX2 vectors, for rows of at least L elements when the CPU has
 * AVX2 + FMA (as ATen's kernels, which run on such a CPU): RowwiseMoments' lane k is vector lane
 * k (whole vectors only, as the scalar emulation's lanes), AddMoments' per-lane formula is the
 * same expression on the vector with the count's ratio broadcast, and the leftover elements and
 * the final fold of the lanes run the scalar code on the stored lanes; the backward's lane sums
 * take each lane's operands in the scalar order (a partial last vector updates only its first
 * lanes: aten_vkeep) and combine through aten_combine_*; the elementwise steps are the scalar
 * expressions per lane, vfmadd where the scalar form is fused.  So the bits are the scalar
 * rows', which stay the reference (the differential check compares the two) and serve short
 * rows and CPUs without AVX2 + FMA. */
#define LN_AVX2(SUF, T, V, L, FMA)                                                                                  \
    VMATH_AVX2 static inline void add_moments_v_##SUF(int64_t m0_add, V m1_add, V m2_add, int64_t *m0, V *m1,       \
                                                      V *m2) {                                                      \
        int64_t n = *m0 + m0_add;                                                                                   \
        V c = aten_vsplat_##SUF(n == 0 ? (T)0 : (T)m0_add / (T)n);                                                  \
        V delta = m1_add - *m1;                                                                                     \
        *m1 = *m1 + c * delta;                                                                                      \
        *m2 = *m2 + (m2_add + delta * delta * c * aten_vsplat_##SUF((T)*m0));                                       \
        *m0 = n;                                                                                                    \
    }                                                                                                               \
    /* moments_body's order with N >= L */                                                                          \
    VMATH_AVX2 static void stats_avx2_##SUF(const T *x, int64_t N, double eps, T *mean, T *rstd) {                  \
        int64_t n = N / L, m = (n + LN_CHUNK - 1) / LN_CHUNK, depth = ceil_log2(m);                                 \
        int64_t m0_stk[LN_MAX_DEPTH] = {0};                                                                         \
        V m1_stk[LN_MAX_DEPTH], m2_stk[LN_MAX_DEPTH];                                                               \
        for (int64_t d = 0; d < (depth ? depth : 1); d++) m1_stk[d] = m2_stk[d] = aten_vsplat_##SUF(0);             \
        for (int64_t i = 0; i < m; i++) {                                                                           \
            const T *xp = x + i * LN_CHUNK * L;                                                                     \
            int64_t m0 = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;                                 \
            V m1v = aten_vsplat_##SUF(0), m2v = m1v;                                                                \
            for (int64_t j = 0; j < m0; j++) {                                                                      \
                V cj = aten_vsplat_##SUF((T)1 / (T)(j + 1)), xv = aten_vload_##SUF(xp + j * L);                     \
                V delta = xv - m1v;                                                                                 \
                m1v = m1v + delta * cj;                                                                             \
                m2v = m2v + delta * (xv - m1v);                                                                     \
            }                                                                                                       \
            add_moments_v_##SUF(m0, m1v, m2v, &m0_stk[0], &m1_stk[0], &m2_stk[0]);                                  \
            int64_t mask = i + 1;                                                                                   \
            for (int64_t j = 1; j < depth && (mask & 1) == 0; ++j) {                                                \
                add_moments_v_##SUF(m0_stk[j - 1], m1_stk[j - 1], m2_stk[j - 1], &m0_stk[j], &m1_stk[j],            \
                                    &m2_stk[j]);                                                                    \
                m0_stk[j - 1] = 0;                                                                                  \
                m1_stk[j - 1] = m2_stk[j - 1] = aten_vsplat_##SUF(0);                                               \
                mask >>= 1;                                                                                         \
            }                                                                                                       \
        }                                                                                                           \
        for (int64_t i = 1; i < depth; i++)                                                                         \
            add_moments_v_##SUF(m0_stk[i], m1_stk[i], m2_stk[i], &m0_stk[0], &m1_stk[0], &m2_stk[0]);               \
        T l1[L], l2[L];                                                                                             \
        aten_vstore_##SUF(l1, m1_stk[0]);                                                                           \
        aten_vstore_##SUF(l2, m2_stk[0]);                                                                           \
        T var;                                                                                                      \
        moments_finish_##SUF(x, n, N, l1, l2, mean, &var);                                                          \
        *rstd = (T)1 / (T)sqrt((double)(var + (T)eps));                                                             \
    }                                                                                                               \
    VMATH_AVX2 static void row_avx2_##SUF(const T *x, const T *w, const T *b, T *y, int64_t N, double eps,          \
                                          T *mean_out, T *rstd_out) {                                               \
        T mean, rstd;                                                                                               \
        stats_avx2_##SUF(x, N, eps, &mean, &rstd);                                                                  \
        T bias = -rstd * mean;                                                                                      \
        V vr = aten_vsplat_##SUF(rstd), vb = aten_vsplat_##SUF(bias);                                               \
        V one = aten_vsplat_##SUF(1), zero = aten_vsplat_##SUF(0);                                                  \
        int64_t nv = N - N % L, j;                                                                                  \
        for (j = 0; j < nv; j += L) {                                                                               \
            V t = aten_vfma_##SUF(aten_vload_##SUF(x + j), vr, vb);                                                 \
            aten_vstore_##SUF(y + j, aten_vfma_##SUF(t, w ? aten_vload_##SUF(w + j) : one,                          \
                                                     b ? aten_vload_##SUF(b + j) : zero));                          \
        }                                                                                                           \
        for (; j < N; j++)                                                                                          \
            y[j] = FMA(true, FMA(true, x[j], rstd, bias), w ? w[j] : (T)1, b ? b[j] : (T)0);                        \
        if (mean_out) *mean_out = mean;                                                                             \
        if (rstd_out) *rstd_out = rstd;                                                                             \
    }                                                                                                               \
    void tensor__layer_norm_row_##SUF(const T *x, const T *w, const T *b, T *y, int64_t N, double eps,              \
                                      T *mean_out, T *rstd_out) {                                                   \
        if (!tensor__vm_sleef) row_plain_##SUF(x, w, b, y, N, eps, mean_out, rstd_out);                             \
        else if (N >= L) row_avx2_##SUF(x, w, b, y, N, eps, mean_out, rstd_out);                                    \
        else row_fma_##SUF(x, w, b, y, N, eps, mean_out, rstd_out);                                                 \
    }                                                                                                               \
    /* lanes_ with n >= L and fused: the sum of a * b * c (c may be NULL; b NULL: of a alone) */                    \
    VMATH_AVX2 static T lanes_avx2_##SUF(const T *a, const T *b, const T *c, int64_t n) {                           \
        int64_t r = n % L, nv = n - r, d;                                                                           \
        __m256i m = aten_vmask_##SUF(r);                                                                            \
        V l;                                                                                                        \
        if (!b) {                                                                                                   \
            l = aten_vload_##SUF(a);                                                                                \
            for (d = L; d < nv; d += L) l = l + aten_vload_##SUF(a + d);                                            \
            if (r) l = aten_vkeep_##SUF(l, l + aten_vmaskload_##SUF(a + nv, m), m);                                 \
        } else if (c) {                                                                                             \
            l = aten_vload_##SUF(a) * aten_vload_##SUF(b) * aten_vload_##SUF(c);                                    \
            for (d = L; d < nv; d += L)                                                                             \
                l = aten_vfma_##SUF(aten_vload_##SUF(a + d) * aten_vload_##SUF(b + d), aten_vload_##SUF(c + d), l); \
            if (r) {                                                                                                \
                V ab = aten_vmaskload_##SUF(a + nv, m) * aten_vmaskload_##SUF(b + nv, m);                           \
                l = aten_vkeep_##SUF(l, aten_vfma_##SUF(ab, aten_vmaskload_##SUF(c + nv, m), l), m);                \
            }                                                                                                       \
        } else {                                                                                                    \
            l = aten_vload_##SUF(a) * aten_vload_##SUF(b);                                                          \
            for (d = L; d < nv; d += L) l = aten_vfma_##SUF(aten_vload_##SUF(a + d), aten_vload_##SUF(b + d), l);   \
            if (r) {                                                                                                \
                V an = aten_vmaskload_##SUF(a + nv, m), bn = aten_vmaskload_##SUF(b + nv, m);                       \
                l = aten_vkeep_##SUF(l, aten_vfma_##SUF(an, bn, l), m);                                             \
            }                                                                                                       \
        }                                                                                                           \
        return aten_vcombine_##SUF(l, ln_add_##SUF);                                                                \
    }                                                                                                               \
    /* backward_body's order with N >= L and fused */                                                               \
    VMATH_AVX2 static void backward_avx2_##SUF(const T *g, const T *x, const T *w, T *dx, T *dw, T *db,             \
                                               int64_t rows, int64_t N, double eps) {                               \
        int64_t nv = N - N % L, j;                                                                                  \
        for (j = 0; j < N; j++) dw[j] = db[j] = 0;                                                                  \
        T scale = (T)1 / (T)N;                                                                                      \
        for (int64_t i = 0; i < rows; i++) {                                                                        \
            const T *gr = g + i * N, *xr = x + i * N;                                                               \
            T *dr = dx + i * N;                                                                                     \
            T mean, a;                                                                                              \
            stats_avx2_##SUF(xr, N, eps, &mean, &a);                                                                \
            T b0 = -a * mean;                                                                                       \
            V va = aten_vsplat_##SUF(a), vb0 = aten_vsplat_##SUF(b0);                                               \
            for (j = 0; j < nv; j += L) {                                                                           \
                V gv = aten_vload_##SUF(gr + j);                                                                    \
                aten_vstore_##SUF(dw + j, aten_vfma_##SUF(gv, aten_vfma_##SUF(va, aten_vload_##SUF(xr + j), vb0),   \
                                                          aten_vload_##SUF(dw + j)));                               \
                aten_vstore_##SUF(db + j, aten_vload_##SUF(db + j) + gv);                                           \
            }                                                                                                       \
            for (; j < N; j++) {                                                                                    \
                dw[j] = FMA(true, gr[j], FMA(true, a, xr[j], b0), dw[j]);                                           \
                db[j] = db[j] + gr[j];                                                                              \
            }                                                                                                       \
            T ds = lanes_avx2_##SUF(gr, xr, w, N);                                                                  \
            T dbs = w ? lanes_avx2_##SUF(gr, w, NULL, N) : lanes_avx2_##SUF(gr, NULL, NULL, N);                     \
            T bb = FMA(true, dbs, mean, -ds) * a * a * a * scale;                                                   \
            T c = FMA(true, -bb, mean, -(dbs * a * scale));                                                         \
            V vbb = aten_vsplat_##SUF(bb), vc = aten_vsplat_##SUF(c);                                               \
            for (j = 0; j < nv; j += L) {                                                                           \
                V t = va * aten_vload_##SUF(gr + j);                                                                \
                if (w) t = t * aten_vload_##SUF(w + j);                                                             \
                aten_vstore_##SUF(dr + j, aten_vfma_##SUF(vbb, aten_vload_##SUF(xr + j), t) + vc);                  \
            }                                                                                                       \
            for (; j < N; j++) dr[j] = FMA(true, bb, xr[j], w ? a * gr[j] * w[j] : a * gr[j]) + c;                  \
        }                                                                                                           \
        for (j = 0; j < N; j++) {                                                                                   \
            dw[j] = (T)0 + dw[j];                                                                                   \
            db[j] = (T)0 + db[j];                                                                                   \
        }                                                                                                           \
    }                                                                                                               \
    void tensor__layer_norm_backward_##SUF(const T *g, const T *x, const T *w, T *dx, T *dw, T *db, int64_t rows,   \
                                           int64_t N, double eps) {                                                 \
        if (!tensor__vm_sleef) backward_plain_##SUF(g, x, w, dx, dw, db, rows, N, eps);                             \
        else if (N >= L) backward_avx2_##SUF(g, x, w, dx, dw, db, rows, N, eps);                                    \
        else backward_fma_##SUF(g, x, w, dx, dw, db, rows, N, eps);                                                 \
    }

LN_AVX2(f32, float, __m256, 8, aten_fmaf)
LN_AVX2(f64, double, __m256d, 4, aten_fma)
