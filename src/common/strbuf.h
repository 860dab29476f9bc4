/* src/common/strbuf.h — the one growable string builder, shared by every layer: the VM (vm/str.h
 * adds the StrObj conversions), the tensor and graph printers, and the front end's diagnostics,
 * AST dumps and string-literal decoding.  It knows nothing of the VM or of tensors.
 *
 * The bytes live in malloc'd memory, outside any GC heap; data is NUL-terminated whenever it
 * is non-NULL (the content may itself contain NULs: use len).  Out of memory never aborts:
 * the first growth that fails sets `failed`, later additions are dropped, and the owner
 * decides once at the end (sb_take returns NULL; vm's sb_finish raises MemoryError).
 *
 *     StrBuf b = SB_INIT;
 *     sb_printf(&b, "%s:%d: ", file, line);
 *     sb_adds(&b, message);
 *     char *s = sb_take(&b);          // malloc'd; NULL when out of memory
 */
#ifndef EMBER_COMMON_STRBUF_H
#define EMBER_COMMON_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct StrBuf {
    char *data; /* NULL until something is added */
    size_t len, cap;
    bool failed; /* a growth failed: the content is truncated */
} StrBuf;

#define SB_INIT {NULL, 0, 0, false}

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
/* Room for extra more bytes (plus the NUL); false (and failed set) when out of memory. */
bool sb_reserve(StrBuf *b, size_t extra);
void sb_add(StrBuf *b, const char *s, size_t n);
void sb_adds(StrBuf *b, const char *s);
void sb_addc(StrBuf *b, char c);
void sb_repeat(StrBuf *b, char c, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
/* The content as a malloc'd NUL-terminated string ("" when empty), leaving b empty; NULL when
 * a growth failed (the buffer is freed). */
char *sb_take(StrBuf *b);

#endif
