/* test_conformance_hooks.c — C ports of ../shared/conformance scripts 12–24: tensor hooks
 * (order, replacement, removal), register_multi_grad_hook (written here the way the binding
 * will: tensor hooks + current_graph_task_id + will_engine_execute_node), saved-tensor hooks,
 * disable_saved_tensors_hooks, version-counter errors and custom Functions. */
#include "tests/support/tensor_test.h"

TestSuite(conformance_hooks, .init = tt_setup);

#define F(x) tensor_scalar_f(x)
#define I(x) tensor_scalar_i(x)

static char logbuf[8192];
static void logf_(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t n = strlen(logbuf);
    vsnprintf(logbuf + n, sizeof logbuf - n, fmt, ap);
    va_end(ap);
}

static void vals(char *buf, size_t cap, const Tensor *t) {
    float v[64];
    int64_t n = tensor_numel(t);
    cr_assert(n <= 64);
    cr_assert_eq(tensor_copy_to_buffer(t, TENSOR_FLOAT32, v), 0);
    size_t k = 0;
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int64_t i = 0; i < n; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%g", i ? ", " : "", v[i]);
    snprintf(buf + k, cap - k, "]");
}

/* ---- 12_tensor_hooks_order ------------------------------------------------------------------------ */

static int h_log(void *ctx, Tensor *g, Tensor **rep) {
    char b[256];
    vals(b, sizeof b, g);
    logf_("%s sees %s;", (const char *)ctx, b);
    *rep = NULL;
    return 0;
}
static int h_times10(void *ctx, Tensor *g, Tensor **rep) {
    logf_("%s;", (const char *)ctx);
    *rep = tensor_mul_scalar(g, I(10));
    return *rep ? 0 : -1;
}
static int h_none(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    logf_("%s;", (const char *)ctx);
    *rep = NULL;
    return 0;
}
static int h_plus1(void *ctx, Tensor *g, Tensor **rep) {
    (void)ctx;
    *rep = tensor_add_scalar(g, F(1.0));
    return 0;
}
static int h_times3(void *ctx, Tensor *g, Tensor **rep) {
    (void)ctx;
    *rep = tensor_mul_scalar(g, F(3.0));
    return 0;
}
static int releases;
static void count_release(void *ctx) {
    (void)ctx;
    releases++;
}

TT_TEST(conformance_hooks, tensor_hooks_order) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = ag_mul_scalar(x, I(2));
    Tensor *wt = TT(((int64_t[]){3}), ((float[]){1, -1, 0.5}));
    AgHookHandle h1, h2, h3, h4;
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){h_log, "h1", count_release}, &h1), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){h_times10, "h2", count_release}, &h2), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){h_log, "h3", count_release}, &h3), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){h_none, "h4", count_release}, &h4), 0);
    Tensor *yw = ag_mul(y, wt), *loss = ag_sum(yw);
    cr_assert_eq(ag_backward(1, &loss, NULL, true, false, 0, NULL), 0);
    cr_assert_str_eq(logbuf, "h1 sees [1, -1, 0.5];h2;h3 sees [10, -10, 5];h4;");
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){20, -20, 10}), 0);
    logbuf[0] = 0;
    cr_assert(ag_hook_remove(h2));
    cr_assert_eq(releases, 1);
    cr_assert_eq(ag_set_grad(x, NULL), 0);
    cr_assert_eq(ag_backward(1, &loss, NULL, true, false, 0, NULL), 0);
    cr_assert_str_eq(logbuf, "h1 sees [1, -1, 0.5];h3 sees [1, -1, 0.5];h4;");
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, -2, 1}), 0);
    cr_assert(!ag_hook_remove(h2), "double remove is a no-op");
    logbuf[0] = 0;
    ag_hook_remove(h1);
    ag_hook_remove(h3);
    ag_hook_remove(h4);
    cr_assert_eq(releases, 4);
    cr_assert_eq(ag_set_grad(x, NULL), 0);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(logbuf, "");
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, -2, 1}), 0);
    /* hooks on a leaf run in order, each seeing the previous one's result */
    Tensor *leaf = TTG(((int64_t[]){2}), ((float[]){2, -1}));
    cr_assert_eq(ag_tensor_register_hook(leaf, (AgTensorHook){h_plus1, NULL, NULL}, NULL), 0);
    cr_assert_eq(ag_tensor_register_hook(leaf, (AgTensorHook){h_times3, NULL, NULL}, NULL), 0);
    Tensor *ll = ag_mul(leaf, leaf), *lls = ag_sum(ll);
    cr_assert_eq(ag_backward(1, &lls, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(leaf), ((int64_t[]){2}), ((float[]){15, -3}), 0);
    Tensor *c = TT(((int64_t[]){1}), ((float[]){1}));
    cr_assert_eq(ag_tensor_register_hook(c, (AgTensorHook){h_none, "x", NULL}, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "doesn't require gradient");
    TT_FREE(x, y, wt, yw, loss, leaf, ll, lls, c);
}

/* ---- multi-grad hook, mode "all" (15, 16) ---------------------------------------------------------- */

typedef struct MultiGrad {
    int n;
    AgNode *nodes[8];          /* grad_fn or AccumulateGrad of each tensor (owned) */
    int64_t task;              /* graph task of the current round */
    int count, nb_calls;
    Tensor *buf[8];
    int calls;
    char out[1024];
} MultiGrad;

typedef struct MultiGradSlot {
    MultiGrad *mg;
    int idx;
} MultiGradSlot;

static int mg_hook(void *ctx, Tensor *g, Tensor **rep) {
    MultiGradSlot *s = ctx;
    MultiGrad *mg = s->mg;
    *rep = NULL;
    int64_t id = ag_current_graph_task_id();
    cr_assert_neq(id, -1);
    if (mg->task != id) {
        mg->task = id;
        mg->count = 0;
        mg->nb_calls = 0;
        for (int i = 0; i < mg->n; i++) {
            bool will;
            cr_assert_eq(ag_will_engine_execute_node(mg->nodes[i], &will), 0);
            mg->nb_calls += will;
            tensor_decref(mg->buf[i]);
            mg->buf[i] = NULL;
        }
    }
    tensor_incref(g);
    mg->buf[s->idx] = g;
    if (++mg->count == mg->nb_calls) {
        mg->calls++;
        size_t k = strlen(mg->out);
        k += (size_t)snprintf(mg->out + k, sizeof mg->out - k, "[");
        for (int i = 0; i < mg->n; i++)
            k += (size_t)snprintf(mg->out + k, sizeof mg->out - k, "%s%s", i ? ", " : "", mg->buf[i] ? "True" : "False");
        snprintf(mg->out + k, sizeof mg->out - k, "]");
        for (int i = 0; i < mg->n; i++) {
            tensor_decref(mg->buf[i]);
            mg->buf[i] = NULL;
        }
        mg->task = -2;
    }
    return 0;
}

static void mg_register(MultiGrad *mg, MultiGradSlot *slots, Tensor **ts, int n, AgHookHandle *handles) {
    memset(mg, 0, sizeof *mg);
    mg->n = n;
    mg->task = -2;
    for (int i = 0; i < n; i++) {
        uint32_t nr;
        mg->nodes[i] = ag_gradient_edge(ts[i], &nr);
        cr_assert(mg->nodes[i]);
        slots[i] = (MultiGradSlot){mg, i};
        cr_assert_eq(ag_tensor_register_hook(ts[i], (AgTensorHook){mg_hook, &slots[i], NULL}, &handles[i]), 0);
    }
}

static void mg_free(MultiGrad *mg) {
    for (int i = 0; i < mg->n; i++) {
        ag_node_decref(mg->nodes[i]);
        tensor_decref(mg->buf[i]);
    }
}

TT_TEST(conformance_hooks, multi_grad_doc) {
    Tensor *a = TTG(((int64_t[]){2, 3}), ((float[]){1, 2, 3, 4, 5, 6}));
    Tensor *b = TTG(((int64_t[]){2, 3}), ((float[]){0.5, -1, 2, 1.5, 0.25, -0.5}));
    Tensor *c = ag_mul(a, b), *d = ag_mul(a, b);
    MultiGrad mg;
    MultiGradSlot slots[4];
    AgHookHandle hs[4];
    Tensor *ts[4] = {a, b, c, d};
    mg_register(&mg, slots, ts, 4, hs);
    Tensor *cs = ag_sum(c), *ds = ag_sum(d), *cd = ag_add(c, d), *cds = ag_sum(cd);
    cr_assert_eq(ag_backward(1, &cs, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(ag_backward(1, &cs, NULL, true, false, 1, &a), 0);
    cr_assert_eq(ag_backward(1, &ds, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(ag_backward(1, &cds, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(ag_backward(1, &ds, NULL, true, false, 1, &b), 0);
    cr_assert_str_eq(mg.out, "[True, True, True, False][True, False, True, False][True, True, False, True][True, True, True, True]"
                             "[False, True, False, True]");
    cr_assert_eq(mg.calls, 5);
    for (int i = 0; i < 4; i++) ag_hook_remove(hs[i]);
    cr_assert_eq(ag_backward(1, &cs, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(mg.calls, 5);
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2, 3}), ((float[]){3, -6, 12, 9, 1.5, -3}), 0);
    TT_EXPECT(ag_grad_of(b), ((int64_t[]){2, 3}), ((float[]){6, 12, 18, 24, 30, 36}), 0);
    mg_free(&mg);
    TT_FREE(a, b, c, d, cs, ds, cd, cds);
}

static int mark(void *ctx, Tensor *g, Tensor **rep) {
    (void)g;
    logf_("%s,", (const char *)ctx);
    *rep = NULL;
    return 0;
}

TT_TEST(conformance_hooks, multi_grad_all_values) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *h = ag_mul_scalar(x, I(3)), *y = ag_mul(h, h), *ys = ag_sum(y), *z = ag_mul_scalar(ys, F(0.5));
    Tensor *o5 = TTG(((int64_t[]){1}), ((float[]){5})), *other = ag_mul_scalar(o5, I(2));
    cr_assert_eq(ag_tensor_register_hook(x, (AgTensorHook){mark, "x", NULL}, NULL), 0);
    cr_assert_eq(ag_tensor_register_hook(h, (AgTensorHook){mark, "h", NULL}, NULL), 0);
    cr_assert_eq(ag_tensor_register_hook(y, (AgTensorHook){mark, "y", NULL}, NULL), 0);
    MultiGrad mg;
    MultiGradSlot slots[4];
    AgHookHandle hs[4];
    Tensor *ts[4] = {y, h, x, other};
    mg_register(&mg, slots, ts, 4, hs);
    cr_assert_eq(ag_backward(1, &z, NULL, true, false, 0, NULL), 0);
    cr_assert_str_eq(logbuf, "y,h,x,");
    cr_assert_str_eq(mg.out, "[True, True, True, False]");
    logbuf[0] = 0;
    cr_assert_eq(ag_backward(1, &z, NULL, true, false, 1, &x), 0);
    cr_assert_str_eq(logbuf, "y,h,x,", "hooks on the way to inputs= still run");
    cr_assert_str_eq(mg.out, "[True, True, True, False][True, True, True, False]");
    mg_free(&mg);
    TT_FREE(x, h, y, ys, z, o5, other);
}

/* ---- 19_saved_hooks_order ------------------------------------------------------------------------ */

static int pack(void *ctx, Tensor *t, AgPacked *out) {
    (void)ctx;
    char b[256];
    vals(b, sizeof b, t);
    logf_("pack %s leaf=%s;", b, ag_grad_fn(t) ? "False" : "True");
    tensor_incref(t);
    out->obj = t;
    out->release = (void (*)(void *))tensor_decref;
    return 0;
}

static Tensor *unpack(void *ctx, void *obj) {
    (void)ctx;
    char b[256];
    vals(b, sizeof b, obj);
    logf_("unpack %s;", b);
    tensor_incref(obj);
    return obj;
}

static int count_unpacks(void) {
    int n = 0;
    for (const char *p = logbuf; (p = strstr(p, "unpack")); p++) n++;
    return n;
}

TT_TEST(conformance_hooks, saved_hooks_order) {
    Tensor *a = tt_grad(tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){5}));
    Tensor *b1 = tt_grad(tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){5})), *b = ag_mul_scalar(b1, I(2));
    AgSavedTensorHooks hooks = {pack, unpack, NULL, NULL};
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), 0);
    Tensor *y = ag_mul(a, b);
    ag_saved_tensors_hooks_pop();
    cr_assert_str_eq(logbuf, "pack [1, 1, 1, 1, 1] leaf=True;pack [2, 2, 2, 2, 2] leaf=False;");
    logbuf[0] = 0;
    Tensor *ys = ag_sum(y);
    cr_assert_eq(ag_backward(1, &ys, NULL, false, false, 0, NULL), 0);
    cr_assert_str_eq(logbuf, "unpack [1, 1, 1, 1, 1];unpack [2, 2, 2, 2, 2];");
    logbuf[0] = 0;

    Tensor *x = TTG(((int64_t[]){2}), ((float[]){0.5, -1}));
    Tensor *w = TTG(((int64_t[]){2}), ((float[]){1.5, 0.5}));
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), 0);
    Tensor *e = ag_exp(x);
    cr_assert_str_eq(logbuf, "pack [1.64872, 0.367879] leaf=False;");
    logbuf[0] = 0;
    Tensor *s = ag_unary(TENSOR_OP_SIN, x);
    cr_assert_str_eq(logbuf, "pack [0.5, -1] leaf=True;");
    logbuf[0] = 0;
    Tensor *w1 = ag_sub_scalar(w, F(1.0)), *r = ag_relu(w1);
    cr_assert_str_eq(logbuf, "pack [0.5, 0] leaf=False;");
    logbuf[0] = 0;
    Tensor *es = ag_add(e, s), *esr = ag_add(es, r), *t = ag_sum(esr);
    cr_assert_str_eq(logbuf, "");
    Tensor *p = ag_mul(x, w), *q = ag_mul(p, p);
    cr_assert_str_eq(logbuf, "pack [0.5, -1] leaf=True;pack [1.5, 0.5] leaf=True;pack [0.75, -0.5] leaf=False;pack [0.75, -0.5] leaf=False;");
    logbuf[0] = 0;
    ag_saved_tensors_hooks_pop();
    Tensor *outside = ag_mul(x, w);
    cr_assert_str_eq(logbuf, "");
    Tensor *qs = ag_sum(q), *total = ag_add(t, qs);
    cr_assert_eq(ag_backward(1, &total, NULL, true, false, 0, NULL), 0);
    cr_assert_eq(count_unpacks(), 7);
    logbuf[0] = 0;
    cr_assert_eq(ag_backward(1, &total, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(count_unpacks(), 7);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){9.5526, 0.8164}), 1e-4);
    TT_EXPECT(ag_grad_of(w), ((int64_t[]){2}), ((float[]){3.5, 2.0}), 1e-5);
    TT_FREE(a, b1, b, y, ys, x, w, e, s, w1, r, es, esr, t, p, q, outside, qs, total);
}

/* ---- 21_disable_saved_hooks --------------------------------------------------------------------- */

TT_TEST(conformance_hooks, disable_saved_hooks) {
    const char *msg = "saved tensors default hooks are disabled";
    AgSavedTensorHooks hooks = {pack, unpack, NULL, count_release};
    ag_saved_tensors_hooks_disable(msg);
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, msg);
    cr_assert_eq(releases, 0, "a refused pair stays owned by the caller");
    /* nested disable with another message, then restore */
    char *prev = strdup(ag_saved_tensors_hooks_disabled_message());
    ag_saved_tensors_hooks_disable("inner message");
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "inner message");
    ag_saved_tensors_hooks_disable(prev);
    free(prev);
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, msg);
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2})), *xx = ag_mul(x, x), *y = ag_sum(xx);
    cr_assert_eq(ag_backward(1, &y, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){2}), ((float[]){2, 4}), 0);
    ag_saved_tensors_hooks_disable(NULL);
    cr_assert_null(ag_saved_tensors_hooks_disabled_message());
    cr_assert_eq(ag_saved_tensors_hooks_push(hooks), 0);
    Tensor *z = TTG(((int64_t[]){1}), ((float[]){3})), *w = ag_mul(z, z);
    ag_saved_tensors_hooks_pop();
    cr_assert_eq(releases, 0, "the saved variables still use the pair");
    cr_assert_eq(ag_backward(1, &w, NULL, false, false, 0, NULL), 0);
    cr_assert_eq(releases, 1, "released when the last saved variable is freed");
    cr_assert_str_eq(logbuf, "pack [3] leaf=True;pack [3] leaf=True;unpack [3];unpack [3];");
    TT_FREE(x, xx, y, z, w);
}

/* ---- 23_inplace_saved_error ---------------------------------------------------------------------- */

TT_TEST(conformance_hooks, inplace_saved_error) {
    Tensor *t = tensor_zeros(TENSOR_FLOAT32, 1, (int64_t[]){4});
    cr_assert_eq(tensor_version(t), 0);
    cr_assert_eq(ag_add_scalar_(t, F(1.0)), 0);
    cr_assert_eq(tensor_version(t), 1);
    cr_assert_eq(ag_mul_scalar_(t, F(2.0)), 0);
    cr_assert_eq(ag_zero_(t), 0);
    cr_assert_eq(tensor_version(t), 3);
    Tensor *v = ag_slice(t, 0, 1, 3, 1);
    cr_assert_eq(ag_add_scalar_(v, F(5.0)), 0);
    cr_assert_eq(tensor_version(t), 4);
    cr_assert_eq(tensor_version(v), 4);
    TT_EXPECT(t, ((int64_t[]){4}), ((float[]){0, 5, 5, 0}), 0);
    Tensor *u = ag_add_scalar(t, I(1));
    cr_assert_eq(tensor_version(u), 0);

    Tensor *a = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *b = ag_mul_scalar(a, I(2)), *c = ag_mul(b, b);
    cr_assert_eq(ag_add_scalar_(b, F(1.0)), 0);
    Tensor *cs = ag_sum(c);
    cr_assert_eq(ag_backward(1, &cs, NULL, false, false, 0, NULL), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    "[torch.FloatTensor [2]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead. "
                    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).");
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){0.5, 1}));
    Tensor *y = ag_exp(x), *y3 = ag_mul_scalar(y, I(3)), *z = ag_sum(y3);
    cr_assert_eq(ag_mul_scalar_(y, F(2.0)), 0);
    cr_assert_eq(ag_backward(1, &z, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "[torch.FloatTensor [2]], which is output 0 of ExpBackward0, is at version 1");
    Tensor *p = TTG(((int64_t[]){2}), ((float[]){1, -1}));
    Tensor *q = ag_mul_scalar(p, I(2)), *r = ag_add_scalar(q, I(1));
    cr_assert_eq(ag_mul_scalar_(q, F(3.0)), 0);
    Tensor *k = TT(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *rk = ag_mul(r, k), *rks = ag_sum(rk), *qs = ag_sum(q), *s = ag_add(rks, qs);
    cr_assert_eq(ag_backward(1, &s, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(p), ((int64_t[]){2}), ((float[]){8, 10}), 0);
    Tensor *m = TTG(((int64_t[]){2}), ((float[]){2, 3}));
    Tensor *n = ag_mul_scalar(m, F(1.0)), *o = ag_unary(TENSOR_OP_SIN, n);
    cr_assert_eq(ag_add_scalar_(n, F(1.0)), 0);
    Tensor *n1 = TT(((int64_t[]){1}), ((float[]){1}));
    cr_assert_eq(ag_sub_(n, n1), 0);
    Tensor *os = ag_sum(o);
    cr_assert_eq(ag_backward(1, &os, NULL, false, false, 0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "is at version 2; expected version 0 instead");
    TT_FREE(t, v, u, a, b, c, cs, x, y, y3, z, p, q, r, k, rk, rks, qs, s, m, n, o, n1, os);
}

/* ---- 24_custom_function ---------------------------------------------------------------------------- */

typedef struct ScaledMulCtx {
    double scale;
    char note[64];
} ScaledMulCtx;

static int scaled_mul_backward(void *vctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    ScaledMulCtx *ctx = vctx;
    cr_assert_eq(n_go, 1);
    cr_assert_eq(n_args, 3);
    Tensor *saved[2];
    if (ag_function_saved_tensors(node, saved) < 0) return -1;
    logf_("backward: %s needs_input_grad (%d, %d, %d);", ctx->note, ag_function_needs_input_grad(node, 0),
          ag_function_needs_input_grad(node, 1), ag_function_needs_input_grad(node, 2));
    if (ag_function_needs_input_grad(node, 0)) {
        Tensor *ys = ag_mul_scalar(saved[1], tensor_scalar_f(ctx->scale)), *y1 = ag_add_scalar(ys, tensor_scalar_i(1));
        gi[0] = ag_mul(go[0], y1);
        TT_FREE(ys, y1);
    }
    if (ag_function_needs_input_grad(node, 1)) {
        Tensor *gx = ag_mul(go[0], saved[0]);
        gi[1] = ag_mul_scalar(gx, tensor_scalar_f(ctx->scale));
        tensor_decref(gx);
    }
    TT_FREE(saved[0], saved[1]);
    return 0;
}

static Tensor *scaled_mul_apply(Tensor *x, Tensor *y, double scale) {
    ScaledMulCtx *ctx = calloc(1, sizeof *ctx);
    Tensor *args[3] = {x, y, NULL};
    AgNode *node = ag_function_new("ScaledMulBackward", 3, args, (AgFunctionBackward){scaled_mul_backward, ctx, free});
    cr_assert(node);
    bool prev = ag_set_grad_enabled(false);
    logf_("forward: grad enabled %d needs_input_grad (%d, %d, %d);", ag_is_grad_enabled(), ag_function_needs_input_grad(node, 0),
          ag_function_needs_input_grad(node, 1), ag_function_needs_input_grad(node, 2));
    ctx->scale = scale;
    snprintf(ctx->note, sizeof ctx->note, "saved %g", scale);
    Tensor *xy = ag_mul(x, y), *xys = ag_mul_scalar(xy, tensor_scalar_f(scale)), *out = ag_add(xys, x);
    TT_FREE(xy, xys);
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_set_outputs(node, 1, &out), 0);
    Tensor *sv[2] = {x, y};
    cr_assert_eq(ag_function_save_for_backward(node, 2, sv), 0);
    ag_node_decref(node);
    return out;
}

static int square_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)ctx;
    (void)n_go;
    (void)n_args;
    Tensor *t;
    if (ag_function_saved_tensors(node, &t) < 0) return -1;
    Tensor *t2 = ag_mul_scalar(t, tensor_scalar_i(2));
    gi[0] = ag_mul(t2, go[0]);
    TT_FREE(t, t2);
    return 0;
}

static Tensor *square_apply(Tensor *t) {
    AgNode *node = ag_function_new("SquareBackward", 1, &t, (AgFunctionBackward){square_backward, NULL, NULL});
    bool prev = ag_set_grad_enabled(false);
    Tensor *out = ag_mul(t, t);
    ag_set_grad_enabled(prev);
    cr_assert_eq(ag_function_set_outputs(node, 1, &out), 0);
    cr_assert_eq(ag_function_save_for_backward(node, 1, &t), 0);
    ag_node_decref(node);
    return out;
}

TT_TEST(conformance_hooks, custom_function) {
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, 2, -1}));
    Tensor *y = TTG(((int64_t[]){3}), ((float[]){0.5, -0.5, 2}));
    Tensor *out = scaled_mul_apply(x, y, 3.0);
    TT_EXPECT(out, ((int64_t[]){3}), ((float[]){2.5, -1, -7}), 1e-6);
    cr_assert_str_eq(ag_node_name(ag_grad_fn(out)), "ScaledMulBackward");
    cr_assert(ag_requires_grad(out));
    cr_assert_eq(ag_node_num_next(ag_grad_fn(out)), 2, "edges only for tensor arguments");
    Tensor *k123 = TT(((int64_t[]){3}), ((float[]){1, 2, 3})), *ok = ag_mul(out, k123), *oks = ag_sum(ok);
    cr_assert_eq(ag_backward(1, &oks, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2.5, -1, 21}), 1e-6);
    TT_EXPECT(ag_grad_of(y), ((int64_t[]){3}), ((float[]){3, 12, -9}), 1e-6);
    Tensor *k = TT(((int64_t[]){3}), ((float[]){2, 2, 2}));
    cr_assert_eq(ag_set_grad(x, NULL), 0);
    Tensor *out2 = scaled_mul_apply(x, k, 0.5), *o2s = ag_sum(out2);
    cr_assert_eq(ag_backward(1, &o2s, NULL, false, false, 0, NULL), 0);
    TT_EXPECT(ag_grad_of(x), ((int64_t[]){3}), ((float[]){2, 2, 2}), 1e-6);
    cr_assert_null(ag_grad_of(k));
    Tensor *n1 = TT(((int64_t[]){2}), ((float[]){1, 2})), *n2 = TT(((int64_t[]){2}), ((float[]){3, 4}));
    Tensor *out3 = scaled_mul_apply(n1, n2, 1.0);
    cr_assert(!ag_requires_grad(out3) && !ag_grad_fn(out3));
    TT_EXPECT(out3, ((int64_t[]){2}), ((float[]){4, 10}), 1e-6);
    cr_assert_str_eq(logbuf, "forward: grad enabled 0 needs_input_grad (1, 1, 0);backward: saved 3 needs_input_grad (1, 1, 0);"
                             "forward: grad enabled 0 needs_input_grad (1, 0, 0);backward: saved 0.5 needs_input_grad (1, 0, 0);"
                             "forward: grad enabled 0 needs_input_grad (0, 0, 0);");
    Tensor *a = TTG(((int64_t[]){2}), ((float[]){3, -1.5}));
    Tensor *sa = square_apply(a), *b = square_apply(sa), *bs = ag_sum(b);
    TT_EXPECT(b, ((int64_t[]){2}), ((float[]){81, 5.0625}), 1e-6);
    cr_assert_eq(ag_backward(1, &bs, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    TT_EXPECT(ag_grad_of(a), ((int64_t[]){2}), ((float[]){108, -13.5}), 1e-6);
    uint32_t nr;
    cr_assert_str_eq(ag_node_name(ag_grad_fn(b)), "SquareBackward");
    cr_assert_str_eq(ag_node_name(ag_node_next(ag_grad_fn(b), 0, &nr)), "SquareBackward");
    TT_FREE(x, y, out, k123, ok, oks, k, out2, o2s, n1, n2, out3, a, sa, b, bs);
}
