/* hooks.c — hook lists and handles: tensor hooks, post-accumulate-grad hooks, node pre/post
 * hooks and retains_grad bookkeeping.
 *
 * A hook is an entry in a refcounted list; handles are ids looked up in a registry, so a
 * handle never keeps a hook alive. Calls go through a pinned snapshot of the list (as
 * PyTorch iterates a copy of the hooks dict), so a hook may remove itself or others while
 * running; an entry's ctx is released when it is both removed (or its list dies) and unpinned. */
#include "src/autograd/autograd.h"

/* ---- registry: id -> entry (open addressing, backward-shift deletion) ------------------------------ */

static AgHookEntry **reg_slots;
static size_t reg_cap, reg_count;
static uint64_t next_hook_id = 1;

static size_t slot_of(uint64_t id, size_t cap) { return (size_t)(id * 0x9e3779b97f4a7c15ULL) & (cap - 1); }

static void reg_insert(AgHookEntry *e) {
    if ((reg_count + 1) * 2 > reg_cap) {
        size_t cap = reg_cap ? reg_cap * 2 : 64;
        AgHookEntry **s = calloc(cap, sizeof *s);
        EM_ASSERT(s, "out of memory growing the hook registry");
        for (size_t i = 0; i < reg_cap; i++) {
            AgHookEntry *x = reg_slots[i];
            if (!x) continue;
            size_t j = slot_of(x->id, cap);
            while (s[j]) j = (j + 1) & (cap - 1);
            s[j] = x;
        }
        free(reg_slots);
        reg_slots = s;
        reg_cap = cap;
    }
    size_t j = slot_of(e->id, reg_cap);
    while (reg_slots[j]) j = (j + 1) & (reg_cap - 1);
    reg_slots[j] = e;
    reg_count++;
}

static AgHookEntry *reg_find(uint64_t id, size_t *pos) {
    if (!reg_cap) return NULL;
    size_t j = slot_of(id, reg_cap);
    while (reg_slots[j]) {
        if (reg_slots[j]->id == id) {
            if (pos) *pos = j;
            return reg_slots[j];
        }
        j = (j + 1) & (reg_cap - 1);
    }
    return NULL;
}

static void reg_delete(uint64_t id) {
    size_t i;
    if (!reg_find(id, &i)) return;
    reg_slots[i] = NULL;
    reg_count--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & (reg_cap - 1);
        AgHookEntry *x = reg_slots[j];
        if (!x) break;
        size_t k = slot_of(x->id, reg_cap);
        /* move x into the hole if its home slot is not in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            reg_slots[i] = x;
            reg_slots[j] = NULL;
            i = j;
        }
    }
    if (reg_count == 0) {
        free(reg_slots);
        reg_slots = NULL;
        reg_cap = 0;
    }
}

/* ---- entries and lists -------------------------------------------------------------------------------- */

static void entry_decref(AgHookEntry *e) {
    if (--e->refcount > 0) return;
    if (e->release) e->release(e->ctx);
    free(e);
}

static void entry_unlink(AgHookEntry *e) {
    AgHookList *l = e->list;
    if (!l) return;
    if (e->prev) e->prev->next = e->next; else l->head = e->next;
    if (e->next) e->next->prev = e->prev; else l->tail = e->prev;
    l->n--;
    e->list = NULL;
    e->prev = e->next = NULL;
    reg_delete(e->id);
    entry_decref(e);
}

AgHookList *ag__hook_list_new(uint32_t output_nr) {
    AgHookList *l = calloc(1, sizeof *l);
    EM_ASSERT(l, "out of memory allocating a hook list");
    l->refcount = 1;
    l->output_nr = output_nr;
    return l;
}

void ag__hook_list_decref(AgHookList *l) {
    if (!l || --l->refcount > 0) return;
    while (l->head) entry_unlink(l->head);
    free(l);
}

AgHookHandle ag__hook_add(AgHookList *l, AgHookKind kind, void (*fn)(void), void *ctx, void (*release)(void *)) {
    AgHookEntry *e = calloc(1, sizeof *e);
    EM_ASSERT(e, "out of memory allocating a hook");
    e->id = next_hook_id++;
    e->refcount = 1;
    e->kind = kind;
    e->fn = fn;
    e->ctx = ctx;
    e->release = release;
    e->list = l;
    e->prev = l->tail;
    if (l->tail) l->tail->next = e; else l->head = e;
    l->tail = e;
    l->n++;
    reg_insert(e);
    return e->id;
}

bool ag_hook_remove(AgHookHandle h) {
    AgHookEntry *e = reg_find(h, NULL);
    if (!e) return false;
    entry_unlink(e);
    return true;
}

int ag__hooks_snapshot(AgHookList *l, AgHookEntry ***out, AgHookEntry **stack_buf, int stack_cap) {
    if (!l || l->n == 0) {
        *out = stack_buf;
        return 0;
    }
    AgHookEntry **v = l->n <= stack_cap ? stack_buf : malloc(sizeof *v * (size_t)l->n);
    EM_ASSERT(v, "out of memory snapshotting hooks");
    int n = 0;
    for (AgHookEntry *e = l->head; e; e = e->next) {
        e->refcount++;
        v[n++] = e;
    }
    *out = v;
    return n;
}

void ag__hooks_unpin(AgHookEntry **v, int n, AgHookEntry **stack_buf) {
    for (int i = 0; i < n; i++) entry_decref(v[i]);
    if (v != stack_buf) free(v);
}

/* ---- registration API ------------------------------------------------------------------------------- */

int ag_tensor_register_hook(Tensor *t, AgTensorHook hook, AgHookHandle *handle) {
    if (!ag__requires_grad(t)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
        return -1;
    }
    AgMeta *m = ag__meta(t);
    AgNode *fn = ag__grad_fn(t);
    if (!m->hooks) {
        m->hooks = ag__hook_list_new(t->output_nr);
        if (fn) {
            /* the node sees this tensor's gradient through the same list */
            AgNodeHooks *h = ag__node_hooks(fn);
            if (h->n_tensor == h->cap_tensor) {
                int cap = h->cap_tensor ? h->cap_tensor * 2 : 2;
                AgTensorHookSlot *s = realloc(h->tensor, sizeof *s * (size_t)cap);
                if (!s) return tensor__oom();
                h->tensor = s;
                h->cap_tensor = cap;
            }
            m->hooks->refcount++;
            h->tensor[h->n_tensor++].list = m->hooks;
        }
    }
    AgHookHandle id = ag__hook_add(m->hooks, AG_HOOK_TENSOR, (void (*)(void))hook.fn, hook.ctx, hook.release);
    if (handle) *handle = id;
    return 0;
}

int ag_tensor_register_post_accumulate_grad_hook(Tensor *t, AgPostAccumulateHook hook, AgHookHandle *handle) {
    if (!ag__requires_grad(t)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
        return -1;
    }
    if (t->grad_fn) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "post accumulate grad hooks cannot be registered on non-leaf tensors");
        return -1;
    }
    AgMeta *m = ag__meta(t);
    if (!m->post_acc) m->post_acc = ag__hook_list_new(0);
    AgHookHandle id = ag__hook_add(m->post_acc, AG_HOOK_POST_ACC, (void (*)(void))hook.fn, hook.ctx, hook.release);
    if (handle) *handle = id;
    return 0;
}

int ag_node_register_prehook(AgNode *node, AgNodePreHook hook, AgHookHandle *handle) {
    AgNodeHooks *h = ag__node_hooks(node);
    if (!h->pre) h->pre = ag__hook_list_new(0);
    AgHookHandle id = ag__hook_add(h->pre, AG_HOOK_NODE_PRE, (void (*)(void))hook.fn, hook.ctx, hook.release);
    if (handle) *handle = id;
    return 0;
}

int ag_node_register_hook(AgNode *node, AgNodePostHook hook, AgHookHandle *handle) {
    AgNodeHooks *h = ag__node_hooks(node);
    if (!h->post) h->post = ag__hook_list_new(0);
    AgHookHandle id = ag__hook_add(h->post, AG_HOOK_NODE_POST, (void (*)(void))hook.fn, hook.ctx, hook.release);
    if (handle) *handle = id;
    return 0;
}

/* ---- retains_grad and rebasing ------------------------------------------------------------------------ */

void ag__retain_remove(AgNode *node, Tensor *t) {
    AgNodeHooks *h = node->hooks;
    if (!h) return;
    for (int i = 0; i < h->n_retains; i++) {
        if (h->retains[i].tensor == t) {
            h->retains[i] = h->retains[--h->n_retains];
            return;
        }
    }
}

/* PyTorch's update_tensor_hooks_on_new_gradfn: hooks registered before the in-place op stay
 * with the old node (they see the old value's gradient); new ones go to a fresh list; the
 * retains_grad hook moves to the new node. */
void ag__update_hooks_on_new_grad_fn(Tensor *t, AgNode *old_fn, AgNode *new_fn) {
    if (t->ag && t->ag->hooks && old_fn) {
        ag__hook_list_decref(t->ag->hooks);
        t->ag->hooks = NULL;
    }
    if ((t->flags & TENSOR_F_RETAINS_GRAD) && old_fn) {
        ag__retain_remove(old_fn, t);
        AgNodeHooks *h = ag__node_hooks(new_fn);
        if (h->n_retains == h->cap_retains) {
            int cap = h->cap_retains ? h->cap_retains * 2 : 2;
            AgRetainSlot *r = realloc(h->retains, sizeof *r * (size_t)cap);
            EM_ASSERT(r, "out of memory moving retains_grad");
            h->retains = r;
            h->cap_retains = cap;
        }
        h->retains[h->n_retains++] = (AgRetainSlot){t->output_nr, t};
    }
}
