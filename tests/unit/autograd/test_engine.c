/* test_engine.c — the backward engine: autograd.grad (grad_outputs, allow_unused,
 * create_graph), backward(inputs=), multiple roots, graph-task ids and
 * will_engine_execute_node, re-entrant backward from a hook, final callbacks, execution order,
 * clean failure when a callback fails, release of saved tensors, and very deep graphs. */
#include "tests/support/tensor_test.h"

TestSuite(engine, .init = tt_setup);

#define F(x) tensor_scalar_f(x)
#define I(x) tensor_scalar_i(x)

TT_TEST(engine, grad_basics_and_errors) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *w = TTG(((int64_t[]){3}), ((float[]){0.5, -1, 2}));
    Tensor *unused = TTG(((int64_t[]){1}), ((float[]){1}));
    Tensor *y = ag_mul(x, w), *l = ag_sum(y);
    Tensor *in2[2] = {x, w}, *g[3];
    cr_assert_eq(ag_grad(1, &l, NULL, 2, in2, true, false, false, g), 0);
    TT_EXPECT(g[0], ((int64_t[]){3}), ((float[]){0.5, -1, 2}), 0);
    TT_EXPECT(g[1], ((int64_t[]){3}), ((float[]){1, 2, 3}), 0);
    cr_assert_null(ag_grad_of(x), "grad() does not accumulate");
    TT_FREE(g[0], g[1]);
    Tensor *in3[3] = {x, w, unused};
    cr_assert_eq(ag_grad(1, &l, NULL, 3, in3, true, false, false, g), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
    cr_assert_eq(ag_grad(1, &l, NULL, 3, in3, true, false, true, g), 0);
    cr_assert_null(g[2]);
    TT_FREE(g[0], g[1]);
    Tensor *plain = TT(((int64_t[]){1}), ((float[]){1}));
    cr_assert_eq(ag_grad(1, &l, NULL, 1, &plain, true, false, true, g), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "One of the differentiated Tensors does not require grad");
    /* grad_outputs and the gradient of a non-leaf */
    Tensor *go = TT(((int64_t[]){3}), ((float[]){1, 10, 100}));
    cr_assert_eq(ag_grad(1, &y, &go, 1, &w, true, false, false, g), 0);
    TT_EXPECT(g[0], ((int64_t[]){3}), ((float[]){1, 20, 300}), 0);
    tensor_decref(g[0]);
    Tensor *z = ag_exp(y), *zs = ag_sum(z);
    cr_assert_eq(ag_grad(1, &zs, NULL, 1, &y, true, false, false, g), 0);
    cr_assert(tensor_equal(g[0], z), "d sum(exp(y)) / dy = exp(y)");
    tensor_decref(g[0]);
    Tensor *bad = TT(((int64_t[]){2}), ((float[]){1, 1}));
    cr_assert_eq(ag_grad(1, &y, &bad, 1, &w, true, false, false, g), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([3]).");
    TT_FREE(x, w, unused, y, l, plain, go, z, zs, bad);
}

TT_TEST(engine, create_graph_second_derivative) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1.5, -2}));
    Tensor *x3 = ag_pow_scalar(x, I(3)), *s = ag_sum(x3), *g1, *g2;
    cr_assert_eq(ag_grad(1, &s, NULL, 1, &x, true, true, false, &g1), 0);
    TT_EXPECT(g1, ((int64_t[]){2}), ((float[]){6.75, 12}), 1e-6); /* 3x^2 */
    cr_assert(ag_requires_grad(g1), "create_graph records the backward");
    Tensor *gs = ag_sum(g1);
    cr_assert_eq(ag_grad(1, &gs, NULL, 1, &x, false, false, false, &g2), 0);
    TT_EXPECT(g2, ((int64_t[]){2}), ((float[]){9, -12}), 1e-6); /* 6x */
    /* backward(create_graph) accumulates a differentiable .grad */
    Tensor *y = ag_mul(x, x), *ys = ag_sum(y);
    cr_assert_eq(ag_backward(1, &ys, NULL, false, true, 0, NULL), 0);
    cr_assert(ag_requires_grad(ag_grad_of(x)));
    /* .grad holds a graph that holds x (the reference cycle PyTorch warns about): break it */
    cr_assert_eq(ag_set_grad(x, NULL), 0);
    TT_FREE(x, x3, s, g1, g2, gs, y, ys);
}

TT_TEST(engine, backward_inputs_restricts_accumulation) {
    Tensor *a = TTG(((int64_t[]){2}), ((float[]){1, 2})), *b = TTG(((int64_t[]){2}), ((float[]){3, 4}));
    Tensor *h = ag_mul(a, b), *l = ag_sum(h);
    cr_assert_eq(ag_backward(1, &l, NULL, true, false, 1, &a), 0);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2}), ((float[]){3, 4}), 0);
    cr_assert_null(ag_grad_of(b));
    cr_assert_eq(ag_backward(1, &l, NULL, true, false, 1, &h), 0);
    cr_assert(ag_retains_grad(h), "a non-leaf in inputs= retains its grad");
    TT_EXPECT(ag_grad_of(h), ((int64_t[]){2}), ((float[]){1, 1}), 0);
    cr_assert_null(ag_grad_of(b));
    Tensor *none[1] = {NULL};
    cr_assert_eq(ag_backward(1, &l, NULL, true, false, 0, none), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
    TT_FREE(a, b, h, l);
}

TT_TEST(engine, multiple_roots) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *y1 = ag_mul_scalar(x, I(2)), *y2 = ag_mul(x, x);
    Tensor *roots[2] = {y1, y2};
    Tensor *g1 = TT(((int64_t[]){2}), ((float[]){1, 1})), *g2 = TT(((int64_t[]){2}), ((float[]){1, -1}));
    Tensor *grads[2] = {g1, g2};
    cr_assert_eq(ag_backward(2, roots, grads, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){4, -2}), 0);
    TT_FREE(x, y1, y2, g1, g2);
}

/* ---- graph tasks, will_engine_execute_node, reentrancy ------------------------------------------ */

static int64_t seen_ids[8];
static int n_ids;
static AgNode *probe_nodes[4];
static bool probe_result[4];
static Tensor *reentrant_out;

static int id_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)ctx;
    (void)g;
    *rep = NULL;
    seen_ids[n_ids++] = ag_current_graph_task_id();
    for (int i = 0; i < 4 && probe_nodes[i]; i++)
        if (ag_will_engine_execute_node(probe_nodes[i], &probe_result[i]) < 0) return -1;
    return 0;
}

static int reentrant_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    *rep = NULL;
    int64_t outer = ag_current_graph_task_id();
    Tensor *x = ctx, *gx;
    /* hooks run with the task's grad mode (off without create_graph): enable_grad(), as
     * checkpointing does */
    bool prev = ag_set_grad_enabled(true);
    Tensor *y = ag_mul(x, x), *s = ag_sum(y);
    ag_set_grad_enabled(prev);
    if (ag_tensor_register_hook(y, (AgTensorHook){id_hook, NULL, NULL}, NULL) < 0) return -1; /* sees the inner id */
    int rc = ag_grad(1, &s, NULL, 1, &x, false, false, false, &gx);
    TT_FREE(y, s);
    if (rc < 0) return -1;
    cr_assert_eq(ag_current_graph_task_id(), outer);
    seen_ids[n_ids++] = outer;
    reentrant_out = gx;
    return 0;
}

TT_TEST(engine, graph_task_ids_and_will_execute) {
    cr_assert_eq(ag_current_graph_task_id(), -1);
    Tensor *a = TTG(((int64_t[]){2}), ((float[]){1, 2})), *b = TTG(((int64_t[]){2}), ((float[]){3, 4}));
    Tensor *c = ag_mul(a, b), *d = ag_add(a, b), *cs = ag_sum(c);
    uint32_t nr;
    probe_nodes[0] = ag_grad_fn(c);
    probe_nodes[1] = ag_grad_fn(d);                  /* not part of cs's graph */
    probe_nodes[2] = ag_node_next(ag_grad_fn(c), 1, &nr); /* b's AccumulateGrad */
    bool out;
    cr_assert_eq(ag_will_engine_execute_node(probe_nodes[0], &out), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "_get_should_execute_nodes should only be called during the backward pass");
    cr_assert_eq(ag_tensor_register_hook(c, (AgTensorHook){id_hook, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &cs, NULL, true, false, 0, NULL), 0);
    cr_assert(probe_result[0] && !probe_result[1] && probe_result[2]);
    cr_assert_eq(ag_backward(1, &cs, NULL, true, false, 1, &a), 0);
    cr_assert(probe_result[0] && !probe_result[1] && !probe_result[2], "with inputs=(a,), b's accumulator is not executed");
    cr_assert_eq(n_ids, 2);
    cr_assert(seen_ids[0] >= 0 && seen_ids[1] > seen_ids[0]);
    cr_assert_eq(ag_current_graph_task_id(), -1);
    /* a backward run from inside a hook gets its own task; the outer id is restored */
    n_ids = 0;
    memset(probe_nodes, 0, sizeof probe_nodes);
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){5, 6}));
    Tensor *e = ag_mul_scalar(a, I(2)), *es = ag_sum(e);
    cr_assert_eq(ag_tensor_register_hook(e, (AgTensorHook){reentrant_hook, x, NULL}, NULL), 0);
    cr_assert_eq(ag_tensor_register_hook(e, (AgTensorHook){id_hook, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &es, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(reentrant_out, ((int64_t[]){2}), ((float[]){10, 12}), 0);
    cr_assert_neq(seen_ids[0], seen_ids[1]);
    cr_assert_eq(seen_ids[2], seen_ids[1], "outer task id restored after the nested backward");
    TT_FREE(a, b, c, d, cs, x, e, es, reentrant_out);
}

/* ---- callbacks -------------------------------------------------------------------------------------- */

static char order[256];
static int cb_releases;
static void cb_release(void *ctx) {
    (void)ctx;
    cb_releases++;
}
static int cb_append(void *ctx) {
    strcat(order, (const char *)ctx);
    cr_assert_neq(ag_current_graph_task_id(), -1, "final callbacks run inside the graph task");
    return 0;
}
static int cb_chain(void *ctx) {
    strcat(order, (const char *)ctx);
    return ag_queue_callback((AgCallback){cb_append, "[late]", cb_release});
}
static int cb_fail(void *ctx) {
    (void)ctx;
    return -1;
}
static int queue_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    (void)ctx;
    *rep = NULL;
    strcat(order, "hook;");
    if (ag_queue_callback((AgCallback){cb_append, "A;", cb_release}) < 0) return -1;
    if (ag_queue_callback((AgCallback){cb_chain, "B;", cb_release}) < 0) return -1;
    return ag_queue_callback((AgCallback){cb_append, "C;", cb_release});
}
static int failing_queue_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    (void)ctx;
    *rep = NULL;
    if (ag_queue_callback((AgCallback){cb_fail, NULL, cb_release}) < 0) return -1;
    return ag_queue_callback((AgCallback){cb_append, "never;", cb_release});
}

TT_TEST(engine, final_callbacks_fifo) {
    cr_assert_eq(ag_queue_callback((AgCallback){cb_append, "x", cb_release}), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "Final callbacks can only be installed during backward pass.");
    cr_assert_eq(cb_releases, 1, "a refused callback is released");
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *y = ag_mul_scalar(x, I(2)), *s = ag_sum(y);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){queue_hook, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    cr_assert_str_eq(order, "hook;A;B;C;[late]");
    cr_assert_eq(cb_releases, 5);
    Tensor *y2 = ag_mul_scalar(x, I(3)), *s2 = ag_sum(y2);
    cr_assert_eq(ag_tensor_register_hook(y2, (AgTensorHook){failing_queue_hook, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s2, NULL, false, false, 0, NULL), -1);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    cr_assert_eq(cb_releases, 7, "the failed and the skipped callbacks are both released");
    cr_assert(!strstr(order, "never"));
    cr_assert_eq(ag_current_graph_task_id(), -1);
    TT_FREE(x, y, s, y2, s2);
}

/* ---- failures stop cleanly ---------------------------------------------------------------------------- */

static int failing_hook(void *ctx, Tensor *g, Tensor **rep) {
    (void)ctx;
    (void)g;
    *rep = NULL;
    return -1;
}

TT_TEST(engine, failing_hook_stops_the_task_without_leaks) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = ag_exp(x), *z = ag_mul(y, y), *s = ag_sum(z);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){failing_hook, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), -1);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    cr_assert_null(ag_grad_of(x));
    cr_assert_eq(ag_current_graph_task_id(), -1);
    cr_assert(ag_is_grad_enabled(), "grad mode restored");
    TT_FREE(x, y, z, s);
}

/* ---- order, saved-tensor release, deep graphs ------------------------------------------------------- */

static int order_prehook(void *ctx, AgNode *node, int n, Tensor **g) {
    (void)node;
    (void)n;
    (void)g;
    strcat(order, (const char *)ctx);
    return 0;
}

TT_TEST(engine, ready_queue_runs_later_nodes_first) {
    /* two independent branches: the one recorded later (higher sequence number) runs first */
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *a = ag_exp(x), *b = ag_unary(TENSOR_OP_SIN, x), *c = ag_add(a, b), *s = ag_sum(c);
    cr_assert_eq(ag_node_register_prehook(ag_grad_fn(a), (AgNodePreHook){order_prehook, "exp;", NULL}, NULL), 0);
    cr_assert_eq(ag_node_register_prehook(ag_grad_fn(b), (AgNodePreHook){order_prehook, "sin;", NULL}, NULL), 0);
    uint32_t nr;
    AgNode *acc = ag_node_next(ag_grad_fn(a), 0, &nr);
    cr_assert_eq(ag_node_register_prehook(acc, (AgNodePreHook){order_prehook, "acc;", NULL}, NULL), 0);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(order, "sin;exp;acc;");
    TT_FREE(x, a, b, c, s);
}

TT_TEST(engine, saved_tensors_are_released_after_backward) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3})), *w = TTG(((int64_t[]){3}), ((float[]){1, 1, 1}));
    Tensor *y = ag_mul(x, w), *e = ag_exp(y), *s = ag_sum(e);
    /* the test, x's AccumulateGrad and MulBackward0's saved x */
    cr_assert_eq(tensor_refcount(x), 3);
    cr_assert_eq(ag_backward(1, &s, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(tensor_refcount(x), 3, "retain_graph keeps the saved tensors");
    int64_t live = tensor_live_count();
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(tensor_refcount(x), 2, "released by a backward without retain_graph");
    cr_assert_eq(tensor_refcount(w), 2);
    cr_assert_eq(tensor_live_count(), live - 1, "exp's saved alias of its output is freed as well");
    TT_FREE(y, e, s);
    cr_assert_eq(tensor_refcount(x), 1, "the graph is gone, only .grad-holding x remains");
    TT_FREE(x, w);
}

TT_TEST(engine, very_deep_graph) {
    Tensor *x = TTG(((int64_t[]){1}), ((float[]){1}));
    Tensor *y = x;
    tensor_incref(y);
    for (int i = 0; i < 200000; i++) {
        Tensor *z = ag_add_scalar(y, F(0.0));
        tensor_decref(y);
        y = z;
    }
    cr_assert_eq(ag_backward(1, &y, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){1}), ((float[]){1}), 0);
    tensor_decref(y); /* frees 200000 nodes iteratively */
    tensor_decref(x);
}

TT_TEST(engine, rules_with_special_cases) {
    /* embedding: rows at padding_idx get no gradient */
    Tensor *w = TTG(((int64_t[]){3, 2}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *idx = TI(((int64_t[]){3}), ((int64_t[]){2, 0, 2}));
    Tensor *in[2] = {w, idx};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.padding_idx = 2;
    Tensor *e = ag_op1(TENSOR_OP_EMBEDDING, in, 2, &a), *es = ag_sum(e);
    cr_assert_eq(ag_backward(1, &es, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){3, 2}), ((float[]){1, 1, 0, 0, 0, 0}), 0);
    /* dropout: the gradient is the mask the forward drew */
    Tensor *x = tt_grad(tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){1000}));
    Tensor *d = ag_dropout(x, 0.5, true), *ds = ag_sum(d);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(d)), "NativeDropoutBackward0");
    cr_assert_eq(ag_backward(1, &ds, NULL, false, false, 0, NULL), 0);
    cr_assert(tensor_equal(ag_grad_of(x), d), "grad = mask / (1 - p) = output for ones");
    /* max over all elements shares the gradient between ties */
    Tensor *t = TTG(((int64_t[]){4}), ((float[]){1, 3, 3, 2}));
    Tensor *m = ag_unary(TENSOR_OP_MAX, t);
    cr_assert_eq(ag_backward(1, &m, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(t), ((int64_t[]){4}), ((float[]){0, 0.5, 0.5, 0}), 0);
    /* .grad assignment checks */
    Tensor *bad = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){3});
    cr_assert_eq(ag_set_grad(t, bad), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "assigned grad has data of a different size");
    /* detach_ makes a non-leaf a leaf that does not require grad */
    Tensor *y = ag_mul_scalar(t, I(2));
    cr_assert_eq(ag_detach_(y), 0);
    cr_assert(ag_is_leaf(y) && !ag_requires_grad(y));
    TT_FREE(w, idx, e, es, x, d, ds, t, m, bad, y);
}
