/* vm/specialize.h — quickening decisions for the interpreter (vm/specialize.c; opcodes.def
 * note [13]).  Each looks at the operands a base instruction of co->qcode sees and rewrites it
 * into a specialised form, or sets its counter to back off. */
#ifndef EMBER_VM_SPECIALIZE_H
#define EMBER_VM_SPECIALIZE_H

#include "vm/code.h"
#include "vm/func.h"
#include "vm/native.h"
#include "vm/vm.h"

void spec_binary_op(CodeObj *co, Instr *in, Value a, Value b);
void spec_compare_op(CodeObj *co, Instr *in, Value a, Value b);
void spec_for_iter(CodeObj *co, Instr *in, Value it);
/* in: a LOAD_METHOD just specialised to LOAD_METHOD_CACHED; fuses the LOAD_FAST before it */
void spec_load_method(CodeObj *co, Instr *in);
/* in: a STORE_ATTR just specialised to STORE_ATTR_INSTANCE_VALUE; fuses `obj.name += v` when
 * it ends one (opcodes.def note [14]) */
void spec_attr_iadd(CodeObj *co, Instr *in);
/* in: a LOAD_GLOBAL just specialised to LOAD_GLOBAL_MODULE; fuses the PUSH_NULL before it */
void spec_load_global(CodeObj *co, Instr *in);
/* sp: the value stack above the call's operands */
void spec_call(VM *vm, CodeObj *co, Instr *in, const Value *sp);
/* CALL_NATIVE's guard: n can be called with these argc arguments with no checks beyond it
 * (not bound, the receiver of the owner's exact type, the arity right). */
static inline bool spec_native_ok(VM *vm, NativeObj *n, int argc, const Value *argv) {
    if (!val_is_null(n->self) || (n->flags & (NATIVEF_STATIC | NATIVEF_CLASSMETHOD))) return false;
    int given = argc;
    if (n->flags & NATIVEF_METHOD) {
        /* a method descriptor applies to its owner's instances: the exact type is the guard */
        if (n->owner && (argc < 1 || vm_type_of(vm, argv[0]) != n->owner)) return false;
        given--;
    }
    switch (n->flags & ARITY_MASK) {
    case 0: return true;
    case ARITY_NOARGS: return given == 0;
    case ARITY_O: return given == 1;
    default: return false;
    }
}


#endif
