/* vm/mod_sys.h — what the sys module offers the rest of the VM: reporting exceptions the way
 * sys.excepthook and sys.unraisablehook do, the stream print() writes to, and sys.flags from
 * the command line. */
#ifndef EMBER_VM_MOD_SYS_H
#define EMBER_VM_MOD_SYS_H

#include "vm/vm.h"

/* The traceback of exc on sys.stderr (sys.stdout flushed first).  0 or -1 + exception. */
int sys_print_exception(VM *vm, Value exc);
/* CPython's PyErr_WriteUnraisable: calls sys.unraisablehook with err_msg (NULL: "Exception
 * ignored in") and obj (VAL_NULL: none); never raises. */
void vm_write_unraisable(VM *vm, Value exc, const char *err_msg, Value obj);
/* sys.flags from the command line (-d -i -B -s -E -v -b -q -I -P, -X dev / utf8 /
 * warn_default_encoding / int_max_str_digits and their PYTHON* variables).  optimize stays 0:
 * Ember accepts -O but keeps assert statements.  0 or -1 + exception. */
typedef struct SysFlags {
    int debug, inspect, interactive, dont_write_bytecode, no_user_site, ignore_environment, verbose,
        bytes_warning, quiet, isolated, utf8_mode, warn_default_encoding, int_max_str_digits;
    bool dev_mode, safe_path;
} SysFlags;
int sys_set_flags(VM *vm, const SysFlags *f);
/* sys.stdout (None when sys has none). */
Value vm_current_stdout(VM *vm);

#endif
