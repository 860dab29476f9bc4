/* src/ffi/ctypes_module.c — the `_ctypes` native module (assembled from cdata.c, cstruct.c,
 * carray.c and cfunc.c), ctypes.util's library search, and the registration of the FFI layer
 * with a VM: native modules plus the library modules written in the script language (the .py
 * files under src/ffi/lib, embedded at build time by tools/embed_lib.py). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "src/ffi/ctypes.h"
#include "src/ffi/register.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule ffi_lib_modules[];

int ffi_ops_module_init(VM *vm, Value mod);


/* ctypes.util.find_library(name) on Linux, as CPython does it first: the soname listed by
 * `ldconfig -p` for this machine's ABI ("libm.so.6"), or None. */
static Value f_find_library(ARGS) {
    if (argc != 1 || !val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "find_library() argument must be str");
    const char *name = AS_STR(argv[0])->data;
    struct utsname u;
    const char *abi = "libc6";
    if (uname(&u) == 0) {
        if (strcmp(u.machine, "x86_64") == 0) abi = "libc6,x86-64";
        else if (strcmp(u.machine, "aarch64") == 0) abi = "libc6,AArch64";
    }
    FILE *p = popen("LC_ALL=C LANG=C /sbin/ldconfig -p 2>/dev/null", "r");
    if (!p) return val_none();
    char line[4096], want[512], tag[64];
    snprintf(want, sizeof want, "lib%s.", name);
    snprintf(tag, sizeof tag, "(%s", abi);
    char found[512] = "";
    while (!found[0] && fgets(line, sizeof line, p)) {
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (strncmp(s, want, strlen(want)) != 0) continue;
        char *end = s;
        while (*end && *end != ' ' && *end != '\t' && *end != '\n') end++;
        char *q = end;
        while (*q == ' ' || *q == '\t') q++;
        if (strncmp(q, tag, strlen(tag)) != 0) continue;
        size_t n = (size_t)(end - s);
        if (n >= sizeof found) continue;
        memcpy(found, s, n);
        found[n] = 0;
    }
    pclose(p);
    if (!found[0]) return val_none();
    StrObj *r = str_from_c(vm, found);
    return r ? val_obj(r) : val_null();
}

static int ctypes_native_init(VM *vm, Value mod) {
    if (ct_cdata_init(vm, mod) < 0 || ct_struct_init(vm, mod) < 0 || ct_array_init(vm, mod) < 0 ||
        ct_func_init(vm, mod) < 0)
        return -1;
    static const MethodDef fns[] = {{"_find_library", f_find_library, 0}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

void ffi_register(VM *vm) {
    vm_register_native_module(vm, "_ctypes", ctypes_native_init);
    vm_register_native_module(vm, "torch._C._custom_ops", ffi_ops_module_init);
    ffi_register_trace_hook();
    for (const EmbeddedModule *m = ffi_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
}
