/* src/tracer/custom_ops.c — tracing calls of custom ops (torch.ops.<ns>.<name>), which their
 * owner (src/ffi) describes through the TraceCustomOps table it registers (backend.h).
 * A call becomes one GRAPH_EXEC_CUSTOM_OP node: its call view is the op's schema arguments in
 * order (tensors as nodes, numbers as constants, defaults filled in), its execution view the
 * tensor arguments, its opaque the op.  Output metadata comes from the op's meta function
 * (the table's infer), so no kernel runs while tracing; the backends run the node through
 * tracer_custom_op_run (node_run.c), which records autograd as an eager call does.  Anything
 * the call cannot be sure of — an argument error, a symbolic number argument — is a graph
 * break, so eager raises PyTorch's error with the user's line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"

TxStatus tracer_custom_op_call(Tracer *tr, const TraceOp *op, int argc, VT **args, TupleObj *kwnames, VT **out) {
    const TraceCustomOps *ops = trace_custom_ops();
    int nkw = kwnames ? (int)kwnames->len : 0;
    const char *kn[TRACE_OP_MAX_ARGS];
    if (nkw > TRACE_OP_MAX_ARGS) return trace_break(tr, "%s: too many keyword arguments", ops->qualname(op));
    for (int i = 0; i < nkw; i++) kn[i] = AS_STR(kwnames->items[i])->data;
    int slot[TRACE_OP_MAX_ARGS];
    int n = ops->bind_slots(op, argc, nkw, kn, slot);
    if (n < 0) {
        tensor_error_clear();
        return trace_break(tr, "%s: arguments do not match its schema", ops->qualname(op));
    }
    TraceOpArg metas[TRACE_OP_MAX_ARGS];
    TensorMeta in_meta[TRACE_OP_MAX_ARGS];
    GraphArg call[TRACE_OP_MAX_ARGS];
    GraphNode *tensors[TRACE_OP_MAX_ARGS];
    int n_tensors = 0;
    bool any_rg = false;
    for (int i = 0; i < n; i++) {
        TraceArgKind kind = ops->arg_kind(op, i);
        TraceOpArg v;
        if (slot[i] < 0) {
            if (!ops->arg_default(op, i, &v)) return trace_break(tr, "%s: missing argument", ops->qualname(op));
        } else {
            VT *a = vt_force(tr, args[slot[i]]);
            if (kind == TRACE_ARG_TENSOR) {
                if (a->kind != VT_TENSOR) return trace_break(tr, "%s: argument %s is not a tensor", ops->qualname(op),
                                                          ops->arg_name(op, i));
                in_meta[i] = a->node->meta;
                metas[i] = (TraceOpArg){.kind = TRACE_ARG_TENSOR, .meta = &in_meta[i]};
                call[i] = graph_arg_node(a->node);
                tensors[n_tensors++] = a->node;
                any_rg |= a->node->requires_grad;
                continue;
            }
            Value c = a->kind == VT_CONST ? a->value : val_null();
            /* converted as the script binding converts (ops_module.c); anything else: eager raises */
            if (kind == TRACE_ARG_FLOAT && val_is_float(c)) v = (TraceOpArg){.kind = TRACE_ARG_FLOAT, .f = c.as.f};
            else if (kind == TRACE_ARG_FLOAT && val_is_intlike(c)) v = (TraceOpArg){.kind = TRACE_ARG_FLOAT, .f = (double)val_as_intlike(c)};
            else if (kind == TRACE_ARG_INT && val_is_intlike(c)) v = (TraceOpArg){.kind = TRACE_ARG_INT, .i = val_as_intlike(c)};
            else if (kind == TRACE_ARG_BOOL && val_is_bool(c)) v = (TraceOpArg){.kind = TRACE_ARG_BOOL, .b = c.as.b};
            else return trace_break(tr, "%s: argument %s is not a constant of its type", ops->qualname(op), ops->arg_name(op, i));
        }
        if (kind == TRACE_ARG_TENSOR) return trace_break(tr, "%s: a tensor argument with a default", ops->qualname(op));
        metas[i] = v;
        call[i] = v.kind == TRACE_ARG_FLOAT ? graph_arg_float(v.f) : v.kind == TRACE_ARG_INT ? graph_arg_int(v.i) : graph_arg_bool(v.b);
    }
    TensorMeta outs[TRACE_OP_MAX_OUTPUTS];
    int n_out = ops->infer(op, metas, n, outs);
    if (n_out < 0) {
        /* the op's meta function refused the arguments: eager raises its error */
        tensor_error_clear();
        return trace_break(tr, "%s: its meta function rejected the arguments", ops->qualname(op));
    }
    char target[256];
    snprintf(target, sizeof target, "torch.ops.%s.%s", ops->ns(op), ops->name(op));
    GraphNode *node = graph_node_new(tr->graph, GRAPH_CALL_FUNCTION, ops->name(op), target, call, n, NULL, NULL, 0);
    node->exec.kind = GRAPH_EXEC_CUSTOM_OP;
    node->exec.n_inputs = n_tensors;
    node->exec.inputs = calloc((size_t)(n_tensors ? n_tensors : 1), sizeof(GraphNode *));
    EM_ASSERT(node->exec.inputs != NULL, "out of memory");
    memcpy(node->exec.inputs, tensors, sizeof(GraphNode *) * (size_t)n_tensors);
    node->exec.n_outputs = n_out;
    node->exec.opaque = tracer_opaque_new(&(TracerOpaque){.kind = TOPQ_CUSTOM_OP, .op = op}, ops->qualname(op));
    tracer_node_provenance(tr, node);
    bool rg = any_rg && !node->no_grad;
    if (n_out == 1) {
        *out = fake_output_tensor(tr, node, &outs[0], rg);
        return *out ? TX_OK : TX_ERROR;
    }
    node->is_tensor = false;
    node->requires_grad = rg;
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)n_out);
    for (int k = 0; k < n_out; k++) {
        GraphNode *g = graph_getitem(tr->graph, node, k);
        g->no_grad = node->no_grad;
        if (!(items[k] = fake_output_tensor(tr, g, &outs[k], rg))) return TX_ERROR;
    }
    *out = vt_tuple(tr, items, n_out);
    return TX_OK;
}
