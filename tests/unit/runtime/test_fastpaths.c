/* test_fastpaths.c — the ember backend's special-cased fused groups (src/runtime/fuse.c): a lone
 * clone runs as a strided copy (copy_units) instead of the register program.  Each path must
 * give eager's bits: odd inner sizes (1, under and over a chunk, not a multiple of the vector
 * width), inner dims gathered with a stride, broadcast (stride-0) inputs, NaN payloads and
 * signed zeros, 1-row shapes, and split between threads. */
#include "rt_train.h"
#include "src/tensor/parallel.h"
#include "src/runtime/rt.h"

TestSuite(fastpaths, .init = rt_test_setup, .fini = rt_test_teardown);

static const RtOptions unfused = {.fuse = false, .reuse = true, .recompute = true, .compile_backward = true};

/* outputs of g run as a plan and eagerly: same bits (NaN payloads included) */
static void compare_with_eager(const Graph *g, const RtOptions *opts, Tensor *const *in, int n_in) {
    Tensor *a[8] = {0}, *b[8] = {0};
    RtPlan *p = rt_checkp(rt_plan_new(g, opts), "plan");
    int n = rt_plan_run(p, in, n_in, a, 8, NULL);
    rt_check(n, "plan run");
    int m = rt_run_eager(g, in, n_in, b, 8, NULL);
    rt_check(m, "eager run");
    cr_assert_eq(n, m);
    for (int i = 0; i < n; i++) {
        cr_assert(tensor_is_contiguous(a[i]) && tensor_is_contiguous(b[i]), "output %d contiguous", i);
        cr_assert_eq(tensor_numel(a[i]), tensor_numel(b[i]));
        cr_assert(memcmp(tensor_data_ptr(a[i]), tensor_data_ptr(b[i]), sizeof(float) * (size_t)tensor_numel(a[i])) == 0,
                  "output %d: bits differ", i);
        tensor_decref(a[i]);
        tensor_decref(b[i]);
    }
    rt_plan_free(p);
}

static GraphNode *transpose(Graph *g, GraphNode *x, int d0, int d1) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = d0;
    a.dim2 = d1;
    return opa(g, TENSOR_OP_TRANSPOSE, x, a);
}

static GraphNode *expand(Graph *g, GraphNode *x, int nd, const int64_t *shape) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = nd;
    return opa(g, TENSOR_OP_EXPAND, x, a);
}

/* x's floats with NaNs of several payloads and signs, -0, infinities and a denormal planted */
static Tensor *special_values(int nd, const int64_t *shape) {
    Tensor *t = randn(nd, shape, false);
    float *p = tensor_data_ptr(t);
    int64_t n = tensor_numel(t);
    static const uint32_t bits[] = {0x7fc00001u, 0xffc12345u, 0x7f800001u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000003u};
    for (int64_t i = 0; i < n && i / 5 < (int64_t)(sizeof bits / sizeof bits[0]); i += 5) memcpy(&p[i], &bits[i / 5], 4);
    return t;
}

/* [B, T, h, d] -> [B, h, T, d] and back (attention heads), [B, h, d, T] (k transposed: the inner
 * dim gathered with a stride), inner sizes 1, 7, 16, 33, 130 (over one chunk), 1-row shapes */
static void heads(int64_t B, int64_t T, int64_t h, int64_t d) {
    Graph *g = graph_new("heads");
    GraphNode *x = ph(g, "x", 4, (int64_t[]){B, T, h, d});
    GraphNode *q = op1(g, TENSOR_OP_CLONE, transpose(g, x, 1, 2));                      /* [B, h, T, d] */
    GraphNode *k = op1(g, TENSOR_OP_CLONE, transpose(g, transpose(g, x, 1, 2), 2, 3));  /* [B, h, d, T] */
    GraphNode *back = op1(g, TENSOR_OP_CLONE, transpose(g, q, 1, 2));                   /* [B, T, h, d] */
    GraphNode *outs[3] = {q, k, back};
    output(g, outs, 3);
    Tensor *in[1] = {special_values(4, (int64_t[]){B, T, h, d})};
    compare_with_eager(g, NULL, in, 1);
    compare_with_eager(g, &unfused, in, 1);
    tensor_decref(in[0]);
    graph_free(g);
}

Test(fastpaths, lone_clones_copy_eager_bits) {
    heads(4, 32, 4, 16);
    heads(2, 5, 3, 7);
    heads(1, 1, 1, 1);
    heads(1, 3, 2, 1);
    heads(3, 2, 2, 33);
    heads(1, 2, 3, 130);
}

/* a clone of a broadcast (stride-0) input, and of a row vector expanded over rows */
Test(fastpaths, lone_clone_of_broadcast_input) {
    Graph *g = graph_new("bcast");
    GraphNode *v = ph(g, "v", 2, (int64_t[]){5, 1});
    GraphNode *r = ph(g, "r", 1, (int64_t[]){131});
    GraphNode *outs[2] = {op1(g, TENSOR_OP_CLONE, expand(g, v, 2, (int64_t[]){5, 131})),
                          op1(g, TENSOR_OP_CLONE, expand(g, r, 2, (int64_t[]){3, 131}))};
    output(g, outs, 2);
    Tensor *in[2] = {special_values(2, (int64_t[]){5, 1}), special_values(1, (int64_t[]){131})};
    compare_with_eager(g, NULL, in, 2);
    for (int i = 0; i < 2; i++) tensor_decref(in[i]);
    graph_free(g);
}

/* large enough to be split between the pool's threads */
Test(fastpaths, parallel_lone_clone) {
    tensor_set_num_threads(3);
    heads(8, 64, 8, 24);
    heads(2, 300, 3, 129);
    tensor_set_num_threads(1);
}
