/* parse_stmt.c — statement rules of Grammar/python.gram (3.11): simple and compound
 * statements, blocks, decorators, function and class definitions, parameters, imports.
 *
 * Constructs Ember does not support yet (except*) are recognised where CPython's
 * grammar would accept them and rejected with a "... is not supported" SyntaxError. */
#include <string.h>

#include "src/frontend/parser_internal.h"

#define MARK() size_t mark_ = p->mark
#define RESET() (p->mark = mark_)
#define EXTRA() parse_extra(p, mark_)

static void *raise_unsupported(Parser *p, const Token *t, const char *what) {
    return parse_raise_known(p, PARSE_SYNTAX_ERROR, t->lineno, t->col_offset + 1, t->end_lineno,
                             t->end_col_offset + 1, "%s is not supported", what);
}

/* &&'tok': the token must be there, else "expected 'tok'" (_PyPegen_expect_forced_token). */
static const Token *expect_forced(Parser *p, TokenKind kind, const char *spelling) {
    const Token *t = parse_peek(p);
    if (!t) return NULL;
    if (t->kind != kind) {
        RAISE_AT(t, "expected '%s'", spelling);
        return NULL;
    }
    p->mark++;
    return t;
}

/* ---- file, statements, blocks ---- */

/* statements: statement+ */
static PVec *statements_rule(Parser *p) {
    RULE_ENTER();
    PVec *all = parse_alloc(p, sizeof *all);
    if (!all) RULE_LEAVE(NULL);
    for (;;) {
        MARK();
        PVec *s = parse_statement_rule(p);
        if (!s) {
            CHECK_ERR();
            RESET();
            break;
        }
        for (size_t i = 0; i < s->count; i++)
            if (!pvec_push(p, all, s->items[i])) RULE_LEAVE(NULL);
    }
    RULE_LEAVE(all->count ? all : NULL);
}

/* file: [statements] ENDMARKER */
AstModule *parse_file_rule(Parser *p) {
    RULE_ENTER();
    PVec *a = statements_rule(p);
    CHECK_ERR();
    if (!parse_expect(p, TOK_ENDMARKER)) RULE_LEAVE(NULL);
    AstModule *m = parse_alloc(p, sizeof *m);
    if (!m) RULE_LEAVE(NULL);
    m->kind = AST_MOD_MODULE;
    if (a) m->body = SEQ(AstStmtSeq, *a);
    RULE_LEAVE(m);
}

/* eval: expressions NEWLINE* ENDMARKER */
AstModule *parse_eval_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_expressions_rule(p);
    if (a) {
        while (parse_expect(p, TOK_NEWLINE)) {}
        if (parse_expect(p, TOK_ENDMARKER)) {
            AstModule *m = parse_alloc(p, sizeof *m);
            if (!m) RULE_LEAVE(NULL);
            m->kind = AST_MOD_EXPRESSION;
            m->expr = a;
            RULE_LEAVE(m);
        }
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static AstStmt *compound_stmt_rule(Parser *p);
static PVec *simple_stmts_rule(Parser *p);

/* interactive: statement_newline
 * statement_newline:
 *     | compound_stmt NEWLINE | simple_stmts | NEWLINE (a Pass)
 *     | ENDMARKER (_PyPegen_interactive_exit: no statement) */
AstModule *parse_interactive_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *body = NULL;
    AstStmt *c = compound_stmt_rule(p);
    CHECK_ERR();
    if (c && parse_expect(p, TOK_NEWLINE)) {
        body = parse_alloc(p, sizeof *body);
        if (!body || !pvec_push(p, body, c)) RULE_LEAVE(NULL);
    }
    if (!body) {
        RESET();
        body = simple_stmts_rule(p);
        CHECK_ERR();
    }
    if (!body) {
        RESET();
        if (parse_expect(p, TOK_NEWLINE)) {
            AstStmt *pass = parse_stmt_new(p, AST_STMT_PASS, EXTRA());
            body = parse_alloc(p, sizeof *body);
            if (!pass || !body || !pvec_push(p, body, pass)) RULE_LEAVE(NULL);
        }
    }
    if (!body) {
        RESET();
        RULE_LEAVE(NULL);
    }
    AstModule *m = parse_alloc(p, sizeof *m);
    if (!m) RULE_LEAVE(NULL);
    m->kind = AST_MOD_INTERACTIVE;
    m->body = SEQ(AstStmtSeq, *body);
    RULE_LEAVE(m);
}

/* type_expressions (simplified to what it returns: the expressions, with the starred ones
 * unwrapped):
 *     | ','.expression+ [',' '*' expression] [',' '**' expression]
 *     | '*' expression [',' '**' expression] | '**' expression
 * func_type: '(' [type_expressions] ')' '->' expression NEWLINE* ENDMARKER */
AstModule *parse_func_type_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec args = {0};
    if (!parse_expect(p, TOK_LPAR)) RULE_LEAVE(NULL);
    if (!parse_check_kind(p, TOK_RPAR)) {
        bool star_seen = false, dstar_seen = false;
        for (;;) {
            bool dstar = parse_expect(p, TOK_DOUBLESTAR) != NULL;
            bool star = !dstar && parse_expect(p, TOK_STAR) != NULL;
            if ((star && (star_seen || dstar_seen)) || (!star && !dstar && (star_seen || dstar_seen)) ||
                (dstar && dstar_seen))
                break;
            AstExpr *e = parse_expression_rule(p);
            if (!e || !pvec_push(p, &args, e)) {
                CHECK_ERR();
                RESET();
                RULE_LEAVE(NULL);
            }
            star_seen |= star;
            dstar_seen |= dstar;
            if (!parse_expect(p, TOK_COMMA)) break;
        }
    }
    AstExpr *ret;
    if (!parse_expect(p, TOK_RPAR) || !parse_expect(p, TOK_RARROW) || !(ret = parse_expression_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    while (parse_expect(p, TOK_NEWLINE)) {}
    if (!parse_expect(p, TOK_ENDMARKER)) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstModule *m = parse_alloc(p, sizeof *m);
    if (!m) RULE_LEAVE(NULL);
    m->kind = AST_MOD_FUNCTION_TYPE;
    m->argtypes = SEQ(AstExprSeq, args);
    m->expr = ret;
    RULE_LEAVE(m);
}

/* statement: compound_stmt | simple_stmts */
void *parse_statement_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstStmt *c = compound_stmt_rule(p);
    if (c) {
        PVec *v = parse_alloc(p, sizeof *v);
        if (!v || !pvec_push(p, v, c)) RULE_LEAVE(NULL);
        RULE_LEAVE(v);
    }
    CHECK_ERR();
    RESET();
    PVec *s = simple_stmts_rule(p);
    CHECK_ERR();
    if (!s) RESET();
    RULE_LEAVE(s);
}

/* block (memo): NEWLINE INDENT statements DEDENT | simple_stmts | invalid_block */
AstStmtSeq *parse_block_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_BLOCK, &memo)) RULE_LEAVE(memo);
    MARK();
    AstStmtSeq *res = NULL;
    if (parse_expect(p, TOK_NEWLINE) && parse_expect(p, TOK_INDENT)) {
        PVec *a = statements_rule(p);
        CHECK_ERR();
        if (a && parse_expect(p, TOK_DEDENT)) {
            res = parse_alloc(p, sizeof *res);
            if (!res) RULE_LEAVE(NULL);
            *res = SEQ(AstStmtSeq, *a);
            goto done;
        }
    }
    CHECK_ERR();
    RESET();
    PVec *s = simple_stmts_rule(p);
    CHECK_ERR();
    if (s) {
        res = parse_alloc(p, sizeof *res);
        if (!res) RULE_LEAVE(NULL);
        *res = SEQ(AstStmtSeq, *s);
        goto done;
    }
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_block(p);
        CHECK_ERR();
        RESET();
    }
done:
    parse_memo_put(p, mark_, MEMO_BLOCK, res);
    RULE_LEAVE(res);
}

/* ---- simple statements ---- */

static AstStmt *simple_stmt_rule(Parser *p);

/* simple_stmts:
 *     | simple_stmt !';' NEWLINE
 *     | ';'.simple_stmt+ [';'] NEWLINE */
static PVec *simple_stmts_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstStmt *a = simple_stmt_rule(p);
    CHECK_ERR();
    if (a && !parse_check_kind(p, TOK_SEMI) && parse_expect(p, TOK_NEWLINE)) {
        PVec *v = parse_alloc(p, sizeof *v);
        if (!v || !pvec_push(p, v, a)) RULE_LEAVE(NULL);
        RULE_LEAVE(v);
    }
    CHECK_ERR();
    RESET();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    for (;;) {
        size_t before = p->mark;
        AstStmt *s = simple_stmt_rule(p);
        CHECK_ERR();
        if (!s) {
            p->mark = before;
            if (v->count) p->mark = before; /* leave the ';' consumed as the optional one */
            break;
        }
        if (!pvec_push(p, v, s)) RULE_LEAVE(NULL);
        size_t after = p->mark;
        if (!parse_expect(p, TOK_SEMI)) {
            CHECK_ERR();
            p->mark = after;
            break;
        }
    }
    CHECK_ERR();
    if (v->count && parse_expect(p, TOK_NEWLINE)) RULE_LEAVE(v);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static AstStmt *assignment_rule(Parser *p);
static AstStmt *return_stmt_rule(Parser *p);
static AstStmt *import_stmt_rule(Parser *p);
static AstStmt *raise_stmt_rule(Parser *p);
static AstStmt *del_stmt_rule(Parser *p);
static AstStmt *assert_stmt_rule(Parser *p);
static AstStmt *global_stmt_rule(Parser *p, bool nonlocal);

static AstStmt *simple_keyword_stmt(Parser *p, TokenKind kw, AstStmtKind kind) {
    MARK();
    if (!parse_expect(p, kw)) return NULL;
    return parse_stmt_new(p, kind, EXTRA());
}

/* simple_stmt (memo):
 *     | assignment | star_expressions | &'return' return_stmt | &('import' | 'from') import_stmt
 *     | &'raise' raise_stmt | 'pass' | &'del' del_stmt | &'yield' yield_stmt
 *     | &'assert' assert_stmt | 'break' | 'continue' | &'global' global_stmt
 *     | &'nonlocal' nonlocal_stmt */
static AstStmt *simple_stmt_body(Parser *p) {
    MARK();
    AstStmt *s = assignment_rule(p);
    if (s || p->error_indicator) return s;
    RESET();
    AstExpr *e = parse_star_expressions_rule(p);
    if (e) {
        s = parse_stmt_new(p, AST_STMT_EXPR, EXTRA());
        if (s) s->v.Expr.value = e;
        return s;
    }
    if (p->error_indicator) return NULL;
    RESET();
    const Token *t = parse_peek(p);
    if (!t) return NULL;
    switch (t->kind) {
    case TOK_KW_RETURN: s = return_stmt_rule(p); break;
    case TOK_KW_IMPORT:
    case TOK_KW_FROM: s = import_stmt_rule(p); break;
    case TOK_KW_RAISE: s = raise_stmt_rule(p); break;
    case TOK_KW_PASS: s = simple_keyword_stmt(p, TOK_KW_PASS, AST_STMT_PASS); break;
    case TOK_KW_DEL: s = del_stmt_rule(p); break;
    case TOK_KW_YIELD:
        e = parse_yield_expr_rule(p);
        if (e) {
            s = parse_stmt_new(p, AST_STMT_EXPR, EXTRA());
            if (s) s->v.Expr.value = e;
        }
        break;
    case TOK_KW_ASSERT: s = assert_stmt_rule(p); break;
    case TOK_KW_BREAK: s = simple_keyword_stmt(p, TOK_KW_BREAK, AST_STMT_BREAK); break;
    case TOK_KW_CONTINUE: s = simple_keyword_stmt(p, TOK_KW_CONTINUE, AST_STMT_CONTINUE); break;
    case TOK_KW_GLOBAL: s = global_stmt_rule(p, false); break;
    case TOK_KW_NONLOCAL: s = global_stmt_rule(p, true); break;
    default: s = NULL;
    }
    if (!s) RESET();
    return s;
}

static AstStmt *simple_stmt_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_SIMPLE_STMT, &memo)) RULE_LEAVE(memo);
    MARK();
    AstStmt *s = simple_stmt_body(p);
    CHECK_ERR();
    parse_memo_put(p, mark_, MEMO_SIMPLE_STMT, s);
    RULE_LEAVE(s);
}

/* annotated_rhs: yield_expr | star_expressions */
static AstExpr *annotated_rhs_rule(Parser *p) {
    AstExpr *e = parse_yield_expr_rule(p);
    if (e || p->error_indicator) return e;
    return parse_star_expressions_rule(p);
}

/* ['=' d=annotated_rhs] */
static AstExpr *opt_assigned_value(Parser *p) {
    MARK();
    if (!parse_expect(p, TOK_EQUAL)) {
        RESET();
        return NULL;
    }
    AstExpr *d = annotated_rhs_rule(p);
    if (!d) RESET();
    return d;
}

static AstStmt *make_ann_assign(Parser *p, size_t mark_, AstExpr *target, AstExpr *ann,
                                AstExpr *value, int simple) {
    AstStmt *s = parse_stmt_new(p, AST_STMT_ANN_ASSIGN, EXTRA());
    if (!s) return NULL;
    s->v.AnnAssign.target = target;
    s->v.AnnAssign.annotation = ann;
    s->v.AnnAssign.value = value;
    s->v.AnnAssign.simple = simple;
    return s;
}

/* augassign: '+=' | '-=' | ... */
static int augassign_rule(Parser *p) {
    const Token *t = parse_peek(p);
    if (!t) return 0;
    AstOperator op;
    switch (t->kind) {
    case TOK_PLUSEQUAL: op = AST_ADD; break;
    case TOK_MINEQUAL: op = AST_SUB; break;
    case TOK_STAREQUAL: op = AST_MULT; break;
    case TOK_ATEQUAL: op = AST_MAT_MULT; break;
    case TOK_SLASHEQUAL: op = AST_DIV; break;
    case TOK_PERCENTEQUAL: op = AST_MOD; break;
    case TOK_AMPEREQUAL: op = AST_BIT_AND; break;
    case TOK_VBAREQUAL: op = AST_BIT_OR; break;
    case TOK_CIRCUMFLEXEQUAL: op = AST_BIT_XOR; break;
    case TOK_LEFTSHIFTEQUAL: op = AST_LSHIFT; break;
    case TOK_RIGHTSHIFTEQUAL: op = AST_RSHIFT; break;
    case TOK_DOUBLESTAREQUAL: op = AST_POW; break;
    case TOK_DOUBLESLASHEQUAL: op = AST_FLOOR_DIV; break;
    default: return 0;
    }
    p->mark++;
    return (int)op;
}

/* '(' b=single_target ')' | single_subscript_attribute_target */
static AstExpr *ann_target_alt(Parser *p) {
    MARK();
    if (parse_expect(p, TOK_LPAR)) {
        AstExpr *b = parse_single_target_rule(p);
        if (b && parse_expect(p, TOK_RPAR)) return b;
        if (p->error_indicator) return NULL;
    }
    RESET();
    return parse_single_subscript_attribute_target_rule(p);
}

/* assignment:
 *     | NAME ':' expression ['=' annotated_rhs]
 *     | ('(' single_target ')' | single_subscript_attribute_target) ':' expression ['=' annotated_rhs]
 *     | (star_targets '=')+ (yield_expr | star_expressions) !'=' [TYPE_COMMENT]
 *     | single_target augassign ~ (yield_expr | star_expressions)
 *     | invalid_assignment */
static AstStmt *assignment_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p), *b;
    if (a && parse_expect(p, TOK_COLON) && (b = parse_expression_rule(p))) {
        AstExpr *c = opt_assigned_value(p);
        CHECK_ERR();
        RULE_LEAVE(make_ann_assign(p, mark_, parse_set_expr_context(p, a, AST_STORE), b, c, 1));
    }
    CHECK_ERR();
    RESET();
    a = ann_target_alt(p);
    if (a && parse_expect(p, TOK_COLON) && (b = parse_expression_rule(p))) {
        AstExpr *c = opt_assigned_value(p);
        CHECK_ERR();
        RULE_LEAVE(make_ann_assign(p, mark_, a, b, c, 0));
    }
    CHECK_ERR();
    RESET();
    PVec targets = {0};
    for (;;) {
        size_t m = p->mark;
        AstExpr *z = parse_star_targets_rule(p);
        if (!z || !parse_expect(p, TOK_EQUAL)) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        if (!pvec_push(p, &targets, z)) RULE_LEAVE(NULL);
    }
    if (targets.count) {
        AstExpr *v = annotated_rhs_rule(p);
        CHECK_ERR();
        if (v && !parse_check_kind(p, TOK_EQUAL)) {
            CHECK_ERR();
            AstStmt *s = parse_stmt_new(p, AST_STMT_ASSIGN, EXTRA());
            if (!s) RULE_LEAVE(NULL);
            s->v.Assign.targets = SEQ(AstExprSeq, targets);
            s->v.Assign.value = v;
            RULE_LEAVE(s);
        }
        CHECK_ERR();
    }
    RESET();
    a = parse_single_target_rule(p);
    CHECK_ERR();
    int op;
    if (a && (op = augassign_rule(p))) {
        AstExpr *c = annotated_rhs_rule(p);
        CHECK_ERR();
        if (!c) RULE_LEAVE(NULL); /* cut */
        AstStmt *s = parse_stmt_new(p, AST_STMT_AUG_ASSIGN, EXTRA());
        if (!s) RULE_LEAVE(NULL);
        s->v.AugAssign.target = a;
        s->v.AugAssign.op = (AstOperator)op;
        s->v.AugAssign.value = c;
        RULE_LEAVE(s);
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_assignment(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* return_stmt: 'return' [star_expressions] */
static AstStmt *return_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_KW_RETURN)) RULE_LEAVE(NULL);
    AstExpr *a = parse_star_expressions_rule(p);
    CHECK_ERR();
    AstStmt *s = parse_stmt_new(p, AST_STMT_RETURN, EXTRA());
    if (s) s->v.Return.value = a;
    RULE_LEAVE(s);
}

/* raise_stmt: 'raise' expression ['from' expression] | 'raise' */
static AstStmt *raise_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_KW_RAISE)) RULE_LEAVE(NULL);
    AstExpr *a = parse_expression_rule(p), *b = NULL;
    CHECK_ERR();
    if (a) {
        size_t m = p->mark;
        if (parse_expect(p, TOK_KW_FROM)) {
            b = parse_expression_rule(p);
            CHECK_ERR();
            if (!b) p->mark = m;
        }
        CHECK_ERR();
    } else {
        p->mark = mark_ + 1;
    }
    AstStmt *s = parse_stmt_new(p, AST_STMT_RAISE, EXTRA());
    if (s) {
        s->v.Raise.exc = a;
        s->v.Raise.cause = b;
    }
    RULE_LEAVE(s);
}

/* global_stmt: 'global' ','.NAME+   nonlocal_stmt: 'nonlocal' ','.NAME+ */
static AstStmt *global_stmt_rule(Parser *p, bool nonlocal) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, nonlocal ? TOK_KW_NONLOCAL : TOK_KW_GLOBAL)) RULE_LEAVE(NULL);
    PVec names = {0};
    for (;;) {
        AstExpr *n = parse_name_token(p);
        CHECK_ERR();
        if (!n) break;
        if (!pvec_push(p, &names, (void *)n->v.Name.id)) RULE_LEAVE(NULL);
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) break;
        if (!parse_check_kind(p, TOK_NAME)) {
            p->mark = m;
            break;
        }
    }
    CHECK_ERR();
    if (!names.count) {
        RESET();
        RULE_LEAVE(NULL);
    }
    AstStmt *s = parse_stmt_new(p, nonlocal ? AST_STMT_NONLOCAL : AST_STMT_GLOBAL, EXTRA());
    if (!s) RULE_LEAVE(NULL);
    if (nonlocal) s->v.Nonlocal.names = SEQ(AstIdentSeq, names);
    else s->v.Global.names = SEQ(AstIdentSeq, names);
    RULE_LEAVE(s);
}

/* del_stmt: 'del' del_targets &(';' | NEWLINE) | invalid_del_stmt */
static AstStmt *del_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_KW_DEL)) {
        PVec *a = parse_del_targets_rule(p);
        CHECK_ERR();
        if (a && (parse_check_kind(p, TOK_SEMI) || parse_check_kind(p, TOK_NEWLINE))) {
            AstStmt *s = parse_stmt_new(p, AST_STMT_DELETE, EXTRA());
            if (s) s->v.Delete.targets = SEQ(AstExprSeq, *a);
            RULE_LEAVE(s);
        }
        CHECK_ERR();
    }
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_del_stmt(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* assert_stmt: 'assert' expression [',' expression] */
static AstStmt *assert_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_expect(p, TOK_KW_ASSERT)) RULE_LEAVE(NULL);
    AstExpr *a = parse_expression_rule(p), *b = NULL;
    CHECK_ERR();
    if (!a) {
        RESET();
        RULE_LEAVE(NULL);
    }
    size_t m = p->mark;
    if (parse_expect(p, TOK_COMMA)) {
        b = parse_expression_rule(p);
        CHECK_ERR();
        if (!b) p->mark = m;
    }
    CHECK_ERR();
    AstStmt *s = parse_stmt_new(p, AST_STMT_ASSERT, EXTRA());
    if (s) {
        s->v.Assert.test = a;
        s->v.Assert.msg = b;
    }
    RULE_LEAVE(s);
}

/* ---- imports ---- */

/* dotted_name: dotted_name '.' NAME | NAME  (left-recursive: a loop; memoised) */
static AstExpr *dotted_name_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_DOTTED_NAME, &memo)) RULE_LEAVE(memo);
    MARK();
    AstExpr *a = parse_name_token(p);
    while (a) {
        size_t m = p->mark;
        AstExpr *b;
        if (!parse_expect(p, TOK_DOT) || !(b = parse_name_token(p))) {
            p->mark = m;
            break;
        }
        size_t la = strlen(a->v.Name.id), lb = strlen(b->v.Name.id);
        char *joined = parse_alloc(p, la + lb + 2);
        if (!joined) RULE_LEAVE(NULL);
        memcpy(joined, a->v.Name.id, la);
        joined[la] = '.';
        memcpy(joined + la + 1, b->v.Name.id, lb + 1);
        AstExpr *n = parse_expr_new(p, AST_EXPR_NAME, EXTRA());
        if (!n) RULE_LEAVE(NULL);
        n->v.Name.id = joined;
        n->v.Name.ctx = AST_LOAD;
        a = n;
    }
    CHECK_ERR();
    if (!a) RESET();
    parse_memo_put(p, mark_, MEMO_DOTTED_NAME, a);
    RULE_LEAVE(a);
}

static AstAlias *make_alias(Parser *p, size_t mark_, const char *name, AstExpr *as) {
    AstAlias *al = parse_alloc(p, sizeof *al);
    if (!al) return NULL;
    Extra x = EXTRA();
    al->name = name;
    al->asname = as ? as->v.Name.id : NULL;
    al->lineno = x.lineno;
    al->col_offset = x.col_offset;
    al->end_lineno = x.end_lineno;
    al->end_col_offset = x.end_col_offset;
    return al;
}

/* ['as' z=NAME] */
static AstExpr *opt_as_name(Parser *p) {
    MARK();
    AstExpr *z;
    if (parse_expect(p, TOK_KW_AS) && (z = parse_name_token(p))) return z;
    RESET();
    return NULL;
}

/* dotted_as_name: dotted_name ['as' NAME]   (dotted_as_names: ','.dotted_as_name+) */
static PVec *dotted_as_names_rule(Parser *p) {
    RULE_ENTER();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    for (;;) {
        size_t mark_ = p->mark;
        AstExpr *a = dotted_name_rule(p);
        CHECK_ERR();
        if (!a) break;
        AstExpr *b = opt_as_name(p);
        CHECK_ERR();
        AstAlias *al = make_alias(p, mark_, a->v.Name.id, b);
        if (!al || !pvec_push(p, v, al)) RULE_LEAVE(NULL);
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) break;
        size_t m2 = p->mark;
        if (!dotted_name_rule(p)) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        p->mark = m2;
    }
    CHECK_ERR();
    RULE_LEAVE(v->count ? v : NULL);
}

/* import_from_as_name: NAME ['as' NAME]   (import_from_as_names: ','.import_from_as_name+) */
PVec *parse_import_from_as_names(Parser *p) {
    RULE_ENTER();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    for (;;) {
        size_t mark_ = p->mark;
        AstExpr *a = parse_name_token(p);
        CHECK_ERR();
        if (!a) break;
        AstExpr *b = opt_as_name(p);
        CHECK_ERR();
        AstAlias *al = make_alias(p, mark_, a->v.Name.id, b);
        if (!al || !pvec_push(p, v, al)) RULE_LEAVE(NULL);
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) break;
        if (!parse_check_kind(p, TOK_NAME)) {
            p->mark = m;
            break;
        }
    }
    CHECK_ERR();
    RULE_LEAVE(v->count ? v : NULL);
}

/* import_from_targets:
 *     | '(' import_from_as_names [','] ')'
 *     | import_from_as_names !','
 *     | '*'
 *     | invalid_import_from_targets */
static PVec *import_from_targets_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_LPAR)) {
        PVec *a = parse_import_from_as_names(p);
        CHECK_ERR();
        if (a) {
            parse_expect(p, TOK_COMMA);
            if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(a);
        }
        CHECK_ERR();
    }
    RESET();
    PVec *a = parse_import_from_as_names(p);
    CHECK_ERR();
    if (a && !parse_check_kind(p, TOK_COMMA)) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_STAR)) {
        AstAlias *al = make_alias(p, mark_, "*", NULL);
        PVec *v = parse_alloc(p, sizeof *v);
        if (!al || !v || !pvec_push(p, v, al)) RULE_LEAVE(NULL);
        RULE_LEAVE(v);
    }
    CHECK_ERR();
    if (p->call_invalid_rules) {
        parse_invalid_import_from_targets(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* ('.' | '...')* counted as CPython's _PyPegen_seq_count_dots */
static int leading_dots(Parser *p) {
    int n = 0;
    for (;;) {
        if (parse_expect(p, TOK_DOT)) n += 1;
        else if (parse_expect(p, TOK_ELLIPSIS)) n += 3;
        else return n;
    }
}

/* import_stmt: import_name | import_from
 * import_name: 'import' dotted_as_names
 * import_from:
 *     | 'from' ('.' | '...')* dotted_name 'import' import_from_targets
 *     | 'from' ('.' | '...')+ 'import' import_from_targets */
static AstStmt *import_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (parse_expect(p, TOK_KW_IMPORT)) {
        PVec *a = dotted_as_names_rule(p);
        CHECK_ERR();
        if (a) {
            AstStmt *s = parse_stmt_new(p, AST_STMT_IMPORT, EXTRA());
            if (s) s->v.Import.names = SEQ(AstAliasSeq, *a);
            RULE_LEAVE(s);
        }
        RESET();
        RULE_LEAVE(NULL);
    }
    if (!parse_expect(p, TOK_KW_FROM)) RULE_LEAVE(NULL);
    size_t after_from = p->mark;
    int dots = leading_dots(p);
    CHECK_ERR();
    AstExpr *b = dotted_name_rule(p);
    CHECK_ERR();
    if (b && parse_expect(p, TOK_KW_IMPORT)) {
        PVec *c = import_from_targets_rule(p);
        CHECK_ERR();
        if (c) {
            AstStmt *s = parse_stmt_new(p, AST_STMT_IMPORT_FROM, EXTRA());
            if (!s) RULE_LEAVE(NULL);
            s->v.ImportFrom.module = b->v.Name.id;
            s->v.ImportFrom.names = SEQ(AstAliasSeq, *c);
            s->v.ImportFrom.level = dots;
            RULE_LEAVE(s);
        }
    }
    CHECK_ERR();
    p->mark = after_from;
    dots = leading_dots(p);
    CHECK_ERR();
    if (dots > 0 && parse_expect(p, TOK_KW_IMPORT)) {
        PVec *c = import_from_targets_rule(p);
        CHECK_ERR();
        if (c) {
            AstStmt *s = parse_stmt_new(p, AST_STMT_IMPORT_FROM, EXTRA());
            if (!s) RULE_LEAVE(NULL);
            s->v.ImportFrom.names = SEQ(AstAliasSeq, *c);
            s->v.ImportFrom.level = dots;
            RULE_LEAVE(s);
        }
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ---- compound statements ---- */

static AstStmt *function_def_rule(Parser *p);
static AstStmt *class_def_rule(Parser *p);
static AstStmt *if_stmt_rule(Parser *p, bool elif);
static AstStmt *with_stmt_rule(Parser *p);
static AstStmt *for_stmt_rule(Parser *p);
static AstStmt *try_stmt_rule(Parser *p);
static AstStmt *while_stmt_rule(Parser *p);

/* compound_stmt:
 *     | &('def' | '@' | ASYNC) function_def | &'if' if_stmt | &('class' | '@') class_def
 *     | &('with' | ASYNC) with_stmt | &('for' | ASYNC) for_stmt | &'try' try_stmt
 *     | &'while' while_stmt | match_stmt */
static AstStmt *compound_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    if (!t) RULE_LEAVE(NULL);
    AstStmt *s = NULL;
    TokenKind k = t->kind;
    if (k == TOK_KW_DEF || k == TOK_AT || k == TOK_KW_ASYNC) {
        s = function_def_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_IF) {
        s = if_stmt_rule(p, false);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_CLASS || k == TOK_AT) {
        s = class_def_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_WITH || k == TOK_KW_ASYNC) {
        s = with_stmt_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_FOR || k == TOK_KW_ASYNC) {
        s = for_stmt_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_TRY) {
        s = try_stmt_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    if (k == TOK_KW_WHILE) {
        s = while_stmt_rule(p);
        if (s || p->error_indicator) RULE_LEAVE(s);
        RESET();
    }
    s = parse_match_stmt_rule(p);
    if (!s) RESET();
    RULE_LEAVE(s);
}

/* decorators: ('@' named_expression NEWLINE)+ */
static PVec *decorators_rule(Parser *p) {
    RULE_ENTER();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    for (;;) {
        size_t m = p->mark;
        AstExpr *f;
        if (!parse_expect(p, TOK_AT) || !(f = parse_named_expression_rule(p)) ||
            !parse_expect(p, TOK_NEWLINE)) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        if (!pvec_push(p, v, f)) RULE_LEAVE(NULL);
    }
    RULE_LEAVE(v->count ? v : NULL);
}

/* class_def_raw:
 *     | invalid_class_def_raw
 *     | 'class' NAME ['(' [arguments] ')'] ':' block */
static AstStmt *class_def_raw_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_class_def_raw(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *a;
    if (!parse_expect(p, TOK_KW_CLASS) || !(a = parse_name_token(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstExpr *b = NULL;
    size_t m = p->mark;
    if (parse_expect(p, TOK_LPAR)) { /* ['(' [arguments] ')'] */
        b = parse_arguments_rule(p);
        CHECK_ERR();
        if (!parse_expect(p, TOK_RPAR)) {
            CHECK_ERR();
            b = NULL;
            p->mark = m;
        }
    }
    AstStmtSeq *c;
    if (!parse_expect(p, TOK_COLON) || !(c = parse_block_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstStmt *s = parse_stmt_new(p, AST_STMT_CLASS_DEF, EXTRA());
    if (!s) RULE_LEAVE(NULL);
    s->v.ClassDef.name = a->v.Name.id;
    if (b) {
        s->v.ClassDef.bases = b->v.Call.args;
        s->v.ClassDef.keywords = b->v.Call.keywords;
    }
    s->v.ClassDef.body = *c;
    RULE_LEAVE(s);
}

/* class_def: decorators class_def_raw | class_def_raw */
static AstStmt *class_def_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *d = decorators_rule(p);
    CHECK_ERR();
    if (d) {
        AstStmt *s = class_def_raw_rule(p);
        CHECK_ERR();
        if (s) {
            AstStmt *n = parse_alloc(p, sizeof *n);
            if (!n) RULE_LEAVE(NULL);
            *n = *s;
            n->v.ClassDef.decorator_list = SEQ(AstExprSeq, *d);
            RULE_LEAVE(n);
        }
    }
    RESET();
    AstStmt *s = class_def_raw_rule(p);
    if (!s) RESET();
    RULE_LEAVE(s);
}

/* The rest of a def after 'def' (or ASYNC 'def'): NAME &&'(' [params] ')' ['->' expression]
 * &&':' [func_type_comment] block.  NULL (mark not restored) when it does not match. */
static AstStmt *def_rest(Parser *p, size_t mark_, AstStmtKind kind) {
    AstExpr *n;
    if (!(n = parse_name_token(p)) || !expect_forced(p, TOK_LPAR, "(")) return NULL;
    AstArguments *params = parse_params_rule(p);
    if (p->error_indicator || !parse_expect(p, TOK_RPAR)) return NULL;
    AstExpr *ret = NULL;
    size_t m = p->mark;
    if (parse_expect(p, TOK_RARROW)) {
        ret = parse_expression_rule(p);
        if (p->error_indicator) return NULL;
        if (!ret) p->mark = m;
    }
    if (p->error_indicator) return NULL;
    AstStmtSeq *b;
    if (!expect_forced(p, TOK_COLON, ":") || !(b = parse_block_rule(p))) return NULL;
    AstStmt *s = parse_stmt_new(p, kind, EXTRA());
    if (!s) return NULL;
    s->v.FunctionDef.name = n->v.Name.id;
    s->v.FunctionDef.args = params ? params : parse_empty_arguments(p);
    s->v.FunctionDef.body = *b;
    s->v.FunctionDef.returns = ret;
    return s->v.FunctionDef.args ? s : NULL;
}

/* function_def_raw:
 *     | invalid_def_raw
 *     | 'def' NAME &&'(' [params] ')' ['->' expression] &&':' [func_type_comment] block
 *     | ASYNC 'def' NAME &&'(' [params] ')' ['->' expression] &&':' [func_type_comment] block */
static AstStmt *function_def_raw_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_def_raw(p);
        CHECK_ERR();
        RESET();
    }
    AstStmt *s = NULL;
    if (parse_expect(p, TOK_KW_DEF) && (s = def_rest(p, mark_, AST_STMT_FUNCTION_DEF))) RULE_LEAVE(s);
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_KW_ASYNC) && parse_expect(p, TOK_KW_DEF) &&
        (s = def_rest(p, mark_, AST_STMT_ASYNC_FUNCTION_DEF)))
        RULE_LEAVE(s);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* function_def: decorators function_def_raw | function_def_raw */
static AstStmt *function_def_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *d = decorators_rule(p);
    CHECK_ERR();
    if (d) {
        AstStmt *s = function_def_raw_rule(p);
        CHECK_ERR();
        if (s) {
            AstStmt *n = parse_alloc(p, sizeof *n);
            if (!n) RULE_LEAVE(NULL);
            *n = *s;
            n->v.FunctionDef.decorator_list = SEQ(AstExprSeq, *d);
            RULE_LEAVE(n);
        }
    }
    RESET();
    AstStmt *s = function_def_raw_rule(p);
    if (!s) RESET();
    RULE_LEAVE(s);
}

/* ---- parameters (shared by def and lambda; `lambda` selects the lambda_ rules) ---- */

/* param: NAME annotation?    lambda_param: NAME
 * annotation: ':' expression */
AstArg *parse_param(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p);
    if (!a) RULE_LEAVE(NULL);
    AstExpr *ann = NULL;
    if (!lambda) {
        size_t m = p->mark;
        if (parse_expect(p, TOK_COLON)) {
            ann = parse_expression_rule(p);
            CHECK_ERR();
            if (!ann) p->mark = m;
        }
        CHECK_ERR();
    }
    AstArg *arg = parse_alloc(p, sizeof *arg);
    if (!arg) RULE_LEAVE(NULL);
    Extra x = EXTRA();
    arg->arg = a->v.Name.id;
    arg->annotation = ann;
    arg->lineno = x.lineno;
    arg->col_offset = x.col_offset;
    arg->end_lineno = x.end_lineno;
    arg->end_col_offset = x.end_col_offset;
    RULE_LEAVE(arg);
}

/* param_star_annotation: NAME star_annotation;  star_annotation: ':' star_expression */
static AstArg *param_star_annotation(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p), *ann;
    if (!a || !parse_expect(p, TOK_COLON) || !(ann = parse_star_expression_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstArg *arg = parse_alloc(p, sizeof *arg);
    if (!arg) RULE_LEAVE(NULL);
    Extra x = EXTRA();
    arg->arg = a->v.Name.id;
    arg->annotation = ann;
    arg->lineno = x.lineno;
    arg->col_offset = x.col_offset;
    arg->end_lineno = x.end_lineno;
    arg->end_col_offset = x.end_col_offset;
    RULE_LEAVE(arg);
}

/* ',' | &')'   (lambda: ',' | &':') */
static bool param_end(Parser *p, bool lambda) {
    if (parse_expect(p, TOK_COMMA)) return true;
    return parse_check_kind(p, lambda ? TOK_COLON : TOK_RPAR);
}

/* default: '=' expression | invalid_default */
static AstExpr *default_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a;
    if (parse_expect(p, TOK_EQUAL) && (a = parse_expression_rule(p))) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_default(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* param_no_default: param ',' | param &')' */
AstArg *parse_param_no_default(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    AstArg *a = parse_param(p, lambda);
    if (a && param_end(p, lambda)) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static NameDefaultPair *make_pair(Parser *p, AstArg *a, AstExpr *v) {
    NameDefaultPair *pair = parse_alloc(p, sizeof *pair);
    if (pair) {
        pair->arg = a;
        pair->value = v;
    }
    return pair;
}

/* param_with_default: param default ',' | param default &')' */
NameDefaultPair *parse_param_with_default(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    AstArg *a = parse_param(p, lambda);
    AstExpr *c;
    if (a && (c = default_rule(p)) && param_end(p, lambda)) RULE_LEAVE(make_pair(p, a, c));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* param_maybe_default: param default? ',' | param default? &')' */
NameDefaultPair *parse_param_maybe_default(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    AstArg *a = parse_param(p, lambda);
    if (!a) RULE_LEAVE(NULL);
    size_t m = p->mark;
    AstExpr *c = default_rule(p);
    CHECK_ERR();
    if (!c) p->mark = m;
    if (param_end(p, lambda)) RULE_LEAVE(make_pair(p, a, c));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* param_no_default* or + */
static bool params_no_default(Parser *p, bool lambda, PVec *v) {
    for (;;) {
        AstArg *a = parse_param_no_default(p, lambda);
        if (!a) return !p->error_indicator;
        if (!pvec_push(p, v, a)) return false;
    }
}

static bool params_with_default(Parser *p, bool lambda, PVec *v, bool maybe) {
    for (;;) {
        NameDefaultPair *a = maybe ? parse_param_maybe_default(p, lambda)
                                   : parse_param_with_default(p, lambda);
        if (!a) return !p->error_indicator;
        if (!pvec_push(p, v, a)) return false;
    }
}

/* slash_no_default: param_no_default+ '/' ',' | param_no_default+ '/' &')' */
PVec *parse_slash_no_default(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    PVec *a = parse_alloc(p, sizeof *a);
    if (!a || !params_no_default(p, lambda, a)) RULE_LEAVE(NULL);
    if (a->count && parse_expect(p, TOK_SLASH) && param_end(p, lambda)) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* slash_with_default: param_no_default* param_with_default+ '/' (',' | &')') */
SlashWithDefault *parse_slash_with_default(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    SlashWithDefault *s = parse_alloc(p, sizeof *s);
    if (!s || !params_no_default(p, lambda, &s->plain_names) ||
        !params_with_default(p, lambda, &s->names_with_defaults, false))
        RULE_LEAVE(NULL);
    if (s->names_with_defaults.count && parse_expect(p, TOK_SLASH) && param_end(p, lambda))
        RULE_LEAVE(s);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* kwds: invalid_kwds | '**' param_no_default */
static AstArg *kwds_rule(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        if (lambda) parse_invalid_lambda_kwds(p);
        else parse_invalid_kwds(p);
        CHECK_ERR();
        RESET();
    }
    AstArg *a;
    if (parse_expect(p, TOK_DOUBLESTAR) && (a = parse_param_no_default(p, lambda))) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static StarEtc *make_star_etc(Parser *p, AstArg *vararg, PVec *kwonly, AstArg *kwarg) {
    StarEtc *s = parse_alloc(p, sizeof *s);
    if (!s) return NULL;
    s->vararg = vararg;
    if (kwonly) s->kwonlyargs = *kwonly;
    s->kwarg = kwarg;
    return s;
}

/* [kwds] */
static AstArg *opt_kwds(Parser *p, bool lambda) {
    size_t m = p->mark;
    AstArg *k = kwds_rule(p, lambda);
    if (!k) p->mark = m;
    return k;
}

/* star_etc:
 *     | invalid_star_etc
 *     | '*' param_no_default param_maybe_default* [kwds]
 *     | '*' param_no_default_star_annotation param_maybe_default* [kwds]
 *     | '*' ',' param_maybe_default+ [kwds]
 *     | kwds */
static StarEtc *star_etc_rule(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        if (lambda) parse_invalid_lambda_star_etc(p);
        else parse_invalid_star_etc(p);
        CHECK_ERR();
        RESET();
    }
    PVec b = {0};
    AstArg *a, *c;
    if (parse_expect(p, TOK_STAR) && (a = parse_param_no_default(p, lambda))) {
        if (!params_with_default(p, lambda, &b, true)) RULE_LEAVE(NULL);
        c = opt_kwds(p, lambda);
        CHECK_ERR();
        RULE_LEAVE(make_star_etc(p, a, &b, c));
    }
    CHECK_ERR();
    RESET();
    if (!lambda && parse_expect(p, TOK_STAR)) {
        size_t m = p->mark;
        AstArg *sa = param_star_annotation(p);
        if (sa && param_end(p, false)) {
            if (!params_with_default(p, lambda, &b, true)) RULE_LEAVE(NULL);
            c = opt_kwds(p, lambda);
            CHECK_ERR();
            RULE_LEAVE(make_star_etc(p, sa, &b, c));
        }
        CHECK_ERR();
        (void)m;
    }
    RESET();
    if (parse_expect(p, TOK_STAR) && parse_expect(p, TOK_COMMA)) {
        if (!params_with_default(p, lambda, &b, true)) RULE_LEAVE(NULL);
        if (b.count) {
            c = opt_kwds(p, lambda);
            CHECK_ERR();
            RULE_LEAVE(make_star_etc(p, NULL, &b, c));
        }
    }
    CHECK_ERR();
    RESET();
    a = kwds_rule(p, lambda);
    if (a) RULE_LEAVE(make_star_etc(p, NULL, NULL, a));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* [star_etc] */
static StarEtc *opt_star_etc(Parser *p, bool lambda, bool *err) {
    size_t m = p->mark;
    StarEtc *s = star_etc_rule(p, lambda);
    *err = p->error_indicator;
    if (!s) p->mark = m;
    return s;
}

/* parameters:
 *     | slash_no_default param_no_default* param_with_default* [star_etc]
 *     | slash_with_default param_with_default* [star_etc]
 *     | param_no_default+ param_with_default* [star_etc]
 *     | param_with_default+ [star_etc]
 *     | star_etc */
static AstArguments *parameters_rule(Parser *p, bool lambda) {
    RULE_ENTER();
    MARK();
    bool err;
    PVec *a = parse_slash_no_default(p, lambda);
    CHECK_ERR();
    if (a) {
        PVec b = {0}, c = {0};
        if (!params_no_default(p, lambda, &b) || !params_with_default(p, lambda, &c, false))
            RULE_LEAVE(NULL);
        StarEtc *d = opt_star_etc(p, lambda, &err);
        if (err) RULE_LEAVE(NULL);
        RULE_LEAVE(parse_make_arguments(p, a, NULL, &b, &c, d));
    }
    RESET();
    SlashWithDefault *sw = parse_slash_with_default(p, lambda);
    CHECK_ERR();
    if (sw) {
        PVec b = {0};
        if (!params_with_default(p, lambda, &b, false)) RULE_LEAVE(NULL);
        StarEtc *c = opt_star_etc(p, lambda, &err);
        if (err) RULE_LEAVE(NULL);
        RULE_LEAVE(parse_make_arguments(p, NULL, sw, NULL, &b, c));
    }
    RESET();
    PVec pa = {0};
    if (!params_no_default(p, lambda, &pa)) RULE_LEAVE(NULL);
    if (pa.count) {
        PVec b = {0};
        if (!params_with_default(p, lambda, &b, false)) RULE_LEAVE(NULL);
        StarEtc *c = opt_star_etc(p, lambda, &err);
        if (err) RULE_LEAVE(NULL);
        RULE_LEAVE(parse_make_arguments(p, NULL, NULL, &pa, &b, c));
    }
    RESET();
    PVec pw = {0};
    if (!params_with_default(p, lambda, &pw, false)) RULE_LEAVE(NULL);
    if (pw.count) {
        StarEtc *c = opt_star_etc(p, lambda, &err);
        if (err) RULE_LEAVE(NULL);
        RULE_LEAVE(parse_make_arguments(p, NULL, NULL, NULL, &pw, c));
    }
    RESET();
    StarEtc *se = star_etc_rule(p, lambda);
    if (se) RULE_LEAVE(parse_make_arguments(p, NULL, NULL, NULL, NULL, se));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* params: invalid_parameters | parameters */
AstArguments *parse_params_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_parameters(p);
        CHECK_ERR();
        RESET();
    }
    AstArguments *a = parameters_rule(p, false);
    RULE_LEAVE(a);
}

/* lambda_params: invalid_lambda_parameters | lambda_parameters */
AstArguments *parse_lambda_params_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_lambda_parameters(p);
        CHECK_ERR();
        RESET();
    }
    AstArguments *a = parameters_rule(p, true);
    RULE_LEAVE(a);
}

/* ---- if / while / for / with / try / match ---- */

static AstStmtSeq *else_block_rule(Parser *p);

/* if_stmt:
 *     | invalid_if_stmt
 *     | 'if' named_expression ':' block elif_stmt
 *     | 'if' named_expression ':' block [else_block]
 * elif_stmt: the same with 'elif' and invalid_elif_stmt */
static AstStmt *if_stmt_rule(Parser *p, bool elif) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        if (elif) parse_invalid_elif_stmt(p);
        else parse_invalid_if_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *a;
    AstStmtSeq *b;
    if (!parse_expect(p, elif ? TOK_KW_ELIF : TOK_KW_IF) || !(a = parse_named_expression_rule(p)) ||
        !parse_expect(p, TOK_COLON) || !(b = parse_block_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstStmtSeq orelse = {0};
    size_t m = p->mark;
    AstStmt *c = if_stmt_rule(p, true);
    CHECK_ERR();
    if (c) {
        AstStmt **items = parse_alloc(p, sizeof *items);
        if (!items) RULE_LEAVE(NULL);
        items[0] = c;
        orelse.items = items;
        orelse.count = 1;
    } else {
        p->mark = m;
        AstStmtSeq *e = else_block_rule(p);
        CHECK_ERR();
        if (e) orelse = *e;
        else p->mark = m;
    }
    AstStmt *s = parse_stmt_new(p, AST_STMT_IF, EXTRA());
    if (!s) RULE_LEAVE(NULL);
    s->v.If.test = a;
    s->v.If.body = *b;
    s->v.If.orelse = orelse;
    RULE_LEAVE(s);
}

/* else_block: invalid_else_stmt | 'else' &&':' block */
static AstStmtSeq *else_block_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_else_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstStmtSeq *b;
    if (parse_expect(p, TOK_KW_ELSE) && expect_forced(p, TOK_COLON, ":") &&
        (b = parse_block_rule(p)))
        RULE_LEAVE(b);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* [else_block] as a sequence */
static AstStmtSeq opt_else(Parser *p) {
    AstStmtSeq none = {0};
    size_t m = p->mark;
    AstStmtSeq *e = else_block_rule(p);
    if (e) return *e;
    if (!p->error_indicator) p->mark = m;
    return none;
}

/* while_stmt: invalid_while_stmt | 'while' named_expression ':' block [else_block] */
static AstStmt *while_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_while_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *a;
    AstStmtSeq *b;
    if (!parse_expect(p, TOK_KW_WHILE) || !(a = parse_named_expression_rule(p)) ||
        !parse_expect(p, TOK_COLON) || !(b = parse_block_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    AstStmtSeq c = opt_else(p);
    CHECK_ERR();
    AstStmt *s = parse_stmt_new(p, AST_STMT_WHILE, EXTRA());
    if (!s) RULE_LEAVE(NULL);
    s->v.While.test = a;
    s->v.While.body = *b;
    s->v.While.orelse = c;
    RULE_LEAVE(s);
}

/* for_stmt:
 *     | invalid_for_stmt
 *     | 'for' star_targets 'in' ~ star_expressions ':' [TYPE_COMMENT] block [else_block]
 *     | ASYNC 'for' star_targets 'in' ~ star_expressions ':' [TYPE_COMMENT] block [else_block]
 *     | invalid_for_target */
static AstStmt *for_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_for_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *t, *ex;
    AstStmtSeq *b;
    for (int is_async = 0; is_async < 2; is_async++) {
        if ((!is_async || parse_expect(p, TOK_KW_ASYNC)) && parse_expect(p, TOK_KW_FOR) &&
            (t = parse_star_targets_rule(p)) && parse_expect(p, TOK_KW_IN)) {
            /* cut: past 'in' no other alternative is tried */
            if (!(ex = parse_star_expressions_rule(p)) || !parse_expect(p, TOK_COLON) ||
                !(b = parse_block_rule(p))) {
                CHECK_ERR();
                RESET();
                RULE_LEAVE(NULL);
            }
            AstStmtSeq el = opt_else(p);
            CHECK_ERR();
            AstStmt *s = parse_stmt_new(p, is_async ? AST_STMT_ASYNC_FOR : AST_STMT_FOR, EXTRA());
            if (!s) RULE_LEAVE(NULL);
            s->v.For.target = t;
            s->v.For.iter = ex;
            s->v.For.body = *b;
            s->v.For.orelse = el;
            RULE_LEAVE(s);
        }
        CHECK_ERR();
        RESET();
    }
    if (p->call_invalid_rules) {
        parse_invalid_for_target(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* with_item:
 *     | expression 'as' star_target &(',' | ')' | ':')
 *     | invalid_with_item
 *     | expression */
static AstWithItem *with_item_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *e, *t;
    if ((e = parse_expression_rule(p)) && parse_expect(p, TOK_KW_AS) &&
        (t = parse_star_target_rule(p)) &&
        (parse_check_kind(p, TOK_COMMA) || parse_check_kind(p, TOK_RPAR) ||
         parse_check_kind(p, TOK_COLON))) {
        AstWithItem *w = parse_alloc(p, sizeof *w);
        if (!w) RULE_LEAVE(NULL);
        w->context_expr = e;
        w->optional_vars = t;
        RULE_LEAVE(w);
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_with_item(p);
        CHECK_ERR();
        RESET();
    }
    if ((e = parse_expression_rule(p))) {
        AstWithItem *w = parse_alloc(p, sizeof *w);
        if (!w) RULE_LEAVE(NULL);
        w->context_expr = e;
        RULE_LEAVE(w);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ','.with_item+ */
static PVec *with_items(Parser *p) {
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) return NULL;
    AstWithItem *w = with_item_rule(p);
    while (w) {
        if (!pvec_push(p, v, w)) return NULL;
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) break;
        if (!(w = with_item_rule(p))) p->mark = m;
    }
    if (p->error_indicator) return NULL;
    return v->count ? v : NULL;
}

static AstStmt *make_with(Parser *p, size_t mark_, PVec *a, AstStmtSeq *b, AstStmtKind kind) {
    AstStmt *s = parse_stmt_new(p, kind, EXTRA());
    if (!s) return NULL;
    s->v.With.items = SEQ(AstWithItemSeq, *a);
    s->v.With.body = *b;
    return s;
}

/* with_stmt:
 *     | invalid_with_stmt_indent
 *     | 'with' '(' ','.with_item+ ','? ')' ':' block
 *     | 'with' ','.with_item+ ':' [TYPE_COMMENT] block
 *     | ASYNC 'with' '(' ','.with_item+ ','? ')' ':' block
 *     | ASYNC 'with' ','.with_item+ ':' [TYPE_COMMENT] block
 *     | invalid_with_stmt */
static AstStmt *with_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_with_stmt_indent(p);
        CHECK_ERR();
        RESET();
    }
    PVec *a;
    AstStmtSeq *b;
    for (int is_async = 0; is_async < 2; is_async++) {
        AstStmtKind kind = is_async ? AST_STMT_ASYNC_WITH : AST_STMT_WITH;
        if ((!is_async || parse_expect(p, TOK_KW_ASYNC)) && parse_expect(p, TOK_KW_WITH) &&
            parse_expect(p, TOK_LPAR) && (a = with_items(p))) {
            parse_expect(p, TOK_COMMA);
            if (parse_expect(p, TOK_RPAR) && parse_expect(p, TOK_COLON) && (b = parse_block_rule(p)))
                RULE_LEAVE(make_with(p, mark_, a, b, kind));
        }
        CHECK_ERR();
        RESET();
        if ((!is_async || parse_expect(p, TOK_KW_ASYNC)) && parse_expect(p, TOK_KW_WITH) &&
            (a = with_items(p)) && parse_expect(p, TOK_COLON) && (b = parse_block_rule(p)))
            RULE_LEAVE(make_with(p, mark_, a, b, kind));
        CHECK_ERR();
        RESET();
    }
    if (p->call_invalid_rules) {
        parse_invalid_with_stmt(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* finally_block: invalid_finally_stmt | 'finally' &&':' block */
static AstStmtSeq *finally_block_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_finally_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstStmtSeq *a;
    if (parse_expect(p, TOK_KW_FINALLY) && expect_forced(p, TOK_COLON, ":") &&
        (a = parse_block_rule(p)))
        RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static AstExceptHandler *make_handler(Parser *p, size_t mark_, AstExpr *type, AstExpr *name,
                                      AstStmtSeq *body) {
    AstExceptHandler *h = parse_alloc(p, sizeof *h);
    if (!h) return NULL;
    Extra x = EXTRA();
    h->type = type;
    h->name = name ? name->v.Name.id : NULL;
    h->body = *body;
    h->lineno = x.lineno;
    h->col_offset = x.col_offset;
    h->end_lineno = x.end_lineno;
    h->end_col_offset = x.end_col_offset;
    return h;
}

/* except_block:
 *     | invalid_except_stmt_indent
 *     | 'except' expression ['as' NAME] ':' block
 *     | 'except' ':' block
 *     | invalid_except_stmt */
static AstExceptHandler *except_block_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_except_stmt_indent(p);
        CHECK_ERR();
        RESET();
    }
    AstExpr *e;
    AstStmtSeq *b;
    if (parse_expect(p, TOK_KW_EXCEPT) && (e = parse_expression_rule(p))) {
        AstExpr *t = opt_as_name(p);
        CHECK_ERR();
        if (parse_expect(p, TOK_COLON) && (b = parse_block_rule(p)))
            RULE_LEAVE(make_handler(p, mark_, e, t, b));
    }
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_KW_EXCEPT) && parse_expect(p, TOK_COLON) && (b = parse_block_rule(p)))
        RULE_LEAVE(make_handler(p, mark_, NULL, NULL, b));
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_except_stmt(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* except_block+ */
static PVec *except_block_plus(Parser *p) {
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) return NULL;
    for (;;) {
        size_t m = p->mark;
        AstExceptHandler *h = except_block_rule(p);
        if (!h) {
            if (!p->error_indicator) p->mark = m;
            break;
        }
        if (!pvec_push(p, v, h)) return NULL;
    }
    if (p->error_indicator) return NULL;
    return v->count ? v : NULL;
}

/* except_star_block: 'except' '*' expression ['as' NAME] ':' block  (not supported) */
static void *except_star_probe(Parser *p) {
    MARK();
    const Token *t = parse_expect(p, TOK_KW_EXCEPT);
    if (t && parse_expect(p, TOK_STAR) && parse_expression_rule(p)) {
        opt_as_name(p);
        if (!p->error_indicator && parse_expect(p, TOK_COLON))
            return raise_unsupported(p, t, "'except*'");
    }
    if (!p->error_indicator) RESET();
    return NULL;
}

/* try_stmt:
 *     | invalid_try_stmt
 *     | 'try' &&':' block finally_block
 *     | 'try' &&':' block except_block+ [else_block] [finally_block]
 *     | 'try' &&':' block except_star_block+ ...  (not supported) */
static AstStmt *try_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        parse_invalid_try_stmt(p);
        CHECK_ERR();
        RESET();
    }
    AstStmtSeq *b, *f;
    if (!parse_expect(p, TOK_KW_TRY) || !expect_forced(p, TOK_COLON, ":") ||
        !(b = parse_block_rule(p))) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    size_t after_body = p->mark;
    if ((f = finally_block_rule(p))) {
        AstStmt *s = parse_stmt_new(p, AST_STMT_TRY, EXTRA());
        if (!s) RULE_LEAVE(NULL);
        s->v.Try.body = *b;
        s->v.Try.finalbody = *f;
        RULE_LEAVE(s);
    }
    CHECK_ERR();
    p->mark = after_body;
    PVec *ex = except_block_plus(p);
    CHECK_ERR();
    if (ex) {
        AstStmtSeq el = opt_else(p);
        CHECK_ERR();
        size_t m = p->mark;
        AstStmtSeq *fin = finally_block_rule(p);
        CHECK_ERR();
        if (!fin) p->mark = m;
        AstStmt *s = parse_stmt_new(p, AST_STMT_TRY, EXTRA());
        if (!s) RULE_LEAVE(NULL);
        s->v.Try.body = *b;
        s->v.Try.handlers = SEQ(AstExceptHandlerSeq, *ex);
        s->v.Try.orelse = el;
        if (fin) s->v.Try.finalbody = *fin;
        RULE_LEAVE(s);
    }
    p->mark = after_body;
    except_star_probe(p);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* subject_expr: star_named_expression ',' star_named_expressions? | named_expression */
AstExpr *parse_subject_expr(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *value = parse_star_named_expression_rule(p);
    if (value && parse_expect(p, TOK_COMMA)) {
        size_t m = p->mark;
        PVec *rest = parse_star_named_expressions_rule(p);
        CHECK_ERR();
        if (!rest) p->mark = m;
        PVec elts = {0};
        if (!pvec_push(p, &elts, value)) RULE_LEAVE(NULL);
        for (size_t i = 0; rest && i < rest->count; i++)
            if (!pvec_push(p, &elts, rest->items[i])) RULE_LEAVE(NULL);
        AstExpr *t = parse_expr_new(p, AST_EXPR_TUPLE, EXTRA());
        if (!t) RULE_LEAVE(NULL);
        t->v.Tuple.elts = SEQ(AstExprSeq, elts);
        t->v.Tuple.ctx = AST_LOAD;
        RULE_LEAVE(t);
    }
    CHECK_ERR();
    RESET();
    AstExpr *e = parse_named_expression_rule(p);
    if (!e) RESET();
    RULE_LEAVE(e);
}

