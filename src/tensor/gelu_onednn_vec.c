/* gelu_onednn_vec.c — the oneDNN v2.6 GELU forms of gelu_onednn.h (forward and derivative),
 * eight lanes at a time (AVX2 + FMA) or sixteen (AVX-512).  gelu_onednn.h redoes oneDNN's
 * vector code one lane at a time; this is that vector code again: every lane runs the same IEEE
 * operations in the same order (each FMA one rounding, the division correctly rounded, minps /
 * maxps choosing the operand the scalar's compare-and-select chooses when x is NaN, floor by
 * roundps), so each element gets the same bits as tensor__gelu_onednn_rows.  The row's tail
 * and CPUs without AVX2 + FMA (or EMBER_ISA=default) run the one-lane code.  Test:
 * tests/unit/runtime/test_fastpaths.c. */
#include "src/tensor/gelu_onednn_vec.h"
#include "src/tensor/gelu_onednn.h"
#include "src/tensor/isa.h"
#include "src/tensor/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GV __attribute__((target("avx2,fma"), always_inline)) static inline

GV __m256 gv_k(uint32_t u) { return _mm256_set1_ps(gelu_onednn_bits(u)); }
GV __m256 gv_flip(__m256 v, __m256 sign) { return _mm256_xor_ps(v, sign); }
GV __m256 gv_abs(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

/* gelu_onednn_exp */
GV __m256 gv_exp(__m256 x) {
    const __m256 ln_flt_max = gv_k(0x42b17218u), ln_flt_min = gv_k(0xc2aeac50u);
    __m256 below = _mm256_cmp_ps(x, ln_flt_min, _CMP_LT_OQ);   /* ordered: false for NaN */
    __m256 c = _mm256_min_ps(x, ln_flt_max);                    /* x < max ? x : max */
    c = _mm256_max_ps(c, ln_flt_min);                           /* c > min ? c : min */
    __m256 fx = _mm256_add_ps(_mm256_mul_ps(c, gv_k(0x3fb8aa3bu)), _mm256_set1_ps(0.5f));
    __m256 n = _mm256_floor_ps(fx);
    __m256 r = _mm256_fmadd_ps(gv_flip(n, _mm256_set1_ps(-0.0f)), gv_k(0x3f317218u), c);
    __m256 nm1 = _mm256_sub_ps(n, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_add_epi32(_mm256_cvttps_epi32(nm1), _mm256_set1_epi32(127));
    __m256 scale = _mm256_andnot_ps(below, _mm256_castsi256_ps(_mm256_slli_epi32(e, 23)));
    __m256 p = gv_k(0x3c07cfceu);
    p = _mm256_fmadd_ps(p, r, gv_k(0x3d2b9d0du));
    p = _mm256_fmadd_ps(p, r, gv_k(0x3e2aad40u));
    p = _mm256_fmadd_ps(p, r, gv_k(0x3efffee3u));
    p = _mm256_fmadd_ps(p, r, gv_k(0x3f7ffffbu));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(_mm256_mul_ps(p, scale), _mm256_set1_ps(2.0f));
}

/* gelu_onednn_poly */
GV __m256 gv_poly(__m256 t) {
    __m256 r = gv_k(0x3f87dc22u);
    r = _mm256_fmadd_ps(r, t, gv_k(0xbfba00e3u));
    r = _mm256_fmadd_ps(r, t, gv_k(0x3fb5f0e3u));
    r = _mm256_fmadd_ps(r, t, gv_k(0xbe91a98eu));
    r = _mm256_fmadd_ps(r, t, gv_k(0x3e827906u));
    return r;
}

/* gelu_onednn_fwd */
GV __m256 gv_fwd(__m256 s) {
    const __m256 sm = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 x = _mm256_mul_ps(s, gv_k(0x3f3504f3u));
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(gv_k(0x3ea7ba05u), gv_abs(x), one));
    __m256 q = gv_flip(gv_exp(gv_flip(_mm256_mul_ps(x, x), sm)), sm);
    __m256 sign = _mm256_and_ps(s, sm);
    q = _mm256_mul_ps(q, t);
    __m256 erf = gv_flip(_mm256_fmadd_ps(q, gv_poly(t), one), sign);
    __m256 half = _mm256_mul_ps(s, _mm256_set1_ps(0.5f));
    return _mm256_fmadd_ps(erf, half, half);
}

/* gelu_onednn_bwd */
GV __m256 gv_bwd(__m256 s) {
    const __m256 sm = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    __m256 x = _mm256_mul_ps(s, gv_k(0x3f3504f3u));
    __m256 q = gv_exp(gv_flip(_mm256_mul_ps(x, x), sm));
    __m256 tt = _mm256_mul_ps(_mm256_mul_ps(x, gv_k(0x3f106ebau)), q);
    __m256 sign = _mm256_and_ps(x, sm);
    __m256 w = _mm256_div_ps(one, _mm256_fmadd_ps(gv_k(0x3ea7ba05u), gv_abs(x), one));
    __m256 nq = _mm256_mul_ps(gv_flip(q, sm), w);
    __m256 erf = gv_flip(_mm256_fmadd_ps(nq, gv_poly(w), one), sign);
    return _mm256_fmadd_ps(erf, half, _mm256_add_ps(tt, half));
}

__attribute__((target("avx2,fma"))) static int64_t gelu_rows_avx2(float *dst, const float *src, int64_t n, bool bwd) {
    int64_t i = 0;
    if (bwd)
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, gv_bwd(_mm256_loadu_ps(src + i)));
    else
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, gv_fwd(_mm256_loadu_ps(src + i)));
    return i;
}

/* the same, sixteen lanes (AVX-512F has the bitwise ops on integer vectors only) */
#define GW __attribute__((target("avx512f"), always_inline)) static inline

GW __m512 gw_k(uint32_t u) { return _mm512_set1_ps(gelu_onednn_bits(u)); }
GW __m512 gw_flip(__m512 v, __m512 sign) {
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_castps_si512(sign)));
}
GW __m512 gw_and(__m512 a, __m512 b) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
GW __m512 gw_abs(__m512 v) { return _mm512_abs_ps(v); }

/* gelu_onednn_exp */
GW __m512 gw_exp(__m512 x) {
    const __m512 ln_flt_max = gw_k(0x42b17218u), ln_flt_min = gw_k(0xc2aeac50u);
    __mmask16 below = _mm512_cmp_ps_mask(x, ln_flt_min, _CMP_LT_OQ);   /* ordered: false for NaN */
    __m512 c = _mm512_min_ps(x, ln_flt_max);                    /* x < max ? x : max */
    c = _mm512_max_ps(c, ln_flt_min);                           /* c > min ? c : min */
    __m512 fx = _mm512_add_ps(_mm512_mul_ps(c, gw_k(0x3fb8aa3bu)), _mm512_set1_ps(0.5f));
    __m512 n = _mm512_roundscale_ps(fx, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fmadd_ps(gw_flip(n, _mm512_set1_ps(-0.0f)), gw_k(0x3f317218u), c);
    __m512 nm1 = _mm512_sub_ps(n, _mm512_set1_ps(1.0f));
    __m512i e = _mm512_add_epi32(_mm512_cvttps_epi32(nm1), _mm512_set1_epi32(127));
    __m512 scale = _mm512_maskz_mov_ps((__mmask16)~below, _mm512_castsi512_ps(_mm512_slli_epi32(e, 23)));
    __m512 p = gw_k(0x3c07cfceu);
    p = _mm512_fmadd_ps(p, r, gw_k(0x3d2b9d0du));
    p = _mm512_fmadd_ps(p, r, gw_k(0x3e2aad40u));
    p = _mm512_fmadd_ps(p, r, gw_k(0x3efffee3u));
    p = _mm512_fmadd_ps(p, r, gw_k(0x3f7ffffbu));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_mul_ps(_mm512_mul_ps(p, scale), _mm512_set1_ps(2.0f));
}

/* gelu_onednn_poly */
GW __m512 gw_poly(__m512 t) {
    __m512 r = gw_k(0x3f87dc22u);
    r = _mm512_fmadd_ps(r, t, gw_k(0xbfba00e3u));
    r = _mm512_fmadd_ps(r, t, gw_k(0x3fb5f0e3u));
    r = _mm512_fmadd_ps(r, t, gw_k(0xbe91a98eu));
    r = _mm512_fmadd_ps(r, t, gw_k(0x3e827906u));
    return r;
}

/* gelu_onednn_fwd */
GW __m512 gw_fwd(__m512 s) {
    const __m512 sm = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
    __m512 x = _mm512_mul_ps(s, gw_k(0x3f3504f3u));
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(gw_k(0x3ea7ba05u), gw_abs(x), one));
    __m512 q = gw_flip(gw_exp(gw_flip(_mm512_mul_ps(x, x), sm)), sm);
    __m512 sign = gw_and(s, sm);
    q = _mm512_mul_ps(q, t);
    __m512 erf = gw_flip(_mm512_fmadd_ps(q, gw_poly(t), one), sign);
    __m512 half = _mm512_mul_ps(s, _mm512_set1_ps(0.5f));
    return _mm512_fmadd_ps(erf, half, half);
}

/* gelu_onednn_bwd */
GW __m512 gw_bwd(__m512 s) {
    const __m512 sm = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    __m512 x = _mm512_mul_ps(s, gw_k(0x3f3504f3u));
    __m512 q = gw_exp(gw_flip(_mm512_mul_ps(x, x), sm));
    __m512 tt = _mm512_mul_ps(_mm512_mul_ps(x, gw_k(0x3f106ebau)), q);
    __m512 sign = gw_and(x, sm);
    __m512 w = _mm512_div_ps(one, _mm512_fmadd_ps(gw_k(0x3ea7ba05u), gw_abs(x), one));
    __m512 nq = _mm512_mul_ps(gw_flip(q, sm), w);
    __m512 erf = gw_flip(_mm512_fmadd_ps(nq, gw_poly(w), one), sign);
    return _mm512_fmadd_ps(erf, half, _mm512_add_ps(tt, half));
}

__attribute__((target("avx512f"))) static int64_t gelu_rows_avx512(float *dst, const float *src, int64_t n, bool bwd) {
    int64_t i = 0;
    if (bwd)
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, gw_bwd(_mm512_loadu_ps(src + i)));
    else
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, gw_fwd(_mm512_loadu_ps(src + i)));
    return i;
}
#endif

void tensor__gelu_onednn_row_vec(float *dst, const float *src, int64_t n, bool bwd) {
    int64_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (tensor__vm_sleef && tensor__isa() >= TENSOR_ISA_AVX512) i = gelu_rows_avx512(dst, src, n, bwd);
    else if (tensor__vm_sleef && tensor__isa() >= TENSOR_ISA_AVX2) i = gelu_rows_avx2(dst, src, n, bwd);
#endif
    if (i < n) tensor__gelu_onednn_rows(dst + i, 1, src + i, 1, n - i, bwd);
}
