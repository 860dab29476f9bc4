/* src/torch/out_args.c — out= as PyTorch 1.13 honours it, once for every torch function that
 * takes it: the natives of torch._C (through the __torch_function__ trampoline, overrides.c), the
 * Python-level functions of the library (torch._C._out_call, behind torch._mathops._outable) and
 * the matrix products (tensor_methods.c's matmul_out, which computes the product itself).
 *
 * ATen's out= kernels, in the order they act:
 *   1. autograd (VariableType): with grad mode on, an input or the out requiring grad raises
 *      "<aten name>(): functions with out=... arguments don't support automatic differentiation,
 *      but one of the arguments requires grad." (the aten name: linalg.inv says linalg_inv_ex);
 *   2. the kernel's dtype check, which differs by op family (the table's rule: a TensorIterator
 *      op casts its result into any out it can be cast to; LAPACK, BLAS and indexing kernels want
 *      the result's dtype exactly; sum/cumsum/creation functions compute in out's dtype);
 *   3. resize_output (aten/src/ATen/native/Resize.cpp): an out of the result's shape is written
 *      as is, keeping its strides; any other is resized (warning first when it had elements) and
 *      takes the result's strides when those are dense (TensorIterator gives a resized out the
 *      inputs' layout, LAPACK its column-major one), else contiguous ones;
 *   4. the result is copied in, and the function returns out itself (a tuple of the outs, of the
 *      result's return type, for ops with several results).
 * Ember computes the result first and copies it, so out may alias an input. */
#include <stdio.h>
#include <string.h>

#include "src/torch/module_internal.h"
#include "src/torch/torch.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- the table ------------------------------------------------------------------------------------ */

/* every out-taking torch function Ember has, with its aten name and dtype rule (checked against
 * PyTorch 1.13: tests/torch/math_ops/out_args.py, out_args_more.py) */
#define CAST(n) {n, n, TORCH_OUT_CAST, 0, NULL}
#define CAST_AS(n, a) {n, a, TORCH_OUT_CAST, 0, NULL}
#define FOUND(n) {n, n, TORCH_OUT_FOUND, 0, NULL}
#define FOUND_AS(n, a) {n, a, TORCH_OUT_FOUND, 0, NULL}
#define EXACT(n, a) {n, a, TORCH_OUT_EXACT, 0, NULL}
#define LAPACK(n, a) {n, a, TORCH_OUT_EXACT, TORCH_OUT_F_CONTIG, NULL}
#define OWN(n) {n, n, TORCH_OUT_OWN_DTYPE, 0, NULL}
#define CREATE(n) {n, n, TORCH_OUT_OWN_DTYPE, TORCH_OUT_QUIET, NULL}
#define NOGRAD(n) {n, NULL, TORCH_OUT_CAST, 0, NULL}
#define NATIVE(n) {n, n, TORCH_OUT_NATIVE, 0, NULL}
#define OWN_MSG(n, a, rule, msg) {n, a, rule, 0, NULL, msg}
#define AMAX_MSG "Expected the dtype for input and out to match, but got {r} for input's dtype and {o} for out's dtype."
#define CAT_MSG "torch.cat(): input types can't be cast to the desired output type {o}"
#define STD_MSG "\"std_cpu\" not implemented for '{o}'"
#define NANSUM_MSG "\"nansum_cpu\" not implemented for '{o}'"
#define SCALAR_TYPE_MSG "expected scalar_type {r} but found {o}"
static const TorchOutSpec specs[] = {
    /* pointwise (TensorIterator): the result cast into out */
    CAST("add"), CAST_AS("subtract", "sub"), CAST("sub"), CAST("mul"), CAST_AS("multiply", "mul"), CAST("div"),
    CAST_AS("divide", "div"), CAST_AS("true_divide", "div"), CAST("pow"), CAST("remainder"), CAST("floor_divide"),
    CAST("atan2"), CAST_AS("arctan2", "atan2"), CAST("fmod"), CAST("hypot"), CAST("logaddexp"), CAST("logaddexp2"),
    CAST("copysign"), CAST("maximum"), CAST("minimum"), CAST("where"),
    CAST("acos"), CAST_AS("arccos", "acos"), CAST("acosh"), CAST_AS("arccosh", "acosh"), CAST("asin"),
    CAST_AS("arcsin", "asin"), CAST("asinh"), CAST_AS("arcsinh", "asinh"), CAST("atan"), CAST_AS("arctan", "atan"),
    CAST("atanh"), CAST_AS("arctanh", "atanh"), CAST("cos"), CAST("cosh"), CAST("digamma"), CAST("erf"), CAST("erfc"),
    CAST("erfinv"), CAST("exp"), CAST("exp2"), CAST("expm1"), CAST("lgamma"), CAST("log"), CAST("log10"),
    CAST("log1p"), CAST("log2"), CAST("logit"), CAST("reciprocal"), CAST("rsqrt"), CAST("sigmoid"), CAST("sin"),
    CAST("sinc"), CAST("sinh"), CAST("sqrt"), CAST("tan"), CAST("tanh"), CAST("xlogy"),
    /* comparisons and logical ops: no gradient, so no autograd check */
    NOGRAD("eq"), NOGRAD("ne"), NOGRAD("lt"), NOGRAD("le"), NOGRAD("gt"), NOGRAD("ge"), NOGRAD("logical_and"),
    NOGRAD("logical_or"), NOGRAD("logical_xor"), NOGRAD("logical_not"),
    /* pointwise kernels that want out's dtype to be the result's ("Found dtype Long but expected Float") */
    FOUND("abs"), FOUND("ceil"), FOUND("floor"), FOUND_AS("fix", "trunc"), FOUND("trunc"), FOUND("frac"),
    FOUND("neg"), FOUND_AS("negative", "neg"), FOUND("round"), FOUND("sgn"), FOUND("sign"), FOUND("clamp"),
    FOUND_AS("clip", "clamp"),
    /* reductions and scans: sum/prod/cumsum/cumprod compute in out's dtype; only their dim= forms take out */
    {"sum", "sum", TORCH_OUT_OWN_DTYPE, TORCH_OUT_NEEDS_DIM, NULL}, {"prod", "prod", TORCH_OUT_OWN_DTYPE, TORCH_OUT_NEEDS_DIM, NULL},
    {"mean", "mean", TORCH_OUT_CAST, TORCH_OUT_NEEDS_DIM, NULL}, OWN("cumsum"), OWN("cumprod"),
    {"all", NULL, TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, NULL}, {"any", NULL, TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, NULL},
    {"max", "max", TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, "maximum"}, {"min", "min", TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, "minimum"},
    /* creation: the values made in out's dtype, out resized quietly (arange warns) */
    CREATE("zeros"), CREATE("ones"), CREATE("empty"), CREATE("full"), {"arange", "arange", TORCH_OUT_OWN_DTYPE, TORCH_OUT_RANGE, NULL}, CREATE("linspace"), CREATE("logspace"), CREATE("eye"),
    CREATE("rand"), CREATE("randn"), CREATE("randint"), CREATE("randperm"),
    {"multinomial", "multinomial", TORCH_OUT_EXACT, TORCH_OUT_QUIET, NULL},
    /* joining, indexing, softmax, products: cat casts; the others want the result's dtype */
    CAST("cat"), CAST_AS("concat", "cat"), CAST("stack"),
    EXACT("gather", "gather"), EXACT("tril", "tril"), EXACT("triu", "triu"), EXACT("index_add", "index_add"),
    EXACT("scatter_add", "scatter_add"), EXACT("softmax", NULL), EXACT("log_softmax", NULL), EXACT("addmm", "addmm"),
    /* several results: a tuple out, each the result's dtype */
    EXACT("sort", "sort"), EXACT("topk", "topk"),
    /* the products write out themselves (tensor_methods.c's matmul_out) */
    NATIVE("mm"), NATIVE("bmm"), NATIVE("mv"), NATIVE("dot"), NATIVE("matmul"),
    /* reductions with their kernels' own dtype errors */
    OWN_MSG("amax", "amax", TORCH_OUT_EXACT, AMAX_MSG), OWN_MSG("amin", "amin", TORCH_OUT_EXACT, AMAX_MSG),
    EXACT("argmax", NULL), EXACT("argmin", NULL), OWN_MSG("var", "var", TORCH_OUT_CAST, STD_MSG), OWN_MSG("std", "std", TORCH_OUT_CAST, STD_MSG),
    OWN_MSG("logsumexp", "logsumexp", TORCH_OUT_CAST, "logsumexp(): Expected floating point type for result tensor, but got: {o}"),
    OWN_MSG("nansum", "nansum", TORCH_OUT_CAST, NANSUM_MSG), OWN_MSG("nanmean", NULL, TORCH_OUT_CAST, NANSUM_MSG), OWN_MSG("quantile", NULL, TORCH_OUT_EXACT, "quantile() out tensor must be same dtype as the input tensor"),
    OWN_MSG("nanquantile", NULL, TORCH_OUT_EXACT, "quantile() out tensor must be same dtype as the input tensor"),
    /* (values, indices) outs: the values the input's dtype, the indices Long */
    OWN_MSG("cummax", "cummax", TORCH_OUT_EXACT, SCALAR_TYPE_MSG), OWN_MSG("cummin", "cummin", TORCH_OUT_EXACT, SCALAR_TYPE_MSG),
    OWN_MSG("logcumsumexp", "logcumsumexp", TORCH_OUT_EXACT, SCALAR_TYPE_MSG), EXACT("kthvalue", "kthvalue"),
    {"median", "median", TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, NULL, NULL},
    {"nanmedian", "nanmedian", TORCH_OUT_EXACT, TORCH_OUT_NEEDS_DIM, NULL, NULL}, EXACT("aminmax", NULL),
    /* indexing */
    OWN_MSG("index_select", "index_select", TORCH_OUT_EXACT, "index_select(): self and result must have the same scalar type"),
    OWN_MSG("masked_select", "masked_select", TORCH_OUT_EXACT, "masked_select(): self and result must have the same scalar type"),
    OWN_MSG("take", "take", TORCH_OUT_EXACT, "take(): self and out expected to have the same dtype, but got self.dtype = {r} and out.dtype = {o}"),
    EXACT("take_along_dim", "gather"), EXACT("index_copy", "index_copy"), EXACT("scatter", "scatter"),
    EXACT("scatter_reduce", "scatter_reduce"),
    OWN_MSG("histc", NULL, TORCH_OUT_EXACT,
            "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {rt} and hist {ot}"),
    {"nonzero", NULL, TORCH_OUT_EXACT, TORCH_OUT_TRANSPOSED, NULL,
     "nonzero: Expected out tensor to have scalar type {r} but got scalar type{o}"},
    OWN_MSG("diag", "diag", TORCH_OUT_EXACT, "expected scalar type {r} but found {o}"),
    /* products and pointwise composites */
    EXACT("cross", "linalg_cross"), EXACT("linalg.cross", "linalg_cross"), EXACT("baddbmm", "baddbmm"),
    EXACT("addmv", "addmv"), CAST("addr"), CAST_AS("kron", "mul"), CAST_AS("outer", "mul"),
    EXACT("linalg.matrix_power", "mm"),
    OWN_MSG("linalg.multi_dot", "mm", TORCH_OUT_EXACT, "multi_dot(): expected out tensor to have dtype {rt} but got {ot}"),
    CAST("lerp"), CAST("addcmul"), CAST("addcdiv"), CAST("deg2rad"), CAST("rad2deg"), CAST_AS("diff", "sub"),
    CAST_AS("ldexp", "mul"), CAST("polygamma"), EXACT("renorm", "renorm"), FOUND_AS("square", "pow"),
    OWN_MSG("nan_to_num", "nan_to_num", TORCH_OUT_EXACT, "nan_to_num: dtype of out: {o} should be same as input: {r}"),
    OWN_MSG("float_power", "pow", TORCH_OUT_EXACT,
            "the output given to float_power has dtype {o} but the operation's result requires dtype {r}"),
    OWN_MSG("heaviside", NULL, TORCH_OUT_EXACT, "heaviside is not yet implemented for tensors with different dtypes."),
    OWN_MSG("signbit", NULL, TORCH_OUT_EXACT, "signbit does not support non-boolean outputs."),
    OWN_MSG("column_stack", "cat", TORCH_OUT_CAST, CAT_MSG), OWN_MSG("hstack", "cat", TORCH_OUT_CAST, CAT_MSG),
    OWN_MSG("vstack", "cat", TORCH_OUT_CAST, CAT_MSG), OWN_MSG("dstack", "cat", TORCH_OUT_CAST, CAT_MSG),
    /* torch.special's names of the pointwise ops (their natives are named without "special.") */
    CAST_AS("expit", "sigmoid"), CAST_AS("gammaln", "lgamma"), CAST_AS("psi", "digamma"),
    /* the Python-level functions (torch._C._out_call) */
    LAPACK("linalg.cholesky", "linalg_cholesky_ex"), LAPACK("linalg.cholesky_ex", "linalg_cholesky_ex"),
    LAPACK("cholesky", "cholesky"), LAPACK("linalg.qr", "linalg_qr"), LAPACK("qr", "linalg_qr"),
    LAPACK("linalg.solve", "_linalg_solve_ex"), LAPACK("linalg.solve_triangular", "linalg_solve_triangular"),
    LAPACK("triangular_solve", "triangular_solve"), LAPACK("linalg.inv", "linalg_inv_ex"),
    LAPACK("linalg.inv_ex", "linalg_inv_ex"), LAPACK("inverse", "linalg_inv_ex"), EXACT("linalg.det", "_linalg_det"),
    EXACT("linalg.slogdet", "_linalg_slogdet"), EXACT("slogdet", "_linalg_slogdet"),
    EXACT("linalg.svdvals", "_linalg_svd"), EXACT("linalg.vector_norm", "linalg_vector_norm"),
    EXACT("linalg.matrix_norm", NULL), EXACT("linalg.norm", NULL), {"norm", NULL, TORCH_OUT_OWN_DTYPE, 0, NULL},
    EXACT("tensordot", NULL), CAST("searchsorted"), CAST("bucketize"), EXACT("fft.fftfreq", NULL),
    EXACT("fft.rfftfreq", NULL), LAPACK("linalg.svd", "_linalg_svd"), LAPACK("svd", "_linalg_svd"),
    LAPACK("linalg.eigh", "_linalg_eigh"), LAPACK("linalg.eigvalsh", "_linalg_eigh"), EXACT("linalg.matrix_rank", NULL),
    EXACT("linalg.pinv", NULL),
};

const TorchOutSpec *torch_out_spec(const char *name) {
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (strcmp(specs[i].name, name) == 0) return &specs[i];
    return NULL;
}

/* ---- the steps ------------------------------------------------------------------------------------ */

static bool tensor_requires_grad(VM *vm, Value v) { return torch_is_tensor(vm, v) && ag_requires_grad(torch_tensor_of(v)); }

/* a tensor among the arguments (or in a list/tuple argument, as cat's) requires grad */
static bool any_requires_grad(VM *vm, int n, const Value *args) {
    for (int i = 0; i < n; i++) {
        Value v = args[i];
        if (tensor_requires_grad(vm, v)) return true;
        if (v.tag != VAL_OBJ || (v.as.o->type != vm->t_list && v.as.o->type != vm->t_tuple)) continue;
        bool list = v.as.o->type == vm->t_list;
        int64_t len = list ? AS_LIST(v)->len : AS_TUPLE(v)->len;
        for (int64_t k = 0; k < len; k++)
            if (tensor_requires_grad(vm, list ? AS_LIST(v)->items[k] : AS_TUPLE(v)->items[k])) return true;
    }
    return false;
}

int torch_out_check_grad(VM *vm, const TorchOutSpec *s, int n, const Value *args) {
    if (!s->aten || !ag_is_grad_enabled() || !any_requires_grad(vm, n, args)) return 0;
    vm_raise(vm, vm->e_RuntimeError,
             "%s(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
             "requires grad.", s->aten);
    return -1;
}

/* the entry's own wording of its dtype error: {r}/{o} name the result's/out's dtype as "Float",
 * {rt}/{ot} as "float" */
static void raise_own_msg(VM *vm, const char *msg, TensorDtype r, TensorDtype o) {
    char buf[512];
    size_t k = 0;
    for (const char *c = msg; *c && k + 1 < sizeof buf;) {
        const char *sub = NULL;
        size_t skip = 1;
        if (strncmp(c, "{rt}", 4) == 0) sub = tensor_dtype_ctype(r), skip = 4;
        else if (strncmp(c, "{ot}", 4) == 0) sub = tensor_dtype_ctype(o), skip = 4;
        else if (strncmp(c, "{r}", 3) == 0) sub = tensor_dtype_cname(r), skip = 3;
        else if (strncmp(c, "{o}", 3) == 0) sub = tensor_dtype_cname(o), skip = 3;
        if (sub) k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", sub);
        else buf[k++] = *c;
        c += skip;
        if (k >= sizeof buf) k = sizeof buf - 1;
    }
    buf[k] = 0;
    vm_raise(vm, vm->e_RuntimeError, "%s", buf);
}

static int dtype_check(VM *vm, const TorchOutSpec *s, TensorDtype r, TensorDtype o) {
    if (r == o || ((s->rule == TORCH_OUT_CAST || s->rule == TORCH_OUT_OWN_DTYPE) && tensor_dtype_can_cast(r, o)))
        return 0;
    if (s->msg)
        raise_own_msg(vm, s->msg, r, o);
    else if (s->rule == TORCH_OUT_EXACT)
        vm_raise(vm, vm->e_RuntimeError, "Expected out tensor to have dtype %s, but got %s instead", tensor_dtype_ctype(r),
                 tensor_dtype_ctype(o));
    else if (s->rule == TORCH_OUT_SAME_AS_INPUT)
        vm_raise(vm, vm->e_RuntimeError, "result dtype %s does not match input dtype %s", tensor_dtype_cname(o),
                 tensor_dtype_cname(r));
    else if (s->rule == TORCH_OUT_FOUND)
        vm_raise(vm, vm->e_RuntimeError, "Found dtype %s but expected %s", tensor_dtype_cname(o), tensor_dtype_cname(r));
    else
        vm_raise(vm, vm->e_RuntimeError, "result type %s can't be cast to the desired output type %s", tensor_dtype_cname(r),
                 tensor_dtype_cname(o));
    return -1;
}

static void format_shape(char *buf, size_t cap, int nd, const int64_t *shape) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < nd && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* LAPACK's layout for a resized out: each matrix column-major, the batch row-major over them */
static void f_contig_strides(int nd, const int64_t *shape, int64_t *st) {
    int64_t n = 1;
    if (nd >= 2) {
        st[nd - 2] = 1;
        st[nd - 1] = shape[nd - 2] > 1 ? shape[nd - 2] : 1;
        n = shape[nd - 2] * shape[nd - 1];
    }
    for (int i = nd - 3; i >= 0; i--) {
        st[i] = n > 1 ? n : 1;
        n *= shape[i];
    }
}

/* resize_output: out takes the result's shape, warning (TORCH_WARN) when it had elements */
static int resize_output(VM *vm, const TorchOutSpec *s, Tensor *o, const Tensor *r) {
    int nd = tensor_ndim(r);
    const int64_t *shape = tensor_shape(r);
    if (tensor_ndim(o) == nd && memcmp(tensor_shape(o), shape, sizeof(int64_t) * (size_t)nd) == 0) return 0;
    if (tensor_numel(o) != 0 && !(s->flags & TORCH_OUT_QUIET)) {
        char had[256], want[256];
        format_shape(had, sizeof had, tensor_ndim(o), tensor_shape(o));
        format_shape(want, sizeof want, nd, shape);
        StrObj *msg =
            s->flags & TORCH_OUT_RANGE
                ? str_printf(vm,
                             "The number of elements in the out tensor of shape %s is %lld which does not match the "
                             "computed number of elements %lld. Note that this may occur as a result of rounding error. "
                             "The out tensor will be resized to a tensor of shape (%lld,). (Triggered internally at  "
                             "./aten/src/ATen/native/RangeFactories.cpp:188.)",
                             had, (long long)tensor_numel(o), (long long)tensor_numel(r), (long long)tensor_numel(r))
                : str_printf(vm,
                             "An output with one or more elements was resized since it had shape %s, which does not "
                             "match the required output shape %s. This behavior is deprecated, and in a future "
                             "PyTorch release outputs will not be resized unless they have zero elements. You can "
                             "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                             "t.resize_(0). (Triggered internally at  ./aten/src/ATen/native/Resize.cpp:17.)",
                             had, want);
        if (!msg || nn_warn(vm, msg) < 0) return -1;
    }
    /* a dense result lends out its layout (TensorIterator's resized outs) */
    int64_t fst[TENSOR_MAX_DIMS];
    const int64_t *strides = tensor_is_non_overlapping_and_dense(r) ? tensor_strides(r) : NULL;
    if (((s->flags & TORCH_OUT_F_CONTIG) && nd >= 2 && tensor_dtype_is_floating(tensor_dtype(r))) ||
        ((s->flags & TORCH_OUT_TRANSPOSED) && nd == 2)) {
        f_contig_strides(nd, shape, fst);
        strides = fst;
    }
    if (tensor_resize_(o, nd, shape, strides) < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}

int torch_out_write(VM *vm, const TorchOutSpec *s, Tensor *o, Tensor *r) {
    if (dtype_check(vm, s, tensor_dtype(r), tensor_dtype(o)) < 0 || resize_output(vm, s, o, r) < 0) return -1;
    if (ag_copy_(o, r) < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}

/* the function as PyTorch's argument errors name it ("linalg.qr" -> "linalg_qr") */
static void py_name(const TorchOutSpec *s, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", s->name);
    for (char *c = buf; *c; c++)
        if (*c == '.') *c = '_';
}

static Value out_finish(VM *vm, const TorchOutSpec *s, Value result, Value out) {
    if (val_is_null(result)) return result;
    char name[64];
    py_name(s, name, sizeof name);
    if (torch_is_tensor(vm, result)) {
        if (!torch_is_tensor(vm, out))
            return vm_raise(vm, vm->e_TypeError, "%s(): argument 'out' must be Tensor, not %s", name, vm_type_name(vm, out));
        if (torch_out_write(vm, s, torch_tensor_of(out), torch_tensor_of(result)) < 0) return val_null();
        return out;
    }
    /* several results: out is a tuple or list of as many tensors */
    EM_ASSERT(result.tag == VAL_OBJ && type_is_subtype(result.as.o->type, vm->t_tuple), "an out= op returned no tensor");
    TupleObj *rt = AS_TUPLE(result);
    bool list = out.tag == VAL_OBJ && out.as.o->type == vm->t_list;
    if (!list && !(out.tag == VAL_OBJ && out.as.o->type == vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'out' must be tuple of Tensors, not %s", name,
                        vm_type_name(vm, out));
    int64_t n = list ? AS_LIST(out)->len : AS_TUPLE(out)->len;
    if (n != rt->len)
        return vm_raise(vm, vm->e_TypeError, "expected tuple of %lld elements but got %lld", (long long)rt->len, (long long)n);
    Value *items = list ? AS_LIST(out)->items : AS_TUPLE(out)->items;
    for (int64_t i = 0; i < n; i++)
        if (!torch_is_tensor(vm, items[i]))
            return vm_raise(vm, vm->e_TypeError, "%s(): argument 'out' must be tuple of Tensors, not %s", name,
                            vm_type_name(vm, out));
    for (int64_t i = 0; i < n; i++)
        if (torch_out_write(vm, s, torch_tensor_of(items[i]), torch_tensor_of(rt->items[i])) < 0) return val_null();
    vm_push_root(vm, result);
    TupleObj *r = tuple_alloc(vm, result.as.o->type, n);
    vm_pop_root(vm);
    if (!r) return val_null();
    items = list ? AS_LIST(out)->items : AS_TUPLE(out)->items;
    for (int64_t i = 0; i < n; i++) r->items[i] = items[i];
    return val_obj(r);
}

/* callee(*argv, **kw) without kw's entry k_out (the out keyword), plus dtype=dtype when dtype is
 * not null */
static Value call_without_out(VM *vm, Value callee, int argc, Value *argv, TupleObj *kw, int64_t k_out, Value dtype) {
    int nkw = (int)kw->len, nk = nkw - 1 + !val_is_null(dtype), j = 0;
    int base = vm->roots.n;
    Value r = val_null();
    TupleObj *names = tuple_new(vm, nk);
    if (!names) return r;
    vm_push_root(vm, val_obj(names));
    Value args[argc + nk + 1];
    memcpy(args, argv, sizeof(Value) * (size_t)argc);
    for (int64_t k = 0; k < nkw; k++)
        if (k != k_out) {
            names->items[j] = kw->items[k];
            args[argc + j++] = argv[argc + k];
        }
    if (!val_is_null(dtype)) {
        StrObj *d = vm_intern_str(vm, "dtype");
        if (!d) goto done;
        names->items[j] = val_obj(d);
        args[argc + j] = dtype;
    }
    r = vm_call(vm, callee, argc, args, nk ? names : NULL);
done:
    vm->roots.n = base;
    return r;
}

int64_t torch_out_kw_index(TupleObj *kw) {
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (str_eq_c(AS_STR(kw->items[k]), "out")) return k;
    return -1;
}

Value torch_out_call(VM *vm, const TorchOutSpec *s, Value callee, int argc, Value *argv, TupleObj *kw, int64_t k_out) {
    int nkw = (int)kw->len;
    Value out = argv[argc + k_out];
    if (val_is_none(out)) return call_without_out(vm, callee, argc, argv, kw, k_out, val_null());
    if (s->binary && argc >= 2 && torch_is_tensor(vm, argv[1])) s = torch_out_spec(s->binary);
    if (torch_out_check_grad(vm, s, argc + nkw, argv) < 0) return val_null();   /* out is among argv */
    bool has_dim = argc >= 2, has_dtype = false;
    for (int k = 0; k < nkw; k++) {
        has_dim |= str_eq_c(AS_STR(kw->items[k]), "dim");
        has_dtype |= str_eq_c(AS_STR(kw->items[k]), "dtype");
    }
    if ((s->flags & TORCH_OUT_NEEDS_DIM) && !has_dim)
        return vm_raise(vm, vm->e_TypeError, "%s() received an invalid combination of arguments - got (Tensor, out=Tensor)",
                        s->name);
    /* sum, cumsum, the creation functions: computed in out's dtype */
    Value dtype = s->rule == TORCH_OUT_OWN_DTYPE && !has_dtype && torch_is_tensor(vm, out)
                      ? torch_dtype_value(vm, tensor_dtype(torch_tensor_of(out)))
                      : val_null();
    Value r = call_without_out(vm, callee, argc, argv, kw, k_out, dtype);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    r = out_finish(vm, s, r, out);
    vm_pop_root(vm);
    return r;
}

/* torch._C._out_call(name, f, *args, out=..., **kwargs): f(*args, **kwargs) written into out as
 * the table's entry `name` says (the Python-level functions' path, torch._mathops._outable) */
static Value f_out_call(ARGS) {
    (void)fn;
    if (argc < 2 || !val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_out_call(name, f, *args, out=...)");
    const TorchOutSpec *s = torch_out_spec(AS_STR(argv[0])->data);
    if (!s) return vm_raise(vm, vm->e_ValueError, "_out_call(): no out= entry named %s", AS_STR(argv[0])->data);
    int64_t k = torch_out_kw_index(kw);
    if (k < 0) return vm_raise(vm, vm->e_TypeError, "_out_call(): out= missing");
    return torch_out_call(vm, s, argv[1], argc - 2, argv + 2, kw, k);
}

int torch_out_init(VM *vm, Value cmod) {
    static const MethodDef fns[] = {{"_out_call", f_out_call}, {NULL}};
    return module_add_functions(vm, cmod, fns);
}
