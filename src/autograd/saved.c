/* saved.c — saved variables (PyTorch's SavedVariable) and the saved-tensor hooks stack.
 *
 * Saving a non-output (or a leaf) keeps the tensor itself; saving an output keeps an alias of
 * its data sharing the version counter, and unpacking re-attaches the node being executed as
 * grad_fn — so a node never holds a strong reference to a tensor that holds the node. With a
 * pack/unpack pair active, pack runs at save time (grad mode off) and its object is all that is
 * kept; unpack runs at use and version checks are skipped, as PyTorch does. */
#include <stdio.h>

#include "src/autograd/capture.h"

static const char ERR_BACKWARD_TWICE[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already been "
    "freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors "
    "after calling backward.";

/* ---- the hooks stack ------------------------------------------------------------------------------ */

static AgSavedHooksRef **hook_stack;
static int hook_depth, hook_cap;
static char *disabled_message;

static void hooks_ref_decref(AgSavedHooksRef *r) {
    if (!r || --r->refcount > 0) return;
    if (r->h.release) r->h.release(r->h.ctx);
    free(r);
}

int ag_saved_tensors_hooks_push(AgSavedTensorHooks hooks) {
    if (disabled_message) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s", disabled_message);
        return -1;
    }
    if (hook_depth == hook_cap) {
        int cap = hook_cap ? hook_cap * 2 : 4;
        AgSavedHooksRef **s = realloc(hook_stack, sizeof *s * (size_t)cap);
        if (!s) return tensor__oom();
        hook_stack = s;
        hook_cap = cap;
    }
    AgSavedHooksRef *r = malloc(sizeof *r);
    if (!r) return tensor__oom();
    r->refcount = 1;
    r->h = hooks;
    hook_stack[hook_depth++] = r;
    return 0;
}

void ag_saved_tensors_hooks_pop(void) {
    if (hook_depth == 0) return;
    hooks_ref_decref(hook_stack[--hook_depth]);
    if (hook_depth == 0) {
        free(hook_stack);
        hook_stack = NULL;
        hook_cap = 0;
    }
}

int ag_saved_tensors_hooks_depth(void) { return hook_depth; }

void ag_saved_tensors_hooks_disable(const char *message) {
    free(disabled_message);
    disabled_message = message ? strdup(message) : NULL;
}

const char *ag_saved_tensors_hooks_disabled_message(void) { return disabled_message; }

/* ---- saved variables ------------------------------------------------------------------------------- */

void ag__saved_init_empty(AgSaved *s) {
    memset(s, 0, sizeof *s);
    s->src_output = -1;
}

void ag__saved_release(AgSaved *s) {
    if (!s->defined || s->freed) return;
    Tensor *d = s->data;
    AgNode *fn = s->grad_fn, *acc = s->grad_acc;
    AgSavedHooksRef *h = s->hooks;
    AgPacked p = s->packed;
    s->data = NULL;
    s->grad_fn = s->grad_acc = NULL;
    s->hooks = NULL;
    s->packed.obj = NULL;
    s->packed.release = NULL;
    s->freed = true;
    if (p.release) p.release(p.obj);
    hooks_ref_decref(h);
    tensor_decref(d);
    ag_node_decref(fn);
    ag_node_decref(acc);
}

AgSaveCtx ag__save_ctx;

int ag__save(AgNode *node, int slot, Tensor *t, bool is_output) {
    AgSaved *s = &node->saved[slot];
    ag__saved_release(s);
    ag__saved_init_empty(s);
    s->src_output = -1;
    if (!t) return 0;
    s->defined = true;
    for (int i = 0; i < ag__save_ctx.n_in && i < 32; i++)
        if (ag__save_ctx.in[i] == t) s->src_inputs |= 1u << i;
    for (int i = 0; i < ag__save_ctx.n_out && s->src_output < 0; i++)
        if (ag__save_ctx.out[i] == t) s->src_output = (int8_t)i;
    /* an in-place op's output is its (modified) input 0: it holds the output's value */
    if (s->src_output >= 0) s->src_inputs = 0;
    s->saved_version = tensor__version_counter(t)->version;
    s->is_leaf = ag_is_leaf(t);
    s->is_output = is_output;
    /* in meta mode (the tracer's fake tensors, ag_derive's) there are no values to pack: user
     * hooks run when the traced code runs for real */
    if (hook_depth > 0 && !tensor_is_wrapped_number(t) && !tensor_meta_mode()) {
        AgSavedHooksRef *r = hook_stack[hook_depth - 1];
        s->output_nr = t->output_nr;
        s->requires_grad = ag__requires_grad(t);
        if (s->is_leaf) {
            if (t->flags & TENSOR_F_REQUIRES_GRAD) s->grad_acc = ag__grad_accumulator(t);
        } else if (!is_output) {
            s->grad_fn = t->grad_fn;
            if (s->grad_fn) ag_node_incref(s->grad_fn);
        }
        r->refcount++;
        s->hooks = r;
        uint32_t version = tensor_version(t);
        bool prev = ag_set_grad_enabled(false);
        AgPacked p = {0};
        tensor_error_clear();
        int rc = r->h.pack(r->h.ctx, t, &p);
        ag_set_grad_enabled(prev);
        s->packed = p;
        if (rc < 0) {
            if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
            ag__saved_release(s);
            s->freed = false;
            s->defined = false;
            return -1;
        }
        if (tensor_version(t) != version) {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook can not be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.");
            return -1;
        }
        return 0;
    }
    /* a node over fakes (ag_derive) holds no history, so keeping an output itself makes no cycle */
    if (!is_output || s->is_leaf || ag__deriving) {
        s->saved_original = true;
        tensor_incref(t);
        s->data = t;
        return 0;
    }
    s->output_nr = t->output_nr;
    s->requires_grad = true;
    s->data = tensor__alias(t, true);
    return s->data ? 0 : -1;
}

static int version_error(AgSaved *s, AgNode *saved_for) {
    AgNode *fn = s->saved_original ? s->data->grad_fn : (s->is_leaf ? NULL : saved_for);
    char shape[256];
    tensor__format_shape(shape, sizeof shape, s->data->ndim, s->data->shape);
    char which[512] = "";
    if (fn) snprintf(which, sizeof which, ", which is output %u of %s,", s->output_nr, fn->name);
    tensor_error_set(TENSOR_ERR_RUNTIME,
                     "one of the variables needed for gradient computation has been modified by an inplace operation: [%s %s]%s is at version %u; expected version %u instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
                     tensor_type_string(s->data), shape, which, tensor_version(s->data), s->saved_version);
    return -1;
}

/* a new tensor over t's data carrying the saved autograd identity */
static Tensor *with_identity(AgSaved *s, Tensor *t, AgNode *saved_for) {
    Tensor *v = tensor__alias(t, true);
    if (!v) return NULL;
    AgNode *fn = s->is_output && !s->is_leaf ? saved_for : s->grad_fn;
    if (fn) {
        ag__set_history(v, fn, s->output_nr);
    } else if (s->requires_grad) {
        v->flags |= TENSOR_F_REQUIRES_GRAD;
        if (s->grad_acc) ag__meta(v)->grad_acc = s->grad_acc; /* weak: kept alive by s */
    }
    return v;
}

int ag__unpack(AgNode *node, AgSaved *s, bool identity, Tensor **out) {
    *out = NULL;
    if (!s->defined) return 0;
    if (s->freed) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s", ERR_BACKWARD_TWICE);
        return -1;
    }
    if (s->hooks) {
        tensor_error_clear();
        Tensor *t = s->hooks->h.unpack(s->hooks->h.ctx, s->packed.obj);
        if (!t) {
            if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
            return -1;
        }
        *out = with_identity(s, t, node);
        tensor_decref(t);
        return *out ? 0 : -1;
    }
    if (tensor_version(s->data) != s->saved_version) return version_error(s, node);
    if (s->saved_original || !identity) {
        tensor_incref(s->data);
        *out = s->data;
        return 0;
    }
    *out = with_identity(s, s->data, node);
    return *out ? 0 : -1;
}

uint32_t ag_saved_src_inputs(const AgNode *n, int slot) {
    return slot >= 0 && (uint32_t)slot < n->n_saved && n->saved[slot].defined ? n->saved[slot].src_inputs : 0;
}

int ag_saved_src_output(const AgNode *n, int slot) {
    return slot >= 0 && (uint32_t)slot < n->n_saved && n->saved[slot].defined ? n->saved[slot].src_output : -1;
}

int ag__saved(AgNode *node, int slot, Tensor **out) {
    /* rules only need identity when the backward itself is being recorded (create_graph) */
    return ag__unpack(node, &node->saved[slot], ag_is_grad_enabled(), out);
}
