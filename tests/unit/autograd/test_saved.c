/* test_saved.c — saved variables and saved-tensor hooks: pack/unpack call counts and order,
 * packed objects that are not tensors, the innermost pair winning, release of packed objects
 * and of the pair after backward, skipped version checks with hooks, the identity (grad_fn,
 * requires_grad) of unpacked tensors under create_graph, pack-hook misuse, and errors. */
#include "tests/support/tensor_test.h"

TestSuite(saved, .init = tt_setup);

#define I(x) tensor_scalar_i(x)

typedef struct Box {
    int tag;
    Tensor *t;
} Box;

static int packs, unpacks, box_frees, pair_releases;

static void box_free(void *obj) {
    Box *b = obj;
    tensor_decref(b->t);
    free(b);
    box_frees++;
}

/* packs into a non-tensor object (as save_on_cpu packs (device, tensor) tuples) */
static int pack_box(void *ctx, Tensor *t, AgPacked *out) {
    Box *b = malloc(sizeof *b);
    b->tag = *(int *)ctx;
    b->t = tensor_clone(t);
    out->obj = b;
    out->release = box_free;
    packs++;
    return 0;
}

static Tensor *unpack_box(void *ctx, void *obj) {
    Box *b = obj;
    cr_assert_eq(b->tag, *(int *)ctx, "unpacked by the pair that packed it");
    unpacks++;
    tensor_incref(b->t);
    return b->t;
}

static void pair_release(void *ctx) {
    (void)ctx;
    pair_releases++;
}

TT_TEST(saved, packed_objects_counts_and_release) {
    int outer_tag = 1, inner_tag = 2;
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){pack_box, unpack_box, &outer_tag, pair_release}), 0);
    Tensor *y = ag_mul(x, x); /* packs x twice (outer) */
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){pack_box, unpack_box, &inner_tag, pair_release}), 0);
    cr_assert_eq(ag_saved_tensors_hooks_depth(), 2);
    Tensor *z = ag_exp(y); /* packs its output (inner wins) */
    ag_saved_tensors_hooks_pop();
    ag_saved_tensors_hooks_pop();
    cr_assert_eq(packs, 3);
    cr_assert_eq(pair_releases, 0);
    Tensor *s = ag_sum(z);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(unpacks, 3);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(unpacks, 6, "unpacked again on every backward");
    cr_assert_eq(box_frees, 3, "packed objects are released by a backward without retain_graph");
    cr_assert_eq(pair_releases, 2, "each pair is released once no saved variable uses it");
    /* d/dx exp(x^2) = 2x exp(x^2), accumulated by both backwards */
    for (int64_t i = 0; i < 3; i++) {
        double v = tensor_get_f64(x, &i);
        cr_assert_float_eq(tensor_get_f64(ag_grad_of(x), &i), 4 * v * exp(v * v), 1e-5 * exp(v * v));
    }
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Trying to backward through the graph a second time");
    TT_FREE(x, y, z, s);
}

static int pack_same(void *ctx, Tensor *t, AgPacked *out) {
    (void)ctx;
    tensor_incref(t);
    out->obj = t;
    out->release = (void (*)(void *))tensor_decref;
    return 0;
}
static Tensor *unpack_same(void *ctx, void *obj) {
    (void)ctx;
    tensor_incref(obj);
    return obj;
}

TT_TEST(saved, hooks_skip_version_checks_and_keep_identity) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *a = ag_mul_scalar(x, I(1));
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){pack_same, unpack_same, NULL, NULL}), 0);
    Tensor *b = ag_mul(a, a);
    ag_saved_tensors_hooks_pop();
    cr_assert_eq(ag_add_scalar_(a, I(1)), 0);
    Tensor *s = ag_sum(b), *g;
    /* PyTorch skips the version check when hooks packed the tensor: the modified value is used */
    cr_assert_eq(ag_grad(1, &s, NULL, 1, &x, true, false, false, &g), 0);
    TT_EXPECT(g, ((int64_t[]){2}), ((float[]){4, 6}), 0);
    tensor_decref(g);
    /* create_graph: unpacked tensors carry their grad_fn, so the second derivative flows */
    Tensor *y = TTG(((int64_t[]){2}), ((float[]){1.5, -2}));
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){pack_same, unpack_same, NULL, NULL}), 0);
    Tensor *y2 = ag_mul(y, y), *y3 = ag_mul(y2, y), *ys = ag_sum(y3);
    ag_saved_tensors_hooks_pop();
    Tensor *g1, *g2;
    cr_assert_eq(ag_grad(1, &ys, NULL, 1, &y, true, true, false, &g1), 0);
    Tensor *g1s = ag_sum(g1);
    cr_assert_eq(ag_grad(1, &g1s, NULL, 1, &y, false, false, false, &g2), 0);
    TT_EXPECT(g2, ((int64_t[]){2}), ((float[]){9, -12}), 1e-6);
    TT_FREE(x, a, b, s, y, y2, y3, ys, g1, g1s, g2);
}

static int mutating_pack(void *ctx, Tensor *t, AgPacked *out) {
    (void)ctx;
    if (tensor_mul_scalar_(t, I(2)) < 0) return -1;
    out->obj = NULL;
    out->release = NULL;
    return 0;
}
static int failing_pack(void *ctx, Tensor *t, AgPacked *out) {
    (void)ctx;
    (void)t;
    (void)out;
    return -1;
}

TT_TEST(saved, pack_hook_errors) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *a = ag_mul_scalar(x, I(1));
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){mutating_pack, unpack_same, NULL, NULL}), 0);
    cr_assert_null(ag_exp(a));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "A saved tensor pack hook is modifying its input in place.");
    ag_saved_tensors_hooks_pop();
    cr_assert_eq(ag_saved_tensors_hooks_push((AgSavedTensorHooks){failing_pack, unpack_same, NULL, NULL}), 0);
    cr_assert_null(ag_exp(a));
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    ag_saved_tensors_hooks_pop();
    TT_FREE(x, a);
}

TT_TEST(saved, version_error_names_the_node) {
    Tensor *x = TTG(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *e = ag_exp(x);
    cr_assert_eq(ag_add_scalar_(e, I(1)), 0);
    Tensor *s = ag_sum(e);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    "[torch.FloatTensor [2, 3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 "
                    "instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                    "with torch.autograd.set_detect_anomaly(True).");
    /* a modified leaf has no grad_fn to name */
    Tensor *w = TTG(((int64_t[]){3}), ((float[]){1, 2, 3})), *k = TTG(((int64_t[]){3}), ((float[]){1, 1, 1}));
    Tensor *m = ag_mul(w, k), *ms = ag_sum(m);
    bool prev = ag_set_grad_enabled(false);
    cr_assert_eq(ag_mul_scalar_(w, I(2)), 0);
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_backward(1, &ms, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "[torch.FloatTensor [3]] is at version 1; expected version 0 instead.");
    TT_FREE(x, e, s, w, k, m, ms);
}
