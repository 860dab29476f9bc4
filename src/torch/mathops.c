/* src/torch/mathops.c — the Python entry to branch opsmath's ops (ember/ops.def's opsmath block)
 * and the Tensor methods of torch/_mathops.py.
 *
 * torch._C._mathop(NAME, *tensors, **fields) runs table op TENSOR_OP_<NAME> with autograd, the
 * keywords filling TensorOpArgs fields of the same names (dim, dim2, start, step, keepdim,
 * has_min, has_max, accumulate, dtype, scalar, ints); pair=<name> returns the outputs (with the
 * tensors given as first= before them, second= and third= after them) as
 * torch.return_types.<name>; last_mH=True transposes the last output (torch.svd's V).  It is private (torch/_mathops.py gives each op PyTorch's
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

static int set_field(VM *vm, TensorOpArgs *a, const char *k, Value v, int64_t *ints, const char **pair, Value *extra,
                     bool *last_mh) {
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
    if (!strcmp(k, "first") || !strcmp(k, "second") || !strcmp(k, "third")) {
        /* extra items of the result: first before the op's outputs, second and third after */
        if (!torch_is_tensor(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "_mathop(): %s must be a Tensor", k);
            return -1;
        }
        extra[k[0] == 'f' ? 0 : k[0] == 's' ? 1 : 2] = v;
        return 0;
    }
    if (!strcmp(k, "last_mH")) {   /* the last output transposed (torch.svd's V = Vh^H) */
        if (torch_bool_arg(vm, v, &b) < 0) return -1;
        *last_mh = b;
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

static const char *const rt_fields[][4] = {
    {"linalg_qr", "Q", "R"}, {"qr", "Q", "R"}, {"linalg_slogdet", "sign", "logabsdet"},
    {"slogdet", "sign", "logabsdet"}, {"triangular_solve", "solution", "cloned_coefficient"},
    {"linalg_cholesky_ex", "L", "info"}, {"linalg_inv_ex", "inverse", "info"},
    {"median", "values", "indices"}, {"nanmedian", "values", "indices"}, {"mode", "values", "indices"},
    {"aminmax", "min", "max"}, {"linalg_svd", "U", "S", "Vh"}, {"svd", "U", "S", "V"},
    {"linalg_eigh", "eigenvalues", "eigenvectors"},
};
enum { N_RT = sizeof rt_fields / sizeof rt_fields[0] };

static Value rt_item0(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[0]; }
static Value rt_item1(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[1]; }
static Value rt_item2(VM *vm, Value s, void *c) { return AS_TUPLE(s)->items[2]; }

/* torch.return_types.NAME(\nF0=repr,\nF1=repr[,\nF2=repr]) as PyTorch's structseq prints */
static Value rt_repr(ARGS) {
    const char *name = vm_type_name(vm, argv[0]);
    int k = 0;
    while (k < N_RT - 1 && strcmp(rt_fields[k][0], name) != 0) k++;
    TupleObj *t = AS_TUPLE(argv[0]);
    int nf = rt_fields[k][3] ? 3 : 2;
    Value r[3];
    for (int i = 0; i < nf; i++) {
        r[i] = i < t->len ? vm_repr(vm, t->items[i]) : val_null();
        if (val_is_null(r[i])) {
            if (i >= t->len) vm_raise(vm, vm->e_TypeError, "%s: too few items", name);
            vm_pop_roots(vm, i);
            return val_null();
        }
        vm_push_root(vm, r[i]);
    }
    StrObj *o = nf == 3 ? str_printf(vm, "torch.return_types.%s(\n%s=%s,\n%s=%s,\n%s=%s)", name, rt_fields[k][1],
                                     AS_STR(r[0])->data, rt_fields[k][2], AS_STR(r[1])->data, rt_fields[k][3],
                                     AS_STR(r[2])->data)
                        : str_printf(vm, "torch.return_types.%s(\n%s=%s,\n%s=%s)", name, rt_fields[k][1],
                                     AS_STR(r[0])->data, rt_fields[k][2], AS_STR(r[1])->data);
    vm_pop_roots(vm, nf);
    return o ? val_obj(o) : val_null();
}

/* the types live in torch._C as _rt_<name> (which keeps them alive) */
static int rt_init(VM *vm, Value cmod) {
    static const MethodDef m[] = {{"__repr__", rt_repr, NATIVEF_METHOD}, {NULL}};
    for (int k = 0; k < N_RT; k++) {
        TypeObj *t = type_new_builtin(vm, rt_fields[k][0], vm->t_tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), 0, tuple_trace,
                                      NULL, 0);
        if (!t) return -1;
        vm_push_root(vm, val_obj(t));   /* reachable only from here until module_set */
        GetSetDef gs[4] = {{rt_fields[k][1], rt_item0, NULL, NULL}, {rt_fields[k][2], rt_item1, NULL, NULL}, {NULL}, {NULL}};
        if (rt_fields[k][3]) gs[2] = (GetSetDef){rt_fields[k][3], rt_item2, NULL, NULL};
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

/* the result tuple: torch.return_types.<name> when named (a type of rt_fields, else functions.c's
 * pairs), a plain tuple otherwise.  The items stay rooted while it is made (the caller's). */
static Value make_result(VM *vm, const char *name, const Value *items, int n) {
    TypeObj *type = NULL;
    for (int k = 0; name && k < N_RT; k++) {
        if (strcmp(rt_fields[k][0], name) != 0) continue;
        char attr[64];
        snprintf(attr, sizeof attr, "_rt_%s", rt_fields[k][0]);
        Value mod = vm_import_module(vm, "torch._C");
        if (val_is_null(mod)) return mod;
        Value t = vm_getattr_c(vm, mod, attr);
        if (val_is_null(t)) return t;
        type = (TypeObj *)t.as.o;
    }
    if (name && !type) return n == 2 ? torch_return_pair(vm, name, items[0], items[1]) : vm_raise(vm, vm->e_ValueError, "_mathop(): no return type %s", name);
    TupleObj *r = type ? tuple_alloc(vm, type, n) : tuple_new(vm, n);
    if (!r) return val_null();
    for (int i = 0; i < n; i++) r->items[i] = items[i];
    return val_obj(r);
}

static Value f_mathop(ARGS) {
    (void)fn;
    if (argc < 1 || !val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_mathop(): expected an op name");
    TensorOp op;
    if (find_op(AS_STR(argv[0])->data, &op) < 0)
        return vm_raise(vm, vm->e_ValueError, "_mathop(): no op named %s", AS_STR(argv[0])->data);
    enum { MAX_IN = 4, MAX_OUT = 3 };
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
    Value extra[3] = {val_null(), val_null(), val_null()};   /* first, second, third */
    bool last_mh = false;
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (set_field(vm, &a, AS_STR(kw->items[k])->data, argv[argc + k], ints, &pair, extra, &last_mh) < 0)
            return val_null();
    int n_out = tensor_op_info(op)->n_out;
    if (n_out < 1 || n_out > MAX_OUT)
        return vm_raise(vm, vm->e_ValueError, "_mathop(): %s has %d outputs", tensor_op_name(op), n_out);
    Tensor *out[MAX_OUT] = {NULL, NULL, NULL};
    if (ag_op_run(op, in, n, &a, out, n_out) < 0) return torch_raise_error(vm);
    if (last_mh) {
        Tensor *t = ag_transpose(out[n_out - 1], -2, -1);
        tensor_decref(out[n_out - 1]);
        out[n_out - 1] = t;
        if (!t) {
            for (int i = 0; i < n_out - 1; i++) tensor_decref(out[i]);
            return torch_raise_error(vm);
        }
    }
    bool plain = n_out == 1 && val_is_null(extra[0]) && val_is_null(extra[1]) && val_is_null(extra[2]);
    if (plain) return torch_wrap(vm, out[0]);
    /* the items in order, each rooted as it is made (torch_wrap steals its tensor) */
    Value items[MAX_OUT + 3];
    int ni = 0, rooted = 0;
    if (!val_is_null(extra[0])) items[ni++] = extra[0];
    for (int i = 0; i < n_out; i++) {
        Value v = torch_wrap(vm, out[i]);
        out[i] = NULL;
        if (val_is_null(v)) {
            for (int j = i + 1; j < n_out; j++) tensor_decref(out[j]);
            vm_pop_roots(vm, rooted);
            return v;
        }
        vm_push_root(vm, v);
        rooted++;
        items[ni++] = v;
    }
    for (int i = 1; i < 3; i++)
        if (!val_is_null(extra[i])) items[ni++] = extra[i];
    Value r = make_result(vm, pair, items, ni);
    vm_pop_roots(vm, rooted);
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
        {"svd", m_mathops, NATIVEF_METHOD}, {"pinverse", m_mathops, NATIVEF_METHOD},
        {NULL}};
    if (module_add_functions(vm, cmod, fns) < 0 || rt_init(vm, cmod) < 0) return -1;
    return type_add_methods(vm, torch_state(vm)->t_tensor, methods);
}
