/* vm/mod_errno.c — the errno module: the system's error numbers as constants and the
 * errorcode table (number -> name; where two names share a number, CPython's choice wins:
 * EDEADLOCK, ENOTSUP, EAGAIN). */
#include <errno.h>

#include "vm/dict.h"
#include "vm/native.h"

int errno_module_init(VM *vm, Value mod) {
#define E(n) {#n, n}
    /* the aliases first, so the table's later entries name the shared numbers */
    static const struct { const char *name; int v; } codes[] = {
    E(EDEADLK), E(EOPNOTSUPP), E(EWOULDBLOCK), E(E2BIG), E(EACCES), E(EADDRINUSE), E(EADDRNOTAVAIL),
    E(EADV), E(EAFNOSUPPORT), E(EAGAIN), E(EALREADY), E(EBADE), E(EBADF), E(EBADFD), E(EBADMSG),
    E(EBADR), E(EBADRQC), E(EBADSLT), E(EBFONT), E(EBUSY), E(ECANCELED), E(ECHILD), E(ECHRNG),
    E(ECOMM), E(ECONNABORTED), E(ECONNREFUSED), E(ECONNRESET), E(EDEADLOCK), E(EDESTADDRREQ),
    E(EDOM), E(EDOTDOT), E(EDQUOT), E(EEXIST), E(EFAULT), E(EFBIG), E(EHOSTDOWN), E(EHOSTUNREACH),
    E(EIDRM), E(EILSEQ), E(EINPROGRESS), E(EINTR), E(EINVAL), E(EIO), E(EISCONN), E(EISDIR),
    E(EISNAM), E(EKEYEXPIRED), E(EKEYREJECTED), E(EKEYREVOKED), E(EL2HLT), E(EL2NSYNC), E(EL3HLT),
    E(EL3RST), E(ELIBACC), E(ELIBBAD), E(ELIBEXEC), E(ELIBMAX), E(ELIBSCN), E(ELNRNG), E(ELOOP),
    E(EMEDIUMTYPE), E(EMFILE), E(EMLINK), E(EMSGSIZE), E(EMULTIHOP), E(ENAMETOOLONG), E(ENAVAIL),
    E(ENETDOWN), E(ENETRESET), E(ENETUNREACH), E(ENFILE), E(ENOANO), E(ENOBUFS), E(ENOCSI),
    E(ENODATA), E(ENODEV), E(ENOENT), E(ENOEXEC), E(ENOKEY), E(ENOLCK), E(ENOLINK), E(ENOMEDIUM),
    E(ENOMEM), E(ENOMSG), E(ENONET), E(ENOPKG), E(ENOPROTOOPT), E(ENOSPC), E(ENOSR), E(ENOSTR),
    E(ENOSYS), E(ENOTBLK), E(ENOTCONN), E(ENOTDIR), E(ENOTEMPTY), E(ENOTNAM), E(ENOTRECOVERABLE),
    E(ENOTSOCK), E(ENOTSUP), E(ENOTTY), E(ENOTUNIQ), E(ENXIO), E(EOVERFLOW), E(EOWNERDEAD),
    E(EPERM), E(EPFNOSUPPORT), E(EPIPE), E(EPROTO), E(EPROTONOSUPPORT), E(EPROTOTYPE), E(ERANGE),
    E(EREMCHG), E(EREMOTE), E(EREMOTEIO), E(ERESTART), E(ERFKILL), E(EROFS), E(ESHUTDOWN),
    E(ESOCKTNOSUPPORT), E(ESPIPE), E(ESRCH), E(ESRMNT), E(ESTALE), E(ESTRPIPE), E(ETIME),
    E(ETIMEDOUT), E(ETOOMANYREFS), E(ETXTBSY), E(EUCLEAN), E(EUNATCH), E(EUSERS), E(EXDEV),
    E(EXFULL),
        {NULL, 0}};
#undef E
    DictObj *table = dict_new(vm);
    if (!table || module_set(vm, mod, "errorcode", val_obj(table)) < 0) return -1;
    for (int i = 0; codes[i].name; i++) {
        Value name = vm_intern(vm, codes[i].name);
        if (val_is_null(name) || module_set(vm, mod, codes[i].name, val_int(codes[i].v)) < 0 ||
            dict_set(vm, table, val_int(codes[i].v), name) < 0)
            return -1;
    }
    return 0;
}
