/* vm/objpool.h — memory for small VM objects: size-classed free lists carved from large arenas.
 *
 * Start-up allocates (and exit frees) tens of thousands of small objects — strings, tuples,
 * functions, code — and malloc/calloc/free was a quarter of `import argparse, json, ...`'s
 * instructions.  gc_alloc takes objects of up to OBJPOOL_MAX bytes from here: a free list per
 * 16-byte class, refilled from 256 KiB arenas; the sweep puts dead objects back on their list;
 * vm_free releases the arenas whole.  Obj.pool_class records the class (0: the object came
 * from malloc), since Obj.size may later count memory the object owns (big-int limbs).
 * Builds with AddressSanitizer allocate every object with calloc, so use-after-free and
 * overflows of objects stay visible to it. */
#ifndef EMBER_VM_OBJPOOL_H
#define EMBER_VM_OBJPOOL_H

#include "vm/vm.h"

#define OBJPOOL_MAX 512

/* size zeroed bytes for a new object (o->pool_class set); NULL when out of memory */
Obj *objpool_alloc(VM *vm, size_t size);
/* give back an object's memory (pooled or malloc'd) */
void objpool_free(VM *vm, Obj *o);
/* release every arena (vm_free, after the objects' finalizers ran) */
void objpool_destroy(VM *vm);

#endif
