/* src/ffi/cstruct.c — Structure and Union: layout from _fields_ (natural C alignment, or
 * _pack_), the libffi description for passing them by value, the field descriptors (CField,
 * `POINT.x`), __init__ by position and keyword, and the metaclass's _fields_ setter for
 * classes whose fields are given after the class statement (self-referential structs). */
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
ffi_type *stg_ffi(VM *vm, StgInfo *s);

/* ---- CField --------------------------------------------------------------------------------- */

static void cfield_trace(VM *vm, Obj *o) {
    vm->t_property->trace(vm, o);
    CFieldObj *f = (CFieldObj *)o;
    gc_mark_value(vm, f->type);
    gc_mark(vm, f->name);
}

static CDataObj *field_target(VM *vm, CFieldObj *f, Value self) {
    if (!ct_is_cdata(vm, self)) {
        vm_raise(vm, vm->e_TypeError, "not a ctype instance");
        return NULL;
    }
    CDataObj *c = CD(self);
    if (f->offset + f->size > c->size) {
        vm_raise(vm, vm->e_TypeError, "field '%s' does not belong to a '%s' object", f->name->data,
                 vm_type_name(vm, self));
        return NULL;
    }
    return c;
}

static Value field_get(ARGS) {
    CFieldObj *f = (CFieldObj *)fn->payload.as.o;
    CDataObj *c = field_target(vm, f, argv[0]);
    if (!c) return val_null();
    return cdata_get(vm, f->type, c->ptr + f->offset, argv[0]);
}

static Value field_set(ARGS) {
    CFieldObj *f = (CFieldObj *)fn->payload.as.o;
    CDataObj *c = field_target(vm, f, argv[0]);
    if (!c) return val_null();
    if (cdata_set(vm, f->type, c->ptr + f->offset, argv[1], c) < 0) return val_null();
    return val_none();
}

static Value field_del(ARGS) { return vm_raise(vm, vm->e_TypeError, "can't delete attribute"); }

static Value cfield_repr(ARGS) {
    CFieldObj *f = (CFieldObj *)argv[0].as.o;
    StrObj *s = str_printf(vm, "<Field type=%s, ofs=%lld, size=%lld>", AS_TYPE(f->type)->name->data,
                           (long long)f->offset, (long long)f->size);
    return s ? val_obj(s) : val_null();
}

static Value cfield_get_offset(VM *vm, Value self, void *c) { return val_int(((CFieldObj *)self.as.o)->offset); }
static Value cfield_get_size(VM *vm, Value self, void *c) { return val_int(((CFieldObj *)self.as.o)->size); }

static CFieldObj *cfield_new(VM *vm, StrObj *name, Value type, int64_t offset, int64_t size) {
    FfiState *fs = ffi_state(vm);
    CFieldObj *f = gc_alloc(vm, fs->t_cfield, sizeof(CFieldObj));
    if (!f) return NULL;
    f->type = type;
    f->name = name;
    f->offset = offset;
    f->size = size;
    f->prop.fget = f->prop.fset = f->prop.fdel = val_null();
    f->prop.doc = val_none();
    f->prop.name = val_obj(name);
    vm_push_root(vm, val_obj(f));
    NativeObj *g = native_new_closure(vm, "__get__", field_get, val_obj(f));
    if (g) f->prop.fget = val_obj(g);
    NativeObj *s = g ? native_new_closure(vm, "__set__", field_set, val_obj(f)) : NULL;
    if (s) f->prop.fset = val_obj(s);
    NativeObj *d = s ? native_new_closure(vm, "__delete__", field_del, val_obj(f)) : NULL;
    if (d) f->prop.fdel = val_obj(d);
    vm_pop_root(vm);
    return d ? f : NULL;
}

/* ---- layout ----------------------------------------------------------------------------------- */

static int64_t align_up(int64_t x, int64_t a) { return a > 1 ? (x + a - 1) / a * a : x; }

/* The struct/union's libffi type: fields in order (a union passes as its largest member). */
static int build_ffi(VM *vm, StgInfo *stg, bool is_union) {
    TupleObj *fields = stg->fields;
    int64_t n = fields ? fields->len : 0;
    free(stg->ffi_elements);
    stg->ffi_elements = NULL;
    int64_t nel = is_union ? (n ? 1 : 0) : n;
    ffi_type **el = calloc((size_t)nel + 1, sizeof(ffi_type *));
    if (!el) {
        vm_no_memory(vm);
        return -1;
    }
    if (is_union) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; i++) {
            CFieldObj *f = (CFieldObj *)fields->items[i].as.o;
            StgInfo *fs = stg_of_type(vm, f->type);
            if (best < 0 || fs->size > ((CFieldObj *)fields->items[best].as.o)->size ||
                (fs->size == ((CFieldObj *)fields->items[best].as.o)->size &&
                 fs->align > stg_of_type(vm, ((CFieldObj *)fields->items[best].as.o)->type)->align))
                best = i;
        }
        if (best >= 0) {
            el[0] = stg_ffi(vm, stg_of_type(vm, ((CFieldObj *)fields->items[best].as.o)->type));
            if (!el[0]) {
                free(el);
                return -1;
            }
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            CFieldObj *f = (CFieldObj *)fields->items[i].as.o;
            el[i] = stg_ffi(vm, stg_of_type(vm, f->type));
            if (!el[i]) {
                free(el);
                return -1;
            }
        }
    }
    stg->ffi_elements = el;
    stg->ffi_owned.type = FFI_TYPE_STRUCT;
    stg->ffi_owned.size = (size_t)stg->size;
    stg->ffi_owned.alignment = (unsigned short)stg->align;
    stg->ffi_owned.elements = el;
    stg->ffi = &stg->ffi_owned;
    return 0;
}

/* The base class's StgInfo if it is a struct/union with a layout. */
static StgInfo *base_stg(VM *vm, TypeObj *cls) {
    return cls->base ? stg_of_type(vm, val_obj(cls->base)) : NULL;
}

int struct_set_fields(VM *vm, TypeObj *cls, Value fields, bool is_union) {
    FfiState *fs = ffi_state(vm);
    StgInfo *stg = (StgInfo *)cls->native_data;
    if (stg && (stg->flags & STGF_FINAL)) {
        vm_raise(vm, vm->e_AttributeError, "_fields_ is final");
        return -1;
    }
    Value holder = val_null();
    int64_t n;
    if (!val_is_type(vm, fields, vm->t_list) && !val_is_type(vm, fields, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "'_fields_' must be a sequence of pairs");
        return -1;
    }
    Value *items = vm_sequence_items(vm, fields, &n, &holder);
    if (!items) return -1;
    Value anon = type_lookup(vm, cls, fs->s_anonymous);
    if (!val_is_null(anon)) {
        int64_t na = vm_len(vm, anon);
        if (na < 0) return -1;
        if (na > 0) {
            vm_raise(vm, vm->e_NotImplementedError, "_anonymous_ fields are not supported");
            return -1;
        }
    }
    int64_t pack = 0;
    Value pv = type_lookup(vm, cls, fs->s_pack);
    if (!val_is_null(pv)) {
        if (!val_is_intlike(pv) || val_as_intlike(pv) < 0) {
            vm_raise(vm, vm->e_ValueError, "_pack_ must be a non-negative integer");
            return -1;
        }
        pack = val_as_intlike(pv);
    }
    StgInfo *bs = base_stg(vm, cls);
    int64_t nbase = bs && bs->fields ? bs->fields->len : 0;
    TupleObj *all = tuple_new(vm, nbase + n);
    if (!all) return -1;
    vm_push_root(vm, val_obj(all));
    int64_t size = bs ? bs->size : 0, align = bs ? bs->align : 1, total = 0;
    for (int64_t i = 0; i < nbase; i++) all->items[i] = bs->fields->items[i];
    if (bs) bs->flags |= STGF_FINAL;
    for (int64_t i = 0; i < n; i++) {
        Value it = items[i];
        if (!val_is_type(vm, it, vm->t_tuple) || AS_TUPLE(it)->len < 2 || AS_TUPLE(it)->len > 3 ||
            !val_is_str(vm, AS_TUPLE(it)->items[0])) {
            vm_raise(vm, vm->e_TypeError, "'_fields_' must be a sequence of (name, C type) pairs");
            goto fail;
        }
        Value ftype = AS_TUPLE(it)->items[1];
        StgInfo *fstg = stg_of_type(vm, ftype);
        if (!fstg) {
            vm_raise(vm, vm->e_TypeError, "second item in _fields_ tuple (index %lld) must be a C type", (long long)i);
            goto fail;
        }
        if (AS_TUPLE(it)->len == 3) {
            vm_raise(vm, vm->e_NotImplementedError, "bit fields are not supported");
            goto fail;
        }
        fstg->flags |= STGF_FINAL;
        int64_t falign = pack ? (fstg->align < pack ? fstg->align : pack) : fstg->align;
        int64_t off;
        if (is_union) {
            off = 0;
            if (fstg->size > size) size = fstg->size;
        } else {
            off = align_up(size, falign);
            size = off + fstg->size;
        }
        if (falign > align) align = falign;
        CFieldObj *f = cfield_new(vm, AS_STR(AS_TUPLE(it)->items[0]), ftype, off, fstg->size);
        if (!f) goto fail;
        all->items[nbase + i] = val_obj(f);
        total++;
    }
    size = align_up(size, align);
    if (!stg) {
        stg = stg_new(vm, is_union ? CK_UNION : CK_STRUCT);
        if (!stg) goto fail;
        cls->native_data = stg;
    }
    stg->fields = all;
    stg->size = size;
    stg->align = align;
    stg->pack = pack;
    stg->flags |= STGF_COMPLETE | STGF_FINAL;
    /* descriptors for this class's own fields */
    for (int64_t i = 0; i < n; i++) {
        CFieldObj *f = (CFieldObj *)all->items[nbase + i].as.o;
        if (dict_set_str(vm, cls->dict, f->name, val_obj(f)) < 0) goto fail;
    }
    type_modified(vm, cls);
    if (build_ffi(vm, stg, is_union) < 0) goto fail;
    vm_pop_root(vm);
    (void)total;
    return 0;
fail:
    vm_pop_root(vm);
    return -1;
}

/* A struct/union class without its own _fields_: the base's layout (or none yet). */
int struct_inherit(VM *vm, TypeObj *cls, bool is_union) {
    StgInfo *bs = base_stg(vm, cls);
    StgInfo *stg = stg_new(vm, is_union ? CK_UNION : CK_STRUCT);
    if (!stg) return -1;
    if (bs) {
        bs->flags |= STGF_FINAL;
        stg->fields = bs->fields;
        stg->size = bs->size;
        stg->align = bs->align;
        stg->pack = bs->pack;
        stg->flags = bs->flags & STGF_COMPLETE;
    }
    cls->native_data = stg;
    vm_push_root(vm, val_obj(stg));
    int rc = build_ffi(vm, stg, is_union);
    vm_pop_root(vm);
    return rc;
}

static Value init_subclass(VM *vm, TypeObj *cls, bool is_union) {
    Value own = dict_get_str(cls->dict, ffi_state(vm)->s_fields);
    int rc = val_is_null(own) ? struct_inherit(vm, cls, is_union) : struct_set_fields(vm, cls, own, is_union);
    return rc < 0 ? val_null() : val_none();
}

static Value struct_init_subclass(ARGS) { return init_subclass(vm, AS_TYPE(argv[0]), false); }
static Value union_init_subclass(ARGS) { return init_subclass(vm, AS_TYPE(argv[0]), true); }

/* Structure(*args, **kwargs): positional values fill the fields in order (bases' first),
 * keywords set attributes by name. */
static Value struct_init(ARGS) {
    StgInfo *stg = stg_of_obj(vm, argv[0]);
    int nargs = argc - 1;
    int64_t nf = stg && stg->fields ? stg->fields->len : 0;
    if (nargs > nf) return vm_raise(vm, vm->e_TypeError, "too many initializers");
    CDataObj *c = CD(argv[0]);
    for (int i = 0; i < nargs; i++) {
        CFieldObj *f = (CFieldObj *)stg->fields->items[i].as.o;
        if (cdata_set(vm, f->type, c->ptr + f->offset, argv[1 + i], c) < 0) return val_null();
    }
    int nkw = kw ? (int)kw->len : 0;
    for (int k = 0; k < nkw; k++) {
        StrObj *name = AS_STR(kw->items[k]);
        for (int i = 0; i < nargs; i++)
            if (str_eq(((CFieldObj *)stg->fields->items[i].as.o)->name, name))
                return vm_raise(vm, vm->e_TypeError, "duplicate values for field '%s'", name->data);
        if (vm_setattr(vm, argv[0], name, argv[argc + k]) < 0) return val_null();
    }
    return val_none();
}

/* ---- the metaclass's _fields_ ------------------------------------------------------------------- */

static Value meta_get_fields(VM *vm, Value self, void *closure) {
    TypeObj *t = AS_TYPE(self);
    Value v = type_lookup(vm, t, ffi_state(vm)->s_fields);
    if (val_is_null(v))
        return vm_raise(vm, vm->e_AttributeError, "type object '%s' has no attribute '_fields_'", t->name->data);
    return v;
}

static int meta_set_fields(VM *vm, Value self, Value v, void *closure) {
    TypeObj *t = AS_TYPE(self);
    FfiState *fs = ffi_state(vm);
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "cannot delete _fields_");
        return -1;
    }
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError, "cannot set '_fields_' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    if (struct_set_fields(vm, t, v, t->hdr.type == fs->meta_union) < 0) return -1;
    if (dict_set_str(vm, t->dict, fs->s_fields, v) < 0) return -1;
    type_modified(vm, t);
    return 0;
}

int ct_struct_init(VM *vm, Value mod) {
    FfiState *fs = ffi_state(vm);
    fs->t_cfield = type_new_builtin(vm, "CField", vm->t_property, OBJ_LAYOUT_PROPERTY, sizeof(CFieldObj), 0,
                                    cfield_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!fs->t_cfield) return -1;
    fs->t_cfield->module = vm_intern(vm, "_ctypes");
    static const MethodDef cfield_m[] = {{"__repr__", cfield_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef cfield_gs[] = {{"offset", cfield_get_offset, NULL}, {"size", cfield_get_size, NULL}, {NULL}};
    if (type_add_methods(vm, fs->t_cfield, cfield_m) < 0 || type_add_getsets(vm, fs->t_cfield, cfield_gs) < 0)
        return -1;

    TraceFn tr = fs->t_cdata->trace;
    FinalizeFn fin = fs->t_cdata->finalize;
    fs->t_struct = ct_new_base(vm, "Structure", fs->t_cdata, fs->meta_struct, sizeof(CDataObj), tr, fin);
    fs->t_union = ct_new_base(vm, "Union", fs->t_cdata, fs->meta_union, sizeof(CDataObj), tr, fin);
    if (!fs->t_struct || !fs->t_union) return -1;
    static const MethodDef struct_m[] = {
        {"__init_subclass__", struct_init_subclass, NATIVEF_CLASSMETHOD},
        {"__init__", struct_init, NATIVEF_METHOD},
        {NULL}};
    static const MethodDef union_m[] = {
        {"__init_subclass__", union_init_subclass, NATIVEF_CLASSMETHOD},
        {"__init__", struct_init, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef meta_gs[] = {{"_fields_", meta_get_fields, meta_set_fields}, {NULL}};
    if (type_add_methods(vm, fs->t_struct, struct_m) < 0 || type_add_methods(vm, fs->t_union, union_m) < 0 ||
        type_add_getsets(vm, fs->meta_struct, meta_gs) < 0 || type_add_getsets(vm, fs->meta_union, meta_gs) < 0)
        return -1;
    if (module_set(vm, mod, "Structure", val_obj(fs->t_struct)) < 0 ||
        module_set(vm, mod, "Union", val_obj(fs->t_union)) < 0 || module_set(vm, mod, "CField", val_obj(fs->t_cfield)) < 0)
        return -1;
    return 0;
}
