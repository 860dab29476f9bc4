/* rules_pw.c — symbolic derivatives of the elementwise ops and the reductions, each the graph
 * form of the eager rule of the same name in src/autograd/rules_pointwise.c / rules_shape.c
 * (same ops, same order, same scalars: compiled gradients equal eager ones bitwise).  Masks the
 * eager rules build with tensor_ ops (constants) are ordinary nodes here. */
#include <math.h>

#include "src/runtime/rules.h"
#include "src/tensor/reduce.h"

#define G0 rd_g(d, 0)

int rt_bw_neg(RtD *d) {
    rd_grad(d, 0, rd_un(d, TENSOR_OP_NEG, G0));
    return 0;
}

int rt_bw_identity(RtD *d) {
    rd_grad(d, 0, G0);
    return 0;
}

int rt_bw_to_dtype(RtD *d) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = rd_in_meta(d, 0)->dtype;
    GraphNode *g = G0;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_TO_DTYPE, &g, 1, &a));
    return 0;
}

int rt_bw_zero_like(RtD *d) {
    rd_grad(d, 0, rd_un(d, TENSOR_OP_ZEROS_LIKE, G0));
    return 0;
}

int rt_bw_abs(RtD *d) {
    GraphNode *x = rd_in(d, 0);
    GraphNode *sg = rd_un(d, TENSOR_OP_SIGN, x);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, sg));
    return 0;
}

int rt_bw_exp(RtD *d) {
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, rd_out(d, 0)));
    return 0;
}

int rt_bw_log(RtD *d) {
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_DIV, G0, rd_in(d, 0)));
    return 0;
}

int rt_bw_sqrt(RtD *d) {
    GraphNode *t = rd_sc(d, TENSOR_OP_MUL_SCALAR, rd_out(d, 0), rd_f(2));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_DIV, G0, t));
    return 0;
}

int rt_bw_rsqrt(RtD *d) {
    GraphNode *r3 = rd_sc(d, TENSOR_OP_POW_SCALAR, rd_out(d, 0), rd_i(3));
    GraphNode *t = rd_bin(d, TENSOR_OP_MUL, G0, r3);
    rd_grad(d, 0, rd_sc(d, TENSOR_OP_MUL_SCALAR, t, rd_f(-0.5)));
    return 0;
}

int rt_bw_tanh(RtD *d) {
    GraphNode *r = rd_out(d, 0);
    GraphNode *r2 = rd_bin(d, TENSOR_OP_MUL, r, r);
    GraphNode *dd = rd_sc(d, TENSOR_OP_RSUB_SCALAR, r2, rd_i(1));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_sigmoid(RtD *d) {
    GraphNode *r = rd_out(d, 0);
    GraphNode *om = rd_sc(d, TENSOR_OP_RSUB_SCALAR, r, rd_i(1));
    GraphNode *dd = rd_bin(d, TENSOR_OP_MUL, r, om);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_relu(RtD *d) {
    GraphNode *dead = rd_sc(d, TENSOR_OP_LE_SCALAR, rd_out(d, 0), rd_i(0));
    rd_grad(d, 0, rd_masked_fill(d, G0, dead, rd_i(0)));
    return 0;
}

int rt_bw_erf(RtD *d) {
    GraphNode *x = rd_in(d, 0);
    GraphNode *x2 = rd_bin(d, TENSOR_OP_MUL, x, x);
    GraphNode *e = rd_un(d, TENSOR_OP_EXP, rd_un(d, TENSOR_OP_NEG, x2));
    GraphNode *dd = rd_sc(d, TENSOR_OP_MUL_SCALAR, e, rd_f(1.1283791670955126));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_gelu(RtD *d) {
    GraphNode *x = rd_in(d, 0), *dd;
    GraphNode *x2 = rd_bin(d, TENSOR_OP_MUL, x, x);
    if (!rd_args(d)->approximate) {
        GraphNode *xs = rd_sc(d, TENSOR_OP_MUL_SCALAR, x, rd_f(0.7071067811865476));
        GraphNode *e = rd_un(d, TENSOR_OP_ERF, xs);
        GraphNode *e1 = rd_sc(d, TENSOR_OP_ADD_SCALAR, e, rd_i(1));
        GraphNode *cdf = rd_sc(d, TENSOR_OP_MUL_SCALAR, e1, rd_f(0.5));
        GraphNode *h = rd_sc(d, TENSOR_OP_MUL_SCALAR, x2, rd_f(-0.5));
        GraphNode *ex = rd_un(d, TENSOR_OP_EXP, h);
        GraphNode *pdf = rd_sc(d, TENSOR_OP_MUL_SCALAR, ex, rd_f(0.3989422804014327));
        GraphNode *xp = rd_bin(d, TENSOR_OP_MUL, x, pdf);
        dd = rd_bin(d, TENSOR_OP_ADD, cdf, xp);
    } else {
        const double k = 0.7978845608028654, c = 0.044715;
        GraphNode *x3 = rd_bin(d, TENSOR_OP_MUL, x2, x);
        GraphNode *cx3 = rd_sc(d, TENSOR_OP_MUL_SCALAR, x3, rd_f(c));
        GraphNode *u = rd_bin(d, TENSOR_OP_ADD, x, cx3);
        GraphNode *inner = rd_sc(d, TENSOR_OP_MUL_SCALAR, u, rd_f(k));
        GraphNode *t = rd_un(d, TENSOR_OP_TANH, inner);
        GraphNode *left = rd_sc(d, TENSOR_OP_MUL_SCALAR, x, rd_f(0.5));
        GraphNode *right = rd_sc(d, TENSOR_OP_ADD_SCALAR, t, rd_i(1));
        GraphNode *left_d = rd_sc(d, TENSOR_OP_MUL_SCALAR, right, rd_f(0.5));
        GraphNode *t2 = rd_bin(d, TENSOR_OP_MUL, t, t);
        GraphNode *tanh_d = rd_sc(d, TENSOR_OP_RSUB_SCALAR, t2, rd_i(1));
        GraphNode *a = rd_sc(d, TENSOR_OP_MUL_SCALAR, x2, rd_f(3 * c));
        GraphNode *a1 = rd_sc(d, TENSOR_OP_ADD_SCALAR, a, rd_i(1));
        GraphNode *inner_d = rd_sc(d, TENSOR_OP_MUL_SCALAR, a1, rd_f(k));
        GraphNode *lt = rd_bin(d, TENSOR_OP_MUL, left, tanh_d);
        GraphNode *right_d = rd_bin(d, TENSOR_OP_MUL, lt, inner_d);
        dd = rd_bin(d, TENSOR_OP_ADD, left_d, right_d);
    }
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_silu(RtD *d) {
    GraphNode *x = rd_in(d, 0);
    GraphNode *sg = rd_un(d, TENSOR_OP_SIGMOID, x);
    GraphNode *om = rd_sc(d, TENSOR_OP_RSUB_SCALAR, sg, rd_i(1));
    GraphNode *xo = rd_bin(d, TENSOR_OP_MUL, x, om);
    GraphNode *t = rd_sc(d, TENSOR_OP_ADD_SCALAR, xo, rd_i(1));
    GraphNode *dd = rd_bin(d, TENSOR_OP_MUL, sg, t);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_leaky_relu(RtD *d) {
    GraphNode *x = rd_in(d, 0);
    GraphNode *pos = rd_sc(d, TENSOR_OP_GT_SCALAR, x, rd_i(0));
    GraphNode *f = rd_full(d, TENSOR_FLOAT32, rd_in_meta(d, 0), rd_args(d)->scalar);
    GraphNode *f1 = rd_masked_fill(d, f, pos, rd_i(1));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, f1));
    return 0;
}

int rt_bw_sin(RtD *d) {
    GraphNode *c = rd_un(d, TENSOR_OP_COS, rd_in(d, 0));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, c));
    return 0;
}

int rt_bw_cos(RtD *d) {
    GraphNode *sn = rd_un(d, TENSOR_OP_SIN, rd_in(d, 0));
    rd_grad(d, 0, rd_un(d, TENSOR_OP_NEG, rd_bin(d, TENSOR_OP_MUL, G0, sn)));
    return 0;
}

int rt_bw_reciprocal(RtD *d) {
    GraphNode *r = rd_out(d, 0);
    GraphNode *r2 = rd_bin(d, TENSOR_OP_MUL, r, r);
    rd_grad(d, 0, rd_un(d, TENSOR_OP_NEG, rd_bin(d, TENSOR_OP_MUL, G0, r2)));
    return 0;
}

/* eager builds keep = all-true [& x >= min] [& x <= max]; and-ing with all-true is the mask
 * itself, so the first bound's mask starts the chain */
int rt_bw_clamp(RtD *d) {
    GraphNode *x = rd_in(d, 0), *keep = NULL;
    const TensorOpArgs *a = rd_args(d);
    if (a->has_min) keep = rd_sc(d, TENSOR_OP_GE_SCALAR, x, a->scalar);
    if (a->has_max) {
        GraphNode *m = rd_sc(d, TENSOR_OP_LE_SCALAR, x, a->scalar2);
        keep = keep ? rd_bin(d, TENSOR_OP_LOGICAL_AND, keep, m) : m;
    }
    if (!keep) {
        rd_grad(d, 0, G0);
        return 0;
    }
    GraphNode *drop = rd_un(d, TENSOR_OP_LOGICAL_NOT, keep);
    rd_grad(d, 0, rd_masked_fill(d, G0, drop, rd_i(0)));
    return 0;
}

/* ---- binary ------------------------------------------------------------------------------------------ */

static GraphNode *scale(RtD *d, GraphNode *g, TensorScalar s) {
    return rd_sv(s) == 1.0 ? g : rd_sc(d, TENSOR_OP_MUL_SCALAR, g, s);
}

int rt_bw_add(RtD *d) {
    if (rd_needs(d, 0)) rd_grad(d, 0, G0);
    if (rd_needs(d, 1)) rd_grad(d, 1, scale(d, G0, rd_args(d)->alpha));
    return 0;
}

int rt_bw_sub(RtD *d) {
    if (rd_needs(d, 0)) rd_grad(d, 0, G0);
    if (rd_needs(d, 1)) {
        TensorScalar na = rd_args(d)->alpha;
        na.f = -na.f;
        na.i = -na.i;
        rd_grad(d, 1, rd_sc(d, TENSOR_OP_MUL_SCALAR, G0, na));
    }
    return 0;
}

int rt_bw_mul(RtD *d) {
    GraphNode *self = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *other = rd_needs(d, 0) ? rd_in(d, 1) : NULL;
    if (rd_needs(d, 0)) rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, other));
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_bin(d, TENSOR_OP_MUL, G0, self));
    return 0;
}

int rt_bw_div(RtD *d) {
    GraphNode *self = rd_needs(d, 1) ? rd_in(d, 0) : NULL, *other = rd_in(d, 1);
    if (rd_needs(d, 0)) rd_grad(d, 0, rd_bin(d, TENSOR_OP_DIV, G0, other));
    if (rd_needs(d, 1)) {
        GraphNode *o2 = rd_bin(d, TENSOR_OP_MUL, other, other);
        GraphNode *q = rd_bin(d, TENSOR_OP_DIV, self, o2);
        rd_grad(d, 1, rd_un(d, TENSOR_OP_NEG, rd_bin(d, TENSOR_OP_MUL, G0, q)));
    }
    return 0;
}

int rt_bw_pow(RtD *d) {
    GraphNode *self = rd_in(d, 0), *ex = rd_in(d, 1), *res = rd_out(d, 0);
    if (rd_needs(d, 0)) {
        GraphNode *e1 = rd_sc(d, TENSOR_OP_SUB_SCALAR, ex, rd_i(1));
        GraphNode *p = rd_bin(d, TENSOR_OP_POW, self, e1);
        GraphNode *ge = rd_bin(d, TENSOR_OP_MUL, G0, ex);
        GraphNode *t = rd_bin(d, TENSOR_OP_MUL, ge, p);
        GraphNode *zero_ex = rd_sc(d, TENSOR_OP_EQ_SCALAR, ex, rd_i(0));
        rd_grad(d, 0, rd_masked_fill(d, t, zero_ex, rd_i(0)));
    }
    if (rd_needs(d, 1)) {
        GraphNode *l = rd_un(d, TENSOR_OP_LOG, self);
        GraphNode *gr = rd_bin(d, TENSOR_OP_MUL, G0, res);
        GraphNode *t = rd_bin(d, TENSOR_OP_MUL, gr, l);
        GraphNode *z = rd_sc(d, TENSOR_OP_EQ_SCALAR, self, rd_i(0));
        GraphNode *nn = rd_sc(d, TENSOR_OP_GE_SCALAR, ex, rd_i(0));
        GraphNode *m = rd_bin(d, TENSOR_OP_LOGICAL_AND, z, nn);
        rd_grad(d, 1, rd_masked_fill(d, t, m, rd_i(0)));
    }
    return 0;
}

static int minmax(RtD *d, bool is_max) {
    GraphNode *self = rd_in(d, 0), *other = rd_in(d, 1);
    GraphNode *eq = rd_bin(d, TENSOR_OP_EQ, self, other);
    for (int i = 0; i < 2; i++) {
        if (!rd_needs(d, i)) continue;
        GraphNode *f = rd_full(d, TENSOR_FLOAT32, &eq->meta, rd_i(1));
        f = rd_masked_fill(d, f, eq, rd_f(0.5));
        bool self_loses_on_lt = is_max == (i == 0);
        GraphNode *lose = rd_bin(d, self_loses_on_lt ? TENSOR_OP_LT : TENSOR_OP_GT, self, other);
        f = rd_masked_fill(d, f, lose, rd_i(0));
        rd_grad(d, i, rd_bin(d, TENSOR_OP_MUL, G0, f));
    }
    return 0;
}

int rt_bw_maximum(RtD *d) { return minmax(d, true); }
int rt_bw_minimum(RtD *d) { return minmax(d, false); }

int rt_bw_remainder(RtD *d) {
    if (rd_needs(d, 0)) rd_grad(d, 0, G0);
    if (rd_needs(d, 1)) {
        GraphNode *q = rd_bin(d, TENSOR_OP_FLOOR_DIVIDE, rd_in(d, 0), rd_in(d, 1));
        rd_grad(d, 1, rd_un(d, TENSOR_OP_NEG, rd_bin(d, TENSOR_OP_MUL, G0, q)));
    }
    return 0;
}

int rt_bw_mul_scalar(RtD *d) {
    rd_grad(d, 0, rd_sc(d, TENSOR_OP_MUL_SCALAR, G0, rd_args(d)->scalar));
    return 0;
}

int rt_bw_div_scalar(RtD *d) {
    rd_grad(d, 0, rd_sc(d, TENSOR_OP_DIV_SCALAR, G0, rd_args(d)->scalar));
    return 0;
}

int rt_bw_pow_scalar(RtD *d) {
    TensorScalar e = rd_args(d)->scalar;
    if (rd_sv(e) == 0.0) {
        rd_grad(d, 0, rd_un(d, TENSOR_OP_ZEROS_LIKE, G0));
        return 0;
    }
    TensorScalar e1 = e;
    e1.f -= 1;
    e1.i -= 1;
    GraphNode *p = rd_sc(d, TENSOR_OP_POW_SCALAR, rd_in(d, 0), e1);
    GraphNode *dd = rd_sc(d, TENSOR_OP_MUL_SCALAR, p, e);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, dd));
    return 0;
}

int rt_bw_rsub_scalar(RtD *d) {
    TensorScalar na = rd_args(d)->alpha;
    na.f = -na.f;
    na.i = -na.i;
    rd_grad(d, 0, rd_sc(d, TENSOR_OP_MUL_SCALAR, G0, na));
    return 0;
}

int rt_bw_rpow_scalar(RtD *d) {
    double base = rd_sv(rd_args(d)->scalar);
    if (base == 0.0) {
        rd_grad(d, 0, rd_un(d, TENSOR_OP_ZEROS_LIKE, G0));
        return 0;
    }
    GraphNode *t = rd_bin(d, TENSOR_OP_MUL, G0, rd_out(d, 0));
    rd_grad(d, 0, rd_sc(d, TENSOR_OP_MUL_SCALAR, t, rd_f(log(base))));
    return 0;
}

int rt_bw_where(RtD *d) {
    GraphNode *cond = rd_in(d, 0);
    if (rd_needs(d, 1)) rd_grad(d, 1, rd_masked_fill(d, G0, rd_un(d, TENSOR_OP_LOGICAL_NOT, cond), rd_i(0)));
    if (rd_needs(d, 2)) rd_grad(d, 2, rd_masked_fill(d, G0, cond, rd_i(0)));
    return 0;
}

int rt_bw_masked_fill(RtD *d) {
    rd_grad(d, 0, rd_masked_fill(d, G0, rd_in(d, 1), rd_i(0)));
    return 0;
}

/* ---- reductions ---------------------------------------------------------------------------------------- */

static int64_t reduced_count(const TensorMeta *in, const int64_t *dims, int nd) {
    ReducePlan p;
    if (tensor__reduce_plan(in, dims, nd, nd == 0, true, &p) < 0) {
        tensor_error_clear();
        return -1;
    }
    return p.rnumel;
}

int rt_bw_sum(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_EXPAND, G0, m->shape, m->ndim, false));
    return 0;
}

int rt_bw_sum_dim(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    const TensorOpArgs *a = rd_args(d);
    GraphNode *u = rd_unsqueeze_reduced(d, G0, m, a->ints, a->n_ints, a->keepdim);
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_EXPAND, u, m->shape, m->ndim, false));
    return 0;
}

int rt_bw_mean(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    GraphNode *t = rd_sc(d, TENSOR_OP_DIV_SCALAR, G0, rd_i(tensor__shape_numel(m->ndim, m->shape)));
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_EXPAND, t, m->shape, m->ndim, false));
    return 0;
}

int rt_bw_mean_dim(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    const TensorOpArgs *a = rd_args(d);
    int64_t cnt = reduced_count(m, a->ints, a->n_ints);
    if (cnt < 0) return rd_fail(d, "bad dims in mean");
    GraphNode *u = rd_unsqueeze_reduced(d, G0, m, a->ints, a->n_ints, a->keepdim);
    GraphNode *t = rd_sc(d, TENSOR_OP_DIV_SCALAR, u, rd_i(cnt));
    rd_grad(d, 0, rd_dims(d, TENSOR_OP_EXPAND, t, m->shape, m->ndim, false));
    return 0;
}

int rt_bw_max_all(RtD *d) {
    GraphNode *mask = rd_bin(d, TENSOR_OP_EQ, rd_in(d, 0), rd_out(d, 0));
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = TENSOR_FLOAT32;
    GraphNode *mf = rd_op(d, TENSOR_OP_TO_DTYPE, &mask, 1, &a);
    GraphNode *cnt = rd_un(d, TENSOR_OP_SUM, mf);
    GraphNode *f = rd_bin(d, TENSOR_OP_DIV, mf, cnt);
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, G0, f));
    return 0;
}

int rt_bw_max_dim(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    GraphNode *idx = rd_out(d, 1);
    int64_t dim = rd_args(d)->dim;
    if (m->ndim == 0) {
        rd_grad(d, 0, G0);
        return 0;
    }
    if (dim < 0) dim += m->ndim;
    GraphNode *gu = rd_unsqueeze_reduced(d, G0, m, &dim, 1, rd_args(d)->keepdim);
    GraphNode *iu = rd_unsqueeze_reduced(d, idx, m, &dim, 1, rd_args(d)->keepdim);
    GraphNode *z = rd_zeros(d, m);
    GraphNode *in[3] = {z, iu, gu};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    rd_grad(d, 0, rd_op(d, TENSOR_OP_SCATTER_ADD, in, 3, &a));
    return 0;
}

static int var_std(RtD *d, bool is_std) {
    const TensorMeta *m = rd_in_meta(d, 0);
    const TensorOpArgs *a = rd_args(d);
    const int64_t *dims = a->ints;
    int nd = a->n_ints;
    int64_t cnt = reduced_count(m, dims, nd);
    if (cnt < 0) return rd_fail(d, "bad dims in var/std");
    double denom = (double)cnt - a->correction;
    if (denom < 0) denom = 0;
    GraphNode *x = rd_in(d, 0), *mu;
    int64_t all[TENSOR_MAX_DIMS];
    if (nd == 0) {
        for (int i = 0; i < m->ndim; i++) all[i] = i;
        dims = all;
        nd = m->ndim;
    }
    mu = nd ? rd_dims(d, TENSOR_OP_MEAN_DIM, x, dims, nd, true) : x;
    GraphNode *dd = rd_bin(d, TENSOR_OP_SUB, x, mu);
    GraphNode *gu = rd_unsqueeze_reduced(d, G0, m, a->ints, a->n_ints, a->keepdim);
    if (!is_std) {
        GraphNode *t = rd_sc(d, TENSOR_OP_MUL_SCALAR, dd, rd_f(2.0 / denom));
        rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, gu, t));
    } else {
        GraphNode *ru = rd_unsqueeze_reduced(d, rd_out(d, 0), m, a->ints, a->n_ints, a->keepdim);
        GraphNode *q = rd_bin(d, TENSOR_OP_DIV, gu, ru);
        GraphNode *t = rd_sc(d, TENSOR_OP_MUL_SCALAR, dd, rd_f(1.0 / denom));
        rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, q, t));
    }
    return 0;
}

int rt_bw_var(RtD *d) { return var_std(d, false); }
int rt_bw_std(RtD *d) { return var_std(d, true); }

int rt_bw_logsumexp(RtD *d) {
    const TensorMeta *m = rd_in_meta(d, 0);
    const TensorOpArgs *a = rd_args(d);
    GraphNode *x = rd_in(d, 0), *res = rd_out(d, 0);
    GraphNode *ru = rd_unsqueeze_reduced(d, res, m, a->ints, a->n_ints, a->keepdim);
    GraphNode *gu = rd_unsqueeze_reduced(d, G0, m, a->ints, a->n_ints, a->keepdim);
    GraphNode *e = rd_un(d, TENSOR_OP_EXP, rd_bin(d, TENSOR_OP_SUB, x, ru));
    rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, gu, e));
    return 0;
}
