/* node.c — autograd nodes and the autograd side of tensors: node allocation and iterative
 * freeing, grad mode, AgMeta (grad, hooks, weak AccumulateGrad), requires_grad / leaf rules,
 * gradient edges, history, stale-view grad_fn regeneration, and the node accessors. */
#include <stdio.h>

#include "src/autograd/autograd.h"

#include "src/common/blockcache.h"

static bool grad_enabled = true;
uint64_t ag__seq_counter;

bool ag_is_grad_enabled(void) { return grad_enabled; }
bool ag_set_grad_enabled(bool enabled) {
    bool prev = grad_enabled;
    grad_enabled = enabled;
    return prev;
}

/* ---- allocation ---------------------------------------------------------------------------------- */

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

AgNode *ag__node_alloc(AgNodeKind kind, const char *name, uint32_t n_next, uint32_t n_out, uint32_t n_in_meta,
                       uint32_t n_saved, const TensorOpArgs *args) {
    ag__install_release();
    size_t n_ints = args ? (size_t)(args->n_ints > 0 ? args->n_ints : 0) + (size_t)(args->n_ints2 > 0 ? args->n_ints2 : 0) : 0;
    size_t off_next = align8(sizeof(AgNode));
    size_t off_out = off_next + align8(sizeof(AgEdge) * n_next);
    size_t off_in = off_out + align8(sizeof(AgShape) * n_out);
    size_t off_saved = off_in + align8(sizeof(TensorMeta) * n_in_meta);
    size_t off_ints = off_saved + align8(sizeof(AgSaved) * n_saved);
    size_t total = off_ints + sizeof(int64_t) * n_ints;
    char *mem = blockcache_alloc(total);
    if (!mem) {
        tensor__oom();
        return NULL;
    }
    AgNode *n = (AgNode *)mem;
    memset(n, 0, offsetof(AgNode, args));
    n->refcount = 1;
    n->alloc_size = (uint32_t)total;
    n->kind = (uint8_t)kind;
    n->op = TENSOR_OP_COUNT;
    n->n_next = n_next;
    n->n_out = n_out;
    n->n_in = n_in_meta;
    n->n_saved = n_saved;
    n->seq = kind == AG_KIND_ACCUMULATE ? UINT64_MAX : ag__seq_counter++;
    n->name = name;
    n->next = (AgEdge *)(mem + off_next);
    memset(n->next, 0, sizeof(AgEdge) * n_next);
    n->out_meta = (AgShape *)(mem + off_out);
    n->in_meta = n_in_meta ? (TensorMeta *)(mem + off_in) : NULL;
    n->saved = (AgSaved *)(mem + off_saved);
    for (uint32_t i = 0; i < n_saved; i++) ag__saved_init_empty(&n->saved[i]);
    if (args) {
        n->args = *args;
        int64_t *ints = (int64_t *)(mem + off_ints);
        if (args->n_ints > 0) {
            memcpy(ints, args->ints, sizeof(int64_t) * (size_t)args->n_ints);
            n->args.ints = ints;
            ints += args->n_ints;
        } else {
            n->args.ints = NULL;
        }
        if (args->n_ints2 > 0) {
            memcpy(ints, args->ints2, sizeof(int64_t) * (size_t)args->n_ints2);
            n->args.ints2 = ints;
        } else {
            n->args.ints2 = NULL;
        }
    } else {
        /* nodes without args (AccumulateGrad, CopySlices, functions) never read them; zeroing
         * the whole struct showed up in the graph-recording profile */
        n->args.ints = n->args.ints2 = NULL;
        n->args.n_ints = n->args.n_ints2 = 0;
    }
    n->hooks = NULL;
    n->user_obj = NULL;
    n->metadata = NULL;
    n->metadata_release = NULL;
    n->payload = NULL;
    n->free_next = NULL;
    return n;
}

/* ---- freeing: a worklist, so deep graphs do not recurse ------------------------------------------- */

static AgNode *free_list;
static bool freeing;

static void node_hooks_free(AgNodeHooks *h) {
    if (!h) return;
    ag__hook_list_decref(h->pre);
    ag__hook_list_decref(h->post);
    for (int i = 0; i < h->n_tensor; i++) ag__hook_list_decref(h->tensor[i].list);
    free(h->tensor);
    /* retains: the tensors are alive (they hold us); just forget them */
    for (int i = 0; i < h->n_retains; i++)
        if (h->retains[i].tensor) h->retains[i].tensor->flags &= (uint8_t)~TENSOR_F_RETAINS_GRAD;
    free(h->retains);
    free(h);
}

static void node_destroy(AgNode *n) {
    for (uint32_t i = 0; i < n->n_next; i++) ag_node_decref(n->next[i].fn);
    for (uint32_t i = 0; i < n->n_saved; i++) ag__saved_release(&n->saved[i]);
    node_hooks_free(n->hooks);
    if (n->metadata_release) n->metadata_release(n->metadata);
    switch ((AgNodeKind)n->kind) {
    case AG_KIND_ACCUMULATE: {
        Tensor *v = n->payload;
        if (v->ag && v->ag->grad_acc == n) v->ag->grad_acc = NULL;
        tensor_decref(v);
        break;
    }
    case AG_KIND_FUNCTION: ag__function_free(n); break;
    case AG_KIND_COPY_SLICES: ag__copy_slices_free(n); break;
    case AG_KIND_GRAPH_ROOT: {
        Tensor **g = n->payload;
        if (g) {
            for (uint32_t i = 0; i < n->n_next; i++) tensor_decref(g[i]);
            free(g);
        }
        break;
    }
    default: break;
    }
    blockcache_free(n, n->alloc_size);
}

void ag_node_incref(AgNode *n) {
    if (n) n->refcount++;
}

void ag_node_decref(AgNode *n) {
    if (!n || --n->refcount > 0) return;
    n->free_next = free_list;
    free_list = n;
    if (freeing) return;
    freeing = true;
    while (free_list) {
        AgNode *x = free_list;
        free_list = x->free_next;
        node_destroy(x);
    }
    freeing = false;
}

/* ---- tensors ------------------------------------------------------------------------------------------ */

static void tensor_autograd_release(Tensor *t) {
    if (t->ag) {
        AgMeta *m = t->ag;
        tensor_decref(m->grad);
        ag__hook_list_decref(m->hooks);
        ag__hook_list_decref(m->post_acc);
        free(m);
        t->ag = NULL;
    }
    if (t->grad_fn) {
        if (t->flags & TENSOR_F_RETAINS_GRAD) ag__retain_remove(t->grad_fn, t);
        AgNode *fn = t->grad_fn;
        t->grad_fn = NULL;
        ag_node_decref(fn);
    }
}

void ag__install_release(void) { tensor__autograd_release = tensor_autograd_release; }

AgMeta *ag__meta(Tensor *t) {
    if (!t->ag) {
        ag__install_release();
        t->ag = calloc(1, sizeof(AgMeta));
        EM_ASSERT(t->ag, "out of memory allocating autograd metadata");
    }
    return t->ag;
}

/* A differentiable view whose data changed since its grad_fn was set (an in-place op on its base
 * or a sibling view). Views made under no_grad are not regenerated: PyTorch refuses to use them
 * in that state, here their history simply stays empty. */
static bool view_is_stale(const Tensor *t) {
    return t->base && (t->flags & TENSOR_F_DIFF_VIEW) && !(t->flags & TENSOR_F_NOGRAD_VIEW) && t->version &&
           t->version->version != t->grad_fn_version;
}

bool ag__requires_grad(const Tensor *t) {
    if (t->grad_fn || (t->flags & TENSOR_F_REQUIRES_GRAD)) return true;
    /* a differentiable view of a base that requires grad requires grad (PyTorch) */
    if (t->base && (t->flags & TENSOR_F_DIFF_VIEW) && t->base != t)
        return t->base->grad_fn || (t->base->flags & TENSOR_F_REQUIRES_GRAD);
    return false;
}

bool ag_requires_grad(const Tensor *t) { return ag__requires_grad(t); }

bool ag_is_leaf(const Tensor *t) {
    if (view_is_stale(t) && ag__requires_grad(t->base)) return false;
    return t->grad_fn == NULL;
}

int ag_set_requires_grad(Tensor *t, bool rg) {
    if (t->grad_fn) {
        if (rg) return 0; /* a non-leaf already requires grad */
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
        return -1;
    }
    if (rg && !tensor_dtype_is_floating((TensorDtype)t->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "only Tensors of floating point dtype can require gradients");
        return -1;
    }
    ag__install_release();
    if (rg)
        t->flags |= TENSOR_F_REQUIRES_GRAD;
    else
        t->flags &= (uint8_t)~TENSOR_F_REQUIRES_GRAD;
    return 0;
}

uint32_t ag_output_nr(const Tensor *t) { return t->output_nr; }
Tensor *ag_grad_of(const Tensor *t) { return t->ag ? t->ag->grad : NULL; }

int ag_set_grad(Tensor *t, Tensor *g) {
    if (g) {
        if (g->dtype != t->dtype) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "assigned grad has data of a different type");
            return -1;
        }
        if (g->ndim != t->ndim || memcmp(g->shape, t->shape, sizeof(int64_t) * t->ndim) != 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "assigned grad has data of a different size");
            return -1;
        }
        tensor_incref(g);
    }
    AgMeta *m = ag__meta(t);
    tensor_decref(m->grad);
    m->grad = g;
    return 0;
}

bool ag_retains_grad(const Tensor *t) { return (t->flags & TENSOR_F_RETAINS_GRAD) != 0; }

int ag_retain_grad(Tensor *t) {
    if (!ag__requires_grad(t)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
        return -1;
    }
    AgNode *fn = ag__grad_fn(t);
    if (!fn) return 0; /* leaves retain their grad anyway */
    if (t->flags & TENSOR_F_RETAINS_GRAD) return 0;
    AgNodeHooks *h = ag__node_hooks(fn);
    if (h->n_retains == h->cap_retains) {
        int cap = h->cap_retains ? h->cap_retains * 2 : 2;
        AgRetainSlot *r = realloc(h->retains, sizeof *r * (size_t)cap);
        if (!r) return tensor__oom();
        h->retains = r;
        h->cap_retains = cap;
    }
    h->retains[h->n_retains++] = (AgRetainSlot){t->output_nr, t};
    t->flags |= TENSOR_F_RETAINS_GRAD;
    return 0;
}

Tensor *ag_detach(Tensor *t) { return tensor_detach(t); }

int ag_detach_(Tensor *t) {
    if (t->base && (t->flags & TENSOR_F_DIFF_VIEW)) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
        return -1;
    }
    if (t->grad_fn) {
        if (t->flags & TENSOR_F_RETAINS_GRAD) ag__retain_remove(t->grad_fn, t);
        AgNode *fn = t->grad_fn;
        t->grad_fn = NULL;
        ag_node_decref(fn);
    }
    t->flags &= (uint8_t)~TENSOR_F_REQUIRES_GRAD;
    t->output_nr = 0;
    return 0;
}

void ag__shape_of(AgShape *s, const Tensor *t) {
    s->dtype = t->dtype;
    s->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++) s->shape[i] = t->shape[i];
}

void ag__set_history(Tensor *t, AgNode *node, uint32_t output_nr) {
    ag__install_release();
    ag_node_incref(node);
    AgNode *old = t->grad_fn;
    t->grad_fn = node;
    t->output_nr = output_nr;
    t->grad_fn_version = tensor_version(t);
    if (old) ag_node_decref(old);
}

/* ---- AccumulateGrad and gradient edges ------------------------------------------------------------- */

static const char ACC_NAME[] = "torch::autograd::AccumulateGrad";

AgNode *ag__try_grad_accumulator(const Tensor *leaf) { return leaf->ag ? leaf->ag->grad_acc : NULL; }

AgNode *ag__grad_accumulator(Tensor *leaf) {
    AgMeta *m = ag__meta(leaf);
    if (m->grad_acc) {
        ag_node_incref(m->grad_acc);
        return m->grad_acc;
    }
    AgNode *n = ag__node_alloc(AG_KIND_ACCUMULATE, ACC_NAME, 0, 1, 0, 0, NULL);
    if (!n) return NULL;
    ag__shape_of(&n->out_meta[0], leaf);
    tensor_incref(leaf);
    n->payload = leaf;
    m->grad_acc = n;
    return n;
}

AgNode *ag__grad_fn(Tensor *t) {
    if (view_is_stale(t) && ag__requires_grad(t->base)) {
        Tensor *r = ag__regenerate_view_fn(t);
        if (!r) return t->grad_fn; /* out of memory: keep the old one */
    }
    return t->grad_fn;
}

AgNode *ag_grad_fn(Tensor *t) { return ag__grad_fn(t); }

int ag__gradient_edge(Tensor *t, AgEdge *e) {
    AgNode *fn = ag__grad_fn(t);
    if (fn) {
        ag_node_incref(fn);
        e->fn = fn;
        e->input_nr = t->output_nr;
        return 0;
    }
    e->input_nr = 0;
    e->fn = NULL;
    if (t->flags & TENSOR_F_REQUIRES_GRAD) {
        e->fn = ag__grad_accumulator(t);
        if (!e->fn) return -1;
    } else if (t->ag && t->ag->grad_acc) {
        /* an unpacked saved leaf aliasing the real leaf routes to its accumulator */
        e->fn = t->ag->grad_acc;
        ag_node_incref(e->fn);
    }
    return 0;
}

AgNode *ag_gradient_edge(Tensor *t, uint32_t *output_nr) {
    if (!ag__requires_grad(t)) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "It is not possible to get the gradient edge for a Tensor that does not require gradients");
        return NULL;
    }
    AgEdge e;
    if (ag__gradient_edge(t, &e) < 0) return NULL;
    if (output_nr) *output_nr = e.input_nr;
    if (!e.fn) tensor_error_set(TENSOR_ERR_RUNTIME, "tensor has no gradient edge");
    return e.fn;
}

/* A view whose storage changed under it gets AsStridedBackward0 from the base's current edge. */
Tensor *ag__regenerate_view_fn(Tensor *v) {
    Tensor *base = v->base;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = v->shape;
    a.n_ints = v->ndim;
    a.ints2 = v->strides;
    a.n_ints2 = v->ndim;
    a.start = v->offset;
    AgNode *n = ag__node_alloc(AG_KIND_OP, tensor_op_info(TENSOR_OP_AS_STRIDED)->node_name, 1, 1, 1, 0, &a);
    if (!n) return NULL;
    n->op = TENSOR_OP_AS_STRIDED;
    if (ag__gradient_edge(base, &n->next[0]) < 0) {
        ag_node_decref(n);
        return NULL;
    }
    tensor_meta_of(base, &n->in_meta[0]);
    ag__shape_of(&n->out_meta[0], v);
    AgNode *old = v->grad_fn;
    if (old) ag_node_incref(old);
    ag__set_history(v, n, 0);
    ag__update_hooks_on_new_grad_fn(v, old, n);
    if (old) ag_node_decref(old);
    ag_node_decref(n);
    return v;
}

/* ---- node accessors -------------------------------------------------------------------------------- */

const char *ag_node_name(const AgNode *n) { return n->name; }
void ag_node_set_name(AgNode *n, const char *name) { n->name = name; }
int ag_node_num_next(const AgNode *n) { return (int)n->n_next; }
AgNode *ag_node_next(const AgNode *n, int i, uint32_t *input_nr) {
    if (i < 0 || (uint32_t)i >= n->n_next) return NULL;
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}
int ag_node_num_inputs(const AgNode *n) { return (int)n->n_out; }
bool ag_node_is_accumulate_grad(const AgNode *n) { return n->kind == AG_KIND_ACCUMULATE; }
Tensor *ag_node_variable(const AgNode *n) { return n->kind == AG_KIND_ACCUMULATE ? (Tensor *)n->payload : NULL; }
uint64_t ag_node_sequence_nr(const AgNode *n) { return n->seq; }
TensorOp ag_node_op(const AgNode *n) { return n->kind == AG_KIND_OP ? (TensorOp)n->op : TENSOR_OP_COUNT; }
void *ag_node_user_obj(const AgNode *n) { return n->user_obj; }
void ag_node_set_user_obj(AgNode *n, void *obj) { n->user_obj = obj; }
void *ag_node_metadata(const AgNode *n) { return n->metadata; }
void ag_node_set_metadata(AgNode *n, void *obj, void (*release)(void *obj)) {
    void *old = n->metadata;
    void (*old_release)(void *) = n->metadata_release;
    n->metadata = obj;
    n->metadata_release = release;
    if (old_release && old != obj) old_release(old);
}

AgNodeHooks *ag__node_hooks(AgNode *n) {
    if (!n->hooks) {
        n->hooks = calloc(1, sizeof *n->hooks);
        EM_ASSERT(n->hooks, "out of memory allocating node hooks");
    }
    return n->hooks;
}

/* input index -> next-edge index for op nodes (see ops.def DIFF_INPUTS and SCALAR_EDGE) */
int ag__input_edge(const AgNode *n, int input) {
    if (n->kind != AG_KIND_OP) return input < (int)n->n_next ? input : -1;
    const TensorOpInfo *info = tensor_op_info((TensorOp)n->op);
    uint32_t mask = info->diff_inputs;
    int e;
    if (mask == 0xffffffffu) {
        e = input;
    } else {
        if (input >= 32 || !(mask & (1u << input))) return -1;
        uint32_t below = mask & ((1u << input) - 1);
        for (e = 0; below; e++) below &= below - 1; /* popcount without a libgcc call */
    }
    if (info->flags & TENSOR_OPF_SCALAR_EDGE_FIRST) e++;
    return e < (int)n->n_next ? e : -1;
}

bool ag__needs_input_grad(const AgNode *n, int input) {
    int e = ag__input_edge(n, input);
    if (e < 0 || !n->next[e].fn) return false;
    return ag__task_should_execute(n->next[e].fn);
}

void ag__release_saved(AgNode *n) {
    for (uint32_t i = 0; i < n->n_saved; i++) ag__saved_release(&n->saved[i]);
    n->released = true;
}
