/* shape.c — movement ops: the geometry of every view (view, as_strided, transpose, t, permute,
 * expand, slice, select, diagonal, unsqueeze, squeeze, split, unbind), reshape/flatten/contiguous/narrow
 * /chunk which resolve to them, and cat/stack which copy.  Each view's geometry is computed by
 * one inference function from the input's meta, so tensor_op_infer and the kernels agree. */
#include "src/tensor/shape.h"

#include <stdio.h>

static int fail_shape(const char *prefix, int ndim, const int64_t *shape, int64_t numel) {
    char buf[256];
    tensor__format_shape(buf, sizeof buf, ndim, shape);
    tensor_error_set(TENSOR_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld", buf, (long long)numel);
    (void)prefix;
    return -1;
}

/* Resolves one -1 in `shape` for `numel` elements. */
int tensor__infer_size(int n, const int64_t *shape, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t prod = 1;
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "only one dimension can be inferred");
                return -1;
            }
            infer = i;
        } else if (shape[i] >= 0) {
            prod *= shape[i];
        } else {
            tensor_error_set(TENSOR_ERR_RUNTIME, "invalid shape dimension %lld", (long long)shape[i]);
            return -1;
        }
        out[i] = shape[i];
    }
    if (infer >= 0) {
        if (prod == 0) {
            char buf[256];
            tensor__format_shape(buf, sizeof buf, n, shape);
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous",
                             buf);
            return -1;
        }
        if (numel % prod != 0) return fail_shape("", n, shape, numel);
        out[infer] = numel / prod;
    } else if (prod != numel) {
        return fail_shape("", n, shape, numel);
    }
    return 0;
}

/* Strides for viewing (oshape, ostride) as nshape without copying, or false if impossible
 * (a dimension of the view would span two non-contiguous chunks of the input). */
static bool view_strides(int on, const int64_t *oshape, const int64_t *ostride, int nn, const int64_t *nshape,
                         int64_t *nstride) {
    int64_t numel = tensor__shape_numel(on, oshape);
    if (on == 0) {
        for (int i = 0; i < nn; i++) nstride[i] = 1;
        return true;
    }
    if (numel == 0) {
        tensor__compute_contiguous_strides(nn, nshape, nstride);
        return true;
    }
    int vd = nn - 1;
    int64_t chunk_stride = ostride[on - 1];
    int64_t tnumel = 1, vnumel = 1;
    for (int td = on - 1; td >= 0; td--) {
        tnumel *= oshape[td];
        bool chunk_end = td == 0 || (oshape[td - 1] != 1 && ostride[td - 1] != tnumel * chunk_stride);
        if (!chunk_end) continue;
        while (vd >= 0 && (vnumel < tnumel || nshape[vd] == 1)) {
            nstride[vd] = vnumel * chunk_stride;
            vnumel *= nshape[vd];
            vd--;
        }
        if (vnumel != tnumel) return false;
        if (td > 0) {
            chunk_stride = ostride[td - 1];
            tnumel = 1;
            vnumel = 1;
        }
    }
    return vd == -1;
}

static void copy_meta(TensorMeta *o, const TensorMeta *in) {
    *o = *in;
    o->wrapped_number = false;
}

static int check_index(int64_t *idx, int64_t size, int64_t dim) {
    int64_t i = *idx;
    if (i < -size || i >= size) {
        tensor_error_set(TENSOR_ERR_INDEX, "index %lld is out of bounds for dimension %lld with size %lld", (long long)i,
                         (long long)dim, (long long)size);
        return -1;
    }
    if (i < 0) *idx = i + size;
    return 0;
}

/* Python slice clamping for start/end; returns the length. */
static int64_t clamp_slice(int64_t size, int64_t *start, int64_t *end, int64_t step) {
    int64_t s = *start, e = *end;
    if (s < 0) s += size;
    if (e < 0) e += size;
    if (s < 0) s = 0;
    if (s > size) s = size;
    if (e < s) e = s;
    if (e > size) e = size;
    *start = s;
    *end = e;
    return (e - s + step - 1) / step;
}

/* split_with_sizes: args.ints, which must sum to the dim's size */
static int split_with_sizes(const TensorMeta *in, TensorOp op, const TensorOpArgs *a, int64_t dim, int64_t *sizes, int max) {
    int64_t size = in->ndim ? in->shape[dim] : 1;
    int64_t sum = 0;
    for (int i = 0; i < a->n_ints; i++) sum += a->ints[i];
    if (sum != size || a->n_ints == 0) {
        char buf[256];
        tensor__format_shape(buf, sizeof buf, a->n_ints, a->ints);
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %lld), but got split_sizes=%s",
                         (long long)size, (long long)dim, buf);
        return -1;
    }
    if (a->n_ints > max) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "too many outputs for %s (at most %d)", tensor_op_name(op), max);
        return -1;
    }
    for (int i = 0; i < a->n_ints; i++) sizes[i] = a->ints[i];
    return a->n_ints;
}

/* split: pieces of args.start elements (the last one shorter) */
static int split_sizes(const TensorMeta *in, TensorOp op, const TensorOpArgs *a, int64_t dim, int64_t *sizes, int max) {
    int64_t size = in->ndim ? in->shape[dim] : 1;
    int n = 0;
    int64_t ss = a->start;
    if (ss <= 0 && !(ss == 0 && size == 0)) {
        if (ss == 0)
            tensor_error_set(TENSOR_ERR_RUNTIME, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                             (long long)size);
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "split expects split_size be non-negative, but got split_size=%lld", (long long)ss);
        return -1;
    }
    if (size == 0) {
        if (max < 1) goto too_many;
        sizes[0] = 0;
        return 1;
    }
    for (int64_t off = 0; off < size; off += ss) {
        if (n >= max) goto too_many;
        sizes[n++] = off + ss <= size ? ss : size - off;
    }
    return n;
too_many:
    tensor_error_set(TENSOR_ERR_RUNTIME, "too many outputs for %s (at most %d)", tensor_op_name(op), max);
    return -1;
}

/* ---- the movement ops' table entries (ops.def K columns) ----------------------------------------- */

/* The prologue of a view op's metadata: input 0, output 0, the input's ndim. */
#define VIEW_INFER(NAME)                                                                                               \
    static int NAME##_meta(TensorOp op, const TensorMeta *const *ins, const TensorMeta *in, int nd, const TensorOpArgs *a, \
                           TensorMeta *out, TensorMeta *o, int max_out);                                               \
    TENSOR_INFER(NAME) {                                                                                               \
        (void)n_in;                                                                                                    \
        return NAME##_meta(op, in, in[0], in[0]->ndim, a, out, &out[0], max_out);                                      \
    }                                                                                                                  \
    static int NAME##_meta(TensorOp op, const TensorMeta *const *ins, const TensorMeta *in, int nd, const TensorOpArgs *a, \
                           TensorMeta *out, TensorMeta *o, int max_out)
#define UNUSED_META (void)op, (void)ins, (void)in, (void)nd, (void)a, (void)out, (void)o, (void)max_out

VIEW_INFER(view) {
    UNUSED_META;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t numel = tensor__shape_numel(in->ndim, in->shape);
    if (tensor__infer_size(a->n_ints, a->ints, numel, shape) < 0) return -1;
    copy_meta(o, in);
    o->ndim = a->n_ints;
    memcpy(o->shape, shape, sizeof(int64_t) * (size_t)a->n_ints);
    if (!view_strides(in->ndim, in->shape, in->strides, a->n_ints, shape, o->strides)) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return -1;
    }
    return 1;
}

VIEW_INFER(as_strided) {
    UNUSED_META;
    if (a->n_ints != a->n_ints2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mismatch in length of strides and shape");
        return -1;
    }
    if (a->n_ints > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    copy_meta(o, in);
    o->ndim = a->n_ints;
    for (int i = 0; i < a->n_ints; i++) {
        if (a->ints[i] < 0 || a->ints2[i] < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "as_strided: Negative strides or sizes are not supported");
            return -1;
        }
        o->shape[i] = a->ints[i];
        o->strides[i] = a->ints2[i];
    }
    o->offset = a->start >= 0 ? a->start : in->offset;
    return 1;
}

VIEW_INFER(transpose) {
    UNUSED_META;
    int64_t d0 = tensor__wrap_dim(a->dim, nd), d1 = d0 < 0 ? -1 : tensor__wrap_dim(a->dim2, nd);
    if (d0 < 0 || d1 < 0) return -1;
    copy_meta(o, in);
    if (nd) {
        o->shape[d0] = in->shape[d1];
        o->shape[d1] = in->shape[d0];
        o->strides[d0] = in->strides[d1];
        o->strides[d1] = in->strides[d0];
    }
    return 1;
}

VIEW_INFER(t) {
    UNUSED_META;
    if (nd > 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD", nd);
        return -1;
    }
    copy_meta(o, in);
    if (nd == 2) {
        o->shape[0] = in->shape[1];
        o->shape[1] = in->shape[0];
        o->strides[0] = in->strides[1];
        o->strides[1] = in->strides[0];
    }
    return 1;
}

VIEW_INFER(permute) {
    UNUSED_META;
    if (a->n_ints != nd) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
                         nd, a->n_ints);
        return -1;
    }
    bool seen[TENSOR_MAX_DIMS] = {0};
    copy_meta(o, in);
    for (int i = 0; i < nd; i++) {
        int64_t d = tensor__wrap_dim(a->ints[i], nd);
        if (d < 0) return -1;
        if (seen[d]) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
            return -1;
        }
        seen[d] = true;
        o->shape[i] = in->shape[d];
        o->strides[i] = in->strides[d];
    }
    return 1;
}

VIEW_INFER(expand) {
    UNUSED_META;
    int n = a->n_ints;
    if (n < nd) {
        char buf[256], buf2[256];
        tensor__format_shape(buf, sizeof buf, nd, in->shape);
        tensor__format_shape(buf2, sizeof buf2, n, a->ints);
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                         tensor__dtypes[in->dtype].type_str, buf, buf2, n, nd);
        return -1;
    }
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    copy_meta(o, in);
    o->ndim = n;
    for (int i = n - 1; i >= 0; i--) {
        int id = i - (n - nd);
        int64_t target = a->ints[i];
        if (id < 0) {
            if (target < 0) {
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "The expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d",
                                 (long long)target, i);
                return -1;
            }
            o->shape[i] = target;
            o->strides[i] = 0;
            continue;
        }
        int64_t size = in->shape[id];
        if (target == -1) target = size;
        if (size == target) {
            o->shape[i] = size;
            o->strides[i] = in->strides[id];
        } else if (size == 1) {
            o->shape[i] = target;
            o->strides[i] = 0;
        } else {
            char t1[256], t2[256];
            tensor__format_shape(t1, sizeof t1, n, a->ints);
            tensor__format_shape(t2, sizeof t2, nd, in->shape);
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                             (long long)target, (long long)size, i, t1, t2);
            return -1;
        }
    }
    return 1;
}

VIEW_INFER(slice) {
    UNUSED_META;
    if (nd == 0) {
        tensor_error_set(TENSOR_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
        return -1;
    }
    int64_t d = tensor__wrap_dim(a->dim, nd);
    if (d < 0) return -1;
    if (a->step <= 0) {
        tensor_error_set(TENSOR_ERR_VALUE, a->step == 0 ? "slice step cannot be zero" : "step must be greater than zero");
        return -1;
    }
    int64_t start = a->start, end = a->end;
    int64_t len = clamp_slice(in->shape[d], &start, &end, a->step);
    copy_meta(o, in);
    o->offset = in->offset + start * in->strides[d];
    o->shape[d] = len;
    o->strides[d] = in->strides[d] * a->step;
    return 1;
}

VIEW_INFER(select) {
    UNUSED_META;
    if (nd == 0) {
        tensor_error_set(TENSOR_ERR_INDEX,
                         "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
        return -1;
    }
    int64_t d = tensor__wrap_dim(a->dim, nd);
    if (d < 0) return -1;
    int64_t idx = a->start;
    if (check_index(&idx, in->shape[d], d) < 0) return -1;
    copy_meta(o, in);
    o->offset = in->offset + idx * in->strides[d];
    for (int i = (int)d; i < nd - 1; i++) {
        o->shape[i] = in->shape[i + 1];
        o->strides[i] = in->strides[i + 1];
    }
    o->ndim = nd - 1;
    return 1;
}

/* diagonal: start=offset, dim=dim1, dim2; the other dims in order, then the diagonal, whose
 * stride is the sum of the two (ATen's diagonal) */
VIEW_INFER(diagonal) {
    UNUSED_META;
    int64_t d1 = tensor__wrap_dim(a->dim, nd), d2 = d1 < 0 ? -1 : tensor__wrap_dim(a->dim2, nd);
    if (d2 < 0) return -1;
    if (d1 == d2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld", (long long)a->dim,
                         (long long)a->dim2);
        return -1;
    }
    int64_t off = a->start, len;
    copy_meta(o, in);
    if (off >= 0) {
        len = in->shape[d1] < in->shape[d2] - off ? in->shape[d1] : in->shape[d2] - off;
    } else {
        len = in->shape[d1] + off < in->shape[d2] ? in->shape[d1] + off : in->shape[d2];
    }
    if (len <= 0) {
        len = 0;
    } else {
        o->offset = in->offset + (off >= 0 ? off * in->strides[d2] : -off * in->strides[d1]);
    }
    int k = 0;
    for (int i = 0; i < nd; i++) {
        if (i == d1 || i == d2) continue;
        o->shape[k] = in->shape[i];
        o->strides[k++] = in->strides[i];
    }
    o->shape[k] = len;
    o->strides[k++] = in->strides[d1] + in->strides[d2];
    o->ndim = k;
    return 1;
}

VIEW_INFER(unsqueeze) {
    UNUSED_META;
    if (nd >= TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    int64_t d = tensor__wrap_dim(a->dim, nd + 1);
    if (d < 0) return -1;
    copy_meta(o, in);
    for (int i = nd; i > d; i--) {
        o->shape[i] = in->shape[i - 1];
        o->strides[i] = in->strides[i - 1];
    }
    o->shape[d] = 1;
    o->strides[d] = d >= nd ? 1 : in->shape[d] * in->strides[d];
    o->ndim = nd + 1;
    return 1;
}

static int squeeze_meta(const TensorMeta *in, int64_t only, TensorMeta *o) {
    int nd = in->ndim;
    copy_meta(o, in);
    int k = 0;
    for (int i = 0; i < nd; i++) {
        bool drop = in->shape[i] == 1 && (only < 0 || only == i);
        if (drop) continue;
        o->shape[k] = in->shape[i];
        o->strides[k] = in->strides[i];
        k++;
    }
    o->ndim = k;
    return 1;
}

TENSOR_INFER(squeeze) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    return squeeze_meta(in[0], -1, out);
}

TENSOR_INFER(squeeze_dim) {
    (void)op, (void)n_in, (void)max_out;
    int64_t only = tensor__wrap_dim(a->dim, in[0]->ndim);
    if (only < 0) return -1;
    return squeeze_meta(in[0], only, out);
}

/* the dim split / unbind cut (wrapped); -1 on a 0-dim input */
static int64_t split_dim(const TensorMeta *in, const TensorOpArgs *a) {
    if (in->ndim == 0) {
        tensor_error_set(TENSOR_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions", (long long)a->dim);
        return -1;
    }
    return tensor__wrap_dim(a->dim, in->ndim);
}

/* consecutive slices of `in` along d of the given sizes */
static int split_meta(const TensorMeta *in, int64_t d, const int64_t *sizes, int n, TensorMeta *out) {
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        copy_meta(&out[i], in);
        out[i].shape[d] = sizes[i];
        out[i].offset = in->offset + off * in->strides[d];
        off += sizes[i];
    }
    return n;
}

TENSOR_INFER(split) {
    (void)n_in;
    int64_t d = split_dim(in[0], a);
    if (d < 0) return -1;
    int64_t sizes[1024];
    int n = split_sizes(in[0], op, a, d, sizes, max_out < 1024 ? max_out : 1024);
    return n < 0 ? -1 : split_meta(in[0], d, sizes, n, out);
}

TENSOR_INFER(split_with_sizes) {
    (void)n_in;
    int64_t d = split_dim(in[0], a);
    if (d < 0) return -1;
    int64_t sizes[1024];
    int n = split_with_sizes(in[0], op, a, d, sizes, max_out < 1024 ? max_out : 1024);
    return n < 0 ? -1 : split_meta(in[0], d, sizes, n, out);
}

TENSOR_INFER(unbind) {
    (void)op, (void)n_in;
    int64_t d = split_dim(in[0], a);
    if (d < 0) return -1;
    if (in[0]->shape[d] > max_out) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "too many outputs for unbind (at most %d)", max_out);
        return -1;
    }
    for (int64_t i = 0; i < in[0]->shape[d]; i++) {
        TensorOpArgs sa = *a;
        sa.dim = d;
        sa.start = i;
        if (tensor__infer_select(TENSOR_OP_SELECT, in, 1, &sa, &out[i], 1) < 0) return -1;
    }
    return (int)in[0]->shape[d];
}

TENSOR_INFER(detach) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    copy_meta(out, in[0]);
    return 1;
}

/* A view op's kernel: its outputs are views of input 0 with the geometry `infer` gives. */
static inline int make_views(TensorInferFn infer, TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                             int n_out) {
    TensorMeta mi;
    tensor_meta_of(in[0], &mi);
    const TensorMeta *pm = &mi;
    TensorMeta stack_metas[4];
    TensorMeta *metas = stack_metas;
    int cap = 4;
    if (n_out > 4) {
        metas = malloc(sizeof(TensorMeta) * (size_t)n_out);
        if (!metas) return tensor__oom();
        cap = n_out;
    }
    int n = infer(op, &pm, n_in, a, metas, cap);
    if (n < 0) goto done;
    if (n > n_out) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s produces %d outputs but room for %d was given", tensor_op_name(op), n, n_out);
        n = -1;
        goto done;
    }
    for (int i = 0; i < n; i++) {
        out[i] = tensor__make_view(in[0], metas[i].ndim, metas[i].shape, metas[i].strides, metas[i].offset);
        if (!out[i]) {
            for (int j = 0; j < i; j++) tensor_decref(out[j]);
            n = -1;
            goto done;
        }
    }
done:
    if (metas != stack_metas) free(metas);
    return n;
}

#define VIEW_RUN(NAME)                                                                                                 \
    TENSOR_RUN(NAME) { return make_views(tensor__infer_##NAME, op, in, n_in, a, out, n_out); }
VIEW_RUN(view)
VIEW_RUN(as_strided)
VIEW_RUN(transpose)
VIEW_RUN(t)
VIEW_RUN(permute)
VIEW_RUN(expand)
VIEW_RUN(slice)
VIEW_RUN(select)
VIEW_RUN(diagonal)
VIEW_RUN(unsqueeze)
VIEW_RUN(squeeze)
VIEW_RUN(squeeze_dim)
VIEW_RUN(split)
VIEW_RUN(split_with_sizes)
VIEW_RUN(unbind)

/* detach: an alias sharing storage and version counter, not requiring grad */
TENSOR_RUN1(detach, tensor__alias(in[0], true))

static Tensor *view1(TensorRunFn run, TensorOp op, Tensor *t, const TensorOpArgs *a) {
    Tensor *r = NULL;
    return run(op, &t, 1, a, &r, 1) < 0 ? NULL : r;
}

/* ---- composites: reshape / flatten / narrow / chunk ------------------------------------------- */

bool tensor__can_view(const Tensor *t, int n, const int64_t *shape) {
    int64_t st[TENSOR_MAX_DIMS];
    return view_strides(t->ndim, t->shape, t->strides, n, shape, st);
}

int tensor__reshape_meta(const TensorMeta *in, int n, const int64_t *shape, TensorMeta *o) {
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__infer_size(n, shape, tensor__shape_numel(in->ndim, in->shape), sh) < 0) return -1;
    copy_meta(o, in);
    o->ndim = n;
    memcpy(o->shape, sh, sizeof(int64_t) * (size_t)n);
    if (!view_strides(in->ndim, in->shape, in->strides, n, sh, o->strides)) {
        tensor__compute_contiguous_strides(n, sh, o->strides);
        o->offset = 0;
    }
    return 1;
}

/* flatten(start, end) as the shape it reshapes to */
int tensor__flatten_shape(int nd, const int64_t *shape, int64_t start, int64_t end, int *nout, int64_t *out) {
    if (nd == 0) {
        *nout = 1;
        out[0] = 1;
        return 0;
    }
    int64_t s = tensor__wrap_dim(start, nd);
    if (s < 0) return -1;
    int64_t e = tensor__wrap_dim(end, nd);
    if (e < 0) return -1;
    if (s > e) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "flatten() has invalid args: start_dim cannot come after end_dim");
        return -1;
    }
    int k = 0;
    for (int i = 0; i < s; i++) out[k++] = shape[i];
    int64_t p = 1;
    for (int64_t i = s; i <= e; i++) p *= shape[i];
    out[k++] = p;
    for (int i = (int)e + 1; i < nd; i++) out[k++] = shape[i];
    *nout = k;
    return 0;
}

Tensor *tensor_view(Tensor *t, const int64_t *shape, int ndim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    return view1(tensor__run_view, TENSOR_OP_VIEW, t, &a);
}

Tensor *tensor_reshape(Tensor *t, const int64_t *shape, int ndim) {
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__infer_size(ndim, shape, t->numel, sh) < 0) return NULL;
    if (tensor__can_view(t, ndim, sh)) return tensor_view(t, sh, ndim);
    Tensor *c = tensor_clone(t);
    if (!c) return NULL;
    Tensor *r = tensor_view(c, sh, ndim);
    tensor_decref(c);
    return r;
}

Tensor *tensor_as_strided(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    a.ints2 = strides;
    a.n_ints2 = ndim;
    a.start = offset;
    return view1(tensor__run_as_strided, TENSOR_OP_AS_STRIDED, t, &a);
}

Tensor *tensor_transpose(Tensor *t, int64_t d0, int64_t d1) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = d0;
    a.dim2 = d1;
    return view1(tensor__run_transpose, TENSOR_OP_TRANSPOSE, t, &a);
}

Tensor *tensor_t(Tensor *t) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return view1(tensor__run_t, TENSOR_OP_T, t, &a);
}

Tensor *tensor_permute(Tensor *t, const int64_t *dims, int ndim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = dims;
    a.n_ints = ndim;
    return view1(tensor__run_permute, TENSOR_OP_PERMUTE, t, &a);
}

Tensor *tensor_expand(Tensor *t, const int64_t *shape, int ndim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    return view1(tensor__run_expand, TENSOR_OP_EXPAND, t, &a);
}

Tensor *tensor_slice(Tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    a.start = start;
    a.end = end;
    a.step = step;
    return view1(tensor__run_slice, TENSOR_OP_SLICE, t, &a);
}

Tensor *tensor_select(Tensor *t, int64_t dim, int64_t index) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    a.start = index;
    return view1(tensor__run_select, TENSOR_OP_SELECT, t, &a);
}

int tensor__narrow_args(const Tensor *t, int64_t dim, int64_t start, int64_t length, TensorOpArgs *a) {
    if (t->ndim == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
        return -1;
    }
    int64_t d = tensor__wrap_dim(dim, t->ndim);
    if (d < 0) return -1;
    int64_t size = t->shape[d];
    if (start < -size || start > size) {
        tensor_error_set(TENSOR_ERR_INDEX, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                         (long long)-size, (long long)size, (long long)start);
        return -1;
    }
    if (start < 0) start += size;
    if (length < 0 || start + length > size) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start,
                         (long long)length, (long long)size);
        return -1;
    }
    *a = TENSOR_OP_ARGS_INIT;
    a->dim = d;
    a->start = start;
    a->end = start + length;
    a->step = 1;
    return 0;
}

Tensor *tensor_narrow(Tensor *t, int64_t dim, int64_t start, int64_t length) {
    TensorOpArgs a;
    if (tensor__narrow_args(t, dim, start, length, &a) < 0) return NULL;
    return view1(tensor__run_slice, TENSOR_OP_SLICE, t, &a);
}

Tensor *tensor_unsqueeze(Tensor *t, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return view1(tensor__run_unsqueeze, TENSOR_OP_UNSQUEEZE, t, &a);
}

Tensor *tensor_squeeze(Tensor *t) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return view1(tensor__run_squeeze, TENSOR_OP_SQUEEZE, t, &a);
}

Tensor *tensor_squeeze_dim(Tensor *t, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return view1(tensor__run_squeeze_dim, TENSOR_OP_SQUEEZE_DIM, t, &a);
}

Tensor *tensor_flatten(Tensor *t, int64_t start_dim, int64_t end_dim) {
    int n;
    int64_t sh[TENSOR_MAX_DIMS];
    if (tensor__flatten_shape(t->ndim, t->shape, start_dim, end_dim, &n, sh) < 0) return NULL;
    if (t->ndim != 0 && n == t->ndim) {  /* PyTorch returns self; we return a new reference */
        tensor_incref(t);
        return t;
    }
    return tensor_reshape(t, sh, n);
}

Tensor *tensor_detach(Tensor *t) { return tensor__alias(t, true); }
Tensor *tensor_alias(Tensor *t) { return tensor__alias(t, false); }

int tensor_split(Tensor *t, int64_t split_size, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.start = split_size;
    a.dim = dim;
    return tensor__run_split(TENSOR_OP_SPLIT, &t, 1, &a, out, max_out);
}

int tensor_split_with_sizes(Tensor *t, const int64_t *sizes, int n, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = sizes;
    a.n_ints = n;
    a.dim = dim;
    return tensor__run_split_with_sizes(TENSOR_OP_SPLIT_WITH_SIZES, &t, 1, &a, out, max_out);
}

int tensor__chunk_split_size(const Tensor *t, int64_t chunks, int64_t dim, int64_t *split_size, int64_t *wdim) {
    if (chunks <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
        return -1;
    }
    if (t->ndim == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
        return -1;
    }
    int64_t d = tensor__wrap_dim(dim, t->ndim);
    if (d < 0) return -1;
    int64_t size = t->shape[d];
    *split_size = (size + chunks - 1) / chunks;
    if (*split_size == 0 && size == 0) *split_size = 0;
    *wdim = d;
    return 0;
}

int tensor_chunk(Tensor *t, int64_t chunks, int64_t dim, Tensor **out, int max_out) {
    int64_t ss, d;
    if (tensor__chunk_split_size(t, chunks, dim, &ss, &d) < 0) return -1;
    return tensor_split(t, ss, d, out, max_out);
}

int tensor_unbind(Tensor *t, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return tensor__run_unbind(TENSOR_OP_UNBIND, &t, 1, &a, out, max_out);
}

/* ---- cat / stack ------------------------------------------------------------------------------ */

/* cat (stack false) or stack: the shared checks and output shape */
static int cat_meta(bool stack, const TensorMeta *const *ins, int n, const TensorOpArgs *a, TensorMeta *out) {
    if (n == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, !stack ? "torch.cat(): expected a non-empty list of Tensors"
                                                 : "stack expects a non-empty TensorList");
        return -1;
    }
    if (stack) {
        for (int i = 1; i < n; i++) {
            if (ins[i]->ndim != ins[0]->ndim ||
                memcmp(ins[i]->shape, ins[0]->shape, sizeof(int64_t) * (size_t)ins[0]->ndim) != 0) {
                char b0[256], b1[256];
                tensor__format_shape(b0, sizeof b0, ins[0]->ndim, ins[0]->shape);
                tensor__format_shape(b1, sizeof b1, ins[i]->ndim, ins[i]->shape);
                tensor_error_set(TENSOR_ERR_RUNTIME, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                                 b0, b1, i);
                return -1;
            }
        }
        int nd = ins[0]->ndim;
        if (nd + 1 > TENSOR_MAX_DIMS) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
            return -1;
        }
        int64_t d = tensor__wrap_dim(a->dim, nd + 1);
        if (d < 0) return -1;
        TensorDtype dt = ins[0]->dtype;
        for (int i = 1; i < n; i++) dt = tensor__promote(dt, ins[i]->dtype);
        int64_t shape[TENSOR_MAX_DIMS];
        for (int i = 0, k = 0; i <= nd; i++) shape[i] = i == d ? n : ins[0]->shape[k++];
        tensor__meta_contiguous(out, dt, nd + 1, shape);
        return 1;
    }
    /* cat: legacy rule — 1-D empty tensors are skipped */
    const TensorMeta *ref = NULL;
    TensorDtype dt = ins[0]->dtype;
    for (int i = 0; i < n; i++) {
        dt = tensor__promote(dt, ins[i]->dtype);
        if (ins[i]->ndim == 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
            return -1;
        }
        if (ins[i]->ndim == 1 && ins[i]->shape[0] == 0) continue;
        if (!ref) ref = ins[i];
    }
    if (!ref) {
        int64_t z = 0;
        tensor__meta_contiguous(out, dt, 1, &z);
        return 1;
    }
    int nd = ref->ndim;
    int64_t d = tensor__wrap_dim(a->dim, nd);
    if (d < 0) return -1;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const TensorMeta *m = ins[i];
        if (m->ndim == 1 && m->shape[0] == 0) continue;
        if (m->ndim != nd) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "Tensors must have same number of dimensions: got %d and %d", nd, m->ndim);
            return -1;
        }
        for (int k = 0; k < nd; k++) {
            if (k != d && m->shape[k] != ref->shape[k]) {
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "Sizes of tensors must match except in dimension %lld. Expected size %lld but got size %lld for tensor number %d in the list.",
                                 (long long)d, (long long)ref->shape[k], (long long)m->shape[k], i);
                return -1;
            }
        }
        total += m->shape[d];
    }
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, ref->shape, sizeof(int64_t) * (size_t)nd);
    shape[d] = total;
    tensor__meta_contiguous(out, dt, nd, shape);
    return 1;
}

static int cat_run(bool stack, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out) {
    TensorMeta ms[16], *metas = ms;
    const TensorMeta *pms[16] = {0}, **pm = pms;
    bool heap = n > 16;
    if (heap) {
        metas = malloc(sizeof(TensorMeta) * (size_t)n);
        pm = malloc(sizeof(TensorMeta *) * (size_t)n);
        if (!metas || !pm) {
            free(metas);
            free(pm);
            return tensor__oom();
        }
    }
    for (int i = 0; i < n; i++) {
        tensor_meta_of(in[i], &metas[i]);
        pm[i] = &metas[i];
    }
    TensorMeta om;
    int rc = cat_meta(stack, pm, n, a, &om);
    if (heap) {
        free(metas);
        free(pm);
    }
    if (rc < 0) return -1;
    Tensor *r = tensor__new_from_meta(&om, false);
    if (!r) return -1;
    int64_t d;
    if (stack) {
        d = tensor__wrap_dim(a->dim, in[0]->ndim + 1);
    } else {
        d = om.ndim == 1 && om.shape[0] == 0 ? 0 : tensor__wrap_dim(a->dim, om.ndim);
    }
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *src = in[i];
        if (!stack && src->ndim == 1 && src->shape[0] == 0) continue;
        /* a borrowed stack view of the destination slice */
        Tensor dst = *r;
        dst.refcount = 1 << 30;
        int64_t len = stack ? 1 : src->shape[d];
        dst.shape[d] = len;
        dst.offset = r->offset + off * r->strides[d];
        dst.numel = tensor__shape_numel(dst.ndim, dst.shape);
        if (stack) {
            /* view src as having a size-1 dim at d */
            Tensor s2 = *src;
            s2.refcount = 1 << 30;
            for (int k = src->ndim; k > d; k--) {
                s2.shape[k] = src->shape[k - 1];
                s2.strides[k] = src->strides[k - 1];
            }
            s2.shape[d] = 1;
            s2.strides[d] = 0;
            s2.ndim = (uint8_t)(src->ndim + 1);
            rc = tensor__copy_into(&dst, &s2);
        } else {
            rc = tensor__copy_into(&dst, src);
        }
        if (rc < 0) {
            tensor_decref(r);
            return -1;
        }
        off += len;
    }
    out[0] = r;
    return 1;
}

TENSOR_INFER(cat) {
    (void)op, (void)max_out;
    return cat_meta(false, in, n_in, a, out);
}
TENSOR_RUN(cat) {
    (void)op, (void)n_out;
    return cat_run(false, in, n_in, a, out);
}
TENSOR_INFER(stack) {
    (void)op, (void)max_out;
    return cat_meta(true, in, n_in, a, out);
}
TENSOR_RUN(stack) {
    (void)op, (void)n_out;
    return cat_run(true, in, n_in, a, out);
}

Tensor *tensor_cat(Tensor *const *ts, int n, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    Tensor *r = NULL;
    return tensor__run_cat(TENSOR_OP_CAT, ts, n, &a, &r, 1) < 0 ? NULL : r;
}

Tensor *tensor_stack(Tensor *const *ts, int n, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    Tensor *r = NULL;
    return tensor__run_stack(TENSOR_OP_STACK, ts, n, &a, &r, 1) < 0 ? NULL : r;
}
