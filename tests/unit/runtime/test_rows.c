/* test_rows.c — row groups of the ember backend's fusion (src/runtime/fuse.c): reductions over
 * the last dim (sum / mean with keepdim) and the row kernels softmax / log_softmax / layer_norm
 * fused with their pointwise producers and consumers, one pass per row.  Results and gradients
 * equal eager bit for bit (the row kernels are the eager ones, sums keep eager's order), fused
 * or not, on one thread or split between several, with broadcast, transposed and per-row
 * inputs and outputs. */
#include "rt_train.h"
#include "src/tensor/parallel.h"
#include "src/runtime/rt.h"

TestSuite(rows, .init = rt_test_setup, .fini = rt_test_teardown);

static const RtOptions unfused = {.fuse = false, .reuse = true, .recompute = true, .compile_backward = true};

static void compare_with_eager(const Graph *g, const RtOptions *opts, Tensor *const *in, int n_in) {
    Tensor *a[8] = {0}, *b[8] = {0};
    RtPlan *p = rt_checkp(rt_plan_new(g, opts), "plan");
    int n = rt_plan_run(p, in, n_in, a, 8, NULL);
    rt_check(n, "plan run");
    int m = rt_run_eager(g, in, n_in, b, 8, NULL);
    rt_check(m, "eager run");
    cr_assert_eq(n, m);
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "output %d", i);
        expect_bitwise(a[i], b[i], what);
        tensor_decref(a[i]);
        tensor_decref(b[i]);
    }
    rt_plan_free(p);
}

/* instructions of g's inference program that are not views */
static int count_instrs(const Graph *g, GraphNode *const *outs, int n_outs, int *n_groups) {
    Graph *d = rt_checkp(rt_decompose(g, NULL), "decompose");
    GraphNode *douts[8];
    const GraphNode *o = graph_output_node(d);
    for (int i = 0; i < n_outs; i++) douts[i] = o->args[0].as.seq.items[i].as.node;
    (void)outs;
    RtOptions opt = RT_OPTIONS_INIT;
    RtProg *p = rt_checkp(rt_prog_new(d, douts, n_outs, false, &opt), "prog");
    int c = 0;
    for (int k = 0; k < p->n_ins; k++) c += p->ins[k].kind != RI_VIEW && p->ins[k].kind != RI_NOP;
    *n_groups = p->stats.n_groups;
    rt_prog_free(p);
    graph_free(d);
    return c;
}

static GraphNode *reduce_last(Graph *g, TensorOp op, GraphNode *x) {
    static const int64_t last[1] = {-1};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = last;
    a.n_ints = 1;
    a.keepdim = true;
    return opa(g, op, x, a);
}

static GraphNode *softmax(Graph *g, TensorOp op, GraphNode *x, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return opa(g, op, x, a);
}

/* attention-style scores: scale, mask, softmax, then a consumer; plus a layer norm of a
 * residual sum and hand-written row statistics (x - mean) * rsqrt(mean(xc^2) + eps) with the
 * per-row values as outputs too */
Test(rows, forward_rows_fuse_and_match_eager_bitwise) {
    Graph *g = graph_new("rows");
    GraphNode *x = ph(g, "x", 3, (int64_t[]){3, 7, 37});
    GraphNode *r = ph(g, "r", 3, (int64_t[]){3, 7, 37});
    GraphNode *mask = ph_dt(g, "mask", TENSOR_BOOL, 2, (int64_t[]){7, 37});
    GraphNode *w = ph(g, "w", 1, (int64_t[]){37}), *b = ph(g, "b", 1, (int64_t[]){37});
    TensorOpArgs mf = TENSOR_OP_ARGS_INIT;
    mf.scalar = tensor_scalar_f(-INFINITY);
    GraphNode *sc = ops(g, TENSOR_OP_MUL_SCALAR, x, tensor_scalar_f(0.125));
    GraphNode *mi[2] = {sc, mask};
    GraphNode *att = softmax(g, TENSOR_OP_SOFTMAX, opn(g, TENSOR_OP_MASKED_FILL, mi, 2, &mf), -1);
    GraphNode *y0 = op2(g, TENSOR_OP_MUL, att, r);
    static int64_t ns[1] = {37};
    TensorOpArgs ln = TENSOR_OP_ARGS_INIT;
    ln.ints = ns;
    ln.n_ints = 1;
    ln.eps = 1e-5;
    GraphNode *lni[3] = {op2(g, TENSOR_OP_ADD, x, r), w, b};
    GraphNode *y1 = op1(g, TENSOR_OP_RELU, opn(g, TENSOR_OP_LAYER_NORM, lni, 3, &ln));
    GraphNode *mu = reduce_last(g, TENSOR_OP_MEAN_DIM, x);
    GraphNode *xc = op2(g, TENSOR_OP_SUB, x, mu);
    GraphNode *var = reduce_last(g, TENSOR_OP_MEAN_DIM, op2(g, TENSOR_OP_MUL, xc, xc));
    GraphNode *rs = op1(g, TENSOR_OP_RSQRT, ops(g, TENSOR_OP_ADD_SCALAR, var, tensor_scalar_f(1e-5)));
    GraphNode *y2 = op2(g, TENSOR_OP_MUL, xc, rs);
    GraphNode *ls = softmax(g, TENSOR_OP_LOG_SOFTMAX, op1(g, TENSOR_OP_TANH, r), 2);
    GraphNode *s = reduce_last(g, TENSOR_OP_SUM_DIM, op1(g, TENSOR_OP_EXP, ls));
    GraphNode *outs[6] = {y0, y1, y2, rs, ls, s};
    output(g, outs, 6);
    Tensor *in[5] = {randn(3, (int64_t[]){3, 7, 37}, false), randn(3, (int64_t[]){3, 7, 37}, false),
                     rt_checkp(tensor_zeros(TENSOR_BOOL, 2, (int64_t[]){7, 37}), "mask"), randn(1, (int64_t[]){37}, false),
                     randn(1, (int64_t[]){37}, false)};
    bool *pm = tensor_data_ptr(in[2]);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 37; j++) pm[i * 37 + j] = j > i * 5;
    float *px = tensor_data_ptr(in[0]);
    px[40] = -0.0f;
    px[41] = 1e30f;
    compare_with_eager(g, NULL, in, 5);
    compare_with_eager(g, &unfused, in, 5);
    int groups, n = count_instrs(g, outs, 6, &groups);
    /* masked softmax * r | layer_norm(x + r) relu | the statistics | log_softmax, exp, sum */
    cr_assert_leq(n, 4, "row groups: %d instructions", n);
    for (int i = 0; i < 5; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* a row group's inputs: a transposed tensor (its rows strided), a per-row tensor [R, 1] and a
 * row vector; rows longer than one chunk of the pointwise loops */
Test(rows, strided_and_per_row_inputs) {
    Graph *g = graph_new("strided");
    GraphNode *xt = ph(g, "xt", 2, (int64_t[]){300, 21});
    GraphNode *c = ph(g, "c", 2, (int64_t[]){21, 1});
    GraphNode *v = ph(g, "v", 1, (int64_t[]){300});
    GraphNode *x = op1(g, TENSOR_OP_T, xt);   /* [21, 300], rows strided */
    GraphNode *h = op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MUL, x, c), v);
    GraphNode *sm = softmax(g, TENSOR_OP_SOFTMAX, h, 1);
    GraphNode *t = reduce_last(g, TENSOR_OP_SUM_DIM, op2(g, TENSOR_OP_MUL, sm, h));
    GraphNode *outs[2] = {op2(g, TENSOR_OP_SUB, sm, t), op2(g, TENSOR_OP_MUL, t, c)};
    output(g, outs, 2);
    Tensor *in[3] = {randn(2, (int64_t[]){300, 21}, false), randn(2, (int64_t[]){21, 1}, false), randn(1, (int64_t[]){300}, false)};
    compare_with_eager(g, NULL, in, 3);
    compare_with_eager(g, &unfused, in, 3);
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* a minGPT-like training graph: layer norm, masked softmax attention scores, log_softmax +
 * nll: the backward's layer-norm and softmax rules become row groups; outputs and every
 * gradient equal eager autograd's bit for bit */
static Graph *block(void) {
    Graph *g = graph_new("block");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){24, 40});
    GraphNode *w = ph(g, "w", 1, (int64_t[]){40}), *b = ph(g, "b", 1, (int64_t[]){40});
    GraphNode *q = ph(g, "q", 2, (int64_t[]){40, 40});
    GraphNode *lw = ph(g, "lw", 2, (int64_t[]){10, 40}), *lb = ph(g, "lb", 1, (int64_t[]){10});
    GraphNode *t = ph_dt(g, "target", TENSOR_INT64, 1, (int64_t[]){24});
    static int64_t ns[1] = {40};
    TensorOpArgs ln = TENSOR_OP_ARGS_INIT;
    ln.ints = ns;
    ln.n_ints = 1;
    GraphNode *lni[3] = {x, w, b};
    GraphNode *n = opn(g, TENSOR_OP_LAYER_NORM, lni, 3, &ln);
    GraphNode *s = op2(g, TENSOR_OP_MM, n, q);
    GraphNode *att = softmax(g, TENSOR_OP_SOFTMAX, ops(g, TENSOR_OP_MUL_SCALAR, s, tensor_scalar_f(0.3)), -1);
    GraphNode *h = op2(g, TENSOR_OP_ADD, op1(g, TENSOR_OP_GELU, op2(g, TENSOR_OP_MUL, att, n)), x);
    GraphNode *logits = linear(g, h, lw, lb);
    GraphNode *lsi[1] = {softmax(g, TENSOR_OP_LOG_SOFTMAX, logits, 1)};
    GraphNode *nl[2] = {lsi[0], t};
    GraphNode *outs[2] = {opn(g, TENSOR_OP_NLL_LOSS, nl, 2, NULL), h};
    output(g, outs, 2);
    return g;
}

Test(rows, training_block_gradients_match_eager_bitwise) {
    Graph *g = block();
    Tensor *in[7] = {randn(2, (int64_t[]){24, 40}, false), randn(1, (int64_t[]){40}, false), randn(1, (int64_t[]){40}, false),
                     randn(2, (int64_t[]){40, 40}, false), randn(2, (int64_t[]){10, 40}, false), randn(1, (int64_t[]){10}, false),
                     rt_checkp(tensor_randint(0, 10, 1, (int64_t[]){24}), "randint")};
    bool rg[7] = {true, true, true, true, true, true, false};
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    cr_assert_eq(train_compare_plan(p, g, in, rg, 7, -1, NULL), RT_RUN_TRAINING);
    /* no row reduction or row kernel runs on its own (the sums over rows, for bias gradients, do) */
    char *d = rt_plan_describe(p);
    cr_assert(strstr(d, "backward program:") && !strstr(d, "] op mean") && !strstr(d, "] op softmax") &&
                  !strstr(d, "] op layer_norm") && !strstr(d, "] op log_softmax"),
              "%s", d);
    free(d);
    rt_plan_free(p);
    bool rg_w[7] = {false, true, false, true, false, true, false};
    cr_assert_eq(train_compare(g, in, rg_w, 7, -1), RT_RUN_TRAINING);
    for (int i = 0; i < 7; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* rows split between the pool's threads: the same bits */
Test(rows, parallel_row_groups_match_eager) {
    tensor_set_num_threads(3);
    Graph *g = graph_new("par");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){400, 129});
    GraphNode *w = ph(g, "w", 1, (int64_t[]){129});
    static int64_t ns[1] = {129};
    TensorOpArgs ln = TENSOR_OP_ARGS_INIT;
    ln.ints = ns;
    ln.n_ints = 1;
    GraphNode *lni[3] = {op1(g, TENSOR_OP_TANH, x), w, NULL};
    GraphNode *n = opn(g, TENSOR_OP_LAYER_NORM, lni, 3, &ln);
    GraphNode *sm = softmax(g, TENSOR_OP_SOFTMAX, op1(g, TENSOR_OP_EXP, n), -1);
    GraphNode *outs[2] = {sm, reduce_last(g, TENSOR_OP_MEAN_DIM, op1(g, TENSOR_OP_LOG, sm))};
    output(g, outs, 2);
    Tensor *in[2] = {randn(2, (int64_t[]){400, 129}, false), randn(1, (int64_t[]){129}, false)};
    compare_with_eager(g, NULL, in, 2);
    cr_assert_eq(tensor__pool_workers(), 2, "the pool ran this test's loops");
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* sums over the leading dims (bias gradients) join the group of their producer: each column is
 * added in double, row after row, as eager's kernel does; a consumer of the sum stays outside
 * the group (the sum is complete only after the last row) */
Test(rows, column_sums_join_their_producers) {
    Graph *g = graph_new("cols");
    GraphNode *x = ph(g, "x", 3, (int64_t[]){5, 6, 33});
    GraphNode *w = ph(g, "w", 1, (int64_t[]){33});
    GraphNode *h = op1(g, TENSOR_OP_TANH, op2(g, TENSOR_OP_MUL, x, w));
    static const int64_t d0[1] = {0}, d01[2] = {0, 1};
    TensorOpArgs a0 = TENSOR_OP_ARGS_INIT, a01 = TENSOR_OP_ARGS_INIT;
    a0.ints = d0;
    a0.n_ints = 1;
    a01.ints = d01;
    a01.n_ints = 2;
    a01.keepdim = true;
    GraphNode *s0 = opa(g, TENSOR_OP_SUM_DIM, h, a0);                                  /* [6, 33] */
    GraphNode *s01 = opa(g, TENSOR_OP_SUM_DIM, op2(g, TENSOR_OP_MUL, h, x), a01);      /* [1, 1, 33] */
    GraphNode *use = op2(g, TENSOR_OP_MUL, h, s01);                                    /* reads a finished sum */
    GraphNode *ln = reduce_last(g, TENSOR_OP_MEAN_DIM, h);
    GraphNode *outs[4] = {s0, s01, use, opa(g, TENSOR_OP_SUM_DIM, op2(g, TENSOR_OP_SUB, h, ln), a0)};
    output(g, outs, 4);
    Tensor *in[2] = {randn(3, (int64_t[]){5, 6, 33}, false), randn(1, (int64_t[]){33}, false)};
    compare_with_eager(g, NULL, in, 2);
    compare_with_eager(g, &unfused, in, 2);
    int groups, n = count_instrs(g, outs, 4, &groups);
    cr_assert_leq(n, 3, "the sums joined their producers: %d instructions", n);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}
