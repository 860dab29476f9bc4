/* parse_check.h — the syntax errors CPython raises after parsing, outside the symbol table:
 * future.c (__future__ imports) and compile.c ('return'/'yield' outside function, 'break'
 * outside loop, 'continue' not properly in loop, keyword argument repeated, starred
 * expressions in the wrong place, assignment to __debug__, default 'except:' not last).
 *
 * The module is walked in the order CPython's compiler visits it (a function body right at
 * its def, an assignment's value before its targets, a class body before its bases), so
 * that the first error recorded is the one CPython reports.  Errors are appended with phase
 * PARSE_PHASE_FUTURE or PARSE_PHASE_COMPILER and CPython's (byte-based) columns. */
#ifndef EMBER_FRONTEND_PARSE_CHECK_H
#define EMBER_FRONTEND_PARSE_CHECK_H

#include <stdbool.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"
#include "src/frontend/lexer.h"

/* Trees deeper than this are rejected (CPython raises RecursionError past ~3000). */
#define PARSE_MAX_AST_DEPTH 3000

typedef struct ParseCheckResult {
    bool future_annotations; /* `from __future__ import annotations` */
    bool unsupported;        /* the module was rejected after parsing (nesting deeper than
                                PARSE_MAX_AST_DEPTH) and the error reported */
} ParseCheckResult;

ParseCheckResult parse_check_module(const AstModule *mod, const Lexer *lx, ParseErrorList *errors);

#endif
