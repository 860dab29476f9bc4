/* vm/mod_posix.h — what the three files of the posix module share: path and fd argument
 * conversion with CPython's rules and messages, the stat_result builder, and the init
 * functions of the parts (mod_posix.c: files, directories, environment, system information;
 * mod_posix_dir.c: listdir, scandir, DirEntry; mod_posix_proc.c: processes). */
#ifndef EMBER_VM_MOD_POSIX_H
#define EMBER_VM_MOD_POSIX_H

#include <sys/stat.h>

#include "vm/vm.h"

/* A converted path argument (CPython's path_t). */
typedef struct PathArg {
    const char *path;    /* NUL-terminated, or NULL when an fd (or None) was given */
    int fd;              /* -1 unless an int was given and allowed */
    bool is_bytes;       /* the argument was bytes: results are bytes too */
    Value object;        /* the argument as given (for OSError.filename) */
    Value converted;     /* the rooted object path points into (VAL_NULL for fd / None) */
} PathArg;

/* Convert v (str, bytes, os.PathLike; int when allow_fd; None when nullable → path NULL).
 * On success pushes exactly one GC root (the converted object) that the caller pops after the
 * last use of out->path; on failure pushes nothing and raises TypeError / ValueError. */
int posix_path_arg(VM *vm, Value v, const char *fname, const char *argname, bool allow_fd, bool nullable,
                   PathArg *out) EM_MUST_CHECK;
/* os.fspath(v): str or bytes, or VAL_NULL + TypeError. */
Value posix_fspath(VM *vm, Value v);
/* An fd argument (int or an object with fileno()... CPython accepts only ints here). */
int posix_fd_arg(VM *vm, Value v, int *out) EM_MUST_CHECK;
/* dir_fd=None → AT_FDCWD. */
int posix_dir_fd_arg(VM *vm, Value v, int *out) EM_MUST_CHECK;
/* The OSError for errno after a failed call on path (VAL_NULL returned). */
Value posix_error_path(VM *vm, const PathArg *p);
Value posix_error2(VM *vm, const PathArg *a, const PathArg *b);
Value posix_error(VM *vm);
/* write(2) all of s, retrying interrupted writes, stopping quietly on an error: no allocation,
 * no exception, so a forked child and a signal handler may call it. */
void posix_write_all(int fd, const char *s, size_t n);
/* A name as str, or as bytes when like_bytes (listdir/readlink results). */
Value posix_name(VM *vm, const char *s, int64_t n, bool like_bytes);

/* os.stat_result for st (the type lives in the VM's posix state). */
Value posix_stat_result(VM *vm, const struct stat *st);

int posix_dir_init(VM *vm, Value mod);
int posix_proc_init(VM *vm, Value mod);

#endif
