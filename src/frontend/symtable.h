/* symtable.h — symbol tables: which names each scope binds, and where every name resolves.
 *
 * Design note.  This is CPython 3.11's Python/symtable.c, and the compiler reads it as
 * compile.c reads CPython's: one SymScope per module, function, lambda, class and comprehension (list/set/
 * dict comprehensions and generator expressions are functions of their own in 3.11, whose
 * first parameter ".0" is the outermost iterator).  A first pass records every name with
 * SYM_DEF_* flags; a second pass resolves each name to a scope (SymScopeKind), turns locals
 * captured by inner functions into cells, adds the implicit __class__ cell of classes whose
 * methods use super() or __class__, and reports CPython's errors.
 *
 * Names are stored *mangled* (`__x` inside class C is `_C__x`), as CPython stores them;
 * sym_scope_of / sym_lookup take the name as written and mangle it themselves.
 *
 * Example:
 *     def outer(a):
 *         def inner(): return a + b
 *         return inner
 * outer: a is a parameter and CELL (inner captures it), inner is LOCAL;
 *        varnames = (a,) (the compiler appends inner), cellvars = (a,), freevars = ()
 * inner: a is FREE, b is GLOBAL_IMPLICIT; varnames = (), freevars = (a,); is_nested */
#ifndef EMBER_FRONTEND_SYMTABLE_H
#define EMBER_FRONTEND_SYMTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"

/* Symbol flags: CPython's DEF_* values (Include/internal/pycore_symtable.h, 3.11). */
#define SYM_DEF_GLOBAL 1        /* global statement */
#define SYM_DEF_LOCAL 2         /* assignment in this block */
#define SYM_DEF_PARAM 4         /* formal parameter */
#define SYM_DEF_NONLOCAL 8      /* nonlocal statement */
#define SYM_USE 16              /* name is used */
#define SYM_DEF_FREE 32         /* name used but not defined in a nested block */
#define SYM_DEF_FREE_CLASS 64   /* bound in a class and free in one of its methods */
#define SYM_DEF_IMPORT 128      /* bound by import */
#define SYM_DEF_ANNOT 256       /* annotated */
#define SYM_DEF_COMP_ITER 512   /* comprehension iteration variable */
#define SYM_DEF_BOUND (SYM_DEF_LOCAL | SYM_DEF_PARAM | SYM_DEF_IMPORT)

/* Where a name resolves.  Values 1..5 are CPython's scopes (symtable.LOCAL, ...). */
typedef enum SymScopeKind {
    SYM_UNDEFINED = 0,       /* not a name of this scope */
    SYM_LOCAL = 1,           /* function: fast local; module/class: namespace name */
    SYM_GLOBAL_EXPLICIT = 2, /* declared `global` */
    SYM_GLOBAL_IMPLICIT = 3, /* bound nowhere enclosing: module globals, then builtins */
    SYM_FREE = 4,            /* bound in an enclosing function: a cell of the closure */
    SYM_CELL = 5,            /* local of this function captured by a nested scope */
    /* Returned by sym_scope_of only: a FREE name used in a class body.  Loads look in the
     * class namespace first and fall back to the enclosing cell (LOAD_CLASSDEREF). */
    SYM_CLASS_FREE = 6,
} SymScopeKind;

typedef enum SymBlockType {
    SYM_BLOCK_MODULE,
    SYM_BLOCK_FUNCTION, /* def, lambda and comprehensions */
    SYM_BLOCK_CLASS,
} SymBlockType;

typedef enum SymComprehension {
    SYM_COMP_NONE,
    SYM_COMP_LIST,
    SYM_COMP_SET,
    SYM_COMP_DICT,
    SYM_COMP_GENEXPR,
} SymComprehension;

typedef enum SymParamKind {
    SYM_PARAM_POSONLY,
    SYM_PARAM_POSITIONAL,
    SYM_PARAM_VARARG,
    SYM_PARAM_KWONLY,
    SYM_PARAM_KWARG,
} SymParamKind;

typedef struct SymSymbol {
    const char *name;   /* mangled */
    int flags;          /* SYM_DEF_* / SYM_USE */
    SymScopeKind scope; /* SYM_LOCAL .. SYM_CELL */
} SymSymbol;

typedef struct SymParam {
    const char *name; /* mangled */
    SymParamKind kind;
} SymParam;

typedef struct SymScope SymScope;

struct SymScope {
    SymBlockType type;
    SymComprehension comprehension;
    bool is_lambda;
    const char *name;        /* "top", the def/class name, "lambda", "listcomp", "genexpr", ... */
    const void *node;        /* FunctionDef/ClassDef AstStmt, Lambda or comprehension AstExpr; NULL for the module */
    int lineno, col_offset;  /* of the node (the `def`/`class` line, not the decorators) */
    int firstlineno;         /* CPython's co_firstlineno: first decorator line if decorated */
    const char *private_name; /* class name used for mangling here, or NULL */
    SymScope *parent;
    SymScope **children;     /* in source order */
    size_t nchildren;
    SymSymbol *symbols;      /* in the order CPython's symtable first sees them */
    size_t nsymbols;

    /* Parameters in source order: posonly, positional, *vararg, kwonly, **kwarg. */
    SymParam *params;
    size_t nparams;
    int posonlyargcount, argcount /* includes posonly */, kwonlyargcount;

    /* Flags (functions): what CO_* flags and MAKE_FUNCTION need. */
    bool has_varargs, has_varkw;
    bool is_generator;       /* contains yield / yield from (or is a generator expression) */
    bool is_coroutine;       /* async def, or awaits (await, async for/with/comprehension) */
    bool is_nested;          /* inside a function (CO_NESTED) */
    bool has_free;           /* uses free variables (ste_free) */
    bool child_free;         /* a nested scope has free variables (ste_child_free) */
    bool returns_value;
    bool needs_class_closure; /* class: methods use __class__ or super(); __class__ is a cell */

    /* What the compiler starts the code object with (CPython 3.11 order):
     *   varnames: the parameters (posonly, positional, kwonly, *vararg, **kwarg); the compiler
     *             appends the other fast locals as it first compiles them (CPython's order of
     *             co_varnames).  Empty for modules and classes.
     *   cellvars: cells that are parameters (in varnames order), then the others sorted.
     *   freevars: free variables (and, for classes, names passed through to methods), sorted. */
    const char **varnames;
    size_t nvarnames;
    const char **cellvars;
    size_t ncellvars;
    const char **freevars;
    size_t nfreevars;
};

typedef struct SymTable SymTable;

/* Builds the symbol tables of a parsed module (`from __future__ import annotations` is
 * honoured: annotations are then never evaluated).  On a CPython symbol-table error
 * (duplicate argument, misused global/nonlocal, import * in a function, yield in a
 * comprehension) the error is added to errors with phase PARSE_PHASE_SYMTABLE (its text is
 * filled by parse_errors_fill_text) and NULL is returned. */
SymTable *sym_build(const AstModule *mod, ParseErrorList *errors);
/* The same, with PEP 563 annotations switched on or off by the caller (compile() may pass
 * or inherit the flag). */
SymTable *sym_build_ex(const AstModule *mod, bool future_annotations, ParseErrorList *errors);

/* True when the module starts with `from __future__ import annotations` (after an
 * optional docstring and other __future__ imports), as CPython's future.c decides. */
bool sym_future_annotations(const AstModule *mod);
void sym_free(SymTable *st);

SymScope *sym_module_scope(const SymTable *st);
/* The scope a FunctionDef/ClassDef statement or a Lambda/ListComp/SetComp/DictComp/
 * GeneratorExp expression opens; NULL for other nodes. */
SymScope *sym_scope_for_node(const SymTable *st, const void *node);

/* Where `name` (as written in the source) resolves in scope: SYM_UNDEFINED when the scope
 * has no such symbol (the compiler then treats it as GLOBAL_IMPLICIT in functions and as a
 * namespace name elsewhere, as CPython does). */
SymScopeKind sym_scope_of(const SymScope *scope, const char *name);
const SymSymbol *sym_lookup(const SymScope *scope, const char *name);

/* CPython's _Py_Mangle: "__x" in class "C" is "_C__x" (the rule is mangle.h's, shared with
 * the compiler).  Returns name itself when no mangling applies, else an interned string
 * valid as long as the table. */
const char *sym_mangle(SymTable *st, const char *private_name, const char *name);

#endif
