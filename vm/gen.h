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

/* Called when a generator function is called: bind the arguments, return the generator. */
Value gen_new_from_call(VM *vm, FunctionObj *fn, int argc, Value *argv, TupleObj *kw);
/* Resume with `sent` (None for next()); exc non-null: throw it in.  Returns the yielded value;
 * on return, VAL_NULL with *done = true and *retval set (no exception); on error VAL_NULL with
 * the exception pending and *done = true. */
Value gen_resume(VM *vm, GenObj *g, Value sent, Value exc, bool *done, Value *retval);
void gen_init_type(VM *vm);

#endif
