/* ast.c — the AST arena (a bump allocator freed in one call), node constructors, and the
 * CPython class names of node kinds and operators. */
#include "src/frontend/ast.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (64 * 1024)

typedef struct ArenaChunk {
    struct ArenaChunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} ArenaChunk;

struct AstArena {
    ArenaChunk *head;
    size_t total;
};

AstArena *ast_arena_new(void) { return calloc(1, sizeof(AstArena)); }

void ast_arena_free(AstArena *arena) {
    if (!arena) return;
    ArenaChunk *c = arena->head;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void *ast_arena_alloc(AstArena *arena, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    ArenaChunk *c = arena->head;
    if (!c || c->size - c->used < size) {
        size_t csize = size > ARENA_CHUNK / 2 ? size : ARENA_CHUNK;
        ArenaChunk *n = malloc(sizeof *n + csize);
        if (!n) return NULL;
        n->size = csize;
        n->used = 0;
        if (c && size > ARENA_CHUNK / 2) { /* big block: keep the current chunk in front */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            arena->head = n;
        }
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    arena->total += size;
    memset(p, 0, size);
    return p;
}

char *ast_arena_strndup(AstArena *arena, const char *s, size_t len) {
    char *d = ast_arena_alloc(arena, len + 1);
    if (!d) return NULL;
    if (len) memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

size_t ast_arena_bytes_used(const AstArena *arena) { return arena->total; }

AstExpr *ast_expr_new(AstArena *arena, AstExprKind kind) {
    AstExpr *e = ast_arena_alloc(arena, sizeof *e);
    if (e) e->kind = kind;
    return e;
}

AstPattern *ast_pattern_new(AstArena *arena, AstPatternKind kind) {
    AstPattern *p = ast_arena_alloc(arena, sizeof *p);
    if (p) p->kind = kind;
    return p;
}

AstStmt *ast_stmt_new(AstArena *arena, AstStmtKind kind) {
    AstStmt *s = ast_arena_alloc(arena, sizeof *s);
    if (s) s->kind = kind;
    return s;
}

const char *ast_stmt_kind_name(AstStmtKind kind) {
    static const char *const names[] = {
        [AST_STMT_FUNCTION_DEF] = "FunctionDef", [AST_STMT_CLASS_DEF] = "ClassDef",
        [AST_STMT_RETURN] = "Return",            [AST_STMT_DELETE] = "Delete",
        [AST_STMT_ASSIGN] = "Assign",            [AST_STMT_AUG_ASSIGN] = "AugAssign",
        [AST_STMT_ANN_ASSIGN] = "AnnAssign",     [AST_STMT_FOR] = "For",
        [AST_STMT_WHILE] = "While",              [AST_STMT_IF] = "If",
        [AST_STMT_WITH] = "With",                [AST_STMT_RAISE] = "Raise",
        [AST_STMT_TRY] = "Try",                  [AST_STMT_ASSERT] = "Assert",
        [AST_STMT_IMPORT] = "Import",            [AST_STMT_IMPORT_FROM] = "ImportFrom",
        [AST_STMT_GLOBAL] = "Global",            [AST_STMT_NONLOCAL] = "Nonlocal",
        [AST_STMT_EXPR] = "Expr",                [AST_STMT_PASS] = "Pass",
        [AST_STMT_BREAK] = "Break",              [AST_STMT_CONTINUE] = "Continue",
        [AST_STMT_ASYNC_FUNCTION_DEF] = "AsyncFunctionDef", [AST_STMT_ASYNC_FOR] = "AsyncFor",
        [AST_STMT_ASYNC_WITH] = "AsyncWith",     [AST_STMT_MATCH] = "Match",
    };
    return (unsigned)kind < AST_STMT__COUNT && names[kind] ? names[kind] : "?";
}

const char *ast_expr_kind_name(AstExprKind kind) {
    static const char *const names[] = {
        [AST_EXPR_BOOL_OP] = "BoolOp",         [AST_EXPR_BIN_OP] = "BinOp",
        [AST_EXPR_UNARY_OP] = "UnaryOp",       [AST_EXPR_LAMBDA] = "Lambda",
        [AST_EXPR_IF_EXP] = "IfExp",           [AST_EXPR_DICT] = "Dict",
        [AST_EXPR_SET] = "Set",                [AST_EXPR_LIST_COMP] = "ListComp",
        [AST_EXPR_SET_COMP] = "SetComp",       [AST_EXPR_DICT_COMP] = "DictComp",
        [AST_EXPR_GENERATOR_EXP] = "GeneratorExp", [AST_EXPR_YIELD] = "Yield",
        [AST_EXPR_YIELD_FROM] = "YieldFrom",   [AST_EXPR_COMPARE] = "Compare",
        [AST_EXPR_CALL] = "Call",              [AST_EXPR_FORMATTED_VALUE] = "FormattedValue",
        [AST_EXPR_JOINED_STR] = "JoinedStr",   [AST_EXPR_CONSTANT] = "Constant",
        [AST_EXPR_ATTRIBUTE] = "Attribute",    [AST_EXPR_SUBSCRIPT] = "Subscript",
        [AST_EXPR_STARRED] = "Starred",        [AST_EXPR_NAME] = "Name",
        [AST_EXPR_LIST] = "List",              [AST_EXPR_TUPLE] = "Tuple",
        [AST_EXPR_SLICE] = "Slice",            [AST_EXPR_NAMED_EXPR] = "NamedExpr",
        [AST_EXPR_AWAIT] = "Await",
    };
    return (unsigned)kind < AST_EXPR__COUNT && names[kind] ? names[kind] : "?";
}

const char *ast_pattern_kind_name(AstPatternKind kind) {
    static const char *const names[] = {
        [AST_PAT_MATCH_VALUE] = "MatchValue",       [AST_PAT_MATCH_SINGLETON] = "MatchSingleton",
        [AST_PAT_MATCH_SEQUENCE] = "MatchSequence", [AST_PAT_MATCH_MAPPING] = "MatchMapping",
        [AST_PAT_MATCH_CLASS] = "MatchClass",       [AST_PAT_MATCH_STAR] = "MatchStar",
        [AST_PAT_MATCH_AS] = "MatchAs",             [AST_PAT_MATCH_OR] = "MatchOr",
    };
    return (unsigned)kind < AST_PAT__COUNT && names[kind] ? names[kind] : "?";
}

const char *ast_operator_name(AstOperator op) {
    static const char *const names[] = {
        [AST_ADD] = "Add",       [AST_SUB] = "Sub",       [AST_MULT] = "Mult",
        [AST_MAT_MULT] = "MatMult", [AST_DIV] = "Div",    [AST_MOD] = "Mod",
        [AST_POW] = "Pow",       [AST_LSHIFT] = "LShift", [AST_RSHIFT] = "RShift",
        [AST_BIT_OR] = "BitOr",  [AST_BIT_XOR] = "BitXor", [AST_BIT_AND] = "BitAnd",
        [AST_FLOOR_DIV] = "FloorDiv",
    };
    return (unsigned)op <= AST_FLOOR_DIV && names[op] ? names[op] : "?";
}

const char *ast_unaryop_name(AstUnaryOp op) {
    static const char *const names[] = {
        [AST_INVERT] = "Invert", [AST_NOT] = "Not", [AST_UADD] = "UAdd", [AST_USUB] = "USub"};
    return (unsigned)op <= AST_USUB && names[op] ? names[op] : "?";
}

const char *ast_cmpop_name(AstCmpOp op) {
    static const char *const names[] = {
        [AST_EQ] = "Eq", [AST_NOT_EQ] = "NotEq", [AST_LT] = "Lt",      [AST_LTE] = "LtE",
        [AST_GT] = "Gt", [AST_GTE] = "GtE",      [AST_IS] = "Is",      [AST_IS_NOT] = "IsNot",
        [AST_IN] = "In", [AST_NOT_IN] = "NotIn",
    };
    return (unsigned)op <= AST_NOT_IN && names[op] ? names[op] : "?";
}

const char *ast_boolop_name(AstBoolOp op) { return op == AST_AND ? "And" : "Or"; }

const char *ast_context_name(AstExprContext ctx) {
    return ctx == AST_STORE ? "Store" : ctx == AST_DEL ? "Del" : "Load";
}
