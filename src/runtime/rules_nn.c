/* rules_nn.c — symbolic derivatives of movement ops, matrix products, indexing and the nn
 * functions (the graph forms of src/autograd/rules_shape.c and rules_nn.c), and the rule table:
 * one line per op of ops.def (a missing line is a compile error), each op either has a rule,
 * is non-differentiable or composite (decomposed before differentiation), or is listed as
 * falling back to eager with the reason. */
#include "src/runtime/rules.h"

#define G0 rd_g(d, 0)

/* ---- movement -------------------------------------------------------------------------------------- */

int rt_bw_view(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_RESHAPE, G0, m->shape, m->ndim, false));
    return 0;
}

int rt_bw_transpose(RtD *d) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = rd_args(d)->dim;
    a.dim2 = rd_args(d)->dim2;
    GraphNode *g = G0;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_TRANSPOSE, &g, 1, &a));
    return 0;
}

int rt_bw_t(RtD *d) {
    rd_grad(d, 0, rd_un(d, TENSOR_OP_T, G0));
    return 0;
}

int rt_bw_permute(RtD *d) {
    int64_t inv[TENSOR_MAX_DIMS];
    const TensorOpArgs *a = rd_args(d);
    int nd = a->n_ints;
    for (int i = 0; i < nd; i++) {
        int64_t dd = a->ints[i] < 0 ? a->ints[i] + nd : a->ints[i];
        if (dd < 0 || dd >= nd) return rd_fail(d, "bad permutation");
        inv[dd] = i;
    }
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_PERMUTE, G0, inv, nd, false));
    return 0;
}

int rt_bw_expand(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    rd_grad(d, 0, rd_sum_to(d, G0, m->ndim, m->shape));
    return 0;
}

/* zeros of the input's shape with the gradient copied into the slice (eager: ag_copy_ into a
 * view of zeros) */
static int scatter_view(RtD *d, bool is_select) {
    const TensorOpArgs *a = rd_args(d);
    GraphNode *z = rd_zeros(d, rd_in_meta(d, 0));
    TensorOpArgs s = TENSOR_OP_ARGS_INIT;
    s.dim = a->dim;
    s.start = a->start;
    if (!is_select) {
        s.end = a->end;
        s.step = a->step;
    }
    GraphNode *v = rd_op(d, is_select ? TENSOR_OP_SELECT : TENSOR_OP_SLICE, &z, 1, &s);
    GraphNode *cp[2] = {v, G0};
    rd_op(d, TENSOR_OP_COPY_, cp, 2, NULL);
    rd_grad(d, 0, z);
    return 0;
}

int rt_bw_slice(RtD *d) { return scatter_view(d, false); }
int rt_bw_select(RtD *d) { return scatter_view(d, true); }

static int64_t wrap(int64_t dim, int nd) {
    if (nd == 0) nd = 1;
    return dim < 0 ? dim + nd : dim;
}

int rt_bw_unsqueeze(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    rd_grad(d, 0, rd_dim(d, TENSOR_OP_SQUEEZE_DIM, G0, wrap(rd_args(d)->dim, m->ndim + 1)));
    return 0;
}

int rt_bw_squeeze(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_RESHAPE, G0, m->shape, m->ndim, false));
    return 0;
}

static int join(RtD *d, bool stack) {
    int n = rd_n_out(d);
    GraphNode *parts[64];
    if (n > 64) return rd_fail(d, "too many outputs");
    for (int i = 0; i < n; i++) {
        parts[i] = rd_g(d, i);
        if (!parts[i]) parts[i] = rd_zeros(d, rd_out_meta(d, i));
    }
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = wrap(rd_args(d)->dim, rd_in_meta(d, 0)->ndim);
    rd_grad(d, 0, rd_op(d, stack ? TENSOR_OP_STACK : TENSOR_OP_CAT, parts, n, &a));
    return 0;
}

int rt_bw_split(RtD *d) { return join(d, false); }
int rt_bw_unbind(RtD *d) { return join(d, true); }

int rt_bw_cat(RtD *d) {
    int n = rd_n_in(d), ref = -1;
    for (int i = 0; i < n && ref < 0; i++) {
        const TensorMeta *m = rd_in_meta(d, i);
        if (!(m->ndim == 1 && m->shape[0] == 0)) ref = i;
    }
    if (ref < 0) return 0;
    int64_t dim = wrap(rd_args(d)->dim, rd_in_meta(d, ref)->ndim), off = 0;
    for (int i = 0; i < n; i++) {
        const TensorMeta *m = rd_in_meta(d, i);
        if (m->ndim == 1 && m->shape[0] == 0) {
            if (rd_needs(d, i)) {
                TensorMeta z = *m;
                z.dtype = TENSOR_FLOAT32;
                rd_grad(d, i, rd_zeros(d, &z));
            }
            continue;
        }
        int64_t len = m->shape[dim];
        if (rd_needs(d, i)) {
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.dim = dim;
            a.start = off;
            a.end = off + len;
            a.step = 1;
            GraphNode *g = G0;
            rd_grad(d, i, rd_op(d, TENSOR_OP_SLICE, &g, 1, &a));
        }
        off += len;
    }
    return 0;
}

int rt_bw_stack(RtD *d) {
    for (int i = 0; i < rd_n_in(d); i++) {
        if (!rd_needs(d, i)) continue;
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = rd_args(d)->dim;
        a.start = i;
        GraphNode *g = G0;
        rd_grad(d, i, rd_op(d, TENSOR_OP_SELECT, &g, 1, &a));
    }
    return 0;
}

/* ---- matrix products ---------------------------------------------------------------------------- */

static bool col_major(const TensorMeta *m) {
    return m->ndim == 2 && m->strides[0] == 1 && m->strides[1] != 1 && m->shape[0] > 1 && m->shape[1] > 1;
}

static GraphNode *mm_grad_mat1(RtD *d, GraphNode *g, GraphNode *mat2, const TensorMeta *m1) {
    if (m1 && col_major(m1)) {
        GraphNode *p = rd_bin(d, TENSOR_OP_MM, mat2, rd_un(d, TENSOR_OP_T, g));
        return rd_un(d, TENSOR_OP_T, p);
    }
    return rd_bin(d, TENSOR_OP_MM, g, rd_un(d, TENSOR_OP_T, mat2));
}

static GraphNode *mm_grad_mat2(RtD *d, GraphNode *g, GraphNode *mat1, const TensorMeta *m2) {
    if (m2 && col_major(m2)) {
        GraphNode *p = rd_bin(d, TENSOR_OP_MM, rd_un(d, TENSOR_OP_T, g), mat1);
        return rd_un(d, TENSOR_OP_T, p);
    }
    return rd_bin(d, TENSOR_OP_MM, rd_un(d, TENSOR_OP_T, mat1), g);
}

int rt_bw_mm(RtD *d) {
    GraphNode *self = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *other = rd_needs(d, 0) ? rd_in(d, 1) : NULL;
    if (rd_needs(d, 0)) rd_grad(d, 0, mm_grad_mat1(d, G0, other, rd_in_meta(d, 0)));
    if (rd_needs(d, 1)) rd_grad(d, 1, mm_grad_mat2(d, G0, self, rd_in_meta(d, 1)));
    return 0;
}

int rt_bw_bmm(RtD *d) {
    GraphNode *self = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *other = rd_needs(d, 0) ? rd_in(d, 1) : NULL;
    TensorOpArgs tr = TENSOR_OP_ARGS_INIT;
    tr.dim = 1;
    tr.dim2 = 2;
    if (rd_needs(d, 0)) rd_grad(d, 0, rd_bin(d, TENSOR_OP_BMM, G0, rd_op(d, TENSOR_OP_TRANSPOSE, &other, 1, &tr)));
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_bin(d, TENSOR_OP_BMM, rd_op(d, TENSOR_OP_TRANSPOSE, &self, 1, &tr), G0));
    return 0;
}

int rt_bw_mv(RtD *d) {
    GraphNode *mat = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *vec = rd_needs(d, 0) ? rd_in(d, 1) : NULL;
    if (rd_needs(d, 0)) {
        GraphNode *gu = rd_dim(d, TENSOR_OP_UNSQUEEZE, G0, 1), *vu = rd_dim(d, TENSOR_OP_UNSQUEEZE, vec, 0);
        rd_grad(d, 0, rd_bin(d, TENSOR_OP_MM, gu, vu));
    }
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_bin(d, TENSOR_OP_MV, rd_un(d, TENSOR_OP_T, mat), G0));
    return 0;
}

int rt_bw_dot(RtD *d) {
    GraphNode *self = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *other = rd_needs(d, 0) ? rd_in(d, 1) : NULL;
    if (rd_needs(d, 0)) rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, other));
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_bin(d, TENSOR_OP_MUL, G0, self));
    return 0;
}

static GraphNode *scale(RtD *d, GraphNode *g, TensorScalar s) {
    return rd_sv(s) == 1.0 ? g : rd_sc(d, TENSOR_OP_MUL_SCALAR, g, s);
}

int rt_bw_addmm(RtD *d) {
    const TensorOpArgs *a = rd_args(d);
    GraphNode *m1 = rd_needs(d, 2) ? rd_in(d, 1) : NULL, *m2 = rd_needs(d, 1) ? rd_in(d, 2) : NULL;
    if (rd_needs(d, 0)) rd_grad(d, 0, scale(d, G0, a->beta));
    if (rd_needs(d, 1)) rd_grad(d, 1, scale(d, mm_grad_mat1(d, G0, m2, rd_in_meta(d, 1)), a->alpha));
    if (rd_needs(d, 2)) rd_grad(d, 2, scale(d, mm_grad_mat2(d, G0, m1, rd_in_meta(d, 2)), a->alpha));
    return 0;
}

/* ---- indexing ------------------------------------------------------------------------------------------ */

int rt_bw_gather(RtD *d) {
    GraphNode *idx = rd_in(d, 1), *z = rd_zeros(d, rd_in_meta(d, 0));
    GraphNode *in[3] = {z, idx, G0};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = rd_args(d)->dim;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_SCATTER_ADD, in, 3, &a));
    return 0;
}

int rt_bw_scatter_add(RtD *d) {
    if (rd_needs(d, 0)) rd_grad(d, 0, G0);
    if (rd_needs(d, 2)) {
        GraphNode *in[2] = {G0, rd_in(d, 1)};
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = rd_args(d)->dim;
        rd_grad(d, 2, rd_op(d, TENSOR_OP_GATHER, in, 2, &a));
    }
    return 0;
}

int rt_bw_index_select(RtD *d) {
    GraphNode *idx = rd_in(d, 1), *z = rd_zeros(d, rd_in_meta(d, 0));
    GraphNode *in[3] = {z, idx, G0};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = rd_args(d)->dim;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_INDEX_ADD, in, 3, &a));
    return 0;
}

int rt_bw_index_add(RtD *d) {
    if (rd_needs(d, 0)) rd_grad(d, 0, G0);
    if (rd_needs(d, 2)) {
        GraphNode *in[2] = {G0, rd_in(d, 1)};
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = rd_args(d)->dim;
        GraphNode *sel = rd_op(d, TENSOR_OP_INDEX_SELECT, in, 2, &a);
        rd_grad(d, 2, scale(d, sel, rd_args(d)->alpha));
    }
    return 0;
}

int rt_bw_index(RtD *d) {
    int n = rd_n_in(d);
    GraphNode *in[TENSOR_MAX_DIMS + 2];
    if (n > TENSOR_MAX_DIMS + 1) return rd_fail(d, "too many indices");
    GraphNode *idx[TENSOR_MAX_DIMS + 2];
    for (int i = 1; i < n; i++) idx[i] = rd_in(d, i);
    in[0] = rd_zeros(d, rd_in_meta(d, 0));
    in[1] = G0;
    for (int i = 1; i < n; i++) in[i + 1] = idx[i];
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = rd_args(d)->dim;
    a.accumulate = true;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_INDEX_PUT, in, n + 1, &a));
    return 0;
}

int rt_bw_index_put(RtD *d) {
    int n = rd_n_in(d), k = n - 2;
    GraphNode *idx[TENSOR_MAX_DIMS + 2], *in[TENSOR_MAX_DIMS + 4];
    if (k > TENSOR_MAX_DIMS + 1) return rd_fail(d, "too many indices");
    for (int i = 0; i < k; i++) idx[i] = rd_in(d, i + 2);
    if (rd_needs(d, 0)) {
        if (rd_args(d)->accumulate) {
            rd_grad(d, 0, G0);
        } else {
            TensorMeta zm;
            memset(&zm, 0, sizeof zm);
            zm.dtype = TENSOR_FLOAT32;
            in[0] = G0;
            in[1] = rd_zeros(d, &zm);
            for (int i = 0; i < k; i++) in[i + 2] = idx[i];
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.dim = rd_args(d)->dim;
            rd_grad(d, 0, rd_op(d, TENSOR_OP_INDEX_PUT, in, k + 2, &a));
        }
    }
    if (rd_needs(d, 1)) {
        in[0] = G0;
        for (int i = 0; i < k; i++) in[i + 1] = idx[i];
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = rd_args(d)->dim;
        rd_grad(d, 1, rd_op(d, TENSOR_OP_INDEX, in, k + 1, &a));
    }
    return 0;
}

/* ---- nn ------------------------------------------------------------------------------------------------- */

int rt_bw_softmax(RtD *d) {
    GraphNode *y = rd_out(d, 0);
    int64_t dim = rd_args(d)->dim;
    GraphNode *gy = rd_bin(d, TENSOR_OP_MUL, G0, y);
    GraphNode *sm = rd_dims(d, TENSOR_OP_SUM_DIM, gy, &dim, 1, true);
    GraphNode *dd = rd_bin(d, TENSOR_OP_SUB, G0, sm);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, y, dd));
    return 0;
}

int rt_bw_log_softmax(RtD *d) {
    GraphNode *y = rd_out(d, 0);
    int64_t dim = rd_args(d)->dim;
    GraphNode *e = rd_un(d, TENSOR_OP_EXP, y);
    GraphNode *sm = rd_dims(d, TENSOR_OP_SUM_DIM, G0, &dim, 1, true);
    GraphNode *p = rd_bin(d, TENSOR_OP_MUL, e, sm);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_SUB, G0, p));
    return 0;
}

int rt_bw_layer_norm(RtD *d) {
    GraphNode *x = rd_in(d, 0), *w = rd_in(d, 1);
    const TensorMeta *xm = rd_in_meta(d, 0);
    int nn = rd_args(d)->n_ints, nd = xm->ndim;
    int64_t dims[TENSOR_MAX_DIMS], lead[TENSOR_MAX_DIMS];
    for (int i = 0; i < nn; i++) dims[i] = nd - nn + i;
    for (int i = 0; i < nd - nn; i++) lead[i] = i;
    GraphNode *mu = rd_dims(d, TENSOR_OP_MEAN_DIM, x, dims, nn, true);
    GraphNode *xc = rd_bin(d, TENSOR_OP_SUB, x, mu);
    GraphNode *xc2 = rd_bin(d, TENSOR_OP_MUL, xc, xc);
    GraphNode *var = rd_dims(d, TENSOR_OP_MEAN_DIM, xc2, dims, nn, true);
    GraphNode *ve = rd_sc(d, TENSOR_OP_ADD_SCALAR, var, rd_f(rd_args(d)->eps));
    GraphNode *rstd = rd_un(d, TENSOR_OP_RSQRT, ve);
    GraphNode *xhat = rd_bin(d, TENSOR_OP_MUL, xc, rstd);
    if (rd_needs(d, 0)) {
        GraphNode *gw = w ? rd_bin(d, TENSOR_OP_MUL, G0, w) : G0;
        GraphNode *m1 = rd_dims(d, TENSOR_OP_MEAN_DIM, gw, dims, nn, true);
        GraphNode *gx = rd_bin(d, TENSOR_OP_MUL, gw, xhat);
        GraphNode *m2 = rd_dims(d, TENSOR_OP_MEAN_DIM, gx, dims, nn, true);
        GraphNode *a = rd_bin(d, TENSOR_OP_SUB, gw, m1);
        GraphNode *b = rd_bin(d, TENSOR_OP_MUL, xhat, m2);
        GraphNode *c = rd_bin(d, TENSOR_OP_SUB, a, b);
        rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, rstd, c));
    }
    if (rd_needs(d, 1)) {
        GraphNode *t = rd_bin(d, TENSOR_OP_MUL, G0, xhat);
        rd_grad(d, 1, nd > nn ? rd_dims(d, TENSOR_OP_SUM_DIM, t, lead, nd - nn, false) : t);
    }
    if (rd_needs(d, 2)) rd_grad(d, 2, nd > nn ? rd_dims(d, TENSOR_OP_SUM_DIM, G0, lead, nd - nn, false) : G0);
    return 0;
}

int rt_bw_embedding(RtD *d) {
    const TensorMeta *wm = rd_in_meta(d, 0);
    GraphNode *idx = rd_in(d, 1);
    int64_t m1 = -1, shape2[2] = {-1, wm->shape[1]};
    GraphNode *flat = rd_dims(d, TENSOR_OP_RESHAPE, idx, &m1, 1, false);
    GraphNode *g2 = rd_dims(d, TENSOR_OP_RESHAPE, G0, shape2, 2, false);
    if (rd_args(d)->padding_idx >= 0) {
        GraphNode *pad = rd_sc(d, TENSOR_OP_EQ_SCALAR, flat, rd_i(rd_args(d)->padding_idx));
        GraphNode *pu = rd_dim(d, TENSOR_OP_UNSQUEEZE, pad, 1);
        g2 = rd_masked_fill(d, g2, pu, rd_i(0));
    }
    GraphNode *in[3] = {rd_zeros(d, wm), flat, g2};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = 0;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_INDEX_ADD, in, 3, &a));
    return 0;
}

int rt_bw_dropout(RtD *d) {
    const TensorOpArgs *a = rd_args(d);
    /* training graphs split these into RT_INT_DROPOUT (rt_split_dropouts) */
    if (a->train && a->p > 0) return rd_fail(d, "dropout in training mode must be split first");
    rd_grad(d, 0, G0);
    return 0;
}

int rt_bw_dropout_mask(RtD *d) {
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, rd_out(d, 1)));
    return 0;
}

int rt_bw_nll_loss(RtD *d) {
    RtInternal desc = {.kind = RT_INT_NLL_BACKWARD};
    desc.meta = *rd_in_meta(d, 0);
    desc.args = *rd_args(d);
    GraphNode *in[3] = {G0, rd_in(d, 1), rd_in(d, 2)};
    rd_grad(d, 0, rd_internal(d, &desc, in, in[2] ? 3 : 2, rd_in_meta(d, 0)));
    return 0;
}

int rt_bw_mse_loss(RtD *d) {
    GraphNode *x = rd_in(d, 0), *y = rd_in(d, 1);
    GraphNode *dd = rd_bin(d, TENSOR_OP_SUB, x, y);
    double f = rd_args(d)->reduction == TENSOR_REDUCTION_MEAN
                   ? 2.0 / (double)tensor__shape_numel(dd->meta.ndim, dd->meta.shape)
                   : 2.0;
    GraphNode *t = rd_sc(d, TENSOR_OP_MUL_SCALAR, dd, rd_f(f));
    GraphNode *gs = rd_bin(d, TENSOR_OP_MUL, G0, t);
    if (rd_needs(d, 0)) rd_grad(d, 0, gs);
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_un(d, TENSOR_OP_NEG, gs));
    return 0;
}

/* ---- the table ---------------------------------------------------------------------------------------------- */

int rt_bw_abs(RtD *); int rt_bw_exp(RtD *); int rt_bw_log(RtD *); int rt_bw_sqrt(RtD *); int rt_bw_rsqrt(RtD *);
int rt_bw_tanh(RtD *); int rt_bw_sigmoid(RtD *); int rt_bw_relu(RtD *); int rt_bw_gelu(RtD *); int rt_bw_silu(RtD *);
int rt_bw_leaky_relu(RtD *); int rt_bw_erf(RtD *); int rt_bw_sin(RtD *); int rt_bw_cos(RtD *); int rt_bw_neg(RtD *);
int rt_bw_zero_like(RtD *); int rt_bw_reciprocal(RtD *); int rt_bw_clamp(RtD *); int rt_bw_identity(RtD *);
int rt_bw_to_dtype(RtD *); int rt_bw_add(RtD *); int rt_bw_sub(RtD *); int rt_bw_mul(RtD *); int rt_bw_div(RtD *);
int rt_bw_pow(RtD *); int rt_bw_maximum(RtD *); int rt_bw_minimum(RtD *); int rt_bw_remainder(RtD *);
int rt_bw_mul_scalar(RtD *); int rt_bw_div_scalar(RtD *); int rt_bw_pow_scalar(RtD *); int rt_bw_rsub_scalar(RtD *);
int rt_bw_rpow_scalar(RtD *); int rt_bw_where(RtD *); int rt_bw_masked_fill(RtD *); int rt_bw_sum(RtD *);
int rt_bw_sum_dim(RtD *); int rt_bw_mean(RtD *); int rt_bw_mean_dim(RtD *); int rt_bw_max_all(RtD *);
int rt_bw_max_dim(RtD *); int rt_bw_var(RtD *); int rt_bw_std(RtD *); int rt_bw_logsumexp(RtD *);

typedef struct RuleEntry {
    RtRule fn;
    const char *why;         /* NULL when fn is set */
} RuleEntry;

#define R(fn) {fn, NULL}
#define NONDIFF_ {NULL, "not differentiable"}
#define COMPOSITE_ {NULL, "composite: decomposed first"}
#define FALLBACK_(why) {NULL, why}

#define RULE_EMPTY NONDIFF_
#define RULE_ZEROS NONDIFF_
#define RULE_ONES NONDIFF_
#define RULE_FULL NONDIFF_
#define RULE_ARANGE NONDIFF_
#define RULE_LINSPACE NONDIFF_
#define RULE_EYE NONDIFF_
#define RULE_RAND NONDIFF_
#define RULE_RANDN NONDIFF_
#define RULE_RANDINT NONDIFF_
#define RULE_ZEROS_LIKE NONDIFF_
#define RULE_ONES_LIKE NONDIFF_
#define RULE_FULL_LIKE NONDIFF_
#define RULE_RAND_LIKE NONDIFF_
#define RULE_RANDN_LIKE NONDIFF_
#define RULE_BERNOULLI NONDIFF_
#define RULE_NEG R(rt_bw_neg)
#define RULE_ABS R(rt_bw_abs)
#define RULE_EXP R(rt_bw_exp)
#define RULE_LOG R(rt_bw_log)
#define RULE_SQRT R(rt_bw_sqrt)
#define RULE_RSQRT R(rt_bw_rsqrt)
#define RULE_TANH R(rt_bw_tanh)
#define RULE_SIGMOID R(rt_bw_sigmoid)
#define RULE_RELU R(rt_bw_relu)
#define RULE_GELU R(rt_bw_gelu)
#define RULE_SILU R(rt_bw_silu)
#define RULE_LEAKY_RELU R(rt_bw_leaky_relu)
#define RULE_ERF R(rt_bw_erf)
#define RULE_SIN R(rt_bw_sin)
#define RULE_COS R(rt_bw_cos)
#define RULE_SIGN R(rt_bw_zero_like)
#define RULE_RECIPROCAL R(rt_bw_reciprocal)
#define RULE_CLAMP R(rt_bw_clamp)
#define RULE_FLOOR R(rt_bw_zero_like)
#define RULE_CEIL R(rt_bw_zero_like)
#define RULE_ROUND R(rt_bw_zero_like)
#define RULE_LOGICAL_NOT NONDIFF_
#define RULE_CLONE R(rt_bw_identity)
#define RULE_TO_DTYPE R(rt_bw_to_dtype)
#define RULE_DETACH NONDIFF_
#define RULE_ADD R(rt_bw_add)
#define RULE_SUB R(rt_bw_sub)
#define RULE_MUL R(rt_bw_mul)
#define RULE_DIV R(rt_bw_div)
#define RULE_POW R(rt_bw_pow)
#define RULE_MAXIMUM R(rt_bw_maximum)
#define RULE_MINIMUM R(rt_bw_minimum)
#define RULE_REMAINDER R(rt_bw_remainder)
#define RULE_FLOOR_DIVIDE NONDIFF_
#define RULE_ADD_SCALAR R(rt_bw_identity)
#define RULE_SUB_SCALAR R(rt_bw_identity)
#define RULE_MUL_SCALAR R(rt_bw_mul_scalar)
#define RULE_DIV_SCALAR R(rt_bw_div_scalar)
#define RULE_POW_SCALAR R(rt_bw_pow_scalar)
#define RULE_RSUB_SCALAR R(rt_bw_rsub_scalar)
#define RULE_RPOW_SCALAR R(rt_bw_rpow_scalar)
#define RULE_REMAINDER_SCALAR R(rt_bw_identity)
#define RULE_FLOOR_DIVIDE_SCALAR NONDIFF_
#define RULE_EQ NONDIFF_
#define RULE_NE NONDIFF_
#define RULE_LT NONDIFF_
#define RULE_LE NONDIFF_
#define RULE_GT NONDIFF_
#define RULE_GE NONDIFF_
#define RULE_EQ_SCALAR NONDIFF_
#define RULE_NE_SCALAR NONDIFF_
#define RULE_LT_SCALAR NONDIFF_
#define RULE_LE_SCALAR NONDIFF_
#define RULE_GT_SCALAR NONDIFF_
#define RULE_GE_SCALAR NONDIFF_
#define RULE_LOGICAL_AND NONDIFF_
#define RULE_LOGICAL_OR NONDIFF_
#define RULE_LOGICAL_XOR NONDIFF_
#define RULE_WHERE R(rt_bw_where)
#define RULE_SUM R(rt_bw_sum)
#define RULE_SUM_DIM R(rt_bw_sum_dim)
#define RULE_MEAN R(rt_bw_mean)
#define RULE_MEAN_DIM R(rt_bw_mean_dim)
#define RULE_PROD FALLBACK_("the eager rule branches on whether the input holds zeros")
#define RULE_PROD_DIM FALLBACK_("the eager rule branches on whether the input holds zeros")
#define RULE_MAX R(rt_bw_max_all)
#define RULE_MAX_DIM R(rt_bw_max_dim)
#define RULE_MIN R(rt_bw_max_all)
#define RULE_MIN_DIM R(rt_bw_max_dim)
#define RULE_ARGMAX NONDIFF_
#define RULE_ARGMIN NONDIFF_
#define RULE_VAR R(rt_bw_var)
#define RULE_STD R(rt_bw_std)
#define RULE_LOGSUMEXP R(rt_bw_logsumexp)
#define RULE_ALL NONDIFF_
#define RULE_ANY NONDIFF_
#define RULE_VIEW R(rt_bw_view)
#define RULE_RESHAPE COMPOSITE_
#define RULE_UNSAFE_VIEW R(rt_bw_view)
#define RULE_AS_STRIDED FALLBACK_("as_strided's rule scatters over storage positions")
#define RULE_TRANSPOSE R(rt_bw_transpose)
#define RULE_T R(rt_bw_t)
#define RULE_PERMUTE R(rt_bw_permute)
#define RULE_EXPAND R(rt_bw_expand)
#define RULE_SLICE R(rt_bw_slice)
#define RULE_SELECT R(rt_bw_select)
#define RULE_NARROW COMPOSITE_
#define RULE_UNSQUEEZE R(rt_bw_unsqueeze)
#define RULE_SQUEEZE R(rt_bw_squeeze)
#define RULE_SQUEEZE_DIM R(rt_bw_squeeze)
#define RULE_FLATTEN COMPOSITE_
#define RULE_CONTIGUOUS COMPOSITE_
#define RULE_SPLIT R(rt_bw_split)
#define RULE_SPLIT_WITH_SIZES R(rt_bw_split)
#define RULE_CHUNK COMPOSITE_
#define RULE_UNBIND R(rt_bw_unbind)
#define RULE_CAT R(rt_bw_cat)
#define RULE_STACK R(rt_bw_stack)
#define RULE_MM R(rt_bw_mm)
#define RULE_BMM R(rt_bw_bmm)
#define RULE_MV R(rt_bw_mv)
#define RULE_DOT R(rt_bw_dot)
#define RULE_ADDMM R(rt_bw_addmm)
#define RULE_MATMUL COMPOSITE_
#define RULE_LINEAR COMPOSITE_
#define RULE_GATHER R(rt_bw_gather)
#define RULE_SCATTER_ADD R(rt_bw_scatter_add)
#define RULE_INDEX_SELECT R(rt_bw_index_select)
#define RULE_INDEX_ADD R(rt_bw_index_add)
#define RULE_INDEX R(rt_bw_index)
#define RULE_INDEX_PUT R(rt_bw_index_put)
#define RULE_MASKED_FILL R(rt_bw_masked_fill)
#define RULE_MASKED_SELECT FALLBACK_("its output shape depends on the mask's values")
#define RULE_MASKED_SCATTER FALLBACK_("the source's gradient depends on the mask's values")
#define RULE_SOFTMAX R(rt_bw_softmax)
#define RULE_LOG_SOFTMAX R(rt_bw_log_softmax)
#define RULE_LAYER_NORM R(rt_bw_layer_norm)
#define RULE_EMBEDDING R(rt_bw_embedding)
#define RULE_DROPOUT R(rt_bw_dropout)
#define RULE_NLL_LOSS R(rt_bw_nll_loss)
#define RULE_CROSS_ENTROPY COMPOSITE_
#define RULE_MSE_LOSS R(rt_bw_mse_loss)
#define INPLACE_ FALLBACK_("in-place ops on tensors that require grad run eagerly")
#define RULE_ADD_ INPLACE_
#define RULE_SUB_ INPLACE_
#define RULE_MUL_ INPLACE_
#define RULE_DIV_ INPLACE_
#define RULE_ADD_SCALAR_ INPLACE_
#define RULE_SUB_SCALAR_ INPLACE_
#define RULE_MUL_SCALAR_ INPLACE_
#define RULE_DIV_SCALAR_ INPLACE_
#define RULE_ZERO_ INPLACE_
#define RULE_FILL_ INPLACE_
#define RULE_COPY_ INPLACE_
#define RULE_CLAMP_ INPLACE_
#define RULE_RELU_ INPLACE_
#define RULE_MASKED_FILL_ INPLACE_
#define RULE_INDEX_PUT_ INPLACE_
#define RULE_NORMAL_ INPLACE_
#define RULE_UNIFORM_ INPLACE_

static const RuleEntry rules[] = {
#define X(NAME, ...) RULE_##NAME,
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof rules / sizeof rules[0] == TENSOR_OP_COUNT, "one symbolic-rule line per tensor op in ops.def");

RtRule rt_rule(TensorOp op, const char **why) {
    if ((unsigned)op >= TENSOR_OP_COUNT) {
        if (why) *why = "unknown op";
        return NULL;
    }
    if (why) *why = rules[op].why;
    return rules[op].fn;
}

bool rt_op_has_symbolic_rule(TensorOp op) { return rt_rule(op, NULL) != NULL; }
