/* storage.c — the public storage API (torch.UntypedStorage's C side): new zero-filled storages,
 * their bytes and refcounts, slices of a storage sharing its memory (the legacy checkpoint
 * format's storage views), and set_, which points a tensor at a storage with a given offset
 * and geometry (how torch.load rebuilds tensors, so tensors that shared one storage when saved
 * share one again).  Allocation itself lives in tensor.c with the GC pacing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/tensor.h"

TensorStorage *tensor_storage_new(size_t nbytes) {
    TensorStorage *s = tensor__storage_new(nbytes, true);
    if (!s) tensor__oom();
    return s;
}

void tensor_storage_incref(TensorStorage *s) { tensor__storage_incref(s); }
void tensor_storage_decref(TensorStorage *s) { tensor__storage_decref(s); }
size_t tensor_storage_nbytes(const TensorStorage *s) { return s->nbytes; }
void *tensor_storage_data(const TensorStorage *s) { return s->data; }
TensorStorage *tensor_storage_of(Tensor *t) { return t->storage; }
int tensor_storage_share_memory(TensorStorage *s) { return tensor__storage_share(s); }
bool tensor_storage_is_shared(const TensorStorage *s) { return s->shared != 0; }

static void release_parent(void *ctx) { tensor__storage_decref(ctx); }

TensorStorage *tensor_storage_slice(TensorStorage *s, size_t start, size_t nbytes) {
    if (start > s->nbytes || nbytes > s->nbytes - start) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "storage slice [%zu, %zu) is out of bounds for a storage of %zu bytes",
                         start, start + nbytes, s->nbytes);
        return NULL;
    }
    TensorStorage *v = malloc(sizeof *v);
    if (!v) {
        tensor__oom();
        return NULL;
    }
    v->refcount = 1;
    v->external = true;   /* the bytes belong to s, which the slice keeps alive */
    v->meta = s->meta;
    v->shared = 0;
    v->nbytes = nbytes;
    v->data = s->meta ? NULL : (char *)s->data + start;
    v->release = release_parent;
    v->release_ctx = s;
    v->sliced = false;
    s->sliced = true;
    tensor__storage_incref(s);
    return v;
}

static void format_ints(char *buf, size_t cap, int n, const int64_t *v) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

int tensor_set_storage(Tensor *t, TensorStorage *s, int64_t offset, int ndim, const int64_t *shape, const int64_t *strides) {
    if (ndim > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    /* a view may change its geometry over the storage it shares (x.t_() on a view); pointing it at
     * another storage would leave its base relation wrong */
    if (t->base && s != t->storage) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "set_ on a view of another tensor is not supported");
        return -1;
    }
    if (offset < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
        return -1;
    }
    int64_t cstrides[TENSOR_MAX_DIMS];
    if (!strides) {
        tensor__compute_contiguous_strides(ndim, shape, cstrides);
        strides = cstrides;
    }
    /* ATen's computeStorageNbytes: elements up to the farthest one the geometry reaches */
    bool empty = false;
    int64_t extent = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            char sz[256];
            format_ints(sz, sizeof sz, ndim, shape);
            tensor_error_set(TENSOR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                             (long long)shape[i], sz);
            return -1;
        }
        if (shape[i] == 0) empty = true;
        if (strides[i] < 0) {
            char sz[256], st[256];
            format_ints(sz, sizeof sz, ndim, shape);
            format_ints(st, sizeof st, ndim, strides);
            tensor_error_set(TENSOR_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s and strides=%s", sz, st);
            return -1;
        }
        extent += (shape[i] - 1) * strides[i];
    }
    size_t el = tensor__elsize((TensorDtype)t->dtype);
    size_t need = empty ? 0 : (size_t)(offset + extent) * el;
    if (need > s->nbytes) {
        /* PyTorch grows the storage here (resize_); Ember's storages have a fixed size */
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED,
                         "set_: the geometry needs %zu bytes but the storage has %zu; growing a storage is not supported",
                         need, s->nbytes);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    tensor__storage_incref(s);
    tensor__storage_decref(t->storage);
    t->storage = s;
    t->offset = offset;
    tensor__set_geometry(t, ndim, shape, strides);
    return 0;
}

/* ATen's resize_ on a CPU tensor (what resize_output does to an out= tensor of another shape):
 * t keeps its storage offset and takes `shape` with `strides` (NULL: contiguous); a storage too
 * small for the new geometry is replaced by a bigger one holding the old bytes first.  PyTorch
 * grows the storage object itself, so other tensors sharing it see the new bytes; here they keep
 * the old storage (Ember's storages have a fixed size).  Not a version bump: the op that writes
 * the result into t makes that. */
int tensor_resize_(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides) {
    if (tensor__check_shape(ndim, shape) < 0) return -1;
    int64_t cstrides[TENSOR_MAX_DIMS];
    if (!strides) {
        tensor__compute_contiguous_strides(ndim, shape, cstrides);
        strides = cstrides;
    }
    TensorStorage *s = t->storage;
    size_t el = tensor__elsize((TensorDtype)t->dtype);
    int64_t extent = tensor__extent(ndim, shape, strides);
    size_t need = extent ? (size_t)(t->offset + extent) * el : 0;
    if (need > s->nbytes) {
        if (s->external) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "Trying to resize storage that is not resizable");
            return -1;
        }
        if (t->base) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED,
                             "resizing a view of another tensor beyond its storage is not supported");
            return -1;
        }
        TensorStorage *g = s->meta ? tensor__storage_new_meta(need) : tensor__storage_new(need, false);
        if (!g) return tensor__oom();
        if (!s->meta) memcpy(g->data, s->data, s->nbytes);
        t->storage = g;
        tensor__storage_decref(s);
    }
    tensor__set_geometry(t, ndim, shape, strides);
    return 0;
}
