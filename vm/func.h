/* vm/func.h — function objects (MAKE_FUNCTION, attributes, repr), bound methods, cells and
 * code objects as script-visible types. */
#ifndef EMBER_VM_FUNC_H
#define EMBER_VM_FUNC_H

#include "vm/vm.h"

/* MAKE_FUNCTION: build a function from the operands on top of the stack (sp points past the
 * code object); flags as in vm/opcodes.def note [8]. */
Value func_make(VM *vm, Frame *f, int flags, Value *sp);
FunctionObj *func_new(VM *vm, CodeObj *co, DictObj *globals);
void func_init_types(VM *vm);

#endif
