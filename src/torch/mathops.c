/* src/torch/mathops.c — the Python entry to branch opsmath's ops (ember/ops.def's opsmath block)
 * and the Tensor methods of torch/_mathops.py.
 *
 * torch._C._mathop(NAME, *tensors, **fields) runs table op TENSOR_OP_<NAME> with autograd, the
 * keywords filling TensorOpArgs fields of the same names (dim, dim2, start, step, keepdim,
 * has_min, has_max, accumulate, dtype, scalar, ints); pair=<name> returns the two outputs as
 * torch.return_types.<name>.  It is private (torch/_mathops.py gives each op PyTorch's
 * signature, checks and messages) and lives in torch._C, so the tracer runs it on fakes and
 * records the op as it records every torch._C native.  (A LAPACK failure on the input's values,
 * TENSOR_ERR_LINALG, becomes torch.linalg.LinAlgError in torch_raise_error.)
 *
 * Tensor methods (x.cumprod(0), x.norm(), ...) call the one Python definition in
 * torch/_mathops.py with self first, as tensor_methods.c's m_composite does for _composites. */
#include <stdio.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const char *const op_enum_names[] = {
#define X(NAME, ...) #NAME,
#include "ember/ops.def"
#undef X
};

static int find_op(const char *name, TensorOp *out) {
    for (int i = 0; i < TENSOR_OP_COUNT; i++)
        if (strcmp(op_enum_names[i], name) == 0) {
            *out = (TensorOp)i;
            return 0;
        }
    return -1;
}

static int set_field(VM *vm, TensorOpArgs *a, const char *k, Value v, int64_t *ints, const char **pair, Value *second) {
    int64_t i = 0;
    bool b = false;
    if (!strcmp(k, "dim") || !strcmp(k, "dim2") || !strcmp(k, "start") || !strcmp(k, "step") || !strcmp(k, "end")) {
        if (torch_int_arg(vm, v, k, &i) < 0) return -1;
        if (!strcmp(k, "dim")) a->dim = i;
        else if (!strcmp(k, "dim2")) a->dim2 = i;
        else if (!strcmp(k, "start")) a->start = i;
        else if (!strcmp(k, "end")) a->end = i;
        else a->step = i;
        return 0;
    }
    if (!strcmp(k, "keepdim") || !strcmp(k, "has_min") || !strcmp(k, "has_max") || !strcmp(k, "accumulate") ||
        !strcmp(k, "has_dim")) {
        if (torch_bool_arg(vm, v, &b) < 0) return -1;
        if (!strcmp(k, "keepdim")) a->keepdim = b;
        else if (!strcmp(k, "has_min")) a->has_min = b;
        else if (!strcmp(k, "has_max")) a->has_max = b;
        else if (!strcmp(k, "has_dim")) a->has_dim = b;
        else a->accumulate = b;
        return 0;
    }
    if (!strcmp(k, "correction")) {
        if (torch_int_arg(vm, v, k, &i) < 0) return -1;
        a->correction = (int32_t)i;
        return 0;
    }
    if (!strcmp(k, "dtype")) return val_is_none(v) ? 0 : torch_dtype_of(vm, v, &a->dtype);
    if (!strcmp(k, "scalar") || !strcmp(k, "scalar2")) {
        TensorScalar s;
        if (!torch_scalar_of(vm, v, &s)) {
            vm_raise(vm, vm->e_TypeError, "_mathop(): %s must be a number", k);
            return -1;
        }
        if (!strcmp(k, "scalar")) a->scalar = s;
        else a->scalar2 = s;
        return 0;
    }
    if (!strcmp(k, "ints")) {
        int nd = 0;
        if (torch_shape_value(vm, v, ints, &nd, "_mathop") < 0) return -1;
        a->ints = ints;
        a->n_ints = nd;
        return 0;
    }
    if (!strcmp(k, "second")) {   /* a one-output op's pair: this tensor is its second item */
        if (!torch_is_tensor(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "_mathop(): second must be a Tensor");
            return -1;
        }
        *second = v;
        return 0;
    }
    if (!strcmp(k, "pair")) {
        if (!val_is_str(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "_mathop(): pair must be a str");
            return -1;
        }
        *pair = AS_STR(v)->data;
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "_mathop() got an unexpected keyword argument '%s'", k);
    return -1;
}

/* ---- torch.return_types of the linear algebra ops (tuples with named fields) ------------------------- */

static const char *const rt_fields[][3] = {
    {"linalg_qr", "Q", "R"}, {"qr", "Q", "R"}, {"linalg_slogdet", "sign", "logabsdet"},
    {"slogdet", "sign", "logabsdet"}, {"triangular_solve", "solution", "cloned_coefficient"},
    {"linalg_cholesky_ex", "L", "info"}, {"linalg_inv_ex", "inverse", "info"},
    {"median", "values", "indices"}, {"nanmedian", "values", "indices"}, {"mode", "values", "indices"},
    {"aminmax", "min", "max"},
};
enum { N_RT = sizeof rt_fields / sizeof rt_fields[0] };

static Value rt_item0(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[0]; }
static Value rt_item1(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[1]; }

static Value rt_repr(ARGS) {
    const char *name = vm_type_name(vm, argv[0]);
    int k = 0;
    while (k < N_RT - 1 && strcmp(rt_fields[k][0], name) != 0) k++;
    TupleObj *t = AS_TUPLE(argv[0]);
    Value a = vm_repr(vm, t->items[0]);
    if (val_is_null(a)) return a;
    vm_push_root(vm, a);
    Value b = vm_repr(vm, t->items[1]);
    vm_pop_root(vm);
    if (val_is_null(b)) return b;
    StrObj *r = str_printf(vm, "torch.return_types.%s(\n%s=%s,\n%s=%s)", name, rt_fields[k][1], AS_STR(a)->data,
                           rt_fields[k][2], AS_STR(b)->data);
    return r ? val_obj(r) : val_null();
}

/* the types live in torch._C as _rt_<name> (which keeps them alive) */
static int rt_init(VM *vm, Value cmod) {
    static const MethodDef m[] = {{"__repr__", rt_repr, NATIVEF_METHOD}, {NULL}};
    for (int k = 0; k < N_RT; k++) {
        TypeObj *t = type_new_builtin(vm, rt_fields[k][0], vm->t_tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), 0, tuple_trace,
                                      NULL, 0);
        if (!t) return -1;
        vm_push_root(vm, val_obj(t));   /* reachable only from here until module_set */
        GetSetDef gs[3] = {{rt_fields[k][1], rt_item0, NULL, NULL}, {rt_fields[k][2], rt_item1, NULL, NULL}, {NULL}};
        char attr[64];
        snprintf(attr, sizeof attr, "_rt_%s", rt_fields[k][0]);
        int rc = type_add_getsets(vm, t, gs) < 0 || type_add_methods(vm, t, m) < 0 ? -1 : 0;
        if (rc == 0) {
            t->module = vm_intern(vm, "torch.return_types");
            rc = module_set(vm, cmod, attr, val_obj(t));
        }
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    return 0;
}

/* a and b stay rooted while the type is looked up and the pair allocated (both allocate) */
static Value make_pair_rooted(VM *vm, const char *name, Value a, Value b);
static Value make_pair(VM *vm, const char *name, Value a, Value b) {
    vm_push_root(vm, a);
    vm_push_root(vm, b);
    Value r = make_pair_rooted(vm, name, a, b);
    vm_pop_roots(vm, 2);
    return r;
}

static Value make_pair_rooted(VM *vm, const char *name, Value a, Value b) {
    for (int k = 0; k < N_RT; k++) {
        if (strcmp(rt_fields[k][0], name) != 0) continue;
        char attr[64];
        snprintf(attr, sizeof attr, "_rt_%s", rt_fields[k][0]);
        Value mod = vm_import_module(vm, "torch._C");
        if (val_is_null(mod)) return mod;
        Value t = vm_getattr_c(vm, mod, attr);
        if (val_is_null(t)) return t;
        TupleObj *r = tuple_alloc(vm, (TypeObj *)t.as.o, 2);
        if (!r) return val_null();
        r->items[0] = a;
        r->items[1] = b;
        return val_obj(r);
    }
    return torch_return_pair(vm, name, a, b);
}

static Value f_mathop(ARGS) {
    (void)fn;
    if (argc < 1 || !val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_mathop(): expected an op name");
    TensorOp op;
    if (find_op(AS_STR(argv[0])->data, &op) < 0)
        return vm_raise(vm, vm->e_ValueError, "_mathop(): no op named %s", AS_STR(argv[0])->data);
    enum { MAX_IN = 4 };
    Tensor *in[MAX_IN];
    int n = argc - 1;
    if (n > MAX_IN) return vm_raise(vm, vm->e_TypeError, "_mathop(): too many inputs");
    for (int i = 0; i < n; i++) {
        if (val_is_none(argv[1 + i])) {
            in[i] = NULL;
        } else if (torch_is_tensor(vm, argv[1 + i])) {
            in[i] = torch_tensor_of(argv[1 + i]);
        } else {
            return vm_raise(vm, vm->e_TypeError, "_mathop(): input %d must be a Tensor", i);
        }
    }
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    int64_t ints[TENSOR_MAX_DIMS];
    const char *pair = NULL;
    Value second = val_null();
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (set_field(vm, &a, AS_STR(kw->items[k])->data, argv[argc + k], ints, &pair, &second) < 0) return val_null();
    int n_out = tensor_op_info(op)->n_out;
    if (n_out < 1 || n_out > 2) return vm_raise(vm, vm->e_ValueError, "_mathop(): %s has %d outputs", tensor_op_name(op), n_out);
    Tensor *out[2] = {NULL, NULL};
    if (ag_op_run(op, in, n, &a, out, n_out) < 0) return torch_raise_error(vm);
    if (n_out == 1 && pair && !val_is_null(second)) {
        Value v0 = torch_wrap(vm, out[0]);
        if (val_is_null(v0)) return v0;
        vm_push_root(vm, v0);
        Value r = make_pair(vm, pair, v0, second);
        vm_pop_root(vm);
        return r;
    }
    if (n_out == 1) return torch_wrap(vm, out[0]);
    Value v0 = torch_wrap(vm, out[0]);
    if (val_is_null(v0)) {
        tensor_decref(out[1]);
        return v0;
    }
    vm_push_root(vm, v0);
    Value v1 = torch_wrap(vm, out[1]);
    if (val_is_null(v1)) {
        vm_pop_root(vm);
        return v1;
    }
    vm_push_root(vm, v1);
    Value r;
    if (pair) {
        r = make_pair(vm, pair, v0, v1);
    } else {
        TupleObj *t = tuple_new(vm, 2);
        if (t) {
            t->items[0] = v0;
            t->items[1] = v1;
        }
        r = t ? val_obj(t) : val_null();
    }
    vm_pop_roots(vm, 2);
    return r;
}

/* x.name(...) is torch._mathops.name(x, ...) */
static Value m_mathops(ARGS) {
    if (argc < 1 || !torch_is_tensor(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "descriptor '%s' requires a 'Tensor' object", fn->name);
    Value mod = vm_import_module(vm, "torch._mathops");
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, fn->name);
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

int torch_mathops_init(VM *vm, Value cmod) {
    static const MethodDef fns[] = {{"_mathop", f_mathop}, {NULL}};
    static const MethodDef methods[] = {
        {"cumprod", m_mathops, NATIVEF_METHOD}, {"cummax", m_mathops, NATIVEF_METHOD},
        {"cummin", m_mathops, NATIVEF_METHOD}, {"logcumsumexp", m_mathops, NATIVEF_METHOD},
        {"norm", m_mathops, NATIVEF_METHOD}, {"xlogy", m_mathops, NATIVEF_METHOD},
        {"xlogy_", m_mathops, NATIVEF_METHOD}, {"polygamma", m_mathops, NATIVEF_METHOD},
        {"polygamma_", m_mathops, NATIVEF_METHOD}, {"cholesky", m_mathops, NATIVEF_METHOD},
        {"qr", m_mathops, NATIVEF_METHOD}, {"inverse", m_mathops, NATIVEF_METHOD},
        {"det", m_mathops, NATIVEF_METHOD}, {"slogdet", m_mathops, NATIVEF_METHOD},
        {"logdet", m_mathops, NATIVEF_METHOD}, {"triangular_solve", m_mathops, NATIVEF_METHOD},
        {NULL}};
    if (module_add_functions(vm, cmod, fns) < 0 || rt_init(vm, cmod) < 0) return -1;
    return type_add_methods(vm, torch_state(vm)->t_tensor, methods);
}
