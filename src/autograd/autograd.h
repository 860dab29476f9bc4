/* src/autograd/autograd.h — the autograd layer's internal model, shared by its files.
 *
 * Model
 * -----
 *   Tensor.grad_fn / output_nr ──► AgNode { name, next[] edges ──► AgNode (or NULL = None),
 *                                           out_meta[] (shape/dtype of each gradient it
 *                                           receives), in_meta[] (forward inputs, when the rule
 *                                           needs them), saved[] variables, args copy, hooks }
 *   leaf requiring grad ──weak──► AccumulateGrad node ──strong──► leaf
 *
 * A node of kind OP computes gradients with the backward rule of its TensorOp (rules.c). The
 * rule works by *forward input index*; ag__input_edge() maps an input to its next edge (PyTorch
 * omits non-differentiable inputs and adds a None edge for a wrapped scalar).
 *
 * One AgNode is a single allocation: the header followed by its edges, metas, saved variables
 * and the ints of its args copy. Nodes are refcounted; freeing is iterative (a worklist) so a
 * graph a million ops deep does not overflow the C stack.
 *
 * Invariant: a tensor with grad_fn set is not a leaf; grad_fn holds one reference. Views keep
 * `grad_fn_version`; when their version counter moved on (an in-place op on the base or another
 * view) their grad_fn is regenerated from the base before use (ag__grad_fn).
 */
#ifndef EMBER_SRC_AUTOGRAD_AUTOGRAD_H
#define EMBER_SRC_AUTOGRAD_AUTOGRAD_H

#include "ember/autograd.h"
#include "src/tensor/tensor.h"

typedef struct AgEdge {
    AgNode *fn;          /* owned reference; NULL = None edge */
    uint32_t input_nr;
} AgEdge;

/* Shape and dtype of a gradient a node receives (PyTorch's InputMetadata). */
typedef struct AgShape {
    uint8_t dtype;
    uint8_t ndim;
    int64_t shape[TENSOR_MAX_DIMS];
} AgShape;

/* ---- hooks ---- */

typedef enum { AG_HOOK_TENSOR, AG_HOOK_POST_ACC, AG_HOOK_NODE_PRE, AG_HOOK_NODE_POST } AgHookKind;

typedef struct AgHookEntry {
    uint64_t id;
    int32_t refcount;            /* list membership + pins while being called */
    AgHookKind kind;
    void (*fn)(void);            /* cast to the kind's signature */
    void *ctx;
    void (*release)(void *ctx);
    struct AgHookList *list;     /* NULL once removed */
    struct AgHookEntry *prev, *next;
} AgHookEntry;

typedef struct AgHookList {
    int32_t refcount;
    uint32_t output_nr;          /* tensor hook lists: which gradient of the node they see */
    AgHookEntry *head, *tail;
    int n;
} AgHookList;

typedef struct AgTensorHookSlot {
    AgHookList *list;            /* owned ref */
} AgTensorHookSlot;

typedef struct AgRetainSlot {
    uint32_t output_nr;
    Tensor *tensor;              /* weak: cleared when the tensor dies */
} AgRetainSlot;

typedef struct AgNodeHooks {
    AgHookList *pre, *post;
    AgTensorHookSlot *tensor;
    int n_tensor, cap_tensor;
    AgRetainSlot *retains;
    int n_retains, cap_retains;
} AgNodeHooks;

/* ---- saved variables ---- */

typedef struct AgSavedHooksRef {
    int32_t refcount;
    AgSavedTensorHooks h;
} AgSavedHooksRef;

typedef struct AgSaved {
    Tensor *data;                /* the original tensor, or an alias of an output's data */
    AgNode *grad_fn;             /* with hooks: grad_fn of a saved non-output (owned) */
    AgNode *grad_acc;            /* with hooks: AccumulateGrad of a saved leaf (owned) */
    AgSavedHooksRef *hooks;
    AgPacked packed;
    uint32_t saved_version;
    uint32_t output_nr;
    uint32_t src_inputs;         /* forward inputs (bit i) the saved tensor is (ag__save_ctx) */
    int8_t src_output;           /* forward output it is, -1 none */
    bool defined, is_output, is_leaf, saved_original, requires_grad, freed;
} AgSaved;

/* The forward op's tensors while its rule saves (record.c sets it around save / save_out), so a
 * saved variable knows which input or output it is: compiled autograd hands saved values to the
 * rules it records by that name (capture.h). */
typedef struct AgSaveCtx {
    Tensor *const *in;
    int n_in;
    Tensor *const *out;
    int n_out;
} AgSaveCtx;
extern AgSaveCtx ag__save_ctx;

/* ---- nodes ---- */

typedef enum {
    AG_KIND_OP,
    AG_KIND_ACCUMULATE,
    AG_KIND_FUNCTION,
    AG_KIND_COPY_SLICES,
    AG_KIND_GRAPH_ROOT,
    AG_KIND_IDENTITY,
} AgNodeKind;

struct AgNode {
    int32_t refcount;
    uint8_t kind;
    bool released;               /* saved variables freed by a backward without retain_graph */
    uint16_t op;                 /* TensorOp (AG_KIND_OP); TENSOR_OP_COUNT otherwise */
    uint32_t n_next, n_out, n_in, n_saved;
    uint32_t absent;             /* AG_KIND_OP: forward inputs (bit i, i < 32) that were not given */
    uint32_t alloc_size;         /* bytes of the node's block (src/common/blockcache.h) */
    uint64_t seq;
    const char *name;
    AgEdge *next;
    AgShape *out_meta;
    TensorMeta *in_meta;         /* n_in entries when the rule asked for them, else NULL */
    AgSaved *saved;
    TensorOpArgs args;           /* ints/ints2 point into the node's own tail */
    AgNodeHooks *hooks;          /* lazily allocated */
    void *user_obj;
    void *metadata;
    void (*metadata_release)(void *);
    void *payload;               /* per kind: AccumulateGrad's variable, function / copy-slices state */
    AgNode *free_next;           /* deferred-free worklist link */
};

/* Extra autograd state of a tensor, allocated on first need. */
typedef struct AgMeta {
    Tensor *grad;
    AgNode *grad_acc;            /* weak */
    AgHookList *hooks;           /* leaf: its tensor hooks; non-leaf: current list shared with grad_fn */
    AgHookList *post_acc;
} AgMeta;

/* ---- backward rules (rules*.c) ---- */

/* Saves what backward needs. For in-place ops `save` runs before the kernel (out == NULL; clone
 * input 0 if its old value is needed) and `save_out` after it. */
typedef int (*AgSaveFn)(AgNode *node, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
/* grads: one per forward output (NULL = undefined; not all NULL); grad_in: one per forward input,
 * to be filled with new references (NULL = no gradient). Only inputs with
 * ag__needs_input_grad() need a gradient. Written with ag_ ops, so create_graph works. */
typedef int (*AgBackwardFn)(AgNode *node, Tensor *const *grads, Tensor **grad_in);
/* Forward override for ops whose kernel produces extra state the rule saves (dropout's mask). */
typedef int (*AgForwardFn)(AgNode *node, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);

enum {
    AG_RULE_IN_META = 1,         /* store the inputs' metas in the node */
    AG_RULE_NONDIFF = 2,         /* op is not differentiable (marked, not missing) */
    AG_RULE_COMPOSITE = 4,       /* recorded through its decomposition */
    AG_RULE_DATA = 8,            /* the backward reads tensor data: it cannot be recorded over fakes */
};
#define AG_SAVED_PER_INPUT 255   /* one saved slot per forward input */

typedef struct AgRule {
    AgSaveFn save;
    AgSaveFn save_out;
    AgBackwardFn backward;
    AgForwardFn forward;
    uint8_t n_saved;
    uint8_t flags;
} AgRule;

const AgRule *ag__rule(TensorOp op);

/* ---- node.c ---- */
extern uint64_t ag__seq_counter;
AgNode *ag__node_alloc(AgNodeKind kind, const char *name, uint32_t n_next, uint32_t n_out, uint32_t n_in_meta,
                       uint32_t n_saved, const TensorOpArgs *args);
AgMeta *ag__meta(Tensor *t);     /* materialises */
void ag__install_release(void);
bool ag__requires_grad(const Tensor *t);
AgNode *ag__grad_fn(Tensor *t);  /* regenerates a stale view's grad_fn; borrowed */
/* The edge a gradient for t flows into (new reference in e->fn), None if t needs no grad. */
int ag__gradient_edge(Tensor *t, AgEdge *e) EM_MUST_CHECK;
AgNode *ag__grad_accumulator(Tensor *leaf);   /* new ref, created on demand */
AgNode *ag__try_grad_accumulator(const Tensor *leaf);  /* borrowed, existing only */
void ag__set_history(Tensor *t, AgNode *node, uint32_t output_nr);
void ag__shape_of(AgShape *s, const Tensor *t);
int ag__input_edge(const AgNode *node, int input);
bool ag__needs_input_grad(const AgNode *node, int input);
AgNodeHooks *ag__node_hooks(AgNode *node);
/* hooks / retains_grad bookkeeping when t's grad_fn is replaced by an in-place op */
void ag__update_hooks_on_new_grad_fn(Tensor *t, AgNode *old_fn, AgNode *new_fn);
void ag__release_saved(AgNode *node);
Tensor *ag__regenerate_view_fn(Tensor *view);

/* ---- hooks.c ---- */
AgHookList *ag__hook_list_new(uint32_t output_nr);
void ag__hook_list_decref(AgHookList *l);
AgHookHandle ag__hook_add(AgHookList *l, AgHookKind kind, void (*fn)(void), void *ctx, void (*release)(void *));
/* Snapshot of a list's entries (pinned); unpin with ag__hooks_unpin. Returns count. */
int ag__hooks_snapshot(AgHookList *l, AgHookEntry ***out, AgHookEntry **stack_buf, int stack_cap);
void ag__hooks_unpin(AgHookEntry **v, int n, AgHookEntry **stack_buf);
void ag__retain_remove(AgNode *node, Tensor *t);

/* ---- saved.c ---- */
int ag__save(AgNode *node, int slot, Tensor *t, bool is_output) EM_MUST_CHECK;
/* Unpacks slot into a new reference (NULL if None was saved); identity: attach autograd
 * identity (grad_fn / requires_grad) as PyTorch's unpack does. */
int ag__unpack(AgNode *node, AgSaved *s, bool identity, Tensor **out) EM_MUST_CHECK;
int ag__saved(AgNode *node, int slot, Tensor **out) EM_MUST_CHECK;  /* for rules */
void ag__saved_release(AgSaved *s);
void ag__saved_init_empty(AgSaved *s);

/* ---- engine.c ---- */
bool ag__task_should_execute(const AgNode *fn);
/* ---- ag_derive (record.c): while a rule runs over fakes, edges to ag__derive_dead are not
 * wanted and saves keep the tensors themselves without pack hooks ---- */
extern const AgNode *ag__derive_dead;
extern bool ag__deriving;
/* ---- record.c ---- */
Tensor *ag__run1(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a);
int ag__rebase_history(Tensor *t, AgNode *fn) EM_MUST_CHECK;
int ag__check_inplace(Tensor *t) EM_MUST_CHECK;
/* ---- function.c ---- */
int ag__apply_node(AgNode *node, Tensor **grads, Tensor **grad_inputs) EM_MUST_CHECK;
AgNode *ag__copy_slices_new(Tensor *base, Tensor *view, AgNode *fn);
void ag__function_free(AgNode *node);
void ag__copy_slices_free(AgNode *node);
void ag__function_release_variables(AgNode *node);
int ag__accumulate(AgNode *node, Tensor *grad) EM_MUST_CHECK;

/* helpers for rules (rules_util.c) */
Tensor *ag__zeros_meta(const TensorMeta *m);
Tensor *ag__zeros_shape(const AgShape *s);
Tensor *ag__sum_to(Tensor *g, int ndim, const int64_t *shape);
Tensor *ag__unsqueeze_reduced(Tensor *g, const TensorMeta *in, const int64_t *dims, int n, bool keepdim);
Tensor *ag__grad_or_zeros(AgNode *node, Tensor *const *grads, int i);

#define AG_TRY(expr)                                                                            \
    do {                                                                                        \
        if (!(expr)) goto fail;                                                                 \
    } while (0)

#endif
