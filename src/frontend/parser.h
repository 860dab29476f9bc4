/* parser.h — parse Python 3.11-subset source into an AST (ast.h), with CPython's errors.
 *
 * The front half of compiling a script:
 *     AstArena *arena = ast_arena_new();
 *     ParseErrorList errs; parse_errors_init(&errs);
 *     AstModule *mod = NULL;
 *     ParseOptions opts = {"model.py", 0};
 *     parse_source(src, len, &opts, arena, &mod, &errs);   // syntax + compile-time checks
 *     SymTable *st = mod ? sym_build(mod, &errs) : NULL;   // symbol tables (symtable.h)
 *     parse_errors_fill_text(&errs, src, len);             // source lines for later errors
 *     if (errs.count) {                                    // errs.items[0]: CPython's error
 *         char *msg = parse_format_error(&errs.items[0], "model.py");
 *         fputs(msg, stderr); free(msg);
 *     } else {
 *         ... compile mod->body with st ...
 *     }
 *     sym_free(st); parse_errors_fini(&errs); ast_arena_free(arena);
 *
 * Errors come in CPython's phases (errors.h) and the list keeps them in phase order, so
 * items[0] is always the one CPython would raise.  A syntax error (tokenizer or parser)
 * leaves *out NULL; the parser then resynchronises at the next statement and records further
 * errors (best effort).  When the syntax is valid, *out is set even if the compile-time
 * checks made here (return/yield outside function, break/continue outside loop, keyword
 * argument repeated, misplaced starred expressions, __debug__, __future__) found errors;
 * build the symbol table next, whose errors sort before those, as CPython reports symbol
 * table errors first.  Constructs Ember does not support (walrus, async/await, match,
 * except*, complex literals, \N{...}, names needing NFKC normalisation) are syntax errors
 * "... is not supported" at their position, and *out stays NULL.
 *
 * Limits: the parser stops at 6000 nested rule levels and rejects trees more than 3000
 * nodes deep (CPython raises MemoryError / RecursionError there), so code that walks the
 * AST recursively is safe. */
#ifndef EMBER_FRONTEND_PARSER_H
#define EMBER_FRONTEND_PARSER_H

#include <stddef.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"

/* The start rule: compile()'s modes. */
typedef enum ParseMode {
    PARSE_MODE_EXEC,      /* file: a Module */
    PARSE_MODE_EVAL,      /* eval: an Expression */
    PARSE_MODE_SINGLE,    /* interactive: one statement, an Interactive */
    PARSE_MODE_FUNC_TYPE, /* func_type: a FunctionType */
} ParseMode;

typedef struct ParseOptions {
    const char *filename; /* for messages that name the file; may be NULL */
    int max_errors;       /* stop collecting syntax errors after this many (0 = 50) */
    ParseMode mode;       /* PARSE_MODE_EXEC when zeroed; other modes report one error */
    bool ast_only;        /* ast.parse: only the parser's errors, none of the compiler's checks */
    /* compile()'s PyCF_DONT_IMPLY_DEDENT: in 'single' mode an unterminated last line does not
     * close its open blocks */
    bool dont_imply_dedent;
    /* PyCF_ALLOW_INCOMPLETE_INPUT (codeop, the REPL): a parse that failed at the end of the
     * input raises SyntaxError("incomplete input") */
    bool allow_incomplete;
} ParseOptions;

/* Parses len bytes of UTF-8 source (a BOM is skipped; \r\n and \r are newlines).  Returns 0,
 * or -1 when errors gained an error.  opts may be NULL. */
int parse_source(const char *src, size_t len, const ParseOptions *opts, AstArena *arena,
                 AstModule **out, ParseErrorList *errors);

/* Reads and parses a file (an unreadable file is reported as an error with lineno 0).  The
 * source is not kept: to fill the text of symbol-table errors, read the file yourself and
 * use parse_source. */
int parse_file(const char *path, AstArena *arena, AstModule **out, ParseErrorList *errors);

#endif
