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
 * program can depend on).  Anything else is CPython's fatal error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "vm/str.h"

static uint64_t secret_k0, secret_k1;
static bool secret_ready, secret_randomized;

static void secret_init(void) {
    unsigned char s[24] = {0};
    const char *env = getenv("PYTHONHASHSEED");
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

/* SipHash-1-3 (one compression round per 8-byte word, three finalisation rounds) */
static uint64_t siphash13(uint64_t k0, uint64_t k1, const unsigned char *p, size_t len) {
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    uint64_t b = (uint64_t)len << 56;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t m;
        memcpy(&m, p + i, 8);   /* little-endian words (x86) */
        v3 ^= m;
        SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t t = 0;
    for (size_t k = 0; i + k < len; k++) t |= (uint64_t)p[i + k] << (8 * k);
    b |= t;
    v3 ^= b;
    SIPROUND(v0, v1, v2, v3);
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND(v0, v1, v2, v3);
    SIPROUND(v0, v1, v2, v3);
    SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

int64_t hash_bytes(const void *p, int64_t len) {
    if (len == 0) return 0;
    if (!secret_ready) secret_init();
    int64_t h = (int64_t)siphash13(secret_k0, secret_k1, p, (size_t)len);
    return h == -1 ? -2 : h;
}

int64_t hash_str_data(const char *utf8, int64_t len, int64_t ncp) {
    if (ncp == len) return hash_bytes(utf8, len);   /* ASCII: CPython's 1-byte form is the same bytes */
    uint32_t maxcp = 0;
    for (int64_t pos = 0; pos < len;) {
        uint32_t cp = utf8_decode(utf8, len, &pos);
        if (cp > maxcp) maxcp = cp;
    }
    size_t kind = maxcp < 0x100 ? 1 : maxcp < 0x10000 ? 2 : 4;
    unsigned char small[256] = {0};
    unsigned char *buf = (size_t)ncp * kind <= sizeof small ? small : malloc((size_t)ncp * kind);
    if (!buf) return hash_bytes(utf8, len);   /* out of memory: a valid (if not CPython's) hash */
    int64_t i = 0;
    for (int64_t pos = 0; pos < len; i++) {
        uint32_t cp = utf8_decode(utf8, len, &pos);
        if (kind == 1) buf[i] = (unsigned char)cp;
        else if (kind == 2) {
            uint16_t u = (uint16_t)cp;
            memcpy(buf + 2 * i, &u, 2);
        } else memcpy(buf + 4 * i, &cp, 4);
    }
    int64_t h = hash_bytes(buf, i * (int64_t)kind);
    if (buf != small) free(buf);
    return h;
}
