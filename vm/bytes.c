/* vm/bytes.c — what is bytes' own among its methods: construction (bytes(x) and subclass
 * instances), repr, hash, iteration, decode, __getnewargs__/__bytes__.  The methods shared
 * with bytearray are vm/bytes_ops.c; the object itself is in vm/str.c. */
#include <ctype.h>
#include <string.h>

#include "vm/codecs.h"
#include "vm/bytes_ops.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define BSELF ((BytesObj *)argv[0].as.o)
#define BSELF_OF(v) ((BytesObj *)(v).as.o)

static Value bval(BytesObj *b) { return b ? val_obj(b) : val_null(); }
static bool is_bytes(VM *vm, Value v) { return val_is_obj(v) && v.as.o->type->layout == OBJ_LAYOUT_BYTES; }
static Value b_new_exact(ARGS);

/* bytes.__new__(cls, ...): a subclass instance holds what bytes(...) gives */
static Value b_new(ARGS) {
    if (argc < 1 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !type_is_subtype(AS_TYPE(argv[0]), vm->t_bytes)) {
        const char *n = argc && val_is_obj(argv[0]) && vm_isinstance_type(vm, argv[0], vm->t_type) ? AS_TYPE(argv[0])->name->data
                                                                                        : argc ? vm_type_name(vm, argv[0]) : "?";
        return vm_raise(vm, vm->e_TypeError, "bytes.__new__(%s): %s is not a subtype of bytes", n, n);
    }
    TypeObj *cls = AS_TYPE(argv[0]);
    Value v = b_new_exact(vm, argc, argv, kw, fn);
    if (val_is_null(v) || cls == vm->t_bytes) return v;
    BytesObj *b = (BytesObj *)v.as.o;
    return bval(bytes_new_typed(vm, cls, b->data, b->len));
}



static Value b_new_exact(ARGS) {
    static const char *const names[] = {"cls", "source", "encoding", "errors"};
    Value a[4];
    if (native_parse_args(vm, "bytes", argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    if (val_is_null(a[1])) return bval(bytes_new(vm, NULL, 0));
    if (val_is_str(vm, a[1])) {
        if (val_is_null(a[2])) return vm_raise(vm, vm->e_TypeError, "string argument without an encoding");
        StrObj *s = AS_STR(a[1]);
        return bval(bytes_new(vm, (const uint8_t *)s->data, s->len));
    }
    if (!val_is_null(a[2])) return vm_raise(vm, vm->e_TypeError, "encoding without a string argument");
    if (val_is_type(vm, a[1], vm->t_bytes)) return a[1];
    if (is_bytes(vm, a[1])) return bval(bytes_new(vm, BSELF_OF(a[1])->data, BSELF_OF(a[1])->len));
    {
        const uint8_t *d;
        int64_t n;
        if (bytes_view(vm, a[1], &d, &n)) return bval(bytes_new(vm, d, n));
    }
    /* __bytes__ comes first (ctypes instances give their memory this way) */
    if (val_is_obj(a[1])) {
        Value conv = type_lookup(vm, vm_type_of(vm, a[1]), vm_intern_str(vm, "__bytes__"));
        if (!val_is_null(conv)) {
            Value r = vm_call_method(vm, a[1], "__bytes__", 0, NULL);
            if (val_is_null(r) || is_bytes(vm, r)) return r;
            return vm_raise(vm, vm->e_TypeError, "__bytes__ returned non-bytes (type %s)", vm_type_name(vm, r));
        }
    }
    if (val_is_intlike(a[1])) {
        int64_t n = val_as_intlike(a[1]);
        if (n < 0) return vm_raise(vm, vm->e_ValueError, "negative count");
        BytesObj *b = bytes_new(vm, NULL, n);
        if (b) memset(b->data, 0, (size_t)n);
        return bval(b);
    }
    ListObj *l = vm_list_from_iterable(vm, a[1]);
    if (!l) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "cannot convert '%s' object to bytes", vm_type_name(vm, a[1]));
        }
        return val_null();
    }
    vm_push_root(vm, val_obj(l));
    BytesObj *b = bytes_new(vm, NULL, l->len);
    for (int64_t i = 0; b && i < l->len; i++) {
        Value x = l->items[i];
        if (!val_is_intlike(x)) {
            vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, x));
            b = NULL;
            break;
        }
        int64_t v = val_as_intlike(x);
        if (v < 0 || v > 255) {
            vm_raise(vm, vm->e_ValueError, "bytes must be in range(0, 256)");
            b = NULL;
            break;
        }
        b->data[i] = (uint8_t)v;
    }
    vm_pop_root(vm);
    return bval(b);
}

static Value b_getnewargs(ARGS) {
    BytesObj *b = bytes_new(vm, BSELF->data, BSELF->len);
    if (!b) return val_null();
    vm_push_root(vm, val_obj(b));
    TupleObj *t = tuple_pack(vm, 1, val_obj(b));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

/* bytes.__bytes__ (3.11): a plain bytes copy of a subclass instance, the object itself else */
static Value b_bytes(ARGS) {
    if (argv[0].as.o->type == vm->t_bytes) return argv[0];
    return bval(bytes_new(vm, BSELF->data, BSELF->len));
}

static Value b_repr(ARGS) {
    StrObj *s = bytes_repr(vm, BSELF);
    return s ? val_obj(s) : val_null();
}



static Value b_hash(ARGS) { return val_int(hash_bytes(BSELF->data, BSELF->len)); }




static Value b_iter(ARGS) {
    if (argv[0].as.o->type == vm->t_bytes) return iter_builtin(vm, argv[0]);
    BytesObj *b = bytes_new(vm, BSELF->data, BSELF->len);
    return b ? iter_builtin(vm, val_obj(b)) : val_null();
}

static Value b_decode(ARGS) {
    static const char *const names[] = {"self", "encoding", "errors"};
    Value a[3];
    if (native_parse_args(vm, "decode", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    for (int i = 1; i < 3; i++)
        if (!val_is_null(a[i]) && !val_is_str(vm, a[i]))
            return vm_raise(vm, vm->e_TypeError, "decode() argument '%s' must be str, not %s", names[i],
                            vm_type_name(vm, a[i]));
    BytesObj *b = BSELF;
    const char *enc = val_is_null(a[1]) ? "utf-8" : AS_STR(a[1])->data;
    const char *errors = val_is_null(a[2]) ? "strict" : AS_STR(a[2])->data;
    CodecId id = codec_id(enc);
    StrObj *s = id != CODEC_OTHER ? codec_decode_builtin(vm, id, b->data, b->len, errors, true, NULL, argv[0])
                                  : codec_decode(vm, b->data, b->len, enc, errors);
    return s ? val_obj(s) : val_null();
}









void bytes_init_type(VM *vm) {
    static const MethodDef bm[] = {
        {"__new__", b_new, NATIVEF_STATIC}, {"__repr__", b_repr, NATIVEF_METHOD},
        {"__hash__", b_hash, NATIVEF_METHOD}, {"__iter__", b_iter, NATIVEF_METHOD},
        {"decode", b_decode, NATIVEF_METHOD}, {"__getnewargs__", b_getnewargs, NATIVEF_METHOD | ARITY_NOARGS},
        {"__bytes__", b_bytes, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    /* the methods shared with bytearray are vm/bytes_ops.c */
    if (type_add_methods(vm, vm->t_bytes, bm) < 0 || bytes_ops_register(vm, vm->t_bytes) < 0) EM_UNREACHABLE();
}
