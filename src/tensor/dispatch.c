/* dispatch.c — the op table made executable: per-op info expanded from ops.def, and the kernel
 * and shape-inference tables, built by expanding ops.def against one IMPL_<op> line per op
 * (a missing line is a compile error). tensor_op_run / tensor_op_infer check arity and route
 * to the category's run/infer function; this file also holds the run/infer adapters for
 * creation, pointwise, reduction and in-place ops. */
#include <math.h>
#include <stdio.h>

#include "src/tensor/composite.h"
#include "src/tensor/linalg.h"
#include "src/tensor/nn.h"
#include "src/tensor/conv.h"
#include "src/tensor/pointwise.h"
#include "src/tensor/reduce.h"
#include "src/tensor/reorder.h"
#include "src/tensor/scatter.h"
#include "src/tensor/count.h"
#include "src/tensor/shape.h"

/* ---- op info ------------------------------------------------------------------------------------ */

#define OPF(F) TENSOR_OPF_##F
#define POINTWISE OPF(POINTWISE)
#define REDUCTION OPF(REDUCTION)
#define VIEW OPF(VIEW)
#define INPLACE OPF(INPLACE)
#define CREATION OPF(CREATION)
#define RANDOM OPF(RANDOM)
#define COMPOSITE OPF(COMPOSITE)
#define NONDIFF OPF(NONDIFF)
#define SCALAR_EDGE OPF(SCALAR_EDGE)
#define SCALAR_EDGE_FIRST OPF(SCALAR_EDGE_FIRST)
#define ALL 0xffffffffu

static const TensorOpInfo op_info[TENSOR_OP_COUNT] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, ...) {STR, #NAME, NODE, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF},
#include "ember/ops.def"
#undef X
};

#undef POINTWISE
#undef REDUCTION
#undef VIEW
#undef INPLACE
#undef CREATION
#undef RANDOM
#undef COMPOSITE
#undef NONDIFF
#undef SCALAR_EDGE
#undef SCALAR_EDGE_FIRST
#undef ALL

const TensorOpInfo *tensor_op_info(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT ? &op_info[op] : NULL; }
const char *tensor_op_name(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT ? op_info[op].name : "?"; }
unsigned tensor_op_flags(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT ? op_info[op].flags : 0; }

/* ---- meta helpers ---------------------------------------------------------------------------------- */

void tensor__meta_contiguous(TensorMeta *m, TensorDtype dt, int ndim, const int64_t *shape) {
    m->dtype = dt;
    m->ndim = ndim;
    if (ndim) memcpy(m->shape, shape, sizeof(int64_t) * (size_t)ndim);
    tensor__compute_contiguous_strides(ndim, m->shape, m->strides);
    m->offset = 0;
    m->wrapped_number = false;
}

Tensor *tensor__new_from_meta(const TensorMeta *m, bool zero) { return tensor__new(m->dtype, m->ndim, m->shape, zero); }

static double sf(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* ---- creation ------------------------------------------------------------------------------------- */

static int creation_meta(TensorOp op, const TensorMeta *const *in, const TensorOpArgs *a, TensorMeta *o) {
    TensorDtype dt = a->dtype;
    switch (op) {
    case TENSOR_OP_EMPTY: case TENSOR_OP_ZEROS: case TENSOR_OP_ONES: case TENSOR_OP_RAND: case TENSOR_OP_RANDN:
    case TENSOR_OP_FULL: case TENSOR_OP_RANDINT:
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
        if (dt == TENSOR_DTYPE_DEFAULT)
            dt = op == TENSOR_OP_FULL      ? (a->scalar.kind == TENSOR_FLOAT32 ? tensor_default_dtype() : a->scalar.kind)
                 : op == TENSOR_OP_RANDINT ? TENSOR_INT64
                                           : tensor_default_dtype();
        tensor__meta_contiguous(o, dt, a->n_ints, a->ints);
        return 1;
    case TENSOR_OP_ARANGE: {
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
    case TENSOR_OP_LINSPACE:
        if (a->step < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "number of steps must be non-negative");
            return -1;
        }
        tensor__meta_contiguous(o, dt == TENSOR_DTYPE_DEFAULT ? tensor_default_dtype() : dt, 1, &a->step);
        return 1;
    case TENSOR_OP_EYE: {
        int64_t shape[2] = {a->start, (a->end < 0 || a->end == INT64_MAX) ? a->start : a->end};
        if (a->start < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "n must be greater or equal to 0, got %lld", (long long)a->start);
            return -1;
        }
        tensor__meta_contiguous(o, dt == TENSOR_DTYPE_DEFAULT ? tensor_default_dtype() : dt, 2, shape);
        return 1;
    }
    case TENSOR_OP_ZEROS_LIKE: case TENSOR_OP_ONES_LIKE: case TENSOR_OP_FULL_LIKE: case TENSOR_OP_RAND_LIKE:
    case TENSOR_OP_RANDN_LIKE: case TENSOR_OP_BERNOULLI:
        tensor__meta_contiguous(o, dt == TENSOR_DTYPE_DEFAULT ? in[0]->dtype : dt, in[0]->ndim, in[0]->shape);
        return 1;
    default: break;
    }
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a creation op", tensor_op_name(op));
    return -1;
}

static int infer_creation(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)n_in;
    (void)max;
    return creation_meta(op, in, a, o);
}

static int run_creation(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    (void)n_out;
    TensorMeta mi, o;
    const TensorMeta *pm = &mi;
    if (in && n_in > 0 && in[0]) tensor_meta_of(in[0], &mi);
    if (creation_meta(op, &pm, a, &o) < 0) return -1;
    Tensor *r = NULL;
    switch (op) {
    case TENSOR_OP_EMPTY: r = tensor_empty(o.dtype, o.ndim, o.shape); break;
    case TENSOR_OP_ZEROS: case TENSOR_OP_ZEROS_LIKE: r = tensor_zeros(o.dtype, o.ndim, o.shape); break;
    case TENSOR_OP_ONES: case TENSOR_OP_ONES_LIKE: r = tensor_ones(o.dtype, o.ndim, o.shape); break;
    case TENSOR_OP_FULL: case TENSOR_OP_FULL_LIKE: r = tensor_full(o.dtype, o.ndim, o.shape, a->scalar); break;
    case TENSOR_OP_ARANGE: r = tensor_arange(a->scalar, a->scalar2, a->alpha, a->dtype); break;
    case TENSOR_OP_LINSPACE: r = tensor_linspace(sf(a->scalar), sf(a->scalar2), a->step, o.dtype); break;
    case TENSOR_OP_EYE: r = tensor_eye(o.shape[0], o.shape[1], o.dtype); break;
    case TENSOR_OP_RAND: case TENSOR_OP_RAND_LIKE: r = tensor_rand_gen(o.dtype, o.ndim, o.shape, a->gen); break;
    case TENSOR_OP_RANDN: case TENSOR_OP_RANDN_LIKE: r = tensor_randn_gen(o.dtype, o.ndim, o.shape, a->gen); break;
    case TENSOR_OP_RANDINT: {
        r = tensor_randint_gen(a->scalar.kind == TENSOR_FLOAT32 ? (int64_t)a->scalar.f : a->scalar.i,
                           a->scalar2.kind == TENSOR_FLOAT32 ? (int64_t)a->scalar2.f : a->scalar2.i, o.dtype, o.ndim, o.shape,
                           a->gen);
        break;
    }
    case TENSOR_OP_BERNOULLI: r = tensor_bernoulli_gen(in[0], a->gen); break;
    default: EM_UNREACHABLE();
    }
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- elementwise kernels (the table's KERNEL column: pointwise.c) -------------------------------- */

static int infer_pointwise(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    const PwInfo *k = tensor__pw_info(op);
    TensorDtype ct, rt;
    if (tensor__pw_dtype(op, in, a, &ct, &rt) < 0) return -1;
    int nd = in[0]->ndim;
    int64_t s[TENSOR_MAX_DIMS];
    memcpy(s, in[0]->shape, sizeof(int64_t) * (size_t)nd);
    for (int i = 1; i < n_in; i++)
        if (tensor__broadcast_shapes(nd, s, in[i]->ndim, in[i]->shape, &nd, s) < 0) return -1;
    if (k->form == PWF_INPLACE) {
        const TensorMeta *x = in[0];
        if (!tensor__can_cast(rt, x->dtype)) return tensor__cast_error(rt, x->dtype);
        if (nd != x->ndim || memcmp(s, x->shape, sizeof(int64_t) * (size_t)nd) != 0) {
            char b1[256], b2[256];
            tensor__format_shape(b1, sizeof b1, x->ndim, x->shape);
            tensor__format_shape(b2, sizeof b2, nd, s);
            tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
            return -1;
        }
        *o = *x;
        o->wrapped_number = false;
        return 1;
    }
    tensor__meta_contiguous(o, rt, nd, s);
    return 1;
}

static int run_pointwise(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    (void)n_out;
    const PwInfo *k = tensor__pw_info(op);
    Tensor *r = NULL;
    if (k->form == PWF_INPLACE) {
        TensorOp base = k->base;
        const PwInfo *b = tensor__pw_info(base);
        int rc = b->form == PWF_UNARY    ? tensor__inplace_unary(base, in[0], a)
                 : b->form == PWF_BINARY ? tensor__inplace_binary(base, in[0], in[1], a->alpha)
                                         : tensor__inplace_binary_scalar(base, in[0], a->scalar, a->alpha);
        if (rc < 0) return -1;
        tensor_incref(in[0]);
        out[0] = in[0];
        return 1;
    }
    switch ((PwForm)k->form) {
    case PWF_UNARY: r = tensor__unary(op, in[0], a, NULL); break;
    case PWF_BINARY: r = tensor__binary(op, in[0], in[1], a->alpha, NULL); break;
    case PWF_SCALAR: case PWF_RSCALAR: r = tensor__binary_scalar(op, in[0], a->scalar, a->alpha, NULL); break;
    default: tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not an elementwise kernel", tensor_op_name(op)); return -1;
    }
    if (!r) return -1;
    out[0] = r;
    return 1;
}

static int infer_clone(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)max;
    tensor__meta_contiguous(o, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}

static int run_clone(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)n_out;
    Tensor *r = tensor_clone(in[0]);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

static int infer_to_dtype(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op;
    (void)n_in;
    (void)max;
    const TensorMeta *x = in[0];
    TensorDtype dt = a->dtype == TENSOR_DTYPE_DEFAULT ? x->dtype : a->dtype;
    if (dt == x->dtype) {
        *o = *x;
        return 1;
    }
    tensor__meta_contiguous(o, dt, x->ndim, x->shape);
    return 1;
}

static int run_to_dtype(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)n_out;
    Tensor *r = tensor_to_dtype(in[0], a->dtype);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- where -------------------------------------------------------------------------------------- */

static int infer_where(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)max;
    if (in[0]->dtype != TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                         tensor__cname(in[0]->dtype));
        return -1;
    }
    int n1, n2;
    int64_t s1[TENSOR_MAX_DIMS], s2[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(in[0]->ndim, in[0]->shape, in[1]->ndim, in[1]->shape, &n1, s1) < 0) return -1;
    if (tensor__broadcast_shapes(n1, s1, in[2]->ndim, in[2]->shape, &n2, s2) < 0) return -1;
    TensorPromo p = TENSOR_PROMO_INIT;
    tensor__promo_add(&p, in[1]->dtype, in[1]->ndim, in[1]->wrapped_number);
    tensor__promo_add(&p, in[2]->dtype, in[2]->ndim, in[2]->wrapped_number);
    tensor__meta_contiguous(o, tensor__promo_result(&p), n2, s2);
    return 1;
}

static int run_where(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)n_out;
    Tensor *r = tensor__where(in[0], in[1], in[2]);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- reductions ------------------------------------------------------------------------------------ */

static int infer_reduce(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)n_in;
    const TensorMeta *x = in[0];
    ReducePlan p;
    const int64_t *dims = NULL;
    int nd = 0;
    bool all = false;
    TensorDtype dt;
    if (tensor__reduce_dtype(op, x->dtype, &dt) < 0) return -1;
    switch (op) {
    case TENSOR_OP_SUM: case TENSOR_OP_PROD: all = true; break;
    case TENSOR_OP_SUM_DIM: case TENSOR_OP_MEAN_DIM: case TENSOR_OP_VAR: case TENSOR_OP_STD: case TENSOR_OP_LOGSUMEXP:
        dims = a->ints;
        nd = a->n_ints;
        all = nd == 0;
        break;
    case TENSOR_OP_PROD_DIM: dims = &a->dim; nd = 1; break;
    case TENSOR_OP_MEAN: all = true; break;
    case TENSOR_OP_MAX: case TENSOR_OP_MIN:
        all = true;
        if (tensor__shape_numel(x->ndim, x->shape) == 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                             op == TENSOR_OP_MAX ? "max" : "min");
            return -1;
        }
        break;
    case TENSOR_OP_MAX_DIM: case TENSOR_OP_MIN_DIM: dims = &a->dim; nd = 1; break;
    case TENSOR_OP_AMAX: case TENSOR_OP_AMIN: dims = a->ints; nd = a->n_ints; all = nd == 0; break;
    case TENSOR_OP_ARGMAX: case TENSOR_OP_ARGMIN: case TENSOR_OP_ALL: case TENSOR_OP_ANY:
        if (a->has_dim) {
            dims = &a->dim;
            nd = 1;
        } else {
            all = true;
        }
        break;
    default: tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a reduction", tensor_op_name(op)); return -1;
    }
    bool keep = all && (op == TENSOR_OP_SUM || op == TENSOR_OP_MEAN || op == TENSOR_OP_PROD || op == TENSOR_OP_MAX ||
                        op == TENSOR_OP_MIN)
                    ? false
                    : a->keepdim;
    if ((op == TENSOR_OP_ARGMAX || op == TENSOR_OP_ARGMIN || op == TENSOR_OP_ALL || op == TENSOR_OP_ANY) && !a->has_dim) keep = a->keepdim;
    if (tensor__reduce_plan(x, dims, nd, all, keep, &p) < 0) return -1;
    tensor__meta_contiguous(&o[0], dt, p.out_ndim, p.out_shape);
    if (op == TENSOR_OP_MAX_DIM || op == TENSOR_OP_MIN_DIM) {
        if (max < 2) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s produces 2 outputs", tensor_op_name(op));
            return -1;
        }
        tensor__meta_contiguous(&o[1], TENSOR_INT64, p.out_ndim, p.out_shape);
        return 2;
    }
    return 1;
}

static int run_reduce(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    const Tensor *x = in[0];
    Tensor *r = NULL;
    const int64_t *d = a->has_dim ? &a->dim : NULL;
    switch (op) {
    case TENSOR_OP_SUM: r = tensor_sum(x); break;
    case TENSOR_OP_SUM_DIM: r = tensor_sum_dims(x, a->ints, a->n_ints, a->keepdim); break;
    case TENSOR_OP_MEAN: r = tensor_mean(x); break;
    case TENSOR_OP_MEAN_DIM: r = tensor_mean_dims(x, a->ints, a->n_ints, a->keepdim); break;
    case TENSOR_OP_PROD: r = tensor__prod(x, NULL, false); break;
    case TENSOR_OP_PROD_DIM: r = tensor__prod(x, &a->dim, a->keepdim); break;
    case TENSOR_OP_MAX: r = tensor_max(x); break;
    case TENSOR_OP_MIN: r = tensor_min(x); break;
    case TENSOR_OP_MAX_DIM:
    case TENSOR_OP_MIN_DIM:
        if (n_out < 2) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s produces 2 outputs", tensor_op_name(op));
            return -1;
        }
        if (tensor__extremum(x, &a->dim, a->keepdim, op == TENSOR_OP_MAX_DIM, &out[0], &out[1]) < 0) return -1;
        return 2;
    case TENSOR_OP_AMAX: r = tensor__amax(x, a->ints, a->n_ints, a->keepdim, true); break;
    case TENSOR_OP_AMIN: r = tensor__amax(x, a->ints, a->n_ints, a->keepdim, false); break;
    case TENSOR_OP_ARGMAX: r = tensor_argmax(x, d, a->keepdim); break;
    case TENSOR_OP_ARGMIN: r = tensor_argmin(x, d, a->keepdim); break;
    case TENSOR_OP_VAR: r = tensor__var_std(x, a->ints, a->n_ints, a->correction, a->keepdim, false); break;
    case TENSOR_OP_STD: r = tensor__var_std(x, a->ints, a->n_ints, a->correction, a->keepdim, true); break;
    case TENSOR_OP_LOGSUMEXP: r = tensor_logsumexp(x, a->ints, a->n_ints, a->keepdim); break;
    case TENSOR_OP_ALL: r = tensor__all_any(x, d, a->keepdim, false); break;
    case TENSOR_OP_ANY: r = tensor__all_any(x, d, a->keepdim, true); break;
    default: tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a reduction", tensor_op_name(op)); return -1;
    }
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- in place --------------------------------------------------------------------------------------- */

static int infer_inplace(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    const TensorMeta *x = in[0];
    switch (op) {
    case TENSOR_OP_COPY_: {
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
        break;
    }
    case TENSOR_OP_NORMAL_: case TENSOR_OP_UNIFORM_:
        if (!tensor__is_float(x->dtype)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                             op == TENSOR_OP_NORMAL_ ? "normal_kernel_cpu" : "check_uniform_bounds", tensor__cname(x->dtype));
            return -1;
        }
        break;
    default: break;
    }
    (void)n_in;
    *o = *x;
    o->wrapped_number = false;
    return 1;
}

static int run_inplace(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_in;
    (void)n_out;
    Tensor *x = in[0];
    int rc;
    switch (op) {
    case TENSOR_OP_ZERO_: rc = tensor_zero_(x); break;
    case TENSOR_OP_FILL_: rc = tensor_fill_(x, a->scalar); break;
    case TENSOR_OP_COPY_: rc = tensor_copy_(x, in[1]); break;
    case TENSOR_OP_NORMAL_: rc = tensor_normal_gen_(x, sf(a->scalar), sf(a->scalar2), a->gen); break;
    case TENSOR_OP_UNIFORM_: rc = tensor_uniform_gen_(x, sf(a->scalar), sf(a->scalar2), a->gen); break;
    default: tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not an in-place op", tensor_op_name(op)); return -1;
    }
    if (rc < 0) return -1;
    tensor_incref(x);
    out[0] = x;
    return 1;
}

/* ---- adapters for the other categories ------------------------------------------------------------ */

static int infer_view(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    return tensor__infer_view(op, in, n, a, o, max);
}
static int run_view(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_view(op, in, n, a, out, n_out);
}
static int infer_cat(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    return tensor__infer_cat(op, in, n, a, o);
}
static int run_cat(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_cat(op, in, n, a, out, n_out);
}
static int infer_linalg(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    return tensor__infer_linalg(op, in, n, a, o);
}
static int run_linalg(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_linalg(op, in, n, a, out, n_out);
}
static int infer_nn(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    return tensor__infer_nn(op, in, n, a, o);
}
static int run_nn(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_nn(op, in, n, a, out, n_out);
}
static int infer_conv(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    return tensor__infer_conv(op, in, n, a, o);
}
static int run_conv(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_conv(op, in, n, a, out, n_out);
}
static int infer_index(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    return tensor__infer_index(op, in, n, a, o);
}
static int run_index(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_index(op, in, n, a, out, n_out);
}
static int infer_reorder(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    return tensor__infer_reorder(op, in, n, a, o, max);
}
static int run_reorder(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_reorder(op, in, n, a, out, n_out);
}
/* scatter.c (branch surface) */
#define infer_scatter tensor__infer_scatter
#define run_scatter tensor__run_scatter
#define infer_count tensor__infer_count
#define run_count tensor__run_count
static int infer_composite(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    return tensor__infer_composite(op, in, n, a, o, max);
}
static int run_composite(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    return tensor__run_composite(op, tensor_op_run, in, n, a, out, n_out);
}

/* ---- the implementation table --------------------------------------------------------------------- */

/* Elementwise kernels of the table (U, B and their scalar and in-place forms) run through
 * run_pointwise; every other op has one IMPL line below naming its category (a missing line is a
 * compile error). */

#define IMPL_EMPTY creation
#define IMPL_ZEROS creation
#define IMPL_ONES creation
#define IMPL_FULL creation
#define IMPL_ARANGE creation
#define IMPL_LINSPACE creation
#define IMPL_EYE creation
#define IMPL_RAND creation
#define IMPL_RANDN creation
#define IMPL_RANDINT creation
#define IMPL_ZEROS_LIKE creation
#define IMPL_ONES_LIKE creation
#define IMPL_FULL_LIKE creation
#define IMPL_RAND_LIKE creation
#define IMPL_RANDN_LIKE creation
#define IMPL_BERNOULLI creation
#define IMPL_CLONE clone
#define IMPL_TO_DTYPE to_dtype
#define IMPL_DETACH view
#define IMPL_WHERE where
#define IMPL_SUM reduce
#define IMPL_SUM_DIM reduce
#define IMPL_MEAN reduce
#define IMPL_MEAN_DIM reduce
#define IMPL_PROD reduce
#define IMPL_PROD_DIM reduce
#define IMPL_MAX reduce
#define IMPL_MAX_DIM reduce
#define IMPL_MIN reduce
#define IMPL_MIN_DIM reduce
#define IMPL_AMAX reduce
#define IMPL_AMIN reduce
#define IMPL_ARGMAX reduce
#define IMPL_ARGMIN reduce
#define IMPL_VAR reduce
#define IMPL_STD reduce
#define IMPL_LOGSUMEXP reduce
#define IMPL_ALL reduce
#define IMPL_ANY reduce
#define IMPL_VIEW view
#define IMPL_RESHAPE composite
#define IMPL_UNSAFE_VIEW view
#define IMPL_AS_STRIDED view
#define IMPL_TRANSPOSE view
#define IMPL_T view
#define IMPL_PERMUTE view
#define IMPL_EXPAND view
#define IMPL_SLICE view
#define IMPL_SELECT view
#define IMPL_NARROW composite
#define IMPL_UNSQUEEZE view
#define IMPL_SQUEEZE view
#define IMPL_SQUEEZE_DIM view
#define IMPL_FLATTEN composite
#define IMPL_CONTIGUOUS composite
#define IMPL_SPLIT view
#define IMPL_SPLIT_WITH_SIZES view
#define IMPL_CHUNK composite
#define IMPL_UNBIND view
#define IMPL_CAT cat
#define IMPL_STACK cat
#define IMPL_MM linalg
#define IMPL_BMM linalg
#define IMPL_MV linalg
#define IMPL_DOT linalg
#define IMPL_ADDMM linalg
#define IMPL_MATMUL composite
#define IMPL_LINEAR composite
#define IMPL_GATHER index
#define IMPL_SCATTER_ADD scatter
#define IMPL_INDEX_SELECT index
#define IMPL_INDEX_ADD index
#define IMPL_INDEX index
#define IMPL_INDEX_PUT index
#define IMPL_MASKED_FILL index
#define IMPL_MASKED_SELECT index
#define IMPL_MASKED_SCATTER index
#define IMPL_TRIL reorder
#define IMPL_TRIU reorder
#define IMPL_ROLL reorder
#define IMPL_FLIP reorder
#define IMPL_SORT reorder
#define IMPL_TOPK reorder
#define IMPL_CUMSUM reorder
#define IMPL_SCATTER scatter
#define IMPL_SCATTER_REDUCE scatter
#define IMPL_KTHVALUE reorder
#define IMPL_UNIQUE reorder
#define IMPL_NONZERO count
#define IMPL_BINCOUNT count
#define IMPL_HISTC count
#define IMPL_SOFTMAX nn
#define IMPL_LOG_SOFTMAX nn
#define IMPL_LAYER_NORM nn
#define IMPL_EMBEDDING nn
#define IMPL_DROPOUT nn
#define IMPL_NATIVE_DROPOUT nn
#define IMPL_NLL_LOSS_GRAD_WEIGHTS nn
#define IMPL_NLL_LOSS nn
#define IMPL_CROSS_ENTROPY composite
#define IMPL_MSE_LOSS nn
#define IMPL_IM2COL conv
#define IMPL_COL2IM conv
#define IMPL_MAX_POOL2D conv
#define IMPL_ZERO_ inplace
#define IMPL_FILL_ inplace
#define IMPL_COPY_ inplace
#define IMPL_MASKED_FILL_ index
#define IMPL_INDEX_PUT_ index
#define IMPL_NORMAL_ inplace
#define IMPL_UNIFORM_ inplace

#define CAT2_(a, b) a##b
#define CAT2(a, b) CAT2_(a, b)

#define U(...) PW_TUPLE_U(__VA_ARGS__)
#define B(...) PW_TUPLE_B(__VA_ARGS__)
#define UF(...) PW_TUPLE_UF(__VA_ARGS__)
#define BF(...) PW_TUPLE_BF(__VA_ARGS__)
#define T3(...) PW_TUPLE_T3(__VA_ARGS__)
#define SC(...) PW_TUPLE_SC(__VA_ARGS__)
#define RSC(...) PW_TUPLE_RSC(__VA_ARGS__)
#define IP(...) PW_TUPLE_IP(__VA_ARGS__)
#define NOK PW_TUPLE_NOK
#define IMPL_GENERATED(NAME, ...) {run_pointwise, infer_pointwise},
#define IMPL_LINE(NAME, ...) {CAT2(run_, IMPL_##NAME), CAT2(infer_, IMPL_##NAME)},
#define PW_GEN_U IMPL_GENERATED
#define PW_GEN_B IMPL_GENERATED
#define PW_GEN_SC IMPL_GENERATED
#define PW_GEN_RSC IMPL_GENERATED
#define PW_GEN_IP IMPL_GENERATED
#define PW_GEN_UF IMPL_LINE
#define PW_GEN_BF IMPL_LINE
#define PW_GEN_T3 IMPL_LINE
#define PW_GEN_NOK IMPL_LINE

static const struct {
    TensorRunFn run;
    TensorInferFn infer;
} impl[] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof impl / sizeof impl[0] == TENSOR_OP_COUNT, "one kernel entry per op in ops.def");

/* ---- entry points ------------------------------------------------------------------------------------ */

static int check_arity(TensorOp op, int n_in, const void *const *in) {
    if ((unsigned)op >= TENSOR_OP_COUNT) {
        tensor_error_set(TENSOR_ERR_VALUE, "invalid tensor op %d", (int)op);
        return -1;
    }
    const TensorOpInfo *info = &op_info[op];
    if (n_in < info->in_min || (info->in_max >= 0 && n_in > info->in_max)) {
        tensor_error_set(TENSOR_ERR_TYPE, "%s() expects %d%s%s inputs, got %d", info->name, info->in_min,
                         info->in_max == info->in_min ? "" : " or more", "", n_in);
        return -1;
    }
    for (int i = 0; i < info->in_min; i++) {
        if (!in[i]) {
            tensor_error_set(TENSOR_ERR_TYPE, "%s(): input %d must be a tensor, not None", info->name, i);
            return -1;
        }
    }
    return 0;
}

/* ---- meta mode and the op observer (the tracer's fake tensors) ---------------------------------------- */

static bool meta_mode, meta_storageless;
static TensorOpObserver op_observer;
static void *op_observer_ctx;
static int op_depth;
bool tensor__op_hooked;
static int op_observer_depth;   /* op_depth where the observer was set: its top level */

bool tensor_set_meta_mode(bool on) {
    bool prev = meta_mode;
    meta_mode = on;
    tensor__op_hooked = meta_mode || op_observer;
    return prev;
}
bool tensor_meta_mode(void) { return meta_mode; }

void tensor_set_op_observer(TensorOpObserver fn, void *ctx) {
    op_observer = fn;
    op_observer_ctx = ctx;
    op_observer_depth = op_depth;
    tensor__op_hooked = meta_mode || op_observer;
}

TensorStorage *tensor__no_storage(void) {
    static TensorStorage *none;   /* one reference kept for the process */
    if (!none) none = tensor__storage_new(0, false);
    return none;
}

/* a contiguous tensor of m's geometry over the shared zero-byte storage */
static Tensor *storageless(const TensorMeta *m) {
    TensorStorage *none = tensor__no_storage();
    if (!none) return NULL;
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    t->dtype = (uint8_t)m->dtype;
    t->storage = none;
    tensor__storage_incref(none);
    int64_t strides[TENSOR_MAX_DIMS];
    tensor__compute_contiguous_strides(m->ndim, m->shape, strides);
    tensor__set_geometry(t, m->ndim, m->shape, strides);
    return t;
}

void tensor__record_begin(TensorOpObserver fn, void *ctx, TensorRecordSave *save) {
    *save = (TensorRecordSave){op_observer, op_observer_ctx, op_observer_depth, meta_mode, meta_storageless};
    meta_storageless = true;
    tensor_set_meta_mode(true);
    tensor_set_op_observer(fn, ctx);
}

void tensor__record_end(const TensorRecordSave *save) {
    op_observer = save->fn;
    op_observer_ctx = save->ctx;
    op_observer_depth = save->depth;
    meta_storageless = save->storageless;
    tensor_set_meta_mode(save->meta);
}

void tensor_op_enter(void) { op_depth++; }

void tensor_op_leave(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor *const *out, int n) {
    op_depth--;
    if (n >= 0 && op_depth == op_observer_depth && op_observer) op_observer(op_observer_ctx, op, in, n_in, args, out, n);
}

/* Meta mode: views and ops whose result may be an input itself run (they touch no data);
 * in-place ops return their input; every other op gets outputs allocated from its inferred
 * metadata (zero-filled storage, so nothing reads uninitialised memory) and no kernel runs,
 * so random ops consume no random numbers. */
static int run_meta(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor **out, int n_out) {
    unsigned flags = op_info[op].flags;
    if ((flags & (TENSOR_OPF_VIEW | TENSOR_OPF_COMPOSITE)) || op == TENSOR_OP_DETACH ||
        (op == TENSOR_OP_TO_DTYPE && (args->dtype == TENSOR_DTYPE_DEFAULT || args->dtype == in[0]->dtype)))
        return impl[op].run(op, in, n_in, args, out, n_out);
    if (flags & TENSOR_OPF_INPLACE) {
        tensor_incref(in[0]);
        out[0] = in[0];
        return 1;
    }
    TensorMeta metas_in[16], outs[64];
    const TensorMeta *ptrs[16];
    if (n_in > 16) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s(): more than 16 inputs in meta mode", op_info[op].name);
        return -1;
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i]) tensor_meta_of(in[i], &metas_in[i]);
        ptrs[i] = in[i] ? &metas_in[i] : NULL;
    }
    int n = impl[op].infer(op, ptrs, n_in, args, outs, n_out < 64 ? n_out : 64);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        out[i] = meta_storageless ? storageless(&outs[i]) : tensor_empty(outs[i].dtype, outs[i].ndim, outs[i].shape);
        if (!out[i]) {
            for (int j = 0; j < i; j++) tensor_decref(out[j]);
            return -1;
        }
        if (outs[i].wrapped_number) tensor_set_wrapped_number(out[i], true);
    }
    return n;
}

int tensor_op_run(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor **out, int n_out) {
    if (check_arity(op, n_in, (const void *const *)in) < 0) return -1;
    TensorOpArgs defaults = TENSOR_OP_ARGS_INIT;
    if (!args) args = &defaults;
    if (op_info[op].n_out > n_out) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s() produces %d outputs but room for %d was given", op_info[op].name,
                         op_info[op].n_out, n_out);
        return -1;
    }
    if (__builtin_expect(!meta_mode && !op_observer, 1)) return impl[op].run(op, in, n_in, args, out, n_out);
    tensor_op_enter();
    int n = meta_mode ? run_meta(op, in, n_in, args, out, n_out) : impl[op].run(op, in, n_in, args, out, n_out);
    tensor_op_leave(op, in, n_in, args, out, n);
    return n;
}

int tensor_op_infer(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *args, TensorMeta *out, int max_out) {
    if (check_arity(op, n_in, (const void *const *)in) < 0) return -1;
    TensorOpArgs defaults = TENSOR_OP_ARGS_INIT;
    if (!args) args = &defaults;
    if (op_info[op].n_out > max_out) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s() produces %d outputs but room for %d was given", op_info[op].name,
                         op_info[op].n_out, max_out);
        return -1;
    }
    return impl[op].infer(op, in, n_in, args, out, max_out);
}

int tensor_op_num_outputs(TensorOp op, int n_inputs, const Tensor *const *inputs, const TensorOpArgs *args) {
    if ((unsigned)op >= TENSOR_OP_COUNT) {
        tensor_error_set(TENSOR_ERR_VALUE, "invalid tensor op %d", (int)op);
        return -1;
    }
    if (op_info[op].n_out >= 0) return op_info[op].n_out;
    if (n_inputs < 1 || !inputs[0]) {
        tensor_error_set(TENSOR_ERR_TYPE, "%s() expects a tensor input", op_info[op].name);
        return -1;
    }
    TensorOpArgs defaults = TENSOR_OP_ARGS_INIT;
    if (!args) args = &defaults;
    const Tensor *t = inputs[0];
    int64_t d = tensor__wrap_dim(args->dim, t->ndim);
    if (d < 0) return -1;
    int64_t size = t->ndim ? t->shape[d] : 1;
    switch (op) {
    case TENSOR_OP_UNBIND: return (int)size;
    case TENSOR_OP_SPLIT_WITH_SIZES: return args->n_ints;
    case TENSOR_OP_SPLIT:
        if (args->start <= 0) return size == 0 ? 1 : (tensor_error_set(TENSOR_ERR_RUNTIME, "split_size must be positive"), -1);
        return size == 0 ? 1 : (int)((size + args->start - 1) / args->start);
    case TENSOR_OP_CHUNK: {
        if (args->start <= 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)args->start);
            return -1;
        }
        int64_t ss = (size + args->start - 1) / args->start;
        return ss == 0 ? 1 : (int)((size + ss - 1) / ss);
    }
    default: break;
    }
    tensor_error_set(TENSOR_ERR_VALUE, "%s() has a fixed number of outputs", op_info[op].name);
    return -1;
}
