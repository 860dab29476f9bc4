/* create_ops.c — the op-table entries (ops.def K columns) of the creation ops (empty, zeros, ...,
 * the *_like forms, bernoulli) and of the non-elementwise in-place ops (zero_, fill_, copy_,
 * normal_, uniform_): each op's output metadata and the kernel of create.c / random.c it runs. */
#include <math.h>

#include "src/tensor/kernels.h"

static double sf(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

static int one(Tensor *r, Tensor **out) {
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- output metadata ----------------------------------------------------------------------------- */

/* a shape given as args.ints, of dtype args.dtype or dflt */
static int shape_meta(const TensorOpArgs *a, TensorDtype dflt, TensorMeta *o) {
    if (a->n_ints > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < a->n_ints; i++)
        if (a->ints[i] < 0) {
            char b[256];
            tensor__format_shape(b, sizeof b, a->n_ints, a->ints);
            tensor_error_set(TENSOR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s", (long long)a->ints[i], b);
            return -1;
        }
    tensor__meta_contiguous(o, a->dtype == TENSOR_DTYPE_DEFAULT ? dflt : a->dtype, a->n_ints, a->ints);
    return 1;
}

/* empty, zeros, ones, rand, randn: the default float dtype */
int tensor__infer_shape(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    return shape_meta(a, tensor_default_dtype(), o);
}

/* full: the fill value's dtype (a float: the default float) */
int tensor__infer_full(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    return shape_meta(a, a->scalar.kind == TENSOR_FLOAT32 ? tensor_default_dtype() : a->scalar.kind, o);
}

int tensor__infer_randint(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    return shape_meta(a, TENSOR_INT64, o);
}

int tensor__infer_arange(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    TensorDtype dt = a->dtype;
    if (dt == TENSOR_DTYPE_DEFAULT)
        dt = (a->scalar.kind == TENSOR_FLOAT32 || a->scalar2.kind == TENSOR_FLOAT32 || a->alpha.kind == TENSOR_FLOAT32)
                 ? tensor_default_dtype()
                 : TENSOR_INT64;
    double s = sf(a->scalar), e = sf(a->scalar2), st = sf(a->alpha);
    if (st == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "step must be nonzero");
        return -1;
    }
    if ((st > 0 && e < s) || (st < 0 && e > s)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return -1;
    }
    int64_t n = (int64_t)ceil((e - s) / st);
    tensor__meta_contiguous(o, dt, 1, &n);
    return 1;
}

int tensor__infer_linspace(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    if (a->step < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "number of steps must be non-negative");
        return -1;
    }
    tensor__meta_contiguous(o, a->dtype == TENSOR_DTYPE_DEFAULT ? tensor_default_dtype() : a->dtype, 1, &a->step);
    return 1;
}

int tensor__infer_eye(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)in, (void)n_in, (void)max;
    int64_t shape[2] = {a->start, (a->end < 0 || a->end == INT64_MAX) ? a->start : a->end};
    if (a->start < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "n must be greater or equal to 0, got %lld", (long long)a->start);
        return -1;
    }
    tensor__meta_contiguous(o, a->dtype == TENSOR_DTYPE_DEFAULT ? tensor_default_dtype() : a->dtype, 2, shape);
    return 1;
}

/* the *_like ops and bernoulli: input 0's shape, its dtype unless args.dtype says otherwise, laid
 * out in args.memory_format (Python's *_like default: preserve; bernoulli: contiguous) */
int tensor__infer_like(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)max;
    const TensorMeta *x = in[0];
    tensor__meta_contiguous(o, a->dtype == TENSOR_DTYPE_DEFAULT ? x->dtype : a->dtype, x->ndim, x->shape);
    if (tensor_memory_format_strides((TensorMemoryFormat)a->memory_format, x->ndim, x->shape, x->strides, o->strides) < 0)
        return -1;
    return 1;
}

/* ---- kernels ------------------------------------------------------------------------------------- */

/* The output metadata of creation op `op` through its own table entry. */
static int out_meta(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o) {
    TensorMeta mi;
    const TensorMeta *pm = &mi;
    if (in && n_in > 0 && in[0]) tensor_meta_of(in[0], &mi);
    return tensor_op_infer(op, &pm, n_in, a, o, 1);
}

/* A *_like op laid out other than contiguously is ATen's empty_like(self, memory_format) and then
 * the in-place fill FILL (on the new tensor r), so the random ones draw in the order, and through
 * the strided kernels, PyTorch uses for such a tensor.  The ops whose metadata is always
 * contiguous (arange, eye, bernoulli, ...) never get there. */
static int never_strided(void) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "internal: a strided output for a factory that has none");
    return -1;
}

static Tensor *filled(Tensor *r, int rc) {
    if (r && rc < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

#define CREATE(NAME, EXPR, FILL)                                                                                       \
    int tensor__run_##NAME(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) { \
        (void)n_out;                                                                                                   \
        TensorMeta o;                                                                                                  \
        if (out_meta(op, in, n_in, a, &o) < 0) return -1;                                                              \
        if (!tensor__strides_are_contiguous(o.ndim, o.shape, o.strides)) {                                             \
            Tensor *r = tensor_empty_strided(o.dtype, o.ndim, o.shape, o.strides);                                     \
            return one(r ? filled(r, FILL) : NULL, out);                                                               \
        }                                                                                                              \
        return one(EXPR, out);                                                                                         \
    }

static int64_t si(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? (int64_t)s.f : s.i; }

CREATE(empty, tensor_empty(o.dtype, o.ndim, o.shape), 0)
CREATE(zeros, tensor_zeros(o.dtype, o.ndim, o.shape), tensor_zero_(r))
CREATE(ones, tensor_ones(o.dtype, o.ndim, o.shape), tensor_fill_(r, tensor_scalar_i(1)))
CREATE(full, tensor_full(o.dtype, o.ndim, o.shape, a->scalar), tensor_fill_(r, a->scalar))
CREATE(arange, tensor_arange(a->scalar, a->scalar2, a->alpha, a->dtype), never_strided())
CREATE(linspace, tensor_linspace(sf(a->scalar), sf(a->scalar2), a->step, o.dtype), never_strided())
CREATE(eye, tensor_eye(o.shape[0], o.shape[1], o.dtype), never_strided())
CREATE(rand, tensor_rand_gen(o.dtype, o.ndim, o.shape, a->gen), tensor_uniform_gen_(r, 0, 1, a->gen))
CREATE(randn, tensor_randn_gen(o.dtype, o.ndim, o.shape, a->gen), tensor_normal_gen_(r, 0, 1, a->gen))
CREATE(randint, tensor_randint_gen(si(a->scalar), si(a->scalar2), o.dtype, o.ndim, o.shape, a->gen),
       tensor_random_(r, si(a->scalar), si(a->scalar2), true, a->gen))
CREATE(bernoulli, tensor_bernoulli_gen(in[0], a->gen), never_strided())

/* ---- in place ---------------------------------------------------------------------------------------- */

/* output 0 is input 0 */
int tensor__infer_inplace(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)a, (void)max;
    *o = *in[0];
    o->wrapped_number = false;
    return 1;
}

/* copy_: the source broadcasts to the destination's shape */
int tensor__infer_copy_(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    const TensorMeta *x = in[0];
    int nd;
    int64_t s[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(x->ndim, x->shape, in[1]->ndim, in[1]->shape, &nd, s) < 0) return -1;
    if (nd != x->ndim || memcmp(s, x->shape, sizeof(int64_t) * (size_t)nd) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, x->ndim, x->shape);
        tensor__format_shape(b2, sizeof b2, nd, s);
        tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
        return -1;
    }
    return tensor__infer_inplace(op, in, n_in, a, o, max);
}

static int random_fill_meta(const TensorMeta *x, const char *kernel, TensorMeta *o) {
    if (!tensor__is_float(x->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, tensor__cname(x->dtype));
        return -1;
    }
    *o = *x;
    o->wrapped_number = false;
    return 1;
}

int tensor__infer_normal_(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)a, (void)max;
    return random_fill_meta(in[0], "normal_kernel_cpu", o);
}

int tensor__infer_uniform_(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)a, (void)max;
    return random_fill_meta(in[0], "check_uniform_bounds", o);
}

#define INPLACE(NAME, EXPR)                                                                                            \
    int tensor__run_##NAME(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) { \
        (void)op, (void)n_in, (void)a, (void)n_out;                                                                    \
        Tensor *x = in[0];                                                                                             \
        if ((EXPR) < 0) return -1;                                                                                     \
        tensor_incref(x);                                                                                              \
        out[0] = x;                                                                                                    \
        return 1;                                                                                                      \
    }

INPLACE(zero_, tensor_zero_(x))
INPLACE(fill_, tensor_fill_(x, a->scalar))
INPLACE(copy_, tensor_copy_(x, in[1]))
INPLACE(normal_, tensor_normal_gen_(x, sf(a->scalar), sf(a->scalar2), a->gen))
INPLACE(uniform_, tensor_uniform_gen_(x, sf(a->scalar), sf(a->scalar2), a->gen))
