/* vm/object.h — the heap object model: the Obj header, type objects, and the C layouts of the
 * built-in object kinds.
 *
 * Design note.  Every heap object starts with an Obj header: its type, the link the GC chains
 * dying objects with and the mark bit.  A TypeObj says how its instances are laid out in C
 * (instance_size, where the optional attribute dict lives, how to trace and finalize them) and
 * carries the Python-level class: name, bases, C3 MRO and the class dict.  Built-in and
 * user-defined classes are both TypeObjs; the difference is only who filled the dict.
 *
 * Special methods (__add__, __getitem__, ...) live in the type dicts — as native methods for
 * built-in types, as functions for script classes — and the VM finds them by MRO lookup through
 * a per-type cache (type_special()).  Hot built-in cases (int + int, list[i], ...) are handled
 * before that lookup by fast paths in the interpreter and vm/protocol.c.
 *
 *   class P(list): pass     ->  TypeObj{name "P", base list, layout OBJ_LAYOUT_LIST,
 *                                       dict_offset = offsetof(ListObj, dict)}
 *   P() instance            ->  ListObj whose hdr.type is P and whose dict holds attributes
 */
#ifndef EMBER_VM_OBJECT_H
#define EMBER_VM_OBJECT_H

#include "vm/value.h"

typedef struct VM VM;
typedef struct TypeObj TypeObj;
typedef struct StrObj StrObj;
typedef struct TupleObj TupleObj;
typedef struct DictObj DictObj;
typedef struct CodeObj CodeObj;
typedef struct Frame Frame;

struct Obj {
    TypeObj *type;
    Obj *gc_next;     /* the collector's chain of dying objects (vm/gc.c sweep, vm_free); the
                       * heap itself is the table vm->objects */
    uint8_t marked;
    uint8_t flags;    /* OBJF_* */
    uint16_t pool_class;   /* vm/objpool.c: size class + 1 of a pooled object, 0 = malloc'd */
    uint32_t size;       /* bytes of the object itself (for the GC's byte count) */
};

enum {
    OBJF_INTERNED = 1 << 0,   /* str: lives in the intern table */
    OBJF_HASHED = 1 << 1,     /* object has been hashed by identity (id-hash cached) */
    OBJF_FINALIZED = 1 << 2,  /* its class's __del__ has run (once per object, as PEP 442) */
    OBJF_PERMANENT = 1 << 3,  /* never traced, swept or freed before vm_free (vm/gc.c) */
};

/* The C layout of a type's instances.  Subclasses inherit their base's layout; two bases
 * with different non-instance layouts cannot be combined ("instance lay-out conflict"). */
typedef enum ObjLayout {
    OBJ_LAYOUT_INSTANCE, OBJ_LAYOUT_TYPE, OBJ_LAYOUT_STR, OBJ_LAYOUT_BYTES, OBJ_LAYOUT_TUPLE,
    OBJ_LAYOUT_LIST, OBJ_LAYOUT_DICT, OBJ_LAYOUT_SET, OBJ_LAYOUT_RANGE, OBJ_LAYOUT_SLICE,
    OBJ_LAYOUT_FUNCTION, OBJ_LAYOUT_CODE, OBJ_LAYOUT_CELL, OBJ_LAYOUT_MODULE,
    OBJ_LAYOUT_BOUND_METHOD, OBJ_LAYOUT_NATIVE, OBJ_LAYOUT_PROPERTY, OBJ_LAYOUT_STATICMETHOD,
    OBJ_LAYOUT_CLASSMETHOD, OBJ_LAYOUT_SUPER, OBJ_LAYOUT_EXCEPTION, OBJ_LAYOUT_TRACEBACK,
    OBJ_LAYOUT_GENERATOR, OBJ_LAYOUT_ITER, OBJ_LAYOUT_WEAKREF, OBJ_LAYOUT_BUILTIN_SCALAR,
    OBJ_LAYOUT_GETSET,
    OBJ_LAYOUT_INT,       /* IntObj (vm/bigint.h): big ints and int-subclass instances */
    OBJ_LAYOUT_FLOAT,     /* FloatObj (vm/num.h): float-subclass instances */
    OBJ_LAYOUT_COMPLEX,   /* ComplexObj (vm/complex.c) */
    OBJ_LAYOUT_BYTEARRAY, /* ByteArrayObj (vm/bytes_ops.h) */
    OBJ_LAYOUT_EXTENSION, /* defined outside vm/ (tensors, nodes, handles, ...) */
} ObjLayout;

/* Special method names the VM looks up on types, cached per type.  X(enum, "name"). */
#define SPECIAL_METHODS(X) \
    X(INIT, "__init__") X(NEW, "__new__") X(CALL, "__call__") X(REPR, "__repr__") \
    X(STR, "__str__") X(HASH, "__hash__") X(EQ, "__eq__") X(NE, "__ne__") X(LT, "__lt__") \
    X(LE, "__le__") X(GT, "__gt__") X(GE, "__ge__") X(BOOL, "__bool__") X(LEN, "__len__") \
    X(GETITEM, "__getitem__") X(SETITEM, "__setitem__") X(DELITEM, "__delitem__") \
    X(CONTAINS, "__contains__") X(ITER, "__iter__") X(NEXT, "__next__") \
    X(GETATTR, "__getattr__") X(GETATTRIBUTE, "__getattribute__") X(SETATTR, "__setattr__") \
    X(DELATTR, "__delattr__") X(ENTER, "__enter__") X(EXIT, "__exit__") X(GET, "__get__") \
    X(SET, "__set__") X(DELETE, "__delete__") X(NEG, "__neg__") X(POS, "__pos__") \
    X(INVERT, "__invert__") X(ABS, "__abs__") X(INDEX, "__index__") X(INT, "__int__") \
    X(FLOAT, "__float__") X(FORMAT, "__format__") X(REVERSED, "__reversed__") \
    X(INIT_SUBCLASS, "__init_subclass__") X(SET_NAME, "__set_name__") X(ROUND, "__round__") \
    X(MISSING, "__missing__") X(CLASS_GETITEM, "__class_getitem__") \
    X(INSTANCECHECK, "__instancecheck__") X(SUBCLASSCHECK, "__subclasscheck__") X(_CLASS, "__class__") \
    X(PREPARE, "__prepare__") X(DEL, "__del__")

typedef enum SpecialMethod {
#define X(e, s) SP_##e,
    SPECIAL_METHODS(X)
#undef X
    SP__COUNT
} SpecialMethod;

typedef void (*TraceFn)(VM *vm, Obj *o);       /* mark every Value/Obj the object holds */
typedef void (*FinalizeFn)(VM *vm, Obj *o);    /* release non-GC resources (C memory, tensors) */

enum {
    TYPEF_HEAPTYPE = 1 << 0,     /* created by a class statement */
    TYPEF_BASETYPE = 1 << 1,     /* may be subclassed */
    TYPEF_ABSTRACT_NEW = 1 << 2, /* cannot be instantiated directly */
    TYPEF_EXCEPTION = 1 << 3,    /* BaseException or a subclass */
    TYPEF_LIBRARY = 1 << 4,      /* defined by Ember's own library code */
    TYPEF_WEAKREFS = 1 << 5,     /* heap type whose instances take weak references (__weakref__) */
    TYPEF_IS_ABSTRACT = 1 << 6,  /* __abstractmethods__ is non-empty: object.__new__ refuses it */
    TYPEF_CLASS_TARGET = 1 << 7, /* a native type standing for a Python class of a library (torch.Tensor is
                                    Python in PyTorch): its heap subclasses' instances may take it as
                                    __class__ (UninitializedBuffer.materialize) */
};

struct TypeObj {
    Obj hdr;
    StrObj *name;
    StrObj *qualname;
    Value module;             /* __module__ (str) */
    TypeObj *base;            /* the solid base (first base, or object) */
    TupleObj *bases;
    TupleObj *mro;
    DictObj *dict;
    ObjLayout layout;
    uint32_t flags;
    size_t instance_size;
    size_t dict_offset;       /* offset of a `DictObj *` attribute dict in instances, or 0 */
    TraceFn trace;
    FinalizeFn finalize;
    /* Native allocation of a bare instance (used by object.__new__ for this layout). */
    Value (*alloc)(VM *vm, TypeObj *t);
    /* Per-type special-method cache, valid while special_epoch == vm->class_epoch. */
    uint64_t special_epoch;
    Value special[SP__COUNT];   /* VAL_NULL: absent */
    void *native_data;          /* extension types may hang C data here */
    TupleObj *slots;            /* this class's own __slots__ names (str, mangled), or NULL */
    int32_t nslotvals;          /* Value fields of __slots__ in instances, the bases' included */
    int32_t slots_offset;       /* byte offset of the first of them */
};

struct StrObj {
    Obj hdr;
    int64_t len;      /* bytes, excluding the terminating NUL */
    int64_t ncp;      /* code points */
    int64_t hash;     /* -1 until computed */
    DictObj *dict;    /* attributes of str-subclass instances (NULL for str) */
    char data[];      /* UTF-8, NUL-terminated */
};

typedef struct BytesObj {
    Obj hdr;
    int64_t len;
    int64_t hash;
    DictObj *dict;    /* attributes of bytes-subclass instances */
    uint8_t data[];
} BytesObj;

struct TupleObj {
    Obj hdr;
    int64_t len;
    int64_t hash;       /* -1 until computed (tuples of hashables only) */
    DictObj *dict;      /* attributes of subclass instances (namedtuple has none) */
    Value items[];
};

typedef struct ListObj {
    Obj hdr;
    Value *items;
    int64_t len, cap;
    DictObj *dict;
} ListObj;

typedef struct DictEntry {
    Value key;        /* VAL_NULL: deleted slot */
    Value value;
    int64_t hash;
} DictEntry;

struct DictObj {
    Obj hdr;
    DictEntry *entries;   /* insertion order, with holes for deleted keys */
    int64_t nentries;     /* slots used in entries (incl. holes) */
    int64_t cap;          /* capacity of entries */
    int64_t used;         /* live keys */
    int32_t *index;       /* open-addressing index into entries; NULL while small */
    int64_t index_mask;
    uint64_t version;     /* bumped on every mutation (caches, iteration checks) */
    uint64_t keys_version;/* the version of the last insertion of a new key (0: none yet): a dict
                           * with a given keys_version lacks every key its state of that version
                           * lacked (LOAD_METHOD's shadowing check) */
    DictObj *dict;        /* attributes of subclass instances */
    Value default_factory;/* defaultdict only (VAL_NULL otherwise) */
};

typedef struct SetEntry {
    Value key;            /* VAL_NULL: empty; tag VAL_NONE+dummy flag: see set.c */
    int64_t hash;
    bool dummy;
} SetEntry;

typedef struct SetObj {
    Obj hdr;
    SetEntry *table;
    int64_t mask;
    int64_t fill;         /* live + dummy */
    int64_t used;         /* live */
    int64_t finger;
    int64_t hash;         /* frozenset hash, -1 until computed */
    SetEntry small[8];
    DictObj *dict;
} SetObj;

typedef struct RangeObj {
    Obj hdr;
    int64_t start, stop, step, len;
    TupleObj *big;   /* (start, stop, step, len) when one does not fit int64, else NULL (vm/range_big.c) */
} RangeObj;

typedef struct SliceObj {
    Obj hdr;
    Value start, stop, step;
} SliceObj;

typedef struct CellObj {
    Obj hdr;
    Value v;              /* VAL_NULL: empty cell */
} CellObj;

typedef struct FunctionObj {
    Obj hdr;
    CodeObj *code;
    DictObj *globals;
    TupleObj *defaults;   /* may be NULL */
    DictObj *kwdefaults;  /* may be NULL */
    TupleObj *closure;    /* tuple of CellObj, may be NULL */
    StrObj *name;
    StrObj *qualname;
    Value doc;
    Value module;
    DictObj *dict;
    DictObj *annotations; /* may be NULL */
} FunctionObj;

typedef struct ModuleObj {
    Obj hdr;
    DictObj *dict;
    StrObj *name;
} ModuleObj;

typedef struct BoundMethodObj {
    Obj hdr;
    Value func;
    Value self;
} BoundMethodObj;

/* Native (C) callables.  Arguments arrive vectorcall-style: argv[0..argc) positional values
 * followed by the values of the keyword arguments named in kwnames (a tuple of str, or NULL).
 * For methods, argv[0] is self.  `fn` is the callable itself (its data and payload).  Returns
 * the result, or VAL_NULL with an exception pending. */
typedef struct NativeObj NativeObj;
typedef Value (*NativeFn)(VM *vm, int argc, Value *argv, TupleObj *kwnames, NativeObj *fn);

enum {
    NATIVEF_METHOD = 1 << 0,    /* descriptor: binds the instance as argv[0] on attribute load */
    NATIVEF_CLASSMETHOD = 1 << 1,
    NATIVEF_STATIC = 1 << 2,
    NATIVEF_LIBRARY = 1 << 3,
};

struct NativeObj {
    Obj hdr;
    const char *name;
    NativeFn fn;
    void *data;           /* static C data passed to fn (not traced) */
    Value self;           /* bound self, or VAL_NULL */
    Value payload;        /* a traced Value the function closes over, or VAL_NULL */
    TypeObj *owner;       /* for methods: the type that defines it */
    uint32_t flags;
    Value doc;
    Value module;         /* __module__: the defining module's name for module functions, else VAL_NULL */
};

typedef struct PropertyObj {
    Obj hdr;
    Value fget, fset, fdel, doc;
    Value name;
    DictObj *dict;        /* instances of subclasses only (CPython's heap-type __dict__) */
} PropertyObj;

/* Attributes computed by C (obj.__class__, fn.__name__, tensor.shape, ...): data descriptors
 * found in type dicts.  `set` NULL means read-only; set receives VAL_NULL for deletion. */
typedef Value (*GetterFn)(VM *vm, Value self, void *closure);
typedef int (*SetterFn)(VM *vm, Value self, Value v, void *closure);
typedef struct GetSetObj {
    Obj hdr;
    const char *name;
    GetterFn get;
    SetterFn set;
    void *closure;
    TypeObj *owner;
} GetSetObj;

typedef struct WrapperObj {  /* staticmethod / classmethod */
    Obj hdr;
    Value func;
    DictObj *dict;
} WrapperObj;

typedef struct SuperObj {
    Obj hdr;
    TypeObj *type;        /* the class super() was called in */
    Value obj;            /* the instance (or class for classmethods) */
    TypeObj *obj_type;
} SuperObj;

typedef struct ExceptionObj {
    Obj hdr;
    TupleObj *args;
    Value traceback;      /* TracebackObj or None */
    Value cause;
    Value context;
    bool suppress_context;
    DictObj *dict;
} ExceptionObj;

typedef struct TracebackObj {
    Obj hdr;
    Value next;           /* TracebackObj or VAL_NONE */
    Value frame;          /* the frame object (tb_frame), or VAL_NULL */
    CodeObj *code;
    int lineno;
    int lasti;
} TracebackObj;

typedef struct InstanceObj {
    Obj hdr;
    DictObj *dict;
} InstanceObj;

typedef struct WeakRefObj {
    Obj hdr;
    Obj *referent;        /* NULL once cleared */
    Value callback;       /* VAL_NULL or callable */
    int64_t hash;
    struct WeakRefObj *next_weak; /* the VM's list of all weakrefs */
    DictObj *dict;
} WeakRefObj;

/* Iterators of the built-in types, and other small native state machines (enumerate, zip,
 * map, ...): one layout, one `next` function per kind. */
typedef struct IterObj IterObj;
typedef Value (*IterNextFn)(VM *vm, IterObj *it); /* VAL_NULL + no exception: exhausted */
struct IterObj {
    Obj hdr;
    IterNextFn next;
    Value a, b, c;        /* traced */
    int64_t i, n;
    uint64_t version;
};

/* Access helpers. */
#define AS_OBJ(v) ((v).as.o)
#define AS_STR(v) ((StrObj *)(v).as.o)
#define AS_TUPLE(v) ((TupleObj *)(v).as.o)
#define AS_LIST(v) ((ListObj *)(v).as.o)
#define AS_DICT(v) ((DictObj *)(v).as.o)
#define AS_TYPE(v) ((TypeObj *)(v).as.o)
#define AS_FUNC(v) ((FunctionObj *)(v).as.o)
#define AS_CODE(v) ((CodeObj *)(v).as.o)

static inline DictObj **obj_dict_slot(Obj *o) {
    size_t off = o->type->dict_offset;
    return off ? (DictObj **)((char *)o + off) : NULL;
}

#endif
