/* vm/exc.h — exception internals shared by the interpreter and the CLI: traceback entries,
 * the source-line cache used when printing tracebacks, and the exception types' setup.  The
 * raising API (vm_raise, ...) is in vm/vm.h. */
#ifndef EMBER_VM_EXC_H
#define EMBER_VM_EXC_H

#include "vm/vm.h"

/* Prepend a traceback entry for frame f at its current instruction to exc's traceback (the
 * entry's tb_frame is f's frame object). */
int exc_add_traceback(VM *vm, Value exc, Frame *f) EM_MUST_CHECK;
/* Remember a file's text so tracebacks can show its lines (files are read on demand too). */
void exc_register_source(const char *filename, const char *text, size_t len);
bool exc_source_line(const char *filename, int lineno, char *out, size_t cap);
void exc_free_sources(void);
void exc_init_types(VM *vm);

#endif
