/* parser_internal.h — state and helpers shared by the parser's files (not a public API).
 *
 * Ember's parser is a hand-written PEG parser that follows CPython 3.11's
 * Grammar/python.gram rule by rule, because CPython's *error messages* are defined by that
 * grammar: a first pass without the invalid_* rules, and on failure a second pass with
 * them, whose first specialised error wins (else "invalid syntax" at the furthest token
 * the first pass looked at).  Each rule function carries its grammar rule in a comment.
 *
 * Conventions of rule functions (as in CPython's generated parser):
 *   - RULE_ENTER checks the recursion limit and a pending error; every exit goes through
 *     RULE_LEAVE so the depth stays balanced.
 *   - A rule returns NULL on failure with p->mark restored; after an error was raised
 *     (p->error_indicator) everything returns NULL up to the driver.
 *   - Tokens are "fetched" when first looked at (p->fill), which is what CPython's error
 *     locations are based on; reaching the lexer's ERRORTOKEN raises the lexer's error.
 *   - Memoised rules cache (position, rule) -> (result, end position), success or failure;
 *     left-recursive rules are loops, memoised too. */
#ifndef EMBER_FRONTEND_PARSER_INTERNAL_H
#define EMBER_FRONTEND_PARSER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/frontend/ast.h"
#include "src/frontend/errors.h"
#include "src/frontend/lexer.h"

#define PARSE_MAXSTACK 6000

/* Rule ids for the memo table. */
typedef enum MemoRule {
    MEMO_SIMPLE_STMT = 1,
    MEMO_BLOCK,
    MEMO_STAR_TARGET,
    MEMO_TARGET_WITH_STAR_ATOM,
    MEMO_DEL_TARGET,
    MEMO_EXPRESSION,
    MEMO_STAR_EXPRESSION,
    MEMO_DISJUNCTION,
    MEMO_CONJUNCTION,
    MEMO_INVERSION,
    MEMO_BITWISE_OR,
    MEMO_BITWISE_XOR,
    MEMO_BITWISE_AND,
    MEMO_SHIFT_EXPR,
    MEMO_SUM,
    MEMO_TERM,
    MEMO_FACTOR,
    MEMO_PRIMARY,
    MEMO_T_PRIMARY,
    MEMO_STRINGS,
    MEMO_ARGUMENTS,
    MEMO_DOTTED_NAME,
    MEMO_INVALID_NAMED_EXPRESSION,
    MEMO_CLOSED_PATTERN,
    MEMO_STAR_PATTERN,
} MemoRule;

typedef struct MemoEntry {
    uint32_t mark;  /* position + 1 */
    uint32_t rule;
    uint32_t gen;   /* entries of an older generation are empty slots */
    size_t end;
    void *result;
} MemoEntry;

/* The error raised by a parse attempt (CPython's pending SyntaxError). */
typedef struct PendingError {
    ParseErrorKind kind;
    char *message;
    int lineno, col_offset, end_lineno, end_col_offset;
    char *text;     /* line to display (malloc'd) */
    size_t text_len;
    bool from_tokenizer; /* the tokenizer's own error (p->tok->done != E_OK in CPython) */
} PendingError;

/* A growable array of pointers living in the arena (abandoned arrays stay in the arena). */
typedef struct PVec {
    void **items;
    size_t count, cap;
} PVec;

typedef struct Parser {
    Lexer *lx;
    const Token *tokens;
    size_t ntokens;
    size_t mark; /* current position */
    size_t fill; /* tokens fetched so far */
    AstArena *arena;
    int level;
    bool error_indicator;
    bool call_invalid_rules;
    PendingError err;
    bool has_err;
    MemoEntry *memo;
    size_t memo_cap, memo_count;
    uint32_t memo_gen; /* clearing the memo starts a new generation */
    const Token *known_err_token;
    /* f-string sub-parser: errors get "f-string: " and columns relative to the sub-source */
    bool fstring_mode;
    int starting_lineno, starting_col_offset;
    const char *filename;
    int fstring_depth; /* nesting of f-string sub-parsers (bounds recursion) */
    bool recovering;   /* collecting secondary errors after the first */
    AstModule *(*start_rule)(struct Parser *p); /* the mode's rule: file, eval, interactive, func_type */
} Parser;

/* Bracket-free representation of intermediate grammar results (CPython's helper structs). */
typedef struct KeyValuePair { AstExpr *key; AstExpr *value; } KeyValuePair;
typedef struct NameDefaultPair { AstArg *arg; AstExpr *value; } NameDefaultPair;
typedef struct SlashWithDefault { PVec plain_names; PVec names_with_defaults; } SlashWithDefault;
typedef struct StarEtc { AstArg *vararg; PVec kwonlyargs; AstArg *kwarg; } StarEtc;
typedef struct KeywordOrStarred { void *element; bool is_keyword; } KeywordOrStarred;

typedef struct Extra { int lineno, col_offset, end_lineno, end_col_offset; } Extra;

typedef enum TargetsType { STAR_TARGETS, DEL_TARGETS, FOR_TARGETS } TargetsType;

/* ---- rule entry/exit ---- */

void parse_stack_overflow(Parser *p);

#define RULE_ENTER()                                            \
    do {                                                        \
        if (p->level++ == PARSE_MAXSTACK) parse_stack_overflow(p); \
        if (p->error_indicator) {                               \
            p->level--;                                         \
            return NULL;                                        \
        }                                                       \
    } while (0)
#define RULE_LEAVE(x)   \
    do {                \
        p->level--;     \
        return (x);     \
    } while (0)
/* After a failed sub-rule: propagate a raised error. */
#define CHECK_ERR()                       \
    do {                                  \
        if (p->error_indicator) RULE_LEAVE(NULL); \
    } while (0)

/* ---- tokens ---- */

bool parse_fill(Parser *p); /* make tokens[p->mark] available; false after a raised error */
const Token *parse_peek(Parser *p);                  /* NULL only after an error */
const Token *parse_expect(Parser *p, TokenKind kind); /* consume if it matches */
bool parse_check_kind(Parser *p, TokenKind kind);    /* lookahead without consuming */
AstExpr *parse_name_token(Parser *p);                /* NAME -> Name(Load) */
AstExpr *parse_soft_keyword(Parser *p, const char *kw);
const Token *parse_last_token(Parser *p);            /* tokens[fill - 1] */
Extra parse_extra(Parser *p, size_t start_mark);     /* EXTRA of a rule started at start_mark */
Extra parse_extra_tokens(const Token *first, const Token *last);

/* ---- memo ---- */

bool parse_memo_get(Parser *p, MemoRule rule, void **result);
void parse_memo_put(Parser *p, size_t mark, MemoRule rule, void *result);
void parse_memo_clear(Parser *p);

/* ---- errors (CPython's RAISE_* macros) ---- */

void *parse_raise(Parser *p, ParseErrorKind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void *parse_raise_known(Parser *p, ParseErrorKind kind, int lineno, int col, int end_lineno,
                        int end_col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
#define PARSE_CURRENT_POS (-5)
#define RAISE_SYNTAX_ERROR(...) parse_raise(p, PARSE_SYNTAX_ERROR, __VA_ARGS__)
#define RAISE_INDENTATION_ERROR(...) parse_raise(p, PARSE_INDENTATION_ERROR, __VA_ARGS__)
#define RAISE_AT(a, ...)                                                                \
    parse_raise_known(p, PARSE_SYNTAX_ERROR, (a)->lineno, (a)->col_offset + 1,          \
                      (a)->end_lineno, (a)->end_col_offset + 1, __VA_ARGS__)
#define RAISE_RANGE(a, b, ...)                                                          \
    parse_raise_known(p, PARSE_SYNTAX_ERROR, (a)->lineno, (a)->col_offset + 1,          \
                      (b)->end_lineno, (b)->end_col_offset + 1, __VA_ARGS__)
#define RAISE_STARTING_FROM(a, ...)                                                     \
    parse_raise_known(p, PARSE_SYNTAX_ERROR, (a)->lineno, (a)->col_offset + 1,          \
                      PARSE_CURRENT_POS, PARSE_CURRENT_POS, __VA_ARGS__)
void *parse_raise_invalid_target(Parser *p, TargetsType type, AstExpr *e);
void parse_raise_lexer_error(Parser *p);

/* ---- arena helpers ---- */

bool pvec_push(Parser *p, PVec *v, void *item);
void *parse_alloc(Parser *p, size_t size); /* raises MemoryError-like error on failure */
const char *parse_strdup(Parser *p, const char *s, size_t len);
#define SEQ(T, v) ((T){(void *)(v).items, (v).count})

/* ---- node construction ---- */

AstExpr *parse_expr_new(Parser *p, AstExprKind kind, Extra x);
AstStmt *parse_stmt_new(Parser *p, AstStmtKind kind, Extra x);
AstExpr *parse_set_expr_context(Parser *p, AstExpr *e, AstExprContext ctx);
const char *parse_expr_name(const AstExpr *e);
AstExpr *parse_get_invalid_target(AstExpr *e, TargetsType type);
bool parse_is_legacy_stmt(const AstExpr *name);
AstArguments *parse_empty_arguments(Parser *p);
AstArguments *parse_make_arguments(Parser *p, PVec *slash_without_default,
                                   SlashWithDefault *slash_with_default, PVec *plain_names,
                                   PVec *names_with_default, StarEtc *star_etc);
AstExpr *parse_last_comprehension_item(AstComprehension *c);

/* ---- rules used across files ---- */

/* parse_stmt.c */
AstModule *parse_file_rule(Parser *p);
AstModule *parse_eval_rule(Parser *p);
AstModule *parse_interactive_rule(Parser *p);
AstModule *parse_func_type_rule(Parser *p);
void *parse_statement_rule(Parser *p); /* PVec* of statements */
AstStmtSeq *parse_block_rule(Parser *p);
AstArguments *parse_params_rule(Parser *p);
AstArguments *parse_lambda_params_rule(Parser *p);
/* parse_expr.c */
AstExpr *parse_expression_rule(Parser *p);
AstExpr *parse_expressions_rule(Parser *p);
AstExpr *parse_star_expressions_rule(Parser *p);
AstExpr *parse_star_expression_rule(Parser *p);
AstExpr *parse_star_named_expression_rule(Parser *p);
PVec *parse_star_named_expressions_rule(Parser *p);
AstExpr *parse_named_expression_rule(Parser *p);
AstExpr *parse_assignment_expression_rule(Parser *p);
AstExpr *parse_disjunction_rule(Parser *p);
AstExpr *parse_bitwise_or_rule(Parser *p);
AstExpr *parse_yield_expr_rule(Parser *p);
AstExpr *parse_star_targets_rule(Parser *p);
AstExpr *parse_star_target_rule(Parser *p);
AstExpr *parse_single_target_rule(Parser *p);
AstExpr *parse_single_subscript_attribute_target_rule(Parser *p);
PVec *parse_del_targets_rule(Parser *p);
AstExpr *parse_t_primary_rule(Parser *p);
AstExpr *parse_slices_rule(Parser *p);
AstExpr *parse_arguments_rule(Parser *p); /* a dummy Call holding args/keywords */
AstExpr *parse_args_rule(Parser *p);
PVec *parse_for_if_clauses_rule(Parser *p);
AstExpr *parse_starred_expression_rule(Parser *p);
AstExpr *parse_genexp_rule(Parser *p);
AstExpr *parse_list_rule(Parser *p);
AstExpr *parse_tuple_rule(Parser *p);
AstExpr *parse_expression_without_invalid_rule(Parser *p);
KeyValuePair *parse_kvpair_rule(Parser *p);
KeyValuePair *parse_double_starred_kvpair_rule(Parser *p);
PVec *parse_kwargs_rule(Parser *p);
AstExpr *parse_lambdef_rule(Parser *p);
AstExpr *parse_strings_rule(Parser *p);
AstExpr *parse_number_token(Parser *p);
/* parse_invalid.c: invalid_* rules, called only when p->call_invalid_rules */
void *parse_invalid_arguments(Parser *p);
void *parse_invalid_kwarg(Parser *p);
void *parse_invalid_legacy_expression(Parser *p);
void *parse_invalid_expression(Parser *p);
void *parse_invalid_named_expression(Parser *p);
void *parse_invalid_assignment(Parser *p);
void *parse_invalid_del_stmt(Parser *p);
void *parse_invalid_block(Parser *p);
void *parse_invalid_comprehension(Parser *p);
void *parse_invalid_dict_comprehension(Parser *p);
void *parse_invalid_parameters(Parser *p);
void *parse_invalid_default(Parser *p);
void *parse_invalid_star_etc(Parser *p);
void *parse_invalid_kwds(Parser *p);
void *parse_invalid_lambda_parameters(Parser *p);
void *parse_invalid_lambda_star_etc(Parser *p);
void *parse_invalid_lambda_kwds(Parser *p);
void *parse_invalid_with_item(Parser *p);
void *parse_invalid_for_target(Parser *p);
void *parse_invalid_group(Parser *p);
void *parse_invalid_import_from_targets(Parser *p);
void *parse_invalid_with_stmt(Parser *p);
void *parse_invalid_with_stmt_indent(Parser *p);
void *parse_invalid_try_stmt(Parser *p);
void *parse_invalid_except_stmt(Parser *p);
void *parse_invalid_finally_stmt(Parser *p);
void *parse_invalid_except_stmt_indent(Parser *p);
void *parse_invalid_match_stmt(Parser *p);
void *parse_invalid_if_stmt(Parser *p);
void *parse_invalid_elif_stmt(Parser *p);
void *parse_invalid_else_stmt(Parser *p);
void *parse_invalid_while_stmt(Parser *p);
void *parse_invalid_for_stmt(Parser *p);
void *parse_invalid_def_raw(Parser *p);
void *parse_invalid_class_def_raw(Parser *p);
void *parse_invalid_double_starred_kvpairs(Parser *p);
void *parse_invalid_kvpair(Parser *p);
/* param helpers shared with parse_invalid.c (parse_stmt.c) */
AstArg *parse_param_no_default(Parser *p, bool lambda);
NameDefaultPair *parse_param_with_default(Parser *p, bool lambda);
NameDefaultPair *parse_param_maybe_default(Parser *p, bool lambda);
AstArg *parse_param(Parser *p, bool lambda);
PVec *parse_slash_no_default(Parser *p, bool lambda);
SlashWithDefault *parse_slash_with_default(Parser *p, bool lambda);
PVec *parse_import_from_as_names(Parser *p);
AstExpr *parse_subject_expr(Parser *p);
/* parse_pattern.c */
AstStmt *parse_match_stmt_rule(Parser *p);
/* parse_string.c */
AstExpr *parse_concatenate_strings(Parser *p, const Token **toks, size_t n);

#endif
