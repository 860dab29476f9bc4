/* parse_fstring.c — f-strings, following CPython 3.11's Parser/string_parser.c: the body is
 * scanned for literal parts and {expression!conv:spec} parts; each expression is parsed by
 * a sub-parser over "(expression)" positioned where the expression sits in the source; the
 * format spec is itself parsed as an f-string (one level of nesting). */
#include "src/frontend/parse_fstring.h"

#include <stdlib.h>
#include <string.h>

#define MAXLEVEL 200

void parse_fstring_state_init(FStringState *st) { memset(st, 0, sizeof *st); }

void parse_fstring_state_fini(FStringState *st) {
    free(st->last_str);
    st->last_str = NULL;
}

int parse_fstring_concat_str(Parser *p, FStringState *st, char *s, size_t len) {
    if (len == 0) {
        free(s);
        return 0;
    }
    if (!st->last_str) {
        st->last_str = s;
        st->last_len = len;
        return 0;
    }
    char *n = realloc(st->last_str, st->last_len + len + 1);
    if (!n) {
        free(s);
        RAISE_SYNTAX_ERROR("out of memory");
        return -1;
    }
    memcpy(n + st->last_len, s, len);
    n[st->last_len + len] = '\0';
    st->last_str = n;
    st->last_len += len;
    free(s);
    return 0;
}

/* make_str_node_and_del: a Constant from the pending literal ('u' kind if the first token
 * starts with a lowercase u). */
static AstExpr *make_str_node(Parser *p, FStringState *st, const Token *first, const Token *last) {
    AstExpr *e = parse_expr_new(p, AST_EXPR_CONSTANT, parse_extra_tokens(first, last));
    const char *d = parse_strdup(p, st->last_str ? st->last_str : "", st->last_len);
    free(st->last_str);
    st->last_str = NULL;
    if (!e || !d) return NULL;
    e->v.Constant.value.type = AST_CONST_STR;
    e->v.Constant.value.s.data = d;
    e->v.Constant.value.s.len = st->last_len;
    st->last_len = 0;
    if (first->start[0] == 'u') e->v.Constant.kind = "u";
    return e;
}

/* fstring_find_literal: the literal up to an undoubled brace.  Returns -1 on error, 1 when
 * the literal ended at a doubled brace (keep scanning), 0 otherwise. */
static int find_literal(Parser *p, const char **str, const char *end, bool raw, char **lit,
                        size_t *lit_len, int recurse_lvl) {
    const char *s = *str, *literal_start = s;
    int result = 0;
    *lit = NULL;
    while (s < end) {
        char ch = *s++;
        if (!raw && ch == '\\' && s < end) {
            ch = *s++;
            if (ch == 'N') {
                if (s < end && *s++ == '{') {
                    while (s < end && *s++ != '}') {
                    }
                    continue;
                }
                continue;
            }
        }
        if (ch == '{' || ch == '}') {
            if (recurse_lvl == 0) {
                if (s < end && *s == ch) {
                    *str = s + 1;
                    result = 1;
                    goto done;
                }
                if (ch == '}') {
                    *str = s - 1;
                    RAISE_SYNTAX_ERROR("f-string: single '}' is not allowed");
                    return -1;
                }
            }
            s--;
            break;
        }
    }
    *str = s;
done:
    if (literal_start != s) {
        if (!parse_decode_literal(p, literal_start, (size_t)(s - literal_start), raw, lit, lit_len))
            return -1;
    }
    return result;
}

/* fstring_find_expr_location: lines and columns from the token start to the '{'. */
static void expr_location(const Token *t, const char *brace, int *lines, int *cols) {
    const char *tok_end = t->start + t->len;
    bool newline_after_brace = true;
    for (const char *s = brace + 1; s < tok_end && *s != '}' && *s != '\n'; s++)
        if (*s != ' ' && *s != '\t' && *s != '\f') {
            newline_after_brace = false;
            break;
        }
    *lines = 0;
    *cols = 0;
    if (!newline_after_brace) {
        const char *start = brace;
        while (start > t->start && *start != '\n') start--;
        *cols = (int)(brace - start);
        if (*start == '\n') *cols -= 1;
    }
    for (const char *s = t->start; s < brace; s++)
        if (*s == '\n') (*lines)++;
}

/* fstring_compile_expr */
static AstExpr *compile_expr(Parser *p, const char *expr_start, const char *expr_end, const Token *t) {
    const char *s = expr_start;
    while (s != expr_end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\f')) s++;
    if (s == expr_end) {
        if (*expr_end == '!' || *expr_end == ':' || *expr_end == '=')
            return RAISE_SYNTAX_ERROR("f-string: expression required before '%c'", *expr_end);
        return RAISE_SYNTAX_ERROR("f-string: empty expression not allowed");
    }
    size_t len = (size_t)(expr_end - expr_start);
    char *src = malloc(len + 3);
    if (!src) return RAISE_SYNTAX_ERROR("out of memory");
    src[0] = '(';
    memcpy(src + 1, expr_start, len);
    src[len + 1] = ')';
    src[len + 2] = '\0';
    int lines, cols;
    expr_location(t, expr_start - 1, &lines, &cols);
    AstExpr *e = parse_fstring_subparse(p, src, len + 2, t->lineno + lines,
                                        (lines == 0 ? t->col_offset : 0) + cols);
    free(src);
    return e;
}

static AstExpr *fstring_parse(Parser *p, const char **str, const char *end, bool raw,
                              int recurse_lvl, const Token *first, const Token *t,
                              const Token *last);

/* Scans the expression part after '{' up to '!', ':', '=' or '}' at nesting depth 0. */
static int scan_expr(Parser *p, const char **str, const char *end) {
    char quote_char = 0, parenstack[MAXLEVEL];
    int string_type = 0, depth = 0;
    for (; *str < end; (*str)++) {
        char ch = **str;
        if (ch == '\\') {
            RAISE_SYNTAX_ERROR("f-string expression part cannot include a backslash");
            return -1;
        }
        if (quote_char) {
            if (ch == quote_char) {
                if (string_type == 3) {
                    if (*str + 2 < end && (*str)[1] == ch && (*str)[2] == ch) {
                        *str += 2;
                        string_type = 0;
                        quote_char = 0;
                    }
                } else {
                    string_type = 0;
                    quote_char = 0;
                }
            }
        } else if (ch == '\'' || ch == '"') {
            if (*str + 2 < end && (*str)[1] == ch && (*str)[2] == ch) {
                string_type = 3;
                *str += 2;
            } else {
                string_type = 1;
            }
            quote_char = ch;
        } else if (ch == '[' || ch == '{' || ch == '(') {
            if (depth >= MAXLEVEL) {
                RAISE_SYNTAX_ERROR("f-string: too many nested parenthesis");
                return -1;
            }
            parenstack[depth++] = ch;
        } else if (ch == '#') {
            RAISE_SYNTAX_ERROR("f-string expression part cannot include '#'");
            return -1;
        } else if (depth == 0 && (ch == '!' || ch == ':' || ch == '}' || ch == '=' || ch == '>' || ch == '<')) {
            if (*str + 1 < end) {
                char next = (*str)[1];
                if ((ch == '!' && next == '=') || (ch == '=' && next == '=') ||
                    (ch == '<' && next == '=') || (ch == '>' && next == '=')) {
                    *str += 1;
                    continue;
                }
            }
            if (ch == '>' || ch == '<') continue;
            break;
        } else if (ch == ']' || ch == '}' || ch == ')') {
            if (!depth) {
                RAISE_SYNTAX_ERROR("f-string: unmatched '%c'", ch);
                return -1;
            }
            int open = parenstack[--depth];
            if (!((open == '(' && ch == ')') || (open == '[' && ch == ']') || (open == '{' && ch == '}'))) {
                RAISE_SYNTAX_ERROR("f-string: closing parenthesis '%c' does not match opening parenthesis '%c'",
                                   ch, open);
                return -1;
            }
        }
    }
    if (quote_char) {
        RAISE_SYNTAX_ERROR("f-string: unterminated string");
        return -1;
    }
    if (depth) {
        RAISE_SYNTAX_ERROR("f-string: unmatched '%c'", parenstack[depth - 1]);
        return -1;
    }
    return 0;
}

/* fstring_find_expr: one {expression[=][!conversion][:format_spec]} */
static int find_expr(Parser *p, const char **str, const char *end, bool raw, int recurse_lvl,
                     char **expr_text, size_t *expr_text_len, AstExpr **expression,
                     const Token *first, const Token *t, const Token *last) {
    AstExpr *format_spec = NULL;
    int conversion = -1;
    *expr_text = NULL;
    if (recurse_lvl >= 2) {
        RAISE_SYNTAX_ERROR("f-string: expressions nested too deeply");
        return -1;
    }
    *str += 1;
    const char *expr_start = *str;
    if (scan_expr(p, str, end) < 0) return -1;
    const char *expr_end = *str;
    if (*str >= end) goto unexpected_end;
    AstExpr *simple = compile_expr(p, expr_start, expr_end, t);
    if (!simple) return -1;
    if (**str == '=') {
        *str += 1;
        while (*str < end && (**str == ' ' || **str == '\t' || **str == '\n' || **str == '\r' ||
                              **str == '\f' || **str == '\v'))
            *str += 1;
        if (*str >= end) goto unexpected_end;
        *expr_text_len = (size_t)(*str - expr_start);
        *expr_text = malloc(*expr_text_len + 1);
        if (!*expr_text) return -1;
        memcpy(*expr_text, expr_start, *expr_text_len);
        (*expr_text)[*expr_text_len] = '\0';
    }
    if (**str == '!') {
        *str += 1;
        if (*str >= end) goto unexpected_end;
        conversion = (unsigned char)**str;
        *str += 1;
        if (!(conversion == 's' || conversion == 'r' || conversion == 'a')) {
            RAISE_SYNTAX_ERROR("f-string: invalid conversion character: expected 's', 'r', or 'a'");
            goto error;
        }
    }
    if (*str >= end) goto unexpected_end;
    if (**str == ':') {
        *str += 1;
        if (*str >= end) goto unexpected_end;
        format_spec = fstring_parse(p, str, end, raw, recurse_lvl + 1, first, t, last);
        if (!format_spec) goto error;
    }
    if (*str >= end || **str != '}') goto unexpected_end;
    *str += 1;
    if (*expr_text && !format_spec && conversion == -1) conversion = 'r';
    *expression = parse_expr_new(p, AST_EXPR_FORMATTED_VALUE, parse_extra_tokens(first, last));
    if (!*expression) goto error;
    (*expression)->v.FormattedValue.value = simple;
    (*expression)->v.FormattedValue.conversion = conversion;
    (*expression)->v.FormattedValue.format_spec = format_spec;
    return 0;
unexpected_end:
    RAISE_SYNTAX_ERROR("f-string: expecting '}'");
error:
    free(*expr_text);
    *expr_text = NULL;
    return -1;
}

int parse_fstring_concat(Parser *p, FStringState *st, const char **str, const char *end, bool raw,
                         int recurse_lvl, const Token *first, const Token *t, const Token *last) {
    st->fmode = true;
    for (;;) {
        char *literal = NULL, *expr_text = NULL;
        size_t literal_len = 0, expr_text_len = 0;
        AstExpr *expression = NULL;
        int result = find_literal(p, str, end, raw, &literal, &literal_len, recurse_lvl);
        if (result < 0) return -1;
        if (result == 0 && *str < end && **str != '}') {
            if (find_expr(p, str, end, raw, recurse_lvl, &expr_text, &expr_text_len, &expression,
                          first, t, last) < 0) {
                free(literal);
                return -1;
            }
        }
        if (literal && parse_fstring_concat_str(p, st, literal, literal_len) < 0) {
            free(expr_text);
            return -1;
        }
        if (expr_text && parse_fstring_concat_str(p, st, expr_text, expr_text_len) < 0) return -1;
        if (result == 1) continue;
        if (!expression) break;
        if (st->last_str) {
            AstExpr *s = make_str_node(p, st, first, last);
            if (!s || !pvec_push(p, &st->exprs, s)) return -1;
        }
        if (!pvec_push(p, &st->exprs, expression)) return -1;
    }
    if (recurse_lvl == 0 && *str < end - 1) {
        RAISE_SYNTAX_ERROR("f-string: unexpected end of string");
        return -1;
    }
    if (recurse_lvl != 0 && (*str >= end || **str != '}')) {
        RAISE_SYNTAX_ERROR("f-string: expecting '}'");
        return -1;
    }
    return 0;
}

AstExpr *parse_fstring_finish(Parser *p, FStringState *st, const Token *first, const Token *last) {
    if (!st->fmode) return make_str_node(p, st, first, last);
    if (st->last_str) {
        AstExpr *s = make_str_node(p, st, first, last);
        if (!s || !pvec_push(p, &st->exprs, s)) return NULL;
    }
    AstExpr *e = parse_expr_new(p, AST_EXPR_JOINED_STR, parse_extra_tokens(first, last));
    if (e) e->v.JoinedStr.values = SEQ(AstExprSeq, st->exprs);
    return e;
}

/* fstring_parse: a format spec (recurse_lvl > 0), positioned at the token t. */
static AstExpr *fstring_parse(Parser *p, const char **str, const char *end, bool raw,
                              int recurse_lvl, const Token *first, const Token *t,
                              const Token *last) {
    FStringState st;
    parse_fstring_state_init(&st);
    AstExpr *e = NULL;
    if (parse_fstring_concat(p, &st, str, end, raw, recurse_lvl, first, t, last) == 0)
        e = parse_fstring_finish(p, &st, t, t);
    parse_fstring_state_fini(&st);
    return e;
}
