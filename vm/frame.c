/* vm/frame.c — frame objects (f_back, f_code, f_lineno, f_lasti, f_locals, f_globals,
 * f_builtins, f_trace, clear), sys._getframe, locals() of function frames, the attributes of
 * traceback objects (tb_frame, tb_lineno, tb_lasti, tb_next, types.TracebackType(...)), and the
 * frames of generators and coroutines (gi_frame, cr_frame, ag_frame).  The model is in
 * vm/frame.h. */
#include "vm/frame.h"

#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define FO(v) ((FrameObj *)(v).as.o)

/* ---- the object ------------------------------------------------------------------------------ */

static void frame_trace(VM *vm, Obj *o) {
    FrameObj *f = (FrameObj *)o;
    gc_mark(vm, f->code);
    gc_mark(vm, f->func);
    gc_mark(vm, f->globals);
    gc_mark(vm, f->builtins);
    gc_mark_value(vm, f->locals);
    gc_mark_value(vm, f->back);
    gc_mark_value(vm, f->trace);
    for (int32_t i = 0; i < f->nsaved; i++) gc_mark_value(vm, f->saved[i]);
    /* a suspended generator's frame lives in the generator: keep it */
    if (f->live && f->live->gen) gc_mark(vm, f->live->gen);
}

static void frame_finalize(VM *vm, Obj *o) {
    FrameObj *f = (FrameObj *)o;
    if (f->saved) {
        gc_external_bytes(vm, -(ptrdiff_t)(sizeof(Value) * (size_t)f->nsaved));
        free(f->saved);
        f->saved = NULL;
    }
}

Value frame_object(VM *vm, Frame *f) {
    if (f->obj) return val_obj(f->obj);
    FrameObj *fo = gc_alloc(vm, vm->t_frame, sizeof(FrameObj));
    if (!fo) return val_null();
    fo->live = f;
    fo->code = f->code;
    fo->func = f->func;
    fo->globals = f->globals;
    fo->builtins = f->builtins ? f->builtins : vm->builtins;
    fo->locals = f->locals_dict ? val_obj(f->locals_dict) : val_null();
    fo->back = val_null();
    fo->trace = val_none();
    fo->lasti = -1;
    f->obj = (struct FrameObj *)fo;
    return val_obj(fo);
}

void frame_detach(VM *vm, Frame *f) {
    FrameObj *fo = (FrameObj *)f->obj;
    f->obj = NULL;
    fo->live = NULL;
    fo->lasti = f->ip;
    int32_t n = f->code->nlocalsplus;
    if (n && !f->locals_dict) {
        /* malloc, not the heap: a frame ends at points where allocation may not collect */
        fo->saved = malloc(sizeof(Value) * (size_t)n);
        if (fo->saved) {
            memcpy(fo->saved, f->localsplus, sizeof(Value) * (size_t)n);
            fo->nsaved = n;
            gc_external_bytes(vm, (ptrdiff_t)(sizeof(Value) * (size_t)n));
        }
    }
    /* an ended frame's f_back is its caller's frame (CPython 3.11); a generator's is None */
    fo->back = val_none();
    if (!f->gen && f->prev) {
        Value pending = vm->exc;
        bool was = vm->gc_disabled;
        vm->gc_disabled = true;
        Value b = frame_object(vm, f->prev);
        vm->gc_disabled = was;
        vm->exc = pending;
        if (!val_is_null(b)) fo->back = b;
    }
}

/* ---- locals ----------------------------------------------------------------------------------- */

/* The fast locals lp[] of code co into d: set the bound names, delete the unbound ones (CPython's
 * PyFrame_FastToLocals); an argument captured by a cell reads through its cell. */
static int fast_to_locals(VM *vm, CodeObj *co, Value *lp, DictObj *d) {
    int64_t ncell = co->cellvars->len, nfree = co->freevars->len;
    for (int32_t i = 0; i < co->nlocals; i++) {
        bool celled = false;
        for (int64_t j = 0; j < ncell && !celled; j++) celled = co->cell2arg && co->cell2arg[j] == i;
        if (celled) continue;
        StrObj *name = AS_STR(co->varnames->items[i]);
        Value v = lp[i];
        if (val_is_null(v)) dict_del_str(vm, d, name);
        else if (dict_set_str(vm, d, name, v) < 0) return -1;
    }
    for (int64_t j = 0; j < ncell + nfree; j++) {
        StrObj *name = AS_STR(j < ncell ? co->cellvars->items[j] : co->freevars->items[j - ncell]);
        Value c = lp[co->nlocals + j];
        Value v = val_is_type(vm, c, vm->t_cell) ? ((CellObj *)c.as.o)->v : val_null();
        if (val_is_null(v)) dict_del_str(vm, d, name);
        else if (dict_set_str(vm, d, name, v) < 0) return -1;
    }
    return 0;
}

static Value fo_locals(VM *vm, FrameObj *fo) {
    if (!val_is_null(fo->locals) && !(fo->code->flags & CO_OPTIMIZED)) return fo->locals;
    if (val_is_null(fo->locals)) {
        vm_push_root(vm, val_obj(fo));
        DictObj *d = dict_new(vm);
        vm_pop_root(vm);
        if (!d) return val_null();
        fo->locals = val_obj(d);
    }
    if (!(fo->code->flags & CO_OPTIMIZED)) return fo->locals;
    Value *lp = fo->live ? fo->live->localsplus : fo->saved;
    if (!lp) return fo->locals;
    vm_push_root(vm, val_obj(fo));
    int rc = fast_to_locals(vm, fo->code, lp, AS_DICT(fo->locals));
    vm_pop_root(vm);
    return rc < 0 ? val_null() : fo->locals;
}

Value frame_locals(VM *vm, Frame *f) {
    if (f->locals_dict) return val_obj(f->locals_dict);
    Value fo = frame_object(vm, f);
    return val_is_null(fo) ? fo : fo_locals(vm, FO(fo));
}

Value frame_getframe(VM *vm, int64_t depth) {
    Frame *f = vm->frame;
    while (depth > 0 && f) {
        f = f->prev;
        depth--;
    }
    if (!f || depth < 0) return vm_raise(vm, vm->e_ValueError, "call stack is not deep enough");
    return frame_object(vm, f);
}

/* ---- attributes -------------------------------------------------------------------------------- */

static int32_t fo_ip(FrameObj *fo) { return fo->live ? fo->live->ip : fo->lasti; }

static Value f_get_back(VM *vm, Value s, void *c) {
    FrameObj *fo = FO(s);
    if (!fo->live) return val_is_null(fo->back) ? val_none() : fo->back;
    if (fo->live->gen || !fo->live->prev) return val_none();
    return frame_object(vm, fo->live->prev);
}
static Value f_get_code(VM *vm, Value s, void *c) { return val_obj(FO(s)->code); }
static Value f_get_lineno(VM *vm, Value s, void *c) {
    int32_t ip = fo_ip(FO(s));
    return val_int(ip < 0 ? FO(s)->code->firstlineno : code_line(FO(s)->code, ip));
}
/* in bytes, CPython's unit: the n-th instruction is at 2n (code.co_positions() has one entry each) */
static Value f_get_lasti(VM *vm, Value s, void *c) {
    int32_t ip = fo_ip(FO(s));
    return val_int(ip < 0 ? -1 : 2 * (int64_t)ip);
}
static Value f_get_locals(VM *vm, Value s, void *c) { return fo_locals(vm, FO(s)); }
static Value f_get_globals(VM *vm, Value s, void *c) { return val_obj(FO(s)->globals); }
static Value f_get_builtins(VM *vm, Value s, void *c) { return val_obj(FO(s)->builtins); }
static Value f_get_trace(VM *vm, Value s, void *c) { return FO(s)->trace; }
static int f_set_trace(VM *vm, Value s, Value v, void *c) {
    FO(s)->trace = val_is_null(v) ? val_none() : v;
    return 0;
}
static Value f_get_false(VM *vm, Value s, void *c) { return val_bool(false); }
static Value f_get_true(VM *vm, Value s, void *c) { return val_bool(true); }
static int f_set_ignored(VM *vm, Value s, Value v, void *c) { return 0; }

static Value f_repr(ARGS) {
    FrameObj *fo = FO(argv[0]);
    int32_t ip = fo_ip(fo);
    StrObj *r = str_printf(vm, "<frame at %p, file '%s', line %d, code %s>", (void *)fo, fo->code->filename->data,
                           ip < 0 ? fo->code->firstlineno : code_line(fo->code, ip), fo->code->name->data);
    return r ? val_obj(r) : val_null();
}

static Value f_clear(ARGS) {
    FrameObj *fo = FO(argv[0]);
    if (fo->live) {
        if (!fo->live->gen) return vm_raise(vm, vm->e_RuntimeError, "cannot clear an executing frame");
        /* a suspended generator's frame: clearing it closes the generator */
        GenObj *g = (GenObj *)fo->live->gen;
        if (g->state == GEN_RUNNING) return vm_raise(vm, vm->e_RuntimeError, "cannot clear an executing frame");
        Value r = vm_call_method(vm, val_obj(g), "close", 0, NULL);
        if (val_is_null(r)) return r;
    }
    if (fo->saved) {
        for (int32_t i = 0; i < fo->nsaved; i++) fo->saved[i] = val_null();
    }
    if (!val_is_null(fo->locals) && (fo->code->flags & CO_OPTIMIZED)) dict_clear(vm, AS_DICT(fo->locals));
    return val_none();
}

/* ---- tracebacks ---------------------------------------------------------------------------------- */

#define TB(v) ((TracebackObj *)(v).as.o)

static Value tb_get_frame(VM *vm, Value s, void *c) { return val_is_null(TB(s)->frame) ? val_none() : TB(s)->frame; }
static Value tb_get_lineno(VM *vm, Value s, void *c) { return val_int(TB(s)->lineno); }
static Value tb_get_lasti(VM *vm, Value s, void *c) { return val_int(2 * (int64_t)TB(s)->lasti); }
static Value tb_get_next(VM *vm, Value s, void *c) { return TB(s)->next; }
static int tb_set_next(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "can't delete tb_next attribute");
        return -1;
    }
    if (!val_is_none(v) && !val_is_type(vm, v, vm->t_traceback)) {
        vm_raise(vm, vm->e_TypeError, "expected traceback object, got '%s'", vm_type_name(vm, v));
        return -1;
    }
    for (Value cur = v; val_is_type(vm, cur, vm->t_traceback); cur = TB(cur)->next)
        if (cur.as.o == s.as.o) {
            vm_raise(vm, vm->e_ValueError, "traceback loop detected");
            return -1;
        }
    TB(s)->next = v;
    return 0;
}

/* types.TracebackType(tb_next, tb_frame, tb_lasti, tb_lineno) */
static Value tb_new(ARGS) {
    static const char *const names[] = {"cls", "tb_next", "tb_frame", "tb_lasti", "tb_lineno"};
    Value a[5];
    if (native_parse_args(vm, "TracebackType", argc, argv, kw, 5, 5, names, 5, a) < 0) return val_null();
    if (!val_is_none(a[1]) && !val_is_type(vm, a[1], vm->t_traceback))
        return vm_raise(vm, vm->e_TypeError, "expected traceback object or None, got '%s'", vm_type_name(vm, a[1]));
    if (!val_is_type(vm, a[2], vm->t_frame))
        return vm_raise(vm, vm->e_TypeError, "TracebackType() argument 'tb_frame' must be frame, not %s",
                        vm_type_name(vm, a[2]));
    int64_t lasti, lineno;
    if (vm_index(vm, a[3], &lasti) < 0 || vm_index(vm, a[4], &lineno) < 0) return val_null();
    TracebackObj *tb = gc_alloc(vm, vm->t_traceback, sizeof(TracebackObj));
    if (!tb) return val_null();
    tb->next = a[1];
    tb->frame = a[2];
    tb->code = FO(a[2])->code;
    tb->lasti = (int)(lasti / 2);
    tb->lineno = (int)lineno;
    return val_obj(tb);
}

/* ---- generator frames ------------------------------------------------------------------------------ */

static Value gen_get_frame(VM *vm, Value s, void *c) {
    GenObj *g = (GenObj *)s.as.o;
    if (g->state == GEN_CLOSED) return val_none();
    return frame_object(vm, &g->frame);
}
static Value gen_get_code(VM *vm, Value s, void *c) { return val_obj(((GenObj *)s.as.o)->frame.code); }
static Value gen_get_yieldfrom(VM *vm, Value s, void *c) {
    Value y = gen_yield_from_target(vm, (GenObj *)s.as.o);
    return val_is_null(y) ? val_none() : y;
}
static Value gen_get_suspended(VM *vm, Value s, void *c) {
    return val_bool(((GenObj *)s.as.o)->state == GEN_SUSPENDED);
}

/* sys._getframe([depth]) */
static Value sys_getframe(ARGS) {
    if (native_check_args(vm, "_getframe", argc, kw, 0, 1) < 0) return val_null();
    int64_t depth = 0;
    if (argc == 1 && vm_index(vm, argv[0], &depth) < 0) return val_null();
    return frame_getframe(vm, depth);
}

void frame_init_types(VM *vm) {
    static const GetSetDef fgs[] = {
        {"f_back", f_get_back, NULL}, {"f_code", f_get_code, NULL}, {"f_lineno", f_get_lineno, NULL},
        {"f_lasti", f_get_lasti, NULL}, {"f_locals", f_get_locals, NULL}, {"f_globals", f_get_globals, NULL},
        {"f_builtins", f_get_builtins, NULL}, {"f_trace", f_get_trace, f_set_trace},
        {"f_trace_lines", f_get_true, f_set_ignored}, {"f_trace_opcodes", f_get_false, f_set_ignored}, {NULL}};
    static const MethodDef fm[] = {
        {"__repr__", f_repr, NATIVEF_METHOD | ARITY_NOARGS}, {"clear", f_clear, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef tgs[] = {
        {"tb_frame", tb_get_frame, NULL}, {"tb_lineno", tb_get_lineno, NULL}, {"tb_lasti", tb_get_lasti, NULL},
        {"tb_next", tb_get_next, tb_set_next}, {NULL}};
    static const MethodDef tm[] = {{"__new__", tb_new, NATIVEF_STATIC}, {NULL}};
    static const GetSetDef ggs[] = {
        {"gi_frame", gen_get_frame, NULL}, {"gi_code", gen_get_code, NULL}, {"gi_yieldfrom", gen_get_yieldfrom, NULL},
        {"gi_suspended", gen_get_suspended, NULL}, {NULL}};
    static const GetSetDef cgs[] = {{"cr_frame", gen_get_frame, NULL}, {NULL}};
    static const GetSetDef ags[] = {{"ag_frame", gen_get_frame, NULL}, {NULL}};
    static const MethodDef sysm[] = {{"_getframe", sys_getframe}, {NULL}};
    vm->t_frame->trace = frame_trace;
    vm->t_frame->finalize = frame_finalize;
    if (type_add_getsets(vm, vm->t_frame, fgs) < 0 || type_add_methods(vm, vm->t_frame, fm) < 0 ||
        type_add_getsets(vm, vm->t_traceback, tgs) < 0 || type_add_methods(vm, vm->t_traceback, tm) < 0 ||
        type_add_getsets(vm, vm->t_generator, ggs) < 0 || type_add_getsets(vm, vm->t_coroutine, cgs) < 0 ||
        type_add_getsets(vm, vm->t_async_generator, ags) < 0)
        EM_UNREACHABLE();
    Value sys = dict_get_c(vm, vm->modules, "sys");
    if (val_is_obj(sys) && module_add_functions(vm, sys, sysm) < 0) EM_UNREACHABLE();
}
