/* vm/import.c — the import system.  Modules are found, in order, in sys.modules, among the
 * registered native modules, among Ember's embedded library modules (script source compiled
 * with CO_LIBRARY so the tracer treats it as library code), and as .py files (or packages with
 * __init__.py) in the directories of sys.path. */
#include "vm/import.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/install.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

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

static ModuleObj *as_module(Value v) { return (ModuleObj *)v.as.o; }

/* Set a module's __package__ (and __path__ for a package) before its code runs, so relative
 * imports inside it resolve. */
static int set_package_attrs(VM *vm, ModuleObj *m, const char *filename, bool is_package) {
    const char *name = m->name->data;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", name);
    if (!is_package) {
        char *dot = strrchr(buf, '.');
        *(dot ? dot : buf) = 0;
    }
    StrObj *pkg = str_from_c(vm, buf);
    if (!pkg || dict_set_c(vm, m->dict, "__package__", val_obj(pkg)) < 0) return -1;
    if (!is_package) return 0;
    snprintf(buf, sizeof buf, "%s", filename);
    char *slash = strrchr(buf, '/');
    *(slash ? slash : buf) = 0;
    StrObj *dir = str_from_c(vm, buf);
    if (!dir) return -1;
    vm_push_root(vm, val_obj(dir));
    ListObj *path = list_from_array(vm, (Value[]){val_obj(dir)}, 1);
    vm_pop_root(vm);
    return path ? dict_set_c(vm, m->dict, "__path__", val_obj(path)) : -1;
}

static Value exec_module(VM *vm, const char *name, const char *src, size_t len, const char *filename,
                         uint32_t code_flags, int is_package);

Value vm_exec_module_source(VM *vm, const char *name, const char *src, size_t len,
                            const char *filename, uint32_t code_flags) {
    return exec_module(vm, name, src, len, filename, code_flags, -1);
}

/* is_package: 1 package, 0 plain module, -1 neither attribute is set (the main script) */
static Value exec_module(VM *vm, const char *name, const char *src, size_t len, const char *filename,
                         uint32_t code_flags, int is_package) {
    if (!vm->compile) return vm_raise(vm, vm->e_ImportError, "no compiler installed to import %s", name);
    Value mod = module_new(vm, name);
    if (val_is_null(mod)) return mod;
    vm_push_root(vm, mod);
    ModuleObj *m = as_module(mod);
    StrObj *fn = str_from_c(vm, filename);
    if (!fn || dict_set_c(vm, m->dict, "__file__", val_obj(fn)) < 0 ||
        dict_set_c(vm, m->dict, "__builtins__", val_obj(vm->builtins)) < 0 ||
        (is_package >= 0 && set_package_attrs(vm, m, filename, is_package) < 0) ||
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
    /* the module may have replaced itself in sys.modules */
    Value final = dict_get_str(vm->modules, m->name);
    return val_is_null(final) ? mod : final;
fail_registered:;
    Value saved = vm_fetch_exc(vm);
    vm_push_root(vm, saved);
    (void)dict_del_str(vm, vm->modules, m->name);
    vm->exc = saved;
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        fclose(f);
        return NULL;
    }
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = 0;
    *len = got;
    return buf;
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Find a module file for `dotted` under the directories of sys.path (or of the parent
 * package).  Returns a malloc'd path, or NULL. */
static char *find_file(VM *vm, const char *dotted, bool *is_pkg) {
    const char *last = strrchr(dotted, '.');
    const char *base = last ? last + 1 : dotted;
    char rel[1024];
    snprintf(rel, sizeof rel, "%s", dotted);
    for (char *p = rel; *p; p++)
        if (*p == '.') *p = '/';
    (void)base;
    for (int64_t i = 0; vm->path && i < vm->path->len; i++) {
        Value d = vm->path->items[i];
        if (!val_is_str(vm, d)) continue;
        const char *dir = AS_STR(d)->data;
        if (strcmp(dir, ".") == 0) dir = "";   /* name files as CPython does: "pkg/mod.py" */
        char path[2048];
        snprintf(path, sizeof path, "%s%s%s.py", dir, *dir ? "/" : "", rel);
        if (is_file(path)) {
            *is_pkg = false;
            return strdup(path);
        }
        snprintf(path, sizeof path, "%s%s%s/__init__.py", dir, *dir ? "/" : "", rel);
        if (is_file(path)) {
            *is_pkg = true;
            return strdup(path);
        }
    }
    return NULL;
}

/* Import exactly one module `dotted` whose parent (if any) is already imported. */
static Value import_one(VM *vm, const char *dotted) {
    StrObj *key = vm_intern_str(vm, dotted);
    if (!key) return val_null();
    Value m = dict_get_str(vm->modules, key);
    if (!val_is_null(m)) return m;
    for (NativeModuleDef *d = vm->native_modules; d; d = d->next) {
        if (strcmp(d->name, dotted) != 0) continue;
        Value mod = module_new(vm, dotted);
        if (val_is_null(mod)) return mod;
        vm_push_root(vm, mod);
        if (dict_set_str(vm, vm->modules, key, mod) < 0 || d->init(vm, mod) < 0) {
            Value e = vm_fetch_exc(vm);
            vm_push_root(vm, e);
            (void)dict_del_str(vm, vm->modules, key);
            vm->exc = e;
            vm_pop_roots(vm, 2);
            return val_null();
        }
        vm_pop_root(vm);
        return dict_get_str(vm->modules, key);
    }
    for (LibraryModule *lm = library_modules; lm; lm = lm->next) {
        if (strcmp(lm->name, dotted) != 0) continue;
        /* an installed ember runs its library from its library directory (src/common/install.h);
         * elsewhere the copy embedded at build time serves, named "<ember>/a/b.py" */
        const char *dir = install_library_dir();
        char filename[2048];
        int pre = snprintf(filename, sizeof filename, "%s/", dir ? dir : "<ember>");
        snprintf(filename + pre, sizeof filename - (size_t)pre, "%s%s", dotted, lm->is_package ? "/__init__.py" : ".py");
        for (size_t k = 0; dotted[k] && pre + (int)k < (int)sizeof filename; k++)   /* a.b -> a/b */
            if (dotted[k] == '.') filename[pre + (int)k] = '/';
        size_t len;
        char *src = dir ? read_file(filename, &len) : NULL;
        if (!src) {
            snprintf(filename, sizeof filename, "<ember>/%s%s", dotted, lm->is_package ? "/__init__.py" : ".py");
            for (size_t k = 0; dotted[k]; k++)
                if (dotted[k] == '.') filename[8 + k] = '/';
        }
        Value r = src ? exec_module(vm, dotted, src, len, filename, CO_LIBRARY, lm->is_package)
                      : exec_module(vm, dotted, lm->source, strlen(lm->source), filename, CO_LIBRARY, lm->is_package);
        free(src);
        return r;
    }
    bool is_pkg = false;
    char *path = find_file(vm, dotted, &is_pkg);
    if (path) {
        size_t len;
        char *src = read_file(path, &len);
        if (!src) {
            Value e = vm_raise(vm, vm->e_ImportError, "cannot read %s", path);
            free(path);
            return e;
        }
        Value r = exec_module(vm, dotted, src, len, path, 0, is_pkg);
        free(src);
        free(path);
        return r;
    }
    return vm_raise_import_error(vm, vm->e_ModuleNotFoundError, dotted, NULL, "No module named '%s'", dotted);
}

/* Import every prefix of dotted ("a", "a.b", "a.b.c"), binding each as an attribute of its
 * parent.  Returns the leaf. */
static Value import_dotted(VM *vm, const char *dotted) {
    char buf[1024];
    size_t n = strlen(dotted);
    if (n >= sizeof buf) return vm_raise(vm, vm->e_ImportError, "module name too long");
    Value parent = val_null(), m = val_null();
    for (size_t i = 0; i <= n; i++) {
        if (dotted[i] != '.' && dotted[i] != 0) continue;
        memcpy(buf, dotted, i);
        buf[i] = 0;
        if (!val_is_null(parent)) vm_push_root(vm, parent);
        m = import_one(vm, buf);
        if (!val_is_null(parent)) vm_pop_root(vm);
        if (val_is_null(m)) return m;   /* import_one names the module it could not find */
        if (!val_is_null(parent) && val_is_type(vm, parent, vm->t_module)) {
            const char *leaf = strrchr(buf, '.') + 1;
            ModuleObj *pm = as_module(parent);
            if (val_is_null(dict_get_c(vm, pm->dict, leaf))) {
                vm_push_root(vm, m);
                int rc = dict_set_c(vm, pm->dict, leaf, m);
                vm_pop_root(vm);
                if (rc < 0) return val_null();
            }
        }
        parent = m;
    }
    return m;
}

Value vm_import_module(VM *vm, const char *dotted) { return import_dotted(vm, dotted); }

static int resolve_relative(VM *vm, const char *name, int64_t level, DictObj *globals, char *out, size_t cap) {
    Value pkg = dict_get_c(vm, globals, "__package__");
    const char *base;
    char tmp[1024];
    if (val_is_str(vm, pkg) && AS_STR(pkg)->len) {
        base = AS_STR(pkg)->data;
    } else {
        Value modname = dict_get_c(vm, globals, "__name__");
        Value path = dict_get_c(vm, globals, "__path__");
        if (!val_is_str(vm, modname)) {
            vm_raise(vm, vm->e_ImportError, "attempted relative import with no known parent package");
            return -1;
        }
        snprintf(tmp, sizeof tmp, "%s", AS_STR(modname)->data);
        if (val_is_null(path)) {
            char *dot = strrchr(tmp, '.');
            if (!dot) {
                vm_raise(vm, vm->e_ImportError, "attempted relative import with no known parent package");
                return -1;
            }
            *dot = 0;
        }
        base = tmp;
    }
    char b[1024];
    snprintf(b, sizeof b, "%s", base);
    for (int64_t i = 1; i < level; i++) {
        char *dot = strrchr(b, '.');
        if (!dot) {
            vm_raise(vm, vm->e_ImportError, "attempted relative import beyond top-level package");
            return -1;
        }
        *dot = 0;
    }
    if (*name) snprintf(out, cap, "%s.%s", b, name);
    else snprintf(out, cap, "%s", b);
    return 0;
}

Value vm_import_name(VM *vm, StrObj *name, Value fromlist, Value level, DictObj *globals) {
    int64_t lv = val_is_intlike(level) ? val_as_intlike(level) : 0;
    char full[1024];
    if (lv > 0) {
        if (resolve_relative(vm, name->data, lv, globals, full, sizeof full) < 0) return val_null();
    } else {
        snprintf(full, sizeof full, "%s", name->data);
    }
    Value leaf = import_dotted(vm, full);
    if (val_is_null(leaf)) return leaf;
    bool has_from = !val_is_null(fromlist) && !val_is_none(fromlist) &&
                    !(val_is_type(vm, fromlist, vm->t_tuple) && AS_TUPLE(fromlist)->len == 0);
    if (has_from || lv > 0) return leaf;
    /* `import a.b.c` binds `a` */
    char top[1024];
    snprintf(top, sizeof top, "%s", full);
    char *dot = strchr(top, '.');
    if (!dot) return leaf;
    *dot = 0;
    Value t = dict_get_str(vm->modules, vm_intern_str(vm, top));
    return val_is_null(t) ? leaf : t;
}

Value vm_import_from(VM *vm, Value module, StrObj *name) {
    Value v = vm_getattr(vm, module, name);
    if (!val_is_null(v)) return v;
    if (!vm_exc_matches(vm, vm->e_AttributeError)) return v;
    vm_clear_exc(vm);
    if (val_is_type(vm, module, vm->t_module)) {
        ModuleObj *m = as_module(module);
        char sub[1024];
        snprintf(sub, sizeof sub, "%s.%s", m->name->data, name->data);
        Value r = import_dotted(vm, sub);
        if (!val_is_null(r)) return r;
        if (!vm_exc_matches(vm, vm->e_ModuleNotFoundError)) return r;
        vm_clear_exc(vm);
        Value file = dict_get_c(vm, m->dict, "__file__");
        if (val_is_str(vm, file))
            return vm_raise_import_error(vm, vm->e_ImportError, m->name->data, AS_STR(file)->data,
                                         "cannot import name '%s' from '%s' (%s)", name->data,
                                         m->name->data, AS_STR(file)->data);
        return vm_raise_import_error(vm, vm->e_ImportError, m->name->data, NULL,
                                     "cannot import name '%s' from '%s' (unknown location)", name->data,
                                     m->name->data);
    }
    return vm_raise(vm, vm->e_ImportError, "cannot import name '%s'", name->data);
}

int vm_import_star(VM *vm, Value module, DictObj *into) {
    if (!val_is_type(vm, module, vm->t_module)) {
        vm_raise(vm, vm->e_TypeError, "import * requires a module");
        return -1;
    }
    ModuleObj *m = as_module(module);
    Value all = dict_get_c(vm, m->dict, "__all__");
    if (!val_is_null(all)) {
        Value holder = val_null();
        int64_t n;
        Value *names = vm_sequence_items(vm, all, &n, &holder);
        if (!names) return -1;
        vm_push_root(vm, holder);
        for (int64_t i = 0; i < n; i++) {
            Value v = vm_getattr(vm, module, AS_STR(names[i]));
            if (val_is_null(v) || dict_set(vm, into, names[i], v) < 0) {
                vm_pop_root(vm);
                return -1;
            }
        }
        vm_pop_root(vm);
        return 0;
    }
    int64_t pos = 0;
    Value k, v;
    while (dict_next(m->dict, &pos, &k, &v)) {
        if (val_is_str(vm, k) && AS_STR(k)->data[0] == '_') continue;
        if (dict_set(vm, into, k, v) < 0) return -1;
    }
    return 0;
}

void import_init(VM *vm) {
    vm->t_module->trace = module_trace;   /* defined next to module_new in native.c */
    vm->modules = dict_new(vm);
    vm->path = list_new(vm, 0);
    vm->t_module->dict_offset = offsetof(ModuleObj, dict);
}
