/* vm/coro.c — coroutines and asynchronous generators (CPython 3.11's Objects/genobject.c):
 * the coroutine and async_generator types, coroutine.__await__()'s coroutine_wrapper, the
 * asend/athrow awaitables of an async generator with CPython's state machine and messages,
 * the awaitable protocol of the await opcodes, and sys.get/set_asyncgen_hooks.
 * See vm/coro.h for the design. */
#include "vm/coro.h"

#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

/* The awaitables' progress (CPython's AwaitableState). */
enum { AW_INIT, AW_ITER, AW_CLOSED };

typedef struct CoroWrapperObj {
    Obj hdr;
    GenObj *coro;
} CoroWrapperObj;

typedef struct ASendObj {
    Obj hdr;
    AsyncGenObj *gen;
    Value sendval;
    int state;
} ASendObj;

typedef struct AThrowObj {
    Obj hdr;
    AsyncGenObj *gen;
    Value args;   /* athrow()'s argument tuple; VAL_NULL for aclose() */
    int state;
} AThrowObj;

typedef struct WrappedValueObj {
    Obj hdr;
    Value val;
} WrappedValueObj;

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value raise_bare(VM *vm, TypeObj *t) {
    Value e = vm_new_exception(vm, t, val_null());
    return val_is_null(e) ? e : vm_raise_value(vm, e);
}

static bool is_wrapped(VM *vm, Value v) { return val_is_type(vm, v, vm->t_async_generator_wrapped_value); }

/* ---- tracing ------------------------------------------------------------------------------- */

static void agen_trace(VM *vm, Obj *o) {
    vm->t_generator->trace(vm, o);
    gc_mark_value(vm, ((AsyncGenObj *)o)->finalizer);
}

static void wrapper_trace(VM *vm, Obj *o) { gc_mark(vm, ((CoroWrapperObj *)o)->coro); }

static void asend_trace(VM *vm, Obj *o) {
    ASendObj *a = (ASendObj *)o;
    gc_mark(vm, a->gen);
    gc_mark_value(vm, a->sendval);
}

static void athrow_trace(VM *vm, Obj *o) {
    AThrowObj *a = (AThrowObj *)o;
    gc_mark(vm, a->gen);
    gc_mark_value(vm, a->args);
}

static void wrapped_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((WrappedValueObj *)o)->val); }

/* ---- the await protocol ---------------------------------------------------------------------- */

/* The special method name on v's type, bound to v; VAL_NULL (no exception) when absent. */
static Value special(VM *vm, Value v, const char *name) {
    TypeObj *t = vm_type_of(vm, v);
    Value m = type_lookup(vm, t, vm_intern_str(vm, name));
    if (val_is_null(m)) return m;
    return vm_bind_descriptor(vm, m, v, t);
}

static bool is_coroutine_like(VM *vm, Value v) {
    if (val_is_type(vm, v, vm->t_coroutine)) return true;
    /* a generator of a function types.coroutine marked */
    return val_is_type(vm, v, vm->t_generator) && (((GenObj *)v.as.o)->frame.code->flags & CO_ITERABLE_COROUTINE);
}

/* _PyCoro_GetAwaitableIter */
static Value awaitable_iter(VM *vm, Value v) {
    if (is_coroutine_like(vm, v)) return v;
    Value aw = special(vm, v, "__await__");
    if (val_is_null(aw)) {
        if (!val_is_null(vm->exc)) return aw;
        return vm_raise(vm, vm->e_TypeError, "object %s can't be used in 'await' expression", vm_type_name(vm, v));
    }
    vm_push_root(vm, aw);
    Value res = vm_call0(vm, aw);
    vm_pop_root(vm);
    if (val_is_null(res)) return res;
    if (is_coroutine_like(vm, res)) return vm_raise(vm, vm->e_TypeError, "__await__() returned a coroutine");
    TypeObj *rt = vm_type_of(vm, res);
    if (!coro_is_genobj(vm, res) && rt->layout != OBJ_LAYOUT_ITER && val_is_null(type_special(vm, rt, SP_NEXT)))
        return vm_raise(vm, vm->e_TypeError, "__await__() returned non-iterator of type '%s'", rt->name->data);
    return res;
}

Value coro_get_awaitable(VM *vm, Value v, int kind) {
    bool has_await = is_coroutine_like(vm, v) || !val_is_null(type_lookup(vm, vm_type_of(vm, v), vm_intern_str(vm, "__await__")));
    if (!has_await && kind) {
        return vm_raise(vm, vm->e_TypeError,
                        "'async with' received an object from %s that does not implement __await__: %s",
                        kind == 1 ? "__aenter__" : "__aexit__", vm_type_name(vm, v));
    }
    Value it = awaitable_iter(vm, v);
    if (val_is_null(it)) return it;
    if (val_is_type(vm, it, vm->t_coroutine) && !val_is_null(gen_yield_from_target(vm, (GenObj *)it.as.o)))
        return vm_raise(vm, vm->e_RuntimeError, "coroutine is being awaited already");
    return it;
}

Value coro_get_aiter(VM *vm, Value v) {
    Value m = special(vm, v, "__aiter__");
    if (val_is_null(m)) {
        if (!val_is_null(vm->exc)) return m;
        return vm_raise(vm, vm->e_TypeError, "'async for' requires an object with __aiter__ method, got %s",
                        vm_type_name(vm, v));
    }
    vm_push_root(vm, m);
    Value it = vm_call0(vm, m);
    vm_pop_root(vm);
    if (val_is_null(it)) return it;
    if (val_is_null(type_lookup(vm, vm_type_of(vm, it), vm_intern_str(vm, "__anext__"))))
        return vm_raise(vm, vm->e_TypeError,
                        "'async for' received an object from __aiter__ that does not implement __anext__: %s",
                        vm_type_name(vm, it));
    return it;
}

static Value asend_new(VM *vm, AsyncGenObj *g, Value sendval);
static int agen_init_hooks(VM *vm, AsyncGenObj *g);

Value coro_get_anext(VM *vm, Value aiter) {
    if (val_is_type(vm, aiter, vm->t_async_generator)) {
        AsyncGenObj *g = (AsyncGenObj *)aiter.as.o;
        if (agen_init_hooks(vm, g) < 0) return val_null();
        return asend_new(vm, g, val_null());
    }
    Value m = special(vm, aiter, "__anext__");
    if (val_is_null(m)) {
        if (!val_is_null(vm->exc)) return m;
        return vm_raise(vm, vm->e_TypeError, "'async for' requires an iterator with __anext__ method, got %s",
                        vm_type_name(vm, aiter));
    }
    vm_push_root(vm, m);
    Value next = vm_call0(vm, m);
    vm_pop_root(vm);
    if (val_is_null(next)) return next;
    vm_push_root(vm, next);
    Value aw = awaitable_iter(vm, next);
    if (val_is_null(aw)) {
        /* _PyErr_FormatFromCause: the first error becomes the new one's __cause__ */
        Value cause = vm_fetch_exc(vm);
        vm_push_root(vm, cause);
        vm_raise(vm, vm->e_TypeError, "'async for' received an invalid object from __anext__: %s",
                 vm_type_name(vm, next));
        if (val_is_obj(vm->exc)) {
            ExceptionObj *e = (ExceptionObj *)vm->exc.as.o;
            e->cause = cause;
            e->context = cause;
            e->suppress_context = true;
        }
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return aw;
}

Value coro_before_async_with(VM *vm, Value mgr, Value *exit) {
    Value enter = special(vm, mgr, "__aenter__");
    if (val_is_null(enter)) {
        if (!val_is_null(vm->exc)) return enter;
        return vm_raise(vm, vm->e_TypeError, "'%s' object does not support the asynchronous context manager protocol",
                        vm_type_name(vm, mgr));
    }
    vm_push_root(vm, enter);
    Value ex = special(vm, mgr, "__aexit__");
    if (val_is_null(ex)) {
        vm_pop_root(vm);
        if (!val_is_null(vm->exc)) return ex;
        return vm_raise(vm, vm->e_TypeError,
                        "'%s' object does not support the asynchronous context manager protocol "
                        "(missed __aexit__ method)",
                        vm_type_name(vm, mgr));
    }
    vm_push_root(vm, ex);
    Value r = vm_call0(vm, enter);
    vm_pop_roots(vm, 2);
    *exit = ex;
    return r;
}

Value coro_wrap_value(VM *vm, Value v) {
    vm_push_root(vm, v);
    WrappedValueObj *w = gc_alloc(vm, vm->t_async_generator_wrapped_value, sizeof *w);
    vm_pop_root(vm);
    if (!w) return val_null();
    w->val = v;
    return val_obj(w);
}

/* ---- coroutine ---------------------------------------------------------------------------------- */

#define GEN(v) ((GenObj *)(v).as.o)

static Value coro_send(ARGS) { return gen_send_ex(vm, GEN(argv[0]), argv[1]); }

static Value coro_throw(ARGS) {
    Value exc = gen_throw_args(vm, argc - 1, argv + 1);
    return val_is_null(exc) ? exc : gen_throw_ex(vm, GEN(argv[0]), exc);
}

static Value coro_close(ARGS) { return gen_close_ex(vm, GEN(argv[0])); }

static Value coro_await(ARGS) {
    CoroWrapperObj *w = gc_alloc(vm, vm->t_coroutine_wrapper, sizeof *w);
    if (!w) return val_null();
    w->coro = GEN(argv[0]);
    return val_obj(w);
}

static Value gen_repr_kind(VM *vm, Value v, const char *kind) {
    StrObj *s = str_printf(vm, "<%s object %s at %p>", kind, GEN(v)->qualname->data, (void *)v.as.o);
    return s ? val_obj(s) : val_null();
}

static Value coro_repr(ARGS) { return gen_repr_kind(vm, argv[0], "coroutine"); }
static Value agen_repr(ARGS) { return gen_repr_kind(vm, argv[0], "async_generator"); }

static Value get_name(VM *vm, Value s, void *c) { return val_obj(GEN(s)->name); }
static Value get_qualname(VM *vm, Value s, void *c) { return val_obj(GEN(s)->qualname); }
static Value get_running(VM *vm, Value s, void *c) { return val_bool(GEN(s)->state == GEN_RUNNING); }
static Value get_suspended(VM *vm, Value s, void *c) { return val_bool(GEN(s)->state == GEN_SUSPENDED); }
static Value get_code(VM *vm, Value s, void *c) { return val_obj(GEN(s)->frame.code); }
static Value get_origin(VM *vm, Value s, void *c) { return val_none(); }

static Value get_await(VM *vm, Value s, void *c) {
    Value yf = gen_yield_from_target(vm, GEN(s));
    return val_is_null(yf) ? val_none() : yf;
}

static int set_name_common(VM *vm, Value s, Value v, bool qual) {
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_str)) {
        vm_raise(vm, vm->e_TypeError, qual ? "__qualname__ must be set to a string object"
                                           : "__name__ must be set to a string object");
        return -1;
    }
    if (qual) GEN(s)->qualname = AS_STR(v);
    else GEN(s)->name = AS_STR(v);
    return 0;
}
static int set_name(VM *vm, Value s, Value v, void *c) { return set_name_common(vm, s, v, false); }
static int set_qualname(VM *vm, Value s, Value v, void *c) { return set_name_common(vm, s, v, true); }

/* coroutine_wrapper: the iterator of coroutine.__await__() */
#define WRAPPED(v) (((CoroWrapperObj *)(v).as.o)->coro)
static Value wrapper_next(ARGS) { return gen_send_ex(vm, WRAPPED(argv[0]), val_none()); }
static Value wrapper_send(ARGS) { return gen_send_ex(vm, WRAPPED(argv[0]), argv[1]); }
static Value wrapper_throw(ARGS) {
    Value exc = gen_throw_args(vm, argc - 1, argv + 1);
    return val_is_null(exc) ? exc : gen_throw_ex(vm, WRAPPED(argv[0]), exc);
}
static Value wrapper_close(ARGS) { return gen_close_ex(vm, WRAPPED(argv[0])); }
static Value self_m(ARGS) { return argv[0]; }

/* ---- async generator ------------------------------------------------------------------------------ */

/* sys.set_asyncgen_hooks(firstiter, finalizer): kept in the VM's sys module dict under
 * private keys, so they live as long as sys does. */
static Value hook(VM *vm, const char *which) {
    Value sys = dict_get_c(vm, vm->modules, "sys");
    if (!val_is_type(vm, sys, vm->t_module)) return val_none();
    Value h = dict_get_c(vm, ((ModuleObj *)sys.as.o)->dict, which);
    return val_is_null(h) ? val_none() : h;
}

/* async_gen_init_hooks: on the first __anext__/asend/athrow/aclose, remember the finalizer
 * hook and call firstiter(agen). */
static int agen_init_hooks(VM *vm, AsyncGenObj *g) {
    if (g->hooks_inited) return 0;
    g->hooks_inited = true;
    g->finalizer = hook(vm, "__ember_asyncgen_finalizer");
    Value first = hook(vm, "__ember_asyncgen_firstiter");
    if (val_is_none(first)) return 0;
    vm_push_root(vm, first);
    Value r = vm_call1(vm, first, val_obj(g));
    vm_pop_root(vm);
    return val_is_null(r) ? -1 : 0;
}

/* async_gen_unwrap_value: the async generator's result, seen by the awaitable iterating it. */
static Value agen_unwrap(VM *vm, AsyncGenObj *g, Value result) {
    if (val_is_null(result)) {
        if (val_is_null(vm->exc)) raise_bare(vm, vm->e_StopAsyncIteration);
        if (vm_exc_matches(vm, vm->e_StopAsyncIteration) || vm_exc_matches(vm, vm->e_GeneratorExit)) g->closed = true;
        g->running_async = false;
        return val_null();
    }
    if (is_wrapped(vm, result)) { /* the generator yielded: this __anext__() is done */
        g->running_async = false;
        return vm_raise_stop_iteration(vm, ((WrappedValueObj *)result.as.o)->val);
    }
    return result; /* passing up from an await inside the generator */
}

#define AGEN(v) ((AsyncGenObj *)(v).as.o)

static Value asend_new(VM *vm, AsyncGenObj *g, Value sendval) {
    vm_push_root(vm, val_obj(g));
    vm_push_root(vm, sendval);
    ASendObj *a = gc_alloc(vm, vm->t_async_generator_asend, sizeof *a);
    vm_pop_roots(vm, 2);
    if (!a) return val_null();
    a->gen = g;
    a->sendval = sendval;
    a->state = AW_INIT;
    return val_obj(a);
}

static Value athrow_new(VM *vm, AsyncGenObj *g, Value args) {
    vm_push_root(vm, val_obj(g));
    vm_push_root(vm, args);
    AThrowObj *a = gc_alloc(vm, vm->t_async_generator_athrow, sizeof *a);
    vm_pop_roots(vm, 2);
    if (!a) return val_null();
    a->gen = g;
    a->args = args;
    a->state = AW_INIT;
    return val_obj(a);
}

static Value agen_anext(ARGS) {
    if (agen_init_hooks(vm, AGEN(argv[0])) < 0) return val_null();
    return asend_new(vm, AGEN(argv[0]), val_null());
}

static Value agen_asend(ARGS) {
    if (agen_init_hooks(vm, AGEN(argv[0])) < 0) return val_null();
    return asend_new(vm, AGEN(argv[0]), argv[1]);
}

static Value agen_athrow(ARGS) {
    if (agen_init_hooks(vm, AGEN(argv[0])) < 0) return val_null();
    TupleObj *t = tuple_new(vm, argc - 1);
    if (!t) return val_null();
    for (int i = 1; i < argc; i++) t->items[i - 1] = argv[i];
    return athrow_new(vm, AGEN(argv[0]), val_obj(t));
}

static Value agen_aclose(ARGS) {
    if (agen_init_hooks(vm, AGEN(argv[0])) < 0) return val_null();
    return athrow_new(vm, AGEN(argv[0]), val_null());
}

static Value agen_get_running(VM *vm, Value s, void *c) { return val_bool(AGEN(s)->running_async); }

/* async_generator_asend */
#define ASEND(v) ((ASendObj *)(v).as.o)

static Value asend_send_common(VM *vm, ASendObj *a, Value arg) {
    if (a->state == AW_CLOSED)
        return vm_raise(vm, vm->e_RuntimeError, "cannot reuse already awaited __anext__()/asend()");
    if (a->state == AW_INIT) {
        if (a->gen->running_async)
            return vm_raise(vm, vm->e_RuntimeError, "anext(): asynchronous generator is already running");
        if (val_is_null(arg) || val_is_none(arg)) arg = val_is_null(a->sendval) ? val_none() : a->sendval;
        a->state = AW_ITER;
    }
    a->gen->running_async = true;
    vm_push_root(vm, val_obj(a));
    Value r = agen_unwrap(vm, a->gen, gen_send_ex(vm, &a->gen->gen, arg));
    vm_pop_root(vm);
    if (val_is_null(r)) a->state = AW_CLOSED;
    return r;
}

static Value asend_send(ARGS) { return asend_send_common(vm, ASEND(argv[0]), argv[1]); }
static Value asend_next(ARGS) { return asend_send_common(vm, ASEND(argv[0]), val_null()); }

static Value asend_throw(ARGS) {
    ASendObj *a = ASEND(argv[0]);
    if (a->state == AW_CLOSED)
        return vm_raise(vm, vm->e_RuntimeError, "cannot reuse already awaited __anext__()/asend()");
    Value exc = gen_throw_args(vm, argc - 1, argv + 1);
    if (val_is_null(exc)) return exc;
    Value r = agen_unwrap(vm, a->gen, gen_throw_ex(vm, &a->gen->gen, exc));
    if (val_is_null(r)) a->state = AW_CLOSED;
    return r;
}

static Value asend_close(ARGS) {
    ASEND(argv[0])->state = AW_CLOSED;
    return val_none();
}

/* async_generator_athrow: athrow() and aclose() */
#define ATHROW(v) ((AThrowObj *)(v).as.o)

/* The end of an aclose()/athrow() awaitable; ignored: the generator yielded while closing. */
static Value athrow_finish(VM *vm, AThrowObj *a, bool ignored) {
    a->gen->running_async = false;
    a->state = AW_CLOSED;
    if (ignored) return vm_raise(vm, vm->e_RuntimeError, "async generator ignored GeneratorExit");
    if (val_is_null(a->args) &&
        (vm_exc_matches(vm, vm->e_StopAsyncIteration) || vm_exc_matches(vm, vm->e_GeneratorExit))) {
        /* aclose() is done: neither StopAsyncIteration nor GeneratorExit propagates */
        vm_clear_exc(vm);
        return raise_bare(vm, vm->e_StopIteration);
    }
    return val_null();
}

static Value athrow_send_common(VM *vm, AThrowObj *a, Value arg) {
    GenObj *g = &a->gen->gen;
    if (a->state == AW_CLOSED)
        return vm_raise(vm, vm->e_RuntimeError, "cannot reuse already awaited aclose()/athrow()");
    if (g->state == GEN_CLOSED) {
        a->state = AW_CLOSED;
        return raise_bare(vm, vm->e_StopIteration);
    }
    Value r;
    vm_push_root(vm, val_obj(a));
    if (a->state == AW_INIT) {
        if (a->gen->running_async) {
            a->state = AW_CLOSED;
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_RuntimeError, val_is_null(a->args)
                                                        ? "aclose(): asynchronous generator is already running"
                                                        : "athrow(): asynchronous generator is already running");
        }
        if (a->gen->closed) {
            a->state = AW_CLOSED;
            vm_pop_root(vm);
            return raise_bare(vm, vm->e_StopAsyncIteration);
        }
        if (!val_is_null(arg) && !val_is_none(arg)) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_RuntimeError, "can't send non-None value to a just-started coroutine");
        }
        a->state = AW_ITER;
        a->gen->running_async = true;
        if (val_is_null(a->args)) { /* aclose(): throw GeneratorExit in */
            a->gen->closed = true;
            r = gen_throw_ex(vm, g, val_obj(vm->e_GeneratorExit));
            vm_pop_root(vm);
            if (!val_is_null(r) && is_wrapped(vm, r)) return athrow_finish(vm, a, true);
            return !val_is_null(r) ? r : athrow_finish(vm, a, false);
        }
        TupleObj *t = AS_TUPLE(a->args);
        Value exc = gen_throw_args(vm, (int)t->len, t->items);
        r = val_is_null(exc) ? exc : agen_unwrap(vm, a->gen, gen_throw_ex(vm, g, exc));
        vm_pop_root(vm);
        return !val_is_null(r) ? r : athrow_finish(vm, a, false);
    }
    r = gen_send_ex(vm, g, val_is_null(arg) ? val_none() : arg);
    vm_pop_root(vm);
    if (!val_is_null(a->args)) return agen_unwrap(vm, a->gen, r);
    if (!val_is_null(r)) return is_wrapped(vm, r) ? athrow_finish(vm, a, true) : r;
    return athrow_finish(vm, a, false);
}

static Value athrow_send(ARGS) { return athrow_send_common(vm, ATHROW(argv[0]), argv[1]); }
static Value athrow_next(ARGS) { return athrow_send_common(vm, ATHROW(argv[0]), val_null()); }

static Value athrow_throw(ARGS) {
    AThrowObj *a = ATHROW(argv[0]);
    if (a->state == AW_CLOSED)
        return vm_raise(vm, vm->e_RuntimeError, "cannot reuse already awaited aclose()/athrow()");
    Value exc = gen_throw_args(vm, argc - 1, argv + 1);
    if (val_is_null(exc)) return exc;
    Value r = gen_throw_ex(vm, &a->gen->gen, exc);
    if (!val_is_null(a->args)) return agen_unwrap(vm, a->gen, r);
    if (!val_is_null(r) && is_wrapped(vm, r)) return athrow_finish(vm, a, true);
    if (val_is_null(r) &&
        (vm_exc_matches(vm, vm->e_StopAsyncIteration) || vm_exc_matches(vm, vm->e_GeneratorExit))) {
        vm_clear_exc(vm);
        return raise_bare(vm, vm->e_StopIteration);
    }
    return r;
}

static Value athrow_close(ARGS) {
    ATHROW(argv[0])->state = AW_CLOSED;
    return val_none();
}

/* ---- sys hooks ----------------------------------------------------------------------------------- */

static int check_hook(VM *vm, Value v, const char *what) {
    if (val_is_null(v) || val_is_none(v)) return 0;
    Value call = type_special(vm, vm_type_of(vm, v), SP_CALL);
    if (val_is_null(call) && !val_is_type(vm, v, vm->t_function) && !val_is_type(vm, v, vm->t_builtin_function) &&
        !val_is_type(vm, v, vm->t_method) && !vm_isinstance_type(vm, v, vm->t_type)) {
        vm_raise(vm, vm->e_TypeError, "callable %s expected, got %s", what, vm_type_name(vm, v));
        return -1;
    }
    return 0;
}

static Value sys_set_asyncgen_hooks(ARGS) {
    static const char *const names[] = {"firstiter", "finalizer"};
    Value a[2];
    if (native_parse_args(vm, "set_asyncgen_hooks", argc, argv, kw, 2, 0, names, 2, a) < 0) return val_null();
    if (check_hook(vm, a[1], "finalizer") < 0 || check_hook(vm, a[0], "firstiter") < 0) return val_null();
    Value sys = dict_get_c(vm, vm->modules, "sys");
    if (!val_is_type(vm, sys, vm->t_module)) return vm_raise(vm, vm->e_RuntimeError, "lost sys module");
    DictObj *d = ((ModuleObj *)sys.as.o)->dict;
    if ((!val_is_null(a[1]) && dict_set_c(vm, d, "__ember_asyncgen_finalizer", a[1]) < 0) ||
        (!val_is_null(a[0]) && dict_set_c(vm, d, "__ember_asyncgen_firstiter", a[0]) < 0))
        return val_null();
    return val_none();
}

static Value sys_get_asyncgen_hooks(ARGS) {
    /* CPython returns the structseq asyncgen_hooks(firstiter, finalizer); a pair of the same
     * order serves its users (asyncio unpacks it) */
    TupleObj *t = tuple_pack(vm, 2, hook(vm, "__ember_asyncgen_firstiter"), hook(vm, "__ember_asyncgen_finalizer"));
    return t ? val_obj(t) : val_null();
}

void coro_init_sys(VM *vm, Value sys) {
    static const MethodDef defs[] = {
        {"set_asyncgen_hooks", sys_set_asyncgen_hooks, 0},
        {"get_asyncgen_hooks", sys_get_asyncgen_hooks, ARITY_NOARGS},
        {NULL}};
    if (module_add_functions(vm, sys, defs) < 0) EM_UNREACHABLE();
}

/* ---- types ------------------------------------------------------------------------------------- */

static TypeObj *make_type(VM *vm, const char *name, ObjLayout layout, size_t size, TraceFn trace, FinalizeFn fin) {
    TypeObj *t = type_new_builtin(vm, name, vm->t_object, layout, size, 0, trace, fin, TYPEF_ABSTRACT_NEW);
    EM_ASSERT(t != NULL, "out of memory creating the coroutine types");
    t->module = vm_intern(vm, "builtins");
    return t;
}

void coro_init_types(VM *vm) {
    TraceFn gtrace = vm->t_generator->trace;
    FinalizeFn gfin = vm->t_generator->finalize;
    vm->t_coroutine = make_type(vm, "coroutine", OBJ_LAYOUT_GENERATOR, 0, gtrace, gfin);
    vm->t_async_generator = make_type(vm, "async_generator", OBJ_LAYOUT_GENERATOR, 0, agen_trace, gfin);
    vm->t_coroutine_wrapper = make_type(vm, "coroutine_wrapper", OBJ_LAYOUT_EXTENSION, sizeof(CoroWrapperObj),
                                        wrapper_trace, NULL);
    vm->t_async_generator_asend = make_type(vm, "async_generator_asend", OBJ_LAYOUT_EXTENSION, sizeof(ASendObj),
                                            asend_trace, NULL);
    vm->t_async_generator_athrow = make_type(vm, "async_generator_athrow", OBJ_LAYOUT_EXTENSION,
                                             sizeof(AThrowObj), athrow_trace, NULL);
    vm->t_async_generator_wrapped_value = make_type(vm, "async_generator_wrapped_value", OBJ_LAYOUT_EXTENSION,
                                                    sizeof(WrappedValueObj), wrapped_trace, NULL);
    static const MethodDef coro_m[] = {
        {"send", coro_send, NATIVEF_METHOD | ARITY_O}, {"throw", coro_throw, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"close", coro_close, NATIVEF_METHOD | ARITY_NOARGS}, {"__await__", coro_await, NATIVEF_METHOD | ARITY_NOARGS},
        {"__repr__", coro_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef coro_gs[] = {
        {"__name__", get_name, set_name}, {"__qualname__", get_qualname, set_qualname},
        {"cr_running", get_running, NULL}, {"cr_suspended", get_suspended, NULL}, {"cr_await", get_await, NULL},
        {"cr_code", get_code, NULL}, {"cr_origin", get_origin, NULL}, {NULL}};
    static const MethodDef agen_m[] = {
        {"__aiter__", self_m, NATIVEF_METHOD | ARITY_NOARGS}, {"__anext__", agen_anext, NATIVEF_METHOD | ARITY_NOARGS},
        {"asend", agen_asend, NATIVEF_METHOD | ARITY_O}, {"athrow", agen_athrow, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"aclose", agen_aclose, NATIVEF_METHOD | ARITY_NOARGS}, {"__repr__", agen_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef agen_gs[] = {
        {"__name__", get_name, set_name}, {"__qualname__", get_qualname, set_qualname},
        {"ag_running", agen_get_running, NULL}, {"ag_suspended", get_suspended, NULL}, {"ag_await", get_await, NULL},
        {"ag_code", get_code, NULL}, {NULL}};
    static const MethodDef wrapper_m[] = {
        {"__next__", wrapper_next, NATIVEF_METHOD | ARITY_NOARGS}, {"send", wrapper_send, NATIVEF_METHOD | ARITY_O},
        {"throw", wrapper_throw, NATIVEF_METHOD | ARITY_POS(1, 3)}, {"close", wrapper_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iter__", self_m, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const MethodDef asend_m[] = {
        {"send", asend_send, NATIVEF_METHOD | ARITY_O}, {"throw", asend_throw, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"close", asend_close, NATIVEF_METHOD | ARITY_NOARGS}, {"__next__", asend_next, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iter__", self_m, NATIVEF_METHOD | ARITY_NOARGS}, {"__await__", self_m, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const MethodDef athrow_m[] = {
        {"send", athrow_send, NATIVEF_METHOD | ARITY_O}, {"throw", athrow_throw, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"close", athrow_close, NATIVEF_METHOD | ARITY_NOARGS}, {"__next__", athrow_next, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iter__", self_m, NATIVEF_METHOD | ARITY_NOARGS}, {"__await__", self_m, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    if (type_add_methods(vm, vm->t_coroutine, coro_m) < 0 || type_add_getsets(vm, vm->t_coroutine, coro_gs) < 0 ||
        type_add_methods(vm, vm->t_async_generator, agen_m) < 0 ||
        type_add_getsets(vm, vm->t_async_generator, agen_gs) < 0 ||
        type_add_methods(vm, vm->t_coroutine_wrapper, wrapper_m) < 0 ||
        type_add_methods(vm, vm->t_async_generator_asend, asend_m) < 0 ||
        type_add_methods(vm, vm->t_async_generator_athrow, athrow_m) < 0)
        EM_UNREACHABLE();
}
