/* ember/graph.h — the graph IR (src/graph) shared by the dynamo-like tracer (src/tracer), the
 * torch.fx tracer and the runtime (src/runtime).  Part of the standalone C library: no vm/
 * headers.
 *
 * Design note
 * -----------
 * A Graph is an ordered list of nodes in FX's shape: PLACEHOLDER nodes first, then
 * GET_ATTR / CALL_FUNCTION / CALL_METHOD / CALL_MODULE nodes, then one OUTPUT node.  Every node
 * has two views:
 *
 *  - the *call* view, what the user wrote and what graph code prints: a target (printed name such
 *    as "torch.relu", "operator.add", a method name "sum", a module path "layers.0") plus args
 *    and kwargs, each a GraphArg (another node, a Python constant, a list/tuple of args, or an
 *    opaque script value the VM layer owns);
 *  - the *exec* view, what the runtime runs: `exec.kind` says how — a tensor op of ops.def with
 *    its tensor inputs and TensorOpArgs, a selection of one output of a multi-output node
 *    (FX's getitem), a hook or module marker the runtime calls back into the VM for, a custom op,
 *    or an opaque script call.  fx graphs leave it GRAPH_EXEC_NONE (they run as generated code).
 *
 * Nodes carry metadata computed without running kernels (tensor_op_infer): TensorMeta,
 * requires_grad (meta.wrapped_number set: the value is a Python number, run it as a wrapped-number
 * tensor), the grad mode it was recorded under (no_grad), and provenance (file, line, function, source line) and nn_module_stack for the
 * logs and for execution-order queries.  All strings a graph holds are copied into it; opaque
 * values are released through the release callback given when they were attached.
 *
 *     Graph *g = graph_new("__compiled_fn_0");
 *     GraphNode *x = graph_placeholder(g, "L_x_", "l_x_");
 *     GraphNode *y = graph_call_tensor_op(g, TENSOR_OP_RELU, &x, 1, &args, "torch.relu");
 *     graph_output(g, (GraphArg[]){graph_arg_node(y)}, 1);
 *     graph_print_code(g, stdout, GRAPH_PRINT_ANNOTATED);
 *     graph_free(g);
 */
#ifndef EMBER_GRAPH_H
#define EMBER_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ember/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Graph Graph;
typedef struct GraphNode GraphNode;

typedef enum GraphNodeKind {
    GRAPH_PLACEHOLDER,
    GRAPH_GET_ATTR,
    GRAPH_CALL_FUNCTION,
    GRAPH_CALL_METHOD,
    GRAPH_CALL_MODULE,
    GRAPH_OUTPUT,
} GraphNodeKind;

const char *graph_node_kind_name(GraphNodeKind k);   /* "placeholder", "call_function", ... */

/* ---- opaque script values ------------------------------------------------------------------- */

/* A value of the layer above (a VM object: hook function, module, Python constant the graph
 * cannot represent).  The graph holds one reference and calls release(ptr) when freed; repr is
 * what graph code prints for it. */
typedef struct GraphOpaque {
    void *ptr;
    void (*release)(void *ptr);
    char *repr;
    int32_t refs;
} GraphOpaque;

GraphOpaque *graph_opaque_new(void *ptr, void (*release)(void *), const char *repr);
void graph_opaque_incref(GraphOpaque *o);
void graph_opaque_decref(GraphOpaque *o);

/* ---- arguments ------------------------------------------------------------------------------ */

typedef enum GraphArgKind {
    GARG_NONE,
    GARG_NODE,
    GARG_INT,
    GARG_FLOAT,
    GARG_BOOL,
    GARG_STR,
    GARG_DTYPE,      /* torch.float32 ... */
    GARG_TUPLE,
    GARG_LIST,
    GARG_SLICE,      /* items: start, stop, step */
    GARG_ELLIPSIS,
    GARG_OPAQUE,
    GARG_DICT,       /* items: key0, value0, key1, value1, ... (n = 2 * pairs); fx's dict arguments */
} GraphArgKind;

/* Kinds whose payload is as.seq (nested args). */
static inline bool graph_arg_is_seq(int kind) {
    return kind == GARG_TUPLE || kind == GARG_LIST || kind == GARG_SLICE || kind == GARG_DICT;
}

typedef struct GraphArg {
    GraphArgKind kind;
    union {
        GraphNode *node;
        int64_t i;
        double f;
        bool b;
        char *s;                       /* owned by the graph once attached */
        TensorDtype dtype;
        struct { struct GraphArg *items; int32_t n; } seq;   /* TUPLE, LIST, SLICE (n = 3), DICT */
        GraphOpaque *opaque;
    } as;
} GraphArg;

static inline GraphArg graph_arg_none(void) { GraphArg a = {.kind = GARG_NONE}; return a; }
static inline GraphArg graph_arg_node(GraphNode *n) { GraphArg a = {.kind = GARG_NODE}; a.as.node = n; return a; }
static inline GraphArg graph_arg_int(int64_t i) { GraphArg a = {.kind = GARG_INT}; a.as.i = i; return a; }
static inline GraphArg graph_arg_float(double f) { GraphArg a = {.kind = GARG_FLOAT}; a.as.f = f; return a; }
static inline GraphArg graph_arg_bool(bool b) { GraphArg a = {.kind = GARG_BOOL}; a.as.b = b; return a; }
static inline GraphArg graph_arg_dtype(TensorDtype d) { GraphArg a = {.kind = GARG_DTYPE}; a.as.dtype = d; return a; }
/* Borrow `s` / `items`: graph_* functions that take args copy them deeply. */
static inline GraphArg graph_arg_str(const char *s) { GraphArg a = {.kind = GARG_STR}; a.as.s = (char *)s; return a; }
static inline GraphArg graph_arg_seq(GraphArgKind kind, GraphArg *items, int n) {
    GraphArg a = {.kind = kind}; a.as.seq.items = items; a.as.seq.n = n; return a;
}
static inline GraphArg graph_arg_opaque(GraphOpaque *o) { GraphArg a = {.kind = GARG_OPAQUE}; a.as.opaque = o; return a; }

/* ---- execution view ------------------------------------------------------------------------- */

typedef enum GraphExecKind {
    GRAPH_EXEC_NONE,         /* placeholders, output, fx nodes */
    GRAPH_EXEC_TENSOR_OP,    /* op(inputs..., args) */
    GRAPH_EXEC_GETITEM,      /* output `index` of the multi-output node inputs[0] */
    GRAPH_EXEC_HOOK,         /* identity forward; in backward, call opaque hook(grad) -> grad or None */
    GRAPH_EXEC_MARKER,       /* module entry/exit marker: the runtime calls the VM (opaque) */
    GRAPH_EXEC_CUSTOM_OP,    /* a custom C op (src/ffi): opaque names it */
    GRAPH_EXEC_SCRIPT,       /* call the opaque script callable with the call view's args */
    GRAPH_EXEC_CONSTANT,     /* the tensor in exec.constant (a get_attr of a tensor made at trace time) */
    GRAPH_EXEC_AUTOGRAD_FN,  /* a custom autograd.Function's apply: opaque is its GraphAutogradFn */
} GraphExecKind;

/* A custom torch.autograd.Function traced into a graph (dynamo's autograd_function_apply).  The
 * forward's ops are ordinary nodes recorded with grad mode off; this node gives their results
 * the function's gradient, as Function.apply does.  Its exec inputs are, in order: the tensor
 * arguments of apply, the forward's tensor outputs, the tensors save_for_backward saved
 * (saved variables: version-checked, packed by saved-tensor hooks) and the other tensors the
 * backward reads (ctx attributes, tensors it closes over: plain references).  Its outputs are
 * the forward's tensor outputs (n_outputs > 1: through GETITEM nodes) carrying the function's
 * backward node; `bwd` is the user's backward traced into a graph. */
typedef struct GraphAutogradFn {
    char *name;              /* the backward node's name: "<Function>Backward" */
    int32_t n_args;          /* arguments of apply, non-tensors included */
    int32_t *arg_input;      /* per argument: its exec input index, -1 for a non-tensor */
    int32_t n_tensor_args, n_outs, n_saved, n_kept;
    uint64_t non_differentiable;   /* per output: ctx.mark_non_differentiable (n_outs <= 64) */
    int32_t *dirty;          /* per output: the argument it is (ctx.mark_dirty), -1 */
    TensorMeta *out_meta;    /* per output */
    bool materialize_grads;  /* ctx.set_materialize_grads (an absent gradient is passed as zeros) */
    bool once_differentiable;   /* backward decorated @once_differentiable */
    Graph *bwd;              /* placeholders: one gradient per output, the saved tensors, the kept
                                ones; output: a tuple of one gradient (or None) per argument */
} GraphAutogradFn;

/* The node payload (takes ownership of f and its arrays and graph). */
GraphOpaque *graph_autograd_fn_new(GraphAutogradFn *f);
const GraphAutogradFn *graph_autograd_fn_of(const GraphNode *n);   /* NULL unless AUTOGRAD_FN */

typedef struct GraphExec {
    GraphExecKind kind;
    TensorOp op;
    GraphNode **inputs;      /* n_inputs entries; NULL = optional input absent */
    int32_t n_inputs;
    int32_t n_outputs;       /* 1 for single-output ops; >1: consumers are GETITEM nodes */
    int32_t index;           /* GETITEM: which output */
    TensorOpArgs args;       /* ints/ints2 point into memory the graph owns */
    GraphOpaque *opaque;     /* HOOK / MARKER / CUSTOM_OP / SCRIPT / AUTOGRAD_FN */
    Tensor *constant;        /* CONSTANT: a reference the graph owns */
} GraphExec;

/* ---- nodes ---------------------------------------------------------------------------------- */

typedef struct GraphLoc {
    char *file;              /* NULL: unknown */
    int32_t line;
    char *func;
    char *code;              /* the source line, stripped */
} GraphLoc;

typedef struct GraphModuleFrame {
    char *key;               /* "L['self'].layers[0]" style path or fqn */
    char *type_name;         /* "Linear" */
} GraphModuleFrame;

struct GraphNode {
    GraphNodeKind kind;
    char *name;              /* unique in the graph: "add", "add_1", "l_x_" */
    char *target;            /* printed target: "torch.relu", "operator.add", "sum", "layers.0", "L_x_" */
    GraphOpaque *target_value;   /* the target as a value of the layer above when it is not the string
                                  * `target` (fx: the callable of a call_function node), else NULL */
    char *type_repr;         /* fx: the printed type annotation of the value ("torch.Tensor"), or NULL */
    GraphArg *args;
    int32_t n_args;
    char **kwnames;
    GraphArg *kwargs;
    int32_t n_kwargs;
    GraphExec exec;

    /* metadata */
    bool is_tensor;
    bool requires_grad;
    bool no_grad;            /* recorded with grad mode off (torch.no_grad() in the region): run it so */
    TensorMeta meta;
    GraphLoc loc;
    GraphModuleFrame *module_stack;   /* outermost first */
    int32_t module_stack_len;

    /* order and bookkeeping */
    GraphNode *prev, *next;
    int32_t index;           /* position, maintained by graph_renumber() */
    int32_t n_users;         /* maintained by graph_compute_users() */
    void *user_data;         /* free for passes (not freed by the graph) */
};

struct Graph {
    char *name;              /* "__compiled_fn_0" */
    bool eager_autograd;     /* code around it inspects its outputs' autograd nodes: backends keep
                                eager's nodes (no compiled backward) */
    GraphNode *first, *last;
    int32_t n_nodes;
    struct GraphNameSet *names;   /* for unique node names */
    bool output_is_value;    /* fx: the output node's args[0] is the returned value itself; otherwise it is
                              * graph_output's tuple of values, printed unwrapped when it has one item */
    bool append_only;        /* fx: graph_node_new appends (no placement rules), so a placeholder may follow
                              * other nodes, as torch.fx's Graph.create_node allows */
};

Graph *graph_new(const char *name);
void graph_free(Graph *g);

/* Placement: placeholders go after the last placeholder, other nodes before the OUTPUT node if
 * one exists, else at the end; with g->append_only every node goes at the end. */
GraphNode *graph_node_new(Graph *g, GraphNodeKind kind, const char *name_hint, const char *target,
                          const GraphArg *args, int n_args, const char *const *kwnames, const GraphArg *kwargs,
                          int n_kwargs);
GraphNode *graph_placeholder(Graph *g, const char *target, const char *name_hint);
GraphNode *graph_get_attr(Graph *g, const char *target, const char *name_hint);
/* A tensor op with its exec view filled in and its metadata inferred from the inputs' metas.
 * The call view is `target(inputs..., extra args)`: callers that want a different printed form
 * (operator.add with a Python scalar) pass call_args/n_call_args, else NULL/-1 = the inputs. */
GraphNode *graph_call_tensor_op(Graph *g, TensorOp op, GraphNode *const *inputs, int n_inputs,
                                const TensorOpArgs *args, const char *target, const GraphArg *call_args,
                                int n_call_args, const char *const *kwnames, const GraphArg *kwargs,
                                int n_kwargs);
/* A tensor constant (steals a reference to t): get_attr `_tensor_constant<N>`. */
GraphNode *graph_constant(Graph *g, Tensor *t);
/* Replace a node's call view (what it prints as); args are copied. */
void graph_node_set_call(Graph *g, GraphNode *n, GraphNodeKind kind, const char *target, const GraphArg *args,
                         int n_args, const char *const *kwnames, const GraphArg *kwargs, int n_kwargs);
/* Output `index` of a multi-output node (operator.getitem). */
GraphNode *graph_getitem(Graph *g, GraphNode *src, int index);
GraphNode *graph_output(Graph *g, const GraphArg *values, int n);
GraphNode *graph_output_node(const Graph *g);   /* NULL if none yet */

/* Makes a node name from hint as graph_node_new does and marks it used without making a node
 * (fx reserves the name of a node whose construction fails).  Returns it, malloc'd. */
char *graph_reserve_name(Graph *g, const char *hint);
/* Moves n (already in g) before `before` (NULL: to the end).  No placement rules apply. */
void graph_move_before(Graph *g, GraphNode *n, GraphNode *before);
/* Sets (copies) or clears the node's type annotation (fx type_expr). */
void graph_node_set_type_repr(Graph *g, GraphNode *n, const char *type_repr);
/* Takes over a reference to v as n's target value (releasing the previous one). */
void graph_node_set_target_value(Graph *g, GraphNode *n, GraphOpaque *v);
/* Removes a node that has no users (returns -1 if it has users). */
int graph_erase(Graph *g, GraphNode *n);
/* Replaces every use of `old` by `repl` in args, kwargs and exec inputs. */
void graph_replace_uses(Graph *g, GraphNode *old, GraphNode *repl);
void graph_renumber(Graph *g);
void graph_compute_users(Graph *g);
/* Removes nodes with no users and no side effects (tensor ops that are not in-place/random,
 * getitems, get_attrs); returns how many were removed. */
int graph_eliminate_dead_code(Graph *g);
/* Deep-copies the arg into storage owned by the graph (strings, sequences, opaque refs). */
GraphArg graph_arg_copy(Graph *g, const GraphArg *a);

void graph_node_set_loc(Graph *g, GraphNode *n, const char *file, int line, const char *func, const char *code);
void graph_node_set_module_stack(Graph *g, GraphNode *n, const GraphModuleFrame *frames, int n_frames);
int graph_count_ops(const Graph *g);   /* nodes other than placeholders, get_attr and output */

/* Checks structure: placeholders first (unless append_only), one output last, every arg/input refers to an earlier
 * node of this graph, names unique, tensor-op arity within ops.def bounds.  0, or -1 with a
 * message in err. */
int graph_verify(const Graph *g, char *err, size_t cap);

/* ---- printing ------------------------------------------------------------------------------- */

enum {
    GRAPH_PRINT_ANNOTATED = 1u << 0,   /* `add: "f32[3][1]cpu" = ...`, provenance comments, `x = None` frees */
    GRAPH_PRINT_FX = 1u << 1,          /* torch.fx GraphModule.code layout (PyTorch 1.13) */
};
/* Graph code as Python source (the forward of a GraphModule). */
char *graph_code(const Graph *g, unsigned flags);        /* malloc'd */
void graph_print_code(const Graph *g, FILE *out, unsigned flags);
/* One row per node: opcode name target args kwargs (fx print_tabular layout). */
char *graph_tabular(const Graph *g);
/* Graphviz DOT. */
char *graph_to_dot(const Graph *g);
/* "f32[3, 4][4, 1]cpu" style annotations. */
void graph_format_meta(const TensorMeta *m, char *buf, size_t cap);
/* An arg as Python source ("l_x_", "2", "(1, 2)", "torch.float32"). */
void graph_format_arg(const GraphArg *a, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
