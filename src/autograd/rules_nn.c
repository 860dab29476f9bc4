/* rules_nn.c — backward rules of matrix products, indexing (gather/scatter, index_select/
 * index_add, advanced indexing and index_put, masked_select/scatter) and the nn functions
 * (softmax, log_softmax, layer_norm recomputed from the saved input, embedding, dropout,
 * nll_loss, mse_loss). */
#include <math.h>
#include <string.h>

#include "src/autograd/rules.h"
#include "src/tensor/nn.h"

static Tensor *ref(Tensor *t) {
    tensor_incref(t);
    return t;
}

/* ---- saves ------------------------------------------------------------------------------------------ */

/* self's gradient needs other (slot 1) and other's needs self (slot 0) */
static int save_cross(AgNode *n, Tensor *const *in, int a, int b) {
    if (edge_valid(n, b) && ag__save(n, 0, in[a], false) < 0) return -1;
    if (edge_valid(n, a) && ag__save(n, 1, in[b], false) < 0) return -1;
    return 0;
}

SV(mm) {
    (void)n_in; (void)out; (void)n_out;
    return save_cross(n, in, 0, 1);
}
SV(bmm) {
    (void)n_in; (void)out; (void)n_out;
    return save_cross(n, in, 0, 1);
}
SV(mv) {
    (void)n_in; (void)out; (void)n_out;
    return save_cross(n, in, 0, 1);
}
SV(dot) {
    (void)n_in; (void)out; (void)n_out;
    return save_cross(n, in, 0, 1);
}
SV(addmm) {
    (void)n_in; (void)out; (void)n_out;
    return save_cross(n, in, 1, 2);
}

SV(layer_norm) {
    (void)out; (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0) return -1;
    return n_in > 1 && in[1] ? ag__save(n, 1, in[1], false) : 0;
}

/* x, weight (if any), save_mean, save_invstd */
SV(batch_norm) {
    (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0) return -1;
    if (n_in > 1 && in[1] && ag__save(n, 1, in[1], false) < 0) return -1;
    if (ag__save(n, 2, out[1], true) < 0) return -1;
    return ag__save(n, 3, out[2], true);
}

/* gates, cx, cy, workspace */
SV(lstm_cell) {
    (void)n_in; (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0 || ag__save(n, 1, in[1], false) < 0) return -1;
    if (ag__save(n, 2, out[1], true) < 0) return -1;
    return ag__save(n, 3, out[2], true);
}

SV(nll_loss) {
    (void)out; (void)n_out;
    if (ag__save(n, 0, in[1], false) < 0) return -1;
    return n_in > 2 && in[2] ? ag__save(n, 1, in[2], false) : 0;
}

SV(index_put) {
    (void)out; (void)n_out;
    for (int i = 2; i < n_in; i++)
        if (ag__save(n, i, in[i], false) < 0) return -1;
    return 0;
}

SV(index_put_) { return ag__sv_index_put(n, in, n_in, out, n_out); }

SV(masked_scatter) {
    (void)n_in; (void)out; (void)n_out;
    return ag__save(n, 0, in[1], false);
}

/* ---- matrix products ----------------------------------------------------------------------------------- */

/* A column-major operand (a transposed weight) gets its gradient computed transposed, so the
 * gradient has the operand's layout and TBackward0 hands the leaf a contiguous tensor (no copy
 * in AccumulateGrad) — PyTorch's mm_mat1/mat2_backward do the same. */
static bool col_major(const TensorMeta *m) {
    return m->ndim == 2 && m->strides[0] == 1 && m->strides[1] != 1 && m->shape[0] > 1 && m->shape[1] > 1;
}

static Tensor *mm_grad_mat1(Tensor *g, Tensor *mat2, const TensorMeta *m1) {
    if (m1 && col_major(m1)) {
        Tensor *gt = ag_t(g), *p = gt ? ag_mm(mat2, gt) : NULL, *r = p ? ag_t(p) : NULL;
        tensor_decref(gt);
        tensor_decref(p);
        return r;
    }
    Tensor *m2t = ag_t(mat2), *r = m2t ? ag_mm(g, m2t) : NULL;
    tensor_decref(m2t);
    return r;
}

static Tensor *mm_grad_mat2(Tensor *g, Tensor *mat1, const TensorMeta *m2) {
    if (m2 && col_major(m2)) {
        Tensor *gt = ag_t(g), *p = gt ? ag_mm(gt, mat1) : NULL, *r = p ? ag_t(p) : NULL;
        tensor_decref(gt);
        tensor_decref(p);
        return r;
    }
    Tensor *m1t = ag_t(mat1), *r = m1t ? ag_mm(m1t, g) : NULL;
    tensor_decref(m1t);
    return r;
}

BW(mm) {
    RULE_BEGIN;
    Tensor *self, *other;
    SAVED(0, self);
    SAVED(1, other);
    if (NEEDS(0)) OUT(0, mm_grad_mat1(g[0], other, &n->in_meta[0]));
    if (NEEDS(1)) OUT(1, mm_grad_mat2(g[0], self, &n->in_meta[1]));
    RULE_END;
}

BW(bmm) {
    RULE_BEGIN;
    Tensor *self, *other;
    SAVED(0, self);
    SAVED(1, other);
    if (NEEDS(0)) {
        Tensor *ot;
        TMP(ot, ag_transpose(other, 1, 2));
        Tensor *in[2] = {g[0], ot};
        OUT(0, ag_op1(TENSOR_OP_BMM, in, 2, NULL));
    }
    if (NEEDS(1)) {
        Tensor *st;
        TMP(st, ag_transpose(self, 1, 2));
        Tensor *in[2] = {st, g[0]};
        OUT(1, ag_op1(TENSOR_OP_BMM, in, 2, NULL));
    }
    RULE_END;
}

BW(mv) {
    RULE_BEGIN;
    Tensor *mat, *vec;
    SAVED(0, mat);
    SAVED(1, vec);
    if (NEEDS(0)) {
        /* grad.ger(vec): ATen's outer is a broadcast multiply, not a product */
        Tensor *gu;
        TMP(gu, ag_unsqueeze(g[0], 1));
        OUT(0, ag_mul(gu, vec));
    }
    if (NEEDS(1)) {
        Tensor *mt;
        TMP(mt, ag_t(mat));
        Tensor *in[2] = {mt, g[0]};
        OUT(1, ag_op1(TENSOR_OP_MV, in, 2, NULL));
    }
    RULE_END;
}

BW(dot) {
    RULE_BEGIN;
    Tensor *self, *other;
    SAVED(0, self);
    SAVED(1, other);
    if (NEEDS(0)) OUT(0, ag_mul(g[0], other));
    if (NEEDS(1)) OUT(1, ag_mul(g[0], self));
    RULE_END;
}

BW(addmm) {
    RULE_BEGIN;
    TensorScalar alpha = n->args.alpha, beta = n->args.beta;
    Tensor *m1, *m2;
    SAVED(0, m1);
    SAVED(1, m2);
    if (NEEDS(0)) {
        if (scalar_value(beta) == 1.0)
            gi[0] = ref(g[0]);
        else
            OUT(0, ag_mul_scalar(g[0], beta));
    }
    if (NEEDS(1)) {
        Tensor *p;
        TMP(p, mm_grad_mat1(g[0], m2, &n->in_meta[1]));
        OUT(1, scalar_value(alpha) == 1.0 ? ref(p) : ag_mul_scalar(p, alpha));
    }
    if (NEEDS(2)) {
        Tensor *p;
        TMP(p, mm_grad_mat2(g[0], m1, &n->in_meta[2]));
        OUT(2, scalar_value(alpha) == 1.0 ? ref(p) : ag_mul_scalar(p, alpha));
    }
    RULE_END;
}

/* ---- indexing -------------------------------------------------------------------------------------------- */

BW(gather) {
    RULE_BEGIN;
    Tensor *idx, *z;
    SAVED(0, idx);
    TMP(z, ag__zeros_meta(&n->in_meta[0]));
    Tensor *in[3] = {z, idx, g[0]};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = n->args.dim;
    OUT(0, ag_op1(TENSOR_OP_SCATTER_ADD, in, 3, &a));
    RULE_END;
}

BW(scatter_add) {
    RULE_BEGIN;
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(2)) {
        Tensor *idx;
        SAVED(0, idx);
        OUT(2, ag_gather(g[0], n->args.dim, idx));
    }
    RULE_END;
}

BW(index_select) {
    RULE_BEGIN;
    Tensor *idx, *z;
    SAVED(0, idx);
    TMP(z, ag__zeros_meta(&n->in_meta[0]));
    Tensor *in[3] = {z, idx, g[0]};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = n->args.dim;
    OUT(0, ag_op1(TENSOR_OP_INDEX_ADD, in, 3, &a));
    RULE_END;
}

BW(index_add) {
    RULE_BEGIN;
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(2)) {
        Tensor *idx, *sel;
        SAVED(0, idx);
        TMP(sel, ag_index_select(g[0], n->args.dim, idx));
        OUT(2, scalar_value(n->args.alpha) == 1.0 ? ref(sel) : ag_mul_scalar(sel, n->args.alpha));
    }
    RULE_END;
}

/* the index tensors saved in slots [first, n_in) */
static int load_indices(AgNode *n, int first, Tensor **idx, Tmps *s) {
    for (int i = first; i < (int)n->n_in; i++) {
        if (ag__saved(n, i, &idx[i - first]) < 0) return -1;
        s->t[s->n++] = idx[i - first];
    }
    return (int)n->n_in - first;
}

BW(index) {
    RULE_BEGIN;
    Tensor *idx[TENSOR_MAX_DIMS + 2], *z;
    int k = load_indices(n, 1, idx, &s);
    if (k < 0) goto fail;
    TMP(z, ag__zeros_meta(&n->in_meta[0]));
    Tensor *in[TENSOR_MAX_DIMS + 2];
    in[0] = z;
    in[1] = g[0];
    for (int i = 0; i < k; i++) in[i + 2] = idx[i];
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = n->args.dim;
    a.accumulate = true;
    OUT(0, ag_op1(TENSOR_OP_INDEX_PUT, in, k + 2, &a));
    RULE_END;
}

BW(index_put) {
    RULE_BEGIN;
    Tensor *idx[TENSOR_MAX_DIMS + 2];
    int k = load_indices(n, 2, idx, &s);
    if (k < 0) goto fail;
    if (NEEDS(0)) {
        if (n->args.accumulate) {
            gi[0] = ref(g[0]);
        } else {
            Tensor *zero;
            TensorMeta zm;
            memset(&zm, 0, sizeof zm);
            zm.dtype = (TensorDtype)g[0]->dtype;
            TMP(zero, ag__zeros_meta(&zm));
            Tensor *in[TENSOR_MAX_DIMS + 2];
            in[0] = g[0];
            in[1] = zero;
            for (int i = 0; i < k; i++) in[i + 2] = idx[i];
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.dim = n->args.dim;
            OUT(0, ag_op1(TENSOR_OP_INDEX_PUT, in, k + 2, &a));
        }
    }
    if (NEEDS(1)) OUT(1, ag_index(g[0], n->args.dim, idx, k));
    RULE_END;
}

BW(index_put_) { return ag__bw_index_put(n, g, gi); }

BW(masked_select) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *mask, *z;
    SAVED(0, mask);
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(m->ndim, m->shape, mask->ndim, mask->shape, &nd, bs) < 0) goto fail;
    TMP(z, tensor_zeros((TensorDtype)g[0]->dtype, nd, bs));
    Tensor *in[3] = {z, mask, g[0]};
    OUT(0, ag_op1(TENSOR_OP_MASKED_SCATTER, in, 3, NULL));
    RULE_END;
}

BW(masked_scatter) {
    RULE_BEGIN;
    Tensor *mask;
    SAVED(0, mask);
    if (NEEDS(0)) OUT(0, ag_masked_fill(g[0], mask, tensor_scalar_i(0)));
    if (NEEDS(2)) {
        const TensorMeta *src = &n->in_meta[2];
        int64_t total = tensor__shape_numel(src->ndim, src->shape);
        Tensor *sel, *pad, *full;
        Tensor *in[2] = {g[0], mask};
        TMP(sel, ag_op1(TENSOR_OP_MASKED_SELECT, in, 2, NULL));
        int64_t rest = total - sel->numel;
        TMP(pad, tensor_zeros((TensorDtype)g[0]->dtype, 1, &rest));
        Tensor *parts[2] = {sel, pad};
        TMP(full, ag_cat(parts, 2, 0));
        OUT(2, ag_reshape(full, src->shape, src->ndim));
    }
    RULE_END;
}

/* ---- nn ------------------------------------------------------------------------------------------------- */

/* softmax's and log_softmax's backward.  Without create_graph, for float32 / float64: PyTorch's
 * kernels (SOFTMAX_BACKWARD / LOG_SOFTMAX_BACKWARD, src/tensor/softmax_rows.c:
 * its order, so its bits); otherwise the formula in ag_ ops, so the result differentiates again. */
static bool softmax_bw_fused(const Tensor *y, const Tensor *g) {
    return !ag_is_grad_enabled() && (y->dtype == TENSOR_FLOAT32 || y->dtype == TENSOR_FLOAT64) && g->dtype == y->dtype &&
           y->ndim > 0 && g->ndim == y->ndim && memcmp(g->shape, y->shape, sizeof(int64_t) * (size_t)y->ndim) == 0;
}

BW(softmax) {
    RULE_BEGIN;
    Tensor *y, *gy, *sm, *d;
    SAVED(0, y);
    int64_t dim = n->args.dim;
    if (softmax_bw_fused(y, g[0])) {
        Tensor *in[2] = {g[0], y};
        if (ag_op_run(TENSOR_OP_SOFTMAX_BACKWARD, in, 2, &n->args, gi, 1) < 0) goto fail;
        rc = 0;
        goto fail;
    }
    TMP(gy, ag_mul(g[0], y));
    TMP(sm, ag_sum_dims(gy, &dim, 1, true));
    TMP(d, ag_sub(g[0], sm));
    OUT(0, ag_mul(y, d));
    RULE_END;
}

BW(log_softmax) {
    RULE_BEGIN;
    Tensor *y, *e, *sm, *p;
    SAVED(0, y);
    int64_t dim = n->args.dim;
    if (softmax_bw_fused(y, g[0])) {
        Tensor *in[2] = {g[0], y};
        if (ag_op_run(TENSOR_OP_LOG_SOFTMAX_BACKWARD, in, 2, &n->args, gi, 1) < 0) goto fail;
        rc = 0;
        goto fail;
    }
    TMP(e, ag_exp(y));
    TMP(sm, ag_sum_dims(g[0], &dim, 1, true));
    TMP(p, ag_mul(e, sm));
    OUT(0, ag_sub(g[0], p));
    RULE_END;
}

/* layer_norm's backward.  Without create_graph (float32 / float64): the fused kernel
 * (LAYER_NORM_BACKWARD, src/tensor/layer_norm.c: two passes a row).  Under create_graph: the
 * formula in ag_ ops, so the result differentiates again. */
BW(layer_norm) {
    RULE_BEGIN;
    Tensor *x, *w, *mu, *xc, *xc2, *var, *ve, *rstd, *xhat;
    SAVED(0, x);
    SAVED(1, w);
    if (!ag_is_grad_enabled() && (x->dtype == TENSOR_FLOAT32 || x->dtype == TENSOR_FLOAT64) &&
        g[0]->dtype == x->dtype && (!w || w->dtype == x->dtype)) {
        Tensor *in[3] = {g[0], x, w};
        Tensor *o[3] = {NULL, NULL, NULL};
        if (ag_op_run(TENSOR_OP_LAYER_NORM_BACKWARD, in, w ? 3 : 2, &n->args, o, 3) < 0) goto fail;
        for (int i = 0; i < 3; i++) {
            if (NEEDS(i)) gi[i] = o[i];
            else tensor_decref(o[i]);
        }
        rc = 0;
        goto fail;
    }
    int nn_ = n->args.n_ints, nd = x->ndim;
    int64_t dims[TENSOR_MAX_DIMS], lead[TENSOR_MAX_DIMS];
    for (int i = 0; i < nn_; i++) dims[i] = nd - nn_ + i;
    for (int i = 0; i < nd - nn_; i++) lead[i] = i;
    TMP(mu, ag_mean_dims(x, dims, nn_, true));
    TMP(xc, ag_sub(x, mu));
    TMP(xc2, ag_mul(xc, xc));
    TMP(var, ag_mean_dims(xc2, dims, nn_, true));
    TMP(ve, ag_add_scalar(var, sc(n->args.eps)));
    TMP(rstd, ag_unary(TENSOR_OP_RSQRT, ve));
    TMP(xhat, ag_mul(xc, rstd));
    if (NEEDS(0)) {
        Tensor *gw, *m1, *gx, *m2, *a, *b, *c;
        if (w) {
            TMP(gw, ag_mul(g[0], w));
        } else {
            TMP(gw, ref(g[0]));
        }
        TMP(m1, ag_mean_dims(gw, dims, nn_, true));
        TMP(gx, ag_mul(gw, xhat));
        TMP(m2, ag_mean_dims(gx, dims, nn_, true));
        TMP(a, ag_sub(gw, m1));
        TMP(b, ag_mul(xhat, m2));
        TMP(c, ag_sub(a, b));
        OUT(0, ag_mul(rstd, c));
    }
    if (NEEDS(1)) {
        Tensor *t;
        TMP(t, ag_mul(g[0], xhat));
        OUT(1, nd > nn_ ? ag_sum_dims(t, lead, nd - nn_, false) : ref(t));
    }
    if (NEEDS(2)) OUT(2, nd > nn_ ? ag_sum_dims(g[0], lead, nd - nn_, false) : ref(g[0]));
    RULE_END;
}

/* native_batch_norm's backward.  Without create_graph: the fused per-channel kernel
 * (BATCH_NORM_BACKWARD, two passes).  Under create_graph, or when save_mean / save_invstd
 * received gradients too: the same formula in ag_ ops (mean and invstd recomputed from x in
 * training, so the result differentiates again), plus those outputs' contributions
 * (d mean / dx = 1/n, d invstd / dx = -invstd^3 (x - mean) / n). */
BW(batch_norm) {
    RULE_BEGIN;
    Tensor *x, *w, *mean, *invstd;
    SAVED(0, x);
    SAVED(1, w);
    SAVED(2, mean);
    SAVED(3, invstd);
    bool train = n->args.train;
    int nd = x->ndim, nr = 0;
    int64_t dims[TENSOR_MAX_DIMS], bshape[TENSOR_MAX_DIMS], C = x->shape[1], cnt = 1;
    for (int i = 0; i < nd; i++) {
        bshape[i] = i == 1 ? C : 1;
        if (i != 1) {
            dims[nr++] = i;
            cnt *= x->shape[i];
        }
    }
    bool extra = train && (g[1] || g[2]);
    if (g[0] && !extra && !ag_is_grad_enabled()) {
        Tensor *in[5] = {g[0], x, mean, invstd, w};
        Tensor *o[3] = {NULL, NULL, NULL};
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.train = train;
        if (ag_op_run(TENSOR_OP_BATCH_NORM_BACKWARD, in, w ? 5 : 4, &a, o, 3) < 0) goto fail;
        for (int i = 0; i < 3; i++) {
            if (NEEDS(i)) gi[i] = o[i];
            else tensor_decref(o[i]);
        }
        rc = 0;
        goto fail;
    }
    Tensor *rstd, *xc, *xhat, *gx = NULL;
    if (train) {
        Tensor *mu, *xc2, *var, *ve;
        TMP(mu, ag_mean_dims(x, dims, nr, true));
        TMP(xc, ag_sub(x, mu));
        TMP(xc2, ag_mul(xc, xc));
        TMP(var, ag_mean_dims(xc2, dims, nr, true));
        TMP(ve, ag_add_scalar(var, sc(n->args.eps)));
        TMP(rstd, ag_unary(TENSOR_OP_RSQRT, ve));
    } else {
        Tensor *mb;
        TMP(mb, ag_reshape(mean, bshape, nd));
        TMP(xc, ag_sub(x, mb));
        TMP(rstd, ag_reshape(invstd, bshape, nd));
    }
    TMP(xhat, ag_mul(xc, rstd));
    if (g[0] && NEEDS(0)) {
        Tensor *gw;
        if (w) {
            Tensor *wb;
            TMP(wb, ag_reshape(w, bshape, nd));
            TMP(gw, ag_mul(g[0], wb));
        } else {
            TMP(gw, ref(g[0]));
        }
        if (train) {
            Tensor *m1, *gxh, *m2, *a1, *b1, *c1;
            TMP(m1, ag_mean_dims(gw, dims, nr, true));
            TMP(gxh, ag_mul(gw, xhat));
            TMP(m2, ag_mean_dims(gxh, dims, nr, true));
            TMP(a1, ag_sub(gw, m1));
            TMP(b1, ag_mul(xhat, m2));
            TMP(c1, ag_sub(a1, b1));
            TMP(gx, ag_mul(rstd, c1));
        } else {
            TMP(gx, ag_mul(gw, rstd));
        }
    }
    if (train && NEEDS(0) && g[1]) {
        Tensor *gb, *t;
        TMP(gb, ag_reshape(g[1], bshape, nd));
        TMP(t, ag_mul_scalar(gb, sc(1.0 / (double)cnt)));
        if (gx) {
            TMP(gx, ag_add(gx, t));
        } else {
            TMP(gx, ag_expand(t, x->shape, nd));
        }
    }
    if (train && NEEDS(0) && g[2]) {
        Tensor *gb, *r2, *r3, *k, *t;
        TMP(gb, ag_reshape(g[2], bshape, nd));
        TMP(r2, ag_mul(rstd, rstd));
        TMP(r3, ag_mul(r2, rstd));
        TMP(k, ag_mul(gb, r3));
        TMP(t, ag_mul(k, xc));
        TMP(t, ag_mul_scalar(t, sc(-1.0 / (double)cnt)));
        if (gx) {
            TMP(gx, ag_add(gx, t));
        } else {
            TMP(gx, ref(t));
        }
    }
    if (gx) OUT(0, ref(gx));
    if (g[0] && NEEDS(1)) {
        Tensor *t;
        TMP(t, ag_mul(g[0], xhat));
        OUT(1, ag_sum_dims(t, dims, nr, false));
    }
    if (g[0] && NEEDS(2)) OUT(2, ag_sum_dims(g[0], dims, nr, false));
    RULE_END;
}

static Tensor *one_minus(Tensor *t) {
    Tensor *m = ag_mul_scalar(t, sc(-1));
    if (!m) return NULL;
    Tensor *r = ag_add_scalar(m, sc(1));
    tensor_decref(m);
    return r;
}

/* a + b where either may be NULL (absent gradient: zero); new reference or NULL with *err */
static Tensor *add_opt(Tensor *a, Tensor *b) {
    if (!a) return ref(b);
    if (!b) return ref(a);
    return ag_add(a, b);
}

/* d * a'(x) for an activation a given its value, in the order of ATen's kernels: sigmoid_backward
 * (d * (1 - a)) * a, tanh_backward d * (1 - a^2) with the parenthesis rounded once */
static Tensor *act_grad(Tensor *d, Tensor *a, bool is_tanh) {
    if (is_tanh) return ag_tanh_backward(d, a);
    Tensor *om = one_minus(a);
    if (!om) return NULL;
    Tensor *t = ag_mul(d, om), *r = NULL;
    tensor_decref(om);
    if (t) r = ag_mul(t, a);
    tensor_decref(t);
    return r;
}

/* _thnn_fused_lstm_cell's backward.  Without create_graph, and no gradient reaching the
 * workspace: the fused kernel (LSTM_CELL_BACKWARD, one pass over the saved activated gates).
 * Otherwise the same formula in ag_ ops over activations recomputed from the saved gates, so
 * it differentiates again, plus the workspace's own gradient. */
BW(lstm_cell) {
    RULE_BEGIN;
    Tensor *gates, *cx, *cy, *ws;
    SAVED(0, gates);
    SAVED(1, cx);
    SAVED(2, cy);
    SAVED(3, ws);
    if (!g[2] && !ag_is_grad_enabled() && (g[0] || g[1])) {
        Tensor *in[5] = {cx, cy, ws, g[0], g[1]};
        Tensor *o[2] = {NULL, NULL};
        if (ag_op_run(TENSOR_OP_LSTM_CELL_BACKWARD, in, 5, NULL, o, 2) < 0) goto fail;
        for (int i = 0; i < 2; i++) {
            if (NEEDS(i)) gi[i] = o[i];
            else tensor_decref(o[i]);
        }
        rc = 0;
        goto fail;
    }
    int64_t H = cx->shape[1];
    Tensor *act[4], *c2, *tc, *dct = NULL, *dO = NULL, *dpre[4];
    for (int k = 0; k < 4; k++) {
        Tensor *pre = ag_narrow(gates, 1, k * H, H);
        if (!pre) goto fail;
        act[k] = ag_unary(k == 2 ? TENSOR_OP_TANH : TENSOR_OP_SIGMOID, pre);
        tensor_decref(pre);
        TMP(act[k], act[k]);
    }
    {
        Tensor *fc, *ig;
        TMP(fc, ag_mul(act[1], cx));
        TMP(ig, ag_mul(act[0], act[2]));
        TMP(c2, ag_add(fc, ig));
        TMP(tc, ag_unary(TENSOR_OP_TANH, c2));
    }
    if (g[0]) {
        Tensor *go, *x;
        TMP(go, ag_mul(g[0], act[3]));
        TMP(x, act_grad(go, tc, true));
        TMP(dct, add_opt(g[1], x));
        TMP(dO, ag_mul(g[0], tc));
    } else if (g[1]) {
        TMP(dct, ref(g[1]));
    }
    /* gradients of the activations i, f, g, o (plus the workspace's), then of the gates */
    for (int k = 0; k < 4; k++) {
        Tensor *src = NULL, *gw = NULL, *da;
        if (k == 3) src = dO ? ref(dO) : NULL;
        else if (dct) src = ag_mul(dct, k == 0 ? act[2] : k == 1 ? cx : act[0]);
        if (g[2]) gw = ag_narrow(g[2], 1, k * H, H);
        if ((k == 3 ? dO != NULL : dct != NULL) && !src) {
            tensor_decref(gw);
            goto fail;
        }
        if (g[2] && !gw) {
            tensor_decref(src);
            goto fail;
        }
        if (src || gw) da = add_opt(src, gw);
        else da = ag__zeros_meta(&n->in_meta[1]);
        tensor_decref(src);
        tensor_decref(gw);
        if (!da) goto fail;
        dpre[k] = act_grad(da, act[k], k == 2);
        tensor_decref(da);
        TMP(dpre[k], dpre[k]);
    }
    if (NEEDS(0)) OUT(0, ag_cat(dpre, 4, 1));
    if (NEEDS(1)) {
        if (dct) {
            OUT(1, ag_mul(dct, act[1]));
        } else {
            OUT(1, ag__zeros_meta(&n->in_meta[1]));
        }
    }
    RULE_END;
}

BW(embedding) {
    RULE_BEGIN;
    const TensorMeta *wm = &n->in_meta[0];
    Tensor *idx, *flat, *g2, *z;
    SAVED(0, idx);
    int64_t m1 = -1, shape2[2] = {-1, wm->shape[1]};
    TMP(flat, ag_reshape(idx, &m1, 1));
    TMP(g2, ag_reshape(g[0], shape2, 2));
    if (n->args.padding_idx >= 0) {
        Tensor *pad, *pu;
        TMP(pad, ag__const_scalar(TENSOR_OP_EQ_SCALAR, flat, tensor_scalar_i(n->args.padding_idx)));
        TMP(pu, ag_unsqueeze(pad, 1));
        TMP(g2, ag_masked_fill(g2, pu, tensor_scalar_i(0)));
    }
    if (n->args.accumulate) {
        /* scale_grad_by_freq: each row's gradient divided by how often its index occurs in the
         * batch (ATen's embedding_dense_backward_cpu: scale = 1 / counts[k], added with that alpha;
         * here a division before the sum, so the last bit can differ) -- counts by an index_add
         * of ones, which keeps the shape static for the compiled backends */
        Tensor *ones, *cz, *cnt, *pos, *pu;
        TensorOpArgs oa = TENSOR_OP_ARGS_INIT;
        oa.dtype = tensor_dtype(g2);
        TMP(ones, ag_op1(TENSOR_OP_ONES_LIKE, &flat, 1, &oa));
        TensorMeta cm = *wm;
        cm.ndim = 1;
        cm.strides[0] = 1;
        cm.dtype = tensor_dtype(g2);
        TMP(cz, ag__zeros_meta(&cm));
        TMP(cnt, ag_index_add(cz, 0, flat, ones, tensor_scalar_i(1)));
        TMP(pos, ag_index_select(cnt, 0, flat));
        TMP(pu, ag_unsqueeze(pos, 1));
        TMP(g2, ag_div(g2, pu));
    }
    TMP(z, ag__zeros_meta(wm));
    Tensor *in[3] = {z, flat, g2};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = 0;
    OUT(0, ag_op1(TENSOR_OP_INDEX_ADD, in, 3, &a));
    RULE_END;
}

FW(dropout) {
    Tensor *mask = NULL;
    if (tensor_meta_mode()) {
        /* over fakes (the tracer's, without data): the meta output, and a mask without data
         * where eager saves one, so the node looks as eager's; no kernel reads x, no number is
         * drawn */
        if (!tensor_dtype_is_floating((TensorDtype)in[0]->dtype)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "dropout only supports floating point tensors");
            return -1;
        }
        if (tensor_op_run(TENSOR_OP_DROPOUT, in, n_in, a, out, n_out) < 0) return -1;
        if (a->train && a->p != 0.0 && !(mask = tensor_empty_meta(in[0]->dtype, in[0]->ndim, in[0]->shape, NULL))) {
            tensor_decref(out[0]);
            out[0] = NULL;
            return -1;
        }
    } else {
        out[0] = tensor__dropout(in[0], a->p, a->train, &mask);
    }
    if (!out[0]) return -1;
    int rc = mask ? ag__save(n, 0, mask, false) : 0;
    tensor_decref(mask);
    if (rc < 0) {
        tensor_decref(out[0]);
        out[0] = NULL;
        return -1;
    }
    return 1;
}

/* dropout and native_dropout (whose second output, the mask, passes no gradient back) */
BW(dropout) {
    RULE_BEGIN;
    Tensor *mask;
    SAVED(0, mask);
    if (!g[0]) {
        /* nothing flows back */
    } else if (mask) {
        OUT(0, ag_mul(g[0], mask));
    } else {
        gi[0] = ref(g[0]);
    }
    RULE_END;
}

/* d loss / d input: -w[t] (scaled for mean) at each target position, a constant times grad */
BW(nll_loss) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *target, *weight, *W, *gg = g[0];
    SAVED(0, target);
    SAVED(1, weight);
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = m->shape;
    a.n_ints = m->ndim;
    a.reduction = n->args.reduction;
    a.ignore_index = n->args.ignore_index;
    a.dtype = (TensorDtype)m->dtype;   /* the input's: a float32 1/N would round a float64 gradient */
    Tensor *in[2] = {target, weight};
    TMP(W, ag__const(TENSOR_OP_NLL_LOSS_GRAD_WEIGHTS, in, weight ? 2 : 1, &a));
    if (n->args.reduction == TENSOR_REDUCTION_NONE && m->ndim == 2) TMP(gg, ag_unsqueeze(g[0], 1));
    OUT(0, ag_mul(W, gg));
    RULE_END;
}

BW(mse_loss) {
    RULE_BEGIN;
    Tensor *x, *y, *d, *t, *gs;
    SAVED(0, x);
    SAVED(1, y);
    TMP(d, ag_sub(x, y));
    double f = n->args.reduction == TENSOR_REDUCTION_MEAN ? 2.0 / (double)d->numel : 2.0;
    TMP(t, ag_mul_scalar(d, sc(f)));
    TMP(gs, ag_mul(g[0], t));
    if (NEEDS(0)) gi[0] = ref(gs);
    if (NEEDS(1)) OUT(1, ag_neg(gs));
    RULE_END;
}
