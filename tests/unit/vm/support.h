/* tests/unit/vm/support.h — helpers shared by the VM unit suites: a fresh VM per test, running
 * a snippet, and finding a nested code object by qualified name. */
#ifndef EMBER_TESTS_UNIT_VM_SUPPORT_H
#define EMBER_TESTS_UNIT_VM_SUPPORT_H

#include "ember/ember.h"
#include "vm/vm.h"

VM *t_vm_new(void);
void t_vm_free(VM *vm);
/* Run source as __main__; aborts the test with the error message if it raises. */
void t_run(VM *vm, const char *src);
/* A global of __main__ (borrowed). */
Value t_global(VM *vm, const char *name);
/* Compile source (not run); the module code object, rooted by the caller. */
CodeObj *t_compile(VM *vm, const char *src);
/* Depth-first search of co's constants for a code object with the given qualname. */
CodeObj *t_find_code(CodeObj *co, const char *qualname);
/* The strings of a tuple of str, joined by ',' (static buffer). */
const char *t_names(TupleObj *t);

#endif
