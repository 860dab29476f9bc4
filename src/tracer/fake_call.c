/* src/tracer/fake_call.c — calling the torch binding's natives (torch functions, tensor methods,
 * operators, indexing, attributes) on fake tensors while the op observer records (fake.c): the
 * trackers become real values (symbolic numbers enter as wrapped-number graph inputs), the one
 * recorded op gets the user's call view (target, arguments as the user wrote them), an error
 * becomes a graph break (eager raises it again with the user's traceback), and the result comes
 * back as trackers. */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/str.h"

/* ---- calling natives on fakes ------------------------------------------------------------------- */

static GraphArg vt_graph_arg(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_TENSOR: return graph_arg_node(v->node);
    case VT_SYMNUM: return v->twin ? graph_arg_node(v->twin->node) : graph_arg_none();
    case VT_CONST: {
        Value c = v->value;
        switch (c.tag) {
        case VAL_INT: return graph_arg_int(c.as.i);
        case VAL_FLOAT: return graph_arg_float(c.as.f);
        case VAL_BOOL: return graph_arg_bool(c.as.b);
        case VAL_NONE: return graph_arg_none();
        default: break;
        }
        TorchState *ts = torch_state(tr->vm);
        if (val_is_str(tr->vm, c)) return graph_arg_str(AS_STR(c)->data);
        TensorDtype d;
        if (ts && c.tag == VAL_OBJ && c.as.o->type == ts->t_dtype && torch_dtype_of(tr->vm, c, &d) == 0)
            return graph_arg_dtype(d);
        if (c.tag == VAL_OBJ && c.as.o->type->layout == OBJ_LAYOUT_TUPLE) {
            TupleObj *t = AS_TUPLE(c);
            GraphArg *items = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(t->len + 1));
            for (int64_t i = 0; i < t->len; i++) items[i] = vt_graph_arg(tr, vt_const(tr, t->items[i]));
            return graph_arg_seq(GARG_TUPLE, items, (int)t->len);
        }
        Value r = vm_repr(tr->vm, c);
        if (val_is_null(r)) {
            vm_clear_exc(tr->vm);
            return graph_arg_none();
        }
        GraphOpaque *o = graph_opaque_new(NULL, NULL, AS_STR(r)->data);
        GraphArg a = graph_arg_opaque(o);
        return a;
    }
    case VT_TUPLE: case VT_LIST: {
        GraphArg *items = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(v->n + 1));
        for (int i = 0; i < v->n; i++) items[i] = vt_graph_arg(tr, vt_item(tr, v, i));
        return graph_arg_seq(v->kind == VT_TUPLE ? GARG_TUPLE : GARG_LIST, items, v->n);
    }
    case VT_SLICE: {
        GraphArg *items = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * 3);
        for (int i = 0; i < 3; i++) items[i] = vt_graph_arg(tr, vt_item(tr, v, i));
        return graph_arg_seq(GARG_SLICE, items, 3);
    }
    default: {
        GraphOpaque *o = graph_opaque_new(NULL, NULL, vt_kind_name(v->kind));
        return graph_arg_opaque(o);
    }
    }
}

static void release_opaque_args(GraphArg *a, int n) {
    for (int i = 0; i < n; i++) {
        if (a[i].kind == GARG_OPAQUE) graph_opaque_decref(a[i].as.opaque);
        if (a[i].kind == GARG_TUPLE || a[i].kind == GARG_LIST || a[i].kind == GARG_SLICE)
            release_opaque_args(a[i].as.seq.items, a[i].as.seq.n);
    }
}

/* Values for a native call: symbolic numbers enter the graph as inputs; anything without a
 * real value is a break. */
static TxStatus to_values(Tracer *tr, VT **vts, int n, Value *vals, const char *target) {
    for (int i = 0; i < n; i++) {
        VT *a = vt_force(tr, vts[i]);
        if (a->kind == VT_SYMNUM) {
            VT *tv = fake_input_symnum(tr, a);
            if (!tv) return trace_error(tr);
            vals[i] = tv->fake;
            continue;
        }
        const char *why = NULL;
        vals[i] = vt_to_value(tr, a, &why);
        if (val_is_null(vals[i]))
            return trace_break(tr, "%s with %s", target, why ? why : "an argument the tracer cannot pass");
    }
    return TX_OK;
}

/* A result the binding turned into a leaf requiring grad without an op (factory functions'
 * requires_grad=True): the graph cannot reproduce that, so eager runs it. */
static bool made_leaf_requiring_grad(Tracer *tr, VT *v) {
    if (v->kind == VT_TENSOR)
        return !v->source && !val_is_null(v->fake) && v->node && !v->node->requires_grad &&
               ag_requires_grad(torch_tensor_of(v->fake)) && ag_is_leaf(torch_tensor_of(v->fake));
    if (v->kind == VT_TUPLE || v->kind == VT_LIST)
        for (int i = 0; i < v->n; i++)
            if (made_leaf_requiring_grad(tr, v->items[i])) return true;
    return false;
}

static void window_open(Tracer *tr) {
    tr->ops_in_call = 0;
    tr->first_call_node = NULL;
    tr->observer_failed = false;
    tensor_error_clear();
    fake_record_begin(tr);
}

/* Close the window: give the single recorded op the user's call view, turn errors into breaks
 * (the eager run raises them again with the user's traceback), and wrap the result. */
static TxStatus window_close(Tracer *tr, Value r, GraphNodeKind kind, const char *target, GraphArg *cargs, int npos,
                             const char **ckn, GraphArg *ckw, int nkw, VT **out) {
    VM *vm = tr->vm;
    fake_record_end(tr);
    if (tr->ops_in_call == 1 && tr->first_call_node && target && !val_is_null(r))
        graph_node_set_call(tr->graph, tr->first_call_node, kind, target, cargs, npos, ckn, ckw, nkw);
    release_opaque_args(cargs, npos);
    if (ckw) release_opaque_args(ckw, nkw);
    if (val_is_null(r)) {
        Value e = vm_fetch_exc(vm);
        vm_push_root(vm, e);
        Value msg = val_is_null(e) ? e : vm_str(vm, e);
        if (val_is_null(msg)) vm_clear_exc(vm);
        TxStatus st = trace_break(tr, "%s raised %s: %s", target ? target : "an op",
                               val_is_null(e) ? "an error" : vm_type_name(vm, e),
                               val_is_null(msg) ? "" : AS_STR(msg)->data);
        vm_pop_root(vm);
        return st;
    }
    if (tr->observer_failed) return trace_break(tr, "%s: an op the graph cannot hold", target ? target : "an op");
    trace_keep(tr, r);
    if (!out) return TX_OK;
    *out = vt_from_result(tr, r);
    if (tr->observer_failed) return trace_break(tr, "%s returned a view the graph cannot reproduce", target ? target : "an op");
    if (!*out) return trace_error(tr);
    if (made_leaf_requiring_grad(tr, *out))
        return trace_break(tr, "%s made a leaf that requires grad (requires_grad=True in the region)", target ? target : "an op");
    return TX_OK;
}

static TxStatus fake_call_once(Tracer *tr, Value callable, int argc, VT **argv, TupleObj *kwnames, GraphNodeKind kind,
                               const char *target, VT **out);

/* Symbolic numbers go in as wrapped-number graph inputs; where the native insists on a Python
 * number (sizes, fill values) it refuses the tensor, and the call is retried specialised. */
TxStatus fake_call_vts(Tracer *tr, Value callable, int argc, VT **argv, TupleObj *kwnames, GraphNodeKind kind,
                       const char *target, VT **out) {
    int total = argc + (kwnames ? (int)kwnames->len : 0);
    bool has_sym = false;
    for (int i = 0; i < total; i++) has_sym |= vt_force(tr, argv[i])->kind == VT_SYMNUM;
    bool had_break = tr->have_break;
    TxStatus s = fake_call_once(tr, callable, argc, argv, kwnames, kind, target, out);
    if (s != TX_BREAK || !has_sym || had_break) return s;
    tr->have_break = false;
    VT **spec = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(total + 1));
    for (int i = 0; i < total; i++) spec[i] = tr_specialize(tr, argv[i]);
    return fake_call_once(tr, callable, argc, spec, kwnames, kind, target, out);
}

static TxStatus fake_call_once(Tracer *tr, Value callable, int argc, VT **argv, TupleObj *kwnames, GraphNodeKind kind,
                               const char *target, VT **out) {
    VM *vm = tr->vm;
    int nkw = kwnames ? (int)kwnames->len : 0;
    int total = argc + nkw;
    Value *vals = trace_arena_alloc(&tr->arena, sizeof(Value) * (size_t)(total + 1));
    TxStatus s = to_values(tr, argv, total, vals, target);
    if (s) return s;
    /* a torch.Generator object is state the graph cannot hold: the op runs eagerly */
    for (int i = 0; i < nkw; i++)
        if (strcmp(AS_STR(kwnames->items[i])->data, "generator") == 0 && !val_is_none(vals[argc + i]))
            return trace_break(tr, "%s with generator=", target ? target : "a random op");
    GraphArg *cargs = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(argc + 1));
    GraphArg *ckw = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(nkw + 1));
    const char **ckn = trace_arena_alloc(&tr->arena, sizeof(char *) * (size_t)(nkw + 1));
    for (int i = 0; i < argc; i++) cargs[i] = vt_graph_arg(tr, argv[i]);
    for (int i = 0; i < nkw; i++) {
        ckw[i] = vt_graph_arg(tr, argv[argc + i]);
        ckn[i] = AS_STR(kwnames->items[i])->data;
    }
    /* Running an op on fakes must not draw from the default generator: the graph draws when it
     * runs, in eager's order (a random kernel run here would shift every later number).  The
     * state is saved in the tracer state's buffer, made once: a generator of its own for every
     * fake call was a 5 KiB malloc and a 624-word seeding thrown away by the copy (a nested fake
     * call, finding the buffer held, makes one). */
    TracerState *st = tracer_state(vm);
    if (!st->rng_saved && !(st->rng_saved = tensor_generator_new())) return trace_error(tr);
    bool own = !st->rng_busy;
    TensorGenerator *saved = own ? st->rng_saved : tensor_generator_new();
    if (!saved) return trace_error(tr);
    st->rng_busy = true;
    tensor_generator_copy(saved, tensor_default_generator());
    window_open(tr);
    Value r = vm_call(vm, callable, argc, vals, kwnames);
    tensor_generator_copy(tensor_default_generator(), saved);
    if (own)
        st->rng_busy = false;
    else
        tensor_generator_free(saved);
    return window_close(tr, r, kind, target, cargs, argc, ckn, ckw, nkw, out);
}

TxStatus fake_call(Tracer *tr, Value callable, int argc, Value *argv, TupleObj *kwnames, const char *target, VT **out) {
    VT **vts = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + 1));
    for (int i = 0; i < argc; i++) vts[i] = vt_from_result(tr, argv[i]);
    return fake_call_vts(tr, callable, argc, vts, kwnames, GRAPH_CALL_FUNCTION, target, out);
}

static const char *const binop_targets[13] = {
    "operator.add", "operator.and_", "operator.floordiv", "operator.lshift", "operator.matmul", "operator.mul",
    "operator.mod", "operator.or_", "operator.pow", "operator.rshift", "operator.sub", "operator.truediv",
    "operator.xor"};
static const char *const ibinop_targets[13] = {
    "operator.iadd", "operator.iand", "operator.ifloordiv", "operator.ilshift", "operator.imatmul", "operator.imul",
    "operator.imod", "operator.ior", "operator.ipow", "operator.irshift", "operator.isub", "operator.itruediv",
    "operator.ixor"};
static const char *const cmp_targets[6] = {"operator.lt", "operator.le", "operator.eq",
                                           "operator.ne", "operator.gt", "operator.ge"};

TxStatus fake_binary(Tracer *tr, int op, VT *a, VT *b, VT **out) {
    VT *vts[2] = {a, b};
    Value v[2];
    const char *target = op >= BINOP_INPLACE ? ibinop_targets[op - BINOP_INPLACE] : binop_targets[op];
    TxStatus s = to_values(tr, vts, 2, v, target);
    if (s) return s;
    GraphArg cargs[2] = {vt_graph_arg(tr, a), vt_graph_arg(tr, b)};
    window_open(tr);
    Value r;
    if (op % BINOP_INPLACE == BINOP_TRUE_DIVIDE && a->kind == VT_SYMNUM && b->kind == VT_TENSOR)
        /* number / tensor runs the tensor's __rtruediv__ in eager (reciprocal, then times the
         * number: tensor_methods.c); a symbolic number is a wrapped tensor here, whose own
         * __truediv__ would divide and round once, so the reflected method is called as eager
         * reaches it */
        r = vm_call_method(tr->vm, v[1], "__rtruediv__", 1, &v[0]);
    else
        r = vm_binary_op(tr->vm, op, v[0], v[1]);
    return window_close(tr, r, GRAPH_CALL_FUNCTION, target, cargs, 2, NULL, NULL, 0, out);
}

TxStatus fake_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out) {
    VT *vts[2] = {a, b};
    Value v[2];
    TxStatus s = to_values(tr, vts, 2, v, cmp_targets[op]);
    if (s) return s;
    GraphArg cargs[2] = {vt_graph_arg(tr, a), vt_graph_arg(tr, b)};
    window_open(tr);
    Value r = vm_compare(tr->vm, op, v[0], v[1]);
    return window_close(tr, r, GRAPH_CALL_FUNCTION, cmp_targets[op], cargs, 2, NULL, NULL, 0, out);
}

TxStatus fake_unary(Tracer *tr, int opcode, VT *a, VT **out) {
    Value v;
    const char *target = opcode == OP_UNARY_NEGATIVE ? "operator.neg"
                         : opcode == OP_UNARY_POSITIVE ? "operator.pos"
                         : opcode == OP_UNARY_INVERT ? "operator.invert" : "operator.not_";
    TxStatus s = to_values(tr, &a, 1, &v, target);
    if (s) return s;
    GraphArg cargs[1] = {vt_graph_arg(tr, a)};
    window_open(tr);
    Value r = vm_unary_op(tr->vm, opcode, v);
    return window_close(tr, r, GRAPH_CALL_FUNCTION, target, cargs, 1, NULL, NULL, 0, out);
}

TxStatus fake_getitem(Tracer *tr, VT *c, VT *k, VT **out) {
    VT *vts[2] = {c, k};
    Value v[2];
    TxStatus s = to_values(tr, vts, 2, v, "operator.getitem");
    if (s) return s;
    GraphArg cargs[2] = {vt_graph_arg(tr, c), vt_graph_arg(tr, k)};
    window_open(tr);
    Value r = vm_getitem(tr->vm, v[0], v[1]);
    return window_close(tr, r, GRAPH_CALL_FUNCTION, "operator.getitem", cargs, 2, NULL, NULL, 0, out);
}

TxStatus fake_setitem(Tracer *tr, VT *c, VT *k, VT *val) {
    VT *vts[3] = {c, k, val};
    Value v[3];
    TxStatus s = to_values(tr, vts, 3, v, "operator.setitem");
    if (s) return s;
    GraphArg cargs[3] = {vt_graph_arg(tr, c), vt_graph_arg(tr, k), vt_graph_arg(tr, val)};
    window_open(tr);
    Value r = vm_setitem(tr->vm, v[0], v[1], v[2]) < 0 ? val_null() : val_none();
    return window_close(tr, r, GRAPH_CALL_FUNCTION, "operator.setitem", cargs, 3, NULL, NULL, 0, NULL);
}

/* A tensor attribute computed by ops (x.T, x.mT) or read from the fake (shape, dtype...). */
TxStatus fake_getattr(Tracer *tr, VT *t, StrObj *name, VT **out) {
    Value v;
    TxStatus s = to_values(tr, &t, 1, &v, name->data);
    if (s) return s;
    GraphArg cargs[1] = {vt_graph_arg(tr, t)};
    window_open(tr);
    Value r = vm_getattr(tr->vm, v, name);
    return window_close(tr, r, GRAPH_CALL_FUNCTION, "getattr", cargs, 1, NULL, NULL, 0, out);
}
