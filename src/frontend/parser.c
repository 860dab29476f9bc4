/* parser.c — the parser driver and the machinery every rule uses: token fetching, error
 * raising with CPython's location rules, the memo table, arena vectors, node helpers.
 *
 * The driver reproduces CPython 3.11's _PyPegen_run_parser: a first pass without the
 * invalid_* rules; when it fails without raising, a second pass with them; then
 * _PyPegen_set_syntax_error's choice ("unexpected indent", "invalid syntax" at the furthest
 * token of the first pass) and the tokenizer-error override of
 * _PyPegen_tokenize_full_source_to_check_for_errors.  That primary error goes first in the
 * error list.  The driver then resynchronises at the next statement and keeps parsing one
 * statement at a time to report further errors. */
#include "src/frontend/parser.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/parse_check.h"
#include "src/frontend/parse_fstring.h"
#include "src/frontend/parser_internal.h"

/* ---- tokens ---- */

bool parse_fill(Parser *p) {
    if (p->error_indicator) return false;
    if (p->mark < p->fill) return true;
    if (p->fill >= p->ntokens) { /* past the end: the last token repeats */
        p->mark = p->ntokens - 1;
        return true;
    }
    const Token *t = &p->tokens[p->fill++];
    if (t->kind == TOK_ERRORTOKEN) {
        parse_raise_lexer_error(p);
        return false;
    }
    return true;
}

const Token *parse_peek(Parser *p) {
    if (!parse_fill(p)) return NULL;
    return &p->tokens[p->mark];
}

const Token *parse_expect(Parser *p, TokenKind kind) {
    const Token *t = parse_peek(p);
    if (!t || t->kind != kind) return NULL;
    p->mark++;
    return t;
}

bool parse_check_kind(Parser *p, TokenKind kind) {
    const Token *t = parse_peek(p);
    return t && t->kind == kind;
}

const Token *parse_last_token(Parser *p) { return &p->tokens[p->fill ? p->fill - 1 : 0]; }

static bool is_whitespace_token(TokenKind k) {
    return k == TOK_ENDMARKER || k == TOK_NEWLINE || k == TOK_INDENT || k == TOK_DEDENT;
}

Extra parse_extra(Parser *p, size_t start_mark) {
    const Token *first = &p->tokens[start_mark];
    const Token *last = first;
    for (size_t m = p->mark; m-- > 0;) {
        last = &p->tokens[m];
        if (!is_whitespace_token(last->kind)) break;
    }
    return parse_extra_tokens(first, last);
}

Extra parse_extra_tokens(const Token *first, const Token *last) {
    Extra x = {first->lineno, first->col_offset, last->end_lineno, last->end_col_offset};
    return x;
}

AstExpr *parse_name_token(Parser *p) {
    size_t mark = p->mark;
    const Token *t = parse_expect(p, TOK_NAME);
    if (!t) return NULL;
    AstExpr *e = parse_expr_new(p, AST_EXPR_NAME, parse_extra(p, mark));
    if (!e) return NULL;
    e->v.Name.id = parse_strdup(p, t->start, t->len);
    e->v.Name.ctx = AST_LOAD;
    return e->v.Name.id ? e : NULL;
}

AstExpr *parse_soft_keyword(Parser *p, const char *kw) {
    const Token *t = parse_peek(p);
    if (!t || t->kind != TOK_NAME || t->len != strlen(kw) || memcmp(t->start, kw, t->len) != 0)
        return NULL;
    return parse_name_token(p);
}

/* ---- memo ---- */

static size_t memo_hash(size_t mark, MemoRule rule, size_t cap) {
    uint64_t h = (uint64_t)mark * 0x9E3779B97F4A7C15ull ^ (uint64_t)rule * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h >> 17) & (cap - 1);
}

static bool memo_live(const Parser *p, const MemoEntry *e) { return e->mark && e->gen == p->memo_gen; }

static MemoEntry *memo_slot(Parser *p, size_t mark, MemoRule rule) {
    size_t i = memo_hash(mark, rule, p->memo_cap);
    for (;;) {
        MemoEntry *e = &p->memo[i];
        if (!memo_live(p, e) || (e->mark == mark + 1 && e->rule == (uint32_t)rule)) return e;
        i = (i + 1) & (p->memo_cap - 1);
    }
}

bool parse_memo_get(Parser *p, MemoRule rule, void **result) {
    if (!p->memo_cap) return false;
    MemoEntry *e = memo_slot(p, p->mark, rule);
    if (!memo_live(p, e)) return false;
    *result = e->result;
    p->mark = e->end;
    return true;
}

void parse_memo_put(Parser *p, size_t mark, MemoRule rule, void *result) {
    if ((p->memo_count + 1) * 2 > p->memo_cap) {
        size_t cap = p->memo_cap ? p->memo_cap * 2 : 1024;
        MemoEntry *old = p->memo;
        size_t old_cap = p->memo_cap;
        MemoEntry *fresh = calloc(cap, sizeof *fresh);
        if (!fresh) return; /* memoisation is only an optimisation */
        p->memo = fresh;
        p->memo_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (memo_live(p, &old[i])) *memo_slot(p, old[i].mark - 1, (MemoRule)old[i].rule) = old[i];
        free(old);
    }
    MemoEntry *e = memo_slot(p, mark, rule);
    if (!memo_live(p, e)) p->memo_count++;
    e->mark = (uint32_t)(mark + 1);
    e->rule = (uint32_t)rule;
    e->gen = p->memo_gen;
    e->end = p->mark;
    e->result = result;
}

void parse_memo_clear(Parser *p) {
    p->memo_count = 0;
    if (++p->memo_gen == 0) { /* wrapped: really clear */
        if (p->memo) memset(p->memo, 0, p->memo_cap * sizeof *p->memo);
        p->memo_gen = 1;
    }
}

/* ---- errors ---- */

static void clear_err(PendingError *e) {
    free(e->message);
    free(e->text);
    memset(e, 0, sizeof *e);
}

static void set_err(Parser *p, ParseErrorKind kind, char *msg, int lineno, int col,
                    int end_lineno, int end_col, const char *text, size_t text_len,
                    bool from_tokenizer) {
    clear_err(&p->err);
    p->err.kind = kind;
    p->err.message = msg;
    p->err.lineno = lineno;
    p->err.col_offset = col;
    p->err.end_lineno = end_lineno;
    p->err.end_col_offset = end_col;
    p->err.from_tokenizer = from_tokenizer;
    if (text) {
        p->err.text = malloc(text_len + 1);
        if (p->err.text) {
            memcpy(p->err.text, text, text_len);
            p->err.text[text_len] = '\0';
            p->err.text_len = text_len;
        }
    }
    p->has_err = true;
    p->error_indicator = true;
}

/* CPython raises MemoryError past its parser stack (6000 rule levels); Ember reports a
 * syntax error at the token where it happened. */
void parse_stack_overflow(Parser *p) {
    if (p->error_indicator) return;
    const Token *t = parse_last_token(p);
    size_t len = 0;
    const char *line = lex_line_nl(p->lx, t->lineno, &len);
    int col = t->col_offset >= 0 ? t->col_offset + 1 : t->cur_col;
    if (line) col = parse_byte_to_char_offset(line, len, col);
    set_err(p, PARSE_SYNTAX_ERROR,
            parse_strdup_printf("too many nested expressions (parser stack overflow)"), t->lineno,
            col, t->lineno, col, line, len, false);
}

/* _PyPegen_raise_error_known_location: cols are 1-based byte offsets (or CURRENT_POS),
 * converted to character offsets against the error line. */
static void *raise_known_v(Parser *p, ParseErrorKind kind, int lineno, int col, int end_lineno,
                           int end_col, const char *fmt, va_list ap) {
    if (p->error_indicator && p->has_err) return NULL;
    const Token *last = parse_last_token(p);
    if (end_lineno == PARSE_CURRENT_POS) end_lineno = last->end_lineno;
    if (end_col == PARSE_CURRENT_POS) end_col = last->cur_col;
    char body[512];
    vsnprintf(body, sizeof body, fmt, ap);
    char *msg = parse_strdup_printf("%s%s", p->fstring_mode ? "f-string: " : "", body);
    size_t len = 0;
    const char *line = lex_line_nl(p->lx, lineno, &len);
    /* The error line is the file's line with its newline (CPython reads it back from the
     * file); columns past its end are clamped to len + 1 against it. */
    size_t conv_len = len;
    if (p->fstring_mode) {
        col -= p->starting_col_offset;
        end_col -= p->starting_col_offset;
    }
    /* The f-string sub-tokenizer has no encoding, so CPython leaves its columns in bytes */
    int col_number = col, end_number = end_col;
    if (!p->fstring_mode && line) {
        col_number = parse_byte_to_char_offset(line, conv_len, col < 0 ? 0 : col);
        if (end_col > 0) end_number = parse_byte_to_char_offset(line, conv_len, end_col);
    }
    set_err(p, kind, msg, lineno, col_number, end_lineno, end_number, line, len, false);
    return NULL;
}

void *parse_raise_known(Parser *p, ParseErrorKind kind, int lineno, int col, int end_lineno,
                        int end_col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    raise_known_v(p, kind, lineno, col, end_lineno, end_col, fmt, ap);
    va_end(ap);
    return NULL;
}

/* _PyPegen_raise_error: located at the last token fetched (or known_err_token). */
void *parse_raise(Parser *p, ParseErrorKind kind, const char *fmt, ...) {
    if (p->error_indicator && p->has_err) return NULL;
    va_list ap;
    va_start(ap, fmt);
    if (p->fill == 0) {
        raise_known_v(p, kind, 0, 0, 0, -1, fmt, ap);
    } else {
        const Token *t = p->known_err_token ? p->known_err_token : parse_last_token(p);
        int col = t->col_offset == -1 ? t->cur_col : t->col_offset + 1;
        int end = t->end_col_offset != -1 ? t->end_col_offset + 1 : -1;
        raise_known_v(p, kind, t->lineno, col, t->end_lineno, end, fmt, ap);
    }
    va_end(ap);
    return NULL;
}

void parse_raise_lexer_error(Parser *p) {
    if (p->error_indicator && p->has_err) return;
    const ParseError *e = &p->lx->error;
    if (p->lx->out_of_memory) {
        set_err(p, PARSE_SYNTAX_ERROR, parse_strdup_printf("out of memory"), 0, 0, 0, 0, NULL, 0,
                true);
        return;
    }
    set_err(p, e->kind, parse_strdup_printf("%s", e->message ? e->message : "?"), e->lineno,
            e->col_offset, e->end_lineno, e->end_col_offset, e->text,
            e->text ? strlen(e->text) : 0, true);
}

/* ---- arena helpers ---- */

void *parse_alloc(Parser *p, size_t size) {
    void *m = ast_arena_alloc(p->arena, size);
    if (!m && !p->error_indicator)
        set_err(p, PARSE_SYNTAX_ERROR, parse_strdup_printf("out of memory"), 0, 0, 0, 0, NULL, 0,
                false);
    return m;
}

const char *parse_strdup(Parser *p, const char *s, size_t len) {
    char *d = parse_alloc(p, len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

bool pvec_push(Parser *p, PVec *v, void *item) {
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        void **items = parse_alloc(p, cap * sizeof *items);
        if (!items) return false;
        if (v->count) memcpy(items, v->items, v->count * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->count++] = item;
    return true;
}

AstExpr *parse_expr_new(Parser *p, AstExprKind kind, Extra x) {
    AstExpr *e = parse_alloc(p, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->lineno = x.lineno;
    e->col_offset = x.col_offset;
    e->end_lineno = x.end_lineno;
    e->end_col_offset = x.end_col_offset;
    return e;
}

AstStmt *parse_stmt_new(Parser *p, AstStmtKind kind, Extra x) {
    AstStmt *s = parse_alloc(p, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->lineno = x.lineno;
    s->col_offset = x.col_offset;
    s->end_lineno = x.end_lineno;
    s->end_col_offset = x.end_col_offset;
    return s;
}

/* ---- node helpers (CPython's action_helpers.c) ---- */

static AstExprSeq set_seq_context(Parser *p, AstExprSeq seq, AstExprContext ctx) {
    AstExprSeq out = {NULL, seq.count};
    if (!seq.count) return out;
    out.items = parse_alloc(p, seq.count * sizeof *out.items);
    if (!out.items) return out;
    for (size_t i = 0; i < seq.count; i++) out.items[i] = parse_set_expr_context(p, seq.items[i], ctx);
    return out;
}

/* _PyPegen_set_expr_context: a copy of e with the new context (shared nodes stay intact). */
AstExpr *parse_set_expr_context(Parser *p, AstExpr *e, AstExprContext ctx) {
    if (!e) return NULL;
    AstExpr *n;
    switch (e->kind) {
    case AST_EXPR_NAME:
    case AST_EXPR_TUPLE:
    case AST_EXPR_LIST:
    case AST_EXPR_SUBSCRIPT:
    case AST_EXPR_ATTRIBUTE:
    case AST_EXPR_STARRED:
        n = parse_alloc(p, sizeof *n);
        if (!n) return NULL;
        *n = *e;
        break;
    default:
        return e;
    }
    switch (e->kind) {
    case AST_EXPR_NAME: n->v.Name.ctx = ctx; break;
    case AST_EXPR_TUPLE:
        n->v.Tuple.elts = set_seq_context(p, e->v.Tuple.elts, ctx);
        n->v.Tuple.ctx = ctx;
        break;
    case AST_EXPR_LIST:
        n->v.List.elts = set_seq_context(p, e->v.List.elts, ctx);
        n->v.List.ctx = ctx;
        break;
    case AST_EXPR_SUBSCRIPT: n->v.Subscript.ctx = ctx; break;
    case AST_EXPR_ATTRIBUTE: n->v.Attribute.ctx = ctx; break;
    case AST_EXPR_STARRED:
        n->v.Starred.value = parse_set_expr_context(p, e->v.Starred.value, ctx);
        n->v.Starred.ctx = ctx;
        break;
    default: break;
    }
    return n;
}

const char *parse_expr_name(const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_ATTRIBUTE: return "attribute";
    case AST_EXPR_SUBSCRIPT: return "subscript";
    case AST_EXPR_STARRED: return "starred";
    case AST_EXPR_NAME: return "name";
    case AST_EXPR_LIST: return "list";
    case AST_EXPR_TUPLE: return "tuple";
    case AST_EXPR_LAMBDA: return "lambda";
    case AST_EXPR_CALL: return "function call";
    case AST_EXPR_BOOL_OP:
    case AST_EXPR_BIN_OP:
    case AST_EXPR_UNARY_OP: return "expression";
    case AST_EXPR_GENERATOR_EXP: return "generator expression";
    case AST_EXPR_YIELD:
    case AST_EXPR_YIELD_FROM: return "yield expression";
    case AST_EXPR_AWAIT: return "await expression";
    case AST_EXPR_LIST_COMP: return "list comprehension";
    case AST_EXPR_SET_COMP: return "set comprehension";
    case AST_EXPR_DICT_COMP: return "dict comprehension";
    case AST_EXPR_DICT: return "dict literal";
    case AST_EXPR_SET: return "set display";
    case AST_EXPR_JOINED_STR:
    case AST_EXPR_FORMATTED_VALUE: return "f-string expression";
    case AST_EXPR_CONSTANT:
        switch (e->v.Constant.value.type) {
        case AST_CONST_NONE: return "None";
        case AST_CONST_BOOL: return e->v.Constant.value.b ? "True" : "False";
        case AST_CONST_ELLIPSIS: return "ellipsis";
        default: return "literal";
        }
    case AST_EXPR_COMPARE: return "comparison";
    case AST_EXPR_IF_EXP: return "conditional expression";
    case AST_EXPR_NAMED_EXPR: return "named expression";
    case AST_EXPR_SLICE:
    case AST_EXPR__COUNT: break;
    }
    return "expression";
}

AstExpr *parse_get_invalid_target(AstExpr *e, TargetsType type) {
    if (!e) return NULL;
    switch (e->kind) {
    case AST_EXPR_LIST:
    case AST_EXPR_TUPLE: {
        AstExprSeq elts = e->kind == AST_EXPR_LIST ? e->v.List.elts : e->v.Tuple.elts;
        for (size_t i = 0; i < elts.count; i++) {
            AstExpr *child = parse_get_invalid_target(elts.items[i], type);
            if (child) return child;
        }
        return NULL;
    }
    case AST_EXPR_STARRED:
        if (type == DEL_TARGETS) return e;
        return parse_get_invalid_target(e->v.Starred.value, type);
    case AST_EXPR_COMPARE:
        if (type == FOR_TARGETS) {
            if (e->v.Compare.ops.items[0] == AST_IN)
                return parse_get_invalid_target(e->v.Compare.left, type);
            return NULL;
        }
        return e;
    case AST_EXPR_NAME:
    case AST_EXPR_SUBSCRIPT:
    case AST_EXPR_ATTRIBUTE: return NULL;
    default: return e;
    }
}

void *parse_raise_invalid_target(Parser *p, TargetsType type, AstExpr *e) {
    AstExpr *bad = parse_get_invalid_target(e, type);
    if (!bad) return NULL;
    const char *fmt = type == DEL_TARGETS ? "cannot delete %s" : "cannot assign to %s";
    return RAISE_AT(bad, fmt, parse_expr_name(bad));
}

bool parse_is_legacy_stmt(const AstExpr *name) {
    if (!name || name->kind != AST_EXPR_NAME) return false;
    return strcmp(name->v.Name.id, "print") == 0 || strcmp(name->v.Name.id, "exec") == 0;
}

AstArguments *parse_empty_arguments(Parser *p) { return parse_alloc(p, sizeof(AstArguments)); }

static bool append_args(Parser *p, PVec *dst, const PVec *src) {
    for (size_t i = 0; src && i < src->count; i++)
        if (!pvec_push(p, dst, src->items[i])) return false;
    return true;
}

static bool append_pairs(Parser *p, PVec *names, PVec *values, const PVec *pairs) {
    for (size_t i = 0; pairs && i < pairs->count; i++) {
        NameDefaultPair *pair = pairs->items[i];
        if (names && !pvec_push(p, names, pair->arg)) return false;
        if (values && !pvec_push(p, values, pair->value)) return false;
    }
    return true;
}

/* _PyPegen_make_arguments */
AstArguments *parse_make_arguments(Parser *p, PVec *slash_without_default,
                                   SlashWithDefault *slash_with_default, PVec *plain_names,
                                   PVec *names_with_default, StarEtc *star_etc) {
    AstArguments *a = parse_empty_arguments(p);
    if (!a) return NULL;
    PVec posonly = {0}, posargs = {0}, defaults = {0}, kwonly = {0}, kwdefaults = {0};
    bool ok = true;
    if (slash_without_default) {
        ok = append_args(p, &posonly, slash_without_default);
    } else if (slash_with_default) {
        ok = append_args(p, &posonly, &slash_with_default->plain_names) &&
             append_pairs(p, &posonly, NULL, &slash_with_default->names_with_defaults);
    }
    ok = ok && append_args(p, &posargs, plain_names) &&
         append_pairs(p, &posargs, NULL, names_with_default);
    if (slash_with_default)
        ok = ok && append_pairs(p, NULL, &defaults, &slash_with_default->names_with_defaults);
    ok = ok && append_pairs(p, NULL, &defaults, names_with_default);
    if (star_etc) ok = ok && append_pairs(p, &kwonly, &kwdefaults, &star_etc->kwonlyargs);
    if (!ok) return NULL;
    a->posonlyargs = SEQ(AstArgSeq, posonly);
    a->args = SEQ(AstArgSeq, posargs);
    a->defaults = SEQ(AstExprSeq, defaults);
    a->kwonlyargs = SEQ(AstArgSeq, kwonly);
    a->kw_defaults = SEQ(AstExprSeq, kwdefaults);
    if (star_etc) {
        a->vararg = star_etc->vararg;
        a->kwarg = star_etc->kwarg;
    }
    return a;
}

AstExpr *parse_last_comprehension_item(AstComprehension *c) {
    if (c->ifs.count == 0) return c->iter;
    return c->ifs.items[c->ifs.count - 1];
}

/* ---- driver ---- */

static void parser_init(Parser *p, Lexer *lx, AstArena *arena, const char *filename) {
    memset(p, 0, sizeof *p);
    p->start_rule = parse_file_rule;
    p->lx = lx;
    p->tokens = lx->tokens;
    p->ntokens = lx->count;
    p->arena = arena;
    p->filename = filename;
    p->memo_gen = 1;
}

static void parser_fini(Parser *p) {
    clear_err(&p->err);
    free(p->memo);
}

static void reset_for_pass(Parser *p, size_t start, bool invalid_rules) {
    parse_memo_clear(p);
    p->mark = start;
    p->call_invalid_rules = invalid_rules;
    p->level = 0;
    p->known_err_token = NULL;
}

static void raise_unclosed_from_lexer(Parser *p) {
    const Lexer *lx = p->lx;
    size_t len;
    const char *line = lex_line_nl(lx, lx->open_lineno, &len);
    char *msg = parse_strdup_printf("'%c' was never closed", lx->open_char);
    int col = line ? parse_byte_to_char_offset(line, len, lx->open_col + 1) : lx->open_col + 1;
    set_err(p, PARSE_SYNTAX_ERROR, msg, lx->open_lineno, col, lx->open_lineno, 0, line, len, true);
}

/* _PyPegen_tokenize_full_source_to_check_for_errors */
static void check_rest_of_source(Parser *p) {
    const Lexer *lx = p->lx;
    if (lx->error_class == LEX_ERR_NONE && !lx->out_of_memory) return;
    if (lx->error_class == LEX_ERR_RAISED || lx->out_of_memory) {
        p->error_indicator = false;
        p->has_err = false;
        parse_raise_lexer_error(p);
        return;
    }
    const Token *cur = p->known_err_token ? p->known_err_token : parse_last_token(p);
    if (lx->open_level > 0 && cur->lineno > lx->open_lineno) raise_unclosed_from_lexer(p);
}

/* _PyPegen_set_syntax_error.  While recovering (secondary errors) a later tokenizer error
 * does not replace the statement's own error: it is reported when reached. */
static void set_syntax_error(Parser *p, const Token *last_token) {
    if (p->has_err) {
        if (!p->err.from_tokenizer && !p->recovering) check_rest_of_source(p);
        return;
    }
    p->error_indicator = false;
    if (p->fill == 0) {
        RAISE_SYNTAX_ERROR("error at start before reading any input");
        return;
    }
    if (last_token->kind == TOK_INDENT || last_token->kind == TOK_DEDENT) {
        RAISE_INDENTATION_ERROR(last_token->kind == TOK_INDENT ? "unexpected indent"
                                                               : "unexpected unindent");
        return;
    }
    RAISE_AT(last_token, "invalid syntax");
    if (!p->recovering) check_rest_of_source(p);
}

/* One failed parse attempt starting at `start`: second pass and error selection.  The
 * first pass must just have run (its furthest token is tokens[fill - 1]). */
static void diagnose(Parser *p, size_t start, bool whole_file) {
    const Token *last_token = parse_last_token(p);
    if (!p->has_err) {
        reset_for_pass(p, start, true);
        if (whole_file) p->start_rule(p);
        else parse_statement_rule(p);
    }
    set_syntax_error(p, last_token);
}

static void record_error(Parser *p, ParseErrorList *errors) {
    const PendingError *e = &p->err;
    ParseError *pe = parse_errors_add(errors, e->kind, PARSE_PHASE_PARSER, e->message ? e->message : "?", e->lineno,
                                      e->col_offset, e->end_lineno, e->end_col_offset, e->text, e->text_len);
    /* CPython takes the text of a line the tokenizer has moved past from its saved buffers,
     * without the newline; only the line it is on keeps one */
    if (pe && p->fill && p->tokens[p->fill - 1].lineno > e->lineno) pe->text_newline = false;
    /* an error the tokenizer raises itself carries its line without the newline, never re-read */
    if (pe && e->from_tokenizer && p->lx->error_class == LEX_ERR_RAISED) pe->text_newline = false, pe->tokenizer_text = true;
}

/* Index after the statement that failed: past the next NEWLINE at or after `from`, then
 * past an indented block following it.  Returns SIZE_MAX when the stream holds no further
 * statement boundary (the rest is inside brackets, or a tokenizer error comes first). */
static size_t resync_point(Parser *p, size_t from) {
    size_t i = from;
    while (i < p->ntokens && p->tokens[i].kind != TOK_NEWLINE) {
        if (p->tokens[i].kind == TOK_ENDMARKER || p->tokens[i].kind == TOK_ERRORTOKEN) return SIZE_MAX;
        i++;
    }
    if (i >= p->ntokens) return SIZE_MAX;
    i++;
    if (i < p->ntokens && p->tokens[i].kind == TOK_INDENT) {
        int depth = 0;
        for (; i < p->ntokens; i++) {
            TokenKind k = p->tokens[i].kind;
            if (k == TOK_INDENT) depth++;
            else if (k == TOK_DEDENT && --depth == 0) {
                i++;
                break;
            } else if (k == TOK_ENDMARKER || k == TOK_ERRORTOKEN) break;
        }
    }
    return i;
}

/* The line after which a fresh lexer can resume once the tokenizer failed: the line after
 * the one the error was detected on; 0 when the error ran to the end of the input. */
static int lexer_restart_line(const Lexer *lx) {
    if (lx->error_is_eof) /* an unclosed bracket: assume it ends on its own line */
        return lx->open_level > 0 ? lx->open_lineno + 1 : 0;
    const char *msg = lx->error.message ? lx->error.message : "";
    const char *at = strstr(msg, "(detected at line ");
    if (at) {
        if (strstr(msg, "triple-quoted")) return 0;
        return atoi(at + strlen("(detected at line ")) + 1;
    }
    return lx->error.lineno + 1;
}

/* Parses the statements of p's token stream from token i, one at a time, recording each
 * statement's error (CPython's second pass at that statement) and resynchronising after
 * it.  Returns the source line where a fresh lexer should resume, or 0 when done. */
static int parse_rest_of_stream(Parser *p, size_t i, ParseErrorList *errors, int max_errors) {
    while (i < p->ntokens && (int)parse_errors_count_upto(errors, PARSE_PHASE_PARSER) < max_errors) {
        TokenKind k = p->tokens[i].kind;
        if (k == TOK_ENDMARKER) return 0;
        if (k == TOK_ERRORTOKEN) { /* a tokenizer error between two statements */
            p->fill = i;
            p->mark = i;
            p->has_err = p->error_indicator = false;
            parse_raise_lexer_error(p);
            record_error(p, errors);
            return lexer_restart_line(p->lx);
        }
        if (k == TOK_DEDENT || k == TOK_NEWLINE) {
            i++;
            continue;
        }
        if (k == TOK_INDENT) { /* stray indented block: skip it */
            size_t next = resync_point(p, i);
            if (next == SIZE_MAX) return p->tokens[i].lineno + 1;
            i = next > i ? next : i + 1;
            continue;
        }
        clear_err(&p->err);
        p->has_err = p->error_indicator = false;
        p->fill = i;
        reset_for_pass(p, i, false);
        if (parse_statement_rule(p) && !p->error_indicator) {
            i = p->mark;
            continue;
        }
        size_t furthest = p->fill ? p->fill - 1 : i;
        diagnose(p, i, false);
        if (p->has_err) record_error(p, errors);
        if (p->has_err && p->err.from_tokenizer) return lexer_restart_line(p->lx);
        size_t next = resync_point(p, furthest > i ? furthest : i);
        if (next == SIZE_MAX) return p->tokens[furthest > i ? furthest : i].lineno + 1;
        i = next > i ? next : i + 1;
    }
    return 0;
}

/* After the primary error: more errors, best effort.  Statements are resynchronised on the
 * token stream; where that is impossible (unclosed brackets, tokenizer errors) lexing
 * starts afresh at the next line that begins in column 0. */
static void collect_more_errors(Parser *p, size_t from, ParseErrorList *errors, int max_errors) {
    int restart;
    p->recovering = true;
    if (p->err.from_tokenizer) {
        restart = lexer_restart_line(p->lx);
    } else {
        size_t next = resync_point(p, from);
        restart = next == SIZE_MAX ? p->tokens[from].lineno + 1 : parse_rest_of_stream(p, next, errors, max_errors);
        if (next == SIZE_MAX && p->tokens[from].lineno < 1) restart = 0;
    }
    const Lexer *main_lx = p->lx;
    while (restart > 0 && (int)parse_errors_count_upto(errors, PARSE_PHASE_PARSER) < max_errors) {
        /* the first line from `restart` on that starts a top-level statement */
        int line = restart;
        size_t len = 0, off = 0;
        const char *text = NULL;
        for (;; line++) {
            text = lex_line_nl(main_lx, line, &len);
            if (!text) return;
            if (len && text[0] != ' ' && text[0] != '\t' && text[0] != '\f' && text[0] != '#' &&
                text[0] != '\n')
                break;
        }
        off = (size_t)(text - main_lx->src);
        Lexer lx;
        LexOptions lo = {line, 0};
        lex_tokenize(&lx, main_lx->src + off, main_lx->src_len - off, &lo);
        if (lx.out_of_memory || lx.count == 0) {
            lex_free(&lx);
            return;
        }
        Parser sub;
        parser_init(&sub, &lx, p->arena, p->filename);
        sub.recovering = true;
        restart = parse_rest_of_stream(&sub, 0, errors, max_errors);
        if (restart && restart <= line) restart = line + 1;
        parser_fini(&sub);
        lex_free(&lx);
    }
}

/* The f-string expression sub-parser (fstring_compile_expr's second parser): the rule is
 * `fstring: star_expressions`, with CPython's two passes; its error becomes the parent's. */
AstExpr *parse_fstring_subparse(Parser *parent, const char *src, size_t len, int lineno,
                                int col_offset) {
    if (parent->fstring_depth >= 8) {
        parse_raise(parent, PARSE_SYNTAX_ERROR, "f-string: expressions nested too deeply");
        return NULL;
    }
    Lexer lx;
    LexOptions lo = {lineno, col_offset};
    lex_tokenize(&lx, src, len, &lo);
    if (lx.out_of_memory || lx.count == 0) {
        lex_free(&lx);
        parse_raise(parent, PARSE_SYNTAX_ERROR, "out of memory");
        return NULL;
    }
    Parser p;
    parser_init(&p, &lx, parent->arena, parent->filename);
    p.fstring_mode = true;
    p.starting_lineno = lineno;
    p.starting_col_offset = col_offset;
    p.fstring_depth = parent->fstring_depth + 1;
    p.level = parent->level;
    AstExpr *e = parse_star_expressions_rule(&p);
    if (!e || p.error_indicator) {
        e = NULL;
        const Token *last_token = parse_last_token(&p);
        if (!p.has_err) {
            reset_for_pass(&p, 0, true);
            p.level = parent->level;
            parse_star_expressions_rule(&p);
        }
        set_syntax_error(&p, last_token);
        clear_err(&parent->err);
        parent->err = p.err;
        parent->err.from_tokenizer = false;
        memset(&p.err, 0, sizeof p.err);
        parent->has_err = true;
        parent->error_indicator = true;
    }
    if (lx.nfkc_name && !parent->lx->nfkc_name) { /* hand it to the module's lexer */
        parent->lx->nfkc_name = lx.nfkc_name;
        parent->lx->nfkc_lineno = lx.nfkc_lineno;
        parent->lx->nfkc_col = lx.nfkc_col;
        parent->lx->nfkc_end_col = lx.nfkc_end_col;
        lx.nfkc_name = NULL;
    }
    parser_fini(&p);
    lex_free(&lx);
    return e;
}

/* The token stream CPython's string tokenizer gives the eval and single modes, which do not
 * add a newline at the end of the source as the file mode (and Ember's lexer) does.  In eval
 * mode the lexer's final NEWLINE goes when the source had none.  In single mode
 * _PyPegen_fill_token turns an ENDMARKER that follows another token into a NEWLINE (and
 * implies the dedents, which the lexer has produced already): when the source had no final
 * newline, the lexer's NEWLINE stands for the first such NEWLINE, and a second one follows
 * the dedents if there are any; when it had one, one NEWLINE precedes the ENDMARKER. */
static bool adjust_final_tokens(Lexer *lx, ParseMode mode, bool trailing_newline, bool dont_imply_dedent) {
    if (lx->count < 2 || lx->tokens[lx->count - 1].kind != TOK_ENDMARKER) return true;
    if (mode == PARSE_MODE_EVAL) {
        if (!trailing_newline && lx->tokens[lx->count - 2].kind == TOK_NEWLINE) {
            lx->tokens[lx->count - 2] = lx->tokens[lx->count - 1];
            lx->count--;
        }
        return true;
    }
    if (mode != PARSE_MODE_SINGLE) return true;
    if (!trailing_newline) {
        /* an unterminated last line: the lexer's NEWLINE (then the DEDENTs closing its blocks) is
         * the NEWLINE CPython makes of the ENDMARKER, and has no position: an error there is
         * reported at offset 0 */
        size_t i = lx->count - 2;
        while (i > 0 && lx->tokens[i].kind == TOK_DEDENT) i--;
        if (lx->tokens[i].kind == TOK_NEWLINE) {
            lx->tokens[i].col_offset = -1;
            lx->tokens[i].end_col_offset = -1;
            if (dont_imply_dedent) {
                /* PyCF_DONT_IMPLY_DEDENT: the blocks the last line leaves open stay open */
                lx->tokens[i + 1] = lx->tokens[lx->count - 1];
                lx->count = i + 2;
                return true;
            }
            /* after the implied DEDENTs CPython turns the ENDMARKER into a NEWLINE once more */
            if (i == lx->count - 2) return true;
        }
    }
    if (lx->count == lx->cap) {
        Token *t = realloc(lx->tokens, (lx->cap + 1) * sizeof *t);
        if (!t) return false;
        lx->tokens = t;
        lx->cap++;
    }
    lx->tokens[lx->count] = lx->tokens[lx->count - 1];
    lx->tokens[lx->count - 1].kind = TOK_NEWLINE;
    lx->count++;
    return true;
}

/* bad_single_statement: anything but blanks and comments after the tokens the parser read. */
static bool bad_single_statement(const Parser *p) {
    const Token *last = parse_last_token((Parser *)p);
    const char *c = last->start ? last->start + last->len : NULL;
    if (!c) return false;
    const char *end = p->lx->src + p->lx->src_len;
    while (c < end) {
        while (c < end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\f')) c++;
        if (c >= end) return false;
        if (*c != '#') return true;
        while (c < end && *c != '\n') c++;
    }
    return false;
}

/* The index of the first token the tokenizer produces only once it has hit the end of the
 * input (CPython's tok->done == E_EOF): the ENDMARKER, the DEDENTs before it, and outside
 * 'exec' mode (where CPython appends the missing newline to the source) the NEWLINE made up
 * for an unterminated last line. */
static size_t eof_tokens_start(const Lexer *lx, ParseMode mode, bool trailing_newline) {
    const Token *t = lx->tokens;
    size_t i = lx->count - 1;
    /* 'single' mode's NEWLINE added before the ENDMARKER (adjust_final_tokens) */
    if (mode == PARSE_MODE_SINGLE && i > 1 && t[i - 1].kind == TOK_NEWLINE && (trailing_newline || t[i - 2].kind == TOK_DEDENT))
        i--;
    while (i > 0 && t[i - 1].kind == TOK_DEDENT) i--;
    if (i > 0 && t[i - 1].kind == TOK_NEWLINE && mode != PARSE_MODE_EXEC && !trailing_newline) i--;
    return i;
}

/* _is_end_of_source: the first pass failed where only more input could have helped */
static bool at_end_of_source(const Parser *p, size_t eof_start, ParseMode mode, bool trailing_newline) {
    const Lexer *lx = p->lx;
    if (lx->error_class != LEX_ERR_NONE) {
        const char *m = lx->error.message ? lx->error.message : "";
        if (lx->error_is_eof || strncmp(m, "unterminated triple-quoted", 26) == 0) return true;
        /* a one-line string cut by the end of the input, not by a newline */
        return strncmp(m, "unterminated string literal", 27) == 0 && mode != PARSE_MODE_EXEC && !trailing_newline &&
               lx->error.lineno >= lx->tokens[lx->count - 1].lineno - 1;
    }
    return p->fill > eof_start;
}

static int parse_tokens(Lexer *lx, const ParseOptions *opts, bool trailing_newline, AstArena *arena,
                        AstModule **out, ParseErrorList *errors) {
    Parser p;
    ParseMode mode = opts ? opts->mode : PARSE_MODE_EXEC;
    if (!adjust_final_tokens(lx, mode, trailing_newline, opts && opts->dont_imply_dedent)) {
        parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "out of memory", 0, 0, 0, 0, NULL, 0);
        return -1;
    }
    size_t eof_start = eof_tokens_start(lx, mode, trailing_newline);
    parser_init(&p, lx, arena, opts ? opts->filename : NULL);
    p.start_rule = mode == PARSE_MODE_EVAL        ? parse_eval_rule
                   : mode == PARSE_MODE_SINGLE    ? parse_interactive_rule
                   : mode == PARSE_MODE_FUNC_TYPE ? parse_func_type_rule
                                                  : parse_file_rule;
    int max_errors = opts && opts->max_errors > 0 ? opts->max_errors : 50;
    AstModule *mod = p.start_rule(&p);
    if (mod && !p.error_indicator && mode == PARSE_MODE_SINGLE && bad_single_statement(&p)) {
        parse_raise(&p, PARSE_SYNTAX_ERROR, "multiple statements found while compiling a single statement");
        record_error(&p, errors);
        parser_fini(&p);
        return -1;
    }
    if (mod && !p.error_indicator) {
        parser_fini(&p);
        size_t before = errors->count;
        if (lx->nfkc_name) { /* CPython normalises such names; Ember rejects them */
            char *msg = parse_strdup_printf("identifier '%s' needs Unicode NFKC normalization, "
                                            "which is not supported", lx->nfkc_name);
            size_t len = 0;
            const char *line = lex_line_nl(lx, lx->nfkc_lineno, &len);
            int col = line ? parse_byte_to_char_offset(line, len, lx->nfkc_col + 1) : 0;
            int end = line ? parse_byte_to_char_offset(line, len, lx->nfkc_end_col + 1) : 0;
            parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, msg ? msg : "?",
                             lx->nfkc_lineno, col, lx->nfkc_lineno, end, line, len);
            free(msg);
            return -1;
        }
        ParseCheckResult r = parse_check_module(mod, lx, errors);
        if (opts && opts->ast_only) parse_errors_drop_after(errors, PARSE_PHASE_PARSER);
        if (!r.unsupported) *out = mod;
        return errors->count > before ? -1 : 0;
    }
    if (opts && opts->allow_incomplete && at_end_of_source(&p, eof_start, mode, trailing_newline)) {
        p.error_indicator = false;
        p.has_err = false;
        parse_raise(&p, PARSE_SYNTAX_ERROR, "incomplete input");
        record_error(&p, errors);
        parser_fini(&p);
        return -1;
    }
    size_t furthest = p.fill ? p.fill - 1 : 0;
    diagnose(&p, 0, true);
    record_error(&p, errors);
    if (mode == PARSE_MODE_EXEC) collect_more_errors(&p, furthest, errors, max_errors);
    parser_fini(&p);
    return -1;
}

int parse_source(const char *src, size_t len, const ParseOptions *opts, AstArena *arena,
                 AstModule **out, ParseErrorList *errors) {
    *out = NULL;
    Lexer lx;
    LexOptions lo = {1, 0};
    lex_tokenize(&lx, src, len, &lo);
    int r;
    if (lx.out_of_memory || lx.count == 0) {
        parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "out of memory", 0, 0, 0,
                         0, NULL, 0);
        r = -1;
    } else if (len == 0 && opts && opts->mode != PARSE_MODE_EXEC) {
        /* nothing to read: CPython reports its generic error before line 1 */
        parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "invalid syntax", 0, 0, 0, 0, NULL, 0);
        r = -1;
    } else {
        bool trailing_newline = len && (src[len - 1] == '\n' || src[len - 1] == '\r');
        if (opts && opts->mode == PARSE_MODE_SINGLE && !trailing_newline && src[len - 1] == '\\' &&
            lx.error_class == LEX_ERR_DEFERRED && lx.error_is_eof && lx.error.message &&
            strcmp(lx.error.message, "unexpected EOF while parsing") == 0) {
            /* no newline is appended outside 'exec' mode: the backslash is followed by the end of
             * the input, not by a newline */
            char *msg = parse_strdup_printf("unexpected character after line continuation character");
            if (msg) {
                free(lx.error.message);
                lx.error.message = msg;
                size_t line_len = 0;
                const char *line = lex_line_nl(&lx, lx.error.lineno, &line_len);
                lx.error.col_offset = line ? parse_byte_to_char_offset(line, line_len, (int)line_len) - 1 : 0;
                lx.error.end_col_offset = 0;
                lx.error_is_eof = false;
            }
        }
        size_t before = errors->count;
        r = parse_tokens(&lx, opts, trailing_newline, arena, out, errors);
        if (!trailing_newline && opts && opts->mode != PARSE_MODE_EXEC) {
            /* CPython's string tokenizer adds the missing final newline in 'exec' mode only:
             * elsewhere an error's text on the last line has none */
            int last = 1;
            size_t last_start = 0;
            for (size_t i = 0; i < len; i++)
                if (src[i] == '\n' || (src[i] == '\r' && !(i + 1 < len && src[i + 1] == '\n'))) last++, last_start = i + 1;
            /* and its cursor at the end of that line is one column short of where it is past a newline */
            int last_chars = parse_byte_to_char_offset(src + last_start, len - last_start, (int)(len - last_start) + 1) - 1;
            for (size_t i = before; i < errors->count; i++) {
                ParseError *e = &errors->items[i];
                if (e->lineno < last) continue;
                e->text_newline = false;
                if (e->lineno == last && e->col_offset == last_chars + 1) e->col_offset = last_chars;
            }
        }
    }
    lex_free(&lx);
    return r;
}

int parse_file(const char *path, AstArena *arena, AstModule **out, ParseErrorList *errors) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        char *msg = parse_strdup_printf("can't open file '%s': %s", path, strerror(errno));
        parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, msg ? msg : "can't open file",
                         0, 0, 0, 0, NULL, 0);
        free(msg);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "out of memory", 0,
                                 0, 0, 0, NULL, 0);
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    fclose(f);
    ParseOptions opts = {path, 0};
    int r = parse_source(buf ? buf : "", len, &opts, arena, out, errors);
    free(buf);
    return r;
}
