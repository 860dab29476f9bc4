/* eager.c — the one graph interpreter: runs a graph node by node with recording ops
 * (ag_op_run), so autograd history, hooks on intermediates (registered on the intermediate
 * tensors through the callbacks) and saved-tensor hooks behave exactly as in an uncompiled run.
 * It is the tracer's `eager` backend (vm_backend.c adapts it), the fallback of compiled plans,
 * and runs a backward graph under create_graph (HOOK nodes then call the hook).  Each value is
 * dropped after its last use, as eager code would.  Slots are indexed by node position
 * (graph_renumber), so a call allocates one array. */
#include "src/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

typedef struct Slot {
    Tensor *t;
    Tensor **multi;          /* multi-output ops */
    int n_multi;
    int last;                /* position of the last node reading it; INT32_MAX: an output */
} Slot;

static void slot_clear(Slot *s) {
    tensor_decref(s->t);
    s->t = NULL;
    for (int i = 0; i < s->n_multi; i++) tensor_decref(s->multi[i]);
    free(s->multi);
    s->multi = NULL;
    s->n_multi = 0;
}

static void mark_arg_outputs(const GraphArg *a, Slot *slots) {
    if (a->kind == GARG_NODE) {
        slots[a->as.node->index].last = INT32_MAX;
    } else if (a->kind == GARG_TUPLE || a->kind == GARG_LIST) {
        for (int i = 0; i < a->as.seq.n; i++) mark_arg_outputs(&a->as.seq.items[i], slots);
    }
}

static int fail_at(const GraphNode *n, const char *what) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: %s at node %s", what, n->name);
    return -1;
}

static int run_node(const GraphNode *n, Slot *slots, RtInterpMode mode, RtExec *x, Slot *self) {
    const RtCallbacks *cb = x ? x->cb : NULL;
    Tensor *in[64];
    int n_in = n->exec.n_inputs;
    if (n_in > 64) return fail_at(n, "too many inputs");
    for (int i = 0; i < n_in; i++) {
        in[i] = NULL;
        if (!n->exec.inputs[i]) continue;
        int p = n->exec.inputs[i]->index;
        if (!slots[p].t && n->exec.kind != GRAPH_EXEC_GETITEM) return fail_at(n, "an input has no value");
        in[i] = slots[p].t;
    }
    switch (n->exec.kind) {
    case GRAPH_EXEC_TENSOR_OP: {
        if (n->exec.op == TENSOR_OP_NATIVE_DROPOUT && mode == RT_INTERP_REPLAY) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED,
                             "runtime: double backward through a compiled dropout is not supported (it would draw a new mask)");
            return -1;
        }
        int n_out = n->exec.n_outputs > 0 ? n->exec.n_outputs : 1;
        Tensor **o = calloc((size_t)n_out, sizeof *o);
        if (!o) return tensor__oom();
        int got = ag_op_run(n->exec.op, in, n_in, &n->exec.args, o, n_out);
        if (got < 0) {
            free(o);
            return -1;
        }
        if (n_out == 1 && got == 1) {
            self->t = o[0];
            /* an op on Python numbers stays a number (the wrapped-number flag of its metadata) */
            if (n->meta.wrapped_number) tensor_set_wrapped_number(o[0], true);
            free(o);
        } else {
            self->multi = o;
            self->n_multi = got;
        }
        return 0;
    }
    case GRAPH_EXEC_GETITEM: {
        int p = n->exec.inputs[0]->index;
        if (n->exec.index >= slots[p].n_multi) return fail_at(n, "getitem out of range");
        self->t = slots[p].multi[n->exec.index];
        tensor_incref(self->t);
        return 0;
    }
    case GRAPH_EXEC_CONSTANT:
        self->t = n->exec.constant;
        tensor_incref(self->t);
        return 0;
    case GRAPH_EXEC_HOOK:
        if (mode == RT_INTERP_BACKWARD) {
            self->t = rt_call_hook(cb, n->exec.opaque, in[0]);
            return self->t ? 0 : -1;
        }
        if (mode == RT_INTERP_REPLAY) {
            self->t = in[0];
            tensor_incref(self->t);
            return 0;
        }
        if (!cb || !cb->register_hook) return fail_at(n, "no register_hook callback for a hook");
        tensor_error_clear();
        if (cb->register_hook(cb->ctx, n->exec.opaque, in[0]) < 0) return rt_callback_failed();
        self->t = in[0];
        tensor_incref(self->t);
        return 0;
    case GRAPH_EXEC_MARKER: {
        if (mode == RT_INTERP_REPLAY) return 0;
        if (!cb || !cb->marker) return fail_at(n, "no marker callback for a module marker");
        RtGradHookSink sink = {.n = n_in, .values = in, .marker = -1};
        tensor_error_clear();
        return cb->marker(cb->ctx, n->exec.opaque, n_in, in, &sink) < 0 ? rt_callback_failed() : 0;
    }
    case GRAPH_EXEC_AUTOGRAD_FN: {
        const GraphAutogradFn *f = graph_autograd_fn_of(n);
        int n_out = f ? f->n_outs : 1;
        Tensor **o = calloc((size_t)(n_out ? n_out : 1), sizeof *o);
        if (!o) return tensor__oom();
        if (rt_autograd_fn_apply(n, in, n_in, o) < 0) {
            free(o);
            return -1;
        }
        if (n->exec.n_outputs <= 1) {
            self->t = o[0];
            free(o);
        } else {
            self->multi = o;
            self->n_multi = n_out;
        }
        return 0;
    }
    case GRAPH_EXEC_SCRIPT: case GRAPH_EXEC_CUSTOM_OP: {
        const RtInternal *inn = rt_internal_of(n->exec.opaque);
        if (inn) {
            Tensor *o[1] = {NULL};
            if (rt_run_internal(inn, in, n_in, o, x) < 0) return -1;
            self->t = o[0];
            return 0;
        }
        if (!cb || !cb->script_call) return fail_at(n, "no script_call callback for a script call");
        int n_out = n->exec.n_outputs > 0 ? n->exec.n_outputs : 1;
        Tensor **o = calloc((size_t)n_out, sizeof *o);
        if (!o) return tensor__oom();
        tensor_error_clear();
        if (cb->script_call(cb->ctx, n, in, n_in, o, n_out) < 0) {
            for (int i = 0; i < n_out; i++) tensor_decref(o[i]);
            free(o);
            return rt_callback_failed();
        }
        if (n_out == 1) {
            self->t = o[0];
            free(o);
        } else {
            self->multi = o;
            self->n_multi = n_out;
        }
        return 0;
    }
    default: return fail_at(n, "node cannot be executed");
    }
}

int rt_interpret(const Graph *g, Tensor *const *inputs, int n_inputs, Tensor **outs, int max_outs, RtInterpMode mode,
                 RtExec *x) {
    /* node positions are the graph's own cache (index); renumbering only rewrites it */
    graph_renumber((Graph *)g);
    int n = g->n_nodes, rc = -1, placeholder = 0, written = 0;
    Slot *slots = calloc((size_t)(n ? n : 1), sizeof *slots);
    if (!slots) return tensor__oom();
    int i = 0;
    for (const GraphNode *m = g->first; m; m = m->next, i++) slots[i].last = -1;
    i = 0;
    for (const GraphNode *m = g->first; m; m = m->next, i++) {
        if (m->kind == GRAPH_OUTPUT) {
            for (int a = 0; a < m->n_args; a++) mark_arg_outputs(&m->args[a], slots);
            continue;
        }
        for (int j = 0; j < m->exec.n_inputs; j++) {
            int p = m->exec.inputs[j] ? m->exec.inputs[j]->index : -1;
            if (p >= 0 && slots[p].last != INT32_MAX && slots[p].last < i) slots[p].last = i;
        }
    }
    const GraphNode *out_node = NULL;
    i = 0;
    for (const GraphNode *m = g->first; m; m = m->next, i++) {
        if (m->kind == GRAPH_PLACEHOLDER) {
            if (placeholder >= n_inputs) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph takes more than %d inputs", n_inputs);
                goto done;
            }
            slots[i].t = inputs[placeholder++];
            if (slots[i].t) tensor_incref(slots[i].t);
            continue;
        }
        if (m->kind == GRAPH_OUTPUT) {
            out_node = m;
            continue;
        }
        if (m->kind == GRAPH_GET_ATTR && m->exec.kind != GRAPH_EXEC_CONSTANT) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: get_attr node %s is not supported", m->name);
            goto done;
        }
        /* a node recorded under torch.no_grad() runs without recording, as it did */
        bool grad = ag_is_grad_enabled();
        if (m->no_grad && grad) ag_set_grad_enabled(false);
        int r = run_node(m, slots, mode, x, &slots[i]);
        ag_set_grad_enabled(grad);
        if (r < 0) goto done;
        for (int j = 0; j < m->exec.n_inputs; j++) {
            int p = m->exec.inputs[j] ? m->exec.inputs[j]->index : -1;
            if (p >= 0 && slots[p].last == i) slot_clear(&slots[p]);
        }
        if (slots[i].last < 0) slot_clear(&slots[i]);   /* unused result */
    }
    if (placeholder != n_inputs) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph takes %d inputs, got %d", placeholder, n_inputs);
        goto done;
    }
    if (out_node && out_node->n_args == 1 &&
        (out_node->args[0].kind == GARG_TUPLE || out_node->args[0].kind == GARG_LIST)) {
        const GraphArg *items = out_node->args[0].as.seq.items;
        int k = out_node->args[0].as.seq.n;
        if (k > max_outs) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph has %d outputs, room for %d", k, max_outs);
            goto done;
        }
        for (int j = 0; j < k; j++) {
            outs[j] = NULL;
            if (items[j].kind != GARG_NODE) continue;
            int p = items[j].as.node->index;
            if (!slots[p].t) {
                for (int q = 0; q < j; q++) {
                    tensor_decref(outs[q]);
                    outs[q] = NULL;
                }
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: output %d is not a tensor", j);
                goto done;
            }
            outs[j] = slots[p].t;
            tensor_incref(outs[j]);
        }
        written = k;
    } else if (out_node && out_node->n_args) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: the output node must hold one flat tuple");
        goto done;
    }
    rc = written;
done:
    for (i = 0; i < n; i++) slot_clear(&slots[i]);
    free(slots);
    return rc;
}

int rt_run_eager(const Graph *g, Tensor *const *inputs, int n_inputs, Tensor **outputs, int max_outputs,
                 const RtCallbacks *cb) {
    RtExec x = {cb, NULL, NULL};
    return rt_interpret(g, inputs, n_inputs, outputs, max_outputs, RT_INTERP_FORWARD, &x);
}
