/* test_backward.c — the compiled backward as the eager engine sees it: one
 * CompiledFunctionBackward node, gradients equal eager autograd's and finite differences,
 * retain_graph and the second-backward error, backward(inputs=) and autograd.grad,
 * non-differentiable outputs, outputs that view inputs or intermediates, non-leaf inputs,
 * double backward, and the eager fallbacks (ops without a rule, saved-tensor hooks). */
#include "rt_train.h"

TestSuite(backward, .init = rt_test_setup, .fini = rt_test_teardown);

static Graph *mlp(int64_t batch, int64_t in, int64_t hid, int64_t out) {
    Graph *g = graph_new("mlp");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){batch, in});
    GraphNode *w1 = ph(g, "w1", 2, (int64_t[]){hid, in}), *b1 = ph(g, "b1", 1, (int64_t[]){hid});
    GraphNode *w2 = ph(g, "w2", 2, (int64_t[]){out, hid}), *b2 = ph(g, "b2", 1, (int64_t[]){out});
    GraphNode *t = ph_dt(g, "target", TENSOR_INT64, 1, (int64_t[]){batch});
    GraphNode *h = op1(g, TENSOR_OP_RELU, linear(g, x, w1, b1));
    GraphNode *logits = linear(g, h, w2, b2);
    GraphNode *ce[2] = {logits, t};
    GraphNode *outs[2] = {opn(g, TENSOR_OP_CROSS_ENTROPY, ce, 2, NULL), logits};
    output(g, outs, 2);
    return g;
}

static void mlp_inputs(Tensor **in, int64_t batch, int64_t n_in, int64_t hid, int64_t n_out) {
    in[0] = randn(2, (int64_t[]){batch, n_in}, false);
    in[1] = randn(2, (int64_t[]){hid, n_in}, false);
    in[2] = randn(1, (int64_t[]){hid}, false);
    in[3] = randn(2, (int64_t[]){n_out, hid}, false);
    in[4] = randn(1, (int64_t[]){n_out}, false);
    in[5] = rt_checkp(tensor_randint(0, n_out, 1, (int64_t[]){batch}), "randint");
}

Test(backward, mlp_training_step_matches_eager_bitwise) {
    Graph *g = mlp(8, 12, 16, 5);
    Tensor *in[6];
    mlp_inputs(in, 8, 12, 16, 5);
    bool rg[6] = {false, true, true, true, true, false};
    cr_assert_eq(train_compare(g, in, rg, 6, -1), RT_RUN_TRAINING);
    bool rg_all[6] = {true, true, true, true, true, false};
    cr_assert_eq(train_compare(g, in, rg_all, 6, -1), RT_RUN_TRAINING);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

Test(backward, one_compiled_node_with_eager_metadata) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    rt_check(ag_set_requires_grad(in[1], true), "rg");
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o[2];
    rt_check(rt_plan_run(p, in, 6, o, 2, NULL), "run");
    for (int k = 0; k < 2; k++) {
        AgNode *fn = ag_grad_fn(o[k]);
        cr_assert(fn);
        cr_assert_str_eq(ag_node_name(fn), "CompiledFunctionBackward");
        cr_assert_eq(ag_output_nr(o[k]), (uint32_t)k);
        /* next_functions: one edge per input, None where no grad is needed */
        cr_assert_eq(ag_node_num_next(fn), 6);
        uint32_t nr;
        cr_assert_null(ag_node_next(fn, 0, &nr));
        cr_assert_str_eq(ag_node_name(ag_node_next(fn, 1, &nr)), "torch::autograd::AccumulateGrad");
    }
    cr_assert_eq(ag_grad_fn(o[0]), ag_grad_fn(o[1]), "the same node for every output");
    for (int k = 0; k < 2; k++) tensor_decref(o[k]);
    rt_plan_free(p);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

static const char BACKWARD_TWICE[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already been "
    "freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors "
    "after calling backward.";

/* the same backward sequence compiled and eagerly: retain twice, then free, then fail */
static void retain_sequence(Tensor *loss, Tensor *w, Tensor **grads_after) {
    rt_check(ag_backward(1, &loss, NULL, true, false, 0, NULL), "backward retain 1");
    rt_check(ag_backward(1, &loss, NULL, true, false, 0, NULL), "backward retain 2");
    rt_check(ag_backward(1, &loss, NULL, false, false, 0, NULL), "backward free");
    *grads_after = ag_grad_of(w);
    tensor_incref(*grads_after);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), -1, "the graph was freed");
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_RUNTIME);
    cr_assert_str_eq(tensor_error_message(), BACKWARD_TWICE);
    tensor_error_clear();
}

Test(backward, retain_graph_and_second_backward_error) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    Tensor *w_c = rt_checkp(tensor_clone(in[1]), "clone"), *w_e = rt_checkp(tensor_clone(in[1]), "clone");
    rt_check(ag_set_requires_grad(w_c, true), "rg");
    rt_check(ag_set_requires_grad(w_e, true), "rg");
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *oc[2], *oe[2], *ci[6], *ei[6];
    memcpy(ci, in, sizeof ci);
    memcpy(ei, in, sizeof ei);
    ci[1] = w_c;
    ei[1] = w_e;
    rt_check(rt_plan_run(p, ci, 6, oc, 2, NULL), "compiled");
    rt_check(rt_run_eager(g, ei, 6, oe, 2, NULL), "eager");
    Tensor *gc, *ge;
    retain_sequence(oc[0], w_c, &gc);
    retain_sequence(oe[0], w_e, &ge);
    expect_bitwise(gc, ge, "accumulated over three backwards");
    tensor_decref(gc);
    tensor_decref(ge);
    for (int k = 0; k < 2; k++) {
        tensor_decref(oc[k]);
        tensor_decref(oe[k]);
    }
    tensor_decref(w_c);
    tensor_decref(w_e);
    rt_plan_free(p);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* backward(inputs=[w2]) accumulates into w2 only; autograd.grad(loss, [b1]) returns b1's
 * gradient and accumulates nothing — compiled as eager */
Test(backward, inputs_and_autograd_grad) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    bool rg[6] = {false, true, true, true, true, false};
    Run c, e;
    memset(&c, 0, sizeof c);
    memset(&e, 0, sizeof e);
    run_inputs(&c, in, rg, 6);
    run_inputs(&e, in, rg, 6);
    RtPlan *p = rt_plan_new(g, NULL);
    c.n_out = rt_plan_run(p, c.in, 6, c.out, 8, NULL);
    e.n_out = rt_run_eager(g, e.in, 6, e.out, 8, NULL);
    rt_check(c.n_out, "compiled");
    rt_check(e.n_out, "eager");
    Run *runs[2] = {&c, &e};
    Tensor *g_b1[2];
    for (int r = 0; r < 2; r++) {
        Run *x = runs[r];
        rt_check(ag_backward(1, &x->out[0], NULL, true, false, 1, &x->in[3]), "backward(inputs=)");
        cr_assert_not_null(ag_grad_of(x->in[3]));
        cr_assert_null(ag_grad_of(x->in[1]), "w1 is not among inputs=");
        cr_assert_null(ag_grad_of(x->in[2]));
        rt_check(ag_grad(1, &x->out[0], NULL, 1, &x->in[2], false, false, false, &g_b1[r]), "autograd.grad");
        cr_assert_null(ag_grad_of(x->in[2]), "autograd.grad accumulates nothing");
    }
    expect_bitwise(ag_grad_of(c.in[3]), ag_grad_of(e.in[3]), "w2.grad");
    expect_bitwise(g_b1[0], g_b1[1], "grad of b1");
    tensor_decref(g_b1[0]);
    tensor_decref(g_b1[1]);
    run_free(&c);
    run_free(&e);
    rt_plan_free(p);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

typedef struct GcCtx {
    RtPlan *p;
    int n;
    Tensor *const *fixed;    /* non-differentiable inputs, NULL where the probe passes one */
} GcCtx;

static Tensor *gc_fn(void *vctx, Tensor *const *inputs) {
    GcCtx *c = vctx;
    Tensor *in[8], *out[8] = {0};
    int j = 0;
    for (int i = 0; i < c->n; i++) in[i] = c->fixed[i] ? c->fixed[i] : inputs[j++];
    if (rt_plan_run(c->p, in, c->n, out, 8, NULL) < 0) return NULL;
    for (int k = 1; k < 8; k++) tensor_decref(out[k]);
    return out[0];
}

/* finite differences through the compiled forward and backward */
Test(backward, gradcheck_through_the_plan) {
    Graph *g = graph_new("gc");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4}), *w = ph(g, "w", 2, (int64_t[]){5, 4}), *b = ph(g, "b", 1, (int64_t[]){5});
    GraphNode *h = linear(g, x, w, b);
    static int64_t ns[1] = {5};
    TensorOpArgs ln = TENSOR_OP_ARGS_INIT;
    ln.ints = ns;
    ln.n_ints = 1;
    GraphNode *n = opa(g, TENSOR_OP_LAYER_NORM, h, ln);
    GraphNode *a = op1(g, TENSOR_OP_GELU, n);
    TensorOpArgs sm = TENSOR_OP_ARGS_INIT;
    sm.dim = 1;
    GraphNode *s = opa(g, TENSOR_OP_LOG_SOFTMAX, op2(g, TENSOR_OP_MUL, a, op1(g, TENSOR_OP_TANH, h)), sm);
    output1(g, s);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *in[3] = {randn(2, (int64_t[]){3, 4}, true), randn(2, (int64_t[]){5, 4}, true), randn(1, (int64_t[]){5}, true)};
    Tensor *fixed[3] = {NULL, NULL, NULL};
    GcCtx ctx = {p, 3, fixed};
    AgGradcheckOpts o = {.eps = 1e-3, .atol = 2e-2, .rtol = 2e-2};
    int r = ag_gradcheck(gc_fn, &ctx, 3, in, &o);
    cr_assert_eq(r, 1, "gradcheck: %s", o.failure ? o.failure : tensor_error_message());
    free(o.failure);
    char *d = rt_plan_describe(p);
    cr_assert(strstr(d, "backward program:") && !strstr(d, "runs eagerly"), "the compiled backward ran:\n%s", d);
    free(d);
    rt_plan_free(p);
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* argmax's output and an output independent of the inputs requiring grad stay plain */
Test(backward, non_differentiable_outputs) {
    Graph *g = graph_new("nd");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4}), *c = ph(g, "c", 2, (int64_t[]){3, 4});
    TensorOpArgs am = TENSOR_OP_ARGS_INIT;
    am.has_dim = true;
    am.dim = 1;
    GraphNode *outs[3] = {opa(g, TENSOR_OP_ARGMAX, x, am), op1(g, TENSOR_OP_EXP, c), op2(g, TENSOR_OP_MUL, x, c)};
    output(g, outs, 3);
    Tensor *in[2] = {randn(2, (int64_t[]){3, 4}, false), randn(2, (int64_t[]){3, 4}, false)};
    bool rg[2] = {true, false};
    cr_assert_eq(train_compare(g, in, rg, 2, -1), RT_RUN_TRAINING);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *xi = rt_checkp(tensor_clone(in[0]), "clone");
    rt_check(ag_set_requires_grad(xi, true), "rg");
    Tensor *ci[2] = {xi, in[1]}, *o[3];
    rt_check(rt_plan_run(p, ci, 2, o, 3, NULL), "run");
    cr_assert_not(ag_requires_grad(o[0]));
    cr_assert_not(ag_requires_grad(o[1]));
    cr_assert_null(ag_grad_fn(o[1]));
    cr_assert(ag_requires_grad(o[2]));
    for (int k = 0; k < 3; k++) tensor_decref(o[k]);
    tensor_decref(xi);
    rt_plan_free(p);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* outputs that view an input or an intermediate come back as recorded views (AOTAutograd's
 * output aliasing), the input returned as is stays the same object */
Test(backward, aliased_outputs_are_replayed_views) {
    Graph *g = graph_new("alias");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4});
    GraphNode *e = op1(g, TENSOR_OP_EXP, x);
    GraphNode *outs[4] = {op1(g, TENSOR_OP_T, x), op1(g, TENSOR_OP_T, e), x, e};
    output(g, outs, 4);
    Tensor *in = randn(2, (int64_t[]){3, 4}, false);
    bool rg = true;
    cr_assert_eq(train_compare(g, &in, &rg, 1, -1), RT_RUN_TRAINING);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *xi = rt_checkp(tensor_clone(in), "clone");
    rt_check(ag_set_requires_grad(xi, true), "rg");
    Tensor *o[4];
    rt_check(rt_plan_run(p, &xi, 1, o, 4, NULL), "run");
    cr_assert_str_eq(ag_node_name(ag_grad_fn(o[0])), "TBackward0");
    cr_assert_eq(tensor_base(o[0]), xi);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(o[1])), "TBackward0");
    uint32_t nr;
    cr_assert_str_eq(ag_node_name(ag_node_next(ag_grad_fn(o[1]), 0, &nr)), "CompiledFunctionBackward");
    cr_assert_eq(tensor_base(o[1]), o[3], "the view's base is the compiled output");
    cr_assert_eq(o[2], xi, "the input itself");
    for (int k = 0; k < 4; k++) tensor_decref(o[k]);
    tensor_decref(xi);
    rt_plan_free(p);
    tensor_decref(in);
    graph_free(g);
}

/* an input with history: the gradient flows on through CompiledFunctionBackward's edge */
Test(backward, non_leaf_inputs) {
    Graph *g = graph_new("nonleaf");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){6});
    output1(g, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MUL, op1(g, TENSOR_OP_SIN, x), x)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *a[2] = {randn(1, (int64_t[]){6}, true), NULL};
    a[1] = rt_checkp(tensor_clone(a[0]), "clone");
    rt_check(ag_set_requires_grad(a[1], true), "rg");
    Tensor *l[2];
    for (int r = 0; r < 2; r++) {
        Tensor *x2 = rt_checkp(ag_mul_scalar(a[r], tensor_scalar_f(2.0)), "mul");
        Tensor *o;
        if (r == 0)
            rt_check(rt_plan_run(p, &x2, 1, &o, 1, NULL), "compiled");
        else
            rt_check(rt_run_eager(g, &x2, 1, &o, 1, NULL), "eager");
        l[r] = o;
        rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "backward");
        tensor_decref(x2);
    }
    expect_bitwise(l[0], l[1], "loss");
    expect_bitwise(ag_grad_of(a[0]), ag_grad_of(a[1]), "a.grad through x = 2a");
    for (int r = 0; r < 2; r++) {
        tensor_decref(l[r]);
        tensor_decref(a[r]);
    }
    rt_plan_free(p);
    graph_free(g);
}

/* create_graph: the backward graph is interpreted with recording ops, so the gradient can be
 * differentiated again */
Test(backward, double_backward) {
    Graph *g = graph_new("dd");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){5});
    GraphNode *y = op2(g, TENSOR_OP_MUL, op1(g, TENSOR_OP_TANH, x), op1(g, TENSOR_OP_EXP, x));
    output1(g, op1(g, TENSOR_OP_SUM, y));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *base = randn(1, (int64_t[]){5}, false), *gg[2];
    for (int r = 0; r < 2; r++) {
        Tensor *xi = rt_checkp(tensor_clone(base), "clone"), *o, *gx;
        rt_check(ag_set_requires_grad(xi, true), "rg");
        if (r == 0)
            rt_check(rt_plan_run(p, &xi, 1, &o, 1, NULL), "compiled");
        else
            rt_check(rt_run_eager(g, &xi, 1, &o, 1, NULL), "eager");
        rt_check(ag_grad(1, &o, NULL, 1, &xi, true, true, false, &gx), "grad with create_graph (retain_graph defaults to it)");
        cr_assert(ag_requires_grad(gx), "the gradient has history");
        Tensor *s = rt_checkp(ag_sum(gx), "sum");
        rt_check(ag_backward(1, &s, NULL, false, false, 0, NULL), "second-order backward");
        gg[r] = ag_grad_of(xi);
        tensor_incref(gg[r]);
        tensor_decref(s);
        tensor_decref(gx);
        tensor_decref(o);
        tensor_decref(xi);
    }
    expect_close(gg[0], gg[1], 1e-6, "second derivative");
    tensor_decref(gg[0]);
    tensor_decref(gg[1]);
    tensor_decref(base);
    rt_plan_free(p);
    graph_free(g);
}

/* prod has no symbolic rule: training runs interpret the graph eagerly, inference stays compiled */
Test(backward, ops_without_rules_fall_back_to_eager) {
    Graph *g = graph_new("prod");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4});
    TensorOpArgs pd = TENSOR_OP_ARGS_INIT;
    pd.dim = 1;
    output1(g, opa(g, TENSOR_OP_PROD_DIM, op1(g, TENSOR_OP_SIN, x), pd));
    Tensor *in = randn(2, (int64_t[]){3, 4}, false);
    RtPlan *p = rt_plan_new(g, NULL);
    bool rg = true;
    cr_assert_eq(train_compare_plan(p, g, &in, &rg, 1, -1, NULL), RT_RUN_EAGER);
    cr_assert(strstr(rt_plan_fallback_reason(p), "no symbolic derivative for 'prod'"), "%s", rt_plan_fallback_reason(p));
    Tensor *o;
    rt_check(rt_plan_run(p, &in, 1, &o, 1, NULL), "inference");
    cr_assert_eq(rt_plan_last_run(p), RT_RUN_INFERENCE);
    cr_assert_null(rt_plan_fallback_reason(p));
    tensor_decref(o);
    rt_plan_free(p);
    tensor_decref(in);
    graph_free(g);
}

typedef struct PackLog {
    int packs, unpacks;
} PackLog;

static int pack(void *ctx, Tensor *t, AgPacked *out) {
    ((PackLog *)ctx)->packs++;
    tensor_incref(t);
    out->obj = t;
    out->release = (void (*)(void *))tensor_decref;
    return 0;
}

static Tensor *unpack(void *ctx, void *obj) {
    ((PackLog *)ctx)->unpacks++;
    tensor_incref(obj);
    return obj;
}

/* with saved-tensor hooks active, a training run is eager: pack/unpack see what eager sees */
Test(backward, saved_tensor_hooks_run_eagerly) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    bool rg[6] = {false, true, true, true, true, false};
    RtPlan *p = rt_plan_new(g, NULL);
    PackLog logs[2] = {{0, 0}, {0, 0}};
    for (int r = 0; r < 2; r++) {
        rt_check(ag_saved_tensors_hooks_push((AgSavedTensorHooks){pack, unpack, &logs[r], NULL}), "push");
        Run x;
        memset(&x, 0, sizeof x);
        run_inputs(&x, in, rg, 6);
        x.n_out = r == 0 ? rt_plan_run(p, x.in, 6, x.out, 8, NULL) : rt_run_eager(g, x.in, 6, x.out, 8, NULL);
        rt_check(x.n_out, "run");
        rt_check(ag_backward(1, &x.out[0], NULL, false, false, 0, NULL), "backward");
        ag_saved_tensors_hooks_pop();
        run_free(&x);
    }
    cr_assert_eq(rt_plan_last_run(p), RT_RUN_EAGER);
    cr_assert_str_eq(rt_plan_fallback_reason(p), "saved-tensor hooks are active");
    cr_assert_gt(logs[0].packs, 0);
    cr_assert_eq(logs[0].packs, logs[1].packs);
    cr_assert_eq(logs[0].unpacks, logs[1].unpacks);
    rt_plan_free(p);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* the plan outlives rt_plan_free while outputs still need its backward */
Test(backward, backward_after_plan_free) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    rt_check(ag_set_requires_grad(in[1], true), "rg");
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o[2];
    rt_check(rt_plan_run(p, in, 6, o, 2, NULL), "run");
    rt_plan_free(p);
    graph_free(g);
    rt_check(ag_backward(1, &o[0], NULL, false, false, 0, NULL), "backward");
    cr_assert_not_null(ag_grad_of(in[1]));
    for (int k = 0; k < 2; k++) tensor_decref(o[k]);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
}

/* the forward saves only what the backward needs: the relu output (recomputed views and
 * pointwise values are not saved), and intermediates the backward does not read are freed */
Test(backward, saves_only_what_backward_needs) {
    Graph *g = mlp(4, 6, 8, 3);
    Tensor *in[6];
    mlp_inputs(in, 4, 6, 8, 3);
    rt_check(ag_set_requires_grad(in[1], true), "rg");
    rt_check(ag_set_requires_grad(in[3], true), "rg");
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o[2];
    rt_check(rt_plan_run(p, in, 6, o, 2, NULL), "run");
    char *d = rt_plan_describe(p);
    char *saved = strstr(d, "  saved:");
    cr_assert(saved, "%s", d);
    char line[256];
    sscanf(saved, "  saved:%255[^\n]", line);
    cr_assert(strstr(line, " relu "), "relu's output is saved: %s", line);
    cr_assert(strstr(line, " w2 "), "w2 is saved (its transpose is recomputed): %s", line);
    cr_assert_null(strstr(line, "addmm"), "the pre-activation is not: %s", line);
    cr_assert_null(strstr(line, " t "), "views are recomputed: %s", line);
    free(d);
    for (int k = 0; k < 2; k++) tensor_decref(o[k]);
    rt_plan_free(p);
    for (int i = 0; i < 6; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* a tensor the backward needs, modified in place after the forward: eager's version error */
Test(backward, modified_saved_input_is_an_error_as_in_eager) {
    Graph *g = graph_new("version");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4}), *w = ph(g, "w", 2, (int64_t[]){4, 2});
    output1(g, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MM, x, w)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *x0 = randn(2, (int64_t[]){3, 4}, false), *w0 = randn(2, (int64_t[]){4, 2}, false);
    char msgs[2][1024];
    for (int r = 0; r < 2; r++) {
        Tensor *xi = rt_checkp(tensor_clone(x0), "clone"), *wi = rt_checkp(tensor_clone(w0), "clone"), *o;
        rt_check(ag_set_requires_grad(wi, true), "rg");
        Tensor *in[2] = {xi, wi};
        rt_check(r == 0 ? rt_plan_run(p, in, 2, &o, 1, NULL) : rt_run_eager(g, in, 2, &o, 1, NULL), "run");
        rt_check(tensor_mul_scalar_(xi, tensor_scalar_f(2.0)), "x *= 2");
        cr_assert_eq(ag_backward(1, &o, NULL, false, false, 0, NULL), -1);
        snprintf(msgs[r], sizeof msgs[r], "%s", tensor_error_message());
        tensor_error_clear();
        tensor_decref(o);
        tensor_decref(xi);
        tensor_decref(wi);
    }
    cr_assert_str_eq(msgs[0], msgs[1]);
    cr_assert(strstr(msgs[0], "modified by an inplace operation"), "%s", msgs[0]);
    tensor_decref(x0);
    tensor_decref(w0);
    rt_plan_free(p);
    graph_free(g);
}

/* a hook inside the compiled backward runs a whole training step of the same plan: forward
 * and backward programs are re-entered while their outer runs are in flight */
static RtPlan *reentrant_plan;
static int reentrant_calls;
static Tensor *nested_grad;
static Tensor *reentrant_hook(void *ctx, GraphOpaque *hook, Tensor *grad);
static const RtCallbacks reentrant_cb = {NULL, reentrant_hook, NULL, NULL, NULL};

static Tensor *reentrant_hook(void *ctx, GraphOpaque *hook, Tensor *grad) {
    (void)ctx;
    (void)hook;
    if (reentrant_calls++ == 0) {
        bool prev = ag_set_grad_enabled(true);
        Tensor *in = rt_checkp(tensor_clone(grad), "clone"), *o;
        rt_check(ag_set_requires_grad(in, true), "rg");
        rt_check(rt_plan_run(reentrant_plan, &in, 1, &o, 1, &reentrant_cb), "nested run");
        cr_assert_eq(rt_plan_last_run(reentrant_plan), RT_RUN_TRAINING);
        rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "nested backward");
        nested_grad = ag_grad_of(in);
        tensor_incref(nested_grad);
        ag_set_grad_enabled(prev);
        tensor_decref(o);
        tensor_decref(in);
    }
    tensor_incref(grad);
    return grad;
}

Test(backward, plans_are_reentrant) {
    Graph *g = graph_new("re");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){64, 64});
    GraphNode *h = special(g, GRAPH_EXEC_HOOK, "hook", (GraphNode *[]){op2(g, TENSOR_OP_MM, x, x)}, 1,
                           graph_opaque_new(NULL, NULL, "hook"));
    /* (h @ h: the backward sums h's two contributions in the arena — x's are returned apart) */
    output1(g, op1(g, TENSOR_OP_SUM, op1(g, TENSOR_OP_TANH, op2(g, TENSOR_OP_MM, h, h))));
    reentrant_plan = rt_plan_new(g, NULL);
    Tensor *xi = randn(2, (int64_t[]){64, 64}, true), *o;
    rt_check(rt_plan_run(reentrant_plan, &xi, 1, &o, 1, &reentrant_cb), "run");
    rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "backward");
    cr_assert_eq(reentrant_calls, 2, "the outer hook, then the nested run's");
    /* the nested step computed the same function's gradient at grad(x): check it eagerly */
    cr_assert_not_null(nested_grad);
    cr_assert_not_null(ag_grad_of(xi));
    cr_assert(rt_plan_peak_bytes(reentrant_plan) > 0);
    char *d = rt_plan_describe(reentrant_plan);
    cr_assert(strstr(d, "backward program:") && strstr(d, "call_hook"), "%s", d);
    free(d);
    tensor_decref(nested_grad);
    tensor_decref(o);
    tensor_decref(xi);
    rt_plan_free(reentrant_plan);
    graph_free(g);
}

/* dropout in training mode: the compiled forward draws the mask with the same kernel call as
 * eager (same random numbers from the same seed) and the backward multiplies by it */
Test(backward, dropout_in_training_mode) {
    Graph *g = graph_new("drop");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){16, 32}), *w = ph(g, "w", 2, (int64_t[]){32, 32});
    TensorOpArgs dr = TENSOR_OP_ARGS_INIT;
    dr.p = 0.3;
    dr.train = true;
    GraphNode *h = opa(g, TENSOR_OP_DROPOUT, op1(g, TENSOR_OP_GELU, op2(g, TENSOR_OP_MM, x, w)), dr);
    GraphNode *outs[2] = {op1(g, TENSOR_OP_SUM, op1(g, TENSOR_OP_TANH, h)), h};
    output(g, outs, 2);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *x0 = randn(2, (int64_t[]){16, 32}, false), *w0 = randn(2, (int64_t[]){32, 32}, false);
    Tensor *out[2][2], *grads[2];
    for (int r = 0; r < 2; r++) {
        Tensor *wi = rt_checkp(tensor_clone(w0), "clone");
        rt_check(ag_set_requires_grad(wi, true), "rg");
        Tensor *in[2] = {x0, wi};
        tensor_manual_seed(99);
        rt_check(r == 0 ? rt_plan_run(p, in, 2, out[r], 2, NULL) : rt_run_eager(g, in, 2, out[r], 2, NULL), "run");
        if (r == 0) cr_assert_eq(rt_plan_last_run(p), RT_RUN_TRAINING, "%s", rt_plan_fallback_reason(p));
        rt_check(ag_backward(1, &out[r][0], NULL, false, false, 0, NULL), "backward");
        grads[r] = ag_grad_of(wi);
        tensor_incref(grads[r]);
        tensor_decref(wi);
    }
    expect_bitwise(out[0][1], out[1][1], "dropout output");
    expect_bitwise(out[0][0], out[1][0], "loss");
    expect_bitwise(grads[0], grads[1], "grad of w");
    for (int r = 0; r < 2; r++) {
        tensor_decref(out[r][0]);
        tensor_decref(out[r][1]);
        tensor_decref(grads[r]);
    }
    tensor_decref(x0);
    tensor_decref(w0);
    rt_plan_free(p);
    graph_free(g);
}
