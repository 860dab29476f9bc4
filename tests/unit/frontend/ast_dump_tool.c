/* ast_dump_tool.c — `ast-dump [-a] [-e] [-t] FILE`, a debugging aid for the front end.
 *   (default)  print ast.dump(ast.parse(FILE)) exactly as CPython 3.11 would
 *   -a         include_attributes=True
 *   -e         print every error as "Kind:line:col:end_line:end_col:message" (phase order)
 *   -t         print the token stream instead
 * On a syntax error the first error is printed in Ember's format and the exit status is 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast.h"
#include "src/frontend/lexer.h"
#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int dump_tokens(const char *path) {
    size_t len;
    char *src = read_file(path, &len);
    if (!src) return 2;
    Lexer lx;
    int r = lex_tokenize(&lx, src, len, NULL);
    for (size_t i = 0; i < lx.count; i++) {
        const Token *t = &lx.tokens[i];
        printf("%s %d,%d-%d,%d %.*s\n", lex_token_name(t->kind), t->lineno, t->col_offset,
               t->end_lineno, t->end_col_offset, (int)t->len, t->start);
    }
    if (r)
        printf("ERROR %s: %s (%d:%d-%d:%d)\n", parse_error_kind_name(lx.error.kind),
               lx.error.message ? lx.error.message : "?", lx.error.lineno, lx.error.col_offset,
               lx.error.end_lineno, lx.error.end_col_offset);
    lex_free(&lx);
    free(src);
    return r ? 1 : 0;
}

int main(int argc, char **argv) {
    bool attrs = false, all_errors = false, tokens = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-a")) attrs = true;
        else if (!strcmp(argv[i], "-e")) all_errors = true;
        else if (!strcmp(argv[i], "-t")) tokens = true;
        else path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: ast-dump [-a] [-e] [-t] FILE\n");
        return 2;
    }
    if (tokens) return dump_tokens(path);
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    parse_file(path, arena, &mod, &errs);
    if (mod) {
        SymTable *st = sym_build(mod, path, &errs);
        sym_free(st);
    }
    int status = 0;
    if (errs.count) {
        status = 1;
        if (all_errors) {
            for (size_t i = 0; i < errs.count; i++) {
                const ParseError *e = &errs.items[i];
                printf("%s:%d:%d:%d:%d:%s\n", parse_error_kind_name(e->kind), e->lineno,
                       e->col_offset, e->end_lineno, e->end_col_offset, e->message);
            }
        } else {
            char *msg = parse_format_error(&errs.items[0], path);
            if (msg) fputs(msg, stdout);
            free(msg);
        }
    } else if (mod) {
        char *d = ast_dump(mod, attrs);
        if (d) puts(d);
        free(d);
    }
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    return status;
}
