/* src/tracer/tracer_api.h — what the layers above the tracer (embedding API, CLI) call. */
#ifndef EMBER_TRACER_API_H
#define EMBER_TRACER_API_H

#include <stdbool.h>

#include "vm/vm.h"

/* Register the tracer with a VM: its state, backends, torch._dynamo. */
void tracer_register(VM *vm);
/* `ember run --compile-all`: every script function frame is compiled, with this backend. */
void tracer_set_compile_all(VM *vm, const char *backend);
/* `ember compile`: artifacts to show (EMBER_LOGS names, "all"), residual code as Python
 * source, and a directory to write each graph's Graphviz DOT into (NULL: none). */
void tracer_set_inspect(VM *vm, const char *show, bool decompile, const char *dot_dir);
/* The compile report: from now on every compile's record is kept (script and command name the
 * run in the report's index); tracer_write_report writes them as static HTML into the directory
 * (*dir_out): 1, or 0 when no report was asked for, or -1 (errno set) when it cannot. */
void tracer_set_report(VM *vm, const char *dir, const char *script, const char *command);
int tracer_write_report(VM *vm, const char **dir_out);
/* Clear every compiled entry (torch._dynamo.reset()). */
void tracer_reset(VM *vm);

#endif
