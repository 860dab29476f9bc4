/* src/torch/index_ops.c — the native side of torch/_indexing.py (scatter, scatter_reduce,
 * kthvalue, unique, nonzero, bincount, histc, index_copy/index_fill, tensor_split, unfold,
 * meshgrid, take, ...): PyTorch's signatures are parsed in Python, which runs the op table's ops
 * through torch._C._index_op; the Tensor methods of those functions call the one Python
 * definition with self first.  scatter_ / scatter_reduce_ run the table's in-place ops (their
 * own autograd nodes, as PyTorch's); index_copy_ / index_fill_ (decompositions) run the
 * out-of-place function and copy_ its result into self (a recorded in-place op: version
 * counter, autograd and compiled graphs see it). */
#include <string.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)

/* the ops torch/_indexing.py runs (nothing else goes through _index_op) */
static const TensorOp index_ops[] = {
    TENSOR_OP_SCATTER, TENSOR_OP_SCATTER_ADD, TENSOR_OP_SCATTER_REDUCE, TENSOR_OP_KTHVALUE, TENSOR_OP_UNIQUE,
    TENSOR_OP_NONZERO, TENSOR_OP_BINCOUNT, TENSOR_OP_HISTC, TENSOR_OP_INDEX_PUT, TENSOR_OP_AS_STRIDED,
    TENSOR_OP_SCATTER_, TENSOR_OP_SCATTER_REDUCE_,
};

static int find_op(const char *name, TensorOp *op) {
    for (size_t i = 0; i < sizeof index_ops / sizeof index_ops[0]; i++)
        if (strcmp(tensor_op_name(index_ops[i]), name) == 0) {
            *op = index_ops[i];
            return 0;
        }
    return -1;
}

static int int_list(VM *vm, Value v, int64_t *out, int32_t *n) {
    int nd = 0;
    if (torch_shape_value(vm, v, out, &nd, "_index_op") < 0) return -1;
    *n = nd;
    return 0;
}

/* _index_op(name, inputs, dim=0, start=0, keepdim=False, has_dim=False, accumulate=False,
 *           scalar=0, scalar2=0, ints=None, ints2=None): the op's outputs (a tensor, or a tuple;
 *           kthvalue: torch.return_types.kthvalue) */
static Value f_index_op(ARGS) {
    static const char *const names[] = {"name", "inputs", "dim", "start", "keepdim", "has_dim", "accumulate",
                                        "scalar", "scalar2", "ints", "ints2"};
    Value a[11];
    if (native_parse_args(vm, "_index_op", argc, argv, kw, 2, 2, names, 11, a) < 0) return val_null();
    if (!val_is_str(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "_index_op(): name must be a str");
    TensorOp op;
    if (find_op(AS_STR(a[0])->data, &op) < 0)
        return vm_raise(vm, vm->e_ValueError, "_index_op(): no op '%s'", AS_STR(a[0])->data);
    Value seq = a[1];
    if (!val_is_obj(seq) || (!vm_isinstance_type(vm, seq, vm->t_tuple) && !vm_isinstance_type(vm, seq, vm->t_list)))
        return vm_raise(vm, vm->e_TypeError, "_index_op(): inputs must be a tuple or list");
    bool is_tuple = vm_isinstance_type(vm, seq, vm->t_tuple);
    int64_t n = is_tuple ? ((TupleObj *)seq.as.o)->len : ((ListObj *)seq.as.o)->len;
    const Value *items = is_tuple ? ((TupleObj *)seq.as.o)->items : ((ListObj *)seq.as.o)->items;
    if (n > 8) return vm_raise(vm, vm->e_ValueError, "_index_op(): too many inputs");
    Tensor *in[8];
    for (int64_t i = 0; i < n; i++) {
        if (val_is_none(items[i])) in[i] = NULL;
        else if (torch_is_tensor(vm, items[i])) in[i] = T(items[i]);
        else return vm_raise(vm, vm->e_TypeError, "_index_op(): inputs must be tensors or None");
    }
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    int64_t ints[TENSOR_MAX_DIMS], ints2[TENSOR_MAX_DIMS];
    if (!val_is_null(a[2]) && torch_int_arg(vm, a[2], "dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[3]) && torch_int_arg(vm, a[3], "start", &args.start) < 0) return val_null();
    if (!val_is_null(a[4]) && torch_bool_arg(vm, a[4], &args.keepdim) < 0) return val_null();
    if (!val_is_null(a[5]) && torch_bool_arg(vm, a[5], &args.has_dim) < 0) return val_null();
    if (!val_is_null(a[6]) && torch_bool_arg(vm, a[6], &args.accumulate) < 0) return val_null();
    if (!val_is_null(a[7]) && !torch_scalar_of(vm, a[7], &args.scalar))
        return vm_raise(vm, vm->e_TypeError, "_index_op(): scalar must be a number");
    if (!val_is_null(a[8]) && !torch_scalar_of(vm, a[8], &args.scalar2))
        return vm_raise(vm, vm->e_TypeError, "_index_op(): scalar2 must be a number");
    if (!val_is_null(a[9]) && !val_is_none(a[9])) {
        if (int_list(vm, a[9], ints, &args.n_ints) < 0) return val_null();
        args.ints = ints;
    }
    if (!val_is_null(a[10]) && !val_is_none(a[10])) {
        if (int_list(vm, a[10], ints2, &args.n_ints2) < 0) return val_null();
        args.ints2 = ints2;
    }
    Tensor *out[3] = {NULL, NULL, NULL};
    int no = ag_op_run(op, in, (int)n, &args, out, 3);
    if (no < 0) return torch_raise_error(vm);
    if (no == 1) return torch_wrap(vm, out[0]);
    TupleObj *t = tuple_new(vm, no);
    if (!t) {
        for (int i = 0; i < no; i++) tensor_decref(out[i]);
        return val_null();
    }
    vm_push_root(vm, val_obj(t));
    for (int i = 0; i < no; i++) {
        Value v = torch_wrap(vm, out[i]);
        out[i] = NULL;
        if (val_is_null(v)) {
            for (int j = i + 1; j < no; j++) tensor_decref(out[j]);
            vm_pop_root(vm);
            return v;
        }
        t->items[i] = v;
    }
    Value r = op == TENSOR_OP_KTHVALUE ? torch_return_pair(vm, "kthvalue", t->items[0], t->items[1]) : val_obj(t);
    vm_pop_root(vm);
    return r;
}

/* Tensor.<name>(...) = torch._indexing.<name>(self, ...) */
static Value m_python(ARGS) {
    if (argc < 1 || !torch_is_tensor(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'input' must be Tensor", fn->name);
    Value mod = vm_import_module(vm, "torch._indexing");
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, fn->name);
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

/* torch.<name>(...) = torch._indexing.<name>(...): a torch._C function, so the tracer runs it
 * over fake tensors as one torch function (its ops recorded, data-dependent ones breaking) */
static Value f_python(ARGS) {
    Value mod = vm_import_module(vm, "torch._indexing");
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, fn->name);
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

/* Tensor.<name>_(...): self.copy_(self.<name>(...)), returning self */
static Value m_inplace(ARGS) {
    if (argc < 1 || !torch_is_tensor(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'input' must be Tensor", fn->name);
    Value f = vm_getattr_c(vm, argv[0], (const char *)fn->data);
    if (val_is_null(f)) return f;
    vm_push_root(vm, f);
    Value r = vm_call(vm, f, argc - 1, argv + 1, kw);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    if (!torch_is_tensor(vm, r)) return vm_raise(vm, vm->e_TypeError, "%s(): expected a tensor result", fn->name);
    vm_push_root(vm, r);
    Tensor *in[2] = {T(argv[0]), T(r)};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    Tensor *out = ag_op1(TENSOR_OP_COPY_, in, 2, &args);
    vm_pop_root(vm);
    return torch_result(vm, out);
}

int torch_index_ops_init(VM *vm, Value cmod) {
    static const MethodDef fns[] = {{"_index_op", f_index_op}, {NULL}};
    if (module_add_functions(vm, cmod, fns) < 0) return -1;
    static const MethodDef pyfns[] = {
        {"kthvalue", f_python}, {"scatter", f_python}, {"scatter_reduce", f_python}, {"index_copy", f_python},
        {"index_fill", f_python}, {"unique", f_python}, {"unique_consecutive", f_python}, {"nonzero", f_python},
        {"argwhere", f_python}, {"count_nonzero", f_python}, {"bincount", f_python}, {"histc", f_python},
        {"tensor_split", f_python}, {"meshgrid", f_python}, {"take", f_python}, {"take_along_dim", f_python},
        {NULL}};
    if (torch_add_overridable(vm, cmod, pyfns) < 0) return -1;
    static const MethodDef tm[] = {
        {"kthvalue", m_python, NATIVEF_METHOD}, {"scatter", m_python, NATIVEF_METHOD},
        {"scatter_reduce", m_python, NATIVEF_METHOD}, {"index_copy", m_python, NATIVEF_METHOD},
        {"index_fill", m_python, NATIVEF_METHOD}, {"unique", m_python, NATIVEF_METHOD},
        {"unique_consecutive", m_python, NATIVEF_METHOD}, {"bincount", m_python, NATIVEF_METHOD},
        {"histc", m_python, NATIVEF_METHOD}, {"nonzero", m_python, NATIVEF_METHOD},
        {"argwhere", m_python, NATIVEF_METHOD}, {"tensor_split", m_python, NATIVEF_METHOD},
        {"unfold", m_python, NATIVEF_METHOD}, {"take", m_python, NATIVEF_METHOD},
        {"take_along_dim", m_python, NATIVEF_METHOD}, {"count_nonzero", m_python, NATIVEF_METHOD},
        {"scatter_", m_python, NATIVEF_METHOD}, {"scatter_reduce_", m_python, NATIVEF_METHOD},
        {"index_copy_", m_inplace, NATIVEF_METHOD, (void *)"index_copy"},
        {"index_fill_", m_inplace, NATIVEF_METHOD, (void *)"index_fill"},
        {NULL}};
    return type_add_methods(vm, torch_state(vm)->t_tensor, tm);
}
