/* vm/genericalias.c — types.GenericAlias: what `list[int]`, `dict[str, T]` and `type[int]` make
 * (PEP 585).  An alias keeps its origin class and argument tuple, prints as CPython prints it,
 * forwards other attribute reads to the origin, instantiates the origin when called (noting
 * __orig_class__), substitutes type variables (anything with __typing_subst__, as typing's
 * TypeVar) by subscription, stands for its origin as a base class (__mro_entries__), and
 * refuses isinstance()/issubclass(). */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct AliasObj {
    Obj hdr;
    Value origin;
    TupleObj *args;
    Value parameters;     /* tuple, computed on first use (VAL_NULL until then) */
    DictObj *dict;        /* attributes of subclass instances (_collections_abc._CallableGenericAlias) */
} AliasObj;

#define GA(v) ((AliasObj *)(v).as.o)

static void ga_trace(VM *vm, Obj *o) {
    AliasObj *a = (AliasObj *)o;
    gc_mark_value(vm, a->origin);
    gc_mark(vm, a->args);
    gc_mark_value(vm, a->parameters);
    gc_mark(vm, a->dict);
}

static Value alias_alloc(VM *vm, TypeObj *cls, Value origin, Value args) {
    TupleObj *t;
    if (val_is_type(vm, args, vm->t_tuple)) {
        t = AS_TUPLE(args);
    } else {
        vm_push_root(vm, origin);
        t = tuple_pack(vm, 1, args);
        vm_pop_root(vm);
        if (!t) return val_null();
    }
    vm_push_root(vm, val_obj(t));
    vm_push_root(vm, origin);
    AliasObj *a = gc_alloc(vm, cls, cls->instance_size);
    vm_pop_roots(vm, 2);
    if (!a) return val_null();
    a->origin = origin;
    a->args = t;
    a->parameters = val_null();
    return val_obj(a);
}

Value genericalias_new(VM *vm, Value origin, Value args) { return alias_alloc(vm, vm->t_genericalias, origin, args); }

static bool has_attr(VM *vm, Value v, const char *name) {
    Value r = vm_getattr_opt(vm, v, vm_intern_str(vm, name));
    if (val_is_null(r)) vm_clear_exc(vm);
    return !val_is_null(r);
}

/* One argument as ga_repr prints it: classes by (module.)qualname, ... as "...", other
 * aliases and objects by repr(). */
static int repr_item(VM *vm, StrBuf *b, Value p) {
    if (val_identical(p, vm->ellipsis)) {
        sb_adds(b, "...");
        return 0;
    }
    if (val_is_type(vm, p, vm->t_genericalias) || (has_attr(vm, p, "__origin__") && has_attr(vm, p, "__args__"))) {
        Value r = vm_repr(vm, p);
        if (val_is_null(r)) return -1;
        sb_add_str(b, AS_STR(r));
        return 0;
    }
    Value qn = vm_getattr_opt(vm, p, vm_intern_str(vm, "__qualname__"));
    if (!val_is_null(qn) && val_is_str(vm, qn)) {
        vm_push_root(vm, qn);
        Value mod = vm_getattr_opt(vm, p, vm_intern_str(vm, "__module__"));
        vm_pop_root(vm);
        if (!val_is_null(mod) && val_is_str(vm, mod)) {
            if (!str_eq_c(AS_STR(mod), "builtins")) {
                sb_add_str(b, AS_STR(mod));
                sb_addc(b, '.');
            }
            sb_add_str(b, AS_STR(qn));
            return 0;
        }
    }
    if (!val_is_null(vm->exc)) vm_clear_exc(vm);
    Value r = vm_repr(vm, p);
    if (val_is_null(r)) return -1;
    sb_add_str(b, AS_STR(r));
    return 0;
}

/* The items of a list argument (Callable[[int], str]) are printed in brackets. */
static int repr_arg(VM *vm, StrBuf *b, Value p) {
    if (!val_is_type(vm, p, vm->t_list)) return repr_item(vm, b, p);
    sb_addc(b, '[');
    ListObj *l = AS_LIST(p);
    for (int64_t i = 0; i < l->len; i++) {
        if (i) sb_adds(b, ", ");
        if (repr_item(vm, b, l->items[i]) < 0) return -1;
    }
    sb_addc(b, ']');
    return 0;
}

static Value ga_repr(ARGS) {
    AliasObj *a = GA(argv[0]);
    StrBuf b;
    sb_init(&b);
    if (repr_item(vm, &b, a->origin) < 0) goto fail;
    sb_addc(&b, '[');
    if (a->args->len == 0) sb_adds(&b, "()");
    for (int64_t i = 0; i < a->args->len; i++) {
        if (i) sb_adds(&b, ", ");
        if (repr_arg(vm, &b, a->args->items[i]) < 0) goto fail;
    }
    sb_addc(&b, ']');
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
fail:
    sb_free(&b);
    return val_null();
}

/* __parameters__: the type variables among the arguments, in order, without repeats. */
static Value ga_parameters(VM *vm, Value self) {
    AliasObj *a = GA(self);
    if (!val_is_null(a->parameters)) return a->parameters;
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < a->args->len; i++) {
        Value t = a->args->items[i];
        if (val_is_obj(t) && vm_isinstance_type(vm, t, vm->t_type)) continue;
        if (has_attr(vm, t, "__typing_subst__")) {
            int in = vm_contains(vm, val_obj(l), t);
            if (in < 0 || (!in && list_append(vm, l, t) < 0)) goto fail;
            continue;
        }
        Value sub = vm_getattr_opt(vm, t, vm_intern_str(vm, "__parameters__"));
        if (val_is_null(sub)) {
            if (!val_is_null(vm->exc)) goto fail;
            continue;
        }
        if (!val_is_type(vm, sub, vm->t_tuple)) continue;
        for (int64_t k = 0; k < AS_TUPLE(sub)->len; k++) {
            Value p = AS_TUPLE(sub)->items[k];
            int in = vm_contains(vm, val_obj(l), p);
            if (in < 0 || (!in && list_append(vm, l, p) < 0)) goto fail;
        }
    }
    TupleObj *t = tuple_from_array(vm, l->items, l->len);
    vm_pop_root(vm);
    if (!t) return val_null();
    a->parameters = val_obj(t);
    return a->parameters;
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value ga_get_parameters(VM *vm, Value s, void *c) { return ga_parameters(vm, s); }
static Value ga_get_origin(VM *vm, Value s, void *c) { return GA(s)->origin; }
static Value ga_get_args(VM *vm, Value s, void *c) { return val_obj(GA(s)->args); }
static Value ga_get_unpacked(VM *vm, Value s, void *c) { return val_bool(false); }

/* alias[items]: substitute the type variables (CPython 3.11's _Py_subs_parameters, without
 * TypeVarTuple unpacking). */
static Value ga_getitem(ARGS) {
    Value self = argv[0];
    Value params = ga_parameters(vm, self);
    if (val_is_null(params)) return params;
    vm_push_root(vm, params);
    TupleObj *ps = AS_TUPLE(params);
    Value result = val_null();
    if (ps->len == 0) {
        Value r = vm_repr(vm, self);
        if (!val_is_null(r)) vm_raise(vm, vm->e_TypeError, "%s is not a generic class", AS_STR(r)->data);
        goto done;
    }
    TupleObj *items;
    if (val_is_type(vm, argv[1], vm->t_tuple)) {
        items = AS_TUPLE(argv[1]);
    } else {
        items = tuple_pack(vm, 1, argv[1]);
        if (!items) goto done;
    }
    vm_push_root(vm, val_obj(items));
    if (items->len != ps->len) {
        Value r = vm_repr(vm, self);
        if (!val_is_null(r))
            vm_raise(vm, vm->e_TypeError, "Too %s arguments for %s; actual %lld, expected %lld",
                     items->len > ps->len ? "many" : "few", AS_STR(r)->data, (long long)items->len, (long long)ps->len);
        goto done2;
    }
    AliasObj *a = GA(self);
    TupleObj *out = tuple_new(vm, a->args->len);
    if (!out) goto done2;
    vm_push_root(vm, val_obj(out));
    for (int64_t i = 0; i < a->args->len; i++) {
        Value arg = a->args->items[i], nv = arg;
        if (!(val_is_obj(arg) && vm_isinstance_type(vm, arg, vm->t_type))) {
            int64_t pi = -1;
            for (int64_t k = 0; k < ps->len && pi < 0; k++)
                if (val_identical(ps->items[k], arg)) pi = k;
            if (pi >= 0) {
                /* a type variable: its __typing_subst__ checks and converts the argument */
                Value subst = vm_getattr_opt(vm, arg, vm_intern_str(vm, "__typing_subst__"));
                if (val_is_null(subst)) {
                    if (!val_is_null(vm->exc)) goto done3;
                    nv = items->items[pi];
                } else {
                    vm_push_root(vm, subst);
                    nv = vm_call1(vm, subst, items->items[pi]);
                    vm_pop_root(vm);
                    if (val_is_null(nv)) goto done3;
                }
            } else {
                Value sub = vm_getattr_opt(vm, arg, vm_intern_str(vm, "__parameters__"));
                if (val_is_null(sub) && !val_is_null(vm->exc)) goto done3;
                if (val_is_type(vm, sub, vm->t_tuple) && AS_TUPLE(sub)->len) {
                    TupleObj *sp = AS_TUPLE(sub);
                    vm_push_root(vm, sub);
                    TupleObj *subargs = tuple_new(vm, sp->len);
                    vm_pop_root(vm);
                    if (!subargs) goto done3;
                    for (int64_t k = 0; k < sp->len; k++)
                        for (int64_t m = 0; m < ps->len; m++)
                            if (val_identical(ps->items[m], sp->items[k])) subargs->items[k] = items->items[m];
                    vm_push_root(vm, val_obj(subargs));
                    nv = vm_getitem(vm, arg, subargs->len == 1 ? subargs->items[0] : val_obj(subargs));
                    vm_pop_root(vm);
                    if (val_is_null(nv)) goto done3;
                }
            }
        }
        out->items[i] = nv;
    }
    result = genericalias_new(vm, a->origin, val_obj(out));
done3:
    vm_pop_root(vm);
done2:
    vm_pop_root(vm);
done:
    vm_pop_root(vm);
    return result;
}

static Value ga_call(ARGS) {
    Value r = vm_call(vm, GA(argv[0])->origin, argc - 1, argv + 1, kw);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    /* note the alias on the instance, ignoring objects that take no attributes */
    if (vm_setattr(vm, r, vm_intern_str(vm, "__orig_class__"), argv[0]) < 0) {
        if (vm_exc_matches(vm, vm->e_AttributeError) || vm_exc_matches(vm, vm->e_TypeError)) vm_clear_exc(vm);
        else {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return r;
}

static Value ga_mro_entries(ARGS) {
    if (native_check_args(vm, "__mro_entries__", argc, kw, 2, 2) < 0) return val_null();
    TupleObj *t = tuple_pack(vm, 1, GA(argv[0])->origin);
    return t ? val_obj(t) : val_null();
}

static Value ga_instancecheck(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "isinstance() argument 2 cannot be a parameterized generic");
}
static Value ga_subclasscheck(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "issubclass() argument 2 cannot be a parameterized generic");
}

static Value ga_eq(ARGS) {
    bool ne = fn->data != NULL;
    if (!val_is_type(vm, argv[1], vm->t_genericalias)) return vm->not_implemented;
    AliasObj *a = GA(argv[0]), *b = GA(argv[1]);
    int eq = vm_eq(vm, a->origin, b->origin);
    if (eq < 0) return val_null();
    if (eq) {
        eq = vm_eq(vm, val_obj(a->args), val_obj(b->args));
        if (eq < 0) return val_null();
    }
    return val_bool(ne ? !eq : eq);
}

static Value ga_hash(ARGS) {
    int64_t h1, h2;
    if (vm_hash(vm, GA(argv[0])->origin, &h1) < 0 || vm_hash(vm, val_obj(GA(argv[0])->args), &h2) < 0) return val_null();
    int64_t h = h1 ^ h2;
    return val_int(h == -1 ? -2 : h);
}

static Value ga_reduce(ARGS) {
    TupleObj *inner = tuple_pack(vm, 2, GA(argv[0])->origin, val_obj(GA(argv[0])->args));
    if (!inner) return val_null();
    vm_push_root(vm, val_obj(inner));
    TupleObj *t = tuple_pack(vm, 2, val_obj(vm->t_genericalias), val_obj(inner));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value ga_new(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "GenericAlias() takes no keyword arguments");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "GenericAlias expected 2 arguments, got %d", argc - 1);
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !type_is_subtype(AS_TYPE(argv[0]), vm->t_genericalias))
        return vm_raise(vm, vm->e_TypeError, "GenericAlias.__new__(X): X is not a subtype of GenericAlias");
    return alias_alloc(vm, AS_TYPE(argv[0]), argv[1], argv[2]);
}

static Value ga_dir(ARGS) {
    Value r = vm_call_method(vm, GA(argv[0])->origin, "__dir__", 0, NULL);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    ListObj *l = vm_list_from_iterable(vm, r);
    vm_pop_root(vm);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    static const char *const extra[] = {"__origin__", "__args__", "__parameters__", "__mro_entries__",
                                        "__reduce_ex__", "__reduce__", "__copy__", "__deepcopy__", NULL};
    for (int i = 0; extra[i]; i++) {
        Value n = vm_intern(vm, extra[i]);
        int in = vm_contains(vm, val_obj(l), n);
        if (in < 0 || (!in && list_append(vm, l, n) < 0)) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(l);
}

/* Attribute reads the alias does not answer itself are the origin's (list[int].append). */
static Value ga_getattr(ARGS) {
    if (native_check_args(vm, "__getattr__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    StrObj *name = str_intern(vm, AS_STR(argv[1]));
    return name ? vm_getattr(vm, GA(argv[0])->origin, name) : val_null();
}

static Value ga_or(ARGS) {
    extern Value type_or_values(VM *vm, Value a, Value b);
    return (intptr_t)fn->data ? type_or_values(vm, argv[1], argv[0]) : type_or_values(vm, argv[0], argv[1]);
}

/* __class_getitem__ of the built-in generic classes: cls[item] -> GenericAlias(cls, item). */
static Value class_getitem(ARGS) {
    if (native_check_args(vm, "__class_getitem__", argc, kw, 2, 2) < 0) return val_null();
    return genericalias_new(vm, argv[0], argv[1]);
}

void genericalias_init(VM *vm) {
    static const MethodDef m[] = {
        {"__new__", ga_new, NATIVEF_STATIC}, {"__repr__", ga_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getitem__", ga_getitem, NATIVEF_METHOD | ARITY_O}, {"__call__", ga_call, NATIVEF_METHOD},
        {"__mro_entries__", ga_mro_entries, NATIVEF_METHOD},
        {"__instancecheck__", ga_instancecheck, NATIVEF_METHOD | ARITY_O},
        {"__subclasscheck__", ga_subclasscheck, NATIVEF_METHOD | ARITY_O},
        {"__eq__", ga_eq, NATIVEF_METHOD | ARITY_O, NULL}, {"__ne__", ga_eq, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"__hash__", ga_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__reduce__", ga_reduce, NATIVEF_METHOD | ARITY_NOARGS},
        {"__dir__", ga_dir, NATIVEF_METHOD | ARITY_NOARGS}, {"__getattr__", ga_getattr, NATIVEF_METHOD},
        {"__or__", ga_or, NATIVEF_METHOD | ARITY_O, NULL}, {"__ror__", ga_or, NATIVEF_METHOD | ARITY_O, (void *)1},
        {NULL}};
    static const GetSetDef gs[] = {
        {"__origin__", ga_get_origin, NULL}, {"__args__", ga_get_args, NULL},
        {"__parameters__", ga_get_parameters, NULL}, {"__unpacked__", ga_get_unpacked, NULL}, {NULL}};
    vm->t_genericalias->trace = ga_trace;
    /* subclassable, as CPython's (collections.abc's Callable[...] is a subclass) */
    vm->t_genericalias->instance_size = sizeof(AliasObj);
    vm->t_genericalias->flags |= TYPEF_BASETYPE;
    if (type_add_methods(vm, vm->t_genericalias, m) < 0 || type_add_getsets(vm, vm->t_genericalias, gs) < 0)
        EM_UNREACHABLE();
    /* the built-in classes that are generic in annotations */
    TypeObj *generic[] = {vm->t_list, vm->t_dict, vm->t_tuple, vm->t_set, vm->t_frozenset, vm->t_type,
                          vm->t_enumerate, vm->t_defaultdict, vm->t_ordereddict, vm->t_weakref};
    static const MethodDef cg[] = {{"__class_getitem__", class_getitem, NATIVEF_CLASSMETHOD}, {NULL}};
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
        if (type_add_methods(vm, generic[i], cg) < 0) EM_UNREACHABLE();
}
