/* src/tracer/sets.c — sets on trackers: set displays and comprehensions, set(), the methods and
 * operators of sets, membership and iteration.
 *
 * Members are compared as dict keys are: constants by value (1 == 1.0 == True), objects and
 * tensors by identity.  Iteration order is the one thing a tracker cannot work out alone, since
 * CPython orders a set by hash and by its history of inserts and deletes.  So a set whose
 * members are all constants keeps a *shadow*: a real set that every change is applied to as
 * well, whose order iteration and pop() follow; an existing set not changed in the region is
 * iterated in its own order.  A set holding other members (ordered by address in eager) cannot
 * be iterated or popped without a graph break.  Existing sets are tracked when every member is
 * a constant (guarded equal to a copy); replay is `s.clear(); s.update(new)`. */
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

static bool is(StrObj *s, const char *c) { return s && strcmp(s->data, c) == 0; }

/* ---- members ------------------------------------------------------------------------------------- */

/* A member as it will be compared: constants by value (symbolic numbers specialised), objects
 * and tensors by identity; NULL with a break for what eager could not hash or the tracer cannot
 * compare (lists, dicts, sets; objects with their own __eq__ / __hash__). */
static VT *member(Tracer *tr, VT *k) {
    VM *vm = tr->vm;
    k = tr_specialize(tr, vt_force(tr, k));
    switch (k->kind) {
    case VT_CONST: {
        int64_t h;
        if (vm_hash(vm, k->value, &h) < 0) {
            vm_clear_exc(vm);
            trace_break(tr, "unhashable set member");
            return NULL;
        }
        return k;
    }
    case VT_TENSOR: case VT_FUNCTION: case VT_NN_MODULE: case VT_TYPE: case VT_NATIVE: case VT_MODULE: return k;
    case VT_OBJECT: {
        TypeObj *t = vt_python_type(tr, k);
        Value eq = t ? type_lookup(vm, t, vm->special_names[SP_EQ]) : val_null();
        Value hash = t ? type_lookup(vm, t, vm->special_names[SP_HASH]) : val_null();
        if (t && val_identical(eq, type_lookup(vm, vm->t_object, vm->special_names[SP_EQ])) &&
            val_identical(hash, type_lookup(vm, vm->t_object, vm->special_names[SP_HASH])))
            return k;
        trace_break(tr, "a set member with its own __eq__ or __hash__");
        return NULL;
    }
    default: trace_break(tr, "a set member of kind %s", vt_kind_name(k->kind)); return NULL;
    }
}

static void shadow_apply(Tracer *tr, VT *s, VT *k, bool add) {
    if (val_is_null(s->shadow)) return;
    if (k->kind != VT_CONST) {
        s->shadow = val_null();   /* its order is eager's addresses: unknown from here on */
        return;
    }
    SetObj *sh = (SetObj *)s->shadow.as.o;
    int r = add ? set_add(tr->vm, sh, k->value) : set_discard(tr->vm, sh, k->value);
    if (r < 0) {
        vm_clear_exc(tr->vm);
        s->shadow = val_null();
    }
}

static void changed(Tracer *tr, VT *s) {
    if (s->mut == MUT_EXISTING) se_mark_modified(tr, s);
}

static TxStatus check_mutable(Tracer *tr, VT *s) {
    if (s->mut == MUT_EXISTING && !s->source) return trace_break(tr, "mutation of a set the tracer cannot name");
    return TX_OK;
}

/* add k (a member()); true if it was not there */
static bool add_member(Tracer *tr, VT *s, VT *k) {
    if (vt_set_find(tr, s, k) >= 0) return false;
    vt_list_append(tr, s, k);
    shadow_apply(tr, s, k, true);
    return true;
}

static void remove_at(Tracer *tr, VT *s, int i) {
    VT *k = s->items[i];
    vt_list_remove_at(s, i);
    shadow_apply(tr, s, k, false);
}

VT *tr_set_new(Tracer *tr) {
    VT *s = vt_new(tr, VT_SET);
    s->mut = MUT_NEW;
    SetObj *sh = set_new(tr->vm, tr->vm->t_set);
    if (sh) {
        s->shadow = val_obj(sh);
        trace_keep(tr, s->shadow);
    } else {
        vm_clear_exc(tr->vm);
    }
    return s;
}

TxStatus tr_set_add(Tracer *tr, VT *s, VT *k) {
    if (!(k = member(tr, k))) return TX_BREAK;
    TxStatus st = check_mutable(tr, s);
    if (st) return st;
    if (add_member(tr, s, k)) changed(tr, s);
    return TX_OK;
}

/* The members of any iterable, as a new set (set(iterable), set | list is not allowed...). */
static TxStatus set_of(Tracer *tr, VT *iterable, VT **out) {
    iterable = vt_force(tr, iterable);
    if (iterable->kind == VT_SET) {
        *out = iterable;
        return TX_OK;
    }
    VT *items, *s = tr_set_new(tr);
    TxStatus st = tr_iter_items(tr, iterable, &items);
    if (st) return st;
    for (int i = 0; i < items->n; i++) {
        VT *k = member(tr, vt_item(tr, items, i));
        if (!k) return TX_BREAK;
        add_member(tr, s, k);
    }
    *out = s;
    return TX_OK;
}

TxStatus tr_set_from_iterable(Tracer *tr, VT *iterable, VT **out) {
    VT *s = tr_set_new(tr);
    if (!iterable) {
        *out = s;
        return TX_OK;
    }
    VT *src;
    TxStatus st = set_of(tr, iterable, &src);
    if (st) return st;
    if (src != vt_force(tr, iterable)) {
        *out = src;   /* already a new set */
        return TX_OK;
    }
    /* a copy of an existing set tracker: in its order */
    VT *order;
    if ((st = tr_set_items(tr, src, &order))) return st;
    for (int i = 0; i < order->n; i++) add_member(tr, s, order->items[i]);
    *out = s;
    return TX_OK;
}

/* ---- order ------------------------------------------------------------------------------------ */

/* The members in CPython's iteration order (the set's own when it is an existing one the region
 * did not change, else the shadow's), or NULL when that order is unknown. */
static VT *known_order(Tracer *tr, VT *s) {
    Value order = !val_is_null(s->value) && !s->modified ? s->value : s->shadow;
    if (val_is_null(order)) return NULL;
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(s->n + 1));
    int n = 0;
    int64_t pos = 0;
    Value k;
    while (set_next((SetObj *)order.as.o, &pos, &k)) {
        int i = vt_set_find(tr, s, vt_const(tr, k));
        if (i < 0 || n >= s->n) return NULL;
        items[n++] = s->items[i];
    }
    return n == s->n ? vt_tuple(tr, items, n) : NULL;
}

TxStatus tr_set_items(Tracer *tr, VT *s, VT **out) {
    *out = known_order(tr, s);
    return *out ? TX_OK : trace_break(tr, "iterating a set of objects (its order is by address)");
}

/* ---- operators ------------------------------------------------------------------------------- */

typedef enum SetOp { SOP_UNION, SOP_INTERSECTION, SOP_DIFFERENCE, SOP_SYMMETRIC } SetOp;

/* a op b as a new set, in CPython's order of building it: a's members (kept or not), then b's */
static VT *combine(Tracer *tr, VT *a, VT *b, SetOp op) {
    VT *r = tr_set_new(tr);
    /* the members in the sets' own orders when known; otherwise the result holds an object and
     * its order is unknown anyway */
    VT *ao = known_order(tr, a), *bo = known_order(tr, b);
    if (!ao) ao = vt_tuple(tr, a->items, a->n);
    if (!bo) bo = vt_tuple(tr, b->items, b->n);
    for (int i = 0; i < ao->n; i++) {
        bool in_b = vt_set_find(tr, b, ao->items[i]) >= 0;
        if (op == SOP_UNION || (op == SOP_INTERSECTION && in_b) || ((op == SOP_DIFFERENCE || op == SOP_SYMMETRIC) && !in_b))
            add_member(tr, r, ao->items[i]);
    }
    if (op == SOP_UNION || op == SOP_SYMMETRIC)
        for (int i = 0; i < bo->n; i++)
            if (vt_set_find(tr, a, bo->items[i]) < 0) add_member(tr, r, bo->items[i]);
    return r;
}

/* s op= other, in place */
static void update(Tracer *tr, VT *s, VT *other, SetOp op) {
    VT *r = combine(tr, s, other, op);
    /* keep s's identity: its members become r's, its shadow r's */
    s->items = r->items;
    s->n = r->n;
    s->cap = r->cap;
    s->shadow = r->shadow;
    changed(tr, s);
}

static bool is_set_like(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    return v->kind == VT_SET || (v->kind == VT_CONST && (vt_is_const_of(tr, v, tr->vm->t_frozenset) ||
                                                         vt_is_const_of(tr, v, tr->vm->t_set)));
}

/* a frozenset constant as a set tracker (its members are constants) */
static TxStatus as_set(Tracer *tr, VT *v, VT **out) {
    v = vt_force(tr, v);
    if (v->kind == VT_SET) {
        *out = v;
        return TX_OK;
    }
    return set_of(tr, v, out);
}

TxStatus tr_set_binary(Tracer *tr, int op, VT *a, VT *b, VT **out) {
    bool inplace = op >= BINOP_INPLACE;
    int base = inplace ? op - BINOP_INPLACE : op;
    SetOp sop;
    switch (base) {
    case BINOP_OR: sop = SOP_UNION; break;
    case BINOP_AND: sop = SOP_INTERSECTION; break;
    case BINOP_SUBTRACT: sop = SOP_DIFFERENCE; break;
    case BINOP_XOR: sop = SOP_SYMMETRIC; break;
    default: return trace_break(tr, "operator %s on sets", binop_symbol[base]);
    }
    if (!is_set_like(tr, a) || !is_set_like(tr, b)) return trace_break(tr, "a set operator with another kind");
    VT *sa, *sb;
    TxStatus st;
    if ((st = as_set(tr, a, &sa)) || (st = as_set(tr, b, &sb))) return st;
    if (vt_force(tr, a)->kind == VT_CONST) {
        /* frozenset op set: a frozenset, a constant when its members are */
        VT *r = combine(tr, sa, sb, sop);
        if (val_is_null(r->shadow)) return trace_break(tr, "a frozenset of objects");
        Value fz = vm_call1(tr->vm, val_obj(tr->vm->t_frozenset), r->shadow);
        if (val_is_null(fz)) return trace_error(tr);
        *out = vt_const(tr, fz);
        return TX_OK;
    }
    if (inplace) {
        if ((st = check_mutable(tr, sa))) return st;
        update(tr, sa, sb, sop);
        *out = sa;
        return TX_OK;
    }
    *out = combine(tr, sa, sb, sop);
    return TX_OK;
}

/* <= < >= > == != between sets (by membership: no order involved) */
TxStatus tr_set_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out) {
    if (!is_set_like(tr, a) || !is_set_like(tr, b)) {
        if (op == CMP_EQ || op == CMP_NE) {
            *out = vt_const(tr, val_bool(op == CMP_NE));   /* a set never equals a non-set */
            return TX_OK;
        }
        return trace_break(tr, "ordering a set and another kind");
    }
    VT *sa, *sb;
    TxStatus st;
    if ((st = as_set(tr, a, &sa)) || (st = as_set(tr, b, &sb))) return st;
    bool a_in_b = true, b_in_a = true;
    for (int i = 0; i < sa->n && a_in_b; i++) a_in_b = vt_set_find(tr, sb, sa->items[i]) >= 0;
    for (int i = 0; i < sb->n && b_in_a; i++) b_in_a = vt_set_find(tr, sa, sb->items[i]) >= 0;
    bool r;
    switch (op) {
    case CMP_EQ: r = a_in_b && b_in_a; break;
    case CMP_NE: r = !(a_in_b && b_in_a); break;
    case CMP_LE: r = a_in_b; break;
    case CMP_LT: r = a_in_b && !b_in_a; break;
    case CMP_GE: r = b_in_a; break;
    case CMP_GT: r = b_in_a && !a_in_b; break;
    default: return trace_break(tr, "comparison of sets");
    }
    *out = vt_const(tr, val_bool(r));
    return TX_OK;
}

TxStatus tr_set_contains(Tracer *tr, VT *item, VT *s, int *out) {
    VT *k = member(tr, item);
    if (!k) return TX_BREAK;
    *out = vt_set_find(tr, s, k) >= 0;
    return TX_OK;
}

/* ---- methods ------------------------------------------------------------------------------------ */

TxStatus tr_set_method(Tracer *tr, VT *s, StrObj *name, int argc, VT **args, VT **out) {
    TxStatus st;
    *out = vt_none(tr);
    if ((is(name, "add") || is(name, "discard") || is(name, "remove")) && argc == 1) {
        if ((st = check_mutable(tr, s))) return st;
        VT *k = member(tr, args[0]);
        if (!k) return TX_BREAK;
        if (is(name, "add")) {
            if (add_member(tr, s, k)) changed(tr, s);
            return TX_OK;
        }
        int i = vt_set_find(tr, s, k);
        if (i < 0) return is(name, "remove") ? trace_break(tr, "KeyError in set.remove") : TX_OK;
        remove_at(tr, s, i);
        changed(tr, s);
        return TX_OK;
    }
    if (is(name, "pop") && argc == 0) {
        if ((st = check_mutable(tr, s))) return st;
        if (s->n == 0) return trace_break(tr, "pop from an empty set");
        VT *order;
        if ((st = tr_set_items(tr, s, &order))) return st;
        *out = order->items[0];
        remove_at(tr, s, vt_set_find(tr, s, *out));
        changed(tr, s);
        return TX_OK;
    }
    if (is(name, "clear") && argc == 0) {
        if ((st = check_mutable(tr, s))) return st;
        while (s->n) remove_at(tr, s, s->n - 1);
        changed(tr, s);
        return TX_OK;
    }
    if (is(name, "copy") && argc == 0) return tr_set_from_iterable(tr, s, out);
    static const struct {
        const char *name;
        SetOp op;
        bool in_place;
    } ops[] = {{"union", SOP_UNION, false},
               {"update", SOP_UNION, true},
               {"intersection", SOP_INTERSECTION, false},
               {"intersection_update", SOP_INTERSECTION, true},
               {"difference", SOP_DIFFERENCE, false},
               {"difference_update", SOP_DIFFERENCE, true},
               {"symmetric_difference", SOP_SYMMETRIC, false},
               {"symmetric_difference_update", SOP_SYMMETRIC, true}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (!is(name, ops[k].name)) continue;
        if (ops[k].op == SOP_SYMMETRIC && argc != 1) return trace_break(tr, "%s() takes exactly one argument", name->data);
        if (ops[k].in_place && (st = check_mutable(tr, s))) return st;
        VT *acc = ops[k].in_place ? s : NULL;
        for (int i = 0; i < argc; i++) {
            VT *other;
            if ((st = set_of(tr, args[i], &other))) return st;
            if (acc) {
                if (acc == s) update(tr, s, other, ops[k].op);
                else acc = combine(tr, acc, other, ops[k].op);
            } else {
                acc = combine(tr, s, other, ops[k].op);
            }
        }
        if (!acc && (st = tr_set_from_iterable(tr, s, &acc))) return st;   /* s.union(): a copy */
        if (!ops[k].in_place) *out = acc;
        return TX_OK;
    }
    if ((is(name, "issubset") || is(name, "issuperset") || is(name, "isdisjoint")) && argc == 1) {
        VT *other;
        if ((st = set_of(tr, args[0], &other))) return st;
        if (is(name, "isdisjoint")) {
            bool dis = true;
            for (int i = 0; i < s->n && dis; i++) dis = vt_set_find(tr, other, s->items[i]) < 0;
            *out = vt_const(tr, val_bool(dis));
            return TX_OK;
        }
        return tr_set_compare(tr, is(name, "issubset") ? CMP_LE : CMP_GE, s, other, out);
    }
    if (is(name, "__contains__") && argc == 1) {
        int in;
        if ((st = tr_set_contains(tr, args[0], s, &in))) return st;
        *out = vt_const(tr, val_bool(in));
        return TX_OK;
    }
    return trace_break(tr, "set.%s", name->data);
}
