/* vm/mod_io_buffered.c — BytesIO and the buffered binary streams of _io: BufferedReader
 * (read, read1, peek, readline, readinto), BufferedWriter (write, flush), BufferedRandom
 * (both, keeping the raw position right when switching between reading and writing) and
 * BufferedRWPair, with CPython's checks and messages.  A buffered object over a FileIO calls
 * it directly; over any other raw object, through its methods.  A BufferedWriter marked
 * passthrough (the standard streams) hands every write straight to its raw stream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/bytes_ops.h"
#include "vm/gc.h"
#include "vm/mod_io.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define DEFAULT_BUFFER_SIZE 8192

int64_t io_fileio_write(VM *vm, FileIOObj *f, const uint8_t *p, int64_t n);

static Value bytes_val(VM *vm, const uint8_t *p, int64_t n) {
    BytesObj *b = bytes_new(vm, p, n);
    return b ? val_obj(b) : val_null();
}

static int size_arg(VM *vm, Value v, int64_t *out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = -1;
        return 0;
    }
    if (val_is_float(v)) {
        vm_raise(vm, vm->e_TypeError, "argument should be integer or None, not 'float'");
        return -1;
    }
    return vm_index(vm, v, out);
}

/* ---- BytesIO ------------------------------------------------------------------------------------- */

/* The bytes live in a bytearray (len = the stream's size), so getbuffer() is a real memoryview
 * over them and the bytearray's export count refuses resizing while views live, as CPython. */
typedef struct BytesIOObj {
    IOObj io;
    ByteArrayObj *ba;     /* made by __init__/first write; NULL before */
    int64_t pos;
} BytesIOObj;

#define BIO(v) ((BytesIOObj *)(v).as.o)

static void bio_trace(VM *vm, Obj *o) {
    io_trace(vm, o);
    gc_mark(vm, ((BytesIOObj *)o)->ba);
}

static int64_t bio_len(BytesIOObj *b) { return b->ba ? b->ba->len : 0; }
static uint8_t *bio_data(BytesIOObj *b) {
    static uint8_t none[1];   /* an empty stream's (never written) bytes */
    return b->ba && b->ba->data ? b->ba->data : none;
}

static int bio_check(VM *vm, Value self) {
    if (BIO(self)->io.flags & IOF_CLOSED) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
        return -1;
    }
    return 0;
}

/* Writes and truncation need no live getbuffer() views (CPython's CHECK_EXPORTS). */
static int bio_check_exports(VM *vm, BytesIOObj *b) {
    if (!b->ba || b->ba->exports == 0) return 0;
    vm_push_root(vm, val_obj(b));
    gc_collect(vm);   /* views nobody reaches would already be gone under reference counting */
    vm_pop_root(vm);
    if (b->ba->exports == 0) return 0;
    vm_raise(vm, vm->e_BufferError, "Existing exports of data: object cannot be re-sized");
    return -1;
}

static int bio_ensure(VM *vm, BytesIOObj *b) {
    if (b->ba) return 0;
    vm_push_root(vm, val_obj(b));
    Value v = bytearray_new(vm, vm->t_bytearray, NULL, 0);
    vm_pop_root(vm);
    if (val_is_null(v)) return -1;
    b->ba = (ByteArrayObj *)v.as.o;
    return 0;
}

/* Resize to n bytes (new bytes zeroed). */
static int bio_resize(VM *vm, BytesIOObj *b, int64_t n) {
    if (bio_ensure(vm, b) < 0) return -1;
    int64_t old = b->ba->len;
    if (bytearray_resize(vm, b->ba, n) < 0) return -1;
    if (n > old) memset(b->ba->data + old, 0, (size_t)(n - old));
    return 0;
}

static int64_t bio_write_bytes(VM *vm, BytesIOObj *b, const uint8_t *p, int64_t n) {
    if (bio_check_exports(vm, b) < 0) return -1;
    if (n == 0) return 0;
    /* p may point into our own buffer (b.write(b.getbuffer())): copy before resizing */
    uint8_t *tmp = malloc((size_t)n);
    if (!tmp) {
        vm_no_memory(vm);
        return -1;
    }
    memcpy(tmp, p, (size_t)n);
    if (b->pos + n > bio_len(b) && bio_resize(vm, b, b->pos + n) < 0) {
        free(tmp);
        return -1;
    }
    memcpy(b->ba->data + b->pos, tmp, (size_t)n);
    free(tmp);
    b->pos += n;
    return n;
}

static Value bio_init(ARGS) {
    static const char *const names[] = {"self", "initial_bytes"};
    Value a[2];
    if (native_parse_args(vm, "BytesIO", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    BytesIOObj *b = BIO(argv[0]);
    if (bio_check_exports(vm, b) < 0 || bio_resize(vm, b, 0) < 0) return val_null();
    b->pos = 0;
    b->io.flags &= ~IOF_CLOSED;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, a[1], "BytesIO", &h, &p, &n) < 0) return val_null();
        if (bio_write_bytes(vm, b, p, n) < 0) return val_null();
        b->pos = 0;
    }
    return val_none();
}

static Value bio_getvalue(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    return bytes_val(vm, bio_data(BIO(argv[0])), bio_len(BIO(argv[0])));
}

static Value bio_read(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    BytesIOObj *b = BIO(argv[0]);
    int64_t n;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &n) < 0) return val_null();
    int64_t avail = bio_len(b) > b->pos ? bio_len(b) - b->pos : 0;
    if (n < 0 || n > avail) n = avail;
    Value r = bytes_val(vm, bio_data(b) + (avail ? b->pos : 0), n);
    if (!val_is_null(r)) b->pos += n;
    return r;
}

static Value bio_readline(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    BytesIOObj *b = BIO(argv[0]);
    int64_t limit;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &limit) < 0) return val_null();
    int64_t avail = bio_len(b) > b->pos ? bio_len(b) - b->pos : 0;
    if (limit >= 0 && limit < avail) avail = limit;
    const uint8_t *s = avail ? bio_data(b) + b->pos : NULL;
    const uint8_t *nl = avail ? memchr(s, '\n', (size_t)avail) : NULL;
    int64_t n = nl ? nl - s + 1 : avail;
    Value r = bytes_val(vm, s, n);
    if (!val_is_null(r)) b->pos += n;
    return r;
}

static Value bio_write(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "write", &h, &p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    int64_t w = bio_write_bytes(vm, BIO(argv[0]), p, n);
    vm_pop_root(vm);
    return w < 0 ? val_null() : val_int(w);
}

static Value bio_seek(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    BytesIOObj *b = BIO(argv[0]);
    int64_t pos, whence = 0;
    if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
    if (vm_index(vm, argv[1], &pos) < 0 || (argc > 2 && vm_index(vm, argv[2], &whence) < 0)) return val_null();
    if (whence == 0) {
        if (pos < 0) return vm_raise(vm, vm->e_ValueError, "negative seek value %lld", (long long)pos);
    } else if (whence == 1) {
        pos = b->pos + pos;
    } else if (whence == 2) {
        pos = bio_len(b) + pos;
    } else {
        return vm_raise(vm, vm->e_ValueError, "invalid whence (%lld, should be 0, 1 or 2)", (long long)whence);
    }
    if (pos < 0) pos = 0;
    b->pos = pos;
    return val_int(pos);
}

static Value bio_tell(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    return val_int(BIO(argv[0])->pos);
}

static Value bio_truncate(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    BytesIOObj *b = BIO(argv[0]);
    int64_t size = b->pos;
    if (argc > 1 && !val_is_none(argv[1]) && vm_index(vm, argv[1], &size) < 0) return val_null();
    if (size < 0) return vm_raise(vm, vm->e_ValueError, "negative size value %lld", (long long)size);
    if (bio_check_exports(vm, b) < 0) return val_null();
    if (size < bio_len(b) && bio_resize(vm, b, size) < 0) return val_null();
    return val_int(size);
}

static Value bio_true(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    return val_bool(true);
}

static Value bio_close(ARGS) {
    /* CPython's bytesio close() refuses while getbuffer() views live (CHECK_EXPORTS) */
    if (bio_check_exports(vm, BIO(argv[0])) < 0) return val_null();
    BIO(argv[0])->io.flags |= IOF_CLOSED;
    return val_none();
}

static Value bio_flush(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    return val_none();
}

static Value bio_getbuffer(ARGS) {
    if (bio_check(vm, argv[0]) < 0 || bio_ensure(vm, BIO(argv[0])) < 0) return val_null();
    Value ba = val_obj(BIO(argv[0])->ba);
    return vm_call(vm, val_obj(vm->t_memoryview), 1, &ba, NULL);
}

static Value bio_getstate(ARGS) {
    if (bio_check(vm, argv[0]) < 0) return val_null();
    Value v = bytes_val(vm, bio_data(BIO(argv[0])), bio_len(BIO(argv[0])));
    if (val_is_null(v)) return v;
    vm_push_root(vm, v);
    DictObj *d = dict_copy(vm, IO(argv[0])->dict);
    TupleObj *t = d ? tuple_pack(vm, 3, v, val_int(BIO(argv[0])->pos), val_obj(d)) : NULL;
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value bio_setstate(ARGS) {
    Value st = argv[1];
    if (!val_is_type(vm, st, vm->t_tuple) || AS_TUPLE(st)->len < 3)
        return vm_raise(vm, vm->e_TypeError, "%s.__setstate__ argument should be 3-tuple", vm_type_name(vm, argv[0]));
    BytesIOObj *b = BIO(argv[0]);
    TupleObj *t = AS_TUPLE(st);
    if (bio_check_exports(vm, b) < 0 || bio_resize(vm, b, 0) < 0) return val_null();
    b->pos = 0;
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, t->items[0], "__setstate__", &h, &p, &n) < 0 || bio_write_bytes(vm, b, p, n) < 0) return val_null();
    if (!val_is_intlike(t->items[1])) return vm_raise(vm, vm->e_TypeError, "second item of state must be an integer");
    b->pos = val_as_intlike(t->items[1]);
    if (val_is_type(vm, t->items[2], vm->t_dict) && dict_update(vm, b->io.dict, t->items[2]) < 0) return val_null();
    return val_none();
}

static Value bio_closed(VM *vm, Value self, void *c) { return val_bool(BIO(self)->io.flags & IOF_CLOSED); }

/* ---- the buffered streams ------------------------------------------------------------------------- */

#define BUF(v) ((BufferedObj *)(v).as.o)

static void buf_trace(VM *vm, Obj *o) {
    io_trace(vm, o);
    gc_mark_value(vm, ((BufferedObj *)o)->raw);
}

/* A finalizer may touch no other object (the collector frees in no particular order): bytes
 * still pending here are lost, as they are in PyPy.  io_shutdown flushes every stream at exit. */
static void buf_finalize(VM *vm, Obj *o) {
    BufferedObj *b = (BufferedObj *)o;
    io_unregister_stream(vm, o);
    if (b->buf) gc_external_bytes(vm, -(ptrdiff_t)b->size);
    free(b->buf);
    b->buf = NULL;
}

static bool raw_is_fileio(VM *vm, BufferedObj *b) {
    return b->raw.tag == VAL_OBJ && b->raw.as.o->type == AS_TYPE(vm->lib[VM_LIB_io_fileio]);
}

static int buf_check(VM *vm, Value self) {
    BufferedObj *b = BUF(self);
    if (b->detached || !b->buf) {
        vm_raise(vm, vm->e_ValueError, b->detached ? "raw stream has been detached" : "I/O operation on uninitialized object");
        return -1;
    }
    return 0;
}

static int buf_check_open(VM *vm, Value self) {
    if (buf_check(vm, self) < 0) return -1;
    BufferedObj *b = BUF(self);
    if (raw_is_fileio(vm, b)) {
        if (((FileIOObj *)b->raw.as.o)->fd < 0) {
            vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
            return -1;
        }
        return 0;
    }
    return io_check_closed(vm, b->raw);
}

/* raw.read(n) -> appended to buf at off; returns bytes read (0 EOF), -2 would block, -1 error */
static int64_t raw_read_into(VM *vm, BufferedObj *b, uint8_t *dst, int64_t n) {
    if (raw_is_fileio(vm, b)) {
        FileIOObj *f = (FileIOObj *)b->raw.as.o;
        ssize_t r;
        do r = read(f->fd, dst, (size_t)n);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
            if (errno == EAGAIN) return -2;
            vm_raise_oserror(vm, errno, val_null(), val_null());
            return -1;
        }
        return r;
    }
    Value d = vm_call_method(vm, b->raw, "read", 1, (Value[]){val_int(n)});
    if (val_is_null(d)) return -1;
    if (val_is_none(d)) return -2;
    Value h;
    const uint8_t *p;
    int64_t len;
    if (buffer_get(vm, d, "read", &h, &p, &len) < 0) return -1;
    if (len > n) {
        vm_raise(vm, vm->e_OSError, "raw readinto() returned invalid length %lld (should have been between 0 and %lld)",
                 (long long)len, (long long)n);
        return -1;
    }
    memcpy(dst, p, (size_t)len);
    return len;
}

static int64_t raw_write(VM *vm, BufferedObj *b, const uint8_t *p, int64_t n) {
    if (raw_is_fileio(vm, b)) return io_fileio_write(vm, (FileIOObj *)b->raw.as.o, p, n);
    Value d = bytes_val(vm, p, n);
    if (val_is_null(d)) return -1;
    vm_push_root(vm, d);
    Value r = vm_call_method(vm, b->raw, "write", 1, &d);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    if (val_is_none(r)) return -2;
    int64_t w;
    if (vm_index(vm, r, &w) < 0) return -1;
    if (w < 0 || w > n) {
        vm_raise(vm, vm->e_OSError, "raw write() returned invalid length %lld (should have been between 0 and %lld)",
                 (long long)w, (long long)n);
        return -1;
    }
    return w;
}

static int buf_flush_writes(VM *vm, BufferedObj *b) {
    int64_t off = 0;
    while (off < b->wlen) {
        int64_t w = raw_write(vm, b, b->buf + off, b->wlen - off);
        if (w == -1) {
            memmove(b->buf, b->buf + off, (size_t)(b->wlen - off));
            b->wlen -= off;
            return -1;
        }
        if (w == -2) {
            memmove(b->buf, b->buf + off, (size_t)(b->wlen - off));
            b->wlen -= off;
            (void)vm_raise_oserror(vm, EAGAIN, val_null(), val_null());
            return -1;
        }
        off += w;
    }
    b->wlen = 0;
    if (raw_is_fileio(vm, b) && ((FileIOObj *)b->raw.as.o)->stdio) fflush(((FileIOObj *)b->raw.as.o)->stdio);
    return 0;
}

/* Before writing after reading: move the raw position back over the unread buffered bytes. */
static int buf_drop_read(VM *vm, BufferedObj *b) {
    int64_t unread = b->rlen - b->rpos;
    b->rpos = b->rlen = 0;
    if (unread == 0) return 0;
    Value r = vm_call_method(vm, b->raw, "seek", 2, (Value[]){val_int(-unread), val_int(1)});
    return val_is_null(r) ? -1 : 0;
}

/* BufferedReader / BufferedWriter / BufferedRandom (raw, buffer_size=DEFAULT_BUFFER_SIZE) */
static Value buf_init(ARGS) {
    static const char *const names[] = {"self", "raw", "buffer_size"};
    Value a[3];
    int kind = (int)(intptr_t)fn->data;   /* 1 reader, 2 writer, 3 random */
    const char *tn = kind == 1 ? "BufferedReader" : kind == 2 ? "BufferedWriter" : "BufferedRandom";
    if (native_parse_args(vm, tn, argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    int64_t size = DEFAULT_BUFFER_SIZE;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &size) < 0) return val_null();
    if (size <= 0) return vm_raise(vm, vm->e_ValueError, "buffer size must be strictly positive");
    if ((kind & 1) && val_is_null(vm_call_method(vm, a[1], "_checkReadable", 0, NULL))) return val_null();
    if ((kind & 2) && val_is_null(vm_call_method(vm, a[1], "_checkWritable", 0, NULL))) return val_null();
    if (kind == 3 && val_is_null(vm_call_method(vm, a[1], "_checkSeekable", 0, NULL))) return val_null();
    uint8_t *nb = realloc(b->buf, (size_t)size);
    if (!nb) return vm_no_memory(vm);
    gc_external_bytes(vm, (ptrdiff_t)(size - (b->buf ? b->size : 0)));
    b->buf = nb;
    b->size = size;
    b->raw = a[1];
    b->readable = kind & 1;
    b->writable = (kind & 2) != 0;
    b->rpos = b->rlen = b->wlen = 0;
    b->detached = false;
    b->abs_pos = -1;
    return val_none();
}

/* read up to n (n < 0: to EOF) */
static Value buf_read(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->readable) return io_unsupported(vm, "read");
    int64_t n;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &n) < 0) return val_null();
    if (n < -1) return vm_raise(vm, vm->e_ValueError, "read length must be non-negative or -1");
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    int64_t have = b->rlen - b->rpos;
    if (n >= 0 && n <= have) {
        Value r = bytes_val(vm, b->buf + b->rpos, n);
        if (!val_is_null(r)) b->rpos += n;
        return r;
    }
    StrBuf out;
    sb_init(&out);
    sb_add(&out, (const char *)b->buf + b->rpos, have);
    b->rpos = b->rlen = 0;
    if (n < 0 && !raw_is_fileio(vm, b)) {
        /* raw.readall() when it has one */
        Value ra = vm_call_method(vm, b->raw, "readall", 0, NULL);
        if (val_is_null(ra)) {
            sb_free(&out);
            return ra;
        }
        if (!val_is_none(ra)) {
            Value h;
            const uint8_t *p;
            int64_t len;
            if (buffer_get(vm, ra, "readall", &h, &p, &len) < 0) {
                sb_free(&out);
                return val_null();
            }
            sb_add(&out, (const char *)p, len);
        } else if (out.len == 0) {
            sb_free(&out);
            return val_none();
        }
    } else {
        while (n < 0 || out.len < n) {
            int64_t want = n < 0 ? b->size : n - out.len;
            if (want < b->size) want = b->size;   /* fill the buffer, keep the surplus */
            int64_t r = raw_read_into(vm, b, b->buf, b->size < want ? b->size : want);
            if (r == -1) {
                sb_free(&out);
                return val_null();
            }
            if (r == -2) {
                if (out.len == 0) {
                    sb_free(&out);
                    return val_none();
                }
                break;
            }
            if (r == 0) break;
            int64_t take = n < 0 ? r : (n - out.len < r ? n - out.len : r);
            sb_add(&out, (const char *)b->buf, take);
            b->rpos = take;
            b->rlen = r;
            if (b->rpos == b->rlen) b->rpos = b->rlen = 0;
        }
    }
    Value res = bytes_val(vm, (const uint8_t *)out.data, out.len);
    sb_free(&out);
    return res;
}

/* fill the buffer with one raw read if it is empty: returns buffered count, or -1 / -2 */
static int64_t buf_fill(VM *vm, BufferedObj *b) {
    if (b->rlen > b->rpos) return b->rlen - b->rpos;
    b->rpos = b->rlen = 0;
    int64_t r = raw_read_into(vm, b, b->buf, b->size);
    if (r < 0) return r;
    b->rlen = r;
    return r;
}

static Value buf_read1(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->readable) return io_unsupported(vm, "read1");
    int64_t n;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &n) < 0) return val_null();
    if (n < 0) n = b->size;
    if (n == 0) return bytes_val(vm, NULL, 0);
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    int64_t have = buf_fill(vm, b);
    if (have == -1) return val_null();
    if (have < 0) have = 0;
    if (n > have) n = have;
    Value r = bytes_val(vm, b->buf + b->rpos, n);
    if (!val_is_null(r)) b->rpos += n;
    return r;
}

static Value buf_peek(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->readable) return io_unsupported(vm, "peek");
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    int64_t have = buf_fill(vm, b);
    if (have == -1) return val_null();
    if (have < 0) have = 0;
    return bytes_val(vm, b->buf + b->rpos, have);
}

static Value buf_readline(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->readable) return io_unsupported(vm, "readline");
    int64_t limit;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &limit) < 0) return val_null();
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    StrBuf out;
    sb_init(&out);
    for (;;) {
        int64_t have = buf_fill(vm, b);
        if (have == -1) {
            sb_free(&out);
            return val_null();
        }
        if (have <= 0) break;
        if (limit >= 0 && have > limit - out.len) have = limit - out.len;
        const uint8_t *s = b->buf + b->rpos;
        const uint8_t *nl = memchr(s, '\n', (size_t)have);
        int64_t take = nl ? nl - s + 1 : have;
        sb_add(&out, (const char *)s, take);
        b->rpos += take;
        if (nl || (limit >= 0 && out.len >= limit)) break;
    }
    Value r = bytes_val(vm, (const uint8_t *)out.data, out.len);
    sb_free(&out);
    return r;
}

static Value buf_write(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->writable) return io_unsupported(vm, "write");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "write", &h, &p, &n) < 0) return val_null();
    if (io_is_closed(vm, argv[0]) != 0) {
        if (!vm->exc.tag) vm_raise(vm, vm->e_ValueError, "write to closed file");
        return val_null();
    }
    vm_push_root(vm, h);
    Value r = val_int(n);
    if (b->rlen > b->rpos && buf_drop_read(vm, b) < 0) r = val_null();
    else if (b->passthrough) {
        if (raw_write(vm, b, p, n) < 0) r = val_null();
    } else if (b->wlen + n <= b->size) {
        memcpy(b->buf + b->wlen, p, (size_t)n);
        b->wlen += n;
    } else {
        if (buf_flush_writes(vm, b) < 0) r = val_null();
        else if (n >= b->size) {
            int64_t off = 0;
            while (off < n) {
                int64_t w = raw_write(vm, b, p + off, n - off);
                if (w < 0) {
                    if (w == -2) (void)vm_raise_oserror(vm, EAGAIN, val_null(), val_null());
                    r = val_null();
                    break;
                }
                off += w;
            }
        } else {
            memcpy(b->buf, p, (size_t)n);
            b->wlen = n;
        }
    }
    vm_pop_root(vm);
    return r;
}

static Value buf_flush(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (b->writable && buf_flush_writes(vm, b) < 0) return val_null();
    if (b->passthrough && raw_is_fileio(vm, b) && ((FileIOObj *)b->raw.as.o)->stdio) fflush(((FileIOObj *)b->raw.as.o)->stdio);
    return val_none();
}

static Value buf_tell(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    Value r = vm_call_method(vm, b->raw, "tell", 0, NULL);
    if (val_is_null(r)) return r;
    int64_t pos;
    if (vm_index(vm, r, &pos) < 0) return val_null();
    if (pos < 0) return vm_raise(vm, vm->e_OSError, "Raw stream returned invalid position %lld", (long long)pos);
    pos = pos - (b->rlen - b->rpos) + b->wlen;
    return val_int(pos < 0 ? 0 : pos);
}

static Value buf_seek(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    int64_t target, whence = 0;
    if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
    if (vm_index(vm, argv[1], &target) < 0 || (argc > 2 && vm_index(vm, argv[2], &whence) < 0)) return val_null();
    if (whence < 0 || whence > 2) return vm_raise(vm, vm->e_ValueError, "whence value %lld unsupported", (long long)whence);
    Value sk = vm_call_method(vm, b->raw, "seekable", 0, NULL);
    if (val_is_null(sk)) return sk;
    if (vm_truthy(vm, sk) <= 0) return io_unsupported(vm, "File or stream is not seekable.");
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    if (whence == 1) target -= b->rlen - b->rpos;
    b->rpos = b->rlen = 0;
    return vm_call_method(vm, b->raw, "seek", 2, (Value[]){val_int(target), val_int(whence)});
}

static Value buf_truncate(ARGS) {
    if (buf_check_open(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (!b->writable) return io_unsupported(vm, "truncate");
    if (b->wlen && buf_flush_writes(vm, b) < 0) return val_null();
    Value pos = argc > 1 ? argv[1] : val_none();
    if (val_is_none(pos)) {
        pos = buf_tell(vm, 1, argv, NULL, fn);
        if (val_is_null(pos)) return pos;
    }
    if (b->rlen > b->rpos && buf_drop_read(vm, b) < 0) return val_null();
    return vm_call_method(vm, b->raw, "truncate", 1, &pos);
}

static Value buf_close(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    int c = io_is_closed(vm, b->raw);
    if (c < 0) return val_null();
    if (c) return val_none();
    Value r = val_none();
    if (b->writable && buf_flush_writes(vm, b) < 0) r = val_null();
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    Value cr = vm_call_method(vm, b->raw, "close", 0, NULL);
    if (!val_is_null(e)) {
        /* the flush error wins; a close error chains onto it, as CPython does */
        if (val_is_null(cr)) vm_clear_exc(vm);
        vm->exc = e;
        r = val_null();
    } else if (val_is_null(cr)) {
        r = cr;
    }
    vm_pop_root(vm);
    b->rpos = b->rlen = 0;
    return r;
}

static Value buf_detach(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    BufferedObj *b = BUF(argv[0]);
    if (b->writable && buf_flush_writes(vm, b) < 0) return val_null();
    Value raw = b->raw;
    b->detached = true;
    return raw;
}

/* calls the raw object's method of the same name */
static Value buf_delegate(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    return vm_call_method(vm, BUF(argv[0])->raw, (const char *)fn->data, 0, NULL);
}

static Value buf_readinto(ARGS) {
    int64_t n = vm_len(vm, argv[1]);
    if (n < 0) return val_null();
    Value d = vm_call_method(vm, argv[0], fn->data ? "read1" : "read", 1, (Value[]){val_int(n)});
    if (val_is_null(d) || val_is_none(d)) return d;
    vm_push_root(vm, d);
    int64_t k = ((BytesObj *)d.as.o)->len;
    Value sl = slice_new(vm, val_int(0), val_int(k), val_none());
    int rc = val_is_null(sl) ? -1 : vm_setitem(vm, argv[1], sl, d);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_int(k);
}

static Value buf_get_raw(VM *vm, Value self, void *c) {
    if (buf_check(vm, self) < 0) return val_null();
    return BUF(self)->raw;
}

static Value buf_get_attr(VM *vm, Value self, void *c) {
    if (buf_check(vm, self) < 0) return val_null();
    return vm_getattr_c(vm, BUF(self)->raw, (const char *)c);
}

static Value buf_repr(ARGS) {
    const char *tn = type_repr_name(vm, argv[0].as.o->type)->data;
    Value name = BUF(argv[0])->detached ? val_null() : vm_getattr_opt(vm, BUF(argv[0])->raw, vm_intern_str(vm, "name"));
    if (val_is_null(name)) {
        if (vm->exc.tag && !vm_exc_matches(vm, vm->e_AttributeError) && !vm_exc_matches(vm, vm->e_ValueError))
            return val_null();
        vm_clear_exc(vm);
        StrObj *s = str_printf(vm, "<%s>", tn);
        return s ? val_obj(s) : val_null();
    }
    Value r = vm_repr(vm, name);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "<%s name=%s>", tn, AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value buf_readable(ARGS) {
    if (buf_check(vm, argv[0]) < 0) return val_null();
    return vm_call_method(vm, BUF(argv[0])->raw, fn->data ? "writable" : "readable", 0, NULL);
}

static Value io_no_pickle2(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "cannot pickle '%s' object", type_repr_name(vm, argv[0].as.o->type)->data);
}

/* ---- BufferedRWPair -------------------------------------------------------------------------------- */

typedef struct RWPairObj {
    IOObj io;
    Value reader, writer;
} RWPairObj;

#define PAIR(v) ((RWPairObj *)(v).as.o)

static void pair_trace(VM *vm, Obj *o) {
    io_trace(vm, o);
    gc_mark_value(vm, ((RWPairObj *)o)->reader);
    gc_mark_value(vm, ((RWPairObj *)o)->writer);
}

static Value pair_init(ARGS) {
    static const char *const names[] = {"self", "reader", "writer", "buffer_size"};
    Value a[4];
    if (native_parse_args(vm, "BufferedRWPair", argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    Value size = val_is_null(a[3]) ? val_int(DEFAULT_BUFFER_SIZE) : a[3];
    Value r = type_call(vm, AS_TYPE(vm->lib[VM_LIB_io_bufferedreader]), 2, (Value[]){a[1], size}, NULL);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    Value w = type_call(vm, AS_TYPE(vm->lib[VM_LIB_io_bufferedwriter]), 2, (Value[]){a[2], size}, NULL);
    vm_pop_root(vm);
    if (val_is_null(w)) return w;
    PAIR(argv[0])->reader = r;
    PAIR(argv[0])->writer = w;
    return val_none();
}

/* fn->data: "r:name" forwards to the reader, "w:name" to the writer */
static Value pair_forward(ARGS) {
    const char *spec = fn->data;
    RWPairObj *p = PAIR(argv[0]);
    if (val_is_null(p->reader)) return vm_raise(vm, vm->e_ValueError, "I/O operation on uninitialized object");
    Value target = spec[0] == 'r' ? p->reader : p->writer;
    return vm_call_method(vm, target, spec + 2, argc - 1, argv + 1);
}

static Value pair_close(ARGS) {
    RWPairObj *p = PAIR(argv[0]);
    Value r = vm_call_method(vm, p->writer, "close", 0, NULL);
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    Value r2 = vm_call_method(vm, p->reader, "close", 0, NULL);
    if (!val_is_null(e)) {
        if (val_is_null(r2)) vm_clear_exc(vm);
        vm->exc = e;
        r2 = val_null();
    }
    vm_pop_root(vm);
    (void)r;
    return r2;
}

static Value pair_closed(VM *vm, Value self, void *c) { return vm_getattr_c(vm, PAIR(self)->writer, "closed"); }

static Value pair_isatty(ARGS) {
    Value r = vm_call_method(vm, PAIR(argv[0])->writer, "isatty", 0, NULL);
    if (val_is_null(r)) return r;
    int t = vm_truthy(vm, r);
    if (t < 0) return val_null();
    if (t) return val_bool(true);
    return vm_call_method(vm, PAIR(argv[0])->reader, "isatty", 0, NULL);
}

/* ---- types ------------------------------------------------------------------------------------------- */

static TypeObj *new_type(VM *vm, const char *name, TypeObj *base, size_t size, TraceFn tr, FinalizeFn fin) {
    TypeObj *t = type_new_builtin(vm, name, base, OBJ_LAYOUT_EXTENSION, size, offsetof(IOObj, dict), tr, fin, TYPEF_BASETYPE);
    if (!t) return NULL;
    t->alloc = io_alloc;
    t->module = vm_intern(vm, "_io");
    return t;
}

int io_buffered_init(VM *vm, Value mod, TypeObj *bufbase) {
    TypeObj *bt = new_type(vm, "BytesIO", bufbase, sizeof(BytesIOObj), bio_trace, NULL);
    if (!bt) return -1;
    vm->lib[VM_LIB_io_bytesio] = val_obj(bt);
    static const MethodDef bm[] = {
        {"__init__", bio_init, NATIVEF_METHOD}, {"getvalue", bio_getvalue, NATIVEF_METHOD | ARITY_NOARGS},
        {"read", bio_read, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"read1", bio_read, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readline", bio_readline, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readinto", buf_readinto, NATIVEF_METHOD | ARITY_O}, {"write", bio_write, NATIVEF_METHOD | ARITY_O},
        {"seek", bio_seek, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"tell", bio_tell, NATIVEF_METHOD | ARITY_NOARGS},
        {"truncate", bio_truncate, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readable", bio_true, NATIVEF_METHOD | ARITY_NOARGS}, {"writable", bio_true, NATIVEF_METHOD | ARITY_NOARGS},
        {"seekable", bio_true, NATIVEF_METHOD | ARITY_NOARGS}, {"close", bio_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"flush", bio_flush, NATIVEF_METHOD | ARITY_NOARGS}, {"getbuffer", bio_getbuffer, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getstate__", bio_getstate, NATIVEF_METHOD | ARITY_NOARGS},
        {"__setstate__", bio_setstate, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const GetSetDef bg[] = {{"closed", bio_closed}, {NULL}};
    if (type_add_methods(vm, bt, bm) < 0 || type_add_getsets(vm, bt, bg) < 0) return -1;

    static const MethodDef common[] = {
        {"flush", buf_flush, NATIVEF_METHOD | ARITY_NOARGS}, {"tell", buf_tell, NATIVEF_METHOD | ARITY_NOARGS},
        {"seek", buf_seek, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"close", buf_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"detach", buf_detach, NATIVEF_METHOD | ARITY_NOARGS},
        {"seekable", buf_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"seekable"},
        {"readable", buf_readable, NATIVEF_METHOD | ARITY_NOARGS},
        {"writable", buf_readable, NATIVEF_METHOD | ARITY_NOARGS, (void *)1},
        {"fileno", buf_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"fileno"},
        {"isatty", buf_delegate, NATIVEF_METHOD | ARITY_NOARGS, (void *)"isatty"},
        {"_dealloc_warn", buf_delegate, NATIVEF_METHOD | ARITY_O, (void *)"_dealloc_warn"},
        {"__repr__", buf_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getstate__", io_no_pickle2, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const MethodDef reading[] = {
        {"read", buf_read, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"read1", buf_read1, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"peek", buf_peek, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"readline", buf_readline, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readinto", buf_readinto, NATIVEF_METHOD | ARITY_O}, {"readinto1", buf_readinto, NATIVEF_METHOD | ARITY_O, (void *)1},
        {NULL}};
    static const MethodDef writing[] = {
        {"write", buf_write, NATIVEF_METHOD | ARITY_O}, {"truncate", buf_truncate, NATIVEF_METHOD | ARITY_POS(0, 1)}, {NULL}};
    static const GetSetDef gs[] = {
        {"raw", buf_get_raw}, {"closed", buf_get_attr, NULL, (void *)"closed"},
        {"name", buf_get_attr, NULL, (void *)"name"}, {"mode", buf_get_attr, NULL, (void *)"mode"}, {NULL}};
    static const struct { const char *name; int slot; int kind; } kinds[] = {
        {"BufferedReader", VM_LIB_io_bufferedreader, 1}, {"BufferedWriter", VM_LIB_io_bufferedwriter, 2},
        {"BufferedRandom", VM_LIB_io_bufferedrandom, 3}};
    for (int i = 0; i < 3; i++) {
        TypeObj *t = new_type(vm, kinds[i].name, bufbase, sizeof(BufferedObj), buf_trace, buf_finalize);
        if (!t) return -1;
        t->alloc = io_alloc_stream;
        vm->lib[kinds[i].slot] = val_obj(t);
        MethodDef init[] = {{"__init__", buf_init, NATIVEF_METHOD, (void *)(intptr_t)kinds[i].kind}, {NULL}};
        if (type_add_methods(vm, t, init) < 0 || type_add_methods(vm, t, common) < 0 || type_add_getsets(vm, t, gs) < 0 ||
            ((kinds[i].kind & 1) && type_add_methods(vm, t, reading) < 0) ||
            ((kinds[i].kind & 2) && type_add_methods(vm, t, writing) < 0))
            return -1;
    }

    TypeObj *pt = new_type(vm, "BufferedRWPair", bufbase, sizeof(RWPairObj), pair_trace, NULL);
    if (!pt) return -1;
    vm->lib[VM_LIB_io_bufferedrwpair] = val_obj(pt);
    static const MethodDef pm[] = {
        {"__init__", pair_init, NATIVEF_METHOD}, {"read", pair_forward, NATIVEF_METHOD, (void *)"r:read"},
        {"peek", pair_forward, NATIVEF_METHOD, (void *)"r:peek"}, {"read1", pair_forward, NATIVEF_METHOD, (void *)"r:read1"},
        {"readinto", pair_forward, NATIVEF_METHOD, (void *)"r:readinto"},
        {"readinto1", pair_forward, NATIVEF_METHOD, (void *)"r:readinto1"},
        {"readable", pair_forward, NATIVEF_METHOD, (void *)"r:readable"},
        {"write", pair_forward, NATIVEF_METHOD, (void *)"w:write"}, {"flush", pair_forward, NATIVEF_METHOD, (void *)"w:flush"},
        {"writable", pair_forward, NATIVEF_METHOD, (void *)"w:writable"},
        {"close", pair_close, NATIVEF_METHOD | ARITY_NOARGS}, {"isatty", pair_isatty, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef pg[] = {{"closed", pair_closed}, {NULL}};
    return type_add_methods(vm, pt, pm) < 0 || type_add_getsets(vm, pt, pg) < 0 ? -1 : 0;
}
