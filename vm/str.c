/* vm/str.c — str and bytes objects: allocation, UTF-8 helpers, interning, hashing (numeric
 * hashes follow CPython's algorithms exactly), repr, and the StrBuf-to-str conversions (the builder is src/common/strbuf.c). */
#include "vm/str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/unicode.h"

/* ---- UTF-8 ---------------------------------------------------------------------------- */

int64_t utf8_count(const char *s, int64_t len) {
    /* code points = bytes - continuation bytes (10xxxxxx), eight bytes at a time: a byte is a
     * continuation byte when its bit 7 is set and bit 6 clear */
    int64_t cont = 0, i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        cont += (int64_t)((((w & ~(w << 1) & 0x8080808080808080ULL) >> 7) * 0x0101010101010101ULL) >> 56);
    }
    for (; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) == 0x80) cont++;
    return len - cont;
}

uint32_t utf8_decode(const char *s, int64_t len, int64_t *pos) {
    const unsigned char *u = (const unsigned char *)s;
    int64_t i = *pos;
    uint32_t c = u[i];
    int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (extra) c &= (0x3F >> extra);
    i++;
    for (int k = 0; k < extra && i < len; k++, i++) c = (c << 6) | (u[i] & 0x3F);
    *pos = i;
    return c;
}

int utf8_encode(uint32_t cp, char *out) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int64_t str_byte_offset(const StrObj *s, int64_t i) {
    if (str_is_ascii(s)) return i;
    int64_t pos = 0, cp = 0;
    while (cp < i && pos < s->len) {
        pos++;
        while (pos < s->len && ((unsigned char)s->data[pos] & 0xC0) == 0x80) pos++;
        cp++;
    }
    return pos;
}

/* ---- allocation ----------------------------------------------------------------------- */

StrObj *str_new(VM *vm, const char *s, int64_t len) {
    if (len == 0 && vm->empty_str) return vm->empty_str;
    if (len == 1 && vm->s_cache[(unsigned char)s[0]]) return vm->s_cache[(unsigned char)s[0]];
    StrObj *o = gc_alloc(vm, vm->t_str, sizeof(StrObj) + (size_t)len + 1);
    if (!o) return NULL;
    o->len = len;
    memcpy(o->data, s, (size_t)len);
    o->data[len] = 0;
    o->ncp = utf8_count(s, len);
    o->hash = -1;
    return o;
}

StrObj *str_from_c(VM *vm, const char *s) { return str_new(vm, s, (int64_t)strlen(s)); }

StrObj *str_vprintf(VM *vm, const char *fmt, va_list ap) {
    StrBuf b = SB_INIT;
    sb_vprintf(&b, fmt, ap);
    return sb_finish(vm, &b);
}

StrObj *str_printf(VM *vm, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    StrObj *s = str_vprintf(vm, fmt, ap);
    va_end(ap);
    return s;
}

StrObj *str_concat(VM *vm, StrObj *a, StrObj *b) {
    if (a->len == 0) return b;
    if (b->len == 0) return a;
    vm_push_root(vm, val_obj(a));
    vm_push_root(vm, val_obj(b));
    StrObj *o = gc_alloc(vm, vm->t_str, sizeof(StrObj) + (size_t)(a->len + b->len) + 1);
    vm_pop_roots(vm, 2);
    if (!o) return NULL;
    memcpy(o->data, a->data, (size_t)a->len);
    memcpy(o->data + a->len, b->data, (size_t)b->len);
    o->len = a->len + b->len;
    o->data[o->len] = 0;
    o->ncp = a->ncp + b->ncp;
    o->hash = -1;
    return o;
}

StrObj *str_substr_cp(VM *vm, StrObj *s, int64_t start, int64_t end) {
    if (start <= 0 && end >= s->ncp) return s;
    if (end <= start) return vm->empty_str;
    int64_t b0, b1;
    if (str_is_ascii(s)) {
        b0 = start;
        b1 = end;
    } else {
        b0 = str_byte_offset(s, start);
        b1 = b0;
        for (int64_t k = start; k < end && b1 < s->len; k++) {
            b1++;
            while (b1 < s->len && ((unsigned char)s->data[b1] & 0xC0) == 0x80) b1++;
        }
    }
    vm_push_root(vm, val_obj(s));
    StrObj *r = str_new(vm, s->data + b0, b1 - b0);
    vm_pop_root(vm);
    return r;
}

StrObj *str_char_at(VM *vm, StrObj *s, int64_t i) { return str_substr_cp(vm, s, i, i + 1); }

/* ---- hashing -------------------------------------------------------------------------- */

#define HASH_BITS 61
#define HASH_MODULUS (((uint64_t)1 << HASH_BITS) - 1)

int64_t hash_int(int64_t v) {
    /* CPython: the value modulo 2**61 - 1, keeping the sign; -1 is reserved. */
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t h = a % HASH_MODULUS;
    int64_t r = v < 0 ? -(int64_t)h : (int64_t)h;
    return r == -1 ? -2 : r;
}

int64_t hash_double(double v) {
    if (isinf(v)) return v > 0 ? 314159 : -314159;
    if (isnan(v)) return 0;  /* CPython hashes NaN by identity; values have none here */
    int e;
    double m = frexp(v, &e);
    int sign = 1;
    if (m < 0) { sign = -1; m = -m; }
    uint64_t x = 0;
    while (m) {
        x = ((x << 28) & HASH_MODULUS) | x >> (HASH_BITS - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        x += y;
        if (x >= HASH_MODULUS) x -= HASH_MODULUS;
    }
    e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
    x = ((x << e) & HASH_MODULUS) | x >> (HASH_BITS - e);
    int64_t r = (int64_t)x * sign;
    return r == -1 ? -2 : r;
}

int64_t hash_pointer(const void *p) {
    uint64_t y = (uint64_t)(uintptr_t)p;
    y = (y >> 4) | (y << 60);   /* CPython: rotate by 4, the alignment bits carry no entropy */
    int64_t r = (int64_t)y;
    return r == -1 ? -2 : r;
}

int64_t str_hash(StrObj *s) {
    if (s->hash == -1) s->hash = hash_str_data(s->data, s->len, s->ncp);
    return s->hash;
}

bool str_eq(const StrObj *a, const StrObj *b) {
    if (a == b) return true;
    if (a->len != b->len) return false;
    if (a->hash != -1 && b->hash != -1 && a->hash != b->hash) return false;
    return memcmp(a->data, b->data, (size_t)a->len) == 0;
}

int str_cmp(const StrObj *a, const StrObj *b) {
    int64_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->data, b->data, (size_t)n);
    if (c) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

StrObj *str_new_typed(VM *vm, TypeObj *t, const char *s, int64_t len) {
    if (t == vm->t_str) return str_new(vm, s, len);
    size_t base = t->instance_size > sizeof(StrObj) ? t->instance_size : sizeof(StrObj);
    StrObj *o = gc_alloc(vm, t, base + (size_t)len + 1);
    if (!o) return NULL;
    o->len = len;
    memcpy(o->data, s, (size_t)len);
    o->data[len] = 0;
    o->ncp = utf8_count(s, len);
    o->hash = -1;
    return o;
}

StrObj *str_exact(VM *vm, StrObj *s) {
    return s->hdr.type == vm->t_str ? s : str_new(vm, s->data, s->len);
}

StrObj *str_intern(VM *vm, StrObj *s) {
    if (s->hdr.flags & OBJF_INTERNED) return s;
    Value found = dict_get_str(vm->intern, s);
    if (!val_is_null(found)) return (StrObj *)found.as.o;
    if (s->hdr.type != vm->t_str) {
        /* the canonical instance is a plain str, never a subclass instance */
        s = str_new(vm, s->data, s->len);
        if (!s) return NULL;
    }
    vm_push_root(vm, val_obj(s));
    int rc = dict_set(vm, vm->intern, val_obj(s), val_obj(s));
    vm_pop_root(vm);
    if (rc < 0) return NULL;
    s->hdr.flags |= OBJF_INTERNED;
    return s;
}

/* Interning a C string that is already interned (the common case: attribute and special
 * names) looks it up through a temporary key on the C stack, so it never allocates. */
static StrObj *intern_c(VM *vm, const char *s);

StrObj *vm_intern_str(VM *vm, const char *s) {
    size_t slot = ((uintptr_t)s >> 3 ^ (uintptr_t)s >> 12) & 511;
    if (vm->intern_ckey[slot] == s && strcmp(vm->intern_cval[slot]->data, s) == 0) return vm->intern_cval[slot];
    StrObj *r = intern_c(vm, s);
    if (r) {
        vm->intern_ckey[slot] = s;
        vm->intern_cval[slot] = r;
    }
    return r;
}

static StrObj *intern_c(VM *vm, const char *s) {
    size_t n = strlen(s);
    if (n < 120) {
        _Alignas(StrObj) char buf[sizeof(StrObj) + 121];
        StrObj *key = (StrObj *)buf;
        memset(key, 0, sizeof(StrObj));
        key->hdr.type = vm->t_str;
        key->len = (int64_t)n;
        key->hash = -1;
        memcpy(key->data, s, n + 1);
        Value found = dict_get_str(vm->intern, key);
        if (!val_is_null(found)) return (StrObj *)found.as.o;
    }
    StrObj *o = str_from_c(vm, s);
    return o ? str_intern(vm, o) : NULL;
}

Value vm_intern(VM *vm, const char *s) {
    StrObj *o = vm_intern_str(vm, s);
    return o ? val_obj(o) : val_null();
}

/* ---- repr ----------------------------------------------------------------------------- */


static void repr_body(StrBuf *b, const char *s, int64_t len, char quote, bool is_bytes) {
    int64_t pos = 0;
    while (pos < len) {
        uint32_t c;
        if (is_bytes) c = (unsigned char)s[pos++];
        else c = utf8_decode(s, len, &pos);
        if (c == (uint32_t)quote || c == '\\') {
            sb_addc(b, '\\');
            sb_addc(b, (char)c);
        } else if (c == '\n') sb_adds(b, "\\n");
        else if (c == '\r') sb_adds(b, "\\r");
        else if (c == '\t') sb_adds(b, "\\t");
        else if (c < 0x20 || c == 0x7F || (is_bytes && c >= 0x80)) sb_printf(b, "\\x%02x", c);
        else if (!is_bytes && !uni_is_printable(c)) {
            if (c < 0x100) sb_printf(b, "\\x%02x", c);
            else if (c < 0x10000) sb_printf(b, "\\u%04x", c);
            else sb_printf(b, "\\U%08x", c);
        } else {
            char tmp[4];
            int n = utf8_encode(c, tmp);
            sb_add(b, tmp, n);
        }
    }
}

static char pick_quote(const char *s, int64_t len) {
    bool sq = memchr(s, '\'', (size_t)len) != NULL;
    bool dq = memchr(s, '"', (size_t)len) != NULL;
    return (sq && !dq) ? '"' : '\'';
}

StrObj *str_repr(VM *vm, StrObj *s) {
    StrBuf b;
    sb_init(&b);
    char q = pick_quote(s->data, s->len);
    sb_addc(&b, q);
    repr_body(&b, s->data, s->len, q, false);
    sb_addc(&b, q);
    return sb_finish(vm, &b);
}

BytesObj *bytes_new_typed(VM *vm, TypeObj *t, const uint8_t *data, int64_t len) {
    if (t == vm->t_bytes) return bytes_new(vm, data, len);
    size_t base = t->instance_size > sizeof(BytesObj) ? t->instance_size : sizeof(BytesObj);
    BytesObj *o = gc_alloc(vm, t, base + (size_t)len + 1);
    if (!o) return NULL;
    o->len = len;
    o->hash = -1;
    if (len && data) memcpy(o->data, data, (size_t)len);
    o->data[len] = 0;
    return o;
}

BytesObj *bytes_new(VM *vm, const uint8_t *data, int64_t len) {
    BytesObj *o = gc_alloc(vm, vm->t_bytes, sizeof(BytesObj) + (size_t)len + 1);
    if (!o) return NULL;
    o->len = len;
    o->hash = -1;
    if (len && data) memcpy(o->data, data, (size_t)len);
    o->data[len] = 0;
    return o;
}

StrObj *bytes_repr(VM *vm, BytesObj *bo) {
    StrBuf b;
    sb_init(&b);
    char q = pick_quote((const char *)bo->data, bo->len);
    sb_addc(&b, 'b');
    sb_addc(&b, q);
    repr_body(&b, (const char *)bo->data, bo->len, q, true);
    sb_addc(&b, q);
    return sb_finish(vm, &b);
}

/* ---- StrBuf --------------------------------------------------------------------------- */

void sb_add_str(StrBuf *b, const StrObj *s) { sb_add(b, s->data, (size_t)s->len); }

StrObj *sb_finish(VM *vm, StrBuf *b) {
    if (b->failed) {
        sb_free(b);
        vm_no_memory(vm);
        return NULL;
    }
    StrObj *s = str_new(vm, b->data ? b->data : "", (int64_t)b->len);
    sb_free(b);
    return s;
}
