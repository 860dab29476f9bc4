/* examples/ffi_custom_op.c — a custom tensor op for Ember in plain C (see ember/custom_op.h),
 * built by meson as libember_example_ops.so and used by examples/ffi_custom_op.py:
 *
 *   ex::bias_leaky_relu(Tensor x, Tensor bias, float slope=0.01) -> Tensor
 *
 * computes leaky_relu(x + bias) for x of shape [..., C] and bias of shape [C] in one pass (a
 * fused bias + activation, the kind of kernel one writes in C for speed), with a backward
 * kernel giving the gradients of x and bias, and a meta function that checks the shapes so
 * that shape errors are caught before any kernel runs (and torch.compile can trace it). */
#include <stddef.h>

#include "ember/custom_op.h"

static const EmOpRegistrar *reg;

static int bias_leaky_relu_meta(const EmTensor *x, const EmTensor *bias, double slope, EmTensor *out) {
    (void)slope;
    if (x->dtype != EM_FLOAT32 || bias->dtype != EM_FLOAT32) {
        reg->set_error(reg, "ex::bias_leaky_relu: expected float32 tensors");
        return 1;
    }
    if (x->ndim < 1 || bias->ndim != 1 || bias->shape[0] != x->shape[x->ndim - 1]) {
        reg->set_error(reg, "ex::bias_leaky_relu: bias must have shape [%lld] to match the last dimension of x",
                       x->ndim ? (long long)x->shape[x->ndim - 1] : 0LL);
        return 1;
    }
    out->dtype = EM_FLOAT32;
    out->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) out->shape[d] = x->shape[d];
    return 0;
}

static int bias_leaky_relu(const EmTensor *x, const EmTensor *bias, double slope, EmTensor *out) {
    int64_t c = bias->shape[0];
    const float *px = x->data, *pb = bias->data;
    float *po = out->data, s = (float)slope;
    for (int64_t i = 0; i < x->numel; i++) {
        float z = px[i] + pb[i % c];
        po[i] = z > 0 ? z : s * z;
    }
    return 0;
}

static int bias_leaky_relu_backward(const EmTensor *grad, const EmTensor *x, const EmTensor *bias, double slope,
                                    const EmTensor *out, EmTensor *grad_x, EmTensor *grad_bias) {
    (void)out;
    int64_t c = bias->shape[0];
    const float *pg = grad->data, *px = x->data, *pb = bias->data;
    float *gx = grad_x->data, *gb = grad_bias->data, s = (float)slope;
    for (int64_t i = 0; i < x->numel; i++) {
        float g = px[i] + pb[i % c] > 0 ? pg[i] : s * pg[i];
        gx[i] = g;
        gb[i % c] += g;     /* grad_bias arrives zero-filled */
    }
    return 0;
}

int ember_register_ops(const EmOpRegistrar *r) {
    reg = r;
    EmOpDef def = {"ex::bias_leaky_relu(Tensor x, Tensor bias, float slope=0.01) -> Tensor", (void *)bias_leaky_relu,
                   (void *)bias_leaky_relu_backward, (void *)bias_leaky_relu_meta};
    return r->register_op(r, &def);
}
