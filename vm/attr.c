/* vm/attr.c — attribute lookup: descriptor binding (functions, native methods, properties,
 * getsets, class/static methods, script descriptors), the generic get/set/delete on instances,
 * __getattr__/__setattr__/__delattr__ overrides, LOAD_METHOD's allocation-free lookup, and
 * super(). */
#include <string.h>

#include "vm/descr.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

extern Value object_setattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value object_delattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value object_getattribute_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value property_get_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value type_getattribute_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value type_setattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value type_delattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);

Value vm_bound_method_new(VM *vm, Value func, Value self) {
    vm_push_root(vm, func);
    vm_push_root(vm, self);
    BoundMethodObj *m = gc_alloc(vm, vm->t_method, sizeof(BoundMethodObj));
    vm_pop_roots(vm, 2);
    if (!m) return val_null();
    m->func = func;
    m->self = self;
    return val_obj(m);
}

static bool is_native_fn(Value v, NativeFn f) {
    return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE &&
           ((NativeObj *)v.as.o)->fn == f;
}

bool vm_is_data_descriptor(VM *vm, Value d) {
    if (d.tag != VAL_OBJ) return false;
    TypeObj *t = d.as.o->type;
    if (t == vm->t_property || t == vm->t_getset || t == vm->t_member) return true;
    if (t == vm->t_function || t->layout == OBJ_LAYOUT_NATIVE) return false;
    if (!(t->flags & TYPEF_HEAPTYPE) && t->layout != OBJ_LAYOUT_EXTENSION) return type_is_subtype(t, vm->t_property);
    return !val_is_null(type_special(vm, t, SP_SET)) || !val_is_null(type_special(vm, t, SP_DELETE));
}

Value vm_bind_descriptor(VM *vm, Value attr, Value obj, TypeObj *owner) {
    if (attr.tag != VAL_OBJ) return attr;
    TypeObj *t = attr.as.o->type;
    if (t == vm->t_function) return val_is_null(obj) ? attr : vm_bound_method_new(vm, attr, obj);
    if (t->layout == OBJ_LAYOUT_NATIVE) {
        NativeObj *n = (NativeObj *)attr.as.o;
        if (n->flags & NATIVEF_CLASSMETHOD)
            return vm_bound_method_new(vm, attr, val_obj(owner ? owner : vm_type_of(vm, obj)));
        if ((n->flags & NATIVEF_METHOD) && !val_is_null(obj)) {
            if (n->owner && !vm_isinstance_type(vm, obj, n->owner))
                return vm_raise(vm, vm->e_TypeError,
                                "descriptor '%s' for '%s' objects doesn't apply to a '%s' object",
                                n->name, n->owner->name->data, vm_type_name(vm, obj));
            return vm_bound_method_new(vm, attr, obj);
        }
        return attr;
    }
    if ((t->layout == OBJ_LAYOUT_STATICMETHOD || t->layout == OBJ_LAYOUT_CLASSMETHOD) && t->flags & TYPEF_HEAPTYPE) {
        /* a subclass of staticmethod/classmethod overriding __get__ */
        Value get = type_special(vm, t, SP_GET);
        if (!val_is_null(get) && !(get.tag == VAL_OBJ && get.as.o->type->layout == OBJ_LAYOUT_NATIVE)) {
            Value args[3] = {attr, val_is_null(obj) ? val_none() : obj,
                             owner ? val_obj(owner) : val_obj(vm_type_of(vm, obj))};
            return vm_call(vm, get, 3, args, NULL);
        }
    }
    if (t->layout == OBJ_LAYOUT_STATICMETHOD) return ((WrapperObj *)attr.as.o)->func;
    if (t->layout == OBJ_LAYOUT_CLASSMETHOD)
        return vm_bound_method_new(vm, ((WrapperObj *)attr.as.o)->func,
                                val_obj(owner ? owner : vm_type_of(vm, obj)));
    if (t == vm->t_getset) {
        if (val_is_null(obj)) return attr;
        GetSetObj *g = (GetSetObj *)attr.as.o;
        return g->get(vm, obj, g->closure);
    }
    if (t == vm->t_member) return val_is_null(obj) ? attr : member_get(vm, (MemberObj *)attr.as.o, obj);
    if ((t->flags & TYPEF_HEAPTYPE) && type_is_subtype(t, vm->t_property)) {
        /* a property subclass overriding __get__ */
        Value get = type_special(vm, t, SP_GET);
        if (!is_native_fn(get, property_get_fn)) {
            Value args[3] = {attr, val_is_null(obj) ? val_none() : obj,
                             owner ? val_obj(owner) : val_obj(vm_type_of(vm, obj))};
            return vm_call(vm, get, 3, args, NULL);
        }
    }
    if (t == vm->t_property || type_is_subtype(t, vm->t_property)) {
        if (val_is_null(obj)) return attr;
        PropertyObj *p = (PropertyObj *)attr.as.o;
        if (val_is_null(p->fget) || val_is_none(p->fget))
            return vm_raise(vm, vm->e_AttributeError, "property '%s' of '%s' object has no getter",
                            val_is_str(vm, p->name) ? AS_STR(p->name)->data : "?",
                            vm_type_name(vm, obj));
        return vm_call1(vm, p->fget, obj);
    }
    /* script classes, and native extension types that define __get__ (torch.compile's
     * CompiledFunction and functools' _lru_cache_wrapper bind like a function), as CPython
     * honours any type's tp_descr_get */
    if ((t->flags & TYPEF_HEAPTYPE) || t->layout == OBJ_LAYOUT_EXTENSION) {
        Value get = type_special(vm, t, SP_GET);
        if (!val_is_null(get)) {
            Value args[3] = {attr, val_is_null(obj) ? val_none() : obj,
                             owner ? val_obj(owner) : val_obj(vm_type_of(vm, obj))};
            return vm_call(vm, get, 3, args, NULL);
        }
    }
    return attr;
}


/* A script class overriding __getattribute__ (not object's): every lookup goes through it. */
static Value custom_getattribute(VM *vm, TypeObj *tp) {
    if (!(tp->flags & TYPEF_HEAPTYPE)) return val_null();
    Value ga = type_special(vm, tp, SP_GETATTRIBUTE);
    return val_is_null(ga) || is_native_fn(ga, object_getattribute_fn) ? val_null() : ga;
}

static Value attr_error(VM *vm, Value obj, StrObj *name) {
    if (val_is_type(vm, obj, vm->t_module)) {
        ModuleObj *m = (ModuleObj *)obj.as.o;
        return vm_raise(vm, vm->e_AttributeError, "module '%s' has no attribute '%s'",
                        m->name->data, name->data);
    }
    return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'",
                    vm_type_name(vm, obj), name->data);
}

Value vm_generic_getattr(VM *vm, Value obj, StrObj *name, bool raise) {
    TypeObj *tp = vm_type_of(vm, obj);
    Value descr = type_lookup(vm, tp, name);
    /* a data descriptor wins over the instance dict, unless it has no __get__ (then the dict
     * does, and the descriptor itself is the fallback) */
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr) &&
        (!(descr.as.o->type->flags & TYPEF_HEAPTYPE) || !val_is_null(type_special(vm, descr.as.o->type, SP_GET))))
        return vm_bind_descriptor(vm, descr, obj, tp);
    if (obj.tag == VAL_OBJ && tp->dict_offset) {
        DictObj *d = *obj_dict_slot(obj.as.o);
        if (d) {
            Value v = dict_get_str(d, name);
            if (!val_is_null(v)) return v;
        }
    }
    if (!val_is_null(descr)) return vm_bind_descriptor(vm, descr, obj, tp);
    if (!raise) return val_null();
    if (tp == vm->t_module) {
        /* PEP 562: a module's own __getattr__(name) answers names it does not have */
        Value hook = dict_get_c(vm, ((ModuleObj *)obj.as.o)->dict, "__getattr__");
        if (!val_is_null(hook)) return vm_call1(vm, hook, val_obj(name));
    }
    return attr_error(vm, obj, name);
}

Value vm_getattr(VM *vm, Value obj, StrObj *name) {
    TypeObj *tp = vm_type_of(vm, obj);
    if (tp == vm->t_type) return type_getattr(vm, AS_TYPE(obj), name, true);
    if (tp->layout == OBJ_LAYOUT_TYPE) {
        /* a metaclass overriding __getattribute__ */
        Value ga = custom_getattribute(vm, tp);
        if (val_is_null(ga) || is_native_fn(ga, type_getattribute_fn)) return type_getattr(vm, AS_TYPE(obj), name, true);
        Value args[2] = {obj, val_obj(name)};
        return vm_call(vm, ga, 2, args, NULL);
    }
    if (tp == vm->t_super) return super_getattr(vm, obj, name);
    Value getattr_hook = (tp->flags & TYPEF_HEAPTYPE) || tp->layout == OBJ_LAYOUT_EXTENSION
                             ? type_special(vm, tp, SP_GETATTR) : val_null();
    Value ga = custom_getattribute(vm, tp);
    Value v;
    if (!val_is_null(ga)) {
        Value args[2] = {obj, val_obj(name)};
        v = vm_call(vm, ga, 2, args, NULL);
        if (!val_is_null(v) || val_is_null(getattr_hook) || !vm_exc_matches(vm, vm->e_AttributeError)) return v;
        vm_clear_exc(vm);
        return vm_call(vm, getattr_hook, 2, args, NULL);
    }
    if (val_is_null(getattr_hook)) return vm_generic_getattr(vm, obj, name, true);
    v = vm_generic_getattr(vm, obj, name, false);
    if (!val_is_null(v)) return v;
    if (!val_is_null(vm->exc)) {
        if (!vm_exc_matches(vm, vm->e_AttributeError)) return v;
        vm_clear_exc(vm);   /* a property raising AttributeError falls back to __getattr__ */
    }
    Value args[2] = {obj, val_obj(name)};
    return vm_call(vm, getattr_hook, 2, args, NULL);
}

Value vm_getattr_c(VM *vm, Value obj, const char *name) {
    StrObj *n = vm_intern_str(vm, name);
    return n ? vm_getattr(vm, obj, n) : val_null();
}

/* CPython's _PyObject_LookupAttr: a missing attribute is VAL_NULL without an exception.  The
 * common cases (plain classes and instances without __getattr__ / __getattribute__ hooks) never
 * make the AttributeError that getattr(x, n, default) and hasattr would only drop: start-up code
 * asks for absent attributes thousands of times. */
Value vm_getattr_opt(VM *vm, Value obj, StrObj *name) {
    TypeObj *tp = vm_type_of(vm, obj);
    Value v;
    if (tp == vm->t_type) {
        v = type_getattr(vm, AS_TYPE(obj), name, false);
    } else if (tp->layout != OBJ_LAYOUT_TYPE && tp != vm->t_super && tp != vm->t_module &&
               !((tp->flags & TYPEF_HEAPTYPE) || tp->layout == OBJ_LAYOUT_EXTENSION
                     ? !val_is_null(type_special(vm, tp, SP_GETATTR)) : false) &&
               val_is_null(custom_getattribute(vm, tp))) {
        v = vm_generic_getattr(vm, obj, name, false);
    } else if (tp == vm->t_module) {
        /* a module without a PEP 562 __getattr__ */
        v = vm_generic_getattr(vm, obj, name, false);
        if (val_is_null(v) && val_is_null(vm->exc) &&
            !val_is_null(dict_get_c(vm, ((ModuleObj *)obj.as.o)->dict, "__getattr__")))
            v = vm_getattr(vm, obj, name);
    } else {
        v = vm_getattr(vm, obj, name);
    }
    if (val_is_null(v) && !val_is_null(vm->exc) && vm_exc_matches(vm, vm->e_AttributeError)) vm_clear_exc(vm);
    return v;
}

int vm_hasattr(VM *vm, Value obj, StrObj *name) {
    Value v = vm_getattr_opt(vm, obj, name);
    if (val_is_null(v) && val_is_null(vm->exc)) return 0;
    if (!val_is_null(v)) return 1;
    if (vm_exc_matches(vm, vm->e_AttributeError)) {
        vm_clear_exc(vm);
        return 0;
    }
    return -1;
}

int vm_generic_setattr(VM *vm, Value obj, StrObj *name, Value v) {
    TypeObj *tp = vm_type_of(vm, obj);
    Value descr = type_lookup(vm, tp, name);
    if (!val_is_null(descr) && descr.tag == VAL_OBJ) {
        TypeObj *dt = descr.as.o->type;
        if (dt == vm->t_getset) {
            GetSetObj *g = (GetSetObj *)descr.as.o;
            if (!g->set) {
                vm_raise(vm, vm->e_AttributeError,
                         "attribute '%s' of '%s' objects is not writable", name->data, tp->name->data);
                return -1;
            }
            return g->set(vm, obj, v, g->closure);
        }
        if (dt == vm->t_member) return member_set(vm, (MemberObj *)descr.as.o, obj, v);
        if (dt == vm->t_property || type_is_subtype(dt, vm->t_property)) {
            PropertyObj *p = (PropertyObj *)descr.as.o;
            Value f = val_is_null(v) ? p->fdel : p->fset;
            if (val_is_null(f) || val_is_none(f)) {
                vm_raise(vm, vm->e_AttributeError, "property '%s' of '%s' object has no %s",
                         name->data, tp->name->data, val_is_null(v) ? "deleter" : "setter");
                return -1;
            }
            Value r = val_is_null(v) ? vm_call1(vm, f, obj) : vm_call2(vm, f, obj, v);
            return val_is_null(r) ? -1 : 0;
        }
        if ((dt->flags & TYPEF_HEAPTYPE) || dt->layout == OBJ_LAYOUT_EXTENSION) {
            Value setter = type_special(vm, dt, val_is_null(v) ? SP_DELETE : SP_SET);
            if (!val_is_null(setter)) {
                Value args[3] = {descr, obj, v};
                Value r = vm_call(vm, setter, val_is_null(v) ? 2 : 3, args, NULL);
                return val_is_null(r) ? -1 : 0;
            }
        }
    }
    if (obj.tag != VAL_OBJ || !tp->dict_offset) {
        if (val_is_null(descr))
            vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'", tp->name->data,
                     name->data);
        else
            vm_raise(vm, vm->e_AttributeError, "'%s' object attribute '%s' is read-only",
                     tp->name->data, name->data);
        return -1;
    }
    DictObj **slot = obj_dict_slot(obj.as.o);
    if (!*slot) {
        if (val_is_null(v)) goto missing;
        vm_push_root(vm, v);
        DictObj *d = dict_new(vm);
        vm_pop_root(vm);
        if (!d) return -1;
        *slot = d;
    }
    if (val_is_null(v)) {
        if (dict_del_str(vm, *slot, name) == 0) goto missing;
        return 0;
    }
    return dict_set_str(vm, *slot, name, v);
missing:
    attr_error(vm, obj, name);
    return -1;
}

int vm_generic_delattr(VM *vm, Value obj, StrObj *name) {
    return vm_generic_setattr(vm, obj, name, val_null());
}

/* A metaclass's own __setattr__/__delattr__ (EnumType guards its members), or VAL_NULL. */
static Value meta_hook(VM *vm, TypeObj *meta, SpecialMethod sp, NativeFn type_fn) {
    if (meta == vm->t_type || !(meta->flags & TYPEF_HEAPTYPE)) return val_null();
    Value h = type_special(vm, meta, sp);
    return val_is_null(h) || is_native_fn(h, type_fn) ? val_null() : h;
}

int vm_setattr(VM *vm, Value obj, StrObj *name, Value v) {
    TypeObj *tp = vm_type_of(vm, obj);
    if (tp == vm->t_type || tp->layout == OBJ_LAYOUT_TYPE) {
        Value h = meta_hook(vm, tp, SP_SETATTR, type_setattr_fn);
        if (val_is_null(h)) return type_setattr(vm, AS_TYPE(obj), name, v);
        Value args[3] = {obj, val_obj(name), v};
        Value r = vm_call(vm, h, 3, args, NULL);
        return val_is_null(r) ? -1 : 0;
    }
    Value hook = type_special(vm, tp, SP_SETATTR);
    if (val_is_null(hook) || is_native_fn(hook, object_setattr_fn))
        return vm_generic_setattr(vm, obj, name, v);
    Value args[3] = {obj, val_obj(name), v};
    Value r = vm_call(vm, hook, 3, args, NULL);
    return val_is_null(r) ? -1 : 0;
}

int vm_delattr(VM *vm, Value obj, StrObj *name) {
    TypeObj *tp = vm_type_of(vm, obj);
    if (tp == vm->t_type || tp->layout == OBJ_LAYOUT_TYPE) {
        Value h = meta_hook(vm, tp, SP_DELATTR, type_delattr_fn);
        if (val_is_null(h)) return type_setattr(vm, AS_TYPE(obj), name, val_null());
        Value args[2] = {obj, val_obj(name)};
        Value r = vm_call(vm, h, 2, args, NULL);
        return val_is_null(r) ? -1 : 0;
    }
    Value hook = type_special(vm, tp, SP_DELATTR);
    if (val_is_null(hook) || is_native_fn(hook, object_delattr_fn))
        return vm_generic_setattr(vm, obj, name, val_null());
    Value args[2] = {obj, val_obj(name)};
    Value r = vm_call(vm, hook, 2, args, NULL);
    return val_is_null(r) ? -1 : 0;
}

int vm_load_method(VM *vm, Value obj, StrObj *name, Value *meth, Value *self) {
    TypeObj *tp = vm_type_of(vm, obj);
    if (tp->layout != OBJ_LAYOUT_TYPE && tp != vm->t_super && tp != vm->t_module &&
        val_is_null(custom_getattribute(vm, tp))) {
        Value descr = type_lookup(vm, tp, name);
        if (descr.tag == VAL_OBJ) {
            TypeObj *dt = descr.as.o->type;
            bool method = dt == vm->t_function ||
                          (dt->layout == OBJ_LAYOUT_NATIVE &&
                           (((NativeObj *)descr.as.o)->flags & NATIVEF_METHOD));
            if (method) {
                if (obj.tag == VAL_OBJ && tp->dict_offset) {
                    DictObj *d = *obj_dict_slot(obj.as.o);
                    if (d) {
                        Value v = dict_get_str(d, name);
                        if (!val_is_null(v)) {
                            *meth = val_null();
                            *self = v;
                            return 0;
                        }
                    }
                }
                if (dt->layout == OBJ_LAYOUT_NATIVE) {
                    NativeObj *n = (NativeObj *)descr.as.o;
                    if (n->owner && !vm_isinstance_type(vm, obj, n->owner)) goto slow;
                }
                *meth = descr;
                *self = obj;
                return 0;
            }
        }
    }
slow:;
    Value v = vm_getattr(vm, obj, name);
    if (val_is_null(v)) return -1;
    *meth = val_null();
    *self = v;
    return 0;
}

/* ---- super --------------------------------------------------------------------------------- */

Value super_new(VM *vm, TypeObj *type, Value obj) {
    TypeObj *ot;
    if (val_is_obj(obj) && vm_isinstance_type(vm, obj, vm->t_type) && type_is_subtype(AS_TYPE(obj), type))
        ot = AS_TYPE(obj);
    else if (vm_isinstance_type(vm, obj, type))
        ot = vm_type_of(vm, obj);
    else
        return vm_raise(vm, vm->e_TypeError,
                        "super(type, obj): obj must be an instance or subtype of type");
    SuperObj *s = gc_alloc(vm, vm->t_super, sizeof(SuperObj));
    if (!s) return val_null();
    s->type = type;
    s->obj = obj;
    s->obj_type = ot;
    return val_obj(s);
}

Value super_getattr(VM *vm, Value su, StrObj *name) {
    SuperObj *s = (SuperObj *)su.as.o;
    TupleObj *mro = s->obj_type->mro;
    int64_t i = 0;
    for (; i < mro->len; i++)
        if (mro->items[i].as.o == (Obj *)s->type) break;
    bool obj_is_type = val_is_obj(s->obj) && s->obj.as.o == (Obj *)s->obj_type;
    if (!str_eq_c(name, "__class__")) {
        for (i++; i < mro->len; i++) {
            TypeObj *c = (TypeObj *)mro->items[i].as.o;
            Value v = dict_get_str(c->dict, name);
            if (val_is_null(v)) continue;
            return vm_bind_descriptor(vm, v, obj_is_type ? val_null() : s->obj, s->obj_type);
        }
    }
    Value v = vm_generic_getattr(vm, su, name, false);
    if (!val_is_null(v) || !val_is_null(vm->exc)) return v;
    return vm_raise(vm, vm->e_AttributeError, "'super' object has no attribute '%s'", name->data);
}

/* ---- inline-cache fills for the interpreter ----------------------------------------------------
 * Each returns true when attribute access on instances of t with this name can take the fast
 * path (checked against the cached type and class epoch):
 *   load:   no class attribute shadows the instance dict, and no __getattribute__ override;
 *           a miss in the dict takes the slow path (which handles __getattr__ and errors)
 *   store:  the generic __setattr__ and no data descriptor: an existing dict entry is updated
 *   method: the class attribute is a plain function or native method; the instance dict is
 *           still checked for a shadowing entry on every call */

bool attr_cache_fill_load(VM *vm, TypeObj *t, StrObj *name, InlineCache *c) {
    if (!t->dict_offset || t->layout == OBJ_LAYOUT_TYPE || t == vm->t_super) return false;
    Value ga = type_special(vm, t, SP_GETATTRIBUTE);
    if (!val_is_null(ga) && (ga.tag != VAL_OBJ || ga.as.o->type->layout != OBJ_LAYOUT_NATIVE)) return false;
    if (!val_is_null(type_lookup(vm, t, name))) return false;
    c->key1 = (uint64_t)(uintptr_t)t;
    c->key2 = vm->class_epoch;
    c->hint = 0;
    return true;
}

bool attr_cache_fill_store(VM *vm, TypeObj *t, StrObj *name, InlineCache *c) {
    if (!t->dict_offset || t->layout == OBJ_LAYOUT_TYPE) return false;
    Value hook = type_special(vm, t, SP_SETATTR);
    if (!val_is_null(hook) && !is_native_fn(hook, object_setattr_fn)) return false;
    Value descr = type_lookup(vm, t, name);
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) return false;
    c->key1 = (uint64_t)(uintptr_t)t;
    c->key2 = vm->class_epoch;
    c->hint = 0;
    return true;
}

bool attr_cache_fill_method(VM *vm, CodeObj *co, TypeObj *t, StrObj *name, InlineCache *c) {
    if (t->layout == OBJ_LAYOUT_TYPE || t == vm->t_super || t == vm->t_module) return false;
    Value descr = type_lookup(vm, t, name);
    if (descr.tag != VAL_OBJ) return false;
    TypeObj *dt = descr.as.o->type;
    bool ok = dt == vm->t_function;
    if (dt->layout == OBJ_LAYOUT_NATIVE) {
        NativeObj *n = (NativeObj *)descr.as.o;
        ok = (n->flags & NATIVEF_METHOD) && (!n->owner || type_is_subtype(t, n->owner));
    }
    if (!ok) return false;
    c->key1 = (uint64_t)(uintptr_t)t;
    c->key2 = vm->class_epoch;
    code_cache_set_value(co, c, descr);
    c->hint = -1;   /* no instance dict's keys known yet (LOAD_METHOD) */
    return true;
}
