/* vm/reduce.c — how objects pickle and copy: object.__reduce__, __reduce_ex__ and (3.11)
 * __getstate__ with CPython's rules (copyreg.__newobj__/__newobj_ex__ for protocol 2+, the
 * arguments from __getnewargs_ex__/__getnewargs__, the state from __getstate__: the instance
 * dict and the slot values, list and dict items as iterators), and BaseException's
 * __reduce__/__setstate__.  copy.py and pickle.py build on these. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value import_copyreg(VM *vm) {
    StrObj *name = vm_intern_str(vm, "copyreg");
    return name ? vm_import_name(vm, name, val_none(), val_int(0), vm->builtins) : val_null();
}

/* copyreg._slotnames(cls): the slot names of cls and its bases (mangled, without __dict__ and
 * __weakref__), cached as cls.__slotnames__. */
static Value slot_names(VM *vm, TypeObj *cls) {
    Value cached = dict_get_c(vm, cls->dict, "__slotnames__");
    if (!val_is_null(cached) && !val_is_none(cached)) return cached;
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < cls->mro->len; i++) {
        TypeObj *c = AS_TYPE(cls->mro->items[i]);
        for (int64_t k = 0; c->slots && k < c->slots->len; k++)
            if (list_append(vm, l, c->slots->items[k]) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
    }
    if (cls->flags & TYPEF_HEAPTYPE) {
        if (type_setattr(vm, cls, vm_intern_str(vm, "__slotnames__"), val_obj(l)) < 0) vm_clear_exc(vm);
    }
    vm_pop_root(vm);
    return val_obj(l);
}

/* Layouts whose instances pickle through their dict, slots and __getnewargs__ alone. */
static bool plain_layout(TypeObj *t) {
    switch (t->layout) {
    case OBJ_LAYOUT_INSTANCE: case OBJ_LAYOUT_LIST: case OBJ_LAYOUT_DICT: case OBJ_LAYOUT_SET:
    case OBJ_LAYOUT_EXCEPTION:
        return true;
    default:
        return false;
    }
}

/* object_getstate_default: the instance dict (None when empty), then (dict, slots) when slots
 * are set; `required`: refuse objects whose C state would be lost. */
static Value getstate_default(VM *vm, Value obj, bool required) {
    TypeObj *t = vm_type_of(vm, obj);
    if (required && !plain_layout(t))
        return vm_raise(vm, vm->e_TypeError, "cannot pickle '%s' object", t->name->data);
    Value state = val_none();
    DictObj **ds = val_is_obj(obj) ? obj_dict_slot(obj.as.o) : NULL;
    if (ds && *ds && (*ds)->used) state = val_obj(*ds);
    if (!t->nslotvals) return state;
    vm_push_root(vm, state);
    Value names = slot_names(vm, t);
    if (val_is_null(names)) {
        vm_pop_root(vm);
        return names;
    }
    vm_push_root(vm, names);
    DictObj *slots = dict_new(vm);
    Value r = val_null();
    if (!slots) goto done;
    vm_push_root(vm, val_obj(slots));
    ListObj *nl = AS_LIST(names);
    for (int64_t i = 0; i < nl->len; i++) {
        Value v = vm_getattr(vm, obj, AS_STR(nl->items[i]));
        if (val_is_null(v)) {
            if (!vm_exc_matches(vm, vm->e_AttributeError)) goto done2;
            vm_clear_exc(vm);
            continue;
        }
        if (dict_set(vm, slots, nl->items[i], v) < 0) goto done2;
    }
    if (slots->used) {
        TupleObj *t2 = tuple_pack(vm, 2, state, val_obj(slots));
        if (t2) r = val_obj(t2);
    } else {
        r = state;
    }
done2:
    vm_pop_root(vm);
done:
    vm_pop_roots(vm, 2);
    return r;
}

static Value object_getstate_fn(ARGS);

static bool is_native_fn(Value v, NativeFn f) {
    return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)v.as.o)->fn == f;
}

/* obj.__getstate__(), passing `required` when it is object's own (CPython's object_getstate) */
static Value getstate(VM *vm, Value obj, bool required) {
    Value gs = type_lookup(vm, vm_type_of(vm, obj), vm_intern_str(vm, "__getstate__"));
    if (val_is_null(gs) || is_native_fn(gs, object_getstate_fn)) return getstate_default(vm, obj, required);
    return vm_call_method(vm, obj, "__getstate__", 0, NULL);
}

static Value object_getstate_fn(ARGS) {
    if (native_check_args(vm, "__getstate__", argc, kw, 1, 1) < 0) return val_null();
    return getstate_default(vm, argv[0], false);
}

/* reduce_newobj: (copyreg.__newobj__, (cls, *args), state, listitems, dictitems) */
static Value reduce_newobj(VM *vm, Value obj) {
    TypeObj *t = vm_type_of(vm, obj);
    if (val_is_null(type_special(vm, t, SP_NEW)))
        return vm_raise(vm, vm->e_TypeError, "cannot pickle '%s' object", t->name->data);
    Value args = val_null(), kwargs = val_null();
    int nroots = 0;
    Value result = val_null();
    if (!val_is_null(type_lookup(vm, t, vm_intern_str(vm, "__getnewargs_ex__")))) {
        Value r = vm_call_method(vm, obj, "__getnewargs_ex__", 0, NULL);
        if (val_is_null(r)) return r;
        if (!val_is_type(vm, r, vm->t_tuple))
            return vm_raise(vm, vm->e_TypeError, "__getnewargs_ex__ should return a tuple, not '%s'", vm_type_name(vm, r));
        if (AS_TUPLE(r)->len != 2)
            return vm_raise(vm, vm->e_ValueError, "__getnewargs_ex__ should return a tuple of length 2, not %lld",
                            (long long)AS_TUPLE(r)->len);
        args = AS_TUPLE(r)->items[0];
        kwargs = AS_TUPLE(r)->items[1];
        vm_push_root(vm, r), nroots++;
        if (!val_is_type(vm, args, vm->t_tuple)) {
            vm_raise(vm, vm->e_TypeError, "first item of the tuple returned by __getnewargs_ex__ must be a tuple, not '%s'",
                     vm_type_name(vm, args));
            goto done;
        }
        if (!val_is_obj(kwargs) || !vm_isinstance_type(vm, kwargs, vm->t_dict)) {
            vm_raise(vm, vm->e_TypeError, "second item of the tuple returned by __getnewargs_ex__ must be a dict, not '%s'",
                     vm_type_name(vm, kwargs));
            goto done;
        }
    } else if (!val_is_null(type_lookup(vm, t, vm_intern_str(vm, "__getnewargs__")))) {
        args = vm_call_method(vm, obj, "__getnewargs__", 0, NULL);
        if (val_is_null(args)) return args;
        vm_push_root(vm, args), nroots++;
        if (!val_is_type(vm, args, vm->t_tuple)) {
            vm_raise(vm, vm->e_TypeError, "__getnewargs__ should return a tuple, not '%s'", vm_type_name(vm, args));
            goto done;
        }
    }
    bool hasargs = !val_is_null(args);
    if (!hasargs) args = val_obj(vm->empty_tuple);
    Value copyreg = import_copyreg(vm);
    if (val_is_null(copyreg)) goto done;
    vm_push_root(vm, copyreg), nroots++;
    Value newobj, newargs;
    TupleObj *at = AS_TUPLE(args);
    if (val_is_null(kwargs) || AS_DICT(kwargs)->used == 0) {
        newobj = vm_getattr_c(vm, copyreg, "__newobj__");
        if (val_is_null(newobj)) goto done;
        vm_push_root(vm, newobj), nroots++;
        TupleObj *na = tuple_new(vm, at->len + 1);
        if (!na) goto done;
        na->items[0] = val_obj(t);
        for (int64_t i = 0; i < at->len; i++) na->items[i + 1] = at->items[i];
        newargs = val_obj(na);
    } else {
        newobj = vm_getattr_c(vm, copyreg, "__newobj_ex__");
        if (val_is_null(newobj)) goto done;
        vm_push_root(vm, newobj), nroots++;
        TupleObj *na = tuple_pack(vm, 3, val_obj(t), args, kwargs);
        if (!na) goto done;
        newargs = val_obj(na);
    }
    vm_push_root(vm, newargs), nroots++;
    bool is_list = vm_isinstance_type(vm, obj, vm->t_list), is_dict = vm_isinstance_type(vm, obj, vm->t_dict);
    Value state = getstate(vm, obj, !(hasargs || is_list || is_dict));
    if (val_is_null(state)) goto done;
    vm_push_root(vm, state), nroots++;
    Value listitems = val_none(), dictitems = val_none();
    if (is_list) {
        listitems = vm_iter(vm, obj);
        if (val_is_null(listitems)) goto done;
        vm_push_root(vm, listitems), nroots++;
    }
    if (is_dict) {
        Value items = vm_call_method(vm, obj, "items", 0, NULL);
        if (val_is_null(items)) goto done;
        vm_push_root(vm, items), nroots++;
        dictitems = vm_iter(vm, items);
        if (val_is_null(dictitems)) goto done;
        vm_push_root(vm, dictitems), nroots++;
    }
    TupleObj *r = tuple_pack(vm, 5, newobj, newargs, state, listitems, dictitems);
    if (r) result = val_obj(r);
done:
    vm_pop_roots(vm, nroots);
    return result;
}

static Value common_reduce(VM *vm, Value self, int64_t proto) {
    if (proto >= 2) return reduce_newobj(vm, self);
    Value copyreg = import_copyreg(vm);
    if (val_is_null(copyreg)) return copyreg;
    vm_push_root(vm, copyreg);
    Value f = vm_getattr_c(vm, copyreg, "_reduce_ex");
    vm_pop_root(vm);
    if (val_is_null(f)) return f;
    return vm_call2(vm, f, self, val_int(proto));
}

static Value object_reduce_fn(ARGS) {
    if (native_check_args(vm, "__reduce__", argc, kw, 1, 1) < 0) return val_null();
    return common_reduce(vm, argv[0], 0);
}

static Value object_reduce_ex_fn(ARGS) {
    if (native_check_args(vm, "__reduce_ex__", argc, kw, 2, 2) < 0) return val_null();
    int64_t proto;
    if (vm_index(vm, argv[1], &proto) < 0) return val_null();
    /* a class's own __reduce__ wins */
    Value red = type_lookup(vm, vm_type_of(vm, argv[0]), vm_intern_str(vm, "__reduce__"));
    if (!val_is_null(red) && !is_native_fn(red, object_reduce_fn)) return vm_call_method(vm, argv[0], "__reduce__", 0, NULL);
    return common_reduce(vm, argv[0], proto);
}

/* BaseException.__reduce__: (type, args) or (type, args, __dict__) */
static Value exc_reduce_fn(ARGS) {
    ExceptionObj *e = (ExceptionObj *)argv[0].as.o;
    TupleObj *t = e->dict && e->dict->used ? tuple_pack(vm, 3, val_obj(e->hdr.type), val_obj(e->args), val_obj(e->dict))
                                           : tuple_pack(vm, 2, val_obj(e->hdr.type), val_obj(e->args));
    return t ? val_obj(t) : val_null();
}

static Value exc_setstate_fn(ARGS) {
    if (native_check_args(vm, "__setstate__", argc, kw, 2, 2) < 0) return val_null();
    Value st = argv[1];
    if (val_is_none(st)) return val_none();
    if (!val_is_obj(st) || !vm_isinstance_type(vm, st, vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "state is not a dictionary");
    int64_t pos = 0;
    Value k, v;
    while (dict_next(AS_DICT(st), &pos, &k, &v)) {
        if (!val_is_str(vm, k)) return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, k));
        StrObj *n = str_intern(vm, AS_STR(k));
        if (!n || vm_setattr(vm, argv[0], n, v) < 0) return val_null();
    }
    return val_none();
}

void reduce_init(VM *vm) {
    static const MethodDef om[] = {
        {"__reduce__", object_reduce_fn, NATIVEF_METHOD}, {"__reduce_ex__", object_reduce_ex_fn, NATIVEF_METHOD},
        {"__getstate__", object_getstate_fn, NATIVEF_METHOD}, {NULL}};
    static const MethodDef em[] = {
        {"__reduce__", exc_reduce_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"__setstate__", exc_setstate_fn, NATIVEF_METHOD},
        {NULL}};
    if (type_add_methods(vm, vm->t_object, om) < 0 || type_add_methods(vm, vm->e_BaseException, em) < 0)
        EM_UNREACHABLE();
}
