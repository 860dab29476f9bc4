/* vm/mod_io_text.c — text streams of _io: TextIOWrapper (encoding over a buffered binary
 * stream, universal newlines, line buffering, write_through, tell / seek cookies, reconfigure),
 * StringIO and IncrementalNewlineDecoder, with CPython's semantics and messages.
 *
 * Decoding uses the C codecs for UTF-8 / Latin-1 / ASCII (an incomplete UTF-8 sequence or a
 * '\r' that may start "\r\n" at the end of a chunk is carried over as undecoded bytes, so a
 * tell() cookie is a plain byte position) and the codec registry's incremental codecs for every
 * other encoding (where tell() is exact between chunks).  Encoding is the C codec too; for the
 * standard streams the UTF-8 bytes go straight to the C stream. */
#include <stdlib.h>
#include <string.h>

#include "vm/buffer.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/mod_io.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define CHUNK_SIZE 8192

enum { NL_LF = 1, NL_CR = 2, NL_CRLF = 4 };

static Value newlines_value(VM *vm, int seen) {
    switch (seen) {
    case 0: return val_none();
    case NL_LF: return vm_intern(vm, "\n");
    case NL_CR: return vm_intern(vm, "\r");
    case NL_CRLF: return vm_intern(vm, "\r\n");
    }
    Value v[3];
    int n = 0;
    if (seen & NL_CR) v[n++] = vm_intern(vm, "\r");
    if (seen & NL_LF) v[n++] = vm_intern(vm, "\n");
    if (seen & NL_CRLF) v[n++] = vm_intern(vm, "\r\n");
    TupleObj *t = tuple_from_array(vm, v, n);
    return t ? val_obj(t) : val_null();
}

/* Count the newline kinds in s and (translate) append s to out with "\r\n" and "\r" as "\n". */
static void scan_newlines(const char *s, int64_t n, bool translate, int *seen, StrBuf *out) {
    int64_t start = 0;
    for (int64_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            *seen |= NL_LF;
        } else if (s[i] == '\r') {
            bool crlf = i + 1 < n && s[i + 1] == '\n';
            *seen |= crlf ? NL_CRLF : NL_CR;
            if (translate) {
                sb_add(out, s + start, i - start);
                sb_addc(out, '\n');
                if (crlf) i++;
                start = i + 1;
            } else if (crlf) {
                i++;
            }
        }
    }
    if (out) sb_add(out, s + start, n - start);
}

/* ---- TextIOWrapper --------------------------------------------------------------------------------- */

typedef struct TextObj {
    IOObj io;
    Value buffer;
    StrObj *encoding, *errors;
    CodecId codec;
    Value encoder, decoder;     /* incremental codec objects for CODEC_OTHER */
    bool readuniversal, readtranslate, writetranslate;
    StrObj *readnl;             /* newline as given when not None, else NULL */
    const char *writenl;        /* "\r" or "\r\n" when '\n' is translated on output, else NULL */
    bool line_buffering, write_through, seekable, telling, has_read1, initialized, detached;
    int seennl;
    /* decoded text not yet returned: decoded[dpos..] (bytes of UTF-8), dcp code points used */
    StrObj *decoded;
    int64_t dpos, dcp;
    /* bytes carried over between chunks (incomplete sequence or trailing '\r') */
    uint8_t tail[8];
    int ntail;
    bool pendingcr;             /* CODEC_OTHER: a '\r' held back from the decoder's output */
    /* the input that decoded into `decoded`: starts at snap_pos in the buffer */
    int64_t snap_pos;
    BytesObj *snap_input;
    StrBuf pending;             /* encoded bytes not yet written to the buffer */
    int64_t chunk_size;
} TextObj;

#define TXT(v) ((TextObj *)(v).as.o)

static void text_trace(VM *vm, Obj *o) {
    TextObj *t = (TextObj *)o;
    io_trace(vm, o);
    gc_mark_value(vm, t->buffer);
    gc_mark(vm, t->encoding);
    gc_mark(vm, t->errors);
    gc_mark_value(vm, t->encoder);
    gc_mark_value(vm, t->decoder);
    gc_mark(vm, t->readnl);
    gc_mark(vm, t->decoded);
    gc_mark(vm, t->snap_input);
}

static void text_finalize(VM *vm, Obj *o) {
    TextObj *t = (TextObj *)o;
    io_unregister_stream(vm, o);
    /* pending text of a collected file reaches its buffer only through a flush; CPython's
     * finalizer flushes — here the bytes would have nowhere safe to go, so an unflushed
     * standard-stream wrapper never has any (it writes through) */
    sb_free(&t->pending);
}

static Value text_alloc(VM *vm, TypeObj *t) {
    Value v = io_alloc_stream(vm, t);
    if (!val_is_null(v)) {
        TXT(v)->encoder = TXT(v)->decoder = TXT(v)->buffer = val_none();
        TXT(v)->snap_pos = -1;
        TXT(v)->chunk_size = CHUNK_SIZE;
    }
    return v;
}

static int text_check_init(VM *vm, TextObj *t) {
    if (!t->initialized) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on uninitialized object");
        return -1;
    }
    if (t->detached) {
        vm_raise(vm, vm->e_ValueError, "underlying buffer has been detached");
        return -1;
    }
    return 0;
}

static int text_check_closed(VM *vm, Value self) {
    TextObj *t = TXT(self);
    if (text_check_init(vm, t) < 0) return -1;
    /* a C-backed buffer answers without a call */
    Value b = t->buffer;
    if (b.tag == VAL_OBJ && (b.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_bufferedwriter]) ||
                             b.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_bufferedreader]) ||
                             b.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_bufferedrandom]))) {
        Value raw = ((BufferedObj *)b.as.o)->raw;
        if (raw.tag == VAL_OBJ && raw.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_fileio]) && !((BufferedObj *)b.as.o)->detached) {
            if (((FileIOObj *)raw.as.o)->fd < 0) {
                vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
                return -1;
            }
            return 0;
        }
    }
    return io_check_closed(vm, self);
}

static void clear_decoded(TextObj *t) {
    t->decoded = NULL;
    t->dpos = t->dcp = 0;
    t->snap_input = NULL;
    t->snap_pos = -1;
}

static void reset_decoder_state(VM *vm, TextObj *t) {
    clear_decoded(t);
    t->ntail = 0;
    t->pendingcr = false;
    if (!val_is_none(t->decoder)) {
        Value r = vm_call_method(vm, t->decoder, "reset", 0, NULL);
        if (val_is_null(r)) vm_clear_exc(vm);
    }
}

/* write the pending encoded bytes to the buffer */
static int flush_pending(VM *vm, TextObj *t) {
    if (t->pending.len == 0) return 0;
    BytesObj *b = bytes_new(vm, (const uint8_t *)t->pending.data, t->pending.len);
    t->pending.len = 0;
    if (!b) return -1;
    vm_push_root(vm, val_obj(b));
    Value r = vm_call_method(vm, t->buffer, "write", 1, (Value[]){val_obj(b)});
    vm_pop_root(vm);
    return val_is_null(r) ? -1 : 0;
}

static bool valid_newline(VM *vm, Value nl) {
    if (val_is_none(nl)) return true;
    if (!val_is_str(vm, nl)) return false;
    const char *s = AS_STR(nl)->data;
    return !strcmp(s, "") || !strcmp(s, "\n") || !strcmp(s, "\r") || !strcmp(s, "\r\n");
}

static int set_newline(VM *vm, TextObj *t, Value nl) {
    if (!val_is_none(nl) && !val_is_str(vm, nl)) {
        vm_raise(vm, vm->e_TypeError, "TextIOWrapper() argument 'newline' must be str or None, not %s",
                 vm_type_name(vm, nl));
        return -1;
    }
    if (!valid_newline(vm, nl)) {
        Value r = vm_repr(vm, nl);
        if (!val_is_null(r)) vm_raise(vm, vm->e_ValueError, "illegal newline value: %s", AS_STR(r)->data);
        return -1;
    }
    const char *s = val_is_none(nl) ? NULL : AS_STR(nl)->data;
    t->readnl = s ? AS_STR(nl) : NULL;
    t->readuniversal = !s || !s[0];
    t->readtranslate = !s;
    t->writetranslate = !s || s[0];
    t->writenl = !t->writetranslate || !s || !strcmp(s, "\n") ? NULL : (!strcmp(s, "\r") ? "\r" : "\r\n");
    return 0;
}

/* The codec for t->encoding: built-in, or the registry's incremental encoder / decoder. */
static int set_codec(VM *vm, TextObj *t, Value self) {
    t->codec = codec_id(t->encoding->data);
    t->encoder = t->decoder = val_none();
    if (t->codec != CODEC_OTHER) return 0;
    Value info = codec_lookup(vm, t->encoding->data);
    if (val_is_null(info)) return -1;
    vm_push_root(vm, info);
    Value is_text = vm_getattr_opt(vm, info, vm_intern_str(vm, "_is_text_encoding"));
    if (val_is_null(is_text)) vm_clear_exc(vm);
    else if (vm_truthy(vm, is_text) == 0) {
        vm_pop_root(vm);
        vm_raise(vm, vm->e_LookupError, "'%s' is not a text encoding; use codecs.open() to handle arbitrary codecs",
                 t->encoding->data);
        return -1;
    }
    Value r = vm_call_method(vm, t->buffer, "readable", 0, NULL);
    if (val_is_null(r)) goto fail;
    if (vm_truthy(vm, r) > 0) {
        Value f = vm_getattr_c(vm, info, "incrementaldecoder");
        Value d = val_is_null(f) ? f : vm_call1(vm, f, val_obj(t->errors));
        if (val_is_null(d)) goto fail;
        t->decoder = d;
    }
    r = vm_call_method(vm, t->buffer, "writable", 0, NULL);
    if (val_is_null(r)) goto fail;
    if (vm_truthy(vm, r) > 0) {
        Value f = vm_getattr_c(vm, info, "incrementalencoder");
        Value e = val_is_null(f) ? f : vm_call1(vm, f, val_obj(t->errors));
        if (val_is_null(e)) goto fail;
        t->encoder = e;
        /* a BOM is written only at the start of the stream */
        if (t->seekable) {
            Value pos = vm_call_method(vm, t->buffer, "tell", 0, NULL);
            if (val_is_null(pos)) vm_clear_exc(vm);
            else if (!(val_is_intlike(pos) && val_as_intlike(pos) == 0)) {
                Value s = vm_call_method(vm, e, "setstate", 1, (Value[]){val_int(0)});
                if (val_is_null(s)) vm_clear_exc(vm);
            }
        }
    }
    vm_pop_root(vm);
    return 0;
fail:
    vm_pop_root(vm);
    return -1;
}

/* TextIOWrapper(buffer, encoding=None, errors=None, newline=None, line_buffering=False,
 *               write_through=False) */
static Value text_init(ARGS) {
    static const char *const names[] = {"self", "buffer", "encoding", "errors", "newline", "line_buffering", "write_through"};
    Value a[7];
    if (native_parse_args(vm, "TextIOWrapper", argc, argv, kw, 7, 2, names, 7, a) < 0) return val_null();
    TextObj *t = TXT(argv[0]);
    t->initialized = false;
    t->detached = false;
    Value enc = val_is_null(a[2]) || val_is_none(a[2]) ? vm_intern(vm, "locale") : a[2];
    if (!val_is_str(vm, enc))
        return vm_raise(vm, vm->e_TypeError, "TextIOWrapper() argument 'encoding' must be str or None, not %s",
                        vm_type_name(vm, enc));
    if (strcmp(AS_STR(enc)->data, "locale") == 0) enc = vm_intern(vm, "UTF-8");
    if (memchr(AS_STR(enc)->data, 0, (size_t)AS_STR(enc)->len)) return vm_raise(vm, vm->e_ValueError, "embedded null character");
    Value errors = val_is_null(a[3]) || val_is_none(a[3]) ? vm_intern(vm, "strict") : a[3];
    if (!val_is_str(vm, errors))
        return vm_raise(vm, vm->e_TypeError, "TextIOWrapper() argument 'errors' must be str or None, not %s",
                        vm_type_name(vm, errors));
    t->buffer = a[1];
    t->encoding = AS_STR(enc);
    t->errors = AS_STR(errors);
    if (set_newline(vm, t, val_is_null(a[4]) ? val_none() : a[4]) < 0) return val_null();
    t->line_buffering = !val_is_null(a[5]) && vm_truthy(vm, a[5]) > 0;
    t->write_through = !val_is_null(a[6]) && vm_truthy(vm, a[6]) > 0;
    Value sk = vm_call_method(vm, t->buffer, "seekable", 0, NULL);
    if (val_is_null(sk)) return sk;
    t->seekable = t->telling = vm_truthy(vm, sk) > 0;
    Value r1 = vm_getattr_opt(vm, t->buffer, vm_intern_str(vm, "read1"));
    if (val_is_null(r1)) vm_clear_exc(vm);
    t->has_read1 = !val_is_null(r1);
    t->seennl = 0;
    reset_decoder_state(vm, t);
    t->pending.len = 0;
    if (set_codec(vm, t, argv[0]) < 0) return val_null();
    t->initialized = true;
    return val_none();
}

/* ---- decoding ---------------------------------------------------------------------------------- */

/* Decode input (the carried tail prepended) into text, translating newlines; keeps what must
 * wait for more input in t->tail.  Returns the text or NULL. */
static StrObj *decode_chunk(VM *vm, TextObj *t, const uint8_t *in, int64_t n, bool final) {
    StrBuf raw;
    sb_init(&raw);
    StrObj *text;
    if (t->codec != CODEC_OTHER) {
        uint8_t *data = malloc((size_t)(n + t->ntail) + 1);
        memcpy(data, t->tail, (size_t)t->ntail);
        memcpy(data + t->ntail, in, (size_t)n);
        int64_t total = n + t->ntail, used = total;
        /* a trailing '\r' may be half of "\r\n": decide with the next chunk */
        int64_t limit = total;
        if (!final && t->readuniversal && limit > 0 && data[limit - 1] == '\r') limit--;
        text = codec_decode_builtin(vm, t->codec, data, limit, t->errors->data, final, &used, val_null());
        if (!text) {
            free(data);
            return NULL;
        }
        t->ntail = (int)(total - used);
        if (t->ntail > (int)sizeof t->tail) t->ntail = sizeof t->tail;
        memcpy(t->tail, data + used, (size_t)t->ntail);
        free(data);
    } else {
        BytesObj *b = bytes_new(vm, in, n);
        if (!b) return NULL;
        vm_push_root(vm, val_obj(b));
        Value r = vm_call_method(vm, t->decoder, "decode", 2, (Value[]){val_obj(b), val_bool(final)});
        vm_pop_root(vm);
        if (val_is_null(r)) return NULL;
        if (!val_is_str(vm, r)) {
            vm_raise(vm, vm->e_TypeError, "decoder should return a string result, not '%s'", vm_type_name(vm, r));
            return NULL;
        }
        text = AS_STR(r);
        if (t->readuniversal) {
            /* IncrementalNewlineDecoder's pendingcr */
            if (t->pendingcr && (text->len || final)) {
                sb_addc(&raw, '\r');
                t->pendingcr = false;
            }
            sb_add_str(&raw, text);
            if (!final && raw.len && raw.data[raw.len - 1] == '\r') {
                raw.len--;
                t->pendingcr = true;
            }
            text = sb_finish(vm, &raw);
            if (!text) return NULL;
            sb_init(&raw);
        }
    }
    if (!t->readuniversal) return text;
    vm_push_root(vm, val_obj(text));
    StrBuf out;
    sb_init(&out);
    scan_newlines(text->data, text->len, t->readtranslate, &t->seennl, t->readtranslate ? &out : NULL);
    vm_pop_root(vm);
    if (!t->readtranslate) {
        sb_free(&out);
        return text;
    }
    return sb_finish(vm, &out);
}

/* Read one chunk from the buffer and decode it: 1 got text (or more may come), 0 EOF, 2 no
 * data yet (non-blocking), -1 error */
static int read_chunk(VM *vm, TextObj *t, int64_t size_hint) {
    if (val_is_none(t->decoder) && t->codec == CODEC_OTHER) {
        io_unsupported(vm, "not readable");
        return -1;
    }
    int64_t before = -1;
    if (t->telling) {
        Value p = vm_call_method(vm, t->buffer, "tell", 0, NULL);
        if (val_is_null(p)) return -1;
        before = val_is_intlike(p) ? val_as_intlike(p) : -1;
    }
    int64_t want = size_hint > t->chunk_size ? size_hint : t->chunk_size;
    Value input = vm_call_method(vm, t->buffer, t->has_read1 ? "read1" : "read", 1, (Value[]){val_int(want)});
    if (val_is_null(input)) return -1;
    if (val_is_none(input)) return 2;   /* non-blocking: nothing yet */
    vm_push_root(vm, input);
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, input, "read", &h, &p, &n) < 0) {
        vm_pop_root(vm);
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "underlying %s() should have returned a bytes-like object, not '%s'",
                     t->has_read1 ? "read1" : "read", vm_type_name(vm, input));
        }
        return -1;
    }
    bool eof = n == 0;
    /* the snapshot: this chunk's bytes with the carried tail in front, and where they start */
    int ntail = t->ntail;
    BytesObj *snap = NULL;
    if (t->telling) {
        snap = bytes_new(vm, NULL, n + ntail);
        if (!snap) {
            vm_pop_root(vm);
            return -1;
        }
        memcpy(snap->data, t->tail, (size_t)ntail);
        memcpy(snap->data + ntail, p, (size_t)n);
        vm_push_root(vm, val_obj(snap));
    }
    StrObj *text = decode_chunk(vm, t, p, n, eof);
    if (t->telling) vm_pop_root(vm);
    vm_pop_root(vm);
    if (!text) return -1;
    t->decoded = text;
    t->dpos = t->dcp = 0;
    t->snap_input = snap;
    t->snap_pos = before >= 0 && t->codec != CODEC_OTHER ? before - ntail : before;
    return eof && text->len == 0 ? 0 : 1;
}

static int64_t decoded_left(TextObj *t) { return t->decoded ? t->decoded->len - t->dpos : 0; }

/* take up to n code points (n < 0: all) of the decoded text into out */
static void take_decoded(TextObj *t, int64_t n, StrBuf *out) {
    if (!t->decoded) return;
    const char *s = t->decoded->data + t->dpos;
    int64_t left = t->decoded->len - t->dpos, nb = 0, ncp = 0;
    if (n < 0) {
        nb = left;
        ncp = utf8_count(s, left);
    } else {
        while (nb < left && ncp < n) {
            unsigned char c = (unsigned char)s[nb];
            nb += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            ncp++;
        }
        if (nb > left) nb = left;
    }
    sb_add(out, s, nb);
    t->dpos += nb;
    t->dcp += ncp;
}

static Value text_read(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    int64_t n = -1;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "argument should be integer or None, not 'float'");
        if (vm_index(vm, argv[1], &n) < 0) return val_null();
    }
    if (val_is_none(t->decoder) && t->codec == CODEC_OTHER) return io_unsupported(vm, "not readable");
    if (flush_pending(vm, t) < 0) return val_null();
    StrBuf out;
    sb_init(&out);
    if (n < 0) {
        take_decoded(t, -1, &out);
        Value all = vm_call_method(vm, t->buffer, "read", 0, NULL);
        if (val_is_null(all)) goto fail;
        if (!val_is_none(all)) {
            vm_push_root(vm, all);
            Value h;
            const uint8_t *p;
            int64_t len;
            int rc = buffer_get(vm, all, "read", &h, &p, &len);
            StrObj *text = rc < 0 ? NULL : decode_chunk(vm, t, p, len, true);
            vm_pop_root(vm);
            if (!text) goto fail;
            sb_add_str(&out, text);
        }
        clear_decoded(t);
        t->ntail = 0;
    } else {
        int64_t got = 0;
        while (got < n) {
            int64_t before = out.len;
            take_decoded(t, n - got, &out);
            got += utf8_count(out.data + before, out.len - before);
            if (got >= n) break;
            int r = read_chunk(vm, t, n - got);
            if (r < 0) goto fail;
            if (r == 0 || r == 2) break;
        }
    }
    {
        StrObj *s = sb_finish(vm, &out);
        return s ? val_obj(s) : val_null();
    }
fail:
    sb_free(&out);
    return val_null();
}

/* The length of s[0..n) up to and including its first line ending, or -1.  A "\r" that
 * could start a "\r\n" never ends a chunk of decoded text in universal mode (it is carried
 * over as undecoded input), so looking inside the chunk is enough there. */
static int64_t find_line_end(TextObj *t, const char *s, int64_t n) {
    if (t->readtranslate || (t->readnl && !strcmp(t->readnl->data, "\n"))) {
        const char *nl = memchr(s, '\n', (size_t)n);
        return nl ? nl - s + 1 : -1;
    }
    if (t->readuniversal) {
        for (int64_t i = 0; i < n; i++) {
            if (s[i] == '\n') return i + 1;
            if (s[i] == '\r') return i + 1 < n && s[i + 1] == '\n' ? i + 2 : i + 1;
        }
        return -1;
    }
    const char *nl = t->readnl->data;
    int64_t k = t->readnl->len;
    for (int64_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, nl, (size_t)k) == 0) return i + k;
    return -1;
}

static Value text_readline(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    int64_t limit = -1;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "argument should be integer or None, not 'float'");
        if (vm_index(vm, argv[1], &limit) < 0) return val_null();
    }
    if (flush_pending(vm, t) < 0) return val_null();
    bool crlf_mode = !t->readuniversal && t->readnl && !strcmp(t->readnl->data, "\r\n");
    StrBuf line;
    sb_init(&line);
    int64_t have = 0;
    while (limit < 0 || have < limit) {
        if (decoded_left(t) == 0) {
            int r = read_chunk(vm, t, 0);
            if (r < 0) goto fail;
            if (r == 0 || r == 2) break;
            continue;
        }
        const char *s = t->decoded->data + t->dpos;
        int64_t left = decoded_left(t);
        /* newline="\r\n" split across two chunks */
        if (crlf_mode && line.len && line.data[line.len - 1] == '\r' && s[0] == '\n') {
            take_decoded(t, 1, &line);
            break;
        }
        int64_t end = find_line_end(t, s, left);
        int64_t take = end < 0 ? left : end;
        int64_t cps = utf8_count(s, take);
        if (limit >= 0 && have + cps > limit) cps = limit - have;
        take_decoded(t, cps, &line);
        have += cps;
        if (end >= 0 && have < limit + (limit < 0 ? have + 1 : 0)) break;
        if (end >= 0) break;
    }
    {
        StrObj *r = sb_finish(vm, &line);
        return r ? val_obj(r) : val_null();
    }
fail:
    sb_free(&line);
    return val_null();
}

static Value text_next(ARGS) {
    TextObj *t = TXT(argv[0]);
    t->telling = false;
    Value line = text_readline(vm, 1, argv, NULL, fn);
    if (val_is_null(line)) return line;
    if (AS_STR(line)->len == 0) {
        clear_decoded(t);
        t->telling = t->seekable;
        return vm_raise_stop_iteration(vm, val_null());
    }
    return line;
}

/* ---- encoding ---------------------------------------------------------------------------------- */

static int encode_into(VM *vm, TextObj *t, StrObj *s, StrBuf *out) {
    if (t->codec == CODEC_UTF8 && !codec_has_surrogates(s)) {
        sb_add_str(out, s);
        return 0;
    }
    if (t->codec != CODEC_OTHER) {
        BytesObj *b = codec_encode_builtin(vm, t->codec, s, t->errors->data);
        if (!b) return -1;
        sb_add(out, (const char *)b->data, b->len);
        return 0;
    }
    if (val_is_none(t->encoder)) {
        io_unsupported(vm, "not writable");
        return -1;
    }
    Value b = vm_call_method(vm, t->encoder, "encode", 1, (Value[]){val_obj(s)});
    if (val_is_null(b)) return -1;
    if (!vm_isinstance_type(vm, b, vm->t_bytes)) {
        vm_raise(vm, vm->e_TypeError, "encoder should return a bytes object, not '%s'", vm_type_name(vm, b));
        return -1;
    }
    sb_add(out, (const char *)((BytesObj *)b.as.o)->data, ((BytesObj *)b.as.o)->len);
    return 0;
}

static Value text_write(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    if (!val_is_str(vm, argv[1]) && !vm_isinstance_type(vm, argv[1], vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "write() argument must be str, not %s", vm_type_name(vm, argv[1]));
    StrObj *s = AS_STR(argv[1]);
    bool haslf = (t->writetranslate || t->line_buffering) && memchr(s->data, '\n', (size_t)s->len);
    StrObj *text = s;
    if (haslf && t->writetranslate && t->writenl) {
        StrBuf b;
        sb_init(&b);
        for (int64_t i = 0; i < s->len; i++)
            if (s->data[i] == '\n') sb_adds(&b, t->writenl);
            else sb_addc(&b, s->data[i]);
        text = sb_finish(vm, &b);
        if (!text) return val_null();
    }
    bool needflush = t->line_buffering && (haslf || memchr(text->data, '\r', (size_t)text->len));
    vm_push_root(vm, val_obj(text));
    int rc = encode_into(vm, t, text, &t->pending);
    vm_pop_root(vm);
    if (rc < 0) return val_null();
    /* over a pass-through buffer (the standard streams) the C stream is the buffer: the text
     * goes there now, in order with what C code prints */
    bool passthrough = t->buffer.tag == VAL_OBJ && t->buffer.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_bufferedwriter]) &&
                       ((BufferedObj *)t->buffer.as.o)->passthrough;
    if (t->pending.len > t->chunk_size || needflush || t->write_through || passthrough) {
        if (flush_pending(vm, t) < 0) return val_null();
    }
    if (needflush && val_is_null(vm_call_method(vm, t->buffer, "flush", 0, NULL))) return val_null();
    if (t->decoded || t->ntail) reset_decoder_state(vm, t);
    return val_int(s->ncp);
}

/* print()'s path to a standard stream (see mod_io.h) */
int io_text_write_fast(VM *vm, Value stream, const char *s, int64_t n) {
    if (stream.tag != VAL_OBJ || stream.as.o->type != AS_TYPE(vm->lib[VM_LIB_io_textiowrapper])) return 0;
    TextObj *t = TXT(stream);
    if (!t->initialized || t->detached || t->codec != CODEC_UTF8 || t->writenl || t->pending.len) return 0;
    Value b = t->buffer;
    if (b.tag != VAL_OBJ || b.as.o->type != AS_TYPE(vm->lib[VM_LIB_io_bufferedwriter])) return 0;
    BufferedObj *bw = (BufferedObj *)b.as.o;
    if (!bw->passthrough || bw->detached || bw->raw.tag != VAL_OBJ) return 0;
    FileIOObj *f = (FileIOObj *)bw->raw.as.o;
    if (f->io.hdr.type != AS_TYPE(vm->lib[VM_LIB_io_fileio]) || !f->stdio) return 0;
    if (f->fd < 0) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
        return -1;
    }
    /* surrogates take the codec's error path */
    for (int64_t i = 0; i + 1 < n; i++)
        if ((unsigned char)s[i] == 0xED && (unsigned char)s[i + 1] >= 0xA0) return 0;
    if (f->stdio == stderr) fflush(vm->out);
    fwrite(s, 1, (size_t)n, f->stdio);
    if (f->stdio == stderr || (t->line_buffering && memchr(s, '\n', (size_t)n))) fflush(f->stdio);
    return 1;
}

/* ---- flush, close, tell, seek, ... ----------------------------------------------------------- */

static Value text_flush(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    t->telling = t->seekable;
    if (flush_pending(vm, t) < 0) return val_null();
    return vm_call_method(vm, t->buffer, "flush", 0, NULL);
}

static Value text_close(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_init(vm, t) < 0) return val_null();
    int c = io_is_closed(vm, argv[0]);
    if (c < 0) return val_null();
    if (c) return val_none();
    Value r = vm_call_method(vm, argv[0], "flush", 0, NULL);
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    Value cr = vm_call_method(vm, t->buffer, "close", 0, NULL);
    if (!val_is_null(e)) {
        if (val_is_null(cr)) vm_clear_exc(vm);
        vm->exc = e;
        cr = val_null();
    }
    vm_pop_root(vm);
    (void)r;
    return cr;
}

/* The byte position of the next character to read (a plain position: see the header). */
static Value text_tell(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    if (!t->seekable) return io_unsupported(vm, "underlying stream is not seekable");
    if (!t->telling) return vm_raise(vm, vm->e_OSError, "telling position disabled by next() call");
    if (flush_pending(vm, t) < 0) return val_null();
    Value pos = vm_call_method(vm, t->buffer, "tell", 0, NULL);
    if (val_is_null(pos)) return pos;
    if (!t->decoded || t->snap_pos < 0) {
        if (t->ntail && val_is_intlike(pos)) return val_int(val_as_intlike(pos) - t->ntail);
        return pos;
    }
    if (t->codec == CODEC_OTHER) {
        if (decoded_left(t) == 0 && !t->pendingcr) return pos;
        return io_unsupported(vm, "Ember's TextIOWrapper can tell() inside a decoded chunk only for UTF-8, Latin-1 and ASCII");
    }
    /* re-decode the chunk's bytes until the characters consumed are produced */
    const uint8_t *in = t->snap_input->data;
    int64_t n = t->snap_input->len, off = 0, chars = 0;
    while (chars < t->dcp && off < n) {
        int64_t step = 1;
        uint8_t c = in[off];
        if (t->codec == CODEC_UTF8 && c >= 0x80) step = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (t->readtranslate && c == '\r' && off + 1 < n && in[off + 1] == '\n') step = 2;
        off += step;
        chars++;
    }
    return val_int(t->snap_pos + off);
}

static Value text_seek(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_closed(vm, argv[0]) < 0) return val_null();
    if (!t->seekable) return io_unsupported(vm, "underlying stream is not seekable");
    int64_t whence = 0, cookie;
    if (argc > 2 && vm_index(vm, argv[2], &whence) < 0) return val_null();
    if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "an integer is required");
    if (whence == 1) {
        int64_t c;
        if (vm_index(vm, argv[1], &c) < 0) return val_null();
        if (c != 0) return io_unsupported(vm, "can't do nonzero cur-relative seeks");
        return text_tell(vm, 1, argv, NULL, fn);
    }
    if (whence == 2) {
        int64_t c;
        if (vm_index(vm, argv[1], &c) < 0) return val_null();
        if (c != 0) return io_unsupported(vm, "can't do nonzero end-relative seeks");
        if (val_is_null(vm_call_method(vm, argv[0], "flush", 0, NULL))) return val_null();
        reset_decoder_state(vm, t);
        Value r = vm_call_method(vm, t->buffer, "seek", 2, (Value[]){val_int(0), val_int(2)});
        if (!val_is_null(r) && !val_is_none(t->encoder)) {
            Value s = vm_call_method(vm, t->encoder, "setstate", 1, (Value[]){val_int(0)});
            if (val_is_null(s)) vm_clear_exc(vm);
        }
        return r;
    }
    if (whence != 0) return vm_raise(vm, vm->e_ValueError, "invalid whence (%lld, should be 0, 1 or 2)", (long long)whence);
    if (vm_index(vm, argv[1], &cookie) < 0) return val_null();
    if (cookie < 0) return vm_raise(vm, vm->e_ValueError, "negative seek position %lld", (long long)cookie);
    if (val_is_null(vm_call_method(vm, argv[0], "flush", 0, NULL))) return val_null();
    Value r = vm_call_method(vm, t->buffer, "seek", 1, (Value[]){val_int(cookie)});
    if (val_is_null(r)) return r;
    reset_decoder_state(vm, t);
    if (!val_is_none(t->encoder)) {
        Value s = cookie ? vm_call_method(vm, t->encoder, "setstate", 1, (Value[]){val_int(0)})
                         : vm_call_method(vm, t->encoder, "reset", 0, NULL);
        if (val_is_null(s)) vm_clear_exc(vm);
    }
    return val_int(cookie);
}

static Value text_truncate(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (val_is_null(vm_call_method(vm, argv[0], "flush", 0, NULL))) return val_null();
    Value pos = argc > 1 ? argv[1] : val_none();
    if (val_is_none(pos)) {
        pos = text_tell(vm, 1, argv, NULL, fn);
        if (val_is_null(pos)) return pos;
    }
    return vm_call_method(vm, t->buffer, "truncate", 1, &pos);
}

static Value text_detach(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_init(vm, t) < 0) return val_null();
    if (val_is_null(vm_call_method(vm, argv[0], "flush", 0, NULL))) return val_null();
    Value b = t->buffer;
    t->detached = true;
    return b;
}

static Value text_delegate(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_init(vm, t) < 0) return val_null();
    return vm_call_method(vm, t->buffer, (const char *)fn->data, 0, NULL);
}

static Value text_fileno(ARGS) {
    TextObj *t = TXT(argv[0]);
    if (text_check_init(vm, t) < 0) return val_null();
    return vm_call_method(vm, t->buffer, "fileno", 0, NULL);
}

static Value text_repr(ARGS) {
    TextObj *t = TXT(argv[0]);
    const char *tn = type_repr_name(vm, argv[0].as.o->type)->data;
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "<%s", tn);
    const char *attrs[2] = {"name", "mode"};
    for (int i = 0; i < 2; i++) {
        Value v = vm_getattr_opt(vm, argv[0], vm_intern_str(vm, attrs[i]));
        if (val_is_null(v)) {
            if (vm->exc.tag && !vm_exc_matches(vm, vm->e_AttributeError) && !vm_exc_matches(vm, vm->e_ValueError)) {
                sb_free(&b);
                return val_null();
            }
            vm_clear_exc(vm);
            continue;
        }
        Value r = vm_repr(vm, v);
        if (val_is_null(r)) {
            sb_free(&b);
            return r;
        }
        sb_printf(&b, " %s=%s", attrs[i], AS_STR(r)->data);
    }
    if (t->encoding) {
        Value r = vm_repr(vm, val_obj(t->encoding));
        if (val_is_null(r)) {
            sb_free(&b);
            return r;
        }
        sb_printf(&b, " encoding=%s", AS_STR(r)->data);
    }
    sb_addc(&b, '>');
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

/* reconfigure(*, encoding=None, errors=None, newline=Ellipsis, line_buffering=None, write_through=None) */
static Value text_reconfigure(ARGS) {
    static const char *const names[] = {"self", "encoding", "errors", "newline", "line_buffering", "write_through"};
    Value a[6];
    if (native_parse_args(vm, "reconfigure", argc, argv, kw, 1, 1, names, 6, a) < 0) return val_null();
    TextObj *t = TXT(argv[0]);
    if (text_check_init(vm, t) < 0) return val_null();
    bool change_codec = (!val_is_null(a[1]) && !val_is_none(a[1])) || (!val_is_null(a[2]) && !val_is_none(a[2]));
    if (change_codec && (t->decoded || t->ntail))
        return io_unsupported(vm, "It is not possible to set the encoding or newline of stream after the first read");
    if (val_is_null(vm_call_method(vm, argv[0], "flush", 0, NULL))) return val_null();
    if (change_codec) {
        Value enc = val_is_null(a[1]) || val_is_none(a[1]) ? val_obj(t->encoding) : a[1];
        Value err = val_is_null(a[2]) || val_is_none(a[2]) ? (val_is_null(a[1]) || val_is_none(a[1]) ? val_obj(t->errors) : vm_intern(vm, "strict")) : a[2];
        if (!val_is_str(vm, enc) || !val_is_str(vm, err)) return vm_raise(vm, vm->e_TypeError, "reconfigure() arguments must be str");
        if (strcmp(AS_STR(enc)->data, "locale") == 0) enc = vm_intern(vm, "UTF-8");
        t->encoding = AS_STR(enc);
        t->errors = AS_STR(err);
        if (set_codec(vm, t, argv[0]) < 0) return val_null();
    }
    if (!val_is_null(a[3]) && !val_identical(a[3], vm->ellipsis) && set_newline(vm, t, a[3]) < 0) return val_null();
    if (!val_is_null(a[4]) && !val_is_none(a[4])) t->line_buffering = vm_truthy(vm, a[4]) > 0;
    if (!val_is_null(a[5]) && !val_is_none(a[5])) t->write_through = vm_truthy(vm, a[5]) > 0;
    return val_none();
}

static Value text_get_encoding(VM *vm, Value s, void *c) { return TXT(s)->encoding ? val_obj(TXT(s)->encoding) : val_none(); }
static Value text_get_errors(VM *vm, Value s, void *c) { return TXT(s)->errors ? val_obj(TXT(s)->errors) : val_none(); }
static Value text_get_buffer(VM *vm, Value s, void *c) {
    if (text_check_init(vm, TXT(s)) < 0) return val_null();
    return TXT(s)->buffer;
}
static Value text_get_lb(VM *vm, Value s, void *c) { return val_bool(TXT(s)->line_buffering); }
static Value text_get_wt(VM *vm, Value s, void *c) { return val_bool(TXT(s)->write_through); }
static Value text_get_newlines(VM *vm, Value s, void *c) {
    TextObj *t = TXT(s);
    if (!t->readuniversal) return val_none();
    return newlines_value(vm, t->seennl);
}
static Value text_get_closed(VM *vm, Value s, void *c) {
    if (text_check_init(vm, TXT(s)) < 0) return val_null();
    return vm_getattr_c(vm, TXT(s)->buffer, "closed");
}
static Value text_get_name(VM *vm, Value s, void *c) {
    if (text_check_init(vm, TXT(s)) < 0) return val_null();
    return vm_getattr_c(vm, TXT(s)->buffer, "name");
}
static Value text_get_chunk(VM *vm, Value s, void *c) { return val_int(TXT(s)->chunk_size); }
static int text_set_chunk(VM *vm, Value s, Value v, void *c) {
    int64_t n;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "cannot delete attribute");
        return -1;
    }
    if (vm_index(vm, v, &n) < 0) return -1;
    if (n <= 0) {
        vm_raise(vm, vm->e_ValueError, "a strictly positive integer is required");
        return -1;
    }
    TXT(s)->chunk_size = n;
    return 0;
}

static Value text_no_pickle(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "cannot pickle '%s' object", type_repr_name(vm, argv[0].as.o->type)->data);
}

/* ---- StringIO ----------------------------------------------------------------------------------- */

typedef struct StringIOObj {
    IOObj io;
    StrBuf text;          /* UTF-8 */
    int64_t ncp;          /* code points in text */
    int64_t pos;          /* position in code points (may be past the end) */
    int64_t pos_b;        /* its byte offset when pos <= ncp */
    bool ascii;           /* text is ASCII: byte offsets are code-point offsets */
    Value newline;        /* as given */
    bool readuniversal, readtranslate, writetranslate;
    const char *writenl;
    int seennl;
    bool ok;
} StringIOObj;

#define SIO(v) ((StringIOObj *)(v).as.o)

static void sio_trace(VM *vm, Obj *o) {
    io_trace(vm, o);
    gc_mark_value(vm, ((StringIOObj *)o)->newline);
}
static void sio_finalize(VM *vm, Obj *o) { sb_free(&((StringIOObj *)o)->text); }

static int sio_check(VM *vm, Value self) {
    StringIOObj *s = SIO(self);
    if (!s->ok) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on uninitialized object");
        return -1;
    }
    if (s->io.flags & IOF_CLOSED) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
        return -1;
    }
    return 0;
}

static int64_t sio_byte_of(StringIOObj *s, int64_t cp) {
    if (s->ascii) return cp;
    int64_t b = 0, c = 0;
    while (c < cp && b < s->text.len) {
        unsigned char ch = (unsigned char)s->text.data[b];
        b += ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
        c++;
    }
    return b;
}

/* write text (already newline-processed) at the current position */
static void sio_put(StringIOObj *s, const char *p, int64_t n, int64_t ncp) {
    if (s->pos > s->ncp) {
        /* pad with NULs up to the position */
        for (int64_t i = s->ncp; i < s->pos; i++) sb_addc(&s->text, 0);
        s->ncp = s->pos;
        s->pos_b = s->text.len;
    }
    int64_t at = s->pos_b;
    if (at == s->text.len) {
        sb_add(&s->text, p, n);
    } else {
        /* overwrite ncp code points from at */
        int64_t end = at, c = 0;
        while (c < ncp && end < s->text.len) {
            unsigned char ch = (unsigned char)s->text.data[end];
            end += ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
            c++;
        }
        int64_t replaced = c;
        StrBuf nb;
        sb_init(&nb);
        sb_add(&nb, s->text.data, at);
        sb_add(&nb, p, n);
        sb_add(&nb, s->text.data + end, s->text.len - end);
        sb_free(&s->text);
        s->text = nb;
        s->ncp -= replaced;
    }
    s->ncp = at == s->pos_b && s->pos == s->ncp ? s->ncp + ncp : s->ncp + ncp;
    s->pos += ncp;
    s->pos_b = at + n;
    if (n != ncp) s->ascii = false;
}

static int sio_write_str(VM *vm, StringIOObj *s, StrObj *in) {
    const char *p = in->data;
    int64_t n = in->len;
    StrBuf tmp;
    sb_init(&tmp);
    if (s->readuniversal) {
        /* newline None or '': the written text goes through the newline decoder */
        scan_newlines(p, n, s->readtranslate, &s->seennl, s->readtranslate ? &tmp : NULL);
        if (s->readtranslate) {
            p = tmp.data;
            n = tmp.len;
        }
    }
    if (s->writenl && memchr(p, '\n', (size_t)n)) {
        StrBuf t2;
        sb_init(&t2);
        for (int64_t i = 0; i < n; i++)
            if (p[i] == '\n') sb_adds(&t2, s->writenl);
            else sb_addc(&t2, p[i]);
        sb_free(&tmp);
        tmp = t2;
        p = tmp.data;
        n = tmp.len;
    }
    sio_put(s, p, n, utf8_count(p, n));
    sb_free(&tmp);
    return 0;
}

/* StringIO(initial_value='', newline='\n') */
static Value sio_init(ARGS) {
    static const char *const names[] = {"self", "initial_value", "newline"};
    Value a[3];
    if (native_parse_args(vm, "StringIO", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    Value nl = val_is_null(a[2]) ? vm_intern(vm, "\n") : a[2];
    if (!val_is_none(nl) && !val_is_str(vm, nl))
        return vm_raise(vm, vm->e_TypeError, "newline must be str or None, not %s", vm_type_name(vm, nl));
    if (!valid_newline(vm, nl)) {
        Value r = vm_repr(vm, nl);
        return val_is_null(r) ? r : vm_raise(vm, vm->e_ValueError, "illegal newline value: %s", AS_STR(r)->data);
    }
    Value init = val_is_null(a[1]) ? val_none() : a[1];
    if (!val_is_none(init) && !val_is_str(vm, init) && !vm_isinstance_type(vm, init, vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "initial_value must be str or None, not %s", vm_type_name(vm, init));
    const char *ns = val_is_none(nl) ? NULL : AS_STR(nl)->data;
    s->newline = nl;
    s->readuniversal = !ns || !ns[0];
    s->readtranslate = !ns;
    s->writetranslate = !ns || ns[0];
    s->writenl = ns && ns[0] && strcmp(ns, "\n") ? (strcmp(ns, "\r") ? "\r\n" : "\r") : NULL;
    s->text.len = 0;
    s->ncp = s->pos = s->pos_b = 0;
    s->ascii = true;
    s->seennl = 0;
    s->io.flags &= ~IOF_CLOSED;
    s->ok = true;
    if (!val_is_none(init)) {
        sio_write_str(vm, s, AS_STR(init));
        s->pos = s->pos_b = 0;
    }
    return val_none();
}

static Value sio_getvalue(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StrObj *r = str_new(vm, SIO(argv[0])->text.data, SIO(argv[0])->text.len);
    return r ? val_obj(r) : val_null();
}

static Value sio_write(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    if (!val_is_str(vm, argv[1]) && !vm_isinstance_type(vm, argv[1], vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "string argument expected, got '%s'", vm_type_name(vm, argv[1]));
    StrObj *in = AS_STR(argv[1]);
    if (in->len) sio_write_str(vm, SIO(argv[0]), in);
    return val_int(in->ncp);
}

static Value sio_read(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    int64_t n = -1;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "argument should be integer or None, not 'float'");
        if (vm_index(vm, argv[1], &n) < 0) return val_null();
    }
    if (s->pos >= s->ncp) return val_obj(vm->empty_str);
    int64_t left = s->ncp - s->pos;
    if (n < 0 || n > left) n = left;
    int64_t start = s->pos_b, end = s->ascii ? start + n : start;
    if (!s->ascii)
        for (int64_t c = 0; c < n; c++) {
            unsigned char ch = (unsigned char)s->text.data[end];
            end += ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
        }
    StrObj *r = str_new(vm, s->text.data + start, end - start);
    if (!r) return val_null();
    s->pos += n;
    s->pos_b = end;
    return val_obj(r);
}

static Value sio_readline(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    int64_t limit = -1;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "argument should be integer or None, not 'float'");
        if (vm_index(vm, argv[1], &limit) < 0) return val_null();
    }
    if (s->pos >= s->ncp) return val_obj(vm->empty_str);
    const char *p = s->text.data + s->pos_b;
    int64_t left = s->text.len - s->pos_b, end = -1;
    const char *nl = val_is_none(s->newline) ? "\n" : AS_STR(s->newline)->data;
    if (s->readtranslate || !strcmp(nl, "\n")) {
        const char *q = memchr(p, '\n', (size_t)left);
        end = q ? q - p + 1 : left;
    } else if (s->readuniversal) {
        end = left;
        for (int64_t i = 0; i < left; i++) {
            if (p[i] == '\n') { end = i + 1; break; }
            if (p[i] == '\r') { end = i + 1 < left && p[i + 1] == '\n' ? i + 2 : i + 1; break; }
        }
    } else {
        int64_t k = (int64_t)strlen(nl);
        end = left;
        for (int64_t i = 0; i + k <= left; i++)
            if (!memcmp(p + i, nl, (size_t)k)) { end = i + k; break; }
    }
    int64_t ncp = utf8_count(p, end);
    if (limit >= 0 && ncp > limit) {
        int64_t b = 0;
        for (int64_t c = 0; c < limit; c++) {
            unsigned char ch = (unsigned char)p[b];
            b += ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
        }
        end = b;
        ncp = limit;
    }
    StrObj *r = str_new(vm, p, end);
    if (!r) return val_null();
    s->pos += ncp;
    s->pos_b += end;
    return val_obj(r);
}

static Value sio_next(ARGS) {
    Value line = sio_readline(vm, 1, argv, NULL, fn);
    if (val_is_null(line)) return line;
    if (AS_STR(line)->len == 0) return vm_raise_stop_iteration(vm, val_null());
    return line;
}

static Value sio_seek(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    int64_t pos, whence = 0;
    if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
    if (vm_index(vm, argv[1], &pos) < 0 || (argc > 2 && vm_index(vm, argv[2], &whence) < 0)) return val_null();
    if (whence != 0 && whence != 1 && whence != 2)
        return vm_raise(vm, vm->e_ValueError, "Invalid whence (%lld, should be 0, 1 or 2)", (long long)whence);
    if (pos < 0 && whence == 0) return vm_raise(vm, vm->e_ValueError, "Negative seek position %lld", (long long)pos);
    if (whence != 0 && pos != 0)
        return io_unsupported(vm, whence == 1 ? "Can't do nonzero cur-relative seeks" : "Can't do nonzero end-relative seeks");
    if (whence == 1) pos = s->pos;
    else if (whence == 2) pos = s->ncp;
    s->pos = pos;
    s->pos_b = pos <= s->ncp ? sio_byte_of(s, pos) : s->text.len;
    return val_int(pos);
}

static Value sio_tell(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    return val_int(SIO(argv[0])->pos);
}

static Value sio_truncate(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    int64_t size = s->pos;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
        if (vm_index(vm, argv[1], &size) < 0) return val_null();
    }
    if (size < 0) return vm_raise(vm, vm->e_ValueError, "Negative size value %lld", (long long)size);
    if (size < s->ncp) {
        s->text.len = sio_byte_of(s, size);
        s->ncp = size;
        if (s->pos_b > s->text.len) s->pos_b = s->text.len;
    }
    return val_int(size);
}

static Value sio_true(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    return val_bool(true);
}

static Value sio_close(ARGS) {
    SIO(argv[0])->io.flags |= IOF_CLOSED;
    sb_free(&SIO(argv[0])->text);
    return val_none();
}

static Value sio_closed(VM *vm, Value self, void *c) {
    if (!SIO(self)->ok) return vm_raise(vm, vm->e_ValueError, "I/O operation on uninitialized object");
    return val_bool(SIO(self)->io.flags & IOF_CLOSED);
}
static Value sio_newlines(VM *vm, Value self, void *c) {
    StringIOObj *s = SIO(self);
    if (!s->readuniversal) return val_none();
    return newlines_value(vm, s->seennl);
}
static Value sio_line_buffering(VM *vm, Value self, void *c) {
    if (sio_check(vm, self) < 0) return val_null();
    return val_bool(false);
}

static Value sio_getstate(ARGS) {
    if (sio_check(vm, argv[0]) < 0) return val_null();
    StringIOObj *s = SIO(argv[0]);
    StrObj *v = str_new(vm, s->text.data, s->text.len);
    if (!v) return val_null();
    vm_push_root(vm, val_obj(v));
    DictObj *d = dict_copy(vm, s->io.dict);
    TupleObj *t = d ? tuple_pack(vm, 4, val_obj(v), s->newline, val_int(s->pos), val_obj(d)) : NULL;
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value sio_setstate(ARGS) {
    Value st = argv[1];
    if (!val_is_type(vm, st, vm->t_tuple) || AS_TUPLE(st)->len < 4)
        return vm_raise(vm, vm->e_TypeError, "%s.__setstate__ argument should be 4-tuple", vm_type_name(vm, argv[0]));
    TupleObj *t = AS_TUPLE(st);
    Value args[3] = {argv[0], val_none(), t->items[1]};
    if (val_is_null(sio_init(vm, 3, args, NULL, fn))) return val_null();
    StringIOObj *s = SIO(argv[0]);
    if (val_is_str(vm, t->items[0])) {
        /* the value is stored as is, without newline translation */
        s->text.len = 0;
        sb_add_str(&s->text, AS_STR(t->items[0]));
        s->ncp = AS_STR(t->items[0])->ncp;
        s->ascii = str_is_ascii(AS_STR(t->items[0]));
    }
    if (!val_is_intlike(t->items[2])) return vm_raise(vm, vm->e_TypeError, "third item of state must be an integer");
    s->pos = val_as_intlike(t->items[2]);
    s->pos_b = s->pos <= s->ncp ? sio_byte_of(s, s->pos) : s->text.len;
    if (val_is_type(vm, t->items[3], vm->t_dict) && dict_update(vm, s->io.dict, t->items[3]) < 0) return val_null();
    return val_none();
}

/* ---- IncrementalNewlineDecoder -------------------------------------------------------------------- */

typedef struct NLDecoderObj {
    IOObj io;
    Value decoder;
    bool translate, pendingcr;
    int seennl;
    StrObj *errors;
} NLDecoderObj;

#define NLD(v) ((NLDecoderObj *)(v).as.o)

static void nld_trace(VM *vm, Obj *o) {
    io_trace(vm, o);
    gc_mark_value(vm, ((NLDecoderObj *)o)->decoder);
    gc_mark(vm, ((NLDecoderObj *)o)->errors);
}

static Value nld_init(ARGS) {
    static const char *const names[] = {"self", "decoder", "translate", "errors"};
    Value a[4];
    if (native_parse_args(vm, "IncrementalNewlineDecoder", argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    NLDecoderObj *d = NLD(argv[0]);
    d->decoder = a[1];
    int t = vm_truthy(vm, a[2]);
    if (t < 0) return val_null();
    d->translate = t;
    d->errors = val_is_null(a[3]) ? vm_intern_str(vm, "strict") : val_is_str(vm, a[3]) ? AS_STR(a[3]) : NULL;
    d->pendingcr = false;
    d->seennl = 0;
    return val_none();
}

static Value nld_decode(ARGS) {
    static const char *const names[] = {"self", "input", "final"};
    Value a[3];
    if (native_parse_args(vm, "decode", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    NLDecoderObj *d = NLD(argv[0]);
    bool final = !val_is_null(a[2]) && vm_truthy(vm, a[2]) > 0;
    Value out = a[1];
    if (!val_is_none(d->decoder)) {
        out = vm_call_method(vm, d->decoder, "decode", 2, (Value[]){a[1], val_bool(final)});
        if (val_is_null(out)) return out;
    }
    if (!val_is_str(vm, out))
        return vm_raise(vm, vm->e_TypeError, "decoder should return a string result, not '%s'", vm_type_name(vm, out));
    StrObj *s = AS_STR(out);
    StrBuf b;
    sb_init(&b);
    if (d->pendingcr && (s->len || final)) {
        sb_addc(&b, '\r');
        d->pendingcr = false;
    }
    sb_add_str(&b, s);
    if (!final && b.len && b.data[b.len - 1] == '\r') {
        b.len--;
        d->pendingcr = true;
    }
    StrBuf t;
    sb_init(&t);
    scan_newlines(b.data, b.len, d->translate, &d->seennl, d->translate ? &t : NULL);
    StrObj *r;
    if (d->translate) {
        sb_free(&b);
        r = sb_finish(vm, &t);
    } else {
        sb_free(&t);
        r = sb_finish(vm, &b);
    }
    return r ? val_obj(r) : val_null();
}

static Value nld_getstate(ARGS) {
    NLDecoderObj *d = NLD(argv[0]);
    Value buf = val_null();
    int64_t flag = 0;
    if (!val_is_none(d->decoder)) {
        Value st = vm_call_method(vm, d->decoder, "getstate", 0, NULL);
        if (val_is_null(st)) return st;
        if (!val_is_type(vm, st, vm->t_tuple) || AS_TUPLE(st)->len != 2 || !val_is_intlike(AS_TUPLE(st)->items[1]))
            return vm_raise(vm, vm->e_TypeError, "illegal decoder state");
        buf = AS_TUPLE(st)->items[0];
        flag = val_as_intlike(AS_TUPLE(st)->items[1]);
    } else {
        BytesObj *e = bytes_new(vm, NULL, 0);
        if (!e) return val_null();
        buf = val_obj(e);
    }
    flag = (flag << 1) | (d->pendingcr ? 1 : 0);
    vm_push_root(vm, buf);
    TupleObj *t = tuple_pack(vm, 2, buf, val_int(flag));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value nld_setstate(ARGS) {
    NLDecoderObj *d = NLD(argv[0]);
    Value st = argv[1];
    if (!val_is_type(vm, st, vm->t_tuple) || AS_TUPLE(st)->len != 2 || !val_is_intlike(AS_TUPLE(st)->items[1]))
        return vm_raise(vm, vm->e_TypeError, "state argument must be a tuple");
    int64_t flag = val_as_intlike(AS_TUPLE(st)->items[1]);
    d->pendingcr = flag & 1;
    if (!val_is_none(d->decoder)) {
        TupleObj *t = tuple_pack(vm, 2, AS_TUPLE(st)->items[0], val_int(flag >> 1));
        if (!t) return val_null();
        vm_push_root(vm, val_obj(t));
        Value r = vm_call_method(vm, d->decoder, "setstate", 1, (Value[]){val_obj(t)});
        vm_pop_root(vm);
        if (val_is_null(r)) return r;
    }
    return val_none();
}

static Value nld_reset(ARGS) {
    NLDecoderObj *d = NLD(argv[0]);
    d->seennl = 0;
    d->pendingcr = false;
    if (!val_is_none(d->decoder)) return vm_call_method(vm, d->decoder, "reset", 0, NULL);
    return val_none();
}

static Value nld_newlines(VM *vm, Value self, void *c) { return newlines_value(vm, NLD(self)->seennl); }

/* ---- types ------------------------------------------------------------------------------------------- */

static TypeObj *new_type(VM *vm, const char *name, TypeObj *base, size_t size, TraceFn tr, FinalizeFn fin) {
    TypeObj *t = type_new_builtin(vm, name, base, OBJ_LAYOUT_EXTENSION, size, offsetof(IOObj, dict), tr, fin, TYPEF_BASETYPE);
    if (!t) return NULL;
    t->alloc = io_alloc;
    t->module = vm_intern(vm, "_io");
    return t;
}

int io_text_init(VM *vm, Value mod, TypeObj *textbase) {
    TypeObj *tt = new_type(vm, "TextIOWrapper", textbase, sizeof(TextObj), text_trace, text_finalize);
    if (!tt) return -1;
    tt->alloc = text_alloc;
    vm->lib[VM_LIB_io_textiowrapper] = val_obj(tt);
    static const MethodDef tm[] = {
        {"__init__", text_init, NATIVEF_METHOD}, {"read", text_read, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readline", text_readline, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"__next__", text_next, NATIVEF_METHOD | ARITY_NOARGS},
        {"write", text_write, NATIVEF_METHOD | ARITY_O}, {"flush", text_flush, NATIVEF_METHOD | ARITY_NOARGS},
        {"close", text_close, NATIVEF_METHOD | ARITY_NOARGS}, {"tell", text_tell, NATIVEF_METHOD | ARITY_NOARGS},
        {"seek", text_seek, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"truncate", text_truncate, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"detach", text_detach, NATIVEF_METHOD | ARITY_NOARGS}, {"fileno", text_fileno, NATIVEF_METHOD | ARITY_NOARGS},
        {"seekable", text_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"seekable"},
        {"readable", text_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"readable"},
        {"writable", text_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"writable"},
        {"isatty", text_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"isatty"},
        {"reconfigure", text_reconfigure, NATIVEF_METHOD}, {"__repr__", text_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getstate__", text_no_pickle, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef tg[] = {
        {"encoding", text_get_encoding}, {"errors", text_get_errors}, {"buffer", text_get_buffer},
        {"line_buffering", text_get_lb}, {"write_through", text_get_wt}, {"newlines", text_get_newlines},
        {"closed", text_get_closed}, {"name", text_get_name}, {"_CHUNK_SIZE", text_get_chunk, text_set_chunk}, {NULL}};
    if (type_add_methods(vm, tt, tm) < 0 || type_add_getsets(vm, tt, tg) < 0) return -1;

    TypeObj *st = new_type(vm, "StringIO", textbase, sizeof(StringIOObj), sio_trace, sio_finalize);
    if (!st) return -1;
    vm->lib[VM_LIB_io_stringio] = val_obj(st);
    static const MethodDef sm[] = {
        {"__init__", sio_init, NATIVEF_METHOD}, {"getvalue", sio_getvalue, NATIVEF_METHOD | ARITY_NOARGS},
        {"write", sio_write, NATIVEF_METHOD | ARITY_O}, {"read", sio_read, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readline", sio_readline, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"__next__", sio_next, NATIVEF_METHOD | ARITY_NOARGS},
        {"seek", sio_seek, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"tell", sio_tell, NATIVEF_METHOD | ARITY_NOARGS},
        {"truncate", sio_truncate, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readable", sio_true, NATIVEF_METHOD | ARITY_NOARGS}, {"writable", sio_true, NATIVEF_METHOD | ARITY_NOARGS},
        {"seekable", sio_true, NATIVEF_METHOD | ARITY_NOARGS}, {"close", sio_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getstate__", sio_getstate, NATIVEF_METHOD | ARITY_NOARGS},
        {"__setstate__", sio_setstate, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const GetSetDef sg[] = {
        {"closed", sio_closed}, {"newlines", sio_newlines}, {"line_buffering", sio_line_buffering}, {NULL}};
    if (type_add_methods(vm, st, sm) < 0 || type_add_getsets(vm, st, sg) < 0) return -1;

    TypeObj *nt = new_type(vm, "IncrementalNewlineDecoder", vm->t_object, sizeof(NLDecoderObj), nld_trace, NULL);
    if (!nt) return -1;
    vm->lib[VM_LIB_io_nldecoder] = val_obj(nt);
    static const MethodDef nm[] = {
        {"__init__", nld_init, NATIVEF_METHOD}, {"decode", nld_decode, NATIVEF_METHOD},
        {"getstate", nld_getstate, NATIVEF_METHOD | ARITY_NOARGS}, {"setstate", nld_setstate, NATIVEF_METHOD | ARITY_O},
        {"reset", nld_reset, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef ng[] = {{"newlines", nld_newlines}, {NULL}};
    return type_add_methods(vm, nt, nm) < 0 || type_add_getsets(vm, nt, ng) < 0 ? -1 : 0;
}
