/* vm/interp.h — the interpreter's slow-path helpers (vm/interp_slow.c), shared by the dispatch
 * loop (vm/interp.c) and its handler fragments (vm/interp_*.inc).  Internal to the interpreter:
 * each raises CPython's exception and message and returns VAL_NULL / -1 on failure. */
#ifndef EMBER_VM_INTERP_H
#define EMBER_VM_INTERP_H

#include "vm/object.h"
#include "vm/type.h"
#include "vm/vm.h"

/* UnboundLocalError for fast local i / cell-or-free slot i; NameError for a global. */
Value interp_unbound_local(VM *vm, Frame *f, uint32_t i);
Value interp_unbound_deref(VM *vm, Frame *f, uint32_t i);
Value interp_name_error(VM *vm, StrObj *name);
/* The name of cell-or-free slot i (cellvars first, then freevars). */
StrObj *interp_cell_name(Frame *f, uint32_t i);
/* LOAD_GLOBAL's miss: look the name up and refill the inline cache (slot `cache`, 0 = none). */
Value interp_load_global(VM *vm, Frame *f, uint32_t oparg, uint16_t cache);
/* LOAD_NAME: locals (any mapping), then globals, then builtins. */
Value interp_load_name(VM *vm, Frame *f, StrObj *name);
/* UNPACK_SEQUENCE / UNPACK_EX into out[] in push order. */
int interp_unpack_sequence(VM *vm, Value seq, int64_t n, Value *out);
int interp_unpack_ex(VM *vm, Value seq, int before, int after, Value *out);
Value interp_build_string(VM *vm, Value *items, int n);
/* FORMAT_VALUE: conversion (flags & 3), then format(v, spec) (spec VAL_NULL: none). */
Value interp_format_value(VM *vm, Value v, int flags, Value spec);
/* except T: T must be an exception class or a tuple of them; then isinstance(exc, T). */
int interp_check_exc_class(VM *vm, Value t);
int interp_exc_class_matches(VM *vm, Value exc, Value t);
/* RAISE_VARARGS: 0 raised with a new traceback entry, 1 re-raised (no new entry), -1 error. */
int interp_do_raise(VM *vm, Value exc, Value cause);
/* __enter__ / __exit__ of a context manager, bound to it. */
Value interp_with_lookup(VM *vm, Value mgr, SpecialMethod sp);
/* DICT_MERGE: f(**src) adds src's items to the call's keyword dict. */
int interp_dict_merge_kwargs(VM *vm, DictObj *dst, Value src, Value fn);

#endif
