/* src/autograd/capture.h — the engine's interception point for compiled autograd, and the
 * pieces of the engine a capturer needs to run a graph task its own way.
 *
 * Design note
 * -----------
 * Every backward / autograd.grad call becomes a graph task (engine.c execute): dependencies,
 * exec info for inputs= and grad() captures, a current task id.  When an interceptor is
 * installed, the engine hands it the fully set-up task *instead of* running its ready queue:
 *
 *     backward() ─► make roots ─► task (deps, exec info, current) ─► interceptor(task)
 *                                                                     │ 1: it ran the task
 *                                                                     │ 0: declined ─► ready queue
 *                                                                     ▼
 *                                                       final callbacks, task freed (as always)
 *
 * While the interceptor runs, the task is the current one: ag_current_graph_task_id,
 * ag_will_engine_execute_node and ag_queue_callback answer as in an eager backward, and the
 * callbacks queued run after it returns.  An interceptor that runs a task must do what the
 * ready queue would: ag_task_schedule gives the exact order the engine would evaluate nodes in
 * (the same heap, so ties between AccumulateGrad nodes break the same way) and which gradients
 * reach which node input in which order; the ag_engine_* functions are the engine's own steps
 * (one hook, retains_grad, accumulation, a node's apply + validation), so an intercepted task
 * checks and words errors exactly as eager.  This header is part of the standalone C library:
 * the capturer (src/runtime/ca_*.c) sits above it; nothing here knows graphs or the VM. */
#ifndef EMBER_SRC_AUTOGRAD_CAPTURE_H
#define EMBER_SRC_AUTOGRAD_CAPTURE_H

#include "src/autograd/autograd.h"

typedef struct AgTask AgTask;

/* Returns 1 when it ran the task, 0 to let the engine run it, -1 with an error set (the
 * backward call fails). */
typedef int (*AgTaskInterceptor)(void *ctx, AgTask *task);
/* Process-wide (the engine is single-threaded); NULL removes it.  Returns the previous one. */
AgTaskInterceptor ag_set_task_interceptor(AgTaskInterceptor fn, void *ctx, void **prev_ctx);

int64_t ag_task_id(const AgTask *t);
bool ag_task_keep_graph(const AgTask *t);
bool ag_task_create_graph(const AgTask *t);
bool ag_task_has_exec_info(const AgTask *t);
/* Would the engine execute n's apply in this task (false for nodes outside it). */
bool ag_task_should_execute(const AgTask *t, const AgNode *n);

/* ---- the schedule ----------------------------------------------------------------------------- */

/* One gradient reaching input `slot` of a step's node: output `edge` of step `step`, or root
 * gradient `edge` when step is -1.  A step's arrivals are listed in the order the engine's
 * input buffer sums them. */
typedef struct AgArrival {
    int32_t step;
    uint32_t edge;
    uint32_t slot;
} AgArrival;

typedef struct AgStep {
    AgNode *node;            /* borrowed: the task holds the graph */
    bool needed;             /* apply runs (false: only tensor pre-hooks and captures) */
    bool capture;            /* autograd.grad captures one of its inputs */
    int32_t first_arrival, n_arrivals;
} AgStep;

typedef struct AgSchedule {
    AgStep *steps;
    int32_t n_steps;
    AgArrival *arrivals;
    int32_t n_arrivals;
    Tensor *const *root_grads;   /* borrowed, n_roots entries, all defined */
    int32_t n_roots;
    /* several roots: their gradients pass the engine's validate_outputs (sum to the receiving
     * input's shape, cast to its dtype) on the way, as GraphRoot's outputs do */
    bool validate_roots;
} AgSchedule;

/* The nodes the engine would evaluate, in its order (a GraphRoot joining several roots is not a
 * step: its outputs are the root gradients). */
int ag_task_schedule(AgTask *t, AgSchedule *s) EM_MUST_CHECK;
void ag_schedule_fini(AgSchedule *s);

/* autograd.grad: capture i is input `input_nr` of node `fn`, stored as result `out_idx`. */
int ag_task_n_captures(const AgTask *t);
void ag_task_capture(const AgTask *t, int i, const AgNode **fn, uint32_t *input_nr, int *out_idx);
void ag_task_set_captured(AgTask *t, int out_idx, Tensor *g);   /* steals g (may be NULL) */

/* ---- the engine's steps ------------------------------------------------------------------------- */

/* Calls one tensor hook on *grad (defined) and puts its replacement there (size and type
 * checked as the engine does). */
int ag_engine_call_tensor_hook(AgHookEntry *e, Tensor **grad) EM_MUST_CHECK;
/* retains_grad: t.grad = clone of g, or t.grad + g when it has one. */
int ag_engine_retain_grad(Tensor *t, Tensor *g) EM_MUST_CHECK;
/* Node pre-hook / post-hook on the node's gradient arrays (entries replaceable, NULL = None). */
int ag_engine_call_pre_hook(AgHookEntry *e, AgNode *fn, Tensor **grads) EM_MUST_CHECK;
int ag_engine_call_post_hook(AgHookEntry *e, AgNode *fn, Tensor **grad_inputs, Tensor **grads) EM_MUST_CHECK;
int ag_engine_call_post_acc_hook(AgHookEntry *e, Tensor *leaf) EM_MUST_CHECK;
/* AccumulateGrad's accumulation into .grad (no post-accumulate hooks: the caller runs them). */
int ag_engine_accumulate(AgNode *acc, Tensor *grad) EM_MUST_CHECK;
/* The engine's hook steps for a node, reading its hook lists when called (each list snapshotted
 * as the engine snapshots it), so hooks registered earlier in the same backward are seen: tensor
 * pre-hooks then retains_grad on grads[n_out] (replaceable); node pre-hooks; node post-hooks on
 * (grad_inputs[n_next], grads[n_out]); the post-accumulate-grad hooks of AccumulateGrad's leaf. */
int ag_engine_call_tensor_pre_hooks(AgNode *fn, Tensor **grads) EM_MUST_CHECK;
int ag_engine_call_pre_hooks(AgNode *fn, Tensor **grads) EM_MUST_CHECK;
int ag_engine_call_post_hooks(AgNode *fn, Tensor **grad_inputs, Tensor **grads) EM_MUST_CHECK;
int ag_engine_call_post_acc_hooks(AgNode *acc) EM_MUST_CHECK;
/* A node's apply and validate_outputs: grads[n_out] in, outputs[n_next] new references out. */
int ag_engine_apply(AgNode *fn, Tensor **grads, Tensor **outputs) EM_MUST_CHECK;
/* What a backward without retain_graph does to a node after its apply. */
void ag_engine_release_variables(AgNode *fn);
/* The node ag_current_node() reports while its hooks and apply run; returns the previous one. */
AgNode *ag_engine_set_current_node(AgNode *n);

/* ---- a rule over fake tensors ------------------------------------------------------------------ */

/* Runs op's backward rule as the eager engine would for a node recorded from in[n_in] (NULL:
 * absent optional input) and out[n_out], for a graph compiler that records the compiled
 * backward through the op observer while the tensor library is in meta mode (AOTAutograd's way:
 * src/runtime/diff.c).  edges bit i: input i requires grad (the node gets an edge, so the rule
 * saves what eager saves); needs bit i: its gradient is wanted (NEEDS(i)); grads: one per output
 * (NULL: none).  The rule's save function saves the tensors themselves, grad mode is off (no
 * create_graph), saved-tensor hooks are not called.  gi[n_in] receives new references (NULL:
 * no gradient).  Returns 0, or -1 with an error: NotImplementedError for a rule marked DATA. */
int ag_derive(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor *const *out, int n_out,
              uint64_t edges, uint64_t needs, Tensor *const *grads, Tensor **gi) EM_MUST_CHECK;
/* Whether op's backward can be recorded by ag_derive (a differentiable op whose rule reads no
 * tensor data). */
bool ag_derivable(TensorOp op);

/* ---- what a saved variable holds (AgSaved.src_*, recorded by ag__save) ----------------------- */

/* Which forward inputs (bit i) the tensor saved in slot is, and which output (-1: none); both
 * empty for values that are neither (clones, masks, custom Functions' saves). */
uint32_t ag_saved_src_inputs(const AgNode *n, int slot);
int ag_saved_src_output(const AgNode *n, int slot);

#endif
