/* tests/ffi/customop/test_ops.c — a custom-op library for the FFI tests (built by meson as
 * libember_test_ops.so): ops with one and several outputs, scalar arguments of every kind with
 * defaults, int64 outputs, a meta function that checks shapes, an op without a backward, and
 * a kernel that fails with a message.  Float32 only, contiguous inputs (as Ember passes them). */
#include <math.h>
#include <stddef.h>

#include "ember/custom_op.h"

static const EmOpRegistrar *reg;

static int same_shape(const EmTensor *a, const EmTensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

static void copy_meta(const EmTensor *from, EmTensor *to) {
    to->dtype = from->dtype;
    to->ndim = from->ndim;
    for (int d = 0; d < from->ndim; d++) to->shape[d] = from->shape[d];
}

static int need_float(const char *op, const EmTensor *t) {
    if (t->dtype == EM_FLOAT32) return 1;
    reg->set_error(reg, "test::%s: expected a float32 tensor", op);
    return 0;
}

/* ---- test::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor: alpha * x + y ---- */

static int scale_add_meta(const EmTensor *x, const EmTensor *y, double alpha, EmTensor *out) {
    (void)alpha;
    if (!same_shape(x, y)) {
        reg->set_error(reg, "test::scale_add: x and y must have the same shape");
        return 1;
    }
    if (!need_float("scale_add", x) || !need_float("scale_add", y)) return 1;
    copy_meta(x, out);
    return 0;
}

static int scale_add(const EmTensor *x, const EmTensor *y, double alpha, EmTensor *out) {
    const float *a = x->data, *b = y->data;
    float *o = out->data;
    for (int64_t i = 0; i < out->numel; i++) o[i] = (float)alpha * a[i] + b[i];
    return 0;
}

static int scale_add_backward(const EmTensor *gout, const EmTensor *x, const EmTensor *y, double alpha,
                              const EmTensor *out, EmTensor *gx, EmTensor *gy) {
    (void)x, (void)y, (void)out;
    const float *g = gout->data;
    float *px = gx->data, *py = gy->data;
    for (int64_t i = 0; i < gout->numel; i++) {
        px[i] = (float)alpha * g[i];
        py[i] = g[i];
    }
    return 0;
}

/* ---- test::sincos(Tensor x) -> (Tensor, Tensor) ---- */

static int sincos_fwd(const EmTensor *x, EmTensor *s, EmTensor *c) {
    if (!need_float("sincos", x)) return 1;
    const float *a = x->data;
    float *ps = s->data, *pc = c->data;
    for (int64_t i = 0; i < x->numel; i++) {
        ps[i] = sinf(a[i]);
        pc[i] = cosf(a[i]);
    }
    return 0;
}

static int sincos_backward(const EmTensor *gs, const EmTensor *gc, const EmTensor *x, const EmTensor *s,
                           const EmTensor *c, EmTensor *gx) {
    const float *g0 = gs->data, *g1 = gc->data, *ps = s->data, *pc = c->data;
    float *o = gx->data;
    for (int64_t i = 0; i < x->numel; i++) o[i] = g0[i] * pc[i] - g1[i] * ps[i];
    return 0;
}

/* ---- test::row_sum(Tensor x, bool keepdim=False) -> Tensor: sum over the last dim ---- */

static int row_sum_meta(const EmTensor *x, bool keepdim, EmTensor *out) {
    if (x->ndim < 1) {
        reg->set_error(reg, "test::row_sum: expected at least one dimension");
        return 1;
    }
    if (!need_float("row_sum", x)) return 1;
    copy_meta(x, out);
    if (keepdim) out->shape[x->ndim - 1] = 1;
    else out->ndim = x->ndim - 1;
    return 0;
}

static int row_sum(const EmTensor *x, bool keepdim, EmTensor *out) {
    (void)keepdim;
    int64_t n = x->shape[x->ndim - 1], rows = n ? x->numel / n : 0;
    const float *a = x->data;
    float *o = out->data;
    for (int64_t r = 0; r < rows; r++) {
        float s = 0;
        for (int64_t j = 0; j < n; j++) s += a[r * n + j];
        o[r] = s;
    }
    return 0;
}

static int row_sum_backward(const EmTensor *g, const EmTensor *x, bool keepdim, const EmTensor *out, EmTensor *gx) {
    (void)keepdim, (void)out;
    int64_t n = x->shape[x->ndim - 1], rows = n ? x->numel / n : 0;
    const float *pg = g->data;
    float *o = gx->data;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < n; j++) o[r * n + j] = pg[r];
    return 0;
}

/* ---- test::poly(Tensor x, int degree, float c=1.0) -> Tensor: c * x ** degree ---- */

static int poly(const EmTensor *x, int64_t degree, double c, EmTensor *out) {
    if (!need_float("poly", x)) return 1;
    if (degree < 0) {
        reg->set_error(reg, "test::poly: degree must be non-negative, got %lld", (long long)degree);
        return 1;
    }
    const float *a = x->data;
    float *o = out->data;
    for (int64_t i = 0; i < x->numel; i++) o[i] = (float)(c * pow(a[i], (double)degree));
    return 0;
}

static int poly_backward(const EmTensor *g, const EmTensor *x, int64_t degree, double c, const EmTensor *out,
                         EmTensor *gx) {
    (void)out;
    const float *pg = g->data, *a = x->data;
    float *o = gx->data;
    for (int64_t i = 0; i < x->numel; i++)
        o[i] = degree ? (float)(pg[i] * c * (double)degree * pow(a[i], (double)(degree - 1))) : 0.0f;
    return 0;
}

/* ---- test::count_above(Tensor x, float threshold) -> Tensor: an int64 0-dim count ---- */

static int count_above_meta(const EmTensor *x, double t, EmTensor *out) {
    (void)x, (void)t;
    out->dtype = EM_INT64;
    out->ndim = 0;
    return 0;
}

static int count_above(const EmTensor *x, double t, EmTensor *out) {
    if (!need_float("count_above", x)) return 1;
    const float *a = x->data;
    int64_t n = 0;
    for (int64_t i = 0; i < x->numel; i++) n += a[i] > t;
    *(int64_t *)out->data = n;
    return 0;
}

/* ---- test::double_it(Tensor x) -> Tensor: no backward kernel ---- */

static int double_it(const EmTensor *x, EmTensor *out) {
    if (!need_float("double_it", x)) return 1;
    const float *a = x->data;
    float *o = out->data;
    for (int64_t i = 0; i < x->numel; i++) o[i] = 2 * a[i];
    return 0;
}

/* ---- test::checked(Tensor x, int code) -> Tensor: fails when code != 0 ---- */

static int checked(const EmTensor *x, int64_t code, EmTensor *out) {
    (void)x, (void)out;
    if (code == 1) {
        reg->set_error(reg, "test::checked: the kernel was asked to fail (code %lld)", (long long)code);
        return 1;
    }
    return (int)code;   /* other codes fail without a message */
}

int ember_register_ops(const EmOpRegistrar *r) {
    reg = r;
    if (r->abi_version != EM_CUSTOM_OP_ABI_VERSION) return 1;
    static const EmOpDef defs[] = {
        {"test::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor", (void *)scale_add,
         (void *)scale_add_backward, (void *)scale_add_meta},
        {"test::sincos(Tensor x) -> (Tensor, Tensor)", (void *)sincos_fwd, (void *)sincos_backward, NULL},
        {"test::row_sum(Tensor x, bool keepdim=False) -> Tensor", (void *)row_sum, (void *)row_sum_backward,
         (void *)row_sum_meta},
        {"test::poly(Tensor x, int degree, float c=1.0) -> Tensor", (void *)poly, (void *)poly_backward, NULL},
        {"test::count_above(Tensor x, float threshold) -> Tensor", (void *)count_above, NULL, (void *)count_above_meta},
        {"test::double_it(Tensor x) -> Tensor", (void *)double_it, NULL, NULL},
        {"test::checked(Tensor x, int code) -> Tensor", (void *)checked, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (r->register_op(r, &defs[i]) != 0) return 1;
    return 0;
}
