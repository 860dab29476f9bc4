/* vm/iter.h — iterators of the built-in types and the iterator builtins (enumerate, zip, map,
 * filter, reversed, iter(callable, sentinel)), all IterObjs with one `next` per kind. */
#ifndef EMBER_VM_ITER_H
#define EMBER_VM_ITER_H

#include "vm/vm.h"

Value iter_new(VM *vm, IterNextFn next, Value a, Value b, int64_t i, int64_t n);
/* An iterator over a built-in iterable (list, tuple, str, dict, set, range, bytes, dict
 * views); VAL_NULL without an exception when v is not one. */
Value iter_builtin(VM *vm, Value v);
/* The old sequence protocol: v[0], v[1], ... until IndexError. */
Value iter_sequence(VM *vm, Value v);
Value list_iter_next(VM *vm, IterObj *it);
Value range_iter_next(VM *vm, IterObj *it);
Value longrange_iter_next(VM *vm, IterObj *it);   /* vm/longrange.c */
Value iter_reversed_list(VM *vm, Value list);   /* reversed(list), a live view */
void iter_init(VM *vm);   /* the builtins enumerate, zip, map, filter, reversed, iter, next */

#endif
