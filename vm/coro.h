/* vm/coro.h — coroutines and asynchronous generators (vm/coro.c): their types, and the
 * awaitable protocol the interpreter's await opcodes run (GET_AWAITABLE, GET_AITER,
 * GET_ANEXT, BEFORE_ASYNC_WITH, ASYNC_GEN_WRAP; see vm/opcodes.def note [11]).
 *
 * Design note.  A coroutine and an async generator are GenObjs (vm/gen.h) of their own
 * types, resumed by the same gen_resume as generators; `await x` is a yield-from loop over
 * the iterator x.__await__() gives.  An async generator's __anext__() returns an
 * async_generator_asend awaitable that resumes the generator: a value the generator yields
 * (wrapped by ASYNC_GEN_WRAP) ends the awaitable with StopIteration(value), while a value
 * coming up from an await inside the generator passes through to the event loop. */
#ifndef EMBER_VM_CORO_H
#define EMBER_VM_CORO_H

#include "vm/vm.h"

/* Creates the coroutine types (called once by vm_new). */
void coro_init_types(VM *vm);
/* Adds sys.get_asyncgen_hooks / sys.set_asyncgen_hooks to the sys module (after sys_init). */
void coro_init_sys(VM *vm, Value sys_module);

/* GET_AWAITABLE: the iterator `await v` loops over (a coroutine itself, a generator marked by
 * types.coroutine, or type(v).__await__(v)).  kind 1/2 names __aenter__/__aexit__ in the
 * error.  VAL_NULL with TypeError (or RuntimeError for a coroutine already being awaited). */
Value coro_get_awaitable(VM *vm, Value v, int kind);
/* GET_AITER: type(v).__aiter__(v), checked to have __anext__. */
Value coro_get_aiter(VM *vm, Value v);
/* GET_ANEXT: the awaitable of aiter.__anext__(). */
Value coro_get_anext(VM *vm, Value aiter);
/* BEFORE_ASYNC_WITH: *exit = the bound __aexit__, returns mgr.__aenter__(). */
Value coro_before_async_with(VM *vm, Value mgr, Value *exit);
/* ASYNC_GEN_WRAP: a value an async generator yields. */
Value coro_wrap_value(VM *vm, Value v);

/* A generator, coroutine or async generator object (a GenObj). */
static inline bool coro_is_genobj(VM *vm, Value v) {
    if (!val_is_obj(v)) return false;
    TypeObj *t = v.as.o->type;
    return t == vm->t_generator || t == vm->t_coroutine || t == vm->t_async_generator;
}

#endif
