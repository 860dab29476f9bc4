/* ast_dump_tool.c — `ast-dump [-a] [-e] [-s] [-t] FILE`, a debugging aid for the front end.
 *   (default)  print ast.dump(ast.parse(FILE)) exactly as CPython 3.11 would
 *   -a         include_attributes=True
 *   -e         print every error as "Kind:line:col:end_line:end_col:message" (phase order)
 *   -s         print the symbol tables (the format of tests/unit/frontend/symtable/ *.sym)
 *   -t         print the token stream instead
 * On a syntax error the first error is printed in Ember's format and the exit status is 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast.h"
#include "src/frontend/lexer.h"
#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"
#include "tests/unit/frontend/frontend_dump.h"

static int dump_tokens(const char *path) {
    size_t len;
    char *src = read_whole_file(path, &len);
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
    bool attrs = false, all_errors = false, tokens = false, symbols = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-a")) attrs = true;
        else if (!strcmp(argv[i], "-e")) all_errors = true;
        else if (!strcmp(argv[i], "-s")) symbols = true;
        else if (!strcmp(argv[i], "-t")) tokens = true;
        else path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: ast-dump [-a] [-e] [-s] [-t] FILE\n");
        return 2;
    }
    if (tokens) return dump_tokens(path);
    size_t len;
    char *src = read_whole_file(path, &len);
    if (!src) {
        fprintf(stderr, "ast-dump: cannot read %s\n", path);
        return 2;
    }
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    ParseOptions opts = {path, 0};
    parse_source(src, len, &opts, arena, &mod, &errs);
    SymTable *st = mod ? sym_build(mod, &errs) : NULL;
    parse_errors_fill_text(&errs, src, len);
    int status = 0;
    if (errs.count) {
        status = 1;
        char *out = all_errors ? dump_errors(&errs) : parse_format_error(&errs.items[0], path);
        if (out) fputs(out, stdout);
        free(out);
    } else if (symbols && st) {
        char *d = dump_symtable(st);
        if (d) fputs(d, stdout);
        free(d);
    } else if (mod) {
        char *d = ast_dump(mod, attrs);
        if (d) puts(d);
        free(d);
    }
    sym_free(st);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    free(src);
    return status;
}
