/* vm/mod_posix_proc.c — processes for the posix module: fork (with register_at_fork's hooks),
 * the exec family, waitpid / wait and the W* status macros, waitstatus_to_exitcode, kill,
 * killpg, _exit, system, scheduling priority (nice, getpriority, setpriority) and CPU affinity
 * (sched_getaffinity, sched_setaffinity, sched_yield). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/bigint.h"
#include "vm/codecs.h"
#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/mod_posix.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static int int_of(VM *vm, Value v, int64_t *out) {
    if (val_is_float(v)) {
        vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
        return -1;
    }
    return vm_index(vm, v, out);
}

/* ---- register_at_fork ----------------------------------------------------------------------- */

static int hook_list(VM *vm, VmLibSlot slot, ListObj **out) {
    if (val_is_null(vm->lib[slot])) {
        ListObj *l = list_new(vm, 0);
        if (!l) return -1;
        vm->lib[slot] = val_obj(l);
    }
    *out = AS_LIST(vm->lib[slot]);
    return 0;
}

static Value p_register_at_fork(ARGS) {
    static const char *const names[] = {"before", "after_in_child", "after_in_parent"};
    Value a[3];
    if (native_parse_args(vm, "register_at_fork", argc, argv, kw, 0, 0, names, 3, a) < 0) return val_null();
    if (val_is_null(a[0]) && val_is_null(a[1]) && val_is_null(a[2]))
        return vm_raise(vm, vm->e_TypeError, "At least one argument is required.");
    static const VmLibSlot slots[3] = {VM_LIB_fork_before, VM_LIB_fork_child, VM_LIB_fork_parent};
    for (int i = 0; i < 3; i++)
        if (!val_is_null(a[i]) && !vm_is_callable(vm, a[i]))
            return vm_raise(vm, vm->e_TypeError, "'%s' must be callable, not %s", names[i], vm_type_name(vm, a[i]));
    for (int i = 0; i < 3; i++) {
        if (val_is_null(a[i])) continue;
        ListObj *l;
        if (hook_list(vm, slots[i], &l) < 0 || list_append(vm, l, a[i]) < 0) return val_null();
    }
    return val_none();
}

/* Run the hooks of a slot (before: last registered first); an exception in one is reported
 * and the rest still run, as CPython does. */
static void run_hooks(VM *vm, VmLibSlot slot, bool reverse) {
    if (val_is_null(vm->lib[slot])) return;
    ListObj *l = AS_LIST(vm->lib[slot]);
    for (int64_t k = 0; k < l->len; k++) {
        int64_t i = reverse ? l->len - 1 - k : k;
        Value r = vm_call0(vm, l->items[i]);
        if (val_is_null(r)) {
            Value e = vm_fetch_exc(vm);
            fflush(vm->out);
            fprintf(vm->err, "Exception ignored in: %s\n", "fork hook");
            vm_print_exception(vm, e, vm->err);
        }
        l = AS_LIST(vm->lib[slot]);
    }
}

static Value p_fork(ARGS) {
    run_hooks(vm, VM_LIB_fork_before, true);
    fflush(vm->out);
    fflush(vm->err);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        run_hooks(vm, VM_LIB_fork_parent, false);
        errno = e;
        return posix_error(vm);
    }
    run_hooks(vm, pid == 0 ? VM_LIB_fork_child : VM_LIB_fork_parent, false);
    return val_int(pid);
}

/* ---- exec ----------------------------------------------------------------------------------- */

/* A NULL-terminated array of C strings from a list/tuple of str/bytes/PathLike; the
 * converted objects stay in *holder (a list the caller roots). */
static char **cstr_array(VM *vm, Value seq, const char *what, ListObj **holder) {
    Value h = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, seq, &n, &h);
    if (!items) return NULL;
    vm_push_root(vm, h);
    ListObj *keep = list_new(vm, n);
    if (!keep) {
        vm_pop_root(vm);
        return NULL;
    }
    vm_push_root(vm, val_obj(keep));
    char **arr = calloc((size_t)n + 1, sizeof(char *));
    for (int64_t i = 0; i < n; i++) {
        PathArg p;
        if (posix_path_arg(vm, items[i], what, "args", false, false, &p) < 0) {
            free(arr);
            vm_pop_roots(vm, 2);
            return NULL;
        }
        int rc = list_append(vm, keep, val_is_null(p.converted) ? items[i] : p.converted);
        vm_pop_root(vm);
        if (rc < 0) {
            free(arr);
            vm_pop_roots(vm, 2);
            return NULL;
        }
        arr[i] = (char *)p.path;
    }
    vm_pop_roots(vm, 2);
    *holder = keep;
    return arr;
}

static char **env_array(VM *vm, Value env, ListObj **holder) {
    Value items = vm_call_method(vm, env, "items", 0, NULL);
    if (val_is_null(items)) return NULL;
    ListObj *l = vm_list_from_iterable(vm, items);
    if (!l) return NULL;
    vm_push_root(vm, val_obj(l));
    ListObj *keep = list_new(vm, l->len);
    if (!keep) {
        vm_pop_root(vm);
        return NULL;
    }
    vm_push_root(vm, val_obj(keep));
    char **arr = calloc((size_t)l->len + 1, sizeof(char *));
    for (int64_t i = 0; i < l->len; i++) {
        Value kv = l->items[i];
        if (!vm_isinstance_type(vm, kv, vm->t_tuple) || AS_TUPLE(kv)->len != 2) {
            vm_raise(vm, vm->e_TypeError, "env.keys() or env.values() is not a list");
            goto fail;
        }
        BytesObj *parts[2];
        for (int k = 0; k < 2; k++) {
            Value x = AS_TUPLE(kv)->items[k];
            if (vm_isinstance_type(vm, x, vm->t_str)) {
                parts[k] = codec_fs_encode(vm, AS_STR(x));
                if (!parts[k]) goto fail;
            } else if (vm_isinstance_type(vm, x, vm->t_bytes)) {
                parts[k] = (BytesObj *)x.as.o;
            } else {
                vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s", vm_type_name(vm, x));
                goto fail;
            }
            vm_push_root(vm, val_obj(parts[k]));
        }
        if (memchr(parts[0]->data, '=', (size_t)parts[0]->len)) {
            vm_pop_roots(vm, 2);
            vm_raise(vm, vm->e_ValueError, "illegal environment variable name");
            goto fail;
        }
        StrBuf b;
        sb_init(&b);
        sb_add(&b, (const char *)parts[0]->data, parts[0]->len);
        sb_addc(&b, '=');
        sb_add(&b, (const char *)parts[1]->data, parts[1]->len);
        BytesObj *e = bytes_new(vm, (const uint8_t *)b.data, b.len);
        sb_free(&b);
        vm_pop_roots(vm, 2);
        if (!e || list_append(vm, keep, val_obj(e)) < 0) goto fail;
        arr[i] = (char *)e->data;
    }
    vm_pop_roots(vm, 2);
    *holder = keep;
    return arr;
fail:
    free(arr);
    vm_pop_roots(vm, 2);
    return NULL;
}

/* execv(path, argv) / execve(path, argv, env) */
static Value p_exec(ARGS) {
    bool with_env = fn->data != NULL;
    const char *fname = with_env ? "execve" : "execv";
    if (!vm_isinstance_type(vm, argv[1], vm->t_list) && !vm_isinstance_type(vm, argv[1], vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "%s() arg 2 must be a tuple or list", fname);
    int64_t n = vm_len(vm, argv[1]);
    if (n < 1) return vm_raise(vm, vm->e_ValueError, "%s() arg 2 must not be empty", fname);
    PathArg p;
    if (posix_path_arg(vm, argv[0], fname, "path", with_env, false, &p) < 0) return val_null();
    ListObj *ka = NULL, *ke = NULL;
    char **args = cstr_array(vm, argv[1], fname, &ka);
    if (!args) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(ka));
    if (!args[0][0]) {
        free(args);
        vm_pop_roots(vm, 2);
        return vm_raise(vm, vm->e_ValueError, "%s() arg 2 first element cannot be empty", fname);
    }
    char **env = NULL;
    if (with_env) {
        env = env_array(vm, argv[2], &ke);
        if (!env) {
            free(args);
            vm_pop_roots(vm, 2);
            return val_null();
        }
    }
    fflush(vm->out);
    fflush(vm->err);
    if (with_env && p.fd >= 0) fexecve(p.fd, args, env);
    else if (with_env) execve(p.path, args, env);
    else execv(p.path, args);
    int e = errno;
    free(args);
    free(env);
    errno = e;
    Value r = posix_error(vm);
    vm_pop_roots(vm, 2);
    return r;
}

static Value p_exit(ARGS) {
    int64_t n;
    if (int_of(vm, argv[0], &n) < 0) return val_null();
    _exit((int)n);
}

static Value p_system(ARGS) {
    static const char *const names[] = {"command"};
    Value a[1];
    if (native_parse_args(vm, "system", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    PathArg p;
    if (posix_path_arg(vm, a[0], "system", "command", false, false, &p) < 0) return val_null();
    fflush(vm->out);
    fflush(vm->err);
    int r = system(p.path);
    vm_pop_root(vm);
    return val_int(r);
}

/* ---- waiting ---------------------------------------------------------------------------------- */

static Value pid_status(VM *vm, pid_t pid, int status) {
    TupleObj *t = tuple_pack(vm, 2, val_int(pid), val_int(status));
    return t ? val_obj(t) : val_null();
}

static Value p_waitpid(ARGS) {
    int64_t pid, options;
    if (int_of(vm, argv[0], &pid) < 0 || int_of(vm, argv[1], &options) < 0) return val_null();
    int status = 0;
    pid_t r;
    do r = waitpid((pid_t)pid, &status, (int)options);
    while (r < 0 && errno == EINTR);
    if (r < 0) return posix_error(vm);
    return pid_status(vm, r, status);
}

static Value p_wait(ARGS) {
    int status = 0;
    pid_t r;
    do r = wait(&status);
    while (r < 0 && errno == EINTR);
    if (r < 0) return posix_error(vm);
    return pid_status(vm, r, status);
}

static Value p_wmacro(ARGS) {
    int64_t s;
    if (int_of(vm, argv[0], &s) < 0) return val_null();
    int st = (int)s;
    switch ((intptr_t)fn->data) {
    case 0: return val_bool(WIFEXITED(st));
    case 1: return val_int(WEXITSTATUS(st));
    case 2: return val_bool(WIFSIGNALED(st));
    case 3: return val_int(WTERMSIG(st));
    case 4: return val_bool(WIFSTOPPED(st));
    case 5: return val_int(WSTOPSIG(st));
    case 6: return val_bool(WCOREDUMP(st));
    default: return val_bool(WIFCONTINUED(st));
    }
}

static Value p_waitstatus_to_exitcode(ARGS) {
    static const char *const names[] = {"status"};
    Value a[1];
    if (native_parse_args(vm, "waitstatus_to_exitcode", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    int64_t s;
    if (int_of(vm, a[0], &s) < 0) return val_null();
    int st = (int)s;
    if (WIFEXITED(st)) return val_int(WEXITSTATUS(st));
    if (WIFSIGNALED(st)) return val_int(-WTERMSIG(st));
    return vm_raise(vm, vm->e_ValueError, "invalid wait status: %d", st);
}

static Value p_kill(ARGS) {
    int64_t pid, sig;
    if (int_of(vm, argv[0], &pid) < 0 || int_of(vm, argv[1], &sig) < 0) return val_null();
    int r = fn->data ? killpg((pid_t)pid, (int)sig) : kill((pid_t)pid, (int)sig);
    if (r < 0) return posix_error(vm);
    return val_none();
}

/* nice(increment) -> the new niceness; -1 is a valid niceness, so errno tells failure apart */
static Value p_nice(ARGS) {
    int64_t inc;
    if (int_of(vm, argv[0], &inc) < 0) return val_null();
    errno = 0;
    int r = nice((int)inc);
    if (r == -1 && errno != 0) return posix_error(vm);
    return val_int(r);
}

static Value p_getpriority(ARGS) {
    int64_t which, who;
    if (int_of(vm, argv[0], &which) < 0 || int_of(vm, argv[1], &who) < 0) return val_null();
    errno = 0;
    int r = getpriority((int)which, (id_t)who);
    if (r == -1 && errno != 0) return posix_error(vm);
    return val_int(r);
}

static Value p_setpriority(ARGS) {
    int64_t which, who, prio;
    if (int_of(vm, argv[0], &which) < 0 || int_of(vm, argv[1], &who) < 0 || int_of(vm, argv[2], &prio) < 0)
        return val_null();
    if (setpriority((int)which, (id_t)who, (int)prio) < 0) return posix_error(vm);
    return val_none();
}

/* ---- CPU affinity (training scripts size their DataLoader workers by len(sched_getaffinity(0))) -- */

static Value p_sched_getaffinity(ARGS) {
    int64_t pid;
    if (int_of(vm, argv[0], &pid) < 0) return val_null();
    int ncpus = 1024;
    for (;;) {
        cpu_set_t *mask = CPU_ALLOC(ncpus);
        if (!mask) return vm_no_memory(vm);
        size_t size = CPU_ALLOC_SIZE(ncpus);
        if (sched_getaffinity((pid_t)pid, size, mask) == 0) {
            SetObj *set = set_new(vm, vm->t_set);
            if (!set) {
                CPU_FREE(mask);
                return val_null();
            }
            vm_push_root(vm, val_obj(set));
            for (int cpu = 0, left = CPU_COUNT_S(size, mask); left > 0 && cpu < ncpus; cpu++)
                if (CPU_ISSET_S(cpu, size, mask)) {
                    left--;
                    if (set_add(vm, set, val_int(cpu)) < 0) {
                        vm_pop_root(vm);
                        CPU_FREE(mask);
                        return val_null();
                    }
                }
            vm_pop_root(vm);
            CPU_FREE(mask);
            return val_obj(set);
        }
        int err = errno;
        CPU_FREE(mask);
        /* a kernel with more CPUs than the mask holds: EINVAL, try a larger one */
        if (err != EINVAL || ncpus > (1 << 22)) {
            errno = err;
            return posix_error(vm);
        }
        ncpus *= 2;
    }
}

static Value p_sched_setaffinity(ARGS) {
    int64_t pid;
    if (int_of(vm, argv[0], &pid) < 0) return val_null();
    ListObj *cpus = vm_list_from_iterable(vm, argv[1]);
    if (!cpus) return val_null();
    vm_push_root(vm, val_obj(cpus));
    int64_t max = -1;
    for (int64_t i = 0; i < cpus->len; i++) {
        int64_t c;
        if (!val_is_intlike(cpus->items[i]) && !val_is_intobj(cpus->items[i])) {
            vm_raise(vm, vm->e_TypeError, "expected an iterator of ints, but iterator yielded <class '%s'>",
                     vm_type_name(vm, cpus->items[i]));
            goto fail;
        }
        if (int_of(vm, cpus->items[i], &c) < 0) goto fail;
        if (c < 0) {
            vm_raise(vm, vm->e_ValueError, "negative CPU number");
            goto fail;
        }
        if (c > (1 << 22)) {
            vm_raise(vm, vm->e_OverflowError, "invalid CPU number");
            goto fail;
        }
        if (c > max) max = c;
    }
    int ncpus = max < 1024 ? 1024 : (int)max + 1;
    cpu_set_t *mask = CPU_ALLOC(ncpus);
    if (!mask) {
        vm_no_memory(vm);
        goto fail;
    }
    size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, mask);
    for (int64_t i = 0; i < cpus->len; i++) CPU_SET_S((size_t)val_as_intlike(cpus->items[i]), size, mask);
    int r = sched_setaffinity((pid_t)pid, size, mask);
    CPU_FREE(mask);
    vm_pop_root(vm);
    return r < 0 ? posix_error(vm) : val_none();
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value p_sched_yield(ARGS) {
    sched_yield();
    return val_none();
}

int posix_proc_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"register_at_fork", p_register_at_fork}, {"fork", p_fork, ARITY_NOARGS},
        {"execv", p_exec, ARITY_POS(2, 2)}, {"execve", p_exec, ARITY_POS(3, 3), (void *)1},
        {"_exit", p_exit, ARITY_O}, {"system", p_system}, {"waitpid", p_waitpid, ARITY_POS(2, 2)},
        {"wait", p_wait, ARITY_NOARGS}, {"WIFEXITED", p_wmacro, ARITY_O, (void *)0},
        {"WEXITSTATUS", p_wmacro, ARITY_O, (void *)1}, {"WIFSIGNALED", p_wmacro, ARITY_O, (void *)2},
        {"WTERMSIG", p_wmacro, ARITY_O, (void *)3}, {"WIFSTOPPED", p_wmacro, ARITY_O, (void *)4},
        {"WSTOPSIG", p_wmacro, ARITY_O, (void *)5}, {"WCOREDUMP", p_wmacro, ARITY_O, (void *)6},
        {"WIFCONTINUED", p_wmacro, ARITY_O, (void *)7}, {"waitstatus_to_exitcode", p_waitstatus_to_exitcode},
        {"kill", p_kill, ARITY_POS(2, 2)}, {"killpg", p_kill, ARITY_POS(2, 2), (void *)1},
        {"nice", p_nice, ARITY_O}, {"getpriority", p_getpriority, ARITY_POS(2, 2)},
        {"setpriority", p_setpriority, ARITY_POS(3, 3)}, {"sched_getaffinity", p_sched_getaffinity, ARITY_O},
        {"sched_setaffinity", p_sched_setaffinity, ARITY_POS(2, 2)}, {"sched_yield", p_sched_yield, ARITY_NOARGS},
        {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    static const struct { const char *n; int v; } consts[] = {
        {"WNOHANG", WNOHANG}, {"WUNTRACED", WUNTRACED}, {"WCONTINUED", WCONTINUED}, {"WEXITED", WEXITED},
        {"WSTOPPED", WSTOPPED}, {"WNOWAIT", WNOWAIT},
        {"PRIO_PROCESS", PRIO_PROCESS}, {"PRIO_PGRP", PRIO_PGRP}, {"PRIO_USER", PRIO_USER}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return 0;
}
