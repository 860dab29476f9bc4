/* src/torch/tensor_obj.c — the script Tensor type: wrapping C tensors with stable identity,
 * GC integration (finalizer, storage bytes), the torch.dtype, torch.Size and torch.device
 * types, errors from the tensor library as Python exceptions, argument conversion, and the
 * Tensor attributes (shape, dtype, requires_grad, grad, grad_fn, is_leaf, data, ...). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/import.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- errors -------------------------------------------------------------------------------- */

Value torch_raise_error(VM *vm) {
    TensorErrorKind k = tensor_error_kind();
    const char *msg = tensor_error_message();
    if (k == TENSOR_ERR_EXTERNAL || k == TENSOR_OK) {
        tensor_error_clear();
        if (!val_is_null(vm->exc)) return val_null();
        return vm_raise(vm, vm->e_SystemError, "tensor library failed without an error");
    }
    TypeObj *t = vm->e_RuntimeError;
    switch (k) {
    case TENSOR_ERR_VALUE: t = vm->e_ValueError; break;
    case TENSOR_ERR_INDEX: t = vm->e_IndexError; break;
    case TENSOR_ERR_TYPE: t = vm->e_TypeError; break;
    case TENSOR_ERR_NOT_IMPLEMENTED: t = vm->e_NotImplementedError; break;
    case TENSOR_ERR_MEMORY: tensor_error_clear(); return vm_no_memory(vm);
    case TENSOR_ERR_LINALG: {
        /* torch.linalg.LinAlgError, defined in Python (torch/linalg/__init__.py); the message is
         * taken first: importing the module may run tensor ops, which reuse the error buffer */
        StrObj *m = str_from_c(vm, msg);
        tensor_error_clear();
        if (!m) return val_null();
        vm_push_root(vm, val_obj(m));
        Value mod = vm_import_module(vm, "torch.linalg");
        Value cls = val_is_null(mod) ? mod : vm_getattr_c(vm, mod, "LinAlgError");
        Value r = val_is_null(cls) ? cls : vm_raise_str(vm, (TypeObj *)cls.as.o, m);
        vm_pop_root(vm);
        return r;
    }
    default: break;
    }
    StrObj *m = str_from_c(vm, msg);
    tensor_error_clear();
    if (!m) return val_null();
    return vm_raise_str(vm, t, m);
}

/* ---- wrapping ----------------------------------------------------------------------------- */

static void tensor_obj_trace(VM *vm, Obj *o) { gc_mark(vm, ((TensorObj *)o)->dict); }

static void tensor_obj_finalize(VM *vm, Obj *o) {
    TensorObj *w = (TensorObj *)o;
    if (!w->t) return;
    if (tensor_user_obj(w->t) == w) tensor_set_user_obj(w->t, NULL);
    tensor_decref(w->t);
    w->t = NULL;
}

static Value tensor_obj_alloc(VM *vm, TypeObj *t) {
    /* Tensor() with no data: an empty float tensor, as torch.Tensor() */
    TensorObj *w = gc_alloc(vm, t, t->instance_size);
    if (!w) return val_null();
    w->t = tensor_empty(TENSOR_FLOAT32, 1, (int64_t[]){0});
    if (!w->t) return torch_raise_error(vm);
    tensor_set_user_obj(w->t, w);
    return val_obj(w);
}

bool torch_is_tensor(VM *vm, Value v) {
    TorchState *ts = torch_state(vm);
    return v.tag == VAL_OBJ && (v.as.o->type == ts->t_tensor || type_is_subtype(v.as.o->type, ts->t_tensor));
}

Value torch_wrap(VM *vm, Tensor *t) {
    if (!t) return torch_raise_error(vm);
    TensorObj *w = tensor_user_obj(t);
    if (w) {
        tensor_decref(t);   /* the wrapper already holds its reference */
        return val_obj(w);
    }
    w = gc_alloc(vm, torch_state(vm)->t_tensor, sizeof(TensorObj));
    if (!w) {
        tensor_decref(t);
        return val_null();
    }
    w->t = t;
    tensor_set_user_obj(t, w);
    return val_obj(w);
}

/* ---- autograd node wrappers ------------------------------------------------------------------ */

static void node_obj_trace(VM *vm, Obj *o) { gc_mark(vm, ((NodeObj *)o)->dict); }

static void node_obj_finalize(VM *vm, Obj *o) {
    NodeObj *w = (NodeObj *)o;
    if (!w->node) return;
    if (ag_node_user_obj(w->node) == w) ag_node_set_user_obj(w->node, NULL);
    ag_node_decref(w->node);
    w->node = NULL;
}

/* ---- dtype, device, Size ---------------------------------------------------------------------- */

/* torch.dtype objects: one per dtype of the tensor library (ember/dtypes.def, in enum order),
 * then the complex dtypes PyTorch names, which exist so that comparing and printing them means
 * what it means in PyTorch but whose tensors raise NotImplementedError. */
typedef struct DtypeInfo {
    const char *name;      /* repr without "torch." */
    int code;              /* TensorDtype, or -1 when the tensor library has no such dtype */
    bool is_floating, is_complex, is_signed;
    int itemsize;
    const char *aliases;   /* other torch.<name>s of the same object, space separated */
} DtypeInfo;

#define IS_FLOAT_FLOAT true
#define IS_FLOAT_INT false
#define IS_FLOAT_BOOL false
static const DtypeInfo dtype_infos[] = {
#define DT(NAME, CT, KIND, FAM, PROMO, STR, CNAME, CTYPE, TSTR, ALIASES)                          \
    {STR, TENSOR_##NAME, IS_FLOAT_##KIND, false,                                                   \
     TENSOR_##NAME != TENSOR_BOOL && TENSOR_##NAME != TENSOR_UINT8, (int)sizeof(CT), ALIASES},
#include "ember/dtypes.def"
#undef DT
    {"complex64", -1, false, true, true, 8, "cfloat"},
    {"complex128", -1, false, true, true, 16, "cdouble"},
};
enum { N_DTYPE_INFOS = sizeof dtype_infos / sizeof dtype_infos[0] };

typedef struct DtypeObj {
    Obj hdr;
    const DtypeInfo *info;
} DtypeObj;

#define DTYPE_INFO(v) (((DtypeObj *)(v).as.o)->info)

static Value dtype_repr(ARGS) {
    StrObj *s = str_printf(vm, "torch.%s", DTYPE_INFO(argv[0])->name);
    return s ? val_obj(s) : val_null();
}
static Value dtype_get_is_floating(VM *vm, Value s, void *c) { return val_bool(DTYPE_INFO(s)->is_floating); }
static Value dtype_get_is_complex(VM *vm, Value s, void *c) { return val_bool(DTYPE_INFO(s)->is_complex); }
static Value dtype_get_is_signed(VM *vm, Value s, void *c) { return val_bool(DTYPE_INFO(s)->is_signed); }
static Value dtype_get_itemsize(VM *vm, Value s, void *c) { return val_int(DTYPE_INFO(s)->itemsize); }

Value torch_dtype_value(VM *vm, TensorDtype d) {
    if (d < 0 || d >= TENSOR_DTYPE_COUNT) return val_none();
    return torch_state(vm)->dtypes[d];
}

int torch_unsupported_dtype(VM *vm, const char *name) {
    vm_raise(vm, vm->e_NotImplementedError, "torch.%s tensors are not supported: Ember has no complex dtypes", name);
    return -1;
}

int torch_dtype_of(VM *vm, Value v, TensorDtype *out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = TENSOR_DTYPE_DEFAULT;
        return 0;
    }
    TorchState *ts = torch_state(vm);
    if (val_is_type(vm, v, ts->t_dtype)) {
        const DtypeInfo *info = DTYPE_INFO(v);
        if (info->code < 0) return torch_unsupported_dtype(vm, info->name);
        *out = (TensorDtype)info->code;
        return 0;
    }
    /* Python types as dtypes: float -> torch.float64 (as PyTorch), int -> int64, bool -> bool */
    if (val_is_obj(v) && v.as.o == (Obj *)vm->t_float) { *out = TENSOR_FLOAT64; return 0; }
    if (val_is_obj(v) && v.as.o == (Obj *)vm->t_int) { *out = TENSOR_INT64; return 0; }
    if (val_is_obj(v) && v.as.o == (Obj *)vm->t_bool) { *out = TENSOR_BOOL; return 0; }
    vm_raise(vm, vm->e_TypeError, "dtype must be torch.dtype, not %s", vm_type_name(vm, v));
    return -1;
}

/* torch.layout: only torch.strided (Ember's tensors are dense). */
typedef struct LayoutObj {
    Obj hdr;
} LayoutObj;

static Value layout_repr(ARGS) { return vm_intern(vm, "torch.strided"); }

typedef struct DeviceObj {
    Obj hdr;
} DeviceObj;

static Value device_repr(ARGS) { return vm_intern(vm, "device(type='cpu')"); }
static Value device_str(ARGS) { return vm_intern(vm, "cpu"); }
static Value device_get_type(VM *vm, Value s, void *c) { return vm_intern(vm, "cpu"); }
static Value device_get_index(VM *vm, Value s, void *c) { return val_none(); }
static Value device_eq(ARGS) {
    if (val_is_type(vm, argv[1], torch_state(vm)->t_device)) return val_bool(true);
    if (val_is_str(vm, argv[1])) return val_bool(str_eq_c(AS_STR(argv[1]), "cpu"));
    return vm->not_implemented;
}
static Value device_hash(ARGS) { return val_int(0x6370); }
static Value device_new(ARGS) {
    if (argc < 2 || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "device() expects a device string such as 'cpu'");
    const char *s = AS_STR(argv[1])->data;
    if (strcmp(s, "cpu") != 0 && strncmp(s, "cpu:", 4) != 0)
        return vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: device '%s' is not available", s);
    return torch_state(vm)->cpu_device;
}

Value torch_size_new(VM *vm, int ndim, const int64_t *shape) {
    TupleObj *t = tuple_alloc(vm, torch_state(vm)->t_size, ndim);
    if (!t) return val_null();
    for (int i = 0; i < ndim; i++) t->items[i] = val_int(shape[i]);
    return val_obj(t);
}

static Value size_repr(ARGS) {
    TupleObj *t = AS_TUPLE(argv[0]);
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, "torch.Size([");
    for (int64_t i = 0; i < t->len; i++) {
        Value r = vm_repr(vm, t->items[i]);
        if (val_is_null(r)) {
            sb_free(&b);
            return r;
        }
        if (i) sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(r));
    }
    sb_adds(&b, "])");
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

/* Size + tuple and Size[slice] are Sizes, as in PyTorch (tuple + Size stays a tuple). */
static Value size_add(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "expected 1 argument");
    if (!vm_isinstance_type(vm, argv[1], vm->t_tuple)) return vm->not_implemented;
    TupleObj *a = AS_TUPLE(argv[0]), *b = AS_TUPLE(argv[1]);
    TupleObj *r = tuple_alloc(vm, torch_state(vm)->t_size, a->len + b->len);
    if (!r) return val_null();
    memcpy(r->items, a->items, sizeof(Value) * (size_t)a->len);
    memcpy(r->items + a->len, b->items, sizeof(Value) * (size_t)b->len);
    return val_obj(r);
}

static Value size_getitem(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "expected 1 argument");
    TupleObj *t = AS_TUPLE(argv[0]);
    if (!val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t i;
        if (!val_is_intlike(argv[1]) && vm_index(vm, argv[1], &i) < 0) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "tuple indices must be integers or slices, not %s",
                            vm_type_name(vm, argv[1]));
        }
        if (seq_index(vm, argv[1], t->len, "tuple", &i) < 0) return val_null();
        return t->items[i];
    }
    int64_t start, stop, step, count;
    if (slice_indices(vm, (SliceObj *)argv[1].as.o, t->len, &start, &stop, &step, &count) < 0) return val_null();
    TupleObj *r = tuple_alloc(vm, torch_state(vm)->t_size, count);
    if (!r) return val_null();
    for (int64_t k = 0; k < count; k++) r->items[k] = t->items[start + k * step];
    return val_obj(r);
}

static Value size_numel(ARGS) {
    TupleObj *t = AS_TUPLE(argv[0]);
    int64_t n = 1;
    for (int64_t i = 0; i < t->len; i++) n *= val_as_intlike(t->items[i]);
    return val_int(n);
}

/* ---- argument conversion ------------------------------------------------------------------------ */

bool torch_scalar_of(VM *vm, Value v, TensorScalar *out) {
    switch (v.tag) {
    case VAL_INT: *out = tensor_scalar_i(v.as.i); return true;
    case VAL_FLOAT: *out = tensor_scalar_f(v.as.f); return true;
    case VAL_BOOL: *out = tensor_scalar_b(v.as.b); return true;
    default: return false;
    }
}

Value torch_scalar_value(TensorScalar s) {
    switch (s.kind) {
    case TENSOR_INT64: return val_int(s.i);
    case TENSOR_BOOL: return val_bool(s.i != 0);
    default: return val_float(s.f);
    }
}

Tensor *torch_wrapped_number(TensorScalar s, TensorDtype peer) {
    Tensor *t = tensor_scalar_tensor(s, s.kind == TENSOR_FLOAT32 && peer == TENSOR_FLOAT64 ? TENSOR_FLOAT64 : TENSOR_DTYPE_DEFAULT);
    if (t) tensor_set_wrapped_number(t, true);
    return t;
}

int torch_tensor_arg(VM *vm, Value v, const char *fname, TensorDtype peer, Tensor **out, Tensor **owned) {
    *owned = NULL;
    if (torch_is_tensor(vm, v)) {
        *out = torch_tensor_of(v);
        return 0;
    }
    TensorScalar s;
    if (torch_scalar_of(vm, v, &s)) {
        Tensor *t = torch_wrapped_number(s, peer);
        if (!t) {
            torch_raise_error(vm);
            return -1;
        }
        *out = *owned = t;
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "%s(): argument must be Tensor, not %s", fname, vm_type_name(vm, v));
    return -1;
}

int torch_int_arg(VM *vm, Value v, const char *what, int64_t *out) {
    if (val_is_intlike(v)) {
        *out = val_as_intlike(v);
        return 0;
    }
    if (torch_is_tensor(vm, v) && tensor_numel(torch_tensor_of(v)) == 1 &&
        !tensor_dtype_is_floating(tensor_dtype(torch_tensor_of(v)))) {
        TensorScalar s;
        if (tensor_item(torch_tensor_of(v), &s) < 0) {
            torch_raise_error(vm);
            return -1;
        }
        *out = s.i;
        return 0;
    }
    if (vm_index(vm, v, out) == 0) return 0;
    vm_clear_exc(vm);
    vm_raise(vm, vm->e_TypeError, "%s must be int, not %s", what, vm_type_name(vm, v));
    return -1;
}

int torch_bool_arg(VM *vm, Value v, bool *out) {
    int t = vm_truthy(vm, v);
    if (t < 0) return -1;
    *out = t;
    return 0;
}

int torch_shape_value(VM *vm, Value v, int64_t *shape, int *ndim, const char *fname) {
    Value holder = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, v, &n, &holder);
    if (!items) {
        vm_clear_exc(vm);
        vm_raise(vm, vm->e_TypeError, "%s(): argument 'size' must be tuple of ints, but found element of type %s",
                 fname, vm_type_name(vm, v));
        return -1;
    }
    if (n > TENSOR_MAX_DIMS) {
        vm_raise(vm, vm->e_RuntimeError, "%s(): at most %d dimensions are supported", fname, TENSOR_MAX_DIMS);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!val_is_intlike(items[i])) {
            vm_raise(vm, vm->e_TypeError, "%s(): argument 'size' must be tuple of ints, but found element of type %s at pos %lld",
                     fname, vm_type_name(vm, items[i]), (long long)i);
            return -1;
        }
        shape[i] = val_as_intlike(items[i]);
    }
    *ndim = (int)n;
    return 0;
}

int torch_shape_args(VM *vm, int argc, Value *argv, int64_t *shape, int *ndim, const char *fname) {
    if (argc == 1 && !val_is_intlike(argv[0])) return torch_shape_value(vm, argv[0], shape, ndim, fname);
    if (argc > TENSOR_MAX_DIMS) {
        vm_raise(vm, vm->e_RuntimeError, "%s(): at most %d dimensions are supported", fname, TENSOR_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        if (!val_is_intlike(argv[i])) {
            vm_raise(vm, vm->e_TypeError, "%s(): argument 'size' must be tuple of ints, but found element of type %s at pos %d",
                     fname, vm_type_name(vm, argv[i]), i);
            return -1;
        }
        shape[i] = val_as_intlike(argv[i]);
    }
    *ndim = argc;
    return 0;
}

/* torch.tensor(data), in ATen's passes (torch/csrc/utils/tensor_new.cpp) so that bad data fails
 * with the same exception: the sizes come from the chain of first elements (compute_sizes),
 * the dtype from every leaf (infer_scalar_type: bool < int < float), then the values are stored
 * with each level checked against the sizes (recursive_store). */
typedef struct DataScan {
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int kind;   /* -1 none yet, 0 bool, 1 int, 2 float */
} DataScan;

/* a sequence in PySequence_Check's sense for this purpose: list, tuple (incl. torch.Size) */
static bool data_is_seq(VM *vm, Value v) {
    return vm_isinstance_type(vm, v, vm->t_list) || vm_isinstance_type(vm, v, vm->t_tuple);
}

static int compute_sizes(VM *vm, Value v, DataScan *s) {
    while (!torch_is_tensor(vm, v)) {
        if (val_is_str(vm, v)) {
            /* a str is a sequence of one-character strs: the walk never ends */
            vm_raise(vm, vm->e_ValueError, "too many dimensions 'str'");
            return -1;
        }
        if (!data_is_seq(vm, v)) break;
        int64_t n;
        Value holder = val_null();
        Value *items = vm_sequence_items(vm, v, &n, &holder);
        if (!items) return -1;
        if (s->ndim >= TENSOR_MAX_DIMS) {
            vm_raise(vm, vm->e_ValueError, "too many dimensions '%s'", vm_type_name(vm, v));
            return -1;
        }
        s->shape[s->ndim++] = n;
        if (n == 0) break;
        v = items[0];
    }
    if (torch_is_tensor(vm, v)) {
        /* a tensor leaf contributes its own dims (only 0-dim ones can be stored below) */
        Tensor *t = torch_tensor_of(v);
        for (int i = 0; i < tensor_ndim(t) && s->ndim < TENSOR_MAX_DIMS; i++) s->shape[s->ndim++] = tensor_shape(t)[i];
    }
    return 0;
}

static int infer_kind(VM *vm, Value v, DataScan *s) {
    int k;
    if (torch_is_tensor(vm, v)) {
        TensorDtype d = tensor_dtype(torch_tensor_of(v));
        k = d == TENSOR_BOOL ? 0 : tensor_dtype_is_floating(d) ? 2 : 1;
    } else if (val_is_number(v)) {
        k = v.tag == VAL_BOOL ? 0 : v.tag == VAL_INT ? 1 : 2;
    } else if (val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "new(): invalid data type 'str'");
        return -1;
    } else if (data_is_seq(vm, v)) {
        int64_t n;
        Value holder = val_null();
        Value *items = vm_sequence_items(vm, v, &n, &holder);
        if (!items) return -1;
        if (n == 0 && s->kind < 2) s->kind = 2;   /* torch.tensor([]) is float */
        vm_push_root(vm, holder);
        for (int64_t i = 0; i < n; i++)
            if (infer_kind(vm, items[i], s) < 0) {
                vm_pop_root(vm);
                return -1;
            }
        vm_pop_root(vm);
        return 0;
    } else {
        vm_raise(vm, vm->e_RuntimeError, "Could not infer dtype of %s", vm_type_name(vm, v));
        return -1;
    }
    if (k > s->kind) s->kind = k;
    return 0;
}

static int store_leaf(VM *vm, Value v, TensorDtype dt, char **out) {
    TensorScalar sc;
    if (torch_is_tensor(vm, v)) {
        Tensor *t = torch_tensor_of(v);
        if (tensor_numel(t) != 1) {
            vm_raise(vm, vm->e_ValueError, "only one element tensors can be converted to Python scalars");
            return -1;
        }
        if (tensor_item(t, &sc) < 0) {
            torch_raise_error(vm);
            return -1;
        }
    } else if (!torch_scalar_of(vm, v, &sc)) {
        if (tensor_dtype_is_floating(dt))
            vm_raise(vm, vm->e_TypeError, "must be real number, not %s", vm_type_name(vm, v));
        else if (val_is_str(vm, v))
            vm_raise(vm, vm->e_TypeError, "new(): invalid data type 'str'");
        else
            vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
        return -1;
    }
    if (dt == TENSOR_BOOL) *(uint8_t *)*out = sc.kind == TENSOR_FLOAT32 ? sc.f != 0 : sc.i != 0;
    else tensor_dtype_store(dt, *out, sc);
    *out += tensor_dtype_size(dt);
    return 0;
}

static int store_data(VM *vm, Value v, const DataScan *s, int dim, TensorDtype dt, char **out) {
    if (dim == s->ndim || torch_is_tensor(vm, v)) return store_leaf(vm, v, dt, out);
    if (!data_is_seq(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "not a sequence");
        return -1;
    }
    int64_t n;
    Value holder = val_null();
    Value *items = vm_sequence_items(vm, v, &n, &holder);
    if (!items) return -1;
    if (n != s->shape[dim]) {
        vm_raise(vm, vm->e_ValueError, "expected sequence of length %lld at dim %d (got %lld)", (long long)s->shape[dim], dim,
                 (long long)n);
        return -1;
    }
    vm_push_root(vm, holder);
    for (int64_t i = 0; i < n; i++)
        if (store_data(vm, items[i], s, dim + 1, dt, out) < 0) {
            vm_pop_root(vm);
            return -1;
        }
    vm_pop_root(vm);
    return 0;
}

Tensor *torch_tensor_from_data(VM *vm, Value data, TensorDtype dtype) {
    if (torch_is_tensor(vm, data)) {
        Tensor *src = torch_tensor_of(data);
        Tensor *c = tensor_clone(src);
        if (c && dtype != TENSOR_DTYPE_DEFAULT && tensor_dtype(c) != dtype) {
            Tensor *d = tensor_to_dtype(c, dtype);
            tensor_decref(c);
            c = d;
        }
        if (!c) torch_raise_error(vm);
        return c;
    }
    if (val_is_str(vm, data)) {
        vm_raise(vm, vm->e_TypeError, "new(): invalid data type 'str'");
        return NULL;
    }
    DataScan s = {.ndim = 0, .kind = -1};
    if (compute_sizes(vm, data, &s) < 0) return NULL;
    if (dtype == TENSOR_DTYPE_DEFAULT && infer_kind(vm, data, &s) < 0) return NULL;
    TensorDtype dt = dtype != TENSOR_DTYPE_DEFAULT ? dtype
                     : s.kind == 2 ? tensor_default_dtype() : s.kind == 1 ? TENSOR_INT64 : TENSOR_BOOL;
    int64_t numel = 1;
    for (int i = 0; i < s.ndim; i++) numel *= s.shape[i];
    size_t bytes = (size_t)numel * tensor_dtype_size(dt);
    char *buf = malloc(bytes ? bytes : 1);
    char *p = buf;
    if (store_data(vm, data, &s, 0, dt, &p) < 0) {
        free(buf);
        return NULL;
    }
    Tensor *t = tensor_from_data(dt, s.ndim, s.shape, buf);
    free(buf);
    if (!t) torch_raise_error(vm);
    return t;
}

static Value tolist_rec(VM *vm, Tensor *t, int dim, int64_t *index) {
    int nd = tensor_ndim(t);
    TensorDtype dt = tensor_dtype(t);
    if (dim == nd) {
        if (tensor_dtype_is_floating(dt)) return val_float(tensor_get_f64(t, index));
        if (dt != TENSOR_BOOL) return val_int(tensor_get_i64(t, index));
        return val_bool(tensor_get_i64(t, index) != 0);
    }
    int64_t n = tensor_shape(t)[dim];
    ListObj *l = list_new(vm, n);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < n; i++) {
        index[dim] = i;
        Value v = tolist_rec(vm, t, dim + 1, index);
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        l->items[l->len++] = v;
    }
    vm_pop_root(vm);
    return val_obj(l);
}

Value torch_tolist(VM *vm, Tensor *t) {
    if (!tensor_has_data(t)) return vm_raise(vm, vm->e_RuntimeError, "Tensor.tolist() cannot be called on meta tensors");
    int64_t index[TENSOR_MAX_DIMS] = {0};
    return tolist_rec(vm, t, 0, index);
}

/* ---- callback boxes -------------------------------------------------------------------------- */

CallbackBox *torch_box_new(VM *vm, Value fn, Value extra) {
    CallbackBox *b = malloc(sizeof *b);
    EM_ASSERT(b != NULL, "out of memory");
    b->vm = vm;
    b->fn = gc_root_new(vm, fn);
    b->extra = val_is_null(extra) ? NULL : gc_root_new(vm, extra);
    return b;
}

void torch_box_release(void *p) {
    CallbackBox *b = p;
    if (!b) return;
    gc_root_free(b->vm, b->fn);
    if (b->extra) gc_root_free(b->vm, b->extra);
    free(b);
}

/* ---- Tensor attributes ------------------------------------------------------------------------- */

#define T(v) torch_tensor_of(v)

static Value get_shape(VM *vm, Value s, void *c) {
    Tensor *t = T(s);
    return torch_size_new(vm, tensor_ndim(t), tensor_shape(t));
}
static Value get_dtype(VM *vm, Value s, void *c) { return torch_dtype_value(vm, tensor_dtype(T(s))); }
static Value get_device(VM *vm, Value s, void *c) { return torch_state(vm)->cpu_device; }
static Value get_layout(VM *vm, Value s, void *c) { return torch_state(vm)->strided; }
static Value get_ndim(VM *vm, Value s, void *c) { return val_int(tensor_ndim(T(s))); }
static Value get_requires_grad(VM *vm, Value s, void *c) { return val_bool(ag_requires_grad(T(s))); }
static int set_requires_grad(VM *vm, Value s, Value v, void *c) {
    bool b;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "can't delete requires_grad");
        return -1;
    }
    if (torch_bool_arg(vm, v, &b) < 0) return -1;
    if (ag_set_requires_grad(T(s), b) < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}
static Value get_grad(VM *vm, Value s, void *c) {
    Tensor *g = ag_grad_of(T(s));
    if (!g) return val_none();
    tensor_incref(g);
    return torch_wrap(vm, g);
}
static int set_grad(VM *vm, Value s, Value v, void *c) {
    Tensor *g = NULL;
    if (!val_is_null(v) && !val_is_none(v)) {
        if (!torch_is_tensor(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "assigned grad expected to be a Tensor or None but got grad of type %s",
                     vm_type_name(vm, v));
            return -1;
        }
        g = T(v);
    }
    if (ag_set_grad(T(s), g) < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}
static Value get_grad_fn(VM *vm, Value s, void *c) { return torch_wrap_node(vm, ag_grad_fn(T(s))); }
static Value get_is_leaf(VM *vm, Value s, void *c) { return val_bool(ag_is_leaf(T(s))); }
static Value get_data(VM *vm, Value s, void *c) { return torch_result(vm, tensor_alias(T(s))); }
static int set_data(VM *vm, Value s, Value v, void *c) {
    if (!torch_is_tensor(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "data must be a Tensor");
        return -1;
    }
    /* `x.data = y`: x keeps its identity and autograd state, its contents become y's */
    Tensor *t = T(s), *src = T(v);
    if (tensor_ndim(t) != tensor_ndim(src) || memcmp(tensor_shape(t), tensor_shape(src), sizeof(int64_t) * (size_t)tensor_ndim(t)) != 0 ||
        tensor_dtype(t) != tensor_dtype(src)) {
        /* another shape or dtype: t shares src's storage, as PyTorch's set_data does */
        if (tensor_set_data(t, src) < 0) {
            torch_raise_error(vm);
            return -1;
        }
        return 0;
    }
    Tensor *alias = tensor_alias(t);
    if (!alias) {
        torch_raise_error(vm);
        return -1;
    }
    int rc = tensor_copy_(alias, src);
    tensor_decref(alias);
    if (rc < 0) {
        torch_raise_error(vm);
        return -1;
    }
    return 0;
}
static Value get_T(VM *vm, Value s, void *c) {
    Tensor *t = T(s);
    int nd = tensor_ndim(t);
    if (nd <= 1) {
        tensor_incref(t);
        return torch_wrap(vm, t);
    }
    int64_t dims[TENSOR_MAX_DIMS];
    for (int i = 0; i < nd; i++) dims[i] = nd - 1 - i;
    return torch_result(vm, ag_permute(t, dims, nd));
}
/* x.mT / x.mH: the last two dims swapped (mH conjugates too, nothing for real dtypes) */
static Value get_mT(VM *vm, Value s, void *c) {
    Tensor *t = T(s);
    if (tensor_ndim(t) < 2)
        return vm_raise(vm, vm->e_RuntimeError, "tensor.%s is only supported on matrices or batches of matrices. Got %d-D tensor.",
                        (const char *)c, tensor_ndim(t));
    return torch_result(vm, ag_transpose(t, -2, -1));
}
static Value get_version(VM *vm, Value s, void *c) { return val_int(tensor_version(T(s))); }
static Value get_base(VM *vm, Value s, void *c) {
    Tensor *b = tensor_base(T(s));
    if (!b) return val_none();
    tensor_incref(b);
    return torch_wrap(vm, b);
}
static Value get_output_nr(VM *vm, Value s, void *c) { return val_int(ag_output_nr(T(s))); }
static Value get_false(VM *vm, Value s, void *c) { return val_bool(false); }
static Value get_true(VM *vm, Value s, void *c) { return val_bool(true); }
static Value get_retains_grad(VM *vm, Value s, void *c) { return val_bool(ag_retains_grad(T(s))); }

static Value tensor_repr_fn(ARGS) {
    Tensor *t = T(argv[0]);
    const char *extra[1];
    char buf[128];
    int n = 0;
    AgNode *g = ag_grad_fn(t);
    if (g) {
        /* PyTorch prints type(grad_fn).__name__: C++ nodes' names without their namespace
         * (torch::autograd::CopySlices -> CopySlices) */
        const char *name = ag_node_name(g), *colon = strrchr(name, ':');
        snprintf(buf, sizeof buf, "grad_fn=<%s>", colon ? colon + 1 : name);
        extra[n++] = buf;
    } else if (ag_requires_grad(t)) {
        extra[n++] = "requires_grad=True";
    }
    char *r = tensor_repr(t, extra, n);
    if (!r) return torch_raise_error(vm);
    StrObj *s = str_from_c(vm, r);
    free(r);
    return s ? val_obj(s) : val_null();
}

/* Tensor._make_subclass(cls, data, require_grad): the Parameter constructor's primitive — a new
 * object of type cls sharing data's storage (detached), with requires_grad set. */
static Value tensor_make_subclass(ARGS) {
    if (argc < 2 || argc > 3 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !torch_is_tensor(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "_make_subclass(cls, data, require_grad=False)");
    TypeObj *cls = AS_TYPE(argv[0]);
    if (!type_is_subtype(cls, torch_state(vm)->t_tensor))
        return vm_raise(vm, vm->e_TypeError, "_make_subclass: cls must be a subclass of Tensor");
    bool rg = false;
    if (argc == 3 && torch_bool_arg(vm, argv[2], &rg) < 0) return val_null();
    Tensor *d = tensor_alias(T(argv[1]));
    if (!d) return torch_raise_error(vm);
    if (rg && ag_set_requires_grad(d, true) < 0) {
        tensor_decref(d);
        return torch_raise_error(vm);
    }
    TensorObj *w = gc_alloc(vm, cls, cls->instance_size);
    if (!w) {
        tensor_decref(d);
        return val_null();
    }
    w->t = d;
    tensor_set_user_obj(d, w);
    return val_obj(w);
}

static Value tensor_new_fn(ARGS) {
    /* torch.Tensor(data) / Tensor(*sizes): float tensors */
    TypeObj *cls = AS_TYPE(argv[0]);
    Tensor *t;
    if (argc == 2 && !val_is_intlike(argv[1])) {
        t = torch_tensor_from_data(vm, argv[1], TENSOR_FLOAT32);
        if (!t) return val_null();
    } else {
        int64_t shape[TENSOR_MAX_DIMS];
        int nd;
        if (torch_shape_args(vm, argc - 1, argv + 1, shape, &nd, "Tensor") < 0) return val_null();
        t = tensor_empty(TENSOR_FLOAT32, nd, shape);
        if (!t) return torch_raise_error(vm);
        if (tensor_zero_(t) < 0) {
            tensor_decref(t);
            return torch_raise_error(vm);
        }
    }
    TensorObj *w = gc_alloc(vm, cls, cls->instance_size);
    if (!w) {
        tensor_decref(t);
        return val_null();
    }
    w->t = t;
    tensor_set_user_obj(t, w);
    return val_obj(w);
}

static Value tensor_hash(ARGS) {
    return val_int(hash_pointer(argv[0].as.o));
}

/* ---- storage-byte accounting for GC pacing -------------------------------------------------------- */

static VM *observed_vm;

static void storage_observer(void *ud, ptrdiff_t delta) {
    (void)ud;
    if (observed_vm) gc_storage_bytes(observed_vm, delta);
}

static void torch_state_trace(VM *vm, void *p) {
    TorchState *ts = p;
    gc_mark(vm, ts->t_tensor);
    gc_mark(vm, ts->t_node);
    gc_mark(vm, ts->t_dtype);
    gc_mark(vm, ts->t_size);
    gc_mark(vm, ts->t_device);
    gc_mark(vm, ts->t_handle);
    gc_mark(vm, ts->t_function_ctx);
    gc_mark(vm, ts->t_finfo);
    for (int i = 0; i < TORCH_N_RETURN_TYPES; i++) gc_mark(vm, ts->t_return_types[i]);
    for (int i = 0; i < TENSOR_DTYPE_COUNT; i++) gc_mark_value(vm, ts->dtypes[i]);
    gc_mark_value(vm, ts->cpu_device);
    gc_mark_value(vm, ts->strided);
    gc_mark(vm, ts->t_memory_format);
    for (int i = 0; i <= TENSOR_MF_CHANNELS_LAST_3D; i++) gc_mark_value(vm, ts->memory_formats[i]);
    gc_mark_value(vm, ts->function_base);
    gc_mark_value(vm, ts->grad_mode_type);
    gc_mark_value(vm, ts->handle_factory);
    gc_mark_value(vm, ts->mutation_observer);
    gc_mark(vm, ts->t_generator);
    gc_mark(vm, ts->t_fx_graph);
    gc_mark(vm, ts->t_fx_node);
    gc_mark(vm, ts->fx_node_class);
}

static void torch_state_free(VM *vm, void *p) {
    if (!val_is_null(((TorchState *)p)->mutation_observer)) tensor_set_mutation_observer(NULL, NULL);
    if (observed_vm == vm) {
        tensor_set_storage_observer(NULL, NULL);
        vm->storage_trim = NULL;
        observed_vm = NULL;
    }
    free(p);
}

int torch_tensor_type_init(VM *vm, Value cmod) {
    TorchState *ts = calloc(1, sizeof *ts);
    vm->ext[TORCH_EXT] = ts;
    vm->ext_trace[TORCH_EXT] = torch_state_trace;
    vm->ext_free[TORCH_EXT] = torch_state_free;
    observed_vm = vm;
    tensor_set_storage_observer(storage_observer, NULL);
    vm->storage_trim = tensor_storage_cache_trim;

    Value torch_name = vm_intern(vm, "torch");
    ts->t_tensor = type_new_builtin(vm, "Tensor", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(TensorObj),
                                    offsetof(TensorObj, dict), tensor_obj_trace, tensor_obj_finalize,
                                    TYPEF_BASETYPE | TYPEF_CLASS_TARGET);
    ts->t_tensor->alloc = tensor_obj_alloc;
    ts->t_node = type_new_builtin(vm, "Node", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(NodeObj),
                                  offsetof(NodeObj, dict), node_obj_trace, node_obj_finalize,
                                  TYPEF_ABSTRACT_NEW | TYPEF_BASETYPE);
    ts->t_dtype = type_new_builtin(vm, "dtype", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(DtypeObj), 0, NULL, NULL,
                                   TYPEF_ABSTRACT_NEW);
    ts->t_device = type_new_builtin(vm, "device", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(DeviceObj), 0, NULL,
                                    NULL, 0);
    ts->t_size = type_new_builtin(vm, "Size", vm->t_tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), 0, tuple_trace, NULL,
                                  TYPEF_BASETYPE);
    if (!ts->t_tensor || !ts->t_node || !ts->t_dtype || !ts->t_device || !ts->t_size) return -1;
    ts->t_tensor->module = ts->t_dtype->module = ts->t_device->module = ts->t_size->module = torch_name;
    ts->t_node->module = vm_intern(vm, "torch.autograd.graph");

    static const GetSetDef tensor_gs[] = {
        {"shape", get_shape, NULL}, {"dtype", get_dtype, NULL}, {"device", get_device, NULL}, {"layout", get_layout, NULL},
        {"ndim", get_ndim, NULL}, {"requires_grad", get_requires_grad, set_requires_grad},
        {"grad", get_grad, set_grad}, {"grad_fn", get_grad_fn, NULL}, {"is_leaf", get_is_leaf, NULL},
        {"data", get_data, set_data}, {"T", get_T, NULL}, {"mT", get_mT, NULL, "mT"}, {"mH", get_mT, NULL, "mH"}, {"_version", get_version, NULL},
        {"_base", get_base, NULL}, {"output_nr", get_output_nr, NULL}, {"is_cuda", get_false, NULL},
        {"is_sparse", get_false, NULL}, {"is_quantized", get_false, NULL}, {"is_meta", get_false, NULL},
        {"is_cpu", get_true, NULL}, {"is_mkldnn", get_false, NULL}, {"is_mps", get_false, NULL},
        {"is_xpu", get_false, NULL}, {"is_ipu", get_false, NULL}, {"is_vulkan", get_false, NULL},
        {"is_ort", get_false, NULL}, {"is_nested", get_false, NULL}, {"is_sparse_csr", get_false, NULL},
        {"retains_grad", get_retains_grad, NULL}, {NULL}};
    static const MethodDef tensor_m[] = {
        {"__new__", tensor_new_fn, NATIVEF_STATIC}, {"__repr__", tensor_repr_fn, NATIVEF_METHOD},
        {"__hash__", tensor_hash, NATIVEF_METHOD}, {"_make_subclass", tensor_make_subclass, NATIVEF_STATIC},
        {NULL}};
    static const MethodDef dtype_m[] = {{"__repr__", dtype_repr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef dtype_gs[] = {
        {"is_floating_point", dtype_get_is_floating, NULL}, {"is_complex", dtype_get_is_complex, NULL},
        {"is_signed", dtype_get_is_signed, NULL}, {"itemsize", dtype_get_itemsize, NULL}, {NULL}};
    static const MethodDef device_m[] = {
        {"__new__", device_new, NATIVEF_STATIC}, {"__repr__", device_repr, NATIVEF_METHOD},
        {"__str__", device_str, NATIVEF_METHOD}, {"__eq__", device_eq, NATIVEF_METHOD},
        {"__hash__", device_hash, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef device_gs[] = {{"type", device_get_type, NULL}, {"index", device_get_index, NULL}, {NULL}};
    static const MethodDef size_m[] = {
        {"__repr__", size_repr, NATIVEF_METHOD}, {"numel", size_numel, NATIVEF_METHOD},
        {"__add__", size_add, NATIVEF_METHOD}, {"__getitem__", size_getitem, NATIVEF_METHOD}, {NULL}};
    if (type_add_getsets(vm, ts->t_tensor, tensor_gs) < 0 || type_add_methods(vm, ts->t_tensor, tensor_m) < 0 ||
        type_add_methods(vm, ts->t_dtype, dtype_m) < 0 || type_add_getsets(vm, ts->t_dtype, dtype_gs) < 0 ||
        type_add_methods(vm, ts->t_device, device_m) < 0 || type_add_getsets(vm, ts->t_device, device_gs) < 0 ||
        type_add_methods(vm, ts->t_size, size_m) < 0)
        return -1;
    /* torch.Size(iterable) */
    ts->t_size->alloc = vm->t_tuple->alloc;

    Value all_dtypes[N_DTYPE_INFOS];
    for (int d = 0; d < N_DTYPE_INFOS; d++) {
        DtypeObj *o = gc_alloc(vm, ts->t_dtype, sizeof(DtypeObj));
        if (!o) return -1;
        o->info = &dtype_infos[d];
        all_dtypes[d] = val_obj(o);
        if (d < TENSOR_DTYPE_COUNT) ts->dtypes[d] = val_obj(o);   /* rooted by the state */
        if (module_set(vm, cmod, dtype_infos[d].name, val_obj(o)) < 0) return -1;   /* rooted by the module */
    }
    DeviceObj *dev = gc_alloc(vm, ts->t_device, sizeof(DeviceObj));
    if (!dev) return -1;
    ts->cpu_device = val_obj(dev);
    TypeObj *t_layout = type_new_builtin(vm, "layout", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(LayoutObj), 0, NULL,
                                         NULL, TYPEF_ABSTRACT_NEW);
    static const MethodDef layout_m[] = {{"__repr__", layout_repr, NATIVEF_METHOD}, {NULL}};
    if (!t_layout || module_set(vm, cmod, "layout", val_obj(t_layout)) < 0 || type_add_methods(vm, t_layout, layout_m) < 0)
        return -1;
    t_layout->module = torch_name;
    LayoutObj *strided = gc_alloc(vm, t_layout, sizeof(LayoutObj));
    if (!strided) return -1;
    ts->strided = val_obj(strided);
    ts->autocast_cpu_dtype = TENSOR_BFLOAT16;
    if (module_set(vm, cmod, "strided", ts->strided) < 0 || torch_memory_format_init(vm, cmod) < 0) return -1;
    /* PyTorch's aliases: torch.float is float32, torch.int is int32, torch.double float64, ... */
    for (int d = 0; d < N_DTYPE_INFOS; d++) {
        for (const char *a = dtype_infos[d].aliases; *a;) {
            size_t len = strcspn(a, " ");
            char alias[16];
            EM_ASSERT(len < sizeof alias, "dtype alias too long");
            memcpy(alias, a, len);
            alias[len] = 0;
            if (module_set(vm, cmod, alias, all_dtypes[d]) < 0) return -1;
            a += len;
            while (*a == ' ') a++;
        }
    }
    if (module_set(vm, cmod, "Tensor", val_obj(ts->t_tensor)) < 0 ||
        module_set(vm, cmod, "dtype", val_obj(ts->t_dtype)) < 0 ||
        module_set(vm, cmod, "device", val_obj(ts->t_device)) < 0 ||
        module_set(vm, cmod, "Size", val_obj(ts->t_size)) < 0)
        return -1;
    return 0;
}
