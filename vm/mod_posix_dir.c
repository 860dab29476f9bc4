/* vm/mod_posix_dir.c — directory listing for the posix module: listdir(path='.'),
 * scandir(path='.') with its iterator (a context manager that closes the directory) and
 * DirEntry (name, path, inode(), is_dir(), is_file(), is_symlink(), stat() — answered from
 * readdir's d_type when it can be, with the stat results cached, as CPython does).  Both take
 * a directory fd too (then entries' paths are bare names and stats are relative to it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/import.h"
#include "vm/gc.h"
#include "vm/mod_posix.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* Open path (or a dup of fd) for reading entries; NULL + OSError. */
static DIR *open_dir(VM *vm, const PathArg *p) {
    DIR *d;
    if (p->fd >= 0) {
        int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            posix_error(vm);
            return NULL;
        }
        d = fdopendir(fd);
        if (!d) {
            close(fd);
            posix_error(vm);
            return NULL;
        }
        rewinddir(d);
        return d;
    }
    d = opendir(p->path ? p->path : ".");
    if (!d) posix_error_path(vm, p);
    return d;
}

static bool dot_or_dotdot(const char *n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

/* listdir(path=None) */
static Value p_listdir(ARGS) {
    static const char *const names[] = {"path"};
    Value a[1];
    if (native_parse_args(vm, "listdir", argc, argv, kw, 1, 0, names, 1, a) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, val_is_null(a[0]) ? val_none() : a[0], "listdir", "path", true, true, &p) < 0)
        return val_null();
    if (!p.path && p.fd < 0) p.object = val_none();
    DIR *d = open_dir(vm, &p);
    if (!d) {
        vm_pop_root(vm);
        return val_null();
    }
    ListObj *l = list_new(vm, 0);
    if (!l) goto fail;
    vm_push_root(vm, val_obj(l));
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno) {
                posix_error_path(vm, &p);
                vm_pop_root(vm);
                goto fail;
            }
            break;
        }
        if (dot_or_dotdot(e->d_name)) continue;
        Value n = posix_name(vm, e->d_name, (int64_t)strlen(e->d_name), p.is_bytes);
        if (val_is_null(n) || list_append(vm, l, n) < 0) {
            vm_pop_root(vm);
            goto fail;
        }
    }
    closedir(d);
    vm_pop_roots(vm, 2);
    return val_obj(l);
fail:
    closedir(d);
    vm_pop_root(vm);
    return val_null();
}

/* ---- DirEntry ------------------------------------------------------------------------------ */

typedef struct DirEntryObj {
    Obj hdr;
    Value name, path;        /* str or bytes */
    Value stat, lstat;       /* cached stat_results, VAL_NULL until asked */
    unsigned char d_type;
    ino_t d_ino;
    int dir_fd;              /* the scandir fd for fd scans, else -1 */
} DirEntryObj;

static void entry_trace(VM *vm, Obj *o) {
    DirEntryObj *e = (DirEntryObj *)o;
    gc_mark_value(vm, e->name);
    gc_mark_value(vm, e->path);
    gc_mark_value(vm, e->stat);
    gc_mark_value(vm, e->lstat);
}

#define ENTRY(v) ((DirEntryObj *)(v).as.o)

static Value entry_fetch_stat(VM *vm, DirEntryObj *e, bool follow) {
    PathArg p;
    if (posix_path_arg(vm, e->path, "stat", "path", false, false, &p) < 0) return val_null();
    struct stat st;
    int rc = e->dir_fd >= 0 ? fstatat(e->dir_fd, p.path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW)
                            : follow ? stat(p.path, &st) : lstat(p.path, &st);
    vm_pop_root(vm);
    if (rc < 0) return vm_raise_oserror(vm, errno, e->path, val_null());
    return posix_stat_result(vm, &st);
}

static Value entry_get_lstat(VM *vm, DirEntryObj *e) {
    if (val_is_null(e->lstat)) {
        Value s = entry_fetch_stat(vm, e, false);
        if (val_is_null(s)) return s;
        e->lstat = s;
    }
    return e->lstat;
}

static int entry_is_symlink(VM *vm, DirEntryObj *e) {
    if (e->d_type != DT_UNKNOWN) return e->d_type == DT_LNK;
    Value s = entry_get_lstat(vm, e);
    if (val_is_null(s)) return -1;
    return S_ISLNK(val_as_intlike(AS_TUPLE(s)->items[0]));
}

static Value entry_get_stat(VM *vm, DirEntryObj *e, bool follow) {
    if (!follow) return entry_get_lstat(vm, e);
    if (val_is_null(e->stat)) {
        int link = entry_is_symlink(vm, e);
        if (link < 0) return val_null();
        Value s = link ? entry_fetch_stat(vm, e, true) : entry_get_lstat(vm, e);
        if (val_is_null(s)) return s;
        e->stat = s;
    }
    return e->stat;
}

static int follow_kw(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, bool *follow) {
    static const char *const names[] = {"self", "follow_symlinks"};
    Value a[2];
    if (native_parse_args(vm, fname, argc, argv, kw, 1, 1, names, 2, a) < 0) return -1;
    *follow = true;
    if (!val_is_null(a[1])) {
        int t = vm_truthy(vm, a[1]);
        if (t < 0) return -1;
        *follow = t;
    }
    return 0;
}

/* is_dir / is_file (follow_symlinks=True): False when the entry vanished */
static Value entry_test_mode(ARGS) {
    bool follow;
    bool want_dir = fn->data != NULL;
    if (follow_kw(vm, want_dir ? "is_dir" : "is_file", argc, argv, kw, &follow) < 0) return val_null();
    DirEntryObj *e = ENTRY(argv[0]);
    if (e->d_type != DT_UNKNOWN && !(follow && e->d_type == DT_LNK))
        return val_bool(want_dir ? e->d_type == DT_DIR : e->d_type == DT_REG);
    Value s = entry_get_stat(vm, e, follow);
    if (val_is_null(s)) {
        if (vm_exc_matches(vm, vm->e_FileNotFoundError)) {
            vm_clear_exc(vm);
            return val_bool(false);
        }
        return s;
    }
    int64_t mode = val_as_intlike(AS_TUPLE(s)->items[0]);
    return val_bool(want_dir ? S_ISDIR(mode) : S_ISREG(mode));
}

static Value entry_is_symlink_m(ARGS) {
    int r = entry_is_symlink(vm, ENTRY(argv[0]));
    if (r < 0) {
        if (vm_exc_matches(vm, vm->e_FileNotFoundError)) {
            vm_clear_exc(vm);
            return val_bool(false);
        }
        return val_null();
    }
    return val_bool(r);
}

static Value entry_stat_m(ARGS) {
    bool follow;
    if (follow_kw(vm, "stat", argc, argv, kw, &follow) < 0) return val_null();
    return entry_get_stat(vm, ENTRY(argv[0]), follow);
}

static Value entry_inode(ARGS) { return val_int((int64_t)ENTRY(argv[0])->d_ino); }
static Value entry_fspath(ARGS) { return ENTRY(argv[0])->path; }
static Value entry_is_junction(ARGS) { return val_bool(false); }

static Value entry_repr(ARGS) {
    Value r = vm_repr(vm, ENTRY(argv[0])->name);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "<DirEntry %s>", AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

/* DirEntry[str]: types.GenericAlias(DirEntry, str) */
static Value entry_class_getitem(ARGS) {
    Value types = vm_import_module(vm, "types");
    if (val_is_null(types)) return types;
    Value g = vm_getattr_c(vm, types, "GenericAlias");
    if (val_is_null(g)) return g;
    return vm_call2(vm, g, argv[0], argv[1]);
}

static Value entry_name(VM *vm, Value s, void *c) { return ENTRY(s)->name; }
static Value entry_path(VM *vm, Value s, void *c) { return ENTRY(s)->path; }

/* ---- the scandir iterator ------------------------------------------------------------------- */

typedef struct ScandirObj {
    Obj hdr;
    DIR *dir;
    Value path;      /* the directory as given (str/bytes), VAL_NULL for an fd scan */
    bool is_bytes;
    int fd;          /* fd scans: the fd given (for DirEntry.stat), else -1 */
} ScandirObj;

static void scandir_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((ScandirObj *)o)->path); }
static void scandir_finalize(VM *vm, Obj *o) {
    ScandirObj *s = (ScandirObj *)o;
    if (s->dir) closedir(s->dir);
    s->dir = NULL;
}

#define SCAN(v) ((ScandirObj *)(v).as.o)

static Value scandir_next(ARGS) {
    ScandirObj *s = SCAN(argv[0]);
    for (;;) {
        if (!s->dir) return vm_raise_stop_iteration(vm, val_null());
        errno = 0;
        struct dirent *de = readdir(s->dir);
        if (!de) {
            int err = errno;
            scandir_finalize(vm, &s->hdr);
            if (err) return vm_raise_oserror(vm, err, s->path, val_null());
            return vm_raise_stop_iteration(vm, val_null());
        }
        if (dot_or_dotdot(de->d_name)) continue;
        size_t nl = strlen(de->d_name);
        Value name = posix_name(vm, de->d_name, (int64_t)nl, s->is_bytes);
        if (val_is_null(name)) return name;
        vm_push_root(vm, name);
        Value path = name;
        if (s->fd < 0) {
            /* join(scandir path, name) */
            const char *dir;
            size_t dl;
            if (s->is_bytes) {
                dir = (const char *)((BytesObj *)s->path.as.o)->data;
                dl = (size_t)((BytesObj *)s->path.as.o)->len;
            } else {
                dir = AS_STR(s->path)->data;
                dl = (size_t)AS_STR(s->path)->len;
            }
            bool slash = dl && dir[dl - 1] == '/';
            if (s->is_bytes) {
                char *buf = malloc(dl + nl + 2);
                memcpy(buf, dir, dl);
                size_t k = dl;
                if (!slash) buf[k++] = '/';
                memcpy(buf + k, de->d_name, nl);
                BytesObj *b = bytes_new(vm, (const uint8_t *)buf, (int64_t)(k + nl));
                free(buf);
                path = b ? val_obj(b) : val_null();
            } else {
                StrObj *ns = AS_STR(name);
                StrBuf b;
                sb_init(&b);
                sb_add(&b, dir, (int64_t)dl);
                if (!slash) sb_addc(&b, '/');
                sb_add_str(&b, ns);
                StrObj *ps = sb_finish(vm, &b);
                path = ps ? val_obj(ps) : val_null();
            }
            if (val_is_null(path)) {
                vm_pop_root(vm);
                return path;
            }
        }
        vm_push_root(vm, path);
        DirEntryObj *e = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_dir_entry]), sizeof(DirEntryObj));
        vm_pop_roots(vm, 2);
        if (!e) return val_null();
        e->name = name;
        e->path = path;
        e->stat = e->lstat = val_null();
        e->d_type = de->d_type;
        e->d_ino = de->d_ino;
        e->dir_fd = s->fd;
        return val_obj(e);
    }
}

static Value scandir_iter(ARGS) { return argv[0]; }
static Value scandir_close(ARGS) {
    scandir_finalize(vm, argv[0].as.o);
    return val_none();
}
static Value scandir_exit(ARGS) {
    scandir_finalize(vm, argv[0].as.o);
    return val_bool(false);
}

/* scandir(path=None) */
static Value p_scandir(ARGS) {
    static const char *const names[] = {"path"};
    Value a[1];
    if (native_parse_args(vm, "scandir", argc, argv, kw, 1, 0, names, 1, a) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, val_is_null(a[0]) ? val_none() : a[0], "scandir", "path", true, true, &p) < 0)
        return val_null();
    Value pathv = val_null();
    if (p.fd < 0) {
        /* entries' paths join this (os.fspath of the argument, or '.') with their names */
        pathv = p.path ? posix_fspath(vm, a[0]) : vm_intern(vm, ".");
        if (val_is_null(pathv)) {
            vm_pop_root(vm);
            return pathv;
        }
    }
    vm_push_root(vm, pathv);
    DIR *d = open_dir(vm, &p);
    if (!d) {
        vm_pop_roots(vm, 2);
        return val_null();
    }
    ScandirObj *s = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_scandir_iter]), sizeof(ScandirObj));
    vm_pop_roots(vm, 2);
    if (!s) {
        closedir(d);
        return val_null();
    }
    s->dir = d;
    s->path = pathv;
    s->is_bytes = p.is_bytes;
    s->fd = p.fd;
    return val_obj(s);
}

int posix_dir_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_dir_entry])) {
        TypeObj *et = type_new_builtin(vm, "DirEntry", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(DirEntryObj), 0,
                                       entry_trace, NULL, TYPEF_ABSTRACT_NEW);
        if (!et) return -1;
        vm->lib[VM_LIB_dir_entry] = val_obj(et);
        static const MethodDef em[] = {
            {"is_dir", entry_test_mode, NATIVEF_METHOD, (void *)1}, {"is_file", entry_test_mode, NATIVEF_METHOD},
            {"is_symlink", entry_is_symlink_m, NATIVEF_METHOD | ARITY_NOARGS},
            {"is_junction", entry_is_junction, NATIVEF_METHOD | ARITY_NOARGS},
            {"stat", entry_stat_m, NATIVEF_METHOD}, {"inode", entry_inode, NATIVEF_METHOD | ARITY_NOARGS},
            {"__fspath__", entry_fspath, NATIVEF_METHOD | ARITY_NOARGS},
            {"__repr__", entry_repr, NATIVEF_METHOD | ARITY_NOARGS},
            {"__class_getitem__", entry_class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
        static const GetSetDef eg[] = {{"name", entry_name}, {"path", entry_path}, {NULL}};
        if (type_add_methods(vm, et, em) < 0 || type_add_getsets(vm, et, eg) < 0) return -1;
        et->module = vm_intern(vm, "posix");
        TypeObj *st = type_new_builtin(vm, "ScandirIterator", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ScandirObj),
                                       0, scandir_trace, scandir_finalize, TYPEF_ABSTRACT_NEW);
        if (!st) return -1;
        vm->lib[VM_LIB_scandir_iter] = val_obj(st);
        static const MethodDef sm[] = {
            {"__next__", scandir_next, NATIVEF_METHOD | ARITY_NOARGS}, {"__iter__", scandir_iter, NATIVEF_METHOD | ARITY_NOARGS},
            {"close", scandir_close, NATIVEF_METHOD | ARITY_NOARGS}, {"__enter__", scandir_iter, NATIVEF_METHOD | ARITY_NOARGS},
            {"__exit__", scandir_exit, NATIVEF_METHOD}, {NULL}};
        if (type_add_methods(vm, st, sm) < 0) return -1;
        st->module = vm_intern(vm, "posix");
    }
    static const MethodDef fns[] = {{"listdir", p_listdir}, {"scandir", p_scandir}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "DirEntry", vm->lib[VM_LIB_dir_entry]);
}
