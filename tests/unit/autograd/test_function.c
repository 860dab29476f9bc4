/* test_function.c — custom autograd Functions through the C API the binding uses:
 * mark_dirty (history rebased onto the custom node), mark_non_differentiable, returning an
 * input, multi-output nodes with materialised (or not) gradients, backward errors and shape
 * validation, freed saved tensors, and double backward through a custom node. */
#include "tests/support/tensor_test.h"

TestSuite(function, .init = tt_setup);

#define I(x) tensor_scalar_i(x)

static int materialized_null;

/* backward: d out_k / d x = 2 for every output k (out_k = 2x), summing defined grads */
static int two_x_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)node;
    (void)n_args;
    Tensor *acc = NULL;
    for (int k = 0; k < n_go; k++) {
        if (!go[k]) {
            materialized_null++;
            continue;
        }
        Tensor *t = ag_mul_scalar(go[k], I(2));
        if (acc) {
            Tensor *s = ag_add(acc, t);
            TT_FREE(acc, t);
            acc = s;
        } else {
            acc = t;
        }
    }
    gi[0] = acc;
    return 0;
}

static AgNode *begin(const char *name, int n, Tensor *const *args, AgFunctionBackwardFn bw) {
    AgNode *node = ag_function_new(name, n, args, (AgFunctionBackward){bw, NULL, NULL});
    cr_assert(node, "%s", tensor_error_message());
    return node;
}

TT_TEST(function, mark_dirty_rebases_history) {
    Tensor *leaf = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *x = ag_mul_scalar(leaf, I(1));
    AgNode *node = begin("DoubleInPlaceBackward", 1, &x, two_x_backward);
    bool prev = ag_set_grad_enabled(false);
    cr_assert_eq(ag_mul_scalar_(x, I(2)), 0); /* forward modifies its input */
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_mark_dirty(node, 1, &x), 0);
    Tensor *out = x;
    tensor_incref(out);
    cr_assert_eq(ag_function_set_outputs(node, 1, &out), 0);
    cr_assert_eq(out, x, "a dirty input is returned as itself");
    cr_assert_str_eq(ag_node_name(ag_grad_fn(x)), "DoubleInPlaceBackward");
    Tensor *s = ag_sum(x);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(leaf), ((int64_t[]){2}), ((float[]){2, 2}), 0);
    ag_node_decref(node);
    /* a leaf requiring grad cannot be marked dirty */
    AgNode *n2 = begin("BadBackward", 1, &leaf, two_x_backward);
    cr_assert_eq(ag_function_mark_dirty(n2, 1, &leaf), 0);
    Tensor *o2 = leaf;
    tensor_incref(o2);
    cr_assert_eq(ag_function_set_outputs(n2, 1, &o2), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "a leaf Variable that requires grad has been used in an in-place operation.");
    ag_node_decref(n2);
    TT_FREE(leaf, x, out, s, o2);
}

TT_TEST(function, returning_an_input_and_non_differentiable_outputs) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    AgNode *node = begin("IdentityBackward", 1, &x, two_x_backward);
    Tensor *outs[2] = {x, NULL};
    tensor_incref(x);
    bool prev = ag_set_grad_enabled(false);
    outs[1] = ag_mul_scalar(x, I(3));
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_mark_non_differentiable(node, 1, &outs[1]), 0);
    cr_assert_eq(ag_function_set_outputs(node, 2, outs), 0);
    cr_assert_neq(outs[0], x, "an input returned unchanged comes back as a new view");
    cr_assert(tensor_is_view(outs[0]) && tensor_same_storage(outs[0], x));
    cr_assert_eq(ag_grad_fn(outs[0]), node);
    cr_assert(!ag_requires_grad(outs[1]), "non-differentiable output");
    Tensor *s = ag_sum(outs[0]);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){2, 2}), 0);
    cr_assert_eq(materialized_null, 0, "the unused output's gradient was materialised as zeros");
    ag_node_decref(node);
    TT_FREE(x, outs[0], outs[1], s);
}

static AgNode *two_output_fn(Tensor *x, bool materialize, Tensor **outs) {
    AgNode *node = begin("TwoBackward", 1, &x, two_x_backward);
    ag_function_set_materialize_grads(node, materialize);
    bool prev = ag_set_grad_enabled(false);
    outs[0] = ag_mul_scalar(x, I(2));
    outs[1] = ag_mul_scalar(x, I(2));
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_set_outputs(node, 2, outs), 0);
    return node;
}

TT_TEST(function, multi_output_and_materialize_grads) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *outs[2];
    AgNode *node = two_output_fn(x, true, outs);
    cr_assert_eq(ag_output_nr(outs[1]), 1);
    Tensor *s = ag_sum(outs[1]);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){2, 2}), 0);
    cr_assert_eq(materialized_null, 0);
    ag_node_decref(node);
    TT_FREE(outs[0], outs[1], s);
    node = two_output_fn(x, false, outs);
    s = ag_sum(outs[0]);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(materialized_null, 1, "without materialisation the unused gradient is None");
    ag_node_decref(node);
    TT_FREE(x, outs[0], outs[1], s);
}

static int bad_nontensor_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)node;
    (void)n_go;
    (void)n_args;
    tensor_incref(go[0]);
    gi[0] = go[0];
    gi[1] = tensor_zeros(TENSOR_FLOAT32, 0, NULL); /* argument 1 is not a tensor */
    return 0;
}
static int bad_shape_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)node;
    (void)n_go;
    (void)go;
    (void)n_args;
    gi[0] = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){5});
    return 0;
}
static int failing_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)node;
    (void)n_go;
    (void)go;
    (void)n_args;
    (void)gi;
    return -1;
}

static void run_custom(Tensor *x, int n_args, AgFunctionBackwardFn bw, int expect) {
    Tensor *args[2] = {x, NULL};
    AgNode *node = begin("MyBackward", n_args, args, bw);
    bool prev = ag_set_grad_enabled(false);
    Tensor *out = ag_mul_scalar(x, I(2));
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_set_outputs(node, 1, &out), 0);
    Tensor *s = ag_sum(out);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), expect);
    ag_node_decref(node);
    TT_FREE(out, s);
}

TT_TEST(function, backward_errors) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    run_custom(x, 2, bad_nontensor_backward, -1);
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "function MyBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable");
    run_custom(x, 1, bad_shape_backward, -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "Function MyBackward returned an invalid gradient at index 0 - got [5] but expected shape compatible with [3]");
    run_custom(x, 1, failing_backward, -1);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    cr_assert_null(ag_grad_of(x));
    tensor_decref(x);
}

static int cube_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)n_go;
    (void)n_args;
    Tensor *t;
    if (ag_function_saved_tensors(node, &t) < 0) return -1;
    Tensor *t2 = ag_mul(t, t), *t3 = ag_mul_scalar(t2, I(3));
    gi[0] = ag_mul(go[0], t3);
    TT_FREE(t, t2, t3);
    return 0;
}

TT_TEST(function, saved_tensors_lifecycle_and_double_backward) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1.5, -2}));
    AgNode *node = begin("CubeBackward", 1, &x, cube_backward);
    bool prev = ag_set_grad_enabled(false);
    Tensor *x2 = ag_mul(x, x), *out = ag_mul(x2, x);
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_set_outputs(node, 1, &out), 0);
    cr_assert_eq(ag_function_save_for_backward(node, 1, &x), 0);
    cr_assert_eq(ag_function_num_saved(node), 1);
    Tensor *s = ag_sum(out), *g1, *g2;
    cr_assert_eq(ag_grad(1, &s, NULL, 1, &x, false, true, false, &g1), 0);
    TT_EXPECT(g1, ((int64_t[]){2}), ((float[]){6.75, 12}), 1e-6);
    Tensor *g1s = ag_sum(g1);
    cr_assert_eq(ag_grad(1, &g1s, NULL, 1, &x, false, false, false, &g2), 0);
    TT_EXPECT(g2, ((int64_t[]){2}), ((float[]){9, -12}), 1e-6);
    Tensor *sv;
    cr_assert_eq(ag_function_saved_tensors(node, &sv), -1, "freed by the backward without retain_graph");
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "Trying to backward through the graph a second time");
    ag_node_decref(node);
    TT_FREE(x, x2, out, s, g1, g1s, g2);
}
