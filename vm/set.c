/* vm/set.c — set and frozenset.  The table follows CPython's setobject.c (linear probing by 9
 * then perturbation, the same resize policy and merge paths), so a set of ints or tuples
 * iterates in exactly CPython's order and prints the same. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define MINSIZE 8
#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

static bool entry_unused(const SetEntry *e) { return val_is_null(e->key) && !e->dummy; }
static bool entry_active(const SetEntry *e) { return !val_is_null(e->key); }

static void set_trace(VM *vm, Obj *o) {
    SetObj *s = (SetObj *)o;
    for (int64_t i = 0; i <= s->mask; i++)
        if (entry_active(&s->table[i])) gc_mark_value(vm, s->table[i].key);
    gc_mark(vm, s->dict);
}

static void set_finalize(VM *vm, Obj *o) {
    SetObj *s = (SetObj *)o;
    if (s->table != s->small) VM_FREE_ARRAY(vm, SetEntry, s->table, s->mask + 1);
    s->table = s->small;
}

static Value set_alloc(VM *vm, TypeObj *t) {
    SetObj *s = gc_alloc(vm, t, t->instance_size);
    if (!s) return val_null();
    s->table = s->small;
    s->mask = MINSIZE - 1;
    s->hash = -1;
    return val_obj(s);
}

SetObj *set_new(VM *vm, TypeObj *t) {
    Value v = set_alloc(vm, t);
    return val_is_null(v) ? NULL : (SetObj *)v.as.o;
}

static void insert_clean(SetEntry *table, int64_t mask, Value key, int64_t hash) {
    uint64_t perturb = (uint64_t)hash;
    uint64_t i = (uint64_t)hash & (uint64_t)mask;
    for (;;) {
        SetEntry *e = &table[i];
        if (val_is_null(e->key)) goto found;
        if (i + LINEAR_PROBES <= (uint64_t)mask) {
            for (int j = 0; j < LINEAR_PROBES; j++) {
                e++;
                if (val_is_null(e->key)) goto found;
            }
        }
        perturb >>= PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & (uint64_t)mask;
        continue;
    found:
        e->key = key;
        e->hash = hash;
        e->dummy = false;
        return;
    }
}

static int table_resize(VM *vm, SetObj *s, int64_t minused) {
    int64_t newsize = MINSIZE;
    while (newsize <= minused) newsize <<= 1;
    SetEntry *old = s->table;
    int64_t oldmask = s->mask;
    SetEntry small_copy[MINSIZE];
    if (old == s->small) {
        memcpy(small_copy, s->small, sizeof small_copy);
        old = small_copy;
    }
    SetEntry *nt;
    if (newsize == MINSIZE) {
        nt = s->small;
    } else {
        nt = VM_ALLOC_ARRAY(vm, SetEntry, newsize);
        if (!nt) return -1;
    }
    memset(nt, 0, sizeof(SetEntry) * (size_t)newsize);
    SetEntry *to_free = s->table != s->small ? s->table : NULL;
    s->table = nt;
    s->mask = newsize - 1;
    s->fill = s->used;
    for (int64_t i = 0; i <= oldmask; i++)
        if (entry_active(&old[i])) insert_clean(nt, s->mask, old[i].key, old[i].hash);
    if (to_free) VM_FREE_ARRAY(vm, SetEntry, to_free, oldmask + 1);
    return 0;
}

/* Keys compare like dict keys: identity, then str/number fast paths, then __eq__. */
static int key_equal(VM *vm, Value a, Value b) { return vm_eq(vm, a, b); }

static int add_entry(VM *vm, SetObj *s, Value key, int64_t hash) {
restart:;
    int64_t mask = s->mask;
    uint64_t i = (uint64_t)hash & (uint64_t)mask;
    uint64_t perturb = (uint64_t)hash;
    SetEntry *freeslot = NULL;
    for (;;) {
        SetEntry *e = &s->table[i];
        int probes = (i + LINEAR_PROBES <= (uint64_t)mask) ? LINEAR_PROBES : 0;
        do {
            if (entry_unused(e)) goto found_unused_or_dummy;
            if (entry_active(e) && e->hash == hash) {
                if (val_identical(e->key, key)) return 0;
                SetEntry *table = s->table;
                Value start = e->key;
                vm_push_root(vm, start);
                int eq = key_equal(vm, start, key);
                vm_pop_root(vm);
                if (eq < 0) return -1;
                if (table != s->table || mask != s->mask || !val_identical(e->key, start)) goto restart;
                if (eq) return 0;
            } else if (e->dummy && !freeslot) {
                freeslot = e;
            }
            e++;
        } while (probes--);
        perturb >>= PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & (uint64_t)mask;
        continue;
    found_unused_or_dummy:
        if (freeslot) {
            s->used++;
            freeslot->key = key;
            freeslot->hash = hash;
            freeslot->dummy = false;
            return 0;
        }
        s->fill++;
        s->used++;
        e->key = key;
        e->hash = hash;
        e->dummy = false;
        if (s->fill * 5 < mask * 3) return 0;
        vm_push_root(vm, key);
        int rc = table_resize(vm, s, s->used > 50000 ? s->used * 2 : s->used * 4);
        vm_pop_root(vm);
        return rc;
    }
}

/* Find key: the entry, NULL if absent; *err set on error. */
static SetEntry *lookup(VM *vm, SetObj *s, Value key, int64_t hash, bool *err) {
    *err = false;
restart:;
    int64_t mask = s->mask;
    uint64_t i = (uint64_t)hash & (uint64_t)mask;
    uint64_t perturb = (uint64_t)hash;
    for (;;) {
        SetEntry *e = &s->table[i];
        int probes = (i + LINEAR_PROBES <= (uint64_t)mask) ? LINEAR_PROBES : 0;
        do {
            if (entry_unused(e)) return NULL;
            if (entry_active(e) && e->hash == hash) {
                if (val_identical(e->key, key)) return e;
                SetEntry *table = s->table;
                Value start = e->key;
                vm_push_root(vm, start);
                int eq = key_equal(vm, start, key);
                vm_pop_root(vm);
                if (eq < 0) {
                    *err = true;
                    return NULL;
                }
                if (table != s->table || mask != s->mask || !val_identical(e->key, start)) goto restart;
                if (eq) return e;
            }
            e++;
        } while (probes--);
        perturb >>= PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & (uint64_t)mask;
    }
}

int set_add(VM *vm, SetObj *s, Value key) {
    int64_t h;
    if (vm_hash(vm, key, &h) < 0) return -1;
    return add_entry(vm, s, key, h);
}

int set_contains(VM *vm, SetObj *s, Value key) {
    int64_t h;
    if (vm_hash(vm, key, &h) < 0) return -1;
    bool err;
    SetEntry *e = lookup(vm, s, key, h, &err);
    if (err) return -1;
    return e != NULL;
}

int set_discard(VM *vm, SetObj *s, Value key) {
    int64_t h;
    if (vm_hash(vm, key, &h) < 0) return -1;
    bool err;
    SetEntry *e = lookup(vm, s, key, h, &err);
    if (err) return -1;
    if (!e) return 0;
    e->key = val_null();
    e->hash = -1;
    e->dummy = true;
    s->used--;
    return 1;
}

bool set_next(SetObj *s, int64_t *pos, Value *key) {
    while (*pos <= s->mask) {
        SetEntry *e = &s->table[(*pos)++];
        if (entry_active(e)) {
            *key = e->key;
            return true;
        }
    }
    return false;
}

void set_clear(VM *vm, SetObj *s) {
    if (s->table != s->small) VM_FREE_ARRAY(vm, SetEntry, s->table, s->mask + 1);
    s->table = s->small;
    memset(s->small, 0, sizeof s->small);
    s->mask = MINSIZE - 1;
    s->fill = s->used = 0;
}

static int set_merge(VM *vm, SetObj *s, SetObj *other) {
    if (other == s || other->used == 0) return 0;
    if ((s->fill + other->used) * 5 >= s->mask * 3) {
        vm_push_root(vm, val_obj(other));
        int rc = table_resize(vm, s, (s->used + other->used) * 2);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    if (s->fill == 0 && s->mask == other->mask && other->fill == other->used) {
        for (int64_t i = 0; i <= other->mask; i++) s->table[i] = other->table[i];
        s->fill = other->fill;
        s->used = other->used;
        return 0;
    }
    if (s->fill == 0) {
        s->fill = s->used = other->used;
        for (int64_t i = 0; i <= other->mask; i++)
            if (entry_active(&other->table[i]))
                insert_clean(s->table, s->mask, other->table[i].key, other->table[i].hash);
        return 0;
    }
    vm_push_root(vm, val_obj(other));
    for (int64_t i = 0; i <= other->mask; i++) {
        SetEntry *e = &other->table[i];
        if (entry_active(e) && add_entry(vm, s, e->key, e->hash) < 0) {
            vm_pop_root(vm);
            return -1;
        }
    }
    vm_pop_root(vm);
    return 0;
}

int set_update(VM *vm, SetObj *s, Value it) {
    TypeObj *t = vm_type_of(vm, it);
    if (t == vm->t_set || t == vm->t_frozenset || t->layout == OBJ_LAYOUT_SET)
        return set_merge(vm, s, (SetObj *)it.as.o);
    if (t == vm->t_dict) {
        DictObj *d = AS_DICT(it);
        if ((s->fill + d->used) * 5 >= s->mask * 3) {
            if (table_resize(vm, s, (s->used + d->used) * 2) < 0) return -1;
        }
        int64_t pos = 0;
        Value k;
        while (dict_next(d, &pos, &k, NULL)) {
            int64_t h = d->entries[pos - 1].hash;
            if (add_entry(vm, s, k, h) < 0) return -1;
        }
        return 0;
    }
    Value iter = vm_iter(vm, it);
    if (val_is_null(iter)) return -1;
    vm_push_root(vm, iter);
    for (;;) {
        Value x = vm_next(vm, iter);
        if (val_is_null(x)) break;
        if (set_add(vm, s, x) < 0) break;
    }
    vm_pop_root(vm);
    return val_is_null(vm->exc) ? 0 : -1;
}

/* ---- methods --------------------------------------------------------------------------------- */

#define SELF ((SetObj *)argv[0].as.o)
static bool is_anyset(VM *vm, Value v) {
    return val_is_obj(v) && (vm_isinstance_type(vm, v, vm->t_set) || vm_isinstance_type(vm, v, vm->t_frozenset));
}

static SetObj *copy_of(VM *vm, SetObj *s, TypeObj *t) {
    vm_push_root(vm, val_obj(s));
    SetObj *n = set_new(vm, t);
    if (n) {
        vm_push_root(vm, val_obj(n));
        if (set_merge(vm, n, s) < 0) n = NULL;
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return n;
}

static TypeObj *result_type(VM *vm, Value self) {
    TypeObj *t = vm_type_of(vm, self);
    return type_is_subtype(t, vm->t_frozenset) ? vm->t_frozenset : vm->t_set;
}

static Value s_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TypeObj *t = AS_TYPE(argv[0]);
    SetObj *s = set_new(vm, t);
    if (!s) return val_null();
    if (type_is_subtype(t, vm->t_frozenset) && argc > 1) {
        vm_push_root(vm, val_obj(s));
        int rc = set_update(vm, s, argv[1]);
        vm_pop_root(vm);
        if (rc < 0) return val_null();
    }
    return val_obj(s);
}

static Value s_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "set", argc, kw, 1, 2) < 0) return val_null();
    if (type_is_subtype(vm_type_of(vm, argv[0]), vm->t_frozenset)) return val_none();
    set_clear(vm, SELF);
    if (argc == 2 && set_update(vm, SELF, argv[1]) < 0) return val_null();
    return val_none();
}

static Value s_add(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "add", argc, kw, 2, 2) < 0) return val_null();
    return set_add(vm, SELF, argv[1]) < 0 ? val_null() : val_none();
}

static Value s_discard(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "discard", argc, kw, 2, 2) < 0) return val_null();
    return set_discard(vm, SELF, argv[1]) < 0 ? val_null() : val_none();
}

static Value s_remove(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "remove", argc, kw, 2, 2) < 0) return val_null();
    int r = set_discard(vm, SELF, argv[1]);
    if (r < 0) return val_null();
    if (r == 0) return vm_raise_key_error(vm, argv[1]);
    return val_none();
}

static Value s_pop(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "pop", argc, kw, 1, 1) < 0) return val_null();
    SetObj *s = SELF;
    if (s->used == 0) return vm_raise(vm, vm->e_KeyError, "pop from an empty set");
    int64_t i = s->finger & s->mask;
    while (!entry_active(&s->table[i])) i = (i + 1) & s->mask;
    Value k = s->table[i].key;
    s->table[i].key = val_null();
    s->table[i].hash = -1;
    s->table[i].dummy = true;
    s->used--;
    s->finger = i + 1;
    return k;
}

static Value s_clear(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    set_clear(vm, SELF);
    return val_none();
}

static Value s_copy(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    /* a frozenset is its own copy */
    if (argv[0].as.o->type == vm->t_frozenset) return argv[0];
    SetObj *n = copy_of(vm, SELF, result_type(vm, argv[0]));
    return n ? val_obj(n) : val_null();
}

/* __reduce__: (type, (list of items,), instance dict or None), as CPython's set_reduce */
static Value s_reduce(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *items = vm_list_from_iterable(vm, argv[0]);
    if (!items) return val_null();
    vm_push_root(vm, val_obj(items));
    TupleObj *args = tuple_pack(vm, 1, val_obj(items));
    Value r = val_null();
    if (args) {
        vm_push_root(vm, val_obj(args));
        DictObj *d = SELF->dict;
        TupleObj *t = tuple_pack(vm, 3, val_obj(argv[0].as.o->type), val_obj(args), d && d->used ? val_obj(d) : val_none());
        if (t) r = val_obj(t);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return r;
}

static Value s_update(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    for (int i = 1; i < argc; i++)
        if (set_update(vm, SELF, argv[i]) < 0) return val_null();
    return val_none();
}

static Value s_union(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    SetObj *n = copy_of(vm, SELF, result_type(vm, argv[0]));
    if (!n) return val_null();
    vm_push_root(vm, val_obj(n));
    for (int i = 1; i < argc; i++)
        if (set_update(vm, n, argv[i]) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    vm_pop_root(vm);
    return val_obj(n);
}

/* CPython's set_intersection: iterate the smaller operand, keep what the other contains. */
static SetObj *intersect(VM *vm, SetObj *s, Value other, TypeObj *rt) {
    SetObj *res = set_new(vm, rt);
    if (!res) return NULL;
    vm_push_root(vm, val_obj(res));
    SetObj *a = s, *b = NULL;
    Value holder = val_null();
    if (is_anyset(vm, other)) {
        b = (SetObj *)other.as.o;
        if (b->used > a->used) {
            SetObj *t = a;
            a = b;
            b = t;
        }
        /* iterate b (smaller), test membership in a */
        int64_t pos = 0;
        Value k;
        while (set_next(b, &pos, &k)) {
            int c = set_contains(vm, a, k);
            if (c < 0 || (c && add_entry(vm, res, k, b->table[pos - 1].hash) < 0)) goto fail;
        }
    } else {
        Value it = vm_iter(vm, other);
        if (val_is_null(it)) goto fail;
        holder = it;
        vm_push_root(vm, holder);
        for (;;) {
            Value x = vm_next(vm, it);
            if (val_is_null(x)) break;
            int c = set_contains(vm, s, x);
            if (c < 0 || (c && set_add(vm, res, x) < 0)) {
                vm_pop_root(vm);
                goto fail;
            }
        }
        vm_pop_root(vm);
        if (!val_is_null(vm->exc)) goto fail;
    }
    vm_pop_root(vm);
    return res;
fail:
    vm_pop_root(vm);
    return NULL;
}

static Value s_intersection(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value cur = argv[0];
    TypeObj *rt = result_type(vm, argv[0]);
    if (argc == 1) return s_copy(vm, argc, argv, kw, fn);
    for (int i = 1; i < argc; i++) {
        vm_push_root(vm, cur);
        SetObj *r = intersect(vm, (SetObj *)cur.as.o, argv[i], rt);
        vm_pop_root(vm);
        if (!r) return val_null();
        cur = val_obj(r);
    }
    return cur;
}

static SetObj *difference(VM *vm, SetObj *s, Value other, TypeObj *rt) {
    SetObj *res = set_new(vm, rt);
    if (!res) return NULL;
    vm_push_root(vm, val_obj(res));
    SetObj *o = NULL;
    if (is_anyset(vm, other)) o = (SetObj *)other.as.o;
    else {
        o = set_new(vm, vm->t_set);
        if (!o) goto fail;
        vm_push_root(vm, val_obj(o));
        int rc = set_update(vm, o, other);
        vm_pop_root(vm);
        if (rc < 0) goto fail;
        vm_push_root(vm, val_obj(o));
    }
    int64_t pos = 0;
    Value k;
    while (set_next(s, &pos, &k)) {
        int c = set_contains(vm, o, k);
        if (c < 0 || (!c && add_entry(vm, res, k, s->table[pos - 1].hash) < 0)) {
            if (!is_anyset(vm, other)) vm_pop_root(vm);
            goto fail;
        }
    }
    if (!is_anyset(vm, other)) vm_pop_root(vm);
    vm_pop_root(vm);
    return res;
fail:
    vm_pop_root(vm);
    return NULL;
}

static Value s_difference(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value cur = argv[0];
    TypeObj *rt = result_type(vm, argv[0]);
    if (argc == 1) return s_copy(vm, argc, argv, kw, fn);
    for (int i = 1; i < argc; i++) {
        vm_push_root(vm, cur);
        SetObj *r = difference(vm, (SetObj *)cur.as.o, argv[i], rt);
        vm_pop_root(vm);
        if (!r) return val_null();
        cur = val_obj(r);
    }
    return cur;
}

static Value s_symdiff(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "symmetric_difference", argc, kw, 2, 2) < 0) return val_null();
    TypeObj *rt = result_type(vm, argv[0]);
    SetObj *other = NULL;
    if (is_anyset(vm, argv[1])) other = (SetObj *)argv[1].as.o;
    else {
        other = set_new(vm, vm->t_set);
        if (!other) return val_null();
        vm_push_root(vm, val_obj(other));
        int rc = set_update(vm, other, argv[1]);
        vm_pop_root(vm);
        if (rc < 0) return val_null();
    }
    vm_push_root(vm, val_obj(other));
    SetObj *res = copy_of(vm, other, rt);
    if (!res) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(res));
    int64_t pos = 0;
    Value k;
    SetObj *s = SELF;
    while (set_next(s, &pos, &k)) {
        int r = set_discard(vm, res, k);
        if (r < 0 || (r == 0 && set_add(vm, res, k) < 0)) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
    }
    vm_pop_roots(vm, 2);
    return val_obj(res);
}

static int subset_of(VM *vm, SetObj *a, SetObj *b) {
    if (a->used > b->used) return 0;
    int64_t pos = 0;
    Value k;
    while (set_next(a, &pos, &k)) {
        int c = set_contains(vm, b, k);
        if (c <= 0) return c;
    }
    return 1;
}

static SetObj *as_set_arg(VM *vm, Value v) {
    if (is_anyset(vm, v)) return (SetObj *)v.as.o;
    SetObj *o = set_new(vm, vm->t_set);
    if (!o) return NULL;
    vm_push_root(vm, val_obj(o));
    int rc = set_update(vm, o, v);
    vm_pop_root(vm);
    return rc < 0 ? NULL : o;
}

static Value s_issubset(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "issubset", argc, kw, 2, 2) < 0) return val_null();
    SetObj *o = as_set_arg(vm, argv[1]);
    if (!o) return val_null();
    vm_push_root(vm, val_obj(o));
    int r = subset_of(vm, SELF, o);
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_bool(r);
}

static Value s_issuperset(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "issuperset", argc, kw, 2, 2) < 0) return val_null();
    SetObj *o = as_set_arg(vm, argv[1]);
    if (!o) return val_null();
    vm_push_root(vm, val_obj(o));
    int r = subset_of(vm, o, SELF);
    vm_pop_root(vm);
    return r < 0 ? val_null() : val_bool(r);
}

static Value s_isdisjoint(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "isdisjoint", argc, kw, 2, 2) < 0) return val_null();
    SetObj *r = intersect(vm, SELF, argv[1], vm->t_set);
    return r ? val_bool(r->used == 0) : val_null();
}

static Value s_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(SELF->used); }
static Value s_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int r = set_contains(vm, SELF, argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}
static Value s_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    /* subclasses iterate like the base */
    Value it = iter_builtin(vm, argv[0]);
    if (!val_is_null(it) || !val_is_null(vm->exc)) return it;
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int64_t pos = 0;
    Value k;
    while (set_next(SELF, &pos, &k))
        if (list_append(vm, l, k) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    Value r = vm_iter(vm, val_obj(l));
    vm_pop_root(vm);
    return r;
}

static Value s_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    SetObj *s = SELF;
    bool frozen = type_is_subtype(vm_type_of(vm, argv[0]), vm->t_frozenset);
    const char *name = vm_type_name(vm, argv[0]);
    if (s->used == 0) {
        StrObj *r = str_printf(vm, "%s()", name);
        return r ? val_obj(r) : val_null();
    }
    ListObj *l = list_new(vm, s->used);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int64_t pos = 0;
    Value k;
    while (set_next(s, &pos, &k)) l->items[l->len++] = k;
    Value body = seq_repr(vm, argv[0], l->items, l->len, "{", "}");
    vm_pop_root(vm);
    if (val_is_null(body)) return body;
    bool plain = vm_type_of(vm, argv[0]) == vm->t_set;
    if (plain) return body;
    StrObj *r = str_printf(vm, "%s(%s)", frozen && vm_type_of(vm, argv[0]) == vm->t_frozenset ? "frozenset" : name,
                           AS_STR(body)->data);
    return r ? val_obj(r) : val_null();
}

static Value s_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    SetObj *a = SELF, *b = (SetObj *)argv[1].as.o;
    if (a->used != b->used) return val_bool(false);
    int r = subset_of(vm, a, b);
    return r < 0 ? val_null() : val_bool(r);
}
static Value s_ne(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value r = s_eq(vm, argc, argv, kw, fn);
    if (val_is_null(r) || val_identical(r, vm->not_implemented)) return r;
    return val_bool(!r.as.b);
}
static Value s_le(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    int r = subset_of(vm, SELF, (SetObj *)argv[1].as.o);
    return r < 0 ? val_null() : val_bool(r);
}
static Value s_ge(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    int r = subset_of(vm, (SetObj *)argv[1].as.o, SELF);
    return r < 0 ? val_null() : val_bool(r);
}
static Value s_lt(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    SetObj *b = (SetObj *)argv[1].as.o;
    if (SELF->used >= b->used) return val_bool(false);
    int r = subset_of(vm, SELF, b);
    return r < 0 ? val_null() : val_bool(r);
}
static Value s_gt(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    SetObj *b = (SetObj *)argv[1].as.o;
    if (SELF->used <= b->used) return val_bool(false);
    int r = subset_of(vm, b, SELF);
    return r < 0 ? val_null() : val_bool(r);
}

/* operators require both operands to be sets */
static Value s_or(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return s_union(vm, argc, argv, kw, fn);
}
static Value s_and(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return s_intersection(vm, argc, argv, kw, fn);
}
static Value s_sub(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return s_difference(vm, argc, argv, kw, fn);
}
static Value s_xor(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return s_symdiff(vm, argc, argv, kw, fn);
}
static Value s_ior(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return set_update(vm, SELF, argv[1]) < 0 ? val_null() : argv[0];
}
static Value replace_contents(VM *vm, Value self, Value src) {
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    set_clear(vm, (SetObj *)self.as.o);
    int rc = set_merge(vm, (SetObj *)self.as.o, (SetObj *)src.as.o);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : self;
}
static Value s_iand(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return replace_contents(vm, argv[0], s_intersection(vm, argc, argv, kw, fn));
}
static Value s_isub(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return replace_contents(vm, argv[0], s_difference(vm, argc, argv, kw, fn));
}
static Value s_ixor(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_anyset(vm, argv[1])) return vm->not_implemented;
    return replace_contents(vm, argv[0], s_symdiff(vm, argc, argv, kw, fn));
}
static Value s_difference_update(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return replace_contents(vm, argv[0], s_difference(vm, argc, argv, kw, fn)) .tag == VAL_NULL ? val_null() : val_none();
}
static Value s_intersection_update(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return replace_contents(vm, argv[0], s_intersection(vm, argc, argv, kw, fn)).tag == VAL_NULL ? val_null() : val_none();
}

/* frozenset hash: CPython's order-independent shuffle of the element hashes */
static uint64_t shuffle_bits(uint64_t h) { return ((h ^ 89869747UL) ^ (h << 16)) * 3644798167UL; }
static Value s_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    SetObj *s = SELF;
    if (s->hash != -1) return val_int(s->hash);
    uint64_t hash = 0;
    for (int64_t i = 0; i <= s->mask; i++)
        if (entry_active(&s->table[i])) hash ^= shuffle_bits((uint64_t)s->table[i].hash);
    hash ^= ((uint64_t)s->used + 1) * 1927868237UL;
    hash ^= (hash >> 11) ^ (hash >> 25);
    hash = hash * 69069U + 907133923UL;
    int64_t h = (int64_t)hash == -1 ? 590923713 : (int64_t)hash;
    s->hash = h;
    return val_int(h);
}

void set_init_type(VM *vm) {
    TypeObj *ts = vm->t_set, *tf = vm->t_frozenset;
    ts->trace = tf->trace = set_trace;
    ts->finalize = tf->finalize = set_finalize;
    ts->alloc = tf->alloc = set_alloc;
    static const MethodDef common[] = {
        {"__new__", s_new, NATIVEF_STATIC}, {"copy", s_copy, NATIVEF_METHOD | ARITY_NOARGS},
        {"union", s_union, NATIVEF_METHOD}, {"intersection", s_intersection, NATIVEF_METHOD},
        {"difference", s_difference, NATIVEF_METHOD}, {"symmetric_difference", s_symdiff, NATIVEF_METHOD | ARITY_O},
        {"issubset", s_issubset, NATIVEF_METHOD | ARITY_O}, {"issuperset", s_issuperset, NATIVEF_METHOD | ARITY_O},
        {"isdisjoint", s_isdisjoint, NATIVEF_METHOD | ARITY_O}, {"__len__", s_len, NATIVEF_METHOD},
        {"__contains__", s_contains, NATIVEF_METHOD}, {"__iter__", s_iter, NATIVEF_METHOD},
        {"__repr__", s_repr, NATIVEF_METHOD}, {"__eq__", s_eq, NATIVEF_METHOD}, {"__ne__", s_ne, NATIVEF_METHOD},
        {"__le__", s_le, NATIVEF_METHOD}, {"__ge__", s_ge, NATIVEF_METHOD}, {"__lt__", s_lt, NATIVEF_METHOD},
        {"__gt__", s_gt, NATIVEF_METHOD}, {"__or__", s_or, NATIVEF_METHOD}, {"__and__", s_and, NATIVEF_METHOD},
        {"__sub__", s_sub, NATIVEF_METHOD}, {"__xor__", s_xor, NATIVEF_METHOD},
        {"__reduce__", s_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const MethodDef mutable[] = {
        {"__init__", s_init, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"add", s_add, NATIVEF_METHOD | ARITY_O},
        {"discard", s_discard, NATIVEF_METHOD | ARITY_O}, {"remove", s_remove, NATIVEF_METHOD | ARITY_O},
        {"pop", s_pop, NATIVEF_METHOD | ARITY_NOARGS}, {"clear", s_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"update", s_update, NATIVEF_METHOD}, {"difference_update", s_difference_update, NATIVEF_METHOD},
        {"intersection_update", s_intersection_update, NATIVEF_METHOD},
        {"__ior__", s_ior, NATIVEF_METHOD}, {"__iand__", s_iand, NATIVEF_METHOD},
        {"__isub__", s_isub, NATIVEF_METHOD}, {"__ixor__", s_ixor, NATIVEF_METHOD}, {NULL}};
    static const MethodDef frozen[] = {
        {"__new__", s_new, NATIVEF_STATIC | ARITY_POS(0, 1)}, {"__hash__", s_hash, NATIVEF_METHOD}, {NULL}};
    if (type_add_methods(vm, ts, common) < 0 || type_add_methods(vm, ts, mutable) < 0 ||
        type_add_methods(vm, tf, common) < 0 || type_add_methods(vm, tf, frozen) < 0 ||
        dict_set_c(vm, ts->dict, "__hash__", val_none()) < 0)
        EM_UNREACHABLE();
}
