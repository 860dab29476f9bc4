/* vm/bytes.c — the script-visible methods of bytes: construction, indexing and slicing,
 * comparison, concatenation and repetition, membership, decode, and the searching/splitting
 * methods scripts use on byte strings.  The object itself is in vm/str.c. */
#include <ctype.h>
#include <string.h>

#include "vm/codecs.h"
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

/* A bytes argument, or TypeError "a bytes-like object is required, not 'X'". */
static BytesObj *arg_bytes(VM *vm, Value v) {
    if (is_bytes(vm, v)) return (BytesObj *)v.as.o;
    vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, v));
    return NULL;
}

static int64_t find_sub(const uint8_t *h, int64_t hn, const uint8_t *n, int64_t nn, bool reverse) {
    if (nn > hn) return -1;
    if (!reverse) {
        if (nn == 0) return 0;
        const void *p = memmem(h, (size_t)hn, n, (size_t)nn);
        return p ? (const uint8_t *)p - h : -1;
    }
    for (int64_t i = hn - nn; i >= 0; i--)
        if (memcmp(h + i, n, (size_t)nn) == 0) return i;
    return -1;
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

static Value b_repr(ARGS) {
    StrObj *s = bytes_repr(vm, BSELF);
    return s ? val_obj(s) : val_null();
}
static Value b_len(ARGS) { return val_int(BSELF->len); }

static Value b_getitem(ARGS) {
    BytesObj *b = BSELF;
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, n;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, b->len, &start, &stop, &step, &n) < 0) return val_null();
        BytesObj *r = bytes_new(vm, NULL, n);
        if (!r) return val_null();
        for (int64_t i = 0; i < n; i++) r->data[i] = BSELF->data[start + i * step];
        return val_obj(r);
    }
    int64_t i;
    if (seq_index(vm, argv[1], b->len, NULL, &i) < 0) return val_null();
    return val_int(b->data[i]);
}

/* __eq__ ... __ge__: data is a CompareOp. */
static Value b_cmp(ARGS) {
    if (!is_bytes(vm, argv[1])) return vm->not_implemented;
    BytesObj *a = BSELF, *c = (BytesObj *)argv[1].as.o;
    int64_t n = a->len < c->len ? a->len : c->len;
    int r = memcmp(a->data, c->data, (size_t)n);
    if (r == 0) r = a->len < c->len ? -1 : a->len > c->len;
    switch ((CompareOp)(intptr_t)fn->data) {
    case CMP_LT: return val_bool(r < 0);
    case CMP_LE: return val_bool(r <= 0);
    case CMP_EQ: return val_bool(r == 0);
    case CMP_NE: return val_bool(r != 0);
    case CMP_GT: return val_bool(r > 0);
    default: return val_bool(r >= 0);
    }
}

static Value b_hash(ARGS) { return val_int(hash_bytes(BSELF->data, BSELF->len)); }

static Value b_add(ARGS) {
    if (!is_bytes(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "can't concat %s to bytes", vm_type_name(vm, argv[1]));
    int64_t na = BSELF->len, nc = ((BytesObj *)argv[1].as.o)->len;
    BytesObj *r = bytes_new(vm, NULL, na + nc);
    if (!r) return val_null();
    memcpy(r->data, BSELF->data, (size_t)na);
    memcpy(r->data + na, ((BytesObj *)argv[1].as.o)->data, (size_t)nc);
    return val_obj(r);
}

static Value b_mul(ARGS) {
    if (!val_is_intlike(argv[1])) return vm->not_implemented;
    int64_t k = val_as_intlike(argv[1]), n = BSELF->len;
    if (k < 0) k = 0;
    if (n && k > (INT64_C(1) << 40) / n) return vm_no_memory(vm);
    BytesObj *r = bytes_new(vm, NULL, n * k);
    if (!r) return val_null();
    for (int64_t i = 0; i < k; i++) memcpy(r->data + i * n, BSELF->data, (size_t)n);
    return val_obj(r);
}

static Value b_contains(ARGS) {
    BytesObj *b = BSELF;
    if (val_is_intlike(argv[1])) {
        int64_t v = val_as_intlike(argv[1]);
        if (v < 0 || v > 255) return vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        return val_bool(b->len && memchr(b->data, (int)v, (size_t)b->len) != NULL);
    }
    BytesObj *sub = arg_bytes(vm, argv[1]);
    if (!sub) return val_null();
    return val_bool(find_sub(b->data, b->len, sub->data, sub->len, false) >= 0);
}

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

static Value b_join(ARGS) {
    if (native_check_args(vm, "bytes.join", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = vm_list_from_iterable(vm, argv[1]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int64_t total = 0, sep = BSELF->len;
    for (int64_t i = 0; i < l->len; i++) {
        if (!is_bytes(vm, l->items[i])) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "sequence item %lld: expected a bytes-like object, %s found",
                            (long long)i, vm_type_name(vm, l->items[i]));
        }
        total += ((BytesObj *)l->items[i].as.o)->len + (i ? sep : 0);
    }
    BytesObj *r = bytes_new(vm, NULL, total);
    vm_pop_root(vm);
    if (!r) return val_null();
    int64_t k = 0;
    for (int64_t i = 0; i < l->len; i++) {
        if (i) {
            memcpy(r->data + k, BSELF->data, (size_t)sep);
            k += sep;
        }
        BytesObj *it = (BytesObj *)l->items[i].as.o;
        memcpy(r->data + k, it->data, (size_t)it->len);
        k += it->len;
    }
    return val_obj(r);
}

static Value b_split(ARGS) {
    static const char *const names[] = {"self", "sep", "maxsplit"};
    Value a[3];
    if (native_parse_args(vm, "split", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    int64_t maxsplit = val_is_null(a[2]) ? -1 : val_as_intlike(a[2]);
    BytesObj *sep = NULL;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        sep = arg_bytes(vm, a[1]);
        if (!sep) return val_null();
        if (sep->len == 0) return vm_raise(vm, vm->e_ValueError, "empty separator");
    }
    ListObj *out = list_new(vm, 0);
    if (!out) return val_null();
    vm_push_root(vm, val_obj(out));
    BytesObj *b = BSELF;
    int64_t i = 0, n = b->len, count = 0;
    int rc = 0;
    while (rc == 0) {
        int64_t start, end;
        if (sep) {
            start = i;
            int64_t r = (maxsplit >= 0 && count >= maxsplit) ? -1 : find_sub(b->data + i, n - i, sep->data, sep->len, false);
            end = r < 0 ? n : i + r;
            BytesObj *piece = bytes_new(vm, BSELF->data + start, end - start);
            rc = piece ? list_append(vm, out, val_obj(piece)) : -1;
            if (r < 0) break;
            i = end + sep->len;
        } else {
            while (i < n && isspace(b->data[i])) i++;
            if (i >= n) break;
            start = i;
            if (maxsplit >= 0 && count >= maxsplit) {
                end = n;
                while (end > start && isspace(b->data[end - 1])) end--;
            } else {
                while (i < n && !isspace(b->data[i])) i++;
                end = i;
            }
            BytesObj *piece = bytes_new(vm, BSELF->data + start, end - start);
            rc = piece ? list_append(vm, out, val_obj(piece)) : -1;
            if (end == n || (maxsplit >= 0 && count >= maxsplit)) break;
        }
        count++;
        b = BSELF;
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(out);
}

/* startswith/endswith (data: 0/1) with a bytes or a tuple of bytes. */
static Value b_affix(ARGS) {
    bool end = fn->data != NULL;
    if (native_check_args(vm, end ? "endswith" : "startswith", argc, kw, 2, 2) < 0) return val_null();
    Value *items = &argv[1];
    int64_t n = 1;
    if (val_is_type(vm, argv[1], vm->t_tuple)) {
        items = AS_TUPLE(argv[1])->items;
        n = AS_TUPLE(argv[1])->len;
    }
    BytesObj *b = BSELF;
    for (int64_t i = 0; i < n; i++) {
        if (!is_bytes(vm, items[i]))
            return vm_raise(vm, vm->e_TypeError, "%s first arg must be bytes or a tuple of bytes, not %s",
                            end ? "endswith" : "startswith", vm_type_name(vm, items[i]));
        BytesObj *x = (BytesObj *)items[i].as.o;
        if (x->len <= b->len && memcmp(b->data + (end ? b->len - x->len : 0), x->data, (size_t)x->len) == 0)
            return val_bool(true);
    }
    return val_bool(false);
}

/* find/index/count (data: 0 find, 1 index, 2 count). */
static Value b_find(ARGS) {
    int kind = (int)(intptr_t)fn->data;
    static const char *const fnames[] = {"find", "index", "count"};
    if (native_check_args(vm, fnames[kind], argc, kw, 2, 2) < 0) return val_null();
    BytesObj *b = BSELF;
    uint8_t one;
    const uint8_t *sub;
    int64_t sn;
    if (val_is_intlike(argv[1])) {
        int64_t v = val_as_intlike(argv[1]);
        if (v < 0 || v > 255) return vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        one = (uint8_t)v;
        sub = &one;
        sn = 1;
    } else {
        BytesObj *s = arg_bytes(vm, argv[1]);
        if (!s) return val_null();
        sub = s->data;
        sn = s->len;
    }
    if (kind == 2) {
        if (sn == 0) return val_int(b->len + 1);
        int64_t c = 0, i = 0, r;
        while ((r = find_sub(b->data + i, b->len - i, sub, sn, false)) >= 0) {
            c++;
            i += r + sn;
        }
        return val_int(c);
    }
    int64_t r = find_sub(b->data, b->len, sub, sn, false);
    if (r < 0 && kind == 1) return vm_raise(vm, vm->e_ValueError, "subsection not found");
    return val_int(r);
}

static Value b_replace(ARGS) {
    if (native_check_args(vm, "replace", argc, kw, 3, 3) < 0) return val_null();
    BytesObj *old = arg_bytes(vm, argv[1]), *new_ = old ? arg_bytes(vm, argv[2]) : NULL;
    if (!new_) return val_null();
    BytesObj *b = BSELF;
    StrBuf sb;
    sb_init(&sb);
    int64_t i = 0;
    while (i <= b->len) {
        int64_t r = old->len ? find_sub(b->data + i, b->len - i, old->data, old->len, false) : (i < b->len ? 0 : -1);
        if (r < 0) break;
        sb_add(&sb, (const char *)b->data + i, r);
        sb_add(&sb, (const char *)new_->data, new_->len);
        if (old->len) {
            i += r + old->len;
        } else {
            if (i < b->len) sb_add(&sb, (const char *)b->data + i, 1);
            i++;
        }
    }
    if (i < b->len) sb_add(&sb, (const char *)b->data + i, b->len - i);
    if (old->len == 0 && b->len == 0) sb_add(&sb, (const char *)new_->data, new_->len);
    BytesObj *r = bytes_new(vm, (const uint8_t *)(sb.data ? sb.data : ""), sb.len);
    sb_free(&sb);
    return bval(r);
}

/* strip/lstrip/rstrip (data: 3 both, 1 left, 2 right). */
static Value b_strip(ARGS) {
    int which = (int)(intptr_t)fn->data;
    if (native_check_args(vm, which == 3 ? "strip" : which == 1 ? "lstrip" : "rstrip", argc, kw, 1, 2) < 0)
        return val_null();
    BytesObj *chars = NULL;
    if (argc == 2 && !val_is_none(argv[1])) {
        chars = arg_bytes(vm, argv[1]);
        if (!chars) return val_null();
    }
    BytesObj *b = BSELF;
    int64_t s = 0, e = b->len;
#define STRIPPED(c) (chars ? memchr(chars->data, (c), (size_t)chars->len) != NULL : isspace(c))
    if (which & 1)
        while (s < e && STRIPPED(b->data[s])) s++;
    if (which & 2)
        while (e > s && STRIPPED(b->data[e - 1])) e--;
#undef STRIPPED
    return bval(bytes_new(vm, b->data + s, e - s));
}

/* upper/lower (data: 0/1), ASCII only as CPython's bytes methods. */
static Value b_case(ARGS) {
    bool lower = fn->data != NULL;
    if (native_check_args(vm, lower ? "lower" : "upper", argc, kw, 1, 1) < 0) return val_null();
    BytesObj *r = bytes_new(vm, BSELF->data, BSELF->len);
    if (!r) return val_null();
    for (int64_t i = 0; i < r->len; i++)
        r->data[i] = (uint8_t)(lower ? tolower(r->data[i]) : toupper(r->data[i]));
    return val_obj(r);
}

static Value b_hex(ARGS) {
    if (native_check_args(vm, "hex", argc, kw, 1, 1) < 0) return val_null();
    StrBuf sb;
    sb_init(&sb);
    for (int64_t i = 0; i < BSELF->len; i++) sb_printf(&sb, "%02x", BSELF->data[i]);
    StrObj *s = sb_finish(vm, &sb);
    return s ? val_obj(s) : val_null();
}

void bytes_init_type(VM *vm) {
#define BCMP(n, op) {n, b_cmp, NATIVEF_METHOD, (void *)(intptr_t)(op)}
    static const MethodDef bm[] = {
        {"__new__", b_new, NATIVEF_STATIC}, {"__repr__", b_repr, NATIVEF_METHOD}, {"__len__", b_len, NATIVEF_METHOD},
        {"__getitem__", b_getitem, NATIVEF_METHOD}, BCMP("__eq__", CMP_EQ), BCMP("__ne__", CMP_NE),
        BCMP("__lt__", CMP_LT), BCMP("__le__", CMP_LE), BCMP("__gt__", CMP_GT), BCMP("__ge__", CMP_GE),
        {"__hash__", b_hash, NATIVEF_METHOD}, {"__add__", b_add, NATIVEF_METHOD},
        {"__mul__", b_mul, NATIVEF_METHOD}, {"__rmul__", b_mul, NATIVEF_METHOD},
        {"__contains__", b_contains, NATIVEF_METHOD}, {"__iter__", b_iter, NATIVEF_METHOD},
        {"decode", b_decode, NATIVEF_METHOD}, {"join", b_join, NATIVEF_METHOD | ARITY_O}, {"split", b_split, NATIVEF_METHOD},
        {"startswith", b_affix, NATIVEF_METHOD | ARITY_O, NULL}, {"endswith", b_affix, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"find", b_find, NATIVEF_METHOD | ARITY_O, (void *)0}, {"index", b_find, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"count", b_find, NATIVEF_METHOD | ARITY_O, (void *)2}, {"replace", b_replace, NATIVEF_METHOD | ARITY_POS(2, 2)},
        {"strip", b_strip, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)3}, {"lstrip", b_strip, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)1},
        {"rstrip", b_strip, NATIVEF_METHOD | ARITY_POS(0, 1), (void *)2}, {"upper", b_case, NATIVEF_METHOD | ARITY_NOARGS, NULL},
        {"lower", b_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)1}, {"hex", b_hex, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
#undef BCMP
    if (type_add_methods(vm, vm->t_bytes, bm) < 0) EM_UNREACHABLE();
}
