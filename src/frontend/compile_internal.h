/* src/frontend/compile_internal.h — shared state of the compiler's files (compile.c for units
 * and statements, compile_expr.c for expressions).  The compiler reads the symbol table
 * (symtable.h) as CPython's compile.c reads symtable.c's: one SymScope per unit. */
#ifndef EMBER_FRONTEND_COMPILE_INTERNAL_H
#define EMBER_FRONTEND_COMPILE_INTERNAL_H

#include <setjmp.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"
#include "src/frontend/compile.h"
#include "src/frontend/symtable.h"
#include "vm/code.h"
#include "vm/vm.h"

/* ---- the compiler ---- */

typedef enum FBlockKind {
    FB_WHILE_LOOP, FB_FOR_LOOP, FB_TRY_EXCEPT, FB_FINALLY_TRY, FB_FINALLY_END, FB_WITH, FB_ASYNC_WITH,
    FB_HANDLER_CLEANUP, FB_POP_VALUE, FB_EXCEPTION_HANDLER, FB_EXCEPTION_GROUP_HANDLER,
    FB_ASYNC_COMPREHENSION_GENERATOR,
} FBlockKind;

typedef struct FBlock {
    FBlockKind kind;
    Label block, exit;
    const void *datum;     /* FINALLY_TRY: the Try statement; HANDLER_CLEANUP: the name */
} FBlock;

typedef struct Unit {
    Builder b;
    SymScope *ste;              /* this unit's symbol-table scope (CPython's u_ste) */
    SymBlockType kind;          /* ste->type */
    const char *qualname;
    const char *private_name;   /* ste->private_name: CPython's u_private */
    FBlock fblocks[32];
    int nfblocks;
    int line;
    int col;
    struct Unit *parent;
} Unit;

typedef struct Compiler {
    VM *vm;
    const char *filename;
    SymTable *st;
    AstArena *arena;       /* the AST's, which also holds the mangled names */
    Unit *u;
    uint32_t code_flags;
    jmp_buf fail;          /* longjmp on errors: the error is pending on the VM */
    const char *src;       /* for the source line of compile-time SyntaxErrors */
    size_t src_len;
    char *diag;            /* Ember's formatted diagnostic of the first error (malloc'd) */
    bool future_annotations; /* from __future__ import annotations: annotations stay strings */
    bool interactive;        /* 'single' mode: top-level expression statements are displayed */
    int optimize;            /* compile()'s optimize: >= 1 drops asserts, >= 2 docstrings */
} Compiler;

/* Raise SyntaxError at a node's position and abort compilation. */
void comp_error(Compiler *c, int line, int col, const char *fmt, ...) __attribute__((noreturn, format(printf, 4, 5)));
/* Abort compilation: an exception is already pending (MemoryError, ...). */
void comp_fail(Compiler *c) __attribute__((noreturn));

void comp_emit(Compiler *c, Opcode op, uint32_t arg);
void comp_emit_jump(Compiler *c, Opcode op, Label l);
Label comp_label(Compiler *c);
void comp_bind(Compiler *c, Label l);
uint32_t comp_const(Compiler *c, Value v);
/* Index in co_names of name mangled in the current unit (CPython's ADDOP_NAME): attributes,
 * IMPORT_NAME, IMPORT_FROM.  comp_mangle gives the mangled name itself. */
uint32_t comp_name_index(Compiler *c, const char *name);
const char *comp_mangle(Compiler *c, const char *name);
StrObj *comp_str(Compiler *c, const char *s, size_t len);
void comp_set_loc(Compiler *c, int line, int col);

void comp_expr(Compiler *c, const AstExpr *e);
void comp_expr_seq_push(Compiler *c, const AstExprSeq *seq);
/* Load, store or delete a variable as written in the source (it is mangled here). */
void comp_nameop(Compiler *c, const char *name, AstExprContext ctx);
void comp_store_target(Compiler *c, const AstExpr *target);
void comp_delete_target(Compiler *c, const AstExpr *target);
void comp_jump_if(Compiler *c, const AstExpr *e, Label target, bool cond);
/* The yield-from loop of `yield from` and `await` (CPython's ADD_YIELD_FROM): receiver and
 * the value to send are on the stack; leaves the result. */
void comp_yield_from_loop(Compiler *c);
/* `await` of the value on the stack: GET_AWAITABLE kind (0 await, 1 __aenter__, 2 __aexit__),
 * None, the yield-from loop. */
void comp_await_tos(Compiler *c, uint32_t kind);
/* YIELD_VALUE of the value on the stack, wrapped first in an async generator. */
void comp_yield(Compiler *c);
/* Value of a constant expression as a VM value, or VAL_NULL if not constant. */
Value comp_constant_value(Compiler *c, const AstExpr *e);
/* Code object for a nested scope (function, lambda, comprehension, class body). */
CodeObj *comp_function_body(Compiler *c, const void *node, const char *name, const AstArguments *args,
                            const AstStmtSeq *body, const AstExpr *lambda_body, int firstline);
/* Defaults and keyword defaults of a lambda; returns MAKE_FUNCTION's flags. */
uint32_t comp_push_defaults_for(Compiler *c, const AstArguments *a);
/* A comprehension's own unit (its ".0" parameter is the outermost iterator). */
void comp_enter_comprehension(Compiler *c, const void *node, const char *name, int line);
CodeObj *comp_exit_comprehension(Compiler *c);
/* The arguments of a call whose callable (and `already` positional arguments) are pushed. */
void comp_call_args(Compiler *c, const AstExpr *call, int already);
/* Push closure cells + MAKE_FUNCTION for a code object (defaults already pushed per flags). */
void comp_make_closure(Compiler *c, CodeObj *co, uint32_t flags);
const char *comp_qualname(Compiler *c, const char *name);
void comp_stmt(Compiler *c, const AstStmt *s);
/* The match statement (compile_match.c). */
void comp_match(Compiler *c, const AstStmt *s);
void comp_stmts(Compiler *c, const AstStmtSeq *seq);
bool comp_is_docstring(const AstStmt *s);

#endif
