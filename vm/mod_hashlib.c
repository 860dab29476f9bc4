/* vm/mod_hashlib.c — _hashlib on OpenSSL's EVP interface, the module CPython's hashlib.py and
 * hmac.py build on: HASH objects (md5, sha1, sha2, sha3; update / digest / hexdigest / copy,
 * name, digest_size, block_size), HASHXOF for shake_128 / shake_256, new(), the openssl_*
 * constructors, openssl_md_meth_names, pbkdf2_hmac, HMAC objects (hmac_new, hmac_digest),
 * compare_digest, get_fips_mode and UnsupportedDigestmodError.  Also _sha512, which random.py
 * imports before hashlib (its sha512 / sha384 are the same HASH objects). */
/* HMAC_CTX is deprecated in OpenSSL 3 but kept; it is what hmac.py's copy() needs */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

/* ---- libcrypto, loaded when _hashlib or _sha512 is first imported ----------------------------
 * Not linked: loading libcrypto costs ~2.5M instructions of relocation (callgrind, an empty C
 * program linked with -lcrypto), which every Ember process paid at start-up while few scripts
 * hash anything.  The table's members have libcrypto's own names and types. */
#define EMBER_CRYPTO_FUNCTIONS(X) \
    X(CRYPTO_memcmp) X(EVP_DigestFinalXOF) X(EVP_DigestFinal_ex) X(EVP_DigestInit_ex) \
    X(EVP_DigestUpdate) X(EVP_MD_CTX_copy_ex) X(EVP_MD_CTX_free) X(EVP_MD_CTX_get0_md) \
    X(EVP_MD_CTX_new) X(EVP_MD_get_block_size) X(EVP_MD_get_flags) X(EVP_MD_get_size) \
    X(EVP_get_digestbyname) X(HMAC) X(HMAC_CTX_copy) X(HMAC_CTX_free) \
    X(HMAC_CTX_get_md) X(HMAC_CTX_new) X(HMAC_Final) X(HMAC_Init_ex) \
    X(HMAC_Update) X(PKCS5_PBKDF2_HMAC)

static struct {
#define EMBER_CRYPTO_MEMBER(f) __typeof__(f) *f;
    EMBER_CRYPTO_FUNCTIONS(EMBER_CRYPTO_MEMBER)
#undef EMBER_CRYPTO_MEMBER
} crypto;
static bool crypto_loaded;

#define CRYPTO(f) (crypto.f)

/* the soname of the OpenSSL the build compiled against (3.x: libcrypto.so.3) */
#define EMBER_STR_(x) #x
#define EMBER_STR(x) EMBER_STR_(x)
#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR >= 3
#define EMBER_CRYPTO_SONAME "libcrypto.so." EMBER_STR(OPENSSL_VERSION_MAJOR)
#else
#define EMBER_CRYPTO_SONAME "libcrypto.so.1.1"
#endif

/* 0, or -1 with ImportError when libcrypto or one of its symbols is missing */
static int crypto_load(VM *vm) {
    if (crypto_loaded) return 0;
    void *h = dlopen(EMBER_CRYPTO_SONAME, RTLD_LAZY | RTLD_LOCAL);
    if (!h) h = dlopen("libcrypto.so", RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        vm_raise(vm, vm->e_ImportError, "_hashlib: cannot load OpenSSL's libcrypto (" EMBER_CRYPTO_SONAME "): %s", dlerror());
        return -1;
    }
#define EMBER_CRYPTO_RESOLVE(f)                                                                  \
    if (!(*(void **)&crypto.f = dlsym(h, #f))) {                                                 \
        vm_raise(vm, vm->e_ImportError, "_hashlib: libcrypto has no symbol " #f);                \
        return -1;                                                                               \
    }
    EMBER_CRYPTO_FUNCTIONS(EMBER_CRYPTO_RESOLVE)
#undef EMBER_CRYPTO_RESOLVE
    crypto_loaded = true;
    return 0;
}

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct HashObj {
    Obj hdr;
    EVP_MD_CTX *ctx;      /* HASH */
    HMAC_CTX *hctx;       /* HMAC (OpenSSL 3 keeps the deprecated HMAC_CTX API) */
    const char *name;     /* Python name: "sha256", "hmac-sha256", ... (static) */
} HashObj;

#define HO(v) ((HashObj *)(v).as.o)

static void hash_finalize(VM *vm, Obj *o) {
    HashObj *h = (HashObj *)o;
    if (h->ctx) CRYPTO(EVP_MD_CTX_free)(h->ctx);
    if (h->hctx) CRYPTO(HMAC_CTX_free)(h->hctx);
    h->ctx = NULL;
    h->hctx = NULL;
}

/* Python names and OpenSSL's */
static const struct { const char *py, *ossl; } algos[] = {
    {"md5", "md5"}, {"sha1", "sha1"}, {"sha224", "sha224"}, {"sha256", "sha256"}, {"sha384", "sha384"},
    {"sha512", "sha512"}, {"sha512_224", "sha512-224"}, {"sha512_256", "sha512-256"}, {"sha3_224", "sha3-224"},
    {"sha3_256", "sha3-256"}, {"sha3_384", "sha3-384"}, {"sha3_512", "sha3-512"}, {"shake_128", "shake128"},
    {"shake_256", "shake256"}, {"blake2b", "blake2b512"}, {"blake2s", "blake2s256"}, {"sm3", "sm3"},
    {"ripemd160", "ripemd160"}, {"md5-sha1", "md5-sha1"}, {NULL, NULL}};

static const EVP_MD *find_md(const char *name, const char **pyname) {
    char lower[64];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof lower; i++) lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    lower[i] = 0;
    for (int k = 0; algos[k].py; k++)
        if (!strcmp(lower, algos[k].py) || !strcmp(lower, algos[k].ossl)) {
            *pyname = algos[k].py;
            return CRYPTO(EVP_get_digestbyname)(algos[k].ossl);
        }
    return NULL;
}

/* an algorithm OpenSSL does not have: OpenSSL's own words, as CPython reports them */
static Value unsupported(VM *vm, const char *name) {
    (void)name;
    return vm_raise(vm, vm->e_ValueError, "[digital envelope routines] unsupported");
}

static bool is_xof(const EVP_MD *md) { return (CRYPTO(EVP_MD_get_flags)(md) & EVP_MD_FLAG_XOF) != 0; }

static int update_with(VM *vm, HashObj *h, Value data) {
    if (val_is_str(vm, data)) {
        vm_raise(vm, vm->e_TypeError, "Strings must be encoded before hashing");
        return -1;
    }
    Value hold;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, data, "update", &hold, &p, &n) < 0) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "object supporting the buffer API required");
        }
        return -1;
    }
    int ok = h->ctx ? CRYPTO(EVP_DigestUpdate)(h->ctx, p, (size_t)n) : CRYPTO(HMAC_Update)(h->hctx, p, (size_t)n);
    if (!ok) {
        vm_raise(vm, vm->e_ValueError, "hash update failed");
        return -1;
    }
    return 0;
}

static Value new_hash(VM *vm, const char *name, Value data) {
    const char *pyname;
    const EVP_MD *md = find_md(name, &pyname);
    if (!md) return unsupported(vm, name);
    HashObj *h = gc_alloc(vm, AS_TYPE(vm->lib[is_xof(md) ? VM_LIB_hash_xof_type : VM_LIB_hash_type]), sizeof(HashObj));
    if (!h) return val_null();
    h->name = pyname;
    h->ctx = CRYPTO(EVP_MD_CTX_new)();
    if (!h->ctx || !CRYPTO(EVP_DigestInit_ex)(h->ctx, md, NULL)) return unsupported(vm, name);
    Value hv = val_obj(h);
    if (!val_is_null(data) && !val_is_none(data)) {
        vm_push_root(vm, hv);
        int rc = update_with(vm, h, data);
        vm_pop_root(vm);
        if (rc < 0) return val_null();
    }
    return hv;
}

/* data argument: positional, or data= / string= (the old name) */
static int data_kw(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, int first, Value *data) {
    static const char *const names[] = {"data", "usedforsecurity", "string"};
    Value a[3];
    if (native_parse_args(vm, fname, argc - first, argv + first, kw, 1, 0, names, 3, a) < 0) return -1;
    if (!val_is_null(a[0]) && !val_is_null(a[2])) {
        vm_raise(vm, vm->e_TypeError, "'data' and 'string' are mutually exclusive and support for 'string' keyword "
                                      "parameter is slated for removal in a future version.");
        return -1;
    }
    *data = val_is_null(a[0]) ? a[2] : a[0];
    return 0;
}

/* openssl_<name>(data=b'', *, usedforsecurity=True) */
static Value h_openssl(ARGS) {
    Value data;
    if (data_kw(vm, fn->name, argc, argv, kw, 0, &data) < 0) return val_null();
    return new_hash(vm, (const char *)fn->data, data);
}

/* new(name, data=b'', *, usedforsecurity=True) */
static Value h_new(ARGS) {
    if (argc < 1 && !(kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "new() missing required argument 'name' (pos 1)");
    Value name = argc ? argv[0] : val_null();
    if (!val_is_str(vm, name)) return vm_raise(vm, vm->e_TypeError, "new() argument 'name' must be str");
    Value data;
    if (data_kw(vm, "new", argc, argv, kw, 1, &data) < 0) return val_null();
    return new_hash(vm, AS_STR(name)->data, data);
}

static Value h_update(ARGS) { return update_with(vm, HO(argv[0]), argv[1]) < 0 ? val_null() : val_none(); }

/* the digest so far (of a copy, so updating can go on); len: XOF output length */
static int final_bytes(VM *vm, HashObj *h, uint8_t *out, unsigned *outlen, int64_t len) {
    if (h->hctx) {
        HMAC_CTX *c = CRYPTO(HMAC_CTX_new)();
        int ok = c && CRYPTO(HMAC_CTX_copy)(c, h->hctx) && CRYPTO(HMAC_Final)(c, out, outlen);
        CRYPTO(HMAC_CTX_free)(c);
        if (!ok) vm_raise(vm, vm->e_ValueError, "HMAC digest failed");
        return ok ? 0 : -1;
    }
    EVP_MD_CTX *c = CRYPTO(EVP_MD_CTX_new)();
    int ok = c && CRYPTO(EVP_MD_CTX_copy_ex)(c, h->ctx);
    if (ok) {
        if (len >= 0) {
            ok = CRYPTO(EVP_DigestFinalXOF)(c, out, (size_t)len);
            *outlen = (unsigned)len;
        } else {
            ok = CRYPTO(EVP_DigestFinal_ex)(c, out, outlen);
        }
    }
    CRYPTO(EVP_MD_CTX_free)(c);
    if (!ok) vm_raise(vm, vm->e_ValueError, "digest failed");
    return ok ? 0 : -1;
}

static Value digest_common(VM *vm, int argc, Value *argv, bool hex, bool xof) {
    HashObj *h = HO(argv[0]);
    int64_t len = -1;
    if (xof) {
        if (argc < 2) return vm_raise(vm, vm->e_TypeError, "digest() missing required argument 'length' (pos 1)");
        if (vm_index(vm, argv[1], &len) < 0) return val_null();
        if (len < 0) return vm_raise(vm, vm->e_ValueError, "length must be non-negative");
    }
    uint8_t stackbuf[EVP_MAX_MD_SIZE];
    uint8_t *out = len > EVP_MAX_MD_SIZE ? malloc((size_t)len) : stackbuf;
    unsigned n = 0;
    if (len == 0) n = 0;
    else if (final_bytes(vm, h, out, &n, len) < 0) {
        if (out != stackbuf) free(out);
        return val_null();
    }
    Value r;
    if (hex) {
        static const char hx[] = "0123456789abcdef";
        char *s = malloc((size_t)n * 2 + 1);
        for (unsigned i = 0; i < n; i++) {
            s[2 * i] = hx[out[i] >> 4];
            s[2 * i + 1] = hx[out[i] & 15];
        }
        StrObj *o = str_new(vm, s, (int64_t)n * 2);
        free(s);
        r = o ? val_obj(o) : val_null();
    } else {
        BytesObj *b = bytes_new(vm, out, n);
        r = b ? val_obj(b) : val_null();
    }
    if (out != stackbuf) free(out);
    return r;
}

static Value h_digest(ARGS) { return digest_common(vm, argc, argv, false, false); }
static Value h_hexdigest(ARGS) { return digest_common(vm, argc, argv, true, false); }
static Value x_digest(ARGS) { return digest_common(vm, argc, argv, false, true); }
static Value x_hexdigest(ARGS) { return digest_common(vm, argc, argv, true, true); }

static Value h_copy(ARGS) {
    HashObj *h = HO(argv[0]);
    HashObj *c = gc_alloc(vm, argv[0].as.o->type, sizeof(HashObj));
    if (!c) return val_null();
    c->name = h->name;
    int ok;
    if (h->hctx) {
        c->hctx = CRYPTO(HMAC_CTX_new)();
        ok = c->hctx && CRYPTO(HMAC_CTX_copy)(c->hctx, h->hctx);
    } else {
        c->ctx = CRYPTO(EVP_MD_CTX_new)();
        ok = c->ctx && CRYPTO(EVP_MD_CTX_copy_ex)(c->ctx, h->ctx);
    }
    return ok ? val_obj(c) : vm_raise(vm, vm->e_ValueError, "copy failed");
}

static Value h_name(VM *vm, Value s, void *c) { return vm_intern(vm, HO(s)->name); }
static Value h_digest_size(VM *vm, Value s, void *c) {
    HashObj *h = HO(s);
    if (h->hctx) return val_int(CRYPTO(EVP_MD_get_size)(CRYPTO(HMAC_CTX_get_md)(h->hctx)));
    const EVP_MD *md = CRYPTO(EVP_MD_CTX_get0_md)(h->ctx);
    return val_int(is_xof(md) ? 0 : CRYPTO(EVP_MD_get_size)(md));
}
static Value h_block_size(VM *vm, Value s, void *c) {
    HashObj *h = HO(s);
    const EVP_MD *md = h->hctx ? CRYPTO(HMAC_CTX_get_md)(h->hctx) : CRYPTO(EVP_MD_CTX_get0_md)(h->ctx);
    return val_int(CRYPTO(EVP_MD_get_block_size)(md));
}

static Value h_repr(ARGS) {
    HashObj *h = HO(argv[0]);
    StrObj *s = str_printf(vm, "<%s %s object @ %p>", h->name, type_repr_name(vm, argv[0].as.o->type)->data, (void *)h);
    return s ? val_obj(s) : val_null();
}

/* ---- HMAC, pbkdf2, compare_digest ------------------------------------------------------------- */

static const EVP_MD *digestmod_arg(VM *vm, Value d, const char **pyname) {
    if (val_is_str(vm, d)) {
        const EVP_MD *md = find_md(AS_STR(d)->data, pyname);
        if (!md) unsupported(vm, AS_STR(d)->data);
        return md;
    }
    /* an openssl_* constructor */
    if (d.tag == VAL_OBJ && d.as.o->type == vm->t_builtin_function && ((NativeObj *)d.as.o)->fn == h_openssl) {
        const EVP_MD *md = find_md((const char *)((NativeObj *)d.as.o)->data, pyname);
        if (md) return md;
    }
    vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_hash_unsupported]), "Unsupported digestmod %s", vm_type_name(vm, d));
    return NULL;
}

static int bytes_arg(VM *vm, Value v, const char *what, Value *hold, const uint8_t **p, int64_t *n) {
    if (val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not 'str'");
        return -1;
    }
    return buffer_get(vm, v, what, hold, p, n);
}

/* hmac_new(key, msg=b'', digestmod=None) */
static Value h_hmac_new(ARGS) {
    static const char *const names[] = {"key", "msg", "digestmod"};
    Value a[3];
    if (native_parse_args(vm, "hmac_new", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    if (val_is_null(a[2]) || val_is_none(a[2])) return vm_raise(vm, vm->e_TypeError, "Missing required parameter 'digestmod'.");
    const char *pyname;
    const EVP_MD *md = digestmod_arg(vm, a[2], &pyname);
    if (!md) return val_null();
    Value hold;
    const uint8_t *k;
    int64_t kn;
    if (bytes_arg(vm, a[0], "hmac_new", &hold, &k, &kn) < 0) return val_null();
    HashObj *h = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_hmac_type]), sizeof(HashObj));
    if (!h) return val_null();
    static char namebuf[32][24];
    static int nnames;
    /* "hmac-" + name, interned in a small static table (the names are few) */
    const char *hn = NULL;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(namebuf[i] + 5, pyname)) hn = namebuf[i];
    if (!hn && nnames < 32) {
        snprintf(namebuf[nnames], sizeof namebuf[0], "hmac-%s", pyname);
        hn = namebuf[nnames++];
    }
    h->name = hn ? hn : "hmac";
    h->hctx = CRYPTO(HMAC_CTX_new)();
    if (!h->hctx || !CRYPTO(HMAC_Init_ex)(h->hctx, k, (int)kn, md, NULL)) return vm_raise(vm, vm->e_ValueError, "HMAC init failed");
    Value hv = val_obj(h);
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        vm_push_root(vm, hv);
        int rc = update_with(vm, h, a[1]);
        vm_pop_root(vm);
        if (rc < 0) return val_null();
    }
    return hv;
}

static Value h_hmac_digest(ARGS) {
    static const char *const names[] = {"key", "msg", "digest"};
    Value a[3];
    if (native_parse_args(vm, "hmac_digest", argc, argv, kw, 3, 3, names, 3, a) < 0) return val_null();
    const char *pyname;
    const EVP_MD *md = digestmod_arg(vm, a[2], &pyname);
    if (!md) return val_null();
    Value h1, h2;
    const uint8_t *k, *m;
    int64_t kn, mn;
    if (bytes_arg(vm, a[0], "hmac_digest", &h1, &k, &kn) < 0 || bytes_arg(vm, a[1], "hmac_digest", &h2, &m, &mn) < 0)
        return val_null();
    uint8_t out[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (!CRYPTO(HMAC)(md, k, (int)kn, m, (size_t)mn, out, &n)) return vm_raise(vm, vm->e_ValueError, "HMAC failed");
    BytesObj *b = bytes_new(vm, out, n);
    return b ? val_obj(b) : val_null();
}

/* pbkdf2_hmac(hash_name, password, salt, iterations, dklen=None) */
static Value h_pbkdf2(ARGS) {
    static const char *const names[] = {"hash_name", "password", "salt", "iterations", "dklen"};
    Value a[5];
    if (native_parse_args(vm, "pbkdf2_hmac", argc, argv, kw, 5, 4, names, 5, a) < 0) return val_null();
    if (!val_is_str(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "pbkdf2_hmac() argument 'hash_name' must be str");
    const char *pyname;
    const EVP_MD *md = find_md(AS_STR(a[0])->data, &pyname);
    if (!md) return unsupported(vm, AS_STR(a[0])->data);
    Value h1, h2;
    const uint8_t *pw, *salt;
    int64_t pn, sn, iters, dklen;
    if (bytes_arg(vm, a[1], "pbkdf2_hmac", &h1, &pw, &pn) < 0 || bytes_arg(vm, a[2], "pbkdf2_hmac", &h2, &salt, &sn) < 0 ||
        vm_index(vm, a[3], &iters) < 0)
        return val_null();
    if (iters < 1) return vm_raise(vm, vm->e_ValueError, "iteration value must be greater than 0.");
    if (val_is_null(a[4]) || val_is_none(a[4])) dklen = CRYPTO(EVP_MD_get_size)(md);
    else if (vm_index(vm, a[4], &dklen) < 0) return val_null();
    if (dklen < 1) return vm_raise(vm, vm->e_ValueError, "key length must be greater than 0.");
    BytesObj *b = bytes_new(vm, NULL, dklen);
    if (!b) return val_null();
    if (!CRYPTO(PKCS5_PBKDF2_HMAC)((const char *)pw, (int)pn, salt, (int)sn, (int)iters, md, (int)dklen, b->data))
        return vm_raise(vm, vm->e_ValueError, "pbkdf2 failed");
    return val_obj(b);
}

/* compare_digest(a, b): constant time over str (ASCII) or bytes-like */
static Value h_compare_digest(ARGS) {
    const uint8_t *p, *q;
    int64_t n, m;
    Value h1, h2;
    bool sa = val_is_str(vm, argv[0]), sb = val_is_str(vm, argv[1]);
    if (sa != sb)
        return vm_raise(vm, vm->e_TypeError, "unsupported operand types(s) or combination of types: '%s' and '%s'",
                        vm_type_name(vm, argv[0]), vm_type_name(vm, argv[1]));
    if (sa) {
        if (!str_is_ascii(AS_STR(argv[0])) || !str_is_ascii(AS_STR(argv[1])))
            return vm_raise(vm, vm->e_TypeError, "comparing strings with non-ASCII characters is not supported");
        p = (const uint8_t *)AS_STR(argv[0])->data;
        n = AS_STR(argv[0])->len;
        q = (const uint8_t *)AS_STR(argv[1])->data;
        m = AS_STR(argv[1])->len;
    } else if (buffer_get(vm, argv[0], "compare_digest", &h1, &p, &n) < 0 ||
               buffer_get(vm, argv[1], "compare_digest", &h2, &q, &m) < 0) {
        return val_null();
    }
    if (n != m) return val_bool(false);
    return val_bool(CRYPTO(CRYPTO_memcmp)(p, q, (size_t)n) == 0);
}

static Value h_fips(ARGS) { return val_int(0); }

/* ---- modules ----------------------------------------------------------------------------------------- */

static Value make_exc(VM *vm, const char *name, TypeObj *base, const char *module) {
    TupleObj *bases = tuple_pack(vm, 1, val_obj(base));
    if (!bases) return val_null();
    vm_push_root(vm, val_obj(bases));
    DictObj *ns = dict_new(vm);
    Value t = val_null();
    if (ns) {
        vm_push_root(vm, val_obj(ns));
        if (dict_set_c(vm, ns, "__module__", vm_intern(vm, module)) == 0)
            t = type_new_class(vm, vm->t_type, vm_intern_str(vm, name), bases, ns, 0, NULL, NULL);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return t;
}

static int init_types(VM *vm) {
    if (!val_is_null(vm->lib[VM_LIB_hash_type])) return 0;
    static const char *const tn[3] = {"HASH", "HASHXOF", "HMAC"};
    static const int slots[3] = {VM_LIB_hash_type, VM_LIB_hash_xof_type, VM_LIB_hmac_type};
    for (int i = 0; i < 3; i++) {
        TypeObj *t = type_new_builtin(vm, tn[i], i == 1 ? AS_TYPE(vm->lib[VM_LIB_hash_type]) : vm->t_object,
                                      OBJ_LAYOUT_EXTENSION, sizeof(HashObj), 0, NULL, hash_finalize, TYPEF_ABSTRACT_NEW);
        if (!t) return -1;
        t->module = vm_intern(vm, "_hashlib");
        vm->lib[slots[i]] = val_obj(t);
        static const MethodDef m[] = {
            {"update", h_update, NATIVEF_METHOD | ARITY_O}, {"digest", h_digest, NATIVEF_METHOD | ARITY_NOARGS},
            {"hexdigest", h_hexdigest, NATIVEF_METHOD | ARITY_NOARGS}, {"copy", h_copy, NATIVEF_METHOD | ARITY_NOARGS},
            {"__repr__", h_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        static const MethodDef xm[] = {
            {"digest", x_digest, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"hexdigest", x_hexdigest, NATIVEF_METHOD | ARITY_POS(0, 1)},
            {NULL}};
        static const GetSetDef g[] = {{"name", h_name}, {"digest_size", h_digest_size}, {"block_size", h_block_size}, {NULL}};
        if (i != 1 && (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, g) < 0)) return -1;
        if (i == 1 && type_add_methods(vm, t, xm) < 0) return -1;
    }
    Value e = make_exc(vm, "UnsupportedDigestmodError", vm->e_ValueError, "_hashlib");
    if (val_is_null(e)) return -1;
    vm->lib[VM_LIB_hash_unsupported] = e;
    return 0;
}

static const MethodDef openssl_ctors[] = {
    {"openssl_md5", h_openssl, 0, (void *)"md5"}, {"openssl_sha1", h_openssl, 0, (void *)"sha1"},
    {"openssl_sha224", h_openssl, 0, (void *)"sha224"}, {"openssl_sha256", h_openssl, 0, (void *)"sha256"},
    {"openssl_sha384", h_openssl, 0, (void *)"sha384"}, {"openssl_sha512", h_openssl, 0, (void *)"sha512"},
    {"openssl_sha3_224", h_openssl, 0, (void *)"sha3_224"}, {"openssl_sha3_256", h_openssl, 0, (void *)"sha3_256"},
    {"openssl_sha3_384", h_openssl, 0, (void *)"sha3_384"}, {"openssl_sha3_512", h_openssl, 0, (void *)"sha3_512"},
    {"openssl_shake_128", h_openssl, 0, (void *)"shake_128"}, {"openssl_shake_256", h_openssl, 0, (void *)"shake_256"},
    {NULL}};

int hashlib_module_init(VM *vm, Value mod) {
    if (crypto_load(vm) < 0 || init_types(vm) < 0) return -1;
    static const MethodDef fns[] = {
        {"new", h_new}, {"hmac_new", h_hmac_new}, {"hmac_digest", h_hmac_digest}, {"pbkdf2_hmac", h_pbkdf2},
        {"compare_digest", h_compare_digest, ARITY_POS(2, 2)}, {"get_fips_mode", h_fips, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || module_add_functions(vm, mod, openssl_ctors) < 0) return -1;
    SetObj *names = set_new(vm, vm->t_frozenset);
    if (!names || module_set(vm, mod, "openssl_md_meth_names", val_obj(names)) < 0) return -1;
    for (int i = 0; algos[i].py; i++) {
        const char *pn;
        if (find_md(algos[i].py, &pn) && set_add(vm, names, vm_intern(vm, algos[i].py)) < 0) return -1;
    }
    return module_set(vm, mod, "HASH", vm->lib[VM_LIB_hash_type]) < 0 ||
                   module_set(vm, mod, "HASHXOF", vm->lib[VM_LIB_hash_xof_type]) < 0 ||
                   module_set(vm, mod, "HMAC", vm->lib[VM_LIB_hmac_type]) < 0 ||
                   module_set(vm, mod, "UnsupportedDigestmodError", vm->lib[VM_LIB_hash_unsupported]) < 0
               ? -1
               : 0;
}

/* _sha512: sha512 / sha384, as random.py imports them */
int sha512_module_init(VM *vm, Value mod) {
    if (crypto_load(vm) < 0 || init_types(vm) < 0) return -1;
    static const MethodDef fns[] = {
        {"sha512", h_openssl, 0, (void *)"sha512"}, {"sha384", h_openssl, 0, (void *)"sha384"}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
