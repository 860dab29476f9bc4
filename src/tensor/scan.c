/* scan.c — scans along one dim, each output element depending on the elements before it:
 * cumprod, cummax / cummin (values and the index of the extremum so far), logcumsumexp, and
 * cumprod's backward kernel.  Like ATen's CPU cum kernels they work line by line over a
 * contiguous copy and accumulate floating dtypes in double (acc_type), integers in int64.
 *
 * cumprod's backward is a kernel of its own (an op of the table, so compiled backward graphs
 * record it): for one line x with gradient g,
 *     grad_x[k] = prod(x[:k]) * S[k],   S[n-1] = g[n-1],   S[k] = g[k] + x[k+1] * S[k+1]
 * which is exact in the presence of zeros (no division by x), in O(n) per line. */
#include "src/tensor/scan.h"

#include <math.h>
#include <string.h>

#include "src/tensor/dtype.h"

static int64_t along(const TensorMeta *x, int64_t dim) { return tensor__wrap_dim(dim, x->ndim ? x->ndim : 1); }

int tensor__infer_scan(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)n;
    (void)max;
    const TensorMeta *x = in[0];
    switch (op) {
    case TENSOR_OP_CUMPROD: {
        if (along(x, a->dim) < 0) return -1;
        TensorDtype dt = a->dtype != TENSOR_DTYPE_DEFAULT ? a->dtype : tensor__is_float(x->dtype) ? x->dtype : TENSOR_INT64;
        tensor__meta_contiguous(o, dt, x->ndim, x->shape);
        return 1;
    }
    case TENSOR_OP_CUMPROD_BACKWARD: {
        const TensorMeta *self = in[1];
        if (along(self, a->dim) < 0) return -1;
        if (x->ndim != self->ndim || memcmp(x->shape, self->shape, sizeof(int64_t) * (size_t)x->ndim) != 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "_cumprod_backward: grad and input shapes differ");
            return -1;
        }
        tensor__meta_contiguous(o, self->dtype, self->ndim, self->shape);
        return 1;
    }
    case TENSOR_OP_CUMMAX: case TENSOR_OP_CUMMIN:
        if (along(x, a->dim) < 0) return -1;
        tensor__meta_contiguous(&o[0], x->dtype, x->ndim, x->shape);
        tensor__meta_contiguous(&o[1], TENSOR_INT64, x->ndim, x->shape);
        return 2;
    case TENSOR_OP_LOGCUMSUMEXP:
        if (along(x, a->dim) < 0) return -1;
        if (!tensor__is_float(x->dtype)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"logcumsumexp_out_cpu\" not implemented for '%s'",
                             tensor__cname(x->dtype));
            return -1;
        }
        tensor__meta_contiguous(o, x->dtype, x->ndim, x->shape);
        return 1;
    default: break;
    }
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a scan op", tensor_op_name(op));
    return -1;
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

static void cumprod(const Tensor *x, int64_t d, Tensor *r) {
    TensorDtype xt = (TensorDtype)x->dtype, rt = (TensorDtype)r->dtype;
    size_t xs = tensor__elsize(xt), rs = tensor__elsize(rt);
    bool fl = tensor__is_float(rt);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
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

static void cumprod_backward(const Tensor *g, const Tensor *x, int64_t d, Tensor *r) {
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
static void cumextreme(const Tensor *x, int64_t d, Tensor *vals, Tensor *idx, bool max) {
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

static void logcumsumexp(const Tensor *x, int64_t d, Tensor *r) {
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

int tensor__run_scan(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_out;
    TensorMeta m[2], xm[2];
    const TensorMeta *mi[2];
    for (int i = 0; i < n && i < 2; i++) {
        tensor_meta_of(in[i], &xm[i]);
        mi[i] = &xm[i];
    }
    int no = tensor__infer_scan(op, mi, n, a, m, 2);
    if (no < 0) return -1;
    Tensor *x = tensor_contiguous(in[0]), *y = n > 1 ? tensor_contiguous(in[1]) : NULL;
    Tensor *r0 = NULL, *r1 = NULL;
    int rc = -1;
    if (!x || (n > 1 && !y)) goto done;
    r0 = tensor__new_from_meta(&m[0], false);
    r1 = no > 1 ? tensor__new_from_meta(&m[1], false) : NULL;
    if (!r0 || (no > 1 && !r1)) goto done;
    int64_t d = along(n > 1 ? &xm[1] : &xm[0], a->dim);
    switch (op) {
    case TENSOR_OP_CUMPROD: cumprod(x, d, r0); break;
    case TENSOR_OP_CUMPROD_BACKWARD: cumprod_backward(x, y, d, r0); break;
    case TENSOR_OP_CUMMAX: case TENSOR_OP_CUMMIN: cumextreme(x, d, r0, r1, op == TENSOR_OP_CUMMAX); break;
    case TENSOR_OP_LOGCUMSUMEXP: logcumsumexp(x, d, r0); break;
    default: goto done;
    }
    rc = no;
done:
    tensor_decref(x);
    tensor_decref(y);
    if (rc < 0) {
        tensor_decref(r0);
        tensor_decref(r1);
        return -1;
    }
    out[0] = r0;
    if (no > 1) out[1] = r1;
    return no;
}
