/* layer_norm.c — the fused layer-norm backward (ops.def LAYER_NORM_BACKWARD), PyTorch's
 * native_layer_norm_backward over float32 and float64: (grad_out, input, weight?) with
 * normalized_shape and eps -> (grad_input, grad_weight, grad_bias).  The rows run in PyTorch's
 * order (layer_norm_rows.c: each row's statistics recomputed exactly as the forward computed
 * them, then ATen's formula with its reductions and fused multiply-adds).  The composed rule this
 * replaces (rules_nn.c BW(layer_norm), still used under create_graph) made ~16 passes and as
 * many row-sized temporaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/isa.h"
#include "src/tensor/kernels.h"
#include "src/tensor/nn.h"
#include "src/tensor/reduce.h"
#include "src/tensor/tensor.h"

/* (grad_out, input, weight?), ints = normalized_shape, eps */
TENSOR_INFER(layer_norm_backward) {
    (void)op, (void)max_out;
    const TensorMeta *g = in[0], *x = in[1], *w = n_in > 2 ? in[2] : NULL;
    int64_t rows, cols;
    if (tensor__layer_norm_check(x, a->ints, a->n_ints, w, NULL, &rows, &cols) < 0) return -1;
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"native_layer_norm_backward\" not implemented for '%s'",
                         tensor_dtype_name((TensorDtype)x->dtype));
        return -1;
    }
    if (g->ndim != x->ndim || memcmp(g->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0 || g->dtype != x->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "layer_norm_backward: grad_output must match the input's shape and dtype");
        return -1;
    }
    tensor__meta_contiguous(&out[0], (TensorDtype)x->dtype, x->ndim, x->shape);
    tensor__meta_contiguous(&out[1], (TensorDtype)x->dtype, a->n_ints, a->ints);
    tensor__meta_contiguous(&out[2], (TensorDtype)x->dtype, a->n_ints, a->ints);
    return 3;
}

#define P(t, T) ((t) ? (T *)tensor__data(t) : NULL)

TENSOR_RUN(layer_norm_backward) {
    (void)n_out;
    TensorMeta m[3];
    const TensorMeta *mp[3];
    for (int i = 0; i < n_in && i < 3; i++) {
        tensor_meta_of(in[i], &m[i]);
        mp[i] = &m[i];
    }
    TensorMeta o[3];
    if (tensor__infer_layer_norm_backward(op, mp, n_in, a, o, 3) < 0) return -1;
    int64_t cols = tensor__shape_numel(a->n_ints, a->ints);
    int64_t rows = cols ? tensor__shape_numel(m[1].ndim, m[1].shape) / cols : 0;
    Tensor *c[3] = {NULL, NULL, NULL}, *r[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n_in; i++)
        if (!(c[i] = tensor_contiguous(in[i]))) goto fail;
    for (int i = 0; i < 3; i++)
        if (!(r[i] = tensor__new_from_meta(&o[i], false))) goto fail;
    if (m[1].dtype == TENSOR_FLOAT64)
        tensor__layer_norm_backward_f64(P(c[0], const double), P(c[1], const double), P(c[2], const double), P(r[0], double),
                                        P(r[1], double), P(r[2], double), rows, cols, a->eps);
    else
        tensor__layer_norm_backward_f32(P(c[0], const float), P(c[1], const float), P(c[2], const float), P(r[0], float),
                                        P(r[1], float), P(r[2], float), rows, cols, a->eps);
    for (int i = 0; i < 3; i++) tensor_decref(c[i]);
    for (int i = 0; i < 3; i++) out[i] = r[i];
    return 3;
fail:
    for (int i = 0; i < 3; i++) {
        tensor_decref(c[i]);
        tensor_decref(r[i]);
    }
    return -1;
}
