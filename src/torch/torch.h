/* src/torch/torch.h — the script-level torch package: the layer that joins the VM (vm/) and the
 * tensor library (src/tensor, src/autograd).
 *
 * Design note.  A script tensor is a TensorObj: a VM object holding one reference to a C
 * Tensor.  The C tensor points back at its wrapper through tensor_user_obj (not owned), so the
 * same C tensor always surfaces as the same script object while that object lives
 * (`x.grad is x.grad`); the wrapper's finalizer clears the back pointer and drops the reference.
 * Autograd nodes get the same treatment (NodeObj, `y.grad_fn is y.grad_fn`).  Storage bytes are
 * reported to the collector, so tensors pace the GC like any other allocation.
 *
 * Script callables handed to the autograd engine (tensor hooks, node hooks, saved-tensor hook
 * pairs, custom Function backward, queued callbacks) travel as a CallbackBox: the VM plus an
 * external GC root for the callable, released by the engine when the hook goes away (and by the
 * binding when the engine refuses the hook).
 *
 * dtypes: the tensor library computes in float32, int64 and bool.  PyTorch's other dtypes
 * (float64, int32, float16, ...) exist as torch.dtype objects so that comparing and printing them
 * means what it means in PyTorch, but creating or converting a tensor to one raises
 * NotImplementedError (torch_unsupported_dtype) instead of silently computing in another dtype.
 *
 *   Tensor *t = ag_mul(a, b);           // C: new reference
 *   Value v = torch_wrap(vm, t);        // steals t; returns the wrapper (existing or new)
 *   Tensor *u = torch_tensor_of(v);     // borrowed back
 */
#ifndef EMBER_TORCH_TORCH_H
#define EMBER_TORCH_TORCH_H

#include "ember/autograd.h"
#include "ember/tensor.h"
#include "vm/vm.h"

/* torch.return_types.* named pairs (values, indices), in torch_return_pair's name order */
#define TORCH_RETURN_TYPE_NAMES "max", "min", "sort", "topk", "kthvalue", "cummax", "cummin"
enum { TORCH_N_RETURN_TYPES = 7 };

typedef struct TensorObj {
    Obj hdr;
    Tensor *t;
    DictObj *dict;
} TensorObj;

typedef struct NodeObj {
    Obj hdr;
    AgNode *node;      /* a reference, except for a custom Function's ctx, whose node owns it */
    DictObj *dict;
    int32_t nargs;     /* custom Function ctx: forward arguments (needs_input_grad) */
    struct CallbackBox *fn_box;   /* custom Function ctx: the node's backward box, which roots it */
    int32_t n_fwd_out;            /* custom Function ctx: forward's outputs (tensors or not) */
    uint64_t tensor_outs;         /*   bit i: output i is a tensor (has a gradient slot) */
} NodeObj;

/* Per-VM state of the torch package (vm->ext[TORCH_EXT]). */
enum { TORCH_EXT = VM_EXT_TORCH, NN_EXT = VM_EXT_NN };   /* NN_EXT: torch.nn (src/torch/module.h) */
typedef struct TorchState {
    TypeObj *t_tensor, *t_node, *t_dtype, *t_size, *t_device, *t_handle, *t_function_ctx, *t_finfo;
    TypeObj *t_return_types[TORCH_N_RETURN_TYPES];   /* torch.return_types.max / .min / .sort / .topk */
    Value dtypes[TENSOR_DTYPE_COUNT];   /* torch.float32, torch.int64, torch.bool (the others: torch._C) */
    Value cpu_device;
    Value strided;                      /* torch.strided, the one torch.layout */
    TypeObj *t_memory_format;           /* torch.memory_format (memory_format.c) */
    Value memory_formats[TENSOR_MF_CHANNELS_LAST_3D + 1];   /* by TensorMemoryFormat; [UNSET] null */
    Value function_base;                /* torch.autograd.Function */
    Value grad_mode_type;               /* torch.no_grad etc. (set by the library) */
    Value handle_factory;               /* engine hook id -> RemovableHandle (torch.utils.hooks) */
    Value mutation_observer;            /* fn(tensor) before in-place kernels, or null */
    /* torch._C._will_engine_execute_node asks this first (a layer standing in for part of the
     * graph: the tracer's module markers): 1/0, or -1 for "ask the engine". */
    int (*will_execute_override)(VM *vm, AgNode *node);
    TypeObj *t_generator;               /* torch._C.Generator (generator.c) */
    TypeObj *t_fx_graph, *t_fx_node;    /* torch._C._fx.GraphBase / NodeBase (fx.c) */
    TypeObj *fx_node_class;             /* torch.fx.Node, the NodeBase subclass fx nodes are made of */
    bool autocast_cpu;                  /* torch.autocast(device_type="cpu") is active */
    TensorDtype autocast_cpu_dtype;     /* its dtype (bfloat16 unless given) */
} TorchState;

static inline TorchState *torch_state(VM *vm) { return (TorchState *)vm->ext[TORCH_EXT]; }

/* Register the torch native modules and library sources with a VM. */
void torch_register(VM *vm);
/* torch._C._fx (fx.c): the native side of torch.fx. */
void torch_fx_register(VM *vm);

/* ---- wrapping ---- */
Value torch_wrap(VM *vm, Tensor *t);            /* steals t; NULL t -> error already set */
Value torch_wrap_node(VM *vm, AgNode *n);        /* borrows n; NULL -> None */
bool torch_is_tensor(VM *vm, Value v);
static inline Tensor *torch_tensor_of(Value v) { return ((TensorObj *)v.as.o)->t; }
/* Raise the tensor library's pending error as the matching Python exception. */
Value torch_raise_error(VM *vm);
/* torch.return_types.<name>(values=a, indices=b) for max/min (functions.c). */
Value torch_return_pair(VM *vm, const char *name, Value a, Value b);
/* Wrap a two-output op's tensors (stealing out[0], out[1]) as torch.return_types.<name>, or as a
 * plain tuple when name is NULL (max_pool2d's return_indices). */
Value torch_wrap_pair(VM *vm, const char *name, Tensor **out);
/* CPU autocast's lower-precision ops (mm, matmul, bmm, addmm, linear, ...): in[i] replaced by its
 * cast to the autocast dtype when autocast is on and it is a floating non-double tensor of
 * another dtype (the casts are recorded ops: ToCopyBackward0).  owned[i] (n entries, zeroed by
 * the caller) receives the new references to drop after the op.  -1 with the error raised. */
int torch_autocast_lower(VM *vm, Tensor **in, int n, Tensor **owned) EM_MUST_CHECK;
/* Wrap the result of an op: NULL means its error is pending. */
static inline Value torch_result(VM *vm, Tensor *t) { return t ? torch_wrap(vm, t) : torch_raise_error(vm); }

/* ---- argument conversion ---- */
/* A Python number as a TensorScalar; false if v is not a number (bool, int, float). */
bool torch_scalar_of(VM *vm, Value v, TensorScalar *out);
/* A tensor argument: tensors as is (borrowed), numbers as 0-dim wrapped-number tensors (new
 * reference in *owned, to be released with tensor_decref).  -1 + TypeError otherwise. */
/* a Python number as a 0-dim wrapped-number tensor, to meet a tensor of dtype `peer` (DEFAULT: none).
 * PyTorch's scalar_to_tensor holds a float in double and promotion counts it as the default dtype,
 * so its storage only matters against a float64 operand, which must meet it unrounded: there it is
 * float64, elsewhere the default dtype (what the compiled paths, which read dtypes, promote it as).
 * NULL with the tensor error set on failure. */
Tensor *torch_wrapped_number(TensorScalar s, TensorDtype peer);
int torch_tensor_arg(VM *vm, Value v, const char *fname, TensorDtype peer, Tensor **out, Tensor **owned) EM_MUST_CHECK;
/* Sizes given as *args ints or one sequence (view(2, 3), view((2, 3)), torch.Size). */
int torch_shape_args(VM *vm, int argc, Value *argv, int64_t *shape, int *ndim, const char *fname) EM_MUST_CHECK;
int torch_shape_value(VM *vm, Value v, int64_t *shape, int *ndim, const char *fname) EM_MUST_CHECK;
int torch_dtype_of(VM *vm, Value v, TensorDtype *out) EM_MUST_CHECK;   /* None -> DEFAULT */
/* memory_format.c: torch.memory_format and its four values (torch.contiguous_format, ...) */
int torch_memory_format_init(VM *vm, Value cmod) EM_MUST_CHECK;
/* a memory_format= argument: absent or None leaves *out as it is */
int torch_memory_format_of(VM *vm, Value v, TensorMemoryFormat *out) EM_MUST_CHECK;
/* NotImplementedError for a dtype PyTorch has and the tensor library does not ("float64"); -1. */
int torch_unsupported_dtype(VM *vm, const char *name);
Value torch_dtype_value(VM *vm, TensorDtype d);
Value torch_size_new(VM *vm, int ndim, const int64_t *shape);   /* torch.Size */
int torch_int_arg(VM *vm, Value v, const char *what, int64_t *out) EM_MUST_CHECK;
int torch_bool_arg(VM *vm, Value v, bool *out) EM_MUST_CHECK;
/* Nested Python lists/tuples/numbers (or tensors) -> tensor (torch.tensor). */
Tensor *torch_tensor_from_data(VM *vm, Value data, TensorDtype dtype);
Value torch_tolist(VM *vm, Tensor *t);
Value torch_scalar_value(TensorScalar s);     /* a TensorScalar as a Python number */

/* ---- callbacks into script code ---- */
typedef struct CallbackBox {
    VM *vm;
    ExtRoot *fn;         /* the script callable */
    ExtRoot *extra;      /* optional second value (e.g. a hook's owner), or NULL */
} CallbackBox;
CallbackBox *torch_box_new(VM *vm, Value fn, Value extra);
/* Call a tensor hook with grad (borrowed) as the engine does: *replace is a new reference to
 * what it returned, or NULL for None; the result is checked with PyTorch's messages. */
int torch_call_tensor_hook(VM *vm, Value hook, Tensor *grad, Tensor **replace);
void torch_box_release(void *box);

/* ---- __torch_function__ (overrides.c) ---- */
struct MethodDef;
/* A torch function that first dispatches to __torch_function__ of script-object arguments. */
NativeObj *torch_overridable_new(VM *vm, const struct MethodDef *d);
/* module_add_functions with torch_overridable_new. */
int torch_add_overridable(VM *vm, Value module, const struct MethodDef *defs) EM_MUST_CHECK;
/* Replaces the native methods of t (Tensor) by trampolines that dispatch __torch_function__. */
int torch_tensor_methods_overridable(VM *vm, TypeObj *t) EM_MUST_CHECK;
/* The natives generated from the op table's PY column (op_natives.c): Tensor methods, and the
 * functions of namespace ns ("torch", "F" = torch._C._nn, "special" = torch._C._special). */
int torch_op_methods_init(VM *vm, TypeObj *t) EM_MUST_CHECK;
int torch_op_functions_init(VM *vm, Value module, const char *ns) EM_MUST_CHECK;
int torch_special_functions_init(VM *vm, Value mod) EM_MUST_CHECK;
/* torch._C._has_torch_function* */
int torch_overrides_init(VM *vm, Value cmod) EM_MUST_CHECK;

/* ---- out= (out_args.c) ---- */
/* How an op's out= kernel checks out's dtype against its result's (PyTorch's message in brackets):
 * CAST: any dtype the result can be cast to ("result type Float can't be cast to the desired
 * output type Long"); EXACT: the result's ("Expected out tensor to have dtype float, but got long
 * int instead"); FOUND: the result's ("Found dtype Long but expected Float"); OWN_DTYPE: the op
 * computes in out's dtype (sum, cumsum, the creation functions), as CAST; SAME_AS_INPUT: the
 * result's (dot: "result dtype Long does not match input dtype Float"); NATIVE: the native takes
 * out= itself (the matrix products). */
typedef enum {
    TORCH_OUT_CAST, TORCH_OUT_EXACT, TORCH_OUT_FOUND, TORCH_OUT_OWN_DTYPE, TORCH_OUT_SAME_AS_INPUT, TORCH_OUT_NATIVE
} TorchOutRule;
enum {
    TORCH_OUT_NEEDS_DIM = 1,   /* only the dim= overload takes out (sum, mean, prod, max, min) */
    TORCH_OUT_F_CONTIG = 2,    /* LAPACK: a resized out's matrices are column-major */
    TORCH_OUT_QUIET = 4,       /* resized without resize_output's warning (creation functions) */
    TORCH_OUT_RANGE = 8,       /* arange's own warning for a 1-d out of another length */
    TORCH_OUT_TRANSPOSED = 16, /* a resized out is a contiguous one transposed (nonzero's (n, ndim)) */
};
typedef struct TorchOutSpec {
    const char *name;     /* the torch function (Python-level ones qualified: "linalg.inv") */
    const char *aten;     /* the aten op autograd's error names; NULL: no autograd check */
    TorchOutRule rule;
    unsigned flags;       /* TORCH_OUT_* */
    const char *binary;   /* the entry used when the second argument is a tensor (max: maximum) */
    const char *msg;      /* the kernel's own dtype error, if it words it otherwise than its rule:
                           * {r}/{o} the result's/out's dtype as "Float", {rt}/{ot} as "float" */
} TorchOutSpec;
/* The table entry of a torch function that takes out=, or NULL. */
const TorchOutSpec *torch_out_spec(const char *name);
/* kw's index of the out keyword, or -1 */
int64_t torch_out_kw_index(TupleObj *kw);
/* callee(*argv, **kw) with out= (kw's entry k_out) honoured as PyTorch does: the autograd check,
 * the call (dtype= out's dtype for OWN_DTYPE ops), then the result written into out; returns out
 * (or a tuple of the outs, of the result's type). */
Value torch_out_call(VM *vm, const TorchOutSpec *s, Value callee, int argc, Value *argv, TupleObj *kw, int64_t k_out);
/* The steps apart, for a native that computes the result itself (matmul_out): the autograd
 * check over the n arguments (out among them), and the result r written into out o. -1 raised. */
int torch_out_check_grad(VM *vm, const TorchOutSpec *s, int n, const Value *args) EM_MUST_CHECK;
int torch_out_write(VM *vm, const TorchOutSpec *s, Tensor *o, Tensor *r) EM_MUST_CHECK;
/* torch._C._out_call */
int torch_out_init(VM *vm, Value cmod) EM_MUST_CHECK;
/* ---- module parts (each file's init) ---- */
int torch_tensor_type_init(VM *vm, Value cmod);
/* torch._C.StorageBase and the Tensor methods reaching storages (storage.c) */
int torch_storage_init(VM *vm, Value cmod);
int torch_tensor_methods_init(VM *vm, TypeObj *t);
int torch_indexing_init(VM *vm, TypeObj *t);
int torch_functions_init(VM *vm, Value cmod);
int torch_mathops_init(VM *vm, Value cmod);   /* torch._C._mathop + Tensor methods of torch/_mathops.py (mathops.c) */
/* torch.Generator, default_generator and the random natives that take generator= (generator.c). */
int torch_generator_init(VM *vm, Value cmod);
/* A generator= argument: NULL (missing or None: the default generator) or the Generator's; -1 +
 * TypeError for anything else. */
int torch_generator_arg(VM *vm, Value v, const char *fname, TensorGenerator **out) EM_MUST_CHECK;
int torch_autograd_init(VM *vm, Value cmod);
/* torch._C._index_op and the Tensor methods of torch/_indexing.py (index_ops.c). */
int torch_index_ops_init(VM *vm, Value cmod);

#endif
