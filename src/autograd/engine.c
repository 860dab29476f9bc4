/* engine.c — the backward engine, after torch/csrc/autograd/engine.cpp: a graph task per call
 * (ids, dependency counts, exec info for `inputs=` and autograd.grad captures), a ready queue
 * ordered by sequence number (AccumulateGrad first) with the same heap discipline as
 * std::priority_queue, input buffers that sum incoming gradients, hooks in PyTorch's order
 * (tensor pre-hooks, retains_grad, node pre-hooks, apply, validation, node post-hooks), release
 * of saved variables unless retain_graph, final callbacks, and re-entrant backward from hooks.
 * Single-threaded: a nested backward runs its own task to completion. */
#include <stdio.h>

#include "src/autograd/capture.h"
#include "src/common/blockcache.h"
#include "src/tensor/pointwise.h"

/* ---- task state ------------------------------------------------------------------------------------ */

typedef struct TaskNode {
    AgNode *node;
    int32_t deps;
    Tensor **buf;             /* gradients received so far (n_out entries) or NULL */
    bool needed;              /* exec info: must run */
    bool capture;             /* exec info: some of its inputs are captured */
} TaskNode;

typedef struct Capture {
    AgNode *fn;
    uint32_t input_nr;
    int out_idx;
} Capture;

typedef struct ReadyItem {
    AgNode *node;
    uint64_t seq;
    Tensor **buf;
} ReadyItem;

typedef struct AgTask {
    int64_t id;
    bool keep_graph, create_graph, has_exec_info;
    /* node -> index in nodes (open addressing over pointers) */
    AgNode **keys;
    int32_t *vals;
    size_t cap;
    TaskNode *nodes;
    int n_nodes, cap_nodes;
    ReadyItem *heap;
    int heap_n, heap_cap;
    Capture *caps;
    int n_caps;
    Tensor **captured;
    AgCallback *cbs;
    int n_cbs, cap_cbs;
    AgNode *root;             /* the root node (a GraphRoot for several roots) */
    Tensor **root_buf;        /* its input buffer until the ready queue takes it */
    struct AgTask *parent;
    struct TaskSmall *small;  /* execute's frame: the first map, node table and queue */
} Task;

/* The first node map, node table and ready queue of a task live in execute's frame, so that a
 * backward through a small graph (a training step's loss, up to TASK_SMALL_NODES nodes) makes no
 * heap allocation for its bookkeeping; larger graphs move to the heap as they grow.  (They were
 * five malloc / calloc / free pairs per call, about a sixth of the engine's instructions for a
 * 2-node backward.) */
#define TASK_SMALL_NODES 32
typedef struct TaskSmall {
    AgNode *keys[2 * TASK_SMALL_NODES];
    int32_t vals[2 * TASK_SMALL_NODES];
    TaskNode nodes[TASK_SMALL_NODES];
    ReadyItem heap[16];
} TaskSmall;

/* Grow one of a task's arrays from cur (old_n elements, possibly the frame's inline array inl)
 * to new_n elements. */
static void *task_grow(void *cur, const void *inl, size_t elem, size_t old_n, size_t new_n) {
    if (cur != inl) return realloc(cur, elem * new_n);
    void *p = malloc(elem * new_n);
    if (p && old_n) memcpy(p, cur, elem * old_n);
    return p;
}

static void task_release(void *p, const void *inl) {
    if (p != inl) free(p);
}

static Task *current_task;
static int64_t next_task_id;
static AgNode *current_node;
static AgTaskInterceptor interceptor;
static void *interceptor_ctx;

int64_t ag_current_graph_task_id(void) { return current_task ? current_task->id : -1; }
/* torch.autograd._is_checkpoint_valid: false inside a backward that computes only some gradients
 * (torch.autograd.grad, backward(inputs=...)), where a reentrant checkpoint's inner backward
 * would accumulate into leaves the caller did not ask for */
bool ag_checkpoint_valid(void) { return !current_task || !current_task->has_exec_info; }
AgNode *ag_current_node(void) { return current_node; }

static size_t hash_ptr(const void *p, size_t cap) { return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL) & (cap - 1); }

static TaskNode *lookup(const Task *t, const AgNode *n) {
    if (!t->cap) return NULL;
    size_t i = hash_ptr(n, t->cap);
    while (t->keys[i]) {
        if (t->keys[i] == n) return &t->nodes[t->vals[i]];
        i = (i + 1) & (t->cap - 1);
    }
    return NULL;
}

static void map_grow(Task *t) {
    size_t cap = t->cap ? t->cap * 2 : 2 * TASK_SMALL_NODES;
    AgNode **keys;
    int32_t *vals;
    if (!t->cap) {
        keys = t->small->keys;
        vals = t->small->vals;
        memset(keys, 0, sizeof t->small->keys);
    } else {
        keys = calloc(cap, sizeof *keys);
        vals = malloc(sizeof *vals * cap);
    }
    EM_ASSERT(keys && vals, "out of memory growing a graph task");
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i]) continue;
        size_t j = hash_ptr(t->keys[i], cap);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        vals[j] = t->vals[i];
    }
    task_release(t->keys, t->small->keys);
    task_release(t->vals, t->small->vals);
    t->keys = keys;
    t->vals = vals;
    t->cap = cap;
}

/* returns the entry, *fresh = true when inserted now */
static TaskNode *insert(Task *t, AgNode *n, bool *fresh) {
    TaskNode *e = lookup(t, n);
    if (e) {
        *fresh = false;
        return e;
    }
    if ((size_t)(t->n_nodes + 1) * 2 > t->cap) map_grow(t);
    if (t->n_nodes == t->cap_nodes) {
        TaskNode *v;
        int cap;
        if (!t->cap_nodes) {
            cap = TASK_SMALL_NODES;
            v = t->small->nodes;
        } else {
            cap = t->cap_nodes * 2;
            v = task_grow(t->nodes, t->small->nodes, sizeof *v, (size_t)t->n_nodes, (size_t)cap);
        }
        EM_ASSERT(v, "out of memory growing a graph task");
        t->nodes = v;
        t->cap_nodes = cap;
    }
    size_t i = hash_ptr(n, t->cap);
    while (t->keys[i]) i = (i + 1) & (t->cap - 1);
    t->keys[i] = n;
    t->vals[i] = t->n_nodes;
    e = &t->nodes[t->n_nodes++];
    e->node = n;
    e->deps = 0;
    e->buf = NULL;
    e->needed = false;
    e->capture = false;
    *fresh = true;
    return e;
}

/* ---- ready queue: std::priority_queue's heap, largest sequence number first ------------------------- */

static bool item_less(const ReadyItem *a, const ReadyItem *b) { return a->seq < b->seq; }

static void heap_sift_up(ReadyItem *h, int hole, int top, ReadyItem v) {
    int parent = (hole - 1) / 2;
    while (hole > top && item_less(&h[parent], &v)) {
        h[hole] = h[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    h[hole] = v;
}

static void heap_push(Task *t, AgNode *n, Tensor **buf) {
    if (t->heap_n == t->heap_cap) {
        ReadyItem *h;
        int cap;
        if (!t->heap_cap) {
            cap = (int)(sizeof t->small->heap / sizeof t->small->heap[0]);
            h = t->small->heap;
        } else {
            cap = t->heap_cap * 2;
            h = task_grow(t->heap, t->small->heap, sizeof *h, (size_t)t->heap_n, (size_t)cap);
        }
        EM_ASSERT(h, "out of memory growing the ready queue");
        t->heap = h;
        t->heap_cap = cap;
    }
    ag_node_incref(n);
    ReadyItem v = {n, n->seq, buf};
    t->heap_n++;
    heap_sift_up(t->heap, t->heap_n - 1, 0, v);
}

static ReadyItem heap_pop(Task *t) {
    ReadyItem *h = t->heap;
    ReadyItem top = h[0];
    int len = --t->heap_n;
    if (len > 0) {
        ReadyItem v = h[len];
        /* __adjust_heap from the root over len elements */
        int hole = 0, child = 0;
        while (child < (len - 1) / 2) {
            child = 2 * (child + 1);
            if (item_less(&h[child], &h[child - 1])) child--;
            h[hole] = h[child];
            hole = child;
        }
        if ((len & 1) == 0 && child == (len - 2) / 2) {
            child = 2 * (child + 1);
            h[hole] = h[child - 1];
            hole = child - 1;
        }
        heap_sift_up(h, hole, 0, v);
    }
    return top;
}

/* ---- helpers ------------------------------------------------------------------------------------------ */

/* A node's gradient slots (n of them, at least one) come from the block cache: a backward
 * allocates and frees a few per node (src/common/blockcache.h). */
static size_t grad_slots_bytes(uint32_t n) { return sizeof(Tensor *) * (n ? n : 1); }

static Tensor **grad_slots_new(uint32_t n) {
    Tensor **g = blockcache_alloc(grad_slots_bytes(n));
    if (g) memset(g, 0, grad_slots_bytes(n));
    return g;
}

static void free_grads(Tensor **g, uint32_t n) {
    if (!g) return;
    for (uint32_t i = 0; i < n; i++) tensor_decref(g[i]);
    blockcache_free(g, grad_slots_bytes(n));
}

static bool same_shape(const Tensor *t, const AgShape *s) {
    return t->ndim == s->ndim && memcmp(t->shape, s->shape, sizeof(int64_t) * t->ndim) == 0;
}

/* Sums g into *slot (steals g). In place when the buffer owns a private dense tensor. */
static int buffer_add(Tensor **slot, Tensor *g) {
    if (!g) return 0;
    if (!*slot) {
        *slot = g;
        return 0;
    }
    Tensor *old = *slot;
    if (!ag_is_grad_enabled() && old->refcount == 1 && !old->base && old->storage->refcount == 1 && tensor_is_contiguous(old) &&
        !old->grad_fn && old->ndim == g->ndim && memcmp(old->shape, g->shape, sizeof(int64_t) * g->ndim) == 0 &&
        old->dtype == g->dtype) {
        Tensor *r = tensor__binary(TENSOR_OP_ADD, old, g, tensor_scalar_i(1), old);
        tensor_decref(g);
        if (!r) return -1;
        tensor_decref(r);
        return 0;
    }
    Tensor *r = ag_add(old, g);
    tensor_decref(g);
    if (!r) return -1;
    tensor_decref(old);
    *slot = r;
    return 0;
}

bool ag__task_should_execute(const AgNode *fn) {
    if (__builtin_expect(ag__deriving, 0)) return fn != ag__derive_dead;
    Task *t = current_task;
    if (!t || !t->has_exec_info) return true;
    TaskNode *e = lookup(t, fn);
    return e && (e->needed || e->capture);
}

static int shape_error(const AgNode *fn, int i, const Tensor *g, const AgShape *m) {
    char b1[256], b2[256];
    tensor__format_shape(b1, sizeof b1, g->ndim, g->shape);
    tensor__format_shape(b2, sizeof b2, m->ndim, m->shape);
    tensor_error_set(TENSOR_ERR_RUNTIME, "Function %s returned an invalid gradient at index %d - got %s but expected shape compatible with %s",
                     fn->name, i, b1, b2);
    return -1;
}

static bool expandable_to(const AgShape *m, const Tensor *g) {
    if (m->ndim > g->ndim) return false;
    for (int i = 0; i < m->ndim; i++) {
        int64_t a = m->shape[m->ndim - 1 - i], b = g->shape[g->ndim - 1 - i];
        if (a != b && a != 1) return false;
    }
    return true;
}

/* PyTorch's validate_outputs: reduce broadcast gradients to the receiving node's shape, cast the
 * dtype, reject incompatible shapes. */
static int validate_outputs(const AgNode *fn, Tensor **out) {
    for (uint32_t i = 0; i < fn->n_next; i++) {
        const AgEdge *e = &fn->next[i];
        if (!e->fn || !out[i]) continue;
        const AgShape *m = &e->fn->out_meta[e->input_nr];
        if (!same_shape(out[i], m)) {
            if (!expandable_to(m, out[i])) return shape_error(fn, (int)i, out[i], m);
            Tensor *r = ag__sum_to(out[i], m->ndim, m->shape);
            if (!r) return -1;
            tensor_decref(out[i]);
            out[i] = r;
        }
        if (out[i]->dtype != m->dtype) {
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.dtype = (TensorDtype)m->dtype;
            Tensor *r = ag_op1(TENSOR_OP_TO_DTYPE, &out[i], 1, &a);
            if (!r) return -1;
            tensor_decref(out[i]);
            out[i] = r;
        }
    }
    return 0;
}

static int hook_failed(void) {
    if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
    return -1;
}

int ag_engine_call_tensor_hook(AgHookEntry *e, Tensor **slot) {
    Tensor *g = *slot, *rep = NULL;
    tensor_error_clear();
    if (((AgTensorHookFn)e->fn)(e->ctx, g, &rep) < 0) return hook_failed();
    if (!rep) return 0;
    if (rep->ndim != g->ndim || memcmp(rep->shape, g->shape, sizeof(int64_t) * g->ndim) != 0) {
        tensor_decref(rep);
        tensor_error_set(TENSOR_ERR_RUNTIME, "hook has changed the size of value");
        return -1;
    }
    if (rep->dtype != g->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "hook has changed the type of value (was %s got %s)", tensor_type_string(g),
                         tensor_type_string(rep));
        tensor_decref(rep);
        return -1;
    }
    tensor_decref(g);
    *slot = rep;
    return 0;
}

static int run_tensor_hooks(AgHookList *l, Tensor **inputs, uint32_t n_in) {
    if (!l || l->n == 0 || l->output_nr >= n_in || !inputs[l->output_nr]) return 0;
    AgHookEntry *stack_buf[8], **v;
    int n = ag__hooks_snapshot(l, &v, stack_buf, 8);
    int rc = 0;
    for (int i = 0; i < n && rc == 0 && inputs[l->output_nr]; i++) rc = ag_engine_call_tensor_hook(v[i], &inputs[l->output_nr]);
    ag__hooks_unpin(v, n, stack_buf);
    return rc;
}

int ag_engine_retain_grad(Tensor *t, Tensor *g) {
    AgMeta *m = ag__meta(t);
    Tensor *ng = m->grad ? ag_add(m->grad, g) : tensor_clone(g);
    if (!ng) return -1;
    tensor_decref(m->grad);
    m->grad = ng;
    return 0;
}

static int call_tensor_pre_hooks(AgNode *fn, Tensor **inputs) {
    if (fn->kind == AG_KIND_ACCUMULATE) {
        Tensor *var = fn->payload;
        if (var->ag && run_tensor_hooks(var->ag->hooks, inputs, fn->n_out) < 0) return -1;
    } else if (fn->hooks) {
        for (int i = 0; i < fn->hooks->n_tensor; i++)
            if (run_tensor_hooks(fn->hooks->tensor[i].list, inputs, fn->n_out) < 0) return -1;
    }
    if (fn->hooks) {
        /* retains_grad: .grad = clone on first, then out-of-place sum */
        for (int i = 0; i < fn->hooks->n_retains; i++) {
            AgRetainSlot *r = &fn->hooks->retains[i];
            Tensor *g = r->output_nr < fn->n_out ? inputs[r->output_nr] : NULL;
            if (r->tensor && g && ag_engine_retain_grad(r->tensor, g) < 0) return -1;
        }
    }
    return 0;
}

int ag_tensor_call_hooks(Tensor *t, Tensor **grad) {
    AgMeta *m = t->ag;
    if (!m || !m->hooks || !*grad) return 0;
    uint32_t nr = m->hooks->output_nr;
    Tensor *stack_slots[4] = {NULL, NULL, NULL, NULL};
    Tensor **slots = nr < 4 ? stack_slots : calloc(nr + 1, sizeof(Tensor *));
    if (!slots) return tensor__oom();
    slots[nr] = *grad;
    int rc = run_tensor_hooks(m->hooks, slots, nr + 1);
    *grad = slots[nr];
    if (slots != stack_slots) free(slots);
    return rc;
}

int ag_engine_call_pre_hook(AgHookEntry *e, AgNode *fn, Tensor **grads) {
    tensor_error_clear();
    return ((AgNodePreHookFn)e->fn)(e->ctx, fn, (int)fn->n_out, grads) < 0 ? hook_failed() : 0;
}

int ag_engine_call_post_hook(AgHookEntry *e, AgNode *fn, Tensor **outputs, Tensor **inputs) {
    tensor_error_clear();
    return ((AgNodePostHookFn)e->fn)(e->ctx, fn, (int)fn->n_next, outputs, (int)fn->n_out, inputs) < 0 ? hook_failed() : 0;
}

static int call_pre_hooks(AgNode *fn, Tensor **inputs) {
    if (!fn->hooks || !fn->hooks->pre) return 0;
    AgHookEntry *stack_buf[8], **v;
    int n = ag__hooks_snapshot(fn->hooks->pre, &v, stack_buf, 8);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) rc = ag_engine_call_pre_hook(v[i], fn, inputs);
    ag__hooks_unpin(v, n, stack_buf);
    return rc;
}

static int call_post_hooks(AgNode *fn, Tensor **outputs, Tensor **inputs) {
    if (!fn->hooks || !fn->hooks->post) return 0;
    AgHookEntry *stack_buf[8], **v;
    int n = ag__hooks_snapshot(fn->hooks->post, &v, stack_buf, 8);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) rc = ag_engine_call_post_hook(v[i], fn, outputs, inputs);
    ag__hooks_unpin(v, n, stack_buf);
    return rc;
}

int ag_engine_call_tensor_pre_hooks(AgNode *fn, Tensor **grads) { return call_tensor_pre_hooks(fn, grads); }
int ag_engine_call_pre_hooks(AgNode *fn, Tensor **grads) { return call_pre_hooks(fn, grads); }
int ag_engine_call_post_hooks(AgNode *fn, Tensor **grad_inputs, Tensor **grads) {
    return call_post_hooks(fn, grad_inputs, grads);
}

/* ---- evaluating one node --------------------------------------------------------------------------------- */

static int call_function(AgNode *fn, Tensor **inputs, Tensor **outputs) {
    AgNode *prev = current_node;
    current_node = fn;
    int rc = -1;
    if (call_tensor_pre_hooks(fn, inputs) < 0) goto done;
    if (call_pre_hooks(fn, inputs) < 0) goto done;
    if (ag_engine_apply(fn, inputs, outputs) < 0) goto done;
    if (call_post_hooks(fn, outputs, inputs) < 0) goto done;
    rc = 0;
done:
    current_node = prev;
    return rc;
}

int ag_engine_apply(AgNode *fn, Tensor **grads, Tensor **outputs) {
    if (ag__apply_node(fn, grads, outputs) < 0) return -1;
    return validate_outputs(fn, outputs);
}

AgNode *ag_engine_set_current_node(AgNode *n) {
    AgNode *prev = current_node;
    current_node = n;
    return prev;
}

static void release_variables(AgNode *fn) {
    if (fn->kind == AG_KIND_FUNCTION || fn->kind == AG_KIND_COPY_SLICES) {
        ag__function_release_variables(fn);
    } else {
        ag__release_saved(fn);
    }
}

void ag_engine_release_variables(AgNode *fn) { release_variables(fn); }

/* inputs: owned buffer of fn->n_out gradients (freed here) */
static int evaluate_node(Task *t, AgNode *fn, Tensor **inputs);

/* one node's evaluation, as the profiler names it: PyTorch's "autograd::engine::evaluate_function:
 * MulBackward0" range (hooks, the node, routing its gradients) around the node's own */
static int evaluate(Task *t, AgNode *fn, Tensor **inputs) {
    if (!tensor__op_hooked) return evaluate_node(t, fn, inputs);
    tensor_profile_range("autograd::engine::evaluate_function: ", fn->name, true);
    int rc = evaluate_node(t, fn, inputs);
    tensor_profile_range("autograd::engine::evaluate_function: ", fn->name, false);
    return rc;
}

/* ---- anomaly mode (torch.autograd.set_detect_anomaly) ---------------------------------------------------- */

static bool anomaly_enabled, anomaly_check_nan = true;

void ag_set_anomaly_enabled(bool enabled, bool check_nan) {
    anomaly_enabled = enabled;
    anomaly_check_nan = check_nan;
}
bool ag_is_anomaly_enabled(void) { return anomaly_enabled; }
bool ag_is_anomaly_check_nan_enabled(void) { return anomaly_check_nan; }

/* Any NaN among a gradient's elements (what PyTorch's engine asks of every output of a node
 * while anomaly mode checks for NaN); integer and bool gradients have none. */
static bool grad_has_nan(Tensor *g) {
    TensorDtype dt = tensor_dtype(g);
    if (dt != TENSOR_FLOAT32 && dt != TENSOR_FLOAT64 && dt != TENSOR_FLOAT16 && dt != TENSOR_BFLOAT16) return false;
    if (!tensor_has_data(g)) return false;
    Tensor *c = tensor_contiguous(g);
    if (!c) return false;
    int64_t n = tensor_numel(c);
    const void *p = tensor_data_ptr(c);
    bool nan = false;
    for (int64_t i = 0; i < n && !nan; i++) {
        switch (dt) {
        case TENSOR_FLOAT32: nan = ((const float *)p)[i] != ((const float *)p)[i]; break;
        case TENSOR_FLOAT64: nan = ((const double *)p)[i] != ((const double *)p)[i]; break;
        case TENSOR_FLOAT16: nan = (((const uint16_t *)p)[i] & 0x7fff) > 0x7c00; break;
        default: nan = (((const uint16_t *)p)[i] & 0x7fff) > 0x7f80; break;
        }
    }
    tensor_decref(c);
    return nan;
}

static int check_nan_outputs(const AgNode *fn, Tensor *const *outputs) {
    for (uint32_t i = 0; i < fn->n_next; i++)
        if (outputs[i] && grad_has_nan(outputs[i])) {
            /* "0th", "1th": PyTorch's words */
            tensor_error_set(TENSOR_ERR_RUNTIME, "Function '%s' returned nan values in its %uth output.", fn->name, i);
            return -1;
        }
    return 0;
}

static int evaluate_node(Task *t, AgNode *fn, Tensor **inputs) {
    int rc = -1;
    Tensor **outputs = NULL;
    if (t->has_exec_info) {
        TaskNode *info = lookup(t, fn);
        if (!info->needed) {
            /* tensor pre-hooks run even when the node itself is skipped (then never twice) */
            AgNode *prev = current_node;
            current_node = fn;
            int hr = call_tensor_pre_hooks(fn, inputs);
            current_node = prev;
            if (hr < 0) goto done;
        }
        if (info->capture) {
            for (int i = 0; i < t->n_caps; i++) {
                Capture *c = &t->caps[i];
                if (c->fn != fn) continue;
                Tensor *g = c->input_nr < fn->n_out ? inputs[c->input_nr] : NULL;
                if (g) tensor_incref(g);
                tensor_decref(t->captured[c->out_idx]);
                t->captured[c->out_idx] = g;
            }
        }
        if (!info->needed) {
            rc = 0;
            goto done;
        }
    }
    outputs = grad_slots_new(fn->n_next);
    if (!outputs) {
        tensor__oom();
        goto done;
    }
    if (tensor__op_hooked) tensor_profile_range("", fn->name, true);
    int cr = call_function(fn, inputs, outputs);
    if (tensor__op_hooked) tensor_profile_range("", fn->name, false);
    if (cr < 0) goto done;
    if (__builtin_expect(anomaly_enabled, 0) && anomaly_check_nan && check_nan_outputs(fn, outputs) < 0) goto done;
    if (!t->keep_graph) release_variables(fn);
    for (uint32_t i = 0; i < fn->n_next; i++) {
        const AgEdge *e = &fn->next[i];
        Tensor *g = outputs[i];
        outputs[i] = NULL;
        if (!e->fn) {
            tensor_decref(g);
            continue;
        }
        TaskNode *nx = lookup(t, e->fn);
        if (!nx) {
            tensor_decref(g);
            tensor_error_set(TENSOR_ERR_RUNTIME, "dependency not found for %s", e->fn->name);
            goto done;
        }
        bool ready = --nx->deps == 0;
        if (!nx->buf) {
            if (t->has_exec_info && !(nx->needed || nx->capture)) {
                tensor_decref(g);
                continue;
            }
            nx->buf = grad_slots_new(e->fn->n_out);
            if (!nx->buf) {
                tensor_decref(g);
                tensor__oom();
                goto done;
            }
        }
        if (buffer_add(&nx->buf[e->input_nr], g) < 0) goto done;
        if (ready) {
            heap_push(t, e->fn, nx->buf);
            nx->buf = NULL;
        }
    }
    rc = 0;
done:
    if (outputs) free_grads(outputs, fn->n_next);
    free_grads(inputs, fn->n_out);
    return rc;
}

/* ---- graph-task setup ----------------------------------------------------------------------------------- */

static void compute_dependencies(Task *t, AgNode *root) {
    bool fresh;
    insert(t, root, &fresh);
    AgNode *local[64];
    AgNode **stack = local;
    int sp = 0, cap = 64;
    stack[sp++] = root;
    while (sp) {
        AgNode *fn = stack[--sp];
        for (uint32_t i = 0; i < fn->n_next; i++) {
            AgNode *nx = fn->next[i].fn;
            if (!nx) continue;
            TaskNode *e = insert(t, nx, &fresh);
            e->deps++;
            if (fresh) {
                if (sp == cap) {
                    stack = task_grow(stack, local, sizeof *stack, (size_t)cap, (size_t)cap * 2);
                    EM_ASSERT(stack, "out of memory");
                    cap *= 2;
                }
                stack[sp++] = nx;
            }
        }
    }
    if (stack != local) free(stack);
}

/* PyTorch's init_to_execute: a node is needed if it leads to an output edge. */
static void init_to_execute(Task *t, AgNode *root, const AgEdge *outs, int n_outs, bool accumulate) {
    lookup(t, root)->needed = true;
    for (int i = 0; i < n_outs; i++) {
        TaskNode *e = outs[i].fn ? lookup(t, outs[i].fn) : NULL;
        if (!e) continue;
        if (accumulate) {
            e->needed = true;
        } else {
            e->capture = true;
        }
    }
    /* post-order DFS: frame = (node, next child index) */
    typedef struct {
        AgNode *fn;
        uint32_t next;
    } Frame;
    int cap = 64, sp = 0;
    Frame *st = malloc(sizeof *st * (size_t)cap);
    bool *seen = calloc((size_t)t->n_nodes, sizeof *seen);
    EM_ASSERT(st && seen, "out of memory");
    st[sp++] = (Frame){root, 0};
    seen[lookup(t, root) - t->nodes] = true;
    while (sp) {
        Frame *f = &st[sp - 1];
        TaskNode *info = lookup(t, f->fn);
        AgNode *child = NULL;
        while (f->next < f->fn->n_next) {
            AgNode *c = f->fn->next[f->next++].fn;
            if (!c) continue;
            TaskNode *ce = lookup(t, c);
            if (!seen[ce - t->nodes]) {
                child = c;
                break;
            }
            if (ce->needed || ce->capture) info->needed = true;
        }
        if (child) {
            seen[lookup(t, child) - t->nodes] = true;
            if (sp == cap) {
                cap *= 2;
                st = realloc(st, sizeof *st * (size_t)cap);
                EM_ASSERT(st, "out of memory");
            }
            st[sp++] = (Frame){child, 0};
        } else {
            bool exec = info->needed || info->capture;
            sp--;
            if (exec && sp) lookup(t, st[sp - 1].fn)->needed = true;
        }
    }
    free(st);
    free(seen);
}

static void task_free(Task *t) {
    for (int i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].buf) free_grads(t->nodes[i].buf, t->nodes[i].node->n_out);
    }
    for (int i = 0; i < t->heap_n; i++) {
        free_grads(t->heap[i].buf, t->heap[i].node->n_out);
        ag_node_decref(t->heap[i].node);
    }
    for (int i = 0; i < t->n_cbs; i++)
        if (t->cbs[i].release) t->cbs[i].release(t->cbs[i].ctx);
    task_release(t->keys, t->small->keys);
    task_release(t->vals, t->small->vals);
    task_release(t->nodes, t->small->nodes);
    task_release(t->heap, t->small->heap);
    free(t->cbs);
    free(t->caps);
}

int ag_queue_callback(AgCallback cb) {
    if (!current_task) {
        if (cb.release) cb.release(cb.ctx);
        tensor_error_set(TENSOR_ERR_RUNTIME, "Final callbacks can only be installed during backward pass.");
        return -1;
    }
    Task *t = current_task;
    if (t->n_cbs == t->cap_cbs) {
        int cap = t->cap_cbs ? t->cap_cbs * 2 : 4;
        AgCallback *v = realloc(t->cbs, sizeof *v * (size_t)cap);
        if (!v) {
            if (cb.release) cb.release(cb.ctx);
            return tensor__oom();
        }
        t->cbs = v;
        t->cap_cbs = cap;
    }
    t->cbs[t->n_cbs++] = cb;
    return 0;
}

int ag_engine_will_execute(const AgNode *node, bool *out) {
    Task *t = current_task;
    if (!t) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "_get_should_execute_nodes should only be called during the backward pass");
        return -1;
    }
    TaskNode *e = lookup(t, node);
    *out = e && (!t->has_exec_info || e->needed || e->capture);
    return 0;
}

int ag_will_engine_execute_node(const AgNode *node, bool *out) {
    if (ag_engine_will_execute(node, out) < 0) return -1;
    Task *t = current_task;
    TaskNode *e = lookup(t, node);
    /* as PyTorch: a leaf (topological_nr 0: no next functions) whose gradient autograd.grad()
     * captures cannot be answered for */
    if (*out && t->has_exec_info && e->capture) {
        bool leaf = true;
        for (uint32_t i = 0; i < node->n_next; i++)
            if (node->next[i].fn) leaf = false;
        if (leaf) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "A leaf node was passed to _will_engine_execute_node but we are "
                                                 "currently running autograd.grad(). This is currently not supported.");
            return -1;
        }
    }
    return 0;
}

/* ---- interception (capture.h) -------------------------------------------------------------------------- */

AgTaskInterceptor ag_set_task_interceptor(AgTaskInterceptor fn, void *ctx, void **prev_ctx) {
    AgTaskInterceptor prev = interceptor;
    if (prev_ctx) *prev_ctx = interceptor_ctx;
    interceptor = fn;
    interceptor_ctx = fn ? ctx : NULL;
    return prev;
}

int64_t ag_task_id(const AgTask *t) { return t->id; }
bool ag_task_keep_graph(const AgTask *t) { return t->keep_graph; }
bool ag_task_create_graph(const AgTask *t) { return t->create_graph; }
bool ag_task_has_exec_info(const AgTask *t) { return t->has_exec_info; }

bool ag_task_should_execute(const AgTask *t, const AgNode *n) {
    TaskNode *e = lookup(t, n);
    return e && (!t->has_exec_info || e->needed || e->capture);
}

int ag_task_n_captures(const AgTask *t) { return t->n_caps; }

void ag_task_capture(const AgTask *t, int i, const AgNode **fn, uint32_t *input_nr, int *out_idx) {
    *fn = t->caps[i].fn;
    *input_nr = t->caps[i].input_nr;
    *out_idx = t->caps[i].out_idx;
}

void ag_task_set_captured(AgTask *t, int out_idx, Tensor *g) {
    tensor_decref(t->captured[out_idx]);
    t->captured[out_idx] = g;
}

typedef struct Pending {
    AgArrival *v;
    int32_t n, cap;
    bool has_buf;             /* the engine would have allocated its input buffer */
} Pending;

static void pending_add(Pending *p, AgArrival a) {
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4;
        p->v = realloc(p->v, sizeof *p->v * (size_t)p->cap);
        EM_ASSERT(p->v, "out of memory scheduling a graph task");
    }
    p->v[p->n++] = a;
}

/* The ready-queue loop of execute() and the routing of evaluate(), on dependency counts alone:
 * which node pops when, and which outputs reach which inputs in which order. */
int ag_task_schedule(AgTask *t, AgSchedule *s) {
    memset(s, 0, sizeof *s);
    if (!t->root) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "the graph task has already been run");
        return -1;
    }
    int32_t *deps = malloc(sizeof *deps * (size_t)(t->n_nodes ? t->n_nodes : 1));
    Pending *pend = calloc((size_t)(t->n_nodes ? t->n_nodes : 1), sizeof *pend);
    EM_ASSERT(deps && pend, "out of memory scheduling a graph task");
    for (int i = 0; i < t->n_nodes; i++) deps[i] = t->nodes[i].deps;
    AgNode *root = t->root;
    bool multi = root->kind == AG_KIND_GRAPH_ROOT;
    if (multi) {
        s->root_grads = root->payload;
        s->n_roots = (int32_t)root->n_next;
        s->validate_roots = true;
    } else {
        uint32_t nr = 0;
        while (nr < root->n_out && !t->root_buf[nr]) nr++;
        s->root_grads = &t->root_buf[nr < root->n_out ? nr : 0];
        s->n_roots = 1;
        pending_add(&pend[lookup(t, root) - t->nodes], (AgArrival){-1, 0, nr});
    }
    Task h;   /* a scratch ready queue: the engine's own heap, so ties pop the same way */
    TaskSmall h_small;
    memset(&h, 0, sizeof h);
    h.small = &h_small;
    heap_push(&h, root, NULL);
    int cap_steps = 0, cap_arr = 0;
    while (h.heap_n > 0) {
        ReadyItem it = heap_pop(&h);
        AgNode *fn = it.node;
        TaskNode *info = lookup(t, fn);
        int32_t step = -1;
        if (!(multi && fn == root)) {
            Pending *p = &pend[info - t->nodes];
            if (s->n_steps == cap_steps) {
                cap_steps = cap_steps ? cap_steps * 2 : 16;
                s->steps = realloc(s->steps, sizeof *s->steps * (size_t)cap_steps);
                EM_ASSERT(s->steps, "out of memory scheduling a graph task");
            }
            while (s->n_arrivals + p->n > cap_arr) {
                cap_arr = cap_arr ? cap_arr * 2 : 32;
                s->arrivals = realloc(s->arrivals, sizeof *s->arrivals * (size_t)cap_arr);
                EM_ASSERT(s->arrivals, "out of memory scheduling a graph task");
            }
            step = s->n_steps++;
            AgStep *st = &s->steps[step];
            st->node = fn;
            st->needed = !t->has_exec_info || info->needed;
            st->capture = t->has_exec_info && info->capture;
            st->first_arrival = s->n_arrivals;
            st->n_arrivals = p->n;
            if (p->n) memcpy(s->arrivals + s->n_arrivals, p->v, sizeof *p->v * (size_t)p->n);
            s->n_arrivals += p->n;
            free(p->v);
            memset(p, 0, sizeof *p);
            if (!st->needed) {
                ag_node_decref(fn);
                continue;
            }
        }
        for (uint32_t i = 0; i < fn->n_next; i++) {
            const AgEdge *e = &fn->next[i];
            if (!e->fn) continue;
            TaskNode *nx = lookup(t, e->fn);
            if (!nx) continue;
            Pending *np = &pend[nx - t->nodes];
            bool ready = --deps[nx - t->nodes] == 0;
            if (!np->has_buf) {
                if (t->has_exec_info && !(nx->needed || nx->capture)) continue;
                np->has_buf = true;
            }
            pending_add(np, (AgArrival){step, i, e->input_nr});
            if (ready) {
                heap_push(&h, e->fn, NULL);
                np->has_buf = false;
            }
        }
        ag_node_decref(fn);
    }
    for (int i = 0; i < t->n_nodes; i++) free(pend[i].v);
    free(pend);
    free(deps);
    task_release(h.heap, h_small.heap);
    return 0;
}

void ag_schedule_fini(AgSchedule *s) {
    free(s->steps);
    free(s->arrivals);
    memset(s, 0, sizeof *s);
}

/* Runs one graph task. roots/grads: n_roots edges and their gradients (grads stolen).
 * outs: exec-info output edges (n_outs; accumulate = backward(inputs=) vs grad()). */
static int execute(int n_roots, AgEdge *roots, Tensor **grads, bool keep_graph, bool create_graph, bool accumulate,
                   const AgEdge *outs, int n_outs, Tensor **captured) {
    Task t;
    TaskSmall small;   /* not cleared: map_grow clears the keys it takes */
    memset(&t, 0, sizeof t);
    t.small = &small;
    t.id = next_task_id++;
    t.keep_graph = keep_graph;
    t.create_graph = create_graph;
    t.parent = current_task;
    t.captured = captured;
    int rc = -1;
    AgNode *root;
    Tensor **root_buf;
    if (n_roots == 1) {
        root = roots[0].fn;
        ag_node_incref(root);
        root_buf = grad_slots_new(root->n_out);
        EM_ASSERT(root_buf, "out of memory");
        root_buf[roots[0].input_nr] = grads[0];
    } else {
        root = ag__node_alloc(AG_KIND_GRAPH_ROOT, "torch::autograd::GraphRoot", (uint32_t)n_roots, 0, 0, 0, NULL);
        EM_ASSERT(root, "out of memory");
        Tensor **g = malloc(sizeof(Tensor *) * (size_t)n_roots);
        EM_ASSERT(g, "out of memory");
        for (int i = 0; i < n_roots; i++) {
            root->next[i] = roots[i];
            ag_node_incref(roots[i].fn);
            g[i] = grads[i];
        }
        root->payload = g;
        root_buf = grad_slots_new(1);
        EM_ASSERT(root_buf, "out of memory");
    }
    compute_dependencies(&t, root);
    if (outs) {
        t.has_exec_info = true;
        if (!accumulate) {
            t.caps = malloc(sizeof *t.caps * (size_t)(n_outs ? n_outs : 1));
            EM_ASSERT(t.caps, "out of memory");
            for (int i = 0; i < n_outs; i++)
                if (outs[i].fn) t.caps[t.n_caps++] = (Capture){outs[i].fn, outs[i].input_nr, i};
        }
        init_to_execute(&t, root, outs, n_outs, accumulate);
    }
    bool prev_grad = ag_set_grad_enabled(create_graph);
    current_task = &t;
    t.root = root;
    t.root_buf = root_buf;
    /* compiled autograd may run the task its own way (capture.h) */
    int handled = 0;
    if (interceptor) {
        tensor_error_clear();
        handled = interceptor(interceptor_ctx, &t);
        if (handled < 0 && tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
    }
    if (handled) {
        free_grads(root_buf, n_roots == 1 ? (root->n_out ? root->n_out : 1) : 1);
        t.root_buf = NULL;
        if (handled < 0) goto fail;
    } else {
        heap_push(&t, root, root_buf);
        t.root_buf = NULL;
    }
    while (t.heap_n > 0) {
        ReadyItem it = heap_pop(&t);
        int er = evaluate(&t, it.node, it.buf);
        ag_node_decref(it.node);
        if (er < 0) goto fail;
    }
    /* final callbacks, FIFO; they may queue more */
    for (int i = 0; i < t.n_cbs; i++) {
        AgCallback cb = t.cbs[i];
        t.cbs[i].release = NULL;
        tensor_error_clear();
        int cr = cb.fn(cb.ctx);
        if (cb.release) cb.release(cb.ctx);
        if (cr < 0) {
            hook_failed();
            for (int j = i + 1; j < t.n_cbs; j++) {
                if (t.cbs[j].release) t.cbs[j].release(t.cbs[j].ctx);
                t.cbs[j].release = NULL;
            }
            goto fail;
        }
    }
    rc = 0;
fail:
    current_task = t.parent;
    ag_set_grad_enabled(prev_grad);
    task_free(&t);
    ag_node_decref(root);
    return rc;
}

/* ---- backward / grad ----------------------------------------------------------------------------------- */

static void format_size(char *buf, size_t cap, const Tensor *t) {
    char s[256];
    tensor__format_shape(s, sizeof s, t->ndim, t->shape);
    snprintf(buf, cap, "torch.Size(%s)", s);
}

/* root edges and gradients for outputs (the _make_grads + gradient_edge part of run_backward) */
static int make_roots(int n, Tensor *const *tensors, Tensor *const *grad_tensors, AgEdge *edges, Tensor **grads) {
    for (int i = 0; i < n; i++) {
        edges[i].fn = NULL;
        grads[i] = NULL;
    }
    for (int i = 0; i < n; i++) {
        Tensor *t = tensors[i];
        Tensor *g = grad_tensors ? grad_tensors[i] : NULL;
        if (g) {
            if (g->ndim != t->ndim || memcmp(g->shape, t->shape, sizeof(int64_t) * t->ndim) != 0) {
                char b1[300], b2[300];
                format_size(b1, sizeof b1, g);
                format_size(b2, sizeof b2, t);
                tensor_error_set(TENSOR_ERR_RUNTIME, "Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] has a shape of %s.",
                                 i, b1, i, b2);
                goto fail;
            }
            tensor_incref(g);
            grads[i] = g;
        } else if (ag__requires_grad(t)) {
            if (t->numel != 1) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "grad can be implicitly created only for scalar outputs");
                goto fail;
            }
            grads[i] = tensor_ones_like(t);
            if (!grads[i]) goto fail;
        }
        if (!ag__requires_grad(t)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "element %d of tensors does not require grad and does not have a grad_fn", i);
            goto fail;
        }
        if (ag__gradient_edge(t, &edges[i]) < 0) goto fail;
        if (!edges[i].fn) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "element %d of tensors does not require grad and does not have a grad_fn", i);
            goto fail;
        }
    }
    return 0;
fail:
    for (int i = 0; i < n; i++) {
        ag_node_decref(edges[i].fn);
        edges[i].fn = NULL;
        tensor_decref(grads[i]);
        grads[i] = NULL;
    }
    return -1;
}

/* output edges for `inputs`: grad_fn (non-leaf) or the existing accumulator (leaf) */
static int make_outs(int n, Tensor *const *inputs, bool accumulate, AgEdge *outs) {
    for (int i = 0; i < n; i++) outs[i].fn = NULL;
    for (int i = 0; i < n; i++) {
        Tensor *t = inputs[i];
        if (!ag__requires_grad(t)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "One of the differentiated Tensors does not require grad");
            return -1;
        }
        AgNode *fn = ag__grad_fn(t);
        if (fn) {
            if (accumulate && ag_retain_grad(t) < 0) return -1;
            ag_node_incref(fn);
            outs[i] = (AgEdge){fn, t->output_nr};
        } else {
            AgNode *acc = ag__try_grad_accumulator(t);
            if (acc) ag_node_incref(acc);
            outs[i] = (AgEdge){acc, 0};
        }
    }
    return 0;
}

static void drop_edges(AgEdge *e, int n) {
    for (int i = 0; i < n; i++) ag_node_decref(e[i].fn);
}

int ag_backward(int n, Tensor *const *tensors, Tensor *const *grad_tensors, bool retain_graph, bool create_graph, int n_inputs,
                Tensor *const *inputs) {
    if (inputs && n_inputs == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
        return -1;
    }
    /* one to four roots (nearly every call) stay in this frame (make_roots clears them) */
    AgEdge edges_local[4];
    Tensor *grads_local[4];
    bool local = n <= 4;
    AgEdge *edges = local ? edges_local : calloc((size_t)(n ? n : 1), sizeof *edges);
    Tensor **grads = local ? grads_local : calloc((size_t)(n ? n : 1), sizeof *grads);
    AgEdge *outs = inputs ? calloc((size_t)n_inputs, sizeof *outs) : NULL;
    int rc = -1;
    if (!edges || !grads || (inputs && !outs)) {
        tensor__oom();
        goto done;
    }
    if (make_roots(n, tensors, grad_tensors, edges, grads) < 0) goto done;
    if (inputs && make_outs(n_inputs, inputs, true, outs) < 0) {
        drop_edges(edges, n);
        for (int i = 0; i < n; i++) tensor_decref(grads[i]);
        goto done;
    }
    rc = execute(n, edges, grads, retain_graph, create_graph, true, outs, inputs ? n_inputs : 0, NULL);
    drop_edges(edges, n);
done:
    if (outs) drop_edges(outs, n_inputs);
    if (!local) {
        free(edges);
        free(grads);
    }
    free(outs);
    return rc;
}

int ag_grad(int n, Tensor *const *outputs, Tensor *const *grad_outputs, int n_inputs, Tensor *const *inputs, bool retain_graph,
            bool create_graph, bool allow_unused, Tensor **grads_out) {
    for (int i = 0; i < n_inputs; i++) grads_out[i] = NULL;
    AgEdge *edges = calloc((size_t)(n ? n : 1), sizeof *edges);
    Tensor **grads = calloc((size_t)(n ? n : 1), sizeof *grads);
    AgEdge *outs = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof *outs);
    int rc = -1;
    if (!edges || !grads || !outs) {
        tensor__oom();
        goto done;
    }
    if (make_roots(n, outputs, grad_outputs, edges, grads) < 0) goto done;
    if (make_outs(n_inputs, inputs, false, outs) < 0) {
        drop_edges(edges, n);
        for (int i = 0; i < n; i++) tensor_decref(grads[i]);
        goto done;
    }
    rc = execute(n, edges, grads, retain_graph, create_graph, false, outs, n_inputs, grads_out);
    drop_edges(edges, n);
    if (rc == 0 && !allow_unused) {
        for (int i = 0; i < n_inputs; i++) {
            if (!grads_out[i]) {
                tensor_error_set(TENSOR_ERR_RUNTIME,
                                 "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
                rc = -1;
                break;
            }
        }
    }
    if (rc < 0)
        for (int i = 0; i < n_inputs; i++) {
            tensor_decref(grads_out[i]);
            grads_out[i] = NULL;
        }
done:
    if (outs) drop_edges(outs, n_inputs);
    free(edges);
    free(grads);
    free(outs);
    return rc;
}
