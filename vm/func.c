/* vm/func.c — functions, bound methods, cells and code objects: creation by MAKE_FUNCTION,
 * their script-visible attributes (__name__, __qualname__, __defaults__, __code__, __dict__,
 * __wrapped__ via the dict, ...), and reprs. */
#include "vm/func.h"

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

static void func_trace(VM *vm, Obj *o) {
    FunctionObj *f = (FunctionObj *)o;
    gc_mark(vm, f->code);
    gc_mark(vm, f->globals);
    gc_mark(vm, f->defaults);
    gc_mark(vm, f->kwdefaults);
    gc_mark(vm, f->closure);
    gc_mark(vm, f->name);
    gc_mark(vm, f->qualname);
    gc_mark_value(vm, f->doc);
    gc_mark_value(vm, f->module);
    gc_mark(vm, f->dict);
    gc_mark(vm, f->annotations);
}

static void method_trace(VM *vm, Obj *o) {
    BoundMethodObj *m = (BoundMethodObj *)o;
    gc_mark_value(vm, m->func);
    gc_mark_value(vm, m->self);
}

static void cell_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((CellObj *)o)->v); }

static void native_trace(VM *vm, Obj *o) {
    NativeObj *n = (NativeObj *)o;
    gc_mark_value(vm, n->self);
    gc_mark_value(vm, n->payload);
    gc_mark(vm, n->owner);
    gc_mark_value(vm, n->doc);
}

extern void code_trace(VM *vm, Obj *o);
extern void code_finalize(VM *vm, Obj *o);

FunctionObj *func_new(VM *vm, CodeObj *co, DictObj *globals) {
    /* look the module name up before allocating: the lookup interns (allocates) */
    StrObj *key = vm_intern_str(vm, "__name__");
    if (!key) return NULL;
    Value mod = dict_get_str(globals, key);
    FunctionObj *fn = gc_alloc(vm, vm->t_function, sizeof(FunctionObj));
    if (!fn) return NULL;
    fn->code = co;
    fn->globals = globals;
    fn->name = co->name;
    fn->qualname = co->qualname;
    fn->doc = val_none();
    fn->module = val_is_null(mod) ? val_none() : mod;
    /* a docstring is the first constant of a function whose body starts with a string */
    if (co->consts->len && val_is_str(vm, co->consts->items[0]) && (co->flags & CO_OPTIMIZED) &&
        (co->flags & CO_HAS_DOC))
        fn->doc = co->consts->items[0];
    return fn;
}

Value func_make(VM *vm, Frame *f, int flags, Value *sp) {
    CodeObj *co = (CodeObj *)sp[-1].as.o;
    Value *p = sp - 1;
    Value closure = (flags & 8) ? *--p : val_null();
    Value annotations = (flags & 4) ? *--p : val_null();
    Value kwdefaults = (flags & 2) ? *--p : val_null();
    Value defaults = (flags & 1) ? *--p : val_null();
    FunctionObj *fn = func_new(vm, co, f->globals);
    if (!fn) return val_null();
    if (!val_is_null(closure)) fn->closure = AS_TUPLE(closure);
    if (!val_is_null(defaults)) fn->defaults = AS_TUPLE(defaults);
    if (!val_is_null(kwdefaults)) fn->kwdefaults = AS_DICT(kwdefaults);
    if (!val_is_null(annotations)) {
        vm_push_root(vm, val_obj(fn));
        DictObj *d = dict_new(vm);
        if (!d) {
            vm_pop_root(vm);
            return val_null();
        }
        fn->annotations = d;
        TupleObj *t = AS_TUPLE(annotations);
        for (int64_t i = 0; i + 1 < t->len; i += 2)
            if (dict_set(vm, d, t->items[i], t->items[i + 1]) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        vm_pop_root(vm);
    }
    return val_obj(fn);
}

/* ---- function attributes ----------------------------------------------------------------- */

#define FN(v) ((FunctionObj *)(v).as.o)
static Value fn_get_name(VM *vm, Value s, void *c) { return val_obj(FN(s)->name); }
static int fn_set_name(VM *vm, Value s, Value v, void *c) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "__name__ must be set to a string object");
        return -1;
    }
    FN(s)->name = AS_STR(v);
    return 0;
}
static Value fn_get_qualname(VM *vm, Value s, void *c) { return val_obj(FN(s)->qualname); }
static int fn_set_qualname(VM *vm, Value s, Value v, void *c) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "__qualname__ must be set to a string object");
        return -1;
    }
    FN(s)->qualname = AS_STR(v);
    return 0;
}
static Value fn_get_doc(VM *vm, Value s, void *c) { return FN(s)->doc; }
static int fn_set_doc(VM *vm, Value s, Value v, void *c) {
    FN(s)->doc = val_is_null(v) ? val_none() : v;
    return 0;
}
static Value fn_get_module(VM *vm, Value s, void *c) { return FN(s)->module; }
static int fn_set_module(VM *vm, Value s, Value v, void *c) {
    FN(s)->module = val_is_null(v) ? val_none() : v;
    return 0;
}
static Value fn_get_defaults(VM *vm, Value s, void *c) {
    return FN(s)->defaults ? val_obj(FN(s)->defaults) : val_none();
}
static int fn_set_defaults(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v) || val_is_none(v)) FN(s)->defaults = NULL;
    else if (val_is_type(vm, v, vm->t_tuple)) FN(s)->defaults = AS_TUPLE(v);
    else {
        vm_raise(vm, vm->e_TypeError, "__defaults__ must be set to a tuple object");
        return -1;
    }
    return 0;
}
static Value fn_get_kwdefaults(VM *vm, Value s, void *c) {
    return FN(s)->kwdefaults ? val_obj(FN(s)->kwdefaults) : val_none();
}
static Value fn_get_code(VM *vm, Value s, void *c) { return val_obj(FN(s)->code); }
static Value fn_get_globals(VM *vm, Value s, void *c) { return val_obj(FN(s)->globals); }
static Value fn_get_closure(VM *vm, Value s, void *c) {
    return FN(s)->closure ? val_obj(FN(s)->closure) : val_none();
}
static Value fn_get_annotations(VM *vm, Value s, void *c) {
    if (!FN(s)->annotations) {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        FN(s)->annotations = d;
    }
    return val_obj(FN(s)->annotations);
}
static int fn_set_annotations(VM *vm, Value s, Value v, void *c) {
    if (!val_is_null(v) && !val_is_none(v) && !vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "__annotations__ must be set to a dict object");
        return -1;
    }
    FN(s)->annotations = val_is_null(v) || val_is_none(v) ? NULL : AS_DICT(v);
    return 0;
}
static int fn_set_kwdefaults(VM *vm, Value s, Value v, void *c) {
    if (!val_is_null(v) && !val_is_none(v) && !vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "__kwdefaults__ must be set to a dict object");
        return -1;
    }
    FN(s)->kwdefaults = val_is_null(v) || val_is_none(v) ? NULL : AS_DICT(v);
    return 0;
}
static Value fn_get_dict(VM *vm, Value s, void *c) {
    if (!FN(s)->dict) {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        FN(s)->dict = d;
    }
    return val_obj(FN(s)->dict);
}

static Value fn_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    StrObj *s = str_printf(vm, "<function %s at %p>", FN(argv[0])->qualname->data, (void *)argv[0].as.o);
    return s ? val_obj(s) : val_null();
}

static Value fn_get(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (argc < 2 || val_is_none(argv[1])) return argv[0];
    return vm_bind_descriptor(vm, argv[0], argv[1], NULL);
}

/* ---- bound methods ----------------------------------------------------------------------- */

#define BM(v) ((BoundMethodObj *)(v).as.o)
static Value bm_get_func(VM *vm, Value s, void *c) { return BM(s)->func; }
static Value bm_get_self(VM *vm, Value s, void *c) { return BM(s)->self; }
static Value bm_get_name(VM *vm, Value s, void *c) { return vm_getattr_c(vm, BM(s)->func, "__name__"); }
static Value bm_get_qualname(VM *vm, Value s, void *c) { return vm_getattr_c(vm, BM(s)->func, "__qualname__"); }
static Value bm_get_doc(VM *vm, Value s, void *c) { return vm_getattr_c(vm, BM(s)->func, "__doc__"); }

static Value bm_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    Value fv = BM(argv[0])->func, self = BM(argv[0])->self;
    if (fv.tag == VAL_OBJ && fv.as.o->type->layout == OBJ_LAYOUT_NATIVE && !val_is_obj(self)) {
        /* a native method bound to a scalar (int, float, ...) */
        StrObj *s = str_printf(vm, "<built-in method %s of %s object>", ((NativeObj *)fv.as.o)->name,
                               vm_type_name(vm, self));
        return s ? val_obj(s) : val_null();
    }
    if (fv.tag == VAL_OBJ && fv.as.o->type->layout == OBJ_LAYOUT_NATIVE) {
        /* CPython: "<built-in method get of dict object at 0x...>" */
        StrObj *s = str_printf(vm, "<built-in method %s of %s object at %p>", ((NativeObj *)fv.as.o)->name,
                               vm_type_name(vm, self), (void *)self.as.o);
        return s ? val_obj(s) : val_null();
    }
    Value qn = vm_getattr_c(vm, BM(argv[0])->func, "__qualname__");
    if (val_is_null(qn)) {
        vm_clear_exc(vm);
        qn = vm_getattr_c(vm, BM(argv[0])->func, "__name__");
        if (val_is_null(qn)) return qn;
    }
    vm_push_root(vm, qn);
    Value r = vm_repr(vm, BM(argv[0])->self);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "<bound method %s of %s>", val_is_str(vm, qn) ? AS_STR(qn)->data : "?",
                           AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value bm_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (!val_is_type(vm, argv[1], vm->t_method)) return vm->not_implemented;
    return val_bool(val_identical(BM(argv[0])->self, BM(argv[1])->self) &&
                    val_identical(BM(argv[0])->func, BM(argv[1])->func));
}

static Value bm_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    int64_t a, b;
    if (vm_hash(vm, BM(argv[0])->func, &a) < 0) return val_null();
    if (vm_hash(vm, BM(argv[0])->self, &b) < 0) return val_null();
    return val_int(a ^ (b * 1000003));
}

/* ---- natives, cells, code ------------------------------------------------------------------- */

static Value native_get_name(VM *vm, Value s, void *c) {
    StrObj *n = str_from_c(vm, ((NativeObj *)s.as.o)->name);
    return n ? val_obj(n) : val_null();
}
static Value native_get_qualname(VM *vm, Value s, void *c) {
    NativeObj *n = (NativeObj *)s.as.o;
    StrObj *r = n->owner ? str_printf(vm, "%s.%s", n->owner->name->data, n->name) : str_from_c(vm, n->name);
    return r ? val_obj(r) : val_null();
}
static Value native_get_doc(VM *vm, Value s, void *c) { return ((NativeObj *)s.as.o)->doc; }
static Value native_get_self(VM *vm, Value s, void *c) {
    NativeObj *n = (NativeObj *)s.as.o;
    return val_is_null(n->self) ? val_none() : n->self;
}
static Value native_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    NativeObj *n = (NativeObj *)argv[0].as.o;
    StrObj *s = n->owner ? str_printf(vm, "<method '%s' of '%s' objects>", n->name, n->owner->name->data)
                         : str_printf(vm, "<built-in function %s>", n->name);
    return s ? val_obj(s) : val_null();
}

static Value cell_get_contents(VM *vm, Value s, void *c) {
    Value v = ((CellObj *)s.as.o)->v;
    if (val_is_null(v)) return vm_raise(vm, vm->e_ValueError, "Cell is empty");
    return v;
}
static int cell_set_contents(VM *vm, Value s, Value v, void *c) {
    ((CellObj *)s.as.o)->v = v;
    return 0;
}

#define CO(v) ((CodeObj *)(v).as.o)
static Value co_get_name(VM *vm, Value s, void *c) { return val_obj(CO(s)->name); }
static Value co_get_qualname(VM *vm, Value s, void *c) { return val_obj(CO(s)->qualname); }
static Value co_get_filename(VM *vm, Value s, void *c) { return val_obj(CO(s)->filename); }
static Value co_get_firstlineno(VM *vm, Value s, void *c) { return val_int(CO(s)->firstlineno); }
static Value co_get_argcount(VM *vm, Value s, void *c) { return val_int(CO(s)->argcount); }
static Value co_get_kwonlyargcount(VM *vm, Value s, void *c) { return val_int(CO(s)->kwonlyargcount); }
static Value co_get_posonlyargcount(VM *vm, Value s, void *c) { return val_int(CO(s)->posonlyargcount); }
static Value co_get_varnames(VM *vm, Value s, void *c) { return val_obj(CO(s)->varnames); }
static Value co_get_cellvars(VM *vm, Value s, void *c) { return val_obj(CO(s)->cellvars); }
static Value co_get_freevars(VM *vm, Value s, void *c) { return val_obj(CO(s)->freevars); }
static Value co_get_names(VM *vm, Value s, void *c) { return val_obj(CO(s)->names); }
static Value co_get_consts(VM *vm, Value s, void *c) { return val_obj(CO(s)->consts); }
static Value co_get_flags(VM *vm, Value s, void *c) { return val_int(CO(s)->flags & ~(uint32_t)CO_EMBER_FLAGS); }
static Value co_get_nlocals(VM *vm, Value s, void *c) { return val_int(CO(s)->nlocals); }
static Value co_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    CodeObj *co = CO(argv[0]);
    StrObj *s = str_printf(vm, "<code object %s at %p, file \"%s\", line %d>", co->name->data,
                           (void *)co, co->filename->data, co->firstlineno);
    return s ? val_obj(s) : val_null();
}

void func_init_types(VM *vm) {
    vm->t_function->trace = func_trace;
    vm->t_function->dict_offset = offsetof(FunctionObj, dict);   /* f.attr = ... */
    vm->t_method->trace = method_trace;
    vm->t_cell->trace = cell_trace;
    vm->t_builtin_function->trace = native_trace;
    vm->t_code->trace = code_trace;
    vm->t_code->finalize = code_finalize;
    static const GetSetDef fn_gs[] = {
        {"__name__", fn_get_name, fn_set_name}, {"__qualname__", fn_get_qualname, fn_set_qualname},
        {"__doc__", fn_get_doc, fn_set_doc}, {"__module__", fn_get_module, fn_set_module},
        {"__defaults__", fn_get_defaults, fn_set_defaults}, {"__kwdefaults__", fn_get_kwdefaults, fn_set_kwdefaults},
        {"__code__", fn_get_code, NULL}, {"__globals__", fn_get_globals, NULL},
        {"__closure__", fn_get_closure, NULL}, {"__annotations__", fn_get_annotations, fn_set_annotations},
        {"__dict__", fn_get_dict, NULL}, {NULL}};
    static const MethodDef fn_m[] = {
        {"__repr__", fn_repr, NATIVEF_METHOD}, {"__get__", fn_get, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef bm_gs[] = {
        {"__func__", bm_get_func, NULL}, {"__self__", bm_get_self, NULL},
        {"__name__", bm_get_name, NULL}, {"__qualname__", bm_get_qualname, NULL},
        {"__doc__", bm_get_doc, NULL}, {NULL}};
    static const MethodDef bm_m[] = {
        {"__repr__", bm_repr, NATIVEF_METHOD}, {"__eq__", bm_eq, NATIVEF_METHOD},
        {"__hash__", bm_hash, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef nat_gs[] = {
        {"__name__", native_get_name, NULL}, {"__qualname__", native_get_qualname, NULL},
        {"__doc__", native_get_doc, NULL}, {"__self__", native_get_self, NULL}, {NULL}};
    static const MethodDef nat_m[] = {{"__repr__", native_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef cell_gs[] = {{"cell_contents", cell_get_contents, cell_set_contents}, {NULL}};
    static const GetSetDef co_gs[] = {
        {"co_name", co_get_name, NULL}, {"co_qualname", co_get_qualname, NULL},
        {"co_filename", co_get_filename, NULL}, {"co_firstlineno", co_get_firstlineno, NULL},
        {"co_argcount", co_get_argcount, NULL}, {"co_kwonlyargcount", co_get_kwonlyargcount, NULL},
        {"co_posonlyargcount", co_get_posonlyargcount, NULL}, {"co_varnames", co_get_varnames, NULL},
        {"co_cellvars", co_get_cellvars, NULL}, {"co_freevars", co_get_freevars, NULL},
        {"co_names", co_get_names, NULL}, {"co_consts", co_get_consts, NULL},
        {"co_flags", co_get_flags, NULL}, {"co_nlocals", co_get_nlocals, NULL}, {NULL}};
    static const MethodDef co_m[] = {{"__repr__", co_repr, NATIVEF_METHOD}, {NULL}};
    if (type_add_getsets(vm, vm->t_function, fn_gs) < 0 || type_add_methods(vm, vm->t_function, fn_m) < 0 ||
        type_add_getsets(vm, vm->t_method, bm_gs) < 0 || type_add_methods(vm, vm->t_method, bm_m) < 0 ||
        type_add_getsets(vm, vm->t_builtin_function, nat_gs) < 0 ||
        type_add_methods(vm, vm->t_builtin_function, nat_m) < 0 ||
        type_add_getsets(vm, vm->t_cell, cell_gs) < 0 || type_add_getsets(vm, vm->t_code, co_gs) < 0 ||
        type_add_methods(vm, vm->t_code, co_m) < 0)
        EM_UNREACHABLE();
}
