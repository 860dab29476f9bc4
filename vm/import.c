/* vm/import.c — the import system.
 *
 * Ember imports the way CPython 3.11 does, with CPython's own importlib for the protocol and C
 * for the work that runs on every import:
 *   - importlib._bootstrap and _bootstrap_external (CPython's files, unchanged) are loaded at
 *     the first import as the frozen modules `_frozen_importlib` / `_frozen_importlib_external`
 *     and installed as CPython's start-up installs them: sys.meta_path holds BuiltinImporter,
 *     FrozenImporter and PathFinder, sys.path_hooks the FileFinder hook; module specs are
 *     ModuleSpec objects, loaders SourceFileLoader & co., so importlib, pkgutil, inspect and
 *     runpy see what they see under CPython.
 *   - The import statement (IMPORT_NAME) is C, as CPython's import.c is: name resolution,
 *     the sys.modules fast path, the orchestration of _find_and_load / _load_unlocked, the
 *     fromlist, and the removal of importlib frames from tracebacks.  Loading a
 *     SourceFileLoader's module goes through the C bytecode cache (vm/pycache.c) instead of
 *     the Python get_code; both read and write the same cache files.
 *   - Native modules (vm/stdlib.c's table) are the built-in modules BuiltinImporter finds
 *     through _imp (vm/mod_imp.c); a CPython C extension found on sys.path raises ImportError
 *     naming it (_imp.create_dynamic).
 *   - Ember's own library (torch, ..., embedded in the binary by tools/embed_lib.py) is the
 *     sys.path entry "<ember>", served by a path hook like zipimport's: EmberLibImporter,
 *     finder and loader in one, compiling the embedded source with CO_LIBRARY.
 * sys.path is [script directory, "<ember>" (or an installed Ember's library directory), CPython's
 * stdlib directory]; lib-dynload is left out, since Ember cannot load C extensions. */
#include "vm/import.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/install.h"
#include "vm/build_config.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/pycache.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- Ember's embedded library -------------------------------------------------------------- */

typedef struct LibraryModule {
    const char *name;
    const char *source;
    bool is_package;
    struct LibraryModule *next;
} LibraryModule;

/* Library registrations are process-wide: the sources are static text. */
static LibraryModule *library_modules;

void vm_register_library_module(VM *vm, const char *name, const char *source, bool is_package) {
    for (LibraryModule *m = library_modules; m; m = m->next)
        if (strcmp(m->name, name) == 0) return;
    LibraryModule *m = calloc(1, sizeof *m);
    EM_ASSERT(m != NULL, "out of memory");
    m->name = name;
    m->source = source;
    m->is_package = is_package;
    m->next = library_modules;
    library_modules = m;
}

static const LibraryModule *find_library(const char *name, size_t n) {
    for (LibraryModule *m = library_modules; m; m = m->next)
        if (strlen(m->name) == n && memcmp(m->name, name, n) == 0) return m;
    return NULL;
}

#define EMBER_LIB "<ember>"

static ModuleObj *as_module(Value v) { return (ModuleObj *)v.as.o; }

static Value sys_attr(VM *vm, const char *name) {
    Value s = dict_get_c(vm, vm->modules, "sys");
    return val_is_type(vm, s, vm->t_module) ? dict_get_c(vm, as_module(s)->dict, name) : val_null();
}

static Value importlib_attr(VM *vm, const char *name) {
    return dict_get_c(vm, as_module(vm->lib[VM_LIB_importlib])->dict, name);
}

/* call _frozen_importlib.<name>(args) */
static Value call_bootstrap(VM *vm, const char *name, int argc, Value *argv) {
    Value f = importlib_attr(vm, name);
    if (val_is_null(f)) return vm_raise(vm, vm->e_ImportError, "importlib._bootstrap has no %s", name);
    return vm_call(vm, f, argc, argv, NULL);
}

/* EmberLibImporter: the finder and loader for the "<ember>" path entries (one per directory of
 * the embedded tree: "<ember>", "<ember>/torch", ...). */
typedef struct LibImporterObj {
    Obj hdr;
    StrObj *prefix;
} LibImporterObj;

static void lib_importer_trace(VM *vm, Obj *o) { gc_mark(vm, ((LibImporterObj *)o)->prefix); }

/* The embedded module a full name resolves to under this importer: the importer's directory
 * below "<ember>" plus the last component of the name. */
static const LibraryModule *lib_lookup(LibImporterObj *imp, const char *fullname, char *key, size_t cap) {
    if (!imp->prefix) return NULL; /* the native-module meta-path finder */
    const char *tail = strrchr(fullname, '.');
    tail = tail ? tail + 1 : fullname;
    const char *dir = imp->prefix->data + strlen(EMBER_LIB);
    if (*dir == '/') dir++;
    snprintf(key, cap, "%s%s%s", dir, *dir ? "." : "", tail);
    for (char *p = key; *p; p++)
        if (*p == '/') *p = '.';
    return find_library(key, strlen(key));
}

static int lib_filename(const LibraryModule *m, char *out, size_t cap) {
    int n = snprintf(out, cap, EMBER_LIB "/%s%s", m->name, m->is_package ? "/__init__.py" : ".py");
    for (char *p = out + strlen(EMBER_LIB) + 1; *p; p++)
        if (*p == '.' && strcmp(p, ".py") != 0) *p = '/';
    return n;
}

static Value lib_new_importer(VM *vm, StrObj *prefix) {
    LibImporterObj *o = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_ember_lib_importer]), sizeof(LibImporterObj));
    if (!o) return val_null();
    o->prefix = prefix;
    return val_obj(o);
}

/* the sys.path_hooks entry: an importer for "<ember>" and the directories below it */
static Value lib_path_hook(ARGS) {
    Value p = argv[0];
    if (!val_is_str(vm, p) || strncmp(AS_STR(p)->data, EMBER_LIB, strlen(EMBER_LIB)) != 0 ||
        (AS_STR(p)->data[strlen(EMBER_LIB)] != 0 && AS_STR(p)->data[strlen(EMBER_LIB)] != '/'))
        return vm_raise_import_error(vm, vm->e_ImportError, NULL, NULL, "not an Ember library path");
    return lib_new_importer(vm, AS_STR(p));
}

/* A native module inside Ember's library (torch._C): BuiltinImporter loads it, as the built-in
 * module it is; when others live below it (torch._C._nn) it is a package whose path is
 * "<ember>/torch/_C", so this hook finds them too. */
static Value lib_native_spec(VM *vm, Value fullname, const char *key) {
    Value bi = importlib_attr(vm, "BuiltinImporter");
    Value spec = call_bootstrap(vm, "spec_from_loader", 2, (Value[]){fullname, bi});
    if (val_is_null(spec)) return spec;
    vm_push_root(vm, spec);
    int rc = vm_setattr(vm, spec, vm_intern_str(vm, "origin"), vm_intern(vm, "built-in"));
    size_t kl = strlen(key);
    bool has_children = false;
    for (NativeModuleDef *d = vm->native_modules; d; d = d->next)
        if (strncmp(d->name, key, kl) == 0 && d->name[kl] == '.') has_children = true;
    for (LibraryModule *m = library_modules; m; m = m->next)
        if (strncmp(m->name, key, kl) == 0 && m->name[kl] == '.') has_children = true;
    if (rc == 0 && has_children) {
        const char *lib = install_library_dir();
        if (!lib) lib = EMBER_LIB;
        StrObj *dir = str_printf(vm, "%s/%s", lib, key);
        if (dir)
            for (char *p = dir->data + strlen(lib) + 1; *p; p++)
                if (*p == '.') *p = '/';
        rc = -1;
        if (dir) {   /* dir and the list rooted across the allocations that follow them */
            vm_push_root(vm, val_obj(dir));
            ListObj *l = list_from_array(vm, (Value[]){val_obj(dir)}, 1);
            if (l) {
                vm_push_root(vm, val_obj(l));
                rc = vm_setattr(vm, spec, vm_intern_str(vm, "submodule_search_locations"), val_obj(l));
                vm_pop_root(vm);
            }
            vm_pop_root(vm);
        }
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : spec;
}

/* find_spec(fullname, target=None) */
static Value lib_find_spec(ARGS) {
    if (argc < 2 || !val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "find_spec() needs a module name");
    LibImporterObj *imp = (LibImporterObj *)argv[0].as.o;
    if (!imp->prefix) /* the meta-path finder of native modules inside Ember's library */
        return strchr(AS_STR(argv[1])->data, '.') && import_find_native(vm, AS_STR(argv[1])->data)
                   ? lib_native_spec(vm, argv[1], AS_STR(argv[1])->data)
                   : val_none();
    char key[512], file[600];
    const LibraryModule *m = lib_lookup(imp, AS_STR(argv[1])->data, key, sizeof key);
    if (!m) return val_none();
    lib_filename(m, file, sizeof file);
    StrObj *origin = str_from_c(vm, file);
    if (!origin) return val_null();
    vm_push_root(vm, val_obj(origin));
    Value spec_cls = importlib_attr(vm, "ModuleSpec");
    TupleObj *kwn = tuple_pack(vm, 2, vm_intern(vm, "origin"), vm_intern(vm, "is_package"));
    Value spec = val_null();
    if (kwn) {
        vm_push_root(vm, val_obj(kwn));
        Value args[4] = {argv[1], argv[0], val_obj(origin), val_bool(m->is_package)};
        spec = vm_call(vm, spec_cls, 2, args, kwn);
        vm_pop_root(vm);
    }
    if (val_is_null(spec)) {
        vm_pop_root(vm);
        return spec;
    }
    vm_push_root(vm, spec);
    int rc = vm_setattr(vm, spec, vm_intern_str(vm, "_set_fileattr"), val_bool(true));
    if (rc == 0 && m->is_package) {
        /* __path__ = ["<ember>/a/b"] */
        /* dir and the list stay rooted across the allocations after them (GC stress found dir
         * freed by list_from_array's allocation) */
        StrObj *dir = str_new(vm, file, (int64_t)(strlen(file) - strlen("/__init__.py")));
        rc = -1;
        if (dir) {
            vm_push_root(vm, val_obj(dir));
            ListObj *l = list_from_array(vm, (Value[]){val_obj(dir)}, 1);
            if (l) {
                vm_push_root(vm, val_obj(l));
                rc = vm_setattr(vm, spec, vm_intern_str(vm, "submodule_search_locations"), val_obj(l));
                vm_pop_root(vm);
            }
            vm_pop_root(vm);
        }
    }
    vm_pop_roots(vm, 2);
    return rc < 0 ? val_null() : spec;
}

static const LibraryModule *lib_module_of(VM *vm, Value self, Value name) {
    if (!val_is_str(vm, name)) {
        vm_raise(vm, vm->e_TypeError, "module name must be str");
        return NULL;
    }
    char key[512];
    const LibraryModule *m = lib_lookup((LibImporterObj *)self.as.o, AS_STR(name)->data, key, sizeof key);
    if (!m) vm_raise_import_error(vm, vm->e_ImportError, AS_STR(name)->data, NULL, "can't find module '%s'", AS_STR(name)->data);
    return m;
}

static CodeObj *lib_code(VM *vm, const LibraryModule *m) {
    char file[600];
    lib_filename(m, file, sizeof file);
    return pycache_get_embedded_code(vm, file, m->source, strlen(m->source), CO_LIBRARY);
}

static Value lib_create_module(ARGS) { return val_none(); }

static Value lib_exec_module(ARGS) {
    Value name = vm_getattr_c(vm, argv[1], "__name__");
    if (val_is_null(name)) return name;
    const LibraryModule *m = lib_module_of(vm, argv[0], name);
    if (!m) return val_null();
    CodeObj *co = lib_code(vm, m);
    if (!co) return val_null();
    gc_make_permanent(vm, &co->hdr);   /* a module's code lives as long as its functions (vm/gc.c) */
    vm_push_root(vm, val_obj(co));
    DictObj **d = obj_dict_slot(argv[1].as.o);
    Value r = d && *d ? vm_run_code(vm, co, *d, *d) : vm_raise(vm, vm->e_TypeError, "module has no __dict__");
    vm_pop_root(vm);
    return val_is_null(r) ? r : val_none();
}

static Value lib_get_code(ARGS) {
    const LibraryModule *m = lib_module_of(vm, argv[0], argv[1]);
    if (!m) return val_null();
    CodeObj *co = lib_code(vm, m);
    return co ? val_obj(co) : val_null();
}

static Value lib_get_source(ARGS) {
    const LibraryModule *m = lib_module_of(vm, argv[0], argv[1]);
    if (!m) return val_null();
    StrObj *s = str_from_c(vm, m->source);
    return s ? val_obj(s) : val_null();
}

static Value lib_is_package(ARGS) {
    const LibraryModule *m = lib_module_of(vm, argv[0], argv[1]);
    return m ? val_bool(m->is_package) : val_null();
}

static Value lib_get_filename(ARGS) {
    const LibraryModule *m = lib_module_of(vm, argv[0], argv[1]);
    if (!m) return val_null();
    char file[600];
    lib_filename(m, file, sizeof file);
    StrObj *s = str_from_c(vm, file);
    return s ? val_obj(s) : val_null();
}

static Value lib_invalidate(ARGS) { return val_none(); }

static Value lib_repr(ARGS) {
    StrObj *prefix = ((LibImporterObj *)argv[0].as.o)->prefix;
    StrObj *s = prefix ? str_printf(vm, "<EmberLibImporter '%s'>", prefix->data) : str_from_c(vm, "<EmberNativeFinder>");
    return s ? val_obj(s) : val_null();
}

static int init_lib_importer(VM *vm) {
    TypeObj *t = type_new_builtin(vm, "EmberLibImporter", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(LibImporterObj), 0,
                                  lib_importer_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!t) return -1;
    vm->lib[VM_LIB_ember_lib_importer] = val_obj(t);
    t->module = vm_intern(vm, "_imp");
    static const MethodDef m[] = {
        {"find_spec", lib_find_spec, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"create_module", lib_create_module, NATIVEF_METHOD | ARITY_O},
        {"exec_module", lib_exec_module, NATIVEF_METHOD | ARITY_O},
        {"get_code", lib_get_code, NATIVEF_METHOD | ARITY_O}, {"get_source", lib_get_source, NATIVEF_METHOD | ARITY_O},
        {"is_package", lib_is_package, NATIVEF_METHOD | ARITY_O},
        {"get_filename", lib_get_filename, NATIVEF_METHOD | ARITY_O},
        {"invalidate_caches", lib_invalidate, NATIVEF_METHOD | ARITY_NOARGS},
        {"__repr__", lib_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    return type_add_methods(vm, t, m);
}

/* ---- native modules ---------------------------------------------------------------------------- */

NativeModuleDef *import_find_native(VM *vm, const char *name) {
    for (NativeModuleDef *d = vm->native_modules; d; d = d->next)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

/* The VM's one instance of a native module (made and initialised on first use). */
Value import_native_module(VM *vm, const char *name) {
    DictObj *cache = AS_DICT(vm->lib[VM_LIB_native_cache]);
    Value m = dict_get_c(vm, cache, name);
    if (!val_is_null(m)) return m;
    NativeModuleDef *d = import_find_native(vm, name);
    if (!d) return vm_raise_import_error(vm, vm->e_ImportError, name, NULL, "no built-in module named %s", name);
    m = module_new(vm, name);
    if (val_is_null(m)) return m;
    vm_push_root(vm, m);
    /* in sys.modules while its init runs, as CPython's single-phase init does */
    StrObj *key = vm_intern_str(vm, name);
    if (!key || dict_set_str(vm, vm->modules, key, m) < 0) goto fail;
    if (d->init(vm, m) < 0) {
        Value e = vm_fetch_exc(vm);
        vm_push_root(vm, e);
        (void)dict_del_str(vm, vm->modules, key);
        vm->exc = e;
        vm_pop_root(vm);
        goto fail;
    }
    if (dict_set_str(vm, cache, key, m) < 0) goto fail;
    vm_pop_root(vm);
    return m;
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- the frozen bootstrap modules -------------------------------------------------------------- */

static const struct {
    const char *name, *origname, *file;
} frozen[] = {
    {"_frozen_importlib", "importlib._bootstrap", "importlib/_bootstrap.py"},
    {"_frozen_importlib_external", "importlib._bootstrap_external", "importlib/_bootstrap_external.py"},
};

int import_frozen_index(const char *name) {
    for (size_t i = 0; i < sizeof frozen / sizeof frozen[0]; i++)
        if (strcmp(frozen[i].name, name) == 0) return (int)i;
    return -1;
}

const char *import_frozen_origname(int i) { return frozen[i].origname; }

/* The code of frozen module i: CPython's file, compiled under the name CPython gives frozen
 * code ("<frozen importlib._bootstrap>"), so tracebacks read the same. */
CodeObj *import_frozen_code(VM *vm, int i) {
    char path[1024], shown[128];
    snprintf(path, sizeof path, "%s/%s", EMBER_CPYTHON_STDLIB, frozen[i].file);
    snprintf(shown, sizeof shown, "<frozen %s>", frozen[i].origname);
    return pycache_get_code(vm, path, shown, 0, NULL);
}

/* Create frozen module i and run its code (PyImport_ImportFrozenModuleObject): in
 * sys.modules, with __origname__ for FrozenImporter._fix_up_module. */
static Value load_frozen(VM *vm, int i) {
    Value mod = module_new(vm, frozen[i].name);
    if (val_is_null(mod)) return mod;
    vm_push_root(vm, mod);
    DictObj *d = as_module(mod)->dict;
    StrObj *orig = str_from_c(vm, frozen[i].origname);
    if (!orig || dict_set_c(vm, d, "__origname__", val_obj(orig)) < 0 ||
        dict_set_c(vm, d, "__builtins__", val_obj(vm->builtins)) < 0 ||
        dict_set_c(vm, vm->modules, frozen[i].name, mod) < 0)
        goto fail;
    CodeObj *co = import_frozen_code(vm, i);
    if (!co) goto fail;
    vm_push_root(vm, val_obj(co));
    Value r = vm_run_code(vm, co, d, d);
    vm_pop_root(vm);
    if (val_is_null(r)) goto fail;
    vm_pop_root(vm);
    return mod;
fail:
    vm_pop_root(vm);
    return val_null();
}

/* sys.builtin_module_names: the native modules registered by now, sorted, with sys and
 * builtins.  The ones inside packages (torch._C and its children) are listed too, unlike in
 * CPython's tuple: Ember's library finder loads them with BuiltinImporter, whose
 * exec_module refuses a name missing from this tuple.  Published
 * when the VM is made (em_vm_new, after every layer has registered its own) and again when an
 * embedder registers one; importlib's bootstrap, which is lazy, must not be what makes it. */
static int set_builtin_names(VM *vm, Value sys) {
    if (!val_is_type(vm, sys, vm->t_module)) return 0;
    ListObj *l = list_new(vm, 0);
    if (!l) return -1;
    vm_push_root(vm, val_obj(l));
    int rc = list_append(vm, l, vm_intern(vm, "builtins")) < 0 || list_append(vm, l, vm_intern(vm, "sys")) < 0;
    for (NativeModuleDef *d = vm->native_modules; d && !rc; d = d->next)
        if (list_append(vm, l, vm_intern(vm, d->name)) < 0) rc = 1;
    if (!rc && list_sort(vm, l, val_null(), false) < 0) rc = 1;
    TupleObj *t = rc ? NULL : tuple_from_array(vm, l->items, l->len);
    vm_pop_root(vm);
    return t ? dict_set_c(vm, as_module(sys)->dict, "builtin_module_names", val_obj(t)) : -1;
}

int import_publish_builtin_names(VM *vm) { return set_builtin_names(vm, dict_get_c(vm, vm->modules, "sys")); }

/* Load CPython's importlib and install it, as pylifecycle.c's init_importlib and
 * init_importlib_external do: _bootstrap._install(sys, _imp) (meta_path: BuiltinImporter,
 * FrozenImporter), Ember's library hook, then _install_external_importers() (PathFinder and
 * the FileFinder hook). */
static int bootstrap(VM *vm) {
    Value imp = import_native_module(vm, "_imp");
    if (val_is_null(imp)) return -1;
    vm_push_root(vm, imp);
    Value mod = load_frozen(vm, 0);
    if (val_is_null(mod)) goto fail;
    vm->lib[VM_LIB_importlib] = mod;
    Value sys = dict_get_c(vm, vm->modules, "sys");
    if (set_builtin_names(vm, sys) < 0 || val_is_null(call_bootstrap(vm, "_install", 2, (Value[]){sys, imp}))) goto fail;
    /* _bootstrap_external imports built-in modules at its top, so it runs after _install; it
     * then gets the frozen module's spec _setup gives the modules present before it */
    Value ext = load_frozen(vm, 1);
    if (val_is_null(ext)) goto fail;
    vm->lib[VM_LIB_importlib_ext] = ext;
    vm_push_root(vm, ext);
    Value frozen_imp = importlib_attr(vm, "FrozenImporter");
    Value spec = call_bootstrap(vm, "_spec_from_module", 2, (Value[]){ext, frozen_imp});
    if (!val_is_null(spec)) {
        vm_push_root(vm, spec);
        if (!val_is_null(call_bootstrap(vm, "_init_module_attrs", 2, (Value[]){spec, ext})))
            spec = vm_call_method(vm, frozen_imp, "_fix_up_module", 1, &ext);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    if (val_is_null(spec)) goto fail;
    ListObj *hooks = AS_LIST(sys_attr(vm, "path_hooks"));
    NativeObj *hook = native_new(vm, "ember_lib_path_hook", lib_path_hook, NULL, ARITY_O);
    if (!hook || list_append(vm, hooks, val_obj(hook)) < 0) goto fail;
    /* native modules inside Ember's library (torch._C, torch._C._nn) are found by name, after
     * BuiltinImporter (which only takes top-level names) — wherever the library lives */
    ListObj *meta = AS_LIST(sys_attr(vm, "meta_path"));
    Value native_finder = lib_new_importer(vm, NULL);
    if (val_is_null(native_finder) || list_insert(vm, meta, 1, native_finder) < 0) goto fail;
    if (val_is_null(call_bootstrap(vm, "_install_external_importers", 0, NULL))) goto fail;
    vm->lib[VM_LIB_source_file_loader] = dict_get_c(vm, as_module(ext)->dict, "SourceFileLoader");
    vm_pop_root(vm);
    return 0;
fail:
    vm->lib[VM_LIB_importlib] = vm->lib[VM_LIB_importlib_ext] = val_null();
    vm_pop_root(vm);
    return -1;
}

static int ensure_bootstrapped(VM *vm) {
    if (!val_is_null(vm->lib[VM_LIB_importlib])) return 0;
    if (vm->lib[VM_LIB_bootstrapping].tag == VAL_BOOL) {
        vm_raise(vm, vm->e_ImportError, "import during importlib's bootstrap");
        return -1;
    }
    vm->lib[VM_LIB_bootstrapping] = val_bool(true);
    int rc = bootstrap(vm);
    vm->lib[VM_LIB_bootstrapping] = val_null();
    return rc;
}

/* ---- loading ----------------------------------------------------------------------------------- */

/* SourceFileLoader.exec_module through the C cache: get_code + exec in the module's dict */
static int exec_source_module(VM *vm, Value loader, Value module) {
    Value path = vm_getattr_c(vm, loader, "path");
    if (val_is_null(path)) return -1;
    if (!val_is_str(vm, path)) {
        vm_raise(vm, vm->e_TypeError, "loader path must be str");
        return -1;
    }
    vm_push_root(vm, path);
    CodeObj *co = pycache_get_code(vm, AS_STR(path)->data, NULL, 0, NULL);
    vm_pop_root(vm);
    if (!co) return -1;
    gc_make_permanent(vm, &co->hdr);   /* a module's code lives as long as its functions (vm/gc.c) */
    vm_push_root(vm, val_obj(co));
    DictObj **d = obj_dict_slot(module.as.o);
    Value r = d && *d ? vm_run_code(vm, co, *d, *d) : vm_raise(vm, vm->e_TypeError, "module has no __dict__");
    vm_pop_root(vm);
    return val_is_null(r) ? -1 : 0;
}

/* _bootstrap._load_unlocked(spec), with a C exec for SourceFileLoader */
static Value load_unlocked(VM *vm, Value spec) {
    Value loader = vm_getattr_c(vm, spec, "loader");
    if (val_is_null(loader)) return loader;
    bool fast = !val_is_none(loader) && val_identical(val_obj(vm_type_of(vm, loader)), vm->lib[VM_LIB_source_file_loader]);
    if (!fast) return call_bootstrap(vm, "_load_unlocked", 1, &spec);
    vm_push_root(vm, loader);
    Value module = call_bootstrap(vm, "module_from_spec", 1, &spec);
    if (val_is_null(module)) {
        vm_pop_root(vm);
        return module;
    }
    vm_push_root(vm, module);
    StrObj *initializing = vm_intern_str(vm, "_initializing");
    Value name = vm_getattr_c(vm, spec, "name");
    if (val_is_null(name) || vm_setattr(vm, spec, initializing, val_bool(true)) < 0) goto fail;
    vm_push_root(vm, name);
    if (dict_set(vm, vm->modules, name, module) < 0) goto fail1;
    if (exec_source_module(vm, loader, module) < 0) {
        Value e = vm_fetch_exc(vm);
        vm_push_root(vm, e);
        if (dict_del(vm, vm->modules, name, NULL) < 0) vm_clear_exc(vm);
        vm->exc = e;
        vm_pop_root(vm);
        goto fail1;
    }
    /* the module may have replaced itself in sys.modules; it moves to the end */
    Value final;
    if (dict_del(vm, vm->modules, name, &final) <= 0) {
        if (!vm->exc.tag) vm_raise_key_error(vm, name);
        goto fail1;
    }
    vm_push_root(vm, final);
    int rc = dict_set(vm, vm->modules, name, final);
    vm_pop_root(vm);
    if (rc < 0) goto fail1;
    if (vm_setattr(vm, spec, initializing, val_bool(false)) < 0) goto fail1;
    vm_pop_roots(vm, 3);
    return final;
fail1:
    vm_pop_root(vm);
fail:
    {
        Value e = vm_fetch_exc(vm);
        vm_push_root(vm, e);
        if (vm_setattr(vm, spec, initializing, val_bool(false)) < 0) vm_clear_exc(vm);
        vm->exc = e;
        vm_pop_root(vm);
    }
    vm_pop_roots(vm, 2);
    return val_null();
}

static Value find_and_load(VM *vm, StrObj *name);

/* _bootstrap._find_and_load_unlocked(name, import_) */
static Value find_and_load_unlocked(VM *vm, StrObj *name) {
    const char *dot = strrchr(name->data, '.');
    Value path = val_none(), parent_spec = val_none(), parent_module = val_null();
    StrObj *parent = NULL, *child = NULL;
    if (dot) {
        parent = str_new(vm, name->data, dot - name->data);
        if (!parent) return val_null();
        vm_push_root(vm, val_obj(parent));
        child = str_new(vm, dot + 1, (int64_t)strlen(dot + 1));
        if (!child) goto fail0;
        vm_push_root(vm, val_obj(child));
        Value pm = dict_get_str(vm->modules, parent);
        if (val_is_null(pm) && val_is_null(find_and_load(vm, parent))) goto fail1;
        /* the parent's import may have imported us */
        Value m = dict_get_str(vm->modules, name);
        if (!val_is_null(m)) {
            vm_pop_roots(vm, 2);
            return m;
        }
        parent_module = dict_get_str(vm->modules, parent);
        if (val_is_null(parent_module)) {
            vm_raise_key_error(vm, val_obj(parent));
            goto fail1;
        }
        path = vm_getattr_opt(vm, parent_module, vm_intern_str(vm, "__path__"));
        if (val_is_null(path)) {
            if (vm->exc.tag) goto fail1;
            vm_raise_import_error(vm, vm->e_ModuleNotFoundError, name->data, NULL,
                                  "No module named '%s'; '%s' is not a package", name->data, parent->data);
            goto fail1;
        }
        vm_push_root(vm, path);
        parent_spec = vm_getattr_opt(vm, parent_module, vm_intern_str(vm, "__spec__"));
        if (val_is_null(parent_spec)) {
            vm_clear_exc(vm);
            parent_spec = val_none();
        }
        vm_pop_root(vm);
    }
    vm_push_root(vm, path);
    vm_push_root(vm, parent_spec);
    Value spec = call_bootstrap(vm, "_find_spec", 2, (Value[]){val_obj(name), path});
    if (val_is_null(spec)) goto fail;
    if (val_is_none(spec)) {
        vm_raise_import_error(vm, vm->e_ModuleNotFoundError, name->data, NULL, "No module named '%s'", name->data);
        /* a CPython C extension in lib-dynload (not on Ember's sys.path) gets named */
        import_note_extension(vm, name->data);
        goto fail;
    }
    vm_push_root(vm, spec);
    /* circular-import tracking: the child is among the parent's uninitialized submodules */
    Value pending = val_null();
    if (!val_is_none(parent_spec)) {
        pending = vm_getattr_opt(vm, parent_spec, vm_intern_str(vm, "_uninitialized_submodules"));
        if (val_is_type(vm, pending, vm->t_list) && list_append(vm, AS_LIST(pending), val_obj(child)) < 0) goto fail2;
        if (val_is_null(pending)) vm_clear_exc(vm);
    }
    vm_push_root(vm, pending);
    Value module = load_unlocked(vm, spec);
    if (val_is_type(vm, pending, vm->t_list) && AS_LIST(pending)->len) AS_LIST(pending)->len--;
    vm_pop_root(vm);
    if (val_is_null(module)) goto fail2;
    vm_push_root(vm, module);
    if (parent) {
        Value pm = dict_get_str(vm->modules, parent);
        if (!val_is_null(pm) && vm_setattr(vm, pm, child, module) < 0) {
            if (!vm_exc_matches(vm, vm->e_AttributeError)) goto fail3;
            vm_clear_exc(vm);
        }
    }
    vm_pop_roots(vm, 4 + (parent ? 2 : 0));
    return module;
fail3:
    vm_pop_root(vm);
fail2:
    vm_pop_root(vm);
fail:
    vm_pop_roots(vm, 2);
    if (!parent) return val_null();
fail1:
    vm_pop_root(vm);
fail0:
    vm_pop_root(vm);
    return val_null();
}

/* _bootstrap._find_and_load(name, import_): Ember runs one interpreter thread, so the module
 * locks have nothing to order. */
static Value find_and_load(VM *vm, StrObj *name) {
    Value m = dict_get_str(vm->modules, name);
    if (val_is_null(m)) {
        if (ensure_bootstrapped(vm) < 0) return val_null();
        return find_and_load_unlocked(vm, name);
    }
    if (val_is_none(m))
        return vm_raise_import_error(vm, vm->e_ModuleNotFoundError, name->data, NULL,
                                     "import of %s halted; None in sys.modules", name->data);
    return m;
}

/* ---- the import statement ------------------------------------------------------------------- */

/* CPython's remove_importlib_frames: importlib's own frames leave the traceback of an
 * ImportError entirely, and of other errors where they lead to _call_with_frames_removed. */
static void remove_importlib_frames(VM *vm) {
    Value e = vm->exc;
    if (!val_is_obj(e) || !(e.as.o->type->flags & TYPEF_EXCEPTION)) return;
    bool always = vm_isinstance_type(vm, e, vm->e_ImportError);
    ExceptionObj *ex = (ExceptionObj *)e.as.o;
    Value *prev_link = &ex->traceback, *outer_link = prev_link;
    bool in_importlib = false;
    for (Value tb = ex->traceback; val_is_obj(tb);) {
        TracebackObj *t = (TracebackObj *)tb.as.o;
        Value next = t->next;
        const char *fn = t->code->filename->data;
        bool now = strcmp(fn, "<frozen importlib._bootstrap>") == 0 ||
                   strcmp(fn, "<frozen importlib._bootstrap_external>") == 0;
        if (now && !in_importlib) outer_link = prev_link;
        in_importlib = now;
        if (in_importlib && (always || strcmp(t->code->name->data, "_call_with_frames_removed") == 0)) {
            *outer_link = next;
            prev_link = outer_link;
        } else {
            prev_link = &t->next;
        }
        tb = next;
    }
}

/* resolve_name() of CPython's import.c: the absolute name of a relative import */
static StrObj *resolve_name(VM *vm, StrObj *name, DictObj *globals, int64_t level) {
    if (!globals) {
        vm_raise(vm, vm->e_KeyError, "'__name__' not in globals");
        return NULL;
    }
    Value package = dict_get_c(vm, globals, "__package__");
    Value spec = dict_get_c(vm, globals, "__spec__");
    const char *pkg;
    int64_t plen;
    Value holder = val_null();
    if (!val_is_null(package) && !val_is_none(package)) {
        if (!val_is_str(vm, package)) {
            vm_raise(vm, vm->e_TypeError, "package must be a string");
            return NULL;
        }
    } else if (!val_is_null(spec) && !val_is_none(spec)) {
        package = vm_getattr_c(vm, spec, "parent");
        if (val_is_null(package)) return NULL;
        if (!val_is_str(vm, package)) {
            vm_raise(vm, vm->e_TypeError, "__spec__.parent must be a string");
            return NULL;
        }
    } else {
        Value n = dict_get_c(vm, globals, "__name__");
        if (val_is_null(n)) {
            vm_raise(vm, vm->e_KeyError, "'__name__' not in globals");
            return NULL;
        }
        if (!val_is_str(vm, n)) {
            vm_raise(vm, vm->e_TypeError, "__name__ must be a string");
            return NULL;
        }
        package = n;
        if (val_is_null(dict_get_c(vm, globals, "__path__"))) {
            const char *d = strrchr(AS_STR(n)->data, '.');
            StrObj *p = str_new(vm, AS_STR(n)->data, d ? d - AS_STR(n)->data : 0);
            if (!p) return NULL;
            package = holder = val_obj(p);
        }
    }
    (void)holder;
    pkg = AS_STR(package)->data;
    plen = AS_STR(package)->len;
    if (plen == 0) {
        vm_raise_import_error(vm, vm->e_ImportError, NULL, NULL, "attempted relative import with no known parent package");
        return NULL;
    }
    int64_t last = plen;
    for (int64_t up = 1; up < level; up++) {
        int64_t i = last - 1;
        while (i >= 0 && pkg[i] != '.') i--;
        if (i < 0) {
            vm_raise_import_error(vm, vm->e_ImportError, NULL, NULL, "attempted relative import beyond top-level package");
            return NULL;
        }
        last = i;
    }
    if (name->len == 0) return str_new(vm, pkg, last);
    StrBuf b;
    sb_init(&b);
    sb_add(&b, pkg, last);
    sb_addc(&b, '.');
    sb_add_str(&b, name);
    return sb_finish(vm, &b);
}

/* PyImport_ImportModuleLevelObject */
static Value import_level(VM *vm, StrObj *name, DictObj *globals, Value fromlist, int64_t level) {
    if (level < 0) return vm_raise(vm, vm->e_ValueError, "level must be >= 0");
    StrObj *abs_name = name;
    if (level > 0) {
        abs_name = resolve_name(vm, name, globals, level);
        if (!abs_name) return val_null();
    } else if (name->len == 0) {
        return vm_raise(vm, vm->e_ValueError, "Empty module name");
    }
    vm_push_root(vm, val_obj(abs_name));
    Value mod = dict_get_str(vm->modules, abs_name);
    if (val_is_null(mod) || val_is_none(mod)) mod = find_and_load(vm, abs_name);
    if (val_is_null(mod)) {
        remove_importlib_frames(vm);
        vm_pop_root(vm);
        return mod;
    }
    vm_push_root(vm, mod);
    int has_from = 0;
    if (!val_is_null(fromlist) && !val_is_none(fromlist)) {
        has_from = vm_truthy(vm, fromlist);
        if (has_from < 0) goto fail;
    }
    Value final = mod;
    if (!has_from) {
        const char *dot = memchr(name->data, '.', (size_t)name->len);
        if ((level == 0 || name->len > 0) && dot) {
            if (level == 0) {
                StrObj *front = str_new(vm, name->data, dot - name->data);
                if (!front) goto fail;
                final = import_level(vm, front, NULL, val_null(), 0);
            } else {
                int64_t cut_off = name->len - (dot - name->data);
                StrObj *to_return = str_new(vm, abs_name->data, abs_name->len - cut_off);
                if (!to_return) goto fail;
                final = dict_get_str(vm->modules, to_return);
                if (val_is_null(final)) {
                    Value r = vm_repr(vm, val_obj(to_return));
                    if (!val_is_null(r)) vm_raise(vm, vm->e_KeyError, "%s not in sys.modules as expected", AS_STR(r)->data);
                }
            }
        }
    } else if (val_is_type(vm, mod, vm->t_module) && !val_is_null(dict_get_c(vm, as_module(mod)->dict, "__path__"))) {
        Value import_ = dict_get_c(vm, vm->builtins, "__import__");
        final = call_bootstrap(vm, "_handle_fromlist", 3, (Value[]){mod, fromlist, import_});
    } else if (!val_is_type(vm, mod, vm->t_module)) {
        Value p = vm_getattr_opt(vm, mod, vm_intern_str(vm, "__path__"));
        if (!val_is_null(p)) {
            vm_push_root(vm, p);
            Value import_ = dict_get_c(vm, vm->builtins, "__import__");
            final = call_bootstrap(vm, "_handle_fromlist", 3, (Value[]){mod, fromlist, import_});
            vm_pop_root(vm);
        } else if (vm->exc.tag) {
            goto fail;
        }
    }
    if (val_is_null(final)) remove_importlib_frames(vm);
    vm_pop_roots(vm, 2);
    return final;
fail:
    vm_pop_roots(vm, 2);
    return val_null();
}

Value vm_import_level(VM *vm, StrObj *name, DictObj *globals, Value fromlist, int64_t level) {
    return import_level(vm, name, globals, fromlist, level);
}

/* IMPORT_NAME: builtins.__import__ when a script replaced it, else the C import */
Value vm_import_name(VM *vm, StrObj *name, Value fromlist, Value level, DictObj *globals) {
    int64_t lv = val_is_intlike(level) ? val_as_intlike(level) : 0;
    Value imp = dict_get_c(vm, vm->builtins, "__import__");
    if (val_is_null(imp)) return vm_raise(vm, vm->e_ImportError, "__import__ not found");
    if (!val_identical(imp, vm->lib[VM_LIB_import_func])) {
        Value args[5] = {val_obj(name), globals ? val_obj(globals) : val_none(), val_none(),
                         val_is_null(fromlist) ? val_none() : fromlist, val_int(lv)};
        return vm_call(vm, imp, 5, args, NULL);
    }
    return import_level(vm, name, globals, val_is_null(fromlist) ? val_none() : fromlist, lv);
}

/* IMPORT_FROM (ceval.c's import_from): the attribute, else the submodule in sys.modules */
Value vm_import_from(VM *vm, Value module, StrObj *name) {
    Value v = vm_getattr_opt(vm, module, name);
    if (!val_is_null(v) || vm->exc.tag) {
        if (val_is_null(v) && !vm_exc_matches(vm, vm->e_AttributeError)) return v;
        if (!val_is_null(v)) return v;
        vm_clear_exc(vm);
    }
    Value pkgname = vm_getattr_opt(vm, module, vm_intern_str(vm, "__name__"));
    if (val_is_null(pkgname)) vm_clear_exc(vm);
    if (val_is_str(vm, pkgname)) {
        StrObj *full = str_printf(vm, "%s.%s", AS_STR(pkgname)->data, name->data);
        if (!full) return val_null();
        Value m = dict_get_str(vm->modules, full);
        if (!val_is_null(m)) return m;
    }
    vm_push_root(vm, pkgname);
    const char *pn = val_is_str(vm, pkgname) ? AS_STR(pkgname)->data : "<unknown module name>";
    Value file = val_is_type(vm, module, vm->t_module) ? dict_get_c(vm, as_module(module)->dict, "__file__") : val_null();
    Value spec = val_is_type(vm, module, vm->t_module) ? dict_get_c(vm, as_module(module)->dict, "__spec__") : val_null();
    bool initializing = false;
    if (!val_is_null(spec) && !val_is_none(spec)) {
        Value ini = vm_getattr_opt(vm, spec, vm_intern_str(vm, "_initializing"));
        if (val_is_null(ini)) vm_clear_exc(vm);
        else initializing = vm_truthy(vm, ini) > 0;
        vm_clear_exc(vm);
    }
    Value r;
    const char *fpath = val_is_str(vm, file) ? AS_STR(file)->data : NULL;
    if (initializing)
        r = vm_raise_import_error(vm, vm->e_ImportError, pn, fpath,
                                  "cannot import name '%s' from partially initialized module '%s' "
                                  "(most likely due to a circular import) (%s)",
                                  name->data, pn, fpath ? fpath : "unknown location");
    else
        r = vm_raise_import_error(vm, vm->e_ImportError, pn, fpath, "cannot import name '%s' from '%s' (%s)", name->data,
                                  pn, fpath ? fpath : "unknown location");
    vm_pop_root(vm);
    return r;
}

/* from m import *: __all__ (each name must be a str), else the public names of __dict__ */
int vm_import_star(VM *vm, Value module, DictObj *into) {
    Value all = vm_getattr_opt(vm, module, vm_intern_str(vm, "__all__"));
    bool skip_private = false;
    if (val_is_null(all)) {
        if (vm->exc.tag) return -1;
        DictObj **d = val_is_obj(module) ? obj_dict_slot(module.as.o) : NULL;
        if (!d || !*d) {
            vm_raise(vm, vm->e_ImportError, "from-import-* object has no __dict__ and no __all__");
            return -1;
        }
        skip_private = true;
        ListObj *keys = list_new(vm, 0);
        if (!keys) return -1;
        int64_t pos = 0;
        Value k, v;
        vm_push_root(vm, val_obj(keys));
        while (dict_next(*d, &pos, &k, &v))
            if (list_append(vm, keys, k) < 0) {
                vm_pop_root(vm);
                return -1;
            }
        vm_pop_root(vm);
        all = val_obj(keys);
    }
    vm_push_root(vm, all);
    Value holder = val_null();
    int64_t n;
    Value *names = vm_sequence_items(vm, all, &n, &holder);
    if (!names) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, holder);
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        Value nm = names[i];
        if (!val_is_str(vm, nm) && !vm_isinstance_type(vm, nm, vm->t_str)) {
            vm_raise(vm, vm->e_TypeError, "%s in %s.%s must be str, not %s", skip_private ? "Key" : "Item",
                     val_is_type(vm, module, vm->t_module) ? as_module(module)->name->data : "module",
                     skip_private ? "__dict__" : "__all__", vm_type_name(vm, nm));
            rc = -1;
            break;
        }
        if (skip_private && AS_STR(nm)->data[0] == '_') continue;
        Value v = vm_getattr(vm, module, AS_STR(nm));
        if (val_is_null(v) || dict_set(vm, into, nm, v) < 0) rc = -1;
    }
    vm_pop_roots(vm, 2);
    return rc;
}

/* PyImport_ImportModule: the leaf module of a dotted name */
Value vm_import_module(VM *vm, const char *dotted) {
    StrObj *name = str_from_c(vm, dotted);
    if (!name) return val_null();
    vm_push_root(vm, val_obj(name));
    Value m = dict_get_str(vm->modules, name);
    if (val_is_null(m) || val_is_none(m)) m = import_level(vm, name, NULL, val_none(), 0);
    if (!val_is_null(m) && strchr(dotted, '.')) m = dict_get_str(vm->modules, name);
    if (val_is_null(m) && !vm->exc.tag) vm_raise_key_error(vm, val_obj(name));
    vm_pop_root(vm);
    return m;
}

/* ---- the main module ---------------------------------------------------------------------------- */

Value vm_exec_module_source(VM *vm, const char *name, const char *src, size_t len, const char *filename,
                            uint32_t code_flags) {
    if (!vm->compile) return vm_raise(vm, vm->e_ImportError, "no compiler installed to import %s", name);
    Value mod = module_new(vm, name);
    if (val_is_null(mod)) return mod;
    vm_push_root(vm, mod);
    ModuleObj *m = as_module(mod);
    StrObj *fn = str_from_c(vm, filename);
    Value bm = dict_get_c(vm, vm->modules, "builtins");
    /* __main__ as CPython makes it for a script: no spec, no package, builtins the module */
    if (!fn || dict_set_c(vm, m->dict, "__file__", val_obj(fn)) < 0 ||
        dict_set_c(vm, m->dict, "__builtins__", val_is_null(bm) ? val_obj(vm->builtins) : bm) < 0 ||
        dict_set_c(vm, m->dict, "__spec__", val_none()) < 0 || dict_set_c(vm, m->dict, "__package__", val_none()) < 0 ||
        dict_set_c(vm, m->dict, "__loader__", val_none()) < 0 ||
        dict_set_str(vm, vm->modules, m->name, mod) < 0)
        goto fail;
    exc_register_source(filename, src, len);
    CodeObj *co = vm->compile(vm, src, len, filename, code_flags);
    if (!co) goto fail_registered;
    vm_push_root(vm, val_obj(co));
    Value r = vm_run_code(vm, co, m->dict, m->dict);
    vm_pop_root(vm);
    if (val_is_null(r)) goto fail_registered;
    vm_pop_root(vm);
    Value final = dict_get_str(vm->modules, m->name);
    return val_is_null(final) ? mod : final;
fail_registered:;
    /* __main__ stays in sys.modules after an error, as in CPython */
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- the module type -------------------------------------------------------------------------------- */

/* module(name, doc=None) */
static Value module_init(ARGS) {
    static const char *const names[] = {"self", "name", "doc"};
    Value a[3];
    if (native_parse_args(vm, "module", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (!val_is_str(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "module.__init__() argument 'name' must be str, not %s",
                        vm_type_name(vm, a[1]));
    ModuleObj *m = as_module(argv[0]);
    StrObj *n = str_intern(vm, AS_STR(a[1]));
    if (!n) return val_null();
    m->name = n;
    DictObj *d = m->dict;
    if (dict_set_c(vm, d, "__name__", val_obj(n)) < 0 ||
        dict_set_c(vm, d, "__doc__", val_is_null(a[2]) ? val_none() : a[2]) < 0 ||
        dict_set_c(vm, d, "__package__", val_none()) < 0 || dict_set_c(vm, d, "__loader__", val_none()) < 0 ||
        dict_set_c(vm, d, "__spec__", val_none()) < 0)
        return val_null();
    return val_none();
}

static Value module_alloc(VM *vm, TypeObj *t) {
    ModuleObj *m = gc_alloc(vm, t, t->instance_size);
    if (!m) return val_null();
    vm_push_root(vm, val_obj(m));
    m->dict = dict_new(vm);
    m->name = vm_intern_str(vm, "?");
    vm_pop_root(vm);
    return m->dict && m->name ? val_obj(m) : val_null();
}

/* repr through importlib's _module_repr once it is loaded, as CPython's module_repr does */
static Value module_repr(ARGS) {
    if (!val_is_null(vm->lib[VM_LIB_importlib])) {
        Value f = importlib_attr(vm, "_module_repr");
        if (!val_is_null(f)) return vm_call1(vm, f, argv[0]);
    }
    DictObj *d = as_module(argv[0])->dict;
    Value name = dict_get_c(vm, d, "__name__"), file = dict_get_c(vm, d, "__file__");
    Value rn = vm_repr(vm, val_is_null(name) ? vm_intern(vm, "?") : name);
    if (val_is_null(rn)) return rn;
    vm_push_root(vm, rn);
    StrObj *s;
    if (!val_is_null(file)) {
        Value rf = vm_repr(vm, file);
        s = val_is_null(rf) ? NULL : str_printf(vm, "<module %s from %s>", AS_STR(rn)->data, AS_STR(rf)->data);
    } else {
        bool builtin = val_is_str(vm, name) && import_find_native(vm, AS_STR(name)->data);
        s = str_printf(vm, builtin ? "<module %s (built-in)>" : "<module %s>", AS_STR(rn)->data);
    }
    vm_pop_root(vm);
    return s ? val_obj(s) : val_null();
}

/* ---- set-up -------------------------------------------------------------------------------------- */


void import_init(VM *vm) {
    vm->t_module->trace = module_trace;   /* defined next to module_new in native.c */
    vm->modules = dict_new(vm);
    vm->path = list_new(vm, 0);
    vm->t_module->dict_offset = offsetof(ModuleObj, dict);
    DictObj *cache = dict_new(vm);
    EM_ASSERT(vm->modules && vm->path && cache, "out of memory creating the import system");
    vm->lib[VM_LIB_native_cache] = val_obj(cache);
}

/* After sys and the builtins exist: sys.path's library entries, the importer type, and
 * which __import__ is the original. */
void import_init_paths(VM *vm) {
    /* an installed Ember's library is a directory of files (src/common/install.h), found by
     * the ordinary FileFinder and cached like any source; a build tree's is the embedded copy */
    const char *installed = install_library_dir();
    StrObj *lib = str_from_c(vm, installed ? installed : EMBER_LIB);
    EM_ASSERT(lib && list_append(vm, vm->path, val_obj(lib)) == 0, "out of memory");
    StrObj *std = str_from_c(vm, EMBER_CPYTHON_STDLIB);
    EM_ASSERT(std && list_append(vm, vm->path, val_obj(std)) == 0, "out of memory");
    EM_ASSERT(init_lib_importer(vm) == 0, "out of memory");
    vm->lib[VM_LIB_import_func] = dict_get_c(vm, vm->builtins, "__import__");
    static const MethodDef mm[] = {{"__init__", module_init, NATIVEF_METHOD},
                                   {"__repr__", module_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    EM_ASSERT(type_add_methods(vm, vm->t_module, mm) == 0, "out of memory");
    vm->t_module->alloc = module_alloc;
    vm->t_module->flags |= TYPEF_BASETYPE;
    DictObj *cache = AS_DICT(vm->lib[VM_LIB_native_cache]);
    EM_ASSERT(dict_set_c(vm, cache, "sys", dict_get_c(vm, vm->modules, "sys")) == 0 &&
                  dict_set_c(vm, cache, "builtins", dict_get_c(vm, vm->modules, "builtins")) == 0,
              "out of memory");
}

/* A module that was not found: when CPython has it as a C extension in lib-dynload, say so. */
void import_note_extension(VM *vm, const char *name) {
    if (strchr(name, '.')) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/lib-dynload/%s.cpython-311-x86_64-linux-gnu.so", EMBER_CPYTHON_STDLIB, name);
    struct stat st;
    if (stat(path, &st) != 0) return;
    Value e = vm_fetch_exc(vm);
    vm_push_root(vm, e);
    vm_raise_import_error(vm, vm->e_ModuleNotFoundError, name, path,
                          "No module named '%s' (CPython implements it as the C extension %s, which Ember "
                          "cannot load)",
                          name, path);
    vm_pop_root(vm);
}
