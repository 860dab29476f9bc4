/* test_reduce.c — reductions against naive double loops: every dim subset (incl. negative
 * dims, keepdim, all), non-contiguous inputs, max/min with indices and ties, var/std
 * corrections, logsumexp, all/any, sum accuracy over 1e6 elements, and errors. */
#include "tests/support/tensor_test.h"

TestSuite(reduce, .init = tt_setup);

typedef enum { R_SUM, R_MEAN, R_VAR, R_STD, R_LSE, R_MAX, R_MIN, R_PROD } RKind;

/* naive reduction of x over mask, output element for kept index `kidx` (in x's dims, reduced
 * entries ignored) */
static double naive(const Tensor *x, const bool *mask, const int64_t *kidx, RKind k, int correction) {
    int nd = tensor_ndim(x);
    int64_t idx[TENSOR_MAX_DIMS];
    for (int d = 0; d < nd; d++) idx[d] = mask[d] ? 0 : kidx[d];
    double acc = 0, acc2 = 0, mx = -INFINITY, mn = INFINITY, pr = 1;
    int64_t n = 0;
    for (;;) {
        double v = tensor_get_f64(x, idx);
        acc += v;
        acc2 += v * v;
        pr *= v;
        if (v > mx) mx = v;
        if (v < mn) mn = v;
        n++;
        int d = nd - 1;
        for (; d >= 0; d--) {
            if (!mask[d]) continue;
            if (++idx[d] < tensor_shape(x)[d]) break;
            idx[d] = 0;
        }
        if (d < 0) break;
    }
    double mean = acc / (double)n;
    switch (k) {
    case R_SUM: return acc;
    case R_MEAN: return mean;
    case R_VAR:
    case R_STD: {
        double ss = 0;
        for (int d = 0; d < nd; d++) idx[d] = mask[d] ? 0 : kidx[d];
        for (;;) {
            double v = tensor_get_f64(x, idx) - mean;
            ss += v * v;
            int d = nd - 1;
            for (; d >= 0; d--) {
                if (!mask[d]) continue;
                if (++idx[d] < tensor_shape(x)[d]) break;
                idx[d] = 0;
            }
            if (d < 0) break;
        }
        double var = ss / (double)(n - correction);
        return k == R_VAR ? var : sqrt(var);
    }
    case R_LSE: {
        double s = 0;
        for (int d = 0; d < nd; d++) idx[d] = mask[d] ? 0 : kidx[d];
        for (;;) {
            s += exp(tensor_get_f64(x, idx) - mx);
            int d = nd - 1;
            for (; d >= 0; d--) {
                if (!mask[d]) continue;
                if (++idx[d] < tensor_shape(x)[d]) break;
                idx[d] = 0;
            }
            if (d < 0) break;
        }
        return mx + log(s);
    }
    case R_MAX: return mx;
    case R_MIN: return mn;
    case R_PROD: return pr;
    }
    return 0;
}

static void check_reduction(const Tensor *x, Tensor *r, const int64_t *dims, int n, bool keepdim, RKind k, int corr, double tol) {
    tt_ok(r);
    int nd = tensor_ndim(x);
    bool mask[TENSOR_MAX_DIMS] = {0};
    if (n == 0)
        for (int d = 0; d < nd; d++) mask[d] = true;
    for (int i = 0; i < n; i++) mask[dims[i] < 0 ? dims[i] + nd : dims[i]] = true;
    /* expected shape */
    int64_t shape[TENSOR_MAX_DIMS];
    int rn = 0;
    for (int d = 0; d < nd; d++)
        if (!mask[d])
            shape[rn++] = tensor_shape(x)[d];
        else if (keepdim)
            shape[rn++] = 1;
    tt_expect_shape(r, rn, shape);
    int64_t kidx[TENSOR_MAX_DIMS] = {0};
    int64_t ridx[TENSOR_MAX_DIMS] = {0};
    do {
        int j = 0;
        for (int d = 0; d < nd; d++) {
            if (!mask[d])
                ridx[j++] = kidx[d];
            else if (keepdim)
                ridx[j++] = 0;
        }
        double want = naive(x, mask, kidx, k, corr), got = tensor_get_f64(r, ridx);
        cr_assert(fabs(got - want) <= tol * (1 + fabs(want)), "got %.8g want %.8g", got, want);
        /* advance over kept dims only */
        int d = nd - 1;
        for (; d >= 0; d--) {
            if (mask[d]) continue;
            if (++kidx[d] < tensor_shape(x)[d]) break;
            kidx[d] = 0;
        }
        if (d < 0) break;
    } while (1);
}

static Tensor *make_input(int which) {
    int64_t s3[3] = {3, 4, 5};
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 3, s3);
    if (which == 0) return x;
    /* non-contiguous: permuted and sliced */
    Tensor *p = tensor_permute(x, (int64_t[]){2, 0, 1}, 3), *s = tensor_slice(p, 0, 0, 5, 2);
    TT_FREE(x, p);
    cr_assert(!tensor_is_contiguous(s));
    return s;
}

TT_TEST(reduce, sum_mean_var_std_lse_over_dim_subsets) {
    const int64_t subsets[][3] = {{0}, {1}, {2}, {-1}, {0, 2}, {1, -3}, {0, 1, 2}};
    const int sizes[] = {1, 1, 1, 1, 2, 2, 3};
    for (int w = 0; w < 2; w++) {
        Tensor *x = make_input(w);
        for (int s = 0; s < NELEM(sizes); s++) {
            for (int keep = 0; keep < 2; keep++) {
                const int64_t *d = subsets[s];
                int n = sizes[s];
                Tensor *r;
                check_reduction(x, r = tensor_sum_dims(x, d, n, keep), d, n, keep, R_SUM, 0, 1e-5);
                tensor_decref(r);
                check_reduction(x, r = tensor_mean_dims(x, d, n, keep), d, n, keep, R_MEAN, 0, 1e-5);
                tensor_decref(r);
                check_reduction(x, r = tensor_var(x, d, n, 1, keep), d, n, keep, R_VAR, 1, 1e-5);
                tensor_decref(r);
                check_reduction(x, r = tensor_var(x, d, n, 0, keep), d, n, keep, R_VAR, 0, 1e-5);
                tensor_decref(r);
                check_reduction(x, r = tensor_std(x, d, n, 1, keep), d, n, keep, R_STD, 1, 1e-5);
                tensor_decref(r);
                check_reduction(x, r = tensor_logsumexp(x, d, n, keep), d, n, keep, R_LSE, 0, 1e-5);
                tensor_decref(r);
            }
        }
        Tensor *all = tensor_sum(x), *mall = tensor_mean(x), *vall = tensor_var(x, NULL, 0, 1, false);
        check_reduction(x, all, NULL, 0, false, R_SUM, 0, 1e-5);
        check_reduction(x, mall, NULL, 0, false, R_MEAN, 0, 1e-5);
        check_reduction(x, vall, NULL, 0, false, R_VAR, 1, 1e-5);
        TT_FREE(x, all, mall, vall);
    }
}

TT_TEST(reduce, max_min_prod) {
    for (int w = 0; w < 2; w++) {
        Tensor *x = make_input(w);
        for (int64_t d = -3; d < 3; d++) {
            for (int keep = 0; keep < 2; keep++) {
                Tensor *v, *ix;
                cr_assert_eq(tensor_max_dim(x, d, keep, &v, &ix), 0);
                check_reduction(x, v, &d, 1, keep, R_MAX, 0, 0);
                cr_assert_eq(tensor_dtype(ix), TENSOR_INT64);
                /* the index points at the maximum */
                if (keep) {
                    Tensor *g = tensor_gather(x, d, ix);
                    cr_assert(tensor_equal(g, v));
                    tensor_decref(g);
                }
                TT_FREE(v, ix);
                cr_assert_eq(tensor_min_dim(x, d, keep, &v, &ix), 0);
                check_reduction(x, v, &d, 1, keep, R_MIN, 0, 0);
                TT_FREE(v, ix);
                TensorOpArgs pa = TENSOR_OP_ARGS_INIT;
                pa.dim = d;
                pa.keepdim = keep;
                Tensor *pr = NULL;
                cr_assert_eq(tensor_op_run(TENSOR_OP_PROD_DIM, &x, 1, &pa, &pr, 1), 1);
                check_reduction(x, pr, &d, 1, keep, R_PROD, 0, 1e-5);
                tensor_decref(pr);
            }
        }
        Tensor *mx = tensor_max(x), *mn = tensor_min(x), *pa = tensor_prod(x);
        check_reduction(x, mx, NULL, 0, false, R_MAX, 0, 0);
        check_reduction(x, mn, NULL, 0, false, R_MIN, 0, 0);
        check_reduction(x, pa, NULL, 0, false, R_PROD, 0, 1e-4);
        TT_FREE(x, mx, mn, pa);
    }
}

TT_TEST(reduce, argmax_first_occurrence_and_flattened) {
    Tensor *t = TT(((int64_t[]){3}), ((float[]){1, 3, 3}));
    Tensor *v, *i;
    cr_assert_eq(tensor_max_dim(t, 0, false, &v, &i), 0);
    cr_assert_eq(tensor_get_i64(i, NULL), 1, "ties resolve to the first index, as PyTorch's CPU kernel");
    Tensor *m = TT(((int64_t[]){2, 2}), ((float[]){1, 3, 4, 2}));
    Tensor *am = tensor_argmax(m, NULL, false), *an = tensor_argmin(m, NULL, false);
    cr_assert_eq(tensor_ndim(am), 0);
    cr_assert_eq(tensor_get_i64(am, NULL), 2);
    cr_assert_eq(tensor_get_i64(an, NULL), 0);
    int64_t d1 = 1;
    Tensor *ad = tensor_argmax(m, &d1, true);
    tt_expect_shape(ad, 2, (int64_t[]){2, 1});
    TT_EXPECT(ad, ((int64_t[]){2, 1}), ((float[]){1, 0}), 0);
    Tensor *nan = TT(((int64_t[]){3}), ((float[]){1, NAN, 5}));
    Tensor *nm = tensor_max(nan);
    cr_assert(isnan(tensor_get_f64(nm, NULL)), "max propagates NaN");
    TT_FREE(t, v, i, m, am, an, ad, nan, nm);
}

TT_TEST(reduce, int_and_bool_reductions) {
    Tensor *i = TI(((int64_t[]){2, 2}), ((int64_t[]){1, 2, 3, 4}));
    bool bv[4] = {true, true, false, true};
    Tensor *b = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){4}, bv);
    Tensor *si = tensor_sum(i), *sb = tensor_sum(b), *pi = tensor_prod(i);
    cr_assert_eq(tensor_dtype(si), TENSOR_INT64);
    cr_assert_eq(tensor_get_i64(si, NULL), 10);
    cr_assert_eq(tensor_get_i64(sb, NULL), 3);
    cr_assert_eq(tensor_get_i64(pi, NULL), 24);
    cr_assert_null(tensor_mean(i));
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long");
    cr_assert_null(tensor_var(i, NULL, 0, 1, false));
    tt_expect_error(TENSOR_ERR_RUNTIME, "std and var only support floating point and complex dtypes");
    Tensor *r = NULL;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    cr_assert_eq(tensor_op_run(TENSOR_OP_ALL, &b, 1, &a, &r, 1), 1);
    cr_assert_eq(tensor_dtype(r), TENSOR_BOOL);
    cr_assert_eq(tensor_get_i64(r, NULL), 0);
    tensor_decref(r);
    cr_assert_eq(tensor_op_run(TENSOR_OP_ANY, &b, 1, &a, &r, 1), 1);
    cr_assert_eq(tensor_get_i64(r, NULL), 1);
    tensor_decref(r);
    a.has_dim = true;
    a.dim = 1;
    cr_assert_eq(tensor_op_run(TENSOR_OP_ALL, &i, 1, &a, &r, 1), 1);
    TT_EXPECT(r, ((int64_t[]){2}), ((float[]){1, 1}), 0);
    tensor_decref(r);
    TT_FREE(i, b, si, sb, pi);
}

TT_TEST(reduce, float_sum_is_accurate) {
    /* 1e6 elements of 0.1f: a naive float accumulator drifts by ~1e-3 relative */
    int64_t n = 1000000;
    Tensor *t = tensor_full(TENSOR_FLOAT32, 1, &n, tensor_scalar_f(0.1));
    double exact = 1e6 * (double)0.1f;
    Tensor *s = tensor_sum(t), *m = tensor_mean(t);
    cr_assert(fabs(tensor_get_f64(s, NULL) - exact) / exact < 1e-6, "sum %.9g vs %.9g", tensor_get_f64(s, NULL), exact);
    cr_assert(fabs(tensor_get_f64(m, NULL) - 0.1f) < 1e-7);
    /* the row-accumulating path (leading dims reduced) too */
    Tensor *v = tensor_view(t, (int64_t[]){1000, 1000}, 2);
    int64_t d0 = 0;
    Tensor *cols = tensor_sum_dims(v, &d0, 1, false);
    cr_assert(fabs(tensor_get_f64(cols, (int64_t[]){7}) - 1000 * (double)0.1f) < 1e-3);
    Tensor *big = tensor_arange_f(0, 1 << 20, 1), *bs = tensor_sum(big);
    double want = (double)(1 << 20) * ((1 << 20) - 1) / 2;
    cr_assert(fabs(tensor_get_f64(bs, NULL) - want) / want < 1e-6);
    TT_FREE(t, s, m, v, cols, big, bs);
}

TT_TEST(reduce, errors) {
    Tensor *x = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
    int64_t d = 2, dup[2] = {0, -2};
    cr_assert_null(tensor_sum_dims(x, &d, 1, false));
    tt_expect_error(TENSOR_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    cr_assert_null(tensor_sum_dims(x, dup, 2, false));
    tt_expect_error(TENSOR_ERR_RUNTIME, "dim 0 appears multiple times in the list of dims");
    Tensor *e = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){0});
    cr_assert_null(tensor_max(e));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Expected reduction dim to be specified for input.numel() == 0");
    Tensor *es = tensor_sum(e);
    cr_assert_eq(tensor_get_f64(es, NULL), 0);
    Tensor *one = TT(((int64_t[]){1}), ((float[]){1}));
    Tensor *v1 = tensor_var(one, NULL, 0, 1, false);
    cr_assert(isnan(tensor_get_f64(v1, NULL)), "var of one element with correction 1 is nan");
    /* 0-dim inputs reduce over dim 0 / -1 */
    Tensor *z = tensor_scalar_tensor(tensor_scalar_f(3), TENSOR_FLOAT32);
    int64_t m1 = -1;
    Tensor *zs = tensor_sum_dims(z, &m1, 1, false);
    cr_assert_eq(tensor_ndim(zs), 0);
    cr_assert_eq(tensor_get_f64(zs, NULL), 3);
    TT_FREE(x, e, es, one, v1, z, zs);
}
