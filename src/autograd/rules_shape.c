/* rules_shape.c — backward rules of reductions and movement ops: sum/mean/prod/max/min/var/std/
 * logsumexp, view/reshape/as_strided, transpose/t/permute, expand, slice/select (scatter into
 * zeros through a view, so create_graph records a CopySlices), squeeze/unsqueeze, split/unbind,
 * cat/stack. */
#include <math.h>

#include "src/autograd/rules.h"
#include "src/tensor/reduce.h"

static Tensor *ref(Tensor *t) {
    tensor_incref(t);
    return t;
}

/* reduced dims of a forward with args ints (n == 0: all) */
static int64_t reduced_count(const TensorMeta *in, const int64_t *dims, int nd) {
    ReducePlan p;
    if (tensor__reduce_plan(in, dims, nd, nd == 0, true, &p) < 0) return -1;
    return p.rnumel;
}

/* ---- sums and means ---------------------------------------------------------------------------------- */

BW(sum) {
    const TensorMeta *m = &n->in_meta[0];
    OUT(0, ag_expand(g[0], m->shape, m->ndim));
    return 0;
fail:
    return -1;
}

BW(sum_dim) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *u;
    TMP(u, ag__unsqueeze_reduced(g[0], m, n->args.ints, n->args.n_ints, n->args.keepdim));
    OUT(0, ag_expand(u, m->shape, m->ndim));
    RULE_END;
}

BW(mean) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *t;
    TMP(t, ag_div_scalar(g[0], tensor_scalar_i(tensor__shape_numel(m->ndim, m->shape))));
    OUT(0, ag_expand(t, m->shape, m->ndim));
    RULE_END;
}

BW(mean_dim) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    int64_t cnt = reduced_count(m, n->args.ints, n->args.n_ints);
    if (cnt < 0) goto fail;
    Tensor *u, *t;
    TMP(u, ag__unsqueeze_reduced(g[0], m, n->args.ints, n->args.n_ints, n->args.keepdim));
    TMP(t, ag_div_scalar(u, tensor_scalar_i(cnt)));
    OUT(0, ag_expand(t, m->shape, m->ndim));
    RULE_END;
}

/* ---- prod ------------------------------------------------------------------------------------------------ */

/* d prod / d x_i = prod of the other elements of its slice, computed directly (a constant):
 * used when the input holds zeros, where result / x does not work. */
static Tensor *prod_others(Tensor *x, int64_t dim_or_neg) {
    /* computed in double, returned in x's dtype; the loop reads x's data (a float64 contiguous
     * x reaches it as itself, past the copies' check) */
    if (!tensor_has_data(x)) return tensor__meta_data_error("prod's backward"), NULL;
    Tensor *c = tensor_to_dtype(x, TENSOR_FLOAT64), *cc = c ? tensor_contiguous(c) : NULL;
    tensor_decref(c);
    c = cc;
    if (!c) return NULL;
    Tensor *r = tensor__new(TENSOR_FLOAT64, c->ndim, c->shape, false);
    if (!r) {
        tensor_decref(c);
        return NULL;
    }
    int64_t outer = 1, len = c->numel ? c->numel : 1, inner = 1;
    if (dim_or_neg >= 0 && c->ndim) {
        len = c->shape[dim_or_neg];
        for (int i = 0; i < dim_or_neg; i++) outer *= c->shape[i];
        for (int i = (int)dim_or_neg + 1; i < c->ndim; i++) inner *= c->shape[i];
    } else {
        len = c->numel;
    }
    const double *px = (const double *)tensor__data(c);
    double *pr = (double *)tensor__data(r);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++)
            for (int64_t k = 0; k < len; k++) {
                double p = 1;
                for (int64_t j = 0; j < len; j++)
                    if (j != k) p *= px[(o * len + j) * inner + in];
                pr[(o * len + k) * inner + in] = p;
            }
    tensor_decref(c);
    Tensor *rx = tensor_to_dtype(r, (TensorDtype)x->dtype);
    tensor_decref(r);
    return rx;
}

BW(prod) {
    RULE_BEGIN;
    Tensor *x, *res, *d;
    SAVED(0, x);
    SAVED(1, res);
    if (ag__has_zero(x)) {
        TMP(d, prod_others(x, -1));
    } else {
        TMP(d, ag_div(res, x));
    }
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

BW(prod_dim) {
    RULE_BEGIN;
    Tensor *x, *res, *gu, *ru, *d;
    SAVED(0, x);
    SAVED(1, res);
    const TensorMeta *m = &n->in_meta[0];
    int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim);
    if (dim < 0) goto fail;
    TMP(gu, ag__unsqueeze_reduced(g[0], m, &dim, 1, n->args.keepdim));
    if (ag__has_zero(x)) {
        TMP(d, prod_others(x, m->ndim ? dim : -1));
    } else {
        TMP(ru, ag__unsqueeze_reduced(res, m, &dim, 1, n->args.keepdim));
        TMP(d, ag_div(ru, x));
    }
    OUT(0, ag_mul(gu, d));
    RULE_END;
}

/* ---- max / min ------------------------------------------------------------------------------------------ */

/* all-element max/min: the gradient is shared evenly between the elements equal to the result */
BW(max_all) {
    RULE_BEGIN;
    Tensor *x, *res, *mask, *mf, *cnt, *f;
    SAVED(0, x);
    SAVED(1, res);
    TensorOpArgs to_float = TENSOR_OP_ARGS_INIT;
    to_float.dtype = (TensorDtype)g[0]->dtype;
    TMP(mask, ag__const2(TENSOR_OP_EQ, x, res));
    TMP(mf, ag__const(TENSOR_OP_TO_DTYPE, &mask, 1, &to_float));
    TMP(cnt, ag__const1(TENSOR_OP_SUM, mf));
    TMP(f, ag__const2(TENSOR_OP_DIV, mf, cnt));
    OUT(0, ag_mul(g[0], f));
    RULE_END;
}

SV(max_dim) {
    (void)in;
    (void)n_in;
    (void)n_out;
    return ag__save(n, 0, out[1], false);
}

BW(max_dim) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *idx, *gu, *iu, *z;
    SAVED(0, idx);
    int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim);
    if (dim < 0) goto fail;
    TMP(gu, ag__unsqueeze_reduced(g[0], m, &dim, 1, n->args.keepdim));
    TMP(iu, ag__unsqueeze_reduced(idx, m, &dim, 1, n->args.keepdim));
    TMP(z, ag__zeros_meta(m));
    Tensor *in[3] = {z, iu, gu};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = m->ndim ? dim : 0;
    if (m->ndim == 0) {
        OUT(0, ref(g[0]));
    } else {
        OUT(0, ag_op1(TENSOR_OP_SCATTER_ADD, in, 3, &a));
    }
    RULE_END;
}

/* amax / amin: the gradient is split evenly among tied extrema, (g / count) * mask, as PyTorch's
 * scale_grad_by_count does (max / min with a dim give it all to the index they return) */
BW(amax) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    const int64_t *dims = n->args.ints;
    int nd = n->args.n_ints;
    Tensor *x, *res, *ru, *mask, *mf, *cnt, *gu, *q;
    SAVED(0, x);
    SAVED(1, res);
    TensorOpArgs to_float = TENSOR_OP_ARGS_INIT;
    to_float.dtype = TENSOR_FLOAT32;
    TensorOpArgs keep = TENSOR_OP_ARGS_INIT;
    keep.ints = dims;
    keep.n_ints = nd;
    keep.keepdim = true;
    TMP(ru, ag__unsqueeze_reduced(res, m, dims, nd, n->args.keepdim));
    TMP(mask, ag__const2(TENSOR_OP_EQ, x, ru));
    TMP(mf, ag__const(TENSOR_OP_TO_DTYPE, &mask, 1, &to_float));
    TMP(cnt, ag__const(TENSOR_OP_SUM_DIM, &mf, 1, &keep));
    TMP(gu, ag__unsqueeze_reduced(g[0], m, dims, nd, n->args.keepdim));
    TMP(q, ag_div(gu, cnt));
    OUT(0, ag_mul(q, mf));
    RULE_END;
}

/* ---- var / std / logsumexp ------------------------------------------------------------------------------ */

static int var_std(AgNode *n, Tensor *const *g, Tensor **gi, bool is_std) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    const int64_t *dims = n->args.ints;
    int nd = n->args.n_ints;
    int64_t cnt = reduced_count(m, dims, nd);
    if (cnt < 0) goto fail;
    double denom = (double)cnt - n->args.correction;
    if (denom < 0) denom = 0;
    Tensor *x, *mu, *d, *gu, *t;
    SAVED(0, x);
    int64_t all[TENSOR_MAX_DIMS];
    if (nd == 0) {
        for (int i = 0; i < m->ndim; i++) all[i] = i;
        dims = all;
        nd = m->ndim;
    }
    if (nd) {
        TMP(mu, ag_mean_dims(x, dims, nd, true));
    } else {
        TMP(mu, ref(x));
    }
    TMP(d, ag_sub(x, mu));
    TMP(gu, ag__unsqueeze_reduced(g[0], m, n->args.ints, n->args.n_ints, n->args.keepdim));
    if (!is_std) {
        TMP(t, ag_mul_scalar(d, sc(2.0 / denom)));
        OUT(0, ag_mul(gu, t));
    } else {
        Tensor *res, *ru, *q;
        SAVED(1, res);
        TMP(ru, ag__unsqueeze_reduced(res, m, n->args.ints, n->args.n_ints, n->args.keepdim));
        TMP(q, ag_div(gu, ru));
        TMP(t, ag_mul_scalar(d, sc(1.0 / denom)));
        OUT(0, ag_mul(q, t));
    }
    RULE_END;
}

BW(var) { return var_std(n, g, gi, false); }
BW(std) { return var_std(n, g, gi, true); }

BW(logsumexp) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *x, *res, *ru, *gu, *d, *e;
    SAVED(0, x);
    SAVED(1, res);
    TMP(ru, ag__unsqueeze_reduced(res, m, n->args.ints, n->args.n_ints, n->args.keepdim));
    TMP(gu, ag__unsqueeze_reduced(g[0], m, n->args.ints, n->args.n_ints, n->args.keepdim));
    TMP(d, ag_sub(x, ru));
    TMP(e, ag_exp(d));
    OUT(0, ag_mul(gu, e));
    RULE_END;
}

/* ---- views ---------------------------------------------------------------------------------------------- */

BW(view) {
    const TensorMeta *m = &n->in_meta[0];
    OUT(0, ag_reshape(g[0], m->shape, m->ndim));
    return 0;
fail:
    return -1;
}

/* storage positions (relative to lo) of every element of a geometry, as an int64 tensor */
static Tensor *storage_index(int nd, const int64_t *shape, const int64_t *strides, int64_t offset, int64_t lo) {
    Tensor *r = tensor__new(TENSOR_INT64, nd, shape, false);
    if (!r) return NULL;
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t *p = tensor__i64(r);
    for (int64_t i = 0; i < r->numel; i++) {
        int64_t off = offset - lo;
        for (int d = 0; d < nd; d++) off += idx[d] * strides[d];
        p[i] = off;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return r;
}

static void extent(int nd, const int64_t *shape, const int64_t *strides, int64_t offset, int64_t *lo, int64_t *hi) {
    int64_t h = offset;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 0) {
            h = offset;
            break;
        }
        h += (shape[d] - 1) * strides[d];
    }
    if (offset < *lo) *lo = offset;
    if (h > *hi) *hi = h;
}

/* as_strided: scatter-add the gradient over the storage positions the view reads, then read
 * them back at the input's positions (overlapping views accumulate, as PyTorch does). */
BW(as_strided) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    const TensorOpArgs *a = &n->args;
    int64_t voff = a->start >= 0 ? a->start : m->offset;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    extent(m->ndim, m->shape, m->strides, m->offset, &lo, &hi);
    extent(a->n_ints, a->ints, a->ints2, voff, &lo, &hi);
    int64_t len = hi - lo + 1;
    Tensor *buf, *iv, *ivf, *gf, *put, *ib;
    TMP(buf, tensor_zeros((TensorDtype)g[0]->dtype, 1, &len));
    TMP(iv, storage_index(a->n_ints, a->ints, a->ints2, voff, lo));
    int64_t flat = -1;
    TMP(ivf, ag_reshape(iv, &flat, 1));
    TMP(gf, ag_reshape(g[0], &flat, 1));
    Tensor *pin[3] = {buf, gf, ivf};
    TensorOpArgs pa = TENSOR_OP_ARGS_INIT;
    pa.accumulate = true;
    TMP(put, ag_op1(TENSOR_OP_INDEX_PUT, pin, 3, &pa));
    TMP(ib, storage_index(m->ndim, m->shape, m->strides, m->offset, lo));
    OUT(0, ag_index(put, 0, &ib, 1));
    RULE_END;
}

BW(transpose) {
    OUT(0, ag_transpose(g[0], n->args.dim, n->args.dim2));
    return 0;
fail:
    return -1;
}

BW(t) {
    OUT(0, ag_t(g[0]));
    return 0;
fail:
    return -1;
}

BW(permute) {
    int64_t inv[TENSOR_MAX_DIMS];
    int nd = n->args.n_ints;
    for (int i = 0; i < nd; i++) {
        int64_t d = n->args.ints[i] < 0 ? n->args.ints[i] + nd : n->args.ints[i];
        inv[d] = i;
    }
    OUT(0, ag_permute(g[0], inv, nd));
    return 0;
fail:
    return -1;
}

BW(expand) {
    const TensorMeta *m = &n->in_meta[0];
    OUT(0, ag__sum_to(g[0], m->ndim, m->shape));
    return 0;
fail:
    return -1;
}

/* slice / select backward: zeros of the input's shape with the gradient copied into the view */
static int scatter_view_bw(AgNode *n, Tensor *const *g, Tensor **gi, bool is_select) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    Tensor *z, *v;
    TMP(z, ag__zeros_meta(m));
    if (is_select) {
        TMP(v, ag_select(z, n->args.dim, n->args.start));
    } else {
        TMP(v, ag_slice(z, n->args.dim, n->args.start, n->args.end, n->args.step));
    }
    if (ag_copy_(v, g[0]) < 0) goto fail;
    OUT(0, ref(z));
    RULE_END;
}

BW(slice) { return scatter_view_bw(n, g, gi, false); }

/* ATen's diagonal_backward: zeros of the input's shape with the gradient copied into the same
 * diagonal view */
BW(diagonal) {
    RULE_BEGIN;
    Tensor *z, *v;
    TMP(z, ag__zeros_meta(&n->in_meta[0]));
    TMP(v, ag_op1(TENSOR_OP_DIAGONAL, &z, 1, &n->args));
    if (ag_copy_(v, g[0]) < 0) goto fail;
    OUT(0, ref(z));
    RULE_END;
}
BW(select) { return scatter_view_bw(n, g, gi, true); }

BW(unsqueeze) {
    const TensorMeta *m = &n->in_meta[0];
    int64_t d = tensor__wrap_dim(n->args.dim, m->ndim + 1);
    if (d < 0) return -1;
    OUT(0, ag_squeeze_dim(g[0], d));
    return 0;
fail:
    return -1;
}

BW(squeeze) {
    const TensorMeta *m = &n->in_meta[0];
    OUT(0, ag_reshape(g[0], m->shape, m->ndim));
    return 0;
fail:
    return -1;
}

/* split / unbind: missing gradients are zeros */
static int join_bw(AgNode *n, Tensor *const *g, Tensor **gi, bool stack) {
    RULE_BEGIN;
    Tensor *stackbuf[16], **parts = n->n_out <= 16 ? stackbuf : malloc(sizeof(Tensor *) * n->n_out);
    if (!parts) return tensor__oom();
    uint32_t made = 0;
    for (uint32_t i = 0; i < n->n_out; i++) {
        parts[i] = ag__grad_or_zeros(n, g, (int)i);
        if (!parts[i]) goto cleanup;
        made++;
    }
    const TensorMeta *m = &n->in_meta[0];
    int64_t d = tensor__wrap_dim(n->args.dim, m->ndim);
    if (d >= 0) gi[0] = stack ? ag_stack(parts, (int)n->n_out, d) : ag_cat(parts, (int)n->n_out, d);
cleanup:
    for (uint32_t i = 0; i < made; i++) tensor_decref(parts[i]);
    if (parts != stackbuf) free(parts);
    if (!gi[0]) goto fail;
    RULE_END;
}

BW(split) { return join_bw(n, g, gi, false); }
BW(unbind) { return join_bw(n, g, gi, true); }

BW(cat) {
    /* inputs' sizes along dim; legacy 1-D empty inputs were skipped by the forward */
    int ref_i = -1;
    for (uint32_t i = 0; i < n->n_in; i++) {
        const TensorMeta *m = &n->in_meta[i];
        if (!(m->ndim == 1 && m->shape[0] == 0)) {
            ref_i = (int)i;
            break;
        }
    }
    if (ref_i < 0) return 0;
    int64_t d = tensor__wrap_dim(n->args.dim, n->in_meta[ref_i].ndim);
    if (d < 0) return -1;
    int64_t off = 0;
    for (uint32_t i = 0; i < n->n_in; i++) {
        const TensorMeta *m = &n->in_meta[i];
        if (m->ndim == 1 && m->shape[0] == 0) {
            TensorMeta z = *m;
            z.dtype = (TensorDtype)g[0]->dtype;
            if (NEEDS((int)i) && !(gi[i] = ag__zeros_meta(&z))) return -1;
            continue;
        }
        int64_t len = m->shape[d];
        if (NEEDS((int)i) && !(gi[i] = ag_slice(g[0], d, off, off + len, 1))) return -1;
        off += len;
    }
    return 0;
}

BW(stack) {
    for (uint32_t i = 0; i < n->n_in; i++)
        if (NEEDS((int)i) && !(gi[i] = ag_select(g[0], n->args.dim, (int64_t)i))) return -1;
    return 0;
}
