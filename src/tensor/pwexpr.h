/* pwexpr.h — the pointwise part of the op table (the KERNEL column of ember/ops.def) as data, and
 * the scalar vocabulary its kernel expressions are written in.
 *
 * An expression such as `x > C(0) ? x : x * s0` is expanded, unchanged, into the eager loops of
 * src/tensor/pointwise.c (one per dtype family) and into the runtime's fused loops
 * (src/runtime/fuse.c): one definition of what an op computes, so the two agree bit for bit.
 * Inside an expansion the compute type is `pw_t` (float or double for the floating families — one
 * expression serves both —, int64_t, bool: the kernel families of ember/dtypes.def),
 * the operands are x, y, z, the op's arguments a (alpha), s0 / s1 (args.scalar / scalar2 in the
 * compute type) and p (the PwArgs: p->lo, p->hi, p->approx), and C(v) is a constant of the
 * compute type.  Math functions are type-generic (<tgmath.h>): tanh(x) on a float is tanhf.
 *
 * Helpers below are the functions the expressions call; an expression needing a new one adds it
 * here (it is then shared by both expansions).
 *
 * More dtypes (float64, float16, bfloat16, int32/16/8, uint8): the dtype classes are PyTorch's
 * TensorIterator kinds, so promotion changes inside the class rules only (tensor__pw_dtype);
 * a family's expression is instantiated once per dtype of the family with pw_t its compute
 * type (float64 for double; float for half and bfloat16, rounding on store as PyTorch's CPU
 * kernels do; int64_t for the integral types), which is why constants are C(v), math is
 * type-generic and PwArgs keeps doubles: an op line does not change when dtypes are added (the
 * helpers below that take float today then dispatch on their argument's type with _Generic). */
#ifndef EMBER_SRC_TENSOR_PWEXPR_H
#define EMBER_SRC_TENSOR_PWEXPR_H

#include <tgmath.h>
/* <tgmath.h> brings <complex.h>: its `I` and `complex` would capture ordinary identifiers */
#undef I
#undef complex

#include "src/tensor/tensor.h"
#include "src/tensor/pw_special.h"   /* digamma, polygamma, xlogy (branch opsmath) */
#include "src/tensor/vmath.h"        /* Sleef's exp, tanh, erf, log, ... (PyTorch's) */

/* ---- the KERNEL column as data ---------------------------------------------------------------- */

typedef enum PwForm {
    PWF_NONE,            /* not an elementwise kernel */
    PWF_UNARY,
    PWF_BINARY,
    PWF_TERNARY,         /* where: fused only */
    PWF_SCALAR,          /* base op with args.scalar as y */
    PWF_RSCALAR,         /* base op with args.scalar as x */
    PWF_INPLACE,         /* base op written into input 0 */
} PwForm;

/* result dtype classes (PyTorch's TensorIterator kinds) */
typedef enum PwDtype {
    PWDT_SAME, PWDT_FLOAT, PWDT_PROMOTE, PWDT_PROMOTE_SC, PWDT_SUBT, PWDT_CMP, PWDT_LOGIC,
} PwDtype;

typedef enum PwCost { PWC_CHEAP, PWC_LIBM, PWC_SLEEF } PwCost;

/* domains on which the tests check an op's derivative */
typedef enum PwDomain { PWD_NODOM, PWD_ANY, PWD_POS, PWD_AWAY0, PWD_FRAC, PWD_UNIT, PWD_PROB } PwDomain;

enum {
    PWK_F = 1u << 0,         /* floating kernel: float32 and float64 */
    PWK_I = 1u << 1,         /* integer kernel: int64, int32, int16, int8, uint8 (computed in int64) */
    PWK_B = 1u << 2,         /* bool kernel */
    PWK_BI = 1u << 3,        /* bools compute as int64 */
    PWK_ZDIV = 1u << 4,      /* integer kernel divides: a zero divisor is an error */
    PWK_MASK0 = 1u << 5,     /* input 0 is a bool mask */
    PWK_MASK1 = 1u << 6,     /* input 1 is a bool mask */
    PWK_FUSEONLY = 1u << 7,  /* UF / BF / T3: the eager kernel is the op's IMPL line; the expression fuses */
    PWK_H = 1u << 8,         /* float16 (computed in float32): PyTorch 1.13's CPU kernels mostly lack it */
    PWK_BF = 1u << 9,        /* bfloat16 (computed in float32) */
    PWK_FH = PWK_F | PWK_H | PWK_BF,   /* every floating dtype */
    PWK_FB = PWK_F | PWK_BF,           /* floating but float16 */
};

typedef struct PwInfo {
    uint8_t form;            /* PwForm */
    uint8_t dt;              /* PwDtype */
    uint8_t cost;            /* PwCost */
    uint8_t dom;             /* PwDomain */
    uint16_t kinds;          /* PWK_* */
    TensorOp base;           /* SCALAR / RSCALAR / INPLACE: the op whose kernel runs */
    const char *kname;       /* the ATen kernel PyTorch's dispatch errors name (NULL: "<name>_cpu") */
    const char *msg;         /* the op's own error for bool inputs it refuses (NULL: the dispatch error) */
} PwInfo;

/* The op's pointwise entry (form PWF_NONE for the others); inline because the dispatcher reads
 * it on every elementwise op.  tensor__pw_infos is pointwise.c's table, one row per op. */
extern const PwInfo tensor__pw_infos[TENSOR_OP_COUNT];
static inline const PwInfo *tensor__pw_info(TensorOp op) { return &tensor__pw_infos[(unsigned)op < TENSOR_OP_COUNT ? op : 0]; }
/* Whether op's kernel takes dtype d (PyTorch's dispatch of it); -1 with its error if not. */
int tensor__pw_supports(TensorOp op, TensorDtype d) EM_MUST_CHECK;
/* The op whose expression computes op's elements: op itself, or the base of a scalar or
 * in-place form (followed to the end). */
TensorOp tensor__pw_kernel_op(TensorOp op);

/* The arguments an expression reads: the floating families take them from the doubles (rounded
 * to the compute type as PyTorch's kernels round their double arguments), the integral ones
 * from the int64s. */
typedef struct PwArgs {
    double ad, s0d, s1d;
    int64_t ai, s0i, s1i;
    bool lo, hi;
    uint8_t approx; /* gelu: TENSOR_GELU_* */
    /* the op's elements are fewer than one block of ATen's vectorised loop (2 vectors: 16 floats,
     * 8 doubles), so ATen's scalar loop computes all of them (pow: libm, not Sleef; pw_vpow) */
    bool short_run;
} PwArgs;

/* whether n elements of a kernel of dtype family double (or float) are a short run (above) */
static inline bool tensor__pw_short_run(int64_t n, bool double_family) { return n < (double_family ? 8 : 16); }

void tensor__pw_args(const TensorOpArgs *a, PwArgs *out);

/* ---- the scalar vocabulary --------------------------------------------------------------------- */

#define C(v) ((pw_t)(v))

/* The transcendental functions PyTorch's AVX2 kernels take from Sleef (vmath.h): the float
 * family (float32, and bfloat16 computed in float) and the double family each call their width's
 * Sleef function (a bare `exp` would name <tgmath.h>'s macro, hence the _Generic).  The SLEEF rows
 * of the op table (ops.def's COST column) are also evaluated with x a vector of 8 floats / 4
 * doubles (pointwise.c's and fuse.c's PW_VLOOP): the same expression, whose pw_ helpers take the
 * vector forms by type, so it must stay vector-safe (arithmetic, the pw_ functions, pw_fma; no
 * comparisons or selects on x). */
#define PW_VM(NAME, x)                                                                              \
    _Generic((x), float: tensor__v##NAME##f, __m256: tensor__v##NAME##f8, __m256d: tensor__v##NAME##d4, \
             default: tensor__v##NAME)(x)
#define pw_exp(x) PW_VM(exp, x)
#define pw_tanh(x) PW_VM(tanh, x)
#define pw_erf(x) PW_VM(erf, x)
#define pw_log(x) PW_VM(log, x)
#define pw_erfc(x) PW_VM(erfc, x)
#define pw_expm1(x) PW_VM(expm1, x)
#define pw_log1p(x) PW_VM(log1p, x)
#define pw_log2(x) PW_VM(log2, x)
#define pw_log10(x) PW_VM(log10, x)
#define pw_sin(x) PW_VM(sin, x)
#define pw_cos(x) PW_VM(cos, x)
#define pw_tan(x) PW_VM(tan, x)
#define pw_asin(x) PW_VM(asin, x)
#define pw_acos(x) PW_VM(acos, x)
#define pw_atan(x) PW_VM(atan, x)
#define pw_sinh(x) PW_VM(sinh, x)
#define pw_cosh(x) PW_VM(cosh, x)

/* A SLEEF row's expression over n elements of type T (float / double) read from SRC with byte stride
 * SS, written to DST with byte stride DS, with x a vector V of L lanes: whole vectors of a
 * contiguous run are loaded directly, a tail or a strided run goes through a zero-padded buffer,
 * as ATen's vml kernels and Vectorized loops do (a lane's value never depends on the others').
 * Only VMATH_AVX2 code expands it; eager (pointwise.c) and fused (fuse.c) loops share it. */
#define PW_VLOOP(T, V, L, DST, DS, SRC, SS, n, EXPR)                                                \
    do {                                                                                            \
        char *pw_o_ = (DST);                                                                        \
        const char *pw_a_ = (SRC);                                                                  \
        int64_t pw_i_ = 0;                                                                          \
        if ((DS) == (int64_t)sizeof(T) && (SS) == (int64_t)sizeof(T))                               \
            for (; pw_i_ + (L) <= (n); pw_i_ += (L)) {                                              \
                V x, pw_r_;                                                                         \
                memcpy(&x, pw_a_ + pw_i_ * (int64_t)sizeof(T), sizeof x);                           \
                pw_r_ = (EXPR);                                                                     \
                memcpy(pw_o_ + pw_i_ * (int64_t)sizeof(T), &pw_r_, sizeof pw_r_);                   \
            }                                                                                       \
        for (; pw_i_ < (n); pw_i_ += (L)) {                                                         \
            T pw_b_[L] = {0};                                                                       \
            int64_t pw_m_ = (n) - pw_i_ < (L) ? (n) - pw_i_ : (L);                                  \
            for (int64_t k = 0; k < pw_m_; k++) pw_b_[k] = *(const T *)(pw_a_ + (pw_i_ + k) * (SS)); \
            V x, pw_r_;                                                                             \
            memcpy(&x, pw_b_, sizeof x);                                                            \
            pw_r_ = (EXPR);                                                                         \
            memcpy(pw_b_, &pw_r_, sizeof pw_r_);                                                    \
            for (int64_t k = 0; k < pw_m_; k++) *(T *)(pw_o_ + (pw_i_ + k) * (DS)) = pw_b_[k];      \
        }                                                                                           \
    } while (0)

/* x + alpha * y as ATen computes it for floats (ufunc::add: its vector form is
 * vec::fmadd(y, alpha, x), one rounding; sub is add with -alpha); alpha 1 is the plain sum, which
 * the fused multiply-add would give too, written out so a CPU without FMA keeps a vector add */
#define pw_fma(a, b, c) VMATH_FMA(a, b, c)
#define pw_add_alpha(x, y, a) ((a) == C(1) ? (x) + (y) : fma(y, a, x))
/* 1 - y*y as ATen's tanh_backward kernel computes it: GCC contracts `1 - b * b` into one fused
 * negative multiply-add on a CPU running its AVX2 + FMA kernels (vmath.h tensor__vm_sleef); the
 * DEFAULT kernels round the product and the difference apart.  Scalar only (a CHEAP row). */
#define pw_one_minus_sq(y) (tensor__vm_sleef ? pw_fma(C(0) - (y), y, C(1)) : C(1) - (y) * (y))
/* ATen's vector form (its loop tails compute 1 / (1 + std::exp(-x)), the same but for exp) */
#define pw_sigmoid(x) (C(1) / (C(1) + pw_exp(C(0) - (x))))
/* ATen's silu: x / (1 + e^-x), not x times the sigmoid (its vector form; the tail's is the same
 * but for exp) */
#define pw_silu(x) ((x) / (C(1) + pw_exp(-(x))))
/* gelu from erf(x / sqrt 2): the runtime reuses a computed erf through this form */
#define pw_gelu_from_erf(x, e) (C(0.5) * (x) * (C(1) + (e)))
#define pw_gelu_erf(x) pw_gelu_from_erf(x, pw_erf((x) * C(0.7071067811865476)))
/* ATen's tanh form: kBeta * (x + kKappa * x^3) with the sum fused (its AVX2 build contracts
 * `x + kKappa * x_cube` into one FMA), kBeta = sqrt 2 * 2 / sqrt pi * 0.5 as it spells it */
#define pw_gelu_tanh(x)                                                                             \
    (C(0.5) * (x) * (C(1) + pw_tanh(C(M_SQRT2 * M_2_SQRTPI * 0.5) * pw_fma(C(0.044715), (x) * (x) * (x), (x)))))
/* x ** 2 is x * x, as ATen's pow_tensor_scalar kernel computes it (and the one correctly rounded
 * square either way): libm's pow call was ~2% of a Transformer training step (`(a - b) ** 2`).
 * x ** 1 is x, as ATen's pow_out copies the base for an exponent of 1 (and pow(x, 1) is exactly
 * x): the backward of x ** 2 computes 2 * x ** 1, ~1% of that step in libm's pow. */
/* pow of a float or double: ATen's vector body (Vectorized<T>::pow, Sleef's pow_u10) for the
 * elements of whole 16-float / 8-double blocks, its scalar loop (std::pow: libm) for a run too
 * short for a block (p->short_run).  The tail of a longer run is also ATen's scalar loop; the
 * expression has no element position, so those elements take the vector form (footguns). */
#define pw_vpow(x, y)                                                                               \
    (p->short_run ? pow(x, y) : _Generic((x), float: tensor__vpowf, default: tensor__vpow)((x), (y)))
#define pw_pow(x, y) ((y) == C(2) ? (x) * (x) : (y) == C(1) ? (x) : pw_vpow(x, y))
/* x ** scalar as ATen 1.13's pow_tensor_scalar kernel computes it for floating types: the
 * exponents 0.5, -0.5 and -1 are the sqrt, rsqrt and reciprocal kernels (their expressions
 * here), 2, 3 and -2 are products (x * x * x rounds twice: pow(x, 3) would round once, and minGPT's
 * GELU cubes its input), any other the pow function (pw_vpow: Sleef's in ATen's vector body, libm's
 * in its scalar loop).
 * A tensor exponent (pow(Tensor, Tensor), pw_pow) has none of these cases in ATen. */
#define pw_pow_scalar_exp(x, y)                                                                     \
    ((y) == C(2)      ? (x) * (x)                                                                   \
     : (y) == C(3)    ? (x) * (x) * (x)                                                             \
     : (y) == C(1)    ? (x)                                                                         \
     : (y) == C(0.5)  ? sqrt(x)                                                                     \
     : (y) == C(-0.5) ? C(1) / sqrt(x)                                                              \
     : (y) == C(-1)   ? C(1) / (x)                                                                  \
     : (y) == C(-2)   ? C(1) / ((x) * (x))                                                          \
                      : pw_vpow(x, y))
#define pw_sign(x) ((pw_t)(((x) > 0) - ((x) < 0)))

/* The helpers below come in a float and a double version; the pw_ names pick by the type of x,
 * so the one expression serves both floating families. */
#define PW_FD(name, x, ...) _Generic((x), double: name##_d, default: name##_f)((x), __VA_ARGS__)

#define PW_FLOAT_HELPERS(T, SUF, FMOD, FLOOR, COPYSIGN)                                             \
    static inline T pw_fmax_##SUF(T x, T y) { return (isnan(x) || isnan(y)) ? (T)NAN : (x > y ? x : y); }       \
    static inline T pw_fmin_##SUF(T x, T y) { return (isnan(x) || isnan(y)) ? (T)NAN : (x < y ? x : y); }       \
    static inline T pw_fclamp_##SUF(T x, T lo, T hi, bool has_lo, bool has_hi) {                \
        if (isnan(x)) return x;                                                                 \
        if (has_lo && x < lo) x = lo;                                                           \
        if (has_hi && x > hi) x = hi;                                                           \
        return x;                                                                               \
    }                                                                                           \
    /* Python's % and //: the result takes the divisor's sign */                                \
    static inline T pw_fremainder_##SUF(T x, T y) {                                             \
        T r = FMOD(x, y);                                                                       \
        if (r != 0 && ((r < 0) != (y < 0))) r += y;                                             \
        return r;                                                                               \
    }                                                                                           \
    static inline T pw_ffloordiv_##SUF(T a, T b) {                                              \
        if (b == 0) return a / b;                                                               \
        T mod = FMOD(a, b);                                                                     \
        T div = (a - mod) / b;                                                                  \
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                                       \
        T fl;                                                                                   \
        if (div != 0) {                                                                         \
            fl = FLOOR(div);                                                                    \
            if (div - fl > (T)0.5) fl += 1;                                                     \
        } else {                                                                                \
            fl = COPYSIGN((T)0, a / b);                                                         \
        }                                                                                       \
        return fl;                                                                              \
    }
PW_FLOAT_HELPERS(float, f, fmodf, floorf, copysignf)
PW_FLOAT_HELPERS(double, d, fmod, floor, copysign)
#undef PW_FLOAT_HELPERS
#define pw_fmax(x, y) PW_FD(pw_fmax, x, y)
#define pw_fmin(x, y) PW_FD(pw_fmin, x, y)
#define pw_fclamp(x, lo, hi, has_lo, has_hi) PW_FD(pw_fclamp, x, lo, hi, has_lo, has_hi)
#define pw_fremainder(x, y) PW_FD(pw_fremainder, x, y)
#define pw_ffloordiv(x, y) PW_FD(pw_ffloordiv, x, y)
#define pw_digamma(x) _Generic((x), double: pw_digamma_d, default: pw_digamma_f)(x)
#define pw_polygamma(x, n) PW_FD(pw_polygamma, x, (int64_t)(n))
#define pw_xlogy(x, y) PW_FD(pw_xlogy, x, y)

static inline int64_t pw_iclamp(int64_t x, int64_t lo, int64_t hi, bool has_lo, bool has_hi) {
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
}
static inline int64_t pw_iremainder(int64_t x, int64_t y) {
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
/* truncated remainder (C's %, as std::fmod on integers); y == -1 spares INT64_MIN % -1 */
static inline int64_t pw_ifmod(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }
static inline int64_t pw_ifloordiv(int64_t x, int64_t y) {
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}
static inline int64_t pw_ipow(int64_t b, int64_t e) {
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, ub = (uint64_t)b;   /* wraps as ATen's int pow does (unsigned: no UB) */
    while (e) {
        if (e & 1) r *= ub;
        ub *= ub;
        e >>= 1;
    }
    return (int64_t)r;
}

/* The inverse error function: Giles' single-precision approximation ("Approximating the erfinv
 * function", 2010) refined by two Newton steps on erf in double, so the float result is the
 * correctly rounded one but for rare ties; +-1 give +-inf, |x| > 1 NaN. */
static inline double pw_erfinv(double x) {
    if (isnan(x) || x < -1.0 || x > 1.0) return NAN;
    if (x == 1.0 || x == -1.0) return copysign(INFINITY, x);
    double w = -log((1.0 - x) * (1.0 + x)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    double r = p * x;
    for (int i = 0; i < 2; i++) r -= (erf(r) - x) / (1.1283791670955126 * exp(-r * r));
    return r;
}

/* log(x / (1 - x)) with x clipped to [lo, hi] when an eps is given, as ATen's logit kernel */
static inline float pw_logit_f(float x, bool clip, float lo, float hi) {
    if (clip) x = x < lo ? lo : (x > hi ? hi : x);
    else if (x == 1.0f) return INFINITY;
    return logf(x / (1.0f - x));
}
static inline double pw_logit_d(double x, bool clip, double lo, double hi) {
    if (clip) x = x < lo ? lo : (x > hi ? hi : x);
    else if (x == 1.0) return INFINITY;
    return log(x / (1.0 - x));
}
#define pw_logit(x, clip, lo, hi) PW_FD(pw_logit, x, clip, lo, hi)

/* sin(pi x) / (pi x), 1 at 0, as ATen's sinc kernel (the product in the compute type) */
#define PW_SINC_HELPERS(T, SUF, PI)                                                                 \
    static inline T pw_sinc_##SUF(T x) {                                                        \
        if (x == (T)0) return (T)1;                                                             \
        T prod = PI * x;                                                                        \
        return sin(prod) / prod;                                                                \
    }                                                                                           \
    /* log(e^x + e^y) and log2(2^x + 2^y) without overflow: ATen's logaddexp(2) kernels */       \
    static inline T pw_logaddexp_##SUF(T x, T y) {                                              \
        if (isinf(x) && x == y) return x;                                                       \
        T m = x < y ? y : x;                                                                    \
        return m + log1p(exp(-fabs(x - y)));                                                    \
    }                                                                                           \
    static inline T pw_logaddexp2_##SUF(T x, T y) {                                             \
        if (isinf(x) && x == y) return x;                                                       \
        T m = x < y ? y : x;                                                                    \
        return m + log1p(exp2(-fabs(x - y))) * (T)1.4426950408889634;                           \
    }
PW_SINC_HELPERS(float, f, 3.14159265358979323846f)
PW_SINC_HELPERS(double, d, 3.14159265358979323846)
#undef PW_SINC_HELPERS
#define pw_sinc(x) _Generic((x), double: pw_sinc_d, default: pw_sinc_f)(x)
#define pw_logaddexp(x, y) PW_FD(pw_logaddexp, x, y)
#define pw_logaddexp2(x, y) PW_FD(pw_logaddexp2, x, y)

#include "src/tensor/opexpand.h"

#endif
