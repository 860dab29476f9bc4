/* src/frontend/compile.h — the bytecode compiler: AST (ast.h) + symbol tables (symtable.h) →
 * vm/ code objects, through vm/'s one instruction builder and assembler.  The structure follows
 * CPython 3.11's compile.c: one compiler unit per scope, a frame-block stack for unwinding
 * through loops, try/finally, with and except handlers, and the same exception-table layout
 * for try/except/finally/with. */
#ifndef EMBER_FRONTEND_COMPILE_H
#define EMBER_FRONTEND_COMPILE_H

#include "vm/vm.h"

/* Compile module source: parse, build symbol tables, generate code.  On a syntax error,
 * raises SyntaxError (with filename, lineno, offset, text attributes, as CPython) and returns
 * NULL; *diag (if non-NULL) receives Ember's formatted "file:line:col: ..." diagnostic
 * (malloc'd).  code_flags are OR'ed into every code object (CO_LIBRARY for library code). */
CodeObj *comp_compile_module(VM *vm, const char *src, size_t len, const char *filename,
                             uint32_t code_flags, char **diag);

#endif
