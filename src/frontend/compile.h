/* src/frontend/compile.h — the bytecode compiler: AST (ast.h) + symbol tables (symtable.h) →
 * vm/ code objects, through vm/'s one instruction builder and assembler.  The structure follows
 * CPython 3.11's compile.c: one compiler unit per scope, a frame-block stack for unwinding
 * through loops, try/finally, with and except handlers, and the same exception-table layout
 * for try/except/finally/with. */
#ifndef EMBER_FRONTEND_COMPILE_H
#define EMBER_FRONTEND_COMPILE_H

#include "src/frontend/ast.h"
#include "vm/vm.h"

/* Compile module source: parse, build symbol tables, generate code.  On a syntax error,
 * raises SyntaxError (with filename, lineno, offset, text attributes, as CPython) and returns
 * NULL; *diag (if non-NULL) receives Ember's formatted "file:line:col: ..." diagnostic
 * (malloc'd).  code_flags are OR'ed into every code object (CO_LIBRARY for library code). */
CodeObj *comp_compile_module(VM *vm, const char *src, size_t len, const char *filename,
                             uint32_t code_flags, char **diag);

/* compile()'s flags (CPython's PyCF_* values); the CO_FUTURE_* flags of vm/code.h go in the
 * same word. */
enum {
    COMP_CF_DONT_IMPLY_DEDENT = 0x200,
    COMP_CF_ONLY_AST = 0x400,
    COMP_CF_TYPE_COMMENTS = 0x1000,
    COMP_CF_ALLOW_TOP_LEVEL_AWAIT = 0x2000,
    COMP_CF_ALLOW_INCOMPLETE_INPUT = 0x4000,
    /* CPython's PyCF_MASK: the __future__ flags a compile() call may pass or inherit */
    COMP_CF_FUTURE_MASK = 0x20000 | 0x40000 | 0x80000 | 0x100000 | 0x200000 | 0x400000 | 0x800000 | 0x1000000,
};

/* What compile() asks for: the mode (parser.h's ParseMode values: exec, eval, single) and
 * the flags above, optimize (-1 means the interpreter's level, 0) and code_flags OR'ed into
 * every code object. */
typedef struct CompOptions {
    int mode;            /* ParseMode */
    uint32_t cf_flags;
    int optimize;
    uint32_t code_flags;
} CompOptions;

CodeObj *comp_compile(VM *vm, const char *src, size_t len, const char *filename, const CompOptions *opts,
                      char **diag);

/* Parse only (ast.parse): the tree in arena, or NULL with SyntaxError raised.  Only the
 * parser's errors count: the compiler's checks ('return' outside function, ...) are not made. */
AstModule *comp_parse_tree(VM *vm, const char *src, size_t len, const char *filename, int mode, uint32_t cf_flags,
                           AstArena *arena);

/* Compile a tree that did not come from source (compile(ast_object, ...)): the compiler's
 * checks the parser would have made, then symbol tables and code; SyntaxError as CPython
 * raises it for such a tree (no source text).  The tree and arena stay the caller's. */
CodeObj *comp_compile_tree(VM *vm, AstModule *mod, AstArena *arena, const char *filename, const CompOptions *opts);

/* Installs compile(), exec() and eval() into the builtins (compile_builtins.c). */
void comp_register_builtins(VM *vm);

#endif
