/* vm/mod_cmath.c — the cmath module: complex exp, log, roots, trigonometric and hyperbolic
 * functions with CPython 3.11's results to the last bit and its exceptions.
 *
 * Behaviour is C99 Annex G's, as CPython implements it: each c_* function below returns the
 * recommended value and reports through *err what CPython's errno would hold afterwards
 * (0; EDOM for Annex G's divide-by-zero/invalid, raised as ValueError("math domain error");
 * ERANGE for overflow, raised as OverflowError("math range error")).  The error is threaded
 * explicitly rather than read from errno, except where CPython's own answer comes from libm
 * setting errno (phase's atan2).  Non-finite arguments are answered from 7x7 tables indexed by
 * the class of the real and the imaginary part; the finite paths use CPython's formulas, which
 * rescale to dodge spurious overflow and underflow, and the same libm calls, so the bits agree. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct {
    double re, im;
} Cz;

/* ---- special values --------------------------------------------------------------------------- */

/* The class of a double, the index into the special-value tables. */
enum { SV_NINF, SV_NEG, SV_NZERO, SV_PZERO, SV_POS, SV_PINF, SV_NAN, SV_COUNT };

static int sv_class(double d) {
    if (isnan(d)) return SV_NAN;
    bool neg = signbit(d) != 0;
    if (isinf(d)) return neg ? SV_NINF : SV_PINF;
    if (d == 0.0) return neg ? SV_NZERO : SV_PZERO;
    return neg ? SV_NEG : SV_POS;
}

static bool cz_finite(Cz z) { return isfinite(z.re) && isfinite(z.im); }

/* Table entries: rows by the real part's class, columns by the imaginary part's, in SV_ order.
 * Cells where both parts are finite and nonzero are never read (those arguments take the
 * computed path); they hold 0. */
#define PI_ M_PI
#define PI4 (0.25 * M_PI)
#define PI2 (0.5 * M_PI)
#define PI34 (0.75 * M_PI)
#define INF_ INFINITY
#define NAN_ NAN
#define Z {0.0, 0.0} /* unreachable cell */
typedef Cz SvTable[SV_COUNT][SV_COUNT];

static const SvTable sv_acos = {
    {{PI34, INF_}, {PI_, INF_}, {PI_, INF_}, {PI_, -INF_}, {PI_, -INF_}, {PI34, -INF_}, {NAN_, INF_}},
    {{PI2, INF_}, Z, Z, Z, Z, {PI2, -INF_}, {NAN_, NAN_}},
    {{PI2, INF_}, Z, {PI2, 0.0}, {PI2, -0.0}, Z, {PI2, -INF_}, {PI2, NAN_}},
    {{PI2, INF_}, Z, {PI2, 0.0}, {PI2, -0.0}, Z, {PI2, -INF_}, {PI2, NAN_}},
    {{PI2, INF_}, Z, Z, Z, Z, {PI2, -INF_}, {NAN_, NAN_}},
    {{PI4, INF_}, {0.0, INF_}, {0.0, INF_}, {0.0, -INF_}, {0.0, -INF_}, {PI4, -INF_}, {NAN_, INF_}},
    {{NAN_, INF_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, -INF_}, {NAN_, NAN_}},
};

static const SvTable sv_acosh = {
    {{INF_, -PI34}, {INF_, -PI_}, {INF_, -PI_}, {INF_, PI_}, {INF_, PI_}, {INF_, PI34}, {INF_, NAN_}},
    {{INF_, -PI2}, Z, Z, Z, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, {0.0, -PI2}, {0.0, PI2}, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, {0.0, -PI2}, {0.0, PI2}, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, Z, Z, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI4}, {INF_, -0.0}, {INF_, -0.0}, {INF_, 0.0}, {INF_, 0.0}, {INF_, PI4}, {INF_, NAN_}},
    {{INF_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {INF_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_asinh = {
    {{-INF_, -PI4}, {-INF_, -0.0}, {-INF_, -0.0}, {-INF_, 0.0}, {-INF_, 0.0}, {-INF_, PI4}, {-INF_, NAN_}},
    {{-INF_, -PI2}, Z, Z, Z, Z, {-INF_, PI2}, {NAN_, NAN_}},
    {{-INF_, -PI2}, Z, {-0.0, -0.0}, {-0.0, 0.0}, Z, {-INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, Z, Z, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI4}, {INF_, -0.0}, {INF_, -0.0}, {INF_, 0.0}, {INF_, 0.0}, {INF_, PI4}, {INF_, NAN_}},
    {{INF_, NAN_}, {NAN_, NAN_}, {NAN_, -0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {INF_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_atanh = {
    {{-0.0, -PI2}, {-0.0, -PI2}, {-0.0, -PI2}, {-0.0, PI2}, {-0.0, PI2}, {-0.0, PI2}, {-0.0, NAN_}},
    {{-0.0, -PI2}, Z, Z, Z, Z, {-0.0, PI2}, {NAN_, NAN_}},
    {{-0.0, -PI2}, Z, {-0.0, -0.0}, {-0.0, 0.0}, Z, {-0.0, PI2}, {-0.0, NAN_}},
    {{0.0, -PI2}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {0.0, PI2}, {0.0, NAN_}},
    {{0.0, -PI2}, Z, Z, Z, Z, {0.0, PI2}, {NAN_, NAN_}},
    {{0.0, -PI2}, {0.0, -PI2}, {0.0, -PI2}, {0.0, PI2}, {0.0, PI2}, {0.0, PI2}, {0.0, NAN_}},
    {{0.0, -PI2}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {0.0, PI2}, {NAN_, NAN_}},
};

static const SvTable sv_cosh = {
    {{INF_, NAN_}, Z, {INF_, 0.0}, {INF_, -0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, 0.0}, Z, {1.0, 0.0}, {1.0, -0.0}, Z, {NAN_, 0.0}, {NAN_, 0.0}},
    {{NAN_, 0.0}, Z, {1.0, -0.0}, {1.0, 0.0}, Z, {NAN_, 0.0}, {NAN_, 0.0}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{INF_, NAN_}, Z, {INF_, -0.0}, {INF_, 0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, {NAN_, NAN_}, {NAN_, 0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_exp = {
    {{0.0, 0.0}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {0.0, 0.0}, {0.0, 0.0}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, {1.0, -0.0}, {1.0, 0.0}, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, {1.0, -0.0}, {1.0, 0.0}, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{INF_, NAN_}, Z, {INF_, -0.0}, {INF_, 0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, {NAN_, NAN_}, {NAN_, -0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_log = {
    {{INF_, -PI34}, {INF_, -PI_}, {INF_, -PI_}, {INF_, PI_}, {INF_, PI_}, {INF_, PI34}, {INF_, NAN_}},
    {{INF_, -PI2}, Z, Z, Z, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, {-INF_, -PI_}, {-INF_, PI_}, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, {-INF_, -0.0}, {-INF_, 0.0}, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI2}, Z, Z, Z, Z, {INF_, PI2}, {NAN_, NAN_}},
    {{INF_, -PI4}, {INF_, -0.0}, {INF_, -0.0}, {INF_, 0.0}, {INF_, 0.0}, {INF_, PI4}, {INF_, NAN_}},
    {{INF_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {INF_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_sinh = {
    {{INF_, NAN_}, Z, {-INF_, -0.0}, {-INF_, 0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{0.0, NAN_}, Z, {-0.0, -0.0}, {-0.0, 0.0}, Z, {0.0, NAN_}, {0.0, NAN_}},
    {{0.0, NAN_}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {0.0, NAN_}, {0.0, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{INF_, NAN_}, Z, {INF_, -0.0}, {INF_, 0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, {NAN_, NAN_}, {NAN_, -0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}},
};

static const SvTable sv_sqrt = {
    {{INF_, -INF_}, {0.0, -INF_}, {0.0, -INF_}, {0.0, INF_}, {0.0, INF_}, {INF_, INF_}, {NAN_, INF_}},
    {{INF_, -INF_}, Z, Z, Z, Z, {INF_, INF_}, {NAN_, NAN_}},
    {{INF_, -INF_}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {INF_, INF_}, {NAN_, NAN_}},
    {{INF_, -INF_}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {INF_, INF_}, {NAN_, NAN_}},
    {{INF_, -INF_}, Z, Z, Z, Z, {INF_, INF_}, {NAN_, NAN_}},
    {{INF_, -INF_}, {INF_, -0.0}, {INF_, -0.0}, {INF_, 0.0}, {INF_, 0.0}, {INF_, INF_}, {INF_, NAN_}},
    {{INF_, -INF_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}, {INF_, INF_}, {NAN_, NAN_}},
};

static const SvTable sv_tanh = {
    {{-1.0, 0.0}, Z, {-1.0, -0.0}, {-1.0, 0.0}, Z, {-1.0, 0.0}, {-1.0, 0.0}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, {-0.0, -0.0}, {-0.0, 0.0}, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{1.0, 0.0}, Z, {1.0, -0.0}, {1.0, 0.0}, Z, {1.0, 0.0}, {1.0, 0.0}},
    {{NAN_, NAN_}, {NAN_, NAN_}, {NAN_, -0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}},
};

/* rect(r, phi): rows by r's class, columns by phi's */
static const SvTable sv_rect = {
    {{INF_, NAN_}, Z, {-INF_, 0.0}, {-INF_, -0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{0.0, 0.0}, Z, {-0.0, 0.0}, {-0.0, -0.0}, Z, {0.0, 0.0}, {0.0, 0.0}},
    {{0.0, 0.0}, Z, {0.0, -0.0}, {0.0, 0.0}, Z, {0.0, 0.0}, {0.0, 0.0}},
    {{NAN_, NAN_}, Z, Z, Z, Z, {NAN_, NAN_}, {NAN_, NAN_}},
    {{INF_, NAN_}, Z, {INF_, -0.0}, {INF_, 0.0}, Z, {INF_, NAN_}, {INF_, NAN_}},
    {{NAN_, NAN_}, {NAN_, NAN_}, {NAN_, 0.0}, {NAN_, 0.0}, {NAN_, NAN_}, {NAN_, NAN_}, {NAN_, NAN_}},
};

static Cz sv_lookup(const SvTable *t, Cz z) { return (*t)[sv_class(z.re)][sv_class(z.im)]; }

/* ---- the functions ---------------------------------------------------------------------------- */

/* Thresholds: beyond LARGE the square-root based formulas would overflow, so the inverse
 * functions switch to asymptotic forms; beyond log(LARGE) exp/cosh/sinh of the real part
 * would overflow where the complex result need not. */
#define CM_LARGE (DBL_MAX / 4.0)
#define CM_SQRT_LARGE sqrt(CM_LARGE)
#define CM_LOG_LARGE log(CM_LARGE)
#define CM_SQRT_DBL_MIN sqrt(DBL_MIN)
/* Subnormal inputs to sqrt are scaled by 2**SCALE_UP (odd, so the root scales by a whole power
 * of two, 2**SCALE_DOWN). */
#define CM_SCALE_UP (2 * (DBL_MANT_DIG / 2) + 1)
#define CM_SCALE_DOWN (-(CM_SCALE_UP + 1) / 2)

/* i*z and -i*z: asin, atan, sin, tan are rotations of their hyperbolic twins */
static Cz times_i(Cz z) { return (Cz){-z.im, z.re}; }
static Cz times_minus_i(Cz z) { return (Cz){z.im, -z.re}; }

/* log1p keeping the sign of a zero argument */
static double log1p_z(double x) { return x == 0.0 ? x : log1p(x); }

static double c_abs(Cz z, int *err) {
    if (!cz_finite(z)) {
        if (isinf(z.re)) {
            *err = 0;
            return fabs(z.re);
        }
        if (isinf(z.im)) {
            *err = 0;
            return fabs(z.im);
        }
        return NAN;   /* *err untouched, as CPython leaves errno */
    }
    double h = hypot(z.re, z.im);
    *err = isfinite(h) ? 0 : ERANGE;
    return h;
}

static Cz c_sqrt(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_sqrt, z);
    }
    if (z.re == 0.0 && z.im == 0.0) return (Cz){0.0, z.im};   /* *err untouched */
    double ax = fabs(z.re), ay = fabs(z.im), s;
    if (ax < DBL_MIN && ay < DBL_MIN) {   /* hypot would be subnormal: scale up first */
        ax = ldexp(ax, CM_SCALE_UP);
        s = ldexp(sqrt(ax + hypot(ax, ldexp(ay, CM_SCALE_UP))), CM_SCALE_DOWN);
    } else {   /* s = sqrt((x + |z|) / 2), computed at 1/8 scale so x + |z| cannot overflow */
        ax /= 8.0;
        s = 2.0 * sqrt(ax + hypot(ax, ay / 8.0));
    }
    double d = ay / (2.0 * s);
    *err = 0;
    return z.re >= 0.0 ? (Cz){s, copysign(d, z.im)} : (Cz){d, copysign(s, z.im)};
}

static Cz c_acos(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_acos, z);
    }
    Cz r;
    if (fabs(z.re) > CM_LARGE || fabs(z.im) > CM_LARGE) {
        r.re = atan2(fabs(z.im), z.re);
        r.im = -copysign(log(hypot(z.re / 2.0, z.im / 2.0)) + M_LN2 * 2.0, z.im);
    } else {
        Cz a = c_sqrt((Cz){1.0 - z.re, -z.im}, err), b = c_sqrt((Cz){1.0 + z.re, z.im}, err);
        r.re = 2.0 * atan2(a.re, b.re);
        r.im = asinh(b.re * a.im - b.im * a.re);
    }
    *err = 0;
    return r;
}

static Cz c_acosh(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_acosh, z);
    }
    Cz r;
    if (fabs(z.re) > CM_LARGE || fabs(z.im) > CM_LARGE) {
        r.re = log(hypot(z.re / 2.0, z.im / 2.0)) + M_LN2 * 2.0;
        r.im = atan2(z.im, z.re);
    } else {
        Cz a = c_sqrt((Cz){z.re - 1.0, z.im}, err), b = c_sqrt((Cz){z.re + 1.0, z.im}, err);
        r.re = asinh(a.re * b.re + a.im * b.im);
        r.im = 2.0 * atan2(a.im, b.re);
    }
    *err = 0;
    return r;
}

static Cz c_asinh(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_asinh, z);
    }
    Cz r;
    if (fabs(z.re) > CM_LARGE || fabs(z.im) > CM_LARGE) {
        double l = log(hypot(z.re / 2.0, z.im / 2.0)) + M_LN2 * 2.0;
        r.re = z.im >= 0.0 ? copysign(l, z.re) : -copysign(l, -z.re);
        r.im = atan2(z.im, fabs(z.re));
    } else {
        Cz a = c_sqrt((Cz){1.0 + z.im, -z.re}, err), b = c_sqrt((Cz){1.0 - z.im, z.re}, err);
        r.re = asinh(a.re * b.im - b.re * a.im);
        r.im = atan2(z.im, a.re * b.re - a.im * b.im);
    }
    *err = 0;
    return r;
}

static Cz c_asin(Cz z, int *err) { return times_minus_i(c_asinh(times_i(z), err)); }

static Cz c_atanh(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_atanh, z);
    }
    if (z.re < 0.0) {   /* atanh is odd: work with a nonnegative real part */
        Cz r = c_atanh((Cz){-z.re, -z.im}, err);
        return (Cz){-r.re, -r.im};
    }
    double ay = fabs(z.im);
    Cz r;
    if (z.re > CM_SQRT_LARGE || ay > CM_SQRT_LARGE) {   /* atanh(z) ~ 1/z +- i*pi/2 */
        double h = hypot(z.re / 2.0, z.im / 2.0);
        r.re = z.re / 4.0 / h / h;
        r.im = copysign(M_PI / 2.0, z.im);
        *err = 0;
    } else if (z.re == 1.0 && ay < CM_SQRT_DBL_MIN) {
        if (ay == 0.0) {   /* the pole: inf +- 0i, a domain error */
            r.re = INFINITY;
            r.im = z.im;
            *err = EDOM;
        } else {
            r.re = -log(sqrt(ay) / sqrt(hypot(ay, 2.0)));
            r.im = copysign(atan2(2.0, -ay) / 2, z.im);
            *err = 0;
        }
    } else {
        r.re = log1p_z(4.0 * z.re / ((1 - z.re) * (1 - z.re) + ay * ay)) / 4.0;
        r.im = -atan2(-2.0 * z.im, (1 - z.re) * (1 + z.re) - ay * ay) / 2.0;
        *err = 0;
    }
    return r;
}

static Cz c_atan(Cz z, int *err) { return times_minus_i(c_atanh(times_i(z), err)); }

/* For cosh, sinh and exp: the value at (+-inf, y) for finite nonzero y, where the signs of the
 * infinities (or zeros, for exp at -inf) follow cos(y) and sin(y). */
static Cz c_cosh(Cz z, int *err) {
    Cz r;
    if (!cz_finite(z)) {
        if (isinf(z.re) && isfinite(z.im) && z.im != 0.0) {
            r.re = copysign(INFINITY, cos(z.im));
            r.im = z.re > 0 ? copysign(INFINITY, sin(z.im)) : -copysign(INFINITY, sin(z.im));
        } else {
            r = sv_lookup(&sv_cosh, z);
        }
        *err = isinf(z.im) && !isnan(z.re) ? EDOM : 0;
        return r;
    }
    if (fabs(z.re) > CM_LOG_LARGE) {   /* cosh(x) overflows but cosh(z) may not */
        double xm1 = z.re - copysign(1.0, z.re);
        r.re = cos(z.im) * cosh(xm1) * M_E;
        r.im = sin(z.im) * sinh(xm1) * M_E;
    } else {
        r.re = cos(z.im) * cosh(z.re);
        r.im = sin(z.im) * sinh(z.re);
    }
    *err = isinf(r.re) || isinf(r.im) ? ERANGE : 0;
    return r;
}

static Cz c_cos(Cz z, int *err) { return c_cosh(times_i(z), err); }

static Cz c_sinh(Cz z, int *err) {
    Cz r;
    if (!cz_finite(z)) {
        if (isinf(z.re) && isfinite(z.im) && z.im != 0.0) {
            r.re = z.re > 0 ? copysign(INFINITY, cos(z.im)) : -copysign(INFINITY, cos(z.im));
            r.im = copysign(INFINITY, sin(z.im));
        } else {
            r = sv_lookup(&sv_sinh, z);
        }
        *err = isinf(z.im) && !isnan(z.re) ? EDOM : 0;
        return r;
    }
    if (fabs(z.re) > CM_LOG_LARGE) {
        double xm1 = z.re - copysign(1.0, z.re);
        r.re = cos(z.im) * sinh(xm1) * M_E;
        r.im = sin(z.im) * cosh(xm1) * M_E;
    } else {
        r.re = cos(z.im) * sinh(z.re);
        r.im = sin(z.im) * cosh(z.re);
    }
    *err = isinf(r.re) || isinf(r.im) ? ERANGE : 0;
    return r;
}

static Cz c_sin(Cz z, int *err) { return times_minus_i(c_sinh(times_i(z), err)); }

/* tanh(x+iy) = (tanh(x)(1+tan(y)^2) + i tan(y)(1-tanh(x)^2)) / (1 + tan(y)^2 tanh(x)^2), with
 * 1-tanh(x)^2 as 1/cosh(x)^2, and for large |x| as 4 exp(-2|x|). */
static Cz c_tanh(Cz z, int *err) {
    Cz r;
    if (!cz_finite(z)) {
        if (isinf(z.re) && isfinite(z.im) && z.im != 0.0) {
            r.re = z.re > 0 ? 1.0 : -1.0;
            r.im = copysign(0.0, 2.0 * sin(z.im) * cos(z.im));
        } else {
            r = sv_lookup(&sv_tanh, z);
        }
        *err = isinf(z.im) && isfinite(z.re) ? EDOM : 0;
        return r;
    }
    if (fabs(z.re) > CM_LOG_LARGE) {
        r.re = copysign(1.0, z.re);
        r.im = 4.0 * sin(z.im) * cos(z.im) * exp(-2.0 * fabs(z.re));
    } else {
        double tx = tanh(z.re), ty = tan(z.im), cx = 1.0 / cosh(z.re);
        double txty = tx * ty, denom = 1.0 + txty * txty;
        r.re = tx * (1.0 + ty * ty) / denom;
        r.im = ((ty / denom) * cx) * cx;
    }
    *err = 0;
    return r;
}

static Cz c_tan(Cz z, int *err) { return times_minus_i(c_tanh(times_i(z), err)); }

static Cz c_exp(Cz z, int *err) {
    Cz r;
    if (!cz_finite(z)) {
        if (isinf(z.re) && isfinite(z.im) && z.im != 0.0) {
            double mag = z.re > 0 ? INFINITY : 0.0;
            r.re = copysign(mag, cos(z.im));
            r.im = copysign(mag, sin(z.im));
        } else {
            r = sv_lookup(&sv_exp, z);
        }
        *err = isinf(z.im) && (isfinite(z.re) || (isinf(z.re) && z.re > 0)) ? EDOM : 0;
        return r;
    }
    double l;
    if (z.re > CM_LOG_LARGE) {
        l = exp(z.re - 1.0);
        r.re = l * cos(z.im) * M_E;
        r.im = l * sin(z.im) * M_E;
    } else {
        l = exp(z.re);
        r.re = l * cos(z.im);
        r.im = l * sin(z.im);
    }
    *err = isinf(r.re) || isinf(r.im) ? ERANGE : 0;
    return r;
}

/* The real part log|z| needs care where hypot loses accuracy or range: |z| subnormal (scale
 * up), |z| beyond DBL_MAX (halve), |z| near 1 (log1p of |z|^2 - 1 formed without
 * cancellation), and z == 0 (-inf and a domain error). */
static Cz c_log(Cz z, int *err) {
    if (!cz_finite(z)) {
        *err = 0;
        return sv_lookup(&sv_log, z);
    }
    double ax = fabs(z.re), ay = fabs(z.im);
    Cz r;
    if (ax > CM_LARGE || ay > CM_LARGE) {
        r.re = log(hypot(ax / 2.0, ay / 2.0)) + M_LN2;
    } else if (ax < DBL_MIN && ay < DBL_MIN) {
        if (ax == 0.0 && ay == 0.0) {
            *err = EDOM;
            return (Cz){-INFINITY, atan2(z.im, z.re)};
        }
        r.re = log(hypot(ldexp(ax, DBL_MANT_DIG), ldexp(ay, DBL_MANT_DIG))) - DBL_MANT_DIG * M_LN2;
    } else {
        double h = hypot(ax, ay);
        if (0.71 <= h && h <= 1.73) {
            double hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
            r.re = log1p_z((hi - 1) * (hi + 1) + lo * lo) / 2.0;
        } else {
            r.re = log(h);
        }
    }
    r.im = atan2(z.im, z.re);
    *err = 0;
    return r;
}

static Cz c_log10(Cz z, int *err) {
    Cz r = c_log(z, err);
    return (Cz){r.re / M_LN10, r.im / M_LN10};
}

/* a / b as complex division does (vm/complex.c); EDOM for b == 0 */
static Cz c_quot(Cz a, Cz b, int *err) {
    Cz r;
    if (!complex_quotient(a.re, a.im, b.re, b.im, &r.re, &r.im)) *err = EDOM;
    return r;
}

/* rect(r, phi) behaves like exp(log(r) + i*phi) for r of positive sign and like
 * -exp(log(-r) + i*phi) for r of negative sign. */
static Cz c_rect(double r, double phi, int *err) {
    Cz z;
    if (!isfinite(r) || !isfinite(phi)) {
        if (isinf(r) && isfinite(phi) && phi != 0.0) {
            double m = r > 0 ? INFINITY : -INFINITY;
            z.re = m * copysign(1.0, cos(phi));
            z.im = m * copysign(1.0, sin(phi));
        } else {
            z = sv_lookup(&sv_rect, (Cz){r, phi});
        }
        *err = r != 0.0 && !isnan(r) && isinf(phi) ? EDOM : 0;
        return z;
    }
    *err = 0;
    if (phi == 0.0) return (Cz){r, r * phi};   /* exact, and the zero's sign from r * phi */
    return (Cz){r * cos(phi), r * sin(phi)};
}

/* ---- argument conversion and errors ----------------------------------------------------------- */

/* CPython's PyComplex_AsCComplex: a complex (or subclass) as it is; else __complex__, which must
 * return a complex (a strict subclass is accepted with a DeprecationWarning); else the number
 * as a float (__float__, then __index__), with "must be real number, not T". */
static int cm_arg(VM *vm, Value v, Cz *out) {
    if (complex_parts(v, &out->re, &out->im)) return 0;
    Value m = type_lookup(vm, vm_type_of(vm, v), vm_intern_str(vm, "__complex__"));
    if (val_is_null(m)) {
        out->im = 0.0;
        return vm_to_double(vm, v, &out->re);
    }
    Value r = vm_call_method(vm, v, "__complex__", 0, NULL);
    if (val_is_null(r)) return -1;
    if (!complex_parts(r, &out->re, &out->im)) {
        vm_raise(vm, vm->e_TypeError, "__complex__ returned non-complex (type %s)", vm_type_name(vm, r));
        return -1;
    }
    if (vm_type_of(vm, r) == vm->t_complex) return 0;
    vm_push_root(vm, r);
    int rc = -1;
    Value w = vm_import_module(vm, "warnings");
    if (val_is_null(w)) goto done;
    Value warn = vm_getattr_c(vm, w, "warn");
    if (val_is_null(warn)) goto done;
    vm_push_root(vm, warn);
    StrObj *msg = str_printf(vm,
                             "__complex__ returned non-complex (type %s).  The ability to return an instance of a "
                             "strict subclass of complex is deprecated, and may be removed in a future version of "
                             "Python.",
                             vm_type_name(vm, r));
    vm_pop_root(vm);
    if (!msg) goto done;
    Value args[2] = {val_obj(msg), val_obj(vm->e_DeprecationWarning)};
    rc = val_is_null(vm_call(vm, warn, 2, args, NULL)) ? -1 : 0;
done:
    vm_pop_root(vm);
    return rc;
}

static Value cm_error(VM *vm, int err) {
    if (err == EDOM) return vm_raise(vm, vm->e_ValueError, "math domain error");
    return vm_raise(vm, vm->e_OverflowError, "math range error");
}

static Value cm_result(VM *vm, Cz r, int err) {
    return err ? cm_error(vm, err) : complex_new_value(vm, r.re, r.im);
}

/* Argument-count and keyword errors in CPython's words: one-argument functions (METH_O) name
 * themselves "cmath.f()"; the others count like Argument Clinic ("rect expected 2 arguments,
 * got 1"); none of them except isclose takes keywords. */
static int cm_check_args(VM *vm, NativeObj *fn, int argc, TupleObj *kw, int lo, int hi) {
    if (kw && kw->len) {
        vm_raise(vm, vm->e_TypeError, "cmath.%s() takes no keyword arguments", fn->name);
        return -1;
    }
    if (argc >= lo && argc <= hi) return 0;
    if (lo == 1 && hi == 1)
        vm_raise(vm, vm->e_TypeError, "cmath.%s() takes exactly one argument (%d given)", fn->name, argc);
    else if (lo == hi)
        vm_raise(vm, vm->e_TypeError, "%s expected %d argument%s, got %d", fn->name, lo, lo == 1 ? "" : "s", argc);
    else if (argc < lo)
        vm_raise(vm, vm->e_TypeError, "%s expected at least %d argument%s, got %d", fn->name, lo, lo == 1 ? "" : "s",
                 argc);
    else
        vm_raise(vm, vm->e_TypeError, "%s expected at most %d argument%s, got %d", fn->name, hi, hi == 1 ? "" : "s",
                 argc);
    return -1;
}

/* ---- the module's functions ------------------------------------------------------------------- */

typedef Cz (*CzFn)(Cz, int *);

/* fn->data: the CzFn */
static Value cm_unary(ARGS) {
    Cz z;
    if (cm_check_args(vm, fn, argc, kw, 1, 1) < 0 || cm_arg(vm, argv[0], &z) < 0) return val_null();
    int err = 0;
    Cz r = ((CzFn)fn->data)(z, &err);
    return cm_result(vm, r, err);
}

/* log(z[, base]): log(z) / log(base).  The error is the one left by the last step, as
 * CPython's errno is: log(0) alone is a domain error, but log(0, 2) is -inf+nanj. */
static Value cm_log(ARGS) {
    Cz z, b;
    if (cm_check_args(vm, fn, argc, kw, 1, 2) < 0 || cm_arg(vm, argv[0], &z) < 0) return val_null();
    int err = 0;
    Cz r = c_log(z, &err);
    if (argc == 2) {
        if (cm_arg(vm, argv[1], &b) < 0) return val_null();
        Cz lb = c_log(b, &err);
        r = c_quot(r, lb, &err);
    }
    return cm_result(vm, r, err);
}

static Value cm_phase(ARGS) {
    Cz z;
    if (cm_check_args(vm, fn, argc, kw, 1, 1) < 0 || cm_arg(vm, argv[0], &z) < 0) return val_null();
    errno = 0;
    double phi = atan2(z.im, z.re);   /* glibc sets ERANGE when the angle underflows to 0 */
    if (errno) return cm_error(vm, errno);
    return val_float(phi);
}

static Value cm_polar(ARGS) {
    Cz z;
    if (cm_check_args(vm, fn, argc, kw, 1, 1) < 0 || cm_arg(vm, argv[0], &z) < 0) return val_null();
    errno = 0;
    double phi = atan2(z.im, z.re);
    int err = errno;
    double r = c_abs(z, &err);
    if (err) return cm_error(vm, err);
    TupleObj *t = tuple_pack(vm, 2, val_float(r), val_float(phi));
    return t ? val_obj(t) : val_null();
}

static Value cm_rect(ARGS) {
    double r, phi;
    if (cm_check_args(vm, fn, argc, kw, 2, 2) < 0 || vm_to_double(vm, argv[0], &r) < 0 ||
        vm_to_double(vm, argv[1], &phi) < 0)
        return val_null();
    int err = 0;
    Cz z = c_rect(r, phi, &err);
    return cm_result(vm, z, err);
}

/* fn->data: 0 isfinite, 1 isinf, 2 isnan */
static Value cm_pred(ARGS) {
    Cz z;
    if (cm_check_args(vm, fn, argc, kw, 1, 1) < 0 || cm_arg(vm, argv[0], &z) < 0) return val_null();
    switch ((intptr_t)fn->data) {
    case 0: return val_bool(isfinite(z.re) && isfinite(z.im));
    case 1: return val_bool(isinf(z.re) || isinf(z.im));
    default: return val_bool(isnan(z.re) || isnan(z.im));
    }
}

/* isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0), parsed with Argument Clinic's messages. */
static int isclose_args(VM *vm, int argc, Value *argv, TupleObj *kw, Value out[4]) {
    static const char *const names[4] = {"a", "b", "rel_tol", "abs_tol"};
    int nkw = kw ? (int)kw->len : 0, used = 0;
    if (argc > 2) {
        vm_raise(vm, vm->e_TypeError, "isclose() takes exactly 2 positional arguments (%d given)", argc);
        return -1;
    }
    for (int i = 0; i < 4; i++) out[i] = i < argc ? argv[i] : val_null();
    for (int i = argc; i < 4; i++) {
        for (int k = 0; k < nkw; k++)
            if (str_eq_c((StrObj *)kw->items[k].as.o, names[i])) {
                out[i] = argv[argc + k];
                used++;
                break;
            }
        if (i < 2 && val_is_null(out[i])) {
            vm_raise(vm, vm->e_TypeError, "isclose() missing required argument '%s' (pos %d)", names[i], i + 1);
            return -1;
        }
    }
    if (used == nkw) return 0;
    for (int i = 0; i < argc; i++)
        for (int k = 0; k < nkw; k++)
            if (str_eq_c((StrObj *)kw->items[k].as.o, names[i])) {
                vm_raise(vm, vm->e_TypeError, "argument for isclose() given by name ('%s') and position (%d)",
                         names[i], i + 1);
                return -1;
            }
    for (int k = 0; k < nkw; k++) {
        StrObj *kn = (StrObj *)kw->items[k].as.o;
        bool known = false;
        for (int i = 0; i < 4; i++) known = known || str_eq_c(kn, names[i]);
        if (!known) {
            vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for isclose()", kn->data);
            return -1;
        }
    }
    vm_raise(vm, vm->e_TypeError, "invalid keyword argument for isclose()");
    return -1;
}

static Value cm_isclose(ARGS) {
    Value a[4];
    Cz x, y;
    double rel_tol = 1e-09, abs_tol = 0.0;
    if (isclose_args(vm, argc, argv, kw, a) < 0 || cm_arg(vm, a[0], &x) < 0 || cm_arg(vm, a[1], &y) < 0 ||
        (!val_is_null(a[2]) && vm_to_double(vm, a[2], &rel_tol) < 0) ||
        (!val_is_null(a[3]) && vm_to_double(vm, a[3], &abs_tol) < 0))
        return val_null();
    if (rel_tol < 0.0 || abs_tol < 0.0) return vm_raise(vm, vm->e_ValueError, "tolerances must be non-negative");
    if (x.re == y.re && x.im == y.im) return val_bool(true);   /* also equal infinities */
    if (isinf(x.re) || isinf(x.im) || isinf(y.re) || isinf(y.im)) return val_bool(false);
    int err = 0;
    double diff = c_abs((Cz){x.re - y.re, x.im - y.im}, &err);
    return val_bool(diff <= rel_tol * c_abs(y, &err) || diff <= rel_tol * c_abs(x, &err) || diff <= abs_tol);
}

int cmath_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"acos", cm_unary, 0, (void *)c_acos}, {"acosh", cm_unary, 0, (void *)c_acosh},
        {"asin", cm_unary, 0, (void *)c_asin}, {"asinh", cm_unary, 0, (void *)c_asinh},
        {"atan", cm_unary, 0, (void *)c_atan}, {"atanh", cm_unary, 0, (void *)c_atanh},
        {"cos", cm_unary, 0, (void *)c_cos}, {"cosh", cm_unary, 0, (void *)c_cosh},
        {"exp", cm_unary, 0, (void *)c_exp}, {"isclose", cm_isclose},
        {"isfinite", cm_pred, 0, (void *)0}, {"isinf", cm_pred, 0, (void *)1},
        {"isnan", cm_pred, 0, (void *)2}, {"log", cm_log},
        {"log10", cm_unary, 0, (void *)c_log10}, {"phase", cm_phase},
        {"polar", cm_polar}, {"rect", cm_rect},
        {"sin", cm_unary, 0, (void *)c_sin}, {"sinh", cm_unary, 0, (void *)c_sinh},
        {"sqrt", cm_unary, 0, (void *)c_sqrt}, {"tan", cm_unary, 0, (void *)c_tan},
        {"tanh", cm_unary, 0, (void *)c_tanh}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    StrObj *doc = str_from_c(vm, "This module provides access to mathematical functions for complex\nnumbers.");
    if (!doc || module_set(vm, mod, "__doc__", val_obj(doc)) < 0) return -1;
    if (module_set(vm, mod, "pi", val_float(M_PI)) < 0 || module_set(vm, mod, "e", val_float(M_E)) < 0 ||
        module_set(vm, mod, "tau", val_float(2 * M_PI)) < 0 || module_set(vm, mod, "inf", val_float(INFINITY)) < 0 ||
        module_set(vm, mod, "nan", val_float(fabs(NAN))) < 0)
        return -1;
    Value infj = complex_new_value(vm, 0.0, INFINITY);
    if (val_is_null(infj) || module_set(vm, mod, "infj", infj) < 0) return -1;
    Value nanj = complex_new_value(vm, 0.0, fabs(NAN));
    if (val_is_null(nanj) || module_set(vm, mod, "nanj", nanj) < 0) return -1;
    return 0;
}
