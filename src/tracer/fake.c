/* src/tracer/fake.c — fake tensors: how the tracer runs tensor code without running kernels.
 *
 * A graph input gets a fake twin: a tensor with the real one's dtype, shape, strides and
 * autograd status (a leaf requiring grad, or a non-leaf) but zero-filled storage.  The tracer
 * calls the torch binding's own natives (torch.relu, Tensor.sum, Tensor.__add__ ...) on fakes
 * with the tensor library in meta mode, so argument parsing, broadcasting checks, error
 * messages and autograd bookkeeping are the eager ones; the library's op observer hands every
 * top-level op to fake_observe, which records a graph node and maps each output Tensor* to its
 * tracker.  Python numbers that must stay symbolic enter as wrapped-number placeholders. */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/str.h"

/* ---- Tensor* -> VT map ---------------------------------------------------------------------- */

static uint64_t ptr_hash(const void *p) { return ((uint64_t)(uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull; }

static void map_put(Tracer *tr, Tensor *t, VT *v);
static void map_insert(Tracer *tr, Tensor *t, VT *v, bool take_ref);

/* The map holds a reference to every key: a fake freed while the trace runs would otherwise
 * leave a dangling key, and a new tensor at the same address would be taken for it. */
static void map_grow(Tracer *tr) {
    int32_t old_cap = tr->fake_cap;
    Tensor **ok = tr->fake_keys;
    VT **ov = tr->fake_vals;
    tr->fake_cap = old_cap ? old_cap * 2 : 64;
    tr->fake_keys = calloc((size_t)tr->fake_cap, sizeof(Tensor *));
    tr->fake_vals = calloc((size_t)tr->fake_cap, sizeof(VT *));
    EM_ASSERT(tr->fake_keys && tr->fake_vals, "out of memory");
    tr->fake_len = 0;
    for (int32_t i = 0; i < old_cap; i++)
        if (ok[i]) map_insert(tr, ok[i], ov[i], false);
    free(ok);
    free(ov);
}

static void map_put(Tracer *tr, Tensor *t, VT *v) { map_insert(tr, t, v, true); }

static void map_insert(Tracer *tr, Tensor *t, VT *v, bool take_ref) {
    if ((tr->fake_len + 1) * 2 > tr->fake_cap) map_grow(tr);
    uint32_t mask = (uint32_t)tr->fake_cap - 1;
    for (uint32_t i = (uint32_t)ptr_hash(t) & mask;; i = (i + 1) & mask) {
        if (!tr->fake_keys[i]) {
            if (take_ref) tensor_incref(t);
            tr->fake_keys[i] = t;
            tr->fake_vals[i] = v;
            tr->fake_len++;
            return;
        }
        if (tr->fake_keys[i] == t) {
            tr->fake_vals[i] = v;
            return;
        }
    }
}

VT *fake_lookup(Tracer *tr, Tensor *t) {
    if (!tr->fake_cap || !t) return NULL;
    uint32_t mask = (uint32_t)tr->fake_cap - 1;
    for (uint32_t i = (uint32_t)ptr_hash(t) & mask;; i = (i + 1) & mask) {
        if (!tr->fake_keys[i]) return NULL;
        if (tr->fake_keys[i] == t) return tr->fake_vals[i];
    }
}

bool fake_is_tensor_value(Tracer *tr, Value v) {
    return v.tag == VAL_OBJ && torch_state(tr->vm) && vm_isinstance_type(tr->vm, v, torch_state(tr->vm)->t_tensor) &&
           fake_lookup(tr, torch_tensor_of(v)) != NULL;
}

int fake_begin(Tracer *tr) {
    tr->fake_cap = tr->fake_len = 0;
    tr->fake_keys = NULL;
    tr->fake_vals = NULL;
    return 0;
}

void fake_end(Tracer *tr) {
    for (int32_t i = 0; i < tr->fake_cap; i++)
        if (tr->fake_keys[i]) tensor_decref(tr->fake_keys[i]);
    free(tr->fake_keys);
    free(tr->fake_vals);
    tr->fake_keys = NULL;
    tr->fake_vals = NULL;
    tr->fake_cap = tr->fake_len = 0;
}

/* ---- graph inputs ------------------------------------------------------------------------------ */

void tracer_add_input(Tracer *tr, VT *v) {
    if (tr->n_graph_inputs == tr->cap_inputs) {
        int32_t cap = tr->cap_inputs ? tr->cap_inputs * 2 : 16;
        VT **n = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
        if (tr->n_graph_inputs) memcpy(n, tr->input_vts, sizeof(VT *) * (size_t)tr->n_graph_inputs);
        tr->input_vts = n;
        tr->cap_inputs = cap;
    }
    v->graph_input = tr->n_graph_inputs;
    tr->input_vts[tr->n_graph_inputs++] = v;
}

static void lower_name(const char *in, char *out, size_t cap) {
    snprintf(out, cap, "%s", in);
    if (out[0] >= 'A' && out[0] <= 'Z') out[0] = (char)(out[0] - 'A' + 'a');
}

/* The wrapper of a fake has the real tensor's Python type (Parameter stays Parameter). */
static Value wrap_fake(Tracer *tr, Tensor *ft, TypeObj *type) {
    VM *vm = tr->vm;
    Value w = torch_wrap(vm, ft);
    if (val_is_null(w)) return w;
    if (type && type != torch_state(vm)->t_tensor) w.as.o->type = type;
    trace_keep(tr, w);
    return w;
}

VT *fake_input_tensor(Tracer *tr, Value real, Source *source) {
    VM *vm = tr->vm;
    Tensor *t = torch_tensor_of(real);
    /* the same tensor reached through two sources is one input */
    for (int i = 0; i < tr->n_graph_inputs; i++) {
        VT *in = tr->input_vts[i];
        if (in->kind == VT_TENSOR && val_identical(in->value, real)) {
            if (source && in->source) {
                Guard g = {.kind = G_SAME, .source = source, .other = in->source, .expected = val_null()};
                guard_add(tr, g);
            }
            return in;
        }
    }
    TypeObj *type = vm_type_of(vm, real);
    bool is_param = type != torch_state(vm)->t_tensor && strcmp(type->name->data, "Parameter") == 0;
    TensorMeta m;
    tensor_meta_of(t, &m);
    Tensor *ft = tensor_empty_strided(m.dtype, m.ndim, m.shape, m.strides);
    if (!ft) {
        torch_raise_error(vm);
        return NULL;
    }
    if (tensor_is_wrapped_number(t)) tensor_set_wrapped_number(ft, true);
    bool rg = ag_requires_grad(t);
    if (rg) {
        if (ag_set_requires_grad(ft, true) < 0) tensor_error_clear();
        if (!ag_is_leaf(t)) {
            /* a non-leaf twin: a view of the leaf with the same geometry */
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.ints = m.shape;
            a.n_ints = m.ndim;
            a.ints2 = m.strides;
            a.n_ints2 = m.ndim;
            a.start = 0;
            bool prev = ag_set_grad_enabled(true);
            Tensor *view = ag_op1(TENSOR_OP_AS_STRIDED, &ft, 1, &a);
            ag_set_grad_enabled(prev);
            if (view) {
                tensor_decref(ft);
                ft = view;
            } else {
                tensor_error_clear();
            }
        }
    }
    Value w = wrap_fake(tr, ft, type);
    if (val_is_null(w)) return NULL;
    /* guards: the tensor's metadata, and that distinct inputs stay distinct */
    if (source) {
        guard_tensor(tr, source, t, is_param);
        for (int i = 0; i < tr->n_graph_inputs; i++) {
            VT *in = tr->input_vts[i];
            if (in->kind == VT_TENSOR && in->source) {
                Guard g = {.kind = G_NOT_SAME, .source = source, .other = in->source, .expected = val_null()};
                guard_add(tr, g);
            }
        }
    }
    char target[512], name[512];
    if (source) source_placeholder_name(source, target, sizeof target);
    else snprintf(target, sizeof target, "input_%d", tr->n_graph_inputs);
    lower_name(target, name, sizeof name);
    GraphNode *node = graph_placeholder(tr->graph, target, name);
    node->is_tensor = true;
    node->meta = m;
    node->requires_grad = rg;
    VT *v = vt_new(tr, VT_TENSOR);
    v->node = node;
    v->fake = w;
    v->value = real;
    v->source = source;
    trace_keep(tr, real);
    map_put(tr, torch_tensor_of(w), v);
    tracer_add_input(tr, v);
    return v;
}

VT *fake_output_tensor(Tracer *tr, GraphNode *node, const TensorMeta *m, bool requires_grad) {
    Tensor *ft = tensor_empty_strided(m->dtype, m->ndim, m->shape, m->strides);
    if (!ft) {
        torch_raise_error(tr->vm);
        return NULL;
    }
    if (requires_grad) {
        /* a non-leaf with history, as the op's output is: a view of a leaf that requires grad */
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.ints = m->shape;
        a.n_ints = m->ndim;
        a.ints2 = m->strides;
        a.n_ints2 = m->ndim;
        bool prev = ag_set_grad_enabled(true);
        Tensor *view = ag_set_requires_grad(ft, true) == 0 ? ag_op1(TENSOR_OP_AS_STRIDED, &ft, 1, &a) : NULL;
        ag_set_grad_enabled(prev);
        tensor_decref(ft);
        if (!view) {
            torch_raise_error(tr->vm);
            return NULL;
        }
        ft = view;
    }
    Value w = wrap_fake(tr, ft, NULL);
    if (val_is_null(w)) return NULL;
    node->is_tensor = true;
    node->meta = *m;
    node->requires_grad = requires_grad;
    VT *v = vt_new(tr, VT_TENSOR);
    v->node = node;
    v->fake = w;
    map_put(tr, torch_tensor_of(w), v);
    return v;
}

VT *fake_input_symnum(Tracer *tr, VT *sym) {
    if (sym->graph_input >= 0) return sym->twin;
    VM *vm = tr->vm;
    bool is_float = sym->value.tag == VAL_FLOAT;
    Tensor *ft = is_float ? tensor_full(TENSOR_FLOAT32, 0, NULL, tensor_scalar_f(sym->value.as.f))
                          : tensor_full(TENSOR_INT64, 0, NULL, tensor_scalar_i(val_as_intlike(sym->value)));
    if (!ft) {
        torch_raise_error(vm);
        return NULL;
    }
    tensor_set_wrapped_number(ft, true);
    Value w = wrap_fake(tr, ft, NULL);
    if (val_is_null(w)) return NULL;
    char target[64], name[64];
    snprintf(target, sizeof target, "L_sym_%d_", tr->n_graph_inputs);
    if (sym->source) source_placeholder_name(sym->source, target, sizeof target);
    lower_name(target, name, sizeof name);
    GraphNode *node = graph_placeholder(tr->graph, target, name);
    node->is_tensor = false;
    tensor_meta_of(ft, &node->meta);
    node->meta.wrapped_number = true;
    VT *tv = vt_new(tr, VT_TENSOR);
    tv->node = node;
    tv->fake = w;
    map_put(tr, torch_tensor_of(w), tv);
    /* the input list holds the symbolic number (residual code evaluates it); its tensor twin hangs off it */
    sym->twin = tv;
    tracer_add_input(tr, sym);
    return tv;
}

/* ---- the observer --------------------------------------------------------------------------------- */

static GraphNode *node_for_input(Tracer *tr, Tensor *t) {
    VT *v = fake_lookup(tr, t);
    if (v) return v->node;
    /* a number the binding wrapped (x * 2 through a tensor kernel), or a tensor made at trace time */
    if (tensor_is_wrapped_number(t) && tensor_ndim(t) == 0) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        if (tensor_item(t, &a.scalar) < 0) tensor_error_clear();
        a.dtype = tensor_dtype(t);
        GraphArg call[2] = {graph_arg_seq(GARG_LIST, NULL, 0),
                            a.scalar.kind == TENSOR_FLOAT32 ? graph_arg_float(a.scalar.f) : graph_arg_int(a.scalar.i)};
        GraphNode *n = graph_call_tensor_op(tr->graph, TENSOR_OP_FULL, NULL, 0, &a, "torch.full", call, 2, NULL, NULL, 0);
        n->meta.wrapped_number = true;
        VT *cv = vt_new(tr, VT_TENSOR);
        cv->node = n;
        map_put(tr, t, cv);
        return n;
    }
    tensor_incref(t);
    GraphNode *n = graph_constant(tr->graph, t);
    VT *cv = vt_new(tr, VT_TENSOR);
    cv->node = n;
    map_put(tr, t, cv);
    return n;
}

void tracer_node_provenance(Tracer *tr, GraphNode *n) {
    n->no_grad = !ag_is_grad_enabled();
    int32_t line = trace_current_line(tr);
    if (tr->tx) {
        CodeObj *co = tr->tx->code;
        char code_line[512];
        trace_source_line(co, line, code_line, sizeof code_line);
        graph_node_set_loc(tr->graph, n, co->filename->data, line, co->name->data, code_line);
    }
    if (tr->module_depth > 0)
        graph_node_set_module_stack(tr->graph, n, tr->module_stack, tr->module_depth < 32 ? tr->module_depth : 32);
}

static void fake_observe(void *ctx, TensorOp op, Tensor *const *inputs, int n_in, const TensorOpArgs *args,
                         Tensor *const *outputs, int n_out) {
    Tracer *tr = ctx;
    if (tr->observer_failed) return;
    GraphNode *in_nodes[64];
    if (n_in > 64) {
        tr->observer_failed = true;
        return;
    }
    for (int i = 0; i < n_in; i++) in_nodes[i] = inputs[i] ? node_for_input(tr, inputs[i]) : NULL;
    GraphNode *n = graph_call_tensor_op(tr->graph, op, in_nodes, n_in, args, NULL, NULL, -1, NULL, NULL, 0);
    tracer_node_provenance(tr, n);
    tr->ops_in_call++;
    if (tr->ops_in_call == 1) tr->first_call_node = n;
    unsigned flags = tensor_op_flags(op);
    for (int i = 0; i < n_out; i++) {
        GraphNode *on = n_out == 1 ? n : graph_getitem(tr->graph, n, i);
        if (n_out > 1) on->no_grad = n->no_grad;
        /* the output may be an existing tensor: an in-place op's input, or `x.float()` returning x */
        VT *known = fake_lookup(tr, outputs[i]);
        if (known && (flags & TENSOR_OPF_INPLACE)) {
            known->node = on;
            continue;
        }
        VT *v = vt_new(tr, VT_TENSOR);
        v->node = on;
        map_put(tr, outputs[i], v);
    }
}

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

static bool saved_meta;

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
    tensor_set_op_observer(fake_observe, tr);
    saved_meta = tensor_set_meta_mode(true);
}

/* Close the window: give the single recorded op the user's call view, turn errors into breaks
 * (the eager run raises them again with the user's traceback), and wrap the result. */
static TxStatus window_close(Tracer *tr, Value r, GraphNodeKind kind, const char *target, GraphArg *cargs, int npos,
                             const char **ckn, GraphArg *ckw, int nkw, VT **out) {
    VM *vm = tr->vm;
    tensor_set_meta_mode(saved_meta);
    tensor_set_op_observer(NULL, NULL);
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
    GraphArg *cargs = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(argc + 1));
    GraphArg *ckw = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(nkw + 1));
    const char **ckn = trace_arena_alloc(&tr->arena, sizeof(char *) * (size_t)(nkw + 1));
    for (int i = 0; i < argc; i++) cargs[i] = vt_graph_arg(tr, argv[i]);
    for (int i = 0; i < nkw; i++) {
        ckw[i] = vt_graph_arg(tr, argv[argc + i]);
        ckn[i] = AS_STR(kwnames->items[i])->data;
    }
    window_open(tr);
    Value r = vm_call(vm, callable, argc, vals, kwnames);
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
    Value r = vm_binary_op(tr->vm, op, v[0], v[1]);
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

/* ---- results back to trackers ---------------------------------------------------------------------- */

VT *vt_from_result(Tracer *tr, Value v) {
    VM *vm = tr->vm;
    TorchState *ts = torch_state(vm);
    if (ts && v.tag == VAL_OBJ && vm_isinstance_type(vm, v, ts->t_tensor)) {
        Tensor *t = torch_tensor_of(v);
        VT *known = fake_lookup(tr, t);
        if (known) {
            if (val_is_null(known->fake)) known->fake = v;
            return known;
        }
        /* an alias of a fake made without an op (detach(), .data): the same values, no history */
        for (int32_t i = 0; i < tr->fake_cap; i++) {
            Tensor *k = tr->fake_keys ? tr->fake_keys[i] : NULL;
            if (!k || !tensor_same_storage(k, t)) continue;
            TensorMeta a, b;
            tensor_meta_of(k, &a);
            tensor_meta_of(t, &b);
            bool same = a.dtype == b.dtype && a.ndim == b.ndim && a.offset == b.offset;
            for (int d = 0; same && d < a.ndim; d++) same = a.shape[d] == b.shape[d] && a.strides[d] == b.strides[d];
            if (!same) break;
            TensorOpArgs da = TENSOR_OP_ARGS_INIT;
            GraphNode *src = tr->fake_vals[i]->node;
            GraphNode *dn = graph_call_tensor_op(tr->graph, TENSOR_OP_DETACH, &src, 1, &da, "detach", NULL, -1, NULL, NULL, 0);
            GraphArg call[1] = {graph_arg_node(src)};
            graph_node_set_call(tr->graph, dn, GRAPH_CALL_METHOD, "detach", call, 1, NULL, NULL, 0);
            VT *r = vt_new(tr, VT_TENSOR);
            r->node = dn;
            r->fake = v;
            map_put(tr, t, r);
            return r;
        }
        for (int32_t i = 0; i < tr->fake_cap; i++) {
            Tensor *k = tr->fake_keys ? tr->fake_keys[i] : NULL;
            if (k && tensor_same_storage(k, t)) {
                /* a view made outside the op table: the graph could not reproduce it */
                tr->observer_failed = true;
                return vt_none(tr);
            }
        }
        /* made at trace time without an op (torch.tensor(data)): a constant, copied per call */
        tensor_incref(t);
        GraphNode *c = graph_constant(tr->graph, t);
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        GraphNode *cl = graph_call_tensor_op(tr->graph, TENSOR_OP_CLONE, &c, 1, &a, "torch.clone", NULL, -1, NULL, NULL, 0);
        VT *r = vt_new(tr, VT_TENSOR);
        r->node = cl;
        r->fake = v;
        map_put(tr, t, r);
        return r;
    }
    if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_TUPLE &&
        !(ts && v.as.o->type == ts->t_size)) {
        TupleObj *t = AS_TUPLE(v);
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(t->len + 1));
        for (int64_t i = 0; i < t->len; i++) items[i] = vt_from_result(tr, t->items[i]);
        VT *r = vt_tuple(tr, items, (int)t->len);
        if (v.as.o->type != vm->t_tuple) r->value = v;   /* torch.return_types.*: keeps its type */
        return r;
    }
    if (v.tag == VAL_OBJ && v.as.o->type == vm->t_list) {
        ListObj *l = AS_LIST(v);
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(l->len + 1));
        for (int64_t i = 0; i < l->len; i++) items[i] = vt_from_result(tr, l->items[i]);
        return vt_list(tr, items, (int)l->len);
    }
    return vt_from_value(tr, v, NULL);
}
