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
 *      (captures, the node's hooks, the apply), the per-run *items* those actions call (the
 *      nodes), the graph *inputs* (root gradients, then the saved tensors of nodes the symbolic
 *      rules may differentiate, unpacked now), and a *record*: the bytes of everything the graph
 *      built from this step depends on — node kind and op, op arguments, gradient and
 *      saved-tensor metadata (dtype, shape, strides), edges, exec info, where hooks are called
 *      — but no tensor values or identities.
 *   2. look up (ca_run.c): the records walk a trie; the entry at the end is the compiled graph
 *      for that structure.  A miss names the first step whose record is new.
 *   3. build on a miss (ca_build.c): one graph whose placeholders are the inputs.  Gradients
 *      flow as values: arrivals are summed in the engine's order; an op node whose autograd
 *      rule can be recorded (rt_op_has_symbolic_rule) is differentiated as a one-op forward
 *      graph by rt_diff with the eager node's saved values as the saved set, and the resulting
 *      backward ops are inlined; every other node (custom Functions, CompiledFunctionBackward,
 *      CopySlices, ops without a rule, in-place ops), every hook call and AccumulateGrad is a
 *      GRAPH_EXEC_SCRIPT node whose opaque CaOp names its action and item.  The graph becomes
 *      an RtPlan; compiler_fn sees it once.
 *   4. run: rt_plan_run with the collected inputs; the plan's script calls come back to
 *      ca_script_call, which runs the item through the engine's own step functions with the
 *      node current (so hooks see the same current node, task id and will-execute answers as
 *      eager), then writes autograd.grad's captures and releases saved variables unless
 *      retain_graph.  The engine runs the queued final callbacks afterwards, as always.
 *
 * Gradients are equal to eager's: the recorded rules are eager's own (same ops, same order), and
 * sums happen in the engine's order.  An opaque apply runs the node's post-hooks itself, so they
 * see every gradient the node returned (also for inputs needing none, which the graph does not
 * carry).
 *
 * Live steps.  User code runs inside a backward only in hooks and in applies that call scripts
 * (custom Functions' backward, compiled graphs' hook nodes), and it may register or remove
 * hooks, call retain_grad, or modify and free saved tensors of nodes still to run.  So from the
 * first step whose node has a hook or runs user code on, every step is *live*: its hooks
 * (tensor pre-hooks with retains_grad and node pre-hooks before the apply, post-hooks and the
 * leaf's post-accumulate-grad hooks after it) are script calls that read and snapshot the
 * node's hook lists when they run, exactly as the engine's own step functions do; a symbolic
 * apply's saved tensors, unpacked at capture, are checked again where eager unpacks them (after
 * the pre-hooks); and the step releases its saved variables after its post-hooks, as eager's
 * evaluate does, the first live step releasing every step before it.  Before that step no hook
 * exists and no user code has run, so nothing can change what the capture saw.  A saved tensor
 * that cannot be unpacked at capture (freed, or modified in place) leaves its node opaque: its
 * own apply raises eager's error when the backward reaches it.
 *
 * Declared definedness: whether a gradient is defined is part of the structure, fixed at
 * capture.  A None the graph cannot foresee (a custom backward returning None for an input that
 * requires grad, a node hook replacing a gradient by None) travels as a zeros tensor the run
 * remembers: hooks, retains_grad, AccumulateGrad, opaque applies and autograd.grad results that
 * receive that very tensor see None, as eager; ops that compute with it see zeros.
 */
#ifndef EMBER_SRC_RUNTIME_CA_H
#define EMBER_SRC_RUNTIME_CA_H

#include "src/autograd/capture.h"
#include "src/runtime/ca_api.h"
#include "src/runtime/rt.h"

/* ---- the model (ca_collect.c, ca_build.c, ca_run.c) --------------------------------------------- */

/* What one backward call's graph calls back into (per run, not cached): a node, for its apply
 * (opaque, AccumulateGrad) or its hooks. */
typedef struct CaItem {
    AgNode *node;            /* the step's node (current while the item runs); a reference */
    int8_t acc_state;        /* AccumulateGrad, set by the run: 1 accumulated */
} CaItem;

typedef enum CaActKind {
    CA_ACT_TENSOR_HOOKS,     /* item: the node's tensor pre-hooks and retains_grad, read when they run */
    CA_ACT_CAPTURE,          /* slot, out (autograd.grad result index) */
    CA_ACT_PRE_HOOKS,        /* item: tensor pre-hooks, retains_grad, then the node's pre-hooks */
    CA_ACT_APPLY,            /* how: CaApply; item: the node (every kind but IDENTITY / NONE) */
    CA_ACT_POST_HOOKS,       /* item: the node's post-hooks */
} CaActKind;

typedef enum CaApply {
    CA_APPLY_NONE,           /* nothing to compute (no gradient arrived at an op node) */
    CA_APPLY_SYMBOLIC,       /* the runtime's rule, inlined (opaque if that fails) */
    CA_APPLY_OPAQUE,         /* the node's own apply, called from the graph */
    CA_APPLY_ACCUMULATE,     /* AccumulateGrad, then its leaf's post-accumulate-grad hooks */
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
    bool live;               /* at or after the first step that runs user code (ca.h) */
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
    int32_t first_live;      /* the first step that runs user code (n_steps: none) */
    /* the key: record 0 is the header, record 1 + s is step s */
    uint8_t *key;
    size_t key_len, key_cap;
    size_t *rec_end;
    int32_t n_recs;
} CaTrace;

/* 0, or -1 with an error (the engine's schedule could not be made). */
int ca_collect(AgTask *t, CaTrace *tr) EM_MUST_CHECK;
void ca_trace_fini(CaTrace *tr);
int ca_rec_len(const CaTrace *tr, int r, const uint8_t **bytes);
/* A training dropout's node saves the mask it drew (slot 0): the runtime's dropout-with-mask
 * rule reads it as that op's second output. */
bool ca_dropout_mask_slot(const AgNode *fn, int slot);

/* Describes one opaque graph node (GraphOpaque.ptr of its exec view). */
typedef struct CaOp {
    uint8_t kind;            /* CaActKind of the action it runs (hooks or an apply) */
    uint8_t apply;           /* CA_ACT_APPLY: CA_APPLY_OPAQUE or CA_APPLY_ACCUMULATE */
    int32_t item;
    int32_t n_a;             /* first gradient array (grads, or a post-hook's grad_inputs) */
    uint8_t *a_def;          /* which entries are graph inputs */
    int32_t n_b;             /* post-hooks: the node's grads */
    uint8_t *b_def;
    int32_t n_out;           /* full output array (grads, or grad_inputs) */
    uint8_t *out_def;        /* which entries are graph outputs (none: one placeholder output) */
    TensorMeta *out_meta;    /* per full output entry (contiguous) */
    bool may_steal;          /* AccumulateGrad: nothing else in the graph reads its gradient */
    /* an opaque apply runs the node's post-hooks itself: they see every gradient the node's own
     * apply returned, also those of inputs that need none (which the graph does not carry) */
    bool with_post_hooks;
    bool release_static;     /* the first live step's hooks: release the steps before it first */
    bool check_saved;        /* pre-hooks of a symbolic step: then check its saved tensors (ca_run.c) */
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
