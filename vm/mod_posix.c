/* vm/mod_posix.c — the posix module (what CPython's os.py imports as `from posix import *`):
 * path conversion (str / bytes / os.PathLike / fd, dir_fd, follow_symlinks), stat and
 * stat_result, file descriptors (open, read, write, close, lseek, fstat, dup, pipe, ...), the
 * file-system operations (mkdir, rmdir, unlink, rename, replace, link, symlink, readlink,
 * chmod, chown, utime, truncate, access), the working directory, the environment (environ as
 * bytes, putenv, unsetenv), and system information (getpid & co, uname, times, cpu_count,
 * get_terminal_size, urandom, strerror, umask, fspath, _have_functions).  Directory listing
 * is in mod_posix_dir.c, processes in mod_posix_proc.c. */
#include "vm/mod_posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sysexits.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "vm/buffer.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/structseq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

extern char **environ;

/* ---- argument conversion -------------------------------------------------------------------- */

/* os.fspath(v): str and bytes as they are, else type(v).__fspath__(v) which must give one. */
static Value fspath(VM *vm, Value v, bool *ok_type) {
    *ok_type = true;
    if (val_is_str(vm, v) || vm_isinstance_type(vm, v, vm->t_str) || vm_isinstance_type(vm, v, vm->t_bytes)) return v;
    TypeObj *t = vm_type_of(vm, v);
    Value m = type_lookup(vm, t, vm_intern_str(vm, "__fspath__"));
    if (val_is_null(m) || val_is_none(m)) {
        *ok_type = false;
        return val_null();
    }
    Value b = vm_bind_descriptor(vm, m, v, t);
    if (val_is_null(b)) return b;
    vm_push_root(vm, b);
    Value r = vm_call0(vm, b);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    if (!vm_isinstance_type(vm, r, vm->t_str) && !vm_isinstance_type(vm, r, vm->t_bytes))
        return vm_raise(vm, vm->e_TypeError, "expected %s.__fspath__() to return str or bytes, not %s",
                        t->name->data, vm_type_name(vm, r));
    return r;
}

int posix_path_arg(VM *vm, Value v, const char *fname, const char *argname, bool allow_fd, bool nullable,
                   PathArg *out) {
    out->path = NULL;
    out->fd = -1;
    out->is_bytes = false;
    out->object = v;
    out->converted = val_null();
    if (nullable && (val_is_none(v) || val_is_null(v))) {
        vm_push_root(vm, val_null());
        return 0;
    }
    if (allow_fd && val_is_intlike(v)) {
        int64_t fd = val_as_intlike(v);
        if (fd < INT_MIN || fd > INT_MAX) {
            vm_raise(vm, vm->e_OverflowError, "fd is greater than maximum");
            return -1;
        }
        out->fd = (int)fd;
        vm_push_root(vm, val_null());
        return 0;
    }
    bool ok_type;
    Value p = fspath(vm, v, &ok_type);
    if (!ok_type) {
        vm_raise(vm, vm->e_TypeError, "%s: %s should be string, bytes%s os.PathLike%s, not %s", fname, argname,
                 allow_fd ? "," : " or", allow_fd ? " or integer" : "", vm_type_name(vm, v));
        return -1;
    }
    if (val_is_null(p)) return -1;
    if (vm_isinstance_type(vm, p, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)p.as.o;
        if (memchr(b->data, 0, (size_t)b->len)) {
            vm_raise(vm, vm->e_ValueError, "%s: embedded null byte", fname);
            return -1;
        }
        out->is_bytes = true;
        out->path = (const char *)b->data;
        out->converted = p;
        vm_push_root(vm, p);
        return 0;
    }
    StrObj *s = AS_STR(p);
    if (memchr(s->data, 0, (size_t)s->len)) {
        vm_raise(vm, vm->e_ValueError, "%s: embedded null character in %s", fname, argname);
        return -1;
    }
    vm_push_root(vm, p);
    Value holder;
    const char *c = codec_fs_cstr(vm, s, &holder);
    if (!c) {
        vm_pop_root(vm);
        return -1;
    }
    out->converted = p;
    if (!val_is_null(holder)) {
        vm_pop_root(vm);
        vm_push_root(vm, holder);
        out->converted = holder;
    }
    out->path = c;
    return 0;
}

int posix_fd_arg(VM *vm, Value v, int *out) {
    int64_t fd;
    if (val_is_float(v)) {
        vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
        return -1;
    }
    if (vm_index(vm, v, &fd) < 0) return -1;
    if (fd < INT_MIN || fd > INT_MAX) {
        vm_raise(vm, vm->e_OverflowError, "fd is greater than maximum");
        return -1;
    }
    *out = (int)fd;
    return 0;
}

int posix_dir_fd_arg(VM *vm, Value v, int *out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = AT_FDCWD;
        return 0;
    }
    return posix_fd_arg(vm, v, out);
}

static int int_arg(VM *vm, Value v, int64_t dflt, int64_t *out) {
    if (val_is_null(v)) {
        *out = dflt;
        return 0;
    }
    if (val_is_float(v)) {
        vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
        return -1;
    }
    return vm_index(vm, v, out);
}

Value posix_error(VM *vm) { return vm_raise_oserror(vm, errno, val_null(), val_null()); }

void posix_write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}
Value posix_error_path(VM *vm, const PathArg *p) {
    return vm_raise_oserror(vm, errno, p->fd >= 0 && !p->path ? val_null() : p->object, val_null());
}
Value posix_error2(VM *vm, const PathArg *a, const PathArg *b) {
    return vm_raise_oserror(vm, errno, a->object, b->object);
}

Value posix_name(VM *vm, const char *s, int64_t n, bool like_bytes) {
    if (like_bytes) {
        BytesObj *b = bytes_new(vm, (const uint8_t *)s, n);
        return b ? val_obj(b) : val_null();
    }
    /* ASCII names (nearly all: listdir of the library directories at every import) decode to
     * themselves under utf-8 + surrogateescape; no codec call */
    int64_t i = 0;
    while (i < n && (unsigned char)s[i] < 0x80) i++;
    StrObj *r = i == n ? str_new(vm, s, n) : codec_fs_decode(vm, s, n);
    return r ? val_obj(r) : val_null();
}

/* ---- stat ------------------------------------------------------------------------------------- */

static const char *const stat_fields[] = {
    "st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size", NULL, NULL, NULL,
    "st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_blksize", "st_blocks",
    "st_rdev"};
static const StructSeqDesc stat_desc = {"os.stat_result", stat_fields, 19, 10};

Value posix_stat_result(VM *vm, const struct stat *st) {
    Value v[19];
    v[0] = val_int(st->st_mode);
    v[1] = val_int((int64_t)st->st_ino);
    v[2] = val_int((int64_t)st->st_dev);
    v[3] = val_int((int64_t)st->st_nlink);
    v[4] = val_int(st->st_uid);
    v[5] = val_int(st->st_gid);
    v[6] = val_int((int64_t)st->st_size);
    const struct timespec *ts[3] = {&st->st_atim, &st->st_mtim, &st->st_ctim};
    for (int i = 0; i < 3; i++) {
        v[7 + i] = val_int((int64_t)ts[i]->tv_sec);
        v[10 + i] = val_float((double)ts[i]->tv_sec + (double)ts[i]->tv_nsec * 1e-9);
        v[13 + i] = val_int((int64_t)ts[i]->tv_sec * 1000000000 + ts[i]->tv_nsec);
    }
    v[16] = val_int((int64_t)st->st_blksize);
    v[17] = val_int((int64_t)st->st_blocks);
    v[18] = val_int((int64_t)st->st_rdev);
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_stat_result]), v);
    return t ? val_obj(t) : val_null();
}

/* stat(path, *, dir_fd=None, follow_symlinks=True); lstat is follow_symlinks=False */
static Value p_stat(ARGS) {
    static const char *const names[] = {"path", "dir_fd", "follow_symlinks"};
    Value a[3];
    bool lstat_ = fn->data != NULL;
    if (native_parse_args(vm, lstat_ ? "lstat" : "stat", argc, argv, kw, 1, 1, names, lstat_ ? 2 : 3, a) < 0)
        return val_null();
    int dir_fd;
    bool follow;
    if (posix_dir_fd_arg(vm, a[1], &dir_fd) < 0 || native_bool_arg(vm, a[2], !lstat_, &follow) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], lstat_ ? "lstat" : "stat", "path", !lstat_, false, &p) < 0) return val_null();
    struct stat st;
    int rc;
    if (p.fd >= 0) rc = fstat(p.fd, &st);
    else rc = fstatat(dir_fd, p.path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
    Value r = rc < 0 ? posix_error_path(vm, &p) : posix_stat_result(vm, &st);
    vm_pop_root(vm);
    return r;
}

static Value p_fstat(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    struct stat st;
    if (fstat(fd, &st) < 0) return posix_error(vm);
    return posix_stat_result(vm, &st);
}

/* access(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True) */
static Value p_access(ARGS) {
    static const char *const names[] = {"path", "mode", "dir_fd", "effective_ids", "follow_symlinks"};
    Value a[5];
    if (native_parse_args(vm, "access", argc, argv, kw, 2, 2, names, 5, a) < 0) return val_null();
    int64_t mode;
    int dir_fd;
    bool eff, follow;
    if (int_arg(vm, a[1], 0, &mode) < 0 || posix_dir_fd_arg(vm, a[2], &dir_fd) < 0 ||
        native_bool_arg(vm, a[3], false, &eff) < 0 || native_bool_arg(vm, a[4], true, &follow) < 0)
        return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "access", "path", false, false, &p) < 0) return val_null();
    int flags = (eff ? AT_EACCESS : 0) | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
    int rc = faccessat(dir_fd, p.path, (int)mode, flags);
    vm_pop_root(vm);
    return val_bool(rc == 0);
}

/* ---- file descriptors --------------------------------------------------------------------------- */

/* open(path, flags, mode=0o777, *, dir_fd=None): non-inheritable, as CPython makes it */
static Value p_open(ARGS) {
    static const char *const names[] = {"path", "flags", "mode", "dir_fd"};
    Value a[4];
    if (native_parse_args(vm, "open", argc, argv, kw, 3, 2, names, 4, a) < 0) return val_null();
    int64_t flags, mode;
    int dir_fd;
    if (int_arg(vm, a[1], 0, &flags) < 0 || int_arg(vm, a[2], 0777, &mode) < 0 ||
        posix_dir_fd_arg(vm, a[3], &dir_fd) < 0)
        return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "open", "path", false, false, &p) < 0) return val_null();
    int fd;
    do fd = openat(dir_fd, p.path, (int)flags | O_CLOEXEC, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    Value r = fd < 0 ? posix_error_path(vm, &p) : val_int(fd);
    vm_pop_root(vm);
    return r;
}

static Value p_close(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    if (close(fd) < 0 && errno != EINTR) return posix_error(vm);
    return val_none();
}

static Value p_closerange(ARGS) {
    int lo, hi;
    if (posix_fd_arg(vm, argv[0], &lo) < 0 || posix_fd_arg(vm, argv[1], &hi) < 0) return val_null();
    for (int fd = lo < 0 ? 0 : lo; fd < hi; fd++) close(fd);
    return val_none();
}

static Value p_read(ARGS) {
    int fd;
    int64_t n;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || int_arg(vm, argv[1], 0, &n) < 0) return val_null();
    if (n < 0) {
        errno = EINVAL;
        return posix_error(vm);
    }
    char *buf = malloc(n ? (size_t)n : 1);
    if (!buf) return vm_no_memory(vm);
    ssize_t got;
    do got = read(fd, buf, (size_t)n);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        free(buf);
        return posix_error(vm);
    }
    BytesObj *b = bytes_new(vm, (const uint8_t *)buf, got);
    free(buf);
    return b ? val_obj(b) : val_null();
}

static Value p_write(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "write", &holder, &p, &n) < 0) return val_null();
    ssize_t w;
    do w = write(fd, p, (size_t)n);
    while (w < 0 && errno == EINTR);
    if (w < 0) return posix_error(vm);
    return val_int(w);
}

static Value p_lseek(ARGS) {
    int fd;
    int64_t pos, how;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || int_arg(vm, argv[1], 0, &pos) < 0 || int_arg(vm, argv[2], 0, &how) < 0)
        return val_null();
    off_t r = lseek(fd, (off_t)pos, (int)how);
    if (r < 0) return posix_error(vm);
    return val_int((int64_t)r);
}

static Value p_fsync(ARGS) {
    int fd;
    Value v = argv[0];
    if (!val_is_intlike(v)) {
        v = vm_call_method(vm, argv[0], "fileno", 0, NULL);
        if (val_is_null(v)) return v;
    }
    if (posix_fd_arg(vm, v, &fd) < 0) return val_null();
    if (fsync(fd) < 0) return posix_error(vm);
    return val_none();
}

static Value p_isatty(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    return val_bool(isatty(fd));
}

static Value p_ftruncate(ARGS) {
    int fd;
    int64_t len;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || int_arg(vm, argv[1], 0, &len) < 0) return val_null();
    if (ftruncate(fd, (off_t)len) < 0) return posix_error(vm);
    return val_none();
}

static Value p_truncate(ARGS) {
    int64_t len;
    if (int_arg(vm, argv[1], 0, &len) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, argv[0], "truncate", "path", true, false, &p) < 0) return val_null();
    int rc = p.fd >= 0 ? ftruncate(p.fd, (off_t)len) : truncate(p.path, (off_t)len);
    Value r = rc < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

static Value p_dup(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    int r = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (r < 0) return posix_error(vm);
    return val_int(r);
}

/* dup2(fd, fd2, inheritable=True) */
static Value p_dup2(ARGS) {
    static const char *const names[] = {"fd", "fd2", "inheritable"};
    Value a[3];
    if (native_parse_args(vm, "dup2", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    int fd, fd2;
    bool inh;
    if (posix_fd_arg(vm, a[0], &fd) < 0 || posix_fd_arg(vm, a[1], &fd2) < 0 || native_bool_arg(vm, a[2], true, &inh) < 0)
        return val_null();
    int r = inh ? dup2(fd, fd2) : dup3(fd, fd2, O_CLOEXEC);
    if (r < 0) return posix_error(vm);
    return val_int(r);
}

static Value p_pipe(ARGS) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) return posix_error(vm);
    TupleObj *t = tuple_pack(vm, 2, val_int(fds[0]), val_int(fds[1]));
    return t ? val_obj(t) : val_null();
}

static Value p_pipe2(ARGS) {
    int64_t flags;
    if (int_arg(vm, argv[0], 0, &flags) < 0) return val_null();
    int fds[2];
    if (pipe2(fds, (int)flags) < 0) return posix_error(vm);
    TupleObj *t = tuple_pack(vm, 2, val_int(fds[0]), val_int(fds[1]));
    return t ? val_obj(t) : val_null();
}

static Value p_get_inheritable(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    int f = fcntl(fd, F_GETFD);
    if (f < 0) return posix_error(vm);
    return val_bool(!(f & FD_CLOEXEC));
}

static Value p_set_inheritable(ARGS) {
    int fd;
    bool inh;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || native_bool_arg(vm, argv[1], false, &inh) < 0) return val_null();
    int f = fcntl(fd, F_GETFD);
    if (f < 0 || fcntl(fd, F_SETFD, inh ? (f & ~FD_CLOEXEC) : (f | FD_CLOEXEC)) < 0) return posix_error(vm);
    return val_none();
}

static Value p_get_blocking(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    int f = fcntl(fd, F_GETFL);
    if (f < 0) return posix_error(vm);
    return val_bool(!(f & O_NONBLOCK));
}

static Value p_set_blocking(ARGS) {
    int fd;
    bool blk;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || native_bool_arg(vm, argv[1], false, &blk) < 0) return val_null();
    int f = fcntl(fd, F_GETFL);
    if (f < 0 || fcntl(fd, F_SETFL, blk ? (f & ~O_NONBLOCK) : (f | O_NONBLOCK)) < 0) return posix_error(vm);
    return val_none();
}

static Value p_device_encoding(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    if (!isatty(fd)) return val_none();
    return vm_intern(vm, "UTF-8");
}

/* ---- file-system operations ------------------------------------------------------------------- */

/* mkdir(path, mode=0o777, *, dir_fd=None) */
static Value p_mkdir(ARGS) {
    static const char *const names[] = {"path", "mode", "dir_fd"};
    Value a[3];
    if (native_parse_args(vm, "mkdir", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    int64_t mode;
    int dir_fd;
    if (int_arg(vm, a[1], 0777, &mode) < 0 || posix_dir_fd_arg(vm, a[2], &dir_fd) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "mkdir", "path", false, false, &p) < 0) return val_null();
    Value r = mkdirat(dir_fd, p.path, (mode_t)mode) < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

/* rmdir / unlink / remove (path, *, dir_fd=None) */
static Value p_unlink_like(ARGS) {
    static const char *const names[] = {"path", "dir_fd"};
    Value a[2];
    bool dir = fn->data != NULL;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    int dir_fd;
    if (posix_dir_fd_arg(vm, a[1], &dir_fd) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], fn->name, "path", false, false, &p) < 0) return val_null();
    Value r = unlinkat(dir_fd, p.path, dir ? AT_REMOVEDIR : 0) < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

/* rename / replace (src, dst, *, src_dir_fd=None, dst_dir_fd=None) */
static Value p_rename(ARGS) {
    static const char *const names[] = {"src", "dst", "src_dir_fd", "dst_dir_fd"};
    Value a[4];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 2, 2, names, 4, a) < 0) return val_null();
    int sfd, dfd;
    if (posix_dir_fd_arg(vm, a[2], &sfd) < 0 || posix_dir_fd_arg(vm, a[3], &dfd) < 0) return val_null();
    PathArg s, d;
    if (posix_path_arg(vm, a[0], fn->name, "src", false, false, &s) < 0) return val_null();
    if (posix_path_arg(vm, a[1], fn->name, "dst", false, false, &d) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    Value r = renameat(sfd, s.path, dfd, d.path) < 0 ? posix_error2(vm, &s, &d) : val_none();
    vm_pop_roots(vm, 2);
    return r;
}

/* link(src, dst, *, src_dir_fd=None, dst_dir_fd=None, follow_symlinks=True) */
static Value p_link(ARGS) {
    static const char *const names[] = {"src", "dst", "src_dir_fd", "dst_dir_fd", "follow_symlinks"};
    Value a[5];
    if (native_parse_args(vm, "link", argc, argv, kw, 2, 2, names, 5, a) < 0) return val_null();
    int sfd, dfd;
    bool follow;
    if (posix_dir_fd_arg(vm, a[2], &sfd) < 0 || posix_dir_fd_arg(vm, a[3], &dfd) < 0 ||
        native_bool_arg(vm, a[4], true, &follow) < 0)
        return val_null();
    PathArg s, d;
    if (posix_path_arg(vm, a[0], "link", "src", false, false, &s) < 0) return val_null();
    if (posix_path_arg(vm, a[1], "link", "dst", false, false, &d) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    Value r = linkat(sfd, s.path, dfd, d.path, follow ? AT_SYMLINK_FOLLOW : 0) < 0 ? posix_error2(vm, &s, &d)
                                                                                    : val_none();
    vm_pop_roots(vm, 2);
    return r;
}

/* symlink(src, dst, target_is_directory=False, *, dir_fd=None) */
static Value p_symlink(ARGS) {
    static const char *const names[] = {"src", "dst", "target_is_directory", "dir_fd"};
    Value a[4];
    if (native_parse_args(vm, "symlink", argc, argv, kw, 3, 2, names, 4, a) < 0) return val_null();
    int dir_fd;
    if (posix_dir_fd_arg(vm, a[3], &dir_fd) < 0) return val_null();
    PathArg s, d;
    if (posix_path_arg(vm, a[0], "symlink", "src", false, false, &s) < 0) return val_null();
    if (posix_path_arg(vm, a[1], "symlink", "dst", false, false, &d) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    Value r = symlinkat(s.path, dir_fd, d.path) < 0 ? posix_error2(vm, &s, &d) : val_none();
    vm_pop_roots(vm, 2);
    return r;
}

/* readlink(path, *, dir_fd=None) */
static Value p_readlink(ARGS) {
    static const char *const names[] = {"path", "dir_fd"};
    Value a[2];
    if (native_parse_args(vm, "readlink", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    int dir_fd;
    if (posix_dir_fd_arg(vm, a[1], &dir_fd) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "readlink", "path", false, false, &p) < 0) return val_null();
    char buf[PATH_MAX];
    ssize_t n = readlinkat(dir_fd, p.path, buf, sizeof buf);
    Value r = n < 0 ? posix_error_path(vm, &p) : posix_name(vm, buf, n, p.is_bytes);
    vm_pop_root(vm);
    return r;
}

/* chmod(path, mode, *, dir_fd=None, follow_symlinks=True) */
static Value p_chmod(ARGS) {
    static const char *const names[] = {"path", "mode", "dir_fd", "follow_symlinks"};
    Value a[4];
    if (native_parse_args(vm, "chmod", argc, argv, kw, 2, 2, names, 4, a) < 0) return val_null();
    int64_t mode;
    int dir_fd;
    bool follow;
    if (int_arg(vm, a[1], 0, &mode) < 0 || posix_dir_fd_arg(vm, a[2], &dir_fd) < 0 ||
        native_bool_arg(vm, a[3], true, &follow) < 0)
        return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "chmod", "path", true, false, &p) < 0) return val_null();
    int rc;
    if (p.fd >= 0) rc = fchmod(p.fd, (mode_t)mode);
    else {
        rc = fchmodat(dir_fd, p.path, (mode_t)mode, follow ? 0 : AT_SYMLINK_NOFOLLOW);
        if (rc < 0 && !follow && (errno == ENOTSUP || errno == EOPNOTSUPP)) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_NotImplementedError, "chmod: follow_symlinks unavailable on this platform");
        }
    }
    Value r = rc < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

static Value p_fchmod(ARGS) {
    int fd;
    int64_t mode;
    if (posix_fd_arg(vm, argv[0], &fd) < 0 || int_arg(vm, argv[1], 0, &mode) < 0) return val_null();
    if (fchmod(fd, (mode_t)mode) < 0) return posix_error(vm);
    return val_none();
}

/* chown(path, uid, gid, *, dir_fd=None, follow_symlinks=True); lchown(path, uid, gid) */
static Value p_chown(ARGS) {
    static const char *const names[] = {"path", "uid", "gid", "dir_fd", "follow_symlinks"};
    Value a[5];
    bool l = fn->data != NULL;
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 3, names, l ? 3 : 5, a) < 0) return val_null();
    int64_t uid, gid;
    int dir_fd;
    bool follow;
    if (int_arg(vm, a[1], 0, &uid) < 0 || int_arg(vm, a[2], 0, &gid) < 0 || posix_dir_fd_arg(vm, a[3], &dir_fd) < 0 ||
        native_bool_arg(vm, a[4], !l, &follow) < 0)
        return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], fn->name, "path", !l, false, &p) < 0) return val_null();
    int rc = p.fd >= 0 ? fchown(p.fd, (uid_t)uid, (gid_t)gid)
                       : fchownat(dir_fd, p.path, (uid_t)uid, (gid_t)gid, follow ? 0 : AT_SYMLINK_NOFOLLOW);
    Value r = rc < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

static int time_to_ts(VM *vm, Value v, struct timespec *ts) {
    if (val_is_intlike(v)) {
        ts->tv_sec = val_as_intlike(v);
        ts->tv_nsec = 0;
        return 0;
    }
    double d;
    if (vm_to_double(vm, v, &d) < 0) return -1;
    double sec = floor(d);
    ts->tv_sec = (time_t)sec;
    ts->tv_nsec = (long)((d - sec) * 1e9 + 0.5);
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
    return 0;
}

/* utime(path, times=None, *, ns=None, dir_fd=None, follow_symlinks=True) */
static Value p_utime(ARGS) {
    static const char *const names[] = {"path", "times", "ns", "dir_fd", "follow_symlinks"};
    Value a[5];
    if (native_parse_args(vm, "utime", argc, argv, kw, 2, 1, names, 5, a) < 0) return val_null();
    int dir_fd;
    bool follow;
    if (posix_dir_fd_arg(vm, a[3], &dir_fd) < 0 || native_bool_arg(vm, a[4], true, &follow) < 0) return val_null();
    struct timespec ts[2], *tsp = NULL;
    bool has_times = !val_is_null(a[1]) && !val_is_none(a[1]), has_ns = !val_is_null(a[2]);
    if (has_times && has_ns)
        return vm_raise(vm, vm->e_ValueError, "utime: you may specify either 'times' or 'ns' but not both");
    if (has_times) {
        if (!vm_isinstance_type(vm, a[1], vm->t_tuple) || AS_TUPLE(a[1])->len != 2)
            return vm_raise(vm, vm->e_TypeError, "utime: 'times' must be either a tuple of two ints or None");
        if (time_to_ts(vm, AS_TUPLE(a[1])->items[0], &ts[0]) < 0 || time_to_ts(vm, AS_TUPLE(a[1])->items[1], &ts[1]) < 0)
            return val_null();
        tsp = ts;
    } else if (has_ns) {
        if (!vm_isinstance_type(vm, a[2], vm->t_tuple) || AS_TUPLE(a[2])->len != 2)
            return vm_raise(vm, vm->e_TypeError, "utime: 'ns' must be a tuple of two ints");
        for (int i = 0; i < 2; i++) {
            int64_t ns;
            if (int_arg(vm, AS_TUPLE(a[2])->items[i], 0, &ns) < 0) return val_null();
            ts[i].tv_sec = ns / 1000000000;
            ts[i].tv_nsec = ns % 1000000000;
            if (ts[i].tv_nsec < 0) {
                ts[i].tv_sec--;
                ts[i].tv_nsec += 1000000000;
            }
        }
        tsp = ts;
    }
    PathArg p;
    if (posix_path_arg(vm, a[0], "utime", "path", true, false, &p) < 0) return val_null();
    int rc = p.fd >= 0 ? futimens(p.fd, tsp) : utimensat(dir_fd, p.path, tsp, follow ? 0 : AT_SYMLINK_NOFOLLOW);
    Value r = rc < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

/* ---- working directory --------------------------------------------------------------------- */

static Value p_getcwd(ARGS) {
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf)) return posix_error(vm);
    return posix_name(vm, buf, (int64_t)strlen(buf), fn->data != NULL);
}

static Value p_chdir(ARGS) {
    PathArg p;
    if (posix_path_arg(vm, argv[0], "chdir", "path", true, false, &p) < 0) return val_null();
    int rc = p.fd >= 0 ? fchdir(p.fd) : chdir(p.path);
    Value r = rc < 0 ? posix_error_path(vm, &p) : val_none();
    vm_pop_root(vm);
    return r;
}

static Value p_fchdir(ARGS) {
    int fd;
    if (posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    if (fchdir(fd) < 0) return posix_error(vm);
    return val_none();
}

/* ---- environment ---------------------------------------------------------------------------- */

static DictObj *make_environ(VM *vm) {
    DictObj *d = dict_new(vm);
    if (!d) return NULL;
    vm_push_root(vm, val_obj(d));
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        BytesObj *k = bytes_new(vm, (const uint8_t *)*e, eq - *e);
        if (!k) goto fail;
        vm_push_root(vm, val_obj(k));
        BytesObj *v = bytes_new(vm, (const uint8_t *)eq + 1, (int64_t)strlen(eq + 1));
        if (!v) {
            vm_pop_root(vm);
            goto fail;
        }
        vm_push_root(vm, val_obj(v));
        /* the first definition wins, as CPython's convertenviron keeps it */
        Value old;
        int rc = dict_lookup(vm, d, val_obj(k), &old);
        if (rc == 0) rc = dict_set(vm, d, val_obj(k), val_obj(v));
        vm_pop_roots(vm, 2);
        if (rc < 0) goto fail;
    }
    vm_pop_root(vm);
    return d;
fail:
    vm_pop_root(vm);
    return NULL;
}

static int env_arg(VM *vm, Value v, const char *what, Value *holder, const char **out) {
    if (vm_isinstance_type(vm, v, vm->t_bytes)) {
        *holder = val_null();
        *out = (const char *)((BytesObj *)v.as.o)->data;
        if (memchr(*out, 0, (size_t)((BytesObj *)v.as.o)->len)) {
            vm_raise(vm, vm->e_ValueError, "embedded null byte");
            return -1;
        }
        return 0;
    }
    if (!vm_isinstance_type(vm, v, vm->t_str)) {
        vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s", vm_type_name(vm, v));
        return -1;
    }
    if (memchr(AS_STR(v)->data, 0, (size_t)AS_STR(v)->len)) {
        vm_raise(vm, vm->e_ValueError, "embedded null character");
        return -1;
    }
    *out = codec_fs_cstr(vm, AS_STR(v), holder);
    return *out ? 0 : -1;
}

static Value p_putenv(ARGS) {
    Value h1, h2;
    const char *k, *v;
    if (env_arg(vm, argv[0], "name", &h1, &k) < 0) return val_null();
    vm_push_root(vm, h1);
    if (env_arg(vm, argv[1], "value", &h2, &v) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_pop_root(vm);
    if (!*k || strchr(k, '=')) return vm_raise(vm, vm->e_ValueError, "illegal environment variable name");
    if (setenv(k, v, 1) < 0) return posix_error(vm);
    return val_none();
}

static Value p_unsetenv(ARGS) {
    Value h;
    const char *k;
    if (env_arg(vm, argv[0], "name", &h, &k) < 0) return val_null();
    if (!*k || strchr(k, '=')) return vm_raise(vm, vm->e_ValueError, "illegal environment variable name");
    if (unsetenv(k) < 0) return posix_error(vm);
    return val_none();
}

/* ---- system information --------------------------------------------------------------------- */

static Value p_getid(ARGS) {
    switch ((intptr_t)fn->data) {
    case 0: return val_int(getpid());
    case 1: return val_int(getppid());
    case 2: return val_int(getuid());
    case 3: return val_int(geteuid());
    case 4: return val_int(getgid());
    case 5: return val_int(getegid());
    default: return val_int(getpgrp());
    }
}

static Value p_getgroups(ARGS) {
    gid_t g[256];
    int n = getgroups(256, g);
    if (n < 0) return posix_error(vm);
    ListObj *l = list_new(vm, n);
    if (!l) return val_null();
    for (int i = 0; i < n; i++) l->items[i] = val_int(g[i]);
    l->len = n;
    return val_obj(l);
}

static Value p_getlogin(ARGS) {
    const char *n = getlogin();
    if (!n) return posix_error(vm);
    return posix_name(vm, n, (int64_t)strlen(n), false);
}

static Value p_umask(ARGS) {
    int64_t m;
    if (int_arg(vm, argv[0], 0, &m) < 0) return val_null();
    return val_int(umask((mode_t)m));
}

static const char *const uname_fields[] = {"sysname", "nodename", "release", "version", "machine"};
static const StructSeqDesc uname_desc = {"posix.uname_result", uname_fields, 5, 5};

static Value p_uname(ARGS) {
    struct utsname u;
    if (uname(&u) < 0) return posix_error(vm);
    const char *parts[5] = {u.sysname, u.nodename, u.release, u.version, u.machine};
    Value v[5];
    for (int i = 0; i < 5; i++) {
        v[i] = posix_name(vm, parts[i], (int64_t)strlen(parts[i]), false);
        if (val_is_null(v[i])) {
            vm_pop_roots(vm, i);
            return v[i];
        }
        vm_push_root(vm, v[i]);
    }
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_uname_result]), v);
    vm_pop_roots(vm, 5);
    return t ? val_obj(t) : val_null();
}

static const char *const times_fields[] = {"user", "system", "children_user", "children_system", "elapsed"};
static const StructSeqDesc times_desc = {"posix.times_result", times_fields, 5, 5};

static Value p_times(ARGS) {
    struct tms t;
    clock_t c = times(&t);
    if (c == (clock_t)-1) return posix_error(vm);
    double tick = (double)sysconf(_SC_CLK_TCK);
    Value v[5] = {val_float((double)t.tms_utime / tick), val_float((double)t.tms_stime / tick),
                  val_float((double)t.tms_cutime / tick), val_float((double)t.tms_cstime / tick),
                  val_float((double)c / tick)};
    TupleObj *r = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_times_result]), v);
    return r ? val_obj(r) : val_null();
}

static Value p_cpu_count(ARGS) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? val_none() : val_int(n);
}

static const char *const tsize_fields[] = {"columns", "lines"};
static const StructSeqDesc tsize_desc = {"os.terminal_size", tsize_fields, 2, 2};

static Value p_get_terminal_size(ARGS) {
    int fd = 1;
    if (argc > 0 && posix_fd_arg(vm, argv[0], &fd) < 0) return val_null();
    struct winsize w;
    if (ioctl(fd, TIOCGWINSZ, &w) < 0) return posix_error(vm);
    Value v[2] = {val_int(w.ws_col), val_int(w.ws_row)};
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_terminal_size]), v);
    return t ? val_obj(t) : val_null();
}

static Value p_urandom(ARGS) {
    int64_t n;
    if (int_arg(vm, argv[0], 0, &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "negative argument not allowed");
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) return vm_no_memory(vm);
    int64_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, (size_t)(n - got), 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            free(buf);
            return posix_error(vm);
        }
        got += r;
    }
    BytesObj *b = bytes_new(vm, buf, n);
    free(buf);
    return b ? val_obj(b) : val_null();
}

static Value p_strerror(ARGS) {
    int64_t code;
    if (int_arg(vm, argv[0], 0, &code) < 0) return val_null();
    StrObj *s = str_from_c(vm, strerror((int)code));
    return s ? val_obj(s) : val_null();
}

Value posix_fspath(VM *vm, Value v) {
    bool ok;
    Value r = fspath(vm, v, &ok);
    if (!ok)
        return vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s", vm_type_name(vm, v));
    return r;
}

static Value p_fspath(ARGS) {
    static const char *const names[] = {"path"};
    Value a[1];
    if (native_parse_args(vm, "fspath", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    return posix_fspath(vm, a[0]);
}

static Value p_getloadavg(ARGS) {
    double l[3];
    if (getloadavg(l, 3) != 3) return vm_raise(vm, vm->e_OSError, "Load averages are unobtainable");
    TupleObj *t = tuple_pack(vm, 3, val_float(l[0]), val_float(l[1]), val_float(l[2]));
    return t ? val_obj(t) : val_null();
}

/* ---- module ---------------------------------------------------------------------------------- */

static int add_consts(VM *vm, Value mod) {
#define C(n) {#n, n}
    static const struct { const char *name; long v; } consts[] = {
        C(O_RDONLY), C(O_WRONLY), C(O_RDWR), C(O_APPEND), C(O_CREAT), C(O_EXCL), C(O_TRUNC), C(O_NONBLOCK),
        C(O_NDELAY), C(O_SYNC), C(O_DSYNC), C(O_RSYNC), C(O_NOCTTY), C(O_CLOEXEC), C(O_DIRECTORY), C(O_NOFOLLOW),
        C(O_ACCMODE), C(O_ASYNC), C(O_DIRECT), C(O_LARGEFILE), C(O_NOATIME), C(O_PATH), C(O_TMPFILE),
        C(F_OK), C(R_OK), C(W_OK), C(X_OK), C(F_LOCK), C(F_TLOCK), C(F_ULOCK), C(F_TEST),
        C(SEEK_SET), C(SEEK_CUR), C(SEEK_END), C(SEEK_DATA), C(SEEK_HOLE),
        C(EX_OK), C(EX_USAGE), C(EX_DATAERR), C(EX_NOINPUT), C(EX_NOUSER), C(EX_NOHOST), C(EX_UNAVAILABLE),
        C(EX_SOFTWARE), C(EX_OSERR), C(EX_OSFILE), C(EX_CANTCREAT), C(EX_IOERR), C(EX_TEMPFAIL), C(EX_PROTOCOL),
        C(EX_NOPERM), C(EX_CONFIG), C(GRND_NONBLOCK), C(GRND_RANDOM), C(NGROUPS_MAX), C(TMP_MAX),
        C(PRIO_PROCESS), C(PRIO_PGRP), C(PRIO_USER), C(ST_RDONLY), C(ST_NOSUID),
        {NULL, 0}};
#undef C
    for (int i = 0; consts[i].name; i++)
        if (module_set(vm, mod, consts[i].name, val_int(consts[i].v)) < 0) return -1;
    return 0;
}

/* the HAVE_* names os.py turns into supports_dir_fd / supports_fd / supports_follow_symlinks,
 * for the forms this module implements */
static const char *const have_functions[] = {
    "HAVE_FACCESSAT", "HAVE_FCHDIR", "HAVE_FCHMOD", "HAVE_FCHMODAT", "HAVE_FCHOWN", "HAVE_FCHOWNAT",
    "HAVE_FDOPENDIR", "HAVE_FSTATAT", "HAVE_FTRUNCATE", "HAVE_FUTIMENS", "HAVE_LINKAT", "HAVE_LSTAT",
    "HAVE_MKDIRAT", "HAVE_OPENAT", "HAVE_READLINKAT", "HAVE_RENAMEAT", "HAVE_SYMLINKAT", "HAVE_UNLINKAT",
    "HAVE_UTIMENSAT", NULL};

int posix_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"stat", p_stat}, {"lstat", p_stat, 0, (void *)1}, {"fstat", p_fstat, ARITY_O},
        {"access", p_access}, {"open", p_open}, {"close", p_close, ARITY_O}, {"closerange", p_closerange, ARITY_POS(2, 2)},
        {"read", p_read, ARITY_POS(2, 2)}, {"write", p_write, ARITY_POS(2, 2)}, {"lseek", p_lseek, ARITY_POS(3, 3)},
        {"fsync", p_fsync, ARITY_O}, {"isatty", p_isatty, ARITY_O}, {"ftruncate", p_ftruncate, ARITY_POS(2, 2)},
        {"truncate", p_truncate, ARITY_POS(2, 2)}, {"dup", p_dup, ARITY_O}, {"dup2", p_dup2},
        {"pipe", p_pipe, ARITY_NOARGS}, {"pipe2", p_pipe2, ARITY_O}, {"get_inheritable", p_get_inheritable, ARITY_O},
        {"set_inheritable", p_set_inheritable, ARITY_POS(2, 2)}, {"get_blocking", p_get_blocking, ARITY_O},
        {"set_blocking", p_set_blocking, ARITY_POS(2, 2)}, {"device_encoding", p_device_encoding, ARITY_O},
        {"mkdir", p_mkdir}, {"rmdir", p_unlink_like, 0, (void *)1}, {"unlink", p_unlink_like},
        {"remove", p_unlink_like}, {"rename", p_rename}, {"replace", p_rename}, {"link", p_link},
        {"symlink", p_symlink}, {"readlink", p_readlink}, {"chmod", p_chmod}, {"fchmod", p_fchmod, ARITY_POS(2, 2)},
        {"chown", p_chown}, {"lchown", p_chown, 0, (void *)1}, {"utime", p_utime},
        {"getcwd", p_getcwd, ARITY_NOARGS}, {"getcwdb", p_getcwd, ARITY_NOARGS, (void *)1},
        {"chdir", p_chdir, ARITY_O}, {"fchdir", p_fchdir, ARITY_O}, {"putenv", p_putenv, ARITY_POS(2, 2)},
        {"unsetenv", p_unsetenv, ARITY_O}, {"getpid", p_getid, ARITY_NOARGS, (void *)0},
        {"getppid", p_getid, ARITY_NOARGS, (void *)1}, {"getuid", p_getid, ARITY_NOARGS, (void *)2},
        {"geteuid", p_getid, ARITY_NOARGS, (void *)3}, {"getgid", p_getid, ARITY_NOARGS, (void *)4},
        {"getegid", p_getid, ARITY_NOARGS, (void *)5}, {"getpgrp", p_getid, ARITY_NOARGS, (void *)6},
        {"getgroups", p_getgroups, ARITY_NOARGS}, {"getlogin", p_getlogin, ARITY_NOARGS},
        {"umask", p_umask, ARITY_O}, {"uname", p_uname, ARITY_NOARGS}, {"times", p_times, ARITY_NOARGS},
        {"cpu_count", p_cpu_count, ARITY_NOARGS}, {"get_terminal_size", p_get_terminal_size, ARITY_POS(0, 1)},
        {"urandom", p_urandom, ARITY_O}, {"strerror", p_strerror, ARITY_O}, {"fspath", p_fspath},
        {"getloadavg", p_getloadavg, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || add_consts(vm, mod) < 0) return -1;
    static const struct { const StructSeqDesc *d; VmLibSlot slot; const char *attr; } types[] = {
        {&stat_desc, VM_LIB_stat_result, "stat_result"}, {&uname_desc, VM_LIB_uname_result, "uname_result"},
        {&times_desc, VM_LIB_times_result, "times_result"}, {&tsize_desc, VM_LIB_terminal_size, "terminal_size"}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (val_is_null(vm->lib[types[i].slot])) {
            TypeObj *t = structseq_new_type(vm, types[i].d);
            if (!t) return -1;
            vm->lib[types[i].slot] = val_obj(t);
        }
        if (module_set(vm, mod, types[i].attr, vm->lib[types[i].slot]) < 0) return -1;
    }
    DictObj *env = make_environ(vm);
    if (!env || module_set(vm, mod, "environ", val_obj(env)) < 0) return -1;
    ListObj *have = list_new(vm, 0);
    if (!have || module_set(vm, mod, "_have_functions", val_obj(have)) < 0) return -1;
    for (int i = 0; have_functions[i]; i++)
        if (list_append(vm, have, vm_intern(vm, have_functions[i])) < 0) return -1;
    return posix_dir_init(vm, mod) < 0 || posix_proc_init(vm, mod) < 0 ? -1 : 0;
}
