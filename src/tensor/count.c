/* count.c — ops that count elements: nonzero (coordinates of the non-zero elements), bincount
 * (occurrences of each non-negative integer, optionally weighted) and histc (a histogram over
 * equal-width bins), with ATen's checks and messages.  nonzero and bincount have data-dependent
 * output shapes: their shape inference refuses (a compiled graph breaks there, as dynamo's do);
 * histc's shape is its bin count. */
#include "src/tensor/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_integral(TensorDtype d) { return tensor__is_intlike(d) && d != TENSOR_BOOL; }

static double num(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* the checks ATen makes before looking at the data */
static int check_bincount(const TensorMeta *const *in, int n, const TensorOpArgs *a) {
    const TensorMeta *x = in[0];
    if (x->ndim != 1 || !is_integral(x->dtype)) {
        if (x->ndim == 1 && tensor__is_float(x->dtype))
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"bincount_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "bincount only supports 1-d non-negative integral inputs.");
        return -1;
    }
    if (a->start < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "minlength should be >= 0");
        return -1;
    }
    const TensorMeta *w = n > 1 ? in[1] : NULL;
    if (w && (w->ndim != 1 || w->shape[0] != x->shape[0])) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "weights should be 1-d and have the same length as input");
        return -1;
    }
    return 0;
}

static int check_histc(const TensorMeta *x, const TensorOpArgs *a) {
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"histogram_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    if (a->start <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "torch.histogram(): bins must be > 0, but got %lld for dimension 0", (long long)a->start);
        return -1;
    }
    double lo = num(a->scalar), hi = num(a->scalar2);
    if (lo > hi) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "torch.histc: max must be larger than min");
        return -1;
    }
    if (isinf(lo) || isinf(hi) || isnan(lo) || isnan(hi)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "torch.histc: range of [%g, %g] is not finite", lo, hi);
        return -1;
    }
    return 0;
}

TENSOR_INFER(nonzero) {
    (void)op, (void)in, (void)n_in, (void)a, (void)out, (void)max_out;
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "nonzero has a data-dependent output shape");
    return -1;
}

TENSOR_INFER(bincount) {
    (void)op, (void)out, (void)max_out;
    if (check_bincount(in, n_in, a) < 0) return -1;
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "bincount has a data-dependent output shape");
    return -1;
}

TENSOR_INFER(histc) {
    (void)op, (void)n_in, (void)max_out;
    if (check_histc(in[0], a) < 0) return -1;
    int64_t bins = a->start;
    tensor__meta_contiguous(out, in[0]->dtype, 1, &bins);
    return 1;
}

/* (nnz, ndim) int64 coordinates in row-major order */
static Tensor *nonzero(const Tensor *x) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    const char *p = tensor__data(x);
    bool fl = tensor__is_float(dt);
    int64_t nnz = 0;
    for (int64_t i = 0; i < x->numel; i++) {
        const char *e = p + (size_t)i * es;
        nnz += fl ? tensor__ld_d(dt, e) != 0 : tensor__ld_i(dt, e) != 0;
    }
    int64_t shape[2] = {nnz, x->ndim};
    Tensor *r = tensor__new(TENSOR_INT64, 2, shape, false);
    if (!r) return NULL;
    int64_t *out = tensor__i64(r), idx[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < x->numel; i++) {
        const char *e = p + (size_t)i * es;
        if (fl ? tensor__ld_d(dt, e) != 0 : tensor__ld_i(dt, e) != 0) {
            memcpy(out, idx, sizeof(int64_t) * (size_t)x->ndim);
            out += x->ndim;
        }
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
    return r;
}

static Tensor *bincount(const Tensor *x, const Tensor *w, int64_t minlength) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    const char *p = tensor__data(x);
    int64_t n = x->numel, top = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tensor__ld_i(dt, p + (size_t)i * es);
        if (v < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "bincount only supports 1-d non-negative integral inputs.");
            return NULL;
        }
        if (v > top) top = v;
    }
    int64_t len = top + 1 > minlength ? top + 1 : minlength;
    /* ATen: float weights count in float, double and integral weights in double */
    TensorDtype rt = !w ? TENSOR_INT64 : w->dtype == TENSOR_FLOAT32 ? TENSOR_FLOAT32 : TENSOR_FLOAT64;
    Tensor *r = tensor__new(rt, 1, &len, true);
    if (!r) return NULL;
    TensorDtype wt = w ? (TensorDtype)w->dtype : TENSOR_INT64;
    size_t ws = tensor__elsize(wt);
    const char *wp = w ? tensor__data(w) : NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tensor__ld_i(dt, p + (size_t)i * es);
        if (!w) tensor__i64(r)[v]++;
        else if (rt == TENSOR_FLOAT32) tensor__f32(r)[v] += *(const float *)(wp + (size_t)i * ws);
        else ((double *)tensor__data(r))[v] += tensor__ld_d(wt, wp + (size_t)i * ws);
    }
    return r;
}

/* ATen's histogramdd with linear interpolation and a local search among the edges (which are
 * linspace(min, max, bins + 1) in the input's dtype); values outside [min, max] and NaN are skipped */
static Tensor *histc(const Tensor *x, int64_t bins, double lo, double hi) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    const char *p = tensor__data(x);
    if (lo == hi && x->numel > 0) {
        lo = INFINITY;
        hi = -INFINITY;
        for (int64_t i = 0; i < x->numel; i++) {
            double v = tensor__ld_d(dt, p + (size_t)i * es);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    }
    if (!isfinite(lo) || !isfinite(hi)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "torch.histc: range of [%g, %g] is not finite", lo, hi);
        return NULL;
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    Tensor *r = tensor__new(dt, 1, &bins, true);
    double *edges = malloc(sizeof(double) * (size_t)(bins + 1));
    double *cnt = calloc((size_t)bins, sizeof(double));
    if (!r || !edges || !cnt) {
        tensor_decref(r);
        free(edges);
        free(cnt);
        if (r) tensor__oom();
        return NULL;
    }
    bool f32 = dt != TENSOR_FLOAT64;
    int64_t ne = bins + 1;
    /* linspace as ATen computes it: from the start for the first half, from the end after */
    double step = (hi - lo) / (double)(ne - 1);
    float fstep = (float)(((float)hi - (float)lo) / (float)(ne - 1));
    for (int64_t i = 0; i < ne; i++) {
        if (f32) edges[i] = i < ne / 2 ? (float)lo + fstep * (float)i : (float)hi - fstep * (float)(ne - i - 1);
        else edges[i] = i < ne / 2 ? lo + step * (double)i : hi - step * (double)(ne - i - 1);
    }
    double left = edges[0], right = edges[ne - 1];
    for (int64_t i = 0; i < x->numel; i++) {
        double v = tensor__ld_d(dt, p + (size_t)i * es);
        if (!(v >= left && v <= right)) continue;
        int64_t pos = f32 ? (int64_t)(((float)v - (float)left) * (float)(ne - 1) / ((float)right - (float)left))
                          : (int64_t)((v - left) * (double)(ne - 1) / (right - left));
        int64_t pmin = pos - 1 > 0 ? pos - 1 : 0, pmax = pos + 2 < ne ? pos + 2 : ne;
        /* upper_bound over edges[pmin, pmax) */
        int64_t k = pmin;
        while (k < pmax && !(v < edges[k])) k++;
        pos = k - 1;
        if (pos == ne - 1) pos--;
        if (pos >= 0 && pos < bins) cnt[pos] += 1;
    }
    for (int64_t b = 0; b < bins; b++) tensor__st_d(dt, tensor__data(r) + (size_t)b * es, cnt[b]);
    free(edges);
    free(cnt);
    return r;
}

TENSOR_RUN(nonzero) {
    (void)op, (void)n_in, (void)n_out, (void)a;
    Tensor *x = tensor_contiguous(in[0]);
    if (!x) return -1;
    out[0] = nonzero(x);
    tensor_decref(x);
    return out[0] ? 1 : -1;
}

TENSOR_RUN(histc) {
    (void)op, (void)n_in, (void)n_out;
    TensorMeta mx;
    tensor_meta_of(in[0], &mx);
    if (check_histc(&mx, a) < 0) return -1;
    Tensor *x = tensor_contiguous(in[0]);
    if (!x) return -1;
    out[0] = histc(x, a->start, num(a->scalar), num(a->scalar2));
    tensor_decref(x);
    return out[0] ? 1 : -1;
}

TENSOR_RUN(bincount) {
    (void)op, (void)n_out;
    TensorMeta mx, mw;
    tensor_meta_of(in[0], &mx);
    bool has_w = n_in > 1 && in[1];
    if (has_w) tensor_meta_of(in[1], &mw);
    const TensorMeta *mi[2] = {&mx, has_w ? &mw : NULL};
    if (check_bincount(mi, has_w ? 2 : 1, a) < 0) return -1;
    Tensor *x = tensor_contiguous(in[0]), *w = has_w ? tensor_contiguous(in[1]) : NULL;
    out[0] = x && (!has_w || w) ? bincount(x, w, a->start) : NULL;
    tensor_decref(x);
    tensor_decref(w);
    return out[0] ? 1 : -1;
}
