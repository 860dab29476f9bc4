/* vm/mod_math.c — the math module. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static int arg_double(VM *vm, Value v, double *out) {
    if (vm_to_double(vm, v, out) < 0) return -1;
    return 0;
}

static Value math_result(VM *vm, double r, double x) {
    if (isnan(r) && !isnan(x)) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (isinf(r) && isfinite(x)) return vm_raise(vm, vm->e_OverflowError, "math range error");
    return val_float(r);
}

/* ---- gamma and lgamma: CPython's own Lanczos approximation (not libm's), so results agree
 * to the last bit (Modules/mathmodule.c m_tgamma / m_lgamma). */
#define LANCZOS_N 13
static const double lanczos_g = 6.024680040776729583740234375;
static const double lanczos_g_minus_half = 5.524680040776729583740234375;
static const double lanczos_num_coeffs[LANCZOS_N] = {
    23531376880.410759688572007674451636754734846804940, 42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843, 17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708, 1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801, 31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768, 186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024, 210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408};
/* the denominator is x*(x+1)*...*(x+LANCZOS_N-2) */
static const double lanczos_den_coeffs[LANCZOS_N] = {
    0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0, 13339535.0, 2637558.0, 357423.0,
    32670.0, 1925.0, 66.0, 1.0};
static const double gamma_integral[23] = {
    1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0, 362880.0, 3628800.0, 39916800.0, 479001600.0,
    6227020800.0, 87178291200.0, 1307674368000.0, 20922789888000.0, 355687428096000.0, 6402373705728000.0,
    121645100408832000.0, 2432902008176640000.0, 51090942171709440000.0, 1124000727777607680000.0};
static const double logpi = 1.144729885849400174143427351353058711647;

static double lanczos_sum(double x) {
    double num = 0.0, den = 0.0;
    /* for large x, evaluate as a rational function in 1/x to avoid overflow */
    if (x < 5.0) {
        for (int i = LANCZOS_N; --i >= 0;) {
            num = num * x + lanczos_num_coeffs[i];
            den = den * x + lanczos_den_coeffs[i];
        }
    } else {
        for (int i = 0; i < LANCZOS_N; i++) {
            num = num / x + lanczos_num_coeffs[i];
            den = den / x + lanczos_den_coeffs[i];
        }
    }
    return num / den;
}

static double m_sinpi(double x) {
    double y = fmod(fabs(x), 2.0), r;
    int n = (int)round(2.0 * y);
    switch (n) {
    case 0: r = sin(M_PI * y); break;
    case 1: r = cos(M_PI * (y - 0.5)); break;
    case 2: r = sin(M_PI * (1.0 - y)); break;   /* not -sin(pi*(y-1)): keeps +0.0 at y == 1 */
    case 3: r = -cos(M_PI * (y - 1.5)); break;
    default: r = sin(M_PI * (y - 2.0)); break;
    }
    return copysign(1.0, x) * r;
}

/* *dom set for a domain error (ValueError), *range for overflow */
static double m_tgamma(double x, bool *dom, bool *range) {
    if (!isfinite(x)) {
        if (isnan(x) || x > 0.0) return x;
        *dom = true;
        return NAN;
    }
    if (x == 0.0) {
        *dom = true;
        return copysign(HUGE_VAL, x);
    }
    if (x == floor(x)) {
        if (x < 0.0) {
            *dom = true;
            return NAN;
        }
        if (x <= 23) return gamma_integral[(int)x - 1];
    }
    double absx = fabs(x), r, y, z;
    if (absx < 1e-20) {
        r = 1.0 / x;
        if (isinf(r)) *range = true;
        return r;
    }
    if (absx > 200.0) {
        if (x < 0.0) return 0.0 / m_sinpi(x);
        *range = true;
        return HUGE_VAL;
    }
    y = absx + lanczos_g_minus_half;
    if (absx > lanczos_g_minus_half) {
        double q = y - absx;
        z = q - lanczos_g_minus_half;
    } else {
        double q = y - lanczos_g_minus_half;
        z = q - absx;
    }
    z = z * lanczos_g / y;
    if (x < 0.0) {
        r = -M_PI / m_sinpi(absx) / absx * exp(y) / lanczos_sum(absx);
        r -= z * r;
        if (absx < 140.0) {
            r /= pow(y, absx - 0.5);
        } else {
            double sqrtpow = pow(y, absx / 2.0 - 0.25);
            r /= sqrtpow;
            r /= sqrtpow;
        }
    } else {
        r = lanczos_sum(absx) / exp(y);
        r += z * r;
        if (absx < 140.0) {
            r *= pow(y, absx - 0.5);
        } else {
            double sqrtpow = pow(y, absx / 2.0 - 0.25);
            r *= sqrtpow;
            r *= sqrtpow;
        }
    }
    if (isinf(r)) *range = true;
    return r;
}

static double m_lgamma(double x, bool *dom, bool *range) {
    if (!isfinite(x)) return isnan(x) ? x : HUGE_VAL;
    if (x == floor(x) && x <= 2.0) {
        if (x <= 0.0) {
            *dom = true;
            return HUGE_VAL;
        }
        return 0.0;
    }
    double absx = fabs(x);
    if (absx < 1e-20) return -log(absx);
    double r = log(lanczos_sum(absx)) - lanczos_g;
    r += (absx - 0.5) * (log(absx + lanczos_g - 0.5) - 1);
    if (x < 0.0) r = logpi - log(fabs(m_sinpi(absx))) - log(absx) - r;   /* reflection */
    if (isinf(r)) *range = true;
    return r;
}

/* fn->data: 0 gamma, 1 lgamma */
static Value math_gamma_fn(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    double x;
    if (vm_to_double(vm, argv[0], &x) < 0) return val_null();
    bool dom = false, range = false;
    double r = fn->data ? m_lgamma(x, &dom, &range) : m_tgamma(x, &dom, &range);
    if (dom) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (range && fabs(r) >= 1.0) return vm_raise(vm, vm->e_OverflowError, "math range error");
    return val_float(r);
}

/* One-argument functions share a wrapper; fn->data is the C function. */
static Value math_unary(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    double (*f)(double) = (double (*)(double))fn->data;
    if ((f == log || f == log2 || f == log10) && x <= 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (f == sqrt && x < 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if ((f == acosh && x < 1) || (f == atanh && fabs(x) >= 1) || ((f == asin || f == acos) && fabs(x) > 1) ||
        ((f == sin || f == cos || f == tan) && isinf(x)) || (f == log1p && x <= -1))
        return vm_raise(vm, vm->e_ValueError, "math domain error");
    return math_result(vm, f(x), x);
}

static Value math_log(ARGS) {
    if (native_check_args(vm, "log", argc, kw, 1, 2) < 0) return val_null();
    double x, b = M_E;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    if (argc == 2 && arg_double(vm, argv[1], &b) < 0) return val_null();
    if (x <= 0 || b <= 0 || b == 1) return vm_raise(vm, vm->e_ValueError, "math domain error");
    return val_float(argc == 2 ? log(x) / log(b) : log(x));
}

static Value math_pow(ARGS) {
    if (native_check_args(vm, "pow", argc, kw, 2, 2) < 0) return val_null();
    double x, y;
    if (arg_double(vm, argv[0], &x) < 0 || arg_double(vm, argv[1], &y) < 0) return val_null();
    if (x == 0 && y < 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (x < 0 && y != floor(y)) return vm_raise(vm, vm->e_ValueError, "math domain error");
    return math_result(vm, pow(x, y), x);
}

static Value math_atan2(ARGS) {
    if (native_check_args(vm, "atan2", argc, kw, 2, 2) < 0) return val_null();
    double y, x;
    if (arg_double(vm, argv[0], &y) < 0 || arg_double(vm, argv[1], &x) < 0) return val_null();
    return val_float(atan2(y, x));
}

/* CPython 3.11's vector_norm: the Euclidean norm of finite values with max |x| = max,
 * accumulated with lossless scaling and splitting plus a final differential correction, so
 * hypot/dist round as CPython's do. */
static double vector_norm(int64_t n, const double *vec, double max, bool found_nan) {
    const double T27 = 134217729.0;   /* ldexp(1.0, 27) + 1.0 */
    double x, scale, oldcsum, csum = 1.0, frac1 = 0.0, frac2 = 0.0, frac3 = 0.0, t, hi, lo, h;
    int max_e;
    if (isinf(max)) return max;
    if (found_nan) return NAN;
    if (max == 0.0 || n <= 1) return max;
    frexp(max, &max_e);
    if (max_e >= -1023) {
        scale = ldexp(1.0, -max_e);
        for (int64_t i = 0; i < n; i++) {
            x = vec[i] * scale;
            t = x * T27;
            hi = t - (t - x);
            lo = x - hi;
            x = hi * hi;
            oldcsum = csum;
            csum += x;
            frac1 += (oldcsum - csum) + x;
            x = 2.0 * hi * lo;
            oldcsum = csum;
            csum += x;
            frac2 += (oldcsum - csum) + x;
            frac3 += lo * lo;
        }
        h = sqrt(csum - 1.0 + (frac1 + frac2 + frac3));
        x = h;
        t = x * T27;
        hi = t - (t - x);
        lo = x - hi;
        x = -hi * hi;
        oldcsum = csum;
        csum += x;
        frac1 += (oldcsum - csum) + x;
        x = -2.0 * hi * lo;
        oldcsum = csum;
        csum += x;
        frac2 += (oldcsum - csum) + x;
        x = -lo * lo;
        oldcsum = csum;
        csum += x;
        frac3 += (oldcsum - csum) + x;
        x = csum - 1.0 + (frac1 + frac2 + frac3);
        return (h + x / (2.0 * h)) / scale;
    }
    /* ldexp(1.0, -max_e) would overflow: divide by max instead */
    for (int64_t i = 0; i < n; i++) {
        x = vec[i] / max;
        x = x * x;
        oldcsum = csum;
        csum += x;
        frac1 += (oldcsum - csum) + x;
    }
    return max * sqrt(csum - 1.0 + frac1);
}

static Value math_hypot(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "hypot() takes no keyword arguments");
    double small[16], *v = argc <= 16 ? small : malloc(sizeof(double) * (size_t)argc);
    if (!v) return vm_no_memory(vm);
    double max = 0.0;
    bool found_nan = false;
    for (int i = 0; i < argc; i++) {
        double x;
        if (!val_is_intlike(argv[i]) && !val_is_float(argv[i]) &&
            !(val_is_obj(argv[i]) && (vm_isinstance_type(vm, argv[i], vm->t_float) || vm_isinstance_type(vm, argv[i], vm->t_int)))) {
            if (v != small) free(v);
            return vm_raise(vm, vm->e_TypeError, "must be real number, not %s", vm_type_name(vm, argv[i]));
        }
        if (arg_double(vm, argv[i], &x) < 0) {
            if (v != small) free(v);
            return val_null();
        }
        x = fabs(x);
        v[i] = x;
        found_nan |= isnan(x);
        if (x > max) max = x;
    }
    double r = vector_norm(argc, v, max, found_nan);
    if (v != small) free(v);
    return val_float(r);
}

static Value math_dist(ARGS) {
    if (native_check_args(vm, "dist", argc, kw, 2, 2) < 0) return val_null();
    Value hp = val_null(), hq = val_null();
    int64_t np, nq;
    Value *p = vm_sequence_items(vm, argv[0], &np, &hp);
    if (!p) return val_null();
    vm_push_root(vm, hp);
    Value *q = vm_sequence_items(vm, argv[1], &nq, &hq);
    if (!q) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, hq);
    Value result = val_null();
    double *diffs = NULL;
    if (np != nq) {
        vm_raise(vm, vm->e_ValueError, "both points must have the same number of dimensions");
        goto done;
    }
    diffs = malloc(sizeof(double) * (size_t)(np ? np : 1));
    if (!diffs) {
        vm_no_memory(vm);
        goto done;
    }
    double max = 0.0;
    bool found_nan = false;
    for (int64_t i = 0; i < np; i++) {
        double a, b;
        if (arg_double(vm, p[i], &a) < 0 || arg_double(vm, q[i], &b) < 0) goto done;
        double x = fabs(a - b);
        diffs[i] = x;
        found_nan |= isnan(x);
        if (x > max) max = x;
    }
    result = val_float(vector_norm(np, diffs, max, found_nan));
done:
    free(diffs);
    vm_pop_roots(vm, 2);
    return result;
}

static Value int_rounding(VM *vm, int argc, Value *argv, TupleObj *kw, const char *name, double (*f)(double)) {
    if (native_check_args(vm, name, argc, kw, 1, 1) < 0) return val_null();
    if (val_is_intlike(argv[0])) return val_int(val_as_intlike(argv[0]));
    if (val_is_intobj(argv[0]) && argv[0].as.o->type == vm->t_int) return argv[0];
    if (!val_is_float(argv[0])) {
        /* x.__floor__() / __ceil__() / __trunc__(): the type decides, as in CPython */
        char dunder[16];
        snprintf(dunder, sizeof dunder, "__%s__", name);
        Value m = type_lookup(vm, vm_type_of(vm, argv[0]), vm_intern_str(vm, dunder));
        if (!val_is_null(m)) return vm_call1(vm, m, argv[0]);
        if (f == trunc)
            return vm_raise(vm, vm->e_TypeError, "type %s doesn't define __trunc__ method", vm_type_name(vm, argv[0]));
    }
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    if (isnan(x)) return vm_raise(vm, vm->e_ValueError, "cannot convert float NaN to integer");
    if (isinf(x)) return vm_raise(vm, vm->e_OverflowError, "cannot convert float infinity to integer");
    return bigint_from_double(vm, f(x));
}
static Value math_floor(ARGS) { return int_rounding(vm, argc, argv, kw, "floor", floor); }
static Value math_ceil(ARGS) { return int_rounding(vm, argc, argv, kw, "ceil", ceil); }
static Value math_trunc(ARGS) { return int_rounding(vm, argc, argv, kw, "trunc", trunc); }

static Value math_pred(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    int which = (int)(intptr_t)fn->data;
    return val_bool(which == 0 ? isnan(x) : which == 1 ? isinf(x) : isfinite(x));
}

static Value math_isclose(ARGS) {
    static const char *const names[] = {"a", "b", "rel_tol", "abs_tol"};
    Value a[4];
    if (native_parse_args(vm, "isclose", argc, argv, kw, 2, 2, names, 4, a) < 0) return val_null();
    double x, y, rt = 1e-9, at = 0;
    if (arg_double(vm, a[0], &x) < 0 || arg_double(vm, a[1], &y) < 0) return val_null();
    if (!val_is_null(a[2]) && arg_double(vm, a[2], &rt) < 0) return val_null();
    if (!val_is_null(a[3]) && arg_double(vm, a[3], &at) < 0) return val_null();
    if (rt < 0 || at < 0) return vm_raise(vm, vm->e_ValueError, "tolerances must be non-negative");
    if (x == y) return val_bool(true);
    if (isinf(x) || isinf(y)) return val_bool(false);
    double d = fabs(x - y);
    return val_bool(d <= fabs(rt * y) || d <= fabs(rt * x) || d <= at);
}

/* fsum: Shewchuk's exactly-rounded sum over a growing list of non-overlapping partials, with
 * CPython's handling of infinities, NaNs and intermediate overflow (math_fsum). */
static Value math_fsum(ARGS) {
    if (native_check_args(vm, "fsum", argc, kw, 1, 1) < 0) return val_null();
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    double small[32], *p = small, special_sum = 0.0, inf_sum = 0.0;
    int64_t n = 0, m = 32;
    Value result = val_null();
    for (;;) {
        Value item = vm_next(vm, it);
        if (val_is_null(item)) {
            if (!val_is_null(vm->exc)) goto done;
            break;
        }
        double x;
        if (arg_double(vm, item, &x) < 0) goto done;
        double xsave = x;
        int64_t i = 0;
        for (int64_t j = 0; j < n; j++) {
            double y = p[j];
            if (fabs(x) < fabs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y, yr = hi - x, lo = y - yr;
            if (lo != 0.0) p[i++] = lo;
            x = hi;
        }
        n = i;
        if (x != 0.0) {
            if (!isfinite(x)) {
                /* from a nan or inf summand, or an intermediate overflow */
                if (isfinite(xsave)) {
                    vm_raise(vm, vm->e_OverflowError, "intermediate overflow in fsum");
                    goto done;
                }
                if (isinf(xsave)) inf_sum += xsave;
                special_sum += xsave;
                n = 0;
            } else {
                if (n >= m) {
                    double *np = malloc(sizeof(double) * (size_t)m * 2);
                    if (!np) {
                        vm_no_memory(vm);
                        goto done;
                    }
                    memcpy(np, p, sizeof(double) * (size_t)n);
                    if (p != small) free(p);
                    p = np;
                    m *= 2;
                }
                p[n++] = x;
            }
        }
    }
    if (special_sum != 0.0) {
        if (isnan(inf_sum)) vm_raise(vm, vm->e_ValueError, "-inf + inf in fsum");
        else result = val_float(special_sum);
        goto done;
    }
    double hi = 0.0;
    if (n > 0) {
        hi = p[--n];
        double lo = 0.0;
        /* add from the top until the sum becomes inexact */
        while (n > 0) {
            double x = hi, y = p[--n];
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) break;
        }
        /* half-even rounding across several partials */
        if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
            double y = lo * 2.0, x = hi + y, yr = x - hi;
            if (y == yr) hi = x;
        }
    }
    result = val_float(hi);
done:
    if (p != small) free(p);
    vm_pop_root(vm);
    return result;
}

/* An int argument (any size, via __index__) that must be >= 0. */
static int mpz_arg_nonneg(VM *vm, Value v, const char *what, mpz_t out) {
    if (bigint_index_mpz(vm, v, out) < 0) return -1;
    if (mpz_sgn(out) < 0) {
        vm_raise(vm, vm->e_ValueError, "%s must be a non-negative integer", what);
        return -1;
    }
    return 0;
}

static Value mpz_result(VM *vm, mpz_t z) {
    Value v = bigint_from_mpz(vm, z);
    mpz_clear(z);
    return v;
}

/* n * (n-1) * ... * (n-k+1) into r, for k fitting an unsigned long */
static void falling_product(mpz_t r, const mpz_t n, unsigned long k) {
    mpz_t f;
    mpz_init_set(f, n);
    mpz_set_ui(r, 1);
    for (unsigned long i = 0; i < k; i++) {
        mpz_mul(r, r, f);
        mpz_sub_ui(f, f, 1);
    }
    mpz_clear(f);
}

static Value math_comb(ARGS) {
    mpz_t n, k, r;
    mpz_inits(n, k, r, NULL);
    if (mpz_arg_nonneg(vm, argv[0], "n", n) < 0 || mpz_arg_nonneg(vm, argv[1], "k", k) < 0) {
        mpz_clears(n, k, r, NULL);
        return val_null();
    }
    if (mpz_cmp(k, n) <= 0) {
        mpz_sub(r, n, k);
        if (mpz_cmp(r, k) < 0) mpz_set(k, r);   /* comb(n, k) == comb(n, n-k) */
        if (!mpz_fits_ulong_p(k)) {
            mpz_clears(n, k, r, NULL);
            return vm_raise(vm, vm->e_OverflowError, "min(n - k, k) must not exceed %lld", (long long)INT64_MAX);
        }
        mpz_bin_ui(r, n, mpz_get_ui(k));
    } else {
        mpz_set_ui(r, 0);
    }
    mpz_clears(n, k, NULL);
    return mpz_result(vm, r);
}

static Value math_perm(ARGS) {
    mpz_t n, k, r;
    mpz_inits(n, k, r, NULL);
    if (mpz_arg_nonneg(vm, argv[0], "n", n) < 0 ||
        (argc >= 2 && !val_is_none(argv[1]) && mpz_arg_nonneg(vm, argv[1], "k", k) < 0)) {
        mpz_clears(n, k, r, NULL);
        return val_null();
    }
    if (argc < 2 || val_is_none(argv[1])) mpz_set(k, n);
    if (mpz_cmp(k, n) > 0) {
        mpz_set_ui(r, 0);
    } else if (!mpz_fits_ulong_p(k)) {
        mpz_clears(n, k, r, NULL);
        return vm_raise(vm, vm->e_OverflowError, "k must not exceed %lld", (long long)INT64_MAX);
    } else {
        falling_product(r, n, mpz_get_ui(k));
    }
    mpz_clears(n, k, NULL);
    return mpz_result(vm, r);
}

static Value math_isqrt(ARGS) {
    mpz_t n;
    mpz_init(n);
    if (bigint_index_mpz(vm, argv[0], n) < 0) {
        mpz_clear(n);
        return val_null();
    }
    if (mpz_sgn(n) < 0) {
        mpz_clear(n);
        return vm_raise(vm, vm->e_ValueError, "isqrt() argument must be nonnegative");
    }
    mpz_sqrt(n, n);
    return mpz_result(vm, n);
}

/* gcd (lcm when fn->data) of any number of ints; results are nonnegative */
static Value gcd_lcm(VM *vm, int argc, Value *argv, bool lcm) {
    mpz_t acc, x;
    mpz_init_set_ui(acc, lcm ? 1 : 0);
    mpz_init(x);
    for (int i = 0; i < argc; i++) {
        if (bigint_index_mpz(vm, argv[i], x) < 0) {
            mpz_clears(acc, x, NULL);
            return val_null();
        }
        if (lcm) mpz_lcm(acc, acc, x);
        else mpz_gcd(acc, acc, x);
    }
    mpz_clear(x);
    return mpz_result(vm, acc);
}
static Value math_lcm(ARGS) { return gcd_lcm(vm, argc, argv, true); }
static Value math_gcd(ARGS) { return gcd_lcm(vm, argc, argv, false); }

static Value math_modf(ARGS) {
    double x, ip;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    double fp = isinf(x) ? copysign(0.0, x) : modf(x, &ip);
    if (isinf(x)) ip = x;
    TupleObj *t = tuple_pack(vm, 2, val_float(fp), val_float(ip));
    return t ? val_obj(t) : val_null();
}

static Value math_factorial(ARGS) {
    if (native_check_args(vm, "factorial", argc, kw, 1, 1) < 0) return val_null();
    if (val_is_float(argv[0]))
        return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
    int64_t n;
    if (vm_index(vm, argv[0], &n) < 0) {
        if (vm_exc_matches(vm, vm->e_OverflowError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_OverflowError, "factorial() argument should not exceed %lld", (long long)INT64_MAX);
        }
        return val_null();
    }
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "factorial() not defined for negative values");
    mpz_t r;
    mpz_init(r);
    mpz_fac_ui(r, (unsigned long)n);
    return mpz_result(vm, r);
}

static Value math_prod(ARGS) {
    if (argc != 1) return vm_raise(vm, vm->e_TypeError, "prod() takes exactly one positional argument (%d given)", argc);
    Value acc = val_int(1);
    for (int64_t k = 0; kw && k < kw->len; k++) {
        if (!str_eq_c(AS_STR(kw->items[k]), "start"))
            return vm_raise(vm, vm->e_TypeError, "prod() got an unexpected keyword argument '%s'", AS_STR(kw->items[k])->data);
        acc = argv[argc + k];
    }
    ListObj *l = vm_list_from_iterable(vm, argv[0]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < l->len && !val_is_null(acc); i++) acc = vm_binary_op(vm, BINOP_MULTIPLY, acc, l->items[i]);
    vm_pop_root(vm);
    return acc;
}

static Value math_copysign(ARGS) {
    if (native_check_args(vm, "copysign", argc, kw, 2, 2) < 0) return val_null();
    double x, y;
    if (arg_double(vm, argv[0], &x) < 0 || arg_double(vm, argv[1], &y) < 0) return val_null();
    return val_float(copysign(x, y));
}

static Value math_fmod(ARGS) {
    if (native_check_args(vm, "fmod", argc, kw, 2, 2) < 0) return val_null();
    double x, y;
    if (arg_double(vm, argv[0], &x) < 0 || arg_double(vm, argv[1], &y) < 0) return val_null();
    if (y == 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    return val_float(fmod(x, y));
}

static Value math_frexp(ARGS) {
    if (native_check_args(vm, "frexp", argc, kw, 1, 1) < 0) return val_null();
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    int e;
    double m = frexp(x, &e);
    TupleObj *t = tuple_pack(vm, 2, val_float(m), val_int(e));
    return t ? val_obj(t) : val_null();
}

static Value math_ldexp(ARGS) {
    if (native_check_args(vm, "ldexp", argc, kw, 2, 2) < 0) return val_null();
    double x;
    int64_t e;
    if (arg_double(vm, argv[0], &x) < 0 || vm_index(vm, argv[1], &e) < 0) return val_null();
    return math_result(vm, ldexp(x, (int)e), x);
}

static Value math_nextafter(ARGS) {
    if (native_check_args(vm, "nextafter", argc, kw, 2, 2) < 0) return val_null();
    double x, y;
    if (arg_double(vm, argv[0], &x) < 0 || arg_double(vm, argv[1], &y) < 0) return val_null();
    return val_float(nextafter(x, y));
}

static Value math_ulp(ARGS) {
    double x;
    if (native_check_args(vm, "ulp", argc, kw, 1, 1) < 0 || arg_double(vm, argv[0], &x) < 0) return val_null();
    if (isnan(x)) return val_float(x);
    x = fabs(x);
    if (isinf(x)) return val_float(x);
    double x2 = nextafter(x, INFINITY);
    if (isinf(x2)) {
        /* x is the largest positive representable float */
        x2 = nextafter(x, -INFINITY);
        return val_float(x - x2);
    }
    return val_float(x2 - x);
}

/* IEEE 754 remainder: x - n*y for the integer n nearest x/y, ties to even (CPython's m_remainder) */
static Value math_remainder(ARGS) {
    if (native_check_args(vm, "remainder", argc, kw, 2, 2) < 0) return val_null();
    double x, y;
    if (arg_double(vm, argv[0], &x) < 0 || arg_double(vm, argv[1], &y) < 0) return val_null();
    if (isnan(x)) return val_float(x);
    if (isnan(y)) return val_float(y);
    if (isinf(x) || y == 0.0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (isinf(y)) return val_float(x);
    return val_float(remainder(x, y));
}

static Value math_degrees(ARGS) {
    double x;
    if (native_check_args(vm, "degrees", argc, kw, 1, 1) < 0 || arg_double(vm, argv[0], &x) < 0) return val_null();
    return val_float(x * (180.0 / M_PI));
}

static Value math_radians(ARGS) {
    double x;
    if (native_check_args(vm, "radians", argc, kw, 1, 1) < 0 || arg_double(vm, argv[0], &x) < 0) return val_null();
    return val_float(x * (M_PI / 180.0));
}

int math_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"sqrt", math_unary, 0, (void *)sqrt}, {"exp", math_unary, 0, (void *)exp},
        {"log2", math_unary, 0, (void *)log2}, {"log10", math_unary, 0, (void *)log10},
        {"log1p", math_unary, 0, (void *)log1p}, {"expm1", math_unary, 0, (void *)expm1},
        {"sin", math_unary, 0, (void *)sin}, {"cos", math_unary, 0, (void *)cos},
        {"tan", math_unary, 0, (void *)tan}, {"asin", math_unary, 0, (void *)asin},
        {"acos", math_unary, 0, (void *)acos}, {"atan", math_unary, 0, (void *)atan},
        {"sinh", math_unary, 0, (void *)sinh}, {"cosh", math_unary, 0, (void *)cosh},
        {"tanh", math_unary, 0, (void *)tanh}, {"erf", math_unary, 0, (void *)erf},
        {"erfc", math_unary, 0, (void *)erfc}, {"fabs", math_unary, 0, (void *)fabs},
        {"gamma", math_gamma_fn, 0, NULL}, {"lgamma", math_gamma_fn, 0, (void *)1},
        {"log", math_log}, {"pow", math_pow}, {"atan2", math_atan2}, {"hypot", math_hypot},
        {"floor", math_floor}, {"ceil", math_ceil}, {"trunc", math_trunc},
        {"isnan", math_pred, 0, (void *)0}, {"isinf", math_pred, 0, (void *)1},
        {"isfinite", math_pred, 0, (void *)2}, {"isclose", math_isclose}, {"fsum", math_fsum},
        {"gcd", math_gcd}, {"factorial", math_factorial}, {"prod", math_prod},
        {"copysign", math_copysign}, {"fmod", math_fmod}, {"frexp", math_frexp}, {"ldexp", math_ldexp},
        {"degrees", math_degrees}, {"radians", math_radians}, {"comb", math_comb, ARITY_POS(2, 2)},
        {"perm", math_perm, ARITY_POS(1, 2)}, {"isqrt", math_isqrt, ARITY_O}, {"lcm", math_lcm},
        {"modf", math_modf, ARITY_O}, {"exp2", math_unary, 0, (void *)exp2}, {"cbrt", math_unary, 0, (void *)cbrt},
        {"asinh", math_unary, 0, (void *)asinh}, {"acosh", math_unary, 0, (void *)acosh},
        {"atanh", math_unary, 0, (void *)atanh}, {"dist", math_dist}, {"nextafter", math_nextafter},
        {"ulp", math_ulp}, {"remainder", math_remainder},
        {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "pi", val_float(M_PI)) < 0 || module_set(vm, mod, "e", val_float(M_E)) < 0 ||
                   module_set(vm, mod, "tau", val_float(2 * M_PI)) < 0 ||
                   module_set(vm, mod, "inf", val_float(INFINITY)) < 0 ||
                   module_set(vm, mod, "nan", val_float(NAN)) < 0
               ? -1
               : 0;
}
