/* vm/stdlib.c — registers the standard modules: native ones (sys is created by vm_new; math,
 * time, _weakref, gc, _ember, _collections, _sre, itertools, _operator, _functools here) and the library modules written in the script language (the .py files under vm/lib,
 * embedded at build time by tools/embed_lib.py). */
#include "vm/import.h"
#include "vm/native.h"

int math_module_init(VM *vm, Value mod);
int time_module_init(VM *vm, Value mod);
int weakref_module_init(VM *vm, Value mod);
int gc_module_init(VM *vm, Value mod);
int ember_module_init(VM *vm, Value mod);
int collections_module_init(VM *vm, Value mod);
int sre_module_init(VM *vm, Value mod);
int itertools_module_init(VM *vm, Value mod);
int operator_module_init(VM *vm, Value mod);
int functools_module_init(VM *vm, Value mod);
int codecs_module_init(VM *vm, Value mod);
int posix_module_init(VM *vm, Value mod);
int errno_module_init(VM *vm, Value mod);
void exc_os_init(VM *vm);
void exc_syntax_init(VM *vm);
void codecs_init(VM *vm);

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule vm_lib_modules[];

void stdlib_register(VM *vm) {
    exc_os_init(vm);
    exc_syntax_init(vm);
    codecs_init(vm);
    vm_register_native_module(vm, "_codecs", codecs_module_init);
    vm_register_native_module(vm, "posix", posix_module_init);
    vm_register_native_module(vm, "errno", errno_module_init);
    vm_register_native_module(vm, "math", math_module_init);
    vm_register_native_module(vm, "time", time_module_init);
    vm_register_native_module(vm, "_weakref", weakref_module_init);
    vm_register_native_module(vm, "gc", gc_module_init);
    vm_register_native_module(vm, "_ember", ember_module_init);
    vm_register_native_module(vm, "_collections", collections_module_init);
    vm_register_native_module(vm, "_sre", sre_module_init);
    vm_register_native_module(vm, "itertools", itertools_module_init);
    vm_register_native_module(vm, "_operator", operator_module_init);
    vm_register_native_module(vm, "_functools", functools_module_init);
    for (const EmbeddedModule *m = vm_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
}
