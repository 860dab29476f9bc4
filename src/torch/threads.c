/* threads.c — torch.set_num_threads / get_num_threads and the inter-op pair: the script face of
 * the tensor library's one thread-count setting (src/tensor/parallel.h sizes the intra-op pool
 * and OpenBLAS by it).  Arguments are checked as torch/csrc/Module.cpp checks them (1.13): an int
 * that is not a bool, cut to a C int as C++ casts it, then positive. */
#include "src/torch/torch.h"
#include "vm/bigint.h"
#include "vm/native.h"

/* n as PyTorch reads it: -1 with the exception set */
static int thread_count_arg(VM *vm, const char *name, int argc, Value *argv, TupleObj *kw, int *out) {
    if (kw && kw->len > 0) {
        vm_raise(vm, vm->e_TypeError, "torch.%s() takes no keyword arguments", name);
        return -1;
    }
    if (argc != 1) {
        vm_raise(vm, vm->e_TypeError, "torch.%s() takes exactly one argument (%d given)", name, argc);
        return -1;
    }
    Value v = argv[0];
    int64_t n;
    if (val_is_int(v)) {
        n = v.as.i;
    } else if (val_is_intobj(v)) {
        /* THPUtils_unpackLong: beyond int64 is an overflow (1.13 aborts the process there) */
        if (bigint_as_i64(vm, v, &n) < 0) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_RuntimeError, "Overflow when unpacking long");
            return -1;
        }
    } else {
        vm_raise(vm, vm->e_RuntimeError, "%s expects an int, but got %s", name, vm_type_name(vm, v));
        return -1;
    }
    int c = (int)(int32_t)(uint32_t)(uint64_t)n;   /* the C++ int cast: low 32 bits */
    if (c <= 0) {
        vm_raise(vm, vm->e_RuntimeError, "%s expects a positive integer", name);
        return -1;
    }
    *out = c;
    return 0;
}

static int no_args(VM *vm, const char *name, int argc, TupleObj *kw) {
    if (kw && kw->len > 0) {
        vm_raise(vm, vm->e_TypeError, "torch.%s() takes no keyword arguments", name);
        return -1;
    }
    if (argc != 0) {
        vm_raise(vm, vm->e_TypeError, "torch.%s() takes no arguments (%d given)", name, argc);
        return -1;
    }
    return 0;
}

static Value set_num_threads(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    int n;
    if (thread_count_arg(vm, "set_num_threads", argc, argv, kw, &n) < 0) return val_null();
    tensor_set_num_threads(n);
    return val_none();
}

static Value get_num_threads(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argv, (void)fn;
    if (no_args(vm, "get_num_threads", argc, kw) < 0) return val_null();
    return val_int(tensor_get_num_threads());
}

static Value set_num_interop_threads(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    int n;
    if (thread_count_arg(vm, "set_num_interop_threads", argc, argv, kw, &n) < 0) return val_null();
    if (tensor_set_num_interop_threads(n) < 0)
        return vm_raise(vm, vm->e_RuntimeError,
                        "Error: cannot set number of interop threads after parallel work has started or "
                        "set_num_interop_threads called");
    return val_none();
}

static Value get_num_interop_threads(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argv, (void)fn;
    if (no_args(vm, "get_num_interop_threads", argc, kw) < 0) return val_null();
    return val_int(tensor_get_num_interop_threads());
}

int torch_threads_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"_set_num_threads", set_num_threads},
        {"_get_num_threads", get_num_threads},
        {"_set_num_interop_threads", set_num_interop_threads},
        {"_get_num_interop_threads", get_num_interop_threads},
        {NULL}};
    return torch_add_overridable(vm, mod, fns);
}
