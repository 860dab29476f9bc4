/* src/graph/graph.c — graph construction, editing and verification (ember/graph.h).  Names are
 * made unique the way torch.fx does it: the hint, then hint_1, hint_2, ... */
#include "ember/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_GRAPH_ASSERT(c)                                                                   \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "%s:%d: graph IR assertion failed: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* ---- small helpers ---------------------------------------------------------------------------- */

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "ember: out of memory in the graph IR\n");
        abort();
    }
    return p;
}

static char *xstrdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = xcalloc(n, 1);
    memcpy(d, s, n);
    return d;
}

const char *graph_node_kind_name(GraphNodeKind k) {
    switch (k) {
    case GRAPH_PLACEHOLDER: return "placeholder";
    case GRAPH_GET_ATTR: return "get_attr";
    case GRAPH_CALL_FUNCTION: return "call_function";
    case GRAPH_CALL_METHOD: return "call_method";
    case GRAPH_CALL_MODULE: return "call_module";
    case GRAPH_OUTPUT: return "output";
    }
    return "?";
}

/* ---- opaque values ------------------------------------------------------------------------------ */

GraphOpaque *graph_opaque_new(void *ptr, void (*release)(void *), const char *repr) {
    GraphOpaque *o = xcalloc(1, sizeof *o);
    o->ptr = ptr;
    o->release = release;
    o->repr = xstrdup(repr ? repr : "<object>");
    o->refs = 1;
    return o;
}

void graph_opaque_incref(GraphOpaque *o) {
    if (o) o->refs++;
}

void graph_opaque_decref(GraphOpaque *o) {
    if (!o || --o->refs > 0) return;
    if (o->release) o->release(o->ptr);
    free(o->repr);
    free(o);
}

/* ---- custom autograd functions ------------------------------------------------------------------- */

static void autograd_fn_release(void *p) {
    GraphAutogradFn *f = p;
    free(f->name);
    free(f->arg_input);
    free(f->dirty);
    free(f->out_meta);
    graph_free(f->bwd);
    free(f);
}

GraphOpaque *graph_autograd_fn_new(GraphAutogradFn *f) {
    char repr[160];
    snprintf(repr, sizeof repr, "<autograd_function %s>", f->name ? f->name : "?");
    return graph_opaque_new(f, autograd_fn_release, repr);
}

const GraphAutogradFn *graph_autograd_fn_of(const GraphNode *n) {
    if (!n || n->exec.kind != GRAPH_EXEC_AUTOGRAD_FN || !n->exec.opaque || n->exec.opaque->release != autograd_fn_release)
        return NULL;
    return n->exec.opaque->ptr;
}

/* ---- names ---------------------------------------------------------------------------------------- */

/* An open-addressing set of the names in use. */
typedef struct NameEntry {
    char *name;
    long base_count;         /* entries "\x01<base>": fx's _Namespace._base_count[base] */
} NameEntry;

typedef struct GraphNameSet {
    NameEntry *slots;
    size_t cap, len;
} GraphNameSet;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static NameEntry *names_find(GraphNameSet *set, const char *name) {
    size_t mask = set->cap - 1;
    for (size_t i = hash_str(name) & mask;; i = (i + 1) & mask) {
        NameEntry *e = &set->slots[i];
        if (!e->name || strcmp(e->name, name) == 0) return e;
    }
}

static void names_grow(GraphNameSet *set) {
    NameEntry *old = set->slots;
    size_t old_cap = set->cap;
    set->cap = old_cap ? old_cap * 2 : 64;
    set->slots = xcalloc(set->cap, sizeof *set->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].name) *names_find(set, old[i].name) = old[i];
    free(old);
}

static NameEntry *names_add(GraphNameSet *set, const char *name) {
    if ((set->len + 1) * 2 > set->cap) names_grow(set);
    NameEntry *e = names_find(set, name);
    if (!e->name) {
        e->name = xstrdup(name);
        set->len++;
    }
    return e;
}

static bool names_has(GraphNameSet *set, const char *name) { return set->cap && names_find(set, name)->name; }

/* A Python identifier made from hint as fx's _Namespace does: each run of other characters
 * becomes one '_' (re.sub('[^0-9a-zA-Z_]+', '_')), then a leading digit gets a '_'. */
static void sanitize(const char *hint, char *out, size_t cap) {
    size_t j = 0;
    if (!hint || !*hint) hint = "node";
    if (*hint >= '0' && *hint <= '9' && j + 1 < cap) out[j++] = '_';
    bool in_run = false;
    for (const char *p = hint; *p && j + 1 < cap; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (ok) out[j++] = c;
        else if (!in_run) out[j++] = '_';
        in_run = !ok;
    }
    out[j] = 0;
}

/* Names torch.fx never gives a node: Python keywords, builtins, and the names generated code
 * refers to (fx's _custom_builtins). */
static const char *const illegal_names[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
    "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "None", "NoneType", "NotADirectoryError", "NotImplemented", "NotImplementedError",
    "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError",
    "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
    "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning",
    "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning",
    "ZeroDivisionError", "__build_class__", "__debug__", "__doc__", "__import__", "__loader__",
    "__name__", "__package__", "__spec__", "abs", "aiter", "all", "and", "anext", "any", "as",
    "ascii", "assert", "async", "await", "bin", "bool", "break", "breakpoint", "bytearray",
    "bytes", "callable", "chr", "class", "classmethod", "compile", "complex", "continue",
    "copyright", "credits", "def", "del", "delattr", "device", "dict", "dir", "divmod", "elif",
    "else", "enumerate", "eval", "except", "exec", "exit", "filter", "finally", "float", "for",
    "format", "from", "frozenset", "fx_pytree", "getattr", "global", "globals", "hasattr", "hash",
    "help", "hex", "id", "if", "import", "in", "inf", "input", "int", "is", "isinstance",
    "issubclass", "iter", "lambda", "len", "license", "list", "locals", "map", "max", "memoryview",
    "min", "nan", "next", "nonlocal", "not", "object", "oct", "open", "or", "ord", "pass", "pow",
    "print", "property", "pytree", "quit", "raise", "range", "repr", "return", "reversed", "round",
    "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "torch", "try",
    "tuple", "type", "vars", "while", "with", "yield", "zip",

    NULL};

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool is_illegal(const char *name) {
    /* the list is sorted (byte order): a binary search, names are made for every node */
    size_t n = sizeof illegal_names / sizeof *illegal_names - 1;
    return bsearch(&name, illegal_names, n, sizeof *illegal_names, cmp_name) != NULL;
}

/* torch.fx's _Namespace.create_name: a hint ending in _<digits> is base + number; the first
 * free, legal candidate among hint, base_<n+1>, base_<n+2>, ... wins. */
static char *unique_name(Graph *g, const char *hint) {
    char base[256];
    sanitize(hint, base, sizeof base);
    long num = 0;
    bool has_num = false;
    char *us = strrchr(base, '_');
    if (us && us[1]) {
        char *end;
        long v = strtol(us + 1, &end, 10);
        if (*end == 0 && us[1] >= '0' && us[1] <= '9') {
            num = v;
            has_num = true;
            *us = 0;
        }
    }
    char cand[300], key[260];
    if (has_num) snprintf(cand, sizeof cand, "%s_%ld", base, num);
    else snprintf(cand, sizeof cand, "%s", base);
    /* fx counts per base, so the n-th "linear" costs one probe, not n */
    snprintf(key, sizeof key, "\x01%s", base);
    NameEntry *count = names_add(g->names, key);
    if (!num) num = count->base_count;
    while (names_has(g->names, cand) || is_illegal(cand)) snprintf(cand, sizeof cand, "%s_%ld", base, ++num);
    names_add(g->names, cand);
    names_find(g->names, key)->base_count = num;   /* (names_add may have moved the entry) */
    return xstrdup(cand);
}

char *graph_reserve_name(Graph *g, const char *hint) { return unique_name(g, hint); }

static void names_free(GraphNameSet *set) {
    for (size_t i = 0; i < set->cap; i++) free(set->slots[i].name);
    free(set->slots);
    free(set);
}

/* ---- graphs ----------------------------------------------------------------------------------- */

Graph *graph_new(const char *name) {
    Graph *g = xcalloc(1, sizeof *g);
    g->name = xstrdup(name ? name : "graph");
    g->names = xcalloc(1, sizeof *g->names);
    return g;
}

static void arg_fini(GraphArg *a) {
    switch (a->kind) {
    case GARG_STR: free(a->as.s); break;
    case GARG_TUPLE: case GARG_LIST: case GARG_SLICE: case GARG_DICT:
        for (int i = 0; i < a->as.seq.n; i++) arg_fini(&a->as.seq.items[i]);
        free(a->as.seq.items);
        break;
    case GARG_OPAQUE: graph_opaque_decref(a->as.opaque); break;
    default: break;
    }
    a->kind = GARG_NONE;
}

static void node_free(GraphNode *n) {
    free(n->name);
    free(n->target);
    graph_opaque_decref(n->target_value);
    free(n->type_repr);
    for (int i = 0; i < n->n_args; i++) arg_fini(&n->args[i]);
    free(n->args);
    for (int i = 0; i < n->n_kwargs; i++) {
        free(n->kwnames[i]);
        arg_fini(&n->kwargs[i]);
    }
    free(n->kwnames);
    free(n->kwargs);
    free(n->exec.inputs);
    free((void *)n->exec.args.ints);
    free((void *)n->exec.args.ints2);
    graph_opaque_decref(n->exec.opaque);
    tensor_decref(n->exec.constant);
    free(n->loc.file);
    free(n->loc.func);
    free(n->loc.code);
    for (int i = 0; i < n->module_stack_len; i++) {
        free(n->module_stack[i].key);
        free(n->module_stack[i].type_name);
    }
    free(n->module_stack);
    free(n);
}

void graph_free(Graph *g) {
    if (!g) return;
    for (GraphNode *n = g->first, *next; n; n = next) {
        next = n->next;
        node_free(n);
    }
    names_free(g->names);
    free(g->name);
    free(g);
}

GraphArg graph_arg_copy(Graph *g, const GraphArg *a) {
    GraphArg c = *a;
    switch (a->kind) {
    case GARG_STR: c.as.s = xstrdup(a->as.s); break;
    case GARG_TUPLE: case GARG_LIST: case GARG_SLICE: case GARG_DICT:
        c.as.seq.items = xcalloc((size_t)a->as.seq.n, sizeof(GraphArg));
        for (int i = 0; i < a->as.seq.n; i++) c.as.seq.items[i] = graph_arg_copy(g, &a->as.seq.items[i]);
        break;
    case GARG_OPAQUE: graph_opaque_incref(a->as.opaque); break;
    default: break;
    }
    return c;
}

static void link_before(Graph *g, GraphNode *n, GraphNode *before) {
    if (!before) {
        n->prev = g->last;
        if (g->last) g->last->next = n;
        else g->first = n;
        g->last = n;
    } else {
        n->next = before;
        n->prev = before->prev;
        if (before->prev) before->prev->next = n;
        else g->first = n;
        before->prev = n;
    }
    g->n_nodes++;
}

static void unlink_node(Graph *g, GraphNode *n) {
    if (n->prev) n->prev->next = n->next;
    else g->first = n->next;
    if (n->next) n->next->prev = n->prev;
    else g->last = n->prev;
    n->prev = n->next = NULL;
    g->n_nodes--;
}

GraphNode *graph_output_node(const Graph *g) {
    return g->last && g->last->kind == GRAPH_OUTPUT ? g->last : NULL;
}

GraphNode *graph_node_new(Graph *g, GraphNodeKind kind, const char *name_hint, const char *target,
                          const GraphArg *args, int n_args, const char *const *kwnames, const GraphArg *kwargs,
                          int n_kwargs) {
    GraphNode *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    n->name = unique_name(g, name_hint ? name_hint : target);
    n->target = xstrdup(target ? target : "");
    n->n_args = n_args;
    n->args = xcalloc((size_t)n_args, sizeof(GraphArg));
    for (int i = 0; i < n_args; i++) n->args[i] = graph_arg_copy(g, &args[i]);
    n->n_kwargs = n_kwargs;
    n->kwnames = xcalloc((size_t)n_kwargs, sizeof(char *));
    n->kwargs = xcalloc((size_t)n_kwargs, sizeof(GraphArg));
    for (int i = 0; i < n_kwargs; i++) {
        n->kwnames[i] = xstrdup(kwnames[i]);
        n->kwargs[i] = graph_arg_copy(g, &kwargs[i]);
    }
    n->exec.kind = GRAPH_EXEC_NONE;
    n->exec.n_outputs = 1;
    n->exec.args = TENSOR_OP_ARGS_INIT;
    /* placement: placeholders after the last placeholder, everything else before the output */
    GraphNode *before = NULL;
    if (g->append_only) {
        before = NULL;
    } else if (kind == GRAPH_PLACEHOLDER) {
        before = g->first;
        while (before && before->kind == GRAPH_PLACEHOLDER) before = before->next;
    } else if (kind != GRAPH_OUTPUT) {
        before = graph_output_node(g);
    }
    link_before(g, n, before);
    return n;
}

GraphNode *graph_placeholder(Graph *g, const char *target, const char *name_hint) {
    return graph_node_new(g, GRAPH_PLACEHOLDER, name_hint ? name_hint : target, target, NULL, 0, NULL, NULL, 0);
}

GraphNode *graph_get_attr(Graph *g, const char *target, const char *name_hint) {
    return graph_node_new(g, GRAPH_GET_ATTR, name_hint ? name_hint : target, target, NULL, 0, NULL, NULL, 0);
}

static const int64_t *copy_ints(const int64_t *v, int n) {
    if (!v || n <= 0) return NULL;
    int64_t *c = xcalloc((size_t)n, sizeof *c);
    memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

/* The default name of an op node: the last component of its target ("torch.relu" -> "relu"). */
static const char *target_leaf(const char *target) {
    const char *dot = strrchr(target, '.');
    return dot ? dot + 1 : target;
}

GraphNode *graph_call_tensor_op(Graph *g, TensorOp op, GraphNode *const *inputs, int n_inputs,
                                const TensorOpArgs *args, const char *target, const GraphArg *call_args,
                                int n_call_args, const char *const *kwnames, const GraphArg *kwargs,
                                int n_kwargs) {
    if (!target) target = tensor_op_name(op);
    GraphArg local[16];
    if (!call_args || n_call_args < 0) {
        EM_GRAPH_ASSERT(n_inputs <= 16);
        for (int i = 0; i < n_inputs; i++) local[i] = inputs[i] ? graph_arg_node(inputs[i]) : graph_arg_none();
        call_args = local;
        n_call_args = n_inputs;
    }
    GraphNode *n = graph_node_new(g, GRAPH_CALL_FUNCTION, target_leaf(target), target, call_args, n_call_args,
                                  kwnames, kwargs, n_kwargs);
    n->exec.kind = GRAPH_EXEC_TENSOR_OP;
    n->exec.op = op;
    n->exec.n_inputs = n_inputs;
    n->exec.inputs = xcalloc((size_t)n_inputs, sizeof(GraphNode *));
    for (int i = 0; i < n_inputs; i++) n->exec.inputs[i] = inputs[i];
    n->exec.args = args ? *args : TENSOR_OP_ARGS_INIT;
    n->exec.args.ints = copy_ints(n->exec.args.ints, n->exec.args.n_ints);
    n->exec.args.ints2 = copy_ints(n->exec.args.ints2, n->exec.args.n_ints2);

    /* metadata without running kernels */
    TensorMeta in_meta[16];
    const TensorMeta *in_ptrs[16];
    bool requires_grad = false;
    uint32_t diff = tensor_op_info(op)->diff_inputs;
    for (int i = 0; i < n_inputs && i < 16; i++) {
        if (inputs[i]) {
            in_meta[i] = inputs[i]->meta;
            if (inputs[i]->requires_grad && (diff & (1u << (i < 31 ? i : 31)))) requires_grad = true;
        }
        in_ptrs[i] = inputs[i] ? &in_meta[i] : NULL;
    }
    TensorMeta outs[64];
    int got = tensor_op_infer(op, in_ptrs, n_inputs, &n->exec.args, outs, 64);
    if (got >= 1) {
        n->is_tensor = true;
        n->meta = outs[0];
        n->exec.n_outputs = got;
    } else {
        tensor_error_clear();
        n->exec.n_outputs = tensor_op_info(op)->n_out > 0 ? tensor_op_info(op)->n_out : 1;
    }
    if (tensor_op_flags(op) & TENSOR_OPF_NONDIFF) requires_grad = false;
    n->requires_grad = requires_grad;
    if (n->exec.n_outputs > 1) n->is_tensor = false;   /* a tuple: its getitems carry the tensor metas */
    return n;
}

GraphNode *graph_constant(Graph *g, Tensor *t) {
    GraphNode *n = graph_node_new(g, GRAPH_GET_ATTR, "_tensor_constant0", "_tensor_constant0", NULL, 0, NULL, NULL, 0);
    free(n->target);
    n->target = xstrdup(n->name);
    n->exec.kind = GRAPH_EXEC_CONSTANT;
    n->exec.constant = t;
    n->is_tensor = true;
    tensor_meta_of(t, &n->meta);
    return n;
}

void graph_node_set_call(Graph *g, GraphNode *n, GraphNodeKind kind, const char *target, const GraphArg *args,
                         int n_args, const char *const *kwnames, const GraphArg *kwargs, int n_kwargs) {
    GraphArg *nargs = xcalloc((size_t)n_args, sizeof(GraphArg));
    for (int i = 0; i < n_args; i++) nargs[i] = graph_arg_copy(g, &args[i]);
    char **nkn = xcalloc((size_t)n_kwargs, sizeof(char *));
    GraphArg *nkw = xcalloc((size_t)n_kwargs, sizeof(GraphArg));
    for (int i = 0; i < n_kwargs; i++) {
        nkn[i] = xstrdup(kwnames[i]);
        nkw[i] = graph_arg_copy(g, &kwargs[i]);
    }
    for (int i = 0; i < n->n_args; i++) arg_fini(&n->args[i]);
    free(n->args);
    for (int i = 0; i < n->n_kwargs; i++) {
        free(n->kwnames[i]);
        arg_fini(&n->kwargs[i]);
    }
    free(n->kwnames);
    free(n->kwargs);
    n->kind = kind;
    char *ntarget = xstrdup(target);   /* before freeing: target may be n->target itself */
    free(n->target);
    n->target = ntarget;
    n->args = nargs;
    n->n_args = n_args;
    n->kwnames = nkn;
    n->kwargs = nkw;
    n->n_kwargs = n_kwargs;
}

GraphNode *graph_getitem(Graph *g, GraphNode *src, int index) {
    GraphArg a[2] = {graph_arg_node(src), graph_arg_int(index)};
    GraphNode *n = graph_node_new(g, GRAPH_CALL_FUNCTION, "getitem", "operator.getitem", a, 2, NULL, NULL, 0);
    n->exec.kind = GRAPH_EXEC_GETITEM;
    n->exec.n_inputs = 1;
    n->exec.inputs = xcalloc(1, sizeof(GraphNode *));
    n->exec.inputs[0] = src;
    n->exec.index = index;
    n->requires_grad = src->requires_grad;
    if (src->exec.kind == GRAPH_EXEC_TENSOR_OP) {
        /* re-infer to get output `index`'s meta */
        TensorMeta in_meta[16];
        const TensorMeta *in_ptrs[16];
        for (int i = 0; i < src->exec.n_inputs && i < 16; i++) {
            if (src->exec.inputs[i]) in_meta[i] = src->exec.inputs[i]->meta;
            in_ptrs[i] = src->exec.inputs[i] ? &in_meta[i] : NULL;
        }
        TensorMeta outs[64];
        int got = tensor_op_infer(src->exec.op, in_ptrs, src->exec.n_inputs, &src->exec.args, outs, 64);
        if (got > index) {
            n->is_tensor = true;
            n->meta = outs[index];
        } else {
            tensor_error_clear();
        }
        if (index < 31 && (tensor_op_flags(src->exec.op) & TENSOR_OPF_NONDIFF)) n->requires_grad = false;
    }
    return n;
}

GraphNode *graph_output(Graph *g, const GraphArg *values, int n) {
    EM_GRAPH_ASSERT(!graph_output_node(g));
    GraphArg tuple = graph_arg_seq(GARG_TUPLE, (GraphArg *)values, n);
    return graph_node_new(g, GRAPH_OUTPUT, "output", "output", &tuple, 1, NULL, NULL, 0);
}

/* ---- editing -------------------------------------------------------------------------------------- */

void graph_move_before(Graph *g, GraphNode *n, GraphNode *before) {
    if (n == before) return;
    unlink_node(g, n);
    link_before(g, n, before);
}

void graph_node_set_type_repr(Graph *g, GraphNode *n, const char *type_repr) {
    (void)g;
    free(n->type_repr);
    n->type_repr = xstrdup(type_repr);
}

void graph_node_set_target_value(Graph *g, GraphNode *n, GraphOpaque *v) {
    (void)g;
    graph_opaque_decref(n->target_value);
    n->target_value = v;
}

static bool arg_uses(const GraphArg *a, const GraphNode *n) {
    if (a->kind == GARG_NODE) return a->as.node == n;
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++)
            if (arg_uses(&a->as.seq.items[i], n)) return true;
    return false;
}

static bool node_uses(const GraphNode *user, const GraphNode *n) {
    for (int i = 0; i < user->n_args; i++)
        if (arg_uses(&user->args[i], n)) return true;
    for (int i = 0; i < user->n_kwargs; i++)
        if (arg_uses(&user->kwargs[i], n)) return true;
    for (int i = 0; i < user->exec.n_inputs; i++)
        if (user->exec.inputs[i] == n) return true;
    return false;
}

int graph_erase(Graph *g, GraphNode *n) {
    for (GraphNode *u = n->next; u; u = u->next)
        if (node_uses(u, n)) return -1;
    unlink_node(g, n);
    node_free(n);
    return 0;
}

static void arg_replace(GraphArg *a, GraphNode *old, GraphNode *repl) {
    if (a->kind == GARG_NODE && a->as.node == old) a->as.node = repl;
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) arg_replace(&a->as.seq.items[i], old, repl);
}

void graph_replace_uses(Graph *g, GraphNode *old, GraphNode *repl) {
    for (GraphNode *u = g->first; u; u = u->next) {
        if (u == repl) continue;
        for (int i = 0; i < u->n_args; i++) arg_replace(&u->args[i], old, repl);
        for (int i = 0; i < u->n_kwargs; i++) arg_replace(&u->kwargs[i], old, repl);
        for (int i = 0; i < u->exec.n_inputs; i++)
            if (u->exec.inputs[i] == old) u->exec.inputs[i] = repl;
    }
}

void graph_renumber(Graph *g) {
    int32_t i = 0;
    for (GraphNode *n = g->first; n; n = n->next) n->index = i++;
}

static void count_arg_users(const GraphArg *a) {
    if (a->kind == GARG_NODE) a->as.node->n_users++;
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) count_arg_users(&a->as.seq.items[i]);
}

/* Users are counted over the call view, plus exec inputs not mentioned there. */
void graph_compute_users(Graph *g) {
    for (GraphNode *n = g->first; n; n = n->next) n->n_users = 0;
    for (GraphNode *n = g->first; n; n = n->next) {
        for (int i = 0; i < n->n_args; i++) count_arg_users(&n->args[i]);
        for (int i = 0; i < n->n_kwargs; i++) count_arg_users(&n->kwargs[i]);
        for (int i = 0; i < n->exec.n_inputs; i++) {
            GraphNode *in = n->exec.inputs[i];
            if (!in) continue;
            bool in_call = false;
            for (int j = 0; j < n->n_args && !in_call; j++) in_call = arg_uses(&n->args[j], in);
            for (int j = 0; j < n->n_kwargs && !in_call; j++) in_call = arg_uses(&n->kwargs[j], in);
            if (!in_call) in->n_users++;
        }
    }
}

static bool has_side_effects(const GraphNode *n) {
    switch (n->kind) {
    case GRAPH_PLACEHOLDER: case GRAPH_OUTPUT: return true;
    case GRAPH_GET_ATTR: return false;
    default: break;
    }
    switch (n->exec.kind) {
    case GRAPH_EXEC_TENSOR_OP:
        return (tensor_op_flags(n->exec.op) & (TENSOR_OPF_INPLACE | TENSOR_OPF_RANDOM)) != 0;
    case GRAPH_EXEC_GETITEM: case GRAPH_EXEC_CONSTANT: return false;
    default: return true;
    }
}

static void uncount_arg_users(const GraphArg *a) {
    if (a->kind == GARG_NODE) a->as.node->n_users--;
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) uncount_arg_users(&a->as.seq.items[i]);
}

/* Walks backwards so a chain of dead nodes goes in one pass: removing a node releases its uses. */
int graph_eliminate_dead_code(Graph *g) {
    int removed = 0;
    graph_compute_users(g);
    for (GraphNode *n = g->last, *prev; n; n = prev) {
        prev = n->prev;
        if (n->n_users || has_side_effects(n)) continue;
        for (int i = 0; i < n->n_args; i++) uncount_arg_users(&n->args[i]);
        for (int i = 0; i < n->n_kwargs; i++) uncount_arg_users(&n->kwargs[i]);
        for (int i = 0; i < n->exec.n_inputs; i++) {
            GraphNode *in = n->exec.inputs[i];
            if (!in) continue;
            bool in_call = false;
            for (int j = 0; j < n->n_args && !in_call; j++) in_call = arg_uses(&n->args[j], in);
            for (int j = 0; j < n->n_kwargs && !in_call; j++) in_call = arg_uses(&n->kwargs[j], in);
            if (!in_call) in->n_users--;
        }
        unlink_node(g, n);
        node_free(n);
        removed++;
    }
    return removed;
}

void graph_node_set_loc(Graph *g, GraphNode *n, const char *file, int line, const char *func, const char *code) {
    (void)g;
    free(n->loc.file);
    free(n->loc.func);
    free(n->loc.code);
    n->loc.file = xstrdup(file);
    n->loc.line = line;
    n->loc.func = xstrdup(func);
    n->loc.code = xstrdup(code);
}

void graph_node_set_module_stack(Graph *g, GraphNode *n, const GraphModuleFrame *frames, int n_frames) {
    (void)g;
    for (int i = 0; i < n->module_stack_len; i++) {
        free(n->module_stack[i].key);
        free(n->module_stack[i].type_name);
    }
    free(n->module_stack);
    n->module_stack = xcalloc((size_t)n_frames, sizeof *n->module_stack);
    n->module_stack_len = n_frames;
    for (int i = 0; i < n_frames; i++) {
        n->module_stack[i].key = xstrdup(frames[i].key);
        n->module_stack[i].type_name = xstrdup(frames[i].type_name);
    }
}

int graph_count_ops(const Graph *g) {
    int c = 0;
    for (GraphNode *n = g->first; n; n = n->next)
        if (n->kind != GRAPH_PLACEHOLDER && n->kind != GRAPH_GET_ATTR && n->kind != GRAPH_OUTPUT) c++;
    return c;
}

/* ---- verification ----------------------------------------------------------------------------------- */

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && cap) vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static bool arg_refs_earlier(const GraphArg *a, const GraphNode *self) {
    if (a->kind == GARG_NODE) {
        if (!a->as.node) return false;
        for (const GraphNode *p = self->prev; p; p = p->prev)
            if (p == a->as.node) return true;
        return false;
    }
    if (graph_arg_is_seq(a->kind)) {
        if (a->kind == GARG_SLICE && a->as.seq.n != 3) return false;
        if (a->kind == GARG_DICT && a->as.seq.n % 2) return false;
        for (int i = 0; i < a->as.seq.n; i++)
            if (!arg_refs_earlier(&a->as.seq.items[i], self)) return false;
    }
    return true;
}

int graph_verify(const Graph *g, char *err, size_t cap) {
    bool past_placeholders = false;
    int outputs = 0, count = 0;
    GraphNameSet seen = {0};
    int rc = 0;
    for (const GraphNode *n = g->first; n; n = n->next, count++) {
        if (n->prev ? n->prev->next != n : g->first != n) {
            rc = fail(err, cap, "node %s: broken links", n->name);
            break;
        }
        if (names_has(&seen, n->name)) {
            rc = fail(err, cap, "duplicate node name %s", n->name);
            break;
        }
        names_add(&seen, n->name);
        if (n->kind == GRAPH_PLACEHOLDER && past_placeholders && !g->append_only) {
            rc = fail(err, cap, "placeholder %s after other nodes", n->name);
            break;
        }
        if (n->kind != GRAPH_PLACEHOLDER) past_placeholders = true;
        if (n->kind == GRAPH_OUTPUT) {
            outputs++;
            if (n->next) {
                rc = fail(err, cap, "output node is not last");
                break;
            }
        }
        for (int i = 0; i < n->n_args && !rc; i++)
            if (!arg_refs_earlier(&n->args[i], n)) rc = fail(err, cap, "node %s: arg %d is not an earlier node", n->name, i);
        for (int i = 0; i < n->n_kwargs && !rc; i++)
            if (!arg_refs_earlier(&n->kwargs[i], n))
                rc = fail(err, cap, "node %s: kwarg %s is not an earlier node", n->name, n->kwnames[i]);
        for (int i = 0; i < n->exec.n_inputs && !rc; i++) {
            GraphArg a = graph_arg_node(n->exec.inputs[i]);
            if (n->exec.inputs[i] && !arg_refs_earlier(&a, n))
                rc = fail(err, cap, "node %s: exec input %d is not an earlier node", n->name, i);
        }
        if (rc) break;
        if (n->exec.kind == GRAPH_EXEC_TENSOR_OP) {
            if ((int)n->exec.op < 0 || n->exec.op >= TENSOR_OP_COUNT) {
                rc = fail(err, cap, "node %s: bad tensor op %d", n->name, (int)n->exec.op);
                break;
            }
            const TensorOpInfo *info = tensor_op_info(n->exec.op);
            if (n->exec.n_inputs < 0 || (info->in_max >= 0 && n->exec.n_inputs > info->in_max)) {
                rc = fail(err, cap, "node %s: %s takes at most %d inputs, got %d", n->name, info->name, info->in_max,
                          n->exec.n_inputs);
                break;
            }
            for (int i = 0; i < info->in_min && i < n->exec.n_inputs; i++)
                if (!n->exec.inputs[i]) {
                    rc = fail(err, cap, "node %s: required input %d of %s missing", n->name, i, info->name);
                    break;
                }
            if (!rc && n->exec.n_inputs < info->in_min)
                rc = fail(err, cap, "node %s: %s needs %d inputs, got %d", n->name, info->name, info->in_min,
                          n->exec.n_inputs);
            if (rc) break;
        }
        if (n->exec.kind == GRAPH_EXEC_GETITEM) {
            const GraphNode *src = n->exec.n_inputs == 1 ? n->exec.inputs[0] : NULL;
            if (!src || n->exec.index < 0 || n->exec.index >= src->exec.n_outputs) {
                rc = fail(err, cap, "node %s: getitem index %d out of range", n->name, n->exec.index);
                break;
            }
        }
        if ((n->exec.kind == GRAPH_EXEC_HOOK || n->exec.kind == GRAPH_EXEC_MARKER ||
             n->exec.kind == GRAPH_EXEC_CUSTOM_OP || n->exec.kind == GRAPH_EXEC_SCRIPT ||
             n->exec.kind == GRAPH_EXEC_AUTOGRAD_FN) &&
            !n->exec.opaque) {
            rc = fail(err, cap, "node %s: exec kind %d needs an opaque target", n->name, (int)n->exec.kind);
            break;
        }
    }
    if (!rc && count != g->n_nodes) rc = fail(err, cap, "node count %d, list has %d", g->n_nodes, count);
    if (!rc && outputs > 1) rc = fail(err, cap, "%d output nodes", outputs);
    for (size_t i = 0; i < seen.cap; i++) free(seen.slots[i].name);
    free(seen.slots);
    return rc;
}
