/* record.c — recording ops into the graph: ag_op_run runs the kernel and, when grad mode is on
 * and a differentiable input requires grad, creates the op's node, sets the outputs' history
 * and lets the rule save what its backward needs. In-place ops check PyTorch's leaf rules,
 * save before mutating, and rebase history: on the tensor itself, or — for a view — on its base
 * through a CopySlices node, after which the view's grad_fn is regenerated from the base. */
#include <stdio.h>
#include <string.h>

#include "src/autograd/autograd.h"
#include "src/autograd/capture.h"
#include "src/autograd/rules.h"
#include "src/tensor/composite.h"

/* the arguments of a call that gives none (static: built per call, they cost a small op more than
 * its recording checks) */
static const TensorOpArgs default_args = TENSOR_OP_ARGS_INIT;

static bool input_is_diff(const TensorOpInfo *info, int i) {
    return info->diff_inputs == 0xffffffffu || (i < 32 && (info->diff_inputs & (1u << i)));
}

static bool any_diff_requires_grad(const TensorOpInfo *info, Tensor *const *in, int n_in) {
    for (int i = 0; i < n_in; i++)
        if (in[i] && input_is_diff(info, i) && ag__requires_grad(in[i])) return true;
    return false;
}

static uint32_t count_edges(const TensorOpInfo *info, int n_in) {
    uint32_t n = 0;
    for (int i = 0; i < n_in; i++)
        if (input_is_diff(info, i)) n++;
    if (info->flags & (TENSOR_OPF_SCALAR_EDGE | TENSOR_OPF_SCALAR_EDGE_FIRST)) n++;
    return n;
}

static AgNode *make_op_node(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, int n_out) {
    const TensorOpInfo *info = tensor_op_info(op);
    const AgRule *rule = ag__rule(op);
    uint32_t n_saved = rule->n_saved == AG_SAVED_PER_INPUT ? (uint32_t)n_in : rule->n_saved;
    bool in_meta = (rule->flags & AG_RULE_IN_META) != 0;
    AgNode *n = ag__node_alloc(AG_KIND_OP, info->node_name, count_edges(info, n_in), (uint32_t)n_out,
                               in_meta ? (uint32_t)n_in : 0, n_saved, a);
    if (!n) return NULL;
    n->op = (uint16_t)op;
    n->n_in = (uint32_t)n_in;
    for (int i = 0; i < n_in; i++) {
        if (!in[i] && i < 32) n->absent |= 1u << i;
        if (in_meta) {
            if (in[i])
                tensor_meta_of(in[i], &n->in_meta[i]);
            else
                n->in_meta[i].dtype = TENSOR_DTYPE_DEFAULT; /* absent optional input */
        }
        int e = ag__input_edge(n, i);
        if (e >= 0 && in[i] && ag__gradient_edge(in[i], &n->next[e]) < 0) {
            ag_node_decref(n);
            return NULL;
        }
    }
    return n;
}

/* A rule's save with ag__save_ctx naming the op's tensors (what each saved variable is). */
static int run_save(AgSaveFn save, AgNode *node, Tensor *const *in, int n_in, Tensor *const *out, int n_out) {
    ag__save_ctx = (AgSaveCtx){in, n_in, out, n_out};
    int rc = save(node, in, n_in, out, n_out);
    ag__save_ctx = (AgSaveCtx){NULL, 0, NULL, 0};
    return rc;
}

static void mark_views(TensorOp op, Tensor **out, int n) {
    if (!(tensor_op_flags(op) & TENSOR_OPF_VIEW)) return;
    uint8_t f = TENSOR_F_DIFF_VIEW | (ag_is_grad_enabled() ? 0 : TENSOR_F_NOGRAD_VIEW);
    for (int i = 0; i < n; i++)
        if (out[i]->base) out[i]->flags |= f;
}

static int fail_outputs(Tensor **out, int n) {
    for (int i = 0; i < n; i++) {
        tensor_decref(out[i]);
        out[i] = NULL;
    }
    return -1;
}

/* ---- in place -------------------------------------------------------------------------------------- */

int ag__check_inplace(Tensor *t) {
    if (!t->grad_fn && (t->flags & TENSOR_F_REQUIRES_GRAD)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "a leaf Variable that requires grad is being used in an in-place operation.");
        return -1;
    }
    if (t->base && (t->flags & TENSOR_F_DIFF_VIEW)) {
        if (!t->base->grad_fn && (t->base->flags & TENSOR_F_REQUIRES_GRAD)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
            return -1;
        }
        if (t->flags & TENSOR_F_NOGRAD_VIEW) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).");
            return -1;
        }
    }
    return 0;
}

/* t was modified in place by the op that fn differentiates: fn (output 0) becomes its history. */
int ag__rebase_history(Tensor *t, AgNode *fn) {
    if (t->base && (t->flags & TENSOR_F_DIFF_VIEW)) {
        AgNode *cs = ag__copy_slices_new(t->base, t, fn);
        if (!cs) return -1;
        ag_node_decref(cs);
        return ag__regenerate_view_fn(t) ? 0 : -1;
    }
    AgNode *old = t->grad_fn;
    if (old) ag_node_incref(old);
    ag__set_history(t, fn, 0);
    ag__update_hooks_on_new_grad_fn(t, old, fn);
    ag_node_decref(old);
    return 0;
}

int ag_become_view(Tensor *t, Tensor *view) {
    TensorStorage *s = tensor_storage_of(view);
    /* the geometry first: set_storage bumps the version, which the new history then records */
    if (tensor_set_storage(t, s, tensor_storage_offset(view), tensor_ndim(view), tensor_shape(view),
                           tensor_strides(view)) < 0)
        return -1;
    AgNode *fn = ag__grad_fn(view);
    if (!fn) return 0;
    AgNode *old = t->grad_fn;
    if (old) ag_node_incref(old);
    ag__set_history(t, fn, view->output_nr);
    ag__update_hooks_on_new_grad_fn(t, old, fn);
    if (old) ag_node_decref(old);
    return 0;
}

static int run_inplace(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    const TensorOpInfo *info = tensor_op_info(op);
    Tensor *self = in[0];
    bool record = ag_is_grad_enabled() && !(info->flags & TENSOR_OPF_NONDIFF) && any_diff_requires_grad(info, in, n_in);
    if (!record) return tensor_op_run(op, in, n_in, a, out, n_out);
    if (ag__check_inplace(self) < 0) return -1;
    /* validate before creating the node (pack hooks must not see a failing op) */
    TensorMeta metas[8], *pm = metas, om;
    const TensorMeta *pms[8], **pp = pms;
    bool heap = n_in > 8;
    if (heap) {
        pm = malloc(sizeof *pm * (size_t)n_in);
        pp = malloc(sizeof *pp * (size_t)n_in);
        if (!pm || !pp) {
            free(pm);
            free(pp);
            return tensor__oom();
        }
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i]) tensor_meta_of(in[i], &pm[i]);
        pp[i] = in[i] ? &pm[i] : NULL;
    }
    int rc = tensor_op_infer(op, pp, n_in, a, &om, 1);
    if (heap) {
        free(pm);
        free(pp);
    }
    if (rc < 0) return -1;
    AgNode *node = make_op_node(op, in, n_in, a, 1);
    if (!node) return -1;
    const AgRule *rule = ag__rule(op);
    if (rule->save && run_save(rule->save, node, in, n_in, NULL, 0) < 0) goto fail;
    int n = tensor_op_run(op, in, n_in, a, out, n_out);
    if (n < 0) goto fail;
    ag__shape_of(&node->out_meta[0], self);
    if (ag__rebase_history(self, node) < 0) {
        fail_outputs(out, n);
        goto fail;
    }
    if (rule->save_out && run_save(rule->save_out, node, in, n_in, out, n) < 0) {
        fail_outputs(out, n);
        goto fail;
    }
    ag_node_decref(node);
    return n;
fail:
    ag_node_decref(node);
    return -1;
}

/* ---- in-place forms of pointwise ops ---------------------------------------------------------------- */

static const char *dtype_cname(TensorDtype d) { return tensor_dtype_cname(d); }

/* PyTorch's canCast: no floating -> integral/bool, no integral -> bool. */
static bool can_cast(TensorDtype from, TensorDtype to) {
    if (tensor_dtype_is_floating(from)) return tensor_dtype_is_floating(to);
    if (from != TENSOR_BOOL) return to != TENSOR_BOOL;
    return true;
}

int ag_pointwise_inplace(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a) {
    const TensorOpInfo *info = tensor_op_info(op);
    if (!a) a = &default_args;
    if (!info || !(info->flags & TENSOR_OPF_POINTWISE) || (info->flags & TENSOR_OPF_INPLACE) || info->n_out != 1 ||
        n_in < info->in_min || (info->in_max >= 0 && n_in > info->in_max) || n_in > 4 || !in[0]) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s has no in-place form", info ? info->name : "op");
        return -1;
    }
    Tensor *self = in[0];
    /* the result must fit self: same shape, castable dtype */
    TensorMeta metas[4], om;
    const TensorMeta *pms[4];
    for (int i = 0; i < n_in; i++) {
        if (in[i]) tensor_meta_of(in[i], &metas[i]);
        pms[i] = in[i] ? &metas[i] : NULL;
    }
    if (tensor_op_infer(op, pms, n_in, a, &om, 1) < 0) return -1;
    if (om.ndim != self->ndim || memcmp(om.shape, self->shape, sizeof(int64_t) * (size_t)om.ndim) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, self->ndim, self->shape);
        tensor__format_shape(b2, sizeof b2, om.ndim, om.shape);
        tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
        return -1;
    }
    if (!can_cast(om.dtype, (TensorDtype)self->dtype)) {
        /* ATen's pow_(Scalar) iterator requires one dtype and words it so */
        if (op == TENSOR_OP_POW_SCALAR)
            tensor_error_set(TENSOR_ERR_RUNTIME, "Found dtype %s but expected %s", dtype_cname((TensorDtype)self->dtype),
                             dtype_cname(om.dtype));
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                             dtype_cname(om.dtype), dtype_cname((TensorDtype)self->dtype));
        return -1;
    }
    bool record = ag_is_grad_enabled() && !(info->flags & TENSOR_OPF_NONDIFF) && any_diff_requires_grad(info, in, n_in);
    if (record && ag__check_inplace(self) < 0) return -1;
    AgNode *node = record ? make_op_node(op, in, n_in, a, 1) : NULL;
    if (record && !node) return -1;
    const AgRule *rule = record ? ag__rule(op) : NULL;
    Tensor *out = NULL, *orig = NULL;
    int rc = -1;
    if (tensor_op_run(op, in, n_in, a, &out, 1) < 0) goto done;
    /* the rule reads self's value from before the write: save a copy of it */
    if (rule && rule->save && rule->save != ag__sv_out0 && !(orig = tensor_clone(self))) goto done;
    if (tensor_copy_(self, out) < 0) goto done;
    if (node) {
        ag__shape_of(&node->out_meta[0], self);
        if (ag__rebase_history(self, node) < 0) goto done;
        Tensor *sin[4], *sout[1] = {self};
        for (int i = 0; i < n_in; i++) sin[i] = in[i];
        if (orig) sin[0] = orig;
        if (rule->save && run_save(rule->save, node, sin, n_in, sout, 1) < 0) goto done;
        if (rule->save_out && run_save(rule->save_out, node, sin, n_in, sout, 1) < 0) goto done;
    }
    rc = 0;
done:
    tensor_decref(out);
    tensor_decref(orig);
    ag_node_decref(node);
    return rc;
}

/* ---- the entry point -------------------------------------------------------------------------------- */

static int op_run_recorded(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);

/* The observer (ember/tensor.h) sees this call as one op, not the kernels it runs. */
int ag_op_run(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    if (tensor__op_hooked) tensor_profile_op(op, in, n_in, true);
    tensor_op_enter();
    int n = op_run_recorded(op, in, n_in, a, out, n_out);
    tensor_op_leave(op, in, n_in, a ? a : &default_args, out, n);
    if (tensor__op_hooked) tensor_profile_op(op, in, n_in, false);
    return n;
}

static int op_run_recorded(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    const TensorOpInfo *info = tensor_op_info(op);
    if (!info) {
        tensor_error_set(TENSOR_ERR_VALUE, "invalid tensor op %d", (int)op);
        return -1;
    }
    if (!a) a = &default_args;
    if (n_in < info->in_min || (info->in_max >= 0 && n_in > info->in_max)) return tensor_op_run(op, in, n_in, a, out, n_out);
    if (info->flags & TENSOR_OPF_COMPOSITE) {
        if (ag_is_grad_enabled() && any_diff_requires_grad(info, in, n_in))
            return tensor__run_composite(op, ag_op_run, in, n_in, a, out, n_out);
        int n = tensor_op_run(op, in, n_in, a, out, n_out);
        return n;
    }
    if (info->flags & TENSOR_OPF_INPLACE) return run_inplace(op, in, n_in, a, out, n_out);
    if (op == TENSOR_OP_TO_DTYPE && n_in == 1 && in[0] && (a->dtype == TENSOR_DTYPE_DEFAULT || a->dtype == in[0]->dtype))
        return tensor_op_run(op, in, n_in, a, out, n_out); /* x.to(x.dtype) is x itself, no history */
    bool record = ag_is_grad_enabled() && !(info->flags & TENSOR_OPF_NONDIFF) && any_diff_requires_grad(info, in, n_in);
    if (!record) {
        int n = tensor_op_run(op, in, n_in, a, out, n_out);
        if (n > 0) mark_views(op, out, n);
        return n;
    }
    int n_expected = tensor_op_num_outputs(op, n_in, (const Tensor *const *)in, a);
    if (n_expected < 0) return -1;
    if (n_expected > n_out) return tensor_op_run(op, in, n_in, a, out, n_out); /* reports the error */
    AgNode *node = make_op_node(op, in, n_in, a, n_expected);
    if (!node) return -1;
    const AgRule *rule = ag__rule(op);
    int n = rule->forward ? rule->forward(node, in, n_in, a, out, n_out) : tensor_op_run(op, in, n_in, a, out, n_out);
    if (n < 0) {
        ag_node_decref(node);
        return -1;
    }
    mark_views(op, out, n);
    for (int i = 0; i < n && (uint32_t)i < node->n_out; i++) {
        ag__shape_of(&node->out_meta[i], out[i]);
        if (tensor_dtype_is_floating((TensorDtype)out[i]->dtype)) ag__set_history(out[i], node, (uint32_t)i);
    }
    if (rule->save && run_save(rule->save, node, in, n_in, out, n) < 0) {
        fail_outputs(out, n);
        ag_node_decref(node);
        return -1;
    }
    ag_node_decref(node);
    return n;
}

Tensor *ag_op1(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a) {
    Tensor *out[2] = {NULL, NULL};
    int n = ag_op_run(op, in, n_in, a, out, 2);
    if (n < 0) return NULL;
    for (int i = 1; i < n; i++) tensor_decref(out[i]);
    return out[0];
}

Tensor *ag__run1(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a) { return ag_op1(op, in, n, a); }

/* ---- a rule over fakes, for a graph compiler (capture.h) --------------------------------------------- */

const AgNode *ag__derive_dead;
bool ag__deriving;

int ag_derive(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor *const *out, int n_out,
              uint64_t edges, uint64_t needs, Tensor *const *grads, Tensor **gi) {
    const TensorOpInfo *info = tensor_op_info(op);
    const AgRule *rule = info ? ag__rule(op) : NULL;
    if (!rule || !rule->backward || (rule->flags & (AG_RULE_NONDIFF | AG_RULE_COMPOSITE))) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s has no backward rule", info ? info->name : "op");
        return -1;
    }
    if (rule->flags & AG_RULE_DATA) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "the backward of %s reads tensor data", info->name);
        return -1;
    }
    if (n_in > 64 || (uint32_t)n_out > 64) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s: too many inputs or outputs to derive", info->name);
        return -1;
    }
    /* the nodes made here are not part of any history: they must not take sequence numbers
     * (the engine orders real nodes by them) */
    uint64_t seq = ag__seq_counter;
    /* edge targets standing for "gradient wanted" / "not wanted", made once for the process */
    static AgNode *live, *dead;
    if (!live) live = ag__node_alloc(AG_KIND_IDENTITY, "live", 0, 0, 0, 0, NULL);
    if (!dead) dead = ag__node_alloc(AG_KIND_IDENTITY, "dead", 0, 0, 0, 0, NULL);
    uint32_t n_saved = rule->n_saved == AG_SAVED_PER_INPUT ? (uint32_t)n_in : rule->n_saved;
    bool in_meta = (rule->flags & AG_RULE_IN_META) != 0;
    AgNode *n = live && dead ? ag__node_alloc(AG_KIND_OP, info->node_name, count_edges(info, n_in), (uint32_t)n_out,
                                              in_meta ? (uint32_t)n_in : 0, n_saved, a)
                             : NULL;
    int rc = -1;
    if (!n) goto done;
    n->op = (uint16_t)op;
    n->n_in = (uint32_t)n_in;
    for (int i = 0; i < n_in; i++) {
        if (!in[i] && i < 32) n->absent |= 1u << i;
        if (in_meta) {
            if (in[i])
                tensor_meta_of(in[i], &n->in_meta[i]);
            else
                n->in_meta[i].dtype = TENSOR_DTYPE_DEFAULT;
        }
        int e = ag__input_edge(n, i);
        if (e < 0 || !in[i] || !((edges >> i) & 1)) continue;
        n->next[e].fn = (needs >> i) & 1 ? live : dead;
        ag_node_incref(n->next[e].fn);
    }
    for (int k = 0; k < n_out; k++)
        if (out[k]) ag__shape_of(&n->out_meta[k], out[k]);
    bool grad = ag_set_grad_enabled(false);
    const AgNode *prev_dead = ag__derive_dead;
    bool prev = ag__deriving;
    ag__derive_dead = dead;
    ag__deriving = true;
    rc = rule->save ? run_save(rule->save, n, in, n_in, out, n_out) : 0;
    for (int i = 0; i < n_in; i++) gi[i] = NULL;
    if (rc == 0) rc = rule->backward(n, grads, gi);
    if (rc < 0)
        for (int i = 0; i < n_in; i++) {
            tensor_decref(gi[i]);
            gi[i] = NULL;
        }
    ag__deriving = prev;
    ag__derive_dead = prev_dead;
    ag_set_grad_enabled(grad);
done:
    ag_node_decref(n);
    ag__seq_counter = seq;
    return rc;
}

bool ag_derivable(TensorOp op) {
    const TensorOpInfo *info = tensor_op_info(op);
    if (!info || (info->flags & (TENSOR_OPF_NONDIFF | TENSOR_OPF_COMPOSITE))) return false;
    const AgRule *r = ag__rule(op);
    return r->backward && !(r->flags & (AG_RULE_NONDIFF | AG_RULE_COMPOSITE | AG_RULE_DATA));
}
