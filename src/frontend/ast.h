/* ast.h — Ember's abstract syntax tree: CPython 3.11's `ast` node set for the subset.
 *
 * Design note.  The tree mirrors CPython's Include/internal/pycore_ast.h so that a compiler
 * written after CPython's compile.c reads the same way: a statement is an AstStmt whose
 * `kind` says which member of the union `v` is live, and the members carry CPython's names
 * (`s->v.FunctionDef.decorator_list`, `e->v.Call.keywords`, `e->v.Subscript.slice`).
 * Kinds CPython has but Ember does not build yet (TryStar) are absent: the parser
 * rejects those constructs with an error.  AsyncFunctionDef, AsyncFor and AsyncWith share
 * the members of FunctionDef, For and With, as they share CPython's fields.
 *
 * Every expression, statement, arg, keyword, alias and except handler has CPython's position
 * attributes: lineno (1-based), col_offset (0-based UTF-8 byte offset), end_lineno,
 * end_col_offset.  arguments, comprehension and withitem have none, as in CPython.
 *
 * Memory: every node, sequence and string lives in one AstArena, freed by ast_arena_free.
 * Sequences are (items, count) pairs; an empty sequence has count 0 (items may be NULL).
 * Identifiers are NUL-terminated UTF-8.  str/bytes constants are AstBytes: UTF-8 (or raw
 * bytes) with an explicit length, since they may contain NUL (a NUL terminator follows too).
 *
 * Example: `x = f(1, *a, k=2)` is
 *   Module(body=[Assign(targets=[Name(id='x', ctx=Store())],
 *                       value=Call(func=Name(id='f', ctx=Load()),
 *                                  args=[Constant(value=1), Starred(value=Name(id='a', ctx=Load()), ctx=Load())],
 *                                  keywords=[keyword(arg='k', value=Constant(value=2))]))],
 *          type_ignores=[])
 * i.e. an AstStmt{kind=AST_STMT_ASSIGN} with v.Assign.targets.items[0] an AST_EXPR_NAME
 * whose v.Name.ctx is AST_STORE, and v.Assign.value an AST_EXPR_CALL. */
#ifndef EMBER_FRONTEND_AST_H
#define EMBER_FRONTEND_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct AstArena AstArena;

AstArena *ast_arena_new(void);
void ast_arena_free(AstArena *arena);
/* Zeroed, 16-byte aligned memory living as long as the arena; NULL when out of memory. */
void *ast_arena_alloc(AstArena *arena, size_t size);
/* Copies len bytes and adds a NUL terminator. */
char *ast_arena_strndup(AstArena *arena, const char *s, size_t len);
size_t ast_arena_bytes_used(const AstArena *arena);

/* ---- enums (CPython's values: Load = 1, Add = 1, ...) ---- */

typedef enum AstExprContext { AST_LOAD = 1, AST_STORE, AST_DEL } AstExprContext;

typedef enum AstBoolOp { AST_AND = 1, AST_OR } AstBoolOp;

typedef enum AstOperator {
    AST_ADD = 1,
    AST_SUB,
    AST_MULT,
    AST_MAT_MULT,
    AST_DIV,
    AST_MOD,
    AST_POW,
    AST_LSHIFT,
    AST_RSHIFT,
    AST_BIT_OR,
    AST_BIT_XOR,
    AST_BIT_AND,
    AST_FLOOR_DIV,
} AstOperator;

typedef enum AstUnaryOp { AST_INVERT = 1, AST_NOT, AST_UADD, AST_USUB } AstUnaryOp;

typedef enum AstCmpOp {
    AST_EQ = 1,
    AST_NOT_EQ,
    AST_LT,
    AST_LTE,
    AST_GT,
    AST_GTE,
    AST_IS,
    AST_IS_NOT,
    AST_IN,
    AST_NOT_IN,
} AstCmpOp;

typedef enum AstStmtKind {
    AST_STMT_FUNCTION_DEF = 1,
    AST_STMT_CLASS_DEF,
    AST_STMT_RETURN,
    AST_STMT_DELETE,
    AST_STMT_ASSIGN,
    AST_STMT_AUG_ASSIGN,
    AST_STMT_ANN_ASSIGN,
    AST_STMT_FOR,
    AST_STMT_WHILE,
    AST_STMT_IF,
    AST_STMT_WITH,
    AST_STMT_RAISE,
    AST_STMT_TRY,
    AST_STMT_ASSERT,
    AST_STMT_IMPORT,
    AST_STMT_IMPORT_FROM,
    AST_STMT_GLOBAL,
    AST_STMT_NONLOCAL,
    AST_STMT_EXPR,
    AST_STMT_PASS,
    AST_STMT_BREAK,
    AST_STMT_CONTINUE,
    AST_STMT_ASYNC_FUNCTION_DEF, /* v.FunctionDef */
    AST_STMT_ASYNC_FOR,          /* v.For */
    AST_STMT_ASYNC_WITH,         /* v.With */
    AST_STMT_MATCH,
    AST_STMT__COUNT
} AstStmtKind;

typedef enum AstExprKind {
    AST_EXPR_BOOL_OP = 1,
    AST_EXPR_BIN_OP,
    AST_EXPR_UNARY_OP,
    AST_EXPR_LAMBDA,
    AST_EXPR_IF_EXP,
    AST_EXPR_DICT,
    AST_EXPR_SET,
    AST_EXPR_LIST_COMP,
    AST_EXPR_SET_COMP,
    AST_EXPR_DICT_COMP,
    AST_EXPR_GENERATOR_EXP,
    AST_EXPR_YIELD,
    AST_EXPR_YIELD_FROM,
    AST_EXPR_COMPARE,
    AST_EXPR_CALL,
    AST_EXPR_FORMATTED_VALUE,
    AST_EXPR_JOINED_STR,
    AST_EXPR_CONSTANT,
    AST_EXPR_ATTRIBUTE,
    AST_EXPR_SUBSCRIPT,
    AST_EXPR_STARRED,
    AST_EXPR_NAME,
    AST_EXPR_LIST,
    AST_EXPR_TUPLE,
    AST_EXPR_SLICE,
    AST_EXPR_NAMED_EXPR,
    AST_EXPR_AWAIT,
    AST_EXPR__COUNT
} AstExprKind;

/* What a Constant holds.  Ints are 64-bit in Ember: a literal that does not fit is
 * AST_CONST_BIG_INT with its value as decimal digits, for the compiler to raise
 * OverflowError. */
typedef enum AstConstantType {
    AST_CONST_NONE = 1,
    AST_CONST_BOOL,
    AST_CONST_ELLIPSIS,
    AST_CONST_INT,
    AST_CONST_BIG_INT,
    AST_CONST_FLOAT,
    AST_CONST_COMPLEX,   /* an imaginary literal (re 0, imaginary part in f) or a tree's complex */
    AST_CONST_STR,
    AST_CONST_BYTES,
} AstConstantType;

typedef struct AstBytes {
    const char *data; /* NUL-terminated, but may contain NUL: use len */
    size_t len;
} AstBytes;

typedef struct AstConstant {
    AstConstantType type;
    bool b;      /* AST_CONST_BOOL */
    int64_t i;   /* AST_CONST_INT (literals are never negative) */
    double f;    /* AST_CONST_FLOAT, AST_CONST_COMPLEX (the imaginary part) */
    double re;   /* AST_CONST_COMPLEX: the real part (0 for a literal; a tree built in Python may set it) */
    AstBytes s;  /* AST_CONST_STR (UTF-8), AST_CONST_BYTES, AST_CONST_BIG_INT (decimal digits) */
} AstConstant;

/* ---- sequences ---- */

typedef struct AstExpr AstExpr;
typedef struct AstStmt AstStmt;
typedef struct AstArg AstArg;
typedef struct AstArguments AstArguments;
typedef struct AstKeyword AstKeyword;
typedef struct AstAlias AstAlias;
typedef struct AstComprehension AstComprehension;
typedef struct AstExceptHandler AstExceptHandler;
typedef struct AstWithItem AstWithItem;
typedef struct AstPattern AstPattern;
typedef struct AstMatchCase AstMatchCase;

typedef struct AstExprSeq { AstExpr **items; size_t count; } AstExprSeq;
typedef struct AstStmtSeq { AstStmt **items; size_t count; } AstStmtSeq;
typedef struct AstArgSeq { AstArg **items; size_t count; } AstArgSeq;
typedef struct AstKeywordSeq { AstKeyword **items; size_t count; } AstKeywordSeq;
typedef struct AstAliasSeq { AstAlias **items; size_t count; } AstAliasSeq;
typedef struct AstComprehensionSeq { AstComprehension **items; size_t count; } AstComprehensionSeq;
typedef struct AstExceptHandlerSeq { AstExceptHandler **items; size_t count; } AstExceptHandlerSeq;
typedef struct AstWithItemSeq { AstWithItem **items; size_t count; } AstWithItemSeq;
typedef struct AstPatternSeq { AstPattern **items; size_t count; } AstPatternSeq;
typedef struct AstMatchCaseSeq { AstMatchCase **items; size_t count; } AstMatchCaseSeq;
typedef struct AstIdentSeq { const char **items; size_t count; } AstIdentSeq;
typedef struct AstCmpOpSeq { AstCmpOp *items; size_t count; } AstCmpOpSeq;

/* ---- nodes ---- */

#define AST_POSITION_FIELDS int lineno, col_offset, end_lineno, end_col_offset

struct AstExpr {
    AstExprKind kind;
    AST_POSITION_FIELDS;
    union {
        struct { AstBoolOp op; AstExprSeq values; } BoolOp;
        struct { AstExpr *left; AstOperator op; AstExpr *right; } BinOp;
        struct { AstUnaryOp op; AstExpr *operand; } UnaryOp;
        struct { AstArguments *args; AstExpr *body; } Lambda;
        struct { AstExpr *test; AstExpr *body; AstExpr *orelse; } IfExp;
        struct { AstExprSeq keys; AstExprSeq values; } Dict; /* a NULL key is `**value` */
        struct { AstExprSeq elts; } Set;
        struct { AstExpr *elt; AstComprehensionSeq generators; } ListComp;
        struct { AstExpr *elt; AstComprehensionSeq generators; } SetComp;
        struct { AstExpr *key; AstExpr *value; AstComprehensionSeq generators; } DictComp;
        struct { AstExpr *elt; AstComprehensionSeq generators; } GeneratorExp;
        struct { AstExpr *value; } Yield; /* value may be NULL */
        struct { AstExpr *value; } YieldFrom;
        struct { AstExpr *left; AstCmpOpSeq ops; AstExprSeq comparators; } Compare;
        struct { AstExpr *func; AstExprSeq args; AstKeywordSeq keywords; } Call;
        /* conversion: -1, 's', 'r' or 'a'; format_spec: a JoinedStr or NULL */
        struct { AstExpr *value; int conversion; AstExpr *format_spec; } FormattedValue;
        struct { AstExprSeq values; } JoinedStr;
        /* kind is "u" for a u-prefixed string, else NULL (CPython's Constant.kind) */
        struct { AstConstant value; const char *kind; } Constant;
        struct { AstExpr *value; const char *attr; AstExprContext ctx; } Attribute;
        struct { AstExpr *value; AstExpr *slice; AstExprContext ctx; } Subscript;
        struct { AstExpr *value; AstExprContext ctx; } Starred;
        struct { const char *id; AstExprContext ctx; } Name;
        struct { AstExprSeq elts; AstExprContext ctx; } List;
        struct { AstExprSeq elts; AstExprContext ctx; } Tuple;
        struct { AstExpr *lower; AstExpr *upper; AstExpr *step; } Slice; /* each may be NULL */
        struct { AstExpr *target; AstExpr *value; } NamedExpr;
        struct { AstExpr *value; } Await;
    } v;
};

struct AstStmt {
    AstStmtKind kind;
    AST_POSITION_FIELDS;
    union {
        struct {
            const char *name;
            AstArguments *args;
            AstStmtSeq body;
            AstExprSeq decorator_list;
            AstExpr *returns; /* may be NULL */
        } FunctionDef;
        struct {
            const char *name;
            AstExprSeq bases;
            AstKeywordSeq keywords;
            AstStmtSeq body;
            AstExprSeq decorator_list;
        } ClassDef;
        struct { AstExpr *value; } Return; /* value may be NULL */
        struct { AstExprSeq targets; } Delete;
        struct { AstExprSeq targets; AstExpr *value; } Assign;
        struct { AstExpr *target; AstOperator op; AstExpr *value; } AugAssign;
        /* simple is 1 for a bare name target not in parentheses */
        struct { AstExpr *target; AstExpr *annotation; AstExpr *value; int simple; } AnnAssign;
        struct { AstExpr *target; AstExpr *iter; AstStmtSeq body; AstStmtSeq orelse; } For;
        struct { AstExpr *test; AstStmtSeq body; AstStmtSeq orelse; } While;
        struct { AstExpr *test; AstStmtSeq body; AstStmtSeq orelse; } If;
        struct { AstWithItemSeq items; AstStmtSeq body; } With;
        struct { AstExpr *exc; AstExpr *cause; } Raise; /* both may be NULL */
        struct {
            AstStmtSeq body;
            AstExceptHandlerSeq handlers;
            AstStmtSeq orelse;
            AstStmtSeq finalbody;
        } Try;
        struct { AstExpr *test; AstExpr *msg; } Assert; /* msg may be NULL */
        struct { AstAliasSeq names; } Import;
        /* module is NULL for `from . import x`; level counts the leading dots */
        struct { const char *module; AstAliasSeq names; int level; } ImportFrom;
        struct { AstIdentSeq names; } Global;
        struct { AstIdentSeq names; } Nonlocal;
        struct { AstExpr *value; } Expr;
        struct { AstExpr *subject; AstMatchCaseSeq cases; } Match;
    } v;
};

/* ---- patterns (match statements) ---- */

typedef enum AstPatternKind {
    AST_PAT_MATCH_VALUE = 1,
    AST_PAT_MATCH_SINGLETON,
    AST_PAT_MATCH_SEQUENCE,
    AST_PAT_MATCH_MAPPING,
    AST_PAT_MATCH_CLASS,
    AST_PAT_MATCH_STAR,
    AST_PAT_MATCH_AS,
    AST_PAT_MATCH_OR,
    AST_PAT__COUNT
} AstPatternKind;

struct AstPattern {
    AstPatternKind kind;
    AST_POSITION_FIELDS;
    union {
        struct { AstExpr *value; } MatchValue;         /* a literal or a dotted name */
        struct { AstConstant value; } MatchSingleton; /* None, True or False */
        struct { AstPatternSeq patterns; } MatchSequence;
        /* rest is the name of `**rest`, or NULL */
        struct { AstExprSeq keys; AstPatternSeq patterns; const char *rest; } MatchMapping;
        struct {
            AstExpr *cls;
            AstPatternSeq patterns;
            AstIdentSeq kwd_attrs;
            AstPatternSeq kwd_patterns;
        } MatchClass;
        struct { const char *name; } MatchStar;                  /* name NULL for `*_` */
        struct { AstPattern *pattern; const char *name; } MatchAs; /* both NULL for `_` */
        struct { AstPatternSeq patterns; } MatchOr;
    } v;
};

struct AstMatchCase {
    AstPattern *pattern;
    AstExpr *guard; /* may be NULL */
    AstStmtSeq body;
};

struct AstArg {
    const char *arg;     /* the parameter name (CPython's field is called `arg`) */
    AstExpr *annotation; /* may be NULL */
    AST_POSITION_FIELDS;
};

struct AstArguments {
    AstArgSeq posonlyargs;
    AstArgSeq args;
    AstArg *vararg; /* may be NULL */
    AstArgSeq kwonlyargs;
    AstExprSeq kw_defaults; /* one per kwonlyarg; NULL where there is no default */
    AstArg *kwarg;          /* may be NULL */
    AstExprSeq defaults;    /* for the last defaults.count of posonlyargs + args */
};

struct AstKeyword {
    const char *arg; /* NULL for `**value` */
    AstExpr *value;
    AST_POSITION_FIELDS;
};

struct AstAlias {
    const char *name;   /* dotted name, or "*" */
    const char *asname; /* may be NULL */
    AST_POSITION_FIELDS;
};

struct AstComprehension {
    AstExpr *target;
    AstExpr *iter;
    AstExprSeq ifs;
    int is_async; /* `async for` */
};

struct AstExceptHandler {
    AstExpr *type;    /* may be NULL */
    const char *name; /* may be NULL */
    AstStmtSeq body;
    AST_POSITION_FIELDS;
};

struct AstWithItem {
    AstExpr *context_expr;
    AstExpr *optional_vars; /* may be NULL */
};

/* What ast.parse returns for each compile() mode. */
typedef enum AstModKind {
    AST_MOD_MODULE = 1,   /* 'exec' */
    AST_MOD_INTERACTIVE,  /* 'single' */
    AST_MOD_EXPRESSION,   /* 'eval' */
    AST_MOD_FUNCTION_TYPE /* 'func_type' (a PEP 484 signature type comment) */
} AstModKind;

typedef struct AstModule {
    AstModKind kind;
    AstStmtSeq body;     /* Module, Interactive; type_ignores is always empty */
    AstExpr *expr;       /* Expression: its body; FunctionType: the return type */
    AstExprSeq argtypes; /* FunctionType */
} AstModule;

/* ---- construction (used by the parser) ---- */

AstExpr *ast_expr_new(AstArena *arena, AstExprKind kind);
AstStmt *ast_stmt_new(AstArena *arena, AstStmtKind kind);
AstPattern *ast_pattern_new(AstArena *arena, AstPatternKind kind);

/* ---- debugging and tests ---- */

/* Exactly what CPython 3.11's ast.dump(node, include_attributes=...) prints for the same
 * tree (no indent).  Malloc'd, no trailing newline; NULL when out of memory. */
char *ast_dump(const AstModule *mod, bool include_attributes);
char *ast_dump_expr(const AstExpr *e, bool include_attributes);
char *ast_dump_stmt(const AstStmt *s, bool include_attributes);

/* An expression as CPython 3.11's unparser writes it (the string an annotation becomes under
 * `from __future__ import annotations`).  Malloc'd; NULL when out of memory. */
char *ast_unparse_expr(const AstExpr *e);

/* CPython class names: "FunctionDef", "BinOp", "Add", "Load", ... */
const char *ast_stmt_kind_name(AstStmtKind kind);
const char *ast_expr_kind_name(AstExprKind kind);
const char *ast_operator_name(AstOperator op);
const char *ast_unaryop_name(AstUnaryOp op);
const char *ast_cmpop_name(AstCmpOp op);
const char *ast_boolop_name(AstBoolOp op);
const char *ast_context_name(AstExprContext ctx);
const char *ast_pattern_kind_name(AstPatternKind kind);

/* repr() of a str / bytes / float value, as CPython prints it; malloc'd. */
char *ast_repr_str(const char *s, size_t len);
char *ast_repr_bytes(const char *s, size_t len);
char *ast_repr_float(double d);
char *ast_repr_complex(double re, double im);

#endif
