/* src/report/html.h — what the report's two HTML files share: escaping, the page frame (head
 * with the inlined CSS and JavaScript, the top bar), link names, and the compile page writer. */
#ifndef EMBER_REPORT_HTML_H
#define EMBER_REPORT_HTML_H

#include <stdio.h>

#include "src/report/record.h"

/* the assets (src/report/assets/), embedded at build time by tools/embed_files.py */
extern const char rp_asset_css[];
extern const char rp_asset_js[];

void html_esc(FILE *f, const char *s);
void html_esc_n(FILE *f, const char *s, size_t n);
/* <!doctype html> ... <body>: the page's title, its style and script inlined, and the top bar */
void html_page_begin(FILE *f, const char *title, const char *crumb_html);
void html_page_end(FILE *f);
/* The file of the k-th record of the log: "compile-K.html". */
void html_compile_file(char *buf, size_t cap, int32_t k);
/* "[frame/compile]" */
void html_compile_id(char *buf, size_t cap, const RpCompile *c);
/* The 8 colours of side-effect groups: class "c0".."c7". */
static inline int html_color(int32_t effect) { return (int)(effect % 8); }
/* A short status of a record: "compiled", "runs eagerly", "cache limit". */
const char *html_status(const RpCompile *c);

/* html_compile.c: the page of the k-th record */
void html_write_compile(FILE *f, const RpLog *log, int32_t k);

#endif
