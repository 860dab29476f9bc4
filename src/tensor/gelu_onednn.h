/* float32 GELU (approximate='none') as oneDNN v2.6 computes it: PyTorch 1.13 sends a contiguous
 * float32 CPU tensor with more than one element to oneDNN's eltwise gelu_erf (use_mkldnn in
 * aten/src/ATen/native/Activation.cpp), forward and backward, instead of ATen's GeluKernel.
 * oneDNN's JIT kernel approximates erf with Abramowitz and Stegun 7.1.26 and its own exp; the
 * functions below redo its vector code one lane at a time, in the same order, every FMA a
 * single rounding (fmaf), so each element gets the same bits.  Constants are float bit
 * patterns from its table.  (Later oneDNN releases give avx512_core a piecewise minimax erf
 * instead; the v2.6.3 that PyTorch 1.13 links computes this form on an AVX-512 CPU too: checked
 * against it element by element, 0 of 11263 forward or backward values differ.)
 *
 * The backward's 0.5 + T + 0.5 * erf cancels near x = -0.75, where the derivative crosses zero:
 * there oneDNN's result can be many ulps from the exact value, and so is this one. */
#ifndef EMBER_TENSOR_GELU_ONEDNN_H
#define EMBER_TENSOR_GELU_ONEDNN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) float gelu_onednn_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline __attribute__((always_inline)) uint32_t gelu_onednn_u32(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* oneDNN's exp: x clamped to [ln FLT_MIN, ln FLT_MAX], n = floor(x log2 e + 1/2),
 * r = x - n ln 2 (one FMA), 2^n applied as 2^(n-1) * 2 so n = 128 stays finite, and the
 * 2^(n-1) factor zeroed where x was below ln FLT_MIN. */
static inline __attribute__((always_inline)) float gelu_onednn_exp(float x) {
    const float ln_flt_max = gelu_onednn_bits(0x42b17218u);
    const float ln_flt_min = gelu_onednn_bits(0xc2aeac50u);
    int below = x < ln_flt_min; /* ordered: false for NaN */
    /* minps / maxps return the second operand when either is NaN */
    float c = x < ln_flt_max ? x : ln_flt_max;
    c = c > ln_flt_min ? c : ln_flt_min;
    float fx = c * gelu_onednn_bits(0x3fb8aa3bu) + 0.5f;
    float n = floorf(fx);
    float r = fmaf(-n, gelu_onednn_bits(0x3f317218u), c);
    float nm1 = n - 1.0f;
    float scale = 0.0f;
    if (!below) {
        int32_t e = (int32_t)nm1 + 127;   /* nm1 is a whole number (floor - 1), in range: exact */
        scale = gelu_onednn_bits((uint32_t)e << 23);
    }
    float p = gelu_onednn_bits(0x3c07cfceu);
    p = fmaf(p, r, gelu_onednn_bits(0x3d2b9d0du));
    p = fmaf(p, r, gelu_onednn_bits(0x3e2aad40u));
    p = fmaf(p, r, gelu_onednn_bits(0x3efffee3u));
    p = fmaf(p, r, gelu_onednn_bits(0x3f7ffffbu));
    p = fmaf(p, r, 1.0f);
    return p * scale * 2.0f;
}

/* the polynomial of A&S 7.1.26 in t = 1 / (1 + p|x|) */
static inline __attribute__((always_inline)) float gelu_onednn_poly(float t) {
    float r = gelu_onednn_bits(0x3f87dc22u);
    r = fmaf(r, t, gelu_onednn_bits(0xbfba00e3u));
    r = fmaf(r, t, gelu_onednn_bits(0x3fb5f0e3u));
    r = fmaf(r, t, gelu_onednn_bits(0xbe91a98eu));
    r = fmaf(r, t, gelu_onednn_bits(0x3e827906u));
    return r;
}

static inline __attribute__((always_inline)) float gelu_onednn_flip(float v, uint32_t sign) {
    return gelu_onednn_bits(gelu_onednn_u32(v) ^ sign);
}

static inline __attribute__((always_inline)) float gelu_onednn_fwd(float s) {
    float x = s * gelu_onednn_bits(0x3f3504f3u); /* 1/sqrt 2 */
    float t = 1.0f / fmaf(gelu_onednn_bits(0x3ea7ba05u), fabsf(x), 1.0f);
    float q = gelu_onednn_flip(gelu_onednn_exp(gelu_onednn_flip(x * x, 0x80000000u)), 0x80000000u);
    uint32_t sign = gelu_onednn_u32(s) & 0x80000000u;
    q = q * t;
    float erf = gelu_onednn_flip(fmaf(q, gelu_onednn_poly(t), 1.0f), sign);
    float half = s * 0.5f;
    return fmaf(erf, half, half);
}

/* d gelu / ds (the caller multiplies by the incoming gradient, as oneDNN does) */
static inline __attribute__((always_inline)) float gelu_onednn_bwd(float s) {
    float x = s * gelu_onednn_bits(0x3f3504f3u);
    float q = gelu_onednn_exp(gelu_onednn_flip(x * x, 0x80000000u));
    float tt = x * gelu_onednn_bits(0x3f106ebau) * q; /* x / sqrt(pi) * exp(-x^2) */
    uint32_t sign = gelu_onednn_u32(x) & 0x80000000u;
    float w = 1.0f / fmaf(gelu_onednn_bits(0x3ea7ba05u), fabsf(x), 1.0f);
    float nq = gelu_onednn_flip(q, 0x80000000u) * w;
    float erf = gelu_onednn_flip(fmaf(nq, gelu_onednn_poly(w), 1.0f), sign);
    return fmaf(erf, 0.5f, tt + 0.5f);
}

/* Rows of either form (bwd: the derivative), the loop compiled with FMA and SSE4.1 where the CPU
 * has AVX2 + FMA (fmaf and floorf become single instructions; a libm call each was ~6x slower),
 * else with libm's fmaf: the same bits either way.  pointwise.c; the fused units call it too. */
void tensor__gelu_onednn_rows(float *dst, int64_t dst_stride, const float *src, int64_t src_stride, int64_t n,
                              bool bwd);

#endif
