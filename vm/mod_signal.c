/* vm/mod_signal.c — the _signal module CPython's signal.py wraps: signal / getsignal with
 * SIG_DFL, SIG_IGN, default_int_handler and script handlers, raise_signal, alarm, pause,
 * strsignal, valid_signals, siginterrupt, setitimer / getitimer (ItimerError),
 * pthread_sigmask, pthread_kill, set_wakeup_fd, and the SIG* constants.
 *
 * A script handler runs in the interpreter, not in the C handler: the C handler marks the
 * signal pending (an async-signal-safe store) and vm_signals_run() calls the handlers.  Ember
 * runs pending handlers where a system call was interrupted (time.sleep, signal.pause); the
 * interpreter loop does not poll for them.  SIGINT keeps the operating system's default (the
 * process ends on Ctrl-C) until a script installs a handler for it, though getsignal reports
 * default_int_handler as CPython's does. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static volatile sig_atomic_t pending[NSIG];
static volatile sig_atomic_t any_pending;
static int wakeup_fd = -1;

static void trip(int sig) {
    pending[sig] = 1;
    any_pending = 1;
    if (wakeup_fd >= 0) {
        unsigned char b = (unsigned char)sig;
        int saved = errno;
        if (write(wakeup_fd, &b, 1) < 0) {
        }
        errno = saved;
    }
}

static ListObj *handlers(VM *vm) { return AS_LIST(vm->lib[VM_LIB_signal_handlers]); }

/* Run the script handlers of the signals caught since the last call.  0, or -1 with the
 * handler's exception pending. */
int vm_signals_run(VM *vm) {
    if (!any_pending || val_is_null(vm->lib[VM_LIB_signal_handlers])) return 0;
    any_pending = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        if (!pending[sig]) continue;
        pending[sig] = 0;
        Value h = handlers(vm)->items[sig];
        if (val_is_intlike(h) || val_is_none(h)) continue;
        if (val_is_null(vm_call2(vm, h, val_int(sig), val_none()))) {
            any_pending = 1;   /* the others wait for the next check */
            return -1;
        }
    }
    return 0;
}

static int sig_arg(VM *vm, Value v, int *out) {
    int64_t s;
    if (vm_index(vm, v, &s) < 0) return -1;
    if (s < 1 || s >= NSIG) {
        vm_raise(vm, vm->e_ValueError, "signal number out of range");
        return -1;
    }
    *out = (int)s;
    return 0;
}

static Value s_signal(ARGS) {
    int sig;
    if (sig_arg(vm, argv[0], &sig) < 0) return val_null();
    Value h = argv[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (val_is_intlike(h) && (val_as_intlike(h) == 0 || val_as_intlike(h) == 1)) {
        sa.sa_handler = val_as_intlike(h) ? SIG_IGN : SIG_DFL;
    } else if (vm_is_callable(vm, h)) {
        sa.sa_handler = trip;
        sa.sa_flags = 0;   /* no SA_RESTART: system calls are interrupted, as under CPython */
    } else {
        return vm_raise(vm, vm->e_TypeError,
                        "signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object");
    }
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, &sa, NULL) < 0)
        return vm_raise_oserror(vm, EINVAL, val_null(), val_null());
    Value old = handlers(vm)->items[sig];
    handlers(vm)->items[sig] = h;
    return old;
}

static Value s_getsignal(ARGS) {
    int sig;
    if (sig_arg(vm, argv[0], &sig) < 0) return val_null();
    return handlers(vm)->items[sig];
}

static Value s_default_int_handler(ARGS) { return vm_raise_value(vm, val_obj(vm->e_KeyboardInterrupt)); }

static Value s_raise_signal(ARGS) {
    int sig;
    if (sig_arg(vm, argv[0], &sig) < 0) return val_null();
    if (raise(sig) != 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return vm_signals_run(vm) < 0 ? val_null() : val_none();
}

static Value s_alarm(ARGS) {
    int64_t s;
    if (vm_index(vm, argv[0], &s) < 0) return val_null();
    return val_int(alarm((unsigned)s));
}

static Value s_pause(ARGS) {
    pause();
    return vm_signals_run(vm) < 0 ? val_null() : val_none();
}

static Value s_strsignal(ARGS) {
    int sig;
    if (sig_arg(vm, argv[0], &sig) < 0) return val_null();
    const char *s = strsignal(sig);
    if (!s || strstr(s, "Unknown signal") || strstr(s, "Real-time signal")) return val_none();
    StrObj *r = str_from_c(vm, s);
    return r ? val_obj(r) : val_null();
}

static Value sigset_to_set(VM *vm, const sigset_t *set) {
    SetObj *s = set_new(vm, vm->t_set);
    if (!s) return val_null();
    vm_push_root(vm, val_obj(s));
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(set, sig) == 1 && set_add(vm, s, val_int(sig)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    vm_pop_root(vm);
    return val_obj(s);
}

static Value s_valid_signals(ARGS) {
    sigset_t all;
    sigfillset(&all);
    return sigset_to_set(vm, &all);
}

static Value s_pthread_sigmask(ARGS) {
    int64_t how;
    if (vm_index(vm, argv[0], &how) < 0) return val_null();
    sigset_t set, old;
    sigemptyset(&set);
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    for (;;) {
        Value v = vm_next(vm, it);
        if (val_is_null(v)) break;
        int sig;
        if (sig_arg(vm, v, &sig) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        sigaddset(&set, sig);
    }
    vm_pop_root(vm);
    if (vm->exc.tag) return val_null();
    int e = pthread_sigmask((int)how, &set, &old);
    if (e) return vm_raise_oserror(vm, e, val_null(), val_null());
    return sigset_to_set(vm, &old);
}

static Value s_pthread_kill(ARGS) {
    int64_t tid;
    int sig;
    if (vm_index(vm, argv[0], &tid) < 0 || sig_arg(vm, argv[1], &sig) < 0) return val_null();
    int e = pthread_kill((pthread_t)tid, sig);
    if (e) return vm_raise_oserror(vm, e, val_null(), val_null());
    return vm_signals_run(vm) < 0 ? val_null() : val_none();
}

static Value s_siginterrupt(ARGS) {
    int sig;
    if (sig_arg(vm, argv[0], &sig) < 0) return val_null();
    int flag = vm_truthy(vm, argv[1]);
    if (flag < 0) return val_null();
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    if (flag) sa.sa_flags &= ~SA_RESTART;
    else sa.sa_flags |= SA_RESTART;
    if (sigaction(sig, &sa, NULL) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return val_none();
}

static Value s_set_wakeup_fd(ARGS) {
    static const char *const names[] = {"fd", "warn_on_full_buffer"};
    Value a[2];
    if (native_parse_args(vm, "set_wakeup_fd", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    int64_t fd;
    if (vm_index(vm, a[0], &fd) < 0) return val_null();
    int old = wakeup_fd;
    wakeup_fd = (int)fd;
    return val_int(old);
}

static Value itimer_tuple(VM *vm, const struct itimerval *v) {
    TupleObj *t = tuple_pack(vm, 2, val_float((double)v->it_value.tv_sec + v->it_value.tv_usec * 1e-6),
                             val_float((double)v->it_interval.tv_sec + v->it_interval.tv_usec * 1e-6));
    return t ? val_obj(t) : val_null();
}

static void to_tv(double d, struct timeval *tv) {
    tv->tv_sec = (time_t)d;
    tv->tv_usec = (suseconds_t)((d - (double)tv->tv_sec) * 1e6);
}

static Value s_setitimer(ARGS) {
    int64_t which;
    double secs, interval = 0;
    if (vm_index(vm, argv[0], &which) < 0 || vm_to_double(vm, argv[1], &secs) < 0 ||
        (argc > 2 && vm_to_double(vm, argv[2], &interval) < 0))
        return val_null();
    struct itimerval nv, old;
    to_tv(secs, &nv.it_value);
    to_tv(interval, &nv.it_interval);
    if (setitimer((int)which, &nv, &old) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return itimer_tuple(vm, &old);
}

static Value s_getitimer(ARGS) {
    int64_t which;
    if (vm_index(vm, argv[0], &which) < 0) return val_null();
    struct itimerval v;
    if (getitimer((int)which, &v) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return itimer_tuple(vm, &v);
}

int signal_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"signal", s_signal, ARITY_POS(2, 2)}, {"getsignal", s_getsignal, ARITY_O},
        {"default_int_handler", s_default_int_handler, ARITY_POS(0, 2)}, {"raise_signal", s_raise_signal, ARITY_O},
        {"alarm", s_alarm, ARITY_O}, {"pause", s_pause, ARITY_NOARGS}, {"strsignal", s_strsignal, ARITY_O},
        {"valid_signals", s_valid_signals, ARITY_NOARGS}, {"pthread_sigmask", s_pthread_sigmask, ARITY_POS(2, 2)},
        {"pthread_kill", s_pthread_kill, ARITY_POS(2, 2)}, {"siginterrupt", s_siginterrupt, ARITY_POS(2, 2)},
        {"set_wakeup_fd", s_set_wakeup_fd}, {"setitimer", s_setitimer, ARITY_POS(2, 3)},
        {"getitimer", s_getitimer, ARITY_O}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    if (val_is_null(vm->lib[VM_LIB_signal_handlers])) {
        ListObj *l = list_new(vm, NSIG);
        if (!l) return -1;
        vm->lib[VM_LIB_signal_handlers] = val_obj(l);
        Value dih = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "default_int_handler");
        for (int sig = 0; sig < NSIG; sig++) {
            struct sigaction sa;
            Value h = val_int(0);
            if (sig > 0 && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) h = val_int(1);
            if (sig == SIGINT) h = dih;
            l->items[sig] = h;
        }
        l->len = NSIG;
    }
    /* not static: SIGRTMIN / SIGRTMAX are calls into the C library */
    const struct { const char *n; int v; } consts[] = {
#define S(x) {#x, x}
        S(SIGHUP), S(SIGINT), S(SIGQUIT), S(SIGILL), S(SIGTRAP), S(SIGABRT), S(SIGIOT), S(SIGBUS), S(SIGFPE),
        S(SIGKILL), S(SIGUSR1), S(SIGSEGV), S(SIGUSR2), S(SIGPIPE), S(SIGALRM), S(SIGTERM), S(SIGSTKFLT),
        S(SIGCHLD), S(SIGCONT), S(SIGSTOP), S(SIGTSTP), S(SIGTTIN), S(SIGTTOU), S(SIGURG), S(SIGXCPU), S(SIGXFSZ),
        S(SIGVTALRM), S(SIGPROF), S(SIGWINCH), S(SIGIO), S(SIGPOLL), S(SIGPWR), S(SIGSYS), S(SIGRTMIN), S(SIGRTMAX),
        S(NSIG), S(SIG_BLOCK), S(SIG_UNBLOCK), S(SIG_SETMASK), S(ITIMER_REAL), S(ITIMER_VIRTUAL), S(ITIMER_PROF),
#undef S
        {"SIG_DFL", 0}, {"SIG_IGN", 1}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    if (val_is_null(vm->lib[VM_LIB_itimer_error])) {
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_OSError));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        Value t = val_null();
        if (ns) {
            vm_push_root(vm, val_obj(ns));
            if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "signal")) == 0)
                t = type_new_class(vm, vm->t_type, vm_intern_str(vm, "itimer_error"), bases, ns, 0, NULL, NULL);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (val_is_null(t)) return -1;
        vm->lib[VM_LIB_itimer_error] = t;
    }
    return module_set(vm, mod, "ItimerError", vm->lib[VM_LIB_itimer_error]);
}
