/* vm/pyhash.c — CPython 3.11's hash of str, bytes and memoryview (Python/pyhash.c): SipHash-1-3
 * keyed by the hash secret, over the object's canonical bytes (a str's code points in its
 * narrowest CPython representation: one byte each below U+0100, two below U+10000, else four,
 * native byte order), 0 for an empty one, -1 made -2.  So a set or dict of strings iterates in
 * CPython's order.
 *
 * The secret comes from PYTHONHASHSEED as CPython derives it: unset or 0, all zeros (CPython's
 * PYTHONHASHSEED=0, its only deterministic setting, so `PYTHONHASHSEED=0 python3 x.py` and
 * `ember x.py` print sets of strings in the same order); N in [1, 4294967295], CPython's
 * lcg_urandom(N) bytes; "random", the system's random bytes (CPython's default, whose orders no
 * program can depend on).  Anything else is CPython's fatal error.  Under -E or -I the variable is
 * not read, as CPython ignores every PYTHON* variable then (hash_ignore_environment), so the key
 * is the unset one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "vm/str.h"

static uint64_t secret_k0, secret_k1;
static bool secret_ready, secret_randomized, secret_ignore_env;

void hash_ignore_environment(void) { secret_ignore_env = true; }

static void secret_init(void) {
    unsigned char s[24] = {0};
    const char *env = secret_ignore_env ? NULL : getenv("PYTHONHASHSEED");
    if (env && *env && strcmp(env, "random") == 0) {
        size_t got = 0;
        while (got < sizeof s) {
            ssize_t r = getrandom(s + got, sizeof s - got, 0);
            if (r <= 0) break;
            got += (size_t)r;
        }
        secret_randomized = true;
    } else if (env && *env) {
        char *end;
        unsigned long long seed = strtoull(env, &end, 10);
        if (*end || env[0] == '-' || seed > 4294967295ULL) {
            fprintf(stderr, "Fatal Python error: config_init_hash_seed: PYTHONHASHSEED must be \"random\" or an "
                            "integer in range [0; 4294967295]\nPython runtime state: preinitialized\n\n");
            exit(1);
        }
        if (seed) {   /* CPython's lcg_urandom */
            uint32_t x = (uint32_t)seed;
            for (size_t i = 0; i < sizeof s; i++) {
                x = x * 214013u + 2531011u;
                s[i] = (unsigned char)((x >> 16) & 0xff);
            }
            secret_randomized = true;
        }
    }
    memcpy(&secret_k0, s, 8);
    memcpy(&secret_k1, s + 8, 8);
    secret_ready = true;
}

bool vm_hash_randomized(void) {
    if (!secret_ready) secret_init();
    return secret_randomized;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3)                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = ROTL(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = ROTL(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = ROTL(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = ROTL(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = ROTL(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = ROTL(v2, 32);                                                                         \
    } while (0)

/* SipHash-1-3 (one compression round per 8-byte word, three finalisation rounds), as a stream:
 * a str is hashed over its CPython representation, which Ember does not store, so its code units
 * are fed in as they are decoded (no buffer: a buffer that could not be allocated would have
 * needed a fallback hash, and two equal strings must never hash differently). */
typedef struct SipStream {
    uint64_t v0, v1, v2, v3;
    uint64_t tail;    /* the bytes of the word being filled, little-endian */
    size_t len;       /* bytes fed so far */
} SipStream;

static void sip_init(SipStream *s) {
    s->v0 = secret_k0 ^ 0x736f6d6570736575ULL;
    s->v1 = secret_k1 ^ 0x646f72616e646f6dULL;
    s->v2 = secret_k0 ^ 0x6c7967656e657261ULL;
    s->v3 = secret_k1 ^ 0x7465646279746573ULL;
    s->tail = 0;
    s->len = 0;
}

static inline void sip_word(SipStream *s, uint64_t m) {
    s->v3 ^= m;
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    s->v0 ^= m;
}

static inline void sip_byte(SipStream *s, unsigned char c) {
    s->tail |= (uint64_t)c << (8 * (s->len & 7));
    if ((++s->len & 7) == 0) {
        sip_word(s, s->tail);
        s->tail = 0;
    }
}

/* whole words straight from memory; only when no partial word is pending */
static void sip_bytes(SipStream *s, const unsigned char *p, size_t n) {
    size_t i = 0;
    if ((s->len & 7) == 0)
        for (; i + 8 <= n; i += 8) {
            uint64_t m;
            memcpy(&m, p + i, 8);   /* little-endian words (x86) */
            sip_word(s, m);
            s->len += 8;
        }
    for (; i < n; i++) sip_byte(s, p[i]);
}

static uint64_t sip_finish(SipStream *s) {
    uint64_t b = ((uint64_t)s->len << 56) | s->tail;
    s->v3 ^= b;
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    s->v0 ^= b;
    s->v2 ^= 0xff;
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

static int64_t sip_result(SipStream *s) {
    int64_t h = (int64_t)sip_finish(s);
    return h == -1 ? -2 : h;
}

int64_t hash_bytes(const void *p, int64_t len) {
    if (len == 0) return 0;
    if (!secret_ready) secret_init();
    SipStream st;
    sip_init(&st);
    sip_bytes(&st, p, (size_t)len);
    return sip_result(&st);
}

int64_t hash_str_data(const char *utf8, int64_t len, int64_t ncp) {
    if (ncp == len) return hash_bytes(utf8, len);   /* ASCII: CPython's 1-byte form is the same bytes */
    uint32_t maxcp = 0;
    for (int64_t pos = 0; pos < len;) {
        uint32_t cp = utf8_decode(utf8, len, &pos);
        if (cp > maxcp) maxcp = cp;
    }
    if (!secret_ready) secret_init();
    SipStream st;
    sip_init(&st);
    for (int64_t pos = 0; pos < len;) {   /* each code unit's bytes, native (little-endian) order */
        uint32_t cp = utf8_decode(utf8, len, &pos);
        sip_byte(&st, (unsigned char)cp);
        if (maxcp >= 0x100) sip_byte(&st, (unsigned char)(cp >> 8));
        if (maxcp >= 0x10000) {
            sip_byte(&st, (unsigned char)(cp >> 16));
            sip_byte(&st, (unsigned char)(cp >> 24));
        }
    }
    return sip_result(&st);
}
