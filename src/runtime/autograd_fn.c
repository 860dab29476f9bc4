/* autograd_fn.c — running a custom autograd.Function the tracer put in a graph
 * (GRAPH_EXEC_AUTOGRAD_FN, include/ember/graph.h) when the graph is interpreted eagerly: the
 * node does what Function.apply does after its forward ran — a backward node named after the
 * function over the tensor arguments, non-differentiable and dirty outputs marked, the outputs
 * wrapped, save_for_backward's tensors saved — and its backward interprets the user's backward
 * as the tracer traced it (with grad mode = create_graph, as the engine runs backwards).
 *
 * @once_differentiable: the backward runs under no_grad, and when the engine runs it with grad
 * mode on (create_graph) its results go through a DelayedError node whenever a gradient it got
 * requires grad, as torch.autograd.function.once_differentiable does.
 *
 * set_materialize_grads(False): the tracer keeps only backwards that never read a gradient (eager
 * would pass None for an absent one), so an absent gradient is passed as zeros nobody reads. */
#include <stdlib.h>
#include <string.h>

#include "src/runtime/rt.h"

static const char ONCE_MSG[] = "trying to differentiate twice a function that was marked with @once_differentiable";

typedef struct FnCtx {
    GraphOpaque *payload;    /* a reference: the function's description and backward graph */
    const GraphAutogradFn *f;
    Tensor **kept;           /* n_kept references */
} FnCtx;

static void fn_ctx_release(void *p) {
    FnCtx *c = p;
    for (int i = 0; i < c->f->n_kept; i++) tensor_decref(c->kept[i]);
    free(c->kept);
    graph_opaque_decref(c->payload);
    free(c);
}

static Tensor *zeros_of(const TensorMeta *m) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = m->shape;
    a.n_ints = m->ndim;
    a.dtype = m->dtype;
    return ag_op1(TENSOR_OP_ZEROS, NULL, 0, &a);
}

static int backward_inputs(const GraphAutogradFn *f, Tensor *const *grads, Tensor **ins) {
    for (int k = 0; k < f->n_outs; k++) {
        ins[k] = grads[k];
        if (ins[k]) tensor_incref(ins[k]);
        else if (!(ins[k] = zeros_of(&f->out_meta[k]))) return -1;
    }
    return 0;
}

static int fn_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    FnCtx *c = ctx;
    const GraphAutogradFn *f = c->f;
    int n_in = f->n_outs + f->n_saved + f->n_kept, rc = -1;
    Tensor **in = calloc((size_t)(n_in + 1), sizeof *in);
    Tensor **out = calloc((size_t)(f->n_args + 1), sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return tensor__oom();
    }
    bool grad_in_rg = false;
    for (int k = 0; k < n_go && k < f->n_outs; k++) grad_in_rg |= go[k] && ag_requires_grad(go[k]);
    if (n_go != f->n_outs) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: got %d gradients for %d outputs", f->name, n_go, f->n_outs);
        goto done;
    }
    if (backward_inputs(f, go, in) < 0) goto done;
    if (ag_function_saved_tensors(node, in + f->n_outs) < 0) goto done;
    for (int i = 0; i < f->n_kept; i++) {
        in[f->n_outs + f->n_saved + i] = c->kept[i];
        tensor_incref(c->kept[i]);
    }
    bool grad = ag_is_grad_enabled();
    if (f->once_differentiable && grad) ag_set_grad_enabled(false);
    RtExec x = {NULL, NULL, NULL, NULL};
    int r = rt_interpret(f->bwd, in, n_in, out, f->n_args, RT_INTERP_BACKWARD, &x);
    ag_set_grad_enabled(grad);
    if (r < 0) goto done;
    if (f->once_differentiable && grad && grad_in_rg) {
        Tensor **wrapped = calloc((size_t)(f->n_args + 1), sizeof *wrapped);
        if (!wrapped) {
            tensor__oom();
            goto done;
        }
        if (ag_function_delayed_error(ONCE_MSG, f->n_args, out, wrapped) < 0) {
            free(wrapped);
            goto done;
        }
        for (int i = 0; i < f->n_args; i++) {
            tensor_decref(out[i]);
            out[i] = wrapped[i];
        }
        free(wrapped);
    }
    for (int i = 0; i < n_args && i < f->n_args; i++) {
        gi[i] = out[i];
        out[i] = NULL;
    }
    rc = 0;
done:
    for (int i = 0; i < n_in; i++) tensor_decref(in[i]);
    for (int i = 0; i < f->n_args; i++) tensor_decref(out[i]);
    free(in);
    free(out);
    return rc;
}

int rt_autograd_fn_apply(const GraphNode *n, Tensor *const *in, int n_in, Tensor **outs) {
    const GraphAutogradFn *f = graph_autograd_fn_of(n);
    if (!f || n_in != f->n_tensor_args + f->n_outs + f->n_saved + f->n_kept) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: malformed autograd function node %s", n->name);
        return -1;
    }
    Tensor **args = calloc((size_t)(f->n_args + 1), sizeof *args);
    FnCtx *c = calloc(1, sizeof *c);
    Tensor **kept = calloc((size_t)(f->n_kept + 1), sizeof *kept);
    if (!args || !c || !kept) {
        free(args);
        free(c);
        free(kept);
        return tensor__oom();
    }
    for (int i = 0; i < f->n_args; i++) args[i] = f->arg_input[i] >= 0 ? in[f->arg_input[i]] : NULL;
    c->payload = n->exec.opaque;
    graph_opaque_incref(c->payload);
    c->f = f;
    c->kept = kept;
    Tensor *const *fwd = in + f->n_tensor_args, *const *saved = fwd + f->n_outs, *const *kin = saved + f->n_saved;
    for (int i = 0; i < f->n_kept; i++) {
        kept[i] = kin[i];
        tensor_incref(kept[i]);
    }
    AgNode *node = ag_function_new(f->name, f->n_args, args, (AgFunctionBackward){fn_backward, c, fn_ctx_release});
    if (!node) {
        free(args);
        return -1;
    }
    ag_function_set_materialize_grads(node, f->materialize_grads);
    int rc = -1;
    Tensor *mark[64];
    int n_mark = 0;
    for (int k = 0; k < f->n_outs; k++) {
        outs[k] = f->dirty[k] >= 0 ? args[f->dirty[k]] : fwd[k];
        tensor_incref(outs[k]);
        if (f->dirty[k] >= 0 && n_mark < 64) mark[n_mark++] = outs[k];
    }
    if (n_mark && ag_function_mark_dirty(node, n_mark, mark) < 0) goto fail;
    n_mark = 0;
    for (int k = 0; k < f->n_outs && k < 64; k++)
        if (f->non_differentiable >> k & 1) mark[n_mark++] = outs[k];
    if (n_mark && ag_function_mark_non_differentiable(node, n_mark, mark) < 0) goto fail;
    if (ag_function_set_outputs(node, f->n_outs, outs) < 0) goto fail;
    if (ag_function_save_for_backward(node, f->n_saved, saved) < 0) goto fail;
    rc = 0;
fail:
    if (rc < 0)
        for (int k = 0; k < f->n_outs; k++) {
            tensor_decref(outs[k]);
            outs[k] = NULL;
        }
    ag_node_decref(node);
    free(args);
    return rc;
}
