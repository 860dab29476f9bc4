/* vmath.h — the transcendental functions of the floating kernels, computed as PyTorch 1.13's
 * AVX2 kernels compute them: with Sleef 3.5 (libsleef, the library libtorch_cpu links).  The
 * pointwise expressions (pwexpr.h: pw_exp, pw_tanh, ... — eager and fused loops alike), the
 * softmax rows (nn.c) and the LSTM cell (rnn.c) call these.
 *
 * What ATen computes (measured against python3-torch 1.13.1 here, CPU capability AVX2): the
 * vml kernels (exp, log, log2, log10, log1p, expm1, tanh, erf, erfc, sin, cos, tan, asin, acos,
 * atan) run `Vectorized<T>::op`, Sleef's 8-lane float / 4-lane double u10 function (erfc: u15)
 * on every element — a loop tail is a zero-padded partial vector, a strided input is copied to
 * a contiguous buffer first — so every element is the Sleef lane's value, whatever its position.
 * Sleef's scalar "purecfma" build of each function is the same algorithm with the same fused
 * multiply-adds, and gives the vector lane's bits (a differential check over 200k random and
 * special inputs per function: 0 differences), so one element at a time is enough here: the
 * eager loops and the fused ones compute the same bits.  Exception: float sin / cos, whose
 * vector form takes its slow, large-argument reduction for all 8 lanes when one lane needs it;
 * the scalar form decides per element, so a small argument sharing a vector with a huge one can
 * differ in the last bit (tests/trace/footguns).
 *
 * Kernels with their own vector formula (sigmoid, silu, gelu, sinh, cosh, mish) call Sleef only
 * in their vector body (whole 16-float / 8-double blocks of a contiguous run) and libm in the
 * loop tail and on strided input; the expressions use the vector-body form everywhere (the tail
 * of a run and strided inputs may differ in the last bit: footguns).
 *
 * On a CPU without AVX2 + FMA PyTorch runs its DEFAULT kernels, whose Vectorized<T>::op maps
 * the libm function over the lanes, and Sleef's purecfma code cannot run: these then call libm
 * (tensor__vm_sleef, set once at start-up). */
#ifndef EMBER_SRC_TENSOR_VMATH_H
#define EMBER_SRC_TENSOR_VMATH_H

#include <math.h>
#include <stdbool.h>
/* sleef.h declares the purecfma forms only where the compiler targets FMA (FP_FAST_FMA); the
 * library has them, and vmath.c's check guards every call */
#ifndef FP_FAST_FMA
#define FP_FAST_FMA
#define VMATH_UNDEF_FAST_FMA
#endif
#include <sleef.h>
#ifdef VMATH_UNDEF_FAST_FMA
#undef FP_FAST_FMA
#undef VMATH_UNDEF_FAST_FMA
#endif

/* true when the CPU runs PyTorch's AVX2 kernels (AVX2 and FMA): vmath.c sets it before main */
extern bool tensor__vm_sleef;

/* tensor__v<name>f (float) and tensor__v<name> (double): Sleef's purecfma form at accuracy U,
 * else libm.  The libm names are spelled out: <tgmath.h> may make the bare name a macro. */
#define VMATH_FN(NAME, U, LIBF, LIBD)                                                              \
    static inline float tensor__v##NAME##f(float x) {                                              \
        return tensor__vm_sleef ? Sleef_##NAME##f1_##U##purecfma(x) : LIBF(x);                     \
    }                                                                                              \
    static inline double tensor__v##NAME(double x) {                                               \
        return tensor__vm_sleef ? Sleef_##NAME##d1_##U##purecfma(x) : LIBD(x);                     \
    }
VMATH_FN(exp, u10, expf, (exp))
VMATH_FN(log, u10, logf, (log))
VMATH_FN(tanh, u10, tanhf, (tanh))
VMATH_FN(erf, u10, erff, (erf))
VMATH_FN(erfc, u15, erfcf, (erfc))
VMATH_FN(expm1, u10, expm1f, (expm1))
VMATH_FN(log1p, u10, log1pf, (log1p))
VMATH_FN(log2, u10, log2f, (log2))
VMATH_FN(log10, u10, log10f, (log10))
VMATH_FN(sin, u10, sinf, (sin))
VMATH_FN(cos, u10, cosf, (cos))
VMATH_FN(tan, u10, tanf, (tan))
VMATH_FN(asin, u10, asinf, (asin))
VMATH_FN(acos, u10, acosf, (acos))
VMATH_FN(atan, u10, atanf, (atan))
VMATH_FN(sinh, u10, sinhf, (sinh))
VMATH_FN(cosh, u10, coshf, (cosh))
#undef VMATH_FN

#endif
