/* ember/autograd.h — the public C API of Ember's autograd engine (src/autograd).
 *
 * Design note
 * -----------
 * Recording mirrors PyTorch: when grad mode is on and an op's differentiable input requires
 * grad, `ag_op_run` (and every typed `ag_*` wrapper) runs the kernel and creates an AgNode
 * named as PyTorch names it ("MulBackward0"), whose next edges point at the inputs' grad_fn or,
 * for leaves, at a lazily created AccumulateGrad node (cached weakly on the leaf: the same node
 * object while the graph holds it). Outputs get `grad_fn` and `output_nr`. Tensors a backward
 * rule needs are kept as saved variables (version-checked, packable by saved-tensor hooks,
 * freed by a backward without retain_graph).
 *
 *     ag_set_requires_grad(w, true);
 *     Tensor *y = ag_mul(x, w);                  // y.grad_fn = MulBackward0, saves x
 *     Tensor *l = ag_sum(y);                     // SumBackward0
 *     ag_backward(1, &l, NULL, false, false, 0, NULL);   // w's .grad = x
 *     Tensor *g = ag_grad_of(w);                 // borrowed
 *
 * Errors follow ember/tensor.h: NULL / -1 with the thread-local error set (PyTorch's
 * wording). Every callback below returns 0 / non-NULL on success and -1 / NULL on failure; a
 * failing callback means "the error is recorded in the caller's world" (a VM exception): the
 * engine stops the graph task, releases everything it holds and returns -1 with the error
 * kind TENSOR_ERR_EXTERNAL (unless the callback itself set a tensor error).
 *
 * Callback objects {fn, ctx, release}: `release(ctx)` (may be NULL) is called exactly once,
 * when the hook is removed or when its owner (tensor, node, hooks stack entry) is freed, so a
 * VM can root ctx until then. Single-threaded.
 */
#ifndef EMBER_AUTOGRAD_H
#define EMBER_AUTOGRAD_H

#include "ember/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct AgNode AgNode;

/* ---- grad mode ------------------------------------------------------------------------------ */

bool ag_is_grad_enabled(void);
bool ag_set_grad_enabled(bool enabled);   /* returns the previous value */

/* ---- tensor autograd properties -------------------------------------------------------------- */

bool ag_requires_grad(const Tensor *t);
/* requires_grad_(): leaves only ("you can only change requires_grad flags of leaf variables."),
 * floating dtypes only ("only Tensors of floating point dtype can require gradients"). */
int ag_set_requires_grad(Tensor *t, bool requires_grad) TENSOR_MUST_CHECK;
bool ag_is_leaf(const Tensor *t);
/* grad_fn, regenerated first for a view whose base was modified in place (PyTorch's
 * AsStridedBackward0). Borrowed; NULL for leaves and tensors outside the graph. */
AgNode *ag_grad_fn(Tensor *t);
uint32_t ag_output_nr(const Tensor *t);
Tensor *ag_grad_of(const Tensor *t);                  /* .grad, borrowed, may be NULL */
/* .grad = g (NULL clears). Checks PyTorch's "assigned grad has data of a different size" /
 * "assigned grad has data of a different type". */
int ag_set_grad(Tensor *t, Tensor *g) TENSOR_MUST_CHECK;
int ag_retain_grad(Tensor *t) TENSOR_MUST_CHECK;      /* no-op on leaves */
bool ag_retains_grad(const Tensor *t);
Tensor *ag_detach(Tensor *t);                         /* shares storage and version counter */
int ag_detach_(Tensor *t) TENSOR_MUST_CHECK;
/* The node a gradient for t flows into: grad_fn, or the (created on demand) AccumulateGrad of
 * a leaf requiring grad. New reference; *output_nr receives the input slot. NULL + error if t
 * does not require grad ("It is not possible to get the gradient edge for a Tensor that does
 * not require gradients"). */
AgNode *ag_gradient_edge(Tensor *t, uint32_t *output_nr);

/* ---- nodes (torch.autograd.graph.Node) -------------------------------------------------------- */

void ag_node_incref(AgNode *n);
void ag_node_decref(AgNode *n);
const char *ag_node_name(const AgNode *n);            /* "MulBackward0", "torch::autograd::AccumulateGrad" */
/* The name a decomposed op's last node shows (grad_fn's class, the profiler's ranges): the name
 * of the one node PyTorch records for it.  `name` must outlive the node (a static string). */
void ag_node_set_name(AgNode *n, const char *name);
int ag_node_num_next(const AgNode *n);
/* next_functions[i]: borrowed node (NULL for a None edge) and its input_nr. */
AgNode *ag_node_next(const AgNode *n, int i, uint32_t *input_nr);
int ag_node_num_inputs(const AgNode *n);              /* gradients it receives = forward outputs */
bool ag_node_is_accumulate_grad(const AgNode *n);
Tensor *ag_node_variable(const AgNode *n);            /* AccumulateGrad.variable, borrowed; else NULL */
uint64_t ag_node_sequence_nr(const AgNode *n);
TensorOp ag_node_op(const AgNode *n);                 /* the forward op, or TENSOR_OP_COUNT if none */
void *ag_node_user_obj(const AgNode *n);              /* slot for the VM's wrapper (not owned) */
void ag_node_set_user_obj(AgNode *n, void *obj);
/* Node.metadata: one opaque object owned by the node (release(obj) when the node dies or the
 * metadata is replaced). */
void *ag_node_metadata(const AgNode *n);
void ag_node_set_metadata(AgNode *n, void *obj, void (*release)(void *obj));

/* ---- hooks ----------------------------------------------------------------------------------------- */

/* Handles identify one registered hook; removing twice is a no-op. Handles are weak: they do
 * not keep the hook alive. */
typedef uint64_t AgHookHandle;
bool ag_hook_remove(AgHookHandle h);                  /* true if it was registered */

/* Tensor hook (Tensor.register_hook): called with the gradient of the tensor; set *replace to
 * a new reference to use it instead (same shape and dtype), or leave it NULL. */
typedef int (*AgTensorHookFn)(void *ctx, Tensor *grad, Tensor **replace);
typedef struct AgTensorHook {
    AgTensorHookFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgTensorHook;
/* "cannot register a hook on a tensor that doesn't require gradient" */
int ag_tensor_register_hook(Tensor *t, AgTensorHook hook, AgHookHandle *handle) TENSOR_MUST_CHECK;

/* Run t's tensor hooks on *grad (an owned reference, replaced by what the hooks return), in
 * registration order, as the engine runs them on t's gradient; 0 or -1 with an error.  For
 * callers that deliver a gradient outside the engine (a compiled backward standing in for t). */
int ag_tensor_call_hooks(Tensor *t, Tensor **grad) TENSOR_MUST_CHECK;

/* Called after .grad of a leaf has been accumulated, with the leaf. */
typedef int (*AgPostAccumulateHookFn)(void *ctx, Tensor *leaf);
typedef struct AgPostAccumulateHook {
    AgPostAccumulateHookFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgPostAccumulateHook;
int ag_tensor_register_post_accumulate_grad_hook(Tensor *t, AgPostAccumulateHook hook, AgHookHandle *handle) TENSOR_MUST_CHECK;

/* Node pre-hook: receives the node's incoming gradients (grad_outputs, n entries, NULL for
 * undefined). To replace entry i, decref it and store a new reference. */
typedef int (*AgNodePreHookFn)(void *ctx, AgNode *node, int n, Tensor **grad_outputs);
typedef struct AgNodePreHook {
    AgNodePreHookFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgNodePreHook;
int ag_node_register_prehook(AgNode *node, AgNodePreHook hook, AgHookHandle *handle) TENSOR_MUST_CHECK;

/* Node post-hook: receives the gradients the node computed for its inputs (grad_inputs, one per
 * next edge, replaceable as above) and the gradients it received (grad_outputs, read-only). */
typedef int (*AgNodePostHookFn)(void *ctx, AgNode *node, int n_in, Tensor **grad_inputs, int n_out,
                                Tensor *const *grad_outputs);
typedef struct AgNodePostHook {
    AgNodePostHookFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgNodePostHook;
int ag_node_register_hook(AgNode *node, AgNodePostHook hook, AgHookHandle *handle) TENSOR_MUST_CHECK;

/* ---- saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks) ---------------------------- */

/* What pack returns: any object the VM likes (not necessarily a tensor); release(obj) runs when
 * the saved variable is freed. */
typedef struct AgPacked {
    void *obj;
    void (*release)(void *obj);
} AgPacked;
typedef int (*AgPackFn)(void *ctx, Tensor *t, AgPacked *out);
typedef Tensor *(*AgUnpackFn)(void *ctx, void *packed_obj);   /* new reference */
typedef struct AgSavedTensorHooks {
    AgPackFn pack;
    AgUnpackFn unpack;
    void *ctx;
    void (*release)(void *ctx);  /* when popped and no saved variable uses the pair any more */
} AgSavedTensorHooks;
/* Innermost pair wins. Fails with the disable message while disabled (then release is not
 * called: the caller still owns ctx). */
int ag_saved_tensors_hooks_push(AgSavedTensorHooks hooks) TENSOR_MUST_CHECK;
void ag_saved_tensors_hooks_pop(void);
int ag_saved_tensors_hooks_depth(void);
/* disable_saved_tensors_hooks(message); message NULL re-enables. */
void ag_saved_tensors_hooks_disable(const char *message);
const char *ag_saved_tensors_hooks_disabled_message(void);   /* NULL when enabled */

/* ---- engine --------------------------------------------------------------------------------------- */

/* Tensor.backward / torch.autograd.backward. grad_tensors may be NULL or hold NULL entries
 * (implicit ones for one-element outputs). inputs: n_inputs tensors to restrict accumulation to
 * (inputs == NULL: all leaves). */
int ag_backward(int n, Tensor *const *tensors, Tensor *const *grad_tensors, bool retain_graph, bool create_graph,
                int n_inputs, Tensor *const *inputs) TENSOR_MUST_CHECK;
/* torch.autograd.grad: writes n_inputs new references (NULL when unused and allow_unused). */
int ag_grad(int n, Tensor *const *outputs, Tensor *const *grad_outputs, int n_inputs, Tensor *const *inputs,
            bool retain_graph, bool create_graph, bool allow_unused, Tensor **grads_out) TENSOR_MUST_CHECK;
int64_t ag_current_graph_task_id(void);               /* -1 outside backward */
bool ag_checkpoint_valid(void);                       /* torch.autograd._is_checkpoint_valid */
/* An in-place view op (x.unsqueeze_(0), x.t_()): t takes the geometry of `view` (a view of t made
 * by the out-of-place op) and, when the view has a grad_fn, that node as its history, as PyTorch's
 * in-place view ops rebase the tensor's history; a view stays a view of its base. */
int ag_become_view(Tensor *t, Tensor *view);

/* Anomaly mode (torch.autograd.set_detect_anomaly): with check_nan, a node whose backward returns
 * a gradient holding NaN fails with PyTorch's "Function 'X' returned nan values in its Nth output." */
void ag_set_anomaly_enabled(bool enabled, bool check_nan);
bool ag_is_anomaly_enabled(void);
bool ag_is_anomaly_check_nan_enabled(void);
AgNode *ag_current_node(void);                        /* node being evaluated (borrowed) or NULL */
/* torch._C._will_engine_execute_node; errors outside a backward pass, and (as PyTorch) for a leaf
 * whose gradient autograd.grad() captures. */
int ag_will_engine_execute_node(const AgNode *node, bool *out) TENSOR_MUST_CHECK;
/* The same question for C callers (the runtime's pruning): no error for captured leaves. */
int ag_engine_will_execute(const AgNode *node, bool *out) TENSOR_MUST_CHECK;
typedef int (*AgCallbackFn)(void *ctx);
typedef struct AgCallback {
    AgCallbackFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgCallback;
/* Variable._execution_engine.queue_callback: runs at the end of the current graph task, FIFO.
 * Outside a task: "Final callbacks can only be installed during backward pass." (the callback
 * is released). */
int ag_queue_callback(AgCallback cb) TENSOR_MUST_CHECK;

/* ---- custom functions (torch.autograd.Function) ------------------------------------------------ */

/* Backward of a custom node: grad_outputs has one entry per forward output (an output that got no
 * gradient is passed as zeros, or as NULL after ag_function_set_materialize_grads(node, false));
 * fill grad_inputs[n_args] with new references or NULL — one per forward argument, NULL for
 * non-tensor arguments (anything else is PyTorch's "returned a gradient different than None"
 * error). Runs with grad mode = create_graph, so ag_ ops record for double backward. */
typedef int (*AgFunctionBackwardFn)(void *ctx, AgNode *node, int n_grad_outputs, Tensor *const *grad_outputs,
                                    int n_args, Tensor **grad_inputs);
typedef struct AgFunctionBackward {
    AgFunctionBackwardFn fn;
    void *ctx;
    void (*release)(void *ctx);
} AgFunctionBackward;

/* Function.apply, step 1: a node named `name` for forward arguments args[n_args] (NULL for
 * non-tensor arguments). Computes needs_input_grad; the caller then runs forward with grad
 * mode disabled. Returns a new reference (the ctx: the same node becomes outputs' grad_fn). */
AgNode *ag_function_new(const char *name, int n_args, Tensor *const *args, AgFunctionBackward backward);
bool ag_function_is_executable(const AgNode *node);   /* grad mode on and some input requires grad */
bool ag_function_needs_input_grad(const AgNode *node, int arg);
void ag_function_set_materialize_grads(AgNode *node, bool on);    /* default on */
/* An argument no gradient can reach (the forward uses it only in non-differentiable ways): its
 * edge becomes None and needs_input_grad false, so the engine never runs what produced it (a
 * compiled forward's node then has the edges eager's nodes would have). */
void ag_function_drop_edge(AgNode *node, int arg);
/* once_differentiable's guard (PyTorch's DelayedError, a node named Error): new outputs out[n] — each in[i] detached
 * and made to require grad (NULL stays NULL) — whose backward node raises RuntimeError(msg). */
int ag_function_delayed_error(const char *msg, int n, Tensor *const *in, Tensor **out) TENSOR_MUST_CHECK;
/* ctx.mark_dirty(*tensors) / ctx.mark_non_differentiable(*tensors), before set_outputs. */
int ag_function_mark_dirty(AgNode *node, int n, Tensor *const *tensors) TENSOR_MUST_CHECK;
int ag_function_mark_non_differentiable(AgNode *node, int n, Tensor *const *tensors) TENSOR_MUST_CHECK;
/* Step 2: wraps the forward's outputs (PyTorch's _wrap_outputs): each differentiable output gets
 * this node as grad_fn; an input returned unchanged is replaced by a view of it; a dirty input
 * has its history rebased onto the node. outputs[i] may be replaced (the old reference is
 * released, the new one stored). */
int ag_function_set_outputs(AgNode *node, int n_outputs, Tensor **outputs) TENSOR_MUST_CHECK;
/* Step 3: ctx.save_for_backward(*tensors) — entries may be NULL (None). Saved as saved
 * variables: hooks, version checks and freeing after backward apply.  Called before
 * set_outputs (from inside the forward), it only records the tensors: set_outputs saves them,
 * so an output is saved as an output (without its grad_fn: no reference cycle). */
int ag_function_save_for_backward(AgNode *node, int n, Tensor *const *tensors) TENSOR_MUST_CHECK;
int ag_function_num_saved(const AgNode *node);
/* ctx.saved_tensors: writes num_saved new references (NULL for None); fails with PyTorch's
 * messages after the graph was freed or a saved tensor was modified in place. */
int ag_function_saved_tensors(AgNode *node, Tensor **out) TENSOR_MUST_CHECK;

/* ---- ops with autograd ------------------------------------------------------------------------------ */

/* tensor_op_run + recording (composite ops record the ops they decompose into). Returns the
 * number of outputs written or -1. In-place ops check PyTorch's leaf rules, bump the version,
 * and rebase history (views: CopySlices on the base). */
int ag_op_run(TensorOp op, Tensor *const *inputs, int n_inputs, const TensorOpArgs *args, Tensor **outputs,
              int n_outputs) TENSOR_MUST_CHECK;
/* one-output convenience: new reference or NULL */
Tensor *ag_op1(TensorOp op, Tensor *const *inputs, int n_inputs, const TensorOpArgs *args);

Tensor *ag_add(Tensor *a, Tensor *b);
Tensor *ag_add_alpha(Tensor *a, Tensor *b, TensorScalar alpha);
Tensor *ag_sub(Tensor *a, Tensor *b);
Tensor *ag_mul(Tensor *a, Tensor *b);
Tensor *ag_div(Tensor *a, Tensor *b);
Tensor *ag_pow(Tensor *a, Tensor *b);
Tensor *ag_maximum(Tensor *a, Tensor *b);
Tensor *ag_minimum(Tensor *a, Tensor *b);
Tensor *ag_add_scalar(Tensor *a, TensorScalar s);
Tensor *ag_sub_scalar(Tensor *a, TensorScalar s);
Tensor *ag_mul_scalar(Tensor *a, TensorScalar s);
Tensor *ag_div_scalar(Tensor *a, TensorScalar s);
Tensor *ag_pow_scalar(Tensor *a, TensorScalar s);
Tensor *ag_rsub_scalar(Tensor *a, TensorScalar s);
Tensor *ag_rpow_scalar(Tensor *a, TensorScalar s);
Tensor *ag_unary(TensorOp op, Tensor *a);             /* NEG ... ROUND, CLONE */
Tensor *ag_neg(Tensor *a);
Tensor *ag_exp(Tensor *a);
Tensor *ag_log(Tensor *a);
Tensor *ag_tanh(Tensor *a);
Tensor *ag_sigmoid(Tensor *a);
Tensor *ag_relu(Tensor *a);
Tensor *ag_gelu(Tensor *a, bool tanh_approximation);
Tensor *ag_clamp(Tensor *a, const TensorScalar *min, const TensorScalar *max);
Tensor *ag_clone(Tensor *a);
Tensor *ag_where(Tensor *cond, Tensor *a, Tensor *b);
Tensor *ag_sum(Tensor *a);
Tensor *ag_sum_dims(Tensor *a, const int64_t *dims, int n, bool keepdim);
Tensor *ag_mean(Tensor *a);
Tensor *ag_mean_dims(Tensor *a, const int64_t *dims, int n, bool keepdim);
int ag_max_dim(Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) TENSOR_MUST_CHECK;
Tensor *ag_var(Tensor *a, const int64_t *dims, int n, int correction, bool keepdim);
Tensor *ag_logsumexp(Tensor *a, const int64_t *dims, int n, bool keepdim);
Tensor *ag_view(Tensor *a, const int64_t *shape, int n);
Tensor *ag_reshape(Tensor *a, const int64_t *shape, int n);
Tensor *ag_transpose(Tensor *a, int64_t d0, int64_t d1);
Tensor *ag_t(Tensor *a);
Tensor *ag_permute(Tensor *a, const int64_t *dims, int n);
Tensor *ag_expand(Tensor *a, const int64_t *shape, int n);
Tensor *ag_slice(Tensor *a, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor *ag_select(Tensor *a, int64_t dim, int64_t index);
Tensor *ag_unsqueeze(Tensor *a, int64_t dim);
Tensor *ag_squeeze_dim(Tensor *a, int64_t dim);
Tensor *ag_flatten(Tensor *a, int64_t start_dim, int64_t end_dim);
Tensor *ag_cat(Tensor *const *ts, int n, int64_t dim);
Tensor *ag_stack(Tensor *const *ts, int n, int64_t dim);
int ag_split(Tensor *a, int64_t split_size, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
Tensor *ag_mm(Tensor *a, Tensor *b);
Tensor *ag_matmul(Tensor *a, Tensor *b);
Tensor *ag_addmm(Tensor *bias, Tensor *a, Tensor *b);
Tensor *ag_linear(Tensor *x, Tensor *w, Tensor *b);
Tensor *ag_softmax(Tensor *a, int64_t dim);
Tensor *ag_log_softmax(Tensor *a, int64_t dim);
Tensor *ag_layer_norm(Tensor *x, const int64_t *normalized_shape, int n, Tensor *w, Tensor *b, double eps);
Tensor *ag_embedding(Tensor *weight, Tensor *indices);
Tensor *ag_dropout(Tensor *a, double p, bool train);
Tensor *ag_cross_entropy(Tensor *logits, Tensor *target, TensorReduction reduction);
Tensor *ag_nll_loss(Tensor *logp, Tensor *target, TensorReduction reduction);
Tensor *ag_mse_loss(Tensor *a, Tensor *b, TensorReduction reduction);
Tensor *ag_gather(Tensor *a, int64_t dim, Tensor *index);
Tensor *ag_index_select(Tensor *a, int64_t dim, Tensor *index);
Tensor *ag_index(Tensor *a, int64_t dim, Tensor *const *indices, int n);
Tensor *ag_masked_fill(Tensor *a, Tensor *mask, TensorScalar value);
/* grad where self > threshold, else 0 (relu's backward) */
Tensor *ag_threshold_backward(Tensor *grad, Tensor *self, TensorScalar threshold);
Tensor *ag_tanh_backward(Tensor *grad, Tensor *output);
Tensor *ag_abs(Tensor *a);
Tensor *ag_sqrt(Tensor *a);
Tensor *ag_rsqrt(Tensor *a);
Tensor *ag_silu(Tensor *a);
Tensor *ag_erf(Tensor *a);
Tensor *ag_sin(Tensor *a);
Tensor *ag_cos(Tensor *a);
Tensor *ag_sign(Tensor *a);
Tensor *ag_reciprocal(Tensor *a);
Tensor *ag_floor(Tensor *a);
Tensor *ag_ceil(Tensor *a);
Tensor *ag_round(Tensor *a);
Tensor *ag_leaky_relu(Tensor *a, double negative_slope);
Tensor *ag_to_dtype(Tensor *a, TensorDtype dt);
Tensor *ag_remainder(Tensor *a, Tensor *b);
Tensor *ag_prod(Tensor *a);
Tensor *ag_prod_dim(Tensor *a, int64_t dim, bool keepdim);
Tensor *ag_max(Tensor *a);
Tensor *ag_min(Tensor *a);
int ag_min_dim(Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) TENSOR_MUST_CHECK;
Tensor *ag_std(Tensor *a, const int64_t *dims, int n, int correction, bool keepdim);
Tensor *ag_as_strided(Tensor *a, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset);
Tensor *ag_narrow(Tensor *a, int64_t dim, int64_t start, int64_t length);
Tensor *ag_squeeze(Tensor *a);
Tensor *ag_contiguous(Tensor *a);
int ag_chunk(Tensor *a, int64_t chunks, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
int ag_split_with_sizes(Tensor *a, const int64_t *sizes, int n, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
int ag_unbind(Tensor *a, int64_t dim, Tensor **out, int max_out) TENSOR_MUST_CHECK;
Tensor *ag_bmm(Tensor *a, Tensor *b);
Tensor *ag_mv(Tensor *a, Tensor *v);
Tensor *ag_dot(Tensor *a, Tensor *b);
Tensor *ag_scatter_add(Tensor *a, int64_t dim, Tensor *index, Tensor *src);
Tensor *ag_index_add(Tensor *a, int64_t dim, Tensor *index, Tensor *src, TensorScalar alpha);
Tensor *ag_index_put(Tensor *a, int64_t dim, Tensor *const *indices, int n, Tensor *values, bool accumulate);
Tensor *ag_masked_select(Tensor *a, Tensor *mask);
Tensor *ag_masked_scatter(Tensor *a, Tensor *mask, Tensor *source);
/* non-differentiable ops (comparisons, logical ops, argmax, all/any, creation, ...) have only
 * tensor_ forms: they never record */
/* in place: return 0 / -1 */
int ag_add_(Tensor *a, Tensor *b) TENSOR_MUST_CHECK;
int ag_add_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int ag_mul_(Tensor *a, Tensor *b) TENSOR_MUST_CHECK;
int ag_mul_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int ag_sub_(Tensor *a, Tensor *b) TENSOR_MUST_CHECK;
int ag_div_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int ag_div_(Tensor *a, Tensor *b) TENSOR_MUST_CHECK;
int ag_sub_scalar_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int ag_clamp_(Tensor *a, const TensorScalar *min, const TensorScalar *max) TENSOR_MUST_CHECK;
int ag_normal_(Tensor *a, double mean, double std) TENSOR_MUST_CHECK;
int ag_uniform_(Tensor *a, double from, double to) TENSOR_MUST_CHECK;
int ag_zero_(Tensor *a) TENSOR_MUST_CHECK;
int ag_fill_(Tensor *a, TensorScalar s) TENSOR_MUST_CHECK;
int ag_copy_(Tensor *dst, Tensor *src) TENSOR_MUST_CHECK;
/* self.<op>_(...): the in-place form of any pointwise op whose table entry has none (sin_, exp_,
 * pow_, remainder_, ...).  in[0] is self; the op runs out of place, then its result is copied
 * into self (mutation observer, version bump) and cast to self's dtype ("result type Float can't
 * be cast to the desired output type Long" otherwise; the result must have self's shape).  With
 * autograd recording it is the op's own node (x.sin_() -> SinBackward0) rebased as self's
 * history, as PyTorch records in-place ops; a rule that saves self gets its value before the
 * write (a clone). */
int ag_pointwise_inplace(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a) TENSOR_MUST_CHECK;
int ag_relu_(Tensor *a) TENSOR_MUST_CHECK;
int ag_masked_fill_(Tensor *a, Tensor *mask, TensorScalar value) TENSOR_MUST_CHECK;
int ag_index_put_(Tensor *a, int64_t dim, Tensor *const *indices, int n, Tensor *values, bool accumulate) TENSOR_MUST_CHECK;

/* ---- finite-difference checking (tests/grad) --------------------------------------------------- */

/* fn computes one output from inputs with ag_ ops (new reference or NULL). */
typedef Tensor *(*AgGradcheckFn)(void *ctx, Tensor *const *inputs);
typedef struct AgGradcheckOpts {
    double eps, atol, rtol;
    bool check_second_order;     /* also compare the gradient's own gradient (create_graph) */
    bool fourth_order;           /* numeric derivative from the 4-point central stencil (error
                                    O(eps^4), not O(eps^2)): accurate enough for float64
                                    tolerances that catch a float32 rounding on the way */
    char *failure;               /* out: malloc'd description of the first mismatch, or NULL */
} AgGradcheckOpts;
/* Compares the analytic Jacobian (one backward per output element) of the inputs that require
 * grad with central differences. Returns 1 if they agree, 0 if not (opts->failure says where),
 * -1 on error. */
int ag_gradcheck(AgGradcheckFn fn, void *ctx, int n_inputs, Tensor *const *inputs, AgGradcheckOpts *opts);

#ifdef __cplusplus
}
#endif
#endif
