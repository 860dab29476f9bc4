/* src/ffi/carray.c — arrays (c_float * 4, class A(Array)) and pointers (POINTER(T), pointer(),
 * .contents): their types (cached per item type, as CPython caches them), indexing and
 * slicing, iteration through the sequence protocol, len, the .value/.raw of char arrays. */
#include <stdlib.h>
#include <string.h>

#include "src/ffi/ctypes.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

TypeObj *ct_new_base(VM *vm, const char *name, TypeObj *base, TypeObj *meta, size_t size, TraceFn trace,
                     FinalizeFn fin);

/* The libffi type of a ctypes type; an array's (a struct of `length` items, used only when an
 * array is a field of a struct passed by value) is built on first use. */
ffi_type *stg_ffi(VM *vm, StgInfo *s) {
    if (s->ffi) return s->ffi;
    if (s->kind != CK_ARRAY) {
        vm_raise(vm, vm->e_TypeError, "ctypes type has no libffi description");
        return NULL;
    }
    StgInfo *item = stg_of_type(vm, s->proto);
    ffi_type *it = stg_ffi(vm, item);
    if (!it) return NULL;
    ffi_type **el = calloc((size_t)s->length + 1, sizeof(ffi_type *));
    if (!el) {
        vm_no_memory(vm);
        return NULL;
    }
    for (int64_t i = 0; i < s->length; i++) el[i] = it;
    s->ffi_elements = el;
    s->ffi_owned.type = FFI_TYPE_STRUCT;
    s->ffi_owned.size = (size_t)s->size;
    s->ffi_owned.alignment = (unsigned short)s->align;
    s->ffi_owned.elements = el;
    s->ffi = &s->ffi_owned;
    return s->ffi;
}

/* __module__ for classes made on the fly (c_int * 3, POINTER(T)): the calling module's name,
 * as CPython's type() call gives them. */
static Value caller_module(VM *vm) {
    if (vm->frame && vm->frame->globals) {
        Value n = dict_get_c(vm, vm->frame->globals, "__name__");
        if (val_is_str(vm, n)) return n;
    }
    return vm_intern(vm, "ctypes");
}

static Value make_class(VM *vm, TypeObj *meta, TypeObj *base, StrObj *name, const char *k1, Value v1,
                        const char *k2, Value v2) {
    vm_push_root(vm, val_obj(name));
    TupleObj *bases = tuple_pack(vm, 1, val_obj(base));
    vm_push_root(vm, bases ? val_obj(bases) : val_null());
    DictObj *ns = bases ? dict_new(vm) : NULL;
    vm_push_root(vm, ns ? val_obj(ns) : val_null());
    Value cls = val_null();
    if (ns && dict_set_c(vm, ns, k1, v1) == 0 && (!k2 || dict_set_c(vm, ns, k2, v2) == 0) &&
        dict_set_c(vm, ns, "__module__", caller_module(vm)) == 0)
        cls = type_new_class(vm, meta, name, bases, ns, 0, NULL, NULL);
    vm_pop_roots(vm, 3);
    return cls;
}

/* ---- arrays --------------------------------------------------------------------------------- */

Value array_type_new(VM *vm, Value itemtype, int64_t length) {
    FfiState *fs = ffi_state(vm);
    StgInfo *item = stg_of_type(vm, itemtype);
    if (!item) return vm_raise(vm, vm->e_TypeError, "_type_ must have storage info");
    if (length < 0) return vm_raise(vm, vm->e_ValueError, "Array length must be >= 0, not %lld", (long long)length);
    if (item->array_types) {
        Value hit = val_null();
        if (dict_lookup(vm, item->array_types, val_int(length), &hit) < 0) return val_null();
        if (!val_is_null(hit)) return hit;
    }
    StrObj *name = str_printf(vm, "%s_Array_%lld", AS_TYPE(itemtype)->name->data, (long long)length);
    if (!name) return val_null();
    Value cls = make_class(vm, fs->meta_array, fs->t_array, name, "_length_", val_int(length), "_type_", itemtype);
    if (val_is_null(cls)) return cls;
    vm_push_root(vm, cls);
    item = stg_of_type(vm, itemtype);
    if (!item->array_types) {
        DictObj *d = dict_new(vm);
        if (!d) {
            vm_pop_root(vm);
            return val_null();
        }
        item->array_types = d;
    }
    int rc = dict_set(vm, item->array_types, val_int(length), cls);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : cls;
}

int array_stg_init(VM *vm, TypeObj *cls) {
    FfiState *fs = ffi_state(vm);
    Value len = type_lookup(vm, cls, fs->s_length);
    if (val_is_null(len)) {
        vm_raise(vm, vm->e_AttributeError, "class must define a '_length_' attribute");
        return -1;
    }
    if (!val_is_intlike(len)) {
        vm_raise(vm, vm->e_TypeError, "The '_length_' attribute must be an integer");
        return -1;
    }
    if (val_as_intlike(len) < 0) {
        vm_raise(vm, vm->e_ValueError, "The '_length_' attribute must not be negative");
        return -1;
    }
    Value it = type_lookup(vm, cls, fs->s_type);
    if (val_is_null(it)) {
        vm_raise(vm, vm->e_AttributeError, "class must define a '_type_' attribute");
        return -1;
    }
    StgInfo *item = stg_of_type(vm, it);
    if (!item) {
        vm_raise(vm, vm->e_TypeError, "_type_ must have storage info");
        return -1;
    }
    int64_t n = val_as_intlike(len);
    if (item->size && n > INT64_MAX / item->size) {
        vm_raise(vm, vm->e_OverflowError, "array too large");
        return -1;
    }
    item->flags |= STGF_FINAL;
    StgInfo *stg = stg_new(vm, CK_ARRAY);
    if (!stg) return -1;
    stg->proto = it;
    stg->length = n;
    stg->size = item->size * n;
    stg->align = item->align;
    cls->native_data = stg;
    return 0;
}

static Value array_init_subclass(ARGS) { return array_stg_init(vm, AS_TYPE(argv[0])) < 0 ? val_null() : val_none(); }

static StgInfo *array_item(VM *vm, Value self, StgInfo **arr) {
    *arr = stg_of_obj(vm, self);
    return stg_of_type(vm, (*arr)->proto);
}

static Value array_init(ARGS) {
    StgInfo *stg;
    StgInfo *item = array_item(vm, argv[0], &stg);
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "Array() takes no keyword arguments");
    if (argc - 1 > stg->length) return vm_raise(vm, vm->e_IndexError, "invalid index");
    CDataObj *c = CD(argv[0]);
    for (int i = 1; i < argc; i++)
        if (cdata_set(vm, stg->proto, c->ptr + (i - 1) * item->size, argv[i], c) < 0) return val_null();
    return val_none();
}

static Value array_len(ARGS) { return val_int(stg_of_obj(vm, argv[0])->length); }

/* Items start..stop by step of an array or pointer, as a list (bytes for c_char, str for
 * c_wchar items). */
static Value items_slice(VM *vm, Value self, Value itemtype, char *base, int64_t start, int64_t step, int64_t n) {
    StgInfo *item = stg_of_type(vm, itemtype);
    bool plain = AS_TYPE(itemtype)->base == ffi_state(vm)->t_simple;
    if (plain && item->code == 'c') {
        BytesObj *b = bytes_new(vm, NULL, n);
        if (!b) return val_null();
        for (int64_t i = 0; i < n; i++) b->data[i] = (uint8_t)base[start + i * step];
        return val_obj(b);
    }
    ListObj *l = list_new(vm, n);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int64_t i = 0; i < n; i++) {
        Value v = cdata_get(vm, itemtype, base + (start + i * step) * item->size, self);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    if (plain && item->code == 'u') {
        /* c_wchar items join into a str */
        StrBuf b;
        sb_init(&b);
        for (int64_t i = 0; i < l->len; i++) sb_add_str(&b, AS_STR(l->items[i]));
        StrObj *s = sb_finish(vm, &b);
        return s ? val_obj(s) : val_null();
    }
    return val_obj(l);
}

static int array_index(VM *vm, Value key, int64_t n, int64_t *out) {
    int64_t i;
    if (!val_is_intlike(key)) {
        if (vm_index(vm, key, &i) < 0) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "indices must be integers");
            return -1;
        }
    } else {
        i = val_as_intlike(key);
    }
    if (i < 0) i += n;
    if (i < 0 || i >= n) {
        vm_raise(vm, vm->e_IndexError, "invalid index");
        return -1;
    }
    *out = i;
    return 0;
}

static Value array_getitem(ARGS) {
    StgInfo *stg;
    StgInfo *item = array_item(vm, argv[0], &stg);
    CDataObj *c = CD(argv[0]);
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, len;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, stg->length, &start, &stop, &step, &len) < 0) return val_null();
        return items_slice(vm, argv[0], stg->proto, c->ptr, start, step, len);
    }
    int64_t i;
    if (array_index(vm, argv[1], stg->length, &i) < 0) return val_null();
    return cdata_get(vm, stg->proto, c->ptr + i * item->size, argv[0]);
}

static Value array_setitem(ARGS) {
    StgInfo *stg;
    StgInfo *item = array_item(vm, argv[0], &stg);
    CDataObj *c = CD(argv[0]);
    if (argc == 2) return vm_raise(vm, vm->e_TypeError, "Array does not support item deletion");
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, len;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, stg->length, &start, &stop, &step, &len) < 0) return val_null();
        Value holder = val_null();
        int64_t n;
        Value *vals = vm_sequence_items(vm, argv[2], &n, &holder);
        if (!vals) return val_null();
        vm_push_root(vm, holder);
        if (n != len) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_ValueError, "Can only assign sequence of same size");
        }
        for (int64_t k = 0; k < n; k++)
            if (cdata_set(vm, stg->proto, c->ptr + (start + k * step) * item->size, vals[k], c) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        vm_pop_root(vm);
        return val_none();
    }
    int64_t i;
    if (array_index(vm, argv[1], stg->length, &i) < 0) return val_null();
    if (cdata_set(vm, stg->proto, c->ptr + i * item->size, argv[2], c) < 0) return val_null();
    return val_none();
}

static Value array_delitem(ARGS) { return vm_raise(vm, vm->e_TypeError, "Array does not support item deletion"); }

/* .value / .raw exist only for arrays of c_char (and .value for c_wchar). */
static StgInfo *char_array(VM *vm, Value self, const char *attr, char code) {
    StgInfo *stg = stg_of_obj(vm, self);
    StgInfo *item = stg_of_type(vm, stg->proto);
    if (item->kind != CK_SIMPLE || item->code != code ||
        (code == 'c' && AS_TYPE(stg->proto)->base != ffi_state(vm)->t_simple)) {
        vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'", vm_type_name(vm, self), attr);
        return NULL;
    }
    return stg;
}

static Value array_get_value(VM *vm, Value self, void *closure) {
    StgInfo *stg = stg_of_obj(vm, self);
    StgInfo *item = stg_of_type(vm, stg->proto);
    CDataObj *c = CD(self);
    if (item->kind == CK_SIMPLE && item->code == 'u') {
        int64_t n = 0;
        const wchar_t *w = (const wchar_t *)c->ptr;
        while (n < stg->length && w[n]) n++;
        return items_slice(vm, self, stg->proto, c->ptr, 0, 1, n);
    }
    if (!char_array(vm, self, "value", 'c')) return val_null();
    int64_t n = 0;
    while (n < stg->length && c->ptr[n]) n++;
    BytesObj *b = bytes_new(vm, (const uint8_t *)c->ptr, n);
    return b ? val_obj(b) : val_null();
}

static int array_set_value(VM *vm, Value self, Value v, void *closure) {
    StgInfo *stg = stg_of_obj(vm, self);
    StgInfo *item = stg_of_type(vm, stg->proto);
    CDataObj *c = CD(self);
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "can't delete attribute");
        return -1;
    }
    if (item->kind == CK_SIMPLE && item->code == 'u') {
        if (!val_is_str(vm, v)) {
            vm_raise(vm, vm->e_TypeError, "unicode string expected instead of %s instance", vm_type_name(vm, v));
            return -1;
        }
        StrObj *s = AS_STR(v);
        if (s->ncp > stg->length) {
            vm_raise(vm, vm->e_ValueError, "string too long");
            return -1;
        }
        wchar_t *w = (wchar_t *)c->ptr;
        int64_t pos = 0, i = 0;
        while (pos < s->len) w[i++] = (wchar_t)utf8_decode(s->data, s->len, &pos);
        if (i < stg->length) w[i] = 0;
        return 0;
    }
    if (!char_array(vm, self, "value", 'c')) return -1;
    if (!val_is_type(vm, v, vm->t_bytes)) {
        vm_raise(vm, vm->e_TypeError, "bytes expected instead of %s instance", vm_type_name(vm, v));
        return -1;
    }
    BytesObj *b = (BytesObj *)v.as.o;
    if (b->len > stg->length) {
        vm_raise(vm, vm->e_ValueError, "byte string too long");
        return -1;
    }
    memcpy(c->ptr, b->data, (size_t)b->len);
    if (b->len < stg->length) c->ptr[b->len] = 0;
    return 0;
}

static Value array_get_raw(VM *vm, Value self, void *closure) {
    StgInfo *stg = char_array(vm, self, "raw", 'c');
    if (!stg) return val_null();
    BytesObj *b = bytes_new(vm, (const uint8_t *)CD(self)->ptr, stg->length);
    return b ? val_obj(b) : val_null();
}

static int array_set_raw(VM *vm, Value self, Value v, void *closure) {
    StgInfo *stg = char_array(vm, self, "raw", 'c');
    if (!stg) return -1;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "can't delete attribute");
        return -1;
    }
    if (!val_is_type(vm, v, vm->t_bytes)) {
        vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, v));
        return -1;
    }
    BytesObj *b = (BytesObj *)v.as.o;
    if (b->len > stg->length) {
        vm_raise(vm, vm->e_ValueError, "byte string too long");
        return -1;
    }
    memcpy(CD(self)->ptr, b->data, (size_t)b->len);
    return 0;
}

/* ---- pointers -------------------------------------------------------------------------------- */

Value pointer_type_of(VM *vm, Value itemtype) {
    FfiState *fs = ffi_state(vm);
    if (val_is_none(itemtype)) {
        Value ct = dict_get_c(vm, vm->modules, "ctypes");
        Value vp = val_is_type(vm, ct, vm->t_module) ? dict_get_c(vm, ((ModuleObj *)ct.as.o)->dict, "c_void_p")
                                                      : val_null();
        if (val_is_null(vp)) return vm_raise(vm, vm->e_TypeError, "must be a ctypes type");
        return vp;
    }
    if (val_is_str(vm, itemtype))
        return vm_raise(vm, vm->e_NotImplementedError, "POINTER() of an incomplete type given by name is not supported");
    StgInfo *item = stg_of_type(vm, itemtype);
    if (!item) return vm_raise(vm, vm->e_TypeError, "must be a ctypes type");
    if (!val_is_null(item->pointer_type)) return item->pointer_type;
    StrObj *name = str_printf(vm, "LP_%s", AS_TYPE(itemtype)->name->data);
    if (!name) return val_null();
    Value cls = make_class(vm, fs->meta_pointer, fs->t_pointer, name, "_type_", itemtype, NULL, val_null());
    if (val_is_null(cls)) return cls;
    stg_of_type(vm, itemtype)->pointer_type = cls;
    return cls;
}

int pointer_stg_init(VM *vm, TypeObj *cls) {
    FfiState *fs = ffi_state(vm);
    Value it = type_lookup(vm, cls, fs->s_type);
    StgInfo *stg = stg_new(vm, CK_POINTER);
    if (!stg) return -1;
    stg->size = sizeof(void *);
    stg->align = _Alignof(void *);
    stg->ffi = &ffi_type_pointer;
    if (!val_is_null(it)) {
        StgInfo *item = stg_of_type(vm, it);
        if (!item) {
            vm_raise(vm, vm->e_TypeError, "_type_ must have storage info");
            return -1;
        }
        stg->proto = it;
    }
    cls->native_data = stg;
    return 0;
}

static Value pointer_init_subclass(ARGS) { return pointer_stg_init(vm, AS_TYPE(argv[0])) < 0 ? val_null() : val_none(); }

static StgInfo *pointer_info(VM *vm, Value self, StgInfo **item) {
    StgInfo *stg = stg_of_obj(vm, self);
    *item = val_is_null(stg->proto) ? NULL : stg_of_type(vm, stg->proto);
    if (!*item) vm_raise(vm, vm->e_TypeError, "Cannot create instance: has no _type_");
    return *item ? stg : NULL;
}

static int pointer_set_contents(VM *vm, Value self, Value v, void *closure) {
    StgInfo *item;
    StgInfo *stg = pointer_info(vm, self, &item);
    if (!stg) return -1;
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "Pointer does not support item deletion");
        return -1;
    }
    /* as CPython: any ctypes instance is accepted, other values must be instances of _type_ */
    if (!ct_is_cdata(vm, v) && !vm_isinstance_type(vm, v, AS_TYPE(stg->proto))) {
        vm_raise(vm, vm->e_TypeError, "expected %s instead of %s", AS_TYPE(stg->proto)->name->data, vm_type_name(vm, v));
        return -1;
    }
    CDataObj *c = CD(self);
    *(void **)c->ptr = CD(v)->ptr;
    return cdata_keep(vm, c, c->ptr, v);
}

Value pointer_to(VM *vm, TypeObj *ptype, CDataObj *target) {
    vm_push_root(vm, val_obj(target));
    CDataObj *p = cdata_new(vm, ptype);
    if (!p) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(p));
    *(void **)p->ptr = target->ptr;
    int rc = cdata_keep(vm, p, p->ptr, val_obj(target));
    vm_pop_roots(vm, 2);
    return rc < 0 ? val_null() : val_obj(p);
}

static Value pointer_init(ARGS) {
    static const char *const names[] = {"self", "value"};
    Value a[2];
    if (native_parse_args(vm, "__init__", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (val_is_null(a[1])) return val_none();
    return pointer_set_contents(vm, argv[0], a[1], NULL) < 0 ? val_null() : val_none();
}

static Value pointer_get_contents(VM *vm, Value self, void *closure) {
    StgInfo *item;
    StgInfo *stg = pointer_info(vm, self, &item);
    if (!stg) return val_null();
    void *p = *(void **)CD(self)->ptr;
    if (!p) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
    CDataObj *o = cdata_at(vm, AS_TYPE(stg->proto), p, self);
    return o ? val_obj(o) : val_null();
}

static Value pointer_getitem(ARGS) {
    StgInfo *item;
    StgInfo *stg = pointer_info(vm, argv[0], &item);
    if (!stg) return val_null();
    char *p = *(char **)CD(argv[0])->ptr;
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        SliceObj *s = (SliceObj *)argv[1].as.o;
        int64_t start = 0, stop, step = 1;
        if (!val_is_none(s->step) && vm_index(vm, s->step, &step) < 0) return val_null();
        if (step == 0) return vm_raise(vm, vm->e_ValueError, "slice step cannot be zero");
        if (!val_is_none(s->start) && vm_index(vm, s->start, &start) < 0) return val_null();
        if (val_is_none(s->stop)) return vm_raise(vm, vm->e_ValueError, "slice stop is required");
        if (vm_index(vm, s->stop, &stop) < 0) return val_null();
        int64_t n = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                             : (start > stop ? (start - stop - step - 1) / -step : 0);
        if (!p && n) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
        return items_slice(vm, argv[0], stg->proto, p, start, step, n);
    }
    int64_t i;
    if (vm_index(vm, argv[1], &i) < 0) return val_null();
    if (!p) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
    return cdata_get(vm, stg->proto, p + i * item->size, argv[0]);
}

static Value pointer_setitem(ARGS) {
    if (argc == 2) return vm_raise(vm, vm->e_TypeError, "Pointer does not support item deletion");
    StgInfo *item;
    StgInfo *stg = pointer_info(vm, argv[0], &item);
    if (!stg) return val_null();
    char *p = *(char **)CD(argv[0])->ptr;
    int64_t i;
    if (vm_index(vm, argv[1], &i) < 0) return val_null();
    if (!p) return vm_raise(vm, vm->e_ValueError, "NULL pointer access");
    if (cdata_set(vm, stg->proto, p + i * item->size, argv[2], CD(argv[0])) < 0) return val_null();
    return val_none();
}

static Value pointer_delitem(ARGS) { return vm_raise(vm, vm->e_TypeError, "Pointer does not support item deletion"); }

static Value pointer_bool(ARGS) { return val_bool(*(void **)CD(argv[0])->ptr != NULL); }

/* ---- module functions ---------------------------------------------------------------------------- */

static Value f_POINTER(ARGS) {
    if (argc != 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "POINTER() takes exactly one argument (%d given)", argc);
    return pointer_type_of(vm, argv[0]);
}

static Value f_pointer(ARGS) {
    if (argc != 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "pointer() takes exactly one argument (%d given)", argc);
    if (!ct_is_cdata(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_type_ must have storage info");
    Value pt = pointer_type_of(vm, val_obj(vm_type_of(vm, argv[0])));
    if (val_is_null(pt)) return pt;
    return pointer_to(vm, AS_TYPE(pt), CD(argv[0]));
}

static Value f_ARRAY(ARGS) {
    if (argc != 2 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "ARRAY() takes exactly 2 arguments (%d given)", argc);
    int64_t n;
    if (vm_index(vm, argv[1], &n) < 0) return val_null();
    return array_type_new(vm, argv[0], n);
}

int ct_array_init(VM *vm, Value mod) {
    FfiState *fs = ffi_state(vm);
    TraceFn tr = fs->t_cdata->trace;
    FinalizeFn fin = fs->t_cdata->finalize;
    fs->t_array = ct_new_base(vm, "Array", fs->t_cdata, fs->meta_array, sizeof(CDataObj), tr, fin);
    fs->t_pointer = ct_new_base(vm, "_Pointer", fs->t_cdata, fs->meta_pointer, sizeof(CDataObj), tr, fin);
    if (!fs->t_array || !fs->t_pointer) return -1;
    static const MethodDef array_m[] = {
        {"__init_subclass__", array_init_subclass, NATIVEF_CLASSMETHOD},
        {"__init__", array_init, NATIVEF_METHOD},
        {"__len__", array_len, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getitem__", array_getitem, NATIVEF_METHOD | ARITY_O},
        {"__setitem__", array_setitem, NATIVEF_METHOD | ARITY_TUPLE(2, 2)},
        {"__delitem__", array_delitem, NATIVEF_METHOD | ARITY_O},
        {NULL}};
    static const GetSetDef array_gs[] = {{"value", array_get_value, array_set_value},
                                         {"raw", array_get_raw, array_set_raw},
                                         {NULL}};
    static const MethodDef pointer_m[] = {
        {"__init_subclass__", pointer_init_subclass, NATIVEF_CLASSMETHOD},
        {"__init__", pointer_init, NATIVEF_METHOD},
        {"__getitem__", pointer_getitem, NATIVEF_METHOD | ARITY_O},
        {"__setitem__", pointer_setitem, NATIVEF_METHOD | ARITY_TUPLE(2, 2)},
        {"__delitem__", pointer_delitem, NATIVEF_METHOD | ARITY_O},
        {"__bool__", pointer_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef pointer_gs[] = {{"contents", pointer_get_contents, pointer_set_contents}, {NULL}};
    static const MethodDef fns[] = {{"POINTER", f_POINTER, 0}, {"pointer", f_pointer, 0}, {"ARRAY", f_ARRAY, 0}, {NULL}};
    if (type_add_methods(vm, fs->t_array, array_m) < 0 || type_add_getsets(vm, fs->t_array, array_gs) < 0 ||
        type_add_methods(vm, fs->t_pointer, pointer_m) < 0 || type_add_getsets(vm, fs->t_pointer, pointer_gs) < 0 ||
        module_add_functions(vm, mod, fns) < 0)
        return -1;
    if (module_set(vm, mod, "Array", val_obj(fs->t_array)) < 0 || module_set(vm, mod, "_Pointer", val_obj(fs->t_pointer)) < 0)
        return -1;
    return 0;
}
