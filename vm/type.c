/* vm/type.c — type objects: bootstrap of the core types, built-in type construction, class
 * statements (C3 MRO, layout checks, __set_name__, __init_subclass__, __class__ cell),
 * instantiation, subtype tests and the global method cache. */
#include "vm/type.h"

#include <stdlib.h>
#include <string.h>

#include "vm/bytes_ops.h"
#include "vm/descr.h"
#include "vm/dict.h"
#include "vm/num.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- GC hooks ------------------------------------------------------------------------- */

static void type_trace(VM *vm, Obj *o) {
    TypeObj *t = (TypeObj *)o;
    gc_mark(vm, t->name);
    gc_mark(vm, t->qualname);
    gc_mark_value(vm, t->module);
    gc_mark(vm, t->base);
    gc_mark(vm, t->bases);
    gc_mark(vm, t->mro);
    gc_mark(vm, t->dict);
    gc_mark(vm, t->slots);
    /* The special-method cache is read only through type_special, which refills it when its
     * epoch is stale; a stale one (every class created or changed since it was filled: most
     * types, after imports) is not looked at, which spares reading its SP__COUNT values. */
    if (t->special_epoch == vm->class_epoch)
        for (int i = 0; i < SP__COUNT; i++) gc_mark_value(vm, t->special[i]);
}

static void instance_trace(VM *vm, Obj *o) { gc_mark(vm, ((InstanceObj *)o)->dict); }
static void trace_dict_only(VM *vm, Obj *o) { gc_mark(vm, *obj_dict_slot(o)); }

/* object.__new__(S) for a str or bytes subclass: the value comes from str.__new__ */
static Value refuse_object_new(VM *vm, TypeObj *t) {
    /* CPython names the nearest class that does not define __new__ itself */
    TypeObj *b = t;
    while (b->base && (b->flags & TYPEF_HEAPTYPE) && !val_is_null(dict_get_str(b->dict, vm->special_names[SP_NEW])))
        b = b->base;
    return vm_raise(vm, vm->e_TypeError, "object.__new__(%s) is not safe, use %s.__new__()", t->name->data,
                    b->name->data);
}

static Value instance_alloc(VM *vm, TypeObj *t) {
    Obj *o = gc_alloc(vm, t, t->instance_size);
    return o ? val_obj(o) : val_null();
}

static Value abstract_alloc(VM *vm, TypeObj *t) {
    return vm_raise(vm, vm->e_TypeError, "cannot create '%s' instances", t->name->data);
}

/* ---- method cache ---------------------------------------------------------------------- */

#define MCACHE_SIZE 4096
typedef struct MCacheEntry {
    TypeObj *type;
    StrObj *name;
    uint64_t epoch;
    Value value;
} MCacheEntry;
/* Not a GC root: entries are only trusted while the epoch matches, and every class
 * creation, class dict change and type death bumps the epoch. */
static MCacheEntry mcache[MCACHE_SIZE];

void type_modified(VM *vm, TypeObj *t) {
    (void)t;
    vm->class_epoch++;
}

static Value mro_lookup(TypeObj *t, StrObj *name) {
    TupleObj *mro = t->mro;
    if (!mro) return t->dict ? dict_get_str(t->dict, name) : val_null();
    for (int64_t i = 0; i < mro->len; i++) {
        TypeObj *c = (TypeObj *)mro->items[i].as.o;
        Value v = dict_get_str(c->dict, name);
        if (!val_is_null(v)) return v;
    }
    return val_null();
}

Value type_lookup(VM *vm, TypeObj *t, StrObj *name) {
    if (!(name->hdr.flags & OBJF_INTERNED)) return mro_lookup(t, name);
    size_t h = (((uintptr_t)t >> 4) ^ ((uintptr_t)name >> 3)) & (MCACHE_SIZE - 1);
    MCacheEntry *e = &mcache[h];
    if (e->type == t && e->name == name && e->epoch == vm->class_epoch) return e->value;
    Value v = mro_lookup(t, name);
    e->type = t;
    e->name = name;
    e->epoch = vm->class_epoch;
    e->value = v;
    return v;
}

Value type_special(VM *vm, TypeObj *t, SpecialMethod sp) {
    if (t->special_epoch != vm->class_epoch) {
        for (int i = 0; i < SP__COUNT; i++) t->special[i].tag = VAL_NULL, t->special[i].as.i = 1;
        t->special_epoch = vm->class_epoch;
    }
    Value *slot = &t->special[sp];
    /* VAL_NULL with payload 1 = not looked up yet; payload 0 = absent */
    if (slot->tag == VAL_NULL && slot->as.i == 1) {
        Value v = mro_lookup(t, vm->special_names[sp]);
        if (val_is_null(v)) v.as.i = 0;
        *slot = v;
    }
    return *slot;
}

bool type_is_subtype(TypeObj *a, TypeObj *b) {
    if (a == b) return true;
    TupleObj *mro = a->mro;
    if (!mro) return false;
    for (int64_t i = 0; i < mro->len; i++)
        if (mro->items[i].as.o == (Obj *)b) return true;
    return false;
}

/* ---- construction ------------------------------------------------------------------------ */

static TupleObj *mro_single(VM *vm, TypeObj *t, TypeObj *base) {
    int64_t n = base ? base->mro->len + 1 : 1;
    TupleObj *mro = tuple_new(vm, n);
    if (!mro) return NULL;
    mro->items[0] = val_obj(t);
    for (int64_t i = 1; i < n; i++) mro->items[i] = base->mro->items[i - 1];
    return mro;
}

/* The registry of live classes (vm->all_types, not traced: a dying class removes itself in its
 * finalizer), so type.__subclasses__ — which _py_abc calls on every ABC check — walks the
 * classes, not the heap. */
static void type_register(VM *vm, TypeObj *t) {
    if (vm->n_types == vm->cap_types) {
        int64_t cap = vm->cap_types ? vm->cap_types * 2 : 1024;
        TypeObj **v = realloc(vm->all_types, sizeof(TypeObj *) * (size_t)cap);
        if (!v) return;   /* out of memory: the class is only missing from __subclasses__() */
        vm->all_types = v;
        vm->cap_types = cap;
    }
    vm->all_types[vm->n_types++] = t;
}

static void type_finalize(VM *vm, Obj *o) {
    for (int64_t i = vm->n_types - 1; i >= 0; i--)
        if (vm->all_types[i] == (TypeObj *)o) {
            memmove(vm->all_types + i, vm->all_types + i + 1, sizeof(TypeObj *) * (size_t)(vm->n_types - i - 1));
            vm->n_types--;
            return;
        }
}

/* The direct subclasses of t, oldest first. */
ListObj *type_subclasses_of(VM *vm, TypeObj *t) {
    ListObj *l = list_new(vm, 0);
    if (!l) return NULL;
    vm_push_root(vm, val_obj(l));
    for (int64_t k = 0; k < vm->n_types; k++) {
        TypeObj *c = vm->all_types[k];
        for (int64_t i = 0; c->bases && i < c->bases->len; i++)
            if (c->bases->items[i].as.o == (Obj *)t) {
                if (list_append(vm, l, val_obj(c)) < 0) {
                    vm_pop_root(vm);
                    return NULL;
                }
                break;
            }
    }
    vm_pop_root(vm);
    return l;
}

TypeObj *type_new_builtin(VM *vm, const char *name, TypeObj *base, ObjLayout layout,
                          size_t instance_size, size_t dict_offset, TraceFn trace,
                          FinalizeFn finalize, uint32_t flags) {
    TypeObj *t = gc_alloc(vm, vm->t_type, sizeof(TypeObj));
    if (!t) return NULL;
    type_register(vm, t);
    vm_push_root(vm, val_obj(t));
    t->layout = layout;
    t->instance_size = instance_size;
    t->dict_offset = dict_offset;
    t->trace = trace;
    /* a native metaclass: its instances (classes) leave the registry when they die */
    t->finalize = finalize || layout != OBJ_LAYOUT_TYPE ? finalize : type_finalize;
    t->flags = flags;
    t->base = base;
    t->module = val_null();
    t->alloc = base ? base->alloc : instance_alloc;
    if (flags & TYPEF_ABSTRACT_NEW) t->alloc = abstract_alloc;
    t->name = vm_intern_str(vm, name);
    t->qualname = t->name;
    t->dict = dict_new(vm);
    t->bases = base ? tuple_pack(vm, 1, val_obj(base)) : vm->empty_tuple;
    t->mro = mro_single(vm, t, base);
    if (base && (base->flags & TYPEF_EXCEPTION)) t->flags |= TYPEF_EXCEPTION;
    if (dict_offset && type_add_dict_descriptor(vm, t) < 0) t = NULL;
    vm_pop_root(vm);
    if (t) type_modified(vm, t);
    return t;
}

/* Bootstrap: object, type, str, dict and tuple refer to each other, so they are allocated
 * bare first and completed once strings, dicts and tuples work. */
void type_init_core(VM *vm) {
    TypeObj *tt = calloc(1, sizeof(TypeObj));
    EM_ASSERT(tt != NULL, "out of memory");
    tt->hdr.type = tt;
    tt->hdr.size = sizeof(TypeObj);
    gc_adopt(vm, &tt->hdr);
    vm->t_type = tt;
    tt->layout = OBJ_LAYOUT_TYPE;
    tt->instance_size = sizeof(TypeObj);
    tt->trace = type_trace;
    tt->finalize = type_finalize;   /* inherited by metaclasses */
    tt->flags = TYPEF_BASETYPE;
    type_register(vm, tt);
#define BARE(field, lay, size, tr, fin, fl)                                 \
    do {                                                                    \
        TypeObj *x = gc_alloc(vm, tt, sizeof(TypeObj));                     \
        type_register(vm, x);                                               \
        x->layout = lay;                                                    \
        x->instance_size = size;                                            \
        x->trace = tr;                                                      \
        x->finalize = fin;                                                  \
        x->flags = fl;                                                      \
        vm->t_##field = x;                                                  \
    } while (0)
    BARE(object, OBJ_LAYOUT_INSTANCE, sizeof(InstanceObj), instance_trace, NULL, TYPEF_BASETYPE);
    BARE(str, OBJ_LAYOUT_STR, sizeof(StrObj), NULL, NULL, 0);
    BARE(dict, OBJ_LAYOUT_DICT, sizeof(DictObj), dict_trace, dict_finalize, TYPEF_BASETYPE);
    BARE(tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), tuple_trace, NULL, TYPEF_BASETYPE);
#undef BARE
    vm->t_object->alloc = instance_alloc;
    vm->t_str->alloc = refuse_object_new;
    vm->t_str->flags |= TYPEF_BASETYPE;
    tt->alloc = abstract_alloc;
    tt->base = vm->t_object;
    vm->t_str->base = vm->t_dict->base = vm->t_tuple->base = vm->t_object;

    vm->intern = dict_new(vm);
    vm->empty_str = NULL;
    StrObj *empty = gc_alloc(vm, vm->t_str, sizeof(StrObj) + 1);
    empty->hash = -1;
    vm->empty_str = empty;
    for (int c = 0; c < 128; c++) {
        char ch = (char)c;
        vm->s_cache[c] = str_new(vm, &ch, 1);
    }
    vm->empty_tuple = gc_alloc(vm, vm->t_tuple, sizeof(TupleObj));
    vm->empty_tuple->hash = -1;

    TypeObj *core[] = {vm->t_object, tt, vm->t_str, vm->t_dict, vm->t_tuple};
    const char *names[] = {"object", "type", "str", "dict", "tuple"};
    for (int i = 0; i < 5; i++) {
        TypeObj *t = core[i];
        t->name = t->qualname = vm_intern_str(vm, names[i]);
        t->module = val_null();
        t->dict = dict_new(vm);
        if (t->base) {
            t->bases = tuple_pack(vm, 1, val_obj(t->base));
        } else {
            t->bases = vm->empty_tuple;
        }
    }
    vm->t_object->mro = tuple_pack(vm, 1, val_obj(vm->t_object));
    for (int i = 1; i < 5; i++) core[i]->mro = mro_single(vm, core[i], vm->t_object);
    for (int i = 0; i < SP__COUNT; i++) {
        static const char *const sp_names[] = {
#define X(e, s) s,
            SPECIAL_METHODS(X)
#undef X
        };
        vm->special_names[i] = vm_intern_str(vm, sp_names[i]);
    }
}

/* ---- C3 linearization ------------------------------------------------------------------- */

static int64_t find_in(TupleObj *t, int64_t from, Obj *o) {
    for (int64_t i = from; i < t->len; i++)
        if (t->items[i].as.o == o) return i;
    return -1;
}

static TupleObj *c3_mro(VM *vm, TypeObj *t, TupleObj *bases) {
    int64_t nb = bases->len;
    /* sequences to merge: each base's MRO, then the list of bases */
    int64_t nseq = nb + 1;
    TupleObj **seqs = calloc((size_t)nseq, sizeof *seqs);
    int64_t *heads = calloc((size_t)nseq, sizeof *heads);
    for (int64_t i = 0; i < nb; i++) seqs[i] = ((TypeObj *)bases->items[i].as.o)->mro;
    seqs[nb] = bases;
    int64_t cap = 1;
    for (int64_t i = 0; i < nb; i++) cap += seqs[i]->len;
    Value *out = calloc((size_t)cap, sizeof(Value));
    int64_t n = 0;
    out[n++] = val_obj(t);
    TupleObj *result = NULL;
    for (;;) {
        bool any = false;
        Obj *chosen = NULL;
        for (int64_t i = 0; i < nseq && !chosen; i++) {
            if (heads[i] >= seqs[i]->len) continue;
            any = true;
            Obj *cand = seqs[i]->items[heads[i]].as.o;
            bool in_tail = false;
            for (int64_t j = 0; j < nseq && !in_tail; j++)
                if (find_in(seqs[j], heads[j] + 1, cand) >= 0) in_tail = true;
            if (!in_tail) chosen = cand;
        }
        if (!any) break;
        if (!chosen) {
            StrBuf b;
            sb_init(&b);
            sb_adds(&b, "Cannot create a consistent method resolution\norder (MRO) for bases ");
            for (int64_t i = 0; i < nb; i++) {
                if (i) sb_adds(&b, ", ");
                sb_add_str(&b, ((TypeObj *)bases->items[i].as.o)->name);
            }
            StrObj *msg = sb_finish(vm, &b);
            if (msg) vm_raise_str(vm, vm->e_TypeError, msg);
            goto done;
        }
        out[n++] = val_obj(chosen);
        for (int64_t i = 0; i < nseq; i++)
            if (heads[i] < seqs[i]->len && seqs[i]->items[heads[i]].as.o == chosen) heads[i]++;
    }
    result = tuple_from_array(vm, out, n);
done:
    free(seqs);
    free(heads);
    free(out);
    return result;
}

/* ---- class statement ---------------------------------------------------------------------- */

static size_t layout_dict_offset(TypeObj *solid) {
    switch (solid->layout) {
    case OBJ_LAYOUT_INSTANCE: return offsetof(InstanceObj, dict);
    case OBJ_LAYOUT_LIST: return offsetof(ListObj, dict);
    case OBJ_LAYOUT_DICT: return offsetof(DictObj, dict);
    case OBJ_LAYOUT_TUPLE: return offsetof(TupleObj, dict);
    case OBJ_LAYOUT_SET: return offsetof(SetObj, dict);
    case OBJ_LAYOUT_EXCEPTION: return offsetof(ExceptionObj, dict);
    case OBJ_LAYOUT_WEAKREF: return offsetof(WeakRefObj, dict);
    case OBJ_LAYOUT_INT: return offsetof(IntObj, dict);
    case OBJ_LAYOUT_STR: return offsetof(StrObj, dict);
    case OBJ_LAYOUT_BYTES: return offsetof(BytesObj, dict);
    case OBJ_LAYOUT_FLOAT: return offsetof(FloatObj, dict);
    case OBJ_LAYOUT_STATICMETHOD: case OBJ_LAYOUT_CLASSMETHOD: return offsetof(WrapperObj, dict);
    case OBJ_LAYOUT_PROPERTY: return offsetof(PropertyObj, dict);
    case OBJ_LAYOUT_COMPLEX: return complex_dict_offset();
    case OBJ_LAYOUT_BYTEARRAY: return offsetof(ByteArrayObj, dict);
    default: return solid->dict_offset;
    }
}

/* The base whose C layout instances must have: the most derived non-instance layout. */
static TypeObj *solid_base(VM *vm, TupleObj *bases) {
    TypeObj *best = NULL;
    for (int64_t i = 0; i < bases->len; i++) {
        TypeObj *b = (TypeObj *)bases->items[i].as.o;
        /* walk up to the first type that defines the layout (a C layout, or slots added): as
         * CPython's solid_base, a built-in type whose instances are its base's in every C respect
         * (size, tracing, finalizing, allocating) shares the base's, so class E(OSError,
         * ValueError) works: both are BaseException inside */
        TypeObj *s = b;
        while (s->base && s->layout == s->base->layout && s->nslotvals == s->base->nslotvals &&
               ((s->flags & TYPEF_HEAPTYPE) ||
                (s->instance_size == s->base->instance_size && s->trace == s->base->trace &&
                 s->finalize == s->base->finalize && s->alloc == s->base->alloc)))
            s = s->base;
        if (!best) { best = s; continue; }
        bool s_plain = s->layout == OBJ_LAYOUT_INSTANCE && !s->nslotvals;
        bool best_plain = best->layout == OBJ_LAYOUT_INSTANCE && !best->nslotvals;
        if (type_is_subtype(s, best)) best = s;
        else if (!type_is_subtype(best, s) && !s_plain) {
            if (best_plain) best = s;
            else {
                vm_raise(vm, vm->e_TypeError, "multiple bases have instance lay-out conflict");
                return NULL;
            }
        }
    }
    return best;
}

/* cls.__bases__ = bases (CPython's type_set_bases): heap classes only, to bases whose instance
 * layout is the current one's; the class's MRO is recomputed (its subclasses keep theirs — Ember
 * does not track subclasses; typing.NamedTuple, the stdlib user, assigns before any exist). */
int type_set_bases(VM *vm, TypeObj *t, Value v) {
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError, "cannot set '__bases__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "cannot delete '__bases__' attribute of immutable type '%s'", t->name->data);
        return -1;
    }
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "can only assign tuple to %s.__bases__, not %s", t->name->data, vm_type_name(vm, v));
        return -1;
    }
    TupleObj *bases = AS_TUPLE(v);
    if (bases->len == 0) {
        vm_raise(vm, vm->e_TypeError, "can only assign non-empty tuple to %s.__bases__, not ()", t->name->data);
        return -1;
    }
    for (int64_t i = 0; i < bases->len; i++) {
        Value b = bases->items[i];
        if (!val_is_obj(b) || !vm_isinstance_type(vm, b, vm->t_type)) {
            vm_raise(vm, vm->e_TypeError, "%s.__bases__ must be tuple of classes, not '%s'", t->name->data, vm_type_name(vm, b));
            return -1;
        }
        if (type_is_subtype(AS_TYPE(b), t)) {
            vm_raise(vm, vm->e_TypeError, "a __bases__ item causes an inheritance cycle");
            return -1;
        }
    }
    TypeObj *solid = solid_base(vm, bases);
    if (!solid) return -1;
    TypeObj *old_solid = solid_base(vm, t->bases);
    if (!old_solid) return -1;
    if (solid->layout != old_solid->layout || solid->instance_size != old_solid->instance_size ||
        solid->nslotvals != old_solid->nslotvals || solid->trace != old_solid->trace) {
        vm_raise(vm, vm->e_TypeError, "__bases__ assignment: '%s' object layout differs from '%s'",
                 solid->name->data, old_solid->name->data);
        return -1;
    }
    TupleObj *mro = c3_mro(vm, t, bases);
    if (!mro) return -1;
    TypeObj *first = AS_TYPE(bases->items[0]);
    t->bases = bases;
    t->base = type_is_subtype(first, solid) ? first : solid;
    t->mro = mro;
    type_modified(vm, t);
    return 0;
}

static bool is_plain_function(VM *vm, Value v) { return val_is_type(vm, v, vm->t_function); }

/* ---- __slots__, __dict__ and __weakref__ ---------------------------------------------------------
 * A class with __slots__ gives its instances one Value field per name (after the fields of its
 * solid base, and after the bases' slots), read and written by member descriptors in the class
 * dict; its instances have no attribute dict unless "__dict__" is a slot or a base has one, and
 * take weak references only with "__weakref__" (or a base's).  A class without __slots__ gets
 * both.  The class that introduces the dict/weakref support carries the __dict__ and
 * __weakref__ descriptors, as in CPython. */

static void instance_trace_slots(VM *vm, Obj *o) {
    TypeObj *t = o->type;
    /* the fields of the layout the slots were added to */
    TypeObj *b = t;
    while (b->trace == instance_trace_slots) b = b->base;
    if (b->trace) b->trace(vm, o);
    DictObj **d = obj_dict_slot(o);
    if (d) gc_mark(vm, *d);
    Value *v = (Value *)((char *)o + t->slots_offset);
    for (int32_t i = 0; i < t->nslotvals; i++) gc_mark_value(vm, v[i]);
}

/* _Py_Mangle: "__x" in class C is "_C__x". */
static StrObj *mangle_slot(VM *vm, StrObj *cls, StrObj *name) {
    if (name->len < 3 || name->data[0] != '_' || name->data[1] != '_') return name;
    if (name->data[name->len - 1] == '_' && name->data[name->len - 2] == '_') return name;
    if (memchr(name->data, '.', (size_t)name->len)) return name;
    const char *c = cls->data;
    while (*c == '_') c++;
    if (!*c) return name;
    return str_printf(vm, "_%s%s", c, name->data);
}

/* obj.__dict__ (made on first use) and its assignment */
static Value dict_getter(VM *vm, Value s, void *c) {
    DictObj **slot = val_is_obj(s) ? obj_dict_slot(s.as.o) : NULL;
    if (!slot)
        return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '__dict__'", vm_type_name(vm, s));
    if (!*slot) {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        *slot = d;
    }
    return val_obj(*slot);
}

static int dict_setter(VM *vm, Value s, Value v, void *c) {
    DictObj **slot = val_is_obj(s) ? obj_dict_slot(s.as.o) : NULL;
    if (!slot) {
        vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '__dict__'", vm_type_name(vm, s));
        return -1;
    }
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_TypeError, "cannot delete __dict__");
        return -1;
    }
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "__dict__ must be set to a dictionary, not a '%s'", vm_type_name(vm, v));
        return -1;
    }
    *slot = AS_DICT(v);
    return 0;
}

static Value weakref_getter(VM *vm, Value s, void *c) {
    extern Value weakref_find(VM *vm, Obj *o);
    return val_is_obj(s) ? weakref_find(vm, s.as.o) : val_none();
}

static int add_getset(VM *vm, TypeObj *t, const char *name, GetterFn get, SetterFn set) {
    GetSetObj *g = gc_alloc(vm, vm->t_getset, sizeof(GetSetObj));
    if (!g) return -1;
    g->name = name;
    g->get = get;
    g->set = set;
    g->owner = t;
    return dict_set_c(vm, t->dict, name, val_obj(g));
}

int type_add_dict_descriptor(VM *vm, TypeObj *t) {
    if (!val_is_null(dict_get_c(vm, t->dict, "__dict__"))) return 0;
    return add_getset(vm, t, "__dict__", dict_getter, dict_setter);
}

static bool type_weakrefable(TypeObj *t) {
    for (; t; t = t->base)
        if (t->flags & TYPEF_WEAKREFS) return true;
    return false;
}

static int class_slots_init(VM *vm, TypeObj *t, TypeObj *solid) {
    bool base_dict = t->base->dict_offset != 0, base_weak = type_weakrefable(t->base);
    /* classes (instances of a metaclass) keep their attributes in the class dict and take weak
     * references: a metaclass adds neither descriptor */
    if (solid->layout == OBJ_LAYOUT_TYPE) base_dict = base_weak = true;
    for (int64_t i = 0; i < t->bases->len; i++) {
        TypeObj *b = AS_TYPE(t->bases->items[i]);
        if (b->dict_offset) base_dict = true;
        if (type_weakrefable(b)) base_weak = true;
    }
    Value s = dict_get_c(vm, t->dict, "__slots__");
    bool add_dict = false, add_weak = false;
    int rc = -1;
    ListObj *names = NULL;
    if (val_is_null(s)) {
        add_dict = !base_dict;
        add_weak = !base_weak;
        goto finish;
    }
    names = list_new(vm, 4);
    if (!names) return -1;
    vm_push_root(vm, val_obj(names));
    if (val_is_str(vm, s)) {
        if (list_append(vm, names, s) < 0) goto done;
    } else if (list_extend(vm, names, s) < 0) {
        goto done;
    }
    int64_t nown = 0;
    for (int64_t i = 0; i < names->len; i++) {
        Value n = names->items[i];
        if (!val_is_str(vm, n)) {
            vm_raise(vm, vm->e_TypeError, "__slots__ items must be strings, not '%s'", vm_type_name(vm, n));
            goto done;
        }
        StrObj *ns = AS_STR(n);
        if (!str_is_identifier(ns)) {
            vm_raise(vm, vm->e_TypeError, "__slots__ must be identifiers");
            goto done;
        }
        if (str_eq_c(ns, "__dict__")) {
            if (base_dict || add_dict) {
                vm_raise(vm, vm->e_TypeError, "__dict__ slot disallowed: we already got one");
                goto done;
            }
            add_dict = true;
            continue;
        }
        if (str_eq_c(ns, "__weakref__")) {
            if (base_weak || add_weak) {
                vm_raise(vm, vm->e_TypeError, "__weakref__ slot disallowed: either we already got one, or the base type cannot have one");
                goto done;
            }
            add_weak = true;
            continue;
        }
        StrObj *m = mangle_slot(vm, t->name, ns);
        if (!m || !(m = str_intern(vm, m))) goto done;
        if (!val_is_null(dict_get_str(t->dict, m))) {
            vm_raise(vm, vm->e_ValueError, "'%s' in __slots__ conflicts with class variable", ns->data);
            goto done;
        }
        names->items[nown++] = val_obj(m);
    }
    if (nown && (solid->layout == OBJ_LAYOUT_STR || solid->layout == OBJ_LAYOUT_BYTES ||
                 solid->layout == OBJ_LAYOUT_TUPLE || solid->layout == OBJ_LAYOUT_INT)) {
        TypeObj *b = solid;
        while (b->flags & TYPEF_HEAPTYPE) b = b->base;
        vm_raise(vm, vm->e_TypeError, "nonempty __slots__ not supported for subtype of '%s'", b->name->data);
        goto done;
    }
    /* __dict__ also comes from a base that has one (CPython's may_add_dict) */
    t->slots = tuple_from_array(vm, names->items, nown);
    if (!t->slots) goto done;
    if (nown) {
        if (!t->nslotvals) t->slots_offset = (int32_t)t->instance_size;
        for (int64_t i = 0; i < nown; i++) {
            int64_t off = t->slots_offset + (int64_t)(t->nslotvals + i) * (int64_t)sizeof(Value);
            Value md = member_new(vm, t, AS_STR(names->items[i]), off, MEMBER_VALUE, false);
            if (val_is_null(md) || dict_set_str(vm, t->dict, AS_STR(names->items[i]), md) < 0) goto done;
        }
        t->nslotvals += (int32_t)nown;
        t->instance_size = (size_t)t->slots_offset + (size_t)t->nslotvals * sizeof(Value);
    }
    if (!add_dict && !base_dict) t->dict_offset = 0;
finish:
    if (add_dict && dict_get_c(vm, t->dict, "__dict__").tag == VAL_NULL &&
        add_getset(vm, t, "__dict__", dict_getter, dict_setter) < 0)
        goto done;
    if (add_weak || base_weak) t->flags |= TYPEF_WEAKREFS;
    if (add_weak && dict_get_c(vm, t->dict, "__weakref__").tag == VAL_NULL &&
        add_getset(vm, t, "__weakref__", weakref_getter, NULL) < 0)
        goto done;
    if (t->nslotvals) {
        t->trace = instance_trace_slots;
    } else if (!t->trace && t->dict_offset) {
        /* layouts whose base instances need no tracing (str, bytes) still have the dict */
        t->trace = trace_dict_only;
    }
    rc = 0;
done:
    if (names) vm_pop_root(vm);
    return rc;
}

Value type_new_class(VM *vm, TypeObj *meta, StrObj *name, TupleObj *bases, DictObj *ns,
                     int nkw, Value *kwvals, TupleObj *kwnames) {
    if (bases->len == 0) {
        bases = tuple_pack(vm, 1, val_obj(vm->t_object));
        if (!bases) return val_null();
    }
    vm_push_root(vm, val_obj(bases));
    TypeObj *t = NULL;
    for (int64_t i = 0; i < bases->len; i++) {
        Value b = bases->items[i];
        if (!val_is_obj(b) || !vm_isinstance_type(vm, b, vm->t_type)) {
            vm_raise(vm, vm->e_TypeError, "bases must be types");
            goto fail;
        }
        TypeObj *bt = (TypeObj *)b.as.o;
        if (!(bt->flags & TYPEF_BASETYPE)) {
            vm_raise(vm, vm->e_TypeError, "type '%s' is not an acceptable base type", bt->name->data);
            goto fail;
        }
        for (int64_t j = 0; j < i; j++)
            if (bases->items[j].as.o == b.as.o) {
                vm_raise(vm, vm->e_TypeError, "duplicate base class %s", bt->name->data);
                goto fail;
            }
    }
    TypeObj *solid = solid_base(vm, bases);
    if (!solid) goto fail;
    t = gc_alloc(vm, meta, sizeof(TypeObj));
    if (!t) goto fail;
    type_register(vm, t);
    vm_push_root(vm, val_obj(t));
    TypeObj *first = (TypeObj *)bases->items[0].as.o;
    t->base = type_is_subtype(first, solid) ? first : solid;
    t->name = name;
    t->qualname = name;
    t->module = val_null();
    t->bases = bases;
    t->layout = solid->layout;
    t->flags = TYPEF_HEAPTYPE | TYPEF_BASETYPE;
    t->trace = solid->trace;
    t->finalize = solid->finalize;
    t->alloc = solid->alloc;
    t->native_data = solid->native_data;
    /* plain object subclasses get the instance layout (with a dict); others keep theirs, slots
     * of the bases included */
    t->nslotvals = solid->nslotvals;
    t->slots_offset = solid->slots_offset;
    t->instance_size = solid->layout == OBJ_LAYOUT_INSTANCE && !solid->nslotvals ? sizeof(InstanceObj) : solid->instance_size;
    for (int64_t i = 0; i < bases->len; i++) {
        TypeObj *bt = (TypeObj *)bases->items[i].as.o;
        if (bt->instance_size > t->instance_size && type_is_subtype(bt, solid))
            t->instance_size = bt->instance_size;
        if (bt->flags & TYPEF_EXCEPTION) t->flags |= TYPEF_EXCEPTION;
    }
    t->dict_offset = layout_dict_offset(solid);
    t->mro = c3_mro(vm, t, bases);
    if (!t->mro) goto fail_t;
    t->dict = dict_copy(vm, ns);
    if (!t->dict) goto fail_t;
    /* __qualname__ and __classcell__ are consumed, not stored */
    Value qn = dict_get_c(vm, t->dict, "__qualname__");
    if (!val_is_null(qn)) {
        if (!val_is_str(vm, qn)) {
            vm_raise(vm, vm->e_TypeError, "type __qualname__ must be a str, not %s",
                     vm_type_name(vm, qn));
            goto fail_t;
        }
        t->qualname = (StrObj *)qn.as.o;
        dict_del_str(vm, t->dict, vm_intern_str(vm, "__qualname__"));
    }
    Value cell = dict_get_c(vm, t->dict, "__classcell__");
    if (!val_is_null(cell)) {
        if (val_is_type(vm, cell, vm->t_cell)) ((CellObj *)cell.as.o)->v = val_obj(t);
        dict_del_str(vm, t->dict, vm_intern_str(vm, "__classcell__"));
    }
    Value mod = dict_get_c(vm, t->dict, "__module__");
    if (val_is_null(mod) && vm->frame) {
        /* type(name, bases, ns) without __module__: the caller's module, as CPython */
        mod = dict_get_c(vm, vm->frame->globals, "__name__");
        if (!val_is_null(mod) && dict_set_c(vm, t->dict, "__module__", mod) < 0) goto fail_t;
    }
    if (!val_is_null(mod)) t->module = mod;
    if (class_slots_init(vm, t, solid) < 0) goto fail_t;
    if (val_is_null(dict_get_c(vm, t->dict, "__doc__")) &&
        dict_set_c(vm, t->dict, "__doc__", val_none()) < 0)
        goto fail_t;
    /* a class that defines __eq__ but not __hash__ is unhashable */
    if (!val_is_null(dict_get_c(vm, t->dict, "__eq__")) && val_is_null(dict_get_c(vm, t->dict, "__hash__")) &&
        dict_set_c(vm, t->dict, "__hash__", val_none()) < 0)
        goto fail_t;
    /* __new__ is a static method, __init_subclass__ and __class_getitem__ class methods */
    static const struct { const char *name; bool cls; } implicit[] = {
        {"__new__", false}, {"__init_subclass__", true}, {"__class_getitem__", true}};
    for (int i = 0; i < 3; i++) {
        Value f = dict_get_c(vm, t->dict, implicit[i].name);
        if (val_is_null(f) || !is_plain_function(vm, f)) continue;
        WrapperObj *w = gc_alloc(vm, implicit[i].cls ? vm->t_classmethod : vm->t_staticmethod,
                                 sizeof(WrapperObj));
        if (!w) goto fail_t;
        w->func = f;
        if (dict_set_c(vm, t->dict, implicit[i].name, val_obj(w)) < 0) goto fail_t;
    }
    type_modified(vm, t);
    if (!val_is_null(type_special(vm, t, SP_DEL))) vm->gc_finalizers = true;   /* vm/gc.c */
    /* __set_name__ on the class body's descriptors, in definition order */
    {
        DictObj *snap = dict_copy(vm, t->dict);
        if (!snap) goto fail_t;
        vm_push_root(vm, val_obj(snap));
        int64_t pos = 0;
        Value k, v;
        while (dict_next(snap, &pos, &k, &v)) {
            Value sn = type_special(vm, vm_type_of(vm, v), SP_SET_NAME);
            if (val_is_null(sn)) continue;
            Value args[3] = {v, val_obj(t), k};
            Value r = vm_call(vm, sn, 3, args, NULL);
            if (val_is_null(r)) {
                /* CPython 3.11 chains a RuntimeError naming the descriptor and the class */
                Value cause = vm_fetch_exc(vm);
                vm_push_root(vm, cause);
                Value kr = vm_repr(vm, k);
                if (!val_is_null(kr)) {
                    vm_raise(vm, vm->e_RuntimeError, "Error calling __set_name__ on '%s' instance %s in '%s'",
                             vm_type_name(vm, v), AS_STR(kr)->data, t->name->data);
                    if (val_is_obj(vm->exc) && (vm->exc.as.o->type->flags & TYPEF_EXCEPTION)) {
                        ExceptionObj *ne = (ExceptionObj *)vm->exc.as.o;
                        ne->cause = ne->context = cause;
                        ne->suppress_context = true;
                    }
                }
                vm_pop_roots(vm, 2);
                goto fail_t;
            }
        }
        vm_pop_root(vm);
    }
    /* super(t, t).__init_subclass__(**kw) */
    {
        Value init_sub = val_null();
        for (int64_t i = 1; i < t->mro->len && val_is_null(init_sub); i++) {
            TypeObj *c = (TypeObj *)t->mro->items[i].as.o;
            init_sub = dict_get_str(c->dict, vm->special_names[SP_INIT_SUBCLASS]);
        }
        if (!val_is_null(init_sub)) {
            Value bound = vm_bind_descriptor(vm, init_sub, val_null(), t);
            if (val_is_null(bound)) goto fail_t;
            vm_push_root(vm, bound);
            Value r = vm_call(vm, bound, 0, kwvals, kwnames);
            vm_pop_root(vm);
            if (val_is_null(r)) goto fail_t;
        } else if (nkw) {
            vm_raise(vm, vm->e_TypeError, "%s.__init_subclass__() takes no keyword arguments",
                     name->data);
            goto fail_t;
        }
    }
    vm_pop_roots(vm, 2);
    return val_obj(t);
fail_t:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- instantiation ------------------------------------------------------------------------ */

Value type_alloc_instance(VM *vm, TypeObj *t) { return t->alloc(vm, t); }

extern Value object_new_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);
extern Value object_init_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);

static bool is_native(Value v, NativeFn f) {
    return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE &&
           ((NativeObj *)v.as.o)->fn == f;
}

/* Call `f` with `first` prepended to the arguments. */
static Value call_prepend(VM *vm, Value f, Value first, int argc, Value *argv, TupleObj *kw) {
    int total = argc + (kw ? (int)kw->len : 0);
    Value small[16];
    Value *buf = total + 1 <= 16 ? small : malloc(sizeof(Value) * (size_t)(total + 1));
    if (!buf) return vm_no_memory(vm);
    buf[0] = first;
    if (total) memcpy(buf + 1, argv, sizeof(Value) * (size_t)total);
    Value r = vm_call(vm, f, argc + 1, buf, kw);
    if (buf != small) free(buf);
    return r;
}

TypeObj *type_calculate_metaclass(VM *vm, TypeObj *meta, TupleObj *bases) {
    TypeObj *winner = meta;
    for (int64_t i = 0; i < bases->len; i++) {
        TypeObj *tmp = vm_type_of(vm, bases->items[i]);
        if (type_is_subtype(winner, tmp)) continue;
        if (type_is_subtype(tmp, winner)) {
            winner = tmp;
            continue;
        }
        vm_raise(vm, vm->e_TypeError, "metaclass conflict: the metaclass of a derived class must be a "
                 "(non-strict) subclass of the metaclasses of all its bases");
        return NULL;
    }
    return winner;
}

Value type_call(VM *vm, TypeObj *t, int argc, Value *argv, TupleObj *kw) {
    if (t == vm->t_type) {
        /* type(x) is x's type; type(name, bases, ns, **kw) makes a class */
        if (argc == 1 && (!kw || kw->len == 0)) return val_obj(vm_type_of(vm, argv[0]));
        if (argc != 3) return vm_raise(vm, vm->e_TypeError, "type() takes 1 or 3 arguments");
    }
    Value newf = type_special(vm, t, SP_NEW);
    Value initf = type_special(vm, t, SP_INIT);
    Value obj;
    if (is_native(newf, object_new_fn)) {
        int nargs = argc + (kw ? (int)kw->len : 0);
        if (nargs && is_native(initf, object_init_fn))
            return vm_raise(vm, vm->e_TypeError, "%s() takes no arguments", t->name->data);
        if (t->flags & TYPEF_IS_ABSTRACT) return type_abstract_error(vm, t);
        obj = t->alloc(vm, t);
    } else {
        if (val_is_null(newf)) return vm_raise(vm, vm->e_TypeError, "cannot create '%s' instances", t->name->data);
        Value nf = newf;
        if (val_is_type(vm, nf, vm->t_staticmethod)) nf = ((WrapperObj *)nf.as.o)->func;
        obj = call_prepend(vm, nf, val_obj(t), argc, argv, kw);
    }
    if (val_is_null(obj)) return obj;
    TypeObj *ot = vm_type_of(vm, obj);
    if (ot != t && !type_is_subtype(ot, t)) return obj;
    if (ot != t) initf = type_special(vm, ot, SP_INIT);
    if (val_is_null(initf) || is_native(initf, object_init_fn)) {
        return obj;
    }
    vm_push_root(vm, obj);
    Value r;
    if (initf.tag == VAL_OBJ && initf.as.o->type == vm->t_function) {
        r = call_prepend(vm, initf, obj, argc, argv, kw);
    } else {
        Value bound = vm_bind_descriptor(vm, initf, obj, ot);
        if (val_is_null(bound)) {
            vm_pop_root(vm);
            return bound;
        }
        vm_push_root(vm, bound);
        r = vm_call(vm, bound, argc, argv, kw);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    if (!val_is_none(r))
        return vm_raise(vm, vm->e_TypeError, "__init__() should return None, not '%s'",
                        vm_type_name(vm, r));
    return obj;
}

/* ---- isinstance / issubclass --------------------------------------------------------------
 * CPython's protocol: an exact type match first; classes whose metaclass is exactly `type` are
 * checked structurally; otherwise the metaclass's __instancecheck__ / __subclasscheck__ decide
 * (abc.ABCMeta, typing's aliases).  Without a hook, a non-type "class" is anything with a
 * __bases__ tuple (abstract classes), and an instance may claim a class through __class__. */

static bool is_type_obj(VM *vm, Value v) { return val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_type); }

/* The __bases__ tuple of a would-be class, VAL_NULL (no exception) when it has none. */
static Value abstract_bases(VM *vm, Value cls) {
    Value b = vm_getattr_opt(vm, cls, vm_intern_str(vm, "__bases__"));
    if (val_is_null(b)) return b;
    if (!val_is_type(vm, b, vm->t_tuple)) return val_null();
    return b;
}

static int abstract_issubclass(VM *vm, Value derived, Value cls) {
    for (;;) {
        if (val_identical(derived, cls)) return 1;
        Value bases = abstract_bases(vm, derived);
        if (val_is_null(bases)) return val_is_null(vm->exc) ? 0 : -1;
        TupleObj *t = AS_TUPLE(bases);
        if (t->len == 0) return 0;
        if (t->len == 1) {
            derived = t->items[0];
            continue;
        }
        vm_push_root(vm, bases);
        if (vm_check_recursion(vm, " in __subclasscheck__") < 0) {
            vm_pop_root(vm);
            return -1;
        }
        int r = 0;
        for (int64_t i = 0; i < t->len && r == 0; i++) r = abstract_issubclass(vm, t->items[i], cls);
        vm_leave_recursion(vm);
        vm_pop_root(vm);
        return r;
    }
}

static bool is_class_tuple(VM *vm, Value cls) {
    return val_is_type(vm, cls, vm->t_tuple) || val_is_type(vm, cls, vm->t_union);
}

int type_real_isinstance(VM *vm, Value inst, Value cls) {
    if (is_type_obj(vm, cls)) {
        if (vm_isinstance_type(vm, inst, AS_TYPE(cls))) return 1;
        /* an instance may present another class through __class__ (proxies, mocks) */
        TypeObj *it = vm_type_of(vm, inst);
        if (!(it->flags & TYPEF_HEAPTYPE)) return 0;
        Value c = vm_getattr_opt(vm, inst, vm->special_names[SP__CLASS]);
        if (val_is_null(c)) return val_is_null(vm->exc) ? 0 : -1;
        if (is_type_obj(vm, c) && AS_TYPE(c) != it) return type_is_subtype(AS_TYPE(c), AS_TYPE(cls));
        return 0;
    }
    vm_push_root(vm, inst);
    Value b = abstract_bases(vm, cls);
    vm_pop_root(vm);
    if (val_is_null(b)) {
        if (!val_is_null(vm->exc)) return -1;
        vm_raise(vm, vm->e_TypeError, "isinstance() arg 2 must be a type, a tuple of types, or a union");
        return -1;
    }
    Value c = vm_getattr_opt(vm, inst, vm->special_names[SP__CLASS]);
    if (val_is_null(c)) return val_is_null(vm->exc) ? 0 : -1;
    vm_push_root(vm, c);
    int r = abstract_issubclass(vm, c, cls);
    vm_pop_root(vm);
    return r;
}

int type_real_issubclass(VM *vm, Value derived, Value cls) {
    if (is_type_obj(vm, cls) && is_type_obj(vm, derived)) return type_is_subtype(AS_TYPE(derived), AS_TYPE(cls));
    Value b = abstract_bases(vm, derived);
    if (val_is_null(b)) {
        if (!val_is_null(vm->exc)) return -1;
        vm_raise(vm, vm->e_TypeError, "issubclass() arg 1 must be a class");
        return -1;
    }
    if (!is_class_tuple(vm, cls)) {
        b = is_type_obj(vm, cls) ? val_obj(vm->empty_tuple) : abstract_bases(vm, cls);
        if (val_is_null(b)) {
            if (!val_is_null(vm->exc)) return -1;
            vm_raise(vm, vm->e_TypeError, "issubclass() arg 2 must be a class, a tuple of classes, or a union");
            return -1;
        }
    }
    return abstract_issubclass(vm, derived, cls);
}

/* The metaclass's hook (SP_INSTANCECHECK / SP_SUBCLASSCHECK), VAL_NULL when it is type's own. */
static Value check_hook(VM *vm, Value cls, SpecialMethod sp) {
    TypeObj *meta = vm_type_of(vm, cls);
    if (meta == vm->t_type) return val_null();
    Value h = type_special(vm, meta, sp);
    if (val_is_null(h)) return h;
    if (h.tag == VAL_OBJ && h.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)h.as.o)->owner == vm->t_type)
        return val_null();
    return h;
}

static int call_check_hook(VM *vm, Value hook, Value cls, Value arg) {
    if (vm_check_recursion(vm, " in __instancecheck__") < 0) return -1;
    Value args[2] = {cls, arg};
    Value r;
    if (hook.tag == VAL_OBJ && hook.as.o->type == vm->t_function) {
        r = vm_call(vm, hook, 2, args, NULL);
    } else {
        Value b = vm_bind_descriptor(vm, hook, cls, vm_type_of(vm, cls));
        if (val_is_null(b)) {
            vm_leave_recursion(vm);
            return -1;
        }
        vm_push_root(vm, b);
        r = vm_call1(vm, b, arg);
        vm_pop_root(vm);
    }
    vm_leave_recursion(vm);
    if (val_is_null(r)) return -1;
    vm_push_root(vm, r);
    int t = vm_truthy(vm, r);
    vm_pop_root(vm);
    return t;
}

int vm_isinstance(VM *vm, Value obj, Value cls) {
    if (val_is_obj(cls) && vm_type_of(vm, obj) == (TypeObj *)cls.as.o) return 1;
    if (val_is_type(vm, cls, vm->t_type)) return type_real_isinstance(vm, obj, cls);
    if (is_class_tuple(vm, cls)) {
        TupleObj *t = AS_TUPLE(cls);
        if (vm_check_recursion(vm, " in __instancecheck__") < 0) return -1;
        int r = 0;
        for (int64_t i = 0; i < t->len && r == 0; i++) r = vm_isinstance(vm, obj, t->items[i]);
        vm_leave_recursion(vm);
        return r;
    }
    Value hook = val_is_obj(cls) ? check_hook(vm, cls, SP_INSTANCECHECK) : val_null();
    if (!val_is_null(hook)) return call_check_hook(vm, hook, cls, obj);
    return type_real_isinstance(vm, obj, cls);
}

int vm_issubclass(VM *vm, Value sub, Value cls) {
    if (val_is_type(vm, cls, vm->t_type)) {
        if (val_identical(sub, cls)) return 1;
        return type_real_issubclass(vm, sub, cls);
    }
    if (is_class_tuple(vm, cls)) {
        TupleObj *t = AS_TUPLE(cls);
        if (vm_check_recursion(vm, " in __subclasscheck__") < 0) return -1;
        int r = 0;
        for (int64_t i = 0; i < t->len && r == 0; i++) r = vm_issubclass(vm, sub, t->items[i]);
        vm_leave_recursion(vm);
        return r;
    }
    Value hook = val_is_obj(cls) ? check_hook(vm, cls, SP_SUBCLASSCHECK) : val_null();
    if (!val_is_null(hook)) return call_check_hook(vm, hook, cls, sub);
    return type_real_issubclass(vm, sub, cls);
}

/* ---- X | Y: types.UnionType ----------------------------------------------------------------
 * A union is a tuple-layout object of its member types (None stands for NoneType), flattened
 * and without duplicates; isinstance/issubclass treat it like a tuple of types. */

static bool union_member_ok(VM *vm, Value v) {
    return val_is_none(v) || val_is_type(vm, v, vm->t_union) || val_is_type(vm, v, vm->t_genericalias) ||
           (val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_type));
}

static int union_add(VM *vm, ListObj *l, Value v) {
    if (val_is_type(vm, v, vm->t_union)) {
        TupleObj *t = AS_TUPLE(v);
        for (int64_t i = 0; i < t->len; i++)
            if (union_add(vm, l, t->items[i]) < 0) return -1;
        return 0;
    }
    if (val_is_none(v)) v = val_obj(vm->t_none);
    for (int64_t i = 0; i < l->len; i++) {
        if (val_identical(l->items[i], v)) return 0;
        if (val_is_type(vm, v, vm->t_genericalias) && val_is_type(vm, l->items[i], vm->t_genericalias)) {
            int eq = vm_eq(vm, l->items[i], v);
            if (eq) return eq < 0 ? -1 : 0;
        }
    }
    return list_append(vm, l, v);
}

/* a | b for types, None, unions and generic aliases: a types.UnionType (NotImplemented for
 * anything else). */
Value type_or_values(VM *vm, Value a, Value b) {
    if (!union_member_ok(vm, a) || !union_member_ok(vm, b)) return vm->not_implemented;
    ListObj *l = list_new(vm, 2);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    Value r = val_null();
    if (union_add(vm, l, a) == 0 && union_add(vm, l, b) == 0) {
        if (l->len == 1) {
            r = l->items[0];
        } else {
            TupleObj *u = tuple_alloc(vm, vm->t_union, l->len);
            if (u) {
                memcpy(u->items, l->items, sizeof(Value) * (size_t)l->len);
                r = val_obj(u);
            }
        }
    }
    vm_pop_root(vm);
    return r;
}

static Value type_or(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    bool reflected = fn->data != NULL;
    return reflected ? type_or_values(vm, argv[1], argv[0]) : type_or_values(vm, argv[0], argv[1]);
}

static Value union_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *t = AS_TUPLE(argv[0]);
    StrBuf b;
    sb_init(&b);
    for (int64_t i = 0; i < t->len; i++) {
        if (i) sb_adds(&b, " | ");
        TypeObj *m = AS_TYPE(t->items[i]);
        if (val_is_type(vm, t->items[i], vm->t_genericalias)) {
            Value r = vm_repr(vm, t->items[i]);
            if (val_is_null(r)) {
                sb_free(&b);
                return r;
            }
            sb_add_str(&b, AS_STR(r));
        } else if (m == vm->t_none) {
            sb_adds(&b, "None");
        } else {
            StrObj *n = type_repr_name(vm, m);
            if (!n) {
                sb_free(&b);
                return val_null();
            }
            sb_add_str(&b, n);
        }
    }
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value union_or(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return type_or(vm, argc, argv, kw, fn); }

static Value union_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_type(vm, argv[1], vm->t_union)) return vm->not_implemented;
    TupleObj *a = AS_TUPLE(argv[0]), *b = AS_TUPLE(argv[1]);
    if (a->len != b->len) return val_bool(false);
    for (int64_t i = 0; i < a->len; i++) {
        bool found = false;
        for (int64_t j = 0; j < b->len && !found; j++) found = val_identical(a->items[i], b->items[j]);
        if (!found) return val_bool(false);
    }
    return val_bool(true);
}

static Value union_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *t = AS_TUPLE(argv[0]);
    uint64_t h = 0x345678;
    for (int64_t i = 0; i < t->len; i++) h ^= (uint64_t)(uintptr_t)t->items[i].as.o >> 4;
    return val_int((int64_t)(h & INT64_MAX));
}

static Value union_args(VM *vm, Value s, void *c) {
    TupleObj *t = tuple_from_array(vm, AS_TUPLE(s)->items, AS_TUPLE(s)->len);
    return t ? val_obj(t) : val_null();
}

void type_init_union(VM *vm) {
    vm->t_union->trace = tuple_trace;
    static const MethodDef tm[] = {
        {"__or__", type_or, NATIVEF_METHOD, NULL}, {"__ror__", type_or, NATIVEF_METHOD, (void *)1}, {NULL}};
    static const MethodDef um[] = {
        {"__repr__", union_repr, NATIVEF_METHOD}, {"__or__", union_or, NATIVEF_METHOD, NULL},
        {"__ror__", union_or, NATIVEF_METHOD, (void *)1}, {"__eq__", union_eq, NATIVEF_METHOD},
        {"__hash__", union_hash, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef ugs[] = {{"__args__", union_args, NULL}, {NULL}};
    if (type_add_methods(vm, vm->t_type, tm) < 0 || type_add_methods(vm, vm->t_union, um) < 0 ||
        type_add_getsets(vm, vm->t_union, ugs) < 0)
        EM_UNREACHABLE();
}

StrObj *type_qualname(TypeObj *t) { return t->qualname ? t->qualname : t->name; }

StrObj *type_repr_name(VM *vm, TypeObj *t) {
    if (val_is_str(vm, t->module) && !str_eq_c(AS_STR(t->module), "builtins"))
        return str_printf(vm, "%s.%s", AS_STR(t->module)->data, type_qualname(t)->data);
    return type_qualname(t);
}

/* ---- attribute access on type objects ------------------------------------------------------ */

/* CPython's type_getattro: a data descriptor of the metaclass, then the class's own MRO (its
 * descriptors bound with no instance), then the metaclass's other attributes bound to the
 * class; a metaclass __getattr__ answers what is still missing. */
Value type_getattr(VM *vm, TypeObj *t, StrObj *name, bool raise) {
    TypeObj *meta = t->hdr.type;
    Value meta_attr = type_lookup(vm, meta, name);
    if (!val_is_null(meta_attr) && meta_attr.tag == VAL_OBJ) {
        if (val_is_type(vm, meta_attr, vm->t_getset)) {
            GetSetObj *gs = (GetSetObj *)meta_attr.as.o;
            return gs->get(vm, val_obj(t), gs->closure);
        }
        if ((meta->flags & TYPEF_HEAPTYPE) && vm_is_data_descriptor(vm, meta_attr))
            return vm_bind_descriptor(vm, meta_attr, val_obj(t), meta);
    }
    Value attr = type_lookup(vm, t, name);
    if (!val_is_null(attr)) return vm_bind_descriptor(vm, attr, val_null(), t);
    if (!val_is_null(meta_attr)) return vm_bind_descriptor(vm, meta_attr, val_obj(t), meta);
    if (meta->flags & TYPEF_HEAPTYPE) {
        Value ga = type_special(vm, meta, SP_GETATTR);
        if (!val_is_null(ga)) {
            Value args[2] = {val_obj(t), val_obj(name)};
            Value r = vm_call(vm, ga, 2, args, NULL);
            if (!val_is_null(r) || raise || !vm_exc_matches(vm, vm->e_AttributeError)) return r;
            vm_clear_exc(vm);
            return r;
        }
    }
    if (!raise) return val_null();
    return vm_raise(vm, vm->e_AttributeError, "type object '%s' has no attribute '%s'",
                    t->name->data, name->data);
}

int type_setattr(VM *vm, TypeObj *t, StrObj *name, Value v) {
    TypeObj *meta = t->hdr.type;
    Value meta_attr = type_lookup(vm, meta, name);
    if (!val_is_null(meta_attr) && val_is_type(vm, meta_attr, vm->t_getset)) {
        GetSetObj *gs = (GetSetObj *)meta_attr.as.o;
        if (!gs->set) {
            vm_raise(vm, vm->e_AttributeError, "attribute '%s' of 'type' objects is not writable",
                     name->data);
            return -1;
        }
        return gs->set(vm, val_obj(t), v, gs->closure);
    }
    if (!val_is_null(meta_attr) && (meta->flags & TYPEF_HEAPTYPE) && vm_is_data_descriptor(vm, meta_attr)) {
        /* a property or data descriptor of the metaclass */
        Value tv = val_obj(t);
        if (meta_attr.as.o->type == vm->t_property || type_is_subtype(meta_attr.as.o->type, vm->t_property)) {
            PropertyObj *p = (PropertyObj *)meta_attr.as.o;
            Value f = val_is_null(v) ? p->fdel : p->fset;
            if (val_is_null(f) || val_is_none(f)) {
                vm_raise(vm, vm->e_AttributeError, "property '%s' of '%s' object has no %s", name->data,
                         meta->name->data, val_is_null(v) ? "deleter" : "setter");
                return -1;
            }
            Value r = val_is_null(v) ? vm_call1(vm, f, tv) : vm_call2(vm, f, tv, v);
            return val_is_null(r) ? -1 : 0;
        }
        Value setter = type_special(vm, meta_attr.as.o->type, val_is_null(v) ? SP_DELETE : SP_SET);
        if (!val_is_null(setter)) {
            Value args[3] = {meta_attr, tv, v};
            Value r = vm_call(vm, setter, val_is_null(v) ? 2 : 3, args, NULL);
            return val_is_null(r) ? -1 : 0;
        }
    }
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        vm_raise(vm, vm->e_TypeError,
                 "cannot set '%s' attribute of immutable type '%s'", name->data, t->name->data);
        return -1;
    }
    int rc;
    if (val_is_null(v)) {
        rc = dict_del_str(vm, t->dict, name);
        if (rc == 0) {
            vm_raise(vm, vm->e_AttributeError, "type object '%s' has no attribute '%s'",
                     t->name->data, name->data);
            return -1;
        }
        rc = 0;
    } else {
        rc = dict_set_str(vm, t->dict, name, v);
        if (strcmp(name->data, "__del__") == 0) vm->gc_finalizers = true;   /* C.__del__ = f (vm/gc.c) */
    }
    type_modified(vm, t);
    return rc;
}
