/* rnn.c — the fused LSTM cell (ops.def LSTM_CELL and LSTM_CELL_BACKWARD): the pointwise part of one
 * nn.LSTM step in one pass, with the bits of PyTorch 1.13's CPU LSTM, which composes it from ATen
 * ops (RNN.cpp LSTMCell) and differentiates them one by one.  The GEMMs stay OpenBLAS (nn.LSTM
 * sums gates = linear(h, W_hh, b_hh) + the input projection); this kernel takes the gates (B, 4H,
 * PyTorch's chunk order i, f, g, o) and the previous cell state cx (B, H) and writes
 *     hy = o * tanh(cy),  cy = f * cx + i * g,   i, f, o = sigmoid(..), g = tanh(..)
 * and a workspace (B, 4H) holding the activated gates, which the backward reads instead of
 * recomputing the exponentials.  The backward, one pass, each product rounded as ATen's ops do:
 *     dcy' = dcy + (dhy o) (1 - tanh(cy)^2)
 *     d gates = (((dcy' g) (1 - i)) i, ((dcy' cx) (1 - f)) f, (dcy' i) (1 - g^2), ((dhy tanh(cy)) (1 - o)) o),
 *     dcx = dcy' f
 * (an absent gradient of hy or cy adds nothing).  This replaces ~12 dispatched ops per step
 * forward (chunk, three sigmoids, two tanhs, three multiplies, an add) and their backward nodes.
 * Also SIGMOID_ROWS, nn.GRU's reset and update gates (the sigmoid with ATen's per-row libm tail;
 * at the end of the file).  The float32 loops are multiversioned (isa.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/tensor/aten_order.h"
#include "src/tensor/isa.h"
#include "src/tensor/kernels.h"
#include "src/tensor/tensor.h"
#include "src/tensor/vmath.h"

/* The clamps and selects below are if-converted into vector code only when a float compare is
 * not taken to trap (GCC's default -ftrapping-math keeps them branches): this file's loops do
 * not inspect FP exception flags, and the results are the same bits either way.  PyTorch's
 * build uses -fno-trapping-math throughout. */
#pragma GCC optimize("no-trapping-math")

static int lstm_check(const TensorMeta *gates, const TensorMeta *cx, int64_t *B, int64_t *H) {
    if (gates->dtype != TENSOR_FLOAT32 && gates->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"_thnn_fused_lstm_cell\" not implemented for '%s'",
                         tensor_dtype_name((TensorDtype)gates->dtype));
        return -1;
    }
    if (gates->ndim != 2 || cx->ndim != 2 || gates->shape[1] % 4 != 0 || cx->shape[0] != gates->shape[0] ||
        cx->shape[1] * 4 != gates->shape[1] || cx->dtype != gates->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_thnn_fused_lstm_cell: expected gates (B, 4H) and cx (B, H) of one dtype");
        return -1;
    }
    *B = gates->shape[0];
    *H = cx->shape[1];
    return 0;
}

static bool same_shape(const TensorMeta *a, const TensorMeta *b) {
    return a->ndim == b->ndim && a->dtype == b->dtype && memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

/* (gates, cx) -> (hy, cy, workspace) */
TENSOR_INFER(lstm_cell) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    int64_t B, H;
    if (lstm_check(in[0], in[1], &B, &H) < 0) return -1;
    TensorDtype dt = (TensorDtype)in[0]->dtype;
    tensor__meta_contiguous(&out[0], dt, 2, in[1]->shape);
    tensor__meta_contiguous(&out[1], dt, 2, in[1]->shape);
    tensor__meta_contiguous(&out[2], dt, 2, in[0]->shape);
    return 3;
}

/* (cx, cy, workspace, grad_hy?, grad_cy?) -> (grad_gates, grad_cx) */
TENSOR_INFER(lstm_cell_backward) {
    (void)op, (void)a, (void)max_out;
    int64_t B, H;
    if (lstm_check(in[2], in[0], &B, &H) < 0) return -1;
    if (!same_shape(in[1], in[0]) || (n_in > 3 && in[3] && !same_shape(in[3], in[0])) ||
        (n_in > 4 && in[4] && !same_shape(in[4], in[0]))) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_thnn_fused_lstm_cell_backward: cy and the gradients must match cx");
        return -1;
    }
    TensorDtype dt = (TensorDtype)in[0]->dtype;
    tensor__meta_contiguous(&out[0], dt, 2, in[2]->shape);
    tensor__meta_contiguous(&out[1], dt, 2, in[0]->shape);
    return 2;
}

/* One row each, as ATen's CPU LSTM cell computes it (RNN.cpp LSTMCell: gates.unsafe_chunk(4, 1),
 * ingate.sigmoid_(), ..., cy = (forgetgate * cx).add_(ingate * cellgate), hy = outgate * cy.tanh()).
 * sigmoid_ runs on each (B, H) chunk, a view with row stride 4H: ATen's loop takes each row on its
 * own, Sleef's exp in whole blocks of 16 floats / 8 doubles (the vector body, the first nv
 * elements) and libm's exp on the row's tail; tanh is a vml kernel, Sleef on every element.
 *
 * The backward is autograd over those ops, each rounding on its own, in derivatives.yaml's
 * order: MulBackward (hy) gives grad_tc = dhy * o and grad_o = dhy * tc; tanh_backward
 * grad * (1 - y * y), whose parenthesis ATen's FMA-built kernels round once (fused); the cell
 * state's gradient is that plus dcy; sigmoid_backward (grad * (1 - y)) * y on grad * the other
 * factor of each product.  An absent dhy (dcy) adds nothing, and an absent dhy leaves the output
 * gate's gradient +0 as UnsafeSplitBackward's zeros do. */
#define LSTM_KERNELS(SUF, T, VEXP, LEXP, TANH)                                                                         \
    static inline __attribute__((always_inline)) T lstm_sig_##SUF(T x, bool vec) {                                     \
        return (T)1 / ((T)1 + (vec ? VEXP(-x) : LEXP(-x)));                                                            \
    }                                                                                                                  \
    static inline __attribute__((always_inline)) void lstm_fwd_row_##SUF(                                              \
        const T *restrict g, const T *restrict c, T *restrict h, T *restrict cn, T *restrict w, int64_t H,             \
        int64_t nv) {                                                                                                  \
        for (int64_t j = 0; j < H; j++) {                                                                              \
            T i = lstm_sig_##SUF(g[j], j < nv);                                                                        \
            T f = lstm_sig_##SUF(g[H + j], j < nv);                                                                    \
            T gg = TANH(g[2 * H + j]);                                                                                 \
            T o = lstm_sig_##SUF(g[3 * H + j], j < nv);                                                                \
            T cv = f * c[j] + i * gg;                                                                                  \
            w[j] = i;                                                                                                  \
            w[H + j] = f;                                                                                              \
            w[2 * H + j] = gg;                                                                                         \
            w[3 * H + j] = o;                                                                                          \
            cn[j] = cv;                                                                                                \
            h[j] = o * TANH(cv);                                                                                       \
        }                                                                                                              \
    }                                                                                                                  \
    static inline __attribute__((always_inline)) void lstm_fwd_##SUF##__body(const T *gates, const T *cx, T *hy, T *cy, \
                                                                            T *ws, int64_t B, int64_t H, int64_t nv) { \
        for (int64_t b = 0; b < B; b++)                                                                                \
            lstm_fwd_row_##SUF(gates + b * 4 * H, cx + b * H, hy + b * H, cy + b * H, ws + b * 4 * H, H, nv);          \
    }                                                                                                                  \
    static inline __attribute__((always_inline)) void lstm_bwd_row_##SUF(                                              \
        const T *restrict w, const T *restrict c, const T *restrict cn, const T *restrict dh, const T *restrict dc,    \
        T *restrict dg, T *restrict dcp, int64_t H, bool fused) {                                                      \
        for (int64_t j = 0; j < H; j++) {                                                                              \
            T i = w[j], f = w[H + j], gg = w[2 * H + j], o = w[3 * H + j];                                             \
            T d, dgo = 0;                                                                                              \
            if (dh) {                                                                                                  \
                T tc = TANH(cn[j]), gh = dh[j];                                                                        \
                T dtc = (gh * o) * aten_fma_##SUF(fused, -tc, tc, (T)1);                                               \
                d = dc ? dc[j] + dtc : dtc;                                                                            \
                dgo = ((gh * tc) * ((T)1 - o)) * o;                                                                    \
            } else {                                                                                                   \
                d = dc[j];                                                                                             \
            }                                                                                                          \
            dg[j] = ((d * gg) * ((T)1 - i)) * i;                                                                       \
            dg[H + j] = ((d * c[j]) * ((T)1 - f)) * f;                                                                 \
            dg[2 * H + j] = (d * i) * aten_fma_##SUF(fused, -gg, gg, (T)1);                                            \
            dg[3 * H + j] = dgo;                                                                                       \
            dcp[j] = d * f;                                                                                            \
        }                                                                                                              \
    }                                                                                                                  \
    static inline __attribute__((always_inline)) void lstm_bwd_##SUF##__body(const T *cx, const T *cy, const T *ws,     \
                                                                            const T *dhy, const T *dcy, T *dgates,     \
                                                                            T *dcx, int64_t B, int64_t H, bool fused) { \
        for (int64_t b = 0; b < B; b++)                                                                                \
            lstm_bwd_row_##SUF(ws + b * 4 * H, cx + b * H, cy + b * H, dhy ? dhy + b * H : NULL,                       \
                               dcy ? dcy + b * H : NULL, dgates + b * 4 * H, dcx + b * H, H, fused);                   \
    }

static inline __attribute__((always_inline)) float aten_fma_f(bool fused, float a, float b, float c) {
    return aten_fmaf(fused, a, b, c);
}
static inline __attribute__((always_inline)) double aten_fma_d(bool fused, double a, double b, double c) {
    return aten_fma(fused, a, b, c);
}

LSTM_KERNELS(f, float, tensor__vexpf, expf, tensor__vtanhf)
LSTM_KERNELS(d, double, tensor__vexp, (exp), tensor__vtanh)

#define LSTM_FWD_PARAMS(T) (const T *gates, const T *cx, T *hy, T *cy, T *ws, int64_t B, int64_t H, int64_t nv)
#define LSTM_BWD_PARAMS(T) (const T *cx, const T *cy, const T *ws, const T *dhy, const T *dcy, T *dgates, T *dcx, int64_t B, int64_t H, bool fused)
/* the float32 loops in AVX-512 / AVX2 / baseline copies (src/tensor/isa.h: same bits on each) */
TENSOR_MULTIVERSION(lstm_fwd_f, LSTM_FWD_PARAMS(float), (gates, cx, hy, cy, ws, B, H, nv))
TENSOR_MULTIVERSION(lstm_bwd_f, LSTM_BWD_PARAMS(float), (cx, cy, ws, dhy, dcy, dgates, dcx, B, H, fused))
static void lstm_fwd_d LSTM_FWD_PARAMS(double) { lstm_fwd_d__body(gates, cx, hy, cy, ws, B, H, nv); }
static void lstm_bwd_d LSTM_BWD_PARAMS(double) { lstm_bwd_d__body(cx, cy, ws, dhy, dcy, dgates, dcx, B, H, fused); }

#define P(t, T) ((t) ? (T *)tensor__data(t) : NULL)

static void decref_n(Tensor **c, int n) {
    for (int i = 0; i < n; i++) tensor_decref(c[i]);
}

/* contiguous forms of the (optional) inputs; false on allocation failure */
static bool contig_n(Tensor *const *in, int n_in, int n, Tensor **c) {
    bool ok = true;
    for (int i = 0; i < n; i++) {
        Tensor *t = i < n_in ? in[i] : NULL;
        c[i] = t ? tensor_contiguous(t) : NULL;
        if (t && !c[i]) ok = false;
    }
    return ok;
}

TENSOR_RUN(lstm_cell) {
    (void)n_out;
    TensorMeta m[2], o[3];
    tensor_meta_of(in[0], &m[0]);
    tensor_meta_of(in[1], &m[1]);
    const TensorMeta *mp[2] = {&m[0], &m[1]};
    if (tensor__infer_lstm_cell(op, mp, 2, a, o, 3) < 0) return -1;
    int64_t B = m[0].shape[0], H = m[1].shape[1];
    Tensor *c[2], *r[3] = {NULL, NULL, NULL};
    if (!contig_n(in, n_in, 2, c)) goto fail;
    for (int i = 0; i < 3; i++)
        if (!(r[i] = tensor__new_from_meta(&o[i], false))) goto fail;
    /* the sigmoids' vector body: whole blocks of 2 AVX2 vectors of each row (16 floats, 8 doubles) */
    if (m[0].dtype == TENSOR_FLOAT64)
        lstm_fwd_d(P(c[0], const double), P(c[1], const double), P(r[0], double), P(r[1], double), P(r[2], double), B, H,
                   H / 8 * 8);
    else
        TENSOR_ISA_CALL(lstm_fwd_f, (P(c[0], const float), P(c[1], const float), P(r[0], float), P(r[1], float),
                                     P(r[2], float), B, H, H / 16 * 16));
    decref_n(c, 2);
    for (int i = 0; i < 3; i++) out[i] = r[i];
    return 3;
fail:
    decref_n(c, 2);
    decref_n(r, 3);
    return -1;
}

TENSOR_RUN(lstm_cell_backward) {
    (void)n_out;
    TensorMeta m[5], o[2];
    const TensorMeta *mp[5];
    for (int i = 0; i < 5; i++) {
        Tensor *t = i < n_in ? in[i] : NULL;
        if (t) tensor_meta_of(t, &m[i]);
        mp[i] = t ? &m[i] : NULL;
    }
    if (tensor__infer_lstm_cell_backward(op, mp, 5, a, o, 2) < 0) return -1;
    int64_t B = m[0].shape[0], H = m[0].shape[1];
    Tensor *c[5], *r[2] = {NULL, NULL};
    if (!contig_n(in, n_in, 5, c)) goto fail;
    /* an absent gradient (the last step's cy, a step whose hy is unused) adds nothing: NULL rows */
    if (!c[3] && !c[4]) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_thnn_fused_lstm_cell_backward: no gradient of hy or cy");
        goto fail;
    }
    for (int i = 0; i < 2; i++)
        if (!(r[i] = tensor__new_from_meta(&o[i], false))) goto fail;
    if (m[0].dtype == TENSOR_FLOAT64)
        lstm_bwd_d(P(c[0], const double), P(c[1], const double), P(c[2], const double), P(c[3], const double),
                   P(c[4], const double), P(r[0], double), P(r[1], double), B, H, tensor__vm_sleef);
    else
        TENSOR_ISA_CALL(lstm_bwd_f, (P(c[0], const float), P(c[1], const float), P(c[2], const float),
                                     P(c[3], const float), P(c[4], const float), P(r[0], float), P(r[1], float), B, H,
                                     tensor__vm_sleef));
    decref_n(c, 5);
    out[0] = r[0];
    out[1] = r[1];
    return 2;
fail:
    decref_n(c, 5);
    decref_n(r, 2);
    return -1;
}

/* ---- SIGMOID_ROWS: nn.GRU's gate sigmoids ------------------------------------------------------
 * ATen's CPU GRUCell (RNN.cpp) computes r = chunked_hgates[0].add_(chunked_igates[0]).sigmoid_()
 * and z likewise, in place on (B, H) chunks of the (B, 3H) hidden projection: views with row
 * stride 3H, which its loop takes one row at a time (cpu_kernel_vec: Sleef's exp in whole blocks
 * of 16 floats / 8 doubles, libm's exp on the last H % 16 (H % 8) elements of every row).  A
 * sigmoid of the contiguous (B, H) sum is one run of B * H elements with one tail, and differs in
 * the last bit wherever Sleef's and libm's exp do (hidden 200: ~half the gate elements).  The
 * same scalar forms as LSTM's sigmoid (lstm_sig_*); the output is contiguous. */
TENSOR_INFER(sigmoid_rows) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (in[0]->dtype != TENSOR_FLOAT32 && in[0]->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"sigmoid_rows\" not implemented for '%s'",
                         tensor_dtype_name((TensorDtype)in[0]->dtype));
        return -1;
    }
    tensor__meta_contiguous(&out[0], (TensorDtype)in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}

#define SIGMOID_ROWS_KERNEL(SUF, T)                                                                     \
    static inline __attribute__((always_inline)) void sigmoid_rows_##SUF##__body(const T *x, T *y, int64_t R, \
                                                                                 int64_t H, int64_t nv) { \
        for (int64_t r = 0; r < R; r++)                                                                 \
            for (int64_t j = 0; j < H; j++) y[r * H + j] = lstm_sig_##SUF(x[r * H + j], j < nv);       \
    }
SIGMOID_ROWS_KERNEL(f, float)
SIGMOID_ROWS_KERNEL(d, double)
#define SIGMOID_ROWS_PARAMS(T) (const T *x, T *y, int64_t R, int64_t H, int64_t nv)
TENSOR_MULTIVERSION(sigmoid_rows_f, SIGMOID_ROWS_PARAMS(float), (x, y, R, H, nv))
static void sigmoid_rows_d SIGMOID_ROWS_PARAMS(double) { sigmoid_rows_d__body(x, y, R, H, nv); }

TENSOR_RUN(sigmoid_rows) {
    (void)n_in, (void)n_out;
    TensorMeta m, o;
    tensor_meta_of(in[0], &m);
    const TensorMeta *mp[1] = {&m};
    if (tensor__infer_sigmoid_rows(op, mp, 1, a, &o, 1) < 0) return -1;
    int64_t H = m.ndim > 0 ? m.shape[m.ndim - 1] : 1, numel = 1;
    for (int i = 0; i < m.ndim; i++) numel *= m.shape[i];
    Tensor *c = tensor_contiguous(in[0]), *r = NULL;
    if (!c || !(r = tensor__new_from_meta(&o, false))) goto fail;
    if (numel > 0) {
        int64_t R = numel / H;
        if (m.dtype == TENSOR_FLOAT64)
            sigmoid_rows_d(P(c, const double), P(r, double), R, H, tensor__vm_sleef ? H / 8 * 8 : 0);
        else
            TENSOR_ISA_CALL(sigmoid_rows_f, (P(c, const float), P(r, float), R, H, tensor__vm_sleef ? H / 16 * 16 : 0));
    }
    tensor_decref(c);
    out[0] = r;
    return 1;
fail:
    tensor_decref(c);
    tensor_decref(r);
    return -1;
}
