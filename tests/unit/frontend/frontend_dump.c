/* frontend_dump.c — text renderings for tests (see frontend_dump.h). */
#include "tests/unit/frontend/frontend_dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Text {
    char *s;
    size_t len, cap;
} Text;

static void addf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(Text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) return;
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static char *finish(Text *t) {
    if (!t->s) return calloc(1, 1);
    return t->s;
}

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

static void pos(Text *t, int v) {
    if (v == PARSE_POS_NONE) addf(t, "None");
    else addf(t, "%d", v);
}

char *dump_errors(const ParseErrorList *errs) {
    Text t = {0};
    for (size_t i = 0; i < errs->count; i++) {
        const ParseError *e = &errs->items[i];
        addf(&t, "%s:%d:", parse_error_kind_name(e->kind), e->lineno);
        pos(&t, e->col_offset);
        addf(&t, ":%d:", e->end_lineno);
        pos(&t, e->end_col_offset);
        addf(&t, ":%s\n", e->message);
    }
    return finish(&t);
}

static int cmp_line(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_sym(const void *a, const void *b) {
    return strcmp((*(const SymSymbol *const *)a)->name, (*(const SymSymbol *const *)b)->name);
}

static const char *type_name(const SymScope *s) {
    return s->type == SYM_BLOCK_MODULE ? "module" : s->type == SYM_BLOCK_CLASS ? "class" : "function";
}

static void dump_scope(Text *t, const SymScope *s, int depth) {
    addf(t, "%*sscope %s %s %d nested=%d\n", depth * 2, "", type_name(s), s->name, s->lineno,
         s->is_nested ? 1 : 0);
    const SymSymbol **syms = malloc((s->nsymbols + 1) * sizeof *syms);
    if (!syms) return;
    for (size_t i = 0; i < s->nsymbols; i++) syms[i] = &s->symbols[i];
    qsort(syms, s->nsymbols, sizeof *syms, cmp_sym);
    for (size_t i = 0; i < s->nsymbols; i++)
        addf(t, "%*s  %s %d %d\n", depth * 2, "", syms[i]->name, (int)syms[i]->scope, syms[i]->flags);
    free(syms);
    for (size_t i = 0; i < s->nchildren; i++) dump_scope(t, s->children[i], depth + 1);
}

static const char *code_name(const SymScope *s) {
    if (s->type == SYM_BLOCK_MODULE) return "<module>";
    if (s->is_lambda) return "<lambda>";
    switch (s->comprehension) {
    case SYM_COMP_LIST: return "<listcomp>";
    case SYM_COMP_SET: return "<setcomp>";
    case SYM_COMP_DICT: return "<dictcomp>";
    case SYM_COMP_GENEXPR: return "<genexpr>";
    case SYM_COMP_NONE: break;
    }
    return s->name;
}

static void names(Text *t, const char *label, const char **list, size_t n) {
    addf(t, " %s=(", label);
    for (size_t i = 0; i < n; i++) addf(t, "%s%s", i ? "," : "", list[i]);
    addf(t, ")");
}

static void collect_code(const SymScope *s, char ***lines, size_t *n, size_t *cap) {
    Text t = {0};
    addf(&t, "code %s %d", code_name(s), s->firstlineno);
    names(&t, "varnames", s->varnames, s->nvarnames);
    names(&t, "cellvars", s->cellvars, s->ncellvars);
    names(&t, "freevars", s->freevars, s->nfreevars);
    bool fn = s->type == SYM_BLOCK_FUNCTION;
    addf(&t, " flags=%s%s%s%s", fn && s->has_varargs ? "V" : "", fn && s->has_varkw ? "K" : "",
         fn && s->is_nested ? "N" : "", fn && s->is_generator ? "G" : "");
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        char **nl = realloc(*lines, *cap * sizeof *nl);
        if (!nl) {
            free(t.s);
            return;
        }
        *lines = nl;
    }
    (*lines)[(*n)++] = finish(&t);
    for (size_t i = 0; i < s->nchildren; i++) collect_code(s->children[i], lines, n, cap);
}

char *dump_symtable(const SymTable *st) {
    Text t = {0};
    const SymScope *top = sym_module_scope(st);
    dump_scope(&t, top, 0);
    char **lines = NULL;
    size_t n = 0, cap = 0;
    collect_code(top, &lines, &n, &cap);
    qsort(lines, n, sizeof *lines, cmp_line);
    for (size_t i = 0; i < n; i++) {
        addf(&t, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    return finish(&t);
}
