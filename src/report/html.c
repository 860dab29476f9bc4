/* src/report/html.c — the static HTML report (`ember compile --report DIR`, EMBER_REPORT=DIR):
 * DIR/index.html lists every compile attempt `[frame/compile]` of the run, and DIR/compile-K.html
 * shows one of them on one screen (html_compile.c).  Everything is read from the same records the
 * EMBER_LOGS text is printed from (record.h).  The pages are self-contained: CSS and JavaScript
 * are inlined, nothing is fetched, fonts are the system's; they read without JavaScript, which
 * only adds highlighting of linked rows. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "src/report/html.h"

void html_esc_n(FILE *f, const char *s, size_t n) {
    for (size_t i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[i], f);
        }
    }
}

void html_esc(FILE *f, const char *s) {
    if (s) html_esc_n(f, s, strlen(s));
}

void html_page_begin(FILE *f, const char *title, const char *crumb_html) {
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    html_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n<body>\n", rp_asset_css, rp_asset_js);
    fprintf(f, "<header class=\"top\"><a class=\"brand\" href=\"index.html\">Ember compile report</a>%s</header>\n",
            crumb_html ? crumb_html : "");
}

void html_page_end(FILE *f) { fputs("</body>\n</html>\n", f); }

void html_compile_file(char *buf, size_t cap, int32_t k) { snprintf(buf, cap, "compile-%d.html", k); }

void html_compile_id(char *buf, size_t cap, const RpCompile *c) {
    snprintf(buf, cap, "[%d/%d]", c->frame_id, c->compile_id);
}

const char *html_status(const RpCompile *c) {
    if (c->cache_limit) return "cache limit";
    if (c->compiled) return c->n_breaks ? "compiled, graph break" : "compiled";
    return "runs eagerly";
}

/* ---- the index ---------------------------------------------------------------------------------- */

static void write_index(FILE *f, const RpLog *log) {
    html_page_begin(f, "Ember compile report", NULL);
    int32_t n_graphs = 0, n_ops = 0, n_breaks = 0, n_recompiles = 0, n_frames = 0;
    double ms = 0;
    for (int32_t i = 0; i < log->n_compiles; i++) {
        const RpCompile *c = log->compiles[i];
        n_graphs += c->graph_name != NULL;
        n_ops += c->n_ops;
        n_breaks += c->n_breaks;
        n_recompiles += c->recompile_reason != NULL && !c->cache_limit;
        if (c->frame_id + 1 > n_frames) n_frames = c->frame_id + 1;
        ms += c->ms;
    }
    fputs("<main class=\"index\">\n<section id=\"summary\" class=\"card\">\n<h1>", f);
    html_esc(f, log->script ? log->script : "compile report");
    fputs("</h1>\n", f);
    if (log->command) {
        fputs("<p class=\"cmd\"><code>", f);
        html_esc(f, log->command);
        fputs("</code></p>\n", f);
    }
    fprintf(f,
            "<ul class=\"stats\"><li><b>%d</b> frames</li><li><b>%d</b> compiles</li><li><b>%d</b> graphs</li>"
            "<li><b>%d</b> ops</li><li><b>%d</b> graph breaks</li><li><b>%d</b> recompiles</li>"
            "<li><b>%.1f</b> ms compiling</li></ul>\n</section>\n",
            n_frames, log->n_compiles, n_graphs, n_ops, n_breaks, n_recompiles, ms);
    fputs("<section id=\"compiles\" class=\"card\">\n<h2>Compiles</h2>\n", f);
    if (!log->n_compiles) fputs("<p class=\"empty\">No frame was compiled in this run.</p>\n", f);
    else
        fputs("<table class=\"grid\">\n<thead><tr><th>compile</th><th>function</th><th>file:line</th><th>graphs</th>"
              "<th>ops</th><th>breaks</th><th>recompile: the guard that failed</th><th>status</th><th class=\"num\">ms</th>"
              "</tr></thead>\n<tbody>\n",
              f);
    for (int32_t i = 0; i < log->n_compiles; i++) {
        const RpCompile *c = log->compiles[i];
        char file[64], id[32];
        html_compile_file(file, sizeof file, i);
        html_compile_id(id, sizeof id, c);
        fprintf(f, "<tr class=\"%s\"><td><a href=\"%s\">%s</a></td><td><a href=\"%s\">", c->compiled ? "ok" : "eager",
                file, id, file);
        html_esc(f, c->qualname);
        fputs("</a></td><td class=\"path\">", f);
        html_esc(f, c->file);
        fprintf(f, ":%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"why\">",
                c->firstline, c->graph_name != NULL, c->n_ops, c->n_breaks);
        if (c->recompile_reason) {
            fprintf(f, "<span class=\"pill warn\">%d/%d</span> ", c->frame_id, c->replaces);
            html_esc(f, c->recompile_reason);
        }
        fprintf(f, "</td><td><span class=\"pill %s\">%s</span>", c->compiled ? "good" : "warn", html_status(c));
        if (c->skip_reason) {
            fputs(" <span class=\"why\">", f);
            html_esc(f, c->skip_reason);
            fputs("</span>", f);
        }
        fprintf(f, "</td><td class=\"num\">%.2f</td></tr>\n", c->ms);
    }
    if (log->n_compiles) fputs("</tbody>\n</table>\n", f);
    fputs("</section>\n", f);
    if (log->n_mod_events) {
        fputs("<section id=\"modtracker\" class=\"card\">\n<h2>ModTracker</h2>\n<table class=\"grid\">\n"
              "<thead><tr><th>#</th><th>event</th><th>module</th><th>parents</th></tr></thead>\n<tbody>\n",
              f);
        for (int32_t i = 0; i < log->n_mod_events; i++) {
            const RpModEvent *e = &log->mod_events[i];
            fprintf(f, "<tr id=\"m%d\"><td class=\"num\">%d</td><td>", i, i);
            html_esc(f, e->event);
            fputs("</td><td><code>", f);
            html_esc(f, e->module);
            fputs("</code></td><td><code>", f);
            html_esc(f, e->parents);
            fputs("</code></td></tr>\n", f);
        }
        fputs("</tbody>\n</table>\n</section>\n", f);
    }
    fputs("</main>\n", f);
    html_page_end(f);
}

/* ---- writing ---------------------------------------------------------------------------------------- */

static int mkdirs(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0777) < 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static FILE *open_in(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "w");
}

static int close_checked(FILE *f) {
    bool bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

int rp_write_html(const RpLog *log, const char *dir) {
    if (mkdirs(dir) < 0) return -1;
    FILE *f = open_in(dir, "index.html");
    if (!f) return -1;
    write_index(f, log);
    if (close_checked(f) < 0) return -1;
    for (int32_t i = 0; i < log->n_compiles; i++) {
        char name[64];
        html_compile_file(name, sizeof name, i);
        f = open_in(dir, name);
        if (!f) return -1;
        html_write_compile(f, log, i);
        if (close_checked(f) < 0) return -1;
    }
    return 0;
}
