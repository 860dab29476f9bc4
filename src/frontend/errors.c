/* errors.c — the diagnostic list (ordered by pipeline phase) and Ember's error rendering. */
#include "src/frontend/errors.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"

void parse_errors_init(ParseErrorList *list) {
    list->items = NULL;
    list->count = 0;
    list->cap = 0;
}

void parse_errors_fini(ParseErrorList *list) {
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].message);
        free(list->items[i].text);
    }
    free(list->items);
    parse_errors_init(list);
}

void parse_errors_drop_after(ParseErrorList *list, ParsePhase phase) {
    size_t keep = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i].phase <= phase) {
            list->items[keep++] = list->items[i];
            continue;
        }
        free(list->items[i].message);
        free(list->items[i].text);
    }
    list->count = keep;
}

char *parse_strdup_printf(const char *fmt, ...) {
    StrBuf b = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return sb_take(&b);
}

static char *dup_text(const char *text, size_t len) {
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, text, len);
    s[len] = '\0';
    return s;
}

ParseError *parse_errors_add(ParseErrorList *list, ParseErrorKind kind, ParsePhase phase,
                             const char *msg, int lineno, int col_offset, int end_lineno,
                             int end_col_offset, const char *text, size_t text_len) {
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        ParseError *items = realloc(list->items, cap * sizeof *items);
        if (!items) return NULL;
        list->items = items;
        list->cap = cap;
    }
    ParseError e = {kind, phase, NULL, lineno, col_offset, end_lineno, end_col_offset, NULL};
    e.message = parse_strdup_printf("%s", msg);
    if (!e.message) return NULL;
    if (text) {
        e.text = dup_text(text, text_len);
        e.text_newline = text_len > 0 && (text[text_len - 1] == '\n' || text[text_len - 1] == '\r');
        if (!e.text) {
            free(e.message);
            return NULL;
        }
    }
    /* Insert after the last error of the same or an earlier phase. */
    size_t at = list->count;
    while (at > 0 && list->items[at - 1].phase > phase) at--;
    memmove(&list->items[at + 1], &list->items[at], (list->count - at) * sizeof e);
    list->items[at] = e;
    list->count++;
    return &list->items[at];
}

void parse_errors_fill_text(ParseErrorList *list, const char *src, size_t len) {
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) src += 3, len -= 3;
    for (size_t i = 0; i < list->count; i++) {
        ParseError *e = &list->items[i];
        if (e->text || e->lineno <= 0) continue;
        int line = 1;
        size_t at = 0;
        while (at < len && line < e->lineno) {
            if (src[at] == '\n' || (src[at] == '\r' && !(at + 1 < len && src[at + 1] == '\n'))) line++;
            at++;
        }
        if (line != e->lineno) continue;
        size_t end = at;
        while (end < len && src[end] != '\n' && src[end] != '\r') end++;
        e->text = dup_text(src + at, end - at);
        e->text_newline = end < len;
    }
}

void parse_errors_fill_text_from_file(ParseErrorList *list, const char *path, bool parser_errors_too) {
    bool wanted = false;
    for (size_t i = 0; i < list->count; i++)
        if ((!list->items[i].text || parser_errors_too) && list->items[i].lineno > 0) wanted = true;
    if (!wanted || !path) return;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    StrBuf b = SB_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_add(&b, buf, n);
    fclose(f);
    if (!b.failed && b.data) {
        ParseErrorList file_lines; /* the errors' lines as the file has them */
        parse_errors_init(&file_lines);
        for (size_t i = 0; i < list->count; i++) {
            ParseError *e = &list->items[i];
            bool want = !e->text || (parser_errors_too && e->phase == PARSE_PHASE_PARSER && !e->tokenizer_text);
            if (!want || e->lineno <= 0) continue;
            ParseError probe = {.lineno = e->lineno};
            ParseErrorList one = {&probe, 1, 1};
            parse_errors_fill_text(&one, b.data, b.len);
            if (!probe.text) continue; /* past the file's end: the source's own text stays */
            free(e->text);
            e->text = probe.text;
            e->text_newline = probe.text_newline;
        }
    }
    sb_free(&b);
}

size_t parse_errors_count_upto(const ParseErrorList *list, ParsePhase phase) {
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i].phase <= phase) n++;
    return n;
}

const char *parse_error_kind_name(ParseErrorKind kind) {
    switch (kind) {
    case PARSE_INDENTATION_ERROR: return "IndentationError";
    case PARSE_TAB_ERROR: return "TabError";
    case PARSE_SYNTAX_ERROR: break;
    }
    return "SyntaxError";
}

int parse_byte_to_char_offset(const char *line, size_t len, int byte_offset) {
    if (byte_offset <= 0) return byte_offset;
    size_t n = (size_t)byte_offset;
    if (n > len + 1) n = len + 1;
    int chars = 0;
    for (size_t i = 0; i < n && i < len; i++)
        if (((unsigned char)line[i] & 0xC0) != 0x80) chars++;
    if (n > len) chars++; /* the offset one past the end of the line */
    return chars;
}

/* Byte index in s of the character with 0-based index col (clamped to the end). */
static size_t char_to_byte(const char *s, size_t len, long col) {
    size_t i = 0;
    while (i < len && col > 0) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
        col--;
    }
    return i;
}

/* The source line and caret, as CPython's print_error_text lays them out (one caret). */
static void format_text(StrBuf *b, const char *text, int offset) {
    size_t len = strlen(text);
    size_t skip = 0;
    while (skip < len && (text[skip] == ' ' || text[skip] == '\t' || text[skip] == '\f')) skip++;
    const char *stripped = text + skip;
    size_t slen = len - skip;
    sb_adds(b, "    ");
    sb_add(b, stripped, slen);
    sb_adds(b, "\n");
    if (offset <= 0) return;
    long col = (long)offset - 1; /* 0-based character column in the full line */
    long skipped_chars = 0;
    for (size_t i = 0; i < skip; i++) skipped_chars++;
    col -= skipped_chars;
    if (col < 0) return;
    size_t upto = char_to_byte(stripped, slen, col);
    sb_adds(b, "    ");
    for (size_t i = 0; i < upto; i++) {
        unsigned char c = (unsigned char)stripped[i];
        if ((c & 0xC0) == 0x80) continue;
        sb_add(b, c == '\t' || c == '\f' ? (const char *)&stripped[i] : " ", 1);
    }
    sb_adds(b, "^\n");
}

char *parse_format_error(const ParseError *err, const char *filename) {
    StrBuf b = SB_INIT;
    sb_printf(&b, "%s:%d:%d: %s: %s\n", filename ? filename : "<string>", err->lineno, err->col_offset,
              parse_error_kind_name(err->kind), err->message);
    if (err->text) format_text(&b, err->text, err->col_offset);
    return sb_take(&b);
}
