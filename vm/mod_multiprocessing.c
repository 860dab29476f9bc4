/* vm/mod_multiprocessing.c — the _multiprocessing module multiprocessing.synchronize and
 * multiprocessing.connection import: SemLock on POSIX named semaphores (sem_open / sem_unlink,
 * as CPython's Modules/_multiprocessing/semaphore.c), with its recursive-mutex and semaphore
 * kinds, acquire(block, timeout) / release with CPython's checks and messages, the helpers
 * synchronize.py and its pickling use (_count, _is_mine, _get_value, _is_zero, _rebuild,
 * _after_fork) and the handle / kind / maxvalue / name attributes; sem_unlink and flags.  Also
 * _posixshmem (shm_open / shm_unlink), which multiprocessing's resource tracker imports.
 *
 * The semaphore lives in shared memory, so a forked child and its parent lock each other out;
 * count and the owning thread are the object's own (what _is_mine and a recursive acquire
 * look at), and _after_fork clears them in the child. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

int vm_signals_run(VM *vm);

enum { RECURSIVE_MUTEX = 0, SEMAPHORE = 1 };

typedef struct SemLockObj {
    Obj hdr;
    sem_t *handle;
    unsigned long last_tid;
    int64_t count;
    int64_t maxvalue;
    int kind;
    char *name;          /* malloc'd; NULL once unlinked at creation */
} SemLockObj;

#define SEM(v) ((SemLockObj *)(v).as.o)

static unsigned long current_tid(void) { return (unsigned long)pthread_self(); }

static bool is_mine(const SemLockObj *s) { return s->count > 0 && s->last_tid == current_tid(); }

static void semlock_finalize(VM *vm, Obj *o) {
    SemLockObj *s = (SemLockObj *)o;
    if (s->handle && s->handle != SEM_FAILED) sem_close(s->handle);
    s->handle = NULL;
    free(s->name);
    s->name = NULL;
}

static Value os_error(VM *vm) { return vm_raise_oserror(vm, errno, val_null(), val_null()); }

static Value semlock_make(VM *vm, TypeObj *t, sem_t *handle, int kind, int64_t maxvalue, char *name) {
    SemLockObj *s = gc_alloc(vm, t, t->instance_size);
    if (!s) {
        free(name);
        return val_null();
    }
    s->handle = handle;
    s->kind = kind;
    s->maxvalue = maxvalue;
    s->name = name;
    return val_obj(s);
}

static int int_arg(VM *vm, Value v, int64_t *out) { return vm_index(vm, v, out); }

/* SemLock(kind, value, maxvalue, name, unlink) */
static Value sl_new(ARGS) {
    static const char *const names[] = {"kind", "value", "maxvalue", "name", "unlink"};
    Value a[5];
    if (native_parse_args(vm, "SemLock", argc - 1, argv + 1, kw, 5, 5, names, 5, a) < 0) return val_null();
    int64_t kind, value, maxvalue;
    if (int_arg(vm, a[0], &kind) < 0 || int_arg(vm, a[1], &value) < 0 || int_arg(vm, a[2], &maxvalue) < 0)
        return val_null();
    if (!val_is_str(vm, a[3]))
        return vm_raise(vm, vm->e_TypeError, "SemLock() argument 'name' must be str, not %s", vm_type_name(vm, a[3]));
    int unlink = vm_truthy(vm, a[4]);
    if (unlink < 0) return val_null();
    if (kind != RECURSIVE_MUTEX && kind != SEMAPHORE) return vm_raise(vm, vm->e_ValueError, "unrecognized kind");
    const char *name = ((StrObj *)a[3].as.o)->data;
    char *copy = strdup(name);
    if (!copy) return vm_no_memory(vm);
    sem_t *h = sem_open(name, O_CREAT | O_EXCL, 0600, (unsigned)value);
    if (h == SEM_FAILED) {
        free(copy);
        return os_error(vm);
    }
    if (unlink) {
        if (sem_unlink(copy) < 0) {
            int e = errno;
            sem_close(h);
            free(copy);
            errno = e;
            return os_error(vm);
        }
        free(copy);
        copy = NULL;
    }
    return semlock_make(vm, AS_TYPE(argv[0]), h, (int)kind, maxvalue, copy);
}

static int timed_wait(sem_t *h, const struct timespec *deadline) {
    return deadline ? sem_timedwait(h, deadline) : sem_wait(h);
}

/* acquire(block=True, timeout=None) */
static Value sl_acquire(ARGS) {
    static const char *const names[] = {"self", "block", "timeout"};
    Value a[3];
    if (native_parse_args(vm, "acquire", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    SemLockObj *s = SEM(argv[0]);
    bool blocking;
    if (native_bool_arg(vm, a[1], true, &blocking) < 0) return val_null();
    if (s->kind == RECURSIVE_MUTEX && is_mine(s)) {
        s->count++;
        return val_bool(true);
    }
    struct timespec deadline, *dl = NULL;
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        double t;
        if (vm_to_double(vm, a[2], &t) < 0) return val_null();
        if (t < 0) t = 0;
        clock_gettime(CLOCK_REALTIME, &deadline);
        double whole = floor(t);
        deadline.tv_sec += (time_t)whole;
        deadline.tv_nsec += (long)((t - whole) * 1e9);
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        dl = &deadline;
    }
    int r;
    for (;;) {
        r = sem_trywait(s->handle);
        if (r == 0 || errno != EINTR) break;
        if (vm_signals_run(vm) < 0) return val_null();
    }
    if (r < 0 && errno == EAGAIN && blocking) {
        for (;;) {
            r = timed_wait(s->handle, dl);
            if (r == 0 || errno != EINTR) break;
            if (vm_signals_run(vm) < 0) return val_null();
        }
    }
    if (r < 0) {
        if (errno == EAGAIN || errno == ETIMEDOUT) return val_bool(false);
        return os_error(vm);
    }
    s->count++;
    s->last_tid = current_tid();
    return val_bool(true);
}

static Value sl_release(ARGS) {
    SemLockObj *s = SEM(argv[0]);
    if (s->kind == RECURSIVE_MUTEX) {
        if (!is_mine(s))
            return vm_raise(vm, vm->e_AssertionError, "attempt to release recursive lock not owned by thread");
        if (s->count > 1) {
            s->count--;
            return val_none();
        }
    } else {
        int sval;
        /* not an absolute guarantee that the value stays under maxvalue, as in CPython */
        if (sem_getvalue(s->handle, &sval) < 0) return os_error(vm);
        if (sval >= s->maxvalue) return vm_raise(vm, vm->e_ValueError, "semaphore or lock released too many times");
    }
    if (sem_post(s->handle) < 0) return os_error(vm);
    s->count--;
    return val_none();
}

static Value sl_exit(ARGS) { return sl_release(vm, 1, argv, NULL, fn); }

static Value sl_count(ARGS) { return val_int(SEM(argv[0])->count); }
static Value sl_is_mine(ARGS) { return val_bool(is_mine(SEM(argv[0]))); }

static Value sl_get_value(ARGS) {
    int sval;
    if (sem_getvalue(SEM(argv[0])->handle, &sval) < 0) return os_error(vm);
    /* some platforms report -(number of waiters) for a locked semaphore */
    return val_int(sval < 0 ? 0 : sval);
}

static Value sl_is_zero(ARGS) {
    int sval;
    if (sem_getvalue(SEM(argv[0])->handle, &sval) < 0) return os_error(vm);
    return val_bool(sval == 0);
}

static Value sl_after_fork(ARGS) {
    SEM(argv[0])->count = 0;
    return val_none();
}

/* _rebuild(handle, kind, maxvalue, name): a SemLock for an unpickled one (reopened by name) */
static Value sl_rebuild(ARGS) {
    if (native_check_args(vm, "_rebuild", argc, kw, 5, 5) < 0) return val_null();
    int64_t handle, kind, maxvalue;
    if (int_arg(vm, argv[1], &handle) < 0 || int_arg(vm, argv[2], &kind) < 0 || int_arg(vm, argv[3], &maxvalue) < 0)
        return val_null();
    char *name = NULL;
    sem_t *h = (sem_t *)(intptr_t)handle;
    if (!val_is_none(argv[4])) {
        if (!val_is_str(vm, argv[4]))
            return vm_raise(vm, vm->e_TypeError, "_rebuild() argument 4 must be str or None, not %s",
                            vm_type_name(vm, argv[4]));
        name = strdup(((StrObj *)argv[4].as.o)->data);
        if (!name) return vm_no_memory(vm);
        h = sem_open(name, 0);
        if (h == SEM_FAILED) {
            int e = errno;
            free(name);
            errno = e;
            return os_error(vm);
        }
    }
    return semlock_make(vm, AS_TYPE(argv[0]), h, (int)kind, maxvalue, name);
}

static Value g_handle(VM *vm, Value s, void *c) { return val_int((int64_t)(intptr_t)SEM(s)->handle); }
static Value g_kind(VM *vm, Value s, void *c) { return val_int(SEM(s)->kind); }
static Value g_maxvalue(VM *vm, Value s, void *c) { return val_int(SEM(s)->maxvalue); }
static Value g_name(VM *vm, Value s, void *c) {
    if (!SEM(s)->name) return val_none();
    StrObj *n = str_from_c(vm, SEM(s)->name);
    return n ? val_obj(n) : val_null();
}

static Value m_sem_unlink(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "sem_unlink() argument must be str, not %s", vm_type_name(vm, argv[0]));
    if (sem_unlink(((StrObj *)argv[0].as.o)->data) < 0) return vm_raise_oserror(vm, errno, argv[0], val_null());
    return val_none();
}

/* ---- _posixshmem: shm_open / shm_unlink (multiprocessing.shared_memory, resource_tracker) ---- */

static Value shm_open_fn(ARGS) {
    static const char *const names[] = {"path", "flags", "mode"};
    Value a[3];
    if (native_parse_args(vm, "shm_open", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (!val_is_str(vm, a[0]))
        return vm_raise(vm, vm->e_TypeError, "shm_open() argument 'path' must be str, not %s", vm_type_name(vm, a[0]));
    int64_t flags, mode = 0777;
    if (int_arg(vm, a[1], &flags) < 0 || (!val_is_null(a[2]) && int_arg(vm, a[2], &mode) < 0)) return val_null();
    int fd;
    for (;;) {
        fd = shm_open(((StrObj *)a[0].as.o)->data, (int)flags, (mode_t)mode);
        if (fd >= 0 || errno != EINTR) break;
        if (vm_signals_run(vm) < 0) return val_null();
    }
    if (fd < 0) return vm_raise_oserror(vm, errno, a[0], val_null());
    return val_int(fd);
}

static Value shm_unlink_fn(ARGS) {
    static const char *const names[] = {"path"};
    Value a[1];
    if (native_parse_args(vm, "shm_unlink", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    if (!val_is_str(vm, a[0]))
        return vm_raise(vm, vm->e_TypeError, "shm_unlink() argument 'path' must be str, not %s", vm_type_name(vm, a[0]));
    if (shm_unlink(((StrObj *)a[0].as.o)->data) < 0) return vm_raise_oserror(vm, errno, a[0], val_null());
    return val_none();
}

int posixshmem_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"shm_open", shm_open_fn}, {"shm_unlink", shm_unlink_fn}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

int multiprocessing_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_semlock_type])) {
        TypeObj *t = type_new_builtin(vm, "SemLock", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(SemLockObj), 0, NULL,
                                      semlock_finalize, TYPEF_BASETYPE);
        if (!t) return -1;
        t->module = vm_intern(vm, "_multiprocessing");
        vm->lib[VM_LIB_semlock_type] = val_obj(t);
        static const MethodDef m[] = {
            {"__new__", sl_new, NATIVEF_STATIC}, {"acquire", sl_acquire, NATIVEF_METHOD},
            {"release", sl_release, NATIVEF_METHOD | ARITY_NOARGS}, {"__enter__", sl_acquire, NATIVEF_METHOD | ARITY_NOARGS},
            {"__exit__", sl_exit, NATIVEF_METHOD | ARITY_POS(0, 3)}, {"_count", sl_count, NATIVEF_METHOD | ARITY_NOARGS},
            {"_is_mine", sl_is_mine, NATIVEF_METHOD | ARITY_NOARGS},
            {"_get_value", sl_get_value, NATIVEF_METHOD | ARITY_NOARGS},
            {"_is_zero", sl_is_zero, NATIVEF_METHOD | ARITY_NOARGS},
            {"_after_fork", sl_after_fork, NATIVEF_METHOD | ARITY_NOARGS},
            {"_rebuild", sl_rebuild, NATIVEF_CLASSMETHOD}, {NULL}};
        static const GetSetDef gs[] = {
            {"handle", g_handle}, {"kind", g_kind}, {"maxvalue", g_maxvalue}, {"name", g_name}, {NULL}};
        if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0 ||
            dict_set_c(vm, t->dict, "SEM_VALUE_MAX", val_int(SEM_VALUE_MAX)) < 0)
            return -1;
    }
    static const MethodDef fns[] = {{"sem_unlink", m_sem_unlink, ARITY_O}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    DictObj *flags = dict_new(vm);
    if (!flags) return -1;
    vm_push_root(vm, val_obj(flags));
    int rc = dict_set_c(vm, flags, "HAVE_SEM_OPEN", val_int(1)) < 0 ||
                     dict_set_c(vm, flags, "HAVE_SEM_TIMEDWAIT", val_int(1)) < 0 ||
                     module_set(vm, mod, "flags", val_obj(flags)) < 0
                 ? -1
                 : 0;
    vm_pop_root(vm);
    if (rc < 0) return -1;
    return module_set(vm, mod, "SemLock", vm->lib[VM_LIB_semlock_type]);
}
