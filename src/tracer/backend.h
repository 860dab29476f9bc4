/* src/tracer/backend.h — what a torch.compile backend sees of the tracer: the backend interface,
 * the graph inputs of a compiled call, and the tracer's opaque node payloads (hooks, module
 * markers, custom ops).  The tracer's built-in "eager" backend (output.c, an adapter over the
 * runtime's graph interpreter) and the runtime's "ember" backend (src/runtime/vm_backend.c) are
 * written against this header only.
 *
 * Design note
 * -----------
 * A compiled graph's placeholders are, in order, the arguments residual code passes to
 * `__compiled_fn_N`.  Three kinds exist:
 *   - tensors (node->is_tensor),
 *   - unspecialized Python numbers (meta.wrapped_number): the backend feeds them as 0-dim
 *     "wrapped number" tensors of the placeholder's dtype, as PyTorch's scalar arguments are,
 *   - objects (neither): per-call Python values that graph nodes refer to through their opaque
 *     payload — the callable of a hook registered on an intermediate tensor.  A closure made in
 *     the region is a new object on every call, so it cannot live in the graph: like dynamo's
 *     BackwardState, it is an input, bound per call.  No tensor op consumes an object input, so
 *     hook nodes have only the tensor in their execution view (exec.inputs); their TracerOpaque
 *     names the object input by placeholder index.
 */
#ifndef EMBER_TRACER_BACKEND_H
#define EMBER_TRACER_BACKEND_H

#include "ember/autograd.h"
#include "ember/graph.h"
#include "vm/vm.h"

/* Backends register by name ("eager" is built in; src/runtime registers "ember"). */
typedef struct TracerBackend {
    const char *name;
    /* Compile a finished graph; NULL + VM exception on failure. */
    void *(*compile)(VM *vm, Graph *g);
    /* Run with the call's arguments (one per placeholder); returns a tuple of outputs or
     * VAL_NULL with a VM exception. */
    Value (*run)(VM *vm, void *artifact, Graph *g, int n, Value *inputs);
    void (*free)(void *artifact);
} TracerBackend;

void tracer_register_backend(const TracerBackend *b);
const TracerBackend *tracer_find_backend(const char *name);

/* What the "eager" backend runs: a graph interpreted node by node with the eager ops (the
 * runtime's rt_interpret, which src/runtime installs here: the tracer sits below it).  Same
 * contract as TracerBackend.run. */
typedef Value (*TracerGraphInterpreter)(VM *vm, Graph *g, int n, Value *inputs);
void tracer_set_graph_interpreter(TracerGraphInterpreter fn);

/* EMBER_LOGS / TORCH_LOGS (tracer/base.c): whether an artifact ("graph_code", "memory", ...) is
 * on, and printing to stderr when it is; trace_logs_set replaces the setting (ember compile
 * --show, torch._dynamo's _set_logs). */
bool trace_log_enabled(const char *artifact);
void trace_log_printf(const char *artifact, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void trace_logs_set(const char *spec);
/* The compile report's record of the compile that made graph `name` (src/report/record.h), for
 * the backend's own artifacts (plans, memory); NULL when no report is being written. */
struct RpCompile *tracer_record_of_graph(VM *vm, const char *name);

/* ---- graph inputs ---------------------------------------------------------------------------- */

static inline bool tracer_is_object_input(const GraphNode *placeholder) {
    return !placeholder->is_tensor && !placeholder->meta.wrapped_number;
}

/* Converts the call's arguments to the placeholders' tensors: tensors[i] is a new reference for
 * tensor and number placeholders, NULL for object placeholders.  -1 with a VM exception (a
 * wrong argument count or kind); tensors[] is then all NULL. */
int tracer_bind_inputs(VM *vm, const Graph *g, int n, const Value *inputs, Tensor **tensors);

/* ---- custom ops: the hook src/ffi registers into ----------------------------------------------------
 * Ops the tracer does not define — custom C ops loaded from shared libraries, called as
 * torch.ops.<ns>.<name> — are traced into one GRAPH_EXEC_CUSTOM_OP node each (custom_ops.c) and
 * run by the backends (tracer_custom_op_run) through this table.  The layer that owns them
 * (src/ffi, above the tracer) registers it once per process; without it no value is a custom
 * op.  A TraceOp is the provider's op, opaque here, valid for the life of the process.  The
 * functions that can fail return -1 with the tensor library's error set (ember/tensor.h). */
typedef struct TraceOp TraceOp;

typedef enum TraceArgKind { TRACE_ARG_TENSOR = 0, TRACE_ARG_FLOAT, TRACE_ARG_INT, TRACE_ARG_BOOL } TraceArgKind;

/* One schema argument's value: a tensor when running, its metadata when tracing. */
typedef struct TraceOpArg {
    TraceArgKind kind;
    union {
        Tensor *t;                 /* run (borrowed) */
        const TensorMeta *meta;    /* infer */
        double f;
        int64_t i;
        bool b;
    };
} TraceOpArg;

enum { TRACE_OP_MAX_ARGS = 32, TRACE_OP_MAX_OUTPUTS = 8 };

typedef struct TraceCustomOps {
    /* The op a script value stands for (torch.ops.ns.name or its .default), or NULL. */
    const TraceOp *(*op_of)(VM *vm, Value v);
    const char *(*qualname)(const TraceOp *op);     /* "ns::name" */
    const char *(*ns)(const TraceOp *op);           /* "ns" */
    const char *(*name)(const TraceOp *op);         /* "name" */
    TraceArgKind (*arg_kind)(const TraceOp *op, int i);
    const char *(*arg_name)(const TraceOp *op, int i);
    bool (*arg_default)(const TraceOp *op, int i, TraceOpArg *out);   /* false: required */
    /* Map npos positional then nkw keyword arguments to schema positions: slot[i] = the call
     * argument for schema argument i (keyword k is npos + k), -1 for its default.  Returns the
     * number of schema arguments, or -1 (PyTorch's message). */
    int (*bind_slots)(const TraceOp *op, int npos, int nkw, const char *const *kwnames, int *slot);
    /* Output metadata for the arguments' metadata, without running a kernel: the number of
     * outputs, or -1. */
    int (*infer)(const TraceOp *op, const TraceOpArg *args, int nargs, TensorMeta *outputs);
    int (*num_outputs)(const TraceOp *op);
    /* Run the kernel (recording autograd as an eager call does): outputs as new references, their
     * number, or -1. */
    int (*run)(const TraceOp *op, const TraceOpArg *args, int nargs, Tensor **outputs);
} TraceCustomOps;

void trace_register_custom_ops(const TraceCustomOps *ops);
/* The registered table, or NULL. */
const TraceCustomOps *trace_custom_ops(void);

/* ---- opaque payloads of the tracer's nodes ---------------------------------------------------- */

typedef enum TracerOpaqueKind {
    TOPQ_HOOK,          /* GRAPH_EXEC_HOOK: the callable is object input `input` */
    TOPQ_MARKER,        /* GRAPH_EXEC_MARKER: module hooks run at entry or exit (see calls.c) */
    TOPQ_CUSTOM_OP,     /* GRAPH_EXEC_CUSTOM_OP: a custom op (TraceCustomOps, below) */
} TracerOpaqueKind;

typedef struct TracerMarker TracerMarker;

typedef struct TracerOpaque {
    TracerOpaqueKind kind;
    int32_t input;              /* HOOK: placeholder index of the callable */
    const TraceOp *op;          /* CUSTOM_OP (ops live as long as the process) */
    TracerMarker *marker;       /* MARKER (owned) */
} TracerOpaque;

/* A new opaque owning a copy of *o (release frees it). */
GraphOpaque *tracer_opaque_new(const TracerOpaque *o, const char *repr);
/* The payload if o was made by tracer_opaque_new, else NULL. */
const TracerOpaque *tracer_opaque_of(const GraphOpaque *o);

/* The value of the call's argument for a hook node (borrowed from inputs), or VAL_NULL with a
 * VM exception. */
Value tracer_hook_callable(VM *vm, const GraphNode *hook_node, int n, const Value *inputs);

/* ---- what nodes do, shared by the backends ------------------------------------------------------ */

/* A constant graph argument (int, float, bool, None, str, dtype, tuple of those) as a value. */
Value tracer_graph_constant(VM *vm, const GraphArg *a);
/* t.register_hook(hook) on the script tensor of t: 0, or -1 with a VM exception. */
int tracer_register_tensor_hook(VM *vm, Tensor *t, Value hook);

/* Where a module marker puts gradient hooks on its values: NULL when the values are real
 * tensors with autograd history (eager runs: hooks go on the tensors); the runtime's compiled
 * forward passes a sink that calls them inside its compiled backward. */
typedef struct TracerGradSink {
    void *ctx;
    bool (*requires_grad)(void *ctx, int i);
    int (*add_hook)(void *ctx, int i, AgTensorHook hook);   /* takes the hook over, also on failure */
    int32_t marker;           /* this marker's ordinal in its run */
    /* During a compiled backward: 1 if it computes the gradient of value `index` of marker
     * `marker` (so a hook added through the sink will run), 0 if not, -1 outside one. */
    int (*will_run)(int32_t marker, int32_t index);
} TracerGradSink;

/* Run a GRAPH_EXEC_MARKER node (its opaque): the module hook with the values (borrowed).  0 or
 * -1 with a VM exception. */
int tracer_marker_run(VM *vm, GraphOpaque *marker, int n_values, Tensor *const *values, const TracerGradSink *sink);
void tracer_marker_free(TracerMarker *m);
/* A marker calling hook(module, args) (post: hook(module, args, output)); the values of its node
 * are the n_args positional arguments then the n_outputs outputs (output_tuple: the output is
 * their tuple, else the single value).  no_grad: recorded with grad mode off. */
TracerMarker *tracer_marker_new(VM *vm, Value module, Value hook, bool post, bool no_grad, int n_args, int n_outputs,
                                bool output_tuple);
/* Run a GRAPH_EXEC_CUSTOM_OP node through the registered TraceCustomOps: in[i] is the value of
 * exec.inputs[i]; writes the outputs (new references) and returns their number, or -1 with a VM
 * exception.  Records autograd when grad mode is on and an input requires grad. */
int tracer_custom_op_run(VM *vm, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out);

#endif
