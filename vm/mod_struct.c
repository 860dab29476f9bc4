/* vm/mod_struct.c — the _struct module that CPython's struct.py re-exports: format parsing with
 * byte orders (@ native aligned, = < > ! standard sizes), every format character (x c b B ? h H
 * i I l L q Q n N e f d s p P), pack / unpack / pack_into / unpack_from / iter_unpack / calcsize,
 * the Struct type (with a cache of compiled formats, as CPython keeps) and struct.error, with
 * CPython's messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct FmtItem {
    char code;
    int64_t count;    /* repeat (for s / p: the byte length) */
    int64_t offset;   /* of the first element */
    int size;         /* of one element */
} FmtItem;

typedef struct StructObj {
    Obj hdr;
    Value format;     /* str */
    FmtItem *items;
    int nitems;
    int64_t size;     /* bytes */
    int64_t nvalues;  /* values packed / unpacked */
    char order;       /* '@' native aligned, '<' little, '>' big, '=' native standard */
    DictObj *dict;
} StructObj;

#define ST(v) ((StructObj *)(v).as.o)

static Value struct_error(VM *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static Value struct_error(VM *vm, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    StrObj *s = str_from_c(vm, buf);
    if (!s) return val_null();
    return vm_raise_str(vm, AS_TYPE(vm->lib[VM_LIB_struct_error]), s);
}

static void struct_trace(VM *vm, Obj *o) {
    gc_mark_value(vm, ((StructObj *)o)->format);
    gc_mark(vm, ((StructObj *)o)->dict);
}

static void struct_finalize(VM *vm, Obj *o) {
    free(((StructObj *)o)->items);
    ((StructObj *)o)->items = NULL;
}

/* size and alignment of a code in native mode, size in standard mode; 0 if unknown */
static int native_size(char c, int *align) {
    switch (c) {
    case 'x': case 'c': case 'b': case 'B': case '?': case 's': case 'p': *align = 1; return 1;
    case 'h': case 'H': *align = 2; return 2;
    case 'i': case 'I': *align = 4; return 4;
    case 'l': case 'L': case 'q': case 'Q': case 'n': case 'N': case 'P': *align = 8; return 8;
    case 'e': *align = 2; return 2;
    case 'f': *align = 4; return 4;
    case 'd': *align = 8; return 8;
    default: return 0;
    }
}

static int std_size(char c) {
    switch (c) {
    case 'x': case 'c': case 'b': case 'B': case '?': case 's': case 'p': return 1;
    case 'h': case 'H': case 'e': return 2;
    case 'i': case 'I': case 'l': case 'L': case 'f': return 4;
    case 'q': case 'Q': case 'd': return 8;
    default: return 0;
    }
}

/* Compile fmt into s; -1 + struct.error */
static int compile_format(VM *vm, StructObj *s, const char *fmt, int64_t len) {
    const char *p = fmt, *end = fmt + len;
    char order = '@';
    if (p < end && strchr("@=<>!", *p)) {
        order = *p == '!' ? '>' : *p;
        p++;
    }
    FmtItem *items = NULL;
    int n = 0, cap = 0;
    int64_t size = 0, nvalues = 0;
    while (p < end) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f') {
            p++;
            continue;
        }
        int64_t count = 1;
        bool had_count = false;
        if (*p >= '0' && *p <= '9') {
            count = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                if (count > (INT64_MAX - 9) / 10) {
                    free(items);
                    struct_error(vm, "total struct size too long");
                    return -1;
                }
                count = count * 10 + (*p++ - '0');
            }
            had_count = true;
            if (p >= end) {
                free(items);
                struct_error(vm, "repeat count given without format specifier");
                return -1;
            }
        }
        char c = *p++;
        int align = 1, sz;
        if (order == '@') sz = native_size(c, &align);
        else {
            sz = std_size(c);
            align = 1;
        }
        if (!sz) {
            free(items);
            struct_error(vm, "bad char in struct format");
            return -1;
        }
        (void)had_count;
        if (order == '@' && align > 1) size = (size + align - 1) / align * align;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            items = realloc(items, sizeof(FmtItem) * (size_t)cap);
        }
        items[n++] = (FmtItem){c, count, size, sz};
        if (c == 's' || c == 'p') {
            size += count;
            nvalues += 1;
        } else {
            size += (int64_t)sz * count;
            if (c != 'x') nvalues += count;
        }
        if (size < 0) {
            free(items);
            struct_error(vm, "total struct size too long");
            return -1;
        }
    }
    free(s->items);
    s->items = items;
    s->nitems = n;
    s->size = size;
    s->nvalues = nvalues;
    s->order = order;
    return 0;
}

static bool little_endian(char order) { return order == '<' || order == '@' || order == '='; }

static void put_uint(uint8_t *dst, uint64_t v, int size, bool little) {
    for (int i = 0; i < size; i++) dst[little ? i : size - 1 - i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_uint(const uint8_t *src, int size, bool little) {
    uint64_t v = 0;
    for (int i = 0; i < size; i++) v |= (uint64_t)src[little ? i : size - 1 - i] << (8 * i);
    return v;
}

/* IEEE half precision (CPython's PyFloat_Pack2 / Unpack2) */
static int pack_half(VM *vm, double x, uint8_t *dst, bool little) {
    uint16_t bits;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x)) bits = sign | 0x7e00;
    else if (isinf(x)) bits = sign | 0x7c00;
    else {
        double a = fabs(x);
        int e;
        double f = frexp(a, &e);   /* a = f * 2**e, 0.5 <= f < 1 */
        if (a == 0) bits = sign;
        else {
            e -= 1;
            f *= 2;   /* 1 <= f < 2 */
            if (e < -14) {
                /* subnormal: round f * 2**(e+24) to an integer */
                double m = ldexp(a, 24);
                double r = nearbyint(m);
                bits = sign | (uint16_t)r;
            } else {
                double m = (f - 1) * 1024;
                double r = nearbyint(m);
                int ee = e + 15;
                if (r >= 1024) {
                    r = 0;
                    ee++;
                }
                if (ee >= 31) {
                    vm_raise(vm, vm->e_OverflowError, "float too large to pack with e format");
                    return -1;
                }
                bits = sign | (uint16_t)(ee << 10) | (uint16_t)r;
            }
        }
    }
    put_uint(dst, bits, 2, little);
    return 0;
}

static double unpack_half(const uint8_t *src, bool little) {
    uint16_t b = (uint16_t)get_uint(src, 2, little);
    int sign = b >> 15, e = (b >> 10) & 0x1f, m = b & 0x3ff;
    double x;
    if (e == 0) x = ldexp(m, -24);
    else if (e == 31) x = m ? NAN : INFINITY;
    else x = ldexp(m + 1024, e - 25);
    return sign ? -x : x;
}

static int get_long(VM *vm, Value v, int64_t *out) {
    if (!val_is_intlike(v)) {
        TypeObj *t = vm_type_of(vm, v);
        if (val_is_float(v) || val_is_null(type_lookup(vm, t, vm->special_names[SP_INDEX]))) {
            struct_error(vm, "required argument is not an integer");
            return -1;
        }
    }
    return vm_index(vm, v, out);
}

/* An integer argument as 64 bits: *x holds it when it fits int64; a value in
 * (INT64_MAX, UINT64_MAX] (only unsigned 8-byte codes take it) sets *high and *x holds its bits.
 * OverflowError beyond. */
static int get_int64_or_u64(VM *vm, Value v, int64_t *x, bool *high) {
    *high = false;
    if (val_is_int(v)) {
        *x = v.as.i;
        return 0;
    }
    if (!val_is_intobj(v)) return get_long(vm, v, x);
    mpz_t z;
    mpz_init(z);
    bigint_load(v, z);
    int rc = 0;
    if (mpz_sgn(z) > 0 && mpz_sizeinbase(z, 2) <= 64) {
        *high = mpz_sizeinbase(z, 2) == 64;
        uint64_t u = 0;
        mpz_export(&u, NULL, -1, sizeof u, 0, 0, z);
        *x = (int64_t)u;
    } else if (mpz_fits_slong_p(z)) {
        *x = mpz_get_si(z);
    } else {
        vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C long");
        rc = -1;
    }
    mpz_clear(z);
    return rc;
}

static int pack_one(VM *vm, StructObj *s, const FmtItem *it, Value v, uint8_t *dst) {
    bool little = little_endian(s->order);
    char c = it->code;
    int64_t x;
    switch (c) {
    case 'c': {
        if (!vm_isinstance_type(vm, v, vm->t_bytes) || ((BytesObj *)v.as.o)->len != 1) {
            struct_error(vm, "char format requires a bytes object of length 1");
            return -1;
        }
        dst[0] = ((BytesObj *)v.as.o)->data[0];
        return 0;
    }
    case '?': {
        int t = vm_truthy(vm, v);
        if (t < 0) return -1;
        dst[0] = (uint8_t)t;
        return 0;
    }
    case 'e': case 'f': case 'd': {
        double d;
        if (val_is_float(v)) d = v.as.f;
        else if (val_is_intlike(v)) d = (double)val_as_intlike(v);
        else if (vm_to_double(vm, v, &d) < 0) {
            vm_clear_exc(vm);
            struct_error(vm, "required argument is not a float");
            return -1;
        }
        if (c == 'e') return pack_half(vm, d, dst, little);
        if (c == 'f') {
            float f = (float)d;
            if (isinf(f) && !isinf(d)) {
                vm_raise(vm, vm->e_OverflowError, "float too large to pack with f format");
                return -1;
            }
            uint32_t u;
            memcpy(&u, &f, 4);
            put_uint(dst, u, 4, little);
        } else {
            uint64_t u;
            memcpy(&u, &d, 8);
            put_uint(dst, u, 8, little);
        }
        return 0;
    }
    default:
        break;
    }
    bool high;
    if (get_int64_or_u64(vm, v, &x, &high) < 0) {
        if (vm_exc_matches(vm, vm->e_OverflowError)) {
            vm_clear_exc(vm);
            struct_error(vm, "argument out of range");
        }
        return -1;
    }
    bool is_unsigned = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N';
    int size = it->size;
    if (c == 'P') {   /* a pointer: any value of 64 bits, negative ones as their two's complement */
        put_uint(dst, (uint64_t)x, 8, little);
        return 0;
    }
    if (high && !(is_unsigned && size == 8)) {
        struct_error(vm, size == 8 ? "argument out of range" : "'%c' format requires 0 <= number <= %llu", c,
                     (unsigned long long)(UINT64_MAX >> (64 - 8 * size)));
        return -1;
    }
    if (is_unsigned && high) {
        put_uint(dst, (uint64_t)x, size, little);
        return 0;
    }
    if (is_unsigned) {
        uint64_t max = size < 8 ? UINT64_MAX >> (64 - 8 * size) : UINT64_MAX;
        if (x < 0 || (uint64_t)x > max) {
            if (c == 'B') struct_error(vm, "ubyte format requires 0 <= number <= 255");
            else if (c == 'H') struct_error(vm, "ushort format requires 0 <= number <= 65535");
            else if (x < 0 || size == 8) struct_error(vm, "argument out of range");
            else struct_error(vm, "'%c' format requires 0 <= number <= %llu", c, (unsigned long long)max);
            return -1;
        }
    } else if (size < 8) {
        int64_t lim = (int64_t)1 << (8 * size - 1);
        if (x < -lim || x >= lim) {
            if (c == 'b') struct_error(vm, "byte format requires -128 <= number <= 127");
            else if (c == 'h') struct_error(vm, "short format requires -32768 <= number <= 32767");
            else struct_error(vm, "'%c' format requires %lld <= number <= %lld", c, (long long)-lim, (long long)(lim - 1));
            return -1;
        }
    }
    put_uint(dst, (uint64_t)x, size, little);
    return 0;
}

static Value unpack_one(VM *vm, StructObj *s, const FmtItem *it, const uint8_t *src) {
    bool little = little_endian(s->order);
    char c = it->code;
    switch (c) {
    case 'c': {
        BytesObj *b = bytes_new(vm, src, 1);
        return b ? val_obj(b) : val_null();
    }
    case '?': return val_bool(src[0] != 0);
    case 'e': return val_float(unpack_half(src, little));
    case 'f': {
        uint32_t u = (uint32_t)get_uint(src, 4, little);
        float f;
        memcpy(&f, &u, 4);
        return val_float(f);
    }
    case 'd': {
        uint64_t u = get_uint(src, 8, little);
        double d;
        memcpy(&d, &u, 8);
        return val_float(d);
    }
    default: break;
    }
    int size = it->size;
    uint64_t u = get_uint(src, size, little);
    bool is_unsigned = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N' || c == 'P';
    if (is_unsigned) {
        return u > (uint64_t)INT64_MAX ? bigint_from_u64(vm, u) : val_int((int64_t)u);
    }
    if (size < 8 && (u >> (8 * size - 1)) & 1) u |= ~(uint64_t)0 << (8 * size);
    return val_int((int64_t)u);
}

/* pack the values (n of them) into dst (s->size bytes, zeroed) */
static int pack_into_buf(VM *vm, StructObj *s, const Value *vals, int64_t n, uint8_t *dst) {
    if (n != s->nvalues) {
        struct_error(vm, "pack expected %lld items for packing (got %lld)", (long long)s->nvalues, (long long)n);
        return -1;
    }
    int64_t k = 0;
    for (int i = 0; i < s->nitems; i++) {
        const FmtItem *it = &s->items[i];
        if (it->code == 'x') continue;
        if (it->code == 's' || it->code == 'p') {
            Value v = vals[k++];
            if (!vm_isinstance_type(vm, v, vm->t_bytes) && strcmp(vm_type_name(vm, v), "bytearray") != 0) {
                struct_error(vm, "argument for '%c' must be a bytes object", it->code);
                return -1;
            }
            Value h;
            const uint8_t *p;
            int64_t len;
            if (buffer_get(vm, v, "pack", &h, &p, &len) < 0) return -1;
            uint8_t *d = dst + it->offset;
            if (it->code == 's') {
                memcpy(d, p, (size_t)(len < it->count ? len : it->count));
            } else if (it->count > 0) {
                int64_t m = len < it->count - 1 ? len : it->count - 1;
                if (m > 255) m = 255;
                d[0] = (uint8_t)m;
                memcpy(d + 1, p, (size_t)m);
            }
            continue;
        }
        for (int64_t j = 0; j < it->count; j++)
            if (pack_one(vm, s, it, vals[k++], dst + it->offset + j * it->size) < 0) return -1;
    }
    return 0;
}

static Value unpack_buf(VM *vm, StructObj *s, const uint8_t *src) {
    TupleObj *t = tuple_new(vm, s->nvalues);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    int64_t k = 0;
    for (int i = 0; i < s->nitems; i++) {
        const FmtItem *it = &s->items[i];
        if (it->code == 'x') continue;
        Value v;
        if (it->code == 's' || it->code == 'p') {
            const uint8_t *d = src + it->offset;
            int64_t len = it->count;
            if (it->code == 'p' && len > 0) {
                int64_t m = d[0];
                d++;
                len = m < it->count - 1 ? m : it->count - 1;
            } else if (it->code == 'p') {
                len = 0;
            }
            BytesObj *b = bytes_new(vm, d, len);
            if (!b) goto fail;
            t->items[k++] = val_obj(b);
            continue;
        }
        for (int64_t j = 0; j < it->count; j++) {
            v = unpack_one(vm, s, it, src + it->offset + j * it->size);
            if (val_is_null(v)) goto fail;
            t->items[k++] = v;
        }
    }
    vm_pop_root(vm);
    return val_obj(t);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- the Struct type and the cache ---------------------------------------------------------------- */

static Value struct_alloc(VM *vm, TypeObj *t) {
    StructObj *s = gc_alloc(vm, t, t->instance_size);
    if (!s) return val_null();
    s->format = val_none();
    return val_obj(s);
}

static Value st_init(ARGS) {
    static const char *const names[] = {"self", "format"};
    Value a[2];
    if (native_parse_args(vm, "Struct", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    Value f = a[1];
    const char *p;
    int64_t n;
    if (val_is_str(vm, f)) {
        p = AS_STR(f)->data;
        n = AS_STR(f)->len;
    } else if (vm_isinstance_type(vm, f, vm->t_bytes)) {
        p = (const char *)((BytesObj *)f.as.o)->data;
        n = ((BytesObj *)f.as.o)->len;
        StrObj *s = str_new(vm, p, n);
        if (!s) return val_null();
        f = val_obj(s);
    } else {
        return vm_raise(vm, vm->e_TypeError, "Struct() argument 1 must be a str or bytes object, not %s",
                        vm_type_name(vm, f));
    }
    StructObj *s = ST(argv[0]);
    if (compile_format(vm, s, AS_STR(f)->data, AS_STR(f)->len) < 0) return val_null();
    s->format = f;
    return val_none();
}

/* the Struct for a format, from the cache (CPython keeps 100) */
static Value cached_struct(VM *vm, Value fmt) {
    if (val_is_type(vm, fmt, AS_TYPE(vm->lib[VM_LIB_struct_type]))) return fmt;
    if (val_is_null(vm->lib[VM_LIB_struct_cache])) {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        vm->lib[VM_LIB_struct_cache] = val_obj(d);
    }
    DictObj *cache = AS_DICT(vm->lib[VM_LIB_struct_cache]);
    Value s;
    int r = dict_lookup(vm, cache, fmt, &s);
    if (r < 0) return val_null();
    if (r) return s;
    s = type_call(vm, AS_TYPE(vm->lib[VM_LIB_struct_type]), 1, &fmt, NULL);
    if (val_is_null(s)) return s;
    vm_push_root(vm, s);
    if (cache->used >= 100) dict_clear(vm, cache);
    int rc = dict_set(vm, cache, fmt, s);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : s;
}

static Value do_pack(VM *vm, StructObj *s, int argc, Value *argv) {
    BytesObj *b = bytes_new(vm, NULL, s->size);
    if (!b) return val_null();
    vm_push_root(vm, val_obj(b));
    int rc = pack_into_buf(vm, s, argv, argc, b->data);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(b);
}

static int64_t buffer_len_check(VM *vm, StructObj *s, Value buf, int64_t offset, const uint8_t **p, Value *h, bool from) {
    int64_t n;
    if (buffer_get(vm, buf, from ? "unpack_from" : "unpack", h, p, &n) < 0) return -1;
    if (!from) {
        if (n != s->size) {
            struct_error(vm, "unpack requires a buffer of %lld bytes", (long long)s->size);
            return -1;
        }
        return 0;
    }
    if (offset < 0) {
        if (offset + s->size > 0) {
            struct_error(vm, "not enough data to unpack %lld bytes at offset %lld", (long long)s->size, (long long)offset);
            return -1;
        }
        if (offset + n < 0) {
            struct_error(vm, "offset %lld out of range for %lld-byte buffer", (long long)offset, (long long)n);
            return -1;
        }
        offset += n;
    }
    if (n - offset < s->size) {
        if (offset > n)
            struct_error(vm, "offset %lld out of range for %lld-byte buffer", (long long)offset, (long long)n);
        else
            struct_error(vm, "unpack_from requires a buffer of at least %lld bytes for unpacking %lld bytes at offset %lld "
                             "(actual buffer size is %lld)",
                         (long long)(s->size + offset), (long long)s->size, (long long)offset, (long long)n);
        return -1;
    }
    return offset;
}

static Value do_unpack_from(VM *vm, StructObj *s, Value buf, int64_t offset, bool from) {
    const uint8_t *p;
    Value h;
    int64_t off = buffer_len_check(vm, s, buf, offset, &p, &h, from);
    if (off < 0) return val_null();
    vm_push_root(vm, h);
    Value r = unpack_buf(vm, s, p + off);
    vm_pop_root(vm);
    return r;
}

static Value do_pack_into(VM *vm, StructObj *s, int argc, Value *argv) {
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "pack_into expected buffer argument");
    int64_t offset;
    if (vm_index(vm, argv[1], &offset) < 0) return val_null();
    uint8_t *tmp = calloc(1, (size_t)s->size + 1);
    int rc = pack_into_buf(vm, s, argv + 2, argc - 2, tmp);
    if (rc < 0) {
        free(tmp);
        return val_null();
    }
    int64_t n = vm_len(vm, argv[0]);
    if (n < 0) {
        free(tmp);
        return val_null();
    }
    if (offset < 0) {
        if (offset + s->size > 0) {
            free(tmp);
            return struct_error(vm, "no space to pack %lld bytes at offset %lld", (long long)s->size, (long long)offset);
        }
        if (offset + n < 0) {
            free(tmp);
            return struct_error(vm, "offset %lld out of range for %lld-byte buffer", (long long)offset, (long long)n);
        }
        offset += n;
    }
    if (n - offset < s->size) {
        free(tmp);
        if (offset > n) return struct_error(vm, "offset %lld out of range for %lld-byte buffer", (long long)offset, (long long)n);
        return struct_error(vm, "pack_into requires a buffer of at least %lld bytes for packing %lld bytes at offset %lld "
                                "(actual buffer size is %lld)",
                            (long long)(s->size + offset), (long long)s->size, (long long)offset, (long long)n);
    }
    /* the target is a writable buffer (bytearray, memoryview): buf[offset:offset+size] = data */
    BytesObj *b = bytes_new(vm, tmp, s->size);
    free(tmp);
    if (!b) return val_null();
    vm_push_root(vm, val_obj(b));
    Value sl = slice_new(vm, val_int(offset), val_int(offset + s->size), val_none());
    int r = val_is_null(sl) ? -1 : vm_setitem(vm, argv[0], sl, val_obj(b));
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_none();
}

static Value st_pack(ARGS) { return do_pack(vm, ST(argv[0]), argc - 1, argv + 1); }
static Value st_pack_into(ARGS) { return do_pack_into(vm, ST(argv[0]), argc - 1, argv + 1); }
static Value st_unpack(ARGS) { return do_unpack_from(vm, ST(argv[0]), argv[1], 0, false); }

static Value st_unpack_from(ARGS) {
    static const char *const names[] = {"self", "buffer", "offset"};
    Value a[3];
    if (native_parse_args(vm, "unpack_from", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    int64_t off = 0;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &off) < 0) return val_null();
    return do_unpack_from(vm, ST(argv[0]), a[1], off, true);
}

/* iter_unpack: a list iterator over the unpacked tuples (CPython returns an unpack_iterator) */
static Value do_iter_unpack(VM *vm, StructObj *s, Value buf) {
    Value h;
    const uint8_t *p;
    int64_t n;
    if (s->size == 0) return struct_error(vm, "cannot iteratively unpack with a struct of length 0");
    if (buffer_get(vm, buf, "iter_unpack", &h, &p, &n) < 0) return val_null();
    if (n % s->size)
        return struct_error(vm, "iterative unpacking requires a buffer of a multiple of %lld bytes", (long long)s->size);
    vm_push_root(vm, h);
    ListObj *l = list_new(vm, 0);
    if (!l) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(l));
    for (int64_t off = 0; off < n; off += s->size) {
        Value t = unpack_buf(vm, s, p + off);
        if (val_is_null(t) || list_append(vm, l, t) < 0) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
    }
    Value it = vm_iter(vm, val_obj(l));
    vm_pop_roots(vm, 2);
    return it;
}

static Value st_iter_unpack(ARGS) { return do_iter_unpack(vm, ST(argv[0]), argv[1]); }
static Value st_format(VM *vm, Value self, void *c) { return ST(self)->format; }
static Value st_size(VM *vm, Value self, void *c) { return val_int(ST(self)->size); }

/* ---- module functions ------------------------------------------------------------------------------- */

static Value m_calcsize(ARGS) {
    Value s = cached_struct(vm, argv[0]);
    return val_is_null(s) ? s : val_int(ST(s)->size);
}

static Value m_pack(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "pack expected at least 1 argument, got 0");
    Value s = cached_struct(vm, argv[0]);
    return val_is_null(s) ? s : do_pack(vm, ST(s), argc - 1, argv + 1);
}

static Value m_pack_into(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "pack_into expected at least 1 argument");
    Value s = cached_struct(vm, argv[0]);
    return val_is_null(s) ? s : do_pack_into(vm, ST(s), argc - 1, argv + 1);
}

static Value m_unpack(ARGS) {
    Value s = cached_struct(vm, argv[0]);
    return val_is_null(s) ? s : do_unpack_from(vm, ST(s), argv[1], 0, false);
}

static Value m_unpack_from(ARGS) {
    static const char *const names[] = {"format", "buffer", "offset"};
    Value a[3];
    if (native_parse_args(vm, "unpack_from", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    int64_t off = 0;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &off) < 0) return val_null();
    Value s = cached_struct(vm, a[0]);
    return val_is_null(s) ? s : do_unpack_from(vm, ST(s), a[1], off, true);
}

static Value m_iter_unpack(ARGS) {
    Value s = cached_struct(vm, argv[0]);
    return val_is_null(s) ? s : do_iter_unpack(vm, ST(s), argv[1]);
}

static Value m_clearcache(ARGS) {
    if (!val_is_null(vm->lib[VM_LIB_struct_cache])) dict_clear(vm, AS_DICT(vm->lib[VM_LIB_struct_cache]));
    return val_none();
}

int struct_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_struct_type])) {
        TypeObj *t = type_new_builtin(vm, "Struct", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(StructObj),
                                      offsetof(StructObj, dict), struct_trace, struct_finalize, TYPEF_BASETYPE);
        if (!t) return -1;
        t->alloc = struct_alloc;
        t->module = vm_intern(vm, "_struct");
        vm->lib[VM_LIB_struct_type] = val_obj(t);
        static const MethodDef m[] = {
            {"__init__", st_init, NATIVEF_METHOD}, {"pack", st_pack, NATIVEF_METHOD},
            {"pack_into", st_pack_into, NATIVEF_METHOD}, {"unpack", st_unpack, NATIVEF_METHOD | ARITY_O},
            {"unpack_from", st_unpack_from, NATIVEF_METHOD}, {"iter_unpack", st_iter_unpack, NATIVEF_METHOD | ARITY_O},
            {NULL}};
        static const GetSetDef g[] = {{"format", st_format}, {"size", st_size}, {NULL}};
        if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, g) < 0) return -1;
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_Exception));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        Value err = val_null();
        if (ns) {
            vm_push_root(vm, val_obj(ns));
            if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "struct")) == 0)
                err = type_new_class(vm, vm->t_type, vm_intern_str(vm, "error"), bases, ns, 0, NULL, NULL);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (val_is_null(err)) return -1;
        vm->lib[VM_LIB_struct_error] = err;
    }
    static const MethodDef fns[] = {
        {"calcsize", m_calcsize, ARITY_O}, {"pack", m_pack}, {"pack_into", m_pack_into},
        {"unpack", m_unpack, ARITY_POS(2, 2)}, {"unpack_from", m_unpack_from},
        {"iter_unpack", m_iter_unpack, ARITY_POS(2, 2)}, {"_clearcache", m_clearcache, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "Struct", vm->lib[VM_LIB_struct_type]) < 0 ||
                   module_set(vm, mod, "error", vm->lib[VM_LIB_struct_error]) < 0 ||
                   module_set(vm, mod, "__doc__", vm_intern(vm, "Functions to convert between Python values and C structs.")) < 0
               ? -1
               : 0;
}
