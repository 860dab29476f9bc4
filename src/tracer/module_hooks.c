/* src/tracer/module_hooks.c — tracing a call of an nn.Module that has forward hooks (its own or
 * the global ones), in the order nn.Module.__call__ runs them (src/torch/module_call.c): global
 * then module forward pre-hooks, forward, global then module forward hooks.
 *
 * A script hook is traced inline like any user function (its result replaces the arguments or
 * the output, as __call__ does), so its tensor work joins the graph and its side effects go
 * through SideEffects.  A hook that is Ember's own library code or native — ModTracker's global
 * hooks — is not traced: it becomes a module marker node (marker.c) that the backend runs at
 * that point of the graph with the real values, so the hook sees the same calls compiled as
 * eager and its gradient hooks fire in the compiled backward.  A guard (G_NN_HOOKS) checks on
 * every call that the module and the global hook dicts still hold exactly the traced hooks.
 *
 * Backward hooks (register_full_backward_hook and friends), keyword arguments and hooks taking
 * kwargs are graph breaks: the call then runs natively. */
#include <stdio.h>
#include <stdlib.h>

#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "vm/dict.h"

static bool empty(const DictObj *d) { return !d || d->used == 0; }

/* Library or native code: run as a marker, not traced. */
static bool is_marker_hook(VM *vm, Value hook) {
    if (hook.tag != VAL_OBJ) return false;
    Obj *o = hook.as.o;
    if (o->type->layout == OBJ_LAYOUT_NATIVE) return true;
    if (o->type == vm->t_method) {
        Value f = ((BoundMethodObj *)o)->func;
        if (f.tag != VAL_OBJ) return false;
        o = f.as.o;
        if (o->type->layout == OBJ_LAYOUT_NATIVE) return true;
    }
    return o->type == vm->t_function && (((FunctionObj *)o)->code->flags & CO_LIBRARY);
}

static const char *hook_label(VM *vm, Value hook, char *buf, size_t cap) {
    Value q = hook;
    if (q.tag == VAL_OBJ && q.as.o->type == vm->t_method) q = ((BoundMethodObj *)q.as.o)->func;
    const char *name = q.tag == VAL_OBJ && q.as.o->type == vm->t_function ? ((FunctionObj *)q.as.o)->code->qualname->data
                                                                           : vm_type_name(vm, hook);
    snprintf(buf, cap, "___module_hook(%s)", name);
    return buf;
}

static TxStatus add_marker(Tracer *tr, VT *m, Value hook, bool post, VT **args, int n_args, VT **outs, int n_outs,
                           bool output_tuple) {
    VM *vm = tr->vm;
    int n = n_args + n_outs;
    GraphNode **in = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)(n + 1));
    GraphArg *a = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        VT *v = vt_force(tr, i < n_args ? args[i] : outs[i - n_args]);
        if (v->kind != VT_TENSOR)
            return trace_break(tr, "a module %s hook with a non-tensor %s", post ? "forward" : "forward pre-",
                            i < n_args ? "argument" : "output");
        in[i] = v->node;
        a[i] = graph_arg_node(v->node);
    }
    char label[256];
    hook_label(vm, hook, label, sizeof label);
    GraphArg call[4] = {graph_arg_str(post ? "post" : "pre"), graph_arg_str(m->source ? source_repr(tr, m->source) : "?"),
                        graph_arg_seq(GARG_TUPLE, a, n_args), graph_arg_seq(GARG_TUPLE, a + n_args, n_outs)};
    GraphNode *node = graph_node_new(tr->graph, GRAPH_CALL_FUNCTION, post ? "module_post_hook" : "module_pre_hook",
                                     "torch._dynamo.module_marker", call, post ? 4 : 3, NULL, NULL, 0);
    node->exec.kind = GRAPH_EXEC_MARKER;
    node->exec.n_inputs = n;
    node->exec.inputs = calloc((size_t)(n ? n : 1), sizeof(GraphNode *));
    EM_ASSERT(node->exec.inputs != NULL, "out of memory");
    for (int i = 0; i < n; i++) node->exec.inputs[i] = in[i];
    tracer_node_provenance(tr, node);
    TracerMarker *mk = tracer_marker_new(vm, m->value, hook, post, node->no_grad, n_args, n_outs, output_tuple);
    node->exec.opaque = tracer_opaque_new(&(TracerOpaque){.kind = TOPQ_MARKER, .marker = mk}, label + 3);
    return TX_OK;
}

/* hook(module, *extra) traced inline, or VAL_NULL/status through *s */
static TxStatus call_hook(Tracer *tr, VT *m, Value hook, VT **hargs, int n, VT **out) {
    char label[256];
    VT *h = vt_from_value(tr, hook, source_object(tr, hook, hook_label(tr->vm, hook, label, sizeof label)));
    VT *all[4] = {m, hargs[0], n > 1 ? hargs[1] : NULL, NULL};
    return tr_call(tr, h, n + 1, all, NULL, out);
}

static bool is_none(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    return v->kind == VT_CONST && val_is_none(v->value);
}

TxStatus tracer_module_call_hooked(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    NnModuleObj *mo = (NnModuleObj *)m->value.as.o;
    DictObj *const *g = nn_state(vm)->global;
    if (!m->source) return trace_break(tr, "call of a module with hooks that the tracer cannot name");
    if (!empty(mo->hooks[NN_HOOKS_BWD]) || !empty(mo->hooks[NN_HOOKS_BWD_PRE]) || !empty(g[NN_GLOBAL_BWD]) ||
        !empty(g[NN_GLOBAL_BWD_PRE]))
        return trace_break(tr, "call of a module with backward hooks");
    if (kwnames && kwnames->len) return trace_break(tr, "keyword arguments to a module with hooks");
    if (!empty(mo->hooks[NN_HOOKS_FWD_PRE_KW]) || !empty(mo->hooks[NN_HOOKS_FWD_KW]) || !empty(g[NN_GLOBAL_FWD_KW]))
        return trace_break(tr, "module hooks that take keyword arguments");
    TupleObj *snap = torch_module_hooks_snapshot(vm, mo);
    if (!snap) return TX_ERROR;
    trace_keep(tr, val_obj(snap));
    guard_add(tr, (Guard){.kind = G_NN_HOOKS, .source = m->source, .expected = val_obj(snap)});

    /* the hooks, in __call__'s order; the snapshot keeps them alive while tracing */
    int n = argc;
    VT **a = args;
    DictObj *pre[2] = {g[NN_GLOBAL_FWD_PRE], mo->hooks[NN_HOOKS_FWD_PRE]};
    for (int d = 0; d < 2; d++) {
        int64_t pos = 0;
        Value id, hook;
        while (pre[d] && dict_next(pre[d], &pos, &id, &hook)) {
            if (is_marker_hook(vm, hook)) {
                TxStatus s = add_marker(tr, m, hook, false, a, n, NULL, 0, false);
                if (s) return s;
                continue;
            }
            VT *targs = vt_tuple(tr, a, n), *r;
            TxStatus s = call_hook(tr, m, hook, &targs, 1, &r);
            if (s) return s;
            if (is_none(tr, r)) continue;
            r = vt_force(tr, r);
            if (r->kind == VT_TUPLE) {
                a = r->items;
                n = r->n;
            } else {
                a = trace_arena_alloc(&tr->arena, sizeof(VT *));
                a[0] = r;
                n = 1;
            }
        }
    }
    VT *result;
    TxStatus s = tracer_module_forward(tr, m, n, a, NULL, &result);
    if (s) return s;
    DictObj *post[2] = {g[NN_GLOBAL_FWD], mo->hooks[NN_HOOKS_FWD]};
    for (int d = 0; d < 2; d++) {
        int64_t pos = 0;
        Value id, hook;
        while (post[d] && dict_next(post[d], &pos, &id, &hook)) {
            if (is_marker_hook(vm, hook)) {
                VT *r = vt_force(tr, result);
                bool tuple = r->kind == VT_TUPLE;
                s = add_marker(tr, m, hook, true, a, n, tuple ? r->items : &r, tuple ? r->n : 1, tuple);
                if (s) return s;
                continue;
            }
            VT *hargs[2] = {vt_tuple(tr, a, n), result}, *r;
            s = call_hook(tr, m, hook, hargs, 2, &r);
            if (s) return s;
            if (!is_none(tr, r)) result = r;
        }
    }
    *out = result;
    return TX_OK;
}
