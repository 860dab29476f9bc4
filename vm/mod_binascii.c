/* vm/mod_binascii.c — the binascii module base64.py, hashlib, zipfile and friends use: hex
 * (hexlify / b2a_hex with sep, unhexlify / a2b_hex), base64 (b2a_base64 with newline,
 * a2b_base64 with strict_mode, CPython's padding rules and messages), crc32 (zlib's), crc_hqx,
 * and binascii.Error / Incomplete.  The a2b_* functions take ASCII str as well as bytes. */
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

static Value bin_error(VM *vm, const char *msg, ...) __attribute__((format(printf, 2, 3)));
static Value bin_error(VM *vm, const char *msg, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, msg);
    vsnprintf(buf, sizeof buf, msg, ap);
    va_end(ap);
    StrObj *s = str_from_c(vm, buf);
    return s ? vm_raise_str(vm, AS_TYPE(vm->lib[VM_LIB_binascii_error]), s) : val_null();
}

/* bytes-like, or (for the a2b functions) an ASCII-only str */
static int ascii_data(VM *vm, Value v, bool allow_str, Value *h, const uint8_t **p, int64_t *n) {
    if (allow_str && val_is_str(vm, v)) {
        if (!str_is_ascii(AS_STR(v))) {
            vm_raise(vm, vm->e_ValueError, "string argument should contain only ASCII characters");
            return -1;
        }
        *h = val_null();
        *p = (const uint8_t *)AS_STR(v)->data;
        *n = AS_STR(v)->len;
        return 0;
    }
    if (allow_str && !val_is_obj(v)) {
        vm_raise(vm, vm->e_TypeError, "argument should be bytes, buffer or ASCII string, not '%s'", vm_type_name(vm, v));
        return -1;
    }
    return buffer_get(vm, v, "binascii", h, p, n);
}

static Value bytes_of(VM *vm, const uint8_t *p, int64_t n) {
    BytesObj *b = bytes_new(vm, p, n);
    return b ? val_obj(b) : val_null();
}

/* ---- hex ------------------------------------------------------------------------------------------ */

/* hexlify(data, sep=None, bytes_per_sep=1) */
static Value b_hexlify(ARGS) {
    static const char *const names[] = {"data", "sep", "bytes_per_sep"};
    Value a[3];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], fn->name, &h, &p, &n) < 0) return val_null();
    char sep = 0;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        const uint8_t *sp;
        int64_t sn;
        Value sh;
        if (val_is_str(vm, a[1])) {
            sp = (const uint8_t *)AS_STR(a[1])->data;
            sn = AS_STR(a[1])->len;
            if (!str_is_ascii(AS_STR(a[1]))) return vm_raise(vm, vm->e_ValueError, "sep must be ASCII.");
        } else if (buffer_get(vm, a[1], fn->name, &sh, &sp, &sn) < 0) {
            return val_null();
        }
        if (sn != 1) return vm_raise(vm, vm->e_ValueError, "sep must be length 1.");
        sep = (char)sp[0];
    }
    int64_t per = 1;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &per) < 0) return val_null();
    static const char hex[] = "0123456789abcdef";
    StrBuf b;
    sb_init(&b);
    int64_t group = per < 0 ? -per : per;
    for (int64_t i = 0; i < n; i++) {
        if (sep && group && i) {
            /* bytes_per_sep > 0 groups from the right, < 0 from the left */
            int64_t k = per > 0 ? n - i : i;
            if (k % group == 0) sb_addc(&b, sep);
        }
        sb_addc(&b, hex[p[i] >> 4]);
        sb_addc(&b, hex[p[i] & 15]);
    }
    Value r = bytes_of(vm, (const uint8_t *)b.data, (int64_t)b.len);
    sb_free(&b);
    return r;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static Value b_unhexlify(ARGS) {
    Value h;
    const uint8_t *p;
    int64_t n;
    if (ascii_data(vm, argv[0], true, &h, &p, &n) < 0) return val_null();
    if (n % 2) return bin_error(vm, "Odd-length string");
    BytesObj *b = bytes_new(vm, NULL, n / 2);
    if (!b) return val_null();
    for (int64_t i = 0; i < n; i += 2) {
        int hi = hexval(p[i]), lo = hexval(p[i + 1]);
        if (hi < 0 || lo < 0) return bin_error(vm, "Non-hexadecimal digit found");
        b->data[i / 2] = (uint8_t)(hi * 16 + lo);
    }
    return val_obj(b);
}

/* ---- base64 ------------------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* b2a_base64(data, *, newline=True) */
static Value b_b2a_base64(ARGS) {
    static const char *const names[] = {"data", "newline"};
    Value a[2];
    if (native_parse_args(vm, "b2a_base64", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "b2a_base64", &h, &p, &n) < 0) return val_null();
    bool newline = val_is_null(a[1]) || vm_truthy(vm, a[1]) > 0;
    int64_t out_len = (n + 2) / 3 * 4 + (newline ? 1 : 0);
    BytesObj *b = bytes_new(vm, NULL, out_len);
    if (!b) return val_null();
    uint8_t *o = b->data;
    int64_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = (uint8_t)b64[v >> 18];
        *o++ = (uint8_t)b64[(v >> 12) & 63];
        *o++ = (uint8_t)b64[(v >> 6) & 63];
        *o++ = (uint8_t)b64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        *o++ = (uint8_t)b64[v >> 18];
        *o++ = (uint8_t)b64[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        *o++ = (uint8_t)b64[v >> 18];
        *o++ = (uint8_t)b64[(v >> 12) & 63];
        *o++ = (uint8_t)b64[(v >> 6) & 63];
        *o++ = '=';
    }
    if (newline) *o++ = '\n';
    return val_obj(b);
}

static int b64val(int c) {
    const char *q = c ? strchr(b64, c) : NULL;
    return q ? (int)(q - b64) : -1;
}

/* a2b_base64(data, /, *, strict_mode=False): CPython's decoder, padding rules included */
static Value b_a2b_base64(ARGS) {
    static const char *const names[] = {"data", "strict_mode"};
    Value a[2];
    if (native_parse_args(vm, "a2b_base64", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (ascii_data(vm, a[0], true, &h, &p, &n) < 0) return val_null();
    bool strict = !val_is_null(a[1]) && vm_truthy(vm, a[1]) > 0;
    StrBuf out;
    sb_init(&out);
    int quad_pos = 0, left = 0, pads = 0;
    bool padding_started = false;
    int64_t data_chars = 0;
    if (strict && n > 0 && p[0] == '=') {
        sb_free(&out);
        return bin_error(vm, "Leading padding not allowed");
    }
    for (int64_t i = 0; i < n; i++) {
        int c = p[i];
        if (c == '=') {
            padding_started = true;
            if (quad_pos >= 2 && quad_pos + ++pads >= 4) {
                if (strict && i + 1 < n) {
                    sb_free(&out);
                    return bin_error(vm, "Excess data after padding");
                }
                goto done;
            }
            continue;
        }
        int v = b64val(c);
        if (v < 0) {
            if (strict) {
                sb_free(&out);
                return bin_error(vm, "Only base64 data is allowed");
            }
            continue;
        }
        if (strict && padding_started) {
            sb_free(&out);
            return bin_error(vm, "Discontinuous padding not allowed");
        }
        pads = 0;
        data_chars++;
        switch (quad_pos) {
        case 0: quad_pos = 1; left = v; break;
        case 1: quad_pos = 2; sb_addc(&out, (char)((left << 2) | (v >> 4))); left = v & 0x0f; break;
        case 2: quad_pos = 3; sb_addc(&out, (char)((left << 4) | (v >> 2))); left = v & 0x03; break;
        default: quad_pos = 0; sb_addc(&out, (char)((left << 6) | v)); left = 0; break;
        }
    }
    if (quad_pos != 0) {
        sb_free(&out);
        if (quad_pos == 1)
            return bin_error(vm,
                             "Invalid base64-encoded string: number of data characters (%lld) cannot be 1 more than a "
                             "multiple of 4",
                             (long long)data_chars);
        return bin_error(vm, "Incorrect padding");
    }
done: {
    Value r = bytes_of(vm, (const uint8_t *)out.data, (int64_t)out.len);
    sb_free(&out);
    return r;
}
}

/* ---- checksums ------------------------------------------------------------------------------------ */

static Value b_crc32(ARGS) {
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[0], "crc32", &h, &p, &n) < 0) return val_null();
    int64_t start = 0;
    if (argc > 1 && vm_index(vm, argv[1], &start) < 0) return val_null();
    uLong c = (uLong)(uint32_t)start;
    while (n > 0) {
        uInt chunk = n > (1 << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return val_int((int64_t)(uint32_t)c);
}

static Value b_crc_hqx(ARGS) {
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[0], "crc_hqx", &h, &p, &n) < 0) return val_null();
    int64_t start;
    if (vm_index(vm, argv[1], &start) < 0) return val_null();
    uint32_t crc = (uint32_t)start & 0xffff;
    for (int64_t i = 0; i < n; i++) {
        crc ^= (uint32_t)p[i] << 8;
        for (int k = 0; k < 8; k++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
        crc &= 0xffff;
    }
    return val_int(crc);
}

static Value make_error_class(VM *vm, const char *name, TypeObj *base) {
    TupleObj *bases = tuple_pack(vm, 1, val_obj(base));
    if (!bases) return val_null();
    vm_push_root(vm, val_obj(bases));
    DictObj *ns = dict_new(vm);
    Value t = val_null();
    if (ns) {
        vm_push_root(vm, val_obj(ns));
        if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "binascii")) == 0)
            t = type_new_class(vm, vm->t_type, vm_intern_str(vm, name), bases, ns, 0, NULL, NULL);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return t;
}

int binascii_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_binascii_error])) {
        Value e = make_error_class(vm, "Error", vm->e_ValueError);
        if (val_is_null(e)) return -1;
        vm->lib[VM_LIB_binascii_error] = e;
        Value inc = make_error_class(vm, "Incomplete", vm->e_Exception);
        if (val_is_null(inc)) return -1;
        vm->lib[VM_LIB_binascii_incomplete] = inc;
    }
    static const MethodDef fns[] = {
        {"hexlify", b_hexlify}, {"b2a_hex", b_hexlify}, {"unhexlify", b_unhexlify, ARITY_O},
        {"a2b_hex", b_unhexlify, ARITY_O}, {"b2a_base64", b_b2a_base64}, {"a2b_base64", b_a2b_base64},
        {"crc32", b_crc32, ARITY_POS(1, 2)}, {"crc_hqx", b_crc_hqx, ARITY_POS(2, 2)}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "Error", vm->lib[VM_LIB_binascii_error]) < 0 ||
                   module_set(vm, mod, "Incomplete", vm->lib[VM_LIB_binascii_incomplete]) < 0
               ? -1
               : 0;
}
