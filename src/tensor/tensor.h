/* src/tensor/tensor.h — the tensor layout and the helpers shared by the tensor library's files
 * (and by src/autograd, which reads the autograd fields). Not part of the public API.
 *
 * Layout
 * ------
 *   Tensor { refcount, dtype, ndim, flags, numel, offset, shape[8], strides[8],
 *            storage -> TensorStorage { refcount, nbytes, data },
 *            version -> TensorVersion { refcount, version }   (lazily allocated, shared by views)
 *            base    -> root tensor of a view (owned), NULL otherwise
 *            grad_fn, output_nr, ag                            (autograd's, see src/autograd) }
 *
 * Element (i0, i1, ...) lives at storage->data + (offset + sum(ik * strides[k])) * elem_size.
 * Non-view tensors created by this library are always contiguous.
 *
 * Invariant: any operation that makes two tensors share a version counter (views, detach, a
 * saved tensor's alias) first materialises the counter with tensor__version_counter(); a
 * tensor whose `version` is NULL therefore has no alias sharing its counter and is at version 0.
 */
#ifndef EMBER_SRC_TENSOR_TENSOR_H
#define EMBER_SRC_TENSOR_TENSOR_H

#include "ember/tensor.h"
#include "src/common/check.h"
#include "src/tensor/dtype.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>


#define TENSOR_INTERNAL __attribute__((visibility("hidden")))

struct TensorStorage {
    int32_t refcount;
    bool external;                 /* data not owned: release(ctx) on free */
    bool meta;                     /* no data (a fake's, tensor_empty_meta): data is NULL, nbytes the size it stands for */
    uint8_t shared;                /* data moved to a MAP_SHARED mapping (share_memory_): STORAGE_SHARED_*; 0 if not */
    bool sliced;                   /* a slice (tensor_storage_slice) points into data: it must not move */
    size_t nbytes;
    void *data;
    void (*release)(void *ctx);
    void *release_ctx;
};

/* A shared storage's data is a MAP_SHARED | MAP_ANONYMOUS mapping (seen by forked children), and
 * it is marked external so nothing resizes it; the value says how the header itself was
 * allocated, so tensor__storage_decref frees it the same way. */
enum { STORAGE_SHARED_BLOCK = 1, STORAGE_SHARED_MALLOC = 2 };

typedef struct TensorVersion {
    int32_t refcount;
    uint32_t version;
} TensorVersion;

enum {
    TENSOR_F_REQUIRES_GRAD = 1u << 0,  /* leaf requires grad (autograd) */
    TENSOR_F_WRAPPED_NUMBER = 1u << 1, /* 0-dim tensor standing for a Python scalar */
    TENSOR_F_CONTIGUOUS = 1u << 2,     /* cached is_contiguous */
    TENSOR_F_RETAINS_GRAD = 1u << 3,   /* autograd: retain_grad() was called */
    TENSOR_F_DIFF_VIEW = 1u << 4,      /* autograd: a view made by a recording op (tracks its base) */
    TENSOR_F_NOGRAD_VIEW = 1u << 5,    /* autograd: ... made while grad mode was off */
};

struct AgNode;
struct AgMeta;

struct Tensor {
    int32_t refcount;
    uint8_t dtype;
    uint8_t ndim;
    uint8_t flags;
    uint8_t reserved;
    uint32_t output_nr;            /* autograd: which output of grad_fn this is */
    uint32_t grad_fn_version;      /* autograd: version when a view's grad_fn was set */
    int64_t numel;
    int64_t offset;                /* in elements */
    TensorStorage *storage;
    TensorVersion *version;
    Tensor *base;
    struct AgNode *grad_fn;        /* owned reference (autograd) */
    struct AgMeta *ag;             /* owned (autograd), lazily allocated */
    void *user_obj;
    uint64_t serial;               /* creation order (tensor_serial): which tensors predate a trace */
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
};

/* Autograd installs this so freeing a tensor drops grad_fn / ag (the tensor layer never
 * looks inside them). */
extern void (*tensor__autograd_release)(Tensor *t);

static inline size_t tensor__elsize(TensorDtype d) { return tensor__dtypes[d].size; }
static inline char *tensor__data(const Tensor *t) {
    return (char *)t->storage->data + t->offset * (int64_t)tensor__elsize((TensorDtype)t->dtype);
}
static inline float *tensor__f32(const Tensor *t) { return (float *)tensor__data(t); }
static inline int64_t *tensor__i64(const Tensor *t) { return (int64_t *)tensor__data(t); }
static inline bool *tensor__b8(const Tensor *t) { return (bool *)tensor__data(t); }
static inline bool tensor__contig(const Tensor *t) { return (t->flags & TENSOR_F_CONTIGUOUS) != 0; }

/* ---- construction (tensor.c) ---- */
Tensor *tensor__alloc_struct(void);   /* zeroed except what callers must fill; refcount 1 */
TensorStorage *tensor__storage_new(size_t nbytes, bool zero);
TensorStorage *tensor__storage_new_meta(size_t nbytes);   /* no data, not counted as live storage */
int tensor__storage_share(TensorStorage *s);   /* data into a MAP_SHARED mapping (share_memory_) */
size_t tensor__shared_map_bytes(size_t nbytes);
void tensor__storage_incref(TensorStorage *s);
void tensor__storage_decref(TensorStorage *s);
/* New contiguous tensor with fresh storage. zero: memset 0. */
Tensor *tensor__new(TensorDtype dt, int ndim, const int64_t *shape, bool zero);
/* New tensor viewing `src`'s storage with the given geometry. The result shares src's version
 * counter and gets `base` = src's root base (or src). */
Tensor *tensor__make_view(Tensor *src, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset);
/* Alias with the same geometry; share_version: detach (true) vs .data (false). Not a view. */
Tensor *tensor__alias(Tensor *src, bool share_version);
void tensor__set_geometry(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides);
TensorVersion *tensor__version_counter(Tensor *t);  /* materialises it */
void tensor__compute_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
int64_t tensor__shape_numel(int ndim, const int64_t *shape);
bool tensor__is_contiguous_geometry(int ndim, const int64_t *shape, const int64_t *strides);
/* strides exactly the contiguous ones, size-1 dims' included (memory_format.c) */
bool tensor__strides_are_contiguous(int ndim, const int64_t *shape, const int64_t *strides);
/* c10's suggest_memory_format: channels-last(-3d) when the strides rank the dims so, else
 * contiguous (memory_format.c) */
TensorMemoryFormat tensor__suggest_memory_format(int ndim, const int64_t *shape, const int64_t *strides);
bool tensor__to_aliases(TensorDtype dt, int x_dtype, int ndim, const int64_t *shape, const int64_t *strides,
                        TensorMemoryFormat mf, bool copy);
/* is_contiguous(memory_format=mf) of a geometry (memory_format.c) */
bool tensor__contiguous_as(int ndim, const int64_t *shape, const int64_t *strides, TensorMemoryFormat mf);
/* Runs the mutation observer and bumps the version: call before mutating t in place. */
int tensor__begin_inplace(Tensor *t) EM_MUST_CHECK;

/* ---- errors / dims helpers (error.c) ---- */
/* Normalises a possibly negative dim for a tensor of `ndim` dims (0-dim tensors accept -1 and
 * 0); sets PyTorch's IndexError and returns -1 when out of range. */
int64_t tensor__wrap_dim(int64_t dim, int ndim);
int tensor__format_shape(char *buf, size_t cap, int ndim, const int64_t *shape);  /* "[2, 3]" */
int tensor__oom(void);
/* "<what> cannot be called on meta tensors" (RuntimeError); returns -1 */
int tensor__meta_data_error(const char *what);

/* ---- promotion (dtype.c) and broadcasting (promote.c) ---- */
/* c10::canCast: no floating -> integral or bool, no integral -> bool */
static inline bool tensor__can_cast(TensorDtype from, TensorDtype to) { return tensor__kind(from) <= tensor__kind(to); }
/* PyTorch's error when an op's result cannot be written into `out`'s dtype */
int tensor__cast_error(TensorDtype result, TensorDtype out);
/* broadcast two shapes; sets PyTorch's error on mismatch */
int tensor__broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) EM_MUST_CHECK;
/* Ensures t has dtype dt: returns a new ref to t itself or a converted contiguous copy. */
Tensor *tensor__as_dtype(const Tensor *t, TensorDtype dt);

/* ---- shape inference entry points shared by kernels (infer.c) ---- */
void tensor__meta_contiguous(TensorMeta *m, TensorDtype dt, int ndim, const int64_t *shape);
Tensor *tensor__new_from_meta(const TensorMeta *m, bool zero);
/* PyTorch's errors for more dims than Ember holds or a negative size: -1 with the error set */
int tensor__check_shape(int ndim, const int64_t *shape);
/* elements a geometry reaches: 1 + sum((size - 1) * stride), 0 when a size is 0 */
int64_t tensor__extent(int ndim, const int64_t *shape, const int64_t *strides);

/* ---- kernels used across files ---- */
int tensor__copy_into(Tensor *dst, const Tensor *src) EM_MUST_CHECK;     /* broadcasting, dtype conversion; no version bump */
void tensor__fill_raw(Tensor *t, TensorScalar s);                             /* no version bump */
Tensor *tensor__sum_to_shape(const Tensor *t, int ndim, const int64_t *shape); /* reduce broadcast dims */

/* Meta mode or an op observer is on (dispatch.c): entry points that skip tensor_op_run for speed
 * must not skip it then. */
extern bool tensor__op_hooked;
/* Recording ops over fakes (the runtime recording a compiled backward with ag_derive): meta mode
 * without storage (outputs share one zero-byte storage: nothing is allocated, a kernel reading
 * data would be caught) and fn as the op observer, its top level the current op depth; end
 * restores what begin found. */
typedef struct TensorRecordSave {
    TensorOpObserver fn;
    void *ctx;
    int depth;
    bool meta, storageless;
} TensorRecordSave;
void tensor__record_begin(TensorOpObserver fn, void *ctx, TensorRecordSave *save);
/* the zero-byte storage fakes share (borrowed; NULL when out of memory) */
TensorStorage *tensor__no_storage(void);
void tensor__record_end(const TensorRecordSave *save);

/* Per-op kernel and inference signatures (dispatch.c builds the tables from ops.def). */
typedef int (*TensorRunFn)(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);
typedef int (*TensorInferFn)(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a,
                             TensorMeta *out, int max_out);

#endif
