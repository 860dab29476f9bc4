/* parser.h — parse Python 3.11-subset source into an AST (ast.h), with CPython's errors.
 *
 * Usage:
 *     AstArena *arena = ast_arena_new();
 *     ParseErrorList errs; parse_errors_init(&errs);
 *     AstModule *mod = NULL;
 *     if (parse_file("model.py", arena, &mod, &errs) < 0) {
 *         // errs.items[0] is what CPython would report; print it:
 *         char *msg = parse_format_error(&errs.items[0], "model.py"); fputs(msg, stderr); free(msg);
 *     }
 *     ... walk mod->body ...
 *     parse_errors_fini(&errs); ast_arena_free(arena);
 *
 * Errors come in CPython's phases (errors.h).  A syntax error (tokenizer or parser, phase
 * PARSER) leaves *out NULL.  When the syntax is valid, *out is set even if the compile-time
 * checks of this module (return/yield outside function, break/continue outside loop,
 * keyword argument repeated, starred assignment errors, __future__ imports) found errors
 * (phase COMPILER); build the symbol table next (symtable.h), whose errors (phase SYMTABLE)
 * then sort before them, as CPython reports symbol table errors first.  The return value is
 * -1 whenever errs gained an error. */
#ifndef EMBER_FRONTEND_PARSER_H
#define EMBER_FRONTEND_PARSER_H

#include <stddef.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"

typedef struct ParseOptions {
    const char *filename; /* used in messages that name the file; may be NULL */
    int max_errors;       /* stop collecting after this many (0 = 50) */
} ParseOptions;

/* Parses len bytes of UTF-8 source. */
int parse_source(const char *src, size_t len, const ParseOptions *opts, AstArena *arena,
                 AstModule **out, ParseErrorList *errors);

/* Reads and parses a file (an unreadable file is reported as an error with lineno 0). */
int parse_file(const char *path, AstArena *arena, AstModule **out, ParseErrorList *errors);

#endif
