/* src/ffi/custom_op.c — custom tensor ops from shared libraries (ember/custom_op.h): loading
 * and registration, schema parsing, libffi calls of the forward/meta/backward kernels with
 * EmTensor views, output allocation from the meta function, and autograd through a custom
 * function node (the same machinery as torch.autograd.Function).  No VM here: the script
 * binding lives in ops_module.c. */
#include <ctype.h>
#include <dlfcn.h>
#include <ffi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ember/custom_op.h"
#include "src/ffi/custom_op.h"

_Static_assert((int)EM_FLOAT32 == (int)TENSOR_FLOAT32 && (int)EM_INT64 == (int)TENSOR_INT64 &&
                   (int)EM_BOOL == (int)TENSOR_BOOL,
               "EmDtype mirrors TensorDtype");
_Static_assert(EM_OP_MAX_DIMS == TENSOR_MAX_DIMS, "EmTensor holds any Ember tensor's shape");

typedef struct OpArg {
    FfiArgKind kind;
    char *name;
    bool has_default;
    FfiOpValue def;
} OpArg;

struct FfiOp {
    char *qualname, *ns, *name, *schema, *node_name;
    int nargs, nout, ntensors;
    OpArg args[FFI_OP_MAX_ARGS];
    void *forward, *backward, *meta;
    ffi_cif fwd_cif, bwd_cif;          /* meta kernels share the forward signature */
    ffi_type *fwd_types[FFI_OP_MAX_ARGS + FFI_OP_MAX_OUTPUTS];
    ffi_type *bwd_types[FFI_OP_MAX_OUTPUTS * 2 + FFI_OP_MAX_ARGS * 2];
};

static FfiOp **ops;
static int nops, capops;

typedef struct Loaded {
    void *handle;
    struct Loaded *next;
} Loaded;
static Loaded *loaded;

/* The message of the last registration or kernel error (set through the registrar). */
static char op_error[512];

/* ---- the registry ---------------------------------------------------------------------------- */

int ffi_op_count(void) { return nops; }
const FfiOp *ffi_op_at(int i) { return i >= 0 && i < nops ? ops[i] : NULL; }
const char *ffi_op_qualname(const FfiOp *op) { return op->qualname; }
const char *ffi_op_namespace(const FfiOp *op) { return op->ns; }
const char *ffi_op_name(const FfiOp *op) { return op->name; }
const char *ffi_op_schema(const FfiOp *op) { return op->schema; }
int ffi_op_num_args(const FfiOp *op) { return op->nargs; }
FfiArgKind ffi_op_arg_kind(const FfiOp *op, int i) { return op->args[i].kind; }
const char *ffi_op_arg_name(const FfiOp *op, int i) { return op->args[i].name; }
int ffi_op_num_outputs(const FfiOp *op) { return op->nout; }
bool ffi_op_has_backward(const FfiOp *op) { return op->backward != NULL; }
const char *ffi_op_node_name(const FfiOp *op) { return op->node_name; }

bool ffi_op_arg_default(const FfiOp *op, int i, FfiOpValue *out) {
    if (!op->args[i].has_default) return false;
    *out = op->args[i].def;
    return true;
}

const FfiOp *ffi_op_lookup(const char *qualname) {
    char buf[256];
    const char *dot = strchr(qualname, '.');
    if (dot && !strstr(qualname, "::")) {
        snprintf(buf, sizeof buf, "%.*s::%s", (int)(dot - qualname), qualname, dot + 1);
        qualname = buf;
    }
    for (int i = 0; i < nops; i++)
        if (strcmp(ops[i]->qualname, qualname) == 0) return ops[i];
    return NULL;
}

static void op_free(FfiOp *op) {
    if (!op) return;
    free(op->qualname);
    free(op->ns);
    free(op->name);
    free(op->schema);
    free(op->node_name);
    for (int i = 0; i < op->nargs; i++) free(op->args[i].name);
    free(op);
}

/* ---- schema parsing ---------------------------------------------------------------------------- */

typedef struct Parser {
    const char *s;
    const char *p;
} Parser;

static void skip_ws(Parser *ps) {
    while (isspace((unsigned char)*ps->p)) ps->p++;
}

static bool ident(Parser *ps, char *out, size_t cap) {
    skip_ws(ps);
    const char *b = ps->p;
    if (!(isalpha((unsigned char)*b) || *b == '_')) return false;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
    size_t n = (size_t)(ps->p - b);
    if (n >= cap) return false;
    memcpy(out, b, n);
    out[n] = 0;
    return true;
}

static bool lit(Parser *ps, const char *t) {
    skip_ws(ps);
    size_t n = strlen(t);
    if (strncmp(ps->p, t, n) != 0) return false;
    ps->p += n;
    return true;
}

static int schema_error(Parser *ps, const char *what) {
    snprintf(op_error, sizeof op_error, "invalid schema '%s': %s at position %d", ps->s, what, (int)(ps->p - ps->s));
    return -1;
}

/* "ScaleAddBackward0" for "scale_add": the name PyTorch would give a generated node. */
static char *node_name_of(const char *name) {
    size_t n = strlen(name);
    char *r = malloc(n + 16);
    if (!r) return NULL;
    size_t k = 0;
    bool up = true;
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '_') {
            up = true;
            continue;
        }
        r[k++] = up ? (char)toupper((unsigned char)name[i]) : name[i];
        up = false;
    }
    strcpy(r + k, "Backward0");
    return r;
}

static int parse_schema(const char *schema, FfiOp *op) {
    Parser ps = {schema, schema};
    char ns[128], name[128];
    if (!ident(&ps, ns, sizeof ns)) return schema_error(&ps, "expected a namespace");
    if (!lit(&ps, "::")) return schema_error(&ps, "expected '::'");
    if (!ident(&ps, name, sizeof name)) return schema_error(&ps, "expected an operator name");
    if (!lit(&ps, "(")) return schema_error(&ps, "expected '('");
    skip_ws(&ps);
    if (!lit(&ps, ")")) {
        for (;;) {
            if (op->nargs == FFI_OP_MAX_ARGS) return schema_error(&ps, "too many arguments");
            char ty[32], an[128];
            if (!ident(&ps, ty, sizeof ty)) return schema_error(&ps, "expected an argument type");
            OpArg *a = &op->args[op->nargs];
            if (strcmp(ty, "Tensor") == 0) a->kind = FFI_ARG_TENSOR;
            else if (strcmp(ty, "float") == 0) a->kind = FFI_ARG_FLOAT;
            else if (strcmp(ty, "int") == 0) a->kind = FFI_ARG_INT;
            else if (strcmp(ty, "bool") == 0) a->kind = FFI_ARG_BOOL;
            else return schema_error(&ps, "unsupported argument type (Tensor, float, int, bool)");
            if (!ident(&ps, an, sizeof an)) return schema_error(&ps, "expected an argument name");
            for (int i = 0; i < op->nargs; i++)
                if (strcmp(op->args[i].name, an) == 0) return schema_error(&ps, "duplicate argument name");
            a->name = strdup(an);
            op->nargs++;
            if (!a->name) return schema_error(&ps, "out of memory");
            if (lit(&ps, "=")) {
                if (a->kind == FFI_ARG_TENSOR) return schema_error(&ps, "Tensor arguments cannot have defaults");
                skip_ws(&ps);
                a->has_default = true;
                a->def.kind = a->kind;
                if (a->kind == FFI_ARG_BOOL) {
                    if (lit(&ps, "True")) a->def.b = true;
                    else if (lit(&ps, "False")) a->def.b = false;
                    else return schema_error(&ps, "expected True or False");
                } else {
                    char *end;
                    if (a->kind == FFI_ARG_FLOAT) a->def.f = strtod(ps.p, &end);
                    else a->def.i = strtoll(ps.p, &end, 10);
                    if (end == ps.p) return schema_error(&ps, "expected a number");
                    ps.p = end;
                }
            } else {
                for (int i = 0; i < op->nargs - 1; i++)
                    if (op->args[i].has_default)
                        return schema_error(&ps, "an argument without a default follows one with a default");
            }
            if (lit(&ps, ")")) break;
            if (!lit(&ps, ",")) return schema_error(&ps, "expected ',' or ')'");
        }
    }
    if (!lit(&ps, "->")) return schema_error(&ps, "expected '->'");
    char ty[32];
    if (lit(&ps, "(")) {
        for (;;) {
            if (!ident(&ps, ty, sizeof ty) || strcmp(ty, "Tensor") != 0)
                return schema_error(&ps, "outputs must be Tensors");
            if (op->nout == FFI_OP_MAX_OUTPUTS) return schema_error(&ps, "too many outputs");
            op->nout++;
            if (lit(&ps, ")")) break;
            if (!lit(&ps, ",")) return schema_error(&ps, "expected ',' or ')'");
        }
    } else {
        if (!ident(&ps, ty, sizeof ty) || strcmp(ty, "Tensor") != 0) return schema_error(&ps, "outputs must be Tensors");
        op->nout = 1;
    }
    skip_ws(&ps);
    if (*ps.p) return schema_error(&ps, "unexpected text after the outputs");
    if (op->nout == 0) return schema_error(&ps, "an op must have at least one output");
    char q[300];
    snprintf(q, sizeof q, "%s::%s", ns, name);
    op->qualname = strdup(q);
    op->ns = strdup(ns);
    op->name = strdup(name);
    op->schema = strdup(schema);
    op->node_name = node_name_of(name);
    if (!op->qualname || !op->ns || !op->name || !op->schema || !op->node_name) return schema_error(&ps, "out of memory");
    for (int i = 0; i < op->nargs; i++) op->ntensors += op->args[i].kind == FFI_ARG_TENSOR;
    return 0;
}

static ffi_type *arg_ffi(FfiArgKind k) {
    switch (k) {
    case FFI_ARG_TENSOR: return &ffi_type_pointer;
    case FFI_ARG_FLOAT: return &ffi_type_double;
    case FFI_ARG_INT: return &ffi_type_sint64;
    case FFI_ARG_BOOL: return &ffi_type_uint8;
    }
    return &ffi_type_pointer;
}

static int prepare_cifs(FfiOp *op) {
    int n = 0;
    for (int i = 0; i < op->nargs; i++) op->fwd_types[n++] = arg_ffi(op->args[i].kind);
    for (int i = 0; i < op->nout; i++) op->fwd_types[n++] = &ffi_type_pointer;
    if (ffi_prep_cif(&op->fwd_cif, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_sint, op->fwd_types) != FFI_OK) {
        snprintf(op_error, sizeof op_error, "%s: ffi_prep_cif failed", op->qualname);
        return -1;
    }
    /* backward(grad_out..., inputs..., outputs..., grad_in per Tensor input...) */
    n = 0;
    for (int i = 0; i < op->nout; i++) op->bwd_types[n++] = &ffi_type_pointer;
    for (int i = 0; i < op->nargs; i++) op->bwd_types[n++] = arg_ffi(op->args[i].kind);
    for (int i = 0; i < op->nout; i++) op->bwd_types[n++] = &ffi_type_pointer;
    for (int i = 0; i < op->ntensors; i++) op->bwd_types[n++] = &ffi_type_pointer;
    if (ffi_prep_cif(&op->bwd_cif, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_sint, op->bwd_types) != FFI_OK) {
        snprintf(op_error, sizeof op_error, "%s: ffi_prep_cif failed", op->qualname);
        return -1;
    }
    return 0;
}

/* ---- the registrar handed to libraries ---------------------------------------------------------- */

static int reg_register_op(const EmOpRegistrar *reg, const EmOpDef *def) {
    (void)reg;
    if (!def || !def->schema) {
        snprintf(op_error, sizeof op_error, "register_op: no schema");
        return -1;
    }
    FfiOp *op = calloc(1, sizeof *op);
    if (!op) {
        snprintf(op_error, sizeof op_error, "out of memory");
        return -1;
    }
    if (parse_schema(def->schema, op) < 0) goto fail;
    if (!def->forward) {
        snprintf(op_error, sizeof op_error, "%s: no forward kernel", op->qualname);
        goto fail;
    }
    if (ffi_op_lookup(op->qualname)) {
        snprintf(op_error, sizeof op_error,
                 "Tried to register an operator (%s) with the same name and overload name multiple times.", op->qualname);
        goto fail;
    }
    op->forward = def->forward;
    op->backward = def->backward;
    op->meta = def->meta;
    if (prepare_cifs(op) < 0) goto fail;
    if (nops == capops) {
        int cap = capops ? capops * 2 : 16;
        FfiOp **n = realloc(ops, sizeof *n * (size_t)cap);
        if (!n) {
            snprintf(op_error, sizeof op_error, "out of memory");
            goto fail;
        }
        ops = n;
        capops = cap;
    }
    ops[nops++] = op;
    return 0;
fail:
    op_free(op);
    return -1;
}

static void reg_set_error(const EmOpRegistrar *reg, const char *fmt, ...) {
    (void)reg;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op_error, sizeof op_error, fmt, ap);
    va_end(ap);
}

static const EmOpRegistrar registrar = {EM_CUSTOM_OP_ABI_VERSION, reg_register_op, reg_set_error, NULL};

int ffi_op_load_library(const char *path, char *err, size_t errcap, bool *os_error) {
    *os_error = false;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errcap, "%s", e ? e : "dlopen failed");
        *os_error = true;
        return -1;
    }
    for (Loaded *l = loaded; l; l = l->next)
        if (l->handle == h) {
            dlclose(h);   /* drop the extra reference: the library stays loaded */
            return 0;
        }
    EmRegisterOpsFn init = (EmRegisterOpsFn)(uintptr_t)dlsym(h, EM_REGISTER_OPS_SYMBOL);
    if (!init) {
        snprintf(err, errcap, "%s: the library does not export %s (see ember/custom_op.h)", path, EM_REGISTER_OPS_SYMBOL);
        dlclose(h);
        return -1;
    }
    Loaded *l = malloc(sizeof *l);
    if (!l) {
        snprintf(err, errcap, "out of memory");
        dlclose(h);
        return -1;
    }
    /* the library stays loaded (its ops are registered for the rest of the process) */
    l->handle = h;
    l->next = loaded;
    loaded = l;
    op_error[0] = 0;
    if (init(&registrar) != 0) {
        snprintf(err, errcap, "%s", op_error[0] ? op_error : "ember_register_ops failed");
        return -1;
    }
    return 0;
}

/* ---- calling kernels ------------------------------------------------------------------------------ */

static void view_of(const Tensor *t, EmTensor *v, bool with_data) {
    memset(v, 0, sizeof *v);
    v->data = with_data ? tensor_data_ptr(t) : NULL;
    v->dtype = (int32_t)tensor_dtype(t);
    v->ndim = tensor_ndim(t);
    v->numel = tensor_numel(t);
    const int64_t *sh = tensor_shape(t), *st = tensor_strides(t);
    for (int d = 0; d < v->ndim; d++) {
        v->shape[d] = sh[d];
        v->strides[d] = st[d];
    }
}

static void view_of_meta(const TensorMeta *m, EmTensor *v) {
    memset(v, 0, sizeof *v);
    v->dtype = (int32_t)m->dtype;
    v->ndim = m->ndim;
    v->numel = 1;
    for (int d = 0; d < m->ndim; d++) {
        v->shape[d] = m->shape[d];
        v->strides[d] = m->strides[d];
        v->numel *= m->shape[d];
    }
}

static void contiguous_strides(EmTensor *v) {
    int64_t s = 1;
    v->numel = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        v->strides[d] = s;
        s *= v->shape[d];
    }
    for (int d = 0; d < v->ndim; d++) v->numel *= v->shape[d];
}

static int kernel_failed(const FfiOp *op, const char *what, int status) {
    if (op_error[0]) tensor_error_set(TENSOR_ERR_RUNTIME, "%s", op_error);
    else tensor_error_set(TENSOR_ERR_RUNTIME, "%s: %s kernel failed with status %d", op->qualname, what, status);
    return -1;
}

static int check_args(const FfiOp *op, const FfiOpValue *args, int nargs) {
    if (nargs != op->nargs) {
        tensor_error_set(TENSOR_ERR_TYPE, "%s() expected %d argument(s) but received %d argument(s). Declaration: %s",
                         op->qualname, op->nargs, nargs, op->schema);
        return -1;
    }
    for (int i = 0; i < nargs; i++)
        if (args[i].kind != op->args[i].kind) {
            tensor_error_set(TENSOR_ERR_TYPE, "%s(): argument '%s' has the wrong kind. Declaration: %s", op->qualname,
                             op->args[i].name, op->schema);
            return -1;
        }
    return 0;
}

/* avalues for the kernel's schema arguments: pointers into views[] (Tensors) or into args. */
static void schema_avalues(const FfiOp *op, const FfiOpValue *args, EmTensor *views, EmTensor **vptrs, void **av) {
    int k = 0;
    for (int i = 0; i < op->nargs; i++) {
        switch (args[i].kind) {
        case FFI_ARG_TENSOR:
            vptrs[k] = &views[k];
            av[i] = &vptrs[k];
            k++;
            break;
        case FFI_ARG_FLOAT: av[i] = (void *)&args[i].f; break;
        case FFI_ARG_INT: av[i] = (void *)&args[i].i; break;
        case FFI_ARG_BOOL: av[i] = (void *)&args[i].b; break;
        }
    }
}

/* Output views from the meta kernel (or the first Tensor input's metadata). */
static int infer_views(const FfiOp *op, const FfiOpValue *args, EmTensor *in_views, EmTensor *out_views) {
    for (int o = 0; o < op->nout; o++) memset(&out_views[o], 0, sizeof out_views[o]);
    if (!op->meta) {
        if (op->ntensors == 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s: an op without Tensor inputs needs a meta function", op->qualname);
            return -1;
        }
        for (int o = 0; o < op->nout; o++) {
            out_views[o] = in_views[0];
            out_views[o].data = NULL;
        }
    } else {
        EmTensor *vptrs[FFI_OP_MAX_ARGS], *optrs[FFI_OP_MAX_OUTPUTS];
        void *av[FFI_OP_MAX_ARGS + FFI_OP_MAX_OUTPUTS];
        schema_avalues(op, args, in_views, vptrs, av);
        for (int o = 0; o < op->nout; o++) {
            out_views[o].dtype = -1;
            out_views[o].ndim = -1;
            optrs[o] = &out_views[o];
            av[op->nargs + o] = &optrs[o];
        }
        ffi_arg rc = 0;
        op_error[0] = 0;
        ffi_call((ffi_cif *)&op->fwd_cif, FFI_FN(op->meta), &rc, av);
        if ((int)rc != 0) return kernel_failed(op, "meta", (int)rc);
    }
    for (int o = 0; o < op->nout; o++) {
        EmTensor *v = &out_views[o];
        if (v->dtype < 0 || v->dtype >= TENSOR_DTYPE_COUNT || v->ndim < 0 || v->ndim > TENSOR_MAX_DIMS) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s: the meta function gave output %d an invalid dtype or ndim",
                             op->qualname, o);
            return -1;
        }
        for (int d = 0; d < v->ndim; d++)
            if (v->shape[d] < 0) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "%s: the meta function gave output %d a negative size", op->qualname, o);
                return -1;
            }
        contiguous_strides(v);
        v->data = NULL;
    }
    return 0;
}

int ffi_op_bind_slots(const FfiOp *op, int npos, int nkw, const char *const *kwnames, int *slot) {
    int n = op->nargs;
    if (npos > n) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "%s() expected at most %d argument(s) but received %d argument(s). Declaration: %s",
                         op->qualname, n, npos + nkw, op->schema);
        return -1;
    }
    for (int i = 0; i < n; i++) slot[i] = i < npos ? i : -1;
    for (int k = 0; k < nkw; k++) {
        int j = 0;
        while (j < n && strcmp(kwnames[k], op->args[j].name) != 0) j++;
        if (j == n) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s() got an unexpected keyword argument '%s'. Declaration: %s",
                             op->qualname, kwnames[k], op->schema);
            return -1;
        }
        if (slot[j] >= 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s() got multiple values for argument '%s'. Declaration: %s",
                             op->qualname, kwnames[k], op->schema);
            return -1;
        }
        slot[j] = npos + k;
    }
    for (int i = 0; i < n; i++)
        if (slot[i] < 0 && !op->args[i].has_default) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s() missing value for argument '%s'. Declaration: %s", op->qualname,
                             op->args[i].name, op->schema);
            return -1;
        }
    return n;
}

int ffi_op_infer(const FfiOp *op, const FfiOpValue *args, int nargs, TensorMeta *outputs) {
    if (check_args(op, args, nargs) < 0) return -1;
    EmTensor in_views[FFI_OP_MAX_ARGS], out_views[FFI_OP_MAX_OUTPUTS];
    int k = 0;
    for (int i = 0; i < nargs; i++)
        if (args[i].kind == FFI_ARG_TENSOR) view_of_meta(args[i].meta, &in_views[k++]);
    if (infer_views(op, args, in_views, out_views) < 0) return -1;
    for (int o = 0; o < op->nout; o++) {
        TensorMeta *m = &outputs[o];
        memset(m, 0, sizeof *m);
        m->dtype = (TensorDtype)out_views[o].dtype;
        m->ndim = out_views[o].ndim;
        for (int d = 0; d < m->ndim; d++) {
            m->shape[d] = out_views[o].shape[d];
            m->strides[d] = out_views[o].strides[d];
        }
    }
    return op->nout;
}

/* Contiguous versions of the Tensor arguments (new references in owned[]). */
static int contiguous_inputs(const FfiOp *op, const FfiOpValue *args, Tensor **owned, EmTensor *views) {
    int k = 0;
    for (int i = 0; i < op->nargs; i++) {
        if (args[i].kind != FFI_ARG_TENSOR) continue;
        if (!args[i].t) {
            tensor_error_set(TENSOR_ERR_TYPE, "%s(): argument '%s' must be a Tensor", op->qualname, op->args[i].name);
            return -1;
        }
        owned[k] = tensor_contiguous(args[i].t);
        if (!owned[k]) return -1;
        /* a tracer fake has no data for the user's kernel (its contiguous self is itself) */
        if (!tensor_has_data(owned[k])) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "%s cannot be called on meta tensors", op->qualname);
            return -1;
        }
        view_of(owned[k], &views[k], true);
        k++;
    }
    return 0;
}

static void release_all(Tensor **ts, int n) {
    for (int i = 0; i < n; i++) {
        tensor_decref(ts[i]);
        ts[i] = NULL;
    }
}

/* Run the forward kernel without autograd. */
static int run_forward(const FfiOp *op, const FfiOpValue *args, Tensor **outputs) {
    Tensor *owned[FFI_OP_MAX_ARGS] = {0};
    EmTensor in_views[FFI_OP_MAX_ARGS], out_views[FFI_OP_MAX_OUTPUTS];
    for (int o = 0; o < op->nout; o++) outputs[o] = NULL;
    int rc = -1;
    if (contiguous_inputs(op, args, owned, in_views) < 0) goto done;
    if (infer_views(op, args, in_views, out_views) < 0) goto done;
    for (int o = 0; o < op->nout; o++) {
        outputs[o] = tensor_zeros((TensorDtype)out_views[o].dtype, out_views[o].ndim, out_views[o].shape);
        if (!outputs[o]) goto done;
        view_of(outputs[o], &out_views[o], true);
    }
    EmTensor *vptrs[FFI_OP_MAX_ARGS], *optrs[FFI_OP_MAX_OUTPUTS];
    void *av[FFI_OP_MAX_ARGS + FFI_OP_MAX_OUTPUTS];
    schema_avalues(op, args, in_views, vptrs, av);
    for (int o = 0; o < op->nout; o++) {
        optrs[o] = &out_views[o];
        av[op->nargs + o] = &optrs[o];
    }
    ffi_arg status = 0;
    op_error[0] = 0;
    ffi_call((ffi_cif *)&op->fwd_cif, FFI_FN(op->forward), &status, av);
    if ((int)status != 0) {
        kernel_failed(op, "forward", (int)status);
        goto done;
    }
    rc = 0;
done:
    release_all(owned, op->ntensors);
    if (rc < 0) release_all(outputs, op->nout);
    return rc;
}

int ffi_op_backward(const FfiOp *op, const FfiOpValue *args, int nargs, Tensor *const *outputs,
                    Tensor *const *grad_outputs, Tensor **grad_inputs) {
    if (check_args(op, args, nargs) < 0) return -1;
    for (int i = 0; i < nargs; i++) grad_inputs[i] = NULL;
    if (!op->backward) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s: the op was registered without a backward kernel, so it is not differentiable",
                         op->qualname);
        return -1;
    }
    Tensor *owned_in[FFI_OP_MAX_ARGS] = {0}, *owned_go[FFI_OP_MAX_OUTPUTS] = {0}, *owned_out[FFI_OP_MAX_OUTPUTS] = {0};
    Tensor *gin[FFI_OP_MAX_ARGS] = {0};
    EmTensor in_views[FFI_OP_MAX_ARGS], go_views[FFI_OP_MAX_OUTPUTS], out_views[FFI_OP_MAX_OUTPUTS],
        gin_views[FFI_OP_MAX_ARGS];
    int rc = -1;
    if (contiguous_inputs(op, args, owned_in, in_views) < 0) goto done;
    for (int o = 0; o < op->nout; o++) {
        owned_out[o] = tensor_contiguous(outputs[o]);
        if (!owned_out[o]) goto done;
        view_of(owned_out[o], &out_views[o], true);
        owned_go[o] = grad_outputs[o] ? tensor_contiguous(grad_outputs[o]) : tensor_zeros_like(outputs[o]);
        if (!owned_go[o]) goto done;
        view_of(owned_go[o], &go_views[o], true);
    }
    for (int k = 0; k < op->ntensors; k++) {
        gin[k] = tensor_zeros(tensor_dtype(owned_in[k]), tensor_ndim(owned_in[k]), tensor_shape(owned_in[k]));
        if (!gin[k]) goto done;
        view_of(gin[k], &gin_views[k], true);
    }
    {
        EmTensor *goptr[FFI_OP_MAX_OUTPUTS], *vptrs[FFI_OP_MAX_ARGS], *optrs[FFI_OP_MAX_OUTPUTS], *gptrs[FFI_OP_MAX_ARGS];
        void *av[FFI_OP_MAX_OUTPUTS * 2 + FFI_OP_MAX_ARGS * 2];
        int n = 0;
        for (int o = 0; o < op->nout; o++) {
            goptr[o] = &go_views[o];
            av[n++] = &goptr[o];
        }
        schema_avalues(op, args, in_views, vptrs, av + n);
        n += op->nargs;
        for (int o = 0; o < op->nout; o++) {
            optrs[o] = &out_views[o];
            av[n++] = &optrs[o];
        }
        for (int k = 0; k < op->ntensors; k++) {
            gptrs[k] = &gin_views[k];
            av[n++] = &gptrs[k];
        }
        ffi_arg status = 0;
        op_error[0] = 0;
        ffi_call((ffi_cif *)&op->bwd_cif, FFI_FN(op->backward), &status, av);
        if ((int)status != 0) {
            kernel_failed(op, "backward", (int)status);
            goto done;
        }
    }
    for (int i = 0, k = 0; i < nargs; i++)
        if (args[i].kind == FFI_ARG_TENSOR) {
            grad_inputs[i] = gin[k];
            gin[k++] = NULL;
        }
    rc = 0;
done:
    release_all(owned_in, op->ntensors);
    release_all(owned_go, op->nout);
    release_all(owned_out, op->nout);
    release_all(gin, op->ntensors);
    return rc;
}

/* ---- autograd ------------------------------------------------------------------------------------------ */

/* What a node's backward needs besides its saved tensors: the op and its scalar arguments. */
typedef struct OpCall {
    const FfiOp *op;
    FfiOpValue args[FFI_OP_MAX_ARGS];
} OpCall;

static int op_backward_cb(void *ctx, AgNode *node, int n_go, Tensor *const *grad_outputs, int n_args,
                          Tensor **grad_inputs) {
    OpCall *c = ctx;
    const FfiOp *op = c->op;
    for (int i = 0; i < n_args; i++) grad_inputs[i] = NULL;
    Tensor *saved[FFI_OP_MAX_ARGS + FFI_OP_MAX_OUTPUTS] = {0};
    int nsaved = ag_function_num_saved(node);
    if (ag_function_saved_tensors(node, saved) < 0) return -1;
    FfiOpValue args[FFI_OP_MAX_ARGS];
    memcpy(args, c->args, sizeof(FfiOpValue) * (size_t)op->nargs);
    for (int i = 0, k = 0; i < op->nargs; i++)
        if (args[i].kind == FFI_ARG_TENSOR) args[i].t = saved[k++];
    Tensor *gi[FFI_OP_MAX_ARGS];
    int rc = ffi_op_backward(op, args, op->nargs, saved + op->ntensors, grad_outputs, gi);
    (void)n_go;
    release_all(saved, nsaved);
    if (rc < 0) return -1;
    for (int i = 0; i < n_args; i++) {
        if (gi[i] && ag_function_needs_input_grad(node, i)) grad_inputs[i] = gi[i];
        else tensor_decref(gi[i]);
    }
    return 0;
}

static void op_call_release(void *ctx) { free(ctx); }

int ffi_op_run(const FfiOp *op, const FfiOpValue *args, int nargs, Tensor **outputs) {
    if (check_args(op, args, nargs) < 0) return -1;
    Tensor *targs[FFI_OP_MAX_ARGS];
    bool needs_grad = false;
    for (int i = 0; i < nargs; i++) {
        targs[i] = args[i].kind == FFI_ARG_TENSOR ? args[i].t : NULL;
        if (targs[i] && ag_requires_grad(targs[i])) needs_grad = true;
    }
    needs_grad = needs_grad && ag_is_grad_enabled();
    if (!needs_grad) return run_forward(op, args, outputs) < 0 ? -1 : op->nout;

    OpCall *call = calloc(1, sizeof *call);
    if (!call) {
        tensor_error_set(TENSOR_ERR_MEMORY, "out of memory");
        return -1;
    }
    call->op = op;
    memcpy(call->args, args, sizeof(FfiOpValue) * (size_t)nargs);
    for (int i = 0; i < nargs; i++)
        if (call->args[i].kind == FFI_ARG_TENSOR) call->args[i].t = NULL;   /* saved as variables instead */
    AgFunctionBackward bw = {op_backward_cb, call, op_call_release};
    AgNode *node = ag_function_new(op->node_name, nargs, targs, bw);
    if (!node) return -1;
    bool prev = ag_set_grad_enabled(false);
    int rc = run_forward(op, args, outputs);
    ag_set_grad_enabled(prev);
    if (rc == 0) rc = ag_function_set_outputs(node, op->nout, outputs);
    if (rc == 0) {
        Tensor *save[FFI_OP_MAX_ARGS + FFI_OP_MAX_OUTPUTS];
        int n = 0;
        for (int i = 0; i < nargs; i++)
            if (targs[i]) save[n++] = targs[i];
        for (int o = 0; o < op->nout; o++) save[n++] = outputs[o];
        rc = ag_function_save_for_backward(node, n, save);
    }
    ag_node_decref(node);
    if (rc < 0) {
        release_all(outputs, op->nout);
        return -1;
    }
    return op->nout;
}
