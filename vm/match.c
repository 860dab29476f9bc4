/* vm/match.c — what the match statement's opcodes ask of objects (CPython 3.11's ceval.c
 * match_keys / match_class and the Py_TPFLAGS_SEQUENCE / Py_TPFLAGS_MAPPING tests).
 *
 * CPython marks sequence and mapping types with type flags: the built-in ones, their
 * subclasses, subclasses of collections.abc.Sequence / Mapping (whose __abc_tpflags__ the
 * C _abc module reads) and classes registered with them.  Ember decides the same from the
 * type's MRO: a built-in of the kind, a class carrying __abc_tpflags__, and for other
 * classes the ABC's own registry once _collections_abc is loaded (nothing could have
 * registered a class before). */
#include "vm/match.h"

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ABC_SEQUENCE (1 << 5) /* Py_TPFLAGS_SEQUENCE, as _collections_abc spells it */
#define ABC_MAPPING (1 << 6)  /* Py_TPFLAGS_MAPPING */

static bool is_named(const TypeObj *t, const char *module, const char *name) {
    return str_eq_c(t->name, name) && val_is_obj(t->module) && t->module.as.o->type->layout == OBJ_LAYOUT_STR &&
           str_eq_c(AS_STR(t->module), module);
}

/* 1 / 0 / -1: is v a sequence (abc_flag ABC_SEQUENCE) or a mapping (ABC_MAPPING) to match? */
static int collection_kind(VM *vm, Value v, int abc_flag) {
    TypeObj *t = vm_type_of(vm, v);
    bool seq = abc_flag == ABC_SEQUENCE;
    for (int64_t i = 0; i < t->mro->len; i++) {
        TypeObj *b = AS_TYPE(t->mro->items[i]);
        if (b == vm->t_str || b == vm->t_bytes || is_named(b, "builtins", "bytearray")) return 0;
        if (seq ? (b == vm->t_list || b == vm->t_tuple || b == vm->t_range || is_named(b, "builtins", "memoryview") ||
                   is_named(b, "collections", "deque") || is_named(b, "array", "array"))
                : (b == vm->t_dict || is_named(b, "builtins", "mappingproxy")))
            return 1;
        Value f = dict_get_c(vm, b->dict, "__abc_tpflags__");
        if (val_is_int(f) && (f.as.i & abc_flag)) return 1;
    }
    if (!(t->flags & TYPEF_HEAPTYPE)) return 0;
    /* a class registered with the ABC after it was made */
    Value mod = dict_get_c(vm, vm->modules, "_collections_abc");
    if (!val_is_type(vm, mod, vm->t_module)) return 0;
    Value abc = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, seq ? "Sequence" : "Mapping");
    if (val_is_null(abc)) return 0;
    return vm_isinstance(vm, v, abc);
}

int match_is_sequence(VM *vm, Value v) { return collection_kind(vm, v, ABC_SEQUENCE); }
int match_is_mapping(VM *vm, Value v) { return collection_kind(vm, v, ABC_MAPPING); }

Value match_keys(VM *vm, Value map, Value keys) {
    TupleObj *kt = AS_TUPLE(keys);
    if (kt->len == 0) return val_obj(tuple_new(vm, 0));
    /* map.get(key, sentinel): no __missing__ side effect, as CPython's match_keys */
    Value get = vm_getattr(vm, map, vm_intern_str(vm, "get"));
    if (val_is_null(get)) return get;
    vm_push_root(vm, get);
    Value result = val_null();
    SetObj *seen = set_new(vm, vm->t_set);
    if (!seen) goto done;
    vm_push_root(vm, val_obj(seen));
    TupleObj *values = tuple_new(vm, kt->len);
    if (!values) goto done2;
    vm_push_root(vm, val_obj(values));
    Value sentinel = vm_call0(vm, val_obj(vm->t_object)); /* dummy = object() */
    if (val_is_null(sentinel)) goto done3;
    vm_push_root(vm, sentinel);
    for (int64_t i = 0; i < kt->len; i++) {
        Value key = kt->items[i];
        int r = set_contains(vm, seen, key);
        if (r < 0) goto done4;
        if (r) {
            Value rep = vm_repr(vm, key);
            if (!val_is_null(rep))
                vm_raise(vm, vm->e_ValueError, "mapping pattern checks duplicate key (%s)", AS_STR(rep)->data);
            goto done4;
        }
        if (set_add(vm, seen, key) < 0) goto done4;
        Value args[2] = {key, sentinel};
        Value v = vm_call(vm, get, 2, args, NULL);
        if (val_is_null(v)) goto done4;
        if (val_identical(v, sentinel)) { /* not in the mapping */
            result = val_none();
            goto done4;
        }
        values->items[i] = v;
    }
    result = val_obj(values);
done4:
    vm_pop_root(vm);
done3:
    vm_pop_root(vm);
done2:
    vm_pop_root(vm);
done:
    vm_pop_root(vm);
    return result;
}

/* The types whose instances a single positional sub-pattern matches as a whole
 * (_Py_TPFLAGS_MATCH_SELF): bool, bytearray, bytes, dict, float, frozenset, int, list, set,
 * str, tuple, and their subclasses. */
static bool match_self(VM *vm, TypeObj *t) {
    for (int64_t i = 0; i < t->mro->len; i++) {
        TypeObj *b = AS_TYPE(t->mro->items[i]);
        if (b == vm->t_bool || b == vm->t_bytes || b == vm->t_dict || b == vm->t_float || b == vm->t_frozenset ||
            b == vm->t_int || b == vm->t_list || b == vm->t_set || b == vm->t_str || b == vm->t_tuple ||
            is_named(b, "builtins", "bytearray"))
            return true;
    }
    return false;
}

/* match_class_attr: subject.name, or VAL_NULL without an exception when it has none; a name
 * seen before is a TypeError */
static Value class_attr(VM *vm, Value subject, TypeObj *t, StrObj *name, SetObj *seen) {
    int r = set_contains(vm, seen, val_obj(name));
    if (r < 0) return val_null();
    if (r) return vm_raise(vm, vm->e_TypeError, "%s() got multiple sub-patterns for attribute '%s'", t->name->data,
                           name->data);
    if (set_add(vm, seen, val_obj(name)) < 0) return val_null();
    Value a = vm_getattr(vm, subject, name);
    if (val_is_null(a) && vm_exc_matches(vm, vm->e_AttributeError)) vm_clear_exc(vm);
    return a;
}

Value match_class(VM *vm, Value subject, Value type, int64_t nargs, Value names) {
    if (!val_is_obj(type) || !vm_isinstance_type(vm, type, vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "called match pattern must be a type");
    TypeObj *t = AS_TYPE(type);
    int inst = vm_isinstance(vm, subject, type);
    if (inst <= 0) return inst < 0 ? val_null() : val_none();
    TupleObj *kw = AS_TUPLE(names);
    ListObj *attrs = list_new(vm, 0);
    if (!attrs) return val_null();
    vm_push_root(vm, val_obj(attrs));
    SetObj *seen = set_new(vm, vm->t_set);
    Value result = val_null();
    if (!seen) goto done;
    vm_push_root(vm, val_obj(seen));
    if (nargs) {
        bool self = false;
        Value ma = vm_getattr(vm, type, vm_intern_str(vm, "__match_args__"));
        if (val_is_null(ma)) {
            if (!vm_exc_matches(vm, vm->e_AttributeError)) goto done2;
            vm_clear_exc(vm);
            ma = val_obj(vm->empty_tuple);
            self = match_self(vm, t);
        } else if (!val_is_type(vm, ma, vm->t_tuple)) {
            vm_raise(vm, vm->e_TypeError, "%s.__match_args__ must be a tuple (got %s)", t->name->data,
                     vm_type_name(vm, ma));
            goto done2;
        }
        vm_push_root(vm, ma);
        int64_t allowed = self ? 1 : AS_TUPLE(ma)->len;
        if (allowed < nargs) {
            vm_raise(vm, vm->e_TypeError, "%s() accepts %lld positional sub-pattern%s (%lld given)", t->name->data,
                     (long long)allowed, allowed == 1 ? "" : "s", (long long)nargs);
            goto done3;
        }
        if (self) {
            if (list_append(vm, attrs, subject) < 0) goto done3;
        } else {
            for (int64_t i = 0; i < nargs; i++) {
                Value name = AS_TUPLE(ma)->items[i];
                if (!val_is_type(vm, name, vm->t_str)) {
                    vm_raise(vm, vm->e_TypeError, "__match_args__ elements must be strings (got %s)",
                             vm_type_name(vm, name));
                    goto done3;
                }
                Value a = class_attr(vm, subject, t, AS_STR(name), seen);
                if (val_is_null(a)) {
                    if (val_is_null(vm->exc)) result = val_none();
                    goto done3;
                }
                if (list_append(vm, attrs, a) < 0) goto done3;
            }
        }
        vm_pop_root(vm);
    }
    for (int64_t i = 0; i < kw->len; i++) {
        Value a = class_attr(vm, subject, t, AS_STR(kw->items[i]), seen);
        if (val_is_null(a)) {
            if (val_is_null(vm->exc)) result = val_none();
            goto done2;
        }
        if (list_append(vm, attrs, a) < 0) goto done2;
    }
    TupleObj *tup = tuple_new(vm, attrs->len);
    if (!tup) goto done2;
    for (int64_t i = 0; i < attrs->len; i++) tup->items[i] = attrs->items[i];
    result = val_obj(tup);
    goto done2;
done3:
    vm_pop_root(vm);
done2:
    vm_pop_root(vm);
done:
    vm_pop_root(vm);
    return result;
}
