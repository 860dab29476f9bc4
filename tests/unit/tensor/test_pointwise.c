/* test_pointwise.c — every elementwise kernel against a naive double-precision reference,
 * on broadcast and non-contiguous operands; PyTorch's type promotion (incl. wrapped Python
 * scalars); in-place forms and their errors. */
#include "tests/support/tensor_test.h"

TestSuite(pointwise, .init = tt_setup);

/* ---- reference machinery ------------------------------------------------------------------------ */

/* value of t at the broadcast position idx of an n-dim result */
static double at_bcast(const Tensor *t, int n, const int64_t *idx) {
    int64_t ti[TENSOR_MAX_DIMS];
    int nd = tensor_ndim(t);
    for (int d = 0; d < nd; d++) {
        int64_t i = idx[d + n - nd];
        ti[d] = tensor_shape(t)[d] == 1 ? 0 : i;
    }
    return tensor_get_f64(t, ti);
}

static bool next_idx(int64_t *idx, int n, const int64_t *shape) {
    for (int d = n - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) return true;
        idx[d] = 0;
    }
    return false;
}

typedef double (*Ref2)(double, double);
typedef double (*Ref1)(double);

static void check_binary(Tensor *r, const Tensor *a, const Tensor *b, Ref2 ref, double tol) {
    tt_ok(r);
    int n = tensor_ndim(r);
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < tensor_numel(r); i++) {
        double want = ref(at_bcast(a, n, idx), at_bcast(b, n, idx)), got = tensor_get_f64(r, idx);
        if (!(isnan(want) && isnan(got)) && got != want)
            cr_assert(fabs(got - want) <= tol * (1 + fabs(want)), "element %lld: got %.9g want %.9g", (long long)i, got, want);
        next_idx(idx, n, tensor_shape(r));
    }
}

static void check_unary(Tensor *r, const Tensor *a, Ref1 ref, double tol) {
    tt_ok(r);
    tt_expect_shape(r, tensor_ndim(a), tensor_shape(a));
    int n = tensor_ndim(r);
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < tensor_numel(r); i++) {
        double want = ref(tensor_get_f64(a, idx)), got = tensor_get_f64(r, idx);
        if (!(isnan(want) && isnan(got)) && got != want)
            cr_assert(fabs(got - want) <= tol * (1 + fabs(want)), "element %lld: got %.9g want %.9g (x=%g)", (long long)i, got,
                      want, tensor_get_f64(a, idx));
        next_idx(idx, n, tensor_shape(r));
    }
}

/* operand pairs: same shape contiguous; broadcast [3,1,4] x [2,4]; non-contiguous (transposed and
 * strided slices); 0-dim with 1-D */
typedef struct Pair {
    Tensor *a, *b;
    Tensor *keep[4];
} Pair;

static void pairs_make(Pair *p, int *np, TensorDtype dt) {
    int k = 0;
    int64_t s1[2] = {3, 4}, s2[3] = {3, 1, 4}, s3[2] = {2, 4}, s4[2] = {4, 6};
    Tensor *r1 = tensor_randn(TENSOR_FLOAT32, 2, s1), *r2 = tensor_randn(TENSOR_FLOAT32, 2, s1);
    Tensor *b1 = tensor_randn(TENSOR_FLOAT32, 3, s2), *b2 = tensor_randn(TENSOR_FLOAT32, 2, s3);
    Tensor *n1 = tensor_randn(TENSOR_FLOAT32, 2, s4), *n2 = tensor_randn(TENSOR_FLOAT32, 2, s4);
    Tensor *raw[6] = {r1, r2, b1, b2, n1, n2};
    for (int i = 0; i < 6; i++) {
        /* scale away from 0 so division-like ops stay tame, and cast */
        Tensor *sc = tensor_mul_scalar(raw[i], tensor_scalar_f(dt == TENSOR_FLOAT32 ? 2.0 : 4.0));
        Tensor *c = tensor_to_dtype(sc, dt);
        tensor_decref(sc);
        tensor_decref(raw[i]);
        raw[i] = c;
    }
    p[k++] = (Pair){raw[0], raw[1], {raw[0], raw[1]}};
    p[k++] = (Pair){raw[2], raw[3], {raw[2], raw[3]}};
    Tensor *t1 = tensor_t(raw[4]), *t2 = tensor_slice(raw[5], 1, 0, 6, 2), *t2t = tensor_t(t2);
    Tensor *t2c = tensor_slice(t2t, 0, 0, 3, 1), *t1c = tensor_slice(t1, 0, 0, 3, 1);
    cr_assert(!tensor_is_contiguous(t1c) && !tensor_is_contiguous(t2c));
    p[k++] = (Pair){t1c, t2c, {raw[4], raw[5], t1, t2}};
    tensor_decref(t2t);
    Tensor *sc0 = tensor_select(raw[0], 0, 1), *sc = tensor_select(sc0, 0, 2);
    tensor_decref(sc0);
    p[k++] = (Pair){sc, raw[1], {sc, t2c, t1c}};
    tensor_incref(raw[1]);
    p[k - 1].keep[3] = raw[1];
    *np = k;
}

static void pairs_free(Pair *p, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4; j++) tensor_decref(p[i].keep[j]);
}

static double r_add(double a, double b) { return a + b; }
static double r_sub(double a, double b) { return a - b; }
static double r_mul(double a, double b) { return a * b; }
static double r_div(double a, double b) { return a / b; }
static double r_pow(double a, double b) { return pow(fabs(a), b); }
static double r_max(double a, double b) { return a > b ? a : b; }
static double r_min(double a, double b) { return a < b ? a : b; }
static double r_rem(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static double r_fdiv(double a, double b) { return floor(a / b); }
static double r_eq(double a, double b) { return a == b; }
static double r_ne(double a, double b) { return a != b; }
static double r_lt(double a, double b) { return a < b; }
static double r_le(double a, double b) { return a <= b; }
static double r_gt(double a, double b) { return a > b; }
static double r_ge(double a, double b) { return a >= b; }
static double r_and(double a, double b) { return a != 0 && b != 0; }
static double r_or(double a, double b) { return a != 0 || b != 0; }
static double r_xor(double a, double b) { return (a != 0) != (b != 0); }

TT_TEST(pointwise, binary_float_against_reference) {
    Pair p[4];
    int n;
    pairs_make(p, &n, TENSOR_FLOAT32);
    struct {
        TensorOp op;
        Ref2 ref;
        double tol;
    } cases[] = {
        {TENSOR_OP_ADD, r_add, 1e-6}, {TENSOR_OP_SUB, r_sub, 1e-6}, {TENSOR_OP_MUL, r_mul, 1e-6},
        {TENSOR_OP_DIV, r_div, 1e-6}, {TENSOR_OP_MAXIMUM, r_max, 0}, {TENSOR_OP_MINIMUM, r_min, 0},
        {TENSOR_OP_REMAINDER, r_rem, 1e-5}, {TENSOR_OP_FLOOR_DIVIDE, r_fdiv, 1e-6}, {TENSOR_OP_EQ, r_eq, 0},
        {TENSOR_OP_NE, r_ne, 0}, {TENSOR_OP_LT, r_lt, 0}, {TENSOR_OP_LE, r_le, 0},
        {TENSOR_OP_GT, r_gt, 0}, {TENSOR_OP_GE, r_ge, 0}, {TENSOR_OP_LOGICAL_AND, r_and, 0},
        {TENSOR_OP_LOGICAL_OR, r_or, 0}, {TENSOR_OP_LOGICAL_XOR, r_xor, 0},
    };
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < NELEM(cases); c++) {
            Tensor *in[2] = {p[i].a, p[i].b}, *out = NULL;
            cr_assert_eq(tensor_op_run(cases[c].op, in, 2, NULL, &out, 1), 1, "%s: %s", tensor_op_name(cases[c].op),
                         tensor_error_message());
            check_binary(out, p[i].a, p[i].b, cases[c].ref, cases[c].tol);
            TensorDtype want = cases[c].op >= TENSOR_OP_EQ ? TENSOR_BOOL : TENSOR_FLOAT32;
            cr_assert_eq(tensor_dtype(out), want, "%s dtype", tensor_op_name(cases[c].op));
            tensor_decref(out);
        }
        /* pow on a positive base */
        Tensor *ab = tensor_abs(p[i].a), *pw = tensor_pow(ab, p[i].b);
        check_binary(pw, ab, p[i].b, r_pow, 1e-5);
        TT_FREE(ab, pw);
    }
    pairs_free(p, n);
}

static double r_iadd(double a, double b) { return a + b; }
static double r_ipow(double a, double b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? (((int64_t)b & 1) ? -1 : 1) : 0;
    return pow(a, b);
}
static double r_idiv_floor(double a, double b) { return floor(a / b); }

TT_TEST(pointwise, binary_int_against_reference) {
    Pair p[4];
    int n;
    pairs_make(p, &n, TENSOR_INT64);
    for (int i = 0; i < n; i++) {
        Tensor *s = tensor_add(p[i].a, p[i].b), *m = tensor_mul(p[i].a, p[i].b), *mx = tensor_maximum(p[i].a, p[i].b);
        check_binary(s, p[i].a, p[i].b, r_iadd, 0);
        check_binary(m, p[i].a, p[i].b, r_mul, 0);
        check_binary(mx, p[i].a, p[i].b, r_max, 0);
        cr_assert_eq(tensor_dtype(s), TENSOR_INT64);
        Tensor *d = tensor_div(p[i].a, p[i].b);
        cr_assert_eq(tensor_dtype(d), TENSOR_FLOAT32, "int / int is true division");
        check_binary(d, p[i].a, p[i].b, r_div, 1e-6);
        /* avoid zero divisors for // and % */
        Tensor *nz = tensor_cmp_scalar(TENSOR_OP_EQ_SCALAR, p[i].b, tensor_scalar_i(0));
        Tensor *b2 = tensor_masked_fill(p[i].b, nz, tensor_scalar_i(3));
        Tensor *fd = tensor_floor_divide(p[i].a, b2), *rm = tensor_remainder(p[i].a, b2);
        check_binary(fd, p[i].a, b2, r_idiv_floor, 0);
        check_binary(rm, p[i].a, b2, r_rem, 0);
        Tensor *ex = tensor_remainder(p[i].b, b2);
        Tensor *pw = tensor_pow(p[i].a, ex);
        check_binary(pw, p[i].a, ex, r_ipow, 1e-9);
        TT_FREE(s, m, mx, d, nz, b2, fd, rm, ex, pw);
    }
    pairs_free(p, n);
}

static double u_neg(double x) { return -x; }
static double u_abs(double x) { return fabs(x); }
static double u_exp(double x) { return exp(x); }
static double u_log(double x) { return log(fabs(x) + 0.5); }
static double u_sqrt(double x) { return sqrt(fabs(x)); }
static double u_rsqrt(double x) { return 1 / sqrt(fabs(x) + 0.5); }
static double u_tanh(double x) { return tanh(x); }
static double u_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double u_relu(double x) { return x > 0 ? x : 0; }
static double u_gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2))); }
static double u_gelu_tanh(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }
static double u_silu(double x) { return x / (1 + exp(-x)); }
static double u_leaky(double x) { return x > 0 ? x : 0.1 * x; }
static double u_erf(double x) { return erf(x); }
static double u_sin(double x) { return sin(x); }
static double u_cos(double x) { return cos(x); }
static double u_sign(double x) { return (x > 0) - (x < 0); }
static double u_recip(double x) { return 1 / x; }
static double u_clamp(double x) { return x < -0.5 ? -0.5 : x > 0.75 ? 0.75 : x; }
static double u_floor(double x) { return floor(x); }
static double u_ceil(double x) { return ceil(x); }
static double u_round(double x) { return nearbyint(x); }

TT_TEST(pointwise, unary_float_against_reference) {
    int64_t s[2] = {5, 6};
    Tensor *base = tensor_randn(TENSOR_FLOAT32, 2, s), *x3 = tensor_mul_scalar(base, tensor_scalar_f(3));
    Tensor *xt = tensor_t(x3); /* non-contiguous */
    Tensor *pos = tensor_abs(x3), *pos5 = tensor_add_scalar(pos, tensor_scalar_f(0.5));
    Tensor *inputs[2] = {x3, xt};
    for (int k = 0; k < 2; k++) {
        Tensor *x = inputs[k];
        struct {
            TensorOp op;
            Ref1 ref;
        } cases[] = {
            {TENSOR_OP_NEG, u_neg}, {TENSOR_OP_ABS, u_abs}, {TENSOR_OP_EXP, u_exp}, {TENSOR_OP_TANH, u_tanh},
            {TENSOR_OP_SIGMOID, u_sigmoid}, {TENSOR_OP_RELU, u_relu}, {TENSOR_OP_SILU, u_silu}, {TENSOR_OP_ERF, u_erf},
            {TENSOR_OP_SIN, u_sin}, {TENSOR_OP_COS, u_cos}, {TENSOR_OP_SIGN, u_sign}, {TENSOR_OP_RECIPROCAL, u_recip},
            {TENSOR_OP_FLOOR, u_floor}, {TENSOR_OP_CEIL, u_ceil}, {TENSOR_OP_ROUND, u_round},
        };
        for (int c = 0; c < NELEM(cases); c++) {
            Tensor *r = tensor_unary(cases[c].op, x);
            check_unary(r, x, cases[c].ref, 2e-6);
            tensor_decref(r);
        }
        Tensor *g = tensor_gelu(x, false), *gt = tensor_gelu(x, true), *lr = tensor_leaky_relu(x, 0.1);
        check_unary(g, x, u_gelu, 2e-6);
        check_unary(gt, x, u_gelu_tanh, 2e-6);
        check_unary(lr, x, u_leaky, 2e-6);
        TensorScalar lo = tensor_scalar_f(-0.5), hi = tensor_scalar_f(0.75);
        Tensor *cl = tensor_clamp(x, &lo, &hi);
        check_unary(cl, x, u_clamp, 0);
        TT_FREE(g, gt, lr, cl);
    }
    Tensor *ab = tensor_abs(x3), *ab5 = tensor_add_scalar(ab, tensor_scalar_f(0.5));
    Tensor *lg = tensor_log(ab5), *sq = tensor_sqrt(ab), *rs = tensor_rsqrt(ab5);
    check_unary(lg, x3, u_log, 2e-6);
    check_unary(sq, x3, u_sqrt, 2e-6);
    check_unary(rs, x3, u_rsqrt, 2e-6);
    /* round is half-to-even, like PyTorch */
    Tensor *h = TT(((int64_t[]){5}), ((float[]){0.5, 1.5, 2.5, -0.5, -1.5}));
    Tensor *hr = tensor_unary(TENSOR_OP_ROUND, h);
    TT_EXPECT(hr, ((int64_t[]){5}), ((float[]){0, 2, 2, -0, -2}), 0);
    TT_FREE(base, x3, xt, pos, pos5, ab, ab5, lg, sq, rs, h, hr);
}

TT_TEST(pointwise, nan_and_int_rules) {
    Tensor *a = TT(((int64_t[]){3}), ((float[]){NAN, 1, -2}));
    Tensor *b = TT(((int64_t[]){3}), ((float[]){0, NAN, -3}));
    Tensor *mx = tensor_maximum(a, b), *mn = tensor_minimum(a, b), *rl = tensor_relu(a), *sg = tensor_sign(a);
    TT_EXPECT(mx, ((int64_t[]){3}), ((float[]){NAN, NAN, -2}), 0);
    TT_EXPECT(mn, ((int64_t[]){3}), ((float[]){NAN, NAN, -3}), 0);
    TT_EXPECT(rl, ((int64_t[]){3}), ((float[]){NAN, 1, 0}), 0);
    TT_EXPECT(sg, ((int64_t[]){3}), ((float[]){0, 1, -1}), 0);
    Tensor *i = TI(((int64_t[]){2}), ((int64_t[]){3, -2}));
    Tensor *ie = tensor_exp(i), *ir = tensor_relu(i), *in = tensor_neg(i);
    cr_assert_eq(tensor_dtype(ie), TENSOR_FLOAT32, "exp of ints is float");
    cr_assert_eq(tensor_dtype(ir), TENSOR_INT64);
    TT_EXPECT(in, ((int64_t[]){2}), ((float[]){-3, 2}), 0);
    TensorScalar half = tensor_scalar_f(0.5);
    Tensor *ic = tensor_clamp(i, &half, NULL);
    cr_assert_eq(tensor_dtype(ic), TENSOR_FLOAT32, "clamp(int, 0.5) is float");
    TT_EXPECT(ic, ((int64_t[]){2}), ((float[]){3, 0.5}), 0);
    TT_FREE(a, b, mx, mn, rl, sg, i, ie, ir, in, ic);
}

/* ---- type promotion ------------------------------------------------------------------------------- */

TT_TEST(pointwise, type_promotion) {
    Tensor *f = TT(((int64_t[]){2}), ((float[]){1.5, 2}));
    Tensor *i = TI(((int64_t[]){2}), ((int64_t[]){1, 2}));
    bool bv[2] = {true, false};
    Tensor *b = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){2}, bv);
    struct {
        Tensor *r;
        TensorDtype want;
    } cases[] = {
        {tensor_add_scalar(i, tensor_scalar_f(1.5)), TENSOR_FLOAT32},   /* int + 1.5 -> float */
        {tensor_add_scalar(i, tensor_scalar_i(1)), TENSOR_INT64},
        {tensor_div(i, i), TENSOR_FLOAT32},                              /* true division */
        {tensor_lt(i, f), TENSOR_BOOL},
        {tensor_add(b, b), TENSOR_BOOL},                                 /* bool + bool is or */
        {tensor_add_scalar(b, tensor_scalar_i(1)), TENSOR_INT64},        /* bool + 1 -> int64 */
        {tensor_add_scalar(b, tensor_scalar_f(1.5)), TENSOR_FLOAT32},
        {tensor_add_scalar(b, tensor_scalar_b(true)), TENSOR_BOOL},
        {tensor_add(i, f), TENSOR_FLOAT32},
        {tensor_mul(b, i), TENSOR_INT64},
        {tensor_sum(b), TENSOR_INT64},
        {tensor_sum(i), TENSOR_INT64},
        {tensor_pow_scalar(b, tensor_scalar_i(2)), TENSOR_INT64},
        {tensor_pow_scalar(i, tensor_scalar_f(0.5)), TENSOR_FLOAT32},
        {tensor_rpow_scalar(i, tensor_scalar_i(2)), TENSOR_INT64},
        {tensor_rpow_scalar(i, tensor_scalar_f(2.0)), TENSOR_FLOAT32},
    };
    for (int k = 0; k < NELEM(cases); k++) {
        tt_ok(cases[k].r);
        cr_assert_eq(tensor_dtype(cases[k].r), cases[k].want, "case %d: %s", k, tensor_dtype_name(tensor_dtype(cases[k].r)));
    }
    TT_EXPECT(cases[4].r, ((int64_t[]){2}), ((float[]){1, 0}), 0);
    TT_EXPECT(cases[5].r, ((int64_t[]){2}), ((float[]){2, 1}), 0);
    TT_EXPECT(cases[14].r, ((int64_t[]){2}), ((float[]){2, 4}), 0);
    /* a 0-dim float tensor promotes an int tensor to float (categories beat dimensions) */
    Tensor *zf = tensor_scalar_tensor(tensor_scalar_f(2), TENSOR_FLOAT32);
    Tensor *iz = tensor_mul(i, zf);
    cr_assert_eq(tensor_dtype(iz), TENSOR_FLOAT32);
    for (int k = 0; k < NELEM(cases); k++) tensor_decref(cases[k].r);
    TT_FREE(f, i, b, zf, iz);
}

TT_TEST(pointwise, errors_use_pytorch_wording) {
    Tensor *a = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}), *b = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 2});
    cr_assert_null(tensor_add(a, b));
    tt_expect_error(TENSOR_ERR_RUNTIME, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
    bool bv[1] = {true};
    Tensor *bo = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){1}, bv);
    cr_assert_null(tensor_neg(bo));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported.");
    cr_assert_null(tensor_sub(bo, bo));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported.");
    cr_assert_null(tensor_sub_scalar(bo, tensor_scalar_i(1)));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "with a bool tensor is not supported");
    Tensor *i = TI(((int64_t[]){2}), ((int64_t[]){1, 2})), *z = TI(((int64_t[]){2}), ((int64_t[]){1, 0}));
    cr_assert_null(tensor_floor_divide(i, z));
    tt_expect_error(TENSOR_ERR_RUNTIME, "ZeroDivisionError");
    cr_assert_null(tensor_remainder(i, z));
    tt_expect_error(TENSOR_ERR_RUNTIME, "ZeroDivisionError");
    cr_assert_null(tensor_pow_scalar(i, tensor_scalar_i(-1)));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    cr_assert_eq(tensor_add_scalar_(i, tensor_scalar_f(1.5), tensor_scalar_i(1)), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "result type Float can't be cast to the desired output type Long");
    Tensor *f2 = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){2}), *f22 = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 2});
    cr_assert_eq(tensor_add_(f2, f22, tensor_scalar_i(1)), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "output with shape [2] doesn't match the broadcast shape [2, 2]");
    cr_assert_eq(tensor_version(f2), 1, "the version is bumped before the shape check fails (as PyTorch's in-place path)");
    cr_assert_null(tensor_where(a, a, a));
    tt_expect_error(TENSOR_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
    cr_assert_null(tensor_leaky_relu(i, 0.1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "not implemented for 'Long'");
    TT_FREE(a, b, bo, i, z, f2, f22);
}

/* ---- scalar ops, where, in place ------------------------------------------------------------------ */

static double s_rsub(double a, double b) { (void)b; return 2.5 - a; }
static double s_rpow(double a, double b) { (void)b; return pow(2.0, a); }

TT_TEST(pointwise, scalar_forms) {
    int64_t s[2] = {3, 4};
    Tensor *x0 = tensor_randn(TENSOR_FLOAT32, 2, s), *x = tensor_t(x0);
    Tensor *dummy = tensor_zeros(TENSOR_FLOAT32, 0, NULL);
    Tensor *as = tensor_add_scalar(x, tensor_scalar_f(2.5)), *ms = tensor_mul_scalar(x, tensor_scalar_f(-3));
    Tensor *ds = tensor_div_scalar(x, tensor_scalar_i(4)), *rs = tensor_rsub_scalar(x, tensor_scalar_f(2.5));
    Tensor *rp = tensor_rpow_scalar(x, tensor_scalar_f(2));
    Tensor *gt = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, x, tensor_scalar_i(0));
    Tensor *two = tensor_full(TENSOR_FLOAT32, 0, NULL, tensor_scalar_f(2.5));
    Tensor *sum_ref = tensor_add(x, two);
    cr_assert(tensor_equal(as, sum_ref));
    check_binary(rs, x, dummy, s_rsub, 1e-6);
    check_binary(rp, x, dummy, s_rpow, 1e-6);
    for (int64_t i = 0; i < 12; i++) {
        int64_t idx[2] = {i / 3, i % 3};
        double v = tensor_get_f64(x, idx);
        cr_assert_float_eq(tensor_get_f64(ms, idx), -3 * v, 1e-5);
        cr_assert_float_eq(tensor_get_f64(ds, idx), v / 4, 1e-6);
        cr_assert_eq(tensor_get_f64(gt, idx), v > 0);
    }
    TT_FREE(x0, x, dummy, as, ms, ds, rs, rp, gt, two, sum_ref);
}

TT_TEST(pointwise, where_broadcasts_and_promotes) {
    bool cv[3] = {true, false, true};
    Tensor *c = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){3}, cv);
    Tensor *i = TI(((int64_t[]){2, 1}), ((int64_t[]){7, 8}));
    Tensor *f = TT(((int64_t[]){3}), ((float[]){0.5, 1.5, 2.5}));
    Tensor *w = tensor_where(c, i, f);
    cr_assert_eq(tensor_dtype(w), TENSOR_FLOAT32);
    TT_EXPECT(w, ((int64_t[]){2, 3}), ((float[]){7, 1.5, 7, 8, 1.5, 8}), 0);
    TT_FREE(c, i, f, w);
}

TT_TEST(pointwise, inplace_bumps_version_and_handles_views) {
    Tensor *t = tensor_arange_f(0, 6, 1), *m = tensor_view(t, (int64_t[]){2, 3}, 2);
    cr_assert_eq(tensor_version(t), 0);
    Tensor *row = tensor_select(m, 0, 1);
    cr_assert_eq(tensor_add_scalar_(row, tensor_scalar_i(10), tensor_scalar_i(1)), 0);
    cr_assert_eq(tensor_version(t), 1);
    cr_assert_eq(tensor_version(m), 1);
    TT_EXPECT(t, ((int64_t[]){6}), ((float[]){0, 1, 2, 13, 14, 15}), 0);
    Tensor *sq = tensor_view(t, (int64_t[]){2, 3}, 2);
    cr_assert_eq(tensor_mul_scalar_(sq, tensor_scalar_i(2)), 0);
    TT_EXPECT(t, ((int64_t[]){6}), ((float[]){0, 2, 4, 26, 28, 30}), 0);
    /* overlapping operands: x += x.t() reads the old values */
    Tensor *q = TT(((int64_t[]){2, 2}), ((float[]){1, 2, 3, 4})), *qt = tensor_t(q);
    cr_assert_eq(tensor_add_(q, qt, tensor_scalar_i(1)), 0);
    TT_EXPECT(q, ((int64_t[]){2, 2}), ((float[]){2, 5, 5, 8}), 0);
    Tensor *z = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}), *zc = tensor_t(z);
    cr_assert_eq(tensor_fill_(zc, tensor_scalar_f(2.5)), 0);
    TT_EXPECT(z, ((int64_t[]){2, 3}), ((float[]){2.5, 2.5, 2.5, 2.5, 2.5, 2.5}), 0);
    cr_assert_eq(tensor_zero_(zc), 0);
    TT_EXPECT(z, ((int64_t[]){2, 3}), ((float[]){0, 0, 0, 0, 0, 0}), 0);
    Tensor *src = TI(((int64_t[]){3}), ((int64_t[]){1, 2, 3}));
    cr_assert_eq(tensor_copy_(z, src), 0, "copy_ broadcasts and converts");
    TT_EXPECT(z, ((int64_t[]){2, 3}), ((float[]){1, 2, 3, 1, 2, 3}), 0);
    cr_assert_eq(tensor_relu_(row), 0);
    TensorScalar lo = tensor_scalar_i(5);
    cr_assert_eq(tensor_clamp_(m, &lo, NULL), 0);
    TT_EXPECT(t, ((int64_t[]){6}), ((float[]){5, 5, 5, 26, 28, 30}), 0);
    cr_assert_eq(tensor_version(t), 4);
    TT_FREE(t, m, row, sq, q, qt, z, zc, src);
}

static int mutations;
static Tensor *last_mutated;
static int observer(void *ud, Tensor *t) {
    (void)ud;
    mutations++;
    last_mutated = t;
    return 0;
}
static int refusing_observer(void *ud, Tensor *t) {
    (void)ud;
    (void)t;
    tensor_error_set_external();
    return -1;
}

TT_TEST(pointwise, mutation_observer_runs_before_inplace_ops) {
    tensor_set_mutation_observer(observer, NULL);
    Tensor *t = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){3});
    cr_assert_eq(tensor_fill_(t, tensor_scalar_i(1)), 0);
    cr_assert_eq(tensor_mul_scalar_(t, tensor_scalar_i(2)), 0);
    cr_assert_eq(mutations, 2);
    cr_assert_eq(last_mutated, t);
    tensor_set_mutation_observer(refusing_observer, NULL);
    cr_assert_eq(tensor_zero_(t), -1);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    TT_EXPECT(t, ((int64_t[]){3}), ((float[]){2, 2, 2}), 0);
    cr_assert_eq(tensor_version(t), 2, "a refused mutation leaves the version alone");
    tensor_set_mutation_observer(NULL, NULL);
    tensor_decref(t);
}
