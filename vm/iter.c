/* vm/iter.c — iterators: one IterObj layout with a `next` function per kind (list, tuple, str,
 * range, dict keys/values/items, set, bytes, the sequence protocol) and the iterator builtins
 * enumerate, zip, map, filter, reversed, iter and next. */
#include "vm/iter.h"

#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define END val_null()

static void iter_trace(VM *vm, Obj *o) {
    IterObj *it = (IterObj *)o;
    gc_mark_value(vm, it->a);
    gc_mark_value(vm, it->b);
    gc_mark_value(vm, it->c);
}

static Value enumerate_next(VM *vm, IterObj *it);
static Value zip_next(VM *vm, IterObj *it);
static Value map_next(VM *vm, IterObj *it);
static Value filter_next(VM *vm, IterObj *it);
static Value reversed_next(VM *vm, IterObj *it);
static Value callable_iter_next(VM *vm, IterObj *it);
static Value tuple_iter_next(VM *vm, IterObj *it);
static Value str_iter_next(VM *vm, IterObj *it);
static Value bytes_iter_next(VM *vm, IterObj *it);
static Value dict_iter_next(VM *vm, IterObj *it);
static Value set_iter_next(VM *vm, IterObj *it);

/* The type of a new iterator follows from its `next` function (dict iterators from their
 * kind, set by the caller). */
static TypeObj *iter_type_for(VM *vm, IterNextFn next) {
    if (next == list_iter_next) return vm->t_list_iterator;
    if (next == tuple_iter_next) return vm->t_tuple_iterator;
    if (next == str_iter_next) return vm->t_str_iterator;
    if (next == range_iter_next) return vm->t_range_iterator;
    if (next == dict_iter_next) return vm->t_dict_keyiterator;
    if (next == set_iter_next) return vm->t_set_iterator;
    if (next == bytes_iter_next) return vm->t_bytes_iterator;
    if (next == enumerate_next) return vm->t_enumerate;
    if (next == zip_next) return vm->t_zip;
    if (next == map_next) return vm->t_map;
    if (next == filter_next) return vm->t_filter;
    if (next == reversed_next) return vm->t_reversed;
    if (next == callable_iter_next) return vm->t_callable_iterator;
    return vm->t_iterator;
}

Value iter_new(VM *vm, IterNextFn next, Value a, Value b, int64_t i, int64_t n) {
    vm_push_root(vm, a);
    vm_push_root(vm, b);
    IterObj *it = gc_alloc(vm, iter_type_for(vm, next), sizeof(IterObj));
    vm_pop_roots(vm, 2);
    if (!it) return val_null();
    it->next = next;
    it->a = a;
    it->b = b;
    it->c = val_null();
    it->i = i;
    it->n = n;
    return val_obj(it);
}

Value list_iter_next(VM *vm, IterObj *it) {
    ListObj *l = AS_LIST(it->a);
    if (it->i < l->len) return l->items[it->i++];
    it->i = INT64_MAX;
    return END;
}

static Value tuple_iter_next(VM *vm, IterObj *it) {
    TupleObj *t = AS_TUPLE(it->a);
    if (it->i < t->len) return t->items[it->i++];
    return END;
}

static Value str_iter_next(VM *vm, IterObj *it) {
    StrObj *s = AS_STR(it->a);
    if (it->n >= s->len) return END;   /* n: byte position, i: code point index */
    int64_t start = it->n;
    int64_t pos = start;
    utf8_decode(s->data, s->len, &pos);
    it->n = pos;
    it->i++;
    StrObj *c = str_new(vm, s->data + start, pos - start);
    return c ? val_obj(c) : val_null();
}

static Value bytes_iter_next(VM *vm, IterObj *it) {
    BytesObj *b = (BytesObj *)it->a.as.o;
    if (it->i < b->len) return val_int(b->data[it->i++]);
    return END;
}

Value range_iter_next(VM *vm, IterObj *it) {
    /* i: next value, n: remaining count, b: step */
    if (it->n <= 0) return END;
    int64_t v = it->i;
    it->n--;
    it->i += it->b.as.i;
    return val_int(v);
}

static Value dict_iter_next(VM *vm, IterObj *it) {
    DictObj *d = AS_DICT(it->a);
    if ((uint64_t)it->c.as.i != (uint64_t)d->used && it->c.tag == VAL_INT) {
        it->c = val_null();
        return vm_raise(vm, vm->e_RuntimeError, "dictionary changed size during iteration");
    }
    if (it->c.tag != VAL_INT) return END;
    Value k, v;
    if (!dict_next(d, &it->i, &k, &v)) {
        it->c = val_null();
        return END;
    }
    switch (it->n) {
    case 0: return k;
    case 1: return v;
    default: {
        TupleObj *t = tuple_pack(vm, 2, k, v);
        return t ? val_obj(t) : val_null();
    }
    }
}

Value iter_dict(VM *vm, DictObj *d, int kind) {
    Value it = iter_new(vm, dict_iter_next, val_obj(d), val_null(), 0, kind);
    if (!val_is_null(it)) {
        ((IterObj *)it.as.o)->c = val_int(d->used);
        if (kind) it.as.o->type = kind == 1 ? vm->t_dict_valueiterator : vm->t_dict_itemiterator;
    }
    return it;
}

static Value set_iter_next(VM *vm, IterObj *it) {
    SetObj *s = (SetObj *)it->a.as.o;
    if (it->c.tag != VAL_INT) return END;
    if (it->c.as.i != s->used) {
        it->c = val_null();
        return vm_raise(vm, vm->e_RuntimeError, "Set changed size during iteration");
    }
    Value k;
    if (!set_next(s, &it->i, &k)) {
        it->c = val_null();
        return END;
    }
    return k;
}

static Value seq_iter_next(VM *vm, IterObj *it) {
    if (val_is_null(it->a)) return END;
    Value r = vm_getitem(vm, it->a, val_int(it->i));
    if (val_is_null(r)) {
        if (vm_exc_matches(vm, vm->e_IndexError) || vm_exc_matches(vm, vm->e_StopIteration)) {
            vm_clear_exc(vm);
            it->a = val_null();
        }
        return r;
    }
    it->i++;
    return r;
}

Value iter_sequence(VM *vm, Value v) { return iter_new(vm, seq_iter_next, v, val_null(), 0, 0); }

extern Value dictview_iter(VM *vm, Value v);   /* vm/dict_methods.c */

Value iter_builtin(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return END;
    TypeObj *t = v.as.o->type;
    if (t == vm->t_list) return iter_new(vm, list_iter_next, v, val_null(), 0, 0);
    if (t == vm->t_tuple) return iter_new(vm, tuple_iter_next, v, val_null(), 0, 0);
    if (t == vm->t_str) {
        Value it = iter_new(vm, str_iter_next, v, val_null(), 0, 0);
        if (!val_is_null(it) && AS_STR(v)->len != AS_STR(v)->ncp) it.as.o->type = vm->t_str_uiterator;
        return it;
    }
    if (t == vm->t_dict) return iter_dict(vm, AS_DICT(v), 0);
    if (t == vm->t_range) {
        RangeObj *r = (RangeObj *)v.as.o;
        if (r->big) return range_big_iter(vm, r, false);
        return iter_new(vm, range_iter_next, val_null(), val_int(r->step), r->start, r->len);
    }
    if (t == vm->t_set || t == vm->t_frozenset) {
        Value it = iter_new(vm, set_iter_next, v, val_null(), 0, 0);
        if (!val_is_null(it)) ((IterObj *)it.as.o)->c = val_int(((SetObj *)v.as.o)->used);
        return it;
    }
    if (t == vm->t_bytes) return iter_new(vm, bytes_iter_next, v, val_null(), 0, 0);
    return dictview_iter(vm, v);
}

/* ---- the iterator builtins -------------------------------------------------------------- */

static Value enumerate_next(VM *vm, IterObj *it) {
    Value x = vm_next(vm, it->a);
    if (val_is_null(x)) return x;
    vm_push_root(vm, x);
    TupleObj *t = tuple_pack(vm, 2, val_int(it->i), x);
    vm_pop_root(vm);
    it->i++;
    return t ? val_obj(t) : val_null();
}

static Value b_enumerate(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"iterable", "start"};
    Value a[2];
    if (native_parse_args(vm, "enumerate", argc, argv, kw, 2, 0, names, 2, a) < 0) return val_null();
    if (val_is_null(a[0])) return vm_raise(vm, vm->e_TypeError, "enumerate() missing required argument 'iterable'");
    int64_t start = 0;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &start) < 0) return val_null();
    Value it = vm_iter(vm, a[0]);
    if (val_is_null(it)) return it;
    return iter_new(vm, enumerate_next, it, val_null(), start, 0);
}

static Value zip_next(VM *vm, IterObj *it) {
    TupleObj *its = AS_TUPLE(it->a);
    if (its->len == 0 || it->n < 0) return END;
    TupleObj *out = tuple_new(vm, its->len);
    if (!out) return val_null();
    vm_push_root(vm, val_obj(out));
    for (int64_t i = 0; i < its->len; i++) {
        Value x = vm_next(vm, its->items[i]);
        if (val_is_null(x)) {
            vm_pop_root(vm);
            if (!val_is_null(vm->exc)) return x;
            if (it->i) {   /* strict=True */
                if (i > 0)
                    return vm_raise(vm, vm->e_ValueError, "zip() argument %lld is shorter than argument%s%lld",
                                    (long long)(i + 1), i == 1 ? " " : "s 1-", (long long)i);
                for (int64_t j = 1; j < its->len; j++) {
                    Value y = vm_next(vm, its->items[j]);
                    if (!val_is_null(y))
                        return vm_raise(vm, vm->e_ValueError, "zip() argument %lld is longer than argument%s%lld",
                                        (long long)(j + 1), j == 1 ? " " : "s 1-", (long long)j);
                    if (!val_is_null(vm->exc)) return y;
                }
            }
            it->n = -1;
            return END;
        }
        out->items[i] = x;
    }
    vm_pop_root(vm);
    return val_obj(out);
}

static Value b_zip(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    bool strict = false;
    if (kw) {
        for (int64_t k = 0; k < kw->len; k++) {
            if (!str_eq_c(AS_STR(kw->items[k]), "strict"))
                return vm_raise(vm, vm->e_TypeError, "zip() got an unexpected keyword argument '%s'",
                                AS_STR(kw->items[k])->data);
            int t = vm_truthy(vm, argv[argc + k]);
            if (t < 0) return val_null();
            strict = t;
        }
    }
    TupleObj *its = tuple_new(vm, argc);
    if (!its) return val_null();
    vm_push_root(vm, val_obj(its));
    for (int i = 0; i < argc; i++) {
        Value it = vm_iter(vm, argv[i]);
        if (val_is_null(it)) {
            vm_pop_root(vm);
            return it;
        }
        its->items[i] = it;
    }
    Value r = iter_new(vm, zip_next, val_obj(its), val_null(), strict, 0);
    vm_pop_root(vm);
    return r;
}

static Value map_next(VM *vm, IterObj *it) {
    TupleObj *its = AS_TUPLE(it->b);
    Value small[8];
    if (its->len > 8) return vm_raise(vm, vm->e_NotImplementedError, "map() over more than 8 iterables is not supported");
    TupleObj *args = tuple_new(vm, its->len);   /* keeps the values rooted */
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    for (int64_t i = 0; i < its->len; i++) {
        Value x = vm_next(vm, its->items[i]);
        if (val_is_null(x)) {
            vm_pop_root(vm);
            return x;
        }
        args->items[i] = x;
        small[i] = x;
    }
    Value r = vm_call(vm, it->a, (int)its->len, small, NULL);
    vm_pop_root(vm);
    return r;
}

static Value b_map(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "map() takes no keyword arguments");
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "map() must have at least two arguments.");
    TupleObj *its = tuple_new(vm, argc - 1);
    if (!its) return val_null();
    vm_push_root(vm, val_obj(its));
    for (int i = 1; i < argc; i++) {
        Value it = vm_iter(vm, argv[i]);
        if (val_is_null(it)) {
            vm_pop_root(vm);
            return it;
        }
        its->items[i - 1] = it;
    }
    Value r = iter_new(vm, map_next, argv[0], val_obj(its), 0, 0);
    vm_pop_root(vm);
    return r;
}

static Value filter_next(VM *vm, IterObj *it) {
    for (;;) {
        Value x = vm_next(vm, it->b);
        if (val_is_null(x)) return x;
        vm_push_root(vm, x);
        int t;
        if (val_is_none(it->a)) {
            t = vm_truthy(vm, x);
        } else {
            Value r = vm_call1(vm, it->a, x);
            if (val_is_null(r)) {
                vm_pop_root(vm);
                return r;
            }
            vm_push_root(vm, r);
            t = vm_truthy(vm, r);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (t < 0) return val_null();
        if (t) return x;
    }
}

static Value b_filter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "filter", argc, kw, 2, 2) < 0) return val_null();
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) return it;
    return iter_new(vm, filter_next, argv[0], it, 0, 0);
}

static Value reversed_next(VM *vm, IterObj *it) {
    /* a: sequence, i: next index going down */
    if (it->i < 0) return END;
    if (val_is_type(vm, it->a, vm->t_list)) {
        ListObj *l = AS_LIST(it->a);
        if (it->i >= l->len) {
            it->i = -1;
            return END;
        }
        return l->items[it->i--];
    }
    Value r = vm_getitem(vm, it->a, val_int(it->i));
    if (val_is_null(r)) {
        if (vm_exc_matches(vm, vm->e_IndexError) || vm_exc_matches(vm, vm->e_StopIteration)) vm_clear_exc(vm);
        it->i = -1;
        return r;
    }
    it->i--;
    return r;
}

static Value b_reversed(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "reversed", argc, kw, 1, 1) < 0) return val_null();
    Value v = argv[0];
    TypeObj *t = vm_type_of(vm, v);
    Value rf = type_special(vm, t, SP_REVERSED);
    if (!val_is_null(rf)) return vm_call_special(vm, v, SP_REVERSED, 0, NULL);
    if (t == vm->t_range) {
        RangeObj *r = (RangeObj *)v.as.o;
        if (!range_reversed_fits(r)) return range_big_iter(vm, r, true);
        int64_t last = r->start + (r->len - 1) * r->step;
        return iter_new(vm, range_iter_next, val_null(), val_int(-r->step), last, r->len);
    }
    if (t == vm->t_dict) {
        ListObj *keys = vm_list_from_iterable(vm, v);
        if (!keys) return val_null();
        vm_push_root(vm, val_obj(keys));
        Value it = iter_new(vm, reversed_next, val_obj(keys), val_null(), keys->len - 1, 0);
        vm_pop_root(vm);
        if (!val_is_null(it)) it.as.o->type = vm->t_dict_reversekeyiterator;
        return it;
    }
    if (val_is_null(type_special(vm, t, SP_GETITEM)) && t != vm->t_list && t != vm->t_tuple && t != vm->t_str)
        return vm_raise(vm, vm->e_TypeError, "'%s' object is not reversible", t->name->data);
    int64_t n = vm_len(vm, v);
    if (n < 0) return val_null();
    Value it = iter_new(vm, reversed_next, v, val_null(), n - 1, 0);
    if (!val_is_null(it) && t == vm->t_list) it.as.o->type = vm->t_list_reverseiterator;
    return it;
}

/* reversed(list): walks the live list from the end, as CPython's list_reverseiterator. */
Value iter_reversed_list(VM *vm, Value list) {
    Value it = iter_new(vm, reversed_next, list, val_null(), AS_LIST(list)->len - 1, 0);
    if (!val_is_null(it)) it.as.o->type = vm->t_list_reverseiterator;
    return it;
}

static Value callable_iter_next(VM *vm, IterObj *it) {
    if (val_is_null(it->a)) return END;
    Value r = vm_call0(vm, it->a);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);   /* the comparison may allocate (and collect) */
    int eq = vm_eq(vm, r, it->b);
    vm_pop_root(vm);
    if (eq < 0) return val_null();
    if (eq) {
        it->a = val_null();
        return END;
    }
    return r;
}

static Value b_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "iter", argc, kw, 1, 2) < 0) return val_null();
    if (argc == 2) {
        if (!vm_is_callable(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "iter(v, w): v must be callable");
        return iter_new(vm, callable_iter_next, argv[0], argv[1], 0, 0);
    }
    return vm_iter(vm, argv[0]);
}

static Value b_next(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (native_check_args(vm, "next", argc, kw, 1, 2) < 0) return val_null();
    TypeObj *t = vm_type_of(vm, argv[0]);
    if (t->layout != OBJ_LAYOUT_ITER && t != vm->t_generator && val_is_null(type_special(vm, t, SP_NEXT)))
        return vm_raise(vm, vm->e_TypeError, "'%s' object is not an iterator", t->name->data);
    Value ret = val_none();
    Value r;
    if (t == vm->t_generator) {
        bool done;   /* a generator's return value travels in its StopIteration */
        r = gen_resume(vm, (GenObj *)argv[0].as.o, val_none(), val_null(), &done, &ret);
    } else if (t->layout != OBJ_LAYOUT_ITER) {
        /* a __next__ method: its StopIteration propagates as raised, value included */
        r = vm_call_special(vm, argv[0], SP_NEXT, 0, NULL);
        if (val_is_null(r) && argc == 2 && vm_exc_matches(vm, vm->e_StopIteration)) {
            vm_clear_exc(vm);
            return argv[1];
        }
        return r;
    } else {
        r = vm_next(vm, argv[0]);
    }
    if (!val_is_null(r) || !val_is_null(vm->exc)) return r;
    if (argc == 2) return argv[1];
    return vm_raise_stop_iteration(vm, ret);
}

static Value iterator_iter(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) { return argv[0]; }
static Value iterator_next(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value r = vm_next(vm, argv[0]);
    if (!val_is_null(r) || !val_is_null(vm->exc)) return r;
    return vm_raise_stop_iteration(vm, val_none());
}

/* enumerate, zip, map, filter and reversed are types: calling one runs its __new__, which
 * drops the class argument and builds the iterator (CPython's types of the same names). */
static Value iter_type_new(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    NativeFn make = (NativeFn)fn->data;
    return make(vm, argc - 1, argv + 1, kw, fn);
}

void iter_init(VM *vm) {
#define X(f, s) vm->t_##f->trace = iter_trace;
    ITER_TYPES(X)
#undef X
    vm->t_iterator->trace = iter_trace;
    static const MethodDef it_methods[] = {
        {"__iter__", iterator_iter, NATIVEF_METHOD},
        {"__next__", iterator_next, NATIVEF_METHOD},
        {NULL}};
    static const MethodDef builtins[] = {{"iter", b_iter, ARITY_POS(1, 2)}, {"next", b_next, ARITY_POS(1, 2)}, {NULL}};
    if (type_add_methods(vm, vm->t_iterator, it_methods) < 0 ||
        dict_add_functions(vm, vm->builtins, builtins) < 0)
        EM_UNREACHABLE();
    const struct { TypeObj *t; NativeFn make; uint32_t arity; } callable_types[] = {
        {vm->t_enumerate, b_enumerate, 0}, {vm->t_zip, b_zip, 0}, {vm->t_map, b_map, 0},
        {vm->t_filter, b_filter, ARITY_POS(2, 2)}, {vm->t_reversed, b_reversed, ARITY_POS(1, 1)}};
    for (size_t i = 0; i < sizeof callable_types / sizeof callable_types[0]; i++) {
        TypeObj *t = callable_types[i].t;
        MethodDef defs[] = {
            {"__new__", iter_type_new, NATIVEF_STATIC | callable_types[i].arity, (void *)callable_types[i].make}, {NULL}};
        t->flags &= ~(uint32_t)TYPEF_ABSTRACT_NEW;
        if (type_add_methods(vm, t, defs) < 0 || dict_set_str(vm, vm->builtins, t->name, val_obj(t)) < 0)
            EM_UNREACHABLE();
    }
}
