/* vm/import.h — the import system (vm/import.c): the import statement, __import__, Ember's
 * embedded library, native modules as built-in modules, and importlib's frozen bootstrap. */
#ifndef EMBER_VM_IMPORT_H
#define EMBER_VM_IMPORT_H

#include "vm/native.h"
#include "vm/vm.h"

/* IMPORT_NAME: import `name` (relative when level > 0), through builtins.__import__ when a
 * script replaced it. */
Value vm_import_name(VM *vm, StrObj *name, Value fromlist, Value level, DictObj *globals);
/* __import__ itself (PyImport_ImportModuleLevelObject); globals may be NULL. */
Value vm_import_level(VM *vm, StrObj *name, DictObj *globals, Value fromlist, int64_t level);
Value vm_import_from(VM *vm, Value module, StrObj *name);
int vm_import_star(VM *vm, Value module, DictObj *into) EM_MUST_CHECK;
/* Import a dotted module name from C; returns the leaf module. */
Value vm_import_module(VM *vm, const char *dotted);
/* Register the source of an Ember library module (the text must outlive the VM). */
void vm_register_library_module(VM *vm, const char *name, const char *source, bool is_package);
/* Compile and run source as the main module `name` (registered in sys.modules first). */
Value vm_exec_module_source(VM *vm, const char *name, const char *src, size_t len,
                            const char *filename, uint32_t code_flags);

/* For the _imp module (vm/mod_imp.c). */
NativeModuleDef *import_find_native(VM *vm, const char *name);
Value import_native_module(VM *vm, const char *name);     /* created once per VM */
int import_frozen_index(const char *name);                /* -1: not frozen */
int import_publish_builtin_names(VM *vm);                 /* sys.builtin_module_names */
const char *import_frozen_origname(int i);
CodeObj *import_frozen_code(VM *vm, int i);
/* Amend a pending "No module named" error for a CPython C extension of lib-dynload. */
void import_note_extension(VM *vm, const char *name);

void import_init(VM *vm);         /* sys.modules, sys.path (before sys exists) */
void import_init_paths(VM *vm);   /* sys.path's entries, after sys and the builtins */

#endif
