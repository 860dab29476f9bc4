/* test_index_nn.c — indexing kernels (gather, scatter_add, index_select, index_add, advanced
 * indexing and index_put, masked fill/select/scatter) and nn kernels (softmax, log_softmax,
 * layer_norm, embedding, dropout, nll_loss, cross_entropy, mse_loss) against naive
 * double-precision references and PyTorch's values and messages. */
#include "tests/support/tensor_test.h"

TestSuite(index_nn, .init = tt_setup);

TT_TEST(index_nn, gather_scatter_add) {
    Tensor *x = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *idx = TI(((int64_t[]){2, 2}), ((int64_t[]){2, 0, 1, 1}));
    Tensor *g = tensor_gather(x, 1, idx);
    TT_EXPECT(g, ((int64_t[]){2, 2}), ((float[]){3, 1, 5, 5}), 0);
    Tensor *i0 = TI(((int64_t[]){1, 3}), ((int64_t[]){1, 0, 1}));
    Tensor *g0 = tensor_gather(x, 0, i0);
    TT_EXPECT(g0, ((int64_t[]){1, 3}), ((float[]){4, 2, 6}), 0);
    Tensor *z = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}), *src = TT(((int64_t[]){2, 2}), ((float[]){1, 2, 3, 4}));
    Tensor *sa = tensor_scatter_add(z, 1, idx, src);
    TT_EXPECT(sa, ((int64_t[]){2, 3}), ((float[]){2, 0, 1, 0, 7, 0}), 0);
    Tensor *bad = TI(((int64_t[]){1, 1}), ((int64_t[]){5}));
    cr_assert_null(tensor_gather(x, 1, bad));
    tt_expect_error(TENSOR_ERR_RUNTIME, "index 5 is out of bounds for dimension 1 with size 3");
    Tensor *fidx = TT(((int64_t[]){1, 1}), ((float[]){0}));
    cr_assert_null(tensor_gather(x, 0, fidx));
    tt_expect_error(TENSOR_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    Tensor *one = TI(((int64_t[]){1}), ((int64_t[]){0}));
    cr_assert_null(tensor_gather(x, 0, one));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Index tensor must have the same number of dimensions as input tensor");
    TT_FREE(x, idx, g, i0, g0, z, src, sa, bad, fidx, one);
}

TT_TEST(index_nn, index_select_index_add) {
    Tensor *x = TT(((int64_t[]){3, 2}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *i = TI(((int64_t[]){3}), ((int64_t[]){2, 0, 2}));
    Tensor *s = tensor_index_select(x, 0, i);
    TT_EXPECT(s, ((int64_t[]){3, 2}), ((float[]){5, 6, 1, 2, 5, 6}), 0);
    Tensor *xt = tensor_t(x), *s1 = tensor_index_select(xt, 1, i);
    TT_EXPECT(s1, ((int64_t[]){2, 3}), ((float[]){5, 1, 5, 6, 2, 6}), 0);
    Tensor *z = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){3, 2});
    Tensor *ia = tensor_index_add(z, 0, i, s, tensor_scalar_f(2));
    TT_EXPECT(ia, ((int64_t[]){3, 2}), ((float[]){2, 4, 0, 0, 20, 24}), 0);
    Tensor *oob = TI(((int64_t[]){1}), ((int64_t[]){3}));
    cr_assert_null(tensor_index_select(x, 0, oob));
    tt_expect_error(TENSOR_ERR_INDEX, "index out of range in self");
    Tensor *fi = TT(((int64_t[]){1}), ((float[]){0}));
    cr_assert_null(tensor_index_select(x, 0, fi));
    tt_expect_error(TENSOR_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
    TT_FREE(x, i, s, xt, s1, z, ia, oob, fi);
}

TT_TEST(index_nn, advanced_indexing_and_index_put) {
    Tensor *x = tensor_arange_f(0, 12, 1), *m = tensor_view(x, (int64_t[]){3, 4}, 2);
    Tensor *i = TI(((int64_t[]){2}), ((int64_t[]){2, -3}));
    Tensor *r = tensor_index(m, 0, &i, 1);
    TT_EXPECT(r, ((int64_t[]){2, 4}), ((float[]){8, 9, 10, 11, 0, 1, 2, 3}), 0);
    Tensor *r1 = tensor_index(m, 1, &i, 1); /* x[:, idx] */
    TT_EXPECT(r1, ((int64_t[]){3, 2}), ((float[]){2, 1, 6, 5, 10, 9}), 0);
    Tensor *rows = TI(((int64_t[]){2, 1}), ((int64_t[]){0, 2})), *cols = TI(((int64_t[]){2}), ((int64_t[]){1, 3}));
    Tensor *rc[2] = {rows, cols};
    Tensor *pts = tensor_index(m, 0, rc, 2); /* broadcast [2,1] x [2] -> [2,2] */
    TT_EXPECT(pts, ((int64_t[]){2, 2}), ((float[]){1, 3, 9, 11}), 0);
    Tensor *mask = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, m, tensor_scalar_i(7));
    Tensor *sel = tensor_index(m, 0, &mask, 1), *ms = tensor_masked_select(m, mask);
    TT_EXPECT(sel, ((int64_t[]){4}), ((float[]){8, 9, 10, 11}), 0);
    cr_assert(tensor_equal(sel, ms));
    Tensor *rowmask = tensor_cmp_scalar(TENSOR_OP_NE_SCALAR, i, tensor_scalar_i(2));
    Tensor *badmask = tensor_index(m, 0, &rowmask, 1);
    cr_assert_null(badmask);
    tt_expect_error(TENSOR_ERR_INDEX, "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0");
    Tensor *oob = TI(((int64_t[]){1}), ((int64_t[]){3}));
    cr_assert_null(tensor_index(m, 0, &oob, 1));
    tt_expect_error(TENSOR_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
    /* index_put: assignment and accumulation with duplicates */
    Tensor *v = TT(((int64_t[]){4}), ((float[]){-1, -2, -3, -4}));
    Tensor *p = tensor_index_put(m, 0, &i, 1, v, false);
    TT_EXPECT(p, ((int64_t[]){3, 4}), ((float[]){-1, -2, -3, -4, 4, 5, 6, 7, -1, -2, -3, -4}), 0);
    Tensor *dup = TI(((int64_t[]){3}), ((int64_t[]){1, 1, 0})), *ones = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){4});
    Tensor *acc = tensor_index_put(m, 0, &dup, 1, ones, true);
    TT_EXPECT(acc, ((int64_t[]){3, 4}), ((float[]){1, 2, 3, 4, 6, 7, 8, 9, 8, 9, 10, 11}), 0);
    Tensor *three = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){3});
    cr_assert_null(tensor_index_put(m, 0, &i, 1, three, false));
    tt_expect_error(TENSOR_ERR_RUNTIME, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
    cr_assert_eq(tensor_index_put_(m, 0, &mask, 1, ones, false), 0, "x[x > 7] = 1");
    cr_assert_eq(tensor_version(x), 1);
    cr_assert_eq(tensor_get_f64(x, (int64_t[]){11}), 1);
    cr_assert_eq(tensor_get_f64(x, (int64_t[]){7}), 7);
    TT_FREE(x, m, i, r, r1, rows, cols, pts, mask, sel, ms, rowmask, oob, v, p, dup, ones, acc, three);
}

TT_TEST(index_nn, masked_fill_and_scatter) {
    Tensor *x = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 4, 5, 6}));
    bool mv[3] = {true, false, true};
    Tensor *mask = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){3}, mv);
    Tensor *f = tensor_masked_fill(x, mask, tensor_scalar_f(-1));
    TT_EXPECT(f, ((int64_t[]){2, 3}), ((float[]){-1, 2, -1, -1, 5, -1}), 0);
    Tensor *xt = tensor_t(x), *m2 = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, xt, tensor_scalar_i(3));
    Tensor *ft = tensor_masked_fill(xt, m2, tensor_scalar_i(0));
    TT_EXPECT(ft, ((int64_t[]){3, 2}), ((float[]){1, 0, 2, 0, 3, 0}), 0);
    Tensor *i = TI(((int64_t[]){3}), ((int64_t[]){1, -2, 3}));
    Tensor *fi = tensor_masked_fill(i, mask, tensor_scalar_f(1.5));
    cr_assert_eq(tensor_dtype(fi), TENSOR_INT64);
    TT_EXPECT(fi, ((int64_t[]){3}), ((float[]){1, -2, 1}), 0);
    cr_assert_null(tensor_masked_fill(x, x, tensor_scalar_i(0)));
    tt_expect_error(TENSOR_ERR_RUNTIME, "masked_fill_ only supports boolean masks, but got mask with dtype float");
    Tensor *src = TT(((int64_t[]){4}), ((float[]){10, 20, 30, 40}));
    Tensor *sc = tensor_masked_scatter(x, mask, src);
    TT_EXPECT(sc, ((int64_t[]){2, 3}), ((float[]){10, 2, 20, 30, 5, 40}), 0);
    Tensor *small = TT(((int64_t[]){2}), ((float[]){1, 2}));
    cr_assert_null(tensor_masked_scatter(x, mask, small));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
    cr_assert_eq(tensor_masked_fill_(x, mask, tensor_scalar_i(9)), 0);
    TT_EXPECT(x, ((int64_t[]){2, 3}), ((float[]){9, 2, 9, 9, 5, 9}), 0);
    TT_FREE(x, mask, f, xt, m2, ft, i, fi, src, sc, small);
}

TT_TEST(index_nn, softmax_log_softmax_stable) {
    Tensor *x = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 1000, 1001, 1002}));
    Tensor *s = tensor_softmax(x, 1), *ls = tensor_log_softmax(x, -1);
    float e1 = 1 / (1 + expf(1) + expf(2)), e2 = expf(1) * e1, e3 = expf(2) * e1;
    TT_EXPECT(s, ((int64_t[]){2, 3}), ((float[]){e1, e2, e3, e1, e2, e3}), 1e-6);
    TT_EXPECT(ls, ((int64_t[]){2, 3}), ((float[]){logf(e1), logf(e2), logf(e3), logf(e1), logf(e2), logf(e3)}), 1e-5);
    Tensor *s0 = tensor_softmax(x, 0);
    TT_EXPECT(s0, ((int64_t[]){2, 3}), ((float[]){0, 0, 0, 1, 1, 1}), 1e-6);
    Tensor *ninf = TT(((int64_t[]){3}), ((float[]){-INFINITY, 0, -INFINITY})), *sn = tensor_softmax(ninf, 0);
    TT_EXPECT(sn, ((int64_t[]){3}), ((float[]){0, 1, 0}), 0);
    Tensor *xt = tensor_t(x), *st = tensor_softmax(xt, 0);
    Tensor *stt = tensor_t(st);
    cr_assert(tensor_allclose(stt, s, 1e-6, 1e-7, false) == 1, "non-contiguous input");
    Tensor *i = TI(((int64_t[]){2}), ((int64_t[]){1, 2}));
    cr_assert_null(tensor_softmax(i, 0));
    tt_expect_error(TENSOR_ERR_RUNTIME, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
    TT_FREE(x, s, ls, s0, ninf, sn, xt, st, stt, i);
}

TT_TEST(index_nn, layer_norm_and_embedding_match_pytorch) {
    /* values printed by torch.nn.functional.layer_norm */
    Tensor *lx = TT(((int64_t[]){2, 3}), ((float[]){1, 2, 4, 0.5, 1.5, -1}));
    Tensor *lo = tensor_layer_norm(lx, (int64_t[]){3}, 1, NULL, NULL, 1e-5);
    TT_EXPECT(lo, ((int64_t[]){2, 3}), ((float[]){-1.069041, -0.26726, 1.336302, 0.162221, 1.135545, -1.297765}), 1e-5);
    Tensor *w = TT(((int64_t[]){3}), ((float[]){1, 2, 3})), *b = TT(((int64_t[]){3}), ((float[]){0, 1, 0}));
    Tensor *lwb = tensor_layer_norm(lx, (int64_t[]){3}, 1, w, b, 1e-5);
    TT_EXPECT(lwb, ((int64_t[]){2, 3}), ((float[]){-1.069041, 0.465479, 4.008905, 0.162221, 3.271089, -3.893296}), 1e-5);
    cr_assert_null(tensor_layer_norm(lx, (int64_t[]){4}, 1, NULL, NULL, 1e-5));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]");
    Tensor *ar = tensor_arange_f(0, 15, 1), *ar5 = tensor_view(ar, (int64_t[]){5, 3}, 2), *ew = tensor_mul_scalar(ar5, tensor_scalar_f(0.1));
    Tensor *idx = TI(((int64_t[]){2, 2}), ((int64_t[]){0, 4, 2, 2}));
    Tensor *e = tensor_embedding(ew, idx, -1);
    TT_EXPECT(e, ((int64_t[]){2, 2, 3}), ((float[]){0, 0.1, 0.2, 1.2, 1.3, 1.4, 0.6, 0.7, 0.8, 0.6, 0.7, 0.8}), 1e-6);
    Tensor *bad = TI(((int64_t[]){1}), ((int64_t[]){7}));
    cr_assert_null(tensor_embedding(ew, bad, -1));
    tt_expect_error(TENSOR_ERR_INDEX, "index out of range in self");
    Tensor *fidx = TT(((int64_t[]){1}), ((float[]){0}));
    cr_assert_null(tensor_embedding(ew, fidx, -1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int");
    TT_FREE(lx, lo, w, b, lwb, ar, ar5, ew, idx, e, bad, fidx);
}

TT_TEST(index_nn, losses) {
    Tensor *logits = TT(((int64_t[]){2, 3}), ((float[]){1, 0.5, -1, 2, -0.5, 0.25}));
    Tensor *tgt = TI(((int64_t[]){2}), ((int64_t[]){0, 2}));
    Tensor *ce = tensor_cross_entropy(logits, tgt, NULL, TENSOR_REDUCTION_MEAN, -100);
    /* naive: -log softmax at the targets, averaged */
    double l0 = -(1 - log(exp(1) + exp(0.5) + exp(-1))), l1 = -(0.25 - log(exp(2) + exp(-0.5) + exp(0.25)));
    cr_assert_float_eq(tensor_get_f64(ce, NULL), (l0 + l1) / 2, 1e-5);
    Tensor *cen = tensor_cross_entropy(logits, tgt, NULL, TENSOR_REDUCTION_NONE, -100);
    TT_EXPECT(cen, ((int64_t[]){2}), ((float[]){(float)l0, (float)l1}), 1e-5);
    Tensor *ces = tensor_cross_entropy(logits, tgt, NULL, TENSOR_REDUCTION_SUM, -100);
    cr_assert_float_eq(tensor_get_f64(ces, NULL), l0 + l1, 1e-5);
    Tensor *ign = TI(((int64_t[]){2}), ((int64_t[]){0, -100}));
    Tensor *cei = tensor_cross_entropy(logits, ign, NULL, TENSOR_REDUCTION_MEAN, -100);
    cr_assert_float_eq(tensor_get_f64(cei, NULL), l0, 1e-5, "ignore_index drops the row from the mean");
    Tensor *w = TT(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *cew = tensor_cross_entropy(logits, tgt, w, TENSOR_REDUCTION_MEAN, -100);
    cr_assert_float_eq(tensor_get_f64(cew, NULL), (1 * l0 + 3 * l1) / 4, 1e-5);
    Tensor *v1 = TT(((int64_t[]){2}), ((float[]){1, 2})), *t0 = tensor_scalar_tensor(tensor_scalar_i(1), TENSOR_INT64);
    Tensor *ce1 = tensor_cross_entropy(v1, t0, NULL, TENSOR_REDUCTION_MEAN, -100);
    cr_assert_float_eq(tensor_get_f64(ce1, NULL), 0.3133, 1e-4, "1-D input with a 0-dim target");
    Tensor *oob = TI(((int64_t[]){2}), ((int64_t[]){5, 0}));
    cr_assert_null(tensor_cross_entropy(logits, oob, NULL, TENSOR_REDUCTION_MEAN, -100));
    tt_expect_error(TENSOR_ERR_INDEX, "Target 5 is out of bounds.");
    Tensor *t3 = TI(((int64_t[]){3}), ((int64_t[]){0, 1, 1}));
    cr_assert_null(tensor_nll_loss(logits, t3, NULL, TENSOR_REDUCTION_MEAN, -100));
    tt_expect_error(TENSOR_ERR_VALUE, "Expected input batch_size (2) to match target batch_size (3).");
    Tensor *ft = TT(((int64_t[]){2}), ((float[]){0, 1}));
    cr_assert_null(tensor_nll_loss(logits, ft, NULL, TENSOR_REDUCTION_MEAN, -100));
    tt_expect_error(TENSOR_ERR_RUNTIME, "expected scalar type Long but found Float");
    Tensor *a = TT(((int64_t[]){3}), ((float[]){1, 2, 3})), *b = TT(((int64_t[]){3}), ((float[]){2, 2, 2}));
    Tensor *mse = tensor_mse_loss(a, b, TENSOR_REDUCTION_MEAN), *mses = tensor_mse_loss(a, b, TENSOR_REDUCTION_SUM);
    cr_assert_float_eq(tensor_get_f64(mse, NULL), 2.0 / 3, 1e-6);
    cr_assert_float_eq(tensor_get_f64(mses, NULL), 2.0, 1e-6);
    TT_FREE(logits, tgt, ce, cen, ces, ign, cei, w, cew, v1, t0, ce1, oob, t3, ft, a, b, mse, mses);
}

TT_TEST(index_nn, dropout_masks_and_scales) {
    int64_t n = 20000;
    Tensor *x = tensor_ones(TENSOR_FLOAT32, 1, &n);
    Tensor *d = tensor_dropout(x, 0.25, true);
    int64_t zeros = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = tensor_get_f64(d, &i);
        cr_assert(v == 0 || fabs(v - 1 / 0.75) < 1e-6, "value %g", v);
        zeros += v == 0;
    }
    cr_assert(fabs((double)zeros / n - 0.25) < 0.02, "drop rate %g", (double)zeros / n);
    Tensor *ev = tensor_dropout(x, 0.25, false);
    cr_assert(tensor_equal(ev, x), "eval mode is the identity");
    cr_assert_null(tensor_dropout(x, 1.5, true));
    tt_expect_error(TENSOR_ERR_VALUE, "dropout probability has to be between 0 and 1, but got 1.5");
    /* the generator is seedable */
    tensor_manual_seed(7);
    Tensor *r1 = tensor_rand(TENSOR_FLOAT32, 1, (int64_t[]){5});
    tensor_manual_seed(7);
    Tensor *r2 = tensor_rand(TENSOR_FLOAT32, 1, (int64_t[]){5});
    cr_assert(tensor_equal(r1, r2));
    TT_FREE(x, d, ev, r1, r2);
}
