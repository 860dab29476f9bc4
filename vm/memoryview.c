/* vm/memoryview.c — memoryview over bytes, bytearray and other memoryviews: one-dimensional
 * views with CPython's struct formats for whole items ('B' by default; cast() to b/c/h/H/i/I/
 * l/L/q/Q/n/N/f/d/?), slicing with steps, item access and assignment (writable over a
 * bytearray), tobytes/tolist/hex/toreadonly, release() and the context manager, equality and
 * hashing as CPython; and bytes_view(), the byte access every bytes-like argument goes
 * through.  A view counts as an export of a bytearray (which then refuses to resize) until it
 * is released or collected; vm/gc.c asks memoryview_gc_sweep to drop the counts of views that
 * die unreleased. */
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/bytes_ops.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct MemViewObj {
    Obj hdr;
    Value base;            /* the exporter: bytes or bytearray */
    int64_t start;         /* byte offset of item 0 in the exporter */
    int64_t len;           /* items */
    int64_t step;          /* byte stride between items (itemsize for contiguous views) */
    int itemsize;
    char format[4];
    bool readonly, released, counted;
    struct MemViewObj *next_view;   /* the VM's list of views that count an export */
} MemViewObj;

#define MV(v) ((MemViewObj *)(v).as.o)


static void mv_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((MemViewObj *)o)->base); }

static bool is_bytearray(Value v) { return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_BYTEARRAY; }

/* The exporter's bytes. */
static uint8_t *base_data(Value base, int64_t *n) {
    if (is_bytearray(base)) {
        *n = ((ByteArrayObj *)base.as.o)->len;
        return ((ByteArrayObj *)base.as.o)->data;
    }
    *n = ((BytesObj *)base.as.o)->len;
    return ((BytesObj *)base.as.o)->data;
}

static void uncount(VM *vm, MemViewObj *m) {
    if (!m->counted) return;
    m->counted = false;
    if (is_bytearray(m->base)) ((ByteArrayObj *)m->base.as.o)->exports--;
    for (struct MemViewObj **p = (struct MemViewObj **)&vm->memviews; *p; p = &(*p)->next_view)
        if (*p == m) {
            *p = m->next_view;
            break;
        }
}

void memoryview_gc_sweep(VM *vm) {
    /* marking is done: a dying view whose exporter lives gives its export back */
    struct MemViewObj **p = (struct MemViewObj **)&vm->memviews;
    while (*p) {
        MemViewObj *m = *p;
        if (!m->hdr.marked) {
            if (is_bytearray(m->base) && m->base.as.o->marked) ((ByteArrayObj *)m->base.as.o)->exports--;
            m->counted = false;
            *p = m->next_view;
            continue;
        }
        p = &m->next_view;
    }
}

bool bytes_view(VM *vm, Value v, const uint8_t **data, int64_t *len) {
    if (v.tag != VAL_OBJ) return false;
    switch (v.as.o->type->layout) {
    case OBJ_LAYOUT_BYTES:
        *data = ((BytesObj *)v.as.o)->data;
        *len = ((BytesObj *)v.as.o)->len;
        return true;
    case OBJ_LAYOUT_BYTEARRAY:
        *data = ((ByteArrayObj *)v.as.o)->data ? ((ByteArrayObj *)v.as.o)->data : (const uint8_t *)"";
        *len = ((ByteArrayObj *)v.as.o)->len;
        return true;
    default:
        if (v.as.o->type == vm->t_memoryview) {
            MemViewObj *m = MV(v);
            if (m->released || m->step != m->itemsize) return false;
            int64_t n;
            uint8_t *d = base_data(m->base, &n);
            *data = d ? d + m->start : (const uint8_t *)"";
            *len = m->len * m->itemsize;
            return true;
        }
        return false;
    }
}

int bytes_view_arg(VM *vm, Value v, const uint8_t **data, int64_t *len) {
    if (bytes_view(vm, v, data, len)) return 0;
    if (v.tag == VAL_OBJ && v.as.o->type == vm->t_memoryview && MV(v)->released)
        vm_raise(vm, vm->e_ValueError, "operation forbidden on released memoryview object");
    else
        vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, v));
    return -1;
}

/* ---- items ---------------------------------------------------------------------------------------- */

static int format_size(const char *f) {
    switch (f[0]) {
    case 'B': case 'b': case 'c': case '?': return 1;
    case 'h': case 'H': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'q': case 'Q': case 'n': case 'N': case 'd': return 8;
    default: return 0;
    }
}

static Value unpack_item(VM *vm, const char *f, const uint8_t *p) {
    switch (f[0]) {
    case 'B': return val_int(*p);
    case 'b': return val_int((int8_t)*p);
    case 'c': {
        BytesObj *b = bytes_new(vm, p, 1);
        return b ? val_obj(b) : val_null();
    }
    case '?': return val_bool(*p != 0);
    case 'h': { int16_t x; memcpy(&x, p, 2); return val_int(x); }
    case 'H': { uint16_t x; memcpy(&x, p, 2); return val_int(x); }
    case 'i': { int32_t x; memcpy(&x, p, 4); return val_int(x); }
    case 'I': { uint32_t x; memcpy(&x, p, 4); return val_int(x); }
    case 'f': { float x; memcpy(&x, p, 4); return val_float(x); }
    case 'd': { double x; memcpy(&x, p, 8); return val_float(x); }
    case 'L': case 'Q': case 'N': { uint64_t x; memcpy(&x, p, 8); return bigint_from_u64(vm, x); }
    default: { int64_t x; memcpy(&x, p, 8); return val_int(x); }
    }
}

static int pack_item(VM *vm, const char *f, uint8_t *p, Value v) {
    if (f[0] == 'f' || f[0] == 'd') {
        double d;
        if (vm_to_double(vm, v, &d) < 0) {
            if (vm_exc_matches(vm, vm->e_TypeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "memoryview: invalid type for format '%s'", f);
            }
            return -1;
        }
        if (f[0] == 'f') {
            float x = (float)d;
            memcpy(p, &x, 4);
        } else {
            memcpy(p, &d, 8);
        }
        return 0;
    }
    if (f[0] == 'c') {
        const uint8_t *d;
        int64_t n;
        if (!bytes_view(vm, v, &d, &n) || n != 1) {
            vm_raise(vm, vm->e_ValueError, "memoryview: invalid value for format '%s'", f);
            return -1;
        }
        *p = d[0];
        return 0;
    }
    if (f[0] == '?') {
        int t = vm_truthy(vm, v);
        if (t < 0) return -1;
        *p = (uint8_t)t;
        return 0;
    }
    if (!bigint_check(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "memoryview: invalid type for format '%s'", f);
        return -1;
    }
    mpz_t z;
    mpz_init(z);
    bigint_load(v, z);
    int size = format_size(f);
    bool is_signed = f[0] == 'b' || f[0] == 'h' || f[0] == 'i' || f[0] == 'l' || f[0] == 'q' || f[0] == 'n';
    mpz_t lo, hi;
    mpz_inits(lo, hi, NULL);
    if (is_signed) {
        mpz_ui_pow_ui(hi, 2, (unsigned long)(8 * size - 1));
        mpz_neg(lo, hi);
    } else {
        mpz_ui_pow_ui(hi, 2, (unsigned long)(8 * size));
        mpz_set_ui(lo, 0);
    }
    bool ok = mpz_cmp(z, lo) >= 0 && mpz_cmp(z, hi) < 0;
    uint64_t bits = 0;
    if (ok) {
        if (mpz_sgn(z) < 0) mpz_add(z, z, hi), mpz_add(z, z, hi);   /* two's complement */
        bits = mpz_get_ui(z);
    }
    mpz_clears(z, lo, hi, NULL);
    if (!ok) {
        vm_raise(vm, vm->e_ValueError, "memoryview: invalid value for format '%s'", f);
        return -1;
    }
    memcpy(p, &bits, (size_t)size);   /* little-endian host */
    return 0;
}

static int check_live(VM *vm, MemViewObj *m) {
    if (!m->released) return 0;
    vm_raise(vm, vm->e_ValueError, "operation forbidden on released memoryview object");
    return -1;
}

/* ---- construction ------------------------------------------------------------------------------------ */

static Value view_of(VM *vm, Value base, int64_t start, int64_t len, int64_t step, int itemsize, const char *format,
                     bool readonly) {
    vm_push_root(vm, base);
    MemViewObj *m = gc_alloc(vm, vm->t_memoryview, sizeof(MemViewObj));
    vm_pop_root(vm);
    if (!m) return val_null();
    m->base = base;
    m->start = start;
    m->len = len;
    m->step = step;
    m->itemsize = itemsize;
    snprintf(m->format, sizeof m->format, "%s", format);
    m->readonly = readonly;
    if (is_bytearray(base)) {
        ((ByteArrayObj *)base.as.o)->exports++;
        m->counted = true;
        m->next_view = vm->memviews;
        vm->memviews = m;
    }
    return val_obj(m);
}

static Value mv_new(ARGS) {
    static const char *const names[] = {"cls", "object"};
    Value a[2];
    if (native_parse_args(vm, "memoryview", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    Value o = a[1];
    if (val_is_type(vm, o, vm->t_memoryview)) {
        MemViewObj *src = MV(o);
        if (check_live(vm, src) < 0) return val_null();
        return view_of(vm, src->base, src->start, src->len, src->step, src->itemsize, src->format, src->readonly);
    }
    if (o.tag == VAL_OBJ && o.as.o->type->layout == OBJ_LAYOUT_BYTES)
        return view_of(vm, o, 0, ((BytesObj *)o.as.o)->len, 1, 1, "B", true);
    if (is_bytearray(o)) return view_of(vm, o, 0, ((ByteArrayObj *)o.as.o)->len, 1, 1, "B", false);
    return vm_raise(vm, vm->e_TypeError, "memoryview: a bytes-like object is required, not '%s'", vm_type_name(vm, o));
}

/* ---- protocol -------------------------------------------------------------------------------------------- */

static Value mv_len(ARGS) {
    if (check_live(vm, MV(argv[0])) < 0) return val_null();
    return val_int(MV(argv[0])->len);
}

static Value mv_getitem(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, cnt;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, m->len, &start, &stop, &step, &cnt) < 0) return val_null();
        return view_of(vm, m->base, m->start + start * m->step, cnt, m->step * step, m->itemsize, m->format, m->readonly);
    }
    if (val_identical(argv[1], vm->ellipsis)) return argv[0];
    if (val_is_type(vm, argv[1], vm->t_tuple))
        return vm_raise(vm, vm->e_NotImplementedError, "multi-dimensional sub-views are not implemented");
    if (!bigint_check(vm, argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "memoryview: invalid slice key");
    int64_t i;
    if (seq_index(vm, argv[1], m->len, NULL, &i) < 0) {
        if (vm_exc_matches(vm, vm->e_IndexError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_IndexError, "index out of bounds on dimension 1");
        }
        return val_null();
    }
    int64_t n;
    uint8_t *d = base_data(m->base, &n);
    return unpack_item(vm, m->format, d + m->start + i * m->step);
}

static Value mv_setitem(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    if (m->readonly) return vm_raise(vm, vm->e_TypeError, "cannot modify read-only memory");
    int64_t n;
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, cnt;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, m->len, &start, &stop, &step, &cnt) < 0) return val_null();
        const uint8_t *src;
        int64_t sn;
        if (bytes_view_arg(vm, argv[2], &src, &sn) < 0) return val_null();
        if (sn != cnt * m->itemsize)
            return vm_raise(vm, vm->e_ValueError, "memoryview assignment: lvalue and rvalue have different structures");
        uint8_t *tmp = malloc((size_t)sn + 1);
        if (!tmp) return vm_no_memory(vm);
        memcpy(tmp, src, (size_t)sn);
        uint8_t *d = base_data(m->base, &n);
        for (int64_t i = 0; i < cnt; i++) memcpy(d + m->start + (start + i * step) * m->step, tmp + i * m->itemsize, (size_t)m->itemsize);
        free(tmp);
        return val_none();
    }
    int64_t i;
    if (seq_index(vm, argv[1], m->len, NULL, &i) < 0) {
        if (vm_exc_matches(vm, vm->e_IndexError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_IndexError, "index out of bounds on dimension 1");
        }
        return val_null();
    }
    uint8_t item[8];
    if (pack_item(vm, m->format, item, argv[2]) < 0) return val_null();
    uint8_t *d = base_data(m->base, &n);
    memcpy(d + m->start + i * m->step, item, (size_t)m->itemsize);
    return val_none();
}

/* The viewed bytes, in order, into a malloc'd buffer. */
static uint8_t *gather(VM *vm, MemViewObj *m, int64_t *nbytes) {
    int64_t n;
    uint8_t *d = base_data(m->base, &n);
    *nbytes = m->len * m->itemsize;
    uint8_t *out = malloc((size_t)*nbytes + 1);
    if (!out) {
        vm_no_memory(vm);
        return NULL;
    }
    for (int64_t i = 0; i < m->len; i++) memcpy(out + i * m->itemsize, d + m->start + i * m->step, (size_t)m->itemsize);
    return out;
}

static Value mv_tobytes(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    int64_t nb;
    uint8_t *b = gather(vm, m, &nb);
    if (!b) return val_null();
    BytesObj *r = bytes_new(vm, b, nb);
    free(b);
    return r ? val_obj(r) : val_null();
}

static Value mv_tolist(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    ListObj *l = list_new(vm, m->len);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < m->len; i++) {
        int64_t n;
        uint8_t *d = base_data(m->base, &n);
        Value v = unpack_item(vm, m->format, d + m->start + i * m->step);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(l);
}

static Value mv_hex(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    int64_t nb;
    uint8_t *b = gather(vm, m, &nb);
    if (!b) return val_null();
    BytesObj *tmp = bytes_new(vm, b, nb);
    free(b);
    if (!tmp) return val_null();
    vm_push_root(vm, val_obj(tmp));
    Value meth = vm_getattr_c(vm, val_obj(tmp), "hex");
    Value r = val_is_null(meth) ? meth : vm_call(vm, meth, argc - 1, argv + 1, kw);
    vm_pop_root(vm);
    return r;
}

static Value mv_release(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (!m->released) {
        uncount(vm, m);
        m->released = true;
    }
    return val_none();
}
static Value mv_enter(ARGS) {
    if (check_live(vm, MV(argv[0])) < 0) return val_null();
    return argv[0];
}
static Value mv_exit(ARGS) { return mv_release(vm, 1, argv, NULL, fn); }

static Value mv_toreadonly(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    return view_of(vm, m->base, m->start, m->len, m->step, m->itemsize, m->format, true);
}

/* cast(format[, shape]): one-dimensional casts of a contiguous view */
static Value mv_cast(ARGS) {
    static const char *const names[] = {"self", "format", "shape"};
    Value a[3];
    if (native_parse_args(vm, "cast", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    MemViewObj *m = MV(a[0]);
    if (check_live(vm, m) < 0) return val_null();
    if (!val_is_str(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "memoryview: format argument must be a string");
    const char *f = AS_STR(a[1])->data;
    if (f[0] == '@') f++;
    int size = strlen(f) == 1 ? format_size(f) : 0;
    if (!size)
        return vm_raise(vm, vm->e_ValueError,
                        "memoryview: destination format must be a native single character format prefixed with an optional '@'");
    if (m->step != m->itemsize) return vm_raise(vm, vm->e_TypeError, "memoryview: casts are restricted to C-contiguous views");
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        int64_t k = vm_len(vm, a[2]);
        if (k < 0) return val_null();
        if (k != 1) return vm_raise(vm, vm->e_NotImplementedError, "memoryview: multi-dimensional casts are not implemented");
    }
    if (m->itemsize != 1 && size != 1)
        return vm_raise(vm, vm->e_TypeError, "memoryview: cannot cast between two non-byte formats");
    int64_t nbytes = m->len * m->itemsize;
    if (nbytes % size) return vm_raise(vm, vm->e_TypeError, "memoryview: length is not a multiple of itemsize");
    return view_of(vm, m->base, m->start, nbytes / size, size, size, f, m->readonly);
}

static Value mv_eq(ARGS) {
    bool ne = fn->data != NULL;
    MemViewObj *m = MV(argv[0]);
    if (val_identical(argv[0], argv[1])) return val_bool(!ne && !m->released);
    const uint8_t *od;
    int64_t on;
    if (m->released || !bytes_view(vm, argv[1], &od, &on)) {
        if (m->released || (val_is_type(vm, argv[1], vm->t_memoryview) && MV(argv[1])->released)) return val_bool(ne);
        return vm->not_implemented;
    }
    /* both as lists of values when formats differ, else byte-wise */
    if (val_is_type(vm, argv[1], vm->t_memoryview) && strcmp(MV(argv[1])->format, m->format) != 0) {
        Value la = mv_tolist(vm, 1, argv, NULL, fn);
        if (val_is_null(la)) return la;
        vm_push_root(vm, la);
        Value lb = mv_tolist(vm, 1, &argv[1], NULL, fn);
        vm_pop_root(vm);
        if (val_is_null(lb)) return lb;
        vm_push_root(vm, la);
        int eq = vm_eq(vm, la, lb);
        vm_pop_root(vm);
        return eq < 0 ? val_null() : val_bool(ne ? !eq : eq);
    }
    int64_t nb;
    uint8_t *b = gather(vm, m, &nb);
    if (!b) return val_null();
    bytes_view(vm, argv[1], &od, &on);
    bool eq = nb == on && (nb == 0 || memcmp(b, od, (size_t)nb) == 0);
    free(b);
    return val_bool(ne ? !eq : eq);
}

static Value mv_hash(ARGS) {
    MemViewObj *m = MV(argv[0]);
    if (check_live(vm, m) < 0) return val_null();
    if (!m->readonly) return vm_raise(vm, vm->e_ValueError, "cannot hash writable memoryview object");
    if (strcmp(m->format, "B") && strcmp(m->format, "b") && strcmp(m->format, "c"))
        return vm_raise(vm, vm->e_ValueError, "memoryview: hashing is restricted to formats 'B', 'b' or 'c'");
    int64_t nb;
    uint8_t *b = gather(vm, m, &nb);
    if (!b) return val_null();
    int64_t h = hash_bytes(b, nb);
    free(b);
    return val_int(h);
}

static Value mv_repr(ARGS) {
    StrObj *s = str_printf(vm, "<%smemory at %p>", MV(argv[0])->released ? "released " : "", (void *)argv[0].as.o);
    return s ? val_obj(s) : val_null();
}

static Value mv_iter(ARGS) {
    Value l = mv_tolist(vm, argc, argv, kw, fn);
    if (val_is_null(l)) return l;
    vm_push_root(vm, l);
    Value it = vm_iter(vm, l);
    vm_pop_root(vm);
    return it;
}

#define MVG(name) static Value mv_get_##name(VM *vm, Value s, void *c)
#define LIVE if (check_live(vm, MV(s)) < 0) return val_null()
MVG(obj) { LIVE; return MV(s)->base; }
MVG(nbytes) { LIVE; return val_int(MV(s)->len * MV(s)->itemsize); }
MVG(readonly) { LIVE; return val_bool(MV(s)->readonly); }
MVG(itemsize) { LIVE; return val_int(MV(s)->itemsize); }
MVG(format) { LIVE; return vm_intern(vm, MV(s)->format); }
MVG(ndim) { LIVE; return val_int(1); }
MVG(shape) {
    LIVE;
    TupleObj *t = tuple_pack(vm, 1, val_int(MV(s)->len));
    return t ? val_obj(t) : val_null();
}
MVG(strides) {
    LIVE;
    TupleObj *t = tuple_pack(vm, 1, val_int(MV(s)->step));
    return t ? val_obj(t) : val_null();
}
MVG(suboffsets) { LIVE; return val_obj(vm->empty_tuple); }
MVG(contiguous) { LIVE; return val_bool(MV(s)->step == MV(s)->itemsize || MV(s)->len <= 1); }
MVG(released) { return val_bool(MV(s)->released); }
#undef LIVE
#undef MVG

void memoryview_init_type(VM *vm) {
    static const MethodDef m[] = {
        {"__new__", mv_new, NATIVEF_STATIC}, {"__len__", mv_len, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getitem__", mv_getitem, NATIVEF_METHOD | ARITY_O}, {"__setitem__", mv_setitem, NATIVEF_METHOD | ARITY_POS(2, 2)},
        {"tobytes", mv_tobytes, NATIVEF_METHOD}, {"tolist", mv_tolist, NATIVEF_METHOD | ARITY_NOARGS},
        {"hex", mv_hex, NATIVEF_METHOD}, {"release", mv_release, NATIVEF_METHOD | ARITY_NOARGS},
        {"__enter__", mv_enter, NATIVEF_METHOD | ARITY_NOARGS}, {"__exit__", mv_exit, NATIVEF_METHOD},
        {"toreadonly", mv_toreadonly, NATIVEF_METHOD | ARITY_NOARGS}, {"cast", mv_cast, NATIVEF_METHOD},
        {"__eq__", mv_eq, NATIVEF_METHOD | ARITY_O, NULL}, {"__ne__", mv_eq, NATIVEF_METHOD | ARITY_O, (void *)1},
        {"__hash__", mv_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__repr__", mv_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__iter__", mv_iter, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef gs[] = {
        {"obj", mv_get_obj, NULL}, {"nbytes", mv_get_nbytes, NULL}, {"readonly", mv_get_readonly, NULL},
        {"itemsize", mv_get_itemsize, NULL}, {"format", mv_get_format, NULL}, {"ndim", mv_get_ndim, NULL},
        {"shape", mv_get_shape, NULL}, {"strides", mv_get_strides, NULL}, {"suboffsets", mv_get_suboffsets, NULL},
        {"c_contiguous", mv_get_contiguous, NULL}, {"f_contiguous", mv_get_contiguous, NULL},
        {"contiguous", mv_get_contiguous, NULL}, {"released", mv_get_released, NULL}, {NULL}};
    vm->t_memoryview->trace = mv_trace;
    if (type_add_methods(vm, vm->t_memoryview, m) < 0 || type_add_getsets(vm, vm->t_memoryview, gs) < 0)
        EM_UNREACHABLE();
}
