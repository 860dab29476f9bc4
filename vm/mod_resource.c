/* vm/mod_resource.c — the resource module (a C module in CPython): getrusage with
 * resource.struct_rusage (what benchmark and training scripts read their peak RSS and CPU time
 * from), getrlimit / setrlimit / prlimit with Linux's RLIMIT_* constants, getpagesize, and
 * CPython's conversions and messages: limits are signed 64-bit values (RLIM_INFINITY is -1),
 * EINVAL / EPERM from setrlimit are ValueErrors, anything else an OSError. */
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "vm/bigint.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/structseq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const char *const rusage_fields[] = {
    "ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt",
    "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw"};
static const StructSeqDesc rusage_desc = {"resource.struct_rusage", rusage_fields, 16, 16};

static double seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 0.000001; }

static Value r_getrusage(ARGS) {
    int64_t who;
    if (vm_index(vm, argv[0], &who) < 0) return val_null();
    struct rusage u;
    if (who < INT32_MIN || who > INT32_MAX || getrusage((int)who, &u) < 0) {
        if (who < INT32_MIN || who > INT32_MAX || errno == EINVAL)
            return vm_raise(vm, vm->e_ValueError, "invalid who parameter");
        return vm_raise_oserror(vm, errno, val_null(), val_null());
    }
    Value v[16] = {val_float(seconds(u.ru_utime)), val_float(seconds(u.ru_stime)), val_int(u.ru_maxrss),
                   val_int(u.ru_ixrss), val_int(u.ru_idrss), val_int(u.ru_isrss), val_int(u.ru_minflt),
                   val_int(u.ru_majflt), val_int(u.ru_nswap), val_int(u.ru_inblock), val_int(u.ru_oublock),
                   val_int(u.ru_msgsnd), val_int(u.ru_msgrcv), val_int(u.ru_nsignals), val_int(u.ru_nvcsw),
                   val_int(u.ru_nivcsw)};
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_rusage_type]), v);
    return t ? val_obj(t) : val_null();
}

/* the resource number, or -1 with ValueError raised */
static int resource_arg(VM *vm, Value v) {
    int64_t r;
    if (vm_index(vm, v, &r) < 0) return -1;
    if (r < 0 || r >= RLIM_NLIMITS) {
        vm_raise(vm, vm->e_ValueError, "invalid resource specified");
        return -1;
    }
    return (int)r;
}

/* rlim_t as CPython shows it: a signed 64-bit int, so RLIM_INFINITY is -1 */
static Value limits_tuple(VM *vm, const struct rlimit *rl) {
    Value v[2] = {val_int((int64_t)rl->rlim_cur), val_int((int64_t)rl->rlim_max)};
    TupleObj *t = tuple_from_array(vm, v, 2);
    return t ? val_obj(t) : val_null();
}

static int limit_value(VM *vm, Value v, rlim_t *out) {
    int64_t n;
    /* an int too large for 64 bits is CPython's OverflowError "... to C long" */
    if (val_is_intobj(v) ? bigint_as_i64(vm, v, &n) < 0 : vm_index(vm, v, &n) < 0) return -1;
    *out = (rlim_t)n;
    return 0;
}

/* (soft, hard) from any iterable of two integers */
static int limits_arg(VM *vm, Value v, struct rlimit *rl) {
    ListObj *l = vm_list_from_iterable(vm, v);
    if (!l) return -1;
    vm_push_root(vm, val_obj(l));
    int rc = -1;
    if (l->len != 2)
        vm_raise(vm, vm->e_ValueError, "expected a tuple of 2 integers");
    else if (limit_value(vm, l->items[0], &rl->rlim_cur) == 0 && limit_value(vm, l->items[1], &rl->rlim_max) == 0)
        rc = 0;
    vm_pop_root(vm);
    return rc;
}

static Value set_error(VM *vm) {
    if (errno == EINVAL) return vm_raise(vm, vm->e_ValueError, "current limit exceeds maximum limit");
    if (errno == EPERM) return vm_raise(vm, vm->e_ValueError, "not allowed to raise maximum limit");
    return vm_raise_oserror(vm, errno, val_null(), val_null());
}

static Value r_getrlimit(ARGS) {
    int r = resource_arg(vm, argv[0]);
    if (r < 0) return val_null();
    struct rlimit rl;
    if (getrlimit(r, &rl) < 0) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return limits_tuple(vm, &rl);
}

static Value r_setrlimit(ARGS) {
    int r = resource_arg(vm, argv[0]);
    if (r < 0) return val_null();
    struct rlimit rl;
    if (limits_arg(vm, argv[1], &rl) < 0) return val_null();
    if (setrlimit(r, &rl) < 0) return set_error(vm);
    return val_none();
}

static Value r_prlimit(ARGS) {
    int64_t pid;
    if (vm_index(vm, argv[0], &pid) < 0) return val_null();
    int r = resource_arg(vm, argv[1]);
    if (r < 0) return val_null();
    struct rlimit old, rl;
    if (argc > 2 && limits_arg(vm, argv[2], &rl) < 0) return val_null();
    if (prlimit((pid_t)pid, r, argc > 2 ? &rl : NULL, &old) < 0) {
        if (errno == EINVAL) return vm_raise(vm, vm->e_ValueError, "current limit exceeds maximum limit");
        return vm_raise_oserror(vm, errno, val_null(), val_null());
    }
    return limits_tuple(vm, &old);
}

static Value r_getpagesize(ARGS) { return val_int(sysconf(_SC_PAGESIZE)); }

int resource_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_rusage_type])) {
        TypeObj *t = structseq_new_type(vm, &rusage_desc);
        if (!t) return -1;
        vm->lib[VM_LIB_rusage_type] = val_obj(t);
    }
    static const MethodDef fns[] = {
        {"getrusage", r_getrusage, ARITY_O}, {"getrlimit", r_getrlimit, ARITY_O},
        {"setrlimit", r_setrlimit, ARITY_POS(2, 2)}, {"prlimit", r_prlimit, ARITY_POS(2, 3)},
        {"getpagesize", r_getpagesize, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    static const struct { const char *name; int64_t value; } consts[] = {
        {"RLIMIT_CPU", RLIMIT_CPU}, {"RLIMIT_FSIZE", RLIMIT_FSIZE}, {"RLIMIT_DATA", RLIMIT_DATA},
        {"RLIMIT_STACK", RLIMIT_STACK}, {"RLIMIT_CORE", RLIMIT_CORE}, {"RLIMIT_RSS", RLIMIT_RSS},
        {"RLIMIT_NPROC", RLIMIT_NPROC}, {"RLIMIT_NOFILE", RLIMIT_NOFILE}, {"RLIMIT_OFILE", RLIMIT_OFILE},
        {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_AS", RLIMIT_AS}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
        {"RLIMIT_NICE", RLIMIT_NICE}, {"RLIMIT_RTPRIO", RLIMIT_RTPRIO}, {"RLIMIT_RTTIME", RLIMIT_RTTIME},
        {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING}, {"RUSAGE_SELF", RUSAGE_SELF},
        {"RUSAGE_CHILDREN", RUSAGE_CHILDREN}, {"RUSAGE_THREAD", RUSAGE_THREAD},
        {"RLIM_INFINITY", (int64_t)RLIM_INFINITY}};
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (module_set(vm, mod, consts[i].name, val_int(consts[i].value)) < 0) return -1;
    if (module_set(vm, mod, "error", val_obj(vm->e_OSError)) < 0) return -1;
    return module_set(vm, mod, "struct_rusage", vm->lib[VM_LIB_rusage_type]);
}
