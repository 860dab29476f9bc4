/* vm/match.h — the runtime side of the match statement (vm/match.c): the tests and lookups
 * of MATCH_SEQUENCE, MATCH_MAPPING, MATCH_KEYS and MATCH_CLASS (vm/opcodes.def note [12]). */
#ifndef EMBER_VM_MATCH_H
#define EMBER_VM_MATCH_H

#include "vm/vm.h"

/* 1 / 0, or -1 with an exception (a registry check may run Python code). */
int match_is_sequence(VM *vm, Value v);
int match_is_mapping(VM *vm, Value v);
/* MATCH_KEYS: a tuple of map's values for the keys (a tuple), None when one is missing,
 * VAL_NULL on error (ValueError for a key checked twice). */
Value match_keys(VM *vm, Value map, Value keys);
/* MATCH_CLASS: a tuple of the nargs positional (__match_args__) and the keyword (names)
 * attributes, None when subject is no instance of type or lacks one, VAL_NULL on error. */
Value match_class(VM *vm, Value subject, Value type, int64_t nargs, Value names);

#endif
