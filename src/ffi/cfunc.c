/* src/ffi/cfunc.c — foreign functions: the CFuncPtr base (functions from a CDLL, function
 * pointers, CFUNCTYPE prototypes and their callbacks), argument conversion (argtypes'
 * from_param rules and the default conversions, errors as ctypes.ArgumentError), the cached
 * libffi call signature, result conversion (restype, errcheck), errno, and dlopen/dlsym.
 *
 * The call path: `f(a, b)` -> cfunc_call converts each argument into an ArgSlot on the C stack
 * (the value, its ffi_type, and where libffi reads it), reuses f->call when its cached types
 * match the slots (always, for functions with argtypes), calls ffi_call and converts the
 * result.  Nothing is allocated for a call with simple argument and result types. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/ffi/ctypes.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

TypeObj *ct_new_base(VM *vm, const char *name, TypeObj *base, TypeObj *meta, size_t size, TraceFn trace,
                     FinalizeFn fin);
ffi_type *stg_ffi(VM *vm, StgInfo *s);
Value ct_carg_new(VM *vm, char tag, Value obj);
int ct_as_pointer(VM *vm, Value v, void **out, Value *keep);
void cdata_release(VM *vm, CDataObj *c);

/* ---- call signatures ------------------------------------------------------------------------- */

struct FfiCall {
    ffi_cif cif;
    int nargs;
    ffi_type *rtype;
    Obj *rkeep;            /* StgInfo owning rtype (by-value struct), or NULL */
    ffi_type **atypes;
    Obj **akeep;
};

void cfunc_free_call(FfiCall *c) {
    if (!c) return;
    free(c->atypes);
    free(c->akeep);
    free(c);
}

/* One converted argument. */
typedef struct ArgSlot {
    ffi_type *ffi;
    void *ptr;             /* where libffi reads the value: &v, or a by-value struct's memory */
    Obj *stg;              /* StgInfo owning ffi (by-value struct), or NULL */
    union {
        char buf[16];
        int64_t i;
        double d;
        float f;
        void *p;
        long double g;
    } v;
} ArgSlot;

static void slot_pointer(ArgSlot *s, void *p) {
    s->ffi = &ffi_type_pointer;
    s->v.p = p;
    s->ptr = &s->v;
}

static void slot_simple(ArgSlot *s, char code, const void *src) {
    s->ffi = simple_ffi(code);
    memcpy(s->v.buf, src, (size_t)simple_size(code));
    s->ptr = &s->v;
}

/* ---- argument conversion ----------------------------------------------------------------------- */

Value ct_argument_error(VM *vm, int index) {
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    Value s = vm_str(vm, e);
    if (val_is_null(s)) {
        vm_clear_exc(vm);
        s = val_obj(vm->empty_str);
    }
    vm_push_root(vm, s);
    vm_raise(vm, ffi_state(vm)->e_argument_error, "argument %d: %s: %s", index, vm_type_name(vm, e), AS_STR(s)->data);
    vm_pop_roots(vm, 2);
    return val_null();
}

static int wrong_type(VM *vm) {
    vm_raise(vm, vm->e_TypeError, "wrong type");
    return -1;
}

static bool is_carg(VM *vm, Value v) { return val_is_type(vm, v, ffi_state(vm)->t_carg); }

/* v._as_parameter_, or VAL_NULL (no exception) if absent. */
static Value as_parameter(VM *vm, Value v) {
    if (!val_is_obj(v) || val_is_type(vm, v, vm->t_bytes) || val_is_str(vm, v)) return val_null();
    return vm_getattr_opt(vm, v, ffi_state(vm)->s_as_parameter);
}

static int conv_default(VM *vm, Value v, ArgSlot *s, Value *keep, int index, int depth);

/* The default conversion (no argtypes), CPython's ConvParam. */
static int conv_default(VM *vm, Value v, ArgSlot *s, Value *keep, int index, int depth) {
    s->stg = NULL;
    if (val_is_none(v)) {
        slot_pointer(s, NULL);
        return 0;
    }
    if (val_is_intlike(v)) {
        s->ffi = &ffi_type_sint;
        s->v.i = 0;
        *(int *)s->v.buf = (int)val_as_intlike(v);
        s->ptr = &s->v;
        return 0;
    }
    if (val_is_type(vm, v, vm->t_bytes)) {
        slot_pointer(s, ((BytesObj *)v.as.o)->data);
        return 0;
    }
    if (val_is_str(vm, v)) {
        void *p;
        if (ct_as_pointer(vm, v, &p, keep) < 0) return -1;
        slot_pointer(s, p);
        return 0;
    }
    StgInfo *stg = stg_of_obj(vm, v);
    if (stg) {
        CDataObj *c = CD(v);
        switch (stg->kind) {
        case CK_SIMPLE: slot_simple(s, stg->code, c->ptr); return 0;
        case CK_POINTER:
        case CK_FUNCPTR: slot_pointer(s, *(void **)c->ptr); return 0;
        case CK_ARRAY: slot_pointer(s, c->ptr); return 0;
        case CK_STRUCT:
        case CK_UNION:
            s->ffi = stg_ffi(vm, stg);
            if (!s->ffi) return -1;
            s->ptr = c->ptr;
            s->stg = &stg->hdr;
            return 0;
        }
    }
    if (is_carg(vm, v)) {
        CArgObj *a = (CArgObj *)v.as.o;
        if (a->tag == 'P') slot_pointer(s, a->v.p);
        else slot_simple(s, a->tag, &a->v);
        return 0;
    }
    if (depth < 8) {
        Value ap = as_parameter(vm, v);
        if (!val_is_null(ap)) {
            *keep = ap;
            return conv_default(vm, ap, s, keep, index, depth + 1);
        }
        if (!val_is_null(vm->exc)) return -1;
    }
    vm_raise(vm, vm->e_TypeError, "Don't know how to convert parameter %d", index);
    return -1;
}

/* Is v an instance of a c_char/c_wchar array or pointer (what c_char_p/c_wchar_p accept)? */
static bool char_sequence(VM *vm, Value v, char code, void **out) {
    StgInfo *s = stg_of_obj(vm, v);
    if (!s || (s->kind != CK_ARRAY && s->kind != CK_POINTER) || val_is_null(s->proto)) return false;
    StgInfo *item = stg_of_type(vm, s->proto);
    if (!item || item->kind != CK_SIMPLE || item->code != code) return false;
    *out = s->kind == CK_ARRAY ? CD(v)->ptr : *(void **)CD(v)->ptr;
    return true;
}

/* A typed conversion: argtype is a ctypes class using the built-in from_param rules. */
static int conv_typed(VM *vm, Value argtype, StgInfo *stg, Value v, ArgSlot *s, Value *keep, int depth) {
    TypeObj *t = AS_TYPE(argtype);
    s->stg = NULL;
    bool inst = vm_isinstance_type(vm, v, t);
    switch (stg->kind) {
    case CK_SIMPLE: {
        char code = stg->code;
        if (inst) {
            slot_simple(s, code, CD(v)->ptr);
            return 0;
        }
        s->ffi = stg->ffi;
        s->ptr = &s->v;
        if (code == 'z' || code == 'Z') {
            void *p;
            if (val_is_none(v) || (code == 'z' ? val_is_type(vm, v, vm->t_bytes) : val_is_str(vm, v))) {
                if (simple_set(vm, code, s->v.buf, v, keep) < 0) return -1;
                return 0;
            }
            StgInfo *vs = stg_of_obj(vm, v);
            if (vs && vs->kind == CK_SIMPLE && vs->code == code) {
                slot_simple(s, code, CD(v)->ptr);
                return 0;
            }
            if (char_sequence(vm, v, code == 'z' ? 'c' : 'u', &p)) {
                slot_pointer(s, p);
                return 0;
            }
            if (is_carg(vm, v) && ((CArgObj *)v.as.o)->tag == 'P') {
                CArgObj *a = (CArgObj *)v.as.o;
                StgInfo *os = stg_of_obj(vm, a->obj);
                if (os && ((os->kind == CK_SIMPLE && os->code == (code == 'z' ? 'c' : 'u')) ||
                           char_sequence(vm, a->obj, code == 'z' ? 'c' : 'u', &p))) {
                    slot_pointer(s, a->v.p);
                    return 0;
                }
            }
        } else if (code == 'P') {
            void *p;
            if (ct_as_pointer(vm, v, &p, keep) == 0) {
                slot_pointer(s, p);
                return 0;
            }
            return -1;
        } else {
            if (is_carg(vm, v) && ((CArgObj *)v.as.o)->tag == code) {
                slot_simple(s, code, &((CArgObj *)v.as.o)->v);
                return 0;
            }
            if (!ct_is_cdata(vm, v) && !is_carg(vm, v)) {
                Value k;
                if (simple_set(vm, code, s->v.buf, v, &k) == 0) return 0;
                vm_clear_exc(vm);
            }
        }
        break;
    }
    case CK_POINTER: {
        if (val_is_none(v)) {
            slot_pointer(s, NULL);
            return 0;
        }
        if (inst) {
            slot_pointer(s, *(void **)CD(v)->ptr);
            return 0;
        }
        TypeObj *item = val_is_null(stg->proto) ? NULL : AS_TYPE(stg->proto);
        if (item && vm_isinstance_type(vm, v, item)) {   /* a T where POINTER(T) is expected: byref */
            slot_pointer(s, CD(v)->ptr);
            return 0;
        }
        StgInfo *vs = stg_of_obj(vm, v);
        if (item && vs && (vs->kind == CK_POINTER || vs->kind == CK_ARRAY) && val_is_obj(vs->proto) &&
            type_is_subtype(AS_TYPE(vs->proto), item)) {
            slot_pointer(s, vs->kind == CK_ARRAY ? CD(v)->ptr : *(void **)CD(v)->ptr);
            return 0;
        }
        if (is_carg(vm, v) && ((CArgObj *)v.as.o)->tag == 'P') {
            CArgObj *a = (CArgObj *)v.as.o;
            if (item && vm_isinstance_type(vm, a->obj, item)) {
                slot_pointer(s, a->v.p);
                return 0;
            }
            Value ap = as_parameter(vm, v);
            if (!val_is_null(vm->exc)) return -1;
            (void)ap;
            vm_raise(vm, vm->e_TypeError, "expected %s instance instead of pointer to %s", t->name->data,
                     vm_type_name(vm, a->obj));
            return -1;
        }
        break;
    }
    case CK_STRUCT:
    case CK_UNION:
        if (inst) {
            s->ffi = stg_ffi(vm, stg);
            if (!s->ffi) return -1;
            s->ptr = CD(v)->ptr;
            s->stg = &stg->hdr;
            return 0;
        }
        break;
    case CK_ARRAY:
        if (inst) {
            slot_pointer(s, CD(v)->ptr);
            return 0;
        }
        if (is_carg(vm, v) && ((CArgObj *)v.as.o)->tag == 'P' && vm_isinstance_type(vm, ((CArgObj *)v.as.o)->obj, t)) {
            slot_pointer(s, ((CArgObj *)v.as.o)->v.p);
            return 0;
        }
        break;
    case CK_FUNCPTR:
        if (val_is_none(v)) {
            slot_pointer(s, NULL);
            return 0;
        }
        if (inst) {
            slot_pointer(s, *(void **)CD(v)->ptr);
            return 0;
        }
        break;
    }
    if (depth < 8) {
        Value ap = as_parameter(vm, v);
        if (!val_is_null(ap)) {
            *keep = ap;
            return conv_typed(vm, argtype, stg, ap, s, keep, depth + 1);
        }
        if (!val_is_null(vm->exc)) return -1;
    }
    if (stg->kind == CK_SIMPLE) return wrong_type(vm);
    vm_raise(vm, vm->e_TypeError, "expected %s instance instead of %s", t->name->data, vm_type_name(vm, v));
    return -1;
}

/* A ctypes class that overrides from_param in its own (script) class body. */
static bool custom_from_param(VM *vm, Value argtype) {
    return !stg_of_type(vm, argtype) || !val_is_null(type_lookup(vm, AS_TYPE(argtype), ffi_state(vm)->s_from_param));
}

/* One argument: through argtype (may be VAL_NULL) as a call would convert it.  *keep gets an
 * object that must stay alive until the call returns. */
static int conv_arg(VM *vm, Value argtype, Value v, ArgSlot *s, Value *keep, int index) {
    *keep = val_null();
    if (val_is_null(argtype)) return conv_default(vm, v, s, keep, index, 0);
    StgInfo *stg = stg_of_type(vm, argtype);
    if (stg && !custom_from_param(vm, argtype)) return conv_typed(vm, argtype, stg, v, s, keep, 0);
    Value fp = vm_getattr(vm, argtype, ffi_state(vm)->s_from_param);
    if (val_is_null(fp)) return -1;
    vm_push_root(vm, fp);
    Value r = vm_call1(vm, fp, v);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    *keep = r;
    vm_push_root(vm, r);
    Value k2 = val_null();
    int rc = conv_default(vm, r, s, &k2, index, 0);
    vm_pop_root(vm);
    if (rc == 0 && !val_is_null(k2)) {
        TupleObj *both = tuple_pack(vm, 2, r, k2);
        if (!both) return -1;
        *keep = val_obj(both);
    }
    return rc;
}

/* type.from_param(v) for the built-in rules: v itself if an instance, else a CArgObject. */
Value ct_from_param(VM *vm, Value type, Value v) {
    StgInfo *stg = stg_of_type(vm, type);
    if (!stg) return vm_raise(vm, vm->e_TypeError, "abstract class");
    if (vm_isinstance_type(vm, v, AS_TYPE(type))) return v;
    ArgSlot s;
    Value keep = val_null();
    if (conv_typed(vm, type, stg, v, &s, &keep, 0) < 0) return val_null();
    if (stg->kind == CK_STRUCT || stg->kind == CK_UNION) return v;
    vm_push_root(vm, keep);
    Value a = ct_carg_new(vm, s.ffi == &ffi_type_pointer ? 'P' : stg->code, val_is_null(keep) ? v : keep);
    vm_pop_root(vm);
    if (val_is_null(a)) return a;
    memcpy(&((CArgObj *)a.as.o)->v, s.ptr, s.ffi == &ffi_type_pointer ? sizeof(void *) : (size_t)simple_size(stg->code));
    return a;
}

/* ---- result conversion -------------------------------------------------------------------------- */

/* restype's libffi type (VAL_NULL: int). */
static int result_ffi(VM *vm, Value restype, ffi_type **out, Obj **keep) {
    *keep = NULL;
    if (val_is_null(restype)) {
        *out = &ffi_type_sint;
        return 0;
    }
    if (val_is_none(restype)) {
        *out = &ffi_type_void;
        return 0;
    }
    StgInfo *stg = stg_of_type(vm, restype);
    if (!stg) {
        *out = &ffi_type_sint;   /* a callable: called with the int result */
        return 0;
    }
    switch (stg->kind) {
    case CK_SIMPLE: *out = stg->ffi; return 0;
    case CK_POINTER:
    case CK_FUNCPTR: *out = &ffi_type_pointer; return 0;
    case CK_ARRAY:
        vm_raise(vm, vm->e_TypeError, "Array types cannot be returned by value");
        return -1;
    case CK_STRUCT:
    case CK_UNION:
        *out = stg_ffi(vm, stg);
        *keep = &stg->hdr;
        return *out ? 0 : -1;
    }
    EM_UNREACHABLE();
}

static Value convert_result(VM *vm, Value restype, void *rv) {
    if (val_is_null(restype)) return val_int(*(int *)rv);
    if (val_is_none(restype)) return val_none();
    StgInfo *stg = stg_of_type(vm, restype);
    if (!stg) {
        Value r = val_int(*(int *)rv);
        return vm_call1(vm, restype, r);
    }
    TypeObj *t = AS_TYPE(restype);
    if (stg->kind == CK_SIMPLE && t->base == ffi_state(vm)->t_simple) return simple_get(vm, stg->code, rv);
    CDataObj *o = cdata_new(vm, t);
    if (!o) return val_null();
    memcpy(o->ptr, rv, (size_t)stg->size);
    return val_obj(o);
}

/* ---- function objects ---------------------------------------------------------------------------- */

static void cfunc_trace(VM *vm, Obj *o) {
    CFuncObj *f = (CFuncObj *)o;
    gc_mark(vm, f->cd.dict);
    gc_mark_value(vm, f->cd.base);
    gc_mark_value(vm, f->cd.objects);
    gc_mark_value(vm, f->argtypes);
    gc_mark_value(vm, f->restype);
    gc_mark_value(vm, f->errcheck);
    gc_mark_value(vm, f->callable);
    gc_mark_value(vm, f->dll);
    if (f->call) {
        gc_mark(vm, f->call->rkeep);
        for (int i = 0; i < f->call->nargs; i++) gc_mark(vm, f->call->akeep[i]);
    }
}

static void cfunc_finalize(VM *vm, Obj *o) {
    CFuncObj *f = (CFuncObj *)o;
    cfunc_free_call(f->call);
    f->call = NULL;
    free(f->plan);
    f->plan = NULL;
    if (f->thunk) thunk_free(f->thunk);
    f->thunk = NULL;
    cdata_release(vm, &f->cd);
}

static CFuncObj *cfunc_new(VM *vm, TypeObj *t) {
    CFuncObj *f = gc_alloc(vm, t, t->instance_size);
    if (!f) return NULL;
    f->vm = vm;
    f->cd.base = f->cd.objects = val_null();
    f->argtypes = f->restype = f->errcheck = f->callable = f->dll = val_null();
    f->cd.size = sizeof(void *);
    f->cd.ptr = f->cd.inl.buf;
    f->cd.owns = true;
    return f;
}

static Value cfunc_alloc(VM *vm, TypeObj *t) {
    StgInfo *stg = stg_of_type(vm, val_obj(t));
    if (!stg) return vm_raise(vm, vm->e_TypeError, "abstract class");
    CFuncObj *f = cfunc_new(vm, t);
    return f ? val_obj(f) : val_null();
}

static Value effective_argtypes(VM *vm, CFuncObj *f) {
    if (!val_is_null(f->argtypes)) return f->argtypes;
    StgInfo *stg = stg_of_obj(vm, val_obj(f));
    return stg ? stg->argtypes : val_null();
}

static Value effective_restype(VM *vm, CFuncObj *f) {
    if (!val_is_null(f->restype)) return f->restype;
    StgInfo *stg = stg_of_obj(vm, val_obj(f));
    return stg ? stg->restype : val_null();
}

/* Validate argtypes (each must have from_param); returns a tuple or VAL_NULL + error. */
static Value check_argtypes(VM *vm, Value seq, const char *what) {
    Value holder = val_null();
    int64_t n;
    if (!val_is_type(vm, seq, vm->t_tuple) && !val_is_type(vm, seq, vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "_argtypes_ must be a sequence of types");
    Value *items = vm_sequence_items(vm, seq, &n, &holder);
    if (!items) return val_null();
    for (int64_t i = 0; i < n; i++) {
        Value fp = vm_getattr_opt(vm, items[i], ffi_state(vm)->s_from_param);
        if (val_is_null(fp)) {
            if (!val_is_null(vm->exc)) return val_null();
            return vm_raise(vm, vm->e_TypeError, "item %lld in %s has no from_param method", (long long)i + 1, what);
        }
    }
    TupleObj *t = tuple_from_array(vm, items, n);
    return t ? val_obj(t) : val_null();
}

static int check_restype(VM *vm, Value v) {
    if (val_is_none(v) || stg_of_type(vm, v) || vm_is_callable(vm, v)) return 0;
    vm_raise(vm, vm->e_TypeError, "restype must be a type, a callable, or None");
    return -1;
}

int funcptr_stg_init(VM *vm, TypeObj *cls) {
    FfiState *fs = ffi_state(vm);
    StgInfo *stg = stg_new(vm, CK_FUNCPTR);
    if (!stg) return -1;
    stg->size = sizeof(void *);
    stg->align = _Alignof(void *);
    stg->ffi = &ffi_type_pointer;
    vm_push_root(vm, val_obj(stg));
    Value at = type_lookup(vm, cls, fs->s_argtypes_);
    Value rt = type_lookup(vm, cls, fs->s_restype_);
    Value fl = type_lookup(vm, cls, fs->s_flags_);
    int rc = 0;
    if (!val_is_null(at)) {
        Value t = check_argtypes(vm, at, "_argtypes_");
        if (val_is_null(t)) rc = -1;
        else stg->argtypes = t;
    }
    if (rc == 0 && !val_is_null(rt)) {
        if (check_restype(vm, rt) < 0) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "_restype_ must be a type, a callable, or None");
            rc = -1;
        } else {
            stg->restype = rt;
        }
    }
    if (rc == 0 && !val_is_null(fl)) {
        if (!val_is_intlike(fl)) {
            vm_raise(vm, vm->e_TypeError, "class must define _flags_ which must be an integer");
            rc = -1;
        } else {
            stg->func_flags = (int32_t)val_as_intlike(fl);
        }
    }
    vm_pop_root(vm);
    if (rc == 0) cls->native_data = stg;
    return rc;
}

static Value funcptr_init_subclass(ARGS) { return funcptr_stg_init(vm, AS_TYPE(argv[0])) < 0 ? val_null() : val_none(); }

void *ct_dll_symbol(VM *vm, Value dll, const char *name) {
    Value h = vm_getattr_c(vm, dll, "_handle");
    if (val_is_null(h)) return NULL;
    if (!val_is_intlike(h)) {
        vm_raise(vm, vm->e_TypeError, "the _handle attribute of the second argument must be an integer");
        return NULL;
    }
    void *handle = (void *)(uintptr_t)val_as_intlike(h);
    dlerror();
    void *p = dlsym(handle ? handle : RTLD_DEFAULT, name);
    if (!p) {
        const char *e = dlerror();
        vm_raise(vm, vm->e_AttributeError, "%s", e ? e : name);
        return NULL;
    }
    return p;
}

/* F(), F(address), F((name, dll)), F(callable) */
static Value cfunc_tp_new(ARGS) {
    TypeObj *cls = AS_TYPE(argv[0]);
    StgInfo *stg = stg_of_type(vm, argv[0]);
    if (!stg) return vm_raise(vm, vm->e_TypeError, "abstract class");
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", cls->name->data);
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "argument must be callable or integer function address");
    CFuncObj *f = cfunc_new(vm, cls);
    if (!f) return val_null();
    Value fv = val_obj(f);
    if (argc == 1) return fv;
    Value a = argv[1];
    vm_push_root(vm, fv);
    Value r = fv;
    if (val_is_intlike(a)) {
        *(void **)f->cd.ptr = (void *)(uintptr_t)val_as_intlike(a);
    } else if (val_is_type(vm, a, vm->t_tuple)) {
        TupleObj *t = AS_TUPLE(a);
        if (t->len < 2 || !val_is_str(vm, t->items[0])) {
            r = vm_raise(vm, vm->e_TypeError, "function name must be a string");
        } else {
            void *p = ct_dll_symbol(vm, t->items[1], AS_STR(t->items[0])->data);
            if (!p) r = val_null();
            else {
                *(void **)f->cd.ptr = p;
                f->dll = t->items[1];
            }
        }
    } else if (vm_is_callable(vm, a)) {
        if (val_is_null(stg->argtypes)) {
            r = vm_raise(vm, vm->e_TypeError, "cannot construct instance of this class: no argtypes");
        } else {
            f->callable = a;
            if (thunk_create(vm, f, stg) < 0) r = val_null();
        }
    } else {
        r = vm_raise(vm, vm->e_TypeError, "argument must be callable or integer function address");
    }
    vm_pop_root(vm);
    return r;
}

static Value cfunc_init(ARGS) { return val_none(); }

static Value get_argtypes(VM *vm, Value self, void *c) {
    Value v = effective_argtypes(vm, (CFuncObj *)self.as.o);
    return val_is_null(v) ? val_none() : v;
}

static int set_argtypes(VM *vm, Value self, Value v, void *c) {
    CFuncObj *f = (CFuncObj *)self.as.o;
    if (val_is_null(v) || val_is_none(v)) {
        f->argtypes = val_null();
    } else {
        Value t = check_argtypes(vm, v, "_argtypes_");
        if (val_is_null(t)) return -1;
        f->argtypes = t;
    }
    cfunc_free_call(f->call);
    f->call = NULL;
    f->plan_for = NULL;
    return 0;
}

static Value get_restype(VM *vm, Value self, void *c) {
    Value v = effective_restype(vm, (CFuncObj *)self.as.o);
    return val_is_null(v) ? val_none() : v;
}

static int set_restype(VM *vm, Value self, Value v, void *c) {
    CFuncObj *f = (CFuncObj *)self.as.o;
    if (val_is_null(v)) {
        f->restype = val_null();
    } else {
        if (check_restype(vm, v) < 0) return -1;
        f->restype = v;
    }
    cfunc_free_call(f->call);
    f->call = NULL;
    return 0;
}

static Value get_errcheck(VM *vm, Value self, void *c) {
    Value v = ((CFuncObj *)self.as.o)->errcheck;
    return val_is_null(v) ? val_none() : v;
}

static int set_errcheck(VM *vm, Value self, Value v, void *c) {
    CFuncObj *f = (CFuncObj *)self.as.o;
    if (!val_is_null(v) && !vm_is_callable(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "the errcheck attribute must be callable");
        return -1;
    }
    f->errcheck = v;
    return 0;
}

static Value cfunc_repr(ARGS) {
    StrObj *s = str_printf(vm, "<%s object at %p>", vm_type_name(vm, argv[0]), (void *)argv[0].as.o);
    return s ? val_obj(s) : val_null();
}

static Value cfunc_bool(ARGS) { return val_bool(*(void **)CD(argv[0])->ptr != NULL); }

/* ---- calls ----------------------------------------------------------------------------------------- */

static __thread int ctypes_errno;

static Value f_get_errno(ARGS) { return val_int(ctypes_errno); }
static Value f_set_errno(ARGS) {
    if (argc != 1 || !val_is_intlike(argv[0])) return vm_raise(vm, vm->e_TypeError, "set_errno() argument must be int");
    int old = ctypes_errno;
    ctypes_errno = (int)val_as_intlike(argv[0]);
    return val_int(old);
}

static bool call_matches(FfiCall *c, int n, ArgSlot *slots, ffi_type *rtype) {
    if (!c || c->nargs != n || c->rtype != rtype) return false;
    for (int i = 0; i < n; i++)
        if (c->atypes[i] != slots[i].ffi) return false;
    return true;
}

static FfiCall *call_prepare(VM *vm, int n, ArgSlot *slots, ffi_type *rtype, Obj *rkeep) {
    FfiCall *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    c->nargs = n;
    c->rtype = rtype;
    c->rkeep = rkeep;
    c->atypes = calloc((size_t)n + 1, sizeof(ffi_type *));
    c->akeep = calloc((size_t)n + 1, sizeof(Obj *));
    if (!c->atypes || !c->akeep) goto oom;
    for (int i = 0; i < n; i++) {
        c->atypes[i] = slots[i].ffi;
        c->akeep[i] = slots[i].stg;
    }
    ffi_status st = ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)n, rtype, c->atypes);
    if (st != FFI_OK) {
        cfunc_free_call(c);
        vm_raise(vm, vm->e_RuntimeError, "ffi_prep_cif failed");
        return NULL;
    }
    return c;
oom:
    cfunc_free_call(c);
    vm_no_memory(vm);
    return NULL;
}

/* The argument plan for argtypes (see CFuncObj), rebuilt when argtypes or any class changed;
 * NULL when it cannot be built (the slow path handles everything). */
static const char *arg_plan(VM *vm, CFuncObj *f, Value argtypes) {
    if (val_is_null(argtypes)) return NULL;
    if (f->plan && f->plan_for == argtypes.as.o && f->plan_epoch == vm->class_epoch) return f->plan;
    TupleObj *at = AS_TUPLE(argtypes);
    char *plan = realloc(f->plan, (size_t)at->len + 1);
    if (!plan) return NULL;
    f->plan = plan;
    for (int64_t i = 0; i < at->len; i++) {
        StgInfo *s = stg_of_type(vm, at->items[i]);
        char c = 0;
        if (s && s->kind == CK_SIMPLE && strchr("bBhHiIlLqQfd", s->code) && !custom_from_param(vm, at->items[i]))
            c = s->code;
        plan[i] = c;
    }
    f->plan_for = argtypes.as.o;
    f->plan_epoch = vm->class_epoch;
    return plan;
}

/* A Python int or float through a plain numeric argtype: what conv_typed would do, minus the
 * lookups.  false: not this case (conv_arg decides, errors included). */
static bool conv_fast(char code, Value v, ArgSlot *s) {
    if (v.tag != VAL_FLOAT && v.tag != VAL_INT && v.tag != VAL_BOOL) return false;
    s->stg = NULL;
    s->ptr = &s->v;
    s->ffi = simple_ffi(code);
    if (code == 'd' || code == 'f') {
        double d = v.tag == VAL_FLOAT ? v.as.f : (double)val_as_intlike(v);
        if (code == 'd') s->v.d = d;
        else s->v.f = (float)d;
        return true;
    }
    if (v.tag == VAL_FLOAT) return false;   /* an error: let conv_arg say which */
    int64_t x = val_as_intlike(v);
    switch (code) {
    case 'b': *(int8_t *)s->v.buf = (int8_t)x; break;
    case 'B': *(uint8_t *)s->v.buf = (uint8_t)x; break;
    case 'h': *(short *)s->v.buf = (short)x; break;
    case 'H': *(unsigned short *)s->v.buf = (unsigned short)x; break;
    case 'i': *(int *)s->v.buf = (int)x; break;
    case 'I': *(unsigned int *)s->v.buf = (unsigned int)x; break;
    default: s->v.i = x; break;
    }
    return true;
}

static Value cfunc_call(ARGS) {
    CFuncObj *f = (CFuncObj *)argv[0].as.o;
    Value *args = argv + 1;
    int n = argc - 1;
    /* keyword arguments are ignored, as CPython's ctypes ignores them */
    void *fnptr = *(void **)f->cd.ptr;
    Value argtypes = effective_argtypes(vm, f);
    Value restype = effective_restype(vm, f);
    int nreq = val_is_null(argtypes) ? 0 : (int)AS_TUPLE(argtypes)->len;
    if (n < nreq)
        return vm_raise(vm, vm->e_TypeError, "this function takes at least %d argument%s (%d given)", nreq,
                        nreq == 1 ? "" : "s", n);
    if (!fnptr) return vm_raise(vm, vm->e_ValueError, "NULL function pointer");
    /* argtypes/restype stay alive through the call even if a callback replaces them */
    vm_push_root(vm, argtypes);
    vm_push_root(vm, restype);
    int nroots = 2;
    ArgSlot small[8];
    void *avals_small[8];
    ArgSlot *slots = n <= 8 ? small : malloc(sizeof(ArgSlot) * (size_t)n);
    void **avals = n <= 8 ? avals_small : malloc(sizeof(void *) * (size_t)n);
    Value result = val_null();
    void *rbig = NULL;
    if (!slots || !avals) {
        vm_no_memory(vm);
        goto done;
    }
    /* a snapshot: a from_param below may call f again, which may rebuild f->plan */
    char plan_buf[32];
    const char *plan = nreq <= (int)sizeof plan_buf ? arg_plan(vm, f, argtypes) : NULL;
    if (plan) plan = memcpy(plan_buf, plan, (size_t)nreq);
    for (int i = 0; i < n; i++) {
        if (plan && i < nreq && plan[i] && conv_fast(plan[i], args[i], &slots[i])) {
            avals[i] = slots[i].ptr;
            continue;
        }
        Value keep;
        Value at = i < nreq ? AS_TUPLE(argtypes)->items[i] : val_null();
        if (conv_arg(vm, at, args[i], &slots[i], &keep, i + 1) < 0) {
            ct_argument_error(vm, i + 1);
            goto done;
        }
        if (!val_is_null(keep)) {
            vm_push_root(vm, keep);
            nroots++;
        }
        avals[i] = slots[i].ptr;
    }
    ffi_type *rtype;
    Obj *rkeep;
    if (result_ffi(vm, restype, &rtype, &rkeep) < 0) goto done;
    if (!call_matches(f->call, n, slots, rtype)) {
        FfiCall *c = call_prepare(vm, n, slots, rtype, rkeep);
        if (!c) goto done;
        cfunc_free_call(f->call);
        f->call = c;
    }
    /* the call owns the signature while it runs: a callback may replace f's */
    FfiCall *call = f->call;
    f->call = NULL;
    union {
        ffi_arg a;
        double d;
        long double g;
        void *p;
        char buf[32];
    } rsmall;
    void *rv = &rsmall;
    if (rtype->size > sizeof rsmall) {
        rbig = calloc(1, rtype->size + 16);
        if (!rbig) {
            f->call = call;
            vm_no_memory(vm);
            goto done;
        }
        rv = rbig;
    }
    StgInfo *fstg = stg_of_obj(vm, argv[0]);
    bool use_errno = fstg && (fstg->func_flags & FUNCFLAG_USE_ERRNO);
    int saved_errno = 0;
    if (use_errno) {
        saved_errno = errno;
        errno = ctypes_errno;
    }
    ffi_call(&call->cif, FFI_FN(fnptr), rv, avals);
    if (use_errno) {
        ctypes_errno = errno;
        errno = saved_errno;
    }
    if (f->call) cfunc_free_call(call);
    else f->call = call;
    if (!val_is_null(vm->exc)) goto done;
    result = convert_result(vm, restype, rv);
    if (!val_is_null(result) && !val_is_null(f->errcheck)) {
        vm_push_root(vm, result);
        TupleObj *at = tuple_from_array(vm, args, n);
        if (at) {
            vm_push_root(vm, val_obj(at));
            Value eargs[3] = {result, argv[0], val_obj(at)};
            result = vm_call(vm, f->errcheck, 3, eargs, NULL);
            vm_pop_root(vm);
        } else {
            result = val_null();
        }
        vm_pop_root(vm);
    }
done:
    free(rbig);
    if (slots != small) free(slots);
    if (avals != avals_small) free(avals);
    vm_pop_roots(vm, nroots);
    return result;
}

/* ---- dlopen ----------------------------------------------------------------------------------------- */

static Value f_dlopen(ARGS) {
    static const char *const names[] = {"name", "flag"};
    Value a[2];
    if (native_parse_args(vm, "dlopen", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int64_t mode = RTLD_NOW | RTLD_LOCAL;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &mode) < 0) return val_null();
    const char *name = NULL;
    if (val_is_str(vm, a[0])) name = AS_STR(a[0])->data;
    else if (!val_is_none(a[0]))
        return vm_raise(vm, vm->e_TypeError, "dlopen() argument 1 must be str or None, not %s", vm_type_name(vm, a[0]));
    void *h = dlopen(name, (int)mode | RTLD_NOW);
    if (!h) {
        const char *e = dlerror();
        return vm_raise(vm, vm->e_OSError, "%s", e ? e : "dlopen failed");
    }
    return val_int((int64_t)(uintptr_t)h);
}

static Value f_dlclose(ARGS) {
    if (argc != 1 || !val_is_intlike(argv[0])) return vm_raise(vm, vm->e_TypeError, "dlclose() argument must be int");
    if (dlclose((void *)(uintptr_t)val_as_intlike(argv[0])) != 0) {
        const char *e = dlerror();
        return vm_raise(vm, vm->e_OSError, "%s", e ? e : "dlclose failed");
    }
    return val_none();
}

static Value f_dlsym(ARGS) {
    if (argc != 2 || !val_is_intlike(argv[0]) || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "dlsym(handle, name)");
    void *h = (void *)(uintptr_t)val_as_intlike(argv[0]);
    dlerror();
    void *p = dlsym(h ? h : RTLD_DEFAULT, AS_STR(argv[1])->data);
    if (!p) {
        const char *e = dlerror();
        return vm_raise(vm, vm->e_OSError, "%s", e ? e : "symbol not found");
    }
    return val_int((int64_t)(uintptr_t)p);
}

int ct_func_init(VM *vm, Value mod) {
    FfiState *fs = ffi_state(vm);
    fs->t_funcptr = ct_new_base(vm, "CFuncPtr", fs->t_cdata, fs->meta_funcptr, sizeof(CFuncObj), cfunc_trace,
                                cfunc_finalize);
    if (!fs->t_funcptr) return -1;
    fs->t_funcptr->alloc = cfunc_alloc;
    static const MethodDef m[] = {
        {"__init_subclass__", funcptr_init_subclass, NATIVEF_CLASSMETHOD},
        {"__new__", cfunc_tp_new, NATIVEF_STATIC},
        {"__init__", cfunc_init, NATIVEF_METHOD},
        {"__call__", cfunc_call, NATIVEF_METHOD},
        {"__repr__", cfunc_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__bool__", cfunc_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef gs[] = {{"argtypes", get_argtypes, set_argtypes},
                                   {"restype", get_restype, set_restype},
                                   {"errcheck", get_errcheck, set_errcheck},
                                   {NULL}};
    static const MethodDef fns[] = {{"dlopen", f_dlopen, 0},       {"dlclose", f_dlclose, 0},
                                    {"dlsym", f_dlsym, 0},         {"get_errno", f_get_errno, 0},
                                    {"set_errno", f_set_errno, 0}, {NULL}};
    if (type_add_methods(vm, fs->t_funcptr, m) < 0 || type_add_getsets(vm, fs->t_funcptr, gs) < 0 ||
        module_add_functions(vm, mod, fns) < 0)
        return -1;
    if (module_set(vm, mod, "CFuncPtr", val_obj(fs->t_funcptr)) < 0) return -1;
    struct { const char *n; int v; } consts[] = {
        {"FUNCFLAG_CDECL", FUNCFLAG_CDECL}, {"FUNCFLAG_PYTHONAPI", FUNCFLAG_PYTHONAPI},
        {"FUNCFLAG_USE_ERRNO", FUNCFLAG_USE_ERRNO}, {"FUNCFLAG_USE_LASTERROR", FUNCFLAG_USE_LASTERROR},
        {"RTLD_LOCAL", RTLD_LOCAL}, {"RTLD_GLOBAL", RTLD_GLOBAL}};
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return 0;
}
