/* test_inplace.c — in-place ops under autograd: CopySlices when a view is written
 * (buf[0:2] = x * 2), the view's regenerated AsStridedBackward0, in-place ops on views of
 * non-leaves, index_put_ / masked_fill_ assignment, copy_ with broadcasting, stale views after
 * a no_grad mutation, and PyTorch's errors for leaves and no_grad views. */
#include "tests/support/tensor_test.h"

TestSuite(inplace, .init = tt_setup);

#define I(x) tensor_scalar_i(x)

TT_TEST(inplace, copy_into_a_slice_of_a_plain_buffer) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *buf = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){3});
    Tensor *v = ag_slice(buf, 0, 0, 2, 1), *x2 = ag_mul_scalar(x, I(2));
    cr_assert_eq(ag_copy_(v, x2), 0, "%s", tensor_error_message());
    AgNode *cs = ag_grad_fn(buf);
    cr_assert_str_eq(ag_node_name(cs), "torch::autograd::CopySlices");
    uint32_t nr;
    cr_assert_eq(ag_node_num_next(cs), 2);
    cr_assert_null(ag_node_next(cs, 0, &nr), "buf had no history");
    cr_assert_str_eq(ag_node_name(ag_node_next(cs, 1, &nr)), "MulBackward0");
    cr_assert_str_eq(ag_node_name(ag_grad_fn(v)), "AsStridedBackward0");
    cr_assert_eq(ag_node_next(ag_grad_fn(v), 0, &nr), cs);
    cr_assert_eq(tensor_version(buf), 1);
    cr_assert(ag_requires_grad(buf) && !ag_is_leaf(buf));
    Tensor *w = TT(((int64_t[]){3}), ((float[]){10, 20, 30})), *bw = ag_mul(buf, w), *s = ag_sum(bw);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){20, 40}), 0);
    /* a view taken earlier sees the new history too */
    TT_FREE(x, buf, v, x2, w, bw, s);
}

TT_TEST(inplace, inplace_on_a_view_of_a_non_leaf) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = ag_mul_scalar(x, I(1)), *v = ag_slice(y, 0, 1, 3, 1), *early = ag_slice(y, 0, 0, 2, 1);
    cr_assert_eq(ag_mul_scalar_(v, I(3)), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "torch::autograd::CopySlices");
    TT_EXPECT(y, ((int64_t[]){3}), ((float[]){1, 6, 9}), 0);
    /* the earlier view's grad_fn is regenerated on access: its data changed */
    cr_assert_str_eq(ag_node_name(ag_grad_fn(early)), "AsStridedBackward0");
    Tensor *k = TT(((int64_t[]){3}), ((float[]){1, 10, 100})), *yk = ag_mul(y, k), *s = ag_sum(yk);
    Tensor *es = ag_sum(early), *tot = ag_add(s, es);
    cr_assert_eq(ag_backward(1, &tot, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, 33, 300}), 0);
    TT_FREE(x, y, v, early, k, yk, s, es, tot);
}

TT_TEST(inplace, index_put_and_masked_fill_assignments) {
    Tensor *x = TTG(((int64_t[]){4}), ((float[]){1, 2, 3, 4}));
    Tensor *y = ag_clone(x), *idx = TI(((int64_t[]){2}), ((int64_t[]){0, 2})), *zero = tensor_zeros(TENSOR_FLOAT32, 0, NULL);
    cr_assert_eq(ag_index_put_(y, 0, &idx, 1, zero, false), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "IndexPutBackward0");
    TT_EXPECT(y, ((int64_t[]){4}), ((float[]){0, 2, 0, 4}), 0);
    Tensor *mask = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, x, I(3));
    cr_assert_eq(ag_masked_fill_(y, mask, I(-1)), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "MaskedFillBackward0");
    Tensor *s = ag_sum(y);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){4}), ((float[]){0, 1, 0, 0}), 0);
    /* values assigned through index_put_ get the gradient of their positions */
    Tensor *v = TTG(((int64_t[]){2}), ((float[]){5, 6})), *z = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){4});
    cr_assert_eq(ag_index_put_(z, 0, &idx, 1, v, false), 0);
    Tensor *k = TT(((int64_t[]){4}), ((float[]){1, 2, 3, 4})), *zk = ag_mul(z, k), *zs = ag_sum(zk);
    cr_assert_eq(ag_backward(1, &zs, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(v), ((int64_t[]){2}), ((float[]){1, 3}), 0);
    TT_FREE(x, y, idx, zero, mask, s, v, z, k, zk, zs);
}

TT_TEST(inplace, copy_broadcasts_into_a_fresh_tensor) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
    cr_assert_eq(ag_copy_(y, x), 0);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(y)), "torch::autograd::CopyBackwards");
    Tensor *s = ag_sum(y);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, 2, 2}), 0);
    TT_FREE(x, y, s);
}

TT_TEST(inplace, mul_clamp_relu_in_place) {
    /* values from PyTorch: y = x * 1; y.mul_(w); y.clamp_(max=5); y.relu_() */
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){-1, 2, 3})), *w = TTG(((int64_t[]){3}), ((float[]){2, 2, -1}));
    Tensor *y = ag_mul_scalar(x, I(1));
    cr_assert_eq(ag_mul_(y, w), 0); /* saves the old y (cloned) and w */
    Tensor *in[1] = {y};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.has_max = true;
    a.scalar2 = I(5);
    Tensor *out = NULL;
    cr_assert_eq(ag_op_run(TENSOR_OP_CLAMP_, in, 1, &a, &out, 1), 1);
    cr_assert_eq(out, y, "in-place ops return their input");
    tensor_decref(out);
    cr_assert_eq(ag_relu_(y), 0); /* saves its result */
    TT_EXPECT(y, ((int64_t[]){3}), ((float[]){0, 4, 0}), 0);
    Tensor *s = ag_sum(y);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){0, 2, 0}), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3}), ((float[]){0, 2, 0}), 0);
    /* modifying relu_'s saved result is caught */
    Tensor *y2 = ag_mul_scalar(x, I(1));
    cr_assert_eq(ag_relu_(y2), 0);
    cr_assert_eq(ag_mul_scalar_(y2, I(2)), 0);
    Tensor *s2 = ag_sum(y2);
    cr_assert_eq(ag_backward(1, &s2, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "which is output 0 of ReluBackward0, is at version 2; expected version 1 instead.");
    TT_FREE(x, w, y, s, y2, s2);
}

TT_TEST(inplace, stale_views_after_no_grad_mutation) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *z = ag_mul_scalar(x, I(1)), *a = ag_slice(z, 0, 0, 2, 1);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(a)), "SliceBackward0");
    bool prev = ag_set_grad_enabled(false);
    cr_assert_eq(ag_mul_scalar_(z, I(2)), 0);
    ag_set_grad_enabled(prev);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(a)), "AsStridedBackward0");
    Tensor *s = ag_sum(a);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){1, 1, 0}), 0);
    TT_FREE(x, z, a, s);
}

TT_TEST(inplace, leaf_and_view_errors) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *v = ag_slice(x, 0, 0, 1, 1);
    cr_assert_eq(ag_add_scalar_(v, I(1)), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    bool prev = ag_set_grad_enabled(false);
    Tensor *nv = ag_slice(x, 0, 1, 3, 1);
    cr_assert_eq(ag_add_scalar_(nv, I(1)), 0, "allowed under no_grad");
    ag_set_grad_enabled(prev);
    cr_assert(ag_requires_grad(nv), "a view of a tensor requiring grad requires grad");
    cr_assert_null(ag_grad_fn(nv));
    Tensor *y = ag_mul_scalar(x, I(1));
    prev = ag_set_grad_enabled(false);
    Tensor *yv = ag_slice(y, 0, 0, 2, 1);
    ag_set_grad_enabled(prev);
    Tensor *w = TTG(((int64_t[]){2}), ((float[]){1, 1}));
    cr_assert_eq(ag_mul_(yv, w), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "A view was created in no_grad mode and is being modified inplace with grad mode enabled.");
    cr_assert_eq(ag_set_requires_grad(y, false), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "you can only change requires_grad flags of leaf variables.");
    Tensor *i = TI(((int64_t[]){1}), ((int64_t[]){1}));
    cr_assert_eq(ag_set_requires_grad(i, true), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "only Tensors of floating point dtype can require gradients");
    TT_FREE(x, v, nv, y, yv, w, i);
}
