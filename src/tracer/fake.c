/* src/tracer/fake.c — fake tensors: how the tracer runs tensor code without running kernels.
 * This file keeps the fakes (the Tensor* -> tracker map, graph inputs and their twins, the op
 * observer that records nodes, node provenance); fake_call.c calls natives on them.
 *
 * A graph input gets a fake twin: a tensor with the real one's dtype, shape, strides and
 * autograd status (a leaf requiring grad, or a non-leaf) but no data (tensor_empty_meta, as
 * dynamo's FakeTensor: a compile allocates nothing for its parameters' twins, and the bytes it
 * does not allocate do not pace the collector).  The tracer
 * calls the torch binding's own natives (torch.relu, Tensor.sum, Tensor.__add__ ...) on fakes
 * with the tensor library in meta mode, so argument parsing, broadcasting checks, error
 * messages and autograd bookkeeping are the eager ones; the library's op observer hands every
 * top-level op to fake_observe, which records a graph node and maps each output Tensor* to its
 * tracker.  Python numbers that must stay symbolic enter as wrapped-number placeholders (those
 * keep their value: natives that insist on a number read it).
 *
 * Nothing reads or writes a fake's data: natives that would (.item(), .tolist(), printing,
 * equal, a 0-dim tensor as a fill value, torch.tensor of tensors, samplers that fill in place
 * without an op such as cauchy_ or geometric_) are refused by the tracer's deny lists or fail
 * with "... cannot be called on meta tensors" (the tensor library's item, samplers and
 * tensor__begin_inplace check), which becomes a graph break like any error of a native on
 * fakes; ops with data-dependent shapes (nonzero, unique, masked_select) fail in their shape
 * inference; dropout's recorded forward makes meta outputs in meta mode.  Before, fakes had
 * uninitialised storage and such reads baked garbage into the graph
 * (tests/trace/regress/fake_data_reads.py).  A fake never becomes a graph constant
 * (node_for_input, fake_tensor_result). */
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

/* A tensor with m's geometry, storage offset included: code that reads the offset while tracing
 * (x.storage_offset(), a view's own offset) sees the real input's. */
static Tensor *empty_with_geometry(const TensorMeta *m) {
    if (m->offset == 0) return tensor_empty_meta(m->dtype, m->ndim, m->shape, m->strides);
    int64_t extent = 1;
    for (int i = 0; i < m->ndim; i++) {
        if (m->shape[i] == 0) extent = 0;
        if (extent && m->shape[i] > 1) extent += (m->shape[i] - 1) * m->strides[i];
    }
    int64_t n = m->offset + extent, one = 1;
    Tensor *base = tensor_empty_meta(m->dtype, 1, &n, &one);
    if (!base) return NULL;
    Tensor *t = tensor_as_strided(base, m->ndim, m->shape, m->strides, m->offset);
    tensor_decref(base);
    return t;
}

void fake_guard_storage_offset(Tracer *tr, Tensor *fake) {
    for (int i = 0; i < tr->n_graph_inputs; i++) {
        VT *in = tr->input_vts[i];
        if (in->kind != VT_TENSOR || !in->source || val_is_null(in->value) || val_is_null(in->fake)) continue;
        if (tensor_same_storage(torch_tensor_of(in->fake), fake))
            guard_storage_offset(tr, in->source, tensor_storage_offset(torch_tensor_of(in->value)));
    }
}

/* The graph whose placeholders are the frame's inputs (while a backward is recorded into a
 * subgraph, inputs are still the frame's; the subgraph lifts them). */
static Graph *frame_graph(Tracer *tr) { return tr->sub ? tr->sub->outer : tr->graph; }

void fake_remap(Tracer *tr, Tensor *t, VT *v) { map_put(tr, t, v); }

static bool in_sub(const SubGraph *s, const GraphNode *n) {
    for (const GraphNode *m = s->graph->first; m; m = m->next)
        if (m == n) return true;
    return false;
}

GraphNode *fake_sub_node(Tracer *tr, GraphNode *n) {
    SubGraph *s = tr->sub;
    if (!s || !n || in_sub(s, n)) return n;
    for (int i = 0; i < s->n_lifted; i++)
        if (s->outer_nodes[i] == n) return s->placeholders[i];
    if (s->n_lifted == s->cap_lifted) {
        int32_t cap = s->cap_lifted ? s->cap_lifted * 2 : 8;
        GraphNode **o = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)cap);
        GraphNode **p = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)cap);
        if (s->n_lifted) {
            memcpy(o, s->outer_nodes, sizeof(GraphNode *) * (size_t)s->n_lifted);
            memcpy(p, s->placeholders, sizeof(GraphNode *) * (size_t)s->n_lifted);
        }
        s->outer_nodes = o;
        s->placeholders = p;
        s->cap_lifted = cap;
    }
    char name[64];
    snprintf(name, sizeof name, "lifted_%d", s->n_lifted);
    GraphNode *ph = graph_placeholder(s->graph, name, name);
    ph->is_tensor = n->is_tensor;
    ph->meta = n->meta;
    ph->requires_grad = n->requires_grad;
    s->outer_nodes[s->n_lifted] = n;
    s->placeholders[s->n_lifted++] = ph;
    return ph;
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
    Tensor *ft = empty_with_geometry(&m);
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
            a.start = -1;   /* its own offset */
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
    GraphNode *node = graph_placeholder(frame_graph(tr), target, name);
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
    Tensor *ft = tensor_empty_meta(m->dtype, m->ndim, m->shape, m->strides);
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
    GraphNode *node = graph_placeholder(frame_graph(tr), target, name);
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

/* ---- object graph inputs and the module stack ------------------------------------------------ */

GraphNode *tracer_graph_object_input(Tracer *tr, VT *v) {
    if (v->kind == VT_TENSOR) return NULL;
    if (v->graph_input >= 0) return v->node;
    char name[64];
    snprintf(name, sizeof name, "hook_%d", tr->n_graph_inputs);
    GraphNode *p = graph_placeholder(frame_graph(tr), name, name);
    p->is_tensor = false;
    v->node = p;
    tracer_add_input(tr, v);
    return p;
}

/* nn_module_stack metadata: each graph node records the modules whose forward it ran in
 * (outermost first), keyed by the module's source, as dynamo does. */
void tracer_module_stack_push(Tracer *tr, VT *m, TypeObj *t) {
    if (tr->module_depth < 32) {
        GraphModuleFrame *f = &tr->module_stack[tr->module_depth];
        f->key = (char *)(m->source ? source_repr(tr, m->source) : "<module>");
        f->type_name = t->name->data;
    }
    if (tr->n_entered < 256) tr->entered[tr->n_entered++] = m->source ? source_repr(tr, m->source) : "<module>";
    tr->module_depth++;
}

void tracer_module_stack_pop(Tracer *tr) { tr->module_depth--; }

/* ---- the observer --------------------------------------------------------------------------------- */

static GraphNode *node_for_input(Tracer *tr, Tensor *t) {
    VT *v = fake_lookup(tr, t);
    if (v) return v->node;
    if (!tensor_has_data(t)) {
        /* a meta tensor no op made visible (one made inside a native): no value to hold */
        tr->observer_failed = true;
        return NULL;
    }
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
    if (tensor_serial(t) <= tr->serial_at_start) {
        /* older than the trace and not tracked: a tensor of the caller's that reached the op by a
         * path the tracer did not follow (no source, so no guard); as a constant, every later
         * call would reuse this one's values */
        tr->observer_failed = true;
        return NULL;
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
    /* recorded with grad mode off, its outputs do not require grad whatever its inputs do
     * (graph_call_tensor_op derives requires_grad from the inputs alone) */
    if (n->no_grad) n->requires_grad = false;
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
    GraphNode **in_nodes = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)(n_in + 1));
    for (int i = 0; i < n_in; i++) in_nodes[i] = inputs[i] ? fake_sub_node(tr, node_for_input(tr, inputs[i])) : NULL;
    if (tr->observer_failed) return;
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
            /* (a backward being recorded may not change the frame's tensors) */
            if (tr->sub && !in_sub(tr->sub, known->node)) tr->observer_failed = true;
            known->node = on;
            continue;
        }
        VT *v = vt_new(tr, VT_TENSOR);
        v->node = on;
        map_put(tr, outputs[i], v);
    }
}

static bool saved_meta;

void fake_record_begin(Tracer *tr) {
    tensor_set_op_observer(fake_observe, tr);
    saved_meta = tensor_set_meta_mode(true);
}

void fake_record_end(Tracer *tr) {
    (void)tr;
    tensor_set_meta_mode(saved_meta);
    tensor_set_op_observer(NULL, NULL);
}

/* ---- results back to trackers ---------------------------------------------------------------------- */

/* A tensor a native returned while tracing: the tracker of the fake it is, a detach() node for an
 * alias made without an op, or a constant for a tensor made from data during the trace (one that
 * existed before it is the caller's, which only a source and a guard can bring in: a break). */
VT *fake_tensor_result(Tracer *tr, Value v) {
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
    /* made at trace time without an op (torch.tensor(data)): a constant, copied per call; a
     * meta tensor here came from a fake by a path the graph did not see */
    if (!tensor_has_data(t)) {
        tr->observer_failed = true;
        return vt_none(tr);
    }
    /* an existing tensor of the caller's a native handed back, untracked: not a constant (node_for_input) */
    if (tensor_serial(t) <= tr->serial_at_start) {
        tr->observer_failed = true;
        return vt_none(tr);
    }
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
