/* frontend_dump.c — text renderings for tests (see frontend_dump.h). */
#include "tests/unit/frontend/frontend_dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"

static char *finish(StrBuf *t) { return sb_take(t); }

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

static void pos(StrBuf *t, int v) {
    if (v == PARSE_POS_NONE) sb_printf(t, "None");
    else sb_printf(t, "%d", v);
}

char *dump_errors(const ParseErrorList *errs) {
    StrBuf t = SB_INIT;
    for (size_t i = 0; i < errs->count; i++) {
        const ParseError *e = &errs->items[i];
        sb_printf(&t, "%s:%d:", parse_error_kind_name(e->kind), e->lineno);
        pos(&t, e->col_offset);
        sb_printf(&t, ":%d:", e->end_lineno);
        pos(&t, e->end_col_offset);
        sb_printf(&t, ":%s\n", e->message);
    }
    return finish(&t);
}

static int cmp_sym(const void *a, const void *b) {
    return strcmp((*(const SymSymbol *const *)a)->name, (*(const SymSymbol *const *)b)->name);
}

static const char *type_name(const SymScope *s) {
    return s->type == SYM_BLOCK_MODULE ? "module" : s->type == SYM_BLOCK_CLASS ? "class" : "function";
}

static void dump_scope(StrBuf *t, const SymScope *s, int depth) {
    sb_printf(t, "%*sscope %s %s %d nested=%d\n", depth * 2, "", type_name(s), s->name, s->lineno,
         s->is_nested ? 1 : 0);
    const SymSymbol **syms = malloc((s->nsymbols + 1) * sizeof *syms);
    if (!syms) return;
    for (size_t i = 0; i < s->nsymbols; i++) syms[i] = &s->symbols[i];
    qsort(syms, s->nsymbols, sizeof *syms, cmp_sym);
    for (size_t i = 0; i < s->nsymbols; i++)
        sb_printf(t, "%*s  %s %d %d\n", depth * 2, "", syms[i]->name, (int)syms[i]->scope, syms[i]->flags);
    free(syms);
    for (size_t i = 0; i < s->nchildren; i++) dump_scope(t, s->children[i], depth + 1);
}

char *dump_symtable(const SymTable *st) {
    StrBuf t = SB_INIT;
    const SymScope *top = sym_module_scope(st);
    dump_scope(&t, top, 0);
    return finish(&t);
}
