/* index.c — indexing kernels: gather (scatter_add: scatter.c), index_select / index_add, advanced
 * indexing (int64 index tensors broadcast together, or a bool mask) and its assignment form
 * index_put, masked_fill / masked_select / masked_scatter, nonzero. Error messages follow
 * PyTorch's. */
#include "src/tensor/nn.h"

#include <stdio.h>

#include "src/tensor/iter.h"
#include "src/tensor/kernels.h"

static inline bool next_index(int64_t *idx, int nd, const int64_t *shape) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static inline int64_t offset_of(const Tensor *t, const int64_t *idx) {
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    return off;
}

static const char *cname(TensorDtype d) { return tensor__cname(d); }

/* ---- gather ------------------------------------------------------------------ */

static int check_gather(const TensorMeta *self, const TensorMeta *index, int64_t dim) {
    if (index->dtype != TENSOR_INT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
        return -1;
    }
    int snd = self->ndim ? self->ndim : 1, ind = index->ndim ? index->ndim : 1;
    if (snd != ind) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Index tensor must have the same number of dimensions as input tensor");
        return -1;
    }
    for (int d = 0; d < index->ndim; d++) {
        if (d != dim && index->shape[d] > (self->ndim ? self->shape[d] : 1)) {
            char b1[256], b2[256];
            tensor__format_shape(b1, sizeof b1, index->ndim, index->shape);
            tensor__format_shape(b2, sizeof b2, self->ndim, self->shape);
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %lld",
                             d, b1, b2, (long long)dim);
            return -1;
        }
    }
    return 0;
}

static int gather_impl(const Tensor *self, int64_t dim, const Tensor *index, Tensor **out) {
    TensorMeta ms, mi;
    tensor_meta_of(self, &ms);
    tensor_meta_of(index, &mi);
    int64_t d = tensor__wrap_dim(dim, self->ndim);
    if (d < 0 || check_gather(&ms, &mi, d) < 0) return -1;
    Tensor *r = tensor__new((TensorDtype)self->dtype, index->ndim, index->shape, false);
    if (!r) return -1;
    size_t es = tensor__elsize((TensorDtype)self->dtype);
    int64_t size = self->ndim ? self->shape[d] : 1;
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    char *po = r->storage->data;
    const char *ps = self->storage->data;
    for (int64_t i = 0; i < r->numel; i++) {
        int64_t v = tensor__i64(index)[offset_of(index, idx) - index->offset];
        if (v < 0 || v >= size) {
            tensor_decref(r);
            tensor_error_set(TENSOR_ERR_RUNTIME, "index %lld is out of bounds for dimension %lld with size %lld", (long long)v,
                             (long long)d, (long long)size);
            return -1;
        }
        int64_t off = self->offset;
        for (int k = 0; k < self->ndim; k++) off += (k == d ? v : idx[k]) * self->strides[k];
        memcpy(po + (size_t)i * es, ps + (size_t)off * es, es);
        next_index(idx, index->ndim, index->shape);
    }
    *out = r;
    return 0;
}

Tensor *tensor_gather(const Tensor *a, int64_t dim, const Tensor *index) {
    Tensor *r = NULL;
    return gather_impl(a, dim, index, &r) < 0 ? NULL : r;
}

/* ---- index_select / index_add ----------------------------------------------------------------- */

static int check_index_vector(const TensorMeta *index, const char *name) {
    if (index->dtype != TENSOR_INT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s(): Expected dtype int32 or int64 for index", name);
        return -1;
    }
    if (index->ndim > 1) {
        tensor_error_set(TENSOR_ERR_INDEX, "%s(): Index is supposed to be a vector", name);
        return -1;
    }
    return 0;
}

/* copies (or adds alpha *) slices along dim: dst.select(dim, dsti) op= src.select(dim, srci) */
static void slice_op(Tensor *dst, int64_t dim, int64_t dsti, const Tensor *src, int64_t srci, bool add, double alpha) {
    Tensor ds = *dst, ss = *src;
    ds.refcount = ss.refcount = 1 << 30;
    if (dst->ndim) {
        ds.offset += dsti * dst->strides[dim];
        ds.shape[dim] = 1;
        ds.numel = tensor__shape_numel(ds.ndim, ds.shape);
    }
    if (src->ndim) {
        ss.offset += srci * src->strides[dim];
        ss.shape[dim] = 1;
        ss.numel = tensor__shape_numel(ss.ndim, ss.shape);
    }
    if (!add) {
        int rc = tensor__copy_into(&ds, &ss);
        EM_ASSERT(rc == 0, "slice shapes agree");
        return;
    }
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t es = (int64_t)tensor__elsize((TensorDtype)dst->dtype);
    for (int64_t i = 0; i < ds.numel; i++) {
        int64_t od = offset_of(&ds, idx), os = offset_of(&ss, idx);
        tensor__acc((TensorDtype)dst->dtype, (char *)ds.storage->data + od * es, (const char *)ss.storage->data + os * es, alpha,
                    (int64_t)alpha);
        next_index(idx, ds.ndim, ds.shape);
    }
}

static int index_select_impl(const Tensor *self, int64_t dim, const Tensor *index, Tensor **out) {
    TensorMeta mi;
    tensor_meta_of(index, &mi);
    if (check_index_vector(&mi, "index_select") < 0) return -1;
    int64_t d = tensor__wrap_dim(dim, self->ndim);
    if (d < 0) return -1;
    int64_t size = self->ndim ? self->shape[d] : 1;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, self->shape, sizeof(int64_t) * self->ndim);
    if (self->ndim) shape[d] = index->numel;
    Tensor *r = tensor__new((TensorDtype)self->dtype, self->ndim, shape, false);
    if (!r) return -1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = tensor__i64(index)[i * (index->ndim ? index->strides[0] : 0)];
        if (v < 0 || v >= size) {
            tensor_decref(r);
            tensor_error_set(TENSOR_ERR_INDEX, "index out of range in self");
            return -1;
        }
        slice_op(r, d, i, self, v, false, 1.0);
    }
    *out = r;
    return 0;
}

static int index_add_impl(const Tensor *self, int64_t dim, const Tensor *index, const Tensor *src, double alpha, Tensor **out) {
    TensorMeta mi;
    tensor_meta_of(index, &mi);
    if (check_index_vector(&mi, "index_add_") < 0) return -1;
    if (src->dtype != self->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "index_add_(): self (%s) and source (%s) must have the same scalar type",
                         cname((TensorDtype)self->dtype), cname((TensorDtype)src->dtype));
        return -1;
    }
    int64_t d = tensor__wrap_dim(dim, self->ndim);
    if (d < 0) return -1;
    int64_t n = src->ndim ? src->shape[d] : 1;
    if (n != index->numel || src->ndim != self->ndim) {
        tensor_error_set(TENSOR_ERR_INDEX, "index_add_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                         (long long)index->numel, (long long)n);
        return -1;
    }
    for (int k = 0; k < self->ndim; k++) {
        if (k != d && src->shape[k] != self->shape[k]) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "index_add_(): source and self must have the same size apart from dimension %lld",
                             (long long)d);
            return -1;
        }
    }
    Tensor *r = tensor_clone(self);
    if (!r) return -1;
    int64_t size = self->ndim ? self->shape[d] : 1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = tensor__i64(index)[i * (index->ndim ? index->strides[0] : 0)];
        if (v < 0) v += size;
        if (v < 0 || v >= size) {
            tensor_decref(r);
            tensor_error_set(TENSOR_ERR_INDEX, "index out of range in self");
            return -1;
        }
        slice_op(r, d, v, src, i, true, alpha);
    }
    *out = r;
    return 0;
}

Tensor *tensor_index_select(const Tensor *a, int64_t dim, const Tensor *index) {
    Tensor *r = NULL;
    return index_select_impl(a, dim, index, &r) < 0 ? NULL : r;
}

Tensor *tensor_index_add(const Tensor *a, int64_t dim, const Tensor *index, const Tensor *src, TensorScalar alpha) {
    Tensor *r = NULL;
    return index_add_impl(a, dim, index, src, alpha.kind == TENSOR_FLOAT32 ? alpha.f : (double)alpha.i, &r) < 0 ? NULL : r;
}

/* ---- nonzero ------------------------------------------------------------------------------------ */

int tensor__nonzero(const Tensor *mask, Tensor **coords) {
    int64_t nnz = 0;
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    const bool *pm = (const bool *)mask->storage->data;
    for (int64_t i = 0; i < mask->numel; i++) {
        nnz += pm[offset_of(mask, idx)];
        next_index(idx, mask->ndim, mask->shape);
    }
    int nd = mask->ndim;
    for (int k = 0; k < nd; k++) {
        coords[k] = tensor__new(TENSOR_INT64, 1, &nnz, false);
        if (!coords[k]) {
            for (int j = 0; j < k; j++) tensor_decref(coords[j]);
            return -1;
        }
    }
    memset(idx, 0, sizeof idx);
    int64_t w = 0;
    for (int64_t i = 0; i < mask->numel; i++) {
        if (pm[offset_of(mask, idx)]) {
            for (int k = 0; k < nd; k++) tensor__i64(coords[k])[w] = idx[k];
            w++;
        }
        next_index(idx, nd, mask->shape);
    }
    return 0;
}

/* ---- advanced indexing ---------------------------------------------------------------------------- */

typedef struct IndexPlan {
    int64_t d;          /* first indexed dim */
    int k;              /* indexed dims */
    int bnd;            /* broadcast index shape */
    int64_t bshape[TENSOR_MAX_DIMS];
    int64_t nb, P, K, Q;
    int64_t *lin;       /* nb linear positions within the K block */
    int out_nd;
    int64_t out_shape[TENSOR_MAX_DIMS];
} IndexPlan;

static void plan_free(IndexPlan *p) { free(p->lin); }

/* Shape-only part, shared with inference. */
static int plan_shape(const TensorMeta *self, int64_t dim, const TensorMeta *const *ix, int n, IndexPlan *p, bool *has_bool) {
    *has_bool = false;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (ix[i]->dtype == TENSOR_BOOL) {
            *has_bool = true;
            k += ix[i]->ndim;
        } else if (ix[i]->dtype == TENSOR_INT64) {
            k++;
        } else {
            tensor_error_set(TENSOR_ERR_INDEX, "tensors used as indices must be long, int, byte or bool tensors");
            return -1;
        }
    }
    if (n == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "index: expected at least one index tensor");
        return -1;
    }
    int64_t d = self->ndim ? tensor__wrap_dim(dim, self->ndim) : 0;
    if (d < 0) return -1;
    if (d + k > self->ndim && !(self->ndim == 0 && k == 1 && *has_bool)) {
        tensor_error_set(TENSOR_ERR_INDEX, "too many indices for tensor of dimension %d (got %lld)", self->ndim, (long long)(d + k));
        return -1;
    }
    p->d = d;
    p->k = k;
    /* broadcast the int index shapes (bool masks contribute a 1-D nnz dim, unknown here) */
    p->bnd = 0;
    int dimpos = (int)d;
    for (int i = 0; i < n; i++) {
        if (ix[i]->dtype == TENSOR_BOOL) {
            for (int j = 0; j < ix[i]->ndim; j++) {
                if (ix[i]->shape[j] != self->shape[dimpos + j]) {
                    char b1[256], b2[256];
                    tensor__format_shape(b1, sizeof b1, ix[i]->ndim, ix[i]->shape);
                    tensor__format_shape(b2, sizeof b2, self->ndim, self->shape);
                    tensor_error_set(TENSOR_ERR_INDEX,
                                     "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
                                     b1, j, b2, dimpos + j);
                    return -1;
                }
            }
            dimpos += ix[i]->ndim;
            continue;
        }
        dimpos++;
        if (tensor__broadcast_shapes(p->bnd, p->bshape, ix[i]->ndim, ix[i]->shape, &p->bnd, p->bshape) < 0) {
            char b[256];
            tensor__format_shape(b, sizeof b, ix[i]->ndim, ix[i]->shape);
            tensor_error_set(TENSOR_ERR_INDEX, "shape mismatch: indexing tensors could not be broadcast together with shapes %s", b);
            return -1;
        }
    }
    p->P = 1;
    p->K = 1;
    p->Q = 1;
    for (int i = 0; i < d; i++) p->P *= self->shape[i];
    for (int i = (int)d; i < d + k; i++) p->K *= self->shape[i];
    for (int i = (int)(d + k); i < self->ndim; i++) p->Q *= self->shape[i];
    return 0;
}

static void plan_out_shape(const TensorMeta *self, IndexPlan *p) {
    int n = 0;
    for (int i = 0; i < p->d; i++) p->out_shape[n++] = self->shape[i];
    for (int i = 0; i < p->bnd; i++) p->out_shape[n++] = p->bshape[i];
    for (int i = (int)(p->d + p->k); i < self->ndim; i++) p->out_shape[n++] = self->shape[i];
    p->out_nd = n;
    p->nb = tensor__shape_numel(p->bnd, p->bshape);
}

static int plan_build(const Tensor *self, int64_t dim, Tensor *const *ix, int n, IndexPlan *p) {
    TensorMeta ms, mi[TENSOR_MAX_DIMS];
    const TensorMeta *pm[TENSOR_MAX_DIMS] = {0};
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_INDEX, "too many indices");
        return -1;
    }
    tensor_meta_of(self, &ms);
    for (int i = 0; i < n; i++) {
        tensor_meta_of(ix[i], &mi[i]);
        pm[i] = &mi[i];
    }
    bool has_bool;
    p->lin = NULL;
    if (plan_shape(&ms, dim, pm, n, p, &has_bool) < 0) return -1;
    /* expand bool masks into coordinate tensors */
    Tensor *cols[TENSOR_MAX_DIMS];
    int nc = 0;
    int rc = -1;
    for (int i = 0; i < n; i++) {
        if (ix[i]->dtype == TENSOR_BOOL) {
            if (nc + ix[i]->ndim > TENSOR_MAX_DIMS || tensor__nonzero(ix[i], &cols[nc]) < 0) goto done;
            nc += ix[i]->ndim;
        } else {
            tensor_incref(ix[i]);
            cols[nc++] = ix[i];
        }
    }
    p->bnd = 0;
    for (int i = 0; i < nc; i++)
        if (tensor__broadcast_shapes(p->bnd, p->bshape, cols[i]->ndim, cols[i]->shape, &p->bnd, p->bshape) < 0) goto done;
    plan_out_shape(&ms, p);
    p->lin = malloc(sizeof(int64_t) * (size_t)(p->nb ? p->nb : 1));
    if (!p->lin) {
        tensor__oom();
        goto done;
    }
    for (int64_t b = 0; b < p->nb; b++) p->lin[b] = 0;
    for (int j = 0; j < nc; j++) {
        int64_t size = self->ndim ? self->shape[p->d + j] : 1;
        int64_t inner = 1;
        for (int q = j + 1; q < nc; q++) inner *= self->shape[p->d + q];
        Tensor *e = tensor_expand(cols[j], p->bshape, p->bnd);
        if (!e) goto done;
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        for (int64_t b = 0; b < p->nb; b++) {
            int64_t v = tensor__i64(e)[offset_of(e, idx) - e->offset];
            if (v < -size || v >= size) {
                tensor_decref(e);
                tensor_error_set(TENSOR_ERR_INDEX, "index %lld is out of bounds for dimension %lld with size %lld", (long long)v,
                                 (long long)(p->d + j), (long long)size);
                goto done;
            }
            if (v < 0) v += size;
            p->lin[b] += v * inner;
            next_index(idx, p->bnd, p->bshape);
        }
        tensor_decref(e);
    }
    rc = 0;
done:
    for (int i = 0; i < nc; i++) tensor_decref(cols[i]);
    if (rc < 0) plan_free(p);
    return rc;
}

static int index_impl(const Tensor *self, int64_t dim, Tensor *const *ix, int n, Tensor **out) {
    IndexPlan p;
    if (plan_build(self, dim, ix, n, &p) < 0) return -1;
    Tensor *c = tensor_contiguous((Tensor *)self);
    Tensor *r = c ? tensor__new((TensorDtype)self->dtype, p.out_nd, p.out_shape, false) : NULL;
    if (r) {
        size_t es = tensor__elsize((TensorDtype)self->dtype);
        const char *src = tensor__data(c);
        char *dst = r->storage->data;
        for (int64_t pi = 0; pi < p.P; pi++)
            for (int64_t b = 0; b < p.nb; b++)
                memcpy(dst + (size_t)((pi * p.nb + b) * p.Q) * es, src + (size_t)((pi * p.K + p.lin[b]) * p.Q) * es,
                       (size_t)p.Q * es);
    }
    tensor_decref(c);
    plan_free(&p);
    if (!r) return -1;
    *out = r;
    return 0;
}

/* dst (contiguous, = or += ) values broadcast to the indexing result */
static int index_put_into(Tensor *dst, int64_t dim, Tensor *const *ix, int n, const Tensor *values, bool accumulate) {
    IndexPlan p;
    if (plan_build(dst, dim, ix, n, &p) < 0) return -1;
    int rc = -1;
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(values->ndim, values->shape, p.out_nd, p.out_shape, &nd, bs) < 0 || nd != p.out_nd ||
        memcmp(bs, p.out_shape, sizeof(int64_t) * (size_t)nd) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, values->ndim, values->shape);
        tensor__format_shape(b2, sizeof b2, p.out_nd, p.out_shape);
        tensor_error_set(TENSOR_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                         b1, b2);
        plan_free(&p);
        return -1;
    }
    Tensor *v = tensor__as_dtype(values, (TensorDtype)dst->dtype);
    Tensor *ve = v ? tensor_expand(v, p.out_shape, p.out_nd) : NULL;
    Tensor *vc = ve ? tensor_contiguous(ve) : NULL;
    if (vc) {
        size_t es = tensor__elsize((TensorDtype)dst->dtype);
        const char *src = tensor__data(vc);
        char *base = tensor__data(dst);
        for (int64_t pi = 0; pi < p.P; pi++)
            for (int64_t b = 0; b < p.nb; b++)
                for (int64_t q = 0; q < p.Q; q++) {
                    /* dst may be strided: map (pi, lin, q) through its geometry */
                    int64_t flat = (pi * p.K + p.lin[b]) * p.Q + q, off = 0;
                    for (int d = dst->ndim - 1; d >= 0; d--) {
                        off += (flat % dst->shape[d]) * dst->strides[d];
                        flat /= dst->shape[d];
                    }
                    const char *s = src + (size_t)((pi * p.nb + b) * p.Q + q) * es;
                    char *t = base + (size_t)off * es;
                    if (!accumulate)
                        memcpy(t, s, es);
                    else
                        tensor__acc((TensorDtype)dst->dtype, t, s, 1.0, 1);
                }
        rc = 0;
    }
    tensor_decref(v);
    tensor_decref(ve);
    tensor_decref(vc);
    plan_free(&p);
    return rc;
}

Tensor *tensor_index(const Tensor *a, int64_t dim, Tensor *const *indices, int n) {
    Tensor *r = NULL;
    return index_impl(a, dim, indices, n, &r) < 0 ? NULL : r;
}

Tensor *tensor_index_put(const Tensor *a, int64_t dim, Tensor *const *indices, int n, const Tensor *values, bool accumulate) {
    Tensor *r = tensor_clone(a);
    if (r && index_put_into(r, dim, indices, n, values, accumulate) < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

int tensor_index_put_(Tensor *a, int64_t dim, Tensor *const *indices, int n, const Tensor *values, bool accumulate) {
    if (tensor__begin_inplace(a) < 0) return -1;
    return index_put_into(a, dim, indices, n, values, accumulate);
}

/* ---- masked ops ------------------------------------------------------------------------------------- */

static int check_mask(const Tensor *mask, const char *name) {
    if (mask->dtype != TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s only supports boolean masks, but got mask with dtype %s", name,
                         tensor__dtypes[mask->dtype].ctype);
        return -1;
    }
    return 0;
}

#define MASKED_FILL_LOOP(NAME, T)                                                               \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *ctx) {                  \
        const T v = *(const T *)ctx;                                                            \
        if (s[0] == (int64_t)sizeof(T) && s[1] == 1) {                                          \
            T *o = (T *)d[0];                                                                   \
            const bool *m = (const bool *)d[1];                                                 \
            for (int64_t i = 0; i < n; i++) o[i] = m[i] ? v : o[i];                             \
        } else {                                                                                \
            for (int64_t i = 0; i < n; i++)                                                     \
                if (*(const bool *)(d[1] + i * s[1])) *(T *)(d[0] + i * s[0]) = v;              \
        }                                                                                       \
    }
MASKED_FILL_LOOP(masked_fill_8, int64_t)
MASKED_FILL_LOOP(masked_fill_4, int32_t)
MASKED_FILL_LOOP(masked_fill_2, int16_t)
MASKED_FILL_LOOP(masked_fill_1, int8_t)

/* out must already hold the data; mask broadcasts to out's shape */
static int masked_fill_into(Tensor *out, const Tensor *mask, TensorScalar value) {
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(out->ndim, out->shape, mask->ndim, mask->shape, &nd, bs) < 0) return -1;
    if (nd != out->ndim || memcmp(bs, out->shape, sizeof(int64_t) * (size_t)nd) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, out->ndim, out->shape);
        tensor__format_shape(b2, sizeof b2, nd, bs);
        tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
        return -1;
    }
    /* the value in out's dtype, moved as bytes of its size */
    union {
        int64_t i8;
        int32_t i4;
        int16_t i2;
        int8_t i1;
        char bytes[8];
    } raw;
    tensor__st_scalar((TensorDtype)out->dtype, raw.bytes, value);
    size_t es = tensor__elsize((TensorDtype)out->dtype);
    TensorLoopFn fn = es == 8 ? masked_fill_8 : es == 4 ? masked_fill_4 : es == 2 ? masked_fill_2 : masked_fill_1;
    TensorIter it;
    const Tensor *ops[2] = {out, mask};
    tensor__iter_init(&it, 2, ops, out->ndim, out->shape);
    tensor__iter_run(&it, fn, &raw);
    return 0;
}

Tensor *tensor_masked_fill(const Tensor *a, const Tensor *mask, TensorScalar value) {
    if (check_mask(mask, "masked_fill_") < 0) return NULL;
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(a->ndim, a->shape, mask->ndim, mask->shape, &nd, bs) < 0) return NULL;
    Tensor *r = tensor__new((TensorDtype)a->dtype, nd, bs, false);
    if (!r) return NULL;
    if (a->dtype == TENSOR_FLOAT32 && tensor__contig(a) && tensor__contig(mask) && a->numel == r->numel &&
        mask->numel == r->numel) {
        /* the common same-shape case in one pass */
        /* as integer selects on the bit patterns, which vectorise across the byte mask */
        const uint32_t *x = (const uint32_t *)tensor__f32(a);
        const uint8_t *m = (const uint8_t *)tensor__b8(mask);
        uint32_t *o = (uint32_t *)tensor__f32(r);
        float vf = (float)(value.kind == TENSOR_FLOAT32 ? value.f : (double)value.i);
        uint32_t v;
        memcpy(&v, &vf, sizeof v);
        for (int64_t i = 0; i < r->numel; i++) {
            uint32_t sel = 0u - (uint32_t)m[i];
            o[i] = (v & sel) | (x[i] & ~sel);
        }
        return r;
    }
    if (tensor__copy_into(r, a) < 0 || masked_fill_into(r, mask, value) < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

int tensor_masked_fill_(Tensor *a, const Tensor *mask, TensorScalar value) {
    if (check_mask(mask, "masked_fill_") < 0) return -1;
    Tensor *probe = tensor_expand((Tensor *)mask, a->shape, a->ndim); /* shape check before mutating */
    if (!probe) return -1;
    tensor_decref(probe);
    if (tensor__begin_inplace(a) < 0) return -1;
    return masked_fill_into(a, mask, value);
}

Tensor *tensor_masked_select(const Tensor *a, const Tensor *mask) {
    if (check_mask(mask, "masked_select") < 0) return NULL;
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(a->ndim, a->shape, mask->ndim, mask->shape, &nd, bs) < 0) return NULL;
    Tensor *ea = tensor_expand((Tensor *)a, bs, nd), *em = ea ? tensor_expand((Tensor *)mask, bs, nd) : NULL;
    Tensor *r = NULL;
    if (em) {
        int64_t total = tensor__shape_numel(nd, bs), nnz = 0;
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        for (int64_t i = 0; i < total; i++) {
            nnz += tensor__b8(em)[offset_of(em, idx) - em->offset];
            next_index(idx, nd, bs);
        }
        r = tensor__new((TensorDtype)a->dtype, 1, &nnz, false);
        if (r) {
            size_t es = tensor__elsize((TensorDtype)a->dtype);
            memset(idx, 0, sizeof idx);
            int64_t w = 0;
            for (int64_t i = 0; i < total; i++) {
                if (tensor__b8(em)[offset_of(em, idx) - em->offset])
                    memcpy((char *)r->storage->data + (size_t)w++ * es, (char *)ea->storage->data + (size_t)offset_of(ea, idx) * es, es);
                next_index(idx, nd, bs);
            }
        }
    }
    tensor_decref(ea);
    tensor_decref(em);
    return r;
}

Tensor *tensor_masked_scatter(const Tensor *a, const Tensor *mask, const Tensor *source) {
    if (check_mask(mask, "masked_scatter_") < 0) return NULL;
    if (source->dtype != a->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "masked_scatter: expected self and source to have same dtypes but got%s and %s",
                         cname((TensorDtype)a->dtype), cname((TensorDtype)source->dtype));
        return NULL;
    }
    Tensor *em = tensor_expand((Tensor *)mask, a->shape, a->ndim);
    if (!em) return NULL;
    Tensor *r = tensor_clone(a), *sc = r ? tensor_contiguous((Tensor *)source) : NULL;
    if (sc) {
        size_t es = tensor__elsize((TensorDtype)a->dtype);
        int64_t idx[TENSOR_MAX_DIMS] = {0}, k = 0;
        for (int64_t i = 0; i < r->numel; i++) {
            if (tensor__b8(em)[offset_of(em, idx) - em->offset]) {
                if (k >= sc->numel) {
                    tensor_decref(r);
                    r = NULL;
                    tensor_error_set(TENSOR_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
                    break;
                }
                memcpy((char *)r->storage->data + (size_t)i * es, tensor__data(sc) + (size_t)k++ * es, es);
            }
            next_index(idx, a->ndim, a->shape);
        }
    } else {
        tensor_decref(r);
        r = NULL;
    }
    tensor_decref(sc);
    tensor_decref(em);
    return r;
}

/* ---- inference and dispatch ------------------------------------------------------------------------- */

/* Each op's table entry (ops.def K column): its output metadata and its kernel. */
#define INFER TENSOR_INFER
#define RUN TENSOR_RUN1
#define RUN_ TENSOR_RUN_INPLACE

INFER(gather) {
    (void)op, (void)n_in, (void)max_out;
    int64_t d = tensor__wrap_dim(a->dim, in[0]->ndim);
    if (d < 0 || check_gather(in[0], in[1], d) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[1]->ndim, in[1]->shape);
    return 1;
}
RUN(gather, tensor_gather(in[0], a->dim, in[1]))


INFER(index_select) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *self = in[0];
    if (check_index_vector(in[1], "index_select") < 0) return -1;
    int64_t d = tensor__wrap_dim(a->dim, self->ndim);
    if (d < 0) return -1;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, self->shape, sizeof(int64_t) * (size_t)self->ndim);
    if (self->ndim) shape[d] = tensor__shape_numel(in[1]->ndim, in[1]->shape);
    tensor__meta_contiguous(out, self->dtype, self->ndim, shape);
    return 1;
}
RUN(index_select, tensor_index_select(in[0], a->dim, in[1]))

INFER(index_add) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *self = in[0];
    if (check_index_vector(in[1], "index_add_") < 0 || tensor__wrap_dim(a->dim, self->ndim) < 0) return -1;
    tensor__meta_contiguous(out, self->dtype, self->ndim, self->shape);
    return 1;
}
RUN(index_add, tensor_index_add(in[0], a->dim, in[1], in[2], a->alpha))
TENSOR_INPLACE_OF(index_add_, INDEX_ADD)

/* self[idx...]: (self, idx...) */
INFER(index) {
    (void)op, (void)max_out;
    const TensorMeta *self = in[0];
    IndexPlan p;
    bool has_bool;
    if (plan_shape(self, a->dim, in + 1, n_in - 1, &p, &has_bool) < 0) return -1;
    if (has_bool) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "boolean mask indexing has a data-dependent output shape");
        return -1;
    }
    plan_out_shape(self, &p);
    tensor__meta_contiguous(out, self->dtype, p.out_nd, p.out_shape);
    return 1;
}
RUN(index, tensor_index(in[0], a->dim, in + 1, n_in - 1))

/* index_put / index_put_: (self, values, idx...) */
static int index_put_meta(const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out) {
    IndexPlan p;
    bool has_bool;
    if (plan_shape(in[0], a->dim, in + 2, n_in - 2, &p, &has_bool) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}
INFER(index_put) {
    (void)op, (void)max_out;
    return index_put_meta(in, n_in, a, out);
}
RUN(index_put, tensor_index_put(in[0], a->dim, in + 2, n_in - 2, in[1], a->accumulate))
INFER(index_put_) {
    (void)op, (void)max_out;
    if (index_put_meta(in, n_in, a, out) < 0) return -1;
    memcpy(out->strides, in[0]->strides, sizeof(int64_t) * (size_t)in[0]->ndim);
    out->offset = in[0]->offset;
    return 1;
}
RUN_(index_put_, tensor_index_put_(in[0], a->dim, in + 2, n_in - 2, in[1], a->accumulate))

/* masked_fill(_): (self, mask), scalar; the mask broadcasts */
static int masked_fill_meta(const TensorMeta *self, const TensorMeta *mask, int *nd, int64_t *bs) {
    if (mask->dtype != TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                         tensor__dtypes[mask->dtype].ctype);
        return -1;
    }
    return tensor__broadcast_shapes(self->ndim, self->shape, mask->ndim, mask->shape, nd, bs);
}
INFER(masked_fill) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (masked_fill_meta(in[0], in[1], &nd, bs) < 0) return -1;
    tensor__meta_contiguous(out, in[0]->dtype, nd, bs);
    return 1;
}
RUN(masked_fill, tensor_masked_fill(in[0], in[1], a->scalar))
INFER(masked_fill_) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    int nd;
    int64_t bs[TENSOR_MAX_DIMS];
    if (masked_fill_meta(in[0], in[1], &nd, bs) < 0) return -1;
    *out = *in[0];
    out->wrapped_number = false;
    return 1;
}
RUN_(masked_fill_, tensor_masked_fill_(in[0], in[1], a->scalar))

INFER(masked_select) {
    (void)op, (void)in, (void)n_in, (void)a, (void)out, (void)max_out;
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "masked_select has a data-dependent output shape");
    return -1;
}
RUN(masked_select, tensor_masked_select(in[0], in[1]))

INFER(masked_scatter) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    tensor__meta_contiguous(out, in[0]->dtype, in[0]->ndim, in[0]->shape);
    return 1;
}
RUN(masked_scatter, tensor_masked_scatter(in[0], in[1], in[2]))
TENSOR_INPLACE_OF(masked_scatter_, MASKED_SCATTER)
