/* vm/str.h — str and bytes objects: creation, interning, UTF-8 code-point indexing, hashing,
 * and the str-object ends of the string builder.  The str methods are in vm/str_methods.c. */
#ifndef EMBER_VM_STR_H
#define EMBER_VM_STR_H

#include "src/common/strbuf.h"
#include "vm/vm.h"

StrObj *str_new(VM *vm, const char *s, int64_t len);   /* copies; len in bytes */
StrObj *str_from_c(VM *vm, const char *s);
StrObj *str_printf(VM *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
StrObj *str_vprintf(VM *vm, const char *fmt, va_list ap);
StrObj *str_concat(VM *vm, StrObj *a, StrObj *b);
StrObj *str_intern(VM *vm, StrObj *s);   /* the canonical instance (always a plain str) */
/* A new instance of t (str or a str subclass) with a copy of s[0..len). */
StrObj *str_new_typed(VM *vm, TypeObj *t, const char *s, int64_t len);
/* s itself when it is a plain str, else a plain copy (what str methods return). */
StrObj *str_exact(VM *vm, StrObj *s);
int64_t str_hash(StrObj *s);
bool str_eq(const StrObj *a, const StrObj *b);
bool str_is_identifier(const StrObj *s);   /* str.isidentifier() */
int str_cmp(const StrObj *a, const StrObj *b);     /* bytewise = code-point order for UTF-8 */
static inline bool str_eq_c(const StrObj *a, const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return (size_t)a->len == n && __builtin_memcmp(a->data, s, n) == 0;
}
static inline bool str_is_ascii(const StrObj *s) { return s->len == s->ncp; }
/* Byte offset of code point index i (0 <= i <= ncp). */
int64_t str_byte_offset(const StrObj *s, int64_t i);
/* Code point at byte offset *pos, advancing *pos. */
uint32_t utf8_decode(const char *s, int64_t len, int64_t *pos);
int utf8_encode(uint32_t cp, char *out);     /* returns bytes written (1..4) */
int64_t utf8_count(const char *s, int64_t len);
StrObj *str_substr_cp(VM *vm, StrObj *s, int64_t start, int64_t end); /* code-point range */
StrObj *str_char_at(VM *vm, StrObj *s, int64_t i);
StrObj *str_repr(VM *vm, StrObj *s);   /* 'abc' with CPython's quoting and escapes */

BytesObj *bytes_new(VM *vm, const uint8_t *data, int64_t len);
BytesObj *bytes_new_typed(VM *vm, TypeObj *t, const uint8_t *data, int64_t len);
StrObj *bytes_repr(VM *vm, BytesObj *b);

/* CPython-compatible numeric hashes (so set iteration order of numbers matches CPython). */
int64_t hash_int(int64_t v);
int64_t hash_double(double v);
int64_t hash_pointer(const void *p);
/* vm/pyhash.c: CPython's SipHash-1-3 of bytes, and of a str (UTF-8 data, ncp code points) over
 * its CPython representation; keyed as PYTHONHASHSEED says */
int64_t hash_bytes(const void *p, int64_t len);
int64_t hash_str_data(const char *utf8, int64_t len, int64_t ncp);
bool vm_hash_randomized(void);   /* sys.flags.hash_randomization */
void hash_ignore_environment(void);   /* -E / -I: PYTHONHASHSEED is not read; before the first hash */

/* The string builder is src/common/strbuf.h; these join it to str objects. */
void sb_add_str(StrBuf *b, const StrObj *s);
/* The built string (frees the buffer); NULL with MemoryError pending if a growth failed. */
StrObj *sb_finish(VM *vm, StrBuf *b);

void str_init_types(VM *vm);   /* methods of str and bytes */

#endif
