/* vm/descr.c — member descriptors and mapping proxies.
 *
 * A member descriptor (CPython's member_descriptor) reads and writes one field at a fixed
 * offset in its owner's instances: the values of __slots__ (a Value each, VAL_NULL while
 * unset) and the plain fields built-in types expose the same way (function.__globals__).  A
 * mapping proxy (types.MappingProxyType) is the read-only view of a mapping that
 * `cls.__dict__` returns, so class dicts change only through setattr (which keeps the method
 * caches right). */
#include <string.h>

#include "vm/descr.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- member descriptors ------------------------------------------------------------------------ */

static void member_trace(VM *vm, Obj *o) {
    MemberObj *m = (MemberObj *)o;
    gc_mark(vm, m->name);
    gc_mark(vm, m->owner);
}

Value member_new(VM *vm, TypeObj *owner, StrObj *name, int64_t offset, int kind, bool readonly) {
    vm_push_root(vm, val_obj(name));
    MemberObj *m = gc_alloc(vm, vm->t_member, sizeof(MemberObj));
    vm_pop_root(vm);
    if (!m) return val_null();
    m->name = name;
    m->owner = owner;
    m->offset = offset;
    m->kind = kind;
    m->readonly = readonly;
    return val_obj(m);
}

static int member_check(VM *vm, MemberObj *m, Value obj) {
    if (!val_is_obj(obj) || !vm_isinstance_type(vm, obj, m->owner)) {
        vm_raise(vm, vm->e_TypeError, "descriptor '%s' for '%s' objects doesn't apply to a '%s' object",
                 m->name->data, m->owner->name->data, vm_type_name(vm, obj));
        return -1;
    }
    return 0;
}

Value member_get(VM *vm, MemberObj *m, Value obj) {
    if (member_check(vm, m, obj) < 0) return val_null();
    char *p = (char *)obj.as.o + m->offset;
    if (m->kind == MEMBER_OBJECT) {
        Obj *o = *(Obj **)p;
        return o ? val_obj(o) : val_none();
    }
    Value v = *(Value *)p;
    if (val_is_null(v))
        return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'", vm_type_name(vm, obj),
                        m->name->data);
    return v;
}

int member_set(VM *vm, MemberObj *m, Value obj, Value v) {
    if (member_check(vm, m, obj) < 0) return -1;
    if (m->readonly) {
        vm_raise(vm, vm->e_AttributeError, "readonly attribute");
        return -1;
    }
    Value *p = (Value *)((char *)obj.as.o + m->offset);
    if (val_is_null(v) && val_is_null(*p)) {
        /* deleting an unset slot: CPython's message is the bare name */
        vm_raise(vm, vm->e_AttributeError, "%s", m->name->data);
        return -1;
    }
    *p = v;
    return 0;
}

static Value m_get(ARGS) {
    if (native_check_args(vm, "__get__", argc, kw, 2, 3) < 0) return val_null();
    if (val_is_none(argv[1])) return argv[0];
    return member_get(vm, (MemberObj *)argv[0].as.o, argv[1]);
}
static Value m_set(ARGS) {
    if (native_check_args(vm, "__set__", argc, kw, 3, 3) < 0) return val_null();
    return member_set(vm, (MemberObj *)argv[0].as.o, argv[1], argv[2]) < 0 ? val_null() : val_none();
}
static Value m_delete(ARGS) {
    if (native_check_args(vm, "__delete__", argc, kw, 2, 2) < 0) return val_null();
    return member_set(vm, (MemberObj *)argv[0].as.o, argv[1], val_null()) < 0 ? val_null() : val_none();
}
static Value m_repr(ARGS) {
    MemberObj *m = (MemberObj *)argv[0].as.o;
    StrObj *s = str_printf(vm, "<member '%s' of '%s' objects>", m->name->data, m->owner->name->data);
    return s ? val_obj(s) : val_null();
}
static Value m_get_name(VM *vm, Value s, void *c) { return val_obj(((MemberObj *)s.as.o)->name); }
static Value m_get_objclass(VM *vm, Value s, void *c) { return val_obj(((MemberObj *)s.as.o)->owner); }
static Value m_get_doc(VM *vm, Value s, void *c) { return val_none(); }

/* ---- mapping proxies ------------------------------------------------------------------------------- */

typedef struct MappingProxyObj {
    Obj hdr;
    Value mapping;
} MappingProxyObj;

#define MP(v) (((MappingProxyObj *)(v).as.o)->mapping)

static void mp_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((MappingProxyObj *)o)->mapping); }

static bool is_mapping(VM *vm, Value v) {
    if (!val_is_obj(v)) return false;
    TypeObj *t = v.as.o->type;
    if (t->layout == OBJ_LAYOUT_DICT || t == vm->t_mappingproxy) return true;
    if (t->layout == OBJ_LAYOUT_LIST || t->layout == OBJ_LAYOUT_TUPLE) return false;
    return !val_is_null(type_special(vm, t, SP_GETITEM)) && !val_is_null(type_lookup(vm, t, vm_intern_str(vm, "keys")));
}

Value mappingproxy_new(VM *vm, Value mapping) {
    vm_push_root(vm, mapping);
    MappingProxyObj *p = gc_alloc(vm, vm->t_mappingproxy, sizeof(MappingProxyObj));
    vm_pop_root(vm);
    if (!p) return val_null();
    p->mapping = mapping;
    return val_obj(p);
}

static Value mp_new(ARGS) {
    static const char *const names[] = {"cls", "mapping"};
    Value a[2];
    if (native_parse_args(vm, "mappingproxy", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    if (!is_mapping(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "mappingproxy() argument must be a mapping, not %s", vm_type_name(vm, a[1]));
    return mappingproxy_new(vm, a[1]);
}
static Value mp_getitem(ARGS) { return vm_getitem(vm, MP(argv[0]), argv[1]); }
static Value mp_len(ARGS) {
    int64_t n = vm_len(vm, MP(argv[0]));
    return n < 0 ? val_null() : val_int(n);
}
static Value mp_contains(ARGS) {
    int r = vm_contains(vm, MP(argv[0]), argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}
static Value mp_iter(ARGS) { return vm_iter(vm, MP(argv[0])); }
static Value mp_call(VM *vm, Value self, const char *name, int argc, Value *argv) {
    return vm_call_method(vm, MP(self), name, argc, argv);
}
static Value mp_get(ARGS) {
    if (native_check_args(vm, "get", argc, kw, 2, 3) < 0) return val_null();
    Value a[2] = {argv[1], argc == 3 ? argv[2] : val_none()};
    return mp_call(vm, argv[0], "get", 2, a);
}
static Value mp_keys(ARGS) { return mp_call(vm, argv[0], "keys", 0, NULL); }
static Value mp_values(ARGS) { return mp_call(vm, argv[0], "values", 0, NULL); }
static Value mp_items(ARGS) { return mp_call(vm, argv[0], "items", 0, NULL); }
static Value mp_copy(ARGS) { return mp_call(vm, argv[0], "copy", 0, NULL); }
static Value mp_reversed(ARGS) { return mp_call(vm, argv[0], "__reversed__", 0, NULL); }
static Value mp_repr(ARGS) {
    Value r = vm_repr(vm, MP(argv[0]));
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "mappingproxy(%s)", AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}
static Value mp_str(ARGS) { return vm_str(vm, MP(argv[0])); }
static Value mp_eq(ARGS) {
    Value other = argv[1];
    if (val_is_type(vm, other, vm->t_mappingproxy)) other = MP(other);
    return vm_compare(vm, (CompareOp)(intptr_t)fn->data, MP(argv[0]), other);
}
static Value mp_or(ARGS) {
    Value a = argv[0], b = argv[1];
    if (val_is_type(vm, a, vm->t_mappingproxy)) a = MP(a);
    if (val_is_type(vm, b, vm->t_mappingproxy)) b = MP(b);
    return vm_binary_op(vm, BINOP_OR, (intptr_t)fn->data ? b : a, (intptr_t)fn->data ? a : b);
}
static Value mp_ior(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "'|=' is not supported by mappingproxy; use '|' instead");
}

void descr_init_types(VM *vm) {
    static const MethodDef mm[] = {
        {"__get__", m_get, NATIVEF_METHOD}, {"__set__", m_set, NATIVEF_METHOD},
        {"__delete__", m_delete, NATIVEF_METHOD}, {"__repr__", m_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef mgs[] = {
        {"__name__", m_get_name, NULL}, {"__qualname__", m_get_name, NULL}, {"__objclass__", m_get_objclass, NULL},
        {"__doc__", m_get_doc, NULL}, {NULL}};
    static const MethodDef pm[] = {
        {"__new__", mp_new, NATIVEF_STATIC}, {"__getitem__", mp_getitem, NATIVEF_METHOD | ARITY_O},
        {"__len__", mp_len, NATIVEF_METHOD | ARITY_NOARGS}, {"__contains__", mp_contains, NATIVEF_METHOD | ARITY_O},
        {"__iter__", mp_iter, NATIVEF_METHOD | ARITY_NOARGS}, {"get", mp_get, NATIVEF_METHOD},
        {"keys", mp_keys, NATIVEF_METHOD | ARITY_NOARGS}, {"values", mp_values, NATIVEF_METHOD | ARITY_NOARGS},
        {"items", mp_items, NATIVEF_METHOD | ARITY_NOARGS}, {"copy", mp_copy, NATIVEF_METHOD | ARITY_NOARGS},
        {"__reversed__", mp_reversed, NATIVEF_METHOD | ARITY_NOARGS}, {"__repr__", mp_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__str__", mp_str, NATIVEF_METHOD | ARITY_NOARGS},
        {"__eq__", mp_eq, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_EQ},
        {"__ne__", mp_eq, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_NE},
        {"__or__", mp_or, NATIVEF_METHOD | ARITY_O, NULL}, {"__ror__", mp_or, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"__ior__", mp_ior, NATIVEF_METHOD | ARITY_O}, {NULL}};
    vm->t_member->trace = member_trace;
    vm->t_mappingproxy->trace = mp_trace;
    if (type_add_methods(vm, vm->t_member, mm) < 0 || type_add_getsets(vm, vm->t_member, mgs) < 0 ||
        type_add_methods(vm, vm->t_mappingproxy, pm) < 0 ||
        dict_set_c(vm, vm->t_mappingproxy->dict, "__hash__", val_none()) < 0)
        EM_UNREACHABLE();
}
