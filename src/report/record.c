/* src/report/record.c — building, keeping and freeing the compile records (record.h). */
#include "src/report/record.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Out of memory while recording is not recoverable in a useful way: the records are what the
 * user asked to see. */
static void *must(void *p) {
    if (!p) {
        fputs("ember: out of memory while recording the compile report\n", stderr);
        abort();
    }
    return p;
}

/* Append a zeroed element to a growable array: *arr of *n elements, *cap allocated. */
static void *grow(void *arr_p, int32_t *n, int32_t *cap, size_t size) {
    void **arr = arr_p;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *arr = must(realloc(*arr, size * (size_t)*cap));
    }
    char *el = (char *)*arr + size * (size_t)(*n)++;
    memset(el, 0, size);
    return el;
}

char *rp_strdup(const char *s) { return s ? must(strdup(s)) : NULL; }

char *rp_strndup(const char *s, size_t n) { return must(strndup(s, n)); }

char *rp_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return must(s);
}

const char *rp_phase_name(RpPhase p) {
    static const char *const names[RP_PHASE__COUNT] = {
        [RP_PHASE_NONE] = "", [RP_PHASE_PROLOGUE] = "prologue", [RP_PHASE_GRAPH_CALL] = "graph call",
        [RP_PHASE_TEMPS] = "temporaries", [RP_PHASE_STATE] = "stack and locals", [RP_PHASE_EFFECT] = "side effect",
        [RP_PHASE_GRAD_MODE] = "grad mode", [RP_PHASE_BREAK] = "breaking instruction",
        [RP_PHASE_RESUME] = "resume call", [RP_PHASE_RETURN] = "return",
    };
    return p >= 0 && p < RP_PHASE__COUNT ? names[p] : "";
}

RpCompile *rp_compile_new(int32_t frame_id, int32_t compile_id, const char *name, const char *qualname,
                          const char *file, int32_t firstline) {
    RpCompile *c = must(calloc(1, sizeof *c));
    c->frame_id = frame_id;
    c->compile_id = compile_id;
    c->name = rp_strdup(name);
    c->qualname = rp_strdup(qualname);
    c->file = rp_strdup(file);
    c->firstline = firstline;
    c->lastline = firstline;
    c->replaces = -1;
    c->break_index = -1;
    return c;
}

static void dis_free(RpDis *d) {
    for (int32_t i = 0; i < d->n; i++) free(d->rows[i].text);
    free(d->rows);
}

static void strs_free(char **s, int32_t n) {
    for (int32_t i = 0; i < n; i++) free(s[i]);
    free(s);
}

void rp_compile_free(RpCompile *c) {
    if (!c) return;
    free(c->name), free(c->qualname), free(c->file);
    free(c->skip_reason), free(c->recompile_reason);
    for (int32_t i = 0; i < c->n_breaks; i++) {
        RpBreak *b = &c->breaks[i];
        free(b->reason);
        for (int32_t k = 0; k < b->n_tb; k++) free(b->tb[k].file), free(b->tb[k].func), free(b->tb[k].code);
        free(b->tb);
    }
    free(c->breaks);
    strs_free(c->source, c->n_source);
    free(c->marks);
    dis_free(&c->original);
    dis_free(&c->residual);
    free(c->graph_name), free(c->graph_code), free(c->decompiled);
    for (int32_t i = 0; i < c->n_guards; i++) free(c->guards[i].text), free(c->guards[i].code);
    free(c->guards);
    for (int32_t i = 0; i < c->n_effects; i++) {
        RpEffect *e = &c->effects[i];
        free(e->object), free(e->kind), free(e->attr), free(e->value), free(e->replay);
    }
    free(c->effects);
    for (int32_t i = 0; i < c->n_hooks; i++) {
        RpHook *h = &c->hooks[i];
        free(h->what), free(h->target), free(h->callable), free(h->how);
    }
    free(c->hooks);
    strs_free(c->exec_modules, c->n_exec_modules);
    strs_free(c->exec_params, c->n_exec_params);
    for (int32_t i = 0; i < c->n_runs; i++) free(c->runs[i].kind), free(c->runs[i].plan), free(c->runs[i].why);
    free(c->runs);
    strs_free(c->notes, c->n_notes);
    free(c);
}

RpInstr *rp_add_instr(RpDis *d) {
    RpInstr *r = grow(&d->rows, &d->n, &d->cap, sizeof *r);
    r->effect = -1;
    return r;
}

RpGuard *rp_add_guard(RpCompile *c) { return grow(&c->guards, &c->n_guards, &c->cap_guards, sizeof(RpGuard)); }
RpEffect *rp_add_effect(RpCompile *c) { return grow(&c->effects, &c->n_effects, &c->cap_effects, sizeof(RpEffect)); }
RpHook *rp_add_hook(RpCompile *c) { return grow(&c->hooks, &c->n_hooks, &c->cap_hooks, sizeof(RpHook)); }

RpBreak *rp_add_break(RpCompile *c, const char *reason) {
    RpBreak *b = grow(&c->breaks, &c->n_breaks, &c->cap_breaks, sizeof(RpBreak));
    b->reason = rp_strdup(reason);
    return b;
}

RpFrame *rp_add_frame(RpBreak *b) { return grow(&b->tb, &b->n_tb, &b->cap_tb, sizeof(RpFrame)); }

RpRun *rp_add_run(RpCompile *c, const char *kind) {
    RpRun *r = grow(&c->runs, &c->n_runs, &c->cap_runs, sizeof(RpRun));
    r->kind = rp_strdup(kind);
    return r;
}

void rp_add_note(RpCompile *c, const char *note) {
    c->notes = must(realloc(c->notes, sizeof(char *) * (size_t)(c->n_notes + 1)));
    c->notes[c->n_notes++] = rp_strdup(note);
}

void rp_dis_from_text(RpDis *d, const char *text, const int32_t *instr_index, int32_t n_instr) {
    int32_t k = 0;
    bool gap = false, in_table = false;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == 0) {
            gap = true;
        } else {
            RpInstr *r = rp_add_instr(d);
            r->text = rp_strndup(p, len);
            r->gap = gap;
            gap = false;
            if (strcmp(r->text, "ExceptionTable:") == 0) in_table = true;
            if (in_table || k >= n_instr) {
                r->index = -1;
            } else {
                r->index = instr_index[k++];
                /* the line number column is right-aligned before the 5-space gap */
                r->line = (int32_t)strtol(r->text, NULL, 10);
            }
        }
        p += len + (nl ? 1 : 0);
    }
}

void rp_compile_read_source(RpCompile *c, int32_t lastline) {
    c->lastline = lastline < c->firstline ? c->firstline : lastline;
    FILE *f = c->file ? fopen(c->file, "r") : NULL;
    if (!f) return;
    int32_t cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t got;
    while (c->n_source < RP_MAX_SOURCE_LINES && (got = getline(&line, &lcap, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = 0;
        if (c->n_source == cap) {
            cap = cap ? cap * 2 : 256;
            c->source = must(realloc(c->source, sizeof(char *) * (size_t)cap));
        }
        c->source[c->n_source++] = rp_strdup(line);
    }
    free(line);
    fclose(f);
    c->marks = must(calloc((size_t)c->n_source + 1, 1));
    for (int32_t l = c->firstline; l <= c->lastline; l++) rp_mark_line(c, l, RP_MARK_FUNC);
}

void rp_mark_line(RpCompile *c, int32_t line, uint8_t mark) {
    if (line >= 1 && line <= c->n_source) c->marks[line - 1] |= mark;
}

RpLog *rp_log_new(void) { return must(calloc(1, sizeof(RpLog))); }

void rp_log_free(RpLog *log) {
    if (!log) return;
    for (int32_t i = 0; i < log->n_compiles; i++) rp_compile_free(log->compiles[i]);
    free(log->compiles);
    for (int32_t i = 0; i < log->n_mod_events; i++) {
        RpModEvent *e = &log->mod_events[i];
        free(e->event), free(e->module), free(e->parents);
    }
    free(log->mod_events);
    free(log->script), free(log->command);
    free(log);
}

void rp_log_add(RpLog *log, RpCompile *c) {
    RpCompile **slot = grow(&log->compiles, &log->n_compiles, &log->cap_compiles, sizeof(RpCompile *));
    *slot = c;
}

RpCompile *rp_log_find_graph(RpLog *log, const char *name) {
    for (int32_t i = log->n_compiles - 1; i >= 0; i--)
        if (log->compiles[i]->graph_name && strcmp(log->compiles[i]->graph_name, name) == 0) return log->compiles[i];
    return NULL;
}

RpCompile *rp_log_find(RpLog *log, int32_t frame_id, int32_t compile_id) {
    for (int32_t i = 0; i < log->n_compiles; i++)
        if (log->compiles[i]->frame_id == frame_id && log->compiles[i]->compile_id == compile_id &&
            log->compiles[i]->compiled)
            return log->compiles[i];
    return NULL;
}

void rp_log_mod_event(RpLog *log, const char *event, const char *module, const char *parents) {
    RpModEvent *e = grow(&log->mod_events, &log->n_mod_events, &log->cap_mod_events, sizeof(RpModEvent));
    e->event = rp_strdup(event);
    e->module = rp_strdup(module);
    e->parents = rp_strdup(parents);
}
