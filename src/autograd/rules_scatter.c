/* rules_scatter.c — backward rules of scatter, scatter_reduce (src/tensor/scatter.c) and kthvalue
 * (src/tensor/reorder.c), as PyTorch's derivatives.yaml / FunctionsManual.cpp define them:
 * scatter gives self the gradient with the overwritten positions zeroed and src the gradient
 * gathered back; scatter_reduce follows scatter_reduce_backward (sum, prod with its care for zeros,
 * mean, amax/amin sharing the gradient evenly among ties); kthvalue scatters the gradient to the
 * selected index (value_selecting_reduction_backward). */
#include "src/autograd/rules.h"

static Tensor *ref(Tensor *t) {
    tensor_incref(t);
    return t;
}

/* x.scatter(dim, index, value) (out of place, recorded) */
static Tensor *scatter_value(Tensor *x, int64_t dim, Tensor *idx, double v, bool konst) {
    Tensor *in[2] = {x, idx};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    a.scalar = tensor_scalar_f(v);
    return konst ? ag__const(TENSOR_OP_SCATTER, in, 2, &a) : ag_op1(TENSOR_OP_SCATTER, in, 2, &a);
}

static Tensor *scatter_add(Tensor *x, int64_t dim, Tensor *idx, Tensor *src, bool konst) {
    Tensor *in[3] = {x, idx, src};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return konst ? ag__const(TENSOR_OP_SCATTER_ADD, in, 3, &a) : ag_op1(TENSOR_OP_SCATTER_ADD, in, 3, &a);
}

/* x.gather(dim, idx) as a constant of the rule (a mask's count, a value to compare with) */
static Tensor *gather_const(Tensor *x, int64_t dim, Tensor *idx) {
    Tensor *in[2] = {x, idx};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return ag__const(TENSOR_OP_GATHER, in, 2, &a);
}

static Tensor *cast(Tensor *x, TensorDtype dt) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = dt;
    return ag__const(TENSOR_OP_TO_DTYPE, &x, 1, &a);
}

BW(scatter) {
    RULE_BEGIN;
    if (n->args.start != TENSOR_SCATTER_NONE) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "derivative for aten::scatter is not implemented");
        goto fail;
    }
    Tensor *idx;
    SAVED(0, idx);
    if (NEEDS(0)) OUT(0, scatter_value(g[0], n->args.dim, idx, 0.0, false));
    if (n->n_in > 2 && NEEDS(2)) OUT(2, ag_gather(g[0], n->args.dim, idx));
    RULE_END;
}

SV(scatter_reduce) {
    (void)n_out;
    for (int i = 0; i < 3 && i < n_in; i++)
        if (ag__save(n, i, in[i], false) < 0) return -1;
    return ag__save(n, 3, out[0], true);
}

/* scatter_reduce_: self is about to be overwritten, so a copy of it is saved (ATen's
 * original_self), then the result after the kernel */
SV(scatter_reduce_) {
    (void)out, (void)n_out;
    Tensor *self = tensor_clone(in[0]);
    if (!self) return -1;
    int rc = ag__save(n, 0, self, false);
    tensor_decref(self);
    for (int i = 1; rc == 0 && i < 3 && i < n_in; i++) rc = ag__save(n, i, in[i], false);
    return rc;
}

SV(scatter_reduce_out) {
    (void)in, (void)n_in, (void)n_out;
    return ag__save(n, 3, out[0], true);
}

BW(scatter_reduce) {
    RULE_BEGIN;
    Tensor *self, *idx, *src, *res;
    SAVED(0, self);
    SAVED(1, idx);
    SAVED(2, src);
    SAVED(3, res);
    int64_t dim = n->args.dim;
    bool include_self = n->args.accumulate;
    TensorDtype dt = (TensorDtype)self->dtype;
    Tensor *gs = NULL, *gsrc = NULL;
    switch ((TensorScatterReduce)n->args.start) {
    case TENSOR_SCATTER_SUM:
        gs = g[0];
        TMP(gsrc, ag_gather(g[0], dim, idx));
        break;
    case TENSOR_SCATTER_MEAN: {
        Tensor *n0, *ones, *cnt, *zero, *cntg, *gg;
        TMP(n0, ag__const1(include_self ? TENSOR_OP_ONES_LIKE : TENSOR_OP_ZEROS_LIKE, g[0]));
        TMP(ones, ag__const1(TENSOR_OP_ONES_LIKE, src));
        TMP(cnt, scatter_add(n0, dim, idx, ones, true));
        TMP(zero, ag__const_scalar(TENSOR_OP_EQ_SCALAR, cnt, sc(0)));
        TMP(cnt, ag__const_masked_fill(cnt, zero, sc(1)));
        TMP(gs, ag_div(g[0], cnt));
        TMP(cntg, ag_gather(cnt, dim, idx));
        TMP(gg, ag_gather(g[0], dim, idx));
        TMP(gsrc, ag_div(gg, cntg));
        break;
    }
    case TENSOR_SCATTER_PROD: {
        Tensor *self0, *mself, *msr, *t, *srcz, *zs, *nz, *nz1, *single, *msrc, *msrc_res, *a, *b, *srcm;
        TMP(self0, ag__const_scalar(TENSOR_OP_EQ_SCALAR, self, sc(0)));
        TMP(mself, ag__const_masked_fill(self, self0, sc(1)));
        Tensor *in3[3] = {mself, idx, src};
        TMP(msr, ag_op1(TENSOR_OP_SCATTER_REDUCE, in3, 3, &n->args));
        TMP(t, ag_mul(g[0], msr));
        TMP(gs, ag_div(t, mself));
        TMP(srcz, ag__const_scalar(TENSOR_OP_EQ_SCALAR, src, sc(0)));
        TMP(zs, ag__const1(TENSOR_OP_ZEROS_LIKE, self));
        TMP(t, cast(srcz, dt));
        TMP(nz, scatter_add(zs, dim, idx, t, true));
        TMP(nz, gather_const(nz, dim, idx));
        TMP(nz1, ag__const_scalar(TENSOR_OP_EQ_SCALAR, nz, sc(1)));
        TMP(single, ag__const2(TENSOR_OP_LOGICAL_AND, srcz, nz1));
        TMP(msrc, ag__const_masked_fill(src, single, sc(1)));
        Tensor *in4[3] = {self, idx, msrc};
        TMP(msrc_res, ag_op1(TENSOR_OP_SCATTER_REDUCE, in4, 3, &n->args));
        TMP(t, ag_mul(g[0], msrc_res));
        TMP(a, ag_gather(t, dim, idx));
        TMP(t, ag_mul(g[0], res));
        TMP(t, ag_gather(t, dim, idx));
        TMP(srcm, ag__const_masked_fill(src, srcz, sc(1)));
        TMP(b, ag_div(t, srcm));
        TMP(gsrc, ag_where(single, a, b));
        break;
    }
    case TENSOR_SCATTER_AMAX: case TENSOR_SCATTER_AMIN: {
        Tensor *value, *self_is, *src_is, *sf, *rf, *cnt, *gd, *t;
        TMP(value, gather_const(res, dim, idx));
        TMP(self_is, ag__const2(TENSOR_OP_EQ, self, res));
        TMP(src_is, ag__const2(TENSOR_OP_EQ, src, value));
        TMP(sf, cast(self_is, dt));
        TMP(rf, cast(src_is, dt));
        TMP(cnt, scatter_add(sf, dim, idx, rf, true));
        TMP(gd, ag_div(g[0], cnt));
        TMP(gs, ag_mul(gd, sf));
        TMP(t, ag_gather(gd, dim, idx));
        TMP(gsrc, ag_mul(t, rf));
        break;
    }
    default:
        tensor_error_set(TENSOR_ERR_RUNTIME, "scatter_reduce: bad reduction %lld", (long long)n->args.start);
        goto fail;
    }
    if (NEEDS(0)) {
        if (!include_self) OUT(0, scatter_value(gs, dim, idx, 0.0, false));
        else OUT(0, ref(gs));
    }
    if (NEEDS(2)) OUT(2, ref(gsrc));
    RULE_END;
}

/* kthvalue: zeros of the input's shape with the gradient at the selected index */
BW(kthvalue) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    if (m->ndim == 0) {
        OUT(0, ref(g[0]));
    } else {
        Tensor *idx, *z, *gg = g[0];
        SAVED(0, idx);
        int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim);
        if (dim < 0) goto fail;
        if (!n->args.keepdim) {
            TMP(gg, ag_unsqueeze(g[0], dim));
            TMP(idx, ag_unsqueeze(idx, dim));
        }
        TMP(z, ag__zeros_meta(m));
        OUT(0, scatter_add(z, dim, idx, gg, false));
    }
    RULE_END;
}
