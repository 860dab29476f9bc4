/* ember/ember.h — the embedding API: create a VM, run scripts, call script functions from C,
 * and give scripts native functions and modules.
 *
 * Values held by C are EmRefs: each is a GC root until em_release().  Functions that can fail
 * return NULL (or -1) with a Python exception pending on the VM; em_error_message() formats
 * it and em_print_error() prints its traceback.
 *
 *     EmVM *vm = em_vm_new();
 *     em_run_string(vm, "def add(a, b): return a + b", "<setup>");
 *     EmRef *add = em_get_global(vm, "__main__", "add");
 *     EmRef *args[2] = {em_int(vm, 2), em_int(vm, 3)};
 *     EmRef *r = em_call(vm, add, 2, args);
 *     int64_t v; em_to_int(vm, r, &v);          // v == 5
 *     em_release(vm, r); ...; em_vm_free(vm);
 */
#ifndef EMBER_EMBER_H
#define EMBER_EMBER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VM EmVM;
typedef struct ExtRoot EmRef;

/* A native function: returns a new reference (or NULL after em_raise). */
typedef EmRef *(*EmNativeFn)(EmVM *vm, int argc, EmRef **argv, void *userdata);

typedef struct EmFunctionDef {
    const char *name;
    EmNativeFn fn;
    void *userdata;
} EmFunctionDef;

EmVM *em_vm_new(void);
void em_vm_free(EmVM *vm);

/* sys.argv for scripts run afterwards (argv[0] is the script name). */
void em_set_argv(EmVM *vm, int argc, char **argv);

/* CPython's safe_path (-P, -I): em_run_file and em_run_module put no directory first on sys.path. */
void em_set_safe_path(EmVM *vm, int on);

/* Run a file as __main__ (its directory goes first on sys.path unless safe_path).  0 on success, -1 with the
 * exception pending (SystemExit included; see em_exit_status). */
int em_run_file(EmVM *vm, const char *path);
/* Run module `name` as __main__, as `python -m name` does (sys.argv[0] becomes its file, the
 * current directory goes first on sys.path; a package runs its __main__ submodule). */
int em_run_module(EmVM *vm, const char *name);
/* Run source text in module __main__ under the given filename. */
int em_run_string(EmVM *vm, const char *source, const char *filename);

/* After a failed run: the process exit status CPython would use (SystemExit's code, or 1). */
int em_exit_status(EmVM *vm);
/* Print the pending exception as a CPython traceback to stderr and clear it. */
void em_print_error(EmVM *vm);
/* "Type: message" of the pending exception (malloc'd; NULL if none).  Does not clear it. */
char *em_error_message(EmVM *vm);
void em_clear_error(EmVM *vm);
/* Raise a RuntimeError (or the named builtin exception type) from a native function. */
void em_raise(EmVM *vm, const char *exc_type, const char *message);

/* Values */
EmRef *em_none(EmVM *vm);
EmRef *em_int(EmVM *vm, int64_t v);
EmRef *em_float(EmVM *vm, double v);
EmRef *em_str(EmVM *vm, const char *utf8);
int em_to_int(EmVM *vm, EmRef *r, int64_t *out);      /* 0, or -1 + TypeError */
int em_to_float(EmVM *vm, EmRef *r, double *out);
/* UTF-8 of a str (borrowed: valid while r is held); NULL + TypeError otherwise. */
const char *em_to_str(EmVM *vm, EmRef *r);
EmRef *em_repr(EmVM *vm, EmRef *r);
EmRef *em_retain(EmVM *vm, EmRef *r);   /* a second reference to the same value */
void em_release(EmVM *vm, EmRef *r);

/* Script objects */
EmRef *em_get_global(EmVM *vm, const char *module, const char *name);
EmRef *em_getattr(EmVM *vm, EmRef *obj, const char *name);
EmRef *em_call(EmVM *vm, EmRef *callable, int argc, EmRef **argv);
EmRef *em_import(EmVM *vm, const char *module);

/* Native functions and modules */
int em_register_function(EmVM *vm, const char *name, EmNativeFn fn, void *userdata); /* a builtin */
int em_register_module(EmVM *vm, const char *name, const EmFunctionDef *fns);       /* NULL-terminated */

#ifdef __cplusplus
}
#endif

#endif
