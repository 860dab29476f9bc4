/* vm/exc_group.c — BaseExceptionGroup and ExceptionGroup (PEP 654), the builtins traceback.py,
 * logging and unittest test for whenever they format an exception.  A group keeps its message
 * and its exceptions as a tuple beside BaseException's fields; BaseExceptionGroup(...) of only
 * Exceptions makes an ExceptionGroup, and an ExceptionGroup refuses BaseExceptions, as CPython's
 * BaseExceptionGroup_new.  message, exceptions, __str__, derive() and __class_getitem__ as
 * CPython; split()/subgroup() (used by `except*`, which Ember's grammar does not have) raise
 * NotImplementedError. */
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct ExcGroupObj {
    ExceptionObj exc;
    Value msg;
    TupleObj *excs;
} ExcGroupObj;

#define EG(v) ((ExcGroupObj *)(v).as.o)
#define T_BASE_GROUP (AS_TYPE(vm->lib[VM_LIB_exc_group_base]))
#define T_GROUP (AS_TYPE(vm->lib[VM_LIB_exc_group]))

static void group_trace(VM *vm, Obj *o) {
    vm->e_BaseException->trace(vm, o);
    gc_mark_value(vm, ((ExcGroupObj *)o)->msg);
    gc_mark(vm, ((ExcGroupObj *)o)->excs);
}

static Value group_new(ARGS) {
    TypeObj *cls = AS_TYPE(argv[0]);
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "BaseExceptionGroup.__new__() takes no keyword arguments");
    if (argc != 3)
        return vm_raise(vm, vm->e_TypeError, "BaseExceptionGroup.__new__() takes exactly 2 arguments (%d given)", argc - 1);
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "BaseExceptionGroup.__new__() argument 1 must be str, not %s",
                        vm_type_name(vm, argv[1]));
    Value seq = argv[2];
    TypeObj *st = vm_type_of(vm, seq);
    if (val_is_null(type_special(vm, st, SP_GETITEM)) || val_is_null(type_special(vm, st, SP_LEN)) ||
        st == vm->t_dict || type_is_subtype(st, vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "second argument (exceptions) must be a sequence");
    ListObj *l = vm_list_from_iterable(vm, seq);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value result = val_null();
    if (l->len == 0) {
        vm_raise(vm, vm->e_ValueError, "second argument (exceptions) must be a non-empty sequence");
        goto out;
    }
    bool nested_base = false;
    for (int64_t i = 0; i < l->len; i++) {
        Value e = l->items[i];
        if (!val_is_obj(e) || !vm_isinstance_type(vm, e, vm->e_BaseException)) {
            vm_raise(vm, vm->e_ValueError, "Item %lld of second argument (exceptions) is not an exception", (long long)i);
            goto out;
        }
        if (!vm_isinstance_type(vm, e, vm->e_Exception)) nested_base = true;
    }
    if (cls == T_BASE_GROUP) {
        if (!nested_base) cls = T_GROUP;   /* all Exceptions: an ExceptionGroup */
    } else if (cls == T_GROUP) {
        if (nested_base) {
            vm_raise(vm, vm->e_TypeError, "Cannot nest BaseExceptions in an ExceptionGroup");
            goto out;
        }
    } else if (nested_base && type_is_subtype(cls, vm->e_Exception)) {
        vm_raise(vm, vm->e_TypeError, "Cannot nest BaseExceptions in '%s'", cls->name->data);
        goto out;
    }
    TupleObj *excs = tuple_from_array(vm, l->items, l->len);
    if (!excs) goto out;
    vm_push_root(vm, val_obj(excs));
    TupleObj *args = tuple_pack(vm, 2, argv[1], seq);
    if (args) {
        vm_push_root(vm, val_obj(args));
        Value e = cls->alloc(vm, cls);
        if (!val_is_null(e)) {
            EG(e)->exc.args = args;
            EG(e)->msg = argv[1];
            EG(e)->excs = excs;
            result = e;
        }
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
out:
    vm_pop_root(vm);
    return result;
}

/* BaseException.__init__ would store the arguments again; a group's are fixed by __new__ */
static Value group_init(ARGS) {
    if (kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", vm_type_name(vm, argv[0]));
    return val_none();
}

static Value group_str(ARGS) {
    ExcGroupObj *g = (ExcGroupObj *)argv[0].as.o;
    int64_t n = g->excs ? g->excs->len : 0;
    StrObj *s = str_printf(vm, "%s (%lld sub-exception%s)", val_is_str(vm, g->msg) ? AS_STR(g->msg)->data : "",
                           (long long)n, n == 1 ? "" : "s");
    return s ? val_obj(s) : val_null();
}

static Value group_derive(ARGS) {
    Value a[2] = {EG(argv[0])->msg, argv[1]};
    return vm_call(vm, val_obj(T_BASE_GROUP), 2, a, NULL);
}

static Value group_split(ARGS) {
    return vm_raise(vm, vm->e_NotImplementedError, "BaseExceptionGroup.%s() (except* is not supported by Ember)",
                    (const char *)fn->data);
}

static Value group_get_message(VM *vm, Value s, void *c) {
    Value m = EG(s)->msg;
    return val_is_null(m) ? val_none() : m;
}
static Value group_get_exceptions(VM *vm, Value s, void *c) {
    TupleObj *t = EG(s)->excs;
    return t ? val_obj(t) : val_obj(vm->empty_tuple);
}

static Value group_class_getitem(ARGS) {
    extern Value genericalias_new(VM *vm, Value origin, Value args);
    return genericalias_new(vm, argv[0], argv[1]);
}

void exc_group_init(VM *vm) {
    TypeObj *b = type_new_builtin(vm, "BaseExceptionGroup", vm->e_BaseException, OBJ_LAYOUT_EXCEPTION,
                                  sizeof(ExcGroupObj), offsetof(ExceptionObj, dict), group_trace, NULL,
                                  TYPEF_BASETYPE | TYPEF_EXCEPTION);
    if (!b) EM_UNREACHABLE();
    b->alloc = vm->e_BaseException->alloc;
    vm->lib[VM_LIB_exc_group_base] = val_obj(b);
    static const MethodDef m[] = {
        {"__new__", group_new, NATIVEF_STATIC}, {"__init__", group_init, NATIVEF_METHOD},
        {"__str__", group_str, NATIVEF_METHOD | ARITY_NOARGS}, {"derive", group_derive, NATIVEF_METHOD | ARITY_O},
        {"split", group_split, NATIVEF_METHOD | ARITY_O, (void *)"split"},
        {"subgroup", group_split, NATIVEF_METHOD | ARITY_O, (void *)"subgroup"},
        {"__class_getitem__", group_class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
    static const GetSetDef gs[] = {
        {"message", group_get_message, NULL}, {"exceptions", group_get_exceptions, NULL}, {NULL}};
    if (type_add_methods(vm, b, m) < 0 || type_add_getsets(vm, b, gs) < 0) EM_UNREACHABLE();
    /* ExceptionGroup(BaseExceptionGroup, Exception): made as the class statement would */
    StrObj *name = str_from_c(vm, "ExceptionGroup");
    TupleObj *bases = name ? tuple_pack(vm, 2, val_obj(b), val_obj(vm->e_Exception)) : NULL;
    DictObj *ns = bases ? dict_new(vm) : NULL;
    if (!ns || dict_set_c(vm, ns, "__module__", vm_intern(vm, "builtins")) < 0) EM_UNREACHABLE();
    Value a[3] = {val_obj(name), val_obj(bases), val_obj(ns)};
    vm_push_root(vm, a[0]);
    vm_push_root(vm, a[1]);
    vm_push_root(vm, a[2]);
    Value g = vm_call(vm, val_obj(vm->t_type), 3, a, NULL);
    vm_pop_roots(vm, 3);
    if (val_is_null(g)) EM_UNREACHABLE();
    vm->lib[VM_LIB_exc_group] = g;
    if (dict_set_c(vm, vm->builtins, "BaseExceptionGroup", val_obj(b)) < 0 ||
        dict_set_c(vm, vm->builtins, "ExceptionGroup", g) < 0)
        EM_UNREACHABLE();
}
