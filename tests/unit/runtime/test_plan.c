/* test_plan.c — plans without autograd: results equal eager interpretation (bitwise: fusion
 * keeps every op's float32 rounding), buffer reuse never clobbers a live value, the arena
 * checker catches overlaps, fused vs unfused loops, broadcasting and masks inside fused loops,
 * GEMM epilogues in place, views without copies, multi-output ops, constant outputs, and input
 * validation. */
#include "rt_test.h"
#include "src/tensor/parallel.h"
#include "src/runtime/rt.h"

TestSuite(plan, .init = rt_test_setup, .fini = rt_test_teardown);

static const RtOptions unfused = {.fuse = false, .reuse = true, .recompute = true, .compile_backward = true};
static const RtOptions no_reuse = {.fuse = false, .reuse = false, .recompute = true, .compile_backward = true};

/* runs g through a plan (opts) and eagerly; every output compared (tol < 0: bitwise) */
static void compare_with_eager(const Graph *g, const RtOptions *opts, Tensor *const *in, int n_in, double tol) {
    Tensor *a[8] = {0}, *b[8] = {0};
    RtPlan *p = rt_checkp(rt_plan_new(g, opts), "plan");
    int n = rt_plan_run(p, in, n_in, a, 8, NULL);
    rt_check(n, "plan run");
    cr_assert_eq(rt_plan_last_run(p), RT_RUN_INFERENCE);
    int m = rt_run_eager(g, in, n_in, b, 8, NULL);
    rt_check(m, "eager run");
    cr_assert_eq(n, m);
    for (int i = 0; i < n; i++) {
        if (!a[i] || !b[i]) {
            cr_assert_eq(a[i], b[i], "output %d: constant vs tensor", i);
            continue;
        }
        char what[32];
        snprintf(what, sizeof what, "output %d", i);
        expect_close(a[i], b[i], tol, what);
    }
    /* a second run reuses the arena and must give the same values */
    Tensor *c[8] = {0};
    rt_check(rt_plan_run(p, in, n_in, c, 8, NULL), "second run");
    for (int i = 0; i < n; i++)
        if (a[i]) expect_bitwise(c[i], a[i], "second run");
    for (int i = 0; i < n; i++) {
        tensor_decref(a[i]);
        tensor_decref(b[i]);
        tensor_decref(c[i]);
    }
    rt_plan_free(p);
}

static Graph *mlp(int64_t batch, int64_t in, int64_t hid, int64_t out) {
    Graph *g = graph_new("mlp");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){batch, in});
    GraphNode *w1 = ph(g, "w1", 2, (int64_t[]){hid, in}), *b1 = ph(g, "b1", 1, (int64_t[]){hid});
    GraphNode *w2 = ph(g, "w2", 2, (int64_t[]){out, hid}), *b2 = ph(g, "b2", 1, (int64_t[]){out});
    GraphNode *h = op1(g, TENSOR_OP_RELU, linear(g, x, w1, b1));
    output1(g, linear(g, h, w2, b2));
    return g;
}

Test(plan, mlp_matches_eager_bitwise_with_gemm_epilogue) {
    Graph *g = mlp(4, 8, 16, 3);
    Tensor *in[5] = {randn(2, (int64_t[]){4, 8}, false), randn(2, (int64_t[]){16, 8}, false), randn(1, (int64_t[]){16}, false),
                     randn(2, (int64_t[]){3, 16}, false), randn(1, (int64_t[]){3}, false)};
    compare_with_eager(g, NULL, in, 5, -1);
    compare_with_eager(g, &unfused, in, 5, -1);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o[1];
    rt_check(rt_plan_run(p, in, 5, o, 1, NULL), "run");
    tensor_decref(o[0]);
    char *d = rt_plan_describe(p);
    cr_assert(strstr(d, "gemm {addmm + relu }"), "linear+relu runs as a GEMM with its epilogue:\n%s", d);
    cr_assert(strstr(d, "= t "), "the weight's transpose is a view:\n%s", d);
    free(d);
    rt_plan_free(p);
    for (int i = 0; i < 5; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* A long-lived value (keep) must survive a chain of short-lived ones that reuse buffers: if the
 * planner gave keep's bytes to a later value, the final add would read garbage. */
static Graph *clobber_graph(int chain) {
    Graph *g = graph_new("clobber");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){16, 32});
    GraphNode *keep = ops(g, TENSOR_OP_MUL_SCALAR, x, tensor_scalar_f(3.0));
    GraphNode *v = x;
    for (int i = 0; i < chain; i++) {
        v = op1(g, i % 2 ? TENSOR_OP_TANH : TENSOR_OP_SIN, v);
        /* a reduction between steps forces materialisation even when fusing */
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        int64_t dim = 1;
        a.ints = &dim;
        a.n_ints = 1;
        a.keepdim = true;
        GraphNode *s = opa(g, TENSOR_OP_SUM_DIM, v, a);
        v = op2(g, TENSOR_OP_SUB, v, s);
    }
    /* the chain's buffers die inside the run (the output is a reduction), so they share the
     * arena with keep */
    output1(g, op1(g, TENSOR_OP_MEAN, op2(g, TENSOR_OP_ADD, v, keep)));
    return g;
}

Test(plan, buffer_reuse_never_clobbers_live_values) {
    Graph *g = clobber_graph(6);
    Tensor *x = randn(2, (int64_t[]){16, 32}, false);
    compare_with_eager(g, NULL, &x, 1, -1);
    compare_with_eager(g, &unfused, &x, 1, -1);
    compare_with_eager(g, &no_reuse, &x, 1, -1);
    /* white box: the arena really is shared, and the invariant holds */
    Graph *d = rt_checkp(rt_decompose(g, NULL), "decompose");
    GraphNode *out = graph_output_node(d)->args[0].as.seq.items[0].as.node;
    RtProg *p = rt_checkp(rt_prog_new(d, &out, 1, false, &unfused), "prog");
    char err[256];
    cr_assert_eq(rt_prog_check(p, err, sizeof err), 0, "%s", err);
    int n_buf_vals = 0;
    for (int v = 0; v < p->n_vals; v++) n_buf_vals += p->vals[v].kind == RV_BUF;
    size_t one = 16 * 32 * sizeof(float);
    cr_assert_geq(n_buf_vals, 13, "every unfused step writes a buffer");
    cr_assert_leq(p->arena_bytes, 3 * one, "buffers are reused: arena %zu bytes for %d values", p->arena_bytes, n_buf_vals);
    /* the checker does catch a value that would be clobbered */
    int a = -1, b = -1;
    for (int i = 0; i < p->n_bufs && b < 0; i++)
        for (int j = 0; j < i && b < 0; j++)
            if (p->bufs[i].offset >= 0 && p->bufs[j].offset >= 0 && !(p->bufs[i].end < p->bufs[j].start) &&
                !(p->bufs[j].end < p->bufs[i].start)) {
                a = j;
                b = i;
            }
    cr_assert(b >= 0, "some buffers are alive at the same time");
    int64_t saved = p->bufs[b].offset;
    p->bufs[b].offset = p->bufs[a].offset;
    cr_assert_eq(rt_prog_check(p, err, sizeof err), -1);
    cr_assert(strstr(err, "overlap"), "%s", err);
    p->bufs[b].offset = saved;
    rt_prog_free(p);
    graph_free(d);
    tensor_decref(x);
    graph_free(g);
}

/* gelu(x*w + b) * sigmoid(x) - 0.5: one fused loop; bitwise equal to eager and to unfused */
Test(plan, pointwise_chain_fuses_into_one_loop) {
    Graph *g = graph_new("pw");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){33, 70});
    GraphNode *w = ph(g, "w", 1, (int64_t[]){70});
    GraphNode *b = ph(g, "b", 2, (int64_t[]){33, 1});
    GraphNode *t = op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MUL, x, w), b);
    GraphNode *ge = op1(g, TENSOR_OP_GELU, t);
    GraphNode *s = op1(g, TENSOR_OP_SIGMOID, x);
    GraphNode *y = ops(g, TENSOR_OP_SUB_SCALAR, op2(g, TENSOR_OP_MUL, ge, s), tensor_scalar_f(0.5));
    output1(g, y);
    Tensor *in[3] = {randn(2, (int64_t[]){33, 70}, false), randn(1, (int64_t[]){70}, false), randn(2, (int64_t[]){33, 1}, false)};
    compare_with_eager(g, NULL, in, 3, -1);
    compare_with_eager(g, &unfused, in, 3, -1);
    Graph *d = rt_checkp(rt_decompose(g, NULL), "decompose");
    GraphNode *out = graph_output_node(d)->args[0].as.seq.items[0].as.node;
    RtOptions o = RT_OPTIONS_INIT;
    RtProg *p = rt_checkp(rt_prog_new(d, &out, 1, false, &o), "prog");
    cr_assert_eq(p->n_ins, 1, "one instruction for the whole chain");
    cr_assert_eq(p->stats.n_fused_ops, 6, "mul, add, gelu, sigmoid, mul, sub");
    cr_assert_eq(p->arena_bytes, 0, "no intermediate is materialised");
    rt_prog_free(p);
    graph_free(d);
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* masks inside a fused loop: relu'(x) style masked_fill, where, comparisons, clamp, a bool
 * output, non-contiguous (transposed) and broadcast inputs, and special values */
Test(plan, masks_and_strided_inputs_in_fused_loops) {
    Graph *g = graph_new("masks");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){40, 9});
    GraphNode *y = ph(g, "y", 2, (int64_t[]){9, 40});
    GraphNode *yt = op1(g, TENSOR_OP_T, y);
    GraphNode *le = ops(g, TENSOR_OP_LE_SCALAR, x, tensor_scalar_i(0));
    TensorOpArgs mf = TENSOR_OP_ARGS_INIT;
    mf.scalar = tensor_scalar_f(-2.5);
    GraphNode *in2[2] = {yt, le};
    GraphNode *m = opn(g, TENSOR_OP_MASKED_FILL, in2, 2, &mf);
    GraphNode *gt = op2(g, TENSOR_OP_GT, x, yt);
    GraphNode *w3[3] = {gt, m, op1(g, TENSOR_OP_EXP, x)};
    GraphNode *wh = opn(g, TENSOR_OP_WHERE, w3, 3, NULL);
    TensorOpArgs cl = TENSOR_OP_ARGS_INIT;
    cl.has_min = true;
    cl.scalar = tensor_scalar_f(-1);
    cl.has_max = true;
    cl.scalar2 = tensor_scalar_i(2);
    GraphNode *c = opa(g, TENSOR_OP_CLAMP, wh, cl);
    GraphNode *nb = op1(g, TENSOR_OP_LOGICAL_NOT, gt);
    GraphNode *r = ops(g, TENSOR_OP_RSUB_SCALAR, c, tensor_scalar_i(1));
    GraphNode *outs[3] = {r, nb, ops(g, TENSOR_OP_POW_SCALAR, x, tensor_scalar_i(2))};
    output(g, outs, 3);
    Tensor *in[2] = {randn(2, (int64_t[]){40, 9}, false), randn(2, (int64_t[]){9, 40}, false)};
    float *px = tensor_data_ptr(in[0]);
    px[0] = NAN;
    px[1] = INFINITY;
    px[2] = -0.0f;
    compare_with_eager(g, NULL, in, 2, -1);
    compare_with_eager(g, &unfused, in, 2, -1);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* a result takes over a dying input's buffer in place */
Test(plan, in_place_takeover) {
    Graph *g = graph_new("inplace");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){8, 8});
    GraphNode *w = ph(g, "w", 2, (int64_t[]){8, 8});
    GraphNode *m = op2(g, TENSOR_OP_MM, x, w);
    GraphNode *e = op1(g, TENSOR_OP_TANH, m);
    GraphNode *m2 = op2(g, TENSOR_OP_MM, e, w);
    output1(g, op1(g, TENSOR_OP_RELU, m2));
    Tensor *in[2] = {randn(2, (int64_t[]){8, 8}, false), randn(2, (int64_t[]){8, 8}, false)};
    compare_with_eager(g, NULL, in, 2, -1);
    Graph *d = rt_checkp(rt_decompose(g, NULL), "decompose");
    GraphNode *out = graph_output_node(d)->args[0].as.seq.items[0].as.node;
    RtOptions o = RT_OPTIONS_INIT;
    RtProg *p = rt_checkp(rt_prog_new(d, &out, 1, false, &o), "prog");
    cr_assert_eq(p->stats.n_epilogues, 2);
    cr_assert_eq(p->stats.n_inplace, 2, "both activations overwrite their GEMM's output");
    char err[256];
    cr_assert_eq(rt_prog_check(p, err, sizeof err), 0, "%s", err);
    rt_prog_free(p);
    graph_free(d);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* views never copy: an output that views an input shares its storage and is replayed as a
 * recorded view (its _base is the input) */
Test(plan, views_share_storage) {
    Graph *g = graph_new("views");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){6, 4});
    TensorOpArgs v = TENSOR_OP_ARGS_INIT;
    int64_t shape[2] = {4, 6};
    v.ints = shape;
    v.n_ints = 2;
    GraphNode *xv = opa(g, TENSOR_OP_VIEW, x, v);
    GraphNode *t = op1(g, TENSOR_OP_T, xv);
    GraphNode *e = op1(g, TENSOR_OP_EXP, t);
    TensorOpArgs flat = TENSOR_OP_ARGS_INIT;
    int64_t n24 = 24;
    flat.ints = &n24;
    flat.n_ints = 1;
    GraphNode *ev = opa(g, TENSOR_OP_VIEW, op1(g, TENSOR_OP_CLONE, e), flat);
    GraphNode *outs[3] = {t, e, ev};
    output(g, outs, 3);
    Tensor *xin = randn(2, (int64_t[]){6, 4}, false);
    compare_with_eager(g, NULL, &xin, 1, -1);
    RtPlan *p = rt_plan_new(g, NULL);
    Tensor *o[3];
    rt_check(rt_plan_run(p, &xin, 1, o, 3, NULL), "run");
    cr_assert(tensor_same_storage(o[0], xin), "the transposed view shares the input's storage");
    cr_assert_eq(tensor_base(o[0]), xin, "its base is the input");
    cr_assert(tensor_is_view(o[2]));
    cr_assert_eq(tensor_strides(o[0])[0], 1);
    for (int i = 0; i < 3; i++) tensor_decref(o[i]);
    rt_plan_free(p);
    tensor_decref(xin);
    graph_free(g);
}

Test(plan, multi_output_ops_constants_and_reductions) {
    Graph *g = graph_new("multi");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){5, 12});
    TensorOpArgs sp = TENSOR_OP_ARGS_INIT;
    sp.start = 5;
    sp.dim = 1;
    GraphNode *s = opa(g, TENSOR_OP_SPLIT, x, sp);
    GraphNode *a = graph_getitem(g, s, 0), *c = graph_getitem(g, s, 2);
    GraphNode *cat_in[2] = {op1(g, TENSOR_OP_SIGMOID, a), c};
    TensorOpArgs ca = TENSOR_OP_ARGS_INIT;
    ca.dim = 1;
    GraphNode *cat = opn(g, TENSOR_OP_CAT, cat_in, 2, &ca);
    TensorOpArgs md = TENSOR_OP_ARGS_INIT;
    md.dim = 1;
    GraphNode *mx = opa(g, TENSOR_OP_MAX_DIM, cat, md);
    TensorOpArgs sm = TENSOR_OP_ARGS_INIT;
    sm.dim = -1;
    GraphNode *outs[4] = {graph_getitem(g, mx, 0), graph_getitem(g, mx, 1), NULL, opa(g, TENSOR_OP_SOFTMAX, cat, sm)};
    output(g, outs, 4);
    Tensor *xin = randn(2, (int64_t[]){5, 12}, false);
    compare_with_eager(g, NULL, &xin, 1, -1);
    tensor_decref(xin);
    graph_free(g);
}

Test(plan, input_validation) {
    Graph *g = mlp(4, 8, 16, 3);
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    Tensor *in[5] = {randn(2, (int64_t[]){4, 9}, false), randn(2, (int64_t[]){16, 8}, false), randn(1, (int64_t[]){16}, false),
                     randn(2, (int64_t[]){3, 16}, false), randn(1, (int64_t[]){3}, false)};
    Tensor *o[1];
    cr_assert_eq(rt_plan_run(p, in, 5, o, 1, NULL), -1);
    cr_assert_str_eq(tensor_error_message(),
                     "runtime: input 0 does not match the graph's placeholder: expected f32[4, 8][8, 1]cpu, got f32[4, 9][9, 1]cpu");
    cr_assert_eq(rt_plan_run(p, in, 4, o, 1, NULL), -1);
    cr_assert_str_eq(tensor_error_message(), "runtime: the graph takes 5 inputs, got 4");
    tensor_error_clear();
    for (int i = 0; i < 5; i++) tensor_decref(in[i]);
    rt_plan_free(p);
    graph_free(g);
}

Test(plan, unsupported_graphs_are_errors) {
    Graph *g = graph_new("bad");
    GraphNode *x = ph(g, "x", 1, (int64_t[]){3});
    graph_get_attr(g, "weight", "weight");
    output1(g, op1(g, TENSOR_OP_EXP, x));
    cr_assert_null(rt_plan_new(g, NULL));
    cr_assert(strstr(tensor_error_message(), "get_attr"), "%s", tensor_error_message());
    tensor_error_clear();
    graph_free(g);
}

/* big enough that the fused loop is split between the pool's threads: same bits as eager
 * (every element is computed exactly as by one thread), with broadcasting, a transposed input
 * and an in-place output */
Test(plan, parallel_fused_loops_match_eager) {
    tensor_set_num_threads(3);
    Graph *g = graph_new("par");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){300, 257});
    GraphNode *y = ph(g, "y", 2, (int64_t[]){257, 300});
    GraphNode *b = ph(g, "b", 1, (int64_t[]){257});
    GraphNode *t = op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MUL, x, op1(g, TENSOR_OP_T, y)), b);
    GraphNode *ge = op1(g, TENSOR_OP_GELU, t);
    GraphNode *e = op1(g, TENSOR_OP_EXP, op1(g, TENSOR_OP_TANH, ge));
    GraphNode *outs[2] = {e, op1(g, TENSOR_OP_SUM, op2(g, TENSOR_OP_MUL, e, ge))};
    output(g, outs, 2);
    Tensor *in[3] = {randn(2, (int64_t[]){300, 257}, false), randn(2, (int64_t[]){257, 300}, false),
                     randn(1, (int64_t[]){257}, false)};
    compare_with_eager(g, NULL, in, 3, -1);
    cr_assert_eq(tensor__pool_workers(), 2, "the pool ran this test's loops");
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* the same fused loop (and a GEMM with a bias + GELU epilogue) run with 1 and then 2 threads:
 * bit for bit the same outputs */
Test(plan, fused_loops_one_and_two_threads_same_bits) {
    Graph *g = graph_new("par12");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){600, 257});
    GraphNode *y = ph(g, "y", 2, (int64_t[]){257, 600});
    GraphNode *b = ph(g, "b", 1, (int64_t[]){257});
    GraphNode *t = op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MUL, x, op1(g, TENSOR_OP_T, y)), b);
    GraphNode *e = op1(g, TENSOR_OP_EXP, op1(g, TENSOR_OP_TANH, op1(g, TENSOR_OP_GELU, t)));
    GraphNode *mm = op1(g, TENSOR_OP_GELU, op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MM, x, y), op2(g, TENSOR_OP_MM, x, y)));
    GraphNode *outs[3] = {e, op1(g, TENSOR_OP_SUM, e), mm};
    output(g, outs, 3);
    Tensor *in[3] = {randn(2, (int64_t[]){600, 257}, false), randn(2, (int64_t[]){257, 600}, false),
                     randn(1, (int64_t[]){257}, false)};
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    Tensor *one[8] = {0}, *two[8] = {0};
    tensor_set_num_threads(1);
    int n = rt_plan_run(p, in, 3, one, 8, NULL);
    rt_check(n, "1-thread run");
    tensor_set_num_threads(2);
    rt_check(rt_plan_run(p, in, 3, two, 8, NULL), "2-thread run");
    cr_assert_eq(tensor__pool_workers(), 1, "the second run had a worker");
    for (int i = 0; i < n; i++) {
        expect_bitwise(two[i], one[i], "2 threads vs 1");
        tensor_decref(one[i]);
        tensor_decref(two[i]);
    }
    rt_plan_free(p);
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}
