/* src/tracer/tracer.h — the dynamo-like frame tracer: internal structures shared by its files.
 *
 * Design note
 * -----------
 * torch.compile(fn) returns a wrapper that installs the tracer's eval-frame hook (vm->eval_frame,
 * PEP 523 style) for the duration of the call.  The hook looks up the frame's code object's
 * cache (a chain of entries, each a guard program plus residual code); on a hit it runs the
 * entry's residual code in the same frame; on a miss it *traces* the frame:
 *
 *   - A symbolic interpreter (symbolic.c, one handler per opcode of vm/opcodes.def; an opcode
 *     without a handler is a graph break) walks the frame's own bytecode with a stack and locals
 *     of variable trackers (VT): constants, tensors (graph nodes), lists/tuples/dicts, user
 *     objects, functions, modules...  Values that come from outside the frame carry a Source
 *     (source.c: L['x'], G['stats'], L['self'].lin.weight) from which residual code reloads them
 *     and guards check them.
 *   - Tensor ops run for real through the torch binding's natives, but on *fake* tensors
 *     (fake.c): the tensor library's meta mode allocates outputs from inferred metadata without
 *     running kernels, and its op observer records each top-level op as a graph node.  So the
 *     binding's argument parsing, errors and autograd bookkeeping are shared, not re-written.
 *   - User functions, methods and closures are inlined (calls.c); side effects on objects that
 *     exist outside the frame are recorded in SideEffects (side_effects.c, after dynamo's
 *     side_effects.py) rather than performed.
 *   - On something it cannot trace (print, data-dependent control flow, an unsupported call)
 *     the tracer records the break, restarts, and this time stops before that instruction: the
 *     graph so far is compiled, residual code (codegen.c) runs it, replays the side effects,
 *     runs the instruction natively and calls a resume function (resume.c) that continues the
 *     original bytecode and is itself compiled on its first call.
 *
 * Memory: VTs, sources and other tracing state live in a per-trace arena (TraceArena) freed when
 * the trace ends.  Every VM value they reference is appended to the trace's keepalive list, which
 * is an external GC root, so the collector (which may run on any allocation, including while
 * tracing) never frees what a tracker points at.  Cache entries own their guard programs and
 * residual code and are traced through CodeObj.tracer_trace.
 *
 * Files, bottom first (each calls only files above it in this list, measured from the object
 * files' defined and undefined symbols by tools/tracer_callgraph.py).  One circle remains, the
 * symbolic interpreter's own recursion: running a frame calls functions, and calling a user
 * function, dunder, property, hook or generator inlines it by running its frame.  It is tied
 * by calls.c's tr_call and tr_generator_next (every file of the circle that runs user code
 * calls them) and by symbolic.c's tx_run, which only calls.c calls.
 *   base.c          the floor: arena, keepalive, breaks and errors, options, EMBER_LOGS
 *   decompile.c     residual code as Python source
 *   registry.c      what a value is by identity: torch natives, grad-mode classes, nn.Module
 *   source.c        sources and static reads through them
 *   guards.c        guards: adding, checking, describing
 *   side_effects.c  SideEffects
 *   vt.c            trackers and translator frames as data: constructors, containers, lazies
 *   fake.c          fake tensors, graph inputs, the op observer, node provenance
 *   wrap.c          trackers <-> real values (specialisation and its guards)
 *   fake_call.c     natives called on fakes
 *   marker.c        node payloads (TracerOpaque) and module markers
 *   node_run.c      what the tracer's node kinds do when run; the custom-op hook
 *   custom_ops.c    calls of custom ops traced into nodes
 *   ops.c attrs.c builtins.c calls.c exceptions.c partial.c autograd_fn.c sets.c
 *   module_hooks.c symbolic.c
 *                   the symbolic interpreter (the one circle)
 *   cache.c         the per-code-object cache of compiled entries
 *   resume.c        resume functions
 *   output.c        finishing and compiling graphs, backends, __compiled_fn_N, GraphModule
 *   codegen.c       residual code
 *   logs.c          EMBER_LOGS artifacts and explain() records
 *   guard_program.c guard programs of cache entries
 *   frame.c         the eval-frame hook and the compile driver
 *   compiled_fn.c   what torch.compile(fn) returns
 *   dynamo_module.c torch._dynamo._ember and registration
 * The declarations below follow the same order.
 */
#ifndef EMBER_TRACER_TRACER_H
#define EMBER_TRACER_TRACER_H

#include "ember/graph.h"
#include "src/report/record.h"
#include "src/tracer/backend.h"
#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/vm.h"

typedef struct Tracer Tracer;
typedef struct VT VT;
typedef struct Source Source;
typedef struct Tx Tx;
typedef struct CompileOptions CompileOptions;
/* TX_RAISE: an exception made in the region was raised (Tracer.raised) and no handler of the
 * translator caught it yet (exceptions.c). */
typedef enum TxStatus { TX_OK = 0, TX_BREAK = 1, TX_RAISE = 2, TX_ERROR = -1 } TxStatus;

/* ==== types ===================================================================================== */

typedef struct TraceArenaBlock TraceArenaBlock;
typedef struct TraceArena {
    TraceArenaBlock *head;
} TraceArena;

/* ---- sources ---------------------------------------------------------------------------------- */

typedef enum SourceKind {
    SRC_LOCAL,        /* a fast local of the traced frame: index = slot, name */
    SRC_GLOBAL,       /* frame globals (then builtins): name */
    SRC_ATTR,         /* base.name, read statically (instance dict / nn.Module dicts / class) */
    SRC_ITEM,         /* base[key], key a constant (int or str) */
    SRC_CLOSURE,      /* contents of the frame function's closure cell: index = free index */
    SRC_OBJECT,       /* an object held by reference (key), labelled name: a module hook the
                         traced module call runs (its dicts are guarded unchanged) */
} SourceKind;

struct Source {
    SourceKind kind;
    Source *base;
    int32_t index;
    StrObj *name;     /* local/global/attr name (kept alive by the keepalive list) */
    Value key;        /* SRC_ITEM */
    const char *repr; /* L['self'].lin.weight, computed once */
};

/* ---- variable trackers -------------------------------------------------------------------------- */

typedef enum VtKind {
    VT_NULLV,         /* the NULL a call site pushes below a plain callable */
    VT_CONST,         /* None, bool, int, float, str, bytes, Ellipsis, code, range, tuple of consts, dtype... */
    VT_TENSOR,        /* node: its graph node; fake: the fake TensorObj standing for it */
    VT_SYMNUM,        /* an unspecialized int/float read from an attribute or global: a lazy expression */
    VT_TUPLE,
    VT_LIST,
    VT_DICT,
    VT_SLICE,         /* items[3] */
    VT_ITER,          /* an iterator the tracer steps itself: what it iterates is `iter` (IterKind) */
    VT_OBJECT,        /* a user object: value (existing) or a new object created in the region */
    VT_FUNCTION,      /* a script function: value (existing) or a closure made in the region (code + cells) */
    VT_METHOD,        /* bound method: a = self, b = function */
    VT_NATIVE,        /* a native callable (builtins, torch functions, tensor methods unbound) */
    VT_TYPE,          /* a class */
    VT_MODULE,        /* a Python module object */
    VT_NN_MODULE,     /* an existing torch.nn.Module (specialised on identity) */
    VT_CELL,          /* a closure cell: existing (value) or new */
    VT_GRAD_MODE,     /* torch.no_grad()/enable_grad()/set_grad_enabled(b) object: flag = target mode */
    VT_HANDLE,        /* RemovableHandle of a hook registered in the region */
    VT_SUPER,         /* super(): a = self, value = the class it was called in */
    VT_DELETED,       /* a deleted attribute (side effects) */
    VT_OPAQUE,        /* an object the tracer only passes around (guarded by identity) */
    VT_LAZY,          /* an item of an existing container not looked at yet: value + source; a =
                         its tracker once vt_force made it (guards are installed only then) */
    VT_LAZY_LIST,     /* an existing list (with a source) whose contents the region has not read:
                         items = what the region appended (replayed as extend()); anything else
                         forces it (vt_force: a = the VT_LIST, its length guarded only then) */
    VT_DICT_VIEW,     /* d.keys() / d.values() / d.items(): a = the dict's VT, index = DictViewKind; a
                         live view (what it yields is read from the dict when it is used) */
    VT_GENERATOR,     /* a generator made in the region: gen = its translator, run a step per next() */
    VT_SET,           /* a set: items[n] = its members (sets.c); value: the existing set; shadow: a real
                         set of the same constants giving CPython's order (VAL_NULL: unknown) */
    VT_EXCEPTION,     /* an exception made in the region: cls = its class, a = its args tuple */
    VT_PARTIAL,       /* functools.partial (partial.c): a = func, b = args tuple, kw = keywords dict,
                         cls = its type; value + source: an existing one */
    VT_FN_CTX,        /* the ctx of a custom autograd.Function being traced (autograd_fn.c): fnctx;
                         its attributes are keys/items[n] */
} VtKind;

typedef enum DictViewKind { DICT_VIEW_KEYS, DICT_VIEW_VALUES, DICT_VIEW_ITEMS } DictViewKind;

/* What a custom Function's ctx recorded (autograd_fn.c). */
typedef struct FnCtxInfo {
    const char *name;        /* the Function class's name */
    int32_t n_args;
    bool *needs_input_grad;  /* per argument of apply */
    VT **saved;              /* save_for_backward's arguments: tensors or None */
    GraphNode **saved_nodes; /* their nodes when saved */
    int32_t n_saved;
    VT **dirty, **non_diff;
    int32_t n_dirty, n_non_diff;
    bool materialize;
    bool in_backward;        /* the backward is being traced: saved_tensors reads bw_saved */
    VT **bw_saved;           /* the saved tensors as the backward graph's placeholders */
    VT **grads;              /* the backward's gradient arguments (set_materialize_grads(False):
                                testing one for None is a break) */
    int32_t n_grads;
} FnCtxInfo;

/* A graph the tracer records into in place of the frame's (a custom Function's backward): tensors
 * of the frame's graph that it uses become its placeholders, "lifted" (fake.c). */
typedef struct SubGraph {
    Graph *graph, *outer;
    GraphNode **outer_nodes; /* lifted, in placeholder order */
    GraphNode **placeholders;
    int32_t n_lifted, cap_lifted;
    bool once_differentiable;   /* the backward may read grad mode (its wrapper does) */
    FnCtxInfo *ctx;          /* the Function whose backward it is */
} SubGraph;

/* What a VT_ITER iterates; index counts the items it gave.  Iterators over a dict read it at each
 * step (and break if its size changed, so eager raises); the others are lazy over their
 * arguments' iterators, stepped as CPython steps them. */
typedef enum IterKind {
    ITER_SEQ,         /* a = the tuple or list */
    ITER_DICT,        /* a = the VT_DICT; view = what it yields; size = its size when iteration began */
    ITER_ENUMERATE,   /* a = the iterator, b = the start (a constant) */
    ITER_ZIP,         /* items[n] = the iterators */
    ITER_MAP,         /* b = the function, items[n] = the iterators */
    ITER_FILTER,      /* b = the predicate (None: truthiness), a = the iterator */
    ITER_SET,         /* a = the members in order, b = the VT_SET; size = its size when iteration began */
} IterKind;

typedef enum SymOp {
    SYM_LEAF,         /* loaded from `source` */
    SYM_BINOP,        /* a op b (BinaryOp in index) */
    SYM_CMP,          /* a cmp b (CompareOp in index) */
    SYM_NEG,
    SYM_POS,
    SYM_NOT,
    SYM_STR,          /* str(a) */
    SYM_INT,
    SYM_FLOAT,
    SYM_ABS,
    SYM_ROUND,        /* round(a) or round(a, b) */
} SymOp;

/* Mutation identity (dynamo's mutable_local): shared by every VT standing for one object. */
typedef enum MutKind { MUT_NONE, MUT_EXISTING, MUT_NEW } MutKind;

struct VT {
    VtKind kind;
    Source *source;      /* where residual code and guards find it (NULL: made in the region) */
    Value value;         /* the real value: constant, existing object, function, native, type... */
    /* tensors */
    GraphNode *node;
    Value fake;          /* TensorObj of the fake tensor (tensor VTs) */
    /* containers: tuple/list items, dict values (keys in keys[]), slice parts */
    VT **items;
    VT **keys;
    int32_t n, cap;
    /* composite */
    VT *a, *b;           /* method self/function; symnum operands; iterator sequence; super self */
    VT *kw;              /* VT_PARTIAL: its keywords dict */
    FnCtxInfo *fnctx;    /* VT_FN_CTX */
    VT *twin;            /* a symbolic number fed to the graph: its wrapped-number tensor input */
    int32_t index;       /* SymOp operand; iterator position; handle hook index */
    IterKind iter;       /* VT_ITER */
    DictViewKind view;   /* VT_ITER over a dict: keys, values or items */
    int32_t size;        /* VT_ITER over a dict: its size when iteration began */
    Tx *gen;             /* VT_GENERATOR */
    Value shadow;        /* VT_SET */
    SymOp sym;
    bool flag;           /* grad mode target; handle removed */
    /* side effects */
    MutKind mut;
    bool modified;       /* list/dict contents changed in the region */
    VT *cls;             /* VT_OBJECT new: its class VT */
    /* new closures */
    Value code;          /* CodeObj of a function made in the region */
    VT *defaults, *kwdefaults, *closure;   /* tuple VTs or NULL */
    /* codegen */
    int32_t temp_slot;   /* residual local holding it once built (-1: none) */
    int32_t refs;        /* times the residual code needs it (codegen's counting pass) */
    bool building;       /* codegen: being built (cycle check) */
    int32_t graph_input; /* index of its placeholder (tensors/symnums fed to the graph), -1 */
    StrObj *user_name;   /* handles: the variable name the user stored it in */
};

/* ---- guards ------------------------------------------------------------------------------------- */

typedef enum GuardKind {
    G_TYPE,           /* type(v) is expected type */
    G_ID,             /* v is expected object */
    G_EQUALS,         /* type(v) is type(expected) and v == expected (immediates, str) */
    G_TENSOR,         /* tensor: dtype, shape, strides, requires_grad, Parameter or not */
    G_LEN,            /* list/tuple/dict length */
    G_DICT_KEYS,      /* dict has exactly these keys in this order (a tuple of str/int) */
    G_HASATTR,        /* static attribute present (flag true) or absent */
    G_GRAD_MODE,      /* ambient grad mode == expected bool */
    G_SAME,           /* v is the value of another source (aliasing) */
    G_NOT_SAME,       /* v is not the value of another source */
    G_HOOKS_EMPTY,    /* an nn.Module hook dict (by attribute name) is empty */
    G_NN_NO_HOOKS,    /* calling the nn.Module would run no hook (its own dicts and the global ones) */
    G_NN_HOOKS,       /* ... would run exactly the hooks in `expected` (torch_module_hooks_snapshot) */
    G_BACKEND,        /* the compiled call in progress uses the same backend (expected: its callable or None) */
    G_DICT_VERSION_OBJ, /* v's instance attribute count unchanged (cheap check of new attributes) */
    G_STORAGE_OFFSET, /* tensor v's storage offset == n (only when the trace read it) */
    G_SAVED_HOOKS,    /* saved-tensor hooks are active (flag) or not, as when the entry was traced */
    G_DEFAULT_DTYPE,  /* torch.get_default_dtype() is the one the entry was traced under (expected:
                         the dtype number): factories and Python-float promotion use it */
    G_AUTOCAST,       /* CPU autocast is as when traced (expected: its dtype number, or -1 when off):
                         the traced graph holds the casts autocast made, or none */
    G_ABSENT,         /* the source reads nothing: a dict lacks the key (another module's globals
                         lack a name its function read from the builtins, so no global shadows it) */
} GuardKind;

typedef struct Guard {
    GuardKind kind;
    Source *source;           /* copied into the entry's own arena when the entry is built */
    Source *other;            /* G_SAME / G_NOT_SAME */
    Value expected;           /* type/object/constant/keys tuple */
    TensorMeta meta;          /* G_TENSOR */
    bool requires_grad, is_param, flag;
    StrObj *name;             /* G_HASATTR / G_HOOKS_EMPTY */
    int64_t n;                /* G_LEN */
    int32_t line;             /* user line that made the guard */
    const TracerBackend *backend;  /* G_BACKEND */
} Guard;

/* ---- side effects ------------------------------------------------------------------------------- */

typedef struct AttrStore {
    VT *obj;              /* object / global-namespace marker / cell */
    StrObj *name;
    VT *value;            /* VT_DELETED for deletions */
    int32_t line;
} AttrStore;

typedef struct HookReg {
    VT *tensor;           /* a sourced tensor */
    VT *hook;             /* the callable */
    VT *handle;           /* its VT_HANDLE */
    int32_t line;
    bool removed;
} HookReg;

typedef struct SideEffects {
    VT **tracked;         /* existing mutables (lists, dicts, objects, cells) and new objects, in order */
    int32_t n_tracked, cap_tracked;
    AttrStore *stores;    /* attribute/global/cell stores in program order */
    int32_t n_stores, cap_stores;
    HookReg *hooks;
    int32_t n_hooks, cap_hooks;
    int32_t n_mutations;      /* changes to objects that exist outside the region (stores, hooks,
                                 container changes): a custom Function's forward/backward may make none */
    bool grad_mode_changed;   /* the region ends in a different grad mode than it started */
    bool final_grad_mode;
} SideEffects;

/* ---- the translator (one per frame being traced, inlined calls included) ------------------------ */

struct Tx {
    Tx *parent;               /* caller of an inlined function (NULL: the root frame) */
    CodeObj *code;
    FunctionObj *func;        /* may be NULL for the root when tracing a resume function... always set */
    DictObj *globals;
    VT **locals;              /* nlocalsplus: locals, cells, free vars (cell VTs) */
    VT **stack;
    int32_t sp, stack_cap;
    int32_t ip;               /* current instruction */
    int32_t depth;            /* inlining depth */
    TupleObj *kwnames;        /* pending KW_NAMES */
    VT *return_value;         /* set by RETURN_VALUE */
    bool done;
    /* a generator's translator: stopped at a YIELD_VALUE with the value it yields */
    bool suspended;
    VT *yielded;
};

/* The symbolic stack: every handler pushes and pops, so these stay inline. */
static inline void tx_push(Tx *tx, VT *v) {
    EM_ASSERT(tx->sp < tx->stack_cap, "tracer: symbolic stack overflow");
    tx->stack[tx->sp++] = v;
}

static inline VT *tx_pop(Tx *tx) {
    EM_ASSERT(tx->sp > 0, "tracer: symbolic stack underflow");
    return tx->stack[--tx->sp];
}

/* Why tracing stopped: a graph break (with its reason), or an error to propagate. */
typedef struct BreakInfo {
    char reason[256];
    int32_t root_ip;          /* instruction of the root frame where the break happens */
    int32_t line;
    char file[256];
    char func[128];
    /* the user traceback, outermost (the root frame) first: the inlined calls the break is in
     * (valid until the trace ends, while the translators' code objects are kept alive) */
    struct { CodeObj *code; int32_t line; } tb[8];
    int32_t n_tb;
} BreakInfo;

/* Which part of the residual code emitted an instruction (codegen.c), for the logs and report. */
typedef struct TraceTag {
    uint8_t phase;            /* RpPhase */
    int32_t effect;           /* side-effect row, or -1 */
} TraceTag;

/* ---- the compiled graph function (__compiled_fn_N) ------------------------------------------------ */

typedef struct CompiledGraph {
    Graph *graph;
    void *artifact;           /* the backend's compiled form */
    const TracerBackend *backend;
    int32_t n_inputs;
    int32_t n_outputs;
    Value user_backend;       /* a callable backend's compiled callable, else VAL_NULL */
    /* some node was recorded with grad mode on: when residual code calls the graph with the mode
     * off (the region switched it on, e.g. leaving a no_grad block it resumed inside), the call
     * runs with it on, and the nodes recorded with it off keep it off (GraphNode.no_grad) */
    bool has_grad_nodes;
} CompiledGraph;

/* ---- the tracer (one per frame compilation) ----------------------------------------------------- */

struct CompileOptions {
    const TracerBackend *backend;
    Value user_backend;       /* callable backend, or VAL_NULL */
    bool fullgraph;
};

struct Tracer {
    VM *vm;
    TraceArena arena;
    ListObj *keepalive;       /* rooted by keepalive_root */
    ExtRoot *keepalive_root;
    Frame *frame;             /* the real frame being compiled (for source values) */
    CodeObj *code;
    Tx *root;
    Tx *tx;                   /* innermost translator */
    const CompileOptions *opts;
    /* graph */
    Graph *graph;
    int32_t n_graph_inputs;
    VT **input_vts;           /* VT of each placeholder, in placeholder order */
    int32_t cap_inputs;
    /* fake tensors: Tensor* -> VT (open addressing) */
    Tensor **fake_keys;
    VT **fake_vals;
    int32_t fake_cap, fake_len;
    int32_t ops_in_call;      /* ops the observer recorded during the current native call */
    GraphNode *first_call_node;
    bool observer_failed;
    /* tensor_serial_newest() when the trace began: a real tensor an op meets that is older and not
     * tracked came from outside by a path with no source and no guard (fake.c) */
    uint64_t serial_at_start;
    SubGraph *sub;            /* recording a custom Function's backward (tr->graph is sub->graph) */
    /* guards, side effects */
    Guard *guards;
    int32_t n_guards, cap_guards;
    SideEffects se;
    VT *globals_vt;           /* marker object for STORE_GLOBAL side effects */
    /* breaks and restarts */
    int32_t break_at;         /* root ip to stop at (-1: none) */
    /* a break inside grad-mode `with` blocks: the root stack slots of their __exit__s, innermost
     * first (frame.c finds them; codegen protects the breaking instruction with them) */
    int32_t with_exit_slot[8];
    int32_t n_with_exits;
    /* the code after the break inspects the autograd graph of a graph output (`y.grad_fn`):
     * the graph's autograd nodes must be eager's (Graph.eager_autograd); kept across restarts */
    bool eager_autograd;
    BreakInfo brk;
    bool have_break;
    bool grad_mode_at_entry;
    bool saved_hooks_at_entry;   /* saved-tensor hooks were active when the trace began */
    int default_dtype_at_entry;  /* torch.get_default_dtype() when the trace began */
    int autocast_at_entry;       /* CPU autocast dtype when the trace began, -1: off */
    int32_t module_depth;     /* nn.Module forwards being inlined */
    GraphModuleFrame module_stack[32];   /* their keys ("L['self'].body[0]") and class names */
    const char *entered[256];            /* every module forward inlined, in order (exec order) */
    int32_t n_entered;
    char errbuf[256];         /* why codegen failed */
    VT *raised;               /* TX_RAISE: the exception in flight */
    VT *handled;              /* the exception being handled (PUSH_EXC_INFO), NULL: as on entry */
    /* the logs or the report record this compile: codegen tags each residual instruction */
    bool want_tags;
    TraceTag *res_tags;       /* by instruction index of the residual code (malloc'd) */
    int32_t n_res_tags;
};

/* ==== functions, by file, bottom first ========================================================== */

/* ---- base.c: the floor -------------------------------------------------------------------------- */

void *trace_arena_alloc(TraceArena *a, size_t n);   /* zeroed */
char *trace_arena_strdup(TraceArena *a, const char *s);
void trace_arena_free(TraceArena *a);
/* Keep a VM value alive until the trace ends (the keepalive list, an external GC root). */
void trace_keep(Tracer *tr, Value v);
/* A name that lives as long as the VM (interned). */
const char *trace_persistent_name(VM *vm, const char *name);
/* Record a graph break with its reason and the user's file, line and function (the first
 * break of a trace wins): TX_BREAK. */
TxStatus trace_break(Tracer *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A VM exception is pending and must propagate (fullgraph etc.): TX_ERROR. */
TxStatus trace_error(Tracer *tr);
/* The user line of the instruction being traced (innermost inlined frame). */
int32_t trace_current_line(Tracer *tr);
/* The options of the compiled call in progress (or of --compile-all). */
const CompileOptions *trace_current_options(VM *vm);
/* The stripped source text of a line of co's file ("" if unavailable).  Logging itself
 * (trace_log_enabled, trace_log_printf, trace_logs_set) is declared in backend.h: the runtime
 * logs through it too. */
void trace_source_line(CodeObj *co, int line, char *buf, size_t cap);

/* ---- decompile.c -------------------------------------------------------------------------------- */

void tracer_decompile(VM *vm, const CodeObj *co, FILE *out);

/* ---- registry.c: what a value is, by identity ---------------------------------------------------- */

const char *tracer_torch_native_name(VM *vm, Value f);   /* "torch.relu", or NULL */
bool tracer_is_pure_native(VM *vm, Value f);              /* math.* and the like */
bool tracer_is_grad_mode_class(VM *vm, Value v, const char **which);
/* Whether f is one of residual code's grad-mode restorers (and which mode it sets). */
bool tracer_is_grad_restorer(VM *vm, Value f, bool *mode);
/* torch.nn.Module, once torch.nn is imported (NULL before). */
TypeObj *tracer_nn_module_type(VM *vm);
bool tracer_is_nn_module(VM *vm, Value v);
bool tracer_global_module_hooks(VM *vm);                  /* any global nn.Module hook registered */
bool tracer_fx_tracing(VM *vm);                           /* torch.fx's symbolic tracing is running */
/* The function torch.compile(fn) wraps, if v is what it returned; else VAL_NULL.  A compiled
 * function called from a traced region is inlined, as dynamo inlines nested compiles. */
Value tracer_compiled_fn_wrapped(VM *vm, Value v);

/* ---- source.c ----------------------------------------------------------------------------------- */

Source *source_local(Tracer *tr, int slot, StrObj *name);
Source *source_global(Tracer *tr, StrObj *name);
Source *source_attr(Tracer *tr, Source *base, StrObj *name);
Source *source_item(Tracer *tr, Source *base, Value key);
Source *source_closure(Tracer *tr, int index, StrObj *name);
Source *source_object(Tracer *tr, Value obj, const char *label);
const char *source_repr(Tracer *tr, Source *s);          /* "L['x']" */
void source_repr_buf(const Source *s, char *buf, size_t cap);
void source_placeholder_name(Source *s, char *buf, size_t cap);   /* "L_x_" */
bool source_equal(const Source *a, const Source *b);
/* Resolve a source against a running frame without calling script code or allocating: the
 * value, or VAL_NULL if it cannot be read statically (missing attribute, out of range...). */
Value source_resolve_static(VM *vm, Frame *f, const Source *s);
/* Static attribute read shared by sources, guards and the tracer: instance dict (unless the
 * class has a data descriptor of that name), nn.Module parameter/buffer/module dicts, then the
 * class MRO (unbound).  VAL_NULL if absent. */
Value trace_static_getattr(VM *vm, Value obj, StrObj *name);

/* ---- guards.c ----------------------------------------------------------------------------------- */

void guard_add(Tracer *tr, Guard g);
void guard_type(Tracer *tr, Source *s, TypeObj *t);
void guard_id(Tracer *tr, Source *s, Value v);
void guard_equals(Tracer *tr, Source *s, Value v);
void guard_tensor(Tracer *tr, Source *s, Tensor *t, bool is_param);
void guard_storage_offset(Tracer *tr, Source *s, int64_t offset);
void guard_len(Tracer *tr, Source *s, int64_t n);
void guard_dict_keys(Tracer *tr, Source *s, DictObj *d);
void guard_hasattr(Tracer *tr, Source *s, StrObj *name, bool present);
void guard_absent(Tracer *tr, Source *s);
bool guard_check(VM *vm, Frame *f, const Guard *g);
bool guard_check_values(VM *vm, const Guard *g, Value v, Value other);
/* One-line description ("tensor 'x' size mismatch at index 0. expected 3, actual 4") of why g
 * fails for frame f, or NULL if it passes. */
int tracer_autocast_state(VM *vm);   /* CPU autocast dtype, -1 when off (G_AUTOCAST) */
const char *guard_failure(VM *vm, Frame *f, const Guard *g, char *buf, size_t cap);
void guard_format(Tracer *tr, const Guard *g, char *buf, size_t cap);

/* ---- side_effects.c ----------------------------------------------------------------------------- */

VT *se_track_existing(Tracer *tr, VT *v);        /* dedupes by identity of v->value */
VT *se_find_existing(Tracer *tr, Value obj);
void se_track_new(Tracer *tr, VT *v);
void se_store_attr(Tracer *tr, VT *obj, StrObj *name, VT *value);
/* Pending value of obj.name stored in the region, or NULL. */
VT *se_load_attr(Tracer *tr, VT *obj, StrObj *name);
void se_store_global(Tracer *tr, StrObj *name, VT *value);
VT *se_load_global(Tracer *tr, StrObj *name);
void se_mark_modified(Tracer *tr, VT *container);
int se_register_hook(Tracer *tr, VT *tensor, VT *hook, VT *handle);
bool se_is_empty(Tracer *tr);
/* Dynamo's prune_dead_object_new: new objects no live value reaches are dropped. */
void se_prune_dead(Tracer *tr);
/* The rows of the side-effects table (logs, report, codegen's instruction tags): the modified
 * tracked containers in tracking order, then the stores in program order, then the hooks. */
int32_t se_row_of_tracked(const SideEffects *se, int i);
int32_t se_row_of_store(const SideEffects *se, int i);
int32_t se_row_of_hook(const SideEffects *se, int i);

/* ---- vt.c: trackers and translator frames as data -------------------------------------------------- */

/* a translator for code (tx_push / tx_pop are inline, with struct Tx) */
Tx *tx_new(Tracer *tr, CodeObj *code, FunctionObj *fn, DictObj *globals, Tx *parent);
VT *vt_new(Tracer *tr, VtKind kind);
void vt_reserve(Tracer *tr, VT *v, int32_t need);   /* room for `need` items (and keys) */
VT *vt_const(Tracer *tr, Value v);
VT *vt_none(Tracer *tr);
VT *vt_tuple(Tracer *tr, VT **items, int n);
VT *vt_list(Tracer *tr, VT **items, int n);
void vt_list_append(Tracer *tr, VT *list, VT *item);
void vt_list_insert(Tracer *tr, VT *list, int64_t i, VT *item);
void vt_list_remove_at(VT *list, int64_t i);
VT *vt_dict(Tracer *tr);
/* Dict keys are constants (compared by value) or objects (by identity). */
int vt_dict_find(Tracer *tr, VT *d, VT *key);
void vt_dict_set(Tracer *tr, VT *d, VT *key, VT *value);
void vt_dict_del_at(VT *d, int i);
int vt_set_find(Tracer *tr, VT *s, VT *member);   /* index in items, -1 */
bool vt_is_const(const VT *v);
bool vt_is_const_of(Tracer *tr, const VT *v, TypeObj *t);
const char *vt_kind_name(VtKind k);
VT *vt_lazy(Tracer *tr, Value v, Source *source);
VT *vt_iter(Tracer *tr, IterKind kind);
/* Records list.append(item) on a VT_LAZY_LIST that has not been read (false otherwise). */
bool vt_lazy_list_append(Tracer *tr, VT *lazy, VT *item);

/* ---- fake.c: fake tensors ------------------------------------------------------------------------ */

int fake_begin(Tracer *tr);
void fake_end(Tracer *tr);
VT *fake_lookup(Tracer *tr, Tensor *t);
bool fake_is_tensor_value(Tracer *tr, Value v);
void tracer_add_input(Tracer *tr, VT *v);   /* append to the graph inputs (placeholder order) */
/* A graph input for a real tensor read from `source`. */
VT *fake_input_tensor(Tracer *tr, Value real, Source *source);
/* A graph input for a symbolic number (fed as a wrapped-number tensor). */
VT *fake_input_symnum(Tracer *tr, VT *sym);
/* n as the graph being recorded sees it: while a backward is recorded into a subgraph, a node of
 * the frame's graph becomes (once) a placeholder of the subgraph. */
GraphNode *fake_sub_node(Tracer *tr, GraphNode *n);
/* The fake tensor t now stands for v (a custom Function's dirty argument takes its output's fake). */
void fake_remap(Tracer *tr, Tensor *t, VT *v);
/* A non-tensor graph input (a hook callable): its placeholder. */
GraphNode *tracer_graph_object_input(Tracer *tr, VT *v);
/* The trace read the storage offset of fake (storage_offset()): guard the offset of the graph
 * input whose storage it views. */
void fake_guard_storage_offset(Tracer *tr, Tensor *fake);
/* A tensor VT for an output the tracer computed itself (a custom op's): a fake with metadata m
 * (with history when requires_grad) mapped to node.  NULL with a VM exception. */
VT *fake_output_tensor(Tracer *tr, GraphNode *node, const TensorMeta *m, bool requires_grad);
/* nn_module_stack metadata of the nodes recorded while a module's forward is inlined. */
void tracer_module_stack_push(Tracer *tr, VT *m, TypeObj *t);
void tracer_module_stack_pop(Tracer *tr);
/* A new node's grad mode, user line and nn_module_stack, from where the trace is. */
void tracer_node_provenance(Tracer *tr, GraphNode *n);
/* The recording window of a native call: the op observer records each top-level op as a graph
 * node and the tensor library runs in meta mode. */
void fake_record_begin(Tracer *tr);
void fake_record_end(Tracer *tr);
/* A tensor a native returned while tracing, as its tracker. */
VT *fake_tensor_result(Tracer *tr, Value v);

/* ---- wrap.c: trackers <-> real values ------------------------------------------------------------ */

/* Wrap a real value read from `source` (may be NULL for constants) into a VT, installing the
 * guards its kind needs. */
VT *vt_from_value(Tracer *tr, Value v, Source *source);
VT *vt_force(Tracer *tr, VT *v);                     /* the tracker a lazy VT stands for */
VT *vt_item(Tracer *tr, VT *container, int i);        /* items[i], forced and stored back */
/* A VT as a real value to pass to a native: constants, fake tensors, existing objects;
 * containers are rebuilt from their items.  VAL_NULL (and *why set) if it has no such value. */
Value vt_to_value(Tracer *tr, VT *v, const char **why);
/* A VT that is a constant, or a tuple/list of constants (recursively): its value as a VM value
 * (built now; kept alive).  VAL_NULL if not constant. */
Value vt_as_constant(Tracer *tr, VT *v);
/* The Python type the tracked value has (for isinstance / type()); NULL if unknown. */
TypeObj *vt_python_type(Tracer *tr, VT *v);
/* Specialise a symbolic number on its current value (guards its leaves). */
VT *tr_specialize(Tracer *tr, VT *v);
/* A value a native call returned during tracing (fake tensors become their nodes). */
VT *vt_from_result(Tracer *tr, Value v);

/* ---- fake_call.c: natives on fakes -------------------------------------------------------------- */

/* Call a native (torch function, tensor method, operator) on fake arguments. */
TxStatus fake_call(Tracer *tr, Value callable, int argc, Value *argv, TupleObj *kwnames, const char *target,
                   VT **out);
/* The same with tracker arguments (symbolic numbers become graph inputs) and the call view's
 * kind (call_function / call_method) and printed target. */
TxStatus fake_call_vts(Tracer *tr, Value callable, int argc, VT **argv, TupleObj *kwnames, GraphNodeKind kind,
                       const char *target, VT **out);
/* Operators, indexing and attributes on fakes (the VM's own protocols run on fake values). */
TxStatus fake_binary(Tracer *tr, int op, VT *a, VT *b, VT **out);
TxStatus fake_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out);
TxStatus fake_unary(Tracer *tr, int opcode, VT *a, VT **out);
TxStatus fake_getitem(Tracer *tr, VT *c, VT *k, VT **out);
TxStatus fake_setitem(Tracer *tr, VT *c, VT *k, VT *v);
TxStatus fake_getattr(Tracer *tr, VT *t, StrObj *name, VT **out);

/* ---- marker.c, node_run.c: node payloads and what nodes do (declared in backend.h) --------------- */

/* ---- custom_ops.c -------------------------------------------------------------------------------- */

/* A call of a custom op (torch.ops.<ns>.<name>) into a GRAPH_EXEC_CUSTOM_OP node. */
TxStatus tracer_custom_op_call(Tracer *tr, const TraceOp *op, int argc, VT **args, TupleObj *kwnames, VT **out);

/* ---- the symbolic interpreter: ops.c attrs.c builtins.c calls.c exceptions.c partial.c autograd_fn.c
 * sets.c module_hooks.c symbolic.c (the one circle) ---- */

/* ops.c: the data model on trackers */
TxStatus tr_binary(Tracer *tr, int op, VT *a, VT *b, VT **out);
TxStatus tr_unary(Tracer *tr, int opcode, VT *a, VT **out);
TxStatus tr_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out);
TxStatus tr_truthy(Tracer *tr, VT *v, int *out);     /* 1/0, or break */
TxStatus tr_getitem(Tracer *tr, VT *c, VT *k, VT **out);
TxStatus tr_setitem(Tracer *tr, VT *c, VT *k, VT *v);
TxStatus tr_delitem(Tracer *tr, VT *c, VT *k);
TxStatus tr_iter(Tracer *tr, VT *v, VT **out);
TxStatus tr_next(Tracer *tr, VT *it, VT **out);     /* *out NULL: exhausted */
/* What iterating v yields from here on, as a tuple (an iterator is consumed). */
TxStatus tr_iter_items(Tracer *tr, VT *v, VT **out);
TxStatus tr_contains(Tracer *tr, VT *item, VT *container, int *out);
TxStatus tr_unpack(Tracer *tr, VT *seq, int n, VT **out);   /* out[0..n) in order */

/* attrs.c */
TxStatus tr_getattr(Tracer *tr, VT *obj, StrObj *name, VT **out);
TxStatus tr_getattr_opt(Tracer *tr, VT *obj, StrObj *name, VT **out);   /* *out NULL: absent */
TxStatus tr_load_method(Tracer *tr, VT *obj, StrObj *name, VT **meth, VT **self);
TxStatus tr_setattr(Tracer *tr, VT *obj, StrObj *name, VT *value);
TxStatus tr_delattr(Tracer *tr, VT *obj, StrObj *name);
/* The sub-modules of an nn.Module (ModuleList, Sequential), in order, as a tuple. */
TxStatus tr_module_children(Tracer *tr, VT *m, VT **out);

/* builtins.c: builtins and builtin types evaluated on trackers */
TxStatus tracer_builtin_call(Tracer *tr, NativeObj *n, int argc, VT **args, TupleObj *kwnames, VT **out);
TxStatus tracer_builtin_type_call(Tracer *tr, TypeObj *t, int argc, VT **args, TupleObj *kwnames, VT **out,
                                  bool *handled);
TxStatus tr_callable(Tracer *tr, VT *v, int *out);   /* callable(v) */

/* calls.c: calls (user code inlined); m(*args) traced as the module's forward inlined (module
 * stack kept) */
TxStatus tr_call(Tracer *tr, VT *fn, int argc, VT **args, TupleObj *kwnames, VT **out);
TxStatus tr_generator_next(Tracer *tr, VT *gen, VT **out);   /* *out NULL: exhausted */
TxStatus tracer_module_forward(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out);

/* exceptions.c: exceptions raised and caught in the region */
TxStatus tr_exception_new(Tracer *tr, VT *cls, int argc, VT **args, TupleObj *kwnames, VT **out);
TxStatus tr_exception_init(Tracer *tr, VT *e, int argc, VT **args, VT **out);
bool tr_is_exception_class(Tracer *tr, VT *v);
TxStatus tr_raise(Tracer *tr, VT *exc, VT *cause);   /* TX_RAISE (or a break) */
bool tr_catch(Tracer *tr, Tx *tx, int32_t ip);
TxStatus tr_exc_match(Tracer *tr, VT *exc, VT *type, int *out);

/* partial.c: functools.partial on trackers */
TxStatus tr_partial_construct(Tracer *tr, VT *type, int argc, VT **args, TupleObj *kwnames, VT **out);
TxStatus tr_partial_call(Tracer *tr, VT *p, int argc, VT **args, TupleObj *kwnames, VT **out);
TxStatus tr_partial_getattr(Tracer *tr, VT *p, StrObj *name, VT **out);

/* autograd_fn.c: custom autograd.Function calls traced into the graph */
TxStatus tr_autograd_function_apply(Tracer *tr, int argc, VT **args, int nkw, VT **out);
TxStatus tr_fn_ctx_getattr(Tracer *tr, VT *ctx, StrObj *name, VT **out);
TxStatus tr_fn_ctx_setattr(Tracer *tr, VT *ctx, StrObj *name, VT *value);
TxStatus tr_fn_ctx_method(Tracer *tr, VT *ctx, StrObj *name, int argc, VT **args, VT **out);
/* A gradient argument of a backward being traced whose None-ness matters: a break (TX_OK else). */
TxStatus tr_fn_grad_none_test(Tracer *tr, VT *v);

/* sets.c: sets on trackers */
VT *tr_set_new(Tracer *tr);
TxStatus tr_set_add(Tracer *tr, VT *s, VT *member);
TxStatus tr_set_from_iterable(Tracer *tr, VT *iterable, VT **out);   /* set(iterable); iterable NULL: set() */
TxStatus tr_set_items(Tracer *tr, VT *s, VT **out);   /* its members in iteration order, as a tuple */
TxStatus tr_set_binary(Tracer *tr, int op, VT *a, VT *b, VT **out);
TxStatus tr_set_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out);
TxStatus tr_set_contains(Tracer *tr, VT *item, VT *s, int *out);
TxStatus tr_set_method(Tracer *tr, VT *s, StrObj *name, int argc, VT **args, VT **out);

/* module_hooks.c: a module call when the module or the global module hooks are set */
TxStatus tracer_module_call_hooked(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out);

/* symbolic.c: the loop (run a translator frame until return, yield or break) */
TxStatus tx_run(Tracer *tr, Tx *tx);

/* ---- cache.c (tracer_state.h) ------------------------------------------------------------------- */

/* ---- resume.c ----------------------------------------------------------------------------------- */

/* The function that continues the traced code at `target` with a stack of `depth` values
 * (nullmask: the NULL slots, which are not arguments) and the live locals (slots) as
 * arguments; made once per shape and cached on the code object.  Installed in the frame's
 * globals under *name_out when it needs no closure. */
Value tracer_resume_function(Tracer *tr, int32_t target, int depth, uint64_t nullmask, const int32_t *live, int n_live,
                             StrObj **name_out);
/* Which plain locals may be read before being written on some path from `target` (live[] has
 * nlocals entries). */
void tracer_live_locals(const CodeObj *co, int32_t target, bool *live);

/* ---- output.c ----------------------------------------------------------------------------------- */

/* Finish the graph (outputs, DCE, verify) and compile it: the CompiledGraph holder object, or
 * VAL_NULL + exception; then the __compiled_fn_N callable around it. */
Value trace_compile_graph(Tracer *tr, VT **outputs, int n_outputs, const char *name);
Value trace_graph_fn_new(VM *vm, Value cg_obj, const char *name);
CompiledGraph *tracer_compiled_graph_holder(Value cg_obj);
CompiledGraph *tracer_compiled_graph_of(Value fn);    /* NULL if fn is not a __compiled_fn */
/* A torch.fx-style GraphModule object for callable backends and explain(). */
Value tracer_graph_module_new(VM *vm, Value cg_obj);
Value tracer_example_inputs(Tracer *tr);

/* ---- codegen.c ---------------------------------------------------------------------------------- */

CodeObj *trace_codegen_residual(Tracer *tr, Value *compiled_fn_out, StrObj **compiled_name_out);

/* ---- logs.c, guard_program.c, frame.c, compiled_fn.c, dynamo_module.c (tracer_state.h) ----------- */

#endif
