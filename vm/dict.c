/* vm/dict.c — the dict implementation: ordered entries plus an optional index, key lookup with
 * fast paths for str and numeric keys, mutation with version bumps (caches and iterators watch
 * dict versions), and the GC hooks.  The Python-level dict methods are in vm/dict_methods.c. */
#include "vm/dict.h"

#include <string.h>

#include "vm/gc.h"
#include "vm/str.h"

#define SMALL_DICT 8

/* Versions come from one global counter, so a version identifies a dict's state uniquely (the
 * interpreter's LOAD_GLOBAL cache and the tracer's guard programs rely on that): every write to
 * a dict's entries goes through this file (or dict_set_at) and takes a new version, and a new
 * dict takes one too, so a dict allocated where a freed one was never shows the freed one's. */
uint64_t dict_version_counter;
#define BUMP(d) ((d)->version = ++dict_version_counter)
#define IX_EMPTY (-1)
#define IX_DUMMY (-2)

DictObj *dict_new_typed(VM *vm, TypeObj *t) {
    DictObj *d = gc_alloc(vm, t, t->instance_size ? t->instance_size : sizeof(DictObj));
    if (!d) return NULL;
    d->default_factory = val_null();
    BUMP(d);
    return d;
}

DictObj *dict_new(VM *vm) { return dict_new_typed(vm, vm->t_dict); }

Value dict_alloc(VM *vm, TypeObj *t) {
    DictObj *d = dict_new_typed(vm, t);
    return d ? val_obj(d) : val_null();
}

void dict_trace(VM *vm, Obj *o) {
    DictObj *d = (DictObj *)o;
    for (int64_t i = 0; i < d->nentries; i++) {
        DictEntry *e = &d->entries[i];
        if (val_is_null(e->key)) continue;
        gc_mark_value(vm, e->key);
        gc_mark_value(vm, e->value);
    }
    gc_mark(vm, d->dict);
    gc_mark_value(vm, d->default_factory);
}

void dict_finalize(VM *vm, Obj *o) {
    DictObj *d = (DictObj *)o;
    VM_FREE_ARRAY(vm, DictEntry, d->entries, d->cap);
    if (d->index) VM_FREE_ARRAY(vm, int32_t, d->index, d->index_mask + 1);
    d->entries = NULL;
    d->index = NULL;
}

/* Fast key equality that cannot raise: identical, or both str, or both plain numbers. 1/0 when
 * decided, -2 when a script __eq__ must decide. */
static int key_eq_fast(VM *vm, Value a, Value b) {
    if (a.tag == VAL_OBJ && b.tag == VAL_OBJ) {
        if (a.as.o == b.as.o) return 1;
        if (a.as.o->type == vm->t_str && b.as.o->type == vm->t_str)
            return str_eq((StrObj *)a.as.o, (StrObj *)b.as.o);
        return -2;
    }
    if (a.tag == VAL_OBJ || b.tag == VAL_OBJ) {
        /* one object, one scalar: only an object with its own __eq__ can match */
        Obj *o = a.tag == VAL_OBJ ? a.as.o : b.as.o;
        if (o->type == vm->t_str || o->type == vm->t_tuple) return 0;
        return -2;
    }
    if (a.tag == VAL_FLOAT || b.tag == VAL_FLOAT) {
        double x = a.tag == VAL_FLOAT ? a.as.f : (double)val_as_intlike(a);
        double y = b.tag == VAL_FLOAT ? b.as.f : (double)val_as_intlike(b);
        if (a.tag == VAL_NONE || b.tag == VAL_NONE) return 0;
        return x == y;
    }
    if (a.tag == VAL_NONE || b.tag == VAL_NONE) return a.tag == b.tag;
    return val_as_intlike(a) == val_as_intlike(b);
}

/* Find the entry index of key with hash h: >= 0 found, -1 absent, -2 error. */
static int64_t find_entry(VM *vm, DictObj *d, Value key, int64_t h) {
restart:;
    uint64_t version = d->version;
    if (!d->index) {
        for (int64_t i = 0; i < d->nentries; i++) {
            DictEntry *e = &d->entries[i];
            if (val_is_null(e->key) || e->hash != h) continue;
            int eq = key_eq_fast(vm, e->key, key);
            if (eq == -2) {
                Value ek = e->key;
                vm_push_root(vm, ek);
                eq = vm_eq(vm, ek, key);
                vm_pop_root(vm);
                if (eq < 0) return -2;
                if (d->version != version) goto restart;
            }
            if (eq) return i;
        }
        return -1;
    }
    uint64_t mask = (uint64_t)d->index_mask;
    uint64_t perturb = (uint64_t)h;
    uint64_t slot = (uint64_t)h & mask;
    for (;;) {
        int32_t ix = d->index[slot];
        if (ix == IX_EMPTY) return -1;
        if (ix >= 0) {
            DictEntry *e = &d->entries[ix];
            if (e->hash == h) {
                int eq = key_eq_fast(vm, e->key, key);
                if (eq == -2) {
                    Value ek = e->key;
                    vm_push_root(vm, ek);
                    eq = vm_eq(vm, ek, key);
                    vm_pop_root(vm);
                    if (eq < 0) return -2;
                    if (d->version != version) goto restart;
                }
                if (eq) return ix;
            }
        }
        perturb >>= 5;
        slot = (slot * 5 + perturb + 1) & mask;
    }
}

/* str keys match by content, str-subclass keys included (a subclass overriding __eq__ is not
 * consulted here: CPython would ask it). */
int64_t dict_find_str(DictObj *d, StrObj *key) {
    int64_t h = str_hash(key);
    if (!d->index) {
        for (int64_t i = 0; i < d->nentries; i++) {
            DictEntry *e = &d->entries[i];
            if (e->key.tag == VAL_OBJ && e->key.as.o == (Obj *)key) return i;
        }
        for (int64_t i = 0; i < d->nentries; i++) {
            DictEntry *e = &d->entries[i];
            if (e->hash == h && e->key.tag == VAL_OBJ && e->key.as.o->type->layout == OBJ_LAYOUT_STR &&
                str_eq((StrObj *)e->key.as.o, key))
                return i;
        }
        return -1;
    }
    uint64_t mask = (uint64_t)d->index_mask;
    uint64_t perturb = (uint64_t)h;
    uint64_t slot = (uint64_t)h & mask;
    for (;;) {
        int32_t ix = d->index[slot];
        if (ix == IX_EMPTY) return -1;
        if (ix >= 0) {
            DictEntry *e = &d->entries[ix];
            if (e->hash == h && e->key.tag == VAL_OBJ &&
                (e->key.as.o == (Obj *)key ||
                 (e->key.as.o->type->layout == OBJ_LAYOUT_STR && str_eq((StrObj *)e->key.as.o, key))))
                return ix;
        }
        perturb >>= 5;
        slot = (slot * 5 + perturb + 1) & mask;
    }
}

Value dict_get_str(DictObj *d, StrObj *key) {
    int64_t i = dict_find_str(d, key);
    return i >= 0 ? d->entries[i].value : val_null();
}

Value dict_get_c(VM *vm, DictObj *d, const char *key) {
    StrObj *k = vm_intern_str(vm, key);
    return k ? dict_get_str(d, k) : val_null();
}

int dict_lookup(VM *vm, DictObj *d, Value key, Value *out) {
    if (val_is_type(vm, key, vm->t_str)) {
        int64_t i = dict_find_str(d, (StrObj *)key.as.o);
        if (i < 0) return 0;
        *out = d->entries[i].value;
        return 1;
    }
    int64_t h;
    if (vm_hash(vm, key, &h) < 0) return -1;
    int64_t i = find_entry(vm, d, key, h);
    if (i == -2) return -1;
    if (i < 0) return 0;
    *out = d->entries[i].value;
    return 1;
}

static void index_insert(DictObj *d, int64_t h, int32_t ix) {
    uint64_t mask = (uint64_t)d->index_mask;
    uint64_t perturb = (uint64_t)h;
    uint64_t slot = (uint64_t)h & mask;
    while (d->index[slot] >= 0) {
        perturb >>= 5;
        slot = (slot * 5 + perturb + 1) & mask;
    }
    d->index[slot] = ix;
}

/* Compact holes and rebuild the index for capacity `cap`. */
static int dict_resize(VM *vm, DictObj *d, int64_t cap) {
    DictEntry *ne = VM_ALLOC_ARRAY(vm, DictEntry, cap);
    if (!ne) return -1;
    int64_t n = 0;
    for (int64_t i = 0; i < d->nentries; i++)
        if (!val_is_null(d->entries[i].key)) ne[n++] = d->entries[i];
    int32_t *nix = NULL;
    int64_t isize = 0;
    if (cap > SMALL_DICT) {
        isize = 16;
        while (isize < cap * 2) isize *= 2;
        nix = VM_ALLOC_ARRAY(vm, int32_t, isize);
        if (!nix) {
            VM_FREE_ARRAY(vm, DictEntry, ne, cap);
            return -1;
        }
        memset(nix, 0xFF, sizeof(int32_t) * (size_t)isize);   /* IX_EMPTY */
    }
    VM_FREE_ARRAY(vm, DictEntry, d->entries, d->cap);
    if (d->index) VM_FREE_ARRAY(vm, int32_t, d->index, d->index_mask + 1);
    d->entries = ne;
    d->cap = cap;
    d->nentries = n;
    d->index = nix;
    d->index_mask = isize ? isize - 1 : 0;
    if (nix)
        for (int64_t i = 0; i < n; i++) index_insert(d, ne[i].hash, (int32_t)i);
    return 0;
}

static int insert_new(VM *vm, DictObj *d, Value key, int64_t h, Value v) {
    if (d->nentries == d->cap) {
        int64_t live = d->used;
        int64_t cap = live < 4 ? 8 : live * 2;
        if (cap < d->cap && d->nentries - live < d->cap / 4) cap = d->cap * 2;
        /* key and v are rooted by the caller */
        if (dict_resize(vm, d, cap) < 0) return -1;
    }
    int64_t ix = d->nentries++;
    d->entries[ix].key = key;
    d->entries[ix].value = v;
    d->entries[ix].hash = h;
    d->used++;
    BUMP(d);
    d->keys_version = d->version;
    if (d->index) index_insert(d, h, (int32_t)ix);
    return 0;
}

int dict_set(VM *vm, DictObj *d, Value key, Value v) {
    if (val_is_type(vm, key, vm->t_str)) return dict_set_str(vm, d, (StrObj *)key.as.o, v);
    int64_t h;
    if (vm_hash(vm, key, &h) < 0) return -1;
    int64_t i = find_entry(vm, d, key, h);
    if (i == -2) return -1;
    if (i >= 0) {
        d->entries[i].value = v;
        BUMP(d);
        return 0;
    }
    vm_push_root(vm, key);
    vm_push_root(vm, v);
    int rc = insert_new(vm, d, key, h, v);
    vm_pop_roots(vm, 2);
    return rc;
}

int dict_set_str(VM *vm, DictObj *d, StrObj *key, Value v) {
    int64_t i = dict_find_str(d, key);
    if (i >= 0) {
        d->entries[i].value = v;
        BUMP(d);
        return 0;
    }
    vm_push_root(vm, val_obj(key));
    vm_push_root(vm, v);
    int rc = insert_new(vm, d, val_obj(key), str_hash(key), v);
    vm_pop_roots(vm, 2);
    return rc;
}

int dict_set_c(VM *vm, DictObj *d, const char *key, Value v) {
    vm_push_root(vm, v);
    StrObj *k = vm_intern_str(vm, key);
    vm_pop_root(vm);
    return k ? dict_set_str(vm, d, k, v) : -1;
}

static void delete_at(DictObj *d, int64_t i) {
    DictEntry *e = &d->entries[i];
    if (d->index) {
        uint64_t mask = (uint64_t)d->index_mask;
        uint64_t perturb = (uint64_t)e->hash;
        uint64_t slot = (uint64_t)e->hash & mask;
        while (d->index[slot] != (int32_t)i) {
            perturb >>= 5;
            slot = (slot * 5 + perturb + 1) & mask;
        }
        d->index[slot] = IX_DUMMY;
    }
    e->key = val_null();
    e->value = val_null();
    d->used--;
    BUMP(d);
    /* trailing holes can be reused at once */
    while (d->nentries > 0 && val_is_null(d->entries[d->nentries - 1].key) && !d->index)
        d->nentries--;
}

int dict_del(VM *vm, DictObj *d, Value key, Value *old) {
    int64_t i;
    if (val_is_type(vm, key, vm->t_str)) {
        i = dict_find_str(d, (StrObj *)key.as.o);
    } else {
        int64_t h;
        if (vm_hash(vm, key, &h) < 0) return -1;
        i = find_entry(vm, d, key, h);
        if (i == -2) return -1;
    }
    if (i < 0) return 0;
    if (old) *old = d->entries[i].value;
    delete_at(d, i);
    return 1;
}

int dict_del_str(VM *vm, DictObj *d, StrObj *key) {
    int64_t i = dict_find_str(d, key);
    if (i < 0) return 0;
    delete_at(d, i);
    return 1;
}

void dict_clear(VM *vm, DictObj *d) {
    VM_FREE_ARRAY(vm, DictEntry, d->entries, d->cap);
    if (d->index) VM_FREE_ARRAY(vm, int32_t, d->index, d->index_mask + 1);
    d->entries = NULL;
    d->index = NULL;
    d->index_mask = 0;
    d->cap = d->nentries = d->used = 0;
    BUMP(d);
}

bool dict_next(DictObj *d, int64_t *pos, Value *key, Value *value) {
    while (*pos < d->nentries) {
        DictEntry *e = &d->entries[(*pos)++];
        if (val_is_null(e->key)) continue;
        if (key) *key = e->key;
        if (value) *value = e->value;
        return true;
    }
    return false;
}

DictEntry *dict_last_entry(DictObj *d) {
    for (int64_t i = d->nentries - 1; i >= 0; i--)
        if (!val_is_null(d->entries[i].key)) return &d->entries[i];
    return NULL;
}

int dict_merge_dict(VM *vm, DictObj *d, DictObj *other) {
    if (other->used == 0) return 0;
    if (d->used == 0 && d->nentries == 0 && d->cap < other->used) {
        vm_push_root(vm, val_obj(other));
        int rc = dict_resize(vm, d, other->used < 8 ? 8 : other->used);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    for (int64_t i = 0; i < other->nentries; i++) {
        DictEntry *e = &other->entries[i];
        if (val_is_null(e->key)) continue;
        int64_t h = e->hash;
        int64_t j = find_entry(vm, d, e->key, h);
        if (j == -2) return -1;
        if (j >= 0) {
            d->entries[j].value = e->value;
            BUMP(d);
        } else {
            Value k = e->key, v = e->value;
            vm_push_root(vm, val_obj(other));
            vm_push_root(vm, k);
            vm_push_root(vm, v);
            int rc = insert_new(vm, d, k, h, v);
            vm_pop_roots(vm, 3);
            if (rc < 0) return -1;
        }
    }
    return 0;
}

DictObj *dict_copy(VM *vm, DictObj *d) {
    vm_push_root(vm, val_obj(d));
    DictObj *n = dict_new(vm);
    if (n) {
        vm_push_root(vm, val_obj(n));
        if (dict_merge_dict(vm, n, d) < 0) n = NULL;
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return n;
}
