/* vm/bytearray.c — the mutable byte sequence: construction (bytearray.__new__ makes it empty,
 * __init__ fills it from an int, a str with an encoding, a bytes-like object or an iterable of
 * ints, as CPython), repr, iteration over the live contents, item and slice assignment and
 * deletion, the list-like mutators, in-place + and *, decode, pickling, and the refusal to
 * resize while memoryviews export it.  The methods shared with bytes are vm/bytes_ops.c. */
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/bytes_ops.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define BA(v) ((ByteArrayObj *)(v).as.o)

static void ba_trace(VM *vm, Obj *o) { gc_mark(vm, ((ByteArrayObj *)o)->dict); }

static void ba_finalize(VM *vm, Obj *o) {
    ByteArrayObj *b = (ByteArrayObj *)o;
    if (b->data) VM_FREE_ARRAY(vm, uint8_t, b->data, b->cap + 1);
    b->data = NULL;
}

static Value ba_alloc(VM *vm, TypeObj *t) {
    ByteArrayObj *b = gc_alloc(vm, t, t->instance_size > sizeof(ByteArrayObj) ? t->instance_size : sizeof(ByteArrayObj));
    if (!b) return val_null();
    return val_obj(b);
}

/* Capacity for at least len bytes; the data keeps a NUL after its end (CPython's ob_start). */
static int reserve(VM *vm, ByteArrayObj *b, int64_t len) {
    if (b->data && len <= b->cap) return 0;
    int64_t cap = b->cap < 8 ? 8 : b->cap;
    while (cap < len) cap += cap >> 1;
    uint8_t *d = vm_realloc(vm, b->data, b->data ? (size_t)b->cap + 1 : 0, (size_t)cap + 1);
    if (!d) return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int bytearray_resize(VM *vm, ByteArrayObj *b, int64_t len) {
    if (len != b->len && b->exports > 0) {
        /* views nobody can reach any more would have been released by CPython's reference
         * counting already: collect them before refusing */
        vm_push_root(vm, val_obj(b));
        gc_collect(vm);
        vm_pop_root(vm);
        if (b->exports > 0) {
            vm_raise(vm, vm->e_BufferError, "Existing exports of data: object cannot be re-sized");
            return -1;
        }
    }
    vm_push_root(vm, val_obj(b));
    int rc = reserve(vm, b, len);
    vm_pop_root(vm);
    if (rc < 0) return -1;
    b->len = len;
    b->data[len] = 0;
    return 0;
}

Value bytearray_new(VM *vm, TypeObj *t, const uint8_t *data, int64_t len) {
    /* data may point into a movable buffer of ours: copy it before allocating */
    uint8_t *tmp = NULL;
    if (len) {
        tmp = malloc((size_t)len);
        if (!tmp) return vm_no_memory(vm);
        memcpy(tmp, data, (size_t)len);
    }
    Value v = ba_alloc(vm, t);
    if (!val_is_null(v) && bytearray_resize(vm, BA(v), len) < 0) v = val_null();
    if (!val_is_null(v) && len) memcpy(BA(v)->data, tmp, (size_t)len);
    free(tmp);
    return v;
}

static int ba_set(VM *vm, ByteArrayObj *b, const uint8_t *d, int64_t n) {
    uint8_t *tmp = n ? malloc((size_t)n) : NULL;
    if (n && !tmp) {
        vm_no_memory(vm);
        return -1;
    }
    if (n) memcpy(tmp, d, (size_t)n);
    int rc = bytearray_resize(vm, b, n);
    if (rc == 0 && n) memcpy(b->data, tmp, (size_t)n);
    free(tmp);
    return rc;
}

/* The bytes of an iterable of ints 0..255 into a malloc'd buffer. */
static uint8_t *ints_to_bytes(VM *vm, Value src, int64_t *n) {
    Value holder = val_null();
    int64_t cnt;
    Value *items = vm_sequence_items(vm, src, &cnt, &holder);
    if (!items) return NULL;
    vm_push_root(vm, holder);
    uint8_t *p = malloc((size_t)cnt + 1);
    for (int64_t i = 0; p && i < cnt; i++) {
        int64_t v;
        if (vm_index(vm, items[i], &v) < 0 || v < 0 || v > 255) {
            if (val_is_null(vm->exc) || vm_exc_matches(vm, vm->e_OverflowError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
            }
            free(p);
            p = NULL;
            break;
        }
        p[i] = (uint8_t)v;
        if (holder.tag == VAL_NULL) items = vm_sequence_items(vm, src, &cnt, NULL);
    }
    vm_pop_root(vm);
    if (!p && val_is_null(vm->exc)) vm_no_memory(vm);
    *n = cnt;
    return p;
}

/* ---- construction ------------------------------------------------------------------------------- */

static Value ba_new(ARGS) {
    if (argc < 1 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !type_is_subtype(AS_TYPE(argv[0]), vm->t_bytearray))
        return vm_raise(vm, vm->e_TypeError, "bytearray.__new__(X): X is not a subtype of bytearray");
    return ba_alloc(vm, AS_TYPE(argv[0]));
}

static Value ba_init(ARGS) {
    static const char *const names[] = {"self", "source", "encoding", "errors"};
    Value a[4];
    if (native_parse_args(vm, "bytearray", argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    ByteArrayObj *b = BA(a[0]);
    Value src = a[1];
    if (val_is_null(src)) {
        if (!val_is_null(a[2]) || !val_is_null(a[3]))
            return vm_raise(vm, vm->e_TypeError, val_is_null(a[2]) ? "errors without a string argument" : "encoding without a string argument");
        return ba_set(vm, b, NULL, 0) < 0 ? val_null() : val_none();
    }
    if (val_is_str(vm, src)) {
        if (val_is_null(a[2])) return vm_raise(vm, vm->e_TypeError, "string argument without an encoding");
        Value args[2] = {a[2], val_is_null(a[3]) ? vm_intern(vm, "strict") : a[3]};
        Value enc = vm_call_method(vm, src, "encode", 2, args);
        if (val_is_null(enc)) return enc;
        BytesObj *eb = (BytesObj *)enc.as.o;
        return ba_set(vm, b, eb->data, eb->len) < 0 ? val_null() : val_none();
    }
    if (!val_is_null(a[2])) return vm_raise(vm, vm->e_TypeError, "encoding without a string argument");
    if (!val_is_null(a[3])) return vm_raise(vm, vm->e_TypeError, "errors without a string argument");
    const uint8_t *d;
    int64_t n;
    if (bytes_view(vm, src, &d, &n)) return ba_set(vm, b, d, n) < 0 ? val_null() : val_none();
    if (bigint_check(vm, src) || !val_is_null(type_special(vm, vm_type_of(vm, src), SP_INDEX))) {
        int64_t count;
        if (vm_index(vm, src, &count) < 0) return val_null();
        if (count < 0) return vm_raise(vm, vm->e_ValueError, "negative count");
        if (bytearray_resize(vm, b, count) < 0) return val_null();
        memset(b->data, 0, (size_t)count);
        return val_none();
    }
    TypeObj *t = vm_type_of(vm, src);
    if (val_is_null(type_special(vm, t, SP_ITER)) && val_is_null(type_special(vm, t, SP_GETITEM)))
        return vm_raise(vm, vm->e_TypeError, "cannot convert '%s' object to bytearray", t->name->data);
    uint8_t *p = ints_to_bytes(vm, src, &n);
    if (!p) return val_null();
    int rc = ba_set(vm, b, p, n);
    free(p);
    return rc < 0 ? val_null() : val_none();
}

static Value ba_repr(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    BytesObj *tmp = bytes_new(vm, b->data, b->len);
    if (!tmp) return val_null();
    vm_push_root(vm, val_obj(tmp));
    StrObj *r = bytes_repr(vm, tmp);
    vm_pop_root(vm);
    if (!r) return val_null();
    vm_push_root(vm, val_obj(r));
    TypeObj *t = vm_type_of(vm, argv[0]);
    StrObj *s = str_printf(vm, "%s(%s)", t->name->data, r->data);
    vm_pop_root(vm);
    return s ? val_obj(s) : val_null();
}

/* ---- iteration over the live contents ------------------------------------------------------------- */

static Value ba_iter_next(VM *vm, IterObj *it) {
    ByteArrayObj *b = BA(it->a);
    if (it->i >= b->len) return val_null();
    return val_int(b->data[it->i++]);
}

static Value ba_iter(ARGS) {
    Value it = iter_new(vm, ba_iter_next, argv[0], val_null(), 0, 0);
    if (!val_is_null(it)) it.as.o->type = vm->t_bytearray_iterator;
    return it;
}

/* ---- mutation ------------------------------------------------------------------------------------ */

static int byte_value(VM *vm, Value v, uint8_t *out) {
    int64_t x;
    if (vm_index(vm, v, &x) < 0) {
        if (vm_exc_matches(vm, vm->e_OverflowError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        }
        return -1;
    }
    if (x < 0 || x > 255) {
        vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        return -1;
    }
    *out = (uint8_t)x;
    return 0;
}

/* Replace b[lo:hi] with n bytes (resizing). */
static int splice(VM *vm, ByteArrayObj *b, int64_t lo, int64_t hi, const uint8_t *d, int64_t n) {
    uint8_t *tmp = n ? malloc((size_t)n) : NULL;
    if (n && !tmp) {
        vm_no_memory(vm);
        return -1;
    }
    if (n) memcpy(tmp, d, (size_t)n);
    int64_t old = b->len, grow = n - (hi - lo);
    int rc = 0;
    if (grow > 0) {
        rc = bytearray_resize(vm, b, old + grow);
        if (rc == 0) memmove(b->data + hi + grow, b->data + hi, (size_t)(old - hi));
    } else if (grow < 0) {
        if (b->exports > 0) rc = bytearray_resize(vm, b, old + grow);   /* raises BufferError */
        if (rc == 0) {
            memmove(b->data + hi + grow, b->data + hi, (size_t)(old - hi));
            rc = bytearray_resize(vm, b, old + grow);
        }
    }
    if (rc == 0 && n) memcpy(b->data + lo, tmp, (size_t)n);
    free(tmp);
    return rc;
}

/* The bytes a slice assignment takes: bytes-like, or an iterable of ints (not str, not int). */
static uint8_t *assign_source(VM *vm, Value v, int64_t *n) {
    const uint8_t *d;
    if (bytes_view(vm, v, &d, n)) {
        uint8_t *p = malloc((size_t)*n + 1);
        if (!p) vm_no_memory(vm);
        else if (*n) memcpy(p, d, (size_t)*n);
        return p;
    }
    if (val_is_str(vm, v) || bigint_check(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "can assign only bytes, buffers, or iterables of ints in range(0, 256)");
        return NULL;
    }
    return ints_to_bytes(vm, v, n);
}

static Value ba_setitem(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    Value key = argv[1], v = argv[2];
    if (val_is_type(vm, key, vm->t_slice)) {
        int64_t start, stop, step, cnt, n;
        uint8_t *src = assign_source(vm, v, &n);
        if (!src) return val_null();
        int rc = slice_indices(vm, (SliceObj *)key.as.o, b->len, &start, &stop, &step, &cnt);
        if (rc == 0) {
            if (step == 1) {
                rc = splice(vm, b, start, start + cnt, src, n);
            } else if (n != cnt) {
                vm_raise(vm, vm->e_ValueError, "attempt to assign bytes of size %lld to extended slice of size %lld",
                         (long long)n, (long long)cnt);
                rc = -1;
            } else {
                for (int64_t i = 0; i < cnt; i++) b->data[start + i * step] = src[i];
            }
        }
        free(src);
        return rc < 0 ? val_null() : val_none();
    }
    if (!bigint_check(vm, key) && val_is_null(type_special(vm, vm_type_of(vm, key), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "bytearray indices must be integers or slices, not %s", vm_type_name(vm, key));
    uint8_t x;
    int64_t i;
    if (seq_index(vm, key, b->len, "bytearray", &i) < 0 || byte_value(vm, v, &x) < 0) return val_null();
    b->data[i] = x;
    return val_none();
}

static Value ba_delitem(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    Value key = argv[1];
    if (val_is_type(vm, key, vm->t_slice)) {
        int64_t start, stop, step, cnt;
        if (slice_indices(vm, (SliceObj *)key.as.o, b->len, &start, &stop, &step, &cnt) < 0) return val_null();
        if (cnt == 0) return val_none();
        if (step < 0) {
            start = start + (cnt - 1) * step;
            step = -step;
        }
        if (step == 1) return splice(vm, b, start, start + cnt, NULL, 0) < 0 ? val_null() : val_none();
        /* keep the bytes not selected, in order */
        int64_t w = start, k = 0;
        for (int64_t r = start; r < b->len; r++) {
            if (k < cnt && r == start + k * step) {
                k++;
                continue;
            }
            b->data[w++] = b->data[r];
        }
        return bytearray_resize(vm, b, w) < 0 ? val_null() : val_none();
    }
    int64_t i;
    if (seq_index(vm, key, b->len, "bytearray", &i) < 0) return val_null();
    return splice(vm, b, i, i + 1, NULL, 0) < 0 ? val_null() : val_none();
}

static Value ba_append(ARGS) {
    uint8_t x;
    if (byte_value(vm, argv[1], &x) < 0) return val_null();
    ByteArrayObj *b = BA(argv[0]);
    if (bytearray_resize(vm, b, b->len + 1) < 0) return val_null();
    b->data[b->len - 1] = x;
    return val_none();
}

static Value ba_extend(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    int64_t n;
    uint8_t *src;
    const uint8_t *d;
    if (bytes_view(vm, argv[1], &d, &n)) {
        src = malloc((size_t)n + 1);
        if (!src) return vm_no_memory(vm);
        memcpy(src, d, (size_t)n);
    } else {
        if (val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "expected iterable of integers; got: 'str'");
        TypeObj *t = vm_type_of(vm, argv[1]);
        if (val_is_null(type_special(vm, t, SP_ITER)) && val_is_null(type_special(vm, t, SP_GETITEM)))
            return vm_raise(vm, vm->e_TypeError, "can't extend bytearray with %s", t->name->data);
        src = ints_to_bytes(vm, argv[1], &n);
        if (!src) return val_null();
    }
    int rc = splice(vm, b, b->len, b->len, src, n);
    free(src);
    return rc < 0 ? val_null() : val_none();
}

static Value ba_insert(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    int64_t i;
    uint8_t x;
    if (vm_index(vm, argv[1], &i) < 0 || byte_value(vm, argv[2], &x) < 0) return val_null();
    if (i < 0) i = i + b->len < 0 ? 0 : i + b->len;
    if (i > b->len) i = b->len;
    return splice(vm, b, i, i, &x, 1) < 0 ? val_null() : val_none();
}

static Value ba_pop(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    int64_t i = -1;
    if (argc == 2 && vm_index(vm, argv[1], &i) < 0) return val_null();
    if (b->len == 0) return vm_raise(vm, vm->e_IndexError, "pop from empty bytearray");
    if (i < 0) i += b->len;
    if (i < 0 || i >= b->len) return vm_raise(vm, vm->e_IndexError, "pop index out of range");
    uint8_t x = b->data[i];
    if (splice(vm, b, i, i + 1, NULL, 0) < 0) return val_null();
    return val_int(x);
}

static Value ba_remove(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    uint8_t x;
    if (byte_value(vm, argv[1], &x) < 0) return val_null();
    uint8_t *p = b->len ? memchr(b->data, x, (size_t)b->len) : NULL;
    if (!p) return vm_raise(vm, vm->e_ValueError, "value not found in bytearray");
    int64_t i = p - b->data;
    return splice(vm, b, i, i + 1, NULL, 0) < 0 ? val_null() : val_none();
}

static Value ba_clear(ARGS) { return bytearray_resize(vm, BA(argv[0]), 0) < 0 ? val_null() : val_none(); }
static Value ba_copy(ARGS) { return bytearray_new(vm, vm->t_bytearray, BA(argv[0])->data, BA(argv[0])->len); }
static Value ba_reverse(ARGS) {
    ByteArrayObj *b = BA(argv[0]);
    for (int64_t i = 0, j = b->len - 1; i < j; i++, j--) {
        uint8_t t = b->data[i];
        b->data[i] = b->data[j];
        b->data[j] = t;
    }
    return val_none();
}

static Value ba_iadd(ARGS) {
    const uint8_t *d;
    int64_t n;
    if (!bytes_view(vm, argv[1], &d, &n))
        return vm_raise(vm, vm->e_TypeError, "can't concat %s to bytearray", vm_type_name(vm, argv[1]));
    ByteArrayObj *b = BA(argv[0]);
    if (splice(vm, b, b->len, b->len, d, n) < 0) return val_null();
    return argv[0];
}

static Value ba_imul(ARGS) {
    if (!bigint_check(vm, argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm->not_implemented;
    int64_t k;
    if (vm_index(vm, argv[1], &k) < 0) return val_null();
    ByteArrayObj *b = BA(argv[0]);
    int64_t n = b->len;
    if (k < 0) k = 0;
    if (n && k > (INT64_C(1) << 40) / n) return vm_no_memory(vm);
    if (bytearray_resize(vm, b, n * k) < 0) return val_null();
    for (int64_t i = 1; i < k; i++) memcpy(b->data + i * n, b->data, (size_t)n);
    return argv[0];
}

static Value ba_decode(ARGS) {
    BytesObj *tmp = bytes_new(vm, BA(argv[0])->data, BA(argv[0])->len);
    if (!tmp) return val_null();
    vm_push_root(vm, val_obj(tmp));
    Value meth = vm_getattr_c(vm, val_obj(tmp), "decode");
    Value r = val_is_null(meth) ? meth : vm_call(vm, meth, argc - 1, argv + 1, kw);
    vm_pop_root(vm);
    return r;
}

static Value ba_alloc_fn(ARGS) { return val_int(BA(argv[0])->cap + 1); }
static Value ba_sizeof(ARGS) { return val_int((int64_t)sizeof(ByteArrayObj) + (BA(argv[0])->data ? BA(argv[0])->cap + 1 : 0)); }

/* __reduce_ex__(proto): (type, (bytes,), dict) for protocol 3+, (type, (latin-1 str,
 * 'latin-1'), dict) before, as CPython */
static Value ba_reduce_ex(ARGS) {
    int64_t proto = 0;
    if (argc > 1 && vm_index(vm, argv[1], &proto) < 0) return val_null();
    ByteArrayObj *b = BA(argv[0]);
    Value args;
    if (proto < 3) {
        StrBuf sb;
        sb_init(&sb);
        for (int64_t i = 0; i < b->len; i++) {
            char buf[4];
            int k = utf8_encode(b->data[i], buf);
            sb_add(&sb, buf, k);
        }
        StrObj *s = sb_finish(vm, &sb);
        if (!s) return val_null();
        vm_push_root(vm, val_obj(s));
        TupleObj *t = tuple_pack(vm, 2, val_obj(s), vm_intern(vm, "latin-1"));
        vm_pop_root(vm);
        if (!t) return val_null();
        args = val_obj(t);
    } else {
        BytesObj *bs = bytes_new(vm, b->data, b->len);
        if (!bs) return val_null();
        vm_push_root(vm, val_obj(bs));
        TupleObj *t = tuple_pack(vm, 1, val_obj(bs));
        vm_pop_root(vm);
        if (!t) return val_null();
        args = val_obj(t);
    }
    vm_push_root(vm, args);
    Value st = b->dict && b->dict->used ? val_obj(b->dict) : val_none();
    TupleObj *r = tuple_pack(vm, 3, val_obj(vm_type_of(vm, argv[0])), args, st);
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}
static Value ba_reduce(ARGS) {
    Value a[2] = {argv[0], val_int(2)};
    return ba_reduce_ex(vm, 2, a, NULL, fn);
}

void bytearray_init_type(VM *vm) {
    static const MethodDef m[] = {
        {"__new__", ba_new, NATIVEF_STATIC}, {"__init__", ba_init, NATIVEF_METHOD},
        {"__repr__", ba_repr, NATIVEF_METHOD | ARITY_NOARGS}, {"__iter__", ba_iter, NATIVEF_METHOD | ARITY_NOARGS},
        {"__setitem__", ba_setitem, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"__delitem__", ba_delitem, NATIVEF_METHOD | ARITY_O},
        {"append", ba_append, NATIVEF_METHOD | ARITY_O}, {"extend", ba_extend, NATIVEF_METHOD | ARITY_O},
        {"insert", ba_insert, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"pop", ba_pop, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"remove", ba_remove, NATIVEF_METHOD | ARITY_O}, {"clear", ba_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"copy", ba_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"reverse", ba_reverse, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iadd__", ba_iadd, NATIVEF_METHOD | ARITY_O}, {"__imul__", ba_imul, NATIVEF_METHOD | ARITY_O},
        {"decode", ba_decode, NATIVEF_METHOD}, {"__alloc__", ba_alloc_fn, NATIVEF_METHOD | ARITY_NOARGS},
        {"__sizeof__", ba_sizeof, NATIVEF_METHOD | ARITY_NOARGS}, {"__reduce_ex__", ba_reduce_ex, NATIVEF_METHOD | ARITY_O},
        {"__reduce__", ba_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    TypeObj *t = vm->t_bytearray;
    t->trace = ba_trace;
    t->finalize = ba_finalize;
    t->alloc = ba_alloc;
    t->instance_size = sizeof(ByteArrayObj);
    if (type_add_methods(vm, t, m) < 0 || bytes_ops_register(vm, t) < 0 ||
        dict_set_c(vm, t->dict, "__hash__", val_none()) < 0)
        EM_UNREACHABLE();
}
