/* vm/gen.h — generator objects: a suspended frame with its own block of locals and stack,
 * resumed by next()/send()/throw()/close() and by FOR_ITER and SEND in the interpreter. */
#ifndef EMBER_VM_GEN_H
#define EMBER_VM_GEN_H

#include "vm/vm.h"

typedef enum GenState { GEN_CREATED, GEN_SUSPENDED, GEN_RUNNING, GEN_CLOSED } GenState;

typedef struct GenObj {
    Obj hdr;
    Frame frame;          /* localsplus/stack point into block */
    Value *block;
    int32_t nblock;
    uint8_t state;
    StrObj *name, *qualname;
} GenObj;

/* An async generator (vm/coro.c): a GenObj plus the state its __anext__/athrow awaitables
 * share (CPython's ag_running_async, ag_closed, ag_hooks_inited). */
typedef struct AsyncGenObj {
    GenObj gen;
    bool running_async;  /* an asend/athrow awaitable is iterating it */
    bool closed;         /* finished, or aclose() started */
    bool hooks_inited;   /* sys.set_asyncgen_hooks' firstiter was called */
    Value finalizer;     /* the finalizer hook seen then, or None */
} AsyncGenObj;

/* "generator", "coroutine" or "async generator": the word CPython's messages use. */
const char *gen_kind_name(VM *vm, const GenObj *g);

/* Called when a generator function is called (a coroutine or async generator function too,
 * by its code flags): bind the arguments, return the generator. */
Value gen_new_from_call(VM *vm, FunctionObj *fn, int argc, Value *argv, TupleObj *kw);
/* Resume with `sent` (None for next()); exc non-null: throw it in.  Returns the yielded value;
 * on return, VAL_NULL with *done = true and *retval set (no exception); on error VAL_NULL with
 * the exception pending and *done = true. */
Value gen_resume(VM *vm, GenObj *g, Value sent, Value exc, bool *done, Value *retval);
void gen_init_type(VM *vm);

/* send(v) / throw(exc) / close() as the methods do them: the yielded value, or VAL_NULL with
 * the exception pending (StopIteration(value) at the end; StopAsyncIteration for an async
 * generator). */
Value gen_send_ex(VM *vm, GenObj *g, Value sent);
Value gen_throw_ex(VM *vm, GenObj *g, Value exc);
Value gen_close_ex(VM *vm, GenObj *g);
/* throw()'s (type[, value[, tb]]) arguments as the exception to throw; VAL_NULL on error. */
Value gen_throw_args(VM *vm, int argc, Value *argv);
/* What a suspended generator is delegating to with yield from / await, or VAL_NULL. */
Value gen_yield_from_target(VM *vm, GenObj *g);

#endif
