/* vm/gc.c — allocation funnel, byte pacing, mark (gray stack) and sweep, weak references,
 * __del__ finalizers, temp and external roots, and the debug heap walker.  The invariant is in
 * vm/gc.h.
 *
 * Cost.  Every collection marks and sweeps the whole heap (no generations: they would need a
 * write barrier at every store of a reference), and after `import torch` that is ~40,000
 * long-lived objects, so the work per object is kept small: the heap is a table in allocation
 * order (vm->objects) that the sweep reads in order, prefetching, rather than a linked list to
 * chase; the mark bit is tested inline before any call (gc.h); objects without a trace
 * function are marked where they are found, never queued; gc.collect() counts by the table's
 * length.  (A full collection after `import torch` went 1.05 -> 0.40 ms.) */
#include "vm/gc.h"

#include "vm/bytes_ops.h"
#include "vm/mod_sys.h"
#include "vm/objpool.h"

#include "src/common/blockcache.h"

#include <stdlib.h>
#include <string.h>

/* The objects' pacing.  The heap's bytes are the objects' (vm->bytes_allocated) and the tensor
 * layer's structs that dead objects still hold: Tensor structs, autograd nodes, small storages
 * (blockcache_live_bytes; a small storage is counted by the storage budget as well).  Those were
 * not counted, and the dead objects of a batch-1 training step hold six times their own bytes
 * in C structs (per 14,600 dead objects, 1.1 MiB of objects and 7.3 MiB of structs):
 * bench/nn/mlp_step.py's batch-1 loop collected every ~4,000 steps with ~60 MiB of dead structs
 * resident (peak RSS 89 MiB in that loop, 105 MiB in all; 51 MiB now).
 * After a collection the next comes when the heap has grown by the bytes the collection had to
 * mark (live minus permanent objects: the work of the next one; it was twice the live bytes,
 * permanent ones included), at least GC_MIN_GROWTH, and not before GC_MIN_THRESHOLD.
 * No collection before 24 MiB: importing a model script's usual modules (argparse, json, re,
 * typing, inspect, logging, ...) allocates about that much, most of it alive to the end, and
 * each full collection marks all of it (it was 4 MiB: four collections, 11% of start-up). */
#define GC_MIN_THRESHOLD (24u << 20)
#define GC_MIN_GROWTH (4u << 20)

/* Tensor storage is paced on its own budget: the next collection comes when the storage has
 * grown by as much again as was live after the last one, and by at least 16 MiB.  (Counted
 * with the objects, tensor bytes also moved the objects' threshold, and object bytes the
 * tensors'.)  The floor is a trade-off measured both ways (paired, CPU time, load ~20): a
 * larger one collects less often in a loop of large temporaries (64 MiB: 256x256 mul 65 -> 34
 * us, scatter_add 71 -> 58 us, MLP b64 step -3%: every collection marks and sweeps the whole
 * object heap, ~33,000 objects and ~3 ms after `import torch`), but the buffers a loop reuses
 * then rotate through more memory than the last-level cache holds, and the MLP batch-1 step
 * got 9% slower (71 -> 78 us at 32 and 64 MiB; 69-70 us at 16).  Re-measured once a full
 * collection after `import torch` cost 0.4 ms instead of 1.05 (CPU us, best of 5-9 paired
 * runs, load 9-14):
 *                            16 MiB   24 MiB   32 MiB   (PyTorch)
 *   MLP b1 train step         62.5     66.4     66.8
 *   MLP b64 train step         746      751      755
 *   256x256 mul               21.9     23.8     22.1
 *   matmul_f64_128            79.0     81.9     74.7     73.6
 *   scatter_add_256x256       30.9     32.0     27.7     31.0
 *   einsum_bij_bjk_32x64     179.9    170.9    168.6    172.5
 * still a trade-off (the bench rows gain 4-10% at 32, the batch-1 step loses 7%), so 16 stays. */
#define GC_STORAGE_MIN_BUDGET (16u << 20)

/* How many heap-table entries ahead the sweep prefetches an object's header. */
#define GC_PREFETCH_AHEAD 16

static size_t storage_budget(VM *vm) {
    return vm->storage_bytes > GC_STORAGE_MIN_BUDGET ? vm->storage_bytes : GC_STORAGE_MIN_BUDGET;
}

/* the objects' bytes and the tensor layer's structs (blockcache_live_bytes) */
static inline size_t heap_bytes(VM *vm) { return vm->bytes_allocated + blockcache_live_bytes(); }

#ifdef EMBER_GC_STRESS
/* The GC-stress build collects on every Nth allocation, N = EMBER_GC_STRESS_EVERY (default 1:
 * every allocation).  Collecting on every allocation costs a full mark per allocation, which is
 * hours for a test that imports a dozen CPython stdlib modules; a small prime period (say 7 or 101)
 * lets the whole suite run under stress while still moving the collection point across every
 * allocation site from run to run. */
static unsigned long gc_stress_period(void) {
    static unsigned long period;
    if (!period) {
        const char *e = getenv("EMBER_GC_STRESS_EVERY");
        long n = e ? strtol(e, NULL, 10) : 1;
        period = n > 0 ? (unsigned long)n : 1;
    }
    return period;
}

static bool gc_should_collect(VM *vm) {
    static unsigned long tick;
    if (vm->gc_running || vm->gc_disabled) return false;
    return ++tick % gc_stress_period() == 0;
}
#else
static bool gc_should_collect(VM *vm) {
    return !vm->gc_running && !vm->gc_disabled && heap_bytes(vm) > vm->next_gc;
}
#endif

static bool alloc_should_fail(VM *vm) {
    if (vm->alloc_fail_countdown > 0 && --vm->alloc_fail_countdown == 0) return true;
    return false;
}

/* Append o to the heap table (vm->objects); false when the table cannot grow. */
static bool heap_add(VM *vm, Obj *o) {
    if (vm->nobjects == vm->objects_cap) {
        size_t cap = vm->objects_cap ? vm->objects_cap * 2 : 4096;
        Obj **a = realloc(vm->objects, sizeof(Obj *) * cap);
        if (!a) return false;
        vm->objects = a;
        vm->objects_cap = cap;
    }
    vm->objects[vm->nobjects++] = o;
    return true;
}

void *gc_alloc(VM *vm, TypeObj *type, size_t size) {
    if (gc_should_collect(vm)) gc_collect(vm);
    Obj *o = alloc_should_fail(vm) ? NULL : objpool_alloc(vm, size);
    if (o && !heap_add(vm, o)) {
        objpool_free(vm, o);
        o = NULL;
    }
    if (!o) {
        vm_no_memory(vm);
        return NULL;
    }
    o->type = type;
    o->size = (uint32_t)size;
    vm->bytes_allocated += size;
    return o;
}

void gc_adopt(VM *vm, Obj *o) {
    bool ok = heap_add(vm, o);
    EM_ASSERT(ok, "out of memory growing the heap table");
    vm->bytes_allocated += o->size;
}

void *vm_realloc(VM *vm, void *p, size_t old_size, size_t new_size) {
    if (new_size == 0) {
        free(p);
        vm->bytes_allocated -= old_size;
        return NULL;
    }
    if (new_size > old_size && gc_should_collect(vm)) gc_collect(vm);
    void *q = alloc_should_fail(vm) ? NULL : realloc(p, new_size);
    if (!q) {
        vm_no_memory(vm);
        return NULL;
    }
    vm->bytes_allocated += new_size - old_size;
    return q;
}

void gc_external_bytes(VM *vm, ptrdiff_t delta) {
    if (delta < 0 && (size_t)-delta > vm->bytes_allocated) vm->bytes_allocated = 0;
    else vm->bytes_allocated += delta;
}

void gc_storage_bytes(VM *vm, ptrdiff_t delta) {
    if (delta < 0 && (size_t)-delta > vm->storage_bytes) vm->storage_bytes = 0;
    else vm->storage_bytes += delta;
    /* over budget: the next object allocation collects (not here: a storage is allocated in the
     * middle of tensor kernels, which are not collection points) */
    if (vm->storage_bytes > vm->next_storage_gc) vm->next_gc = 0;
}

/* ---- roots ---------------------------------------------------------------------------- */

void vm_push_root(VM *vm, Value v) {
    TempRoots *r = &vm->roots;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->v = realloc(r->v, sizeof(Value) * r->cap);
        EM_ASSERT(r->v != NULL, "out of memory growing the temp-root stack");
    }
    r->v[r->n++] = v;
}

ExtRoot *gc_root_new(VM *vm, Value v) {
    ExtRoot *r = malloc(sizeof *r);
    EM_ASSERT(r != NULL, "out of memory allocating an external root");
    r->v = v;
    r->prev = NULL;
    r->next = vm->ext_roots;
    if (vm->ext_roots) vm->ext_roots->prev = r;
    vm->ext_roots = r;
    return r;
}

void gc_root_free(VM *vm, ExtRoot *r) {
    if (!r) return;
    if (r->prev) r->prev->next = r->next;
    else vm->ext_roots = r->next;
    if (r->next) r->next->prev = r->prev;
    free(r);
}

/* ---- permanent objects ---------------------------------------------------------------- */

/* Permanent objects.  After `import torch` three quarters of the heap's ~34,000 objects are the
 * imported modules' code objects, their constant and name tuples and the strings in them
 * (census: 12,300 str, 9,400 tuple, 2,200 code), and every collection marked all of them again
 * and swept them: a full collection cost 0.4 ms hot, 0.8 ms after a large kernel had evicted the
 * caches, and a loop of large temporaries collects every 16 MiB of storage (vm/gc.c's storage
 * budget), so that was ~10% of a float64 matmul or a batched einsum.  None of these objects ever
 * changes after the module's code is built, and they live as long as the functions that use
 * them, so they are made permanent when the import system is about to run a module's code:
 * marked once for good (mark bit set, never cleared), moved out of the heap table by the next
 * sweep, freed by vm_free.
 *
 * The invariant: a permanent object references only permanent objects, so nothing the
 * collector skips can hold the last reference to a collectable one.  Only exact str, bytes, int,
 * complex, tuples of permanent objects and code objects qualify (no subclass instance: those
 * may have a __dict__).  A code object is the exception: its inline caches, its tracer entries
 * and its filename (`_imp._fix_co_filename` replaces it) change, and a field whose object could
 * not be made permanent (say a frozenset constant) is recorded as such in perm_fields; so every
 * permanent code object is in vm->perm_code, whose entries mark_roots traces for exactly those
 * parts.  Code compiled at run time (exec, eval, namedtuple's and dataclasses' generated
 * methods) is never made permanent: it can die, and would leak. */
#define PERM_MAX_DEPTH 200

static bool ptr_push(Obj ***arr, size_t *n, size_t *cap, Obj *o) {
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        Obj **a = realloc(*arr, sizeof(Obj *) * ncap);
        if (!a) return false;
        *arr = a;
        *cap = ncap;
    }
    (*arr)[(*n)++] = o;
    return true;
}

static bool make_permanent(VM *vm, Obj *o, int depth);

/* a code object's field: permanent (true), or left for mark_roots to mark */
static bool field_permanent(VM *vm, void *field, int depth) {
    return !field || make_permanent(vm, field, depth + 1);
}

static bool make_permanent(VM *vm, Obj *o, int depth) {
    if (o->flags & OBJF_PERMANENT) return true;
    if (depth > PERM_MAX_DEPTH) return false;
    TypeObj *t = o->type;
    if (t == vm->t_str || t == vm->t_bytes || t == vm->t_int || t == vm->t_complex) {
        /* leaves: no references */
    } else if (t == vm->t_tuple) {
        TupleObj *tu = (TupleObj *)o;
        bool all = true;
        for (int64_t i = 0; i < tu->len; i++)
            if (tu->items[i].tag == VAL_OBJ && !make_permanent(vm, tu->items[i].as.o, depth + 1)) all = false;
        if (!all) return false;
    } else if (t == vm->t_code) {
        CodeObj *c = (CodeObj *)o;
        uint8_t f = 0;
        if (field_permanent(vm, c->consts, depth)) f |= CODE_PERM_CONSTS;
        if (field_permanent(vm, c->names, depth)) f |= CODE_PERM_NAMES;
        if (field_permanent(vm, c->varnames, depth)) f |= CODE_PERM_VARNAMES;
        if (field_permanent(vm, c->cellvars, depth)) f |= CODE_PERM_CELLVARS;
        if (field_permanent(vm, c->freevars, depth)) f |= CODE_PERM_FREEVARS;
        if (field_permanent(vm, c->name, depth)) f |= CODE_PERM_NAME;
        if (field_permanent(vm, c->qualname, depth)) f |= CODE_PERM_QUALNAME;
        /* out of memory: it stays collectable (the fields made permanent are valid on their own) */
        if (!ptr_push((Obj ***)&vm->perm_code, &vm->nperm_code, &vm->perm_code_cap, o)) return false;
        c->perm_fields = f;
    } else {
        return false;
    }
    o->flags |= OBJF_PERMANENT;
    o->marked = 1;
    return true;
}

bool gc_make_permanent(VM *vm, Obj *o) { return o && make_permanent(vm, o, 0); }

/* ---- mark ----------------------------------------------------------------------------- */

void gc_mark_new(VM *vm, Obj *o) {
    o->marked = 1;
    TypeObj *t = o->type;
    /* a leaf (str, bytes, float, ...) holds no references: nothing to trace, so it is not
     * queued (gc_check_heap queues everything: it looks at each reference on the stack) */
    if (t && !t->trace && !vm->gc_checking) {
        if (!t->hdr.marked) gc_mark_new(vm, &t->hdr);
        return;
    }
    if (vm->ngray == vm->gray_cap) {
        vm->gray_cap = vm->gray_cap ? vm->gray_cap * 2 : 1024;
        vm->gray = realloc(vm->gray, sizeof(Obj *) * vm->gray_cap);
        EM_ASSERT(vm->gray != NULL, "out of memory growing the gray stack");
    }
    vm->gray[vm->ngray++] = o;
}

static void mark_frame(VM *vm, Frame *f) {
    gc_mark(vm, f->code);
    gc_mark(vm, f->func);
    gc_mark(vm, f->globals);
    gc_mark(vm, f->builtins);
    gc_mark(vm, f->locals_dict);
    gc_mark(vm, f->gen);
    gc_mark(vm, f->kwnames);
    gc_mark(vm, f->obj);
    int32_t n = f->code->nlocalsplus;
    for (int32_t i = 0; i < n; i++) gc_mark_value(vm, f->localsplus[i]);
    for (Value *p = f->stack; p < f->sp; p++) gc_mark_value(vm, *p);
}

void gc_trace_frame(VM *vm, Frame *f) { mark_frame(vm, f); }

static void mark_roots(VM *vm) {
    for (Frame *f = vm->frame; f; f = f->prev) mark_frame(vm, f);
    for (int32_t i = 0; i < vm->roots.n; i++) gc_mark_value(vm, vm->roots.v[i]);
    for (ExtRoot *r = vm->ext_roots; r; r = r->next) gc_mark_value(vm, r->v);
    for (size_t i = 0; i < vm->fin_n; i++) gc_mark_obj(vm, vm->fin_pending[i]);
    /* what of a permanent code object can still change or was not made permanent */
    for (size_t i = 0; i < vm->nperm_code; i++) {
        CodeObj *c = vm->perm_code[i];
        code_mark_refs(vm, c, c->perm_fields);
    }
#define X(f, s) gc_mark(vm, vm->t_##f);
    VM_TYPES(X)
#undef X
#define X(n, b) gc_mark(vm, vm->e_##n);
    VM_EXCEPTIONS(X)
#undef X
    gc_mark_value(vm, vm->ellipsis);
    gc_mark_value(vm, vm->not_implemented);
    gc_mark(vm, vm->intern);
    for (int i = 0; i < SP__COUNT; i++) gc_mark(vm, vm->special_names[i]);
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 3; j++) gc_mark(vm, vm->binop_names[i][j]);
    gc_mark(vm, vm->empty_str);
    gc_mark(vm, vm->empty_tuple);
    for (int i = 0; i < 256; i++) gc_mark(vm, vm->s_cache[i]);
    gc_mark_value(vm, vm->exc);
    gc_mark_value(vm, vm->handled);
    gc_mark(vm, vm->builtins);
    gc_mark(vm, vm->modules);
    gc_mark(vm, vm->path);
    gc_mark(vm, vm->argv);
    gc_mark_value(vm, vm->main_module);
    gc_mark_value(vm, vm->sys_stdout);
    gc_mark_value(vm, vm->sys_stderr);
    for (int i = 0; i < VM_LIB__COUNT; i++) gc_mark_value(vm, vm->lib[i]);
    for (Builder *b = vm->live_builders; b; b = b->prev_live) {
        gc_mark(vm, b->consts);
        gc_mark(vm, b->const_index);
        gc_mark(vm, b->names);
        gc_mark(vm, b->varnames);
        gc_mark(vm, b->cellvars);
        gc_mark(vm, b->freevars);
        gc_mark(vm, b->name);
        gc_mark(vm, b->qualname);
        gc_mark(vm, b->filename);
    }
    for (int i = 0; i < VM_EXT__COUNT; i++)
        if (vm->ext_trace[i] && vm->ext[i]) vm->ext_trace[i](vm, vm->ext[i]);
}

static void drain_gray(VM *vm) {
    while (vm->ngray) {
        Obj *o = vm->gray[--vm->ngray];
        TypeObj *t = o->type;
        if (!t->hdr.marked) gc_mark_new(vm, &t->hdr);
        if (t->trace) t->trace(vm, o);
    }
}

/* ---- sweep ---------------------------------------------------------------------------- */

/* Clear weakrefs whose referent is dying; collect their callbacks to run after the sweep
 * (a malloc'd list that grows: every callback runs, however many die at once).  Weakref
 * objects that are themselves dying are unlinked and their callbacks dropped, as CPython
 * does for garbage weakrefs. */
typedef struct PendingCallbacks {
    Value *v;
    int n, cap;
} PendingCallbacks;

static void clear_weakrefs(VM *vm, PendingCallbacks *pending) {
    struct WeakRefObj **link = &vm->weakrefs;
    while (*link) {
        struct WeakRefObj *w = *link;
        if (!w->hdr.marked) {
            *link = w->next_weak;
            continue;
        }
        if (w->referent && !w->referent->marked) {
            w->referent = NULL;
            if (!val_is_null(w->callback)) {
                if (pending->n == pending->cap) {
                    int ncap = pending->cap ? pending->cap * 2 : 16;
                    Value *nv = realloc(pending->v, sizeof(Value) * (size_t)ncap);
                    if (!nv) {
                        /* out of memory in the collector: the callback is dropped */
                        link = &w->next_weak;
                        continue;
                    }
                    pending->v = nv;
                    pending->cap = ncap;
                }
                pending->v[pending->n++] = val_obj(w);
            }
        }
        link = &w->next_weak;
    }
}

/* ---- __del__ finalizers ----------------------------------------------------------------- */

/* Instances of classes with __del__ are finalized the way PyPy does it: when a collection finds
 * one unreachable, it and everything it references survive this collection, it is queued on
 * vm->fin_pending (a root), and its __del__ runs at the interpreter's next safe point — a
 * backward jump or a return, where no C code is half-way through changing an object (a
 * collection starts inside any allocation, e.g. while a list grows: running script code there
 * could append to that very list).  gc.collect() and interpreter exit run them at once.
 * OBJF_FINALIZED: __del__ never runs twice, even if it resurrects the object; the next
 * collection frees it if it is still unreachable.  So __del__ runs when the collector notices,
 * not the moment CPython's reference count drops, and a cycle of finalizable objects is
 * finalized, not left in gc.garbage.  Weak references to a finalizable object are cleared only
 * when it is freed, after its __del__. */
static bool pending_push(VM *vm, Obj *o) {
    if (vm->fin_n == vm->fin_cap) {
        size_t ncap = vm->fin_cap ? vm->fin_cap * 2 : 16;
        Obj **nv = realloc(vm->fin_pending, sizeof(Obj *) * ncap);
        if (!nv) return false;
        vm->fin_pending = nv;
        vm->fin_cap = ncap;
    }
    vm->fin_pending[vm->fin_n++] = o;
    return true;
}

static bool needs_finalizer(VM *vm, Obj *o) {
    TypeObj *t = o->type;
    return !(o->flags & OBJF_FINALIZED) && t && (t->flags & TYPEF_HEAPTYPE) &&
           !val_is_null(type_special(vm, t, SP_DEL));
}

/* Queue the unreachable objects whose class has __del__ (`all`: the live ones too, at exit),
 * oldest first (the heap table's order), each marked as finalized. */
static void find_finalizable(VM *vm, bool all) {
    Obj **objs = vm->objects;
    size_t n = vm->nobjects;
    for (size_t i = 0; i < n; i++) {
        if (i + GC_PREFETCH_AHEAD < n) __builtin_prefetch(objs[i + GC_PREFETCH_AHEAD]);
        Obj *o = objs[i];
        if ((all || !o->marked) && needs_finalizer(vm, o)) {
            /* out of memory in the collector: this object is freed without its __del__ */
            if (!pending_push(vm, o)) break;
            o->flags |= OBJF_FINALIZED;
        }
    }
}

void gc_run_finalizers(VM *vm) {
    if (!vm->fin_n || vm->gc_running) return;
    /* take the queue: finalizers may collect and queue more (they run in a later batch) */
    Obj **list = vm->fin_pending;
    size_t n = vm->fin_n;
    vm->fin_pending = NULL;
    vm->fin_n = vm->fin_cap = 0;
    for (size_t i = 0; i < n; i++) vm_push_root(vm, val_obj(list[i]));
    Value saved = vm->exc;
    vm->exc = val_null();
    vm_push_root(vm, saved);
    for (size_t i = 0; i < n; i++) {
        Value self = val_obj(list[i]);
        Value r = vm_call_special(vm, self, SP_DEL, 0, NULL);
        if (val_is_null(r)) {
            /* reported through sys.unraisablehook as CPython does:
             * "Exception ignored in: <function C.__del__ at 0x...>" and the traceback */
            Value e = vm_fetch_exc(vm);
            vm_push_root(vm, e);
            Value del = type_special(vm, list[i]->type, SP_DEL);
            vm_write_unraisable(vm, e, NULL, val_is_null(del) ? self : del);
            vm_clear_exc(vm);
            vm_pop_root(vm);
        }
    }
    vm->exc = saved;
    vm_pop_roots(vm, (int)n + 1);
    free(list);
}

void gc_finalize_all(VM *vm) {
    if (!vm->gc_finalizers) return;
    gc_collect(vm);
    gc_run_finalizers(vm);
    /* objects still alive at exit, as CPython finalizes module globals at shutdown; a __del__
     * may make new finalizable objects, so repeat a few rounds */
    for (int round = 0; round < 8; round++) {
        find_finalizable(vm, true);
        if (!vm->fin_n) break;
        gc_run_finalizers(vm);
    }
}

static void free_object(VM *vm, Obj *o) {
    if (o->type && o->type->finalize) o->type->finalize(vm, o);
    vm->bytes_allocated -= o->size;
    objpool_free(vm, o);
}

/* The sweep compacts the heap table in place, keeping its order; the loads of the headers are
 * independent of each other (the table is read in order), and prefetched this far ahead. */
static void sweep(VM *vm) {
    /* Finalizers may look at the dying object's type (e.g. its layout), so types die last:
     * take every dead object out of the table first (chained oldest first through gc_next),
     * then finalize non-types, then free the types. */
    Obj **objs = vm->objects;
    size_t n = vm->nobjects, live = 0;
    Obj *dead = NULL, *dead_types = NULL, **dead_end = &dead, **types_end = &dead_types;
    for (size_t i = 0; i < n; i++) {
        if (i + GC_PREFETCH_AHEAD < n) __builtin_prefetch(objs[i + GC_PREFETCH_AHEAD], 1);
        Obj *o = objs[i];
        if (o->marked) {
            /* a permanent object leaves the table, still marked (out of memory: it stays) */
            if ((o->flags & OBJF_PERMANENT) && ptr_push(&vm->permanent, &vm->npermanent, &vm->permanent_cap, o)) {
                vm->permanent_bytes += o->size;
                continue;
            }
            if (!(o->flags & OBJF_PERMANENT)) o->marked = 0;
            objs[live++] = o;
        } else if (o->type == vm->t_type || (o->type && o->type->layout == OBJ_LAYOUT_TYPE)) {
            *types_end = o;
            types_end = &o->gc_next;
        } else {
            *dead_end = o;
            dead_end = &o->gc_next;
        }
    }
    *dead_end = *types_end = NULL;
    vm->gc_freed += (int64_t)(n - live);
    vm->nobjects = vm->gc_nobjects_after = live;
    while (dead) {
        Obj *next = dead->gc_next;
        free_object(vm, dead);
        dead = next;
    }
    while (dead_types) {
        Obj *next = dead_types->gc_next;
        free_object(vm, dead_types);
        dead_types = next;
    }
}

void gc_collect(VM *vm) {
    if (vm->gc_running) return;
    vm->gc_running = true;
    vm->gc_count++;
    mark_roots(vm);
    drain_gray(vm);
    if (vm->gc_finalizers) {
        size_t before = vm->fin_n;
        find_finalizable(vm, false);
        for (size_t i = before; i < vm->fin_n; i++) gc_mark_obj(vm, vm->fin_pending[i]);
        drain_gray(vm);
    }
    PendingCallbacks pending = {NULL, 0, 0};
    clear_weakrefs(vm, &pending);
    /* Weakrefs with callbacks must survive until their callback has run. */
    for (int i = 0; i < pending.n; i++) gc_mark_value(vm, pending.v[i]);
    drain_gray(vm);
    memoryview_gc_sweep(vm);
    sweep(vm);
    vm->live_after_gc = vm->bytes_allocated;
    vm->next_storage_gc = vm->storage_bytes + storage_budget(vm);
    /* the big-buffer cache keeps twice what the next cycle is budgeted to take back (more is
     * resident for nothing); trimmed to the budget itself, a cycle's overshoot (a kernel
     * allocates several buffers before the next object allocation collects) was unmapped every
     * cycle and faulted in again: einsum_bij_bjk_32x64 275 -> 355 us */
    if (vm->storage_trim) vm->storage_trim(2 * storage_budget(vm));
    size_t live = heap_bytes(vm), marked = live > vm->permanent_bytes ? live - vm->permanent_bytes : 0;
    vm->next_gc = live + (marked > GC_MIN_GROWTH ? marked : GC_MIN_GROWTH);
    if (vm->next_gc < GC_MIN_THRESHOLD) vm->next_gc = GC_MIN_THRESHOLD;
    vm->gc_running = false;
    if (pending.n) {
        /* Run callbacks with the weakref as argument; errors are reported, not raised, as
         * CPython does for weakref callbacks. */
        for (int i = 0; i < pending.n; i++) vm_push_root(vm, pending.v[i]);
        Value saved = vm->exc;
        vm->exc = val_null();
        vm_push_root(vm, saved);
        for (int i = 0; i < pending.n; i++) {
            struct WeakRefObj *w = (struct WeakRefObj *)pending.v[i].as.o;
            Value cb = w->callback;
            w->callback = val_null();
            Value r = vm_call1(vm, cb, pending.v[i]);
            if (val_is_null(r)) {
                fprintf(vm->err, "Exception ignored in weakref callback:\n");
                Value e = vm_fetch_exc(vm);
                vm_print_exception(vm, e, vm->err);
            }
        }
        vm->exc = saved;
        vm_pop_roots(vm, pending.n + 1);
    }
    free(pending.v);
}

/* ---- debug walker --------------------------------------------------------------------- */

size_t gc_live_objects(VM *vm) { return vm->nobjects + vm->npermanent; }

static int cmp_ptr(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(Obj *const *)a, y = (uintptr_t)*(Obj *const *)b;
    return x < y ? -1 : x > y;
}

static bool in_heap(Obj **all, size_t n, Obj *p) {
    return bsearch(&p, all, n, sizeof(Obj *), cmp_ptr) != NULL;
}

/* The walker reuses the trace functions: each object's references are pushed on the gray
 * stack (its own mark bit set, so marking itself is a no-op) and looked up in a sorted table
 * of the live objects; a reference outside the table points at freed memory. */
int gc_check_heap(VM *vm) {
    int problems = 0;
    size_t n = vm->nobjects;
    Obj **all = malloc(sizeof(Obj *) * (n ? n : 1));
    EM_ASSERT(all != NULL, "out of memory in gc_check_heap");
    memcpy(all, vm->objects, sizeof(Obj *) * n);
    qsort(all, n, sizeof(Obj *), cmp_ptr);
    vm->gc_checking = true;
    for (size_t i = 0; i < n; i++) {
        Obj *o = vm->objects[i];
        if (o->type && !in_heap(all, n, (Obj *)o->type)) {
            fprintf(stderr, "gc_check_heap: object %p has a type outside the heap\n", (void *)o);
            problems++;
            continue;
        }
        size_t before = vm->ngray;
        bool was = o->marked;
        o->marked = 1;
        if (o->type && o->type->trace) o->type->trace(vm, o);
        o->marked = was;
        while (vm->ngray > before) {
            Obj *ref = vm->gray[--vm->ngray];
            if (!in_heap(all, n, ref)) {
                fprintf(stderr, "gc_check_heap: %p (type %s) references freed %p\n", (void *)o,
                        o->type && o->type->name ? o->type->name->data : "?", (void *)ref);
                problems++;
                continue;
            }
            ref->marked = 0;
        }
    }
    vm->gc_checking = false;
    free(all);
    return problems;
}
