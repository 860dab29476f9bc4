/* src/common/strbuf.c — the growable string builder (strbuf.h). */
#include "src/common/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *b) { *b = (StrBuf)SB_INIT; }

void sb_free(StrBuf *b) {
    free(b->data);
    sb_init(b);
}

bool sb_reserve(StrBuf *b, size_t extra) {
    if (b->failed) return false;
    if (extra < b->cap && b->len + extra + 1 <= b->cap) return true;
    if (extra > ((size_t)-1 >> 2) - b->len) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 32;
    while (cap < b->len + extra + 1) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void sb_add(StrBuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_adds(StrBuf *b, const char *s) { sb_add(b, s, strlen(s)); }

void sb_addc(StrBuf *b, char c) {
    if (!sb_reserve(b, 1)) return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void sb_repeat(StrBuf *b, char c, size_t n) {
    if (!sb_reserve(b, n)) return;
    memset(b->data + b->len, c, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0 || !sb_reserve(b, (size_t)n)) return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

char *sb_take(StrBuf *b) {
    if (b->failed) {
        sb_free(b);
        return NULL;
    }
    char *s = b->data ? b->data : calloc(1, 1);
    sb_init(b);
    return s;
}
