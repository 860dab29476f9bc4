/* vm/mod_io.h — the _io module's shared layout and helpers.  CPython's io.py builds on _io
 * exactly as on CPython's C module: the abstract bases _IOBase, _RawIOBase, _BufferedIOBase,
 * _TextIOBase, and FileIO, BytesIO, StringIO, BufferedReader / Writer / Random / RWPair,
 * TextIOWrapper, IncrementalNewlineDecoder, open, open_code, text_encoding.
 *
 * Files: mod_io.c (module, bases, FileIO, open, the standard streams), mod_io_buffered.c
 * (BytesIO and the buffered classes), mod_io_text.c (TextIOWrapper, StringIO, the newline
 * decoder).
 *
 * The standard streams are ordinary TextIOWrapper / BufferedWriter / FileIO objects whose
 * FileIO writes through the C library's stdout / stderr (FileIOObj.stdio), and whose buffered
 * layer passes writes straight down: the C stream is then the one buffer, shared with the C
 * code that prints (tracer logs, tracebacks), so output stays in order; print() to them
 * writes there directly. */
#ifndef EMBER_VM_MOD_IO_H
#define EMBER_VM_MOD_IO_H

#include <stdio.h>

#include "vm/str.h"
#include "vm/vm.h"

enum { IOF_CLOSED = 1 };

/* The header every _io object (and every subclass instance) starts with. */
typedef struct IOObj {
    Obj hdr;
    DictObj *dict;
    uint32_t flags;
    int32_t stream_slot;   /* 1 + index in vm->io_streams (text wrappers, buffered files), 0: none */
} IOObj;

typedef struct FileIOObj {
    IOObj io;
    int fd;
    bool readable, writable, appending, created, closefd;
    int seekable;        /* -1 not yet known */
    int64_t blksize;
    FILE *stdio;         /* standard streams: write through this C stream */
} FileIOObj;

typedef struct BufferedObj {
    IOObj io;
    Value raw;
    bool readable, writable, detached, passthrough;
    uint8_t *buf;        /* buffer_size bytes */
    int64_t size;
    int64_t rpos, rlen;  /* read window buf[rpos..rlen) */
    int64_t wlen;        /* pending write bytes buf[0..wlen) */
    int64_t abs_pos;     /* the raw stream's position, -1 unknown */
} BufferedObj;

#define IO(v) ((IOObj *)(v).as.o)

/* 0 open, -1 + ValueError "I/O operation on closed file." (msg NULL) or msg */
int io_check_closed(VM *vm, Value self) EM_MUST_CHECK;
/* self.closed through the attribute (subclasses may override it) */
int io_is_closed(VM *vm, Value self);
Value io_unsupported(VM *vm, const char *msg);
/* Instances of _io types: zeroed, with an attribute dict. */
Value io_alloc(VM *vm, TypeObj *t);
void io_trace(VM *vm, Obj *o);
/* The _io type named `name` (a VM_LIB slot). */
TypeObj *io_type(VM *vm, int slot);

int io_buffered_init(VM *vm, Value mod, TypeObj *bufbase);
int io_text_init(VM *vm, Value mod, TypeObj *textbase);

/* The TextIOWrapper write path print() takes for a C-backed stream: 1 handled, 0 not such a
 * stream (use write()), -1 error. */
int io_text_write_fast(VM *vm, Value stream, const char *s, int64_t n);
/* A TextIOWrapper over BufferedWriter/Reader over FileIO(fd), writing through stdio when
 * given: the standard streams. */
Value io_std_stream(VM *vm, int fd, FILE *stdio, const char *mode, const char *errors, bool line_buffering);

/* Interpreter shutdown: flush every open text / buffered stream (after atexit). */
void io_shutdown(VM *vm);
/* The streams io_shutdown flushes are registered when allocated and dropped by their finalizer
 * (a list instead of a walk of the whole heap at exit). */
Value io_alloc_stream(VM *vm, TypeObj *t);
void io_unregister_stream(VM *vm, Obj *o);

#endif
