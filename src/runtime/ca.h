/* src/runtime/ca.h — compiled autograd (torch._dynamo.compiled_autograd): capture of the eager
 * autograd graph a backward call would run, into graph IR, cached by structure and run by the
 * runtime.  VM-free like the rest of src/runtime: the VM binding (ca_vm.c) gives the compiler
 * callback and the log switch.
 *
 * Design note
 * -----------
 * The capturer is the autograd engine's graph-task interceptor (src/autograd/capture.h).  For
 * each backward / autograd.grad call, once the engine has set the task up:
 *
 *   1. collect (ca_collect.c): the engine's schedule (ag_task_schedule: the order its ready
 *      queue would pop nodes, which output reaches which input when) is walked once.  Per step
 *      it derives which gradients are defined, the step's *actions* in the engine's order
 *      (tensor pre-hooks, retains_grad, captures, node pre-hooks, the apply, post-accumulate
 *      hooks, node post-hooks), the per-run *items* those actions call (pinned hook entries,
 *      nodes, retained tensors), the graph *inputs* (root gradients, then the saved tensors of
 *      nodes the symbolic rules may differentiate, unpacked now), and a *record*: the bytes of
 *      everything the graph built from this step depends on — node kind and op, op arguments,
 *      gradient and saved-tensor metadata (dtype, shape, strides), edges, exec info, which
 *      hooks exist — but no tensor values or identities.
 *   2. look up (ca_run.c): the records walk a trie; the entry at the end is the compiled graph
 *      for that structure.  A miss names the first step whose record is new.
 *   3. build on a miss (ca_build.c): one graph whose placeholders are the inputs.  Gradients
 *      flow as values: arrivals are summed in the engine's order; an op node with a symbolic
 *      rule (the runtime's own, src/runtime/rules_*.c) is differentiated as a one-op forward
 *      graph by rt_diff with the eager node's saved values as the saved set, and the resulting
 *      backward ops are inlined; every other node (custom Functions, CompiledFunctionBackward,
 *      CopySlices, ops without a rule, in-place ops) and every hook, retains_grad and
 *      AccumulateGrad is a GRAPH_EXEC_SCRIPT node whose opaque CaOp names its kind and item.
 *      The graph becomes an RtPlan; compiler_fn sees it once.
 *   4. run: rt_plan_run with the collected inputs; the plan's script calls come back to
 *      ca_script_call, which runs the item through the engine's own step functions with the
 *      node current (so hooks see the same current node, task id and will-execute answers as
 *      eager), then writes autograd.grad's captures and releases saved variables unless
 *      retain_graph.  The engine runs the queued final callbacks afterwards, as always.
 *
 * Gradients are equal to eager's: the symbolic rules compute eager's ops in eager's order, and
 * sums happen in the engine's order.  An opaque apply runs the node's post-hooks itself, so they
 * see every gradient the node returned (also for inputs needing none, which the graph does not
 * carry).  Hooks are pinned at capture; like the engine's per-node snapshot, a hook fires unless
 * it was removed before its list's first call in this run (CaItem.live).
 *
 * Declared definedness: whether a gradient is defined is part of the structure, fixed at
 * capture.  A None the graph cannot foresee (a custom backward returning None for an input that
 * requires grad, a node hook replacing a gradient by None) travels as a zeros tensor the run
 * remembers: hooks, retains_grad, AccumulateGrad, opaque applies and autograd.grad results that
 * receive that very tensor see None, as eager; ops that compute with it see zeros.
 *
 * Not like eager (documented in torch._dynamo.compiled_autograd): hooks registered during the
 * backward call are not seen by it; saved tensors are unpacked (and version-checked) when the
 * call is captured, so one modified in place by a hook during the call goes undetected and a
 * freed or modified one raises before any hook ran; saved variables are released when the call
 * ends (eager: after each node).
 */
#ifndef EMBER_SRC_RUNTIME_CA_H
#define EMBER_SRC_RUNTIME_CA_H

#include "src/autograd/capture.h"
#include "src/runtime/ca_api.h"
#include "src/runtime/rt.h"

/* ---- the model (ca_collect.c, ca_build.c, ca_run.c) --------------------------------------------- */

typedef enum CaItemKind {
    CA_ITEM_TENSOR_HOOK,     /* hook: a pinned tensor hook entry */
    CA_ITEM_RETAIN,          /* tensor: the non-leaf whose .grad retains_grad fills */
    CA_ITEM_PRE_HOOK,        /* hook: a node pre-hook */
    CA_ITEM_POST_HOOK,       /* hook: a node post-hook */
    CA_ITEM_POST_ACC_HOOK,   /* hook: a post-accumulate-grad hook; acc: the accumulation item */
    CA_ITEM_NODE,            /* the node itself: opaque apply, or AccumulateGrad */
} CaItemKind;

/* What one backward call's graph calls back into (per run, not cached). */
typedef struct CaItem {
    uint8_t kind;
    AgHookEntry *hook;       /* pinned for the run */
    AgNode *node;            /* the step's node (current while the item runs); a reference */
    Tensor *tensor;          /* CA_ITEM_RETAIN; a reference */
    int32_t acc;             /* CA_ITEM_POST_ACC_HOOK: the CA_ITEM_NODE item of its accumulation */
    int8_t acc_state;        /* CA_ITEM_NODE of AccumulateGrad, set by the run: 1 accumulated */
    /* Hooks of one list and step form a group.  The engine snapshots a list when the node
     * runs, so a hook removed before that (by an earlier hook) does not fire and one removed
     * while its list runs still does: the run snapshots a group at its first call (live). */
    int32_t group, group_n;  /* first item of the group, and its size (in the first item) */
    int8_t live;             /* 0 not snapshotted yet, 1 fires, -1 removed before the snapshot */
} CaItem;

typedef enum CaActKind {
    CA_ACT_TENSOR_HOOK,      /* slot, item */
    CA_ACT_RETAIN,           /* slot, item */
    CA_ACT_CAPTURE,          /* slot, out (autograd.grad result index) */
    CA_ACT_PRE_HOOK,         /* item */
    CA_ACT_APPLY,            /* how: CaApply; item: the node (every kind but IDENTITY / NONE) */
    CA_ACT_POST_ACC_HOOK,    /* item */
    CA_ACT_POST_HOOK,        /* item */
} CaActKind;

typedef enum CaApply {
    CA_APPLY_NONE,           /* nothing to compute (no gradient arrived at an op node) */
    CA_APPLY_SYMBOLIC,       /* the runtime's rule, inlined (opaque if that fails) */
    CA_APPLY_OPAQUE,         /* the node's own apply, called from the graph */
    CA_APPLY_ACCUMULATE,     /* AccumulateGrad */
    CA_APPLY_IDENTITY,
} CaApply;

typedef struct CaAction {
    uint8_t kind;
    uint8_t how;             /* CA_ACT_APPLY */
    int32_t slot;
    int32_t item;
    int32_t out;
} CaAction;

typedef struct CaStep {
    AgNode *node;            /* borrowed from the schedule */
    bool needed;
    int32_t first_arrival, n_arrivals;
    uint8_t *in_def;         /* per gradient slot (node->n_out): defined after the arrivals */
    uint8_t *out_def;        /* per next edge: the apply's output is defined (and routed) */
    int32_t first_act, n_act;
    int32_t *saved_input;    /* CA_APPLY_SYMBOLIC: per saved slot, the input index or -1 */
} CaStep;

typedef struct CaTrace {
    AgTask *task;
    AgSchedule sched;
    CaStep *steps;
    int32_t n_steps;
    CaAction *acts;
    int32_t n_acts, cap_acts;
    CaItem *items;
    int32_t n_items, cap_items;
    Tensor **inputs;         /* references: the root gradients, then unpacked saved tensors */
    int32_t n_inputs, cap_inputs;
    int32_t n_captures;      /* autograd.grad results */
    /* the key: record 0 is the header, record 1 + s is step s */
    uint8_t *key;
    size_t key_len, key_cap;
    size_t *rec_end;
    int32_t n_recs;
} CaTrace;

/* 0, or -1 with an error (an unpack failed: a saved tensor was modified, or freed). */
int ca_collect(AgTask *t, CaTrace *tr) EM_MUST_CHECK;
void ca_trace_fini(CaTrace *tr);
int ca_rec_len(const CaTrace *tr, int r, const uint8_t **bytes);
/* A training dropout's node saves the mask it drew (slot 0): the runtime's dropout-with-mask
 * rule reads it as that op's second output. */
bool ca_dropout_mask_slot(const AgNode *fn, int slot);

/* Describes one opaque graph node (GraphOpaque.ptr of its exec view). */
typedef struct CaOp {
    uint8_t kind;            /* CaItemKind of the item it calls */
    uint8_t apply;           /* CA_ITEM_NODE: CA_APPLY_OPAQUE or CA_APPLY_ACCUMULATE */
    int32_t item;
    int32_t n_a;             /* first gradient array (grads, or a post-hook's grad_inputs) */
    uint8_t *a_def;          /* which entries are graph inputs */
    int32_t n_b;             /* post-hook: the node's grads */
    uint8_t *b_def;
    int32_t n_out;           /* full output array (grads, or grad_inputs) */
    uint8_t *out_def;        /* which entries are graph outputs (none: one placeholder output) */
    TensorMeta *out_meta;    /* per full output entry (contiguous) */
    bool may_steal;          /* AccumulateGrad: nothing else in the graph reads its gradient */
    /* an opaque apply runs the node's post-hooks itself: they see every gradient the node's own
     * apply returned, also those of inputs that need none (which the graph does not carry) */
    int32_t *post_items;
    int32_t n_post;
} CaOp;

const CaOp *ca_op_of(const GraphOpaque *o);   /* NULL if o is not a CaOp */

typedef struct CaBuilt {
    Graph *graph;
    int32_t *input_map;      /* per collected input: placeholder index, -1 unused */
    int32_t n_placeholders;
    int32_t *out_capture;    /* per graph output: autograd.grad result index */
    int32_t n_outputs;
    int n_symbolic, n_opaque;
    char *notes;             /* malloc'd lines: op nodes run opaquely and why (NULL: none) */
} CaBuilt;

int ca_build(const CaTrace *tr, int id, CaBuilt *out) EM_MUST_CHECK;
void ca_built_fini(CaBuilt *b);

#endif
