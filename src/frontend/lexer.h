/* lexer.h — Ember's tokenizer for the Python 3.11 subset.
 *
 * The lexer turns a whole UTF-8 source into an array of tokens up front, following
 * CPython 3.11's Parser/tokenizer.c: INDENT/DEDENT from an indentation stack (tabs to
 * multiples of 8, checked against a tab size of 1 for TabError), implicit line joining
 * inside brackets, backslash continuation, comments, NEWLINE and ENDMARKER.  Keywords get
 * their own kinds; soft keywords (match, case, _) are NAMEs.  NUMBER and STRING tokens keep
 * their source text; the parser converts them (parse_number.c, parse_string.c).
 *
 * Positions are CPython's: lineno 1-based, col_offset a 0-based UTF-8 byte offset, end
 * position just past the token.  A STRING token spanning lines starts on its first line.
 * INDENT, DEDENT and ENDMARKER carry col_offset -1 as CPython's do; their cur_col is where
 * the tokenizer's cursor stood, which CPython uses to place errors reported at them.
 *
 * Tokenizing stops at the first error: the last token is then an ERRORTOKEN and
 * Lexer.error describes the error with CPython's message and location.  Whether CPython
 * reports that error even when the parser fails earlier depends on its kind
 * (LexErrorClass), see parser.c.
 *
 * Example: "if x:\n    y = 1\n" gives
 *   IF NAME COLON NEWLINE INDENT NAME EQUAL NUMBER NEWLINE DEDENT ENDMARKER */
#ifndef EMBER_FRONTEND_LEXER_H
#define EMBER_FRONTEND_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "src/frontend/errors.h"

typedef enum TokenKind {
#define TOK(name, spelling) TOK_##name,
#define OP(name, spelling) TOK_##name,
#define KW(name, spelling) TOK_KW_##name,
#include "src/frontend/tokens.def"
#undef TOK
#undef OP
#undef KW
    TOK__COUNT
} TokenKind;

typedef struct Token {
    TokenKind kind;
    int lineno, col_offset;         /* start; col_offset in bytes, -1 for INDENT/DEDENT/END */
    int end_lineno, end_col_offset; /* end, exclusive */
    int cur_col;                    /* tokenizer cursor column when the token was produced */
    int level;                      /* bracket depth after this token, as CPython's tok->level */
    const char *start;              /* source text of the token (into Lexer.src) */
    size_t len;
} Token;

/* How CPython surfaces a tokenizer error (see _PyPegen_tokenize_full_source_to_check_for_errors):
 * LEX_ERR_RAISED errors are raised by the tokenizer itself and win over any parser error;
 * LEX_ERR_DEFERRED ones (bad dedent, TabError, too deep, line continuation, EOF) are only
 * reported when the parser reaches the token. */
typedef enum LexErrorClass {
    LEX_ERR_NONE,
    LEX_ERR_RAISED,
    LEX_ERR_DEFERRED,
} LexErrorClass;

typedef struct LexOptions {
    int first_lineno;     /* line number of the first line (1 for a file) */
    int first_col_offset; /* added to columns of tokens on the first line (f-string parts) */
} LexOptions;

typedef struct Lexer {
    char *src;         /* normalised source: \r\n and \r become \n, ends with \n, NUL-terminated */
    size_t src_len;
    size_t *line_starts; /* byte offset of each physical line; line n is line_starts[n - first] */
    size_t nlines;
    int first_lineno;
    int first_col_offset;
    Token *tokens;
    size_t count, cap;
    /* The first error, if any; tokens then end with an ERRORTOKEN. */
    LexErrorClass error_class;
    ParseError error;    /* message/text owned by the lexer */
    bool error_is_eof;   /* E_EOF-like: end of input inside brackets or after a backslash */
    int open_level;      /* bracket depth when the error happened */
    int open_lineno;     /* line of the innermost open bracket then (0 if none) */
    int open_col;        /* its byte column */
    char open_char;      /* the bracket itself */
    bool out_of_memory;
    /* The first identifier CPython would change by NFKC normalisation (Ember rejects it
     * after parsing, see parser.c); NULL when none. */
    char *nfkc_name;
    int nfkc_lineno, nfkc_col, nfkc_end_col; /* 0-based byte columns, as tokens have */
} Lexer;

/* Tokenizes len bytes of UTF-8 (a leading BOM is skipped).  Returns 0 on success, -1 when a
 * tokenizer error was found (see lx->error) or memory ran out (lx->out_of_memory).  The
 * Lexer must be released with lex_free either way. */
int lex_tokenize(Lexer *lx, const char *src, size_t len, const LexOptions *opts);
void lex_free(Lexer *lx);

/* Text of physical line `lineno` (without its newline), NULL if out of range. */
const char *lex_line(const Lexer *lx, int lineno, size_t *len_out);
/* Same but keeps the trailing newline in the length, as CPython's error lines do. */
const char *lex_line_nl(const Lexer *lx, int lineno, size_t *len_out);

const char *lex_token_name(TokenKind kind);     /* "NAME", "LPAR", "KW_IF", ... */
const char *lex_token_spelling(TokenKind kind); /* "name", "(", "if", ... */

/* Unicode classification used for identifiers and repr (vm/unicode.h). */
bool lex_is_xid_start(unsigned cp);
bool lex_is_xid_continue(unsigned cp);
bool lex_is_printable(unsigned cp);
bool lex_needs_normalization(const char *s, size_t n);

/* Decodes one UTF-8 character at s (n bytes available); returns its length (0 if invalid). */
int lex_utf8_decode(const unsigned char *s, size_t n, unsigned *cp);

#endif
