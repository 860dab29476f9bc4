/* vm/mod_imp.c — the _imp module, the C side of CPython's importlib: built-in modules (Ember's
 * native modules), the two frozen modules (importlib's bootstrap, see vm/import.c), extension
 * modules (refused: Ember cannot load CPython's C extensions, and says which), the import lock
 * (one interpreter thread: a counter), source hashes for hash-based pycs, and
 * _fix_co_filename. */
#include <string.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/pycache.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static int name_arg(VM *vm, Value v, const char **out) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "argument must be str, not %s", vm_type_name(vm, v));
        return -1;
    }
    *out = AS_STR(v)->data;
    return 0;
}

static Value spec_name(VM *vm, Value spec, const char **out) {
    Value n = vm_getattr_c(vm, spec, "name");
    if (val_is_null(n)) return n;
    if (!val_is_str(vm, n)) return vm_raise(vm, vm->e_TypeError, "spec.name must be str");
    *out = AS_STR(n)->data;
    return n;
}

/* is_builtin(name): 1 for a native module (-1 would mean "cannot be re-initialised") */
static Value imp_is_builtin(ARGS) {
    const char *n;
    if (name_arg(vm, argv[0], &n) < 0) return val_null();
    return val_int(import_find_native(vm, n) ? 1 : 0);
}

static Value imp_create_builtin(ARGS) {
    const char *n;
    Value nm = spec_name(vm, argv[0], &n);
    if (val_is_null(nm)) return nm;
    vm_push_root(vm, nm);
    Value m = import_native_module(vm, n);
    vm_pop_root(vm);
    return m;
}

static Value imp_exec_builtin(ARGS) { return val_int(0); }

static Value imp_is_frozen(ARGS) {
    const char *n;
    if (name_arg(vm, argv[0], &n) < 0) return val_null();
    return val_bool(import_frozen_index(n) >= 0);
}

static Value imp_is_frozen_package(ARGS) {
    const char *n;
    if (name_arg(vm, argv[0], &n) < 0) return val_null();
    if (import_frozen_index(n) < 0)
        return vm_raise_import_error(vm, vm->e_ImportError, n, NULL, "No such frozen object named '%s'", n);
    return val_bool(false);
}

/* find_frozen(name, *, withdata=False) -> (data, ispkg, origname) or None */
static Value imp_find_frozen(ARGS) {
    static const char *const names[] = {"name", "withdata"};
    Value a[2];
    if (native_parse_args(vm, "find_frozen", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    const char *n;
    if (name_arg(vm, a[0], &n) < 0) return val_null();
    int i = import_frozen_index(n);
    if (i < 0) return val_none();
    Value data = val_none();
    if (!val_is_null(a[1]) && vm_truthy(vm, a[1]) > 0)
        return vm_raise(vm, vm->e_NotImplementedError, "find_frozen(withdata=True): Ember's frozen modules are compiled from source");
    StrObj *orig = str_from_c(vm, import_frozen_origname(i));
    if (!orig) return val_null();
    vm_push_root(vm, val_obj(orig));
    TupleObj *t = tuple_pack(vm, 3, data, val_bool(false), val_obj(orig));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value imp_get_frozen_object(ARGS) {
    const char *n;
    if (name_arg(vm, argv[0], &n) < 0) return val_null();
    int i = import_frozen_index(n);
    if (i < 0) return vm_raise_import_error(vm, vm->e_ImportError, n, NULL, "No such frozen object named '%s'", n);
    CodeObj *co = import_frozen_code(vm, i);
    return co ? val_obj(co) : val_null();
}

static Value imp_init_frozen(ARGS) {
    const char *n;
    if (name_arg(vm, argv[0], &n) < 0) return val_null();
    Value m = dict_get_c(vm, vm->modules, n);
    if (!val_is_null(m)) return m;
    return vm_raise_import_error(vm, vm->e_ImportError, n, NULL, "No such frozen object named '%s'", n);
}

static Value imp_extension_suffixes(ARGS) {
    /* CPython's own, so FileFinder sees C extensions and routes them to create_dynamic, which
     * names them */
    ListObj *l = list_new(vm, 3);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    static const char *const s[] = {".cpython-311-x86_64-linux-gnu.so", ".abi3.so", ".so"};
    for (int i = 0; i < 3; i++)
        if (list_append(vm, l, vm_intern(vm, s[i])) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    vm_pop_root(vm);
    return val_obj(l);
}

/* create_dynamic(spec): a CPython C extension module — Ember has no CPython C API to load it */
static Value imp_create_dynamic(ARGS) {
    const char *n;
    Value nm = spec_name(vm, argv[0], &n);
    if (val_is_null(nm)) return nm;
    vm_push_root(vm, nm);
    Value origin = vm_getattr_c(vm, argv[0], "origin");
    vm_pop_root(vm);
    if (val_is_null(origin)) return origin;
    const char *path = val_is_str(vm, origin) ? AS_STR(origin)->data : "?";
    return vm_raise_import_error(vm, vm->e_ImportError, n, path,
                                 "cannot import '%s': %s is a CPython C extension module, which Ember cannot load",
                                 n, path);
}

static Value imp_exec_dynamic(ARGS) { return val_int(0); }

/* The import lock: one interpreter thread, so a re-entrant count is the whole of it. */
static Value imp_acquire_lock(ARGS) {
    int64_t n = val_is_intlike(vm->lib[VM_LIB_import_lock]) ? val_as_intlike(vm->lib[VM_LIB_import_lock]) : 0;
    vm->lib[VM_LIB_import_lock] = val_int(n + 1);
    return val_none();
}
static Value imp_release_lock(ARGS) {
    int64_t n = val_is_intlike(vm->lib[VM_LIB_import_lock]) ? val_as_intlike(vm->lib[VM_LIB_import_lock]) : 0;
    if (n <= 0) return vm_raise(vm, vm->e_RuntimeError, "not holding the import lock");
    vm->lib[VM_LIB_import_lock] = val_int(n - 1);
    return val_none();
}
static Value imp_lock_held(ARGS) {
    return val_bool(val_is_intlike(vm->lib[VM_LIB_import_lock]) && val_as_intlike(vm->lib[VM_LIB_import_lock]) > 0);
}

/* source_hash(key, source): CPython's SipHash-1-3 of the source keyed by key, 8 bytes LE */
static Value imp_source_hash(ARGS) {
    static const char *const names[] = {"key", "source"};
    Value a[2];
    if (native_parse_args(vm, "source_hash", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    int64_t key;
    if (vm_index(vm, a[0], &key) < 0) return val_null();
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[1], "source_hash", &holder, &p, &n) < 0) return val_null();
    uint64_t h = pycache_source_hash((uint64_t)key, p, (size_t)n);
    uint8_t out[8];
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(h >> (8 * i));
    BytesObj *b = bytes_new(vm, out, 8);
    return b ? val_obj(b) : val_null();
}

static void set_filename(VM *vm, CodeObj *co, StrObj *fn) {
    co->filename = fn;
    for (int64_t i = 0; i < co->consts->len; i++)
        if (val_is_type(vm, co->consts->items[i], vm->t_code)) set_filename(vm, AS_CODE(co->consts->items[i]), fn);
}

static Value imp_fix_co_filename(ARGS) {
    if (!val_is_type(vm, argv[0], vm->t_code) || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "_fix_co_filename() takes a code object and a str");
    if (!str_eq(AS_CODE(argv[0])->filename, AS_STR(argv[1]))) set_filename(vm, AS_CODE(argv[0]), AS_STR(argv[1]));
    return val_none();
}

static Value imp_frozen_module_names(ARGS) {
    TupleObj *t = tuple_pack(vm, 2, vm_intern(vm, "_frozen_importlib"), vm_intern(vm, "_frozen_importlib_external"));
    return t ? val_obj(t) : val_null();
}

static Value imp_override_frozen(ARGS) { return val_int(-1); }

int imp_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"is_builtin", imp_is_builtin, ARITY_O}, {"create_builtin", imp_create_builtin, ARITY_O},
        {"exec_builtin", imp_exec_builtin, ARITY_O}, {"is_frozen", imp_is_frozen, ARITY_O},
        {"is_frozen_package", imp_is_frozen_package, ARITY_O}, {"find_frozen", imp_find_frozen},
        {"get_frozen_object", imp_get_frozen_object, ARITY_POS(1, 2)}, {"init_frozen", imp_init_frozen, ARITY_O},
        {"extension_suffixes", imp_extension_suffixes, ARITY_NOARGS},
        {"create_dynamic", imp_create_dynamic, ARITY_POS(1, 2)}, {"exec_dynamic", imp_exec_dynamic, ARITY_O},
        {"acquire_lock", imp_acquire_lock, ARITY_NOARGS}, {"release_lock", imp_release_lock, ARITY_NOARGS},
        {"lock_held", imp_lock_held, ARITY_NOARGS}, {"source_hash", imp_source_hash},
        {"_fix_co_filename", imp_fix_co_filename, ARITY_POS(2, 2)},
        {"_frozen_module_names", imp_frozen_module_names, ARITY_NOARGS},
        {"_override_frozen_modules_for_tests", imp_override_frozen, ARITY_O}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "check_hash_based_pycs", vm_intern(vm, "default"));
}
