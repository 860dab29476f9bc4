/* vm/specialize.h — quickening decisions for the interpreter (vm/specialize.c; opcodes.def
 * note [13]).  Each looks at the operands a base instruction of co->qcode sees and rewrites it
 * into a specialised form, or sets its counter to back off. */
#ifndef EMBER_VM_SPECIALIZE_H
#define EMBER_VM_SPECIALIZE_H

#include "vm/code.h"
#include "vm/func.h"
#include "vm/vm.h"

void spec_binary_op(CodeObj *co, Instr *in, Value a, Value b);
void spec_compare_op(CodeObj *co, Instr *in, Value a, Value b);
/* sp: the value stack above the call's operands */
void spec_call(VM *vm, CodeObj *co, Instr *in, const Value *sp);

#endif
