/* function.c — applying nodes of every kind: op nodes through their backward rule,
 * AccumulateGrad (PyTorch 2.x accumulation rules: steal an unaliased gradient, else clone; add
 * in place afterwards, out of place under create_graph; then post-accumulate hooks),
 * CopySlices (in-place ops on views), GraphRoot, and custom functions (torch.autograd.Function:
 * a callback backward, a ctx with saved variables, needs_input_grad, dirty and
 * non-differentiable outputs). */
#include <stdio.h>

#include "src/autograd/capture.h"

/* ---- op nodes ----------------------------------------------------------------------------------------- */

static int apply_op(AgNode *n, Tensor **grads, Tensor **outputs) {
    const AgRule *rule = ag__rule((TensorOp)n->op);
    bool any = false;
    for (uint32_t i = 0; i < n->n_out; i++) any |= grads[i] != NULL;
    if (!any) return 0;
    if (!rule->backward) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "the derivative for '%s' is not implemented.", tensor_op_name((TensorOp)n->op));
        return -1;
    }
    Tensor *stack_gi[8], **gi = n->n_in <= 8 ? stack_gi : calloc(n->n_in, sizeof *gi);
    if (!gi) return tensor__oom();
    memset(gi, 0, sizeof *gi * (n->n_in <= 8 ? 8 : n->n_in));
    int rc = rule->backward(n, grads, gi);
    for (uint32_t i = 0; i < n->n_in; i++) {
        int e = rc == 0 ? ag__input_edge(n, (int)i) : -1;
        if (e >= 0 && n->next[e].fn && ag__task_should_execute(n->next[e].fn)) {
            outputs[e] = gi[i];
        } else {
            tensor_decref(gi[i]);
        }
    }
    if (gi != stack_gi) free(gi);
    return rc;
}

/* ---- AccumulateGrad ------------------------------------------------------------------------------------ */

/* Returns 1 when it accumulated (post-accumulate hooks run next), 0 when there was nothing to
 * do (no gradient, or the leaf stopped requiring grad), -1 on error. */
int ag_engine_accumulate(AgNode *node, Tensor *grad) {
    Tensor *var = node->payload;
    if (!grad) return 0;
    if (var->grad_fn) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "leaf variable has been moved into the graph interior");
        return -1;
    }
    if (!(var->flags & TENSOR_F_REQUIRES_GRAD)) return 0;
    AgMeta *m = ag__meta(var);
    bool gm = ag_is_grad_enabled();
    if (!m->grad) {
        /* steal the incoming gradient when nothing else can see or mutate it */
        /* (a contiguous view whose base only it keeps alive is as private as a plain tensor) */
        bool private_ = grad->refcount == 1 &&
                        (grad->base ? grad->base->refcount == 1 && grad->storage->refcount == 2 : grad->storage->refcount == 1);
        if (!gm && private_ && tensor_is_contiguous(grad) && !grad->grad_fn && !grad->ag &&
            !(grad->flags & TENSOR_F_WRAPPED_NUMBER) && grad->dtype == var->dtype && grad->numel == grad->storage->nbytes / 4) {
            tensor_incref(grad);
            m->grad = grad;
        } else {
            m->grad = gm ? ag_clone(grad) : tensor_clone(grad);
            if (!m->grad) return -1;
        }
    } else if (!gm) {
        if (tensor_add_(m->grad, grad, tensor_scalar_i(1)) < 0) return -1;
    } else {
        Tensor *r = ag_add(m->grad, grad);
        if (!r) return -1;
        tensor_decref(m->grad);
        m->grad = r;
    }
    return 1;
}

int ag_engine_call_post_acc_hook(AgHookEntry *e, Tensor *leaf) {
    tensor_error_clear();
    if (((AgPostAccumulateHookFn)e->fn)(e->ctx, leaf) < 0) {
        if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
        return -1;
    }
    return 0;
}

int ag__accumulate(AgNode *node, Tensor *grad) {
    int acc = ag_engine_accumulate(node, grad);
    if (acc <= 0) return acc;
    return ag_engine_call_post_acc_hooks(node);
}

int ag_engine_call_post_acc_hooks(AgNode *node) {
    Tensor *var = node->payload;
    AgMeta *m = var->ag;
    if (!m || !m->post_acc || !m->post_acc->n) return 0;
    AgHookEntry *buf[8], **v;
    int n = ag__hooks_snapshot(m->post_acc, &v, buf, 8);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) rc = ag_engine_call_post_acc_hook(v[i], var);
    ag__hooks_unpin(v, n, buf);
    return rc;
}

/* ---- CopySlices ------------------------------------------------------------------------------------------- */

typedef struct CopySlices {
    TensorMeta base, view;
    AgNode *fn;
} CopySlices;

AgNode *ag__copy_slices_new(Tensor *base, Tensor *view, AgNode *fn) {
    uint32_t n_next = fn->n_next ? fn->n_next : 1;
    AgNode *cs = ag__node_alloc(AG_KIND_COPY_SLICES, "torch::autograd::CopySlices", n_next, 1, 0, 0, NULL);
    if (!cs) return NULL;
    CopySlices *p = malloc(sizeof *p);
    if (!p) {
        ag_node_decref(cs);
        tensor__oom();
        return NULL;
    }
    tensor_meta_of(base, &p->base);
    tensor_meta_of(view, &p->view);
    p->fn = fn;
    ag_node_incref(fn);
    cs->payload = p;
    if (ag__gradient_edge(base, &cs->next[0]) < 0) {
        ag_node_decref(cs);
        return NULL;
    }
    for (uint32_t i = 1; i < n_next; i++) {
        cs->next[i] = fn->next[i];
        ag_node_incref(cs->next[i].fn);
    }
    ag__shape_of(&cs->out_meta[0], base);
    AgNode *old = base->grad_fn;
    if (old) ag_node_incref(old);
    ag__set_history(base, cs, 0);
    ag__update_hooks_on_new_grad_fn(base, old, cs);
    ag_node_decref(old);
    return cs;
}

void ag__copy_slices_free(AgNode *n) {
    CopySlices *p = n->payload;
    if (!p) return;
    ag_node_decref(p->fn);
    free(p);
}

/* result = grad laid out like the base; the view's slice of it gets what fn computes for the
 * view's old value (zeros if nothing), the other inputs of fn get fn's other gradients. */
static int apply_copy_slices(AgNode *cs, Tensor **grads, Tensor **outputs) {
    CopySlices *p = cs->payload;
    Tensor *g = grads[0];
    if (!g) return 0;
    bool gm = ag_is_grad_enabled();
    Tensor *result = NULL, *slice = NULL, *res_in = NULL, **fn_out = NULL;
    int rc = -1;
    if (tensor__is_contiguous_geometry(p->base.ndim, p->base.shape, p->base.strides)) {
        result = gm ? ag_clone(g) : tensor_clone(g);
    } else {
        result = tensor_empty_strided(p->base.dtype, p->base.ndim, p->base.shape, p->base.strides);
        if (result && (gm ? ag_copy_(result, g) : tensor_copy_(result, g)) < 0) goto done;
    }
    if (!result) goto done;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = p->view.shape;
    a.n_ints = p->view.ndim;
    a.ints2 = p->view.strides;
    a.n_ints2 = p->view.ndim;
    a.start = result->offset + (p->view.offset - p->base.offset);
    slice = ag_op1(TENSOR_OP_AS_STRIDED, &result, 1, &a);
    if (!slice) goto done;
    res_in = gm ? ag_clone(slice) : tensor_clone(slice);
    if (!res_in) goto done;
    AgNode *fn = p->fn;
    fn_out = calloc(fn->n_next ? fn->n_next : 1, sizeof *fn_out);
    if (!fn_out) {
        tensor__oom();
        goto done;
    }
    Tensor *fn_in[1] = {res_in};
    if (fn->n_out != 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "CopySlices: the in-place function must have one output");
        goto done;
    }
    if (ag__apply_node(fn, fn_in, fn_out) < 0) goto done;
    if (fn_out[0]) {
        if ((gm ? ag_copy_(slice, fn_out[0]) : tensor_copy_(slice, fn_out[0])) < 0) goto done;
    } else if ((gm ? ag_zero_(slice) : tensor_zero_(slice)) < 0) {
        goto done;
    }
    outputs[0] = result;
    result = NULL;
    for (uint32_t i = 1; i < cs->n_next && i < fn->n_next; i++) {
        outputs[i] = fn_out[i];
        fn_out[i] = NULL;
    }
    rc = 0;
done:
    if (fn_out) {
        for (uint32_t i = 0; i < p->fn->n_next; i++) tensor_decref(fn_out[i]);
        free(fn_out);
    }
    tensor_decref(res_in);
    tensor_decref(slice);
    tensor_decref(result);
    return rc;
}

/* ---- custom functions ---------------------------------------------------------------------------------------- */

typedef struct FunctionState {
    AgFunctionBackward bw;
    int n_args;
    int *arg_edge;           /* argument -> next edge, -1 for non-tensors */
    bool *is_tensor, *needs;
    bool executable, materialize, outputs_set;
    char *name;
    AgShape *out_meta;
    Tensor **dirty, **nondiff;
    int n_dirty, n_nondiff;
    Tensor **args;           /* the tensor arguments, borrowed until set_outputs */
} FunctionState;

static FunctionState *fstate(const AgNode *n) { return n->kind == AG_KIND_FUNCTION ? n->payload : NULL; }

static void drop_marks(FunctionState *st) {
    for (int i = 0; i < st->n_dirty; i++) tensor_decref(st->dirty[i]);
    for (int i = 0; i < st->n_nondiff; i++) tensor_decref(st->nondiff[i]);
    free(st->dirty);
    free(st->nondiff);
    st->dirty = st->nondiff = NULL;
    st->n_dirty = st->n_nondiff = 0;
}

void ag__function_free(AgNode *n) {
    FunctionState *st = n->payload;
    if (!st) return;
    for (uint32_t i = 0; i < n->n_saved; i++) ag__saved_release(&n->saved[i]);
    if (n->n_saved) free(n->saved);
    n->n_saved = 0;
    drop_marks(st);
    if (st->bw.release) st->bw.release(st->bw.ctx);
    free(st->arg_edge);
    free(st->is_tensor);
    free(st->needs);
    free(st->out_meta);
    free(st->args);
    free(st->name);
    free(st);
}

void ag__function_release_variables(AgNode *n) {
    if (n->kind == AG_KIND_COPY_SLICES) {
        CopySlices *p = n->payload;
        if (p) ag__function_release_variables(p->fn);
        n->released = true;
        return;
    }
    ag__release_saved(n);
}

AgNode *ag_function_new(const char *name, int n_args, Tensor *const *args, AgFunctionBackward backward) {
    int n_tensor = 0;
    bool any = false;
    for (int i = 0; i < n_args; i++) {
        if (!args[i]) continue;
        n_tensor++;
        any |= ag__requires_grad(args[i]);
    }
    bool executable = ag_is_grad_enabled() && any;
    FunctionState *st = calloc(1, sizeof *st);
    char *nm = strdup(name ? name : "FunctionBackward");
    AgNode *n = st && nm ? ag__node_alloc(AG_KIND_FUNCTION, nm, executable ? (uint32_t)n_tensor : 0, 0, 0, 0, NULL) : NULL;
    if (n) {
        st->arg_edge = malloc(sizeof(int) * (size_t)(n_args ? n_args : 1));
        st->is_tensor = calloc((size_t)(n_args ? n_args : 1), sizeof(bool));
        st->needs = calloc((size_t)(n_args ? n_args : 1), sizeof(bool));
        st->args = calloc((size_t)(n_args ? n_args : 1), sizeof(Tensor *));
    }
    if (!n || !st->arg_edge || !st->is_tensor || !st->needs || !st->args) {
        if (n) {
            n->payload = st;
            st->name = nm;
            ag_node_decref(n);
        } else {
            free(st);
            free(nm);
        }
        if (backward.release) backward.release(backward.ctx);
        tensor__oom();
        return NULL;
    }
    st->bw = backward;
    st->n_args = n_args;
    st->executable = executable;
    st->materialize = true;
    st->name = nm;
    n->payload = st;
    int e = 0;
    for (int i = 0; i < n_args; i++) {
        st->args[i] = args[i];
        st->is_tensor[i] = args[i] != NULL;
        st->arg_edge[i] = args[i] ? e : -1;
        if (args[i]) {
            st->needs[i] = executable && ag__requires_grad(args[i]);
            if (executable && ag__gradient_edge(args[i], &n->next[e]) < 0) {
                ag_node_decref(n);
                return NULL;
            }
            e++;
        }
    }
    return n;
}

bool ag_function_is_executable(const AgNode *node) {
    FunctionState *st = fstate(node);
    return st && st->executable;
}

bool ag_function_needs_input_grad(const AgNode *node, int arg) {
    FunctionState *st = fstate(node);
    return st && arg >= 0 && arg < st->n_args && st->needs[arg];
}

void ag_function_drop_edge(AgNode *node, int arg) {
    FunctionState *st = fstate(node);
    if (!st || arg < 0 || arg >= st->n_args || st->arg_edge[arg] < 0) return;
    AgEdge *e = &node->next[st->arg_edge[arg]];
    if ((uint32_t)st->arg_edge[arg] < node->n_next && e->fn) {
        ag_node_decref(e->fn);
        e->fn = NULL;
        e->input_nr = 0;
    }
    st->needs[arg] = false;
}

static int delayed_error_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    (void)node, (void)n_go, (void)go, (void)n_args, (void)gi;
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s", (const char *)ctx);
    return -1;
}

int ag_function_delayed_error(const char *msg, int n, Tensor *const *in, Tensor **out) {
    Tensor **leaf = calloc((size_t)(n ? n : 1), sizeof *leaf);
    char *m = strdup(msg);
    if (!leaf || !m) {
        free(leaf);
        free(m);
        return tensor__oom();
    }
    int rc = -1;
    for (int i = 0; i < n; i++) {
        out[i] = NULL;
        if (!in[i]) continue;
        if (!(leaf[i] = ag_detach(in[i])) || ag_set_requires_grad(leaf[i], true) < 0) goto done;
    }
    AgNode *node = ag_function_new("Error", n, leaf, (AgFunctionBackward){delayed_error_backward, m, free});
    m = NULL;
    if (!node) goto done;
    for (int i = 0; i < n; i++) {
        out[i] = leaf[i];
        if (out[i]) tensor_incref(out[i]);
    }
    rc = ag_function_set_outputs(node, n, out);
    ag_node_decref(node);
    if (rc < 0)
        for (int i = 0; i < n; i++) {
            tensor_decref(out[i]);
            out[i] = NULL;
        }
done:
    for (int i = 0; i < n; i++) tensor_decref(leaf[i]);
    free(leaf);
    free(m);
    return rc;
}

void ag_function_set_materialize_grads(AgNode *node, bool on) {
    FunctionState *st = fstate(node);
    if (st) st->materialize = on;
}

static int add_marks(Tensor ***list, int *count, int n, Tensor *const *ts) {
    Tensor **v = realloc(*list, sizeof *v * (size_t)(*count + n));
    if (!v) return tensor__oom();
    *list = v;
    for (int i = 0; i < n; i++) {
        if (!ts[i]) continue;
        tensor_incref(ts[i]);
        v[(*count)++] = ts[i];
    }
    return 0;
}

int ag_function_mark_dirty(AgNode *node, int n, Tensor *const *ts) {
    FunctionState *st = fstate(node);
    if (!st) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mark_dirty: not a custom function node");
        return -1;
    }
    return add_marks(&st->dirty, &st->n_dirty, n, ts);
}

int ag_function_mark_non_differentiable(AgNode *node, int n, Tensor *const *ts) {
    FunctionState *st = fstate(node);
    if (!st) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "mark_non_differentiable: not a custom function node");
        return -1;
    }
    return add_marks(&st->nondiff, &st->n_nondiff, n, ts);
}

static bool in_list(Tensor *const *v, int n, const Tensor *t) {
    for (int i = 0; i < n; i++)
        if (v[i] == t) return true;
    return false;
}

/* a view of t with t's geometry (PyTorch's _view_as_self_with_no_grad) */
static Tensor *self_view(Tensor *t) {
    Tensor *v = tensor__make_view(t, t->ndim, t->shape, t->strides, t->offset);
    if (v) v->flags |= TENSOR_F_DIFF_VIEW | TENSOR_F_NOGRAD_VIEW;
    return v;
}

static void replace(Tensor **slot, Tensor *v) {
    tensor_decref(*slot);
    *slot = v;
}

int ag_function_set_outputs(AgNode *node, int n_out, Tensor **outputs) {
    FunctionState *st = fstate(node);
    if (!st) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "set_outputs: not a custom function node");
        return -1;
    }
    if (st->outputs_set) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "set_outputs: outputs were already set");
        return -1;
    }
    st->out_meta = calloc((size_t)(n_out ? n_out : 1), sizeof(AgShape));
    if (!st->out_meta) return tensor__oom();
    node->out_meta = st->out_meta;
    node->n_out = (uint32_t)n_out;
    st->outputs_set = true;
    /* as PyTorch's _mark_dirty: the tensors the forward modified get one more version bump */
    for (int i = 0; i < st->n_dirty; i++) tensor_bump_version(st->dirty[i]);
    int rc = 0;
    for (int i = 0; i < n_out && rc == 0; i++) {
        Tensor *t = outputs[i];
        if (!t) continue;
        ag__shape_of(&st->out_meta[i], t);
        bool is_input = in_list(st->args, st->n_args, t);
        bool is_modified = in_list(st->dirty, st->n_dirty, t);
        bool is_diff = !in_list(st->nondiff, st->n_nondiff, t) && tensor_dtype_is_floating((TensorDtype)t->dtype);
        if (!is_diff) {
            if (!ag__requires_grad(t)) {
                if (is_input && !is_modified) {
                    Tensor *v = self_view(t);
                    if (!v) rc = -1;
                    else replace(&outputs[i], v);
                }
                continue;
            }
            if (is_input) {
                Tensor *v = tensor_detach(t);
                if (!v) rc = -1;
                else replace(&outputs[i], v);
            } else if (!t->base) {
                rc = ag_detach_(t);
            }
            continue;
        }
        if (is_modified) {
            if (!t->grad_fn && (t->flags & TENSOR_F_REQUIRES_GRAD)) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "a leaf Variable that requires grad has been used in an in-place operation.");
                rc = -1;
                break;
            }
            if (!st->executable) continue;
            if (t->base && (t->flags & TENSOR_F_DIFF_VIEW) && n_out > 1) {
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.");
                rc = -1;
                break;
            }
            if (t->base && (t->flags & TENSOR_F_DIFF_VIEW)) {
                rc = ag__rebase_history(t, node);
            } else {
                AgNode *old = t->grad_fn;
                if (old) ag_node_incref(old);
                ag__set_history(t, node, (uint32_t)i);
                ag__update_hooks_on_new_grad_fn(t, old, node);
                ag_node_decref(old);
            }
        } else if (is_input) {
            Tensor *v = self_view(t);
            if (!v) {
                rc = -1;
                break;
            }
            if (st->executable) {
                v->flags &= (uint8_t)~TENSOR_F_NOGRAD_VIEW;
                ag__set_history(v, node, (uint32_t)i);
            }
            replace(&outputs[i], v);
        } else if (st->executable) {
            ag__set_history(t, node, (uint32_t)i);
        }
    }
    drop_marks(st);
    memset(st->args, 0, sizeof(Tensor *) * (size_t)(st->n_args ? st->n_args : 1));
    return rc;
}

int ag_function_save_for_backward(AgNode *node, int n, Tensor *const *ts) {
    FunctionState *st = fstate(node);
    if (!st) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "save_for_backward: not a custom function node");
        return -1;
    }
    for (uint32_t i = 0; i < node->n_saved; i++) ag__saved_release(&node->saved[i]);
    if (node->n_saved) free(node->saved);
    node->n_saved = 0;
    node->saved = NULL;
    if (n == 0) return 0;
    node->saved = malloc(sizeof(AgSaved) * (size_t)n);
    if (!node->saved) return tensor__oom();
    for (int i = 0; i < n; i++) ag__saved_init_empty(&node->saved[i]);
    node->n_saved = (uint32_t)n;
    for (int i = 0; i < n; i++)
        if (ag__save(node, i, ts[i], ts[i] && ts[i]->grad_fn == node) < 0) return -1;
    return 0;
}

int ag_function_num_saved(const AgNode *node) { return fstate(node) ? (int)node->n_saved : 0; }

int ag_function_saved_tensors(AgNode *node, Tensor **out) {
    for (uint32_t i = 0; i < node->n_saved; i++) out[i] = NULL;
    for (uint32_t i = 0; i < node->n_saved; i++) {
        if (ag__unpack(node, &node->saved[i], true, &out[i]) < 0) {
            for (uint32_t j = 0; j < i; j++) {
                tensor_decref(out[j]);
                out[j] = NULL;
            }
            return -1;
        }
    }
    return 0;
}

static int apply_function(AgNode *n, Tensor **grads, Tensor **outputs) {
    FunctionState *st = n->payload;
    Tensor **g = calloc(n->n_out ? n->n_out : 1, sizeof *g);
    Tensor **gin = calloc((size_t)(st->n_args ? st->n_args : 1), sizeof *gin);
    int rc = -1;
    if (!g || !gin) {
        tensor__oom();
        goto done;
    }
    for (uint32_t i = 0; i < n->n_out; i++) {
        if (grads[i]) {
            tensor_incref(grads[i]);
            g[i] = grads[i];
        } else if (st->materialize && st->out_meta[i].ndim <= TENSOR_MAX_DIMS) {
            g[i] = ag__zeros_shape(&st->out_meta[i]);
            if (!g[i]) goto done;
        }
    }
    tensor_error_clear();
    if (st->bw.fn(st->bw.ctx, n, (int)n->n_out, g, st->n_args, gin) < 0) {
        if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
        goto done;
    }
    for (int i = 0; i < st->n_args; i++) {
        if (!st->is_tensor[i] && gin[i]) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "function %s returned a gradient different than None at position %d, but the corresponding forward input was not a Variable",
                             n->name, i + 1);
            goto done;
        }
    }
    /* Every gradient backward returned for a tensor input is a node output, as PyTorch's PyNode
     * returns them: post hooks see it even when the input needs no grad (the engine drops it on
     * an edge without a node). */
    for (int i = 0; i < st->n_args; i++) {
        int e = st->arg_edge[i];
        if (e >= 0 && (uint32_t)e < n->n_next) {
            outputs[e] = gin[i];
            gin[i] = NULL;
        }
    }
    rc = 0;
done:
    if (g)
        for (uint32_t i = 0; i < n->n_out; i++) tensor_decref(g[i]);
    if (gin)
        for (int i = 0; i < st->n_args; i++) tensor_decref(gin[i]);
    free(g);
    free(gin);
    return rc;
}

/* ---- dispatch by kind ---------------------------------------------------------------------------------------- */

int ag__apply_node(AgNode *n, Tensor **grads, Tensor **outputs) {
    switch ((AgNodeKind)n->kind) {
    case AG_KIND_OP: return apply_op(n, grads, outputs);
    case AG_KIND_ACCUMULATE: return ag__accumulate(n, grads[0]);
    case AG_KIND_FUNCTION: return apply_function(n, grads, outputs);
    case AG_KIND_COPY_SLICES: return apply_copy_slices(n, grads, outputs);
    case AG_KIND_GRAPH_ROOT: {
        Tensor **g = n->payload;
        for (uint32_t i = 0; i < n->n_next; i++) {
            outputs[i] = g[i];
            g[i] = NULL;
        }
        return 0;
    }
    case AG_KIND_IDENTITY:
        for (uint32_t i = 0; i < n->n_next && i < n->n_out; i++) {
            outputs[i] = grads[i];
            if (grads[i]) tensor_incref(grads[i]);
        }
        return 0;
    }
    return 0;
}
