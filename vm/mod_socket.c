/* vm/mod_socket.c — the _socket module CPython's socket.py wraps: the socket type (a base class
 * socket.socket subclasses) with CPython's timeout model, the module's constants, socketpair,
 * dup / close, the default timeout and CMSG_LEN / CMSG_SPACE.  Addresses and name resolution
 * are in vm/mod_socket_addr.c.
 *
 * Timeouts are CPython's: a socket with a timeout is non-blocking underneath, and each call
 * first polls for readiness (or, for connect, polls after EINPROGRESS) with the time left,
 * raising TimeoutError("timed out") when it runs out; a blocking socket (timeout None) simply
 * blocks.  Interrupted system calls run the pending signal handlers and retry. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vm/bigint.h"
#include "vm/buffer.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/mod_socket.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define SOCK(v) ((SockObj *)(v).as.o)

int vm_signals_run(VM *vm);

static int64_t default_timeout_ns = -1;   /* setdefaulttimeout: process-wide as in CPython */

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static Value sock_error(VM *vm) { return vm_raise_oserror(vm, errno, val_null(), val_null()); }

static Value timed_out(VM *vm) { return vm_raise(vm, vm->e_TimeoutError, "timed out"); }

/* A timeout argument in nanoseconds (None: -1), rounded up as CPython's _PyTime_ROUND_TIMEOUT. */
static int timeout_arg(VM *vm, Value v, int64_t *out) {
    if (val_is_none(v)) {
        *out = -1;
        return 0;
    }
    /* a float, else an integer (CPython's _PyTime_FromSecondsObject) */
    double d;
    if (val_is_float(v)) {
        d = v.as.f;
    } else {
        int64_t n;
        if (val_is_intobj(v) ? bigint_as_i64(vm, v, &n) < 0 : vm_index(vm, v, &n) < 0) {
            if (val_is_intobj(v)) vm_raise(vm, vm->e_OverflowError, "timestamp too large to convert to C _PyTime_t");
            return -1;
        }
        d = (double)n;
    }
    if (isnan(d)) {
        vm_raise(vm, vm->e_ValueError, "Invalid value NaN (not a number)");
        return -1;
    }
    if (d < 0) {
        vm_raise(vm, vm->e_ValueError, "Timeout value out of range");
        return -1;
    }
    if (d * 1e9 > 9.2e18) {
        vm_raise(vm, vm->e_OverflowError, "timestamp too large to convert to C _PyTime_t");
        return -1;
    }
    *out = (int64_t)ceil(d * 1e9);
    return 0;
}

static Value timeout_value(int64_t ns) { return ns < 0 ? val_none() : val_float((double)ns / 1e9); }

static int set_nonblocking(int fd, bool nonblocking) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) return -1;
    int nfl = nonblocking ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
    return nfl == fl ? 0 : fcntl(fd, F_SETFL, nfl);
}

/* ---- the call loop (CPython's sock_call_ex) ----------------------------------------------------- */

/* Wait until fd is ready for reading / writing or the deadline (CLOCK_MONOTONIC ns; INT64_MAX:
 * none) passes: 1 ready, 0 timed out, -1 error raised. */
static int wait_ready(VM *vm, SockObj *s, bool writing, int64_t deadline) {
    for (;;) {
        int64_t left = deadline == INT64_MAX ? -1 : deadline - now_ns();
        if (left < 0 && deadline != INT64_MAX) left = 0;
        struct pollfd p = {.fd = s->fd, .events = writing ? POLLOUT : POLLIN};
        int ms = left < 0 ? -1 : left / 1000000 >= INT32_MAX ? INT32_MAX : (int)((left + 999999) / 1000000);
        int r = poll(&p, 1, ms);
        if (r > 0) return 1;
        if (r == 0) return 0;
        if (errno != EINTR) {
            sock_error(vm);
            return -1;
        }
        if (vm_signals_run(vm) < 0) return -1;
    }
}

typedef ssize_t (*SockOp)(SockObj *s, void *ctx);

/* Run op until it succeeds, honouring the socket's timeout.  op's result, or -1 with the
 * error raised. */
static ssize_t sock_call(VM *vm, SockObj *s, bool writing, SockOp op, void *ctx) {
    if (s->fd < 0) {
        errno = EBADF;
        sock_error(vm);
        return -1;
    }
    int64_t deadline = s->timeout_ns > 0 ? now_ns() + s->timeout_ns : 0;
    for (;;) {
        if (s->timeout_ns > 0) {
            int r = wait_ready(vm, s, writing, deadline);
            if (r < 0) return -1;
            if (r == 0) {
                timed_out(vm);
                return -1;
            }
        }
        ssize_t n;
        for (;;) {
            n = op(s, ctx);
            if (n >= 0 || errno != EINTR) break;
            if (vm_signals_run(vm) < 0) return -1;
        }
        if (n >= 0) return n;
        if (s->timeout_ns > 0 && (errno == EWOULDBLOCK || errno == EAGAIN)) continue;
        sock_error(vm);
        return -1;
    }
}

static SockObj *sock_check(VM *vm, Value v) {
    if (v.tag == VAL_OBJ && vm_isinstance_type(vm, v, AS_TYPE(vm->lib[VM_LIB_socket_type]))) return SOCK(v);
    vm_raise(vm, vm->e_TypeError, "descriptor requires a '_socket.socket' object but received '%s'",
             vm_type_name(vm, v));
    return NULL;
}

/* ---- construction ---------------------------------------------------------------------------- */

static void sock_finalize(VM *vm, Obj *o) {
    SockObj *s = (SockObj *)o;
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

static Value sock_new(ARGS) {
    SockObj *s = gc_alloc(vm, AS_TYPE(argv[0]), AS_TYPE(argv[0])->instance_size);
    if (!s) return val_null();
    s->fd = -1;
    s->family = AF_INET;
    s->type = SOCK_STREAM;
    s->timeout_ns = -1;
    return val_obj(s);
}

static int sock_setup(VM *vm, SockObj *s, int fd, int family, int type, int proto) {
    s->fd = fd;
    s->family = family;
    s->type = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    s->proto = proto;
    if (type & SOCK_NONBLOCK) {
        s->timeout_ns = 0;
    } else {
        s->timeout_ns = default_timeout_ns;
        if (s->timeout_ns >= 0 && set_nonblocking(fd, true) < 0) {
            sock_error(vm);
            return -1;
        }
    }
    return 0;
}

static int int_or(VM *vm, Value v, int dflt, int *out) {
    int64_t n = dflt;
    if (!val_is_null(v) && vm_index(vm, v, &n) < 0) return -1;
    if (n < INT32_MIN || n > INT32_MAX) {
        vm_raise(vm, vm->e_OverflowError, "signed integer is greater than maximum");
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* socket(family=-1, type=-1, proto=-1, fileno=None) */
static Value sock_init(ARGS) {
    static const char *const names[] = {"self", "family", "type", "proto", "fileno"};
    Value a[5];
    if (native_parse_args(vm, "socket", argc, argv, kw, 5, 1, names, 5, a) < 0) return val_null();
    SockObj *s = sock_check(vm, argv[0]);
    if (!s) return val_null();
    int family, type, proto;
    if (int_or(vm, a[1], -1, &family) < 0 || int_or(vm, a[2], -1, &type) < 0 || int_or(vm, a[3], -1, &proto) < 0)
        return val_null();
    int fd;
    if (!val_is_null(a[4]) && !val_is_none(a[4])) {
        if (val_is_float(a[4])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
        int64_t n;
        if (vm_index(vm, a[4], &n) < 0) return val_null();
        if (n < 0) return vm_raise(vm, vm->e_ValueError, "negative file descriptor");
        fd = (int)n;
        socklen_t len;
        if (family == -1) {
            SockAddr sa;
            len = sizeof sa;
            memset(&sa, 0, sizeof sa);
            if (getsockname(fd, &sa.sa, &len) < 0) return sock_error(vm);
            family = sa.sa.sa_family;
        }
        if (type == -1) {
            len = sizeof type;
            if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) return sock_error(vm);
        }
        if (proto == -1) {
            len = sizeof proto;
            if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0) return sock_error(vm);
        }
    } else {
        if (family == -1) family = AF_INET;
        if (type == -1) type = SOCK_STREAM;
        if (proto == -1) proto = 0;
        fd = socket(family, type | SOCK_CLOEXEC, proto);
        if (fd < 0) return sock_error(vm);
    }
    if (sock_setup(vm, s, fd, family, type, proto) < 0) return val_null();
    return val_none();
}

/* A new _socket.socket around fd (socketpair's halves). */
static Value sock_wrap(VM *vm, int fd, int family, int type, int proto) {
    TypeObj *t = AS_TYPE(vm->lib[VM_LIB_socket_type]);
    SockObj *s = gc_alloc(vm, t, t->instance_size);
    if (!s) return val_null();
    if (sock_setup(vm, s, fd, family, type, proto) < 0) {
        s->fd = -1;
        return val_null();
    }
    return val_obj(s);
}

/* ---- simple methods ------------------------------------------------------------------------- */

static Value m_fileno(ARGS) { return val_int(SOCK(argv[0])->fd); }

static Value m_close(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int fd = s->fd;
    if (fd >= 0) {
        s->fd = -1;
        /* ECONNRESET: the peer already reset the connection; the descriptor is closed anyway */
        if (close(fd) < 0 && errno != ECONNRESET && errno != EINTR) return sock_error(vm);
    }
    return val_none();
}

static Value m_detach(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int fd = s->fd;
    s->fd = -1;
    return val_int(fd);
}

static Value m_repr(ARGS) {
    SockObj *s = SOCK(argv[0]);
    StrObj *r = str_printf(vm, "<socket object, fd=%d, family=%d, type=%d, proto=%d>", s->fd, s->family, s->type,
                           s->proto);
    return r ? val_obj(r) : val_null();
}

static Value m_settimeout(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int64_t t;
    if (timeout_arg(vm, argv[1], &t) < 0) return val_null();
    s->timeout_ns = t;
    if (s->fd >= 0 && set_nonblocking(s->fd, t >= 0) < 0) return sock_error(vm);
    return val_none();
}

static Value m_gettimeout(ARGS) { return timeout_value(SOCK(argv[0])->timeout_ns); }

static Value m_setblocking(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int truth = vm_truthy(vm, argv[1]);
    if (truth < 0) return val_null();
    s->timeout_ns = truth ? -1 : 0;
    if (s->fd >= 0 && set_nonblocking(s->fd, !truth) < 0) return sock_error(vm);
    return val_none();
}

static Value m_getblocking(ARGS) { return val_bool(SOCK(argv[0])->timeout_ns != 0); }

static Value addr_call(VM *vm, SockObj *s, int (*get)(int, struct sockaddr *, socklen_t *)) {
    if (s->fd < 0) {
        errno = EBADF;
        return sock_error(vm);
    }
    SockAddr sa;
    memset(&sa, 0, sizeof sa);
    socklen_t len = sizeof sa;
    if (get(s->fd, &sa.sa, &len) < 0) return sock_error(vm);
    return sockaddr_to_value(vm, &sa.sa, len);
}

static Value m_getsockname(ARGS) { return addr_call(vm, SOCK(argv[0]), getsockname); }
static Value m_getpeername(ARGS) { return addr_call(vm, SOCK(argv[0]), getpeername); }

static Value m_bind(ARGS) {
    SockObj *s = SOCK(argv[0]);
    SockAddr sa;
    socklen_t len;
    if (sockaddr_from_value(vm, s->family, argv[1], &sa, &len, "bind") < 0) return val_null();
    if (bind(s->fd, &sa.sa, len) < 0) return sock_error(vm);
    return val_none();
}

static Value m_listen(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int64_t backlog = SOMAXCONN < 128 ? SOMAXCONN : 128;
    if (argc > 1 && vm_index(vm, argv[1], &backlog) < 0) return val_null();
    if (backlog < 0) backlog = 0;
    if (listen(s->fd, (int)backlog) < 0) return sock_error(vm);
    return val_none();
}

static Value m_shutdown(ARGS) {
    int64_t how;
    if (vm_index(vm, argv[1], &how) < 0) return val_null();
    if (shutdown(SOCK(argv[0])->fd, (int)how) < 0) return sock_error(vm);
    return val_none();
}

/* setsockopt(level, option, value: int | buffer) / setsockopt(level, option, None, optlen) */
static Value m_setsockopt(ARGS) {
    if (native_check_args(vm, "setsockopt", argc, kw, 4, 5) < 0) return val_null();
    SockObj *s = SOCK(argv[0]);
    int64_t level, opt;
    if (vm_index(vm, argv[1], &level) < 0 || vm_index(vm, argv[2], &opt) < 0) return val_null();
    int r;
    if (argc == 5) {
        if (!val_is_none(argv[3]))
            return vm_raise(vm, vm->e_TypeError, "setsockopt() takes exactly 4 arguments (5 given)");
        int64_t optlen;
        if (vm_index(vm, argv[4], &optlen) < 0) return val_null();
        r = setsockopt(s->fd, (int)level, (int)opt, NULL, (socklen_t)optlen);
    } else if (val_is_intlike(argv[3]) || val_is_intobj(argv[3])) {
        int64_t v;
        if (vm_index(vm, argv[3], &v) < 0) return val_null();
        int iv = (int)v;
        r = setsockopt(s->fd, (int)level, (int)opt, &iv, sizeof iv);
    } else {
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, argv[3], "setsockopt", &h, &p, &n) < 0) return val_null();
        r = setsockopt(s->fd, (int)level, (int)opt, p, (socklen_t)n);
    }
    if (r < 0) return sock_error(vm);
    return val_none();
}

static Value m_getsockopt(ARGS) {
    SockObj *s = SOCK(argv[0]);
    int64_t level, opt, buflen = 0;
    if (vm_index(vm, argv[1], &level) < 0 || vm_index(vm, argv[2], &opt) < 0) return val_null();
    if (argc > 3 && vm_index(vm, argv[3], &buflen) < 0) return val_null();
    if (buflen == 0) {   /* no buffer length (or 0): the option as an int */
        int v = 0;
        socklen_t len = sizeof v;
        if (getsockopt(s->fd, (int)level, (int)opt, &v, &len) < 0) return sock_error(vm);
        return val_int(v);
    }
    if (buflen <= 0 || buflen > 1024) return vm_raise(vm, vm->e_OSError, "getsockopt buflen out of range");
    uint8_t buf[1024];
    socklen_t len = (socklen_t)buflen;
    if (getsockopt(s->fd, (int)level, (int)opt, buf, &len) < 0) return sock_error(vm);
    BytesObj *b = bytes_new(vm, buf, len);
    return b ? val_obj(b) : val_null();
}

/* ---- connect / accept ------------------------------------------------------------------------ */

/* connect as CPython's internal_connect: 0 connected, else the errno (raise = false for
 * connect_ex), -1 with an exception raised for errors that are not the connection's. */
static int do_connect(VM *vm, SockObj *s, Value addr, bool raise, const char *caller) {
    SockAddr sa;
    socklen_t len;
    if (sockaddr_from_value(vm, s->family, addr, &sa, &len, caller) < 0) return -1;
    if (s->fd < 0) {
        errno = EBADF;
        if (raise) sock_error(vm);
        return raise ? -1 : EBADF;
    }
    int err = connect(s->fd, &sa.sa, len) == 0 ? 0 : errno;
    if (err == EINTR) {
        /* the connection goes on in the background; CPython waits for it unless non-blocking */
        if (vm_signals_run(vm) < 0) return -1;
        if (s->timeout_ns != 0) err = EINPROGRESS;
    }
    if (err == EINPROGRESS && s->timeout_ns != 0) {
        int w = wait_ready(vm, s, true, s->timeout_ns > 0 ? now_ns() + s->timeout_ns : INT64_MAX);
        if (w < 0) return -1;
        if (w == 0) {
            if (raise) {
                timed_out(vm);
                return -1;
            }
            return EWOULDBLOCK;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) soerr = errno;
        err = soerr;
    }
    if (err && raise) {
        errno = err;
        sock_error(vm);
        return -1;
    }
    return err;
}

static Value m_connect(ARGS) {
    return do_connect(vm, SOCK(argv[0]), argv[1], true, "connect") == 0 ? val_none() : val_null();
}

static Value m_connect_ex(ARGS) {
    int r = do_connect(vm, SOCK(argv[0]), argv[1], false, "connect_ex");
    return r < 0 ? val_null() : val_int(r);
}

typedef struct AcceptCtx {
    SockAddr sa;
    socklen_t len;
} AcceptCtx;

static ssize_t op_accept(SockObj *s, void *c) {
    AcceptCtx *a = c;
    a->len = sizeof a->sa;
    return accept4(s->fd, &a->sa.sa, &a->len, SOCK_CLOEXEC);
}

/* _accept() -> (fd, address): socket.py's accept wraps the descriptor */
static Value m_accept(ARGS) {
    SockObj *s = SOCK(argv[0]);
    AcceptCtx a;
    memset(&a, 0, sizeof a);
    ssize_t fd = sock_call(vm, s, false, op_accept, &a);
    if (fd < 0) return val_null();
    Value addr = sockaddr_to_value(vm, &a.sa.sa, a.len);
    if (val_is_null(addr)) {
        close((int)fd);
        return addr;
    }
    vm_push_root(vm, addr);
    TupleObj *t = tuple_pack(vm, 2, val_int(fd), addr);
    vm_pop_root(vm);
    if (!t) close((int)fd);
    return t ? val_obj(t) : val_null();
}

/* ---- sending --------------------------------------------------------------------------------- */

typedef struct SendCtx {
    const uint8_t *p;
    size_t n;
    int flags;
    const SockAddr *to;
    socklen_t tolen;
} SendCtx;

static ssize_t op_send(SockObj *s, void *c) {
    SendCtx *x = c;
    return x->to ? sendto(s->fd, x->p, x->n, x->flags | MSG_NOSIGNAL, &x->to->sa, x->tolen)
                 : send(s->fd, x->p, x->n, x->flags | MSG_NOSIGNAL);
}

static Value m_send(ARGS) {
    if (native_check_args(vm, "send", argc, kw, 2, 3) < 0) return val_null();
    SockObj *s = SOCK(argv[0]);
    int64_t flags = 0;
    if (argc > 2 && vm_index(vm, argv[2], &flags) < 0) return val_null();
    Value h;
    SendCtx x = {.flags = (int)flags};
    int64_t n;
    if (buffer_get(vm, argv[1], "send", &h, &x.p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    x.n = (size_t)n;
    ssize_t r = sock_call(vm, s, true, op_send, &x);
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_int(r);
}

static Value m_sendall(ARGS) {
    if (native_check_args(vm, "sendall", argc, kw, 2, 3) < 0) return val_null();
    SockObj *s = SOCK(argv[0]);
    int64_t flags = 0;
    if (argc > 2 && vm_index(vm, argv[2], &flags) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "sendall", &h, &p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    /* the timeout bounds the whole transfer, as CPython's deadline does */
    int64_t saved = s->timeout_ns, deadline = saved > 0 ? now_ns() + saved : 0;
    Value r = val_none();
    while (n > 0) {
        if (saved > 0) {
            int64_t left = deadline - now_ns();
            if (left <= 0) {
                r = timed_out(vm);
                break;
            }
            s->timeout_ns = left;
        }
        SendCtx x = {.p = p, .n = (size_t)n, .flags = (int)flags};
        ssize_t k = sock_call(vm, s, true, op_send, &x);
        s->timeout_ns = saved;
        if (k < 0) {
            r = val_null();
            break;
        }
        p += k;
        n -= k;
    }
    s->timeout_ns = saved;
    vm_pop_root(vm);
    return r;
}

/* sendto(data[, flags], address) */
static Value m_sendto(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "sendto() takes no keyword arguments");
    if (argc != 3 && argc != 4)
        return vm_raise(vm, vm->e_TypeError, "sendto() takes 2 or 3 arguments (%d given)", argc - 1);
    SockObj *s = SOCK(argv[0]);
    int64_t flags = 0;
    if (argc == 4 && vm_index(vm, argv[2], &flags) < 0) return val_null();
    SockAddr sa;
    socklen_t len;
    Value h;
    int64_t n;
    SendCtx x = {.flags = (int)flags, .to = &sa};
    if (buffer_get(vm, argv[1], "sendto", &h, &x.p, &n) < 0) return val_null();
    vm_push_root(vm, h);
    ssize_t r = -1;
    if (sockaddr_from_value(vm, s->family, argv[argc - 1], &sa, &len, "sendto") == 0) {
        x.n = (size_t)n;
        x.tolen = len;
        r = sock_call(vm, s, true, op_send, &x);
    }
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_int(r);
}

/* ---- receiving ------------------------------------------------------------------------------- */

typedef struct RecvCtx {
    uint8_t *p;
    size_t n;
    int flags;
    bool from;
    SockAddr sa;
    socklen_t len;
} RecvCtx;

static ssize_t op_recv(SockObj *s, void *c) {
    RecvCtx *x = c;
    if (!x->from) return recv(s->fd, x->p, x->n, x->flags);
    x->len = sizeof x->sa;
    return recvfrom(s->fd, x->p, x->n, x->flags, &x->sa.sa, &x->len);
}

/* recv / recvfrom into a fresh bytes object */
static Value recv_bytes(VM *vm, Value self, Value size, Value flagsv, bool from, const char *name) {
    SockObj *s = SOCK(self);
    int64_t n, flags = 0;
    if (vm_index(vm, size, &n) < 0) return val_null();
    if (!val_is_null(flagsv) && vm_index(vm, flagsv, &flags) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "negative buffersize in %s", name);
    RecvCtx x = {.n = (size_t)n, .flags = (int)flags, .from = from};
    x.p = malloc(n ? (size_t)n : 1);
    if (!x.p) return vm_no_memory(vm);
    memset(&x.sa, 0, sizeof x.sa);
    ssize_t r = sock_call(vm, s, false, op_recv, &x);
    if (r < 0) {
        free(x.p);
        return val_null();
    }
    BytesObj *b = bytes_new(vm, x.p, r);
    free(x.p);
    if (!b || !from) return b ? val_obj(b) : val_null();
    vm_push_root(vm, val_obj(b));
    Value addr = sockaddr_to_value(vm, &x.sa.sa, x.len);
    TupleObj *t = NULL;
    if (!val_is_null(addr)) {
        vm_push_root(vm, addr);
        t = tuple_pack(vm, 2, val_obj(b), addr);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value m_recv(ARGS) {
    if (native_check_args(vm, "recv", argc, kw, 2, 3) < 0) return val_null();
    return recv_bytes(vm, argv[0], argv[1], argc > 2 ? argv[2] : val_null(), false, "recv");
}

static Value m_recvfrom(ARGS) {
    if (native_check_args(vm, "recvfrom", argc, kw, 2, 3) < 0) return val_null();
    return recv_bytes(vm, argv[0], argv[1], argc > 2 ? argv[2] : val_null(), true, "recvfrom");
}

/* recv_into(buffer, nbytes=0, flags=0) / recvfrom_into: read, then copy into the buffer by
 * slice assignment (bytearray, memoryview, array) */
static Value recv_into(VM *vm, int argc, Value *argv, TupleObj *kw, bool from) {
    const char *name = from ? "recvfrom_into" : "recv_into";
    static const char *const names[] = {"self", "buffer", "nbytes", "flags"};
    Value a[4];
    if (native_parse_args(vm, name, argc, argv, kw, 4, 2, names, 4, a) < 0) return val_null();
    int64_t cap = vm_len(vm, a[1]);
    if (cap < 0) return val_null();
    int64_t n = 0;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "negative buffersize in %s", name);
    if (n == 0) n = cap;
    if (n > cap) return vm_raise(vm, vm->e_ValueError, "%s", from ? "nbytes is greater than the length of the buffer"
                                                                 : "buffer too small for requested bytes");
    Value got = recv_bytes(vm, argv[0], val_int(n), a[3], from, from ? "recvfrom_into" : "recv_into");
    if (val_is_null(got)) return got;
    vm_push_root(vm, got);
    Value data = from ? ((TupleObj *)got.as.o)->items[0] : got;
    int64_t k = ((BytesObj *)data.as.o)->len;
    Value sl = slice_new(vm, val_int(0), val_int(k), val_none());
    Value r = val_null();
    if (!val_is_null(sl)) vm_push_root(vm, sl);
    if (!val_is_null(sl) && vm_setitem(vm, a[1], sl, data) == 0) {
        if (!from) {
            r = val_int(k);
        } else {
            TupleObj *t = tuple_pack(vm, 2, val_int(k), ((TupleObj *)got.as.o)->items[1]);
            r = t ? val_obj(t) : val_null();
        }
    }
    if (!val_is_null(sl)) vm_pop_root(vm);
    vm_pop_root(vm);
    return r;
}

static Value m_recv_into(ARGS) { return recv_into(vm, argc, argv, kw, false); }
static Value m_recvfrom_into(ARGS) { return recv_into(vm, argc, argv, kw, true); }

/* ---- sendmsg / recvmsg --------------------------------------------------------------------------- */

typedef struct MsgCtx {
    struct msghdr msg;
    int flags;
} MsgCtx;

static ssize_t op_sendmsg(SockObj *s, void *c) {
    MsgCtx *m = c;
    return sendmsg(s->fd, &m->msg, m->flags | MSG_NOSIGNAL);
}

static ssize_t op_recvmsg(SockObj *s, void *c) {
    MsgCtx *m = c;
    return recvmsg(s->fd, &m->msg, m->flags);
}

/* sendmsg(buffers[, ancdata[, flags[, address]]]): ancdata is an iterable of
 * (level, type, data) */
static Value m_sendmsg(ARGS) {
    if (native_check_args(vm, "sendmsg", argc, kw, 2, 5) < 0) return val_null();
    SockObj *s = SOCK(argv[0]);
    int64_t flags = 0;
    if (argc > 3 && vm_index(vm, argv[3], &flags) < 0) return val_null();
    ListObj *bufs = vm_list_from_iterable(vm, argv[1]);
    if (!bufs) return val_null();
    vm_push_root(vm, val_obj(bufs));
    Value r = val_null();
    ListObj *anc = NULL;
    struct iovec *iov = calloc((size_t)bufs->len + 1, sizeof *iov);
    uint8_t *ctl = NULL;
    size_t ctllen = 0;
    int roots = 1;
    if (!iov) {
        vm_no_memory(vm);
        goto done;
    }
    for (int64_t i = 0; i < bufs->len; i++) {
        Value h;
        const uint8_t *p;
        int64_t n;
        if (buffer_get(vm, bufs->items[i], "sendmsg", &h, &p, &n) < 0) goto done;
        if (!val_is_null(h)) bufs->items[i] = h;   /* keep the copy alive in the list */
        iov[i].iov_base = (void *)p;
        iov[i].iov_len = (size_t)n;
    }
    if (argc > 2) {
        anc = vm_list_from_iterable(vm, argv[2]);
        if (!anc) goto done;
        vm_push_root(vm, val_obj(anc));
        roots++;
        /* two passes: sizes, then fill */
        for (int64_t i = 0; i < anc->len; i++) {
            Value it = anc->items[i];
            if (!(it.tag == VAL_OBJ && vm_isinstance_type(vm, it, vm->t_tuple)) || ((TupleObj *)it.as.o)->len != 3) {
                vm_raise(vm, vm->e_TypeError, "[sendmsg() ancillary data items]() argument must be sequence of length 3, not %s",
                         vm_type_name(vm, it));
                goto done;
            }
            TupleObj *t = (TupleObj *)it.as.o;
            Value h;
            const uint8_t *p;
            int64_t n;
            if (buffer_get(vm, t->items[2], "sendmsg", &h, &p, &n) < 0) goto done;
            ctllen += CMSG_SPACE((size_t)n);
        }
        if (ctllen) {
            ctl = calloc(1, ctllen);
            if (!ctl) {
                vm_no_memory(vm);
                goto done;
            }
        }
    }
    MsgCtx m = {.flags = (int)flags};
    m.msg.msg_iov = iov;
    m.msg.msg_iovlen = (size_t)bufs->len;
    SockAddr sa;
    socklen_t salen;
    if (argc > 4 && !val_is_none(argv[4])) {
        if (sockaddr_from_value(vm, s->family, argv[4], &sa, &salen, "sendmsg") < 0) goto done;
        m.msg.msg_name = &sa;
        m.msg.msg_namelen = salen;
    }
    if (ctl) {
        m.msg.msg_control = ctl;
        m.msg.msg_controllen = ctllen;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m.msg);
        for (int64_t i = 0; i < anc->len; i++) {
            TupleObj *t = (TupleObj *)anc->items[i].as.o;
            int64_t level, type;
            Value h;
            const uint8_t *p;
            int64_t n;
            if (vm_index(vm, t->items[0], &level) < 0 || vm_index(vm, t->items[1], &type) < 0) goto done;
            if (buffer_get(vm, t->items[2], "sendmsg", &h, &p, &n) < 0) goto done;
            c->cmsg_level = (int)level;
            c->cmsg_type = (int)type;
            c->cmsg_len = CMSG_LEN((size_t)n);
            memcpy(CMSG_DATA(c), p, (size_t)n);
            c = CMSG_NXTHDR(&m.msg, c);
        }
    }
    ssize_t k = sock_call(vm, s, true, op_sendmsg, &m);
    if (k >= 0) r = val_int(k);
done:
    free(iov);
    free(ctl);
    while (roots--) vm_pop_root(vm);
    return r;
}

/* recvmsg(bufsize[, ancbufsize[, flags]]) -> (data, ancdata, msg_flags, address) */
static Value m_recvmsg(ARGS) {
    if (native_check_args(vm, "recvmsg", argc, kw, 2, 4) < 0) return val_null();
    SockObj *s = SOCK(argv[0]);
    int64_t size, ancsize = 0, flags = 0;
    if (vm_index(vm, argv[1], &size) < 0) return val_null();
    if (argc > 2 && vm_index(vm, argv[2], &ancsize) < 0) return val_null();
    if (argc > 3 && vm_index(vm, argv[3], &flags) < 0) return val_null();
    if (size < 0) return vm_raise(vm, vm->e_ValueError, "negative buffer size in recvmsg()");
    if (ancsize < 0) return vm_raise(vm, vm->e_ValueError, "negative buffer size in recvmsg()");
    uint8_t *buf = malloc(size ? (size_t)size : 1), *ctl = ancsize ? calloc(1, (size_t)ancsize) : NULL;
    if (!buf || (ancsize && !ctl)) {
        free(buf);
        free(ctl);
        return vm_no_memory(vm);
    }
    struct iovec iov = {.iov_base = buf, .iov_len = (size_t)size};
    SockAddr sa;
    memset(&sa, 0, sizeof sa);
    MsgCtx m = {.flags = (int)flags};
    m.msg.msg_name = &sa;
    m.msg.msg_namelen = sizeof sa;
    m.msg.msg_iov = &iov;
    m.msg.msg_iovlen = 1;
    m.msg.msg_control = ctl;
    m.msg.msg_controllen = (size_t)ancsize;
    ssize_t k = sock_call(vm, s, false, op_recvmsg, &m);
    Value r = val_null();
    if (k < 0) goto done;
    ListObj *anc = list_new(vm, 0);
    if (!anc) goto done;
    vm_push_root(vm, val_obj(anc));
    if (ctl && m.msg.msg_controllen) {
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m.msg); c; c = CMSG_NXTHDR(&m.msg, c)) {
            size_t dlen = c->cmsg_len - CMSG_LEN(0);
            BytesObj *d = bytes_new(vm, CMSG_DATA(c), (int64_t)dlen);
            if (!d) goto pop1;
            vm_push_root(vm, val_obj(d));
            TupleObj *t = tuple_pack(vm, 3, val_int(c->cmsg_level), val_int(c->cmsg_type), val_obj(d));
            vm_pop_root(vm);
            if (!t || list_append(vm, anc, val_obj(t)) < 0) goto pop1;
        }
    }
    BytesObj *data = bytes_new(vm, buf, k);
    if (!data) goto pop1;
    vm_push_root(vm, val_obj(data));
    Value addr = m.msg.msg_namelen ? sockaddr_to_value(vm, &sa.sa, m.msg.msg_namelen) : val_none();
    if (!val_is_null(addr)) {
        vm_push_root(vm, addr);
        TupleObj *t = tuple_pack(vm, 4, val_obj(data), val_obj(anc), val_int(m.msg.msg_flags), addr);
        if (t) r = val_obj(t);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
pop1:
    vm_pop_root(vm);
done:
    free(buf);
    free(ctl);
    return r;
}

/* ---- attributes ------------------------------------------------------------------------------ */

static Value g_family(VM *vm, Value s, void *c) { return val_int(SOCK(s)->family); }
static Value g_type(VM *vm, Value s, void *c) { return val_int(SOCK(s)->type); }
static Value g_proto(VM *vm, Value s, void *c) { return val_int(SOCK(s)->proto); }
static Value g_timeout(VM *vm, Value s, void *c) { return timeout_value(SOCK(s)->timeout_ns); }

/* ---- module functions ------------------------------------------------------------------------ */

static Value s_socketpair(ARGS) {
    static const char *const names[] = {"family", "type", "proto"};
    Value a[3];
    if (native_parse_args(vm, "socketpair", argc, argv, kw, 3, 0, names, 3, a) < 0) return val_null();
    int family, type, proto;
    if (int_or(vm, a[0], AF_UNIX, &family) < 0 || int_or(vm, a[1], SOCK_STREAM, &type) < 0 ||
        int_or(vm, a[2], 0, &proto) < 0)
        return val_null();
    int sv[2];
    if (socketpair(family, type | SOCK_CLOEXEC, proto, sv) < 0) return sock_error(vm);
    Value s0 = sock_wrap(vm, sv[0], family, type, proto);
    if (val_is_null(s0)) {
        close(sv[0]);
        close(sv[1]);
        return s0;
    }
    vm_push_root(vm, s0);
    Value s1 = sock_wrap(vm, sv[1], family, type, proto);
    TupleObj *t = NULL;
    if (val_is_null(s1)) {
        close(sv[1]);
    } else {
        vm_push_root(vm, s1);
        t = tuple_pack(vm, 2, s0, s1);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static int fd_arg(VM *vm, Value v, int *fd) {
    int64_t n;
    if (vm_index(vm, v, &n) < 0) return -1;
    *fd = (int)n;
    return 0;
}

static Value s_dup(ARGS) {
    int fd;
    if (fd_arg(vm, argv[0], &fd) < 0) return val_null();
    int r = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return r < 0 ? sock_error(vm) : val_int(r);
}

static Value s_close(ARGS) {
    int fd;
    if (fd_arg(vm, argv[0], &fd) < 0) return val_null();
    if (close(fd) < 0 && errno != ECONNRESET && errno != EINTR) return sock_error(vm);
    return val_none();
}

static Value s_getdefaulttimeout(ARGS) { return timeout_value(default_timeout_ns); }

static Value s_setdefaulttimeout(ARGS) {
    int64_t t;
    if (timeout_arg(vm, argv[0], &t) < 0) return val_null();
    default_timeout_ns = t;
    return val_none();
}

static Value s_cmsg(ARGS) {
    int64_t n;
    if (vm_index(vm, argv[0], &n) < 0) return val_null();
    bool space = fn->data != NULL;
    if (n < 0 || n > (int64_t)(INT32_MAX - CMSG_SPACE(0)))
        return vm_raise(vm, vm->e_OverflowError, "%s() argument out of range", space ? "CMSG_SPACE" : "CMSG_LEN");
    return val_int(space ? (int64_t)CMSG_SPACE((size_t)n) : (int64_t)CMSG_LEN((size_t)n));
}

static int add_constants(VM *vm, Value mod);

int socket_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_socket_type])) {
        TypeObj *t = type_new_builtin(vm, "socket", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(SockObj), 0, NULL,
                                      sock_finalize, TYPEF_BASETYPE);
        if (!t) return -1;
        t->module = vm_intern(vm, "_socket");
        vm->lib[VM_LIB_socket_type] = val_obj(t);
        static const MethodDef m[] = {
            {"__new__", sock_new, NATIVEF_STATIC}, {"__init__", sock_init, NATIVEF_METHOD},
            {"__repr__", m_repr, NATIVEF_METHOD | ARITY_NOARGS},
            {"fileno", m_fileno, NATIVEF_METHOD | ARITY_NOARGS}, {"close", m_close, NATIVEF_METHOD | ARITY_NOARGS},
            {"detach", m_detach, NATIVEF_METHOD | ARITY_NOARGS}, {"bind", m_bind, NATIVEF_METHOD | ARITY_O},
            {"listen", m_listen, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"_accept", m_accept, NATIVEF_METHOD | ARITY_NOARGS},
            {"connect", m_connect, NATIVEF_METHOD | ARITY_O}, {"connect_ex", m_connect_ex, NATIVEF_METHOD | ARITY_O},
            {"send", m_send, NATIVEF_METHOD}, {"sendall", m_sendall, NATIVEF_METHOD},
            {"sendto", m_sendto, NATIVEF_METHOD}, {"recv", m_recv, NATIVEF_METHOD},
            {"recv_into", m_recv_into, NATIVEF_METHOD}, {"recvfrom", m_recvfrom, NATIVEF_METHOD},
            {"recvfrom_into", m_recvfrom_into, NATIVEF_METHOD}, {"sendmsg", m_sendmsg, NATIVEF_METHOD},
            {"recvmsg", m_recvmsg, NATIVEF_METHOD}, {"shutdown", m_shutdown, NATIVEF_METHOD | ARITY_O},
            {"setsockopt", m_setsockopt, NATIVEF_METHOD},
            {"getsockopt", m_getsockopt, NATIVEF_METHOD | ARITY_TUPLE(2, 3)},
            {"setblocking", m_setblocking, NATIVEF_METHOD | ARITY_O},
            {"getblocking", m_getblocking, NATIVEF_METHOD | ARITY_NOARGS},
            {"settimeout", m_settimeout, NATIVEF_METHOD | ARITY_O},
            {"gettimeout", m_gettimeout, NATIVEF_METHOD | ARITY_NOARGS},
            {"getsockname", m_getsockname, NATIVEF_METHOD | ARITY_NOARGS},
            {"getpeername", m_getpeername, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        static const GetSetDef gs[] = {
            {"family", g_family}, {"type", g_type}, {"proto", g_proto}, {"timeout", g_timeout}, {NULL}};
        if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0) return -1;
    }
    static const MethodDef fns[] = {
        {"socketpair", s_socketpair}, {"dup", s_dup, ARITY_O}, {"close", s_close, ARITY_O},
        {"getdefaulttimeout", s_getdefaulttimeout, ARITY_NOARGS}, {"setdefaulttimeout", s_setdefaulttimeout, ARITY_O},
        {"CMSG_LEN", s_cmsg, ARITY_O}, {"CMSG_SPACE", s_cmsg, ARITY_O, (void *)1}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || socket_addr_module_init(vm, mod) < 0) return -1;
    if (module_set(vm, mod, "socket", vm->lib[VM_LIB_socket_type]) < 0 ||
        module_set(vm, mod, "SocketType", vm->lib[VM_LIB_socket_type]) < 0 ||
        module_set(vm, mod, "error", val_obj(vm->e_OSError)) < 0 ||
        module_set(vm, mod, "timeout", val_obj(vm->e_TimeoutError)) < 0 ||
        module_set(vm, mod, "has_ipv6", val_bool(true)) < 0)
        return -1;
    return add_constants(vm, mod);
}

/* The constants socket.py turns into its enums (AF_*, SOCK_*, MSG_*, AI_*) and those
 * multiprocessing and common servers use. */
static int add_constants(VM *vm, Value mod) {
#define C(n) {#n, n}
    static const struct { const char *name; int64_t value; } consts[] = {
        C(AF_UNSPEC), C(AF_UNIX), C(AF_INET), C(AF_INET6), C(AF_NETLINK), C(AF_PACKET), C(AF_APPLETALK),
        C(AF_IPX), C(AF_X25), C(AF_BLUETOOTH), C(AF_CAN), C(AF_KEY), C(AF_ROUTE), C(AF_IRDA), C(AF_NETROM),
        C(AF_AX25), C(AF_ROSE), C(AF_PPPOX), C(AF_LLC), C(AF_TIPC), C(AF_ALG), C(AF_VSOCK), C(AF_RDS),
        C(AF_SECURITY), C(AF_SNA), C(AF_WANPIPE), C(AF_ATMPVC), C(AF_ATMSVC), C(AF_ECONET), C(AF_BRIDGE),
        C(AF_NETBEUI), C(AF_QIPCRTR),
        C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW), C(SOCK_RDM), C(SOCK_SEQPACKET), C(SOCK_NONBLOCK),
        C(SOCK_CLOEXEC),
        C(SOL_SOCKET), C(SOL_IP), C(SOL_TCP), {"SOL_UDP", 17}, C(SOMAXCONN), C(SCM_RIGHTS), C(SCM_CREDENTIALS),
        C(SO_DEBUG), C(SO_ACCEPTCONN), C(SO_REUSEADDR), C(SO_REUSEPORT), C(SO_KEEPALIVE), C(SO_DONTROUTE),
        C(SO_BROADCAST), C(SO_LINGER), C(SO_OOBINLINE), C(SO_SNDBUF), C(SO_RCVBUF), C(SO_SNDLOWAT),
        C(SO_RCVLOWAT), C(SO_SNDTIMEO), C(SO_RCVTIMEO), C(SO_ERROR), C(SO_TYPE), C(SO_PASSCRED),
        C(SO_PEERCRED), C(SO_BINDTODEVICE), C(SO_PRIORITY), C(SO_MARK), C(SO_DOMAIN), C(SO_PROTOCOL),
        C(SO_PEERSEC), C(SO_PASSSEC), C(SO_INCOMING_CPU),
        C(MSG_OOB), C(MSG_PEEK), C(MSG_DONTROUTE), C(MSG_DONTWAIT), C(MSG_EOR), C(MSG_TRUNC), C(MSG_CTRUNC),
        C(MSG_WAITALL), C(MSG_NOSIGNAL), C(MSG_CMSG_CLOEXEC), C(MSG_CONFIRM), C(MSG_ERRQUEUE), C(MSG_MORE),
        C(MSG_FASTOPEN),
        C(IPPROTO_IP), C(IPPROTO_HOPOPTS), C(IPPROTO_ICMP), C(IPPROTO_IGMP), C(IPPROTO_IPIP), C(IPPROTO_TCP),
        C(IPPROTO_EGP), C(IPPROTO_PUP), C(IPPROTO_UDP), C(IPPROTO_IDP), C(IPPROTO_TP), C(IPPROTO_IPV6),
        C(IPPROTO_ROUTING), C(IPPROTO_FRAGMENT), C(IPPROTO_RSVP), C(IPPROTO_GRE), C(IPPROTO_ESP), C(IPPROTO_AH),
        C(IPPROTO_ICMPV6), C(IPPROTO_NONE), C(IPPROTO_DSTOPTS), C(IPPROTO_PIM), C(IPPROTO_SCTP),
        C(IPPROTO_UDPLITE), C(IPPROTO_MPTCP), C(IPPROTO_RAW),
        C(IPPORT_RESERVED), C(IPPORT_USERRESERVED),
        C(INADDR_ANY), C(INADDR_BROADCAST), C(INADDR_LOOPBACK), C(INADDR_NONE), C(INADDR_UNSPEC_GROUP),
        C(INADDR_ALLHOSTS_GROUP), C(INADDR_MAX_LOCAL_GROUP),
        C(IP_TOS), C(IP_TTL), C(IP_HDRINCL), C(IP_OPTIONS), C(IP_RECVOPTS), C(IP_RETOPTS), C(IP_MULTICAST_IF),
        C(IP_MULTICAST_TTL), C(IP_MULTICAST_LOOP), C(IP_ADD_MEMBERSHIP), C(IP_DROP_MEMBERSHIP),
        C(IP_DEFAULT_MULTICAST_TTL), C(IP_DEFAULT_MULTICAST_LOOP), C(IP_TRANSPARENT), C(IP_BIND_ADDRESS_NO_PORT),
        C(IPV6_V6ONLY), C(IPV6_JOIN_GROUP), C(IPV6_LEAVE_GROUP), C(IPV6_MULTICAST_HOPS), C(IPV6_MULTICAST_IF),
        C(IPV6_MULTICAST_LOOP), C(IPV6_UNICAST_HOPS), C(IPV6_RECVPKTINFO), C(IPV6_PKTINFO), C(IPV6_TCLASS),
        C(TCP_NODELAY), C(TCP_MAXSEG), C(TCP_CORK), C(TCP_KEEPIDLE), C(TCP_KEEPINTVL), C(TCP_KEEPCNT),
        C(TCP_SYNCNT), C(TCP_LINGER2), C(TCP_DEFER_ACCEPT), C(TCP_WINDOW_CLAMP), C(TCP_INFO), C(TCP_QUICKACK),
        C(TCP_FASTOPEN), C(TCP_CONGESTION), C(TCP_USER_TIMEOUT), C(TCP_NOTSENT_LOWAT),
        C(SHUT_RD), C(SHUT_WR), C(SHUT_RDWR),
        C(AI_PASSIVE), C(AI_CANONNAME), C(AI_NUMERICHOST), C(AI_NUMERICSERV), C(AI_V4MAPPED), C(AI_ALL),
        C(AI_ADDRCONFIG),
        C(NI_NUMERICHOST), C(NI_NUMERICSERV), C(NI_NOFQDN), C(NI_NAMEREQD), C(NI_DGRAM), C(NI_MAXHOST),
        C(NI_MAXSERV),
        C(EAI_ADDRFAMILY), C(EAI_AGAIN), C(EAI_BADFLAGS), C(EAI_FAIL), C(EAI_FAMILY), C(EAI_MEMORY),
        C(EAI_NODATA), C(EAI_NONAME), C(EAI_OVERFLOW), C(EAI_SERVICE), C(EAI_SOCKTYPE), C(EAI_SYSTEM),
        {NULL, 0}};
#undef C
    for (int i = 0; consts[i].name; i++)
        if (module_set(vm, mod, consts[i].name, val_int(consts[i].value)) < 0) return -1;
    return 0;
}
