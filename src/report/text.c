/* src/report/text.c — the EMBER_LOGS text of each record (TORCH_LOGS' layout: `[frame/compile]
 * [__artifact] ...` on stderr).  The tracer and the runtime decide which artifacts are enabled;
 * this file only lays records out, so the text and the HTML report show the same data. */
#include <string.h>

#include "src/report/record.h"

#define PREFIX_FMT "[%d/%d]"
#define PREFIX(c) (c)->frame_id, (c)->compile_id

static void print_dis(const RpDis *d, FILE *out) {
    for (int32_t i = 0; i < d->n; i++) {
        if (d->rows[i].gap) fputc('\n', out);
        fprintf(out, "%s\n", d->rows[i].text);
    }
}

void rp_print_bytecode(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__bytecode] ORIGINAL BYTECODE %s %s line %d \n", PREFIX(c), c->qualname, c->file,
            c->firstline);
    print_dis(&c->original, out);
    fprintf(out, "\n" PREFIX_FMT " [__bytecode] MODIFIED BYTECODE %s %s line %d \n", PREFIX(c), c->qualname, c->file,
            c->firstline);
    print_dis(&c->residual, out);
    fprintf(out, "\n");
}

void rp_print_graph_code(const RpCompile *c, FILE *out) {
    if (!c->graph_code) return;
    fprintf(out, PREFIX_FMT " [__graph_code] TRACED GRAPH\n ===== %s =====\n%s\n", PREFIX(c), c->graph_name,
            c->graph_code);
}

void rp_print_guards(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__guards] GUARDS:\n", PREFIX(c));
    for (int32_t i = 0; i < c->n_guards; i++) {
        const RpGuard *g = &c->guards[i];
        if (g->line > 0) fprintf(out, "  %-90s # %s  # %s:%d\n", g->text, g->code ? g->code : "", c->file, g->line);
        else fprintf(out, "  %s\n", g->text);
    }
}

/* The residual instructions that replay side effect k, as dis offsets: " @42..56 @78..80" */
static void print_replaying(const RpCompile *c, int32_t k, FILE *out) {
    int32_t first = -1, last = -1;
    for (int32_t i = 0; i <= c->residual.n; i++) {
        const RpInstr *r = i < c->residual.n ? &c->residual.rows[i] : NULL;
        bool in = r && r->effect == k && r->index >= 0;
        if (in && first >= 0 && r->index == last + 1) {
            last = r->index;
            continue;
        }
        if (first >= 0) {
            if (last > first) fprintf(out, " @%d..%d", 2 * first, 2 * last);
            else fprintf(out, " @%d", 2 * first);
        }
        first = last = in ? r->index : -1;
    }
}

void rp_print_side_effects(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__side_effects] SIDE EFFECTS\n", PREFIX(c));
    fprintf(out, "  %-28s %-9s %-16s %-30s %s\n", "object", "kind", "attr/key", "new value", "line");
    for (int32_t i = 0; i < c->n_effects; i++) {
        const RpEffect *e = &c->effects[i];
        fprintf(out, "  %-28s %-9s %-16s %-30s ", e->object, e->kind, e->attr, e->value);
        if (e->line > 0) fprintf(out, "%d", e->line);
        else fputc('-', out);
        fputs("  ->", out);
        if (e->replay) fprintf(out, " %s", e->replay);
        print_replaying(c, i, out);
        fputc('\n', out);
    }
    if (!c->n_effects) fprintf(out, "  (none)\n");
}

void rp_print_decompiled(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__decompiled] residual code of %s:\n%s\n", PREFIX(c), c->qualname,
            c->decompiled ? c->decompiled : "");
}

static void print_names(char *const *names, int32_t n, FILE *out) {
    for (int32_t i = 0; i < n; i++) fprintf(out, "%s'%s'", i ? ", " : "", names[i]);
}

void rp_print_exec_order(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__exec_order] module forward order [", PREFIX(c));
    print_names(c->exec_modules, c->n_exec_modules, out);
    fprintf(out, "]\n" PREFIX_FMT " [__exec_order] param exec order [", PREFIX(c));
    print_names(c->exec_params, c->n_exec_params, out);
    fprintf(out, "]\n");
}

void rp_print_hooks(const RpCompile *c, FILE *out) {
    for (int32_t i = 0; i < c->n_hooks; i++) {
        const RpHook *h = &c->hooks[i];
        fprintf(out, PREFIX_FMT " [__hooks] %s on %s %s (line %d)\n", PREFIX(c), h->what, h->target, h->how, h->line);
    }
}

void rp_print_break(const RpCompile *c, const RpBreak *b, FILE *out) {
    const RpFrame *at = b->n_tb ? &b->tb[b->n_tb - 1] : NULL;
    fprintf(out, PREFIX_FMT " [__graph_breaks] Graph break in user code at %s:%d\nGraph Break Reason: %s\n"
                 "User code traceback:\n",
            PREFIX(c), at ? at->file : "?", at ? at->line : 0, b->reason);
    for (int32_t i = 0; i < b->n_tb; i++)
        fprintf(out, "  File \"%s\", line %d, in %s\n    %s\n", b->tb[i].file, b->tb[i].line, b->tb[i].func,
                b->tb[i].code ? b->tb[i].code : "");
}

void rp_print_skip(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__graph_breaks] Skipping frame %s %s:%d: %s\n", PREFIX(c), c->qualname, c->file,
            c->firstline, c->skip_reason);
}

void rp_print_recompile(const RpCompile *c, FILE *out) {
    fprintf(out, PREFIX_FMT " [__recompiles] Recompiling function %s in %s:%d\n    triggered by the following guard failure(s):\n"
                 "    - %d/%d: %s\n",
            PREFIX(c), c->name, c->file, c->firstline, c->frame_id, c->replaces, c->recompile_reason);
}

void rp_print_cache_limit(const RpCompile *c, FILE *out) {
    fprintf(out, "torch._dynamo hit config.cache_size_limit (%d)\n   function: '%s' (%s:%d)\n   last reason: %d/%d: %s\n"
                 "To log all recompilation reasons, use EMBER_LOGS=\"recompiles\".\n",
            c->cache_limit_n, c->name, c->file, c->firstline, c->frame_id, c->replaces, c->recompile_reason);
}

void rp_print_plan(const char *graph, const RpRun *r, FILE *out) {
    fprintf(out, "[__plan] %s (%s run):\n%s\n", graph, r->kind, r->plan ? r->plan : "?");
}

void rp_print_memory(const char *graph, const RpRun *r, FILE *out) {
    fprintf(out, "[__memory] %s: %s run, arena peak %zu bytes%s%s%s\n", graph, r->kind, r->peak, r->why ? " (" : "",
            r->why ? r->why : "", r->why ? ")" : "");
}

void rp_print_note(const char *graph, const char *note, FILE *out) { fprintf(out, "[__memory] %s: %s\n", graph, note); }
