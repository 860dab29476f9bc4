/* vm/exc_os.h — raising OSError (mapped to its errno's subclass, as CPython's
 * PyErr_SetFromErrnoWithFilenameObjects does) and the Unicode codec errors, from C.
 * The exception types' constructors and messages are in vm/exc_os.c. */
#ifndef EMBER_VM_EXC_OS_H
#define EMBER_VM_EXC_OS_H

#include "vm/vm.h"

/* OSError(err, strerror(err)[, filename[, None, filename2]]): filename / filename2 VAL_NULL
 * when absent.  Always returns VAL_NULL. */
Value vm_raise_oserror(VM *vm, int err, Value filename, Value filename2);
/* type(encoding, object, start, end, reason) (UnicodeTranslateError: no encoding). */
Value vm_raise_unicode_error(VM *vm, TypeObj *type, const char *encoding, Value object, int64_t start,
                             int64_t end, const char *reason);
void exc_os_init(VM *vm);

#endif
