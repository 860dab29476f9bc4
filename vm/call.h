/* vm/call.h — internals of calling shared by vm/call.c, the interpreter and generators: frame
 * push/pop on the VM value stack and argument binding. */
#ifndef EMBER_VM_CALL_H
#define EMBER_VM_CALL_H

#include "vm/vm.h"

Frame *frame_push_slow(VM *vm, CodeObj *co);

/* Push a frame for co (fast locals cleared, value stack empty).  NULL + RecursionError when
 * the recursion limit or the value stack is exhausted.  Inline: it is on every call. */
static inline Frame *frame_push(VM *vm, CodeObj *co, Obj *func, DictObj *globals, DictObj *locals_dict) {
    size_t need = (size_t)co->nlocalsplus + (size_t)co->stacksize;
    if (__builtin_expect(vm->depth >= vm->frame_guard || vm->stack_top + need > vm->stack_limit, 0) &&
        (!vm_frame_pool_extend(vm) || vm->stack_top + need > vm->stack_limit))
        return frame_push_slow(vm, co);
    /* Pool frames keep builtins, gen = NULL, owns_stack, yielded = false from vm_new, and a
     * frame's kwnames is always NULL when it ends (CALL consumes what KW_NAMES set), so only
     * the per-call fields are written. */
    Frame *f = &vm->frame_pool[vm->depth];
    f->code = co;
    f->func = func;
    f->globals = globals;
    f->locals_dict = locals_dict;
    f->localsplus = vm->stack_top;
    for (int32_t i = 0; i < co->nlocalsplus; i++) f->localsplus[i] = val_null();
    f->stack = f->sp = f->localsplus + co->nlocalsplus;
    f->ip = 0;
    f->prev = vm->frame;
    f->is_entry = true;
    vm->stack_top = f->stack + co->stacksize;
    vm->depth++;
    return f;
}

void frame_detach(VM *vm, Frame *f);   /* vm/frame.h */

static inline void frame_pop(VM *vm, Frame *f) {
    if (__builtin_expect(f->obj != NULL, 0)) frame_detach(vm, f);
    if (f->owns_stack) {
        vm->stack_top = f->localsplus;
        vm->depth--;
    }
}
/* Bind call arguments into a function's fast locals (CPython's rules and messages). */
int call_bind_args(VM *vm, FunctionObj *fn, Value *locals, int argc, Value *argv, TupleObj *kw) EM_MUST_CHECK;
/* Call f with self prepended to the positional arguments. */
Value call_with_self(VM *vm, Value f, Value self, int argc, Value *argv, TupleObj *kw);

/* CPython's _PyObject_FunctionStr: "module.qualname()" ("len()" for builtins), for messages
 * about a call's arguments.  Never fails: falls back to the type name. */
StrObj *call_function_str(VM *vm, Value f);
/* Iterate args (f(*args)) into a tuple, with CPython's message naming f for a non-iterable. */
Value call_star_args(VM *vm, Value f, Value args);

#endif
