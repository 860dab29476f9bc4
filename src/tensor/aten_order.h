/* aten_order.h — the arithmetic pieces ATen 1.13's AVX2 kernels are built from, shared by the rows
 * that reproduce them bit for bit (softmax_rows.c, layer_norm_rows.c):
 *   - a * b + c as those kernels compute it: ATen's cpu/ files are built with FMA and GCC's default
 *     contraction fuses a product feeding an add into one rounding (fused), while on a CPU without
 *     AVX2 + FMA PyTorch runs its DEFAULT kernels, which round twice;
 *   - the combination of a reduction's lanes: floats by VecReduceAllSIMD<float>'s shuffle tree
 *     (permute the 128-bit halves, then shuffle 0x4E, then 0xB1), doubles by the generic
 *     vec_reduce_all, lane 0 taking each other lane in turn. */
#ifndef EMBER_SRC_TENSOR_ATEN_ORDER_H
#define EMBER_SRC_TENSOR_ATEN_ORDER_H

#include <stdbool.h>

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

#endif
