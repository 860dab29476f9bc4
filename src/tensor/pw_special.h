/* pw_special.h — the special functions the op table's kernel expressions call (lgamma is libm's):
 * digamma, trigamma, polygamma through the Hurwitz zeta function, and xlogy.  Each comes in a
 * float and a double version computing in that type, as ATen's CPU kernels do (calc_digamma,
 * calc_trigamma, calc_polygamma and zeta in ATen's Math.h follow the Cephes algorithms; these
 * are the same algorithms), so float32 results round as PyTorch's.  Included by pwexpr.h. */
#ifndef EMBER_SRC_TENSOR_PW_SPECIAL_H
#define EMBER_SRC_TENSOR_PW_SPECIAL_H

#include <stdint.h>
/* type-generic math: one algorithm text serves float and double (as in pwexpr.h) */
#include <tgmath.h>
#undef I
#undef complex

/* digamma: reflection for negative x, recurrence up to x >= 10, then the asymptotic series */
#define PW_DEF_DIGAMMA(SUF, T, PI, PSI10)                                                       \
    static inline T pw_digamma_##SUF(T x) {                                                     \
        static const T A[] = {(T)8.33333333333333333333E-2, (T)-2.10927960927960927961E-2,      \
                              (T)7.57575757575757575758E-3, (T)-4.16666666666666666667E-3,      \
                              (T)3.96825396825396825397E-3, (T)-8.33333333333333333333E-3,      \
                              (T)8.33333333333333333333E-2};                                    \
        if (x == 0) return copysign((T)INFINITY, -x);                                           \
        if (x < 0) {                                                                            \
            if (x == trunc(x)) return (T)NAN;                                                   \
            T r = x - trunc(x); /* modf's fractional part (exact) */                           \
            return pw_digamma_##SUF(1 - x) - PI / tan(PI * r);                                  \
        }                                                                                       \
        T result = 0;                                                                           \
        while (x < 10) {                                                                        \
            result -= 1 / x;                                                                    \
            x += 1;                                                                             \
        }                                                                                       \
        if (x == 10) return result + PSI10;                                                     \
        T y = 0;                                                                                \
        if (x < (T)1.0e17) {                                                                    \
            T z = 1 / (x * x);                                                                  \
            T acc = A[0];                                                                       \
            for (int i = 1; i <= 6; i++) acc = acc * z + A[i];                                  \
            y = z * acc;                                                                        \
        }                                                                                       \
        return result + log(x) - ((T)0.5 / x) - y;                                              \
    }

/* trigamma: reflection below 0.5, six recurrence steps, then the asymptotic series */
#define PW_DEF_TRIGAMMA(SUF, T, PI)                                                             \
    static inline T pw_trigamma_##SUF(T x) {                                                    \
        T sign = 1, result = 0;                                                                 \
        if (x < (T)0.5) {                                                                       \
            sign = -1;                                                                          \
            T s = sin(PI * x);                                                                  \
            result -= (PI * PI) / (s * s);                                                      \
            x = 1 - x;                                                                          \
        }                                                                                       \
        for (int i = 0; i < 6; i++) {                                                           \
            result += 1 / (x * x);                                                              \
            x += 1;                                                                             \
        }                                                                                       \
        T ixx = 1 / (x * x);                                                                    \
        result += (1 + 1 / (2 * x) + ixx * ((T)(1. / 6) - ixx * ((T)(1. / 30) - ixx * (T)(1. / 42)))) / x; \
        return sign * result;                                                                   \
    }

/* the Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x: direct terms, then Euler-Maclaurin */
#define PW_DEF_ZETA(SUF, T)                                                                     \
    static inline T pw_zeta_##SUF(T x, T q) {                                                   \
        static const T A[] = {(T)12.0, (T)-720.0, (T)30240.0, (T)-1209600.0, (T)47900160.0,     \
                              (T)-1.8924375803183791606e9, (T)7.47242496e10,                    \
                              (T)-2.950130727918164224e12, (T)1.1646782814350067249e14,         \
                              (T)-4.5979787224074726105e15, (T)1.8152105401943546773e17,        \
                              (T)-7.1661652561756670113e18};                                    \
        const T machep = (T)1.11022302462515654042E-16;                                         \
        if (x == 1) return (T)INFINITY;                                                         \
        if (x < 1) return (T)NAN;                                                               \
        if (q <= 0) {                                                                           \
            if (q == trunc(q)) return (T)INFINITY;                                              \
            if (x != trunc(x)) return (T)NAN;                                                   \
        }                                                                                       \
        T s = pow(q, -x), a = q, b = 0;                                                         \
        int i = 0;                                                                              \
        while (i < 9 || a <= (T)9.0) {                                                          \
            i++;                                                                                \
            a += 1;                                                                             \
            b = pow(a, -x);                                                                     \
            s += b;                                                                             \
            if (-machep * s < b && b < machep * s) return s;                                    \
        }                                                                                       \
        T w = a, k = 0;                                                                         \
        s += b * w / (x - 1);                                                                   \
        s -= (T)0.5 * b;                                                                        \
        a = 1;                                                                                  \
        for (int j = 0; j < 12; j++) {                                                          \
            a *= x + k;                                                                         \
            b /= w;                                                                             \
            T t = a * b / A[j];                                                                 \
            s = s + t;                                                                          \
            t = fabs(t / s);                                                                    \
            if (t < machep) return s;                                                           \
            k += 1;                                                                             \
            a *= x + k;                                                                         \
            b /= w;                                                                             \
            k += 1;                                                                             \
        }                                                                                       \
        return s;                                                                               \
    }

PW_DEF_DIGAMMA(f, float, 3.14159265358979323846f, 2.25175258906672110764f)
PW_DEF_DIGAMMA(d, double, 3.14159265358979323846, 2.25175258906672110764)
PW_DEF_TRIGAMMA(f, float, 3.14159265358979323846f)
PW_DEF_TRIGAMMA(d, double, 3.14159265358979323846)
PW_DEF_ZETA(f, float)
PW_DEF_ZETA(d, double)

/* polygamma(n, x): digamma, trigamma, else (-1)^(n+1) n! zeta(n + 1, x) (ATen's calc_polygamma) */
static inline float pw_polygamma_f(float x, int64_t n) {
    if (n == 0) return pw_digamma_f(x);
    if (n == 1) return pw_trigamma_f(x);
    return ((n % 2) ? 1.0f : -1.0f) * expf(lgammaf((float)n + 1.0f)) * pw_zeta_f((float)(n + 1), x);
}
static inline double pw_polygamma_d(double x, int64_t n) {
    if (n == 0) return pw_digamma_d(x);
    if (n == 1) return pw_trigamma_d(x);
    return ((n % 2) ? 1.0 : -1.0) * exp(lgamma((double)n + 1.0)) * pw_zeta_d((double)(n + 1), x);
}

/* x * log(y), 0 where x == 0 (unless y is NaN), as ATen's xlogy */
static inline float pw_xlogy_f(float x, float y) {
    if (isnan(y)) return NAN;
    if (x == 0) return 0;
    return x * logf(y);
}
static inline double pw_xlogy_d(double x, double y) {
    if (isnan(y)) return NAN;
    if (x == 0) return 0;
    return x * log(y);
}

#endif
