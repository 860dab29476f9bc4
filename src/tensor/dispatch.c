/* dispatch.c — the op table made executable: per-op info expanded from ops.def, and the kernel
 * and shape-inference tables, built from its KERNEL column (generated elementwise kernels, or the
 * functions a K / KC / UF / BF / T3 entry names: kernels.h declares them, so a missing one fails
 * the build).  tensor_op_run / tensor_op_infer check arity and index the table; meta mode and
 * the op observer (the tracer's fake tensors) hook in here.  Also the kernels of the creation,
 * reduction and in-place ops. */
#include <math.h>
#include <stdio.h>

#include "src/tensor/composite.h"
#include "src/tensor/iter.h"
#include "src/tensor/kernels.h"
#include "src/tensor/linalg.h"
#include "src/tensor/nn.h"
#include "src/tensor/pointwise.h"
#include "src/tensor/reduce.h"
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
#define LAYOUT_OF_INPUT OPF(LAYOUT_OF_INPUT)
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
#undef LAYOUT_OF_INPUT
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

/* ---- elementwise kernels (the table's KERNEL column: pointwise.c) -------------------------------- */

/* o: a new output of shape (nd, shape) laid out as TensorIterator lays out an elementwise op over
 * the n inputs in (iter.h) */
static void meta_laid_out(TensorMeta *o, TensorDtype dt, int n, const TensorMeta *const *in, int nd, const int64_t *shape) {
    TensorGeom g[TENSOR_ITER_MAXOPS];
    int m = 0;
    for (int k = 0; k < n && m < TENSOR_ITER_MAXOPS; k++)
        if (in[k]) g[m++] = (TensorGeom){in[k]->ndim, in[k]->shape, in[k]->strides};
    tensor__meta_contiguous(o, dt, nd, shape);
    tensor__iter_out_strides(m, g, nd, shape, o->strides);
}

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
    meta_laid_out(o, rt, n_in, in, nd, s);
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

/* clone and to(dtype) lay the copy out in args.memory_format (Python's default: preserve, so a
 * transposed tensor's clone is transposed too; internal copies: contiguous) */
static int meta_laid_out_as(TensorMeta *o, TensorDtype dt, const TensorMeta *x, TensorMemoryFormat mf) {
    tensor__meta_contiguous(o, dt, x->ndim, x->shape);
    return tensor_memory_format_strides(mf, x->ndim, x->shape, x->strides, o->strides);
}

/* a copy of x in dtype dt laid out as meta_laid_out_as says */
static Tensor *copy_laid_out_as(const Tensor *x, TensorDtype dt, TensorMemoryFormat mf) {
    int64_t strides[TENSOR_MAX_DIMS];
    if (tensor_memory_format_strides(mf, x->ndim, x->shape, x->strides, strides) < 0) return NULL;
    if (tensor__strides_are_contiguous(x->ndim, x->shape, strides))
        return dt == (TensorDtype)x->dtype ? tensor_clone(x) : tensor_to_dtype((Tensor *)x, dt);
    Tensor *r = tensor_empty_strided(dt, x->ndim, x->shape, strides);
    if (r && tensor__copy_into(r, x) < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

int tensor__infer_clone(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)max;
    return meta_laid_out_as(o, in[0]->dtype, in[0], a->memory_format) < 0 ? -1 : 1;
}

int tensor__run_clone(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)n_out;
    Tensor *r = copy_laid_out_as(in[0], (TensorDtype)in[0]->dtype, a->memory_format);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

int tensor__infer_to_dtype(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)op;
    (void)n_in;
    (void)max;
    const TensorMeta *x = in[0];
    TensorDtype dt = a->dtype == TENSOR_DTYPE_DEFAULT ? x->dtype : a->dtype;
    if (tensor__to_aliases(dt, x->dtype, x->ndim, x->shape, x->strides, (TensorMemoryFormat)a->memory_format,
                           a->force_copy)) {
        *o = *x;
        return 1;
    }
    return meta_laid_out_as(o, dt, x, a->memory_format) < 0 ? -1 : 1;
}

int tensor__run_to_dtype(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)n_out;
    const Tensor *x = in[0];
    TensorDtype dt = a->dtype == TENSOR_DTYPE_DEFAULT ? (TensorDtype)x->dtype : a->dtype;
    bool alias = tensor__to_aliases(dt, x->dtype, x->ndim, x->shape, x->strides, (TensorMemoryFormat)a->memory_format,
                                    a->force_copy);
    Tensor *r = alias ? tensor_to_dtype(in[0], dt) : copy_laid_out_as(x, dt, a->memory_format);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- where -------------------------------------------------------------------------------------- */

int tensor__infer_where(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *o, int max) {
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
    meta_laid_out(o, tensor__promo_result(&p), 3, in, n2, s2);
    return 1;
}

int tensor__run_where(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)op;
    (void)n_in;
    (void)a;
    (void)n_out;
    Tensor *r = tensor__where(in[0], in[1], in[2]);
    if (!r) return -1;
    out[0] = r;
    return 1;
}

/* ---- the implementation table --------------------------------------------------------------------- */

/* Elementwise kernels of the table (U, B and their scalar and in-place forms) run through
 * run_pointwise; every other op names its kernel functions in its KERNEL column (K, KC, UF, BF,
 * T3: declared by kernels.h, defined in the op's own file). */

#define U(...) PW_TUPLE_U(__VA_ARGS__)
#define B(...) PW_TUPLE_B(__VA_ARGS__)
#define UF(...) PW_TUPLE_UF(__VA_ARGS__)
#define BF(...) PW_TUPLE_BF(__VA_ARGS__)
#define T3(...) PW_TUPLE_T3(__VA_ARGS__)
#define SC(...) PW_TUPLE_SC(__VA_ARGS__)
#define RSC(...) PW_TUPLE_RSC(__VA_ARGS__)
#define IP(...) PW_TUPLE_IP(__VA_ARGS__)
#define K(...) PW_TUPLE_K(__VA_ARGS__)
#define KC(...) PW_TUPLE_KC(__VA_ARGS__)
#define IMPL_GENERATED(NAME, ...) {run_pointwise, infer_pointwise, NULL},
#define PW_GEN_U IMPL_GENERATED
#define PW_GEN_B IMPL_GENERATED
#define PW_GEN_SC IMPL_GENERATED
#define PW_GEN_RSC IMPL_GENERATED
#define PW_GEN_IP IMPL_GENERATED
#define PW_GEN_UF(NAME, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG, RUN, INFER) {tensor__run_##RUN, tensor__infer_##INFER, NULL},
#define PW_GEN_BF PW_GEN_UF
#define PW_GEN_T3(NAME, EF, RUN, INFER) {tensor__run_##RUN, tensor__infer_##INFER, NULL},
#define PW_GEN_K(NAME, RUN, INFER) {tensor__run_##RUN, tensor__infer_##INFER, NULL},
#define PW_GEN_KC(NAME, COMP, INFER) {run_comp, tensor__infer_##INFER, tensor__comp_##COMP},

/* A composite run eagerly: its decomposition over tensor_op_run. */
static int run_comp(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);

static const struct {
    TensorRunFn run;
    TensorInferFn infer;
    TensorCompFn comp;
} impl[] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof impl / sizeof impl[0] == TENSOR_OP_COUNT, "one kernel entry per op in ops.def");

#undef U
#undef B
#undef UF
#undef BF
#undef T3
#undef SC
#undef RSC
#undef IP
#undef K
#undef KC
#undef IMPL_GENERATED
#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_UF
#undef PW_GEN_BF
#undef PW_GEN_T3
#undef PW_GEN_K
#undef PW_GEN_KC

TensorCompFn tensor__comp_fn(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT ? impl[op].comp : NULL; }

void tensor__kernel_entry(TensorOp op, TensorRunFn *run, TensorInferFn *infer, TensorCompFn *comp) {
    bool ok = (unsigned)op < TENSOR_OP_COUNT;
    *run = ok ? impl[op].run : NULL;
    *infer = ok ? impl[op].infer : NULL;
    *comp = ok ? impl[op].comp : NULL;
}

int tensor__run_composite(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                          int n_out) {
    TensorCompFn f = tensor__comp_fn(op);
    if (!f) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not a composite op", tensor_op_name(op));
        return -1;
    }
    return f(op, run, in, n_in, a, out, n_out);
}

static int run_comp(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    return impl[op].comp(op, tensor_op_run, in, n_in, a, out, n_out);
}

/* ---- entry points ------------------------------------------------------------------------------------ */

/* the arguments of a call that gives none (static: building TensorOpArgs on every call costs a small
 * op more than its checks) */
static const TensorOpArgs default_args = TENSOR_OP_ARGS_INIT;

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
static TensorProfiler profiler;
static void *profiler_ctx;

static void update_hooked(void) { tensor__op_hooked = meta_mode || op_observer || profiler; }

bool tensor_set_meta_mode(bool on) {
    bool prev = meta_mode;
    meta_mode = on;
    update_hooked();
    return prev;
}
bool tensor_meta_mode(void) { return meta_mode; }

void tensor_set_op_observer(TensorOpObserver fn, void *ctx) {
    op_observer = fn;
    op_observer_ctx = ctx;
    op_observer_depth = op_depth;
    update_hooked();
}

void tensor_set_profiler(TensorProfiler fn, void *ctx) {
    profiler = fn;
    profiler_ctx = ctx;
    update_hooked();
}
bool tensor_profiling(void) { return profiler != NULL; }

void tensor_profile_op(TensorOp op, Tensor *const *in, int n_in, bool begin) {
    if (profiler && !meta_mode) profiler(profiler_ctx, (int)op, "", op_info[op].name, in, n_in, begin);
}

void tensor_profile_range(const char *prefix, const char *name, bool begin) {
    if (profiler && !meta_mode) profiler(profiler_ctx, -1, prefix, name, NULL, 0, begin);
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
    tensor__set_geometry(t, m->ndim, m->shape, m->strides);
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

/* TENSOR_OPF_LAYOUT_OF_INPUT ops (sort, flip): ATen allocates their outputs as empty_like(input)
 * (preserve_format: a transposed input gives transposed results) while their kernels here write
 * row-major ones.  The outputs' metadata says so (one rule for eager, meta mode and the graph's
 * node metadata), and an eager result is copied into that layout when it differs, which only a
 * non-contiguous input costs. */
static void layout_of_input_meta(TensorOp op, const TensorMeta *x, TensorMeta *outs, int n) {
    if (!(op_info[op].flags & TENSOR_OPF_LAYOUT_OF_INPUT) || !x) return;
    for (int i = 0; i < n; i++)
        if (outs[i].ndim == x->ndim && memcmp(outs[i].shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) == 0 &&
            tensor_memory_format_strides(TENSOR_MF_PRESERVE, x->ndim, x->shape, x->strides, outs[i].strides) < 0)
            tensor_error_clear();   /* preserve never fails */
}

static int layout_of_input_run(const Tensor *x, Tensor **out, int n) {
    int64_t strides[TENSOR_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        Tensor *r = out[i];
        if (r->ndim != x->ndim || memcmp(r->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0) continue;
        if (tensor_memory_format_strides(TENSOR_MF_PRESERVE, x->ndim, x->shape, x->strides, strides) < 0) return -1;
        if (memcmp(strides, r->strides, sizeof(int64_t) * (size_t)r->ndim) == 0) continue;
        Tensor *laid = tensor_empty_strided((TensorDtype)r->dtype, r->ndim, r->shape, strides);
        if (!laid || tensor__copy_into(laid, r) < 0) {
            if (laid) tensor_decref(laid);
            return -1;
        }
        tensor_decref(r);
        out[i] = laid;
    }
    return 0;
}

/* Ops whose kernel touches no element, whatever the mode: views (and the composites, whose
 * inner ops are dispatched one by one), detach, and a to() that returns its input. */
static bool reads_no_data(TensorOp op, Tensor *const *in, const TensorOpArgs *args) {
    unsigned flags = op_info[op].flags;
    return (flags & (TENSOR_OPF_VIEW | TENSOR_OPF_COMPOSITE)) || op == TENSOR_OP_DETACH ||
           (op == TENSOR_OP_TO_DTYPE && tensor_to_aliases(in[0], args->dtype, (TensorMemoryFormat)args->memory_format,
                                                          args->force_copy));
}

/* Meta mode: views and ops whose result may be an input itself run (they touch no data);
 * in-place ops return their input; every other op gets outputs made from its inferred
 * metadata, each over a storage of its own without data (tensor_empty_meta: distinct, so that
 * the tracer can tell an alias of one from another fake) or, recording storageless, over the
 * one shared zero-byte storage; no kernel runs, so random ops consume no random numbers. */
static int run_meta(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor **out, int n_out) {
    unsigned flags = op_info[op].flags;
    if (reads_no_data(op, in, args)) return impl[op].run(op, in, n_in, args, out, n_out);
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
    layout_of_input_meta(op, ptrs[0], outs, n);
    for (int i = 0; i < n; i++) {
        /* elementwise outputs keep their inferred layout (TensorIterator's: iter.h), and so do
         * the factories (*_like's memory_format); the other ops' infer functions give contiguous
         * strides */
        if (!(flags & (TENSOR_OPF_POINTWISE | TENSOR_OPF_CREATION | TENSOR_OPF_LAYOUT_OF_INPUT)))
            tensor__compute_contiguous_strides(outs[i].ndim, outs[i].shape, outs[i].strides);
        out[i] = meta_storageless ? storageless(&outs[i]) : tensor_empty_meta(outs[i].dtype, outs[i].ndim, outs[i].shape, outs[i].strides);
        if (!out[i]) {
            for (int j = 0; j < i; j++) tensor_decref(out[j]);
            return -1;
        }
        if (outs[i].wrapped_number) tensor_set_wrapped_number(out[i], true);
    }
    return n;
}

/* Outside meta mode every op runs its kernel: one whose kernel reads data refuses an input
 * without any (a tracer fake that reached an eager op) here, once for every op, instead of each
 * kernel dereferencing the missing data. */
static int run_kernel(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor **out, int n_out) {
    for (int i = 0; i < n_in; i++)
        if (in[i] && in[i]->storage->meta && !reads_no_data(op, in, args)) return tensor__meta_data_error(op_info[op].name);
    int n = impl[op].run(op, in, n_in, args, out, n_out);
    if (n > 0 && (op_info[op].flags & TENSOR_OPF_LAYOUT_OF_INPUT) && !tensor__contig(in[0]) && layout_of_input_run(in[0], out, n) < 0) {
        for (int i = 0; i < n; i++) tensor_decref(out[i]);
        return -1;
    }
    return n;
}

int tensor_op_run(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor **out, int n_out) {
    if (check_arity(op, n_in, (const void *const *)in) < 0) return -1;
    if (!args) args = &default_args;
    if (op_info[op].n_out > n_out) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s() produces %d outputs but room for %d was given", op_info[op].name,
                         op_info[op].n_out, n_out);
        return -1;
    }
    if (__builtin_expect(!tensor__op_hooked, 1)) return run_kernel(op, in, n_in, args, out, n_out);
    tensor_profile_op(op, in, n_in, true);
    tensor_op_enter();
    int n = meta_mode ? run_meta(op, in, n_in, args, out, n_out) : run_kernel(op, in, n_in, args, out, n_out);
    tensor_op_leave(op, in, n_in, args, out, n);
    tensor_profile_op(op, in, n_in, false);
    return n;
}

int tensor_op_infer(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *args, TensorMeta *out, int max_out) {
    if (check_arity(op, n_in, (const void *const *)in) < 0) return -1;
    if (!args) args = &default_args;
    if (op_info[op].n_out > max_out) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s() produces %d outputs but room for %d was given", op_info[op].name,
                         op_info[op].n_out, max_out);
        return -1;
    }
    int n = impl[op].infer(op, in, n_in, args, out, max_out);
    if (n > 0) layout_of_input_meta(op, in[0], out, n);
    return n;
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
    if (!args) args = &default_args;
    /* the op's own inference counts them (split, chunk, unbind: at most one output per element of
     * the cut dim, or one per given size) */
    if (n_inputs > 16) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s(): more than 16 inputs", op_info[op].name);
        return -1;
    }
    TensorMeta metas[16];
    const TensorMeta *pm[16];
    int64_t cap = args->n_ints > 1 ? args->n_ints : 1;
    for (int i = 0; i < n_inputs; i++) {
        pm[i] = inputs[i] ? &metas[i] : NULL;
        if (inputs[i]) tensor_meta_of(inputs[i], &metas[i]);
    }
    for (int k = 0; k < inputs[0]->ndim; k++)
        if (inputs[0]->shape[k] > cap) cap = inputs[0]->shape[k];
    if (cap > INT32_MAX) cap = INT32_MAX;
    TensorMeta *outs = malloc(sizeof(TensorMeta) * (size_t)cap);
    if (!outs) return tensor__oom();
    int n = impl[op].infer(op, pm, n_inputs, args, outs, (int)cap);
    free(outs);
    return n;
}

/* ---- in-place forms of not-elementwise ops (kernels.h's TENSOR_INPLACE_OF) ------------------------- */

int tensor__infer_into(TensorOp base, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out) {
    TensorMeta r;
    if (tensor_op_infer(base, in, n_in, a, &r, 1) < 0) return -1;
    const TensorMeta *x = in[0];
    if (r.ndim != x->ndim || memcmp(r.shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, x->ndim, x->shape);
        tensor__format_shape(b2, sizeof b2, r.ndim, r.shape);
        tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
        return -1;
    }
    *out = *x;
    out->wrapped_number = false;
    return 1;
}

int tensor__run_into(TensorOp base, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out) {
    TensorMeta m[8];
    const TensorMeta *mp[8];
    if (n_in > 8) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: too many inputs", tensor_op_name(base));
        return -1;
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i]) tensor_meta_of(in[i], &m[i]);
        mp[i] = in[i] ? &m[i] : NULL;
    }
    TensorMeta o;
    if (tensor__infer_into(base, mp, n_in, a, &o) < 0) return -1;
    Tensor *r = NULL;
    if (tensor_op_run(base, in, n_in, a, &r, 1) < 0) return -1;
    int rc = tensor_copy_(in[0], r);
    tensor_decref(r);
    if (rc < 0) return -1;
    tensor_incref(in[0]);
    out[0] = in[0];
    return 1;
}
