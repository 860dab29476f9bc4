/* vm/mod_thread.c — the _thread module: real locks (lock and RLock on POSIX semaphores, with
 * blocking, timeouts and CPython's errors), thread identity, and the helpers threading.py
 * takes at import (_set_sentinel, _count, stack_size, TIMEOUT_MAX, error).  Ember runs one
 * interpreter thread: start_new_thread raises NotImplementedError, and a blocking acquire of a
 * lock the thread already holds waits as CPython's would (forever, or until its timeout). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct LockObj {
    Obj hdr;
    sem_t *sem;          /* malloc'd: a semaphore must not move */
    bool locked;
    /* RLock */
    unsigned long owner;
    int64_t count;
    DictObj *dict;
} LockObj;

#define LOCK(v) ((LockObj *)(v).as.o)

static void lock_finalize(VM *vm, Obj *o) {
    LockObj *l = (LockObj *)o;
    if (l->sem) {
        sem_destroy(l->sem);
        free(l->sem);
        l->sem = NULL;
    }
}

static void lock_trace(VM *vm, Obj *o) { gc_mark(vm, ((LockObj *)o)->dict); }

static Value lock_alloc(VM *vm, TypeObj *t) {
    LockObj *l = gc_alloc(vm, t, sizeof(LockObj));
    if (!l) return val_null();
    l->sem = malloc(sizeof(sem_t));
    if (!l->sem || sem_init(l->sem, 0, 1) < 0) {
        free(l->sem);
        l->sem = NULL;
        return vm_no_memory(vm);
    }
    return val_obj(l);
}

/* acquire(blocking=True, timeout=-1): 1 acquired, 0 timed out / would block, -1 error */
static int sem_acquire(VM *vm, sem_t *s, bool blocking, double timeout) {
    if (!blocking) return sem_trywait(s) == 0;
    if (timeout < 0) {
        while (sem_wait(s) < 0)
            if (errno != EINTR) return 0;
        return 1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double whole = floor(timeout);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((timeout - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    for (;;) {
        if (sem_timedwait(s, &ts) == 0) return 1;
        if (errno == ETIMEDOUT) return 0;
        if (errno != EINTR) return 0;
    }
}

static int acquire_args(VM *vm, int argc, Value *argv, TupleObj *kw, bool *blocking, double *timeout) {
    static const char *const names[] = {"self", "blocking", "timeout"};
    Value a[3];
    if (native_parse_args(vm, "acquire", argc, argv, kw, 3, 1, names, 3, a) < 0) return -1;
    *blocking = true;
    *timeout = -1;
    if (!val_is_null(a[1])) {
        int t = vm_truthy(vm, a[1]);
        if (t < 0) return -1;
        *blocking = t;
    }
    if (!val_is_null(a[2]) && vm_to_double(vm, a[2], timeout) < 0) return -1;
    if (!*blocking && *timeout != -1) {
        vm_raise(vm, vm->e_ValueError, "can't specify a timeout for a non-blocking call");
        return -1;
    }
    if (*timeout < 0 && *timeout != -1) {
        vm_raise(vm, vm->e_ValueError, "timeout value must be a non-negative number");
        return -1;
    }
    return 0;
}

static Value lk_acquire(ARGS) {
    bool blocking;
    double timeout;
    if (acquire_args(vm, argc, argv, kw, &blocking, &timeout) < 0) return val_null();
    LockObj *l = LOCK(argv[0]);
    int r = sem_acquire(vm, l->sem, blocking, timeout);
    if (r > 0) l->locked = true;
    return val_bool(r > 0);
}

static Value lk_release(ARGS) {
    LockObj *l = LOCK(argv[0]);
    if (!l->locked) return vm_raise(vm, vm->e_RuntimeError, "release unlocked lock");
    l->locked = false;
    sem_post(l->sem);
    return val_none();
}

static Value lk_exit(ARGS) {
    Value r = lk_release(vm, 1, argv, NULL, fn);
    return val_is_null(r) ? r : val_bool(false);
}

static Value lk_locked(ARGS) { return val_bool(LOCK(argv[0])->locked); }

static Value lk_at_fork_reinit(ARGS) {
    LockObj *l = LOCK(argv[0]);
    sem_destroy(l->sem);
    sem_init(l->sem, 0, 1);
    l->locked = false;
    l->owner = 0;
    l->count = 0;
    return val_none();
}

static Value lk_repr(ARGS) {
    LockObj *l = LOCK(argv[0]);
    StrObj *s = str_printf(vm, "<%s %s object at %p>", l->locked ? "locked" : "unlocked", "_thread.lock", (void *)l);
    return s ? val_obj(s) : val_null();
}

/* ---- RLock -------------------------------------------------------------------------------------- */

static unsigned long ident(void) { return (unsigned long)pthread_self(); }

static Value rl_acquire(ARGS) {
    bool blocking;
    double timeout;
    if (acquire_args(vm, argc, argv, kw, &blocking, &timeout) < 0) return val_null();
    LockObj *l = LOCK(argv[0]);
    unsigned long me = ident();
    if (l->count > 0 && l->owner == me) {
        l->count++;
        return val_bool(true);
    }
    int r = sem_acquire(vm, l->sem, blocking, timeout);
    if (r <= 0) return val_bool(false);
    l->owner = me;
    l->count = 1;
    l->locked = true;
    return val_bool(true);
}

static Value rl_release(ARGS) {
    LockObj *l = LOCK(argv[0]);
    if (l->count == 0 || l->owner != ident()) return vm_raise(vm, vm->e_RuntimeError, "cannot release un-acquired lock");
    if (--l->count == 0) {
        l->owner = 0;
        l->locked = false;
        sem_post(l->sem);
    }
    return val_none();
}

static Value rl_exit(ARGS) {
    Value r = rl_release(vm, 1, argv, NULL, fn);
    return val_is_null(r) ? r : val_bool(false);
}

static Value rl_is_owned(ARGS) {
    LockObj *l = LOCK(argv[0]);
    return val_bool(l->count > 0 && l->owner == ident());
}

static Value rl_recursion_count(ARGS) {
    LockObj *l = LOCK(argv[0]);
    return val_int(l->owner == ident() ? l->count : 0);
}

/* _release_save() -> (count, owner): fully release, for Condition.wait */
static Value rl_release_save(ARGS) {
    LockObj *l = LOCK(argv[0]);
    if (l->count == 0) return vm_raise(vm, vm->e_RuntimeError, "cannot release un-acquired lock");
    TupleObj *t = tuple_pack(vm, 2, val_int(l->count), val_int((int64_t)l->owner));
    if (!t) return val_null();
    l->count = 0;
    l->owner = 0;
    l->locked = false;
    sem_post(l->sem);
    return val_obj(t);
}

static Value rl_acquire_restore(ARGS) {
    LockObj *l = LOCK(argv[0]);
    if (!val_is_type(vm, argv[1], vm->t_tuple) || AS_TUPLE(argv[1])->len != 2)
        return vm_raise(vm, vm->e_TypeError, "_acquire_restore() argument must be a (count, owner) tuple");
    sem_acquire(vm, l->sem, true, -1);
    l->count = val_as_intlike(AS_TUPLE(argv[1])->items[0]);
    l->owner = (unsigned long)val_as_intlike(AS_TUPLE(argv[1])->items[1]);
    l->locked = true;
    return val_none();
}

static Value rl_repr(ARGS) {
    LockObj *l = LOCK(argv[0]);
    StrObj *s = str_printf(vm, "<%s %s.%s object owner=%lu count=%lld at %p>", l->count ? "locked" : "unlocked",
                           "_thread", "RLock", l->owner, (long long)l->count, (void *)l);
    return s ? val_obj(s) : val_null();
}

static Value rl_new(ARGS) { return lock_alloc(vm, AS_TYPE(argv[0])); }

/* ---- module functions ----------------------------------------------------------------------------- */

static Value t_allocate_lock(ARGS) { return lock_alloc(vm, AS_TYPE(vm->lib[VM_LIB_lock_type])); }

static Value t_get_ident(ARGS) { return val_int((int64_t)ident()); }
static Value t_get_native_id(ARGS) { return val_int((int64_t)syscall(SYS_gettid)); }
static Value t_count(ARGS) { return val_int(0); }

static Value t_stack_size(ARGS) {
    if (argc > 0) {
        int64_t n;
        if (vm_index(vm, argv[0], &n) < 0) return val_null();
        if (n != 0 && n < 32768) return vm_raise(vm, vm->e_ValueError, "size not valid: %lld bytes", (long long)n);
    }
    return val_int(0);
}

/* _set_sentinel(): a new unlocked lock; threading acquires it and the thread's state would release
 * it at the thread's end (the main thread never ends) */
static Value t_set_sentinel(ARGS) { return lock_alloc(vm, AS_TYPE(vm->lib[VM_LIB_lock_type])); }

static Value t_start_new_thread(ARGS) {
    return vm_raise(vm, vm->e_NotImplementedError,
                    "_thread.start_new_thread: Ember runs a single interpreter thread (threads are not supported)");
}

static Value t_interrupt_main(ARGS) {
    return vm_raise_value(vm, val_obj(vm->e_KeyboardInterrupt));
}

int thread_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_lock_type])) {
        TypeObj *lt = type_new_builtin(vm, "lock", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(LockObj), 0, lock_trace,
                                       lock_finalize, TYPEF_ABSTRACT_NEW);
        if (!lt) return -1;
        vm->lib[VM_LIB_lock_type] = val_obj(lt);
        lt->module = vm_intern(vm, "_thread");
        static const MethodDef lm[] = {
            {"acquire", lk_acquire, NATIVEF_METHOD}, {"acquire_lock", lk_acquire, NATIVEF_METHOD},
            {"__enter__", lk_acquire, NATIVEF_METHOD}, {"release", lk_release, NATIVEF_METHOD | ARITY_NOARGS},
            {"release_lock", lk_release, NATIVEF_METHOD | ARITY_NOARGS}, {"__exit__", lk_exit, NATIVEF_METHOD},
            {"locked", lk_locked, NATIVEF_METHOD | ARITY_NOARGS}, {"locked_lock", lk_locked, NATIVEF_METHOD | ARITY_NOARGS},
            {"_at_fork_reinit", lk_at_fork_reinit, NATIVEF_METHOD | ARITY_NOARGS},
            {"__repr__", lk_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        if (type_add_methods(vm, lt, lm) < 0) return -1;
        TypeObj *rt = type_new_builtin(vm, "RLock", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(LockObj),
                                       offsetof(LockObj, dict), lock_trace, lock_finalize, TYPEF_BASETYPE);
        if (!rt) return -1;
        vm->lib[VM_LIB_rlock_type] = val_obj(rt);
        rt->module = vm_intern(vm, "_thread");
        rt->alloc = lock_alloc;
        static const MethodDef rm[] = {
            {"__new__", rl_new, NATIVEF_STATIC}, {"acquire", rl_acquire, NATIVEF_METHOD},
            {"__enter__", rl_acquire, NATIVEF_METHOD}, {"release", rl_release, NATIVEF_METHOD | ARITY_NOARGS},
            {"__exit__", rl_exit, NATIVEF_METHOD}, {"_is_owned", rl_is_owned, NATIVEF_METHOD | ARITY_NOARGS},
            {"_recursion_count", rl_recursion_count, NATIVEF_METHOD | ARITY_NOARGS},
            {"_release_save", rl_release_save, NATIVEF_METHOD | ARITY_NOARGS},
            {"_acquire_restore", rl_acquire_restore, NATIVEF_METHOD | ARITY_O},
            {"_at_fork_reinit", lk_at_fork_reinit, NATIVEF_METHOD | ARITY_NOARGS},
            {"__repr__", rl_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        if (type_add_methods(vm, rt, rm) < 0) return -1;
    }
    static const MethodDef fns[] = {
        {"allocate_lock", t_allocate_lock, ARITY_NOARGS}, {"allocate", t_allocate_lock, ARITY_NOARGS},
        {"get_ident", t_get_ident, ARITY_NOARGS}, {"get_native_id", t_get_native_id, ARITY_NOARGS},
        {"_count", t_count, ARITY_NOARGS}, {"stack_size", t_stack_size, ARITY_POS(0, 1)},
        {"_set_sentinel", t_set_sentinel, ARITY_NOARGS}, {"start_new_thread", t_start_new_thread},
        {"start_new", t_start_new_thread}, {"interrupt_main", t_interrupt_main, ARITY_POS(0, 1)}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "LockType", vm->lib[VM_LIB_lock_type]) < 0 ||
                   module_set(vm, mod, "RLock", vm->lib[VM_LIB_rlock_type]) < 0 ||
                   module_set(vm, mod, "error", val_obj(vm->e_RuntimeError)) < 0 ||
                   module_set(vm, mod, "TIMEOUT_MAX", val_float(9223372036.0)) < 0
               ? -1
               : 0;
}
