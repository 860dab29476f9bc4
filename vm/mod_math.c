/* vm/mod_math.c — the math module. */
#include <math.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"

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

/* One-argument functions share a wrapper; fn->data is the C function. */
static Value math_unary(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    double (*f)(double) = (double (*)(double))fn->data;
    if ((f == log || f == log2 || f == log10) && x <= 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
    if (f == sqrt && x < 0) return vm_raise(vm, vm->e_ValueError, "math domain error");
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

static Value math_hypot(ARGS) {
    double acc = 0;
    for (int i = 0; i < argc; i++) {
        double x;
        if (arg_double(vm, argv[i], &x) < 0) return val_null();
        acc = hypot(acc, x);
    }
    return val_float(acc);
}

static Value int_rounding(VM *vm, int argc, Value *argv, TupleObj *kw, const char *name, double (*f)(double)) {
    if (native_check_args(vm, name, argc, kw, 1, 1) < 0) return val_null();
    if (val_is_intlike(argv[0])) return val_int(val_as_intlike(argv[0]));
    double x;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    if (isnan(x)) return vm_raise(vm, vm->e_ValueError, "cannot convert float NaN to integer");
    if (isinf(x)) return vm_raise(vm, vm->e_OverflowError, "cannot convert float infinity to integer");
    double r = f(x);
    if (fabs(r) >= 9.2233720368547758e18) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
    return val_int((int64_t)r);
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

/* fsum: Shewchuk's exactly-rounded sum with a list of non-overlapping partials, as CPython's
 * math_fsum (without its special handling of intermediate overflow). */
static Value math_fsum(ARGS) {
    if (native_check_args(vm, "fsum", argc, kw, 1, 1) < 0) return val_null();
    ListObj *l = vm_list_from_iterable(vm, argv[0]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    double p[64];
    int n = 0;
    double special = 0.0;
    bool have_special = false;
    for (int64_t i = 0; i < l->len; i++) {
        double x;
        if (arg_double(vm, l->items[i], &x) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        if (!isfinite(x)) {
            special = have_special ? special + x : x;
            have_special = true;
            continue;
        }
        int k = 0;
        for (int j = 0; j < n; j++) {
            double y = p[j];
            if (fabs(x) < fabs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y, lo = y - (hi - x);
            if (lo != 0.0) p[k++] = lo;
            x = hi;
        }
        if (k >= 63) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_NotImplementedError, "math.fsum of this many magnitudes is not supported");
        }
        p[k++] = x;
        n = k;
    }
    vm_pop_root(vm);
    if (have_special) {
        if (isnan(special)) return vm_raise(vm, vm->e_ValueError, "-inf + inf in fsum");
        return val_float(special);
    }
    double hi = 0.0;
    if (n > 0) {
        hi = p[--n];
        double lo = 0.0;
        while (n > 0) {
            double x = hi, y = p[--n];
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) break;
        }
        /* round-half-even correction, as CPython */
        if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
            double y = lo * 2.0, x = hi + y, yr = x - hi;
            if (y == yr) hi = x;
        }
    }
    return val_float(hi);
}

static int int_arg_nonneg(VM *vm, Value v, const char *what, int64_t *out) {
    if (vm_index(vm, v, out) < 0) return -1;
    if (*out < 0) {
        vm_raise(vm, vm->e_ValueError, "%s must be a non-negative integer", what);
        return -1;
    }
    return 0;
}

static Value math_comb(ARGS) {
    int64_t n, k;
    if (int_arg_nonneg(vm, argv[0], "n", &n) < 0 || int_arg_nonneg(vm, argv[1], "k", &k) < 0) return val_null();
    if (k > n) return val_int(0);
    if (k > n - k) k = n - k;
    int64_t r = 1;
    for (int64_t i = 1; i <= k; i++) {
        /* r * (n - k + i) / i stays integral at every step */
        __int128 t = (__int128)r * (n - k + i) / i;
        if (t > INT64_MAX) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
        r = (int64_t)t;
    }
    return val_int(r);
}

static Value math_perm(ARGS) {
    int64_t n, k;
    if (int_arg_nonneg(vm, argv[0], "n", &n) < 0) return val_null();
    if (argc < 2 || val_is_none(argv[1])) k = n;
    else if (int_arg_nonneg(vm, argv[1], "k", &k) < 0) return val_null();
    if (k > n) return val_int(0);
    int64_t r = 1;
    for (int64_t i = n - k + 1; i <= n; i++)
        if (__builtin_mul_overflow(r, i, &r)) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
    return val_int(r);
}

static Value math_isqrt(ARGS) {
    int64_t n;
    if (vm_index(vm, argv[0], &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "isqrt() argument must be nonnegative");
    int64_t r = (int64_t)sqrt((double)n);
    while (r > 0 && (__int128)r * r > n) r--;
    while ((__int128)(r + 1) * (r + 1) <= n) r++;
    return val_int(r);
}

static Value math_lcm(ARGS) {
    int64_t l = 1;
    for (int i = 0; i < argc; i++) {
        int64_t x;
        if (vm_index(vm, argv[i], &x) < 0) return val_null();
        if (x < 0) x = -x;
        if (x == 0 || l == 0) {
            l = 0;
            continue;
        }
        int64_t a = l, b = x;
        while (b) {
            int64_t t = a % b;
            a = b;
            b = t;
        }
        if (__builtin_mul_overflow(l / a, x, &l)) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
    }
    return val_int(l);
}

static Value math_modf(ARGS) {
    double x, ip;
    if (arg_double(vm, argv[0], &x) < 0) return val_null();
    double fp = isinf(x) ? copysign(0.0, x) : modf(x, &ip);
    if (isinf(x)) ip = x;
    TupleObj *t = tuple_pack(vm, 2, val_float(fp), val_float(ip));
    return t ? val_obj(t) : val_null();
}

static Value math_gcd(ARGS) {
    int64_t g = 0;
    for (int i = 0; i < argc; i++) {
        int64_t x;
        if (vm_index(vm, argv[i], &x) < 0) return val_null();
        if (x < 0) x = -x;
        while (x) {
            int64_t t = g % x;
            g = x;
            x = t;
        }
    }
    return val_int(g);
}

static Value math_factorial(ARGS) {
    if (native_check_args(vm, "factorial", argc, kw, 1, 1) < 0) return val_null();
    int64_t n;
    if (vm_index(vm, argv[0], &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "factorial() not defined for negative values");
    int64_t r = 1;
    for (int64_t i = 2; i <= n; i++)
        if (__builtin_mul_overflow(r, i, &r)) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
    return val_int(r);
}

static Value math_prod(ARGS) {
    if (argc != 1) return vm_raise(vm, vm->e_TypeError, "prod() takes exactly one positional argument");
    ListObj *l = vm_list_from_iterable(vm, argv[0]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value acc = val_int(1);
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
        {"gamma", math_unary, 0, (void *)tgamma}, {"lgamma", math_unary, 0, (void *)lgamma},
        {"log", math_log}, {"pow", math_pow}, {"atan2", math_atan2}, {"hypot", math_hypot},
        {"floor", math_floor}, {"ceil", math_ceil}, {"trunc", math_trunc},
        {"isnan", math_pred, 0, (void *)0}, {"isinf", math_pred, 0, (void *)1},
        {"isfinite", math_pred, 0, (void *)2}, {"isclose", math_isclose}, {"fsum", math_fsum},
        {"gcd", math_gcd}, {"factorial", math_factorial}, {"prod", math_prod},
        {"copysign", math_copysign}, {"fmod", math_fmod}, {"frexp", math_frexp}, {"ldexp", math_ldexp},
        {"degrees", math_degrees}, {"radians", math_radians}, {"comb", math_comb, ARITY_POS(2, 2)},
        {"perm", math_perm, ARITY_POS(1, 2)}, {"isqrt", math_isqrt, ARITY_O}, {"lcm", math_lcm},
        {"modf", math_modf, ARITY_O}, {"exp2", math_unary, 0, (void *)exp2}, {"cbrt", math_unary, 0, (void *)cbrt},
        {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "pi", val_float(M_PI)) < 0 || module_set(vm, mod, "e", val_float(M_E)) < 0 ||
                   module_set(vm, mod, "tau", val_float(2 * M_PI)) < 0 ||
                   module_set(vm, mod, "inf", val_float(INFINITY)) < 0 ||
                   module_set(vm, mod, "nan", val_float(NAN)) < 0
               ? -1
               : 0;
}
