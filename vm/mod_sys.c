/* vm/mod_sys.c — the sys module, complete enough for CPython's argparse, logging, warnings,
 * traceback, importlib, sysconfig and platform: argv / orig_argv / executable, the prefixes
 * and paths, version information (version, version_info, hexversion, implementation with
 * Ember's cache_tag), flags, float_info / int_info / hash_info / thread_info, the module
 * tables (modules, builtin_module_names, stdlib_module_names, meta_path, path_hooks,
 * path_importer_cache), exit, the recursion limit, exc_info / exception, excepthook /
 * displayhook / unraisablehook (and their __originals__), audit hooks, settrace / setprofile
 * (kept and returned: Ember calls no trace functions), intern, getsizeof, getrefcount's
 * stand-in, the encodings, and types.SimpleNamespace (CPython's types.py takes it as
 * type(sys.implementation)).  The standard streams are made by the _io module (mod_io.c). */
#include <limits.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/build_config.h"
#include "vm/cache_tag.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/mod_io.h"
#include "vm/mod_sys.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/structseq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value sys_module(VM *vm) { return dict_get_c(vm, vm->modules, "sys"); }
static Value sys_attr(VM *vm, const char *name) {
    Value s = sys_module(vm);
    return val_is_type(vm, s, vm->t_module) ? dict_get_c(vm, ((ModuleObj *)s.as.o)->dict, name) : val_null();
}

/* ---- the standard streams ----------------------------------------------------------------------- */

int io_init_types(VM *vm);
static int set(VM *vm, Value mod, const char *name, Value v);

/* sys.stdin / stdout / stderr: _io text streams over fds 0-2, stdout and stderr writing through
 * the C library's streams (see mod_io.h); stdout is line-buffered on a terminal, stderr always,
 * stderr's errors are backslashreplace, as CPython makes them. */
static int init_streams(VM *vm, Value mod) {
    if (io_init_types(vm) < 0) return -1;
    Value in = io_std_stream(vm, 0, NULL, "r", "strict", isatty(0));
    if (val_is_null(in) || set(vm, mod, "stdin", in) < 0 || set(vm, mod, "__stdin__", in) < 0) return -1;
    vm->sys_stdout = io_std_stream(vm, 1, vm->out, "w", "strict", isatty(1));
    if (val_is_null(vm->sys_stdout)) return -1;
    vm->sys_stderr = io_std_stream(vm, 2, vm->err, "w", "backslashreplace", true);
    if (val_is_null(vm->sys_stderr)) return -1;
    return module_set(vm, mod, "stdout", vm->sys_stdout) < 0 || module_set(vm, mod, "stderr", vm->sys_stderr) < 0 ||
                   module_set(vm, mod, "__stdout__", vm->sys_stdout) < 0 ||
                   module_set(vm, mod, "__stderr__", vm->sys_stderr) < 0
               ? -1
               : 0;
}

/* ---- types.SimpleNamespace --------------------------------------------------------------------- */

static Value ns_init(ARGS) {
    if (argc > 1) return vm_raise(vm, vm->e_TypeError, "SimpleNamespace() takes no positional arguments");
    DictObj **d = obj_dict_slot(argv[0].as.o);
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (dict_set(vm, *d, kw->items[k], argv[argc + k]) < 0) return val_null();
    return val_none();
}

static Value ns_repr(ARGS) {
    Obj *o = argv[0].as.o;
    const char *name = o->type == AS_TYPE(vm->lib[VM_LIB_simple_namespace]) ? "namespace" : o->type->name->data;
    int rc = repr_enter(vm, o);
    if (rc < 0) return val_null();
    if (rc > 0) {
        StrObj *s = str_printf(vm, "%s(...)", name);
        return s ? val_obj(s) : val_null();
    }
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s(", name);
    DictObj *d = *obj_dict_slot(o);
    int64_t pos = 0;
    Value k, v;
    bool first = true;
    while (d && dict_next(d, &pos, &k, &v)) {
        if (!val_is_str(vm, k)) continue;
        Value r = vm_repr(vm, v);
        if (val_is_null(r)) {
            repr_leave(vm, o);
            sb_free(&b);
            return r;
        }
        sb_printf(&b, "%s%s=", first ? "" : ", ", AS_STR(k)->data);
        sb_add_str(&b, AS_STR(r));
        first = false;
    }
    sb_addc(&b, ')');
    repr_leave(vm, o);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value ns_eq(ARGS) {
    TypeObj *nt = AS_TYPE(vm->lib[VM_LIB_simple_namespace]);
    if (!vm_isinstance_type(vm, argv[0], nt) || !vm_isinstance_type(vm, argv[1], nt)) return vm->not_implemented;
    int r = vm_eq(vm, val_obj(*obj_dict_slot(argv[0].as.o)), val_obj(*obj_dict_slot(argv[1].as.o)));
    if (r < 0) return val_null();
    return val_bool(fn->data ? !r : r);
}

static Value ns_reduce(ARGS) {
    TupleObj *t = tuple_pack(vm, 3, val_obj(argv[0].as.o->type), val_obj(vm->empty_tuple),
                             val_obj(*obj_dict_slot(argv[0].as.o)));
    return t ? val_obj(t) : val_null();
}

static Value ns_alloc(VM *vm, TypeObj *t) {
    InstanceObj *o = gc_alloc(vm, t, t->instance_size);
    if (!o) return val_null();
    vm_push_root(vm, val_obj(o));
    o->dict = dict_new(vm);
    vm_pop_root(vm);
    return o->dict ? val_obj(o) : val_null();
}

static TypeObj *make_namespace_type(VM *vm) {
    TypeObj *t = type_new_builtin(vm, "SimpleNamespace", vm->t_object, OBJ_LAYOUT_INSTANCE, sizeof(InstanceObj),
                                  offsetof(InstanceObj, dict), vm->t_object->trace, NULL, TYPEF_BASETYPE);
    if (!t) return NULL;
    t->alloc = ns_alloc;
    t->module = vm_intern(vm, "types");
    static const MethodDef m[] = {
        {"__init__", ns_init, NATIVEF_METHOD}, {"__repr__", ns_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__eq__", ns_eq, NATIVEF_METHOD | ARITY_O}, {"__ne__", ns_eq, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"__reduce__", ns_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    if (type_add_methods(vm, t, m) < 0 || dict_set_c(vm, t->dict, "__hash__", val_none()) < 0) return NULL;
    return t;
}

/* ---- functions --------------------------------------------------------------------------------- */

static Value sys_exit(ARGS) {
    if (native_check_args(vm, "exit", argc, kw, 0, 1) < 0) return val_null();
    Value e = vm_new_exception(vm, vm->e_SystemExit, argc ? argv[0] : val_null());
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

static Value sys_getrecursionlimit(ARGS) { return val_int(vm->recursion_limit); }

static Value sys_setrecursionlimit(ARGS) {
    int64_t n;
    if (val_is_float(argv[0])) return vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
    if (vm_index(vm, argv[0], &n) < 0) return val_null();
    if (n < 1) return vm_raise(vm, vm->e_ValueError, "recursion limit must be greater or equal than 1");
    if (n <= vm->depth)
        return vm_raise(vm, vm->e_RecursionError,
                        "cannot set the recursion limit to %lld at the recursion depth %d: the limit is too low",
                        (long long)n, vm->depth);
    /* the frame pool bounds how deep Ember can go; above it the limit stays at the pool size */
    vm_set_recursion_limit(vm, n);
    return val_none();
}

static Value sys_exc_info(ARGS) {
    Value e = vm->handled;
    TupleObj *t = !val_is_obj(e) ? tuple_pack(vm, 3, val_none(), val_none(), val_none())
                                 : tuple_pack(vm, 3, val_obj(e.as.o->type), e, ((ExceptionObj *)e.as.o)->traceback);
    return t ? val_obj(t) : val_null();
}

static Value sys_exception(ARGS) { return val_is_obj(vm->handled) ? vm->handled : val_none(); }

/* sys.getsizeof: Ember's own object sizes (header + payload), CPython's contract: an int,
 * default returned for objects that cannot say. */
static Value sys_getsizeof(ARGS) {
    static const char *const names[] = {"object", "default"};
    Value a[2];
    if (native_parse_args(vm, "getsizeof", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (a[0].tag != VAL_OBJ) return val_int(sizeof(Value));
    Value m = type_lookup(vm, a[0].as.o->type, vm_intern_str(vm, "__sizeof__"));
    if (!val_is_null(m) && !(m.tag == VAL_OBJ && m.as.o->type->layout == OBJ_LAYOUT_NATIVE)) {
        Value r = vm_call_method(vm, a[0], "__sizeof__", 0, NULL);
        if (val_is_null(r)) return r;
        if (!val_is_intlike(r)) return vm_raise(vm, vm->e_TypeError, "an integer is required");
        if (val_as_intlike(r) < 0) return vm_raise(vm, vm->e_ValueError, "__sizeof__() should return >= 0");
        return val_int(val_as_intlike(r) + (int64_t)sizeof(Obj));
    }
    return val_int(a[0].as.o->size);
}

/* Ember collects by tracing, not by counting references; getrefcount answers what CPython
 * would for an object only referenced by the caller's argument (2). */
static Value sys_getrefcount(ARGS) { return val_int(2); }

static Value sys_intern(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "intern() argument must be str, not %s", vm_type_name(vm, argv[0]));
    StrObj *s = str_intern(vm, AS_STR(argv[0]));
    return s ? val_obj(s) : val_null();
}

static Value sys_const_str(ARGS) { return vm_intern(vm, (const char *)fn->data); }
static Value sys_false(ARGS) { return val_bool(false); }

/* settrace / setprofile keep the function (gettrace / getprofile return it); Ember's
 * interpreter does not call trace functions. */
static Value sys_settrace(ARGS) {
    vm->lib[fn->data ? VM_LIB_sys_profile : VM_LIB_sys_trace] = argv[0];
    return val_none();
}
static Value sys_gettrace(ARGS) {
    Value v = vm->lib[fn->data ? VM_LIB_sys_profile : VM_LIB_sys_trace];
    return val_is_null(v) ? val_none() : v;
}

static Value sys_call_tracing(ARGS) { return vm_call_ex(vm, argv[0], argv[1], val_null()); }

static Value sys_audit(ARGS) {
    if (argc < 1 || !val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "expected str for argument 'event'");
    Value hooks = vm->lib[VM_LIB_audit_hooks];
    if (val_is_null(hooks) || AS_LIST(hooks)->len == 0) return val_none();
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    ListObj *l = AS_LIST(hooks);
    for (int64_t i = 0; i < l->len; i++) {
        if (val_is_null(vm_call2(vm, l->items[i], argv[0], val_obj(args)))) {
            vm_pop_root(vm);
            return val_null();
        }
        l = AS_LIST(vm->lib[VM_LIB_audit_hooks]);
    }
    vm_pop_root(vm);
    return val_none();
}

static Value sys_addaudithook(ARGS) {
    if (val_is_null(vm->lib[VM_LIB_audit_hooks])) {
        ListObj *l = list_new(vm, 0);
        if (!l) return val_null();
        vm->lib[VM_LIB_audit_hooks] = val_obj(l);
    }
    return list_append(vm, AS_LIST(vm->lib[VM_LIB_audit_hooks]), argv[0]) < 0 ? val_null() : val_none();
}

/* Write text to the stream sys.<name> (its write method), or to the C file when that stream
 * is unset. */
static int write_to_sys(VM *vm, const char *name, FILE *fallback, const char *text, size_t n) {
    Value s = sys_attr(vm, name);
    if (val_is_null(s) || val_is_none(s)) {
        fwrite(text, 1, n, fallback);
        fflush(fallback);
        return 0;
    }
    StrObj *t = str_new(vm, text, (int64_t)n);
    if (!t) return -1;
    vm_push_root(vm, s);
    vm_push_root(vm, val_obj(t));
    Value r = vm_call_method(vm, s, "write", 1, (Value[]){val_obj(t)});
    if (!val_is_null(r)) r = vm_call_method(vm, s, "flush", 0, NULL);
    vm_pop_roots(vm, 2);
    return val_is_null(r) ? -1 : 0;
}

int sys_print_exception(VM *vm, Value exc) {
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) return -1;
    vm_print_exception(vm, exc, m);
    fclose(m);
    Value out = sys_attr(vm, "stdout");
    if (!val_is_null(out) && !val_is_none(out)) {
        Value r = vm_call_method(vm, out, "flush", 0, NULL);
        if (val_is_null(r)) vm_clear_exc(vm);
    }
    int rc = write_to_sys(vm, "stderr", vm->err, buf, n);
    free(buf);
    return rc;
}

/* excepthook(type, value, traceback): the traceback on sys.stderr */
static Value sys_excepthook(ARGS) {
    Value e = argv[1];
    if (!val_is_obj(e) || !(e.as.o->type->flags & TYPEF_EXCEPTION)) {
        e = vm_new_exception(vm, vm->e_TypeError, vm_intern(vm, "print_exception(): Exception expected for value"));
        if (val_is_null(e)) return e;
    } else if (!val_is_none(argv[2])) {
        ((ExceptionObj *)e.as.o)->traceback = argv[2];
    }
    return sys_print_exception(vm, e) < 0 ? val_null() : val_none();
}

/* displayhook(value): repr on sys.stdout and builtins._ = value, unless value is None */
static Value sys_displayhook(ARGS) {
    if (val_is_none(argv[0])) return val_none();
    if (dict_set_c(vm, vm->builtins, "_", val_none()) < 0) return val_null();
    Value r = vm_repr(vm, argv[0]);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    StrObj *line = str_printf(vm, "%s\n", AS_STR(r)->data);
    vm_pop_root(vm);
    if (!line) return val_null();
    /* line stays rooted: write_to_sys copies its text into a new str (an allocation that may
     * collect) */
    vm_push_root(vm, val_obj(line));
    int wrc = write_to_sys(vm, "stdout", vm->out, line->data, (size_t)line->len);
    vm_pop_root(vm);
    if (wrc < 0) return val_null();
    return dict_set_c(vm, vm->builtins, "_", argv[0]) < 0 ? val_null() : val_none();
}

/* unraisablehook(unraisable): "Exception ignored in: <obj>" + the traceback on sys.stderr */
static Value sys_unraisablehook(ARGS) {
    Value u = argv[0];
    Value exc = vm_getattr_c(vm, u, "exc_value");
    if (val_is_null(exc)) return exc;
    vm_push_root(vm, exc);
    Value msg = vm_getattr_c(vm, u, "err_msg");
    Value obj = val_is_null(msg) ? msg : vm_getattr_c(vm, u, "object");
    if (val_is_null(obj)) {
        vm_pop_root(vm);
        return obj;
    }
    vm_push_root(vm, msg);
    vm_push_root(vm, obj);
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, val_is_str(vm, msg) ? AS_STR(msg)->data : "Exception ignored in");
    if (!val_is_none(obj)) {
        Value r = vm_repr(vm, obj);
        sb_adds(&b, ": ");
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            sb_adds(&b, "<object repr() failed>");
        } else {
            sb_add_str(&b, AS_STR(r));
        }
    }
    sb_addc(&b, '\n');
    int rc = write_to_sys(vm, "stderr", vm->err, b.data, (size_t)b.len);
    sb_free(&b);
    if (rc == 0 && !val_is_none(exc)) rc = sys_print_exception(vm, exc);
    vm_pop_roots(vm, 3);
    return rc < 0 ? val_null() : val_none();
}

static const char *const unraisable_fields[] = {"exc_type", "exc_value", "exc_traceback", "err_msg", "object"};
static const StructSeqDesc unraisable_desc = {"UnraisableHookArgs", unraisable_fields, 5, 5};

void vm_write_unraisable(VM *vm, Value exc, const char *err_msg, Value obj) {
    vm_push_root(vm, exc);
    vm_push_root(vm, obj);
    Value hook = sys_attr(vm, "unraisablehook");
    Value msg = err_msg ? val_obj(str_from_c(vm, err_msg)) : val_none();
    vm_push_root(vm, msg);
    Value v[5] = {val_is_obj(exc) ? val_obj(exc.as.o->type) : val_none(), exc,
                  val_is_obj(exc) && (exc.as.o->type->flags & TYPEF_EXCEPTION) ? ((ExceptionObj *)exc.as.o)->traceback
                                                                             : val_none(),
                  msg, val_is_null(obj) ? val_none() : obj};
    TupleObj *args = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_unraisable_args]), v);
    Value r = val_null();
    if (args && !val_is_null(hook) && !val_is_none(hook)) r = vm_call1(vm, hook, val_obj(args));
    if (val_is_null(r)) {
        /* the hook itself failed: print the original the C way */
        vm_clear_exc(vm);
        fflush(vm->out);
        fprintf(vm->err, "%s\n", err_msg ? err_msg : "Exception ignored in");
        vm_print_exception(vm, exc, vm->err);
    }
    vm_pop_roots(vm, 3);
}

static Value sys_clear_type_cache(ARGS) {
    vm->class_epoch++;
    return val_none();
}

/* sys.get_int_max_str_digits / set_int_max_str_digits: the limit str() and int() apply to
 * decimal conversions of ints (vm->int_max_str_digits; 0: none).  sys.flags.int_max_str_digits
 * keeps the start-up value (-X int_max_str_digits), as in CPython. */
static Value sys_get_int_max_str_digits(ARGS) { return val_int(vm->int_max_str_digits); }
static Value sys_set_int_max_str_digits(ARGS) {
    static const char *const names[] = {"maxdigits"};
    Value a[1];
    if (native_parse_args(vm, "set_int_max_str_digits", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    int64_t n;
    if (vm_index(vm, a[0], &n) < 0) {
        if (!vm_isinstance_type(vm, vm->exc, vm->e_OverflowError)) return val_null();
        vm_clear_exc(vm);
        n = INT64_MAX;
    }
    if (n > INT32_MAX || n < INT32_MIN) return vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C int");
    if (n != 0 && n < 640) return vm_raise(vm, vm->e_ValueError, "maxdigits must be 0 or larger than 640");
    vm->int_max_str_digits = n;
    return val_none();
}

static Value sys_getswitchinterval(ARGS) {
    Value v = vm->lib[VM_LIB_switch_interval];
    return val_is_null(v) ? val_float(0.005) : v;
}
static Value sys_setswitchinterval(ARGS) {
    double d;
    if (vm_to_double(vm, argv[0], &d) < 0) return val_null();
    if (d <= 0) return vm_raise(vm, vm->e_ValueError, "switch interval must be strictly positive");
    vm->lib[VM_LIB_switch_interval] = val_float(d);
    return val_none();
}

/* ---- construction --------------------------------------------------------------------------- */

static const char *const flags_fields[] = {
    "debug", "inspect", "interactive", "optimize", "dont_write_bytecode", "no_user_site", "no_site",
    "ignore_environment", "verbose", "bytes_warning", "quiet", "hash_randomization", "isolated", "dev_mode",
    "utf8_mode", "warn_default_encoding", "safe_path", "int_max_str_digits"};
static const StructSeqDesc flags_desc = {"sys.flags", flags_fields, 18, 18};
static const char *const version_fields[] = {"major", "minor", "micro", "releaselevel", "serial"};
static const StructSeqDesc version_desc = {"sys.version_info", version_fields, 5, 5};
static const char *const float_fields[] = {"max", "max_exp", "max_10_exp", "min", "min_exp", "min_10_exp",
                                           "dig", "mant_dig", "epsilon", "radix", "rounds"};
static const StructSeqDesc float_desc = {"sys.float_info", float_fields, 11, 11};
static const char *const int_fields[] = {"bits_per_digit", "sizeof_digit", "default_max_str_digits",
                                         "str_digits_check_threshold"};
static const StructSeqDesc int_desc = {"sys.int_info", int_fields, 4, 4};
static const char *const hash_fields[] = {"width", "modulus", "inf", "nan", "imag", "algorithm", "hash_bits",
                                          "seed_bits", "cutoff"};
static const StructSeqDesc hash_desc = {"sys.hash_info", hash_fields, 9, 9};
static const char *const thread_fields[] = {"name", "lock", "version"};
static const StructSeqDesc thread_desc = {"sys.thread_info", thread_fields, 3, 3};

static const char *const stdlib_names[] = {
#include "vm/stdlib_names.inc"
    NULL};

/* sys.flags with the command line's values (the CLI calls it once the VM exists): a new
 * instance of the same struct sequence type, the fields named in flags_fields. */
int sys_set_flags(VM *vm, const SysFlags *f) {
    Value mod = dict_get_c(vm, vm->modules, "sys");
    if (!val_is_type(vm, mod, vm->t_module)) return 0;
    Value old = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "flags");
    if (val_is_null(old) || old.tag != VAL_OBJ) return 0;
    Value v[18];
    for (int i = 0; i < 18; i++) v[i] = AS_TUPLE(old)->items[i];
    v[0] = val_int(f->debug);
    v[1] = val_int(f->inspect);
    v[2] = val_int(f->interactive);
    v[4] = val_int(f->dont_write_bytecode);
    v[5] = val_int(f->no_user_site);
    v[7] = val_int(f->ignore_environment);
    v[8] = val_int(f->verbose);
    v[9] = val_int(f->bytes_warning);
    v[10] = val_int(f->quiet);
    v[12] = val_int(f->isolated);
    v[13] = val_bool(f->dev_mode);
    v[14] = val_int(f->utf8_mode);
    v[15] = val_int(f->warn_default_encoding);
    v[16] = val_bool(f->safe_path);
    v[17] = val_int(f->int_max_str_digits);
    TupleObj *r = structseq_new(vm, old.as.o->type, v);
    if (!r) return -1;
    return set(vm, mod, "flags", val_obj(r));
}

/* A struct sequence instance of a new type that scripts cannot instantiate. */
static Value fixed_structseq(VM *vm, const StructSeqDesc *d, const Value *v) {
    TypeObj *t = structseq_new_type(vm, d);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    TupleObj *r = structseq_new(vm, t, v);
    t->flags |= TYPEF_ABSTRACT_NEW;
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

static int set(VM *vm, Value mod, const char *name, Value v) {
    if (val_is_null(v)) return -1;
    vm_push_root(vm, v);
    int rc = module_set(vm, mod, name, v);
    vm_pop_root(vm);
    return rc;
}

static Value cstr(VM *vm, const char *s) {
    StrObj *o = str_from_c(vm, s);
    return o ? val_obj(o) : val_null();
}

static Value executable_path(VM *vm) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n < 0) return val_obj(vm->empty_str);
    buf[n] = 0;
    return cstr(vm, buf);
}

static int init_values(VM *vm, Value mod) {
    Value ver = val_null();
    Value v5[5] = {val_int(3), val_int(11), val_int(EMBER_CPYTHON_MICRO), vm_intern(vm, "final"), val_int(0)};
    ver = fixed_structseq(vm, &version_desc, v5);
    if (set(vm, mod, "version_info", ver) < 0) return -1;
    Value flags[18] = {0};
    for (int i = 0; i < 18; i++) flags[i] = val_int(0);
    flags[6] = val_int(1);          /* no_site: Ember does not run site.py */
    flags[11] = val_int(vm_hash_randomized());   /* hash_randomization: PYTHONHASHSEED (vm/pyhash.c) */
    flags[13] = val_bool(false);    /* dev_mode */
    flags[16] = val_bool(false);    /* safe_path */
    flags[17] = val_int(-1);        /* int_max_str_digits: the default */
    if (set(vm, mod, "flags", fixed_structseq(vm, &flags_desc, flags)) < 0) return -1;
    Value fl[11] = {val_float(DBL_MAX), val_int(DBL_MAX_EXP), val_int(DBL_MAX_10_EXP), val_float(DBL_MIN),
                    val_int(DBL_MIN_EXP), val_int(DBL_MIN_10_EXP), val_int(DBL_DIG), val_int(DBL_MANT_DIG),
                    val_float(DBL_EPSILON), val_int(FLT_RADIX), val_int(1)};
    if (set(vm, mod, "float_info", fixed_structseq(vm, &float_desc, fl)) < 0) return -1;
    Value in[4] = {val_int(30), val_int(4), val_int(4300), val_int(640)};
    if (set(vm, mod, "int_info", fixed_structseq(vm, &int_desc, in)) < 0) return -1;
    Value hi[9] = {val_int(64), val_int((int64_t)(((uint64_t)1 << 61) - 1)), val_int(314159), val_int(0),
                   val_int(1000003), vm_intern(vm, "siphash13"), val_int(64), val_int(128), val_int(0)};
    if (set(vm, mod, "hash_info", fixed_structseq(vm, &hash_desc, hi)) < 0) return -1;
    Value ti[3] = {vm_intern(vm, "pthread"), vm_intern(vm, "mutex+cond"), val_none()};
    if (set(vm, mod, "thread_info", fixed_structseq(vm, &thread_desc, ti)) < 0) return -1;
    TypeObj *ua = structseq_new_type(vm, &unraisable_desc);
    if (!ua) return -1;
    vm->lib[VM_LIB_unraisable_args] = val_obj(ua);

    /* sys.implementation: a SimpleNamespace, as CPython's */
    Value impl = ns_alloc(vm, AS_TYPE(vm->lib[VM_LIB_simple_namespace]));
    if (val_is_null(impl)) return -1;
    vm_push_root(vm, impl);
    DictObj *id = ((InstanceObj *)impl.as.o)->dict;
    int rc = dict_set_c(vm, id, "name", vm_intern(vm, "ember")) < 0 ||
             dict_set_c(vm, id, "cache_tag", vm_intern(vm, EMBER_CACHE_TAG)) < 0 ||
             dict_set_c(vm, id, "version", ver) < 0 ||
             dict_set_c(vm, id, "hexversion", val_int(0x030b00f0 | (EMBER_CPYTHON_MICRO << 8))) < 0 ||
             dict_set_c(vm, id, "_multiarch", vm_intern(vm, "x86_64-linux-gnu")) < 0 ||
             module_set(vm, mod, "implementation", impl) < 0;
    vm_pop_root(vm);
    if (rc) return -1;

    char version[160];
    snprintf(version, sizeof version, "3.11.%d (ember %s, %s, %s) [GCC %d.%d.%d]", EMBER_CPYTHON_MICRO,
             EMBER_VERSION, __DATE__, __TIME__, __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
    if (set(vm, mod, "version", cstr(vm, version)) < 0 ||
        set(vm, mod, "hexversion", val_int(0x030b00f0 | (EMBER_CPYTHON_MICRO << 8))) < 0 ||
        set(vm, mod, "api_version", val_int(1013)) < 0 ||
        set(vm, mod, "copyright", cstr(vm, "Ember: Copyright (c) the Ember authors.\n"
                                           "CPython standard library: Copyright (c) 2001-2023 Python Software Foundation.")) < 0 ||
        set(vm, mod, "platform", vm_intern(vm, "linux")) < 0 ||
        set(vm, mod, "byteorder", vm_intern(vm, "little")) < 0 ||
        set(vm, mod, "maxsize", val_int(INT64_MAX)) < 0 || set(vm, mod, "maxunicode", val_int(0x10FFFF)) < 0 ||
        set(vm, mod, "float_repr_style", vm_intern(vm, "short")) < 0 ||
        set(vm, mod, "abiflags", val_obj(vm->empty_str)) < 0 || set(vm, mod, "platlibdir", vm_intern(vm, "lib")) < 0 ||
        set(vm, mod, "prefix", cstr(vm, EMBER_CPYTHON_PREFIX)) < 0 ||
        set(vm, mod, "exec_prefix", cstr(vm, EMBER_CPYTHON_PREFIX)) < 0 ||
        set(vm, mod, "base_prefix", cstr(vm, EMBER_CPYTHON_PREFIX)) < 0 ||
        set(vm, mod, "base_exec_prefix", cstr(vm, EMBER_CPYTHON_PREFIX)) < 0 ||
        set(vm, mod, "_stdlib_dir", cstr(vm, EMBER_CPYTHON_STDLIB)) < 0 ||
        set(vm, mod, "executable", executable_path(vm)) < 0 ||
        set(vm, mod, "_base_executable", executable_path(vm)) < 0 ||
        set(vm, mod, "pycache_prefix", val_none()) < 0 || set(vm, mod, "dont_write_bytecode", val_bool(false)) < 0 ||
        set(vm, mod, "warnoptions", val_obj(list_new(vm, 0))) < 0 ||
        set(vm, mod, "_xoptions", val_obj(dict_new(vm))) < 0 ||
        set(vm, mod, "meta_path", val_obj(list_new(vm, 0))) < 0 ||
        set(vm, mod, "path_hooks", val_obj(list_new(vm, 0))) < 0 ||
        set(vm, mod, "path_importer_cache", val_obj(dict_new(vm))) < 0 ||
        set(vm, mod, "orig_argv", val_obj(list_new(vm, 0))) < 0 ||
        set(vm, mod, "_git", val_obj(tuple_pack(vm, 3, vm_intern(vm, "ember"), val_obj(vm->empty_str),
                                                 val_obj(vm->empty_str)))) < 0 ||
        set(vm, mod, "_framework", val_obj(vm->empty_str)) < 0)
        return -1;
    SetObj *names = set_new(vm, vm->t_frozenset);
    if (!names || module_set(vm, mod, "stdlib_module_names", val_obj(names)) < 0) return -1;
    for (int i = 0; stdlib_names[i]; i++)
        if (set_add(vm, names, vm_intern(vm, stdlib_names[i])) < 0) return -1;
    return 0;
}

void sys_init(VM *vm) {
    Value mod = module_new(vm, "sys");
    EM_ASSERT(!val_is_null(mod), "out of memory creating sys");
    vm_push_root(vm, mod);
    TypeObj *ns = make_namespace_type(vm);
    EM_ASSERT(ns != NULL, "out of memory creating sys");
    vm->lib[VM_LIB_simple_namespace] = val_obj(ns);
    static const MethodDef fns[] = {
        {"exit", sys_exit}, {"getrecursionlimit", sys_getrecursionlimit, ARITY_NOARGS},
        {"setrecursionlimit", sys_setrecursionlimit, ARITY_O}, {"exc_info", sys_exc_info, ARITY_NOARGS},
        {"exception", sys_exception, ARITY_NOARGS}, {"getsizeof", sys_getsizeof},
        {"getrefcount", sys_getrefcount, ARITY_O}, {"intern", sys_intern, ARITY_O},
        {"getdefaultencoding", sys_const_str, ARITY_NOARGS, (void *)"utf-8"},
        {"getfilesystemencoding", sys_const_str, ARITY_NOARGS, (void *)"utf-8"},
        {"getfilesystemencodeerrors", sys_const_str, ARITY_NOARGS, (void *)"surrogateescape"},
        {"is_finalizing", sys_false, ARITY_NOARGS}, {"settrace", sys_settrace, ARITY_O},
        {"gettrace", sys_gettrace, ARITY_NOARGS}, {"setprofile", sys_settrace, ARITY_O, (void *)1},
        {"getprofile", sys_gettrace, ARITY_NOARGS, (void *)1}, {"call_tracing", sys_call_tracing, ARITY_POS(2, 2)},
        {"audit", sys_audit}, {"addaudithook", sys_addaudithook, ARITY_O},
        {"excepthook", sys_excepthook, ARITY_POS(3, 3)}, {"__excepthook__", sys_excepthook, ARITY_POS(3, 3)},
        {"displayhook", sys_displayhook, ARITY_O}, {"__displayhook__", sys_displayhook, ARITY_O},
        {"unraisablehook", sys_unraisablehook, ARITY_O}, {"__unraisablehook__", sys_unraisablehook, ARITY_O},
        {"_clear_type_cache", sys_clear_type_cache, ARITY_NOARGS},
        {"getswitchinterval", sys_getswitchinterval, ARITY_NOARGS},
        {"setswitchinterval", sys_setswitchinterval, ARITY_O},
        {"get_int_max_str_digits", sys_get_int_max_str_digits, ARITY_NOARGS},
        {"set_int_max_str_digits", sys_set_int_max_str_digits}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) EM_UNREACHABLE();
    vm->argv = list_new(vm, 0);
    EM_ASSERT(vm->argv != NULL, "out of memory creating sys");
    if (module_set(vm, mod, "argv", val_obj(vm->argv)) < 0 || module_set(vm, mod, "path", val_obj(vm->path)) < 0 ||
        module_set(vm, mod, "modules", val_obj(vm->modules)) < 0 || init_values(vm, mod) < 0 ||
        init_streams(vm, mod) < 0 ||
        dict_set_c(vm, vm->modules, "sys", mod) < 0)
        EM_UNREACHABLE();
    /* `import builtins` gives a module over the builtins dict */
    Value bm = module_new(vm, "builtins");
    EM_ASSERT(!val_is_null(bm), "out of memory creating builtins");
    ((ModuleObj *)bm.as.o)->dict = vm->builtins;
    if (dict_set_c(vm, vm->modules, "builtins", bm) < 0 || dict_set_c(vm, vm->builtins, "__name__", vm_intern(vm, "builtins")) < 0)
        EM_UNREACHABLE();
    vm_pop_root(vm);
}

/* sys.stdout, VAL_NULL when sys has none (print then writes nothing, as in CPython) */
Value vm_current_stdout(VM *vm) {
    Value out = sys_attr(vm, "stdout");
    return val_is_null(out) ? val_none() : out;
}
