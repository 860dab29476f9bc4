/* test_rules.c — the compiled backward (src/autograd's rules recorded over fakes) against eager
 * autograd: one small graph per op (and per interesting variant: broadcasting, alpha, keepdim,
 * no affine, padding_idx, ...), plus every unary pointwise op of ops.def on its domain, each
 * inside a fused chain, run compiled and eagerly, outputs and input gradients compared bit for
 * bit; and the coverage of ops.def. */
#include "rt_train.h"
#include "src/runtime/rt.h"
#include "src/tensor/pwexpr.h"

TestSuite(rules, .init = rt_test_setup, .fini = rt_test_teardown);

typedef GraphNode *(*Build)(Graph *g, GraphNode **x);

typedef struct Case {
    const char *name;
    int n;
    int nd[4];
    int64_t shape[4][4];
    char kind[4];            /* f: float requiring grad, p: positive float requiring grad, c: float constant,
                                i: int64 index in [0, hi), b: bool mask */
    int64_t hi;
    Build build;
} Case;

static TensorOpArgs A(void) { return TENSOR_OP_ARGS_INIT; }

#define UN(NAME, OP) static GraphNode *b_##NAME(Graph *g, GraphNode **x) { return op1(g, OP, x[0]); }
#define BI(NAME, OP) static GraphNode *b_##NAME(Graph *g, GraphNode **x) { return op2(g, OP, x[0], x[1]); }
#define SC(NAME, OP, S) static GraphNode *b_##NAME(Graph *g, GraphNode **x) { return ops(g, OP, x[0], S); }

UN(neg, TENSOR_OP_NEG) UN(abs, TENSOR_OP_ABS) UN(exp, TENSOR_OP_EXP) UN(log, TENSOR_OP_LOG) UN(sqrt, TENSOR_OP_SQRT)
UN(rsqrt, TENSOR_OP_RSQRT) UN(tanh, TENSOR_OP_TANH) UN(sigmoid, TENSOR_OP_SIGMOID) UN(relu, TENSOR_OP_RELU)
UN(gelu, TENSOR_OP_GELU) UN(silu, TENSOR_OP_SILU) UN(erf, TENSOR_OP_ERF) UN(sin, TENSOR_OP_SIN) UN(cos, TENSOR_OP_COS)
UN(sign, TENSOR_OP_SIGN) UN(reciprocal, TENSOR_OP_RECIPROCAL) UN(floor, TENSOR_OP_FLOOR) UN(clone, TENSOR_OP_CLONE)
UN(sum, TENSOR_OP_SUM) UN(mean, TENSOR_OP_MEAN) UN(max, TENSOR_OP_MAX) UN(min, TENSOR_OP_MIN) UN(t, TENSOR_OP_T)
UN(squeeze, TENSOR_OP_SQUEEZE)
BI(mul, TENSOR_OP_MUL) BI(div, TENSOR_OP_DIV) BI(pow, TENSOR_OP_POW) BI(maximum, TENSOR_OP_MAXIMUM)
BI(minimum, TENSOR_OP_MINIMUM) BI(remainder, TENSOR_OP_REMAINDER) BI(mm, TENSOR_OP_MM) BI(bmm, TENSOR_OP_BMM)
BI(mv, TENSOR_OP_MV) BI(dot, TENSOR_OP_DOT) BI(matmul, TENSOR_OP_MATMUL)
SC(add_scalar, TENSOR_OP_ADD_SCALAR, tensor_scalar_f(0.25)) SC(sub_scalar, TENSOR_OP_SUB_SCALAR, tensor_scalar_i(2))
SC(mul_scalar, TENSOR_OP_MUL_SCALAR, tensor_scalar_i(3)) SC(div_scalar, TENSOR_OP_DIV_SCALAR, tensor_scalar_f(0.3))
SC(pow_scalar, TENSOR_OP_POW_SCALAR, tensor_scalar_i(3)) SC(pow_half, TENSOR_OP_POW_SCALAR, tensor_scalar_f(0.5))
SC(rpow_scalar, TENSOR_OP_RPOW_SCALAR, tensor_scalar_f(2.0)) SC(leaky_relu, TENSOR_OP_LEAKY_RELU, tensor_scalar_f(0.1))

static GraphNode *b_gelu_tanh(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.approximate = true;
    return opa(g, TENSOR_OP_GELU, x[0], a);
}
static GraphNode *b_clamp(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.has_min = a.has_max = true;
    a.scalar = tensor_scalar_f(-0.5);
    a.scalar2 = tensor_scalar_f(0.7);
    return opa(g, TENSOR_OP_CLAMP, x[0], a);
}
static GraphNode *b_add_alpha(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.alpha = tensor_scalar_i(2);
    return opn(g, TENSOR_OP_ADD, x, 2, &a);
}
static GraphNode *b_sub_alpha(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.alpha = tensor_scalar_f(1.5);
    return opn(g, TENSOR_OP_SUB, x, 2, &a);
}
static GraphNode *b_rsub(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.scalar = tensor_scalar_i(1);
    a.alpha = tensor_scalar_f(0.5);
    return opa(g, TENSOR_OP_RSUB_SCALAR, x[0], a);
}
static GraphNode *b_square(Graph *g, GraphNode **x) { return op2(g, TENSOR_OP_MUL, x[0], x[0]); }
static GraphNode *b_where(Graph *g, GraphNode **x) { return opn(g, TENSOR_OP_WHERE, x, 3, NULL); }
static GraphNode *b_masked_fill(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.scalar = tensor_scalar_f(3.5);
    return opn(g, TENSOR_OP_MASKED_FILL, x, 2, &a);
}
static GraphNode *dims(Graph *g, TensorOp op, GraphNode *x, int64_t d0, int n, bool keepdim) {
    static int64_t store[16][2];
    static int k;
    int64_t *v = store[k++ % 16];
    v[0] = d0;
    v[1] = d0 + 1;
    TensorOpArgs a = A();
    a.ints = v;
    a.n_ints = n;
    a.keepdim = keepdim;
    return opa(g, op, x, a);
}
static GraphNode *b_sum_dim(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_SUM_DIM, x[0], 0, 1, false); }
static GraphNode *b_mean_dim(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_MEAN_DIM, x[0], 1, 1, true); }
static GraphNode *b_var(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_VAR, x[0], 1, 1, false); }
static GraphNode *b_std(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_STD, x[0], 0, 0, false); }
static GraphNode *b_logsumexp(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_LOGSUMEXP, x[0], 1, 1, false); }
static GraphNode *b_amax(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_AMAX, x[0], 0, 2, false); }
static GraphNode *b_amin(Graph *g, GraphNode **x) { return dims(g, TENSOR_OP_AMIN, x[0], 1, 1, true); }
static GraphNode *b_max_dim(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return graph_getitem(g, opa(g, TENSOR_OP_MAX_DIM, x[0], a), 0);
}
static GraphNode *b_min_dim(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    a.keepdim = true;
    return graph_getitem(g, opa(g, TENSOR_OP_MIN_DIM, x[0], a), 0);
}
static GraphNode *b_view(Graph *g, GraphNode **x) {
    static int64_t s[2] = {5, 3};
    TensorOpArgs a = A();
    a.ints = s;
    a.n_ints = 2;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_VIEW, x[0], a));
}
static GraphNode *b_reshape(Graph *g, GraphNode **x) {
    static int64_t s[1] = {-1};
    TensorOpArgs a = A();
    a.ints = s;
    a.n_ints = 1;
    return op1(g, TENSOR_OP_SIN, opa(g, TENSOR_OP_RESHAPE, op1(g, TENSOR_OP_T, x[0]), a));
}
static GraphNode *b_flatten(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    a.dim2 = -1;
    return op1(g, TENSOR_OP_TANH, opa(g, TENSOR_OP_FLATTEN, x[0], a));
}
static GraphNode *b_transpose(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    a.dim2 = 2;
    return op1(g, TENSOR_OP_SIGMOID, opa(g, TENSOR_OP_TRANSPOSE, x[0], a));
}
static GraphNode *b_permute(Graph *g, GraphNode **x) {
    static int64_t p[3] = {2, 0, 1};
    TensorOpArgs a = A();
    a.ints = p;
    a.n_ints = 3;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_PERMUTE, x[0], a));
}
static GraphNode *b_expand(Graph *g, GraphNode **x) {
    static int64_t s[3] = {4, 3, 5};
    TensorOpArgs a = A();
    a.ints = s;
    a.n_ints = 3;
    return op2(g, TENSOR_OP_MUL, opa(g, TENSOR_OP_EXPAND, x[0], a), x[1]);
}
static GraphNode *b_slice(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    a.start = 1;
    a.end = 4;
    a.step = 2;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_SLICE, x[0], a));
}
static GraphNode *b_select(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    a.start = -1;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_SELECT, x[0], a));
}
static GraphNode *b_narrow(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    a.start = 1;
    a.step = 3;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_NARROW, x[0], a));
}
static GraphNode *b_unsqueeze(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = -1;
    return op2(g, TENSOR_OP_MUL, opa(g, TENSOR_OP_UNSQUEEZE, x[0], a), x[1]);
}
static GraphNode *b_split(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.start = 2;
    a.dim = 1;
    GraphNode *s = opa(g, TENSOR_OP_SPLIT, x[0], a);
    /* output 1 unused: its gradient is zeros */
    return op2(g, TENSOR_OP_ADD, op1(g, TENSOR_OP_EXP, graph_getitem(g, s, 0)), graph_getitem(g, s, 2));
}
static GraphNode *b_chunk(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.start = 2;
    a.dim = 0;
    GraphNode *s = opa(g, TENSOR_OP_CHUNK, x[0], a);
    return op2(g, TENSOR_OP_MUL, graph_getitem(g, s, 0), graph_getitem(g, s, 1));
}
static GraphNode *b_unbind(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    GraphNode *s = opa(g, TENSOR_OP_UNBIND, x[0], a);
    return op2(g, TENSOR_OP_MUL, graph_getitem(g, s, 0), op1(g, TENSOR_OP_SIN, graph_getitem(g, s, 3)));
}
static GraphNode *b_cat(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    GraphNode *in[3] = {x[0], op1(g, TENSOR_OP_EXP, x[1]), x[0]};
    return opn(g, TENSOR_OP_CAT, in, 3, &a);
}
static GraphNode *b_stack(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return op1(g, TENSOR_OP_TANH, opn(g, TENSOR_OP_STACK, x, 2, &a));
}
static GraphNode *b_addmm(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.beta = tensor_scalar_f(0.5);
    a.alpha = tensor_scalar_i(2);
    return opn(g, TENSOR_OP_ADDMM, x, 3, &a);
}
static GraphNode *b_linear(Graph *g, GraphNode **x) { return op1(g, TENSOR_OP_RELU, linear(g, x[0], x[1], x[2])); }
static GraphNode *b_mm_t(Graph *g, GraphNode **x) { return op2(g, TENSOR_OP_MM, x[0], op1(g, TENSOR_OP_T, x[1])); }
static GraphNode *b_gather(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return opn(g, TENSOR_OP_GATHER, x, 2, &a);
}
static GraphNode *b_scatter_add(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return opn(g, TENSOR_OP_SCATTER_ADD, x, 3, &a);
}
static GraphNode *b_index_select(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    return opn(g, TENSOR_OP_INDEX_SELECT, x, 2, &a);
}
static GraphNode *b_index_add(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    a.alpha = tensor_scalar_f(0.5);
    return opn(g, TENSOR_OP_INDEX_ADD, x, 3, &a);
}
static GraphNode *b_index(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return opn(g, TENSOR_OP_INDEX, x, 2, &a);
}
static GraphNode *b_index_put(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    return opn(g, TENSOR_OP_INDEX_PUT, x, 3, &a);
}
static GraphNode *b_index_put_acc(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    a.accumulate = true;
    return opn(g, TENSOR_OP_INDEX_PUT, x, 3, &a);
}
static GraphNode *b_softmax(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 1;
    return opa(g, TENSOR_OP_SOFTMAX, x[0], a);
}
static GraphNode *b_log_softmax(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dim = 0;
    return opa(g, TENSOR_OP_LOG_SOFTMAX, x[0], a);
}
static GraphNode *b_layer_norm(Graph *g, GraphNode **x) {
    static int64_t ns[1] = {5};
    TensorOpArgs a = A();
    a.ints = ns;
    a.n_ints = 1;
    return opn(g, TENSOR_OP_LAYER_NORM, x, 3, &a);
}
static GraphNode *b_layer_norm_plain(Graph *g, GraphNode **x) {
    static int64_t ns[2] = {3, 5};
    TensorOpArgs a = A();
    a.ints = ns;
    a.n_ints = 2;
    a.eps = 1e-3;
    return opa(g, TENSOR_OP_LAYER_NORM, x[0], a);
}
/* native_batch_norm in training (its backward: the fused BATCH_NORM_BACKWARD kernel) */
static GraphNode *b_batch_norm(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.train = true;
    return graph_getitem(g, opn(g, TENSOR_OP_BATCH_NORM, x, 3, &a), 0);
}
/* _thnn_fused_lstm_cell: hy and cy both reach the output (the fused backward kernel) */
static GraphNode *b_lstm_cell(Graph *g, GraphNode **x) {
    GraphNode *c = opn(g, TENSOR_OP_LSTM_CELL, x, 2, NULL);
    return op2(g, TENSOR_OP_ADD, graph_getitem(g, c, 0), op1(g, TENSOR_OP_SIN, graph_getitem(g, c, 1)));
}
/* nn.GRU's gate sigmoid (rows of 20: a vector block and a libm tail each) */
static GraphNode *b_sigmoid_rows(Graph *g, GraphNode **x) { return op1(g, TENSOR_OP_SIGMOID_ROWS, x[0]); }
static GraphNode *b_embedding(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.padding_idx = 2;
    return opn(g, TENSOR_OP_EMBEDDING, x, 2, &a);
}
static GraphNode *b_nll(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.ignore_index = 1;
    TensorOpArgs d = A();
    d.dim = 1;
    GraphNode *in[2] = {opa(g, TENSOR_OP_LOG_SOFTMAX, x[0], d), x[1]};
    return opn(g, TENSOR_OP_NLL_LOSS, in, 2, &a);
}
static GraphNode *b_nll_weighted_none(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.reduction = TENSOR_REDUCTION_NONE;
    return opn(g, TENSOR_OP_NLL_LOSS, x, 3, &a);
}
static GraphNode *b_cross_entropy(Graph *g, GraphNode **x) { return opn(g, TENSOR_OP_CROSS_ENTROPY, x, 2, NULL); }
static GraphNode *b_mse(Graph *g, GraphNode **x) { return opn(g, TENSOR_OP_MSE_LOSS, x, 2, NULL); }
static GraphNode *b_mse_sum(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.reduction = TENSOR_REDUCTION_SUM;
    return opn(g, TENSOR_OP_MSE_LOSS, x, 2, &a);
}
static GraphNode *b_to_dtype(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.dtype = TENSOR_FLOAT32;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_TO_DTYPE, x[0], a));
}
static GraphNode *b_dropout_eval(Graph *g, GraphNode **x) {
    TensorOpArgs a = A();
    a.train = false;
    return op1(g, TENSOR_OP_EXP, opa(g, TENSOR_OP_DROPOUT, x[0], a));
}

#define S1(a) 1, {a}
#define S2(a, b) 2, {a, b}
#define S3(a, b, c) 3, {a, b, c}

static const Case cases[] = {
    {"neg", 1, {2}, {{3, 5}}, "f", 0, b_neg},
    {"abs", 1, {2}, {{3, 5}}, "f", 0, b_abs},
    {"exp", 1, {2}, {{3, 5}}, "f", 0, b_exp},
    {"log", 1, {2}, {{3, 5}}, "p", 0, b_log},
    {"sqrt", 1, {2}, {{3, 5}}, "p", 0, b_sqrt},
    {"rsqrt", 1, {2}, {{3, 5}}, "p", 0, b_rsqrt},
    {"tanh", 1, {2}, {{3, 5}}, "f", 0, b_tanh},
    {"sigmoid", 1, {2}, {{3, 5}}, "f", 0, b_sigmoid},
    {"relu", 1, {2}, {{3, 5}}, "f", 0, b_relu},
    {"gelu", 1, {2}, {{3, 5}}, "f", 0, b_gelu},
    {"gelu_tanh", 1, {2}, {{3, 5}}, "f", 0, b_gelu_tanh},
    {"silu", 1, {2}, {{3, 5}}, "f", 0, b_silu},
    {"leaky_relu", 1, {2}, {{3, 5}}, "f", 0, b_leaky_relu},
    {"erf", 1, {2}, {{3, 5}}, "f", 0, b_erf},
    {"sin", 1, {2}, {{3, 5}}, "f", 0, b_sin},
    {"cos", 1, {2}, {{3, 5}}, "f", 0, b_cos},
    {"sign", 1, {2}, {{3, 5}}, "f", 0, b_sign},
    {"reciprocal", 1, {2}, {{3, 5}}, "p", 0, b_reciprocal},
    {"clamp", 1, {2}, {{3, 5}}, "f", 0, b_clamp},
    {"floor", 1, {2}, {{3, 5}}, "f", 0, b_floor},
    {"clone", 1, {2}, {{3, 5}}, "f", 0, b_clone},
    {"to_same_dtype", 1, {2}, {{3, 5}}, "f", 0, b_to_dtype},
    {"add_alpha_broadcast", 2, {2, 1}, {{3, 5}, {5}}, "ff", 0, b_add_alpha},
    {"sub_alpha", 2, {2, 2}, {{3, 5}, {3, 1}}, "ff", 0, b_sub_alpha},
    {"mul", 2, {2, 1}, {{3, 5}, {5}}, "ff", 0, b_mul},
    {"mul_const", 2, {2, 2}, {{3, 5}, {3, 5}}, "fc", 0, b_mul},
    {"square", 1, {2}, {{3, 5}}, "f", 0, b_square},
    {"div", 2, {2, 2}, {{3, 5}, {3, 5}}, "fp", 0, b_div},
    {"pow", 2, {2, 2}, {{3, 5}, {3, 5}}, "pf", 0, b_pow},
    {"maximum", 2, {2, 2}, {{3, 5}, {3, 5}}, "ff", 0, b_maximum},
    {"minimum", 2, {2, 1}, {{3, 5}, {5}}, "ff", 0, b_minimum},
    {"remainder", 2, {2, 2}, {{3, 5}, {3, 5}}, "fp", 0, b_remainder},
    {"add_scalar", 1, {2}, {{3, 5}}, "f", 0, b_add_scalar},
    {"sub_scalar", 1, {2}, {{3, 5}}, "f", 0, b_sub_scalar},
    {"mul_scalar", 1, {2}, {{3, 5}}, "f", 0, b_mul_scalar},
    {"div_scalar", 1, {2}, {{3, 5}}, "f", 0, b_div_scalar},
    {"pow_scalar", 1, {2}, {{3, 5}}, "f", 0, b_pow_scalar},
    {"pow_half", 1, {2}, {{3, 5}}, "p", 0, b_pow_half},
    {"rsub_scalar", 1, {2}, {{3, 5}}, "f", 0, b_rsub},
    {"rpow_scalar", 1, {2}, {{3, 5}}, "f", 0, b_rpow_scalar},
    {"where", 3, {2, 2, 1}, {{3, 5}, {3, 5}, {5}}, "bff", 0, b_where},
    {"masked_fill", 2, {2, 1}, {{3, 5}, {5}}, "fb", 0, b_masked_fill},
    {"sum", 1, {2}, {{3, 5}}, "f", 0, b_sum},
    {"sum_dim", 1, {2}, {{3, 5}}, "f", 0, b_sum_dim},
    {"mean", 1, {2}, {{3, 5}}, "f", 0, b_mean},
    {"mean_dim_keepdim", 1, {2}, {{3, 5}}, "f", 0, b_mean_dim},
    {"max", 1, {2}, {{3, 5}}, "f", 0, b_max},
    {"min", 1, {2}, {{3, 5}}, "f", 0, b_min},
    {"max_dim", 1, {2}, {{3, 5}}, "f", 0, b_max_dim},
    {"amax_dims", 1, {2}, {{3, 5}}, "f", 0, b_amax},
    {"amin_dim_keepdim", 1, {2}, {{3, 5}}, "f", 0, b_amin},
    {"min_dim_keepdim", 1, {2}, {{3, 5}}, "f", 0, b_min_dim},
    {"var", 1, {2}, {{3, 5}}, "f", 0, b_var},
    {"std_all", 1, {2}, {{3, 5}}, "f", 0, b_std},
    {"logsumexp", 1, {2}, {{3, 5}}, "f", 0, b_logsumexp},
    {"view", 1, {2}, {{3, 5}}, "f", 0, b_view},
    {"reshape_copy", 1, {2}, {{3, 5}}, "f", 0, b_reshape},
    {"flatten", 1, {3}, {{2, 3, 5}}, "f", 0, b_flatten},
    {"transpose", 1, {3}, {{2, 3, 5}}, "f", 0, b_transpose},
    {"t", 1, {2}, {{3, 5}}, "f", 0, b_t},
    {"permute", 1, {3}, {{2, 3, 5}}, "f", 0, b_permute},
    {"expand", 2, {2, 3}, {{1, 5}, {4, 3, 5}}, "ff", 0, b_expand},
    {"slice", 1, {2}, {{3, 5}}, "f", 0, b_slice},
    {"select", 1, {2}, {{3, 5}}, "f", 0, b_select},
    {"narrow", 1, {2}, {{3, 5}}, "f", 0, b_narrow},
    {"unsqueeze", 2, {2, 3}, {{3, 5}, {3, 5, 2}}, "ff", 0, b_unsqueeze},
    {"squeeze", 1, {3}, {{3, 1, 5}}, "f", 0, b_squeeze},
    {"split", 1, {2}, {{3, 6}}, "f", 0, b_split},
    {"chunk", 1, {2}, {{4, 5}}, "f", 0, b_chunk},
    {"unbind", 1, {2}, {{3, 5}}, "f", 0, b_unbind},
    {"cat", 2, {2, 2}, {{3, 5}, {3, 2}}, "ff", 0, b_cat},
    {"stack", 2, {2, 2}, {{3, 5}, {3, 5}}, "ff", 0, b_stack},
    {"mm", 2, {2, 2}, {{3, 5}, {5, 4}}, "ff", 0, b_mm},
    {"mm_transposed_weight", 2, {2, 2}, {{3, 5}, {4, 5}}, "ff", 0, b_mm_t},
    {"bmm", 2, {3, 3}, {{2, 3, 5}, {2, 5, 4}}, "ff", 0, b_bmm},
    {"mv", 2, {2, 1}, {{3, 5}, {5}}, "ff", 0, b_mv},
    {"dot", 2, {1, 1}, {{5}, {5}}, "ff", 0, b_dot},
    {"addmm", 3, {1, 2, 2}, {{4}, {3, 5}, {5, 4}}, "fff", 0, b_addmm},
    {"matmul_batched", 2, {3, 2}, {{2, 3, 5}, {5, 4}}, "ff", 0, b_matmul},
    {"linear_3d", 3, {3, 2, 1}, {{2, 3, 5}, {4, 5}, {4}}, "fff", 0, b_linear},
    {"gather", 2, {2, 2}, {{3, 5}, {3, 4}}, "fi", 5, b_gather},
    {"scatter_add", 3, {2, 2, 2}, {{3, 5}, {3, 4}, {3, 4}}, "fif", 5, b_scatter_add},
    {"index_select", 2, {2, 1}, {{3, 5}, {4}}, "fi", 3, b_index_select},
    {"index_add", 3, {2, 1, 2}, {{3, 5}, {4}, {4, 5}}, "fif", 3, b_index_add},
    {"index", 2, {2, 1}, {{3, 5}, {7}}, "fi", 5, b_index},
    {"index_put", 3, {2, 1, 1}, {{3, 5}, {5}, {1}}, "ffi", 3, b_index_put},
    {"index_put_accumulate", 3, {2, 2, 1}, {{3, 5}, {4, 5}, {4}}, "ffi", 3, b_index_put_acc},
    {"softmax", 1, {2}, {{3, 5}}, "f", 0, b_softmax},
    {"log_softmax", 1, {2}, {{3, 5}}, "f", 0, b_log_softmax},
    {"layer_norm", 3, {2, 1, 1}, {{3, 5}, {5}, {5}}, "fff", 0, b_layer_norm},
    {"layer_norm_plain", 1, {3}, {{2, 3, 5}}, "f", 0, b_layer_norm_plain},
    {"batch_norm", 3, {3, 1, 1}, {{4, 3, 5}, {3}, {3}}, "fff", 0, b_batch_norm},
    {"lstm_cell", 2, {2, 2}, {{3, 20}, {3, 5}}, "ff", 0, b_lstm_cell},
    {"sigmoid_rows", 1, {2}, {{3, 20}}, "f", 0, b_sigmoid_rows},
    {"embedding_padding", 2, {2, 2}, {{6, 4}, {3, 5}}, "fi", 6, b_embedding},
    {"nll_loss_ignore", 2, {2, 1}, {{4, 5}, {4}}, "fi", 3, b_nll},
    {"nll_loss_weighted_none", 3, {2, 1, 1}, {{4, 5}, {4}, {5}}, "fic", 5, b_nll_weighted_none},
    {"cross_entropy", 2, {2, 1}, {{4, 5}, {4}}, "fi", 5, b_cross_entropy},
    {"mse_loss", 2, {2, 2}, {{3, 5}, {3, 5}}, "ff", 0, b_mse},
    {"mse_loss_sum", 2, {2, 1}, {{3, 5}, {5}}, "fc", 0, b_mse_sum},
    {"dropout_eval", 1, {2}, {{3, 5}}, "f", 0, b_dropout_eval},
};

static Tensor *make_input(char kind, int nd, const int64_t *shape, int64_t hi) {
    switch (kind) {
    case 'i': return rt_checkp(tensor_randint(0, hi, nd, shape), "randint");
    case 'b': {
        Tensor *r = randn(nd, shape, false), *b = rt_checkp(tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, r, tensor_scalar_i(0)), "gt");
        tensor_decref(r);
        return b;
    }
    case 'p': {
        Tensor *r = randn(nd, shape, false), *a = rt_checkp(tensor_abs(r), "abs");
        Tensor *p = rt_checkp(tensor_add_scalar(a, tensor_scalar_f(0.5)), "add");
        tensor_decref(r);
        tensor_decref(a);
        return p;
    }
    default: return randn(nd, shape, false);
    }
}

static void run_case(const Case *c) {
    Graph *g = graph_new(c->name);
    GraphNode *x[4];
    Tensor *in[4];
    bool rg[4];
    for (int i = 0; i < c->n; i++) {
        char name[8];
        snprintf(name, sizeof name, "x%d", i);
        TensorDtype dt = c->kind[i] == 'i' ? TENSOR_INT64 : c->kind[i] == 'b' ? TENSOR_BOOL : TENSOR_FLOAT32;
        x[i] = ph_dt(g, name, dt, c->nd[i], c->shape[i]);
        in[i] = make_input(c->kind[i], c->nd[i], c->shape[i], c->hi);
        rg[i] = c->kind[i] == 'f' || c->kind[i] == 'p';
    }
    output1(g, c->build(g, x));
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), c->name);
    RtRunKind k = train_compare_plan(p, g, in, rg, c->n, -1, NULL);
    cr_assert_eq(k, RT_RUN_TRAINING, "%s fell back to eager: %s", c->name, rt_plan_fallback_reason(p) ? rt_plan_fallback_reason(p) : "?");
    rt_plan_free(p);
    for (int i = 0; i < c->n; i++) tensor_decref(in[i]);
    graph_free(g);
}

Test(rules, every_rule_matches_eager_bitwise) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_log_info("case %s", cases[i].name);
        run_case(&cases[i]);
    }
}

/* ops.def coverage: the compiled backward records every differentiable, non-composite op's
 * rule except those whose rule reads tensor data (DATA in ops.def) */
Test(rules, coverage_of_ops_def) {
    const char *fallback[] = {"prod", "cumprod", "as_strided", "masked_select", "masked_scatter", NULL};
    int with_rule = 0;
    for (int op = 0; op < TENSOR_OP_COUNT; op++) {
        unsigned fl = tensor_op_flags((TensorOp)op);
        const char *why = rt_op_underivable_reason((TensorOp)op);
        if (!why) {
            with_rule++;
            cr_assert_not(fl & (TENSOR_OPF_NONDIFF | TENSOR_OPF_COMPOSITE), "%s", tensor_op_name((TensorOp)op));
            continue;
        }
        if (fl & (TENSOR_OPF_NONDIFF | TENSOR_OPF_COMPOSITE | TENSOR_OPF_INPLACE)) continue;
        bool listed = false;
        for (int i = 0; fallback[i]; i++) listed |= strcmp(fallback[i], tensor_op_name((TensorOp)op)) == 0;
        cr_assert(listed, "%s is differentiable but has no symbolic rule (%s)", tensor_op_name((TensorOp)op), why);
    }
    cr_assert_gt(with_rule, 80);
}

/* x of an ops.def domain: |x| in [0.5, 1.5] (AWAY0), [0.5, 2] (POS), near 1.2 (FRAC), (-0.8, 0.8)
 * (UNIT), [0.1, 0.9] (PROB), normal otherwise */
static Tensor *domain_input(PwDomain d, int nd, const int64_t *shape) {
    Tensor *u = rt_checkp(tensor_rand(TENSOR_FLOAT32, nd, shape), "rand"), *r = NULL;
    Tensor *n = randn(nd, shape, false);
    double lo = 0, width = 1;
    switch (d) {
    case PWD_POS: lo = 0.5; width = 1.5; break;
    case PWD_FRAC: lo = 1.1; width = 0.25; break;
    case PWD_UNIT: lo = -0.8; width = 1.6; break;
    case PWD_PROB: lo = 0.1; width = 0.8; break;
    case PWD_AWAY0: {
        Tensor *m = rt_checkp(tensor_add_scalar(u, tensor_scalar_f(0.5)), "add"), *s = rt_checkp(tensor_sign(n), "sign");
        r = rt_checkp(tensor_mul(m, s), "mul");
        tensor_decref(m);
        tensor_decref(s);
        break;
    }
    default: tensor_incref(n); r = n; break;
    }
    if (!r) {
        Tensor *m = rt_checkp(tensor_mul_scalar(u, tensor_scalar_f(width)), "mul");
        r = rt_checkp(tensor_add_scalar(m, tensor_scalar_f(lo)), "add");
        tensor_decref(m);
    }
    tensor_decref(u);
    tensor_decref(n);
    return r;
}

/* every differentiable unary pointwise op of the table: op(x) * y + x, fused in both passes */
Test(rules, every_unary_op_of_the_table_matches_eager_bitwise) {
    int checked = 0;
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        const PwInfo *k = tensor__pw_info((TensorOp)o);
        if (k->form != PWF_UNARY || k->dom == PWD_NODOM || (tensor_op_flags((TensorOp)o) & TENSOR_OPF_NONDIFF)) continue;
        int64_t shape[2] = {4, 5};
        Graph *g = graph_new(tensor_op_name((TensorOp)o));
        GraphNode *x = ph(g, "x", 2, shape), *y = ph(g, "y", 2, shape);
        TensorOpArgs a = A();
        a.scalar = tensor_scalar_f(0.2);
        GraphNode *f = opa(g, (TensorOp)o, x, a);
        output1(g, op2(g, TENSOR_OP_ADD, op2(g, TENSOR_OP_MUL, f, y), x));
        Tensor *in[2] = {domain_input((PwDomain)k->dom, 2, shape), randn(2, shape, false)};
        bool rg[2] = {true, true};
        RtPlan *p = rt_checkp(rt_plan_new(g, NULL), tensor_op_name((TensorOp)o));
        RtRunKind kind = train_compare_plan(p, g, in, rg, 2, -1, NULL);
        cr_assert_eq(kind, RT_RUN_TRAINING, "%s fell back to eager: %s", tensor_op_name((TensorOp)o),
                     rt_plan_fallback_reason(p) ? rt_plan_fallback_reason(p) : "?");
        rt_plan_free(p);
        tensor_decref(in[0]);
        tensor_decref(in[1]);
        graph_free(g);
        checked++;
    }
    cr_assert_gt(checked, 15);
}
