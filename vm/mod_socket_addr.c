/* vm/mod_socket_addr.c — the naming half of the _socket module: socket addresses between
 * Python's forms ((host, port), (host, port, flowinfo, scope_id), AF_UNIX paths) and
 * sockaddrs, name resolution (getaddrinfo, getnameinfo, gethostbyname[_ex], gethostbyaddr,
 * gethostname, getservbyname / getservbyport / getprotobyname), the packing helpers
 * (inet_aton / ntoa / pton / ntop, htons and friends) and the resolver exceptions herror and
 * gaierror (OSError subclasses with CPython's args). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "vm/bigint.h"
#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/mod_socket.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static bool is_tuple(VM *vm, Value v) { return v.tag == VAL_OBJ && vm_isinstance_type(vm, v, vm->t_tuple); }
static TupleObj *as_tuple(Value v) { return (TupleObj *)v.as.o; }

/* ---- errors ------------------------------------------------------------------------------ */

static Value raise_with_args(VM *vm, TypeObj *t, int code, const char *msg) {
    StrObj *m = str_from_c(vm, msg);
    if (!m) return val_null();
    vm_push_root(vm, val_obj(m));
    Value args[2] = {val_int(code), val_obj(m)};
    Value e = type_call(vm, t, 2, args, NULL);
    vm_pop_root(vm);
    return val_is_null(e) ? e : vm_raise_value(vm, e);
}

Value socket_raise_gaierror(VM *vm, int code) {
    if (code == EAI_SYSTEM) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return raise_with_args(vm, AS_TYPE(vm->lib[VM_LIB_socket_gaierror]), code, gai_strerror(code));
}

static Value raise_herror(VM *vm, int code) {
    return raise_with_args(vm, AS_TYPE(vm->lib[VM_LIB_socket_herror]), code, hstrerror(code));
}

/* ---- host names ---------------------------------------------------------------------------- */

/* A host argument as bytes (CPython's idna_converter): str is IDNA-encoded, bytes and
 * bytearray are taken as they are.  The bytes Value, or VAL_NULL with TypeError raised. */
static Value host_bytes(VM *vm, Value v) {
    if (val_is_str(vm, v)) {
        StrObj *s = (StrObj *)v.as.o;
        if (str_is_ascii(s)) {
            BytesObj *b = bytes_new(vm, (const uint8_t *)s->data, s->len);
            return b ? val_obj(b) : val_null();
        }
        Value enc = vm_intern(vm, "idna");
        return vm_call_method(vm, v, "encode", 1, &enc);
    }
    if (v.tag == VAL_OBJ && vm_isinstance_type(vm, v, vm->t_bytes)) return v;
    if (v.tag == VAL_OBJ && strcmp(vm_type_name(vm, v), "bytearray") == 0) return vm_call1(vm, val_obj(vm->t_bytes), v);
    return vm_raise(vm, vm->e_TypeError, "str, bytes or bytearray expected, not %s", vm_type_name(vm, v));
}

int socket_resolve(VM *vm, const char *name, int af, SockAddr *out, socklen_t *len) {
    memset(out, 0, sizeof *out);
    if (name[0] == '\0') {
        /* the wildcard address of the family, as CPython's getaddrinfo(NULL, "0", AI_PASSIVE) gives */
        struct addrinfo hints = {.ai_family = af, .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE}, *res;
        int err = getaddrinfo(NULL, "0", &hints, &res);
        if (err) {
            socket_raise_gaierror(vm, err);
            return -1;
        }
        memcpy(out, res->ai_addr, res->ai_addrlen);
        *len = res->ai_addrlen;
        freeaddrinfo(res);
        return 0;
    }
    if (strcmp(name, "<broadcast>") == 0 || strcmp(name, "255.255.255.255") == 0) {
        if (af != AF_INET && af != AF_UNSPEC) {
            vm_raise(vm, vm->e_OSError, "address family mismatched");
            return -1;
        }
        out->ss.ss_family = AF_INET;
        ((struct sockaddr_in *)out)->sin_addr.s_addr = htonl(INADDR_BROADCAST);
        *len = sizeof(struct sockaddr_in);
        return 0;
    }
    if ((af == AF_INET || af == AF_UNSPEC) && inet_pton(AF_INET, name, &((struct sockaddr_in *)out)->sin_addr) == 1) {
        out->ss.ss_family = AF_INET;
        *len = sizeof(struct sockaddr_in);
        return 0;
    }
    if ((af == AF_INET6 || af == AF_UNSPEC) && inet_pton(AF_INET6, name, &((struct sockaddr_in6 *)out)->sin6_addr) == 1) {
        out->ss.ss_family = AF_INET6;
        *len = sizeof(struct sockaddr_in6);
        return 0;
    }
    struct addrinfo hints = {.ai_family = af}, *res;
    int err = getaddrinfo(name, NULL, &hints, &res);
    if (err) {
        socket_raise_gaierror(vm, err);
        return -1;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* ---- addresses ------------------------------------------------------------------------------- */

static int port_arg(VM *vm, Value v, const char *caller, int *port) {
    int64_t p;
    if (!val_is_intlike(v) && !val_is_intobj(v)) {
        vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
        return -1;
    }
    if (val_is_intobj(v) ? bigint_as_i64(vm, v, &p) < 0 : vm_index(vm, v, &p) < 0) {
        vm_raise(vm, vm->e_OverflowError, "%s(): port must be 0-65535.", caller);
        return -1;
    }
    if (p < 0 || p > 0xffff) {
        vm_raise(vm, vm->e_OverflowError, "%s(): port must be 0-65535.", caller);
        return -1;
    }
    *port = (int)p;
    return 0;
}

static int inet_addr_arg(VM *vm, int family, Value addr, SockAddr *out, socklen_t *len, const char *caller) {
    const char *fam = family == AF_INET ? "AF_INET" : "AF_INET6";
    if (!is_tuple(vm, addr)) {
        vm_raise(vm, vm->e_TypeError, "%s(): %s address must be tuple, not %s", caller, fam, vm_type_name(vm, addr));
        return -1;
    }
    TupleObj *t = as_tuple(addr);
    if (family == AF_INET ? t->len != 2 : (t->len < 2 || t->len > 4)) {
        if (family == AF_INET)
            vm_raise(vm, vm->e_TypeError, "AF_INET address must be a pair (host, port)");
        else
            vm_raise(vm, vm->e_TypeError, "AF_INET6 address must be a tuple (host, port[, flowinfo[, scopeid]])");
        return -1;
    }
    Value hb = host_bytes(vm, t->items[0]);
    if (val_is_null(hb)) return -1;
    vm_push_root(vm, hb);
    int port, rc = -1;
    int64_t flow = 0, scope = 0;
    if (port_arg(vm, t->items[1], caller, &port) < 0) goto done;
    if (t->len > 2 && vm_index(vm, t->items[2], &flow) < 0) goto done;
    if (t->len > 3 && vm_index(vm, t->items[3], &scope) < 0) goto done;
    if (flow < 0 || flow > 0xfffff) {
        vm_raise(vm, vm->e_OverflowError, "%s(): flowinfo must be 0-1048575.", caller);
        goto done;
    }
    BytesObj *h = (BytesObj *)hb.as.o;
    if ((int64_t)strlen((const char *)h->data) != h->len) {
        vm_raise(vm, vm->e_TypeError, "host name must not contain null character");
        goto done;
    }
    if (socket_resolve(vm, (const char *)h->data, family, out, len) < 0) goto done;
    if (family == AF_INET) {
        ((struct sockaddr_in *)out)->sin_port = htons((uint16_t)port);
    } else {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)out;
        a6->sin6_port = htons((uint16_t)port);
        a6->sin6_flowinfo = htonl((uint32_t)flow);
        a6->sin6_scope_id = (uint32_t)scope;
    }
    rc = 0;
done:
    vm_pop_root(vm);
    return rc;
}

static int unix_addr_arg(VM *vm, Value addr, SockAddr *out, socklen_t *len) {
    const uint8_t *p;
    int64_t n;
    Value holder = val_null();
    if (val_is_str(vm, addr)) {
        p = (const uint8_t *)((StrObj *)addr.as.o)->data;
        n = ((StrObj *)addr.as.o)->len;
    } else if (buffer_get(vm, addr, "", &holder, &p, &n) < 0) {
        return -1;
    }
    struct sockaddr_un *u = (struct sockaddr_un *)out;
    memset(out, 0, sizeof *out);
    bool abstract = n > 0 && p[0] == 0;
    if ((size_t)n >= sizeof u->sun_path + (abstract ? 1 : 0)) {
        vm_raise(vm, vm->e_OSError, "AF_UNIX path too long");
        return -1;
    }
    u->sun_family = AF_UNIX;
    memcpy(u->sun_path, p, (size_t)n);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + (abstract ? 0 : 1));
    return 0;
}

int sockaddr_from_value(VM *vm, int family, Value addr, SockAddr *out, socklen_t *len, const char *caller) {
    switch (family) {
    case AF_UNIX: return unix_addr_arg(vm, addr, out, len);
    case AF_INET:
    case AF_INET6: return inet_addr_arg(vm, family, addr, out, len, caller);
    default: vm_raise(vm, vm->e_OSError, "%s(): bad family", caller); return -1;
    }
}

static Value ip_str(VM *vm, int af, const void *a) {
    char buf[INET6_ADDRSTRLEN];
    if (!inet_ntop(af, a, buf, sizeof buf)) return vm_raise_oserror(vm, errno, val_null(), val_null());
    StrObj *s = str_from_c(vm, buf);
    return s ? val_obj(s) : val_null();
}

static Value tuple_with_str(VM *vm, Value s, int n, Value *rest) {
    if (val_is_null(s)) return s;
    vm_push_root(vm, s);
    Value items[4] = {s};
    for (int i = 1; i < n; i++) items[i] = rest[i - 1];
    TupleObj *t = tuple_from_array(vm, items, n);
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

Value sockaddr_to_value(VM *vm, const struct sockaddr *sa, socklen_t len) {
    if (len == 0) return val_none();
    switch (sa->sa_family) {
    case AF_INET: {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        Value rest[1] = {val_int(ntohs(a->sin_port))};
        return tuple_with_str(vm, ip_str(vm, AF_INET, &a->sin_addr), 2, rest);
    }
    case AF_INET6: {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        Value rest[3] = {val_int(ntohs(a->sin6_port)), val_int(ntohl(a->sin6_flowinfo)), val_int(a->sin6_scope_id)};
        return tuple_with_str(vm, ip_str(vm, AF_INET6, &a->sin6_addr), 4, rest);
    }
    case AF_UNIX: {
        const struct sockaddr_un *u = (const struct sockaddr_un *)sa;
        size_t off = offsetof(struct sockaddr_un, sun_path);
        size_t n = len > off ? len - off : 0;
        if (n > 0 && u->sun_path[0] == 0) {   /* Linux's abstract namespace: the bytes as they are */
            BytesObj *b = bytes_new(vm, (const uint8_t *)u->sun_path, (int64_t)n);
            return b ? val_obj(b) : val_null();
        }
        size_t k = strnlen(u->sun_path, n);
        Value bytes = val_obj(bytes_new(vm, (const uint8_t *)u->sun_path, (int64_t)k));
        if (!bytes.as.o) return val_null();
        vm_push_root(vm, bytes);
        Value args[2] = {vm_intern(vm, "utf-8"), vm_intern(vm, "surrogateescape")};
        Value s = vm_call_method(vm, bytes, "decode", 2, args);
        vm_pop_root(vm);
        return s;
    }
    default: {
        BytesObj *b = bytes_new(vm, (const uint8_t *)sa->sa_data, sizeof sa->sa_data);
        if (!b) return val_null();
        vm_push_root(vm, val_obj(b));
        TupleObj *t = tuple_pack(vm, 2, val_int(sa->sa_family), val_obj(b));
        vm_pop_root(vm);
        return t ? val_obj(t) : val_null();
    }
    }
}

/* ---- resolver functions ---------------------------------------------------------------------- */

static int int_opt(VM *vm, Value v, int64_t dflt, int *out) {
    int64_t n = dflt;
    if (!val_is_null(v) && vm_index(vm, v, &n) < 0) return -1;
    *out = (int)n;
    return 0;
}

/* getaddrinfo(host, port, family=0, type=0, proto=0, flags=0) */
static Value s_getaddrinfo(ARGS) {
    static const char *const names[] = {"host", "port", "family", "type", "proto", "flags"};
    Value a[6];
    if (native_parse_args(vm, "getaddrinfo", argc, argv, kw, 6, 2, names, 6, a) < 0) return val_null();
    int family, type, proto, flags;
    if (int_opt(vm, a[2], 0, &family) < 0 || int_opt(vm, a[3], 0, &type) < 0 || int_opt(vm, a[4], 0, &proto) < 0 ||
        int_opt(vm, a[5], 0, &flags) < 0)
        return val_null();
    Value hb = val_none(), pb = val_none();
    if (!val_is_none(a[0])) {
        if (!val_is_str(vm, a[0]) && !(a[0].tag == VAL_OBJ && vm_isinstance_type(vm, a[0], vm->t_bytes)))
            return vm_raise(vm, vm->e_TypeError, "getaddrinfo() argument 1 must be string or None");
        hb = host_bytes(vm, a[0]);
        if (val_is_null(hb)) return hb;
    }
    vm_push_root(vm, hb);
    char portbuf[32];
    const char *port = NULL;
    if (val_is_intlike(a[1]) || val_is_intobj(a[1])) {
        int64_t p;
        if ((val_is_intobj(a[1]) ? bigint_as_i64(vm, a[1], &p) : vm_index(vm, a[1], &p)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        snprintf(portbuf, sizeof portbuf, "%lld", (long long)p);
        port = portbuf;
    } else if (val_is_str(vm, a[1])) {
        port = ((StrObj *)a[1].as.o)->data;
    } else if (a[1].tag == VAL_OBJ && vm_isinstance_type(vm, a[1], vm->t_bytes)) {
        port = (const char *)((BytesObj *)a[1].as.o)->data;
    } else if (!val_is_none(a[1])) {
        vm_pop_root(vm);
        return vm_raise(vm, vm->e_OSError, "Int or String expected");
    }
    (void)pb;
    const char *host = val_is_none(hb) ? NULL : (const char *)((BytesObj *)hb.as.o)->data;
    struct addrinfo hints = {.ai_family = family, .ai_socktype = type, .ai_protocol = proto, .ai_flags = flags}, *res;
    int err = getaddrinfo(host, port, &hints, &res);
    vm_pop_root(vm);
    if (err) return socket_raise_gaierror(vm, err);
    ListObj *l = list_new(vm, 0);
    if (!l) {
        freeaddrinfo(res);
        return val_null();
    }
    vm_push_root(vm, val_obj(l));
    Value r = val_obj(l);
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        Value addr = sockaddr_to_value(vm, ai->ai_addr, ai->ai_addrlen);
        if (val_is_null(addr)) {
            r = val_null();
            break;
        }
        vm_push_root(vm, addr);
        StrObj *canon = str_from_c(vm, ai->ai_canonname ? ai->ai_canonname : "");
        TupleObj *t = NULL;
        if (canon) {
            vm_push_root(vm, val_obj(canon));
            t = tuple_pack(vm, 5, val_int(ai->ai_family), val_int(ai->ai_socktype), val_int(ai->ai_protocol),
                           val_obj(canon), addr);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (!t || list_append(vm, l, val_obj(t)) < 0) {
            r = val_null();
            break;
        }
    }
    vm_pop_root(vm);
    freeaddrinfo(res);
    return r;
}

/* getnameinfo(sockaddr, flags) */
static Value s_getnameinfo(ARGS) {
    if (!is_tuple(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "getnameinfo() argument 1 must be a tuple");
    int64_t flags;
    if (vm_index(vm, argv[1], &flags) < 0) return val_null();
    TupleObj *t = as_tuple(argv[0]);
    if (t->len < 2 || t->len > 4 || !val_is_str(vm, t->items[0]))
        return vm_raise(vm, vm->e_TypeError, "getnameinfo(): illegal sockaddr argument");
    int port;
    int64_t flow = 0, scope = 0;
    if (port_arg(vm, t->items[1], "getnameinfo", &port) < 0) return val_null();
    if (t->len > 2 && vm_index(vm, t->items[2], &flow) < 0) return val_null();
    if (t->len > 3 && vm_index(vm, t->items[3], &scope) < 0) return val_null();
    if (flow < 0 || flow > 0xfffff)
        return vm_raise(vm, vm->e_OverflowError, "getnameinfo(): flowinfo must be 0-1048575.");
    char pbuf[16];
    snprintf(pbuf, sizeof pbuf, "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST}, *res;
    int err = getaddrinfo(((StrObj *)t->items[0].as.o)->data, pbuf, &hints, &res);
    if (err) return socket_raise_gaierror(vm, err);
    if (res->ai_next) {
        freeaddrinfo(res);
        return vm_raise(vm, vm->e_OSError, "sockaddr resolved to multiple addresses");
    }
    SockAddr sa;
    memcpy(&sa, res->ai_addr, res->ai_addrlen);
    socklen_t len = res->ai_addrlen;
    freeaddrinfo(res);
    if (sa.sa.sa_family == AF_INET && t->len != 2) return vm_raise(vm, vm->e_OSError, "IPv4 sockaddr must be 2 tuple");
    if (sa.sa.sa_family == AF_INET6) {
        ((struct sockaddr_in6 *)&sa)->sin6_flowinfo = htonl((uint32_t)flow);
        ((struct sockaddr_in6 *)&sa)->sin6_scope_id = (uint32_t)scope;
    }
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    err = getnameinfo(&sa.sa, len, host, sizeof host, serv, sizeof serv, (int)flags);
    if (err) return socket_raise_gaierror(vm, err);
    StrObj *h = str_from_c(vm, host);
    if (!h) return val_null();
    vm_push_root(vm, val_obj(h));
    StrObj *s = str_from_c(vm, serv);
    TupleObj *r = NULL;
    if (s) {
        vm_push_root(vm, val_obj(s));
        r = tuple_pack(vm, 2, val_obj(h), val_obj(s));
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

static Value s_gethostname(ARGS) {
    char buf[1024];
    if (gethostname(buf, sizeof buf - 1) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    buf[sizeof buf - 1] = 0;
    StrObj *s = str_from_c(vm, buf);
    return s ? val_obj(s) : val_null();
}

/* the host argument of the gethostby* functions as a C string kept alive on the root stack
 * (the caller pops it) */
static const char *name_arg(VM *vm, Value v) {
    Value hb = host_bytes(vm, v);
    if (val_is_null(hb)) return NULL;
    vm_push_root(vm, hb);
    return (const char *)((BytesObj *)hb.as.o)->data;
}

static Value s_gethostbyname(ARGS) {
    const char *name = name_arg(vm, argv[0]);
    if (!name) return val_null();
    SockAddr sa;
    socklen_t len;
    int rc = socket_resolve(vm, name, AF_INET, &sa, &len);
    vm_pop_root(vm);
    if (rc < 0) return val_null();
    return ip_str(vm, AF_INET, &((struct sockaddr_in *)&sa)->sin_addr);
}

/* (hostname, aliaslist, ipaddrlist) from a hostent (CPython's gethost_common) */
static Value hostent_value(VM *vm, struct hostent *h) {
    StrObj *name = str_from_c(vm, h->h_name);
    if (!name) return val_null();
    vm_push_root(vm, val_obj(name));
    ListObj *aliases = list_new(vm, 0);
    Value r = val_null();
    if (!aliases) goto done1;
    vm_push_root(vm, val_obj(aliases));
    ListObj *addrs = list_new(vm, 0);
    if (!addrs) goto done2;
    vm_push_root(vm, val_obj(addrs));
    for (char **a = h->h_aliases; a && *a; a++) {
        StrObj *s = str_from_c(vm, *a);
        if (!s || list_append(vm, aliases, val_obj(s)) < 0) goto done3;
    }
    for (char **a = h->h_addr_list; a && *a; a++) {
        Value s = ip_str(vm, h->h_addrtype, *a);
        if (val_is_null(s) || list_append(vm, addrs, s) < 0) goto done3;
    }
    TupleObj *t = tuple_pack(vm, 3, val_obj(name), val_obj(aliases), val_obj(addrs));
    if (t) r = val_obj(t);
done3:
    vm_pop_root(vm);
done2:
    vm_pop_root(vm);
done1:
    vm_pop_root(vm);
    return r;
}

static Value s_gethostbyname_ex(ARGS) {
    const char *name = name_arg(vm, argv[0]);
    if (!name) return val_null();
    SockAddr sa;
    socklen_t len;
    Value r = val_null();
    if (socket_resolve(vm, name, AF_INET, &sa, &len) == 0) {
        struct hostent he, *h = NULL;
        char buf[16384];
        int herr = 0;
        gethostbyname_r(name, &he, buf, sizeof buf, &h, &herr);
        if (!h) {
            /* a numeric address resolves without a hostent: CPython's answer is (name, [], [name]) */
            h = gethostbyaddr(&((struct sockaddr_in *)&sa)->sin_addr, sizeof(struct in_addr), AF_INET);
            if (!h) {
                vm_pop_root(vm);
                return raise_herror(vm, herr ? herr : h_errno);
            }
        }
        r = hostent_value(vm, h);
    }
    vm_pop_root(vm);
    return r;
}

static Value s_gethostbyaddr(ARGS) {
    const char *name = name_arg(vm, argv[0]);
    if (!name) return val_null();
    SockAddr sa;
    socklen_t len;
    Value r = val_null();
    if (socket_resolve(vm, name, AF_UNSPEC, &sa, &len) == 0) {
        const void *a = sa.sa.sa_family == AF_INET ? (const void *)&((struct sockaddr_in *)&sa)->sin_addr
                                                   : (const void *)&((struct sockaddr_in6 *)&sa)->sin6_addr;
        socklen_t al = sa.sa.sa_family == AF_INET ? sizeof(struct in_addr) : sizeof(struct in6_addr);
        struct hostent he, *h = NULL;
        char buf[16384];
        int herr = 0;
        gethostbyaddr_r(a, al, sa.sa.sa_family, &he, buf, sizeof buf, &h, &herr);
        r = h ? hostent_value(vm, h) : raise_herror(vm, herr);
    }
    vm_pop_root(vm);
    return r;
}

static const char *str_arg(VM *vm, Value v, const char *fname, int pos) {
    if (val_is_str(vm, v)) return ((StrObj *)v.as.o)->data;
    vm_raise(vm, vm->e_TypeError, "%s() argument %d must be str, not %s", fname, pos, vm_type_name(vm, v));
    return NULL;
}

static Value s_getservbyname(ARGS) {
    const char *name = str_arg(vm, argv[0], "getservbyname", 1);
    const char *proto = NULL;
    if (!name || (argc > 1 && !(proto = str_arg(vm, argv[1], "getservbyname", 2)))) return val_null();
    struct servent *sp = getservbyname(name, proto);
    if (!sp) return vm_raise(vm, vm->e_OSError, "service/proto not found");
    return val_int(ntohs((uint16_t)sp->s_port));
}

static Value s_getservbyport(ARGS) {
    int64_t port;
    if (vm_index(vm, argv[0], &port) < 0) return val_null();
    const char *proto = NULL;
    if (argc > 1 && !(proto = str_arg(vm, argv[1], "getservbyport", 2))) return val_null();
    if (port < 0 || port > 0xffff) return vm_raise(vm, vm->e_OverflowError, "getservbyport: port must be 0-65535.");
    struct servent *sp = getservbyport(htons((uint16_t)port), proto);
    if (!sp) return vm_raise(vm, vm->e_OSError, "port/proto not found");
    StrObj *r = str_from_c(vm, sp->s_name);
    return r ? val_obj(r) : val_null();
}

static Value s_getprotobyname(ARGS) {
    const char *name = str_arg(vm, argv[0], "getprotobyname", 1);
    if (!name) return val_null();
    struct protoent *sp = getprotobyname(name);
    if (!sp) return vm_raise(vm, vm->e_OSError, "protocol not found");
    return val_int(sp->p_proto);
}

/* ---- packing --------------------------------------------------------------------------------- */

static Value s_inet_aton(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "inet_aton() argument 1 must be str, not %s", vm_type_name(vm, argv[0]));
    struct in_addr a;
    if (!inet_aton(((StrObj *)argv[0].as.o)->data, &a))
        return vm_raise(vm, vm->e_OSError, "illegal IP address string passed to inet_aton");
    BytesObj *b = bytes_new(vm, (const uint8_t *)&a, 4);
    return b ? val_obj(b) : val_null();
}

static Value s_inet_ntoa(ARGS) {
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[0], "inet_ntoa", &h, &p, &n) < 0) return val_null();
    if (n != 4) return vm_raise(vm, vm->e_OSError, "packed IP wrong length for inet_ntoa");
    return ip_str(vm, AF_INET, p);
}

static Value s_inet_pton(ARGS) {
    int64_t af;
    if (vm_index(vm, argv[0], &af) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "inet_pton() argument 2 must be str, not %s", vm_type_name(vm, argv[1]));
    uint8_t buf[16];
    int r = inet_pton((int)af, ((StrObj *)argv[1].as.o)->data, buf);
    if (r < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    if (r == 0) return vm_raise(vm, vm->e_OSError, "illegal IP address string passed to inet_pton");
    BytesObj *b = bytes_new(vm, buf, af == AF_INET ? 4 : 16);
    return b ? val_obj(b) : val_null();
}

static Value s_inet_ntop(ARGS) {
    int64_t af;
    if (vm_index(vm, argv[0], &af) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[1], "inet_ntop", &h, &p, &n) < 0) return val_null();
    if (af != AF_INET && af != AF_INET6) return vm_raise(vm, vm->e_ValueError, "unknown address family %lld", (long long)af);
    if (n != (af == AF_INET ? 4 : 16)) return vm_raise(vm, vm->e_ValueError, "invalid length of packed IP address string");
    return ip_str(vm, (int)af, p);
}

/* htons / ntohs (16 bits) and htonl / ntohl (32 bits), with CPython 3.11's range errors */
static Value s_swap(ARGS) {
    bool wide = fn->data != NULL;
    const char *name = fn->name;
    if (!val_is_intlike(argv[0]) && !val_is_intobj(argv[0]))
        return vm_raise(vm, vm->e_TypeError, "expected int, %s found", vm_type_name(vm, argv[0]));
    int64_t x;
    if (val_is_intobj(argv[0])) {
        int sign = bigint_cmp(argv[0], val_int(0));
        if (sign < 0 && !wide)
            return vm_raise(vm, vm->e_OverflowError, "%s: can't convert negative Python int to C 16-bit unsigned integer", name);
        if (sign < 0) return vm_raise(vm, vm->e_OverflowError, "can't convert negative value to unsigned int");
        if (!wide)
            return vm_raise(vm, vm->e_OverflowError, "%s: Python int too large to convert to C 16-bit unsigned integer", name);
        return vm_raise(vm, vm->e_OverflowError, "int larger than 32 bits");
    }
    if (vm_index(vm, argv[0], &x) < 0) return val_null();
    if (x < 0) {
        if (!wide)
            return vm_raise(vm, vm->e_OverflowError, "%s: can't convert negative Python int to C 16-bit unsigned integer", name);
        return vm_raise(vm, vm->e_OverflowError, "can't convert negative value to unsigned int");
    }
    if (!wide && x > 0xffff)
        return vm_raise(vm, vm->e_OverflowError, "%s: Python int too large to convert to C 16-bit unsigned integer", name);
    if (wide && x > 0xffffffffLL) return vm_raise(vm, vm->e_OverflowError, "int larger than 32 bits");
    return val_int(wide ? (int64_t)htonl((uint32_t)x) : (int64_t)htons((uint16_t)x));
}

/* ---- module ------------------------------------------------------------------------------------ */

static Value new_error_class(VM *vm, const char *name, TypeObj *base) {
    TupleObj *bases = tuple_pack(vm, 1, val_obj(base));
    if (!bases) return val_null();
    vm_push_root(vm, val_obj(bases));
    DictObj *ns = dict_new(vm);
    Value err = val_null();
    if (ns) {
        vm_push_root(vm, val_obj(ns));
        if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "socket")) == 0)
            err = type_new_class(vm, vm->t_type, vm_intern_str(vm, name), bases, ns, 0, NULL, NULL);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return err;
}

int socket_addr_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_socket_herror])) {
        Value h = new_error_class(vm, "herror", vm->e_OSError);
        if (val_is_null(h)) return -1;
        vm->lib[VM_LIB_socket_herror] = h;
        Value g = new_error_class(vm, "gaierror", vm->e_OSError);
        if (val_is_null(g)) return -1;
        vm->lib[VM_LIB_socket_gaierror] = g;
    }
    static const MethodDef fns[] = {
        {"getaddrinfo", s_getaddrinfo}, {"getnameinfo", s_getnameinfo, ARITY_POS(2, 2)},
        {"gethostname", s_gethostname, ARITY_NOARGS}, {"gethostbyname", s_gethostbyname, ARITY_O},
        {"gethostbyname_ex", s_gethostbyname_ex, ARITY_O}, {"gethostbyaddr", s_gethostbyaddr, ARITY_O},
        {"getservbyname", s_getservbyname, ARITY_TUPLE(1, 2)}, {"getservbyport", s_getservbyport, ARITY_TUPLE(1, 2)},
        {"getprotobyname", s_getprotobyname, ARITY_O},
        {"inet_aton", s_inet_aton, ARITY_O}, {"inet_ntoa", s_inet_ntoa, ARITY_O},
        {"inet_pton", s_inet_pton, ARITY_POS(2, 2)}, {"inet_ntop", s_inet_ntop, ARITY_POS(2, 2)},
        {"htons", s_swap, ARITY_O}, {"ntohs", s_swap, ARITY_O}, {"htonl", s_swap, ARITY_O, (void *)1},
        {"ntohl", s_swap, ARITY_O, (void *)1}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "herror", vm->lib[VM_LIB_socket_herror]) < 0 ||
                   module_set(vm, mod, "gaierror", vm->lib[VM_LIB_socket_gaierror]) < 0
               ? -1
               : 0;
}
