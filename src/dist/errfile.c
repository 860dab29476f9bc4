/* src/dist/errfile.c — torchrun's error files.  A worker started by the launcher finds the path
 * of its error file in TORCHELASTIC_ERROR_FILE; when the script dies of an uncaught exception,
 * the embedding layer writes the traceback there (what torchrun's @record does for a Python
 * entry point), in torchelastic's JSON layout plus a microsecond timestamp.  The launcher reads
 * the files back to name the first rank that failed and to show its traceback. */
#include "src/dist/errfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

void dist_error_file_write(const char *message, const char *callstack) {
    const char *path = getenv("TORCHELASTIC_ERROR_FILE");
    if (!path || !path[0]) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    fputs("{\"message\": {\"message\": ", f);
    put_json_string(f, message);
    fputs(", \"extraInfo\": {\"py_callstack\": ", f);
    put_json_string(f, callstack);
    fprintf(f, ", \"timestamp\": \"%lld\", \"timestamp_us\": \"%lld\"}}}\n", (long long)tv.tv_sec,
            (long long)tv.tv_sec * 1000000 + tv.tv_usec);
    fclose(f);
}

/* The JSON string value after `"key": ` (malloc'd, unescaped), or NULL. */
static char *json_string_at(const char *text, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(text, pat);
    if (!p) return NULL;
    p += strlen(pat);
    char *out = malloc(strlen(p) + 1), *o = out;
    if (!out) return NULL;
    for (; *p && *p != '"'; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'u': {
            unsigned v = 0;
            if (sscanf(p + 1, "%4x", &v) == 1) p += 4;
            *o++ = (char)v;
            break;
        }
        case 0: p--; break;
        default: *o++ = *p;
        }
    }
    *o = 0;
    return out;
}

int dist_error_file_read(const char *path, char **callstack, double *when) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    char buf[4096];
    size_t r;
    while (m && (r = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, r, m);
    fclose(f);
    if (!m) return -1;
    fclose(m);
    *callstack = json_string_at(text, "py_callstack");
    char *us = json_string_at(text, "timestamp_us");
    *when = us ? (double)atoll(us) / 1e6 : 0;
    free(us);
    free(text);
    return *callstack ? 0 : -1;
}
