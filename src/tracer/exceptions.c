/* src/tracer/exceptions.c — exceptions raised and caught inside a region.
 *
 * `raise` of an exception made in the region (or of a class) is traced: the translator unwinds
 * to the handler of its code's exception table as the VM does (the stack cut to the handler's
 * depth, the exception pushed), the handler's PUSH_EXC_INFO / CHECK_EXC_MATCH / POP_EXCEPT /
 * RERAISE run on trackers (symbolic.c), and an exception no handler of an inlined function
 * catches propagates to its caller's instruction.  One that no frame of the region catches
 * escapes it: that is a graph break at the root instruction it came from, so eager raises it
 * with its traceback (dynamo keeps the graph unless the exception escapes).  Exceptions the VM
 * would raise from an operation (a KeyError of a dict lookup, a ZeroDivisionError on
 * constants) are still breaks where they happen.
 *
 * An exception made in the region is a VT_EXCEPTION: cls its class, a the tuple of its args
 * (BaseException.__new__ sets it, BaseException.__init__ replaces it), other attributes as
 * stores on a new object.  Residual code rebuilds one that escapes as
 * BaseException.__new__(cls, *args) and replays its stores. */
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

static Value base_method(VM *vm, const char *name) { return dict_get_c(vm, vm->e_BaseException->dict, name); }

/* cls(*args, **kw) of an exception class whose __new__ is BaseException's and whose __init__ is
 * BaseException's or a script function (inlined). */
TxStatus tr_exception_new(Tracer *tr, VT *cls, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    TypeObj *t = (TypeObj *)cls->value.as.o;
    int nkw = kwnames ? (int)kwnames->len : 0;
    Value newf = type_lookup(vm, t, vm->special_names[SP_NEW]);
    Value init = type_lookup(vm, t, vm->special_names[SP_INIT]);
    bool base_init = val_identical(init, base_method(vm, "__init__"));
    if (!val_identical(newf, base_method(vm, "__new__")) ||
        (!base_init && (init.tag != VAL_OBJ || init.as.o->type != vm->t_function)))
        return trace_break(tr, "constructing %s", t->name->data);
    if (base_init && nkw) return trace_break(tr, "%s() takes no keyword arguments", t->name->data);
    VT *e = vt_new(tr, VT_EXCEPTION);
    e->cls = cls;
    e->a = vt_tuple(tr, args, argc);
    se_track_new(tr, e);
    if (!base_init) {
        VT **all = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + nkw + 2));
        all[0] = e;
        for (int i = 0; i < argc + nkw; i++) all[i + 1] = args[i];
        VT *r;
        TxStatus s = tr_call(tr, vt_from_value(tr, init, NULL), argc + 1, all, kwnames, &r);
        if (s) return s;
    }
    *out = e;
    return TX_OK;
}

/* BaseException.__init__(self, *args) on an exception made in the region (super().__init__). */
TxStatus tr_exception_init(Tracer *tr, VT *e, int argc, VT **args, VT **out) {
    e->a = vt_tuple(tr, args, argc);
    *out = vt_none(tr);
    return TX_OK;
}

bool tr_is_exception_class(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    return v->kind == VT_TYPE && (((TypeObj *)v->value.as.o)->flags & TYPEF_EXCEPTION);
}

TxStatus tr_raise(Tracer *tr, VT *exc, VT *cause) {
    exc = vt_force(tr, exc);
    if (tr_is_exception_class(tr, exc)) {
        TxStatus s = tr_exception_new(tr, exc, 0, NULL, NULL, &exc);
        if (s) return s;
    }
    if (exc->kind != VT_EXCEPTION) return trace_break(tr, "raise of %s", vt_kind_name(exc->kind));
    if (cause) {
        VM *vm = tr->vm;
        cause = vt_force(tr, cause);
        if (tr_is_exception_class(tr, cause)) {
            TxStatus s = tr_exception_new(tr, cause, 0, NULL, NULL, &cause);
            if (s) return s;
        }
        if (cause->kind != VT_EXCEPTION && !(cause->kind == VT_CONST && val_is_none(cause->value)))
            return trace_break(tr, "raise from %s", vt_kind_name(cause->kind));
        se_store_attr(tr, exc, vm_intern_str(vm, "__cause__"), cause);
        se_store_attr(tr, exc, vm_intern_str(vm, "__suppress_context__"), vt_const(tr, val_bool(true)));
    }
    tr->raised = exc;
    return TX_RAISE;
}

/* The handler of tx's code covering ip catches tr->raised: the stack cut to its depth, the
 * exception pushed, ip at the handler.  False when no handler covers ip. */
bool tr_catch(Tracer *tr, Tx *tx, int32_t ip) {
    const ExcEntry *h = code_find_handler(tx->code, ip);
    if (!h) return false;
    tx->sp = (int32_t)h->depth;
    tx->kwnames = NULL;
    tx_push(tx, tr->raised);
    tx->ip = (int32_t)h->handler;
    tr->raised = NULL;
    return true;
}

/* isinstance(exc, type) for `except type:` (type: a class or a tuple of classes) */
TxStatus tr_exc_match(Tracer *tr, VT *exc, VT *type, int *out) {
    VM *vm = tr->vm;
    type = vt_force(tr, type);
    TypeObj *et = vt_python_type(tr, exc);
    if (!et) return trace_break(tr, "except on an exception of unknown type");
    if (type->kind == VT_TUPLE || (type->kind == VT_CONST && val_is_type(vm, type->value, vm->t_tuple))) {
        int n = type->kind == VT_TUPLE ? type->n : (int)AS_TUPLE(type->value)->len;
        for (int i = 0; i < n; i++) {
            VT *c = type->kind == VT_TUPLE ? vt_item(tr, type, i) : vt_from_value(tr, AS_TUPLE(type->value)->items[i], NULL);
            TxStatus s = tr_exc_match(tr, exc, c, out);
            if (s || *out) return s;
        }
        *out = 0;
        return TX_OK;
    }
    if (!tr_is_exception_class(tr, type))
        return trace_break(tr, "catching classes that do not inherit from BaseException is not allowed");
    TypeObj *t = (TypeObj *)type->value.as.o;
    *out = et == t || type_is_subtype(et, t);
    return TX_OK;
}
