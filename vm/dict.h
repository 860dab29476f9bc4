/* vm/dict.h — insertion-ordered hash maps (dict, and the namespaces of modules, classes and
 * instances).  Small dicts are scanned linearly; from 9 entries on an open-addressing index
 * points into the ordered entry array, as CPython's compact dict does. */
#ifndef EMBER_VM_DICT_H
#define EMBER_VM_DICT_H

#include "vm/vm.h"

DictObj *dict_new(VM *vm);
DictObj *dict_new_typed(VM *vm, TypeObj *t);
/* 1 found (*out set), 0 absent, -1 error (a key's __hash__/__eq__ raised). */
int dict_lookup(VM *vm, DictObj *d, Value key, Value *out) EM_MUST_CHECK;
/* Entry index of a str key, or -1; never raises.  Interned keys match by pointer first. */
int64_t dict_find_str(DictObj *d, StrObj *key);
/* Overwrite the value of live entry i (the interpreter's attribute caches use the index). */
extern uint64_t dict_version_counter;
static inline void dict_set_at(DictObj *d, int64_t i, Value v) {
    d->entries[i].value = v;
    d->version = ++dict_version_counter;
}
/* Lookup of a str key; never raises.  VAL_NULL if absent. */
Value dict_get_str(DictObj *d, StrObj *key);
Value dict_get_c(VM *vm, DictObj *d, const char *key);   /* interns key */
int dict_set(VM *vm, DictObj *d, Value key, Value v) EM_MUST_CHECK;
int dict_set_str(VM *vm, DictObj *d, StrObj *key, Value v) EM_MUST_CHECK;
int dict_set_c(VM *vm, DictObj *d, const char *key, Value v) EM_MUST_CHECK;
/* 1 deleted (*old set if non-NULL), 0 absent, -1 error. */
int dict_del(VM *vm, DictObj *d, Value key, Value *old) EM_MUST_CHECK;
int dict_del_str(VM *vm, DictObj *d, StrObj *key);
void dict_clear(VM *vm, DictObj *d);
/* Iterate: pos starts at 0.  Returns false at the end. */
bool dict_next(DictObj *d, int64_t *pos, Value *key, Value *value);
DictObj *dict_copy(VM *vm, DictObj *d);
int dict_update(VM *vm, DictObj *d, Value other) EM_MUST_CHECK;  /* mapping or iterable of pairs */
int dict_merge_dict(VM *vm, DictObj *d, DictObj *other) EM_MUST_CHECK;
/* The i-th live entry (for popitem etc.), or NULL. */
DictEntry *dict_last_entry(DictObj *d);
/* keys(), values(), items(): a live view of a dict */
typedef struct DictViewObj {
    Obj hdr;
    DictObj *dict;
    int kind;   /* 0 keys, 1 values, 2 items */
} DictViewObj;

Value dict_alloc(VM *vm, TypeObj *t);
void dict_trace(VM *vm, Obj *o);
void dict_finalize(VM *vm, Obj *o);
void dict_init_type(VM *vm);

/* set / frozenset */
typedef struct SetObj SetObj;
SetObj *set_new(VM *vm, TypeObj *t);
int set_add(VM *vm, SetObj *s, Value key) EM_MUST_CHECK;
int set_contains(VM *vm, SetObj *s, Value key);     /* 1, 0, -1 */
int set_discard(VM *vm, SetObj *s, Value key);      /* 1 removed, 0 absent, -1 */
bool set_next(SetObj *s, int64_t *pos, Value *key);
int set_update(VM *vm, SetObj *s, Value iterable) EM_MUST_CHECK;
void set_clear(VM *vm, SetObj *s);
void set_init_type(VM *vm);

#endif
