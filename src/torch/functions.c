/* src/torch/functions.c — the torch.* functions: tensor creation (tensor, zeros, ones, full,
 * arange, linspace, eye, the random ones, *_like), cat/stack/where, the math functions that share
 * the Tensor methods' natives, the nn.functional kernels (torch._C._nn), grad mode, and
 * the return_types pairs of max/min. */
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)

const MethodDef *torch_find_native(const char *name);

/* ---- creation -------------------------------------------------------------------------------------- */

/* Common keywords of creation functions: dtype=, requires_grad=, device=, layout=, out= */
typedef struct CreateKw {
    TensorDtype dtype;
    bool requires_grad;
    TensorMemoryFormat memory_format;   /* UNSET unless given */
} CreateKw;

/* Split argv/kw into positional args and creation keywords; other keywords are left in
 * `rest` for the caller ("fill_value", "steps", ...). */
static int creation_kw(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, CreateKw *ck,
                       const char *const *extra_names, int nextra, Value *extra) {
    ck->dtype = TENSOR_DTYPE_DEFAULT;
    ck->requires_grad = false;
    ck->memory_format = TENSOR_MF_UNSET;
    for (int i = 0; i < nextra; i++) extra[i] = val_null();
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        Value v = argv[argc + k];
        if (str_eq_c(n, "dtype")) {
            if (torch_dtype_of(vm, v, &ck->dtype) < 0) return -1;
        } else if (str_eq_c(n, "requires_grad")) {
            if (torch_bool_arg(vm, v, &ck->requires_grad) < 0) return -1;
        } else if (str_eq_c(n, "device")) {
            if (val_is_str(vm, v) && strcmp(AS_STR(v)->data, "cpu") != 0) {
                vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: device '%s' is not available", AS_STR(v)->data);
                return -1;
            }
        } else if (str_eq_c(n, "memory_format")) {
            if (torch_memory_format_of(vm, v, &ck->memory_format) < 0) return -1;
        } else if (str_eq_c(n, "layout") || str_eq_c(n, "pin_memory")) {
            /* accepted, meaningless on Ember's CPU tensors */
        } else {
            int j = 0;
            for (; j < nextra; j++)
                if (str_eq_c(n, extra_names[j])) break;
            if (j == nextra) {
                vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument '%s'", fname, n->data);
                return -1;
            }
            extra[j] = v;
        }
    }
    return 0;
}

static Value finish_creation(VM *vm, Tensor *t, const CreateKw *ck) {
    if (!t) return torch_raise_error(vm);
    if (ck->requires_grad && !tensor_dtype_is_floating(tensor_dtype(t))) {
        tensor_decref(t);   /* a factory's requires_grad= words it as TensorImpl::set_requires_grad does */
        return vm_raise(vm, vm->e_RuntimeError, "Only Tensors of floating point and complex dtype can require gradients");
    }
    if (ck->requires_grad && ag_set_requires_grad(t, true) < 0) {
        tensor_decref(t);
        return torch_raise_error(vm);
    }
    return torch_wrap(vm, t);
}

static Value f_tensor(ARGS) {
    CreateKw ck;
    if (creation_kw(vm, "tensor", argc, argv, kw, &ck, NULL, 0, NULL) < 0) return val_null();
    if (argc != 1) return vm_raise(vm, vm->e_TypeError, "tensor() takes 1 positional argument but %d were given", argc);
    Tensor *t = torch_tensor_from_data(vm, argv[0], ck.dtype);
    if (!t) return val_null();
    return finish_creation(vm, t, &ck);
}

/* zeros/ones/empty/rand/randn(*size) (fn->data: the TensorOp) */
static Value f_sized(ARGS) {
    CreateKw ck;
    Value extra[2];
    static const char *const en[] = {"size", "generator"};
    if (creation_kw(vm, fn->name, argc, argv, kw, &ck, en, 2, extra) < 0) return val_null();
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    if (!val_is_null(extra[1]) && op != TENSOR_OP_RAND && op != TENSOR_OP_RANDN)
        return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument 'generator'", fn->name);
    if (torch_generator_arg(vm, extra[1], fn->name, &a.gen) < 0) return val_null();
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (!val_is_null(extra[0])) {
        if (torch_shape_value(vm, extra[0], shape, &nd, fn->name) < 0) return val_null();
    } else if (torch_shape_args(vm, argc, argv, shape, &nd, fn->name) < 0) {
        return val_null();
    }
    a.ints = shape;
    a.n_ints = nd;
    a.dtype = ck.dtype;
    if (ck.memory_format != TENSOR_MF_UNSET && op != TENSOR_OP_EMPTY)
        return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument 'memory_format'", fn->name);
    Tensor *out = NULL;
    if (tensor_op_run(op, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    if (ck.memory_format != TENSOR_MF_UNSET) {
        /* empty(..., memory_format=): the new tensor laid out in it (its values are unspecified) */
        TensorOpArgs c = TENSOR_OP_ARGS_INIT;
        c.memory_format = (uint8_t)ck.memory_format;
        Tensor *laid = NULL;
        int rc = tensor_op_run(TENSOR_OP_CONTIGUOUS, &out, 1, &c, &laid, 1);
        tensor_decref(out);
        if (rc < 0) return torch_raise_error(vm);
        out = laid;
    }
    return finish_creation(vm, out, &ck);
}

static Value f_full(ARGS) {
    CreateKw ck;
    Value extra[2];
    static const char *const en[] = {"size", "fill_value"};
    if (creation_kw(vm, "full", argc, argv, kw, &ck, en, 2, extra) < 0) return val_null();
    Value size = argc > 0 ? argv[0] : extra[0], fill = argc > 1 ? argv[1] : extra[1];
    if (val_is_null(size) || val_is_null(fill)) return vm_raise(vm, vm->e_TypeError, "full() missing required arguments: 'size' and 'fill_value'");
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (torch_shape_value(vm, size, shape, &nd, "full") < 0) return val_null();
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = nd;
    a.dtype = ck.dtype;
    if (!torch_scalar_of(vm, fill, &a.scalar)) return vm_raise(vm, vm->e_TypeError, "full(): fill_value must be a number");
    Tensor *out = NULL;
    if (tensor_op_run(TENSOR_OP_FULL, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

static Value f_arange(ARGS) {
    CreateKw ck;
    Value extra[3];
    static const char *const en[] = {"start", "end", "step"};
    if (creation_kw(vm, "arange", argc, argv, kw, &ck, en, 3, extra) < 0) return val_null();
    Value v[3] = {val_null(), val_null(), val_null()};
    if (argc == 1) v[1] = argv[0];
    else for (int i = 0; i < argc && i < 3; i++) v[i] = argv[i];
    for (int i = 0; i < 3; i++)
        if (!val_is_null(extra[i])) v[i] = extra[i];
    if (argc > 3) return vm_raise(vm, vm->e_TypeError, "arange() takes at most 3 positional arguments");
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = tensor_scalar_i(0);
    a.alpha = tensor_scalar_i(1);
    if (!val_is_null(v[0]) && !torch_scalar_of(vm, v[0], &a.scalar)) return vm_raise(vm, vm->e_TypeError, "arange(): start must be a number");
    if (val_is_null(v[1]) || !torch_scalar_of(vm, v[1], &a.scalar2)) return vm_raise(vm, vm->e_TypeError, "arange(): end must be a number");
    if (!val_is_null(v[2]) && !torch_scalar_of(vm, v[2], &a.alpha)) return vm_raise(vm, vm->e_TypeError, "arange(): step must be a number");
    a.dtype = ck.dtype;
    Tensor *out = NULL;
    if (tensor_op_run(TENSOR_OP_ARANGE, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

static Value f_linspace(ARGS) {
    CreateKw ck;
    Value extra[3];
    static const char *const en[] = {"start", "end", "steps"};
    if (creation_kw(vm, "linspace", argc, argv, kw, &ck, en, 3, extra) < 0) return val_null();
    Value v[3];
    for (int i = 0; i < 3; i++) v[i] = i < argc ? argv[i] : extra[i];
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    if (val_is_null(v[0]) || !torch_scalar_of(vm, v[0], &a.scalar) || val_is_null(v[1]) ||
        !torch_scalar_of(vm, v[1], &a.scalar2) || val_is_null(v[2]) || !val_is_intlike(v[2]))
        return vm_raise(vm, vm->e_TypeError, "linspace(start, end, steps)");
    a.step = val_as_intlike(v[2]);
    a.dtype = ck.dtype;
    Tensor *out = NULL;
    if (tensor_op_run(TENSOR_OP_LINSPACE, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

/* torch._C._set_printoptions(precision, threshold, edgeitems, linewidth, sci_mode): the values
 * torch/_tensor_str.py's set_printoptions settled (threshold may be inf, sci_mode None) */
static Value f_set_printoptions(ARGS) {
    if (native_check_args(vm, "_set_printoptions", argc, kw, 5, 5) < 0) return val_null();
    TensorPrintOptions o;
    int64_t prec, edge, width;
    if (torch_int_arg(vm, argv[0], "precision", &prec) < 0 || vm_to_double(vm, argv[1], &o.threshold) < 0 ||
        torch_int_arg(vm, argv[2], "edgeitems", &edge) < 0 || torch_int_arg(vm, argv[3], "linewidth", &width) < 0)
        return val_null();
    if (prec < 0 || prec > 60 || edge < 0 || edge > (1 << 20) || width < 1 || width > (1 << 20))
        return vm_raise(vm, vm->e_ValueError, "set_printoptions: option out of range");
    o.precision = (int)prec;
    o.edgeitems = (int)edge;
    o.linewidth = (int)width;
    if (val_is_null(argv[4]) || val_is_none(argv[4])) {
        o.sci_mode = -1;
    } else {
        int truth = vm_truthy(vm, argv[4]);
        if (truth < 0) return val_null();
        o.sci_mode = truth;
    }
    tensor_set_print_options(&o);
    return val_none();
}

static Value f_eye(ARGS) {
    CreateKw ck;
    Value extra[2];
    static const char *const en[] = {"n", "m"};
    if (creation_kw(vm, "eye", argc, argv, kw, &ck, en, 2, extra) < 0) return val_null();
    Value n = argc > 0 ? argv[0] : extra[0], m = argc > 1 ? argv[1] : extra[1];
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    if (val_is_null(n) || torch_int_arg(vm, n, "n", &a.start) < 0) return val_null();
    a.end = -1;
    if (!val_is_null(m) && !val_is_none(m) && torch_int_arg(vm, m, "m", &a.end) < 0) return val_null();
    a.dtype = ck.dtype;
    Tensor *out = NULL;
    if (tensor_op_run(TENSOR_OP_EYE, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

static Value f_randint(ARGS) {
    CreateKw ck;
    Value extra[4];
    static const char *const en[] = {"low", "high", "size", "generator"};
    if (creation_kw(vm, "randint", argc, argv, kw, &ck, en, 4, extra) < 0) return val_null();
    /* randint(high, size) or randint(low, high, size) */
    Value low = val_int(0), high, size;
    if (argc == 2) {
        high = argv[0];
        size = argv[1];
    } else if (argc == 3) {
        low = argv[0];
        high = argv[1];
        size = argv[2];
    } else {
        high = extra[1];
        size = extra[2];
        if (!val_is_null(extra[0])) low = extra[0];
        if (argc == 1) high = argv[0];
    }
    if (val_is_null(high) || val_is_null(size)) return vm_raise(vm, vm->e_TypeError, "randint(low=0, high, size)");
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    if (torch_generator_arg(vm, extra[3], "randint", &a.gen) < 0) return val_null();
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (torch_shape_value(vm, size, shape, &nd, "randint") < 0) return val_null();
    int64_t lo, hi;
    if (torch_int_arg(vm, low, "low", &lo) < 0 || torch_int_arg(vm, high, "high", &hi) < 0) return val_null();
    a.scalar = tensor_scalar_i(lo);
    a.scalar2 = tensor_scalar_i(hi);
    a.ints = shape;
    a.n_ints = nd;
    a.dtype = ck.dtype;
    Tensor *out = NULL;
    if (tensor_op_run(TENSOR_OP_RANDINT, NULL, 0, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

/* zeros_like / ones_like / rand_like / randn_like / empty_like / full_like / randint_like (fn->data:
 * op), laid out as memory_format= says (default: preserve the input's layout, as ATen's
 * empty_like) */
static Value f_like(ARGS) {
    CreateKw ck;
    Value extra[2];
    static const char *const en[] = {"fill_value", "high"};
    if (creation_kw(vm, fn->name, argc, argv, kw, &ck, en, 2, extra) < 0) return val_null();
    if (argc < 1 || !torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "%s(): input must be a Tensor", fn->name);
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = ck.dtype;
    a.memory_format = (uint8_t)(ck.memory_format == TENSOR_MF_UNSET ? TENSOR_MF_PRESERVE : ck.memory_format);
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    if (op == TENSOR_OP_FULL_LIKE) {
        Value fill = argc > 1 ? argv[1] : extra[0];
        if (val_is_null(fill) || !torch_scalar_of(vm, fill, &a.scalar))
            return vm_raise(vm, vm->e_TypeError, "full_like(input, fill_value)");
    } else if (op == TENSOR_OP_RANDINT_LIKE) {
        /* randint_like(input, high) / randint_like(input, low, high) */
        Value lo = argc > 2 ? argv[1] : val_int(0), hi = argc > 2 ? argv[2] : argc > 1 ? argv[1] : extra[1];
        if (argc > 3 || val_is_null(hi) || !torch_scalar_of(vm, lo, &a.scalar) || !torch_scalar_of(vm, hi, &a.scalar2))
            return vm_raise(vm, vm->e_TypeError, "randint_like(input, low=0, high, *, dtype=None) expects integer bounds");
    } else if (argc > 1) {
        return vm_raise(vm, vm->e_TypeError, "%s() takes 1 positional argument but %d were given", fn->name, argc);
    }
    Tensor *in[1] = {T(argv[0])}, *out = NULL;
    if (tensor_op_run(op, in, 1, &a, &out, 1) < 0) return torch_raise_error(vm);
    return finish_creation(vm, out, &ck);
}

/* ---- sequences of tensors ----------------------------------------------------------------------- */

/* The tensors of a sequence argument, in a malloc'd array (*out; free it) of any length: a
 * dataset is often concatenated from one tensor per line (pytorch/examples' word_language_model
 * cats thousands).  The items stay alive through *holder (root it while they are used). */
static int64_t tensor_list(VM *vm, Value seq, Tensor ***out, Value *holder) {
    int64_t n;
    Value *items = vm_sequence_items(vm, seq, &n, holder);
    if (!items) return -1;
    Tensor **ts = malloc(sizeof(Tensor *) * (size_t)(n ? n : 1));
    if (!ts) {
        vm_no_memory(vm);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!torch_is_tensor(vm, items[i])) {
            free(ts);
            vm_raise(vm, vm->e_TypeError, "expected Tensor as element %lld in argument 0, but got %s", (long long)i,
                     vm_type_name(vm, items[i]));
            return -1;
        }
        ts[i] = T(items[i]);
    }
    *out = ts;
    return n;
}

static Value f_catstack(ARGS) {
    static const char *const names[] = {"tensors", "dim"};
    Value a[2];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Tensor **ts;
    Value holder = val_null();
    int64_t n = tensor_list(vm, a[0], &ts, &holder);
    if (n < 0) return val_null();
    bool stack = strcmp(fn->name, "stack") == 0;
    if (n == 0) {
        free(ts);
        return vm_raise(vm, vm->e_RuntimeError, stack ? "stack expects a non-empty TensorList"
                                                       : "torch.cat(): expected a non-empty list of Tensors");
    }
    if (n > INT_MAX) {
        free(ts);
        return vm_raise(vm, vm->e_RuntimeError, "%s(): too many tensors", fn->name);
    }
    int64_t dim = 0;
    vm_push_root(vm, holder);
    if (!val_is_null(a[1]) && torch_int_arg(vm, a[1], "dim", &dim) < 0) {
        vm_pop_root(vm);
        free(ts);
        return val_null();
    }
    Tensor *r = stack ? ag_stack(ts, (int)n, dim) : ag_cat(ts, (int)n, dim);
    vm_pop_root(vm);
    free(ts);
    return torch_result(vm, r);
}

static Value f_where(ARGS) {
    if (argc == 1 && !kw) {
        /* where(condition) is nonzero(condition, as_tuple=True) (torch/_indexing.py) */
        Value mod = vm_import_module(vm, "torch._indexing");
        if (val_is_null(mod)) return mod;
        Value f = vm_getattr_c(vm, mod, "_where1");
        if (val_is_null(f)) return f;
        return vm_call(vm, f, 1, argv, NULL);
    }
    if (native_check_args(vm, "where", argc, kw, 3, 3) < 0) return val_null();
    Tensor *c, *x, *y, *o0 = NULL, *o1 = NULL, *o2 = NULL;
    /* a number branch meets the other branch's dtype */
    TensorDtype d1 = torch_is_tensor(vm, argv[1]) ? tensor_dtype(T(argv[1])) : TENSOR_DTYPE_DEFAULT;
    TensorDtype d2 = torch_is_tensor(vm, argv[2]) ? tensor_dtype(T(argv[2])) : TENSOR_DTYPE_DEFAULT;
    if (torch_tensor_arg(vm, argv[0], "where", TENSOR_DTYPE_DEFAULT, &c, &o0) < 0) return val_null();
    if (torch_tensor_arg(vm, argv[1], "where", d2, &x, &o1) < 0 || torch_tensor_arg(vm, argv[2], "where", d1, &y, &o2) < 0) {
        tensor_decref(o0);
        tensor_decref(o1);
        return val_null();
    }
    Tensor *in[3] = {c, x, y};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    Value r = torch_result(vm, ag_op1(TENSOR_OP_WHERE, in, 3, &args));
    tensor_decref(o0);
    tensor_decref(o1);
    tensor_decref(o2);
    return r;
}

static Value f_is_tensor(ARGS) {
    if (native_check_args(vm, "is_tensor", argc, kw, 1, 1) < 0) return val_null();
    return val_bool(torch_is_tensor(vm, argv[0]));
}

static Value f_numel(ARGS) {
    if (argc != 1 || !torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "numel(input)");
    return val_int(tensor_numel(T(argv[0])));
}

/* ---- CPU autocast ----------------------------------------------------------------------------------- */

int torch_autocast_lower(VM *vm, Tensor **in, int n, Tensor **owned) {
    TorchState *ts = torch_state(vm);
    if (!ts->autocast_cpu) return 0;
    for (int i = 0; i < n; i++) {
        TensorDtype d = in[i] ? tensor_dtype(in[i]) : TENSOR_FLOAT64;
        if (!tensor_dtype_is_floating(d) || d == TENSOR_FLOAT64 || d == ts->autocast_cpu_dtype) continue;
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dtype = ts->autocast_cpu_dtype;
        a.memory_format = TENSOR_MF_PRESERVE;   /* autocast's cached_cast: arg.to(dtype) */
        owned[i] = ag_op1(TENSOR_OP_TO_DTYPE, &in[i], 1, &a);
        if (!owned[i]) {
            for (int j = 0; j < i; j++) tensor_decref(owned[j]);
            torch_raise_error(vm);
            return -1;
        }
        in[i] = owned[i];
    }
    return 0;
}

static Value f_set_autocast_cpu_enabled(ARGS) {
    if (native_check_args(vm, "set_autocast_cpu_enabled", argc, kw, 1, 1) < 0) return val_null();
    bool b;
    if (torch_bool_arg(vm, argv[0], &b) < 0) return val_null();
    torch_state(vm)->autocast_cpu = b;
    return val_none();
}

static Value f_is_autocast_cpu_enabled(ARGS) {
    if (native_check_args(vm, "is_autocast_cpu_enabled", argc, kw, 0, 0) < 0) return val_null();
    return val_bool(torch_state(vm)->autocast_cpu);
}

static Value f_set_autocast_cpu_dtype(ARGS) {
    if (native_check_args(vm, "set_autocast_cpu_dtype", argc, kw, 1, 1) < 0) return val_null();
    TensorDtype d;
    if (torch_dtype_of(vm, argv[0], &d) < 0) return val_null();
    if (d != TENSOR_BFLOAT16)
        return vm_raise(vm, vm->e_RuntimeError, "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
    torch_state(vm)->autocast_cpu_dtype = d;
    return val_none();
}

static Value f_get_autocast_cpu_dtype(ARGS) {
    if (native_check_args(vm, "get_autocast_cpu_dtype", argc, kw, 0, 0) < 0) return val_null();
    return torch_dtype_value(vm, torch_state(vm)->autocast_cpu_dtype);
}

/* ---- default dtype and type promotion ------------------------------------------------------------ */

static Value f_get_default_dtype(ARGS) {
    if (native_check_args(vm, "get_default_dtype", argc, kw, 0, 0) < 0) return val_null();
    return torch_dtype_value(vm, tensor_default_dtype());
}

static Value f_set_default_dtype(ARGS) {
    if (native_check_args(vm, "set_default_dtype", argc, kw, 1, 1) < 0) return val_null();
    TensorDtype d;
    if (!val_is_type(vm, argv[0], torch_state(vm)->t_dtype))
        return vm_raise(vm, vm->e_TypeError, "must be a torch.dtype, not %s", vm_type_name(vm, argv[0]));
    if (torch_dtype_of(vm, argv[0], &d) < 0) return val_null();
    if (!tensor_dtype_is_floating(d) || d == TENSOR_BFLOAT16)
        return vm_raise(vm, vm->e_TypeError, "only floating-point types are supported as the default type");
    if (tensor_set_default_dtype(d) < 0) return torch_raise_error(vm);
    return val_none();
}

static Value f_promote_types(ARGS) {
    if (native_check_args(vm, "promote_types", argc, kw, 2, 2) < 0) return val_null();
    TensorDtype a, b;
    for (int i = 0; i < 2; i++)
        if (!val_is_type(vm, argv[i], torch_state(vm)->t_dtype))
            return vm_raise(vm, vm->e_TypeError, "promote_types(): argument '%s' (position %d) must be torch.dtype, not %s",
                            i ? "type2" : "type1", i + 1, vm_type_name(vm, argv[i]));
    if (torch_dtype_of(vm, argv[0], &a) < 0 || torch_dtype_of(vm, argv[1], &b) < 0) return val_null();
    return torch_dtype_value(vm, tensor_promote_types(a, b));
}

/* result_type(tensor or number, tensor or number) */
static Value f_result_type(ARGS) {
    if (native_check_args(vm, "result_type", argc, kw, 2, 2) < 0) return val_null();
    const Tensor *ts[2];
    TensorScalar ss[2];
    int nt = 0, ns = 0;
    for (int i = 0; i < 2; i++) {
        if (torch_is_tensor(vm, argv[i]))
            ts[nt++] = T(argv[i]);
        else if (!torch_scalar_of(vm, argv[i], &ss[ns++]))
            return vm_raise(vm, vm->e_TypeError, "result_type() received an invalid combination of arguments");
    }
    if (nt == 0) return vm_raise(vm, vm->e_TypeError, "result_type() received an invalid combination of arguments");
    return torch_dtype_value(vm, tensor_result_type(ts, nt, ss, ns));
}

static Value f_can_cast(ARGS) {
    if (native_check_args(vm, "can_cast", argc, kw, 2, 2) < 0) return val_null();
    TensorDtype a, b;
    if (torch_dtype_of(vm, argv[0], &a) < 0 || torch_dtype_of(vm, argv[1], &b) < 0) return val_null();
    return val_bool(tensor_dtype_can_cast(a, b));
}

/* ---- grad mode ----------------------------------------------------------------------------------- */

static Value f_is_grad_enabled(ARGS) { return val_bool(ag_is_grad_enabled()); }

/* torch._C._is_compiling(): False when run; the tracer folds the call to True (src/tracer/calls.c),
 * so library code can keep caches a trace must not mutate (torch/_mathops.py's einsum plans) */
static Value f_is_compiling(ARGS) {
    if (native_check_args(vm, "_is_compiling", argc, kw, 0, 0) < 0) return val_null();
    return val_bool(false);
}

static Value f_set_grad_enabled(ARGS) {
    if (native_check_args(vm, "_set_grad_enabled", argc, kw, 1, 1) < 0) return val_null();
    bool b;
    if (torch_bool_arg(vm, argv[0], &b) < 0) return val_null();
    return val_bool(ag_set_grad_enabled(b));
}

/* ---- return types --------------------------------------------------------------------------------- */

static Value rt_values(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[0]; }
static Value rt_indices(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[1]; }
static Value rt_repr(ARGS) {
    TupleObj *t = AS_TUPLE(argv[0]);
    Value a = vm_repr(vm, t->items[0]);
    if (val_is_null(a)) return a;
    vm_push_root(vm, a);
    Value b = vm_repr(vm, t->items[1]);
    vm_pop_root(vm);
    if (val_is_null(b)) return b;
    StrObj *s = str_printf(vm, "torch.return_types.%s(\nvalues=%s,\nindices=%s)", vm_type_name(vm, argv[0]),
                           AS_STR(a)->data, AS_STR(b)->data);
    return s ? val_obj(s) : val_null();
}


/* a and b stay rooted while the pair is allocated: a caller may hold them only in an unrooted
 * tuple (index_ops.c's kthvalue did; GC stress freed the values under repr) */
Value torch_return_pair(VM *vm, const char *name, Value a, Value b) {
    static const char *const names[TORCH_N_RETURN_TYPES] = {TORCH_RETURN_TYPE_NAMES};
    int k = 0;
    while (k < TORCH_N_RETURN_TYPES - 1 && strcmp(names[k], name) != 0) k++;
    TypeObj *t = torch_state(vm)->t_return_types[k];
    vm_push_root(vm, a);
    vm_push_root(vm, b);
    TupleObj *r = tuple_alloc(vm, t, 2);
    vm_pop_roots(vm, 2);
    if (!r) return val_null();
    r->items[0] = a;
    r->items[1] = b;
    return val_obj(r);
}

Value torch_wrap_pair(VM *vm, const char *name, Tensor **out) {
    Value vals = torch_wrap(vm, out[0]);
    if (val_is_null(vals)) {
        tensor_decref(out[1]);
        return vals;
    }
    vm_push_root(vm, vals);
    Value idx = torch_wrap(vm, out[1]);
    if (val_is_null(idx)) {
        vm_pop_root(vm);
        return idx;
    }
    vm_push_root(vm, idx);
    Value r;
    if (name) {
        r = torch_return_pair(vm, name, vals, idx);
    } else {
        TupleObj *t = tuple_pack(vm, 2, vals, idx);
        r = t ? val_obj(t) : val_null();
    }
    vm_pop_roots(vm, 2);
    return r;
}

/* ---- nn.functional kernels (torch._C._nn) ---------------------------------------------------------------- */

static Value nn_linear(ARGS) {
    static const char *const names[] = {"input", "weight", "bias"};
    Value a[3];
    if (native_parse_args(vm, "linear", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0]) || !torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "linear(): input and weight must be Tensors");
    Tensor *bias = NULL;
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        if (!torch_is_tensor(vm, a[2])) return vm_raise(vm, vm->e_TypeError, "linear(): bias must be a Tensor");
        bias = T(a[2]);
    }
    Tensor *in[3] = {T(a[0]), T(a[1]), bias}, *owned[3] = {NULL, NULL, NULL};
    if (torch_autocast_lower(vm, in, bias ? 3 : 2, owned) < 0) return val_null();
    Value r = torch_result(vm, ag_linear(in[0], in[1], in[2]));
    for (int i = 0; i < 3; i++) tensor_decref(owned[i]);
    return r;
}

static int reduction_of(VM *vm, Value v, TensorReduction *out) {
    if (val_is_null(v)) return 0;
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "reduction must be a string");
        return -1;
    }
    const char *s = AS_STR(v)->data;
    if (strcmp(s, "mean") == 0) *out = TENSOR_REDUCTION_MEAN;
    else if (strcmp(s, "sum") == 0) *out = TENSOR_REDUCTION_SUM;
    else if (strcmp(s, "none") == 0) *out = TENSOR_REDUCTION_NONE;
    else {
        vm_raise(vm, vm->e_ValueError, "%s is not a valid value for reduction", s);
        return -1;
    }
    return 0;
}

/* mse_loss(input, target, reduction) / nll_loss / cross_entropy (fn->data: op) */
static Value nn_loss(ARGS) {
    static const char *const names[] = {"input", "target", "weight", "size_average", "ignore_index", "reduce",
                                        "reduction", "label_smoothing"};
    Value a[8];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 8, 2, names, 8, a) < 0) return val_null();
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    if (op == TENSOR_OP_MSE_LOSS && !val_is_null(a[2]) && val_is_str(vm, a[2])) {
        /* mse_loss(input, target, size_average, reduce, reduction): positional 3rd is not weight */
        a[6] = a[2];
        a[2] = val_null();
    }
    if (!torch_is_tensor(vm, a[0]) || !torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "%s(): input and target must be Tensors", fn->name);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (reduction_of(vm, a[6], &args.reduction) < 0) return val_null();
    if (!val_is_null(a[4]) && torch_int_arg(vm, a[4], "ignore_index", &args.ignore_index) < 0) return val_null();
    double smoothing = 0;
    if (!val_is_null(a[7]) && vm_to_double(vm, a[7], &smoothing) < 0) return val_null();
    if (smoothing != 0)
        return vm_raise(vm, vm->e_NotImplementedError, "label_smoothing is not supported");
    Tensor *in[3] = {T(a[0]), T(a[1]), NULL};
    int n = 2;
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        if (!torch_is_tensor(vm, a[2])) return vm_raise(vm, vm->e_TypeError, "%s(): weight must be a Tensor", fn->name);
        in[2] = T(a[2]);
        n = 3;
    }
    return torch_result(vm, ag_op1(op, in, n, &args));
}

static Value nn_layer_norm(ARGS) {
    static const char *const names[] = {"input", "normalized_shape", "weight", "bias", "eps"};
    Value a[5];
    if (native_parse_args(vm, "layer_norm", argc, argv, kw, 5, 2, names, 5, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "layer_norm(): input must be a Tensor");
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (val_is_intlike(a[1])) {
        shape[0] = val_as_intlike(a[1]);
        nd = 1;
    } else if (torch_shape_value(vm, a[1], shape, &nd, "layer_norm") < 0) {
        return val_null();
    }
    Tensor *w = NULL, *b = NULL;
    if (!val_is_null(a[2]) && !val_is_none(a[2])) w = T(a[2]);
    if (!val_is_null(a[3]) && !val_is_none(a[3])) b = T(a[3]);
    double eps = 1e-5;
    if (!val_is_null(a[4]) && vm_to_double(vm, a[4], &eps) < 0) return val_null();
    return torch_result(vm, ag_layer_norm(T(a[0]), shape, nd, w, b, eps));
}

static Value nn_embedding(ARGS) {
    static const char *const names[] = {"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
                                        "sparse"};
    Value a[7];
    if (native_parse_args(vm, "embedding", argc, argv, kw, 7, 2, names, 7, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0]) || !torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "embedding(): input and weight must be Tensors");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[2]) && !val_is_none(a[2]) && torch_int_arg(vm, a[2], "padding_idx", &args.padding_idx) < 0)
        return val_null();
    if (!val_is_null(a[5]) && torch_bool_arg(vm, a[5], &args.accumulate) < 0) return val_null();   /* scale_grad_by_freq */
    Value input = a[0];
    bool rooted = false;
    if (!val_is_null(a[3]) && !val_is_none(a[3])) {
        /* max_norm: F.embedding renormalises the rows it looks up in place first, without
         * recording (torch/_composites_fn.py _no_grad_embedding_renorm_, ATen's embedding_renorm_) */
        Value mod = vm_import_module(vm, "torch._composites_fn");
        if (val_is_null(mod)) return mod;
        Value f = vm_getattr_c(vm, mod, "_no_grad_embedding_renorm_");
        if (val_is_null(f)) return f;
        Value cargs[4] = {a[1], a[0], a[3], val_is_null(a[4]) ? val_float(2.0) : a[4]};
        input = vm_call(vm, f, 4, cargs, NULL);
        if (val_is_null(input)) return input;
        if (!torch_is_tensor(vm, input)) return vm_raise(vm, vm->e_TypeError, "embedding(): input must be a Tensor");
        vm_push_root(vm, input);
        rooted = true;
    }
    Tensor *in[2] = {T(a[1]), T(input)};
    Value r = torch_result(vm, ag_op1(TENSOR_OP_EMBEDDING, in, 2, &args));
    if (rooted) vm_pop_root(vm);
    return r;
}

static Value nn_dropout(ARGS) {
    static const char *const names[] = {"input", "p", "training", "inplace"};
    Value a[4];
    if (native_parse_args(vm, "dropout", argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "dropout(): input must be a Tensor");
    double p = 0.5;
    bool train = true;
    if (!val_is_null(a[1]) && vm_to_double(vm, a[1], &p) < 0) return val_null();
    /* torch.dropout's check (ATen's TORCH_CHECK: a RuntimeError; F.dropout raises ValueError first) */
    if (p < 0 || p > 1)
        return vm_raise(vm, vm->e_RuntimeError, "dropout probability has to be between 0 and 1, but got %g", p);
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &train) < 0) return val_null();
    return torch_result(vm, ag_dropout(T(a[0]), p, train));
}

/* ---- registration ---------------------------------------------------------------------------------- */

/* Methods of the Tensor table that are also torch.* functions. */
static const char *const function_names[] = {
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "remainder", "floor_divide",
    "atan2", "arctan2", "fmod", "hypot", "logaddexp", "logaddexp2", "copysign",
    "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor",
    "matmul", "mm", "bmm", "mv", "dot", "clamp", "clip",
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "logsumexp", "all", "any", "softmax",
    "log_softmax", "masked_fill", "gather", "index_select", "scatter_add", "masked_select", "reshape", "transpose",
    "swapaxes", "t", "permute", "unsqueeze", "squeeze", "flatten", "narrow", "select", "split", "chunk", "unbind",
    "detach", "clone", "equal", "allclose", "is_floating_point", "addmm", "as_strided",
    "bernoulli", "clamp_", "fill_", "index_add", "index_put", "index_put_", "masked_scatter", "relu_", "rsub",
    "split_with_sizes", "zero_", "tril", "triu", "roll", "flip", "sort", "argsort", "topk", "cumsum", "isnan", "isinf", "isfinite", NULL};

int torch_functions_init(VM *vm, Value cmod) {
    static const MethodDef fns[] = {
        {"tensor", f_tensor},
        {"zeros", f_sized, 0, (void *)(intptr_t)TENSOR_OP_ZEROS},
        {"ones", f_sized, 0, (void *)(intptr_t)TENSOR_OP_ONES},
        {"empty", f_sized, 0, (void *)(intptr_t)TENSOR_OP_EMPTY},
        {"rand", f_sized, 0, (void *)(intptr_t)TENSOR_OP_RAND},
        {"randn", f_sized, 0, (void *)(intptr_t)TENSOR_OP_RANDN},
        {"full", f_full}, {"arange", f_arange}, {"linspace", f_linspace}, {"eye", f_eye}, {"randint", f_randint},
        {"_set_printoptions", f_set_printoptions},
        {"zeros_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_ZEROS_LIKE},
        {"ones_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_ONES_LIKE},
        {"empty_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_ZEROS_LIKE},
        {"full_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_FULL_LIKE},
        {"rand_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_RAND_LIKE},
        {"randn_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_RANDN_LIKE},
        {"randint_like", f_like, 0, (void *)(intptr_t)TENSOR_OP_RANDINT_LIKE},
        {"cat", f_catstack}, {"concat", f_catstack}, {"stack", f_catstack}, {"where", f_where},
        {"is_tensor", f_is_tensor}, {"numel", f_numel},
        {"is_grad_enabled", f_is_grad_enabled}, {"_set_grad_enabled", f_set_grad_enabled}, {"_is_compiling", f_is_compiling},
        {"get_default_dtype", f_get_default_dtype}, {"set_default_dtype", f_set_default_dtype},
        {"promote_types", f_promote_types}, {"result_type", f_result_type}, {"can_cast", f_can_cast},
        {"set_autocast_cpu_enabled", f_set_autocast_cpu_enabled}, {"is_autocast_cpu_enabled", f_is_autocast_cpu_enabled},
        {"set_autocast_cpu_dtype", f_set_autocast_cpu_dtype}, {"get_autocast_cpu_dtype", f_get_autocast_cpu_dtype},
        {NULL}};
    if (torch_add_overridable(vm, cmod, fns) < 0 || torch_op_functions_init(vm, cmod, "torch") < 0) return -1;
    /* torch.X(t, ...) for Tensor methods: the same natives, unbound */
    for (const char *const *n = function_names; *n; n++) {
        const MethodDef *d = torch_find_native(*n);
        EM_ASSERT(d != NULL, "torch function without a native");
        MethodDef unbound = {d->name, d->fn, 0, d->data};
        NativeObj *f = torch_overridable_new(vm, &unbound);
        if (!f || module_set(vm, cmod, d->name, val_obj(f)) < 0) return -1;
    }
    /* return_types.max / .min */
    static const GetSetDef rt_gs[] = {{"values", rt_values, NULL}, {"indices", rt_indices, NULL}, {NULL}};
    static const MethodDef rt_m[] = {{"__repr__", rt_repr, NATIVEF_METHOD}, {NULL}};
    const char *rt_names[TORCH_N_RETURN_TYPES] = {TORCH_RETURN_TYPE_NAMES};
    TypeObj **rts = torch_state(vm)->t_return_types;
    for (int i = 0; i < TORCH_N_RETURN_TYPES; i++) {
        rts[i] = type_new_builtin(vm, rt_names[i], vm->t_tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), 0, tuple_trace, NULL, 0);
        if (!rts[i] || type_add_getsets(vm, rts[i], rt_gs) < 0 || type_add_methods(vm, rts[i], rt_m) < 0) return -1;
        rts[i]->module = vm_intern(vm, "torch.return_types");
    }
    return 0;
}

/* torch._C._special: the torch.special functions of the op table */
int torch_special_functions_init(VM *vm, Value mod) { return torch_op_functions_init(vm, mod, "special"); }

int torch_nn_conv_init(VM *vm, Value nnmod);   /* nn_conv.c */
int torch_threads_init(VM *vm, Value mod);      /* threads.c */

int torch_nn_functions_init(VM *vm, Value nnmod) {
    static const MethodDef fns[] = {
        {"linear", nn_linear},
        {"mse_loss", nn_loss, 0, (void *)(intptr_t)TENSOR_OP_MSE_LOSS},
        {"nll_loss", nn_loss, 0, (void *)(intptr_t)TENSOR_OP_NLL_LOSS},
        {"cross_entropy", nn_loss, 0, (void *)(intptr_t)TENSOR_OP_CROSS_ENTROPY},
        {"layer_norm", nn_layer_norm}, {"embedding", nn_embedding}, {"dropout", nn_dropout},
        {NULL}};
    if (torch_add_overridable(vm, nnmod, fns) < 0 || torch_op_functions_init(vm, nnmod, "F") < 0 ||
        torch_nn_conv_init(vm, nnmod) < 0 || torch_threads_init(vm, nnmod) < 0)
        return -1;
    static const char *const shared[] = {"softmax", "log_softmax", NULL};
    for (const char *const *n = shared; *n; n++) {
        const MethodDef *d = torch_find_native(*n);
        EM_ASSERT(d != NULL, "torch.nn.functional function without a native");
        MethodDef unbound = {d->name, d->fn, 0, d->data};
        NativeObj *f = torch_overridable_new(vm, &unbound);
        if (!f || module_set(vm, nnmod, d->name, val_obj(f)) < 0) return -1;
    }
    return 0;
}
