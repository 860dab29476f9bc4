/* aten_order.h — the arithmetic pieces ATen 1.13's AVX2 kernels are built from, shared by the rows
 * that reproduce them bit for bit (softmax_rows.c, layer_norm_rows.c):
 *   - a * b + c as those kernels compute it: ATen's cpu/ files are built with FMA and GCC's default
 *     contraction fuses a product feeding an add into one rounding (fused), while on a CPU without
 *     AVX2 + FMA PyTorch runs its DEFAULT kernels, which round twice;
 *   - the combination of a reduction's lanes: floats by VecReduceAllSIMD<float>'s shuffle tree
 *     (permute the 128-bit halves, then shuffle 0x4E, then 0xB1), doubles by the generic
 *     vec_reduce_all, lane 0 taking each other lane in turn;
 *   - the AVX2 vectors those kernels compute in (aten_v*_f32 on __m256, aten_v*_f64 on __m256d,
 *     VMATH_AVX2 callers only): a vector op is the scalar op on each lane, rounded the same, so a
 *     row written with them gives the scalar emulation's bits when each lane takes the same
 *     operations in the same order.  A partial last vector of r < L elements is loaded with its
 *     other lanes zero (maskload never touches memory past the row) and stored through the same
 *     mask; aten_vkeep merges only the first r lanes of an update, as ATen's partial-vector step
 *     (Vectorized::set) does. */
#ifndef EMBER_SRC_TENSOR_ATEN_ORDER_H
#define EMBER_SRC_TENSOR_ATEN_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "src/tensor/vmath.h"

/* inlined into a VMATH_AVX2 caller with fused = true, one vfmadd */
static inline __attribute__((always_inline)) float aten_fmaf(bool fused, float a, float b, float c) {
    return fused ? __builtin_fmaf(a, b, c) : a * b + c;
}
static inline __attribute__((always_inline)) double aten_fma(bool fused, double a, double b, double c) {
    return fused ? __builtin_fma(a, b, c) : a * b + c;
}

static inline float aten_combine_f32(const float *v, float (*op)(float, float)) {
    return op(op(op(v[0], v[4]), op(v[2], v[6])), op(op(v[1], v[5]), op(v[3], v[7])));
}
static inline double aten_combine_f64(const double *v, double (*op)(double, double)) {
    return op(op(op(v[0], v[1]), v[2]), v[3]);
}

/* vec::maximum on a vector (a > b ? a : b per lane, NaN when either side is NaN), as the rows'
 * scalar max: MAXPS gives its second operand unless a > b, and the unordered lanes take the NaN
 * constant the scalar form returns */
#define ATEN_VEC(SUF, T, V, PS, CMPGT, SET1I, IDX)                                                                \
    VMATH_AVX2 static inline V aten_vload_##SUF(const T *p) { return _mm256_loadu_##PS(p); }                      \
    VMATH_AVX2 static inline void aten_vstore_##SUF(T *p, V v) { _mm256_storeu_##PS(p, v); }                      \
    VMATH_AVX2 static inline V aten_vsplat_##SUF(T a) { return _mm256_set1_##PS(a); }                             \
    /* the lanes below r (0 < r < L) set */                                                                       \
    VMATH_AVX2 static inline __m256i aten_vmask_##SUF(int64_t r) {                                                \
        return CMPGT(SET1I(r), IDX);                                                                              \
    }                                                                                                             \
    VMATH_AVX2 static inline V aten_vmaskload_##SUF(const T *p, __m256i m) { return _mm256_maskload_##PS(p, m); } \
    VMATH_AVX2 static inline void aten_vmaskstore_##SUF(T *p, __m256i m, V v) { _mm256_maskstore_##PS(p, m, v); } \
    /* old in the lanes m does not select, upd in those it does */                                                \
    VMATH_AVX2 static inline V aten_vkeep_##SUF(V old, V upd, __m256i m) {                                        \
        return _mm256_blendv_##PS(old, upd, _mm256_castsi256_##PS(m));                                            \
    }                                                                                                             \
    VMATH_AVX2 static inline V aten_vmax_##SUF(V a, V b) {                                                        \
        V r = _mm256_max_##PS(a, b);                                                                              \
        return _mm256_blendv_##PS(r, _mm256_set1_##PS((T)NAN), _mm256_cmp_##PS(a, b, _CMP_UNORD_Q));              \
    }                                                                                                             \
    /* a > b ? a : b per lane, b when either is NaN (MAXPS) */                                                    \
    VMATH_AVX2 static inline V aten_vgtsel_##SUF(V a, V b) { return _mm256_max_##PS(a, b); }                      \
    VMATH_AVX2 static inline V aten_vfma_##SUF(V a, V b, V c) { return _mm256_fmadd_##PS(a, b, c); }              \
    /* fma(-a, b, c) as GCC compiles it (and ATen's c - a * b, contracted): one vfnmadd, which keeps              \
     * the sign of a NaN a, where negating a first would flip it */                                               \
    VMATH_AVX2 static inline V aten_vfnma_##SUF(V a, V b, V c) { return _mm256_fnmadd_##PS(a, b, c); }
ATEN_VEC(f32, float, __m256, ps, _mm256_cmpgt_epi32, _mm256_set1_epi32, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
ATEN_VEC(f64, double, __m256d, pd, _mm256_cmpgt_epi64, _mm256_set1_epi64x, _mm256_setr_epi64x(0, 1, 2, 3))
#undef ATEN_VEC

/* a vector's lanes combined as aten_combine_* combines them */
VMATH_AVX2 static inline float aten_vcombine_f32(__m256 v, float (*op)(float, float)) {
    float l[8];
    _mm256_storeu_ps(l, v);
    return aten_combine_f32(l, op);
}
VMATH_AVX2 static inline double aten_vcombine_f64(__m256d v, double (*op)(double, double)) {
    double l[4];
    _mm256_storeu_pd(l, v);
    return aten_combine_f64(l, op);
}

#endif
