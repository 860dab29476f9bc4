/* vm/object.c — the methods and descriptors of object and type, the descriptor types
 * (property, staticmethod, classmethod, super, getset), and the singletons None,
 * NotImplemented and Ellipsis. */
#include <stdlib.h>
#include <string.h>

#include "vm/descr.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

/* ---- object ------------------------------------------------------------------------------- */

Value object_init_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);

static bool is_native_fn(Value v, NativeFn f) {
    return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)v.as.o)->fn == f;
}

Value object_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc < 1)
        return vm_raise(vm, vm->e_TypeError, "object.__new__(): not enough arguments");
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "object.__new__(X): X is not a type object (%s)", vm_type_name(vm, argv[0]));
    TypeObj *t = AS_TYPE(argv[0]);
    if (argc > 1 || (kw && kw->len)) {
        /* extra arguments are an error unless __init__ is overridden and __new__ is not
         * (CPython's object_new) */
        if (!is_native_fn(type_special(vm, t, SP_NEW), object_new_fn))
            return vm_raise(vm, vm->e_TypeError, "object.__new__() takes exactly one argument (the type to instantiate)");
        if (is_native_fn(type_special(vm, t, SP_INIT), object_init_fn))
            return vm_raise(vm, vm->e_TypeError, "%s() takes no arguments", t->name->data);
    }
    if (t->flags & TYPEF_ABSTRACT_NEW)
        return vm_raise(vm, vm->e_TypeError, "object.__new__(%s) is not safe, use %s.__new__()", t->name->data, t->name->data);
    if (t->flags & TYPEF_IS_ABSTRACT) return type_abstract_error(vm, t);
    return t->alloc(vm, t);
}

/* "Can't instantiate abstract class C with abstract methods a, b" (sorted, as CPython) */
Value type_abstract_error(VM *vm, TypeObj *t) {
    Value am = dict_get_c(vm, t->dict, "__abstractmethods__");
    ListObj *l = val_is_null(am) ? list_new(vm, 0) : vm_list_from_iterable(vm, am);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    if (list_sort(vm, l, val_null(), false) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < l->len; i++) {
        if (i) sb_adds(&b, ", ");
        Value s = vm_str(vm, l->items[i]);
        if (val_is_null(s)) {
            sb_free(&b);
            vm_pop_root(vm);
            return s;
        }
        sb_add_str(&b, AS_STR(s));
    }
    int64_t n = l->len;   /* read before the list is unrooted: sb_finish allocates and may collect it */
    vm_pop_root(vm);
    StrObj *names = sb_finish(vm, &b);
    if (!names) return val_null();
    return vm_raise(vm, vm->e_TypeError, "Can't instantiate abstract class %s with abstract method%s %s", t->name->data,
                    n == 1 ? "" : "s", names->data);
}

/* object.__lt__ and friends: NotImplemented (the reflected operation or a TypeError follows) */
static Value object_order(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    return vm->not_implemented;
}

static Value object_subclasshook(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return vm->not_implemented;
}

static Value object_sizeof(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TypeObj *t = vm_type_of(vm, argv[0]);
    return val_int((int64_t)(argv[0].tag == VAL_OBJ ? argv[0].as.o->size : t->instance_size));
}

Value object_init_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int extra = argc - 1 + (kw ? (int)kw->len : 0);
    if (extra > 0) {
        /* CPython's object_init: an error unless __new__ is overridden and __init__ is not */
        TypeObj *t = vm_type_of(vm, argv[0]);
        if (!is_native_fn(type_special(vm, t, SP_INIT), object_init_fn))
            return vm_raise(vm, vm->e_TypeError,
                            "object.__init__() takes exactly one argument (the instance to initialize)");
        if (is_native_fn(type_special(vm, t, SP_NEW), object_new_fn))
            return vm_raise(vm, vm->e_TypeError, "%s() takes no arguments", t->name->data);
    }
    return val_none();
}

static Value object_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TypeObj *t = vm_type_of(vm, argv[0]);
    StrObj *name = type_repr_name(vm, t);
    if (!name) return val_null();
    StrObj *s = str_printf(vm, "<%s object at %p>", name->data, (void *)argv[0].as.o);
    return s ? val_obj(s) : val_null();
}

static Value object_str(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return vm_repr(vm, argv[0]);
}

static Value object_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__eq__", argc, kw, 2, 2) < 0) return val_null();
    return val_identical(argv[0], argv[1]) ? val_bool(true) : vm->not_implemented;
}

static Value object_ne(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__ne__", argc, kw, 2, 2) < 0) return val_null();
    /* __ne__ inverts __eq__ unless that is NotImplemented */
    Value eq = type_special(vm, vm_type_of(vm, argv[0]), SP_EQ);
    if (val_is_null(eq)) return vm->not_implemented;
    Value r = vm_call_special(vm, argv[0], SP_EQ, 1, &argv[1]);
    if (val_is_null(r) || val_identical(r, vm->not_implemented)) return r;
    int t = vm_truthy(vm, r);
    return t < 0 ? val_null() : val_bool(!t);
}

static Value object_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return val_int(hash_pointer(argv[0].as.o));
}

Value object_setattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__setattr__", argc, kw, 3, 3) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    if (vm_generic_setattr(vm, argv[0], AS_STR(argv[1]), argv[2]) < 0) return val_null();
    return val_none();
}

Value object_delattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__delattr__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    if (vm_generic_delattr(vm, argv[0], AS_STR(argv[1])) < 0) return val_null();
    return val_none();
}

Value object_getattribute_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__getattribute__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    return vm_generic_getattr(vm, argv[0], AS_STR(argv[1]), true);
}

static Value object_format(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    if (val_is_str(vm, argv[1]) && AS_STR(argv[1])->len)
        return vm_raise(vm, vm->e_TypeError, "unsupported format string passed to %s.__format__",
                        vm_type_name(vm, argv[0]));
    return vm_str(vm, argv[0]);
}

static Value object_init_subclass(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc > 1 || (kw && kw->len))
        return vm_raise(vm, vm->e_TypeError, "%s.__init_subclass__() takes no keyword arguments",
                        val_is_obj(argv[0]) ? AS_TYPE(argv[0])->name->data : "object");
    return val_none();
}

static Value object_dir(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *names = dict_new(vm);
    if (!names) return val_null();
    vm_push_root(vm, val_obj(names));
    Value self = argv[0];
    TypeObj *t = vm_type_of(vm, self);
    if (self.tag == VAL_OBJ && t->dict_offset) {
        DictObj *d = *obj_dict_slot(self.as.o);
        if (d && dict_merge_dict(vm, names, d) < 0) goto fail;
    }
    for (int64_t i = 0; i < t->mro->len; i++)
        if (dict_merge_dict(vm, names, ((TypeObj *)t->mro->items[i].as.o)->dict) < 0) goto fail;
    ListObj *l = vm_list_from_iterable(vm, val_obj(names));
    if (!l) goto fail;
    vm_push_root(vm, val_obj(l));
    int rc = list_sort(vm, l, val_null(), false);
    vm_pop_roots(vm, 2);
    return rc < 0 ? val_null() : val_obj(l);
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value object_get_class(VM *vm, Value s, void *c) { return val_obj(vm_type_of(vm, s)); }
static int object_set_class(VM *vm, Value s, Value v, void *c) {
    TypeObj *old = vm_type_of(vm, s);
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_type)) {
        vm_raise(vm, vm->e_TypeError, "__class__ must be set to a class, not '%s' object", vm_type_name(vm, v));
        return -1;
    }
    TypeObj *nt = AS_TYPE(v);
    bool target_ok = (nt->flags & TYPEF_HEAPTYPE) || ((nt->flags & TYPEF_CLASS_TARGET) && type_is_subtype(old, nt) &&
                                                      nt->dict_offset == old->dict_offset);
    if (s.tag != VAL_OBJ || !(old->flags & TYPEF_HEAPTYPE) || !target_ok || nt->layout != old->layout ||
        nt->instance_size != old->instance_size) {
        vm_raise(vm, vm->e_TypeError, "__class__ assignment only supported for compatible classes");
        return -1;
    }
    s.as.o->type = nt;
    return 0;
}
/* ---- type ----------------------------------------------------------------------------------- */

#define TY(v) ((TypeObj *)(v).as.o)
static Value type_get_name(VM *vm, Value s, void *c) { return val_obj(TY(s)->name); }
static int type_set_name(VM *vm, Value s, Value v, void *c) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "can only assign string to %s.__name__", TY(s)->name->data);
        return -1;
    }
    TY(s)->name = AS_STR(v);
    return 0;
}
static Value type_get_qualname(VM *vm, Value s, void *c) { return val_obj(type_qualname(TY(s))); }
static int type_set_qualname(VM *vm, Value s, Value v, void *c) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "can only assign string to %s.__qualname__", TY(s)->name->data);
        return -1;
    }
    TY(s)->qualname = AS_STR(v);
    return 0;
}
static Value type_get_module(VM *vm, Value s, void *c) {
    /* a class's __module__ is in its dict; a built-in type's is where it was defined (the
     * dict of `type` itself holds this descriptor under that name) */
    Value m = (TY(s)->flags & TYPEF_HEAPTYPE) ? dict_get_c(vm, TY(s)->dict, "__module__") : val_null();
    if (!val_is_null(m)) return m;
    return val_is_null(TY(s)->module) ? vm_intern(vm, "builtins") : TY(s)->module;
}
static int type_set_module(VM *vm, Value s, Value v, void *c) {
    TY(s)->module = v;
    return dict_set_c(vm, TY(s)->dict, "__module__", v);
}
static Value type_get_bases(VM *vm, Value s, void *c) { return val_obj(TY(s)->bases); }
static int type_set_bases_fn(VM *vm, Value s, Value v, void *c) { return type_set_bases(vm, TY(s), v); }
static Value type_get_base(VM *vm, Value s, void *c) { return TY(s)->base ? val_obj(TY(s)->base) : val_none(); }
static Value type_get_mro(VM *vm, Value s, void *c) { return val_obj(TY(s)->mro); }
static Value type_get_dict(VM *vm, Value s, void *c) {
    /* read-only: writes go through setattr so the method caches see them */
    return mappingproxy_new(vm, val_obj(TY(s)->dict));
}
/* __abstractmethods__: stored in the class dict; a non-empty value marks the class abstract */
static Value type_get_abstract(VM *vm, Value s, void *c) {
    Value v = TY(s) == vm->t_type ? val_null() : dict_get_c(vm, TY(s)->dict, "__abstractmethods__");
    if (val_is_null(v)) return vm_raise(vm, vm->e_AttributeError, "__abstractmethods__");
    return v;
}
static int type_set_abstract(VM *vm, Value s, Value v, void *c) {
    TypeObj *t = TY(s);
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError, "cannot set '__abstractmethods__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    int abstract = 0;
    if (val_is_null(v)) {
        if (dict_del_str(vm, t->dict, vm_intern_str(vm, "__abstractmethods__")) == 0) {
            vm_raise(vm, vm->e_AttributeError, "__abstractmethods__");
            return -1;
        }
    } else {
        abstract = vm_truthy(vm, v);
        if (abstract < 0 || dict_set_c(vm, t->dict, "__abstractmethods__", v) < 0) return -1;
    }
    if (abstract) t->flags |= TYPEF_IS_ABSTRACT;
    else t->flags &= ~(uint32_t)TYPEF_IS_ABSTRACT;
    type_modified(vm, t);
    return 0;
}
/* __flags__ with CPython's bits (inspect.isabstract tests Py_TPFLAGS_IS_ABSTRACT) */
static Value type_get_flags(VM *vm, Value s, void *c) {
    TypeObj *t = TY(s);
    int64_t f = 0;
    if (t->flags & TYPEF_HEAPTYPE) f |= 1 << 9;
    if (t->flags & TYPEF_BASETYPE) f |= 1 << 10;
    f |= 1 << 12;   /* READY */
    if (t->flags & TYPEF_IS_ABSTRACT) f |= 1 << 20;
    if (t->layout == OBJ_LAYOUT_INT) f |= 1 << 24;
    if (t->layout == OBJ_LAYOUT_LIST) f |= 1 << 25;
    if (t->layout == OBJ_LAYOUT_TUPLE) f |= 1 << 26;
    if (t->layout == OBJ_LAYOUT_BYTES) f |= 1 << 27;
    if (t->layout == OBJ_LAYOUT_STR) f |= 1 << 28;
    if (t->layout == OBJ_LAYOUT_DICT) f |= 1 << 29;
    if (t->flags & TYPEF_EXCEPTION) f |= 1 << 30;
    if (t->layout == OBJ_LAYOUT_TYPE) f |= (int64_t)1 << 31;
    return val_int(f);
}
/* __annotations__ of a class: its dict's (made empty on first read), AttributeError for
 * built-in types */
static Value type_get_annotations(VM *vm, Value s, void *c) {
    TypeObj *t = TY(s);
    if (!(t->flags & TYPEF_HEAPTYPE))
        return vm_raise(vm, vm->e_AttributeError, "type object '%s' has no attribute '__annotations__'", t->name->data);
    Value a = dict_get_c(vm, t->dict, "__annotations__");
    if (!val_is_null(a)) return vm_bind_descriptor(vm, a, val_null(), t);
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int rc = dict_set_c(vm, t->dict, "__annotations__", val_obj(d));
    vm_pop_root(vm);
    if (rc < 0) return val_null();
    type_modified(vm, t);
    return val_obj(d);
}
static int type_set_annotations(VM *vm, Value s, Value v, void *c) {
    TypeObj *t = TY(s);
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError, "cannot set '__annotations__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    int rc;
    if (val_is_null(v)) {
        if (dict_del_str(vm, t->dict, vm_intern_str(vm, "__annotations__")) == 0) {
            vm_raise(vm, vm->e_AttributeError, "__annotations__");
            return -1;
        }
        rc = 0;
    } else {
        rc = dict_set_c(vm, t->dict, "__annotations__", v);
    }
    type_modified(vm, t);
    return rc;
}
static Value type_get_basicsize(VM *vm, Value s, void *c) { return val_int((int64_t)TY(s)->instance_size); }
static Value type_get_itemsize(VM *vm, Value s, void *c) {
    ObjLayout l = TY(s)->layout;
    return val_int(l == OBJ_LAYOUT_TUPLE || l == OBJ_LAYOUT_BYTES ? 8 : l == OBJ_LAYOUT_INT ? 4 : 0);
}
static Value type_get_dictoffset(VM *vm, Value s, void *c) { return val_int((int64_t)TY(s)->dict_offset); }
static Value type_get_text_signature(VM *vm, Value s, void *c) { return val_none(); }

static Value type_get_doc(VM *vm, Value s, void *c) {
    Value d = dict_get_c(vm, TY(s)->dict, "__doc__");
    return val_is_null(d) ? val_none() : d;
}
/* CPython's type_set_doc: heap types only, stored in the class dict */
static int type_set_doc(VM *vm, Value s, Value v, void *c) {
    TypeObj *t = TY(s);
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError, "cannot set '__doc__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "cannot delete '__doc__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    int rc = dict_set_c(vm, t->dict, "__doc__", v);
    type_modified(vm, t);
    return rc;
}

static Value type_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    StrObj *n = type_repr_name(vm, TY(argv[0]));
    if (!n) return val_null();
    StrObj *s = str_printf(vm, "<class '%s'>", n->data);
    return s ? val_obj(s) : val_null();
}

static Value type_mro_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *m = TY(argv[0])->mro;
    ListObj *l = list_from_array(vm, m->items, m->len);
    return l ? val_obj(l) : val_null();
}

static Value type_subclasses(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *l = type_subclasses_of(vm, TY(argv[0]));
    return l ? val_obj(l) : val_null();
}

static Value type_instancecheck(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__instancecheck__", argc, kw, 2, 2) < 0) return val_null();
    int r = type_real_isinstance(vm, argv[1], argv[0]);
    return r < 0 ? val_null() : val_bool(r);
}

static Value type_subclasscheck(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__subclasscheck__", argc, kw, 2, 2) < 0) return val_null();
    int r = type_real_issubclass(vm, argv[1], argv[0]);
    return r < 0 ? val_null() : val_bool(r);
}

Value type_call_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return type_call(vm, TY(argv[0]), argc - 1, argv + 1, kw);
}

/* type.__new__(meta, name, bases, ns, **kwds): the keywords go to __init_subclass__; the class
 * gets the most derived metaclass (whose own __new__ runs instead if it has one). */
static Value type_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (argc < 1 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "type.__new__(X): X is not a type object (%s)",
                        argc ? vm_type_name(vm, argv[0]) : "nothing");
    TypeObj *meta = TY(argv[0]);
    int nkw = kw ? (int)kw->len : 0;
    if (meta == vm->t_type && argc == 2 && !nkw) return val_obj(vm_type_of(vm, argv[1]));
    if (argc != 4)
        return vm_raise(vm, vm->e_TypeError, "type.__new__() takes exactly 3 arguments (%d given)", argc - 1);
    if (!val_is_obj(argv[1]) || argv[1].as.o->type->layout != OBJ_LAYOUT_STR)
        return vm_raise(vm, vm->e_TypeError, "type.__new__() argument 1 must be str, not %s", vm_type_name(vm, argv[1]));
    if (!val_is_obj(argv[2]) || argv[2].as.o->type->layout != OBJ_LAYOUT_TUPLE)
        return vm_raise(vm, vm->e_TypeError, "type.__new__() argument 2 must be tuple, not %s", vm_type_name(vm, argv[2]));
    if (!val_is_obj(argv[3]) || !vm_isinstance_type(vm, argv[3], vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "type.__new__() argument 3 must be dict, not %s", vm_type_name(vm, argv[3]));
    TypeObj *winner = type_calculate_metaclass(vm, meta, AS_TUPLE(argv[2]));
    if (!winner) return val_null();
    if (winner != meta) {
        Value wn = type_special(vm, winner, SP_NEW);
        if (!is_native_fn(wn, type_new_fn)) {
            if (val_is_type(vm, wn, vm->t_staticmethod)) wn = ((WrapperObj *)wn.as.o)->func;
            Value *a = malloc(sizeof(Value) * (size_t)(argc + nkw));
            if (!a) return vm_no_memory(vm);
            memcpy(a, argv, sizeof(Value) * (size_t)(argc + nkw));
            a[0] = val_obj(winner);
            Value r = vm_call(vm, wn, argc, a, kw);
            free(a);
            return r;
        }
        meta = winner;
    }
    StrObj *name = AS_STR(argv[1]);
    if (name->hdr.type != vm->t_str) {
        name = str_new(vm, name->data, name->len);
        if (!name) return val_null();
    }
    vm_push_root(vm, val_obj(name));
    Value r = type_new_class(vm, meta, name, AS_TUPLE(argv[2]), AS_DICT(argv[3]), nkw, argv + argc, kw);
    vm_pop_root(vm);
    return r;
}

/* type.__init__(cls, name, bases, ns, **kwds): the class is complete already; only checks. */
static Value type_init_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int n = argc - 1;
    if (n == 1 && kw && kw->len) return vm_raise(vm, vm->e_TypeError, "type.__init__() takes no keyword arguments");
    if (n != 1 && n != 3) return vm_raise(vm, vm->e_TypeError, "type.__init__() takes 1 or 3 arguments");
    return val_none();
}

/* type.__prepare__(name, bases, **kwds): the class body's namespace, a new dict. */
static Value type_prepare_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    DictObj *d = dict_new(vm);
    return d ? val_obj(d) : val_null();
}

/* type.__setattr__ / __delattr__ / __getattribute__: what a metaclass's override reaches with
 * super() (object's would treat the class as an instance). */
Value type_setattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__setattr__", argc, kw, 3, 3) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    StrObj *name = str_intern(vm, AS_STR(argv[1]));
    if (!name || type_setattr(vm, TY(argv[0]), name, argv[2]) < 0) return val_null();
    return val_none();
}
Value type_delattr_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__delattr__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    StrObj *name = str_intern(vm, AS_STR(argv[1]));
    if (!name || type_setattr(vm, TY(argv[0]), name, val_null()) < 0) return val_null();
    return val_none();
}
Value type_getattribute_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__getattribute__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, argv[1]));
    StrObj *name = str_intern(vm, AS_STR(argv[1]));
    return name ? type_getattr(vm, TY(argv[0]), name, true) : val_null();
}

/* ---- property / staticmethod / classmethod ----------------------------------------------------- */

static void property_trace(VM *vm, Obj *o) {
    PropertyObj *p = (PropertyObj *)o;
    gc_mark_value(vm, p->fget);
    gc_mark_value(vm, p->fset);
    gc_mark_value(vm, p->fdel);
    gc_mark_value(vm, p->doc);
    gc_mark_value(vm, p->name);
    gc_mark(vm, p->dict);
}

static Value property_alloc(VM *vm, TypeObj *t) {
    PropertyObj *p = gc_alloc(vm, t, t->instance_size);
    if (!p) return val_null();
    p->fget = p->fset = p->fdel = p->doc = p->name = val_none();
    return val_obj(p);
}

Value property_new(VM *vm, Value fget, Value fset, Value fdel, Value doc) {
    Value p = property_alloc(vm, vm->t_property);
    if (val_is_null(p)) return p;
    PropertyObj *po = (PropertyObj *)p.as.o;
    po->fget = fget;
    po->fset = fset;
    po->fdel = fdel;
    po->doc = doc;
    if (val_is_none(doc) && !val_is_none(fget)) {
        vm_push_root(vm, p);
        Value d = vm_getattr_opt(vm, fget, vm_intern_str(vm, "__doc__"));
        vm_pop_root(vm);
        if (!val_is_null(d)) po->doc = d;
        else if (!val_is_null(vm->exc)) return val_null();
    }
    return p;
}

static Value property_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "fget", "fset", "fdel", "doc"};
    Value a[5];
    if (native_parse_args(vm, "property", argc, argv, kw, 5, 1, names, 5, a) < 0) return val_null();
    PropertyObj *p = (PropertyObj *)argv[0].as.o;
    p->fget = val_is_null(a[1]) ? val_none() : a[1];
    p->fset = val_is_null(a[2]) ? val_none() : a[2];
    p->fdel = val_is_null(a[3]) ? val_none() : a[3];
    p->doc = val_is_null(a[4]) ? val_none() : a[4];
    if (val_is_none(p->doc) && !val_is_none(p->fget)) {
        Value d = vm_getattr_opt(vm, p->fget, vm_intern_str(vm, "__doc__"));
        if (!val_is_null(d)) p->doc = d;
        else if (!val_is_null(vm->exc)) return val_null();
    }
    return val_none();
}

static Value property_copy_with(VM *vm, Value self, int which, Value f) {
    PropertyObj *p = (PropertyObj *)self.as.o;
    if (self.as.o->type != vm->t_property) {
        /* a subclass is called as CPython's property_copy does, so its __init__ runs */
        Value none = val_none();
        Value args[4] = {which == 0 ? f : p->fget, which == 1 ? f : p->fset, which == 2 ? f : p->fdel,
                         p->doc};
        for (int i = 0; i < 4; i++)
            if (val_is_null(args[i])) args[i] = none;
        Value n = vm_call(vm, val_obj(self.as.o->type), 4, args, NULL);
        if (val_is_null(n)) return n;
        if (vm_isinstance_type(vm, n, vm->t_property)) ((PropertyObj *)n.as.o)->name = p->name;
        return n;
    }
    Value n = property_alloc(vm, self.as.o->type);
    if (val_is_null(n)) return n;
    PropertyObj *q = (PropertyObj *)n.as.o;
    q->fget = which == 0 ? f : p->fget;
    q->fset = which == 1 ? f : p->fset;
    q->fdel = which == 2 ? f : p->fdel;
    q->doc = p->doc;
    q->name = p->name;
    return n;
}
static Value property_getter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "getter", argc, kw, 2, 2) < 0) return val_null();
    return property_copy_with(vm, argv[0], 0, argv[1]);
}
static Value property_setter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "setter", argc, kw, 2, 2) < 0) return val_null();
    return property_copy_with(vm, argv[0], 1, argv[1]);
}
static Value property_deleter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "deleter", argc, kw, 2, 2) < 0) return val_null();
    return property_copy_with(vm, argv[0], 2, argv[1]);
}
/* property.__get__/__set__/__delete__, for code that calls them by name */
Value property_get_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__get__", argc, kw, 2, 3) < 0) return val_null();
    if (val_is_none(argv[1])) return argv[0];
    PropertyObj *p = (PropertyObj *)argv[0].as.o;
    if (val_is_null(p->fget) || val_is_none(p->fget))
        return vm_raise(vm, vm->e_AttributeError, "property '%s' of '%s' object has no getter",
                        val_is_str(vm, p->name) ? AS_STR(p->name)->data : "?", vm_type_name(vm, argv[1]));
    return vm_call1(vm, p->fget, argv[1]);
}
static Value property_set_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    bool del = fn->data != NULL;
    if (native_check_args(vm, del ? "__delete__" : "__set__", argc, kw, del ? 2 : 3, del ? 2 : 3) < 0) return val_null();
    PropertyObj *p = (PropertyObj *)argv[0].as.o;
    Value f = del ? p->fdel : p->fset;
    if (val_is_null(f) || val_is_none(f))
        return vm_raise(vm, vm->e_AttributeError, "property '%s' of '%s' object has no %s",
                        val_is_str(vm, p->name) ? AS_STR(p->name)->data : "?", vm_type_name(vm, argv[1]),
                        del ? "deleter" : "setter");
    Value r = del ? vm_call1(vm, f, argv[1]) : vm_call2(vm, f, argv[1], argv[2]);
    return val_is_null(r) ? r : val_none();
}
static Value property_set_name(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__set_name__", argc, kw, 3, 3) < 0) return val_null();
    ((PropertyObj *)argv[0].as.o)->name = argv[2];
    return val_none();
}
static Value property_get_fget(VM *vm, Value s, void *c) { return ((PropertyObj *)s.as.o)->fget; }
static Value property_get_fset(VM *vm, Value s, void *c) { return ((PropertyObj *)s.as.o)->fset; }
static Value property_get_fdel(VM *vm, Value s, void *c) { return ((PropertyObj *)s.as.o)->fdel; }
static Value property_get_doc(VM *vm, Value s, void *c) { return ((PropertyObj *)s.as.o)->doc; }
static int property_set_doc(VM *vm, Value s, Value v, void *c) {
    ((PropertyObj *)s.as.o)->doc = val_is_null(v) ? val_none() : v;
    return 0;
}

static void wrapper_trace(VM *vm, Obj *o) {
    gc_mark_value(vm, ((WrapperObj *)o)->func);
    gc_mark(vm, ((WrapperObj *)o)->dict);
}
static Value wrapper_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, fn->owner->name->data, argc, kw, 2, 2) < 0) return val_null();
    WrapperObj *w = (WrapperObj *)argv[0].as.o;
    w->func = argv[1];
    /* CPython 3.10+: the wrapper takes the function's __module__, __name__, __qualname__,
     * __doc__ and __annotations__ (functools.wraps-style) */
    static const char *const attrs[] = {"__module__", "__name__", "__qualname__", "__doc__", "__annotations__", NULL};
    for (int i = 0; attrs[i]; i++) {
        StrObj *n = vm_intern_str(vm, attrs[i]);
        Value v = n ? vm_getattr_opt(vm, argv[1], n) : val_null();
        if (val_is_null(v)) {
            if (!val_is_null(vm->exc)) return val_null();
            continue;
        }
        if (!w->dict) {
            vm_push_root(vm, v);
            DictObj *d = dict_new(vm);
            vm_pop_root(vm);
            if (!d) return val_null();
            w->dict = d;
        }
        if (dict_set_str(vm, w->dict, n, v) < 0) return val_null();
    }
    return val_none();
}
/* __isabstractmethod__ of a wrapper or property: whether what it wraps is abstract */
static int is_abstract(VM *vm, Value f) {
    if (val_is_null(f) || val_is_none(f)) return 0;
    Value v = vm_getattr_opt(vm, f, vm_intern_str(vm, "__isabstractmethod__"));
    if (val_is_null(v)) return val_is_null(vm->exc) ? 0 : -1;
    return vm_truthy(vm, v);
}
static Value wrapper_get_isabstract(VM *vm, Value s, void *c) {
    int r = is_abstract(vm, ((WrapperObj *)s.as.o)->func);
    return r < 0 ? val_null() : val_bool(r);
}
static Value property_get_isabstract(VM *vm, Value s, void *c) {
    PropertyObj *p = (PropertyObj *)s.as.o;
    Value fs[3] = {p->fget, p->fset, p->fdel};
    for (int i = 0; i < 3; i++) {
        int r = is_abstract(vm, fs[i]);
        if (r) return r < 0 ? val_null() : val_bool(true);
    }
    return val_bool(false);
}
static Value wrapper_get_func(VM *vm, Value s, void *c) { return ((WrapperObj *)s.as.o)->func; }
static Value wrapper_get(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value obj = argc > 1 && !val_is_none(argv[1]) ? argv[1] : val_null();
    TypeObj *owner = argc > 2 && val_is_obj(argv[2]) && vm_isinstance_type(vm, argv[2], vm->t_type) ? AS_TYPE(argv[2]) : NULL;
    return vm_bind_descriptor(vm, argv[0], obj, owner);
}

/* ---- super ----------------------------------------------------------------------------------- */

static void super_trace(VM *vm, Obj *o) {
    SuperObj *s = (SuperObj *)o;
    gc_mark(vm, s->type);
    gc_mark_value(vm, s->obj);
    gc_mark(vm, s->obj_type);
}

/* super() with no arguments: the enclosing class from the __class__ cell and the first
 * argument of the calling frame. */
static Value super_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value cls, obj;
    if (argc - 1 == 2) {
        cls = argv[1];
        obj = argv[2];
    } else if (argc - 1 == 0) {
        Frame *f = vm->frame;
        if (!f || !f->code || f->code->argcount == 0 || !f->func)
            return vm_raise(vm, vm->e_RuntimeError, "super(): no arguments");
        CodeObj *co = f->code;
        obj = f->localsplus[0];
        /* the first argument may live in a cell */
        for (int64_t i = 0; i < co->cellvars->len; i++)
            if (co->cell2arg[i] == 0) obj = ((CellObj *)f->localsplus[co->nlocals + i].as.o)->v;
        if (val_is_null(obj)) return vm_raise(vm, vm->e_RuntimeError, "super(): arg[0] deleted");
        cls = val_null();
        int64_t nc = co->cellvars->len;
        for (int64_t i = 0; i < co->freevars->len; i++)
            if (str_eq_c(AS_STR(co->freevars->items[i]), "__class__")) {
                cls = ((CellObj *)f->localsplus[co->nlocals + nc + i].as.o)->v;
                break;
            }
        if (val_is_null(cls)) return vm_raise(vm, vm->e_RuntimeError, "super(): __class__ cell not found");
    } else {
        return vm_raise(vm, vm->e_TypeError, "super() takes 0 or 2 arguments");
    }
    if (!val_is_obj(cls) || !vm_isinstance_type(vm, cls, vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "super() argument 1 must be a type, not %s", vm_type_name(vm, cls));
    return super_new(vm, AS_TYPE(cls), obj);
}

static Value super_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    SuperObj *s = (SuperObj *)argv[0].as.o;
    StrObj *r = str_printf(vm, "<super: <class '%s'>, <%s object>>", s->type->name->data, s->obj_type->name->data);
    return r ? val_obj(r) : val_null();
}

/* ---- None, NotImplemented, Ellipsis ------------------------------------------------------------ */

static Value none_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return vm_intern(vm, "None"); }
static Value none_bool(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_bool(false); }
static Value notimpl_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return vm_intern(vm, "NotImplemented");
}
static Value ellipsis_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return vm_intern(vm, "Ellipsis");
}

static Value getset_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    GetSetObj *g = (GetSetObj *)argv[0].as.o;
    StrObj *s = str_printf(vm, "<attribute '%s' of '%s' objects>", g->name, g->owner ? g->owner->name->data : "?");
    return s ? val_obj(s) : val_null();
}

static void getset_trace(VM *vm, Obj *o) { gc_mark(vm, ((GetSetObj *)o)->owner); }

void type_init_methods(VM *vm) {
    static const MethodDef obj_m[] = {
        {"__new__", object_new_fn, NATIVEF_STATIC},
        {"__init__", object_init_fn, NATIVEF_METHOD},
        {"__repr__", object_repr, NATIVEF_METHOD},
        {"__str__", object_str, NATIVEF_METHOD},
        {"__eq__", object_eq, NATIVEF_METHOD},
        {"__ne__", object_ne, NATIVEF_METHOD},
        {"__hash__", object_hash, NATIVEF_METHOD},
        {"__setattr__", object_setattr_fn, NATIVEF_METHOD},
        {"__delattr__", object_delattr_fn, NATIVEF_METHOD},
        {"__getattribute__", object_getattribute_fn, NATIVEF_METHOD},
        {"__format__", object_format, NATIVEF_METHOD},
        {"__init_subclass__", object_init_subclass, NATIVEF_CLASSMETHOD},
        {"__dir__", object_dir, NATIVEF_METHOD},
        {"__lt__", object_order, NATIVEF_METHOD}, {"__le__", object_order, NATIVEF_METHOD},
        {"__gt__", object_order, NATIVEF_METHOD}, {"__ge__", object_order, NATIVEF_METHOD},
        {"__subclasshook__", object_subclasshook, NATIVEF_CLASSMETHOD},
        {"__sizeof__", object_sizeof, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef obj_gs[] = {
        {"__class__", object_get_class, object_set_class},
        {NULL}};
    static const MethodDef type_m[] = {
        {"__repr__", type_repr, NATIVEF_METHOD},
        {"__call__", type_call_fn, NATIVEF_METHOD},
        {"__new__", type_new_fn, NATIVEF_STATIC},
        {"__init__", type_init_fn, NATIVEF_METHOD},
        {"__prepare__", type_prepare_fn, NATIVEF_CLASSMETHOD},
        {"__setattr__", type_setattr_fn, NATIVEF_METHOD},
        {"__delattr__", type_delattr_fn, NATIVEF_METHOD},
        {"__getattribute__", type_getattribute_fn, NATIVEF_METHOD},
        {"mro", type_mro_fn, NATIVEF_METHOD},
        {"__subclasses__", type_subclasses, NATIVEF_METHOD},
        {"__instancecheck__", type_instancecheck, NATIVEF_METHOD},
        {"__subclasscheck__", type_subclasscheck, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef type_gs[] = {
        {"__name__", type_get_name, type_set_name},
        {"__qualname__", type_get_qualname, type_set_qualname},
        {"__module__", type_get_module, type_set_module},
        {"__bases__", type_get_bases, type_set_bases_fn},
        {"__base__", type_get_base, NULL},
        {"__mro__", type_get_mro, NULL},
        {"__dict__", type_get_dict, NULL},
        {"__doc__", type_get_doc, type_set_doc},
        {"__abstractmethods__", type_get_abstract, type_set_abstract},
        {"__flags__", type_get_flags, NULL},
        {"__annotations__", type_get_annotations, type_set_annotations},
        {"__basicsize__", type_get_basicsize, NULL},
        {"__itemsize__", type_get_itemsize, NULL},
        {"__dictoffset__", type_get_dictoffset, NULL},
        {"__text_signature__", type_get_text_signature, NULL},
        {NULL}};
    static const MethodDef prop_m[] = {
        {"__init__", property_init, NATIVEF_METHOD},
        {"getter", property_getter, NATIVEF_METHOD},
        {"setter", property_setter, NATIVEF_METHOD},
        {"deleter", property_deleter, NATIVEF_METHOD},
        {"__set_name__", property_set_name, NATIVEF_METHOD},
        {"__get__", property_get_fn, NATIVEF_METHOD},
        {"__set__", property_set_fn, NATIVEF_METHOD, NULL},
        {"__delete__", property_set_fn, NATIVEF_METHOD, (void *)1},
        {NULL}};
    static const GetSetDef prop_gs[] = {
        {"fget", property_get_fget, NULL}, {"fset", property_get_fset, NULL},
        {"fdel", property_get_fdel, NULL}, {"__doc__", property_get_doc, property_set_doc},
        {"__isabstractmethod__", property_get_isabstract, NULL}, {NULL}};
    static const MethodDef wrap_m[] = {
        {"__init__", wrapper_init, NATIVEF_METHOD}, {"__get__", wrapper_get, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef wrap_gs[] = {
        {"__func__", wrapper_get_func, NULL}, {"__wrapped__", wrapper_get_func, NULL},
        {"__isabstractmethod__", wrapper_get_isabstract, NULL}, {NULL}};
    static const MethodDef super_m[] = {
        {"__new__", super_new_fn, NATIVEF_STATIC}, {"__repr__", super_repr, NATIVEF_METHOD}, {NULL}};
    static const MethodDef none_m[] = {
        {"__repr__", none_repr, NATIVEF_METHOD}, {"__bool__", none_bool, NATIVEF_METHOD}, {NULL}};
    static const MethodDef ni_m[] = {{"__repr__", notimpl_repr, NATIVEF_METHOD}, {NULL}};
    static const MethodDef ell_m[] = {{"__repr__", ellipsis_repr, NATIVEF_METHOD}, {NULL}};
    static const MethodDef gs_m[] = {{"__repr__", getset_repr, NATIVEF_METHOD}, {NULL}};

    vm->t_property->trace = property_trace;
    vm->t_property->alloc = property_alloc;
    vm->t_staticmethod->trace = vm->t_classmethod->trace = wrapper_trace;
    vm->t_super->trace = super_trace;
    vm->t_getset->trace = getset_trace;
    if (type_add_methods(vm, vm->t_object, obj_m) < 0 || type_add_getsets(vm, vm->t_object, obj_gs) < 0 ||
        type_add_methods(vm, vm->t_type, type_m) < 0 || type_add_getsets(vm, vm->t_type, type_gs) < 0 ||
        type_add_methods(vm, vm->t_property, prop_m) < 0 || type_add_getsets(vm, vm->t_property, prop_gs) < 0 ||
        type_add_methods(vm, vm->t_staticmethod, wrap_m) < 0 || type_add_getsets(vm, vm->t_staticmethod, wrap_gs) < 0 ||
        type_add_methods(vm, vm->t_classmethod, wrap_m) < 0 || type_add_getsets(vm, vm->t_classmethod, wrap_gs) < 0 ||
        type_add_methods(vm, vm->t_super, super_m) < 0 || type_add_methods(vm, vm->t_none, none_m) < 0 ||
        type_add_methods(vm, vm->t_notimplemented, ni_m) < 0 || type_add_methods(vm, vm->t_ellipsis, ell_m) < 0 ||
        type_add_methods(vm, vm->t_getset, gs_m) < 0)
        EM_UNREACHABLE();
}
