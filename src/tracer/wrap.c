/* src/tracer/wrap.c — trackers and the real values they stand for.  Wrapping a value read from
 * a source (vt_from_value) decides how far the tracer specialises on each kind and installs the
 * matching guards: tensors become graph inputs with fake twins (fake.c), ints read from
 * attributes and globals and all floats stay symbolic, other immutables are constants, mutable
 * containers and objects are tracked by identity (side_effects.c), an existing list is lazy
 * until the region reads it.  The other way, a tracker gives a real value to pass to a native
 * (vt_to_value), a constant (vt_as_constant), its Python type, and a symbolic number specialises
 * on its value (tr_specialize).  Results of natives come back as trackers (vt_from_result). */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "vm/mod_functools.h"
#include "vm/dict.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- values <-> trackers ------------------------------------------------------------------------------ */

/* An existing plain partial with a source: its parts read through that source (each guarded as
 * what it is), its type guarded.  NULL: not a plain partial, or no source to read it through. */
static VT *partial_existing(Tracer *tr, Value v, Source *source) {
    VM *vm = tr->vm;
    Value fn;
    TupleObj *args;
    DictObj *kw;
    if (!source || !functools_partial_parts(v, &fn, &args, &kw)) return NULL;
    guard_type(tr, source, v.as.o->type);
    VT *p = vt_new(tr, VT_PARTIAL);
    p->value = v;
    p->source = source;
    p->cls = vt_from_value(tr, val_obj(v.as.o->type), NULL);
    p->a = vt_from_value(tr, fn, source_attr(tr, source, vm_intern_str(vm, "func")));
    p->b = vt_from_value(tr, val_obj(args), source_attr(tr, source, vm_intern_str(vm, "args")));
    p->kw = vt_from_value(tr, val_obj(kw), source_attr(tr, source, vm_intern_str(vm, "keywords")));
    p->mut = MUT_NONE;
    return p;
}

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
static void guard_leaves(Tracer *tr, VT *v);   /* below: guards every leaf of a symbolic number on its value */

static bool unspecialized_source(const Source *s) {
    return s && (s->kind == SRC_ATTR || s->kind == SRC_GLOBAL);
}

/* An existing set of constants: tracked with its members, guarded equal to a copy (its order is
 * its own while the region does not change it).  NULL when a member is not a constant. */
static VT *existing_set(Tracer *tr, Value v, Source *source) {
    VM *vm = tr->vm;
    SetObj *real = (SetObj *)v.as.o;
    VT *r = vt_new(tr, VT_SET);
    r->value = v;
    r->source = source;
    r->mut = MUT_EXISTING;
    SetObj *sh = set_new(vm, vm->t_set);
    if (!sh) {
        vm_clear_exc(vm);
        return NULL;
    }
    r->shadow = val_obj(sh);
    trace_keep(tr, r->shadow);
    int64_t pos = 0;
    Value k;
    while (set_next(real, &pos, &k)) {
        if (!is_immediate_const(vm, k) && !is_const_tuple(vm, k)) return NULL;
        vt_list_append(tr, r, vt_const(tr, k));
        if (set_add(vm, sh, k) < 0) {
            vm_clear_exc(vm);
            return NULL;
        }
    }
    if (source) {
        guard_type(tr, source, vm->t_set);
        SetObj *copy = set_new(vm, vm->t_set);
        if (!copy || set_update(vm, copy, v) < 0) {
            vm_clear_exc(vm);
            return NULL;
        }
        trace_keep(tr, val_obj(copy));
        guard_equals(tr, source, val_obj(copy));
    }
    return r;
}

VT *vt_from_value(Tracer *tr, Value v, Source *source) {
    VM *vm = tr->vm;
    TorchState *ts = torch_state(vm);
    trace_keep(tr, v);
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
    /* torch.float32, torch.device('cpu'), torch.channels_last: constants of the graph, guarded by id */
    bool torch_const = ts && v.tag == VAL_OBJ &&
                       (v.as.o->type == ts->t_dtype || v.as.o->type == ts->t_device || v.as.o->type == ts->t_memory_format);
    if (is_immediate_const(vm, v) || is_const_tuple(vm, v) || torch_const) {
        VT *r = vt_const(tr, v);
        r->source = source;
        if (source) {
            if (torch_const || (v.tag == VAL_OBJ && v.as.o->type == vm->t_code))
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
            trace_keep(tr, v);
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
    if (t == vm->t_set) {
        VT *known = se_find_existing(tr, v);
        if (known) return known;
        VT *r = existing_set(tr, v, source);
        if (r) return se_track_existing(tr, r);
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
    if (functools_is_partial_type(t) && (r = partial_existing(tr, v, source))) return r;
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

VT *vt_item(Tracer *tr, VT *c, int i) {
    VT *v = vt_force(tr, c->items[i]);
    c->items[i] = v;
    return v;
}

/* Whether every item of a list / tuple / dict tracker (recursively) is a constant, so the real
 * container can stand for it.  A tensor in it must reach a native as its fake: handed the real
 * container, the native runs on the real tensors, the window records them as constants of the
 * graph, and every later call under the same guards reuses the first call's tensors
 * (torch.stack(lst) returned the first call's stack). */
static bool holds_only_constants(Tracer *tr, VT *v, int depth) {
    v = vt_force(tr, v);
    if (v->kind == VT_CONST) return true;
    if ((v->kind != VT_LIST && v->kind != VT_TUPLE && v->kind != VT_DICT) || depth > 8) return false;
    for (int i = 0; i < v->n; i++) {
        if (v->kind == VT_DICT && !holds_only_constants(tr, v->keys[i], depth + 1)) return false;
        if (!holds_only_constants(tr, vt_item(tr, v, i), depth + 1)) return false;
    }
    return true;
}

Value vt_to_value(Tracer *tr, VT *v, const char **why) {
    VM *vm = tr->vm;
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_CONST: return v->value;
    case VT_TENSOR: return v->fake;
    case VT_TUPLE: case VT_LIST: {
        if (v->kind == VT_LIST && !val_is_null(v->value) && !v->modified && holds_only_constants(tr, v, 0))
            return v->value;
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
        trace_keep(tr, val_obj(o));
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
        trace_keep(tr, s);
        return s;
    }
    case VT_SYMNUM:
        /* a native needs the number itself (a pooling kernel size read from a module attribute):
         * specialise on it, as dynamo does for an int an op cannot take symbolically */
        guard_leaves(tr, v);
        return v->value;
    case VT_SET: {
        if (!val_is_null(v->value) && !v->modified) return v->value;
        if (val_is_null(v->shadow)) {
            *why = "a set of objects built or changed in the region";
            return val_null();
        }
        Value s = vm_call1(vm, val_obj(vm->t_set), v->shadow);   /* a copy: the native may keep it */
        if (val_is_null(s)) {
            vm_clear_exc(vm);
            *why = "out of memory";
            return s;
        }
        trace_keep(tr, s);
        return s;
    }
    case VT_DICT_VIEW: {
        /* the real dict's view, while the dict is the real one unchanged */
        VT *d = vt_force(tr, v->a);
        if (val_is_null(d->value) || d->modified) {
            *why = "a view of a dict built or changed in the region";
            return val_null();
        }
        static const char *const names[] = {"keys", "values", "items"};
        Value r = vm_call_method(vm, d->value, names[v->index], 0, NULL);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            *why = "a dict view";
            return r;
        }
        trace_keep(tr, r);
        return r;
    }
    case VT_DICT:
        if (!val_is_null(v->value) && !v->modified && holds_only_constants(tr, v, 0)) return v->value;
        /* not rebuilt from the tracker: a native may change the dict it is given, which a copy
         * would not carry back */
        *why = v->modified || val_is_null(v->value) ? "a dict built or changed in the region"
                                                    : "a dict holding tensors or symbolic values";
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
    trace_keep(tr, val_obj(o));
    return val_obj(o);
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
    case VT_GENERATOR: return vm->t_generator;
    case VT_SET: return vm->t_set;
    case VT_EXCEPTION: case VT_PARTIAL: return v->cls && v->cls->kind == VT_TYPE ? (TypeObj *)v->cls->value.as.o : NULL;
    case VT_DICT_VIEW:
        return v->index == DICT_VIEW_KEYS ? vm->t_dict_keys : v->index == DICT_VIEW_VALUES ? vm->t_dict_values
                                                                                             : vm->t_dict_items;
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

/* ---- symbolic numbers -------------------------------------------------------------------------- */

static void guard_leaves(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    if (!v || v->kind != VT_SYMNUM) return;
    if (v->sym == SYM_LEAF) {
        if (v->source) guard_equals(tr, v->source, v->value);
        return;
    }
    guard_leaves(tr, v->a);
    guard_leaves(tr, v->b);
}

VT *tr_specialize(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    if (v->kind != VT_SYMNUM) return v;
    guard_leaves(tr, v);
    return vt_const(tr, v->value);
}

/* ---- results back to trackers ---------------------------------------------------------------------- */

VT *vt_from_result(Tracer *tr, Value v) {
    VM *vm = tr->vm;
    TorchState *ts = torch_state(vm);
    if (ts && v.tag == VAL_OBJ && vm_isinstance_type(vm, v, ts->t_tensor)) return fake_tensor_result(tr, v);
    if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_TUPLE &&
        !(ts && v.as.o->type == ts->t_size)) {
        TupleObj *t = AS_TUPLE(v);
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(t->len + 1));
        for (int64_t i = 0; i < t->len; i++) items[i] = vt_from_result(tr, t->items[i]);
        VT *r = vt_tuple(tr, items, (int)t->len);
        if (v.as.o->type != vm->t_tuple) r->value = v;   /* torch.return_types.*: keeps its type */
        return r;
    }
    if (v.tag == VAL_OBJ && v.as.o->type == vm->t_list) {
        ListObj *l = AS_LIST(v);
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(l->len + 1));
        for (int64_t i = 0; i < l->len; i++) items[i] = vt_from_result(tr, l->items[i]);
        return vt_list(tr, items, (int)l->len);
    }
    return vt_from_value(tr, v, NULL);
}
