/* src/torch/op_natives.c — the Python surface generated from the op table: every op whose PY
 * column (ember/ops.def) names it becomes a Tensor method, a torch.* function, a
 * torch.nn.functional kernel (torch._C._nn) or a torch.special function (torch._C._special),
 * all backed by one native that parses the column's parameters into TensorOpArgs and runs the
 * op with autograd (names ending in `_` run its in-place form).  Ops with irregular signatures
 * keep hand-written natives (tensor_methods.c, functions.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- the parameter mini-language ("name=default:field", see ops.def) ----------------------------- */

typedef enum { P_S0, P_S1, P_APPROX } ParamField;

typedef struct Param {
    char name[32];
    ParamField field;
    bool optional;           /* None allowed: leaves has_min / has_max false */
    bool is_float;           /* ATen type float (errors say "float"), not Scalar ("Number") */
    bool has_default;
    TensorScalar def;        /* numbers; approx: def.i */
} Param;

#define MAX_PARAMS 4

typedef struct OpNative {
    char name[48];           /* the Python name (in-place names end in _) */
    char err_name[64];       /* as PyTorch's messages name it (torch.special.x: special_x) */
    char ns[16];             /* Tensor, torch, F, special */
    TensorOp op;
    bool inplace;
    int n_params;
    Param params[MAX_PARAMS];
    const char *names[MAX_PARAMS + 1];   /* "input" + the parameters, for native_parse_args */
} OpNative;

static OpNative *natives;
static int n_natives;

static void parse_default(Param *p, const char *s) {
    p->has_default = true;
    if (strcmp(s, "None") == 0) {
        p->has_default = false;
        p->optional = true;
    } else if (s[0] == '\'') {
        p->def = tensor_scalar_i(strncmp(s, "'tanh'", 6) == 0);
    } else if (strchr(s, '.') || strchr(s, 'e')) {
        p->def = tensor_scalar_f(strtod(s, NULL));
    } else {
        p->def = tensor_scalar_i(strtoll(s, NULL, 10));
    }
}

/* "a=1:s0, b=None:s1?" -> params; the table is ours, so a malformed spec is our bug */
static int parse_params(const char *spec, Param *out) {
    int n = 0;
    const char *s = spec;
    while (*s) {
        while (*s == ' ' || *s == ',') s++;
        if (!*s) break;
        EM_ASSERT(n < MAX_PARAMS, "too many parameters in an ops.def PY column");
        Param *p = &out[n++];
        memset(p, 0, sizeof *p);
        const char *eq = strchr(s, '='), *colon = eq ? strchr(eq, ':') : NULL;
        EM_ASSERT(eq && colon && eq - s < (long)sizeof p->name, "malformed ops.def PY parameter");
        memcpy(p->name, s, (size_t)(eq - s));
        char def[32] = {0};
        EM_ASSERT(colon - eq - 1 < (long)sizeof def, "malformed ops.def PY default");
        memcpy(def, eq + 1, (size_t)(colon - eq - 1));
        parse_default(p, def);
        const char *f = colon + 1;
        size_t len = strcspn(f, ", :?");
        bool opt = f[len] == '?';
        p->optional |= opt;
        if (strncmp(f, "s0", len) == 0 && len == 2) p->field = P_S0;
        else if (strncmp(f, "s1", len) == 0 && len == 2) p->field = P_S1;
        else if (strncmp(f, "approx", len) == 0 && len == 6) p->field = P_APPROX;
        else EM_ASSERT(false, "unknown field in an ops.def PY parameter");
        s = f + len + opt;
        if (strncmp(s, ":float", 6) == 0) {
            p->is_float = true;
            s += 6;
        }
    }
    return n;
}

static void add_native(TensorOp op, const char *qualified, const char *params) {
    const char *dot = strrchr(qualified, '.');
    EM_ASSERT(dot && dot - qualified < 16 && strlen(dot + 1) < 48, "malformed ops.def PY name");
    OpNative *d = &natives[n_natives++];
    memset(d, 0, sizeof *d);
    memcpy(d->ns, qualified, (size_t)(dot - qualified));
    snprintf(d->name, sizeof d->name, "%s", dot + 1);
    snprintf(d->err_name, sizeof d->err_name, "%s%s", strcmp(d->ns, "special") == 0 ? "special_" : "", d->name);
    d->op = op;
    size_t len = strlen(d->name);
    /* foo_ is the in-place form; __abs__ is not */
    d->inplace = len > 1 && d->name[len - 1] == '_' && d->name[len - 2] != '_';
    d->n_params = parse_params(params, d->params);
    d->names[0] = "input";
    for (int i = 0; i < d->n_params; i++) d->names[i + 1] = d->params[i].name;
}

static void build_table(void) {
    if (natives) return;
    static const struct {
        TensorOp op;
        const char *names, *params;
    } py[] = {
#define PY(NAMES, PARAMS) NAMES, PARAMS
#define PY_NONE NULL, NULL
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, RULE, PYCOL) {TENSOR_OP_##NAME, PYCOL},
#include "ember/ops.def"
#undef X
#undef PY
#undef PY_NONE
    };
    int total = 0;
    for (size_t i = 0; i < sizeof py / sizeof py[0]; i++)
        for (const char *s = py[i].names; s && *s; s++)
            if (s == py[i].names || s[-1] == ' ') total += *s != ' ';
    natives = calloc((size_t)(total ? total : 1), sizeof *natives);
    EM_ASSERT(natives, "out of memory building the op natives");
    for (size_t i = 0; i < sizeof py / sizeof py[0]; i++) {
        const char *s = py[i].names;
        while (s && *s) {
            while (*s == ' ') s++;
            size_t len = strcspn(s, " ");
            if (!len) break;
            char q[96];
            EM_ASSERT(len < sizeof q, "ops.def PY name too long");
            memcpy(q, s, len);
            q[len] = 0;
            add_native(py[i].op, q, py[i].params);
            s += len;
        }
    }
}

/* ---- the native ------------------------------------------------------------------------------------ */

static const char *type_word(VM *vm, Value v) { return vm_type_name(vm, v); }

static Value op_native(ARGS) {
    const OpNative *d = fn->data;
    Value a[MAX_PARAMS + 1];
    if (native_parse_args(vm, d->err_name, argc, argv, kw, d->n_params + 1, 1, d->names, d->n_params + 1, a) < 0)
        return val_null();
    if (!torch_is_tensor(vm, a[0]))
        return vm_raise(vm, vm->e_TypeError, "%s(): argument 'input' (position 1) must be Tensor, not %s", d->err_name,
                        type_word(vm, a[0]));
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    for (int i = 0; i < d->n_params; i++) {
        const Param *p = &d->params[i];
        Value v = a[i + 1];
        bool given = !val_is_null(v) && !(p->optional && val_is_none(v));
        TensorScalar s = p->def;
        switch (p->field) {
        case P_S0: case P_S1:
            if (given && (!torch_scalar_of(vm, v, &s) || (p->is_float && s.kind == TENSOR_BOOL))) {
                char pos[32] = "";
                if (i + 1 < argc) snprintf(pos, sizeof pos, " (position %d)", i + 2);
                return vm_raise(vm, vm->e_TypeError, "%s(): argument '%s'%s must be %s, not %s", d->err_name, p->name, pos,
                                p->is_float ? "float" : "Number", type_word(vm, v));
            }
            if (!given && !p->has_default) break;
            /* an optional number says whether it was given in has_min / has_max (clamp's way) */
            if (p->field == P_S0) {
                args.scalar = s;
                args.has_min = p->optional;
            } else {
                args.scalar2 = s;
                args.has_max = p->optional;
            }
            break;
        case P_APPROX:
            if (!given) {
                args.approximate = p->def.i != 0;
                break;
            }
            if (!val_is_str(vm, v))
                return vm_raise(vm, vm->e_TypeError, "%s(): argument '%s' must be str, not %s", d->err_name, p->name,
                                type_word(vm, v));
            if (strcmp(AS_STR(v)->data, "tanh") == 0) args.approximate = true;
            else if (strcmp(AS_STR(v)->data, "none") != 0)
                return vm_raise(vm, vm->e_RuntimeError, "approximate argument must be either none or tanh.");
            break;
        }
    }
    Tensor *in[1] = {torch_tensor_of(a[0])};
    if (d->op == TENSOR_OP_GELU) args.approximate = tensor_gelu_form(in[0], args.approximate == TENSOR_GELU_TANH);
    if (d->inplace) {
        if (ag_pointwise_inplace(d->op, in, 1, &args) < 0) return torch_raise_error(vm);
        return a[0];
    }
    return torch_result(vm, ag_op1(d->op, in, 1, &args));
}

/* ---- registration ----------------------------------------------------------------------------------- */

/* The natives of namespace ns as a MethodDef list (malloc'd, NULL-terminated). */
static MethodDef *defs_of(const char *ns, uint32_t flags) {
    build_table();
    MethodDef *defs = calloc((size_t)n_natives + 1, sizeof *defs);
    EM_ASSERT(defs, "out of memory building the op natives");
    int k = 0;
    for (int i = 0; i < n_natives; i++)
        if (strcmp(natives[i].ns, ns) == 0) defs[k++] = (MethodDef){natives[i].name, op_native, flags, &natives[i]};
    return defs;
}

int torch_op_methods_init(VM *vm, TypeObj *t) {
    MethodDef *defs = defs_of("Tensor", NATIVEF_METHOD);
    int rc = type_add_methods(vm, t, defs);
    free(defs);
    return rc;
}

int torch_op_functions_init(VM *vm, Value module, const char *ns) {
    MethodDef *defs = defs_of(ns, 0);
    int rc = torch_add_overridable(vm, module, defs);
    free(defs);
    return rc;
}
