/* vm/mod_blake2.c — the _blake2 module: blake2b and blake2s (RFC 7693) with every parameter
 * CPython's takes (digest_size, key, salt, person, fanout, depth, leaf_size, node_offset,
 * node_depth, inner_size, last_node), the hash interface (update, digest, hexdigest, copy,
 * name, digest_size, block_size) and the SALT_SIZE / PERSON_SIZE / MAX_KEY_SIZE /
 * MAX_DIGEST_SIZE constants.  hashlib takes blake2 from here, never from OpenSSL (whose
 * blake2 has no key, salt or person), so without it `import hashlib` logs errors. */
#include <string.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* One state for both variants: w = 64 (b) or 32 (s) bit words. */
typedef struct B2State {
    uint64_t h[8], t[2], f[2];
    uint8_t buf[128];
    size_t buflen;
    int outlen;
    bool is_b, last_node;
} B2State;

typedef struct B2Obj {
    Obj hdr;
    B2State s;
} B2Obj;

#define B2(v) ((B2Obj *)(v).as.o)

static const uint64_t IV_B[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                                  0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                  0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
static const uint32_t IV_S[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                  0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
static const uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }
static uint32_t rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress_b(B2State *s, const uint8_t *block, bool last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++) memcpy(&m[i], block + 8 * i, 8);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = IV_B[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) {
        v[14] = ~v[14];
        if (s->last_node) v[15] = ~v[15];
    }
#define GB(a, b, c, d, x, y)                                                                        \
    v[a] = v[a] + v[b] + x; v[d] = rotr64(v[d] ^ v[a], 32); v[c] = v[c] + v[d]; v[b] = rotr64(v[b] ^ v[c], 24); \
    v[a] = v[a] + v[b] + y; v[d] = rotr64(v[d] ^ v[a], 16); v[c] = v[c] + v[d]; v[b] = rotr64(v[b] ^ v[c], 63);
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = SIGMA[r];
        GB(0, 4, 8, 12, m[sg[0]], m[sg[1]]) GB(1, 5, 9, 13, m[sg[2]], m[sg[3]])
        GB(2, 6, 10, 14, m[sg[4]], m[sg[5]]) GB(3, 7, 11, 15, m[sg[6]], m[sg[7]])
        GB(0, 5, 10, 15, m[sg[8]], m[sg[9]]) GB(1, 6, 11, 12, m[sg[10]], m[sg[11]])
        GB(2, 7, 8, 13, m[sg[12]], m[sg[13]]) GB(3, 4, 9, 14, m[sg[14]], m[sg[15]])
    }
#undef GB
    for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
}

static void compress_s(B2State *s, const uint8_t *block, bool last) {
    uint32_t v[16], m[16], h[8];
    for (int i = 0; i < 16; i++) memcpy(&m[i], block + 4 * i, 4);
    for (int i = 0; i < 8; i++) {
        h[i] = (uint32_t)s->h[i];
        v[i] = h[i];
        v[i + 8] = IV_S[i];
    }
    v[12] ^= (uint32_t)s->t[0];
    v[13] ^= (uint32_t)(s->t[0] >> 32);
    if (last) {
        v[14] = ~v[14];
        if (s->last_node) v[15] = ~v[15];
    }
#define GS(a, b, c, d, x, y)                                                                        \
    v[a] = v[a] + v[b] + x; v[d] = rotr32(v[d] ^ v[a], 16); v[c] = v[c] + v[d]; v[b] = rotr32(v[b] ^ v[c], 12); \
    v[a] = v[a] + v[b] + y; v[d] = rotr32(v[d] ^ v[a], 8); v[c] = v[c] + v[d]; v[b] = rotr32(v[b] ^ v[c], 7);
    for (int r = 0; r < 10; r++) {
        const uint8_t *sg = SIGMA[r];
        GS(0, 4, 8, 12, m[sg[0]], m[sg[1]]) GS(1, 5, 9, 13, m[sg[2]], m[sg[3]])
        GS(2, 6, 10, 14, m[sg[4]], m[sg[5]]) GS(3, 7, 11, 15, m[sg[6]], m[sg[7]])
        GS(0, 5, 10, 15, m[sg[8]], m[sg[9]]) GS(1, 6, 11, 12, m[sg[10]], m[sg[11]])
        GS(2, 7, 8, 13, m[sg[12]], m[sg[13]]) GS(3, 4, 9, 14, m[sg[14]], m[sg[15]])
    }
#undef GS
    for (int i = 0; i < 8; i++) s->h[i] = h[i] ^ v[i] ^ v[i + 8];
}

static size_t block_size(const B2State *s) { return s->is_b ? 128 : 64; }

static void b2_update(B2State *s, const uint8_t *p, size_t n) {
    size_t bs = block_size(s);
    while (n > 0) {
        if (s->buflen == bs) {
            /* a full block is compressed only once more data follows (the last one is final) */
            s->t[0] += bs;
            if (s->t[0] < bs) s->t[1]++;
            if (s->is_b) compress_b(s, s->buf, false);
            else compress_s(s, s->buf, false);
            s->buflen = 0;
        }
        size_t take = bs - s->buflen < n ? bs - s->buflen : n;
        memcpy(s->buf + s->buflen, p, take);
        s->buflen += take;
        p += take;
        n -= take;
    }
}

static void b2_final(const B2State *in, uint8_t *out) {
    B2State s = *in;
    size_t bs = block_size(&s);
    s.t[0] += s.buflen;
    if (s.t[0] < s.buflen) s.t[1]++;
    memset(s.buf + s.buflen, 0, bs - s.buflen);
    if (s.is_b) compress_b(&s, s.buf, true);
    else compress_s(&s, s.buf, true);
    uint8_t full[64];
    for (int i = 0; i < 8; i++) {
        if (s.is_b) memcpy(full + 8 * i, &s.h[i], 8);
        else {
            uint32_t w = (uint32_t)s.h[i];
            memcpy(full + 4 * i, &w, 4);
        }
    }
    memcpy(out, full, (size_t)s.outlen);
}

static int opt_bytes(VM *vm, Value v, const char *what, size_t max, uint8_t *out, size_t *n) {
    *n = 0;
    if (val_is_null(v)) return 0;
    Value h;
    const uint8_t *p;
    int64_t len;
    if (buffer_get(vm, v, what, &h, &p, &len) < 0) return -1;
    if ((size_t)len > max) {
        vm_raise(vm, vm->e_ValueError, "maximum %s length is %zu bytes", what, max);
        return -1;
    }
    memcpy(out, p, (size_t)len);
    *n = (size_t)len;
    return 0;
}

static int opt_int(VM *vm, Value v, int64_t dflt, int64_t *out) {
    if (val_is_null(v)) {
        *out = dflt;
        return 0;
    }
    return vm_index(vm, v, out);
}

/* blake2b / blake2s(data=b'', *, digest_size, key, salt, person, fanout, depth, leaf_size,
 *                   node_offset, node_depth, inner_size, last_node, usedforsecurity) */
static Value b2_new(ARGS) {
    static const char *const names[] = {"cls", "data", "digest_size", "key", "salt", "person", "fanout", "depth",
                                        "leaf_size", "node_offset", "node_depth", "inner_size", "last_node",
                                        "usedforsecurity"};
    Value a[14];
    TypeObj *t = AS_TYPE(argv[0]);
    bool is_b = t == AS_TYPE(vm->lib[VM_LIB_blake2b]) || type_is_subtype(t, AS_TYPE(vm->lib[VM_LIB_blake2b]));
    const char *nm = is_b ? "blake2b" : "blake2s";
    if (native_parse_args(vm, nm, argc, argv, kw, 2, 1, names, 14, a) < 0) return val_null();
    size_t maxd = is_b ? 64 : 32, maxsalt = is_b ? 16 : 8;
    int64_t ds, fanout, depth, leaf, node_off, node_depth, inner;
    if (opt_int(vm, a[2], (int64_t)maxd, &ds) < 0 || opt_int(vm, a[6], 1, &fanout) < 0 || opt_int(vm, a[7], 1, &depth) < 0 ||
        opt_int(vm, a[8], 0, &leaf) < 0 || opt_int(vm, a[9], 0, &node_off) < 0 || opt_int(vm, a[10], 0, &node_depth) < 0 ||
        opt_int(vm, a[11], 0, &inner) < 0)
        return val_null();
    if (ds < 1 || ds > (int64_t)maxd) return vm_raise(vm, vm->e_ValueError, "digest_size must be between 1 and %zu bytes", maxd);
    if (fanout < 0 || fanout > 255) return vm_raise(vm, vm->e_ValueError, "fanout must be between 0 and 255");
    if (depth <= 0 || depth > 255) return vm_raise(vm, vm->e_ValueError, "depth must be between 1 and 255");
    if (leaf < 0 || leaf > 0xFFFFFFFFLL) return vm_raise(vm, vm->e_OverflowError, "leaf_size is too large");
    if (node_depth < 0 || node_depth > 255) return vm_raise(vm, vm->e_ValueError, "node_depth must be between 0 and 255");
    if (inner < 0 || inner > (int64_t)maxd) return vm_raise(vm, vm->e_ValueError, "inner_size must be between 0 and is %zu", maxd);
    if (!is_b && node_off > 0xFFFFFFFFFFFFLL) return vm_raise(vm, vm->e_OverflowError, "node_offset is too large");
    uint8_t key[64], salt[16], person[16];
    size_t kn, sn, pn;
    if (opt_bytes(vm, a[3], "key", maxd, key, &kn) < 0 || opt_bytes(vm, a[4], "salt", maxsalt, salt, &sn) < 0 ||
        opt_bytes(vm, a[5], "person", maxsalt, person, &pn) < 0)
        return val_null();
    B2Obj *o = gc_alloc(vm, t, sizeof(B2Obj));
    if (!o) return val_null();
    B2State *s = &o->s;
    s->is_b = is_b;
    s->outlen = (int)ds;
    s->last_node = !val_is_null(a[12]) && vm_truthy(vm, a[12]) > 0;
    /* the parameter block, little-endian, xored into the IV */
    uint8_t pb[64] = {0};
    pb[0] = (uint8_t)ds;
    pb[1] = (uint8_t)kn;
    pb[2] = (uint8_t)fanout;
    pb[3] = (uint8_t)depth;
    for (int i = 0; i < 4; i++) pb[4 + i] = (uint8_t)(leaf >> (8 * i));
    if (is_b) {
        for (int i = 0; i < 8; i++) pb[8 + i] = (uint8_t)((uint64_t)node_off >> (8 * i));
        pb[16] = (uint8_t)node_depth;
        pb[17] = (uint8_t)inner;
        memcpy(pb + 32, salt, sn);
        memcpy(pb + 48, person, pn);
        for (int i = 0; i < 8; i++) {
            uint64_t w;
            memcpy(&w, pb + 8 * i, 8);
            s->h[i] = IV_B[i] ^ w;
        }
    } else {
        for (int i = 0; i < 6; i++) pb[8 + i] = (uint8_t)((uint64_t)node_off >> (8 * i));
        pb[14] = (uint8_t)node_depth;
        pb[15] = (uint8_t)inner;
        memcpy(pb + 16, salt, sn);
        memcpy(pb + 24, person, pn);
        for (int i = 0; i < 8; i++) {
            uint32_t w;
            memcpy(&w, pb + 4 * i, 4);
            s->h[i] = IV_S[i] ^ w;
        }
    }
    if (kn) {
        uint8_t block[128] = {0};
        memcpy(block, key, kn);
        b2_update(s, block, block_size(s));
    }
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        if (val_is_str(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "Strings must be encoded before hashing");
        Value h;
        const uint8_t *p;
        int64_t n;
        vm_push_root(vm, val_obj(o));
        int rc = buffer_get(vm, a[1], nm, &h, &p, &n);
        vm_pop_root(vm);
        if (rc < 0) return val_null();
        b2_update(s, p, (size_t)n);
    }
    return val_obj(o);
}

static Value b2_update_m(ARGS) {
    if (val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "Strings must be encoded before hashing");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "update", &h, &p, &n) < 0) return val_null();
    b2_update(&B2(argv[0])->s, p, (size_t)n);
    return val_none();
}

static Value b2_digest(ARGS) {
    uint8_t out[64];
    B2State *s = &B2(argv[0])->s;
    b2_final(s, out);
    if (!fn->data) {
        BytesObj *b = bytes_new(vm, out, s->outlen);
        return b ? val_obj(b) : val_null();
    }
    static const char hx[] = "0123456789abcdef";
    char str[129];
    for (int i = 0; i < s->outlen; i++) {
        str[2 * i] = hx[out[i] >> 4];
        str[2 * i + 1] = hx[out[i] & 15];
    }
    StrObj *r = str_new(vm, str, 2 * s->outlen);
    return r ? val_obj(r) : val_null();
}

static Value b2_copy(ARGS) {
    B2Obj *c = gc_alloc(vm, argv[0].as.o->type, sizeof(B2Obj));
    if (!c) return val_null();
    c->s = B2(argv[0])->s;
    return val_obj(c);
}

static Value b2_name(VM *vm, Value s, void *c) { return vm_intern(vm, B2(s)->s.is_b ? "blake2b" : "blake2s"); }
static Value b2_digest_size(VM *vm, Value s, void *c) { return val_int(B2(s)->s.outlen); }
static Value b2_block_size(VM *vm, Value s, void *c) { return val_int((int64_t)block_size(&B2(s)->s)); }

int blake2_module_init(VM *vm, Value mod) {
    static const char *const tn[2] = {"blake2b", "blake2s"};
    static const int slots[2] = {VM_LIB_blake2b, VM_LIB_blake2s};
    for (int i = 0; i < 2; i++) {
        if (val_is_null(vm->lib[slots[i]])) {
            TypeObj *t = type_new_builtin(vm, tn[i], vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(B2Obj), 0, NULL, NULL,
                                          TYPEF_BASETYPE);
            if (!t) return -1;
            t->module = vm_intern(vm, "_blake2");
            vm->lib[slots[i]] = val_obj(t);
            static const MethodDef m[] = {
                {"__new__", b2_new, NATIVEF_STATIC}, {"update", b2_update_m, NATIVEF_METHOD | ARITY_O},
                {"digest", b2_digest, NATIVEF_METHOD | ARITY_NOARGS},
                {"hexdigest", b2_digest, NATIVEF_METHOD | ARITY_NOARGS, (void *)1},
                {"copy", b2_copy, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
            static const GetSetDef g[] = {
                {"name", b2_name}, {"digest_size", b2_digest_size}, {"block_size", b2_block_size}, {NULL}};
            if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, g) < 0) return -1;
            int64_t c[4] = {i ? 8 : 16, i ? 8 : 16, i ? 32 : 64, i ? 32 : 64};
            static const char *const cn[4] = {"SALT_SIZE", "PERSON_SIZE", "MAX_KEY_SIZE", "MAX_DIGEST_SIZE"};
            for (int k = 0; k < 4; k++)
                if (dict_set_c(vm, t->dict, cn[k], val_int(c[k])) < 0) return -1;
        }
        if (module_set(vm, mod, tn[i], vm->lib[slots[i]]) < 0) return -1;
    }
    static const struct { const char *n; int v; } consts[] = {
        {"BLAKE2B_SALT_SIZE", 16}, {"BLAKE2B_PERSON_SIZE", 16}, {"BLAKE2B_MAX_KEY_SIZE", 64},
        {"BLAKE2B_MAX_DIGEST_SIZE", 64}, {"BLAKE2S_SALT_SIZE", 8}, {"BLAKE2S_PERSON_SIZE", 8},
        {"BLAKE2S_MAX_KEY_SIZE", 32}, {"BLAKE2S_MAX_DIGEST_SIZE", 32}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return 0;
}
