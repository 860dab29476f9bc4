/* vm/gc.h — the allocation funnel and the precise mark-and-sweep collector.
 *
 * THE GC INVARIANT.  A collection can start at any allocation (gc_alloc, vm_realloc, anything
 * that calls them, which includes every call back into script code).  At that moment every
 * object that C code still intends to use must be reachable from a root:
 *   - the value stacks and fast locals of all running frames (the interpreter stores its stack
 *     pointer into frame->sp before any instruction that can allocate, and keeps operands on
 *     the stack until the result is ready);
 *   - the temp-root stack (vm_push_root / vm_pop_root) — C code that holds a fresh object
 *     across another allocation pushes it there;
 *   - external roots (gc_root_new) held by C data structures outside the heap, e.g. a script
 *     hook registered on a C tensor;
 *   - the VM's own tables (types, builtins, sys.modules, the intern table, the pending and the
 *     handled exception, builders being assembled, extension state via vm->ext_trace).
 * Objects reachable only through C locals are freed.  The GC-stress build (-Dgc_stress=true)
 * collects on every allocation so a missing root fails fast; gc_check_heap() walks the heap and
 * checks that no live object points at a freed one.
 *
 * Permanent objects (gc_make_permanent: an imported module's code objects and their immutable
 * constants) are never marked, traced or swept again; a permanent object may reference only
 * permanent objects, except what a code object's entry in vm->perm_code marks (vm/gc.c).
 *
 * Pacing: bytes.  vm->bytes_allocated counts object sizes, the internal arrays they own and
 * other external memory (gc_external_bytes), and the tensor layer's structs (blockcache) count
 * with them; after a collection the threshold is the live bytes plus those that are not
 * permanent (at least 4 MiB more, at least 24 MiB: vm/gc.c).  Tensor storage is counted too, on its own budget
 * (vm->storage_bytes, gc_storage_bytes): a collection comes when it has grown by the storage
 * live after the last one, and by at least 16 MiB (vm/gc.c says why that floor); after each
 * collection the tensor layer's cache of freed buffers is trimmed to twice that budget
 * (vm->storage_trim).
 */
#ifndef EMBER_VM_GC_H
#define EMBER_VM_GC_H

#include "vm/vm.h"

/* Allocate a zeroed object of `size` bytes whose type is `type`, linked into the heap.  May
 * collect first.  NULL + MemoryError on failure. */
void *gc_alloc(VM *vm, TypeObj *type, size_t size);
/* The funnel for memory owned by objects (list items, dict tables, ...).  old_size/new_size
 * in bytes; new_size 0 frees.  May collect before growing.  NULL + MemoryError on failure. */
void *vm_realloc(VM *vm, void *p, size_t old_size, size_t new_size);
#define VM_ALLOC_ARRAY(vm, T, n) ((T *)vm_realloc((vm), NULL, 0, sizeof(T) * (size_t)(n)))
#define VM_FREE_ARRAY(vm, T, p, n) ((void)vm_realloc((vm), (p), sizeof(T) * (size_t)(n), 0))

/* Put an object allocated outside gc_alloc (the bootstrap `type`, vm/type.c) on the heap. */
void gc_adopt(VM *vm, Obj *o);

/* Tensor storage and other memory owned outside the funnel, so pacing counts it. */
void gc_external_bytes(VM *vm, ptrdiff_t delta);
/* Tensor storage allocated (delta > 0) or freed (< 0): paced on its own budget (above). */
void gc_storage_bytes(VM *vm, ptrdiff_t delta);

void gc_collect(VM *vm);
/* Run the __del__ of the instances the collector found unreachable (vm->fin_pending); called
 * at safe points only: the interpreter's backward jumps and returns, gc.collect(), exit. */
void gc_run_finalizers(VM *vm);
/* Interpreter shutdown: collect, then run the __del__ of every instance still alive whose
 * class defines one (oldest first), as CPython does when it clears modules at exit. */
void gc_finalize_all(VM *vm);
void gc_trace_frame(VM *vm, Frame *f);   /* mark a frame that is not (yet) on vm->frame's chain */
/* Marking: the test of the mark bit is inline (most references a trace function meets point
 * at objects already marked: interned names, types, shared constants); gc_mark_new marks an
 * unmarked object and queues it for tracing (objects whose type has no trace function are only
 * marked, with their type). */
void gc_mark_new(VM *vm, Obj *o);
static inline void gc_mark_obj(VM *vm, Obj *o) {
    if (o && !o->marked) gc_mark_new(vm, o);
}
static inline void gc_mark(VM *vm, void *o) { gc_mark_obj(vm, (Obj *)o); }
static inline void gc_mark_value(VM *vm, Value v) {
    if (v.tag == VAL_OBJ) gc_mark_obj(vm, v.as.o);
}

/* Temp roots: LIFO. */
void vm_push_root(VM *vm, Value v);
static inline void vm_pop_root(VM *vm) { vm->roots.n--; }
static inline void vm_pop_roots(VM *vm, int n) { vm->roots.n -= n; }

/* External roots: a C-held reference that keeps a value alive until released. */
struct ExtRoot {
    Value v;
    ExtRoot *prev, *next;
};
ExtRoot *gc_root_new(VM *vm, Value v);
void gc_root_free(VM *vm, ExtRoot *r);

/* Debug walker: checks every live object's references point to live objects.  Returns the
 * number of problems found (printed to stderr). */
int gc_check_heap(VM *vm);
size_t gc_live_objects(VM *vm);

/* Make an imported module's code object, and the deeply immutable objects it references (its
 * constant and name tuples, their strings, numbers and nested code objects), permanent: no
 * collection marks, traces or sweeps them again, and they are freed only by vm_free.  A code
 * object's mutable parts (inline caches, the tracer's entries, its filename) are still marked,
 * from the table of permanent code objects.  Returns whether `o` itself became permanent.
 * See "Permanent objects" in vm/gc.c for why and for the invariant. */
bool gc_make_permanent(VM *vm, Obj *o);

#endif
