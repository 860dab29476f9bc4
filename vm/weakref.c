/* vm/weakref.c — weak references: weakref.ref objects (cleared by the collector's sweep, with
 * callbacks run after it).  The `_weakref` module (proxies, getweakrefs, ...) is in
 * vm/mod_weakref.c. */
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static void weakref_trace(VM *vm, Obj *o) {
    WeakRefObj *w = (WeakRefObj *)o;
    /* the referent is deliberately not marked */
    gc_mark_value(vm, w->callback);
    gc_mark(vm, w->dict);
}

Value weakref_find(VM *vm, Obj *o) {
    for (WeakRefObj *w = vm->weakrefs; w; w = w->next_weak)
        if (w->referent == o && w->hdr.type == vm->t_weakref) return val_obj(w);
    return val_none();
}

bool weakrefable(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return false;
    TypeObj *t = v.as.o->type;
    /* classes: through TYPEF_WEAKREFS (a __slots__ class needs "__weakref__") */
    if (t->flags & TYPEF_HEAPTYPE) {
        for (; t; t = t->base)
            if (t->flags & TYPEF_WEAKREFS) return true;
        return false;
    }
    return t != vm->t_int && t != vm->t_object && t != vm->t_str && t != vm->t_tuple && t != vm->t_list && t != vm->t_dict &&
           t != vm->t_bytes && t != vm->t_none;
}

Value weakref_new(VM *vm, TypeObj *t, Value referent, Value callback) {
    if (!weakrefable(vm, referent))
        return vm_raise(vm, vm->e_TypeError, "cannot create weak reference to '%s' object", vm_type_name(vm, referent));
    WeakRefObj *w = gc_alloc(vm, t, t->instance_size ? t->instance_size : sizeof(WeakRefObj));
    if (!w) return val_null();
    w->referent = referent.as.o;
    w->callback = val_is_none(callback) ? val_null() : callback;
    w->hash = -1;
    w->next_weak = vm->weakrefs;
    vm->weakrefs = w;
    return val_obj(w);
}

static Value wr_new(ARGS) {
    if (native_check_args(vm, "ref", argc, kw, 2, 3) < 0) return val_null();
    return weakref_new(vm, AS_TYPE(argv[0]), argv[1], argc == 3 ? argv[2] : val_none());
}

static Value wr_init(ARGS) { return val_none(); }

static Value wr_call(ARGS) {
    WeakRefObj *w = (WeakRefObj *)argv[0].as.o;
    return w->referent ? val_obj(w->referent) : val_none();
}

static Value wr_hash(ARGS) {
    WeakRefObj *w = (WeakRefObj *)argv[0].as.o;
    if (w->hash != -1) return val_int(w->hash);
    if (!w->referent) return vm_raise(vm, vm->e_TypeError, "weak object has gone away");
    int64_t h;
    if (vm_hash(vm, val_obj(w->referent), &h) < 0) return val_null();
    w->hash = h;
    return val_int(h);
}

static Value wr_eq(ARGS) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_weakref)) return vm->not_implemented;
    WeakRefObj *a = (WeakRefObj *)argv[0].as.o, *b = (WeakRefObj *)argv[1].as.o;
    if (!a->referent || !b->referent) return val_bool(a == b);
    int eq = vm_eq(vm, val_obj(a->referent), val_obj(b->referent));
    return eq < 0 ? val_null() : val_bool(eq);
}

static Value wr_repr(ARGS) {
    WeakRefObj *w = (WeakRefObj *)argv[0].as.o;
    StrObj *s = w->referent ? str_printf(vm, "<weakref at %p; to '%s' at %p>", (void *)w,
                                         w->referent->type->name->data, (void *)w->referent)
                            : str_printf(vm, "<weakref at %p; dead>", (void *)w);
    return s ? val_obj(s) : val_null();
}

static Value wr_get_callback(VM *vm, Value s, void *c) {
    Value cb = ((WeakRefObj *)s.as.o)->callback;
    return val_is_null(cb) ? val_none() : cb;
}

void weakref_init_type(VM *vm) {
    TypeObj *t = vm->t_weakref;
    t->trace = weakref_trace;
    static const MethodDef m[] = {
        {"__new__", wr_new, NATIVEF_STATIC}, {"__init__", wr_init, NATIVEF_METHOD},
        {"__call__", wr_call, NATIVEF_METHOD}, {"__hash__", wr_hash, NATIVEF_METHOD},
        {"__eq__", wr_eq, NATIVEF_METHOD}, {"__repr__", wr_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef gs[] = {{"__callback__", wr_get_callback, NULL}, {NULL}};
    if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0) EM_UNREACHABLE();
}
