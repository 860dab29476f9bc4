/* test_conformance.c — C ports of ../shared/conformance scripts 01–12 (values, gradients,
 * node names, next_functions), asserting the numbers real PyTorch printed in the .expected
 * files. They exercise the library the way the torch binding will. */
#include "tests/support/tensor_test.h"

TestSuite(conformance, .init = tt_setup);

#define F(x) tensor_scalar_f(x)
#define I(x) tensor_scalar_i(x)

static Tensor *sum_of(Tensor *t) { return tt_ok(ag_sum(t)); }

/* 01_elementwise_broadcast: a, b, c with broadcasting, / by a constant, **, -, scalar ops */
TT_TEST(conformance, elementwise_broadcast) {
    Tensor *a = TTG(((int64_t[]){2, 3}), ((float[]){1, -2, 3, 0.5, 4, -1.5}));
    Tensor *b = TTG(((int64_t[]){3}), ((float[]){2, -1, 0.5}));
    Tensor *c = TTG(((int64_t[]){2, 1}), ((float[]){4, -2}));
    Tensor *k = TT(((int64_t[]){3}), ((float[]){2, 4, -0.5}));
    Tensor *s = tt_ok(ag_add(a, b)), *d = tt_ok(ag_sub(a, c)), *m = tt_ok(ag_mul(b, c)), *q = tt_ok(ag_div(a, k));
    Tensor *p = tt_ok(ag_pow_scalar(a, I(2)));
    Tensor *na = tt_ok(ag_neg(a)), *n = tt_ok(ag_add_scalar(na, F(1.5)));
    Tensor *a2 = tt_ok(ag_mul_scalar(a, I(2))), *b4 = tt_ok(ag_div_scalar(b, I(4))), *sc = tt_ok(ag_sub(a2, b4));
    Tensor *rc = tt_ok(ag_unary(TENSOR_OP_RECIPROCAL, c)), *r = tt_ok(ag_mul_scalar(rc, F(1.0)));
    Tensor *e = tt_ok(ag_sub(c, b));
    TT_EXPECT(s, ((int64_t[]){2, 3}), ((float[]){3, -3, 3.5, 2.5, 3, -1}), 1e-6);
    TT_EXPECT(d, ((int64_t[]){2, 3}), ((float[]){-3, -6, -1, 2.5, 6, 0.5}), 1e-6);
    TT_EXPECT(m, ((int64_t[]){2, 3}), ((float[]){8, -4, 2, -4, 2, -1}), 1e-6);
    TT_EXPECT(q, ((int64_t[]){2, 3}), ((float[]){0.5, -0.5, -6, 0.25, 1, 3}), 1e-6);
    TT_EXPECT(sc, ((int64_t[]){2, 3}), ((float[]){1.5, -3.75, 5.875, 0.5, 8.25, -3.125}), 1e-6);
    TT_EXPECT(r, ((int64_t[]){2, 1}), ((float[]){0.25, -0.5}), 1e-6);
    Tensor *t1 = ag_mul(s, d), *t2 = ag_mul(m, m), *t3 = ag_mul(q, p), *t4 = ag_mul(n, sc), *t5 = ag_mul(r, e);
    Tensor *s1 = sum_of(t1), *s2 = tt_ok(ag_mean(t2)), *s3 = sum_of(t3), *s4 = sum_of(t4), *s5 = sum_of(t5);
    Tensor *x1 = ag_add(s1, s2), *x2 = ag_add(x1, s3), *x3 = ag_add(x2, s4), *x4 = ag_add(x3, s5);
    Tensor *total = tt_ok(ag_mul_scalar(x4, F(0.5)));
    TT_EXPECT_SCALAR(total, -15.125, 1e-6);
    cr_assert(ag_requires_grad(total));
    cr_assert(!ag_requires_grad(k));
    cr_assert_eq(ag_backward(1, &total, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2, 3}), ((float[]){0.5, 2.375, -30.1875, 3.4375, 3.875, -2.4375}), 1e-5);
    TT_EXPECT(ag_grad_of(b), ((int64_t[]){3}), ((float[]){6.3542, -3.3333, 1.3542}), 1e-4);
    TT_EXPECT(ag_grad_of(c), ((int64_t[]){2, 1}), ((float[]){1.7969, -3.8125}), 1e-4);
    cr_assert_null(ag_grad_of(k));
    TT_FREE(a, b, c, k, s, d, m, q, p, na, n, a2, b4, sc, rc, r, e, t1, t2, t3, t4, t5, s1, s2, s3, s4, s5, x1, x2, x3, x4, total);
}

/* 02_matmul */
TT_TEST(conformance, matmul) {
    Tensor *x = TTG(((int64_t[]){3, 2}), ((float[]){1, 2, 3, 4, -1, 0.5}));
    Tensor *w = TTG(((int64_t[]){2, 3}), ((float[]){0.5, -1, 2, 1.5, 0.25, -0.5}));
    Tensor *v = TTG(((int64_t[]){2}), ((float[]){1, -2}));
    Tensor *y1 = tt_ok(ag_mm(x, w)), *y2 = tt_ok(ag_matmul(x, w));
    TT_EXPECT(y1, ((int64_t[]){3, 3}), ((float[]){3.5, -0.5, 1, 7.5, -2, 4, 0.25, 1.125, -2.25}), 1e-6);
    cr_assert(tensor_equal(y1, y2));
    Tensor *y3 = tt_ok(ag_matmul(x, v));
    TT_EXPECT(y3, ((int64_t[]){3}), ((float[]){-3, -5, -2}), 1e-6);
    Tensor *wt = ag_t(w), *y4 = tt_ok(ag_matmul(wt, v));
    TT_EXPECT(y4, ((int64_t[]){3}), ((float[]){-2.5, -1.5, 3}), 1e-6);
    Tensor *y5 = tt_ok(ag_matmul(v, v));
    TT_EXPECT_SCALAR(y5, 5, 1e-6);
    Tensor *o31 = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){3, 1});
    Tensor *xw = ag_matmul(x, w), *y6 = tt_ok(ag_matmul(xw, o31));
    TT_EXPECT(y6, ((int64_t[]){3, 1}), ((float[]){4, 9.5, -0.875}), 1e-6);
    Tensor *ar = tensor_arange_f(0, 12, 1), *ar3 = tensor_reshape(ar, (int64_t[]){2, 3, 2}, 3), *bt = tensor_mul_scalar(ar3, F(0.5));
    Tensor *y7 = tt_ok(ag_matmul(bt, w));
    TT_EXPECT(y7, ((int64_t[]){2, 3, 3}),
              ((float[]){0.75, 0.125, -0.25, 2.75, -0.625, 1.25, 4.75, -1.375, 2.75, 6.75, -2.125, 4.25, 8.75, -2.875, 5.75, 10.75,
                         -3.625, 7.25}),
              1e-6);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y7)), "UnsafeViewBackward0");
    Tensor *coef = TT(((int64_t[]){1, 3}), ((float[]){1, 0, -1}));
    Tensor *l1 = ag_mul(y1, coef), *l1s = sum_of(l1), *l3 = sum_of(y3), *l3h = ag_mul_scalar(l3, F(0.5));
    Tensor *l4 = ag_pow_scalar(y4, I(2)), *l4s = sum_of(l4), *l6 = sum_of(y6), *l7 = ag_mul_scalar(y7, F(0.25)), *l7s = sum_of(l7);
    Tensor *z1 = ag_add(l1s, l3h), *z2 = ag_add(z1, l4s), *z3 = ag_add(z2, y5), *z4 = ag_add(z3, l6), *loss = ag_add(z4, l7s);
    TT_EXPECT_SCALAR(loss, 49.875, 1e-6);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3, 2}), ((float[]){0.5, 2.25, 0.5, 2.25, 0.5, 2.25}), 1e-5);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){2, 3}), ((float[]){4.75, 3.75, 9.75, 27.5, 17, -7.5}), 1e-5);
    TT_EXPECT(ag_grad_of(v), ((int64_t[]){2}), ((float[]){16, -12}), 1e-5);
    cr_assert_null(ag_mm(x, x));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be multiplied");
    TT_FREE(x, w, v, y1, y2, y3, wt, y4, y5, o31, xw, y6, ar, ar3, bt, y7, coef, l1, l1s, l3, l3h, l4, l4s, l6, l7, l7s, z1, z2, z3,
            z4, loss);
}

/* 03_reductions */
TT_TEST(conformance, reductions) {
    Tensor *t = TTG(((int64_t[]){3, 4}), ((float[]){1, 2, 3, 4, -1, 0.5, 2.5, -3, 0.25, -0.75, 1.5, 2}));
    int64_t d0 = 0, d1 = 1, dm1 = -1, d01[2] = {0, 1};
    Tensor *s_all = ag_sum(t), *s0 = ag_sum_dims(t, &d0, 1, false), *s1 = ag_sum_dims(t, &d1, 1, false);
    Tensor *s1k = ag_sum_dims(t, &d1, 1, true), *m_all = ag_mean(t), *m0 = ag_mean_dims(t, &d0, 1, false);
    Tensor *m1k = ag_mean_dims(t, &dm1, 1, true), *s01 = ag_sum_dims(t, d01, 2, false);
    TT_EXPECT(s0, ((int64_t[]){4}), ((float[]){0.25, 1.75, 7, 3}), 1e-6);
    TT_EXPECT(s1k, ((int64_t[]){3, 1}), ((float[]){10, -1, 3}), 1e-6);
    TT_EXPECT(m0, ((int64_t[]){4}), ((float[]){0.0833, 0.5833, 2.3333, 1.0}), 1e-4);
    TT_EXPECT(m1k, ((int64_t[]){3, 1}), ((float[]){2.5, -0.25, 0.75}), 1e-6);
    TT_EXPECT_SCALAR(s01, 12, 1e-6);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(s0)), "SumBackward1");
    cr_assert_str_eq(ag_node_name(ag_grad_fn(s_all)), "SumBackward0");
    cr_assert_str_eq(ag_node_name(ag_grad_fn(m0)), "MeanBackward1");
    Tensor *w0 = TT(((int64_t[]){4}), ((float[]){1, -1, 2, 0.5})), *w1 = TT(((int64_t[]){3}), ((float[]){3, -2, 1}));
    Tensor *w1r = tensor_reshape(w1, (int64_t[]){3, 1}, 2);
    Tensor *a = ag_mul(s0, w0), *as = ag_sum(a), *b = ag_mul(s1, w1), *bs = ag_sum(b), *c = ag_mul(s1k, s1k), *cs = ag_sum(c);
    Tensor *dd = ag_mul_scalar(m_all, I(4)), *e = ag_mul(m0, w0), *es = ag_sum(e), *f = ag_mul(m1k, w1r), *fs = ag_sum(f);
    Tensor *l1 = ag_add(s_all, as), *l2 = ag_add(l1, bs), *l3 = ag_add(l2, cs), *l4 = ag_add(l3, dd), *l5 = ag_add(l4, es),
           *l6 = ag_add(l5, fs), *l7 = ag_add(l6, s01), *loss = ag_mul_scalar(l7, F(0.1));
    TT_EXPECT_SCALAR(loss, 20.0417, 1e-5);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(t), ((int64_t[]){3, 4}),
              ((float[]){2.7417, 2.475, 2.875, 2.675, -0.0833, -0.35, 0.05, -0.15, 1.0917, 0.825, 1.225, 1.025}), 1e-4);
    TT_FREE(t, s_all, s0, s1, s1k, m_all, m0, m1k, s01, w0, w1, w1r, a, as, b, bs, c, cs, dd, e, es, f, fs, l1, l2, l3, l4, l5, l6,
            l7, loss);
}

/* 05_shapes */
TT_TEST(conformance, shapes) {
    Tensor *base = tensor_arange_f(0, 6, 1), *b23 = tensor_reshape(base, (int64_t[]){2, 3}, 2), *h = tensor_mul_scalar(b23, F(0.5));
    Tensor *a = tensor_sub_scalar(h, F(1.0));
    tt_grad(a);
    Tensor *b = TTG(((int64_t[]){1, 3}), ((float[]){10, 20, 30}));
    Tensor *r = ag_reshape(a, (int64_t[]){3, 2}, 2), *v = ag_view(a, (int64_t[]){-1}, 1), *tr = ag_transpose(a, 0, 1);
    TT_EXPECT(tr, ((int64_t[]){3, 2}), ((float[]){-1, 0.5, -0.5, 1, 0, 1.5}), 1e-6);
    cr_assert(!tensor_is_contiguous(tr));
    Tensor *tt_ = ag_t(a);
    cr_assert(tensor_equal(tt_, tr));
    Tensor *sq = ag_squeeze_dim(b, 0);
    Tensor *a2 = ag_mul_scalar(a, I(2)), *a1 = ag_add_scalar(a, I(1)), *sqn = ag_mul_scalar(sq, I(-1));
    Tensor *c0in[2] = {a, b}, *c1in[2] = {a, a2}, *s0in[2] = {a, a1}, *s1in[2] = {sq, sqn};
    Tensor *c0 = tt_ok(ag_cat(c0in, 2, 0)), *c1 = tt_ok(ag_cat(c1in, 2, 1)), *s0 = tt_ok(ag_stack(s0in, 2, 0)),
           *s1 = tt_ok(ag_stack(s1in, 2, 1));
    TT_EXPECT(c1, ((int64_t[]){2, 6}), ((float[]){-1, -0.5, 0, -2, -1, 0, 0.5, 1, 1.5, 1, 2, 3}), 1e-6);
    TT_EXPECT(s1, ((int64_t[]){3, 2}), ((float[]){10, -10, 20, -20, 30, -30}), 1e-6);
    Tensor *w = tensor_linspace(-1, 1, 6, TENSOR_FLOAT32);
    Tensor *rf = ag_reshape(r, (int64_t[]){-1}, 1), *l1 = ag_mul(rf, w), *l1s = ag_sum(l1);
    Tensor *l2 = ag_mul(v, v), *l2s = ag_sum(l2);
    Tensor *ttt = ag_t(tr), *tttt = ag_t(ttt), *l3 = ag_mul(tr, tttt), *l3s = ag_sum(l3);
    Tensor *l4 = ag_mul(c0, c0), *l4m = ag_mean(l4);
    Tensor *ar6 = tensor_arange_f(0, 6, 1), *l5 = ag_mul(c1, ar6), *l5s = ag_sum(l5);
    Tensor *s01 = ag_select(s0, 0, 1), *l6 = ag_mul(s01, a), *l6s = ag_sum(l6);
    Tensor *k13 = TT(((int64_t[]){2}), ((float[]){1, 3})), *l7 = ag_mul(s1, k13), *l7s = ag_sum(l7);
    Tensor *z1 = ag_add(l1s, l2s), *z2 = ag_add(z1, l3s), *z3 = ag_add(z2, l4m), *z4 = ag_add(z3, l5s), *z5 = ag_add(z4, l6s),
           *z6 = ag_add(z5, l7s), *loss = ag_mul_scalar(z6, F(0.125));
    TT_EXPECT_SCALAR(loss, 9.3542, 1e-4);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2, 3}), ((float[]){-0.0278, 0.7861, 1.6, 1.2889, 2.1028, 2.9167}), 1e-4);
    TT_EXPECT(ag_grad_of(b), ((int64_t[]){1, 3}), ((float[]){0.0278, 0.3056, 0.5833}), 1e-4);
    Tensor *at = ag_t(a);
    cr_assert_null(ag_view(at, (int64_t[]){6}, 1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "view");
    TT_FREE(base, b23, h, a, b, r, v, tr, tt_, sq, a2, a1, sqn, c0, c1, s0, s1, w, rf, l1, l1s, l2, l2s, ttt, tttt, l3, l3s, l4, l4m,
            ar6, l5, l5s, s01, l6, l6s, k13, l7, l7s, z1, z2, z3, z4, z5, z6, loss, at);
}

/* 07_inplace_detach_nograd */
TT_TEST(conformance, inplace_detach_nograd) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    cr_assert(ag_is_leaf(x) && ag_requires_grad(x));
    Tensor *y = ag_mul_scalar(x, I(2));
    cr_assert_eq(ag_add_scalar_(y, F(1.0)), 0);
    Tensor *k = TT(((int64_t[]){3}), ((float[]){1, -1, 0.5}));
    cr_assert_eq(ag_mul_(y, k), 0, "%s", tensor_error_message());
    TT_EXPECT(y, ((int64_t[]){3}), ((float[]){3, -5, 3.5}), 1e-6);
    cr_assert(!ag_is_leaf(y) && ag_requires_grad(y));
    Tensor *ys = ag_sum(y);
    cr_assert_eq(ag_backward(1, &ys, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, -2, 1}), 1e-6);
    Tensor *z = ag_detach(x);
    cr_assert(!ag_requires_grad(z) && ag_is_leaf(z) && !ag_grad_fn(z));
    cr_assert_eq(ag_add_scalar_(z, F(10.0)), 0);
    TT_EXPECT(x, ((int64_t[]){3}), ((float[]){11, 12, 13}), 1e-6);
    cr_assert(ag_requires_grad(x));
    bool prev = ag_set_grad_enabled(false);
    Tensor *w = ag_mul_scalar(x, I(3));
    cr_assert_eq(ag_mul_scalar_(x, F(0.5)), 0);
    ag_set_grad_enabled(prev);
    cr_assert(!ag_requires_grad(w) && !ag_grad_fn(w));
    TT_EXPECT(x, ((int64_t[]){3}), ((float[]){5.5, 6, 6.5}), 1e-6);
    cr_assert_eq(ag_add_scalar_(x, F(1.0)), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "a leaf Variable that requires grad is being used in an in-place operation.");
    Tensor *p = TT(((int64_t[]){2}), ((float[]){0.5, -0.5}));
    cr_assert(!ag_requires_grad(p) && ag_is_leaf(p));
    tt_grad(p);
    cr_assert(ag_requires_grad(p) && ag_is_leaf(p));
    Tensor *pp = ag_mul(p, p), *q = ag_sum(pp);
    cr_assert_eq(ag_backward(1, &q, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(p), ((int64_t[]){2}), ((float[]){1, -1}), 1e-6);
    cr_assert_eq(tensor_zero_(ag_grad_of(p)), 0);
    TT_EXPECT(ag_grad_of(p), ((int64_t[]){2}), ((float[]){0, 0}), 0);
    cr_assert_eq(ag_set_requires_grad(p, false), 0);
    cr_assert(!ag_requires_grad(p));
    Tensor *a = TTG(((int64_t[]){2}), ((float[]){2, 3}));
    Tensor *b = ag_mul(a, a), *c = ag_detach(b), *d = ag_mul(b, c), *ds = ag_sum(d);
    cr_assert_eq(ag_backward(1, &ds, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2}), ((float[]){16, 54}), 1e-6);
    Tensor *plain = TT(((int64_t[]){2}), ((float[]){1, 2})), *ps = ag_sum(plain);
    cr_assert_eq(ag_backward(1, &ps, NULL, false, false, 0, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "element 0 of tensors does not require grad and does not have a grad_fn");
    TT_FREE(x, y, k, ys, z, w, p, pp, q, a, b, c, d, ds, plain, ps);
}

/* 08_grad_accum_retain */
TT_TEST(conformance, grad_accum_retain) {
    Tensor *w = TTG(((int64_t[]){3}), ((float[]){1, -2, 0.5}));
    Tensor *x = TT(((int64_t[]){3}), ((float[]){3, 1, 2}));
    cr_assert_null(ag_grad_of(w));
    Tensor *wx = ag_mul(w, x), *sq = ag_pow_scalar(wx, I(2)), *loss = ag_sum(sq);
    cr_assert_eq(ag_backward(1, &loss, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){18, -4, 4}), 1e-6);
    cr_assert_eq(ag_backward(1, &loss, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){36, -8, 8}), 1e-6);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){54, -12, 12}), 1e-6);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "backward through the graph a second time");
    cr_assert_eq(ag_set_grad(w, NULL), 0);
    Tensor *wx2 = ag_mul(w, x), *loss2 = ag_sum(wx2);
    cr_assert_eq(ag_backward(1, &loss2, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){3, 1, 2}), 1e-6);
    Tensor *ww = ag_mul(w, w), *wws = ag_sum(ww);
    cr_assert_eq(ag_backward(1, &wws, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){5, -3, 3}), 1e-6);
    cr_assert_eq(tensor_zero_(ag_grad_of(w)), 0);
    Tensor *g = ag_grad_of(w);
    Tensor *w3 = ag_mul_scalar(w, I(3)), *w3s = ag_sum(w3);
    cr_assert_eq(ag_backward(1, &w3s, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(g, ag_grad_of(w), "accumulation must keep the .grad tensor's identity");
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){3, 3, 3}), 1e-6);
    Tensor *a = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *out = ag_exp(a), *os = ag_sum(out);
    cr_assert_eq(ag_backward(1, &os, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2}), ((float[]){2.7183, 7.3891}), 1e-4);
    Tensor *half = tensor_scalar_tensor(F(0.5), TENSOR_FLOAT32), *os2 = ag_sum(out);
    cr_assert_eq(ag_backward(1, &os2, &half, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2}), ((float[]){4.0774, 11.0836}), 1e-4);
    Tensor *v = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = ag_mul(v, v), *gy = TT(((int64_t[]){3}), ((float[]){1, 0, -1}));
    cr_assert_eq(ag_backward(1, &y, &gy, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(v), ((int64_t[]){3}), ((float[]){2, 0, -6}), 1e-6);
    Tensor *y2 = ag_mul(v, v);
    cr_assert_eq(ag_backward(1, &y2, NULL, false, false, 0, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "grad can be implicitly created only for scalar outputs");
    TT_FREE(w, x, wx, sq, loss, wx2, loss2, ww, wws, w3, w3s, a, out, os, half, os2, v, y, gy, y2);
}

/* 10_grad_fn_names */
static void expect_name(Tensor *t, const char *name) {
    cr_assert(t, "op failed: %s", tensor_error_message());
    AgNode *fn = ag_grad_fn(t);
    cr_assert(fn, "no grad_fn, expected %s", name);
    cr_assert_str_eq(ag_node_name(fn), name);
    tensor_decref(t);
}

TT_TEST(conformance, grad_fn_names) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = TTG(((int64_t[]){3}), ((float[]){0.5, -1, 2}));
    Tensor *W = TTG(((int64_t[]){2, 3}), ((float[]){1, 0.5, -1, 2, -0.5, 0.25}));
    Tensor *b = TTG(((int64_t[]){2}), ((float[]){0.1, -0.2}));
    Tensor *X = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *cst = TT(((int64_t[]){3}), ((float[]){2, 2, 2}));
    cr_assert(ag_is_leaf(x) && !ag_grad_fn(x));
    cr_assert(!ag_grad_fn(cst) && !ag_requires_grad(cst));
    int64_t d0 = 0, d1 = 1;
    expect_name(ag_mul(x, y), "MulBackward0");
    expect_name(ag_mul_scalar(x, I(2)), "MulBackward0");
    expect_name(ag_add(x, y), "AddBackward0");
    expect_name(ag_sub(x, y), "SubBackward0");
    expect_name(ag_div(x, y), "DivBackward0");
    expect_name(ag_neg(x), "NegBackward0");
    expect_name(ag_pow_scalar(x, I(2)), "PowBackward0");
    expect_name(ag_exp(x), "ExpBackward0");
    expect_name(ag_log(x), "LogBackward0");
    expect_name(ag_sum(x), "SumBackward0");
    expect_name(ag_sum_dims(W, &d0, 1, false), "SumBackward1");
    expect_name(ag_mean(x), "MeanBackward0");
    expect_name(ag_mean_dims(W, &d1, 1, false), "MeanBackward1");
    expect_name(ag_relu(y), "ReluBackward0");
    expect_name(ag_sigmoid(x), "SigmoidBackward0");
    expect_name(ag_tanh(x), "TanhBackward0");
    expect_name(ag_softmax(x, 0), "SoftmaxBackward0");
    expect_name(ag_log_softmax(x, 0), "LogSoftmaxBackward0");
    expect_name(ag_matmul(W, x), "MvBackward0");
    expect_name(ag_matmul(x, y), "DotBackward0");
    Tensor *Wt = ag_t(W);
    expect_name(ag_matmul(W, Wt), "MmBackward0");
    expect_name(ag_t(W), "TBackward0");
    expect_name(ag_transpose(W, 0, 1), "TransposeBackward0");
    expect_name(ag_unsqueeze(x, 0), "UnsqueezeBackward0");
    expect_name(ag_view(W, (int64_t[]){6}, 1), "ViewBackward0");
    Tensor *xy[2] = {x, y};
    expect_name(ag_cat(xy, 2, 0), "CatBackward0");
    expect_name(ag_stack(xy, 2, 0), "StackBackward0");
    expect_name(ag_select(x, 0, 0), "SelectBackward0");
    expect_name(ag_slice(x, 0, 1, INT64_MAX, 1), "SliceBackward0");
    expect_name(ag_clone(x), "CloneBackward0");
    expect_name(ag_linear(X, W, b), "AddmmBackward0");
    expect_name(ag_mse_loss(x, cst, TENSOR_REDUCTION_MEAN), "MseLossBackward0");
    Tensor *tgt = TI(((int64_t[]){2}), ((int64_t[]){0, 2}));
    expect_name(ag_cross_entropy(W, tgt, TENSOR_REDUCTION_MEAN), "NllLossBackward0");
    Tensor *xu = ag_unsqueeze(x, 0);
    expect_name(ag_expand(xu, (int64_t[]){2, 3}, 2), "ExpandBackward0");
    expect_name(ag_unary(TENSOR_OP_ABS, y), "AbsBackward0");
    expect_name(ag_mul(x, cst), "MulBackward0");
    Tensor *xy2 = ag_mul(x, y);
    AgNode *fn = ag_grad_fn(xy2);
    uint32_t nr;
    AgNode *acc = ag_node_next(fn, 0, &nr);
    cr_assert_str_eq(ag_node_name(acc), "torch::autograd::AccumulateGrad");
    cr_assert(ag_node_is_accumulate_grad(acc));
    cr_assert_eq(ag_node_variable(acc), x);
    cr_assert_eq(ag_node_variable(ag_node_next(fn, 1, &nr)), y);
    bool prev = ag_set_grad_enabled(false);
    Tensor *z = ag_mul(x, y);
    ag_set_grad_enabled(prev);
    cr_assert_null(ag_grad_fn(z));
    Tensor *d = ag_detach(x);
    cr_assert(!ag_grad_fn(d) && !ag_requires_grad(d));
    TT_FREE(x, y, W, b, X, cst, Wt, tgt, xu, xy2, z, d);
}

/* 11_next_functions: structure, None edges for constants, shared nodes */
TT_TEST(conformance, next_functions) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *w = TTG(((int64_t[]){2}), ((float[]){3, -1}));
    Tensor *k = TT(((int64_t[]){2}), ((float[]){0.5, 0.5}));
    Tensor *y = ag_mul(x, w), *z = ag_add(y, x), *u = ag_mul(z, k), *uy = ag_mul(u, y), *loss = ag_sum(uy);
    AgNode *sumfn = ag_grad_fn(loss);
    cr_assert_str_eq(ag_node_name(sumfn), "SumBackward0");
    cr_assert_eq(ag_node_num_next(sumfn), 1);
    uint32_t nr;
    AgNode *mul = ag_node_next(sumfn, 0, &nr);
    cr_assert_eq(ag_node_num_next(mul), 2);
    AgNode *mulk = ag_node_next(mul, 0, &nr);
    cr_assert_str_eq(ag_node_name(mulk), "MulBackward0");
    cr_assert_null(ag_node_next(mulk, 1, &nr), "constant k has a None edge");
    AgNode *add = ag_node_next(mulk, 0, &nr);
    cr_assert_str_eq(ag_node_name(add), "AddBackward0");
    cr_assert_eq(ag_node_next(add, 0, &nr), ag_node_next(mul, 1, &nr), "y's MulBackward0 is shared");
    AgNode *accx1 = ag_node_next(ag_node_next(add, 0, &nr), 0, &nr), *accx2 = ag_node_next(add, 1, &nr);
    cr_assert_eq(accx1, accx2, "x's AccumulateGrad is the same node object");
    /* split: one node for all outputs, output_nr distinguishes them */
    Tensor *t = TTG(((int64_t[]){4}), ((float[]){1, 2, 3, 4}));
    Tensor *parts[2];
    cr_assert_eq(ag_split(t, 2, 0, parts, 2), 2);
    cr_assert_eq(ag_grad_fn(parts[0]), ag_grad_fn(parts[1]));
    cr_assert_str_eq(ag_node_name(ag_grad_fn(parts[0])), "SplitBackward0");
    Tensor *c = ag_mul(parts[0], parts[1]);
    AgNode *cm = ag_grad_fn(c);
    ag_node_next(cm, 0, &nr);
    cr_assert_eq(nr, 0);
    ag_node_next(cm, 1, &nr);
    cr_assert_eq(nr, 1);
    /* cat of a select, a scaled select and a constant */
    Tensor *m = TTG(((int64_t[]){2, 2}), ((float[]){1, 2, 3, 4}));
    Tensor *m0 = ag_select(m, 0, 0), *m1 = ag_select(m, 0, 1), *m12 = ag_mul_scalar(m1, I(2));
    Tensor *cin[3] = {m0, m12, k};
    Tensor *out = ag_cat(cin, 3, 0);
    AgNode *catfn = ag_grad_fn(out);
    cr_assert_eq(ag_node_num_next(catfn), 3);
    cr_assert_str_eq(ag_node_name(ag_node_next(catfn, 0, &nr)), "SelectBackward0");
    cr_assert_str_eq(ag_node_name(ag_node_next(catfn, 1, &nr)), "MulBackward0");
    cr_assert_null(ag_node_next(catfn, 2, &nr));
    cr_assert_null(ag_node_next(ag_node_next(catfn, 1, &nr), 1, &nr));
    cr_assert_eq(ag_grad_fn(out), ag_grad_fn(out));
    Tensor *os = ag_sum(out);
    cr_assert_eq(ag_backward(1, &os, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(m), ((int64_t[]){2, 2}), ((float[]){1, 1, 2, 2}), 0);
    TT_FREE(x, w, k, y, z, u, uy, loss, t, parts[0], parts[1], c, m, m0, m1, m12, out, os);
}

/* 30_builtin_layers: Linear, LayerNorm, Embedding, Sequential(Linear, ReLU, Linear, Tanh) */
TT_TEST(conformance, builtin_layers) {
    Tensor *w = tensor_linspace(-1, 1, 6, TENSOR_FLOAT32), *W = tensor_reshape(w, (int64_t[]){2, 3}, 2);
    Tensor *bias = TT(((int64_t[]){2}), ((float[]){0.5, -0.5}));
    Tensor *x = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 3, -1, 0, 1})), *x1 = TT(((int64_t[]){3}), ((float[]){1, 1, 1}));
    Tensor *lin = tt_ok(ag_linear(x, W, bias)), *lin1 = tt_ok(ag_linear(x1, W, bias));
    TT_EXPECT(lin, ((int64_t[]){2, 2}), ((float[]){-2.3, 3.9, 1.3, 0.3}), 1e-5);
    TT_EXPECT(lin1, ((int64_t[]){2}), ((float[]){-1.3, 1.3}), 1e-5);
    Tensor *lw = tt_grad(tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){3})), *lb = tt_grad(tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){3}));
    Tensor *lx = TTG(((int64_t[]){2, 3}), ((float[]){1, 2, 4, 0.5, 1.5, -1}));
    Tensor *lo = tt_ok(ag_layer_norm(lx, (int64_t[]){3}, 1, lw, lb, 1e-5));
    TT_EXPECT(lo, ((int64_t[]){2, 3}), ((float[]){-1.069, -0.2673, 1.3363, 0.1622, 1.1355, -1.2978}), 1e-4);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(lo)), "NativeLayerNormBackward0");
    Tensor *k = TT(((int64_t[]){3}), ((float[]){1, 2, 3})), *lok = ag_mul(lo, k), *ls = ag_sum(lok);
    cr_assert_eq(ag_backward(1, &ls, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(lx), ((int64_t[]){2, 3}), ((float[]){-0.1145, 0.1718, -0.0573, -0.8965, 0.5379, 0.3586}), 1e-3);
    TT_EXPECT(ag_grad_of(lw), ((int64_t[]){3}), ((float[]){-0.9068, 1.7366, 0.1156}), 1e-3);
    TT_EXPECT(ag_grad_of(lb), ((int64_t[]){3}), ((float[]){2, 4, 6}), 1e-5);
    Tensor *ar = tensor_arange_f(0, 15, 1), *ar5 = tensor_reshape(ar, (int64_t[]){5, 3}, 2), *ew = tensor_mul_scalar(ar5, F(0.1));
    tt_grad(ew);
    Tensor *idx = TI(((int64_t[]){2, 2}), ((int64_t[]){0, 4, 2, 2}));
    Tensor *e = tt_ok(ag_embedding(ew, idx)), *e2 = ag_mul_scalar(e, I(2)), *es = ag_sum(e2);
    cr_assert_eq(ag_backward(1, &es, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(ew), ((int64_t[]){5, 3}), ((float[]){2, 2, 2, 0, 0, 0, 4, 4, 4, 0, 0, 0, 2, 2, 2}), 0);
    Tensor *w0 = TTG(((int64_t[]){3, 2}), ((float[]){1, -1, 0.5, 0.5, -0.25, 1})), *b0 = TTG(((int64_t[]){3}), ((float[]){0, -1, 0.5}));
    Tensor *w2 = TTG(((int64_t[]){1, 3}), ((float[]){0.3, -0.6, 0.9})), *b2 = TTG(((int64_t[]){1}), ((float[]){0.1}));
    Tensor *inp = TT(((int64_t[]){3, 2}), ((float[]){1, 2, 2, -1, 0, 0.5}));
    Tensor *h0 = ag_linear(inp, w0, b0), *h1 = ag_relu(h0), *h2 = ag_linear(h1, w2, b2), *out = ag_tanh(h2);
    TT_EXPECT(out, ((int64_t[]){3, 1}), ((float[]){0.9493, 0.7616, 0.7616}), 1e-4);
    Tensor *os = ag_sum(out);
    cr_assert_eq(ag_backward(1, &os, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w0), ((int64_t[]){3, 2}), ((float[]){0.252, -0.126, -0.0593, -0.1185, 0.0889, 0.3668}), 1e-3);
    TT_EXPECT(ag_grad_of(b0), ((int64_t[]){3}), ((float[]){0.126, -0.0593, 0.4669}), 1e-3);
    TT_EXPECT(ag_grad_of(w2), ((int64_t[]){1, 3}), ((float[]){1.2599, 0.0494, 0.6422}), 1e-3);
    TT_EXPECT(ag_grad_of(b2), ((int64_t[]){1}), ((float[]){0.9387}), 1e-3);
    TT_FREE(w, W, bias, x, x1, lin, lin1, lw, lb, lx, lo, k, lok, ls, ar, ar5, ew, idx, e, e2, es, w0, b0, w2, b2, inp, h0, h1, h2, out,
            os);
}

/* 32_train_sgd: a 2-4-1 tanh MLP, MSE loss, SGD with momentum 0.9 written with in-place ops
 * under no_grad (as torch.optim.SGD does), zero_grad(set_to_none=True) between steps */
TT_TEST(conformance, train_sgd_momentum) {
    Tensor *l8 = tensor_linspace(-0.8, 0.8, 8, TENSOR_FLOAT32), *w1 = tensor_reshape(l8, (int64_t[]){4, 2}, 2);
    tt_grad(w1);
    Tensor *b1 = TTG(((int64_t[]){4}), ((float[]){0.1, -0.2, 0.05, 0})), *w2 = TTG(((int64_t[]){1, 4}), ((float[]){0.5, -0.25, 0.75, -0.5}));
    Tensor *b2 = TTG(((int64_t[]){1}), ((float[]){0.2}));
    Tensor *params[4] = {w1, b1, w2, b2}, *bufs[4] = {NULL, NULL, NULL, NULL};
    Tensor *x = TT(((int64_t[]){4, 2}), ((float[]){0, 1, 1, 0, 1, 1, -1, 0.5})), *y = TT(((int64_t[]){4, 1}), ((float[]){1, -1, 0.5, 0}));
    const float losses[3] = {0.6517, 0.5444, 0.449};
    for (int step = 0; step < 3; step++) {
        for (int i = 0; i < 4; i++) cr_assert_eq(ag_set_grad(params[i], NULL), 0);
        Tensor *h = ag_linear(x, w1, b1), *t = ag_tanh(h), *out = ag_linear(t, w2, b2);
        Tensor *loss = ag_mse_loss(out, y, TENSOR_REDUCTION_MEAN);
        cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0);
        cr_assert_float_eq(tensor_get_f64(loss, NULL), losses[step], 1e-4);
        bool prev = ag_set_grad_enabled(false);
        for (int i = 0; i < 4; i++) {
            Tensor *g = ag_grad_of(params[i]);
            if (!bufs[i]) {
                bufs[i] = ag_clone(g);
            } else {
                cr_assert_eq(ag_mul_scalar_(bufs[i], F(0.9)), 0);
                cr_assert_eq(ag_add_(bufs[i], g), 0);
            }
            Tensor *upd = ag_mul_scalar(bufs[i], F(-0.2));
            cr_assert_eq(ag_add_(params[i], upd), 0, "%s", tensor_error_message());
            tensor_decref(upd);
        }
        ag_set_grad_enabled(prev);
        TT_FREE(h, t, out, loss);
    }
    TT_EXPECT(w1, ((int64_t[]){4, 2}), ((float[]){-0.8142, -0.41, -0.3643, -0.2314, 0.1016, 0.6829, 0.5706, 0.7227}), 1e-3);
    TT_EXPECT(b1, ((int64_t[]){4}), ((float[]){0.0618, -0.162, -0.1565, 0.159}), 1e-3);
    TT_EXPECT(w2, ((int64_t[]){1, 4}), ((float[]){0.2197, -0.3143, 0.9533, -0.1849}), 1e-3);
    TT_EXPECT(b2, ((int64_t[]){1}), ((float[]){0.0766}), 1e-3);
    for (int i = 0; i < 4; i++) cr_assert_eq(ag_set_grad(params[i], NULL), 0);
    TT_FREE(l8, w1, b1, w2, b2, bufs[0], bufs[1], bufs[2], bufs[3], x, y);
}

/* every typed ag_ wrapper records the node PyTorch would (names checked against PyTorch 1.13/2.x) */
TT_TEST(conformance, typed_wrappers_record_pytorch_nodes) {
    Tensor *x = TTG(((int64_t[]){2, 3}), ((float[]){0.5, 1, 1.5, 2, 2.5, 3}));
    Tensor *v = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *m3 = TTG(((int64_t[]){1, 3, 2}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *x3 = ag_unsqueeze(x, 0);
    expect_name(ag_abs(x), "AbsBackward0");
    expect_name(ag_sqrt(x), "SqrtBackward0");
    expect_name(ag_rsqrt(x), "RsqrtBackward0");
    expect_name(ag_silu(x), "SiluBackward0");
    expect_name(ag_erf(x), "ErfBackward0");
    expect_name(ag_sin(x), "SinBackward0");
    expect_name(ag_cos(x), "CosBackward0");
    expect_name(ag_sign(x), "SignBackward0");
    expect_name(ag_reciprocal(x), "ReciprocalBackward0");
    expect_name(ag_floor(x), "FloorBackward0");
    expect_name(ag_ceil(x), "CeilBackward0");
    expect_name(ag_round(x), "RoundBackward0");
    expect_name(ag_leaky_relu(x, 0.1), "LeakyReluBackward0");
    expect_name(ag_gelu(x, false), "GeluBackward0");
    expect_name(ag_remainder(x, v), "RemainderBackward1");
    expect_name(ag_maximum(x, v), "MaximumBackward0");
    expect_name(ag_pow(x, v), "PowBackward1");
    expect_name(ag_rpow_scalar(x, F(2)), "PowBackward1");
    expect_name(ag_rsub_scalar(x, F(2)), "RsubBackward1");
    expect_name(ag_prod(x), "ProdBackward0");
    expect_name(ag_prod_dim(x, 1, false), "ProdBackward1");
    expect_name(ag_max(x), "MaxBackward1");
    expect_name(ag_min(x), "MinBackward1");
    Tensor *mv, *mi;
    cr_assert_eq(ag_min_dim(x, 1, false, &mv, &mi), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(mv)), "MinBackward0");
    cr_assert_null(ag_grad_fn(mi), "indices are not differentiable");
    int64_t d1 = 1;
    expect_name(ag_var(x, &d1, 1, 1, false), "VarBackward0");
    expect_name(ag_std(x, NULL, 0, 1, false), "StdBackward0");
    expect_name(ag_logsumexp(x, &d1, 1, false), "LogsumexpBackward0");
    expect_name(ag_as_strided(v, 1, (int64_t[]){2}, (int64_t[]){1}, 0), "AsStridedBackward0");
    expect_name(ag_narrow(x, 1, 0, 2), "SliceBackward0");
    expect_name(ag_squeeze(x3), "SqueezeBackward0");
    expect_name(ag_squeeze_dim(x3, 0), "SqueezeBackward1");
    Tensor *xt = ag_t(x);
    expect_name(ag_contiguous(xt), "CloneBackward0");
    expect_name(ag_permute(x, (int64_t[]){1, 0}, 2), "PermuteBackward0");
    expect_name(ag_reshape(xt, (int64_t[]){6}, 1), "UnsafeViewBackward0");
    expect_name(ag_reshape(x, (int64_t[]){6}, 1), "ViewBackward0");
    expect_name(ag_flatten(x, 0, -1), "ViewBackward0");
    Tensor *parts[4];
    cr_assert_eq(ag_chunk(x, 2, 1, parts, 4), 2);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(parts[0])), "SplitBackward0");
    TT_FREE(parts[0], parts[1]);
    cr_assert_eq(ag_split_with_sizes(x, (int64_t[]){1, 2}, 2, 1, parts, 4), 2);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(parts[1])), "SplitWithSizesBackward0");
    TT_FREE(parts[0], parts[1]);
    cr_assert_eq(ag_unbind(x, 0, parts, 4), 2);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(parts[0])), "UnbindBackward0");
    TT_FREE(parts[0], parts[1]);
    Tensor *xtt = ag_transpose(m3, 1, 2);
    expect_name(ag_bmm(m3, xtt), "BmmBackward0");
    expect_name(ag_mv(x, v), "MvBackward0");
    expect_name(ag_dot(v, v), "DotBackward0");
    Tensor *i01 = TI(((int64_t[]){2}), ((int64_t[]){0, 1})), *g = TI(((int64_t[]){2, 1}), ((int64_t[]){0, 2}));
    expect_name(ag_gather(x, 1, g), "GatherBackward0");
    expect_name(ag_scatter_add(x, 1, g, x), "ScatterAddBackward0");
    expect_name(ag_index_select(x, 1, i01), "IndexSelectBackward0");
    expect_name(ag_index_add(x, 0, i01, x, tensor_scalar_i(1)), "IndexAddBackward0");
    expect_name(ag_index(x, 0, &i01, 1), "IndexBackward0");
    expect_name(ag_index_put(x, 0, &i01, 1, v, false), "IndexPutBackward0");
    Tensor *mask = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, x, tensor_scalar_i(1));
    expect_name(ag_masked_select(x, mask), "MaskedSelectBackward0");
    expect_name(ag_masked_fill(x, mask, tensor_scalar_i(0)), "MaskedFillBackward0");
    Tensor *src = TTG(((int64_t[]){6}), ((float[]){1, 2, 3, 4, 5, 6}));
    expect_name(ag_masked_scatter(x, mask, src), "MaskedScatterBackward0");
    expect_name(ag_where(mask, x, v), "WhereBackward0");
    Tensor *y = ag_clone(x);
    cr_assert_eq(ag_div_(y, v), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "DivBackward0");
    cr_assert_eq(ag_sub_scalar_(y, F(1)), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "SubBackward0");
    TensorScalar lo = F(0);
    cr_assert_eq(ag_clamp_(y, &lo, NULL), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "ClampBackward1");
    cr_assert_eq(ag_fill_(y, F(1)), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "FillBackward2");
    cr_assert_eq(ag_zero_(y), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "ZeroBackward0");
    cr_assert_eq(ag_normal_(y, 0, 1), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "NormalBackward0");
    cr_assert_eq(ag_uniform_(y, 0, 1), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "UniformBackward0");
    Tensor *same = ag_to_dtype(x, TENSOR_FLOAT32);
    cr_assert_eq(same, x, "to(float32) of a float tensor is the tensor itself");
    TT_FREE(x, v, m3, x3, mv, mi, xt, xtt, i01, g, mask, src, y, same);
}
