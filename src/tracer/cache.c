/* src/tracer/cache.c — the compiled entries of code objects: each code object the tracer has
 * seen carries a CodeCache (its entries, each a guard program plus residual code, newest first,
 * and its resume functions), freed and traced with the code object; the VM's list of them for
 * torch._dynamo.reset(); and torch._dynamo.config.cache_size_limit. */
#include <stdio.h>
#include <stdlib.h>

#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/gc.h"

/* ---- code caches ------------------------------------------------------------------------------ */

/* The code object a cache belongs to is freed with its cache; reset() must not touch it after. */
static void forget_code(VM *vm, CodeObj *co) {
    TracerState *st = tracer_state(vm);
    for (int i = 0; i < st->n_cached; i++)
        if (st->cached_codes[i] == co) {
            st->cached_codes[i] = st->cached_codes[--st->n_cached];
            return;
        }
}

void tracer_entry_free(CacheEntry *e) {
    trace_arena_free(&e->arena);
    free(e);
}

static void cache_free(void *p) {
    CodeCache *cc = p;
    if (!cc) return;
    if (cc->vm && tracer_state(cc->vm)) forget_code(cc->vm, cc->code);
    for (CacheEntry *e = cc->entries, *n; e; e = n) {
        n = e->next;
        tracer_entry_free(e);
    }
    for (ResumeFn *r = cc->resumes, *n; r; r = n) {
        n = r->next;
        free(r);
    }
    free(cc);
}

static void mark_source(VM *vm, const Source *s) {
    for (; s; s = s->base) {
        if (s->name) gc_mark(vm, s->name);
        gc_mark_value(vm, s->key);
    }
}

static void cache_trace(VM *vm, void *p) {
    CodeCache *cc = p;
    for (CacheEntry *e = cc->entries; e; e = e->next) {
        if (e->code) gc_mark(vm, e->code);
        gc_mark_value(vm, e->keep);
        for (int i = 0; i < e->n_guards; i++) {
            Guard *g = &e->guards[i];
            gc_mark_value(vm, g->expected);
            if (g->name) gc_mark(vm, g->name);
            mark_source(vm, g->source);
            mark_source(vm, g->other);
        }
    }
    for (ResumeFn *r = cc->resumes; r; r = r->next) {
        gc_mark(vm, r->code);
        gc_mark(vm, r->name);
    }
}

CodeCache *tracer_code_cache(VM *vm, CodeObj *co, bool create) {
    if (co->tracer_data || !create) return co->tracer_data;
    TracerState *st = tracer_state(vm);
    CodeCache *cc = calloc(1, sizeof *cc);
    if (!cc) return NULL;
    cc->frame_id = st->next_frame_id++;
    cc->vm = vm;
    cc->code = co;
    co->tracer_data = cc;
    co->tracer_free = cache_free;
    co->tracer_trace = cache_trace;
    if (st->n_cached == st->cap_cached) {
        st->cap_cached = st->cap_cached ? st->cap_cached * 2 : 32;
        st->cached_codes = realloc(st->cached_codes, sizeof(CodeObj *) * (size_t)st->cap_cached);
    }
    st->cached_codes[st->n_cached++] = co;
    return cc;
}

/* torch._dynamo.config.cache_size_limit, read when it matters (a miss) */
int32_t tracer_cache_size_limit(VM *vm) {
    Value m = dict_get_c(vm, vm->modules, "torch._dynamo.config");
    if (m.tag == VAL_OBJ && m.as.o->type->layout == OBJ_LAYOUT_MODULE) {
        Value v = dict_get_c(vm, ((ModuleObj *)m.as.o)->dict, "cache_size_limit");
        if (v.tag == VAL_INT) return (int32_t)v.as.i;
    }
    return tracer_state(vm)->cache_size_limit;
}

void tracer_reset(VM *vm) {
    TracerState *st = tracer_state(vm);
    for (int i = 0; i < st->n_cached; i++) {
        CodeObj *co = st->cached_codes[i];
        CodeCache *cc = co->tracer_data;
        if (!cc) continue;
        for (CacheEntry *e = cc->entries, *n; e; e = n) {
            n = e->next;
            tracer_entry_free(e);
        }
        cc->entries = NULL;
        cc->n_entries = 0;
        cc->skip = false;
        cc->warned_limit = false;
    }
}
