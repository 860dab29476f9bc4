/* vm/vm.h — the VM state, frames, and the core API every part of the VM and its native modules
 * use: raising exceptions, calling, attribute access, the protocols of the data model.
 *
 * Error convention: functions returning Value return VAL_NULL with an exception pending on the
 * VM (vm->exc); functions returning int return 0 on success and -1 with an exception pending
 * (boolean-valued ones return 1/0/-1).  vm_* functions never abort on a user's mistake.
 */
#ifndef EMBER_VM_VM_H
#define EMBER_VM_VM_H

#include <stdarg.h>
#include <stdio.h>

#include "src/common/check.h"
#include "vm/code.h"
#include "vm/object.h"

/* A frame of script code.  Fast locals (locals, then cells, then free vars) and the value stack
 * live in one contiguous block: the VM's value stack for ordinary calls, or the generator
 * object's own block while a generator is suspended. */
struct Frame {
    CodeObj *code;
    Obj *func;            /* FunctionObj, or NULL for module/class bodies */
    DictObj *globals;
    DictObj *builtins;
    DictObj *locals_dict; /* module and class bodies (LOAD_NAME/STORE_NAME), else NULL */
    Value *localsplus;    /* nlocalsplus slots */
    Value *stack;         /* base of the value stack (= localsplus + nlocalsplus) */
    Value *sp;            /* synced by the interpreter before anything that can allocate */
    int32_t ip;           /* index of the instruction being executed */
    Frame *prev;
    Obj *gen;             /* GenObj owning this frame, or NULL */
    bool is_entry;        /* returning from it leaves the C call of vm_eval_frame */
    bool owns_stack;      /* its block is on the VM value stack (popped on return) */
    bool yielded;         /* set by YIELD_VALUE when vm_eval_frame returns a yielded value */
    TupleObj *kwnames;    /* pending KW_NAMES for the next CALL */
    struct FrameObj *obj; /* its frame object once one was asked for (vm/frame.h), else NULL */
};

typedef Value (*EvalFrameFn)(VM *vm, Frame *f);

/* Exception types known to the VM core.  X(name, base); BaseException names itself (its base
 * is object). */
#define VM_EXCEPTIONS(X) \
    X(BaseException, BaseException) X(SystemExit, BaseException) X(KeyboardInterrupt, BaseException) \
    X(GeneratorExit, BaseException) X(Exception, BaseException) \
    X(StopIteration, Exception) X(ArithmeticError, Exception) \
    X(FloatingPointError, ArithmeticError) X(OverflowError, ArithmeticError) \
    X(ZeroDivisionError, ArithmeticError) X(AssertionError, Exception) \
    X(AttributeError, Exception) X(BufferError, Exception) X(EOFError, Exception) \
    X(ImportError, Exception) X(ModuleNotFoundError, ImportError) X(LookupError, Exception) \
    X(IndexError, LookupError) X(KeyError, LookupError) X(MemoryError, Exception) \
    X(NameError, Exception) X(UnboundLocalError, NameError) X(OSError, Exception) \
    X(FileNotFoundError, OSError) X(ReferenceError, Exception) X(RuntimeError, Exception) \
    X(NotImplementedError, RuntimeError) X(RecursionError, RuntimeError) \
    X(SyntaxError, Exception) X(IndentationError, SyntaxError) X(TabError, IndentationError) \
    X(SystemError, Exception) X(TypeError, Exception) X(ValueError, Exception) \
    X(UnicodeError, ValueError) X(UnicodeDecodeError, UnicodeError) \
    X(UnicodeEncodeError, UnicodeError) X(UnicodeTranslateError, UnicodeError) \
    X(Warning, Exception) X(UserWarning, Warning) \
    X(DeprecationWarning, Warning) X(PendingDeprecationWarning, Warning) X(RuntimeWarning, Warning) \
    X(FutureWarning, Warning) X(SyntaxWarning, Warning) X(ImportWarning, Warning) \
    X(UnicodeWarning, Warning) X(BytesWarning, Warning) X(ResourceWarning, Warning) \
    X(EncodingWarning, Warning) X(StopAsyncIteration, Exception) X(TimeoutError, OSError) \
    X(PermissionError, OSError) X(FileExistsError, OSError) X(IsADirectoryError, OSError) \
    X(NotADirectoryError, OSError) X(InterruptedError, OSError) X(ConnectionError, OSError) \
    X(BrokenPipeError, ConnectionError) X(ConnectionResetError, ConnectionError) \
    X(ConnectionAbortedError, ConnectionError) X(ConnectionRefusedError, ConnectionError) \
    X(BlockingIOError, OSError) X(ChildProcessError, OSError) X(ProcessLookupError, OSError)

/* Built-in types the VM core creates.  X(field, "name"). */
#define VM_TYPES(X) \
    X(object, "object") X(type, "type") X(none, "NoneType") X(bool, "bool") X(int, "int") \
    X(float, "float") X(str, "str") X(bytes, "bytes") X(tuple, "tuple") X(list, "list") \
    X(dict, "dict") X(set, "set") X(frozenset, "frozenset") X(range, "range") \
    X(slice, "slice") X(function, "function") X(code, "code") X(cell, "cell") \
    X(module, "module") X(method, "method") X(builtin_function, "builtin_function_or_method") \
    X(property, "property") X(staticmethod, "staticmethod") X(classmethod, "classmethod") \
    X(super, "super") X(traceback, "traceback") X(generator, "generator") \
    X(weakref, "weakref") X(ellipsis, "ellipsis") X(notimplemented, "NotImplementedType") \
    X(iterator, "iterator") X(defaultdict, "defaultdict") X(ordereddict, "OrderedDict") \
    X(getset, "getset_descriptor") X(dict_keys, "dict_keys") X(dict_values, "dict_values") \
    X(dict_items, "dict_items") X(union, "UnionType") X(coroutine, "coroutine") \
    X(async_generator, "async_generator") X(coroutine_wrapper, "coroutine_wrapper") \
    X(async_generator_asend, "async_generator_asend") X(async_generator_athrow, "async_generator_athrow") \
    X(async_generator_wrapped_value, "async_generator_wrapped_value") X(member, "member_descriptor") \
    X(mappingproxy, "mappingproxy") X(genericalias, "GenericAlias") X(frame, "frame") X(complex, "complex") X(bytearray, "bytearray") \
    X(memoryview, "memoryview") ITER_TYPES(X)

/* The iterator kinds: all IterObjs (layout OBJ_LAYOUT_ITER, subtypes of `iterator`), typed so
 * that type(it).__name__ and isinstance(x, zip) are CPython's.  X(field, "name"). */
#define ITER_TYPES(X) \
    X(list_iterator, "list_iterator") X(list_reverseiterator, "list_reverseiterator") \
    X(tuple_iterator, "tuple_iterator") X(str_iterator, "str_ascii_iterator") \
    X(range_iterator, "range_iterator") X(dict_keyiterator, "dict_keyiterator") \
    X(dict_valueiterator, "dict_valueiterator") X(dict_itemiterator, "dict_itemiterator") \
    X(dict_reversekeyiterator, "dict_reversekeyiterator") X(set_iterator, "set_iterator") \
    X(bytes_iterator, "bytes_iterator") X(str_uiterator, "str_iterator") \
    X(callable_iterator, "callable_iterator") X(enumerate, "enumerate") X(zip, "zip") X(map, "map") \
    X(filter, "filter") X(reversed, "reversed") X(bytearray_iterator, "bytearray_iterator") \
    X(longrange_iterator, "longrange_iterator")

typedef struct TempRoots {
    Value *v;
    int32_t n, cap;
} TempRoots;

typedef struct ExtRoot ExtRoot;

/* The per-VM state slots of the layers outside vm/ (vm->ext[...]), allotted here so no two
 * layers share one. */
typedef enum VmExtSlot {
    VM_EXT_TORCH,     /* src/torch: TorchState */
    VM_EXT_NN,        /* src/torch: torch.nn's NnState */
    VM_EXT_FFI,       /* src/ffi: ctypes */
    VM_EXT_OPS,       /* src/ffi: torch.ops */
    VM_EXT_TRACER,    /* src/tracer: TracerState */
    VM_EXT_RUNTIME,   /* src/runtime */
    VM_EXT_COMPILED_AUTOGRAD,   /* src/runtime/ca_vm.c: torch._dynamo.compiled_autograd */
    VM_EXT_DIST,      /* src/dist: torch.distributed's native types */
    VM_EXT_AST,       /* src/frontend/ast_module.c: the _ast classes */
    VM_EXT__COUNT
} VmExtSlot;   /* see vm/gc.h: roots held by C code (hooks, handles) */

/* Objects the native modules of vm/ keep for the VM's lifetime (codec registry, import
 * machinery, ...), in vm->lib[VM_LIB_name]; marked by the collector, VAL_NULL until set. */
#define VM_LIB_SLOTS(X) \
    X(codec_search_path) X(codec_cache) X(codec_errors) \
    X(stat_result) X(terminal_size) X(times_result) X(uname_result) X(dir_entry) X(scandir_iter) \
    X(fork_before) X(fork_child) X(fork_parent) X(struct_time) \
    X(simple_namespace) X(sys_trace) X(sys_profile) X(audit_hooks) X(unraisable_args) X(switch_interval) \
    X(native_cache) X(importlib) X(importlib_ext) X(source_file_loader) X(ember_lib_importer) X(import_func) \
    X(bootstrapping) X(import_lock) X(lock_type) X(rlock_type) X(atexit) \
    X(io_iobase) X(io_rawiobase) X(io_bufferediobase) X(io_textiobase) X(io_fileio) X(io_bytesio) X(io_stringio) \
    X(io_bufferedreader) X(io_bufferedwriter) X(io_bufferedrandom) X(io_bufferedrwpair) X(io_textiowrapper) \
    X(io_nldecoder) X(io_unsupported) X(struct_type) X(struct_error) X(struct_cache) \
    X(binascii_error) X(binascii_incomplete) X(zlib_error) X(zlib_compress) X(zlib_decompress) \
    X(csv_error) X(csv_dialect_type) X(csv_dialects) X(csv_reader_type) X(csv_writer_type) X(csv_field_limit) \
    X(hash_type) X(hash_xof_type) X(hmac_type) X(hash_unsupported) X(blake2b) X(blake2s) \
    X(poll_type) X(signal_handlers) X(itimer_error) X(locale_error) X(pwd_type) X(grp_type) X(rusage_type) X(faulthandler_file) X(faulthandler_later_file) X(faulthandler_user_files) \
    X(socket_type) X(socket_herror) X(socket_gaierror) X(semlock_type) \
    X(context_type) X(contextvar_type) X(token_type) X(token_missing_type) X(token_missing) X(context_current) X(exc_group_base) X(exc_group)

typedef enum VmLibSlot {
#define X(n) VM_LIB_##n,
    VM_LIB_SLOTS(X)
#undef X
    VM_LIB__COUNT
} VmLibSlot;

struct VM {
    /* --- heap (vm/gc.c) --- */
    Obj **objects;           /* every heap object, oldest first (vm/gc.c): an array, not a list,
                              * so the sweep reads it in order instead of chasing links */
    size_t nobjects, objects_cap;
    Obj **permanent;         /* objects made permanent (gc_make_permanent), out of the table */
    size_t npermanent, permanent_cap;
    size_t permanent_bytes;  /* their sizes: counted in bytes_allocated, never marked (vm/gc.c pacing) */
    CodeObj **perm_code;     /* the permanent code objects: traced as roots (their caches) */
    size_t nperm_code, perm_code_cap;
    struct ObjPool *obj_pool;
    Obj **io_streams;           /* vm/mod_io.c: text wrappers and buffered files, for io_shutdown */
    int64_t io_nstreams, io_streams_cap;   /* small objects' memory (vm/objpool.c) */
    size_t bytes_allocated;  /* VM objects, the arrays they own, other external memory (vm/gc.h) */
    size_t next_gc;
    size_t live_after_gc;
    size_t storage_bytes;    /* tensor storage, paced apart from the objects (vm/gc.h) */
    size_t next_storage_gc;
    void (*storage_trim)(size_t keep_bytes);  /* after each collection: trim freed storage kept for reuse */
    bool gc_running;
    bool gc_disabled;
    bool gc_finalizers;   /* some class has defined __del__: collections look for dying instances */
    bool gc_checking;     /* gc_check_heap is tracing: every reference goes on the gray stack */
    /* unreachable instances whose __del__ is due (GC roots until it has run): the interpreter
     * runs them at its next safe point (backward jump, return) — vm/gc.c */
    Obj **fin_pending;
    size_t fin_n, fin_cap;
    int64_t gc_count;
    int64_t gc_freed;            /* objects freed by all collections (gc.get_stats) */
    size_t gc_nobjects_after;    /* heap-table length after the last sweep (gc.get_count) */
    int64_t gc_threshold[3];     /* gc.set_threshold's values (0 in the first: no automatic collection) */
    bool gc_user_off;            /* gc.disable() (gc_disabled = this, or a zero threshold0) */
    size_t gc_frozen;            /* gc.freeze()'s object count */
    Obj **gray;
    size_t ngray, gray_cap;
    TempRoots roots;         /* vm_push_root / vm_pop_root */
    ExtRoot *ext_roots;      /* em_root_* handles and C-held callables */
    struct WeakRefObj *weakrefs;
    void *memviews;          /* memoryviews counting an export of a bytearray (vm/memoryview.c) */
    struct TypeObj **all_types;   /* every live class, in creation order (weak; vm/type.c: __subclasses__) */
    int64_t n_types, cap_types;
    struct Builder *live_builders;
    int64_t alloc_fail_countdown; /* tests: fail the Nth allocation with MemoryError */

    /* --- interpreter (vm/interp.c) --- */
    Value *stack_base, *stack_top, *stack_limit;
    Frame *frame;            /* innermost running frame */
    Frame *frame_pool;       /* frames for non-generator calls */
    int32_t frame_pool_cap;
    int32_t frame_pool_ready; /* frames [0, ready) have their constant fields (vm_frame_pool_extend) */
    int32_t frame_guard;      /* min(recursion_limit, frame_pool_ready): a push at this depth extends or raises */
    int32_t depth;           /* script frames currently running */
    int32_t recursion_limit;
    int32_t c_depth;         /* nested C-level recursion (repr, eq, hash ...) */
    EvalFrameFn eval_frame;  /* PEP 523 style hook; vm_eval_frame_default when not replaced */
    void *eval_frame_data;

    /* --- exceptions (vm/exc.c) --- */
    Value exc;               /* the pending (being raised) exception, or VAL_NULL */
    Value handled;           /* the exception being handled (sys.exc_info), or VAL_NONE */

    /* --- types and singletons --- */
#define X(f, s) TypeObj *t_##f;
    VM_TYPES(X)
#undef X
#define X(n, b) TypeObj *e_##n;
    VM_EXCEPTIONS(X)
#undef X
    Value ellipsis, not_implemented;
    DictObj *intern;         /* str -> str */
    /* vm_intern_str's cache of C strings (mostly literals) by address; checked with strcmp, the
     * strings stay alive in `intern` */
    const char *intern_ckey[512];
    StrObj *intern_cval[512];
    StrObj *special_names[SP__COUNT];
    StrObj *binop_names[13][3];  /* __add__, __radd__, __iadd__ per BinaryOp */
    StrObj *empty_str;
    TupleObj *empty_tuple;
    StrObj *s_cache[256];    /* one-byte strings */
    uint64_t class_epoch;    /* bumped when any class dict changes: invalidates caches */
    int64_t int_max_str_digits;  /* sys.set_int_max_str_digits (0: no limit) */
    bool safe_path;              /* -P / -I: no script or current directory first on sys.path */

    /* --- modules (vm/import.c) --- */
    DictObj *builtins;
    DictObj *modules;        /* sys.modules */
    ListObj *path;           /* sys.path */
    struct NativeModuleDef *native_modules;
    Value main_module;
    ListObj *argv;
    /* Compile source to a module code object (installed by the embedding layer, which owns
     * the front end).  NULL + exception on a syntax error. */
    CodeObj *(*compile)(VM *vm, const char *src, size_t len, const char *filename, uint32_t flags);

    /* --- output --- */
    FILE *out, *err;
    Value sys_stdout, sys_stderr; /* script-replaceable streams; VAL_NULL = the C files */

    /* --- native-module state (see VM_LIB_SLOTS) --- */
    Value lib[VM_LIB__COUNT];

    /* --- extension state of the layers outside vm/ (one slot each, see VmExtSlot) --- */
    void *ext[VM_EXT__COUNT];
    void (*ext_trace[VM_EXT__COUNT])(VM *vm, void *);
    void (*ext_free[VM_EXT__COUNT])(VM *vm, void *);
};

/* ---- lifecycle ----------------------------------------------------------------------- */
VM *vm_new(void);
/* Set the recursion limit (clamped to what the frame pool holds) and prepare the pool's frames
 * below it; returns the limit set. */
int32_t vm_set_recursion_limit(VM *vm, int64_t n);
/* Prepare pool frames past the current depth; false when the depth is at the recursion limit. */
bool vm_frame_pool_extend(VM *vm);
void vm_free(VM *vm);
/* vm/mod_faulthandler.c: drop the process-wide signal handlers and watchdog reading vm's frames */
void faulthandler_vm_free(VM *vm);

/* ---- exceptions (vm/exc.c) ------------------------------------------------------------- */
Value vm_raise(VM *vm, TypeObj *type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Value vm_raise_value(VM *vm, Value exc);      /* exc: instance or class */
Value vm_raise_str(VM *vm, TypeObj *type, StrObj *msg);
Value vm_raise_key_error(VM *vm, Value key);
/* ImportError (or a subclass) with its name and path attributes (either may be NULL). */
Value vm_raise_import_error(VM *vm, TypeObj *type, const char *name, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
Value vm_raise_stop_iteration(VM *vm, Value value);
Value vm_no_memory(VM *vm);
bool vm_exc_matches(VM *vm, TypeObj *type);   /* pending exception is an instance of type */
void vm_clear_exc(VM *vm);
Value vm_fetch_exc(VM *vm);                   /* take the pending exception (clears it) */
Value vm_new_exception(VM *vm, TypeObj *type, Value msg_or_null);
void vm_print_exception(VM *vm, Value exc, FILE *out);  /* CPython traceback format */
/* The stream print() writes to when a script replaced sys.stdout; VAL_NULL for the C stream
 * (vm/mod_sys.c). */
Value vm_current_stdout(VM *vm);
int vm_check_recursion(VM *vm, const char *where) EM_MUST_CHECK;   /* c_depth++ or RecursionError */
static inline void vm_leave_recursion(VM *vm) { vm->c_depth--; }

/* ---- calling (vm/call.c) --------------------------------------------------------------- */
Value vm_call(VM *vm, Value callable, int argc, Value *argv, TupleObj *kwnames);
Value vm_call0(VM *vm, Value callable);
Value vm_call1(VM *vm, Value callable, Value a);
Value vm_call2(VM *vm, Value callable, Value a, Value b);
Value vm_call3(VM *vm, Value callable, Value a, Value b, Value c);
Value vm_call_method(VM *vm, Value self, const char *name, int argc, Value *argv);
Value vm_call_special(VM *vm, Value self, SpecialMethod sp, int argc, Value *argv);
/* Call with arguments given as a tuple and an optional dict (f(*args, **kwargs)). */
Value vm_call_ex(VM *vm, Value callable, Value args, Value kwargs);
/* Run a code object as a module or class body with the given namespace dicts. */
Value vm_run_code(VM *vm, CodeObj *co, DictObj *globals, DictObj *locals);
Value vm_eval_frame_default(VM *vm, Frame *f);

/* ---- attributes (vm/attr.c) ------------------------------------------------------------ */
Value vm_getattr(VM *vm, Value obj, StrObj *name);
Value vm_getattr_c(VM *vm, Value obj, const char *name);
Value vm_getattr_opt(VM *vm, Value obj, StrObj *name);    /* VAL_NULL without exception if missing */
int vm_setattr(VM *vm, Value obj, StrObj *name, Value v) EM_MUST_CHECK;
int vm_delattr(VM *vm, Value obj, StrObj *name) EM_MUST_CHECK;
int vm_hasattr(VM *vm, Value obj, StrObj *name);
Value vm_generic_getattr(VM *vm, Value obj, StrObj *name, bool raise);
int vm_generic_setattr(VM *vm, Value obj, StrObj *name, Value v) EM_MUST_CHECK;
int vm_generic_delattr(VM *vm, Value obj, StrObj *name) EM_MUST_CHECK;
/* LOAD_METHOD: sets *meth and *self (self VAL_NULL if the result is not an unbound method). */
int vm_load_method(VM *vm, Value obj, StrObj *name, Value *meth, Value *self) EM_MUST_CHECK;
/* Look name up along type's MRO (no descriptors applied); VAL_NULL if absent. */
Value type_lookup(VM *vm, TypeObj *t, StrObj *name);
Value type_special(VM *vm, TypeObj *t, SpecialMethod sp);
static inline TypeObj *vm_type_of(VM *vm, Value v) {
    switch (v.tag) {
    case VAL_OBJ: return v.as.o->type;
    case VAL_INT: return vm->t_int;
    case VAL_FLOAT: return vm->t_float;
    case VAL_BOOL: return vm->t_bool;
    default: return vm->t_none;
    }
}
bool type_is_subtype(TypeObj *a, TypeObj *b);
static inline bool vm_isinstance_type(VM *vm, Value v, TypeObj *t) {
    TypeObj *vt = vm_type_of(vm, v);
    return vt == t || type_is_subtype(vt, t);
}
Value vm_bind_descriptor(VM *vm, Value attr, Value obj, TypeObj *owner);
bool vm_is_data_descriptor(VM *vm, Value d);   /* property, getset, or a class with __set__/__delete__ */
Value vm_bound_method_new(VM *vm, Value func, Value self);   /* a method object: func bound to self */
/* Inline-cache fills for LOAD_ATTR / STORE_ATTR / LOAD_METHOD (vm/attr.c). */
bool attr_cache_fill_load(VM *vm, TypeObj *t, StrObj *name, InlineCache *c);
bool attr_cache_fill_store(VM *vm, TypeObj *t, StrObj *name, InlineCache *c);
bool attr_cache_fill_method(VM *vm, CodeObj *co, TypeObj *t, StrObj *name, InlineCache *c);

/* ---- protocols (vm/protocol.c) ---------------------------------------------------------- */
Value vm_binary_op(VM *vm, int op, Value a, Value b);      /* BinaryOp incl. in-place */
Value vm_unary_op(VM *vm, int opcode, Value a);
Value vm_compare(VM *vm, CompareOp op, Value a, Value b);
int vm_truthy(VM *vm, Value v);                 /* 1, 0, -1 */
int vm_eq(VM *vm, Value a, Value b);            /* 1, 0, -1 */
int vm_lt(VM *vm, Value a, Value b);            /* 1, 0, -1 */
int vm_hash(VM *vm, Value v, int64_t *out) EM_MUST_CHECK;
int vm_contains(VM *vm, Value container, Value item);   /* 1, 0, -1 */
Value vm_iter(VM *vm, Value v);
Value vm_next(VM *vm, Value it);      /* VAL_NULL: exhausted if no exception pending */
int64_t vm_len(VM *vm, Value v);      /* -1 on error */
Value vm_getitem(VM *vm, Value container, Value key);
int vm_setitem(VM *vm, Value container, Value key, Value v) EM_MUST_CHECK;
int vm_delitem(VM *vm, Value container, Value key) EM_MUST_CHECK;
Value vm_repr(VM *vm, Value v);       /* str */
Value vm_str(VM *vm, Value v);        /* str */
Value vm_ascii(VM *vm, Value v);
Value vm_format(VM *vm, Value v, Value spec);
int vm_index(VM *vm, Value v, int64_t *out) EM_MUST_CHECK;     /* __index__ */
int vm_to_double(VM *vm, Value v, double *out) EM_MUST_CHECK;  /* int/float/bool/__float__ */
bool vm_is_callable(VM *vm, Value v);
/* Iterate any iterable into a new list (NULL + exception on failure). */
ListObj *vm_list_from_iterable(VM *vm, Value iterable);
/* Borrow a sequence's items: tuples and lists directly, other iterables via a new list that
 * the caller must keep rooted.  Returns the items array, sets *n; NULL on error. */
Value *vm_sequence_items(VM *vm, Value seq, int64_t *n, Value *holder);
const char *vm_type_name(VM *vm, Value v);

/* ---- small helpers ---------------------------------------------------------------------- */
Value vm_intern(VM *vm, const char *s);   /* interned str Value */
StrObj *vm_intern_str(VM *vm, const char *s);
/* A str, or an instance of a str subclass (CPython's PyUnicode_Check); fast paths that must
 * not see subclasses test the type itself (val_is_type(vm, v, vm->t_str)). */
static inline bool val_is_str(VM *vm, Value v) { return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_STR; }
static inline bool val_is_type(VM *vm, Value v, TypeObj *t) { return v.tag == VAL_OBJ && v.as.o->type == t; }

#endif
