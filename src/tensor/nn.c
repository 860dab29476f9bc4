/* nn.c — neural-network kernels: softmax / log_softmax and their backward (the rows and columns
 * in PyTorch's order live in softmax_rows.c), layer_norm (rows in layer_norm_rows.c), embedding,
 * dropout, nll_loss (ATen's cascade sums), mse_loss, and the shape inference for all of them. */
#include "src/tensor/nn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/tensor/isa.h"
#include "src/tensor/vmath.h"

#include "src/tensor/pointwise.h"
#include "src/tensor/random.h"
#include "src/tensor/reduce.h"

/* vmath.h's clamps and selects vectorise only when float compares are not taken to trap: no loop
 * here reads the FP exception flags, and the bits are the same either way */
#pragma GCC optimize("no-trapping-math")

/* The family dtype an nn kernel computes x in (float32 for bfloat16, whose results round on
 * store), or -1 with PyTorch's dispatch error naming kname when x's dtype has no kernel
 * (integers, bool, and float16 — PyTorch 1.13's CPU nn kernels lack Half). */
static int nn_float(TensorDtype d, const char *kname, TensorDtype *fam) {
    if (!tensor__is_float(d) || d == TENSOR_FLOAT16) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname, tensor__cname(d));
        return -1;
    }
    *fam = tensor__compute_dtype(d);
    return 0;
}

/* x in dtype fam, contiguous (a new reference) */
static Tensor *as_contig(const Tensor *x, TensorDtype fam) {
    Tensor *c = tensor__as_dtype(x, fam);
    if (!c || tensor__contig(c)) return c;
    Tensor *r = tensor_clone(c);
    tensor_decref(c);
    return r;
}

/* r (of the family dtype) rounded into dtype dt; steals r */
static Tensor *round_to(Tensor *r, TensorDtype dt) {
    if (!r || (TensorDtype)r->dtype == dt) return r;
    Tensor *o = tensor__as_dtype(r, dt);
    tensor_decref(r);
    return o;
}

/* ---- softmax / log_softmax ------------------------------------------------------------------ */

/* softmax's and log_softmax's backward over rows of the last dim (ops.def SOFTMAX_BACKWARD,
 * LOG_SOFTMAX_BACKWARD): one row at a time in PyTorch's order (softmax_rows.c) */
/* (grad_out, output), dim: float32 or float64 */
TENSOR_INFER(softmax_backward) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *g = in[0], *y = in[1];
    if ((y->dtype != TENSOR_FLOAT32 && y->dtype != TENSOR_FLOAT64) || g->dtype != y->dtype || g->ndim != y->ndim ||
        y->ndim == 0 || memcmp(g->shape, y->shape, sizeof(int64_t) * (size_t)y->ndim) != 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "_softmax_backward_data: grad_output and output must be float32 or float64 tensors of one shape");
        return -1;
    }
    if (tensor__wrap_dim(a->dim, y->ndim) < 0) return -1;
    tensor__meta_contiguous(&out[0], (TensorDtype)y->dtype, y->ndim, y->shape);
    return 1;
}

static int softmax_backward_run(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                                bool log_mode) {
    TensorMeta mg, my, om;
    tensor_meta_of(in[0], &mg);
    tensor_meta_of(in[1], &my);
    const TensorMeta *pm[2] = {&mg, &my};
    if (tensor__infer_softmax_backward(op, pm, n_in, a, &om, 1) < 0) return -1;
    Tensor *g = tensor_contiguous(in[0]), *y = g ? tensor_contiguous(in[1]) : NULL;
    Tensor *r = y ? tensor__new_from_meta(&om, false) : NULL;
    int64_t d = tensor__wrap_dim(a->dim, om.ndim), n = om.shape[d], outer = 1, inner = 1;
    for (int i = 0; i < d; i++) outer *= om.shape[i];
    for (int i = (int)d + 1; i < om.ndim; i++) inner *= om.shape[i];
    bool dbl = om.dtype == TENSOR_FLOAT64, last = d == om.ndim - 1;
    if (!r || tensor__shape_numel(om.ndim, om.shape) == 0) {
        /* nothing to compute */
    } else if (dbl) {
        const double *pg = (const double *)tensor__data(g), *py = (const double *)tensor__data(y);
        double *pr = (double *)tensor__data(r);
        if (last)
            for (int64_t i = 0; i < outer; i++)
                tensor__softmax_bw_row_f64(pg + i * n, py + i * n, pr + i * n, n, log_mode);
        else
            tensor__softmax_bw_cols_f64(pg, py, pr, outer, n, inner, log_mode);
    } else if (last) {
        for (int64_t i = 0; i < outer; i++)
            tensor__softmax_bw_row_f32(tensor__f32(g) + i * n, tensor__f32(y) + i * n, tensor__f32(r) + i * n, n,
                                       log_mode);
    } else {
        tensor__softmax_bw_cols_f32(tensor__f32(g), tensor__f32(y), tensor__f32(r), outer, n, inner, log_mode);
    }
    tensor_decref(g);
    tensor_decref(y);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

TENSOR_RUN(softmax_backward) {
    (void)n_out;
    return softmax_backward_run(op, in, n_in, a, out, false);
}

TENSOR_RUN(log_softmax_backward) {
    (void)n_out;
    return softmax_backward_run(op, in, n_in, a, out, true);
}

static int softmax_check(const TensorMeta *x, int64_t dim, bool log_mode, TensorDtype *fam) {
    if (tensor__wrap_dim(dim, x->ndim) < 0) return -1;
    return nn_float(x->dtype, log_mode ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl", fam);
}

Tensor *tensor__softmax(const Tensor *a, int64_t dim, bool log_mode) {
    TensorMeta m;
    tensor_meta_of(a, &m);
    TensorDtype fam;
    if (softmax_check(&m, dim, log_mode, &fam) < 0) return NULL;
    int64_t d = tensor__wrap_dim(dim, a->ndim);
    Tensor *c = as_contig(a, fam);
    if (!c) return NULL;
    Tensor *r = tensor__new(fam, a->ndim, a->shape, false);
    if (r && a->numel) {
        int64_t outer = 1, inner = 1, n = a->ndim ? a->shape[d] : 1;
        for (int i = 0; i < d; i++) outer *= a->shape[i];
        for (int i = (int)d + 1; i < a->ndim; i++) inner *= a->shape[i];
        /* ATen picks its kernel by the dim, not the layout: a last dim runs the row kernel, any
         * other the column kernel, even when the dims after it have size 1 */
        bool last = a->ndim == 0 || d == a->ndim - 1;
        if (fam == TENSOR_FLOAT32 && last)
            for (int64_t o = 0; o < outer; o++)
                tensor__softmax_row_f32(tensor__f32(c) + o * n, tensor__f32(r) + o * n, n, log_mode);
        else if (last)
            for (int64_t o = 0; o < outer; o++)
                tensor__softmax_row_f64((const double *)tensor__data(c) + o * n, (double *)tensor__data(r) + o * n, n,
                                        log_mode);
        else if (fam == TENSOR_FLOAT32)
            tensor__softmax_cols_f32(tensor__f32(c), tensor__f32(r), outer, n, inner, log_mode);
        else
            tensor__softmax_cols_f64((const double *)tensor__data(c), (double *)tensor__data(r), outer, n, inner, log_mode);
    }
    tensor_decref(c);
    return round_to(r, (TensorDtype)a->dtype);
}

Tensor *tensor_softmax(const Tensor *a, int64_t dim) { return tensor__softmax(a, dim, false); }
Tensor *tensor_log_softmax(const Tensor *a, int64_t dim) { return tensor__softmax(a, dim, true); }

/* ---- layer_norm ---------------------------------------------------------------------------------- */

int tensor__layer_norm_check(const TensorMeta *x, const int64_t *ns, int n, const TensorMeta *w, const TensorMeta *b,
                             int64_t *rows, int64_t *cols) {
    bool ok = n >= 1 && n <= x->ndim;
    for (int i = 0; ok && i < n; i++)
        if (x->shape[x->ndim - n + i] != ns[i]) ok = false;
    if (!ok) {
        char b1[256], b2[256], b3[300];
        tensor__format_shape(b1, sizeof b1, n, ns);
        tensor__format_shape(b2, sizeof b2, x->ndim, x->shape);
        /* "[*, 3]" */
        snprintf(b3, sizeof b3, "[*%s%s", n ? ", " : "", n ? b1 + 1 : "]");
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Given normalized_shape=%s, expected input with shape %s, but got input of size%s", b1, b3, b2);
        return -1;
    }
    TensorDtype fam;
    if (nn_float(x->dtype, "LayerNormKernelImpl", &fam) < 0) return -1;
    const TensorMeta *wb[2] = {w, b};
    for (int k = 0; k < 2; k++) {
        const TensorMeta *m = wb[k];
        if (!m) continue;
        if (m->ndim != n || memcmp(m->shape, ns, sizeof(int64_t) * (size_t)n) != 0) {
            char b1[256], b2[256];
            tensor__format_shape(b1, sizeof b1, m->ndim, m->shape);
            tensor__format_shape(b2, sizeof b2, n, ns);
            tensor_error_set(TENSOR_ERR_RUNTIME, "Expected %s to be of same shape as normalized_shape, but got %s of shape %s and normalized_shape = %s",
                             k ? "bias" : "weight", k ? "bias" : "weight", b1, b2);
            return -1;
        }
        if (m->dtype != x->dtype) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "expected scalar type %s but found %s", tensor__cname(x->dtype),
                             tensor__cname(m->dtype));
            return -1;
        }
    }
    *cols = tensor__shape_numel(n, ns);
    *rows = *cols ? tensor__shape_numel(x->ndim, x->shape) / *cols : 0;
    return 0;
}

/* rows of layer_norm in PyTorch's order (layer_norm_rows.c); the compiled backend's row groups
 * call the float32 row too */
#define LAYER_NORM_ROWS(SUF, T)                                                                   \
    static void layer_norm_rows_##SUF(const T *px, const T *pw, const T *pb, T *py, T *pmean, T *prstd, int64_t rows, \
                                      int64_t cols, double eps) {                                 \
        for (int64_t i = 0; i < rows; i++)                                                        \
            tensor__layer_norm_row_##SUF(px + i * cols, pw, pb, py + i * cols, cols, eps, pmean ? pmean + i : NULL, \
                                         prstd ? prstd + i : NULL);                               \
    }
LAYER_NORM_ROWS(f32, float)
LAYER_NORM_ROWS(f64, double)

Tensor *tensor__layer_norm(const Tensor *x, const int64_t *ns, int n, const Tensor *w, const Tensor *b, double eps,
                           Tensor **mean_out, Tensor **rstd_out) {
    TensorMeta mx, mw, mb;
    tensor_meta_of(x, &mx);
    if (w) tensor_meta_of(w, &mw);
    if (b) tensor_meta_of(b, &mb);
    int64_t rows, cols;
    if (tensor__layer_norm_check(&mx, ns, n, w ? &mw : NULL, b ? &mb : NULL, &rows, &cols) < 0) return NULL;
    TensorDtype dt = (TensorDtype)x->dtype, fam = tensor__compute_dtype(dt);
    Tensor *xc = as_contig(x, fam);
    Tensor *wc = w ? as_contig(w, fam) : NULL, *bc = b ? as_contig(b, fam) : NULL;
    Tensor *r = tensor__new(fam, x->ndim, x->shape, false);
    Tensor *mean = mean_out ? tensor__new(fam, 1, &rows, false) : NULL;
    Tensor *rstd = rstd_out ? tensor__new(fam, 1, &rows, false) : NULL;
    if (!xc || (w && !wc) || (b && !bc) || !r || (mean_out && !mean) || (rstd_out && !rstd)) {
        tensor_decref(r);
        tensor_decref(mean);
        tensor_decref(rstd);
        r = NULL;
        goto done;
    }
    if (fam == TENSOR_FLOAT32)
        layer_norm_rows_f32(tensor__f32(xc), wc ? tensor__f32(wc) : NULL, bc ? tensor__f32(bc) : NULL, tensor__f32(r),
                          mean ? tensor__f32(mean) : NULL, rstd ? tensor__f32(rstd) : NULL, rows, cols, eps);
    else
        layer_norm_rows_f64((const double *)tensor__data(xc), wc ? (const double *)tensor__data(wc) : NULL,
                          bc ? (const double *)tensor__data(bc) : NULL, (double *)tensor__data(r),
                          mean ? (double *)tensor__data(mean) : NULL, rstd ? (double *)tensor__data(rstd) : NULL, rows, cols,
                          eps);
    r = round_to(r, dt);
    if (mean_out) *mean_out = mean;
    if (rstd_out) *rstd_out = rstd;
done:
    tensor_decref(xc);
    tensor_decref(wc);
    tensor_decref(bc);
    return r;
}

Tensor *tensor_layer_norm(const Tensor *x, const int64_t *ns, int n, const Tensor *w, const Tensor *b, double eps) {
    return tensor__layer_norm(x, ns, n, w, b, eps, NULL, NULL);
}

/* ---- embedding ----------------------------------------------------------------------------------- */

int tensor__embedding_check(const TensorMeta *w, const TensorMeta *idx) {
    if (idx->dtype != TENSOR_INT64 && idx->dtype != TENSOR_INT32) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding)",
                         tensor__dtypes[idx->dtype].type_str);
        return -1;
    }
    if (w->ndim != 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "'weight' must be 2-D");
        return -1;
    }
    if (idx->ndim + 1 > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    return 0;
}

Tensor *tensor_embedding(const Tensor *weight, const Tensor *indices, int64_t padding_idx) {
    (void)padding_idx; /* only affects the gradient */
    TensorMeta mw, mi;
    tensor_meta_of(weight, &mw);
    tensor_meta_of(indices, &mi);
    if (tensor__embedding_check(&mw, &mi) < 0) return NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, indices->shape, sizeof(int64_t) * indices->ndim);
    int64_t V = weight->shape[0], D = weight->shape[1];
    shape[indices->ndim] = D;
    Tensor *ic = as_contig(indices, TENSOR_INT64);
    if (!ic) return NULL;
    const int64_t *pi = tensor__i64(ic);
    for (int64_t i = 0; i < ic->numel; i++) {
        if (pi[i] < 0 || pi[i] >= V) {
            tensor_decref(ic);
            tensor_error_set(TENSOR_ERR_INDEX, "index out of range in self");
            return NULL;
        }
    }
    Tensor *r = tensor__new((TensorDtype)weight->dtype, indices->ndim + 1, shape, false);
    if (r) {
        size_t es = tensor__elsize((TensorDtype)weight->dtype);
        char *out = r->storage->data;
        const char *w = tensor__data(weight);
        for (int64_t i = 0; i < ic->numel; i++) {
            const char *row = w + (size_t)(pi[i] * weight->strides[0]) * es;
            if (weight->strides[1] == 1) {
                memcpy(out + (size_t)(i * D) * es, row, (size_t)D * es);
            } else {
                for (int64_t j = 0; j < D; j++)
                    memcpy(out + (size_t)(i * D + j) * es, row + (size_t)(j * weight->strides[1]) * es, es);
            }
        }
    }
    tensor_decref(ic);
    return r;
}

/* ---- dropout -------------------------------------------------------------------------------------- */

int tensor__dropout_check(double p) {
    if (p < 0 || p > 1) {
        tensor_error_set(TENSOR_ERR_VALUE, "dropout probability has to be between 0 and 1, but got %g", p);
        return -1;
    }
    return 0;
}

/* out = x * mask where mask holds 0 or 1/(1-p); the mask is returned for the gradient. */
Tensor *tensor__dropout(const Tensor *x, double p, bool train, Tensor **mask_out) {
    if (tensor__dropout_check(p) < 0) return NULL;
    if (!tensor__is_float((TensorDtype)x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "dropout only supports floating point tensors");
        return NULL;
    }
    if (!train || p == 0.0) {
        if (mask_out) *mask_out = NULL;
        return tensor_clone(x);
    }
    TensorDtype dt = (TensorDtype)x->dtype;
    Tensor *mask = tensor__new(dt, x->ndim, x->shape, false);
    if (!mask) return NULL;
    if (dt == TENSOR_FLOAT32) tensor__dropout_mask(tensor__f32(mask), mask->numel, p, NULL);
    else tensor__dropout_mask_any(tensor__data(mask), dt, mask->numel, p, NULL);
    Tensor *r = tensor_mul(x, mask);
    if (r && mask_out)
        *mask_out = mask;
    else
        tensor_decref(mask);
    return r;
}

Tensor *tensor_dropout(const Tensor *a, double p, bool train) { return tensor__dropout(a, p, train, NULL); }

/* ---- nll_loss -------------------------------------------------------------------------------------- */

int tensor__nll_check(const TensorMeta *x, const TensorMeta *t, const TensorMeta *w, TensorReduction red, TensorMeta *out) {
    if (x->ndim < 1 || x->ndim > 2) {
        tensor_error_set(TENSOR_ERR_VALUE, "Expected 2 or 1 dimensions (got %d)", x->ndim);
        return -1;
    }
    if (t->dtype != TENSOR_INT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "expected scalar type Long but found %s", tensor__cname(t->dtype));
        return -1;
    }
    if (!tensor__is_float(x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for '%s'",
                         tensor__cname(x->dtype));
        return -1;
    }
    if (w && w->dtype != x->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "expected scalar type %s but found %s", tensor__cname(x->dtype), tensor__cname(w->dtype));
        return -1;
    }
    int64_t batch = x->ndim == 2 ? x->shape[0] : 1;
    int64_t tb = t->ndim == 0 ? 1 : t->shape[0];
    if ((x->ndim == 2 && t->ndim != 1) || (x->ndim == 1 && t->ndim > 1)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not supported");
        return -1;
    }
    if (batch != tb) {
        tensor_error_set(TENSOR_ERR_VALUE, "Expected input batch_size (%lld) to match target batch_size (%lld).", (long long)batch,
                         (long long)tb);
        return -1;
    }
    int64_t C = x->shape[x->ndim - 1];
    if (w && (w->ndim != 1 || w->shape[0] != C)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: [%lld]",
                         (long long)C, (long long)(w->ndim ? w->shape[0] : 1));
        return -1;
    }
    if (red == TENSOR_REDUCTION_NONE && x->ndim == 2)
        tensor__meta_contiguous(out, x->dtype, 1, &batch);
    else
        tensor__meta_contiguous(out, x->dtype, 0, NULL);
    return 0;
}

/* Returns the loss; *total_weight (if given) receives the mean-reduction divisor. */
Tensor *tensor__nll_loss(const Tensor *x, const Tensor *target, const Tensor *weight, TensorReduction red,
                         int64_t ignore_index, double *total_weight) {
    TensorMeta mx, mt, mw, om;
    tensor_meta_of(x, &mx);
    tensor_meta_of(target, &mt);
    if (weight) tensor_meta_of(weight, &mw);
    if (tensor__nll_check(&mx, &mt, weight ? &mw : NULL, red, &om) < 0) return NULL;
    int64_t N = x->ndim == 2 ? x->shape[0] : 1, C = x->shape[x->ndim - 1];
    int64_t xs0 = x->ndim == 2 ? x->strides[0] : 0, xs1 = x->strides[x->ndim - 1];
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    const char *px = tensor__data(x);
    const int64_t *pt = tensor__i64(target);
    int64_t ts = target->ndim ? target->strides[0] : 0;
    Tensor *r = tensor__new_from_meta(&om, false);
    if (!r) return NULL;
    char *pr = tensor__data(r);
    /* the reductions add as ATen's nll_loss_out_frame does: the element type's own arithmetic (a
     * float32 loss rounds every step to float: exact, as each is one double operation rounded)
     * in a cascade of 8 partial sums, level j + 1 taking level j's sum whenever the row index's
     * level_power bits at level j are all zero, then the levels added in order */
    bool f32 = tensor__compute_dtype(dt) == TENSOR_FLOAT32;
#define NLL_R(v) (f32 ? (double)(float)(v) : (v))
    enum { LEVELS = 8 };
    double lsum[LEVELS] = {0}, wpart[LEVELS] = {0};
    int64_t ceil_log2 = 0;
    while (((int64_t)1 << ceil_log2) < N) ceil_log2++;
    int64_t level_power = ceil_log2 / LEVELS > 4 ? ceil_log2 / LEVELS : 4, level_mask = ((int64_t)1 << level_power) - 1;
    int64_t ignored = 0;
    for (int64_t i = 0; i < N; i++) {
        int64_t t = pt[i * ts];
        double l = 0.0;
        if (t == ignore_index) {
            ignored++;
        } else {
            if (t < 0 || t >= C) {
                tensor_decref(r);
                tensor_error_set(TENSOR_ERR_INDEX, "Target %lld is out of bounds.", (long long)t);
                return NULL;
            }
            double v = tensor__ld_d(dt, px + (size_t)(i * xs0 + t * xs1) * es);
            if (weight) {
                double w = tensor_get_f64(weight, &t);
                l = -NLL_R(v * w);
                lsum[0] = NLL_R(lsum[0] - NLL_R(v * w));
                wpart[0] = NLL_R(wpart[0] + w);
            } else {
                l = -v;
                lsum[0] = NLL_R(lsum[0] - v);
            }
            for (int j = 0; j + 1 < LEVELS; j++) {
                if ((i & (level_mask << (j * level_power))) != 0) break;
                wpart[j + 1] = NLL_R(wpart[j + 1] + wpart[j]);
                lsum[j + 1] = NLL_R(lsum[j + 1] + lsum[j]);
                wpart[j] = lsum[j] = 0;
            }
        }
        if (red == TENSOR_REDUCTION_NONE && x->ndim == 2) tensor__st_d(dt, pr + (size_t)i * es, l);
    }
    double sum = 0, wsum = 0;
    for (int j = 0; j < LEVELS; j++) {
        sum = NLL_R(sum + lsum[j]);
        wsum = NLL_R(wsum + wpart[j]);
    }
    if (!weight) wsum = (double)(N - ignored);
#undef NLL_R
    if (red == TENSOR_REDUCTION_SUM || (red == TENSOR_REDUCTION_NONE && x->ndim == 1))
        tensor__st_d(dt, pr, sum);
    else if (red == TENSOR_REDUCTION_MEAN)
        tensor__st_d(dt, pr, f32 ? (double)(float)(sum / wsum) : sum / wsum);
    if (total_weight) *total_weight = wsum;
    return r;
}

/* d loss / d input of nll_loss for a unit upstream gradient: -w[t] at each target position
 * (divided by the total weight for the mean), zeros elsewhere */
static Tensor *nll_grad_weights(const Tensor *target, const Tensor *weight, const TensorOpArgs *a) {
    TensorDtype dt = a->dtype == TENSOR_DTYPE_DEFAULT ? TENSOR_FLOAT32 : a->dtype;
    Tensor *W = tensor_zeros(dt, a->n_ints, a->ints);
    if (!W) return NULL;
    int64_t N = a->n_ints == 2 ? a->ints[0] : 1, C = a->n_ints ? a->ints[a->n_ints - 1] : 1;
    int64_t ts = target->ndim ? target->strides[0] : 0;
    const int64_t *pt = tensor__i64(target);
    double total = 0;
    for (int64_t i = 0; i < N; i++) {
        int64_t t = pt[i * ts];
        if (t == a->ignore_index || t < 0 || t >= C) continue;
        double w = weight ? tensor_get_f64(weight, &t) : 1.0;
        tensor__st_d(dt, tensor__data(W) + (size_t)(i * C + t) * tensor__elsize(dt), -w);
        total += w;
    }
    if (a->reduction == TENSOR_REDUCTION_MEAN && tensor_div_scalar_(W, tensor_scalar_f(total)) < 0) {
        tensor_decref(W);
        return NULL;
    }
    return W;
}

Tensor *tensor_nll_loss(const Tensor *logp, const Tensor *target, const Tensor *weight, TensorReduction reduction,
                        int64_t ignore_index) {
    return tensor__nll_loss(logp, target, weight, reduction, ignore_index, NULL);
}

/* ---- mse_loss -------------------------------------------------------------------------------------- */

Tensor *tensor_mse_loss(const Tensor *a, const Tensor *b, TensorReduction reduction) {
    Tensor *d = tensor_sub(a, b);
    if (!d) return NULL;
    Tensor *sq = tensor_mul(d, d);
    tensor_decref(d);
    if (!sq || reduction == TENSOR_REDUCTION_NONE) return sq;
    Tensor *r = reduction == TENSOR_REDUCTION_SUM ? tensor_sum(sq) : tensor_mean(sq);
    tensor_decref(sq);
    return r;
}

/* ---- the nn ops' table entries (ops.def K columns) ------------------------------------------------ */

static int softmax_meta(const TensorMeta *x, int64_t dim, bool log_mode, TensorMeta *out) {
    TensorDtype fam;
    if (softmax_check(x, dim, log_mode, &fam) < 0) return -1;
    tensor__meta_contiguous(out, x->dtype, x->ndim, x->shape);
    return 1;
}
TENSOR_INFER(softmax) {
    (void)op, (void)n_in, (void)max_out;
    return softmax_meta(in[0], a->dim, false, out);
}
TENSOR_RUN1(softmax, tensor__softmax(in[0], a->dim, false))
TENSOR_INFER(log_softmax) {
    (void)op, (void)n_in, (void)max_out;
    return softmax_meta(in[0], a->dim, true, out);
}
TENSOR_RUN1(log_softmax, tensor__softmax(in[0], a->dim, true))

/* (input, weight?, bias?), ints=normalized_shape, eps */
TENSOR_INFER(layer_norm) {
    (void)op, (void)max_out;
    const TensorMeta *x = in[0];
    int64_t rows, cols;
    if (tensor__layer_norm_check(x, a->ints, a->n_ints, n_in > 1 ? in[1] : NULL, n_in > 2 ? in[2] : NULL, &rows, &cols) < 0)
        return -1;
    tensor__meta_contiguous(out, x->dtype, x->ndim, x->shape);
    return 1;
}
TENSOR_RUN1(layer_norm,
            tensor__layer_norm(in[0], a->ints, a->n_ints, n_in > 1 ? in[1] : NULL, n_in > 2 ? in[2] : NULL, a->eps, NULL, NULL))

/* (weight, indices) */
TENSOR_INFER(embedding) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    const TensorMeta *x = in[0];
    if (tensor__embedding_check(x, in[1]) < 0) return -1;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, in[1]->shape, sizeof(int64_t) * (size_t)in[1]->ndim);
    shape[in[1]->ndim] = x->shape[1];
    tensor__meta_contiguous(out, x->dtype, in[1]->ndim + 1, shape);
    return 1;
}
TENSOR_RUN1(embedding, tensor_embedding(in[0], in[1], a->padding_idx))

TENSOR_INFER(dropout) {
    (void)op, (void)n_in, (void)max_out;
    if (tensor__dropout_check(a->p) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}
TENSOR_RUN1(dropout, tensor__dropout(in[0], a->p, a->train, NULL))

/* -> (dropout(x), its mask) */
TENSOR_INFER(native_dropout) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (tensor__dropout_check(a->p) < 0) return -1;
    tensor__meta_contiguous(&out[0], x->dtype, x->ndim, x->shape);
    tensor__meta_contiguous(&out[1], x->dtype, x->ndim, x->shape);
    return 2;
}
TENSOR_RUN(native_dropout) {
    (void)op, (void)n_in, (void)n_out;
    Tensor *mask = NULL;
    Tensor *r = tensor__dropout(in[0], a->p, a->train, &mask);
    if (!r) return -1;
    if (!mask && !(mask = tensor_ones_like(in[0]))) {
        tensor_decref(r);
        return -1;
    }
    out[0] = r;
    out[1] = mask;
    return 2;
}

/* (target, weight?), ints=input's shape */
TENSOR_INFER(nll_loss_grad_weights) {
    (void)op, (void)n_in, (void)max_out;
    if (in[0]->dtype != TENSOR_INT64 || a->n_ints < 1 || a->n_ints > 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_nll_loss_grad_weights: expected an int64 target and a 1-D or 2-D input shape");
        return -1;
    }
    tensor__meta_contiguous(out, a->dtype == TENSOR_DTYPE_DEFAULT ? TENSOR_FLOAT32 : a->dtype, a->n_ints, a->ints);
    return 1;
}
TENSOR_RUN1(nll_loss_grad_weights, nll_grad_weights(in[0], n_in > 1 ? in[1] : NULL, a))

/* nll_loss and cross_entropy: (input, target, weight?) */
TENSOR_INFER(nll_loss) {
    (void)op, (void)max_out;
    if (tensor__nll_check(in[0], in[1], n_in > 2 ? in[2] : NULL, a->reduction, out) < 0) return -1;
    return 1;
}
TENSOR_RUN1(nll_loss, tensor__nll_loss(in[0], in[1], n_in > 2 ? in[2] : NULL, a->reduction, a->ignore_index, NULL))

TENSOR_INFER(mse_loss) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    int nd;
    int64_t shape[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(x->ndim, x->shape, in[1]->ndim, in[1]->shape, &nd, shape) < 0) return -1;
    TensorDtype dt = tensor__promote(x->dtype, in[1]->dtype);
    if (a->reduction == TENSOR_REDUCTION_NONE)
        tensor__meta_contiguous(out, dt, nd, shape);
    else
        tensor__meta_contiguous(out, dt, 0, NULL);
    return 1;
}
TENSOR_RUN1(mse_loss, tensor_mse_loss(in[0], in[1], a->reduction))
