/* vm/exc_syntax.h — raising and printing SyntaxError (vm/exc_syntax.c). */
#ifndef EMBER_VM_EXC_SYNTAX_H
#define EMBER_VM_EXC_SYNTAX_H

#include <stdio.h>

#include "vm/vm.h"

/* Raise type(msg, (filename, lineno, offset, text, end_lineno, end_offset)) — type is
 * SyntaxError or a subclass; offsets are 1-based, end ones INT_MIN for None; text may be
 * NULL.  details_in_args false: args is (msg,) and the details are only attributes, as for
 * CPython's symbol-table and __future__ errors (PyErr_SyntaxLocationObject).  Returns
 * VAL_NULL. */
Value vm_syntax_error(VM *vm, TypeObj *type, const char *msg, const char *filename, int lineno, int offset,
                      const char *text, int end_lineno, int end_offset, bool details_in_args);
/* For the exception printer: when exc is a SyntaxError with a line number, writes the
 * "  File ..., line N" / source / caret lines and sets *message to what follows
 * "SyntaxError: "; false (nothing written) otherwise. */
bool vm_syntax_error_print_location(VM *vm, Value exc, FILE *out, Value *message);
void exc_syntax_init(VM *vm);

#endif
