/* rules_nn.c — backward rules of matrix products, indexing (gather/scatter, index_select/
 * index_add, advanced indexing and index_put, masked_select/scatter) and the nn functions
 * (softmax, log_softmax, layer_norm recomputed from the saved input, embedding, dropout,
 * nll_loss, mse_loss). */
#include <math.h>

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
        Tensor *gu, *vu;
        TMP(gu, ag_unsqueeze(g[0], 1));
        TMP(vu, ag_unsqueeze(vec, 0));
        OUT(0, ag_mm(gu, vu));
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

BW(softmax) {
    RULE_BEGIN;
    Tensor *y, *gy, *sm, *d;
    SAVED(0, y);
    int64_t dim = n->args.dim;
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
    TMP(e, ag_exp(y));
    TMP(sm, ag_sum_dims(g[0], &dim, 1, true));
    TMP(p, ag_mul(e, sm));
    OUT(0, ag_sub(g[0], p));
    RULE_END;
}

BW(layer_norm) {
    RULE_BEGIN;
    Tensor *x, *w, *mu, *xc, *xc2, *var, *ve, *rstd, *xhat;
    SAVED(0, x);
    SAVED(1, w);
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
    TMP(z, ag__zeros_meta(wm));
    Tensor *in[3] = {z, flat, g2};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = 0;
    OUT(0, ag_op1(TENSOR_OP_INDEX_ADD, in, 3, &a));
    RULE_END;
}

FW(dropout) {
    (void)n_in;
    (void)n_out;
    Tensor *mask = NULL;
    out[0] = tensor__dropout(in[0], a->p, a->train, &mask);
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
