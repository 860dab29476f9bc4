/* parse_string.c — literals: NUMBER tokens to Constants, string and bytes literals with
 * CPython's escape decoding, implicit concatenation, and f-strings parsed into JoinedStr /
 * FormattedValue the way CPython 3.11's Parser/string_parser.c does it (including where it
 * places the nodes: literal parts and FormattedValues span the whole concatenated string,
 * the expressions inside get exact positions from a sub-parser of "(expr)"). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"
#include "src/frontend/parser_internal.h"
#include "src/frontend/parse_fstring.h"

/* ---- numbers ---- */

#define INT_MAX_STR_DIGITS 4300
#define BIG_LITERAL_LIMIT 100000

/* Decimal digits of the value of `digits` (n digits in base `base`), into the arena. */
static const char *to_decimal(Parser *p, const char *digits, size_t n, int base) {
    size_t cap = n / 9 + 2;
    uint32_t *limbs = calloc(cap, sizeof *limbs); /* little-endian base 1e9 */
    if (!limbs) return NULL;
    size_t used = 1;
    for (size_t i = 0; i < n; i++) {
        int c = digits[i];
        uint32_t d = (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        uint64_t carry = d;
        for (size_t k = 0; k < used; k++) {
            uint64_t v = (uint64_t)limbs[k] * (uint64_t)base + carry;
            limbs[k] = (uint32_t)(v % 1000000000u);
            carry = v / 1000000000u;
        }
        if (carry && used < cap) limbs[used++] = (uint32_t)carry;
    }
    char *out = parse_alloc(p, used * 9 + 1);
    if (out) {
        int len = sprintf(out, "%u", limbs[used - 1]);
        for (size_t k = used - 1; k-- > 0;) len += sprintf(out + len, "%09u", limbs[k]);
    }
    free(limbs);
    return out;
}

static AstExpr *number_error(Parser *p, const Token *t, const char *msg) {
    return parse_raise_known(p, PARSE_SYNTAX_ERROR, t->lineno, t->col_offset + 1, t->end_lineno,
                             t->end_col_offset + 1, "%s", msg);
}

/* NUMBER -> Constant (int, big int as decimal text, float, imaginary). */
AstExpr *parse_number_token(Parser *p) {
    size_t mark = p->mark;
    const Token *t = parse_expect(p, TOK_NUMBER);
    if (!t) return NULL;
    if (t->len > BIG_LITERAL_LIMIT) return number_error(p, t, "numeric literal is too long");
    char *text = malloc(t->len + 1);
    if (!text) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < t->len; i++)
        if (t->start[i] != '_') text[n++] = t->start[i];
    text[n] = '\0';
    AstExpr *e = NULL;
    char last = text[n - 1];
    bool radix = n > 1 && text[0] == '0' && strchr("xXoObB", text[1]);
    if (last == 'j' || last == 'J') {
        e = parse_expr_new(p, AST_EXPR_CONSTANT, parse_extra(p, mark));
        if (e) {
            text[n - 1] = '\0';
            e->v.Constant.value.type = AST_CONST_COMPLEX;
            e->v.Constant.value.f = strtod(text, NULL);
        }
    } else if (!radix && strpbrk(text, ".eE")) {
        e = parse_expr_new(p, AST_EXPR_CONSTANT, parse_extra(p, mark));
        if (e) {
            e->v.Constant.value.type = AST_CONST_FLOAT;
            e->v.Constant.value.f = strtod(text, NULL);
        }
    } else {
        int base = radix ? (text[1] == 'x' || text[1] == 'X' ? 16 : text[1] == 'o' || text[1] == 'O' ? 8 : 2) : 10;
        const char *digits = radix ? text + 2 : text;
        size_t nd = strlen(digits);
        if (base == 10 && nd > INT_MAX_STR_DIGITS) {
            parse_raise_known(p, PARSE_SYNTAX_ERROR, t->lineno, 0, t->end_lineno, 0,
                              "Exceeds the limit (%d digits) for integer string conversion: value "
                              "has %zu digits; use sys.set_int_max_str_digits() to increase the "
                              "limit - Consider hexadecimal for huge integer literals to avoid "
                              "decimal conversion limits.",
                              INT_MAX_STR_DIGITS, nd);
            free(text);
            return NULL;
        }
        errno = 0;
        unsigned long long v = strtoull(digits, NULL, base);
        e = parse_expr_new(p, AST_EXPR_CONSTANT, parse_extra(p, mark));
        if (e && errno != ERANGE && v <= (unsigned long long)INT64_MAX) {
            e->v.Constant.value.type = AST_CONST_INT;
            e->v.Constant.value.i = (int64_t)v;
        } else if (e) {
            while (nd > 1 && digits[0] == '0') digits++, nd--;
            const char *dec = to_decimal(p, digits, nd, base);
            if (!dec) e = NULL;
            else {
                e->v.Constant.value.type = AST_CONST_BIG_INT;
                e->v.Constant.value.s.data = dec;
                e->v.Constant.value.s.len = strlen(dec);
            }
        }
    }
    free(text);
    return e;
}

/* ---- escape decoding ---- */

/* Code point as UTF-8 (surrogates encoded like any other code point). */
static void put_codepoint(StrBuf *b, uint32_t cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) u[0] = (char)cp, n = 1;
    else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    sb_add(b, u, n);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Raises CPython's "(unicode error) 'unicodeescape' codec can't decode ..." message.  The
 * positions are those of CPython's intermediate buffer, where each non-ASCII character of
 * the literal became a 10-byte \UXXXXXXXX escape (decode_unicode_with_escapes). */
static void unicode_escape_error(Parser *p, size_t start, size_t end, const char *why) {
    if (end - start == 1)
        RAISE_SYNTAX_ERROR("(unicode error) 'unicodeescape' codec can't decode byte 0x5c in "
                           "position %zu: %s", start, why);
    else
        RAISE_SYNTAX_ERROR("(unicode error) 'unicodeescape' codec can't decode bytes in position "
                           "%zu-%zu: %s", start, end - 1, why);
}

/* Decodes the escapes of a str literal body (s, n bytes).  Returns false after raising. */
static bool decode_str_escapes(Parser *p, const char *s, size_t n, StrBuf *out) {
    size_t i = 0, vpos = 0; /* vpos: position in CPython's transformed buffer */
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c != '\\') {
            size_t len = 1;
            if (c >= 0x80) {
                while (i + len < n && ((unsigned char)s[i + len] & 0xC0) == 0x80) len++;
                vpos += 10;
            } else {
                vpos++;
            }
            sb_add(out, s + i, len);
            i += len;
            continue;
        }
        if (i + 1 >= n || ((unsigned char)s[i + 1] & 0x80)) { /* "\\" before non-ASCII: literal */
            sb_add(out, "\\", 1);
            vpos += 6;
            i++;
            continue;
        }
        size_t start = vpos;
        char e = s[i + 1];
        i += 2;
        vpos += 2;
        switch (e) {
        case '\n': continue;
        case '\\': sb_add(out, "\\", 1); continue;
        case '\'': sb_add(out, "'", 1); continue;
        case '"': sb_add(out, "\"", 1); continue;
        case 'b': sb_add(out, "\b", 1); continue;
        case 'f': sb_add(out, "\f", 1); continue;
        case 't': sb_add(out, "\t", 1); continue;
        case 'n': sb_add(out, "\n", 1); continue;
        case 'r': sb_add(out, "\r", 1); continue;
        case 'v': sb_add(out, "\v", 1); continue;
        case 'a': sb_add(out, "\a", 1); continue;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            uint32_t ch = (uint32_t)(e - '0');
            for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++, i++, vpos++)
                ch = (ch << 3) + (uint32_t)(s[i] - '0');
            put_codepoint(out, ch);
            continue;
        }
        case 'x':
        case 'u':
        case 'U': {
            int count = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            const char *why = e == 'x'   ? "truncated \\xXX escape"
                              : e == 'u' ? "truncated \\uXXXX escape"
                                         : "truncated \\UXXXXXXXX escape";
            uint32_t ch = 0;
            for (; count; count--, i++, vpos++) {
                int h = i < n ? hexval((unsigned char)s[i]) : -1;
                if (h < 0) {
                    unicode_escape_error(p, start, vpos, why);
                    return false;
                }
                ch = (ch << 4) + (uint32_t)h;
            }
            if (ch > 0x10FFFF) {
                unicode_escape_error(p, start, vpos, "illegal Unicode character");
                return false;
            }
            put_codepoint(out, ch);
            continue;
        }
        case 'N': { /* \N{name}: Ember has no Unicode name database */
            if (i < n && s[i] == '{') {
                size_t j = i + 1;
                while (j < n && s[j] != '}') j++;
                if (j < n && j > i + 1) {
                    RAISE_SYNTAX_ERROR("(unicode error) \\N{...} escapes are not supported");
                    return false;
                }
                vpos += j - i; /* at the '}' of an empty name, or at the end */
            }
            unicode_escape_error(p, start, vpos, "malformed \\N character escape");
            return false;
        }
        default: /* invalid escape: kept as is (CPython warns) */
            sb_add(out, s + i - 2, 2);
            continue;
        }
    }
    return true;
}

/* Decodes the escapes of a bytes literal body. */
static bool decode_bytes_escapes(Parser *p, const char *s, size_t n, StrBuf *out) {
    size_t i = 0;
    while (i < n) {
        if (s[i] != '\\' || i + 1 >= n) {
            sb_add(out, s + i, 1);
            i++;
            continue;
        }
        size_t start = i;
        char e = s[i + 1];
        i += 2;
        char c;
        switch (e) {
        case '\n': continue;
        case '\\': c = '\\'; break;
        case '\'': c = '\''; break;
        case '"': c = '"'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 't': c = '\t'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 'v': c = '\v'; break;
        case 'a': c = '\a'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            unsigned v = (unsigned)(e - '0');
            for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++, i++)
                v = (v << 3) + (unsigned)(s[i] - '0');
            c = (char)(v & 0xFF);
            break;
        }
        case 'x': {
            int h1 = i < n ? hexval((unsigned char)s[i]) : -1;
            int h2 = i + 1 < n ? hexval((unsigned char)s[i + 1]) : -1;
            if (h1 < 0 || h2 < 0) {
                RAISE_SYNTAX_ERROR("(value error) invalid \\x escape at position %zu", start);
                return false;
            }
            c = (char)(h1 * 16 + h2);
            i += 2;
            break;
        }
        default:
            sb_add(out, s + i - 2, 2);
            continue;
        }
        sb_add(out, &c, 1);
    }
    return true;
}

/* Moves a decoded buffer into the arena. */
static bool bytes_to_arena(Parser *p, StrBuf *b, AstBytes *out) {
    if (b->failed) {
        sb_free(b);
        RAISE_SYNTAX_ERROR("out of memory");
        return false;
    }
    size_t len = b->len;
    const char *d = parse_strdup(p, b->data ? b->data : "", len);
    sb_free(b);
    if (!d) return false;
    out->data = d;
    out->len = len;
    return true;
}

/* ---- one string token (CPython's _PyPegen_parsestr) ---- */

typedef struct StrPart {
    bool bytes, raw, fstring;
    const char *body; /* between the quotes */
    size_t len;
} StrPart;

static void split_string_token(const Token *t, StrPart *sp) {
    const char *s = t->start;
    memset(sp, 0, sizeof *sp);
    for (;; s++) {
        char c = *s;
        if (c == 'b' || c == 'B') sp->bytes = true;
        else if (c == 'r' || c == 'R') sp->raw = true;
        else if (c == 'f' || c == 'F') sp->fstring = true;
        else if (c == 'u' || c == 'U') continue;
        else break;
    }
    char q = *s;
    size_t prefix = (size_t)(s - t->start);
    size_t quote = (t->len - prefix >= 6 && s[1] == q && s[2] == q) ? 3 : 1;
    sp->body = s + quote;
    sp->len = t->len - prefix - 2 * quote;
}

/* ---- concatenation ---- */

AstExpr *parse_concatenate_strings(Parser *p, const Token **toks, size_t n) {
    const Token *first = toks[0], *last = toks[n - 1];
    bool bytesmode = false;
    StrBuf bytes_acc = SB_INIT;
    FStringState state;
    parse_fstring_state_init(&state);
    for (size_t i = 0; i < n; i++) {
        StrPart sp;
        split_string_token(toks[i], &sp);
        if (i != 0 && bytesmode != sp.bytes) {
            RAISE_SYNTAX_ERROR("cannot mix bytes and nonbytes literals");
            goto error;
        }
        bytesmode = sp.bytes;
        if (sp.fstring) {
            const char *str = sp.body;
            if (parse_fstring_concat(p, &state, &str, sp.body + sp.len, sp.raw, 0, first, toks[i], last) < 0)
                goto error;
            continue;
        }
        if (sp.bytes) {
            for (size_t k = 0; k < sp.len; k++)
                if ((unsigned char)sp.body[k] >= 0x80) {
                    RAISE_AT(toks[i], "bytes can only contain ASCII literal characters");
                    goto error;
                }
            bool ok = (sp.raw || !memchr(sp.body, '\\', sp.len))
                          ? (sb_add(&bytes_acc, sp.body, sp.len), true)
                          : decode_bytes_escapes(p, sp.body, sp.len, &bytes_acc);
            if (!ok) goto error;
            continue;
        }
        char *lit;
        size_t lit_len;
        if (!parse_decode_literal(p, sp.body, sp.len, sp.raw, &lit, &lit_len) ||
            parse_fstring_concat_str(p, &state, lit, lit_len) < 0)
            goto error;
    }
    if (bytesmode) {
        AstExpr *e = parse_expr_new(p, AST_EXPR_CONSTANT, parse_extra_tokens(first, last));
        if (!e) goto error;
        e->v.Constant.value.type = AST_CONST_BYTES;
        if (!bytes_to_arena(p, &bytes_acc, &e->v.Constant.value.s)) goto error;
        parse_fstring_state_fini(&state);
        return e;
    }
    AstExpr *res = parse_fstring_finish(p, &state, first, last);
    parse_fstring_state_fini(&state);
    return res;
error:
    sb_free(&bytes_acc);
    parse_fstring_state_fini(&state);
    return NULL;
}

/* strings (memo): STRING+ */
AstExpr *parse_strings_rule(Parser *p) {
    RULE_ENTER();
    void *memo;
    if (parse_memo_get(p, MEMO_STRINGS, &memo)) RULE_LEAVE(memo);
    size_t mark = p->mark;
    PVec toks = {0};
    const Token *t;
    while ((t = parse_expect(p, TOK_STRING)))
        if (!pvec_push(p, &toks, (void *)t)) RULE_LEAVE(NULL);
    CHECK_ERR();
    AstExpr *res = NULL;
    if (toks.count) {
        res = parse_concatenate_strings(p, (const Token **)toks.items, toks.count);
        CHECK_ERR();
    }
    parse_memo_put(p, mark, MEMO_STRINGS, res);
    RULE_LEAVE(res);
}

/* Decodes a str literal (or a literal chunk of an f-string) into a malloc'd buffer. */
bool parse_decode_literal(Parser *p, const char *s, size_t n, bool raw, char **out, size_t *out_len) {
    StrBuf b = SB_INIT;
    bool ok = raw ? (sb_add(&b, s, n), true) : decode_str_escapes(p, s, n, &b);
    if (!ok) {
        sb_free(&b);
        return false;
    }
    size_t len = b.len;
    char *text = sb_take(&b);
    if (!text) {
        RAISE_SYNTAX_ERROR("out of memory");
        return false;
    }
    *out = text;
    *out_len = len;
    return true;
}
