/* parse_fstring.h — f-string parsing shared by parse_string.c (parser internals).
 *
 * FStringState accumulates the parts of one implicitly concatenated string: a pending
 * literal (last_str) and the JoinedStr values built so far, as CPython's FstringParser. */
#ifndef EMBER_FRONTEND_PARSE_FSTRING_H
#define EMBER_FRONTEND_PARSE_FSTRING_H

#include "src/frontend/parser_internal.h"

typedef struct FStringState {
    char *last_str; /* malloc'd pending literal, NULL when none */
    size_t last_len;
    PVec exprs;
    bool fmode; /* an f-string took part */
} FStringState;

void parse_fstring_state_init(FStringState *st);
void parse_fstring_state_fini(FStringState *st);

/* Appends a decoded literal (takes ownership of the malloc'd s). */
int parse_fstring_concat_str(Parser *p, FStringState *st, char *s, size_t len);

/* Parses the body of one f-string token t ([*str, end)), appending to st. */
int parse_fstring_concat(Parser *p, FStringState *st, const char **str, const char *end, bool raw,
                         int recurse_lvl, const Token *first, const Token *t, const Token *last);

/* The Constant or JoinedStr for everything accumulated. */
AstExpr *parse_fstring_finish(Parser *p, FStringState *st, const Token *first, const Token *last);

/* Decodes a str literal (raw or with escapes) into a malloc'd buffer; false after raising. */
bool parse_decode_literal(Parser *p, const char *s, size_t n, bool raw, char **out, size_t *out_len);

/* Parses "(expr)" (src, len bytes) with a sub-parser whose first line is `lineno` and whose
 * first-line columns are shifted by col_offset; errors propagate to the parent. */
AstExpr *parse_fstring_subparse(Parser *parent, const char *src, size_t len, int lineno,
                                int col_offset);

#endif
