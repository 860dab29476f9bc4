/* src/torch/storage.c — storages at script level, the native half of torch.save / torch.load:
 * torch._C.StorageBase (the byte buffer under tensors, which torch.storage.UntypedStorage
 * subclasses in Python as PyTorch does: nbytes, data_ptr, _cdata, device, element access,
 * copy_/fill_, from_buffer, _from_file and _to_bytes to move bytes in and out of checkpoint
 * records,
 * slices sharing memory), and the Tensor methods that reach storages: _storage() /
 * untyped_storage() and set_(source, storage_offset, size, stride).  The Tensor methods whose
 * one definition is Python (storage(), __reduce_ex__, __setstate__, storage_type) call
 * torch/_tensor.py with self first, as tensor_methods.c does for torch/_composites.py. */
#include <string.h>

#include "src/tensor/dtype.h"
#include "src/torch/torch.h"
#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct StorageObj {
    Obj hdr;
    TensorStorage *s;    /* one reference; never NULL once made */
    DictObj *dict;
} StorageObj;

static TypeObj *storage_base_type(VM *vm) {
    Value cmod = vm_import_module(vm, "torch._C");
    if (val_is_null(cmod)) return NULL;
    Value t = vm_getattr_c(vm, cmod, "StorageBase");
    return val_is_null(t) ? NULL : (TypeObj *)t.as.o;
}

static bool is_storage(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return false;
    TypeObj *t = storage_base_type(vm);
    return t && (v.as.o->type == t || type_is_subtype(v.as.o->type, t));
}

#define S(v) (((StorageObj *)(v).as.o)->s)
#define SELF_STORAGE(name)                                                                                  \
    if (argc < 1 || !is_storage(vm, argv[0]))                                                               \
        return vm_raise(vm, vm->e_TypeError, "descriptor '" name "' requires a 'torch._C.StorageBase' object"); \
    TensorStorage *s = S(argv[0])

static void storage_trace(VM *vm, Obj *o) { gc_mark(vm, ((StorageObj *)o)->dict); }

static void storage_finalize(VM *vm, Obj *o) {
    (void)vm;
    StorageObj *w = (StorageObj *)o;
    tensor_storage_decref(w->s);
    w->s = NULL;
}

/* a new storage object of type t owning s (stolen) */
static Value storage_wrap(VM *vm, TypeObj *t, TensorStorage *s) {
    if (!s) return torch_raise_error(vm);
    StorageObj *w = gc_alloc(vm, t, t->instance_size);
    if (!w) {
        tensor_storage_decref(s);
        return val_null();
    }
    w->s = s;
    return val_obj(w);
}

/* a storage object of torch.UntypedStorage (the Python subclass) owning s (stolen) */
static Value untyped_wrap(VM *vm, TensorStorage *s) {
    Value mod = vm_import_module(vm, "torch.storage");
    Value cls = val_is_null(mod) ? mod : vm_getattr_c(vm, mod, "UntypedStorage");
    if (val_is_null(cls) || !vm_isinstance_type(vm, cls, vm->t_type)) {
        tensor_storage_decref(s);
        return val_is_null(cls) ? cls : vm_raise(vm, vm->e_TypeError, "torch.storage.UntypedStorage is not a type");
    }
    return storage_wrap(vm, (TypeObj *)cls.as.o, s);
}

static int check_cpu(VM *vm, Value device) {
    if (val_is_null(device) || val_is_none(device)) return 0;
    Value d = vm_str(vm, device);
    if (val_is_null(d)) return -1;
    const char *n = AS_STR(d)->data;
    if (strcmp(n, "cpu") == 0 || strncmp(n, "cpu:", 4) == 0) return 0;
    vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: device '%s' is not available", n);
    return -1;
}

/* StorageBase(size=0, *, device=None): a zero-filled storage of size bytes (PyTorch leaves the
 * bytes uninitialized; zeros keep Ember deterministic); StorageBase(sequence of ints): bytes. */
static Value st_new(ARGS) {
    static const char *const names[] = {"cls", "size", "device"};
    Value a[3];
    if (native_parse_args(vm, "UntypedStorage", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    if (check_cpu(vm, a[2]) < 0) return val_null();
    TypeObj *cls = (TypeObj *)argv[0].as.o;
    if (val_is_null(a[1])) return storage_wrap(vm, cls, tensor_storage_new(0));
    int64_t n;
    if (a[1].tag == VAL_INT || (a[1].tag == VAL_OBJ && vm_isinstance_type(vm, a[1], vm->t_int))) {
        if (torch_int_arg(vm, a[1], "size", &n) < 0) return val_null();
        if (n < 0) return vm_raise(vm, vm->e_RuntimeError, "Storage size must be non-negative, but got %lld", (long long)n);
        return storage_wrap(vm, cls, tensor_storage_new((size_t)n));
    }
    ListObj *l = vm_list_from_iterable(vm, a[1]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    TensorStorage *s = tensor_storage_new((size_t)l->len);
    uint8_t *p = s ? tensor_storage_data(s) : NULL;
    for (int64_t i = 0; s && i < l->len; i++) {
        int64_t b;
        if (torch_int_arg(vm, l->items[i], "data", &b) < 0) {
            tensor_storage_decref(s);
            vm_pop_root(vm);
            return val_null();
        }
        p[i] = (uint8_t)b;
    }
    vm_pop_root(vm);
    return storage_wrap(vm, cls, s);
}

static Value st_nbytes(ARGS) {
    SELF_STORAGE("nbytes");
    return val_int((int64_t)tensor_storage_nbytes(s));
}

static Value st_data_ptr(ARGS) {
    SELF_STORAGE("data_ptr");
    return val_int(tensor_storage_nbytes(s) ? (int64_t)(uintptr_t)tensor_storage_data(s) : 0);
}

static Value st_element_size(ARGS) {
    SELF_STORAGE("element_size");
    (void)s;
    return val_int(1);
}

static Value st_false(ARGS) {
    SELF_STORAGE("is_pinned");
    (void)s;
    return val_bool(false);
}

static Value st_is_shared(ARGS) {
    SELF_STORAGE("is_shared");
    return val_bool(tensor_storage_is_shared(s));
}

/* share_memory_(): the bytes move to memory that forked children share (hogwild training);
 * every tensor on this storage keeps viewing it.  Returns the storage. */
static Value st_share_memory_(ARGS) {
    SELF_STORAGE("share_memory_");
    if (native_check_args(vm, "share_memory_", argc, kw, 1, 1) < 0) return val_null();
    if (tensor_storage_share_memory(s) < 0) return torch_raise_error(vm);
    return argv[0];
}

/* _cdata: the identity of the C storage (two wrappers of one storage have the same one), which
 * torch.save keys its storage records on */
static Value st_cdata(VM *vm, Value self, void *c) { return val_int((int64_t)(uintptr_t)S(self)); }
static Value st_device(VM *vm, Value self, void *c) { return torch_state(vm)->cpu_device; }

static int wrap_index(VM *vm, TensorStorage *s, Value idx, int64_t *out) {
    int64_t i, n = (int64_t)tensor_storage_nbytes(s);
    if (torch_int_arg(vm, idx, "index", &i) < 0) return -1;
    if (i < -n || i >= n) {
        vm_raise(vm, vm->e_IndexError, "index %lld out of range for storage of size %lld", (long long)i, (long long)n);
        return -1;
    }
    *out = i < 0 ? i + n : i;
    return 0;
}

/* storage[i] -> int (a byte); storage[a:b] -> a storage sharing those bytes */
static Value st_getitem(ARGS) {
    SELF_STORAGE("__getitem__");
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "__getitem__ expected 1 argument");
    if (vm_isinstance_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, cnt, n = (int64_t)tensor_storage_nbytes(s);
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, n, &start, &stop, &step, &cnt) < 0) return val_null();
        if (step != 1) return vm_raise(vm, vm->e_RuntimeError, "Trying to slice with a step of %lld, but only a step of 1 is supported", (long long)step);
        if (stop < start) stop = start;
        return storage_wrap(vm, argv[0].as.o->type, tensor_storage_slice(s, (size_t)start, (size_t)(stop - start)));
    }
    int64_t i;
    if (wrap_index(vm, s, argv[1], &i) < 0) return val_null();
    return val_int(((uint8_t *)tensor_storage_data(s))[i]);
}

static Value st_setitem(ARGS) {
    SELF_STORAGE("__setitem__");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "__setitem__ expected 2 arguments");
    int64_t i, v;
    if (wrap_index(vm, s, argv[1], &i) < 0 || torch_int_arg(vm, argv[2], "value", &v) < 0) return val_null();
    ((uint8_t *)tensor_storage_data(s))[i] = (uint8_t)v;
    return val_none();
}

static Value st_fill_(ARGS) {
    SELF_STORAGE("fill_");
    int64_t v;
    if (argc != 2 || torch_int_arg(vm, argv[1], "value", &v) < 0)
        return argc != 2 ? vm_raise(vm, vm->e_TypeError, "fill_() takes exactly one argument") : val_null();
    memset(tensor_storage_data(s), (int)(uint8_t)v, tensor_storage_nbytes(s));
    return argv[0];
}

/* copy_(src, non_blocking=None): the same number of bytes, from another storage */
static Value st_copy_(ARGS) {
    static const char *const names[] = {"self", "source", "non_blocking"};
    Value a[3];
    if (native_parse_args(vm, "copy_", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    SELF_STORAGE("copy_");
    Value src = a[1];
    if (!is_storage(vm, src)) {
        Value inner = vm_isinstance_type(vm, src, vm->t_object) ? vm_getattr_c(vm, src, "_storage") : val_null();
        if (val_is_null(inner) || !is_storage(vm, inner)) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "copy_(): argument 'source' must be a storage, not %s", vm_type_name(vm, src));
        }
        src = inner;
    }
    if (tensor_storage_nbytes(S(src)) != tensor_storage_nbytes(s))
        return vm_raise(vm, vm->e_RuntimeError, "size mismatch: copying a storage of %zu bytes into one of %zu bytes",
                        tensor_storage_nbytes(S(src)), tensor_storage_nbytes(s));
    memmove(tensor_storage_data(s), tensor_storage_data(S(src)), tensor_storage_nbytes(s));
    return argv[0];
}

/* _to_bytes(): the storage's bytes as a bytes object (what a checkpoint record holds: the
 * little-endian element bytes of the whole storage) */
static Value st_to_bytes(ARGS) {
    SELF_STORAGE("_to_bytes");
    BytesObj *b = bytes_new(vm, tensor_storage_data(s), (int64_t)tensor_storage_nbytes(s));
    return b ? val_obj(b) : val_null();
}

/* from_buffer(buffer, byte_order="native", count=-1, offset=0, *, dtype=torch.uint8): a new
 * storage holding a copy of the buffer's bytes [offset, offset + count * itemsize) */
static Value st_from_buffer(ARGS) {
    static const char *const names[] = {"cls", "buffer", "byte_order", "count", "offset", "dtype"};
    Value a[6];
    if (native_parse_args(vm, "from_buffer", argc, argv, kw, 5, 2, names, 6, a) < 0) return val_null();
    TensorDtype dt = TENSOR_UINT8;
    if (!val_is_null(a[5]) && torch_dtype_of(vm, a[5], &dt) < 0) return val_null();
    if (dt == TENSOR_DTYPE_DEFAULT) dt = TENSOR_UINT8;
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        Value bo = vm_str(vm, a[2]);
        if (val_is_null(bo)) return bo;
        const char *o = AS_STR(bo)->data;
        if (strcmp(o, "native") && strcmp(o, "little"))
            return vm_raise(vm, vm->e_NotImplementedError, "from_buffer: byte_order '%s' (Ember hosts are little-endian)", o);
    }
    int64_t count = -1, offset = 0;
    if ((!val_is_null(a[3]) && torch_int_arg(vm, a[3], "count", &count) < 0) ||
        (!val_is_null(a[4]) && torch_int_arg(vm, a[4], "offset", &offset) < 0))
        return val_null();
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[1], "from_buffer", &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    int64_t el = (int64_t)tensor_dtype_size(dt);
    if (offset < 0 || offset > n) {
        vm_pop_root(vm);
        return vm_raise(vm, vm->e_ValueError, "offset must be non-negative and no greater than buffer length (%lld), but got %lld",
                        (long long)n, (long long)offset);
    }
    if (count < 0) {
        if ((n - offset) % el) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "buffer size (%lld) must be a multiple of element size (%lld)",
                            (long long)(n - offset), (long long)el);
        }
        count = (n - offset) / el;
    }
    if (offset + count * el > n) {
        vm_pop_root(vm);
        return vm_raise(vm, vm->e_ValueError, "buffer has only %lld elements after offset %lld, but specified a size of %lld",
                        (long long)((n - offset) / el), (long long)offset, (long long)count);
    }
    TensorStorage *s = tensor_storage_new((size_t)(count * el));
    if (s) memcpy(tensor_storage_data(s), p + offset, (size_t)(count * el));
    vm_pop_root(vm);
    return storage_wrap(vm, (TypeObj *)argv[0].as.o, s);
}

/* _from_file(f, nbytes) -> storage: nbytes read from the file object f straight into a new
 * storage, in chunks (a checkpoint record of hundreds of MB never exists as one bytes object:
 * one copy instead of two) */
static Value st_from_file(ARGS) {
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "_from_file(f, nbytes)");
    int64_t n;
    if (torch_int_arg(vm, argv[2], "nbytes", &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "nbytes must be non-negative");
    TensorStorage *s = tensor_storage_new((size_t)n);
    if (!s) return torch_raise_error(vm);
    Value sv = storage_wrap(vm, (TypeObj *)argv[0].as.o, s);
    if (val_is_null(sv)) return sv;
    vm_push_root(vm, sv);
    uint8_t *dst = tensor_storage_data(s);
    for (int64_t done = 0; done < n;) {
        int64_t want = n - done < (4 << 20) ? n - done : (4 << 20);
        Value chunk = vm_call_method(vm, argv[1], "read", 1, (Value[]){val_int(want)});
        Value holder;
        const uint8_t *p;
        int64_t got;
        if (val_is_null(chunk)) goto fail;
        vm_push_root(vm, chunk);
        if (buffer_get(vm, chunk, "read", &holder, &p, &got) < 0) {
            vm_pop_root(vm);
            goto fail;
        }
        if (got == 0 || got > want) {
            vm_pop_root(vm);
            vm_raise(vm, vm->e_RuntimeError, "unexpected EOF, expected %lld more bytes. The file might be corrupted.",
                     (long long)(n - done));
            goto fail;
        }
        memcpy(dst + done, p, (size_t)got);
        done += got;
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return sv;
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value st_resize_(ARGS) {
    SELF_STORAGE("resize_");
    (void)s;
    return vm_raise(vm, vm->e_NotImplementedError, "UntypedStorage.resize_: Ember's storages have a fixed size");
}

/* ---- Tensor methods ---------------------------------------------------------------------------- */

#define SELF_TENSOR(name)                                                                         \
    if (argc < 1 || !torch_is_tensor(vm, argv[0]))                                                \
        return vm_raise(vm, vm->e_TypeError, "descriptor '" name "' requires a 'torch._C._TensorBase' object")

/* Tensor._storage() / untyped_storage(): the tensor's whole storage as torch.UntypedStorage */
static Value t_untyped_storage(ARGS) {
    SELF_TENSOR("untyped_storage");
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    TensorStorage *s = tensor_storage_of(torch_tensor_of(argv[0]));
    tensor_storage_incref(s);
    return untyped_wrap(vm, s);
}

static const char *ctype_name(TensorDtype d) { return tensor__dt(d)->ctype; }

/* set_(source=None, storage_offset=0, size=None, stride=None) with source a storage
 * (UntypedStorage, or a TypedStorage of the tensor's dtype), a tensor, or nothing (empty) */
static Value t_set_(ARGS) {
    static const char *const names[] = {"self", "source", "storage_offset", "size", "stride"};
    Value a[5];
    if (native_parse_args(vm, "set_", argc, argv, kw, 5, 1, names, 5, a) < 0) return val_null();
    SELF_TENSOR("set_");
    Tensor *t = torch_tensor_of(argv[0]);
    if (ag_is_grad_enabled() && ag_requires_grad(t) && ag_is_leaf(t))
        return vm_raise(vm, vm->e_RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.");
    TensorDtype dt = tensor_dtype(t);
    size_t el = tensor_dtype_size(dt);
    Value src = a[1];
    if (val_is_null(src)) {
        TensorStorage *e = tensor_storage_new(0);
        if (!e) return torch_raise_error(vm);
        int rc = tensor_set_storage(t, e, 0, 1, (int64_t[]){0}, NULL);
        tensor_storage_decref(e);
        return rc < 0 ? torch_raise_error(vm) : argv[0];
    }
    if (torch_is_tensor(vm, src)) {
        if (!val_is_null(a[2]))
            return vm_raise(vm, vm->e_TypeError, "set_(): set_(Tensor source) takes no other arguments");
        Tensor *o = torch_tensor_of(src);
        if (tensor_dtype(o) != dt)
            return vm_raise(vm, vm->e_RuntimeError, "Expected object of scalar type %s but got scalar type %s for argument 'source'",
                            tensor_dtype_cname(dt), tensor_dtype_cname(tensor_dtype(o)));
        if (tensor_set_storage(t, tensor_storage_of(o), tensor_storage_offset(o), tensor_ndim(o), tensor_shape(o),
                               tensor_strides(o)) < 0)
            return torch_raise_error(vm);
        return argv[0];
    }
    if (!is_storage(vm, src)) {
        /* a TypedStorage: its untyped storage, when its dtype is the tensor's */
        Value inner = val_null(), sdt = val_null();
        if (vm_isinstance_type(vm, src, vm->t_object)) {
            inner = vm_getattr_c(vm, src, "_storage");
            if (!val_is_null(inner)) sdt = vm_getattr_c(vm, src, "dtype");
        }
        if (val_is_null(inner) || val_is_null(sdt) || !is_storage(vm, inner)) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "set_() received an invalid combination of arguments - got (%s)", vm_type_name(vm, src));
        }
        TensorDtype sd;
        if (torch_dtype_of(vm, sdt, &sd) < 0) return val_null();
        if (sd != dt)
            return vm_raise(vm, vm->e_RuntimeError,
                            "Expected a Storage of type %s or an UntypedStorage, but got type %s for argument 1 'storage'",
                            ctype_name(dt), tensor_dtype_cname(sd));
        src = inner;
    }
    TensorStorage *s = S(src);
    int64_t off = 0, shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int ndim = 1, nst = 0;
    if (!val_is_null(a[2]) && torch_int_arg(vm, a[2], "storage_offset", &off) < 0) return val_null();
    if (val_is_null(a[3]) || val_is_none(a[3])) {
        if (!val_is_null(a[2]))
            return vm_raise(vm, vm->e_TypeError, "set_(): size is required when storage_offset is given");
        shape[0] = (int64_t)(tensor_storage_nbytes(s) / el);
    } else if (torch_shape_value(vm, a[3], shape, &ndim, "set_") < 0) {
        return val_null();
    }
    bool has_stride = !val_is_null(a[4]) && !val_is_none(a[4]);
    if (has_stride) {
        if (torch_shape_value(vm, a[4], strides, &nst, "set_") < 0) return val_null();
        if (nst != ndim)
            return vm_raise(vm, vm->e_RuntimeError, "mismatch in length of strides and shape");
    }
    if (tensor_set_storage(t, s, off, ndim, shape, has_stride ? strides : NULL) < 0) return torch_raise_error(vm);
    return argv[0];
}

/* The Tensor methods defined once in Python (torch/_tensor.py), called with self first. */
static Value t_python_method(ARGS) {
    SELF_TENSOR("storage");
    Value mod = vm_import_module(vm, "torch._tensor");
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, (const char *)fn->data);
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

/* Tensor.is_pinned(): CPU tensors are never in pinned (page-locked) memory without an accelerator */
static Value t_not_pinned(ARGS) {
    SELF_TENSOR("is_pinned");
    return val_bool(false);
}

int torch_storage_init(VM *vm, Value cmod) {
    TypeObj *t = type_new_builtin(vm, "StorageBase", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(StorageObj),
                                  offsetof(StorageObj, dict), storage_trace, storage_finalize, TYPEF_BASETYPE);
    if (!t) return -1;
    vm_push_root(vm, val_obj(t));   /* unreachable until module_set below; the methods allocate */
    t->module = vm_intern(vm, "torch._C");
    static const MethodDef m[] = {
        {"__new__", st_new, NATIVEF_STATIC}, {"nbytes", st_nbytes, NATIVEF_METHOD | ARITY_NOARGS},
        {"__len__", st_nbytes, NATIVEF_METHOD | ARITY_NOARGS}, {"data_ptr", st_data_ptr, NATIVEF_METHOD | ARITY_NOARGS},
        {"element_size", st_element_size, NATIVEF_METHOD | ARITY_NOARGS},
        {"is_shared", st_is_shared, NATIVEF_METHOD | ARITY_NOARGS},
        {"share_memory_", st_share_memory_, NATIVEF_METHOD}, {"is_pinned", st_false, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getitem__", st_getitem, NATIVEF_METHOD}, {"__setitem__", st_setitem, NATIVEF_METHOD},
        {"fill_", st_fill_, NATIVEF_METHOD}, {"copy_", st_copy_, NATIVEF_METHOD},
        {"_to_bytes", st_to_bytes, NATIVEF_METHOD | ARITY_NOARGS},
        {"from_buffer", st_from_buffer, NATIVEF_CLASSMETHOD}, {"_from_file", st_from_file, NATIVEF_CLASSMETHOD}, {"resize_", st_resize_, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef gs[] = {{"_cdata", st_cdata, NULL}, {"device", st_device, NULL}, {NULL}};
    int rc = type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0 ||
             module_set(vm, cmod, "StorageBase", val_obj(t)) < 0 ? -1 : 0;
    vm_pop_root(vm);
    if (rc < 0) return -1;
    static const MethodDef tm[] = {
        {"_storage", t_untyped_storage, NATIVEF_METHOD}, {"untyped_storage", t_untyped_storage, NATIVEF_METHOD},
        {"set_", t_set_, NATIVEF_METHOD},
        {"storage", t_python_method, NATIVEF_METHOD, (void *)"storage"},
        {"storage_type", t_python_method, NATIVEF_METHOD, (void *)"storage_type"},
        {"__reduce_ex__", t_python_method, NATIVEF_METHOD, (void *)"_reduce_ex"},
        {"__setstate__", t_python_method, NATIVEF_METHOD, (void *)"_setstate"},
        {"is_shared", t_python_method, NATIVEF_METHOD, (void *)"is_shared"},
        {"share_memory_", t_python_method, NATIVEF_METHOD, (void *)"share_memory_"},
        {"is_pinned", t_not_pinned, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    return type_add_methods(vm, torch_state(vm)->t_tensor, tm);
}
