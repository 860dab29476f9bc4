/* src/ffi/ctypes.h — the internals of Ember's ctypes (the `_ctypes` native module under the
 * `ctypes` library package): C data objects, their type information, libffi calls and
 * callbacks.
 *
 * Design note.  Every ctypes class (c_int, a Structure subclass, c_float * 4, POINTER(T), a
 * CFUNCTYPE prototype) is a type object whose metaclass is one of six native metaclasses
 * (PyCSimpleType, PyCStructType, PyCUnionType, PyCArrayType, PyCPointerType, PyCFuncPtrType,
 * as in CPython).  The metaclass gives the class its `from_param`, `from_address`, `* n`
 * operator, and the `_fields_` setter; it also traces the class's StgInfo, the per-class C
 * type description hung on TypeObj.native_data:
 *
 *   class POINT(Structure):                     StgInfo{kind CK_STRUCT, size 8, align 4,
 *       _fields_ = [("x", c_int), ("y", c_int)]         fields (CField x @0, CField y @4),
 *                                                       ffi = struct {sint32, sint32}}
 *
 * StgInfo is itself a GC object (never visible to scripts); the metaclass's trace marks it, so
 * it lives exactly as long as a class uses it.  It is built by the base classes'
 * __init_subclass__ when a class statement (or T * n, POINTER(T), CFUNCTYPE) creates a class.
 *
 * An instance is a CDataObj: a pointer to the C memory plus who owns it.  Fresh instances own
 * their memory (inline for values up to 16 bytes, else malloc'd and counted by the GC's
 * pacing); views (a struct field of struct type, an array item, pointer.contents) point into
 * another object's memory and keep that object alive through `base`.  Objects whose memory
 * holds pointers to script objects (a c_char_p field set to bytes, a pointer set to an
 * instance, a callback stored in a struct) keep those objects alive in the *root* owner's
 * `objects` dict, keyed by the address written, as CPython's _objects does.
 *
 * Function objects (CFuncObj) cache one prepared libffi CIF for their argtypes/restype (or,
 * without argtypes, for the last argument signature seen): a call converts arguments straight
 * into an on-stack value array, calls ffi_call, and converts the result.
 *
 * Not supported (a clear error, never a wrong value): bit fields, _anonymous_, big-endian
 * structures, py_object, POINTER("name") with SetPointerType, PYFUNCTYPE/PyDLL, from_buffer
 * of anything but a ctypes instance (Ember has no bytearray), unsigned 64-bit values above
 * 2**63-1 read back into Ember's 64-bit ints (OverflowError).  Classes get their layout from
 * the base classes' __init_subclass__, so a Structure subclass that defines its own
 * __init_subclass__ must call super().__init_subclass__() for its subclasses to work.
 */
#ifndef EMBER_FFI_CTYPES_H
#define EMBER_FFI_CTYPES_H

#include <ffi.h>

#include "vm/vm.h"

enum { FFI_EXT = VM_EXT_FFI };   /* vm->ext slot (vm/vm.h VmExtSlot) */

typedef enum CKind { CK_SIMPLE = 1, CK_STRUCT, CK_UNION, CK_ARRAY, CK_POINTER, CK_FUNCPTR } CKind;

enum {
    STGF_FINAL = 1 << 0,       /* _fields_ can no longer change (instances exist, or set) */
    STGF_COMPLETE = 1 << 1,    /* struct/union: _fields_ processed */
};

/* Function flags, values as CPython's _FUNCFLAG_*. */
enum { FUNCFLAG_CDECL = 1, FUNCFLAG_PYTHONAPI = 4, FUNCFLAG_USE_ERRNO = 8, FUNCFLAG_USE_LASTERROR = 16 };

typedef struct StgInfo {
    Obj hdr;
    CKind kind;
    char code;                 /* CK_SIMPLE: the _type_ letter */
    uint32_t flags;            /* STGF_* */
    int64_t size, align;
    int64_t length;            /* CK_ARRAY */
    int64_t pack;              /* struct/union _pack_ (0: natural) */
    Value proto;               /* array/pointer: the item type */
    TupleObj *fields;          /* struct/union: CFieldObj for every field, bases' first */
    Value pointer_type;        /* POINTER(this), cached */
    DictObj *array_types;      /* {n: this * n}, cached */
    Value argtypes;            /* CK_FUNCPTR: tuple of types, or VAL_NULL */
    Value restype;             /* CK_FUNCPTR: type, callable or None; VAL_NULL: not given */
    int32_t func_flags;        /* CK_FUNCPTR */
    ffi_type *ffi;             /* how libffi passes a value of this type */
    ffi_type ffi_owned;        /* struct/union/array description */
    ffi_type **ffi_elements;   /* owned, NULL-terminated */
} StgInfo;

typedef struct CDataObj {
    Obj hdr;
    DictObj *dict;
    char *ptr;                 /* the C memory */
    int64_t size;
    Value base;                /* object whose memory this one views (kept alive), or VAL_NULL */
    Value objects;             /* keep-alive dict {address: object}, or VAL_NULL */
    bool owns;                 /* ptr is this object's own memory */
    union {
        char buf[16];
        long double ld;
        void *p;
    } inl;                     /* owned values up to 16 bytes live here (ptr == inl.buf) */
} CDataObj;

typedef struct FfiCall FfiCall;      /* a prepared call signature (cfunc.c) */
typedef struct FfiThunk FfiThunk;    /* a callback's closure (callback.c) */

typedef struct CFuncObj {
    CDataObj cd;               /* cd.ptr -> the function address (stored in cd.inl) */
    VM *vm;
    Value argtypes;            /* set on the instance (VAL_NULL: the class's _argtypes_) */
    Value restype;             /* set on the instance (VAL_NULL: the class's _restype_) */
    Value errcheck;            /* VAL_NULL: none */
    Value callable;            /* callbacks: the script function */
    Value dll;                 /* the CDLL it came from (kept alive), or VAL_NULL */
    FfiCall *call;             /* cached CIF, or NULL */
    FfiThunk *thunk;           /* callbacks: the libffi closure, or NULL */
    /* Fast conversions for the argtypes tuple plan_for (compared by identity, valid while
     * vm->class_epoch == plan_epoch): plan[i] is the simple code of a plain argtype whose
     * from_param is the built-in one, converting Python numbers without any lookup, or 0. */
    Obj *plan_for;
    uint64_t plan_epoch;
    char *plan;
} CFuncObj;

/* A field of a Structure/Union: a data descriptor (a property subclass, so the VM's attribute
 * machinery binds it), `POINT.x` prints as CPython's <Field type=c_int, ofs=0, size=4>. */
typedef struct CFieldObj {
    PropertyObj prop;
    Value type;
    StrObj *name;
    int64_t offset, size;
} CFieldObj;

/* byref() results and converted parameters (CPython's CArgObject). */
typedef struct CArgObj {
    Obj hdr;
    char tag;                  /* 'P': a pointer; else the simple code of the value */
    union {
        int64_t i;
        double d;
        float f;
        void *p;
        long double g;
    } v;
    Value obj;                 /* kept alive while the argument lives */
} CArgObj;

typedef struct FfiState {
    TypeObj *meta_simple, *meta_struct, *meta_union, *meta_array, *meta_pointer, *meta_funcptr;
    TypeObj *t_cdata, *t_simple, *t_struct, *t_union, *t_array, *t_pointer, *t_funcptr;
    TypeObj *t_stginfo, *t_cfield, *t_carg;
    TypeObj *e_argument_error;
    Value module;              /* _ctypes */
    StrObj *s_fields, *s_type, *s_length, *s_pack, *s_anonymous, *s_argtypes_, *s_restype_,
        *s_flags_, *s_as_parameter, *s_from_param, *s_name;
} FfiState;

static inline FfiState *ffi_state(VM *vm) { return (FfiState *)vm->ext[FFI_EXT]; }

/* ---- type information (cdata.c) ---- */
static inline bool ct_is_meta(FfiState *fs, TypeObj *m) {
    return m == fs->meta_simple || m == fs->meta_struct || m == fs->meta_union || m == fs->meta_array ||
           m == fs->meta_pointer || m == fs->meta_funcptr;
}
/* The StgInfo of a ctypes class (NULL if v is not one, or is abstract/incomplete). */
static inline StgInfo *stg_of_type(VM *vm, Value v) {
    if (v.tag != VAL_OBJ || !ct_is_meta(ffi_state(vm), v.as.o->type)) return NULL;
    return (StgInfo *)((TypeObj *)v.as.o)->native_data;
}
static inline StgInfo *stg_of_obj(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return NULL;
    TypeObj *t = v.as.o->type;
    if (!ct_is_meta(ffi_state(vm), t->hdr.type)) return NULL;
    return (StgInfo *)t->native_data;
}
static inline bool ct_is_cdata(VM *vm, Value v) { return stg_of_obj(vm, v) != NULL; }
static inline CDataObj *CD(Value v) { return (CDataObj *)v.as.o; }

StgInfo *stg_new(VM *vm, CKind kind);
/* The StgInfo of a type usable as a field/element/argument; TypeError otherwise. */
StgInfo *stg_require(VM *vm, Value type, const char *what);

/* ---- instances (cdata.c) ---- */
/* A fresh instance of ctypes class t owning zeroed memory. */
CDataObj *cdata_new(VM *vm, TypeObj *t);
/* An instance of t viewing memory at addr, keeping base alive (VAL_NULL: nothing). */
CDataObj *cdata_at(VM *vm, TypeObj *t, void *addr, Value base);
/* Read a value of ctypes type `type` at addr: a Python value for the simple types (c_int ->
 * int; subclasses of them give instances), else an instance viewing the memory. */
Value cdata_get(VM *vm, Value type, char *addr, Value base);
/* Store v into memory of ctypes type `type` at addr, owned by `owner` (keep-alives go to the
 * root of owner).  0 / -1 with CPython's TypeError/ValueError. */
int cdata_set(VM *vm, Value type, char *addr, Value v, CDataObj *owner) EM_MUST_CHECK;
/* Keep `v` alive as long as `owner`'s root object lives (the memory at addr refers to it). */
int cdata_keep(VM *vm, CDataObj *owner, const void *addr, Value v) EM_MUST_CHECK;

/* Simple-type conversions by _type_ code.  keep receives an object the stored pointer refers
 * to (bytes for c_char_p), or VAL_NULL. */
Value simple_get(VM *vm, char code, const void *p);
int simple_set(VM *vm, char code, void *p, Value v, Value *keep) EM_MUST_CHECK;
int64_t simple_size(char code);
ffi_type *simple_ffi(char code);

/* The class name of a value for messages ("c_int", "int"). */
const char *ct_type_name(VM *vm, Value v);

/* ---- parts ---- */
int ct_cdata_init(VM *vm, Value mod) EM_MUST_CHECK;      /* cdata.c: metaclasses, bases, simple */
int ct_struct_init(VM *vm, Value mod) EM_MUST_CHECK;     /* cstruct.c */
int ct_array_init(VM *vm, Value mod) EM_MUST_CHECK;      /* carray.c: arrays, pointers */
int ct_func_init(VM *vm, Value mod) EM_MUST_CHECK;       /* cfunc.c: function pointers, dlopen */

/* cstruct.c */
int struct_set_fields(VM *vm, TypeObj *cls, Value fields, bool is_union) EM_MUST_CHECK;
int struct_inherit(VM *vm, TypeObj *cls, bool is_union) EM_MUST_CHECK;
/* carray.c */
Value array_type_new(VM *vm, Value itemtype, int64_t length);
Value pointer_type_of(VM *vm, Value itemtype);   /* POINTER(T) */
int array_stg_init(VM *vm, TypeObj *cls) EM_MUST_CHECK;
int pointer_stg_init(VM *vm, TypeObj *cls) EM_MUST_CHECK;
/* Pointer instance of pointer class ptype pointing at target's memory (keeps target). */
Value pointer_to(VM *vm, TypeObj *ptype, CDataObj *target);
/* cfunc.c */
int funcptr_stg_init(VM *vm, TypeObj *cls) EM_MUST_CHECK;
void cfunc_free_call(FfiCall *c);
/* callback.c */
int thunk_create(VM *vm, CFuncObj *f, StgInfo *proto) EM_MUST_CHECK;
void thunk_free(FfiThunk *t);
/* Convert an argument the way an argtype's from_param (or the default conversion) does.
 * Used by callbacks' results too. */
Value ct_argument_error(VM *vm, int index);

#endif
