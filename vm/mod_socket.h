/* vm/mod_socket.h — what the two halves of the _socket module share: the socket object's
 * layout (vm/mod_socket.c owns the type and its methods) and the address conversions and
 * resolver errors (vm/mod_socket_addr.c, which also owns the module-level name functions). */
#ifndef EMBER_VM_MOD_SOCKET_H
#define EMBER_VM_MOD_SOCKET_H

#include <sys/socket.h>

#include "vm/vm.h"

typedef struct SockObj {
    Obj hdr;
    int fd;              /* -1 once closed or detached */
    int family, type, proto;
    int64_t timeout_ns;  /* -1: blocking; 0: non-blocking; > 0: poll up to this long */
} SockObj;

typedef union SockAddr {
    struct sockaddr sa;
    struct sockaddr_storage ss;
} SockAddr;

/* addr (a Python address in family's form) as a sockaddr; caller names the method in
 * messages ("bind", "connect", ...).  0 or -1 with CPython's error raised. */
int sockaddr_from_value(VM *vm, int family, Value addr, SockAddr *out, socklen_t *len, const char *caller)
    EM_MUST_CHECK;
/* A sockaddr as CPython returns it: (host, port) / (host, port, flowinfo, scope_id) / a str
 * or bytes path / (family, bytes) for other families; None for an empty address. */
Value sockaddr_to_value(VM *vm, const struct sockaddr *sa, socklen_t len);
/* socket.gaierror(code, gai_strerror(code)) (an OSError from errno for EAI_SYSTEM). */
Value socket_raise_gaierror(VM *vm, int code);
/* name resolved to one address of family af (INADDR_ANY for "", broadcast for "<broadcast>") */
int socket_resolve(VM *vm, const char *name, int af, SockAddr *out, socklen_t *len) EM_MUST_CHECK;
int socket_addr_module_init(VM *vm, Value mod) EM_MUST_CHECK;

#endif
