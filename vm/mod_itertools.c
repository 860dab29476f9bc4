/* vm/mod_itertools.c — the `itertools` module, as CPython 3.11's Modules/itertoolsmodule.c:
 * count, cycle, repeat, accumulate, chain (+ from_iterable), compress, dropwhile, filterfalse,
 * groupby (+ its _grouper), islice, pairwise, starmap, takewhile, tee (+ _tee and its shared
 * _tee_dataobject buffer), zip_longest, product, permutations, combinations,
 * combinations_with_replacement.
 *
 * Every iterator is an ItObj: an IterObj (so FOR_ITER and vm_next call its `next` directly,
 * with no method lookup) extended with a few more traced slots and owned arrays.  A `next`
 * returns VAL_NULL without an exception when exhausted, like the built-in iterators. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define END val_null()

typedef struct ItObj {
    IterObj base;        /* next; a, b, c traced; i, n counters */
    Value d, e, f;       /* traced */
    Value *vals;         /* owned: pools, saved items, iterators; the first nvals are traced */
    int64_t nvals, cap;
    int64_t *idx;        /* owned: indices (then cycles after them for permutations) */
    int64_t nidx;
    int64_t r;
    bool stopped, started;
} ItObj;

static void it_trace(VM *vm, Obj *o) {
    ItObj *it = (ItObj *)o;
    gc_mark_value(vm, it->base.a);
    gc_mark_value(vm, it->base.b);
    gc_mark_value(vm, it->base.c);
    gc_mark_value(vm, it->d);
    gc_mark_value(vm, it->e);
    gc_mark_value(vm, it->f);
    for (int64_t i = 0; i < it->nvals; i++) gc_mark_value(vm, it->vals[i]);
}

static void it_finalize(VM *vm, Obj *o) {
    ItObj *it = (ItObj *)o;
    if (it->vals) VM_FREE_ARRAY(vm, Value, it->vals, it->cap ? it->cap : 1);
    if (it->idx) VM_FREE_ARRAY(vm, int64_t, it->idx, it->nidx ? it->nidx : 1);
    it->vals = NULL;
    it->idx = NULL;
    it->nvals = it->nidx = it->cap = 0;
}

/* A new iterator of type t (the class given to __new__, so subclasses work). */
static ItObj *it_new(VM *vm, Value cls, IterNextFn next) {
    ItObj *it = gc_alloc(vm, AS_TYPE(cls), AS_TYPE(cls)->instance_size);
    if (!it) return NULL;
    it->base.next = next;
    it->base.a = it->base.b = it->base.c = val_null();
    it->d = it->e = it->f = val_null();
    return it;
}

/* Give it an array of n traced values (all None) / n indices, counted by the GC. */
static int it_vals(VM *vm, ItObj *it, int64_t n) {
    Value *v = VM_ALLOC_ARRAY(vm, Value, n ? n : 1);
    if (!v) return -1;
    for (int64_t i = 0; i < n; i++) v[i] = val_none();
    it->vals = v;
    it->nvals = it->cap = n;
    return 0;
}

static int it_idx(VM *vm, ItObj *it, int64_t n) {
    int64_t *p = VM_ALLOC_ARRAY(vm, int64_t, n ? n : 1);
    if (!p) return -1;
    memset(p, 0, sizeof(int64_t) * (size_t)(n ? n : 1));
    it->idx = p;
    it->nidx = n;
    return 0;
}

static int no_kwargs(VM *vm, const char *name, TupleObj *kw) {
    if (kw && kw->len) {
        vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", name);
        return -1;
    }
    return 0;
}

static int unpack(VM *vm, const char *name, int argc, int lo, int hi) {
    if (argc < lo) {
        vm_raise(vm, vm->e_TypeError, "%s expected %s%d argument%s, got %d", name, lo == hi ? "" : "at least ", lo,
                 lo == 1 ? "" : "s", argc);
        return -1;
    }
    if (argc > hi) {
        vm_raise(vm, vm->e_TypeError, "%s expected %s%d argument%s, got %d", name, lo == hi ? "" : "at most ", hi,
                 hi == 1 ? "" : "s", argc);
        return -1;
    }
    return 0;
}

/* Parse keyword-capable arguments after cls. */
static int parse(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, int npos, int nreq,
                 const char *const *names, int nnames, Value *out) {
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *kn = AS_STR(kw->items[k]);
        int j = 0;
        while (j < nnames && !str_eq_c(kn, names[j])) j++;
        if (j == nnames) {
            vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for %s()", kn->data, fname);
            return -1;
        }
    }
    return native_parse_args(vm, fname, argc - 1, argv + 1, kw, npos, nreq, names, nnames, out);
}

/* ---- count ---------------------------------------------------------------------------- */

static Value count_next(VM *vm, IterObj *io) {
    ItObj *it = (ItObj *)io;
    Value cur = io->a;
    if (val_is_int(cur) && val_is_int(io->b)) {
        int64_t s;
        if (!__builtin_add_overflow(cur.as.i, io->b.as.i, &s)) {
            io->a = val_int(s);
            return cur;
        }
    }
    (void)it;
    vm_push_root(vm, cur);
    Value nx = vm_binary_op(vm, 0 /* BINOP_ADD */, cur, io->b);
    vm_pop_root(vm);
    if (val_is_null(nx)) return nx;
    io->a = nx;
    return cur;
}

static bool is_number(VM *vm, Value v) {
    if (val_is_intlike(v) || val_is_float(v)) return true;
    TypeObj *t = vm_type_of(vm, v);
    return !val_is_null(type_special(vm, t, SP_INDEX)) || !val_is_null(type_special(vm, t, SP_FLOAT)) ||
           !val_is_null(type_special(vm, t, SP_INT)) || !val_is_null(type_lookup(vm, t, vm_intern_str(vm, "__complex__")));
}

static Value count_new(ARGS) {
    static const char *const names[] = {"start", "step"};
    Value a[2];
    if (parse(vm, "count", argc, argv, kw, 2, 0, names, 2, a) < 0) return val_null();
    Value start = val_is_null(a[0]) ? val_int(0) : a[0], step = val_is_null(a[1]) ? val_int(1) : a[1];
    if (!is_number(vm, start) || !is_number(vm, step)) return vm_raise(vm, vm->e_TypeError, "a number is required");
    ItObj *it = it_new(vm, argv[0], count_next);
    if (!it) return val_null();
    it->base.a = start;
    it->base.b = step;
    return val_obj(it);
}

static Value count_repr(ARGS) {
    IterObj *io = (IterObj *)argv[0].as.o;
    Value r = vm_repr(vm, io->a);
    if (val_is_null(r)) return r;
    bool plain = val_is_int(io->b) && io->b.as.i == 1;
    if (plain) {
        StrObj *s = str_printf(vm, "%s(%s)", vm_type_name(vm, argv[0]), AS_STR(r)->data);
        return s ? val_obj(s) : val_null();
    }
    vm_push_root(vm, r);
    Value r2 = vm_repr(vm, io->b);
    vm_pop_root(vm);
    if (val_is_null(r2)) return r2;
    StrObj *s = str_printf(vm, "%s(%s, %s)", vm_type_name(vm, argv[0]), AS_STR(r)->data, AS_STR(r2)->data);
    return s ? val_obj(s) : val_null();
}

/* ---- cycle ---------------------------------------------------------------------------- */

static Value cycle_next(VM *vm, IterObj *io) {
    /* a: the source iterator until exhausted; b: saved items (list); i: replay position */
    if (!io->n) {
        Value item = vm_next(vm, io->a);
        if (!val_is_null(item)) {
            vm_push_root(vm, item);
            int rc = list_append(vm, AS_LIST(io->b), item);
            vm_pop_root(vm);
            return rc < 0 ? val_null() : item;
        }
        if (!val_is_null(vm->exc)) return item;
        io->n = 1;
        io->a = val_null();
    }
    ListObj *saved = AS_LIST(io->b);
    if (saved->len == 0) return END;
    Value item = saved->items[io->i];
    io->i = (io->i + 1) % saved->len;
    return item;
}

static Value cycle_new(ARGS) {
    if (no_kwargs(vm, "cycle", kw) < 0 || unpack(vm, "cycle", argc - 1, 1, 1) < 0) return val_null();
    Value src = vm_iter(vm, argv[1]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ListObj *saved = list_new(vm, 0);
    if (!saved) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(saved));
    ItObj *it = it_new(vm, argv[0], cycle_next);
    vm_pop_roots(vm, 2);
    if (!it) return val_null();
    it->base.a = src;
    it->base.b = val_obj(saved);
    return val_obj(it);
}

/* ---- repeat --------------------------------------------------------------------------- */

static Value repeat_next(VM *vm, IterObj *io) {
    if (io->n < 0) return io->a;   /* forever */
    if (io->n == 0) return END;
    io->n--;
    return io->a;
}

static Value repeat_new(ARGS) {
    static const char *const names[] = {"object", "times"};
    Value a[2];
    if (parse(vm, "repeat", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int64_t times = -1;
    if (!val_is_null(a[1])) {
        if (vm_index(vm, a[1], &times) < 0) return val_null();
        if (times < 0) times = 0;
    }
    ItObj *it = it_new(vm, argv[0], repeat_next);
    if (!it) return val_null();
    it->base.a = a[0];
    it->base.n = times;
    return val_obj(it);
}

static Value repeat_repr(ARGS) {
    IterObj *io = (IterObj *)argv[0].as.o;
    Value r = vm_repr(vm, io->a);
    if (val_is_null(r)) return r;
    StrObj *s = io->n < 0 ? str_printf(vm, "%s(%s)", vm_type_name(vm, argv[0]), AS_STR(r)->data)
                          : str_printf(vm, "%s(%s, %lld)", vm_type_name(vm, argv[0]), AS_STR(r)->data, (long long)io->n);
    return s ? val_obj(s) : val_null();
}

static Value repeat_length_hint(ARGS) {
    IterObj *io = (IterObj *)argv[0].as.o;
    if (io->n < 0) return vm_raise(vm, vm->e_TypeError, "len() of unsized object");
    return val_int(io->n);
}

/* ---- accumulate ----------------------------------------------------------------------- */

static Value accumulate_next(VM *vm, IterObj *io) {
    /* a: iterator, b: func or VAL_NULL, c: running total, d: pending initial */
    ItObj *it = (ItObj *)io;
    if (!val_is_null(it->d)) {
        io->c = it->d;
        it->d = val_null();
        return io->c;
    }
    Value v = vm_next(vm, io->a);
    if (val_is_null(v)) return v;
    if (val_is_null(io->c)) {
        io->c = v;
        return v;
    }
    vm_push_root(vm, v);
    Value t = val_is_null(io->b) ? vm_binary_op(vm, 0 /* BINOP_ADD */, io->c, v) : vm_call2(vm, io->b, io->c, v);
    vm_pop_root(vm);
    if (val_is_null(t)) return t;
    io->c = t;
    return t;
}

static Value accumulate_new(ARGS) {
    static const char *const names[] = {"iterable", "func", "initial"};
    Value a[3];
    if (parse(vm, "accumulate", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    Value src = vm_iter(vm, a[0]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, argv[0], accumulate_next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = src;
    it->base.b = val_is_null(a[1]) || val_is_none(a[1]) ? val_null() : a[1];
    it->d = val_is_null(a[2]) || val_is_none(a[2]) ? val_null() : a[2];
    return val_obj(it);
}

/* ---- chain ---------------------------------------------------------------------------- */

static Value chain_next(VM *vm, IterObj *io) {
    /* a: iterator over the iterables (VAL_NULL once done), b: the active iterator */
    for (;;) {
        if (val_is_null(io->b)) {
            if (val_is_null(io->a)) return END;
            Value src = vm_next(vm, io->a);
            if (val_is_null(src)) {
                if (val_is_null(vm->exc)) io->a = val_null();
                return src;
            }
            vm_push_root(vm, src);
            Value active = vm_iter(vm, src);
            vm_pop_root(vm);
            if (val_is_null(active)) return active;
            io->b = active;
        }
        Value item = vm_next(vm, io->b);
        if (!val_is_null(item) || !val_is_null(vm->exc)) return item;
        io->b = val_null();
    }
}

static Value chain_make(VM *vm, Value cls, Value iterable) {
    Value src = vm_iter(vm, iterable);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, cls, chain_next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = src;
    return val_obj(it);
}

static Value chain_new(ARGS) {
    if (no_kwargs(vm, "chain", kw) < 0) return val_null();
    TupleObj *t = tuple_from_array(vm, argv + 1, argc - 1);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    Value r = chain_make(vm, argv[0], val_obj(t));
    vm_pop_root(vm);
    return r;
}

static Value chain_from_iterable(ARGS) {
    if (no_kwargs(vm, "chain.from_iterable", kw) < 0) return val_null();
    if (argc != 2)
        return vm_raise(vm, vm->e_TypeError, "chain.from_iterable() takes exactly one argument (%d given)", argc - 1);
    return chain_make(vm, argv[0], argv[1]);
}

/* ---- compress, dropwhile, takewhile, filterfalse, starmap, pairwise -------------------- */

static Value compress_next(VM *vm, IterObj *io) {
    for (;;) {
        Value d = vm_next(vm, io->a);
        if (val_is_null(d)) return d;
        vm_push_root(vm, d);
        Value s = vm_next(vm, io->b);
        if (val_is_null(s)) {
            vm_pop_root(vm);
            return s;
        }
        int ok = vm_truthy(vm, s);
        vm_pop_root(vm);
        if (ok < 0) return val_null();
        if (ok) return d;
    }
}

static Value compress_new(ARGS) {
    static const char *const names[] = {"data", "selectors"};
    Value a[2];
    if (parse(vm, "compress", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    Value d = vm_iter(vm, a[0]);
    if (val_is_null(d)) return d;
    vm_push_root(vm, d);
    Value s = vm_iter(vm, a[1]);
    if (val_is_null(s)) {
        vm_pop_root(vm);
        return s;
    }
    vm_push_root(vm, s);
    ItObj *it = it_new(vm, argv[0], compress_next);
    vm_pop_roots(vm, 2);
    if (!it) return val_null();
    it->base.a = d;
    it->base.b = s;
    return val_obj(it);
}

/* a: predicate, b: iterator; i: the state flag (dropping done / taking stopped) */
static Value dropwhile_next(VM *vm, IterObj *io) {
    for (;;) {
        Value item = vm_next(vm, io->b);
        if (val_is_null(item) || io->i) return item;
        vm_push_root(vm, item);
        Value r = vm_call1(vm, io->a, item);
        int ok = val_is_null(r) ? -1 : vm_truthy(vm, r);
        vm_pop_root(vm);
        if (ok < 0) return val_null();
        if (!ok) {
            io->i = 1;
            return item;
        }
    }
}

static Value takewhile_next(VM *vm, IterObj *io) {
    if (io->i) return END;
    Value item = vm_next(vm, io->b);
    if (val_is_null(item)) return item;
    vm_push_root(vm, item);
    Value r = vm_call1(vm, io->a, item);
    int ok = val_is_null(r) ? -1 : vm_truthy(vm, r);
    vm_pop_root(vm);
    if (ok < 0) return val_null();
    if (ok) return item;
    io->i = 1;
    return END;
}

static Value filterfalse_next(VM *vm, IterObj *io) {
    for (;;) {
        Value item = vm_next(vm, io->b);
        if (val_is_null(item)) return item;
        vm_push_root(vm, item);
        int ok;
        if (val_is_none(io->a)) {
            ok = vm_truthy(vm, item);
        } else {
            Value r = vm_call1(vm, io->a, item);
            ok = val_is_null(r) ? -1 : vm_truthy(vm, r);
        }
        vm_pop_root(vm);
        if (ok < 0) return val_null();
        if (!ok) return item;
    }
}

static Value starmap_next(VM *vm, IterObj *io) {
    Value args = vm_next(vm, io->b);
    if (val_is_null(args)) return args;
    vm_push_root(vm, args);
    if (!val_is_type(vm, args, vm->t_tuple)) {
        int64_t n;
        Value holder = val_null();
        Value *items = vm_sequence_items(vm, args, &n, &holder);
        if (!items) {
            vm_pop_root(vm);
            return val_null();
        }
        vm_push_root(vm, holder);
        TupleObj *t = tuple_from_array(vm, items, n);
        vm_pop_roots(vm, 2);
        if (!t) return val_null();
        args = val_obj(t);
        vm_push_root(vm, args);
    }
    TupleObj *t = AS_TUPLE(args);
    Value r = vm_call(vm, io->a, (int)t->len, t->items, NULL);
    vm_pop_root(vm);
    return r;
}

static Value pred_iter_new(VM *vm, Value cls, const char *name, int argc, Value *argv, TupleObj *kw, IterNextFn next) {
    if (no_kwargs(vm, name, kw) < 0 || unpack(vm, name, argc - 1, 2, 2) < 0) return val_null();
    Value src = vm_iter(vm, argv[2]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, cls, next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = argv[1];
    it->base.b = src;
    return val_obj(it);
}

static Value dropwhile_new(ARGS) { return pred_iter_new(vm, argv[0], "dropwhile", argc, argv, kw, dropwhile_next); }
static Value takewhile_new(ARGS) { return pred_iter_new(vm, argv[0], "takewhile", argc, argv, kw, takewhile_next); }
static Value filterfalse_new(ARGS) { return pred_iter_new(vm, argv[0], "filterfalse", argc, argv, kw, filterfalse_next); }
static Value starmap_new(ARGS) { return pred_iter_new(vm, argv[0], "starmap", argc, argv, kw, starmap_next); }

static Value pairwise_next(VM *vm, IterObj *io) {
    /* a: iterator (VAL_NULL when done), b: the previous item */
    if (val_is_null(io->a)) return END;
    if (val_is_null(io->b)) {
        Value old = vm_next(vm, io->a);
        if (val_is_null(old)) {
            io->a = val_null();
            return old;
        }
        io->b = old;
    }
    Value nw = vm_next(vm, io->a);
    if (val_is_null(nw)) {
        io->a = io->b = val_null();
        return nw;
    }
    vm_push_root(vm, nw);
    TupleObj *t = tuple_pack(vm, 2, io->b, nw);
    vm_pop_root(vm);
    if (!t) return val_null();
    io->b = nw;
    return val_obj(t);
}

static Value pairwise_new(ARGS) {
    if (no_kwargs(vm, "pairwise", kw) < 0 || unpack(vm, "pairwise", argc - 1, 1, 1) < 0) return val_null();
    Value src = vm_iter(vm, argv[1]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, argv[0], pairwise_next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = src;
    return val_obj(it);
}

/* ---- groupby -------------------------------------------------------------------------- */

/* groupby: a iterator, b keyfunc (or None), c tgtkey, d currkey, e currvalue, f currgrouper.
 * _grouper: a the groupby, b its target key. */
static Value grouper_next(VM *vm, IterObj *io);

static int groupby_step(VM *vm, ItObj *g) {
    Value v = vm_next(vm, g->base.a);
    if (val_is_null(v)) return -1;
    Value k = v;
    if (!val_is_none(g->base.b)) {
        vm_push_root(vm, v);
        k = vm_call1(vm, g->base.b, v);
        vm_pop_root(vm);
        if (val_is_null(k)) return -1;
    }
    g->e = v;
    g->d = k;
    return 0;
}

static Value groupby_next(VM *vm, IterObj *io) {
    ItObj *g = (ItObj *)io;
    g->f = val_null();
    for (;;) {
        if (val_is_null(g->d)) {
            /* nothing read yet */
        } else if (val_is_null(io->c)) {
            break;
        } else {
            int eq = vm_eq(vm, io->c, g->d);
            if (eq < 0) return val_null();
            if (!eq) break;
        }
        if (groupby_step(vm, g) < 0) return val_null();
    }
    io->c = g->d;
    /* the groupby type's native_data is the _grouper type (see itertools_module_init) */
    TypeObj *gt = io->hdr.type->native_data;
    for (TypeObj *t = io->hdr.type; !gt && t; t = t->base) gt = t->native_data;
    ItObj *gr = it_new(vm, val_obj(gt), grouper_next);
    if (!gr) return val_null();
    gr->base.a = val_obj(g);
    gr->base.b = io->c;
    g->f = val_obj(gr);
    vm_push_root(vm, val_obj(gr));
    TupleObj *t = tuple_pack(vm, 2, g->d, val_obj(gr));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

static Value grouper_next(VM *vm, IterObj *io) {
    ItObj *g = (ItObj *)io->a.as.o;
    if (!(val_is_obj(g->f) && g->f.as.o == (Obj *)io)) return END;
    if (val_is_null(g->e) && groupby_step(vm, g) < 0) return val_null();
    int eq = vm_eq(vm, io->b, g->d);
    if (eq <= 0) return val_null();
    Value r = g->e;
    g->e = val_null();
    return r;
}

static Value groupby_new(ARGS) {
    static const char *const names[] = {"iterable", "key"};
    Value a[2];
    if (parse(vm, "groupby", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value src = vm_iter(vm, a[0]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, argv[0], groupby_next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = src;
    it->base.b = val_is_null(a[1]) ? val_none() : a[1];
    return val_obj(it);
}

/* ---- islice --------------------------------------------------------------------------- */

/* a: iterator (VAL_NULL when done); i: items consumed (cnt); n: index of the next item to
 * yield (next); r: stop (-1 none); idx unused; step in d as int */
static Value islice_next(VM *vm, IterObj *io) {
    ItObj *it = (ItObj *)io;
    if (val_is_null(io->a)) return END;
    int64_t stop = it->r, step = it->d.as.i;
    while (io->i < io->n) {
        Value item = vm_next(vm, io->a);
        if (val_is_null(item)) goto empty;
        io->i++;
    }
    if (stop != -1 && io->i >= stop) goto empty;
    Value item = vm_next(vm, io->a);
    if (val_is_null(item)) goto empty;
    io->i++;
    int64_t oldnext = io->n;
    io->n = (int64_t)((uint64_t)io->n + (uint64_t)step);
    if (io->n < oldnext || (stop != -1 && io->n > stop)) io->n = stop;
    return item;
empty:
    io->a = val_null();
    return END;
}

/* None or a non-negative index; -1 + the given ValueError otherwise. */
static int islice_arg(VM *vm, Value v, int64_t *out, const char *msg) {
    if (val_is_none(v)) return 0;
    int64_t x = -1;
    if (vm_index(vm, v, &x) < 0) {
        vm_clear_exc(vm);
        x = -1;
    }
    if (x < 0) {
        vm_raise(vm, vm->e_ValueError, "%s", msg);
        return -1;
    }
    *out = x;
    return 0;
}

static Value islice_new(ARGS) {
    static const char *const stop_msg = "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
    static const char *const idx_msg = "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
    if (no_kwargs(vm, "islice", kw) < 0 || unpack(vm, "islice", argc - 1, 2, 4) < 0) return val_null();
    int64_t start = 0, stop = -1, step = 1;
    if (argc - 1 == 2) {
        if (islice_arg(vm, argv[2], &stop, stop_msg) < 0) return val_null();
    } else {
        if (!val_is_none(argv[2])) {
            int64_t x = -1;
            if (vm_index(vm, argv[2], &x) < 0) vm_clear_exc(vm);
            start = x;
        }
        if (!val_is_none(argv[3])) {
            int64_t x = -1;
            if (vm_index(vm, argv[3], &x) < 0) vm_clear_exc(vm);
            if (x < 0) {
                if (start < 0) return vm_raise(vm, vm->e_ValueError, "%s", idx_msg);
                return vm_raise(vm, vm->e_ValueError, "%s", stop_msg);
            }
            stop = x;
        }
        if (start < 0) return vm_raise(vm, vm->e_ValueError, "%s", idx_msg);
        if (argc - 1 == 4 && !val_is_none(argv[4])) {
            int64_t x = -1;
            if (vm_index(vm, argv[4], &x) < 0) vm_clear_exc(vm);
            step = x;
        }
        if (step < 1) return vm_raise(vm, vm->e_ValueError, "Step for islice() must be a positive integer or None.");
    }
    Value src = vm_iter(vm, argv[1]);
    if (val_is_null(src)) return src;
    vm_push_root(vm, src);
    ItObj *it = it_new(vm, argv[0], islice_next);
    vm_pop_root(vm);
    if (!it) return val_null();
    it->base.a = src;
    it->base.i = 0;
    it->base.n = start;
    it->r = stop;
    it->d = val_int(step);
    return val_obj(it);
}

/* ---- tee ------------------------------------------------------------------------------ */

/* _tee_dataobject: a the source iterator, b the next link, vals[LINKCELLS] the items read,
 * n how many were read, stopped = a read is running.  _tee: a its data object, i index. */
#define LINKCELLS 57

static Value tee_next(VM *vm, IterObj *io);

static Value teedata_next(VM *vm, IterObj *io) {
    return vm_raise(vm, vm->e_TypeError, "'itertools._tee_dataobject' object is not an iterator");
}

static ItObj *teedata_new(VM *vm, TypeObj *t, Value src) {
    vm_push_root(vm, src);
    ItObj *d = it_new(vm, val_obj(t), teedata_next);
    if (d) vm_push_root(vm, val_obj(d));
    bool ok = d && it_vals(vm, d, LINKCELLS) == 0;
    if (d) vm_pop_root(vm);
    vm_pop_root(vm);
    if (!ok) return NULL;
    d->base.a = src;
    d->nvals = 0;   /* only the cells read so far are traced */
    return d;
}

static Value teedata_getitem(VM *vm, ItObj *d, int64_t i) {
    if (i < d->base.n) return d->vals[i];
    /* this tee is the lead: read one more item from the source */
    if (d->stopped) return vm_raise(vm, vm->e_RuntimeError, "cannot re-enter the tee iterator");
    d->stopped = true;
    Value v = vm_next(vm, d->base.a);
    d->stopped = false;
    if (val_is_null(v)) return v;
    d->vals[i] = v;
    d->base.n++;
    d->nvals = d->base.n;
    return v;
}

static Value tee_next(VM *vm, IterObj *io) {
    ItObj *data = (ItObj *)io->a.as.o;
    if (io->i >= LINKCELLS) {
        if (val_is_null(data->base.b)) {
            ItObj *link = teedata_new(vm, data->base.hdr.type, data->base.a);
            if (!link) return val_null();
            data = (ItObj *)io->a.as.o;
            data->base.b = val_obj(link);
        }
        io->a = data->base.b;
        io->i = 0;
        data = (ItObj *)io->a.as.o;
    }
    Value v = teedata_getitem(vm, data, io->i);
    if (!val_is_null(v)) io->i++;
    return v;
}

/* A new _tee over src (an iterator), of type t. */
static Value tee_make(VM *vm, TypeObj *t, Value src) {
    TypeObj *dt = NULL;
    for (TypeObj *k = t; !dt && k; k = k->base) dt = k->native_data;
    ItObj *d = teedata_new(vm, dt, src);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    ItObj *tee = it_new(vm, val_obj(t), tee_next);
    vm_pop_root(vm);
    if (!tee) return val_null();
    tee->base.a = val_obj(d);
    tee->base.i = 0;
    return val_obj(tee);
}

static Value tee_copy(ARGS) {
    IterObj *io = (IterObj *)argv[0].as.o;
    ItObj *c = it_new(vm, val_obj(io->hdr.type), tee_next);
    if (!c) return val_null();
    io = (IterObj *)argv[0].as.o;
    c->base.a = io->a;
    c->base.i = io->i;
    return val_obj(c);
}

static Value tee_type_new(ARGS) {
    if (no_kwargs(vm, "_tee", kw) < 0 || unpack(vm, "_tee", argc - 1, 1, 1) < 0) return val_null();
    Value src = vm_iter(vm, argv[1]);
    if (val_is_null(src)) return src;
    TypeObj *t = AS_TYPE(argv[0]);
    /* a _tee given to _tee() is copied, as CPython's tee_fromiterable does */
    if (src.tag == VAL_OBJ && ((IterObj *)src.as.o)->hdr.type->layout == OBJ_LAYOUT_ITER &&
        ((IterObj *)src.as.o)->next == tee_next) {
        Value a[1] = {src};
        return tee_copy(vm, 1, a, NULL, fn);
    }
    vm_push_root(vm, src);
    Value r = tee_make(vm, t, src);
    vm_pop_root(vm);
    return r;
}

static Value tee_fn(ARGS) {
    if (no_kwargs(vm, "tee", kw) < 0 || unpack(vm, "tee", argc, 1, 2) < 0) return val_null();
    int64_t n = 2;
    if (argc == 2 && vm_index(vm, argv[1], &n) < 0) return val_null();
    if (n < 0) return vm_raise(vm, vm->e_ValueError, "n must be >= 0");
    TupleObj *result = tuple_new(vm, n);
    if (!result) return val_null();
    if (n == 0) return val_obj(result);
    vm_push_root(vm, val_obj(result));
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) goto fail;
    vm_push_root(vm, it);
    Value copyable;
    Value copier = vm_getattr_opt(vm, it, vm_intern_str(vm, "__copy__"));
    if (!val_is_null(copier)) {
        copyable = it;
    } else {
        if (!val_is_null(vm->exc)) goto fail2;
        copyable = tee_make(vm, AS_TYPE(fn->payload), it);
        if (val_is_null(copyable)) goto fail2;
    }
    result->items[0] = copyable;
    for (int64_t i = 1; i < n; i++) {
        Value c = vm_call_method(vm, copyable, "__copy__", 0, NULL);
        if (val_is_null(c)) goto fail2;
        result->items[i] = c;
    }
    vm_pop_roots(vm, 2);
    return val_obj(result);
fail2:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- zip_longest ---------------------------------------------------------------------- */

/* vals: the iterators (VAL_NONE once exhausted), a: fillvalue, n: how many are active */
static Value zip_longest_next(VM *vm, IterObj *io) {
    ItObj *z = (ItObj *)io;
    if (z->nvals == 0 || io->n == 0) return END;
    TupleObj *t = tuple_new(vm, z->nvals);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int64_t i = 0; i < z->nvals; i++) {
        Value item;
        if (val_is_none(z->vals[i])) {
            item = io->a;
        } else {
            item = vm_next(vm, z->vals[i]);
            if (val_is_null(item)) {
                io->n--;
                if (io->n == 0 || !val_is_null(vm->exc)) {
                    io->n = 0;
                    vm_pop_root(vm);
                    return val_null();
                }
                z->vals[i] = val_none();
                item = io->a;
            }
        }
        t->items[i] = item;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value zip_longest_new(ARGS) {
    Value fill = val_none();
    int npos = argc - 1;
    for (int64_t k = 0; kw && k < kw->len; k++) {
        if (!str_eq_c(AS_STR(kw->items[k]), "fillvalue"))
            return vm_raise(vm, vm->e_TypeError, "zip_longest() got an unexpected keyword argument");
        fill = argv[argc + k];
    }
    ItObj *z = it_new(vm, argv[0], zip_longest_next);
    if (!z) return val_null();
    vm_push_root(vm, val_obj(z));
    if (it_vals(vm, z, npos) < 0) goto fail;
    z->base.a = fill;
    for (int i = 0; i < npos; i++) {
        Value it = vm_iter(vm, argv[1 + i]);
        if (val_is_null(it)) goto fail;
        z->vals[i] = it;
    }
    z->base.n = npos;
    vm_pop_root(vm);
    return val_obj(z);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- combinatorics -------------------------------------------------------------------- */

/* The previous result with items [from, r) replaced from pool by idx: CPython reuses its
 * result tuple when nobody else holds it; a new tuple each step keeps tuples immutable. */
static Value comb_result(VM *vm, ItObj *it, Value *pool, int64_t r, int64_t from) {
    TupleObj *prev = val_is_null(it->base.c) ? NULL : AS_TUPLE(it->base.c);
    TupleObj *t = tuple_new(vm, r);
    if (!t) return val_null();
    for (int64_t i = 0; i < r; i++) t->items[i] = prev && i < from ? prev->items[i] : pool[it->idx[i]];
    it->base.c = val_obj(t);
    return val_obj(t);
}

/* product: vals = the pools' items concatenated, idx[0..npools) the indices, idx[npools..2n)
 * each pool's start offset in vals and idx[2n..3n) its length.  r = npools. */
static Value product_next(VM *vm, IterObj *io) {
    ItObj *p = (ItObj *)io;
    if (p->stopped) return END;
    int64_t np = p->r, *ix = p->idx, *off = p->idx + np, *len = p->idx + 2 * np;
    TupleObj *t = tuple_new(vm, np);
    if (!t) return val_null();
    if (!p->started) {
        p->started = true;
        for (int64_t i = 0; i < np; i++) t->items[i] = p->vals[off[i]];
    } else {
        TupleObj *prev = AS_TUPLE(io->c);
        memcpy(t->items, prev->items, sizeof(Value) * (size_t)np);
        int64_t i = np - 1;
        for (; i >= 0; i--) {
            ix[i]++;
            if (ix[i] == len[i]) {
                ix[i] = 0;
                t->items[i] = p->vals[off[i]];
            } else {
                t->items[i] = p->vals[off[i] + ix[i]];
                break;
            }
        }
        if (i < 0) {
            p->stopped = true;
            return END;
        }
    }
    io->c = val_obj(t);
    return val_obj(t);
}

static Value product_new(ARGS) {
    int64_t repeat = 1;
    for (int64_t k = 0; kw && k < kw->len; k++) {
        if (!str_eq_c(AS_STR(kw->items[k]), "repeat"))
            return vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for product()",
                            AS_STR(kw->items[k])->data);
        if (vm_index(vm, argv[argc + k], &repeat) < 0) return val_null();
        if (repeat < 0) return vm_raise(vm, vm->e_ValueError, "repeat argument cannot be negative");
    }
    int nargs = argc - 1;
    int64_t np = nargs && repeat ? (int64_t)nargs * repeat : 0;
    if (nargs && repeat && np / repeat != nargs) return vm_raise(vm, vm->e_OverflowError, "repeat argument too large");
    ItObj *p = it_new(vm, argv[0], product_next);
    if (!p) return val_null();
    vm_push_root(vm, val_obj(p));
    ListObj *items = list_new(vm, 0);
    if (!items) goto fail;
    vm_push_root(vm, val_obj(items));
    if (it_idx(vm, p, 3 * np) < 0) goto fail2;
    p->r = np;
    int64_t *off = p->idx + np, *len = p->idx + 2 * np;
    for (int i = 0; i < nargs; i++) {
        int64_t before = items->len;
        if (list_extend(vm, items, argv[1 + i]) < 0) goto fail2;
        off[i] = before;
        len[i] = items->len - before;
    }
    for (int64_t i = nargs; i < np; i++) {
        off[i] = off[i % nargs];
        len[i] = len[i % nargs];
    }
    for (int64_t i = 0; i < np; i++)
        if (len[i] == 0) p->stopped = true;
    if (it_vals(vm, p, items->len) < 0) goto fail2;
    if (items->len) memcpy(p->vals, items->items, sizeof(Value) * (size_t)items->len);
    vm_pop_roots(vm, 2);
    return val_obj(p);
fail2:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* permutations / combinations / combinations_with_replacement: vals = the pool, r, idx =
 * indices (permutations: n indices then r cycles). */
static Value permutations_next(VM *vm, IterObj *io) {
    ItObj *p = (ItObj *)io;
    int64_t n = p->nvals, r = p->r, *ix = p->idx, *cycles = p->idx + n;
    if (p->stopped) return END;
    if (!p->started) {
        p->started = true;
        return comb_result(vm, p, p->vals, r, 0);
    }
    if (n == 0) goto empty;
    int64_t i = r - 1;
    for (; i >= 0; i--) {
        cycles[i]--;
        if (cycles[i] == 0) {
            int64_t index = ix[i];
            for (int64_t j = i; j < n - 1; j++) ix[j] = ix[j + 1];
            ix[n - 1] = index;
            cycles[i] = n - i;
        } else {
            int64_t j = cycles[i];
            int64_t index = ix[i];
            ix[i] = ix[n - j];
            ix[n - j] = index;
            return comb_result(vm, p, p->vals, r, i);
        }
    }
empty:
    p->stopped = true;
    return END;
}

static Value combinations_next(VM *vm, IterObj *io) {
    ItObj *p = (ItObj *)io;
    int64_t n = p->nvals, r = p->r, *ix = p->idx;
    if (p->stopped) return END;
    if (!p->started) {
        p->started = true;
        return comb_result(vm, p, p->vals, r, 0);
    }
    int64_t i = r - 1;
    while (i >= 0 && ix[i] == i + n - r) i--;
    if (i < 0) {
        p->stopped = true;
        return END;
    }
    ix[i]++;
    for (int64_t j = i + 1; j < r; j++) ix[j] = ix[j - 1] + 1;
    return comb_result(vm, p, p->vals, r, i);
}

static Value cwr_next(VM *vm, IterObj *io) {
    ItObj *p = (ItObj *)io;
    int64_t n = p->nvals, r = p->r, *ix = p->idx;
    if (p->stopped) return END;
    if (!p->started) {
        p->started = true;
        return comb_result(vm, p, p->vals, r, 0);
    }
    int64_t i = r - 1;
    while (i >= 0 && ix[i] == n - 1) i--;
    if (i < 0) {
        p->stopped = true;
        return END;
    }
    int64_t index = ix[i] + 1;
    for (int64_t j = i; j < r; j++) ix[j] = index;
    return comb_result(vm, p, p->vals, r, i);
}

/* kind: 0 permutations, 1 combinations, 2 combinations_with_replacement */
static Value comb_new(VM *vm, int kind, int argc, Value *argv, TupleObj *kw) {
    static const char *const names[] = {"iterable", "r"};
    static const char *const fnames[] = {"permutations", "combinations", "combinations_with_replacement"};
    static const IterNextFn nexts[] = {permutations_next, combinations_next, cwr_next};
    Value a[2];
    if (parse(vm, fnames[kind], argc, argv, kw, 2, kind == 0 ? 1 : 2, names, 2, a) < 0) return val_null();
    ListObj *pool = vm_list_from_iterable(vm, a[0]);
    if (!pool) return val_null();
    vm_push_root(vm, val_obj(pool));
    int64_t n = pool->len, r = n;
    if (!val_is_null(a[1]) && !(kind == 0 && val_is_none(a[1]))) {
        if (!val_is_intlike(a[1]) && vm_index(vm, a[1], &r) < 0) goto fail;
        if (val_is_intlike(a[1])) r = val_as_intlike(a[1]);
        if (r < 0) {
            vm_raise(vm, vm->e_ValueError, "r must be non-negative");
            goto fail;
        }
    }
    ItObj *p = it_new(vm, argv[0], nexts[kind]);
    if (!p) goto fail;
    vm_push_root(vm, val_obj(p));
    int64_t nidx = kind == 0 ? n + r : kind == 1 ? r : r;
    if (it_vals(vm, p, n) < 0 || it_idx(vm, p, nidx) < 0) {
        vm_pop_root(vm);
        goto fail;
    }
    if (n) memcpy(p->vals, pool->items, sizeof(Value) * (size_t)n);
    p->r = r;
    if (kind == 0) {
        p->stopped = r > n;
        if (!p->stopped) {
            for (int64_t i = 0; i < n; i++) p->idx[i] = i;
            for (int64_t i = 0; i < r; i++) p->idx[n + i] = n - i;
        }
    } else if (kind == 1) {
        p->stopped = r > n;
        for (int64_t i = 0; i < r; i++) p->idx[i] = i;
    } else {
        p->stopped = n == 0 && r > 0;
    }
    vm_pop_roots(vm, 2);
    return val_obj(p);
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value permutations_new(ARGS) { return comb_new(vm, 0, argc, argv, kw); }
static Value combinations_new(ARGS) { return comb_new(vm, 1, argc, argv, kw); }
static Value cwr_new(ARGS) { return comb_new(vm, 2, argc, argv, kw); }

/* ---- module --------------------------------------------------------------------------- */

static TypeObj *it_type(VM *vm, Value mod, const char *name, NativeFn new_fn, bool basetype) {
    TypeObj *t = type_new_builtin(vm, name, vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(ItObj), 0, it_trace,
                                  it_finalize, basetype ? TYPEF_BASETYPE : 0);
    if (!t) return NULL;
    vm_push_root(vm, val_obj(t));
    t->module = vm_intern(vm, "itertools");
    MethodDef defs[] = {{"__new__", new_fn, NATIVEF_STATIC}, {NULL}};
    int rc = new_fn ? type_add_methods(vm, t, defs) : 0;
    if (rc == 0) rc = module_set(vm, mod, name, val_obj(t));
    vm_pop_root(vm);
    return rc < 0 ? NULL : t;
}

int itertools_module_init(VM *vm, Value mod) {
    static const struct { const char *name; NativeFn fn; } simple[] = {
        {"cycle", cycle_new}, {"accumulate", accumulate_new},
        {"compress", compress_new}, {"dropwhile", dropwhile_new}, {"takewhile", takewhile_new},
        {"filterfalse", filterfalse_new}, {"starmap", starmap_new}, {"pairwise", pairwise_new},
        {"islice", islice_new}, {"zip_longest", zip_longest_new}, {"product", product_new},
        {"permutations", permutations_new}, {"combinations", combinations_new},
        {"combinations_with_replacement", cwr_new}};
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (!it_type(vm, mod, simple[i].name, simple[i].fn, true)) return -1;
    TypeObj *tcount = it_type(vm, mod, "count", count_new, true);
    TypeObj *trepeat = it_type(vm, mod, "repeat", repeat_new, true);
    TypeObj *tchain = it_type(vm, mod, "chain", chain_new, true);
    TypeObj *tgroupby = it_type(vm, mod, "groupby", groupby_new, true);
    TypeObj *tgrouper = it_type(vm, mod, "_grouper", NULL, false);
    TypeObj *ttee = it_type(vm, mod, "_tee", tee_type_new, false);
    TypeObj *tdata = it_type(vm, mod, "_tee_dataobject", NULL, false);
    if (!tcount || !trepeat || !tchain || !tgroupby || !tgrouper || !ttee || !tdata) return -1;
    tgrouper->flags |= TYPEF_ABSTRACT_NEW;
    tdata->flags |= TYPEF_ABSTRACT_NEW;
    /* a next function finds its helper types here; the roots keep them alive even if the
     * module goes away while its iterators live on */
    tgroupby->native_data = tgrouper;
    ttee->native_data = tdata;
    if (!gc_root_new(vm, val_obj(tgrouper)) || !gc_root_new(vm, val_obj(tdata))) return -1;
    static const MethodDef count_m[] = {{"__repr__", count_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const MethodDef repeat_m[] = {
        {"__repr__", repeat_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__length_hint__", repeat_length_hint, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const MethodDef chain_m[] = {{"from_iterable", chain_from_iterable, NATIVEF_CLASSMETHOD}, {NULL}};
    static const MethodDef tee_m[] = {{"__copy__", tee_copy, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    if (type_add_methods(vm, tcount, count_m) < 0 || type_add_methods(vm, trepeat, repeat_m) < 0 ||
        type_add_methods(vm, tchain, chain_m) < 0 || type_add_methods(vm, ttee, tee_m) < 0)
        return -1;
    NativeObj *tee = native_new_closure(vm, "tee", tee_fn, val_obj(ttee));
    if (!tee || module_set(vm, mod, "tee", val_obj(tee)) < 0) return -1;
    return 0;
}
