/* vm/seq_methods.c — the script-visible methods of list, tuple, range and slice: construction,
 * indexing and slicing (incl. slice assignment and deletion), mutation, search, comparison,
 * repr, hashing of tuples via the protocol, and sort(key=, reverse=). */
#include <string.h>

#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define LSELF AS_LIST(argv[0])
#define TSELF AS_TUPLE(argv[0])

static bool is_slice(VM *vm, Value v) { return val_is_type(vm, v, vm->t_slice); }

/* ---- list ---------------------------------------------------------------------------------------- */

static Value l_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "list", argc, kw, 1, 2) < 0) return val_null();
    ListObj *l = LSELF;
    l->len = 0;
    if (argc == 2 && list_extend(vm, l, argv[1]) < 0) return val_null();
    return val_none();
}

static Value l_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return list_alloc_type(vm, AS_TYPE(argv[0]));
}

static Value list_slice(VM *vm, ListObj *l, SliceObj *s) {
    int64_t start, stop, step, n;
    if (slice_indices(vm, s, l->len, &start, &stop, &step, &n) < 0) return val_null();
    ListObj *r = list_new(vm, n);
    if (!r) return val_null();
    for (int64_t i = 0; i < n; i++) r->items[i] = l->items[start + i * step];
    r->len = n;
    return val_obj(r);
}

static Value l_getitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__getitem__", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = LSELF;
    if (is_slice(vm, argv[1])) return list_slice(vm, l, (SliceObj *)argv[1].as.o);
    int64_t i;
    if (!val_is_intlike(argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "list indices must be integers or slices, not %s",
                        vm_type_name(vm, argv[1]));
    if (seq_index(vm, argv[1], l->len, "list", &i) < 0) return val_null();
    return l->items[i];
}

/* l[start:stop:step] = iterable */
static int list_assign_slice(VM *vm, ListObj *l, SliceObj *s, Value src) {
    int64_t start, stop, step, n;
    if (slice_indices(vm, s, l->len, &start, &stop, &step, &n) < 0) return -1;
    Value holder = val_null();
    int64_t m;
    Value *items;
    if (val_is_obj(src) && src.as.o == (Obj *)l) {
        ListObj *copy = list_from_array(vm, l->items, l->len);
        if (!copy) return -1;
        holder = val_obj(copy);
        items = copy->items;
        m = copy->len;
    } else {
        items = vm_sequence_items(vm, src, &m, &holder);
        if (!items) {
            if (vm_exc_matches(vm, vm->e_TypeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "can only assign an iterable");
            }
            return -1;
        }
    }
    vm_push_root(vm, holder);
    vm_push_root(vm, src);
    int rc = 0;
    if (step == 1) {
        if (stop < start) stop = start;
        int64_t removed = stop - start;
        int64_t newlen = l->len - removed + m;
        if (newlen > l->cap && list_reserve(vm, l, newlen) < 0) {
            rc = -1;
        } else {
            /* re-fetch items: the reserve may have collected, but sources are rooted */
            if (!val_is_null(holder)) items = vm_sequence_items(vm, holder, &m, NULL);
            else if (val_is_obj(src)) items = vm_sequence_items(vm, src, &m, NULL);
            /* an empty list has no items array and an empty source no items: memmove/memcpy
             * must not see NULL even for zero bytes (UBSan) */
            if (l->len > stop) memmove(l->items + start + m, l->items + stop, sizeof(Value) * (size_t)(l->len - stop));
            if (m > 0) memcpy(l->items + start, items, sizeof(Value) * (size_t)m);
            l->len = newlen;
        }
    } else {
        if (m != n) {
            vm_raise(vm, vm->e_ValueError, "attempt to assign sequence of size %lld to extended slice of size %lld",
                     (long long)m, (long long)n);
            rc = -1;
        } else {
            for (int64_t i = 0; i < n; i++) l->items[start + i * step] = items[i];
        }
    }
    vm_pop_roots(vm, 2);
    return rc;
}

static int list_del_slice(VM *vm, ListObj *l, SliceObj *s) {
    int64_t start, stop, step, n;
    if (slice_indices(vm, s, l->len, &start, &stop, &step, &n) < 0) return -1;
    if (n == 0) return 0;
    if (step < 0) {
        start = start + (n - 1) * step;
        step = -step;
    }
    int64_t w = start;
    for (int64_t r = start, k = 0; r < l->len; r++) {
        if (k < n && r == start + k * step) {
            k++;
            continue;
        }
        l->items[w++] = l->items[r];
    }
    l->len = w;
    return 0;
}

static Value l_setitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__setitem__", argc, kw, 3, 3) < 0) return val_null();
    ListObj *l = LSELF;
    if (is_slice(vm, argv[1]))
        return list_assign_slice(vm, l, (SliceObj *)argv[1].as.o, argv[2]) < 0 ? val_null() : val_none();
    int64_t i;
    if (!val_is_intlike(argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "list indices must be integers or slices, not %s",
                        vm_type_name(vm, argv[1]));
    if (seq_index(vm, argv[1], l->len, "list assignment", &i) < 0) return val_null();
    l->items[i] = argv[2];
    return val_none();
}

static Value l_delitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__delitem__", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = LSELF;
    if (is_slice(vm, argv[1])) return list_del_slice(vm, l, (SliceObj *)argv[1].as.o) < 0 ? val_null() : val_none();
    int64_t i;
    if (seq_index(vm, argv[1], l->len, "list assignment", &i) < 0) return val_null();
    memmove(l->items + i, l->items + i + 1, sizeof(Value) * (size_t)(l->len - i - 1));
    l->len--;
    return val_none();
}

static Value l_append(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "append", argc, kw, 2, 2) < 0) return val_null();
    return list_append(vm, LSELF, argv[1]) < 0 ? val_null() : val_none();
}

static Value l_extend(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "extend", argc, kw, 2, 2) < 0) return val_null();
    return list_extend(vm, LSELF, argv[1]) < 0 ? val_null() : val_none();
}

static Value l_insert(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "insert", argc, kw, 3, 3) < 0) return val_null();
    int64_t i;
    if (vm_index(vm, argv[1], &i) < 0) return val_null();
    return list_insert(vm, LSELF, i, argv[2]) < 0 ? val_null() : val_none();
}

static Value l_pop(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "pop", argc, kw, 1, 2) < 0) return val_null();
    ListObj *l = LSELF;
    if (l->len == 0) return vm_raise(vm, vm->e_IndexError, "pop from empty list");
    int64_t i = l->len - 1;
    if (argc == 2 && seq_index(vm, argv[1], l->len, "pop", &i) < 0) return val_null();
    Value v = l->items[i];
    memmove(l->items + i, l->items + i + 1, sizeof(Value) * (size_t)(l->len - i - 1));
    l->len--;
    return v;
}

static int64_t list_find(VM *vm, ListObj *l, Value x, int64_t start, int64_t stop) {
    for (int64_t i = start; i < stop && i < l->len; i++) {
        int eq = vm_eq(vm, l->items[i], x);
        if (eq < 0) return -2;
        if (eq) return i;
    }
    return -1;
}

static Value l_remove(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "remove", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = LSELF;
    int64_t i = list_find(vm, l, argv[1], 0, l->len);
    if (i == -2) return val_null();
    if (i < 0) return vm_raise(vm, vm->e_ValueError, "list.remove(x): x not in list");
    memmove(l->items + i, l->items + i + 1, sizeof(Value) * (size_t)(l->len - i - 1));
    l->len--;
    return val_none();
}

static void clamp_range(int64_t n, int argc, Value *argv, int first, int64_t *start, int64_t *stop) {
    *start = 0;
    *stop = n;
    if (argc > first && val_is_intlike(argv[first])) {
        *start = val_as_intlike(argv[first]);
        if (*start < 0) *start += n;
        if (*start < 0) *start = 0;
    }
    if (argc > first + 1 && val_is_intlike(argv[first + 1])) {
        *stop = val_as_intlike(argv[first + 1]);
        if (*stop < 0) *stop += n;
        if (*stop < 0) *stop = 0;
    }
}

static Value l_index(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "index", argc, kw, 2, 4) < 0) return val_null();
    ListObj *l = LSELF;
    int64_t start, stop;
    clamp_range(l->len, argc, argv, 2, &start, &stop);
    int64_t i = list_find(vm, l, argv[1], start, stop);
    if (i == -2) return val_null();
    if (i < 0) {
        Value r = vm_repr(vm, argv[1]);
        if (val_is_null(r)) return r;
        return vm_raise(vm, vm->e_ValueError, "%s is not in list", AS_STR(r)->data);
    }
    return val_int(i);
}

static Value l_count(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "count", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = LSELF;
    int64_t c = 0;
    for (int64_t i = 0; i < l->len; i++) {
        int eq = vm_eq(vm, l->items[i], argv[1]);
        if (eq < 0) return val_null();
        c += eq;
    }
    return val_int(c);
}

static Value l_clear(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    LSELF->len = 0;
    return val_none();
}

static Value l_copy(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *r = list_from_array(vm, LSELF->items, LSELF->len);
    return r ? val_obj(r) : val_null();
}

static Value l_reverse(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    ListObj *l = LSELF;
    for (int64_t i = 0, j = l->len - 1; i < j; i++, j--) {
        Value t = l->items[i];
        l->items[i] = l->items[j];
        l->items[j] = t;
    }
    return val_none();
}

static Value l_sort(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"self", "key", "reverse"};
    Value a[3];
    if (argc > 1) return vm_raise(vm, vm->e_TypeError, "sort() takes no positional arguments");
    if (native_parse_args(vm, "sort", argc, argv, kw, 1, 1, names, 3, a) < 0) return val_null();
    bool rev = false;
    if (!val_is_null(a[2])) {
        int t = vm_truthy(vm, a[2]);
        if (t < 0) return val_null();
        rev = t;
    }
    return list_sort(vm, LSELF, a[1], rev) < 0 ? val_null() : val_none();
}

static Value l_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(LSELF->len); }

static Value l_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int64_t i = list_find(vm, LSELF, argv[1], 0, LSELF->len);
    return i == -2 ? val_null() : val_bool(i >= 0);
}

static Value l_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return iter_new(vm, list_iter_next, argv[0], val_null(), 0, 0);
}

static Value l_reversed(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return iter_reversed_list(vm, argv[0]);
}

static Value l_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return seq_repr(vm, argv[0], LSELF->items, LSELF->len, "[", "]");
}

static Value l_cmp(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_list)) return vm->not_implemented;
    return seq_richcompare(vm, LSELF->items, LSELF->len, AS_LIST(argv[1])->items, AS_LIST(argv[1])->len,
                           (int)(intptr_t)fn->data);
}

static Value l_add(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "can only concatenate list (not \"%s\") to list", vm_type_name(vm, argv[1]));
    ListObj *a = LSELF, *b = AS_LIST(argv[1]);
    ListObj *r = list_new(vm, a->len + b->len);
    if (!r) return val_null();
    memcpy(r->items, a->items, sizeof(Value) * (size_t)a->len);
    memcpy(r->items + a->len, b->items, sizeof(Value) * (size_t)b->len);
    r->len = a->len + b->len;
    return val_obj(r);
}

static Value l_iadd(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return list_extend(vm, LSELF, argv[1]) < 0 ? val_null() : argv[0];
}

static Value l_mul(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_intlike(argv[1])) return vm->not_implemented;
    ListObj *plain = list_from_array(vm, LSELF->items, LSELF->len);
    if (!plain) return val_null();
    vm_push_root(vm, val_obj(plain));
    Value r = vm_binary_op(vm, BINOP_MULTIPLY, val_obj(plain), argv[1]);
    vm_pop_root(vm);
    return r;
}

static Value l_imul(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_intlike(argv[1])) return vm->not_implemented;
    ListObj *l = LSELF;
    int64_t k = val_as_intlike(argv[1]), n = l->len;
    if (k <= 0) {
        l->len = 0;
        return argv[0];
    }
    if (list_reserve(vm, l, n * k) < 0) return val_null();
    for (int64_t i = 1; i < k; i++) memcpy(l->items + i * n, l->items, sizeof(Value) * (size_t)n);
    l->len = n * k;
    return argv[0];
}

/* ---- tuple ---------------------------------------------------------------------------------------- */

static Value t_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "tuple() takes no keyword arguments");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "tuple expected at most 1 argument, got %d", argc - 1);
    TypeObj *t = AS_TYPE(argv[0]);
    if (argc == 1) {
        TupleObj *r = tuple_alloc(vm, t, 0);
        return r ? val_obj(r) : val_null();
    }
    if (t == vm->t_tuple && val_is_type(vm, argv[1], vm->t_tuple)) return argv[1];
    Value holder = val_null();
    int64_t n;
    Value *items = vm_sequence_items(vm, argv[1], &n, &holder);
    if (!items) return val_null();
    vm_push_root(vm, holder);
    TupleObj *r = tuple_alloc(vm, t, n);
    if (r) {
        items = vm_sequence_items(vm, val_is_null(holder) ? argv[1] : holder, &n, NULL);
        memcpy(r->items, items, sizeof(Value) * (size_t)n);
    }
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

static Value t_getitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "__getitem__", argc, kw, 2, 2) < 0) return val_null();
    TupleObj *t = TSELF;
    if (is_slice(vm, argv[1])) {
        int64_t start, stop, step, n;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, t->len, &start, &stop, &step, &n) < 0) return val_null();
        if (step == 1 && n == t->len && t->hdr.type == vm->t_tuple) return argv[0];
        TupleObj *r = tuple_new(vm, n);
        if (!r) return val_null();
        for (int64_t i = 0; i < n; i++) r->items[i] = t->items[start + i * step];
        return val_obj(r);
    }
    if (!val_is_intlike(argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "tuple indices must be integers or slices, not %s",
                        vm_type_name(vm, argv[1]));
    int64_t i;
    if (seq_index(vm, argv[1], t->len, "tuple", &i) < 0) return val_null();
    return t->items[i];
}

static Value t_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return val_int(TSELF->len); }

static Value t_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *t = TSELF;
    for (int64_t i = 0; i < t->len; i++) {
        int eq = vm_eq(vm, t->items[i], argv[1]);
        if (eq) return eq < 0 ? val_null() : val_bool(true);
    }
    return val_bool(false);
}

static Value t_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    /* iterate a plain view of the items (subclasses too) */
    TupleObj *t = TSELF;
    TupleObj *plain = t->hdr.type == vm->t_tuple ? t : tuple_from_array(vm, t->items, t->len);
    if (!plain) return val_null();
    vm_push_root(vm, val_obj(plain));
    Value it = vm_iter(vm, val_obj(plain));
    vm_pop_root(vm);
    return it;
}

static Value t_index(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "index", argc, kw, 2, 4) < 0) return val_null();
    TupleObj *t = TSELF;
    int64_t start, stop;
    clamp_range(t->len, argc, argv, 2, &start, &stop);
    for (int64_t i = start; i < stop && i < t->len; i++) {
        int eq = vm_eq(vm, t->items[i], argv[1]);
        if (eq < 0) return val_null();
        if (eq) return val_int(i);
    }
    return vm_raise(vm, vm->e_ValueError, "tuple.index(x): x not in tuple");
}

static Value t_count(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "count", argc, kw, 2, 2) < 0) return val_null();
    TupleObj *t = TSELF;
    int64_t c = 0;
    for (int64_t i = 0; i < t->len; i++) {
        int eq = vm_eq(vm, t->items[i], argv[1]);
        if (eq < 0) return val_null();
        c += eq;
    }
    return val_int(c);
}

static Value t_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return seq_repr(vm, argv[0], TSELF->items, TSELF->len, "(", ")");
}

static Value t_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *t = TSELF;
    TupleObj *plain = tuple_from_array(vm, t->items, t->len);
    if (!plain) return val_null();
    int64_t h;
    if (vm_hash(vm, val_obj(plain), &h) < 0) return val_null();
    return val_int(h);
}

static Value t_cmp(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_tuple)) return vm->not_implemented;
    return seq_richcompare(vm, TSELF->items, TSELF->len, AS_TUPLE(argv[1])->items, AS_TUPLE(argv[1])->len,
                           (int)(intptr_t)fn->data);
}

static Value t_add(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "can only concatenate tuple (not \"%s\") to tuple", vm_type_name(vm, argv[1]));
    TupleObj *a = TSELF, *b = AS_TUPLE(argv[1]);
    TupleObj *r = tuple_new(vm, a->len + b->len);
    if (!r) return val_null();
    memcpy(r->items, a->items, sizeof(Value) * (size_t)a->len);
    memcpy(r->items + a->len, b->items, sizeof(Value) * (size_t)b->len);
    return val_obj(r);
}

static Value t_getnewargs(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    TupleObj *r = tuple_from_array(vm, TSELF->items, TSELF->len);
    if (!r) return val_null();
    vm_push_root(vm, val_obj(r));
    TupleObj *w = tuple_pack(vm, 1, val_obj(r));
    vm_pop_root(vm);
    return w ? val_obj(w) : val_null();
}

/* ---- range and slice ----------------------------------------------------------------------------- */

#define RSELF ((RangeObj *)argv[0].as.o)

static Value r_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "range() takes no keyword arguments");
    int n = argc - 1;
    if (n < 1 || n > 3) {
        if (n < 1) return vm_raise(vm, vm->e_TypeError, "range expected at least 1 argument, got %d", n);
        return vm_raise(vm, vm->e_TypeError, "range expected at most 3 arguments, got %d", n);
    }
    Value a[3] = {val_int(0), val_int(0), val_int(1)};
    int nroots = 0;
    for (int i = 0; i < n; i++) {
        Value v = argv[i + 1];
        if (v.tag != VAL_INT) {
            /* __index__, into a plain int (range(True) is range(0, 1), int subclasses too) */
            mpz_t z;
            mpz_init(z);
            v = bigint_index_mpz(vm, v, z) < 0 ? val_null() : bigint_from_mpz(vm, z);
            mpz_clear(z);
            if (val_is_null(v)) {
                vm_pop_roots(vm, nroots);
                return v;
            }
            vm_push_root(vm, v), nroots++;
        }
        a[i] = v;
    }
    if (n == 1) {
        a[1] = a[0];
        a[0] = val_int(0);
    }
    Value r = n == 3 && !bigint_truthy(a[2]) ? vm_raise(vm, vm->e_ValueError, "range() arg 3 must not be zero")
                                             : range_new_values(vm, a[0], a[1], a[2]);
    vm_pop_roots(vm, nroots);
    return r;
}

static Value r_len(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return RSELF->big ? range_big_len(vm, RSELF) : val_int(RSELF->len);
}

static Value r_bool(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    return val_bool(RSELF->big ? bigint_truthy(RSELF->big->items[3]) : RSELF->len != 0);
}

static Value r_getitem(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    RangeObj *r = RSELF;
    if (r->big) return range_big_getitem(vm, r, argv[1]);
    if (is_slice(vm, argv[1])) {
        int64_t start, stop, step, n, s0, s1, st;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, r->len, &start, &stop, &step, &n) < 0) return val_null();
        if (!__builtin_mul_overflow(start, r->step, &s0) && !__builtin_add_overflow(s0, r->start, &s0) &&
            !__builtin_mul_overflow(step, r->step, &st) && !__builtin_mul_overflow(n, st, &s1) &&
            !__builtin_add_overflow(s1, s0, &s1))
            return range_new_values(vm, val_int(s0), val_int(s1), val_int(st));
        return range_big_getitem(vm, r, argv[1]);   /* products beyond int64 */
    }
    if (argv[1].tag != VAL_INT && argv[1].tag != VAL_BOOL) return range_big_getitem(vm, r, argv[1]);
    int64_t i;
    if (seq_index(vm, argv[1], r->len, "range object", &i) < 0) return val_null();
    return val_int(r->start + i * r->step);
}

static Value r_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    RangeObj *r = RSELF;
    Value parts[3];
    int n = 0;
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, "range(");
    bool step1 = !r->big ? r->step == 1 : r->big->items[2].tag == VAL_INT && r->big->items[2].as.i == 1;
    for (int i = 0; i < (step1 ? 2 : 3); i++, n++) {
        parts[i] = vm_repr(vm, range_get_part(vm, r, i));
        if (val_is_null(parts[i])) {
            sb_free(&b);
            return val_null();
        }
        if (i) sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(parts[i]));
    }
    sb_addc(&b, ')');
    StrObj *o = sb_finish(vm, &b);
    return o ? val_obj(o) : val_null();
}

/* CPython's range_contains: exact ints (and bools) by arithmetic, anything else by comparing
 * with each element */
static int r_contains_impl(VM *vm, Value self, Value x) {
    RangeObj *r = (RangeObj *)self.as.o;
    if (x.tag == VAL_INT || x.tag == VAL_BOOL || (x.tag == VAL_OBJ && x.as.o->type == vm->t_int)) {
        if (r->big || x.tag == VAL_OBJ) return range_big_contains_int(vm, r, x);
        int64_t v = val_as_intlike(x);
        if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop)) return 0;
        return (v - r->start) % r->step == 0;
    }
    Value it = iter_builtin(vm, self);
    if (val_is_null(it)) return -1;
    vm_push_root(vm, it);
    int found = 0;
    for (;;) {
        Value e = vm_next(vm, it);
        if (val_is_null(e)) {
            found = vm->exc.tag == VAL_NULL ? 0 : -1;
            break;
        }
        vm_push_root(vm, e);
        int eq = vm_eq(vm, e, x);
        vm_pop_root(vm);
        if (eq != 0) {
            found = eq;
            break;
        }
    }
    vm_pop_root(vm);
    return found;
}

static Value r_contains(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int c = r_contains_impl(vm, argv[0], argv[1]);
    return c < 0 ? val_null() : val_bool(c);
}

static Value r_index(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    RangeObj *r = RSELF;
    Value x = argv[1];
    bool exact = x.tag == VAL_INT || x.tag == VAL_BOOL || (x.tag == VAL_OBJ && x.as.o->type == vm->t_int);
    if (exact) {
        int c = r_contains_impl(vm, argv[0], x);
        if (c < 0) return val_null();
        if (c) return r->big || x.tag == VAL_OBJ ? range_big_index_of(vm, r, x)
                                                  : val_int((val_as_intlike(x) - r->start) / r->step);
    } else {
        /* by equality, as any sequence */
        Value it = iter_builtin(vm, argv[0]);
        if (val_is_null(it)) return it;
        vm_push_root(vm, it);
        for (int64_t i = 0;; i++) {
            Value e = vm_next(vm, it);
            if (val_is_null(e)) {
                vm_pop_root(vm);
                if (vm->exc.tag != VAL_NULL) return val_null();
                break;
            }
            vm_push_root(vm, e);
            int eq = vm_eq(vm, e, x);
            vm_pop_roots(vm, 1);
            if (eq < 0) {
                vm_pop_root(vm);
                return val_null();
            }
            if (eq) {
                vm_pop_root(vm);
                return val_int(i);
            }
        }
    }
    Value rep = vm_repr(vm, x);
    if (val_is_null(rep)) return rep;
    return vm_raise(vm, vm->e_ValueError, "%s is not in range", AS_STR(rep)->data);
}

static Value r_count(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "range.count", argc, kw, 2, 2) < 0) return val_null();
    Value x = argv[1];
    if (x.tag == VAL_INT || x.tag == VAL_BOOL || (x.tag == VAL_OBJ && x.as.o->type == vm->t_int)) {
        int c = r_contains_impl(vm, argv[0], x);
        return c < 0 ? val_null() : val_int(c);
    }
    /* other values count by equality, as for any sequence */
    Value it = iter_builtin(vm, argv[0]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    int64_t n = 0;
    for (;;) {
        Value e = vm_next(vm, it);
        if (val_is_null(e)) break;
        vm_push_root(vm, e);
        int eq = vm_eq(vm, e, x);
        vm_pop_root(vm);
        if (eq < 0) break;
        n += eq;
    }
    vm_pop_root(vm);
    return vm->exc.tag != VAL_NULL ? val_null() : val_int(n);
}

/* two ranges are equal when they give the same sequence: same length, and for a length over
 * 0 the same start, and over 1 the same step */
static Value r_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!val_is_type(vm, argv[1], vm->t_range)) return vm->not_implemented;
    RangeObj *a = RSELF, *b = (RangeObj *)argv[1].as.o;
    if (!a->big && !b->big) {
        if (a->len != b->len) return val_bool(false);
        if (a->len == 0) return val_bool(true);
        if (a->start != b->start) return val_bool(false);
        return val_bool(a->len == 1 || a->step == b->step);
    }
    Value la = a->big ? a->big->items[3] : val_int(a->len), lb = b->big ? b->big->items[3] : val_int(b->len);
    if (bigint_cmp(la, lb) != 0) return val_bool(false);
    if (!bigint_truthy(la)) return val_bool(true);
    if (bigint_cmp(range_get_part(vm, a, 0), range_get_part(vm, b, 0)) != 0) return val_bool(false);
    if (la.tag == VAL_INT && la.as.i == 1) return val_bool(true);
    return val_bool(bigint_cmp(range_get_part(vm, a, 2), range_get_part(vm, b, 2)) == 0);
}

/* CPython's range_hash: hash((len, start, step)) with start/step None where they do not
 * matter (so equal ranges hash alike) */
static Value r_hash(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    RangeObj *r = RSELF;
    Value len = r->big ? r->big->items[3] : val_int(r->len);
    Value t3[3] = {len, val_none(), val_none()};
    if (bigint_truthy(len)) {
        t3[1] = range_get_part(vm, r, 0);
        if (!(len.tag == VAL_INT && len.as.i == 1)) t3[2] = range_get_part(vm, r, 2);
    }
    TupleObj *t = tuple_from_array(vm, t3, 3);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    int64_t h;
    int rc = vm_hash(vm, val_obj(t), &h);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_int(h);
}

static Value r_reduce(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    RangeObj *r = RSELF;
    TupleObj *args = tuple_pack(vm, 3, range_get_part(vm, r, 0), range_get_part(vm, r, 1), range_get_part(vm, r, 2));
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    TupleObj *t = tuple_pack(vm, 2, val_obj(vm->t_range), val_obj(args));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value r_get_start(VM *vm, Value s, void *c) { return range_get_part(vm, (RangeObj *)s.as.o, 0); }
static Value r_get_stop(VM *vm, Value s, void *c) { return range_get_part(vm, (RangeObj *)s.as.o, 1); }
static Value r_get_step(VM *vm, Value s, void *c) { return range_get_part(vm, (RangeObj *)s.as.o, 2); }

static void range_trace(VM *vm, Obj *o) { gc_mark(vm, ((RangeObj *)o)->big); }

static void slice_trace(VM *vm, Obj *o) {
    SliceObj *s = (SliceObj *)o;
    gc_mark_value(vm, s->start);
    gc_mark_value(vm, s->stop);
    gc_mark_value(vm, s->step);
}

static Value sl_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    int n = argc - 1;
    if (n < 1 || n > 3) return vm_raise(vm, vm->e_TypeError, "slice expected at least 1 argument, got %d", n);
    if (n == 1) return slice_new(vm, val_none(), argv[1], val_none());
    return slice_new(vm, argv[1], argv[2], n == 3 ? argv[3] : val_none());
}

static Value sl_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    SliceObj *s = (SliceObj *)argv[0].as.o;
    Value parts[3] = {s->start, s->stop, s->step};
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, "slice(");
    for (int i = 0; i < 3; i++) {
        Value r = vm_repr(vm, parts[i]);
        if (val_is_null(r)) {
            sb_free(&b);
            return r;
        }
        if (i) sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(r));
    }
    sb_addc(&b, ')');
    StrObj *o = sb_finish(vm, &b);
    return o ? val_obj(o) : val_null();
}

static Value sl_indices(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "indices", argc, kw, 2, 2) < 0) return val_null();
    int64_t n;
    if (vm_index(vm, argv[1], &n) < 0) return val_null();
    int64_t start, stop, step, count;
    if (slice_indices(vm, (SliceObj *)argv[0].as.o, n, &start, &stop, &step, &count) < 0) return val_null();
    TupleObj *t = tuple_pack(vm, 3, val_int(start), val_int(stop), val_int(step));
    return t ? val_obj(t) : val_null();
}

static Value sl_eq(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (!is_slice(vm, argv[1])) return vm->not_implemented;
    SliceObj *a = (SliceObj *)argv[0].as.o, *b = (SliceObj *)argv[1].as.o;
    Value x[3] = {a->start, a->stop, a->step}, y[3] = {b->start, b->stop, b->step};
    return seq_richcompare(vm, x, 3, y, 3, CMP_EQ);
}

static Value sl_get_start(VM *vm, Value s, void *c) { return ((SliceObj *)s.as.o)->start; }
static Value sl_get_stop(VM *vm, Value s, void *c) { return ((SliceObj *)s.as.o)->stop; }
static Value sl_get_step(VM *vm, Value s, void *c) { return ((SliceObj *)s.as.o)->step; }

static Value tuple_alloc_empty(VM *vm, TypeObj *t) {
    TupleObj *r = tuple_alloc(vm, t, 0);
    return r ? val_obj(r) : val_null();
}

void seq_init_types(VM *vm) {
    vm->t_list->trace = list_trace;
    vm->t_list->finalize = list_finalize;
    vm->t_list->alloc = list_alloc_type;
    vm->t_tuple->alloc = tuple_alloc_empty;
    vm->t_slice->trace = slice_trace;
    vm->t_range->trace = range_trace;
#define CMPS(fnc)                                                                          \
    {"__lt__", fnc, NATIVEF_METHOD, (void *)CMP_LT}, {"__le__", fnc, NATIVEF_METHOD, (void *)CMP_LE}, \
        {"__eq__", fnc, NATIVEF_METHOD, (void *)CMP_EQ}, {"__ne__", fnc, NATIVEF_METHOD, (void *)CMP_NE}, \
        {"__gt__", fnc, NATIVEF_METHOD, (void *)CMP_GT}, {"__ge__", fnc, NATIVEF_METHOD, (void *)CMP_GE}
    static const MethodDef lm[] = {
        {"__new__", l_new, NATIVEF_STATIC}, {"__init__", l_init, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"__getitem__", l_getitem, NATIVEF_METHOD}, {"__setitem__", l_setitem, NATIVEF_METHOD},
        {"__delitem__", l_delitem, NATIVEF_METHOD}, {"__len__", l_len, NATIVEF_METHOD},
        {"__contains__", l_contains, NATIVEF_METHOD}, {"__iter__", l_iter, NATIVEF_METHOD},
        {"__reversed__", l_reversed, NATIVEF_METHOD}, {"__repr__", l_repr, NATIVEF_METHOD},
        {"__add__", l_add, NATIVEF_METHOD}, {"__iadd__", l_iadd, NATIVEF_METHOD},
        {"__mul__", l_mul, NATIVEF_METHOD}, {"__rmul__", l_mul, NATIVEF_METHOD},
        {"__imul__", l_imul, NATIVEF_METHOD}, CMPS(l_cmp),
        {"append", l_append, NATIVEF_METHOD | ARITY_O}, {"extend", l_extend, NATIVEF_METHOD | ARITY_O},
        {"insert", l_insert, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"pop", l_pop, NATIVEF_METHOD | ARITY_POS(0, 1)},
        {"remove", l_remove, NATIVEF_METHOD | ARITY_O}, {"index", l_index, NATIVEF_METHOD | ARITY_POS(1, 3)},
        {"count", l_count, NATIVEF_METHOD | ARITY_O}, {"clear", l_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"copy", l_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"reverse", l_reverse, NATIVEF_METHOD | ARITY_NOARGS},
        {"sort", l_sort, NATIVEF_METHOD}, {NULL}};
    static const MethodDef tm[] = {
        {"__new__", t_new, NATIVEF_STATIC | ARITY_POS(0, 1)}, {"__getitem__", t_getitem, NATIVEF_METHOD},
        {"__len__", t_len, NATIVEF_METHOD}, {"__contains__", t_contains, NATIVEF_METHOD},
        {"__iter__", t_iter, NATIVEF_METHOD}, {"__repr__", t_repr, NATIVEF_METHOD},
        {"__hash__", t_hash, NATIVEF_METHOD}, {"__add__", t_add, NATIVEF_METHOD},
        {"__getnewargs__", t_getnewargs, NATIVEF_METHOD}, CMPS(t_cmp),
        {"index", t_index, NATIVEF_METHOD | ARITY_POS(1, 3)}, {"count", t_count, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const MethodDef rm[] = {
        {"__new__", r_new, NATIVEF_STATIC | ARITY_POS(1, 3)}, {"__len__", r_len, NATIVEF_METHOD},
        {"__getitem__", r_getitem, NATIVEF_METHOD}, {"__repr__", r_repr, NATIVEF_METHOD},
        {"__contains__", r_contains, NATIVEF_METHOD}, {"__eq__", r_eq, NATIVEF_METHOD},
        {"__hash__", r_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__bool__", r_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {"__reduce__", r_reduce, NATIVEF_METHOD | ARITY_NOARGS},
        {"index", r_index, NATIVEF_METHOD | ARITY_O}, {"count", r_count, NATIVEF_METHOD | ARITY_O}, {NULL}};
    static const GetSetDef rgs[] = {
        {"start", r_get_start, NULL}, {"stop", r_get_stop, NULL}, {"step", r_get_step, NULL}, {NULL}};
    static const MethodDef slm[] = {
        {"__new__", sl_new, NATIVEF_STATIC | ARITY_POS(1, 3)}, {"__repr__", sl_repr, NATIVEF_METHOD},
        {"indices", sl_indices, NATIVEF_METHOD | ARITY_O}, {"__eq__", sl_eq, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef slgs[] = {
        {"start", sl_get_start, NULL}, {"stop", sl_get_stop, NULL}, {"step", sl_get_step, NULL}, {NULL}};
    if (type_add_methods(vm, vm->t_list, lm) < 0 || dict_set_c(vm, vm->t_list->dict, "__hash__", val_none()) < 0 ||
        type_add_methods(vm, vm->t_tuple, tm) < 0 || type_add_methods(vm, vm->t_range, rm) < 0 ||
        type_add_getsets(vm, vm->t_range, rgs) < 0 || type_add_methods(vm, vm->t_slice, slm) < 0 ||
        type_add_getsets(vm, vm->t_slice, slgs) < 0 || dict_set_c(vm, vm->t_slice->dict, "__hash__", val_none()) < 0)
        EM_UNREACHABLE();
}
