/* ember/tensor.h — the public C API of Ember's tensor library (src/tensor).
 *
 * Design note
 * -----------
 * A Tensor is a refcounted strided view (dtype, shape, strides, element offset) over a
 * refcounted TensorStorage.  Views (view/reshape, transpose, permute, t, expand, slice, select,
 * narrow, unsqueeze, squeeze, flatten, split, unbind, as_strided) share the storage *and* the
 * version counter of their base; `tensor_base()` is the root tensor they view (PyTorch `_base`).
 * In-place ops bump the shared version counter; autograd compares it with the version a saved
 * tensor had when it was saved.  `tensor_detach()` shares the counter, `tensor_alias()` (for
 * `.data`) gets a fresh one.
 *
 *     Tensor *a = tensor_arange_f(0, 6, 1);            // tensor([0., 1., 2., 3., 4., 5.])
 *     Tensor *v = tensor_view(a, (int64_t[]){2, 3}, 2);  // shares a's storage
 *     Tensor *t = tensor_t(v);                          // strides {1, 3}: not contiguous
 *     tensor_add_scalar_(t, tensor_scalar_f(1), tensor_scalar_i(1));  // a's version is now 1
 *     tensor_decref(t); tensor_decref(v); tensor_decref(a);
 *
 * Ownership: functions returning `Tensor *` return a new reference (NULL on error); tensor
 * arguments are borrowed unless a comment says "steals".  Errors set a thread-local error
 * (tensor_error_kind / tensor_error_message) with PyTorch's wording and Python exception kind.
 * Every op is also reachable by enum through tensor_op_run / tensor_op_infer (ops.def).
 * This layer never records autograd history: see ember/autograd.h for the recording `ag_` API.
 * Single-threaded.
 */
#ifndef EMBER_TENSOR_H
#define EMBER_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_MUST_CHECK __attribute__((warn_unused_result))

/* Shapes and strides are stored inline in the Tensor; PyTorch scripts rarely go beyond 6-D. */
#define TENSOR_MAX_DIMS 8

/* The dtypes of ember/dtypes.def (its header says what each column means). */
typedef enum TensorDtype {
    TENSOR_DTYPE_DEFAULT = -1,   /* "not given": ops pick PyTorch's default */
#define DT(NAME, ...) TENSOR_##NAME,
#include "ember/dtypes.def"
#undef DT
    TENSOR_DTYPE_COUNT
} TensorDtype;

typedef struct Tensor Tensor;
typedef struct TensorStorage TensorStorage;

/* ---- errors -------------------------------------------------------------------------------- */

typedef enum TensorErrorKind {
    TENSOR_OK = 0,
    TENSOR_ERR_RUNTIME,          /* RuntimeError */
    TENSOR_ERR_VALUE,            /* ValueError */
    TENSOR_ERR_INDEX,            /* IndexError */
    TENSOR_ERR_TYPE,             /* TypeError */
    TENSOR_ERR_NOT_IMPLEMENTED,  /* NotImplementedError */
    TENSOR_ERR_MEMORY,           /* MemoryError */
    TENSOR_ERR_LINALG,           /* torch.linalg.LinAlgError (a RuntimeError): LAPACK failed on the values */
    /* A callback (hook, custom backward, pack/unpack, final callback) returned failure: the
     * error lives in the caller's world (e.g. a pending VM exception); the message is empty. */
    TENSOR_ERR_EXTERNAL,
} TensorErrorKind;

TensorErrorKind tensor_error_kind(void);
const char *tensor_error_message(void);     /* "" when none */
const char *tensor_error_kind_name(TensorErrorKind kind);  /* "RuntimeError", ... */
void tensor_error_clear(void);
void tensor_error_set(TensorErrorKind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tensor_error_set_external(void);

/* ---- scalars and op arguments ---------------------------------------------------------------- */

/* A Python number: kind TENSOR_FLOAT32 (a Python float: uses f, a double), TENSOR_INT64 (uses i)
 * or TENSOR_BOOL (i != 0).  Its kind takes part in type promotion as a wrapped number: an int
 * tensor + 1.5 is of the default dtype (float32 unless tensor_set_default_dtype changed it). */
typedef struct TensorScalar {
    double f;
    int64_t i;
    TensorDtype kind;
} TensorScalar;

static inline TensorScalar tensor_scalar_f(double v) { TensorScalar s = {v, (int64_t)v, TENSOR_FLOAT32}; return s; }
static inline TensorScalar tensor_scalar_i(int64_t v) { TensorScalar s = {(double)v, v, TENSOR_INT64}; return s; }
static inline TensorScalar tensor_scalar_b(bool v) { TensorScalar s = {v ? 1.0 : 0.0, v, TENSOR_BOOL}; return s; }

typedef enum TensorReduction {
    TENSOR_REDUCTION_NONE = 0,
    TENSOR_REDUCTION_MEAN = 1,
    TENSOR_REDUCTION_SUM = 2,
} TensorReduction;

/* scatter / scatter_reduce's reduction (TensorOpArgs.start of SCATTER and SCATTER_REDUCE): NONE
 * replaces (scatter without reduce=); SUM is scatter's 'add', PROD its 'multiply' */
typedef enum TensorScatterReduce {
    TENSOR_SCATTER_NONE = 0,
    TENSOR_SCATTER_SUM = 1,
    TENSOR_SCATTER_PROD = 2,
    TENSOR_SCATTER_MEAN = 3,
    TENSOR_SCATTER_AMAX = 4,
    TENSOR_SCATTER_AMIN = 5,
} TensorScatterReduce;

/* Everything an op may need besides its tensor inputs; ops.def says which fields each op reads.
 * Start from TENSOR_OP_ARGS_INIT (PyTorch's defaults).  `ints`/`ints2` are borrowed. */
/* PyTorch's memory formats (torch.contiguous_format, preserve_format, channels_last,
 * channels_last_3d): the strides a new tensor of a shape is laid out with.  Preserve takes an
 * existing tensor's: its own strides when they are non-overlapping and dense, else a dense layout
 * in the order of its strides (ATen's empty_like / infer_dense_strides). */
typedef enum TensorMemoryFormat {
    TENSOR_MF_UNSET = 0,          /* args' default: copies contiguous, to() of the same dtype is self */
    TENSOR_MF_CONTIGUOUS,
    TENSOR_MF_PRESERVE,
    TENSOR_MF_CHANNELS_LAST,
    TENSOR_MF_CHANNELS_LAST_3D,
} TensorMemoryFormat;

/* gelu's forms (TensorOpArgs.approximate).  PyTorch 1.13 computes float32 approximate='none' gelu
 * of a contiguous CPU tensor with more than one element with oneDNN's eltwise gelu_erf, forward and
 * backward (use_mkldnn in ATen's Activation.cpp), everything else with ATen's kernel: the op
 * records which, decided from its input when it is created (tensor_gelu_form), so eager, traced
 * and compiled runs pick the same one.  ONEDNN_GRAD is oneDNN's derivative, d gelu / dx. */
enum {
    TENSOR_GELU_ERF = 0,         /* ATen: 0.5 x (1 + erf(x / sqrt 2)) */
    TENSOR_GELU_TANH = 1,        /* ATen: approximate='tanh' */
    TENSOR_GELU_ONEDNN = 2,      /* oneDNN's gelu_erf (src/tensor/gelu_onednn.h) */
    TENSOR_GELU_ONEDNN_GRAD = 3, /* its derivative (the rule multiplies by the gradient) */
};

typedef struct TensorOpArgs {
    TensorScalar scalar, scalar2;   /* scalar operand, fill value, clamp min/max, arange ... */
    TensorScalar alpha, beta;       /* add/sub alpha, addmm alpha/beta, arange step */
    const int64_t *ints;            /* dims, shape, sizes */
    const int64_t *ints2;           /* strides (as_strided) */
    int32_t n_ints, n_ints2;
    int64_t dim, dim2;
    int64_t start, end, step;       /* slice, select index, narrow, split size, eye n/m ... */
    int64_t ignore_index;           /* nll_loss / cross_entropy (default -100) */
    int64_t padding_idx;            /* embedding (default -1 = none) */
    double eps;                     /* layer_norm (default 1e-5) */
    double p;                       /* dropout probability */
    int32_t correction;             /* var/std (default 1) */
    TensorDtype dtype;              /* creation / to (default TENSOR_DTYPE_DEFAULT) */
    TensorReduction reduction;      /* losses (default mean) */
    bool keepdim, has_dim, has_min, has_max;
    uint8_t approximate;            /* gelu's form: TENSOR_GELU_* */
    bool accumulate;                /* index_put */
    bool train;                     /* dropout */
    uint8_t memory_format;          /* clone / to / contiguous / the *_like ops: a TensorMemoryFormat
                                       (default contiguous: reshape's copy and internal copies;
                                       Python's clone(), to() and *_like ask for preserve) */
    bool force_copy;                /* to(copy=True): a copy even when nothing changes */
    struct TensorGenerator *gen;    /* random ops: generator= (NULL: the default one) */
} TensorOpArgs;

#define TENSOR_OP_ARGS_INIT                                                                  \
    ((TensorOpArgs){.alpha = {1.0, 1, TENSOR_INT64}, .beta = {1.0, 1, TENSOR_INT64},           \
                    .end = INT64_MAX, .step = 1, .ignore_index = -100, .padding_idx = -1,      \
                    .eps = 1e-5, .p = 0.5, .correction = 1, .dtype = TENSOR_DTYPE_DEFAULT,     \
                    .reduction = TENSOR_REDUCTION_MEAN, .train = true})

/* ---- the op table ------------------------------------------------------------------------- */

typedef enum TensorOp {
#define X(NAME, ...) TENSOR_OP_##NAME,
#include "ember/ops.def"
#undef X
    TENSOR_OP_COUNT
} TensorOp;

enum {
    TENSOR_OPF_POINTWISE = 1u << 0,
    TENSOR_OPF_REDUCTION = 1u << 1,
    TENSOR_OPF_VIEW = 1u << 2,
    TENSOR_OPF_INPLACE = 1u << 3,
    TENSOR_OPF_CREATION = 1u << 4,
    TENSOR_OPF_RANDOM = 1u << 5,
    TENSOR_OPF_COMPOSITE = 1u << 6,
    TENSOR_OPF_NONDIFF = 1u << 7,
    TENSOR_OPF_SCALAR_EDGE = 1u << 8,
    TENSOR_OPF_SCALAR_EDGE_FIRST = 1u << 9,
    TENSOR_OPF_LAYOUT_OF_INPUT = 1u << 10,   /* outputs of input 0's shape laid out as empty_like(input 0) */
};

typedef struct TensorOpInfo {
    const char *name;        /* "add" */
    const char *enum_name;   /* "ADD" */
    const char *node_name;   /* autograd node name ("AddBackward0") or NULL */
    int in_min, in_max;      /* in_max -1: variadic */
    int n_out;               /* -1: decided by args */
    unsigned flags;          /* TENSOR_OPF_* */
    uint32_t diff_inputs;    /* bit i: input i is differentiable */
} TensorOpInfo;

const TensorOpInfo *tensor_op_info(TensorOp op);
const char *tensor_op_name(TensorOp op);
unsigned tensor_op_flags(TensorOp op);
/* The number of outputs op produces for these args and inputs (split/chunk/unbind depend on them);
 * -1 with an error set if the args are invalid. */
int tensor_op_num_outputs(TensorOp op, int n_inputs, const Tensor *const *inputs, const TensorOpArgs *args);

/* Shape/dtype/stride information without data: what tensor_op_infer works on. For views the
 * strides and offset are those the view will have; otherwise they are contiguous. */
typedef struct TensorMeta {
    TensorDtype dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
    int64_t offset;
    bool wrapped_number;     /* a 0-dim tensor standing for a Python scalar (promotion) */
} TensorMeta;

void tensor_meta_of(const Tensor *t, TensorMeta *out);

/* Runs op without autograd. outputs[0..n_outputs) receive new references. Returns the number of
 * outputs written, or -1 with the error set. */
int tensor_op_run(TensorOp op, Tensor *const *inputs, int n_inputs, const TensorOpArgs *args,
                  Tensor **outputs, int n_outputs) TENSOR_MUST_CHECK;
/* Computes output metas without running kernels. Data-dependent shapes (masked_select, boolean
 * indexing) fail with NotImplementedError. Returns the number of outputs, or -1. */
int tensor_op_infer(TensorOp op, const TensorMeta *const *inputs, int n_inputs, const TensorOpArgs *args,
                    TensorMeta *outputs, int max_outputs) TENSOR_MUST_CHECK;

/* ---- meta mode and the op observer ------------------------------------------------------------- */

/* Meta mode (the tracer's fake tensors): ops compute output metadata and make meta outputs
 * (tensor_empty_meta) without running kernels (views still alias; in-place ops return their
 * input; random ops draw nothing).  Returns the previous setting. */
bool tensor_set_meta_mode(bool on);
bool tensor_meta_mode(void);
/* Called after every top-level op (tensor_op_run, or ag_op_run, not the ops they run inside)
 * with its inputs, args and outputs (borrowed).  Top-level is relative to where the observer was
 * set: set from code an op is running (a saved-tensor pack hook), it sees the ops that code
 * runs.  One observer; NULL removes it. */
typedef void (*TensorOpObserver)(void *ctx, TensorOp op, Tensor *const *inputs, int n_inputs,
                                 const TensorOpArgs *args, Tensor *const *outputs, int n_outputs);
void tensor_set_op_observer(TensorOpObserver fn, void *ctx);
/* Bracket a composite entry point (ag_op_run) so the ops inside it are not reported; leave
 * reports op when the outermost bracket closes (n < 0: failed, not reported). */
void tensor_op_enter(void);
void tensor_op_leave(TensorOp op, Tensor *const *inputs, int n_inputs, const TensorOpArgs *args,
                     Tensor *const *outputs, int n);

/* ---- the profiler (torch.profiler, torch.autograd.profiler) --------------------------------------- */

/* Called when an op starts (begin, with its inputs) and when it ends, at every depth (the ops a
 * composite runs inside it too), and around named ranges (op < 0: prefix + name, the autograd
 * engine's node evaluations).  While one is set, ops take the hooked path (tensor__op_hooked).
 * One profiler; NULL removes it.  Not called in meta mode (the tracer's fake ops are not work). */
typedef void (*TensorProfiler)(void *ctx, int op, const char *prefix, const char *name, Tensor *const *inputs,
                               int n_inputs, bool begin);
void tensor_set_profiler(TensorProfiler fn, void *ctx);
bool tensor_profiling(void);
void tensor_profile_op(TensorOp op, Tensor *const *inputs, int n_inputs, bool begin);   /* no-op when off */
void tensor_profile_range(const char *prefix, const char *name, bool begin);          /* prefix + name */

/* ---- lifetime, identity, observers ------------------------------------------------------------ */

void tensor_incref(Tensor *t);
void tensor_decref(Tensor *t);                 /* NULL is ignored */
int32_t tensor_refcount(const Tensor *t);
void *tensor_user_obj(const Tensor *t);        /* slot for the VM's wrapper object (not owned) */
void tensor_set_user_obj(Tensor *t, void *obj);

/* Called with +bytes when storage is allocated and -bytes when freed (GC pacing). */
typedef void (*TensorStorageObserver)(void *ud, ptrdiff_t delta_bytes);
void tensor_set_storage_observer(TensorStorageObserver fn, void *ud);
size_t tensor_live_storage_bytes(void);       /* bytes currently allocated for storage */
/* Unmap cached freed buffers (least recently used sizes first) until the cache holds at most
 * max_bytes: the VM calls it after each collection with twice its storage budget (what the next
 * cycle can take back from the cache). */
void tensor_storage_cache_trim(size_t max_bytes);
size_t tensor_peak_storage_bytes(void);       /* their high-water mark since the last reset */
void tensor_reset_peak_storage_bytes(void);   /* the mark restarts from the live bytes */
int64_t tensor_live_count(void);               /* Tensors currently alive (leak checks) */
/* Tensors are numbered as they are made: a tensor's serial, and the newest serial so far (the
 * tracer tells a tensor that existed before a trace began from one made during it) */
uint64_t tensor_serial(const Tensor *t);
uint64_t tensor_serial_newest(void);

/* Called before any in-place op mutates `t` (also for copy_ into a view). Returning -1 aborts
 * the op with the observer's error (use TENSOR_ERR_EXTERNAL for one raised by the VM). */
typedef int (*TensorMutationObserver)(void *ud, Tensor *t);
void tensor_set_mutation_observer(TensorMutationObserver fn, void *ud);

/* ---- metadata --------------------------------------------------------------------------------- */

TensorDtype tensor_dtype(const Tensor *t);
const char *tensor_dtype_name(TensorDtype d);  /* "torch.float32", "torch.int64", "torch.bool" */
const char *tensor_dtype_cname(TensorDtype d); /* PyTorch's ScalarType name: "Float", "Long", "Half" */
const char *tensor_dtype_ctype(TensorDtype d); /* the C++ type name ATen messages print: "float", "long int" */
/* c10::canCast: false for floating -> integral/bool and integral -> bool */
bool tensor_dtype_can_cast(TensorDtype from, TensorDtype to);
size_t tensor_dtype_size(TensorDtype d);
/* writes Python number s at p as one element of dtype d (ATen's casts: floats truncate to integers) */
void tensor_dtype_store(TensorDtype d, void *p, TensorScalar s);
bool tensor_dtype_is_floating(TensorDtype d);
bool tensor_dtype_is_signed(TensorDtype d);
/* The default floating dtype (torch.get_default_dtype): what Python floats and factories without
 * a dtype make.  Setting it accepts floating dtypes only (-1 + TypeError otherwise). */
TensorDtype tensor_default_dtype(void);
int tensor_set_default_dtype(TensorDtype d) TENSOR_MUST_CHECK;
/* torch.promote_types: PyTorch's promotion lattice (c10::promoteTypes). */
TensorDtype tensor_promote_types(TensorDtype a, TensorDtype b);
/* torch.result_type over tensors and Python numbers (at::result_type: dimensioned tensors beat
 * 0-dim tensors beat numbers unless of a higher kind).  scalars may be NULL. */
TensorDtype tensor_result_type(const Tensor *const *tensors, int n_tensors, const TensorScalar *scalars, int n_scalars);
int tensor_ndim(const Tensor *t);
const int64_t *tensor_shape(const Tensor *t);
const int64_t *tensor_strides(const Tensor *t); /* in elements */
int64_t tensor_size(const Tensor *t, int64_t dim);  /* negative dims allowed; -1 + error if out of range */
int64_t tensor_numel(const Tensor *t);
int64_t tensor_storage_offset(const Tensor *t);
bool tensor_is_contiguous(const Tensor *t);
/* c10's is_non_overlapping_and_dense: the elements cover the storage span densely in some dim order */
/* The strides of a new (ndim, shape) tensor in format mf; `like` gives preserve's strides (the
 * tensor being copied, of the same shape; NULL: contiguous).  -1 (error set) when a channels-last
 * format does not fit the rank, with PyTorch's message. */
int tensor_memory_format_strides(TensorMemoryFormat mf, int ndim, const int64_t *shape, const int64_t *like_strides,
                                 int64_t *strides) TENSOR_MUST_CHECK;
/* t.is_contiguous(memory_format=mf) (preserve: plain contiguity, as ATen's TensorImpl answers) */
bool tensor_is_contiguous_as(const Tensor *t, TensorMemoryFormat mf);
/* t.to(dtype, memory_format=mf, copy=copy) returns t itself (ATen's to_will_alias: same dtype, no
 * copy, and mf preserve or the format t's strides suggest); dtype DEFAULT: t's */
bool tensor_to_aliases(const Tensor *t, TensorDtype dt, TensorMemoryFormat mf, bool copy);
bool tensor_is_non_overlapping_and_dense(const Tensor *t);
bool tensor_is_view(const Tensor *t);
Tensor *tensor_base(const Tensor *t);            /* borrowed; NULL if not a view */
bool tensor_is_wrapped_number(const Tensor *t);
void tensor_set_wrapped_number(Tensor *t, bool on);
void *tensor_data_ptr(const Tensor *t);          /* address of element [0,...,0] */
bool tensor_has_data(const Tensor *t);           /* false for a meta tensor (tensor_empty_meta) */
const TensorStorage *tensor_storage(const Tensor *t);
bool tensor_same_storage(const Tensor *a, const Tensor *b);
uint32_t tensor_version(const Tensor *t);

/* ---- storages (torch.UntypedStorage; src/tensor/storage.c) ------------------------------------ */
/* A storage is a refcounted byte buffer that tensors view through (dtype, offset, shape, strides).
 * Functions returning TensorStorage * return a new reference. */
TensorStorage *tensor_storage_new(size_t nbytes);                     /* zero-filled */
void tensor_storage_incref(TensorStorage *s);
void tensor_storage_decref(TensorStorage *s);                         /* NULL is ignored */
size_t tensor_storage_nbytes(const TensorStorage *s);
void *tensor_storage_data(const TensorStorage *s);
TensorStorage *tensor_storage_of(Tensor *t);                          /* borrowed */
/* share_memory_(): s's bytes move, in place, to a MAP_SHARED mapping that processes forked
 * afterwards share (in-place updates in either are seen by both); no-op when already shared.
 * A shared storage cannot be resized. */
int tensor_storage_share_memory(TensorStorage *s) TENSOR_MUST_CHECK;
bool tensor_storage_is_shared(const TensorStorage *s);
/* bytes [start, start + nbytes) of s as a storage sharing s's memory (keeps s alive) */
TensorStorage *tensor_storage_slice(TensorStorage *s, size_t start, size_t nbytes);
/* t.set_(s, offset, shape, strides): t (not a view) now views s with that geometry in its own
 * dtype; strides NULL = contiguous.  A geometry reaching past s's bytes is refused (PyTorch
 * would grow the storage).  An in-place op: bumps t's version. */
int tensor_set_storage(Tensor *t, TensorStorage *s, int64_t offset, int ndim, const int64_t *shape,
                       const int64_t *strides) TENSOR_MUST_CHECK;
/* t.resize_(shape) as ATen's resize_ (resize_output's step for an out= of another shape): strides
 * NULL = contiguous; keeps t's storage offset; a storage too small is replaced by a bigger one
 * holding the old bytes.  Does not bump the version (the write that follows does). */
int tensor_resize_(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides) TENSOR_MUST_CHECK;
void tensor_bump_version(Tensor *t);             /* torch.autograd.graph.increment_version */
const char *tensor_type_string(const Tensor *t); /* "torch.FloatTensor" */

/* ---- creation ---------------------------------------------------------------------------------- */

Tensor *tensor_empty(TensorDtype dt, int ndim, const int64_t *shape);
Tensor *tensor_empty_strided(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides);
/* A tensor of this geometry (strides NULL = contiguous) over a storage of its own that holds no
 * data, as on PyTorch's meta device: the tracer's fake tensors.  Ops in meta mode take it and
 * views alias it as usual; reading its elements fails ("... cannot be called on meta
 * tensors"), and tensor_data_ptr is not valid on it (tensor_has_data). */
Tensor *tensor_empty_meta(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides);
Tensor *tensor_zeros(TensorDtype dt, int ndim, const int64_t *shape);
Tensor *tensor_ones(TensorDtype dt, int ndim, const int64_t *shape);
Tensor *tensor_full(TensorDtype dt, int ndim, const int64_t *shape, TensorScalar value);
/* Copies numel(shape) elements of dtype dt from data (C order). */
Tensor *tensor_from_data(TensorDtype dt, int ndim, const int64_t *shape, const void *data);
Tensor *tensor_from_f32(int ndim, const int64_t *shape, const float *data);
Tensor *tensor_from_i64(int ndim, const int64_t *shape, const int64_t *data);
Tensor *tensor_scalar_tensor(TensorScalar s, TensorDtype dt);  /* 0-dim; dt DEFAULT: from s.kind */
/* Wraps foreign memory; `release(ctx)` runs when the storage dies. */
Tensor *tensor_from_blob(TensorDtype dt, int ndim, const int64_t *shape, const int64_t *strides,
                         void *data, void (*release)(void *ctx), void *ctx);
Tensor *tensor_arange(TensorScalar start, TensorScalar end, TensorScalar step, TensorDtype dt);
Tensor *tensor_arange_f(double start, double end, double step);
Tensor *tensor_linspace(double start, double end, int64_t steps, TensorDtype dt);
Tensor *tensor_eye(int64_t n, int64_t m, TensorDtype dt);
Tensor *tensor_zeros_like(const Tensor *t);
Tensor *tensor_ones_like(const Tensor *t);
Tensor *tensor_full_like(const Tensor *t, TensorScalar value);
Tensor *tensor_empty_like(const Tensor *t);      /* contiguous, same shape and dtype */

/* PyTorch's CPU generator (mt19937, src/tensor/generator.c) and the random kernels on it
 * (src/tensor/random.c): a seeded stream gives PyTorch's numbers.  g NULL = the default
 * generator (torch.default_generator). */
typedef struct TensorGenerator TensorGenerator;
#define TENSOR_GENERATOR_STATE_SIZE 5056          /* sizeof(CPUGeneratorImplState) */
#define TENSOR_GENERATOR_LEGACY_STATE_SIZE 5048   /* sizeof(THGeneratorState) */
TensorGenerator *tensor_generator_new(void);      /* seeded with c10's default seed */
void tensor_generator_free(TensorGenerator *g);
TensorGenerator *tensor_default_generator(void);
void tensor_generator_copy(TensorGenerator *dst, const TensorGenerator *src);
void tensor_generator_manual_seed(TensorGenerator *g, uint64_t seed);
uint64_t tensor_generator_seed(TensorGenerator *g);   /* a nondeterministic seed, returned */
uint64_t tensor_generator_initial_seed(const TensorGenerator *g);
void tensor_generator_get_state(const TensorGenerator *g, uint8_t *out /* STATE_SIZE bytes */);
int tensor_generator_set_state(TensorGenerator *g, const uint8_t *in, int64_t n) TENSOR_MUST_CHECK;
void tensor_manual_seed(uint64_t seed);
uint64_t tensor_initial_seed(void);
Tensor *tensor_rand_gen(TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g);
Tensor *tensor_randn_gen(TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g);
Tensor *tensor_randint_gen(int64_t low, int64_t high, TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g);
Tensor *tensor_randperm(int64_t n, TensorDtype dt, TensorGenerator *g);
Tensor *tensor_bernoulli_gen(const Tensor *probs, TensorGenerator *g);
Tensor *tensor_multinomial(const Tensor *probs, int64_t n_sample, bool replacement, TensorGenerator *g);
int tensor_normal_gen_(Tensor *t, double mean, double std, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_uniform_gen_(Tensor *t, double from, double to, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_exponential_(Tensor *t, double lambd, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_cauchy_(Tensor *t, double median, double sigma, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_log_normal_(Tensor *t, double mean, double std, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_geometric_(Tensor *t, double p, TensorGenerator *g) TENSOR_MUST_CHECK;
Tensor *tensor_poisson(const Tensor *rates, TensorGenerator *g);   /* a sample per rate (float dtypes) */
int tensor_random_(Tensor *t, int64_t from, int64_t to, bool has_to, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_bernoulli_scalar_(Tensor *t, double p, TensorGenerator *g) TENSOR_MUST_CHECK;
int tensor_bernoulli_tensor_(Tensor *t, const Tensor *p, TensorGenerator *g) TENSOR_MUST_CHECK;
/* the same on the default generator */
static inline Tensor *tensor_rand(TensorDtype dt, int ndim, const int64_t *shape) { return tensor_rand_gen(dt, ndim, shape, NULL); }
static inline Tensor *tensor_randn(TensorDtype dt, int ndim, const int64_t *shape) { return tensor_randn_gen(dt, ndim, shape, NULL); }
static inline Tensor *tensor_randint(int64_t low, int64_t high, int ndim, const int64_t *shape) {
    return tensor_randint_gen(low, high, TENSOR_INT64, ndim, shape, NULL);
}
static inline Tensor *tensor_bernoulli(const Tensor *probs) { return tensor_bernoulli_gen(probs, NULL); }
static inline TENSOR_MUST_CHECK int tensor_normal_(Tensor *t, double mean, double std) { return tensor_normal_gen_(t, mean, std, NULL); }
static inline TENSOR_MUST_CHECK int tensor_uniform_(Tensor *t, double from, double to) { return tensor_uniform_gen_(t, from, to, NULL); }

/* ---- element access ------------------------------------------------------------------------- */

/* .item(): one-element tensors only ("only one element tensors can be converted to Python
 * scalars" otherwise). */
int tensor_item(const Tensor *t, TensorScalar *out) TENSOR_MUST_CHECK;
double tensor_get_f64(const Tensor *t, const int64_t *index);   /* no checks */
int64_t tensor_get_i64(const Tensor *t, const int64_t *index);
/* Copies all elements in C order, converted to dt, into out (numel elements). */
int tensor_copy_to_buffer(const Tensor *t, TensorDtype dt, void *out) TENSOR_MUST_CHECK;

/* ---- views and movement --------------------------------------------------------------------- */

Tensor *tensor_view(Tensor *t, const int64_t *shape, int ndim);
Tensor *tensor_reshape(Tensor *t, const int64_t *shape, int ndim);
Tensor *tensor_as_strided(Tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset);
Tensor *tensor_transpose(Tensor *t, int64_t d0, int64_t d1);
Tensor *tensor_t(Tensor *t);
Tensor *tensor_permute(Tensor *t, const int64_t *dims, int ndim);
Tensor *tensor_expand(Tensor *t, const int64_t *shape, int ndim);
Tensor *tensor_slice(Tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor *tensor_select(Tensor *t, int64_t dim, int64_t index);
Tensor *tensor_narrow(Tensor *t, int64_t dim, int64_t start, int64_t length);
Tensor *tensor_unsqueeze(Tensor *t, int64_t dim);
Tensor *tensor_squeeze(Tensor *t);
Tensor *tensor_squeeze_dim(Tensor *t, int64_t dim);
Tensor *tensor_flatten(Tensor *t, int64_t start_dim, int64_t end_dim);
Tensor *tensor_contiguous(Tensor *t);            /* t itself (new ref) if already contiguous */
Tensor *tensor_clone(const Tensor *t);           /* contiguous copy */
Tensor *tensor_to_dtype(Tensor *t, TensorDtype dt);  /* t itself if same dtype */
Tensor *tensor_detach(Tensor *t);                /* alias sharing the version counter */
Tensor *tensor_alias(Tensor *t);                 /* alias with a fresh version counter (.data) */
/* t.data = src: t takes src's storage, dtype and geometry, keeping its identity and autograd state */
int tensor_set_data(Tensor *t, const Tensor *src) TENSOR_MUST_CHECK;
/* split/chunk/unbind write up to max_out new references; return the count or -1. */
int tensor_split(Tensor *t, int64_t split_size, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
int tensor_split_with_sizes(Tensor *t, const int64_t *sizes, int n, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
int tensor_chunk(Tensor *t, int64_t chunks, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
int tensor_unbind(Tensor *t, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
Tensor *tensor_cat(Tensor *const *ts, int n, int64_t dim);
Tensor *tensor_stack(Tensor *const *ts, int n, int64_t dim);

/* ---- pointwise ---------------------------------------------------------------------------------- */

Tensor *tensor_add(const Tensor *a, const Tensor *b);
Tensor *tensor_add_alpha(const Tensor *a, const Tensor *b, TensorScalar alpha);
Tensor *tensor_sub(const Tensor *a, const Tensor *b);
Tensor *tensor_mul(const Tensor *a, const Tensor *b);
Tensor *tensor_div(const Tensor *a, const Tensor *b);
Tensor *tensor_pow(const Tensor *a, const Tensor *b);
Tensor *tensor_maximum(const Tensor *a, const Tensor *b);
Tensor *tensor_minimum(const Tensor *a, const Tensor *b);
Tensor *tensor_remainder(const Tensor *a, const Tensor *b);
Tensor *tensor_floor_divide(const Tensor *a, const Tensor *b);
Tensor *tensor_add_scalar(const Tensor *a, TensorScalar s);
Tensor *tensor_sub_scalar(const Tensor *a, TensorScalar s);
Tensor *tensor_mul_scalar(const Tensor *a, TensorScalar s);
Tensor *tensor_div_scalar(const Tensor *a, TensorScalar s);
Tensor *tensor_pow_scalar(const Tensor *a, TensorScalar s);
Tensor *tensor_rsub_scalar(const Tensor *a, TensorScalar s);   /* s - a */
Tensor *tensor_rpow_scalar(const Tensor *a, TensorScalar s);   /* s ** a */
Tensor *tensor_eq(const Tensor *a, const Tensor *b);
Tensor *tensor_ne(const Tensor *a, const Tensor *b);
Tensor *tensor_lt(const Tensor *a, const Tensor *b);
Tensor *tensor_le(const Tensor *a, const Tensor *b);
Tensor *tensor_gt(const Tensor *a, const Tensor *b);
Tensor *tensor_ge(const Tensor *a, const Tensor *b);
Tensor *tensor_cmp_scalar(TensorOp op, const Tensor *a, TensorScalar s);   /* EQ_SCALAR ... GE_SCALAR */
Tensor *tensor_logical_and(const Tensor *a, const Tensor *b);
Tensor *tensor_logical_or(const Tensor *a, const Tensor *b);
Tensor *tensor_logical_xor(const Tensor *a, const Tensor *b);
Tensor *tensor_logical_not(const Tensor *a);
Tensor *tensor_where(const Tensor *cond, const Tensor *a, const Tensor *b);
Tensor *tensor_unary(TensorOp op, const Tensor *a);   /* NEG ... ROUND, no args */
Tensor *tensor_neg(const Tensor *a);
Tensor *tensor_abs(const Tensor *a);
Tensor *tensor_exp(const Tensor *a);
Tensor *tensor_log(const Tensor *a);
Tensor *tensor_sqrt(const Tensor *a);
Tensor *tensor_rsqrt(const Tensor *a);
Tensor *tensor_tanh(const Tensor *a);
Tensor *tensor_sigmoid(const Tensor *a);
Tensor *tensor_relu(const Tensor *a);
Tensor *tensor_gelu(const Tensor *a, bool tanh_approximation);
/* the form (TENSOR_GELU_*) PyTorch 1.13 uses for gelu of a */
uint8_t tensor_gelu_form(const Tensor *a, bool tanh_approximation);
Tensor *tensor_silu(const Tensor *a);
Tensor *tensor_leaky_relu(const Tensor *a, double negative_slope);
Tensor *tensor_sin(const Tensor *a);
Tensor *tensor_cos(const Tensor *a);
Tensor *tensor_erf(const Tensor *a);
Tensor *tensor_floor(const Tensor *a);
Tensor *tensor_ceil(const Tensor *a);
Tensor *tensor_round(const Tensor *a);   /* half to even */
Tensor *tensor_sign(const Tensor *a);
Tensor *tensor_reciprocal(const Tensor *a);
Tensor *tensor_clamp(const Tensor *a, const TensorScalar *min, const TensorScalar *max);  /* NULL = none */

/* In place (bump the version counter; call the mutation observer first). Return 0 or -1. */
int tensor_add_(Tensor *a, const Tensor *b, TensorScalar alpha) TENSOR_MUST_CHECK;
int tensor_sub_(Tensor *a, const Tensor *b, TensorScalar alpha) TENSOR_MUST_CHECK;
int tensor_mul_(Tensor *a, const Tensor *b) TENSOR_MUST_CHECK;
int tensor_div_(Tensor *a, const Tensor *b) TENSOR_MUST_CHECK;
int tensor_add_scalar_(Tensor *a, TensorScalar s, TensorScalar alpha) TENSOR_MUST_CHECK;
int tensor_mul_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int tensor_div_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int tensor_zero_(Tensor *a) TENSOR_MUST_CHECK;
int tensor_fill_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int tensor_copy_(Tensor *dst, const Tensor *src) TENSOR_MUST_CHECK;  /* broadcasts src, converts dtype */
int tensor_clamp_(Tensor *a, const TensorScalar *min, const TensorScalar *max) TENSOR_MUST_CHECK;
int tensor_relu_(Tensor *a) TENSOR_MUST_CHECK;
int tensor_masked_fill_(Tensor *a, const Tensor *mask, TensorScalar value) TENSOR_MUST_CHECK;

/* ---- reductions ------------------------------------------------------------------------------- */

Tensor *tensor_sum(const Tensor *a);
Tensor *tensor_sum_dims(const Tensor *a, const int64_t *dims, int n, bool keepdim);
Tensor *tensor_mean(const Tensor *a);
Tensor *tensor_mean_dims(const Tensor *a, const int64_t *dims, int n, bool keepdim);
Tensor *tensor_prod(const Tensor *a);
Tensor *tensor_max(const Tensor *a);
Tensor *tensor_min(const Tensor *a);
int tensor_max_dim(const Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) TENSOR_MUST_CHECK;
int tensor_min_dim(const Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) TENSOR_MUST_CHECK;
Tensor *tensor_argmax(const Tensor *a, const int64_t *dim /* NULL: flattened */, bool keepdim);
Tensor *tensor_argmin(const Tensor *a, const int64_t *dim, bool keepdim);
Tensor *tensor_var(const Tensor *a, const int64_t *dims, int n, int correction, bool keepdim);
Tensor *tensor_std(const Tensor *a, const int64_t *dims, int n, int correction, bool keepdim);
Tensor *tensor_logsumexp(const Tensor *a, const int64_t *dims, int n, bool keepdim);
Tensor *tensor_prod_dim(const Tensor *a, int64_t dim, bool keepdim);
Tensor *tensor_all(const Tensor *a, const int64_t *dim /* NULL: all elements */, bool keepdim);
Tensor *tensor_any(const Tensor *a, const int64_t *dim, bool keepdim);
bool tensor_equal(const Tensor *a, const Tensor *b);  /* same shape and values */
/* torch.allclose: |a-b| <= atol + rtol*|b| elementwise (broadcasting); -1 on error */
int tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan) TENSOR_MUST_CHECK;

/* ---- linear algebra, nn, indexing ----------------------------------------------------------- */

/* torch.set_num_threads / get_num_threads: the threads of the intra-op pool (src/tensor/parallel.h:
 * large pointwise kernels, reductions, fused loops, matrix products in blocks); n >= 1.  Results
 * never depend on it.
 * The default is PyTorch's: OMP_NUM_THREADS, else MKL_NUM_THREADS, else half the online CPUs on x86-64 (1.13). */
void tensor_set_num_threads(int n);
int tensor_get_num_threads(void);
/* torch.set_num_interop_threads / get_num_interop_threads: kept and reported (Ember runs no
 * inter-op tasks on other threads); setting it a second time fails (-1), as in PyTorch. */
int tensor_set_num_interop_threads(int n);
int tensor_get_num_interop_threads(void);
Tensor *tensor_mm(const Tensor *a, const Tensor *b);
Tensor *tensor_bmm(const Tensor *a, const Tensor *b);
Tensor *tensor_mv(const Tensor *a, const Tensor *v);
Tensor *tensor_dot(const Tensor *a, const Tensor *b);
Tensor *tensor_addmm(const Tensor *bias, const Tensor *a, const Tensor *b, TensorScalar beta, TensorScalar alpha);
Tensor *tensor_matmul(Tensor *a, Tensor *b);
Tensor *tensor_linear(Tensor *input, Tensor *weight, Tensor *bias /* may be NULL */);
Tensor *tensor_softmax(const Tensor *a, int64_t dim);
Tensor *tensor_log_softmax(const Tensor *a, int64_t dim);
Tensor *tensor_layer_norm(const Tensor *x, const int64_t *normalized_shape, int n, const Tensor *weight,
                          const Tensor *bias, double eps);
Tensor *tensor_embedding(const Tensor *weight, const Tensor *indices, int64_t padding_idx);
Tensor *tensor_dropout(const Tensor *a, double p, bool train);
Tensor *tensor_nll_loss(const Tensor *logp, const Tensor *target, const Tensor *weight,
                        TensorReduction reduction, int64_t ignore_index);
Tensor *tensor_cross_entropy(const Tensor *logits, const Tensor *target, const Tensor *weight,
                             TensorReduction reduction, int64_t ignore_index);
Tensor *tensor_mse_loss(const Tensor *a, const Tensor *b, TensorReduction reduction);
Tensor *tensor_gather(const Tensor *a, int64_t dim, const Tensor *index);
Tensor *tensor_scatter_add(const Tensor *a, int64_t dim, const Tensor *index, const Tensor *src);
Tensor *tensor_index_select(const Tensor *a, int64_t dim, const Tensor *index);
Tensor *tensor_index_add(const Tensor *a, int64_t dim, const Tensor *index, const Tensor *src, TensorScalar alpha);
/* a[..., idx0, idx1, ...] with the index tensors applied from `dim` on (int64: broadcast
 * together; one bool tensor: mask over mask.ndim dims). */
Tensor *tensor_index(const Tensor *a, int64_t dim, Tensor *const *indices, int n);
Tensor *tensor_index_put(const Tensor *a, int64_t dim, Tensor *const *indices, int n, const Tensor *values, bool accumulate);
int tensor_index_put_(Tensor *a, int64_t dim, Tensor *const *indices, int n, const Tensor *values, bool accumulate) TENSOR_MUST_CHECK;
Tensor *tensor_masked_fill(const Tensor *a, const Tensor *mask, TensorScalar value);
Tensor *tensor_masked_select(const Tensor *a, const Tensor *mask);
Tensor *tensor_masked_scatter(const Tensor *a, const Tensor *mask, const Tensor *source);

/* ---- printing -------------------------------------------------------------------------------- */

/* PyTorch's repr body (torch/_tensor_str.py `_tensor_str`) for `indent` columns of prefix:
 * precision 4, int mode, sci mode, 80-column wrapping, summarisation above 1000 elements.
 * Returns a malloc'd string; NULL with the tensor error set when out of memory. */
/* Printing options (torch.set_printoptions): digits after the point, element count above which
 * a tensor is summarised (may be INFINITY), items kept at each edge when summarised, line width,
 * scientific notation forced on (1) / off (0) / chosen per tensor (-1). */
typedef struct TensorPrintOptions {
    int precision;
    double threshold;
    int edgeitems;
    int linewidth;
    int sci_mode;
} TensorPrintOptions;
void tensor_set_print_options(const TensorPrintOptions *o);
void tensor_get_print_options(TensorPrintOptions *o);
char *tensor_format(const Tensor *t, int indent);
/* Full repr: "tensor(<body>[, size=(...)][, dtype=...][, <extra suffixes>...])" wrapped like
 * `_add_suffixes`. extra: e.g. "grad_fn=<MulBackward0>" or "requires_grad=True". malloc'd. */
char *tensor_repr(const Tensor *t, const char *const *extra_suffixes, int n_extra);
void tensor_print(FILE *f, const Tensor *t);      /* repr + newline, for debugging */

#ifdef __cplusplus
}
#endif
#endif
