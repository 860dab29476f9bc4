/* src/report/html_compile.c — one compile attempt on one page: the function's source with the
 * traced lines marked, the original and residual bytecode side by side (residual instructions
 * tagged with the side effect they replay), then the side-effects table (each row linked to its
 * source line and to its residual instructions), guards, hooks, graph breaks with their user
 * traceback, the graph, the compiled backward, the decompiled residual code, the runtime's plans
 * and memory, and for a recompile the diff against the compile it replaces.
 *
 * Anchors: source line N is #sN, original instruction I #oI, residual instruction I #rI,
 * side-effect row K #eK, guard K #gK.  Elements with data-links="id id" highlight those ids on
 * hover (assets/report.js); every link also works as a plain anchor. */
#include <stdlib.h>
#include <string.h>

#include "src/report/diff.h"
#include "src/report/html.h"

static void section_begin(FILE *f, const char *id, const char *title, const char *extra_class) {
    fprintf(f, "<section id=\"%s\" class=\"card%s%s\">\n<h2>%s</h2>\n", id, extra_class ? " " : "",
            extra_class ? extra_class : "", title);
}

static void section_end(FILE *f) { fputs("</section>\n", f); }

static void empty(FILE *f, const char *what) { fprintf(f, "<p class=\"empty\">%s</p>\n", what); }

/* a link to source line `line` of the compile's function, or the bare number when it is not shown */
static void line_link(FILE *f, const RpCompile *c, int32_t line) {
    if (line <= 0) fputs("-", f);
    else if (line <= c->n_source)
        fprintf(f, "<a class=\"lineref\" href=\"#s%d\" data-links=\"s%d\">%d</a>", line, line, line);
    else fprintf(f, "%d", line);
}

/* ---- header ------------------------------------------------------------------------------------------ */

static void write_header(FILE *f, const RpLog *log, int32_t k) {
    const RpCompile *c = log->compiles[k];
    char id[32];
    html_compile_id(id, sizeof id, c);
    fputs("<div class=\"head\">\n<h1><span class=\"cid\">", f);
    fputs(id, f);
    fputs("</span> ", f);
    html_esc(f, c->qualname);
    fputs(" <span class=\"path\">", f);
    html_esc(f, c->file);
    fprintf(f, ":%d</span></h1>\n<ul class=\"stats\">", c->firstline);
    fprintf(f, "<li><span class=\"pill %s\">%s</span></li>", c->compiled ? "good" : "warn", html_status(c));
    fprintf(f, "<li><b>%d</b> graph%s</li><li><b>%d</b> ops</li><li><b>%d</b> breaks</li>", c->graph_name != NULL,
            c->graph_name ? "" : "s", c->n_ops, c->n_breaks);
    fprintf(f, "<li><b>%d</b> guards</li><li><b>%d</b> side effects</li><li><b>%.2f</b> ms</li></ul>\n", c->n_guards,
            c->n_effects, c->ms);
    fputs("<nav class=\"pager\">", f);
    char file[64];
    if (k > 0) {
        html_compile_file(file, sizeof file, k - 1);
        fprintf(f, "<a href=\"%s\">&larr; previous</a>", file);
    }
    fputs("<a href=\"index.html\">all compiles</a>", f);
    if (k + 1 < log->n_compiles) {
        html_compile_file(file, sizeof file, k + 1);
        fprintf(f, "<a href=\"%s\">next &rarr;</a>", file);
    }
    fputs("</nav>\n</div>\n", f);
    if (c->skip_reason) {
        /* the banner says it already: a reason's own "(the frame runs eagerly)" is not repeated */
        static const char said[] = " (the frame runs eagerly)";
        size_t n = strlen(c->skip_reason), s = sizeof said - 1;
        char *reason = strdup(c->skip_reason);
        if (reason && n > s && strcmp(reason + n - s, said) == 0) reason[n - s] = 0;
        fputs("<p class=\"banner warn\">The frame runs eagerly: ", f);
        html_esc(f, reason ? reason : c->skip_reason);
        fputs("</p>\n", f);
        free(reason);
    }
    if (c->recompile_reason) {
        fprintf(f, "<p class=\"banner\">%s <b>%d/%d</b> failed: <code>", c->cache_limit ? "No recompile (cache limit): the guard of" : "Recompile: the guard of", c->frame_id, c->replaces);
        html_esc(f, c->recompile_reason);
        fputs("</code> &middot; <a href=\"#recompile\">diff against it</a></p>\n", f);
    }
    fputs("<nav class=\"sections\"><a href=\"#source\">source</a><a href=\"#original\">bytecode</a>"
          "<a href=\"#effects\">side effects</a><a href=\"#guards\">guards</a><a href=\"#hooks\">hooks</a>"
          "<a href=\"#breaks\">graph breaks</a><a href=\"#graph\">graph</a><a href=\"#backward\">backward</a>"
          "<a href=\"#decompiled\">decompiled</a><a href=\"#runtime\">runtime</a><a href=\"#modtracker\">ModTracker</a>",
          f);
    if (c->recompile_reason) fputs("<a href=\"#recompile\">recompile diff</a>", f);
    fputs("</nav>\n", f);
}

/* ---- source and bytecode -------------------------------------------------------------------------- */

static void write_source(FILE *f, const RpCompile *c) {
    fprintf(f, "<div id=\"source\" class=\"pane\" data-first=\"s%d\">\n", c->firstline);
    fputs("<h2>Source <span class=\"legend\"><i class=\"m-traced\"></i>traced "
          "<i class=\"m-ops\"></i>ops <i class=\"m-effect\"></i>effect <i class=\"m-break\"></i>break</span></h2>\n"
          "<div class=\"scroll\">\n",
          f);
    if (!c->n_source) empty(f, "The source file could not be read.");
    for (int32_t i = 0; i < c->n_source; i++) {
        int32_t line = i + 1;
        uint8_t m = c->marks[i];
        fprintf(f, "<div class=\"src%s%s%s%s%s\" id=\"s%d\"><a class=\"no\" href=\"#s%d\">%d</a><code>",
                m & RP_MARK_FUNC ? " m-func" : "", m & RP_MARK_TRACED ? " m-traced" : "", m & RP_MARK_OPS ? " m-ops" : "",
                m & RP_MARK_EFFECT ? " m-effect" : "", m & RP_MARK_BREAK ? " m-break" : "", line, line, line);
        html_esc(f, c->source[i]);
        fputs("</code></div>\n", f);
    }
    fputs("</div>\n</div>\n", f);
}

static const char *phase_abbrev(RpPhase p) {
    switch (p) {
    case RP_PHASE_PROLOGUE: return "pro";
    case RP_PHASE_GRAPH_CALL: return "graph";
    case RP_PHASE_TEMPS: return "tmp";
    case RP_PHASE_STATE: return "state";
    case RP_PHASE_GRAD_MODE: return "grad";
    case RP_PHASE_BREAK: return "break";
    case RP_PHASE_RESUME: return "resume";
    case RP_PHASE_RETURN: return "ret";
    default: return "";
    }
}

static void write_dis(FILE *f, const RpCompile *c, const RpDis *d, char prefix, bool residual) {
    for (int32_t i = 0; i < d->n; i++) {
        const RpInstr *r = &d->rows[i];
        fprintf(f, "<div class=\"ins%s%s", r->gap ? " gap" : "", !residual && r->index == c->break_index ? " brk" : "");
        if (residual && r->phase == RP_PHASE_EFFECT && r->effect >= 0) fprintf(f, " fx c%d", html_color(r->effect));
        fputs("\"", f);
        if (r->index >= 0) fprintf(f, " id=\"%c%d\"", prefix, r->index);
        if (r->line > 0 && r->line <= c->n_source)
            fprintf(f, " data-links=\"s%d\"", r->line);
        fputs(">", f);
        if (residual) {
            /* each group (a phase, or one side effect) is labelled where it starts */
            const RpInstr *prev = i > 0 ? &d->rows[i - 1] : NULL;
            bool starts = r->index >= 0 && (!prev || prev->index < 0 || prev->phase != r->phase || prev->effect != r->effect);
            if (r->phase == RP_PHASE_EFFECT && r->effect >= 0)
                fprintf(f, "<a class=\"tag c%d%s\" href=\"#e%d\" title=\"replays side effect SE%d\">%s%d</a>",
                        html_color(r->effect), starts ? "" : " cont", r->effect, r->effect, starts ? "SE" : "&middot;",
                        r->effect);
            else if (starts)
                fprintf(f, "<span class=\"tag ph\" title=\"%s\">%s</span>", rp_phase_name(r->phase), phase_abbrev(r->phase));
            else fputs("<span class=\"tag\"></span>", f);
        }
        fputs("<code>", f);
        html_esc(f, r->text);
        fputs("</code></div>\n", f);
    }
}

static void write_bytecode(FILE *f, const RpCompile *c) {
    fputs("<div class=\"pane\" id=\"original\">\n<h2>Original bytecode <span class=\"legend\"><i class=\"m-break\">"
          "</i>graph break</span></h2>\n"
          "<div class=\"scroll dis\">\n",
          f);
    if (!c->original.n) empty(f, "Not recorded.");
    write_dis(f, c, &c->original, 'o', false);
    fputs("</div>\n</div>\n<div class=\"pane\" id=\"residual\">\n<h2>Residual bytecode <span class=\"legend\">"
          "tagged by the side effect each instruction replays</span></h2>\n<div class=\"scroll dis\">\n",
          f);
    if (!c->residual.n) empty(f, c->compiled ? "Not recorded." : "No residual code: the frame runs its own bytecode.");
    write_dis(f, c, &c->residual, 'r', true);
    fputs("</div>\n</div>\n", f);
}

/* ---- tables --------------------------------------------------------------------------------------- */

static void write_effects(FILE *f, const RpCompile *c) {
    section_begin(f, "effects", "Side effects", "wide");
    if (!c->n_effects) {
        empty(f, "None: the region changed nothing outside the graph.");
        section_end(f);
        return;
    }
    fputs("<table class=\"grid\">\n<thead><tr><th>#</th><th>object</th><th>kind</th><th>attr / key</th><th>new value</th>"
          "<th>line</th><th>replayed by (residual instructions)</th></tr></thead>\n<tbody>\n",
          f);
    for (int32_t k = 0; k < c->n_effects; k++) {
        const RpEffect *e = &c->effects[k];
        fprintf(f, "<tr id=\"e%d\" data-links=\"", k);
        bool first = true;
        for (int32_t i = 0; i < c->residual.n; i++)
            if (c->residual.rows[i].effect == k && c->residual.rows[i].index >= 0) {
                fprintf(f, "%sr%d", first ? "" : " ", c->residual.rows[i].index);
                first = false;
            }
        if (e->line > 0 && c->n_source) fprintf(f, "%ss%d", first ? "" : " ", e->line);
        fprintf(f, "\"><td><span class=\"tag c%d\">SE%d</span></td><td><code>", html_color(k), k);
        html_esc(f, e->object);
        fputs("</code></td><td>", f);
        html_esc(f, e->kind);
        fputs("</td><td><code>", f);
        html_esc(f, e->attr);
        fputs("</code></td><td><code>", f);
        html_esc(f, e->value);
        fputs("</code></td><td>", f);
        line_link(f, c, e->line);
        fputs("</td><td class=\"replay\">", f);
        if (e->replay) {
            fputs("<span class=\"how\">", f);
            html_esc(f, e->replay);
            fputs("</span> ", f);
        }
        int n = 0;
        for (int32_t i = 0; i < c->residual.n; i++) {
            const RpInstr *r = &c->residual.rows[i];
            if (r->effect != k || r->index < 0) continue;
            /* the opname is the first word after the offset column */
            const char *t = r->text;
            while (*t == ' ' || (*t >= '0' && *t <= '9') || *t == '>') t++;
            size_t len = strcspn(t, " ");
            fprintf(f, "<a class=\"ref\" href=\"#r%d\" data-links=\"r%d\">@%d&nbsp;", r->index, r->index, 2 * r->index);
            html_esc_n(f, t, len);
            fputs("</a> ", f);
            n++;
        }
        if (!n) fputs("<span class=\"empty\">no instruction (nothing to replay)</span>", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    section_end(f);
}

static void write_guards(FILE *f, const RpCompile *c) {
    section_begin(f, "guards", "Guards", "wide");
    if (!c->n_guards) empty(f, c->compiled ? "Not recorded." : "No compiled entry, no guards.");
    else
        fputs("<table class=\"grid\">\n<thead><tr><th>#</th><th>guard</th><th>line</th><th>user code</th></tr></thead>\n<tbody>\n",
              f);
    for (int32_t k = 0; k < c->n_guards; k++) {
        const RpGuard *g = &c->guards[k];
        const char *colon = strstr(g->text, ": ");
        fprintf(f, "<tr id=\"g%d\"><td class=\"num\">%d</td><td><code>", k, k);
        if (colon) {
            fputs("<b>", f);
            html_esc_n(f, g->text, (size_t)(colon - g->text));
            fputs("</b>", f);
            html_esc(f, colon);
        } else {
            html_esc(f, g->text);
        }
        fputs("</code></td><td>", f);
        line_link(f, c, g->line);
        fputs("</td><td><code>", f);
        html_esc(f, g->code);
        fputs("</code></td></tr>\n", f);
    }
    if (c->n_guards) fputs("</tbody>\n</table>\n", f);
    section_end(f);
}

/* Lines of the runtime's plans that call a hook inside the compiled backward. */
static void write_backward_hook_calls(FILE *f, const RpCompile *c) {
    for (int32_t i = 0; i < c->n_runs; i++) {
        const char *p = c->runs[i].plan, *bw = p ? strstr(p, "backward program:\n") : NULL;
        for (const char *l = bw; l && *l;) {
            const char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            const char *hit = strstr(l, "call_hook");
            if (hit && hit < l + len) {
                fputs("<li>called by the compiled backward (", f);
                html_esc(f, c->runs[i].kind);
                fputs(" run) at <code>", f);
                html_esc_n(f, l, len);
                fputs("</code></li>\n", f);
            }
            l = nl ? nl + 1 : NULL;
        }
    }
}

static void write_hooks(FILE *f, const RpCompile *c) {
    section_begin(f, "hooks", "Hooks", NULL);
    if (!c->n_hooks) empty(f, "No hook was registered in the region.");
    else
        fputs("<table class=\"grid\">\n<thead><tr><th>hook</th><th>on</th><th>callable</th><th>line</th><th>what the compiled "
              "code does</th></tr></thead>\n<tbody>\n",
              f);
    for (int32_t k = 0; k < c->n_hooks; k++) {
        const RpHook *h = &c->hooks[k];
        fputs("<tr><td>", f);
        html_esc(f, h->what);
        fputs("</td><td><code>", f);
        html_esc(f, h->target);
        fputs("</code></td><td><code>", f);
        html_esc(f, h->callable);
        fputs("</code></td><td>", f);
        line_link(f, c, h->line);
        fputs("</td><td>", f);
        html_esc(f, h->how);
        fputs("</td></tr>\n", f);
    }
    if (c->n_hooks) fputs("</tbody>\n</table>\n", f);
    fputs("<ul class=\"calls\">\n", f);
    write_backward_hook_calls(f, c);
    fputs("</ul>\n", f);
    section_end(f);
}

static void write_breaks(FILE *f, const RpCompile *c) {
    section_begin(f, "breaks", "Graph breaks", "wide");
    if (!c->n_breaks) empty(f, "No graph break.");
    for (int32_t k = 0; k < c->n_breaks; k++) {
        const RpBreak *b = &c->breaks[k];
        fprintf(f, "<div class=\"break\" id=\"b%d\"><p class=\"reason\">", k);
        html_esc(f, b->reason);
        fputs("</p>\n<ol class=\"tb\">\n", f);
        for (int32_t i = 0; i < b->n_tb; i++) {
            const RpFrame *fr = &b->tb[i];
            fputs("<li>File <span class=\"path\">", f);
            html_esc(f, fr->file);
            fputs("</span>, line ", f);
            if (c->file && fr->file && strcmp(fr->file, c->file) == 0) line_link(f, c, fr->line);
            else fprintf(f, "%d", fr->line);
            fputs(", in <code>", f);
            html_esc(f, fr->func);
            fputs("</code><pre>", f);
            html_esc(f, fr->code);
            fputs("</pre></li>\n", f);
        }
        fputs("</ol></div>\n", f);
    }
    section_end(f);
}

/* ---- code blocks -------------------------------------------------------------------------------------- */

static void pre(FILE *f, const char *text, const char *cls) {
    fprintf(f, "<pre class=\"%s\">", cls);
    html_esc(f, text);
    fputs("</pre>\n", f);
}

/* The runtime's plan text is a sequence of blocks under column-0 headers ("backward graph:"). */
static const char *const plan_headers[] = {"primitive graph:", "inference program:", "forward program:",
                                           "backward graph:", "backward program:"};

static bool is_plan_header(const char *l, size_t len) {
    for (size_t i = 0; i < sizeof plan_headers / sizeof *plan_headers; i++)
        if (strlen(plan_headers[i]) == len && strncmp(l, plan_headers[i], len) == 0) return true;
    return strncmp(l, "training variant", 16) == 0 && len >= 16;
}

static int plan_block(FILE *f, const char *title, size_t title_len, const char *body, size_t body_len, const char *only) {
    if (only && (!title || strlen(only) != title_len || strncmp(title, only, title_len) != 0)) return 0;
    if (!only && !title) {
        fputs("<p class=\"sub\"><code>", f);
        html_esc_n(f, body, body_len);
        fputs("</code></p>\n", f);
        return 1;
    }
    if (only) {
        fputs("<div class=\"plan\"><pre class=\"code\">", f);
    } else {
        fputs("<details open><summary>", f);
        if (title) html_esc_n(f, title, title_len);
        else fputs("plan", f);
        fputs("</summary><pre class=\"code\">", f);
    }
    html_esc_n(f, body, body_len);
    fputs(only ? "</pre></div>\n" : "</pre></details>\n", f);
    return 1;
}

/* Write the plan's blocks, as collapsible parts; only the one titled `only` when it is set. */
static int write_plan_blocks(FILE *f, const char *plan, const char *only) {
    int found = 0;
    const char *title = NULL, *body = plan, *l = plan;
    size_t title_len = 0;
    for (;;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        bool at_end = *l == 0;
        if (at_end || is_plan_header(l, len)) {
            if (l > body) found += plan_block(f, title, title_len, body, (size_t)(l - body), only);
            if (at_end) break;
            title = l;
            title_len = len;
            body = nl ? nl + 1 : l + len;
        }
        l = nl ? nl + 1 : l + len;
    }
    return found;
}

static void write_graph(FILE *f, const RpCompile *c) {
    section_begin(f, "graph", c->graph_name ? "Graph" : "Graph (none)", "wide");
    if (c->graph_code) {
        fputs("<p class=\"sub\"><code>", f);
        html_esc(f, c->graph_name);
        fprintf(f, "</code>, %d ops</p>\n", c->n_ops);
        pre(f, c->graph_code, "code");
    } else {
        empty(f, c->compiled ? "The residual code calls no graph." : "No graph: the frame runs eagerly.");
    }
    section_end(f);
}

static void write_backward(FILE *f, const RpCompile *c) {
    section_begin(f, "backward", "Compiled backward", "wide");
    int found = 0;
    for (int32_t i = 0; i < c->n_runs && !found; i++)
        if (c->runs[i].plan) found = write_plan_blocks(f, c->runs[i].plan, "backward graph:");
    if (!found)
        empty(f, c->graph_name ? "No compiled backward ran (the graph ran for inference, or on a backend without one)."
                               : "No graph.");
    section_end(f);
}

static void write_decompiled(FILE *f, const RpCompile *c) {
    section_begin(f, "decompiled", "Decompiled residual code", NULL);
    if (c->decompiled) pre(f, c->decompiled, "code");
    else empty(f, "No residual code.");
    section_end(f);
}

static void write_runtime(FILE *f, const RpCompile *c) {
    section_begin(f, "runtime", "Runtime plan and memory", "wide");
    if (!c->n_runs && !c->n_notes)
        empty(f, c->graph_name ? "The graph did not run on the ember backend's runtime (no plan, no arena)." : "No graph.");
    for (int32_t i = 0; i < c->n_notes; i++) {
        fputs("<p class=\"banner\">", f);
        html_esc(f, c->notes[i]);
        fputs("</p>\n", f);
    }
    for (int32_t i = 0; i < c->n_runs; i++) {
        const RpRun *r = &c->runs[i];
        fputs("<h3>", f);
        html_esc(f, r->kind);
        fprintf(f, " run <span class=\"pill\">arena peak %zu bytes</span></h3>\n", r->peak);
        if (r->why) {
            fputs("<p class=\"banner warn\">", f);
            html_esc(f, r->why);
            fputs("</p>\n", f);
        }
        if (r->plan) write_plan_blocks(f, r->plan, NULL);
    }
    section_end(f);
}

/* The sequence a ModTracker saw during the run (module entries and exits, forward and backward). */
static void write_modtracker(FILE *f, const RpLog *log) {
    section_begin(f, "modtracker", "ModTracker", "wide");
    if (!log->n_mod_events) {
        empty(f, "No ModTracker ran.");
        section_end(f);
        return;
    }
    enum { SHOWN = 120 };
    fprintf(f, "<p class=\"sub\">%d events in the run", log->n_mod_events);
    if (log->n_mod_events > SHOWN) fprintf(f, "; the first %d here, all in the <a href=\"index.html#modtracker\">index</a>", SHOWN);
    fputs("</p>\n<table class=\"grid\">\n<thead><tr><th>#</th><th>event</th><th>module</th><th>parents</th></tr></thead>\n<tbody>\n", f);
    for (int32_t i = 0; i < log->n_mod_events && i < SHOWN; i++) {
        const RpModEvent *e = &log->mod_events[i];
        fprintf(f, "<tr><td class=\"num\">%d</td><td>", i);
        html_esc(f, e->event);
        /* indented by depth: the parents other than "Global" */
        int depth = 0;
        for (const char *p = e->parents; *p; p++) depth += *p == ',';
        fprintf(f, "</td><td><code>%*s", 2 * depth, "");
        html_esc(f, e->module);
        fputs("</code></td><td class=\"why\">", f);
        html_esc(f, e->parents);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    section_end(f);
}

/* ---- the recompile diff ----------------------------------------------------------------------------- */

static char *join_guards(const RpCompile *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    for (int32_t i = 0; i < c->n_guards; i++) fprintf(m, "%s\n", c->guards[i].text);
    fclose(m);
    return buf;
}

static char *join_dis(const RpDis *d) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    for (int32_t i = 0; i < d->n; i++) fprintf(m, "%s\n", d->rows[i].text);
    fclose(m);
    return buf;
}

static void write_diff(FILE *f, const char *title, const char *old_text, const char *new_text) {
    RpDiff d = rp_diff_lines(old_text, new_text);
    fprintf(f, "<details%s><summary>%s: %d line%s changed</summary>\n<pre class=\"diff\">", d.changed ? " open" : "", title,
            d.changed, d.changed == 1 ? "" : "s");
    for (int32_t i = 0; i < d.n; i++) {
        const char *cls = d.lines[i].op == '+' ? "add" : d.lines[i].op == '-' ? "del" : "ctx";
        fprintf(f, "<span class=\"%s\">%c ", cls, d.lines[i].op);
        html_esc(f, d.lines[i].text);
        fputs("</span>", f);   /* a block each: no newline between them */
    }
    fputs("</pre></details>\n", f);
    rp_diff_free(&d);
}

static void write_recompile(FILE *f, const RpLog *log, const RpCompile *c) {
    if (!c->recompile_reason) return;
    section_begin(f, "recompile", "Recompile: against the compile it replaces", "wide");
    const RpCompile *old = rp_log_find((RpLog *)log, c->frame_id, c->replaces);
    fprintf(f, "<p>The cached entry <b>%d/%d</b> failed its guard: <code class=\"bad\">", c->frame_id, c->replaces);
    html_esc(f, c->recompile_reason);
    fputs("</code>", f);
    if (old)
        for (int32_t i = 0; i < log->n_compiles; i++)
            if (log->compiles[i] == old) {
                char file[64];
                html_compile_file(file, sizeof file, i);
                fprintf(f, " &middot; <a href=\"%s\">open %d/%d</a>", file, old->frame_id, old->compile_id);
            }
    fputs("</p>\n", f);
    if (!old || c->cache_limit) {
        if (!old) empty(f, "The replaced compile was not recorded.");
        section_end(f);
        return;
    }
    char *og = join_guards(old), *ng = join_guards(c);
    write_diff(f, "Guards", og, ng);
    free(og), free(ng);
    write_diff(f, "Graph", old->graph_code, c->graph_code);
    char *od = join_dis(&old->residual), *nd = join_dis(&c->residual);
    write_diff(f, "Residual bytecode", od, nd);
    free(od), free(nd);
    section_end(f);
}

/* ---- the page ------------------------------------------------------------------------------------------ */

void html_write_compile(FILE *f, const RpLog *log, int32_t k) {
    const RpCompile *c = log->compiles[k];
    char title[256], id[32];
    html_compile_id(id, sizeof id, c);
    snprintf(title, sizeof title, "%s %s — Ember compile report", id, c->qualname ? c->qualname : "?");
    html_page_begin(f, title, NULL);
    fputs("<main class=\"compile\">\n", f);
    write_header(f, log, k);
    fputs("<div class=\"trio\">\n", f);
    write_source(f, c);
    write_bytecode(f, c);
    fputs("</div>\n<div class=\"cards\">\n", f);
    /* wide cards span the row; the half-width ones pair up (grid-auto-flow: dense) */
    write_recompile(f, log, c);
    write_effects(f, c);
    write_decompiled(f, c);
    write_hooks(f, c);
    write_breaks(f, c);
    write_guards(f, c);
    write_graph(f, c);
    write_backward(f, c);
    write_runtime(f, c);
    write_modtracker(f, log);
    fputs("</div>\n</main>\n", f);
    html_page_end(f);
}
