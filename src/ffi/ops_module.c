/* src/ffi/ops_module.c — torch._C._custom_ops: the script binding of custom ops
 * (src/ffi/custom_op.h).  load_library(path) loads an op library; lookup(ns, name) returns the
 * op as an OpOverloadPacket, callable with positional and keyword arguments checked against
 * its schema (PyTorch's messages), whose `.default` is the OpOverload.  torch.ops itself
 * (namespaces, caching) is the library module torch/_ops.py. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/ffi/custom_op.h"
#include "src/ffi/register.h"
#include "src/torch/torch.h"
#include "src/tracer/backend.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct CustomOpObj {
    Obj hdr;
    const FfiOp *op;
    bool overload;           /* OpOverload (op.default) rather than the packet */
    DictObj *dict;
} CustomOpObj;

/* Per-VM state (vm->ext[OPS_EXT]): the two op types. */
enum { OPS_EXT = VM_EXT_OPS };
typedef struct OpsState {
    TypeObj *t_packet, *t_overload;
} OpsState;

static OpsState *ops_state(VM *vm) { return (OpsState *)vm->ext[OPS_EXT]; }

static void op_trace(VM *vm, Obj *o) { gc_mark(vm, ((CustomOpObj *)o)->dict); }

static Value op_new(VM *vm, const FfiOp *op, bool overload) {
    OpsState *st = ops_state(vm);
    CustomOpObj *o = gc_alloc(vm, overload ? st->t_overload : st->t_packet, sizeof(CustomOpObj));
    if (!o) return val_null();
    o->op = op;
    o->overload = overload;
    return val_obj(o);
}

static const char *kind_name(FfiArgKind k) {
    switch (k) {
    case FFI_ARG_TENSOR: return "Tensor";
    case FFI_ARG_FLOAT: return "float";
    case FFI_ARG_INT: return "int";
    case FFI_ARG_BOOL: return "bool";
    }
    return "?";
}

static Value type_mismatch(VM *vm, const FfiOp *op, int i, Value v) {
    Value r = vm_repr(vm, v);
    if (val_is_null(r)) return r;
    return vm_raise(vm, vm->e_RuntimeError,
                    "%s() Expected a value of type '%s' for argument '%s' but instead found type '%s'.\n"
                    "Position: %d\nValue: %s\nDeclaration: %s",
                    ffi_op_qualname(op), kind_name(ffi_op_arg_kind(op, i)), ffi_op_arg_name(op, i), vm_type_name(vm, v), i,
                    AS_STR(r)->data, ffi_op_schema(op));
}

/* One script value as the schema's argument i. */
static int convert_arg(VM *vm, const FfiOp *op, int i, Value v, FfiOpValue *out) {
    FfiArgKind k = ffi_op_arg_kind(op, i);
    out->kind = k;
    switch (k) {
    case FFI_ARG_TENSOR:
        if (!torch_is_tensor(vm, v)) break;
        out->t = torch_tensor_of(v);
        return 0;
    case FFI_ARG_FLOAT:
        if (val_is_float(v)) out->f = v.as.f;
        else if (val_is_intlike(v)) out->f = (double)val_as_intlike(v);
        else break;
        return 0;
    case FFI_ARG_INT:
        if (!val_is_intlike(v)) break;
        out->i = val_as_intlike(v);
        return 0;
    case FFI_ARG_BOOL:
        if (!val_is_bool(v)) break;
        out->b = v.as.b;
        return 0;
    }
    type_mismatch(vm, op, i, v);
    return -1;
}

int ffi_op_bind(VM *vm, const FfiOp *op, int argc, Value *argv, TupleObj *kw, Value *bound) {
    int nkw = kw ? (int)kw->len : 0;
    const char *names[FFI_OP_MAX_ARGS];
    int slot[FFI_OP_MAX_ARGS];
    for (int k = 0; k < nkw && k < FFI_OP_MAX_ARGS; k++) names[k] = AS_STR(kw->items[k])->data;
    if (nkw > FFI_OP_MAX_ARGS) {
        vm_raise(vm, vm->e_RuntimeError, "%s() got too many keyword arguments. Declaration: %s", ffi_op_qualname(op),
                 ffi_op_schema(op));
        return -1;
    }
    int n = ffi_op_bind_slots(op, argc, nkw, names, slot);
    if (n < 0) {
        torch_raise_error(vm);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        FfiOpValue d;
        if (slot[i] >= 0) bound[i] = argv[slot[i]];
        else if (ffi_op_arg_default(op, i, &d))
            bound[i] = d.kind == FFI_ARG_FLOAT ? val_float(d.f) : d.kind == FFI_ARG_INT ? val_int(d.i) : val_bool(d.b);
    }
    return n;
}

static Value op_call(ARGS) {
    const FfiOp *op = ((CustomOpObj *)argv[0].as.o)->op;
    Value bound[FFI_OP_MAX_ARGS];
    int n = ffi_op_bind(vm, op, argc - 1, argv + 1, kw, bound);
    if (n < 0) return val_null();
    FfiOpValue args[FFI_OP_MAX_ARGS];
    for (int i = 0; i < n; i++)
        if (convert_arg(vm, op, i, bound[i], &args[i]) < 0) return val_null();
    Tensor *outs[FFI_OP_MAX_OUTPUTS];
    int nout = ffi_op_run(op, args, n, outs);
    if (nout < 0) return torch_raise_error(vm);
    if (nout == 1) return torch_wrap(vm, outs[0]);
    TupleObj *t = tuple_new(vm, nout);
    if (!t) {
        for (int o = 0; o < nout; o++) tensor_decref(outs[o]);
        return val_null();
    }
    vm_push_root(vm, val_obj(t));
    Value r = val_obj(t);
    for (int o = 0; o < nout; o++) {
        Value w = torch_wrap(vm, outs[o]);
        if (val_is_null(w)) {
            for (int k = o + 1; k < nout; k++) tensor_decref(outs[k]);
            r = w;
            break;
        }
        t->items[o] = w;
    }
    vm_pop_root(vm);
    return r;
}

static Value dotted_name(VM *vm, const FfiOp *op) {
    StrObj *s = str_printf(vm, "%s.%s", ffi_op_namespace(op), ffi_op_name(op));
    return s ? val_obj(s) : val_null();
}

static Value op_repr(ARGS) {
    CustomOpObj *o = (CustomOpObj *)argv[0].as.o;
    StrObj *s = o->overload ? str_printf(vm, "<OpOverload(op='%s.%s', overload='default')>", ffi_op_namespace(o->op),
                                         ffi_op_name(o->op))
                            : str_printf(vm, "<OpOverloadPacket(op='%s.%s')>", ffi_op_namespace(o->op), ffi_op_name(o->op));
    return s ? val_obj(s) : val_null();
}

static Value op_str(ARGS) {
    CustomOpObj *o = (CustomOpObj *)argv[0].as.o;
    if (!o->overload) return dotted_name(vm, o->op);
    StrObj *s = str_printf(vm, "%s.%s.default", ffi_op_namespace(o->op), ffi_op_name(o->op));
    return s ? val_obj(s) : val_null();
}

static Value op_get_default(VM *vm, Value self, void *c) {
    CustomOpObj *o = (CustomOpObj *)self.as.o;
    return o->overload ? self : op_new(vm, o->op, true);
}

static Value op_get_schema(VM *vm, Value self, void *c) {
    const FfiOp *op = ((CustomOpObj *)self.as.o)->op;
    StrObj *s = str_from_c(vm, ffi_op_schema(op));
    return s ? val_obj(s) : val_null();
}

static Value op_get_name(VM *vm, Value self, void *c) {
    CustomOpObj *o = (CustomOpObj *)self.as.o;
    if (!o->overload) {
        StrObj *s = str_from_c(vm, ffi_op_name(o->op));
        return s ? val_obj(s) : val_null();
    }
    StrObj *s = str_printf(vm, "%s.default", ffi_op_name(o->op));
    return s ? val_obj(s) : val_null();
}

static Value op_get_qualified(VM *vm, Value self, void *c) {
    StrObj *s = str_from_c(vm, ffi_op_qualname(((CustomOpObj *)self.as.o)->op));
    return s ? val_obj(s) : val_null();
}

static Value op_overloads(ARGS) {
    StrObj *d = vm_intern_str(vm, "default");
    ListObj *l = list_new(vm, 1);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int rc = list_append(vm, l, val_obj(d));
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

/* load_library(path) -> the resolved path (realpath, as PyTorch resolves it) */
static Value f_load_library(ARGS) {
    if (argc != 1 || (kw && kw->len) || !val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "load_library() takes one str argument");
    const char *path = AS_STR(argv[0])->data;
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) {
        if (path[0] == '/') snprintf(resolved, sizeof resolved, "%s", path);
        else {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
            snprintf(resolved, sizeof resolved, "%s/%s", cwd, path);
        }
    }
    char err[1024];
    bool os_error;
    if (ffi_op_load_library(resolved, err, sizeof err, &os_error) < 0)
        return vm_raise(vm, os_error ? vm->e_OSError : vm->e_RuntimeError, "%s", err);
    StrObj *s = str_from_c(vm, resolved);
    return s ? val_obj(s) : val_null();
}

static Value f_lookup(ARGS) {
    if (argc != 2 || !val_is_str(vm, argv[0]) || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "lookup(namespace, name)");
    char q[300];
    snprintf(q, sizeof q, "%s::%s", AS_STR(argv[0])->data, AS_STR(argv[1])->data);
    const FfiOp *op = ffi_op_lookup(q);
    return op ? op_new(vm, op, false) : val_none();
}

static Value f_registered(ARGS) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int i = 0; i < ffi_op_count(); i++) {
        StrObj *s = str_from_c(vm, ffi_op_qualname(ffi_op_at(i)));
        if (!s || list_append(vm, l, val_obj(s)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(l);
}

const FfiOp *ffi_custom_op_of(VM *vm, Value v) {
    OpsState *st = ops_state(vm);
    if (!st || !val_is_obj(v)) return NULL;
    TypeObj *t = v.as.o->type;
    return t == st->t_packet || t == st->t_overload ? ((CustomOpObj *)v.as.o)->op : NULL;
}

/* ---- the tracer's custom-op hook (src/tracer/backend.h) ---------------------------------------------
 * The tracer owns the interface through which it traces and runs ops it does not define; this
 * layer, above it, registers its ops into it.  The tables are the same shape (static_asserts
 * below), so the adapters only convert argument values. */

_Static_assert((int)TRACE_ARG_TENSOR == (int)FFI_ARG_TENSOR && (int)TRACE_ARG_FLOAT == (int)FFI_ARG_FLOAT &&
                  (int)TRACE_ARG_INT == (int)FFI_ARG_INT && (int)TRACE_ARG_BOOL == (int)FFI_ARG_BOOL,
              "argument kinds");
_Static_assert(TRACE_OP_MAX_ARGS == FFI_OP_MAX_ARGS && TRACE_OP_MAX_OUTPUTS == FFI_OP_MAX_OUTPUTS, "op limits");

#define OP(o) ((const FfiOp *)(o))

static void to_ffi(const TraceOpArg *in, int n, FfiOpValue *out) {
    for (int i = 0; i < n; i++) {
        out[i].kind = (FfiArgKind)in[i].kind;
        switch (in[i].kind) {
        case TRACE_ARG_TENSOR: out[i].t = in[i].t; break;   /* or .meta: the same pointer slot */
        case TRACE_ARG_FLOAT: out[i].f = in[i].f; break;
        case TRACE_ARG_INT: out[i].i = in[i].i; break;
        case TRACE_ARG_BOOL: out[i].b = in[i].b; break;
        }
    }
}

static bool too_many(const TraceOp *op, int nargs) {
    if (nargs <= FFI_OP_MAX_ARGS) return false;
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s() takes at most %d arguments (%d given)", ffi_op_qualname(OP(op)),
                     ffi_op_num_args(OP(op)), nargs);
    return true;
}

static const TraceOp *hook_op_of(VM *vm, Value v) { return (const TraceOp *)ffi_custom_op_of(vm, v); }
static const char *hook_qualname(const TraceOp *op) { return ffi_op_qualname(OP(op)); }
static const char *hook_ns(const TraceOp *op) { return ffi_op_namespace(OP(op)); }
static const char *hook_name(const TraceOp *op) { return ffi_op_name(OP(op)); }
static TraceArgKind hook_arg_kind(const TraceOp *op, int i) { return (TraceArgKind)ffi_op_arg_kind(OP(op), i); }
static const char *hook_arg_name(const TraceOp *op, int i) { return ffi_op_arg_name(OP(op), i); }
static int hook_num_outputs(const TraceOp *op) { return ffi_op_num_outputs(OP(op)); }

static bool hook_arg_default(const TraceOp *op, int i, TraceOpArg *out) {
    FfiOpValue v;
    if (!ffi_op_arg_default(OP(op), i, &v)) return false;
    out->kind = (TraceArgKind)v.kind;
    switch (v.kind) {
    case FFI_ARG_TENSOR: out->t = v.t; break;
    case FFI_ARG_FLOAT: out->f = v.f; break;
    case FFI_ARG_INT: out->i = v.i; break;
    case FFI_ARG_BOOL: out->b = v.b; break;
    }
    return true;
}

static int hook_bind_slots(const TraceOp *op, int npos, int nkw, const char *const *kwnames, int *slot) {
    return ffi_op_bind_slots(OP(op), npos, nkw, kwnames, slot);
}

static int hook_infer(const TraceOp *op, const TraceOpArg *args, int nargs, TensorMeta *outputs) {
    FfiOpValue v[FFI_OP_MAX_ARGS];
    if (too_many(op, nargs)) return -1;
    to_ffi(args, nargs, v);
    return ffi_op_infer(OP(op), v, nargs, outputs);
}

static int hook_run(const TraceOp *op, const TraceOpArg *args, int nargs, Tensor **outputs) {
    FfiOpValue v[FFI_OP_MAX_ARGS];
    if (too_many(op, nargs)) return -1;
    to_ffi(args, nargs, v);
    return ffi_op_run(OP(op), v, nargs, outputs);
}

static const TraceCustomOps trace_hook = {
    .op_of = hook_op_of, .qualname = hook_qualname, .ns = hook_ns, .name = hook_name, .arg_kind = hook_arg_kind,
    .arg_name = hook_arg_name, .arg_default = hook_arg_default, .bind_slots = hook_bind_slots, .infer = hook_infer,
    .num_outputs = hook_num_outputs, .run = hook_run,
};

void ffi_register_trace_hook(void) { trace_register_custom_ops(&trace_hook); }

/* ---- registration ------------------------------------------------------------------------------------ */

static void ops_state_trace(VM *vm, void *p) {
    OpsState *st = p;
    gc_mark(vm, st->t_packet);
    gc_mark(vm, st->t_overload);
}

static void ops_state_free(VM *vm, void *p) { free(p); }

int ffi_ops_module_init(VM *vm, Value mod) {
    if (!torch_state(vm) && val_is_null(vm_import_module(vm, "torch._C"))) return -1;
    OpsState *st = calloc(1, sizeof *st);
    if (!st) {
        vm_no_memory(vm);
        return -1;
    }
    vm->ext[OPS_EXT] = st;
    vm->ext_trace[OPS_EXT] = ops_state_trace;
    vm->ext_free[OPS_EXT] = ops_state_free;
    st->t_packet = type_new_builtin(vm, "OpOverloadPacket", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(CustomOpObj),
                                    offsetof(CustomOpObj, dict), op_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!st->t_packet) return -1;
    st->t_overload = type_new_builtin(vm, "OpOverload", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(CustomOpObj),
                                      offsetof(CustomOpObj, dict), op_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!st->t_overload) return -1;
    st->t_packet->module = st->t_overload->module = vm_intern(vm, "torch._ops");
    static const MethodDef m[] = {
        {"__call__", op_call, NATIVEF_METHOD},
        {"__repr__", op_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__str__", op_str, NATIVEF_METHOD | ARITY_NOARGS},
        {"overloads", op_overloads, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef gs[] = {{"default", op_get_default, NULL},
                                   {"_schema", op_get_schema, NULL},
                                   {"__name__", op_get_name, NULL},
                                   {"_qualified_op_name", op_get_qualified, NULL},
                                   {NULL}};
    if (type_add_methods(vm, st->t_packet, m) < 0 || type_add_getsets(vm, st->t_packet, gs) < 0 ||
        type_add_methods(vm, st->t_overload, m) < 0 || type_add_getsets(vm, st->t_overload, gs) < 0)
        return -1;
    static const MethodDef fns[] = {{"load_library", f_load_library, 0}, {"lookup", f_lookup, 0},
                                    {"registered", f_registered, 0}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    if (module_set(vm, mod, "OpOverloadPacket", val_obj(st->t_packet)) < 0 ||
        module_set(vm, mod, "OpOverload", val_obj(st->t_overload)) < 0)
        return -1;
    return 0;
}
