/* vm/dict_methods.c — the script-visible dict: construction, methods (get, setdefault, pop,
 * popitem, update, keys/values/items views, fromkeys, copy, clear), operators (|, ==), repr,
 * and the collections types built on it: defaultdict and OrderedDict. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define SELF AS_DICT(argv[0])

extern Value iter_dict(VM *vm, DictObj *d, int kind);
extern Value iter_new(VM *vm, IterNextFn next, Value a, Value b, int64_t i, int64_t n);

/* ---- update from mappings and pair iterables ------------------------------------------------ */

int dict_update(VM *vm, DictObj *d, Value other) {
    if (val_is_obj(other) && vm_isinstance_type(vm, other, vm->t_dict))
        return dict_merge_dict(vm, d, AS_DICT(other));
    /* a mapping: has keys() */
    StrObj *keys_name = vm_intern_str(vm, "keys");
    Value keys = vm_getattr_opt(vm, other, keys_name);
    if (!val_is_null(keys)) {
        vm_push_root(vm, keys);
        Value ks = vm_call0(vm, keys);
        vm_pop_root(vm);
        if (val_is_null(ks)) return -1;
        vm_push_root(vm, ks);
        ListObj *l = vm_list_from_iterable(vm, ks);
        vm_pop_root(vm);
        if (!l) return -1;
        vm_push_root(vm, val_obj(l));
        for (int64_t i = 0; i < l->len; i++) {
            Value v = vm_getitem(vm, other, l->items[i]);
            if (val_is_null(v) || dict_set(vm, d, l->items[i], v) < 0) {
                vm_pop_root(vm);
                return -1;
            }
        }
        vm_pop_root(vm);
        return 0;
    }
    if (!val_is_null(vm->exc)) return -1;
    Value it = vm_iter(vm, other);
    if (val_is_null(it)) return -1;
    vm_push_root(vm, it);
    int64_t idx = 0;
    for (;; idx++) {
        Value item = vm_next(vm, it);
        if (val_is_null(item)) break;
        vm_push_root(vm, item);
        ListObj *pair = vm_list_from_iterable(vm, item);
        vm_pop_root(vm);
        if (!pair) {
            if (vm_exc_matches(vm, vm->e_TypeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "cannot convert dictionary update sequence element #%lld to a sequence",
                         (long long)idx);
            }
            break;
        }
        if (pair->len != 2) {
            vm_raise(vm, vm->e_ValueError, "dictionary update sequence element #%lld has length %lld; 2 is required",
                     (long long)idx, (long long)pair->len);
            break;
        }
        vm_push_root(vm, val_obj(pair));
        int rc = dict_set(vm, d, pair->items[0], pair->items[1]);
        vm_pop_root(vm);
        if (rc < 0) break;
    }
    vm_pop_root(vm);
    return val_is_null(vm->exc) ? 0 : -1;
}

static int update_with_kwargs(VM *vm, DictObj *d, int argc, Value *argv, TupleObj *kw) {
    if (argc > 1 && dict_update(vm, d, argv[1]) < 0) return -1;
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (dict_set(vm, d, kw->items[k], argv[argc + k]) < 0) return -1;
    return 0;
}

/* ---- methods ------------------------------------------------------------------------------------ */

static Value d_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = dict_new_typed(vm, AS_TYPE(argv[0]));
    return d ? val_obj(d) : val_null();
}

static Value d_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "dict expected at most 1 argument, got %d", argc - 1);
    return update_with_kwargs(vm, SELF, argc, argv, kw) < 0 ? val_null() : val_none();
}

static Value d_getitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__getitem__", argc, kw, 2, 2) < 0) return val_null();
    Value out;
    int r = dict_lookup(vm, SELF, argv[1], &out);
    if (r > 0) return out;
    if (r < 0) return val_null();
    TypeObj *t = vm_type_of(vm, argv[0]);
    if (t != vm->t_dict) {
        Value missing = type_special(vm, t, SP_MISSING);
        if (!val_is_null(missing)) return vm_call_special(vm, argv[0], SP_MISSING, 1, &argv[1]);
    }
    return vm_raise_key_error(vm, argv[1]);
}

static Value d_setitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__setitem__", argc, kw, 3, 3) < 0) return val_null();
    return dict_set(vm, SELF, argv[1], argv[2]) < 0 ? val_null() : val_none();
}

static Value d_delitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__delitem__", argc, kw, 2, 2) < 0) return val_null();
    int r = dict_del(vm, SELF, argv[1], NULL);
    if (r < 0) return val_null();
    if (r == 0) return vm_raise_key_error(vm, argv[1]);
    return val_none();
}

static Value d_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value out;
    int r = dict_lookup(vm, SELF, argv[1], &out);
    return r < 0 ? val_null() : val_bool(r);
}

static Value d_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(SELF->used); }

static Value d_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return iter_dict(vm, SELF, 0); }

static Value d_get(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "get", argc, kw, 2, 3) < 0) return val_null();
    Value out;
    int r = dict_lookup(vm, SELF, argv[1], &out);
    if (r < 0) return val_null();
    if (r) return out;
    return argc == 3 ? argv[2] : val_none();
}

static Value d_setdefault(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "setdefault", argc, kw, 2, 3) < 0) return val_null();
    Value out;
    int r = dict_lookup(vm, SELF, argv[1], &out);
    if (r < 0) return val_null();
    if (r) return out;
    Value dv = argc == 3 ? argv[2] : val_none();
    return dict_set(vm, SELF, argv[1], dv) < 0 ? val_null() : dv;
}

static Value d_pop(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "pop", argc, kw, 2, 3) < 0) return val_null();
    Value old;
    int r = dict_del(vm, SELF, argv[1], &old);
    if (r < 0) return val_null();
    if (r) return old;
    if (argc == 3) return argv[2];
    return vm_raise_key_error(vm, argv[1]);
}

static Value d_popitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "popitem", argc, kw, 1, 1) < 0) return val_null();
    DictEntry *e = dict_last_entry(SELF);
    if (!e) return vm_raise(vm, vm->e_KeyError, "popitem(): dictionary is empty");
    TupleObj *t = tuple_pack(vm, 2, e->key, e->value);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    int r = dict_del(vm, SELF, t->items[0], NULL);
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_obj(t);
}

static Value d_update(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "update expected at most 1 argument, got %d", argc - 1);
    return update_with_kwargs(vm, SELF, argc, argv, kw) < 0 ? val_null() : val_none();
}

static Value d_clear(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    dict_clear(vm, SELF);
    return val_none();
}

static Value d_copy(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = dict_copy(vm, SELF);
    return d ? val_obj(d) : val_null();
}

static Value d_fromkeys(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "fromkeys", argc, kw, 2, 3) < 0) return val_null();
    Value d = vm_call0(vm, argv[0]);
    if (val_is_null(d)) return d;
    vm_push_root(vm, d);
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) {
        vm_pop_root(vm);
        return it;
    }
    vm_push_root(vm, it);
    Value v = argc == 3 ? argv[2] : val_none();
    for (;;) {
        Value k = vm_next(vm, it);
        if (val_is_null(k)) break;
        if (vm_setitem(vm, d, k, v) < 0) break;
    }
    vm_pop_roots(vm, 2);
    return val_is_null(vm->exc) ? d : val_null();
}

static Value d_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = SELF;
    int e = repr_enter(vm, argv[0].as.o);
    if (e < 0) return val_null();
    if (e == 1) return vm_intern(vm, "{...}");
    StrBuf b;
    sb_init(&b);
    sb_addc(&b, '{');
    bool first = true, ok = true;
    for (int64_t i = 0; i < d->nentries; i++) {
        DictEntry *en = &d->entries[i];
        if (val_is_null(en->key)) continue;
        Value k = en->key, v = en->value;
        vm_push_root(vm, v);
        Value kr = vm_repr(vm, k);
        if (val_is_null(kr)) {
            vm_pop_root(vm);
            ok = false;
            break;
        }
        vm_push_root(vm, kr);
        Value vr = vm_repr(vm, v);
        vm_pop_roots(vm, 2);
        if (val_is_null(vr)) {
            ok = false;
            break;
        }
        if (!first) sb_adds(&b, ", ");
        first = false;
        sb_add_str(&b, AS_STR(kr));
        sb_adds(&b, ": ");
        sb_add_str(&b, AS_STR(vr));
    }
    repr_leave(vm, argv[0].as.o);
    if (!ok) {
        sb_free(&b);
        return val_null();
    }
    sb_addc(&b, '}');
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value d_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_dict)) return vm->not_implemented;
    DictObj *a = SELF, *b = AS_DICT(argv[1]);
    if (a->used != b->used) return val_bool(false);
    for (int64_t i = 0; i < a->nentries; i++) {
        DictEntry *e = &a->entries[i];
        if (val_is_null(e->key)) continue;
        Value k = e->key, av = e->value, bv;
        vm_push_root(vm, k);
        vm_push_root(vm, av);
        int r = dict_lookup(vm, b, k, &bv);
        if (r <= 0) {
            vm_pop_roots(vm, 2);
            return r < 0 ? val_null() : val_bool(false);
        }
        int eq = vm_eq(vm, av, bv);
        vm_pop_roots(vm, 2);
        if (eq < 0) return val_null();
        if (!eq) return val_bool(false);
    }
    return val_bool(true);
}

static Value d_ne(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value r = d_eq(vm, argc, argv, kw, fn);
    if (val_is_null(r) || val_identical(r, vm->not_implemented)) return r;
    return val_bool(!r.as.b);
}

static Value d_or(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_dict)) return vm->not_implemented;
    DictObj *d = dict_copy(vm, SELF);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int rc = dict_merge_dict(vm, d, AS_DICT(argv[1]));
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(d);
}

static Value d_ior(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return dict_update(vm, SELF, argv[1]) < 0 ? val_null() : argv[0];
}

static Value d_reversed(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *keys = vm_list_from_iterable(vm, argv[0]);
    if (!keys) return val_null();
    vm_push_root(vm, val_obj(keys));
    int64_t n = keys->len;
    for (int64_t i = 0; i < n / 2; i++) {
        Value t = keys->items[i];
        keys->items[i] = keys->items[n - 1 - i];
        keys->items[n - 1 - i] = t;
    }
    Value it = vm_iter(vm, val_obj(keys));
    vm_pop_root(vm);
    if (!val_is_null(it)) it.as.o->type = vm->t_dict_reversekeyiterator;
    return it;
}

/* ---- views ------------------------------------------------------------------------------------- */


static void view_trace(VM *vm, Obj *o) { gc_mark(vm, ((DictViewObj *)o)->dict); }

static Value make_view(VM *vm, DictObj *d, int kind) {
    TypeObj *vt = kind == 0 ? vm->t_dict_keys : kind == 1 ? vm->t_dict_values : vm->t_dict_items;
    DictViewObj *v = gc_alloc(vm, vt, sizeof(DictViewObj));
    if (!v) return val_null();
    v->dict = d;
    v->kind = kind;
    return val_obj(v);
}

static Value d_keys(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return make_view(vm, SELF, 0); }
static Value d_values(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return make_view(vm, SELF, 1); }
static Value d_items(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return make_view(vm, SELF, 2); }

Value dictview_iter(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return val_null();
    TypeObj *vt = v.as.o->type;
    if (vt == vm->t_dict_keys || vt == vm->t_dict_values || vt == vm->t_dict_items) {
            DictViewObj *dv = (DictViewObj *)v.as.o;
            return iter_dict(vm, dv->dict, dv->kind);
        }
    return val_null();
}

/* keys() and items() views act as sets: view op other == set(view) op set(other), either
 * side being the view (data: the BinaryOp; __r*__ methods swap the operands first). */
static Value v_setop(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int op = (int)((intptr_t)fn->data & 0xff);
    bool reflected = ((intptr_t)fn->data & 0x100) != 0;
    Value a = reflected ? argv[1] : argv[0], b = reflected ? argv[0] : argv[1];
    if (val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_ITER))) return vm->not_implemented;
    SetObj *sa = set_new(vm, vm->t_set);
    if (!sa) return val_null();
    vm_push_root(vm, val_obj(sa));
    SetObj *sb = set_update(vm, sa, a) < 0 ? NULL : set_new(vm, vm->t_set);
    if (!sb) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(sb));
    Value r = set_update(vm, sb, b) < 0 ? val_null() : vm_binary_op(vm, op, val_obj(sa), val_obj(sb));
    vm_pop_roots(vm, 2);
    return r;
}

static Value v_isdisjoint(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "isdisjoint", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = vm_list_from_iterable(vm, argv[1]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < l->len; i++) {
        int c = vm_contains(vm, argv[0], l->items[i]);
        if (c != 0) {
            vm_pop_root(vm);
            return c < 0 ? val_null() : val_bool(false);
        }
    }
    vm_pop_root(vm);
    return val_bool(true);
}

#define VIEW ((DictViewObj *)argv[0].as.o)
static Value v_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(VIEW->dict->used); }
static Value v_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return iter_dict(vm, VIEW->dict, VIEW->kind);
}
static Value v_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictViewObj *dv = VIEW;
    Value out;
    if (dv->kind == 0) {
        int r = dict_lookup(vm, dv->dict, argv[1], &out);
        return r < 0 ? val_null() : val_bool(r);
    }
    if (dv->kind == 2) {
        if (!val_is_type(vm, argv[1], vm->t_tuple) || AS_TUPLE(argv[1])->len != 2) return val_bool(false);
        int r = dict_lookup(vm, dv->dict, AS_TUPLE(argv[1])->items[0], &out);
        if (r <= 0) return r < 0 ? val_null() : val_bool(false);
        int eq = vm_eq(vm, out, AS_TUPLE(argv[1])->items[1]);
        return eq < 0 ? val_null() : val_bool(eq);
    }
    for (int64_t i = 0; i < dv->dict->nentries; i++) {
        DictEntry *e = &dv->dict->entries[i];
        if (val_is_null(e->key)) continue;
        int eq = vm_eq(vm, e->value, argv[1]);
        if (eq) return eq < 0 ? val_null() : val_bool(true);
    }
    return val_bool(false);
}
static Value v_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *l = vm_list_from_iterable(vm, argv[0]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value r = vm_repr(vm, val_obj(l));
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "%s(%s)", vm_type_name(vm, argv[0]), AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}
static Value v_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    /* keys/items views compare like sets */
    if (VIEW->kind == 1) return vm->not_implemented;
    SetObj *a = set_new(vm, vm->t_set);
    if (!a) return val_null();
    vm_push_root(vm, val_obj(a));
    SetObj *b = set_new(vm, vm->t_set);
    if (!b) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(b));
    Value r = val_null();
    if (set_update(vm, a, argv[0]) == 0 && set_update(vm, b, argv[1]) == 0)
        r = vm_compare(vm, CMP_EQ, val_obj(a), val_obj(b));
    vm_pop_roots(vm, 2);
    return r;
}
static Value v_mapping(VM *vm, Value s, void *c) { return val_obj(((DictViewObj *)s.as.o)->dict); }

/* ---- defaultdict and OrderedDict ------------------------------------------------------------- */

static Value dd_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = SELF;
    int rest = 1;
    if (argc > 1) {
        if (!val_is_none(argv[1]) && !vm_is_callable(vm, argv[1]))
            return vm_raise(vm, vm->e_TypeError, "first argument must be callable or None");
        d->default_factory = argv[1];
        rest = 2;
    } else {
        d->default_factory = val_none();
    }
    if (argc > rest + 1) return vm_raise(vm, vm->e_TypeError, "defaultdict expected at most 2 arguments");
    Value args[2] = {argv[0], argc > rest ? argv[rest] : val_null()};
    return update_with_kwargs(vm, d, argc > rest ? 2 : 1, args, kw) < 0 ? val_null() : val_none();
}

static Value dd_missing(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = SELF;
    if (val_is_null(d->default_factory) || val_is_none(d->default_factory)) return vm_raise_key_error(vm, argv[1]);
    Value v = vm_call0(vm, d->default_factory);
    if (val_is_null(v)) return v;
    vm_push_root(vm, v);
    int rc = dict_set(vm, d, argv[1], v);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : v;
}

static Value dd_get_factory(VM *vm, Value s, void *c) {
    Value f = AS_DICT(s)->default_factory;
    return val_is_null(f) ? val_none() : f;
}
static int dd_set_factory(VM *vm, Value s, Value v, void *c) {
    AS_DICT(s)->default_factory = val_is_null(v) ? val_none() : v;
    return 0;
}

static Value dd_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value body = d_repr(vm, argc, argv, kw, fn);
    if (val_is_null(body)) return body;
    vm_push_root(vm, body);
    Value f = AS_DICT(argv[0])->default_factory;
    Value fr = (val_is_null(f) || val_is_none(f)) ? vm_intern(vm, "None") : vm_repr(vm, f);
    if (!val_is_null(fr) && val_is_obj(f) && vm_isinstance_type(vm, f, vm->t_type))
        fr = vm_getattr_c(vm, f, "__name__"), fr = val_is_null(fr) ? fr : vm_str(vm, fr);
    vm_pop_root(vm);
    if (val_is_null(fr)) return fr;
    /* CPython prints defaultdict(<class 'list'>, {...}) */
    if (val_is_obj(f) && vm_isinstance_type(vm, f, vm->t_type)) {
        StrObj *s = str_printf(vm, "defaultdict(<class '%s'>, %s)", AS_STR(fr)->data, AS_STR(body)->data);
        return s ? val_obj(s) : val_null();
    }
    StrObj *s = str_printf(vm, "defaultdict(%s, %s)", AS_STR(fr)->data, AS_STR(body)->data);
    return s ? val_obj(s) : val_null();
}

/* defaultdict: (type(dd), (default_factory,) or (), None, None, iter(dd.items())), so pickle and
 * copy keep the factory; OrderedDict (fn->data set): (type(od), (), state, None, iter(od.items())),
 * the order kept by the items, state a copy of the instance's attributes or None when it has
 * none (CPython's odict_reduce: a state_dict's _metadata survives pickling). */
static Value dd_reduce_with(VM *vm, Value *argv, NativeObj *fn, Value state);

static Value dd_reduce(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value state = val_none();
    DictObj *attrs = AS_DICT(argv[0])->dict;
    if (fn->data && attrs && attrs->used) {
        DictObj *c = dict_copy(vm, attrs);
        if (!c) return val_null();
        state = val_obj(c);
    }
    vm_push_root(vm, state);
    Value r = dd_reduce_with(vm, argv, fn, state);
    vm_pop_root(vm);
    return r;
}

static Value dd_reduce_with(VM *vm, Value *argv, NativeObj *fn, Value state) {
    Value f = fn->data ? val_null() : AS_DICT(argv[0])->default_factory;
    bool none = val_is_null(f) || val_is_none(f);
    TupleObj *args = none ? tuple_new(vm, 0) : tuple_pack(vm, 1, f);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    Value items = make_view(vm, SELF, 2);
    Value it = val_is_null(items) ? items : (vm_push_root(vm, items), vm_iter(vm, items));
    if (!val_is_null(items)) vm_pop_root(vm);
    TupleObj *r = NULL;
    if (!val_is_null(it)) {
        vm_push_root(vm, it);
        r = tuple_pack(vm, 5, val_obj(vm_type_of(vm, argv[0])), val_obj(args), state, val_none(), it);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

static Value od_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = SELF;
    if (d->used == 0) {
        StrObj *s = str_printf(vm, "%s()", vm_type_name(vm, argv[0]));
        return s ? val_obj(s) : val_null();
    }
    Value items = make_view(vm, d, 2);
    if (val_is_null(items)) return items;
    vm_push_root(vm, items);
    ListObj *l = vm_list_from_iterable(vm, items);
    vm_pop_root(vm);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value r = vm_repr(vm, val_obj(l));
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "%s(%s)", vm_type_name(vm, argv[0]), AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value od_move_to_end(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "key", "last"};
    Value a[3];
    if (native_parse_args(vm, "move_to_end", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    bool last = true;
    if (!val_is_null(a[2])) {
        int t = vm_truthy(vm, a[2]);
        if (t < 0) return val_null();
        last = t;
    }
    DictObj *d = SELF;
    Value v;
    int r = dict_del(vm, d, a[1], &v);
    if (r < 0) return val_null();
    if (r == 0) return vm_raise_key_error(vm, a[1]);
    vm_push_root(vm, v);
    if (last) {
        r = dict_set(vm, d, a[1], v);
    } else {
        DictObj *copy = dict_copy(vm, d);
        r = -1;
        if (copy) {
            vm_push_root(vm, val_obj(copy));
            dict_clear(vm, d);
            r = dict_set(vm, d, a[1], v);
            if (r == 0) r = dict_merge_dict(vm, d, copy);
            vm_pop_root(vm);
        }
    }
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_none();
}

static Value od_popitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "last"};
    Value a[2];
    if (native_parse_args(vm, "popitem", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    bool last = true;
    if (!val_is_null(a[1])) {
        int t = vm_truthy(vm, a[1]);
        if (t < 0) return val_null();
        last = t;
    }
    DictObj *d = SELF;
    if (d->used == 0) return vm_raise(vm, vm->e_KeyError, "dictionary is empty");
    DictEntry *e = NULL;
    if (last) e = dict_last_entry(d);
    else
        for (int64_t i = 0; i < d->nentries && !e; i++)
            if (!val_is_null(d->entries[i].key)) e = &d->entries[i];
    TupleObj *t = tuple_pack(vm, 2, e->key, e->value);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    int r = dict_del(vm, d, t->items[0], NULL);
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_obj(t);
}

void dict_init_type(VM *vm) {
    TypeObj *td = vm->t_dict;
    static const MethodDef m[] = {
        {"__new__", d_new, NATIVEF_STATIC}, {"__init__", d_init, NATIVEF_METHOD},
        {"__getitem__", d_getitem, NATIVEF_METHOD}, {"__setitem__", d_setitem, NATIVEF_METHOD},
        {"__delitem__", d_delitem, NATIVEF_METHOD}, {"__contains__", d_contains, NATIVEF_METHOD},
        {"__len__", d_len, NATIVEF_METHOD}, {"__iter__", d_iter, NATIVEF_METHOD},
        {"__repr__", d_repr, NATIVEF_METHOD}, {"__eq__", d_eq, NATIVEF_METHOD}, {"__ne__", d_ne, NATIVEF_METHOD},
        {"__or__", d_or, NATIVEF_METHOD}, {"__ior__", d_ior, NATIVEF_METHOD},
        {"__reversed__", d_reversed, NATIVEF_METHOD},
        {"get", d_get, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"setdefault", d_setdefault, NATIVEF_METHOD | ARITY_POS(1, 2)},
        {"pop", d_pop, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"popitem", d_popitem, NATIVEF_METHOD | ARITY_NOARGS},
        {"update", d_update, NATIVEF_METHOD}, {"clear", d_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"copy", d_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"keys", d_keys, NATIVEF_METHOD | ARITY_NOARGS},
        {"values", d_values, NATIVEF_METHOD | ARITY_NOARGS}, {"items", d_items, NATIVEF_METHOD | ARITY_NOARGS},
        {"fromkeys", d_fromkeys, NATIVEF_CLASSMETHOD | ARITY_POS(1, 2)}, {NULL}};
    td->alloc = vm->t_defaultdict->alloc = vm->t_ordereddict->alloc = dict_alloc;
    /* the collections types share dict's layout: its entries must be traced and freed */
    vm->t_defaultdict->trace = vm->t_ordereddict->trace = td->trace;
    vm->t_defaultdict->finalize = vm->t_ordereddict->finalize = td->finalize;
    if (type_add_methods(vm, td, m) < 0 || dict_set_c(vm, td->dict, "__hash__", val_none()) < 0) EM_UNREACHABLE();
    static const MethodDef view_m[] = {
        {"__len__", v_len, NATIVEF_METHOD}, {"__iter__", v_iter, NATIVEF_METHOD},
        {"__contains__", v_contains, NATIVEF_METHOD}, {"__repr__", v_repr, NATIVEF_METHOD},
        {"__eq__", v_eq, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef view_gs[] = {{"mapping", v_mapping, NULL}, {NULL}};
#define SETOP(n, op) {"__" n "__", v_setop, NATIVEF_METHOD, (void *)(intptr_t)(op)}, \
        {"__r" n "__", v_setop, NATIVEF_METHOD, (void *)(intptr_t)((op) | 0x100)}
    static const MethodDef setview_m[] = {
        SETOP("and", BINOP_AND), SETOP("or", BINOP_OR), SETOP("sub", BINOP_SUBTRACT), SETOP("xor", BINOP_XOR),
        {"isdisjoint", v_isdisjoint, NATIVEF_METHOD}, {NULL}};
#undef SETOP
    TypeObj *views[3] = {vm->t_dict_keys, vm->t_dict_values, vm->t_dict_items};
    for (int k = 0; k < 3; k++) {
        views[k]->trace = view_trace;
        if (type_add_methods(vm, views[k], view_m) < 0 || type_add_getsets(vm, views[k], view_gs) < 0 ||
            (k != 1 && type_add_methods(vm, views[k], setview_m) < 0))
            EM_UNREACHABLE();
    }
    static const MethodDef dd_m[] = {
        {"__init__", dd_init, NATIVEF_METHOD}, {"__missing__", dd_missing, NATIVEF_METHOD},
        {"__repr__", dd_repr, NATIVEF_METHOD}, {"__reduce__", dd_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef dd_gs[] = {{"default_factory", dd_get_factory, dd_set_factory}, {NULL}};
    static const MethodDef od_m[] = {
        {"__repr__", od_repr, NATIVEF_METHOD}, {"move_to_end", od_move_to_end, NATIVEF_METHOD},
        {"popitem", od_popitem, NATIVEF_METHOD}, {"__reduce__", dd_reduce, NATIVEF_METHOD | ARITY_NOARGS, (void *)1}, {NULL}};
    if (type_add_methods(vm, vm->t_defaultdict, dd_m) < 0 || type_add_getsets(vm, vm->t_defaultdict, dd_gs) < 0 ||
        type_add_methods(vm, vm->t_ordereddict, od_m) < 0)
        EM_UNREACHABLE();
}

/* _collections: the C types behind collections.OrderedDict and collections.defaultdict. */
int deque_module_add(VM *vm, Value mod);   /* vm/mod_deque.c: deque, _count_elements, _tuplegetter */

int collections_module_init(VM *vm, Value mod) {
    if (module_set(vm, mod, "OrderedDict", val_obj(vm->t_ordereddict)) < 0 ||
        module_set(vm, mod, "defaultdict", val_obj(vm->t_defaultdict)) < 0)
        return -1;
    return deque_module_add(vm, mod);
}
