/* vm/mod_codecs.c — the _codecs module, the C half of CPython's codecs.py and encodings
 * package: the registry (register, lookup, encode, decode, register_error, lookup_error), the
 * standard error handlers, and the codec functions the encodings modules call: utf_8, latin_1,
 * ascii (vm/codecs.c), utf_16 / utf_32 (with byte-order marks), charmap (the cp* tables),
 * unicode_escape, raw_unicode_escape, escape_encode / escape_decode, readbuffer_encode. */
#include <string.h>

#include "vm/buffer.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value pair(VM *vm, Value a, int64_t n) {
    if (val_is_null(a)) return a;
    vm_push_root(vm, a);
    TupleObj *t = tuple_pack(vm, 2, a, val_int(n));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

/* errors argument: None or str */
static int errors_arg(VM *vm, Value v, const char **out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = "strict";
        return 0;
    }
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "argument 'errors' must be str or None, not %s", vm_type_name(vm, v));
        return -1;
    }
    *out = AS_STR(v)->data;
    return 0;
}

static int str_arg(VM *vm, Value v, const char *fname, StrObj **out) {
    if (!val_is_str(vm, v) && !vm_isinstance_type(vm, v, vm->t_str)) {
        vm_raise(vm, vm->e_TypeError, "%s() argument 1 must be str, not %s", fname, vm_type_name(vm, v));
        return -1;
    }
    *out = AS_STR(v);
    return 0;
}

/* ---- registry --------------------------------------------------------------------------------- */

static Value c_register(ARGS) {
    if (!vm_is_callable(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "argument must be callable");
    Value l = vm->lib[VM_LIB_codec_search_path];
    if (val_is_null(l)) {
        ListObj *nl = list_new(vm, 0);
        if (!nl) return val_null();
        vm->lib[VM_LIB_codec_search_path] = l = val_obj(nl);
        DictObj *c = dict_new(vm);
        if (!c) return val_null();
        vm->lib[VM_LIB_codec_cache] = val_obj(c);
    }
    return list_append(vm, AS_LIST(l), argv[0]) < 0 ? val_null() : val_none();
}

static Value c_unregister(ARGS) {
    Value l = vm->lib[VM_LIB_codec_search_path];
    if (val_is_null(l)) return val_none();
    ListObj *sp = AS_LIST(l);
    for (int64_t i = 0; i < sp->len; i++) {
        if (val_identical(sp->items[i], argv[0])) {
            memmove(sp->items + i, sp->items + i + 1, sizeof(Value) * (size_t)(sp->len - i - 1));
            sp->len--;
            dict_clear(vm, AS_DICT(vm->lib[VM_LIB_codec_cache]));
            break;
        }
    }
    return val_none();
}

static Value c_lookup(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "lookup() argument must be str, not %s", vm_type_name(vm, argv[0]));
    return codec_lookup(vm, AS_STR(argv[0])->data);
}

static Value c_forget(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_forget_codec() argument must be str");
    Value c = vm->lib[VM_LIB_codec_cache];
    if (!val_is_null(c)) if (dict_del(vm, AS_DICT(c), argv[0], NULL) < 0) return val_null();
    return val_none();
}

/* encode(obj, encoding='utf-8', errors='strict') / decode(...): any object, any codec result */
static Value c_transcode(ARGS) {
    static const char *const names[] = {"obj", "encoding", "errors"};
    Value a[3];
    bool dec = fn->data != NULL;
    if (native_parse_args(vm, dec ? "decode" : "encode", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    const char *enc = "utf-8", *errors;
    if (!val_is_null(a[1])) {
        if (!val_is_str(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "argument 'encoding' must be str");
        enc = AS_STR(a[1])->data;
    }
    if (errors_arg(vm, a[2], &errors) < 0) return val_null();
    Value info = codec_lookup(vm, enc);
    if (val_is_null(info)) return info;
    vm_push_root(vm, info);
    StrObj *e = str_from_c(vm, errors);
    Value r = e ? vm_call2(vm, AS_TUPLE(info)->items[dec ? 1 : 0], a[0], val_obj(e)) : val_null();
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    if (!vm_isinstance_type(vm, r, vm->t_tuple) || AS_TUPLE(r)->len != 2)
        return vm_raise(vm, vm->e_TypeError, "%s must return a tuple (object, integer)", dec ? "decoder" : "encoder");
    return AS_TUPLE(r)->items[0];
}

static Value c_register_error(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "register_error() argument 1 must be str");
    if (!vm_is_callable(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "handler must be callable");
    return dict_set(vm, AS_DICT(vm->lib[VM_LIB_codec_errors]), argv[0], argv[1]) < 0 ? val_null() : val_none();
}

static Value c_lookup_error(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "lookup_error() argument must be str, not %s", vm_type_name(vm, argv[0]));
    return codec_lookup_error(vm, AS_STR(argv[0])->data);
}

/* ---- the standard error handlers ------------------------------------------------------------ */

static Value exc_attr(VM *vm, Value exc, const char *name) { return vm_getattr_c(vm, exc, name); }

static int exc_range(VM *vm, Value exc, int64_t *start, int64_t *end) {
    Value s = exc_attr(vm, exc, "start"), e = val_is_null(s) ? s : exc_attr(vm, exc, "end");
    if (val_is_null(e)) return -1;
    if (!val_is_intlike(s) || !val_is_intlike(e)) {
        vm_raise(vm, vm->e_TypeError, "start and end must be integers");
        return -1;
    }
    *start = val_as_intlike(s);
    *end = val_as_intlike(e);
    return 0;
}

static int handler_check(VM *vm, Value exc) {
    if (vm_isinstance_type(vm, exc, vm->e_UnicodeEncodeError) || vm_isinstance_type(vm, exc, vm->e_UnicodeDecodeError) ||
        vm_isinstance_type(vm, exc, vm->e_UnicodeTranslateError))
        return 0;
    vm_raise(vm, vm->e_TypeError, "don't know how to handle %s in error callback", vm_type_name(vm, exc));
    return -1;
}

static Value h_strict(ARGS) {
    if (vm_isinstance_type(vm, argv[0], vm->e_BaseException)) return vm_raise_value(vm, argv[0]);
    return vm_raise(vm, vm->e_TypeError, "codec must pass exception instance");
}

/* ignore / replace / backslashreplace / xmlcharrefreplace / surrogateescape / surrogatepass */
static Value h_replacing(ARGS) {
    const char *kind = fn->data;
    Value exc = argv[0];
    int64_t start, end;
    if (handler_check(vm, exc) < 0 || exc_range(vm, exc, &start, &end) < 0) return val_null();
    bool enc = vm_isinstance_type(vm, exc, vm->e_UnicodeEncodeError);
    bool dec = vm_isinstance_type(vm, exc, vm->e_UnicodeDecodeError);
    Value obj = exc_attr(vm, exc, "object");
    if (val_is_null(obj)) return obj;
    StrBuf b;
    sb_init(&b);
    if (strcmp(kind, "ignore") == 0) {
        /* nothing */
    } else if (strcmp(kind, "replace") == 0) {
        /* '?' per character encoding; one U+FFFD for the whole run decoding; U+FFFD per
         * character translating */
        if (dec) sb_add(&b, "\xEF\xBF\xBD", 3);
        else
            for (int64_t i = start; i < end; i++)
                if (enc) sb_addc(&b, '?');
                else sb_add(&b, "\xEF\xBF\xBD", 3);
    } else if (dec) {
        if (!val_is_type(vm, obj, vm->t_bytes)) {
            sb_free(&b);
            return vm_raise(vm, vm->e_TypeError, "object attribute must be bytes");
        }
        BytesObj *bo = (BytesObj *)obj.as.o;
        if (start < 0) start = 0;
        if (end > bo->len) end = bo->len;
        if (strcmp(kind, "backslashreplace") == 0) {
            for (int64_t i = start; i < end; i++) sb_printf(&b, "\\x%02x", bo->data[i]);
        } else if (strcmp(kind, "surrogateescape") == 0) {
            int64_t i = start;
            for (; i < end && i < start + 4; i++) {
                if (bo->data[i] < 128) break;
                char tmp[4];
                sb_add(&b, tmp, utf8_encode(0xDC00 + bo->data[i], tmp));
            }
            if (i == start) {
                sb_free(&b);
                return vm_raise_value(vm, exc);
            }
            end = i;
        } else if (strcmp(kind, "surrogatepass") == 0) {
            /* UTF-8 only: one encoded surrogate ED A0..BF xx */
            if (end - start < 1 || start + 3 > bo->len || bo->data[start] != 0xED || bo->data[start + 1] < 0xA0) {
                sb_free(&b);
                return vm_raise_value(vm, exc);
            }
            sb_add(&b, (const char *)bo->data + start, 3);
            end = start + 3;
        } else {
            sb_free(&b);
            return vm_raise(vm, vm->e_TypeError, "don't know how to handle %s in error callback", vm_type_name(vm, exc));
        }
    } else {
        if (!val_is_str(vm, obj)) {
            sb_free(&b);
            return vm_raise(vm, vm->e_TypeError, "object attribute must be unicode");
        }
        StrObj *so = AS_STR(obj);
        if (start < 0) start = 0;
        if (end > so->ncp) end = so->ncp;
        int64_t pos = str_byte_offset(so, start);
        bool surr = strcmp(kind, "surrogateescape") == 0 || strcmp(kind, "surrogatepass") == 0;
        if (surr) {
            /* encode side: the surrogates become the bytes they stand for; returns bytes */
            for (int64_t i = start; i < end; i++) {
                uint32_t c = utf8_decode(so->data, so->len, &pos);
                if (kind[9] == 'e') {
                    if (c < 0xDC80 || c > 0xDCFF) {
                        sb_free(&b);
                        return vm_raise_value(vm, exc);
                    }
                    sb_addc(&b, (char)(c - 0xDC00));
                } else {
                    if (c < 0xD800 || c > 0xDFFF) {
                        sb_free(&b);
                        return vm_raise_value(vm, exc);
                    }
                    char tmp[4];
                    sb_add(&b, tmp, utf8_encode(c, tmp));
                }
            }
            BytesObj *rb = bytes_new(vm, (const uint8_t *)b.data, b.len);
            sb_free(&b);
            return pair(vm, rb ? val_obj(rb) : val_null(), end);
        }
        for (int64_t i = start; i < end; i++) {
            uint32_t c = utf8_decode(so->data, so->len, &pos);
            if (strcmp(kind, "backslashreplace") == 0) {
                if (c < 0x100) sb_printf(&b, "\\x%02x", c);
                else if (c < 0x10000) sb_printf(&b, "\\u%04x", c);
                else sb_printf(&b, "\\U%08x", c);
            } else if (strcmp(kind, "xmlcharrefreplace") == 0 && enc) {
                sb_printf(&b, "&#%u;", c);
            } else if (strcmp(kind, "namereplace") == 0 && enc) {
                sb_free(&b);
                return vm_raise(vm, vm->e_NotImplementedError,
                                "the 'namereplace' error handler needs the Unicode character name database "
                                "(unicodedata), which Ember does not include");
            } else {
                sb_free(&b);
                return vm_raise(vm, vm->e_TypeError, "don't know how to handle %s in error callback",
                                vm_type_name(vm, exc));
            }
        }
    }
    StrObj *r = sb_finish(vm, &b);
    return pair(vm, r ? val_obj(r) : val_null(), end);
}

/* ---- the built-in codecs as functions ------------------------------------------------------- */

/* utf_8_decode(data, errors=None, final=False) and the latin_1 / ascii twins (final ignored) */
static Value c_builtin_decode(ARGS) {
    static const char *const names[] = {"data", "errors", "final"};
    Value a[3];
    CodecId id = (CodecId)(intptr_t)fn->data;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    const char *errors;
    if (errors_arg(vm, a[1], &errors) < 0) return val_null();
    bool final = id != CODEC_UTF8 || (!val_is_null(a[2]) && vm_truthy(vm, a[2]) > 0);
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], fn->name, &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    int64_t used = n;
    StrObj *s = codec_decode_builtin(vm, id, p, n, errors, final, &used,
                                     val_is_null(holder) ? a[0] : holder);
    vm_pop_root(vm);
    return pair(vm, s ? val_obj(s) : val_null(), used);
}

static Value c_builtin_encode(ARGS) {
    static const char *const names[] = {"str", "errors"};
    Value a[2];
    CodecId id = (CodecId)(intptr_t)fn->data;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    StrObj *s;
    const char *errors;
    if (str_arg(vm, a[0], fn->name, &s) < 0 || errors_arg(vm, a[1], &errors) < 0) return val_null();
    BytesObj *b = codec_encode_builtin(vm, id, s, errors);
    return pair(vm, b ? val_obj(b) : val_null(), s->ncp);
}

/* ---- UTF-16 / UTF-32 -------------------------------------------------------------------------- */

/* width 2 or 4; byteorder -1 little, 1 big, 0 native with a BOM written first */
static Value utf16_32_encode(VM *vm, StrObj *s, const char *errors, int width, int byteorder) {
    StrBuf b;
    sb_init(&b);
    bool big = byteorder > 0;
    const char *encname = width == 2 ? "utf-16" : "utf-32";
    uint32_t units[2];
    if (byteorder == 0) {
        units[0] = 0xFEFF;
        goto put_bom;
    }
    for (;;) {
        break;
    put_bom:
        for (int k = width - 1; k >= 0; k--) sb_addc(&b, (char)(units[0] >> (8 * (width - 1 - k))));
        break;
    }
    int64_t pos = 0;
    for (int64_t i = 0; i < s->ncp; i++) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        int nu = 1;
        if (c >= 0xD800 && c <= 0xDFFF) {
            if (strcmp(errors, "surrogatepass") != 0) {
                sb_free(&b);
                vm_raise_unicode_error(vm, vm->e_UnicodeEncodeError, encname, val_obj(s), i, i + 1,
                                       "surrogates not allowed");
                return val_null();
            }
        }
        units[0] = c;
        if (width == 2 && c >= 0x10000) {
            units[0] = 0xD800 + ((c - 0x10000) >> 10);
            units[1] = 0xDC00 + ((c - 0x10000) & 0x3FF);
            nu = 2;
        }
        for (int u = 0; u < nu; u++)
            for (int k = 0; k < width; k++) {
                int shift = big ? 8 * (width - 1 - k) : 8 * k;
                sb_addc(&b, (char)(units[u] >> shift));
            }
    }
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return r ? val_obj(r) : val_null();
}

/* decodes; *byteorder in/out as utf_16_ex_decode; stops at an incomplete unit when !final */
static Value utf16_32_decode(VM *vm, Value src, const uint8_t *p, int64_t n, const char *errors, int width,
                             int *byteorder, bool final, int64_t *consumed) {
    const char *encname = width == 2 ? "utf-16-le" : "utf-32-le";
    int64_t i = 0;
    int bo = *byteorder;
    if (bo == 0 && n >= width) {
        uint32_t le = 0, be = 0;
        for (int k = 0; k < width; k++) {
            le |= (uint32_t)p[k] << (8 * k);
            be = (be << 8) | p[k];
        }
        if (le == 0xFEFF) {
            bo = -1;
            i = width;
        } else if (be == 0xFEFF) {
            bo = 1;
            i = width;
        }
    }
    bool big = bo > 0;
    if (big) encname = width == 2 ? "utf-16-be" : "utf-32-be";
    StrBuf b;
    sb_init(&b);
    while (i < n) {
        if (n - i < width) {
            if (!final) break;
            int64_t st = i;
            i = n;
            if (strcmp(errors, "replace") == 0) sb_add(&b, "\xEF\xBF\xBD", 3);
            else if (strcmp(errors, "ignore") != 0) {
                sb_free(&b);
                return vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, encname, src, st, n, "truncated data");
            }
            continue;
        }
        uint32_t c = 0;
        for (int k = 0; k < width; k++) c |= (uint32_t)p[i + k] << (big ? 8 * (width - 1 - k) : 8 * k);
        int64_t st = i;
        i += width;
        const char *why = NULL;
        if (width == 2 && c >= 0xD800 && c <= 0xDBFF) {
            if (n - i < 2) {
                if (!final) {
                    i = st;
                    break;
                }
                why = "unexpected end of data";
                i = n;
            } else {
                uint32_t c2 = big ? (uint32_t)(p[i] << 8 | p[i + 1]) : (uint32_t)(p[i] | p[i + 1] << 8);
                if (c2 >= 0xDC00 && c2 <= 0xDFFF) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                    i += 2;
                } else {
                    why = "illegal UTF-16 surrogate";
                }
            }
        } else if (width == 2 && c >= 0xDC00 && c <= 0xDFFF) {
            why = "illegal encoding";
        } else if (width == 4 && (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))) {
            why = c > 0x10FFFF ? "code point not in range(0x110000)" : "code point in surrogate code point range(0xd800, 0xe000)";
        }
        if (why) {
            if (strcmp(errors, "replace") == 0) sb_add(&b, "\xEF\xBF\xBD", 3);
            else if (strcmp(errors, "ignore") == 0) {
            } else if (strcmp(errors, "surrogatepass") == 0 && c <= 0xFFFF) {
                char tmp[4];
                sb_add(&b, tmp, utf8_encode(c, tmp));
            } else {
                sb_free(&b);
                return vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, encname, src, st, i, why);
            }
            continue;
        }
        char tmp[4];
        sb_add(&b, tmp, utf8_encode(c, tmp));
    }
    *consumed = i;
    *byteorder = bo;
    StrObj *r = sb_finish(vm, &b);
    return r ? val_obj(r) : val_null();
}

/* fn->data: width * 10 + (byteorder + 1); ex variant when width*10+9 */
static Value c_utf1632_encode(ARGS) {
    static const char *const names[] = {"str", "errors", "byteorder"};
    Value a[3];
    int code = (int)(intptr_t)fn->data, width = code / 10, bo = code % 10 - 1;
    if (native_parse_args(vm, fn->name, argc, argv, kw, bo == 0 ? 3 : 2, 1, names, 3, a) < 0) return val_null();
    StrObj *s;
    const char *errors;
    if (str_arg(vm, a[0], fn->name, &s) < 0 || errors_arg(vm, a[1], &errors) < 0) return val_null();
    if (bo == 0 && !val_is_null(a[2])) {
        if (!val_is_intlike(a[2])) return vm_raise(vm, vm->e_TypeError, "byteorder must be int");
        int64_t v = val_as_intlike(a[2]);
        bo = v < 0 ? -1 : v > 0 ? 1 : 0;
    }
    return pair(vm, utf16_32_encode(vm, s, errors, width, bo), s->ncp);
}

static Value c_utf1632_decode(ARGS) {
    int code = (int)(intptr_t)fn->data, width = code / 10, sel = code % 10;
    bool ex = sel == 9;
    int bo = ex ? 0 : sel - 1;
    static const char *const names[] = {"data", "errors", "final"};
    static const char *const exnames[] = {"data", "errors", "byteorder", "final"};
    Value a[4];
    if (native_parse_args(vm, fn->name, argc, argv, kw, ex ? 4 : 3, 1, ex ? exnames : names, ex ? 4 : 3, a) < 0)
        return val_null();
    const char *errors;
    if (errors_arg(vm, a[1], &errors) < 0) return val_null();
    Value finalv = ex ? a[3] : a[2];
    if (ex && !val_is_null(a[2])) {
        if (!val_is_intlike(a[2])) return vm_raise(vm, vm->e_TypeError, "byteorder must be int");
        int64_t v = val_as_intlike(a[2]);
        bo = v < 0 ? -1 : v > 0 ? 1 : 0;
    }
    bool final = !val_is_null(finalv) && vm_truthy(vm, finalv) > 0;
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], fn->name, &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    int64_t used = 0;
    Value src = val_is_null(holder) ? a[0] : holder;
    Value s = utf16_32_decode(vm, src, p, n, errors, width, &bo, final, &used);
    if (val_is_null(s) || !ex) {
        vm_pop_root(vm);
        return pair(vm, s, used);
    }
    vm_push_root(vm, s);
    TupleObj *t = tuple_pack(vm, 3, s, val_int(used), val_int(bo));
    vm_pop_roots(vm, 2);
    return t ? val_obj(t) : val_null();
}

/* ---- charmap ------------------------------------------------------------------------------------ */

static Value c_charmap_decode(ARGS) {
    static const char *const names[] = {"data", "errors", "mapping"};
    Value a[3];
    if (native_parse_args(vm, "charmap_decode", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    const char *errors;
    if (errors_arg(vm, a[1], &errors) < 0) return val_null();
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "charmap_decode", &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    Value src = val_is_null(holder) ? a[0] : holder;
    Value map = val_is_null(a[2]) ? val_none() : a[2];
    StrBuf b;
    sb_init(&b);
    StrObj *table = val_is_str(vm, map) ? AS_STR(map) : NULL;
    for (int64_t i = 0; i < n; i++) {
        uint32_t c = p[i];
        bool undefined = false;
        if (val_is_none(map)) {
            /* latin-1 */
        } else if (table) {
            if ((int64_t)c >= table->ncp) undefined = true;
            else {
                int64_t pos = str_byte_offset(table, c);
                c = utf8_decode(table->data, table->len, &pos);
                if (c == 0xFFFE) undefined = true;
            }
        } else {
            Value v = vm_getitem(vm, map, val_int(c));
            if (val_is_null(v)) {
                if (!vm_exc_matches(vm, vm->e_LookupError)) goto fail;
                vm_clear_exc(vm);
                undefined = true;
            } else if (val_is_none(v)) {
                undefined = true;
            } else if (val_is_intlike(v)) {
                c = (uint32_t)val_as_intlike(v);
            } else if (val_is_str(vm, v)) {
                sb_add_str(&b, AS_STR(v));
                continue;
            } else {
                vm_raise(vm, vm->e_TypeError, "character mapping must return integer, None or str");
                goto fail;
            }
        }
        if (undefined) {
            if (strcmp(errors, "replace") == 0) sb_add(&b, "\xEF\xBF\xBD", 3);
            else if (strcmp(errors, "ignore") == 0) {
            } else if (strcmp(errors, "surrogateescape") == 0 && c >= 128) {
                char tmp[4];
                sb_add(&b, tmp, utf8_encode(0xDC00 + p[i], tmp));
            } else {
                vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, "charmap", src, i, i + 1,
                                       "character maps to <undefined>");
                goto fail;
            }
            continue;
        }
        char tmp[4];
        sb_add(&b, tmp, utf8_encode(c, tmp));
    }
    vm_pop_root(vm);
    StrObj *r = sb_finish(vm, &b);
    return pair(vm, r ? val_obj(r) : val_null(), n);
fail:
    vm_pop_root(vm);
    sb_free(&b);
    return val_null();
}

/* charmap_build(decoding_table) -> the inverse mapping {code point: byte} (CPython returns an
 * EncodingMap; charmap_encode accepts any mapping, so a dict serves) */
static Value c_charmap_build(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "charmap_build() argument must be str");
    StrObj *t = AS_STR(argv[0]);
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int64_t pos = 0;
    for (int64_t i = 0; i < t->ncp; i++) {
        uint32_t c = utf8_decode(t->data, t->len, &pos);
        if (c == 0xFFFE) continue;
        if (dict_set(vm, d, val_int(c), val_int(i)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(d);
}

static Value c_charmap_encode(ARGS) {
    static const char *const names[] = {"str", "errors", "mapping"};
    Value a[3];
    if (native_parse_args(vm, "charmap_encode", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    StrObj *s;
    const char *errors;
    if (str_arg(vm, a[0], "charmap_encode", &s) < 0 || errors_arg(vm, a[1], &errors) < 0) return val_null();
    if (val_is_null(a[2]) || val_is_none(a[2])) {
        BytesObj *b = codec_encode_builtin(vm, CODEC_LATIN1, s, errors);
        return pair(vm, b ? val_obj(b) : val_null(), s->ncp);
    }
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    for (int64_t i = 0; i < s->ncp; i++) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        Value v = vm_getitem(vm, a[2], val_int(c));
        if (val_is_null(v)) {
            if (!vm_exc_matches(vm, vm->e_LookupError)) goto fail;
            vm_clear_exc(vm);
            v = val_none();
        }
        if (val_is_intlike(v)) {
            int64_t x = val_as_intlike(v);
            if (x < 0 || x > 255) {
                vm_raise(vm, vm->e_TypeError, "character mapping must be in range(256)");
                goto fail;
            }
            sb_addc(&b, (char)x);
        } else if (val_is_type(vm, v, vm->t_bytes)) {
            sb_add(&b, (const char *)((BytesObj *)v.as.o)->data, ((BytesObj *)v.as.o)->len);
        } else if (val_is_none(v)) {
            if (strcmp(errors, "replace") == 0) sb_addc(&b, '?');
            else if (strcmp(errors, "ignore") == 0) {
            } else if (strcmp(errors, "xmlcharrefreplace") == 0) sb_printf(&b, "&#%u;", c);
            else if (strcmp(errors, "backslashreplace") == 0) {
                if (c < 0x100) sb_printf(&b, "\\x%02x", c);
                else if (c < 0x10000) sb_printf(&b, "\\u%04x", c);
                else sb_printf(&b, "\\U%08x", c);
            } else {
                vm_raise_unicode_error(vm, vm->e_UnicodeEncodeError, "charmap", val_obj(s), i, i + 1,
                                       "character maps to <undefined>");
                goto fail;
            }
        } else {
            vm_raise(vm, vm->e_TypeError, "character mapping must return integer, bytes or None, not %s",
                     vm_type_name(vm, v));
            goto fail;
        }
    }
    {
        BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
        sb_free(&b);
        return pair(vm, r ? val_obj(r) : val_null(), s->ncp);
    }
fail:
    sb_free(&b);
    return val_null();
}

/* ---- escape codecs -------------------------------------------------------------------------- */

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* unicode_escape_decode / raw_unicode_escape_decode (raw: only \uXXXX and \UXXXXXXXX) */
static Value escape_decode_text(VM *vm, Value src, const uint8_t *p, int64_t n, const char *errors, bool raw,
                                const char *encname) {
    StrBuf b;
    sb_init(&b);
    char tmp[4];
    int64_t i = 0;
    while (i < n) {
        if (p[i] != '\\') {
            sb_add(&b, tmp, utf8_encode(p[i], tmp));   /* bytes are Latin-1 */
            i++;
            continue;
        }
        int64_t st = i;
        if (i + 1 >= n) {
            if (raw) {
                sb_addc(&b, '\\');
                i++;
                continue;
            }
            sb_free(&b);
            return vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, encname, src, st, n, "\\ at end of string");
        }
        uint8_t c = p[i + 1];
        int digits = 0;
        const char *why = NULL;
        if (raw) {
            if (c == 'u') digits = 4;
            else if (c == 'U') digits = 8;
            else {
                sb_addc(&b, '\\');
                i++;
                continue;
            }
        } else {
            i += 2;
            switch (c) {
            case '\n': continue;
            case '\\': sb_addc(&b, '\\'); continue;
            case '\'': sb_addc(&b, '\''); continue;
            case '"': sb_addc(&b, '"'); continue;
            case 'b': sb_addc(&b, '\b'); continue;
            case 'f': sb_addc(&b, '\f'); continue;
            case 't': sb_addc(&b, '\t'); continue;
            case 'n': sb_addc(&b, '\n'); continue;
            case 'r': sb_addc(&b, '\r'); continue;
            case 'v': sb_addc(&b, '\v'); continue;
            case 'a': sb_addc(&b, '\a'); continue;
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                uint32_t v = c - '0';
                for (int k = 0; k < 2 && i < n && p[i] >= '0' && p[i] <= '7'; k++) v = v * 8 + (p[i++] - '0');
                sb_add(&b, tmp, utf8_encode(v, tmp));
                continue;
            }
            case 'x': digits = 2; break;
            case 'u': digits = 4; break;
            case 'U': digits = 8; break;
            case 'N':
                sb_free(&b);
                return vm_raise(vm, vm->e_NotImplementedError,
                                "\\N{...} escapes need the Unicode character name database, which Ember does not include");
            default:
                sb_addc(&b, '\\');
                sb_add(&b, tmp, utf8_encode(c, tmp));
                continue;
            }
            i -= 2;
        }
        i += 2;
        uint32_t v = 0;
        int k = 0;
        for (; k < digits && i + k < n && hexval(p[i + k]) >= 0; k++) v = v * 16 + (uint32_t)hexval(p[i + k]);
        if (k < digits) {
            why = digits == 2 ? "truncated \\xXX escape" : digits == 4 ? "truncated \\uXXXX escape"
                                                                       : "truncated \\UXXXXXXXX escape";
            i += k;
        } else if (v > 0x10FFFF) {
            why = "illegal Unicode character";
            i += k;
        } else {
            i += k;
            sb_add(&b, tmp, utf8_encode(v, tmp));
            continue;
        }
        if (strcmp(errors, "replace") == 0) sb_add(&b, "\xEF\xBF\xBD", 3);
        else if (strcmp(errors, "ignore") != 0) {
            sb_free(&b);
            return vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, encname, src, st, i, why);
        }
    }
    StrObj *r = sb_finish(vm, &b);
    return r ? val_obj(r) : val_null();
}

static Value c_escape_text_decode(ARGS) {
    static const char *const names[] = {"data", "errors", "final"};
    Value a[3];
    bool raw = fn->data != NULL;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    const char *errors;
    if (errors_arg(vm, a[1], &errors) < 0) return val_null();
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (val_is_str(vm, a[0])) {
        /* str input is encoded to Latin-1... CPython accepts ASCII str here */
        BytesObj *b = codec_encode_builtin(vm, CODEC_LATIN1, AS_STR(a[0]), "strict");
        if (!b) return val_null();
        a[0] = val_obj(b);
    }
    if (buffer_get(vm, a[0], fn->name, &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, a[0]);
    vm_push_root(vm, holder);
    Value s = escape_decode_text(vm, val_is_null(holder) ? a[0] : holder, p, n, errors, raw,
                                 raw ? "rawunicodeescape" : "unicodeescape");
    vm_pop_roots(vm, 2);
    return pair(vm, s, n);
}

static Value c_escape_text_encode(ARGS) {
    static const char *const names[] = {"str", "errors"};
    Value a[2];
    bool raw = fn->data != NULL;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    StrObj *s;
    if (str_arg(vm, a[0], fn->name, &s) < 0) return val_null();
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    for (int64_t i = 0; i < s->ncp; i++) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        if (raw) {
            if (c < 0x100) sb_addc(&b, (char)c);
            else if (c < 0x10000) sb_printf(&b, "\\u%04x", c);
            else sb_printf(&b, "\\U%08x", c);
            continue;
        }
        if (c == '\\') sb_adds(&b, "\\\\");
        else if (c == '\t') sb_adds(&b, "\\t");
        else if (c == '\n') sb_adds(&b, "\\n");
        else if (c == '\r') sb_adds(&b, "\\r");
        else if (c < 0x20 || (c >= 0x7F && c < 0x100)) sb_printf(&b, "\\x%02x", c);
        else if (c < 0x7F) sb_addc(&b, (char)c);
        else if (c < 0x10000) sb_printf(&b, "\\u%04x", c);
        else sb_printf(&b, "\\U%08x", c);
    }
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return pair(vm, r ? val_obj(r) : val_null(), s->ncp);
}

/* escape_decode(data, errors=None): Python bytes-literal escapes -> bytes */
static Value c_escape_decode(ARGS) {
    static const char *const names[] = {"data", "errors"};
    Value a[2];
    if (native_parse_args(vm, "escape_decode", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    const char *errors;
    if (errors_arg(vm, a[1], &errors) < 0) return val_null();
    if (val_is_str(vm, a[0])) {
        BytesObj *bb = bytes_new(vm, (const uint8_t *)AS_STR(a[0])->data, AS_STR(a[0])->len);
        if (!bb) return val_null();
        a[0] = val_obj(bb);
    }
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "escape_decode", &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, a[0]);
    vm_push_root(vm, holder);
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < n;) {
        if (p[i] != '\\') {
            sb_addc(&b, (char)p[i++]);
            continue;
        }
        if (++i >= n) {
            vm_pop_roots(vm, 2);
            sb_free(&b);
            return vm_raise(vm, vm->e_ValueError, "Trailing \\ in string");
        }
        uint8_t c = p[i++];
        switch (c) {
        case '\n': break;
        case '\\': sb_addc(&b, '\\'); break;
        case '\'': sb_addc(&b, '\''); break;
        case '"': sb_addc(&b, '"'); break;
        case 'b': sb_addc(&b, '\b'); break;
        case 'f': sb_addc(&b, '\f'); break;
        case 't': sb_addc(&b, '\t'); break;
        case 'n': sb_addc(&b, '\n'); break;
        case 'r': sb_addc(&b, '\r'); break;
        case 'v': sb_addc(&b, '\v'); break;
        case 'a': sb_addc(&b, '\a'); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            int v = c - '0';
            for (int k = 0; k < 2 && i < n && p[i] >= '0' && p[i] <= '7'; k++) v = v * 8 + (p[i++] - '0');
            sb_addc(&b, (char)v);
            break;
        }
        case 'x':
            if (i + 1 < n && hexval(p[i]) >= 0 && hexval(p[i + 1]) >= 0) {
                sb_addc(&b, (char)(hexval(p[i]) * 16 + hexval(p[i + 1])));
                i += 2;
            } else if (strcmp(errors, "replace") == 0) {
                sb_addc(&b, '?');
            } else if (strcmp(errors, "ignore") != 0) {
                vm_pop_roots(vm, 2);
                sb_free(&b);
                return vm_raise(vm, vm->e_ValueError, "invalid \\x escape at position %lld", (long long)(i - 2));
            }
            break;
        default:
            sb_addc(&b, '\\');
            sb_addc(&b, (char)c);
        }
    }
    vm_pop_roots(vm, 2);
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return pair(vm, r ? val_obj(r) : val_null(), n);
}

static Value c_escape_encode(ARGS) {
    static const char *const names[] = {"data", "errors"};
    Value a[2];
    if (native_parse_args(vm, "escape_encode", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (!val_is_type(vm, a[0], vm->t_bytes))
        return vm_raise(vm, vm->e_TypeError, "escape_encode() argument 1 must be bytes, not %s",
                        vm_type_name(vm, a[0]));
    BytesObj *in = (BytesObj *)a[0].as.o;
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < in->len; i++) {
        uint8_t c = in->data[i];
        if (c == '\'' || c == '\\') {
            sb_addc(&b, '\\');
            sb_addc(&b, (char)c);
        } else if (c == '\t') sb_adds(&b, "\\t");
        else if (c == '\n') sb_adds(&b, "\\n");
        else if (c == '\r') sb_adds(&b, "\\r");
        else if (c < 0x20 || c >= 0x7F) sb_printf(&b, "\\x%02x", c);
        else sb_addc(&b, (char)c);
    }
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return pair(vm, r ? val_obj(r) : val_null(), in->len);
}

static Value c_readbuffer_encode(ARGS) {
    static const char *const names[] = {"data", "errors"};
    Value a[2];
    if (native_parse_args(vm, "readbuffer_encode", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (val_is_str(vm, a[0])) {
        BytesObj *b = bytes_new(vm, (const uint8_t *)AS_STR(a[0])->data, AS_STR(a[0])->len);
        return pair(vm, b ? val_obj(b) : val_null(), b ? b->len : 0);
    }
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[0], "readbuffer_encode", &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    BytesObj *b = bytes_new(vm, p, n);
    vm_pop_root(vm);
    return pair(vm, b ? val_obj(b) : val_null(), n);
}

/* ---- module ------------------------------------------------------------------------------------- */

static const MethodDef handler_defs[] = {
    {"strict_errors", h_strict, ARITY_O},
    {"ignore_errors", h_replacing, ARITY_O, (void *)"ignore"},
    {"replace_errors", h_replacing, ARITY_O, (void *)"replace"},
    {"backslashreplace_errors", h_replacing, ARITY_O, (void *)"backslashreplace"},
    {"xmlcharrefreplace_errors", h_replacing, ARITY_O, (void *)"xmlcharrefreplace"},
    {"namereplace_errors", h_replacing, ARITY_O, (void *)"namereplace"},
    {"surrogateescape", h_replacing, ARITY_O, (void *)"surrogateescape"},
    {"surrogatepass", h_replacing, ARITY_O, (void *)"surrogatepass"},
    {NULL}};

/* The registry of error handlers exists from VM start: str.encode(errors='replace') works
 * without importing anything. */
void codecs_init(VM *vm) {
    DictObj *d = dict_new(vm);
    EM_ASSERT(d != NULL, "out of memory");
    vm->lib[VM_LIB_codec_errors] = val_obj(d);
    static const char *const names[] = {"strict", "ignore", "replace", "backslashreplace", "xmlcharrefreplace",
                                        "namereplace", "surrogateescape", "surrogatepass"};
    for (int i = 0; handler_defs[i].name; i++) {
        NativeObj *h = native_new(vm, handler_defs[i].name, handler_defs[i].fn, handler_defs[i].data,
                                  handler_defs[i].flags);
        EM_ASSERT(h != NULL && dict_set_c(vm, d, names[i], val_obj(h)) == 0, "out of memory");
    }
}

int codecs_module_init(VM *vm, Value mod) {
#define DEC(name, id) {name, c_builtin_decode, 0, (void *)(intptr_t)(id)}
#define ENC(name, id) {name, c_builtin_encode, 0, (void *)(intptr_t)(id)}
    static const MethodDef fns[] = {
        {"register", c_register, ARITY_O}, {"unregister", c_unregister, ARITY_O}, {"lookup", c_lookup, ARITY_O},
        {"_forget_codec", c_forget, ARITY_O}, {"encode", c_transcode, 0, NULL}, {"decode", c_transcode, 0, (void *)1},
        {"register_error", c_register_error, ARITY_POS(2, 2)}, {"lookup_error", c_lookup_error, ARITY_O},
        DEC("utf_8_decode", CODEC_UTF8), ENC("utf_8_encode", CODEC_UTF8),
        DEC("latin_1_decode", CODEC_LATIN1), ENC("latin_1_encode", CODEC_LATIN1),
        DEC("ascii_decode", CODEC_ASCII), ENC("ascii_encode", CODEC_ASCII),
        {"utf_16_encode", c_utf1632_encode, 0, (void *)21}, {"utf_16_le_encode", c_utf1632_encode, 0, (void *)20},
        {"utf_16_be_encode", c_utf1632_encode, 0, (void *)22}, {"utf_32_encode", c_utf1632_encode, 0, (void *)41},
        {"utf_32_le_encode", c_utf1632_encode, 0, (void *)40}, {"utf_32_be_encode", c_utf1632_encode, 0, (void *)42},
        {"utf_16_decode", c_utf1632_decode, 0, (void *)21}, {"utf_16_le_decode", c_utf1632_decode, 0, (void *)20},
        {"utf_16_be_decode", c_utf1632_decode, 0, (void *)22}, {"utf_16_ex_decode", c_utf1632_decode, 0, (void *)29},
        {"utf_32_decode", c_utf1632_decode, 0, (void *)41}, {"utf_32_le_decode", c_utf1632_decode, 0, (void *)40},
        {"utf_32_be_decode", c_utf1632_decode, 0, (void *)42}, {"utf_32_ex_decode", c_utf1632_decode, 0, (void *)49},
        {"charmap_decode", c_charmap_decode}, {"charmap_encode", c_charmap_encode},
        {"charmap_build", c_charmap_build, ARITY_O},
        {"unicode_escape_decode", c_escape_text_decode, 0, NULL},
        {"raw_unicode_escape_decode", c_escape_text_decode, 0, (void *)1},
        {"unicode_escape_encode", c_escape_text_encode, 0, NULL},
        {"raw_unicode_escape_encode", c_escape_text_encode, 0, (void *)1},
        {"escape_decode", c_escape_decode}, {"escape_encode", c_escape_encode},
        {"readbuffer_encode", c_readbuffer_encode}, {NULL}};
#undef DEC
#undef ENC
    return module_add_functions(vm, mod, fns);
}
