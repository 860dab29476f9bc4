/* src/torch/fx.c — the native side of torch.fx (module torch._C._fx): a torch.fx.Graph is a
 * src/graph Graph (GraphBase wraps a Graph*), so fx, the dynamo tracer and the runtime share one
 * IR, one verifier and one printer; its nodes are script objects (NodeBase, subclassed by
 * torch.fx.Node) with fx's attributes over the GraphNode's call view.
 *
 * Design note.  Each GraphNode of an fx graph has exactly one node object, kept in the
 * GraphNode's user_data and marked by the graph's trace function; a node object marks its graph,
 * so a live node keeps its graph alive.  Arguments are stored as GraphArgs: nodes, Python
 * constants, tuples/lists/dicts/slices of them, and any other value as a GraphOpaque that holds
 * the value through an external GC root (a CallbackBox) and prints as its repr.  A call_function
 * node's callable is likewise an opaque target_value; its printed target (what graph code
 * shows, "torch.relu", "operator.add") is computed by torch.fx (torch/fx/graph.py) the way fx's
 * _get_qualified_name and add_global do, and handed in.  Erasing a node frees its GraphNode; the
 * node object keeps the neighbours it had, so iteration in progress continues as in fx.
 *
 *     g = torch._C._fx.GraphBase()       (torch.fx.Graph subclasses it)
 *     x = g._create_node("placeholder", "x", (), {}, "x", None)
 *     r = g._create_node("call_function", torch.relu, (x,), {}, "relu", "torch.relu")
 *     g._create_node("output", "output", (r,), {}, "output", None)
 *     g._code()   ->  "\n\n\ndef forward(self, x):\n    relu = torch.relu(x);  x = None\n ..."
 *
 * Also here: _exec(src, globals, filename), the exec() GraphModule uses to compile its generated
 * forward with the VM's compiler. */
#include <stdlib.h>
#include <string.h>

#include "ember/graph.h"
#include "src/torch/torch.h"
#include "vm/code.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct FxGraphObj {
    Obj hdr;
    DictObj *dict;
    Graph *g;
} FxGraphObj;

typedef struct FxNodeObj {
    Obj hdr;
    DictObj *dict;
    struct FxGraphObj *graph;
    GraphNode *node;                     /* NULL once erased */
    struct FxNodeObj *erased_prev, *erased_next;   /* the neighbours it had when erased */
    StrObj *erased_name;                 /* name, target and op it had when erased (fx keeps them) */
    Value erased_target;
    GraphNodeKind erased_kind;
} FxNodeObj;


#define GRAPHOBJ(v) ((FxGraphObj *)(v).as.o)
#define NODEOBJ(v) ((FxNodeObj *)(v).as.o)
#define NODE_OF(gn) ((FxNodeObj *)(gn)->user_data)

static bool is_node(VM *vm, Value v) {
    TypeObj *t = torch_state(vm)->t_fx_node;
    return t && vm_isinstance_type(vm, v, t);
}

/* ---- GC -------------------------------------------------------------------------------------------- */

static void graph_trace(VM *vm, Obj *o) {
    FxGraphObj *go = (FxGraphObj *)o;
    gc_mark(vm, go->dict);
    if (!go->g) return;
    for (GraphNode *n = go->g->first; n; n = n->next) gc_mark(vm, n->user_data);
}

static void graph_finalize(VM *vm, Obj *o) {
    (void)vm;
    FxGraphObj *go = (FxGraphObj *)o;
    graph_free(go->g);   /* releases the opaque values (external roots) */
    go->g = NULL;
}

static void node_trace(VM *vm, Obj *o) {
    FxNodeObj *no = (FxNodeObj *)o;
    gc_mark(vm, no->dict);
    gc_mark(vm, no->graph);
    gc_mark(vm, no->erased_prev);
    gc_mark(vm, no->erased_next);
    gc_mark(vm, no->erased_name);
    gc_mark_value(vm, no->erased_target);
}

/* ---- opaque values ------------------------------------------------------------------------------------- */

static GraphOpaque *opaque_of(VM *vm, Value v) {
    Value r = vm_repr(vm, v);
    if (val_is_null(r)) return NULL;
    CallbackBox *box = torch_box_new(vm, v, val_null());
    return graph_opaque_new(box, torch_box_release, AS_STR(r)->data);
}

static Value opaque_value(VM *vm, const GraphOpaque *o) {
    if (o->release == torch_box_release) return ((CallbackBox *)o->ptr)->fn->v;
    StrObj *s = str_from_c(vm, o->repr);   /* an opaque of another layer: its repr */
    return s ? val_obj(s) : val_null();
}

/* ---- script values <-> GraphArgs ------------------------------------------------------------------------ */

/* Frees what to_arg allocated (the graph keeps deep copies). */
static void arg_release(GraphArg *a) {
    if (graph_arg_is_seq(a->kind)) {
        for (int i = 0; i < a->as.seq.n; i++) arg_release(&a->as.seq.items[i]);
        free(a->as.seq.items);
    } else if (a->kind == GARG_OPAQUE) {
        graph_opaque_decref(a->as.opaque);
    }
    a->kind = GARG_NONE;
}

static int to_arg(VM *vm, FxGraphObj *go, Value v, GraphArg *out, int depth);

static int to_seq(VM *vm, FxGraphObj *go, GraphArgKind kind, const Value *items, int64_t n, GraphArg *out, int depth) {
    GraphArg *a = calloc((size_t)(n ? n : 1), sizeof *a);
    EM_ASSERT(a != NULL, "out of memory");
    for (int64_t i = 0; i < n; i++)
        if (to_arg(vm, go, items[i], &a[i], depth + 1) < 0) {
            for (int64_t j = 0; j < i; j++) arg_release(&a[j]);
            free(a);
            return -1;
        }
    *out = graph_arg_seq(kind, a, (int)n);
    return 0;
}

static int to_arg(VM *vm, FxGraphObj *go, Value v, GraphArg *out, int depth) {
    if (depth > 64) {
        vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded converting an fx argument");
        return -1;
    }
    switch (v.tag) {
    case VAL_INT: *out = graph_arg_int(v.as.i); return 0;
    case VAL_FLOAT: *out = graph_arg_float(v.as.f); return 0;
    case VAL_BOOL: *out = graph_arg_bool(v.as.b); return 0;
    case VAL_NONE: *out = graph_arg_none(); return 0;
    default: break;
    }
    if (v.tag != VAL_OBJ) {
        *out = graph_arg_none();
        return 0;
    }
    TypeObj *t = v.as.o->type;
    if (is_node(vm, v)) {
        FxNodeObj *no = NODEOBJ(v);
        if (!no->node || no->graph != go) {
            vm_raise(vm, vm->e_RuntimeError,
                     "Argument '%s' does not belong to this Graph, but was used as an argument! If you are copying "
                     "nodes from another graph, make sure to use ``arg_transform`` on node_copy() to remap values",
                     no->node ? no->node->name : "<erased node>");
            return -1;
        }
        *out = graph_arg_node(no->node);
        return 0;
    }
    if (t == vm->t_str) {
        *out = graph_arg_str(AS_STR(v)->data);
        return 0;
    }
    if (val_identical(v, vm->ellipsis)) {
        *out = (GraphArg){.kind = GARG_ELLIPSIS};
        return 0;
    }
    TorchState *ts = torch_state(vm);
    if (t == ts->t_dtype) {
        TensorDtype d;
        if (torch_dtype_of(vm, v, &d) == 0) {
            *out = graph_arg_dtype(d);
            return 0;
        }
        vm_clear_exc(vm);   /* a dtype the tensor library lacks: an opaque printing "torch.float64" */
    }
    if (t == vm->t_tuple) return to_seq(vm, go, GARG_TUPLE, AS_TUPLE(v)->items, AS_TUPLE(v)->len, out, depth);
    if (t == vm->t_list) return to_seq(vm, go, GARG_LIST, AS_LIST(v)->items, AS_LIST(v)->len, out, depth);
    if (t == vm->t_slice) {
        SliceObj *s = (SliceObj *)v.as.o;
        Value items[3] = {s->start, s->stop, s->step};
        return to_seq(vm, go, GARG_SLICE, items, 3, out, depth);
    }
    if (t == vm->t_dict || t == vm->t_ordereddict) {
        DictObj *d = (DictObj *)v.as.o;
        int64_t n = d->used, pos = 0, i = 0;
        Value *kv = calloc((size_t)(2 * n + 1), sizeof *kv);
        EM_ASSERT(kv != NULL, "out of memory");
        Value k, val;
        while (dict_next(d, &pos, &k, &val) && i < n) {
            kv[2 * i] = k;
            kv[2 * i + 1] = val;
            i++;
        }
        int rc = to_seq(vm, go, GARG_DICT, kv, 2 * i, out, depth);   /* d is rooted by the caller */
        free(kv);
        return rc;
    }
    GraphOpaque *o = opaque_of(vm, v);
    if (!o) return -1;
    *out = graph_arg_opaque(o);
    return 0;
}

static Value from_arg(VM *vm, const GraphArg *a);

static Value from_seq(VM *vm, const GraphArg *a) {
    int n = a->as.seq.n;
    ListObj *l = list_new(vm, n);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int i = 0; i < n; i++) {
        Value v = from_arg(vm, &a->as.seq.items[i]);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    Value r = val_obj(l);
    if (a->kind == GARG_TUPLE) {
        TupleObj *t = tuple_from_array(vm, l->items, l->len);
        r = t ? val_obj(t) : val_null();
    } else if (a->kind == GARG_SLICE) {
        r = n == 3 ? slice_new(vm, l->items[0], l->items[1], l->items[2]) : val_null();
    } else if (a->kind == GARG_DICT) {
        DictObj *d = dict_new(vm);
        r = d ? val_obj(d) : val_null();
        if (d) vm_push_root(vm, r);
        for (int i = 0; d && i + 1 < n; i += 2)
            if (dict_set(vm, d, l->items[i], l->items[i + 1]) < 0) {
                r = val_null();
                break;
            }
        if (d) vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return r;
}

static Value from_arg(VM *vm, const GraphArg *a) {
    switch (a->kind) {
    case GARG_NONE: return val_none();
    case GARG_NODE: return a->as.node && a->as.node->user_data ? val_obj(NODE_OF(a->as.node)) : val_none();
    case GARG_INT: return val_int(a->as.i);
    case GARG_FLOAT: return val_float(a->as.f);
    case GARG_BOOL: return val_bool(a->as.b);
    case GARG_STR: {
        StrObj *s = str_from_c(vm, a->as.s);
        return s ? val_obj(s) : val_null();
    }
    case GARG_DTYPE: return torch_dtype_value(vm, a->as.dtype);
    case GARG_ELLIPSIS: return vm->ellipsis;
    case GARG_OPAQUE: return opaque_value(vm, a->as.opaque);
    case GARG_TUPLE: case GARG_LIST: case GARG_SLICE: case GARG_DICT: return from_seq(vm, a);
    }
    return val_none();
}

/* args tuple + kwargs dict -> GraphArgs (released with release_call) */
typedef struct CallArgs {
    GraphArg *args;
    int n_args;
    const char **kwnames;
    GraphArg *kwargs;
    int n_kwargs;
} CallArgs;

static void release_call(CallArgs *c) {
    for (int i = 0; i < c->n_args; i++) arg_release(&c->args[i]);
    for (int i = 0; i < c->n_kwargs; i++) arg_release(&c->kwargs[i]);
    free(c->args);
    free(c->kwargs);
    free((void *)c->kwnames);
    memset(c, 0, sizeof *c);
}

static int to_call(VM *vm, FxGraphObj *go, Value args, Value kwargs, CallArgs *c) {
    memset(c, 0, sizeof *c);
    if (!val_is_none(args) && !vm_isinstance_type(vm, args, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "args must be a tuple");
        return -1;
    }
    if (!val_is_none(kwargs) && !vm_isinstance_type(vm, kwargs, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "kwargs must be a dict");
        return -1;
    }
    TupleObj *t = val_is_none(args) ? NULL : AS_TUPLE(args);
    DictObj *d = val_is_none(kwargs) ? NULL : (DictObj *)kwargs.as.o;
    c->n_args = t ? (int)t->len : 0;
    c->args = calloc((size_t)c->n_args + 1, sizeof *c->args);
    int64_t nk = d ? d->used : 0;
    c->kwargs = calloc((size_t)nk + 1, sizeof *c->kwargs);
    c->kwnames = calloc((size_t)nk + 1, sizeof *c->kwnames);
    EM_ASSERT(c->args && c->kwargs && c->kwnames, "out of memory");
    for (int i = 0; i < c->n_args; i++) {
        if (to_arg(vm, go, t->items[i], &c->args[i], 0) < 0) {
            c->n_args = i;
            release_call(c);
            return -1;
        }
    }
    int64_t pos = 0;
    Value k, v;
    while (d && dict_next(d, &pos, &k, &v)) {
        if (!val_is_str(vm, k)) {
            vm_raise(vm, vm->e_TypeError, "keyword argument names must be strings");
            release_call(c);
            return -1;
        }
        c->kwnames[c->n_kwargs] = AS_STR(k)->data;
        if (to_arg(vm, go, v, &c->kwargs[c->n_kwargs], 0) < 0) {
            release_call(c);
            return -1;
        }
        c->n_kwargs++;
    }
    return 0;
}

static Value str_result(VM *vm, char *s) {
    StrObj *r = str_from_c(vm, s);
    free(s);
    return r ? val_obj(r) : val_null();
}

/* ---- GraphBase ----------------------------------------------------------------------------------------------- */

static FxGraphObj *self_graph(VM *vm, Value self) {
    FxGraphObj *go = GRAPHOBJ(self);
    if (!go->g) {
        go->g = graph_new("fx");
        go->g->output_is_value = true;
        go->g->append_only = true;
    }
    (void)vm;
    return go;
}

static Value g_init(ARGS) {
    (void)argc, (void)kw;
    self_graph(vm, argv[0]);
    return val_none();
}

static int op_kind(VM *vm, Value op, GraphNodeKind *out) {
    static const GraphNodeKind kinds[] = {GRAPH_PLACEHOLDER, GRAPH_GET_ATTR, GRAPH_CALL_FUNCTION,
                                          GRAPH_CALL_METHOD, GRAPH_CALL_MODULE, GRAPH_OUTPUT};
    if (val_is_str(vm, op))
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            if (strcmp(AS_STR(op)->data, graph_node_kind_name(kinds[i])) == 0) {
                *out = kinds[i];
                return 0;
            }
    Value r = vm_repr(vm, op);
    if (!val_is_null(r)) vm_raise(vm, vm->e_ValueError, "unknown fx node op %s", AS_STR(r)->data);
    return -1;
}

static Value new_node_object(VM *vm, FxGraphObj *go, GraphNode *n) {
    TorchState *ts = torch_state(vm);
    TypeObj *cls = ts->fx_node_class ? ts->fx_node_class : ts->t_fx_node;
    FxNodeObj *no = gc_alloc(vm, cls, cls->instance_size);   /* NodeBase cannot be instantiated by scripts */
    if (!no) return val_null();
    Value v = val_obj(no);
    no->graph = go;
    no->node = n;
    n->user_data = no;
    return v;
}

/* _create_node(op, target, args, kwargs, name, printed_target): name is the candidate name (made
 * unique as fx's _Namespace does); printed_target is what graph code shows for a non-str target. */
static Value g_create_node(ARGS) {
    static const char *const names[] = {"self", "op", "target", "args", "kwargs", "name", "printed_target"};
    Value a[7];
    if (native_parse_args(vm, "_create_node", argc, argv, kw, 7, 7, names, 7, a) < 0) return val_null();
    FxGraphObj *go = self_graph(vm, a[0]);
    GraphNodeKind kind;
    if (op_kind(vm, a[1], &kind) < 0) return val_null();
    if (!val_is_str(vm, a[5])) return vm_raise(vm, vm->e_TypeError, "_create_node: name must be a str");
    const char *printed = NULL;
    if (val_is_str(vm, a[2])) printed = AS_STR(a[2])->data;
    else if (val_is_str(vm, a[6])) printed = AS_STR(a[6])->data;
    else return vm_raise(vm, vm->e_TypeError, "_create_node: a non-str target needs its printed name");
    CallArgs c;
    if (to_call(vm, go, a[3], a[4], &c) < 0) return val_null();
    GraphOpaque *tv = NULL;
    if (!val_is_str(vm, a[2]) && !(tv = opaque_of(vm, a[2]))) {
        release_call(&c);
        return val_null();
    }
    GraphNode *n = graph_node_new(go->g, kind, AS_STR(a[5])->data, printed, c.args, c.n_args, c.kwnames, c.kwargs,
                                  c.n_kwargs);
    release_call(&c);
    if (tv) graph_node_set_target_value(go->g, n, tv);
    Value v = new_node_object(vm, go, n);
    if (val_is_null(v)) {
        graph_erase(go->g, n);
        return v;
    }
    return v;
}

/* _reserve_name(candidate): the unique name a node would get, marked used (no node is made) */
static Value g_reserve_name(ARGS) {
    if (native_check_args(vm, "_reserve_name", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "_reserve_name: name must be a str");
    return str_result(vm, graph_reserve_name(self_graph(vm, argv[0])->g, AS_STR(argv[1])->data));
}

static Value g_first(ARGS) {
    (void)argc, (void)kw;
    FxGraphObj *go = self_graph(vm, argv[0]);
    return go->g->first ? val_obj(NODE_OF(go->g->first)) : val_none();
}

static Value g_last(ARGS) {
    (void)argc, (void)kw;
    FxGraphObj *go = self_graph(vm, argv[0]);
    return go->g->last ? val_obj(NODE_OF(go->g->last)) : val_none();
}

static Value g_len(ARGS) {
    (void)argc, (void)kw;
    return val_int(self_graph(vm, argv[0])->g->n_nodes);
}

static int node_arg(VM *vm, FxGraphObj *go, Value v, const char *what, GraphNode **out) {
    if (val_is_none(v)) {
        *out = NULL;
        return 0;
    }
    if (!is_node(vm, v) || NODEOBJ(v)->graph != go || !NODEOBJ(v)->node) {
        vm_raise(vm, vm->e_ValueError, "%s is not a node of this graph", what);
        return -1;
    }
    *out = NODEOBJ(v)->node;
    return 0;
}

/* _move_before(node, before): before None = to the end */
static Value g_move_before(ARGS) {
    if (native_check_args(vm, "_move_before", argc, kw, 3, 3) < 0) return val_null();
    FxGraphObj *go = self_graph(vm, argv[0]);
    GraphNode *n, *before;
    if (node_arg(vm, go, argv[1], "node", &n) < 0 || node_arg(vm, go, argv[2], "before", &before) < 0)
        return val_null();
    if (!n) return vm_raise(vm, vm->e_ValueError, "node is None");
    graph_move_before(go->g, n, before);
    return val_none();
}

/* _erase(node): the node must have no users left (checked by fx's erase_node first) */
static Value g_erase(ARGS) {
    if (native_check_args(vm, "_erase", argc, kw, 2, 2) < 0) return val_null();
    FxGraphObj *go = self_graph(vm, argv[0]);
    GraphNode *n;
    if (node_arg(vm, go, argv[1], "node", &n) < 0) return val_null();
    if (!n) return vm_raise(vm, vm->e_ValueError, "node is None");
    FxNodeObj *no = NODE_OF(n);
    FxNodeObj *prev = n->prev ? NODE_OF(n->prev) : NULL, *next = n->next ? NODE_OF(n->next) : NULL;
    StrObj *name = str_from_c(vm, n->name);
    if (!name) return val_null();
    vm_push_root(vm, val_obj(name));
    Value target = val_null();
    if (n->target_value) {
        target = opaque_value(vm, n->target_value);
    } else {
        StrObj *t = str_from_c(vm, n->target);
        if (t) target = val_obj(t);
    }
    vm_pop_root(vm);
    if (val_is_null(target)) return target;
    GraphNodeKind kind = n->kind;
    if (graph_erase(go->g, n) < 0)
        return vm_raise(vm, vm->e_RuntimeError, "Tried to erase Node %s but it still had users in the graph", n->name);
    no->erased_name = name;
    no->erased_target = target;
    no->erased_kind = kind;
    no->node = NULL;
    no->erased_prev = prev;
    no->erased_next = next;
    return val_none();
}


static Value g_code(ARGS) {
    (void)argc, (void)kw;
    return str_result(vm, graph_code(self_graph(vm, argv[0])->g, GRAPH_PRINT_FX));
}

static Value g_tabular(ARGS) {
    (void)argc, (void)kw;
    return str_result(vm, graph_tabular(self_graph(vm, argv[0])->g));
}

static Value g_dot(ARGS) {
    (void)argc, (void)kw;
    return str_result(vm, graph_to_dot(self_graph(vm, argv[0])->g));
}

/* _verify(): src/graph's structural checks; RuntimeError with the verifier's message */
static Value g_verify(ARGS) {
    (void)argc, (void)kw;
    char err[512];
    if (graph_verify(self_graph(vm, argv[0])->g, err, sizeof err) < 0)
        return vm_raise(vm, vm->e_RuntimeError, "graph verification failed: %s", err);
    return val_none();
}

/* ---- NodeBase -------------------------------------------------------------------------------------------------- */

static GraphNode *live_node(VM *vm, Value self) {
    GraphNode *n = NODEOBJ(self)->node;
    if (!n) vm_raise(vm, vm->e_RuntimeError, "the node was erased from its graph");
    return n;
}

static Value n_get_op(VM *vm, Value self, void *c) {
    (void)c;
    GraphNode *n = NODEOBJ(self)->node;
    StrObj *op = vm_intern_str(vm, graph_node_kind_name(n ? n->kind : NODEOBJ(self)->erased_kind));
    return op ? val_obj(op) : val_null();
}

static Value n_get_name(VM *vm, Value self, void *c) {
    (void)c;
    if (NODEOBJ(self)->erased_name) return val_obj(NODEOBJ(self)->erased_name);
    GraphNode *n = live_node(vm, self);
    if (!n) return val_null();
    StrObj *s = str_from_c(vm, n->name);
    return s ? val_obj(s) : val_null();
}

static Value n_get_target(VM *vm, Value self, void *c) {
    (void)c;
    if (NODEOBJ(self)->erased_name) return NODEOBJ(self)->erased_target;
    GraphNode *n = live_node(vm, self);
    if (!n) return val_null();
    if (n->target_value) return opaque_value(vm, n->target_value);
    StrObj *s = str_from_c(vm, n->target);
    return s ? val_obj(s) : val_null();
}

static Value n_get_graph(VM *vm, Value self, void *c) {
    (void)vm, (void)c;
    return val_obj(NODEOBJ(self)->graph);
}

static Value n_get_args(VM *vm, Value self, void *c) {
    (void)c;
    GraphNode *n = NODEOBJ(self)->node;
    if (!n) return val_obj(vm->empty_tuple);
    GraphArg t = graph_arg_seq(GARG_TUPLE, n->args, n->n_args);
    return from_seq(vm, &t);
}

static Value n_get_kwargs(VM *vm, Value self, void *c) {
    (void)c;
    GraphNode *n = NODEOBJ(self)->node;
    DictObj *d = dict_new(vm);
    if (!d || !n) return d ? val_obj(d) : val_null();
    vm_push_root(vm, val_obj(d));
    for (int i = 0; i < n->n_kwargs; i++) {
        StrObj *k = str_from_c(vm, n->kwnames[i]);
        if (!k) goto fail;
        vm_push_root(vm, val_obj(k));
        Value v = from_arg(vm, &n->kwargs[i]);
        int rc = val_is_null(v) ? -1 : dict_set(vm, d, val_obj(k), v);
        vm_pop_root(vm);
        if (rc < 0) goto fail;
    }
    vm_pop_root(vm);
    return val_obj(d);
fail:
    vm_pop_root(vm);
    return val_null();
}

static int set_call(VM *vm, Value self, Value args, Value kwargs) {
    GraphNode *n = live_node(vm, self);
    if (!n) return -1;
    FxGraphObj *go = NODEOBJ(self)->graph;
    CallArgs c;
    if (to_call(vm, go, args, kwargs, &c) < 0) return -1;
    graph_node_set_call(go->g, n, n->kind, n->target, c.args, c.n_args, c.kwnames, c.kwargs, c.n_kwargs);
    release_call(&c);
    return 0;
}

static int n_set_args(VM *vm, Value self, Value v, void *c) {
    (void)c;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "cannot delete Node.args");
        return -1;
    }
    if (!vm_isinstance_type(vm, v, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "Node.args must be a tuple");
        return -1;
    }
    Value kwargs = n_get_kwargs(vm, self, NULL);
    if (val_is_null(kwargs)) return -1;
    vm_push_root(vm, kwargs);
    int rc = set_call(vm, self, v, kwargs);
    vm_pop_root(vm);
    return rc;
}

static int n_set_kwargs(VM *vm, Value self, Value v, void *c) {
    (void)c;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "cannot delete Node.kwargs");
        return -1;
    }
    if (!vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "Node.kwargs must be a dict");
        return -1;
    }
    Value args = n_get_args(vm, self, NULL);
    if (val_is_null(args)) return -1;
    vm_push_root(vm, args);
    int rc = set_call(vm, self, args, v);
    vm_pop_root(vm);
    return rc;
}

static Value neighbour(FxNodeObj *no, bool next) {
    if (!no->node) {
        FxNodeObj *e = next ? no->erased_next : no->erased_prev;
        return e ? val_obj(e) : val_none();
    }
    GraphNode *m = next ? no->node->next : no->node->prev;
    return m ? val_obj(NODE_OF(m)) : val_none();
}

static Value n_get_next(VM *vm, Value self, void *c) {
    (void)vm, (void)c;
    return neighbour(NODEOBJ(self), true);
}

static Value n_get_prev(VM *vm, Value self, void *c) {
    (void)vm, (void)c;
    return neighbour(NODEOBJ(self), false);
}

static Value n_get_erased(VM *vm, Value self, void *c) {
    (void)vm, (void)c;
    return val_bool(NODEOBJ(self)->node == NULL);
}

static bool arg_mentions(const GraphArg *a, const GraphNode *n) {
    if (a->kind == GARG_NODE) return a->as.node == n;
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++)
            if (arg_mentions(&a->as.seq.items[i], n)) return true;
    return false;
}

static bool uses(const GraphNode *user, const GraphNode *n) {
    for (int i = 0; i < user->n_args; i++)
        if (arg_mentions(&user->args[i], n)) return true;
    for (int i = 0; i < user->n_kwargs; i++)
        if (arg_mentions(&user->kwargs[i], n)) return true;
    return false;
}

/* users: {user: None} in graph order */
static Value n_get_users(VM *vm, Value self, void *c) {
    (void)c;
    DictObj *d = dict_new(vm);
    GraphNode *n = NODEOBJ(self)->node;
    if (!d || !n) return d ? val_obj(d) : val_null();
    vm_push_root(vm, val_obj(d));
    for (GraphNode *u = NODEOBJ(self)->graph->g->first; u; u = u->next)
        if (uses(u, n) && dict_set(vm, d, val_obj(NODE_OF(u)), val_none()) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    vm_pop_root(vm);
    return val_obj(d);
}

static int collect_inputs(VM *vm, const GraphArg *a, ListObj *l) {
    if (a->kind == GARG_NODE && a->as.node) {
        Value v = val_obj(NODE_OF(a->as.node));
        for (int64_t i = 0; i < l->len; i++)
            if (val_identical(l->items[i], v)) return 0;
        return list_append(vm, l, v);
    }
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++)
            if (collect_inputs(vm, &a->as.seq.items[i], l) < 0) return -1;
    return 0;
}

/* all_input_nodes: the nodes in args then kwargs, first mention first */
static Value n_get_all_input_nodes(VM *vm, Value self, void *c) {
    (void)c;
    ListObj *l = list_new(vm, 4);
    GraphNode *n = NODEOBJ(self)->node;
    if (!l || !n) return l ? val_obj(l) : val_null();
    vm_push_root(vm, val_obj(l));
    int rc = 0;
    for (int i = 0; i < n->n_args && rc == 0; i++) rc = collect_inputs(vm, &n->args[i], l);
    for (int i = 0; i < n->n_kwargs && rc == 0; i++) rc = collect_inputs(vm, &n->kwargs[i], l);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

/* _set_printed(target_str_or_None, type_repr_or_None): what graph code shows for the target of a
 * call_function node and for the value's annotation */
static Value n_set_printed(ARGS) {
    if (native_check_args(vm, "_set_printed", argc, kw, 3, 3) < 0) return val_null();
    GraphNode *n = live_node(vm, argv[0]);
    if (!n) return val_null();
    Graph *g = NODEOBJ(argv[0])->graph->g;
    if (val_is_str(vm, argv[1])) {
        free(n->target);
        n->target = strdup(AS_STR(argv[1])->data);
        EM_ASSERT(n->target != NULL, "out of memory");
    }
    graph_node_set_type_repr(g, n, val_is_str(vm, argv[2]) ? AS_STR(argv[2])->data : NULL);
    return val_none();
}

/* _replace_uses(replacement): every use of this node in the graph becomes `replacement` */
static Value n_replace_uses(ARGS) {
    if (native_check_args(vm, "_replace_uses", argc, kw, 2, 2) < 0) return val_null();
    GraphNode *n = live_node(vm, argv[0]);
    if (!n) return val_null();
    FxGraphObj *go = NODEOBJ(argv[0])->graph;
    GraphNode *r;
    if (node_arg(vm, go, argv[1], "replace_with", &r) < 0) return val_null();
    if (!r) return vm_raise(vm, vm->e_ValueError, "replace_with is None");
    graph_replace_uses(go->g, n, r);
    return val_none();
}

/* ---- exec -------------------------------------------------------------------------------------------------------- */

/* _exec(src, globals, filename): compile src with the VM's compiler and run it in the dict
 * globals (fx's exec(compile(src, key, 'exec'), globals)); tracebacks show its lines. */
static Value f_exec(ARGS) {
    if (native_check_args(vm, "_exec", argc, kw, 3, 3) < 0) return val_null();
    if (!val_is_str(vm, argv[0]) || !vm_isinstance_type(vm, argv[1], vm->t_dict) || !val_is_str(vm, argv[2]))
        return vm_raise(vm, vm->e_TypeError, "_exec(src: str, globals: dict, filename: str)");
    if (!vm->compile) return vm_raise(vm, vm->e_RuntimeError, "no compiler installed");
    StrObj *src = AS_STR(argv[0]);
    DictObj *globals = (DictObj *)argv[1].as.o;
    if (val_is_null(dict_get_c(vm, globals, "__builtins__")) &&
        dict_set_c(vm, globals, "__builtins__", val_obj(vm->builtins)) < 0)
        return val_null();
    const char *filename = AS_STR(argv[2])->data;
    exc_register_source(filename, src->data, (size_t)src->len);
    CodeObj *co = vm->compile(vm, src->data, (size_t)src->len, filename, 0);
    if (!co) return val_null();
    vm_push_root(vm, val_obj(co));
    Value r = vm_run_code(vm, co, globals, globals);
    vm_pop_root(vm);
    return val_is_null(r) ? r : val_none();
}

/* _caller_unpack_count(): when the script function calling this native was itself called by an
 * UNPACK_SEQUENCE of its caller (`a, b = proxy` calling Proxy.__iter__), that instruction's count;
 * else None (fx reads the calling frame's instruction with dis for the same purpose). */
static Value f_caller_unpack_count(ARGS) {
    (void)argv;
    if (native_check_args(vm, "_caller_unpack_count", argc, kw, 0, 0) < 0) return val_null();
    Frame *f = vm->frame ? vm->frame->prev : NULL;
    if (!f || f->ip < 0 || f->ip >= f->code->ncode) return val_none();
    const Instr *in = &f->code->code[f->ip];
    return in->op == OP_UNPACK_SEQUENCE ? val_int(in->arg) : val_none();
}

/* _caller_globals(): (globals, at_module_level) of the frame that called the script function
 * calling this native (fx's wrap() reads them with inspect.currentframe().f_back). */
static Value f_caller_globals(ARGS) {
    (void)argv;
    if (native_check_args(vm, "_caller_globals", argc, kw, 0, 0) < 0) return val_null();
    Frame *f = vm->frame ? vm->frame->prev : NULL;
    if (!f) return val_none();
    TupleObj *t = tuple_pack(vm, 2, val_obj(f->globals), val_bool(f->func == NULL && f->locals_dict == f->globals));
    return t ? val_obj(t) : val_null();
}

static Value f_set_node_class(ARGS) {
    if (argc != 1 || kw || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !type_is_subtype(AS_TYPE(argv[0]), torch_state(vm)->t_fx_node))
        return vm_raise(vm, vm->e_TypeError, "_set_node_class(cls): cls must be a NodeBase subclass");
    torch_state(vm)->fx_node_class = AS_TYPE(argv[0]);
    return val_none();
}

static int fx_module_init(VM *vm, Value mod) {
    TorchState *ts = torch_state(vm);
    if (!ts) return vm_raise(vm, vm->e_ImportError, "torch._C._fx needs torch._C"), -1;
    ts->fx_node_class = NULL;
    TypeObj *tg = type_new_builtin(vm, "GraphBase", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(FxGraphObj),
                                   offsetof(FxGraphObj, dict), graph_trace, graph_finalize, TYPEF_BASETYPE);
    if (!tg || module_set(vm, mod, "GraphBase", val_obj(tg)) < 0) return -1;
    ts->t_fx_graph = tg;
    TypeObj *tn = type_new_builtin(vm, "NodeBase", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(FxNodeObj),
                                   offsetof(FxNodeObj, dict), node_trace, NULL, TYPEF_BASETYPE | TYPEF_ABSTRACT_NEW);
    if (!tn || module_set(vm, mod, "NodeBase", val_obj(tn)) < 0) return -1;
    ts->t_fx_node = tn;
    tg->module = tn->module = vm_intern(vm, "torch._C._fx");
    static const MethodDef gm[] = {
        {"__init__", g_init, NATIVEF_METHOD},
        {"_create_node", g_create_node, NATIVEF_METHOD},
        {"_reserve_name", g_reserve_name, NATIVEF_METHOD},
        {"_first", g_first, NATIVEF_METHOD | ARITY_NOARGS},
        {"_last", g_last, NATIVEF_METHOD | ARITY_NOARGS},
        {"__len__", g_len, NATIVEF_METHOD | ARITY_NOARGS},
        {"_move_before", g_move_before, NATIVEF_METHOD},
        {"_erase", g_erase, NATIVEF_METHOD},
        {"_code", g_code, NATIVEF_METHOD | ARITY_NOARGS},
        {"_tabular", g_tabular, NATIVEF_METHOD | ARITY_NOARGS},
        {"_dot", g_dot, NATIVEF_METHOD | ARITY_NOARGS},
        {"_verify", g_verify, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const MethodDef nm[] = {
        {"_set_printed", n_set_printed, NATIVEF_METHOD},
        {"_replace_uses", n_replace_uses, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef ngs[] = {
        {"op", n_get_op, NULL},
        {"name", n_get_name, NULL},
        {"target", n_get_target, NULL},
        {"graph", n_get_graph, NULL},
        {"args", n_get_args, n_set_args},
        {"kwargs", n_get_kwargs, n_set_kwargs},
        {"_next", n_get_next, NULL},
        {"_prev", n_get_prev, NULL},
        {"_erased", n_get_erased, NULL},
        {"users", n_get_users, NULL},
        {"all_input_nodes", n_get_all_input_nodes, NULL},
        {NULL}};
    if (type_add_methods(vm, tg, gm) < 0 || type_add_methods(vm, tn, nm) < 0 || type_add_getsets(vm, tn, ngs) < 0)
        return -1;
    static const MethodDef fns[] = {
        {"_exec", f_exec},
        {"_set_node_class", f_set_node_class},
        {"_caller_unpack_count", f_caller_unpack_count},
        {"_caller_globals", f_caller_globals},
        {NULL}};
    return module_add_functions(vm, mod, fns);
}

void torch_fx_register(VM *vm) { vm_register_native_module(vm, "torch._C._fx", fx_module_init); }
