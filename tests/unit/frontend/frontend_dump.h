/* frontend_dump.h — text renderings shared by the unit tests and the ast-dump tool, in the
 * formats the golden files use (generated from CPython by the gen_*.sh scripts). */
#ifndef EMBER_TESTS_FRONTEND_DUMP_H
#define EMBER_TESTS_FRONTEND_DUMP_H

#include <stddef.h>

#include "src/frontend/errors.h"
#include "src/frontend/symtable.h"

/* One line per error: "Kind:lineno:offset:end_lineno:end_offset:message" (None as "None"). */
char *dump_errors(const ParseErrorList *errs);

/* The symbol tables: scope lines with their symbols sorted by name (the first part of a .sym
 * golden; its "code ..." lines are the compiler's, checked by tests/unit/vm/test_compiler.c). */
char *dump_symtable(const SymTable *st);

/* Reads a whole file; NULL on failure. */
char *read_whole_file(const char *path, size_t *len);

#endif
