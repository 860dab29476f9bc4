/* vm/mod_sys.c — the sys module: argv, path, modules, the stdout/stderr stream objects,
 * exit, recursion limit, exc_info, version information. */
#include <stdlib.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* The stream objects: a small type whose instances write to a C FILE. */
typedef struct StreamObj {
    Obj hdr;
    FILE *file;
    DictObj *dict;
} StreamObj;

static void stream_trace(VM *vm, Obj *o) { gc_mark(vm, ((StreamObj *)o)->dict); }

static Value stream_write(ARGS) {
    if (native_check_args(vm, "write", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "write() argument must be str, not %s", vm_type_name(vm, argv[1]));
    StrObj *s = AS_STR(argv[1]);
    StreamObj *st = (StreamObj *)argv[0].as.o;
    if (st->file == stderr) fflush(stdout);   /* keep stdout and stderr in order when merged */
    fwrite(s->data, 1, (size_t)s->len, st->file);
    if (st->file == stderr) fflush(stderr);
    return val_int(s->ncp);
}

static Value stream_flush(ARGS) {
    fflush(((StreamObj *)argv[0].as.o)->file);
    return val_none();
}

static Value stream_isatty(ARGS) { return val_bool(false); }

static Value make_stream(VM *vm, TypeObj *t, FILE *f) {
    StreamObj *s = gc_alloc(vm, t, sizeof(StreamObj));
    if (!s) return val_null();
    s->file = f;
    return val_obj(s);
}

static Value sys_exit(ARGS) {
    if (native_check_args(vm, "exit", argc, kw, 0, 1) < 0) return val_null();
    Value e = vm_new_exception(vm, vm->e_SystemExit, argc ? argv[0] : val_null());
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

static Value sys_getrecursionlimit(ARGS) { return val_int(vm->recursion_limit); }

static Value sys_setrecursionlimit(ARGS) {
    if (native_check_args(vm, "setrecursionlimit", argc, kw, 1, 1) < 0) return val_null();
    int64_t n;
    if (vm_index(vm, argv[0], &n) < 0) return val_null();
    if (n < 1) return vm_raise(vm, vm->e_ValueError, "recursion limit must be greater or equal than 1");
    if (n > vm->frame_pool_cap - 50) n = vm->frame_pool_cap - 50;
    vm->recursion_limit = (int32_t)n;
    return val_none();
}

static Value sys_exc_info(ARGS) {
    Value e = vm->handled;
    TupleObj *t;
    if (!val_is_obj(e)) {
        t = tuple_pack(vm, 3, val_none(), val_none(), val_none());
    } else {
        t = tuple_pack(vm, 3, val_obj(e.as.o->type), e, ((ExceptionObj *)e.as.o)->traceback);
    }
    return t ? val_obj(t) : val_null();
}

static Value sys_getsizeof(ARGS) {
    if (native_check_args(vm, "getsizeof", argc, kw, 1, 2) < 0) return val_null();
    return val_int(argv[0].tag == VAL_OBJ ? argv[0].as.o->size : 24);
}

static Value sys_intern(ARGS) {
    if (native_check_args(vm, "intern", argc, kw, 1, 1) < 0) return val_null();
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "intern() argument must be str");
    StrObj *s = str_intern(vm, AS_STR(argv[0]));
    return s ? val_obj(s) : val_null();
}

void sys_init(VM *vm) {
    Value mod = module_new(vm, "sys");
    EM_ASSERT(!val_is_null(mod), "out of memory creating sys");
    vm_push_root(vm, mod);
    TypeObj *st = type_new_builtin(vm, "TextIOWrapper", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(StreamObj),
                                   offsetof(StreamObj, dict), stream_trace, NULL, TYPEF_ABSTRACT_NEW);
    static const MethodDef sm[] = {
        {"write", stream_write, NATIVEF_METHOD}, {"flush", stream_flush, NATIVEF_METHOD},
        {"isatty", stream_isatty, NATIVEF_METHOD}, {NULL}};
    static const MethodDef fns[] = {
        {"exit", sys_exit}, {"getrecursionlimit", sys_getrecursionlimit},
        {"setrecursionlimit", sys_setrecursionlimit}, {"exc_info", sys_exc_info},
        {"getsizeof", sys_getsizeof}, {"intern", sys_intern}, {NULL}};
    if (!st || type_add_methods(vm, st, sm) < 0 || module_add_functions(vm, mod, fns) < 0) EM_UNREACHABLE();
    vm->sys_stdout = make_stream(vm, st, stdout);
    vm->sys_stderr = make_stream(vm, st, stderr);
    vm->argv = list_new(vm, 0);
    TupleObj *ver = tuple_pack(vm, 5, val_int(3), val_int(11), val_int(0), vm_intern(vm, "final"), val_int(0));
    if (module_set(vm, mod, "stdout", vm->sys_stdout) < 0 || module_set(vm, mod, "stderr", vm->sys_stderr) < 0 ||
        module_set(vm, mod, "__stdout__", vm->sys_stdout) < 0 || module_set(vm, mod, "__stderr__", vm->sys_stderr) < 0 ||
        module_set(vm, mod, "argv", val_obj(vm->argv)) < 0 || module_set(vm, mod, "path", val_obj(vm->path)) < 0 ||
        module_set(vm, mod, "modules", val_obj(vm->modules)) < 0 ||
        module_set(vm, mod, "version_info", val_obj(ver)) < 0 ||
        module_set(vm, mod, "version", vm_intern(vm, "3.11.0 (Ember)")) < 0 ||
        module_set(vm, mod, "platform", vm_intern(vm, "linux")) < 0 ||
        module_set(vm, mod, "implementation_name", vm_intern(vm, "ember")) < 0 ||
        module_set(vm, mod, "maxsize", val_int(INT64_MAX)) < 0 ||
        module_set(vm, mod, "byteorder", vm_intern(vm, "little")) < 0 ||
        dict_set_c(vm, vm->modules, "sys", mod) < 0)
        EM_UNREACHABLE();
    /* `import builtins` gives a module over the builtins dict */
    Value bm = module_new(vm, "builtins");
    EM_ASSERT(!val_is_null(bm), "out of memory creating builtins");
    ((ModuleObj *)bm.as.o)->dict = vm->builtins;
    if (dict_set_c(vm, vm->modules, "builtins", bm) < 0) EM_UNREACHABLE();
    vm_pop_root(vm);
}

/* print() writes through sys.stdout when a script replaced it; NULL when it is the C stream. */
Value vm_current_stdout(VM *vm) {
    Value sys = dict_get_c(vm, vm->modules, "sys");
    if (!val_is_type(vm, sys, vm->t_module)) return val_null();
    Value out = dict_get_c(vm, ((ModuleObj *)sys.as.o)->dict, "stdout");
    if (val_is_null(out) || val_identical(out, vm->sys_stdout)) return val_null();
    return out;
}
