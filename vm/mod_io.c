/* vm/mod_io.c — the _io module (see mod_io.h): the abstract bases with CPython's default
 * methods (_IOBase's close/flush/iteration/readline/readlines/writelines/context manager,
 * _RawIOBase.read/readall over readinto, _BufferedIOBase's readinto over read), FileIO on file
 * descriptors, open() with CPython's argument checks and layering, open_code, text_encoding,
 * UnsupportedOperation, and the standard streams. */
#include "vm/mod_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/buffer.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define DEFAULT_BUFFER_SIZE 8192

/* ---- shared helpers ----------------------------------------------------------------------------- */

void io_trace(VM *vm, Obj *o) { gc_mark(vm, ((IOObj *)o)->dict); }

Value io_alloc(VM *vm, TypeObj *t) {
    IOObj *o = gc_alloc(vm, t, t->instance_size);
    if (!o) return val_null();
    vm_push_root(vm, val_obj(o));
    o->dict = dict_new(vm);
    vm_pop_root(vm);
    return o->dict ? val_obj(o) : val_null();
}

Value io_alloc_stream(VM *vm, TypeObj *t) {
    Value v = io_alloc(vm, t);
    if (val_is_null(v)) return v;
    if (vm->io_nstreams == vm->io_streams_cap) {
        int64_t cap = vm->io_streams_cap ? vm->io_streams_cap * 2 : 16;
        Obj **s = realloc(vm->io_streams, sizeof(Obj *) * (size_t)cap);
        if (!s) return vm_no_memory(vm);
        vm->io_streams = s;
        vm->io_streams_cap = cap;
    }
    vm->io_streams[vm->io_nstreams++] = v.as.o;
    ((IOObj *)v.as.o)->stream_slot = (int32_t)vm->io_nstreams;
    return v;
}

void io_unregister_stream(VM *vm, Obj *o) {
    IOObj *io = (IOObj *)o;
    if (!io->stream_slot) return;
    int64_t i = io->stream_slot - 1;
    Obj *last = vm->io_streams[--vm->io_nstreams];
    vm->io_streams[i] = last;
    ((IOObj *)last)->stream_slot = (int32_t)(i + 1);
    io->stream_slot = 0;
}

TypeObj *io_type(VM *vm, int slot) { return AS_TYPE(vm->lib[slot]); }

Value io_unsupported(VM *vm, const char *msg) {
    Value e = type_call(vm, io_type(vm, VM_LIB_io_unsupported), 1, (Value[]){vm_intern(vm, msg)}, NULL);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

int io_is_closed(VM *vm, Value self) {
    Value c = vm_getattr_c(vm, self, "closed");
    if (val_is_null(c)) return -1;
    return vm_truthy(vm, c);
}

int io_check_closed(VM *vm, Value self) {
    int c = io_is_closed(vm, self);
    if (c < 0) return -1;
    if (c) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
        return -1;
    }
    return 0;
}

static Value call0(VM *vm, Value self, const char *name) { return vm_call_method(vm, self, name, 0, NULL); }

/* ---- _IOBase ------------------------------------------------------------------------------------- */

static Value iob_unsupported(ARGS) { return io_unsupported(vm, (const char *)fn->data); }

static Value iob_tell(ARGS) { return vm_call_method(vm, argv[0], "seek", 2, (Value[]){val_int(0), val_int(1)}); }

static Value iob_flush(ARGS) {
    if (IO(argv[0])->flags & IOF_CLOSED) return vm_raise(vm, vm->e_ValueError, "I/O operation on closed file.");
    return val_none();
}

static Value iob_close(ARGS) {
    IOObj *o = IO(argv[0]);
    if (o->flags & IOF_CLOSED) return val_none();
    Value r = call0(vm, argv[0], "flush");
    o->flags |= IOF_CLOSED;
    return val_is_null(r) ? r : val_none();
}

static Value iob_closed(VM *vm, Value self, void *c) { return val_bool(IO(self)->flags & IOF_CLOSED); }

static Value iob_false(ARGS) { return val_bool(false); }

static Value iob_check(ARGS) {
    const char *what = fn->data;
    if (strcmp(what, "closed") == 0) {
        if (io_check_closed(vm, argv[0]) < 0) return val_null();
        return val_none();
    }
    Value r = call0(vm, argv[0], what);
    if (val_is_null(r)) return r;
    int t = vm_truthy(vm, r);
    if (t < 0) return val_null();
    if (!t)
        return io_unsupported(vm, strcmp(what, "seekable") == 0   ? "File or stream is not seekable."
                                  : strcmp(what, "readable") == 0 ? "File or stream is not readable."
                                                                  : "File or stream is not writable.");
    return val_bool(true);
}

static Value iob_enter(ARGS) {
    if (io_check_closed(vm, argv[0]) < 0) return val_null();
    return argv[0];
}

static Value iob_exit(ARGS) { return call0(vm, argv[0], "close"); }

static Value iob_isatty(ARGS) {
    if (io_check_closed(vm, argv[0]) < 0) return val_null();
    return val_bool(false);
}

static Value iob_iter(ARGS) {
    if (io_check_closed(vm, argv[0]) < 0) return val_null();
    return argv[0];
}

static Value iob_next(ARGS) {
    Value line = call0(vm, argv[0], "readline");
    if (val_is_null(line)) return line;
    int64_t n = vm_len(vm, line);
    if (n < 0) return val_null();
    if (n == 0) return vm_raise_stop_iteration(vm, val_null());
    return line;
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

/* readline(size=-1): peek() when the object has it, else read(1) at a time */
static Value iob_readline(ARGS) {
    int64_t limit;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &limit) < 0) return val_null();
    Value self = argv[0];
    Value peek = vm_getattr_opt(vm, self, vm_intern_str(vm, "peek"));
    if (val_is_null(peek)) vm_clear_exc(vm);
    vm_push_root(vm, peek);
    StrBuf b;
    sb_init(&b);
    while (limit < 0 || b.len < limit) {
        int64_t nreadahead = 1;
        if (!val_is_null(peek)) {
            Value ra = vm_call1(vm, peek, val_int(1));
            if (val_is_null(ra)) goto fail;
            Value h;
            const uint8_t *p;
            int64_t n;
            if (buffer_get(vm, ra, "peek", &h, &p, &n) < 0) goto fail;
            if (n > 0) {
                const uint8_t *nl = memchr(p, '\n', (size_t)n);
                nreadahead = nl ? nl - p + 1 : n;
                if (limit >= 0 && nreadahead > limit - b.len) nreadahead = limit - b.len;
            }
        }
        Value r = vm_call_method(vm, self, "read", 1, (Value[]){val_int(nreadahead)});
        if (val_is_null(r)) goto fail;
        if (val_is_none(r)) break;
        Value h;
        const uint8_t *p;
        int64_t n;
        if (!vm_isinstance_type(vm, r, vm->t_bytes)) {
            vm_raise(vm, vm->e_OSError, "read() should have returned a bytes object, not '%s'", vm_type_name(vm, r));
            goto fail;
        }
        if (buffer_get(vm, r, "read", &h, &p, &n) < 0) goto fail;
        if (n == 0) break;
        sb_add(&b, (const char *)p, n);
        if (p[n - 1] == '\n') break;
    }
    vm_pop_root(vm);
    {
        BytesObj *res = bytes_new(vm, (const uint8_t *)b.data, b.len);
        sb_free(&b);
        return res ? val_obj(res) : val_null();
    }
fail:
    vm_pop_root(vm);
    sb_free(&b);
    return val_null();
}

static Value iob_readlines(ARGS) {
    int64_t hint;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &hint) < 0) return val_null();
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) goto fail;
    vm_push_root(vm, it);
    int64_t total = 0;
    for (;;) {
        Value line = vm_next(vm, it);
        if (val_is_null(line)) {
            if (vm->exc.tag) goto fail2;
            break;
        }
        if (list_append(vm, l, line) < 0) goto fail2;
        if (hint > 0) {
            int64_t n = vm_len(vm, line);
            if (n < 0) goto fail2;
            total += n;
            if (total >= hint) break;
        }
    }
    vm_pop_roots(vm, 2);
    return val_obj(l);
fail2:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value iob_writelines(ARGS) {
    if (io_check_closed(vm, argv[0]) < 0) return val_null();
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    for (;;) {
        Value line = vm_next(vm, it);
        if (val_is_null(line)) {
            vm_pop_root(vm);
            return vm->exc.tag ? val_null() : val_none();
        }
        vm_push_root(vm, line);
        Value r = vm_call_method(vm, argv[0], "write", 1, &line);
        vm_pop_root(vm);
        if (val_is_null(r)) {
            vm_pop_root(vm);
            return r;
        }
    }
}

/* ---- _RawIOBase ---------------------------------------------------------------------------------- */

static Value raw_read(ARGS) {
    int64_t n;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &n) < 0) return val_null();
    if (n < 0) return call0(vm, argv[0], "readall");
    Value ba = dict_get_c(vm, vm->builtins, "bytearray");
    if (val_is_null(ba)) return vm_raise(vm, vm->e_NotImplementedError, "RawIOBase.read needs bytearray");
    Value b = vm_call1(vm, ba, val_int(n));
    if (val_is_null(b)) return b;
    vm_push_root(vm, b);
    Value got = vm_call_method(vm, argv[0], "readinto", 1, &b);
    if (val_is_null(got) || val_is_none(got)) {
        vm_pop_root(vm);
        return got;
    }
    int64_t k;
    if (vm_index(vm, got, &k) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    Value h;
    const uint8_t *p;
    int64_t len;
    Value r = val_null();
    if (buffer_get(vm, b, "read", &h, &p, &len) == 0) {
        BytesObj *res = bytes_new(vm, p, k < len ? k : len);
        r = res ? val_obj(res) : val_null();
    }
    vm_pop_root(vm);
    return r;
}

static Value raw_readall(ARGS) {
    StrBuf b;
    sb_init(&b);
    for (;;) {
        Value d = vm_call_method(vm, argv[0], "read", 1, (Value[]){val_int(DEFAULT_BUFFER_SIZE)});
        if (val_is_null(d)) {
            sb_free(&b);
            return d;
        }
        if (val_is_none(d)) {
            if (b.len == 0) return d;
            break;
        }
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, d, "read", &h, &p, &n) < 0) {
            sb_free(&b);
            return val_null();
        }
        if (n == 0) break;
        sb_add(&b, (const char *)p, n);
    }
    BytesObj *r = bytes_new(vm, (const uint8_t *)b.data, b.len);
    sb_free(&b);
    return r ? val_obj(r) : val_null();
}

static Value raw_not_impl(ARGS) { return vm_raise(vm, vm->e_NotImplementedError, "%s", (const char *)fn->data); }

/* ---- _BufferedIOBase ----------------------------------------------------------------------------- */

/* readinto(b) / readinto1(b): data = self.read(len(b)); b[:len(data)] = data */
static Value bufb_readinto(ARGS) {
    int64_t n = vm_len(vm, argv[1]);
    if (n < 0) return val_null();
    Value d = vm_call_method(vm, argv[0], fn->data ? "read1" : "read", 1, (Value[]){val_int(n)});
    if (val_is_null(d)) return d;
    vm_push_root(vm, d);
    int64_t k = vm_len(vm, d);
    Value sl = k >= 0 ? slice_new(vm, val_int(0), val_int(k), val_none()) : val_null();
    int rc = val_is_null(sl) ? -1 : vm_setitem(vm, argv[1], sl, d);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_int(k);
}

/* ---- FileIO -------------------------------------------------------------------------------------- */

#define FIO(v) ((FileIOObj *)(v).as.o)

static Value fio_alloc(VM *vm, TypeObj *t) {
    Value v = io_alloc(vm, t);
    if (!val_is_null(v)) {
        FIO(v)->fd = -1;
        FIO(v)->seekable = -1;
    }
    return v;
}

static void fio_finalize(VM *vm, Obj *o) {
    FileIOObj *f = (FileIOObj *)o;
    /* CPython closes an unreachable file (and warns); Ember closes it when it is collected */
    if (f->fd >= 0 && f->closefd && !f->stdio) close(f->fd);
    f->fd = -1;
}

static int fio_check(VM *vm, Value self) {
    if (FIO(self)->fd < 0) {
        vm_raise(vm, vm->e_ValueError, "I/O operation on closed file");
        return -1;
    }
    return 0;
}

static const char *fio_mode_str(FileIOObj *f) {
    if (f->created) return f->readable ? "xb+" : "xb";
    if (f->appending) return f->readable ? "ab+" : "ab";
    if (f->readable) return f->writable ? "rb+" : "rb";
    return "wb";
}

/* FileIO(file, mode='r', closefd=True, opener=None) */
static Value fio_init(ARGS) {
    static const char *const names[] = {"self", "file", "mode", "closefd", "opener"};
    Value a[5];
    if (native_parse_args(vm, "FileIO", argc, argv, kw, 5, 2, names, 5, a) < 0) return val_null();
    FileIOObj *f = FIO(argv[0]);
    if (f->fd >= 0 && f->closefd && !f->stdio) close(f->fd);
    f->fd = -1;
    Value nameobj = a[1];
    if (val_is_float(nameobj)) return vm_raise(vm, vm->e_TypeError, "integer argument expected, got float");
    int64_t fdarg = -1;
    if (val_is_intlike(nameobj)) {
        fdarg = val_as_intlike(nameobj);
        if (fdarg < 0) return vm_raise(vm, vm->e_ValueError, "negative file descriptor");
    }
    const char *mode = "r";
    if (!val_is_null(a[2])) {
        if (!val_is_str(vm, a[2])) return vm_raise(vm, vm->e_TypeError, "FileIO() argument 'mode' must be str, not %s", vm_type_name(vm, a[2]));
        mode = AS_STR(a[2])->data;
    }
    bool rwa = false, plus = false, readable = false, writable = false, created = false, appending = false;
    int flags = 0;
    for (const char *s = mode; *s; s++) {
        switch (*s) {
        case 'x': case 'r': case 'w': case 'a':
            if (rwa) goto bad_mode;
            rwa = true;
            if (*s == 'x') { created = writable = true; flags |= O_EXCL | O_CREAT; }
            else if (*s == 'r') readable = true;
            else if (*s == 'w') { writable = true; flags |= O_CREAT | O_TRUNC; }
            else { writable = appending = true; flags |= O_APPEND | O_CREAT; }
            break;
        case 'b': break;
        case '+':
            if (plus) goto bad_mode;
            readable = writable = plus = true;
            break;
        default:
            return vm_raise(vm, vm->e_ValueError, "invalid mode: %s", mode);
        }
    }
    if (!rwa) goto bad_mode;
    flags |= readable && writable ? O_RDWR : readable ? O_RDONLY : O_WRONLY;
    flags |= O_CLOEXEC;
    bool closefd = true;
    if (!val_is_null(a[3])) {
        int t = vm_truthy(vm, a[3]);
        if (t < 0) return val_null();
        closefd = t;
    }
    f->readable = readable;
    f->writable = writable;
    f->created = created;
    f->appending = appending;
    int fd;
    if (fdarg >= 0) {
        fd = (int)fdarg;
    } else {
        if (!closefd) return vm_raise(vm, vm->e_ValueError, "Cannot use closefd=False with file name");
        if (!val_is_null(a[4]) && !val_is_none(a[4])) {
            Value r = vm_call2(vm, a[4], nameobj, val_int(flags));
            if (val_is_null(r)) return r;
            if (!val_is_intlike(r)) return vm_raise(vm, vm->e_TypeError, "expected integer from opener");
            fd = (int)val_as_intlike(r);
            if (fd < 0) return vm_raise(vm, vm->e_ValueError, "opener returned %d", fd);
        } else {
            Value p = val_is_str(vm, nameobj) || vm_isinstance_type(vm, nameobj, vm->t_bytes)
                          ? nameobj : vm_call_method(vm, nameobj, "__fspath__", 0, NULL);
            if (val_is_null(p)) {
                if (vm_exc_matches(vm, vm->e_AttributeError)) {
                    vm_clear_exc(vm);
                    return vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s",
                                    vm_type_name(vm, nameobj));
                }
                return p;
            }
            vm_push_root(vm, p);
            Value holder = val_null();
            const char *path;
            if (vm_isinstance_type(vm, p, vm->t_bytes)) path = (const char *)((BytesObj *)p.as.o)->data;
            else if (val_is_str(vm, p)) path = codec_fs_cstr(vm, AS_STR(p), &holder);
            else path = NULL;
            if (!path) {
                vm_pop_root(vm);
                return vm->exc.tag ? val_null() : vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object");
            }
            if (strlen(path) != (size_t)(val_is_str(vm, p) && val_is_null(holder) ? AS_STR(p)->len : strlen(path))) {
                vm_pop_root(vm);
                return vm_raise(vm, vm->e_ValueError, "embedded null character");
            }
            vm_push_root(vm, holder);
            do fd = open(path, flags, 0666);
            while (fd < 0 && errno == EINTR);
            vm_pop_roots(vm, 2);
            if (fd < 0) return vm_raise_oserror(vm, errno, nameobj, val_null());
        }
    }
    f->fd = fd;
    f->closefd = closefd;
    f->io.flags &= ~IOF_CLOSED;
    struct stat st;
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            if (fdarg < 0) close(fd);
            f->fd = -1;
            return vm_raise_oserror(vm, EISDIR, nameobj, val_null());
        }
        f->blksize = st.st_blksize > 1 ? st.st_blksize : DEFAULT_BUFFER_SIZE;
    } else if (errno == EBADF) {
        f->fd = -1;
        return vm_raise_oserror(vm, EBADF, val_null(), val_null());
    }
    if (dict_set_c(vm, f->io.dict, "name", nameobj) < 0 || dict_set_c(vm, f->io.dict, "_blksize", val_int(f->blksize)) < 0)
        return val_null();
    if (appending) lseek(fd, 0, SEEK_END);
    return val_none();
bad_mode:
    return vm_raise(vm, vm->e_ValueError, "Must have exactly one of create/read/write/append mode and at most one plus");
}

static Value fio_read(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (!f->readable) return io_unsupported(vm, "File not open for reading");
    int64_t n;
    if (size_arg(vm, argc > 1 ? argv[1] : val_null(), &n) < 0) return val_null();
    if (n < 0) return call0(vm, argv[0], "readall");
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) return vm_no_memory(vm);
    ssize_t r;
    do r = read(f->fd, buf, (size_t)n);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        free(buf);
        if (e == EAGAIN) return val_none();
        return vm_raise_oserror(vm, e, val_null(), val_null());
    }
    BytesObj *b = bytes_new(vm, buf, r);
    free(buf);
    return b ? val_obj(b) : val_null();
}

static Value fio_readall(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    struct stat st;
    size_t cap = DEFAULT_BUFFER_SIZE;
    if (fstat(f->fd, &st) == 0 && st.st_size > 0) {
        off_t pos = lseek(f->fd, 0, SEEK_CUR);
        if (pos >= 0 && st.st_size >= pos) cap = (size_t)(st.st_size - pos) + 1;
    }
    uint8_t *buf = malloc(cap);
    size_t n = 0;
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        ssize_t r = read(f->fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            if (e == EAGAIN && n == 0) return val_none();
            return vm_raise_oserror(vm, e, val_null(), val_null());
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    BytesObj *b = bytes_new(vm, buf, (int64_t)n);
    free(buf);
    return b ? val_obj(b) : val_null();
}

/* readinto(b): a bytearray / memoryview target, filled through slice assignment */
static Value fio_readinto(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (!f->readable) return io_unsupported(vm, "File not open for reading");
    int64_t n = vm_len(vm, argv[1]);
    if (n < 0) return val_null();
    Value d = vm_call_method(vm, argv[0], "read", 1, (Value[]){val_int(n)});
    if (val_is_null(d) || val_is_none(d)) return d;
    vm_push_root(vm, d);
    int64_t k = ((BytesObj *)d.as.o)->len;
    Value sl = slice_new(vm, val_int(0), val_int(k), val_none());
    int rc = val_is_null(sl) ? -1 : vm_setitem(vm, argv[1], sl, d);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_int(k);
}

int64_t io_fileio_write(VM *vm, FileIOObj *f, const uint8_t *p, int64_t n) {
    if (f->stdio) {
        if (f->stdio == stderr) fflush(vm->out);   /* stdout's text first when both are merged */
        size_t w = fwrite(p, 1, (size_t)n, f->stdio);
        if (f->stdio == stderr) fflush(stderr);
        if (w < (size_t)n) {
            vm_raise_oserror(vm, errno ? errno : EIO, val_null(), val_null());
            return -1;
        }
        return n;
    }
    ssize_t w;
    do w = write(f->fd, p, (size_t)n);
    while (w < 0 && errno == EINTR);
    if (w < 0) {
        if (errno == EAGAIN) return -2;
        vm_raise_oserror(vm, errno, val_null(), val_null());
        return -1;
    }
    return w;
}

static Value fio_write(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (!f->writable) return io_unsupported(vm, "File not open for writing");
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "write", &h, &p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    int64_t w = io_fileio_write(vm, f, p, n);
    vm_pop_root(vm);
    if (w == -2) return val_none();
    return w < 0 ? val_null() : val_int(w);
}

static Value fio_seek(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (val_is_float(argv[1])) return vm_raise(vm, vm->e_TypeError, "an integer is required");
    int64_t pos, whence = 0;
    if (vm_index(vm, argv[1], &pos) < 0 || (argc > 2 && vm_index(vm, argv[2], &whence) < 0)) return val_null();
    if (f->stdio) fflush(f->stdio);
    off_t r = lseek(f->fd, (off_t)pos, (int)whence);
    if (r < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    f->seekable = 1;
    return val_int((int64_t)r);
}

static Value fio_tell(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (f->stdio) fflush(f->stdio);
    off_t r = lseek(f->fd, 0, SEEK_CUR);
    if (r < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return val_int((int64_t)r);
}

static Value fio_truncate(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (!f->writable) return io_unsupported(vm, "File not open for writing");
    int64_t size;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (vm_index(vm, argv[1], &size) < 0) return val_null();
    } else {
        size = lseek(f->fd, 0, SEEK_CUR);
        if (size < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    }
    if (ftruncate(f->fd, (off_t)size) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return val_int(size);
}

static Value fio_seekable(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    if (fio_check(vm, argv[0]) < 0) return val_null();
    if (f->seekable < 0) f->seekable = lseek(f->fd, 0, SEEK_CUR) >= 0;
    return val_bool(f->seekable);
}

static Value fio_readable(ARGS) {
    if (fio_check(vm, argv[0]) < 0) return val_null();
    return val_bool(FIO(argv[0])->readable);
}
static Value fio_writable(ARGS) {
    if (fio_check(vm, argv[0]) < 0) return val_null();
    return val_bool(FIO(argv[0])->writable);
}
static Value fio_fileno(ARGS) {
    if (fio_check(vm, argv[0]) < 0) return val_null();
    return val_int(FIO(argv[0])->fd);
}
static Value fio_isatty(ARGS) {
    if (fio_check(vm, argv[0]) < 0) return val_null();
    return val_bool(isatty(FIO(argv[0])->fd));
}

static Value fio_close(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    Value r = iob_close(vm, argc, argv, kw, fn);   /* _RawIOBase.close: flush, mark closed */
    if (f->fd >= 0) {
        if (f->stdio) fflush(f->stdio);
        int rc = 0;
        if (f->closefd && !f->stdio) rc = close(f->fd);
        f->fd = -1;
        if (rc < 0 && val_is_null(r) == false) return vm_raise_oserror(vm, errno, val_null(), val_null());
    }
    return r;
}

static Value fio_closed(VM *vm, Value self, void *c) { return val_bool(FIO(self)->fd < 0); }
static Value fio_closefd(VM *vm, Value self, void *c) { return val_bool(FIO(self)->closefd); }
static Value fio_mode(VM *vm, Value self, void *c) { return vm_intern(vm, fio_mode_str(FIO(self))); }

static Value fio_repr(ARGS) {
    FileIOObj *f = FIO(argv[0]);
    const char *tn = type_repr_name(vm, argv[0].as.o->type)->data;
    if (f->fd < 0) {
        StrObj *s = str_printf(vm, "<%s [closed]>", tn);
        return s ? val_obj(s) : val_null();
    }
    Value name = dict_get_c(vm, f->io.dict, "name");
    StrObj *s;
    if (val_is_null(name)) {
        s = str_printf(vm, "<%s fd=%d mode='%s' closefd=%s>", tn, f->fd, fio_mode_str(f), f->closefd ? "True" : "False");
    } else {
        Value r = vm_repr(vm, name);
        if (val_is_null(r)) return r;
        s = str_printf(vm, "<%s name=%s mode='%s' closefd=%s>", tn, AS_STR(r)->data, fio_mode_str(f),
                       f->closefd ? "True" : "False");
    }
    return s ? val_obj(s) : val_null();
}

static Value fio_dealloc_warn(ARGS) { return val_none(); }

static Value io_no_pickle(ARGS) {
    return vm_raise(vm, vm->e_TypeError, "cannot pickle '%s' object", type_repr_name(vm, argv[0].as.o->type)->data);
}

/* ---- open() ------------------------------------------------------------------------------------------ */

static Value io_open_impl(VM *vm, Value file, const char *mode, int64_t buffering, Value encoding, Value errors,
                          Value newline, bool closefd, Value opener) {
    bool creating = false, reading = false, writing = false, appending = false, updating = false, text = false,
         binary = false;
    char seen[8] = {0};
    int ns = 0;
    for (const char *s = mode; *s; s++) {
        const char *ok = strchr("xrwab+t", *s);
        if (!ok || memchr(seen, *s, (size_t)ns)) return vm_raise(vm, vm->e_ValueError, "invalid mode: '%s'", mode);
        if (ns < 7) seen[ns++] = *s;
        switch (*s) {
        case 'x': creating = true; break;
        case 'r': reading = true; break;
        case 'w': writing = true; break;
        case 'a': appending = true; break;
        case '+': updating = true; break;
        case 't': text = true; break;
        case 'b': binary = true; break;
        }
    }
    if (text && binary) return vm_raise(vm, vm->e_ValueError, "can't have text and binary mode at once");
    if (creating + reading + writing + appending > 1)
        return vm_raise(vm, vm->e_ValueError, "must have exactly one of create/read/write/append mode");
    if (!(creating || reading || writing || appending))
        return vm_raise(vm, vm->e_ValueError, "Must have exactly one of create/read/write/append mode and at most one plus");
    if (binary && !val_is_none(encoding)) return vm_raise(vm, vm->e_ValueError, "binary mode doesn't take an encoding argument");
    if (binary && !val_is_none(errors)) return vm_raise(vm, vm->e_ValueError, "binary mode doesn't take an errors argument");
    if (binary && !val_is_none(newline)) return vm_raise(vm, vm->e_ValueError, "binary mode doesn't take a newline argument");
    char rawmode[6];
    snprintf(rawmode, sizeof rawmode, "%s%s", creating ? "x" : reading ? "r" : writing ? "w" : "a", updating ? "+" : "");
    Value modestr = vm_intern(vm, rawmode);
    Value args[4] = {file, modestr, val_bool(closefd), opener};
    Value raw = type_call(vm, io_type(vm, VM_LIB_io_fileio), 4, args, NULL);
    if (val_is_null(raw)) return raw;
    vm_push_root(vm, raw);
    Value result = raw, buffer = val_null();
    bool line_buffering = false;
    if (buffering == 1 || (buffering < 0 && isatty(FIO(raw)->fd))) {
        buffering = -1;
        line_buffering = true;
    }
    if (buffering < 0) buffering = FIO(raw)->blksize > 1 ? FIO(raw)->blksize : DEFAULT_BUFFER_SIZE;
    if (buffering == 0) {
        if (binary) {
            vm_pop_root(vm);
            return raw;
        }
        vm_raise(vm, vm->e_ValueError, "can't have unbuffered text I/O");
        goto fail;
    }
    int slot = updating ? VM_LIB_io_bufferedrandom : (creating || writing || appending) ? VM_LIB_io_bufferedwriter
                                                                                       : VM_LIB_io_bufferedreader;
    buffer = type_call(vm, io_type(vm, slot), 2, (Value[]){raw, val_int(buffering)}, NULL);
    if (val_is_null(buffer)) goto fail;
    result = buffer;
    vm_push_root(vm, buffer);
    if (binary) {
        vm_pop_roots(vm, 2);
        return buffer;
    }
    Value targs[5] = {buffer, val_is_none(encoding) ? vm_intern(vm, "locale") : encoding, errors, newline,
                      val_bool(line_buffering)};
    Value t = type_call(vm, io_type(vm, VM_LIB_io_textiowrapper), 5, targs, NULL);
    if (val_is_null(t)) {
        vm_pop_root(vm);
        goto fail;
    }
    vm_push_root(vm, t);
    StrObj *ms = str_from_c(vm, mode);
    int rc = ms ? dict_set_c(vm, IO(t)->dict, "mode", val_obj(ms)) : -1;
    vm_pop_roots(vm, 3);
    return rc < 0 ? val_null() : t;
fail: {
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    if (val_is_null(call0(vm, result, "close"))) vm_clear_exc(vm);
    vm->exc = e;
    vm_pop_roots(vm, 2);
    return val_null();
}
}

/* open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None, closefd=True,
 *      opener=None) */
static Value io_open(ARGS) {
    static const char *const names[] = {"file", "mode", "buffering", "encoding", "errors", "newline", "closefd", "opener"};
    Value a[8];
    if (native_parse_args(vm, "open", argc, argv, kw, 8, 1, names, 8, a) < 0) return val_null();
    Value file = a[0];
    if (!val_is_intlike(file) && !val_is_str(vm, file) && !vm_isinstance_type(vm, file, vm->t_bytes)) {
        Value m = type_lookup(vm, vm_type_of(vm, file), vm_intern_str(vm, "__fspath__"));
        if (val_is_null(m)) {
            Value r = vm_repr(vm, file);
            return val_is_null(r) ? r : vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s", vm_type_name(vm, file));
        }
        file = vm_call_method(vm, file, "__fspath__", 0, NULL);
        if (val_is_null(file)) return file;
    }
    vm_push_root(vm, file);
    const char *mode = "r";
    Value r = val_null();
    if (!val_is_null(a[1])) {
        if (!val_is_str(vm, a[1])) {
            vm_raise(vm, vm->e_TypeError, "open() argument 'mode' must be str, not %s", vm_type_name(vm, a[1]));
            goto done;
        }
        mode = AS_STR(a[1])->data;
    }
    int64_t buffering = -1;
    if (!val_is_null(a[2])) {
        if (val_is_float(a[2])) {
            vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
            goto done;
        }
        if (vm_index(vm, a[2], &buffering) < 0) goto done;
    }
    for (int i = 3; i <= 5; i++) {
        if (val_is_null(a[i])) a[i] = val_none();
        if (!val_is_none(a[i]) && !val_is_str(vm, a[i])) {
            vm_raise(vm, vm->e_TypeError, "open() argument '%s' must be str or None, not %s", names[i],
                     vm_type_name(vm, a[i]));
            goto done;
        }
    }
    bool closefd = true;
    if (!val_is_null(a[6])) {
        int t = vm_truthy(vm, a[6]);
        if (t < 0) goto done;
        closefd = t;
    }
    r = io_open_impl(vm, file, mode, buffering, a[3], a[4], a[5], closefd, val_is_null(a[7]) ? val_none() : a[7]);
done:
    vm_pop_root(vm);
    return r;
}

static Value io_open_code(ARGS) {
    static const char *const names[] = {"path"};
    Value a[1];
    if (native_parse_args(vm, "open_code", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    if (!val_is_str(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "open_code() argument 'path' must be str, not %s", vm_type_name(vm, a[0]));
    return io_open_impl(vm, a[0], "rb", -1, val_none(), val_none(), val_none(), true, val_none());
}

/* text_encoding(encoding, stacklevel=2): "locale" for None (Ember has no UTF-8 mode switch) */
static Value io_text_encoding(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "text_encoding() missing required argument 'encoding' (pos 1)");
    if (val_is_none(argv[0])) return vm_intern(vm, "locale");
    return argv[0];
}

/* ---- the standard streams --------------------------------------------------------------------- */

Value io_std_stream(VM *vm, int fd, FILE *stdio, const char *mode, const char *errors, bool line_buffering) {
    bool writing = mode[0] == 'w';
    Value raw = fio_alloc(vm, io_type(vm, VM_LIB_io_fileio));
    if (val_is_null(raw)) return raw;
    vm_push_root(vm, raw);
    FileIOObj *f = FIO(raw);
    f->fd = fd;
    f->readable = !writing;
    f->writable = writing;
    f->closefd = false;
    f->stdio = stdio;
    f->blksize = DEFAULT_BUFFER_SIZE;
    static const char *const names[] = {"<stdin>", "<stdout>", "<stderr>"};
    Value r = val_null();
    if (dict_set_c(vm, f->io.dict, "name", vm_intern(vm, names[fd <= 2 ? fd : 0])) < 0) goto done;
    Value buffer = type_call(vm, io_type(vm, writing ? VM_LIB_io_bufferedwriter : VM_LIB_io_bufferedreader), 1, &raw, NULL);
    if (val_is_null(buffer)) goto done;
    vm_push_root(vm, buffer);
    if (writing) ((BufferedObj *)buffer.as.o)->passthrough = stdio != NULL;
    Value targs[5] = {buffer, vm_intern(vm, "utf-8"), vm_intern(vm, errors), val_none(), val_bool(line_buffering)};
    Value t = type_call(vm, io_type(vm, VM_LIB_io_textiowrapper), 5, targs, NULL);
    vm_pop_root(vm);
    if (val_is_null(t)) goto done;
    vm_push_root(vm, t);
    if (dict_set_c(vm, IO(t)->dict, "mode", vm_intern(vm, writing ? "w" : "r")) == 0) r = t;
    vm_pop_root(vm);
done:
    vm_pop_root(vm);
    return r;
}

/* ---- module ---------------------------------------------------------------------------------- */

static TypeObj *new_io_type(VM *vm, const char *name, TypeObj *base, size_t size, FinalizeFn fin) {
    TypeObj *t = type_new_builtin(vm, name, base, OBJ_LAYOUT_EXTENSION, size, offsetof(IOObj, dict), io_trace, fin,
                                  TYPEF_BASETYPE);
    if (!t) return NULL;
    t->alloc = io_alloc;
    t->module = vm_intern(vm, "_io");
    return t;
}

static int make_types(VM *vm) {
    TypeObj *iob = new_io_type(vm, "_IOBase", vm->t_object, sizeof(IOObj), NULL);
    if (!iob) return -1;
    vm->lib[VM_LIB_io_iobase] = val_obj(iob);
    static const MethodDef iobm[] = {
        {"seek", iob_unsupported, NATIVEF_METHOD, (void *)"seek"}, {"tell", iob_tell, NATIVEF_METHOD | ARITY_NOARGS},
        {"truncate", iob_unsupported, NATIVEF_METHOD, (void *)"truncate"},
        {"flush", iob_flush, NATIVEF_METHOD | ARITY_NOARGS}, {"close", iob_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"seekable", iob_false, NATIVEF_METHOD | ARITY_NOARGS}, {"readable", iob_false, NATIVEF_METHOD | ARITY_NOARGS},
        {"writable", iob_false, NATIVEF_METHOD | ARITY_NOARGS},
        {"_checkClosed", iob_check, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)"closed"},
        {"_checkSeekable", iob_check, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)"seekable"},
        {"_checkReadable", iob_check, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)"readable"},
        {"_checkWritable", iob_check, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)"writable"},
        {"fileno", iob_unsupported, NATIVEF_METHOD | ARITY_NOARGS, (void *)"fileno"},
        {"isatty", iob_isatty, NATIVEF_METHOD | ARITY_NOARGS}, {"__enter__", iob_enter, NATIVEF_METHOD | ARITY_NOARGS},
        {"__exit__", iob_exit, NATIVEF_METHOD}, {"__iter__", iob_iter, NATIVEF_METHOD | ARITY_NOARGS},
        {"__next__", iob_next, NATIVEF_METHOD | ARITY_NOARGS}, {"readline", iob_readline, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readlines", iob_readlines, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"writelines", iob_writelines, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const GetSetDef iobg[] = {{"closed", iob_closed}, {NULL}};
    if (type_add_methods(vm, iob, iobm) < 0 || type_add_getsets(vm, iob, iobg) < 0) return -1;

    TypeObj *raw = new_io_type(vm, "_RawIOBase", iob, sizeof(IOObj), NULL);
    if (!raw) return -1;
    vm->lib[VM_LIB_io_rawiobase] = val_obj(raw);
    static const MethodDef rawm[] = {
        {"read", raw_read, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"readall", raw_readall, NATIVEF_METHOD | ARITY_NOARGS},
        {"readinto", raw_not_impl, NATIVEF_METHOD | ARITY_O, (void *)"readinto"},
        {"write", raw_not_impl, NATIVEF_METHOD | ARITY_O, (void *)"write"}, {NULL}};
    if (type_add_methods(vm, raw, rawm) < 0) return -1;

    TypeObj *bufb = new_io_type(vm, "_BufferedIOBase", iob, sizeof(IOObj), NULL);
    if (!bufb) return -1;
    vm->lib[VM_LIB_io_bufferediobase] = val_obj(bufb);
    static const MethodDef bufm[] = {
        {"read", iob_unsupported, NATIVEF_METHOD, (void *)"read"}, {"read1", iob_unsupported, NATIVEF_METHOD, (void *)"read1"},
        {"write", iob_unsupported, NATIVEF_METHOD, (void *)"write"},
        {"detach", iob_unsupported, NATIVEF_METHOD, (void *)"detach"},
        {"readinto", bufb_readinto, NATIVEF_METHOD | ARITY_O}, {"readinto1", bufb_readinto, NATIVEF_METHOD | ARITY_O, (void *)1},
        {NULL}};
    if (type_add_methods(vm, bufb, bufm) < 0) return -1;

    TypeObj *textb = new_io_type(vm, "_TextIOBase", iob, sizeof(IOObj), NULL);
    if (!textb) return -1;
    vm->lib[VM_LIB_io_textiobase] = val_obj(textb);
    static const MethodDef textm[] = {
        {"detach", iob_unsupported, NATIVEF_METHOD, (void *)"detach"}, {"read", iob_unsupported, NATIVEF_METHOD, (void *)"read"},
        {"readline", iob_unsupported, NATIVEF_METHOD, (void *)"readline"},
        {"write", iob_unsupported, NATIVEF_METHOD, (void *)"write"}, {NULL}};
    if (type_add_methods(vm, textb, textm) < 0) return -1;
    if (dict_set_c(vm, textb->dict, "encoding", val_none()) < 0 || dict_set_c(vm, textb->dict, "newlines", val_none()) < 0 ||
        dict_set_c(vm, textb->dict, "errors", val_none()) < 0)
        return -1;

    TypeObj *fio = new_io_type(vm, "FileIO", raw, sizeof(FileIOObj), fio_finalize);
    if (!fio) return -1;
    fio->alloc = fio_alloc;
    vm->lib[VM_LIB_io_fileio] = val_obj(fio);
    static const MethodDef fiom[] = {
        {"__init__", fio_init, NATIVEF_METHOD}, {"read", fio_read, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"readall", fio_readall, NATIVEF_METHOD | ARITY_NOARGS}, {"readinto", fio_readinto, NATIVEF_METHOD | ARITY_O},
        {"write", fio_write, NATIVEF_METHOD | ARITY_O}, {"seek", fio_seek, NATIVEF_METHOD | ARITY_POS(1, 2)},
        {"tell", fio_tell, NATIVEF_METHOD | ARITY_NOARGS}, {"truncate", fio_truncate, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"seekable", fio_seekable, NATIVEF_METHOD | ARITY_NOARGS},
        {"readable", fio_readable, NATIVEF_METHOD | ARITY_NOARGS},
        {"writable", fio_writable, NATIVEF_METHOD | ARITY_NOARGS}, {"fileno", fio_fileno, NATIVEF_METHOD | ARITY_NOARGS},
        {"isatty", fio_isatty, NATIVEF_METHOD | ARITY_NOARGS}, {"close", fio_close, NATIVEF_METHOD | ARITY_NOARGS},
        {"__repr__", fio_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"_dealloc_warn", fio_dealloc_warn, NATIVEF_METHOD | ARITY_O},
        {"__getstate__", io_no_pickle, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef fiog[] = {{"closed", fio_closed}, {"closefd", fio_closefd}, {"mode", fio_mode}, {NULL}};
    if (type_add_methods(vm, fio, fiom) < 0 || type_add_getsets(vm, fio, fiog) < 0) return -1;

    /* UnsupportedOperation(OSError, ValueError), created as io.py pretends it is */
    TupleObj *bases = tuple_pack(vm, 2, val_obj(vm->e_OSError), val_obj(vm->e_ValueError));
    if (!bases) return -1;
    vm_push_root(vm, val_obj(bases));
    DictObj *ns = dict_new(vm);
    if (!ns) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(ns));
    Value uo = val_null();
    if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "io")) == 0)
        uo = type_new_class(vm, vm->t_type, vm_intern_str(vm, "UnsupportedOperation"), bases, ns, 0, NULL, NULL);
    vm_pop_roots(vm, 2);
    if (val_is_null(uo)) return -1;
    vm->lib[VM_LIB_io_unsupported] = uo;
    return io_buffered_init(vm, val_null(), bufb) < 0 || io_text_init(vm, val_null(), textb) < 0 ? -1 : 0;
}

/* Interpreter shutdown: flush every text and buffered stream still open, innermost layer
 * first (CPython flushes them as their last references go; a tracing collector has no such
 * moment, so exit is where unclosed files get their data).  Exceptions are reported, not
 * raised. */
void io_shutdown(VM *vm) {
    if (val_is_null(vm->lib[VM_LIB_io_textiowrapper])) return;
    /* text wrappers first (their pending text goes to their buffers), then buffered writers;
     * the objects are collected first, since flushing runs code that allocates */
    ListObj *todo[2] = {list_new(vm, 0), NULL};
    if (!todo[0]) goto out;
    vm_push_root(vm, val_obj(todo[0]));
    todo[1] = list_new(vm, 0);
    if (!todo[1]) goto out1;
    vm_push_root(vm, val_obj(todo[1]));
    TraceFn text_trace = io_type(vm, VM_LIB_io_textiowrapper)->trace;
    TraceFn buf_trace = io_type(vm, VM_LIB_io_bufferedwriter)->trace;
    /* newest first, as the heap list was walked before; no collection while the registry is
     * walked (a stream's finalizer would reorder it) */
    bool gc_was_disabled = vm->gc_disabled;
    vm->gc_disabled = true;
    for (int64_t i = vm->io_nstreams - 1; i >= 0; i--) {
        Obj *o = vm->io_streams[i];
        if (o->type->trace == text_trace) {
            if (list_append(vm, todo[0], val_obj(o)) < 0) {
                vm->gc_disabled = gc_was_disabled;
                goto out2;
            }
        } else if (o->type->trace == buf_trace && ((BufferedObj *)o)->writable && ((BufferedObj *)o)->wlen) {
            if (list_append(vm, todo[1], val_obj(o)) < 0) {
                vm->gc_disabled = gc_was_disabled;
                goto out2;
            }
        }
    }
    vm->gc_disabled = gc_was_disabled;
    for (int k = 0; k < 2; k++)
        for (int64_t i = 0; i < todo[k]->len; i++) {
            Value s = todo[k]->items[i];
            int c = io_is_closed(vm, s);
            if (c != 0 || val_is_null(vm_call_method(vm, s, "flush", 0, NULL))) {
                Value e = vm_fetch_exc(vm);
                if (!val_is_null(e) && !vm_isinstance_type(vm, e, vm->e_ValueError)) {
                    fflush(vm->out);
                    fprintf(vm->err, "Exception ignored while flushing a file at exit\n");
                    vm_print_exception(vm, e, vm->err);
                }
            }
        }
out2:
    vm_pop_root(vm);
out1:
    vm_pop_root(vm);
out:
    vm_clear_exc(vm);
    fflush(vm->out);
    fflush(vm->err);
}

/* The types exist from VM start: the standard streams are made of them. */
int io_init_types(VM *vm) { return make_types(vm); }

/* builtins.open is io.open (CPython's start-up sets it, init_set_builtins_open): one function
 * object, made at VM start and shared by _io. */
int io_install_builtin_open(VM *vm) {
    NativeObj *n = native_new(vm, "open", io_open, NULL, 0);
    return n ? dict_set_c(vm, vm->builtins, "open", val_obj(n)) : -1;
}

int io_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"open_code", io_open_code}, {"text_encoding", io_text_encoding}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    Value open = dict_get_c(vm, vm->builtins, "open");
    if (val_is_null(open) || !val_is_type(vm, open, vm->t_builtin_function)) {
        static const MethodDef o[] = {{"open", io_open}, {NULL}};
        if (module_add_functions(vm, mod, o) < 0) return -1;
    } else if (module_set(vm, mod, "open", open) < 0) {
        return -1;
    }
    static const struct { const char *n; int slot; } types[] = {
        {"_IOBase", VM_LIB_io_iobase}, {"_RawIOBase", VM_LIB_io_rawiobase},
        {"_BufferedIOBase", VM_LIB_io_bufferediobase}, {"_TextIOBase", VM_LIB_io_textiobase},
        {"FileIO", VM_LIB_io_fileio}, {"BytesIO", VM_LIB_io_bytesio}, {"StringIO", VM_LIB_io_stringio},
        {"BufferedReader", VM_LIB_io_bufferedreader}, {"BufferedWriter", VM_LIB_io_bufferedwriter},
        {"BufferedRandom", VM_LIB_io_bufferedrandom}, {"BufferedRWPair", VM_LIB_io_bufferedrwpair},
        {"TextIOWrapper", VM_LIB_io_textiowrapper}, {"IncrementalNewlineDecoder", VM_LIB_io_nldecoder},
        {"UnsupportedOperation", VM_LIB_io_unsupported}, {NULL, 0}};
    for (int i = 0; types[i].n; i++)
        if (module_set(vm, mod, types[i].n, vm->lib[types[i].slot]) < 0) return -1;
    return module_set(vm, mod, "DEFAULT_BUFFER_SIZE", val_int(DEFAULT_BUFFER_SIZE)) < 0 ||
                   module_set(vm, mod, "BlockingIOError", val_obj(vm->e_BlockingIOError)) < 0
               ? -1
               : 0;
}
