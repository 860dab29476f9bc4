/* src/embed/embed.c — the embedding API of include/ember/ember.h, and the wiring of a VM with
 * the layers that sit outside vm/ (the compiler from src/frontend, the torch package from src/torch,
 * ctypes and custom ops from src/ffi).
 * This is the top layer: it may include every other one. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ember/ember.h"
#include "src/dist/errfile.h"
#include "src/dist/register.h"
#include "src/ffi/register.h"
#include "src/frontend/compile.h"
#include "src/runtime/register.h"
#include "src/torch/torch.h"
#include "src/tracer/tracer_api.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/mod_io.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- compiler hook ------------------------------------------------------------------------- */

static CodeObj *compile_hook(VM *vm, const char *src, size_t len, const char *filename, uint32_t flags) {
    char *diag = NULL;
    CodeObj *co = comp_compile_module(vm, src, len, filename, flags, &diag);
    if (!co && diag && val_is_obj(vm->exc)) {
        /* keep Ember's formatted diagnostic on the exception for the CLI */
        StrObj *d = str_from_c(vm, diag);
        if (d) {
            Value e = vm->exc;
            vm->exc = val_null();
            vm_push_root(vm, e);
            vm_push_root(vm, val_obj(d));
            if (vm_setattr(vm, e, vm_intern_str(vm, "_ember_diag"), val_obj(d)) < 0) vm_clear_exc(vm);
            vm_pop_roots(vm, 2);
            vm->exc = e;
        }
    }
    free(diag);
    return co;
}

EmVM *em_vm_new(void) {
    VM *vm = vm_new();
    vm->compile = compile_hook;
    comp_register_builtins(vm);
    torch_register(vm);
    tracer_register(vm);
    ffi_register(vm);
    dist_register(vm);
    rt_register(vm);
    if (import_publish_builtin_names(vm) < 0) vm->exc = val_null(); /* out of memory: left unset */
    return vm;
}

/* Interpreter shutdown: the atexit handlers run if the script imported atexit (weakref.finalize
 * does); an exception pending from the script is kept for the caller. */
static void run_atexit(VM *vm) {
    Value mod = dict_get_c(vm, vm->modules, "atexit");
    if (!val_is_type(vm, mod, vm->t_module)) return;
    Value saved = vm->exc;
    vm->exc = val_null();
    vm_push_root(vm, saved);
    Value fn = vm_getattr_opt(vm, mod, vm_intern_str(vm, "_run_exitfuncs"));
    if (!val_is_null(fn) && val_is_null(vm_call0(vm, fn))) {
        Value e = vm_fetch_exc(vm);
        vm_print_exception(vm, e, vm->err);
    }
    vm->exc = saved;
    vm_pop_root(vm);
    fflush(vm->out);
}

static void free_registrations(VM *vm);

void em_vm_free(EmVM *vm) {
    if (vm) {
        run_atexit(vm);
        gc_finalize_all(vm);   /* __del__ of what is still alive, before the streams close */
        io_shutdown(vm);
    }
    vm_free(vm);
    free_registrations(vm);
    exc_free_sources();
}

void em_set_argv(EmVM *vm, int argc, char **argv) {
    vm->argv->len = 0;
    for (int i = 0; i < argc; i++) {
        StrObj *s = str_from_c(vm, argv[i]);
        if (!s || list_append(vm, vm->argv, val_obj(s)) < 0) return;
    }
}

/* ---- running ------------------------------------------------------------------------------- */

static int run_main(VM *vm, const char *src, size_t len, const char *filename) {
    Value mod = vm_exec_module_source(vm, "__main__", src, len, filename, 0);
    if (val_is_null(mod)) return -1;
    vm->main_module = mod;
    return 0;
}

int em_run_string(EmVM *vm, const char *source, const char *filename) {
    /* repeated runs share the __main__ namespace, as successive commands would */
    Value existing = dict_get_c(vm, vm->modules, "__main__");
    if (val_is_type(vm, existing, vm->t_module)) {
        CodeObj *co = vm->compile(vm, source, strlen(source), filename, 0);
        if (!co) return -1;
        exc_register_source(filename, source, strlen(source));
        vm_push_root(vm, val_obj(co));
        DictObj *g = ((ModuleObj *)existing.as.o)->dict;
        Value r = vm_run_code(vm, co, g, g);
        vm_pop_root(vm);
        return val_is_null(r) ? -1 : 0;
    }
    if (vm->path->len == 0) {
        StrObj *cwd = str_from_c(vm, "");
        if (!cwd || list_append(vm, vm->path, val_obj(cwd)) < 0) return -1;
    }
    return run_main(vm, source, strlen(source), filename);
}

static int run_file_as_main(VM *vm, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        vm_raise(vm, vm->e_FileNotFoundError, "[Errno 2] No such file or directory: '%s'", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc(n > 0 ? (size_t)n + 1 : 1);
    size_t got = n > 0 ? fread(src, 1, (size_t)n, f) : 0;
    fclose(f);
    src[got] = 0;
    int rc = run_main(vm, src, got, path);
    free(src);
    return rc;
}

void em_set_safe_path(EmVM *vm, int on) { ((VM *)vm)->safe_path = on != 0; }

int em_run_file(EmVM *vm, const char *path) {
    if (((VM *)vm)->safe_path) return run_file_as_main(vm, path);
    /* sys.path[0]: the script's directory, absolute with symlinks resolved, as CPython's */
    char *real = realpath(path, NULL);
    char *dup = strdup(real ? real : path);
    free(real);
    StrObj *dir = str_from_c(vm, dirname(dup));
    free(dup);
    if (!dir || list_insert(vm, vm->path, 0, val_obj(dir)) < 0) return -1;
    return run_file_as_main(vm, path);
}

/* python -m's fallback when the standard library's runpy is not there: the module's source
 * file on sys.path (or its parent package's __path__), a package running its __main__. */
static char *find_module_file(VM *vm, const char *name) {
    const char *dot = strrchr(name, '.');
    ListObj *dirs = vm->path;
    if (dot) {
        char parent[512];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - name), name);
        Value pkg = vm_import_module(vm, parent);
        if (val_is_null(pkg)) return NULL;
        Value path = vm_getattr_opt(vm, pkg, vm_intern_str(vm, "__path__"));
        if (!val_is_type(vm, path, vm->t_list)) {
            vm_raise(vm, vm->e_ImportError, "No module named %s", name);
            return NULL;
        }
        dirs = AS_LIST(path);
    }
    const char *leaf = dot ? dot + 1 : name;
    for (int64_t i = 0; i < dirs->len; i++) {
        if (!val_is_str(vm, dirs->items[i])) continue;
        const char *dir = AS_STR(dirs->items[i])->data;
        char file[4096], init[4096];
        snprintf(file, sizeof file, "%s%s%s.py", dir, *dir ? "/" : "", leaf);
        snprintf(init, sizeof init, "%s%s%s/__init__.py", dir, *dir ? "/" : "", leaf);
        if (access(file, R_OK) == 0) return strdup(file);
        if (access(init, R_OK) == 0) {
            char main_name[512];
            snprintf(main_name, sizeof main_name, "%s.__main__", name);
            if (val_is_null(vm_import_module(vm, name))) return NULL;   /* the package first, as runpy */
            snprintf(file, sizeof file, "%s%s%s/__main__.py", dir, *dir ? "/" : "", leaf);
            if (access(file, R_OK) == 0) return strdup(file);
            vm_raise(vm, vm->e_SystemExit, "ember: No module named %s; '%s' is a package and cannot be directly executed",
                     main_name, name);
            return NULL;
        }
    }
    vm_raise(vm, vm->e_SystemExit, "ember: No module named %s", name);
    return NULL;
}

int em_run_module(EmVM *vm, const char *name) {
    /* sys.path[0] is the current directory, as for -c (none under safe_path) */
    if (!((VM *)vm)->safe_path) {
        char cwd[4096];
        StrObj *dir = str_from_c(vm, getcwd(cwd, sizeof cwd) ? cwd : "");
        if (!dir || list_insert(vm, vm->path, 0, val_obj(dir)) < 0) return -1;
    }
    /* CPython's start-up makes an empty __main__ module; runpy runs the module in its dict */
    if (val_is_null(dict_get_c(vm, vm->modules, "__main__"))) {
        Value m = module_new(vm, "__main__");
        if (val_is_null(m) || dict_set_c(vm, vm->modules, "__main__", m) < 0) return -1;
        vm->main_module = m;
    }
    Value runpy = vm_import_module(vm, "runpy");
    if (!val_is_null(runpy)) {
        /* CPython's own: runpy._run_module_as_main(name) sets argv[0], __main__, __spec__ */
        vm_push_root(vm, runpy);
        Value fn = vm_getattr_opt(vm, runpy, vm_intern_str(vm, "_run_module_as_main"));
        StrObj *n = !val_is_null(fn) ? str_from_c(vm, name) : NULL;
        Value r = n ? vm_call1(vm, fn, val_obj(n)) : val_null();
        vm_pop_root(vm);
        if (val_is_null(r) && val_is_null(vm->exc))
            vm_raise(vm, vm->e_ImportError, "runpy has no _run_module_as_main");
        return val_is_null(r) ? -1 : 0;
    }
    vm_clear_exc(vm);
    char *file = find_module_file(vm, name);
    if (!file) return -1;
    StrObj *arg0 = str_from_c(vm, file);
    if (arg0 && vm->argv->len) vm->argv->items[0] = val_obj(arg0);
    else if (arg0 && list_append(vm, vm->argv, val_obj(arg0)) < 0) arg0 = NULL;
    int rc = arg0 ? run_file_as_main(vm, file) : -1;
    free(file);
    return rc;
}

int em_exit_status(EmVM *vm) {
    Value e = vm->exc;
    if (!val_is_obj(e) || !vm_isinstance_type(vm, e, vm->e_SystemExit)) return 1;
    TupleObj *args = ((ExceptionObj *)e.as.o)->args;
    if (args->len == 0 || val_is_none(args->items[0])) return 0;
    if (val_is_intlike(args->items[0])) return (int)val_as_intlike(args->items[0]);
    return 1;
}

/* A worker of torchrun's launcher leaves its traceback in its error file (src/dist/errfile.c). */
static void record_error_file(VM *vm, Value e) {
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    if (!m) return;
    vm_print_exception(vm, e, m);
    fclose(m);
    while (n && text[n - 1] == '\n') text[--n] = 0;
    char *last = strrchr(text, '\n');
    dist_error_file_write(last ? last + 1 : text, text);
    free(text);
}

void em_print_error(EmVM *vm) {
    fflush(vm->out);
    Value e = vm_fetch_exc(vm);
    if (val_is_null(e)) return;
    if (val_is_obj(e) && vm_isinstance_type(vm, e, vm->e_SystemExit)) {
        TupleObj *args = ((ExceptionObj *)e.as.o)->args;
        if (args->len && !val_is_none(args->items[0]) && !val_is_intlike(args->items[0])) {
            Value s = vm_str(vm, args->items[0]);
            if (!val_is_null(s)) fprintf(vm->err, "%s\n", AS_STR(s)->data);
            vm_clear_exc(vm);
        }
        return;
    }
    vm_push_root(vm, e);
    Value diag = val_is_obj(e) && vm_isinstance_type(vm, e, vm->e_SyntaxError)
                     ? vm_getattr_opt(vm, e, vm_intern_str(vm, "_ember_diag")) : val_null();
    vm_clear_exc(vm);
    /* a syntax error of the main script prints Ember's file:line:col diagnostic; one raised
     * while importing another module prints the traceback of the import too */
    bool top_level = val_is_obj(e) && val_is_none(((ExceptionObj *)e.as.o)->traceback);
    if (val_is_str(vm, diag) && top_level) fputs(AS_STR(diag)->data, vm->err);
    else vm_print_exception(vm, e, vm->err);
    if (getenv("TORCHELASTIC_ERROR_FILE")) record_error_file(vm, e);
    vm_pop_root(vm);
    fflush(vm->err);
}

char *em_error_message(EmVM *vm) {
    Value e = vm->exc;
    if (val_is_null(e)) return NULL;
    Value saved = vm_fetch_exc(vm);
    vm_push_root(vm, saved);
    Value s = vm_str(vm, e);
    char *r = NULL;
    const char *tn = vm_type_name(vm, e);
    if (val_is_null(s)) {
        vm_clear_exc(vm);
        r = strdup(tn);
    } else {
        size_t n = strlen(tn) + (size_t)AS_STR(s)->len + 3;
        r = malloc(n);
        snprintf(r, n, AS_STR(s)->len ? "%s: %s" : "%s%s", tn, AS_STR(s)->data);
    }
    vm_pop_root(vm);
    vm->exc = saved;
    return r;
}

void em_clear_error(EmVM *vm) { vm_clear_exc(vm); }

void em_raise(EmVM *vm, const char *exc_type, const char *message) {
    TypeObj *t = vm->e_RuntimeError;
    Value b = exc_type ? dict_get_c(vm, vm->builtins, exc_type) : val_null();
    if (val_is_obj(b) && vm_isinstance_type(vm, b, vm->t_type) && (AS_TYPE(b)->flags & TYPEF_EXCEPTION)) t = AS_TYPE(b);
    vm_raise(vm, t, "%s", message);
}

/* ---- values -------------------------------------------------------------------------------- */

static EmRef *ref(VM *vm, Value v) { return val_is_null(v) ? NULL : gc_root_new(vm, v); }

EmRef *em_none(EmVM *vm) { return ref(vm, val_none()); }
EmRef *em_int(EmVM *vm, int64_t v) { return ref(vm, val_int(v)); }
EmRef *em_float(EmVM *vm, double v) { return ref(vm, val_float(v)); }
EmRef *em_str(EmVM *vm, const char *s) {
    StrObj *o = str_from_c(vm, s);
    return o ? ref(vm, val_obj(o)) : NULL;
}

int em_to_int(EmVM *vm, EmRef *r, int64_t *out) { return vm_index(vm, r->v, out); }
int em_to_float(EmVM *vm, EmRef *r, double *out) { return vm_to_double(vm, r->v, out); }

const char *em_to_str(EmVM *vm, EmRef *r) {
    if (!val_is_str(vm, r->v)) {
        vm_raise(vm, vm->e_TypeError, "expected str, got %s", vm_type_name(vm, r->v));
        return NULL;
    }
    return AS_STR(r->v)->data;
}

EmRef *em_repr(EmVM *vm, EmRef *r) { return ref(vm, vm_repr(vm, r->v)); }
EmRef *em_retain(EmVM *vm, EmRef *r) { return ref(vm, r->v); }
void em_release(EmVM *vm, EmRef *r) { gc_root_free(vm, r); }

EmRef *em_get_global(EmVM *vm, const char *module, const char *name) {
    Value m = dict_get_c(vm, vm->modules, module);
    if (!val_is_type(vm, m, vm->t_module)) {
        vm_raise(vm, vm->e_ImportError, "module '%s' is not loaded", module);
        return NULL;
    }
    Value v = dict_get_c(vm, ((ModuleObj *)m.as.o)->dict, name);
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_NameError, "name '%s' is not defined", name);
        return NULL;
    }
    return ref(vm, v);
}

EmRef *em_getattr(EmVM *vm, EmRef *obj, const char *name) { return ref(vm, vm_getattr_c(vm, obj->v, name)); }

EmRef *em_call(EmVM *vm, EmRef *callable, int argc, EmRef **argv) {
    Value small[16];
    Value *args = argc <= 16 ? small : malloc(sizeof(Value) * (size_t)argc);
    for (int i = 0; i < argc; i++) args[i] = argv[i]->v;   /* rooted by the caller's refs */
    Value r = vm_call(vm, callable->v, argc, args, NULL);
    if (args != small) free(args);
    return ref(vm, r);
}

EmRef *em_import(EmVM *vm, const char *module) { return ref(vm, vm_import_module(vm, module)); }

/* ---- native functions ------------------------------------------------------------------------- */

/* A registered native function's C callback; boxes are freed with their VM (em_vm_free). */
typedef struct NativeBox {
    EmNativeFn fn;
    void *userdata;
    VM *vm;
    struct NativeBox *next;
} NativeBox;
static NativeBox *native_boxes;

static Value trampoline(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", fn->name);
    NativeBox *box = fn->data;
    EmRef *small[16];
    EmRef **refs = argc <= 16 ? small : malloc(sizeof(EmRef *) * (size_t)argc);
    for (int i = 0; i < argc; i++) refs[i] = gc_root_new(vm, argv[i]);
    EmRef *r = box->fn(vm, argc, refs, box->userdata);
    for (int i = 0; i < argc; i++) gc_root_free(vm, refs[i]);
    if (refs != small) free(refs);
    if (!r) {
        if (val_is_null(vm->exc)) vm_raise(vm, vm->e_SystemError, "%s() returned NULL without an exception", fn->name);
        return val_null();
    }
    Value v = r->v;
    gc_root_free(vm, r);
    return v;
}

static NativeObj *make_native(VM *vm, const char *name, EmNativeFn fn, void *userdata) {
    NativeBox *box = malloc(sizeof *box);
    if (!box) {
        vm_no_memory(vm);
        return NULL;
    }
    *box = (NativeBox){fn, userdata, vm, native_boxes};
    native_boxes = box;
    return native_new(vm, name, trampoline, box, 0);
}

int em_register_function(EmVM *vm, const char *name, EmNativeFn fn, void *userdata) {
    NativeObj *n = make_native(vm, name, fn, userdata);
    return n ? dict_set_c(vm, vm->builtins, name, val_obj(n)) : -1;
}

typedef struct ModuleReg {
    const char *name;
    const EmFunctionDef *fns;
    VM *vm;
    struct ModuleReg *next;
} ModuleReg;
static ModuleReg *module_regs;

static int embed_module_init(VM *vm, Value mod) {
    const char *name = ((ModuleObj *)mod.as.o)->name->data;
    for (ModuleReg *r = module_regs; r; r = r->next) {
        if (strcmp(r->name, name) != 0) continue;
        for (const EmFunctionDef *d = r->fns; d->name; d++) {
            NativeObj *n = make_native(vm, d->name, d->fn, d->userdata);
            if (!n || module_set(vm, mod, d->name, val_obj(n)) < 0) return -1;
        }
        return 0;
    }
    return 0;
}

int em_register_module(EmVM *vm, const char *name, const EmFunctionDef *fns) {
    ModuleReg *r = malloc(sizeof *r);
    if (!r) return -1;
    r->name = name;
    r->fns = fns;
    r->vm = vm;
    r->next = module_regs;
    module_regs = r;
    vm_register_native_module(vm, name, embed_module_init);
    if (import_publish_builtin_names(vm) < 0) vm->exc = val_null(); /* out of memory: left unset */
    return 0;
}

/* The native boxes and module registrations of a VM that was freed (only its pointer is compared). */
static void free_registrations(VM *vm) {
    for (NativeBox **p = &native_boxes; *p;) {
        NativeBox *b = *p;
        if (b->vm == vm) {
            *p = b->next;
            free(b);
        } else {
            p = &b->next;
        }
    }
    for (ModuleReg **p = &module_regs; *p;) {
        ModuleReg *r = *p;
        if (r->vm == vm) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}
