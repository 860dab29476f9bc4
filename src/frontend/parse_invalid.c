/* parse_invalid.c — the invalid_* rules of Grammar/python.gram (3.11): tried only in the
 * second pass, each recognises one common mistake and raises CPython's message for it.
 * A rule that does not match restores nothing itself: its caller resets the position. */
#include <string.h>

#include "src/frontend/parser_internal.h"

#define MARK() size_t mark_ = p->mark
#define RESET() (p->mark = mark_)
#define FAIL_IF_ERR()                        \
    do {                                     \
        if (p->error_indicator) RULE_LEAVE(NULL); \
    } while (0)

static const char *const MAYBE_EQ = "invalid syntax. Maybe you meant '==' or ':=' instead of '='?";

static bool at(Parser *p, TokenKind k) { return parse_check_kind(p, k); }

/* Consumes a run of param_no_default (or maybe_default) parameters. */
static void skip_params(Parser *p, bool lambda, bool maybe_default) {
    for (;;) {
        void *r = maybe_default ? (void *)parse_param_maybe_default(p, lambda)
                                : (void *)parse_param_no_default(p, lambda);
        if (!r) return;
    }
}

static const Token *token(Parser *p, TokenKind k) { return parse_expect(p, k); }

/* ---- calls ---- */

/* invalid_arguments:
 *     | args ',' '*'
 *     | expression for_if_clauses ',' [args | expression for_if_clauses]
 *     | NAME '=' expression for_if_clauses
 *     | args for_if_clauses
 *     | args ',' expression for_if_clauses
 *     | args ',' args */
void *parse_invalid_arguments(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a, *b;
    PVec *c;
    const Token *t;
    if ((a = parse_args_rule(p)) && token(p, TOK_COMMA) && (t = token(p, TOK_STAR)))
        RULE_LEAVE(RAISE_AT(t, "iterable argument unpacking follows keyword argument unpacking"));
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_expression_rule(p)) && (c = parse_for_if_clauses_rule(p)) && token(p, TOK_COMMA)) {
        size_t m = p->mark;
        if (!parse_args_rule(p)) {
            FAIL_IF_ERR();
            p->mark = m;
            if (!(parse_expression_rule(p) && parse_for_if_clauses_rule(p))) p->mark = m;
        }
        FAIL_IF_ERR();
        AstComprehension *last = c->items[c->count - 1];
        RULE_LEAVE(RAISE_RANGE(a, parse_last_comprehension_item(last),
                               "Generator expression must be parenthesized"));
    }
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_name_token(p)) && (t = token(p, TOK_EQUAL)) && parse_expression_rule(p) &&
        parse_for_if_clauses_rule(p))
        RULE_LEAVE(RAISE_RANGE(a, t, "%s", MAYBE_EQ));
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_args_rule(p)) && (c = parse_for_if_clauses_rule(p))) {
        /* _PyPegen_nonparen_genexp_in_call */
        size_t n = a->v.Call.args.count;
        if (n <= 1) RULE_LEAVE(NULL);
        AstComprehension *last = c->items[c->count - 1];
        RULE_LEAVE(RAISE_RANGE(a->v.Call.args.items[n - 1], parse_last_comprehension_item(last),
                               "Generator expression must be parenthesized"));
    }
    FAIL_IF_ERR();
    RESET();
    if (parse_args_rule(p) && token(p, TOK_COMMA) && (b = parse_expression_rule(p)) &&
        (c = parse_for_if_clauses_rule(p))) {
        AstComprehension *last = c->items[c->count - 1];
        RULE_LEAVE(RAISE_RANGE(b, parse_last_comprehension_item(last),
                               "Generator expression must be parenthesized"));
    }
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_args_rule(p)) && token(p, TOK_COMMA) && parse_args_rule(p)) {
        /* _PyPegen_arguments_parsing_error */
        bool unpacking = false;
        for (size_t i = 0; i < a->v.Call.keywords.count; i++)
            if (!a->v.Call.keywords.items[i]->arg) unpacking = true;
        RULE_LEAVE(RAISE_SYNTAX_ERROR(unpacking
                                          ? "positional argument follows keyword argument unpacking"
                                          : "positional argument follows keyword argument"));
    }
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_kwarg:
 *     | ('True'|'False'|'None') '='
 *     | NAME '=' expression for_if_clauses
 *     | !(NAME '=') expression '=' */
void *parse_invalid_kwarg(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *a = parse_peek(p), *b;
    FAIL_IF_ERR();
    if (a && (a->kind == TOK_KW_TRUE || a->kind == TOK_KW_FALSE || a->kind == TOK_KW_NONE)) {
        p->mark++;
        if ((b = token(p, TOK_EQUAL)))
            RULE_LEAVE(RAISE_RANGE(a, b, "cannot assign to %.*s", (int)a->len, a->start));
        FAIL_IF_ERR();
        RESET();
    }
    AstExpr *n;
    if ((n = parse_name_token(p)) && (b = token(p, TOK_EQUAL)) && parse_expression_rule(p) &&
        parse_for_if_clauses_rule(p))
        RULE_LEAVE(RAISE_RANGE(n, b, "%s", MAYBE_EQ));
    FAIL_IF_ERR();
    RESET();
    bool name_eq = parse_name_token(p) && at(p, TOK_EQUAL);
    FAIL_IF_ERR();
    RESET();
    if (!name_eq) {
        AstExpr *e = parse_expression_rule(p);
        if (e && (b = token(p, TOK_EQUAL)))
            RULE_LEAVE(RAISE_RANGE(e, b, "expression cannot contain assignment, perhaps you meant \"==\"?"));
        FAIL_IF_ERR();
    }
    RESET();
    RULE_LEAVE(NULL);
}

/* ---- expressions ---- */

/* invalid_legacy_expression: NAME !'(' star_expressions */
void *parse_invalid_legacy_expression(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p), *b;
    if (a && !at(p, TOK_LPAR) && (b = parse_star_expressions_rule(p))) {
        if (parse_is_legacy_stmt(a))
            RULE_LEAVE(RAISE_RANGE(a, b, "Missing parentheses in call to '%s'. Did you mean %s(...)?",
                                   a->v.Name.id, a->v.Name.id));
        RULE_LEAVE(NULL);
    }
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static bool is_soft_keyword(const Token *t) {
    if (t->kind != TOK_NAME) return false;
    return (t->len == 1 && t->start[0] == '_') || (t->len == 4 && !memcmp(t->start, "case", 4)) ||
           (t->len == 5 && !memcmp(t->start, "match", 5));
}

/* invalid_expression:
 *    | !(NAME STRING | SOFT_KEYWORD) disjunction expression_without_invalid
 *    | disjunction 'if' disjunction !('else'|':') */
void *parse_invalid_expression(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    FAIL_IF_ERR();
    bool blocked = false;
    if (t && t->kind == TOK_NAME) {
        p->mark++;
        blocked = at(p, TOK_STRING);
        FAIL_IF_ERR();
        RESET();
    }
    if (t && is_soft_keyword(t)) blocked = true;
    AstExpr *a, *b;
    if (!blocked && (a = parse_disjunction_rule(p)) && (b = parse_expression_without_invalid_rule(p))) {
        if (parse_is_legacy_stmt(a) || p->tokens[p->mark - 1].level == 0) RULE_LEAVE(NULL);
        RULE_LEAVE(RAISE_RANGE(a, b, "invalid syntax. Perhaps you forgot a comma?"));
    }
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_disjunction_rule(p)) && token(p, TOK_KW_IF) && (b = parse_disjunction_rule(p)) &&
        !at(p, TOK_KW_ELSE) && !at(p, TOK_COLON))
        RULE_LEAVE(RAISE_RANGE(a, b, "expected 'else' after 'if' expression"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_named_expression (memo):
 *     | expression ':=' expression
 *     | NAME '=' bitwise_or !('='|':=')
 *     | !(list|tuple|genexp|'True'|'None'|'False') bitwise_or '=' bitwise_or !('='|':=') */
void *parse_invalid_named_expression(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_INVALID_NAMED_EXPRESSION, &memo)) RULE_LEAVE(memo);
    MARK();
    AstExpr *a, *b;
    if ((a = parse_expression_rule(p)) && token(p, TOK_COLONEQUAL) && parse_expression_rule(p))
        RULE_LEAVE(RAISE_AT(a, "cannot use assignment expressions with %s", parse_expr_name(a)));
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_name_token(p)) && token(p, TOK_EQUAL) && (b = parse_bitwise_or_rule(p)) &&
        !at(p, TOK_EQUAL) && !at(p, TOK_COLONEQUAL))
        RULE_LEAVE(RAISE_RANGE(a, b, "%s", MAYBE_EQ));
    FAIL_IF_ERR();
    RESET();
    const Token *t = parse_peek(p);
    FAIL_IF_ERR();
    bool blocked = t && (t->kind == TOK_KW_TRUE || t->kind == TOK_KW_NONE || t->kind == TOK_KW_FALSE);
    if (!blocked) {
        blocked = parse_list_rule(p) != NULL;
        FAIL_IF_ERR();
        RESET();
    }
    if (!blocked) {
        blocked = parse_tuple_rule(p) != NULL;
        FAIL_IF_ERR();
        RESET();
    }
    if (!blocked) {
        blocked = parse_genexp_rule(p) != NULL;
        FAIL_IF_ERR();
        RESET();
    }
    if (!blocked && (a = parse_bitwise_or_rule(p)) && token(p, TOK_EQUAL) && parse_bitwise_or_rule(p) &&
        !at(p, TOK_EQUAL) && !at(p, TOK_COLONEQUAL))
        RULE_LEAVE(RAISE_AT(a, "cannot assign to %s here. Maybe you meant '==' instead of '='?",
                            parse_expr_name(a)));
    FAIL_IF_ERR();
    RESET();
    parse_memo_put(p, mark_, MEMO_INVALID_NAMED_EXPRESSION, NULL);
    RULE_LEAVE(NULL);
}

/* invalid_ann_assign_target: list | tuple | '(' invalid_ann_assign_target ')' */
static AstExpr *invalid_ann_assign_target(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_list_rule(p);
    if (a) RULE_LEAVE(a);
    FAIL_IF_ERR();
    a = parse_tuple_rule(p);
    if (a) RULE_LEAVE(a);
    FAIL_IF_ERR();
    if (token(p, TOK_LPAR) && (a = invalid_ann_assign_target(p)) && token(p, TOK_RPAR)) RULE_LEAVE(a);
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* (star_targets '=')* */
static void skip_star_targets_eq(Parser *p) {
    for (;;) {
        size_t m = p->mark;
        if (!parse_star_targets_rule(p) || !token(p, TOK_EQUAL)) {
            if (!p->error_indicator) p->mark = m;
            return;
        }
    }
}

static bool augassign_token(Parser *p) {
    const Token *t = parse_peek(p);
    if (!t) return false;
    switch (t->kind) {
    case TOK_PLUSEQUAL: case TOK_MINEQUAL: case TOK_STAREQUAL: case TOK_ATEQUAL:
    case TOK_SLASHEQUAL: case TOK_PERCENTEQUAL: case TOK_AMPEREQUAL: case TOK_VBAREQUAL:
    case TOK_CIRCUMFLEXEQUAL: case TOK_LEFTSHIFTEQUAL: case TOK_RIGHTSHIFTEQUAL:
    case TOK_DOUBLESTAREQUAL: case TOK_DOUBLESLASHEQUAL:
        p->mark++;
        return true;
    default: return false;
    }
}

/* invalid_assignment:
 *     | invalid_ann_assign_target ':' expression
 *     | star_named_expression ',' star_named_expressions* ':' expression
 *     | expression ':' expression
 *     | (star_targets '=')* star_expressions '='
 *     | (star_targets '=')* yield_expr '='
 *     | star_expressions augassign (yield_expr | star_expressions) */
void *parse_invalid_assignment(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if ((a = invalid_ann_assign_target(p)) && token(p, TOK_COLON) && parse_expression_rule(p))
        RULE_LEAVE(RAISE_AT(a, "only single target (not %s) can be annotated", parse_expr_name(a)));
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_star_named_expression_rule(p)) && token(p, TOK_COMMA)) {
        for (;;) {
            size_t m = p->mark;
            if (!parse_star_named_expressions_rule(p)) {
                FAIL_IF_ERR();
                p->mark = m;
                break;
            }
        }
        if (token(p, TOK_COLON) && parse_expression_rule(p))
            RULE_LEAVE(RAISE_AT(a, "only single target (not tuple) can be annotated"));
    }
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_expression_rule(p)) && token(p, TOK_COLON) && parse_expression_rule(p))
        RULE_LEAVE(RAISE_AT(a, "illegal target for annotation"));
    FAIL_IF_ERR();
    RESET();
    skip_star_targets_eq(p);
    FAIL_IF_ERR();
    size_t m = p->mark;
    if ((a = parse_star_expressions_rule(p)) && token(p, TOK_EQUAL))
        RULE_LEAVE(parse_raise_invalid_target(p, STAR_TARGETS, a));
    FAIL_IF_ERR();
    p->mark = m;
    if ((a = parse_yield_expr_rule(p)) && token(p, TOK_EQUAL))
        RULE_LEAVE(RAISE_AT(a, "assignment to yield expression not possible"));
    FAIL_IF_ERR();
    RESET();
    if ((a = parse_star_expressions_rule(p)) && augassign_token(p)) {
        size_t m2 = p->mark;
        AstExpr *r = parse_yield_expr_rule(p);
        FAIL_IF_ERR();
        if (!r) {
            p->mark = m2;
            r = parse_star_expressions_rule(p);
        }
        if (r)
            RULE_LEAVE(RAISE_AT(a, "'%s' is an illegal expression for augmented assignment",
                                parse_expr_name(a)));
    }
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_del_stmt: 'del' star_expressions */
void *parse_invalid_del_stmt(Parser *p) {
    RULE_ENTER();
    AstExpr *a;
    if (token(p, TOK_KW_DEL) && (a = parse_star_expressions_rule(p)))
        RULE_LEAVE(parse_raise_invalid_target(p, DEL_TARGETS, a));
    RULE_LEAVE(NULL);
}

/* invalid_block: NEWLINE !INDENT */
void *parse_invalid_block(Parser *p) {
    RULE_ENTER();
    if (token(p, TOK_NEWLINE) && !at(p, TOK_INDENT) && !p->error_indicator)
        RULE_LEAVE(RAISE_INDENTATION_ERROR("expected an indented block"));
    RULE_LEAVE(NULL);
}

/* invalid_comprehension:
 *     | ('[' | '(' | '{') starred_expression for_if_clauses
 *     | ('[' | '{') star_named_expression ',' star_named_expressions for_if_clauses
 *     | ('[' | '{') star_named_expression ',' for_if_clauses */
void *parse_invalid_comprehension(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *open = parse_peek(p);
    FAIL_IF_ERR();
    if (!open || !(open->kind == TOK_LSQB || open->kind == TOK_LPAR || open->kind == TOK_LBRACE))
        RULE_LEAVE(NULL);
    p->mark++;
    AstExpr *a;
    if ((a = parse_starred_expression_rule(p)) && parse_for_if_clauses_rule(p))
        RULE_LEAVE(RAISE_AT(a, "iterable unpacking cannot be used in comprehension"));
    FAIL_IF_ERR();
    if (open->kind == TOK_LPAR) RULE_LEAVE(NULL);
    p->mark = mark_ + 1;
    PVec *b;
    const Token *comma;
    if ((a = parse_star_named_expression_rule(p)) && token(p, TOK_COMMA) &&
        (b = parse_star_named_expressions_rule(p)) && parse_for_if_clauses_rule(p))
        RULE_LEAVE(RAISE_RANGE(a, (AstExpr *)b->items[b->count - 1],
                               "did you forget parentheses around the comprehension target?"));
    FAIL_IF_ERR();
    p->mark = mark_ + 1;
    if ((a = parse_star_named_expression_rule(p)) && (comma = token(p, TOK_COMMA)) &&
        parse_for_if_clauses_rule(p))
        RULE_LEAVE(RAISE_RANGE(a, comma, "did you forget parentheses around the comprehension target?"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_dict_comprehension: '{' '**' bitwise_or for_if_clauses '}' */
void *parse_invalid_dict_comprehension(Parser *p) {
    RULE_ENTER();
    const Token *a;
    if (token(p, TOK_LBRACE) && (a = token(p, TOK_DOUBLESTAR)) && parse_bitwise_or_rule(p) &&
        parse_for_if_clauses_rule(p) && token(p, TOK_RBRACE))
        RULE_LEAVE(RAISE_AT(a, "dict unpacking cannot be used in dict comprehension"));
    RULE_LEAVE(NULL);
}

/* ---- parameters ---- */

/* invalid_parameters_helper: slash_with_default | param_with_default+ */
static bool invalid_parameters_helper(Parser *p, bool lambda) {
    MARK();
    if (parse_slash_with_default(p, lambda)) return true;
    if (p->error_indicator) return false;
    RESET();
    bool any = false;
    while (parse_param_with_default(p, lambda)) any = true;
    if (!any) RESET();
    return any;
}

/* (slash_no_default | slash_with_default) */
static bool any_slash(Parser *p, bool lambda) {
    MARK();
    if (parse_slash_no_default(p, lambda)) return true;
    if (p->error_indicator) return false;
    RESET();
    if (parse_slash_with_default(p, lambda)) return true;
    if (!p->error_indicator) RESET();
    return false;
}

/* (',' | param_no_default) */
static bool comma_or_param(Parser *p, bool lambda) {
    if (token(p, TOK_COMMA)) return true;
    return !p->error_indicator && parse_param_no_default(p, lambda) != NULL;
}

/* The shared alternatives of invalid_parameters and invalid_lambda_parameters. */
static void *invalid_params_common(Parser *p, bool lambda) {
    MARK();
    AstArg *a;
    const Token *t, *b;
    skip_params(p, lambda, false);
    if (invalid_parameters_helper(p, lambda) && (a = parse_param_no_default(p, lambda)))
        return RAISE_AT(a, "non-default argument follows default argument");
    if (p->error_indicator) return NULL;
    RESET();
    skip_params(p, lambda, false);
    if ((t = token(p, TOK_LPAR))) {
        bool ok;
        if (lambda) { /* ','.lambda_param+ ','? */
            ok = parse_param(p, true) != NULL;
            while (ok) {
                size_t m = p->mark;
                if (!token(p, TOK_COMMA) || !parse_param(p, true)) {
                    p->mark = m;
                    break;
                }
            }
        } else {
            ok = parse_param_no_default(p, false) != NULL;
            if (ok) skip_params(p, false, false);
        }
        if (ok) {
            token(p, TOK_COMMA);
            if ((b = token(p, TOK_RPAR)))
                return RAISE_RANGE(t, b, lambda ? "Lambda expression parameters cannot be parenthesized"
                                                : "Function parameters cannot be parenthesized");
        }
    }
    if (p->error_indicator) return NULL;
    RESET();
    if ((t = token(p, TOK_SLASH)) && token(p, TOK_COMMA))
        return RAISE_AT(t, "at least one argument must precede /");
    if (p->error_indicator) return NULL;
    RESET();
    if (any_slash(p, lambda)) {
        skip_params(p, lambda, true);
        if ((t = token(p, TOK_SLASH))) return RAISE_AT(t, "/ may appear only once");
    }
    if (p->error_indicator) return NULL;
    RESET();
    if (!any_slash(p, lambda) && !p->error_indicator) RESET();
    skip_params(p, lambda, true);
    if (token(p, TOK_STAR) && comma_or_param(p, lambda)) {
        skip_params(p, lambda, true);
        if ((t = token(p, TOK_SLASH))) return RAISE_AT(t, "/ must be ahead of *");
    }
    if (p->error_indicator) return NULL;
    RESET();
    bool any = false;
    while (parse_param_maybe_default(p, lambda)) any = true;
    if (any && token(p, TOK_SLASH) && (t = token(p, TOK_STAR)))
        return RAISE_AT(t, "expected comma between / and *");
    if (!p->error_indicator) RESET();
    return NULL;
}

/* invalid_parameters (see invalid_params_common) */
void *parse_invalid_parameters(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_params_common(p, false));
}

/* invalid_lambda_parameters (see invalid_params_common) */
void *parse_invalid_lambda_parameters(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_params_common(p, true));
}

/* invalid_default: '=' &(')'|',') */
void *parse_invalid_default(Parser *p) {
    RULE_ENTER();
    const Token *a = token(p, TOK_EQUAL);
    if (a && (at(p, TOK_RPAR) || at(p, TOK_COMMA)))
        RULE_LEAVE(RAISE_AT(a, "expected default value expression"));
    RULE_LEAVE(NULL);
}

/* invalid_star_etc:
 *     | '*' (')' | ',' (')' | '**'))
 *     | '*' param '='
 *     | '*' (param_no_default | ',') param_maybe_default* '*' (param_no_default | ',')
 * invalid_lambda_star_etc: the same with ':' for ')' (and an unlocated first error) */
static void *invalid_star_etc_common(Parser *p, bool lambda) {
    MARK();
    const Token *a, *t;
    TokenKind close = lambda ? TOK_COLON : TOK_RPAR;
    if ((a = token(p, TOK_STAR))) {
        bool hit = at(p, close);
        if (!hit && token(p, TOK_COMMA)) hit = at(p, close) || at(p, TOK_DOUBLESTAR);
        if (hit) {
            if (lambda) return RAISE_SYNTAX_ERROR("named arguments must follow bare *");
            return RAISE_AT(a, "named arguments must follow bare *");
        }
    }
    if (p->error_indicator) return NULL;
    RESET();
    if (token(p, TOK_STAR) && parse_param(p, lambda) && (t = token(p, TOK_EQUAL)))
        return RAISE_AT(t, "var-positional argument cannot have default value");
    if (p->error_indicator) return NULL;
    RESET();
    if (token(p, TOK_STAR) && comma_or_param(p, lambda)) {
        skip_params(p, lambda, true);
        if ((t = token(p, TOK_STAR)) && comma_or_param(p, lambda))
            return RAISE_AT(t, "* argument may appear only once");
    }
    if (!p->error_indicator) RESET();
    return NULL;
}

void *parse_invalid_star_etc(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_star_etc_common(p, false));
}

void *parse_invalid_lambda_star_etc(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_star_etc_common(p, true));
}

/* invalid_kwds:
 *     | '**' param '='
 *     | '**' param ',' param
 *     | '**' param ',' ('*'|'**'|'/') */
static void *invalid_kwds_common(Parser *p, bool lambda) {
    MARK();
    const Token *t;
    if (token(p, TOK_DOUBLESTAR) && parse_param(p, lambda)) {
        if ((t = token(p, TOK_EQUAL)))
            return RAISE_AT(t, "var-keyword argument cannot have default value");
        if (token(p, TOK_COMMA)) {
            size_t m = p->mark;
            AstArg *a = parse_param(p, lambda);
            if (a) return RAISE_AT(a, "arguments cannot follow var-keyword argument");
            if (p->error_indicator) return NULL;
            p->mark = m;
            t = parse_peek(p);
            if (t && (t->kind == TOK_STAR || t->kind == TOK_DOUBLESTAR || t->kind == TOK_SLASH))
                return RAISE_AT(t, "arguments cannot follow var-keyword argument");
        }
    }
    if (!p->error_indicator) RESET();
    return NULL;
}

void *parse_invalid_kwds(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_kwds_common(p, false));
}

void *parse_invalid_lambda_kwds(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_kwds_common(p, true));
}

/* ---- targets and groups ---- */

/* invalid_with_item: expression 'as' expression &(',' | ')' | ':') */
void *parse_invalid_with_item(Parser *p) {
    RULE_ENTER();
    AstExpr *a;
    if (parse_expression_rule(p) && token(p, TOK_KW_AS) && (a = parse_expression_rule(p)) &&
        (at(p, TOK_COMMA) || at(p, TOK_RPAR) || at(p, TOK_COLON)))
        RULE_LEAVE(parse_raise_invalid_target(p, STAR_TARGETS, a));
    RULE_LEAVE(NULL);
}

/* invalid_for_target: ASYNC? 'for' star_expressions */
void *parse_invalid_for_target(Parser *p) {
    RULE_ENTER();
    AstExpr *a;
    token(p, TOK_KW_ASYNC);
    if (token(p, TOK_KW_FOR) && (a = parse_star_expressions_rule(p)))
        RULE_LEAVE(parse_raise_invalid_target(p, FOR_TARGETS, a));
    RULE_LEAVE(NULL);
}

/* invalid_group: '(' starred_expression ')' | '(' '**' expression ')' */
void *parse_invalid_group(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    const Token *t;
    if (token(p, TOK_LPAR) && (a = parse_starred_expression_rule(p)) && token(p, TOK_RPAR))
        RULE_LEAVE(RAISE_AT(a, "cannot use starred expression here"));
    FAIL_IF_ERR();
    RESET();
    if (token(p, TOK_LPAR) && (t = token(p, TOK_DOUBLESTAR)) && parse_expression_rule(p) &&
        token(p, TOK_RPAR))
        RULE_LEAVE(RAISE_AT(t, "cannot use double starred expression here"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_import_from_targets: import_from_as_names ',' NEWLINE */
void *parse_invalid_import_from_targets(Parser *p) {
    RULE_ENTER();
    if (parse_import_from_as_names(p) && token(p, TOK_COMMA) && token(p, TOK_NEWLINE))
        RULE_LEAVE(RAISE_SYNTAX_ERROR("trailing comma not allowed without surrounding parentheses"));
    RULE_LEAVE(NULL);
}

/* ---- compound statements: missing ':' and missing indented blocks ---- */

/* NEWLINE !INDENT after ':' */
static bool missing_block(Parser *p) {
    return token(p, TOK_NEWLINE) && !at(p, TOK_INDENT) && !p->error_indicator;
}

/* ','.(expression ['as' star_target])+  (or with `expressions` inside parentheses) */
static bool with_items_loose(Parser *p, bool parenthesized) {
    bool any = false;
    for (;;) {
        size_t m = p->mark;
        AstExpr *e = parenthesized ? parse_expressions_rule(p) : parse_expression_rule(p);
        if (!e) {
            if (!p->error_indicator) p->mark = any ? m - 1 : m;
            return any && !p->error_indicator;
        }
        any = true;
        size_t m2 = p->mark;
        if (!(token(p, TOK_KW_AS) && parse_star_target_rule(p))) {
            if (p->error_indicator) return false;
            p->mark = m2;
        }
        if (!token(p, TOK_COMMA)) return !p->error_indicator;
    }
}

/* [ASYNC] 'with' (loose items | '(' loose items ','? ')') -- the with token, NULL if none */
static const Token *with_header(Parser *p, bool parenthesized) {
    token(p, TOK_KW_ASYNC);
    const Token *a = token(p, TOK_KW_WITH);
    if (!a) return NULL;
    if (parenthesized) {
        if (!token(p, TOK_LPAR) || !with_items_loose(p, true)) return NULL;
        token(p, TOK_COMMA);
        if (!token(p, TOK_RPAR)) return NULL;
        return a;
    }
    return with_items_loose(p, false) ? a : NULL;
}

/* invalid_with_stmt:
 *     | [ASYNC] 'with' ','.(expression ['as' star_target])+ NEWLINE
 *     | [ASYNC] 'with' '(' ','.(expressions ['as' star_target])+ ','? ')' NEWLINE */
void *parse_invalid_with_stmt(Parser *p) {
    RULE_ENTER();
    MARK();
    for (int paren = 0; paren < 2; paren++) {
        if (with_header(p, paren) && token(p, TOK_NEWLINE)) RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
        FAIL_IF_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* invalid_with_stmt_indent: the two headers followed by ':' NEWLINE !INDENT */
void *parse_invalid_with_stmt_indent(Parser *p) {
    RULE_ENTER();
    MARK();
    for (int paren = 0; paren < 2; paren++) {
        const Token *a = with_header(p, paren);
        if (a && token(p, TOK_COLON) && missing_block(p))
            RULE_LEAVE(RAISE_INDENTATION_ERROR(
                "expected an indented block after 'with' statement on line %d", a->lineno));
        FAIL_IF_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* invalid_try_stmt:
 *     | 'try' ':' NEWLINE !INDENT
 *     | 'try' ':' block !('except' | 'finally') */
void *parse_invalid_try_stmt(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *a;
    if ((a = token(p, TOK_KW_TRY)) && token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR("expected an indented block after 'try' statement on line %d",
                                           a->lineno));
    FAIL_IF_ERR();
    RESET();
    if (token(p, TOK_KW_TRY) && token(p, TOK_COLON) && parse_block_rule(p) &&
        !at(p, TOK_KW_EXCEPT) && !at(p, TOK_KW_FINALLY))
        RULE_LEAVE(RAISE_SYNTAX_ERROR("expected 'except' or 'finally' block"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ['as' NAME] */
static void opt_as(Parser *p) {
    size_t m = p->mark;
    if (!(token(p, TOK_KW_AS) && parse_name_token(p)) && !p->error_indicator) p->mark = m;
}

/* invalid_except_stmt:
 *     | 'except' '*'? expression ',' expressions ['as' NAME ] ':'
 *     | 'except' '*'? expression ['as' NAME ] NEWLINE
 *     | 'except' NEWLINE
 *     | 'except' '*' (NEWLINE | ':') */
void *parse_invalid_except_stmt(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if (token(p, TOK_KW_EXCEPT)) {
        token(p, TOK_STAR);
        if ((a = parse_expression_rule(p)) && token(p, TOK_COMMA) && parse_expressions_rule(p)) {
            opt_as(p);
            if (token(p, TOK_COLON))
                RULE_LEAVE(RAISE_STARTING_FROM(a, "multiple exception types must be parenthesized"));
        }
    }
    FAIL_IF_ERR();
    RESET();
    if (token(p, TOK_KW_EXCEPT)) {
        token(p, TOK_STAR);
        if (parse_expression_rule(p)) {
            opt_as(p);
            if (token(p, TOK_NEWLINE)) RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
        }
    }
    FAIL_IF_ERR();
    RESET();
    if (token(p, TOK_KW_EXCEPT) && token(p, TOK_NEWLINE)) RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
    FAIL_IF_ERR();
    RESET();
    if (token(p, TOK_KW_EXCEPT) && token(p, TOK_STAR) && (token(p, TOK_NEWLINE) || token(p, TOK_COLON)))
        RULE_LEAVE(RAISE_SYNTAX_ERROR("expected one or more exception types"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_finally_stmt: 'finally' ':' NEWLINE !INDENT */
void *parse_invalid_finally_stmt(Parser *p) {
    RULE_ENTER();
    const Token *a;
    if ((a = token(p, TOK_KW_FINALLY)) && token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR(
            "expected an indented block after 'finally' statement on line %d", a->lineno));
    RULE_LEAVE(NULL);
}

/* invalid_except_stmt_indent:
 *     | 'except' expression ['as' NAME ] ':' NEWLINE !INDENT
 *     | 'except' ':' NEWLINE !INDENT */
void *parse_invalid_except_stmt_indent(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *a;
    if ((a = token(p, TOK_KW_EXCEPT)) && parse_expression_rule(p)) {
        opt_as(p);
        if (token(p, TOK_COLON) && missing_block(p))
            RULE_LEAVE(RAISE_INDENTATION_ERROR(
                "expected an indented block after 'except' statement on line %d", a->lineno));
    }
    FAIL_IF_ERR();
    RESET();
    if ((a = token(p, TOK_KW_EXCEPT)) && token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR(
            "expected an indented block after 'except' statement on line %d", a->lineno));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_match_stmt:
 *     | "match" subject_expr NEWLINE
 *     | "match" subject_expr ':' NEWLINE !INDENT */
void *parse_invalid_match_stmt(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if ((a = parse_soft_keyword(p, "match")) && parse_subject_expr(p)) {
        size_t m = p->mark;
        if (token(p, TOK_NEWLINE)) RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
        FAIL_IF_ERR();
        p->mark = m;
        if (token(p, TOK_COLON) && missing_block(p))
            RULE_LEAVE(RAISE_INDENTATION_ERROR(
                "expected an indented block after 'match' statement on line %d", a->lineno));
    }
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_if_stmt / invalid_elif_stmt / invalid_while_stmt:
 *     | KW named_expression NEWLINE
 *     | KW named_expression ':' NEWLINE !INDENT */
static void *invalid_cond_stmt(Parser *p, TokenKind kw, const char *name) {
    MARK();
    AstExpr *a;
    if (token(p, kw) && parse_named_expression_rule(p) && token(p, TOK_NEWLINE))
        return RAISE_SYNTAX_ERROR("expected ':'");
    if (p->error_indicator) return NULL;
    RESET();
    const Token *t = token(p, kw);
    if (t && (a = parse_named_expression_rule(p)) && token(p, TOK_COLON) && missing_block(p))
        /* CPython reports the line of the keyword for 'while' and of the condition for 'if' */
        return RAISE_INDENTATION_ERROR("expected an indented block after '%s' statement on line %d",
                                       name, kw == TOK_KW_WHILE ? t->lineno : a->lineno);
    if (!p->error_indicator) RESET();
    return NULL;
}

void *parse_invalid_if_stmt(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_cond_stmt(p, TOK_KW_IF, "if"));
}

void *parse_invalid_elif_stmt(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_cond_stmt(p, TOK_KW_ELIF, "elif"));
}

void *parse_invalid_while_stmt(Parser *p) {
    RULE_ENTER();
    RULE_LEAVE(invalid_cond_stmt(p, TOK_KW_WHILE, "while"));
}

/* invalid_else_stmt: 'else' ':' NEWLINE !INDENT */
void *parse_invalid_else_stmt(Parser *p) {
    RULE_ENTER();
    const Token *a;
    if ((a = token(p, TOK_KW_ELSE)) && token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR("expected an indented block after 'else' statement on line %d",
                                           a->lineno));
    RULE_LEAVE(NULL);
}

/* invalid_for_stmt:
 *     | [ASYNC] 'for' star_targets 'in' star_expressions NEWLINE
 *     | [ASYNC] 'for' star_targets 'in' star_expressions ':' NEWLINE !INDENT */
void *parse_invalid_for_stmt(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *a;
    token(p, TOK_KW_ASYNC);
    if (token(p, TOK_KW_FOR) && parse_star_targets_rule(p) && token(p, TOK_KW_IN) &&
        parse_star_expressions_rule(p) && token(p, TOK_NEWLINE))
        RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
    FAIL_IF_ERR();
    RESET();
    token(p, TOK_KW_ASYNC);
    if ((a = token(p, TOK_KW_FOR)) && parse_star_targets_rule(p) && token(p, TOK_KW_IN) &&
        parse_star_expressions_rule(p) && token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR("expected an indented block after 'for' statement on line %d",
                                           a->lineno));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_def_raw: [ASYNC] 'def' NAME '(' [params] ')' ['->' expression] ':' NEWLINE !INDENT */
void *parse_invalid_def_raw(Parser *p) {
    RULE_ENTER();
    const Token *a;
    token(p, TOK_KW_ASYNC);
    if (!(a = token(p, TOK_KW_DEF)) || !parse_name_token(p) || !token(p, TOK_LPAR)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    if (!parse_params_rule(p)) {
        FAIL_IF_ERR();
        p->mark = m;
    }
    if (!token(p, TOK_RPAR)) RULE_LEAVE(NULL);
    m = p->mark;
    if (!(token(p, TOK_RARROW) && parse_expression_rule(p))) {
        FAIL_IF_ERR();
        p->mark = m;
    }
    if (token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR(
            "expected an indented block after function definition on line %d", a->lineno));
    RULE_LEAVE(NULL);
}

/* invalid_class_def_raw:
 *     | 'class' NAME ['(' [arguments] ')'] NEWLINE
 *     | 'class' NAME ['(' [arguments] ')'] ':' NEWLINE !INDENT */
void *parse_invalid_class_def_raw(Parser *p) {
    RULE_ENTER();
    const Token *a;
    if (!(a = token(p, TOK_KW_CLASS)) || !parse_name_token(p)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    if (token(p, TOK_LPAR)) {
        size_t m2 = p->mark;
        if (!parse_arguments_rule(p)) {
            FAIL_IF_ERR();
            p->mark = m2;
        }
        if (!token(p, TOK_RPAR)) {
            FAIL_IF_ERR();
            p->mark = m;
        }
    }
    FAIL_IF_ERR();
    size_t m3 = p->mark;
    if (token(p, TOK_NEWLINE)) RULE_LEAVE(RAISE_SYNTAX_ERROR("expected ':'"));
    FAIL_IF_ERR();
    p->mark = m3;
    if (token(p, TOK_COLON) && missing_block(p))
        RULE_LEAVE(RAISE_INDENTATION_ERROR("expected an indented block after class definition on line %d",
                                           a->lineno));
    RULE_LEAVE(NULL);
}

/* ---- dict displays ---- */

/* invalid_kvpair:
 *     | expression !(':')
 *     | expression ':' '*' bitwise_or
 *     | expression ':' &('}'|',') */
void *parse_invalid_kvpair(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_expression_rule(p);
    if (a && !at(p, TOK_COLON) && !p->error_indicator)
        RULE_LEAVE(parse_raise_known(p, PARSE_SYNTAX_ERROR, a->lineno, a->end_col_offset, a->end_lineno,
                                     0, "':' expected after dictionary key"));
    FAIL_IF_ERR();
    RESET();
    const Token *t;
    if (parse_expression_rule(p) && token(p, TOK_COLON) && (t = token(p, TOK_STAR)) &&
        parse_bitwise_or_rule(p))
        RULE_LEAVE(RAISE_STARTING_FROM(t, "cannot use a starred expression in a dictionary value"));
    FAIL_IF_ERR();
    RESET();
    if (parse_expression_rule(p) && (t = token(p, TOK_COLON)) && (at(p, TOK_RBRACE) || at(p, TOK_COMMA)))
        RULE_LEAVE(RAISE_AT(t, "expression expected after dictionary key and ':'"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* invalid_double_starred_kvpairs:
 *     | ','.double_starred_kvpair+ ',' invalid_kvpair
 *     | expression ':' '*' bitwise_or
 *     | expression ':' &('}'|',') */
void *parse_invalid_double_starred_kvpairs(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_double_starred_kvpair_rule(p)) {
        for (;;) {
            size_t m = p->mark;
            if (!token(p, TOK_COMMA) || !parse_double_starred_kvpair_rule(p)) {
                FAIL_IF_ERR();
                p->mark = m;
                break;
            }
        }
        if (token(p, TOK_COMMA)) {
            parse_invalid_kvpair(p);
            FAIL_IF_ERR();
        }
    }
    FAIL_IF_ERR();
    RESET();
    const Token *t;
    if (parse_expression_rule(p) && token(p, TOK_COLON) && (t = token(p, TOK_STAR)) &&
        parse_bitwise_or_rule(p))
        RULE_LEAVE(RAISE_STARTING_FROM(t, "cannot use a starred expression in a dictionary value"));
    FAIL_IF_ERR();
    RESET();
    if (parse_expression_rule(p) && (t = token(p, TOK_COLON)) && (at(p, TOK_RBRACE) || at(p, TOK_COMMA)))
        RULE_LEAVE(RAISE_AT(t, "expression expected after dictionary key and ':'"));
    FAIL_IF_ERR();
    RESET();
    RULE_LEAVE(NULL);
}
