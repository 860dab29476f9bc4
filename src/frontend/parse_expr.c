/* parse_expr.c — expression rules of Grammar/python.gram (3.11): operators by precedence,
 * primaries and atoms, displays and comprehensions, call arguments, slices, lambda, and the
 * assignment/deletion target rules.  Left-recursive rules are loops. */
#include <string.h>

#include "src/frontend/parser_internal.h"

#define MARK() size_t mark_ = p->mark
#define RESET() (p->mark = mark_)
#define EXTRA() parse_extra(p, mark_)

#define MEMO_GET(rule)                                     \
    do {                                                   \
        void *memo_;                                       \
        if (parse_memo_get(p, (rule), &memo_)) RULE_LEAVE(memo_); \
    } while (0)
#define MEMO_RETURN(rule, res)                     \
    do {                                           \
        void *r_ = (res);                          \
        if (!p->error_indicator) parse_memo_put(p, mark_, (rule), r_); \
        RULE_LEAVE(r_);                            \
    } while (0)

static AstExpr *new_expr(Parser *p, AstExprKind kind, size_t mark_) {
    return parse_expr_new(p, kind, EXTRA());
}

static AstExpr *make_tuple(Parser *p, size_t mark_, PVec *elts, AstExprContext ctx) {
    AstExpr *t = new_expr(p, AST_EXPR_TUPLE, mark_);
    if (!t) return NULL;
    if (elts) t->v.Tuple.elts = SEQ(AstExprSeq, *elts);
    t->v.Tuple.ctx = ctx;
    return t;
}

static AstExpr *make_list(Parser *p, size_t mark_, PVec *elts, AstExprContext ctx) {
    AstExpr *t = new_expr(p, AST_EXPR_LIST, mark_);
    if (!t) return NULL;
    if (elts) t->v.List.elts = SEQ(AstExprSeq, *elts);
    t->v.List.ctx = ctx;
    return t;
}

static AstExpr *make_starred(Parser *p, size_t mark_, AstExpr *v, AstExprContext ctx) {
    AstExpr *s = new_expr(p, AST_EXPR_STARRED, mark_);
    if (!s) return NULL;
    s->v.Starred.value = v;
    s->v.Starred.ctx = ctx;
    return s;
}

/* Generic "first (',' item)+ [',']" gathering.  Returns the items (at least `min`). */
typedef AstExpr *(*ExprRule)(Parser *);

static PVec *gather(Parser *p, ExprRule item, AstExpr *first, size_t min, bool trailing_comma) {
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) return NULL;
    if (first && !pvec_push(p, v, first)) return NULL;
    if (!first) {
        AstExpr *e = item(p);
        if (!e) return NULL;
        if (!pvec_push(p, v, e)) return NULL;
    }
    for (;;) {
        size_t m = p->mark;
        AstExpr *e;
        if (!parse_expect(p, TOK_COMMA) || !(e = item(p))) {
            if (p->error_indicator) return NULL;
            p->mark = m;
            break;
        }
        if (!pvec_push(p, v, e)) return NULL;
    }
    if (v->count < min) return NULL;
    if (trailing_comma) parse_expect(p, TOK_COMMA);
    if (p->error_indicator) return NULL;
    return v;
}

/* ---- top-level expression rules ---- */

/* expressions: expression (',' expression)+ [','] | expression ',' | expression */
AstExpr *parse_expressions_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_expression_rule(p);
    if (!a) RULE_LEAVE(NULL);
    size_t after = p->mark;
    PVec *v = gather(p, parse_expression_rule, a, 2, true);
    CHECK_ERR();
    if (v) RULE_LEAVE(make_tuple(p, mark_, v, AST_LOAD));
    p->mark = after;
    if (parse_expect(p, TOK_COMMA)) {
        PVec one = {0};
        if (!pvec_push(p, &one, a)) RULE_LEAVE(NULL);
        RULE_LEAVE(make_tuple(p, mark_, &one, AST_LOAD));
    }
    CHECK_ERR();
    p->mark = after;
    RULE_LEAVE(a);
}

/* expression (memo):
 *     | invalid_expression | invalid_legacy_expression
 *     | disjunction 'if' disjunction 'else' expression
 *     | disjunction | lambdef */
static AstExpr *expression_body(Parser *p, bool with_invalid) {
    MARK();
    if (with_invalid && p->call_invalid_rules) {
        parse_invalid_expression(p);
        if (p->error_indicator) return NULL;
        RESET();
        parse_invalid_legacy_expression(p);
        if (p->error_indicator) return NULL;
        RESET();
    }
    AstExpr *a = parse_disjunction_rule(p), *b, *c;
    if (a) {
        size_t after = p->mark;
        if (parse_expect(p, TOK_KW_IF) && (b = parse_disjunction_rule(p)) &&
            parse_expect(p, TOK_KW_ELSE) && (c = parse_expression_rule(p))) {
            AstExpr *e = new_expr(p, AST_EXPR_IF_EXP, mark_);
            if (!e) return NULL;
            e->v.IfExp.test = b;
            e->v.IfExp.body = a;
            e->v.IfExp.orelse = c;
            return e;
        }
        if (p->error_indicator) return NULL;
        p->mark = after;
        return a;
    }
    if (p->error_indicator) return NULL;
    RESET();
    a = parse_lambdef_rule(p);
    if (!a) RESET();
    return a;
}

AstExpr *parse_expression_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_EXPRESSION);
    MARK();
    AstExpr *e = expression_body(p, true);
    MEMO_RETURN(MEMO_EXPRESSION, e);
}

/* expression_without_invalid: the same with no invalid_ alternative run below it (pegen
 * guards only alternatives that *start* with an invalid_ rule; see dict_rule). */
AstExpr *parse_expression_without_invalid_rule(Parser *p) {
    RULE_ENTER();
    bool prev = p->call_invalid_rules;
    p->call_invalid_rules = false;
    AstExpr *e = expression_body(p, false);
    p->call_invalid_rules = prev;
    RULE_LEAVE(e);
}

/* yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
AstExpr *parse_yield_expr_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_KW_YIELD)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    AstExpr *a;
    if (parse_expect(p, TOK_KW_FROM) && (a = parse_expression_rule(p))) {
        AstExpr *e = new_expr(p, AST_EXPR_YIELD_FROM, mark_);
        if (e) e->v.YieldFrom.value = a;
        RULE_LEAVE(e);
    }
    CHECK_ERR();
    p->mark = m;
    a = parse_star_expressions_rule(p);
    CHECK_ERR();
    if (!a) p->mark = m;
    AstExpr *e = new_expr(p, AST_EXPR_YIELD, mark_);
    if (e) e->v.Yield.value = a;
    RULE_LEAVE(e);
}

/* star_expressions:
 *     | star_expression (',' star_expression)+ [','] | star_expression ',' | star_expression */
AstExpr *parse_star_expressions_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_star_expression_rule(p);
    if (!a) RULE_LEAVE(NULL);
    size_t after = p->mark;
    PVec *v = gather(p, parse_star_expression_rule, a, 2, true);
    CHECK_ERR();
    if (v) RULE_LEAVE(make_tuple(p, mark_, v, AST_LOAD));
    p->mark = after;
    if (parse_expect(p, TOK_COMMA)) {
        PVec one = {0};
        if (!pvec_push(p, &one, a)) RULE_LEAVE(NULL);
        RULE_LEAVE(make_tuple(p, mark_, &one, AST_LOAD));
    }
    CHECK_ERR();
    p->mark = after;
    RULE_LEAVE(a);
}

/* star_expression (memo): '*' bitwise_or | expression */
AstExpr *parse_star_expression_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_STAR_EXPRESSION);
    MARK();
    AstExpr *a, *res = NULL;
    if (parse_expect(p, TOK_STAR) && (a = parse_bitwise_or_rule(p))) {
        res = make_starred(p, mark_, a, AST_LOAD);
    } else if (!p->error_indicator) {
        RESET();
        res = parse_expression_rule(p);
        if (!res) RESET();
    }
    MEMO_RETURN(MEMO_STAR_EXPRESSION, res);
}

/* star_named_expressions: ','.star_named_expression+ [','] */
PVec *parse_star_named_expressions_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *v = gather(p, parse_star_named_expression_rule, NULL, 1, true);
    if (!v) RESET();
    RULE_LEAVE(v);
}

/* star_named_expression: '*' bitwise_or | named_expression */
AstExpr *parse_star_named_expression_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if (parse_expect(p, TOK_STAR) && (a = parse_bitwise_or_rule(p)))
        RULE_LEAVE(make_starred(p, mark_, a, AST_LOAD));
    CHECK_ERR();
    RESET();
    a = parse_named_expression_rule(p);
    if (!a) RESET();
    RULE_LEAVE(a);
}

/* assignment_expression: NAME ':=' ~ expression
 * (a NamedExpr: parse_check rejects it once the whole module has parsed) */
AstExpr *parse_assignment_expression_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p), *b;
    if (a && parse_expect(p, TOK_COLONEQUAL)) {
        if (!(b = parse_expression_rule(p))) RULE_LEAVE(NULL); /* cut */
        AstExpr *e = new_expr(p, AST_EXPR_NAMED_EXPR, mark_);
        if (!e) RULE_LEAVE(NULL);
        e->v.NamedExpr.target = parse_set_expr_context(p, a, AST_STORE);
        e->v.NamedExpr.value = b;
        RULE_LEAVE(e);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* named_expression: assignment_expression | invalid_named_expression | expression !':=' */
AstExpr *parse_named_expression_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_assignment_expression_rule(p);
    if (a) RULE_LEAVE(a);
    CHECK_ERR();
    if (p->call_invalid_rules) {
        parse_invalid_named_expression(p);
        CHECK_ERR();
        RESET();
    }
    a = parse_expression_rule(p);
    if (a && !parse_check_kind(p, TOK_COLONEQUAL)) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ---- boolean and comparison operators ---- */

static AstExpr *conjunction_rule(Parser *p);
static AstExpr *inversion_rule(Parser *p);
static AstExpr *comparison_rule(Parser *p);

/* disjunction (memo): conjunction ('or' conjunction)+ | conjunction
 * conjunction (memo): inversion ('and' inversion)+ | inversion */
static AstExpr *boolop_rule(Parser *p, MemoRule memo, TokenKind kw, AstBoolOp op, ExprRule item) {
    RULE_ENTER();
    MEMO_GET(memo);
    MARK();
    AstExpr *a = item(p);
    if (!a) {
        RESET();
        MEMO_RETURN(memo, NULL);
    }
    PVec v = {0};
    for (;;) {
        size_t m = p->mark;
        AstExpr *c;
        if (!parse_expect(p, kw) || !(c = item(p))) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        if (!v.count && !pvec_push(p, &v, a)) RULE_LEAVE(NULL);
        if (!pvec_push(p, &v, c)) RULE_LEAVE(NULL);
    }
    if (v.count) {
        AstExpr *e = new_expr(p, AST_EXPR_BOOL_OP, mark_);
        if (!e) RULE_LEAVE(NULL);
        e->v.BoolOp.op = op;
        e->v.BoolOp.values = SEQ(AstExprSeq, v);
        a = e;
    }
    MEMO_RETURN(memo, a);
}

AstExpr *parse_disjunction_rule(Parser *p) {
    return boolop_rule(p, MEMO_DISJUNCTION, TOK_KW_OR, AST_OR, conjunction_rule);
}

static AstExpr *conjunction_rule(Parser *p) {
    return boolop_rule(p, MEMO_CONJUNCTION, TOK_KW_AND, AST_AND, inversion_rule);
}

/* inversion (memo): 'not' inversion | comparison */
static AstExpr *inversion_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_INVERSION);
    MARK();
    AstExpr *a, *res = NULL;
    if (parse_expect(p, TOK_KW_NOT) && (a = inversion_rule(p))) {
        res = new_expr(p, AST_EXPR_UNARY_OP, mark_);
        if (res) {
            res->v.UnaryOp.op = AST_NOT;
            res->v.UnaryOp.operand = a;
        }
    } else if (!p->error_indicator) {
        RESET();
        res = comparison_rule(p);
        if (!res) RESET();
    }
    MEMO_RETURN(MEMO_INVERSION, res);
}

/* compare_op_bitwise_or_pair: ('==' | '!=' | '<=' | '<' | '>=' | '>' | 'not' 'in' | 'in'
 *                              | 'is' 'not' | 'is') bitwise_or */
static bool compare_pair(Parser *p, AstCmpOp *op, AstExpr **e) {
    MARK();
    const Token *t = parse_peek(p);
    if (!t) return false;
    switch (t->kind) {
    case TOK_EQEQUAL: *op = AST_EQ; break;
    case TOK_NOTEQUAL: *op = AST_NOT_EQ; break;
    case TOK_LESSEQUAL: *op = AST_LTE; break;
    case TOK_LESS: *op = AST_LT; break;
    case TOK_GREATEREQUAL: *op = AST_GTE; break;
    case TOK_GREATER: *op = AST_GT; break;
    case TOK_KW_IN: *op = AST_IN; break;
    case TOK_KW_NOT:
        p->mark++;
        if (!parse_expect(p, TOK_KW_IN)) {
            RESET();
            return false;
        }
        p->mark--;
        *op = AST_NOT_IN;
        break;
    case TOK_KW_IS:
        p->mark++;
        if (parse_check_kind(p, TOK_KW_NOT)) {
            *op = AST_IS_NOT;
        } else {
            p->mark--;
            *op = AST_IS;
        }
        break;
    default: return false;
    }
    p->mark++;
    *e = parse_bitwise_or_rule(p);
    if (!*e) {
        RESET();
        return false;
    }
    return true;
}

/* comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or */
static AstExpr *comparison_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_bitwise_or_rule(p);
    if (!a) RULE_LEAVE(NULL);
    PVec ops = {0}, comps = {0};
    for (;;) {
        AstCmpOp op;
        AstExpr *e;
        if (!compare_pair(p, &op, &e)) break;
        if (!pvec_push(p, &ops, (void *)(uintptr_t)op) || !pvec_push(p, &comps, e)) RULE_LEAVE(NULL);
    }
    CHECK_ERR();
    if (!ops.count) RULE_LEAVE(a);
    AstExpr *c = new_expr(p, AST_EXPR_COMPARE, mark_);
    AstCmpOp *opv = parse_alloc(p, ops.count * sizeof *opv);
    if (!c || !opv) RULE_LEAVE(NULL);
    for (size_t i = 0; i < ops.count; i++) opv[i] = (AstCmpOp)(uintptr_t)ops.items[i];
    c->v.Compare.left = a;
    c->v.Compare.ops.items = opv;
    c->v.Compare.ops.count = ops.count;
    c->v.Compare.comparators = SEQ(AstExprSeq, comps);
    RULE_LEAVE(c);
}

/* ---- binary operators (left-recursive rules as loops) ---- */

typedef struct BinOpLevel {
    MemoRule memo;
    ExprRule operand;
    TokenKind toks[5];
    AstOperator ops[5];
} BinOpLevel;

static AstExpr *bitwise_xor_rule(Parser *p);
static AstExpr *bitwise_and_rule(Parser *p);
static AstExpr *shift_expr_rule(Parser *p);
static AstExpr *sum_rule(Parser *p);
static AstExpr *term_rule(Parser *p);
static AstExpr *factor_rule(Parser *p);

static AstExpr *binop_level(Parser *p, const BinOpLevel *lv) {
    RULE_ENTER();
    MEMO_GET(lv->memo);
    MARK();
    AstExpr *a = lv->operand(p);
    while (a) {
        const Token *t = parse_peek(p);
        if (!t) break;
        int i = 0;
        while (i < 5 && lv->toks[i] && lv->toks[i] != t->kind) i++;
        if (i == 5 || !lv->toks[i]) break;
        size_t m = p->mark;
        p->mark++;
        AstExpr *b = lv->operand(p);
        if (!b) {
            p->mark = m;
            break;
        }
        AstExpr *e = new_expr(p, AST_EXPR_BIN_OP, mark_);
        if (!e) RULE_LEAVE(NULL);
        e->v.BinOp.left = a;
        e->v.BinOp.op = lv->ops[i];
        e->v.BinOp.right = b;
        a = e;
    }
    CHECK_ERR();
    if (!a) RESET();
    MEMO_RETURN(lv->memo, a);
}

/* bitwise_or: bitwise_or '|' bitwise_xor | bitwise_xor */
AstExpr *parse_bitwise_or_rule(Parser *p) {
    static const BinOpLevel lv = {MEMO_BITWISE_OR, bitwise_xor_rule, {TOK_VBAR}, {AST_BIT_OR}};
    return binop_level(p, &lv);
}

/* bitwise_xor: bitwise_xor '^' bitwise_and | bitwise_and */
static AstExpr *bitwise_xor_rule(Parser *p) {
    static const BinOpLevel lv = {MEMO_BITWISE_XOR, bitwise_and_rule, {TOK_CIRCUMFLEX}, {AST_BIT_XOR}};
    return binop_level(p, &lv);
}

/* bitwise_and: bitwise_and '&' shift_expr | shift_expr */
static AstExpr *bitwise_and_rule(Parser *p) {
    static const BinOpLevel lv = {MEMO_BITWISE_AND, shift_expr_rule, {TOK_AMPER}, {AST_BIT_AND}};
    return binop_level(p, &lv);
}

/* shift_expr: shift_expr '<<' sum | shift_expr '>>' sum | sum */
static AstExpr *shift_expr_rule(Parser *p) {
    static const BinOpLevel lv = {MEMO_SHIFT_EXPR, sum_rule, {TOK_LEFTSHIFT, TOK_RIGHTSHIFT},
                                  {AST_LSHIFT, AST_RSHIFT}};
    return binop_level(p, &lv);
}

/* sum: sum '+' term | sum '-' term | term */
static AstExpr *sum_rule(Parser *p) {
    static const BinOpLevel lv = {MEMO_SUM, term_rule, {TOK_PLUS, TOK_MINUS}, {AST_ADD, AST_SUB}};
    return binop_level(p, &lv);
}

/* term: term ('*' | '/' | '//' | '%' | '@') factor | factor */
static AstExpr *term_rule(Parser *p) {
    static const BinOpLevel lv = {
        MEMO_TERM,
        factor_rule,
        {TOK_STAR, TOK_SLASH, TOK_DOUBLESLASH, TOK_PERCENT, TOK_AT},
        {AST_MULT, AST_DIV, AST_FLOOR_DIV, AST_MOD, AST_MAT_MULT}};
    return binop_level(p, &lv);
}

static AstExpr *primary_rule(Parser *p);
static AstExpr *await_primary_rule(Parser *p);

/* factor (memo): '+' factor | '-' factor | '~' factor | power */
static AstExpr *factor_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_FACTOR);
    MARK();
    const Token *t = parse_peek(p);
    AstExpr *res = NULL;
    if (t && (t->kind == TOK_PLUS || t->kind == TOK_MINUS || t->kind == TOK_TILDE)) {
        p->mark++;
        AstExpr *a = factor_rule(p);
        if (a) {
            res = new_expr(p, AST_EXPR_UNARY_OP, mark_);
            if (!res) RULE_LEAVE(NULL);
            res->v.UnaryOp.op = t->kind == TOK_PLUS ? AST_UADD : t->kind == TOK_MINUS ? AST_USUB : AST_INVERT;
            res->v.UnaryOp.operand = a;
            MEMO_RETURN(MEMO_FACTOR, res);
        }
        CHECK_ERR();
        RESET();
    }
    CHECK_ERR();
    /* power: await_primary '**' factor | await_primary */
    AstExpr *a = await_primary_rule(p), *b;
    if (a) {
        size_t m = p->mark;
        if (parse_expect(p, TOK_DOUBLESTAR) && (b = factor_rule(p))) {
            res = new_expr(p, AST_EXPR_BIN_OP, mark_);
            if (!res) RULE_LEAVE(NULL);
            res->v.BinOp.left = a;
            res->v.BinOp.op = AST_POW;
            res->v.BinOp.right = b;
        } else {
            CHECK_ERR();
            p->mark = m;
            res = a;
        }
    }
    CHECK_ERR();
    if (!res) RESET();
    MEMO_RETURN(MEMO_FACTOR, res);
}

/* await_primary (memo): AWAIT primary | primary */
static AstExpr *await_primary_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    if (t && t->kind == TOK_KW_AWAIT) {
        p->mark++;
        AstExpr *a = primary_rule(p);
        if (a) {
            AstExpr *e = new_expr(p, AST_EXPR_AWAIT, mark_);
            if (!e) RULE_LEAVE(NULL);
            e->v.Await.value = a;
            RULE_LEAVE(e);
        }
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    RULE_LEAVE(primary_rule(p));
}

/* ---- primaries ---- */

static AstExpr *atom_rule(Parser *p);

static AstExpr *make_attribute(Parser *p, size_t mark_, AstExpr *a, AstExpr *name,
                               AstExprContext ctx) {
    AstExpr *e = new_expr(p, AST_EXPR_ATTRIBUTE, mark_);
    if (!e) return NULL;
    e->v.Attribute.value = a;
    e->v.Attribute.attr = name->v.Name.id;
    e->v.Attribute.ctx = ctx;
    return e;
}

static AstExpr *make_subscript(Parser *p, size_t mark_, AstExpr *a, AstExpr *slice,
                               AstExprContext ctx) {
    AstExpr *e = new_expr(p, AST_EXPR_SUBSCRIPT, mark_);
    if (!e) return NULL;
    e->v.Subscript.value = a;
    e->v.Subscript.slice = slice;
    e->v.Subscript.ctx = ctx;
    return e;
}

static AstExpr *make_call(Parser *p, size_t mark_, AstExpr *func, AstExpr *args_holder,
                          AstExpr *genexp) {
    AstExpr *e = new_expr(p, AST_EXPR_CALL, mark_);
    if (!e) return NULL;
    e->v.Call.func = func;
    if (genexp) {
        AstExpr **items = parse_alloc(p, sizeof *items);
        if (!items) return NULL;
        items[0] = genexp;
        e->v.Call.args.items = items;
        e->v.Call.args.count = 1;
    } else if (args_holder) {
        e->v.Call.args = args_holder->v.Call.args;
        e->v.Call.keywords = args_holder->v.Call.keywords;
    }
    return e;
}

static bool t_lookahead(Parser *p);

/* The postfix alternatives of primary / t_primary, in each rule's order:
 *   primary:   '.' NAME | genexp | '(' [arguments] ')' | '[' slices ']'
 *   t_primary: '.' NAME | '[' slices ']' | genexp | '(' [arguments] ')'   (each &t_lookahead)
 * genexp is tried whatever the next token: in the second pass its invalid_comprehension
 * alternative also looks at '[' and '{', as in CPython.  Returns the extended node, or NULL
 * with the position restored. */
static AstExpr *postfix_dot(Parser *p, size_t mark_, AstExpr *a) {
    AstExpr *b;
    if (parse_expect(p, TOK_DOT) && (b = parse_name_token(p))) return make_attribute(p, mark_, a, b, AST_LOAD);
    return NULL;
}

static AstExpr *postfix_genexp(Parser *p, size_t mark_, AstExpr *a) {
    AstExpr *b = parse_genexp_rule(p);
    return b ? make_call(p, mark_, a, NULL, b) : NULL;
}

static AstExpr *postfix_call(Parser *p, size_t mark_, AstExpr *a) {
    if (!parse_expect(p, TOK_LPAR)) return NULL;
    size_t m = p->mark;
    AstExpr *b = parse_arguments_rule(p);
    if (p->error_indicator) return NULL;
    if (!b) p->mark = m;
    return parse_expect(p, TOK_RPAR) ? make_call(p, mark_, a, b, NULL) : NULL;
}

static AstExpr *postfix_subscript(Parser *p, size_t mark_, AstExpr *a) {
    AstExpr *b;
    if (parse_expect(p, TOK_LSQB) && (b = parse_slices_rule(p)) && parse_expect(p, TOK_RSQB))
        return make_subscript(p, mark_, a, b, AST_LOAD);
    return NULL;
}

typedef AstExpr *(*Postfix)(Parser *, size_t, AstExpr *);

static AstExpr *primary_postfix(Parser *p, size_t mark_, AstExpr *a, bool t_mode) {
    static const Postfix primary_order[] = {postfix_dot, postfix_genexp, postfix_call, postfix_subscript};
    static const Postfix t_primary_order[] = {postfix_dot, postfix_subscript, postfix_genexp, postfix_call};
    const Postfix *order = t_mode ? t_primary_order : primary_order;
    size_t m = p->mark;
    for (int i = 0; i < 4; i++) {
        AstExpr *res = order[i](p, mark_, a);
        if (p->error_indicator) return NULL;
        if (res && (!t_mode || t_lookahead(p))) return res;
        if (p->error_indicator) return NULL;
        p->mark = m;
    }
    return NULL;
}

/* primary:
 *     | primary '.' NAME | primary genexp | primary '(' [arguments] ')'
 *     | primary '[' slices ']' | atom */
static AstExpr *primary_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_PRIMARY);
    MARK();
    AstExpr *a = atom_rule(p);
    while (a) {
        AstExpr *n = primary_postfix(p, mark_, a, false);
        if (!n) break;
        a = n;
    }
    CHECK_ERR();
    if (!a) RESET();
    MEMO_RETURN(MEMO_PRIMARY, a);
}

static bool t_lookahead(Parser *p) {
    return parse_check_kind(p, TOK_LPAR) || parse_check_kind(p, TOK_LSQB) ||
           parse_check_kind(p, TOK_DOT);
}

/* t_primary:
 *     | t_primary '.' NAME &t_lookahead | t_primary '[' slices ']' &t_lookahead
 *     | t_primary genexp &t_lookahead | t_primary '(' [arguments] ')' &t_lookahead
 *     | atom &t_lookahead */
AstExpr *parse_t_primary_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_T_PRIMARY);
    MARK();
    AstExpr *a = atom_rule(p);
    if (a && !t_lookahead(p)) a = NULL;
    while (a) {
        AstExpr *n = primary_postfix(p, mark_, a, true);
        if (!n) break;
        a = n;
    }
    CHECK_ERR();
    if (!a) RESET();
    MEMO_RETURN(MEMO_T_PRIMARY, a);
}

/* slice: [expression] ':' [expression] [':' [expression]] | named_expression */
static AstExpr *slice_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_expression_rule(p);
    CHECK_ERR();
    if (!a) RESET();
    if (parse_expect(p, TOK_COLON)) {
        size_t m = p->mark;
        AstExpr *b = parse_expression_rule(p), *c = NULL;
        CHECK_ERR();
        if (!b) p->mark = m;
        m = p->mark;
        if (parse_expect(p, TOK_COLON)) {
            size_t m2 = p->mark;
            c = parse_expression_rule(p);
            CHECK_ERR();
            if (!c) p->mark = m2;
        } else {
            CHECK_ERR();
            p->mark = m;
        }
        AstExpr *s = new_expr(p, AST_EXPR_SLICE, mark_);
        if (!s) RULE_LEAVE(NULL);
        s->v.Slice.lower = a;
        s->v.Slice.upper = b;
        s->v.Slice.step = c;
        RULE_LEAVE(s);
    }
    CHECK_ERR();
    RESET();
    a = parse_named_expression_rule(p);
    if (!a) RESET();
    RULE_LEAVE(a);
}

static AstExpr *slice_or_starred(Parser *p) {
    AstExpr *a = slice_rule(p);
    if (a || p->error_indicator) return a;
    return parse_starred_expression_rule(p);
}

/* slices: slice !',' | ','.(slice | starred_expression)+ [','] */
AstExpr *parse_slices_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = slice_rule(p);
    if (a && !parse_check_kind(p, TOK_COMMA)) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    PVec *v = gather(p, slice_or_starred, NULL, 1, true);
    if (v) RULE_LEAVE(make_tuple(p, mark_, v, AST_LOAD));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static AstExpr *constant(Parser *p, size_t mark_, AstConstantType type, bool b) {
    AstExpr *e = new_expr(p, AST_EXPR_CONSTANT, mark_);
    if (!e) return NULL;
    e->v.Constant.value.type = type;
    e->v.Constant.value.b = b;
    return e;
}

static AstExpr *paren_atom(Parser *p);
static AstExpr *bracket_atom(Parser *p);
static AstExpr *brace_atom(Parser *p);

/* atom:
 *     | NAME | 'True' | 'False' | 'None' | &STRING strings | NUMBER
 *     | &'(' (tuple | group | genexp) | &'[' (list | listcomp)
 *     | &'{' (dict | set | dictcomp | setcomp) | '...' */
static AstExpr *atom_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    if (!t) RULE_LEAVE(NULL);
    switch (t->kind) {
    case TOK_NAME: RULE_LEAVE(parse_name_token(p));
    case TOK_KW_TRUE: p->mark++; RULE_LEAVE(constant(p, mark_, AST_CONST_BOOL, true));
    case TOK_KW_FALSE: p->mark++; RULE_LEAVE(constant(p, mark_, AST_CONST_BOOL, false));
    case TOK_KW_NONE: p->mark++; RULE_LEAVE(constant(p, mark_, AST_CONST_NONE, false));
    case TOK_ELLIPSIS: p->mark++; RULE_LEAVE(constant(p, mark_, AST_CONST_ELLIPSIS, false));
    case TOK_STRING: RULE_LEAVE(parse_strings_rule(p));
    case TOK_NUMBER: RULE_LEAVE(parse_number_token(p));
    case TOK_LPAR: RULE_LEAVE(paren_atom(p));
    case TOK_LSQB: RULE_LEAVE(bracket_atom(p));
    case TOK_LBRACE: RULE_LEAVE(brace_atom(p));
    default: RULE_LEAVE(NULL);
    }
}

/* tuple: '(' [star_named_expression ',' [star_named_expressions]] ')' */
AstExpr *parse_tuple_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_LPAR)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    PVec elts = {0};
    AstExpr *y = parse_star_named_expression_rule(p);
    if (y && parse_expect(p, TOK_COMMA)) {
        if (!pvec_push(p, &elts, y)) RULE_LEAVE(NULL);
        size_t m2 = p->mark;
        PVec *z = parse_star_named_expressions_rule(p);
        CHECK_ERR();
        if (!z) p->mark = m2;
        for (size_t i = 0; z && i < z->count; i++)
            if (!pvec_push(p, &elts, z->items[i])) RULE_LEAVE(NULL);
    } else {
        CHECK_ERR();
        p->mark = m;
    }
    if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(make_tuple(p, mark_, &elts, AST_LOAD));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* group: '(' (yield_expr | named_expression) ')' | invalid_group */
static AstExpr *group_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_LPAR)) {
        AstExpr *a = parse_yield_expr_rule(p);
        CHECK_ERR();
        if (!a) a = parse_named_expression_rule(p);
        if (a && parse_expect(p, TOK_RPAR)) RULE_LEAVE(a);
        CHECK_ERR();
    }
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_group(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

static AstExpr *make_comp(Parser *p, size_t mark_, AstExprKind kind, AstExpr *elt, PVec *gens) {
    AstExpr *e = new_expr(p, kind, mark_);
    if (!e) return NULL;
    AstComprehensionSeq g = SEQ(AstComprehensionSeq, *gens);
    switch (kind) {
    case AST_EXPR_LIST_COMP: e->v.ListComp.elt = elt, e->v.ListComp.generators = g; break;
    case AST_EXPR_SET_COMP: e->v.SetComp.elt = elt, e->v.SetComp.generators = g; break;
    default: e->v.GeneratorExp.elt = elt, e->v.GeneratorExp.generators = g; break;
    }
    return e;
}

/* genexp:
 *     | '(' (assignment_expression | expression !':=') for_if_clauses ')'
 *     | invalid_comprehension */
AstExpr *parse_genexp_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_LPAR)) {
        AstExpr *a = parse_assignment_expression_rule(p);
        CHECK_ERR();
        if (!a && (a = parse_expression_rule(p)) && parse_check_kind(p, TOK_COLONEQUAL)) a = NULL;
        CHECK_ERR();
        PVec *b;
        if (a && (b = parse_for_if_clauses_rule(p)) && parse_expect(p, TOK_RPAR))
            RULE_LEAVE(make_comp(p, mark_, AST_EXPR_GENERATOR_EXP, a, b));
        CHECK_ERR();
    }
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_comprehension(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* &'(' (tuple | group | genexp) */
static AstExpr *paren_atom(Parser *p) {
    MARK();
    AstExpr *a = parse_tuple_rule(p);
    if (a || p->error_indicator) return a;
    RESET();
    a = group_rule(p);
    if (a || p->error_indicator) return a;
    RESET();
    a = parse_genexp_rule(p);
    if (!a) RESET();
    return a;
}

/* list: '[' [star_named_expressions] ']' */
AstExpr *parse_list_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_LSQB)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    PVec *a = parse_star_named_expressions_rule(p);
    CHECK_ERR();
    if (!a) p->mark = m;
    if (parse_expect(p, TOK_RSQB)) RULE_LEAVE(make_list(p, mark_, a, AST_LOAD));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* &'[' (list | listcomp)
 * listcomp: '[' named_expression for_if_clauses ']' | invalid_comprehension */
static AstExpr *bracket_atom(Parser *p) {
    MARK();
    AstExpr *a = parse_list_rule(p);
    if (a || p->error_indicator) return a;
    RESET();
    PVec *b;
    if (parse_expect(p, TOK_LSQB) && (a = parse_named_expression_rule(p)) &&
        (b = parse_for_if_clauses_rule(p)) && parse_expect(p, TOK_RSQB))
        return make_comp(p, mark_, AST_EXPR_LIST_COMP, a, b);
    if (p->error_indicator) return NULL;
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_comprehension(p);
        if (p->error_indicator) return NULL;
        RESET();
    }
    return NULL;
}

/* double_starred_kvpair: '**' bitwise_or | kvpair */
KeyValuePair *parse_double_starred_kvpair_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if (parse_expect(p, TOK_DOUBLESTAR) && (a = parse_bitwise_or_rule(p))) {
        KeyValuePair *kv = parse_alloc(p, sizeof *kv);
        if (kv) kv->value = a;
        RULE_LEAVE(kv);
    }
    CHECK_ERR();
    RESET();
    KeyValuePair *kv = parse_kvpair_rule(p);
    if (!kv) RESET();
    RULE_LEAVE(kv);
}

/* kvpair: expression ':' expression */
KeyValuePair *parse_kvpair_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a, *b;
    if ((a = parse_expression_rule(p)) && parse_expect(p, TOK_COLON) &&
        (b = parse_expression_rule(p))) {
        KeyValuePair *kv = parse_alloc(p, sizeof *kv);
        if (kv) kv->key = a, kv->value = b;
        RULE_LEAVE(kv);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* double_starred_kvpairs: ','.double_starred_kvpair+ [','] */
static PVec *double_starred_kvpairs(Parser *p) {
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) return NULL;
    KeyValuePair *kv = parse_double_starred_kvpair_rule(p);
    if (!kv || !pvec_push(p, v, kv)) return NULL;
    for (;;) {
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA) || !(kv = parse_double_starred_kvpair_rule(p))) {
            if (p->error_indicator) return NULL;
            p->mark = m;
            break;
        }
        if (!pvec_push(p, v, kv)) return NULL;
    }
    parse_expect(p, TOK_COMMA);
    return p->error_indicator ? NULL : v;
}

/* dict: '{' [double_starred_kvpairs] '}' | '{' invalid_double_starred_kvpairs '}'
 * The second alternative does not start with an invalid_ rule, so (as in CPython's
 * generated parser) it runs in both passes, even where invalid rules are off. */
static AstExpr *dict_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_LBRACE)) {
        size_t m = p->mark;
        PVec *a = double_starred_kvpairs(p);
        CHECK_ERR();
        if (!a) p->mark = m;
        if (parse_expect(p, TOK_RBRACE)) {
            AstExpr *d = new_expr(p, AST_EXPR_DICT, mark_);
            if (!d) RULE_LEAVE(NULL);
            PVec keys = {0}, values = {0};
            for (size_t i = 0; a && i < a->count; i++) {
                KeyValuePair *kv = a->items[i];
                if (!pvec_push(p, &keys, kv->key) || !pvec_push(p, &values, kv->value))
                    RULE_LEAVE(NULL);
            }
            d->v.Dict.keys = SEQ(AstExprSeq, keys);
            d->v.Dict.values = SEQ(AstExprSeq, values);
            RULE_LEAVE(d);
        }
        CHECK_ERR();
    }
    RESET();
    if (parse_expect(p, TOK_LBRACE)) {
        parse_invalid_double_starred_kvpairs(p);
        CHECK_ERR();
    }
    RESET();
    RULE_LEAVE(NULL);
}

/* &'{' (dict | set | dictcomp | setcomp)
 * set: '{' star_named_expressions '}'
 * dictcomp: '{' kvpair for_if_clauses '}' | invalid_dict_comprehension
 * setcomp: '{' named_expression for_if_clauses '}' | invalid_comprehension */
static AstExpr *brace_atom(Parser *p) {
    MARK();
    AstExpr *a = dict_rule(p);
    if (a || p->error_indicator) return a;
    RESET();
    PVec *v;
    if (parse_expect(p, TOK_LBRACE) && (v = parse_star_named_expressions_rule(p)) &&
        parse_expect(p, TOK_RBRACE)) {
        a = new_expr(p, AST_EXPR_SET, mark_);
        if (a) a->v.Set.elts = SEQ(AstExprSeq, *v);
        return a;
    }
    if (p->error_indicator) return NULL;
    RESET();
    KeyValuePair *kv;
    if (parse_expect(p, TOK_LBRACE) && (kv = parse_kvpair_rule(p)) &&
        (v = parse_for_if_clauses_rule(p)) && parse_expect(p, TOK_RBRACE)) {
        a = new_expr(p, AST_EXPR_DICT_COMP, mark_);
        if (!a) return NULL;
        a->v.DictComp.key = kv->key;
        a->v.DictComp.value = kv->value;
        a->v.DictComp.generators = SEQ(AstComprehensionSeq, *v);
        return a;
    }
    if (p->error_indicator) return NULL;
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_dict_comprehension(p);
        if (p->error_indicator) return NULL;
        RESET();
    }
    if (parse_expect(p, TOK_LBRACE) && (a = parse_named_expression_rule(p)) &&
        (v = parse_for_if_clauses_rule(p)) && parse_expect(p, TOK_RBRACE))
        return make_comp(p, mark_, AST_EXPR_SET_COMP, a, v);
    if (p->error_indicator) return NULL;
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_comprehension(p);
        if (p->error_indicator) return NULL;
        RESET();
    }
    return NULL;
}

/* lambdef: 'lambda' [lambda_params] ':' expression */
AstExpr *parse_lambdef_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_KW_LAMBDA)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    AstArguments *a = parse_lambda_params_rule(p);
    CHECK_ERR();
    if (!a) p->mark = m;
    AstExpr *b;
    if (parse_expect(p, TOK_COLON) && (b = parse_expression_rule(p))) {
        AstExpr *e = new_expr(p, AST_EXPR_LAMBDA, mark_);
        if (!e) RULE_LEAVE(NULL);
        e->v.Lambda.args = a ? a : parse_empty_arguments(p);
        e->v.Lambda.body = b;
        RULE_LEAVE(e->v.Lambda.args ? e : NULL);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ---- comprehensions ---- */

/* for_if_clause:
 *     | ASYNC 'for' star_targets 'in' ~ disjunction ('if' disjunction)*
 *     | 'for' star_targets 'in' ~ disjunction ('if' disjunction)*
 *     | invalid_for_target */
static AstComprehension *for_if_clause_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a, *b;
    bool is_async = parse_expect(p, TOK_KW_ASYNC) != NULL;
    if (parse_expect(p, TOK_KW_FOR) && (a = parse_star_targets_rule(p)) &&
        parse_expect(p, TOK_KW_IN)) {
        if (!(b = parse_disjunction_rule(p))) RULE_LEAVE(NULL); /* cut */
        PVec ifs = {0};
        for (;;) {
            size_t m = p->mark;
            AstExpr *z;
            if (!parse_expect(p, TOK_KW_IF) || !(z = parse_disjunction_rule(p))) {
                CHECK_ERR();
                p->mark = m;
                break;
            }
            if (!pvec_push(p, &ifs, z)) RULE_LEAVE(NULL);
        }
        AstComprehension *c = parse_alloc(p, sizeof *c);
        if (!c) RULE_LEAVE(NULL);
        c->target = a;
        c->iter = b;
        c->ifs = SEQ(AstExprSeq, ifs);
        c->is_async = is_async;
        RULE_LEAVE(c);
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_for_target(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* for_if_clauses: for_if_clause+ */
PVec *parse_for_if_clauses_rule(Parser *p) {
    RULE_ENTER();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    for (;;) {
        size_t m = p->mark;
        AstComprehension *c = for_if_clause_rule(p);
        if (!c) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        if (!pvec_push(p, v, c)) RULE_LEAVE(NULL);
    }
    RULE_LEAVE(v->count ? v : NULL);
}

/* ---- call arguments ---- */

/* starred_expression: '*' expression */
AstExpr *parse_starred_expression_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if (parse_expect(p, TOK_STAR) && (a = parse_expression_rule(p)))
        RULE_LEAVE(make_starred(p, mark_, a, AST_LOAD));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static KeywordOrStarred *kw_or_starred(Parser *p, void *element, bool is_keyword) {
    KeywordOrStarred *k = parse_alloc(p, sizeof *k);
    if (k) k->element = element, k->is_keyword = is_keyword;
    return k;
}

static AstKeyword *make_keyword(Parser *p, size_t mark_, const char *arg, AstExpr *value) {
    AstKeyword *k = parse_alloc(p, sizeof *k);
    if (!k) return NULL;
    Extra x = EXTRA();
    k->arg = arg;
    k->value = value;
    k->lineno = x.lineno;
    k->col_offset = x.col_offset;
    k->end_lineno = x.end_lineno;
    k->end_col_offset = x.end_col_offset;
    return k;
}

/* kwarg_or_starred: invalid_kwarg | NAME '=' expression | starred_expression
 * kwarg_or_double_starred: invalid_kwarg | NAME '=' expression | '**' expression */
static KeywordOrStarred *kwarg_rule(Parser *p, bool double_starred) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_kwarg(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *a, *b;
    if ((a = parse_name_token(p)) && parse_expect(p, TOK_EQUAL) && (b = parse_expression_rule(p))) {
        AstKeyword *k = make_keyword(p, mark_, a->v.Name.id, b);
        RULE_LEAVE(k ? kw_or_starred(p, k, true) : NULL);
    }
    CHECK_ERR();
    RESET();
    if (!double_starred) {
        if ((a = parse_starred_expression_rule(p))) RULE_LEAVE(kw_or_starred(p, a, false));
    } else if (parse_expect(p, TOK_DOUBLESTAR) && (a = parse_expression_rule(p))) {
        AstKeyword *k = make_keyword(p, mark_, NULL, a);
        RULE_LEAVE(k ? kw_or_starred(p, k, true) : NULL);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ','.kwarg_or_starred+ / ','.kwarg_or_double_starred+ appended to v */
static bool gather_kwargs(Parser *p, PVec *v, bool double_starred) {
    KeywordOrStarred *k = kwarg_rule(p, double_starred);
    if (!k || !pvec_push(p, v, k)) return false;
    for (;;) {
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA) || !(k = kwarg_rule(p, double_starred))) {
            if (p->error_indicator) return false;
            p->mark = m;
            return true;
        }
        if (!pvec_push(p, v, k)) return false;
    }
}

/* kwargs:
 *     | ','.kwarg_or_starred+ ',' ','.kwarg_or_double_starred+
 *     | ','.kwarg_or_starred+
 *     | ','.kwarg_or_double_starred+ */
PVec *parse_kwargs_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    if (gather_kwargs(p, v, false)) {
        size_t m = p->mark;
        PVec more = {0};
        if (parse_expect(p, TOK_COMMA) && gather_kwargs(p, &more, true)) {
            for (size_t i = 0; i < more.count; i++)
                if (!pvec_push(p, v, more.items[i])) RULE_LEAVE(NULL);
            RULE_LEAVE(v);
        }
        CHECK_ERR();
        p->mark = m;
        RULE_LEAVE(v);
    }
    CHECK_ERR();
    RESET();
    v->count = 0;
    if (gather_kwargs(p, v, true)) RULE_LEAVE(v);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* starred_expression | (assignment_expression | expression !':=') !'=' */
static AstExpr *positional_arg(Parser *p) {
    MARK();
    AstExpr *a = parse_starred_expression_rule(p);
    if (a || p->error_indicator) return a;
    a = parse_assignment_expression_rule(p);
    if (p->error_indicator) return NULL;
    if (!a && (a = parse_expression_rule(p)) && parse_check_kind(p, TOK_COLONEQUAL)) a = NULL;
    if (a && !parse_check_kind(p, TOK_EQUAL)) return a;
    RESET();
    return NULL;
}

/* args:
 *     | ','.(starred_expression | (assignment_expression | expression !':=') !'=')+ [',' kwargs]
 *     | kwargs */
AstExpr *parse_args_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec args = {0};
    AstExpr *a = positional_arg(p);
    CHECK_ERR();
    if (a) {
        if (!pvec_push(p, &args, a)) RULE_LEAVE(NULL);
        for (;;) {
            size_t m = p->mark;
            if (!parse_expect(p, TOK_COMMA) || !(a = positional_arg(p))) {
                CHECK_ERR();
                p->mark = m;
                break;
            }
            if (!pvec_push(p, &args, a)) RULE_LEAVE(NULL);
        }
        size_t m = p->mark;
        PVec *kw = NULL;
        if (parse_expect(p, TOK_COMMA)) kw = parse_kwargs_rule(p);
        CHECK_ERR();
        if (!kw) p->mark = m;
        PVec keywords = {0};
        for (size_t i = 0; kw && i < kw->count; i++) {
            KeywordOrStarred *k = kw->items[i];
            if (!pvec_push(p, k->is_keyword ? &keywords : &args, k->element)) RULE_LEAVE(NULL);
        }
        AstExpr *c = new_expr(p, AST_EXPR_CALL, mark_);
        if (!c) RULE_LEAVE(NULL);
        c->v.Call.args = SEQ(AstExprSeq, args);
        c->v.Call.keywords = SEQ(AstKeywordSeq, keywords);
        RULE_LEAVE(c);
    }
    RESET();
    PVec *kw = parse_kwargs_rule(p);
    if (!kw) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    PVec keywords = {0};
    for (size_t i = 0; i < kw->count; i++) {
        KeywordOrStarred *k = kw->items[i];
        if (!pvec_push(p, k->is_keyword ? &keywords : &args, k->element)) RULE_LEAVE(NULL);
    }
    AstExpr *c = new_expr(p, AST_EXPR_CALL, mark_);
    if (!c) RULE_LEAVE(NULL);
    c->v.Call.args = SEQ(AstExprSeq, args);
    c->v.Call.keywords = SEQ(AstKeywordSeq, keywords);
    RULE_LEAVE(c);
}

/* arguments (memo): args [','] &')' | invalid_arguments */
AstExpr *parse_arguments_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_ARGUMENTS);
    MARK();
    AstExpr *a = parse_args_rule(p);
    if (a) {
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) p->mark = m;
        if (parse_check_kind(p, TOK_RPAR)) MEMO_RETURN(MEMO_ARGUMENTS, a);
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_arguments(p);
        CHECK_ERR();
        RESET();
    }
    MEMO_RETURN(MEMO_ARGUMENTS, NULL);
}

/* ---- assignment targets ---- */

static AstExpr *target_with_star_atom_rule(Parser *p);

/* star_targets: star_target !',' | star_target (',' star_target)* [','] */
AstExpr *parse_star_targets_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_star_target_rule(p);
    if (!a) RULE_LEAVE(NULL);
    if (!parse_check_kind(p, TOK_COMMA)) RULE_LEAVE(a);
    CHECK_ERR();
    PVec *v = gather(p, parse_star_target_rule, a, 1, true);
    if (!v) RULE_LEAVE(NULL);
    RULE_LEAVE(make_tuple(p, mark_, v, AST_STORE));
}

/* star_target (memo): '*' (!'*' star_target) | target_with_star_atom */
AstExpr *parse_star_target_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_STAR_TARGET);
    MARK();
    AstExpr *res = NULL;
    if (parse_expect(p, TOK_STAR)) {
        AstExpr *a;
        if (!parse_check_kind(p, TOK_STAR) && (a = parse_star_target_rule(p))) {
            AstExpr *inner = parse_set_expr_context(p, a, AST_STORE);
            res = inner ? make_starred(p, mark_, inner, AST_STORE) : NULL;
            MEMO_RETURN(MEMO_STAR_TARGET, res);
        }
        CHECK_ERR();
    }
    CHECK_ERR();
    RESET();
    res = target_with_star_atom_rule(p);
    if (!res) RESET();
    MEMO_RETURN(MEMO_STAR_TARGET, res);
}

/* t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead */
static AstExpr *subscript_attribute_target(Parser *p, AstExprContext ctx) {
    MARK();
    AstExpr *a = parse_t_primary_rule(p), *b;
    if (!a) return NULL;
    size_t m = p->mark;
    if (parse_expect(p, TOK_DOT) && (b = parse_name_token(p)) && !t_lookahead(p))
        return make_attribute(p, mark_, a, b, ctx);
    if (p->error_indicator) return NULL;
    p->mark = m;
    if (parse_expect(p, TOK_LSQB) && (b = parse_slices_rule(p)) && parse_expect(p, TOK_RSQB) &&
        !t_lookahead(p))
        return make_subscript(p, mark_, a, b, ctx);
    if (p->error_indicator) return NULL;
    RESET();
    return NULL;
}

/* star_targets_tuple_seq: star_target (',' star_target)+ [','] | star_target ','
 * star_targets_list_seq: ','.star_target+ [','] */
static PVec *star_targets_seq(Parser *p, bool tuple) {
    MARK();
    AstExpr *a = parse_star_target_rule(p);
    if (!a) return NULL;
    if (!tuple) return gather(p, parse_star_target_rule, a, 1, true);
    size_t after = p->mark;
    PVec *v = gather(p, parse_star_target_rule, a, 2, true);
    if (v || p->error_indicator) return v;
    p->mark = after;
    if (parse_expect(p, TOK_COMMA)) {
        v = parse_alloc(p, sizeof *v);
        if (!v || !pvec_push(p, v, a)) return NULL;
        return v;
    }
    if (!p->error_indicator) RESET();
    return NULL;
}

/* star_atom:
 *     | NAME | '(' target_with_star_atom ')' | '(' [star_targets_tuple_seq] ')'
 *     | '[' [star_targets_list_seq] ']' */
static AstExpr *star_atom_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p);
    if (a) RULE_LEAVE(parse_set_expr_context(p, a, AST_STORE));
    CHECK_ERR();
    if (parse_expect(p, TOK_LPAR) && (a = target_with_star_atom_rule(p)) &&
        parse_expect(p, TOK_RPAR))
        RULE_LEAVE(parse_set_expr_context(p, a, AST_STORE));
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_LPAR)) {
        size_t m = p->mark;
        PVec *v = star_targets_seq(p, true);
        CHECK_ERR();
        if (!v) p->mark = m;
        if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(make_tuple(p, mark_, v, AST_STORE));
        CHECK_ERR();
    }
    RESET();
    if (parse_expect(p, TOK_LSQB)) {
        size_t m = p->mark;
        PVec *v = star_targets_seq(p, false);
        CHECK_ERR();
        if (!v) p->mark = m;
        if (parse_expect(p, TOK_RSQB)) RULE_LEAVE(make_list(p, mark_, v, AST_STORE));
        CHECK_ERR();
    }
    RESET();
    RULE_LEAVE(NULL);
}

/* target_with_star_atom (memo):
 *     | t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead | star_atom */
static AstExpr *target_with_star_atom_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_TARGET_WITH_STAR_ATOM);
    MARK();
    AstExpr *a = subscript_attribute_target(p, AST_STORE);
    CHECK_ERR();
    if (!a) {
        RESET();
        a = star_atom_rule(p);
        if (!a) RESET();
    }
    MEMO_RETURN(MEMO_TARGET_WITH_STAR_ATOM, a);
}

/* single_subscript_attribute_target:
 *     t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead */
AstExpr *parse_single_subscript_attribute_target_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = subscript_attribute_target(p, AST_STORE);
    if (!a) RESET();
    RULE_LEAVE(a);
}

/* single_target: single_subscript_attribute_target | NAME | '(' single_target ')' */
AstExpr *parse_single_target_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_single_subscript_attribute_target_rule(p);
    if (a) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    a = parse_name_token(p);
    if (a) RULE_LEAVE(parse_set_expr_context(p, a, AST_STORE));
    CHECK_ERR();
    if (parse_expect(p, TOK_LPAR) && (a = parse_single_target_rule(p)) && parse_expect(p, TOK_RPAR))
        RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static AstExpr *del_target_rule(Parser *p);

/* del_targets: ','.del_target+ [','] */
PVec *parse_del_targets_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *v = gather(p, del_target_rule, NULL, 1, true);
    if (!v) RESET();
    RULE_LEAVE(v);
}

/* del_target (memo):
 *     | t_primary '.' NAME !t_lookahead | t_primary '[' slices ']' !t_lookahead | del_t_atom
 * del_t_atom: NAME | '(' del_target ')' | '(' [del_targets] ')' | '[' [del_targets] ']' */
static AstExpr *del_target_rule(Parser *p) {
    RULE_ENTER();
    MEMO_GET(MEMO_DEL_TARGET);
    MARK();
    AstExpr *a = subscript_attribute_target(p, AST_DEL);
    CHECK_ERR();
    if (a) MEMO_RETURN(MEMO_DEL_TARGET, a);
    RESET();
    if ((a = parse_name_token(p))) MEMO_RETURN(MEMO_DEL_TARGET, parse_set_expr_context(p, a, AST_DEL));
    CHECK_ERR();
    if (parse_expect(p, TOK_LPAR) && (a = del_target_rule(p)) && parse_expect(p, TOK_RPAR))
        MEMO_RETURN(MEMO_DEL_TARGET, parse_set_expr_context(p, a, AST_DEL));
    CHECK_ERR();
    RESET();
    TokenKind open[2] = {TOK_LPAR, TOK_LSQB}, close[2] = {TOK_RPAR, TOK_RSQB};
    for (int i = 0; i < 2; i++) {
        if (parse_expect(p, open[i])) {
            size_t m = p->mark;
            PVec *v = parse_del_targets_rule(p);
            CHECK_ERR();
            if (!v) p->mark = m;
            if (parse_expect(p, close[i]))
                MEMO_RETURN(MEMO_DEL_TARGET, i == 0 ? make_tuple(p, mark_, v, AST_DEL)
                                                    : make_list(p, mark_, v, AST_DEL));
            CHECK_ERR();
        }
        RESET();
    }
    MEMO_RETURN(MEMO_DEL_TARGET, NULL);
}
