/* rules_util.c — helpers shared by the backward rules: generic save functions, zeros of a
 * recorded shape, sum-to-shape and re-inserting reduced dims, all with ag_ ops. */
#include "src/autograd/rules.h"

SV(in0) {
    (void)n_in; (void)out; (void)n_out;
    return ag__save(n, 0, in[0], false);
}

SV(in1) {
    (void)n_in; (void)out; (void)n_out;
    return ag__save(n, 0, in[1], false);
}

SV(in01) {
    (void)n_in; (void)out; (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0) return -1;
    return ag__save(n, 1, in[1], false);
}

SV(out0) {
    (void)in; (void)n_in; (void)n_out;
    return ag__save(n, 0, out[0], true);
}

SV(out1) {
    (void)in; (void)n_in; (void)n_out;
    return ag__save(n, 0, out[1], true);
}

SV(in0_out0) {
    (void)n_in; (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0) return -1;
    return ag__save(n, 1, out[0], true);
}

SV(inputs_from1) {
    (void)out; (void)n_out;
    for (int i = 1; i < n_in; i++)
        if (ag__save(n, i, in[i], false) < 0) return -1;
    return 0;
}

Tensor *ag__const(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a) {
    bool grad = ag_set_grad_enabled(false);
    Tensor *r = ag_op1(op, in, n, a);
    ag_set_grad_enabled(grad);
    return r;
}

/* does x hold a zero (reads data: rules calling it are DATA); an error or a tensor without data
 * (a fake's: meta storage) counts as a zero, whose formulas are the careful ones */
bool ag__has_zero(const Tensor *x) {
    if (!tensor_has_data(x)) return true;   /* (the kernels would refuse it, leaving an error set) */
    Tensor *z = tensor_cmp_scalar(TENSOR_OP_EQ_SCALAR, x, tensor_scalar_i(0));
    if (!z) return true;
    Tensor *a = tensor_sum(z);
    bool r = a && tensor_get_i64(a, NULL) > 0;
    tensor_decref(a);
    tensor_decref(z);
    return r;
}

Tensor *ag__const_full(TensorDtype dt, int ndim, const int64_t *shape, TensorScalar v) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    a.dtype = dt;
    a.scalar = v;
    return ag__const(TENSOR_OP_FULL, NULL, 0, &a);
}

static Tensor *zeros(TensorDtype dt, int ndim, const int64_t *shape) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    a.dtype = dt;
    return ag__const(TENSOR_OP_ZEROS, NULL, 0, &a);
}

Tensor *ag__zeros_meta(const TensorMeta *m) { return zeros(m->dtype, m->ndim, m->shape); }
Tensor *ag__zeros_shape(const AgShape *s) { return zeros((TensorDtype)s->dtype, s->ndim, s->shape); }

Tensor *ag__grad_or_zeros(AgNode *node, Tensor *const *grads, int i) {
    if (grads[i]) {
        tensor_incref(grads[i]);
        return grads[i];
    }
    return ag__zeros_shape(&node->out_meta[i]);
}

/* g (broadcast from shape) summed back to shape */
Tensor *ag__sum_to(Tensor *g, int ndim, const int64_t *shape) {
    if (g->ndim == ndim && memcmp(g->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0) {
        tensor_incref(g);
        return g;
    }
    int64_t dims[TENSOR_MAX_DIMS];
    int n = 0, lead = g->ndim - ndim;
    for (int i = 0; i < g->ndim; i++)
        if (i < lead || (shape[i - lead] == 1 && g->shape[i] != 1)) dims[n++] = i;
    Tensor *s = n ? ag_sum_dims(g, dims, n, true) : (tensor_incref(g), g);
    if (!s) return NULL;
    if (s->ndim == ndim) return s;
    Tensor *r = ag_view(s, shape, ndim);
    tensor_decref(s);
    return r;
}

/* g reduced over dims of `in` (n == 0: all) without keepdim -> g with those dims back as 1 */
Tensor *ag__unsqueeze_reduced(Tensor *g, const TensorMeta *in, const int64_t *dims, int n, bool keepdim) {
    if (keepdim || in->ndim == 0) {
        tensor_incref(g);
        return g;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, in->shape, sizeof(int64_t) * (size_t)in->ndim);
    if (n == 0) {
        for (int i = 0; i < in->ndim; i++) shape[i] = 1;
    } else {
        for (int i = 0; i < n; i++) {
            int64_t d = tensor__wrap_dim(dims[i], in->ndim);
            if (d < 0) return NULL;
            shape[d] = 1;
        }
    }
    return ag_reshape(g, shape, in->ndim);
}
