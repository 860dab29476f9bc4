/* src/torch/tensor_methods.c — the Tensor methods and operators scripts call: arithmetic with
 * PyTorch's scalar and reflected forms, comparisons, reductions over dims, shape operations,
 * in-place forms, conversions (item, tolist, to, float, ...) and linear algebra.  Every method
 * records autograd through the ag_ API; the same natives back the torch.* functions. */
#include <math.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)
#define SELF_CHECK(name)                                                                    \
    do {                                                                                    \
        if (argc < 1 || !torch_is_tensor(vm, argv[0]))                                       \
            return vm_raise(vm, vm->e_TypeError, "%s(): argument 'input' must be Tensor, not %s", \
                            name, argc < 1 ? "nothing" : vm_type_name(vm, argv[0]));          \
    } while (0)

/* Parse keyword-capable arguments after self: names[0] is "self". */
static int parse(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, int npos, int nreq,
                 const char *const *names, int n, Value *out) {
    return native_parse_args(vm, fname, argc, argv, kw, npos, nreq, names, n, out);
}

static Value op1(VM *vm, TensorOp op, Tensor *a, const TensorOpArgs *args) {
    Tensor *in[1] = {a};
    return torch_result(vm, ag_op1(op, in, 1, args));
}

static Value op2(VM *vm, TensorOp op, Tensor *a, Tensor *b, const TensorOpArgs *args) {
    Tensor *in[2] = {a, b};
    return torch_result(vm, ag_op1(op, in, 2, args));
}

/* ---- unary: fn->data is the TensorOp ----------------------------------------------------------- */

static Value m_unary(ARGS) {
    SELF_CHECK(fn->name);
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(argv[0]), &a);
}

/* ---- binary arithmetic ------------------------------------------------------------------------- */

typedef struct BinSpec {
    TensorOp tensor_op, scalar_op, rscalar_op;   /* rscalar_op: scalar OP tensor, or COUNT */
    bool reflected;                              /* __rX__: the scalar is the left operand */
    bool inplace;
    const char *sym;
    bool tensor_only;                            /* ATen has no Scalar overload: a number is a TypeError */
} BinSpec;

/* atan2(t, 2.0): PyTorch's argument parser refuses a number where only a Tensor overload exists
 * (position 2 for torch.f(input, other), 1 for the method) */
static bool refuse_number(VM *vm, const BinSpec *s, NativeObj *fn, Value other) {
    if (!s->tensor_only || torch_is_tensor(vm, other)) return false;
    vm_raise(vm, vm->e_TypeError, "%s(): argument 'other' (position %d) must be Tensor, not %s", fn->name,
             (fn->flags & NATIVEF_METHOD) ? 1 : 2, vm_type_name(vm, other));
    return true;
}

/* tensor OP other, with other a tensor or a Python number; alpha for add/sub */
static Value binary(VM *vm, const BinSpec *s, Value self, Value other, TensorScalar alpha, bool has_alpha) {
    Tensor *a = T(self);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (has_alpha) args.alpha = alpha;
    TensorScalar sc;
    if (torch_is_tensor(vm, other)) {
        Tensor *b = T(other);
        if (s->reflected) {
            Tensor *in[2] = {b, a};
            return torch_result(vm, ag_op1(s->tensor_op, in, 2, &args));
        }
        if (s->inplace) {
            Tensor *in[2] = {a, b};
            Tensor *out = NULL;
            if (ag_op_run(s->tensor_op, in, 2, &args, &out, 1) < 0) return torch_raise_error(vm);
            tensor_decref(out);
            return self;
        }
        return op2(vm, s->tensor_op, a, b, &args);
    }
    if (!torch_scalar_of(vm, other, &sc)) return vm->not_implemented;
    args.scalar = sc;
    TensorOp op = s->reflected ? s->rscalar_op : s->scalar_op;
    if (op == TENSOR_OP_COUNT) {
        /* no scalar form (e.g. 2 / t): wrap the number as a 0-dim tensor */
        Tensor *owned = torch_wrapped_number(sc, tensor_dtype(a));
        if (!owned) return torch_raise_error(vm);
        Tensor *in[2] = {s->reflected ? owned : a, s->reflected ? a : owned};
        Value r = torch_result(vm, ag_op1(s->tensor_op, in, 2, &args));
        tensor_decref(owned);
        return r;
    }
    if (s->inplace) {
        Tensor *out = NULL;
        if (ag_op_run(op, &a, 1, &args, &out, 1) < 0) return torch_raise_error(vm);
        tensor_decref(out);
        return self;
    }
    return op1(vm, op, a, &args);
}

static Value m_binary_dunder(ARGS) {
    const BinSpec *s = fn->data;
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "expected 1 argument");
    if (!torch_is_tensor(vm, argv[0])) return vm->not_implemented;
    Value r = binary(vm, s, argv[0], argv[1], tensor_scalar_i(1), false);
    return r;
}

/* other / tensor: PyTorch's Tensor.__rtruediv__ is `self.reciprocal() * other` (torch/_tensor.py
 * __rdiv__), so `2 / t` rounds twice and its grad_fn is MulBackward0 over ReciprocalBackward0 */
static Value m_rtruediv(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "expected 1 argument");
    if (!torch_is_tensor(vm, argv[0])) return vm->not_implemented;
    TensorScalar sc;
    if (!torch_is_tensor(vm, argv[1]) && !torch_scalar_of(vm, argv[1], &sc)) return vm->not_implemented;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    Value r = op1(vm, TENSOR_OP_RECIPROCAL, T(argv[0]), &a);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    static const BinSpec mul = {TENSOR_OP_MUL, TENSOR_OP_MUL_SCALAR, TENSOR_OP_COUNT, false, false, ""};
    Value out = binary(vm, &mul, r, argv[1], tensor_scalar_i(1), false);
    vm_pop_root(vm);
    return out;
}

/* A Scalar argument as PyTorch's argument parser takes one: a Python number, or a 0-dim
 * tensor's value (L-BFGS passes alpha=-al[i]; fill_(t) and masked_fill(m, t) take them too).
 * 1: *out set; 0: neither (no exception; the caller words the TypeError); -1: exception. */
static int scalar_arg(VM *vm, Value v, TensorScalar *out) {
    if (torch_scalar_of(vm, v, out)) return 1;
    if (!torch_is_tensor(vm, v) || tensor_ndim(T(v)) != 0) return 0;
    if (tensor_item(T(v), out) == 0) return 1;
    torch_raise_error(vm);
    return -1;
}

static int alpha_arg(VM *vm, const char *fname, Value v, TensorScalar *out) {
    int r = scalar_arg(vm, v, out);
    if (r == 0) vm_raise(vm, vm->e_TypeError, "%s(): argument 'alpha' must be Number, not %s", fname, vm_type_name(vm, v));
    return r > 0 ? 0 : -1;
}

/* add/sub/mul/div/pow as named methods and torch functions: (self, other, *, alpha=1) */
static Value m_binary_named(ARGS) {
    const BinSpec *s = fn->data;
    static const char *const names[] = {"input", "other", "alpha"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    if (torch_is_tensor(vm, a[0]) && refuse_number(vm, s, fn, a[1])) return val_null();
    if (!torch_is_tensor(vm, a[0])) {
        /* torch.add(2, t): only for commutative ops is the order free */
        if (torch_is_tensor(vm, a[1]) && (s->tensor_op == TENSOR_OP_ADD || s->tensor_op == TENSOR_OP_MUL)) {
            Value t = a[0];
            a[0] = a[1];
            a[1] = t;
        } else if (torch_is_tensor(vm, a[1]) && s->tensor_op == TENSOR_OP_POW && val_is_number(a[0]) && val_is_null(a[2])) {
            /* torch.pow(number, tensor): ATen's pow.Scalar, what `number ** tensor` computes */
            static const BinSpec reflected = {TENSOR_OP_POW, TENSOR_OP_COUNT, TENSOR_OP_POW_SCALAR_SELF, true, false, ""};
            return binary(vm, &reflected, a[1], a[0], tensor_scalar_i(1), false);
        } else if (torch_is_tensor(vm, a[1]) && s->tensor_op == TENSOR_OP_REMAINDER && val_is_number(a[0]) &&
                   argc >= 1 && val_is_null(a[2])) {
            /* torch.remainder(number, tensor): ATen's remainder.Scalar_Tensor, the number as a
             * wrapped 0-dim tensor (what `number % tensor` computes) */
            static const BinSpec reflected = {TENSOR_OP_REMAINDER, TENSOR_OP_COUNT, TENSOR_OP_COUNT, true, false, ""};
            return binary(vm, &reflected, a[1], a[0], tensor_scalar_i(1), false);
        } else {
            return vm_raise(vm, vm->e_TypeError, "%s(): argument 'input' must be Tensor, not %s", fn->name,
                            vm_type_name(vm, a[0]));
        }
    }
    TensorScalar alpha = tensor_scalar_i(1);
    bool has_alpha = !val_is_null(a[2]);
    if (has_alpha && alpha_arg(vm, fn->name, a[2], &alpha) < 0) return val_null();
    Value r = binary(vm, s, a[0], a[1], alpha, has_alpha);
    if (val_identical(r, vm->not_implemented))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'other' must be Tensor or Number, not %s", fn->name,
                        vm_type_name(vm, a[1]));
    return r;
}

#define BIN(name, top, sop, rop) static const BinSpec name = {TENSOR_OP_##top, TENSOR_OP_##sop, rop, false, false, ""}
#define TBIN(name, top) static const BinSpec name = {TENSOR_OP_##top, TENSOR_OP_COUNT, TENSOR_OP_COUNT, false, false, "", true}
#define RBIN(name, top, rop) static const BinSpec name = {TENSOR_OP_##top, TENSOR_OP_COUNT, rop, true, false, ""}
#define IBIN(name, top, sop) static const BinSpec name = {TENSOR_OP_##top, TENSOR_OP_##sop, TENSOR_OP_COUNT, false, true, ""}
BIN(b_add, ADD, ADD_SCALAR, TENSOR_OP_COUNT);
BIN(b_sub, SUB, SUB_SCALAR, TENSOR_OP_COUNT);
BIN(b_mul, MUL, MUL_SCALAR, TENSOR_OP_COUNT);
BIN(b_div, DIV, DIV_SCALAR, TENSOR_OP_COUNT);
BIN(b_pow, POW, POW_SCALAR, TENSOR_OP_COUNT);
BIN(b_rem, REMAINDER, REMAINDER_SCALAR, TENSOR_OP_COUNT);
TBIN(b_atan2, ATAN2);
BIN(b_fmod, FMOD, COUNT, TENSOR_OP_COUNT);
TBIN(b_hypot, HYPOT);
TBIN(b_logaddexp, LOGADDEXP);
TBIN(b_logaddexp2, LOGADDEXP2);
BIN(b_copysign, COPYSIGN, COUNT, TENSOR_OP_COUNT);
BIN(b_fdiv, FLOOR_DIVIDE, FLOOR_DIVIDE_SCALAR, TENSOR_OP_COUNT);
BIN(b_eq, EQ, EQ_SCALAR, TENSOR_OP_COUNT);
BIN(b_ne, NE, NE_SCALAR, TENSOR_OP_COUNT);
BIN(b_lt, LT, LT_SCALAR, TENSOR_OP_COUNT);
BIN(b_le, LE, LE_SCALAR, TENSOR_OP_COUNT);
BIN(b_gt, GT, GT_SCALAR, TENSOR_OP_COUNT);
BIN(b_ge, GE, GE_SCALAR, TENSOR_OP_COUNT);
TBIN(b_max2, MAXIMUM);
TBIN(b_min2, MINIMUM);
TBIN(b_land, LOGICAL_AND);
TBIN(b_lor, LOGICAL_OR);
TBIN(b_lxor, LOGICAL_XOR);
/* reflected: scalar OP tensor */
static const BinSpec rb_add = {TENSOR_OP_ADD, TENSOR_OP_ADD_SCALAR, TENSOR_OP_ADD_SCALAR, true, false, ""};
static const BinSpec rb_mul = {TENSOR_OP_MUL, TENSOR_OP_MUL_SCALAR, TENSOR_OP_MUL_SCALAR, true, false, ""};
RBIN(rb_sub, SUB, TENSOR_OP_RSUB_SCALAR);
RBIN(rb_pow, POW, TENSOR_OP_RPOW_SCALAR);
RBIN(rb_rem, REMAINDER, TENSOR_OP_COUNT);
RBIN(rb_fdiv, FLOOR_DIVIDE, TENSOR_OP_COUNT);
BIN(b_band, BITWISE_AND, COUNT, TENSOR_OP_COUNT);
BIN(b_bor, BITWISE_OR, COUNT, TENSOR_OP_COUNT);
BIN(b_bxor, BITWISE_XOR, COUNT, TENSOR_OP_COUNT);
RBIN(rb_band, BITWISE_AND, TENSOR_OP_COUNT);
RBIN(rb_bor, BITWISE_OR, TENSOR_OP_COUNT);
RBIN(rb_bxor, BITWISE_XOR, TENSOR_OP_COUNT);
/* in place */
IBIN(ib_add, ADD_, ADD_SCALAR_);
IBIN(ib_sub, SUB_, SUB_SCALAR_);
IBIN(ib_mul, MUL_, MUL_SCALAR_);
IBIN(ib_div, DIV_, DIV_SCALAR_);

/* torch.mm(a, b, out=o) and friends: the product, written into o as out_args.c writes every out=
 * (o resized when of another shape); matmul's autograd error names the product it runs */
static Value matmul_out(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    const char *second = op == TENSOR_OP_MM || op == TENSOR_OP_BMM ? "mat2"
                         : op == TENSOR_OP_MV                       ? "vec"
                         : op == TENSOR_OP_DOT                      ? "tensor"
                                                                    : "other";
    const char *const names[] = {"input", second, "out"};
    Value a[3];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0]) || !torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument '%s' must be Tensor", fn->name,
                        torch_is_tensor(vm, a[0]) ? second : "input");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (val_is_null(a[2]) || val_is_none(a[2])) return op2(vm, op, T(a[0]), T(a[1]), &args);
    if (!torch_is_tensor(vm, a[2]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'out' must be Tensor, not %s", fn->name,
                        vm_type_name(vm, a[2]));
    Tensor *o = T(a[2]), *in[2] = {T(a[0]), T(a[1])};
    int n0 = tensor_ndim(in[0]), n1 = tensor_ndim(in[1]);
    /* matmul runs (and its autograd error names) the product its dims pick */
    if (op == TENSOR_OP_MATMUL) op = n0 == 1 && n1 == 1 ? TENSOR_OP_DOT : n0 <= 2 && n1 == 1 ? TENSOR_OP_MV
                                     : n0 <= 2 && n1 <= 2 ? TENSOR_OP_MM : TENSOR_OP_BMM;
    static const TorchOutSpec mm = {"mm", "mm", TORCH_OUT_EXACT, 0, NULL}, bmm = {"bmm", "bmm", TORCH_OUT_EXACT, 0, NULL},
                              mv = {"mv", "mv", TORCH_OUT_EXACT, 0, NULL},
                              dot = {"dot", "dot", TORCH_OUT_SAME_AS_INPUT, 0, NULL};
    const TorchOutSpec *s = op == TENSOR_OP_MM ? &mm : op == TENSOR_OP_BMM ? &bmm : op == TENSOR_OP_MV ? &mv : &dot;
    if (torch_out_check_grad(vm, s, 3, a) < 0) return val_null();
    Tensor *r = ag_op1((TensorOp)(intptr_t)fn->data, in, 2, &args);
    if (!r) return torch_raise_error(vm);
    int rc = torch_out_write(vm, s, o, r);
    tensor_decref(r);
    return rc < 0 ? val_null() : a[2];
}

static Value m_matmul(ARGS) {
    if (kw && kw->len && !(fn->flags & NATIVEF_METHOD)) return matmul_out(vm, argc, argv, kw, fn);
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "matmul() takes exactly one argument");
    if (!torch_is_tensor(vm, argv[0]) || !torch_is_tensor(vm, argv[1])) {
        if (!(fn->flags & NATIVEF_METHOD) || strcmp(fn->name, "matmul") == 0)
            return vm_raise(vm, vm->e_TypeError, "matmul(): argument 'other' must be Tensor, not %s",
                            vm_type_name(vm, torch_is_tensor(vm, argv[0]) ? argv[1] : argv[0]));
        return vm->not_implemented;
    }
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    Tensor *in[2] = {T(argv[0]), T(argv[1])}, *owned[2] = {NULL, NULL};
    if (torch_autocast_lower(vm, in, 2, owned) < 0) return val_null();
    Value r = op2(vm, (TensorOp)(intptr_t)fn->data, in[0], in[1], &a);
    tensor_decref(owned[0]);
    tensor_decref(owned[1]);
    return r;
}

static Value m_rmatmul(ARGS) {
    if (argc != 2 || !torch_is_tensor(vm, argv[1])) return vm->not_implemented;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    Tensor *in[2] = {T(argv[1]), T(argv[0])}, *owned[2] = {NULL, NULL};
    if (torch_autocast_lower(vm, in, 2, owned) < 0) return val_null();
    Value r = op2(vm, TENSOR_OP_MATMUL, in[0], in[1], &a);
    tensor_decref(owned[0]);
    tensor_decref(owned[1]);
    return r;
}

static Value m_neg(ARGS) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return op1(vm, TENSOR_OP_NEG, T(argv[0]), &a);
}
static Value m_pos(ARGS) { return argv[0]; }
static Value m_invert(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_dtype_is_floating(tensor_dtype(t)))
        return vm_raise(vm, vm->e_TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    return op1(vm, TENSOR_OP_BITWISE_NOT, t, &a);
}

/* ---- in-place forms through ag_pointwise_inplace ---------------------------------------------------- */

/* self OP= other for ops without an in-place entry in the op table (pow_, remainder_,
 * floor_divide_, logical_and_, ...); fn->data is the out-of-place BinSpec */
static Value binary_inplace_generic(VM *vm, const BinSpec *s, Value self, Value other) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    Tensor *in[2] = {T(self), NULL}, *owned = NULL;
    int rc;
    TensorScalar sc;
    if (torch_is_tensor(vm, other)) {
        in[1] = T(other);
        rc = ag_pointwise_inplace(s->tensor_op, in, 2, &args);
    } else if (!torch_scalar_of(vm, other, &sc)) {
        return vm->not_implemented;
    } else if (s->scalar_op != TENSOR_OP_COUNT) {
        args.scalar = sc;
        rc = ag_pointwise_inplace(s->scalar_op, in, 1, &args);
    } else {
        owned = torch_wrapped_number(sc, tensor_dtype(in[0]));
        if (!owned) return torch_raise_error(vm);
        in[1] = owned;
        rc = ag_pointwise_inplace(s->tensor_op, in, 2, &args);
    }
    tensor_decref(owned);
    return rc < 0 ? torch_raise_error(vm) : self;
}

static Value m_binary_inplace(ARGS) {
    const BinSpec *s = fn->data;
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    if (!torch_is_tensor(vm, argv[0])) return vm->not_implemented;
    bool dunder = fn->name[0] == '_';
    if (!dunder && refuse_number(vm, s, fn, argv[1])) return val_null();
    Value r = binary_inplace_generic(vm, s, argv[0], argv[1]);
    if (!dunder && val_identical(r, vm->not_implemented))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'other' must be Tensor or Number, not %s", fn->name,
                        vm_type_name(vm, argv[1]));
    return r;
}

/* ---- conversions ------------------------------------------------------------------------------------ */

static int item_of(VM *vm, Tensor *t, TensorScalar *s) {
    if (tensor_item(t, s) < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}

static Value m_item(ARGS) {
    SELF_CHECK("item");
    TensorScalar s;
    if (item_of(vm, T(argv[0]), &s) < 0) return val_null();
    return torch_scalar_value(s);
}

static Value m_bool(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_numel(t) != 1) {
        if (tensor_numel(t) == 0)
            return vm_raise(vm, vm->e_RuntimeError, "Boolean value of Tensor with no values is ambiguous");
        return vm_raise(vm, vm->e_RuntimeError, "Boolean value of Tensor with more than one value is ambiguous");
    }
    TensorScalar s;
    if (item_of(vm, t, &s) < 0) return val_null();
    return val_bool(s.kind == TENSOR_FLOAT32 ? s.f != 0 : s.i != 0);
}

static Value m_float_dunder(ARGS) {
    TensorScalar s;
    if (tensor_numel(T(argv[0])) != 1)
        return vm_raise(vm, vm->e_ValueError, "only one element tensors can be converted to Python scalars");
    if (item_of(vm, T(argv[0]), &s) < 0) return val_null();
    return val_float(s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i);
}

static Value m_int_dunder(ARGS) {
    TensorScalar s;
    if (tensor_numel(T(argv[0])) != 1)
        return vm_raise(vm, vm->e_ValueError, "only one element tensors can be converted to Python scalars");
    if (item_of(vm, T(argv[0]), &s) < 0) return val_null();
    return val_int(s.kind == TENSOR_FLOAT32 ? (int64_t)s.f : s.i);
}

static Value m_index_dunder(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_numel(t) != 1 || tensor_dtype_is_floating(tensor_dtype(t)))
        return vm_raise(vm, vm->e_TypeError, "only integer tensors of a single element can be converted to an index");
    TensorScalar s;
    if (item_of(vm, t, &s) < 0) return val_null();
    return val_int(s.i);
}

static Value m_len(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_ndim(t) == 0) return vm_raise(vm, vm->e_TypeError, "len() of a 0-d tensor");
    return val_int(tensor_shape(t)[0]);
}

static Value m_iter(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_ndim(t) == 0) return vm_raise(vm, vm->e_TypeError, "iteration over a 0-d tensor");
    int64_t n = tensor_shape(t)[0];
    ListObj *l = list_new(vm, n);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < n; i++) {
        Value v = torch_result(vm, ag_select(t, 0, i));
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        l->items[l->len++] = v;
    }
    Value it = vm_iter(vm, val_obj(l));
    vm_pop_root(vm);
    return it;
}

/* PyTorch's Tensor.__format__: a 0-dim tensor formats as its number, also with an empty spec
 * ('{}'.format(torch.tensor(0.5)) == '0.5') */
static Value m_format(ARGS) {
    Tensor *t = T(argv[0]);
    if (tensor_ndim(t) == 0 && argc == 2 && val_is_str(vm, argv[1])) {
        TensorScalar s;
        if (item_of(vm, t, &s) < 0) return val_null();
        return vm_format(vm, torch_scalar_value(s), argv[1]);
    }
    return vm_repr(vm, argv[0]);
}

static Value m_tolist(ARGS) {
    SELF_CHECK("tolist");
    return torch_tolist(vm, T(argv[0]));
}

static Value convert(VM *vm, Value self, TensorDtype d) {
    Tensor *t = T(self);
    if (tensor_dtype(t) == d) return self;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = d;
    a.memory_format = TENSOR_MF_PRESERVE;   /* to()'s default memory_format */
    return op1(vm, TENSOR_OP_TO_DTYPE, t, &a);
}
/* float()/double()/half()/bfloat16()/long()/int()/short()/char()/byte()/bool(): data is the dtype */
static Value m_conv(ARGS) {
    SELF_CHECK(fn->name);
    return convert(vm, argv[0], (TensorDtype)(intptr_t)fn->data);
}

static Value m_to(ARGS) {
    SELF_CHECK("to");
    /* to(dtype) / to(device) / to(other) / to(device, dtype) / to(dtype=..., copy=...,
     * memory_format=...) */
    TensorDtype d = TENSOR_DTYPE_DEFAULT;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    TensorMemoryFormat mf = TENSOR_MF_PRESERVE;   /* to()'s default */
    int nkw = kw ? (int)kw->len : 0;
    for (int i = 1; i < argc + nkw; i++) {
        Value v = argv[i];
        if (i >= argc) {
            StrObj *k = AS_STR(kw->items[i - argc]);
            if (str_eq_c(k, "copy")) {
                if (torch_bool_arg(vm, v, &a.force_copy) < 0) return val_null();
                continue;
            }
            if (str_eq_c(k, "memory_format")) {
                if (torch_memory_format_of(vm, v, &mf) < 0) return val_null();
                continue;
            }
            if (!str_eq_c(k, "dtype") && !str_eq_c(k, "device") && !str_eq_c(k, "non_blocking"))
                return vm_raise(vm, vm->e_TypeError, "to() got an unexpected keyword argument '%s'", k->data);
            if (!str_eq_c(k, "dtype")) continue;
        }
        if (val_is_type(vm, v, torch_state(vm)->t_dtype)) {
            if (torch_dtype_of(vm, v, &d) < 0) return val_null();
        } else if (torch_is_tensor(vm, v)) {
            d = tensor_dtype(T(v));
        } else if (val_is_str(vm, v) || val_is_type(vm, v, torch_state(vm)->t_device)) {
            if (val_is_str(vm, v) && strcmp(AS_STR(v)->data, "cpu") != 0)
                return vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: device '%s' is not available",
                                AS_STR(v)->data);
        }
    }
    Tensor *t = T(argv[0]);
    /* nothing to change: self (ATen's to() without a copy) */
    if (tensor_to_aliases(t, d, mf, a.force_copy)) return argv[0];
    a.dtype = d;
    a.memory_format = (uint8_t)mf;
    return op1(vm, TENSOR_OP_TO_DTYPE, t, &a);
}

/* type_as(other): self.to(other.dtype) (PyTorch: self.type(other.type()); one device here) */
static Value m_type_as(ARGS) {
    SELF_CHECK("type_as");
    static const char *const names[] = {"self", "other"};
    Value a[2];
    if (parse(vm, "type_as", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "type_as(): argument 'other' (position 1) must be Tensor, not %s",
                        vm_type_name(vm, a[1]));
    return convert(vm, a[0], tensor_dtype(T(a[1])));
}

static Value m_cpu(ARGS) { return argv[0]; }
static Value m_cuda(ARGS) { return vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: CUDA is not available"); }

static Value m_type(ARGS) {
    if (argc == 1) return vm_intern(vm, tensor_type_string(T(argv[0])));
    TensorDtype d;
    Value want = argv[1];
    if (!val_is_type(vm, want, torch_state(vm)->t_dtype)) {
        /* a legacy type (torch.DoubleTensor) or its name: torch/_legacy_types.py says its dtype */
        Value mod = vm_import_module(vm, "torch._legacy_types");
        Value f = val_is_null(mod) ? mod : vm_getattr_c(vm, mod, "type_dtype");
        if (val_is_null(f)) return f;
        want = vm_call(vm, f, 1, &argv[1], NULL);
        if (val_is_null(want)) return want;
    }
    if (torch_dtype_of(vm, want, &d) < 0) return val_null();
    return convert(vm, argv[0], d);
}

/* ---- metadata --------------------------------------------------------------------------------------- */

static int dim_index(VM *vm, Tensor *t, Value v, int64_t *out) {
    int64_t d;
    if (torch_int_arg(vm, v, "dim", &d) < 0) return -1;
    int nd = tensor_ndim(t);
    int64_t lim = nd ? nd : 1;
    if (d < -lim || d >= lim) {
        vm_raise(vm, vm->e_IndexError, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                 (long long)-lim, (long long)(lim - 1), (long long)d);
        return -1;
    }
    *out = d < 0 ? d + lim : d;
    return 0;
}

static Value m_size(ARGS) {
    SELF_CHECK("size");
    static const char *const names[] = {"self", "dim"};
    Value a[2];
    if (parse(vm, "size", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Tensor *t = T(a[0]);
    if (val_is_null(a[1])) return torch_size_new(vm, tensor_ndim(t), tensor_shape(t));
    int64_t d;
    if (dim_index(vm, t, a[1], &d) < 0) return val_null();
    return val_int(tensor_ndim(t) ? tensor_shape(t)[d] : 1);
}

static Value m_stride(ARGS) {
    Tensor *t = T(argv[0]);
    if (argc == 2) {
        int64_t d;
        if (dim_index(vm, t, argv[1], &d) < 0) return val_null();
        return val_int(tensor_strides(t)[d]);
    }
    TupleObj *r = tuple_new(vm, tensor_ndim(t));
    if (!r) return val_null();
    for (int i = 0; i < tensor_ndim(t); i++) r->items[i] = val_int(tensor_strides(t)[i]);
    return val_obj(r);
}

static Value m_dim(ARGS) { SELF_CHECK("dim"); return val_int(tensor_ndim(T(argv[0]))); }
static Value m_numel(ARGS) { SELF_CHECK("numel"); return val_int(tensor_numel(T(argv[0]))); }
static Value m_element_size(ARGS) { return val_int((int64_t)tensor_dtype_size(tensor_dtype(T(argv[0])))); }
static Value m_is_contiguous(ARGS) {
    static const char *const names[] = {"self", "memory_format"};
    Value a[2];
    if (parse(vm, "is_contiguous", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    TensorMemoryFormat mf = TENSOR_MF_CONTIGUOUS;
    if (torch_memory_format_of(vm, a[1], &mf) < 0) return val_null();
    return val_bool(tensor_is_contiguous_as(T(a[0]), mf));
}
static Value m_is_floating_point(ARGS) {
    SELF_CHECK("is_floating_point");
    return val_bool(tensor_dtype_is_floating(tensor_dtype(T(argv[0]))));
}
static Value m_storage_offset(ARGS) { return val_int(tensor_storage_offset(T(argv[0]))); }
/* 0 for a meta tensor, as PyTorch's */
static Value m_data_ptr(ARGS) {
    return val_int(tensor_has_data(T(argv[0])) ? (int64_t)(uintptr_t)tensor_data_ptr(T(argv[0])) : 0);
}

/* ---- reductions ------------------------------------------------------------------------------------- */

/* dims from an int, a tuple/list of ints, or None; returns count or -1 (0 for None). */
static int dims_of(VM *vm, Value v, int64_t *dims) {
    if (val_is_null(v) || val_is_none(v)) return 0;
    if (val_is_intlike(v)) {
        dims[0] = val_as_intlike(v);
        return 1;
    }
    int nd;
    if (torch_shape_value(vm, v, dims, &nd, "dim") < 0) return -1;
    return nd;
}

/* sum/mean/prod (fn->data: the whole-tensor op; the dim op follows it in ops.def) */
static Value m_reduce(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "keepdim", "dtype"};
    Value a[4];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    TensorOp whole = (TensorOp)(intptr_t)fn->data;
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[3]) && torch_dtype_of(vm, a[3], &args.dtype) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    int64_t dims[TENSOR_MAX_DIMS];
    int nd = dims_of(vm, a[1], dims);
    if (nd < 0) return val_null();
    /* dtype=: the input is cast before reducing, as ATen does */
    Tensor *in = T(a[0]), *cast = NULL;
    if (args.dtype != TENSOR_DTYPE_DEFAULT && args.dtype != tensor_dtype(in)) {
        TensorOpArgs ca = TENSOR_OP_ARGS_INIT;
        ca.dtype = args.dtype;
        ca.memory_format = TENSOR_MF_PRESERVE;   /* ATen's self.to(dtype) */
        Tensor *cin[1] = {in};
        cast = ag_op1(TENSOR_OP_TO_DTYPE, cin, 1, &ca);
        if (!cast) return torch_raise_error(vm);
        in = cast;
    }
    Value r;
    if (val_is_null(a[1]) || val_is_none(a[1])) {
        r = op1(vm, whole, in, &args);
    } else {
        args.ints = dims;
        args.n_ints = nd;
        args.dim = dims[0];
        args.has_dim = true;
        r = op1(vm, (TensorOp)(whole + 1), in, &args);
    }
    tensor_decref(cast);
    return r;
}

/* amax/amin(dim=(), keepdim=False): the extremum over dims (none: all), one value for ties (fn->data:
 * the op) */
static Value m_amax(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "keepdim"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    int64_t dims[TENSOR_MAX_DIMS];
    int nd = dims_of(vm, a[1], dims);
    if (nd < 0) return val_null();
    args.ints = dims;
    args.n_ints = nd;
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), &args);
}

/* max/min: no dim -> value; dim -> (values, indices); a tensor -> elementwise maximum */
static Value m_maxmin(ARGS) {
    SELF_CHECK(fn->name);
    bool is_max = fn->data != NULL;
    static const char *const names[] = {"input", "dim", "keepdim"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (val_is_null(a[1])) return op1(vm, is_max ? TENSOR_OP_MAX : TENSOR_OP_MIN, T(a[0]), &args);
    if (torch_is_tensor(vm, a[1]))
        return op2(vm, is_max ? TENSOR_OP_MAXIMUM : TENSOR_OP_MINIMUM, T(a[0]), T(a[1]), &args);
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    args.has_dim = true;
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    Tensor *in[1] = {T(a[0])}, *out[2] = {NULL, NULL};
    if (ag_op_run(is_max ? TENSOR_OP_MAX_DIM : TENSOR_OP_MIN_DIM, in, 1, &args, out, 2) < 0) return torch_raise_error(vm);
    return torch_wrap_pair(vm, is_max ? "max" : "min", out);
}

static Value m_arg(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "keepdim"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
        args.has_dim = true;
    }
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), &args);
}

/* var/std(dim=None, unbiased/correction, keepdim) */
static Value m_var(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "unbiased", "keepdim", "correction"};
    Value a[5];
    if (parse(vm, fn->name, argc, argv, kw, 4, 1, names, 5, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    int64_t dims[TENSOR_MAX_DIMS];
    Value dimv = a[1];
    if (val_is_bool(dimv)) {   /* var(False): unbiased positional */
        a[2] = dimv;
        dimv = val_null();
    }
    int nd = dims_of(vm, dimv, dims);
    if (nd < 0) return val_null();
    args.ints = dims;
    args.n_ints = nd;
    if (!val_is_null(a[2])) {
        bool u;
        if (torch_bool_arg(vm, a[2], &u) < 0) return val_null();
        args.correction = u ? 1 : 0;
    }
    if (!val_is_null(a[4])) {
        int64_t c;
        if (torch_int_arg(vm, a[4], "correction", &c) < 0) return val_null();
        args.correction = (int32_t)c;
    }
    if (!val_is_null(a[3]) && torch_bool_arg(vm, a[3], &args.keepdim) < 0) return val_null();
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), &args);
}

static Value m_logsumexp(ARGS) {
    SELF_CHECK("logsumexp");
    static const char *const names[] = {"input", "dim", "keepdim"};
    Value a[3];
    if (parse(vm, "logsumexp", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    int64_t dims[TENSOR_MAX_DIMS];
    int nd = dims_of(vm, a[1], dims);
    if (nd < 0) return val_null();
    args.ints = dims;
    args.n_ints = nd;
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    return op1(vm, TENSOR_OP_LOGSUMEXP, T(a[0]), &args);
}

/* all / any (dim=, keepdim=: the keywords were once dropped, reducing over everything) */
static Value m_allany(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "keepdim"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
        args.has_dim = true;
    }
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &args.keepdim) < 0) return val_null();
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), &args);
}

/* ---- softmax family and nn-style ops --------------------------------------------------------------- */

static Value m_softmax(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "dtype"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    Tensor *x = T(a[0]);
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        /* ATen's softmax(input, dim, dtype): the input cast to dtype first, then the op in it (the
         * dtype was parsed and then ignored: a float32 result where PyTorch's is float64) */
        TensorDtype dt;
        if (torch_dtype_of(vm, a[2], &dt) < 0) return val_null();
        if (dt != tensor_dtype(x)) {
            Tensor *c = ag_to_dtype(x, dt);
            if (!c) return torch_raise_error(vm);
            Value r = op1(vm, op, c, &args);
            tensor_decref(c);
            return r;
        }
    }
    return op1(vm, op, x, &args);
}

static Value m_clamp(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "min", "max"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if ((!val_is_null(a[1]) && torch_is_tensor(vm, a[1])) || (!val_is_null(a[2]) && torch_is_tensor(vm, a[2]))) {
        /* tensor bounds: torch/_mathops.py's decomposition (branch opsmath) */
        Value mod = vm_import_module(vm, "torch._mathops");
        if (val_is_null(mod)) return mod;
        Value f = vm_getattr_c(vm, mod, fn->data ? "_clamp_tensor_" : "_clamp_tensor");
        if (val_is_null(f)) return f;
        Value cargs[3] = {a[0], val_is_null(a[1]) ? val_none() : a[1], val_is_null(a[2]) ? val_none() : a[2]};
        return vm_call(vm, f, 3, cargs, NULL);
    }
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        if (!torch_scalar_of(vm, a[1], &args.scalar)) return vm_raise(vm, vm->e_TypeError, "clamp(): min must be a number");
        args.has_min = true;
    }
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        if (!torch_scalar_of(vm, a[2], &args.scalar2)) return vm_raise(vm, vm->e_TypeError, "clamp(): max must be a number");
        args.has_max = true;
    }
    if (!args.has_min && !args.has_max)
        return vm_raise(vm, vm->e_RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None");
    bool inplace = fn->data != NULL;
    Tensor *in[1] = {T(a[0])}, *out = NULL;
    if (inplace) {
        if (ag_op_run(TENSOR_OP_CLAMP_, in, 1, &args, &out, 1) < 0) return torch_raise_error(vm);
        tensor_decref(out);
        return a[0];
    }
    return op1(vm, TENSOR_OP_CLAMP, in[0], &args);
}

static Value named_result(VM *vm, Tensor *in, Tensor *r, const char *from, const char *name);

static Value m_clamp_min(ARGS) {
    SELF_CHECK("clamp_min");
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "clamp_min() takes one argument");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!torch_scalar_of(vm, argv[1], &args.scalar)) return vm_raise(vm, vm->e_TypeError, "clamp_min(): min must be a number");
    args.has_min = true;
    /* PyTorch's clamp_min is its own op (ClampMinBackward0); Ember runs clamp's */
    return named_result(vm, T(argv[0]), ag_op1(TENSOR_OP_CLAMP, (Tensor *[]){T(argv[0])}, 1, &args), NULL,
                        "ClampMinBackward0");
}

static Value m_where(ARGS) {
    /* t.where(cond, other) == torch.where(cond, t, other) */
    SELF_CHECK("where");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "where() takes 2 arguments");
    Tensor *cond, *other, *o1 = NULL, *o2 = NULL;
    if (torch_tensor_arg(vm, argv[1], "where", TENSOR_DTYPE_DEFAULT, &cond, &o1) < 0) return val_null();
    if (torch_tensor_arg(vm, argv[2], "where", tensor_dtype(T(argv[0])), &other, &o2) < 0) {
        tensor_decref(o1);
        return val_null();
    }
    Tensor *in[3] = {cond, T(argv[0]), other};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    Value r = torch_result(vm, ag_op1(TENSOR_OP_WHERE, in, 3, &args));
    tensor_decref(o1);
    tensor_decref(o2);
    return r;
}

static Value m_masked_fill(ARGS) {
    SELF_CHECK(fn->name);
    if (argc != 3 || !torch_is_tensor(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "%s(mask, value)", fn->name);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    int sr = scalar_arg(vm, argv[2], &args.scalar);
    if (sr < 0) return val_null();
    if (sr == 0) return vm_raise(vm, vm->e_TypeError, "%s(): value must be a number", fn->name);
    Tensor *in[2] = {T(argv[0]), T(argv[1])};
    if (fn->data) {
        Tensor *out = NULL;
        if (ag_op_run(TENSOR_OP_MASKED_FILL_, in, 2, &args, &out, 1) < 0) return torch_raise_error(vm);
        tensor_decref(out);
        return argv[0];
    }
    return torch_result(vm, ag_op1(TENSOR_OP_MASKED_FILL, in, 2, &args));
}

static Value m_dim_index_op(ARGS) {
    /* gather(dim, index) / index_select(dim, index) */
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "index"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, 3, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[2])) return vm_raise(vm, vm->e_TypeError, "%s(): index must be a Tensor", fn->name);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    return op2(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), T(a[2]), &args);
}

/* the method's in-place form (registered under the name with a trailing '_') runs the table's
 * in-place op, which records its own node (ScatterAddBackward0, ...) as PyTorch's in-place ops do */
static TensorOp op_or_inplace(const NativeObj *fn, TensorOp op, TensorOp inplace) {
    size_t n = strlen(fn->name);
    return n && fn->name[n - 1] == '_' ? inplace : op;
}

static Value m_scatter_add(ARGS) {
    SELF_CHECK(fn->name);
    if (argc != 4 || !torch_is_tensor(vm, argv[2]) || !torch_is_tensor(vm, argv[3]))
        return vm_raise(vm, vm->e_TypeError, "scatter_add(dim, index, src)");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, argv[1], "dim", &args.dim) < 0) return val_null();
    Tensor *in[3] = {T(argv[0]), T(argv[2]), T(argv[3])};
    return torch_result(vm, ag_op1(op_or_inplace(fn, TENSOR_OP_SCATTER_ADD, TENSOR_OP_SCATTER_ADD_), in, 3, &args));
}

static Value m_masked_select(ARGS) {
    SELF_CHECK("masked_select");
    if (argc != 2 || !torch_is_tensor(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "masked_select(mask)");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    return op2(vm, TENSOR_OP_MASKED_SELECT, T(argv[0]), T(argv[1]), &args);
}

/* isnan / isinf / isfinite (fn->data 0 / 1 / 2), composed of traced ops: x != x; |x| == inf;
 * x - x == 0 (NaN and ±inf give NaN).  Integer and bool tensors hold no NaN or inf. */
static Value m_isfloatclass(ARGS) {
    SELF_CHECK(fn->name);
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    int which = (int)(intptr_t)fn->data;
    Tensor *x = T(argv[0]);
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    if (!tensor_dtype_is_floating(tensor_dtype(x))) {
        a.dtype = TENSOR_BOOL;
        return op1(vm, which == 2 ? TENSOR_OP_ONES_LIKE : TENSOR_OP_ZEROS_LIKE, x, &a);
    }
    if (which == 0) return op2(vm, TENSOR_OP_NE, x, x, &a);
    Tensor *in[2] = {x, x};
    Tensor *t = ag_op1(which == 1 ? TENSOR_OP_ABS : TENSOR_OP_SUB, in, which == 1 ? 1 : 2, &a);
    if (!t) return torch_raise_error(vm);
    a.scalar = which == 1 ? tensor_scalar_f(INFINITY) : tensor_scalar_i(0);
    Tensor *r = ag_op1(TENSOR_OP_EQ_SCALAR, &t, 1, &a);
    tensor_decref(t);
    return torch_result(vm, r);
}

/* Tensor methods of the decomposed functions of torch/_composites.py (x.outer(y) is
 * torch.outer(x, y)): the method calls the one Python definition with self first. */
static Value call_module_function(VM *vm, const char *module, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value mod = vm_import_module(vm, module);
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, fn->name);
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

static Value m_composite(ARGS) {
    SELF_CHECK(fn->name);
    return call_module_function(vm, "torch._composites", argc, argv, kw, fn);
}

/* Tensor methods whose one definition is in torch/_composites_fn.py (x.fmax(y) is torch.fmax(x, y),
 * x.new(...) the legacy constructor) */
static Value m_composite_fn(ARGS) {
    SELF_CHECK(fn->name);
    return call_module_function(vm, "torch._composites_fn", argc, argv, kw, fn);
}

/* ---- reorder ops: tril/triu, roll, flip, sort/argsort, topk, cumsum ---------------------------------- */


static Value m_tri(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "diagonal"};
    Value a[2];
    if (parse(vm, fn->name, argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.start = 0;
    if (!val_is_null(a[1]) && torch_int_arg(vm, a[1], "diagonal", &args.start) < 0) return val_null();
    return op1(vm, (TensorOp)(intptr_t)fn->data, T(a[0]), &args);
}

static Value m_roll(ARGS) {
    SELF_CHECK("roll");
    static const char *const names[] = {"input", "shifts", "dims"};
    Value a[3];
    if (parse(vm, "roll", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    int64_t shifts[TENSOR_MAX_DIMS], dims[TENSOR_MAX_DIMS];
    int ns = dims_of(vm, a[1], shifts), nd = dims_of(vm, a[2], dims);
    if (ns < 0 || nd < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = shifts;
    args.n_ints = ns;
    args.ints2 = dims;
    args.n_ints2 = nd;
    return op1(vm, TENSOR_OP_ROLL, T(argv[0]), &args);
}

static Value m_flip(ARGS) {
    SELF_CHECK("flip");
    int64_t dims[TENSOR_MAX_DIMS];
    int nd;
    if (kw && kw->len == 1 && argc == 1 && str_eq_c(AS_STR(kw->items[0]), "dims")) {
        nd = dims_of(vm, argv[1], dims);
        if (nd < 0) return val_null();
    } else if (kw && kw->len) {
        return vm_raise(vm, vm->e_TypeError, "flip() got an unexpected keyword argument '%s'", AS_STR(kw->items[0])->data);
    } else if (torch_shape_args(vm, argc - 1, argv + 1, dims, &nd, "flip") < 0) {
        return val_null();
    }
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = dims;
    args.n_ints = nd;
    return op1(vm, TENSOR_OP_FLIP, T(argv[0]), &args);
}

/* sort(dim=-1, descending=False, stable=False) / argsort(dim=-1, descending=False) (data: argsort) */
static Value m_sort(ARGS) {
    SELF_CHECK(fn->name);
    bool arg = fn->data != NULL;
    static const char *const names[] = {"input", "dim", "descending", "stable"};
    Value a[4];
    if (parse(vm, fn->name, argc, argv, kw, arg ? 3 : 3, 1, names, arg ? 3 : 4, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = -1;
    bool desc = false, stable = false;
    if (!val_is_null(a[1]) && !val_is_none(a[1]) && torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &desc) < 0) return val_null();
    if (!arg && !val_is_null(a[3]) && !val_is_none(a[3]) && torch_bool_arg(vm, a[3], &stable) < 0) return val_null();
    args.step = desc ? -1 : 1;   /* Ember's sort is always stable */
    Tensor *in[1] = {T(a[0])}, *out[2] = {NULL, NULL};
    if (ag_op_run(TENSOR_OP_SORT, in, 1, &args, out, 2) < 0) return torch_raise_error(vm);
    if (arg) {
        tensor_decref(out[0]);
        return torch_wrap(vm, out[1]);
    }
    return torch_wrap_pair(vm, "sort", out);
}

static Value m_topk(ARGS) {
    SELF_CHECK("topk");
    static const char *const names[] = {"input", "k", "dim", "largest", "sorted"};
    Value a[5];
    if (parse(vm, "topk", argc, argv, kw, 5, 2, names, 5, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = -1;
    bool largest = true, sorted = true;
    if (torch_int_arg(vm, a[1], "k", &args.start) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_int_arg(vm, a[2], "dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[3]) && torch_bool_arg(vm, a[3], &largest) < 0) return val_null();
    if (!val_is_null(a[4]) && torch_bool_arg(vm, a[4], &sorted) < 0) return val_null();
    args.step = largest ? -1 : 1;   /* results come sorted either way */
    Tensor *in[1] = {T(a[0])}, *out[2] = {NULL, NULL};
    if (ag_op_run(TENSOR_OP_TOPK, in, 1, &args, out, 2) < 0) return torch_raise_error(vm);
    return torch_wrap_pair(vm, "topk", out);
}

static Value m_cumsum(ARGS) {
    SELF_CHECK("cumsum");
    static const char *const names[] = {"input", "dim", "dtype"};
    Value a[3];
    if (parse(vm, "cumsum", argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_dtype_of(vm, a[2], &args.dtype) < 0) return val_null();
    return op1(vm, TENSOR_OP_CUMSUM, T(a[0]), &args);
}

/* ---- shape ops --------------------------------------------------------------------------------------- */

/* PyTorch 1.13 names some composite ops' result node after the op rather than the kernel Ember
 * ran: reshape / reshape_as / flatten of a tensor that can be viewed is ATen's _reshape_alias
 * (ReshapeAliasBackward0; the copying case is _unsafe_view's UnsafeViewBackward0, as Ember's),
 * repeat is RepeatBackward0.  Only the name changes, only of a node this call made (not the
 * input's own, e.g. flatten returning its input) and before a Python object wraps it. */
static Value named_result(VM *vm, Tensor *in, Tensor *r, const char *from, const char *name) {
    AgNode *n = r ? ag_grad_fn(r) : NULL;
    if (n && n != ag_grad_fn(in) && !ag_node_user_obj(n) && (!from || strcmp(ag_node_name(n), from) == 0))
        ag_node_set_name(n, name);
    return torch_result(vm, r);
}

static Value m_view(ARGS) {
    SELF_CHECK(fn->name);
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", fn->name);
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (argc == 2 && val_is_type(vm, argv[1], torch_state(vm)->t_dtype))
        return vm_raise(vm, vm->e_NotImplementedError, "view(dtype) is not supported");
    if (torch_shape_args(vm, argc - 1, argv + 1, shape, &nd, fn->name) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = shape;
    args.n_ints = nd;
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    if (op == TENSOR_OP_RESHAPE)
        return named_result(vm, T(argv[0]), ag_op1(op, (Tensor *[]){T(argv[0])}, 1, &args), "ViewBackward0",
                            "ReshapeAliasBackward0");
    return op1(vm, op, T(argv[0]), &args);
}

static Value m_view_as(ARGS) {
    SELF_CHECK(fn->name);
    if (argc != 2 || !torch_is_tensor(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "%s(other)", fn->name);
    Tensor *o = T(argv[1]);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = tensor_shape(o);
    args.n_ints = tensor_ndim(o);
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    if (op == TENSOR_OP_RESHAPE)
        return named_result(vm, T(argv[0]), ag_op1(op, (Tensor *[]){T(argv[0])}, 1, &args), "ViewBackward0",
                            "ReshapeAliasBackward0");
    return op1(vm, op, T(argv[0]), &args);
}

static Value m_transpose(ARGS) {
    SELF_CHECK("transpose");
    static const char *const names[] = {"input", "dim0", "dim1"};
    Value a[3];
    if (parse(vm, "transpose", argc, argv, kw, 3, 3, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, a[1], "dim0", &args.dim) < 0 || torch_int_arg(vm, a[2], "dim1", &args.dim2) < 0) return val_null();
    return op1(vm, TENSOR_OP_TRANSPOSE, T(a[0]), &args);
}

static Value m_permute(ARGS) {
    SELF_CHECK("permute");
    int64_t dims[TENSOR_MAX_DIMS];
    int nd;
    if (torch_shape_args(vm, argc - 1, argv + 1, dims, &nd, "permute") < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = dims;
    args.n_ints = nd;
    return op1(vm, TENSOR_OP_PERMUTE, T(argv[0]), &args);
}

static Value m_dim_op(ARGS) {
    /* unsqueeze(dim) / squeeze(dim=None) / select(dim, index) style with one int */
    SELF_CHECK(fn->name);
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    static const char *const names[] = {"input", "dim"};
    Value a[2];
    if (parse(vm, fn->name, argc, argv, kw, 2, op == TENSOR_OP_SQUEEZE_DIM ? 1 : 2, names, 2, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (op == TENSOR_OP_SQUEEZE_DIM && (val_is_null(a[1]) || val_is_none(a[1])))
        return op1(vm, TENSOR_OP_SQUEEZE, T(a[0]), &args);
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    return op1(vm, op, T(a[0]), &args);
}

static Value m_flatten(ARGS) {
    SELF_CHECK("flatten");
    static const char *const names[] = {"input", "start_dim", "end_dim"};
    Value a[3];
    if (parse(vm, "flatten", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = 0;
    args.dim2 = -1;
    if (!val_is_null(a[1]) && torch_int_arg(vm, a[1], "start_dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_int_arg(vm, a[2], "end_dim", &args.dim2) < 0) return val_null();
    return named_result(vm, T(a[0]), ag_op1(TENSOR_OP_FLATTEN, (Tensor *[]){T(a[0])}, 1, &args), "ViewBackward0",
                        "ReshapeAliasBackward0");
}

static Value m_expand(ARGS) {
    SELF_CHECK("expand");
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    if (torch_shape_args(vm, argc - 1, argv + 1, shape, &nd, "expand") < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = shape;
    args.n_ints = nd;
    return op1(vm, TENSOR_OP_EXPAND, T(argv[0]), &args);
}

static Value m_narrow(ARGS) {
    SELF_CHECK("narrow");
    if (argc != 4) return vm_raise(vm, vm->e_TypeError, "narrow(dim, start, length)");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    int64_t len;
    if (torch_int_arg(vm, argv[1], "dim", &args.dim) < 0 || torch_int_arg(vm, argv[2], "start", &args.start) < 0 ||
        torch_int_arg(vm, argv[3], "length", &len) < 0)
        return val_null();
    args.step = len;   /* NARROW: dim, start, step=length */
    return op1(vm, TENSOR_OP_NARROW, T(argv[0]), &args);
}

static Value m_select(ARGS) {
    SELF_CHECK("select");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "select(dim, index)");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, argv[1], "dim", &args.dim) < 0 || torch_int_arg(vm, argv[2], "index", &args.start) < 0)
        return val_null();
    return op1(vm, TENSOR_OP_SELECT, T(argv[0]), &args);
}

static Value tuple_of_outputs(VM *vm, Tensor **outs, int n) {
    TupleObj *t = tuple_new(vm, n);
    if (!t) {
        for (int i = 0; i < n; i++) tensor_decref(outs[i]);
        return val_null();
    }
    vm_push_root(vm, val_obj(t));
    Value r = val_obj(t);
    for (int i = 0; i < n; i++) {
        Value v = torch_wrap(vm, outs[i]);
        if (val_is_null(v)) {
            for (int k = i + 1; k < n; k++) tensor_decref(outs[k]);
            r = val_null();
            break;
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    return r;
}

static Value m_split(ARGS) {
    SELF_CHECK(fn->name);
    TensorOp op = (TensorOp)(intptr_t)fn->data;
    static const char *const names[] = {"input", "split_size_or_sections", "dim"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 3, op == TENSOR_OP_UNBIND ? 1 : 2, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = 0;
    int64_t sizes[64];
    if (op == TENSOR_OP_UNBIND) {
        if (!val_is_null(a[1]) && torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    } else {
        if (!val_is_null(a[2]) && torch_int_arg(vm, a[2], "dim", &args.dim) < 0) return val_null();
        if (op == TENSOR_OP_SPLIT && !val_is_intlike(a[1])) {
            int64_t n;
            Value holder = val_null();
            Value *items = vm_sequence_items(vm, a[1], &n, &holder);
            if (!items) return val_null();
            if (n > 64) return vm_raise(vm, vm->e_NotImplementedError, "split into more than 64 sections is not supported");
            for (int64_t i = 0; i < n; i++) sizes[i] = val_as_intlike(items[i]);
            op = TENSOR_OP_SPLIT_WITH_SIZES;
            args.ints = sizes;
            args.n_ints = (int32_t)n;
        } else if (torch_int_arg(vm, a[1], op == TENSOR_OP_CHUNK ? "chunks" : "split_size", &args.start) < 0) {
            return val_null();
        }
    }
    Tensor *in[1] = {T(a[0])};
    int n = tensor_op_num_outputs(op, 1, (const Tensor *const *)in, &args);
    if (n < 0) return torch_raise_error(vm);
    Tensor *outs[256];
    if (n > 256) return vm_raise(vm, vm->e_NotImplementedError, "more than 256 outputs are not supported");
    int got = ag_op_run(op, in, 1, &args, outs, n);
    if (got < 0) return torch_raise_error(vm);
    return tuple_of_outputs(vm, outs, got);
}

static Value m_contiguous(ARGS) {
    SELF_CHECK("contiguous");
    static const char *const names[] = {"self", "memory_format"};
    Value a[2];
    if (parse(vm, "contiguous", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    TensorMemoryFormat mf = TENSOR_MF_CONTIGUOUS;
    if (torch_memory_format_of(vm, a[1], &mf) < 0) return val_null();
    if (tensor_is_contiguous_as(T(a[0]), mf)) return a[0];
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.memory_format = (uint8_t)mf;
    return op1(vm, TENSOR_OP_CONTIGUOUS, T(a[0]), &args);
}

static Value m_repeat(ARGS) {
    SELF_CHECK("repeat");
    int64_t reps[TENSOR_MAX_DIMS];
    int nr;
    if (torch_shape_args(vm, argc - 1, argv + 1, reps, &nr, "repeat") < 0) return val_null();
    Tensor *t = T(argv[0]);
    int nd = tensor_ndim(t);
    if (nr < nd)
        return vm_raise(vm, vm->e_RuntimeError,
                        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    /* repeat = unsqueeze + expand + reshape of the tiled layout (differentiable through those) */
    Tensor *cur = t;
    tensor_incref(cur);
    for (int i = 0; i < nr - nd; i++) {
        Tensor *u = ag_unsqueeze(cur, 0);
        tensor_decref(cur);
        if (!u) return torch_raise_error(vm);
        cur = u;
    }
    int64_t exp_shape[2 * TENSOR_MAX_DIMS], out_shape[TENSOR_MAX_DIMS], mid_shape[2 * TENSOR_MAX_DIMS];
    const int64_t *sh = tensor_shape(cur);
    for (int i = 0; i < nr; i++) {
        mid_shape[2 * i] = 1;
        mid_shape[2 * i + 1] = sh[i];
        exp_shape[2 * i] = reps[i];
        exp_shape[2 * i + 1] = sh[i];
        out_shape[i] = reps[i] * sh[i];
    }
    if (2 * nr > TENSOR_MAX_DIMS) {
        tensor_decref(cur);
        return vm_raise(vm, vm->e_NotImplementedError, "repeat of more than %d dims", TENSOR_MAX_DIMS / 2);
    }
    Tensor *m = ag_reshape(cur, mid_shape, 2 * nr);
    tensor_decref(cur);
    if (!m) return torch_raise_error(vm);
    Tensor *e = ag_expand(m, exp_shape, 2 * nr);
    tensor_decref(m);
    if (!e) return torch_raise_error(vm);
    Tensor *r = ag_reshape(e, out_shape, nr);
    tensor_decref(e);
    if (r && tensor_same_storage(r, t)) {
        /* nothing was tiled (all repeats 1, or only size-1 dims repeated): the reshape is still a
         * view of self, where ATen's repeat always writes a new tensor */
        Tensor *c = ag_clone(r);
        tensor_decref(r);
        r = c;
    }
    return named_result(vm, t, r, NULL, "RepeatBackward0");
}

/* ---- in place ------------------------------------------------------------------------------------------ */

static Value inplace_result(VM *vm, Value self, int rc) { return rc < 0 ? torch_raise_error(vm) : self; }

static Value m_zero_(ARGS) { SELF_CHECK("zero_"); return inplace_result(vm, argv[0], ag_zero_(T(argv[0]))); }

static Value m_fill_(ARGS) {
    SELF_CHECK("fill_");
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "fill_() takes exactly one argument");
    TensorScalar s;
    int sr = scalar_arg(vm, argv[1], &s);
    if (sr < 0) return val_null();
    if (sr == 0)
        return vm_raise(vm, vm->e_TypeError, "fill_(): argument 'value' must be Number, not %s", vm_type_name(vm, argv[1]));
    return inplace_result(vm, argv[0], ag_fill_(T(argv[0]), s));
}

static Value m_copy_(ARGS) {
    SELF_CHECK("copy_");
    if (argc < 2 || !torch_is_tensor(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "copy_(): argument 'src' must be Tensor, not %s",
                        argc < 2 ? "nothing" : vm_type_name(vm, argv[1]));
    return inplace_result(vm, argv[0], ag_copy_(T(argv[0]), T(argv[1])));
}

static Value m_relu_(ARGS) { SELF_CHECK("relu_"); return inplace_result(vm, argv[0], ag_relu_(T(argv[0]))); }

static Value m_named_inplace(ARGS) {
    /* add_(other, alpha=1), sub_, mul_, div_ */
    const BinSpec *s = fn->data;
    static const char *const names[] = {"self", "other", "alpha"};
    Value a[3];
    if (parse(vm, fn->name, argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "%s(): self must be a Tensor", fn->name);
    TensorScalar alpha = tensor_scalar_i(1);
    bool has_alpha = !val_is_null(a[2]);
    if (has_alpha && alpha_arg(vm, fn->name, a[2], &alpha) < 0) return val_null();
    Value r = binary(vm, s, a[0], a[1], alpha, has_alpha);
    if (val_identical(r, vm->not_implemented))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'other' must be Tensor or Number, not %s", fn->name,
                        vm_type_name(vm, a[1]));
    return r;
}

static Value m_normal_(ARGS) {
    static const char *const names[] = {"self", "mean", "std", "generator"};
    Value a[4];
    if (parse(vm, "normal_", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    double mean = 0, std = 1;
    TensorGenerator *g;
    if (!val_is_null(a[1]) && vm_to_double(vm, a[1], &mean) < 0) return val_null();
    if (!val_is_null(a[2]) && vm_to_double(vm, a[2], &std) < 0) return val_null();
    if (torch_generator_arg(vm, a[3], "normal_", &g) < 0) return val_null();
    return inplace_result(vm, a[0], tensor_normal_gen_(T(a[0]), mean, std, g));
}

static Value m_uniform_(ARGS) {
    static const char *const names[] = {"self", "from", "to", "generator"};
    Value a[4];
    if (parse(vm, "uniform_", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    double lo = 0, hi = 1;
    TensorGenerator *g;
    if (!val_is_null(a[1]) && vm_to_double(vm, a[1], &lo) < 0) return val_null();
    if (!val_is_null(a[2]) && vm_to_double(vm, a[2], &hi) < 0) return val_null();
    if (torch_generator_arg(vm, a[3], "uniform_", &g) < 0) return val_null();
    return inplace_result(vm, a[0], tensor_uniform_gen_(T(a[0]), lo, hi, g));
}

/* ---- autograd-related methods ------------------------------------------------------------------------- */

static Value m_detach(ARGS) { SELF_CHECK("detach"); return torch_result(vm, ag_detach(T(argv[0]))); }
static Value m_detach_(ARGS) { return inplace_result(vm, argv[0], ag_detach_(T(argv[0]))); }
static Value m_clone(ARGS) {
    SELF_CHECK("clone");
    static const char *const names[] = {"self", "memory_format"};
    Value v[2];
    if (parse(vm, "clone", argc, argv, kw, 1, 1, names, 2, v) < 0) return val_null();
    TensorMemoryFormat mf = TENSOR_MF_PRESERVE;   /* clone()'s default */
    if (torch_memory_format_of(vm, v[1], &mf) < 0) return val_null();
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.memory_format = (uint8_t)mf;
    return op1(vm, TENSOR_OP_CLONE, T(v[0]), &a);
}

static Value m_requires_grad_(ARGS) {
    static const char *const names[] = {"self", "requires_grad"};
    Value a[2];
    if (parse(vm, "requires_grad_", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    bool b = true;
    if (!val_is_null(a[1]) && torch_bool_arg(vm, a[1], &b) < 0) return val_null();
    return inplace_result(vm, a[0], ag_set_requires_grad(T(a[0]), b));
}

static Value m_retain_grad(ARGS) { return inplace_result(vm, val_none(), ag_retain_grad(T(argv[0]))); }

static Value m_equal(ARGS) {
    SELF_CHECK("equal");
    if (argc != 2 || !torch_is_tensor(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "equal(other): other must be a Tensor");
    if (!tensor_has_data(T(argv[0])) || !tensor_has_data(T(argv[1])))
        return vm_raise(vm, vm->e_RuntimeError, "Tensor.equal() cannot be called on meta tensors");
    return val_bool(tensor_equal(T(argv[0]), T(argv[1])));
}

static Value m_allclose(ARGS) {
    SELF_CHECK("allclose");
    static const char *const names[] = {"input", "other", "rtol", "atol", "equal_nan"};
    Value a[5];
    if (parse(vm, "allclose", argc, argv, kw, 5, 2, names, 5, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "allclose(): argument 'other' must be Tensor");
    if (!tensor_has_data(T(a[0])) || !tensor_has_data(T(a[1])))
        return vm_raise(vm, vm->e_RuntimeError, "Tensor.allclose() cannot be called on meta tensors");
    double rtol = 1e-5, atol = 1e-8;
    bool en = false;
    if (!val_is_null(a[2]) && vm_to_double(vm, a[2], &rtol) < 0) return val_null();
    if (!val_is_null(a[3]) && vm_to_double(vm, a[3], &atol) < 0) return val_null();
    if (!val_is_null(a[4]) && torch_bool_arg(vm, a[4], &en) < 0) return val_null();
    int r = tensor_allclose(T(a[0]), T(a[1]), rtol, atol, en);
    return r < 0 ? torch_raise_error(vm) : val_bool(r);
}

/* new_zeros/new_ones/new_empty(size), new_full(size, value), new_tensor(data): same dtype */
static Value m_new(ARGS) {
    SELF_CHECK(fn->name);
    Tensor *self = T(argv[0]);
    TensorDtype dt = tensor_dtype(self);
    int nkw = kw ? (int)kw->len : 0;
    for (int k = 0; k < nkw; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        if (str_eq_c(n, "dtype")) {
            if (torch_dtype_of(vm, argv[argc + k], &dt) < 0) return val_null();
        } else if (!str_eq_c(n, "device") && !str_eq_c(n, "requires_grad")) {
            return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument '%s'", fn->name, n->data);
        }
    }
    const char *which = fn->data;
    if (strcmp(which, "tensor") == 0) {
        if (argc != 2) return vm_raise(vm, vm->e_TypeError, "new_tensor(data)");
        return torch_result(vm, torch_tensor_from_data(vm, argv[1], dt));
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nd;
    int nsize = strcmp(which, "full") == 0 ? 1 : argc - 1;
    if (nsize == 1 && argc >= 2) {
        if (torch_shape_args(vm, 1, argv + 1, shape, &nd, fn->name) < 0) return val_null();
    } else if (torch_shape_args(vm, nsize, argv + 1, shape, &nd, fn->name) < 0) {
        return val_null();
    }
    if (strcmp(which, "full") == 0) {
        TensorScalar s;
        if (argc != 3 || !torch_scalar_of(vm, argv[2], &s)) return vm_raise(vm, vm->e_TypeError, "new_full(size, fill_value)");
        return torch_result(vm, tensor_full(dt, nd, shape, s));
    }
    if (strcmp(which, "ones") == 0) return torch_result(vm, tensor_ones(dt, nd, shape));
    return torch_result(vm, tensor_zeros(dt, nd, shape));
}

/* ---- the remaining ops of the table: addmm, as_strided, bernoulli, index_add, index_put, masked_scatter -- */

static Value m_addmm(ARGS) {
    SELF_CHECK("addmm");
    static const char *const names[] = {"input", "mat1", "mat2", "beta", "alpha"};
    Value a[5];
    if (parse(vm, "addmm", argc, argv, kw, 3, 3, names, 5, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[1]) || !torch_is_tensor(vm, a[2]))
        return vm_raise(vm, vm->e_TypeError, "addmm(): argument 'mat1' and 'mat2' must be Tensor");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[3]) && !torch_scalar_of(vm, a[3], &args.beta))
        return vm_raise(vm, vm->e_TypeError, "addmm(): argument 'beta' must be Number, not %s", vm_type_name(vm, a[3]));
    if (!val_is_null(a[4]) && !torch_scalar_of(vm, a[4], &args.alpha))
        return vm_raise(vm, vm->e_TypeError, "addmm(): argument 'alpha' must be Number, not %s", vm_type_name(vm, a[4]));
    Tensor *in[3] = {T(a[0]), T(a[1]), T(a[2])}, *owned[3] = {NULL, NULL, NULL};
    if (torch_autocast_lower(vm, in, 3, owned) < 0) return val_null();
    Value r = torch_result(vm, ag_op1(TENSOR_OP_ADDMM, in, 3, &args));
    for (int i = 0; i < 3; i++) tensor_decref(owned[i]);
    return r;
}

static Value m_as_strided(ARGS) {
    SELF_CHECK("as_strided");
    static const char *const names[] = {"input", "size", "stride", "storage_offset"};
    Value a[4];
    if (parse(vm, "as_strided", argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    int64_t size[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
    int ns, nst;
    if (torch_shape_value(vm, a[1], size, &ns, "as_strided") < 0 || torch_shape_value(vm, a[2], stride, &nst, "as_strided") < 0)
        return val_null();
    if (ns != nst)
        return vm_raise(vm, vm->e_RuntimeError, "mismatch in length of strides and shape");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = size;
    args.n_ints = ns;
    args.ints2 = stride;
    args.n_ints2 = nst;
    /* no storage_offset: the input's own (start -1), not its value now — a graph recorded from a
     * view replays on a view at another offset */
    args.start = -1;
    if (!val_is_null(a[3]) && !val_is_none(a[3])) {
        if (torch_int_arg(vm, a[3], "storage_offset", &args.start) < 0) return val_null();
        if (args.start < 0)
            return vm_raise(vm, vm->e_RuntimeError, "Tensor: invalid storage offset %lld", (long long)args.start);
    }
    return op1(vm, TENSOR_OP_AS_STRIDED, T(a[0]), &args);
}

static Value m_bernoulli(ARGS) {
    SELF_CHECK("bernoulli");
    /* bernoulli(input, *, generator) draws with input as p; bernoulli(input, p) fills a tensor
     * shaped like input with Bernoulli(p) */
    static const char *const names[] = {"input", "p", "generator"};
    Value a[3];
    if (parse(vm, "bernoulli", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_generator_arg(vm, a[2], "bernoulli", &args.gen) < 0) return val_null();
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        double p;
        if (vm_to_double(vm, a[1], &p) < 0) return val_null();
        Tensor *r = tensor_empty_like(T(a[0]));
        if (!r) return torch_raise_error(vm);
        if (tensor_bernoulli_scalar_(r, p, args.gen) < 0) {
            tensor_decref(r);
            return torch_raise_error(vm);
        }
        return torch_wrap(vm, r);
    }
    return op1(vm, TENSOR_OP_BERNOULLI, T(a[0]), &args);
}

static Value m_index_add(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "dim", "index", "source", "alpha"};
    Value a[5];
    if (parse(vm, "index_add", argc, argv, kw, 4, 4, names, 5, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[2]) || !torch_is_tensor(vm, a[3]))
        return vm_raise(vm, vm->e_TypeError, "index_add(): argument 'index' and 'source' must be Tensor");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (torch_int_arg(vm, a[1], "dim", &args.dim) < 0) return val_null();
    if (!val_is_null(a[4]) && !torch_scalar_of(vm, a[4], &args.alpha))
        return vm_raise(vm, vm->e_TypeError, "index_add(): argument 'alpha' must be Number, not %s", vm_type_name(vm, a[4]));
    Tensor *in[3] = {T(a[0]), T(a[2]), T(a[3])};
    return torch_result(vm, ag_op1(op_or_inplace(fn, TENSOR_OP_INDEX_ADD, TENSOR_OP_INDEX_ADD_), in, 3, &args));
}

/* index_put(indices, values, accumulate=False) / index_put_: indices a tuple of index tensors
 * (leading Nones skip dims, as full slices) */
static Value m_index_put(ARGS) {
    SELF_CHECK(fn->name);
    static const char *const names[] = {"input", "indices", "values", "accumulate"};
    Value a[4];
    if (parse(vm, fn->name, argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[2]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'values' must be Tensor, not %s", fn->name, vm_type_name(vm, a[2]));
    Value holder = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, a[1], &n, &holder);
    if (!items) {
        vm_clear_exc(vm);
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'indices' must be tuple of Tensors, not %s", fn->name,
                        vm_type_name(vm, a[1]));
    }
    Tensor *self = T(a[0]), *values = T(a[2]);
    if (tensor_dtype(self) != tensor_dtype(values)) {
        static const char *const cn[] = {"Float", "Long", "Bool"};
        return vm_raise(vm, vm->e_RuntimeError,
                        "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                        cn[tensor_dtype(self)], cn[tensor_dtype(values)]);
    }
    Tensor *in[2 + TENSOR_MAX_DIMS];
    int64_t lead = 0, k = 0;
    while (lead < n && val_is_none(items[lead])) lead++;
    if (n - lead > TENSOR_MAX_DIMS) return vm_raise(vm, vm->e_IndexError, "too many indices for tensor of dimension %d", tensor_ndim(self));
    for (int64_t i = lead; i < n; i++) {
        if (!torch_is_tensor(vm, items[i]))
            return vm_raise(vm, vm->e_NotImplementedError, "%s(): indices after the first Tensor must be Tensors in Ember", fn->name);
        in[2 + k++] = T(items[i]);
    }
    if (k == 0) return vm_raise(vm, vm->e_RuntimeError, "%s(): expected at least one index tensor", fn->name);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = lead;
    if (!val_is_null(a[3]) && torch_bool_arg(vm, a[3], &args.accumulate) < 0) return val_null();
    in[0] = self;
    in[1] = values;
    vm_push_root(vm, holder);
    Value r;
    if (fn->data) {
        Tensor *out = NULL;
        if (ag_op_run(TENSOR_OP_INDEX_PUT_, in, (int)(2 + k), &args, &out, 1) < 0) r = torch_raise_error(vm);
        else {
            tensor_decref(out);
            r = a[0];
        }
    } else {
        r = torch_result(vm, ag_op1(TENSOR_OP_INDEX_PUT, in, (int)(2 + k), &args));
    }
    vm_pop_root(vm);
    return r;
}

static Value m_masked_scatter(ARGS) {
    SELF_CHECK(fn->name);
    if (native_check_args(vm, "masked_scatter", argc, kw, 3, 3) < 0) return val_null();
    if (!torch_is_tensor(vm, argv[1]) || !torch_is_tensor(vm, argv[2]))
        return vm_raise(vm, vm->e_TypeError, "masked_scatter(): argument 'mask' and 'source' must be Tensor");
    Tensor *in[3] = {T(argv[0]), T(argv[1]), T(argv[2])};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    return torch_result(vm, ag_op1(op_or_inplace(fn, TENSOR_OP_MASKED_SCATTER, TENSOR_OP_MASKED_SCATTER_), in, 3, &args));
}

/* torch.rsub(input, other, alpha=1) = other - alpha * input */
static Value m_rsub(ARGS) {
    SELF_CHECK("rsub");
    static const char *const names[] = {"input", "other", "alpha"};
    Value a[3];
    if (parse(vm, "rsub", argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (!val_is_null(a[2]) && !torch_scalar_of(vm, a[2], &args.alpha))
        return vm_raise(vm, vm->e_TypeError, "rsub(): argument 'alpha' must be Number, not %s", vm_type_name(vm, a[2]));
    if (torch_scalar_of(vm, a[1], &args.scalar)) return op1(vm, TENSOR_OP_RSUB_SCALAR, T(a[0]), &args);
    if (!torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "rsub(): argument 'other' must be Tensor, not %s", vm_type_name(vm, a[1]));
    Tensor *in[2] = {T(a[1]), T(a[0])};
    return torch_result(vm, ag_op1(TENSOR_OP_SUB, in, 2, &args));
}

/* ---- the table ------------------------------------------------------------------------------------------ */

/* div / divide / div_ / divide_ with rounding_mode=: None divides as m_binary_named and
 * m_named_inplace do; 'trunc' and 'floor' (ATen's div_trunc / div_floor kernels) are
 * torch/_composites_more.py's _div_rounding, which the mode's check and message also come from */
static Value m_div(ARGS) {
    bool inplace = fn->name[strlen(fn->name) - 1] == '_';
    int nkw = kw ? (int)kw->len : 0, mode_at = -1;
    for (int i = 0; i < nkw; i++)
        if (str_eq_c(AS_STR(kw->items[i]), "rounding_mode")) mode_at = i;
    if (mode_at < 0) return inplace ? m_named_inplace(vm, argc, argv, kw, fn) : m_binary_named(vm, argc, argv, kw, fn);
    if (argc + nkw > 8) return vm_raise(vm, vm->e_TypeError, "%s() takes at most 3 arguments", fn->name);
    /* the arguments with rounding_mode last, and _inplace after it */
    Value args[9];
    TupleObj *names = tuple_new(vm, nkw + 1);
    if (!names) return val_null();
    vm_push_root(vm, val_obj(names));
    for (int i = 0; i < argc; i++) args[i] = argv[i];
    for (int i = 0, j = 0; i < nkw; i++) {
        if (i == mode_at) continue;
        names->items[j] = kw->items[i];
        args[argc + j++] = argv[argc + i];
    }
    names->items[nkw - 1] = kw->items[mode_at];
    args[argc + nkw - 1] = argv[argc + mode_at];
    names->items[nkw] = vm_intern(vm, "_inplace");
    args[argc + nkw] = val_bool(inplace);
    Value r = val_null();
    Value mod = vm_import_module(vm, "torch._composites_more");
    if (!val_is_null(mod)) {
        Value f = vm_getattr_c(vm, mod, "_div_rounding");
        if (!val_is_null(f)) r = vm_call(vm, f, argc, args, names);
    }
    vm_pop_root(vm);
    return r;
}

#define BD(name, spec) {name, m_binary_dunder, NATIVEF_METHOD, (void *)&spec}
#define BN(name, spec) {name, m_binary_named, NATIVEF_METHOD, (void *)&spec}
#define BI(name, spec) {name, m_binary_inplace, NATIVEF_METHOD, (void *)&spec}

static const MethodDef tensor_methods[] = {
    /* operators */
    BD("__add__", b_add), BD("__radd__", rb_add), BD("__iadd__", ib_add),
    BD("__sub__", b_sub), BD("__rsub__", rb_sub), BD("__isub__", ib_sub),
    BD("__mul__", b_mul), BD("__rmul__", rb_mul), BD("__imul__", ib_mul),
    BD("__truediv__", b_div), {"__rtruediv__", m_rtruediv, NATIVEF_METHOD, NULL}, BD("__itruediv__", ib_div),
    BD("__floordiv__", b_fdiv), BD("__rfloordiv__", rb_fdiv), BD("__mod__", b_rem), BD("__rmod__", rb_rem),
    BD("__pow__", b_pow), BD("__rpow__", rb_pow),
    BD("__eq__", b_eq), BD("__ne__", b_ne), BD("__lt__", b_lt), BD("__le__", b_le), BD("__gt__", b_gt), BD("__ge__", b_ge),
    BD("__and__", b_band), BD("__or__", b_bor), BD("__xor__", b_bxor),
    BD("__rand__", rb_band), BD("__ror__", rb_bor), BD("__rxor__", rb_bxor),
    BI("__ipow__", b_pow), BI("__imod__", b_rem), BI("__ifloordiv__", b_fdiv),
    BI("__iand__", b_band), BI("__ior__", b_bor), BI("__ixor__", b_bxor),
    BI("bitwise_and_", b_band), BI("bitwise_or_", b_bor), BI("bitwise_xor_", b_bxor),
    BI("pow_", b_pow), BI("remainder_", b_rem), BI("floor_divide_", b_fdiv),
    BI("logical_and_", b_land), BI("logical_or_", b_lor), BI("logical_xor_", b_lxor),
    {"__matmul__", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_MATMUL},
    {"__rmatmul__", m_rmatmul, NATIVEF_METHOD},
    {"__neg__", m_neg, NATIVEF_METHOD}, {"__pos__", m_pos, NATIVEF_METHOD},
    {"__invert__", m_invert, NATIVEF_METHOD},
    {"__bool__", m_bool, NATIVEF_METHOD}, {"__float__", m_float_dunder, NATIVEF_METHOD},
    {"__int__", m_int_dunder, NATIVEF_METHOD}, {"__index__", m_index_dunder, NATIVEF_METHOD},
    {"__len__", m_len, NATIVEF_METHOD}, {"__iter__", m_iter, NATIVEF_METHOD}, {"__format__", m_format, NATIVEF_METHOD},
    /* arithmetic by name */
    BN("add", b_add), BN("sub", b_sub), BN("subtract", b_sub), BN("mul", b_mul), BN("multiply", b_mul),
    {"div", m_div, NATIVEF_METHOD, (void *)&b_div}, {"divide", m_div, NATIVEF_METHOD, (void *)&b_div}, BN("true_divide", b_div), BN("pow", b_pow),
    BN("remainder", b_rem), BN("floor_divide", b_fdiv), BN("atan2", b_atan2), BN("arctan2", b_atan2),
    BN("fmod", b_fmod), BN("hypot", b_hypot), BN("logaddexp", b_logaddexp), BN("logaddexp2", b_logaddexp2),
    BN("copysign", b_copysign), BI("fmod_", b_fmod), BI("atan2_", b_atan2), BI("arctan2_", b_atan2), BI("hypot_", b_hypot),
    BI("copysign_", b_copysign),
    BN("eq", b_eq), BN("ne", b_ne), BN("lt", b_lt), BN("le", b_le), BN("gt", b_gt), BN("ge", b_ge),
    BN("maximum", b_max2), BN("minimum", b_min2),
    BN("logical_and", b_land), BN("logical_or", b_lor), BN("logical_xor", b_lxor),
    BN("bitwise_and", b_band), BN("bitwise_or", b_bor), BN("bitwise_xor", b_bxor),
    {"add_", m_named_inplace, NATIVEF_METHOD, (void *)&ib_add}, {"sub_", m_named_inplace, NATIVEF_METHOD, (void *)&ib_sub},
    {"mul_", m_named_inplace, NATIVEF_METHOD, (void *)&ib_mul}, {"div_", m_div, NATIVEF_METHOD, (void *)&ib_div}, {"divide_", m_div, NATIVEF_METHOD, (void *)&ib_div},
    {"matmul", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_MATMUL},
    {"mm", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_MM},
    {"bmm", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_BMM},
    {"mv", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_MV},
    {"dot", m_matmul, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_DOT},
    /* unary pointwise ops: generated from the op table (op_natives.c) */
    {"clamp", m_clamp, NATIVEF_METHOD}, {"clip", m_clamp, NATIVEF_METHOD},
    {"clamp_", m_clamp, NATIVEF_METHOD, (void *)1}, {"clamp_min", m_clamp_min, NATIVEF_METHOD},
    {"where", m_where, NATIVEF_METHOD},
    /* reductions */
    {"sum", m_reduce, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_SUM},
    {"mean", m_reduce, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_MEAN},
    {"prod", m_reduce, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_PROD},
    {"max", m_maxmin, NATIVEF_METHOD, (void *)1}, {"min", m_maxmin, NATIVEF_METHOD, NULL},
    {"amax", m_amax, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_AMAX},
    {"amin", m_amax, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_AMIN},
    {"argmax", m_arg, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_ARGMAX},
    {"argmin", m_arg, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_ARGMIN},
    {"var", m_var, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_VAR},
    {"std", m_var, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_STD},
    {"logsumexp", m_logsumexp, NATIVEF_METHOD},
    {"all", m_allany, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_ALL},
    {"any", m_allany, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_ANY},
    {"softmax", m_softmax, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_SOFTMAX},
    {"log_softmax", m_softmax, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_LOG_SOFTMAX},
    /* indexing helpers */
    {"masked_fill", m_masked_fill, NATIVEF_METHOD}, {"masked_fill_", m_masked_fill, NATIVEF_METHOD, (void *)1},
    {"gather", m_dim_index_op, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_GATHER},
    {"index_select", m_dim_index_op, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_INDEX_SELECT},
    {"scatter_add", m_scatter_add, NATIVEF_METHOD}, {"scatter_add_", m_scatter_add, NATIVEF_METHOD},
    {"masked_select", m_masked_select, NATIVEF_METHOD},
    /* shape */
    {"view", m_view, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_VIEW},
    {"reshape", m_view, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_RESHAPE},
    {"view_as", m_view_as, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_VIEW},
    {"reshape_as", m_view_as, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_RESHAPE},
    {"expand_as", m_view_as, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_EXPAND},
    {"transpose", m_transpose, NATIVEF_METHOD}, {"swapaxes", m_transpose, NATIVEF_METHOD},
    {"t", m_unary, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_T},
    {"permute", m_permute, NATIVEF_METHOD}, {"expand", m_expand, NATIVEF_METHOD},
    {"unsqueeze", m_dim_op, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_UNSQUEEZE},
    {"squeeze", m_dim_op, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_SQUEEZE_DIM},
    {"flatten", m_flatten, NATIVEF_METHOD}, {"narrow", m_narrow, NATIVEF_METHOD}, {"select", m_select, NATIVEF_METHOD},
    {"split", m_split, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_SPLIT},
    {"chunk", m_split, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_CHUNK},
    {"unbind", m_split, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_UNBIND},
    {"contiguous", m_contiguous, NATIVEF_METHOD}, {"repeat", m_repeat, NATIVEF_METHOD},
    {"split_with_sizes", m_split, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_SPLIT},
    {"addmm", m_addmm, NATIVEF_METHOD}, {"as_strided", m_as_strided, NATIVEF_METHOD},
    {"bernoulli", m_bernoulli, NATIVEF_METHOD}, {"index_add", m_index_add, NATIVEF_METHOD},
    {"index_add_", m_index_add, NATIVEF_METHOD},
    {"index_put", m_index_put, NATIVEF_METHOD, NULL}, {"index_put_", m_index_put, NATIVEF_METHOD, (void *)1},
    {"masked_scatter", m_masked_scatter, NATIVEF_METHOD}, {"masked_scatter_", m_masked_scatter, NATIVEF_METHOD},
    {"tril", m_tri, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_TRIL},
    {"triu", m_tri, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_OP_TRIU},
    {"roll", m_roll, NATIVEF_METHOD}, {"flip", m_flip, NATIVEF_METHOD},
    {"sort", m_sort, NATIVEF_METHOD}, {"argsort", m_sort, NATIVEF_METHOD, (void *)1},
    {"topk", m_topk, NATIVEF_METHOD}, {"cumsum", m_cumsum, NATIVEF_METHOD},
    {"isnan", m_isfloatclass, NATIVEF_METHOD, (void *)0}, {"isinf", m_isfloatclass, NATIVEF_METHOD, (void *)1},
    {"isfinite", m_isfloatclass, NATIVEF_METHOD, (void *)2},
    {"outer", m_composite, NATIVEF_METHOD}, {"ger", m_composite, NATIVEF_METHOD},
    {"nan_to_num", m_composite, NATIVEF_METHOD}, {"isclose", m_composite, NATIVEF_METHOD},
    {"lerp", m_composite, NATIVEF_METHOD}, {"diagonal", m_composite, NATIVEF_METHOD},
    {"diag", m_composite, NATIVEF_METHOD}, {"trace", m_composite, NATIVEF_METHOD},
    {"baddbmm", m_composite, NATIVEF_METHOD}, {"baddbmm_", m_composite, NATIVEF_METHOD}, {"repeat_interleave", m_composite, NATIVEF_METHOD},
    {"square", m_composite, NATIVEF_METHOD}, {"addcmul", m_composite, NATIVEF_METHOD},
    {"addcdiv", m_composite, NATIVEF_METHOD}, {"deg2rad", m_composite, NATIVEF_METHOD},
    {"rad2deg", m_composite, NATIVEF_METHOD}, {"addcmul_", m_composite, NATIVEF_METHOD},
    {"addcdiv_", m_composite, NATIVEF_METHOD}, {"signbit", m_composite, NATIVEF_METHOD},
    {"dist", m_composite, NATIVEF_METHOD}, {"movedim", m_composite, NATIVEF_METHOD},
    {"moveaxis", m_composite, NATIVEF_METHOD}, {"diff", m_composite, NATIVEF_METHOD},
    {"nansum", m_composite, NATIVEF_METHOD}, {"nanmean", m_composite, NATIVEF_METHOD},
    {"median", m_composite, NATIVEF_METHOD}, {"nanmedian", m_composite, NATIVEF_METHOD},
    {"aminmax", m_composite, NATIVEF_METHOD}, {"rot90", m_composite, NATIVEF_METHOD},
    {"kron", m_composite, NATIVEF_METHOD}, {"addmv", m_composite, NATIVEF_METHOD},
    {"addr", m_composite, NATIVEF_METHOD}, {"cross", m_composite, NATIVEF_METHOD},
    {"float_power", m_composite, NATIVEF_METHOD}, {"ldexp", m_composite, NATIVEF_METHOD},
    {"heaviside", m_composite, NATIVEF_METHOD}, {"renorm", m_composite, NATIVEF_METHOD},
    {"quantile", m_composite, NATIVEF_METHOD}, {"nanquantile", m_composite, NATIVEF_METHOD},
    /* torch/_composites_more.py (and the in-place forms torch/_composites.py defines) */
    {"bitwise_left_shift", m_composite, NATIVEF_METHOD}, {"bitwise_right_shift", m_composite, NATIVEF_METHOD}, {"bitwise_left_shift_", m_composite, NATIVEF_METHOD},
    {"bitwise_right_shift_", m_composite, NATIVEF_METHOD}, {"__lshift__", m_composite, NATIVEF_METHOD}, {"__rshift__", m_composite, NATIVEF_METHOD},
    {"__rlshift__", m_composite, NATIVEF_METHOD}, {"__rrshift__", m_composite, NATIVEF_METHOD}, {"__ilshift__", m_composite, NATIVEF_METHOD},
    {"__irshift__", m_composite, NATIVEF_METHOD},
    {"cumsum_", m_composite, NATIVEF_METHOD}, {"cumprod_", m_composite, NATIVEF_METHOD}, {"tril_", m_composite, NATIVEF_METHOD},
    {"triu_", m_composite, NATIVEF_METHOD}, {"heaviside_", m_composite, NATIVEF_METHOD}, {"multiply_", m_composite, NATIVEF_METHOD},
    {"subtract_", m_composite, NATIVEF_METHOD}, {"true_divide_", m_composite, NATIVEF_METHOD}, {"lerp_", m_composite, NATIVEF_METHOD},
    {"renorm_", m_composite, NATIVEF_METHOD}, {"float_power_", m_composite, NATIVEF_METHOD}, {"get_device", m_composite, NATIVEF_METHOD},
    {"is_inference", m_composite, NATIVEF_METHOD},
    /* torch/_composites_fn.py */
    {"new", m_composite_fn, NATIVEF_METHOD}, {"fmax", m_composite_fn, NATIVEF_METHOD}, {"fmin", m_composite_fn, NATIVEF_METHOD},
    {"hardshrink", m_composite_fn, NATIVEF_METHOD}, {"addmm_", m_composite_fn, NATIVEF_METHOD}, {"addr_", m_composite_fn, NATIVEF_METHOD},
    {"put_", m_composite_fn, NATIVEF_METHOD}, {"put", m_composite_fn, NATIVEF_METHOD},
    {"unsqueeze_", m_composite_fn, NATIVEF_METHOD}, {"squeeze_", m_composite_fn, NATIVEF_METHOD},
    {"t_", m_composite_fn, NATIVEF_METHOD}, {"transpose_", m_composite_fn, NATIVEF_METHOD},
    {"swapaxes_", m_composite_fn, NATIVEF_METHOD}, {"swapdims_", m_composite_fn, NATIVEF_METHOD},
    {"resize_", m_composite_fn, NATIVEF_METHOD}, {"resize_as_", m_composite_fn, NATIVEF_METHOD},
    {"broadcast_to", m_composite, NATIVEF_METHOD}, {"ravel", m_composite, NATIVEF_METHOD}, {"tile", m_composite, NATIVEF_METHOD},
    {"swapdims", m_composite, NATIVEF_METHOD}, {"unflatten", m_composite, NATIVEF_METHOD}, {"fliplr", m_composite, NATIVEF_METHOD},
    {"flipud", m_composite, NATIVEF_METHOD}, {"hsplit", m_composite, NATIVEF_METHOD}, {"vsplit", m_composite, NATIVEF_METHOD},
    {"dsplit", m_composite, NATIVEF_METHOD}, {"unsafe_chunk", m_composite, NATIVEF_METHOD}, {"unsafe_split", m_composite, NATIVEF_METHOD},
    {"unsafe_split_with_sizes", m_composite, NATIVEF_METHOD}, {"narrow_copy", m_composite, NATIVEF_METHOD}, {"sum_to_size", m_composite, NATIVEF_METHOD},
    {"select_scatter", m_composite, NATIVEF_METHOD}, {"slice_scatter", m_composite, NATIVEF_METHOD}, {"diagonal_scatter", m_composite, NATIVEF_METHOD},
    {"clamp_max", m_composite, NATIVEF_METHOD}, {"clamp_min_", m_composite, NATIVEF_METHOD}, {"clamp_max_", m_composite, NATIVEF_METHOD},
    {"clip_", m_composite, NATIVEF_METHOD}, {"absolute", m_composite, NATIVEF_METHOD}, {"absolute_", m_composite, NATIVEF_METHOD},
    {"positive", m_composite, NATIVEF_METHOD}, {"greater", m_composite, NATIVEF_METHOD}, {"greater_", m_composite, NATIVEF_METHOD},
    {"greater_equal", m_composite, NATIVEF_METHOD}, {"greater_equal_", m_composite, NATIVEF_METHOD}, {"less", m_composite, NATIVEF_METHOD},
    {"less_", m_composite, NATIVEF_METHOD}, {"less_equal", m_composite, NATIVEF_METHOD}, {"less_equal_", m_composite, NATIVEF_METHOD},
    {"not_equal", m_composite, NATIVEF_METHOD}, {"not_equal_", m_composite, NATIVEF_METHOD}, {"eq_", m_composite, NATIVEF_METHOD},
    {"ne_", m_composite, NATIVEF_METHOD}, {"lt_", m_composite, NATIVEF_METHOD}, {"le_", m_composite, NATIVEF_METHOD},
    {"gt_", m_composite, NATIVEF_METHOD}, {"ge_", m_composite, NATIVEF_METHOD}, {"is_complex", m_composite, NATIVEF_METHOD},
    {"is_conj", m_composite, NATIVEF_METHOD}, {"is_neg", m_composite, NATIVEF_METHOD}, {"is_signed", m_composite, NATIVEF_METHOD},
    {"is_nonzero", m_composite, NATIVEF_METHOD}, {"is_same_size", m_composite, NATIVEF_METHOD}, {"conj", m_composite, NATIVEF_METHOD},
    {"resolve_conj", m_composite, NATIVEF_METHOD}, {"resolve_neg", m_composite, NATIVEF_METHOD}, {"conj_physical", m_composite, NATIVEF_METHOD},
    {"isposinf", m_composite, NATIVEF_METHOD}, {"isneginf", m_composite, NATIVEF_METHOD}, {"isreal", m_composite, NATIVEF_METHOD},
    {"gcd", m_composite, NATIVEF_METHOD}, {"gcd_", m_composite, NATIVEF_METHOD}, {"lcm", m_composite, NATIVEF_METHOD},
    {"lcm_", m_composite, NATIVEF_METHOD}, {"inner", m_composite, NATIVEF_METHOD}, {"vdot", m_composite, NATIVEF_METHOD},
    {"addbmm", m_composite, NATIVEF_METHOD}, {"addbmm_", m_composite, NATIVEF_METHOD}, {"diag_embed", m_composite, NATIVEF_METHOD},
    {"diagflat", m_composite, NATIVEF_METHOD}, {"msort", m_composite, NATIVEF_METHOD}, {"mode", m_composite, NATIVEF_METHOD},
    {"fill_diagonal_", m_composite, NATIVEF_METHOD}, {"cov", m_composite, NATIVEF_METHOD}, {"corrcoef", m_composite, NATIVEF_METHOD},
    {"matrix_power", m_composite, NATIVEF_METHOD}, {"addmv_", m_composite, NATIVEF_METHOD}, {"deg2rad_", m_composite, NATIVEF_METHOD},
    {"rad2deg_", m_composite, NATIVEF_METHOD}, {"nan_to_num_", m_composite, NATIVEF_METHOD}, {"square_", m_composite, NATIVEF_METHOD},
    {"ldexp_", m_composite, NATIVEF_METHOD},
    /* in place */
    {"zero_", m_zero_, NATIVEF_METHOD}, {"fill_", m_fill_, NATIVEF_METHOD}, {"copy_", m_copy_, NATIVEF_METHOD},
    {"relu_", m_relu_, NATIVEF_METHOD}, {"normal_", m_normal_, NATIVEF_METHOD}, {"uniform_", m_uniform_, NATIVEF_METHOD},
    /* conversions and metadata */
    {"item", m_item, NATIVEF_METHOD}, {"tolist", m_tolist, NATIVEF_METHOD},
    {"float", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT32},
    {"double", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT64},
    {"half", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT16},
    {"bfloat16", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_BFLOAT16},
    {"long", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_INT64},
    {"int", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_INT32},
    {"short", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_INT16},
    {"char", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_INT8},
    {"byte", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_UINT8},
    {"bool", m_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_BOOL},
    {"to", m_to, NATIVEF_METHOD}, {"type_as", m_type_as, NATIVEF_METHOD}, {"type", m_type, NATIVEF_METHOD},
    {"cpu", m_cpu, NATIVEF_METHOD}, {"cuda", m_cuda, NATIVEF_METHOD},
    {"size", m_size, NATIVEF_METHOD}, {"stride", m_stride, NATIVEF_METHOD}, {"dim", m_dim, NATIVEF_METHOD},
    {"ndimension", m_dim, NATIVEF_METHOD}, {"numel", m_numel, NATIVEF_METHOD}, {"nelement", m_numel, NATIVEF_METHOD},
    {"element_size", m_element_size, NATIVEF_METHOD}, {"is_contiguous", m_is_contiguous, NATIVEF_METHOD},
    {"is_floating_point", m_is_floating_point, NATIVEF_METHOD}, {"storage_offset", m_storage_offset, NATIVEF_METHOD},
    {"data_ptr", m_data_ptr, NATIVEF_METHOD},
    {"new_zeros", m_new, NATIVEF_METHOD, (void *)"zeros"}, {"new_ones", m_new, NATIVEF_METHOD, (void *)"ones"},
    {"new_empty", m_new, NATIVEF_METHOD, (void *)"empty"}, {"new_full", m_new, NATIVEF_METHOD, (void *)"full"},
    {"new_tensor", m_new, NATIVEF_METHOD, (void *)"tensor"},
    /* autograd */
    {"detach", m_detach, NATIVEF_METHOD}, {"detach_", m_detach_, NATIVEF_METHOD}, {"clone", m_clone, NATIVEF_METHOD},
    {"requires_grad_", m_requires_grad_, NATIVEF_METHOD}, {"retain_grad", m_retain_grad, NATIVEF_METHOD},
    {"equal", m_equal, NATIVEF_METHOD}, {"allclose", m_allclose, NATIVEF_METHOD},
    {NULL}};

/* Natives that are torch.* or torch.nn.functional functions but not Tensor methods in PyTorch
 * (x.gelu() would run on Ember and fail under PyTorch). */
static const MethodDef function_only[] = {{"rsub", m_rsub, NATIVEF_METHOD}, {NULL}};

int torch_tensor_methods_init(VM *vm, TypeObj *t) {
    if (type_add_methods(vm, t, tensor_methods) < 0) return -1;
    return torch_op_methods_init(vm, t);
}

/* The native named `name` among the Tensor methods and the function-only natives, or NULL. */
const MethodDef *torch_find_native(const char *name) {
    for (const MethodDef *d = tensor_methods; d->name; d++)
        if (strcmp(d->name, name) == 0) return d;
    for (const MethodDef *d = function_only; d->name; d++)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

