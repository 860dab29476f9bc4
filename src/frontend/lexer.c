/* lexer.c — tokenizer: source normalisation, indentation, names, numbers, strings, operators.
 *
 * Follows CPython 3.11's tok_get() step by step (the cursor moves one byte at a time with
 * next()/backup(), and a physical line is "entered" when its first byte is read, which is
 * what makes line numbers and error columns agree with CPython's).  Errors use CPython's
 * messages and positions; see lexer.h for which ones are raised eagerly. */
#include "src/frontend/lexer.h"
#include "vm/unicode.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LEX_EOF (-1)
#define MAXINDENT 100
#define MAXLEVEL 200
#define TABSIZE 8

bool lex_is_xid_start(unsigned cp) { return uni_is_xid_start(cp); }
bool lex_is_xid_continue(unsigned cp) { return uni_is_xid_continue(cp); }
bool lex_is_printable(unsigned cp) { return uni_is_printable(cp); }

/* True when NFKC would change the identifier (s, n bytes of valid UTF-8): a character
 * NFKC replaces, one that canonical composition may merge with its predecessor, or
 * combining marks out of canonical order.  CPython normalises such names; Ember rejects
 * them rather than treat e.g. a fullwidth name as a different variable. */
bool lex_needs_normalization(const char *s, size_t n) {
    unsigned prev_ccc = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = lex_utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (len == 0) return false;
        i += (size_t)len;
        if (cp < 0x80) {
            prev_ccc = 0;
            continue;
        }
        if (uni_nfkc_changes(cp)) return true;
        if (i > (size_t)len && uni_nfc_composing(cp)) return true;
        unsigned ccc = uni_combining_class(cp);
        if (ccc && prev_ccc > ccc) return true;
        prev_ccc = ccc;
    }
    return false;
}

int lex_utf8_decode(const unsigned char *s, size_t n, unsigned *cp) {
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) len = 2, c &= 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, c &= 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, c &= 0x07, min = 0x10000;
    else return 0;
    if ((size_t)len > n) return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return len;
}

/* ---- token names ---- */

static const char *const token_names[] = {
#define TOK(name, spelling) #name,
#define OP(name, spelling) #name,
#define KW(name, spelling) "KW_" #name,
#include "src/frontend/tokens.def"
#undef TOK
#undef OP
#undef KW
};

static const char *const token_spellings[] = {
#define TOK(name, spelling) spelling,
#define OP(name, spelling) spelling,
#define KW(name, spelling) spelling,
#include "src/frontend/tokens.def"
#undef TOK
#undef OP
#undef KW
};

const char *lex_token_name(TokenKind kind) {
    return (unsigned)kind < TOK__COUNT ? token_names[kind] : "?";
}

const char *lex_token_spelling(TokenKind kind) {
    return (unsigned)kind < TOK__COUNT ? token_spellings[kind] : "?";
}

/* ---- state ---- */

typedef struct LexState {
    Lexer *lx;
    const char *buf;
    size_t pos, end;
    size_t line_start, line_end; /* current physical line [line_start, line_end) */
    int lineno;
    int indstack[MAXINDENT], altindstack[MAXINDENT];
    int indent, pendin;
    bool atbol, cont_line;
    int level;
    char parenstack[MAXLEVEL];
    int parenlineno[MAXLEVEL], parencol[MAXLEVEL];
    size_t start; /* start of the current token */
    /* CPython's tok->buf: where the current input buffer began.  A new line starts a new
     * buffer unless a token is in progress (multi-line string, backslash continuation);
     * "unexpected character after line continuation character" is measured from it. */
    size_t run_start;
    bool in_token;
    int first_lineno;
    size_t multi_line_start; /* line start of the line a string began on */
} LexState;

static int next(LexState *st) {
    if (st->pos >= st->end) return LEX_EOF;
    if (st->pos == st->line_end) { /* entering the next physical line */
        st->lineno++;
        st->line_start = st->pos;
        if (!st->in_token) st->run_start = st->pos;
        const char *nl = memchr(st->buf + st->pos, '\n', st->end - st->pos);
        st->line_end = nl ? (size_t)(nl - st->buf) + 1 : st->end;
    }
    return (unsigned char)st->buf[st->pos++];
}

static void backup(LexState *st, int c) {
    if (c != LEX_EOF) st->pos--;
}

static bool is_ident_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 128;
}

static bool is_ident_char(int c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool is_xdigit(int c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Number of UTF-8 characters in buf[from, to). */
static int char_count(const char *buf, size_t from, size_t to) {
    int n = 0;
    for (size_t i = from; i < to; i++)
        if (((unsigned char)buf[i] & 0xC0) != 0x80) n++;
    return n;
}

static size_t line_length_no_nl(const LexState *st, size_t line_start) {
    const char *nl = memchr(st->buf + line_start, '\n', st->end - line_start);
    return nl ? (size_t)(nl - st->buf) - line_start : st->end - line_start;
}

static void set_error(LexState *st, LexErrorClass cls, ParseErrorKind kind, const char *msg,
                      int lineno, int col, int end_lineno, int end_col, size_t text_from,
                      size_t text_len) {
    Lexer *lx = st->lx;
    if (lx->error_class != LEX_ERR_NONE) return;
    lx->error_class = cls;
    lx->error.kind = kind;
    lx->error.phase = PARSE_PHASE_PARSER;
    lx->error.message = parse_strdup_printf("%s", msg);
    lx->error.lineno = lineno;
    lx->error.col_offset = col;
    lx->error.end_lineno = end_lineno;
    lx->error.end_col_offset = end_col;
    lx->error.text = malloc(text_len + 1);
    if (lx->error.text) {
        memcpy(lx->error.text, st->buf + text_from, text_len);
        lx->error.text[text_len] = '\0';
    }
    if (!lx->error.message || !lx->error.text) lx->out_of_memory = true;
    lx->open_level = st->level;
    if (st->level > 0) {
        lx->open_lineno = st->parenlineno[st->level - 1];
        lx->open_col = st->parencol[st->level - 1];
        lx->open_char = st->parenstack[st->level - 1];
    }
}

/* CPython's _syntaxerror_range: the column counts characters from the line start to the
 * cursor unless given; the text is the whole current line. */
static int syntax_error_range(LexState *st, int col, int end_col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int syntax_error_range(LexState *st, int col, int end_col, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (col == -1) col = char_count(st->buf, st->line_start, st->pos);
    if (end_col == -1) end_col = col;
    set_error(st, LEX_ERR_RAISED, PARSE_SYNTAX_ERROR, msg, st->lineno, col, st->lineno, end_col,
              st->line_start, line_length_no_nl(st, st->line_start));
    return TOK_ERRORTOKEN;
}

#define syntax_error(st, ...) syntax_error_range((st), -1, -1, __VA_ARGS__)

/* Errors CPython reports from the parser when it reaches the error token (E_DEDENT,
 * E_TABSPACE, E_TOODEEP, E_LINECONT, E_EOF).  Columns follow _Pypegen_tokenizer_error. */
typedef enum DeferredError { DEF_DEDENT, DEF_TABSPACE, DEF_TOODEEP, DEF_LINECONT, DEF_EOF } DeferredError;

static int deferred_error(LexState *st, DeferredError which) {
    size_t len_nl = st->line_end - st->line_start; /* the line with its newline */
    const char *line = st->buf + st->line_start;
    int ln = st->lineno;
    switch (which) {
    case DEF_DEDENT: /* RAISE_INDENTATION_ERROR at an error token: column = cursor */
        st->pos = st->line_end;
        set_error(st, LEX_ERR_DEFERRED, PARSE_INDENTATION_ERROR,
                  "unindent does not match any outer indentation level", ln,
                  parse_byte_to_char_offset(line, len_nl, (int)(st->pos - st->line_start)), ln,
                  -1, st->line_start, len_nl);
        break;
    case DEF_TABSPACE:
    case DEF_TOODEEP:
        st->pos = st->line_end;
        set_error(st, LEX_ERR_DEFERRED,
                  which == DEF_TABSPACE ? PARSE_TAB_ERROR : PARSE_INDENTATION_ERROR,
                  which == DEF_TABSPACE ? "inconsistent use of tabs and spaces in indentation"
                                        : "too many levels of indentation",
                  ln, 1, ln, 0, st->line_start, len_nl);
        break;
    case DEF_LINECONT:
        set_error(st, LEX_ERR_DEFERRED, PARSE_SYNTAX_ERROR,
                  "unexpected character after line continuation character", ln,
                  parse_byte_to_char_offset(line, len_nl, (int)(st->pos - st->run_start)), ln,
                  0, st->line_start, len_nl);
        break;
    case DEF_EOF:
        st->pos = st->end;
        st->lx->error_is_eof = true;
        if (st->level > 0) {
            int pl = st->parenlineno[st->level - 1];
            size_t pstart = st->lx->line_starts[pl - st->first_lineno];
            size_t plen = line_length_no_nl(st, pstart) + 1;
            char msg[64];
            snprintf(msg, sizeof msg, "'%c' was never closed", st->parenstack[st->level - 1]);
            set_error(st, LEX_ERR_DEFERRED, PARSE_SYNTAX_ERROR, msg, pl,
                      parse_byte_to_char_offset(st->buf + pstart, plen,
                                                st->parencol[st->level - 1] + 1),
                      pl, 0, pstart, plen);
        } else {
            set_error(st, LEX_ERR_DEFERRED, PARSE_SYNTAX_ERROR, "unexpected EOF while parsing",
                      ln, parse_byte_to_char_offset(line, len_nl, (int)(st->pos - st->line_start)),
                      ln, -1, st->line_start, len_nl);
        }
        break;
    }
    return TOK_ERRORTOKEN;
}

/* ---- token output ---- */

static int push_token(LexState *st, TokenKind kind, size_t start, size_t end, int lineno,
                      size_t line_start_of_start) {
    Lexer *lx = st->lx;
    if (lx->count == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 256;
        Token *t = realloc(lx->tokens, cap * sizeof *t);
        if (!t) {
            lx->out_of_memory = true;
            return -1;
        }
        lx->tokens = t;
        lx->cap = cap;
    }
    Token *t = &lx->tokens[lx->count++];
    t->kind = kind;
    t->lineno = lineno;
    t->end_lineno = st->lineno;
    t->level = st->level;
    t->cur_col = (int)(st->pos - st->line_start);
    if (start == SIZE_MAX) { /* INDENT, DEDENT, ENDMARKER, ERRORTOKEN: no text */
        t->col_offset = t->end_col_offset = -1;
        t->start = st->buf + st->pos;
        t->len = 0;
        return 0;
    }
    t->col_offset = (int)(start - line_start_of_start);
    t->end_col_offset = (int)(end - st->line_start);
    if (st->lineno == st->first_lineno) { /* CPython shifts tokens that end on the first line */
        t->col_offset += lx->first_col_offset;
        t->end_col_offset += lx->first_col_offset;
    }
    t->start = st->buf + start;
    t->len = end - start;
    return 0;
}

/* ---- pieces of tok_get ---- */

static int continuation_line(LexState *st) {
    int c = next(st);
    if (c != '\n') return deferred_error(st, DEF_LINECONT);
    c = next(st);
    if (c == LEX_EOF) return deferred_error(st, DEF_EOF);
    backup(st, c);
    return 0;
}

/* Reads the indentation of a new line and queues INDENT/DEDENT.  Returns TOK_ERRORTOKEN
 * on error, 1 for a blank line, 0 otherwise. */
static int read_indentation(LexState *st) {
    int col = 0, altcol = 0, cont_line_col = 0, c;
    st->atbol = false;
    for (;;) {
        c = next(st);
        if (c == ' ') {
            col++, altcol++;
        } else if (c == '\t') {
            col = (col / TABSIZE + 1) * TABSIZE;
            altcol = altcol + 1;
        } else if (c == '\f') {
            col = altcol = 0;
        } else if (c == '\\') {
            cont_line_col = cont_line_col ? cont_line_col : col;
            if (continuation_line(st) == TOK_ERRORTOKEN) return TOK_ERRORTOKEN;
        } else {
            break;
        }
    }
    backup(st, c);
    if (c == '#' || c == '\n') return 1;
    if (st->level != 0) return 0;
    if (cont_line_col) col = altcol = cont_line_col;
    if (col == st->indstack[st->indent]) {
        if (altcol != st->altindstack[st->indent]) return deferred_error(st, DEF_TABSPACE);
    } else if (col > st->indstack[st->indent]) {
        if (st->indent + 1 >= MAXINDENT) return deferred_error(st, DEF_TOODEEP);
        if (altcol <= st->altindstack[st->indent]) return deferred_error(st, DEF_TABSPACE);
        st->pendin++;
        st->indstack[++st->indent] = col;
        st->altindstack[st->indent] = altcol;
    } else {
        while (st->indent > 0 && col < st->indstack[st->indent]) {
            st->pendin--;
            st->indent--;
        }
        if (col != st->indstack[st->indent]) return deferred_error(st, DEF_DEDENT);
        if (altcol != st->altindstack[st->indent]) return deferred_error(st, DEF_TABSPACE);
    }
    return 0;
}

static bool lookahead(LexState *st, const char *test) {
    size_t save = st->pos;
    const char *s = test;
    bool res = false;
    for (;;) {
        int c = next(st);
        if (*s == 0) {
            res = !is_ident_char(c);
        } else if (c == *s) {
            s++;
            continue;
        }
        break;
    }
    st->pos = save;
    return res;
}

/* CPython's verify_end_of_number: "1if" is accepted (with a warning), "1abc" is an error. */
static bool verify_end_of_number(LexState *st, int c, const char *kind) {
    bool r = false;
    if (c == 'a') r = lookahead(st, "nd");
    else if (c == 'e') r = lookahead(st, "lse");
    else if (c == 'f') r = lookahead(st, "or");
    else if (c == 'i') {
        int c2 = next(st);
        r = c2 == 'f' || c2 == 'n' || c2 == 's';
        backup(st, c2);
    } else if (c == 'o') r = lookahead(st, "r");
    else if (c == 'n') r = lookahead(st, "ot");
    if (r) return true;
    if (c < 128 && is_ident_char(c)) { /* CPython 3.11 lets "1é" through as NUMBER NAME */
        backup(st, c);
        syntax_error(st, "invalid %s literal", kind);
        return false;
    }
    return true;
}

/* Returns the first character after a run of digits and underscores, or 0 after an error. */
static int decimal_tail(LexState *st) {
    int c;
    for (;;) {
        do {
            c = next(st);
        } while (is_digit(c));
        if (c != '_') break;
        c = next(st);
        if (!is_digit(c)) {
            backup(st, c);
            syntax_error(st, "invalid decimal literal");
            return 0;
        }
    }
    return c;
}

static int number_done(LexState *st, int c) {
    backup(st, c);
    return TOK_NUMBER;
}

static int lex_imaginary(LexState *st) {
    int c = next(st);
    if (!verify_end_of_number(st, c, "imaginary")) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

/* Exponent part; c is the 'e' or 'E' just read. */
static int lex_exponent(LexState *st, int c) {
    int e = c;
    c = next(st);
    if (c == '+' || c == '-') {
        c = next(st);
        if (!is_digit(c)) {
            backup(st, c);
            return syntax_error(st, "invalid decimal literal");
        }
    } else if (!is_digit(c)) {
        backup(st, c);
        if (!verify_end_of_number(st, e, "decimal")) return TOK_ERRORTOKEN;
        backup(st, e);
        return TOK_NUMBER;
    }
    c = decimal_tail(st);
    if (c == 0) return TOK_ERRORTOKEN;
    if (c == 'j' || c == 'J') return lex_imaginary(st);
    if (!verify_end_of_number(st, c, "decimal")) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

/* Fraction part; c is the first character after the '.'. */
static int lex_fraction(LexState *st, int c) {
    if (is_digit(c)) {
        c = decimal_tail(st);
        if (c == 0) return TOK_ERRORTOKEN;
    }
    if (c == 'e' || c == 'E') return lex_exponent(st, c);
    if (c == 'j' || c == 'J') return lex_imaginary(st);
    if (!verify_end_of_number(st, c, "decimal")) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

static int lex_radix(LexState *st, int base, const char *kind) {
    int c = next(st);
    do {
        if (c == '_') c = next(st);
        bool ok = base == 16 ? is_xdigit(c) : (c >= '0' && c < '0' + base);
        if (!ok) {
            if (base != 16 && is_digit(c))
                return syntax_error(st, "invalid digit '%c' in %s literal", c, kind);
            backup(st, c);
            return syntax_error(st, "invalid %s literal", kind);
        }
        do {
            c = next(st);
        } while (base == 16 ? is_xdigit(c) : (c >= '0' && c < '0' + base));
    } while (c == '_');
    if (base != 16 && is_digit(c))
        return syntax_error(st, "invalid digit '%c' in %s literal", c, kind);
    if (!verify_end_of_number(st, c, kind)) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

/* A number starting with '0'; c is the character after it. */
static int lex_zero(LexState *st, int c) {
    if (c == 'x' || c == 'X') return lex_radix(st, 16, "hexadecimal");
    if (c == 'o' || c == 'O') return lex_radix(st, 8, "octal");
    if (c == 'b' || c == 'B') return lex_radix(st, 2, "binary");
    bool nonzero = false;
    for (;;) {
        if (c == '_') {
            c = next(st);
            if (!is_digit(c)) {
                backup(st, c);
                return syntax_error(st, "invalid decimal literal");
            }
        }
        if (c != '0') break;
        c = next(st);
    }
    size_t zeros_end = st->pos;
    if (is_digit(c)) {
        nonzero = true;
        c = decimal_tail(st);
        if (c == 0) return TOK_ERRORTOKEN;
    }
    if (c == '.') return lex_fraction(st, next(st));
    if (c == 'e' || c == 'E') return lex_exponent(st, c);
    if (c == 'j' || c == 'J') return lex_imaginary(st);
    if (nonzero) {
        backup(st, c);
        return syntax_error_range(st, (int)(st->start + 1 - st->line_start),
                                  (int)(zeros_end - st->line_start),
                                  "leading zeros in decimal integer literals are not "
                                  "permitted; use an 0o prefix for octal integers");
    }
    if (!verify_end_of_number(st, c, "decimal")) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

static int lex_number(LexState *st, int c) {
    if (c == '0') return lex_zero(st, next(st));
    c = decimal_tail(st);
    if (c == 0) return TOK_ERRORTOKEN;
    if (c == '.') return lex_fraction(st, next(st));
    if (c == 'e' || c == 'E') return lex_exponent(st, c);
    if (c == 'j' || c == 'J') return lex_imaginary(st);
    if (!verify_end_of_number(st, c, "decimal")) return TOK_ERRORTOKEN;
    return number_done(st, c);
}

/* A string literal; c is the opening quote.  st->start is at the prefix. */
static int lex_string(LexState *st, int c, int *first_lineno, size_t *first_line_start) {
    int quote = c, quote_size = 1, end_quote_size = 0;
    *first_lineno = st->lineno;
    *first_line_start = st->line_start;
    st->multi_line_start = st->line_start;
    c = next(st);
    if (c == quote) {
        c = next(st);
        if (c == quote) quote_size = 3;
        else end_quote_size = 1; /* empty string */
    }
    if (c != quote) backup(st, c);
    while (end_quote_size != quote_size) {
        c = next(st);
        if (c == LEX_EOF || (quote_size == 1 && c == '\n')) {
            int detected = st->lineno;
            st->pos = st->start + 1;
            st->line_start = st->multi_line_start;
            st->lineno = *first_lineno;
            return syntax_error(st, quote_size == 3
                                        ? "unterminated triple-quoted string literal (detected at line %d)"
                                        : "unterminated string literal (detected at line %d)",
                                detected);
        }
        if (c == quote) {
            end_quote_size++;
        } else {
            end_quote_size = 0;
            if (c == '\\') next(st);
        }
    }
    return TOK_STRING;
}

/* Identifier or string prefix; c is its first character. */
static int lex_name(LexState *st, int c, bool *is_string) {
    bool saw_b = false, saw_r = false, saw_u = false, saw_f = false;
    *is_string = false;
    for (;;) {
        if (!(saw_b || saw_u || saw_f) && (c == 'b' || c == 'B')) saw_b = true;
        else if (!(saw_b || saw_u || saw_r || saw_f) && (c == 'u' || c == 'U')) saw_u = true;
        else if (!(saw_r || saw_u) && (c == 'r' || c == 'R')) saw_r = true;
        else if (!(saw_f || saw_b || saw_u) && (c == 'f' || c == 'F')) saw_f = true;
        else break;
        c = next(st);
        if (c == '"' || c == '\'') {
            *is_string = true;
            return c;
        }
    }
    bool nonascii = false;
    while (is_ident_char(c)) {
        if (c >= 128) nonascii = true;
        c = next(st);
    }
    backup(st, c);
    return nonascii ? -2 : 0;
}

/* CPython's verify_identifier: the name must be XID_Start XID_Continue*. */
static int verify_identifier(LexState *st) {
    const unsigned char *s = (const unsigned char *)st->buf + st->start;
    size_t n = st->pos - st->start, i = 0;
    bool first = true;
    while (i < n) {
        unsigned cp;
        int len = lex_utf8_decode(s + i, n - i, &cp);
        if (len == 0) return syntax_error(st, "invalid character in identifier");
        bool ok = first ? (lex_is_xid_start(cp) || cp == '_') : lex_is_xid_continue(cp);
        if (!ok) {
            st->pos = st->start + i + (size_t)len;
            if (lex_is_printable(cp)) {
                char ch[5] = {0};
                memcpy(ch, s + i, (size_t)len);
                return syntax_error(st, "invalid character '%s' (U+%04X)", ch, cp);
            }
            return syntax_error(st, "invalid non-printable character U+%04X", cp);
        }
        first = false;
        i += (size_t)len;
    }
    Lexer *lx = st->lx;
    if (!lx->nfkc_name && lex_needs_normalization((const char *)s, n)) {
        /* reported by the parser once the module parsed (CPython would normalise it) */
        lx->nfkc_name = malloc(n + 1);
        if (lx->nfkc_name) {
            memcpy(lx->nfkc_name, s, n);
            lx->nfkc_name[n] = '\0';
        }
        int shift = st->lineno == st->first_lineno ? lx->first_col_offset : 0;
        lx->nfkc_lineno = st->lineno;
        lx->nfkc_col = (int)(st->start - st->line_start) + shift;
        lx->nfkc_end_col = (int)(st->pos - st->line_start) + shift;
    }
    return 0;
}

static TokenKind keyword_kind(const char *s, size_t n) {
    static const struct {
        const char *text;
        TokenKind kind;
    } kws[] = {
#define TOK(name, spelling)
#define OP(name, spelling)
#define KW(name, spelling) {spelling, TOK_KW_##name},
#include "src/frontend/tokens.def"
#undef TOK
#undef OP
#undef KW
    };
    for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
        if (strlen(kws[i].text) == n && memcmp(kws[i].text, s, n) == 0) return kws[i].kind;
    return TOK_NAME;
}

static int two_char_op(int c1, int c2) {
    switch (c1) {
    case '!': return c2 == '=' ? TOK_NOTEQUAL : -1;
    case '%': return c2 == '=' ? TOK_PERCENTEQUAL : -1;
    case '&': return c2 == '=' ? TOK_AMPEREQUAL : -1;
    case '*': return c2 == '*' ? TOK_DOUBLESTAR : c2 == '=' ? TOK_STAREQUAL : -1;
    case '+': return c2 == '=' ? TOK_PLUSEQUAL : -1;
    case '-': return c2 == '=' ? TOK_MINEQUAL : c2 == '>' ? TOK_RARROW : -1;
    case '/': return c2 == '/' ? TOK_DOUBLESLASH : c2 == '=' ? TOK_SLASHEQUAL : -1;
    case ':': return c2 == '=' ? TOK_COLONEQUAL : -1;
    case '<':
        return c2 == '<' ? TOK_LEFTSHIFT : c2 == '=' ? TOK_LESSEQUAL : c2 == '>' ? TOK_OP : -1;
    case '=': return c2 == '=' ? TOK_EQEQUAL : -1;
    case '>': return c2 == '=' ? TOK_GREATEREQUAL : c2 == '>' ? TOK_RIGHTSHIFT : -1;
    case '@': return c2 == '=' ? TOK_ATEQUAL : -1;
    case '^': return c2 == '=' ? TOK_CIRCUMFLEXEQUAL : -1;
    case '|': return c2 == '=' ? TOK_VBAREQUAL : -1;
    }
    return -1;
}

static int three_char_op(int c1, int c2, int c3) {
    if (c3 != '=') return -1;
    if (c1 == '*' && c2 == '*') return TOK_DOUBLESTAREQUAL;
    if (c1 == '/' && c2 == '/') return TOK_DOUBLESLASHEQUAL;
    if (c1 == '<' && c2 == '<') return TOK_LEFTSHIFTEQUAL;
    if (c1 == '>' && c2 == '>') return TOK_RIGHTSHIFTEQUAL;
    return -1;
}

static int one_char_op(int c) {
    switch (c) {
    case '%': return TOK_PERCENT;
    case '&': return TOK_AMPER;
    case '(': return TOK_LPAR;
    case ')': return TOK_RPAR;
    case '*': return TOK_STAR;
    case '+': return TOK_PLUS;
    case ',': return TOK_COMMA;
    case '-': return TOK_MINUS;
    case '.': return TOK_DOT;
    case '/': return TOK_SLASH;
    case ':': return TOK_COLON;
    case ';': return TOK_SEMI;
    case '<': return TOK_LESS;
    case '=': return TOK_EQUAL;
    case '>': return TOK_GREATER;
    case '@': return TOK_AT;
    case '[': return TOK_LSQB;
    case ']': return TOK_RSQB;
    case '^': return TOK_CIRCUMFLEX;
    case '{': return TOK_LBRACE;
    case '|': return TOK_VBAR;
    case '}': return TOK_RBRACE;
    case '~': return TOK_TILDE;
    }
    return TOK_OP;
}

static int track_brackets(LexState *st, int c) {
    switch (c) {
    case '(':
    case '[':
    case '{':
        if (st->level >= MAXLEVEL) return syntax_error(st, "too many nested parentheses");
        st->parenstack[st->level] = (char)c;
        st->parenlineno[st->level] = st->lineno;
        st->parencol[st->level] = (int)(st->start - st->line_start);
        st->level++;
        break;
    case ')':
    case ']':
    case '}': {
        if (!st->level) return syntax_error(st, "unmatched '%c'", c);
        st->level--;
        int open = st->parenstack[st->level];
        if (!((open == '(' && c == ')') || (open == '[' && c == ']') || (open == '{' && c == '}'))) {
            if (st->parenlineno[st->level] != st->lineno)
                return syntax_error(st,
                                    "closing parenthesis '%c' does not match opening "
                                    "parenthesis '%c' on line %d",
                                    c, open, st->parenlineno[st->level]);
            return syntax_error(st,
                                "closing parenthesis '%c' does not match opening parenthesis '%c'",
                                c, open);
        }
        break;
    }
    }
    return 0;
}

static int lex_operator(LexState *st, int c) {
    int c2 = next(st);
    int tok = two_char_op(c, c2);
    if (tok >= 0) {
        int c3 = next(st);
        int tok3 = three_char_op(c, c2, c3);
        if (tok3 >= 0) return tok3;
        backup(st, c3);
        return tok;
    }
    backup(st, c2);
    if (track_brackets(st, c) == TOK_ERRORTOKEN) return TOK_ERRORTOKEN;
    if (c < 128 && !(c >= 0x20 && c < 0x7F))
        return syntax_error(st, "invalid non-printable character U+%04X", c);
    return one_char_op(c);
}

static int lex_dot(LexState *st) {
    int c = next(st);
    if (is_digit(c)) return lex_fraction(st, c);
    if (c == '.') {
        c = next(st);
        if (c == '.') return TOK_ELLIPSIS;
        backup(st, c);
        backup(st, '.');
    } else {
        backup(st, c);
    }
    return TOK_DOT;
}

/* One token (CPython's tok_get).  Returns its kind; position info via st. */
static int lex_one(LexState *st, int *lineno, size_t *line_start) {
    int c;
    bool blankline;
nextline:
    blankline = false;
    st->in_token = false;
    if (st->atbol) {
        int r = read_indentation(st);
        if (r == TOK_ERRORTOKEN) return r;
        blankline = r == 1;
    }
    if (st->pendin != 0) {
        st->start = SIZE_MAX;
        if (st->pendin < 0) {
            st->pendin++;
            return TOK_DEDENT;
        }
        st->pendin--;
        return TOK_INDENT;
    }
again:
    st->in_token = false;
    do {
        c = next(st);
    } while (c == ' ' || c == '\t' || c == '\f');
    st->start = st->pos - (c == LEX_EOF ? 0 : 1);
    st->in_token = true;
    *lineno = st->lineno;
    *line_start = st->line_start;
    if (c == '#') { /* the comment becomes part of the NEWLINE token, as in CPython */
        while (c != LEX_EOF && c != '\n') c = next(st);
    }
    if (c == LEX_EOF) {
        st->start = SIZE_MAX;
        if (st->level) return deferred_error(st, DEF_EOF);
        return TOK_ENDMARKER;
    }
    if (is_ident_start(c)) {
        bool is_string;
        int r = lex_name(st, c, &is_string);
        if (is_string) return lex_string(st, r, lineno, line_start);
        if (r == -2 && verify_identifier(st) == TOK_ERRORTOKEN) return TOK_ERRORTOKEN;
        return keyword_kind(st->buf + st->start, st->pos - st->start);
    }
    if (c == '\n') {
        st->atbol = true;
        if (blankline || st->level > 0) goto nextline;
        st->cont_line = false;
        return TOK_NEWLINE;
    }
    if (c == '.') return lex_dot(st);
    if (is_digit(c)) return lex_number(st, c);
    if (c == '\'' || c == '"') return lex_string(st, c, lineno, line_start);
    if (c == '\\') {
        if (continuation_line(st) == TOK_ERRORTOKEN) return TOK_ERRORTOKEN;
        st->cont_line = true;
        goto again;
    }
    return lex_operator(st, c);
}

/* ---- driver ---- */

static int normalise(Lexer *lx, const char *src, size_t len, LexState *st, size_t *nul_at) {
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) src += 3, len -= 3;
    lx->src = malloc(len + 2);
    if (!lx->src) return -1;
    size_t n = 0;
    *nul_at = SIZE_MAX;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '\r') {
            if (i + 1 < len && src[i + 1] == '\n') i++;
            c = '\n';
        }
        if (c == '\0' && *nul_at == SIZE_MAX) *nul_at = n;
        lx->src[n++] = c;
    }
    if (n == 0 || lx->src[n - 1] != '\n') lx->src[n++] = '\n';
    lx->src[n] = '\0';
    lx->src_len = n;
    (void)st;
    return 0;
}

static int index_lines(Lexer *lx) {
    size_t n = 0;
    for (size_t i = 0; i < lx->src_len; i++)
        if (lx->src[i] == '\n') n++;
    lx->line_starts = malloc((n + 1) * sizeof(size_t));
    if (!lx->line_starts) return -1;
    size_t k = 0;
    lx->line_starts[k++] = 0;
    for (size_t i = 0; i + 1 < lx->src_len; i++)
        if (lx->src[i] == '\n') lx->line_starts[k++] = i + 1;
    lx->nlines = k;
    return 0;
}

/* Source checks CPython makes before tokenizing: NUL bytes and invalid UTF-8. */
static int check_source(LexState *st, size_t nul_at) {
    Lexer *lx = st->lx;
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < lx->src_len;) {
        unsigned cp;
        int l = lex_utf8_decode((const unsigned char *)lx->src + i, lx->src_len - i, &cp);
        if (l == 0) {
            bad = i;
            break;
        }
        i += (size_t)l;
    }
    size_t at = nul_at < bad ? nul_at : bad;
    if (at == SIZE_MAX) return 0;
    int line = lx->first_lineno;
    size_t ls = 0;
    for (size_t i = 0; i < at; i++)
        if (lx->src[i] == '\n') line++, ls = i + 1;
    st->lineno = line;
    if (at == nul_at) {
        set_error(st, LEX_ERR_RAISED, PARSE_SYNTAX_ERROR, "source code cannot contain null bytes",
                  line, 0, line, 0, ls, at - ls);
    } else {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "Non-UTF-8 code starting with '\\x%02x' on line %d, but no encoding declared",
                 (unsigned char)lx->src[bad], line);
        set_error(st, LEX_ERR_RAISED, PARSE_SYNTAX_ERROR, msg, line, 0, line, 0, ls, 0);
    }
    return -1;
}

int lex_tokenize(Lexer *lx, const char *src, size_t len, const LexOptions *opts) {
    memset(lx, 0, sizeof *lx);
    lx->first_lineno = opts ? opts->first_lineno : 1;
    lx->first_col_offset = opts ? opts->first_col_offset : 0;
    LexState *st = calloc(1, sizeof *st);
    size_t nul_at;
    if (!st || normalise(lx, src, len, st, &nul_at) < 0 || index_lines(lx) < 0) {
        free(st);
        lx->out_of_memory = true;
        return -1;
    }
    st->lx = lx;
    st->buf = lx->src;
    st->end = lx->src_len;
    st->lineno = lx->first_lineno - 1;
    st->first_lineno = lx->first_lineno;
    st->atbol = true;
    if (check_source(st, nul_at) < 0) {
        push_token(st, TOK_ERRORTOKEN, SIZE_MAX, 0, 0, 0);
        free(st);
        return -1;
    }
    for (;;) {
        int lineno = st->lineno;
        size_t line_start = st->line_start;
        int kind = lex_one(st, &lineno, &line_start);
        if (kind == TOK_ERRORTOKEN) {
            push_token(st, TOK_ERRORTOKEN, SIZE_MAX, 0, st->lineno, 0);
            break;
        }
        size_t start = st->start;
        size_t end = kind == TOK_NEWLINE ? st->pos - 1 : st->pos;
        if (kind == TOK_INDENT || kind == TOK_DEDENT || kind == TOK_ENDMARKER) start = SIZE_MAX;
        if (start == SIZE_MAX) lineno = st->lineno;
        if (push_token(st, (TokenKind)kind, start, end, lineno, line_start) < 0) break;
        if (kind == TOK_ENDMARKER) break;
    }
    free(st);
    return (lx->error_class != LEX_ERR_NONE || lx->out_of_memory) ? -1 : 0;
}

void lex_free(Lexer *lx) {
    free(lx->nfkc_name);
    free(lx->src);
    free(lx->line_starts);
    free(lx->tokens);
    free(lx->error.message);
    free(lx->error.text);
    memset(lx, 0, sizeof *lx);
}

const char *lex_line_nl(const Lexer *lx, int lineno, size_t *len_out) {
    if (!lx) { /* a tree built from objects has no source */
        *len_out = 0;
        return NULL;
    }
    long idx = (long)lineno - lx->first_lineno;
    if (idx < 0 || (size_t)idx >= lx->nlines) {
        *len_out = 0;
        return NULL;
    }
    size_t s = lx->line_starts[idx];
    size_t e = (size_t)idx + 1 < lx->nlines ? lx->line_starts[idx + 1] : lx->src_len;
    *len_out = e - s;
    return lx->src + s;
}

const char *lex_line(const Lexer *lx, int lineno, size_t *len_out) {
    const char *s = lex_line_nl(lx, lineno, len_out);
    if (s && *len_out > 0 && s[*len_out - 1] == '\n') (*len_out)--;
    return s;
}
