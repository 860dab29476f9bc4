/* vmath.h — the transcendental functions of the floating kernels, computed as PyTorch 1.13's
 * AVX2 kernels compute them: with Sleef 3.5 (libsleef, the library libtorch_cpu links; loaded on
 * first use, see tensor__sleef below).  The pointwise expressions (pwexpr.h: pw_exp, pw_tanh, ...
 * — eager and fused loops alike), the softmax rows (softmax_rows.c: the vector forms on AVX2
 * rows, the scalar ones elsewhere) and the LSTM cell (rnn.c) call these.
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
#include <immintrin.h>   /* __m256, __m256d (types; the intrinsics run in VMATH_AVX2 code) */

/* true when the CPU runs PyTorch's AVX2 kernels (AVX2 and FMA): vmath.c sets it before main */
extern bool tensor__vm_sleef;

/* Sleef's AVX2 vector forms, 8 floats / 4 doubles, run only in loops carrying VMATH_AVX2 (the
 * library is built for the baseline; vmath.c's check and isa.h's level guard every call) */
#define VMATH_AVX2 __attribute__((target("avx2,fma")))

/* The functions, their Sleef accuracy and their libm names (spelled out: <tgmath.h> may make
 * the bare name a macro). */
#define VMATH_FUNCTIONS(X)                                                                         \
    X(exp, u10, expf, (exp))                                                                       \
    X(log, u10, logf, (log))                                                                       \
    X(tanh, u10, tanhf, (tanh))                                                                    \
    X(erf, u10, erff, (erf))                                                                       \
    X(erfc, u15, erfcf, (erfc))                                                                    \
    X(expm1, u10, expm1f, (expm1))                                                                 \
    X(log1p, u10, log1pf, (log1p))                                                                 \
    X(log2, u10, log2f, (log2))                                                                    \
    X(log10, u10, log10f, (log10))                                                                 \
    X(sin, u10, sinf, (sin))                                                                       \
    X(cos, u10, cosf, (cos))                                                                       \
    X(tan, u10, tanf, (tan))                                                                       \
    X(asin, u10, asinf, (asin))                                                                    \
    X(acos, u10, acosf, (acos))                                                                    \
    X(atan, u10, atanf, (atan))                                                                    \
    X(sinh, u10, sinhf, (sinh))                                                                    \
    X(cosh, u10, coshf, (cosh))

/* Sleef is reached through this table, not linked: loading libsleef and resolving it was ~0.5 ms
 * and 12 page faults of every start-up, scripts without tensors included.  Each slot starts at
 * a loader (vmath.c) that loads the library once (pthread_once) and calls the slot's new value,
 * so whichever call comes first, in whichever thread, every call computes Sleef's bits.  Slots
 * are read with acquire loads (a plain load on x86) and written with release stores.  Per
 * function: Sleef's scalar purecfma forms (f1, d1) and its AVX2 vector forms (f8, d4). */
#define VMATH_SLOTS(NAME, U, LIBF, LIBD)                                                           \
    float (*NAME##_f1)(float);                                                                     \
    double (*NAME##_d1)(double);                                                                   \
    __m256 (*NAME##_f8)(__m256);                                                                   \
    __m256d (*NAME##_d4)(__m256d);
typedef struct VmathSleef {
    VMATH_FUNCTIONS(VMATH_SLOTS)
    float (*pow_f1)(float, float);    /* pow, the one binary function: scalar purecfma forms only */
    double (*pow_d1)(double, double);
} VmathSleef;
#undef VMATH_SLOTS
extern VmathSleef tensor__sleef;
#define VMATH_SLEEF(SLOT) __atomic_load_n(&tensor__sleef.SLOT, __ATOMIC_ACQUIRE)

/* tensor__v<name>f (float) and tensor__v<name> (double): Sleef's purecfma form, else libm.
 * tensor__v<name>f8 / tensor__v<name>d4: the same function on a vector (the lanes' bits are the
 * purecfma form's), called only from VMATH_AVX2 loops. */
#define VMATH_FN(NAME, U, LIBF, LIBD)                                                              \
    static inline float tensor__v##NAME##f(float x) {                                              \
        return tensor__vm_sleef ? VMATH_SLEEF(NAME##_f1)(x) : LIBF(x);                             \
    }                                                                                              \
    static inline double tensor__v##NAME(double x) {                                               \
        return tensor__vm_sleef ? VMATH_SLEEF(NAME##_d1)(x) : LIBD(x);                             \
    }                                                                                              \
    VMATH_AVX2 static inline __m256 tensor__v##NAME##f8(__m256 x) { return VMATH_SLEEF(NAME##_f8)(x); } \
    VMATH_AVX2 static inline __m256d tensor__v##NAME##d4(__m256d x) { return VMATH_SLEEF(NAME##_d4)(x); }
VMATH_FUNCTIONS(VMATH_FN)
#undef VMATH_FN

/* pow(x, y): Sleef's pow_u10 (the vector body of ATen's pow kernels, Vectorized<T>::pow), else
 * libm's powf / pow */
static inline float tensor__vpowf(float x, float y) { return tensor__vm_sleef ? VMATH_SLEEF(pow_f1)(x, y) : powf(x, y); }
static inline double tensor__vpow(double x, double y) { return tensor__vm_sleef ? VMATH_SLEEF(pow_d1)(x, y) : (pow)(x, y); }

/* fma(a, b, c) for the scalar and vector element types (a scalar a is broadcast: the expressions
 * write constants as scalars); the scalar forms are the float and double functions, one
 * rounding each */
VMATH_AVX2 static inline __m256 tensor__vfmaf8(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
VMATH_AVX2 static inline __m256d tensor__vfmad4(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }
static inline float tensor__vidf(float a) { return a; }
static inline double tensor__vidd(double a) { return a; }
VMATH_AVX2 static inline __m256 tensor__vsplatf8(float a) { return _mm256_set1_ps(a); }
VMATH_AVX2 static inline __m256d tensor__vsplatd4(double a) { return _mm256_set1_pd(a); }
#define VMATH_FMA(a, b, c)                                                                         \
    _Generic((c), float: fmaf, __m256: tensor__vfmaf8, __m256d: tensor__vfmad4, default: (fma))(  \
        _Generic((c), float: tensor__vidf, __m256: tensor__vsplatf8, __m256d: tensor__vsplatd4, default: tensor__vidd)(a), b, c)

#endif
