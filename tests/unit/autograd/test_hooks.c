/* test_hooks.c — hook semantics beyond the conformance ports: PyTorch's order (tensor pre-hooks,
 * retains_grad, node pre-hooks, node post-hooks), replacement of gradients by node hooks,
 * hooks on AccumulateGrad, post-accumulate-grad hooks, retain_grad, removal from inside a hook,
 * release of hook contexts when their owner dies, and hooks across in-place rebasing. */
#include "tests/support/tensor_test.h"

TestSuite(hooks, .init = tt_setup);

#define I(x) tensor_scalar_i(x)

static char trace[512];

static int t_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    strcat(trace, (const char *)ctx);
    *rep = NULL;
    return 0;
}
static int pre_hook(void *ctx, AgNode *node, int n, Tensor **g) {
    (void)n;
    (void)g;
    strcat(trace, (const char *)ctx);
    cr_assert_eq(ag_current_node(), node);
    return 0;
}
static int post_hook(void *ctx, AgNode *node, int n_in, Tensor **gi, int n_out, Tensor *const *go) {
    (void)node;
    (void)n_in;
    (void)gi;
    (void)n_out;
    (void)go;
    strcat(trace, (const char *)ctx);
    return 0;
}

TT_TEST(hooks, order_within_a_node) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *y = ag_mul_scalar(x, I(2)), *s = ag_sum(y);
    AgNode *fn = ag_grad_fn(y);
    cr_assert_eq(ag_node_register_hook(fn, (AgNodePostHook){post_hook, "post;", NULL}, NULL), 0);
    cr_assert_eq(ag_node_register_prehook(fn, (AgNodePreHook){pre_hook, "pre;", NULL}, NULL), 0);
    cr_assert_eq(ag_retain_grad(y), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){t_hook, "tensor;", NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(trace, "tensor;pre;post;");
    TT_EXPECT(ag_grad_of(y), ((int64_t[]){2}), ((float[]){1, 1}), 0);
    TT_FREE(x, y, s);
}

static int double_pre(void *ctx, AgNode *node, int n, Tensor **g) {
    (void)ctx;
    (void)node;
    for (int i = 0; i < n; i++) {
        Tensor *d = tensor_mul_scalar(g[i], I(2));
        tensor_decref(g[i]);
        g[i] = d;
    }
    return 0;
}
static int negate_post(void *ctx, AgNode *node, int n_in, Tensor **gi, int n_out, Tensor *const *go) {
    (void)ctx;
    (void)node;
    (void)n_out;
    cr_assert(go[0]);
    for (int i = 0; i < n_in; i++) {
        if (!gi[i]) continue;
        Tensor *d = tensor_neg(gi[i]);
        tensor_decref(gi[i]);
        gi[i] = d;
    }
    return 0;
}

TT_TEST(hooks, node_hooks_replace_gradients) {
    /* the seed-003 docstring examples: b = a.clone(); prehook doubles; hook uses gO*2 */
    Tensor *a = TTG(((int64_t[]){3}), ((float[]){0, 0, 0}));
    Tensor *b = ag_clone(a), *s = ag_sum(b);
    AgHookHandle h;
    cr_assert_eq(ag_node_register_prehook(ag_grad_fn(b), (AgNodePreHook){double_pre, NULL, NULL}, &h), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){3}), ((float[]){2, 2, 2}), 0);
    cr_assert(ag_hook_remove(h));
    cr_assert_eq(ag_set_grad(a, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){3}), ((float[]){1, 1, 1}), 0);
    cr_assert_eq(ag_node_register_hook(ag_grad_fn(b), (AgNodePostHook){negate_post, NULL, NULL}, &h), 0);
    cr_assert_eq(ag_set_grad(a, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){3}), ((float[]){-1, -1, -1}), 0);
    TT_FREE(a, b, s);
}

static int post_acc_count;
static int post_acc(void *ctx, Tensor *leaf) {
    cr_assert_eq(leaf, ctx);
    cr_assert(ag_grad_of(leaf), "runs after .grad is set");
    post_acc_count++;
    return 0;
}

TT_TEST(hooks, accumulate_grad_hooks) {
    Tensor *w = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *y = ag_mul(w, w), *s = ag_sum(y);
    uint32_t nr;
    AgNode *acc = ag_node_next(ag_grad_fn(y), 0, &nr);
    cr_assert_eq(ag_node_register_prehook(acc, (AgNodePreHook){pre_hook, "accpre;", NULL}, NULL), 0);
    cr_assert_eq(ag_node_register_hook(acc, (AgNodePostHook){post_hook, "accpost;", NULL}, NULL), 0);
    cr_assert_eq(ag_tensor_register_hook(w, (AgTensorHook){t_hook, "leaf;", NULL}, NULL), 0);
    AgHookHandle h;
    cr_assert_eq(ag_tensor_register_post_accumulate_grad_hook(w, (AgPostAccumulateHook){post_acc, w, NULL}, &h), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(trace, "leaf;accpre;accpost;", "the leaf's hooks are the accumulator's tensor pre-hooks");
    cr_assert_eq(post_acc_count, 1);
    cr_assert_eq(ag_tensor_register_post_accumulate_grad_hook(y, (AgPostAccumulateHook){post_acc, y, NULL}, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "post accumulate grad hooks cannot be registered on non-leaf tensors");
    TT_FREE(w, y, s);
}

static AgHookHandle self_handle;
static int removes_itself(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    *rep = NULL;
    strcat(trace, (const char *)ctx);
    cr_assert(ag_hook_remove(self_handle));
    return 0;
}
static int released_ctx;
static void count_release(void *ctx) {
    (void)ctx;
    released_ctx++;
}

TT_TEST(hooks, removal_inside_a_hook_and_release_on_owner_death) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *y = ag_mul_scalar(x, I(3));
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){removes_itself, "once;", count_release}, &self_handle), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){t_hook, "after;", count_release}, NULL), 0);
    Tensor *s = ag_sum(y);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(released_ctx, 1, "released once the running call returned");
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(trace, "once;after;after;");
    /* node hooks and tensor hooks are released with their owners */
    AgNode *fn = ag_grad_fn(y);
    cr_assert_eq(ag_node_register_prehook(fn, (AgNodePreHook){pre_hook, "", count_release}, NULL), 0);
    Tensor *leaf = TTG(((int64_t[]){1}), ((float[]){1}));
    AgHookHandle h;
    cr_assert_eq(ag_tensor_register_hook(leaf, (AgTensorHook){t_hook, "", count_release}, &h), 0);
    TT_FREE(x, y, s);
    cr_assert_eq(released_ctx, 3, "the second tensor hook and the node pre-hook");
    tensor_decref(leaf);
    cr_assert_eq(released_ctx, 4);
    cr_assert(!ag_hook_remove(h), "a handle to a freed hook is inert");
}

TT_TEST(hooks, retain_grad_and_inplace_rebasing) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *y = ag_mul_scalar(x, I(2));
    cr_assert_eq(ag_retain_grad(y), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){t_hook, "old;", NULL}, NULL), 0);
    AgNode *old_fn = ag_grad_fn(y);
    cr_assert_eq(ag_mul_scalar_(y, I(5)), 0);
    cr_assert_neq(ag_grad_fn(y), old_fn);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){t_hook, "new;", NULL}, NULL), 0);
    Tensor *s = ag_sum(y);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    /* the old hook sees the gradient of the pre-mul value, the new one of y */
    cr_assert_str_eq(trace, "new;old;");
    TT_EXPECT(ag_grad_of(y), ((int64_t[]){2}), ((float[]){1, 1}), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){10, 10}), 0);
    cr_assert(ag_retains_grad(y));
    Tensor *plain = TT(((int64_t[]){1}), ((float[]){1}));
    cr_assert_eq(ag_retain_grad(plain), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    cr_assert_eq(ag_retain_grad(x), 0, "no-op on leaves");
    TT_FREE(x, y, s, plain);
}

static int wrong_shape(void *ctx, Tensor *g, Tensor **rep) {
    (void)ctx;
    (void)g;
    *rep = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){5});
    return 0;
}

TT_TEST(hooks, tensor_hook_must_keep_shape) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *y = ag_mul_scalar(x, I(2)), *s = ag_sum(y);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){wrong_shape, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "hook has changed the size of value");
    TT_FREE(x, y, s);
}

TT_TEST(hooks, node_identity_and_metadata) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *y = ag_mul(x, x), *z = ag_mul(x, x);
    uint32_t nr;
    AgNode *a1 = ag_node_next(ag_grad_fn(y), 0, &nr), *a2 = ag_node_next(ag_grad_fn(z), 1, &nr);
    cr_assert_eq(a1, a2, "one AccumulateGrad per leaf while the graph holds it");
    cr_assert_eq(ag_node_sequence_nr(a1), UINT64_MAX);
    cr_assert_lt(ag_node_sequence_nr(ag_grad_fn(y)), ag_node_sequence_nr(ag_grad_fn(z)));
    int wrapper;
    ag_node_set_user_obj(ag_grad_fn(y), &wrapper);
    cr_assert_eq(ag_node_user_obj(ag_grad_fn(y)), &wrapper);
    ag_node_set_metadata(ag_grad_fn(y), strdup("meta"), free);
    cr_assert_str_eq(ag_node_metadata(ag_grad_fn(y)), "meta");
    cr_assert_eq(ag_node_op(ag_grad_fn(y)), TENSOR_OP_MUL);
    cr_assert_eq(ag_node_num_inputs(ag_grad_fn(y)), 1);
    uint32_t out_nr;
    AgNode *edge = ag_gradient_edge(x, &out_nr);
    cr_assert_eq(edge, a1);
    ag_node_decref(edge);
    TT_FREE(y, z);
    /* the graph is gone: a new accumulator is created on demand */
    AgNode *fresh = ag_gradient_edge(x, &out_nr);
    cr_assert_str_eq(ag_node_name(fresh), "torch::autograd::AccumulateGrad");
    ag_node_decref(fresh);
    Tensor *c = TT(((int64_t[]){1}), ((float[]){1}));
    cr_assert_null(ag_gradient_edge(c, &out_nr));
    tt_expect_error(TENSOR_ERR_RUNTIME, "It is not possible to get the gradient edge for a Tensor that does not require gradients");
    TT_FREE(x, c);
}
