/* src/runtime/runtime.h — the runtime engine that runs graphs (ember/graph.h): the VM-free C API
 * the VM glue (src/torch, src/tracer) calls.  Like src/tensor, src/autograd and src/graph it
 * includes no vm/ header: everything that needs the VM goes through RtCallbacks.
 *
 * Design note
 * -----------
 * A Graph becomes a *plan* (rt_plan_new), built once and run many times (rt_plan_run) with new
 * input tensors bound to the placeholders in order (placeholders that are neither tensors nor
 * wrapped numbers — object inputs such as a hook's callable, which no op reads — are not
 * inputs of the plan: the caller binds them through its callbacks' ctx).  Building a plan copies what it needs (the
 * caller may free the graph afterwards) and
 *
 *   1. decomposes composite ops (linear, matmul, reshape, flatten, chunk, cross_entropy, ...) by
 *      running the tensor library's own decomposition over metadata-only tensors, so a plan
 *      runs exactly the primitive ops eager autograd records (linear -> t + addmm);
 *   2. turns the primitive graph into a *program*: the node order is the schedule; every value
 *      gets a liveness interval; chains of float32 pointwise ops (unary, binary, scalar forms,
 *      comparisons, where, masked_fill) become one fused loop that keeps intermediates in
 *      registers; a GEMM (mm/addmm: bias fused through beta) followed by such a chain runs the
 *      chain as its epilogue, in place on the GEMM's output; views never copy; buffers of values
 *      that die inside a run are placed in one arena (greedy by size over liveness intervals,
 *      64-byte aligned; a pointwise result takes over a dying input's buffer in place).  Values
 *      that escape a run (outputs, tensors saved for backward, tensors handed to callbacks) get
 *      their own storage.
 *
 * Every fused loop evaluates the same float32 expressions, in the same order, as the eager
 * kernels, so compiled results are bitwise equal to eager ones (the library's own kernels run
 * everything else).  Large fused loops are split between the threads of the tensor library's
 * pool (src/tensor/parallel.h, sized by torch.set_num_threads); every element is still computed
 * alone, and column sums stay on one thread, so the thread count never changes a bit.
 *
 * Running.  Inputs must match the placeholders' dtype, shape and strides (the tracer's guards
 * make sure of it).  When grad mode is on and an input requires grad, the run is a *training*
 * run: the plan is differentiated at compile time (per pattern of which inputs require grad,
 * cached) into a backward program recorded by running src/autograd's own backward rules over
 * fake tensors (rt_op_has_symbolic_rule: every op whose rule reads no tensor data); the forward runs with grad
 * mode off, saves only what the backward reads, and installs ONE autograd node, named
 * "CompiledFunctionBackward" (ag_function_new), as grad_fn of the differentiable outputs
 * (outputs that cannot carry a gradient are marked non-differentiable, as eager leaves them).
 * What is saved: a backward op that recomputes a forward value (same op, arguments, inputs)
 * reuses the forward's — gelu's erf(x/sqrt 2) is computed once, for both passes — and cheap
 * values are recomputed instead of kept: views, libm-free pointwise ops, gelu from that shared
 * value, and layer_norm outputs (RtOptions.recompute_norm).
 * Eager hooks on inputs and parameters, retain_graph, inputs=, autograd.grad and the
 * "backward through the graph a second time" error therefore come from the eager engine around
 * that node.  Inside it, the backward program runs per (defined gradients, needed inputs)
 * pattern: paths that lead to no needed input are pruned, as the eager engine's exec info does.
 * Under create_graph the forward is replayed from the inputs with recording ops (so saved values
 * carry history) and the backward graph is interpreted with recording ops: double backward
 * works.  To allow that replay a training run keeps references to its inputs while its
 * CompiledFunctionBackward node lives (when it saves any non-input value).
 *
 * A graph falls back to eager interpretation (rt_run_eager semantics, autograd recorded by the
 * eager engine) for a training run when: an op on a differentiable path has no symbolic rule
 * (rt_plan_fallback_reason names it), an in-place op or script call touches a value requiring
 * grad, or saved-tensor hooks are active (ag_saved_tensors_hooks_depth() > 0 — eager packs one
 * tensor per op save, which a compiled forward cannot reproduce; Dynamo guards on the same).
 *
 * Hooks.  A GRAPH_EXEC_HOOK node h = hook(x) is the identity in forward.  If x is a placeholder
 * the hook is registered on the input tensor itself when the node runs (cb->register_hook), as
 * eager does.  Otherwise, in the compiled backward, the hook is called (cb->call_hook) with x's
 * complete gradient at the point the eager engine would call it — when x's gradient is final,
 * in reverse creation order — and what it returns replaces the gradient.  Module markers
 * (GRAPH_EXEC_MARKER) call cb->marker with their input values in forward; the VM may put
 * gradient hooks on those values through the RtGradHookSink, which fire the same way (a value
 * that is a run input gets the hook on the input tensor itself).  Marker nodes produce no value.
 *
 * Outputs.  rt_plan_run writes one entry per element of the output node's tuple: a new
 * reference for tensor nodes, NULL for a non-node constant (GARG_INT, GARG_NONE, ... — the
 * caller substitutes the constant from the graph it holds).  An output that is a placeholder is
 * the input tensor itself; outputs that view an input or an intermediate are replayed with
 * recording view ops after the compiled forward, on the input or on the intermediate (then a
 * hidden compiled output), so they get TBackward0/ViewBackward0 and the right _base, as
 * AOTAutograd regenerates output aliases.
 *
 *     RtPlan *p = rt_plan_new(g, NULL);                 // NULL options = RT_OPTIONS_INIT
 *     Tensor *out[1];
 *     if (rt_plan_run(p, (Tensor *[]){x, w}, 2, out, 1, &cbs) < 0) ...;  // tensor error set
 *     // out[0].grad_fn is CompiledFunctionBackward when w requires grad
 *     printf("%zu\n", rt_plan_peak_bytes(p));
 *     rt_plan_free(p);                                  // backward of live outputs still works
 *
 * Errors follow ember/tensor.h: -1 / NULL with the tensor error set; a failing callback is
 * TENSOR_ERR_EXTERNAL (the VM exception stays pending).  The API is single-threaded (the
 * pool's workers run only fused loops and kernels, which call nothing back); plans may be run
 * re-entrantly (from a hook): every run has its own arena.
 */
#ifndef EMBER_SRC_RUNTIME_RUNTIME_H
#define EMBER_SRC_RUNTIME_RUNTIME_H

#include "ember/autograd.h"
#include "ember/graph.h"
#include "src/common/check.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RtPlan RtPlan;
typedef struct RtGradHookSink RtGradHookSink;

/* Supplied by the VM glue.  `ctx` must stay valid while outputs of a run can still be
 * backpropagated (use the VM state, or a refcounted ctx with retain/release).  Every function returns 0 / non-NULL on
 * success; on failure -1 / NULL with a tensor error set (TENSOR_ERR_EXTERNAL for a pending VM
 * exception — the runtime sets it if the callback set nothing). */
typedef struct RtCallbacks {
    void *ctx;
    /* Compiled backward: call the script hook with the gradient (borrowed).  Return a new
     * reference to the replacement, or `grad` itself (incref'd) when the hook returned None.
     * The replacement must have grad's shape and dtype (the runtime reports PyTorch's
     * "hook has changed the size of value" / "...type of value" otherwise). */
    Tensor *(*call_hook)(void *ctx, GraphOpaque *hook, Tensor *grad);
    /* Eager interpretation, and hooks on placeholders in every mode: register the script hook
     * on tensor t (Tensor.register_hook). */
    int (*register_hook)(void *ctx, GraphOpaque *hook, Tensor *t);
    /* Module entry/exit marker with its input values (borrowed; n may be 0).  `sink` accepts
     * gradient hooks on values[i] (rt_grad_hook_sink_add). */
    int (*marker)(void *ctx, GraphOpaque *marker, int n, Tensor *const *values, RtGradHookSink *sink);
    /* GRAPH_EXEC_SCRIPT and GRAPH_EXEC_CUSTOM_OP nodes: in[i] is the value of
     * node->exec.inputs[i] (NULL where absent); write n_out new references (n_out =
     * node->exec.n_outputs).  In compiled runs the tensors carry no autograd history. */
    int (*script_call)(void *ctx, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out);
    /* Optional (NULL: ctx outlives every run).  A training run whose CompiledFunctionBackward
     * keeps the callbacks calls retain(ctx) and, when that node is freed, release(ctx): the VM
     * glue binds per-call values (hook callables made in the region) to a refcounted ctx. */
    void (*retain)(void *ctx);
    void (*release)(void *ctx);
} RtCallbacks;

/* Gradient hook on the i-th value passed to a marker: eager runs register it on the tensor
 * (ag_tensor_register_hook); compiled runs call it inside CompiledFunctionBackward when that
 * value's gradient is final.  Returns -1 with an error if values[i] does not require grad
 * ("cannot register a hook on a tensor that doesn't require gradient").  The sink takes the
 * hook over (its release runs exactly once) also on failure. */
int rt_grad_hook_sink_add(RtGradHookSink *sink, int i, AgTensorHook hook) EM_MUST_CHECK;
bool rt_grad_hook_sink_requires_grad(const RtGradHookSink *sink, int i);
/* Whether the sink belongs to a compiled training forward (values without history whose hooks the
 * compiled backward calls), and the marker's ordinal in its run (rt_backward_has_marker_point). */
bool rt_grad_hook_sink_compiled(const RtGradHookSink *sink);
int32_t rt_grad_hook_sink_marker(const RtGradHookSink *sink);

typedef struct RtOptions {
    bool fuse;              /* pointwise fusion and GEMM epilogues */
    bool reuse;             /* arena buffer reuse across liveness intervals and in place */
    bool recompute;         /* recompute views and libm-free pointwise values in the backward instead
                               of saving them */
    bool recompute_norm;    /* ... and layer_norm outputs (less memory, one more normalisation) */
    bool compile_backward;  /* false: training runs are interpreted eagerly */
} RtOptions;

#define RT_OPTIONS_INIT                                                                         \
    ((RtOptions){.fuse = true, .reuse = true, .recompute = true, .recompute_norm = true, .compile_backward = true})

/* NULL + tensor error on a graph the runtime cannot run (get_attr nodes, nested output tuples,
 * a verifier failure, ops whose metadata cannot be inferred). */
RtPlan *rt_plan_new(const Graph *g, const RtOptions *opts);
/* Returns the number of entries written (the output tuple's length), or -1.  max_outputs must
 * be at least that length. */
int rt_plan_run(RtPlan *p, Tensor *const *inputs, int n_inputs, Tensor **outputs, int max_outputs,
                const RtCallbacks *cb) EM_MUST_CHECK;
/* The length of the graph's output tuple (what rt_plan_run writes). */
int rt_plan_num_outputs(const RtPlan *p);
/* Called from a hook during a compiled backward: 1 if the backward being run computes the
 * gradient of value `index` of the run's marker number `marker` (RtGradHookSink's values), so
 * hooks added for it through the sink will be called; 0 if not; -1 outside a compiled backward.
 * (register_multi_grad_hook's "all" mode counts the gradients it waits for with this, as it
 * asks torch._C._will_engine_execute_node of eager nodes.) */
int rt_backward_has_marker_point(int32_t marker, int32_t index);
/* Drops the caller's reference; outputs still attached to a compiled backward keep what they
 * need alive. */
void rt_plan_free(RtPlan *p);

/* Interprets g node by node with recording ops (ag_op_run): the `eager` backend. */
int rt_run_eager(const Graph *g, Tensor *const *inputs, int n_inputs, Tensor **outputs, int max_outputs,
                 const RtCallbacks *cb) EM_MUST_CHECK;

/* ---- inspection (EMBER_LOGS) ------------------------------------------------------------------ */

/* The largest arena of the programs built so far (forward, inference or backward).  Each run
 * allocates its program's arena and releases it when it ends, so a training step's forward and
 * backward arenas never coexist. */
size_t rt_plan_peak_bytes(const RtPlan *p);
/* malloc'd: the programs (fused groups with their ops, GEMM epilogues, buffer assignment with
 * arena offsets and liveness, saved and recomputed values) and the backward graph's code. */
char *rt_plan_describe(const RtPlan *p);

typedef enum RtRunKind {
    RT_RUN_NONE,            /* not run yet */
    RT_RUN_INFERENCE,       /* compiled forward, no autograd */
    RT_RUN_TRAINING,        /* compiled forward + CompiledFunctionBackward */
    RT_RUN_EAGER,           /* fell back to eager interpretation */
} RtRunKind;
RtRunKind rt_plan_last_run(const RtPlan *p);
/* Why the last training run fell back to eager ("no symbolic derivative for 'prod'",
 * "saved-tensor hooks are active", ...), or NULL. */
const char *rt_plan_fallback_reason(const RtPlan *p);
/* Whether op's autograd rule can be recorded into a compiled backward (differentiable ops whose
 * rule reads tensor data, and in-place ops, fall back). */
bool rt_op_has_symbolic_rule(TensorOp op);

#ifdef __cplusplus
}
#endif
#endif
