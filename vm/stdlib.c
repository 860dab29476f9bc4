/* vm/stdlib.c — registers the standard modules: native ones (sys is created by vm_new; math,
 * cmath, time, _weakref, gc, _ember, _collections, _sre, itertools, _operator, _functools, _random, _bisect, _heapq, _string here) and the library modules written in the script language (the .py files under vm/lib,
 * embedded at build time by tools/embed_lib.py). */
#include "vm/import.h"
#include "vm/native.h"

int math_module_init(VM *vm, Value mod);
int cmath_module_init(VM *vm, Value mod);
int weakref_module_init(VM *vm, Value mod);
int gc_module_init(VM *vm, Value mod);
int ember_module_init(VM *vm, Value mod);
int collections_module_init(VM *vm, Value mod);
int sre_module_init(VM *vm, Value mod);
int itertools_module_init(VM *vm, Value mod);
int operator_module_init(VM *vm, Value mod);
int functools_module_init(VM *vm, Value mod);
int random_module_init(VM *vm, Value mod);
int bisect_module_init(VM *vm, Value mod);
int heapq_module_init(VM *vm, Value mod);
int string_module_init(VM *vm, Value mod);
int codecs_module_init(VM *vm, Value mod);
int posix_module_init(VM *vm, Value mod);
int errno_module_init(VM *vm, Value mod);
int time_module_init(VM *vm, Value mod);
int imp_module_init(VM *vm, Value mod);
int marshal_module_init(VM *vm, Value mod);
int thread_module_init(VM *vm, Value mod);
int warnings_module_init(VM *vm, Value mod);
int atexit_module_init(VM *vm, Value mod);
int io_module_init(VM *vm, Value mod);
int struct_module_init(VM *vm, Value mod);
int binascii_module_init(VM *vm, Value mod);
int zlib_module_init(VM *vm, Value mod);
int hashlib_module_init(VM *vm, Value mod);
int sha512_module_init(VM *vm, Value mod);
int blake2_module_init(VM *vm, Value mod);
int posixsubprocess_module_init(VM *vm, Value mod);
int select_module_init(VM *vm, Value mod);
int signal_module_init(VM *vm, Value mod);
int locale_module_init(VM *vm, Value mod);
int pwd_module_init(VM *vm, Value mod);
int grp_module_init(VM *vm, Value mod);
int resource_module_init(VM *vm, Value mod);
int faulthandler_module_init(VM *vm, Value mod);
int socket_module_init(VM *vm, Value mod);
int multiprocessing_module_init(VM *vm, Value mod);
int posixshmem_module_init(VM *vm, Value mod);
void import_init_paths(VM *vm);
void exc_os_init(VM *vm);
void exc_syntax_init(VM *vm);
void exc_group_init(VM *vm);
void codecs_init(VM *vm);
int io_install_builtin_open(VM *vm);
int contextvars_module_init(VM *vm, Value mod);
int csv_module_init(VM *vm, Value mod);
int unicodedata_module_init(VM *vm, Value mod);

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule vm_lib_modules[];

void stdlib_register(VM *vm) {
    exc_os_init(vm);
    exc_syntax_init(vm);
    exc_group_init(vm);
    codecs_init(vm);
    vm_register_native_module(vm, "_codecs", codecs_module_init);
    vm_register_native_module(vm, "posix", posix_module_init);
    vm_register_native_module(vm, "errno", errno_module_init);
    vm_register_native_module(vm, "_imp", imp_module_init);
    vm_register_native_module(vm, "marshal", marshal_module_init);
    vm_register_native_module(vm, "_thread", thread_module_init);
    vm_register_native_module(vm, "_warnings", warnings_module_init);
    vm_register_native_module(vm, "atexit", atexit_module_init);
    vm_register_native_module(vm, "_io", io_module_init);
    vm_register_native_module(vm, "_struct", struct_module_init);
    vm_register_native_module(vm, "binascii", binascii_module_init);
    vm_register_native_module(vm, "zlib", zlib_module_init);
    vm_register_native_module(vm, "_hashlib", hashlib_module_init);
    vm_register_native_module(vm, "_sha512", sha512_module_init);
    vm_register_native_module(vm, "_blake2", blake2_module_init);
    vm_register_native_module(vm, "_posixsubprocess", posixsubprocess_module_init);
    vm_register_native_module(vm, "select", select_module_init);
    vm_register_native_module(vm, "_signal", signal_module_init);
    vm_register_native_module(vm, "_locale", locale_module_init);
    vm_register_native_module(vm, "pwd", pwd_module_init);
    vm_register_native_module(vm, "grp", grp_module_init);
    vm_register_native_module(vm, "resource", resource_module_init);
    vm_register_native_module(vm, "faulthandler", faulthandler_module_init);
    vm_register_native_module(vm, "_socket", socket_module_init);
    vm_register_native_module(vm, "_multiprocessing", multiprocessing_module_init);
    vm_register_native_module(vm, "_posixshmem", posixshmem_module_init);
    vm_register_native_module(vm, "math", math_module_init);
    vm_register_native_module(vm, "cmath", cmath_module_init);
    vm_register_native_module(vm, "time", time_module_init);
    vm_register_native_module(vm, "_weakref", weakref_module_init);
    vm_register_native_module(vm, "gc", gc_module_init);
    vm_register_native_module(vm, "_ember", ember_module_init);
    vm_register_native_module(vm, "_collections", collections_module_init);
    vm_register_native_module(vm, "_sre", sre_module_init);
    vm_register_native_module(vm, "itertools", itertools_module_init);
    vm_register_native_module(vm, "_operator", operator_module_init);
    vm_register_native_module(vm, "_functools", functools_module_init);
    vm_register_native_module(vm, "_random", random_module_init);
    vm_register_native_module(vm, "_bisect", bisect_module_init);
    vm_register_native_module(vm, "_heapq", heapq_module_init);
    vm_register_native_module(vm, "_string", string_module_init);
    vm_register_native_module(vm, "_contextvars", contextvars_module_init);
    vm_register_native_module(vm, "_csv", csv_module_init);
    vm_register_native_module(vm, "unicodedata", unicodedata_module_init);
    for (const EmbeddedModule *m = vm_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
    if (io_install_builtin_open(vm) < 0) EM_UNREACHABLE();
    import_init_paths(vm);
}
