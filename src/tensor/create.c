/* create.c — tensor factories: empty/zeros/ones/full, from data or foreign memory, arange,
 * linspace, eye and the *_like forms. */
#include "src/tensor/tensor.h"

#include <math.h>

Tensor *tensor_empty(TensorDtype dt, int ndim, const int64_t *shape) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    return tensor__new(dt, ndim, shape, false);
}

Tensor *tensor_empty_strided(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    int64_t extent = tensor__extent(ndim, shape, strides);
    Tensor *t = tensor__new(dt, 1, &extent, false);
    if (!t) return NULL;
    tensor__set_geometry(t, ndim, shape, strides);
    return t;
}

Tensor *tensor_empty_meta(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    if (tensor__check_shape(ndim, shape) < 0) return NULL;
    int64_t contiguous[TENSOR_MAX_DIMS];
    if (!strides) {
        tensor__compute_contiguous_strides(ndim, shape, contiguous);
        strides = contiguous;
    }
    Tensor *t = tensor__alloc_struct();
    TensorStorage *s = t ? tensor__storage_new_meta((size_t)tensor__extent(ndim, shape, strides) * tensor__elsize(dt)) : NULL;
    if (!s) {
        if (t) tensor_decref(t);
        tensor__oom();
        return NULL;
    }
    t->storage = s;
    t->dtype = (uint8_t)dt;
    tensor__set_geometry(t, ndim, shape, strides);
    return t;
}

Tensor *tensor_zeros(TensorDtype dt, int ndim, const int64_t *shape) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    return tensor__new(dt, ndim, shape, true);
}

Tensor *tensor_full(TensorDtype dt, int ndim, const int64_t *shape, TensorScalar value) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = value.kind == TENSOR_FLOAT32 ? tensor_default_dtype() : value.kind;
    Tensor *t = tensor__new(dt, ndim, shape, false);
    if (t) tensor__fill_raw(t, value);
    return t;
}

Tensor *tensor_ones(TensorDtype dt, int ndim, const int64_t *shape) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    return tensor_full(dt, ndim, shape, tensor_scalar_i(1));
}

Tensor *tensor_from_data(TensorDtype dt, int ndim, const int64_t *shape, const void *data) {
    Tensor *t = tensor__new(dt, ndim, shape, false);
    if (t && t->numel) memcpy(t->storage->data, data, (size_t)t->numel * tensor__elsize(dt));
    return t;
}

Tensor *tensor_from_f32(int ndim, const int64_t *shape, const float *data) {
    return tensor_from_data(TENSOR_FLOAT32, ndim, shape, data);
}

Tensor *tensor_from_i64(int ndim, const int64_t *shape, const int64_t *data) {
    return tensor_from_data(TENSOR_INT64, ndim, shape, data);
}

Tensor *tensor_from_blob(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides, void *data,
                         void (*release)(void *ctx), void *ctx) {
    if (ndim > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return NULL;
    }
    TensorStorage *s = malloc(sizeof *s);
    Tensor *t = s ? tensor__alloc_struct() : NULL;
    if (!t) {
        free(s);
        tensor__oom();
        return NULL;
    }
    s->refcount = 1;
    s->external = true;
    s->meta = false;
    s->shared = 0;
    s->sliced = false;
    s->data = data;
    s->nbytes = (size_t)tensor__shape_numel(ndim, shape) * tensor__elsize(dt);
    s->release = release;
    s->release_ctx = ctx;
    t->storage = s;
    t->dtype = (uint8_t)dt;
    tensor__set_geometry(t, ndim, shape, strides);
    return t;
}

static bool scalar_is_float(TensorScalar s) { return s.kind == TENSOR_FLOAT32; }
static double scalar_f(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

Tensor *tensor_arange(TensorScalar start, TensorScalar end, TensorScalar step, TensorDtype dt) {
    if (dt == TENSOR_DTYPE_DEFAULT)
        dt = (scalar_is_float(start) || scalar_is_float(end) || scalar_is_float(step)) ? tensor_default_dtype() : TENSOR_INT64;
    double s = scalar_f(start), e = scalar_f(end), st = scalar_f(step);
    if (st == 0.0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if ((st > 0 && e < s) || (st < 0 && e > s)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    if (dt == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"arange_cpu\" not implemented for 'Bool'");
        return NULL;
    }
    int64_t n = (int64_t)ceil((e - s) / st);
    if (n < 0) n = 0;
    Tensor *t = tensor__new(dt, 1, &n, false);
    if (!t) return NULL;
    char *p = tensor__data(t);
    size_t es = tensor__elsize(dt);
    if (dt == TENSOR_FLOAT32) {
        float *f = tensor__f32(t);
        for (int64_t i = 0; i < n; i++) f[i] = (float)(s + st * (double)i);
    } else if (tensor__is_float(dt)) {
        /* ATen computes start + step * i in the accumulate type (double for float64, float for
         * the half types) */
        for (int64_t i = 0; i < n; i++)
            tensor__st_d(dt, p + (size_t)i * es, dt == TENSOR_FLOAT64 ? s + st * (double)i : (double)(float)(s + st * (double)i));
    } else {
        bool ints = !scalar_is_float(start) && !scalar_is_float(step);
        for (int64_t i = 0; i < n; i++)
            tensor__st_i(dt, p + (size_t)i * es, ints ? start.i + step.i * i : tensor__f2i64(s + st * (double)i));
    }
    return t;
}

Tensor *tensor_arange_f(double start, double end, double step) {
    return tensor_arange(tensor_scalar_f(start), tensor_scalar_f(end), tensor_scalar_f(step), TENSOR_FLOAT32);
}

/* linspace's values as ATen 1.13's CPU kernel computes them (RangeFactoriesKernel.cpp, built
 * with FMA, whose contractions GCC makes): in runs of two vectors of L lanes (8 floats, 4
 * doubles), each vector from a base, start + step * i for a vector starting before the halfway
 * point and end - step * (steps - i - 1) after it (one fused multiply-add each), lane k being
 * base + k * step (Vectorized::arange: rounded product, then the add); the elements after the last whole run one at a time, from the
 * start or the end by their own index.  So the last value is exactly end. */
#define LINSPACE_FN(NAME, T, L, FMA)                                                                 \
    static void NAME(T *p, int64_t steps, T start, T end, T step) {                                  \
        int64_t half = steps / 2, nvec = steps / (2 * L) * (2 * L);                                  \
        for (int64_t i = 0; i < nvec; i += L) {                                                      \
            T base = i < half ? FMA(step, (T)i, start) : FMA(-step, (T)(steps - i - 1), end);         \
            p[i] = base;                                                                             \
            p[i + 1] = base + step;                                                                  \
            for (int k = 2; k < L; k++) p[i + k] = base + (T)k * step;                               \
        }                                                                                            \
        for (int64_t i = nvec; i < steps; i++)                                                       \
            p[i] = i < half ? FMA(step, (T)i, start) : FMA(-step, (T)(steps - 1 - i), end);           \
    }
LINSPACE_FN(linspace_f32, float, 8, fmaf)
LINSPACE_FN(linspace_f64, double, 4, fma)
#undef LINSPACE_FN

Tensor *tensor_linspace(double start, double end, int64_t steps, TensorDtype dt) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    if (steps < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    if (dt == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"linspace_cpu\" not implemented for 'Bool'");
        return NULL;
    }
    Tensor *t = tensor__new(dt, 1, &steps, false);
    if (!t) return NULL;
    char *p = tensor__data(t);
    size_t es = tensor__elsize(dt);
    if (steps == 1) {
        tensor__st_d(dt, p, start);
    } else if (steps > 1 && dt == TENSOR_FLOAT64) {
        double step = (end - start) / (double)(steps - 1);
        linspace_f64((double *)p, steps, start, end, step);
    } else if (steps > 1 && tensor__is_float(dt)) {
        float fs = (float)start, fe = (float)end;
        float step = (fe - fs) / (float)(steps - 1);
        if (dt == TENSOR_FLOAT32) {
            linspace_f32((float *)p, steps, fs, fe, step);
        } else {
            /* half / bfloat16: each value in float, rounded on store */
            for (int64_t i = 0; i < steps; i++)
                tensor__st_d(dt, p + (size_t)i * es, i < steps / 2 ? fmaf(step, (float)i, fs) : fmaf(-step, (float)(steps - 1 - i), fe));
        }
    } else if (steps > 1) {
        /* integers: ATen's kernel computes in double (the same runs, whole vectors of 32 / L
         * lanes: 4 int64, 8 int32, 16 int16, 32 int8 / uint8), each value truncated on store */
        double step = (end - start) / (double)(steps - 1);
        int64_t L = 32 / (int64_t)es, half = steps / 2, nvec = steps / (2 * L) * (2 * L);
        for (int64_t i = 0; i < nvec; i += L) {
            int64_t base = (int64_t)(i < half ? fma(step, (double)i, start) : fma(-step, (double)(steps - i - 1), end));
            for (int64_t k = 0; k < L; k++) tensor__st_i(dt, p + (size_t)(i + k) * es, (int64_t)((double)base + (double)k * step));
        }
        for (int64_t i = nvec; i < steps; i++)
            tensor__st_i(dt, p + (size_t)i * es,
                         (int64_t)(i < half ? fma(step, (double)i, start) : fma(-step, (double)(steps - 1 - i), end)));
    }
    return t;
}

Tensor *tensor_eye(int64_t n, int64_t m, TensorDtype dt) {
    if (m < 0) m = n;
    if (n < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "n must be greater or equal to 0, got %lld", (long long)n);
        return NULL;
    }
    int64_t shape[2] = {n, m};
    Tensor *t = tensor_zeros(dt, 2, shape);
    if (!t) return NULL;
    int64_t k = n < m ? n : m;
    char *p = t->storage->data;
    size_t es = tensor__elsize((TensorDtype)t->dtype);
    for (int64_t i = 0; i < k; i++) tensor__st_i((TensorDtype)t->dtype, p + (size_t)(i * m + i) * es, 1);
    return t;
}

Tensor *tensor_zeros_like(const Tensor *t) { return tensor_zeros((TensorDtype)t->dtype, t->ndim, t->shape); }
Tensor *tensor_ones_like(const Tensor *t) { return tensor_ones((TensorDtype)t->dtype, t->ndim, t->shape); }
Tensor *tensor_full_like(const Tensor *t, TensorScalar v) { return tensor_full((TensorDtype)t->dtype, t->ndim, t->shape, v); }
Tensor *tensor_empty_like(const Tensor *t) { return tensor__new((TensorDtype)t->dtype, t->ndim, t->shape, false); }
