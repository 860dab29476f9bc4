/* ca_collect.c — compiled autograd, step 1: walks the engine's schedule of one graph task and
 * collects what a captured graph is built from and run with (ca.h): the first live step, per
 * step the defined gradients, the actions in the engine's order, the per-run items (nodes), the
 * graph inputs (root gradients, unpacked saved tensors), and the key record — every structural
 * fact the graph built from the step depends on, and nothing that changes between training
 * steps with the same structure (values, tensor and hook identities). */
#include <stdlib.h>
#include <string.h>

#include "src/runtime/ca.h"

/* ---- the key ---------------------------------------------------------------------------------------- */

static void put(CaTrace *tr, const void *p, size_t n) {
    if (tr->key_len + n > tr->key_cap) {
        size_t cap = tr->key_cap ? tr->key_cap * 2 : 1024;
        while (cap < tr->key_len + n) cap *= 2;
        tr->key = realloc(tr->key, cap);
        EM_ASSERT(tr->key, "out of memory building a compiled autograd key");
        tr->key_cap = cap;
    }
    memcpy(tr->key + tr->key_len, p, n);
    tr->key_len += n;
}

static void put_u8(CaTrace *tr, uint8_t v) { put(tr, &v, 1); }
static void put_u32(CaTrace *tr, uint32_t v) { put(tr, &v, 4); }
static void put_i64(CaTrace *tr, int64_t v) { put(tr, &v, 8); }
static void put_f64(CaTrace *tr, double v) { put(tr, &v, 8); }

static void put_str(CaTrace *tr, const char *s) {
    size_t n = s ? strlen(s) : 0;
    put_u32(tr, (uint32_t)n);
    put(tr, s, n);
}

/* dtype, shape and strides: what a plan's placeholders check (not the offset or values) */
static void put_meta(CaTrace *tr, const TensorMeta *m) {
    put_u8(tr, (uint8_t)m->dtype);
    put_u8(tr, (uint8_t)m->ndim);
    put_u8(tr, m->wrapped_number);
    for (int d = 0; d < m->ndim; d++) {
        put_i64(tr, m->shape[d]);
        put_i64(tr, m->shape[d] <= 1 ? 0 : m->strides[d]);
    }
}

static void put_tensor(CaTrace *tr, const Tensor *t) {
    TensorMeta m;
    tensor_meta_of(t, &m);
    put_meta(tr, &m);
}

static void put_shape(CaTrace *tr, const AgShape *s) {
    put_u8(tr, s->dtype);
    put_u8(tr, s->ndim);
    for (int d = 0; d < s->ndim && d < TENSOR_MAX_DIMS; d++) put_i64(tr, s->shape[d]);
}

static void put_scalar(CaTrace *tr, TensorScalar s) {
    put_f64(tr, s.f);
    put_i64(tr, s.i);
    put_u8(tr, (uint8_t)s.kind);
}

/* field by field: the struct has padding */
static void put_args(CaTrace *tr, const TensorOpArgs *a) {
    put_scalar(tr, a->scalar);
    put_scalar(tr, a->scalar2);
    put_scalar(tr, a->alpha);
    put_scalar(tr, a->beta);
    put_u32(tr, (uint32_t)(a->n_ints > 0 ? a->n_ints : 0));
    for (int i = 0; i < a->n_ints; i++) put_i64(tr, a->ints[i]);
    put_u32(tr, (uint32_t)(a->n_ints2 > 0 ? a->n_ints2 : 0));
    for (int i = 0; i < a->n_ints2; i++) put_i64(tr, a->ints2[i]);
    int64_t ints[] = {a->dim, a->dim2, a->start, a->end, a->step, a->ignore_index, a->padding_idx, a->correction};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) put_i64(tr, ints[i]);
    put_f64(tr, a->eps);
    put_f64(tr, a->p);
    uint8_t flags[] = {(uint8_t)a->dtype, (uint8_t)a->reduction, a->keepdim, a->has_dim, a->has_min,
                       a->has_max,         a->approximate,         a->accumulate, a->train};
    put(tr, flags, sizeof flags);
}

static void end_rec(CaTrace *tr) {
    tr->rec_end = realloc(tr->rec_end, sizeof *tr->rec_end * (size_t)(tr->n_recs + 1));
    EM_ASSERT(tr->rec_end, "out of memory building a compiled autograd key");
    tr->rec_end[tr->n_recs++] = tr->key_len;
}

int ca_rec_len(const CaTrace *tr, int r, const uint8_t **bytes) {
    size_t start = r ? tr->rec_end[r - 1] : 0;
    *bytes = tr->key + start;
    return (int)(tr->rec_end[r] - start);
}

/* ---- items, actions, inputs -------------------------------------------------------------------------- */

static int32_t add_item(CaTrace *tr, AgNode *fn) {
    if (tr->n_items == tr->cap_items) {
        tr->cap_items = tr->cap_items ? tr->cap_items * 2 : 16;
        tr->items = realloc(tr->items, sizeof *tr->items * (size_t)tr->cap_items);
        EM_ASSERT(tr->items, "out of memory collecting a backward");
    }
    ag_node_incref(fn);
    tr->items[tr->n_items] = (CaItem){.node = fn};
    return tr->n_items++;
}

static void add_act(CaTrace *tr, CaActKind kind, int how, int32_t slot, int32_t item, int32_t out) {
    if (tr->n_acts == tr->cap_acts) {
        tr->cap_acts = tr->cap_acts ? tr->cap_acts * 2 : 32;
        tr->acts = realloc(tr->acts, sizeof *tr->acts * (size_t)tr->cap_acts);
        EM_ASSERT(tr->acts, "out of memory collecting a backward");
    }
    tr->acts[tr->n_acts++] = (CaAction){(uint8_t)kind, (uint8_t)how, slot, item, out};
}

/* steals t */
static int32_t add_input(CaTrace *tr, Tensor *t) {
    if (tr->n_inputs == tr->cap_inputs) {
        tr->cap_inputs = tr->cap_inputs ? tr->cap_inputs * 2 : 16;
        tr->inputs = realloc(tr->inputs, sizeof *tr->inputs * (size_t)tr->cap_inputs);
        EM_ASSERT(tr->inputs, "out of memory collecting a backward");
    }
    tr->inputs[tr->n_inputs] = t;
    return tr->n_inputs++;
}

/* Hooks, retains_grad, or a node whose apply runs script code (a custom Function's backward, a
 * compiled graph's backward calling hooks): from the first such step on, user code may register
 * hooks or modify saved tensors, so the steps are *live* (ca.h). */
static bool has_hooks(AgHookList *l) { return l && l->n > 0; }

static bool runs_user_code(const AgNode *fn) {
    if (fn->kind == AG_KIND_ACCUMULATE) {
        const Tensor *var = fn->payload;
        if (var->ag && (has_hooks(var->ag->hooks) || has_hooks(var->ag->post_acc))) return true;
    } else if (fn->kind != AG_KIND_OP && fn->kind != AG_KIND_IDENTITY && fn->kind != AG_KIND_COPY_SLICES) {
        return true;
    }
    const AgNodeHooks *h = fn->hooks;
    if (!h) return false;
    if (has_hooks(h->pre) || has_hooks(h->post) || h->n_retains > 0) return true;
    for (int i = 0; i < h->n_tensor; i++)
        if (has_hooks(h->tensor[i].list)) return true;
    return false;
}

/* ---- the apply ---------------------------------------------------------------------------------------- */

static bool input_maps_to_edge(const AgNode *fn, uint32_t e) {
    for (uint32_t i = 0; i < fn->n_in; i++)
        if (ag__input_edge(fn, (int)i) == (int)e) return true;
    return false;
}

bool ca_dropout_mask_slot(const AgNode *fn, int slot) {
    return fn->kind == AG_KIND_OP && fn->op == TENSOR_OP_DROPOUT && fn->args.train && fn->args.p > 0 && slot == 0;
}

/* Could the runtime's symbolic rule stand in for this node's eager rule?  (ca_build has the last
 * word: rt_diff may still refuse, then the node is called opaquely.) */
static bool symbolic_candidate(const AgNode *fn) {
    if (fn->kind != AG_KIND_OP || fn->op >= TENSOR_OP_COUNT) return false;
    TensorOp op = (TensorOp)fn->op;
    if ((tensor_op_flags(op) & TENSOR_OPF_INPLACE) || !rt_op_has_symbolic_rule(op)) return false;
    if (fn->n_in > 32 || fn->n_out > 64) return false;
    for (uint32_t k = 0; k < fn->n_saved; k++)
        if (fn->saved[k].defined && fn->saved[k].hooks) return false;   /* eager unpacks those once, at apply */
    return true;
}

/* The op node's saved tensors, unpacked now (for the graph's inputs): false when one cannot be
 * (freed, or modified in place) — then the node runs its own apply, which raises eager's error
 * when the backward reaches it.  saved[k]: a reference or NULL (slot not usable). */
static bool unpack_saved(const AgNode *fn, Tensor **saved) {
    for (uint32_t k = 0; k < fn->n_saved; k++) {
        const AgSaved *s = &fn->saved[k];
        saved[k] = NULL;
        bool usable = s->defined && (ag_saved_src_inputs(fn, (int)k) || ag_saved_src_output(fn, (int)k) >= 0 ||
                                     ca_dropout_mask_slot(fn, (int)k));
        if (usable && ag__unpack((AgNode *)fn, (AgSaved *)s, false, &saved[k]) < 0) {
            tensor_error_clear();
            for (uint32_t j = 0; j < k; j++) tensor_decref(saved[j]);
            return false;
        }
    }
    return true;
}

/* The op node's forward facts the per-node forward graph is built from, and its saved tensors
 * (steals saved[], from unpack_saved). */
static void collect_symbolic(CaTrace *tr, CaStep *st, Tensor **saved) {
    AgNode *fn = st->node;
    put_args(tr, &fn->args);
    put_u32(tr, fn->n_in);
    put_u32(tr, fn->absent);
    put_u8(tr, fn->in_meta != NULL);
    for (uint32_t i = 0; fn->in_meta && i < fn->n_in; i++) put_meta(tr, &fn->in_meta[i]);
    put_u32(tr, fn->n_saved);
    st->saved_input = malloc(sizeof(int32_t) * (fn->n_saved ? fn->n_saved : 1));
    EM_ASSERT(st->saved_input, "out of memory collecting a backward");
    for (uint32_t k = 0; k < fn->n_saved; k++) {
        st->saved_input[k] = -1;
        put_u8(tr, saved[k] != NULL);
        if (!saved[k]) continue;
        put_u32(tr, ag_saved_src_inputs(fn, (int)k));
        put_u32(tr, (uint32_t)ag_saved_src_output(fn, (int)k));
        put_tensor(tr, saved[k]);
        st->saved_input[k] = add_input(tr, saved[k]);
    }
}

static void collect_apply(CaTrace *tr, CaStep *st) {
    AgNode *fn = st->node;
    const AgTask *t = tr->task;
    bool any = false;
    for (uint32_t i = 0; i < fn->n_out; i++) any |= st->in_def[i];
    switch ((AgNodeKind)fn->kind) {
    case AG_KIND_ACCUMULATE: {
        if (!fn->n_out || !st->in_def[0]) return;   /* ag__accumulate(NULL): no accumulation, no hooks */
        add_act(tr, CA_ACT_APPLY, CA_APPLY_ACCUMULATE, 0, add_item(tr, fn), -1);
        return;
    }
    case AG_KIND_OP: {
        if (!any) {
            add_act(tr, CA_ACT_APPLY, CA_APPLY_NONE, 0, -1, -1);
            return;
        }
        for (uint32_t e = 0; e < fn->n_next; e++) {
            AgNode *nx = fn->next[e].fn;
            st->out_def[e] = nx && ag_task_should_execute(t, nx) && input_maps_to_edge(fn, e);
        }
        Tensor *stack_saved[8], **saved = fn->n_saved <= 8 ? stack_saved : malloc(sizeof(Tensor *) * fn->n_saved);
        EM_ASSERT(saved, "out of memory collecting a backward");
        bool sym = symbolic_candidate(fn) && unpack_saved(fn, saved);
        add_act(tr, CA_ACT_APPLY, sym ? CA_APPLY_SYMBOLIC : CA_APPLY_OPAQUE, 0, add_item(tr, fn), -1);
        put_u8(tr, sym);
        if (sym) collect_symbolic(tr, st, saved);
        if (saved != stack_saved) free(saved);
        return;
    }
    case AG_KIND_IDENTITY:
        for (uint32_t e = 0; e < fn->n_next && e < fn->n_out; e++) st->out_def[e] = st->in_def[e];
        add_act(tr, CA_ACT_APPLY, CA_APPLY_IDENTITY, 0, -1, -1);
        return;
    case AG_KIND_COPY_SLICES:
        /* the base's gradient whenever one arrived; the other inputs' through the in-place op
         * (what goes nowhere is only seen by post-hooks, which the opaque apply runs itself) */
        for (uint32_t e = 0; e < fn->n_next; e++) {
            AgNode *nx = fn->next[e].fn;
            st->out_def[e] = st->in_def[0] && nx && (e == 0 || ag_task_should_execute(t, nx));
        }
        break;
    case AG_KIND_FUNCTION:
        /* a custom backward runs even without gradients (materialised as zeros) */
        for (uint32_t e = 0; e < fn->n_next; e++) st->out_def[e] = fn->next[e].fn != NULL;
        break;
    default: break;
    }
    add_act(tr, CA_ACT_APPLY, CA_APPLY_OPAQUE, 0, add_item(tr, fn), -1);
}

/* ---- steps -------------------------------------------------------------------------------------------- */

static void collect_step(CaTrace *tr, int s) {
    const AgSchedule *S = &tr->sched;
    const AgStep *as = &S->steps[s];
    CaStep *st = &tr->steps[s];
    AgNode *fn = as->node;
    const AgTask *t = tr->task;
    st->node = fn;
    st->needed = as->needed;
    st->first_arrival = as->first_arrival;
    st->n_arrivals = as->n_arrivals;
    st->in_def = calloc(fn->n_out ? fn->n_out : 1, 1);
    st->out_def = calloc(fn->n_next ? fn->n_next : 1, 1);
    EM_ASSERT(st->in_def && st->out_def, "out of memory collecting a backward");

    put_u8(tr, fn->kind);
    put_u32(tr, fn->op);
    put_str(tr, fn->name);
    put_u32(tr, fn->n_out);
    put_u32(tr, fn->n_next);
    put_u8(tr, (uint8_t)(as->needed | (as->capture << 1)));
    put_u32(tr, (uint32_t)as->n_arrivals);
    for (int i = 0; i < as->n_arrivals; i++) {
        const AgArrival *a = &S->arrivals[as->first_arrival + i];
        put_u32(tr, (uint32_t)a->step);
        put_u32(tr, a->edge);
        put_u32(tr, a->slot);
        bool def = a->step < 0 || tr->steps[a->step].out_def[a->edge];
        if (a->slot < fn->n_out && def) st->in_def[a->slot] = 1;
    }
    for (uint32_t i = 0; i < fn->n_out; i++) put_shape(tr, &fn->out_meta[i]);
    for (uint32_t e = 0; e < fn->n_next; e++) {
        const AgEdge *ed = &fn->next[e];
        put_u8(tr, ed->fn != NULL);
        if (!ed->fn) continue;
        put_u32(tr, ed->input_nr);
        put_u8(tr, ag_task_should_execute(t, ed->fn));
        if (ed->input_nr < ed->fn->n_out) put_shape(tr, &ed->fn->out_meta[ed->input_nr]);
    }

    st->first_act = tr->n_acts;
    st->live = s >= tr->first_live;
    put_u8(tr, st->live);
    /* the engine's order: tensor pre-hooks of a skipped node, captures, then for a needed node
     * its tensor pre-hooks and pre-hooks, the apply, its post-hooks (live steps only: before the
     * first live step no hook exists and no user code ran, so none can appear) */
    if (!as->needed && st->live) add_act(tr, CA_ACT_TENSOR_HOOKS, 0, 0, add_item(tr, fn), -1);
    for (int i = 0; as->capture && i < tr->n_captures; i++) {
        const AgNode *cfn;
        uint32_t nr;
        int out;
        ag_task_capture(t, i, &cfn, &nr, &out);
        if (cfn == fn) add_act(tr, CA_ACT_CAPTURE, 0, (int32_t)nr, -1, out);
    }
    if (as->needed) {
        if (st->live) add_act(tr, CA_ACT_PRE_HOOKS, 0, 0, add_item(tr, fn), -1);
        collect_apply(tr, st);
        if (st->live) add_act(tr, CA_ACT_POST_HOOKS, 0, 0, add_item(tr, fn), -1);
    }
    st->n_act = tr->n_acts - st->first_act;
    /* the actions say which hooks exist and what the apply is */
    for (int i = 0; i < st->n_act; i++) {
        const CaAction *a = &tr->acts[st->first_act + i];
        put_u8(tr, a->kind);
        put_u8(tr, a->how);
        put_u32(tr, (uint32_t)a->slot);
        put_u32(tr, (uint32_t)a->out);
    }
    for (uint32_t e = 0; e < fn->n_next; e++) put_u8(tr, st->out_def[e]);
    end_rec(tr);
}

int ca_collect(AgTask *t, CaTrace *tr) {
    memset(tr, 0, sizeof *tr);
    tr->task = t;
    if (ag_task_schedule(t, &tr->sched) < 0) return -1;
    const AgSchedule *S = &tr->sched;
    tr->n_captures = ag_task_n_captures(t);
    put_u8(tr, 1);   /* key format */
    put_u32(tr, (uint32_t)S->n_roots);
    put_u8(tr, S->validate_roots);
    put_u32(tr, (uint32_t)S->n_steps);
    put_u32(tr, (uint32_t)tr->n_captures);
    for (int i = 0; i < S->n_roots; i++) {
        put_tensor(tr, S->root_grads[i]);
        tensor_incref(S->root_grads[i]);
        add_input(tr, S->root_grads[i]);
    }
    end_rec(tr);
    tr->steps = calloc((size_t)(S->n_steps ? S->n_steps : 1), sizeof *tr->steps);
    EM_ASSERT(tr->steps, "out of memory collecting a backward");
    tr->n_steps = S->n_steps;
    tr->first_live = S->n_steps;
    for (int s = 0; s < S->n_steps && tr->first_live == S->n_steps; s++)
        if (runs_user_code(S->steps[s].node)) tr->first_live = s;
    for (int s = 0; s < S->n_steps; s++) collect_step(tr, s);
    return 0;
}

void ca_trace_fini(CaTrace *tr) {
    for (int i = 0; i < tr->n_items; i++) ag_node_decref(tr->items[i].node);
    for (int i = 0; i < tr->n_inputs; i++) tensor_decref(tr->inputs[i]);
    for (int s = 0; s < tr->n_steps; s++) {
        free(tr->steps[s].in_def);
        free(tr->steps[s].out_def);
        free(tr->steps[s].saved_input);
    }
    free(tr->steps);
    free(tr->acts);
    free(tr->items);
    free(tr->inputs);
    free(tr->key);
    free(tr->rec_end);
    ag_schedule_fini(&tr->sched);
    memset(tr, 0, sizeof *tr);
}
