/* conv.c — the kernels under convolution and pooling: im2col (F.unfold) and its adjoint col2im
 * (F.fold), which convolution (im2col + one GEMM, in torch.nn.functional) and its backward are
 * built from, and max_pool2d with PyTorch's indices (positions in the flattened H*W plane),
 * whose backward scatters through those indices.  All work on 4-D (N, C, H, W) float32 or
 * float64 (one kernel per family, expanded for float and double; the result has the input's
 * dtype, as ATen's are); the Python layer adds the batch dim and the 1-D forms.
 *
 * Argument layout (TensorOpArgs.ints), checked by conv_geometry():
 *   IM2COL      [kh, kw, dh, dw, pad_top, pad_left, pad_bottom, pad_right, sh, sw]
 *   COL2IM      [H, W] followed by IM2COL's ten
 *   MAX_POOL2D  [kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode]
 * Padding is given per side so "same" convolutions with even kernels and ceil-mode windows
 * need no padded copy of the input. */
#include "src/tensor/kernels.h"

#include <math.h>
#include <stdio.h>

typedef struct Geo {
    int64_t kh, kw, dh, dw, pt, pl, pb, pr, sh, sw;
    int64_t oh, ow;
} Geo;

/* output extent of one spatial dim; <= 0 when the window does not fit */
static int64_t out_extent(int64_t in, int64_t k, int64_t d, int64_t p0, int64_t p1, int64_t s) {
    int64_t span = in + p0 + p1 - d * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;
}

static int conv_geometry(const int64_t *v, int n, int64_t H, int64_t W, const char *what, Geo *g) {
    if (n != 10) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: expected 10 geometry ints, got %d", what, n);
        return -1;
    }
    *g = (Geo){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], 0, 0};
    if (g->kh <= 0 || g->kw <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld",
                         what, (long long)g->kh, (long long)g->kw);
        return -1;
    }
    if (g->dh <= 0 || g->dw <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld",
                         what, (long long)g->dh, (long long)g->dw);
        return -1;
    }
    if (g->sh <= 0 || g->sw <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: stride should be greater than zero, but got stride_height: %lld stride_width: %lld",
                         what, (long long)g->sh, (long long)g->sw);
        return -1;
    }
    if (g->pt < 0 || g->pl < 0 || g->pb < 0 || g->pr < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: padding should be non-negative", what);
        return -1;
    }
    g->oh = out_extent(H, g->kh, g->dh, g->pt, g->pb, g->sh);
    g->ow = out_extent(W, g->kw, g->dw, g->pl, g->pr, g->sw);
    if (g->oh < 1 || g->ow < 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), "
                         "padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its "
                         "components must be at least one.",
                         (long long)H, (long long)W, (long long)g->kh, (long long)g->kw, (long long)g->dh, (long long)g->dw,
                         (long long)g->pt, (long long)g->pl, (long long)(H + g->pt + g->pb - g->dh * (g->kh - 1) - 1) / g->sh + 1,
                         (long long)(W + g->pl + g->pr - g->dw * (g->kw - 1) - 1) / g->sw + 1);
        return -1;
    }
    return 0;
}

static int need_float4d(const TensorMeta *x, const char *what, int ndim) {
    if (x->ndim != ndim) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: expected a %d-D input, got %d-D", what, ndim, x->ndim);
        return -1;
    }
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", what, tensor__cname((TensorDtype)x->dtype));
        return -1;
    }
    return 0;
}

/* ---- max_pool2d geometry (PyTorch's pooling_output_shape) --------------------------------------- */

static int64_t pool_extent(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p) o--;   /* the last window must start inside the input or left padding */
    return o;
}

static int pool_geometry(const int64_t *v, int n, int64_t C, int64_t H, int64_t W, Geo *g) {
    if (n != 9) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "max_pool2d: expected 9 geometry ints, got %d", n);
        return -1;
    }
    *g = (Geo){.kh = v[0], .kw = v[1], .sh = v[2], .sw = v[3], .pt = v[4], .pl = v[5], .dh = v[6], .dw = v[7]};
    if (g->kh <= 0 || g->kw <= 0 || g->sh <= 0 || g->sw <= 0 || g->dh <= 0 || g->dw <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "max_pool2d: kernel_size, stride and dilation should be greater than zero");
        return -1;
    }
    if (g->pt > g->kh / 2 || g->pl > g->kw / 2) {
        bool h = g->pt > g->kh / 2;
        tensor_error_set(TENSOR_ERR_RUNTIME, "pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld",
                         (long long)(h ? g->pt : g->pl), (long long)(h ? g->kh : g->kw));
        return -1;
    }
    g->oh = pool_extent(H, g->kh, g->pt, g->sh, g->dh, v[8] != 0);
    g->ow = pool_extent(W, g->kw, g->pl, g->sw, g->dw, v[8] != 0);
    if (g->oh < 1 || g->ow < 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). Output size is too small",
                         (long long)C, (long long)H, (long long)W, (long long)C, (long long)g->oh, (long long)g->ow);
        return -1;
    }
    return 0;
}

/* ---- the table entries' output metadata (ops.def K columns) ------------------------------------------ */

TENSOR_INFER(im2col) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    Geo g;
    if (need_float4d(x, "im2col", 4) < 0 || conv_geometry(a->ints, a->n_ints, x->shape[2], x->shape[3], "im2col", &g) < 0)
        return -1;
    int64_t shape[3] = {x->shape[0], x->shape[1] * g.kh * g.kw, g.oh * g.ow};
    tensor__meta_contiguous(out, (TensorDtype)x->dtype, 3, shape);
    return 1;
}

TENSOR_INFER(col2im) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    Geo g;
    if (need_float4d(x, "col2im", 3) < 0) return -1;
    if (a->n_ints != 12) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "col2im: expected 12 geometry ints, got %d", a->n_ints);
        return -1;
    }
    if (conv_geometry(a->ints + 2, a->n_ints - 2, a->ints[0], a->ints[1], "col2im", &g) < 0) return -1;
    int64_t kk = g.kh * g.kw;
    if (x->shape[1] % kk != 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%lld and kernel_size=(%lld, %lld)",
                         (long long)x->shape[1], (long long)g.kh, (long long)g.kw);
        return -1;
    }
    if (x->shape[2] != g.oh * g.ow) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), "
                         "stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding "
                         "blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                         (long long)a->ints[0], (long long)a->ints[1], (long long)g.kh, (long long)g.kw, (long long)g.dh,
                         (long long)g.dw, (long long)g.pt, (long long)g.pl, (long long)g.sh, (long long)g.sw, (long long)g.oh,
                         (long long)g.ow, (long long)(g.oh * g.ow), (long long)x->shape[2]);
        return -1;
    }
    int64_t shape[4] = {x->shape[0], x->shape[1] / kk, a->ints[0], a->ints[1]};
    tensor__meta_contiguous(out, (TensorDtype)x->dtype, 4, shape);
    return 1;
}

TENSOR_INFER(max_pool2d) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    Geo g;
    if (need_float4d(x, "max_pool2d", 4) < 0 || pool_geometry(a->ints, a->n_ints, x->shape[1], x->shape[2], x->shape[3], &g) < 0)
        return -1;
    int64_t shape[4] = {x->shape[0], x->shape[1], g.oh, g.ow};
    tensor__meta_contiguous(&out[0], (TensorDtype)x->dtype, 4, shape);
    tensor__meta_contiguous(&out[1], TENSOR_INT64, 4, shape);
    return 2;
}

/* ---- kernels -------------------------------------------------------------------------------------------- */

/* the plane kernels of one family: SUF f (float) or d (double), T its element type */
#define CONV_PLANES(SUF, T)                                                                                            \
/* one image's planes (C, H, W) -> columns (C*kh*kw, oh*ow) */                                                         \
static void im2col_plane_##SUF(const T *x, T *col, int64_t C, int64_t H, int64_t W, const Geo *g) {                    \
    int64_t L = g->oh * g->ow;                                                                                         \
    for (int64_t c = 0; c < C; c++) {                                                                                  \
        const T *xc = x + c * H * W;                                                                                   \
        for (int64_t ki = 0; ki < g->kh; ki++) {                                                                       \
            for (int64_t kj = 0; kj < g->kw; kj++) {                                                                   \
                T *row = col + ((c * g->kh + ki) * g->kw + kj) * L;                                                    \
                for (int64_t oy = 0; oy < g->oh; oy++) {                                                               \
                    int64_t iy = oy * g->sh - g->pt + ki * g->dh;                                                      \
                    T *r = row + oy * g->ow;                                                                           \
                    if (iy < 0 || iy >= H) {                                                                           \
                        memset(r, 0, sizeof(T) * (size_t)g->ow);                                                       \
                        continue;                                                                                      \
                    }                                                                                                  \
                    const T *xr = xc + iy * W;                                                                         \
                    int64_t ix = -g->pl + kj * g->dw;                                                                  \
                    if (g->sw == 1) {                                                                                  \
                        /* stride 1: zeros left of the input, one contiguous copy, zeros right of it */                \
                        int64_t lo = ix < 0 ? -ix : 0, hi = W - ix;                                                    \
                        if (lo > g->ow) lo = g->ow;                                                                    \
                        if (hi > g->ow) hi = g->ow;                                                                    \
                        if (hi < lo) hi = lo;                                                                          \
                        if (lo) memset(r, 0, sizeof(T) * (size_t)lo);                                                  \
                        if (hi > lo) memcpy(r + lo, xr + ix + lo, sizeof(T) * (size_t)(hi - lo));                      \
                        if (g->ow > hi) memset(r + hi, 0, sizeof(T) * (size_t)(g->ow - hi));                           \
                        continue;                                                                                      \
                    }                                                                                                  \
                    for (int64_t ox = 0; ox < g->ow; ox++, ix += g->sw) r[ox] = (ix >= 0 && ix < W) ? xr[ix] : (T)0;   \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
}                                                                                                                      \
                                                                                                                       \
/* the adjoint: columns summed back into planes (x must be zeroed) */                                                  \
static void col2im_plane_##SUF(const T *col, T *x, int64_t C, int64_t H, int64_t W, const Geo *g) {                    \
    int64_t L = g->oh * g->ow;                                                                                         \
    for (int64_t c = 0; c < C; c++) {                                                                                  \
        T *xc = x + c * H * W;                                                                                         \
        for (int64_t ki = 0; ki < g->kh; ki++) {                                                                       \
            for (int64_t kj = 0; kj < g->kw; kj++) {                                                                   \
                const T *row = col + ((c * g->kh + ki) * g->kw + kj) * L;                                              \
                for (int64_t oy = 0; oy < g->oh; oy++) {                                                               \
                    int64_t iy = oy * g->sh - g->pt + ki * g->dh;                                                      \
                    if (iy < 0 || iy >= H) continue;                                                                   \
                    T *xr = xc + iy * W;                                                                               \
                    const T *r = row + oy * g->ow;                                                                     \
                    int64_t ix = -g->pl + kj * g->dw;                                                                  \
                    if (g->sw == 1) {                                                                                  \
                        int64_t lo = ix < 0 ? -ix : 0, hi = W - ix;                                                    \
                        if (hi > g->ow) hi = g->ow;                                                                    \
                        for (int64_t ox = lo; ox < hi; ox++) xr[ix + ox] += r[ox];                                     \
                        continue;                                                                                      \
                    }                                                                                                  \
                    for (int64_t ox = 0; ox < g->ow; ox++, ix += g->sw)                                                \
                        if (ix >= 0 && ix < W) xr[ix] += r[ox];                                                        \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
}

CONV_PLANES(f, float)
CONV_PLANES(d, double)

static Tensor *run_im2col(const Tensor *x, const TensorOpArgs *a) {
    TensorMeta m, o;
    tensor_meta_of(x, &m);
    const TensorMeta *mp = &m;
    if (tensor__infer_im2col(TENSOR_OP_IM2COL, &mp, 1, a, &o, 1) < 0) return NULL;
    Geo g;
    if (conv_geometry(a->ints, a->n_ints, x->shape[2], x->shape[3], "im2col", &g) < 0) return NULL;
    Tensor *c = tensor_contiguous((Tensor *)x);
    if (!c) return NULL;
    Tensor *r = tensor__new_from_meta(&o, false);
    if (r) {
        int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
        int64_t per_in = C * H * W, per_out = o.shape[1] * o.shape[2];
        if (c->dtype == TENSOR_FLOAT64) {
            const double *xs = (const double *)tensor__data(c);
            double *rs = (double *)tensor__data(r);
            for (int64_t n = 0; n < N; n++) im2col_plane_d(xs + n * per_in, rs + n * per_out, C, H, W, &g);
        } else {
            const float *xs = tensor__f32(c);
            float *rs = tensor__f32(r);
            for (int64_t n = 0; n < N; n++) im2col_plane_f(xs + n * per_in, rs + n * per_out, C, H, W, &g);
        }
    }
    tensor_decref(c);
    return r;
}

static Tensor *run_col2im(const Tensor *x, const TensorOpArgs *a) {
    TensorMeta m, o;
    tensor_meta_of(x, &m);
    const TensorMeta *mp = &m;
    if (tensor__infer_col2im(TENSOR_OP_COL2IM, &mp, 1, a, &o, 1) < 0) return NULL;
    Geo g;
    if (conv_geometry(a->ints + 2, a->n_ints - 2, a->ints[0], a->ints[1], "col2im", &g) < 0) return NULL;
    Tensor *c = tensor_contiguous((Tensor *)x);
    if (!c) return NULL;
    Tensor *r = tensor__new_from_meta(&o, true);
    if (r) {
        int64_t N = o.shape[0], C = o.shape[1], H = o.shape[2], W = o.shape[3];
        int64_t per_in = x->shape[1] * x->shape[2], per_out = C * H * W;
        if (c->dtype == TENSOR_FLOAT64) {
            const double *cs = (const double *)tensor__data(c);
            double *rs = (double *)tensor__data(r);
            for (int64_t n = 0; n < N; n++) col2im_plane_d(cs + n * per_in, rs + n * per_out, C, H, W, &g);
        } else {
            const float *cs = tensor__f32(c);
            float *rs = tensor__f32(r);
            for (int64_t n = 0; n < N; n++) col2im_plane_f(cs + n * per_in, rs + n * per_out, C, H, W, &g);
        }
    }
    tensor_decref(c);
    return r;
}

/* one family's max_pool2d over `planes` (H, W) planes: values and indices; a NaN wins its window
 * (PyTorch: `val > max || isnan(val)`) */
#define MAX_POOL_PLANES(SUF, T)                                                                   \
    static void max_pool_planes_##SUF(const T *xs, T *vs, int64_t *is, int64_t planes, int64_t H, \
                                      int64_t W, const Geo *g) {                                  \
        for (int64_t p = 0; p < planes; p++) {                                                    \
            const T *xp = xs + p * H * W;                                                         \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                              \
                int64_t y0 = oy * g->sh - g->pt;                                                  \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                          \
                    int64_t x0 = ox * g->sw - g->pl;                                              \
                    T best = -INFINITY;                                                           \
                    int64_t bi = -1;                                                              \
                    for (int64_t ki = 0; ki < g->kh; ki++) {                                      \
                        int64_t iy = y0 + ki * g->dh;                                             \
                        if (iy < 0 || iy >= H) continue;                                          \
                        for (int64_t kj = 0; kj < g->kw; kj++) {                                  \
                            int64_t jx = x0 + kj * g->dw;                                         \
                            if (jx < 0 || jx >= W) continue;                                      \
                            T val = xp[iy * W + jx];                                              \
                            if (bi < 0 || val > best || isnan(val)) {                             \
                                best = val;                                                       \
                                bi = iy * W + jx;                                                 \
                                if (isnan(val)) goto done;                                        \
                            }                                                                     \
                        }                                                                         \
                    }                                                                             \
                done:                                                                             \
                    *vs++ = best;                                                                 \
                    *is++ = bi < 0 ? 0 : bi;                                                      \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

MAX_POOL_PLANES(f, float)
MAX_POOL_PLANES(d, double)

static int run_max_pool2d(const Tensor *x, const TensorOpArgs *a, Tensor **out) {
    TensorMeta m, o[2];
    tensor_meta_of(x, &m);
    const TensorMeta *mp = &m;
    if (tensor__infer_max_pool2d(TENSOR_OP_MAX_POOL2D, &mp, 1, a, o, 2) < 0) return -1;
    Geo g;
    if (pool_geometry(a->ints, a->n_ints, x->shape[1], x->shape[2], x->shape[3], &g) < 0) return -1;
    Tensor *c = tensor_contiguous((Tensor *)x);
    if (!c) return -1;
    Tensor *v = tensor__new_from_meta(&o[0], false), *ix = v ? tensor__new_from_meta(&o[1], false) : NULL;
    if (!ix) {
        tensor_decref(v);
        tensor_decref(c);
        return -1;
    }
    int64_t planes = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3];
    if (c->dtype == TENSOR_FLOAT64)
        max_pool_planes_d((const double *)tensor__data(c), (double *)tensor__data(v), tensor__i64(ix), planes, H, W, &g);
    else
        max_pool_planes_f(tensor__f32(c), tensor__f32(v), tensor__i64(ix), planes, H, W, &g);
    tensor_decref(c);
    out[0] = v;
    out[1] = ix;
    return 2;
}

/* the table entries' kernels (ops.def K columns) */
TENSOR_RUN1(im2col, run_im2col(in[0], a))
TENSOR_RUN1(col2im, run_col2im(in[0], a))
TENSOR_RUN(max_pool2d) {
    (void)op, (void)n_in, (void)n_out;
    return run_max_pool2d(in[0], a, out);
}
