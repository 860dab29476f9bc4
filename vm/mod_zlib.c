/* vm/mod_zlib.c — the zlib module on the system's zlib: compress / decompress, the streaming
 * Compress and Decompress objects (flush modes, max_length with unconsumed_tail, unused_data,
 * eof, zdict, copy), crc32 / adler32, the constants, and zlib.error with CPython's messages
 * ("Error -3 while decompressing data: incorrect header check"). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define DEF_BUF_SIZE (16 * 1024)

static Value zerror(VM *vm, z_stream *zs, int err, const char *what) {
    const char *msg = zs && zs->msg ? zs->msg : NULL;
    if (!msg) {
        switch (err) {
        case Z_BUF_ERROR: msg = "incomplete or truncated stream"; break;
        case Z_STREAM_ERROR: msg = "inconsistent stream state"; break;
        case Z_DATA_ERROR: msg = "invalid input data"; break;
        default: break;
        }
    }
    StrObj *s = msg ? str_printf(vm, "Error %d %s: %s", err, what, msg) : str_printf(vm, "Error %d %s", err, what);
    return s ? vm_raise_str(vm, AS_TYPE(vm->lib[VM_LIB_zlib_error]), s) : val_null();
}

static int int_kw(VM *vm, Value v, int64_t dflt, int64_t *out) {
    if (val_is_null(v)) {
        *out = dflt;
        return 0;
    }
    return vm_index(vm, v, out);
}

/* Run a stream over its input (zlib's usual loop: until output space is left over or the
 * stream ends), appending to out, at most max_out bytes when max_out > 0.  zlib's last status,
 * Z_NEED_DICT for the caller, or -100 with the error raised. */
static int pump(VM *vm, z_stream *zs, bool deflating, int mode, StrBuf *out, int64_t max_out, const char *what) {
    int err;
    do {
        size_t room = DEF_BUF_SIZE;
        if (max_out > 0) {
            if ((int64_t)out->len >= max_out) return Z_OK;
            if ((int64_t)room > max_out - (int64_t)out->len) room = (size_t)(max_out - (int64_t)out->len);
        }
        if (!sb_reserve(out, room)) {
            vm_no_memory(vm);
            return -100;
        }
        zs->next_out = (Bytef *)out->data + out->len;
        zs->avail_out = (uInt)room;
        err = deflating ? deflate(zs, mode) : inflate(zs, mode);
        out->len += room - zs->avail_out;
        if (err == Z_NEED_DICT) return err;
        if (err != Z_OK && err != Z_BUF_ERROR && err != Z_STREAM_END) {
            zerror(vm, zs, err, what);
            return -100;
        }
    } while (zs->avail_out == 0 && err != Z_STREAM_END);
    return err;
}

/* ---- one-shot ------------------------------------------------------------------------------------- */

static Value z_compress(ARGS) {
    static const char *const names[] = {"data", "level", "wbits"};
    Value a[3];
    if (native_parse_args(vm, "compress", argc, argv, kw, 1, 1, names, 3, a) < 0) return val_null();
    int64_t level, wbits;
    if (int_kw(vm, a[1], Z_DEFAULT_COMPRESSION, &level) < 0 || int_kw(vm, a[2], MAX_WBITS, &wbits) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "compress", &h, &p, &n) < 0) return val_null();
    z_stream zs = {0};
    int err = deflateInit2(&zs, (int)level, Z_DEFLATED, (int)wbits, 8, Z_DEFAULT_STRATEGY);
    if (err == Z_STREAM_ERROR) return vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_zlib_error]), "Bad compression level");
    if (err != Z_OK) return zerror(vm, &zs, err, "while compressing data");
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    StrBuf out;
    sb_init(&out);
    err = pump(vm, &zs, true, Z_FINISH, &out, 0, "while compressing data");
    deflateEnd(&zs);
    if (err < -99) {
        sb_free(&out);
        return val_null();
    }
    BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return b ? val_obj(b) : val_null();
}

static Value z_decompress(ARGS) {
    static const char *const names[] = {"data", "wbits", "bufsize"};
    Value a[3];
    if (native_parse_args(vm, "decompress", argc, argv, kw, 1, 1, names, 3, a) < 0) return val_null();
    int64_t wbits, bufsize;
    if (int_kw(vm, a[1], MAX_WBITS, &wbits) < 0 || int_kw(vm, a[2], DEF_BUF_SIZE, &bufsize) < 0) return val_null();
    if (bufsize < 0) return vm_raise(vm, vm->e_ValueError, "bufsize must be non-negative");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "decompress", &h, &p, &n) < 0) return val_null();
    z_stream zs = {0};
    int err = inflateInit2(&zs, (int)wbits);
    if (err != Z_OK) return zerror(vm, &zs, err, "while preparing to decompress data");
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    StrBuf out;
    sb_init(&out);
    err = pump(vm, &zs, false, Z_NO_FLUSH, &out, 0, "while decompressing data");
    if (err == Z_NEED_DICT) {
        zerror(vm, &zs, err, "while decompressing data");
        err = -100;
    } else if (err >= -99 && err != Z_STREAM_END) {
        inflateEnd(&zs);
        sb_free(&out);
        return vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_zlib_error]),
                        "Error -5 while decompressing data: incomplete or truncated stream");
    }
    inflateEnd(&zs);
    if (err < -99) {
        sb_free(&out);
        return val_null();
    }
    BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return b ? val_obj(b) : val_null();
}

static Value z_checksum(ARGS) {
    Value h;
    const uint8_t *p;
    int64_t n;
    bool adler = fn->data != NULL;
    if (buffer_get(vm, argv[0], adler ? "adler32" : "crc32", &h, &p, &n) < 0) return val_null();
    int64_t start = adler ? 1 : 0;
    if (argc > 1 && vm_index(vm, argv[1], &start) < 0) return val_null();
    uLong c = (uLong)(uint32_t)start;
    while (n > 0) {
        uInt chunk = n > (1 << 30) ? (1u << 30) : (uInt)n;
        c = adler ? adler32(c, p, chunk) : crc32(c, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return val_int((int64_t)(uint32_t)c);
}

/* ---- stream objects ------------------------------------------------------------------------------- */

/* b'' (NULL with MemoryError pending) */
static Value empty_bytes(VM *vm) {
    BytesObj *e = bytes_new(vm, NULL, 0);
    return e ? val_obj(e) : val_null();
}

typedef struct ZObj {
    Obj hdr;
    z_stream zs;
    bool deflating, inited, eof;
    Value unused_data, unconsumed_tail, zdict;   /* bytes */
} ZObj;

#define ZO(v) ((ZObj *)(v).as.o)

static void zobj_trace(VM *vm, Obj *o) {
    ZObj *z = (ZObj *)o;
    gc_mark_value(vm, z->unused_data);
    gc_mark_value(vm, z->unconsumed_tail);
    gc_mark_value(vm, z->zdict);
}

static void zobj_finalize(VM *vm, Obj *o) {
    ZObj *z = (ZObj *)o;
    if (z->inited) {
        if (z->deflating) deflateEnd(&z->zs);
        else inflateEnd(&z->zs);
    }
    z->inited = false;
}

static ZObj *zobj_new(VM *vm, bool deflating) {
    ZObj *z = gc_alloc(vm, AS_TYPE(vm->lib[deflating ? VM_LIB_zlib_compress : VM_LIB_zlib_decompress]), sizeof(ZObj));
    if (!z) return NULL;
    z->deflating = deflating;
    vm_push_root(vm, val_obj(z));   /* the next allocation may collect */
    BytesObj *e = bytes_new(vm, NULL, 0);
    vm_pop_root(vm);
    if (!e) return NULL;
    z->unused_data = z->unconsumed_tail = z->zdict = val_obj(e);
    return z;
}

/* compressobj(level=-1, method=DEFLATED, wbits=MAX_WBITS, memLevel=DEF_MEM_LEVEL, strategy=0, zdict=None) */
static Value z_compressobj(ARGS) {
    static const char *const names[] = {"level", "method", "wbits", "memLevel", "strategy", "zdict"};
    Value a[6];
    if (native_parse_args(vm, "compressobj", argc, argv, kw, 6, 0, names, 6, a) < 0) return val_null();
    int64_t level, method, wbits, mem, strategy;
    if (int_kw(vm, a[0], Z_DEFAULT_COMPRESSION, &level) < 0 || int_kw(vm, a[1], Z_DEFLATED, &method) < 0 ||
        int_kw(vm, a[2], MAX_WBITS, &wbits) < 0 || int_kw(vm, a[3], 8, &mem) < 0 || int_kw(vm, a[4], 0, &strategy) < 0)
        return val_null();
    ZObj *z = zobj_new(vm, true);
    if (!z) return val_null();
    Value zv = val_obj(z);
    vm_push_root(vm, zv);
    int err = deflateInit2(&z->zs, (int)level, (int)method, (int)wbits, (int)mem, (int)strategy);
    if (err != Z_OK) {
        vm_pop_root(vm);
        if (err == Z_STREAM_ERROR) return vm_raise(vm, vm->e_ValueError, "Invalid initialization option");
        return zerror(vm, &z->zs, err, "while creating compression object");
    }
    z->inited = true;
    if (!val_is_null(a[5]) && !val_is_none(a[5])) {
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, a[5], "compressobj", &h, &p, &n) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        err = deflateSetDictionary(&z->zs, p, (uInt)n);
        if (err != Z_OK) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "Invalid dictionary");
        }
    }
    vm_pop_root(vm);
    return zv;
}

/* decompressobj(wbits=MAX_WBITS, zdict=b'') */
static Value z_decompressobj(ARGS) {
    static const char *const names[] = {"wbits", "zdict"};
    Value a[2];
    if (native_parse_args(vm, "decompressobj", argc, argv, kw, 2, 0, names, 2, a) < 0) return val_null();
    int64_t wbits;
    if (int_kw(vm, a[0], MAX_WBITS, &wbits) < 0) return val_null();
    ZObj *z = zobj_new(vm, false);
    if (!z) return val_null();
    Value zv = val_obj(z);
    vm_push_root(vm, zv);
    if (!val_is_null(a[1])) z->zdict = a[1];
    int err = inflateInit2(&z->zs, (int)wbits);
    vm_pop_root(vm);
    if (err != Z_OK) {
        if (err == Z_STREAM_ERROR) return vm_raise(vm, vm->e_ValueError, "Invalid initialization option");
        return zerror(vm, &z->zs, err, "while creating decompression object");
    }
    z->inited = true;
    /* a raw stream takes its dictionary now; a zlib stream when inflate asks for it */
    if (wbits < 0 && vm_len(vm, z->zdict) > 0) {
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, z->zdict, "decompressobj", &h, &p, &n) < 0) return val_null();
        err = inflateSetDictionary(&z->zs, p, (uInt)n);
        if (err != Z_OK) return zerror(vm, &z->zs, err, "while setting zdict");
    }
    return zv;
}

static Value c_compress(ARGS) {
    ZObj *z = ZO(argv[0]);
    if (!z->inited) return vm_raise(vm, vm->e_ValueError, "Compress object has been flushed");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "compress", &h, &p, &n) < 0) return val_null();
    z->zs.next_in = (Bytef *)p;
    z->zs.avail_in = (uInt)n;
    StrBuf out;
    sb_init(&out);
    int err = pump(vm, &z->zs, true, Z_NO_FLUSH, &out, 0, "while compressing data");
    if (err < -99) {
        sb_free(&out);
        return val_null();
    }
    BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return b ? val_obj(b) : val_null();
}

static Value c_flush(ARGS) {
    ZObj *z = ZO(argv[0]);
    int64_t mode = Z_FINISH;
    if (argc > 1 && vm_index(vm, argv[1], &mode) < 0) return val_null();
    if (mode == Z_NO_FLUSH) return empty_bytes(vm);
    if (!z->inited) return vm_raise(vm, vm->e_ValueError, "Compress object has been flushed");
    z->zs.next_in = NULL;
    z->zs.avail_in = 0;
    StrBuf out;
    sb_init(&out);
    int err = pump(vm, &z->zs, true, (int)mode, &out, 0, "while flushing");
    if (err < -99) {
        sb_free(&out);
        return val_null();
    }
    if (mode == Z_FINISH && err == Z_STREAM_END) {
        deflateEnd(&z->zs);
        z->inited = false;
    }
    BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return b ? val_obj(b) : val_null();
}

/* decompress(data, max_length=0) */
static Value d_decompress(ARGS) {
    static const char *const names[] = {"self", "data", "max_length"};
    Value a[3];
    if (native_parse_args(vm, "decompress", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    ZObj *z = ZO(argv[0]);
    int64_t max_length = 0;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &max_length) < 0) return val_null();
    if (max_length < 0) return vm_raise(vm, vm->e_ValueError, "max_length must be non-negative");
    if (!z->inited) return zerror(vm, NULL, Z_STREAM_ERROR, "while decompressing data");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[1], "decompress", &h, &p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    z->zs.next_in = (Bytef *)p;
    z->zs.avail_in = (uInt)n;
    StrBuf out;
    sb_init(&out);
    int err;
    for (;;) {
        err = pump(vm, &z->zs, false, Z_SYNC_FLUSH, &out, max_length, "while decompressing data");
        if (err == Z_NEED_DICT && vm_len(vm, z->zdict) > 0) {
            Value dh;
            const uint8_t *dp;
            int64_t dn;
            if (buffer_get(vm, z->zdict, "decompress", &dh, &dp, &dn) < 0) goto fail;
            if (inflateSetDictionary(&z->zs, dp, (uInt)dn) != Z_OK) {
                zerror(vm, &z->zs, Z_DATA_ERROR, "while setting zdict");
                goto fail;
            }
            continue;
        }
        break;
    }
    if (err < -99) goto fail;
    if (err == Z_NEED_DICT) {
        zerror(vm, &z->zs, err, "while decompressing data");
        goto fail;
    }
    /* the input not consumed: after the end of the stream it is unused data, else the tail
     * max_length left */
    {
        BytesObj *rest = bytes_new(vm, z->zs.next_in, z->zs.avail_in);
        if (!rest) goto fail;
        if (err == Z_STREAM_END) {
            z->eof = true;
            /* unused_data accumulates; rest, then u, stay rooted while the next is made (a
             * collection there freed them: GC stress, ASan) */
            vm_push_root(vm, val_obj(rest));
            int64_t ul = ((BytesObj *)z->unused_data.as.o)->len;
            BytesObj *u = bytes_new(vm, NULL, ul + rest->len);
            if (u) vm_push_root(vm, val_obj(u));
            BytesObj *empty = u ? bytes_new(vm, NULL, 0) : NULL;
            vm_pop_roots(vm, u ? 2 : 1);
            if (!empty) goto fail;
            memcpy(u->data, ((BytesObj *)z->unused_data.as.o)->data, (size_t)ul);
            memcpy(u->data + ul, rest->data, (size_t)rest->len);
            z->unused_data = val_obj(u);
            z->unconsumed_tail = val_obj(empty);
        } else {
            z->unconsumed_tail = val_obj(rest);
        }
    }
    vm_pop_root(vm);
    {
        BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
        sb_free(&out);
        return b ? val_obj(b) : val_null();
    }
fail:
    vm_pop_root(vm);
    sb_free(&out);
    return val_null();
}

static Value d_flush(ARGS) {
    ZObj *z = ZO(argv[0]);
    if (!z->inited) return empty_bytes(vm);
    Value tail = z->unconsumed_tail;
    vm_push_root(vm, tail);
    z->zs.next_in = ((BytesObj *)tail.as.o)->data;
    z->zs.avail_in = (uInt)((BytesObj *)tail.as.o)->len;
    StrBuf out;
    sb_init(&out);
    int err = pump(vm, &z->zs, false, Z_FINISH, &out, 0, "while flushing");
    vm_pop_root(vm);
    if (err < -99) {
        sb_free(&out);
        return val_null();
    }
    if (err == Z_STREAM_END) z->eof = true;
    BytesObj *empty = bytes_new(vm, NULL, 0);
    if (!empty) {
        sb_free(&out);
        return val_null();
    }
    z->unconsumed_tail = val_obj(empty);
    BytesObj *b = bytes_new(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return b ? val_obj(b) : val_null();
}

static Value z_copy(ARGS) {
    ZObj *z = ZO(argv[0]);
    if (!z->inited) return vm_raise(vm, vm->e_ValueError, "Inconsistent stream state");
    ZObj *c = zobj_new(vm, z->deflating);
    if (!c) return val_null();
    int err = z->deflating ? deflateCopy(&c->zs, &z->zs) : inflateCopy(&c->zs, &z->zs);
    if (err != Z_OK) return zerror(vm, &z->zs, err, "while copying compression object");
    c->inited = true;
    c->eof = z->eof;
    c->unused_data = z->unused_data;
    c->unconsumed_tail = z->unconsumed_tail;
    c->zdict = z->zdict;
    return val_obj(c);
}

static Value d_unused(VM *vm, Value s, void *c) { return ZO(s)->unused_data; }
static Value d_tail(VM *vm, Value s, void *c) { return ZO(s)->unconsumed_tail; }
static Value d_eof(VM *vm, Value s, void *c) { return val_bool(ZO(s)->eof); }

int zlib_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_zlib_error])) {
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_Exception));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        Value err = val_null();
        if (ns) {
            vm_push_root(vm, val_obj(ns));
            if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "zlib")) == 0)
                err = type_new_class(vm, vm->t_type, vm_intern_str(vm, "error"), bases, ns, 0, NULL, NULL);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (val_is_null(err)) return -1;
        vm->lib[VM_LIB_zlib_error] = err;
        static const char *const tn[2] = {"Compress", "Decompress"};
        for (int i = 0; i < 2; i++) {
            TypeObj *t = type_new_builtin(vm, tn[i], vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ZObj), 0, zobj_trace,
                                          zobj_finalize, TYPEF_ABSTRACT_NEW);
            if (!t) return -1;
            t->module = vm_intern(vm, "zlib");
            vm->lib[i ? VM_LIB_zlib_decompress : VM_LIB_zlib_compress] = val_obj(t);
        }
        static const MethodDef cm[] = {
            {"compress", c_compress, NATIVEF_METHOD | ARITY_O}, {"flush", c_flush, NATIVEF_METHOD | ARITY_POS(0, 1)},
            {"copy", z_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"__copy__", z_copy, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        static const MethodDef dm[] = {
            {"decompress", d_decompress, NATIVEF_METHOD}, {"flush", d_flush, NATIVEF_METHOD | ARITY_POS(0, 1)},
            {"copy", z_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"__copy__", z_copy, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        static const GetSetDef dg[] = {{"unused_data", d_unused}, {"unconsumed_tail", d_tail}, {"eof", d_eof}, {NULL}};
        if (type_add_methods(vm, AS_TYPE(vm->lib[VM_LIB_zlib_compress]), cm) < 0 ||
            type_add_methods(vm, AS_TYPE(vm->lib[VM_LIB_zlib_decompress]), dm) < 0 ||
            type_add_getsets(vm, AS_TYPE(vm->lib[VM_LIB_zlib_decompress]), dg) < 0)
            return -1;
    }
    static const MethodDef fns[] = {
        {"compress", z_compress}, {"decompress", z_decompress}, {"compressobj", z_compressobj},
        {"decompressobj", z_decompressobj}, {"crc32", z_checksum, ARITY_POS(1, 2)},
        {"adler32", z_checksum, ARITY_POS(1, 2), (void *)1}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    static const struct { const char *n; int v; } consts[] = {
        {"MAX_WBITS", MAX_WBITS}, {"DEFLATED", Z_DEFLATED}, {"DEF_MEM_LEVEL", 8}, {"DEF_BUF_SIZE", DEF_BUF_SIZE},
        {"Z_NO_COMPRESSION", Z_NO_COMPRESSION}, {"Z_BEST_SPEED", Z_BEST_SPEED},
        {"Z_BEST_COMPRESSION", Z_BEST_COMPRESSION}, {"Z_DEFAULT_COMPRESSION", Z_DEFAULT_COMPRESSION},
        {"Z_FILTERED", Z_FILTERED}, {"Z_HUFFMAN_ONLY", Z_HUFFMAN_ONLY}, {"Z_RLE", Z_RLE}, {"Z_FIXED", Z_FIXED},
        {"Z_DEFAULT_STRATEGY", Z_DEFAULT_STRATEGY}, {"Z_NO_FLUSH", Z_NO_FLUSH}, {"Z_PARTIAL_FLUSH", Z_PARTIAL_FLUSH},
        {"Z_SYNC_FLUSH", Z_SYNC_FLUSH}, {"Z_FULL_FLUSH", Z_FULL_FLUSH}, {"Z_FINISH", Z_FINISH}, {"Z_BLOCK", Z_BLOCK},
        {"Z_TREES", Z_TREES}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return module_set(vm, mod, "error", vm->lib[VM_LIB_zlib_error]) < 0 ||
                   module_set(vm, mod, "ZLIB_VERSION", vm_intern(vm, ZLIB_VERSION)) < 0 ||
                   module_set(vm, mod, "ZLIB_RUNTIME_VERSION", vm_intern(vm, zlibVersion())) < 0
               ? -1
               : 0;
}
