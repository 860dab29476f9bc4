/* vm/type.h — type objects: built-in type construction, class statements (C3 MRO, solid
 * base/layout checks, __set_name__, __init_subclass__, the __class__ cell), instantiation
 * (__new__ + __init__), subtype tests, the method cache, and the descriptors object, type and
 * super provide. */
#ifndef EMBER_VM_TYPE_H
#define EMBER_VM_TYPE_H

#include "vm/vm.h"

TypeObj *type_new_builtin(VM *vm, const char *name, TypeObj *base, ObjLayout layout,
                          size_t instance_size, size_t dict_offset, TraceFn trace,
                          FinalizeFn finalize, uint32_t flags);
/* class statement: type(name, bases, ns) with keyword arguments for __init_subclass__. */
/* Give t's instances a __dict__ descriptor (their attribute dict at t->dict_offset). */
int type_add_dict_descriptor(VM *vm, TypeObj *t) EM_MUST_CHECK;
Value type_new_class(VM *vm, TypeObj *meta, StrObj *name, TupleObj *bases, DictObj *ns,
                     int nkw, Value *kwvals, TupleObj *kwnames);
/* Calling a type: instantiate (or type(x) for the 1-argument form of `type`). */
Value type_call(VM *vm, TypeObj *t, int argc, Value *argv, TupleObj *kwnames);
/* Allocate a bare instance of t according to its layout (object.__new__). */
Value type_alloc_instance(VM *vm, TypeObj *t);
/* A class dict changed: invalidate every cache keyed on class contents. */
void type_modified(VM *vm, TypeObj *t);
ListObj *type_subclasses_of(VM *vm, TypeObj *t);   /* t.__subclasses__() */
int type_set_bases(VM *vm, TypeObj *t, Value bases) EM_MUST_CHECK;   /* cls.__bases__ = bases */
int type_setattr(VM *vm, TypeObj *t, StrObj *name, Value v) EM_MUST_CHECK;
Value type_getattr(VM *vm, TypeObj *t, StrObj *name, bool raise);
/* isinstance()/issubclass() as CPython: metaclass __instancecheck__/__subclasscheck__ hooks,
 * tuples and unions, abstract classes (__bases__), __class__.  1/0/-1. */
int vm_isinstance(VM *vm, Value obj, Value cls);
int vm_issubclass(VM *vm, Value sub, Value cls);
/* The same without the metaclass hooks (type.__instancecheck__ / type.__subclasscheck__). */
int type_real_isinstance(VM *vm, Value obj, Value cls);
int type_real_issubclass(VM *vm, Value sub, Value cls);
/* The most derived of meta and the metaclasses of bases, or NULL + TypeError (conflict). */
TypeObj *type_calculate_metaclass(VM *vm, TypeObj *meta, TupleObj *bases);
StrObj *type_qualname(TypeObj *t);
/* The full name used in messages and reprs: "module.Qualname", or "Qualname" for builtins. */
StrObj *type_repr_name(VM *vm, TypeObj *t);

void type_init_core(VM *vm);     /* bootstrap object/type/str/dict/tuple */
void type_init_methods(VM *vm);  /* object's and type's methods and descriptors */

/* TypeError "Can't instantiate abstract class ..." for a class with abstract methods. */
Value type_abstract_error(VM *vm, TypeObj *t);

/* Descriptor objects */
Value property_new(VM *vm, Value fget, Value fset, Value fdel, Value doc);
Value super_new(VM *vm, TypeObj *type, Value obj);
Value super_getattr(VM *vm, Value su, StrObj *name);

#endif
