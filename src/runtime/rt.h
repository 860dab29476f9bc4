/* src/runtime/rt.h — the runtime's internal model, shared by its files.
 *
 * Model
 * -----
 *   Graph (user) ──decompose.c──► primitive Graph (owned copy; composites expanded)
 *        │                               │
 *        │          diff.c (src/autograd's rules recorded over fakes): backward Graph
 *        │                               │        (tangents, saved values -> gradients of the placeholders)
 *        ▼                               ▼
 *   prog.c: RtProg = instructions over values, built from either graph:
 *     RtVal    one per tensor value (placeholder, op output, getitem); HOOK / GETITEM / views
 *              alias another value's storage (root)
 *     RtInstr  one per op node, except that fuse.c merges pointwise chains into RI_FUSED
 *              instructions (placed at the chain's last member) and GEMM epilogues
 *     RtBuf    storage written by RI_GEMM / RI_FUSED outputs: an arena offset when it dies
 *              inside the run, own storage when a value using it escapes
 *   exec.c runs an RtProg; compiled.c owns plans, training variants and CompiledFunctionBackward;
 *   eager.c interprets a graph with recording ops.
 *
 * Invariant (arena): two buffers whose liveness intervals [start, end] (instruction indices,
 * inclusive) intersect never overlap in the arena; a value that outlives the run (output, saved,
 * passed to a callback) never lives in the arena (rt_prog_check enforces both, tests call it).
 */
#ifndef EMBER_SRC_RUNTIME_RT_H
#define EMBER_SRC_RUNTIME_RT_H

#include <stdio.h>

#include "src/common/check.h"
#include "src/runtime/runtime.h"
#include "src/tensor/tensor.h"


/* ---- decompose.c ------------------------------------------------------------------------------ */

/* A copy of g with composite tensor ops replaced by the primitive ops the tensor library's
 * decomposition runs for the nodes' metadata.  map (optional, g->n_nodes entries indexed by
 * position in g) receives each node's counterpart.  NULL + error on unsupported graphs. */
Graph *rt_decompose(const Graph *g, GraphNode **map);
/* Adds, before every gelu (erf form) of g, the value its derivative recomputes —
 * erf(x * 0.70710678) — so the backward can reuse the forward's instead of recomputing it (and
 * the forward computes it once, for both).  silu gets none: PyTorch's silu is x / (1 + e^-x),
 * which a sigmoid cannot give bit for bit. */
void rt_add_side_values(Graph *g);
/* The value's float constant of gelu's erf argument. */
#define RT_GELU_ERF_K 0.7071067811865476

/* The index of n in g (walks the list; use an RtPtrMap in loops). */
int rt_node_pos(const Graph *g, const GraphNode *n);

/* Open-addressing map from pointers to ints (node -> position / value id). */
typedef struct RtPtrMap {
    const void **keys;
    int32_t *vals;
    size_t cap, len;
} RtPtrMap;
void rt_map_put(RtPtrMap *m, const void *key, int32_t val);
int32_t rt_map_get(const RtPtrMap *m, const void *key);   /* -1 when absent */
void rt_map_fini(RtPtrMap *m);
/* positions of every node of g */
void rt_map_positions(RtPtrMap *m, const Graph *g);

/* ---- runtime-internal ops (exec kind GRAPH_EXEC_CUSTOM_OP with a runtime-owned opaque) ------ */

typedef enum RtInternalKind {
    RT_INT_DYN_HOOK,         /* backward: gradient hooks a marker registered in this run */
} RtInternalKind;

typedef struct RtInternal {
    RtInternalKind kind;
    int32_t marker, index;   /* DYN_HOOK: marker ordinal in the forward, value index */
} RtInternal;

GraphOpaque *rt_internal_new(const RtInternal *in);
/* The descriptor if o is a runtime-internal opaque, else NULL. */
const RtInternal *rt_internal_of(const GraphOpaque *o);

/* ---- programs (prog.c) ------------------------------------------------------------------------- */

typedef enum RtValKind {
    RV_INPUT,       /* bound to a run input */
    RV_BUF,         /* written into a planned buffer */
    RV_EXTERN,      /* allocated by a library kernel or a callback */
    RV_ALIAS,       /* a view / identity of `src` (shares its storage) */
    RV_INTERNAL,    /* lives only in a fused loop's registers */
} RtValKind;

typedef struct RtVal {
    TensorMeta meta;
    const GraphNode *node;   /* producing node (getitem for multi-output ops) */
    int32_t src;             /* RV_ALIAS: the value it views */
    int32_t root;            /* storage root: self unless RV_ALIAS */
    int32_t buf;             /* RV_BUF: buffer */
    int32_t def;             /* defining instruction, -1 for inputs */
    int32_t last;            /* last instruction reading it (values only, not its aliases) */
    uint8_t kind;
    bool escapes;            /* outlives the run or is handed to a callback */
    bool used;
} RtVal;

typedef struct RtBuf {
    size_t bytes;
    int32_t start, end;      /* liveness, instruction indices inclusive (end INT32_MAX: escapes) */
    int64_t offset;          /* arena byte offset; -1: own storage */
    int32_t owner;           /* first value written into it */
    int32_t n_vals;          /* values written into it (> 1: in-place reuse) */
} RtBuf;

typedef enum RtInstrKind {
    RI_NOP,
    RI_OP,           /* tensor_op_run; outputs RV_EXTERN (RV_ALIAS of input 0 for in-place ops) */
    RI_VIEW,         /* view ops: outputs RV_ALIAS */
    RI_GEMM,         /* mm / addmm into a buffer, optional fused epilogue */
    RI_FUSED,        /* a fused pointwise loop */
    RI_HOOK_REG,     /* forward: register a hook on an input tensor */
    RI_HOOK_CALL,    /* backward: grad -> hook(grad) */
    RI_MARKER,
    RI_SCRIPT,       /* script call / custom op through the callbacks */
    RI_INTERNAL,     /* runtime-internal op */
} RtInstrKind;

typedef struct RtFused RtFused;

typedef struct RtInstr {
    uint8_t kind;
    TensorOp op;
    const TensorOpArgs *args;    /* the node's (ints owned by the graph) */
    const GraphNode *node;
    int32_t *in;                 /* value ids; -1 = absent optional input */
    int32_t *out;
    int32_t n_in, n_out;
    RtFused *fused;              /* RI_FUSED, or RI_GEMM's epilogue */
    int32_t *release;            /* values whose tensors are dropped after this instruction */
    int32_t n_release;
    int32_t marker;              /* RI_MARKER: ordinal */
} RtInstr;

typedef struct RtProgStats {
    int n_groups, n_fused_ops, n_epilogues, n_inplace, n_arena_bufs, n_heap_bufs, n_views;
} RtProgStats;

typedef struct RtProg {
    const Graph *graph;          /* borrowed from the owner (plan / variant) */
    bool backward;               /* HOOK nodes are calls */
    RtVal *vals;
    int32_t n_vals;
    RtInstr *ins;
    int32_t n_ins;
    RtBuf *bufs;
    int32_t n_bufs;
    int32_t *inputs;             /* value per placeholder, -1 when unused */
    int32_t n_inputs;
    int32_t *outputs;            /* value per requested output, -1 = constant */
    int32_t n_outputs;
    size_t arena_bytes;          /* allocated for each run, released at its end */
    int32_t n_markers;
    RtProgStats stats;
} RtProg;

/* Builds a program computing `outs` (n_outs nodes of g, NULL = constant slot) from g's
 * placeholders.  Nodes not needed for them (and without side effects) are dropped. */
RtProg *rt_prog_new(const Graph *g, GraphNode *const *outs, int n_outs, bool backward, const RtOptions *o);
void rt_prog_free(RtProg *p);
/* Checks the arena invariant; 0 or -1 with a message. */
int rt_prog_check(const RtProg *p, char *err, size_t cap);
void rt_prog_describe(const RtProg *p, FILE *f);
bool rt_value_is_float(const TensorMeta *m);

/* ---- fusion (fuse.c) ------------------------------------------------------------------------- */

/* Can this op node run inside a fused loop (float32 values, bool masks)? */
bool rt_fusable(const GraphNode *n);
/* fusable without libm calls (recomputing it costs less than keeping it) */
bool rt_cheap_pointwise(const GraphNode *n);
/* Groups fusable instructions of p in place (RI_FUSED instructions over several nodes, GEMM
 * epilogues); run before buffers are assigned. */
void rt_fuse(RtProg *p, const RtOptions *o);
void rt_fused_free(RtFused *f);
/* members, external inputs and materialised outputs of a group */
int rt_fused_n_members(const RtFused *f);
const GraphNode *rt_fused_member(const RtFused *f, int i);
int rt_fused_n_inputs(const RtFused *f);
const int32_t *rt_fused_inputs(const RtFused *f);
int rt_fused_n_outputs(const RtFused *f);
const int32_t *rt_fused_outputs(const RtFused *f);
/* Finalises a group once the program's values are known (register code). */
int rt_fused_compile(RtFused *f, const RtProg *p) EM_MUST_CHECK;
/* ins / outs: tensors of the group's external inputs and materialised outputs. */
int rt_fused_run(const RtFused *f, Tensor *const *ins, Tensor *const *outs) EM_MUST_CHECK;

/* ---- execution (exec.c) ------------------------------------------------------------------------ */

/* Per-run gradient hooks registered by markers (RT_INT_DYN_HOOK points). */
typedef struct RtDynHook {
    int32_t marker, index;   /* marker RT_DYN_OUTPUT(k): goes on compiled output k after the run */
    AgTensorHook hook;
} RtDynHook;
#define RT_DYN_OUTPUT(k) (-2 - (k))
#define RT_DYN_OUTPUT_SLOT(marker) ((marker) <= -2 ? -2 - (marker) : -1)

typedef struct RtDynHooks {
    RtDynHook *v;
    int n, cap;
} RtDynHooks;

void rt_dyn_hooks_fini(RtDynHooks *h);

struct RtGradHookSink {
    int n;
    Tensor *const *values;
    const bool *requires_grad;   /* compiled: per value; NULL = ask the tensor */
    const bool *direct;          /* compiled: values that are run inputs (hooks go on the tensor) */
    const int32_t *out_slot;     /* compiled: per value, the output-only slot it is (or -1) */
    RtDynHooks *dyn;             /* compiled: where hooks go; NULL = register on the tensor */
    int32_t marker;
};

typedef struct RtExec {
    const RtCallbacks *cb;
    RtDynHooks *dyn;             /* forward: filled by markers; backward: read by DYN_HOOK */
    const bool *marker_rg;       /* forward: requires_grad of marker operands (by value id) */
    const int32_t *out_slot;     /* forward: output-only slot per value id (or NULL) */
} RtExec;

/* inputs: one per placeholder (may be NULL for unused ones); outs receives n_outputs new refs
 * (NULL for constant slots). */
int rt_prog_run(RtProg *p, Tensor *const *inputs, Tensor **outs, RtExec *x) EM_MUST_CHECK;

/* Calls a script hook and checks the replacement as the eager engine does; new reference. */
Tensor *rt_call_hook(const RtCallbacks *cb, GraphOpaque *hook, Tensor *grad);
Tensor *rt_call_tensor_hook(const AgTensorHook *h, Tensor *grad);
int rt_callback_failed(void);
/* writes the op's output */
int rt_run_internal(const RtInternal *in, Tensor *const *ins, int n_in, Tensor **out, RtExec *x) EM_MUST_CHECK;
/* Training graphs: every dropout in training mode becomes native_dropout plus getitems for its
 * output and mask (its rule multiplies by the mask the forward drew, as eager's does). */
void rt_split_dropouts(Graph *g, GraphNode **refs, int n_refs);   /* refs: pointers to keep valid */

/* ---- custom autograd functions (autograd_fn.c) ----------------------------------------------- */

/* What an AUTOGRAD_FN node does when interpreted: Function.apply's node over its inputs (the
 * forward's outputs already computed); outs receives its n_outs outputs (new references). */
int rt_autograd_fn_apply(const GraphNode *n, Tensor *const *in, int n_in, Tensor **outs) EM_MUST_CHECK;

/* ---- eager interpretation (eager.c) -------------------------------------------------------- */

typedef enum RtInterpMode {
    RT_INTERP_FORWARD,       /* hooks are registered on tensors, markers call the VM */
    RT_INTERP_BACKWARD,      /* a backward graph under create_graph: HOOK nodes call the hook */
    RT_INTERP_REPLAY,        /* re-running a forward for its history: hooks and markers are inert */
} RtInterpMode;

/* Interprets g with recording ops.  outs receives one entry per output tuple element. */
int rt_interpret(const Graph *g, Tensor *const *inputs, int n_inputs, Tensor **outs, int max_outs, RtInterpMode mode,
                 RtExec *x) EM_MUST_CHECK;

/* ---- differentiation (diff.c: src/autograd's rules recorded over fakes) ------------------------ */

typedef struct RtDiffSpec {
    const bool *input_rg;        /* per placeholder: requires grad */
    const bool *input_needed;    /* per placeholder: gradient wanted */
    GraphNode *const *outs;      /* compiled outputs of the forward (canonical values) */
    int n_outs;
    const bool *tangent_defined; /* per compiled output */
    GraphNode *const *saved;     /* fixed saved list (NULL: decide it) */
    int n_saved;
    bool recompute;
    bool recompute_norm;         /* layer_norm too (trades its cost for a saved activation) */
    /* split_inputs: an input's gradient contributions are returned one by one instead of summed
     * (the first in the input's own output, the others in extra outputs after all inputs': the
     * engine adds each to the input's buffer in order, as eager's nodes would, so contributions
     * from outside the graph interleave as in eager).  extra_slots: per placeholder, the extra
     * outputs it has (those of the full variant); NULL: as many as this run finds. */
    bool split_inputs;
    const int *extra_slots;
} RtDiffSpec;

typedef struct RtDiffResult {
    Graph *bwd;                  /* placeholders: one tangent per compiled output, then saved */
    GraphNode **saved;           /* forward nodes saved, in placeholder order (malloc'd) */
    int n_saved;
    int n_recomputed;
    bool *out_rg;                /* per compiled output: differentiable */
    bool *in_path;               /* per placeholder: a defined tangent reaches it through
                                    differentiable ops (it gets a gradient edge) */
    int *extra_slots;            /* split_inputs: per placeholder, its extra outputs */
    int n_extra;                 /* their total */
    char *fail;                  /* malloc'd reason when differentiation is not possible */
} RtDiffResult;

/* Differentiates the primitive forward graph f.  Returns 0, or -1 with res->fail set (unsupported
 * op: fall back) or a tensor error (res->fail NULL). */
int rt_diff(const Graph *f, const RtDiffSpec *spec, RtDiffResult *res);
void rt_diff_result_fini(RtDiffResult *r);
/* Forward requires-grad propagation: rg[pos] for every node of f. */
void rt_diff_requires_grad(const Graph *f, const bool *input_rg, bool *rg);
/* Why op's derivative cannot be recorded for a compiled backward (NULL: it can). */
const char *rt_op_underivable_reason(TensorOp op);
/* Canonical value of a node: through HOOK nodes and duplicate getitems. */
GraphNode *rt_canon(GraphNode *n);

#endif
