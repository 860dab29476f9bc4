/* vm/mod_functools.h — what other layers may read of _functools' objects: the tracer keeps
 * functools.partial calls in its graph (dynamo's FunctoolsPartialVariable), so it needs to
 * recognise the type and read a partial's parts without running Python code. */
#ifndef EMBER_VM_MOD_FUNCTOOLS_H
#define EMBER_VM_MOD_FUNCTOOLS_H

#include "vm/vm.h"

/* functools.partial itself (not a subclass: those may override __call__ or __new__) */
bool functools_is_partial_type(const TypeObj *t);
/* v's func, args and keywords when v is exactly a functools.partial with no instance
 * attributes; false otherwise */
bool functools_partial_parts(Value v, Value *fn, TupleObj **args, DictObj **kw);

#endif
