/* src/ffi/cdata.c — ctypes' object model: the StgInfo type description, the six metaclasses,
 * the _CData base (memory ownership, keep-alives), the simple types (c_int, c_double,
 * c_char_p, ...) with their conversions by _type_ code, byref() arguments, and the module
 * functions on memory (sizeof, alignment, addressof, byref, cast, memmove, memset, string_at).
 * Structures live in cstruct.c, arrays and pointers in carray.c, functions in cfunc.c. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "src/ffi/ctypes.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- StgInfo ------------------------------------------------------------------------------ */

static void stg_trace(VM *vm, Obj *o) {
    StgInfo *s = (StgInfo *)o;
    gc_mark_value(vm, s->proto);
    gc_mark(vm, s->fields);
    gc_mark_value(vm, s->pointer_type);
    gc_mark(vm, s->array_types);
    gc_mark_value(vm, s->argtypes);
    gc_mark_value(vm, s->restype);
}

static void stg_finalize(VM *vm, Obj *o) {
    StgInfo *s = (StgInfo *)o;
    free(s->ffi_elements);
    s->ffi_elements = NULL;
}

StgInfo *stg_new(VM *vm, CKind kind) {
    StgInfo *s = gc_alloc(vm, ffi_state(vm)->t_stginfo, sizeof(StgInfo));
    if (!s) return NULL;
    s->kind = kind;
    s->proto = s->pointer_type = s->argtypes = s->restype = val_null();
    s->align = 1;
    return s;
}

StgInfo *stg_require(VM *vm, Value type, const char *what) {
    StgInfo *s = stg_of_type(vm, type);
    if (!s) vm_raise(vm, vm->e_TypeError, "%s", what);
    return s;
}

/* Classes get their StgInfo from their base's __init_subclass__; the metaclass traces it. */
static void meta_trace(VM *vm, Obj *o) {
    vm->t_type->trace(vm, o);
    gc_mark(vm, ((TypeObj *)o)->native_data);
}

const char *ct_type_name(VM *vm, Value v) { return vm_type_name(vm, v); }

/* ---- simple types: conversions by _type_ code --------------------------------------------- */

typedef struct SimpleDesc {
    char code;
    int64_t size, align;
    ffi_type *ffi;
} SimpleDesc;

static const SimpleDesc simple_descs[] = {
    {'c', 1, 1, &ffi_type_schar},
    {'b', 1, 1, &ffi_type_sint8},
    {'B', 1, 1, &ffi_type_uint8},
    {'h', sizeof(short), _Alignof(short), &ffi_type_sshort},
    {'H', sizeof(short), _Alignof(short), &ffi_type_ushort},
    {'i', sizeof(int), _Alignof(int), &ffi_type_sint},
    {'I', sizeof(int), _Alignof(int), &ffi_type_uint},
    {'l', sizeof(long), _Alignof(long), &ffi_type_slong},
    {'L', sizeof(long), _Alignof(long), &ffi_type_ulong},
    {'q', sizeof(long long), _Alignof(long long), &ffi_type_sint64},
    {'Q', sizeof(long long), _Alignof(long long), &ffi_type_uint64},
    {'f', sizeof(float), _Alignof(float), &ffi_type_float},
    {'d', sizeof(double), _Alignof(double), &ffi_type_double},
    {'g', sizeof(long double), _Alignof(long double), &ffi_type_longdouble},
    {'?', sizeof(_Bool), _Alignof(_Bool), &ffi_type_uint8},
    {'z', sizeof(char *), _Alignof(char *), &ffi_type_pointer},
    {'Z', sizeof(wchar_t *), _Alignof(wchar_t *), &ffi_type_pointer},
    {'P', sizeof(void *), _Alignof(void *), &ffi_type_pointer},
    {'u', sizeof(wchar_t), _Alignof(wchar_t), &ffi_type_sint32},
};

static const SimpleDesc *simple_desc(char code) {
    /* on the call path (argument and result conversion): an index, not a search */
    static int8_t index[128];
    static bool ready;
    if (!ready) {
        memset(index, -1, sizeof index);
        for (size_t i = 0; i < sizeof simple_descs / sizeof simple_descs[0]; i++)
            index[(int)simple_descs[i].code] = (int8_t)i;
        ready = true;
    }
    int i = (unsigned char)code < 128 ? index[(int)code] : -1;
    return i < 0 ? NULL : &simple_descs[i];
}

int64_t simple_size(char code) { return simple_desc(code)->size; }
ffi_type *simple_ffi(char code) { return simple_desc(code)->ffi; }


Value simple_get(VM *vm, char code, const void *p) {
    switch (code) {
    case 'c': {
        uint8_t b = *(const uint8_t *)p;
        BytesObj *r = bytes_new(vm, &b, 1);
        return r ? val_obj(r) : val_null();
    }
    case 'b': return val_int(*(const int8_t *)p);
    case 'B': return val_int(*(const uint8_t *)p);
    case 'h': return val_int(*(const short *)p);
    case 'H': return val_int(*(const unsigned short *)p);
    case 'i': return val_int(*(const int *)p);
    case 'I': return val_int(*(const unsigned int *)p);
    case 'l': return val_int(*(const long *)p);
    case 'q': return val_int(*(const long long *)p);
    case 'L':
    case 'Q': {
        unsigned long long u = code == 'L' ? *(const unsigned long *)p : *(const unsigned long long *)p;
        if (u > INT64_MAX)
            return vm_raise(vm, vm->e_OverflowError, "unsigned value %llu does not fit in Ember's 64-bit int", u);
        return val_int((int64_t)u);
    }
    case 'f': return val_float(*(const float *)p);
    case 'd': return val_float(*(const double *)p);
    case 'g': return val_float((double)*(const long double *)p);
    case '?': return val_bool(*(const _Bool *)p);
    case 'P': {
        void *a = *(void *const *)p;
        return a ? val_int((int64_t)(uintptr_t)a) : val_none();
    }
    case 'z': {
        const char *s = *(const char *const *)p;
        if (!s) return val_none();
        BytesObj *r = bytes_new(vm, (const uint8_t *)s, (int64_t)strlen(s));
        return r ? val_obj(r) : val_null();
    }
    case 'u':
    case 'Z': {
        const wchar_t *w = code == 'u' ? (const wchar_t *)p : *(const wchar_t *const *)p;
        if (!w) return val_none();
        size_t n = code == 'u' ? 1 : wcslen(w);
        StrBuf b;
        sb_init(&b);
        for (size_t i = 0; i < n; i++) {
            char enc[4];
            uint32_t cp = (uint32_t)w[i];
            if (cp > 0x10FFFF) cp = 0xFFFD;
            sb_add(&b, enc, utf8_encode(cp, enc));
        }
        StrObj *s = sb_finish(vm, &b);
        return s ? val_obj(s) : val_null();
    }
    default: EM_UNREACHABLE();
    }
}

/* A str as a NUL-terminated wchar_t array inside a new bytes object (kept alive by the caller). */
static BytesObj *wide_buffer(VM *vm, StrObj *s) {
    int64_t n = s->ncp;
    BytesObj *b = bytes_new(vm, NULL, (n + 1) * (int64_t)sizeof(wchar_t));
    if (!b) return NULL;
    wchar_t *w = (wchar_t *)b->data;
    int64_t pos = 0, i = 0;
    while (pos < s->len) w[i++] = (wchar_t)utf8_decode(s->data, s->len, &pos);
    w[i] = 0;
    return b;
}

int simple_set(VM *vm, char code, void *p, Value v, Value *keep) {
    *keep = val_null();
    switch (code) {
    case 'b': case 'B': case 'h': case 'H': case 'i': case 'I': case 'l': case 'L': case 'q': case 'Q': {
        int64_t x;
        if (val_is_float(v)) {
            vm_raise(vm, vm->e_TypeError, "'float' object cannot be interpreted as an integer");
            return -1;
        }
        if (vm_index(vm, v, &x) < 0) return -1;
        switch (code) {
        case 'b': *(int8_t *)p = (int8_t)x; break;
        case 'B': *(uint8_t *)p = (uint8_t)x; break;
        case 'h': *(short *)p = (short)x; break;
        case 'H': *(unsigned short *)p = (unsigned short)x; break;
        case 'i': *(int *)p = (int)x; break;
        case 'I': *(unsigned int *)p = (unsigned int)x; break;
        case 'l': *(long *)p = (long)x; break;
        case 'L': *(unsigned long *)p = (unsigned long)x; break;
        case 'q': *(long long *)p = (long long)x; break;
        default: *(unsigned long long *)p = (unsigned long long)x; break;
        }
        return 0;
    }
    case 'f': case 'd': case 'g': {
        double d;
        if (vm_to_double(vm, v, &d) < 0) return -1;
        if (code == 'f') *(float *)p = (float)d;
        else if (code == 'd') *(double *)p = d;
        else *(long double *)p = d;
        return 0;
    }
    case '?': {
        int t = vm_truthy(vm, v);
        if (t < 0) return -1;
        *(_Bool *)p = t;
        return 0;
    }
    case 'c': {
        if (val_is_type(vm, v, vm->t_bytes) && ((BytesObj *)v.as.o)->len == 1) {
            *(char *)p = (char)((BytesObj *)v.as.o)->data[0];
            return 0;
        }
        if (val_is_int(v) && v.as.i >= 0 && v.as.i < 256) {
            *(char *)p = (char)v.as.i;
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "one character bytes, bytearray or integer expected");
        return -1;
    }
    case 'u': {
        if (val_is_str(vm, v) && AS_STR(v)->ncp == 1) {
            int64_t pos = 0;
            *(wchar_t *)p = (wchar_t)utf8_decode(AS_STR(v)->data, AS_STR(v)->len, &pos);
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "one character unicode string expected");
        return -1;
    }
    case 'z': {
        if (val_is_none(v)) {
            *(char **)p = NULL;
            return 0;
        }
        if (val_is_type(vm, v, vm->t_bytes)) {
            *(char **)p = (char *)((BytesObj *)v.as.o)->data;
            *keep = v;
            return 0;
        }
        if (val_is_int(v)) {
            *(char **)p = (char *)(uintptr_t)v.as.i;
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "bytes or integer address expected instead of %s instance",
                 vm_type_name(vm, v));
        return -1;
    }
    case 'Z': {
        if (val_is_none(v)) {
            *(wchar_t **)p = NULL;
            return 0;
        }
        if (val_is_str(vm, v)) {
            BytesObj *b = wide_buffer(vm, AS_STR(v));
            if (!b) return -1;
            *(wchar_t **)p = (wchar_t *)b->data;
            *keep = val_obj(b);
            return 0;
        }
        if (val_is_int(v)) {
            *(wchar_t **)p = (wchar_t *)(uintptr_t)v.as.i;
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "unicode string or integer address expected instead of %s instance",
                 vm_type_name(vm, v));
        return -1;
    }
    case 'P': {
        if (val_is_none(v)) {
            *(void **)p = NULL;
            return 0;
        }
        if (val_is_intlike(v)) {
            *(void **)p = (void *)(uintptr_t)val_as_intlike(v);
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "cannot be converted to pointer");
        return -1;
    }
    default: EM_UNREACHABLE();
    }
}

/* ---- instances ------------------------------------------------------------------------------ */

static void cdata_trace(VM *vm, Obj *o) {
    CDataObj *c = (CDataObj *)o;
    gc_mark(vm, c->dict);
    gc_mark_value(vm, c->base);
    gc_mark_value(vm, c->objects);
}

void cdata_release(VM *vm, CDataObj *c) {
    if (c->owns && c->ptr && c->ptr != c->inl.buf) {
        free(c->ptr);
        gc_external_bytes(vm, -(ptrdiff_t)c->size);
    }
    c->ptr = NULL;
    c->owns = false;
}

static void cdata_finalize(VM *vm, Obj *o) { cdata_release(vm, (CDataObj *)o); }

/* Memory for an owned instance of `size` bytes: inline when it fits. */
static int cdata_own(VM *vm, CDataObj *o, int64_t size) {
    o->size = size;
    o->owns = true;
    if (size <= (int64_t)sizeof o->inl) {
        o->ptr = o->inl.buf;
        return 0;
    }
    o->ptr = calloc(1, (size_t)size);
    if (!o->ptr) {
        o->owns = false;
        vm_no_memory(vm);
        return -1;
    }
    gc_external_bytes(vm, (ptrdiff_t)size);
    return 0;
}

CDataObj *cdata_new(VM *vm, TypeObj *t) {
    StgInfo *stg = (StgInfo *)t->native_data;
    CDataObj *o = gc_alloc(vm, t, t->instance_size);
    if (!o) return NULL;
    o->base = o->objects = val_null();
    stg->flags |= STGF_FINAL;
    if (cdata_own(vm, o, stg->size) < 0) return NULL;
    return o;
}

CDataObj *cdata_at(VM *vm, TypeObj *t, void *addr, Value base) {
    StgInfo *stg = (StgInfo *)t->native_data;
    vm_push_root(vm, base);
    CDataObj *o = gc_alloc(vm, t, t->instance_size);
    vm_pop_root(vm);
    if (!o) return NULL;
    o->base = base;
    o->objects = val_null();
    o->ptr = addr;
    o->size = stg->size;
    stg->flags |= STGF_FINAL;
    return o;
}

static Value cdata_alloc(VM *vm, TypeObj *t) {
    FfiState *fs = ffi_state(vm);
    StgInfo *stg = ct_is_meta(fs, t->hdr.type) ? (StgInfo *)t->native_data : NULL;
    if (!stg) {
        if (type_is_subtype(t, fs->t_pointer))
            return vm_raise(vm, vm->e_TypeError, "Cannot create instance: has no _type_");
        return vm_raise(vm, vm->e_TypeError, "abstract class");
    }
    CDataObj *o = cdata_new(vm, t);
    return o ? val_obj(o) : val_null();
}

/* A simple class whose values scripts see as Python values: a direct subclass of _SimpleCData
 * (c_int).  Subclasses of those (class my_int(c_int)) give instances instead, as in CPython. */
static bool simple_is_plain(VM *vm, TypeObj *t) { return t->base == ffi_state(vm)->t_simple; }

Value cdata_get(VM *vm, Value type, char *addr, Value base) {
    StgInfo *stg = stg_of_type(vm, type);
    EM_ASSERT(stg != NULL, "cdata_get of a non-ctypes type");
    TypeObj *t = AS_TYPE(type);
    if (stg->kind == CK_SIMPLE && simple_is_plain(vm, t)) return simple_get(vm, stg->code, addr);
    if (stg->kind == CK_ARRAY) {
        /* char and wchar arrays read as bytes / str up to the first NUL (CPython's 's'/'U') */
        StgInfo *item = stg_of_type(vm, stg->proto);
        if (item && item->kind == CK_SIMPLE && simple_is_plain(vm, AS_TYPE(stg->proto))) {
            if (item->code == 'c') {
                int64_t n = 0;
                while (n < stg->length && addr[n]) n++;
                BytesObj *b = bytes_new(vm, (const uint8_t *)addr, n);
                return b ? val_obj(b) : val_null();
            }
        }
    }
    CDataObj *o = cdata_at(vm, t, addr, base);
    return o ? val_obj(o) : val_null();
}

int cdata_keep(VM *vm, CDataObj *owner, const void *addr, Value v) {
    CDataObj *root = owner;
    while (val_is_obj(root->base) && ct_is_cdata(vm, root->base)) root = CD(root->base);
    if (val_is_null(root->objects)) {
        if (val_is_null(v) || val_is_none(v)) return 0;
        vm_push_root(vm, v);
        DictObj *d = dict_new(vm);
        vm_pop_root(vm);
        if (!d) return -1;
        root->objects = val_obj(d);
    }
    return dict_set(vm, AS_DICT(root->objects), val_int((int64_t)(uintptr_t)addr),
                    val_is_null(v) ? val_none() : v);
}

int cdata_set(VM *vm, Value type, char *addr, Value v, CDataObj *owner) {
    StgInfo *stg = stg_of_type(vm, type);
    EM_ASSERT(stg != NULL, "cdata_set of a non-ctypes type");
    TypeObj *t = AS_TYPE(type);
    /* an instance of the type itself: copy its memory */
    if (vm_isinstance_type(vm, v, t)) {
        CDataObj *src = CD(v);
        if (src->ptr != addr) memmove(addr, src->ptr, (size_t)stg->size);
        if (stg->kind == CK_SIMPLE || stg->kind == CK_POINTER || stg->kind == CK_FUNCPTR ||
            !val_is_null(src->objects) || !val_is_null(src->base))
            return cdata_keep(vm, owner, addr, v);
        return 0;
    }
    switch (stg->kind) {
    case CK_SIMPLE: {
        Value keep;
        if (simple_set(vm, stg->code, addr, v, &keep) < 0) return -1;
        return val_is_null(keep) && stg->code != 'z' && stg->code != 'Z' ? 0 : cdata_keep(vm, owner, addr, keep);
    }
    case CK_STRUCT:
    case CK_UNION:
        if (val_is_type(vm, v, vm->t_tuple)) {
            Value r = vm_call(vm, type, (int)AS_TUPLE(v)->len, AS_TUPLE(v)->items, NULL);
            if (val_is_null(r)) return -1;
            vm_push_root(vm, r);
            memcpy(addr, CD(r)->ptr, (size_t)stg->size);
            int rc = cdata_keep(vm, owner, addr, r);
            vm_pop_root(vm);
            return rc;
        }
        if (ct_is_cdata(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "incompatible types, %s instance instead of %s instance",
                     vm_type_name(vm, v), t->name->data);
            return -1;
        }
        vm_raise(vm, vm->e_TypeError, "expected %s instance, got %s", t->name->data, vm_type_name(vm, v));
        return -1;
    case CK_ARRAY: {
        StgInfo *item = stg_of_type(vm, stg->proto);
        if (val_is_type(vm, v, vm->t_tuple)) {
            Value r = vm_call(vm, type, (int)AS_TUPLE(v)->len, AS_TUPLE(v)->items, NULL);
            if (val_is_null(r)) return -1;
            vm_push_root(vm, r);
            memcpy(addr, CD(r)->ptr, (size_t)stg->size);
            int rc = cdata_keep(vm, owner, addr, r);
            vm_pop_root(vm);
            return rc;
        }
        if (item->kind == CK_SIMPLE && item->code == 'c' && val_is_type(vm, v, vm->t_bytes)) {
            BytesObj *b = (BytesObj *)v.as.o;
            if (b->len > stg->length) {
                vm_raise(vm, vm->e_ValueError, "bytes too long (%lld, maximum length %lld)", (long long)b->len,
                         (long long)stg->length);
                return -1;
            }
            memcpy(addr, b->data, (size_t)b->len);
            if (b->len < stg->length) addr[b->len] = 0;
            return 0;
        }
        if (ct_is_cdata(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "incompatible types, %s instance instead of %s instance",
                     vm_type_name(vm, v), t->name->data);
            return -1;
        }
        vm_raise(vm, vm->e_TypeError, "expected %s instance, got %s", t->name->data, vm_type_name(vm, v));
        return -1;
    }
    case CK_POINTER: {
        if (val_is_none(v)) {
            *(void **)addr = NULL;
            return cdata_keep(vm, owner, addr, val_none());
        }
        /* an array of the pointed-to type decays to a pointer */
        StgInfo *vs = stg_of_obj(vm, v);
        if (vs && vs->kind == CK_ARRAY && val_is_obj(vs->proto) && val_is_obj(stg->proto) &&
            type_is_subtype(AS_TYPE(vs->proto), AS_TYPE(stg->proto))) {
            *(void **)addr = CD(v)->ptr;
            return cdata_keep(vm, owner, addr, v);
        }
        if (vs) {
            vm_raise(vm, vm->e_TypeError, "incompatible types, %s instance instead of %s instance",
                     vm_type_name(vm, v), t->name->data);
            return -1;
        }
        vm_raise(vm, vm->e_TypeError, "expected %s instance, got %s", t->name->data, vm_type_name(vm, v));
        return -1;
    }
    case CK_FUNCPTR:
        if (val_is_none(v)) {
            *(void **)addr = NULL;
            return cdata_keep(vm, owner, addr, val_none());
        }
        vm_raise(vm, vm->e_TypeError, "expected %s instance, got %s", t->name->data, vm_type_name(vm, v));
        return -1;
    }
    EM_UNREACHABLE();
}

/* ---- _CData ----------------------------------------------------------------------------------- */

static Value cdata_get_objects(VM *vm, Value self, void *closure) {
    CDataObj *c = CD(self);
    return val_is_null(c->objects) ? val_none() : c->objects;
}
static Value cdata_get_b_base(VM *vm, Value self, void *closure) {
    CDataObj *c = CD(self);
    return val_is_null(c->base) ? val_none() : c->base;
}
static Value cdata_get_needsfree(VM *vm, Value self, void *closure) { return val_int(CD(self)->owns); }

/* bytes(obj): the object's memory, as CPython gives it through the buffer protocol. */
static Value cdata_bytes(ARGS) {
    CDataObj *c = CD(argv[0]);
    BytesObj *b = bytes_new(vm, (const uint8_t *)c->ptr, c->size);
    return b ? val_obj(b) : val_null();
}

/* ---- _SimpleCData ------------------------------------------------------------------------------ */

static Value simple_init_subclass(ARGS) {
    TypeObj *cls = AS_TYPE(argv[0]);
    FfiState *fs = ffi_state(vm);
    Value tv = type_lookup(vm, cls, fs->s_type);
    if (val_is_null(tv)) return vm_raise(vm, vm->e_AttributeError, "class must define a '_type_' attribute");
    if (!val_is_str(vm, tv))
        return vm_raise(vm, vm->e_TypeError, "class must define a '_type_' string attribute");
    StrObj *code = AS_STR(tv);
    const SimpleDesc *d = code->len == 1 ? simple_desc(code->data[0]) : NULL;
    if (code->len == 1 && (code->data[0] == 'O' || code->data[0] == 'v' || code->data[0] == 'X'))
        return vm_raise(vm, vm->e_NotImplementedError, "ctypes _type_ '%s' is not supported", code->data);
    if (!d)
        return vm_raise(vm, vm->e_AttributeError,
                        "class must define a '_type_' attribute which must be\n"
                        "a single character string containing one of 'cbBhHiIlLdfuzZqQPXOv?g'.");
    StgInfo *stg = stg_new(vm, CK_SIMPLE);
    if (!stg) return val_null();
    stg->code = d->code;
    stg->size = d->size;
    stg->align = d->align;
    stg->ffi = d->ffi;
    cls->native_data = stg;
    return val_none();
}

static Value simple_init(ARGS) {
    static const char *const names[] = {"self", "value"};
    Value a[2];
    if (native_parse_args(vm, "__init__", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (val_is_null(a[1])) return val_none();
    StgInfo *stg = stg_of_obj(vm, argv[0]);
    CDataObj *c = CD(argv[0]);
    Value keep;
    if (simple_set(vm, stg->code, c->ptr, a[1], &keep) < 0) return val_null();
    if ((stg->code == 'z' || stg->code == 'Z') && cdata_keep(vm, c, c->ptr, keep) < 0) return val_null();
    return val_none();
}

static Value simple_get_value(VM *vm, Value self, void *closure) {
    StgInfo *stg = stg_of_obj(vm, self);
    return simple_get(vm, stg->code, CD(self)->ptr);
}

static int simple_set_value(VM *vm, Value self, Value v, void *closure) {
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "can't delete attribute");
        return -1;
    }
    StgInfo *stg = stg_of_obj(vm, self);
    CDataObj *c = CD(self);
    Value keep;
    if (simple_set(vm, stg->code, c->ptr, v, &keep) < 0) return -1;
    if (stg->code == 'z' || stg->code == 'Z') return cdata_keep(vm, c, c->ptr, keep);
    return 0;
}

static Value simple_repr(ARGS) {
    TypeObj *t = vm_type_of(vm, argv[0]);
    if (!simple_is_plain(vm, t)) {
        StrObj *s = str_printf(vm, "<%s object at %p>", type_repr_name(vm, t)->data, (void *)argv[0].as.o);
        return s ? val_obj(s) : val_null();
    }
    Value v = simple_get_value(vm, argv[0], NULL);
    if (val_is_null(v)) return v;
    vm_push_root(vm, v);
    Value r = vm_repr(vm, v);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "%s(%s)", t->name->data, AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value simple_bool(ARGS) {
    CDataObj *c = CD(argv[0]);
    for (int64_t i = 0; i < c->size; i++)
        if (c->ptr[i]) return val_bool(true);
    return val_bool(false);
}

/* ---- byref() arguments ---------------------------------------------------------------------- */

static void carg_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((CArgObj *)o)->obj); }

static Value carg_repr(ARGS) {
    CArgObj *a = (CArgObj *)argv[0].as.o;
    StrObj *s;
    switch (a->tag) {
    case 'b': case 'B': case 'h': case 'H': case 'i': case 'I': case 'l': case 'L': case 'q': case 'Q':
        s = str_printf(vm, "<cparam '%c' (%lld)>", a->tag, (long long)a->v.i);
        break;
    case 'd': s = str_printf(vm, "<cparam '%c' (%f)>", a->tag, a->v.d); break;
    case 'f': s = str_printf(vm, "<cparam '%c' (%f)>", a->tag, (double)a->v.f); break;
    default: s = str_printf(vm, "<cparam '%c' (%p)>", a->tag, a->v.p); break;
    }
    return s ? val_obj(s) : val_null();
}

static Value carg_get_obj(VM *vm, Value self, void *closure) {
    Value o = ((CArgObj *)self.as.o)->obj;
    return val_is_null(o) ? val_none() : o;
}

Value ct_carg_new(VM *vm, char tag, Value obj) {
    vm_push_root(vm, obj);
    CArgObj *a = gc_alloc(vm, ffi_state(vm)->t_carg, sizeof(CArgObj));
    vm_pop_root(vm);
    if (!a) return val_null();
    a->tag = tag;
    a->obj = obj;
    return val_obj(a);
}

/* ---- module functions ------------------------------------------------------------------------- */

static Value f_sizeof(ARGS) {
    if (argc != 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "sizeof() takes exactly one argument (%d given)", argc);
    StgInfo *s = stg_of_type(vm, argv[0]);
    if (s) return val_int(s->size);
    if (ct_is_cdata(vm, argv[0])) return val_int(CD(argv[0])->size);
    return vm_raise(vm, vm->e_TypeError, "this type has no size");
}

static Value f_alignment(ARGS) {
    if (argc != 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "alignment() takes exactly one argument (%d given)", argc);
    StgInfo *s = stg_of_type(vm, argv[0]);
    if (!s) s = stg_of_obj(vm, argv[0]);
    if (s) return val_int(s->align);
    return vm_raise(vm, vm->e_TypeError, "no alignment info");
}

static Value f_addressof(ARGS) {
    if (argc != 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "addressof() takes exactly one argument (%d given)", argc);
    if (!ct_is_cdata(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "invalid type");
    return val_int((int64_t)(uintptr_t)CD(argv[0])->ptr);
}

static Value f_byref(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "byref() takes no keyword arguments");
    if (argc < 1 || argc > 2)
        return vm_raise(vm, vm->e_TypeError, "byref expected at %s %d argument%s, got %d", argc < 1 ? "least" : "most",
                        argc < 1 ? 1 : 2, argc < 1 ? "" : "s", argc);
    if (!ct_is_cdata(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "byref() argument must be a ctypes instance, not '%s'",
                        vm_type_name(vm, argv[0]));
    int64_t off = 0;
    if (argc == 2 && vm_index(vm, argv[1], &off) < 0) return val_null();
    Value a = ct_carg_new(vm, 'P', argv[0]);
    if (val_is_null(a)) return a;
    ((CArgObj *)a.as.o)->v.p = CD(argv[0])->ptr + off;
    return a;
}

/* c_void_p.from_param's rules: the address an argument stands for. */
int ct_as_pointer(VM *vm, Value v, void **out, Value *keep) {
    *keep = val_null();
    if (val_is_none(v)) {
        *out = NULL;
        return 0;
    }
    if (val_is_intlike(v)) {
        *out = (void *)(uintptr_t)val_as_intlike(v);
        return 0;
    }
    if (val_is_type(vm, v, vm->t_bytes)) {
        *out = ((BytesObj *)v.as.o)->data;
        *keep = v;
        return 0;
    }
    if (val_is_str(vm, v)) {
        BytesObj *b = wide_buffer(vm, AS_STR(v));
        if (!b) return -1;
        *out = b->data;
        *keep = val_obj(b);
        return 0;
    }
    StgInfo *s = stg_of_obj(vm, v);
    if (s) {
        CDataObj *c = CD(v);
        if (s->kind == CK_POINTER || s->kind == CK_FUNCPTR ||
            (s->kind == CK_SIMPLE && (s->code == 'z' || s->code == 'Z' || s->code == 'P'))) {
            *out = *(void **)c->ptr;
            return 0;
        }
        if (s->kind == CK_ARRAY) {
            *out = c->ptr;
            return 0;
        }
    }
    if (val_is_type(vm, v, ffi_state(vm)->t_carg) && ((CArgObj *)v.as.o)->tag == 'P') {
        *out = ((CArgObj *)v.as.o)->v.p;
        return 0;
    }
    if (val_is_obj(v)) {
        Value ap = vm_getattr_opt(vm, v, ffi_state(vm)->s_as_parameter);
        if (!val_is_null(ap)) {
            vm_push_root(vm, ap);
            int rc = ct_as_pointer(vm, ap, out, keep);
            vm_pop_root(vm);
            return rc;
        }
        if (!val_is_null(vm->exc)) return -1;
    }
    vm_raise(vm, vm->e_TypeError, "wrong type");
    return -1;
}

static int pointer_arg(VM *vm, Value v, int index, void **out, Value *keep) {
    if (ct_as_pointer(vm, v, out, keep) == 0) return 0;
    ct_argument_error(vm, index);
    return -1;
}

/* cast(obj, typ): a new instance of pointer-like type typ holding obj's address. */
static Value f_cast(ARGS) {
    if (argc != 2 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "cast() takes exactly 2 arguments (%d given)", argc);
    void *p;
    Value keep;
    if (pointer_arg(vm, argv[0], 1, &p, &keep) < 0) return val_null();
    StgInfo *s = stg_of_type(vm, argv[1]);
    if (!s || !(s->kind == CK_POINTER || s->kind == CK_FUNCPTR ||
                (s->kind == CK_SIMPLE && (s->code == 'z' || s->code == 'Z' || s->code == 'P')))) {
        Value r = vm_repr(vm, argv[1]);
        if (val_is_null(r)) return r;
        return vm_raise(vm, vm->e_TypeError, "cast() argument 2 must be a pointer type, not %s",
                        s ? AS_TYPE(argv[1])->name->data : AS_STR(r)->data);
    }
    vm_push_root(vm, keep);
    Value r = vm_call0(vm, argv[1]);
    if (val_is_null(r)) {
        vm_pop_root(vm);
        return r;
    }
    vm_push_root(vm, r);
    CDataObj *c = CD(r);
    *(void **)c->ptr = p;
    /* the result keeps the source (and what its address was converted through) alive */
    TupleObj *both = tuple_pack(vm, 2, argv[0], val_is_null(keep) ? val_none() : keep);
    int rc = both ? cdata_keep(vm, c, c->ptr, val_obj(both)) : -1;
    vm_pop_roots(vm, 2);
    return rc < 0 ? val_null() : r;
}

static Value f_memmove(ARGS) {
    if (argc != 3 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "this function takes at least 3 arguments (%d given)", argc);
    void *d, *s;
    Value k1, k2;
    if (pointer_arg(vm, argv[0], 1, &d, &k1) < 0) return val_null();
    vm_push_root(vm, k1);
    int rc = pointer_arg(vm, argv[1], 2, &s, &k2);
    vm_push_root(vm, k2);
    int64_t n = 0;
    if (rc == 0 && vm_index(vm, argv[2], &n) < 0) rc = -1;
    if (rc == 0) memmove(d, s, (size_t)n);
    vm_pop_roots(vm, 2);
    return rc < 0 ? val_null() : val_int((int64_t)(uintptr_t)d);
}

static Value f_memset(ARGS) {
    if (argc != 3 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "this function takes at least 3 arguments (%d given)", argc);
    void *d;
    Value k;
    if (pointer_arg(vm, argv[0], 1, &d, &k) < 0) return val_null();
    int64_t c, n;
    if (vm_index(vm, argv[1], &c) < 0 || vm_index(vm, argv[2], &n) < 0) return val_null();
    memset(d, (int)c, (size_t)n);
    return val_int((int64_t)(uintptr_t)d);
}

static Value f_string_at(ARGS) {
    static const char *const names[] = {"ptr", "size"};
    Value a[2];
    if (native_parse_args(vm, "string_at", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    void *p;
    Value keep;
    if (pointer_arg(vm, a[0], 1, &p, &keep) < 0) return val_null();
    int64_t n = -1;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &n) < 0) return val_null();
    if (!p) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
    if (n < 0) n = (int64_t)strlen(p);
    vm_push_root(vm, keep);
    BytesObj *b = bytes_new(vm, p, n);
    vm_pop_root(vm);
    return b ? val_obj(b) : val_null();
}

static Value f_wstring_at(ARGS) {
    static const char *const names[] = {"ptr", "size"};
    Value a[2];
    if (native_parse_args(vm, "wstring_at", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    void *p;
    Value keep;
    if (pointer_arg(vm, a[0], 1, &p, &keep) < 0) return val_null();
    int64_t n = -1;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &n) < 0) return val_null();
    if (!p) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
    const wchar_t *w = p;
    if (n < 0) n = (int64_t)wcslen(w);
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < n; i++) {
        char enc[4];
        uint32_t cp = (uint32_t)w[i];
        sb_add(&b, enc, utf8_encode(cp > 0x10FFFF ? 0xFFFD : cp, enc));
    }
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

/* ---- metaclass methods shared by every kind ----------------------------------------------------- */

static Value meta_mul(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "expected 1 argument, got %d", argc - 1);
    if (!val_is_intlike(argv[1]))
        return vm_raise(vm, vm->e_TypeError, "can't multiply sequence by non-int of type '%s'", vm_type_name(vm, argv[1]));
    return array_type_new(vm, argv[0], val_as_intlike(argv[1]));
}

static Value meta_from_address(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "from_address() takes exactly one argument (%d given)", argc - 1);
    if (!stg_of_type(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "abstract class");
    int64_t a;
    if (vm_index(vm, argv[1], &a) < 0) return val_null();
    CDataObj *o = cdata_at(vm, AS_TYPE(argv[0]), (void *)(uintptr_t)a, val_null());
    return o ? val_obj(o) : val_null();
}

static Value meta_from_buffer_copy(ARGS) {
    if (argc < 2 || argc > 3) return vm_raise(vm, vm->e_TypeError, "from_buffer_copy() takes 1 or 2 arguments");
    StgInfo *s = stg_of_type(vm, argv[0]);
    if (!s) return vm_raise(vm, vm->e_TypeError, "abstract class");
    const uint8_t *src;
    int64_t len;
    if (val_is_type(vm, argv[1], vm->t_bytes)) {
        src = ((BytesObj *)argv[1].as.o)->data;
        len = ((BytesObj *)argv[1].as.o)->len;
    } else if (ct_is_cdata(vm, argv[1])) {
        src = (const uint8_t *)CD(argv[1])->ptr;
        len = CD(argv[1])->size;
    } else {
        return vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, argv[1]));
    }
    int64_t off = 0;
    if (argc == 3 && vm_index(vm, argv[2], &off) < 0) return val_null();
    if (off < 0) return vm_raise(vm, vm->e_ValueError, "offset cannot be negative");
    if (len < s->size + off)
        return vm_raise(vm, vm->e_ValueError, "Buffer size too small (%lld instead of at least %lld bytes)",
                        (long long)len, (long long)(s->size + off));
    CDataObj *o = cdata_new(vm, AS_TYPE(argv[0]));
    if (!o) return val_null();
    memcpy(o->ptr, src + off, (size_t)s->size);
    return val_obj(o);
}

static Value meta_from_buffer(ARGS) {
    if (argc < 2 || argc > 3) return vm_raise(vm, vm->e_TypeError, "from_buffer() takes 1 or 2 arguments");
    StgInfo *s = stg_of_type(vm, argv[0]);
    if (!s) return vm_raise(vm, vm->e_TypeError, "abstract class");
    if (!ct_is_cdata(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "from_buffer() needs a writable ctypes instance (bytearray is not supported), not '%s'",
                        vm_type_name(vm, argv[1]));
    int64_t off = 0;
    if (argc == 3 && vm_index(vm, argv[2], &off) < 0) return val_null();
    if (off < 0) return vm_raise(vm, vm->e_ValueError, "offset cannot be negative");
    CDataObj *src = CD(argv[1]);
    if (src->size < s->size + off)
        return vm_raise(vm, vm->e_ValueError, "Buffer size too small (%lld instead of at least %lld bytes)",
                        (long long)src->size, (long long)(s->size + off));
    CDataObj *o = cdata_at(vm, AS_TYPE(argv[0]), src->ptr + off, argv[1]);
    return o ? val_obj(o) : val_null();
}

extern void *ct_dll_symbol(VM *vm, Value dll, const char *name);

static Value meta_in_dll(ARGS) {
    if (argc != 3 || !val_is_str(vm, argv[2])) return vm_raise(vm, vm->e_TypeError, "in_dll(dll, name)");
    if (!stg_of_type(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "abstract class");
    void *p = ct_dll_symbol(vm, argv[1], AS_STR(argv[2])->data);
    if (!p) return val_null();
    CDataObj *o = cdata_at(vm, AS_TYPE(argv[0]), p, val_null());
    return o ? val_obj(o) : val_null();
}

extern Value ct_from_param(VM *vm, Value type, Value v);

static Value meta_from_param(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "from_param() takes exactly one argument (%d given)", argc - 1);
    return ct_from_param(vm, argv[0], argv[1]);
}

/* ---- setup -------------------------------------------------------------------------------------- */

static TypeObj *new_meta(VM *vm, const char *name) {
    TypeObj *m = type_new_builtin(vm, name, vm->t_type, OBJ_LAYOUT_TYPE, sizeof(TypeObj), vm->t_type->dict_offset,
                                  meta_trace, NULL, TYPEF_BASETYPE);
    if (!m) return NULL;
    vm_push_root(vm, val_obj(m));
    m->alloc = vm->t_type->alloc;
    m->module = vm_intern(vm, "_ctypes");
    static const MethodDef meta_m[] = {
        {"__mul__", meta_mul, NATIVEF_METHOD},
        {"__rmul__", meta_mul, NATIVEF_METHOD},
        {"from_address", meta_from_address, NATIVEF_METHOD},
        {"from_buffer", meta_from_buffer, NATIVEF_METHOD},
        {"from_buffer_copy", meta_from_buffer_copy, NATIVEF_METHOD},
        {"in_dll", meta_in_dll, NATIVEF_METHOD},
        {"from_param", meta_from_param, NATIVEF_METHOD},
        {NULL}};
    int rc = type_add_methods(vm, m, meta_m);
    vm_pop_root(vm);
    return rc < 0 ? NULL : m;
}

/* A built-in ctypes base class (_SimpleCData, Structure, ...) whose metaclass is `meta`. */
TypeObj *ct_new_base(VM *vm, const char *name, TypeObj *base, TypeObj *meta, size_t size, TraceFn trace,
                     FinalizeFn fin) {
    TypeObj *t = type_new_builtin(vm, name, base, OBJ_LAYOUT_EXTENSION, size, offsetof(CDataObj, dict), trace, fin,
                                  TYPEF_BASETYPE);
    if (!t) return NULL;
    t->hdr.type = meta;
    t->alloc = base->alloc;
    vm_push_root(vm, val_obj(t));
    t->module = vm_intern(vm, "_ctypes");
    vm_pop_root(vm);
    return t;
}

static void ffi_state_trace(VM *vm, void *p) {
    FfiState *fs = p;
    TypeObj *ts[] = {fs->meta_simple, fs->meta_struct, fs->meta_union, fs->meta_array, fs->meta_pointer,
                     fs->meta_funcptr, fs->t_cdata, fs->t_simple, fs->t_struct, fs->t_union, fs->t_array,
                     fs->t_pointer, fs->t_funcptr, fs->t_stginfo, fs->t_cfield, fs->t_carg, fs->e_argument_error};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) gc_mark(vm, ts[i]);
    gc_mark_value(vm, fs->module);
    StrObj *ss[] = {fs->s_fields, fs->s_type, fs->s_length, fs->s_pack, fs->s_anonymous, fs->s_argtypes_,
                    fs->s_restype_, fs->s_flags_, fs->s_as_parameter, fs->s_from_param, fs->s_name};
    for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++) gc_mark(vm, ss[i]);
}

static void ffi_state_free(VM *vm, void *p) { free(p); }

int ct_cdata_init(VM *vm, Value mod) {
    FfiState *fs = calloc(1, sizeof *fs);
    if (!fs) {
        vm_no_memory(vm);
        return -1;
    }
    vm->ext[FFI_EXT] = fs;
    vm->ext_trace[FFI_EXT] = ffi_state_trace;
    vm->ext_free[FFI_EXT] = ffi_state_free;
    fs->module = mod;
    fs->s_fields = vm_intern_str(vm, "_fields_");
    fs->s_type = vm_intern_str(vm, "_type_");
    fs->s_length = vm_intern_str(vm, "_length_");
    fs->s_pack = vm_intern_str(vm, "_pack_");
    fs->s_anonymous = vm_intern_str(vm, "_anonymous_");
    fs->s_argtypes_ = vm_intern_str(vm, "_argtypes_");
    fs->s_restype_ = vm_intern_str(vm, "_restype_");
    fs->s_flags_ = vm_intern_str(vm, "_flags_");
    fs->s_as_parameter = vm_intern_str(vm, "_as_parameter_");
    fs->s_from_param = vm_intern_str(vm, "from_param");
    fs->s_name = vm_intern_str(vm, "__name__");

    fs->t_stginfo = type_new_builtin(vm, "StgInfo", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(StgInfo), 0, stg_trace,
                                     stg_finalize, TYPEF_ABSTRACT_NEW);
    fs->t_carg = type_new_builtin(vm, "CArgObject", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(CArgObj), 0, carg_trace,
                                  NULL, TYPEF_ABSTRACT_NEW);
    if (!fs->t_stginfo || !fs->t_carg) return -1;
    fs->t_carg->module = vm_intern(vm, "_ctypes");
    if (!(fs->meta_simple = new_meta(vm, "PyCSimpleType")) || !(fs->meta_struct = new_meta(vm, "PyCStructType")) ||
        !(fs->meta_union = new_meta(vm, "UnionType")) || !(fs->meta_array = new_meta(vm, "PyCArrayType")) ||
        !(fs->meta_pointer = new_meta(vm, "PyCPointerType")) || !(fs->meta_funcptr = new_meta(vm, "PyCFuncPtrType")))
        return -1;

    fs->t_cdata = type_new_builtin(vm, "_CData", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(CDataObj),
                                   offsetof(CDataObj, dict), cdata_trace, cdata_finalize, TYPEF_BASETYPE);
    if (!fs->t_cdata) return -1;
    fs->t_cdata->alloc = cdata_alloc;
    fs->t_cdata->module = vm_intern(vm, "_ctypes");
    static const GetSetDef cdata_gs[] = {{"_objects", cdata_get_objects, NULL},
                                         {"_b_base_", cdata_get_b_base, NULL},
                                         {"_b_needsfree_", cdata_get_needsfree, NULL},
                                         {NULL}};
    static const MethodDef cdata_m[] = {{"__bytes__", cdata_bytes, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    if (type_add_getsets(vm, fs->t_cdata, cdata_gs) < 0 || type_add_methods(vm, fs->t_cdata, cdata_m) < 0) return -1;

    fs->t_simple = ct_new_base(vm, "_SimpleCData", fs->t_cdata, fs->meta_simple, sizeof(CDataObj), cdata_trace,
                               cdata_finalize);
    if (!fs->t_simple) return -1;
    static const MethodDef simple_m[] = {
        {"__init_subclass__", simple_init_subclass, NATIVEF_CLASSMETHOD},
        {"__init__", simple_init, NATIVEF_METHOD},
        {"__repr__", simple_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__bool__", simple_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef simple_gs[] = {{"value", simple_get_value, simple_set_value}, {NULL}};
    if (type_add_methods(vm, fs->t_simple, simple_m) < 0 || type_add_getsets(vm, fs->t_simple, simple_gs) < 0)
        return -1;

    static const MethodDef carg_m[] = {{"__repr__", carg_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef carg_gs[] = {{"_obj", carg_get_obj, NULL}, {NULL}};
    if (type_add_methods(vm, fs->t_carg, carg_m) < 0 || type_add_getsets(vm, fs->t_carg, carg_gs) < 0) return -1;

    /* ctypes.ArgumentError(Exception) */
    {
        StrObj *n = vm_intern_str(vm, "ArgumentError");
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_Exception));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        vm_push_root(vm, ns ? val_obj(ns) : val_null());
        Value cls = ns && dict_set_c(vm, ns, "__module__", vm_intern(vm, "ctypes")) == 0
                        ? type_new_class(vm, vm->t_type, n, bases, ns, 0, NULL, NULL)
                        : val_null();
        vm_pop_roots(vm, 2);
        if (val_is_null(cls)) return -1;
        fs->e_argument_error = AS_TYPE(cls);
        fs->e_argument_error->flags |= TYPEF_LIBRARY;
    }

    static const MethodDef fns[] = {
        {"sizeof", f_sizeof, 0}, {"alignment", f_alignment, 0}, {"addressof", f_addressof, 0},
        {"byref", f_byref, 0}, {"cast", f_cast, 0}, {"memmove", f_memmove, 0}, {"memset", f_memset, 0},
        {"string_at", f_string_at, 0}, {"wstring_at", f_wstring_at, 0}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    struct { const char *name; TypeObj *t; } exports[] = {
        {"_CData", fs->t_cdata}, {"_SimpleCData", fs->t_simple}, {"ArgumentError", fs->e_argument_error},
        {"CArgObject", fs->t_carg}, {"PyCSimpleType", fs->meta_simple}, {"PyCStructType", fs->meta_struct},
        {"UnionType", fs->meta_union}, {"PyCArrayType", fs->meta_array}, {"PyCPointerType", fs->meta_pointer},
        {"PyCFuncPtrType", fs->meta_funcptr}};
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++)
        if (module_set(vm, mod, exports[i].name, val_obj(exports[i].t)) < 0) return -1;
    return 0;
}
