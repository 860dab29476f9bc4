/* reduce_ops.c — the reductions' entries of the op table (ops.def's K(run, infer) columns): per
 * op, which dims it reduces, whether it keeps them, its result-dtype class, and the kernel of
 * reduce.c it runs. */
#include <math.h>

#include "src/tensor/kernels.h"
#include "src/tensor/reduce.h"

/* Output metadata of reducing x over dims (n of them; all: every dim) into dtype class cls. */
static int reduce_meta(const TensorMeta *x, TensorReduceDtype cls, const int64_t *dims, int nd, bool all, bool keep,
                       TensorMeta *o) {
    TensorDtype dt;
    ReducePlan p;
    if (tensor__reduce_dtype(cls, x->dtype, &dt) < 0) return -1;
    if (tensor__reduce_plan(x, dims, nd, all, keep, &p) < 0) return -1;
    tensor__meta_contiguous(o, dt, p.out_ndim, p.out_shape);
    return 1;
}

static int one(Tensor *r, Tensor **out) {
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* the op forms over all elements, over args.ints (none: all), over args.dim, over an optional
 * args.dim (has_dim) */
#define REDUCE_ALL(NAME, CLS)                                                                                          \
    int tensor__infer_##NAME(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, \
                             int max) {                                                                                \
        (void)op, (void)n_in, (void)a, (void)max;                                                                      \
        return reduce_meta(in[0], CLS, NULL, 0, true, false, o);                                                       \
    }
#define REDUCE_INTS(NAME, CLS)                                                                                         \
    int tensor__infer_##NAME(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, \
                             int max) {                                                                                \
        (void)op, (void)n_in, (void)max;                                                                               \
        return reduce_meta(in[0], CLS, a->ints, a->n_ints, a->n_ints == 0, a->keepdim, o);                             \
    }
#define REDUCE_DIM(NAME, CLS)                                                                                          \
    int tensor__infer_##NAME(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, \
                             int max) {                                                                                \
        (void)op, (void)n_in, (void)max;                                                                               \
        return reduce_meta(in[0], CLS, &a->dim, 1, false, a->keepdim, o);                                              \
    }
#define REDUCE_OPT_DIM(NAME, CLS)                                                                                      \
    int tensor__infer_##NAME(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, \
                             int max) {                                                                                \
        (void)op, (void)n_in, (void)max;                                                                               \
        return reduce_meta(in[0], CLS, a->has_dim ? &a->dim : NULL, a->has_dim, !a->has_dim, a->keepdim, o);           \
    }
#define RUN(NAME, EXPR)                                                                                                    \
    int tensor__run_##NAME(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) { \
        (void)op, (void)n_in, (void)a, (void)n_out;                                                                    \
        const Tensor *x = in[0];                                                                                       \
        return one(EXPR, out);                                                                                         \
    }
#define OPT_DIM (a->has_dim ? &a->dim : NULL)

REDUCE_ALL(sum, TENSOR_RDT_SUM)
RUN(sum, tensor_sum(x))
REDUCE_INTS(sum_dim, TENSOR_RDT_SUM)
RUN(sum_dim, tensor_sum_dims(x, a->ints, a->n_ints, a->keepdim))
REDUCE_ALL(mean, TENSOR_RDT_MEAN)
RUN(mean, tensor_mean(x))
REDUCE_INTS(mean_dim, TENSOR_RDT_MEAN)
RUN(mean_dim, tensor_mean_dims(x, a->ints, a->n_ints, a->keepdim))
REDUCE_ALL(prod, TENSOR_RDT_PROD)
RUN(prod, tensor__prod(x, NULL, false))
REDUCE_DIM(prod_dim, TENSOR_RDT_PROD)
RUN(prod_dim, tensor__prod(x, &a->dim, a->keepdim))
REDUCE_INTS(amax, TENSOR_RDT_SAME)
RUN(amax, tensor__amax(x, a->ints, a->n_ints, a->keepdim, true))
RUN(amin, tensor__amax(x, a->ints, a->n_ints, a->keepdim, false))
REDUCE_OPT_DIM(argmax, TENSOR_RDT_ARGMAX)
RUN(argmax, tensor_argmax(x, OPT_DIM, a->keepdim))
REDUCE_OPT_DIM(argmin, TENSOR_RDT_ARGMIN)
RUN(argmin, tensor_argmin(x, OPT_DIM, a->keepdim))
REDUCE_INTS(var, TENSOR_RDT_VAR)
RUN(var, tensor__var_std(x, a->ints, a->n_ints, a->correction, a->keepdim, false))
RUN(std, tensor__var_std(x, a->ints, a->n_ints, a->correction, a->keepdim, true))
REDUCE_INTS(logsumexp, TENSOR_RDT_LSE)
RUN(logsumexp, tensor_logsumexp(x, a->ints, a->n_ints, a->keepdim))
REDUCE_OPT_DIM(all, TENSOR_RDT_BOOL)
RUN(all, tensor__all_any(x, OPT_DIM, a->keepdim, false))
RUN(any, tensor__all_any(x, OPT_DIM, a->keepdim, true))
RUN(max, tensor_max(x))
RUN(min, tensor_min(x))

/* max() / min() over all elements: PyTorch refuses an empty input (no identity) */
static int extremum_all_meta(const TensorMeta *x, const char *name, TensorMeta *o) {
    if (tensor__shape_numel(x->ndim, x->shape) == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                         name);
        return -1;
    }
    return reduce_meta(x, TENSOR_RDT_SAME, NULL, 0, true, false, o);
}

int tensor__infer_max(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)a, (void)max;
    return extremum_all_meta(in[0], "max", o);
}

int tensor__infer_min(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op, (void)n_in, (void)a, (void)max;
    return extremum_all_meta(in[0], "min", o);
}

/* max(dim) / min(dim): (values, int64 indices) */
int tensor__infer_max_dim(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)n_in;
    if (max < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s produces 2 outputs", tensor_op_name(op));
        return -1;
    }
    if (reduce_meta(in[0], TENSOR_RDT_SAME, &a->dim, 1, false, a->keepdim, &o[0]) < 0) return -1;
    tensor__meta_contiguous(&o[1], TENSOR_INT64, o[0].ndim, o[0].shape);
    return 2;
}

static int run_extremum_dim(TensorOp op, Tensor *const *in, const TensorOpArgs *a, Tensor **out, int n_out, bool is_max) {
    if (n_out < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s produces 2 outputs", tensor_op_name(op));
        return -1;
    }
    if (tensor__extremum(in[0], &a->dim, a->keepdim, is_max, &out[0], &out[1]) < 0) return -1;
    return 2;
}

int tensor__run_max_dim(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    return run_extremum_dim(op, in, a, out, n_out, true);
}

int tensor__run_min_dim(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    return run_extremum_dim(op, in, a, out, n_out, false);
}

/* linalg.vector_norm: scalar=ord, ints=dims (none: all), keepdim.  One op (PyTorch's
 * linalg_vector_norm, whose backward masks a zero norm); its forward is the reduction of the
 * ord: sum of nonzeros (0), of |x| (1), sqrt of the sum of squares (2), max / min of |x|
 * (+-inf), else sum(|x|^p)^(1/p). */
REDUCE_INTS(vector_norm, TENSOR_RDT_SAME)

/* a fresh contiguous float32 / float64 result's square roots (correctly rounded, so the same
 * bits as tensor_sqrt's) */
static void sqrt_in_place(Tensor *s) {
    if (s->dtype == TENSOR_FLOAT32) {
        float *p = tensor__f32(s);
        for (int64_t i = 0; i < s->numel; i++) p[i] = sqrtf(p[i]);
    } else {
        double *p = (double *)tensor__data(s);
        for (int64_t i = 0; i < s->numel; i++) p[i] = sqrt(p[i]);
    }
}

static Tensor *vector_norm(const Tensor *x, double p, const int64_t *dims, int nd, bool keepdim) {
    Tensor *t = NULL, *s = NULL, *r = NULL;
    if (isinf(p)) {
        t = tensor_abs(x);
        r = t ? tensor__amax(t, dims, nd, keepdim, p > 0) : NULL;
        tensor_decref(t);
        return r;
    }
    if (p == 0) {
        Tensor *nz = tensor_cmp_scalar(TENSOR_OP_NE_SCALAR, x, tensor_scalar_i(0));
        t = nz ? tensor_to_dtype(nz, (TensorDtype)x->dtype) : NULL;
        tensor_decref(nz);
    } else if (p == 1) {
        t = tensor_abs(x);
    } else if (p == 2) {
        if ((s = tensor__norm2_rows(x, dims, nd, keepdim))) return s;
        if ((x->dtype == TENSOR_FLOAT32 || x->dtype == TENSOR_FLOAT64) && tensor__contig(x)) {
            /* fused: the sum of squares and the root in place, no x*x temporary */
            s = tensor__sum_squares(x, dims, nd, keepdim);
            if (s) sqrt_in_place(s);
            return s;
        }
        t = tensor_mul(x, x);
    } else {
        Tensor *ab = tensor_abs(x);
        t = ab ? tensor_pow_scalar(ab, tensor_scalar_f(p)) : NULL;
        tensor_decref(ab);
    }
    s = t ? tensor_sum_dims(t, dims, nd, keepdim) : NULL;
    tensor_decref(t);
    if (!s || p == 0 || p == 1) return s;
    r = p == 2 ? tensor_sqrt(s) : tensor_pow_scalar(s, tensor_scalar_f(1.0 / p));
    tensor_decref(s);
    return r;
}
RUN(vector_norm, vector_norm(x, a->scalar.f, a->ints, a->n_ints, a->keepdim))
