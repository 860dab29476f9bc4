/* vm/seq.c — tuple, list, range and slice: storage, indexing and slicing with Python's rules,
 * comparison, repr, sorting (stable merge sort), iterators, and the methods scripts call. */
#include "vm/seq.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

/* ---- tuple -------------------------------------------------------------------------------- */

void tuple_trace(VM *vm, Obj *o) {
    TupleObj *t = (TupleObj *)o;
    for (int64_t i = 0; i < t->len; i++) gc_mark_value(vm, t->items[i]);
    gc_mark(vm, t->dict);
}

TupleObj *tuple_alloc(VM *vm, TypeObj *type, int64_t n) {
    if (n == 0 && type == vm->t_tuple && vm->empty_tuple) return vm->empty_tuple;
    TupleObj *t = gc_alloc(vm, type, sizeof(TupleObj) + sizeof(Value) * (size_t)n);
    if (!t) return NULL;
    t->len = n;
    t->hash = -1;
    for (int64_t i = 0; i < n; i++) t->items[i] = val_none();
    return t;
}

TupleObj *tuple_new(VM *vm, int64_t n) { return tuple_alloc(vm, vm->t_tuple, n); }

TupleObj *tuple_from_array(VM *vm, const Value *items, int64_t n) {
    TupleObj *t = tuple_new(vm, n);
    if (t && n) memcpy(t->items, items, sizeof(Value) * (size_t)n);
    return t;
}

TupleObj *tuple_pack(VM *vm, int n, ...) {
    Value tmp[8];
    EM_ASSERT(n <= 8, "tuple_pack: too many items");
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) tmp[i] = va_arg(ap, Value);
    va_end(ap);
    /* the values are rooted by the caller */
    return tuple_from_array(vm, tmp, n);
}

/* ---- list --------------------------------------------------------------------------------- */

void list_trace(VM *vm, Obj *o) {
    ListObj *l = (ListObj *)o;
    for (int64_t i = 0; i < l->len; i++) gc_mark_value(vm, l->items[i]);
    gc_mark(vm, l->dict);
}

void list_finalize(VM *vm, Obj *o) {
    ListObj *l = (ListObj *)o;
    VM_FREE_ARRAY(vm, Value, l->items, l->cap);
    l->items = NULL;
}

Value list_alloc_type(VM *vm, TypeObj *t) {
    ListObj *l = gc_alloc(vm, t, t->instance_size);
    return l ? val_obj(l) : val_null();
}

int list_reserve(VM *vm, ListObj *l, int64_t cap) {
    if (cap <= l->cap) return 0;
    int64_t ncap = l->cap < 4 ? 4 : l->cap;
    while (ncap < cap) ncap += ncap >> 1;
    vm_push_root(vm, val_obj(l));
    Value *items = vm_realloc(vm, l->items, sizeof(Value) * (size_t)l->cap, sizeof(Value) * (size_t)ncap);
    vm_pop_root(vm);
    if (!items) return -1;
    l->items = items;
    l->cap = ncap;
    return 0;
}

ListObj *list_new(VM *vm, int64_t cap) {
    ListObj *l = gc_alloc(vm, vm->t_list, sizeof(ListObj));
    if (!l) return NULL;
    if (cap > 0 && list_reserve(vm, l, cap) < 0) return NULL;
    return l;
}

ListObj *list_from_array(VM *vm, const Value *items, int64_t n) {
    ListObj *l = list_new(vm, n);
    if (!l) return NULL;
    if (n) memcpy(l->items, items, sizeof(Value) * (size_t)n);
    l->len = n;
    return l;
}

int list_append(VM *vm, ListObj *l, Value v) {
    if (l->len == l->cap) {
        vm_push_root(vm, v);
        int rc = list_reserve(vm, l, l->len + 1);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    l->items[l->len++] = v;
    return 0;
}

int list_insert(VM *vm, ListObj *l, int64_t i, Value v) {
    if (i < 0) i += l->len;
    if (i < 0) i = 0;
    if (i > l->len) i = l->len;
    if (l->len == l->cap) {
        vm_push_root(vm, v);
        int rc = list_reserve(vm, l, l->len + 1);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    memmove(l->items + i + 1, l->items + i, sizeof(Value) * (size_t)(l->len - i));
    l->items[i] = v;
    l->len++;
    return 0;
}

int list_extend(VM *vm, ListObj *l, Value iterable) {
    if (val_is_obj(iterable) && (iterable.as.o->type == vm->t_list || iterable.as.o->type == vm->t_tuple)) {
        int64_t n;
        Value *src;
        if (iterable.as.o->type == vm->t_list) {
            n = AS_LIST(iterable)->len;
        } else {
            n = AS_TUPLE(iterable)->len;
        }
        vm_push_root(vm, iterable);
        int rc = list_reserve(vm, l, l->len + n);
        vm_pop_root(vm);
        if (rc < 0) return -1;
        src = iterable.as.o->type == vm->t_list ? AS_LIST(iterable)->items : AS_TUPLE(iterable)->items;
        if (n) memmove(l->items + l->len, src, sizeof(Value) * (size_t)n);
        l->len += n;
        return 0;
    }
    Value it = vm_iter(vm, iterable);
    if (val_is_null(it)) return -1;
    vm_push_root(vm, it);
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) break;
        if (list_append(vm, l, x) < 0) break;
    }
    vm_pop_root(vm);
    return vm->exc.tag == VAL_NULL ? 0 : -1;
}

/* ---- indices and slices --------------------------------------------------------------------- */

int seq_index(VM *vm, Value key, int64_t n, const char *what, int64_t *out) {
    int64_t i;
    if (val_is_intlike(key)) i = val_as_intlike(key);
    else if (vm_index(vm, key, &i) < 0) {
        /* an index beyond int64 is an IndexError here (CPython's PyNumber_AsSsize_t(key,
         * PyExc_IndexError)) */
        if (vm_exc_matches(vm, vm->e_OverflowError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_IndexError, "cannot fit '%s' into an index-sized integer", vm_type_name(vm, key));
        }
        return -1;
    }
    if (i < 0) i += n;
    if (i < 0 || i >= n) {
        if (what) vm_raise(vm, vm->e_IndexError, "%s index out of range", what);
        else vm_raise(vm, vm->e_IndexError, "index out of range");
        return -1;
    }
    *out = i;
    return 0;
}

/* A slice bound: None (1), or an index with big values clamped to the int64 range, as CPython's
 * _PyEval_SliceIndex clamps them (0). */
static int slice_part(VM *vm, Value v, int64_t *out) {
    if (val_is_none(v)) return 1;
    if (val_is_intlike(v)) {
        *out = val_as_intlike(v);
        return 0;
    }
    Value iv = v;
    if (!val_is_intobj(v)) {
        if (val_is_null(type_special(vm, vm_type_of(vm, v), SP_INDEX))) {
            vm_raise(vm, vm->e_TypeError, "slice indices must be integers or None or have an __index__ method");
            return -1;
        }
        iv = vm_call_special(vm, v, SP_INDEX, 0, NULL);
        if (val_is_null(iv)) return -1;
        if (val_is_intlike(iv)) {
            *out = val_as_intlike(iv);
            return 0;
        }
        if (!val_is_intobj(iv)) {
            vm_raise(vm, vm->e_TypeError, "__index__ returned non-int (type %s)", vm_type_name(vm, iv));
            return -1;
        }
    }
    mpz_srcptr z = AS_INTOBJ(iv)->z;
    *out = mpz_fits_slong_p(z) ? mpz_get_si(z) : mpz_sgn(z) < 0 ? INT64_MIN : INT64_MAX;
    return 0;
}

int slice_indices(VM *vm, SliceObj *s, int64_t n, int64_t *pstart, int64_t *pstop,
                  int64_t *pstep, int64_t *count) {
    int64_t step = 1, start, stop;
    int r = slice_part(vm, s->step, &step);
    if (r < 0) return -1;
    if (step == 0) {
        vm_raise(vm, vm->e_ValueError, "slice step cannot be zero");
        return -1;
    }
    r = slice_part(vm, s->start, &start);
    if (r < 0) return -1;
    if (r == 1) start = step < 0 ? n - 1 : 0;
    else {
        if (start < 0) start += n;
        if (start < 0) start = step < 0 ? -1 : 0;
        else if (start >= n) start = step < 0 ? n - 1 : n;
    }
    r = slice_part(vm, s->stop, &stop);
    if (r < 0) return -1;
    if (r == 1) stop = step < 0 ? -1 : n;
    else {
        if (stop < 0) stop += n;
        if (stop < 0) stop = step < 0 ? -1 : 0;
        else if (stop >= n) stop = step < 0 ? n - 1 : n;
    }
    int64_t c = 0;
    if (step > 0 && stop > start) c = (stop - start - 1) / step + 1;
    else if (step < 0 && start > stop) c = (start - stop - 1) / (-step) + 1;
    *pstart = start;
    *pstop = stop;
    *pstep = step;
    *count = c;
    return 0;
}

Value slice_new(VM *vm, Value start, Value stop, Value step) {
    SliceObj *s = gc_alloc(vm, vm->t_slice, sizeof(SliceObj));
    if (!s) return val_null();
    s->start = start;
    s->stop = stop;
    s->step = step;
    return val_obj(s);
}

Value range_new(VM *vm, int64_t start, int64_t stop, int64_t step) {
    RangeObj *r = gc_alloc(vm, vm->t_range, sizeof(RangeObj));
    if (!r) return val_null();
    r->start = start;
    r->stop = stop;
    r->step = step;
    int64_t n = 0;
    if (step > 0 && stop > start) n = (stop - start - 1) / step + 1;
    else if (step < 0 && start > stop) n = (start - stop - 1) / (-step) + 1;
    r->len = n;
    return val_obj(r);
}

/* ---- comparison and repr ------------------------------------------------------------------- */

Value seq_richcompare(VM *vm, Value *a, int64_t na, Value *b, int64_t nb, int op) {
    int64_t i = 0;
    for (; i < na && i < nb; i++) {
        int eq = vm_eq(vm, a[i], b[i]);
        if (eq < 0) return val_null();
        if (!eq) break;
    }
    if (i >= na || i >= nb) {
        int64_t x = na, y = nb;
        bool r;
        switch (op) {
        case CMP_LT: r = x < y; break;
        case CMP_LE: r = x <= y; break;
        case CMP_EQ: r = x == y; break;
        case CMP_NE: r = x != y; break;
        case CMP_GT: r = x > y; break;
        default: r = x >= y; break;
        }
        return val_bool(r);
    }
    if (op == CMP_EQ) return val_bool(false);
    if (op == CMP_NE) return val_bool(true);
    return vm_compare(vm, (CompareOp)op, a[i], b[i]);
}

typedef struct ReprStack {
    Obj **v;
    int n, cap;
} ReprStack;
static ReprStack repr_stack;

int repr_enter(VM *vm, Obj *o) {
    for (int i = 0; i < repr_stack.n; i++)
        if (repr_stack.v[i] == o) return 1;
    if (vm_check_recursion(vm, " while getting the repr of an object") < 0) return -1;
    if (repr_stack.n == repr_stack.cap) {
        repr_stack.cap = repr_stack.cap ? repr_stack.cap * 2 : 16;
        repr_stack.v = realloc(repr_stack.v, sizeof(Obj *) * (size_t)repr_stack.cap);
    }
    repr_stack.v[repr_stack.n++] = o;
    return 0;
}

void repr_leave(VM *vm, Obj *o) {
    vm_leave_recursion(vm);
    if (repr_stack.n && repr_stack.v[repr_stack.n - 1] == o) repr_stack.n--;
}

Value seq_repr(VM *vm, Value self, Value *items, int64_t n, const char *open, const char *close) {
    int e = repr_enter(vm, self.as.o);
    if (e < 0) return val_null();
    if (e == 1) {
        StrObj *s = str_printf(vm, "%s...%s", open, close);
        return s ? val_obj(s) : val_null();
    }
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, open);
    bool ok = true;
    for (int64_t i = 0; i < n; i++) {
        /* items may be reallocated by a __repr__ that mutates the container; re-read via self */
        Value item = items[i];
        if (self.as.o->type->layout == OBJ_LAYOUT_LIST) {
            ListObj *l = AS_LIST(self);
            if (i >= l->len) break;
            item = l->items[i];
        }
        Value r = vm_repr(vm, item);
        if (val_is_null(r)) { ok = false; break; }
        if (i) sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(r));
    }
    repr_leave(vm, self.as.o);
    if (!ok) {
        sb_free(&b);
        return val_null();
    }
    if (n == 1 && strcmp(open, "(") == 0) sb_addc(&b, ',');
    sb_adds(&b, close);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

/* ---- sorting ------------------------------------------------------------------------------- */

typedef struct SortCtx {
    VM *vm;
    bool failed;
} SortCtx;

/* a < b on keys; reverse handled by the caller swapping comparisons. */
static int key_lt(SortCtx *c, Value a, Value b) {
    if (c->failed) return 0;
    if (a.tag == VAL_INT && b.tag == VAL_INT) return a.as.i < b.as.i;
    if (a.tag == VAL_FLOAT && b.tag == VAL_FLOAT) return a.as.f < b.as.f;
    int r = vm_lt(c->vm, a, b);
    if (r < 0) {
        c->failed = true;
        return 0;
    }
    return r;
}

static void merge_sort(SortCtx *c, Value *keys, Value *vals, Value *tk, Value *tv, int64_t n, bool rev) {
    if (n < 2 || c->failed) return;
    if (n <= 8) {
        for (int64_t i = 1; i < n; i++) {
            Value k = keys[i], v = vals[i];
            int64_t j = i;
            while (j > 0 && (rev ? key_lt(c, keys[j - 1], k) : key_lt(c, k, keys[j - 1]))) {
                keys[j] = keys[j - 1];
                vals[j] = vals[j - 1];
                j--;
            }
            keys[j] = k;
            vals[j] = v;
        }
        return;
    }
    int64_t mid = n / 2;
    merge_sort(c, keys, vals, tk, tv, mid, rev);
    merge_sort(c, keys + mid, vals + mid, tk, tv, n - mid, rev);
    memcpy(tk, keys, sizeof(Value) * (size_t)mid);
    memcpy(tv, vals, sizeof(Value) * (size_t)mid);
    int64_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        /* stable: take from the right only when strictly before the left */
        bool take_right = rev ? key_lt(c, tk[i], keys[j]) : key_lt(c, keys[j], tk[i]);
        if (take_right) {
            keys[k] = keys[j];
            vals[k++] = vals[j++];
        } else {
            keys[k] = tk[i];
            vals[k++] = tv[i++];
        }
    }
    while (i < mid) {
        keys[k] = tk[i];
        vals[k++] = tv[i++];
    }
}

int list_sort(VM *vm, ListObj *l, Value key, bool reverse) {
    int64_t n = l->len;
    if (n < 2) return 0;
    /* Work on private copies held in GC-visible lists (the merge buffers too: mid-merge a
     * value may live only there while a script __lt__ runs). */
    ListObj *keys = list_from_array(vm, l->items, n);
    if (!keys) return -1;
    vm_push_root(vm, val_obj(keys));
    ListObj *vals = list_from_array(vm, l->items, n);
    if (!vals) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(vals));
    ListObj *tmp = list_new(vm, n);
    if (!tmp) {
        vm_pop_roots(vm, 2);
        return -1;
    }
    vm_push_root(vm, val_obj(tmp));
    ListObj *tmp2 = list_new(vm, n);
    if (!tmp2) {
        vm_pop_roots(vm, 3);
        return -1;
    }
    vm_push_root(vm, val_obj(tmp2));
    for (int64_t i = 0; i < n; i++) tmp->items[i] = tmp2->items[i] = val_none();
    tmp->len = tmp2->len = n;
    int rc = 0;
    if (!val_is_null(key) && !val_is_none(key)) {
        for (int64_t i = 0; i < n; i++) {
            Value k = vm_call1(vm, key, vals->items[i]);
            if (val_is_null(k)) {
                rc = -1;
                break;
            }
            keys->items[i] = k;
        }
    }
    if (rc == 0) {
        SortCtx c = {vm, false};
        merge_sort(&c, keys->items, vals->items, tmp->items, tmp2->items, n, reverse);
        if (c.failed) rc = -1;
    }
    if (rc == 0) {
        if (l->len != n) {
            vm_raise(vm, vm->e_ValueError, "list modified during sort");
            rc = -1;
        } else {
            memcpy(l->items, vals->items, sizeof(Value) * (size_t)n);
        }
    }
    vm_pop_roots(vm, 4);
    return rc;
}
