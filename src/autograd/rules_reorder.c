/* rules_reorder.c — backward rules of the reorder ops (src/tensor/reorder.c): tril/triu mask the
 * gradient the same way, roll rolls it back, flip flips it again, sort/topk scatter it to the
 * saved indices (PyTorch's value_selecting_reduction_backward), cumsum sums it in reverse. */
#include "src/autograd/rules.h"

static Tensor *ref(Tensor *t) {
    tensor_incref(t);
    return t;
}

static Tensor *same_op(TensorOp op, Tensor *g, const TensorOpArgs *a) { return ag_op1(op, &g, 1, a); }

BW(tril) {
    gi[0] = same_op(TENSOR_OP_TRIL, g[0], &n->args);
    return gi[0] ? 0 : -1;
}

BW(triu) {
    gi[0] = same_op(TENSOR_OP_TRIU, g[0], &n->args);
    return gi[0] ? 0 : -1;
}

BW(flip) {
    gi[0] = same_op(TENSOR_OP_FLIP, g[0], &n->args);
    return gi[0] ? 0 : -1;
}

BW(roll) {
    int64_t neg[TENSOR_MAX_DIMS];
    int k = n->args.n_ints < TENSOR_MAX_DIMS ? n->args.n_ints : TENSOR_MAX_DIMS;
    for (int i = 0; i < k; i++) neg[i] = -n->args.ints[i];
    TensorOpArgs a = n->args;
    a.ints = neg;
    a.n_ints = k;
    gi[0] = same_op(TENSOR_OP_ROLL, g[0], &a);
    return gi[0] ? 0 : -1;
}

/* sort and topk: zeros of the input's shape with the gradient at the selected positions */
BW(sort) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    if (m->ndim == 0) {
        OUT(0, ref(g[0]));
    } else {
        Tensor *idx, *z;
        SAVED(0, idx);
        int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim);
        if (dim < 0) goto fail;
        TMP(z, ag__zeros_meta(m));
        Tensor *in[3] = {z, idx, g[0]};
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = dim;
        OUT(0, ag_op1(TENSOR_OP_SCATTER_ADD, in, 3, &a));
    }
    RULE_END;
}

/* reversed cumsum: flip, cumsum, flip (in the input's dtype when cumsum's dtype= differed) */
BW(cumsum) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim ? m->ndim : 1);
    if (dim < 0) goto fail;
    if (m->ndim == 0) {
        OUT(0, ref(g[0]));
    } else {
        Tensor *f, *c, *r;
        TensorOpArgs fa = TENSOR_OP_ARGS_INIT;
        fa.ints = &dim;
        fa.n_ints = 1;
        TensorOpArgs ca = TENSOR_OP_ARGS_INIT;
        ca.dim = dim;
        TMP(f, same_op(TENSOR_OP_FLIP, g[0], &fa));
        TMP(c, same_op(TENSOR_OP_CUMSUM, f, &ca));
        TMP(r, same_op(TENSOR_OP_FLIP, c, &fa));
        if (r->dtype != m->dtype) {
            TensorOpArgs ta = TENSOR_OP_ARGS_INIT;
            ta.dtype = m->dtype;
            OUT(0, same_op(TENSOR_OP_TO_DTYPE, r, &ta));
        } else {
            OUT(0, ref(r));
        }
    }
    RULE_END;
}
