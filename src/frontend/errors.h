/* errors.h — syntax diagnostics shared by the lexer, the parser and the symbol tables.
 *
 * A ParseError carries what CPython 3.11 puts in a SyntaxError: the kind (SyntaxError,
 * IndentationError, TabError), the message, the 1-based line, the 1-based column in
 * *characters* (SyntaxError.offset), the end position as CPython reports it (end_col_offset
 * may be 0 or -1 exactly where CPython's is) and the text of the line it shows.
 *
 * The list is kept in report order: items[0] is the error CPython would raise for the same
 * source (the one the CLI prints).  Later items are further errors found after the parser
 * resynchronised; they are best effort.  Each error records the phase that found it
 * (tokenizer/parser, symbol table, compiler checks), because CPython stops at the first
 * failing phase: an error of a later phase never goes before one of an earlier phase. */
#ifndef EMBER_FRONTEND_ERRORS_H
#define EMBER_FRONTEND_ERRORS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum ParseErrorKind {
    PARSE_SYNTAX_ERROR,
    PARSE_INDENTATION_ERROR,
    PARSE_TAB_ERROR,
} ParseErrorKind;

/* Which stage of CPython's pipeline reports the error; orders errors of different stages. */
typedef enum ParsePhase {
    PARSE_PHASE_PARSER = 0,   /* tokenizer and parser (ast.parse fails) */
    PARSE_PHASE_FUTURE = 1,   /* future.c (unknown __future__ feature) */
    PARSE_PHASE_SYMTABLE = 2, /* symtable.c (duplicate argument, global/nonlocal errors) */
    PARSE_PHASE_COMPILER = 3, /* compile.c (return outside function, break outside loop) */
} ParsePhase;

/* A position CPython leaves as None (e.g. end_offset of "not a chance"). */
#define PARSE_POS_NONE INT_MIN

typedef struct ParseError {
    ParseErrorKind kind;
    ParsePhase phase;
    char *message;      /* malloc'd, UTF-8 */
    int lineno;         /* 1-based; 0 when unknown */
    int col_offset;     /* 1-based column in characters as CPython's SyntaxError.offset; 0 = none */
    int end_lineno;     /* as CPython's SyntaxError.end_lineno */
    int end_col_offset; /* as CPython's SyntaxError.end_offset (may be 0 or -1) */
    char *text;         /* malloc'd line to display, without its newline; NULL = none */
    bool text_newline;  /* the line had a newline (CPython's SyntaxError.text keeps it) */
    bool tokenizer_text; /* the tokenizer raised it: its text is final (never the file's) */
} ParseError;

typedef struct ParseErrorList {
    ParseError *items;
    size_t count;
    size_t cap;
} ParseErrorList;

void parse_errors_init(ParseErrorList *list);
void parse_errors_fini(ParseErrorList *list);

/* Appends a copy of msg/text (text may be NULL, text_len bytes, a trailing newline is
 * dropped).  Keeps the list ordered by phase (stable within a phase).  Returns the entry,
 * or NULL when out of memory. */
ParseError *parse_errors_add(ParseErrorList *list, ParseErrorKind kind, ParsePhase phase,
                             const char *msg, int lineno, int col_offset, int end_lineno,
                             int end_col_offset, const char *text, size_t text_len);

/* Removes the errors of phases after `phase` (ast.parse keeps only the parser's). */
void parse_errors_drop_after(ParseErrorList *list, ParsePhase phase);
/* Number of errors of the given phase or an earlier one. */
size_t parse_errors_count_upto(const ParseErrorList *list, ParsePhase phase);

/* "SyntaxError", "IndentationError" or "TabError". */
const char *parse_error_kind_name(ParseErrorKind kind);

/* Renders Ember's diagnostic:
 *     file:line:col: SyntaxError: message
 *         stripped source line
 *         caret under the column
 * The source line loses its leading spaces, tabs and form feeds as CPython's traceback
 * printer strips them; the caret keeps tabs of the stripped text so it stays aligned.
 * Without text only the first line is produced.  Returns a malloc'd string ending in a
 * newline, or NULL when out of memory. */
char *parse_format_error(const ParseError *err, const char *filename);

/* Converts a 1-based byte offset in line (len bytes) to a 1-based character offset the way
 * CPython's _PyPegen_byte_offset_to_character_offset does (clamped to len + 1). */
int parse_byte_to_char_offset(const char *line, size_t len, int byte_offset);

/* Fills in the text of errors that have none (symbol table errors) from the source lines,
 * as CPython's traceback printer shows them (src is the source as given to the parser). */
void parse_errors_fill_text(ParseErrorList *list, const char *src, size_t len);
/* The same from the file at path, when it can be read (CPython's PyErr_ProgramTextObject: the
 * symbol table's and compiler's errors take their line from the file named in compile(), and
 * so do the parser's in 'exec' mode: parser_errors_too replaces their text when the file has
 * the line). */
void parse_errors_fill_text_from_file(ParseErrorList *list, const char *path, bool parser_errors_too);

/* printf into a malloc'd string; NULL when out of memory. */
char *parse_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
