/* vm/mod_heapq.c — the `_heapq` module (CPython 3.11's Modules/_heapqmodule.c): the
 * list-based heap (push, pop, heapify incl. CPython's cache-friendly order for big heaps,
 * replace, pushpop, and the _max variants heapq.merge/nlargest use).  Comparisons go through
 * `<` only, and a heap whose size changes under a comparison raises as CPython does. */
#include <string.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- _heapq --------------------------------------------------------------------------- */

/* a < b for the min heap, b < a for the max heap */
static int heap_lt(VM *vm, bool max, Value a, Value b) { return max ? vm_lt(vm, b, a) : vm_lt(vm, a, b); }

static int changed(VM *vm, ListObj *heap, int64_t size) {
    if (heap->len != size) {
        vm_raise(vm, vm->e_RuntimeError, "list changed size during iteration");
        return -1;
    }
    return 0;
}

/* Follow the path to the root, moving parents down until finding a place newitem fits. */
static int siftdown(VM *vm, ListObj *heap, int64_t startpos, int64_t pos, bool max) {
    int64_t size = heap->len;
    while (pos > startpos) {
        int64_t parentpos = (pos - 1) >> 1;
        int cmp = heap_lt(vm, max, heap->items[pos], heap->items[parentpos]);
        if (cmp < 0) return -1;
        if (changed(vm, heap, size) < 0) return -1;
        if (cmp == 0) break;
        Value parent = heap->items[parentpos];
        heap->items[parentpos] = heap->items[pos];
        heap->items[pos] = parent;
        pos = parentpos;
    }
    return 0;
}

/* Bubble the smaller child up to a leaf, then sift the item at pos back down. */
static int siftup(VM *vm, ListObj *heap, int64_t pos, bool max) {
    int64_t endpos = heap->len, startpos = pos, limit = endpos >> 1;
    while (pos < limit) {
        int64_t childpos = 2 * pos + 1;
        if (childpos + 1 < endpos) {
            int cmp = heap_lt(vm, max, heap->items[childpos], heap->items[childpos + 1]);
            if (cmp < 0) return -1;
            childpos += (unsigned)cmp ^ 1;
            if (changed(vm, heap, endpos) < 0) return -1;
        }
        Value tmp = heap->items[childpos];
        heap->items[childpos] = heap->items[pos];
        heap->items[pos] = tmp;
        pos = childpos;
    }
    return siftdown(vm, heap, startpos, pos, max);
}

/* The heap argument, with Argument Clinic's message: "f() argument 1 must be list" for the
 * two-argument functions, "f() argument must be list" for the one-argument ones. */
static ListObj *heap_arg(VM *vm, NativeObj *fn, Value v, bool only) {
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_list)) {
        vm_raise(vm, vm->e_TypeError, "%s() argument%s must be list, not %s", fn->name, only ? "" : " 1",
                 val_is_none(v) ? "None" : vm_type_name(vm, v));
        return NULL;
    }
    return AS_LIST(v);
}

static Value hq_heappush(ARGS) {
    ListObj *heap = heap_arg(vm, fn, argv[0], false);
    if (!heap || list_append(vm, heap, argv[1]) < 0) return val_null();
    return siftdown(vm, heap, 0, heap->len - 1, false) < 0 ? val_null() : val_none();
}

/* fn->data: max heap */
static Value hq_heappop(ARGS) {
    bool max = fn->data != NULL;
    ListObj *heap = heap_arg(vm, fn, argv[0], true);
    if (!heap) return val_null();
    if (heap->len == 0) return vm_raise(vm, vm->e_IndexError, "index out of range");
    Value last = heap->items[--heap->len];
    if (heap->len == 0) return last;
    Value top = heap->items[0];
    heap->items[0] = last;
    vm_push_root(vm, top);
    int rc = siftup(vm, heap, 0, max);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : top;
}

static Value hq_heapreplace(ARGS) {
    bool max = fn->data != NULL;
    ListObj *heap = heap_arg(vm, fn, argv[0], false);
    if (!heap) return val_null();
    if (heap->len == 0) return vm_raise(vm, vm->e_IndexError, "index out of range");
    Value top = heap->items[0];
    heap->items[0] = argv[1];
    vm_push_root(vm, top);
    int rc = siftup(vm, heap, 0, max);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : top;
}

static Value hq_heappushpop(ARGS) {
    ListObj *heap = heap_arg(vm, fn, argv[0], false);
    if (!heap) return val_null();
    if (heap->len == 0) return argv[1];
    int cmp = vm_lt(vm, heap->items[0], argv[1]);
    if (cmp < 0) return val_null();
    if (cmp == 0) return argv[1];
    if (heap->len == 0) return vm_raise(vm, vm->e_IndexError, "index out of range");
    Value top = heap->items[0];
    heap->items[0] = argv[1];
    vm_push_root(vm, top);
    int rc = siftup(vm, heap, 0, false);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : top;
}

static int64_t keep_top_bit(int64_t n) {
    int i = 0;
    while (n > 1) {
        n >>= 1;
        i++;
    }
    return n << i;
}

/* Bottom-up heapify in the order of "Optimizing Heapify" for heaps past L1 size, as CPython
 * does (the resulting order is part of the observable behaviour). */
static int cache_friendly_heapify(VM *vm, ListObj *heap, bool max) {
    int64_t m = heap->len >> 1, leftmost = keep_top_bit(m + 1) - 1, mhalf = m >> 1;
    for (int64_t i = leftmost - 1; i >= mhalf; i--)
        for (int64_t j = i;; j >>= 1) {
            if (siftup(vm, heap, j, max) < 0) return -1;
            if (!(j & 1)) break;
        }
    for (int64_t i = m - 1; i >= leftmost; i--)
        for (int64_t j = i;; j >>= 1) {
            if (siftup(vm, heap, j, max) < 0) return -1;
            if (!(j & 1)) break;
        }
    return 0;
}

static Value hq_heapify(ARGS) {
    bool max = fn->data != NULL;
    ListObj *heap = heap_arg(vm, fn, argv[0], true);
    if (!heap) return val_null();
    int64_t n = heap->len;
    if (n > 2500) return cache_friendly_heapify(vm, heap, max) < 0 ? val_null() : val_none();
    for (int64_t i = (n >> 1) - 1; i >= 0; i--)
        if (siftup(vm, heap, i, max) < 0) return val_null();
    return val_none();
}

int heapq_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"heappush", hq_heappush, ARITY_POS(2, 2)}, {"heappop", hq_heappop, ARITY_O, NULL},
        {"heapreplace", hq_heapreplace, ARITY_POS(2, 2), NULL}, {"heappushpop", hq_heappushpop, ARITY_POS(2, 2)},
        {"heapify", hq_heapify, ARITY_O, NULL}, {"_heappop_max", hq_heappop, ARITY_O, (void *)1},
        {"_heapreplace_max", hq_heapreplace, ARITY_POS(2, 2), (void *)1},
        {"_heapify_max", hq_heapify, ARITY_O, (void *)1}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
