/* vm/func.c — functions, bound methods, cells and code objects: creation by MAKE_FUNCTION,
 * their script-visible attributes (__name__, __qualname__, __defaults__, __code__, __dict__,
 * __wrapped__ via the dict, ...), and reprs. */
#include "vm/func.h"

#include "vm/descr.h"
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
    gc_mark_value(vm, n->module);
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
static int fn_set_code(VM *vm, Value s, Value v, void *c) {
    if (!val_is_type(vm, v, vm->t_code)) {
        vm_raise(vm, vm->e_TypeError, "__code__ must be set to a code object");
        return -1;
    }
    int64_t nfree = AS_CODE(v)->freevars->len, nclosure = FN(s)->closure ? FN(s)->closure->len : 0;
    if (nfree != nclosure) {
        vm_raise(vm, vm->e_ValueError, "%s() requires a code object with %lld free vars, not %lld",
                 FN(s)->name->data, (long long)nclosure, (long long)nfree);
        return -1;
    }
    FN(s)->code = AS_CODE(v);
    return 0;
}
static Value fn_get_builtins(VM *vm, Value s, void *c) { return val_obj(vm->builtins); }
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

/* types.FunctionType(code, globals, name=None, argdefs=None, closure=None) */
static Value fn_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    static const char *const names[] = {"cls", "code", "globals", "name", "argdefs", "closure"};
    Value a[6];
    if (native_parse_args(vm, "function", argc, argv, kw, 6, 3, names, 6, a) < 0) return val_null();
    if (!val_is_type(vm, a[1], vm->t_code))
        return vm_raise(vm, vm->e_TypeError, "function() argument 'code' must be code, not %s", vm_type_name(vm, a[1]));
    if (!val_is_obj(a[2]) || !vm_isinstance_type(vm, a[2], vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "function() argument 'globals' must be dict, not %s", vm_type_name(vm, a[2]));
    CodeObj *co = AS_CODE(a[1]);
    Value name = val_is_null(a[3]) ? val_none() : a[3];
    Value defs = val_is_null(a[4]) ? val_none() : a[4];
    Value clo = val_is_null(a[5]) ? val_none() : a[5];
    if (!val_is_none(name) && !val_is_str(vm, name))
        return vm_raise(vm, vm->e_TypeError, "arg 3 (name) must be None or string");
    if (!val_is_none(defs) && !val_is_type(vm, defs, vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "arg 4 (defaults) must be None or tuple");
    int64_t nfree = co->freevars->len;
    if (!val_is_none(clo) && !val_is_type(vm, clo, vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "arg 5 (closure) must be tuple");
    int64_t nclosure = val_is_none(clo) ? 0 : AS_TUPLE(clo)->len;
    if (nfree && val_is_none(clo)) return vm_raise(vm, vm->e_TypeError, "arg 5 (closure) must be tuple");
    if (nclosure != nfree)
        return vm_raise(vm, vm->e_ValueError, "%s requires closure of length %lld, not %lld", co->name->data,
                        (long long)nfree, (long long)nclosure);
    for (int64_t i = 0; i < nclosure; i++)
        if (!val_is_type(vm, AS_TUPLE(clo)->items[i], vm->t_cell))
            return vm_raise(vm, vm->e_TypeError, "arg 5 (closure) expected cell, found %s",
                            vm_type_name(vm, AS_TUPLE(clo)->items[i]));
    FunctionObj *fn = func_new(vm, co, AS_DICT(a[2]));
    if (!fn) return val_null();
    if (!val_is_none(name)) fn->name = str_exact(vm, AS_STR(name));
    if (!fn->name) return val_null();
    if (!val_is_none(defs)) fn->defaults = AS_TUPLE(defs);
    if (nclosure) fn->closure = AS_TUPLE(clo);
    return val_obj(fn);
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

/* types.MethodType(func, obj): CPython's method_new */
static Value bm_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "method() takes no keyword arguments");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "method expected 2 arguments, got %d", argc - 1);
    if (!vm_is_callable(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "first argument must be callable");
    if (val_is_none(argv[2])) return vm_raise(vm, vm->e_TypeError, "instance must not be None");
    return vm_bound_method_new(vm, argv[1], argv[2]);
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
static Value native_get_module(VM *vm, Value s, void *c) {
    NativeObj *n = (NativeObj *)s.as.o;
    return val_is_null(n->module) ? val_none() : n->module;
}
static int native_set_module(VM *vm, Value s, Value v, void *c) {
    ((NativeObj *)s.as.o)->module = val_is_null(v) ? val_none() : v;
    return 0;
}
/* CPython's meth_reduce: a module function pickles as its name (save_global finds the module by
 * __module__), a bound built-in method as getattr(self, name). */
static Value native_reduce(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    NativeObj *n = (NativeObj *)argv[0].as.o;
    StrObj *name = str_from_c(vm, n->name);
    if (!name) return val_null();
    if (val_is_null(n->self) || val_is_type(vm, n->self, vm->t_module)) return val_obj(name);
    vm_push_root(vm, val_obj(name));
    TupleObj *args = tuple_pack(vm, 2, n->self, val_obj(name));
    vm_pop_root(vm);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    Value getattr_fn = dict_get_c(vm, vm->builtins, "getattr");
    TupleObj *r = val_is_null(getattr_fn) ? NULL : tuple_pack(vm, 2, getattr_fn, val_obj(args));
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}
static Value native_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    NativeObj *n = (NativeObj *)argv[0].as.o;
    StrObj *s = n->owner ? str_printf(vm, "<method '%s' of '%s' objects>", n->name, n->owner->name->data)
                         : str_printf(vm, "<built-in function %s>", n->name);
    return s ? val_obj(s) : val_null();
}

/* types.CellType([contents]) */
static Value cell_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (native_check_args(vm, "cell", argc, kw, 1, 2) < 0) return val_null();
    CellObj *c = gc_alloc(vm, vm->t_cell, sizeof(CellObj));
    if (!c) return val_null();
    c->v = argc == 2 ? argv[1] : val_null();
    return val_obj(c);
}
static Value cell_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    Value v = ((CellObj *)argv[0].as.o)->v;
    StrObj *s = val_is_null(v) ? str_printf(vm, "<cell at %p: empty>", (void *)argv[0].as.o)
                : val_is_obj(v) ? str_printf(vm, "<cell at %p: %s object at %p>", (void *)argv[0].as.o,
                                             vm_type_name(vm, v), (void *)v.as.o)
                                : str_printf(vm, "<cell at %p: %s object>", (void *)argv[0].as.o, vm_type_name(vm, v));
    return s ? val_obj(s) : val_null();
}
/* cells compare by contents, an empty cell before any other (CPython's cell_richcompare) */
static Value cell_cmp(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (!val_is_type(vm, argv[1], vm->t_cell)) return vm->not_implemented;
    Value a = ((CellObj *)argv[0].as.o)->v, b = ((CellObj *)argv[1].as.o)->v;
    CompareOp op = (CompareOp)(intptr_t)nf->data;
    if (!val_is_null(a) && !val_is_null(b)) return vm_compare(vm, op, a, b);
    int c = (!val_is_null(a)) - (!val_is_null(b));
    switch (op) {
    case CMP_LT: return val_bool(c < 0);
    case CMP_LE: return val_bool(c <= 0);
    case CMP_EQ: return val_bool(c == 0);
    case CMP_NE: return val_bool(c != 0);
    case CMP_GT: return val_bool(c > 0);
    default: return val_bool(c >= 0);
    }
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
static Value co_get_stacksize(VM *vm, Value s, void *c) { return val_int(CO(s)->stacksize); }
/* co_code: one 2-byte unit per instruction (opcode, low byte of the argument), so its length
 * and co_positions()/f_lasti agree as in CPython; Ember's bytecode is not CPython's. */
static Value co_get_code(VM *vm, Value s, void *c) {
    CodeObj *co = CO(s);
    BytesObj *b = bytes_new(vm, NULL, 2 * (int64_t)co->ncode);
    if (!b) return val_null();
    for (int32_t i = 0; i < co->ncode; i++) {
        b->data[2 * i] = co->code[i].op;
        b->data[2 * i + 1] = (uint8_t)co->code[i].arg;
    }
    return val_obj(b);
}
static Value co_get_empty_bytes(VM *vm, Value s, void *c) {
    BytesObj *b = bytes_new(vm, NULL, 0);
    return b ? val_obj(b) : val_null();
}

/* co_positions(): (line, end_line, col, end_col) per instruction; the columns are None, as
 * CPython gives them under -X no_debug_ranges (the traceback layout Ember prints). */
static Value co_positions(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    CodeObj *co = CO(argv[0]);
    ListObj *l = list_new(vm, co->ncode);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int32_t i = 0; i < co->ncode; i++) {
        Value line = co->lines[i] > 0 ? val_int(co->lines[i]) : val_none();
        TupleObj *t = tuple_pack(vm, 4, line, line, val_none(), val_none());
        if (!t || list_append(vm, l, val_obj(t)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    Value it = vm_iter(vm, val_obj(l));
    vm_pop_root(vm);
    return it;
}

/* co_lines(): (start, end, line) byte ranges of consecutive instructions on one line */
static Value co_lines_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    CodeObj *co = CO(argv[0]);
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int32_t i = 0; i < co->ncode;) {
        int32_t j = i + 1;
        while (j < co->ncode && co->lines[j] == co->lines[i]) j++;
        TupleObj *t = tuple_pack(vm, 3, val_int(2 * (int64_t)i), val_int(2 * (int64_t)j),
                                 co->lines[i] > 0 ? val_int(co->lines[i]) : val_none());
        if (!t || list_append(vm, l, val_obj(t)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        i = j;
    }
    Value it = vm_iter(vm, val_obj(l));
    vm_pop_root(vm);
    return it;
}

/* code.replace(**changes): a copy with the named fields changed.  Names, flags, constants and
 * the source location may change; the instructions cannot (Ember's are not CPython's). */
static Value co_replace(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    if (argc != 1) return vm_raise(vm, vm->e_TypeError, "replace() takes no positional arguments");
    CodeObj *src = CO(argv[0]);
    int nkw = kw ? (int)kw->len : 0;
    for (int k = 0; k < nkw; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        Value v = argv[argc + k];
        static const char *const str_fields[] = {"co_name", "co_qualname", "co_filename", NULL};
        static const char *const tuple_fields[] = {"co_consts", "co_names", "co_varnames", "co_freevars", "co_cellvars", NULL};
        static const char *const int_fields[] = {"co_flags", "co_firstlineno", "co_argcount", "co_posonlyargcount",
                                                 "co_kwonlyargcount", "co_nlocals", "co_stacksize", NULL};
        bool known = false;
        for (int i = 0; str_fields[i]; i++)
            if (str_eq_c(n, str_fields[i])) {
                known = true;
                if (!val_is_str(vm, v))
                    return vm_raise(vm, vm->e_TypeError, "replace() argument '%s' must be str, not %s", n->data, vm_type_name(vm, v));
            }
        for (int i = 0; tuple_fields[i]; i++)
            if (str_eq_c(n, tuple_fields[i])) {
                known = true;
                if (!val_is_type(vm, v, vm->t_tuple))
                    return vm_raise(vm, vm->e_TypeError, "replace() argument '%s' must be tuple, not %s", n->data, vm_type_name(vm, v));
            }
        for (int i = 0; int_fields[i]; i++)
            if (str_eq_c(n, int_fields[i])) {
                known = true;
                if (!val_is_intlike(v))
                    return vm_raise(vm, vm->e_TypeError, "replace() argument '%s' must be int, not %s", n->data, vm_type_name(vm, v));
            }
        if (str_eq_c(n, "co_code") || str_eq_c(n, "co_linetable") || str_eq_c(n, "co_exceptiontable"))
            return vm_raise(vm, vm->e_NotImplementedError,
                            "code.replace(%s=...) is not supported: Ember's bytecode is not CPython's", n->data);
        if (!known) return vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for replace()", n->data);
    }
    CodeObj *co = code_copy(vm, src);
    if (!co) return val_null();
    for (int k = 0; k < nkw; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        Value v = argv[argc + k];
        const char *bad = NULL;
        if (str_eq_c(n, "co_name")) co->name = str_exact(vm, AS_STR(v));
        else if (str_eq_c(n, "co_qualname")) co->qualname = str_exact(vm, AS_STR(v));
        else if (str_eq_c(n, "co_filename")) co->filename = str_exact(vm, AS_STR(v));
        else if (str_eq_c(n, "co_consts")) {
            if (AS_TUPLE(v)->len < src->consts->len) bad = n->data;
            else co->consts = AS_TUPLE(v);
        } else if (str_eq_c(n, "co_names")) {
            if (AS_TUPLE(v)->len != src->names->len) bad = n->data;
            else co->names = AS_TUPLE(v);
        } else if (str_eq_c(n, "co_varnames")) {
            if (AS_TUPLE(v)->len != src->varnames->len) bad = n->data;
            else co->varnames = AS_TUPLE(v);
        } else if (str_eq_c(n, "co_freevars")) {
            if (AS_TUPLE(v)->len != src->freevars->len) bad = n->data;
            else co->freevars = AS_TUPLE(v);
        } else if (str_eq_c(n, "co_cellvars")) {
            if (AS_TUPLE(v)->len != src->cellvars->len) bad = n->data;
            else co->cellvars = AS_TUPLE(v);
        } else if (str_eq_c(n, "co_flags")) {
            /* Ember's own flag bits stay as they were */
            co->flags = ((uint32_t)val_as_intlike(v) & ~(uint32_t)CO_EMBER_FLAGS) | (src->flags & CO_EMBER_FLAGS);
        } else if (str_eq_c(n, "co_firstlineno")) co->firstlineno = (int32_t)val_as_intlike(v);
        else if (str_eq_c(n, "co_argcount")) co->argcount = (int32_t)val_as_intlike(v);
        else if (str_eq_c(n, "co_posonlyargcount")) co->posonlyargcount = (int32_t)val_as_intlike(v);
        else if (str_eq_c(n, "co_kwonlyargcount")) co->kwonlyargcount = (int32_t)val_as_intlike(v);
        else if (str_eq_c(n, "co_nlocals") && val_as_intlike(v) != src->nlocals) bad = n->data;
        else if (str_eq_c(n, "co_stacksize") && val_as_intlike(v) < src->stacksize) bad = n->data;
        if (bad)
            return vm_raise(vm, vm->e_ValueError, "code.replace(): %s does not fit this code object's instructions", bad);
        if (!co->name || !co->qualname || !co->filename) return val_null();
    }
    if (co->argcount + co->kwonlyargcount > co->nlocals || co->posonlyargcount > co->argcount)
        return vm_raise(vm, vm->e_ValueError, "code: varnames is too small");
    code_quicken_init(co);   /* the flags and counts CALL_PY_EXACT_ARGS checks may have changed */
    return val_obj(co);
}

static Value co_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *nf) {
    CodeObj *co = CO(argv[0]);
    StrObj *s = str_printf(vm, "<code object %s at %p, file \"%s\", line %d>", co->name->data,
                           (void *)co, co->filename->data, co->firstlineno);
    return s ? val_obj(s) : val_null();
}

/* __globals__ and __closure__ are member descriptors, as in CPython (types.MemberDescriptorType
 * is type(FunctionType.__globals__)). */
static int add_function_members(VM *vm) {
    static const struct { const char *name; size_t off; } m[] = {
        {"__globals__", offsetof(FunctionObj, globals)}, {"__closure__", offsetof(FunctionObj, closure)}};
    for (int i = 0; i < 2; i++) {
        StrObj *n = vm_intern_str(vm, m[i].name);
        Value md = n ? member_new(vm, vm->t_function, n, (int64_t)m[i].off, MEMBER_OBJECT, true) : val_null();
        if (val_is_null(md) || dict_set_str(vm, vm->t_function->dict, n, md) < 0) return -1;
    }
    return 0;
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
        {"__code__", fn_get_code, fn_set_code}, {"__builtins__", fn_get_builtins, NULL},
        {"__annotations__", fn_get_annotations, fn_set_annotations},
        {"__dict__", fn_get_dict, NULL}, {NULL}};
    static const MethodDef fn_m[] = {
        {"__repr__", fn_repr, NATIVEF_METHOD}, {"__get__", fn_get, NATIVEF_METHOD},
        {"__new__", fn_new, NATIVEF_STATIC}, {NULL}};
    static const GetSetDef bm_gs[] = {
        {"__func__", bm_get_func, NULL}, {"__self__", bm_get_self, NULL},
        {"__name__", bm_get_name, NULL}, {"__qualname__", bm_get_qualname, NULL},
        {"__doc__", bm_get_doc, NULL}, {NULL}};
    static const MethodDef bm_m[] = {
        {"__new__", bm_new, NATIVEF_STATIC}, {"__repr__", bm_repr, NATIVEF_METHOD}, {"__eq__", bm_eq, NATIVEF_METHOD},
        {"__hash__", bm_hash, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef nat_gs[] = {
        {"__name__", native_get_name, NULL}, {"__qualname__", native_get_qualname, NULL},
        {"__doc__", native_get_doc, NULL}, {"__self__", native_get_self, NULL},
        {"__module__", native_get_module, native_set_module}, {NULL}};
    static const MethodDef nat_m[] = {{"__repr__", native_repr, NATIVEF_METHOD},
                                      {"__reduce__", native_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef cell_gs[] = {{"cell_contents", cell_get_contents, cell_set_contents}, {NULL}};
    static const GetSetDef co_gs[] = {
        {"co_name", co_get_name, NULL}, {"co_qualname", co_get_qualname, NULL},
        {"co_filename", co_get_filename, NULL}, {"co_firstlineno", co_get_firstlineno, NULL},
        {"co_argcount", co_get_argcount, NULL}, {"co_kwonlyargcount", co_get_kwonlyargcount, NULL},
        {"co_posonlyargcount", co_get_posonlyargcount, NULL}, {"co_varnames", co_get_varnames, NULL},
        {"co_cellvars", co_get_cellvars, NULL}, {"co_freevars", co_get_freevars, NULL},
        {"co_names", co_get_names, NULL}, {"co_consts", co_get_consts, NULL},
        {"co_flags", co_get_flags, NULL}, {"co_nlocals", co_get_nlocals, NULL},
        {"co_stacksize", co_get_stacksize, NULL}, {"co_code", co_get_code, NULL},
        {"co_linetable", co_get_empty_bytes, NULL}, {"co_exceptiontable", co_get_empty_bytes, NULL},
        {"co_lnotab", co_get_empty_bytes, NULL}, {NULL}};
    static const MethodDef co_m[] = {
        {"__repr__", co_repr, NATIVEF_METHOD}, {"co_positions", co_positions, NATIVEF_METHOD | ARITY_NOARGS},
        {"co_lines", co_lines_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"replace", co_replace, NATIVEF_METHOD}, {NULL}};
    static const MethodDef cell_m[] = {
        {"__new__", cell_new_fn, NATIVEF_STATIC}, {"__repr__", cell_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__eq__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_EQ},
        {"__ne__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_NE},
        {"__lt__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_LT},
        {"__le__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_LE},
        {"__gt__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_GT},
        {"__ge__", cell_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)CMP_GE}, {NULL}};
    if (type_add_getsets(vm, vm->t_function, fn_gs) < 0 || type_add_methods(vm, vm->t_function, fn_m) < 0 ||
        type_add_getsets(vm, vm->t_method, bm_gs) < 0 || type_add_methods(vm, vm->t_method, bm_m) < 0 ||
        type_add_getsets(vm, vm->t_builtin_function, nat_gs) < 0 ||
        type_add_methods(vm, vm->t_builtin_function, nat_m) < 0 ||
        type_add_getsets(vm, vm->t_cell, cell_gs) < 0 || type_add_methods(vm, vm->t_cell, cell_m) < 0 ||
        dict_set_c(vm, vm->t_cell->dict, "__hash__", val_none()) < 0 || add_function_members(vm) < 0 ||
        type_add_getsets(vm, vm->t_code, co_gs) < 0 ||
        type_add_methods(vm, vm->t_code, co_m) < 0)
        EM_UNREACHABLE();
}
