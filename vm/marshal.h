/* vm/marshal.h — the marshal format: CPython's (version 4) for data (None, bools, ints,
 * floats, str, bytes, tuples, lists, dicts, sets, frozensets, Ellipsis, StopIteration, with
 * back-references), plus Ember's own record for code objects (type byte 'C'; CPython's 'c'
 * code objects are refused).  The bytecode cache stores marshal.dumps(code) after a pyc
 * header, as CPython's importlib does, under Ember's cache tag (sys.implementation.cache_tag),
 * so CPython never reads Ember's files nor Ember CPython's.
 *
 * The code record copies the instruction, line, column and exception-table arrays as they
 * are in memory (little-endian x86-64 layout): it is only ever read by the Ember build whose
 * cache tag (a hash of the opcode table, code layout, this file and the compiler) named it. */
#ifndef EMBER_VM_MARSHAL_H
#define EMBER_VM_MARSHAL_H

#include "vm/vm.h"

/* marshal.dumps(v, version): a new bytes object, or NULL + ValueError "unmarshallable object". */
BytesObj *marshal_dumps(VM *vm, Value v, int version);
/* marshal.loads(data): the value and *used (bytes consumed), or VAL_NULL + EOFError/ValueError/
 * TypeError ("bad marshal data (...)"). */
Value marshal_loads(VM *vm, const uint8_t *data, int64_t n, int64_t *used);

#endif
