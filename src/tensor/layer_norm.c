/* layer_norm.c — the fused layer-norm backward (ops.def LAYER_NORM_BACKWARD), PyTorch's
 * native_layer_norm_backward over float32 and float64: (grad_out, input, weight?) with
 * normalized_shape and eps -> (grad_input, grad_weight, grad_bias).
 *
 * Each row's statistics are recomputed from the input in double as the forward (nn.c
 * layer_norm_row) computes them — the mean from the row's sum (the same sum), the biased
 * variance (its sum in LANES partial sums) — then the sums of gw = grad_out * weight and of
 * gw * xhat, and one pass writing grad_input = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
 * (PyTorch's LayerNormBackwardKernelImpl), while grad_weight += grad_out * xhat and
 * grad_bias += grad_out accumulate in double per column, rows in order.  The composed rule this
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

/* Sums over a row in LANES interleaved partial sums added up in lane order at the end: a fixed
 * order (the bits do not depend on the vector width the compiler picks), and no single chain of
 * dependent additions. */
#define LANES 8

static double lanes_total(const double *acc) {
    double t = 0;
    for (int k = 0; k < LANES; k++) t += acc[k];
    return t;
}

/* R rows (1 or LN_BW_ROWS) from row pointers g, x, dx: per row the statistics and grad_input, then
 * the rows' grad_weight / grad_bias terms into aw / ab in row order.  Each row's sums keep their
 * own lanes and order, so R only interleaves independent chains: the lane sums (~40 dependent
 * adds a row) no longer wait one row at a time (4 measured faster than 2).  ws: R rows of xhat,
 * then R rows of gw. */
#define LN_BW_ROWS 4
#define LN_BACKWARD(SUF, T, SUM)                                                                                       \
    static inline __attribute__((always_inline)) void ln_bw_rows_##SUF(const T *g, const T *x, const T *w, T *dx,      \
                                                                       double *aw, double *ab, int64_t cols,           \
                                                                       double eps, double *ws, int R) {                \
        double *xh = ws, *gw = ws + R * cols;                                                                          \
        int64_t body = cols / LANES * LANES;                                                                           \
        double mu[LN_BW_ROWS], rs[LN_BW_ROWS], m1[LN_BW_ROWS], m2[LN_BW_ROWS];                                         \
        double lv[LN_BW_ROWS][LANES] = {{0}}, l1[LN_BW_ROWS][LANES] = {{0}}, l2[LN_BW_ROWS][LANES] = {{0}};            \
        for (int r = 0; r < R; r++) mu[r] = SUM(x + r * cols, 1, cols) / (double)cols; /* the forward's mean */        \
        for (int64_t j = 0; j < body; j += LANES)                                                                      \
            for (int r = 0; r < R; r++)                                                                                \
                for (int k = 0; k < LANES; k++) {                                                                      \
                    double d = x[r * cols + j + k] - mu[r];                                                            \
                    lv[r][k] += d * d;                                                                                 \
                }                                                                                                      \
        for (int r = 0; r < R; r++)                                                                                    \
            for (int64_t j = body; j < cols; j++) {                                                                    \
                double d = x[r * cols + j] - mu[r];                                                                    \
                lv[r][j - body] += d * d;                                                                              \
            }                                                                                                          \
        for (int r = 0; r < R; r++) {                                                                                  \
            const T *xr = x + r * cols, *gr = g + r * cols;                                                            \
            double *xhr = xh + r * cols, *gwr = gw + r * cols;                                                         \
            rs[r] = 1.0 / sqrt(lanes_total(lv[r]) / (double)cols + eps);                                               \
            for (int64_t j = 0; j < cols; j++) {                                                                       \
                xhr[j] = (xr[j] - mu[r]) * rs[r];                                                                      \
                gwr[j] = w ? (double)gr[j] * w[j] : (double)gr[j];                                                     \
            }                                                                                                          \
        }                                                                                                              \
        for (int64_t j = 0; j < body; j += LANES)                                                                      \
            for (int r = 0; r < R; r++)                                                                                \
                for (int k = 0; k < LANES; k++) {                                                                      \
                    l1[r][k] += gw[r * cols + j + k];                                                                  \
                    l2[r][k] += gw[r * cols + j + k] * xh[r * cols + j + k];                                           \
                }                                                                                                      \
        for (int r = 0; r < R; r++) {                                                                                  \
            for (int64_t j = body; j < cols; j++) {                                                                    \
                l1[r][j - body] += gw[r * cols + j];                                                                   \
                l2[r][j - body] += gw[r * cols + j] * xh[r * cols + j];                                                \
            }                                                                                                          \
            m1[r] = lanes_total(l1[r]) / (double)cols;                                                                 \
            m2[r] = lanes_total(l2[r]) / (double)cols;                                                                 \
        }                                                                                                              \
        for (int r = 0; r < R; r++) {                                                                                  \
            const T *gr = g + r * cols;                                                                                \
            const double *xhr = xh + r * cols, *gwr = gw + r * cols;                                                   \
            T *dr = dx + r * cols;                                                                                     \
            for (int64_t j = 0; j < cols; j++) {                                                                       \
                dr[j] = (T)(rs[r] * (gwr[j] - m1[r] - xhr[j] * m2[r]));                                                \
                aw[j] += gr[j] * xhr[j];                                                                               \
                ab[j] += gr[j];                                                                                        \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    /* ws: LN_BW_ROWS rows of xhat and of gw (2 * LN_BW_ROWS * cols doubles) */                                        \
    static inline __attribute__((always_inline)) void ln_backward_##SUF##__body(                                       \
        const T *g, const T *x, const T *w, T *dx, T *dw, T *db, int64_t rows, int64_t cols, double eps, double *acc,  \
        double *ws) {                                                                                                  \
        double *aw = acc, *ab = acc + cols;                                                                            \
        for (int64_t j = 0; j < 2 * cols; j++) acc[j] = 0;                                                             \
        int64_t i = 0;                                                                                                 \
        for (; i + LN_BW_ROWS <= rows; i += LN_BW_ROWS)                                                                \
            ln_bw_rows_##SUF(g + i * cols, x + i * cols, w, dx + i * cols, aw, ab, cols, eps, ws, LN_BW_ROWS);        \
        for (; i < rows; i++) ln_bw_rows_##SUF(g + i * cols, x + i * cols, w, dx + i * cols, aw, ab, cols, eps, ws, 1);  \
        for (int64_t j = 0; j < cols; j++) {                                                                           \
            dw[j] = (T)aw[j];                                                                                          \
            db[j] = (T)ab[j];                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    TENSOR_MULTIVERSION(ln_backward_##SUF, (const T *g, const T *x, const T *w, T *dx, T *dw, T *db, int64_t rows,     \
                                            int64_t cols, double eps, double *acc, double *ws),                        \
                        (g, x, w, dx, dw, db, rows, cols, eps, acc, ws))
LN_BACKWARD(f, float, tensor__sum_f32)
LN_BACKWARD(d, double, tensor__sum_f64)
#undef LN_BACKWARD

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
    double *acc = NULL;
    for (int i = 0; i < n_in; i++)
        if (!(c[i] = tensor_contiguous(in[i]))) goto fail;
    for (int i = 0; i < 3; i++)
        if (!(r[i] = tensor__new_from_meta(&o[i], false))) goto fail;
    if (!(acc = malloc(sizeof(double) * (size_t)((2 + 2 * LN_BW_ROWS) * cols + 1)))) {
        tensor_error_set(TENSOR_ERR_MEMORY, "out of memory");
        goto fail;
    }
    if (m[1].dtype == TENSOR_FLOAT64)
        TENSOR_ISA_CALL(ln_backward_d, (P(c[0], const double), P(c[1], const double), P(c[2], const double), P(r[0], double),
                                          P(r[1], double), P(r[2], double), rows, cols, a->eps, acc, acc + 2 * cols));
    else
        TENSOR_ISA_CALL(ln_backward_f, (P(c[0], const float), P(c[1], const float), P(c[2], const float), P(r[0], float),
                                          P(r[1], float), P(r[2], float), rows, cols, a->eps, acc, acc + 2 * cols));
    free(acc);
    for (int i = 0; i < 3; i++) tensor_decref(c[i]);
    for (int i = 0; i < 3; i++) out[i] = r[i];
    return 3;
fail:
    free(acc);
    for (int i = 0; i < 3; i++) {
        tensor_decref(c[i]);
        tensor_decref(r[i]);
    }
    return -1;
}
