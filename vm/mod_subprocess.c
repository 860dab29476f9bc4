/* vm/mod_subprocess.c — what CPython's subprocess.py needs in C: _posixsubprocess.fork_exec
 * (fork, the child's fd plumbing, cwd / umask / session / ids, preexec_fn, close_fds, exec
 * over the executable list, and the "OSError:<hex errno>:noexec" report on the error pipe that
 * subprocess parses), and the select module (select(), poll objects and their constants) that
 * selectors.py and Popen.communicate use. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/mod_posix.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* A NULL-terminated char* array from a sequence of str / bytes / PathLike (None: NULL); the
 * converted objects are kept in *keep, which the caller roots. */
static char **cstrings(VM *vm, Value seq, ListObj **keep, bool *ok) {
    *ok = true;
    if (val_is_none(seq)) return NULL;
    Value h = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, seq, &n, &h);
    if (!items) {
        *ok = false;
        return NULL;
    }
    vm_push_root(vm, h);
    ListObj *l = list_new(vm, n);
    if (!l) {
        vm_pop_root(vm);
        *ok = false;
        return NULL;
    }
    vm_push_root(vm, val_obj(l));
    char **arr = calloc((size_t)n + 1, sizeof(char *));
    for (int64_t i = 0; i < n; i++) {
        PathArg p;
        if (posix_path_arg(vm, items[i], "fork_exec", "args", false, false, &p) < 0) {
            free(arr);
            vm_pop_roots(vm, 2);
            *ok = false;
            return NULL;
        }
        int rc = list_append(vm, l, val_is_null(p.converted) ? items[i] : p.converted);
        vm_pop_root(vm);
        if (rc < 0) {
            free(arr);
            vm_pop_roots(vm, 2);
            *ok = false;
            return NULL;
        }
        arr[i] = (char *)p.path;
    }
    vm_pop_roots(vm, 2);
    *keep = l;
    return arr;
}

static bool keep_fd(int fd, const int64_t *keep, int64_t nkeep) {
    for (int64_t i = 0; i < nkeep; i++)
        if (keep[i] == fd) return true;
    return false;
}

static void close_open_fds(const int64_t *keep, int64_t nkeep) {
    /* close_range between the fds to keep, else every fd up to the limit */
    int start = 3;
    for (int64_t i = 0; i <= nkeep; i++) {
        int end = i < nkeep ? (int)keep[i] : -1;
        if (end >= 0 && end < start) continue;
        if (end < 0) {
#ifdef SYS_close_range
            if (syscall(SYS_close_range, start, ~0U, 0) == 0) return;
#endif
            long max = sysconf(_SC_OPEN_MAX);
            for (int fd = start; fd < max; fd++)
                if (!keep_fd(fd, keep, nkeep)) close(fd);
            return;
        }
        for (int fd = start; fd < end; fd++) close(fd);
        start = end + 1;
    }
}

/* fork_exec(args, executable_list, close_fds, fds_to_keep, cwd, env_list, p2cread, p2cwrite,
 *           c2pread, c2pwrite, errread, errwrite, errpipe_read, errpipe_write, restore_signals,
 *           call_setsid, pgid_to_set, gid, extra_groups, uid, child_umask, preexec_fn,
 *           allow_vfork) */
static Value sp_fork_exec(ARGS) {
    if (argc != 23) return vm_raise(vm, vm->e_TypeError, "fork_exec() takes exactly 23 arguments (%d given)", argc);
    Value *a = argv;
    int64_t fds[8], pgid, umask_v;
    for (int i = 0; i < 8; i++)
        if (vm_index(vm, a[6 + i], &fds[i]) < 0) return val_null();
    if (vm_index(vm, a[16], &pgid) < 0 || vm_index(vm, a[20], &umask_v) < 0) return val_null();
    int close_fds = vm_truthy(vm, a[2]), restore = vm_truthy(vm, a[14]), setsid_ = vm_truthy(vm, a[15]);
    if (close_fds < 0 || restore < 0 || setsid_ < 0) return val_null();
    /* fds_to_keep: a sorted tuple of non-negative ints */
    if (!val_is_type(vm, a[3], vm->t_tuple)) return vm_raise(vm, vm->e_TypeError, "fds_to_keep must be a tuple");
    TupleObj *kt = AS_TUPLE(a[3]);
    int64_t nkeep = kt->len;
    int64_t *keep = malloc(sizeof(int64_t) * (size_t)(nkeep + 1));
    for (int64_t i = 0; i < nkeep; i++) {
        if (!val_is_intlike(kt->items[i]) || val_as_intlike(kt->items[i]) < 0 ||
            (i && val_as_intlike(kt->items[i]) <= keep[i - 1])) {
            free(keep);
            return vm_raise(vm, vm->e_ValueError, "bad value(s) in fds_to_keep");
        }
        keep[i] = val_as_intlike(kt->items[i]);
    }
    int64_t gid = -1, uid = -1;
    if (!val_is_none(a[17]) && vm_index(vm, a[17], &gid) < 0) goto fail0;
    if (!val_is_none(a[19]) && vm_index(vm, a[19], &uid) < 0) goto fail0;
    gid_t groups[64];
    int ngroups = -1;
    if (!val_is_none(a[18])) {
        Value h = val_null();
        int64_t n;
        Value *items = vm_sequence_items(vm, a[18], &n, &h);
        if (!items) goto fail0;
        if (n > 64) {
            vm_raise(vm, vm->e_ValueError, "too many extra_groups");
            goto fail0;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t g;
            if (vm_index(vm, items[i], &g) < 0) goto fail0;
            groups[i] = (gid_t)g;
        }
        ngroups = (int)n;
    }
    /* everything the child needs is converted before the fork */
    ListObj *k1 = NULL, *k2 = NULL, *k3 = NULL;
    bool ok;
    char **args = cstrings(vm, a[0], &k1, &ok);
    if (!ok) goto fail0;
    vm_push_root(vm, k1 ? val_obj(k1) : val_null());
    char **exes = cstrings(vm, a[1], &k2, &ok);
    if (!ok) goto fail1;
    vm_push_root(vm, k2 ? val_obj(k2) : val_null());
    char **envp = cstrings(vm, a[5], &k3, &ok);
    if (!ok) goto fail2;
    vm_push_root(vm, k3 ? val_obj(k3) : val_null());
    PathArg cwd = {0};
    if (posix_path_arg(vm, a[4], "fork_exec", "cwd", false, true, &cwd) < 0) goto fail3;
    Value preexec = a[21];
    bool has_preexec = !val_is_none(preexec);
    fflush(vm->out);
    fflush(vm->err);
    pid_t pid = fork();
    if (pid == 0) {
        /* the child: only async-signal-safe calls until exec (preexec_fn excepted, as in CPython) */
        int p2cread = (int)fds[0], p2cwrite = (int)fds[1], c2pread = (int)fds[2], c2pwrite = (int)fds[3];
        int errread = (int)fds[4], errwrite = (int)fds[5], errpipe_write = (int)fds[7];
        bool reached_preexec = false;
        int saved = 0;
        const char *err_msg = "";
        if (p2cwrite != -1) close(p2cwrite);
        if (c2pread != -1) close(c2pread);
        if (errread != -1) close(errread);
        close((int)fds[6]);
        /* pass_fds: the descriptors to keep are inherited by the new program (CPython's
         * make_inheritable), all but the pipe reporting exec errors */
        for (int64_t i = 0; i < nkeep; i++) {
            if (keep[i] == errpipe_write) continue;
            int f = fcntl((int)keep[i], F_GETFD);
            if (f < 0 || fcntl((int)keep[i], F_SETFD, f & ~FD_CLOEXEC) < 0) goto error;
        }
        /* stdout / stderr must not be fd 0 / 0-1 when the others are dup'ed over them */
        if (c2pwrite == 0) {
            c2pwrite = dup(c2pwrite);
            if (c2pwrite < 0) goto error;
        }
        while (errwrite == 0 || errwrite == 1) {
            errwrite = dup(errwrite);
            if (errwrite < 0) goto error;
        }
        int targets[3] = {p2cread, c2pwrite, errwrite};
        for (int t = 0; t < 3; t++) {
            if (targets[t] == t) {
                int f = fcntl(t, F_GETFD);
                if (f < 0 || fcntl(t, F_SETFD, f & ~FD_CLOEXEC) < 0) goto error;
            } else if (targets[t] != -1 && dup2(targets[t], t) < 0) {
                goto error;
            }
        }
        for (int t = 0; t < 3; t++)
            if (targets[t] > 2) {
                bool dup_later = false;
                for (int u = t + 1; u < 3; u++) dup_later |= targets[u] == targets[t];
                if (!dup_later) close(targets[t]);
            }
        if (cwd.path && chdir(cwd.path) < 0) goto error;
        if (umask_v >= 0) umask((mode_t)umask_v);
        if (restore) {
            signal(SIGPIPE, SIG_DFL);
            signal(SIGXFSZ, SIG_DFL);
        }
        if (setsid_ && setsid() < 0) goto error;
        if (pgid >= 0 && setpgid(0, (pid_t)pgid) < 0) goto error;
        if (ngroups >= 0 && setgroups((size_t)ngroups, groups) < 0) goto error;
        if (gid != -1 && setregid((gid_t)gid, (gid_t)gid) < 0) goto error;
        if (uid != -1 && setreuid((uid_t)uid, (uid_t)uid) < 0) goto error;
        reached_preexec = true;
        if (has_preexec && val_is_null(vm_call0(vm, preexec))) {
            err_msg = "Exception occurred in preexec_fn.";
            errno = 0;
            goto error;
        }
        if (close_fds) close_open_fds(keep, nkeep);
        for (int i = 0; exes && exes[i]; i++) {
            if (envp) execve(exes[i], args, envp);
            else execv(exes[i], args);
            if (errno != ENOENT && errno != ENOTDIR && saved == 0) saved = errno;
        }
        if (saved) errno = saved;
    error:
        /* one write (under PIPE_BUF, so atomic): the parent reads the report once */
        saved = errno;
        char msg[96];
        size_t len = 0;
        if (saved) {
            char hex[sizeof(int) * 2];
            int k = (int)sizeof hex;
            unsigned u = (unsigned)saved;
            while (u && k > 0) {
                hex[--k] = "0123456789abcdef"[u % 16];
                u /= 16;
            }
            memcpy(msg, "OSError:", 8);
            len = 8;
            memcpy(msg + len, hex + k, sizeof hex - (size_t)k);
            len += sizeof hex - (size_t)k;
            msg[len++] = ':';
            if (!reached_preexec) {
                memcpy(msg + len, "noexec", 6);
                len += 6;
            }
        } else {
            memcpy(msg, "SubprocessError:0:", 18);
            len = 18;
            size_t el = strlen(err_msg);
            memcpy(msg + len, err_msg, el);
            len += el;
        }
        posix_write_all(errpipe_write, msg, len);
        _exit(255);
    }
    int e = errno;
    vm_pop_root(vm);   /* cwd */
    vm_pop_roots(vm, 3);
    free(args);
    free(exes);
    free(envp);
    free(keep);
    if (pid < 0) return vm_raise_oserror(vm, e, val_null(), val_null());
    return val_int(pid);
fail3:
    free(envp);
    vm_pop_root(vm);
fail2:
    free(exes);
    vm_pop_root(vm);
fail1:
    free(args);
    vm_pop_root(vm);
fail0:
    free(keep);
    return val_null();
}

int posixsubprocess_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"fork_exec", sp_fork_exec}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

/* ---- select ---------------------------------------------------------------------------------- */

/* the fd of an int or of an object's fileno() */
static int fd_of(VM *vm, Value v, int *out) {
    Value f = v;
    if (!val_is_intlike(v)) {
        f = vm_call_method(vm, v, "fileno", 0, NULL);
        if (val_is_null(f)) {
            if (vm_exc_matches(vm, vm->e_AttributeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "argument must be an int, or have a fileno() method.");
            }
            return -1;
        }
        if (!val_is_intlike(f)) {
            vm_raise(vm, vm->e_TypeError, "fileno() returned a non-integer");
            return -1;
        }
    }
    int64_t fd = val_as_intlike(f);
    if (fd < 0) {
        vm_raise(vm, vm->e_ValueError, "file descriptor cannot be a negative integer (%lld)", (long long)fd);
        return -1;
    }
    *out = (int)fd;
    return 0;
}

static int timeout_ms(VM *vm, Value v, double scale, int *out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = -1;
        return 0;
    }
    double d;
    if (vm_to_double(vm, v, &d) < 0) {
        vm_clear_exc(vm);
        vm_raise(vm, vm->e_TypeError, "timeout must be an integer or None");
        return -1;
    }
    if (d < 0 && scale > 1) {
        vm_raise(vm, vm->e_ValueError, "timeout must be non-negative");
        return -1;
    }
    *out = d < 0 ? -1 : (int)(d * scale + 0.999999);
    return 0;
}

/* select(rlist, wlist, xlist, timeout=None), on poll(2) so fds past FD_SETSIZE work */
static Value sel_select(ARGS) {
    if (argc < 3 || argc > 4) return vm_raise(vm, vm->e_TypeError, "select expected 3 or 4 arguments, got %d", argc);
    int tmo;
    if (timeout_ms(vm, argc > 3 ? argv[3] : val_null(), 1000, &tmo) < 0) return val_null();
    ListObj *lists[3];
    for (int i = 0; i < 3; i++) {
        lists[i] = vm_list_from_iterable(vm, argv[i]);
        if (!lists[i]) {
            vm_pop_roots(vm, i);
            return val_null();
        }
        vm_push_root(vm, val_obj(lists[i]));
    }
    int64_t total = lists[0]->len + lists[1]->len + lists[2]->len;
    struct pollfd *pf = calloc((size_t)total + 1, sizeof *pf);
    static const short ev[3] = {POLLIN, POLLOUT, POLLPRI};
    int64_t k = 0;
    for (int i = 0; i < 3; i++)
        for (int64_t j = 0; j < lists[i]->len; j++) {
            int fd;
            if (fd_of(vm, lists[i]->items[j], &fd) < 0) {
                free(pf);
                vm_pop_roots(vm, 3);
                return val_null();
            }
            pf[k].fd = fd;
            pf[k++].events = ev[i];
        }
    int r;
    do r = poll(pf, (nfds_t)total, tmo);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        free(pf);
        vm_pop_roots(vm, 3);
        return vm_raise_oserror(vm, e, val_null(), val_null());
    }
    ListObj *out[3];
    k = 0;
    for (int i = 0; i < 3; i++) {
        out[i] = list_new(vm, 0);
        if (!out[i]) {
            free(pf);
            vm_pop_roots(vm, 3 + i);
            return val_null();
        }
        vm_push_root(vm, val_obj(out[i]));
        for (int64_t j = 0; j < lists[i]->len; j++, k++) {
            short mask = i == 0 ? (POLLIN | POLLHUP | POLLERR) : i == 1 ? (POLLOUT | POLLERR) : POLLPRI;
            if ((pf[k].revents & mask) && list_append(vm, out[i], lists[i]->items[j]) < 0) {
                free(pf);
                vm_pop_roots(vm, 4 + i);
                return val_null();
            }
        }
    }
    free(pf);
    TupleObj *t = tuple_pack(vm, 3, val_obj(out[0]), val_obj(out[1]), val_obj(out[2]));
    vm_pop_roots(vm, 6);
    return t ? val_obj(t) : val_null();
}

/* poll objects: a dict fd -> event mask */
typedef struct PollObj {
    Obj hdr;
    DictObj *fds;
} PollObj;

static void poll_trace(VM *vm, Obj *o) { gc_mark(vm, ((PollObj *)o)->fds); }

static Value sel_poll(ARGS) {
    PollObj *p = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_poll_type]), sizeof(PollObj));
    if (!p) return val_null();
    vm_push_root(vm, val_obj(p));
    p->fds = dict_new(vm);
    vm_pop_root(vm);
    return p->fds ? val_obj(p) : val_null();
}

static Value poll_register(ARGS) {
    int fd;
    if (fd_of(vm, argv[1], &fd) < 0) return val_null();
    int64_t mask = POLLIN | POLLPRI | POLLOUT;
    if (argc > 2 && vm_index(vm, argv[2], &mask) < 0) return val_null();
    bool modify = fn->data != NULL;
    PollObj *p = (PollObj *)argv[0].as.o;
    if (modify) {
        Value old;
        int r = dict_lookup(vm, p->fds, val_int(fd), &old);
        if (r < 0) return val_null();
        if (!r) return vm_raise_oserror(vm, ENOENT, val_null(), val_null());
    }
    return dict_set(vm, p->fds, val_int(fd), val_int(mask)) < 0 ? val_null() : val_none();
}

static Value poll_unregister(ARGS) {
    int fd;
    if (fd_of(vm, argv[1], &fd) < 0) return val_null();
    int r = dict_del(vm, ((PollObj *)argv[0].as.o)->fds, val_int(fd), NULL);
    if (r < 0) return val_null();
    if (!r) return vm_raise_key_error(vm, val_int(fd));
    return val_none();
}

static Value poll_poll(ARGS) {
    int tmo;
    if (timeout_ms(vm, argc > 1 ? argv[1] : val_null(), 1, &tmo) < 0) return val_null();
    DictObj *d = ((PollObj *)argv[0].as.o)->fds;
    struct pollfd *pf = calloc((size_t)d->used + 1, sizeof *pf);
    int64_t pos = 0, n = 0;
    Value k, v;
    while (dict_next(d, &pos, &k, &v)) {
        pf[n].fd = (int)val_as_intlike(k);
        pf[n++].events = (short)val_as_intlike(v);
    }
    int r;
    do r = poll(pf, (nfds_t)n, tmo);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        free(pf);
        return vm_raise_oserror(vm, e, val_null(), val_null());
    }
    ListObj *l = list_new(vm, 0);
    if (!l) {
        free(pf);
        return val_null();
    }
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < n; i++) {
        if (!pf[i].revents) continue;
        TupleObj *t = tuple_pack(vm, 2, val_int(pf[i].fd), val_int(pf[i].revents));
        if (!t || list_append(vm, l, val_obj(t)) < 0) {
            free(pf);
            vm_pop_root(vm);
            return val_null();
        }
    }
    free(pf);
    vm_pop_root(vm);
    return val_obj(l);
}

int select_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_poll_type])) {
        TypeObj *t = type_new_builtin(vm, "poll", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(PollObj), 0, poll_trace, NULL,
                                      TYPEF_ABSTRACT_NEW);
        if (!t) return -1;
        t->module = vm_intern(vm, "select");
        vm->lib[VM_LIB_poll_type] = val_obj(t);
        static const MethodDef m[] = {
            {"register", poll_register, NATIVEF_METHOD | ARITY_POS(1, 2)},
            {"modify", poll_register, NATIVEF_METHOD | ARITY_POS(2, 2), (void *)1},
            {"unregister", poll_unregister, NATIVEF_METHOD | ARITY_O}, {"poll", poll_poll, NATIVEF_METHOD | ARITY_POS(0, 1)},
            {NULL}};
        if (type_add_methods(vm, t, m) < 0) return -1;
    }
    static const MethodDef fns[] = {{"select", sel_select}, {"poll", sel_poll, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    static const struct { const char *n; int v; } consts[] = {
        {"POLLIN", POLLIN}, {"POLLPRI", POLLPRI}, {"POLLOUT", POLLOUT}, {"POLLERR", POLLERR}, {"POLLHUP", POLLHUP},
        {"POLLNVAL", POLLNVAL}, {"POLLRDNORM", POLLRDNORM}, {"POLLRDBAND", POLLRDBAND}, {"POLLWRNORM", POLLWRNORM},
        {"POLLWRBAND", POLLWRBAND}, {"POLLMSG", POLLMSG}, {"POLLRDHUP", POLLRDHUP}, {"PIPE_BUF", PIPE_BUF}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return module_set(vm, mod, "error", val_obj(vm->e_OSError));
}
