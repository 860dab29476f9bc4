/* bench_runtime.c — the runtime against eager interpretation of the same graph (rt_run_eager:
 * ag_op_run per node, the eager engine for backward).  Workloads: an MLP 784-256-256-10 training
 * step (forward, cross-entropy, backward) at batch 1 and 64, and a pointwise-heavy GELU-MLP
 * with layer norm at batch 64.  Prints per-step microseconds (best of 7 repetitions), the
 * speedup, and the peak activation memory of one step (storage bytes allocated above the
 * parameters, inputs and gradients; the compiled plan's arenas included), compiled vs eager.
 * Not a test: no assertions on timings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ember/autograd.h"
#include "ember/graph.h"
#include "src/runtime/runtime.h"

/* wall-clock time (the runtime's fused loops may use several threads), and process CPU time
 * (robust on a loaded machine, meaningful single-threaded) */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, tensor_error_message());
    exit(1);
}

/* ---- graphs ---------------------------------------------------------------------------------------- */

static GraphNode *ph(Graph *g, const char *name, TensorDtype dt, int nd, const int64_t *shape) {
    GraphNode *x = graph_placeholder(g, name, name);
    x->is_tensor = true;
    x->meta.dtype = dt;
    x->meta.ndim = nd;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        x->meta.shape[i] = shape[i];
        x->meta.strides[i] = s;
        s *= shape[i];
    }
    return x;
}

static GraphNode *op(Graph *g, TensorOp o, GraphNode **in, int n, const TensorOpArgs *a) {
    GraphNode *r = graph_call_tensor_op(g, o, in, n, a, NULL, NULL, -1, NULL, NULL, 0);
    if (!r->is_tensor) die("graph");
    return r;
}

static GraphNode *linear(Graph *g, GraphNode *x, GraphNode *w, GraphNode *b) {
    GraphNode *in[3] = {x, w, b};
    return op(g, TENSOR_OP_LINEAR, in, 3, NULL);
}

static GraphNode *unary(Graph *g, TensorOp o, GraphNode *x) { return op(g, o, &x, 1, NULL); }

static GraphNode *layer_norm(Graph *g, GraphNode *x, GraphNode *w, GraphNode *b, int64_t *n) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = n;
    a.n_ints = 1;
    GraphNode *in[3] = {x, w, b};
    return op(g, TENSOR_OP_LAYER_NORM, in, 3, &a);
}

typedef struct Model {
    Graph *g;
    int n_in;
    Tensor *in[16];
    bool rg[16];
    const char *name;
} Model;

static Tensor *param(int nd, const int64_t *shape, double scale) {
    Tensor *t = tensor_randn(TENSOR_FLOAT32, nd, shape);
    if (!t || tensor_mul_scalar_(t, tensor_scalar_f(scale)) < 0 || ag_set_requires_grad(t, true) < 0) die("param");
    return t;
}

/* x -> linear -> relu -> linear -> relu -> linear -> cross_entropy */
static void mlp(Model *m, int64_t batch) {
    m->name = batch == 1 ? "mlp 784-256-256-10, batch 1" : "mlp 784-256-256-10, batch 64";
    int64_t dims[4] = {784, 256, 256, 10};
    Graph *g = graph_new("mlp");
    GraphNode *x = ph(g, "x", TENSOR_FLOAT32, 2, (int64_t[]){batch, 784});
    m->in[0] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){batch, 784});
    GraphNode *h = x;
    int k = 1;
    for (int l = 0; l < 3; l++) {
        char wn[8], bn[8];
        snprintf(wn, sizeof wn, "w%d", l);
        snprintf(bn, sizeof bn, "b%d", l);
        GraphNode *w = ph(g, wn, TENSOR_FLOAT32, 2, (int64_t[]){dims[l + 1], dims[l]});
        GraphNode *b = ph(g, bn, TENSOR_FLOAT32, 1, (int64_t[]){dims[l + 1]});
        m->in[k] = param(2, (int64_t[]){dims[l + 1], dims[l]}, 0.05);
        m->rg[k++] = true;
        m->in[k] = param(1, (int64_t[]){dims[l + 1]}, 0.05);
        m->rg[k++] = true;
        h = linear(g, h, w, b);
        if (l < 2) h = unary(g, TENSOR_OP_RELU, h);
    }
    GraphNode *t = ph(g, "target", TENSOR_INT64, 1, (int64_t[]){batch});
    m->in[k++] = tensor_randint(0, 10, 1, (int64_t[]){batch});
    GraphNode *ce[2] = {h, t};
    GraphNode *loss = op(g, TENSOR_OP_CROSS_ENTROPY, ce, 2, NULL);
    GraphArg o = graph_arg_node(loss);
    graph_output(g, &o, 1);
    m->g = g;
    m->n_in = k;
}

/* x -> [linear -> layer_norm -> gelu] x2 -> linear -> cross_entropy: pointwise-heavy */
static void gelu_mlp(Model *m, int64_t batch, int64_t in, int64_t hid) {
    static char name[96];
    snprintf(name, sizeof name, "gelu-mlp %lld-%lld-%lld-10 + layer_norm, batch %lld", (long long)in, (long long)hid,
             (long long)hid, (long long)batch);
    m->name = name;
    int64_t dims[4] = {in, hid, hid, 10};
    static int64_t ns[3][1];
    Graph *g = graph_new("gelu_mlp");
    GraphNode *x = ph(g, "x", TENSOR_FLOAT32, 2, (int64_t[]){batch, in});
    m->in[0] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){batch, in});
    GraphNode *h = x;
    int k = 1;
    for (int l = 0; l < 3; l++) {
        char wn[8], bn[8], gn[8], hn[8];
        snprintf(wn, sizeof wn, "w%d", l);
        snprintf(bn, sizeof bn, "b%d", l);
        snprintf(gn, sizeof gn, "g%d", l);
        snprintf(hn, sizeof hn, "h%d", l);
        GraphNode *w = ph(g, wn, TENSOR_FLOAT32, 2, (int64_t[]){dims[l + 1], dims[l]});
        GraphNode *b = ph(g, bn, TENSOR_FLOAT32, 1, (int64_t[]){dims[l + 1]});
        m->in[k] = param(2, (int64_t[]){dims[l + 1], dims[l]}, 0.05);
        m->rg[k++] = true;
        m->in[k] = param(1, (int64_t[]){dims[l + 1]}, 0.05);
        m->rg[k++] = true;
        h = linear(g, h, w, b);
        if (l < 2) {
            GraphNode *lw = ph(g, gn, TENSOR_FLOAT32, 1, (int64_t[]){dims[l + 1]});
            GraphNode *lb = ph(g, hn, TENSOR_FLOAT32, 1, (int64_t[]){dims[l + 1]});
            m->in[k] = param(1, (int64_t[]){dims[l + 1]}, 1.0);
            m->rg[k++] = true;
            m->in[k] = param(1, (int64_t[]){dims[l + 1]}, 0.1);
            m->rg[k++] = true;
            ns[l][0] = dims[l + 1];
            h = unary(g, TENSOR_OP_GELU, layer_norm(g, h, lw, lb, ns[l]));
        }
    }
    GraphNode *t = ph(g, "target", TENSOR_INT64, 1, (int64_t[]){batch});
    m->in[k++] = tensor_randint(0, 10, 1, (int64_t[]){batch});
    GraphNode *ce[2] = {h, t};
    GraphArg o = graph_arg_node(op(g, TENSOR_OP_CROSS_ENTROPY, ce, 2, NULL));
    graph_output(g, &o, 1);
    m->g = g;
    m->n_in = k;
}

/* ---- one training step ------------------------------------------------------------------------------- */

static void step(Model *m, RtPlan *p) {
    Tensor *loss = NULL;
    int rc = p ? rt_plan_run(p, m->in, m->n_in, &loss, 1, NULL) : rt_run_eager(m->g, m->in, m->n_in, &loss, 1, NULL);
    if (rc < 0) die("forward");
    if (ag_backward(1, &loss, NULL, false, false, 0, NULL) < 0) die("backward");
    tensor_decref(loss);
}

/* best of 7 repetitions, eager and compiled interleaved so drift hits both; t[mode][clock] */
static void time_steps(Model *m, RtPlan *p, int iters, double t[2][2]) {
    for (int a = 0; a < 2; a++) t[a][0] = t[a][1] = 1e30;
    for (int rep = 0; rep < 7; rep++)
        for (int mode = 0; mode < 2; mode++) {
            RtPlan *q = mode ? p : NULL;
            double w0 = now(), c0 = cpu_now();
            for (int i = 0; i < iters; i++) step(m, q);
            double w = (now() - w0) / iters * 1e6, c = (cpu_now() - c0) / iters * 1e6;
            if (w < t[mode][0]) t[mode][0] = w;
            if (c < t[mode][1]) t[mode][1] = c;
        }
}

static ptrdiff_t cur_bytes, peak_bytes;

static void observe(void *ud, ptrdiff_t delta) {
    (void)ud;
    cur_bytes += delta;
    if (cur_bytes > peak_bytes) peak_bytes = cur_bytes;
}

typedef struct Mem {
    size_t saved;            /* held between forward and backward: the activations */
    size_t fwd_peak;         /* peak during the forward */
    size_t step_peak;        /* peak over forward + backward (weight gradients included) */
    size_t arena;
} Mem;

/* storage bytes allocated above what was live before the step (parameters, inputs and their
 * gradients already exist); a fresh plan, so its arenas count */
static Mem measure(Model *m, const RtOptions *opts) {
    Mem r = {0};
    RtPlan *p = opts ? rt_plan_new(m->g, opts) : NULL;
    if (opts && !p) die("plan");
    cur_bytes = peak_bytes = 0;
    tensor_set_storage_observer(observe, NULL);
    Tensor *loss = NULL;
    int rc = p ? rt_plan_run(p, m->in, m->n_in, &loss, 1, NULL) : rt_run_eager(m->g, m->in, m->n_in, &loss, 1, NULL);
    if (rc < 0) die("forward");
    r.saved = (size_t)cur_bytes;
    r.fwd_peak = (size_t)peak_bytes;
    if (ag_backward(1, &loss, NULL, false, false, 0, NULL) < 0) die("backward");
    tensor_decref(loss);
    tensor_set_storage_observer(NULL, NULL);
    r.step_peak = (size_t)peak_bytes;
    r.arena = p ? rt_plan_peak_bytes(p) : 0;
    rt_plan_free(p);
    return r;
}

static bool same_grads(Model *m) {
    /* one step each from zeroed gradients: compiled gradients equal eager's bit for bit */
    Tensor *saved[16] = {0};
    RtPlan *p = rt_plan_new(m->g, NULL);
    bool same = true;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < m->n_in; i++)
            if (m->rg[i] && ag_set_grad(m->in[i], NULL) < 0) die("zero grad");
        step(m, pass == 0 ? p : NULL);
        for (int i = 0; i < m->n_in; i++) {
            if (!m->rg[i]) continue;
            Tensor *gr = ag_grad_of(m->in[i]);
            if (pass == 0) {
                saved[i] = tensor_clone(gr);
            } else {
                same &= tensor_equal(saved[i], gr);
                tensor_decref(saved[i]);
            }
        }
    }
    rt_plan_free(p);
    return same;
}

static void bench(Model *m, int iters) {
    bool same = same_grads(m);
    RtPlan *p = rt_plan_new(m->g, NULL);
    if (!p) die("plan");
    step(m, p); /* compile, allocate the arenas and the gradients */
    step(m, NULL);
    double t[2][2];
    time_steps(m, p, iters, t);
    RtOptions keep_norm = RT_OPTIONS_INIT;
    keep_norm.recompute_norm = false;
    RtOptions dflt = RT_OPTIONS_INIT;
    Mem me = measure(m, NULL), mc = measure(m, &dflt), mk = measure(m, &keep_norm);
    printf("%s\n", m->name);
    printf("  wall per step     eager %9.1f us   compiled %9.1f us   speedup %.2fx   (gradients %s)\n", t[0][0], t[1][0],
           t[0][0] / t[1][0], same ? "bitwise equal" : "DIFFER");
    printf("  CPU per step      eager %9.1f us   compiled %9.1f us   ratio   %.2fx\n", t[0][1], t[1][1], t[0][1] / t[1][1]);
    printf("  saved activations eager %9zu B    compiled %9zu B    ratio %.2f   (%zu B keeping layer_norm outputs)\n",
           me.saved, mc.saved, (double)mc.saved / (double)me.saved, mk.saved);
    printf("  forward peak      eager %9zu B    compiled %9zu B    ratio %.2f\n", me.fwd_peak, mc.fwd_peak,
           (double)mc.fwd_peak / (double)me.fwd_peak);
    printf("  whole-step peak   eager %9zu B    compiled %9zu B    ratio %.2f   (arenas %zu B; all weight gradients leave one node together)\n",
           me.step_peak, mc.step_peak, (double)mc.step_peak / (double)me.step_peak, mc.arena);
    if (getenv("BENCH_DESCRIBE")) {
        char *d = rt_plan_describe(p);
        printf("%s\n", d);
        free(d);
    }
    rt_plan_free(p);
    for (int i = 0; i < m->n_in; i++) tensor_decref(m->in[i]);
    graph_free(m->g);
}

int main(void) {
    tensor_manual_seed(7);
    /* one thread (pool and BLAS) unless BENCH_THREADS says otherwise: the figures compare
     * plans with eager at equal threads */
    const char *bt = getenv("BENCH_THREADS");
    tensor_set_num_threads(bt && atoi(bt) > 0 ? atoi(bt) : 1);
    printf("runtime benchmark (%d thread(s)): per training step (forward + cross-entropy + "
           "backward), best of 7 interleaved repetitions\n",
           tensor_get_num_threads());
    Model m;
    memset(&m, 0, sizeof m);
    mlp(&m, 1);
    bench(&m, 2000);
    memset(&m, 0, sizeof m);
    mlp(&m, 64);
    bench(&m, 200);
    memset(&m, 0, sizeof m);
    gelu_mlp(&m, 64, 256, 512);
    bench(&m, 100);
    memset(&m, 0, sizeof m);
    gelu_mlp(&m, 32, 64, 128);
    bench(&m, 1000);
    return 0;
}
