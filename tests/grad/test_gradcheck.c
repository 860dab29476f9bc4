/* test_gradcheck.c — every backward rule against central finite differences (ag_gradcheck):
 * one or more cases per differentiable op in ops.def (a coverage test fails if an op has
 * none), including broadcasting, non-contiguous inputs, in-place forms (applied to a clone),
 * multi-output ops (outputs flattened and concatenated), and second derivatives through
 * create_graph for the ops whose rules are themselves differentiable.  Every unary pointwise
 * op is checked on the domain its table entry names (ops.def's DOM), first and second order.
 *
 * Every case group runs twice: in float32 (suite gradcheck: eps 1e-3, tolerance per case) and in
 * float64 (suite gradcheck_f64: a 4-point stencil and tolerances tight enough to see a float32
 * rounding, opts_for below).  The float inputs of the cases take the dtype of the running test
 * (index and mask inputs stay int64 / bool), and in float64 every floating output of an op must
 * be float64 too: a kernel or rule that drops to float32 fails rather than passing imprecisely. */
#include "tests/support/tensor_test.h"
#include "src/tensor/pwexpr.h"

TestSuite(gradcheck, .init = tt_setup);
TestSuite(gradcheck_f64, .init = tt_setup);

/* the floating dtype of the running test: its float inputs, and the eps and tolerances */
static TensorDtype g_dt = TENSOR_FLOAT32;

/* ---- input factories ------------------------------------------------------------------------------ */

enum { RN, AW, PS, FR, DI, UN, PR };

static int64_t numel_of(int nd, const int64_t *s) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= s[i];
    return n;
}

/* kind RN: normal; AW: |x| in [0.5, 1.5] with random sign (away from kinks at 0);
 * PS: [0.5, 2]; FR: [1.1, 1.35] (away from integers); DI: distinct values (no ties);
 * UN: (-0.8, 0.8); PR: [0.1, 0.9] */
static Tensor *make_as(TensorDtype dt, int kind, int nd, const int64_t *s) {
    int64_t n = numel_of(nd, s);
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    Tensor *u = tensor_rand(TENSOR_FLOAT32, 1, &n), *g = tensor_randn(TENSOR_FLOAT32, 1, &n);
    for (int64_t i = 0; i < n; i++) {
        double a = tensor_get_f64(u, &i), b = tensor_get_f64(g, &i);
        switch (kind) {
        case RN: v[i] = b; break;
        case AW: v[i] = (0.5 + a) * (b < 0 ? -1 : 1); break;
        case PS: v[i] = 0.5 + 1.5 * a; break;
        case FR: v[i] = 1.1 + 0.25 * a; break;
        case UN: v[i] = 1.6 * a - 0.8; break;
        case PR: v[i] = 0.1 + 0.8 * a; break;
        default: v[i] = ((i * 7) % n) * 0.37 - 1.0; break;
        }
    }
    /* float32: each value rounded once from double, as the float32-only version did */
    Tensor *t = tensor_from_data(TENSOR_FLOAT64, nd, s, v), *r = t ? tensor_to_dtype(t, dt) : NULL;
    tensor_decref(t);
    cr_assert(r, "make: %s", tensor_error_message());
    free(v);
    TT_FREE(u, g);
    return r;
}
static Tensor *make(int kind, int nd, const int64_t *s) { return make_as(g_dt, kind, nd, s); }

#define SHAPE(...) NELEM(((int64_t[]){__VA_ARGS__})), ((int64_t[]){__VA_ARGS__})
static Tensor *gr(int kind, int nd, const int64_t *s) { return tt_grad(make(kind, nd, s)); }
static Tensor *cst(int kind, int nd, const int64_t *s) { return make(kind, nd, s); }

/* ---- the checked function: run op (in-place ops on a clone) and flatten its float outputs ------------ */

typedef struct Ctx {
    TensorOp op;
    TensorOpArgs a;
    int n_in;
    bool reseed;
} Ctx;

static Tensor *run_op(void *vctx, Tensor *const *in) {
    Ctx *c = vctx;
    Tensor *x[8];
    for (int i = 0; i < c->n_in; i++) x[i] = in[i];
    Tensor *clone = NULL;
    if (tensor_op_flags(c->op) & TENSOR_OPF_INPLACE) {
        clone = ag_clone(in[0]);
        if (!clone) return NULL;
        x[0] = clone;
    }
    if (c->reseed) tensor_manual_seed(99);
    Tensor *out[16] = {0};
    int n = ag_op_run(c->op, x, c->n_in, &c->a, out, 16);
    tensor_decref(clone);
    if (n < 0) return NULL;
    Tensor *flat[16];
    int k = 0;
    /* floating outputs are of the running dtype (to_dtype's: of the dtype it converts to) */
    TensorDtype want = c->op == TENSOR_OP_TO_DTYPE ? c->a.dtype : g_dt;
    for (int i = 0; i < n; i++) {
        TensorDtype d = tensor_dtype(out[i]);
        if ((d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64) && d != want) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "output %d is %s in a %s run", i, tensor_dtype_name(d), tensor_dtype_name(want));
            for (int j = 0; j < k; j++) tensor_decref(flat[j]);
            for (int j = i; j < n; j++) tensor_decref(out[j]);
            return NULL;
        }
        if (d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64) {
            int64_t m1 = -1;
            flat[k++] = ag_reshape(out[i], &m1, 1);
        }
        tensor_decref(out[i]);
    }
    if (k == 1) return flat[0];
    Tensor *r = ag_cat(flat, k, 0);
    for (int i = 0; i < k; i++) tensor_decref(flat[i]);
    return r;
}

/* float32: eps 1e-3 and the case's tolerance.  float64: far tighter than torch.autograd.gradcheck's
 * defaults (eps 1e-6, atol 1e-5, rtol 1e-3), which a gradient rounded through float32 on the way
 * (relative error ~3e-8) passes: the 4-point stencil at eps 1e-4 gets the numeric derivative of
 * every case to ~1e-9 (every case passes at eps 5e-5..2e-4 with rtol 1e-9; lgamma's second order,
 * the least accurate, is off by 5e-10), so atol 1e-10 / rtol 5e-9 flags a float32 rounding. */
static AgGradcheckOpts opts_for(double tol, bool second) {
    if (g_dt == TENSOR_FLOAT64)
        return (AgGradcheckOpts){.eps = 1e-4, .atol = 1e-10, .rtol = 5e-9, .check_second_order = second, .fourth_order = true};
    return (AgGradcheckOpts){.eps = 1e-3, .atol = tol, .rtol = tol, .check_second_order = second};
}

static void check(TensorOp op, Tensor **in, int n_in, const TensorOpArgs *a, bool second, double tol) {
    Ctx c = {.op = op, .a = a ? *a : TENSOR_OP_ARGS_INIT, .n_in = n_in};
    c.reseed = (tensor_op_flags(op) & TENSOR_OPF_RANDOM) != 0;
    AgGradcheckOpts o = opts_for(tol, second);
    int r = ag_gradcheck(run_op, &c, n_in, in, &o);
    cr_assert_neq(r, -1, "%s: error %s", tensor_op_info(op)->enum_name, tensor_error_message());
    cr_assert_eq(r, 1, "%s: %s", tensor_op_info(op)->enum_name, o.failure ? o.failure : "?");
    free(o.failure);
    for (int i = 0; i < n_in; i++) tensor_decref(in[i]);
}

static bool covered[TENSOR_OP_COUNT];
#define CHECK(op, second, tol, ...)                                                             \
    do {                                                                                        \
        Tensor *in_[] = {__VA_ARGS__};                                                          \
        covered[op] = true;                                                                     \
        check(op, in_, NELEM(in_), &a, second, tol);                                            \
        a = TENSOR_OP_ARGS_INIT;                                                                \
    } while (0)

#define T1 1e-2

/* ---- cases --------------------------------------------------------------------------------------------- */

/* the input kind of an ops.def domain */
static int domain_kind(PwDomain d) {
    switch (d) {
    case PWD_POS: return PS;
    case PWD_AWAY0: return AW;
    case PWD_FRAC: return FR;
    case PWD_UNIT: return UN;
    case PWD_PROB: return PR;
    default: return RN;
    }
}

static void unary_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    /* every differentiable unary pointwise op of the table, on its domain (a scalar argument,
     * such as leaky_relu's slope, is 0.2) */
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        const PwInfo *k = tensor__pw_info((TensorOp)o);
        if (k->form != PWF_UNARY || k->dom == PWD_NODOM || (tensor_op_flags((TensorOp)o) & TENSOR_OPF_NONDIFF)) continue;
        a.scalar = tensor_scalar_f(0.2);
        CHECK((TensorOp)o, true, T1, gr(domain_kind((PwDomain)k->dom), SHAPE(2, 3)));
    }
    a.approximate = true;
    CHECK(TENSOR_OP_GELU, true, T1, gr(RN, SHAPE(2, 3)));
    a.has_min = a.has_max = true;
    a.scalar = tensor_scalar_f(-0.25);
    a.scalar2 = tensor_scalar_f(0.25);
    CHECK(TENSOR_OP_CLAMP, true, T1, gr(AW, SHAPE(2, 3)));
    if (g_dt == TENSOR_FLOAT32) {
        a.dtype = TENSOR_FLOAT32;
        CHECK(TENSOR_OP_TO_DTYPE, true, T1, gr(RN, SHAPE(2, 3)));
    } else {
        /* a real conversion: float32 -> float64 is exact, so it is checked at float64's
         * tolerance (its backward turns the float64 gradient back into float32); then the
         * same-dtype form, which returns its input */
        a.dtype = TENSOR_FLOAT64;
        CHECK(TENSOR_OP_TO_DTYPE, true, T1, tt_grad(make_as(TENSOR_FLOAT32, RN, SHAPE(2, 3))));
        a.dtype = TENSOR_FLOAT64;
        CHECK(TENSOR_OP_TO_DTYPE, true, T1, gr(RN, SHAPE(2, 3)));
    }
}

static Tensor *bool_mask(int nd, const int64_t *s) {
    Tensor *r = make(RN, nd, s), *m = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, r, tensor_scalar_i(0));
    tensor_decref(r);
    return m;
}

static void binary_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.alpha = tensor_scalar_f(2.5);
    CHECK(TENSOR_OP_ADD, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    a.alpha = tensor_scalar_f(-1.5);
    CHECK(TENSOR_OP_SUB, true, T1, gr(RN, SHAPE(2, 1)), gr(RN, SHAPE(1, 3)));
    CHECK(TENSOR_OP_MUL, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_MUL, true, T1, gr(RN, SHAPE(2, 3)), cst(RN, SHAPE(3)));
    CHECK(TENSOR_OP_DIV, true, T1, gr(RN, SHAPE(2, 3)), gr(AW, SHAPE(3)));
    CHECK(TENSOR_OP_POW, true, T1, gr(PS, SHAPE(2, 3)), gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_MAXIMUM, true, T1, gr(DI, SHAPE(2, 3)), gr(AW, SHAPE(2, 3)));
    CHECK(TENSOR_OP_MINIMUM, true, T1, gr(DI, SHAPE(2, 3)), gr(AW, SHAPE(2, 3)));
    CHECK(TENSOR_OP_REMAINDER, false, T1, gr(FR, SHAPE(2, 3)), gr(PS, SHAPE(2, 3)));
    CHECK(TENSOR_OP_ATAN2, true, T1, gr(AW, SHAPE(2, 3)), gr(AW, SHAPE(3)));
    CHECK(TENSOR_OP_FMOD, false, T1, gr(FR, SHAPE(2, 3)), gr(PS, SHAPE(2, 3)));
    CHECK(TENSOR_OP_HYPOT, true, T1, gr(AW, SHAPE(2, 3)), gr(AW, SHAPE(3)));
    CHECK(TENSOR_OP_LOGADDEXP, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 1)));
    CHECK(TENSOR_OP_LOGADDEXP2, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    CHECK(TENSOR_OP_COPYSIGN, true, T1, gr(AW, SHAPE(2, 3)), gr(AW, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(1.5);
    CHECK(TENSOR_OP_ADD_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(1.5);
    CHECK(TENSOR_OP_SUB_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(-2.5);
    CHECK(TENSOR_OP_MUL_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_i(4);
    CHECK(TENSOR_OP_DIV_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2.5);
    CHECK(TENSOR_OP_POW_SCALAR, true, T1, gr(PS, SHAPE(2, 3)));
    a.scalar = tensor_scalar_i(3);
    CHECK(TENSOR_OP_POW_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2);
    a.alpha = tensor_scalar_f(3);
    CHECK(TENSOR_OP_RSUB_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2);
    CHECK(TENSOR_OP_RPOW_SCALAR, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(1.5);
    CHECK(TENSOR_OP_POW_SCALAR_SELF, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(0.7);
    CHECK(TENSOR_OP_REMAINDER_SCALAR, false, T1, gr(FR, SHAPE(2, 3)));
    CHECK(TENSOR_OP_WHERE, true, T1, bool_mask(SHAPE(2, 3)), gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    a.scalar = tensor_scalar_f(-3);
    CHECK(TENSOR_OP_MASKED_FILL, true, T1, gr(RN, SHAPE(2, 3)), bool_mask(SHAPE(3)));
    a.scalar = tensor_scalar_f(0.25);
    CHECK(TENSOR_OP_THRESHOLD_BACKWARD, true, T1, gr(RN, SHAPE(2, 3)), cst(AW, SHAPE(2, 3)));
    CHECK(TENSOR_OP_TANH_BACKWARD, true, T1, gr(RN, SHAPE(2, 3)), gr(UN, SHAPE(2, 3)));
}

static void reduction_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    int64_t d0[1] = {0}, d02[2] = {0, -1};
    CHECK(TENSOR_OP_SUM, true, T1, gr(RN, SHAPE(2, 3)));
    a.ints = d0;
    a.n_ints = 1;
    CHECK(TENSOR_OP_SUM_DIM, true, T1, gr(RN, SHAPE(2, 3)));
    a.ints = d02;
    a.n_ints = 2;
    a.keepdim = true;
    CHECK(TENSOR_OP_SUM_DIM, true, T1, gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_MEAN, true, T1, gr(RN, SHAPE(2, 3)));
    a.ints = d02;
    a.n_ints = 2;
    CHECK(TENSOR_OP_MEAN_DIM, true, T1, gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_PROD, true, T1, gr(AW, SHAPE(2, 3)));
    a.dim = 1;
    CHECK(TENSOR_OP_PROD_DIM, true, T1, gr(AW, SHAPE(2, 3)));
    /* a zero in the input takes the exclusive-product path */
    Tensor *z = gr(AW, SHAPE(2, 3));
    bool prev = ag_set_grad_enabled(false);
    memset(tensor_data_ptr(z), 0, tensor_dtype_size(g_dt)); /* 0.0f / 0.0: all bits zero */
    ag_set_grad_enabled(prev);
    CHECK(TENSOR_OP_PROD, false, T1, z);
    CHECK(TENSOR_OP_MAX, true, T1, gr(DI, SHAPE(2, 3)));
    CHECK(TENSOR_OP_MIN, true, T1, gr(DI, SHAPE(2, 3)));
    a.dim = -1;
    CHECK(TENSOR_OP_MAX_DIM, true, T1, gr(DI, SHAPE(2, 3)));
    a.dim = 0;
    a.keepdim = true;
    CHECK(TENSOR_OP_MIN_DIM, true, T1, gr(DI, SHAPE(2, 3)));
    a.ints = d02;
    a.n_ints = 2;
    a.keepdim = false;
    CHECK(TENSOR_OP_AMAX, true, T1, gr(DI, SHAPE(2, 3, 2)));
    a.n_ints = 0;
    CHECK(TENSOR_OP_AMIN, true, T1, gr(DI, SHAPE(2, 3)));
    a.keepdim = true;
    a.ints = d0;
    a.n_ints = 1;
    CHECK(TENSOR_OP_VAR, true, T1, gr(RN, SHAPE(3, 2)));
    a.correction = 0;
    CHECK(TENSOR_OP_VAR, true, T1, gr(RN, SHAPE(3, 2)));
    CHECK(TENSOR_OP_STD, true, T1, gr(RN, SHAPE(3, 2)));
    a.ints = d0;
    a.n_ints = 1;
    a.keepdim = true;
    CHECK(TENSOR_OP_STD, true, T1, gr(RN, SHAPE(3, 2)));
    a.ints = d02;
    a.n_ints = 2;
    CHECK(TENSOR_OP_LOGSUMEXP, true, T1, gr(RN, SHAPE(2, 3, 2)));
    /* vector norms: ord 2 over all dims, 3 / 1.5 over dim 0, inf (distinct values) */
    a.scalar = tensor_scalar_f(2);
    CHECK(TENSOR_OP_VECTOR_NORM, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(3);
    a.ints = d0;
    a.n_ints = 1;
    CHECK(TENSOR_OP_VECTOR_NORM, true, T1, gr(RN, SHAPE(3, 2)));
    a.scalar = tensor_scalar_f(1.5);
    a.ints = d0;
    a.n_ints = 1;
    a.keepdim = true;
    CHECK(TENSOR_OP_VECTOR_NORM, false, T1, gr(AW, SHAPE(3, 2)));
    a.scalar = tensor_scalar_f(INFINITY);
    CHECK(TENSOR_OP_VECTOR_NORM, false, T1, gr(DI, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2);
    a.ints = d0;
    a.n_ints = 1;
    CHECK(TENSOR_OP_NORM, true, T1, gr(RN, SHAPE(3, 2)));
}

static Tensor *transposed(int kind, int64_t r, int64_t c) {
    Tensor *t = make(kind, 2, (int64_t[]){c, r}), *tt = tensor_t(t);
    tensor_decref(t);
    return tt_grad(tt);
}

static void view_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    int64_t sh[3] = {3, -1, 2};
    a.ints = sh;
    a.n_ints = 3;
    CHECK(TENSOR_OP_VIEW, true, T1, gr(RN, SHAPE(2, 6)));
    a.ints = sh;
    a.n_ints = 3;
    CHECK(TENSOR_OP_UNSAFE_VIEW, true, T1, gr(RN, SHAPE(2, 6)));
    int64_t sh2[1] = {-1};
    a.ints = sh2;
    a.n_ints = 1;
    CHECK(TENSOR_OP_RESHAPE, true, T1, transposed(RN, 2, 3)); /* needs a copy */
    int64_t size[2] = {2, 2}, stride[2] = {1, 1};                /* overlapping windows */
    a.ints = size;
    a.n_ints = 2;
    a.ints2 = stride;
    a.n_ints2 = 2;
    a.start = 1;
    CHECK(TENSOR_OP_AS_STRIDED, true, T1, gr(RN, SHAPE(5)));
    a.dim = 0;
    a.dim2 = 2;
    CHECK(TENSOR_OP_TRANSPOSE, true, T1, gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_T, true, T1, gr(RN, SHAPE(2, 3)));
    int64_t perm[3] = {2, 0, 1};
    a.ints = perm;
    a.n_ints = 3;
    CHECK(TENSOR_OP_PERMUTE, true, T1, gr(RN, SHAPE(2, 3, 2)));
    int64_t ex[3] = {2, 3, 4};
    a.ints = ex;
    a.n_ints = 3;
    CHECK(TENSOR_OP_EXPAND, true, T1, gr(RN, SHAPE(3, 1)));
    a.dim = 1;
    a.start = -4;
    a.end = INT64_MAX;
    a.step = 2;
    CHECK(TENSOR_OP_SLICE, true, T1, gr(RN, SHAPE(2, 5)));
    a.dim = -1;
    a.start = 1;
    CHECK(TENSOR_OP_SELECT, true, T1, gr(RN, SHAPE(2, 3)));
    a.start = -1;
    a.dim = 2;
    a.dim2 = 0;
    CHECK(TENSOR_OP_DIAGONAL, true, T1, gr(RN, SHAPE(3, 2, 4)));
    a.dim = 0;
    a.start = 1;
    a.step = 2;
    CHECK(TENSOR_OP_NARROW, true, T1, gr(RN, SHAPE(4, 2)));
    a.dim = 1;
    CHECK(TENSOR_OP_UNSQUEEZE, true, T1, gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_SQUEEZE, true, T1, gr(RN, SHAPE(2, 1, 3)));
    a.dim = 1;
    CHECK(TENSOR_OP_SQUEEZE_DIM, true, T1, gr(RN, SHAPE(2, 1, 3)));
    a.dim = 1;
    a.dim2 = 2;
    CHECK(TENSOR_OP_FLATTEN, true, T1, gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_CONTIGUOUS, true, T1, transposed(RN, 2, 3));
    a.start = 2;
    a.dim = 1;
    CHECK(TENSOR_OP_SPLIT, true, T1, gr(RN, SHAPE(2, 5)));
    int64_t sizes[2] = {1, 3};
    a.ints = sizes;
    a.n_ints = 2;
    a.dim = 0;
    CHECK(TENSOR_OP_SPLIT_WITH_SIZES, true, T1, gr(RN, SHAPE(4, 2)));
    a.start = 3;
    a.dim = -1;
    CHECK(TENSOR_OP_CHUNK, true, T1, gr(RN, SHAPE(2, 5)));
    a.dim = 1;
    CHECK(TENSOR_OP_UNBIND, true, T1, gr(RN, SHAPE(2, 3)));
    a.dim = 1;
    CHECK(TENSOR_OP_CAT, true, T1, gr(RN, SHAPE(2, 3)), cst(RN, SHAPE(2, 1)), gr(RN, SHAPE(2, 2)));
    a.dim = -1;
    CHECK(TENSOR_OP_STACK, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 3)));
}

static void linalg_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    CHECK(TENSOR_OP_MM, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3, 4)));
    CHECK(TENSOR_OP_MM, true, T1, transposed(RN, 2, 3), transposed(RN, 3, 4)); /* layout-aware path */
    CHECK(TENSOR_OP_BMM, true, T1, gr(RN, SHAPE(2, 2, 3)), gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_MV, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    CHECK(TENSOR_OP_DOT, true, T1, gr(RN, SHAPE(4)), gr(RN, SHAPE(4)));
    a.beta = tensor_scalar_f(0.5);
    a.alpha = tensor_scalar_f(-2);
    CHECK(TENSOR_OP_ADDMM, true, T1, gr(RN, SHAPE(4)), gr(RN, SHAPE(2, 3)), transposed(RN, 3, 4));
    CHECK(TENSOR_OP_MATMUL, true, T1, gr(RN, SHAPE(3)), gr(RN, SHAPE(3, 2)));
    CHECK(TENSOR_OP_MATMUL, true, T1, gr(RN, SHAPE(2, 2, 3)), gr(RN, SHAPE(3)));
    CHECK(TENSOR_OP_MATMUL, true, T1, gr(RN, SHAPE(2, 1, 2, 3)), gr(RN, SHAPE(2, 3, 2)));
    CHECK(TENSOR_OP_LINEAR, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(4, 3)), gr(RN, SHAPE(4)));
    CHECK(TENSOR_OP_LINEAR, true, T1, gr(RN, SHAPE(2, 2, 3)), gr(RN, SHAPE(4, 3)), gr(RN, SHAPE(4)));
    CHECK(TENSOR_OP_LINEAR, true, T1, gr(RN, SHAPE(3)), gr(RN, SHAPE(4, 3)));
}

static void index_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = 1;
    CHECK(TENSOR_OP_GATHER, true, T1, gr(RN, SHAPE(2, 3)), TI(((int64_t[]){2, 3}), ((int64_t[]){2, 2, 0, 1, 0, 1})));
    a.dim = 0;
    CHECK(TENSOR_OP_SCATTER_ADD, true, T1, gr(RN, SHAPE(3, 2)), TI(((int64_t[]){2, 2}), ((int64_t[]){2, 0, 2, 2})),
          gr(RN, SHAPE(2, 2)));
    a.dim = 0;
    CHECK(TENSOR_OP_INDEX_SELECT, true, T1, gr(RN, SHAPE(3, 2)), TI(((int64_t[]){4}), ((int64_t[]){2, 0, 2, 1})));
    a.dim = 1;
    a.alpha = tensor_scalar_f(1.5);
    CHECK(TENSOR_OP_INDEX_ADD, true, T1, gr(RN, SHAPE(2, 3)), TI(((int64_t[]){2}), ((int64_t[]){2, 2})), gr(RN, SHAPE(2, 2)));
    a.dim = 0;
    CHECK(TENSOR_OP_INDEX, true, T1, gr(RN, SHAPE(3, 2)), TI(((int64_t[]){3}), ((int64_t[]){2, -1, 0})));
    a.dim = 0;
    CHECK(TENSOR_OP_INDEX, true, T1, gr(RN, SHAPE(3, 2)), bool_mask(SHAPE(3, 2)));
    a.dim = 0;
    a.accumulate = true;
    CHECK(TENSOR_OP_INDEX_PUT, true, T1, gr(RN, SHAPE(3, 2)), gr(RN, SHAPE(2)), TI(((int64_t[]){2}), ((int64_t[]){1, 1})));
    a.dim = 0;
    CHECK(TENSOR_OP_INDEX_PUT, true, T1, gr(RN, SHAPE(3, 2)), gr(RN, SHAPE(2, 2)), TI(((int64_t[]){2}), ((int64_t[]){2, 0})));
    CHECK(TENSOR_OP_MASKED_SELECT, true, T1, gr(RN, SHAPE(2, 3)), bool_mask(SHAPE(3)));
    CHECK(TENSOR_OP_MASKED_SCATTER, true, T1, gr(RN, SHAPE(2, 3)), bool_mask(SHAPE(2, 3)), gr(RN, SHAPE(7)));
    /* branch surface: scatter (src and value forms), scatter_reduce (every reduction, with and without
     * self; distinct values so amax/amin have no ties), kthvalue (keepdim and not) */
    a.dim = 1;
    CHECK(TENSOR_OP_SCATTER, true, T1, gr(RN, SHAPE(2, 4)), TI(((int64_t[]){2, 3}), ((int64_t[]){3, 0, 1, 2, 0, 3})),
          gr(RN, SHAPE(2, 3)));
    a.dim = -1;
    a.scalar = tensor_scalar_f(0.5);
    CHECK(TENSOR_OP_SCATTER, true, T1, gr(RN, SHAPE(2, 4)), TI(((int64_t[]){2, 2}), ((int64_t[]){3, 0, 1, 1})));
    for (int red = TENSOR_SCATTER_SUM; red <= TENSOR_SCATTER_AMIN; red++)
        for (int inc = 0; inc < 2; inc++) {
            a.dim = 1;
            a.start = red;
            a.accumulate = inc;
            CHECK(TENSOR_OP_SCATTER_REDUCE, red != TENSOR_SCATTER_PROD, T1, gr(DI, SHAPE(2, 4)),
                  TI(((int64_t[]){2, 5}), ((int64_t[]){0, 0, 3, 3, 1, 2, 2, 2, 1, 0})), gr(AW, SHAPE(2, 5)));
        }
    a.dim = 1;
    a.start = 2;
    CHECK(TENSOR_OP_KTHVALUE, true, T1, gr(DI, SHAPE(3, 4)));
    a.dim = 0;
    a.start = 3;
    a.keepdim = true;
    CHECK(TENSOR_OP_KTHVALUE, true, T1, gr(DI, SHAPE(3, 4)));
    /* reorder ops (src/tensor/reorder.c) */
    a = TENSOR_OP_ARGS_INIT;
    a.start = 1;
    CHECK(TENSOR_OP_TRIL, true, T1, gr(RN, SHAPE(2, 3, 4)));
    a.start = -1;
    CHECK(TENSOR_OP_TRIU, true, T1, gr(RN, SHAPE(3, 3)));
    int64_t shifts[2] = {1, -2}, rdims[2] = {0, -1};
    a = TENSOR_OP_ARGS_INIT;
    a.ints = shifts;
    a.n_ints = 2;
    a.ints2 = rdims;
    a.n_ints2 = 2;
    CHECK(TENSOR_OP_ROLL, true, T1, gr(RN, SHAPE(3, 4)));
    a = TENSOR_OP_ARGS_INIT;
    a.ints = rdims;
    a.n_ints = 2;
    CHECK(TENSOR_OP_FLIP, true, T1, gr(RN, SHAPE(3, 4)));
    a = TENSOR_OP_ARGS_INIT;
    a.dim = 1;
    a.step = -1;
    CHECK(TENSOR_OP_SORT, true, T1, gr(RN, SHAPE(3, 4)));
    a.start = 2;
    a.dim = 0;
    CHECK(TENSOR_OP_TOPK, true, T1, gr(RN, SHAPE(3, 4)));
    a = TENSOR_OP_ARGS_INIT;
    a.dim = -1;
    CHECK(TENSOR_OP_CUMSUM, true, T1, gr(RN, SHAPE(3, 4)));
}

static void nn_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = 1;
    CHECK(TENSOR_OP_SOFTMAX, true, T1, gr(RN, SHAPE(2, 3)));
    a.dim = 0;
    CHECK(TENSOR_OP_LOG_SOFTMAX, true, T1, gr(RN, SHAPE(2, 3)));
    int64_t ns[1] = {3}, ns2[2] = {2, 3};
    a.ints = ns;
    a.n_ints = 1;
    CHECK(TENSOR_OP_LAYER_NORM, true, 2e-2, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)), gr(RN, SHAPE(3)));
    a.ints = ns2;
    a.n_ints = 2;
    CHECK(TENSOR_OP_LAYER_NORM, true, 2e-2, gr(RN, SHAPE(2, 2, 3)));
    /* native_batch_norm: training (batch statistics; its outputs save_mean and save_invstd are
     * checked too), with running statistics updated in place (constants here), 2-D without affine,
     * and evaluation over running statistics */
    a = TENSOR_OP_ARGS_INIT;
    a.train = true;
    a.p = 0.1;
    CHECK(TENSOR_OP_BATCH_NORM, true, 2e-2, gr(RN, SHAPE(3, 2, 4)), gr(RN, SHAPE(2)), gr(RN, SHAPE(2)), cst(RN, SHAPE(2)),
          cst(PS, SHAPE(2)));
    CHECK(TENSOR_OP_BATCH_NORM, true, 2e-2, gr(RN, SHAPE(5, 3)));
    a.train = false;
    a.eps = 1e-3;
    CHECK(TENSOR_OP_BATCH_NORM, true, T1, gr(RN, SHAPE(2, 3, 2)), gr(RN, SHAPE(3)), gr(RN, SHAPE(3)), cst(RN, SHAPE(3)),
          cst(PS, SHAPE(3)));
    a = TENSOR_OP_ARGS_INIT;
    /* the fused LSTM cell: (gates (B, 4H), cx) -> (hy, cy, workspace), all three checked (the
     * composed backward); its fused backward kernel is checked in float64 by the golden
     * tests/torch/layers_rnn/rnn_float64 (PyTorch's gradcheck over nn.LSTM) */
    CHECK(TENSOR_OP_LSTM_CELL, true, T1, gr(RN, SHAPE(2, 12)), gr(RN, SHAPE(2, 3)));
    /* nn.GRU's gate sigmoid, rows of 20: a whole block and a tail in each */
    CHECK(TENSOR_OP_SIGMOID_ROWS, true, T1, gr(RN, SHAPE(2, 20)));
    CHECK(TENSOR_OP_EMBEDDING, true, T1, gr(RN, SHAPE(4, 3)), TI(((int64_t[]){2, 2}), ((int64_t[]){3, 0, 3, 1})));
    a.p = 0.4;
    CHECK(TENSOR_OP_DROPOUT, true, T1, gr(RN, SHAPE(3, 4)));
    a.p = 0.4;
    CHECK(TENSOR_OP_NATIVE_DROPOUT, true, T1, gr(RN, SHAPE(3, 4)));
    CHECK(TENSOR_OP_NLL_LOSS, true, T1, gr(RN, SHAPE(3, 4)), TI(((int64_t[]){3}), ((int64_t[]){1, 3, 0})));
    a.reduction = TENSOR_REDUCTION_NONE;
    CHECK(TENSOR_OP_NLL_LOSS, true, T1, gr(RN, SHAPE(3, 4)), TI(((int64_t[]){3}), ((int64_t[]){1, 3, 0})));
    a.ignore_index = 3;
    CHECK(TENSOR_OP_NLL_LOSS, true, T1, gr(RN, SHAPE(3, 4)), TI(((int64_t[]){3}), ((int64_t[]){1, 3, 0})), cst(PS, SHAPE(4)));
    CHECK(TENSOR_OP_CROSS_ENTROPY, true, T1, gr(RN, SHAPE(3, 4)), TI(((int64_t[]){3}), ((int64_t[]){1, 3, 0})));
    a.reduction = TENSOR_REDUCTION_SUM;
    CHECK(TENSOR_OP_CROSS_ENTROPY, true, T1, gr(RN, SHAPE(4)), tensor_scalar_tensor(tensor_scalar_i(2), TENSOR_INT64));
    CHECK(TENSOR_OP_MSE_LOSS, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 3)));
    a.reduction = TENSOR_REDUCTION_NONE;
    CHECK(TENSOR_OP_MSE_LOSS, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
}

/* convolution and pooling kernels (src/tensor/conv.c): im2col with stride, dilation and uneven
 * padding, its adjoint col2im, max_pool2d with padding and ceil mode (distinct values: no ties) */
static void conv_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    int64_t geo[10] = {2, 3, 1, 2, 1, 0, 0, 2, 2, 1};
    a.ints = geo;
    a.n_ints = 10;
    CHECK(TENSOR_OP_IM2COL, true, T1, gr(RN, SHAPE(2, 2, 4, 5)));
    int64_t geo2[12] = {4, 5, 2, 3, 1, 2, 1, 0, 0, 2, 2, 1};
    a.ints = geo2;
    a.n_ints = 12;
    CHECK(TENSOR_OP_COL2IM, true, T1, gr(RN, SHAPE(2, 12, 6)));
    int64_t pool[9] = {2, 3, 2, 1, 1, 1, 1, 1, 1};
    a.ints = pool;
    a.n_ints = 9;
    CHECK(TENSOR_OP_MAX_POOL2D, false, T1, gr(DI, SHAPE(2, 2, 4, 5)));
}

static void inplace_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.alpha = tensor_scalar_f(0.5);
    CHECK(TENSOR_OP_ADD_, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    CHECK(TENSOR_OP_SUB_, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_MUL_, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    CHECK(TENSOR_OP_DIV_, true, T1, gr(RN, SHAPE(2, 3)), gr(AW, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2);
    CHECK(TENSOR_OP_ADD_SCALAR_, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(2);
    CHECK(TENSOR_OP_SUB_SCALAR_, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(-3);
    CHECK(TENSOR_OP_MUL_SCALAR_, true, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(-3);
    CHECK(TENSOR_OP_DIV_SCALAR_, true, T1, gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_ZERO_, false, T1, gr(RN, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(4);
    CHECK(TENSOR_OP_FILL_, false, T1, gr(RN, SHAPE(2, 3)));
    CHECK(TENSOR_OP_COPY_, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(3)));
    a.has_min = true;
    a.scalar = tensor_scalar_f(0);
    CHECK(TENSOR_OP_CLAMP_, true, T1, gr(AW, SHAPE(2, 3)));
    CHECK(TENSOR_OP_RELU_, true, T1, gr(AW, SHAPE(2, 3)));
    a.scalar = tensor_scalar_f(7);
    CHECK(TENSOR_OP_MASKED_FILL_, true, T1, gr(RN, SHAPE(2, 3)), bool_mask(SHAPE(2, 3)));
    a.dim = 1;
    CHECK(TENSOR_OP_INDEX_PUT_, true, T1, gr(RN, SHAPE(2, 3)), gr(RN, SHAPE(2, 2)), TI(((int64_t[]){2}), ((int64_t[]){2, 0})));
    /* the scatter family's in-place forms (the base op's rule; scatter_reduce_ saves a copy of self) */
    a.dim = 1;
    CHECK(TENSOR_OP_SCATTER_, true, T1, gr(RN, SHAPE(2, 4)), TI(((int64_t[]){2, 3}), ((int64_t[]){3, 0, 1, 2, 0, 3})),
          gr(RN, SHAPE(2, 3)));
    a.dim = 0;
    CHECK(TENSOR_OP_SCATTER_ADD_, true, T1, gr(RN, SHAPE(3, 2)), TI(((int64_t[]){2, 2}), ((int64_t[]){2, 0, 2, 2})),
          gr(RN, SHAPE(2, 2)));
    for (int red = TENSOR_SCATTER_SUM; red <= TENSOR_SCATTER_AMIN; red++) {
        a.dim = 1;
        a.start = red;
        a.accumulate = red != TENSOR_SCATTER_MEAN;
        CHECK(TENSOR_OP_SCATTER_REDUCE_, red != TENSOR_SCATTER_PROD, T1, gr(DI, SHAPE(2, 4)),
              TI(((int64_t[]){2, 5}), ((int64_t[]){0, 0, 3, 3, 1, 2, 2, 2, 1, 0})), gr(AW, SHAPE(2, 5)));
    }
    a.dim = 1;
    a.alpha = tensor_scalar_f(1.5);
    CHECK(TENSOR_OP_INDEX_ADD_, true, T1, gr(RN, SHAPE(2, 3)), TI(((int64_t[]){2}), ((int64_t[]){2, 2})), gr(RN, SHAPE(2, 2)));
    CHECK(TENSOR_OP_MASKED_SCATTER_, true, T1, gr(RN, SHAPE(2, 3)), bool_mask(SHAPE(2, 3)), gr(RN, SHAPE(7)));
    a.scalar2 = tensor_scalar_f(1);
    CHECK(TENSOR_OP_NORMAL_, false, T1, gr(RN, SHAPE(2, 3)));
    a.scalar2 = tensor_scalar_f(1);
    CHECK(TENSOR_OP_UNIFORM_, false, T1, gr(RN, SHAPE(2, 3)));
}

/* ---- branch opsmath: special functions, scans, LAPACK ops ----------------------------------------------
 * cholesky / inv / det / slogdet run on S = x x^T + I (well conditioned, and symmetric as cholesky's
 * rule assumes: it reads one triangle); float64 here too, and through Python by the goldens'
 * torch.autograd.gradcheck (tests/torch/math_ops/gradcheck64.py) */
static Tensor *run_spd(void *vctx, Tensor *const *in) {
    Ctx *c = vctx;
    Tensor *xt = ag_transpose(in[0], -2, -1), *p = xt ? ag_matmul(in[0], xt) : NULL;
    Tensor *eye = tensor_eye(in[0]->shape[in[0]->ndim - 1], -1, g_dt);
    Tensor *S = p && eye ? ag_add(p, eye) : NULL;
    Tensor *x[2] = {S, c->n_in > 1 ? in[1] : NULL};
    Tensor *r = S ? run_op(c, x) : NULL;
    TT_FREE(xt, p, eye, S);
    return r;
}

static void check_spd(TensorOp op, Tensor *x, Tensor *b, const TensorOpArgs *a) {
    Ctx c = {.op = op, .a = a ? *a : TENSOR_OP_ARGS_INIT, .n_in = b ? 2 : 1};
    Tensor *in[2] = {x, b};
    AgGradcheckOpts o = opts_for(T1, false);
    int r = ag_gradcheck(run_spd, &c, b ? 2 : 1, in, &o);
    cr_assert_neq(r, -1, "%s: error %s", tensor_op_info(op)->enum_name, tensor_error_message());
    cr_assert_eq(r, 1, "%s: %s", tensor_op_info(op)->enum_name, o.failure ? o.failure : "?");
    free(o.failure);
    tensor_decref(x);
    tensor_decref(b);
    covered[op] = true;
}

/* solve's A is x + 3I: well conditioned and not symmetric (a symmetric A would hide a transpose) */
static Tensor *run_dominant(void *vctx, Tensor *const *in) {
    Ctx *c = vctx;
    Tensor *eye = tensor_eye(in[0]->shape[in[0]->ndim - 1], -1, g_dt);
    Tensor *e3 = eye ? ag_mul_scalar(eye, tensor_scalar_f(3)) : NULL;
    Tensor *A = e3 ? ag_add(in[0], e3) : NULL;
    Tensor *x[2] = {A, in[1]};
    Tensor *r = A ? run_op(c, x) : NULL;
    TT_FREE(eye, e3, A);
    return r;
}

static void check_solve(Tensor *x, Tensor *b, const TensorOpArgs *a) {
    Ctx c = {.op = TENSOR_OP_LINALG_SOLVE, .a = *a, .n_in = 2};
    Tensor *in[2] = {x, b};
    AgGradcheckOpts o = opts_for(T1, false);
    int r = ag_gradcheck(run_dominant, &c, 2, in, &o);
    cr_assert_neq(r, -1, "LINALG_SOLVE: error %s", tensor_error_message());
    cr_assert_eq(r, 1, "LINALG_SOLVE (left %d, transposed %d): %s", !a->accumulate, a->has_min, o.failure ? o.failure : "?");
    free(o.failure);
    tensor_decref(x);
    tensor_decref(b);
    covered[TENSOR_OP_LINALG_SOLVE] = true;
}

/* svd and eigh: every output's Jacobian (a real SVD's or eigh's signs are locally constant, so
 * U, Vh and V are smooth maps there).  svd with full_matrices compares the k singular vectors
 * only (the rest of U or Vh is any basis of the complement: PyTorch's backward ignores it);
 * eigh's input is x + x^T (its rule is the derivative along symmetric directions). */
static Tensor *run_decomp(void *vctx, Tensor *const *in) {
    Ctx *c = vctx;
    Tensor *A = in[0], *xt = NULL, *out[3] = {NULL, NULL, NULL}, *flat[3] = {NULL, NULL, NULL}, *r = NULL;
    bool eigh = c->op == TENSOR_OP_LINALG_EIGH;
    if (eigh) {
        if (!(xt = ag_transpose(in[0], -2, -1)) || !(A = ag_add(in[0], xt))) goto done;
    }
    int n = ag_op_run(c->op, &A, 1, &c->a, out, 3);
    if (n < 0) goto done;
    if (!eigh) {
        int64_t k = out[1]->shape[out[1]->ndim - 1];
        Tensor *u = ag_narrow(out[0], -1, 0, k), *v = ag_narrow(out[2], -2, 0, k);
        tensor_decref(out[0]);
        tensor_decref(out[2]);
        out[0] = u;
        out[2] = v;
        if (!u || !v) goto done;
    }
    for (int i = 0; i < n; i++) {
        int64_t m1 = -1;
        if (!(flat[i] = ag_reshape(out[i], &m1, 1))) goto done;
    }
    r = ag_cat(flat, n, 0);
done:
    for (int i = 0; i < 3; i++) TT_FREE(out[i], flat[i]);
    if (eigh) TT_FREE(xt, A);
    return r;
}

static void check_decomp(TensorOp op, Tensor *x, const TensorOpArgs *a) {
    Ctx c = {.op = op, .a = *a, .n_in = 1};
    AgGradcheckOpts o = opts_for(T1, false);
    int r = ag_gradcheck(run_decomp, &c, 1, &x, &o);
    cr_assert_neq(r, -1, "%s: error %s", tensor_op_info(op)->enum_name, tensor_error_message());
    cr_assert_eq(r, 1, "%s (has_min %d, has_max %d, %dD): %s", tensor_op_info(op)->enum_name, a->has_min, a->has_max, x->ndim,
                 o.failure ? o.failure : "?");
    free(o.failure);
    tensor_decref(x);
    covered[op] = true;
}

/* linalg_pinv(A, P) copies P, A's pseudo-inverse, and differentiates pinv: P here is (A^T A)^-1 A^T
 * (A of full column rank) or A^T (A A^T)^-1, computed without history as torch/_mathops.py
 * computes it, so the finite differences see the pseudo-inverse itself */
static Tensor *run_pinv(void *vctx, Tensor *const *in) {
    Ctx *c = vctx;
    Tensor *A = in[0], *At = NULL, *G = NULL, *Gi = NULL, *P = NULL, *r = NULL;
    bool tall = A->shape[A->ndim - 2] >= A->shape[A->ndim - 1];
    bool grad = ag_set_grad_enabled(false);
    if ((At = ag_transpose(A, -2, -1)) && (G = tall ? ag_matmul(At, A) : ag_matmul(A, At)) &&
        (Gi = ag_op1(TENSOR_OP_LINALG_INV, &G, 1, NULL)))
        P = tall ? ag_matmul(Gi, At) : ag_matmul(At, Gi);
    ag_set_grad_enabled(grad);
    if (P) {
        Tensor *x[2] = {A, P};
        r = ag_op1(c->op, x, 2, &c->a);
    }
    TT_FREE(At, G, Gi, P);
    return r;
}

static void check_pinv(Tensor *x) {
    Ctx c = {.op = TENSOR_OP_LINALG_PINV, .a = TENSOR_OP_ARGS_INIT, .n_in = 2};
    AgGradcheckOpts o = opts_for(T1, false);
    int r = ag_gradcheck(run_pinv, &c, 1, &x, &o);
    cr_assert_neq(r, -1, "LINALG_PINV: error %s", tensor_error_message());
    cr_assert_eq(r, 1, "LINALG_PINV (%dD): %s", x->ndim, o.failure ? o.failure : "?");
    free(o.failure);
    tensor_decref(x);
    covered[TENSOR_OP_LINALG_PINV] = true;
}

static void decomp_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    for (int full = 0; full < 2; full++) {
        a.has_max = full;
        check_decomp(TENSOR_OP_LINALG_SVD, gr(RN, SHAPE(3, 3)), &a);
        check_decomp(TENSOR_OP_LINALG_SVD, gr(RN, SHAPE(4, 2)), &a);
        check_decomp(TENSOR_OP_LINALG_SVD, gr(RN, SHAPE(2, 4)), &a);
        check_decomp(TENSOR_OP_LINALG_SVD, gr(RN, SHAPE(2, 3, 2)), &a);
    }
    for (int upper = 0; upper < 2; upper++) {
        a.has_min = upper;
        a.has_max = true;
        check_decomp(TENSOR_OP_LINALG_EIGH, gr(RN, SHAPE(3, 3)), &a);
        check_decomp(TENSOR_OP_LINALG_EIGH, gr(RN, SHAPE(2, 3, 3)), &a);
    }
    check_pinv(gr(RN, SHAPE(3, 3)));
    check_pinv(gr(RN, SHAPE(4, 2)));
    check_pinv(gr(RN, SHAPE(2, 2, 4)));
}

static void mathops_cases(void) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    CHECK(TENSOR_OP_XLOGY, true, T1, gr(RN, SHAPE(2, 3)), gr(PS, SHAPE(3)));
    for (int order = 0; order < 4; order++) {
        a.scalar = tensor_scalar_i(order);
        CHECK(TENSOR_OP_POLYGAMMA, order < 3, T1, gr(PS, SHAPE(2, 3)));
    }
    a.dim = 1;
    CHECK(TENSOR_OP_CUMPROD, false, T1, gr(AW, SHAPE(3, 4)));
    a.dim = -2;
    CHECK(TENSOR_OP_CUMPROD, false, T1, gr(AW, SHAPE(3, 4)));
    a.dim = 1;
    CHECK(TENSOR_OP_CUMMAX, true, T1, gr(DI, SHAPE(3, 4)));
    a.dim = 0;
    CHECK(TENSOR_OP_CUMMIN, true, T1, gr(DI, SHAPE(3, 4)));
    a.dim = -1;
    CHECK(TENSOR_OP_LOGCUMSUMEXP, true, T1, gr(RN, SHAPE(3, 4)));
    check_spd(TENSOR_OP_CHOLESKY, gr(RN, SHAPE(3, 3)), NULL, NULL);
    a.has_max = true;
    check_spd(TENSOR_OP_CHOLESKY, gr(RN, SHAPE(2, 3, 3)), NULL, &a);
    a = TENSOR_OP_ARGS_INIT;
    check_spd(TENSOR_OP_LINALG_INV, gr(RN, SHAPE(3, 3)), NULL, NULL);
    check_spd(TENSOR_OP_LINALG_DET, gr(RN, SHAPE(3, 3)), NULL, NULL);
    check_spd(TENSOR_OP_LINALG_SLOGDET, gr(RN, SHAPE(2, 3, 3)), NULL, NULL);
    /* solve_triangular reads one triangle of A: cholesky factors make it well conditioned */
    for (int v = 0; v < 4; v++) {
        a.has_min = v & 1;         /* upper */
        a.accumulate = v >> 1;     /* right side */
        a.has_max = v == 3;        /* unitriangular */
        Tensor *b = v >> 1 ? gr(RN, SHAPE(2, 3)) : gr(RN, SHAPE(3, 2));
        check_spd(TENSOR_OP_TRIANGULAR_SOLVE, gr(RN, SHAPE(3, 3)), b, &a);
    }
    /* solve: matrix and vector right sides, batches broadcast either way, both sides, and the
     * backward's transposed system (has_min) */
    for (int v = 0; v < 4; v++) {
        a = TENSOR_OP_ARGS_INIT;
        a.has_min = v & 1;
        a.accumulate = v >> 1;
        if (a.accumulate) {
            check_solve(gr(RN, SHAPE(3, 3)), gr(RN, SHAPE(2, 3)), &a);
            check_solve(gr(RN, SHAPE(2, 3, 3)), gr(RN, SHAPE(4, 3)), &a);
        } else {
            check_solve(gr(RN, SHAPE(3, 3)), gr(RN, SHAPE(3, 2)), &a);
            check_solve(gr(RN, SHAPE(2, 3, 3)), gr(RN, SHAPE(3)), &a);
            check_solve(gr(RN, SHAPE(2, 3, 3)), gr(RN, SHAPE(2, 3)), &a);
            check_solve(gr(RN, SHAPE(3, 3)), gr(RN, SHAPE(2, 3, 1)), &a);
        }
    }
    a = TENSOR_OP_ARGS_INIT;
    CHECK(TENSOR_OP_LINALG_SVDVALS, false, T1, gr(RN, SHAPE(3, 2)));
    CHECK(TENSOR_OP_LINALG_QR, false, T1, gr(RN, SHAPE(3, 2)));
    CHECK(TENSOR_OP_LINALG_QR, false, T1, gr(RN, SHAPE(2, 3, 3)));
    decomp_cases();
}

TT_TEST(gradcheck, unary) { unary_cases(); }
TT_TEST(gradcheck, mathops) { mathops_cases(); }
TT_TEST(gradcheck, binary_scalar_where) { binary_cases(); }
TT_TEST(gradcheck, reductions) { reduction_cases(); }
TT_TEST(gradcheck, views_and_joins) { view_cases(); }
TT_TEST(gradcheck, linear_algebra) { linalg_cases(); }
TT_TEST(gradcheck, indexing) { index_cases(); }
TT_TEST(gradcheck, nn) { nn_cases(); }
TT_TEST(gradcheck, inplace) { inplace_cases(); }
TT_TEST(gradcheck, conv) { conv_cases(); }

/* the same cases in float64 */
TT_TEST(gradcheck_f64, unary) { g_dt = TENSOR_FLOAT64; unary_cases(); }
TT_TEST(gradcheck_f64, mathops) { g_dt = TENSOR_FLOAT64; mathops_cases(); }
TT_TEST(gradcheck_f64, binary_scalar_where) { g_dt = TENSOR_FLOAT64; binary_cases(); }
TT_TEST(gradcheck_f64, reductions) { g_dt = TENSOR_FLOAT64; reduction_cases(); }
TT_TEST(gradcheck_f64, views_and_joins) { g_dt = TENSOR_FLOAT64; view_cases(); }
TT_TEST(gradcheck_f64, linear_algebra) { g_dt = TENSOR_FLOAT64; linalg_cases(); }
TT_TEST(gradcheck_f64, indexing) { g_dt = TENSOR_FLOAT64; index_cases(); }
TT_TEST(gradcheck_f64, nn) { g_dt = TENSOR_FLOAT64; nn_cases(); }
TT_TEST(gradcheck_f64, inplace) { g_dt = TENSOR_FLOAT64; inplace_cases(); }
TT_TEST(gradcheck_f64, conv) { g_dt = TENSOR_FLOAT64; conv_cases(); }

static void all_cases(void) {
    unary_cases();
    binary_cases();
    reduction_cases();
    view_cases();
    linalg_cases();
    index_cases();
    nn_cases();
    inplace_cases();
    conv_cases();
    mathops_cases();
}

static void expect_every_op_covered(void) {
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        unsigned f = tensor_op_flags((TensorOp)o);
        if (f & (TENSOR_OPF_NONDIFF | TENSOR_OPF_CREATION)) continue;
        cr_assert(covered[o], "no %s finite-difference case for %s", tensor_dtype_name(g_dt), tensor_op_info((TensorOp)o)->enum_name);
    }
}

/* every differentiable op of ops.def has at least one case above, in float32 and in float64 */
TT_TEST(gradcheck, every_differentiable_op_is_covered) {
    all_cases();
    expect_every_op_covered();
}

TT_TEST(gradcheck_f64, every_differentiable_op_is_covered) {
    g_dt = TENSOR_FLOAT64;
    all_cases();
    expect_every_op_covered();
}
