/* tensor.c — tensor and storage lifetime: allocation, refcounts, version counters, views'
 * geometry, metadata accessors, and the storage/mutation observers the VM hooks into. */
#include "src/tensor/tensor.h"

#include "src/common/blockcache.h"

#include <string.h>
#include <sys/mman.h>

#include <stdio.h>

void (*tensor__autograd_release)(Tensor *t);

static TensorStorageObserver storage_observer;
static void *storage_observer_ud;
static TensorMutationObserver mutation_observer;
static void *mutation_observer_ud;
static size_t live_storage_bytes;
static size_t peak_storage_bytes;    /* the high-water mark of live_storage_bytes (benchmarks) */
static int64_t live_tensors;
/* the serial of the newest tensor struct: tensors are numbered as they are made (the tensor layer
 * keeps its counters unsynchronised, as live_tensors: tensors are made on the interpreter's thread) */
static uint64_t tensor_serial_last;

void tensor_set_storage_observer(TensorStorageObserver fn, void *ud) {
    storage_observer = fn;
    storage_observer_ud = ud;
}
size_t tensor_live_storage_bytes(void) { return live_storage_bytes; }
size_t tensor_peak_storage_bytes(void) { return peak_storage_bytes; }
void tensor_reset_peak_storage_bytes(void) { peak_storage_bytes = live_storage_bytes; }
int64_t tensor_live_count(void) { return live_tensors; }
uint64_t tensor_serial(const Tensor *t) { return t->serial; }
uint64_t tensor_serial_newest(void) { return tensor_serial_last; }

void tensor_set_mutation_observer(TensorMutationObserver fn, void *ud) {
    mutation_observer = fn;
    mutation_observer_ud = ud;
}

/* ---- storage ---------------------------------------------------------------------------------- */

/* Small buffers live in the same allocation as the header (one block per tensor's data);
 * large ones are 64-byte aligned for BLAS.  Headers, small buffers and buffers under
 * STORAGE_MAP_MIN come from the block cache (src/common/blockcache.h: the collector frees them
 * in batches, which glibc's free handles slowly); external storages' headers are malloc's. */
#define STORAGE_INLINE_MAX 4096

/* Big buffers (>= STORAGE_MAP_MIN) are page mappings, and a freed one is kept in a cache for
 * the next buffer of the same size.  A training loop frees and reallocates the same sizes
 * every step (gradients, activations); handed back to malloc, a freed buffer is split by the
 * small allocations that follow and the next one lands on fresh heap, so the heap grew by a
 * gradient per step until the VM's collector freed those small objects.  Mapping without the
 * cache would instead page-fault every buffer in again at every step.  The VM's collector frees
 * a tensor-heavy loop's temporaries in batches (its storage budget, vm/gc.c, is 16 MiB or more),
 * so the cache holds any number of buffers: with 512 slots, a loop of 64 KiB temporaries freed
 * 1024 a batch and mapped half of them afresh every cycle.  It holds at most 64 MiB, and after
 * each collection the VM trims it to twice its storage budget (tensor_storage_cache_trim), what
 * the next cycle can take back: it held 256 MiB, and a loop whose sizes changed (an MLP's step
 * at batch 1, then at batch 64) kept the old sizes' buffers resident, 16 MiB of mlp_step.py's
 * peak RSS.  Buffers are
 * kept in bins of one size each (a loop asks for a few sizes, many times), newest on top;
 * when full, the least recently used bin gives up a buffer. */
#define STORAGE_MAP_MIN (64u << 10)
#define STORAGE_CACHE_BINS 64
#define STORAGE_CACHE_MAX_BYTES (64u << 20)
typedef struct CacheBin {
    size_t n;           /* the page-rounded size of every buffer in the bin */
    void **p;
    int len, cap;
    uint64_t used;      /* cache_tick at the last take or give */
} CacheBin;
static CacheBin cache_bins[STORAGE_CACHE_BINS];
static int cache_nbins;
static size_t cache_bytes;
static uint64_t cache_tick;

static size_t page_round(size_t n) { return (n + 4095) & ~(size_t)4095; }

static CacheBin *cache_bin(size_t n) {
    for (int i = 0; i < cache_nbins; i++)
        if (cache_bins[i].n == n) return &cache_bins[i];
    return NULL;
}

/* unmap the newest buffer of the least recently used non-empty bin; false when empty */
static bool cache_evict_one(void) {
    CacheBin *lru = NULL;
    for (int i = 0; i < cache_nbins; i++)
        if (cache_bins[i].len && (!lru || cache_bins[i].used < lru->used)) lru = &cache_bins[i];
    if (!lru) return false;
    munmap(lru->p[--lru->len], lru->n);
    cache_bytes -= lru->n;
    return true;
}

void tensor_storage_cache_trim(size_t max_bytes) {
    while (cache_bytes > max_bytes && cache_evict_one()) {}
}

static void *big_alloc(size_t nbytes) {
    size_t n = page_round(nbytes);
    CacheBin *b = cache_bin(n);
    if (b && b->len) {
        b->used = ++cache_tick;
        cache_bytes -= n;
        return b->p[--b->len];
    }
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void big_free(void *p, size_t nbytes) {
    size_t n = page_round(nbytes);
    if (n > STORAGE_CACHE_MAX_BYTES) {
        munmap(p, n);
        return;
    }
    while (cache_bytes + n > STORAGE_CACHE_MAX_BYTES && cache_evict_one()) {}
    CacheBin *b = cache_bin(n);
    if (!b) {
        /* a new size: take a free bin, or the least recently used empty one */
        if (cache_nbins < STORAGE_CACHE_BINS) {
            b = &cache_bins[cache_nbins++];
        } else {
            for (int i = 0; i < cache_nbins; i++)
                if (!cache_bins[i].len && (!b || cache_bins[i].used < b->used)) b = &cache_bins[i];
            if (!b) {
                /* every bin holds buffers: empty the least recently used one */
                for (int i = 0; i < cache_nbins; i++)
                    if (!b || cache_bins[i].used < b->used) b = &cache_bins[i];
                while (b->len) {
                    munmap(b->p[--b->len], b->n);
                    cache_bytes -= b->n;
                }
            }
        }
        b->n = n;
    }
    if (b->len == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        void **q = realloc(b->p, sizeof(void *) * (size_t)cap);
        if (!q) {
            munmap(p, n);
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    b->p[b->len++] = p;
    b->used = ++cache_tick;
    cache_bytes += n;
}

/* an inline storage: the header rounded to 16 bytes, then the data (at least one byte) */
#define INLINE_HEADER ((sizeof(TensorStorage) + 15) & ~(size_t)15)
static size_t inline_block_bytes(size_t nbytes) { return INLINE_HEADER + (nbytes ? nbytes : 1); }

TensorStorage *tensor__storage_new(size_t nbytes, bool zero) {
    TensorStorage *s;
    if (nbytes <= STORAGE_INLINE_MAX) {
        s = blockcache_alloc(inline_block_bytes(nbytes));
        if (!s) return NULL;
        s->data = (char *)s + INLINE_HEADER;
    } else {
        s = blockcache_alloc(sizeof *s);
        if (!s) return NULL;
        s->data = nbytes >= STORAGE_MAP_MIN ? big_alloc(nbytes) : blockcache_alloc(nbytes);
        if (!s->data) {
            blockcache_free(s, sizeof *s);
            return NULL;
        }
    }
    if (zero) memset(s->data, 0, nbytes);
    s->refcount = 1;
    s->external = false;
    s->meta = false;
    s->shared = 0;
    s->sliced = false;
    s->nbytes = nbytes;
    s->release = NULL;
    s->release_ctx = NULL;
    live_storage_bytes += nbytes;
    if (live_storage_bytes > peak_storage_bytes) peak_storage_bytes = live_storage_bytes;
    if (storage_observer) storage_observer(storage_observer_ud, (ptrdiff_t)nbytes);
    return s;
}

/* A fake's storage (the tracer's): nothing is allocated for the data, so tracing a model
 * neither touches memory for its parameters' twins nor paces the collector with bytes that do
 * not exist; data stays NULL so that a read which did not check tensor_has_data faults at once
 * instead of returning whatever the heap held.  nbytes is the size it stands for: views and
 * as_strided check their extent against it. */
/* Move s's bytes into a MAP_SHARED anonymous mapping, in place (every tensor viewing s sees the
 * same memory, and so does a process forked afterwards).  0, or -1 with the error set. */
int tensor__storage_share(TensorStorage *s) {
    if (s->shared) return 0;
    if (s->meta) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "share_memory_: a meta storage has no data to share");
        return -1;
    }
    if (s->sliced) {
        /* a slice holds a pointer into the bytes this would move (and free) */
        tensor_error_set(TENSOR_ERR_RUNTIME, "share_memory_: a storage that has been sliced cannot be moved to shared memory");
        return -1;
    }
    size_t len = tensor__shared_map_bytes(s->nbytes);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return tensor__oom();
    memcpy(p, s->data, s->nbytes);
    if (s->external) {
        if (s->release) s->release(s->release_ctx);
        s->release = NULL;
        s->release_ctx = NULL;
        s->shared = STORAGE_SHARED_MALLOC;
    } else {
        if (s->nbytes > STORAGE_INLINE_MAX) {
            if (s->nbytes >= STORAGE_MAP_MIN) big_free(s->data, s->nbytes);
            else blockcache_free(s->data, s->nbytes);
        }
        s->shared = STORAGE_SHARED_BLOCK;
        s->external = true;
    }
    s->data = p;
    return 0;
}

TensorStorage *tensor__storage_new_meta(size_t nbytes) {
    TensorStorage *s = blockcache_alloc(sizeof *s);
    if (!s) return NULL;
    *s = (TensorStorage){.refcount = 1, .meta = true, .nbytes = nbytes};
    return s;
}

void tensor__storage_incref(TensorStorage *s) { s->refcount++; }

size_t tensor__shared_map_bytes(size_t nbytes) {
    size_t page = 4096;
    return ((nbytes ? nbytes : 1) + page - 1) & ~(page - 1);
}

void tensor__storage_decref(TensorStorage *s) {
    if (!s || --s->refcount > 0) return;
    if (s->shared) {
        munmap(s->data, tensor__shared_map_bytes(s->nbytes));
        if (s->shared == STORAGE_SHARED_MALLOC) {
            free(s);
            return;
        }
        /* the header came from tensor__storage_new; its own data block was freed when shared */
        live_storage_bytes -= s->nbytes;
        if (storage_observer) storage_observer(storage_observer_ud, -(ptrdiff_t)s->nbytes);
        blockcache_free(s, s->nbytes <= STORAGE_INLINE_MAX ? inline_block_bytes(s->nbytes) : sizeof *s);
        return;
    }
    if (s->external) {
        if (s->release) s->release(s->release_ctx);
        free(s);
        return;
    }
    if (s->meta) {
        blockcache_free(s, sizeof *s);
        return;
    }
    live_storage_bytes -= s->nbytes;
    if (storage_observer) storage_observer(storage_observer_ud, -(ptrdiff_t)s->nbytes);
    if (s->nbytes <= STORAGE_INLINE_MAX) {
        blockcache_free(s, inline_block_bytes(s->nbytes));
        return;
    }
    if (s->nbytes >= STORAGE_MAP_MIN) big_free(s->data, s->nbytes);
    else blockcache_free(s->data, s->nbytes);
    blockcache_free(s, sizeof *s);
}

/* ---- geometry ---------------------------------------------------------------------------------- */

int64_t tensor__shape_numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    return n;
}

void tensor__compute_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

bool tensor__is_contiguous_geometry(int ndim, const int64_t *shape, const int64_t *strides) {
    int64_t expected = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        if (shape[i] == 0) return true;
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

void tensor__set_geometry(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides) {
    t->ndim = (uint8_t)ndim;
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        n *= shape[i];
    }
    t->numel = n;
    if (strides)
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    else
        tensor__compute_contiguous_strides(ndim, shape, t->strides);
    if (tensor__is_contiguous_geometry(ndim, t->shape, t->strides))
        t->flags |= TENSOR_F_CONTIGUOUS;
    else
        t->flags &= (uint8_t)~TENSOR_F_CONTIGUOUS;
}

/* ---- tensors ----------------------------------------------------------------------------------- */

Tensor *tensor__alloc_struct(void) {
    Tensor *t = blockcache_alloc(sizeof *t);
    if (!t) return NULL;
    /* Everything but shape/strides, which set_geometry fills for the dims in use. */
    memset(t, 0, offsetof(Tensor, shape));
    t->refcount = 1;
    t->serial = ++tensor_serial_last;
    live_tensors++;
    return t;
}

int tensor__check_shape(int ndim, const int64_t *shape) {
    if (ndim > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "tensors with more than %d dimensions are not supported", TENSOR_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0) {
            char buf[256];
            tensor__format_shape(buf, sizeof buf, ndim, shape);
            tensor_error_set(TENSOR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                             (long long)shape[i], buf);
            return -1;
        }
    return 0;
}

int64_t tensor__extent(int ndim, const int64_t *shape, const int64_t *strides) {
    int64_t extent = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) return 0;
        extent += (shape[i] - 1) * strides[i];
    }
    return extent;
}

Tensor *tensor__new(TensorDtype dt, int ndim, const int64_t *shape, bool zero) {
    if (tensor__check_shape(ndim, shape) < 0) return NULL;
    int64_t n = tensor__shape_numel(ndim, shape);
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    t->storage = tensor__storage_new((size_t)n * tensor__elsize(dt), zero);
    if (!t->storage) {
        blockcache_free(t, sizeof *t);
        live_tensors--;
        tensor__oom();
        return NULL;
    }
    t->dtype = (uint8_t)dt;
    tensor__set_geometry(t, ndim, shape, NULL);
    return t;
}

TensorVersion *tensor__version_counter(Tensor *t) {
    if (!t->version) {
        t->version = malloc(sizeof *t->version);
        EM_ASSERT(t->version, "out of memory allocating a version counter");
        t->version->refcount = 1;
        t->version->version = 0;
    }
    return t->version;
}

static void version_decref(TensorVersion *v) {
    if (v && --v->refcount == 0) free(v);
}

Tensor *tensor__make_view(Tensor *src, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    t->dtype = src->dtype;
    t->storage = src->storage;
    tensor__storage_incref(t->storage);
    t->version = tensor__version_counter(src);
    t->version->refcount++;
    t->base = src->base ? src->base : src;
    tensor_incref(t->base);
    t->offset = offset;
    tensor__set_geometry(t, ndim, shape, strides);
    return t;
}

Tensor *tensor__alias(Tensor *src, bool share_version) {
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    t->dtype = src->dtype;
    t->storage = src->storage;
    tensor__storage_incref(t->storage);
    if (share_version) {
        t->version = tensor__version_counter(src);
        t->version->refcount++;
    }
    t->offset = src->offset;
    tensor__set_geometry(t, src->ndim, src->shape, src->strides);
    return t;
}

/* `t.data = src` (PyTorch's set_data): t keeps its identity, autograd state and version counter
 * and takes src's storage, dtype and geometry (nn.Module.double() converts parameters so). */
int tensor_set_data(Tensor *t, const Tensor *src) {
    if (t == src) return 0;
    tensor__storage_incref(src->storage);
    tensor__storage_decref(t->storage);
    t->storage = src->storage;
    t->dtype = src->dtype;
    t->offset = src->offset;
    tensor__set_geometry(t, src->ndim, src->shape, src->strides);
    return 0;
}

void tensor_incref(Tensor *t) { t->refcount++; }

void tensor_decref(Tensor *t) {
    if (!t || --t->refcount > 0) return;
    if ((t->grad_fn || t->ag) && tensor__autograd_release) tensor__autograd_release(t);
    tensor__storage_decref(t->storage);
    version_decref(t->version);
    Tensor *base = t->base;
    live_tensors--;
    blockcache_free(t, sizeof *t);
    tensor_decref(base);
}

int32_t tensor_refcount(const Tensor *t) { return t->refcount; }
void *tensor_user_obj(const Tensor *t) { return t->user_obj; }
void tensor_set_user_obj(Tensor *t, void *obj) { t->user_obj = obj; }

int tensor__begin_inplace(Tensor *t) {
    /* a kernel about to write a fake's data (a native that fills in place without an op, such
     * as cauchy_, called on the tracer's fakes): there is none to write */
    if (t->storage->meta) return tensor__meta_data_error("An in-place kernel");
    if (mutation_observer && (tensor_error_clear(), mutation_observer(mutation_observer_ud, t)) < 0) {
        if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
        return -1;
    }
    tensor__version_counter(t)->version++;
    return 0;
}

/* ---- accessors --------------------------------------------------------------------------------- */

TensorDtype tensor_dtype(const Tensor *t) { return (TensorDtype)t->dtype; }

int tensor_ndim(const Tensor *t) { return t->ndim; }
const int64_t *tensor_shape(const Tensor *t) { return t->shape; }
const int64_t *tensor_strides(const Tensor *t) { return t->strides; }
int64_t tensor_numel(const Tensor *t) { return t->numel; }
int64_t tensor_storage_offset(const Tensor *t) { return t->offset; }
bool tensor_is_contiguous(const Tensor *t) { return tensor__contig(t); }
bool tensor_is_view(const Tensor *t) { return t->base != NULL; }
Tensor *tensor_base(const Tensor *t) { return t->base; }
bool tensor_is_wrapped_number(const Tensor *t) { return (t->flags & TENSOR_F_WRAPPED_NUMBER) != 0; }
void tensor_set_wrapped_number(Tensor *t, bool on) {
    if (on)
        t->flags |= TENSOR_F_WRAPPED_NUMBER;
    else
        t->flags &= (uint8_t)~TENSOR_F_WRAPPED_NUMBER;
}
/* NULL, not NULL + offset, for a meta tensor: a caller that forgot tensor_has_data faults at once */
void *tensor_data_ptr(const Tensor *t) { return t->storage->meta ? NULL : tensor__data(t); }
bool tensor_has_data(const Tensor *t) { return !t->storage->meta; }
const TensorStorage *tensor_storage(const Tensor *t) { return t->storage; }
bool tensor_same_storage(const Tensor *a, const Tensor *b) { return a->storage == b->storage; }
uint32_t tensor_version(const Tensor *t) { return t->version ? t->version->version : 0; }
void tensor_bump_version(Tensor *t) { tensor__version_counter(t)->version++; }

const char *tensor_type_string(const Tensor *t) { return tensor__dtypes[t->dtype].type_str; }

int64_t tensor_size(const Tensor *t, int64_t dim) {
    int64_t d = tensor__wrap_dim(dim, t->ndim);
    if (d < 0) return -1;
    return t->ndim ? t->shape[d] : 1;
}

void tensor_meta_of(const Tensor *t, TensorMeta *m) {
    m->dtype = (TensorDtype)t->dtype;
    m->ndim = t->ndim;
    memcpy(m->shape, t->shape, sizeof(int64_t) * t->ndim);
    memcpy(m->strides, t->strides, sizeof(int64_t) * t->ndim);
    m->offset = t->offset;
    m->wrapped_number = tensor_is_wrapped_number(t);
}

double tensor_get_f64(const Tensor *t, const int64_t *index) {
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++) off += index[i] * t->strides[i];
    TensorDtype d = (TensorDtype)t->dtype;
    return tensor__ld_d(d, tensor__data(t) + off * (int64_t)tensor__elsize(d));
}

int64_t tensor_get_i64(const Tensor *t, const int64_t *index) {
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++) off += index[i] * t->strides[i];
    TensorDtype d = (TensorDtype)t->dtype;
    return tensor__ld_i(d, tensor__data(t) + off * (int64_t)tensor__elsize(d));
}

int tensor_item(const Tensor *t, TensorScalar *out) {
    if (t->numel != 1) {
        tensor_error_set(TENSOR_ERR_VALUE, "only one element tensors can be converted to Python scalars");
        return -1;
    }
    if (t->storage->meta) return tensor__meta_data_error("Tensor.item()");
    const char *p = tensor__data(t);
    TensorDtype d = (TensorDtype)t->dtype;
    switch (tensor__kind(d)) {
    case TENSOR_KIND_FLOAT: *out = tensor_scalar_f(tensor__ld_d(d, p)); break;
    case TENSOR_KIND_INT: *out = tensor_scalar_i(tensor__ld_i(d, p)); break;
    default: *out = tensor_scalar_b(*(const bool *)p); break;
    }
    return 0;
}
