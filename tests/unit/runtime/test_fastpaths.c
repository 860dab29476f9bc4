/* test_fastpaths.c — the ember backend's special-cased paths: a lone clone run as a strided copy
 * (src/runtime/fuse.c copy_units), gelu's oneDNN forms eight / sixteen lanes at a time
 * (src/tensor/gelu_onednn_vec.c, called by the fused groups), a linear layer's bias vector
 * copied row by row before its GEMM (src/runtime/exec.c run_gemm).  Each must give eager's
 * bits: odd sizes (1, under and over a chunk, not a multiple of the vector width), inner dims
 * gathered with a stride, broadcast (stride-0) inputs, NaN payloads and signed zeros, 1-row
 * shapes, split between threads, and every EMBER_ISA level. */
#include "rt_train.h"
#include "src/tensor/parallel.h"
#include "src/runtime/rt.h"
#include "src/tensor/gelu_onednn.h"
#include "src/tensor/gelu_onednn_vec.h"
#include "src/tensor/isa.h"

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

/* ---- gelu's oneDNN forms, eight lanes at a time (src/tensor/gelu_onednn_vec.c) ---------------- */

static uint32_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 32);
}

/* every row length 0..41 at every offset mod 8, then 2^20 random bit patterns (every exponent,
 * NaNs, infinities, denormals) and a dense sweep of [-12, 12] (the derivative's cancellation
 * near -0.75 included): the vector rows give the one-lane rows' bits, under each ISA cap */
static void gelu_rows_match(void) {
    enum { N = 1 << 20 };
    float *x = malloc(sizeof(float) * N), *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
    uint64_t seed = 12345;
    for (int i = 0; i < N; i++) {
        uint32_t u = lcg(&seed);
        if (i % 2) memcpy(&x[i], &u, 4);
        else x[i] = -12.0f + 24.0f * (float)i / (float)N;
    }
    static const uint32_t special[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u, 0x80000000u, 0,
                                       0x00000001u, 0x80800000u, 0x42b17218u, 0xc2aeac50u, 0x42b17219u, 0xc2aeac51u,
                                       0xbf400000u, 0x3f400000u, 0x7f7fffffu, 0xff7fffffu};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) memcpy(&x[i * 3 + 1], &special[i], 4);
    for (int bwd = 0; bwd < 2; bwd++) {
        tensor__gelu_onednn_rows(b, 1, x, 1, N, bwd);
        tensor__gelu_onednn_row_vec(a, x, N, bwd);
        for (int i = 0; i < N; i++)
            cr_assert(memcmp(&a[i], &b[i], 4) == 0, "gelu %s of %a (%08x): %a vs %a", bwd ? "derivative" : "forward", x[i],
                      *(uint32_t *)&x[i], a[i], b[i]);
        for (int off = 0; off < 8; off++)
            for (int n = 0; n <= 41; n++) {
                memset(a, 0x55, sizeof(float) * 64);
                tensor__gelu_onednn_row_vec(a + off, x + 1 + off, n, bwd);
                for (int i = 0; i < n; i++) cr_assert(memcmp(&a[off + i], &b[1 + off + i], 4) == 0, "row %d at %d", n, off);
                for (int i = off + n; i < 64; i++) cr_assert_eq(*(uint32_t *)&a[i], 0x55555555u, "wrote past the row");
            }
        /* in place */
        memcpy(a, x, sizeof(float) * 1000);
        tensor__gelu_onednn_row_vec(a, a, 1000, bwd);
        cr_assert(memcmp(a, b, sizeof(float) * 1000) == 0, "in place");
    }
    free(x);
    free(a);
    free(b);
}

Test(fastpaths, gelu_onednn_vector_rows_give_one_lane_bits) {
    static const TensorIsa caps[] = {TENSOR_ISA_DEFAULT, TENSOR_ISA_AVX2, TENSOR_ISA_AVX512};
    for (int c = 0; c < 3; c++) {
        if (tensor__isa_set(caps[c]) < 0) continue;
        gelu_rows_match();
    }
    tensor__isa_set(tensor__isa_supported(TENSOR_ISA_AVX512) ? TENSOR_ISA_AVX512
                    : tensor__isa_supported(TENSOR_ISA_AVX2) ? TENSOR_ISA_AVX2 : TENSOR_ISA_DEFAULT);
}

/* a GELU MLP block's training step (linear, oneDNN-form gelu, linear, residual): the fused gelu
 * and its derivative give eager autograd's bits, rows of 37 (a tail of 5 lanes) and 1 row */
static void gelu_block(int64_t rows, int64_t width) {
    Graph *g = graph_new("gelu");
    GraphNode *x = ph(g, "x", 2, (int64_t[]){rows, width});
    GraphNode *w = ph(g, "w", 2, (int64_t[]){width, width}), *b = ph(g, "b", 1, (int64_t[]){width});
    TensorOpArgs ga = TENSOR_OP_ARGS_INIT;
    ga.approximate = TENSOR_GELU_ONEDNN;
    GraphNode *h = opa(g, TENSOR_OP_GELU, linear(g, x, w, b), ga);
    GraphNode *y = op2(g, TENSOR_OP_ADD, op1(g, TENSOR_OP_TANH, op2(g, TENSOR_OP_MUL, h, x)), x);
    output1(g, y);
    Tensor *in[3] = {randn(2, (int64_t[]){rows, width}, false), randn(2, (int64_t[]){width, width}, false),
                     randn(1, (int64_t[]){width}, false)};
    float *px = tensor_data_ptr(in[0]);
    px[0] = -0.75f;
    bool rg[3] = {true, true, true};
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    cr_assert_eq(train_compare_plan(p, g, in, rg, 3, -1, NULL), RT_RUN_TRAINING);
    char *d = rt_plan_describe(p);
    cr_assert(strstr(d, "backward program:") && !strstr(d, "] op gelu"), "gelu runs fused: %s", d);
    free(d);
    rt_plan_free(p);
    for (int i = 0; i < 3; i++) tensor_decref(in[i]);
    graph_free(g);
}

Test(fastpaths, fused_gelu_training_matches_eager_bitwise) {
    static const TensorIsa caps[] = {TENSOR_ISA_DEFAULT, TENSOR_ISA_AVX2, TENSOR_ISA_AVX512};
    for (int c = 0; c < 3; c++) {
        if (tensor__isa_set(caps[c]) < 0) continue;
        gelu_block(9, 37);
        gelu_block(1, 16);
        gelu_block(3, 130);
    }
    tensor__isa_set(tensor__isa_supported(TENSOR_ISA_AVX512) ? TENSOR_ISA_AVX512
                    : tensor__isa_supported(TENSOR_ISA_AVX2) ? TENSOR_ISA_AVX2 : TENSOR_ISA_DEFAULT);
}

/* ---- a GEMM's bias rows (src/runtime/exec.c run_gemm) --------------------------------------- */

/* addmm with a contiguous bias vector (copied row by row), a strided one (a column of a matrix)
 * and a full [M, N] bias (both through tensor__copy_into), beta and alpha not 1, 1-row and
 * odd sizes: eager's bits, inference and training */
static void addmm_case(int64_t M, int64_t K, int64_t N, double beta, double alpha) {
    Graph *g = graph_new("addmm");
    GraphNode *b = ph(g, "b", 1, (int64_t[]){N});
    GraphNode *bm = ph(g, "bm", 2, (int64_t[]){N, 2});
    GraphNode *bf = ph(g, "bf", 2, (int64_t[]){M, N});
    GraphNode *x = ph(g, "x", 2, (int64_t[]){M, K});
    GraphNode *w = ph(g, "w", 2, (int64_t[]){K, N});
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.beta = tensor_scalar_f(beta);
    a.alpha = tensor_scalar_f(alpha);
    TensorOpArgs sel = TENSOR_OP_ARGS_INIT;
    sel.dim = 1;
    sel.start = 1;
    GraphNode *col = opa(g, TENSOR_OP_SELECT, bm, sel);   /* [N], stride 2 */
    GraphNode *i0[3] = {b, x, w}, *i1[3] = {col, x, w}, *i2[3] = {bf, x, w};
    GraphNode *outs[3] = {opn(g, TENSOR_OP_ADDMM, i0, 3, &a), opn(g, TENSOR_OP_ADDMM, i1, 3, &a), opn(g, TENSOR_OP_ADDMM, i2, 3, &a)};
    output(g, outs, 3);
    Tensor *in[5] = {randn(1, (int64_t[]){N}, false), randn(2, (int64_t[]){N, 2}, false), randn(2, (int64_t[]){M, N}, false),
                     randn(2, (int64_t[]){M, K}, false), randn(2, (int64_t[]){K, N}, false)};
    float *pb = tensor_data_ptr(in[0]);
    pb[0] = -0.0f;
    compare_with_eager(g, NULL, in, 5);
    bool rg[5] = {true, true, true, true, true};
    cr_assert_eq(train_compare(g, in, rg, 5, -1), RT_RUN_TRAINING);
    for (int i = 0; i < 5; i++) tensor_decref(in[i]);
    graph_free(g);
}

Test(fastpaths, gemm_bias_rows_match_eager_bitwise) {
    addmm_case(128, 64, 192, 1.0, 1.0);
    addmm_case(1, 5, 37, 1.0, 1.0);
    addmm_case(7, 3, 1, 0.5, 2.0);
    addmm_case(9, 33, 17, -1.5, 0.25);
}
