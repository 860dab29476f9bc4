/* vm/call.h — internals of calling shared by vm/call.c, the interpreter and generators: frame
 * push/pop on the VM value stack and argument binding. */
#ifndef EMBER_VM_CALL_H
#define EMBER_VM_CALL_H

#include "vm/vm.h"

/* Push a frame for co (fast locals cleared, value stack empty).  NULL + RecursionError when
 * the recursion limit or the value stack is exhausted. */
Frame *frame_push(VM *vm, CodeObj *co, Obj *func, DictObj *globals, DictObj *locals_dict);
void frame_pop(VM *vm, Frame *f);
/* Bind call arguments into a function's fast locals (CPython's rules and messages). */
int call_bind_args(VM *vm, FunctionObj *fn, Value *locals, int argc, Value *argv, TupleObj *kw) EM_WUR;
/* Call f with self prepended to the positional arguments. */
Value call_with_self(VM *vm, Value f, Value self, int argc, Value *argv, TupleObj *kw);

/* CPython's _PyObject_FunctionStr: "module.qualname()" ("len()" for builtins), for messages
 * about a call's arguments.  Never fails: falls back to the type name. */
StrObj *call_function_str(VM *vm, Value f);
/* Iterate args (f(*args)) into a tuple, with CPython's message naming f for a non-iterable. */
Value call_star_args(VM *vm, Value f, Value args);

#endif
