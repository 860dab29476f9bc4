/* vm/mod_bisect.c — the `_bisect` module (CPython 3.11's Modules/_bisectmodule.c): binary
 * search and insertion into sorted sequences with lo/hi/key, comparing with `<` only. */
#include <string.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- _bisect -------------------------------------------------------------------------- */

/* a[i] via the sequence protocol (a fast path for lists). */
static Value seq_item(VM *vm, Value a, int64_t i) {
    if (val_is_type(vm, a, vm->t_list) && i < AS_LIST(a)->len) return AS_LIST(a)->items[i];
    return vm_getitem(vm, a, val_int(i));
}

/* right: first index whose item is > x; left: first whose item is >= x.  -1 on error. */
static int64_t bisect(VM *vm, Value a, Value x, int64_t lo, int64_t hi, Value key, bool right) {
    if (lo < 0) {
        vm_raise(vm, vm->e_ValueError, "lo must be non-negative");
        return -1;
    }
    if (hi == -1) {
        hi = vm_len(vm, a);
        if (hi < 0) return -1;
    }
    vm_push_root(vm, x);
    while (lo < hi) {
        int64_t mid = (int64_t)(((uint64_t)lo + (uint64_t)hi) / 2);
        Value item = seq_item(vm, a, mid);
        if (val_is_null(item)) goto fail;
        if (!val_is_none(key)) {
            item = vm_call1(vm, key, item);
            if (val_is_null(item)) goto fail;
        }
        vm_push_root(vm, item);
        int lt = right ? vm_lt(vm, x, item) : vm_lt(vm, item, x);
        vm_pop_root(vm);
        if (lt < 0) goto fail;
        if (right) {
            if (lt) hi = mid;
            else lo = mid + 1;
        } else {
            if (lt) lo = mid + 1;
            else hi = mid;
        }
    }
    vm_pop_root(vm);
    return lo;
fail:
    vm_pop_root(vm);
    return -1;
}

/* fn->data: bit 0 right, bit 1 insort */
static Value bisect_fn(ARGS) {
    static const char *const names[] = {"a", "x", "lo", "hi", "key"};
    static const char *const fnames[] = {"bisect_left", "bisect_right", "insort_left", "insort_right"};
    int mode = (int)(intptr_t)fn->data;
    bool right = mode & 1, insort = mode & 2;
    for (int64_t k = 0; kw && k < kw->len; k++) {
        int j = 0;
        while (j < 5 && !str_eq_c(AS_STR(kw->items[k]), names[j])) j++;
        if (j == 5)
            return vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for %s()",
                            AS_STR(kw->items[k])->data, fnames[mode]);
    }
    Value a[5];
    if (native_parse_args(vm, fnames[mode], argc, argv, kw, 4, 2, names, 5, a) < 0) return val_null();
    int64_t lo = 0, hi = -1;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &lo) < 0) return val_null();
    if (!val_is_null(a[3]) && !val_is_none(a[3]) && vm_index(vm, a[3], &hi) < 0) return val_null();
    Value key = val_is_null(a[4]) ? val_none() : a[4];
    Value x = a[1];
    if (insort && !val_is_none(key)) {
        x = vm_call1(vm, key, a[1]);
        if (val_is_null(x)) return x;
    }
    int64_t i = bisect(vm, a[0], x, lo, hi, key, right);
    if (i < 0) return val_null();
    if (!insort) return val_int(i);
    if (val_is_type(vm, a[0], vm->t_list)) {
        if (list_insert(vm, AS_LIST(a[0]), i, a[1]) < 0) return val_null();
    } else {
        Value args[2] = {val_int(i), a[1]};
        if (val_is_null(vm_call_method(vm, a[0], "insert", 2, args))) return val_null();
    }
    return val_none();
}

int bisect_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"bisect_left", bisect_fn, 0, (void *)0}, {"bisect_right", bisect_fn, 0, (void *)1},
        {"insort_left", bisect_fn, 0, (void *)2}, {"insort_right", bisect_fn, 0, (void *)3}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

