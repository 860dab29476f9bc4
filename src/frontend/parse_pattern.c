/* parse_pattern.c — the match statement of Grammar/python.gram (3.11): match_stmt, case
 * blocks and guards, and every pattern rule (literal, capture, wildcard, value, group,
 * sequence, mapping, class, or, as, star), with their invalid_* rules. */
#include <string.h>

#include "src/frontend/parser_internal.h"

#define MARK() size_t mark_ = p->mark
#define RESET() (p->mark = mark_)
#define EXTRA() parse_extra(p, mark_)

static AstPattern *pattern_rule(Parser *p);
static AstPattern *closed_pattern_rule(Parser *p);

static AstPattern *new_pattern(Parser *p, AstPatternKind kind, size_t mark_) {
    AstPattern *pat = parse_alloc(p, sizeof *pat);
    if (!pat) return NULL;
    Extra x = EXTRA();
    pat->kind = kind;
    pat->lineno = x.lineno;
    pat->col_offset = x.col_offset;
    pat->end_lineno = x.end_lineno;
    pat->end_col_offset = x.end_col_offset;
    return pat;
}

static bool is_token_text(const Token *t, const char *s) {
    return t && t->kind == TOK_NAME && t->len == strlen(s) && memcmp(t->start, s, t->len) == 0;
}

/* ---- names ---- */

/* pattern_capture_target: !"_" NAME !('.' | '(' | '=') -> Name(Store) */
static AstExpr *pattern_capture_target_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    if (!t || is_token_text(t, "_")) RULE_LEAVE(NULL);
    AstExpr *name = parse_name_token(p);
    if (name && !parse_check_kind(p, TOK_DOT) && !parse_check_kind(p, TOK_LPAR) && !parse_check_kind(p, TOK_EQUAL))
        RULE_LEAVE(parse_set_expr_context(p, name, AST_STORE));
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* name_or_attr: attr | NAME
 * attr: name_or_attr '.' NAME   (left-recursive: a dotted name) */
static AstExpr *name_or_attr_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = parse_name_token(p);
    if (!a) RULE_LEAVE(NULL);
    for (;;) {
        size_t m = p->mark;
        AstExpr *b;
        if (!parse_expect(p, TOK_DOT) || !(b = parse_name_token(p))) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
        AstExpr *e = parse_expr_new(p, AST_EXPR_ATTRIBUTE, EXTRA());
        if (!e) RULE_LEAVE(NULL);
        e->v.Attribute.value = a;
        e->v.Attribute.attr = b->v.Name.id;
        e->v.Attribute.ctx = AST_LOAD;
        a = e;
    }
    RULE_LEAVE(a);
}

/* attr: name_or_attr '.' NAME -- a name_or_attr with at least one dot */
static AstExpr *attr_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = name_or_attr_rule(p);
    if (a && a->kind == AST_EXPR_ATTRIBUTE) RULE_LEAVE(a);
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* ---- literals ---- */

static AstExpr *number_rule(Parser *p) {
    if (!parse_check_kind(p, TOK_NUMBER)) return NULL;
    return parse_number_token(p);
}

/* signed_number: NUMBER | '-' NUMBER */
static AstExpr *signed_number_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *n = number_rule(p);
    if (n) RULE_LEAVE(n);
    CHECK_ERR();
    if (parse_expect(p, TOK_MINUS) && (n = number_rule(p))) {
        AstExpr *e = parse_expr_new(p, AST_EXPR_UNARY_OP, EXTRA());
        if (!e) RULE_LEAVE(NULL);
        e->v.UnaryOp.op = AST_USUB;
        e->v.UnaryOp.operand = n;
        RULE_LEAVE(e);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

static bool imaginary_token(const Token *t) {
    return t && t->kind == TOK_NUMBER && t->len && (t->start[t->len - 1] == 'j' || t->start[t->len - 1] == 'J');
}

/* complex_number:
 *     | signed_real_number '+' imaginary_number | signed_real_number '-' imaginary_number
 * signed_real_number: real_number | '-' real_number
 * real_number: NUMBER (_PyPegen_ensure_real)    imaginary_number: NUMBER (_PyPegen_ensure_imaginary)
 * (an imaginary literal itself is then rejected by the number rule: Ember has no complex numbers) */
static AstExpr *complex_number_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    bool neg = parse_expect(p, TOK_MINUS) != NULL;
    const Token *rt = parse_peek(p);
    if (!rt || rt->kind != TOK_NUMBER) {
        RESET();
        RULE_LEAVE(NULL);
    }
    if (imaginary_token(rt)) RULE_LEAVE(RAISE_AT(rt, "real number required in complex literal"));
    AstExpr *real = number_rule(p);
    CHECK_ERR();
    if (neg) {
        AstExpr *u = parse_expr_new(p, AST_EXPR_UNARY_OP, EXTRA());
        if (!u) RULE_LEAVE(NULL);
        u->v.UnaryOp.op = AST_USUB;
        u->v.UnaryOp.operand = real;
        real = u;
    }
    const Token *op = parse_peek(p);
    if (op && (op->kind == TOK_PLUS || op->kind == TOK_MINUS)) {
        p->mark++;
        const Token *it = parse_peek(p);
        if (it && it->kind == TOK_NUMBER) {
            if (!imaginary_token(it)) RULE_LEAVE(RAISE_AT(it, "imaginary number required in complex literal"));
            AstExpr *imag = number_rule(p);
            CHECK_ERR();
            AstExpr *e = parse_expr_new(p, AST_EXPR_BIN_OP, EXTRA());
            if (!e) RULE_LEAVE(NULL);
            e->v.BinOp.left = real;
            e->v.BinOp.op = op->kind == TOK_PLUS ? AST_ADD : AST_SUB;
            e->v.BinOp.right = imag;
            RULE_LEAVE(e);
        }
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* The None/True/False keyword at the mark as a constant type, or 0. */
static AstConstantType singleton_kind(const Token *t, bool *b) {
    if (!t) return 0;
    if (t->kind == TOK_KW_NONE) return AST_CONST_NONE;
    if (t->kind == TOK_KW_TRUE || t->kind == TOK_KW_FALSE) {
        *b = t->kind == TOK_KW_TRUE;
        return AST_CONST_BOOL;
    }
    return 0;
}

/* literal_expr: signed_number !('+' | '-') | complex_number | strings | 'None' | 'True' | 'False'
 * literal_pattern: the same as MatchValue, the keywords as MatchSingleton */
static void *literal_rule(Parser *p, bool as_pattern) {
    RULE_ENTER();
    MARK();
    AstExpr *v = signed_number_rule(p);
    CHECK_ERR();
    if (v && !parse_check_kind(p, TOK_PLUS) && !parse_check_kind(p, TOK_MINUS)) goto value;
    RESET();
    if ((v = complex_number_rule(p))) goto value;
    CHECK_ERR();
    RESET();
    if (parse_check_kind(p, TOK_STRING) && (v = parse_strings_rule(p))) goto value;
    CHECK_ERR();
    RESET();
    bool b = false;
    AstConstantType k = singleton_kind(parse_peek(p), &b);
    if (k) {
        p->mark++;
        if (as_pattern) {
            AstPattern *pat = new_pattern(p, AST_PAT_MATCH_SINGLETON, mark_);
            if (!pat) RULE_LEAVE(NULL);
            pat->v.MatchSingleton.value.type = k;
            pat->v.MatchSingleton.value.b = b;
            RULE_LEAVE(pat);
        }
        AstExpr *e = parse_expr_new(p, AST_EXPR_CONSTANT, EXTRA());
        if (!e) RULE_LEAVE(NULL);
        e->v.Constant.value.type = k;
        e->v.Constant.value.b = b;
        RULE_LEAVE(e);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
value:
    if (!as_pattern) RULE_LEAVE(v);
    AstPattern *pat = new_pattern(p, AST_PAT_MATCH_VALUE, mark_);
    if (!pat) RULE_LEAVE(NULL);
    pat->v.MatchValue.value = v;
    RULE_LEAVE(pat);
}

/* ---- closed patterns ---- */

/* capture_pattern: pattern_capture_target -> MatchAs(name) */
static AstPattern *capture_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *t = pattern_capture_target_rule(p);
    if (!t) RULE_LEAVE(NULL);
    AstPattern *pat = new_pattern(p, AST_PAT_MATCH_AS, mark_);
    if (!pat) RULE_LEAVE(NULL);
    pat->v.MatchAs.name = t->v.Name.id;
    RULE_LEAVE(pat);
}

/* wildcard_pattern: "_" -> MatchAs() */
static AstPattern *wildcard_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (!parse_soft_keyword(p, "_")) RULE_LEAVE(NULL);
    RULE_LEAVE(new_pattern(p, AST_PAT_MATCH_AS, mark_));
}

/* value_pattern: attr !('.' | '(' | '=') */
static AstPattern *value_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *a = attr_rule(p);
    if (a && !parse_check_kind(p, TOK_DOT) && !parse_check_kind(p, TOK_LPAR) && !parse_check_kind(p, TOK_EQUAL)) {
        AstPattern *pat = new_pattern(p, AST_PAT_MATCH_VALUE, mark_);
        if (!pat) RULE_LEAVE(NULL);
        pat->v.MatchValue.value = a;
        RULE_LEAVE(pat);
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* star_pattern (memo): '*' pattern_capture_target | '*' wildcard_pattern */
static AstPattern *star_pattern_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_STAR_PATTERN, &memo)) RULE_LEAVE(memo);
    MARK();
    AstPattern *res = NULL;
    AstExpr *t;
    if (parse_expect(p, TOK_STAR) && (t = pattern_capture_target_rule(p))) {
        res = new_pattern(p, AST_PAT_MATCH_STAR, mark_);
        if (!res) RULE_LEAVE(NULL);
        res->v.MatchStar.name = t->v.Name.id;
        goto done;
    }
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_STAR) && wildcard_pattern_rule(p)) {
        res = new_pattern(p, AST_PAT_MATCH_STAR, mark_);
        if (!res) RULE_LEAVE(NULL);
        goto done;
    }
    CHECK_ERR();
    RESET();
done:
    parse_memo_put(p, mark_, MEMO_STAR_PATTERN, res);
    RULE_LEAVE(res);
}

/* maybe_star_pattern: star_pattern | pattern */
static AstPattern *maybe_star_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstPattern *pat = star_pattern_rule(p);
    if (pat) RULE_LEAVE(pat);
    CHECK_ERR();
    RESET();
    pat = pattern_rule(p);
    if (!pat) RESET();
    RULE_LEAVE(pat);
}

/* maybe_sequence_pattern: ','.maybe_star_pattern+ ','? */
static PVec *maybe_sequence_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v) RULE_LEAVE(NULL);
    AstPattern *pat = maybe_star_pattern_rule(p);
    if (!pat) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    for (;;) {
        if (!pvec_push(p, v, pat)) RULE_LEAVE(NULL);
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA)) break;
        size_t after_comma = p->mark;
        if (!(pat = maybe_star_pattern_rule(p))) {
            CHECK_ERR();
            p->mark = after_comma; /* the optional trailing comma */
            (void)m;
            break;
        }
    }
    RULE_LEAVE(v);
}

/* open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern? */
static PVec *open_sequence_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstPattern *first = maybe_star_pattern_rule(p);
    if (!first || !parse_expect(p, TOK_COMMA)) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    PVec *v = parse_alloc(p, sizeof *v);
    if (!v || !pvec_push(p, v, first)) RULE_LEAVE(NULL);
    size_t m = p->mark;
    PVec *rest = maybe_sequence_pattern_rule(p);
    CHECK_ERR();
    if (!rest) p->mark = m;
    for (size_t i = 0; rest && i < rest->count; i++)
        if (!pvec_push(p, v, rest->items[i])) RULE_LEAVE(NULL);
    RULE_LEAVE(v);
}

/* group_pattern: '(' pattern ')'
 * sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')' */
static AstPattern *group_or_sequence_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstPattern *pat;
    if (parse_expect(p, TOK_LPAR) && (pat = pattern_rule(p)) && parse_expect(p, TOK_RPAR)) RULE_LEAVE(pat);
    CHECK_ERR();
    RESET();
    for (int square = 1; square >= 0; square--) {
        if (parse_expect(p, square ? TOK_LSQB : TOK_LPAR)) {
            size_t m = p->mark;
            PVec *items = square ? maybe_sequence_pattern_rule(p) : open_sequence_pattern_rule(p);
            CHECK_ERR();
            if (!items) p->mark = m;
            if (parse_expect(p, square ? TOK_RSQB : TOK_RPAR)) {
                AstPattern *seq = new_pattern(p, AST_PAT_MATCH_SEQUENCE, mark_);
                if (!seq) RULE_LEAVE(NULL);
                if (items) seq->v.MatchSequence.patterns = SEQ(AstPatternSeq, *items);
                RULE_LEAVE(seq);
            }
        }
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* key_value_pattern: (literal_expr | attr) ':' pattern */
static bool key_value_pattern_rule(Parser *p, AstExpr **key, AstPattern **value) {
    size_t mark_ = p->mark;
    AstExpr *k = literal_rule(p, false);
    if (!k && !p->error_indicator) {
        RESET();
        k = attr_rule(p);
    }
    if (k && parse_expect(p, TOK_COLON) && (*value = pattern_rule(p))) {
        *key = k;
        return true;
    }
    RESET();
    return false;
}

/* items_pattern: ','.key_value_pattern+ */
static bool items_pattern_rule(Parser *p, PVec *keys, PVec *values) {
    AstExpr *k;
    AstPattern *v;
    if (!key_value_pattern_rule(p, &k, &v)) return false;
    for (;;) {
        if (!pvec_push(p, keys, k) || !pvec_push(p, values, v)) return false;
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA) || !key_value_pattern_rule(p, &k, &v)) {
            if (p->error_indicator) return false;
            p->mark = m;
            return true;
        }
    }
}

/* double_star_pattern: '**' pattern_capture_target */
static AstExpr *double_star_pattern_rule(Parser *p) {
    MARK();
    AstExpr *t;
    if (parse_expect(p, TOK_DOUBLESTAR) && (t = pattern_capture_target_rule(p))) return t;
    RESET();
    return NULL;
}

static AstPattern *make_mapping(Parser *p, size_t mark_, PVec *keys, PVec *values, AstExpr *rest) {
    AstPattern *pat = new_pattern(p, AST_PAT_MATCH_MAPPING, mark_);
    if (!pat) return NULL;
    if (keys) pat->v.MatchMapping.keys = SEQ(AstExprSeq, *keys);
    if (values) pat->v.MatchMapping.patterns = SEQ(AstPatternSeq, *values);
    pat->v.MatchMapping.rest = rest ? rest->v.Name.id : NULL;
    return pat;
}

/* mapping_pattern:
 *     | '{' '}'
 *     | '{' double_star_pattern ','? '}'
 *     | '{' items_pattern ',' double_star_pattern ','? '}'
 *     | '{' items_pattern ','? '}' */
static AstPattern *mapping_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *rest;
    PVec keys = {0}, values = {0};
    if (parse_expect(p, TOK_LBRACE) && parse_expect(p, TOK_RBRACE)) RULE_LEAVE(make_mapping(p, mark_, NULL, NULL, NULL));
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_LBRACE) && (rest = double_star_pattern_rule(p))) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RBRACE)) RULE_LEAVE(make_mapping(p, mark_, NULL, NULL, rest));
    }
    CHECK_ERR();
    RESET();
    if (parse_expect(p, TOK_LBRACE) && items_pattern_rule(p, &keys, &values) && parse_expect(p, TOK_COMMA) &&
        (rest = double_star_pattern_rule(p))) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RBRACE)) RULE_LEAVE(make_mapping(p, mark_, &keys, &values, rest));
    }
    CHECK_ERR();
    RESET();
    keys = (PVec){0};
    values = (PVec){0};
    if (parse_expect(p, TOK_LBRACE) && items_pattern_rule(p, &keys, &values)) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RBRACE)) RULE_LEAVE(make_mapping(p, mark_, &keys, &values, NULL));
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* keyword_pattern: NAME '=' pattern */
static bool keyword_pattern_rule(Parser *p, AstExpr **name, AstPattern **value) {
    size_t mark_ = p->mark;
    AstExpr *n;
    if ((n = parse_name_token(p)) && parse_expect(p, TOK_EQUAL) && (*value = pattern_rule(p))) {
        *name = n;
        return true;
    }
    RESET();
    return false;
}

/* positional_patterns: ','.pattern+ */
static bool positional_patterns_rule(Parser *p, PVec *out) {
    AstPattern *pat = pattern_rule(p);
    if (!pat) return false;
    for (;;) {
        if (!pvec_push(p, out, pat)) return false;
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA) || !(pat = pattern_rule(p))) {
            if (p->error_indicator) return false;
            p->mark = m;
            return true;
        }
    }
}

/* keyword_patterns: ','.keyword_pattern+ */
static bool keyword_patterns_rule(Parser *p, PVec *names, PVec *values) {
    AstExpr *n;
    AstPattern *v;
    if (!keyword_pattern_rule(p, &n, &v)) return false;
    for (;;) {
        if (!pvec_push(p, names, (void *)n->v.Name.id) || !pvec_push(p, values, v)) return false;
        size_t m = p->mark;
        if (!parse_expect(p, TOK_COMMA) || !keyword_pattern_rule(p, &n, &v)) {
            if (p->error_indicator) return false;
            p->mark = m;
            return true;
        }
    }
}

/* invalid_class_pattern:
 *     | name_or_attr '(' a=invalid_class_argument_pattern
 *       (RAISE_SYNTAX_ERROR_KNOWN_RANGE(a[0], a[-1], "positional patterns follow keyword patterns"))
 * invalid_class_argument_pattern: [positional_patterns ','] keyword_patterns ',' positional_patterns */
static void invalid_class_pattern(Parser *p) {
    MARK();
    if (!name_or_attr_rule(p) || !parse_expect(p, TOK_LPAR)) return;
    size_t m = p->mark;
    PVec pos = {0}, names = {0}, values = {0}, after = {0};
    if (!(positional_patterns_rule(p, &pos) && parse_expect(p, TOK_COMMA))) {
        if (p->error_indicator) return;
        p->mark = m;
    }
    if (keyword_patterns_rule(p, &names, &values) && parse_expect(p, TOK_COMMA) &&
        positional_patterns_rule(p, &after)) {
        AstPattern *first = after.items[0], *last = after.items[after.count - 1];
        RAISE_RANGE(first, last, "positional patterns follow keyword patterns");
        return;
    }
    (void)mark_;
}

static AstPattern *make_class(Parser *p, size_t mark_, AstExpr *cls, PVec *pos, PVec *names, PVec *values) {
    AstPattern *pat = new_pattern(p, AST_PAT_MATCH_CLASS, mark_);
    if (!pat) return NULL;
    pat->v.MatchClass.cls = cls;
    if (pos) pat->v.MatchClass.patterns = SEQ(AstPatternSeq, *pos);
    if (names) pat->v.MatchClass.kwd_attrs = SEQ(AstIdentSeq, *names);
    if (values) pat->v.MatchClass.kwd_patterns = SEQ(AstPatternSeq, *values);
    return pat;
}

/* class_pattern:
 *     | name_or_attr '(' ')'
 *     | name_or_attr '(' positional_patterns ','? ')'
 *     | name_or_attr '(' keyword_patterns ','? ')'
 *     | name_or_attr '(' positional_patterns ',' keyword_patterns ','? ')'
 *     | invalid_class_pattern */
static AstPattern *class_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstExpr *cls;
    PVec pos = {0}, names = {0}, values = {0};
    if ((cls = name_or_attr_rule(p)) && parse_expect(p, TOK_LPAR) && parse_expect(p, TOK_RPAR))
        RULE_LEAVE(make_class(p, mark_, cls, NULL, NULL, NULL));
    CHECK_ERR();
    RESET();
    if ((cls = name_or_attr_rule(p)) && parse_expect(p, TOK_LPAR) && positional_patterns_rule(p, &pos)) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(make_class(p, mark_, cls, &pos, NULL, NULL));
    }
    CHECK_ERR();
    RESET();
    if ((cls = name_or_attr_rule(p)) && parse_expect(p, TOK_LPAR) && keyword_patterns_rule(p, &names, &values)) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(make_class(p, mark_, cls, NULL, &names, &values));
    }
    CHECK_ERR();
    RESET();
    pos = names = values = (PVec){0};
    if ((cls = name_or_attr_rule(p)) && parse_expect(p, TOK_LPAR) && positional_patterns_rule(p, &pos) &&
        parse_expect(p, TOK_COMMA) && keyword_patterns_rule(p, &names, &values)) {
        parse_expect(p, TOK_COMMA);
        if (parse_expect(p, TOK_RPAR)) RULE_LEAVE(make_class(p, mark_, cls, &pos, &names, &values));
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        invalid_class_pattern(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}

/* closed_pattern (memo):
 *     | literal_pattern | capture_pattern | wildcard_pattern | value_pattern
 *     | group_pattern | sequence_pattern | mapping_pattern | class_pattern */
static AstPattern *closed_pattern_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_CLOSED_PATTERN, &memo)) RULE_LEAVE(memo);
    MARK();
    AstPattern *res;
    if ((res = literal_rule(p, true))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = capture_pattern_rule(p))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = wildcard_pattern_rule(p))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = value_pattern_rule(p))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = group_or_sequence_rule(p))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = mapping_pattern_rule(p))) goto done;
    CHECK_ERR();
    RESET();
    if ((res = class_pattern_rule(p))) goto done;
    CHECK_ERR();
    RESET();
done:
    parse_memo_put(p, mark_, MEMO_CLOSED_PATTERN, res);
    RULE_LEAVE(res);
}

/* or_pattern: '|'.closed_pattern+ (one alternative is the pattern itself) */
static AstPattern *or_pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec alts = {0};
    AstPattern *pat = closed_pattern_rule(p);
    if (!pat) {
        CHECK_ERR();
        RESET();
        RULE_LEAVE(NULL);
    }
    for (;;) {
        if (!pvec_push(p, &alts, pat)) RULE_LEAVE(NULL);
        size_t m = p->mark;
        if (!parse_expect(p, TOK_VBAR) || !(pat = closed_pattern_rule(p))) {
            CHECK_ERR();
            p->mark = m;
            break;
        }
    }
    if (alts.count == 1) RULE_LEAVE(alts.items[0]);
    AstPattern *or = new_pattern(p, AST_PAT_MATCH_OR, mark_);
    if (!or) RULE_LEAVE(NULL);
    or->v.MatchOr.patterns = SEQ(AstPatternSeq, alts);
    RULE_LEAVE(or);
}

/* invalid_as_pattern:
 *     | or_pattern 'as' "_"  ("cannot use '_' as a target")
 *     | or_pattern 'as' !NAME expression  ("invalid pattern target") */
static void invalid_as_pattern(Parser *p) {
    MARK();
    if (!or_pattern_rule(p) || !parse_expect(p, TOK_KW_AS)) return;
    size_t after = p->mark;
    const Token *t = parse_peek(p);
    if (is_token_text(t, "_")) {
        RAISE_AT(t, "cannot use '_' as a target");
        return;
    }
    if (p->error_indicator) return;
    p->mark = after;
    if (t && t->kind == TOK_NAME) return;
    AstExpr *e = parse_expression_rule(p);
    if (e) RAISE_AT(e, "invalid pattern target");
    (void)mark_;
}

/* as_pattern: or_pattern 'as' pattern_capture_target | invalid_as_pattern
 * pattern: as_pattern | or_pattern */
static AstPattern *pattern_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    AstPattern *pat = or_pattern_rule(p);
    AstExpr *target;
    if (pat && parse_expect(p, TOK_KW_AS) && (target = pattern_capture_target_rule(p))) {
        AstPattern *as = new_pattern(p, AST_PAT_MATCH_AS, mark_);
        if (!as) RULE_LEAVE(NULL);
        as->v.MatchAs.pattern = pat;
        as->v.MatchAs.name = target->v.Name.id;
        RULE_LEAVE(as);
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        invalid_as_pattern(p);
        CHECK_ERR();
        RESET();
    }
    pat = or_pattern_rule(p);
    if (!pat) RESET();
    RULE_LEAVE(pat);
}

/* patterns: open_sequence_pattern (a MatchSequence) | pattern */
static AstPattern *patterns_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    PVec *items = open_sequence_pattern_rule(p);
    if (items) {
        AstPattern *seq = new_pattern(p, AST_PAT_MATCH_SEQUENCE, mark_);
        if (!seq) RULE_LEAVE(NULL);
        seq->v.MatchSequence.patterns = SEQ(AstPatternSeq, *items);
        RULE_LEAVE(seq);
    }
    CHECK_ERR();
    RESET();
    AstPattern *pat = pattern_rule(p);
    if (!pat) RESET();
    RULE_LEAVE(pat);
}

/* guard: 'if' named_expression */
static AstExpr *guard_rule(Parser *p) {
    MARK();
    AstExpr *g;
    if (parse_expect(p, TOK_KW_IF) && (g = parse_named_expression_rule(p))) return g;
    RESET();
    return NULL;
}

/* invalid_case_block:
 *     | "case" patterns guard? NEWLINE  ("expected ':'")
 *     | "case" patterns guard? ':' NEWLINE !INDENT  (IndentationError) */
static void invalid_case_block(Parser *p) {
    MARK();
    AstExpr *a = parse_soft_keyword(p, "case");
    if (!a || !patterns_rule(p)) return;
    guard_rule(p);
    if (p->error_indicator) return;
    if (parse_expect(p, TOK_NEWLINE)) {
        RAISE_SYNTAX_ERROR("expected ':'");
        return;
    }
    if (parse_expect(p, TOK_COLON) && parse_expect(p, TOK_NEWLINE) && !parse_check_kind(p, TOK_INDENT) &&
        !p->error_indicator)
        RAISE_INDENTATION_ERROR("expected an indented block after 'case' statement on line %d", a->lineno);
    (void)mark_;
}

/* case_block: invalid_case_block | "case" patterns guard? ':' block */
static AstMatchCase *case_block_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    if (p->call_invalid_rules) {
        invalid_case_block(p);
        CHECK_ERR();
        RESET();
    }
    AstPattern *pat;
    if (parse_soft_keyword(p, "case") && (pat = patterns_rule(p))) {
        AstExpr *g = guard_rule(p);
        CHECK_ERR();
        AstStmtSeq *body;
        if (parse_expect(p, TOK_COLON) && (body = parse_block_rule(p))) {
            AstMatchCase *m = parse_alloc(p, sizeof *m);
            if (!m) RULE_LEAVE(NULL);
            m->pattern = pat;
            m->guard = g;
            m->body = *body;
            RULE_LEAVE(m);
        }
    }
    CHECK_ERR();
    RESET();
    RULE_LEAVE(NULL);
}

/* match_stmt:
 *     | "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
 *     | invalid_match_stmt */
AstStmt *parse_match_stmt_rule(Parser *p) {
    RULE_ENTER();
    MARK();
    const Token *t = parse_peek(p);
    if (!t || t->kind != TOK_NAME) RULE_LEAVE(NULL);
    AstExpr *subject;
    if (parse_soft_keyword(p, "match") && (subject = parse_subject_expr(p)) && parse_expect(p, TOK_COLON) &&
        parse_expect(p, TOK_NEWLINE) && parse_expect(p, TOK_INDENT)) {
        PVec cases = {0};
        for (;;) {
            size_t m = p->mark;
            AstMatchCase *c = case_block_rule(p);
            if (!c) {
                CHECK_ERR();
                p->mark = m;
                break;
            }
            if (!pvec_push(p, &cases, c)) RULE_LEAVE(NULL);
        }
        if (cases.count && parse_expect(p, TOK_DEDENT)) {
            AstStmt *s = parse_stmt_new(p, AST_STMT_MATCH, EXTRA());
            if (!s) RULE_LEAVE(NULL);
            s->v.Match.subject = subject;
            s->v.Match.cases = SEQ(AstMatchCaseSeq, cases);
            RULE_LEAVE(s);
        }
    }
    CHECK_ERR();
    RESET();
    if (p->call_invalid_rules) {
        parse_invalid_match_stmt(p);
        CHECK_ERR();
        RESET();
    }
    RULE_LEAVE(NULL);
}
