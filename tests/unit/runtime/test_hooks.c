/* test_hooks.c — hook replay: hooks on intermediates (GRAPH_EXEC_HOOK) run inside the
 * compiled backward at the point eager runs them, with the same gradient, and what they return
 * replaces it; hooks on placeholders are registered on the input; eager hooks on inputs,
 * parameters and their nodes keep eager's order around CompiledFunctionBackward; markers put
 * gradient hooks on values through the sink; paths autograd.grad does not need run no hooks;
 * the eager backend's script calls.  A mock VM logs every call; compiled and eager logs must
 * be identical. */
#include <stdarg.h>

#include "rt_train.h"

TestSuite(hooks, .init = rt_test_setup, .fini = rt_test_teardown);

/* ---- the mock VM ----------------------------------------------------------------------------------- */

typedef struct Log {
    char buf[8192];
    size_t len;
} Log;

static Log logbuf;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    logbuf.len += (size_t)vsnprintf(logbuf.buf + logbuf.len, sizeof logbuf.buf - logbuf.len, fmt, ap);
    va_end(ap);
}

static double tsum(const Tensor *t) {
    int64_t n = tensor_numel(t);
    float *v = malloc(sizeof(float) * (size_t)(n ? n : 1));
    rt_check(tensor_copy_to_buffer(t, TENSOR_FLOAT32, v), "copy");
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    free(v);
    return s;
}

typedef struct MockHook {
    const char *name;
    double scale;            /* 1: return None */
    bool bad_shape;
} MockHook;

static Tensor *mock_apply(MockHook *h, Tensor *grad) {
    logf_("%s(%.6f) ", h->name, tsum(grad));
    if (h->bad_shape) return rt_checkp(tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){1}), "zeros");
    if (h->scale == 1.0) return NULL;
    return rt_checkp(tensor_mul_scalar(grad, tensor_scalar_f(h->scale)), "mul");
}

static Tensor *cb_call_hook(void *ctx, GraphOpaque *hook, Tensor *grad) {
    (void)ctx;
    Tensor *r = mock_apply(hook->ptr, grad);
    if (!r) {
        tensor_incref(grad);
        return grad;
    }
    return r;
}

static int tensor_hook_fn(void *ctx, Tensor *grad, Tensor **replace) {
    *replace = mock_apply(ctx, grad);
    return 0;
}

static int cb_register_hook(void *ctx, GraphOpaque *hook, Tensor *t) {
    (void)ctx;
    AgHookHandle h;
    return ag_tensor_register_hook(t, (AgTensorHook){tensor_hook_fn, hook->ptr, NULL}, &h);
}

typedef struct MockMarker {
    const char *name;
    MockHook hooks[4];
} MockMarker;

static int cb_marker(void *ctx, GraphOpaque *marker, int n, Tensor *const *values, RtGradHookSink *sink) {
    (void)ctx;
    MockMarker *m = marker->ptr;
    logf_("%s[%d] ", m->name, n);
    for (int i = 0; i < n && i < 4; i++) {
        if (!rt_grad_hook_sink_requires_grad(sink, i)) continue;
        if (rt_grad_hook_sink_add(sink, i, (AgTensorHook){tensor_hook_fn, &m->hooks[i], NULL}) < 0) return -1;
    }
    (void)values;
    return 0;
}

static int cb_script(void *ctx, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out) {
    (void)ctx;
    (void)n_in;
    (void)n_out;
    logf_("script:%s ", node->name);
    out[0] = ag_mul_scalar(in[0], tensor_scalar_f(3.0));
    return out[0] ? 0 : -1;
}

static const RtCallbacks cbs = {NULL, cb_call_hook, cb_register_hook, cb_marker, cb_script};

static GraphOpaque *hook_of(MockHook *h) { return graph_opaque_new(h, NULL, h->name); }

static GraphNode *hook(Graph *g, GraphNode *x, MockHook *h) {
    GraphOpaque *o = hook_of(h);
    GraphNode *r = special(g, GRAPH_EXEC_HOOK, h->name, &x, 1, o);
    return r;
}

/* compiled and eager logs of the same training step */
static void logs_of(const Graph *g, Tensor *const *src, const bool *rg, int n, char *compiled, char *eager) {
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    for (int r = 0; r < 2; r++) {
        logbuf.len = 0;
        logbuf.buf[0] = 0;
        Run x;
        memset(&x, 0, sizeof x);
        run_inputs(&x, src, rg, n);
        x.n_out = r == 0 ? rt_plan_run(p, x.in, n, x.out, 8, &cbs) : rt_run_eager(g, x.in, n, x.out, 8, &cbs);
        rt_check(x.n_out, r == 0 ? "compiled run" : "eager run");
        if (r == 0) cr_assert_eq(rt_plan_last_run(p), RT_RUN_TRAINING, "%s", rt_plan_fallback_reason(p));
        logf_("| ");
        rt_check(ag_backward(1, &x.out[0], NULL, false, false, 0, NULL), "backward");
        for (int i = 0; i < n; i++)
            if (ag_grad_of(x.in[i])) logf_("g%d=%.6f ", i, tsum(ag_grad_of(x.in[i])));
        strcpy(r == 0 ? compiled : eager, logbuf.buf);
        run_free(&x);
    }
    rt_plan_free(p);
}

/* ---- tests ---------------------------------------------------------------------------------------- */

/* a = x*w hooked (x2), b = exp(a) hooked (None), loss = sum(b) + sum(b*a): the hook on a sees
 * a's total gradient (through b and through the product), its replacement flows on */
Test(hooks, intermediate_hooks_replay_in_eager_order) {
    MockHook h1 = {"ha", 2.0, false}, h2 = {"hb", 1.0, false}, h3 = {"hb2", -0.5, false};
    Graph *g = graph_new("hooks");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4}), *w = ph(g, "w", 1, (int64_t[]){4});
    GraphNode *a = op2(g, TENSOR_OP_MUL, x, w);
    GraphNode *ah = hook(g, a, &h1);
    GraphNode *b = op1(g, TENSOR_OP_EXP, ah);
    GraphNode *bh = hook(g, b, &h2);
    hook(g, bh, &h3);    /* a second hook on b, registered after */
    GraphNode *c = op2(g, TENSOR_OP_MUL, b, a);
    GraphNode *loss = op2(g, TENSOR_OP_ADD, op1(g, TENSOR_OP_SUM, bh), op1(g, TENSOR_OP_SUM, c));
    output1(g, loss);
    Tensor *in[2] = {randn(2, (int64_t[]){3, 4}, false), randn(1, (int64_t[]){4}, false)};
    bool rg[2] = {true, true};
    char lc[8192], le[8192];
    logs_of(g, in, rg, 2, lc, le);
    cr_assert_str_eq(lc, le);
    cr_assert(strstr(lc, "hb(") < strstr(lc, "hb2(") && strstr(lc, "hb2(") < strstr(lc, "ha("), "order: %s", lc);
    /* and the gradients themselves, bitwise */
    RtPlan *p = rt_plan_new(g, NULL);
    cr_assert_eq(train_compare_plan(p, g, in, rg, 2, -1, &cbs), RT_RUN_TRAINING);
    rt_plan_free(p);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* a hook on a placeholder is registered on the input tensor itself */
Test(hooks, hooks_on_placeholders_are_registered) {
    MockHook hx = {"hx", 3.0, false};
    Graph *g = graph_new("ph");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){5});
    GraphNode *xh = hook(g, x, &hx);
    output1(g, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MUL, op1(g, TENSOR_OP_SIN, xh), x)));
    Tensor *in = randn(1, (int64_t[]){5}, false);
    bool rg = true;
    char lc[8192], le[8192];
    logs_of(g, &in, &rg, 1, lc, le);
    cr_assert_str_eq(lc, le);
    cr_assert(strstr(lc, "hx("), "%s", lc);
    tensor_decref(in);
    graph_free(g);
}

/* eager hooks around the compiled node: a tensor hook, retain_grad and grad_fn pre/post hooks
 * on a non-leaf input, a tensor hook and a post-accumulate hook on a parameter, pre/post hooks
 * on the parameter's AccumulateGrad */
static int ev_tensor(void *ctx, Tensor *grad, Tensor **replace) {
    logf_("%s(%.6f) ", (const char *)ctx, tsum(grad));
    *replace = NULL;
    return 0;
}
static int ev_post_acc(void *ctx, Tensor *leaf) {
    logf_("%s(%.6f) ", (const char *)ctx, tsum(ag_grad_of(leaf)));
    return 0;
}
static int ev_pre(void *ctx, AgNode *node, int n, Tensor **g) {
    (void)n;
    logf_("%s:%s(%.6f) ", (const char *)ctx, ag_node_name(node), g[0] ? tsum(g[0]) : 0.0);
    return 0;
}
static int ev_post(void *ctx, AgNode *node, int n_in, Tensor **gi, int n_out, Tensor *const *go) {
    (void)n_in;
    (void)n_out;
    (void)go;
    logf_("%s:%s(%.6f) ", (const char *)ctx, ag_node_name(node), gi[0] ? tsum(gi[0]) : 0.0);
    return 0;
}

Test(hooks, eager_hooks_on_inputs_keep_eager_order) {
    Graph *g = graph_new("inputs");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){3, 4}), *w = ph(g, "w", 2, (int64_t[]){5, 4});
    GraphNode *h = op1(g, TENSOR_OP_TANH, linear(g, x, w, NULL));
    output1(g, op1(g, TENSOR_OP_MEAN, op2(g, TENSOR_OP_MUL, h, h)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *a0 = randn(2, (int64_t[]){3, 4}, false), *w0 = randn(2, (int64_t[]){5, 4}, false);
    char logs[2][8192];
    for (int r = 0; r < 2; r++) {
        logbuf.len = 0;
        logbuf.buf[0] = 0;
        Tensor *a = rt_checkp(tensor_clone(a0), "clone"), *wi = rt_checkp(tensor_clone(w0), "clone");
        rt_check(ag_set_requires_grad(a, true), "rg");
        rt_check(ag_set_requires_grad(wi, true), "rg");
        Tensor *xi = rt_checkp(ag_mul_scalar(a, tensor_scalar_f(2.0)), "x = 2a");
        AgHookHandle hh;
        rt_check(ag_retain_grad(xi), "retain_grad");
        rt_check(ag_tensor_register_hook(xi, (AgTensorHook){ev_tensor, "x.hook", NULL}, &hh), "hook");
        rt_check(ag_node_register_prehook(ag_grad_fn(xi), (AgNodePreHook){ev_pre, "x.pre", NULL}, &hh), "prehook");
        rt_check(ag_node_register_hook(ag_grad_fn(xi), (AgNodePostHook){ev_post, "x.post", NULL}, &hh), "posthook");
        rt_check(ag_tensor_register_hook(wi, (AgTensorHook){ev_tensor, "w.hook", NULL}, &hh), "hook");
        rt_check(ag_tensor_register_post_accumulate_grad_hook(wi, (AgPostAccumulateHook){ev_post_acc, "w.acc", NULL}, &hh),
                 "post acc");
        uint32_t nr;
        AgNode *acc = rt_checkp(ag_gradient_edge(wi, &nr), "edge");
        rt_check(ag_node_register_prehook(acc, (AgNodePreHook){ev_pre, "w.pre", NULL}, &hh), "prehook");
        rt_check(ag_node_register_hook(acc, (AgNodePostHook){ev_post, "w.post", NULL}, &hh), "posthook");
        Tensor *in[2] = {xi, wi}, *o;
        rt_check(r == 0 ? rt_plan_run(p, in, 2, &o, 1, &cbs) : rt_run_eager(g, in, 2, &o, 1, &cbs), "run");
        if (r == 0) cr_assert_eq(rt_plan_last_run(p), RT_RUN_TRAINING);
        rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "backward");
        logf_("| x.grad=%.6f a.grad=%.6f w.grad=%.6f", tsum(ag_grad_of(xi)), tsum(ag_grad_of(a)), tsum(ag_grad_of(wi)));
        strcpy(logs[r], logbuf.buf);
        ag_node_decref(acc);
        tensor_decref(o);
        tensor_decref(xi);
        tensor_decref(a);
        tensor_decref(wi);
    }
    cr_assert_str_eq(logs[0], logs[1]);
    cr_assert(strstr(logs[0], "x.hook(") && strstr(logs[0], "w.acc(") && strstr(logs[0], "w.post:"), "%s", logs[0]);
    tensor_decref(a0);
    tensor_decref(w0);
    rt_plan_free(p);
    graph_free(g);
}

/* autograd.grad w.r.t. w only: the hook on a value only x's gradient needs does not run (the
 * eager engine never executes that node); the hook on w's path does */
Test(hooks, unneeded_paths_run_no_hooks) {
    MockHook hx = {"on_x_path", 2.0, false}, hw = {"on_w_path", 1.0, false};
    Graph *g = graph_new("prune");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){4}), *w = ph(g, "w", 1, (int64_t[]){4});
    GraphNode *sx = hook(g, op1(g, TENSOR_OP_SIN, x), &hx);
    GraphNode *cw = hook(g, op1(g, TENSOR_OP_COS, w), &hw);
    output1(g, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MUL, sx, cw)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *x0 = randn(1, (int64_t[]){4}, false), *w0 = randn(1, (int64_t[]){4}, false), *gw[2];
    char logs[2][8192];
    for (int r = 0; r < 2; r++) {
        logbuf.len = 0;
        logbuf.buf[0] = 0;
        Tensor *xi = rt_checkp(tensor_clone(x0), "clone"), *wi = rt_checkp(tensor_clone(w0), "clone"), *o;
        rt_check(ag_set_requires_grad(xi, true), "rg");
        rt_check(ag_set_requires_grad(wi, true), "rg");
        Tensor *in[2] = {xi, wi};
        rt_check(r == 0 ? rt_plan_run(p, in, 2, &o, 1, &cbs) : rt_run_eager(g, in, 2, &o, 1, &cbs), "run");
        rt_check(ag_grad(1, &o, NULL, 1, &wi, false, false, false, &gw[r]), "grad");
        strcpy(logs[r], logbuf.buf);
        tensor_decref(o);
        tensor_decref(xi);
        tensor_decref(wi);
    }
    cr_assert_str_eq(logs[0], logs[1]);
    cr_assert_null(strstr(logs[0], "on_x_path"), "%s", logs[0]);
    cr_assert(strstr(logs[0], "on_w_path"), "%s", logs[0]);
    expect_bitwise(gw[0], gw[1], "grad of w");
    tensor_decref(gw[0]);
    tensor_decref(gw[1]);
    tensor_decref(x0);
    tensor_decref(w0);
    rt_plan_free(p);
    graph_free(g);
}

/* a hook returning a tensor of another shape fails with eager's message */
Test(hooks, replacement_must_keep_the_shape) {
    MockHook bad = {"bad", 2.0, true};
    Graph *g = graph_new("bad");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){4});
    output1(g, op1(g, TENSOR_OP_SUM, hook(g, op1(g, TENSOR_OP_EXP, x), &bad)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *x0 = randn(1, (int64_t[]){4}, false);
    for (int r = 0; r < 2; r++) {
        Tensor *xi = rt_checkp(tensor_clone(x0), "clone"), *o;
        rt_check(ag_set_requires_grad(xi, true), "rg");
        rt_check(r == 0 ? rt_plan_run(p, &xi, 1, &o, 1, &cbs) : rt_run_eager(g, &xi, 1, &o, 1, &cbs), "run");
        cr_assert_eq(ag_backward(1, &o, NULL, false, false, 0, NULL), -1);
        cr_assert_str_eq(tensor_error_message(), "hook has changed the size of value");
        tensor_error_clear();
        tensor_decref(o);
        tensor_decref(xi);
    }
    tensor_decref(x0);
    rt_plan_free(p);
    graph_free(g);
}

/* a module marker in forward; the VM puts gradient hooks on its values through the sink (as
 * ModTracker's multi-grad hooks do): they fire with the same gradients in the same order */
Test(hooks, marker_hooks_through_the_sink) {
    MockMarker m = {"enter", {{"m0", 1.0, false}, {"m1", 0.5, false}, {"m2", 1.0, false}}};
    Graph *g = graph_new("marker");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){2, 3}), *w = ph(g, "w", 2, (int64_t[]){3, 3});
    GraphNode *h = op2(g, TENSOR_OP_MM, x, w);
    GraphNode *r = op1(g, TENSOR_OP_RELU, h);
    GraphNode *mv[3] = {x, h, r};
    special(g, GRAPH_EXEC_MARKER, "marker", mv, 3, graph_opaque_new(&m, NULL, "enter"));
    output1(g, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MUL, r, h)));
    Tensor *in[2] = {randn(2, (int64_t[]){2, 3}, false), randn(2, (int64_t[]){3, 3}, false)};
    bool rg[2] = {true, true};
    char lc[8192], le[8192];
    logs_of(g, in, rg, 2, lc, le);
    cr_assert_str_eq(lc, le);
    cr_assert(strstr(lc, "m0(") && strstr(lc, "m1(") && strstr(lc, "m2("), "%s", lc);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* the eager backend runs script calls through the VM with autograd recorded by the VM's ops */
Test(hooks, eager_backend_script_calls) {
    Graph *g = graph_new("script");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){3});
    GraphNode *s = special(g, GRAPH_EXEC_SCRIPT, "fn", &x, 1, graph_opaque_new(NULL, NULL, "fn"));
    s->is_tensor = true;
    s->meta = x->meta;
    s->exec.n_outputs = 1;
    output1(g, op1(g, TENSOR_OP_SUM, op1(g, TENSOR_OP_EXP, s)));
    Tensor *xi = randn(1, (int64_t[]){3}, true), *o;
    logbuf.len = 0;
    rt_check(rt_run_eager(g, &xi, 1, &o, 1, &cbs), "eager");
    cr_assert_str_eq(logbuf.buf, "script:fn ");
    rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "backward");
    cr_assert_not_null(ag_grad_of(xi));
    /* compiled: a script call on a value requiring grad falls back to eager */
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o2;
    rt_check(rt_plan_run(p, &xi, 1, &o2, 1, &cbs), "plan");
    cr_assert_eq(rt_plan_last_run(p), RT_RUN_EAGER);
    cr_assert(strstr(rt_plan_fallback_reason(p), "script call"), "%s", rt_plan_fallback_reason(p));
    expect_bitwise(o2, o, "same result");
    tensor_decref(o2);
    rt_plan_free(p);
    tensor_decref(o);
    tensor_decref(xi);
    graph_free(g);
}

/* hooks may keep the tensors they are given: those never live in the arena, so what a hook
 * kept is still intact after the rest of the backward ran (static hooks and marker hooks) */
typedef struct Keeper {
    Tensor *kept[8], *copies[8];
    int n;
} Keeper;

static Keeper keeper;

static void keep(Tensor *grad) {
    if (keeper.n >= 8) return;
    tensor_incref(grad);
    keeper.kept[keeper.n] = grad;
    keeper.copies[keeper.n++] = rt_checkp(tensor_clone(grad), "clone");
}

static Tensor *keep_call_hook(void *ctx, GraphOpaque *hook, Tensor *grad) {
    (void)ctx;
    (void)hook;
    keep(grad);
    tensor_incref(grad);
    return grad;
}

static int keep_tensor_hook(void *ctx, Tensor *grad, Tensor **replace) {
    (void)ctx;
    keep(grad);
    *replace = NULL;
    return 0;
}

static int keep_marker(void *ctx, GraphOpaque *marker, int n, Tensor *const *values, RtGradHookSink *sink) {
    (void)ctx;
    (void)marker;
    (void)values;
    for (int i = 0; i < n; i++)
        if (rt_grad_hook_sink_requires_grad(sink, i) &&
            rt_grad_hook_sink_add(sink, i, (AgTensorHook){keep_tensor_hook, NULL, NULL}) < 0)
            return -1;
    return 0;
}

Test(hooks, kept_gradients_are_not_overwritten) {
    static const RtCallbacks kcb = {NULL, keep_call_hook, cb_register_hook, keep_marker, NULL};
    Graph *g = graph_new("keep");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){64, 64}), *w = ph(g, "w", 2, (int64_t[]){64, 64});
    GraphNode *a = special(g, GRAPH_EXEC_HOOK, "ha", (GraphNode *[]){op2(g, TENSOR_OP_MM, x, w)}, 1,
                           graph_opaque_new(NULL, NULL, "ha"));
    GraphNode *b = op1(g, TENSOR_OP_TANH, op2(g, TENSOR_OP_MM, a, w));
    special(g, GRAPH_EXEC_MARKER, "m", (GraphNode *[]){b}, 1, graph_opaque_new(NULL, NULL, "m"));
    GraphNode *c = op2(g, TENSOR_OP_MM, op1(g, TENSOR_OP_SIGMOID, b), w);
    output1(g, op1(g, TENSOR_OP_SUM, op1(g, TENSOR_OP_EXP, c)));
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *xi = randn(2, (int64_t[]){64, 64}, false), *wi = randn(2, (int64_t[]){64, 64}, true), *o;
    Tensor *in[2] = {xi, wi};
    memset(&keeper, 0, sizeof keeper);
    rt_check(rt_plan_run(p, in, 2, &o, 1, &kcb), "run");
    cr_assert_eq(rt_plan_last_run(p), RT_RUN_TRAINING);
    rt_check(ag_backward(1, &o, NULL, false, false, 0, NULL), "backward");
    cr_assert_eq(keeper.n, 2, "the static hook and the marker's hook ran");
    for (int i = 0; i < keeper.n; i++) {
        expect_bitwise(keeper.kept[i], keeper.copies[i], "a kept gradient after the backward");
        tensor_decref(keeper.kept[i]);
        tensor_decref(keeper.copies[i]);
    }
    tensor_decref(o);
    tensor_decref(xi);
    tensor_decref(wi);
    rt_plan_free(p);
    graph_free(g);
}
