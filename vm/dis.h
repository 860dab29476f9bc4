/* vm/dis.h — disassembly of code objects in CPython's `dis` layout. */
#ifndef EMBER_VM_DIS_H
#define EMBER_VM_DIS_H

#include <stdio.h>

#include "vm/vm.h"

/* Print co (and, if recursive, every code object in its constants, each after a
 * "Disassembly of <code object ...>:" header). */
void dis_code(VM *vm, const CodeObj *co, FILE *out, bool recursive);

/* _ember.dis_text / dis_instructions / dis_opnames, which vm/lib/dis.py is written over. */
int dis_add_functions(VM *vm, Value mod);

#endif
