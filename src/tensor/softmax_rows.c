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
 * On a CPU with AVX2 + FMA (the one ATen's AVX2 kernels run on) the rows of at least L elements
 * and the columns' vector groups run on real vectors (SOFTMAX_ROW_AVX2, softmax_cols_avx2): lane
 * k of a vector is lane k above, each takes the same operations in the same order, exp / log are
 * Sleef's vector forms (the scalar purecfma form's bits per lane, vmath.h), so the bits are the
 * scalar emulation's.  That emulation stays as the reference (a differential check over random
 * rows, -inf and NaN included, compares the two bit for bit) and runs short rows and other CPUs.
 * The compiled backend's fused row groups (runtime/fuse.c) call the float row, so compiled
 * softmax gives eager's bits.  y may be x: every element is read before it is written. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/tensor/aten_order.h"
#include "src/tensor/nn.h"
#include "src/tensor/vmath.h"

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
    static void softmax_row_scalar_##SUF(const T *x, T *y, int64_t n, bool log_mode) {                   \
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


SOFTMAX_ROW(f32, float, 8, tensor__vexpf, tensor__vlogf, aten_fmaf, aten_combine_f32)
SOFTMAX_ROW(f64, double, 4, tensor__vexp, tensor__vlog, aten_fma, aten_combine_f64)

/* The same rows on AVX2 vectors, for rows of at least L elements when the CPU has AVX2 + FMA (as
 * ATen's kernels, which run on such a CPU): lane k of each vector holds the elements k, k + L,
 * ..., so a lane accumulator takes exactly the scalar emulation's operands in its order, the
 * partial last vector updates only its first lanes (aten_vkeep), the lanes combine through the
 * same aten_combine_*, exp is Sleef's vector form (whose lanes are the scalar purecfma form's
 * bits, vmath.h; a padded lane's value is dropped), and the fused steps are the vfmadd /
 * vfnmadd GCC compiles the scalar fma to (aten_vfnma: the sign of a NaN is kept).  The scalar
 * rows stay the reference (the differential check compares the two)
 * and serve short rows and CPUs without AVX2 + FMA. */
#define SOFTMAX_ROW_AVX2(SUF, T, V, L, VEXP, LOG)                                                                      \
    VMATH_AVX2 static void softmax_row_avx2_##SUF(const T *x, T *y, int64_t n, bool log_mode) {                        \
        int64_t r = n % L, nv = n - r, d;                                                                              \
        __m256i m = aten_vmask_##SUF(r);                                                                               \
        V acc = aten_vload_##SUF(x);                                                                                   \
        for (d = L; d < nv; d += L) acc = aten_vmax_##SUF(acc, aten_vload_##SUF(x + d));                               \
        if (r) acc = aten_vkeep_##SUF(acc, aten_vmax_##SUF(acc, aten_vmaskload_##SUF(x + nv, m)), m);                  \
        V mx = aten_vsplat_##SUF(aten_vcombine_##SUF(acc, max_##SUF));                                                 \
        if (log_mode) {                                                                                                \
            acc = VEXP(aten_vload_##SUF(x) - mx);                                                                      \
            for (d = L; d < nv; d += L) acc = acc + VEXP(aten_vload_##SUF(x + d) - mx);                                \
            if (r) acc = aten_vkeep_##SUF(acc, acc + VEXP(aten_vmaskload_##SUF(x + nv, m) - mx), m);                   \
            V lse = aten_vsplat_##SUF(LOG(aten_vcombine_##SUF(acc, add_##SUF)));                                       \
            for (d = 0; d < nv; d += L) aten_vstore_##SUF(y + d, aten_vload_##SUF(x + d) - mx - lse);                  \
            if (r) aten_vmaskstore_##SUF(y + nv, m, aten_vmaskload_##SUF(x + nv, m) - mx - lse);                       \
            return;                                                                                                    \
        }                                                                                                              \
        /* y = exp(x - max) is stored as the lanes sum it (the scalar form sums y after) */                            \
        acc = VEXP(aten_vload_##SUF(x) - mx);                                                                          \
        aten_vstore_##SUF(y, acc);                                                                                     \
        for (d = L; d < nv; d += L) {                                                                                  \
            V e = VEXP(aten_vload_##SUF(x + d) - mx);                                                                  \
            aten_vstore_##SUF(y + d, e);                                                                               \
            acc = acc + e;                                                                                             \
        }                                                                                                              \
        if (r) {                                                                                                       \
            V e = VEXP(aten_vmaskload_##SUF(x + nv, m) - mx);                                                          \
            aten_vmaskstore_##SUF(y + nv, m, e);                                                                       \
            acc = aten_vkeep_##SUF(acc, acc + e, m);                                                                   \
        }                                                                                                              \
        V inv = aten_vsplat_##SUF((T)1 / aten_vcombine_##SUF(acc, add_##SUF));                                         \
        for (d = 0; d < nv; d += L) aten_vstore_##SUF(y + d, aten_vload_##SUF(y + d) * inv);                           \
        if (r) aten_vmaskstore_##SUF(y + nv, m, aten_vmaskload_##SUF(y + nv, m) * inv);                                \
    }                                                                                                                  \
    void tensor__softmax_row_##SUF(const T *x, T *y, int64_t n, bool log_mode) {                                       \
        if (n <= 0) return;                                                                                            \
        if (tensor__vm_sleef && n >= L) softmax_row_avx2_##SUF(x, y, n, log_mode);                                     \
        else softmax_row_scalar_##SUF(x, y, n, log_mode);                                                              \
    }                                                                                                                  \
    VMATH_AVX2 static void softmax_bw_row_avx2_##SUF(const T *g, const T *y, T *o, int64_t n, bool log_mode) {         \
        int64_t r = n % L, nv = n - r, d;                                                                              \
        __m256i m = aten_vmask_##SUF(r);                                                                               \
        V acc, s;                                                                                                      \
        if (log_mode) {                                                                                                \
            acc = aten_vload_##SUF(g);                                                                                 \
            for (d = L; d < nv; d += L) acc = acc + aten_vload_##SUF(g + d);                                           \
            if (r) acc = aten_vkeep_##SUF(acc, acc + aten_vmaskload_##SUF(g + nv, m), m);                              \
            s = aten_vsplat_##SUF(aten_vcombine_##SUF(acc, add_##SUF));                                                \
            for (d = 0; d < nv; d += L)                                                                                \
                aten_vstore_##SUF(o + d, aten_vfnma_##SUF(VEXP(aten_vload_##SUF(y + d)), s,                            \
                                                         aten_vload_##SUF(g + d)));                                    \
            if (r)                                                                                                     \
                aten_vmaskstore_##SUF(o + nv, m,                                                                       \
                                      aten_vfnma_##SUF(VEXP(aten_vmaskload_##SUF(y + nv, m)), s,                       \
                                                      aten_vmaskload_##SUF(g + nv, m)));                               \
            return;                                                                                                    \
        }                                                                                                              \
        acc = aten_vload_##SUF(g) * aten_vload_##SUF(y);                                                               \
        for (d = L; d < nv; d += L) acc = aten_vfma_##SUF(aten_vload_##SUF(g + d), aten_vload_##SUF(y + d), acc);      \
        if (r)                                                                                                         \
            acc = aten_vkeep_##SUF(                                                                                    \
                acc, aten_vfma_##SUF(aten_vmaskload_##SUF(g + nv, m), aten_vmaskload_##SUF(y + nv, m), acc), m);       \
        s = aten_vsplat_##SUF(aten_vcombine_##SUF(acc, add_##SUF));                                                    \
        for (d = 0; d < nv; d += L)                                                                                    \
            aten_vstore_##SUF(o + d, (aten_vload_##SUF(g + d) - s) * aten_vload_##SUF(y + d));                         \
        if (r)                                                                                                         \
            aten_vmaskstore_##SUF(o + nv, m, (aten_vmaskload_##SUF(g + nv, m) - s) * aten_vmaskload_##SUF(y + nv, m)); \
    }                                                                                                                  \
    void tensor__softmax_bw_row_##SUF(const T *g, const T *y, T *o, int64_t n, bool log_mode) {                        \
        if (n <= 0) return;                                                                                            \
        if (!tensor__vm_sleef) softmax_bw_row_plain_##SUF(g, y, o, n, log_mode);                                       \
        else if (n >= L) softmax_bw_row_avx2_##SUF(g, y, o, n, log_mode);                                              \
        else softmax_bw_row_fma_##SUF(g, y, o, n, log_mode);                                                           \
    }

SOFTMAX_ROW_AVX2(f32, float, __m256, 8, tensor__vexpf8, tensor__vlogf)
SOFTMAX_ROW_AVX2(f64, double, __m256d, 4, tensor__vexpd4, tensor__vlog)

/* Softmax over a dim that is not the last (inner > 1 elements apart), as 1.13's _vec_softmax and
 * _vec_logsoftmax: each column (outer, inner index) alone, in runs of L columns that vectorise,
 * the last inner % L columns of each outer row as the scalar tail.  Per column: the max down
 * the dim (softmax: vec::maximum, or std::max in the tail; log_softmax: x > m ? x : m), the sum
 * of exp(x - max) from 0 in dim order (a vector column's exp is Sleef's, a tail column's is
 * libm's std::exp), then softmax divides each exp by the sum and log_softmax subtracts the max
 * and Sleef's log of the sum. */
#define SOFTMAX_COLS(SUF, T, V, L, VEXP, LIBEXP, LOG, FMA, VEXPV, VLOGV)                                               \
    /* one column: n values inner apart; vec: a column of a vector group (Sleef's exp) */                              \
    static inline __attribute__((always_inline)) void softmax_col_##SUF(const T *xc, T *yc, int64_t n,                 \
                                                                       int64_t inner, bool log_mode, bool vec) {       \
        T mx = xc[0];                                                                                                  \
        if (log_mode) mx = xc[0] > (T)-INFINITY ? xc[0] : (T)-INFINITY;                                                \
        for (int64_t d = 1; d < n; d++) {                                                                              \
            T v = xc[d * inner];                                                                                       \
            if (log_mode) mx = v > mx ? v : mx;                                                                        \
            else if (vec) mx = max_##SUF(mx, v);                                                                       \
            else mx = mx < v ? v : mx;                                                                                 \
        }                                                                                                              \
        T sum = 0;                                                                                                     \
        for (int64_t d = 0; d < n; d++) {                                                                              \
            T e = vec ? VEXP(xc[d * inner] - mx) : LIBEXP(xc[d * inner] - mx);                                         \
            if (!log_mode) yc[d * inner] = e;                                                                          \
            sum = sum + e;                                                                                             \
        }                                                                                                              \
        if (log_mode) {                                                                                                \
            T lse = LOG(sum);                                                                                          \
            for (int64_t d = 0; d < n; d++) yc[d * inner] = xc[d * inner] - mx - lse;                                  \
        } else {                                                                                                       \
            for (int64_t d = 0; d < n; d++) yc[d * inner] = yc[d * inner] / sum;                                       \
        }                                                                                                              \
    }                                                                                                                  \
    /* L adjacent columns of a vector group as one vector: each lane is softmax_col's column (the                      \
     * same operations in the same order; log_softmax's max is MAXPS, which is v > mx ? v : mx, NaN                    \
     * included; exp and log are Sleef's lanes) */                                                                     \
    VMATH_AVX2 static void softmax_cols_avx2_##SUF(const T *xc, T *yc, int64_t n, int64_t inner, bool log_mode) {      \
        V mx = aten_vload_##SUF(xc);                                                                                   \
        if (log_mode) mx = aten_vgtsel_##SUF(mx, aten_vsplat_##SUF((T)-INFINITY));                                     \
        for (int64_t d = 1; d < n; d++) {                                                                              \
            V v = aten_vload_##SUF(xc + d * inner);                                                                    \
            if (log_mode) mx = aten_vgtsel_##SUF(v, mx);                                                               \
            else mx = aten_vmax_##SUF(mx, v);                                                                          \
        }                                                                                                              \
        V sum = aten_vsplat_##SUF(0);                                                                                  \
        for (int64_t d = 0; d < n; d++) {                                                                              \
            V e = VEXPV(aten_vload_##SUF(xc + d * inner) - mx);                                                        \
            if (!log_mode) aten_vstore_##SUF(yc + d * inner, e);                                                       \
            sum = sum + e;                                                                                             \
        }                                                                                                              \
        if (log_mode) {                                                                                                \
            V lse = VLOGV(sum);                                                                                        \
            for (int64_t d = 0; d < n; d++)                                                                            \
                aten_vstore_##SUF(yc + d * inner, aten_vload_##SUF(xc + d * inner) - mx - lse);                        \
        } else {                                                                                                       \
            for (int64_t d = 0; d < n; d++) aten_vstore_##SUF(yc + d * inner, aten_vload_##SUF(yc + d * inner) / sum); \
        }                                                                                                              \
    }                                                                                                                  \
    void tensor__softmax_cols_##SUF(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, bool log_mode) {        \
        int64_t vec_cols = inner - inner % L;                                                                          \
        for (int64_t o = 0; o < outer; o++) {                                                                          \
            const T *xo = x + o * n * inner;                                                                           \
            T *yo = y + o * n * inner;                                                                                 \
            int64_t c = 0;                                                                                             \
            if (tensor__vm_sleef)                                                                                      \
                for (; c < vec_cols; c += L) softmax_cols_avx2_##SUF(xo + c, yo + c, n, inner, log_mode);              \
            for (; c < inner; c++) softmax_col_##SUF(xo + c, yo + c, n, inner, log_mode, c < vec_cols);                \
        }                                                                                                              \
    }                                                                                                                  \
    /* their backward (_vec_log_softmax_backward / _vec_softmax_backward): per column the sum from 0                   \
     * in dim order of g (log_softmax) or of g * y fused into the add (softmax), then                                  \
     * gi = g - exp(y) * s as one fma (a vector column's exp Sleef's, a tail column's libm's) or                       \
     * gi = y * (g - s); nothing fused without FMA, as softmax_bw_row */                                               \
    static inline __attribute__((always_inline)) void softmax_bw_col_##SUF(                                            \
        const T *gc, const T *yc, T *oc, int64_t n, int64_t inner, bool log_mode, bool fused, bool vec) {              \
        T s = 0;                                                                                                       \
        for (int64_t d = 0; d < n; d++)                                                                                \
            s = log_mode ? s + gc[d * inner] : FMA(fused, gc[d * inner], yc[d * inner], s);                            \
        for (int64_t d = 0; d < n; d++) {                                                                              \
            T gv = gc[d * inner], yv = yc[d * inner];                                                                  \
            if (log_mode) oc[d * inner] = FMA(fused, -(vec ? VEXP(yv) : LIBEXP(yv)), s, gv);                           \
            else oc[d * inner] = yv * (gv - s);                                                                        \
        }                                                                                                              \
    }                                                                                                                  \
    /* L adjacent columns of a vector group, each lane softmax_bw_col's fused column */                                \
    VMATH_AVX2 static void softmax_bw_cols_avx2_##SUF(const T *gc, const T *yc, T *oc, int64_t n, int64_t inner,       \
                                                      bool log_mode) {                                                 \
        V s = aten_vsplat_##SUF(0);                                                                                    \
        for (int64_t d = 0; d < n; d++) {                                                                              \
            V gv = aten_vload_##SUF(gc + d * inner);                                                                   \
            if (log_mode) s = s + gv;                                                                                  \
            else s = aten_vfma_##SUF(gv, aten_vload_##SUF(yc + d * inner), s);                                         \
        }                                                                                                              \
        for (int64_t d = 0; d < n; d++) {                                                                              \
            V gv = aten_vload_##SUF(gc + d * inner), yv = aten_vload_##SUF(yc + d * inner);                            \
            if (log_mode) aten_vstore_##SUF(oc + d * inner, aten_vfnma_##SUF(VEXPV(yv), s, gv));                       \
            else aten_vstore_##SUF(oc + d * inner, yv * (gv - s));                                                     \
        }                                                                                                              \
    }                                                                                                                  \
    static inline __attribute__((always_inline)) void softmax_bw_cols_body_##SUF(                                      \
        const T *g, const T *y, T *o, int64_t outer, int64_t n, int64_t inner, bool log_mode, bool fused) {            \
        int64_t vec_cols = inner - inner % L;                                                                          \
        for (int64_t oi = 0; oi < outer; oi++) {                                                                       \
            int64_t c = 0, base = oi * n * inner;                                                                      \
            const T *go = g + base, *yo = y + base;                                                                    \
            T *oo = o + base;                                                                                          \
            if (fused)                                                                                                 \
                for (; c < vec_cols; c += L) softmax_bw_cols_avx2_##SUF(go + c, yo + c, oo + c, n, inner, log_mode);   \
            for (; c < inner; c++)                                                                                     \
                softmax_bw_col_##SUF(go + c, yo + c, oo + c, n, inner, log_mode, fused, c < vec_cols);                 \
        }                                                                                                              \
    }                                                                                                                  \
    VMATH_AVX2 static void softmax_bw_cols_fma_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n,           \
                                                     int64_t inner, bool log_mode) {                                   \
        softmax_bw_cols_body_##SUF(g, y, o, outer, n, inner, log_mode, true);                                          \
    }                                                                                                                  \
    static void softmax_bw_cols_plain_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n,                    \
                                            int64_t inner, bool log_mode) {                                            \
        softmax_bw_cols_body_##SUF(g, y, o, outer, n, inner, log_mode, false);                                         \
    }                                                                                                                  \
    void tensor__softmax_bw_cols_##SUF(const T *g, const T *y, T *o, int64_t outer, int64_t n, int64_t inner,          \
                                       bool log_mode) {                                                                \
        if (tensor__vm_sleef) softmax_bw_cols_fma_##SUF(g, y, o, outer, n, inner, log_mode);                           \
        else softmax_bw_cols_plain_##SUF(g, y, o, outer, n, inner, log_mode);                                          \
    }
SOFTMAX_COLS(f32, float, __m256, 8, tensor__vexpf, expf, tensor__vlogf, aten_fmaf, tensor__vexpf8, tensor__vlogf8)
SOFTMAX_COLS(f64, double, __m256d, 4, tensor__vexp, exp, tensor__vlog, aten_fma, tensor__vexpd4, tensor__vlogd4)
