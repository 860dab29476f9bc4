/* scan.c — scans along one dim, each output element depending on the elements before it:
 * cumprod, cummax / cummin (values and the index of the extremum so far), logcumsumexp, and
 * cumprod's backward kernel.  Like ATen's CPU cum kernels they work line by line over a
 * contiguous copy and accumulate floating dtypes in double (acc_type), integers in int64.
 *
 * cumprod's backward is a kernel of its own (an op of the table, so compiled backward graphs
 * record it): for one line x with gradient g,
 *     grad_x[k] = prod(x[:k]) * S[k],   S[n-1] = g[n-1],   S[k] = g[k] + x[k+1] * S[k+1]
 * which is exact in the presence of zeros (no division by x), in O(n) per line.  One kernel
 * entry per op (ops.def's K column): tensor__run_<op> / tensor__infer_<op>. */
#include <stdbool.h>

#include <math.h>
#include <string.h>

#include "src/tensor/dtype.h"
#include "src/tensor/kernels.h"
#include "src/tensor/scan_lines.h"

static int64_t along(const TensorMeta *x, int64_t dim) { return tensor__wrap_dim(dim, x->ndim ? x->ndim : 1); }

TENSOR_INFER(cumprod) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (along(x, a->dim) < 0) return -1;
    TensorDtype dt = a->dtype != TENSOR_DTYPE_DEFAULT ? a->dtype : tensor__is_float(x->dtype) ? x->dtype : TENSOR_INT64;
    tensor__meta_contiguous(out, dt, x->ndim, x->shape);
    return 1;
}

/* (grad, input): the input's dtype and shape */
TENSOR_INFER(cumprod_backward) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *g = in[0], *self = in[1];
    if (along(self, a->dim) < 0) return -1;
    if (g->ndim != self->ndim || memcmp(g->shape, self->shape, sizeof(int64_t) * (size_t)g->ndim) != 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_cumprod_backward: grad and input shapes differ");
        return -1;
    }
    tensor__meta_contiguous(out, self->dtype, self->ndim, self->shape);
    return 1;
}

/* cummax and cummin: (values, int64 indices) */
TENSOR_INFER(cummax) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (along(x, a->dim) < 0) return -1;
    tensor__meta_contiguous(&out[0], x->dtype, x->ndim, x->shape);
    tensor__meta_contiguous(&out[1], TENSOR_INT64, x->ndim, x->shape);
    return 2;
}

TENSOR_INFER(logcumsumexp) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (along(x, a->dim) < 0) return -1;
    if (!tensor__is_float(x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"logcumsumexp_out_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    tensor__meta_contiguous(out, x->dtype, x->ndim, x->shape);
    return 1;
}

/* outer x len x inner: the contiguous layout around dim d */
static void split_at(const Tensor *t, int64_t d, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    *len = t->ndim ? t->shape[d] : 1;
    for (int i = 0; i < d; i++) *outer *= t->shape[i];
    for (int i = (int)d + 1; i < t->ndim; i++) *inner *= t->shape[i];
}

#define FOR_LINES(t, d)                                                                         \
    int64_t outer, len, inner;                                                                  \
    split_at(t, d, &outer, &len, &inner);                                                       \
    for (int64_t o = 0; o < outer; o++)                                                         \
        for (int64_t in = 0; in < inner; in++)
#define AT(j) ((size_t)((o * len + (j)) * inner + in))

/* float32 into float32 / float64 into float64: src/tensor/scan_lines.h */
SCAN_LINES_TYPED(cumprod_f32, float, 1, *)
SCAN_LINES_TYPED(cumprod_f64, double, 1, *)

static void cumprod(Tensor *const *ins, int64_t d, Tensor **outs) {
    const Tensor *x = ins[0];
    Tensor *r = outs[0];
    TensorDtype xt = (TensorDtype)x->dtype, rt = (TensorDtype)r->dtype;
    size_t xs = tensor__elsize(xt), rs = tensor__elsize(rt);
    bool fl = tensor__is_float(rt);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
    if (xt == rt && (xt == TENSOR_FLOAT32 || xt == TENSOR_FLOAT64)) {
        int64_t outer, len, inner;
        split_at(x, d, &outer, &len, &inner);
        if (xt == TENSOR_FLOAT32 ? cumprod_f32((const float *)src, (float *)dst, outer, len, inner)
                                 : cumprod_f64((const double *)src, (double *)dst, outer, len, inner))
            return;
    }
    FOR_LINES(x, d) {
        double fa = 1;
        int64_t ia = 1;
        for (int64_t j = 0; j < len; j++) {
            size_t e = AT(j);
            if (fl) {
                fa *= tensor__ld_d(xt, src + e * xs);
                tensor__st_d(rt, dst + e * rs, fa);
            } else {
                ia = (int64_t)((uint64_t)ia * (uint64_t)tensor__ld_i(xt, src + e * xs));   /* wraps as ATen's */
                tensor__st_i(rt, dst + e * rs, ia);
            }
        }
    }
}

static void cumprod_backward(Tensor *const *ins, int64_t d, Tensor **outs) {
    const Tensor *g = ins[0], *x = ins[1];
    Tensor *r = outs[0];
    TensorDtype gt = (TensorDtype)g->dtype, xt = (TensorDtype)x->dtype, rt = (TensorDtype)r->dtype;
    size_t gs = tensor__elsize(gt), xs = tensor__elsize(xt), rs = tensor__elsize(rt);
    const char *gd = tensor__data(g), *xd = tensor__data(x);
    char *dst = tensor__data(r);
    FOR_LINES(x, d) {
        /* suffix pass: S[k] into the output, then the prefix products multiply it in */
        double s = 0;
        for (int64_t j = len - 1; j >= 0; j--) {
            double next = j + 1 < len ? tensor__ld_d(xt, xd + AT(j + 1) * xs) : 0;
            s = tensor__ld_d(gt, gd + AT(j) * gs) + next * s;
            tensor__st_d(rt, dst + AT(j) * rs, s);
        }
        double pre = 1;
        for (int64_t j = 0; j < len; j++) {
            size_t e = AT(j);
            /* past the first zero every gradient is an exact +0, as ATen's */
            tensor__st_d(rt, dst + e * rs, pre == 0 ? 0.0 : pre * tensor__ld_d(rt, dst + e * rs));
            pre *= tensor__ld_d(xt, xd + e * xs);
        }
    }
}

/* ATen's cummax_cummin_helper: a NaN becomes (and stays) the extremum; ties move the index on */
static void cumextreme(Tensor *const *ins, int64_t d, Tensor **outs, bool max) {
    const Tensor *x = ins[0];
    Tensor *vals = outs[0], *idx = outs[1];
    TensorDtype xt = (TensorDtype)x->dtype;
    size_t xs = tensor__elsize(xt);
    bool fl = tensor__is_float(xt);
    const char *src = tensor__data(x);
    char *vd = tensor__data(vals);
    int64_t *id = (int64_t *)tensor__data(idx);
    FOR_LINES(x, d) {
        double fbest = 0;
        int64_t ibest = 0, at = 0;
        for (int64_t j = 0; j < len; j++) {
            size_t e = AT(j);
            if (fl) {
                double v = tensor__ld_d(xt, src + e * xs);
                if (j == 0 || isnan(v) || (!isnan(fbest) && (max ? v >= fbest : v <= fbest))) {
                    fbest = v;
                    at = j;
                }
            } else {
                int64_t v = tensor__ld_i(xt, src + e * xs);
                if (j == 0 || (max ? v >= ibest : v <= ibest)) {
                    ibest = v;
                    at = j;
                }
            }
            memcpy(vd + e * xs, src + ((size_t)((o * len + at) * inner + in)) * xs, xs);
            id[e] = at;
        }
    }
}

/* ATen's _log_add_exp_helper: max + log1p(exp(min - max)), keeping infinities exact */
static double log_add_exp(double x, double y) {
    double lo = isnan(y) ? y : (x < y ? x : y), hi = isnan(y) ? y : (x < y ? y : x);
    if (lo != hi || isfinite(lo)) return hi + log1p(exp(lo - hi));
    return x;
}

static void logcumsumexp(Tensor *const *ins, int64_t d, Tensor **outs) {
    const Tensor *x = ins[0];
    Tensor *r = outs[0];
    TensorDtype xt = (TensorDtype)x->dtype;
    size_t xs = tensor__elsize(xt);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
    FOR_LINES(x, d) {
        double acc = -INFINITY;
        for (int64_t j = 0; j < len; j++) {
            size_t e = AT(j);
            acc = log_add_exp(tensor__ld_d(xt, src + e * xs), acc);
            tensor__st_d(xt, dst + e * xs, acc);
        }
    }
}

static void cummax(Tensor *const *xs, int64_t d, Tensor **rs) { cumextreme(xs, d, rs, true); }
static void cummin(Tensor *const *xs, int64_t d, Tensor **rs) { cumextreme(xs, d, rs, false); }

typedef void (*ScanKernel)(Tensor *const *in, int64_t d, Tensor **out);

/* infer, contiguous inputs, fresh outputs, the kernel along the wrapped dim */
static int run_scan(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, TensorInferFn infer,
                    ScanKernel k) {
    TensorMeta m[2], xm[2];
    const TensorMeta *mi[2] = {NULL, NULL};
    for (int i = 0; i < n && i < 2; i++) {
        tensor_meta_of(in[i], &xm[i]);
        mi[i] = &xm[i];
    }
    int no = infer(op, mi, n, a, m, 2);
    if (no < 0) return -1;
    Tensor *x[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
    int rc = -1;
    for (int i = 0; i < n && i < 2; i++)
        if (!(x[i] = tensor_contiguous(in[i]))) goto done;
    for (int i = 0; i < no; i++)
        if (!(r[i] = tensor__new_from_meta(&m[i], false))) goto done;
    k(x, along(&xm[0], a->dim), r);
    for (int i = 0; i < no; i++) {
        out[i] = r[i];
        r[i] = NULL;
    }
    rc = no;
done:
    for (int i = 0; i < 2; i++) {
        tensor_decref(x[i]);
        tensor_decref(r[i]);
    }
    return rc;
}

TENSOR_RUN(cumprod) { (void)n_out; return run_scan(op, in, n_in, a, out, tensor__infer_cumprod, cumprod); }
TENSOR_RUN(cumprod_backward) {
    (void)n_out;
    return run_scan(op, in, n_in, a, out, tensor__infer_cumprod_backward, cumprod_backward);
}
TENSOR_RUN(cummax) { (void)n_out; return run_scan(op, in, n_in, a, out, tensor__infer_cummax, cummax); }
TENSOR_RUN(cummin) { (void)n_out; return run_scan(op, in, n_in, a, out, tensor__infer_cummax, cummin); }
TENSOR_RUN(logcumsumexp) { (void)n_out; return run_scan(op, in, n_in, a, out, tensor__infer_logcumsumexp, logcumsumexp); }
