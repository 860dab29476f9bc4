/* vmath.h — float32 exp, tanh, erf and log as inline straight-line code, so the float loops that
 * call them vectorise (libm's expf / tanhf / erff / logf are calls, one element at a time; PyTorch
 * runs Sleef's vector forms).  The pointwise expressions (pwexpr.h: pw_exp, pw_tanh, pw_erf,
 * pw_log — eager and fused loops alike), the softmax rows (nn.c) and the LSTM cell (rnn.c) use
 * them.
 *
 * Design: each function widens x to double, reduces and evaluates a polynomial in double with a
 * relative error near 1e-16 (~2^-52), and rounds once to float.  So the float result is the
 * correctly rounded one except where the exact value lies within ~2^-52 (relative) of a midpoint
 * between two floats — a handful of the 2^32 inputs (tools/vmath_exhaustive.c counts them against
 * libm and against correctly rounded references).  glibc 2.36's expf / logf are correctly rounded
 * in nearly all cases, so these agree with them nearly always; its tanhf / erff are fdlibm's
 * float code (~1-2 ulp), which these differ from where glibc's is not correctly rounded.
 *
 * Everything is branch-free (selects, clamps that NaN passes through) and uses only operations
 * every vector ISA has, so a loop over these vectorises on each path of isa.h, and since the
 * library builds without FP contraction every path gives the same bits.  If-conversion of the
 * selects needs -fno-trapping-math in the file whose loops call these (pointwise.c, fuse.c,
 * nn.c and rnn.c say so with a pragma): these loops do not read FP exception flags.
 *
 * Specials follow C99 / glibc: exp(-inf) = 0, exp(+inf) = inf, overflow inf, underflow to
 * denormals and 0; tanh(+-0) = +-0, tanh(+-inf) = +-1; erf(+-0) = +-0, erf(+-inf) = +-1;
 * log(0) = -inf, log(x < 0) = NaN, log(inf) = inf; a NaN argument comes back (quieted). */
#ifndef EMBER_SRC_TENSOR_VMATH_H
#define EMBER_SRC_TENSOR_VMATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define VMATH_INLINE static inline __attribute__((always_inline))

/* ln 2 split so that k * VMATH_LN2HI is exact for |k| < 2^20 (32 significant bits) */
#define VMATH_LN2HI 0x1.62e42feep-1
#define VMATH_LN2LO (0.6931471805599453094 - 0x1.62e42feep-1)
#define VMATH_LN2 0.6931471805599453094
/* 1.5 * 2^52: adding it rounds a double of magnitude < 2^51 to an integer, held in the low bits */
#define VMATH_SHIFT 0x1.8p52

VMATH_INLINE double vmath__bits_d(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
VMATH_INLINE uint64_t vmath__d_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* e^x = scale * (1 + *p) for x in [-1000, 1000] (callers clamp; a NaN gives a NaN *p):
 * x = k ln2 + r, |r| <= ln2 / 2, scale = 2^k, e^r - 1 = r + r^2 q(r) with q the Taylor series to
 * r^11 / 13! (truncation < 2^-60 relative on the range). */
VMATH_INLINE double vmath__exp_parts(double x, double *p) {
    double t = x * 1.4426950408889634074 + VMATH_SHIFT;
    double k = t - VMATH_SHIFT;
    double r = (x - k * VMATH_LN2HI) - k * VMATH_LN2LO;
    double q = 1.0 / 6227020800.0;            /* 1/13! */
    q = q * r + 1.0 / 479001600.0;            /* 1/12! */
    q = q * r + 1.0 / 39916800.0;
    q = q * r + 1.0 / 3628800.0;
    q = q * r + 1.0 / 362880.0;
    q = q * r + 1.0 / 40320.0;
    q = q * r + 1.0 / 5040.0;
    q = q * r + 1.0 / 720.0;
    q = q * r + 1.0 / 120.0;
    q = q * r + 1.0 / 24.0;
    q = q * r + 1.0 / 6.0;
    q = q * r + 0.5;
    *p = r + r * r * q;
    /* t's low bits hold k (two's complement): 2^k's exponent field is k + 1023 */
    return vmath__bits_d((vmath__d_bits(t) + 1023) << 52);
}

/* e^x in double for a float argument's range (the core of tensor__vexpf; sigmoid-like callers
 * that keep working in double use it) */
VMATH_INLINE double tensor__vexp_d(double x) {
    x = x < -160.0 ? -160.0 : x;   /* e^-160 rounds to float 0, e^100 to float inf; NaN passes */
    x = x > 100.0 ? 100.0 : x;
    double p, scale = vmath__exp_parts(x, &p);
    return scale + scale * p;
}

VMATH_INLINE float tensor__vexpf(float x) { return (float)tensor__vexp_d((double)x); }

/* tanh |x| = expm1(2|x|) / (expm1(2|x|) + 2): no cancellation near 0, as expm1 is r + r^2 q(r)
 * there (k = 0); |x| >= 20 is 1 in float. */
VMATH_INLINE float tensor__vtanhf(float x) {
    double a = fabs((double)x);
    a = a > 20.0 ? 20.0 : a;
    double p, scale = vmath__exp_parts(a + a, &p);
    double em1 = (scale - 1.0) + scale * p;
    return copysignf((float)(em1 / (em1 + 2.0)), x);
}

/* erf: Taylor polynomials of degree 9 around c_i = i/32 (i = 0..128), |x| - c_i in [-1/64, 1/64]
 * (truncation < 1e-20 relative); the coefficients (vmath.c) are computed to 80 digits by
 * tools/gen_erf_table.py.  The i = 0 polynomial is odd, so tiny and denormal x keep full relative
 * accuracy; |x| >= 4 is 1 in float.  The rows are gathered: narrower rows of lower degree mean
 * fewer gathers (ten per element), which are most of erf's time. */
#define VMATH_ERF_DEG 9
#define VMATH_ERF_ROWS 129
/* [k][i]: coefficient k of row i (coefficient-major, so each is a gather of scale 8) */
extern const double tensor__erf_tab[VMATH_ERF_DEG + 1][VMATH_ERF_ROWS];
VMATH_INLINE float tensor__verff(float x) {
    /* |x| clamped to 4 on its bits (NaN's are above inf's, so a NaN takes the last row; its result
     * is x + x below): an integer min, as GCC leaves a float select in a loop that gathers a branch */
    uint32_t ux, ub;
    memcpy(&ux, &x, sizeof ux);
    ub = ux & 0x7fffffffu;
    bool nan = ub > 0x7f800000u;
    ub = ub > 0x40800000u ? 0x40800000u : ub;
    float af;
    memcpy(&af, &ub, sizeof af);
    double a = (double)af;
    /* the row: a * 32 rounded to an integer in the low bits of t (a 64-bit index, which every
     * ISA's gathers take without a float-to-int conversion); ties may take either row */
    double t = a * 32.0 + VMATH_SHIFT;
    int64_t i = (int64_t)(vmath__d_bits(t) - vmath__d_bits(VMATH_SHIFT));
    double h = a - (t - VMATH_SHIFT) * 0.03125;
    double p = tensor__erf_tab[9][i];
    p = p * h + tensor__erf_tab[8][i];
    p = p * h + tensor__erf_tab[7][i];
    p = p * h + tensor__erf_tab[6][i];
    p = p * h + tensor__erf_tab[5][i];
    p = p * h + tensor__erf_tab[4][i];
    p = p * h + tensor__erf_tab[3][i];
    p = p * h + tensor__erf_tab[2][i];
    p = p * h + tensor__erf_tab[1][i];
    p = p * h + tensor__erf_tab[0][i];
    float r = copysignf((float)p, x);
    uint32_t ur;
    memcpy(&ur, &r, sizeof ur);
    /* a NaN comes back quieted, as x + x: a mask, not a select (GCC leaves selects in a loop
     * that gathers as branches) */
    uint32_t m = 0u - (uint32_t)nan;
    ur ^= (ur ^ (ux | 0x00400000u)) & m;
    memcpy(&r, &ur, sizeof r);
    return r;
}

/* log: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1),
 * |s| <= 0.172, the odd series to s^23 (truncation < 2^-60 relative). */
VMATH_INLINE float tensor__vlogf(float x) {
    double d = (double)x;
    uint64_t u = vmath__d_bits(d);
    uint64_t v = u - 0x3fe6a09e667f3bcdull;          /* bits of sqrt(1/2) */
    uint64_t ef = v >> 52;                            /* e mod 4096 */
    double e = vmath__bits_d(0x4338000000000000ull + ef) - VMATH_SHIFT;
    e = e >= 2048.0 ? e - 4096.0 : e;
    double m = vmath__bits_d(u - (v & 0xfff0000000000000ull));
    double s = (m - 1.0) / (m + 1.0), z = s * s;
    double q = 1.0 / 23.0;
    q = q * z + 1.0 / 21.0;
    q = q * z + 1.0 / 19.0;
    q = q * z + 1.0 / 17.0;
    q = q * z + 1.0 / 15.0;
    q = q * z + 1.0 / 13.0;
    q = q * z + 1.0 / 11.0;
    q = q * z + 1.0 / 9.0;
    q = q * z + 1.0 / 7.0;
    q = q * z + 1.0 / 5.0;
    q = q * z + 1.0 / 3.0;
    double s2 = s + s;
    double l = e * VMATH_LN2HI + (s2 + (e * VMATH_LN2LO + s2 * z * q));
    float r = (float)l;
    r = x == 0.0f ? -INFINITY : r;
    r = x < 0.0f ? -NAN : r;   /* glibc returns the default NaN (sign set) */
    r = x == INFINITY ? x : r;
    return x != x ? x + x : r;
}

#endif
