/* vm/mod_sys.h — what the sys module offers the rest of the VM: reporting exceptions the way
 * sys.excepthook and sys.unraisablehook do, and the stream print() writes to. */
#ifndef EMBER_VM_MOD_SYS_H
#define EMBER_VM_MOD_SYS_H

#include "vm/vm.h"

/* The traceback of exc on sys.stderr (sys.stdout flushed first).  0 or -1 + exception. */
int sys_print_exception(VM *vm, Value exc);
/* CPython's PyErr_WriteUnraisable: calls sys.unraisablehook with err_msg (NULL: "Exception
 * ignored in") and obj (VAL_NULL: none); never raises. */
void vm_write_unraisable(VM *vm, Value exc, const char *err_msg, Value obj);
/* sys.stdout (None when sys has none). */
Value vm_current_stdout(VM *vm);

#endif
