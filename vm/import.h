/* vm/import.h — the import system: sys.modules, native modules, Ember's embedded library
 * modules (script source compiled on first import, flagged as library code), and .py files
 * found on sys.path (the script's directory first). */
#ifndef EMBER_VM_IMPORT_H
#define EMBER_VM_IMPORT_H

#include "vm/vm.h"

/* IMPORT_NAME: import `name` (dotted, relative when level > 0). */
Value vm_import_name(VM *vm, StrObj *name, Value fromlist, Value level, DictObj *globals);
Value vm_import_from(VM *vm, Value module, StrObj *name);
int vm_import_star(VM *vm, Value module, DictObj *into) EM_MUST_CHECK;
/* Import a dotted module name from C; returns the leaf module. */
Value vm_import_module(VM *vm, const char *dotted);
/* Register the source of a library module (the text must outlive the VM). */
void vm_register_library_module(VM *vm, const char *name, const char *source, bool is_package);
/* Compile and run source as module `name` (registered in sys.modules first). */
Value vm_exec_module_source(VM *vm, const char *name, const char *src, size_t len,
                            const char *filename, uint32_t code_flags);
void import_init(VM *vm);

#endif
