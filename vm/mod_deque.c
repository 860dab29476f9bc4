/* vm/mod_deque.c — collections.deque for the `_collections` module (CPython 3.11's
 * Modules/_collectionsmodule.c): a ring buffer of Values with an optional maxlen (appends
 * past it drop from the other end), O(1) appends/pops at both ends, rotate, indexing,
 * insert/remove/index/count, rich comparison, +, *, in-place forms, repr with recursion
 * guard, and forward/reverse iterators that raise when the deque mutates under them.
 * Also _count_elements (Counter's fast loop) and _tuplegetter (namedtuple's field
 * descriptor).  vm/dict_methods.c's collections_module_init adds them to `_collections`. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct DequeObj {
    Obj hdr;
    Value *buf;
    int64_t cap, head, len;
    int64_t maxlen;       /* -1: unbounded */
    uint64_t state;       /* bumped by every change of length or order */
    DictObj *dict;
} DequeObj;

static void deque_trace(VM *vm, Obj *o) {
    DequeObj *d = (DequeObj *)o;
    for (int64_t i = 0; i < d->len; i++) gc_mark_value(vm, d->buf[(d->head + i) % d->cap]);
    gc_mark(vm, d->dict);
}

static void deque_finalize(VM *vm, Obj *o) {
    DequeObj *d = (DequeObj *)o;
    if (d->buf) VM_FREE_ARRAY(vm, Value, d->buf, d->cap);
    d->buf = NULL;
    d->cap = d->len = 0;
}

static inline Value *slot(DequeObj *d, int64_t i) { return &d->buf[(d->head + i) % d->cap]; }

static int grow(VM *vm, DequeObj *d) {
    int64_t ncap = d->cap ? d->cap * 2 : 8;
    Value *nb = VM_ALLOC_ARRAY(vm, Value, ncap);
    if (!nb) return -1;
    for (int64_t i = 0; i < d->len; i++) nb[i] = *slot(d, i);
    if (d->buf) VM_FREE_ARRAY(vm, Value, d->buf, d->cap);
    d->buf = nb;
    d->cap = ncap;
    d->head = 0;
    return 0;
}

static int push_right(VM *vm, DequeObj *d, Value v) {
    if (d->maxlen == 0) return 0;
    if (d->len == d->cap) {
        vm_push_root(vm, v);
        int rc = grow(vm, d);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    *slot(d, d->len) = v;
    d->len++;
    if (d->maxlen >= 0 && d->len > d->maxlen) {
        d->head = (d->head + 1) % d->cap;
        d->len--;
    }
    d->state++;
    return 0;
}

static int push_left(VM *vm, DequeObj *d, Value v) {
    if (d->maxlen == 0) return 0;
    if (d->len == d->cap) {
        vm_push_root(vm, v);
        int rc = grow(vm, d);
        vm_pop_root(vm);
        if (rc < 0) return -1;
    }
    d->head = (d->head + d->cap - 1) % d->cap;
    d->buf[d->head] = v;
    d->len++;
    if (d->maxlen >= 0 && d->len > d->maxlen) d->len--;
    d->state++;
    return 0;
}

static DequeObj *D(Value v) { return (DequeObj *)v.as.o; }

static DequeObj *deque_alloc(VM *vm, TypeObj *t, int64_t maxlen) {
    DequeObj *d = gc_alloc(vm, t, t->instance_size);
    if (!d) return NULL;
    d->maxlen = maxlen;
    return d;
}

static int deque_extend_from(VM *vm, DequeObj *d, Value iterable, bool left) {
    /* extending a deque by itself iterates over a snapshot */
    if (iterable.tag == VAL_OBJ && iterable.as.o == &d->hdr) {
        ListObj *l = vm_list_from_iterable(vm, iterable);
        if (!l) return -1;
        iterable = val_obj(l);
    }
    vm_push_root(vm, iterable);
    Value it = vm_iter(vm, iterable);
    if (val_is_null(it)) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, it);
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) break;
        if ((left ? push_left : push_right)(vm, d, x) < 0) break;
    }
    vm_pop_roots(vm, 2);
    return val_is_null(vm->exc) ? 0 : -1;
}

static int maxlen_arg(VM *vm, Value v, int64_t *out) {
    *out = -1;
    if (val_is_null(v) || val_is_none(v)) return 0;
    if (vm_index(vm, v, out) < 0) return -1;
    if (*out < 0) {
        vm_raise(vm, vm->e_ValueError, "maxlen must be non-negative");
        return -1;
    }
    return 0;
}

static Value dq_new(ARGS) { return (void)argc, val_obj(deque_alloc(vm, AS_TYPE(argv[0]), -1)); }

static Value dq_init(ARGS) {
    static const char *const names[] = {"self", "iterable", "maxlen"};
    Value a[3];
    if (native_parse_args(vm, "deque", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    DequeObj *d = D(argv[0]);
    int64_t maxlen;
    if (maxlen_arg(vm, a[2], &maxlen) < 0) return val_null();
    d->maxlen = maxlen;
    if (d->len) {
        d->len = d->head = 0;
        d->state++;
    }
    if (!val_is_null(a[1]) && deque_extend_from(vm, d, a[1], false) < 0) return val_null();
    return val_none();
}

static Value dq_append(ARGS) { return push_right(vm, D(argv[0]), argv[1]) < 0 ? val_null() : val_none(); }
static Value dq_appendleft(ARGS) { return push_left(vm, D(argv[0]), argv[1]) < 0 ? val_null() : val_none(); }

static Value dq_pop(ARGS) {
    DequeObj *d = D(argv[0]);
    if (!d->len) return vm_raise(vm, vm->e_IndexError, "pop from an empty deque");
    Value v = *slot(d, d->len - 1);
    d->len--;
    d->state++;
    return v;
}

static Value dq_popleft(ARGS) {
    DequeObj *d = D(argv[0]);
    if (!d->len) return vm_raise(vm, vm->e_IndexError, "pop from an empty deque");
    Value v = d->buf[d->head];
    d->head = (d->head + 1) % d->cap;
    d->len--;
    d->state++;
    return v;
}

static Value dq_extend(ARGS) { return deque_extend_from(vm, D(argv[0]), argv[1], false) < 0 ? val_null() : val_none(); }
static Value dq_extendleft(ARGS) { return deque_extend_from(vm, D(argv[0]), argv[1], true) < 0 ? val_null() : val_none(); }

static void rotate(DequeObj *d, int64_t n) {
    int64_t len = d->len;
    if (len <= 1) return;
    n %= len;
    if (n < 0) n += len;
    if (n == 0) return;
    /* rotating right by n: the last n items move to the front */
    if (d->len == d->cap) {
        d->head = (d->head + d->cap - n) % d->cap;
    } else {
        for (int64_t k = 0; k < n; k++) {
            Value v = *slot(d, d->len - 1);
            d->head = (d->head + d->cap - 1) % d->cap;
            d->buf[d->head] = v;
        }
    }
    d->state++;
}

static Value dq_rotate(ARGS) {
    int64_t n = 1;
    if (argc == 2 && vm_index(vm, argv[1], &n) < 0) return val_null();
    rotate(D(argv[0]), n);
    return val_none();
}

static Value dq_clear(ARGS) {
    DequeObj *d = D(argv[0]);
    d->len = d->head = 0;
    d->state++;
    return val_none();
}

static Value deque_copy_of(VM *vm, Value self) {
    DequeObj *d = D(self);
    TypeObj *t = d->hdr.type;
    if (!(t->flags & TYPEF_HEAPTYPE)) {
        DequeObj *c = deque_alloc(vm, t, d->maxlen);
        if (!c) return val_null();
        vm_push_root(vm, val_obj(c));
        for (int64_t i = 0; i < d->len; i++)
            if (push_right(vm, c, *slot(d, i)) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        vm_pop_root(vm);
        return val_obj(c);
    }
    if (d->maxlen < 0) return vm_call1(vm, val_obj(t), self);
    return vm_call2(vm, val_obj(t), self, val_int(d->maxlen));
}

static Value dq_copy(ARGS) { return deque_copy_of(vm, argv[0]); }

/* Compare item i with v, checking the deque did not change under the comparison. */
static int item_eq(VM *vm, DequeObj *d, int64_t i, Value v, uint64_t state, const char *what) {
    Value item = *slot(d, i);
    int eq = val_identical(item, v) ? 1 : vm_eq(vm, item, v);
    if (eq < 0) return -1;
    if (d->state != state) {
        vm_raise(vm, vm->e_RuntimeError, "deque mutated during %s.", what);
        return -1;
    }
    return eq;
}

static Value dq_count(ARGS) {
    DequeObj *d = D(argv[0]);
    uint64_t state = d->state;
    int64_t n = 0;
    for (int64_t i = 0; i < d->len; i++) {
        int eq = val_identical(*slot(d, i), argv[1]) ? 1 : vm_eq(vm, *slot(d, i), argv[1]);
        if (eq < 0) return val_null();
        if (d->state != state) return vm_raise(vm, vm->e_RuntimeError, "deque mutated during iteration");
        n += eq;
    }
    return val_int(n);
}

static Value dq_index(ARGS) {
    if (native_check_args(vm, "index", argc, kw, 2, 4) < 0) return val_null();
    DequeObj *d = D(argv[0]);
    int64_t start = 0, stop = d->len;
    if (argc > 2 && vm_index(vm, argv[2], &start) < 0) return val_null();
    if (argc > 3 && vm_index(vm, argv[3], &stop) < 0) return val_null();
    if (start < 0 && (start += d->len) < 0) start = 0;
    if (stop < 0 && (stop += d->len) < 0) stop = 0;
    if (stop > d->len) stop = d->len;
    uint64_t state = d->state;
    for (int64_t i = start; i < stop; i++) {
        Value item = *slot(d, i);
        int eq = val_identical(item, argv[1]) ? 1 : vm_eq(vm, item, argv[1]);
        if (eq < 0) return val_null();
        if (d->state != state) return vm_raise(vm, vm->e_RuntimeError, "deque mutated during iteration");
        if (eq) return val_int(i);
    }
    Value r = vm_repr(vm, argv[1]);
    if (val_is_null(r)) return r;
    return vm_raise(vm, vm->e_ValueError, "%s is not in deque", AS_STR(r)->data);
}

static int del_at(VM *vm, DequeObj *d, int64_t i) {
    for (int64_t k = i; k < d->len - 1; k++) *slot(d, k) = *slot(d, k + 1);
    d->len--;
    d->state++;
    return 0;
}

static Value dq_insert(ARGS) {
    DequeObj *d = D(argv[0]);
    int64_t i;
    if (vm_index(vm, argv[1], &i) < 0) return val_null();
    if (d->maxlen >= 0 && d->len >= d->maxlen) return vm_raise(vm, vm->e_IndexError, "deque already at its maximum size");
    if (i < 0 && (i += d->len) < 0) i = 0;
    if (i > d->len) i = d->len;
    if (push_right(vm, d, argv[2]) < 0) return val_null();
    for (int64_t k = d->len - 1; k > i; k--) *slot(d, k) = *slot(d, k - 1);
    *slot(d, i) = argv[2];
    return val_none();
}

static Value dq_remove(ARGS) {
    DequeObj *d = D(argv[0]);
    uint64_t state = d->state;
    for (int64_t i = 0; i < d->len; i++) {
        int eq = item_eq(vm, d, i, argv[1], state, "remove()");
        if (eq < 0) return val_null();
        if (eq) {
            del_at(vm, d, i);
            return val_none();
        }
    }
    Value r = vm_repr(vm, argv[1]);
    if (val_is_null(r)) return r;
    return vm_raise(vm, vm->e_ValueError, "%s is not in deque", AS_STR(r)->data);
}

static Value dq_reverse(ARGS) {
    DequeObj *d = D(argv[0]);
    for (int64_t i = 0, j = d->len - 1; i < j; i++, j--) {
        Value t = *slot(d, i);
        *slot(d, i) = *slot(d, j);
        *slot(d, j) = t;
    }
    d->state++;
    return val_none();
}

static Value dq_len(ARGS) { return val_int(D(argv[0])->len); }

static Value dq_contains(ARGS) {
    DequeObj *d = D(argv[0]);
    uint64_t state = d->state;
    for (int64_t i = 0; i < d->len; i++) {
        Value item = *slot(d, i);
        int eq = val_identical(item, argv[1]) ? 1 : vm_eq(vm, item, argv[1]);
        if (eq < 0) return val_null();
        if (d->state != state) return vm_raise(vm, vm->e_RuntimeError, "deque mutated during iteration");
        if (eq) return val_bool(true);
    }
    return val_bool(false);
}

static int index_arg(VM *vm, DequeObj *d, Value key, int64_t *out) {
    if (!val_is_intlike(key) && (key.tag != VAL_OBJ || val_is_null(type_special(vm, vm_type_of(vm, key), SP_INDEX)))) {
        vm_raise(vm, vm->e_TypeError, "sequence index must be integer, not '%s'", vm_type_name(vm, key));
        return -1;
    }
    int64_t i;
    if (vm_index(vm, key, &i) < 0) return -1;
    if (i < 0) i += d->len;
    if (i < 0 || i >= d->len) {
        vm_raise(vm, vm->e_IndexError, "deque index out of range");
        return -1;
    }
    *out = i;
    return 0;
}

static Value dq_getitem(ARGS) {
    DequeObj *d = D(argv[0]);
    int64_t i;
    if (index_arg(vm, d, argv[1], &i) < 0) return val_null();
    return *slot(d, i);
}

static Value dq_setitem(ARGS) {
    DequeObj *d = D(argv[0]);
    int64_t i;
    if (index_arg(vm, d, argv[1], &i) < 0) return val_null();
    *slot(d, i) = argv[2];
    return val_none();
}

static Value dq_delitem(ARGS) {
    DequeObj *d = D(argv[0]);
    int64_t i;
    if (index_arg(vm, d, argv[1], &i) < 0) return val_null();
    del_at(vm, d, i);
    return val_none();
}

/* iterators: a = the deque, i = position, n = items left, version = the state at creation */
static Value dq_iter_next(VM *vm, IterObj *it) {
    DequeObj *d = D(it->a);
    if (d->state != it->version) {
        it->n = 0;
        return vm_raise(vm, vm->e_RuntimeError, "deque mutated during iteration");
    }
    if (it->n <= 0) return val_null();
    it->n--;
    return *slot(d, it->i++);
}

static Value dq_riter_next(VM *vm, IterObj *it) {
    DequeObj *d = D(it->a);
    if (d->state != it->version) {
        it->n = 0;
        return vm_raise(vm, vm->e_RuntimeError, "deque mutated during iteration");
    }
    if (it->n <= 0) return val_null();
    it->n--;
    return *slot(d, it->i--);
}

static void dqiter_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((IterObj *)o)->a); }

static Value make_iter(VM *vm, Value self, bool reverse) {
    DequeObj *d = D(self);
    TypeObj *t = d->hdr.type;
    while (!t->native_data) t = t->base;
    TypeObj *ti = t->native_data;   /* deque -> forward iterator type -> reverse iterator type */
    IterObj *it = gc_alloc(vm, reverse ? (TypeObj *)ti->native_data : ti, sizeof(IterObj));
    if (!it) return val_null();
    d = D(self);
    it->next = reverse ? dq_riter_next : dq_iter_next;
    it->a = self;
    it->b = it->c = val_null();
    it->i = reverse ? d->len - 1 : 0;
    it->n = d->len;
    it->version = d->state;
    return val_obj(it);
}

static Value dq_iter(ARGS) { return make_iter(vm, argv[0], false); }
static Value dq_reversed(ARGS) { return make_iter(vm, argv[0], true); }

static Value dq_repr(ARGS) {
    DequeObj *d = D(argv[0]);
    int rec = repr_enter(vm, &d->hdr);
    if (rec < 0) return val_null();
    if (rec) return vm_intern(vm, "[...]");
    ListObj *l = list_new(vm, d->len);
    if (!l) goto fail;
    for (int64_t i = 0; i < d->len; i++) l->items[i] = *slot(d, i);
    l->len = d->len;
    vm_push_root(vm, val_obj(l));
    Value r = vm_repr(vm, val_obj(l));
    vm_pop_root(vm);
    if (val_is_null(r)) goto fail;
    repr_leave(vm, &d->hdr);
    const char *name = d->hdr.type->name->data;
    StrObj *s = d->maxlen < 0 ? str_printf(vm, "%s(%s)", name, AS_STR(r)->data)
                              : str_printf(vm, "%s(%s, maxlen=%lld)", name, AS_STR(r)->data, (long long)d->maxlen);
    return s ? val_obj(s) : val_null();
fail:
    repr_leave(vm, &d->hdr);
    return val_null();
}

static bool is_deque(VM *vm, Value v, TypeObj *base) {
    return v.tag == VAL_OBJ && vm_isinstance_type(vm, v, base);
}

/* fn->data: CompareOp */
static Value dq_compare(ARGS) {
    TypeObj *base = fn->owner;
    if (!is_deque(vm, argv[1], base)) return vm->not_implemented;
    DequeObj *a = D(argv[0]), *b = D(argv[1]);
    ListObj *la = list_new(vm, a->len);
    if (!la) return val_null();
    for (int64_t i = 0; i < a->len; i++) la->items[i] = *slot(a, i);
    la->len = a->len;
    vm_push_root(vm, val_obj(la));
    ListObj *lb = list_new(vm, b->len);
    if (!lb) {
        vm_pop_root(vm);
        return val_null();
    }
    for (int64_t i = 0; i < b->len; i++) lb->items[i] = *slot(b, i);
    lb->len = b->len;
    vm_push_root(vm, val_obj(lb));
    Value r = seq_richcompare(vm, la->items, la->len, lb->items, lb->len, (int)(intptr_t)fn->data);
    vm_pop_roots(vm, 2);
    return r;
}

static Value dq_iadd(ARGS) {
    if (deque_extend_from(vm, D(argv[0]), argv[1], false) < 0) return val_null();
    return argv[0];
}

static Value dq_add(ARGS) {
    if (!is_deque(vm, argv[1], fn->owner))
        return vm_raise(vm, vm->e_TypeError, "can only concatenate deque (not \"%s\") to deque", vm_type_name(vm, argv[1]));
    Value c = deque_copy_of(vm, argv[0]);
    if (val_is_null(c)) return c;
    vm_push_root(vm, c);
    int rc = deque_extend_from(vm, D(c), argv[1], false);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : c;
}

static Value dq_imul(ARGS) {
    int64_t n;
    if (vm_index(vm, argv[1], &n) < 0) return val_null();
    DequeObj *d = D(argv[0]);
    /* repeat the current items in order; with a maxlen the left end is dropped as appends go */
    if (n <= 0 || d->len == 0) {
        d->len = d->head = 0;
        d->state++;
        return argv[0];
    }
    int64_t size = d->len;
    /* beyond maxlen only the last window matters: CPython's reduced repeat count */
    if (d->maxlen >= 0 && n > (d->maxlen + size - 1) / size + 1) n = (d->maxlen + size - 1) / size + 1;
    ListObj *items = list_new(vm, size);
    if (!items) return val_null();
    for (int64_t i = 0; i < size; i++) items->items[i] = *slot(d, i);
    items->len = size;
    vm_push_root(vm, val_obj(items));
    for (int64_t r = 1; r < n; r++)
        for (int64_t i = 0; i < size; i++)
            if (push_right(vm, d, items->items[i]) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
    vm_pop_root(vm);
    return argv[0];
}

static Value dq_mul(ARGS) {
    int64_t n;
    if (!val_is_intlike(argv[1]) && (argv[1].tag != VAL_OBJ || val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX))))
        return vm->not_implemented;
    if (vm_index(vm, argv[1], &n) < 0) return val_null();
    Value c = deque_copy_of(vm, argv[0]);
    if (val_is_null(c)) return c;
    vm_push_root(vm, c);
    Value args[2] = {c, val_int(n)};
    Value r = dq_imul(vm, 2, args, NULL, fn);
    vm_pop_root(vm);
    return r;
}

static Value dq_get_maxlen(VM *vm, Value s, void *c) {
    DequeObj *d = D(s);
    return d->maxlen < 0 ? val_none() : val_int(d->maxlen);
}

static Value dq_class_getitem(ARGS) { return argv[0]; }

/* _count_elements(mapping, iterable): mapping[x] = mapping.get(x, 0) + 1 for each x */
static Value count_elements(ARGS) {
    if (native_check_args(vm, "_count_elements", argc, kw, 2, 2) < 0) return val_null();
    Value map = argv[0];
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    bool fast = val_is_type(vm, map, vm->t_dict);
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) break;
        vm_push_root(vm, x);
        Value cur;
        int found;
        if (fast) {
            found = dict_lookup(vm, AS_DICT(map), x, &cur);
        } else {
            Value args[2] = {x, val_int(0)};
            cur = vm_call_method(vm, map, "get", 2, args);
            found = val_is_null(cur) ? -1 : 1;
        }
        Value nv = val_null();
        if (found >= 0) nv = found ? vm_binary_op(vm, 0 /* BINOP_ADD */, cur, val_int(1)) : val_int(1);
        int rc = val_is_null(nv) ? -1 : fast ? dict_set(vm, AS_DICT(map), x, nv) : vm_setitem(vm, map, x, nv);
        vm_pop_root(vm);
        if (rc < 0) break;
    }
    vm_pop_root(vm);
    return val_is_null(vm->exc) ? val_none() : val_null();
}

/* _tuplegetter(index, doc): namedtuple's read-only field descriptors */
typedef struct TupleGetterObj {
    Obj hdr;
    int64_t index;
    Value doc;
} TupleGetterObj;

static void tg_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((TupleGetterObj *)o)->doc); }

static Value tg_new(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "_tuplegetter() takes no keyword arguments");
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "_tuplegetter expected 2 arguments, got %d", argc - 1);
    int64_t index;
    if (vm_index(vm, argv[1], &index) < 0) return val_null();
    TupleGetterObj *g = gc_alloc(vm, AS_TYPE(argv[0]), sizeof(TupleGetterObj));
    if (!g) return val_null();
    g->index = index;
    g->doc = argv[2];
    return val_obj(g);
}

static Value tg_get(ARGS) {
    TupleGetterObj *g = (TupleGetterObj *)argv[0].as.o;
    Value obj = argc > 1 ? argv[1] : val_none();
    if (val_is_none(obj)) return argv[0];
    if (!val_is_obj(obj) || !vm_isinstance_type(vm, obj, vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "descriptor for index '%lld' for tuple subclasses doesn't apply to '%s' object",
                        (long long)g->index, vm_type_name(vm, obj));
    TupleObj *t = AS_TUPLE(obj);
    if (g->index < 0 || g->index >= t->len) return vm_raise(vm, vm->e_IndexError, "tuple index out of range");
    return t->items[g->index];
}

static Value tg_set(ARGS) { return vm_raise(vm, vm->e_AttributeError, "can't set attribute"); }
static Value tg_delete(ARGS) { return vm_raise(vm, vm->e_AttributeError, "can't delete attribute"); }
static Value tg_get_doc(VM *vm, Value s, void *c) { return ((TupleGetterObj *)s.as.o)->doc; }
static int tg_set_doc(VM *vm, Value s, Value v, void *c) {
    ((TupleGetterObj *)s.as.o)->doc = val_is_null(v) ? val_none() : v;
    return 0;
}

int deque_module_add(VM *vm, Value mod) {
    TypeObj *t = type_new_builtin(vm, "deque", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(DequeObj),
                                  offsetof(DequeObj, dict), deque_trace, deque_finalize, TYPEF_BASETYPE);
    if (!t) return -1;
    vm_push_root(vm, val_obj(t));
    t->module = vm_intern(vm, "collections");
    TypeObj *ti = type_new_builtin(vm, "_deque_iterator", vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(IterObj), 0,
                                   dqiter_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!ti) goto fail;
    vm_push_root(vm, val_obj(ti));
    TypeObj *tr = type_new_builtin(vm, "_deque_reverse_iterator", vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(IterObj), 0,
                                   dqiter_trace, NULL, TYPEF_ABSTRACT_NEW);
    vm_pop_root(vm);
    if (!tr) goto fail;
    /* the iterator types hang off the deque type; the roots keep them alive */
    t->native_data = ti;
    ti->native_data = tr;
    if (!gc_root_new(vm, val_obj(ti)) || !gc_root_new(vm, val_obj(tr))) goto fail;
#define CMP(n, op) {n, dq_compare, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)(op)}
    static const MethodDef m[] = {
        {"__new__", dq_new, NATIVEF_STATIC}, {"__init__", dq_init, NATIVEF_METHOD},
        {"append", dq_append, NATIVEF_METHOD | ARITY_O}, {"appendleft", dq_appendleft, NATIVEF_METHOD | ARITY_O},
        {"pop", dq_pop, NATIVEF_METHOD | ARITY_NOARGS}, {"popleft", dq_popleft, NATIVEF_METHOD | ARITY_NOARGS},
        {"extend", dq_extend, NATIVEF_METHOD | ARITY_O}, {"extendleft", dq_extendleft, NATIVEF_METHOD | ARITY_O},
        {"rotate", dq_rotate, NATIVEF_METHOD | ARITY_POS(0, 1)}, {"clear", dq_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"copy", dq_copy, NATIVEF_METHOD | ARITY_NOARGS}, {"__copy__", dq_copy, NATIVEF_METHOD | ARITY_NOARGS},
        {"count", dq_count, NATIVEF_METHOD | ARITY_O}, {"index", dq_index, NATIVEF_METHOD},
        {"insert", dq_insert, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"remove", dq_remove, NATIVEF_METHOD | ARITY_O},
        {"reverse", dq_reverse, NATIVEF_METHOD | ARITY_NOARGS}, {"__len__", dq_len, NATIVEF_METHOD | ARITY_NOARGS},
        {"__contains__", dq_contains, NATIVEF_METHOD | ARITY_O}, {"__getitem__", dq_getitem, NATIVEF_METHOD | ARITY_O},
        {"__setitem__", dq_setitem, NATIVEF_METHOD | ARITY_POS(2, 2)},
        {"__delitem__", dq_delitem, NATIVEF_METHOD | ARITY_O}, {"__iter__", dq_iter, NATIVEF_METHOD | ARITY_NOARGS},
        {"__reversed__", dq_reversed, NATIVEF_METHOD | ARITY_NOARGS},
        {"__repr__", dq_repr, NATIVEF_METHOD | ARITY_NOARGS}, CMP("__lt__", CMP_LT), CMP("__le__", CMP_LE),
        CMP("__eq__", CMP_EQ), CMP("__ne__", CMP_NE), CMP("__gt__", CMP_GT), CMP("__ge__", CMP_GE),
        {"__add__", dq_add, NATIVEF_METHOD | ARITY_O}, {"__iadd__", dq_iadd, NATIVEF_METHOD | ARITY_O},
        {"__mul__", dq_mul, NATIVEF_METHOD | ARITY_O}, {"__rmul__", dq_mul, NATIVEF_METHOD | ARITY_O},
        {"__imul__", dq_imul, NATIVEF_METHOD | ARITY_O},
        {"__class_getitem__", dq_class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
#undef CMP
    static const GetSetDef gs[] = {{"maxlen", dq_get_maxlen}, {NULL}};
    if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0 ||
        dict_set_c(vm, t->dict, "__hash__", val_none()) < 0)
        goto fail;
    type_modified(vm, t);
    static const MethodDef fns[] = {{"_count_elements", count_elements}, {NULL}};
    if (module_set(vm, mod, "deque", val_obj(t)) < 0 || module_add_functions(vm, mod, fns) < 0) goto fail;
    TypeObj *tg = type_new_builtin(vm, "_tuplegetter", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(TupleGetterObj), 0,
                                   tg_trace, NULL, 0);
    if (!tg || module_set(vm, mod, "_tuplegetter", val_obj(tg)) < 0) goto fail;
    tg->module = vm_intern(vm, "collections");
    static const MethodDef tgm[] = {
        {"__new__", tg_new, NATIVEF_STATIC}, {"__get__", tg_get, NATIVEF_METHOD | ARITY_POS(1, 2)},
        {"__set__", tg_set, NATIVEF_METHOD | ARITY_POS(2, 2)}, {"__delete__", tg_delete, NATIVEF_METHOD | ARITY_O},
        {NULL}};
    static const GetSetDef tgg[] = {{"__doc__", tg_get_doc, tg_set_doc}, {NULL}};
    if (type_add_methods(vm, tg, tgm) < 0 || type_add_getsets(vm, tg, tgg) < 0) goto fail;
    vm_pop_root(vm);
    return 0;
fail:
    vm_pop_root(vm);
    return -1;
}
