/* src/tracer/vt.c — variable trackers: the per-trace arena they live in, constructors for each
 * kind, containers (tuples, lists, dicts keyed by constants or object identity), conversion
 * between VTs and real values, and wrapping values read from sources (vt_from_value), which
 * decides how far the tracer specialises on each kind and installs the matching guards. */
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- arena -------------------------------------------------------------------------------------- */

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *arena_alloc(Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    ArenaBlock *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > 65536 ? n : 65536;
        b = calloc(1, sizeof *b + cap);
        EM_ASSERT(b != NULL, "out of memory in the tracer");
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

char *arena_strdup(Arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(a, n);
    memcpy(d, s, n);
    return d;
}

void arena_free(Arena *a) {
    for (ArenaBlock *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->head = NULL;
}

/* ---- keepalive -------------------------------------------------------------------------------------- */

void tr_keep(Tracer *tr, Value v) {
    if (v.tag != VAL_OBJ) return;
    if (list_append(tr->vm, tr->keepalive, v) < 0) vm_clear_exc(tr->vm);
}

/* ---- constructors -------------------------------------------------------------------------------------- */

VT *vt_new(Tracer *tr, VtKind kind) {
    VT *v = arena_alloc(&tr->arena, sizeof *v);
    v->kind = kind;
    v->value = val_null();
    v->fake = val_null();
    v->code = val_null();
    v->temp_slot = -1;
    v->graph_input = -1;
    return v;
}

VT *vt_const(Tracer *tr, Value v) {
    VT *r = vt_new(tr, VT_CONST);
    r->value = v;
    tr_keep(tr, v);
    return r;
}

VT *vt_none(Tracer *tr) { return vt_const(tr, (Value){.tag = VAL_NONE}); }

static void vt_reserve(Tracer *tr, VT *v, int32_t need) {
    if (need <= v->cap) return;
    int32_t cap = v->cap ? v->cap * 2 : 4;
    while (cap < need) cap *= 2;
    VT **items = arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
    if (v->n) memcpy(items, v->items, sizeof(VT *) * (size_t)v->n);
    v->items = items;
    if (v->kind == VT_DICT) {
        VT **keys = arena_alloc(&tr->arena, sizeof(VT *) * (size_t)cap);
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

void vt_dict_del_at(VT *d, int i) {
    memmove(&d->keys[i], &d->keys[i + 1], sizeof(VT *) * (size_t)(d->n - i - 1));
    memmove(&d->items[i], &d->items[i + 1], sizeof(VT *) * (size_t)(d->n - i - 1));
    d->n--;
}

bool vt_is_const(const VT *v) { return v->kind == VT_CONST; }

bool vt_is_const_of(Tracer *tr, const VT *v, TypeObj *t) {
    return v->kind == VT_CONST && vm_type_of(tr->vm, v->value) == t;
}

Value vt_as_constant(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    if (v->kind == VT_CONST) return v->value;
    if (v->kind != VT_TUPLE && v->kind != VT_LIST) return val_null();
    VM *vm = tr->vm;
    Value *items = calloc((size_t)(v->n ? v->n : 1), sizeof(Value));
    for (int i = 0; i < v->n; i++) {
        items[i] = vt_as_constant(tr, vt_item(tr, v, i));
        if (val_is_null(items[i])) {
            free(items);
            return val_null();
        }
    }
    /* items are constants already kept alive by their VTs */
    Obj *o = v->kind == VT_TUPLE ? (Obj *)tuple_from_array(vm, items, v->n) : (Obj *)list_from_array(vm, items, v->n);
    free(items);
    if (!o) {
        vm_clear_exc(vm);
        return val_null();
    }
    tr_keep(tr, val_obj(o));
    return val_obj(o);
}

const char *vt_kind_name(VtKind k) {
    static const char *const names[] = {
        "NullVariable", "ConstantVariable", "TensorVariable", "SymNodeVariable", "TupleVariable",
        "ListVariable", "ConstDictVariable", "SliceVariable", "ListIteratorVariable",
        "UserDefinedObjectVariable", "UserFunctionVariable", "UserMethodVariable", "BuiltinVariable",
        "UserDefinedClassVariable", "PythonModuleVariable", "NNModuleVariable", "CellVariable",
        "GradModeVariable", "RemovableHandleVariable", "SuperVariable", "DeletedVariable", "ObjectVariable",
        "LazyVariableTracker", "ListVariable"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "VariableTracker";
}

TypeObj *vt_python_type(Tracer *tr, VT *v) {
    VM *vm = tr->vm;
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_CONST: case VT_SYMNUM: return vm_type_of(vm, v->value);
    case VT_TENSOR: return vm_type_of(vm, v->fake);
    case VT_TUPLE: return vm->t_tuple;
    case VT_LIST: return vm->t_list;
    case VT_DICT: return val_is_null(v->value) ? vm->t_dict : vm_type_of(vm, v->value);
    case VT_SLICE: return vm->t_slice;
    case VT_OBJECT:
        if (v->mut == MUT_NEW) return v->cls && v->cls->kind == VT_TYPE ? (TypeObj *)v->cls->value.as.o : NULL;
        return vm_type_of(vm, v->value);
    case VT_FUNCTION: return vm->t_function;
    case VT_METHOD: return vm->t_method;
    case VT_TYPE: return vm_type_of(vm, v->value);
    case VT_NATIVE: case VT_MODULE: case VT_NN_MODULE: case VT_CELL: case VT_OPAQUE: case VT_HANDLE:
    case VT_GRAD_MODE:
        return val_is_null(v->value) ? NULL : vm_type_of(vm, v->value);
    default: return NULL;
    }
}

/* ---- values <-> trackers ------------------------------------------------------------------------------ */

static bool is_immediate_const(VM *vm, Value v) {
    switch (v.tag) {
    case VAL_NONE: case VAL_BOOL: case VAL_INT: case VAL_FLOAT: return true;
    case VAL_OBJ: {
        TypeObj *t = v.as.o->type;
        /* t_int: an exact big int (immutable; small ints are VAL_INT) */
        return t == vm->t_str || t == vm->t_bytes || t == vm->t_ellipsis || t == vm->t_notimplemented ||
               t == vm->t_code || t == vm->t_range || t == vm->t_int;
    }
    default: return false;
    }
}

static bool is_const_tuple(VM *vm, Value v) {
    if (!val_is_type(vm, v, vm->t_tuple)) return false;
    TupleObj *t = AS_TUPLE(v);
    for (int64_t i = 0; i < t->len; i++)
        if (!is_immediate_const(vm, t->items[i]) && !is_const_tuple(vm, t->items[i])) return false;
    return true;
}

/* Whether an attribute/global number stays symbolic (see tracer.h VT_SYMNUM). */
static bool unspecialized_source(const Source *s) {
    return s && (s->kind == SRC_ATTR || s->kind == SRC_GLOBAL);
}

VT *vt_from_value(Tracer *tr, Value v, Source *source) {
    VM *vm = tr->vm;
    TorchState *ts = torch_state(vm);
    tr_keep(tr, v);
    /* tensors */
    if (ts && v.tag == VAL_OBJ && vm_isinstance_type(vm, v, ts->t_tensor)) {
        if (fake_is_tensor_value(tr, v)) return vt_from_result(tr, v);
        VT *t = fake_input_tensor(tr, v, source);
        if (t) return t;
        /* no fake twin (a dtype the library refuses): the tracer can only pass it around,
         * and anything it does with it is a break */
        vm_clear_exc(vm);
        VT *r = vt_new(tr, VT_OPAQUE);
        r->value = v;
        r->source = source;
        if (source) guard_id(tr, source, v);
        return r;
    }
    /* numbers and other constants */
    /* ints read from attributes and globals (counters) and floats from anywhere (scales, data)
     * stay symbolic: specialising on them would recompile on every new value */
    if (((v.tag == VAL_INT && unspecialized_source(source)) || v.tag == VAL_FLOAT) && source) {
        VT *r = vt_new(tr, VT_SYMNUM);
        r->sym = SYM_LEAF;
        r->value = v;
        r->source = source;
        guard_type(tr, source, vm_type_of(vm, v));
        return r;
    }
    if (is_immediate_const(vm, v) || is_const_tuple(vm, v) ||
        (ts && v.tag == VAL_OBJ && (v.as.o->type == ts->t_dtype || v.as.o->type == ts->t_device))) {
        VT *r = vt_const(tr, v);
        r->source = source;
        if (source) {
            if (v.tag == VAL_OBJ && (v.as.o->type == vm->t_code || (ts && (v.as.o->type == ts->t_dtype ||
                                                                            v.as.o->type == ts->t_device))))
                guard_id(tr, source, v);
            else
                guard_equals(tr, source, v);
        }
        return r;
    }
    if (v.tag != VAL_OBJ) return vt_const(tr, v);
    TypeObj *t = v.as.o->type;
    /* mutable containers: tracked by identity so aliases share one tracker */
    if (t == vm->t_list || t == vm->t_dict || t == vm->t_ordereddict || t == vm->t_defaultdict) {
        VT *known = se_find_existing(tr, v);
        if (known) return known;
        if (t == vm->t_list && source) {
            /* contents and length are guarded only if the region reads them (vt_force): a
             * region that only appends (history.append(loss)) does not recompile as it grows */
            VT *r = vt_new(tr, VT_LAZY_LIST);
            r->value = v;
            r->source = source;
            guard_type(tr, source, t);
            tr_keep(tr, v);
            return se_track_existing(tr, r);
        }
        VT *r = vt_new(tr, t == vm->t_list ? VT_LIST : VT_DICT);
        r->value = v;
        r->source = source;
        r->mut = MUT_EXISTING;
        if (source) guard_type(tr, source, t);
        if (t == vm->t_list) {
            ListObj *l = AS_LIST(v);
            if (source) guard_len(tr, source, l->len);
            vt_reserve(tr, r, (int32_t)l->len + 1);
            for (int64_t i = 0; i < l->len; i++)
                r->items[i] = vt_lazy(tr, l->items[i], source ? source_item(tr, source, val_int(i)) : NULL);
            r->n = (int32_t)l->len;
        } else {
            DictObj *d = (DictObj *)v.as.o;
            if (source) guard_dict_keys(tr, source, d);
            int64_t pos = 0;
            Value k, val;
            while (dict_next(d, &pos, &k, &val)) {
                VT *kv = vt_const(tr, k);
                if (!is_immediate_const(vm, k)) kv->kind = VT_OPAQUE;
                Source *is = source && is_immediate_const(vm, k) ? source_item(tr, source, k) : NULL;
                VT *vv = vt_lazy(tr, val, is);
                vt_reserve(tr, r, r->n + 1);
                r->keys[r->n] = kv;
                r->items[r->n] = vv;
                r->n++;
            }
        }
        return se_track_existing(tr, r);
    }
    if (t == vm->t_tuple) {
        TupleObj *tu = AS_TUPLE(v);
        VT *r = vt_new(tr, VT_TUPLE);
        r->source = source;
        if (source) {
            guard_type(tr, source, t);
            guard_len(tr, source, tu->len);
        }
        vt_reserve(tr, r, (int32_t)tu->len + 1);
        for (int64_t i = 0; i < tu->len; i++)
            r->items[i] = vt_lazy(tr, tu->items[i], source ? source_item(tr, source, val_int(i)) : NULL);
        r->n = (int32_t)tu->len;
        return r;
    }
    if (ts && t == ts->t_size) {
        VT *r = vt_const(tr, v);
        r->source = source;
        if (source) guard_equals(tr, source, v);
        return r;
    }
    VT *known = se_find_existing(tr, v);
    if (known) return known;
    VT *r;
    if (t == vm->t_function) {
        r = vt_new(tr, VT_FUNCTION);
        if (source) guard_id(tr, source, v);
    } else if (t == vm->t_method) {
        BoundMethodObj *m = (BoundMethodObj *)v.as.o;
        r = vt_new(tr, VT_METHOD);
        r->a = vt_from_value(tr, m->self, source ? source_attr(tr, source, vm_intern_str(vm, "__self__")) : NULL);
        r->b = vt_from_value(tr, m->func, source ? source_attr(tr, source, vm_intern_str(vm, "__func__")) : NULL);
    } else if (t == vm->t_builtin_function) {
        r = vt_new(tr, VT_NATIVE);
        if (source) guard_id(tr, source, v);
    } else if (t->layout == OBJ_LAYOUT_TYPE) {
        r = vt_new(tr, VT_TYPE);
        if (source) guard_id(tr, source, v);
    } else if (t == vm->t_module) {
        r = vt_new(tr, VT_MODULE);
        if (source) guard_id(tr, source, v);
    } else if (t == vm->t_cell) {
        r = vt_new(tr, VT_CELL);
        r->mut = MUT_EXISTING;
    } else if (tracer_is_nn_module(vm, v)) {
        r = vt_new(tr, VT_NN_MODULE);
        r->mut = MUT_EXISTING;
        if (source) guard_id(tr, source, v);
    } else if (t->layout == OBJ_LAYOUT_INSTANCE && (t->flags & TYPEF_HEAPTYPE)) {
        r = vt_new(tr, VT_OBJECT);
        r->mut = MUT_EXISTING;
        if (source) guard_type(tr, source, t);
    } else {
        r = vt_new(tr, VT_OPAQUE);
        if (source) guard_id(tr, source, v);
    }
    r->value = v;
    r->source = source;
    if (r->mut == MUT_EXISTING) r = se_track_existing(tr, r);
    return r;
}

VT *vt_lazy(Tracer *tr, Value v, Source *source) {
    VT *r = vt_new(tr, VT_LAZY);
    r->value = v;
    r->source = source;
    tr_keep(tr, v);
    return r;
}

/* A lazy list read for the first time: its tracker with the real contents (length guarded),
 * then what the region appended before, taking the lazy one's place in SideEffects. */
static VT *force_lazy_list(Tracer *tr, VT *lz) {
    ListObj *l = AS_LIST(lz->value);
    VT *r = vt_new(tr, VT_LIST);
    r->value = lz->value;
    r->source = lz->source;
    r->mut = MUT_EXISTING;
    guard_len(tr, lz->source, l->len);
    vt_reserve(tr, r, (int32_t)(l->len + lz->n) + 1);
    for (int64_t i = 0; i < l->len; i++) r->items[i] = vt_lazy(tr, l->items[i], source_item(tr, lz->source, val_int(i)));
    r->n = (int32_t)l->len;
    for (int i = 0; i < lz->n; i++) r->items[r->n++] = lz->items[i];
    if (lz->n) {
        r->modified = true;
        r->index = lz->index;
    }
    for (int i = 0; i < tr->se.n_tracked; i++)
        if (tr->se.tracked[i] == lz) tr->se.tracked[i] = r;
    return r;
}

VT *vt_force(Tracer *tr, VT *v) {
    if (!v || (v->kind != VT_LAZY && v->kind != VT_LAZY_LIST)) return v;
    if (!v->a) v->a = v->kind == VT_LAZY ? vt_from_value(tr, v->value, v->source) : force_lazy_list(tr, v);
    return v->a;
}

bool vt_lazy_list_append(Tracer *tr, VT *lz, VT *item) {
    if (lz->kind != VT_LAZY_LIST || lz->a) return false;
    vt_reserve(tr, lz, lz->n + 1);
    lz->items[lz->n++] = item;
    lz->modified = true;
    lz->index = tr_current_line(tr);
    return true;
}

VT *vt_item(Tracer *tr, VT *c, int i) {
    VT *v = vt_force(tr, c->items[i]);
    c->items[i] = v;
    return v;
}

Value vt_to_value(Tracer *tr, VT *v, const char **why) {
    VM *vm = tr->vm;
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_CONST: return v->value;
    case VT_TENSOR: return v->fake;
    case VT_TUPLE: case VT_LIST: {
        if (v->kind == VT_LIST && !val_is_null(v->value) && !v->modified) return v->value;
        Value *items = calloc((size_t)(v->n ? v->n : 1), sizeof(Value));
        for (int i = 0; i < v->n; i++) {
            items[i] = vt_to_value(tr, vt_item(tr, v, i), why);
            if (val_is_null(items[i])) {
                free(items);
                return val_null();
            }
        }
        Obj *o = v->kind == VT_TUPLE ? (Obj *)tuple_from_array(vm, items, v->n) : (Obj *)list_from_array(vm, items, v->n);
        free(items);
        if (!o) {
            vm_clear_exc(vm);
            *why = "out of memory";
            return val_null();
        }
        tr_keep(tr, val_obj(o));
        return val_obj(o);
    }
    case VT_SLICE: {
        Value p[3];
        for (int i = 0; i < 3; i++) {
            p[i] = vt_to_value(tr, vt_item(tr, v, i), why);
            if (val_is_null(p[i])) return val_null();
        }
        Value s = slice_new(vm, p[0], p[1], p[2]);
        if (val_is_null(s)) {
            vm_clear_exc(vm);
            *why = "out of memory";
            return s;
        }
        tr_keep(tr, s);
        return s;
    }
    case VT_SYMNUM:
        *why = "a symbolic number";
        return val_null();
    case VT_DICT:
        if (!val_is_null(v->value) && !v->modified) return v->value;
        *why = "a dict built or changed in the region";
        return val_null();
    case VT_OBJECT: case VT_FUNCTION: case VT_NATIVE: case VT_TYPE: case VT_MODULE: case VT_NN_MODULE:
    case VT_CELL: case VT_OPAQUE:
        if (!val_is_null(v->value) && !(v->kind == VT_OBJECT && v->mut == MUT_NEW)) return v->value;
        *why = "an object created in the region";
        return val_null();
    default:
        *why = vt_kind_name(v->kind);
        return val_null();
    }
}
