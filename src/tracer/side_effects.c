/* src/tracer/side_effects.c — SideEffects, after dynamo's side_effects.py (seed 004): objects
 * that exist outside the region are tracked by identity (one tracker per object, so aliases
 * agree); attribute stores and deletions on existing and new objects, global and cell stores
 * are recorded instead of performed, and loads after stores see the pending value; list and
 * dict contents are edited on their trackers and marked modified; tensor hooks on sourced
 * tensors are recorded with their handles.  codegen.c replays all of it after the graph runs,
 * in seed 004's order. */
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/str.h"

static void track(Tracer *tr, VT *v) {
    SideEffects *se = &tr->se;
    if (se->n_tracked == se->cap_tracked) {
        int32_t cap = se->cap_tracked ? se->cap_tracked * 2 : 16;
        VT **n = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
        if (se->n_tracked) memcpy(n, se->tracked, sizeof(VT *) * (size_t)se->n_tracked);
        se->tracked = n;
        se->cap_tracked = cap;
    }
    se->tracked[se->n_tracked++] = v;
}

VT *se_find_existing(Tracer *tr, Value obj) {
    if (obj.tag != VAL_OBJ) return NULL;
    for (int i = 0; i < tr->se.n_tracked; i++) {
        VT *v = tr->se.tracked[i];
        if (v->mut == MUT_EXISTING && v->value.tag == VAL_OBJ && v->value.as.o == obj.as.o) return v;
    }
    return NULL;
}

VT *se_track_existing(Tracer *tr, VT *v) {
    VT *known = se_find_existing(tr, v->value);
    if (known) return known;
    v->mut = MUT_EXISTING;
    track(tr, v);
    return v;
}

void se_track_new(Tracer *tr, VT *v) {
    v->mut = MUT_NEW;
    track(tr, v);
}

static AttrStore *find_store(Tracer *tr, VT *obj, StrObj *name) {
    for (int i = 0; i < tr->se.n_stores; i++) {
        AttrStore *s = &tr->se.stores[i];
        if (s->obj == obj && str_eq(s->name, name)) return s;
    }
    return NULL;
}

void se_store_attr(Tracer *tr, VT *obj, StrObj *name, VT *value) {
    if (obj->mut != MUT_NEW) tr->se.n_mutations++;
    AttrStore *s = find_store(tr, obj, name);
    if (s) {
        /* dynamo's OrderedDict: the name keeps its first position, the value is the latest */
        s->value = value;
        s->line = trace_current_line(tr);
        return;
    }
    SideEffects *se = &tr->se;
    if (se->n_stores == se->cap_stores) {
        int32_t cap = se->cap_stores ? se->cap_stores * 2 : 16;
        AttrStore *n = trace_arena_alloc(&tr->arena, sizeof(AttrStore) * (size_t)cap);
        if (se->n_stores) memcpy(n, se->stores, sizeof(AttrStore) * (size_t)se->n_stores);
        se->stores = n;
        se->cap_stores = cap;
    }
    trace_keep(tr, val_obj(name));
    se->stores[se->n_stores++] = (AttrStore){.obj = obj, .name = name, .value = value, .line = trace_current_line(tr)};
    if (obj->mut == MUT_NONE) obj->mut = MUT_EXISTING;
}

VT *se_load_attr(Tracer *tr, VT *obj, StrObj *name) {
    AttrStore *s = find_store(tr, obj, name);
    return s ? s->value : NULL;
}

void se_store_global(Tracer *tr, StrObj *name, VT *value) { se_store_attr(tr, tr->globals_vt, name, value); }

VT *se_load_global(Tracer *tr, StrObj *name) { return se_load_attr(tr, tr->globals_vt, name); }

void se_mark_modified(Tracer *tr, VT *container) {
    if (container->mut != MUT_NEW) tr->se.n_mutations++;
    container->modified = true;
    container->index = trace_current_line(tr);   /* the latest line that changed it */
}

int se_register_hook(Tracer *tr, VT *tensor, VT *hook, VT *handle) {
    SideEffects *se = &tr->se;
    se->n_mutations++;
    if (se->n_hooks == se->cap_hooks) {
        int32_t cap = se->cap_hooks ? se->cap_hooks * 2 : 8;
        HookReg *n = trace_arena_alloc(&tr->arena, sizeof(HookReg) * (size_t)cap);
        if (se->n_hooks) memcpy(n, se->hooks, sizeof(HookReg) * (size_t)se->n_hooks);
        se->hooks = n;
        se->cap_hooks = cap;
    }
    int idx = se->n_hooks;
    se->hooks[se->n_hooks++] = (HookReg){.tensor = tensor, .hook = hook, .handle = handle, .line = trace_current_line(tr)};
    handle->index = idx;
    return idx;
}

bool se_is_empty(Tracer *tr) {
    SideEffects *se = &tr->se;
    if (se->n_stores) return false;
    for (int i = 0; i < se->n_hooks; i++)
        if (!se->hooks[i].removed) return false;
    for (int i = 0; i < se->n_tracked; i++)
        if (se->tracked[i]->modified) return false;
    return !se->grad_mode_changed;
}

/* ---- pruning ------------------------------------------------------------------------------------- */

static void visit(Tracer *tr, VT *v, int depth);

/* a new object whose stores are replayed (liveness in `flag`, unused by objects otherwise) */
static bool is_new_object(const VT *v) { return (v->kind == VT_OBJECT || v->kind == VT_EXCEPTION) && v->mut == MUT_NEW; }

static void mark_live(Tracer *tr, VT *v) {
    /* new objects are live when reachable */
    if (is_new_object(v)) v->flag = true;
    (void)tr;
}

static void visit(Tracer *tr, VT *v, int depth) {
    if (!v || depth > 64) return;
    if (v->kind == VT_LAZY) {
        if (v->a) visit(tr, v->a, depth + 1);
        return;
    }
    if (is_new_object(v)) {
        if (v->flag) return;
        mark_live(tr, v);
        /* what the live new object holds is live too */
        for (int i = 0; i < tr->se.n_stores; i++)
            if (tr->se.stores[i].obj == v) visit(tr, tr->se.stores[i].value, depth + 1);
    }
    for (int i = 0; i < v->n; i++) {
        if (v->items) visit(tr, v->items[i], depth + 1);
        if (v->keys) visit(tr, v->keys[i], depth + 1);
    }
    visit(tr, v->a, depth + 1);
    visit(tr, v->b, depth + 1);
    visit(tr, v->cls, depth + 1);
    visit(tr, v->defaults, depth + 1);
    visit(tr, v->kwdefaults, depth + 1);
    visit(tr, v->closure, depth + 1);
}

void se_prune_dead(Tracer *tr) {
    SideEffects *se = &tr->se;
    for (int i = 0; i < se->n_tracked; i++)
        if (is_new_object(se->tracked[i])) se->tracked[i]->flag = false;
    /* roots: the root frame's stack and locals, existing objects (and what was stored on them) */
    Tx *tx = tr->root;
    for (int i = 0; i < tx->sp; i++) visit(tr, tx->stack[i], 0);
    for (int i = 0; i < tx->code->nlocalsplus; i++) visit(tr, tx->locals[i], 0);
    if (tx->return_value) visit(tr, tx->return_value, 0);
    for (int i = 0; i < se->n_stores; i++) {
        VT *o = se->stores[i].obj;
        if (!is_new_object(o)) visit(tr, se->stores[i].value, 0);
    }
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if (v->mut == MUT_EXISTING) visit(tr, v, 0);
    }
    for (int i = 0; i < se->n_hooks; i++) visit(tr, se->hooks[i].hook, 0);
    /* drop dead new objects and their stores */
    int32_t j = 0;
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if (is_new_object(v) && !v->flag) continue;
        se->tracked[j++] = v;
    }
    se->n_tracked = j;
    j = 0;
    for (int i = 0; i < se->n_stores; i++) {
        VT *o = se->stores[i].obj;
        if (is_new_object(o) && !o->flag) continue;
        se->stores[j++] = se->stores[i];
    }
    se->n_stores = j;
}

int32_t se_row_of_tracked(const SideEffects *se, int i) {
    int32_t row = 0;
    for (int k = 0; k < i; k++) row += se->tracked[k]->modified;
    return row;
}

int32_t se_row_of_store(const SideEffects *se, int i) { return se_row_of_tracked(se, se->n_tracked) + i; }

int32_t se_row_of_hook(const SideEffects *se, int i) { return se_row_of_store(se, se->n_stores) + i; }
