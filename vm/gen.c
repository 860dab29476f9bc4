/* vm/gen.c — generators: creation when a generator function is called, resumption
 * (send/throw/close, FOR_ITER, yield from), the handled-exception state a suspended generator
 * keeps, and the generator type's methods.  Coroutines and async generators are GenObjs too
 * (their types and protocol objects are vm/coro.c's); what differs here is only their
 * messages and how an async generator's end is reported (StopAsyncIteration). */
#include "vm/gen.h"

#include <string.h>

#include "vm/call.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"

static void gen_trace(VM *vm, Obj *o) {
    GenObj *g = (GenObj *)o;
    gc_mark(vm, g->name);
    gc_mark(vm, g->qualname);
    if (g->state == GEN_CLOSED) return;
    gc_trace_frame(vm, &g->frame);
}

static void gen_finalize(VM *vm, Obj *o) {
    GenObj *g = (GenObj *)o;
    VM_FREE_ARRAY(vm, Value, g->block, g->nblock);
    g->block = NULL;
}

const char *gen_kind_name(VM *vm, const GenObj *g) {
    TypeObj *t = g->hdr.type;
    return t == vm->t_coroutine ? "coroutine" : t == vm->t_async_generator ? "async generator" : "generator";
}

Value gen_new_from_call(VM *vm, FunctionObj *fn, int argc, Value *argv, TupleObj *kw) {
    CodeObj *co = fn->code;
    bool agen = co->flags & CO_ASYNC_GENERATOR;
    TypeObj *t = agen ? vm->t_async_generator : (co->flags & CO_COROUTINE) ? vm->t_coroutine : vm->t_generator;
    GenObj *g = gc_alloc(vm, t, agen ? sizeof(AsyncGenObj) : sizeof(GenObj));
    if (!g) return val_null();
    g->state = GEN_CLOSED;   /* not traced as a frame until set up */
    g->name = fn->name;
    g->qualname = fn->qualname;
    vm_push_root(vm, val_obj(g));
    int32_t n = co->nlocalsplus + co->stacksize + 1;
    g->block = VM_ALLOC_ARRAY(vm, Value, n);
    if (!g->block) {
        vm_pop_root(vm);
        return val_null();
    }
    g->nblock = n;
    for (int32_t i = 0; i < n; i++) g->block[i] = val_null();
    Frame *f = &g->frame;
    memset(f, 0, sizeof *f);
    f->code = co;
    f->func = (Obj *)fn;
    f->globals = fn->globals;
    f->builtins = vm->builtins;
    f->localsplus = g->block;
    f->stack = f->sp = g->block + co->nlocalsplus;
    f->gen = (Obj *)g;
    f->owns_stack = false;
    g->state = GEN_CREATED;
    int rc = call_bind_args(vm, fn, f->localsplus, argc, argv, kw);
    vm_pop_root(vm);
    if (rc < 0) {
        g->state = GEN_CLOSED;
        return val_null();
    }
    return val_obj(g);
}

Value gen_resume(VM *vm, GenObj *g, Value sent, Value exc, bool *done, Value *retval) {
    *done = false;
    *retval = val_none();
    if (g->state == GEN_RUNNING) {
        *done = true;
        return vm_raise(vm, vm->e_ValueError, "%s already executing", gen_kind_name(vm, g));
    }
    if (g->state == GEN_CLOSED) {
        *done = true;
        if (g->hdr.type == vm->t_coroutine)
            return vm_raise(vm, vm->e_RuntimeError, "cannot reuse already awaited coroutine");
        if (!val_is_null(exc)) return vm_raise_value(vm, exc);
        return val_null();   /* exhausted: StopIteration without a value */
    }
    if (g->state == GEN_CREATED && !val_is_null(sent) && !val_is_none(sent) && val_is_null(exc)) {
        *done = true;
        return vm_raise(vm, vm->e_TypeError, "can't send non-None value to a just-started %s", gen_kind_name(vm, g));
    }
    if (vm->depth >= vm->recursion_limit) {
        *done = true;
        return vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded");
    }
    Frame *f = &g->frame;
    if (g->state == GEN_SUSPENDED && val_is_null(exc)) *f->sp++ = sent;
    if (!val_is_null(exc)) {
        if (g->state == GEN_CREATED) {
            /* throwing into a fresh generator raises at its first line without running it */
            g->state = GEN_CLOSED;
            *done = true;
            return vm_raise_value(vm, exc);
        }
        vm_raise_value(vm, exc);
    }
    f->prev = vm->frame;
    g->state = GEN_RUNNING;
    vm->depth++;
    vm_push_root(vm, val_obj(g));
    Value r = vm_eval_frame_default(vm, f);
    vm_pop_root(vm);
    vm->depth--;
    if (f->yielded) {
        g->state = GEN_SUSPENDED;
        return r;
    }
    g->state = GEN_CLOSED;
    *done = true;
    if (val_is_null(r)) {
        /* PEP 479: StopIteration escaping a generator becomes RuntimeError (and an async
         * generator's StopAsyncIteration) */
        bool agen = g->hdr.type == vm->t_async_generator;
        if (vm_exc_matches(vm, vm->e_StopIteration) || (agen && vm_exc_matches(vm, vm->e_StopAsyncIteration))) {
            bool stop = vm_exc_matches(vm, vm->e_StopIteration);
            Value e = vm_fetch_exc(vm);
            vm_push_root(vm, e);
            vm_raise(vm, vm->e_RuntimeError, "%s raised %s", gen_kind_name(vm, g),
                     stop ? "StopIteration" : "StopAsyncIteration");
            ((ExceptionObj *)vm->exc.as.o)->cause = e;
            ((ExceptionObj *)vm->exc.as.o)->suppress_context = true;
            vm_pop_root(vm);
        }
        return r;
    }
    *retval = r;
    return val_null();
}

/* ---- delegation (yield from) ---------------------------------------------------------- */

/* The iterator a suspended generator is delegating to with `yield from`, or VAL_NULL.  The
 * compiler's loop is `SEND exit; YIELD_VALUE; JUMP back`: suspended at that YIELD_VALUE, the
 * receiver is the top of the frame's stack (CPython's _PyGen_yf). */
static Value gen_yf(GenObj *g) {
    if (g->state != GEN_SUSPENDED) return val_null();
    const Frame *f = &g->frame;
    const Instr *code = f->code->code;
    if (f->ip < 1 || code[f->ip].op != OP_YIELD_VALUE || code[f->ip - 1].op != OP_SEND) return val_null();
    return f->sp[-1];
}

/* The delegated iterator finished with `value` while g was suspended in its yield-from loop:
 * leave the loop as SEND does on StopIteration (pop the receiver, push the value, continue at
 * the loop's exit) and resume g there. */
static Value gen_resume_after_yf(VM *vm, GenObj *g, Value value, bool *done, Value *retval) {
    Frame *f = &g->frame;
    uint32_t exit = f->code->code[f->ip - 1].arg;
    f->sp--;                     /* the receiver; gen_resume pushes the value in its place */
    f->ip = (int32_t)exit - 1;   /* resumption continues at ip + 1 */
    return gen_resume(vm, g, value, val_null(), done, retval);
}

/* The end of a generator as its caller sees it: StopIteration(value), or for an async
 * generator StopAsyncIteration (CPython's gen_send_ex). */
static Value gen_finished(VM *vm, GenObj *g, Value ret) {
    if (g->hdr.type == vm->t_async_generator) {
        Value e = vm_new_exception(vm, vm->e_StopAsyncIteration, val_null());
        return val_is_null(e) ? e : vm_raise_value(vm, e);
    }
    return vm_raise_stop_iteration(vm, ret);
}

static Value gen_send_common(VM *vm, GenObj *g, Value sent, Value exc);

/* throw() and close() of a delegating generator go to the delegate first (PEP 380). */
static Value gen_throw_common(VM *vm, GenObj *g, Value exc, bool closing) {
    Value yf = gen_yf(g);
    if (val_is_null(yf)) return gen_send_common(vm, g, val_none(), exc);
    vm_push_root(vm, val_obj(g));
    vm_push_root(vm, exc);
    Value r;
    bool is_exit = closing || (val_is_obj(exc) && (vm_isinstance_type(vm, exc, vm->e_GeneratorExit) ||
                                                   (vm_isinstance_type(vm, exc, vm->t_type) &&
                                                    type_is_subtype(AS_TYPE(exc), vm->e_GeneratorExit))));
    g->state = GEN_RUNNING;
    if (is_exit) {
        /* close the delegate, then raise GeneratorExit in g itself */
        Value cl = vm_getattr_opt(vm, yf, vm_intern_str(vm, "close"));
        r = val_none();
        if (!val_is_null(cl)) r = vm_call0(vm, cl);
        g->state = GEN_SUSPENDED;
        vm_pop_roots(vm, 2);
        if (val_is_null(r)) return gen_send_common(vm, g, val_none(), vm_fetch_exc(vm));
        return gen_send_common(vm, g, val_none(), exc);
    }
    Value th = val_null();
    if (val_is_type(vm, yf, vm->t_generator) || val_is_type(vm, yf, vm->t_coroutine)) {
        r = gen_throw_common(vm, (GenObj *)yf.as.o, exc, false);
    } else {
        th = vm_getattr_opt(vm, yf, vm_intern_str(vm, "throw"));
        if (val_is_null(th)) {
            g->state = GEN_SUSPENDED;
            vm_pop_roots(vm, 2);
            if (!val_is_null(vm->exc)) return val_null();
            return gen_send_common(vm, g, val_none(), exc);
        }
        r = vm_call1(vm, th, exc);
    }
    g->state = GEN_SUSPENDED;
    vm_pop_roots(vm, 2);
    if (!val_is_null(r)) return r;   /* the delegate yielded: so does g */
    if (vm_exc_matches(vm, vm->e_StopIteration)) {
        Value e = vm_fetch_exc(vm);
        TupleObj *a = ((ExceptionObj *)e.as.o)->args;
        bool done;
        Value ret;
        r = gen_resume_after_yf(vm, g, a->len ? a->items[0] : val_none(), &done, &ret);
        if (!val_is_null(r) || !val_is_null(vm->exc)) return r;
        return gen_finished(vm, g, ret);
    }
    /* the delegate raised: the exception continues in g at the yield from */
    return gen_send_common(vm, g, val_none(), vm_fetch_exc(vm));
}

/* ---- methods ---------------------------------------------------------------------------- */

static Value gen_send_common(VM *vm, GenObj *g, Value sent, Value exc) {
    bool done;
    Value ret;
    Value r = gen_resume(vm, g, sent, exc, &done, &ret);
    if (!val_is_null(r) || !val_is_null(vm->exc)) return r;
    return gen_finished(vm, g, ret);
}

Value gen_send_ex(VM *vm, GenObj *g, Value sent) { return gen_send_common(vm, g, sent, val_null()); }
Value gen_throw_ex(VM *vm, GenObj *g, Value exc) { return gen_throw_common(vm, g, exc, false); }
Value gen_yield_from_target(VM *vm, GenObj *g) { return gen_yf(g); }

static Value gen_send(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "send", argc, kw, 2, 2) < 0) return val_null();
    return gen_send_common(vm, (GenObj *)argv[0].as.o, argv[1], val_null());
}

static Value gen_next_m(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return gen_send_common(vm, (GenObj *)argv[0].as.o, val_none(), val_null());
}

static Value gen_iter_m(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return argv[0]; }

/* throw(type[, value[, tb]]): value may already be an instance of type (CPython's rules). */
Value gen_throw_args(VM *vm, int argc, Value *argv) {
    Value exc = argv[0];
    Value val = argc >= 2 ? argv[1] : val_none();
    if (val_is_obj(exc) && vm_isinstance_type(vm, exc, vm->t_type)) {
        if (!val_is_none(val) && vm_isinstance_type(vm, val, AS_TYPE(exc))) {
            exc = val;
        } else if (!val_is_none(val)) {
            exc = val_is_type(vm, val, vm->t_tuple) ? vm_call_ex(vm, exc, val, val_null()) : vm_call1(vm, exc, val);
            if (val_is_null(exc)) return exc;
        }
    } else if (!val_is_none(val)) {
        return vm_raise(vm, vm->e_TypeError, "instance exception may not have a separate value");
    }
    if (argc >= 3 && !val_is_none(argv[2]) && val_is_obj(exc) && (exc.as.o->type->flags & TYPEF_EXCEPTION))
        ((ExceptionObj *)exc.as.o)->traceback = argv[2];
    return exc;
}

static Value gen_throw(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "throw", argc, kw, 2, 4) < 0) return val_null();
    Value exc = gen_throw_args(vm, argc - 1, argv + 1);
    if (val_is_null(exc)) return exc;
    return gen_throw_common(vm, (GenObj *)argv[0].as.o, exc, false);
}

Value gen_close_ex(VM *vm, GenObj *g) {
    if (g->state == GEN_CREATED) {
        g->state = GEN_CLOSED;
        return val_none();
    }
    if (g->state == GEN_CLOSED) return val_none();
    Value r = gen_throw_common(vm, g, val_obj(vm->e_GeneratorExit), true);
    if (!val_is_null(r)) return vm_raise(vm, vm->e_RuntimeError, "%s ignored GeneratorExit", gen_kind_name(vm, g));
    if (vm_exc_matches(vm, vm->e_GeneratorExit) || vm_exc_matches(vm, vm->e_StopIteration)) {
        vm_clear_exc(vm);
        return val_none();
    }
    if (!val_is_null(vm->exc)) return val_null();
    return val_none();
}

static Value gen_close(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return gen_close_ex(vm, (GenObj *)argv[0].as.o);
}

static Value gen_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    GenObj *g = (GenObj *)argv[0].as.o;
    StrObj *s = str_printf(vm, "<generator object %s at %p>", g->qualname->data, (void *)g);
    return s ? val_obj(s) : val_null();
}

static Value gen_get_name(VM *vm, Value s, void *c) { return val_obj(((GenObj *)s.as.o)->name); }
static Value gen_get_qualname(VM *vm, Value s, void *c) { return val_obj(((GenObj *)s.as.o)->qualname); }
static Value gen_get_running(VM *vm, Value s, void *c) {
    return val_bool(((GenObj *)s.as.o)->state == GEN_RUNNING);
}

void gen_init_type(VM *vm) {
    vm->t_generator->trace = gen_trace;
    vm->t_generator->finalize = gen_finalize;
    static const MethodDef m[] = {
        {"send", gen_send, NATIVEF_METHOD | ARITY_O}, {"throw", gen_throw, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"close", gen_close, NATIVEF_METHOD | ARITY_NOARGS}, {"__next__", gen_next_m, NATIVEF_METHOD},
        {"__iter__", gen_iter_m, NATIVEF_METHOD}, {"__repr__", gen_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef gs[] = {
        {"__name__", gen_get_name, NULL}, {"__qualname__", gen_get_qualname, NULL},
        {"gi_running", gen_get_running, NULL}, {NULL}};
    if (type_add_methods(vm, vm->t_generator, m) < 0 || type_add_getsets(vm, vm->t_generator, gs) < 0)
        EM_UNREACHABLE();
}
