/* src/ffi/callback.c — CFUNCTYPE callbacks: a libffi closure whose code address C can call,
 * running a script function.  The closure belongs to its CFuncObj (freed by its finalizer);
 * as in CPython, C code must not call it after the script dropped the function object.
 *
 * Arguments arrive converted by the prototype's argtypes (c_int -> int, a pointer type -> a
 * pointer instance, a Structure -> a copy); the result is converted by its restype.  An
 * exception in the script function cannot cross the C frames that called it: it is printed
 * as CPython prints it ("Exception ignored on calling ctypes callback function: ...") and the
 * callback returns zero. */
#include <stdlib.h>
#include <string.h>

#include "src/ffi/ctypes.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

ffi_type *stg_ffi(VM *vm, StgInfo *s);

struct FfiThunk {
    ffi_closure *closure;
    void *code;
    ffi_cif cif;
    ffi_type **atypes;
    CFuncObj *owner;
    int nargs;
};

void thunk_free(FfiThunk *t) {
    if (!t) return;
    if (t->closure) ffi_closure_free(t->closure);
    free(t->atypes);
    free(t);
}

/* One C argument as a script value. */
static Value callback_arg(VM *vm, Value argtype, void *p) {
    StgInfo *stg = stg_of_type(vm, argtype);
    if (!stg) return val_int(*(int *)p);
    TypeObj *t = AS_TYPE(argtype);
    if (stg->kind == CK_SIMPLE && t->base == ffi_state(vm)->t_simple) return simple_get(vm, stg->code, p);
    CDataObj *o = cdata_new(vm, t);
    if (!o) return val_null();
    memcpy(o->ptr, p, (size_t)stg->size);
    return val_obj(o);
}

static void report(VM *vm, const char *what, Value callable, bool add_frame) {
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    /* an error converting the result belongs to the frame that made the call (as in CPython) */
    if (add_frame && vm->frame && val_is_obj(e) && val_is_none(((ExceptionObj *)e.as.o)->traceback) &&
        exc_add_traceback(vm, e, vm->frame) < 0)
        vm_clear_exc(vm);
    Value r = vm_repr(vm, callable);
    if (val_is_null(r)) vm_clear_exc(vm);
    fflush(vm->out);
    fprintf(vm->err, "Exception ignored on %s ctypes callback function: %s\n", what,
            val_is_null(r) ? "<callback>" : AS_STR(r)->data);
    vm_print_exception(vm, e, vm->err);
    fflush(vm->err);
    vm_pop_root(vm);
}

/* Store the script result r into libffi's return slot (a simple type: thunk_create allows no
 * other; integers narrower than ffi_arg are widened, as libffi requires of closures). */
static int store_result(VM *vm, Value restype, StgInfo *stg, Value r, void *ret) {
    if (!stg) {
        int64_t x = 0;
        if (!val_is_none(r) && vm_index(vm, r, &x) < 0) return -1;
        *(ffi_sarg *)ret = (ffi_sarg)(int)x;
        return 0;
    }
    if (stg->kind == CK_SIMPLE) {
        union {
            char buf[16];
            long double g;
        } tmp;
        memset(&tmp, 0, sizeof tmp);
        Value keep;
        if (vm_isinstance_type(vm, r, AS_TYPE(restype))) memcpy(tmp.buf, CD(r)->ptr, (size_t)stg->size);
        else if (simple_set(vm, stg->code, tmp.buf, r, &keep) < 0) return -1;
        switch (stg->code) {
        case 'b': *(ffi_sarg *)ret = *(int8_t *)tmp.buf; break;
        case 'c': *(ffi_sarg *)ret = *(signed char *)tmp.buf; break;
        case 'B': case '?': *(ffi_arg *)ret = *(uint8_t *)tmp.buf; break;
        case 'h': *(ffi_sarg *)ret = *(short *)tmp.buf; break;
        case 'H': *(ffi_arg *)ret = *(unsigned short *)tmp.buf; break;
        case 'i': case 'u': *(ffi_sarg *)ret = *(int *)tmp.buf; break;
        case 'I': *(ffi_arg *)ret = *(unsigned int *)tmp.buf; break;
        default: memcpy(ret, tmp.buf, (size_t)stg->size); break;
        }
        return 0;
    }
    return 0;
}

static void thunk_run(ffi_cif *cif, void *ret, void **cargs, void *ud) {
    FfiThunk *t = ud;
    CFuncObj *f = t->owner;
    VM *vm = f->vm;
    StgInfo *stg = stg_of_obj(vm, val_obj(f));
    if (cif->rtype->size) memset(ret, 0, cif->rtype->size < sizeof(ffi_arg) ? sizeof(ffi_arg) : cif->rtype->size);
    /* an exception pending in the caller (none, normally) is set aside for the callback */
    Value outer = vm_fetch_exc(vm);
    vm_push_root(vm, outer);
    vm_push_root(vm, val_obj(f));
    TupleObj *args = tuple_new(vm, t->nargs);
    if (!args) {
        report(vm, "calling", f->callable, false);
        goto out;
    }
    vm_push_root(vm, val_obj(args));
    for (int i = 0; i < t->nargs; i++) {
        Value v = callback_arg(vm, AS_TUPLE(stg->argtypes)->items[i], cargs[i]);
        if (val_is_null(v)) {
            report(vm, "calling", f->callable, false);
            vm_pop_root(vm);
            goto out;
        }
        args->items[i] = v;
    }
    Value r = vm_call(vm, f->callable, t->nargs, args->items, NULL);
    if (val_is_null(r)) {
        report(vm, "calling", f->callable, false);
    } else if (cif->rtype != &ffi_type_void) {
        vm_push_root(vm, r);
        Value restype = stg->restype;
        if (store_result(vm, restype, stg_of_type(vm, restype), r, ret) < 0) report(vm, "converting result of", f->callable, true);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
out:
    vm_pop_roots(vm, 2);
    if (!val_is_null(outer)) vm->exc = outer;
}

int thunk_create(VM *vm, CFuncObj *f, StgInfo *proto) {
    TupleObj *at = AS_TUPLE(proto->argtypes);
    int n = (int)at->len;
    FfiThunk *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->owner = f;
    t->nargs = n;
    t->atypes = calloc((size_t)n + 1, sizeof(ffi_type *));
    if (!t->atypes) goto oom;
    for (int i = 0; i < n; i++) {
        StgInfo *s = stg_of_type(vm, at->items[i]);
        if (!s) {
            thunk_free(t);
            vm_raise(vm, vm->e_TypeError, "callback argument %d: argtypes of callbacks must be ctypes types", i + 1);
            return -1;
        }
        t->atypes[i] = s->kind == CK_ARRAY ? &ffi_type_pointer : stg_ffi(vm, s);
        if (!t->atypes[i]) {
            thunk_free(t);
            return -1;
        }
    }
    /* as in CPython, a callback returns nothing or a simple type */
    ffi_type *rtype = &ffi_type_sint;
    if (!val_is_null(proto->restype)) {
        StgInfo *rs = stg_of_type(vm, proto->restype);
        if (val_is_none(proto->restype)) {
            rtype = &ffi_type_void;
        } else if (rs && rs->kind == CK_SIMPLE) {
            rtype = rs->ffi;
        } else {
            thunk_free(t);
            vm_raise(vm, vm->e_TypeError, "invalid result type for callback function");
            return -1;
        }
    }
    if (ffi_prep_cif(&t->cif, FFI_DEFAULT_ABI, (unsigned)n, rtype, t->atypes) != FFI_OK) {
        thunk_free(t);
        vm_raise(vm, vm->e_RuntimeError, "ffi_prep_cif failed");
        return -1;
    }
    t->closure = ffi_closure_alloc(sizeof(ffi_closure), &t->code);
    if (!t->closure) goto oom;
    if (ffi_prep_closure_loc(t->closure, &t->cif, thunk_run, t, t->code) != FFI_OK) {
        thunk_free(t);
        vm_raise(vm, vm->e_RuntimeError, "ffi_prep_closure_loc failed");
        return -1;
    }
    f->thunk = t;
    *(void **)f->cd.ptr = t->code;
    return 0;
oom:
    thunk_free(t);
    vm_no_memory(vm);
    return -1;
}
