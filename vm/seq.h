/* vm/seq.h — tuple, list, range and slice objects: constructors, element access with Python's
 * index and slice rules, and the GC hooks.  Their script-visible methods are in vm/seq.c. */
#ifndef EMBER_VM_SEQ_H
#define EMBER_VM_SEQ_H

#include <gmp.h>

#include "vm/vm.h"

TupleObj *tuple_new(VM *vm, int64_t n);          /* items initialised to None */
TupleObj *tuple_pack(VM *vm, int n, ...);        /* n Values */
TupleObj *tuple_from_array(VM *vm, const Value *items, int64_t n);
void tuple_trace(VM *vm, Obj *o);
TupleObj *tuple_alloc(VM *vm, TypeObj *type, int64_t n);   /* for tuple subclasses */

ListObj *list_new(VM *vm, int64_t cap);
void list_trace(VM *vm, Obj *o);
void list_finalize(VM *vm, Obj *o);
Value list_alloc_type(VM *vm, TypeObj *t);
ListObj *list_from_array(VM *vm, const Value *items, int64_t n);
int list_append(VM *vm, ListObj *l, Value v) EM_MUST_CHECK;
int list_insert(VM *vm, ListObj *l, int64_t i, Value v) EM_MUST_CHECK;
int list_extend(VM *vm, ListObj *l, Value iterable) EM_MUST_CHECK;
int list_reserve(VM *vm, ListObj *l, int64_t cap) EM_MUST_CHECK;
/* Sort in place (stable), comparing key(x) with `<`.  key may be VAL_NULL. */
int list_sort(VM *vm, ListObj *l, Value key, bool reverse) EM_MUST_CHECK;

/* Normalise an index for a sequence of length n (negative counts from the end); -1 + IndexError
 * with "<what> index out of range" if outside ("index out of range" when what is NULL). */
int seq_index(VM *vm, Value key, int64_t n, const char *what, int64_t *out) EM_MUST_CHECK;
/* slice.indices(n): start, stop, step and the number of elements selected. */
int slice_indices(VM *vm, SliceObj *s, int64_t n, int64_t *start, int64_t *stop, int64_t *step,
                  int64_t *count) EM_MUST_CHECK;
Value slice_new(VM *vm, Value start, Value stop, Value step);
Value range_new(VM *vm, int64_t start, int64_t stop, int64_t step);
/* Ranges of any ints (vm/range_big.c): int64 when everything fits, else a big range
 * (RangeObj.big).  The others take a range of either kind. */
Value range_new_values(VM *vm, Value start, Value stop, Value step);
Value range_get_part(VM *vm, RangeObj *r, int which);   /* 0 start, 1 stop, 2 step */
Value range_big_len(VM *vm, RangeObj *r);               /* OverflowError beyond int64 */
Value range_big_getitem(VM *vm, RangeObj *r, Value key);
int range_big_contains_int(VM *vm, RangeObj *r, Value x);
Value range_big_index_of(VM *vm, RangeObj *r, Value x);
Value range_big_iter(VM *vm, RangeObj *r, bool reversed);   /* a longrange_iterator */
bool range_reversed_fits(RangeObj *r);   /* reversed() can use the int64 range_iterator */

/* Ranges beyond int64 (vm/longrange.c): used when RangeObj.big is set. */
Value longrange_new(VM *vm, const mpz_t start, const mpz_t stop, const mpz_t step);
Value longrange_start(RangeObj *r);
Value longrange_stop(RangeObj *r);
Value longrange_step(RangeObj *r);
Value longrange_len_value(RangeObj *r);
int64_t longrange_len(VM *vm, RangeObj *r);   /* -1 + OverflowError beyond int64 */
Value longrange_repr(VM *vm, RangeObj *r);
int longrange_contains(VM *vm, RangeObj *r, Value x);   /* x an int */
Value longrange_index(VM *vm, RangeObj *r, Value x);    /* x an int in r */
Value longrange_item(VM *vm, RangeObj *r, Value key);
int longrange_eq(VM *vm, RangeObj *a, RangeObj *b);     /* either may be big */
Value longrange_iter(VM *vm, RangeObj *r, bool reversed);
void longrange_trace(VM *vm, Obj *o);

/* Lexicographic comparison of two item arrays with op (CompareOp). */
Value seq_richcompare(VM *vm, Value *a, int64_t na, Value *b, int64_t nb, int op);
/* Repr of items between open/close (handles recursion with "..."). */
Value seq_repr(VM *vm, Value self, Value *items, int64_t n, const char *open, const char *close);

/* Repr recursion guard: 1 if o is already being printed (caller prints "..."), 0 entered,
 * -1 error. */
int repr_enter(VM *vm, Obj *o);
void repr_leave(VM *vm, Obj *o);

void seq_init_types(VM *vm);

#endif
