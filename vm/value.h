/* vm/value.h — the value representation of the Ember VM.
 *
 * Design note.  A Value is a 16-byte tagged union: the tag says whether the payload is an int64,
 * a double, a bool, None, or a pointer to a heap object (Obj).  Ints and floats never allocate,
 * so arithmetic loops create no garbage.  Every other Python value (str, list, tensor, class,
 * function, ...) is an Obj on the collected heap whose first field is its type.
 *
 * The tag VAL_NULL is not a Python value: it marks "no value" — an unbound local, an empty
 * stack slot, or the error return of a function that failed with an exception pending on the VM
 * (CPython's NULL).  A zero-initialised Value is VAL_NULL.
 *
 *   Value v = val_int(3);          v.tag == VAL_INT,  v.as.i == 3
 *   Value s = val_obj(str);        v.tag == VAL_OBJ,  v.as.o->type == vm->t_str
 *   if (val_is_null(r)) goto error;   // the callee raised
 */
#ifndef EMBER_VM_VALUE_H
#define EMBER_VM_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Obj Obj;

typedef enum ValTag {
    VAL_NULL = 0, /* no value / error marker; never visible to scripts */
    VAL_NONE,
    VAL_BOOL,
    VAL_INT,
    VAL_FLOAT,
    VAL_OBJ,
} ValTag;

typedef struct Value {
    uint64_t tag;
    union {
        int64_t i;
        double f;
        bool b;
        Obj *o;
    } as;
} Value;

#define VAL_NULL_INIT ((Value){.tag = VAL_NULL})

static inline Value val_null(void) { return (Value){.tag = VAL_NULL}; }
static inline Value val_none(void) { return (Value){.tag = VAL_NONE}; }
/* bools fill the whole payload word (0 or 1) so copying a Value never merges partial bytes */
static inline Value val_bool(bool b) { Value v = {.tag = VAL_BOOL}; v.as.i = b; return v; }
static inline Value val_int(int64_t i) { Value v = {.tag = VAL_INT}; v.as.i = i; return v; }
static inline Value val_float(double f) { Value v = {.tag = VAL_FLOAT}; v.as.f = f; return v; }
static inline Value val_obj(void *o) { Value v = {.tag = VAL_OBJ}; v.as.o = (Obj *)o; return v; }

static inline bool val_is_null(Value v) { return v.tag == VAL_NULL; }
static inline bool val_is_none(Value v) { return v.tag == VAL_NONE; }
static inline bool val_is_bool(Value v) { return v.tag == VAL_BOOL; }
static inline bool val_is_int(Value v) { return v.tag == VAL_INT; }
static inline bool val_is_float(Value v) { return v.tag == VAL_FLOAT; }
static inline bool val_is_obj(Value v) { return v.tag == VAL_OBJ; }
/* int or bool: bool is a subclass of int in Python. */
static inline bool val_is_intlike(Value v) { return v.tag == VAL_INT || v.tag == VAL_BOOL; }
static inline int64_t val_as_intlike(Value v) { return v.tag == VAL_INT ? v.as.i : (int64_t)v.as.b; }

/* Identity (`is`): same tag and same payload bits.  Floats compare by bit pattern, ints by
 * value (small-int caching makes that CPython's observable behaviour for the values scripts
 * use). */
static inline bool val_identical(Value a, Value b) {
    if (a.tag != b.tag) return false;
    switch (a.tag) {
    case VAL_NULL: case VAL_NONE: return true;
    case VAL_BOOL: return a.as.b == b.as.b;
    case VAL_INT: return a.as.i == b.as.i;
    case VAL_FLOAT: return a.as.i == b.as.i;
    default: return a.as.o == b.as.o;
    }
}

#endif
