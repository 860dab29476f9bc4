/* composite.c — ops defined by decomposition: reshape, flatten, narrow, contiguous, chunk,
 * matmul (PyTorch's rules for 1-D operands, folding and batch broadcasting), linear and
 * cross_entropy. The decomposition is written once against a runner callback: the tensor
 * layer passes tensor_op_run, autograd passes ag_op_run so the primitive ops are recorded
 * (which is why `linear` shows up as AddmmBackward0, as in PyTorch). */
#include "src/tensor/composite.h"

#include <stdio.h>

#include "src/tensor/linalg.h"
#include "src/tensor/nn.h"
#include "src/tensor/shape.h"

static Tensor *r1(TensorRunner run, TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a) {
    Tensor *out = NULL;
    return run(op, in, n, a, &out, 1) < 0 ? NULL : out;
}

static Tensor *run_shape(TensorRunner run, TensorOp op, Tensor *x, int n, const int64_t *shape) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = n;
    return r1(run, op, &x, 1, &a);
}

static Tensor *run_dim(TensorRunner run, TensorOp op, Tensor *x, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return r1(run, op, &x, 1, &a);
}

static Tensor *run2(TensorRunner run, TensorOp op, Tensor *x, Tensor *y) {
    Tensor *in[2] = {x, y};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return r1(run, op, in, 2, &a);
}

Tensor *tensor__composite_reshape(TensorRunner run, Tensor *x, int n, const int64_t *shape) {
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__infer_size(n, shape, x->numel, sh) < 0) return NULL;
    if (tensor__can_view(x, n, sh)) return run_shape(run, TENSOR_OP_VIEW, x, n, sh);
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    Tensor *c = r1(run, TENSOR_OP_CLONE, &x, 1, &a);
    if (!c) return NULL;
    Tensor *r = run_shape(run, TENSOR_OP_UNSAFE_VIEW, c, n, sh);
    tensor_decref(c);
    return r;
}

static int matmul_check(int d1, int d2) {
    if (d1 == 0 || d2 == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
        return -1;
    }
    return 0;
}

/* PyTorch 1.13's should_fold: a product of a >= 3-D tensor with a 1-D or 2-D one runs as one mm
 * (mv) on the big tensor's batch dims folded into its rows, except a 3-D tensor whose last two
 * dims are transposed (a permute(0, 2, 1)) against a matrix, which bmm reads in place. */
static bool should_fold(const Tensor *t, int other_dim) {
    if (!(t->ndim >= 3 && (other_dim == 1 || other_dim == 2))) return false;
    if (t->ndim == 3 && other_dim == 2 && t->strides[2] != 1 && t->strides[0] == t->shape[1] * t->shape[2])
        return false;
    return true;
}

/* matmul's fold: the big tensor (transposed, when it is the right operand) reshaped to rows, one
 * mm or mv, and the result viewed back (transposed back and made contiguous) */
static Tensor *matmul_fold(TensorRunner run, Tensor *t1, Tensor *t2) {
    int d1 = t1->ndim, d2 = t2->ndim;
    bool transpose = d2 > d1;
    TensorOpArgs ta = TENSOR_OP_ARGS_INIT;
    Tensor *big = NULL, *small = NULL, *f = NULL, *m = NULL, *v = NULL, *r = NULL;
    if (transpose) {
        ta.dim = t2->ndim - 1;
        ta.dim2 = t2->ndim - 2;
        if (!(big = r1(run, TENSOR_OP_TRANSPOSE, &t2, 1, &ta))) goto done;
        TensorOpArgs d = TENSOR_OP_ARGS_INIT;
        if (d1 == 2) {
            if (!(small = r1(run, TENSOR_OP_T, &t1, 1, &d))) goto done;
        } else {
            tensor_incref(t1);
            small = t1;
        }
    } else {
        tensor_incref(t1);
        tensor_incref(t2);
        big = t1;
        small = t2;
    }
    int nb = big->ndim;
    int64_t shape[TENSOR_MAX_DIMS], rows = 1;
    int n = 0;
    for (int i = 0; i < nb - 1; i++) rows *= (shape[n++] = big->shape[i]);
    if (small->ndim == 2) shape[n++] = small->shape[1];
    int64_t flat[2] = {rows, big->shape[nb - 1]};
    if (!(f = tensor__composite_reshape(run, big, 2, flat))) goto done;
    if (!(m = run2(run, small->ndim == 2 ? TENSOR_OP_MM : TENSOR_OP_MV, f, small))) goto done;
    if (!(v = run_shape(run, TENSOR_OP_UNSAFE_VIEW, m, n, shape))) goto done;
    if (transpose && small->ndim == 2) {
        ta.dim = n - 1;
        ta.dim2 = n - 2;
        Tensor *vt = r1(run, TENSOR_OP_TRANSPOSE, &v, 1, &ta);
        if (vt) {
            TensorOpArgs d = TENSOR_OP_ARGS_INIT;
            r = r1(run, TENSOR_OP_CONTIGUOUS, &vt, 1, &d);
            tensor_decref(vt);
        }
    } else {
        tensor_incref(v);
        r = v;
    }
done:
    tensor_decref(big);
    tensor_decref(small);
    tensor_decref(f);
    tensor_decref(m);
    tensor_decref(v);
    return r;
}

static Tensor *matmul(TensorRunner run, Tensor *t1, Tensor *t2) {
    int d1 = t1->ndim, d2 = t2->ndim;
    if (matmul_check(d1, d2) < 0) return NULL;
    if (d1 == 1 && d2 == 1) return run2(run, TENSOR_OP_DOT, t1, t2);
    if (d1 == 2 && d2 == 1) return run2(run, TENSOR_OP_MV, t1, t2);
    if (d1 == 2 && d2 == 2) return run2(run, TENSOR_OP_MM, t1, t2);
    if (d1 == 1 && d2 == 2) {
        Tensor *u = run_dim(run, TENSOR_OP_UNSQUEEZE, t1, 0);
        if (!u) return NULL;
        Tensor *m = run2(run, TENSOR_OP_MM, u, t2);
        tensor_decref(u);
        if (!m) return NULL;
        Tensor *r = run_dim(run, TENSOR_OP_SQUEEZE_DIM, m, 0);
        tensor_decref(m);
        return r;
    }
    if (should_fold(t1, d2) || should_fold(t2, d1)) return matmul_fold(run, t1, t2);
    /* batched: broadcast the batch dims, bmm, and view back */
    Tensor *a = d1 == 1 ? run_dim(run, TENSOR_OP_UNSQUEEZE, t1, 0) : (tensor_incref(t1), t1);
    Tensor *b = a ? (d2 == 1 ? run_dim(run, TENSOR_OP_UNSQUEEZE, t2, -1) : (tensor_incref(t2), t2)) : NULL;
    Tensor *ea = NULL, *eb = NULL, *ra = NULL, *rb = NULL, *o = NULL, *r = NULL;
    if (!b) goto done;
    int na = a->ndim, nb = b->ndim;
    int64_t n = a->shape[na - 2], k = a->shape[na - 1], k2 = b->shape[nb - 2], m = b->shape[nb - 1];
    int nbatch;
    int64_t batch[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(na - 2, a->shape, nb - 2, b->shape, &nbatch, batch) < 0) goto done;
    if (nbatch + 2 > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        goto done;
    }
    int64_t B = tensor__shape_numel(nbatch, batch);
    int64_t sa[TENSOR_MAX_DIMS], sb[TENSOR_MAX_DIMS];
    memcpy(sa, batch, sizeof(int64_t) * (size_t)nbatch);
    memcpy(sb, batch, sizeof(int64_t) * (size_t)nbatch);
    sa[nbatch] = n;
    sa[nbatch + 1] = k;
    sb[nbatch] = k2;
    sb[nbatch + 1] = m;
    if (!(ea = run_shape(run, TENSOR_OP_EXPAND, a, nbatch + 2, sa))) goto done;
    if (!(eb = run_shape(run, TENSOR_OP_EXPAND, b, nbatch + 2, sb))) goto done;
    int64_t s3a[3] = {B, n, k}, s3b[3] = {B, k2, m};
    if (!(ra = tensor__composite_reshape(run, ea, 3, s3a))) goto done;
    if (!(rb = tensor__composite_reshape(run, eb, 3, s3b))) goto done;
    if (!(o = run2(run, TENSOR_OP_BMM, ra, rb))) goto done;
    int64_t os[TENSOR_MAX_DIMS];
    int no = nbatch;
    memcpy(os, batch, sizeof(int64_t) * (size_t)nbatch);
    if (d1 > 1) os[no++] = n;
    if (d2 > 1) os[no++] = m;
    r = run_shape(run, TENSOR_OP_UNSAFE_VIEW, o, no, os);
done:
    tensor_decref(a);
    tensor_decref(b);
    tensor_decref(ea);
    tensor_decref(eb);
    tensor_decref(ra);
    tensor_decref(rb);
    tensor_decref(o);
    return r;
}

static Tensor *linear(TensorRunner run, Tensor *x, Tensor *w, Tensor *bias) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    Tensor *wt = r1(run, TENSOR_OP_T, &w, 1, &a);
    if (!wt) return NULL;
    Tensor *r = NULL;
    if (bias && x->ndim == 2) {
        Tensor *in[3] = {bias, x, wt};
        r = r1(run, TENSOR_OP_ADDMM, in, 3, &a);
    } else if (bias && x->ndim == 3 && tensor_is_contiguous(x)) {
        int64_t flat[2] = {-1, x->shape[2]};
        Tensor *f = run_shape(run, TENSOR_OP_VIEW, x, 2, flat);
        if (f) {
            Tensor *in[3] = {bias, f, wt};
            Tensor *o = r1(run, TENSOR_OP_ADDMM, in, 3, &a);
            tensor_decref(f);
            if (o) {
                int64_t shape[3] = {x->shape[0], x->shape[1], o->shape[1]};
                r = run_shape(run, TENSOR_OP_VIEW, o, 3, shape);
                tensor_decref(o);
            }
        }
    } else {
        Tensor *o = matmul(run, x, wt);
        if (o && bias) {
            r = run2(run, TENSOR_OP_ADD, o, bias);
            tensor_decref(o);
        } else {
            r = o;
        }
    }
    tensor_decref(wt);
    return r;
}

/* ---- the composites' table entries (ops.def KC columns): decomposition and output metadata ---- */

#define COMP(NAME)                                                                                                     \
    int tensor__comp_##NAME(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a,          \
                            Tensor **out, int n_out)

static int one(Tensor *r, Tensor **out) {
    if (!r) return -1;
    out[0] = r;
    return 1;
}

static int same(Tensor *x, Tensor **out) {
    tensor_incref(x);
    out[0] = x;
    return 1;
}

COMP(reshape) {
    (void)op, (void)n_in, (void)n_out;
    return one(tensor__composite_reshape(run, in[0], a->n_ints, a->ints), out);
}

COMP(flatten) {
    (void)op, (void)n_in, (void)n_out;
    Tensor *x = in[0];
    int n;
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__flatten_shape(x->ndim, x->shape, a->dim, a->dim2, &n, sh) < 0) return -1;
    if (x->ndim != 0 && n == x->ndim) return same(x, out);
    return one(tensor__composite_reshape(run, x, n, sh), out);
}

/* x itself when already contiguous in args.memory_format, else a clone laid out in it */
static int contiguous_format(const TensorOpArgs *a, int nd, const int64_t *shape, const int64_t *strides,
                             TensorMemoryFormat *mf) {
    *mf = a->memory_format == TENSOR_MF_UNSET ? TENSOR_MF_CONTIGUOUS : (TensorMemoryFormat)a->memory_format;
    if (tensor__contiguous_as(nd, shape, strides, *mf)) return 1;
    if (*mf == TENSOR_MF_PRESERVE) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "preserve memory format is unsupported by the contiguous operator");
        return -1;
    }
    return 0;
}

COMP(contiguous) {
    (void)op, (void)n_in, (void)n_out;
    Tensor *x = in[0];
    TensorMemoryFormat mf;
    int already = contiguous_format(a, x->ndim, x->shape, x->strides, &mf);
    if (already < 0) return -1;
    if (already) return same(x, out);
    TensorOpArgs d = TENSOR_OP_ARGS_INIT;
    d.memory_format = (uint8_t)mf;
    return one(r1(run, TENSOR_OP_CLONE, &x, 1, &d), out);
}

COMP(narrow) {
    (void)op, (void)n_in, (void)n_out;
    Tensor *x = in[0];
    TensorOpArgs s;
    if (tensor__narrow_args(x, a->dim, a->start, a->step, &s) < 0) return -1;
    return one(r1(run, TENSOR_OP_SLICE, &x, 1, &s), out);
}

COMP(chunk) {
    (void)op, (void)n_in;
    Tensor *x = in[0];
    int64_t ss, d;
    if (tensor__chunk_split_size(x, a->start, a->dim, &ss, &d) < 0) return -1;
    TensorOpArgs s = TENSOR_OP_ARGS_INIT;
    s.start = ss;
    s.dim = d;
    return run(TENSOR_OP_SPLIT, &x, 1, &s, out, n_out);
}

COMP(matmul) {
    (void)op, (void)n_in, (void)a, (void)n_out;
    return one(matmul(run, in[0], in[1]), out);
}

COMP(linear) {
    (void)op, (void)a, (void)n_out;
    return one(linear(run, in[0], in[1], n_in > 2 ? in[2] : NULL), out);
}

COMP(cross_entropy) {
    (void)op, (void)n_out;
    Tensor *x = in[0];
    TensorOpArgs s = TENSOR_OP_ARGS_INIT;
    if (x->ndim < 1) {
        tensor_error_set(TENSOR_ERR_VALUE, "Expected 2 or 1 dimensions (got 0)");
        return -1;
    }
    s.dim = x->ndim == 1 ? 0 : 1;
    Tensor *lsm = r1(run, TENSOR_OP_LOG_SOFTMAX, &x, 1, &s);
    if (!lsm) return -1;
    Tensor *nin[3] = {lsm, in[1], n_in > 2 ? in[2] : NULL};
    Tensor *r = r1(run, TENSOR_OP_NLL_LOSS, nin, n_in > 2 && in[2] ? 3 : 2, a);
    tensor_decref(lsm);
    return one(r, out);
}

/* ---- inference --------------------------------------------------------------------------------- */

static int infer_matmul(const TensorMeta *x, const TensorMeta *y, TensorMeta *out) {
    int d1 = x->ndim, d2 = y->ndim;
    if (matmul_check(d1, d2) < 0) return -1;
    /* the dtype checks of the product matmul dispatches to (dot, mv, mm or bmm) */
    if (d1 == 1 && d2 == 1 && x->dtype != y->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found %s and %s",
                         tensor__cname(x->dtype), tensor__cname(y->dtype));
        return -1;
    }
    if (x->dtype == TENSOR_BOOL || x->dtype == TENSOR_FLOAT16) {
        const char *k = d1 == 1 && d2 == 1 ? "dot" : d1 >= 3 || d2 >= 3 ? "bmm" : d2 == 1 ? "addmv_impl_cpu" : "addmm_impl_cpu_";
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", k, tensor__cname(x->dtype));
        return -1;
    }
    if (x->dtype != y->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "expected scalar type %s but found %s", tensor__cname(x->dtype), tensor__cname(y->dtype));
        return -1;
    }
    int64_t k1 = x->shape[d1 - 1], k2 = d2 == 1 ? y->shape[0] : y->shape[d2 - 2];
    if (k1 != k2) {
        if (d1 == 1 && d2 == 1)
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                             (long long)k1, (long long)k2, (long long)k1, (long long)k2);
        else if (d2 == 1)
            tensor_error_set(TENSOR_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                             (long long)(d1 >= 2 ? x->shape[d1 - 2] : 1), (long long)(d1 >= 2 ? x->shape[d1 - 2] : 1), (long long)k1,
                             (long long)k2);
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                             (long long)(d1 >= 2 ? tensor__shape_numel(d1 - 1, x->shape) : 1), (long long)k1, (long long)k2,
                             (long long)y->shape[d2 - 1]);
        return -1;
    }
    int nbatch = 0;
    int64_t batch[TENSOR_MAX_DIMS];
    if (d1 > 2 || d2 > 2) {
        int na = d1 > 2 ? d1 - 2 : 0, nb = d2 > 2 ? d2 - 2 : 0;
        if (tensor__broadcast_shapes(na, x->shape, nb, y->shape, &nbatch, batch) < 0) return -1;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int n = nbatch;
    memcpy(shape, batch, sizeof(int64_t) * (size_t)nbatch);
    if (d1 > 1) shape[n++] = x->shape[d1 - 2];
    if (d2 > 1) shape[n++] = y->shape[d2 - 1];
    tensor__meta_contiguous(out, x->dtype, n, shape);
    return 1;
}

TENSOR_INFER(reshape) {
    (void)op, (void)n_in, (void)max_out;
    return tensor__reshape_meta(in[0], a->n_ints, a->ints, out);
}

TENSOR_INFER(flatten) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    int n;
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__flatten_shape(x->ndim, x->shape, a->dim, a->dim2, &n, sh) < 0) return -1;
    if (x->ndim != 0 && n == x->ndim) {
        *out = *x;
        return 1;
    }
    return tensor__reshape_meta(x, n, sh, out);
}

TENSOR_INFER(contiguous) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    TensorMemoryFormat mf;
    int already = contiguous_format(a, x->ndim, x->shape, x->strides, &mf);
    if (already < 0) return -1;
    if (already) {
        *out = *x;
    } else {
        tensor__meta_contiguous(out, x->dtype, x->ndim, x->shape);
        if (tensor_memory_format_strides(mf, x->ndim, x->shape, x->strides, out->strides) < 0) return -1;
    }
    out->wrapped_number = false;
    return 1;
}

TENSOR_INFER(narrow) {
    (void)n_in;
    const TensorMeta *x = in[0];
    if (x->ndim == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
        return -1;
    }
    int64_t d = tensor__wrap_dim(a->dim, x->ndim);
    if (d < 0) return -1;
    int64_t size = x->shape[d], start = a->start < 0 ? a->start + size : a->start;
    if (start < 0 || start + a->step > size || a->step < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start,
                         (long long)a->step, (long long)size);
        return -1;
    }
    TensorOpArgs s = TENSOR_OP_ARGS_INIT;
    s.dim = d;
    s.start = start;
    s.end = start + a->step;
    return tensor__infer_slice(TENSOR_OP_SLICE, in, 1, &s, out, max_out);
}

TENSOR_INFER(chunk) {
    (void)n_in;
    const TensorMeta *x = in[0];
    if (a->start <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)a->start);
        return -1;
    }
    int64_t d = tensor__wrap_dim(a->dim, x->ndim);
    if (d < 0) return -1;
    TensorOpArgs s = TENSOR_OP_ARGS_INIT;
    s.dim = d;
    s.start = (x->shape[d] + a->start - 1) / a->start;
    return tensor__infer_split(TENSOR_OP_SPLIT, in, 1, &s, out, max_out);
}

TENSOR_INFER(matmul) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    return infer_matmul(in[0], in[1], out);
}

TENSOR_INFER(linear) {
    (void)op, (void)a, (void)max_out;
    const TensorMeta *x = in[0], *w = in[1];
    if (w->ndim != 2 && w->ndim != 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD", w->ndim);
        return -1;
    }
    TensorMeta wt = *w;
    if (w->ndim == 2) {
        wt.shape[0] = w->shape[1];
        wt.shape[1] = w->shape[0];
    }
    if (infer_matmul(x, &wt, out) < 0) return -1;
    if (n_in > 2 && in[2]) {
        int nd;
        int64_t s[TENSOR_MAX_DIMS];
        if (tensor__broadcast_shapes(out->ndim, out->shape, in[2]->ndim, in[2]->shape, &nd, s) < 0) return -1;
        tensor__meta_contiguous(out, out->dtype, nd, s);
    }
    return 1;
}

TENSOR_INFER(cross_entropy) {
    (void)op, (void)max_out;
    const TensorMeta *x = in[0];
    if (x->ndim < 1) {
        tensor_error_set(TENSOR_ERR_VALUE, "Expected 2 or 1 dimensions (got 0)");
        return -1;
    }
    return tensor__nll_check(x, in[1], n_in > 2 ? in[2] : NULL, a->reduction, out) < 0 ? -1 : 1;
}

/* ---- public wrappers of the composites (no autograd) ----------------------------------------------- */

Tensor *tensor_matmul(Tensor *a, Tensor *b) { return matmul(tensor_op_run, a, b); }
Tensor *tensor_linear(Tensor *input, Tensor *weight, Tensor *bias) { return linear(tensor_op_run, input, weight, bias); }

Tensor *tensor_cross_entropy(const Tensor *logits, const Tensor *target, const Tensor *weight, TensorReduction reduction,
                             int64_t ignore_index) {
    Tensor *in[3] = {(Tensor *)logits, (Tensor *)target, (Tensor *)weight}, *r = NULL;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.reduction = reduction;
    a.ignore_index = ignore_index;
    return tensor__run_composite(TENSOR_OP_CROSS_ENTROPY, tensor_op_run, in, weight ? 3 : 2, &a, &r, 1) < 0 ? NULL : r;
}
