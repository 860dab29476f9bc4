/* vm/codecs.c — the built-in codecs (UTF-8, Latin-1, ASCII) with CPython's error handling,
 * the codec registry (search functions, cache, error-handler registry) and the file-system
 * encoding.  See codecs.h.
 *
 * Error handling follows CPython's unicodeobject.c: the strict decoders report the maximal
 * invalid subpart ("invalid start byte", "invalid continuation byte", "unexpected end of
 * data"); the encoders report a whole run of unencodable characters at once; 'replace'
 * substitutes one U+FFFD per invalid subpart; handlers registered from scripts get the
 * exception and return (replacement, new position). */
#include "vm/codecs.h"

#include <ctype.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/seq.h"
#include "vm/str.h"

typedef enum ErrKind {
    EK_STRICT, EK_IGNORE, EK_REPLACE, EK_SURROGATEESCAPE, EK_SURROGATEPASS, EK_BACKSLASHREPLACE,
    EK_XMLCHARREFREPLACE, EK_CUSTOM,
} ErrKind;

static ErrKind err_kind(const char *e) {
    if (!e || strcmp(e, "strict") == 0) return EK_STRICT;
    if (strcmp(e, "surrogateescape") == 0) return EK_SURROGATEESCAPE;
    if (strcmp(e, "replace") == 0) return EK_REPLACE;
    if (strcmp(e, "ignore") == 0) return EK_IGNORE;
    if (strcmp(e, "backslashreplace") == 0) return EK_BACKSLASHREPLACE;
    if (strcmp(e, "surrogatepass") == 0) return EK_SURROGATEPASS;
    if (strcmp(e, "xmlcharrefreplace") == 0) return EK_XMLCHARREFREPLACE;
    return EK_CUSTOM;
}

/* ---- names ----------------------------------------------------------------------------- */

/* CPython's normalisation for the fast path: lower case, '_' and ' ' as '-'. */
static void norm_name(const char *in, char *out, size_t cap) {
    size_t i = 0;
    for (; in[i] && i + 1 < cap; i++) {
        char c = (char)tolower((unsigned char)in[i]);
        out[i] = (c == '_' || c == ' ') ? '-' : c;
    }
    out[i] = 0;
}

CodecId codec_id(const char *encoding) {
    char n[32];
    if (!encoding || strlen(encoding) >= sizeof n) return CODEC_OTHER;
    norm_name(encoding, n, sizeof n);
    if (!strcmp(n, "utf-8") || !strcmp(n, "utf8") || !strcmp(n, "u8") || !strcmp(n, "utf") ||
        !strcmp(n, "cp65001"))
        return CODEC_UTF8;
    if (!strcmp(n, "latin-1") || !strcmp(n, "latin1") || !strcmp(n, "iso-8859-1") || !strcmp(n, "iso8859-1") ||
        !strcmp(n, "8859") || !strcmp(n, "cp819") || !strcmp(n, "latin") || !strcmp(n, "l1") ||
        !strcmp(n, "iso-ir-100") || !strcmp(n, "csisolatin1") || !strcmp(n, "iso-8859-1:1987"))
        return CODEC_LATIN1;
    if (!strcmp(n, "ascii") || !strcmp(n, "us-ascii") || !strcmp(n, "646") || !strcmp(n, "us") ||
        !strcmp(n, "ansi-x3.4-1968") || !strcmp(n, "iso646-us") || !strcmp(n, "cp367") ||
        !strcmp(n, "csascii") || !strcmp(n, "ibm367") || !strcmp(n, "iso-ir-6"))
        return CODEC_ASCII;
    return CODEC_OTHER;
}

const char *codec_name(CodecId id) {
    switch (id) {
    case CODEC_UTF8: return "utf-8";
    case CODEC_LATIN1: return "latin-1";
    case CODEC_ASCII: return "ascii";
    default: return "?";
    }
}

/* the name used in error messages, as CPython's codecs give it */
static const char *err_name(CodecId id) {
    switch (id) {
    case CODEC_UTF8: return "utf-8";
    case CODEC_LATIN1: return "latin-1";
    default: return "ascii";
    }
}

/* ---- custom error handlers ---------------------------------------------------------------- */

/* Call handler(exc) for a decode error over source[start:end]: appends the replacement to b
 * and returns the position to resume at, or -1 + exception. */
static int64_t call_decode_handler(VM *vm, const char *errors, CodecId id, Value source, int64_t start, int64_t end,
                                   const char *reason, StrBuf *b) {
    Value h = codec_lookup_error(vm, errors);
    if (val_is_null(h)) return -1;
    vm_push_root(vm, h);
    (void)vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, err_name(id), source, start, end, reason);
    Value exc = vm_fetch_exc(vm);
    vm_push_root(vm, exc);
    Value r = vm_call1(vm, h, exc);
    vm_pop_roots(vm, 2);
    if (val_is_null(r)) return -1;
    if (!val_is_type(vm, r, vm->t_tuple) || AS_TUPLE(r)->len != 2 || !val_is_str(vm, AS_TUPLE(r)->items[0]) ||
        !val_is_intlike(AS_TUPLE(r)->items[1])) {
        vm_raise(vm, vm->e_TypeError, "decoding error handler must return (str, int) tuple");
        return -1;
    }
    sb_add_str(b, AS_STR(AS_TUPLE(r)->items[0]));
    int64_t pos = val_as_intlike(AS_TUPLE(r)->items[1]);
    int64_t n = ((BytesObj *)source.as.o)->len;
    if (pos < 0) pos += n;
    if (pos < 0 || pos > n) {
        vm_raise(vm, vm->e_IndexError, "position %lld from error handler out of bounds", (long long)pos);
        return -1;
    }
    return pos;
}

/* ---- decoding ----------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p[0..n), or an error: returns 0 and sets *bad to the
 * length of the maximal invalid subpart and *why to the reason.  surrogates: accept ED A0..BF. */
static int utf8_seq(const uint8_t *p, int64_t n, bool surrogates, int *bad, const char **why) {
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    int need;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED && !surrogates) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else {
        *bad = 1;
        *why = "invalid start byte";
        return 0;
    }
    for (int k = 1; k <= need; k++) {
        if (k >= n) {
            *bad = (int)n;
            *why = "unexpected end of data";
            return 0;
        }
        uint8_t d = p[k];
        if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) {
            *bad = k;
            *why = "invalid continuation byte";
            return 0;
        }
    }
    return need + 1;
}

static Value make_source(VM *vm, Value source, const uint8_t *p, int64_t n) {
    if (!val_is_null(source)) return source;
    BytesObj *b = bytes_new(vm, p, n);
    return b ? val_obj(b) : val_null();
}

StrObj *codec_decode_builtin(VM *vm, CodecId id, const uint8_t *p, int64_t n, const char *errors, bool final,
                             int64_t *consumed, Value source) {
    ErrKind ek = err_kind(errors);
    /* fast paths: pure ASCII, or valid UTF-8 */
    int64_t i = 0;
    while (i < n && p[i] < 0x80) i++;
    if (i == n) {
        if (consumed) *consumed = n;
        return str_new(vm, (const char *)p, n);
    }
    StrBuf b;
    sb_init(&b);
    sb_add(&b, (const char *)p, i);
    vm_push_root(vm, source);
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            int64_t j = i + 1;
            while (j < n && p[j] < 0x80) j++;
            sb_add(&b, (const char *)p + i, j - i);
            i = j;
            continue;
        }
        int64_t start = i, end;
        const char *why;
        if (id == CODEC_LATIN1) {
            char tmp[4];
            sb_add(&b, tmp, utf8_encode(c, tmp));
            i++;
            continue;
        } else if (id == CODEC_ASCII) {
            end = i + 1;
            why = "ordinal not in range(128)";
        } else {
            int bad = 0;
            int len = utf8_seq(p + i, n - i, ek == EK_SURROGATEPASS, &bad, &why);
            if (len) {
                sb_add(&b, (const char *)p + i, len);
                i += len;
                continue;
            }
            if (!final && why[0] == 'u') break;   /* incomplete: wait for more data */
            end = i + bad;
        }
        switch (ek) {
        case EK_IGNORE: i = end; break;
        case EK_REPLACE: sb_add(&b, "\xEF\xBF\xBD", 3); i = end; break;
        case EK_SURROGATEESCAPE:
            /* each undecodable byte >= 0x80 becomes U+DC80..U+DCFF */
            for (; i < end; i++) {
                char tmp[4];
                sb_add(&b, tmp, utf8_encode(0xDC00 + p[i], tmp));
            }
            break;
        case EK_BACKSLASHREPLACE:
            for (; i < end; i++) sb_printf(&b, "\\x%02x", p[i]);
            break;
        case EK_CUSTOM: {
            Value src = make_source(vm, source, p, n);
            if (val_is_null(src)) goto fail;
            vm_pop_root(vm);
            vm_push_root(vm, src);
            source = src;
            int64_t np = call_decode_handler(vm, errors, id, src, start, end, why, &b);
            if (np < 0) goto fail;
            i = np;
            break;
        }
        default: {   /* strict, and the encode-only handlers */
            if (ek == EK_XMLCHARREFREPLACE || ek == EK_SURROGATEPASS) {
                if (ek == EK_XMLCHARREFREPLACE) {
                    vm_raise(vm, vm->e_TypeError, "don't know how to handle UnicodeDecodeError in error callback");
                    goto fail;
                }
            }
            Value src = make_source(vm, source, p, n);
            if (val_is_null(src)) goto fail;
            vm_push_root(vm, src);
            vm_raise_unicode_error(vm, vm->e_UnicodeDecodeError, err_name(id), src, start, end, why);
            vm_pop_root(vm);
            goto fail;
        }
        }
    }
    vm_pop_root(vm);
    if (consumed) *consumed = i;
    return sb_finish(vm, &b);
fail:
    vm_pop_root(vm);
    sb_free(&b);
    return NULL;
}

/* ---- encoding ----------------------------------------------------------------------------- */

bool codec_has_surrogates(const StrObj *s) {
    if (str_is_ascii(s)) return false;
    const uint8_t *d = (const uint8_t *)s->data;
    for (int64_t i = 0; i + 1 < s->len; i++)
        if (d[i] == 0xED && d[i + 1] >= 0xA0) return true;
    return false;
}

/* Call handler(exc) for an encode error over s[start:end] (code points); appends the
 * replacement (str: must be encodable by the codec; bytes: raw) and returns the resume
 * position (code points), or -1. */
static int64_t call_encode_handler(VM *vm, const char *errors, const char *encname, StrObj *s, int64_t start,
                                   int64_t end, const char *reason, StrBuf *b, uint32_t limit) {
    Value h = codec_lookup_error(vm, errors);
    if (val_is_null(h)) return -1;
    vm_push_root(vm, h);
    (void)vm_raise_unicode_error(vm, vm->e_UnicodeEncodeError, encname, val_obj(s), start, end, reason);
    Value exc = vm_fetch_exc(vm);
    vm_push_root(vm, exc);
    Value r = vm_call1(vm, h, exc);
    vm_pop_roots(vm, 2);
    if (val_is_null(r)) return -1;
    if (!val_is_type(vm, r, vm->t_tuple) || AS_TUPLE(r)->len != 2 || !val_is_intlike(AS_TUPLE(r)->items[1]) ||
        !(val_is_str(vm, AS_TUPLE(r)->items[0]) || val_is_type(vm, AS_TUPLE(r)->items[0], vm->t_bytes))) {
        vm_raise(vm, vm->e_TypeError, "encoding error handler must return (str/bytes, int) tuple");
        return -1;
    }
    Value rep = AS_TUPLE(r)->items[0];
    if (val_is_str(vm, rep)) {
        StrObj *rs = AS_STR(rep);
        int64_t q = 0;
        for (int64_t k = 0; k < rs->ncp; k++) {
            uint32_t c = utf8_decode(rs->data, rs->len, &q);
            if (c >= limit) {
                vm_raise_unicode_error(vm, vm->e_UnicodeEncodeError, encname, val_obj(s), start, end, reason);
                return -1;
            }
        }
        if (limit > 0x10FFFF || str_is_ascii(rs)) {
            sb_add_str(b, rs);
        } else {
            q = 0;
            for (int64_t k = 0; k < rs->ncp; k++) sb_addc(b, (char)utf8_decode(rs->data, rs->len, &q));
        }
    } else {
        BytesObj *rb = (BytesObj *)rep.as.o;
        sb_add(b, (const char *)rb->data, rb->len);
    }
    int64_t pos = val_as_intlike(AS_TUPLE(r)->items[1]);
    if (pos < 0) pos += s->ncp;
    if (pos < 0 || pos > s->ncp) {
        vm_raise(vm, vm->e_IndexError, "position %lld from error handler out of bounds", (long long)pos);
        return -1;
    }
    return pos;
}

static void add_backslash_escape(StrBuf *b, uint32_t c) {
    if (c < 0x100) sb_printf(b, "\\x%02x", c);
    else if (c < 0x10000) sb_printf(b, "\\u%04x", c);
    else sb_printf(b, "\\U%08x", c);
}

/* One encoder for the three built-in codecs: UTF-8 passes everything but surrogates; Latin-1
 * and ASCII pass code points below their limit. */
BytesObj *codec_encode_builtin(VM *vm, CodecId id, StrObj *s, const char *errors) {
    if (str_is_ascii(s) || (id == CODEC_UTF8 && !codec_has_surrogates(s)))
        return bytes_new(vm, (const uint8_t *)s->data, s->len);
    ErrKind ek = err_kind(errors);
    uint32_t limit = id == CODEC_ASCII ? 0x80 : id == CODEC_LATIN1 ? 0x100 : 0x110000;
    const char *reason = id == CODEC_ASCII ? "ordinal not in range(128)"
                         : id == CODEC_LATIN1 ? "ordinal not in range(256)" : "surrogates not allowed";
    StrBuf b;
    sb_init(&b);
    vm_push_root(vm, val_obj(s));
    int64_t pos = 0, cp = 0;   /* byte offset, code-point index */
    while (pos < s->len) {
        int64_t p0 = pos;
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        bool bad = id == CODEC_UTF8 ? (c >= 0xD800 && c <= 0xDFFF) : c >= limit;
        if (!bad) {
            if (id == CODEC_UTF8) sb_add(&b, s->data + p0, pos - p0);
            else sb_addc(&b, (char)c);
            cp++;
            continue;
        }
        /* the run of unencodable characters [cp, end) */
        int64_t start = cp, end = cp + 1, q = pos;
        while (q < s->len) {
            int64_t q0 = q;
            uint32_t d = utf8_decode(s->data, s->len, &q);
            bool dbad = id == CODEC_UTF8 ? (d >= 0xD800 && d <= 0xDFFF) : d >= limit;
            if (!dbad) {
                q = q0;
                break;
            }
            end++;
        }
        /* handle [start, end) character by character from p0 */
        pos = p0;
        switch (ek) {
        case EK_IGNORE:
        case EK_REPLACE:
        case EK_BACKSLASHREPLACE:
        case EK_XMLCHARREFREPLACE:
            for (int64_t k = start; k < end; k++) {
                uint32_t d = utf8_decode(s->data, s->len, &pos);
                if (ek == EK_REPLACE) sb_addc(&b, '?');
                else if (ek == EK_BACKSLASHREPLACE) add_backslash_escape(&b, d);
                else if (ek == EK_XMLCHARREFREPLACE) sb_printf(&b, "&#%u;", d);
            }
            cp = end;
            continue;
        case EK_SURROGATEESCAPE: {
            int64_t k = start;
            for (; k < end; k++) {
                int64_t pk = pos;
                uint32_t d = utf8_decode(s->data, s->len, &pos);
                if (d < 0xDC80 || d > 0xDCFF) {
                    pos = pk;
                    break;
                }
                sb_addc(&b, (char)(d - 0xDC00));
            }
            if (k == end) {
                cp = end;
                continue;
            }
            start = k;
            goto strict;
        }
        case EK_SURROGATEPASS:
            if (id == CODEC_UTF8) {
                for (int64_t k = start; k < end; k++) {
                    int64_t pk = pos;
                    utf8_decode(s->data, s->len, &pos);
                    sb_add(&b, s->data + pk, pos - pk);
                }
                cp = end;
                continue;
            }
            goto strict;
        case EK_CUSTOM: {
            int64_t np = call_encode_handler(vm, errors, err_name(id), s, start, end, reason, &b, limit);
            if (np < 0) goto fail;
            cp = np;
            pos = str_byte_offset(s, cp);
            continue;
        }
        default:
        strict:
            if (id == CODEC_UTF8) end = start + 1;   /* CPython's UTF-8 encoder reports one at a time */
            vm_raise_unicode_error(vm, vm->e_UnicodeEncodeError, err_name(id), val_obj(s), start, end, reason);
            goto fail;
        }
    }
    vm_pop_root(vm);
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return r;
fail:
    vm_pop_root(vm);
    sb_free(&b);
    return NULL;
}

/* ---- the registry ------------------------------------------------------------------------- */

static int ensure_registry(VM *vm) {
    if (val_is_null(vm->lib[VM_LIB_codec_search_path])) {
        ListObj *l = list_new(vm, 0);
        if (!l) return -1;
        vm->lib[VM_LIB_codec_search_path] = val_obj(l);
        DictObj *c = dict_new(vm);
        if (!c) return -1;
        vm->lib[VM_LIB_codec_cache] = val_obj(c);
    }
    return 0;
}

/* encodings.normalize_encoding's rule as CPython's C lookup applies it: lower case, spaces to
 * hyphens... the C side lowercases and maps ' ' to '_' only; the search function does the rest. */
Value codec_lookup(VM *vm, const char *encoding) {
    if (ensure_registry(vm) < 0) return val_null();
    char n[256];
    size_t i = 0;
    for (; encoding[i] && i + 1 < sizeof n; i++) {
        char c = (char)tolower((unsigned char)encoding[i]);
        n[i] = c == ' ' ? '_' : c;
    }
    n[i] = 0;
    StrObj *key = str_from_c(vm, n);
    if (!key) return val_null();
    vm_push_root(vm, val_obj(key));
    Value r = dict_get_str(AS_DICT(vm->lib[VM_LIB_codec_cache]), key);
    if (!val_is_null(r)) {
        vm_pop_root(vm);
        return r;
    }
    /* the search functions come from CPython's encodings package, imported on first need */
    ListObj *sp = AS_LIST(vm->lib[VM_LIB_codec_search_path]);
    if (sp->len == 0 && val_is_null(vm_import_module(vm, "encodings"))) {
        vm_pop_root(vm);
        return val_null();
    }
    sp = AS_LIST(vm->lib[VM_LIB_codec_search_path]);
    for (int64_t k = 0; k < sp->len; k++) {
        Value res = vm_call1(vm, sp->items[k], val_obj(key));
        if (val_is_null(res)) {
            vm_pop_root(vm);
            return res;
        }
        if (val_is_none(res)) continue;
        if (!val_is_type(vm, res, vm->t_tuple) && !vm_isinstance_type(vm, res, vm->t_tuple)) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "codec search functions must return 4-tuples");
        }
        if (AS_TUPLE(res)->len != 4) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "codec search functions must return 4-tuples");
        }
        vm_push_root(vm, res);
        int rc = dict_set_str(vm, AS_DICT(vm->lib[VM_LIB_codec_cache]), key, res);
        vm_pop_roots(vm, 2);
        return rc < 0 ? val_null() : res;
    }
    vm_pop_root(vm);
    return vm_raise(vm, vm->e_LookupError, "unknown encoding: %s", encoding);
}

Value codec_lookup_error(VM *vm, const char *name) {
    Value reg = vm->lib[VM_LIB_codec_errors];
    Value h = val_is_null(reg) ? val_null() : dict_get_c(vm, AS_DICT(reg), name);
    if (val_is_null(h)) return vm_raise(vm, vm->e_LookupError, "unknown error handler name '%s'", name);
    return h;
}

/* The CodecInfo's encode/decode (items 0 and 1) called with (input, errors): the result must
 * be a 2-tuple whose first item has the expected type. */
static Value call_codec(VM *vm, const char *encoding, int which, Value input, const char *errors) {
    /* input may be fresh (codec_decode's bytes copy): rooted before the lookup allocates (it
     * may import the encodings package) */
    vm_push_root(vm, input);
    Value info = codec_lookup(vm, encoding);
    if (val_is_null(info)) {
        vm_pop_root(vm);
        return info;
    }
    vm_push_root(vm, info);
    StrObj *e = str_from_c(vm, errors ? errors : "strict");
    if (!e) {
        vm_pop_roots(vm, 2);
        return val_null();
    }
    Value r = vm_call2(vm, AS_TUPLE(info)->items[which], input, val_obj(e));
    vm_pop_roots(vm, 2);
    if (val_is_null(r)) return r;
    if (!vm_isinstance_type(vm, r, vm->t_tuple) || AS_TUPLE(r)->len != 2)
        return vm_raise(vm, vm->e_TypeError, "%s must return a tuple (object, integer)",
                        which ? "decoder" : "encoder");
    return AS_TUPLE(r)->items[0];
}

StrObj *codec_decode(VM *vm, const uint8_t *p, int64_t n, const char *encoding, const char *errors) {
    CodecId id = codec_id(encoding ? encoding : "utf-8");
    if (id != CODEC_OTHER) return codec_decode_builtin(vm, id, p, n, errors, true, NULL, val_null());
    BytesObj *b = bytes_new(vm, p, n);
    if (!b) return NULL;
    Value r = call_codec(vm, encoding, 1, val_obj(b), errors);
    if (val_is_null(r)) return NULL;
    if (!val_is_str(vm, r)) {
        if (vm_isinstance_type(vm, r, vm->t_str)) return AS_STR(vm_str(vm, r));
        vm_raise(vm, vm->e_TypeError,
                 "'%s' decoder returned '%s' instead of 'str'; use codecs.decode() to decode to arbitrary types",
                 encoding, vm_type_name(vm, r));
        return NULL;
    }
    return AS_STR(r);
}

Value codec_encode(VM *vm, StrObj *s, const char *encoding, const char *errors) {
    CodecId id = codec_id(encoding ? encoding : "utf-8");
    if (id != CODEC_OTHER) {
        BytesObj *b = codec_encode_builtin(vm, id, s, errors);
        return b ? val_obj(b) : val_null();
    }
    Value r = call_codec(vm, encoding, 0, val_obj(s), errors);
    if (val_is_null(r)) return r;
    if (!val_is_type(vm, r, vm->t_bytes)) {
        if (vm_isinstance_type(vm, r, vm->t_bytes)) return r;
        return vm_raise(vm, vm->e_TypeError,
                        "'%s' encoder returned '%s' instead of 'bytes'; use codecs.encode() to encode to arbitrary types",
                        encoding, vm_type_name(vm, r));
    }
    return r;
}

/* ---- file-system encoding ------------------------------------------------------------------- */

BytesObj *codec_fs_encode(VM *vm, StrObj *s) { return codec_encode_builtin(vm, CODEC_UTF8, s, "surrogateescape"); }

StrObj *codec_fs_decode(VM *vm, const char *p, int64_t n) {
    return codec_decode_builtin(vm, CODEC_UTF8, (const uint8_t *)p, n, "surrogateescape", true, NULL, val_null());
}

const char *codec_fs_cstr(VM *vm, StrObj *s, Value *holder) {
    *holder = val_null();
    if (!codec_has_surrogates(s)) return s->data;
    BytesObj *b = codec_fs_encode(vm, s);
    if (!b) return NULL;
    *holder = val_obj(b);
    return (const char *)b->data;   /* bytes objects keep a NUL after their data */
}
