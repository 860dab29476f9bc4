/* src/tracer/node_run.c — what the tracer's own node kinds do when a backend runs them (see
 * backend.h): constants of the output tuple, hooks registered on real tensors, and custom ops
 * run through the table their owner (src/ffi) registers.  Module markers run in marker.c. */
#include <string.h>

#include "src/tracer/backend.h"
#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- the custom-op hook ------------------------------------------------------------------------- */

static const TraceCustomOps *custom_ops;

void trace_register_custom_ops(const TraceCustomOps *ops) { custom_ops = ops; }

const TraceCustomOps *trace_custom_ops(void) { return custom_ops; }

/* ---- nodes ---------------------------------------------------------------------------------------- */

Value tracer_graph_constant(VM *vm, const GraphArg *a) {
    switch (a->kind) {
    case GARG_NONE: return val_none();
    case GARG_INT: return val_int(a->as.i);
    case GARG_FLOAT: return val_float(a->as.f);
    case GARG_BOOL: return val_bool(a->as.b);
    case GARG_STR: {
        StrObj *s = str_new(vm, a->as.s, strlen(a->as.s));
        return s ? val_obj(s) : val_null();
    }
    case GARG_DTYPE: return torch_dtype_value(vm, a->as.dtype);
    case GARG_TUPLE: case GARG_LIST: {
        TupleObj *t = tuple_new(vm, a->as.seq.n);
        if (!t) return val_null();
        vm_push_root(vm, val_obj(t));
        for (int i = 0; i < a->as.seq.n; i++) {
            Value v = tracer_graph_constant(vm, &a->as.seq.items[i]);
            if (val_is_null(v)) {
                vm_pop_root(vm);
                return v;
            }
            t->items[i] = v;
        }
        vm_pop_root(vm);
        if (a->kind == GARG_TUPLE) return val_obj(t);
        ListObj *l = list_from_array(vm, t->items, t->len);
        return l ? val_obj(l) : val_null();
    }
    default: return vm_raise(vm, vm->e_SystemError, "a graph output of an unsupported kind");
    }
}

int tracer_register_tensor_hook(VM *vm, Tensor *t, Value hook) {
    tensor_incref(t);
    Value tv = torch_wrap(vm, t);
    if (val_is_null(tv)) return -1;
    vm_push_root(vm, tv);
    Value h = vm_call_method(vm, tv, "register_hook", 1, &hook);
    vm_pop_root(vm);
    return val_is_null(h) ? -1 : 0;
}

/* The call view of a custom-op node is the op's schema arguments in order: tensors as nodes (the
 * same nodes as exec.inputs, in the same order), numbers as constants. */
int tracer_custom_op_run(VM *vm, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out) {
    const TracerOpaque *o = tracer_opaque_of(node->exec.opaque);
    if (!o || o->kind != TOPQ_CUSTOM_OP || !o->op || !custom_ops) {
        vm_raise(vm, vm->e_SystemError, "custom-op node %s without its op", node->name);
        return -1;
    }
    TraceOpArg args[TRACE_OP_MAX_ARGS];
    int k = 0;
    if (node->n_args > TRACE_OP_MAX_ARGS) {
        vm_raise(vm, vm->e_SystemError, "custom-op node %s has too many arguments", node->name);
        return -1;
    }
    for (int i = 0; i < node->n_args; i++) {
        const GraphArg *a = &node->args[i];
        switch (a->kind) {
        case GARG_NODE:
            if (k >= n_in || !in[k]) {
                vm_raise(vm, vm->e_SystemError, "custom-op node %s is missing a tensor input", node->name);
                return -1;
            }
            args[i] = (TraceOpArg){.kind = TRACE_ARG_TENSOR, .t = in[k++]};
            break;
        case GARG_FLOAT: args[i] = (TraceOpArg){.kind = TRACE_ARG_FLOAT, .f = a->as.f}; break;
        case GARG_INT: args[i] = (TraceOpArg){.kind = TRACE_ARG_INT, .i = a->as.i}; break;
        case GARG_BOOL: args[i] = (TraceOpArg){.kind = TRACE_ARG_BOOL, .b = a->as.b}; break;
        default:
            vm_raise(vm, vm->e_SystemError, "custom-op node %s has an argument of an unsupported kind", node->name);
            return -1;
        }
    }
    if (custom_ops->num_outputs(o->op) > n_out) {
        vm_raise(vm, vm->e_SystemError, "custom-op node %s: room for %d outputs", node->name, n_out);
        return -1;
    }
    int got = custom_ops->run(o->op, args, node->n_args, out);
    if (got < 0) torch_raise_error(vm);
    return got;
}
