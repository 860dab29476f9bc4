/* test_shape.c — views (storage, version counter and _base sharing, geometry), reshape's
 * view-or-copy rule, detach vs alias version counters, cat/stack/split/chunk/unbind values,
 * and PyTorch's error messages for bad shapes and dims. */
#include "tests/support/tensor_test.h"

TestSuite(shape, .init = tt_setup);

TT_TEST(shape, views_share_storage_version_and_base) {
    Tensor *a = tensor_arange_f(0, 24, 1);
    Tensor *v = tensor_view(a, (int64_t[]){2, 3, 4}, 3);
    Tensor *t = tensor_transpose(v, 0, 2), *p = tensor_permute(v, (int64_t[]){1, 2, 0}, 3), *s = tensor_slice(t, 1, 1, 3, 1);
    Tensor *sel = tensor_select(s, 0, 2), *u = tensor_unsqueeze(sel, 0), *sq = tensor_squeeze(u);
    Tensor *views[] = {v, t, p, s, sel, u, sq};
    for (int i = 0; i < NELEM(views); i++) {
        cr_assert(tensor_same_storage(views[i], a));
        cr_assert(tensor_is_view(views[i]));
        cr_assert_eq(tensor_base(views[i]), a, "_base is the root, not the previous view");
    }
    cr_assert(!tensor_is_view(a));
    tt_expect_shape(t, 3, (int64_t[]){4, 3, 2});
    cr_assert_eq(tensor_strides(t)[0], 1);
    cr_assert_eq(tensor_strides(t)[2], 12);
    /* t[2, 1:3, :] -> sel: element (i, j) = v[j, 1 + i, 2] */
    tt_expect_shape(sel, 2, (int64_t[]){2, 2});
    TT_EXPECT(sel, ((int64_t[]){2, 2}), ((float[]){6, 18, 10, 22}), 0);
    cr_assert_eq(tensor_add_scalar_(sel, tensor_scalar_i(100), tensor_scalar_i(1)), 0);
    for (int i = 0; i < NELEM(views); i++) cr_assert_eq(tensor_version(views[i]), 1);
    cr_assert_eq(tensor_version(a), 1);
    cr_assert_eq(tensor_get_f64(a, (int64_t[]){6}), 106);
    Tensor *d = tensor_detach(a), *al = tensor_alias(a);
    cr_assert(!tensor_is_view(d) && tensor_same_storage(d, a));
    cr_assert_eq(tensor_version(d), 1, "detach shares the version counter");
    cr_assert_eq(tensor_version(al), 0, ".data gets a fresh counter");
    cr_assert_eq(tensor_fill_(al, tensor_scalar_i(0)), 0);
    cr_assert_eq(tensor_version(a), 1);
    cr_assert_eq(tensor_get_f64(a, (int64_t[]){6}), 0, "but the same data");
    TT_FREE(a, v, t, p, s, sel, u, sq, d, al);
}

TT_TEST(shape, view_reshape_flatten) {
    Tensor *a = tensor_arange_f(0, 6, 1), *m = tensor_view(a, (int64_t[]){2, 3}, 2), *mt = tensor_t(m);
    cr_assert_null(tensor_view(mt, (int64_t[]){6}, 1));
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    Tensor *r = tensor_reshape(mt, (int64_t[]){6}, 1);
    cr_assert(!tensor_same_storage(r, a), "reshape copies when a view is impossible");
    TT_EXPECT(r, ((int64_t[]){6}), ((float[]){0, 3, 1, 4, 2, 5}), 0);
    Tensor *rv = tensor_reshape(m, (int64_t[]){3, -1}, 2);
    cr_assert(tensor_same_storage(rv, a), "reshape views when it can");
    tt_expect_shape(rv, 2, (int64_t[]){3, 2});
    /* views of non-contiguous inputs that keep chunks together */
    Tensor *b = tensor_arange_f(0, 24, 1), *b3 = tensor_view(b, (int64_t[]){2, 3, 4}, 3), *bt = tensor_transpose(b3, 0, 1);
    Tensor *bv = tensor_view(bt, (int64_t[]){3, 2, 2, 2}, 4);
    cr_assert(bv != NULL, "splitting the last dim of a transposed tensor is a view");
    cr_assert_null(tensor_view(m, (int64_t[]){4}, 1));
    tt_expect_error(TENSOR_ERR_RUNTIME, "shape '[4]' is invalid for input of size 6");
    cr_assert_null(tensor_view(m, (int64_t[]){-1, -1}, 2));
    tt_expect_error(TENSOR_ERR_RUNTIME, "only one dimension can be inferred");
    Tensor *e = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){0, 3});
    cr_assert_null(tensor_view(e, (int64_t[]){-1, 0}, 2));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot reshape tensor of 0 elements into shape [-1, 0]");
    Tensor *f = tensor_flatten(b3, 1, -1), *f0 = tensor_flatten(b3, 0, -1);
    tt_expect_shape(f, 2, (int64_t[]){2, 12});
    tt_expect_shape(f0, 1, (int64_t[]){24});
    Tensor *z = tensor_scalar_tensor(tensor_scalar_f(1), TENSOR_FLOAT32), *zf = tensor_flatten(z, 0, -1);
    tt_expect_shape(zf, 1, (int64_t[]){1});
    cr_assert_null(tensor_flatten(b3, 2, 1));
    tt_expect_error(TENSOR_ERR_RUNTIME, "flatten() has invalid args: start_dim cannot come after end_dim");
    Tensor *c = tensor_contiguous(mt), *c2 = tensor_contiguous(m);
    cr_assert(tensor_is_contiguous(c) && !tensor_same_storage(c, a));
    cr_assert_eq(c2, m, "contiguous() of a contiguous tensor is the tensor itself");
    TT_FREE(a, m, mt, r, rv, b, b3, bt, bv, e, f, f0, z, zf, c, c2);
}

TT_TEST(shape, expand_slice_select_narrow_squeeze) {
    Tensor *x = TT(((int64_t[]){3, 1}), ((float[]){1, 2, 3}));
    Tensor *e = tensor_expand(x, (int64_t[]){2, 3, 4}, 3);
    tt_expect_shape(e, 3, (int64_t[]){2, 3, 4});
    cr_assert_eq(tensor_strides(e)[0], 0);
    cr_assert_eq(tensor_strides(e)[2], 0);
    cr_assert_eq(tensor_get_f64(e, (int64_t[]){1, 2, 3}), 3);
    Tensor *e2 = tensor_expand(x, (int64_t[]){-1, 5}, 2);
    tt_expect_shape(e2, 2, (int64_t[]){3, 5});
    cr_assert_null(tensor_expand(x, (int64_t[]){4, 4}, 2));
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [4, 4].  Tensor sizes: [3, 1]");
    cr_assert_null(tensor_expand(x, (int64_t[]){3}, 1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)");
    Tensor *r = tensor_arange_f(0, 10, 1);
    Tensor *s1 = tensor_slice(r, 0, -3, INT64_MAX, 1), *s2 = tensor_slice(r, 0, 1, 9, 3), *s3 = tensor_slice(r, 0, 8, 2, 1);
    TT_EXPECT(s1, ((int64_t[]){3}), ((float[]){7, 8, 9}), 0);
    TT_EXPECT(s2, ((int64_t[]){3}), ((float[]){1, 4, 7}), 0);
    tt_expect_shape(s3, 1, (int64_t[]){0});
    cr_assert_null(tensor_slice(r, 0, 0, 5, 0));
    tt_expect_error(TENSOR_ERR_VALUE, "slice step cannot be zero");
    cr_assert_null(tensor_slice(r, 0, 0, 5, -1));
    tt_expect_error(TENSOR_ERR_VALUE, "step must be greater than zero");
    Tensor *n = tensor_narrow(r, 0, -2, 2);
    TT_EXPECT(n, ((int64_t[]){2}), ((float[]){8, 9}), 0);
    cr_assert_null(tensor_narrow(r, 0, 8, 3));
    tt_expect_error(TENSOR_ERR_RUNTIME, "start (8) + length (3) exceeds dimension size (10).");
    Tensor *sel = tensor_select(r, 0, -1);
    cr_assert_eq(tensor_ndim(sel), 0);
    cr_assert_eq(tensor_get_f64(sel, NULL), 9);
    cr_assert_null(tensor_select(r, 0, 10));
    tt_expect_error(TENSOR_ERR_INDEX, "index 10 is out of bounds for dimension 0 with size 10");
    cr_assert_null(tensor_select(sel, 0, 0));
    tt_expect_error_contains(TENSOR_ERR_INDEX, "invalid index of a 0-dim tensor.");
    Tensor *z = tensor_zeros(TENSOR_FLOAT32, 3, (int64_t[]){1, 3, 1}), *zs = tensor_squeeze(z), *zd = tensor_squeeze_dim(z, 1);
    tt_expect_shape(zs, 1, (int64_t[]){3});
    tt_expect_shape(zd, 3, (int64_t[]){1, 3, 1});
    cr_assert_null(tensor_unsqueeze(z, 4));
    tt_expect_error(TENSOR_ERR_INDEX, "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    Tensor *m = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
    cr_assert_null(tensor_permute(m, (int64_t[]){1}, 1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "input.dim() = 2 is not equal to len(dims) = 1");
    cr_assert_null(tensor_permute(m, (int64_t[]){0, 0}, 2));
    tt_expect_error(TENSOR_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
    Tensor *c3 = tensor_ones(TENSOR_FLOAT32, 3, (int64_t[]){2, 2, 2});
    cr_assert_null(tensor_t(c3));
    tt_expect_error(TENSOR_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is 3D");
    cr_assert_null(tensor_transpose(m, 0, 5));
    tt_expect_error(TENSOR_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    Tensor *as = tensor_as_strided(r, 2, (int64_t[]){2, 2}, (int64_t[]){1, 2}, 1);
    TT_EXPECT(as, ((int64_t[]){2, 2}), ((float[]){1, 3, 2, 4}), 0);
    TT_FREE(x, e, e2, r, s1, s2, s3, n, sel, z, zs, zd, m, c3, as);
}

TT_TEST(shape, cat_stack_split_chunk_unbind) {
    Tensor *a = TT(((int64_t[]){2, 2}), ((float[]){1, 2, 3, 4})), *b = TT(((int64_t[]){2, 1}), ((float[]){5, 6}));
    Tensor *ab[2] = {a, b};
    Tensor *c = tensor_cat(ab, 2, 1);
    TT_EXPECT(c, ((int64_t[]){2, 3}), ((float[]){1, 2, 5, 3, 4, 6}), 0);
    Tensor *at = tensor_t(a), *aat[2] = {a, at}, *c0 = tensor_cat(aat, 2, -2);
    TT_EXPECT(c0, ((int64_t[]){4, 2}), ((float[]){1, 2, 3, 4, 1, 3, 2, 4}), 0);
    Tensor *empty = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){0}), *ae[2] = {a, empty}, *ce = tensor_cat(ae, 2, 0);
    tt_expect_shape(ce, 2, (int64_t[]){2, 2});
    Tensor *li = TI(((int64_t[]){2, 1}), ((int64_t[]){7, 8})), *al[2] = {a, li}, *cp = tensor_cat(al, 2, 1);
    cr_assert_eq(tensor_dtype(cp), TENSOR_FLOAT32, "cat promotes");
    Tensor *st = tensor_stack(aat, 2, 2);
    tt_expect_shape(st, 3, (int64_t[]){2, 2, 2});
    TT_EXPECT(st, ((int64_t[]){2, 2, 2}), ((float[]){1, 1, 2, 3, 3, 2, 4, 4}), 0);
    cr_assert_null(tensor_cat(ab, 2, 0));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 1 for tensor number 1 in the list.");
    cr_assert_null(tensor_cat(ab, 0, 0));
    tt_expect_error(TENSOR_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    cr_assert_null(tensor_stack(ab, 2, 0));
    tt_expect_error(TENSOR_ERR_RUNTIME, "stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [2, 1] at entry 1");
    Tensor *s0 = tensor_scalar_tensor(tensor_scalar_f(1), TENSOR_FLOAT32), *ss[2] = {s0, s0};
    cr_assert_null(tensor_cat(ss, 2, 0));
    tt_expect_error(TENSOR_ERR_RUNTIME, "zero-dimensional tensor (at position 0) cannot be concatenated");
    Tensor *r = tensor_arange_f(0, 10, 1), *parts[8];
    int n = tensor_split(r, 4, 0, parts, 8);
    cr_assert_eq(n, 3);
    TT_EXPECT(parts[2], ((int64_t[]){2}), ((float[]){8, 9}), 0);
    for (int i = 0; i < n; i++) tensor_decref(parts[i]);
    n = tensor_chunk(r, 4, 0, parts, 8);
    cr_assert_eq(n, 4, "chunk(10, 4) -> sizes 3, 3, 3, 1");
    tt_expect_shape(parts[3], 1, (int64_t[]){1});
    for (int i = 0; i < n; i++) tensor_decref(parts[i]);
    n = tensor_split_with_sizes(r, (int64_t[]){1, 9}, 2, 0, parts, 8);
    cr_assert_eq(n, 2);
    for (int i = 0; i < n; i++) tensor_decref(parts[i]);
    cr_assert_eq(tensor_split_with_sizes(r, (int64_t[]){1, 1}, 2, 0, parts, 8), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "split_with_sizes expects split_sizes to sum exactly to 10 (input tensor's size at dimension 0), but got split_sizes=[1, 1]");
    cr_assert_eq(tensor_split(r, 0, 0, parts, 8), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "split_size can only be 0 if dimension size is 0, but got dimension size of 10");
    n = tensor_unbind(a, 1, parts, 8);
    cr_assert_eq(n, 2);
    TT_EXPECT(parts[1], ((int64_t[]){2}), ((float[]){2, 4}), 0);
    for (int i = 0; i < n; i++) tensor_decref(parts[i]);
    TT_FREE(a, b, c, at, c0, empty, ce, li, cp, st, s0, r);
}

TT_TEST(shape, dims_and_negative_sizes) {
    Tensor *t = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
    cr_assert_eq(tensor_size(t, -1), 3);
    cr_assert_eq(tensor_size(t, 2), -1);
    tt_expect_error(TENSOR_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    cr_assert_null(tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){-1, 2}));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [-1, 2]");
    tensor_decref(t);
}
