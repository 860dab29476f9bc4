/* src/tracer/vt.c — variable trackers as data: constructors for each kind, containers (tuples,
 * lists, dicts keyed by constants or object identity), lazy trackers before they are looked
 * at, and translator frames (Tx: a code object's locals and stack of trackers).  What a tracker stands for as a real value, and wrapping real values into
 * trackers (with their guards), is wrap.c. */
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- constructors -------------------------------------------------------------------------------------- */

VT *vt_new(Tracer *tr, VtKind kind) {
    VT *v = trace_arena_alloc(&tr->arena, sizeof *v);
    v->kind = kind;
    v->value = val_null();
    v->fake = val_null();
    v->code = val_null();
    v->shadow = val_null();
    v->temp_slot = -1;
    v->graph_input = -1;
    return v;
}

VT *vt_const(Tracer *tr, Value v) {
    VT *r = vt_new(tr, VT_CONST);
    r->value = v;
    trace_keep(tr, v);
    return r;
}

VT *vt_none(Tracer *tr) { return vt_const(tr, (Value){.tag = VAL_NONE}); }

void vt_reserve(Tracer *tr, VT *v, int32_t need) {
    if (need <= v->cap) return;
    int32_t cap = v->cap ? v->cap * 2 : 4;
    while (cap < need) cap *= 2;
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
    if (v->n) memcpy(items, v->items, sizeof(VT *) * (size_t)v->n);
    v->items = items;
    if (v->kind == VT_DICT || v->kind == VT_FN_CTX) {
        VT **keys = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
        if (v->n) memcpy(keys, v->keys, sizeof(VT *) * (size_t)v->n);
        v->keys = keys;
    }
    v->cap = cap;
}

static VT *vt_seq(Tracer *tr, VtKind kind, VT **items, int n) {
    VT *v = vt_new(tr, kind);
    vt_reserve(tr, v, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) v->items[i] = items[i];
    v->n = n;
    return v;
}

VT *vt_tuple(Tracer *tr, VT **items, int n) { return vt_seq(tr, VT_TUPLE, items, n); }

VT *vt_list(Tracer *tr, VT **items, int n) {
    VT *v = vt_seq(tr, VT_LIST, items, n);
    v->mut = MUT_NEW;
    return v;
}

void vt_list_append(Tracer *tr, VT *list, VT *item) {
    vt_reserve(tr, list, list->n + 1);
    list->items[list->n++] = item;
}

void vt_list_insert(Tracer *tr, VT *list, int64_t i, VT *item) {
    if (i < 0) i += list->n;
    if (i < 0) i = 0;
    if (i > list->n) i = list->n;
    vt_reserve(tr, list, list->n + 1);
    memmove(&list->items[i + 1], &list->items[i], sizeof(VT *) * (size_t)(list->n - i));
    list->items[i] = item;
    list->n++;
}

void vt_list_remove_at(VT *list, int64_t i) {
    memmove(&list->items[i], &list->items[i + 1], sizeof(VT *) * (size_t)(list->n - i - 1));
    list->n--;
}

VT *vt_dict(Tracer *tr) {
    VT *v = vt_new(tr, VT_DICT);
    vt_reserve(tr, v, 4);
    v->mut = MUT_NEW;
    return v;
}

/* Keys: constants compare by value (1 == 1.0 == True, as dict keys do), anything else by the
 * identity of its tracker or real object. */
static bool key_equal(Tracer *tr, VT *a, VT *b) {
    if (a == b) return true;
    if (a->kind == VT_CONST && b->kind == VT_CONST) {
        int r = vm_eq(tr->vm, a->value, b->value);
        if (r < 0) {
            vm_clear_exc(tr->vm);
            return false;
        }
        return r == 1;
    }
    if (!val_is_null(a->value) && !val_is_null(b->value) && a->kind != VT_CONST && b->kind != VT_CONST)
        return val_identical(a->value, b->value);
    return false;
}

int vt_dict_find(Tracer *tr, VT *d, VT *key) {
    for (int i = 0; i < d->n; i++)
        if (key_equal(tr, d->keys[i], key)) return i;
    return -1;
}

void vt_dict_set(Tracer *tr, VT *d, VT *key, VT *value) {
    int i = vt_dict_find(tr, d, key);
    if (i >= 0) {
        d->items[i] = value;
        return;
    }
    vt_reserve(tr, d, d->n + 1);
    d->keys[d->n] = key;
    d->items[d->n] = value;
    d->n++;
}

int vt_set_find(Tracer *tr, VT *s, VT *member) {
    for (int i = 0; i < s->n; i++)
        if (key_equal(tr, s->items[i], member)) return i;
    return -1;
}

void vt_dict_del_at(VT *d, int i) {
    memmove(&d->keys[i], &d->keys[i + 1], sizeof(VT *) * (size_t)(d->n - i - 1));
    memmove(&d->items[i], &d->items[i + 1], sizeof(VT *) * (size_t)(d->n - i - 1));
    d->n--;
}

bool vt_is_const(const VT *v) { return v->kind == VT_CONST; }

bool vt_is_const_of(Tracer *tr, const VT *v, TypeObj *t) {
    return v->kind == VT_CONST && vm_type_of(tr->vm, v->value) == t;
}

const char *vt_kind_name(VtKind k) {
    static const char *const names[] = {
        "NullVariable", "ConstantVariable", "TensorVariable", "SymNodeVariable", "TupleVariable",
        "ListVariable", "ConstDictVariable", "SliceVariable", "ListIteratorVariable",
        "UserDefinedObjectVariable", "UserFunctionVariable", "UserMethodVariable", "BuiltinVariable",
        "UserDefinedClassVariable", "PythonModuleVariable", "NNModuleVariable", "CellVariable",
        "GradModeVariable", "RemovableHandleVariable", "SuperVariable", "DeletedVariable", "ObjectVariable",
        "LazyVariableTracker", "ListVariable", "DictViewVariable", "GeneratorVariable", "SetVariable", "ExceptionVariable",
        "FunctoolsPartialVariable", "AutogradFunctionContextVariable"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "VariableTracker";
}

/* ---- translator frames as data (the loop that runs them is symbolic.c) -------------------------- */

Tx *tx_new(Tracer *tr, CodeObj *code, FunctionObj *fn, DictObj *globals, Tx *parent) {
    Tx *tx = trace_arena_alloc(&tr->arena, sizeof *tx);
    tx->parent = parent;
    tx->code = code;
    tx->func = fn;
    tx->globals = globals;
    tx->locals = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(code->nlocalsplus + 1));
    tx->stack_cap = code->stacksize + 8;
    tx->stack = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)tx->stack_cap);
    tx->depth = parent ? parent->depth + 1 : 0;
    trace_keep(tr, val_obj(code));
    return tx;
}

/* ---- lazies ---------------------------------------------------------------------------------------- */

VT *vt_lazy(Tracer *tr, Value v, Source *source) {
    VT *r = vt_new(tr, VT_LAZY);
    r->value = v;
    r->source = source;
    trace_keep(tr, v);
    return r;
}

bool vt_lazy_list_append(Tracer *tr, VT *lz, VT *item) {
    if (lz->kind != VT_LAZY_LIST || lz->a) return false;
    vt_reserve(tr, lz, lz->n + 1);
    lz->items[lz->n++] = item;
    lz->modified = true;
    tr->se.n_mutations++;
    lz->index = trace_current_line(tr);
    return true;
}

VT *vt_iter(Tracer *tr, IterKind kind) {
    VT *it = vt_new(tr, VT_ITER);
    it->iter = kind;
    return it;
}
