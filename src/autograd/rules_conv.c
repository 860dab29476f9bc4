/* rules_conv.c — backward rules of the convolution and pooling kernels (src/tensor/conv.c):
 * im2col and col2im are each other's adjoint (both linear), and max_pool2d sends each output's
 * gradient to the input position its saved index names (scatter_add over the flattened plane,
 * so windows sharing a maximum accumulate as PyTorch's max_pool2d_with_indices_backward). */
#include "src/autograd/rules.h"

BW(im2col) {
    RULE_BEGIN;
    const TensorMeta *m = &n->in_meta[0];
    int64_t geo[12];
    geo[0] = m->shape[2];
    geo[1] = m->shape[3];
    memcpy(geo + 2, n->args.ints, sizeof(int64_t) * 10);
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = geo;
    a.n_ints = 12;
    OUT(0, ag_op1(TENSOR_OP_COL2IM, &g[0], 1, &a));
    RULE_END;
}

BW(col2im) {
    RULE_BEGIN;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = n->args.ints + 2;
    a.n_ints = 10;
    OUT(0, ag_op1(TENSOR_OP_IM2COL, &g[0], 1, &a));
    RULE_END;
}

BW(max_pool2d) {
    RULE_BEGIN;
    if (g[0]) {
        const TensorMeta *m = &n->in_meta[0];
        Tensor *idx, *fi, *fg, *z, *sc_;
        SAVED(0, idx);
        int64_t flat[3] = {m->shape[0], m->shape[1], -1}, plane[3] = {m->shape[0], m->shape[1], m->shape[2] * m->shape[3]};
        TMP(fi, ag_reshape(idx, flat, 3));
        TMP(fg, ag_reshape(g[0], flat, 3));
        TMP(z, ag__const_full((TensorDtype)g[0]->dtype, 3, plane, sc(0)));
        TMP(sc_, ag_scatter_add(z, 2, fi, fg));
        OUT(0, ag_reshape(sc_, m->shape, m->ndim));
    }
    RULE_END;
}
