/* vm/mod_faulthandler.c — the faulthandler module (C in CPython): enable / disable /
 * is_enabled (a fatal signal — SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL — prints "Fatal Python
 * error: <signal>" and the script's stack, then the signal's previous handler runs), dump_traceback,
 * dump_traceback_later / cancel_dump_traceback_later (a watchdog thread: hung training jobs),
 * register / unregister (dump on a user signal such as SIGUSR1), with CPython 3.11's output
 * layout and errors.  -X faulthandler and PYTHONFAULTHANDLER enable it at start (src/cli).
 *
 * Everything that runs in a signal handler or on the watchdog thread only reads the frame chain
 * and writes with write(2): no allocation, no locks.  Ember runs one interpreter thread, so
 * "all threads" is that thread.  Signal dispositions are process-wide, so the state is too, as
 * in CPython; the file objects are kept alive by the VM (vm->lib slots) so their fds stay open. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vm/code.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/mod_posix.h"
#include "vm/native.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

enum { MAX_FRAMES = 100, MAX_STRING = 500 };

/* ---- writing without allocating (signal handlers, the watchdog) ---------------------------- */

static void puts_fd(int fd, const char *s) { posix_write_all(fd, s, strlen(s)); }

static void put_hex(int fd, unsigned long v, int width) {
    char buf[2 * sizeof v + 1];
    int n = 0;
    do {
        buf[sizeof buf - 1 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v || n < width);
    posix_write_all(fd, buf + sizeof buf - n, (size_t)n);
}

static void put_dec(int fd, unsigned long v) {
    char buf[24];
    int n = 0;
    do {
        buf[sizeof buf - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    posix_write_all(fd, buf + sizeof buf - n, (size_t)n);
}

/* A string as CPython's _Py_DumpASCII writes it: printable ASCII as is, other code points as
 * \xHH / \uHHHH / \UHHHHHHHH, at most 500 of them then "...". */
static void put_ascii(int fd, const StrObj *s) {
    const unsigned char *p = (const unsigned char *)s->data, *end = p + s->len;
    for (int count = 0; p < end; count++) {
        if (count == MAX_STRING) {
            puts_fd(fd, "...");
            return;
        }
        unsigned long c = *p++;
        int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (more) c &= 0x3f >> more;
        while (more-- > 0 && p < end) c = (c << 6) | (*p++ & 0x3f);
        if (c >= ' ' && c <= 126) {
            char ch = (char)c;
            posix_write_all(fd, &ch, 1);
        } else {
            puts_fd(fd, c <= 0xff ? "\\x" : c <= 0xffff ? "\\u" : "\\U");
            put_hex(fd, c, c <= 0xff ? 2 : c <= 0xffff ? 4 : 8);
        }
    }
}

static void dump_frames(int fd, VM *vm) {
    int depth = 0;
    for (Frame *f = vm->frame; f; f = f->prev) {
        if (depth++ == MAX_FRAMES) {
            puts_fd(fd, "  ...\n");
            break;
        }
        const CodeObj *co = f->code;
        puts_fd(fd, "  File \"");
        if (co && co->filename) put_ascii(fd, co->filename);
        else puts_fd(fd, "???");
        puts_fd(fd, "\", line ");
        int line = co ? code_line(co, f->ip) : -1;
        if (line >= 0) put_dec(fd, (unsigned long)line);
        else puts_fd(fd, "???");
        puts_fd(fd, " in ");
        if (co && co->name) put_ascii(fd, co->name);
        else puts_fd(fd, "???");
        puts_fd(fd, "\n");
    }
}

/* CPython's layout: "Stack (...)" for one thread, or a "Current thread 0x..." / "Thread 0x..."
 * header per thread (the watchdog is not the interpreter's thread, so its dump says "Thread") */
static void dump_traceback(int fd, VM *vm, bool all_threads, bool current, unsigned long thread) {
    if (!all_threads) {
        puts_fd(fd, "Stack (most recent call first):\n");
    } else {
        puts_fd(fd, current ? "Current thread 0x" : "Thread 0x");
        put_hex(fd, thread, 2 * (int)sizeof thread);
        puts_fd(fd, " (most recent call first):\n");
    }
    dump_frames(fd, vm);
}

/* ---- the state (process-wide: signal dispositions are) ------------------------------------- */

static VM *interp_vm;                 /* the VM whose frames the handlers dump */
static unsigned long interp_thread;   /* the interpreter's thread */

static struct FatalSignal {
    int signum;
    const char *name;
    bool installed;
    struct sigaction previous;
} fatal_signals[] = {
    {.signum = SIGBUS, .name = "Bus error"}, {.signum = SIGILL, .name = "Illegal instruction"},
    {.signum = SIGFPE, .name = "Floating point exception"}, {.signum = SIGABRT, .name = "Aborted"},
    {.signum = SIGSEGV, .name = "Segmentation fault"},
};
enum { NFATAL = sizeof fatal_signals / sizeof fatal_signals[0] };

static struct {
    bool enabled;
    int fd;
    bool all_threads;
} fatal;

static stack_t alt_stack;   /* so a handler can run when the C stack is what overflowed */

static void fatal_handler(int signum) {
    int saved = errno;
    struct FatalSignal *s = NULL;
    for (int i = 0; i < NFATAL; i++)
        if (fatal_signals[i].signum == signum) s = &fatal_signals[i];
    if (!s || !fatal.enabled) return;
    puts_fd(fatal.fd, "Fatal Python error: ");
    puts_fd(fatal.fd, s->name);
    puts_fd(fatal.fd, "\n\n");
    dump_traceback(fatal.fd, interp_vm, fatal.all_threads, pthread_self() == interp_thread,
                   (unsigned long)pthread_self());
    errno = saved;
    /* the previous handler (the default one: the process dies of the signal, as without us) */
    sigaction(signum, &s->previous, NULL);
    s->installed = false;
    raise(signum);
}

/* The fd a file argument names (an int, or an object's fileno() after flush()), as CPython's
 * faulthandler_get_fileno; *keep is the object to keep alive (or None).  -1 + exception. */
static int file_fd(VM *vm, Value file, Value *keep) {
    *keep = val_none();
    if (val_is_null(file) || val_is_none(file)) {
        Value sys = dict_get_c(vm, vm->modules, "sys");
        file = val_is_type(vm, sys, vm->t_module) ? dict_get_c(vm, ((ModuleObj *)sys.as.o)->dict, "stderr")
                                                  : val_null();
        if (val_is_null(file) || val_is_none(file)) {
            vm_raise(vm, vm->e_RuntimeError, "sys.stderr is None");
            return -1;
        }
    }
    int64_t fd;
    if (val_is_intlike(file)) {
        fd = val_as_intlike(file);
        if (fd < 0 || fd > INT32_MAX) {
            vm_raise(vm, vm->e_ValueError, "file is not a valid file descripter");
            return -1;
        }
        return (int)fd;
    }
    vm_push_root(vm, file);
    Value r = vm_call_method(vm, file, "fileno", 0, NULL);
    if (val_is_null(r)) goto fail;
    if (!val_is_intlike(r) || (fd = val_as_intlike(r)) < 0 || fd > INT32_MAX) {
        vm_raise(vm, vm->e_ValueError, "file is not a valid file descripter");
        goto fail;
    }
    /* CPython ignores a failing flush() */
    if (val_is_null(vm_call_method(vm, file, "flush", 0, NULL))) vm_clear_exc(vm);
    vm_pop_root(vm);
    *keep = file;
    return (int)fd;
fail:
    vm_pop_root(vm);
    return -1;
}

static void note_interpreter(VM *vm) {
    interp_vm = vm;
    interp_thread = (unsigned long)pthread_self();
}

/* ---- enable / disable / dump_traceback ------------------------------------------------------ */

static Value fh_enable(ARGS) {
    static const char *const names[] = {"file", "all_threads"};
    Value a[2];
    bool all;
    if (native_parse_args(vm, "enable", argc, argv, kw, 2, 0, names, 2, a) < 0 || native_bool_arg(vm, a[1], true, &all) < 0)
        return val_null();
    Value keep;
    int fd = file_fd(vm, a[0], &keep);
    if (fd < 0) return val_null();
    note_interpreter(vm);
    vm->lib[VM_LIB_faulthandler_file] = keep;
    fatal.fd = fd;
    fatal.all_threads = all;
    if (fatal.enabled) return val_none();
    if (!alt_stack.ss_sp) {
        alt_stack.ss_size = SIGSTKSZ * 2 + 65536;
        alt_stack.ss_sp = malloc(alt_stack.ss_size);
        if (alt_stack.ss_sp && sigaltstack(&alt_stack, NULL) != 0) {
            free(alt_stack.ss_sp);
            alt_stack.ss_sp = NULL;
        }
    }
    fatal.enabled = true;
    for (int i = 0; i < NFATAL; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = fatal_handler;
        sigemptyset(&sa.sa_mask);
        /* SA_NODEFER: the previous handler re-raised from ours runs at once */
        sa.sa_flags = SA_NODEFER | (alt_stack.ss_sp ? SA_ONSTACK : 0);
        if (sigaction(fatal_signals[i].signum, &sa, &fatal_signals[i].previous) != 0) {
            int err = errno;
            for (int j = 0; j < i; j++) sigaction(fatal_signals[j].signum, &fatal_signals[j].previous, NULL);
            fatal.enabled = false;
            return vm_raise_oserror(vm, err, val_null(), val_null());
        }
        fatal_signals[i].installed = true;
    }
    return val_none();
}

static void disable_fatal(VM *vm) {
    if (!fatal.enabled) return;
    fatal.enabled = false;
    for (int i = 0; i < NFATAL; i++)
        if (fatal_signals[i].installed) {
            sigaction(fatal_signals[i].signum, &fatal_signals[i].previous, NULL);
            fatal_signals[i].installed = false;
        }
    vm->lib[VM_LIB_faulthandler_file] = val_null();
}

static Value fh_disable(ARGS) {
    if (!fatal.enabled) return val_bool(false);
    disable_fatal(vm);
    return val_bool(true);
}

static Value fh_is_enabled(ARGS) { return val_bool(fatal.enabled); }

static Value fh_dump_traceback(ARGS) {
    static const char *const names[] = {"file", "all_threads"};
    Value a[2];
    bool all;
    if (native_parse_args(vm, "dump_traceback", argc, argv, kw, 2, 0, names, 2, a) < 0 ||
        native_bool_arg(vm, a[1], true, &all) < 0)
        return val_null();
    Value keep;
    int fd = file_fd(vm, a[0], &keep);
    if (fd < 0) return val_null();
    dump_traceback(fd, vm, all, true, (unsigned long)pthread_self());
    return val_none();
}

/* ---- dump_traceback_later: a watchdog thread --------------------------------------------- */

static struct {
    bool running;
    pthread_t thread;
    sem_t cancel;         /* posted by cancel_dump_traceback_later */
    bool sem_ready;
    int fd;
    bool repeat, exit;
    long long timeout_us;
    char header[64];
} watchdog;

static void *watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long long ns = (long long)until.tv_nsec + (watchdog.timeout_us % 1000000) * 1000;
        until.tv_sec += (time_t)(watchdog.timeout_us / 1000000 + ns / 1000000000);
        until.tv_nsec = (long)(ns % 1000000000);
        int r;
        while ((r = sem_timedwait(&watchdog.cancel, &until)) != 0 && errno == EINTR) {}
        if (r == 0) return NULL;   /* cancelled */
        puts_fd(watchdog.fd, watchdog.header);
        dump_traceback(watchdog.fd, interp_vm, true, false, interp_thread);
        if (watchdog.exit) _exit(1);
        if (!watchdog.repeat) return NULL;
    }
}

static void cancel_watchdog(VM *vm) {
    if (!watchdog.running) return;
    sem_post(&watchdog.cancel);
    pthread_join(watchdog.thread, NULL);
    watchdog.running = false;
    /* a post the thread did not consume (it had already finished) must not cancel the next one */
    while (sem_trywait(&watchdog.cancel) == 0) {}
    vm->lib[VM_LIB_faulthandler_later_file] = val_null();
}

/* seconds as CPython's _PyTime_FromSecondsObject takes them: a float, or an integer */
static int timeout_arg(VM *vm, Value v, double *out) {
    if (val_is_float(v) || vm_isinstance_type(vm, v, vm->t_float)) return vm_to_double(vm, v, out);
    int64_t n;
    if (vm_index(vm, v, &n) < 0) return -1;
    *out = (double)n;
    return 0;
}

static Value fh_dump_traceback_later(ARGS) {
    static const char *const names[] = {"timeout", "repeat", "file", "exit"};
    Value a[4];
    bool repeat, exit_;
    double timeout;
    if (native_parse_args(vm, "dump_traceback_later", argc, argv, kw, 4, 1, names, 4, a) < 0 ||
        timeout_arg(vm, a[0], &timeout) < 0 || native_bool_arg(vm, a[1], false, &repeat) < 0 ||
        native_bool_arg(vm, a[3], false, &exit_) < 0)
        return val_null();
    double us = floor(timeout * 1e6);
    if (!(us > 0)) return vm_raise(vm, vm->e_ValueError, "timeout must be greater than 0");
    if (us >= 9.2e18) return vm_raise(vm, vm->e_OverflowError, "timeout value is too large");
    Value keep;
    int fd = file_fd(vm, a[2], &keep);
    if (fd < 0) return val_null();
    cancel_watchdog(vm);
    if (!watchdog.sem_ready) {
        if (sem_init(&watchdog.cancel, 0, 0) != 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
        watchdog.sem_ready = true;
    }
    note_interpreter(vm);
    long long t = (long long)us, sec = t / 1000000, frac = t % 1000000;
    /* "Timeout (H:MM:SS)!" or "Timeout (H:MM:SS.ffffff)!" */
    if (frac)
        snprintf(watchdog.header, sizeof watchdog.header, "Timeout (%lld:%02lld:%02lld.%06lld)!\n", sec / 3600,
                 sec / 60 % 60, sec % 60, frac);
    else
        snprintf(watchdog.header, sizeof watchdog.header, "Timeout (%lld:%02lld:%02lld)!\n", sec / 3600, sec / 60 % 60,
                 sec % 60);
    watchdog.fd = fd;
    watchdog.repeat = repeat;
    watchdog.exit = exit_;
    watchdog.timeout_us = t;
    vm->lib[VM_LIB_faulthandler_later_file] = keep;
    int err = pthread_create(&watchdog.thread, NULL, watchdog_main, NULL);
    if (err) {
        vm->lib[VM_LIB_faulthandler_later_file] = val_null();
        return vm_raise(vm, vm->e_RuntimeError, "unable to start watchdog thread");
    }
    watchdog.running = true;
    return val_none();
}

static Value fh_cancel_dump_traceback_later(ARGS) {
    cancel_watchdog(vm);
    return val_none();
}

/* ---- register / unregister: dump on a user signal ------------------------------------------ */

static struct UserSignal {
    bool enabled;
    int fd;
    bool all_threads, chain;
    struct sigaction previous;
} user_signals[NSIG];

static void user_handler(int signum) {
    struct UserSignal *u = &user_signals[signum];
    if (!u->enabled) return;
    int saved = errno;
    dump_traceback(u->fd, interp_vm, u->all_threads, pthread_self() == interp_thread, (unsigned long)pthread_self());
    if (u->chain) {
        /* the previous handler, as CPython chains: reinstall it, raise, put ours back */
        struct sigaction ours;
        sigaction(signum, &u->previous, &ours);
        raise(signum);
        sigaction(signum, &ours, NULL);
    }
    errno = saved;
}

/* CPython's check_signum: the fatal signals belong to enable() */
static int signum_arg(VM *vm, Value v, int *out) {
    int64_t s;
    if (vm_index(vm, v, &s) < 0) return -1;
    for (int i = 0; i < NFATAL; i++)
        if (fatal_signals[i].signum == s) {
            vm_raise(vm, vm->e_RuntimeError, "signal %d cannot be registered, use enable() instead", (int)s);
            return -1;
        }
    if (s < 1 || s >= NSIG) {
        vm_raise(vm, vm->e_ValueError, "signal number out of range");
        return -1;
    }
    *out = (int)s;
    return 0;
}

static Value fh_register(ARGS) {
    static const char *const names[] = {"signum", "file", "all_threads", "chain"};
    Value a[4];
    int signum;
    bool all, chain;
    if (native_parse_args(vm, "register", argc, argv, kw, 4, 1, names, 4, a) < 0 || signum_arg(vm, a[0], &signum) < 0 ||
        native_bool_arg(vm, a[2], true, &all) < 0 || native_bool_arg(vm, a[3], false, &chain) < 0)
        return val_null();
    Value keep;
    int fd = file_fd(vm, a[1], &keep);
    if (fd < 0) return val_null();
    struct UserSignal *u = &user_signals[signum];
    if (!u->enabled) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = user_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART | (chain ? SA_NODEFER : 0);
        if (sigaction(signum, &sa, &u->previous) != 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    }
    note_interpreter(vm);
    Value files = vm->lib[VM_LIB_faulthandler_user_files];
    if (!val_is_type(vm, files, vm->t_dict)) {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        files = vm->lib[VM_LIB_faulthandler_user_files] = val_obj(d);
    }
    if (dict_set(vm, AS_DICT(files), val_int(signum), keep) < 0) return val_null();
    u->fd = fd;
    u->all_threads = all;
    u->chain = chain;
    u->enabled = true;
    return val_none();
}

static Value fh_unregister(ARGS) {
    int signum;
    if (signum_arg(vm, argv[0], &signum) < 0) return val_null();
    struct UserSignal *u = &user_signals[signum];
    if (!u->enabled) return val_bool(false);
    u->enabled = false;
    sigaction(signum, &u->previous, NULL);
    Value files = vm->lib[VM_LIB_faulthandler_user_files];
    if (val_is_type(vm, files, vm->t_dict) && dict_del(vm, AS_DICT(files), val_int(signum), NULL) < 0) vm_clear_exc(vm);
    return val_bool(true);
}

/* CPython's private helpers its tests crash the process with */
static Value fh_raise_signal(ARGS) {
    raise((int)(intptr_t)fn->data);
    return val_none();
}

static Value fh_read_null(ARGS) {
    volatile int *null = NULL;
    return val_int(*null);
}

/* The process's fatal-signal handlers and watchdog must not outlive the VM whose frames they
 * read (em_vm_free): called at VM teardown. */
void faulthandler_vm_free(VM *vm) {
    if (interp_vm != vm) return;
    disable_fatal(vm);
    cancel_watchdog(vm);
    for (int s = 1; s < NSIG; s++)
        if (user_signals[s].enabled) {
            user_signals[s].enabled = false;
            sigaction(s, &user_signals[s].previous, NULL);
        }
    interp_vm = NULL;
}

int faulthandler_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"enable", fh_enable}, {"disable", fh_disable, ARITY_NOARGS}, {"is_enabled", fh_is_enabled, ARITY_NOARGS},
        {"dump_traceback", fh_dump_traceback}, {"dump_traceback_later", fh_dump_traceback_later},
        {"cancel_dump_traceback_later", fh_cancel_dump_traceback_later, ARITY_NOARGS},
        {"register", fh_register}, {"unregister", fh_unregister, ARITY_O},
        {"_sigsegv", fh_raise_signal, ARITY_POS(0, 1), (void *)(intptr_t)SIGSEGV},
        {"_sigabrt", fh_raise_signal, ARITY_NOARGS, (void *)(intptr_t)SIGABRT},
        {"_sigfpe", fh_raise_signal, ARITY_NOARGS, (void *)(intptr_t)SIGFPE},
        {"_read_null", fh_read_null, ARITY_NOARGS}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
