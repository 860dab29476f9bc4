/* softmax_rows.c — softmax and log_softmax of one contiguous row, in the order PyTorch 1.13's
 * AVX2 kernels compute them (aten/src/ATen/native/cpu/SoftMaxKernel.cpp, _vec_softmax_lastdim
 * and _vec_log_softmax_lastdim, over ATen/cpu/vec/functional_base.h's reduce_all and
 * map_reduce_all), so a loss printed with .item() has PyTorch's last digit.
 *
 * What that order is, for a row of n values and vectors of L lanes (8 floats, 4 doubles):
 *   - a reduction (the max; the sum of exp(x - max)) keeps L lane accumulators: lane k starts at
 *     element k and takes k + L, k + 2L, ... in turn; a partial last vector updates only its
 *     first lanes.  The lanes then combine: floats by AVX2's shuffle tree,
 *     ((l0 . l4) . (l2 . l6)) . ((l1 . l5) . (l3 . l7)); doubles lane after lane,
 *     ((l0 . l1) . l2) . l3.  A row shorter than L combines its elements one after another.
 *   - the max is vec::maximum: x86's max (a > b ? a : b), NaN when either side is NaN.
 *   - sums, differences, exp and log are the element type's own (float rows stay float); exp
 *     and log are Sleef's lanes (vmath.h), as Vectorized<T>::exp / log.
 *   - softmax: y = exp(x - max), sum over y, then y * (1 / sum);
 *     log_softmax: y = (x - max) - log(sum of exp(x - max)).
 * The compiled backend's fused row groups (runtime/fuse.c) call the float row, so compiled
 * softmax gives eager's bits.  y may be x: every element is read before it is written. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/tensor/aten_order.h"
#include "src/tensor/nn.h"
#include "src/tensor/vmath.h"

/* ---- float32 rows on AVX2 vectors -------------------------------------------------------------
 * The same operations per lane as the scalar rows below (which are the reference and the path
 * of CPUs without AVX2 + FMA), on __m256: lane k of a vector holds element d + k, a partial last
 * vector updates only its first lanes (a blend), Sleef's 8-lane exp (each lane the purecfma
 * scalar's bits: vmath.h), x86's max with NaN made NaN as max_f32 does, and the lanes combined
 * by aten_combine_f32.  So each row's bits are the scalar row's; only the speed differs (one
 * Sleef call per eight elements instead of one per element).  Rows shorter than 8 stay scalar. */
static inline float vmax_scalar_f32(float a, float b) { return (a != a || b != b) ? (float)NAN : (a > b ? a : b); }
static inline float vadd_scalar_f32(float a, float b) { return a + b; }

VMATH_AVX2 static inline __m256 vmax_f32(__m256 a, __m256 b) {
    __m256 m = _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ));   /* a > b ? a : b */
    return _mm256_blendv_ps(m, _mm256_set1_ps(NAN), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
}

/* lanes [0, r) set, the others clear: the partial last vector's live lanes */
VMATH_AVX2 static inline __m256i vlive_f32(int64_t r) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

VMATH_AVX2 static float vreduce_combine_f32(__m256 v, float (*op)(float, float)) {
    float lane[8];
    _mm256_storeu_ps(lane, v);
    return aten_combine_f32(lane, op);
}

/* reduce_f32 of the scalar rows on vectors: max (exp_sub false) or the sum of exp(x - sub) */
VMATH_AVX2 static float vreduce_f32(const float *x, int64_t n, bool is_max, bool exp_sub, float sub) {
    __m256 vs = _mm256_set1_ps(sub);
    __m256 acc = _mm256_loadu_ps(x);
    if (exp_sub) acc = tensor__vexpf8(_mm256_sub_ps(acc, vs));
    int64_t d = 8;
    for (; d < n - n % 8; d += 8) {
        __m256 v = _mm256_loadu_ps(x + d);
        if (exp_sub) v = tensor__vexpf8(_mm256_sub_ps(v, vs));
        acc = is_max ? vmax_f32(acc, v) : _mm256_add_ps(acc, v);
    }
    if (d < n) {
        __m256i live = vlive_f32(n - d);
        __m256 v = _mm256_maskload_ps(x + d, live);
        if (exp_sub) v = tensor__vexpf8(_mm256_sub_ps(v, vs));
        __m256 upd = is_max ? vmax_f32(acc, v) : _mm256_add_ps(acc, v);
        acc = _mm256_blendv_ps(acc, upd, _mm256_castsi256_ps(live));
    }
    return vreduce_combine_f32(acc, is_max ? vmax_scalar_f32 : vadd_scalar_f32);
}

VMATH_AVX2 static void softmax_row_vec_f32(const float *x, float *y, int64_t n, bool log_mode) {
    float mx = vreduce_f32(x, n, true, false, 0);
    __m256 vmx = _mm256_set1_ps(mx);
    int64_t d = 0;
    if (log_mode) {
        float lse = tensor__vlogf(vreduce_f32(x, n, false, true, mx));
        __m256 vl = _mm256_set1_ps(lse);
        for (; d < n - n % 8; d += 8)
            _mm256_storeu_ps(y + d, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + d), vmx), vl));
        for (; d < n; d++) y[d] = x[d] - mx - lse;
        return;
    }
    for (; d < n - n % 8; d += 8) _mm256_storeu_ps(y + d, tensor__vexpf8(_mm256_sub_ps(_mm256_loadu_ps(x + d), vmx)));
    for (; d < n; d++) y[d] = tensor__vexpf(x[d] - mx);
    float inv = 1.0f / vreduce_f32(y, n, false, false, 0);
    __m256 vi = _mm256_set1_ps(inv);
    for (d = 0; d < n - n % 8; d += 8) _mm256_storeu_ps(y + d, _mm256_mul_ps(_mm256_loadu_ps(y + d), vi));
    for (; d < n; d++) y[d] *= inv;
}

/* softmax_bw_row_body_f32 with fused = true, on vectors */
VMATH_AVX2 static void softmax_bw_row_vec_f32(const float *g, const float *y, float *o, int64_t n, bool log_mode) {
    int64_t d = 0;
    if (log_mode) {
        __m256 vs = _mm256_set1_ps(vreduce_f32(g, n, false, false, 0));
        float s = _mm256_cvtss_f32(vs);
        for (; d < n - n % 8; d += 8)   /* fma(-exp(y), s, g): vfnmadd's -(e * s) + g, one rounding */
            _mm256_storeu_ps(o + d, _mm256_fnmadd_ps(tensor__vexpf8(_mm256_loadu_ps(y + d)), vs, _mm256_loadu_ps(g + d)));
        for (; d < n; d++) o[d] = __builtin_fmaf(-tensor__vexpf(y[d]), s, g[d]);
        return;
    }
    __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(g), _mm256_loadu_ps(y));
    for (d = 8; d < n - n % 8; d += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(g + d), _mm256_loadu_ps(y + d), acc);
    if (d < n) {
        __m256i live = vlive_f32(n - d);
        __m256 upd = _mm256_fmadd_ps(_mm256_maskload_ps(g + d, live), _mm256_maskload_ps(y + d, live), acc);
        acc = _mm256_blendv_ps(acc, upd, _mm256_castsi256_ps(live));
    }
    float s = vreduce_combine_f32(acc, vadd_scalar_f32);
    __m256 vs = _mm256_set1_ps(s);
    for (d = 0; d < n - n % 8; d += 8)
        _mm256_storeu_ps(o + d, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(g + d), vs), _mm256_loadu_ps(y + d)));
    for (; d < n; d++) o[d] = (g[d] - s) * y[d];
}

/* which rows take the vectors: float32 rows of 8 or more on a CPU with AVX2 + FMA */
#define SOFTMAX_VEC_f32(n) (tensor__vm_sleef && (n) >= 8)
#define SOFTMAX_VEC_f64(n) false
#define softmax_row_vec_f64(x, y, n, log_mode) ((void)0)
#define softmax_bw_row_vec_f64(g, y, o, n, log_mode) ((void)0)

#define SOFTMAX_ROW(SUF, T, L, EXP, LOG, FMA, COMBINE)                                                        \
    static inline T max_##SUF(T a, T b) { return (a != a || b != b) ? (T)NAN : (a > b ? a : b); }        \
    static inline T add_##SUF(T a, T b) { return a + b; }                                                \
    /* reduce_all / map_reduce_all: (x[i] - sub) mapped by f when f is not NULL */                        \
    static T reduce_##SUF(const T *x, int64_t n, T (*op)(T, T), T (*f)(T), T sub) {                       \
        if (n < L) {                                                                                     \
            T acc = f ? f(x[0] - sub) : x[0];                                                            \
            for (int64_t i = 1; i < n; i++) acc = op(acc, f ? f(x[i] - sub) : x[i]);                     \
            return acc;                                                                                  \
        }                                                                                                \
        T lane[L];                                                                                       \
        for (int k = 0; k < L; k++) lane[k] = f ? f(x[k] - sub) : x[k];                                  \
        int64_t d = L;                                                                                   \
        for (; d < n - n % L; d += L)                                                                    \
            for (int k = 0; k < L; k++) lane[k] = op(lane[k], f ? f(x[d + k] - sub) : x[d + k]);         \
        for (int k = 0; d + k < n; k++) lane[k] = op(lane[k], f ? f(x[d + k] - sub) : x[d + k]);         \
        return COMBINE(lane, op);                                                                        \
    }                                                                                                    \
    void tensor__softmax_row_##SUF(const T *x, T *y, int64_t n, bool log_mode) {                         \
        if (n <= 0) return;                                                                              \
        if (SOFTMAX_VEC_##SUF(n)) {                                                                      \
            softmax_row_vec_##SUF(x, y, n, log_mode);                                                    \
            return;                                                                                      \
        }                                                                                                \
        T mx = reduce_##SUF(x, n, max_##SUF, NULL, 0);                                                   \
        if (log_mode) {                                                                                  \
            T lse = LOG(reduce_##SUF(x, n, add_##SUF, EXP, mx));                                         \
            for (int64_t i = 0; i < n; i++) y[i] = x[i] - mx - lse;                                      \
        } else {                                                                                         \
            for (int64_t i = 0; i < n; i++) y[i] = EXP(x[i] - mx);                                       \
            T inv = (T)1 / reduce_##SUF(y, n, add_##SUF, NULL, 0);                                       \
            for (int64_t i = 0; i < n; i++) y[i] *= inv;                                                 \
        }                                                                                                \
    }                                                                                                    \
    /* _vec_host_softmax_backward_lastdim, compiled (as all of ATen's cpu/ kernels) with FMA and   \
     * GCC's default contraction, which fuses a product feeding an add into one rounding:          \
     * log_softmax: s = sum of g, gi = g - exp(y) * s as one fma; softmax: s = the lanes' sums of  \
     * g * y, each later product fused into its lane's add (the first vector's and a short row's \
     * products rounded alone), gi = (g - s) * y.  Without FMA (PyTorch's DEFAULT kernels) nothing \
     * is fused: `fused` says which (aten_order.h). */                                                \
    static inline __attribute__((always_inline)) void softmax_bw_row_body_##SUF(                         \
        const T *g, const T *y, T *o, int64_t n, bool log_mode, bool fused) {                           \
        if (n <= 0) return;                                                                              \
        if (log_mode) {                                                                                  \
            T s = reduce_##SUF(g, n, add_##SUF, NULL, 0);                                                \
            for (int64_t i = 0; i < n; i++) o[i] = FMA(fused, -EXP(y[i]), s, g[i]);                      \
            return;                                                                                      \
        }                                                                                                \
        T s;                                                                                             \
        if (n < L) {                                                                                     \
            s = g[0] * y[0];                                                                             \
            for (int64_t i = 1; i < n; i++) s = s + g[i] * y[i];                                         \
        } else {                                                                                         \
            T lane[L];                                                                                   \
            for (int k = 0; k < L; k++) lane[k] = g[k] * y[k];                                           \
            int64_t d = L;                                                                               \
            for (; d < n - n % L; d += L)                                                                \
                for (int k = 0; k < L; k++) lane[k] = FMA(fused, g[d + k], y[d + k], lane[k]);           \
            for (int k = 0; d + k < n; k++) lane[k] = FMA(fused, g[d + k], y[d + k], lane[k]);           \
            s = COMBINE(lane, add_##SUF);                                                                \
        }                                                                                                \
        for (int64_t i = 0; i < n; i++) o[i] = (g[i] - s) * y[i];                                        \
    }                                                                                                    \
    VMATH_AVX2 static void softmax_bw_row_fma_##SUF(const T *g, const T *y, T *o, int64_t n, bool log_mode) { \
        softmax_bw_row_body_##SUF(g, y, o, n, log_mode, true);                                           \
    }                                                                                                    \
    static void softmax_bw_row_plain_##SUF(const T *g, const T *y, T *o, int64_t n, bool log_mode) {     \
        softmax_bw_row_body_##SUF(g, y, o, n, log_mode, false);                                          \
    }                                                                                                    \
    void tensor__softmax_bw_row_##SUF(const T *g, const T *y, T *o, int64_t n, bool log_mode) {          \
        if (SOFTMAX_VEC_##SUF(n)) softmax_bw_row_vec_##SUF(g, y, o, n, log_mode);                        \
        else if (tensor__vm_sleef) softmax_bw_row_fma_##SUF(g, y, o, n, log_mode);                       \
        else softmax_bw_row_plain_##SUF(g, y, o, n, log_mode);                                           \
    }

SOFTMAX_ROW(f32, float, 8, tensor__vexpf, tensor__vlogf, aten_fmaf, aten_combine_f32)
SOFTMAX_ROW(f64, double, 4, tensor__vexp, tensor__vlog, aten_fma, aten_combine_f64)

/* Softmax over a dim that is not the last (inner > 1 elements apart), as 1.13's _vec_softmax and
 * _vec_logsoftmax: each column (outer, inner index) alone, in runs of L columns that vectorise,
 * the last inner % L columns of each outer row as the scalar tail.  Per column: the max down
 * the dim (softmax: vec::maximum, or std::max in the tail; log_softmax: x > m ? x : m), the sum
 * of exp(x - max) from 0 in dim order (a vector column's exp is Sleef's, a tail column's is
 * libm's std::exp), then softmax divides each exp by the sum and log_softmax subtracts the max
 * and Sleef's log of the sum. */
#define SOFTMAX_COLS(SUF, T, L, VEXP, LIBEXP, LOG, FMA)                                                       \
    void tensor__softmax_cols_##SUF(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, bool log_mode) { \
        int64_t vec_cols = inner - inner % L;                                                            \
        for (int64_t o = 0; o < outer; o++)                                                              \
            for (int64_t c = 0; c < inner; c++) {                                                        \
                const T *xc = x + o * n * inner + c;                                                     \
                T *yc = y + o * n * inner + c;                                                           \
                bool vec = c < vec_cols;                                                                 \
                T mx = xc[0];                                                                            \
                if (log_mode) mx = xc[0] > (T)-INFINITY ? xc[0] : (T)-INFINITY;                          \
                for (int64_t d = 1; d < n; d++) {                                                        \
                    T v = xc[d * inner];                                                                 \
                    if (log_mode) mx = v > mx ? v : mx;                                                  \
                    else if (vec) mx = max_##SUF(mx, v);                                                 \
                    else mx = mx < v ? v : mx;                                                           \
                }                                                                                        \
                T sum = 0;                                                                               \
                for (int64_t d = 0; d < n; d++) {                                                        \
                    T e = vec ? VEXP(xc[d * inner] - mx) : LIBEXP(xc[d * inner] - mx);                   \
                    if (!log_mode) yc[d * inner] = e;                                                    \
                    sum = sum + e;                                                                       \
                }                                                                                        \
                if (log_mode) {                                                                          \
                    T lse = LOG(sum);                                                                    \
                    for (int64_t d = 0; d < n; d++) yc[d * inner] = xc[d * inner] - mx - lse;            \
                } else {                                                                                 \
                    for (int64_t d = 0; d < n; d++) yc[d * inner] = yc[d * inner] / sum;                 \
                }                                                                                        \
            }                                                                                            \
    }                                                                                                    \
    /* their backward (_vec_log_softmax_backward / _vec_softmax_backward): per column the sum from 0  \
     * in dim order of g (log_softmax) or of g * y fused into the add (softmax), then                 \
     * gi = g - exp(y) * s as one fma (a vector column's exp Sleef's, a tail column's libm's) or      \
     * gi = y * (g - s); nothing fused without FMA, as softmax_bw_row */                                 \
    static inline __attribute__((always_inline)) void softmax_bw_cols_body_##SUF(                        \
        const T *g, const T *y, T *o, int64_t outer, int64_t n, int64_t inner, bool log_mode, bool fused) { \
        int64_t vec_cols = inner - inner % L;                                                            \
        for (int64_t oi = 0; oi < outer; oi++)                                                           \
            for (int64_t c = 0; c < inner; c++) {                                                        \
                int64_t base = oi * n * inner + c;                                                       \
                const T *gc = g + base, *yc = y + base;                                                  \
                T *oc = o + base;                                                                        \
                T s = 0;                                                                                 \
                for (int64_t d = 0; d < n; d++)                                                          \
                    s = log_mode ? s + gc[d * inner] : FMA(fused, gc[d * inner], yc[d * inner], s);      \
                for (int64_t d = 0; d < n; d++) {                                                        \
                    T gv = gc[d * inner], yv = yc[d * inner];                                            \
                    if (log_mode) oc[d * inner] = FMA(fused, -(c < vec_cols ? VEXP(yv) : LIBEXP(yv)), s, gv); \
                    else oc[d * inner] = yv * (gv - s);                                                  \
                }                                                                                        \
            }                                                                                            \
    }                                                                                                    \
    VMATH_AVX2 static void softmax_bw_cols_fma_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n, \
                                                     int64_t inner, bool log_mode) {                     \
        softmax_bw_cols_body_##SUF(g, y, o, outer, n, inner, log_mode, true);                            \
    }                                                                                                    \
    static void softmax_bw_cols_plain_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n,      \
                                            int64_t inner, bool log_mode) {                              \
        softmax_bw_cols_body_##SUF(g, y, o, outer, n, inner, log_mode, false);                           \
    }                                                                                                    \
    void tensor__softmax_bw_cols_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n, int64_t inner, \
                                       bool log_mode) {                                                  \
        if (tensor__vm_sleef) softmax_bw_cols_fma_##SUF(g, y, o, outer, n, inner, log_mode);             \
        else softmax_bw_cols_plain_##SUF(g, y, o, outer, n, inner, log_mode);                            \
    }
SOFTMAX_COLS(f32, float, 8, tensor__vexpf, expf, tensor__vlogf, aten_fmaf)
SOFTMAX_COLS(f64, double, 4, tensor__vexp, exp, tensor__vlog, aten_fma)
