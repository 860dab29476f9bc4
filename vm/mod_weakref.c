/* vm/mod_weakref.c — the `_weakref` module (CPython 3.11's Modules/_weakref.c and the proxy
 * half of Objects/weakrefobject.c): ref/ReferenceType (the type in vm/weakref.c), proxy() with
 * ProxyType and CallableProxyType, getweakrefcount, getweakrefs, _remove_dead_weakref.
 *
 * A proxy is a WeakRefObj of a proxy type, so the collector clears it at sweep and runs its
 * callback like a ref's.  Operations on a proxy act on the referent (arguments that are
 * proxies are unwrapped too) and raise ReferenceError once it is gone.  Attribute access
 * forwards through __getattr__ (attributes the proxy type itself defines, like __class__,
 * answer for the proxy). */
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

Value weakref_new(VM *vm, TypeObj *t, Value referent, Value callback);
bool weakrefable(VM *vm, Value v);

static void proxy_trace(VM *vm, Obj *o) {
    WeakRefObj *w = (WeakRefObj *)o;
    gc_mark_value(vm, w->callback);   /* the referent is deliberately not marked */
    gc_mark(vm, w->dict);
}

static bool is_proxy(Value v) { return v.tag == VAL_OBJ && v.as.o->type->trace == proxy_trace; }

/* The referent of a proxy (ReferenceError once dead); other values unchanged. */
static Value unwrap(VM *vm, Value v) {
    if (!is_proxy(v)) return v;
    WeakRefObj *w = (WeakRefObj *)v.as.o;
    if (!w->referent) return vm_raise(vm, vm->e_ReferenceError, "weakly-referenced object no longer exists");
    return val_obj(w->referent);
}

#define UNWRAP(var, v)                        \
    Value var = unwrap(vm, (v));              \
    if (val_is_null(var)) return val_null();

static Value px_getattr(ARGS) {
    UNWRAP(o, argv[0]);
    if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "attribute name must be string");
    return vm_getattr(vm, o, AS_STR(argv[1]));
}

static Value px_setattr(ARGS) {
    UNWRAP(o, argv[0]);
    if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "attribute name must be string");
    return vm_setattr(vm, o, AS_STR(argv[1]), argv[2]) < 0 ? val_null() : val_none();
}

static Value px_delattr(ARGS) {
    UNWRAP(o, argv[0]);
    if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "attribute name must be string");
    return vm_delattr(vm, o, AS_STR(argv[1])) < 0 ? val_null() : val_none();
}

static Value px_call(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_call(vm, o, argc - 1, argv + 1, kw);
}

static Value px_repr(ARGS) {
    WeakRefObj *w = (WeakRefObj *)argv[0].as.o;
    StrObj *s = str_printf(vm, "<weakproxy at %p; to '%s' at %p>", (void *)w,
                           w->referent ? w->referent->type->name->data : "NoneType", (void *)w->referent);
    return s ? val_obj(s) : val_null();
}

static Value px_str(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_str(vm, o);
}

static Value px_bool(ARGS) {
    UNWRAP(o, argv[0]);
    int t = vm_truthy(vm, o);
    return t < 0 ? val_null() : val_bool(t);
}

static Value px_len(ARGS) {
    UNWRAP(o, argv[0]);
    int64_t n = vm_len(vm, o);
    return n < 0 ? val_null() : val_int(n);
}

static Value px_getitem(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_getitem(vm, o, argv[1]);
}

static Value px_setitem(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_setitem(vm, o, argv[1], argv[2]) < 0 ? val_null() : val_none();
}

static Value px_delitem(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_delitem(vm, o, argv[1]) < 0 ? val_null() : val_none();
}

static Value px_contains(ARGS) {
    UNWRAP(o, argv[0]);
    int r = vm_contains(vm, o, argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}

static Value px_iter(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_iter(vm, o);
}

static Value px_next(ARGS) {
    UNWRAP(o, argv[0]);
    TypeObj *t = vm_type_of(vm, o);
    if (t->layout != OBJ_LAYOUT_ITER && t != vm->t_generator && val_is_null(type_special(vm, t, SP_NEXT)))
        return vm_raise(vm, vm->e_TypeError, "Weakref proxy referenced a non-iterator '%s' object", t->name->data);
    Value r = vm_next(vm, o);
    if (val_is_null(r) && val_is_null(vm->exc)) return vm_raise_stop_iteration(vm, val_none());
    return r;
}

/* fn->data: CompareOp */
static Value px_compare(ARGS) {
    UNWRAP(a, argv[0]);
    vm_push_root(vm, a);
    Value b = unwrap(vm, argv[1]);
    vm_pop_root(vm);
    if (val_is_null(b)) return b;
    return vm_compare(vm, (CompareOp)(intptr_t)fn->data, a, b);
}

/* fn->data: BinaryOp, | 0x100 for the reflected form */
static Value px_binop(ARGS) {
    int op = (int)(intptr_t)fn->data;
    UNWRAP(a, argv[0]);
    vm_push_root(vm, a);
    Value b = unwrap(vm, argv[1]);
    vm_pop_root(vm);
    if (val_is_null(b)) return b;
    return op & 0x100 ? vm_binary_op(vm, op & 0xff, b, a) : vm_binary_op(vm, op, a, b);
}

/* fn->data: opcode of the unary operator */
static Value px_unary(ARGS) {
    UNWRAP(o, argv[0]);
    return vm_unary_op(vm, (int)(intptr_t)fn->data, o);
}

/* fn->data: the builtin to apply (abs, int, float, reversed) */
static Value px_builtin(ARGS) {
    UNWRAP(o, argv[0]);
    Value f = dict_get_c(vm, vm->builtins, (const char *)fn->data);
    if (val_is_null(f)) return vm_raise(vm, vm->e_RuntimeError, "lost builtins.%s", (const char *)fn->data);
    return vm_call1(vm, f, o);
}

static Value px_index(ARGS) {
    UNWRAP(o, argv[0]);
    int64_t i;
    if (vm_index(vm, o, &i) < 0) return val_null();
    return val_int(i);
}

static Value px_new(ARGS) { return vm_raise(vm, vm->e_TypeError, "cannot create 'weakref.ProxyType' instances"); }

/* ---- module functions ----------------------------------------------------------------- */

static Value m_proxy(ARGS) {
    if (native_check_args(vm, "proxy", argc, kw, 1, 2) < 0) return val_null();
    TupleObj *types = AS_TUPLE(fn->payload);
    if (!weakrefable(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "cannot create weak reference to '%s' object", vm_type_name(vm, argv[0]));
    TypeObj *t = AS_TYPE(types->items[vm_is_callable(vm, argv[0]) ? 1 : 0]);
    return weakref_new(vm, t, argv[0], argc == 2 ? argv[1] : val_none());
}

static Value m_getweakrefcount(ARGS) {
    if (native_check_args(vm, "getweakrefcount", argc, kw, 1, 1) < 0) return val_null();
    int64_t n = 0;
    for (WeakRefObj *w = vm->weakrefs; w; w = w->next_weak)
        if (val_is_obj(argv[0]) && w->referent == argv[0].as.o) n++;
    return val_int(n);
}

static Value m_getweakrefs(ARGS) {
    if (native_check_args(vm, "getweakrefs", argc, kw, 1, 1) < 0) return val_null();
    ListObj *l = list_new(vm, 0);
    if (!l || !val_is_obj(argv[0])) return l ? val_obj(l) : val_null();
    vm_push_root(vm, val_obj(l));
    for (WeakRefObj *w = vm->weakrefs; w; w = w->next_weak)
        if (w->referent == argv[0].as.o && list_append(vm, l, val_obj(w)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    vm_pop_root(vm);
    return val_obj(l);
}

static Value m_remove_dead_weakref(ARGS) {
    if (native_check_args(vm, "_remove_dead_weakref", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "_remove_dead_weakref() argument 1 must be dict, not %s",
                        vm_type_name(vm, argv[0]));
    DictObj *d = AS_DICT(argv[0]);
    Value v;
    int found = dict_lookup(vm, d, argv[1], &v);
    if (found < 0) return val_null();
    if (!found) return val_none();   /* already gone: fine */
    if (!val_is_obj(v) || (!vm_isinstance_type(vm, v, vm->t_weakref) && !is_proxy(v)))
        return vm_raise(vm, vm->e_TypeError, "not a weakref");
    if (((WeakRefObj *)v.as.o)->referent == NULL && dict_del(vm, d, argv[1], NULL) < 0) return val_null();
    return val_none();
}

int weakref_module_init(VM *vm, Value mod) {
    TypeObj *tp = type_new_builtin(vm, "ProxyType", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(WeakRefObj), 0,
                                   proxy_trace, NULL, 0);
    if (!tp) return -1;
    vm_push_root(vm, val_obj(tp));
    TypeObj *tc = type_new_builtin(vm, "CallableProxyType", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(WeakRefObj),
                                   0, proxy_trace, NULL, 0);
    if (!tc) goto fail1;
    vm_push_root(vm, val_obj(tc));
    tp->module = tc->module = vm_intern(vm, "weakref");
#define CMP(n, op) {n, px_compare, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)(op)}
#define BIN(n, rn, op) {n, px_binop, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)(op)}, \
                       {rn, px_binop, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)((op) | 0x100)}
#define IBIN(n, op) {n, px_binop, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)(BINOP_INPLACE + (op))}
    static const MethodDef m[] = {
        {"__new__", px_new, NATIVEF_STATIC},
        {"__getattr__", px_getattr, NATIVEF_METHOD | ARITY_O}, {"__setattr__", px_setattr, NATIVEF_METHOD | ARITY_POS(2, 2)},
        {"__delattr__", px_delattr, NATIVEF_METHOD | ARITY_O}, {"__repr__", px_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__str__", px_str, NATIVEF_METHOD | ARITY_NOARGS}, {"__bool__", px_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {"__len__", px_len, NATIVEF_METHOD | ARITY_NOARGS}, {"__getitem__", px_getitem, NATIVEF_METHOD | ARITY_O},
        {"__setitem__", px_setitem, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"__delitem__", px_delitem, NATIVEF_METHOD | ARITY_O},
        {"__contains__", px_contains, NATIVEF_METHOD | ARITY_O}, {"__iter__", px_iter, NATIVEF_METHOD | ARITY_NOARGS},
        {"__next__", px_next, NATIVEF_METHOD | ARITY_NOARGS},
        CMP("__lt__", CMP_LT), CMP("__le__", CMP_LE), CMP("__eq__", CMP_EQ), CMP("__ne__", CMP_NE),
        CMP("__gt__", CMP_GT), CMP("__ge__", CMP_GE),
        BIN("__add__", "__radd__", BINOP_ADD), BIN("__sub__", "__rsub__", BINOP_SUBTRACT),
        BIN("__mul__", "__rmul__", BINOP_MULTIPLY), BIN("__truediv__", "__rtruediv__", BINOP_TRUE_DIVIDE),
        BIN("__floordiv__", "__rfloordiv__", BINOP_FLOOR_DIVIDE), BIN("__mod__", "__rmod__", BINOP_REMAINDER),
        BIN("__pow__", "__rpow__", BINOP_POWER), BIN("__lshift__", "__rlshift__", BINOP_LSHIFT),
        BIN("__rshift__", "__rrshift__", BINOP_RSHIFT), BIN("__and__", "__rand__", BINOP_AND),
        BIN("__or__", "__ror__", BINOP_OR), BIN("__xor__", "__rxor__", BINOP_XOR),
        BIN("__matmul__", "__rmatmul__", BINOP_MATMUL),
        IBIN("__iadd__", BINOP_ADD), IBIN("__isub__", BINOP_SUBTRACT), IBIN("__imul__", BINOP_MULTIPLY),
        IBIN("__itruediv__", BINOP_TRUE_DIVIDE), IBIN("__ifloordiv__", BINOP_FLOOR_DIVIDE),
        IBIN("__imod__", BINOP_REMAINDER), IBIN("__ior__", BINOP_OR), IBIN("__iand__", BINOP_AND),
        {"__neg__", px_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_NEGATIVE},
        {"__pos__", px_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_POSITIVE},
        {"__invert__", px_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_INVERT},
        {"__abs__", px_builtin, NATIVEF_METHOD | ARITY_NOARGS, (void *)"abs"},
        {"__int__", px_builtin, NATIVEF_METHOD | ARITY_NOARGS, (void *)"int"},
        {"__float__", px_builtin, NATIVEF_METHOD | ARITY_NOARGS, (void *)"float"},
        {"__reversed__", px_builtin, NATIVEF_METHOD | ARITY_NOARGS, (void *)"reversed"},
        {"__index__", px_index, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
#undef CMP
#undef BIN
#undef IBIN
    static const MethodDef cm[] = {{"__call__", px_call, NATIVEF_METHOD}, {NULL}};
    if (type_add_methods(vm, tp, m) < 0 || type_add_methods(vm, tc, m) < 0 || type_add_methods(vm, tc, cm) < 0 ||
        dict_set_c(vm, tp->dict, "__hash__", val_none()) < 0 || dict_set_c(vm, tc->dict, "__hash__", val_none()) < 0)
        goto fail2;
    type_modified(vm, tp);
    type_modified(vm, tc);
    TupleObj *types = tuple_pack(vm, 2, val_obj(tp), val_obj(tc));
    if (!types) goto fail2;
    vm_push_root(vm, val_obj(types));
    NativeObj *px = native_new_closure(vm, "proxy", m_proxy, val_obj(types));
    vm_pop_root(vm);
    static const MethodDef fns[] = {
        {"getweakrefcount", m_getweakrefcount}, {"getweakrefs", m_getweakrefs},
        {"_remove_dead_weakref", m_remove_dead_weakref}, {NULL}};
    if (!px || module_set(vm, mod, "proxy", val_obj(px)) < 0 || module_add_functions(vm, mod, fns) < 0 ||
        module_set(vm, mod, "ref", val_obj(vm->t_weakref)) < 0 ||
        module_set(vm, mod, "ReferenceType", val_obj(vm->t_weakref)) < 0 ||
        module_set(vm, mod, "ProxyType", val_obj(tp)) < 0 || module_set(vm, mod, "CallableProxyType", val_obj(tc)) < 0)
        goto fail2;
    vm_pop_roots(vm, 2);
    return 0;
fail2:
    vm_pop_root(vm);
fail1:
    vm_pop_root(vm);
    return -1;
}
