/* vm/mod_operator.c — the `_operator` module (CPython 3.11's Modules/_operator.c): the
 * operators as functions (add, iadd, lt, not_, getitem, concat, contains, countOf, indexOf,
 * length_hint, index, call, ...), _compare_digest, and the callable types attrgetter,
 * itemgetter and methodcaller with CPython's reprs and messages.  operator.py re-exports it
 * with `from _operator import *`. */
#include <string.h>

#include "vm/dict.h"
#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* fn->data: BinaryOp (in-place ones offset by BINOP_INPLACE) */
static Value op_binary(ARGS) { return vm_binary_op(vm, (int)(intptr_t)fn->data, argv[0], argv[1]); }
/* fn->data: opcode */
static Value op_unary(ARGS) { return vm_unary_op(vm, (int)(intptr_t)fn->data, argv[0]); }
/* fn->data: CompareOp */
static Value op_compare(ARGS) { return vm_compare(vm, (CompareOp)(intptr_t)fn->data, argv[0], argv[1]); }

static Value op_truth(ARGS) {
    int t = vm_truthy(vm, argv[0]);
    return t < 0 ? val_null() : val_bool(t);
}
static Value op_is(ARGS) { return val_bool(val_identical(argv[0], argv[1])); }
static Value op_is_not(ARGS) { return val_bool(!val_identical(argv[0], argv[1])); }

static Value op_abs(ARGS) {
    Value f = dict_get_c(vm, vm->builtins, "abs");
    return val_is_null(f) ? vm_raise(vm, vm->e_RuntimeError, "lost builtins.abs") : vm_call1(vm, f, argv[0]);
}

static Value op_index(ARGS) {
    if (val_is_intlike(argv[0])) return val_int(val_as_intlike(argv[0]));
    if (val_is_intobj(argv[0])) return argv[0];   /* an int of any size (PyNumber_Index) */
    mpz_t z;
    mpz_init(z);
    Value r = bigint_index_mpz(vm, argv[0], z) < 0 ? val_null() : bigint_from_mpz(vm, z);
    mpz_clear(z);
    return r;
}

static bool has_getitem(VM *vm, Value v) {
    return !val_is_null(type_special(vm, vm_type_of(vm, v), SP_GETITEM));
}

/* concat (0) / iconcat (1) */
static Value op_concat(ARGS) {
    if (!has_getitem(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "'%s' object can't be concatenated", vm_type_name(vm, argv[0]));
    return vm_binary_op(vm, fn->data ? BINOP_INPLACE + BINOP_ADD : BINOP_ADD, argv[0], argv[1]);
}

static Value op_contains(ARGS) {
    int r = vm_contains(vm, argv[0], argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}

/* countOf (0) / indexOf (1) */
static Value op_seq_search(ARGS) {
    bool index = fn->data != NULL;
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    int64_t n = 0, i = 0;
    for (;; i++) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) {
            vm_pop_root(vm);
            if (!val_is_null(vm->exc)) return x;
            if (index) return vm_raise(vm, vm->e_ValueError, "sequence.index(x): x not in sequence");
            return val_int(n);
        }
        int eq = val_identical(x, argv[1]) ? 1 : vm_eq(vm, x, argv[1]);
        if (eq < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        if (eq) {
            if (index) {
                vm_pop_root(vm);
                return val_int(i);
            }
            n++;
        }
    }
}

static Value op_getitem(ARGS) { return vm_getitem(vm, argv[0], argv[1]); }
static Value op_setitem(ARGS) { return vm_setitem(vm, argv[0], argv[1], argv[2]) < 0 ? val_null() : val_none(); }
static Value op_delitem(ARGS) { return vm_delitem(vm, argv[0], argv[1]) < 0 ? val_null() : val_none(); }

static Value op_length_hint(ARGS) {
    int64_t def = 0;
    if (argc == 2) {
        if (!val_is_intlike(argv[1]))
            return vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, argv[1]));
        def = val_as_intlike(argv[1]);
    }
    Value o = argv[0];
    TypeObj *t = vm_type_of(vm, o);
    if (!val_is_null(type_special(vm, t, SP_LEN))) {
        int64_t n = vm_len(vm, o);
        if (n >= 0) return val_int(n);
        if (!vm_exc_matches(vm, vm->e_TypeError)) return val_null();
        vm_clear_exc(vm);
    }
    Value hint = type_lookup(vm, t, vm_intern_str(vm, "__length_hint__"));
    if (val_is_null(hint)) return val_int(def);
    Value r = vm_call1(vm, hint, o);
    if (val_is_null(r)) {
        if (!vm_exc_matches(vm, vm->e_TypeError)) return r;
        vm_clear_exc(vm);
        return val_int(def);
    }
    if (val_identical(r, vm->not_implemented)) return val_int(def);
    if (!val_is_intlike(r))
        return vm_raise(vm, vm->e_TypeError, "__length_hint__ must be an integer, not %s", vm_type_name(vm, r));
    if (val_as_intlike(r) < 0) return vm_raise(vm, vm->e_ValueError, "__length_hint__() should return >= 0");
    return val_int(val_as_intlike(r));
}

static Value op_call(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "call() missing 1 required positional argument: 'obj'");
    return vm_call(vm, argv[0], argc - 1, argv + 1, kw);
}

static Value op_compare_digest(ARGS) {
    Value a = argv[0], b = argv[1];
    const uint8_t *pa, *pb;
    int64_t na, nb;
    if (val_is_obj(a) && val_is_obj(b) && vm_isinstance_type(vm, a, vm->t_str) && vm_isinstance_type(vm, b, vm->t_str)) {
        StrObj *sa = AS_STR(a), *sb = AS_STR(b);
        if (!str_is_ascii(sa) || !str_is_ascii(sb))
            return vm_raise(vm, vm->e_TypeError, "comparing strings with non-ASCII characters is not supported");
        pa = (const uint8_t *)sa->data, na = sa->len, pb = (const uint8_t *)sb->data, nb = sb->len;
    } else if (val_is_obj(a) && val_is_obj(b) && vm_isinstance_type(vm, a, vm->t_bytes) &&
               vm_isinstance_type(vm, b, vm->t_bytes)) {
        pa = ((BytesObj *)a.as.o)->data, na = ((BytesObj *)a.as.o)->len;
        pb = ((BytesObj *)b.as.o)->data, nb = ((BytesObj *)b.as.o)->len;
    } else {
        /* otherwise both must be bytes-like */
        bool ab = val_is_obj(a) && vm_isinstance_type(vm, a, vm->t_bytes);
        bool bb = val_is_obj(b) && vm_isinstance_type(vm, b, vm->t_bytes);
        if (!ab && !bb)
            return vm_raise(vm, vm->e_TypeError, "unsupported operand types(s) or combination of types: '%s' and '%s'",
                            vm_type_name(vm, a), vm_type_name(vm, b));
        return vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, ab ? b : a));
    }
    /* time depends on the length of b only, as CPython's tscmp */
    const uint8_t *left = na == nb ? pa : pb;
    unsigned result = na == nb ? 0 : 1;
    for (int64_t i = 0; i < nb; i++) result |= (unsigned)(left[i] ^ pb[i]);
    return val_bool(result == 0);
}

/* ---- attrgetter, itemgetter, methodcaller ---------------------------------------------- */

typedef struct GetterObj {
    Obj hdr;
    Value a;      /* attrgetter: tuple of names (str or tuple of str parts); itemgetter: items
                     tuple; methodcaller: name */
    Value b, c;   /* methodcaller: args tuple, kwargs dict */
    int64_t n;    /* attrgetter/itemgetter: number of attributes/items */
} GetterObj;

static void getter_trace(VM *vm, Obj *o) {
    GetterObj *g = (GetterObj *)o;
    gc_mark_value(vm, g->a);
    gc_mark_value(vm, g->b);
    gc_mark_value(vm, g->c);
}

static GetterObj *getter_new(VM *vm, Value cls) {
    GetterObj *g = gc_alloc(vm, AS_TYPE(cls), AS_TYPE(cls)->instance_size);
    if (!g) return NULL;
    g->a = g->b = g->c = val_null();
    return g;
}

static int no_kwargs(VM *vm, const char *name, TupleObj *kw) {
    if (kw && kw->len) {
        vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", name);
        return -1;
    }
    return 0;
}

static Value attrgetter_new(ARGS) {
    if (no_kwargs(vm, "attrgetter", kw) < 0) return val_null();
    int n = argc - 1;
    if (n < 1) return vm_raise(vm, vm->e_TypeError, "attrgetter expected 1 argument, got 0");
    TupleObj *names = tuple_new(vm, n);
    if (!names) return val_null();
    vm_push_root(vm, val_obj(names));
    for (int i = 0; i < n; i++) {
        Value v = argv[1 + i];
        if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_str)) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "attribute name must be a string");
        }
        StrObj *s = AS_STR(v);
        if (!memchr(s->data, '.', (size_t)s->len)) {
            names->items[i] = val_obj(str_intern(vm, s));
            continue;
        }
        /* dotted: keep the parts, resolved one after another at call time */
        int64_t parts = 1;
        for (int64_t k = 0; k < s->len; k++) parts += s->data[k] == '.';
        TupleObj *pt = tuple_new(vm, parts);
        if (!pt) {
            vm_pop_root(vm);
            return val_null();
        }
        names->items[i] = val_obj(pt);
        int64_t start = 0, p = 0;
        for (int64_t k = 0; k <= s->len; k++) {
            if (k == s->len || s->data[k] == '.') {
                StrObj *part = str_new(vm, s->data + start, k - start);
                if (!part || !(part = str_intern(vm, part))) {
                    vm_pop_root(vm);
                    return val_null();
                }
                pt->items[p++] = val_obj(part);
                start = k + 1;
            }
        }
    }
    GetterObj *g = getter_new(vm, argv[0]);
    vm_pop_root(vm);
    if (!g) return val_null();
    g->a = val_obj(names);
    g->n = n;
    return val_obj(g);
}

static Value attr_resolve(VM *vm, Value obj, Value name) {
    if (val_is_type(vm, name, vm->t_tuple)) {
        TupleObj *parts = AS_TUPLE(name);
        for (int64_t i = 0; i < parts->len; i++) {
            obj = vm_getattr(vm, obj, AS_STR(parts->items[i]));
            if (val_is_null(obj)) return obj;
        }
        return obj;
    }
    return vm_getattr(vm, obj, AS_STR(name));
}

static int getter_call_args(VM *vm, const char *name, int argc, TupleObj *kw) {
    if (no_kwargs(vm, name, kw) < 0) return -1;
    if (argc != 2) {
        vm_raise(vm, vm->e_TypeError, "%s expected 1 argument, got %d", name, argc - 1);
        return -1;
    }
    return 0;
}

static Value attrgetter_call(ARGS) {
    if (getter_call_args(vm, "attrgetter", argc, kw) < 0) return val_null();
    GetterObj *g = (GetterObj *)argv[0].as.o;
    TupleObj *names = AS_TUPLE(g->a);
    if (g->n == 1) return attr_resolve(vm, argv[1], names->items[0]);
    TupleObj *t = tuple_new(vm, g->n);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int64_t i = 0; i < g->n; i++) {
        Value v = attr_resolve(vm, argv[1], names->items[i]);
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

/* "operator.NAME(repr, repr, ...)" of the given values, with repr recursion guarded. */
static Value getter_repr(VM *vm, Value self, const char *name, Value *items, int64_t n, Value first, DictObj *kwargs) {
    int rec = repr_enter(vm, self.as.o);
    if (rec < 0) return val_null();
    if (rec) {
        StrObj *s = str_printf(vm, "%s(...)", name);
        return s ? val_obj(s) : val_null();
    }
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s(", name);
    bool sep = false;
    Value r;
    if (!val_is_null(first)) {
        r = vm_repr(vm, first);
        if (val_is_null(r)) goto fail;
        sb_add_str(&b, AS_STR(r));
        sep = true;
    }
    for (int64_t i = 0; i < n; i++) {
        r = vm_repr(vm, items[i]);
        if (val_is_null(r)) goto fail;
        if (sep) sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(r));
        sep = true;
    }
    if (kwargs) {
        int64_t pos = 0;
        Value k, v;
        while (dict_next(kwargs, &pos, &k, &v)) {
            r = vm_repr(vm, v);
            if (val_is_null(r)) goto fail;
            if (sep) sb_adds(&b, ", ");
            sb_add_str(&b, AS_STR(k));
            sb_addc(&b, '=');
            sb_add_str(&b, AS_STR(r));
            sep = true;
        }
    }
    sb_addc(&b, ')');
    repr_leave(vm, self.as.o);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
fail:
    repr_leave(vm, self.as.o);
    sb_free(&b);
    return val_null();
}

static Value attrgetter_repr(ARGS) {
    GetterObj *g = (GetterObj *)argv[0].as.o;
    TupleObj *names = AS_TUPLE(g->a);
    /* dotted names show joined again */
    TupleObj *shown = tuple_new(vm, g->n);
    if (!shown) return val_null();
    vm_push_root(vm, val_obj(shown));
    for (int64_t i = 0; i < g->n; i++) {
        Value nm = names->items[i];
        if (val_is_type(vm, nm, vm->t_tuple)) {
            StrBuf b;
            sb_init(&b);
            TupleObj *parts = AS_TUPLE(nm);
            for (int64_t k = 0; k < parts->len; k++) {
                if (k) sb_addc(&b, '.');
                sb_add_str(&b, AS_STR(parts->items[k]));
            }
            StrObj *s = sb_finish(vm, &b);
            if (!s) {
                vm_pop_root(vm);
                return val_null();
            }
            nm = val_obj(s);
        }
        shown->items[i] = nm;
    }
    Value r = getter_repr(vm, argv[0], "operator.attrgetter", shown->items, g->n, val_null(), NULL);
    vm_pop_root(vm);
    return r;
}

static Value itemgetter_new(ARGS) {
    if (no_kwargs(vm, "itemgetter", kw) < 0) return val_null();
    int n = argc - 1;
    if (n < 1) return vm_raise(vm, vm->e_TypeError, "itemgetter expected 1 argument, got 0");
    TupleObj *items = tuple_from_array(vm, argv + 1, n);
    if (!items) return val_null();
    vm_push_root(vm, val_obj(items));
    GetterObj *g = getter_new(vm, argv[0]);
    vm_pop_root(vm);
    if (!g) return val_null();
    g->a = val_obj(items);
    g->n = n;
    return val_obj(g);
}

static Value item_get(VM *vm, Value obj, Value key) {
    /* the common sort-key case: a list or tuple indexed by a small int */
    if (val_is_int(key) && obj.tag == VAL_OBJ) {
        TypeObj *t = obj.as.o->type;
        int64_t i = key.as.i;
        if (t == vm->t_tuple) {
            TupleObj *tu = AS_TUPLE(obj);
            if (i < 0) i += tu->len;
            if (i >= 0 && i < tu->len) return tu->items[i];
        } else if (t == vm->t_list) {
            ListObj *l = AS_LIST(obj);
            if (i < 0) i += l->len;
            if (i >= 0 && i < l->len) return l->items[i];
        }
    }
    return vm_getitem(vm, obj, key);
}

static Value itemgetter_call(ARGS) {
    if (getter_call_args(vm, "itemgetter", argc, kw) < 0) return val_null();
    GetterObj *g = (GetterObj *)argv[0].as.o;
    TupleObj *items = AS_TUPLE(g->a);
    if (g->n == 1) return item_get(vm, argv[1], items->items[0]);
    TupleObj *t = tuple_new(vm, g->n);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int64_t i = 0; i < g->n; i++) {
        Value v = item_get(vm, argv[1], items->items[i]);
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value itemgetter_repr(ARGS) {
    GetterObj *g = (GetterObj *)argv[0].as.o;
    return getter_repr(vm, argv[0], "operator.itemgetter", AS_TUPLE(g->a)->items, g->n, val_null(), NULL);
}

static Value methodcaller_new(ARGS) {
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "methodcaller needs at least one argument, the method name");
    if (!val_is_obj(argv[1]) || !vm_isinstance_type(vm, argv[1], vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "method name must be a string");
    int nkw = kw ? (int)kw->len : 0;
    TupleObj *args = tuple_from_array(vm, argv + 2, argc - 2);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    DictObj *kwargs = dict_new(vm);
    if (!kwargs) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(kwargs));
    for (int k = 0; k < nkw; k++)
        if (dict_set(vm, kwargs, kw->items[k], argv[argc + k]) < 0) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
    StrObj *name = str_intern(vm, AS_STR(argv[1]));
    GetterObj *g = name ? getter_new(vm, argv[0]) : NULL;
    vm_pop_roots(vm, 2);
    if (!g) return val_null();
    g->a = val_obj(name);
    g->b = val_obj(args);
    g->c = val_obj(kwargs);
    return val_obj(g);
}

static Value methodcaller_call(ARGS) {
    if (getter_call_args(vm, "methodcaller", argc, kw) < 0) return val_null();
    GetterObj *g = (GetterObj *)argv[0].as.o;
    Value m = vm_getattr(vm, argv[1], AS_STR(g->a));
    if (val_is_null(m)) return m;
    DictObj *kwargs = AS_DICT(g->c);
    if (kwargs->used == 0) {
        vm_push_root(vm, m);
        TupleObj *args = AS_TUPLE(g->b);
        Value r = vm_call(vm, m, (int)args->len, args->items, NULL);
        vm_pop_root(vm);
        return r;
    }
    vm_push_root(vm, m);
    Value r = vm_call_ex(vm, m, g->b, g->c);
    vm_pop_root(vm);
    return r;
}

static Value methodcaller_repr(ARGS) {
    GetterObj *g = (GetterObj *)argv[0].as.o;
    TupleObj *args = AS_TUPLE(g->b);
    return getter_repr(vm, argv[0], "operator.methodcaller", args->items, args->len, g->a, AS_DICT(g->c));
}

/* ---- module --------------------------------------------------------------------------- */

static TypeObj *getter_type(VM *vm, Value mod, const char *name, NativeFn new_fn, NativeFn call, NativeFn repr) {
    TypeObj *t = type_new_builtin(vm, name, vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(GetterObj), 0, getter_trace,
                                  NULL, 0);
    if (!t) return NULL;
    vm_push_root(vm, val_obj(t));
    t->module = vm_intern(vm, "operator");
    MethodDef defs[] = {{"__new__", new_fn, NATIVEF_STATIC}, {"__call__", call, NATIVEF_METHOD},
                        {"__repr__", repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    int rc = type_add_methods(vm, t, defs);
    if (rc == 0) rc = module_set(vm, mod, name, val_obj(t));
    vm_pop_root(vm);
    return rc < 0 ? NULL : t;
}

int operator_module_init(VM *vm, Value mod) {
#define B(n, op) {n, op_binary, ARITY_POS(2, 2), (void *)(intptr_t)(op)}
#define IB(n, op) {n, op_binary, ARITY_POS(2, 2), (void *)(intptr_t)(BINOP_INPLACE + (op))}
#define C(n, op) {n, op_compare, ARITY_POS(2, 2), (void *)(intptr_t)(op)}
#define U(n, op) {n, op_unary, ARITY_O, (void *)(intptr_t)(op)}
    static const MethodDef fns[] = {
        B("add", BINOP_ADD), B("sub", BINOP_SUBTRACT), B("mul", BINOP_MULTIPLY), B("matmul", BINOP_MATMUL),
        B("truediv", BINOP_TRUE_DIVIDE), B("floordiv", BINOP_FLOOR_DIVIDE), B("mod", BINOP_REMAINDER),
        B("pow", BINOP_POWER), B("lshift", BINOP_LSHIFT), B("rshift", BINOP_RSHIFT), B("and_", BINOP_AND),
        B("or_", BINOP_OR), B("xor", BINOP_XOR),
        IB("iadd", BINOP_ADD), IB("isub", BINOP_SUBTRACT), IB("imul", BINOP_MULTIPLY), IB("imatmul", BINOP_MATMUL),
        IB("itruediv", BINOP_TRUE_DIVIDE), IB("ifloordiv", BINOP_FLOOR_DIVIDE), IB("imod", BINOP_REMAINDER),
        IB("ipow", BINOP_POWER), IB("ilshift", BINOP_LSHIFT), IB("irshift", BINOP_RSHIFT), IB("iand", BINOP_AND),
        IB("ior", BINOP_OR), IB("ixor", BINOP_XOR),
        C("lt", CMP_LT), C("le", CMP_LE), C("eq", CMP_EQ), C("ne", CMP_NE), C("gt", CMP_GT), C("ge", CMP_GE),
        U("neg", OP_UNARY_NEGATIVE), U("pos", OP_UNARY_POSITIVE), U("inv", OP_UNARY_INVERT),
        U("invert", OP_UNARY_INVERT), U("not_", OP_UNARY_NOT),
        {"truth", op_truth, ARITY_O}, {"is_", op_is, ARITY_POS(2, 2)}, {"is_not", op_is_not, ARITY_POS(2, 2)},
        {"abs", op_abs, ARITY_O}, {"index", op_index, ARITY_O},
        {"concat", op_concat, ARITY_POS(2, 2), NULL}, {"iconcat", op_concat, ARITY_POS(2, 2), (void *)1},
        {"contains", op_contains, ARITY_POS(2, 2)}, {"countOf", op_seq_search, ARITY_POS(2, 2), NULL},
        {"indexOf", op_seq_search, ARITY_POS(2, 2), (void *)1}, {"getitem", op_getitem, ARITY_POS(2, 2)},
        {"setitem", op_setitem, ARITY_POS(3, 3)}, {"delitem", op_delitem, ARITY_POS(2, 2)},
        {"length_hint", op_length_hint, ARITY_POS(1, 2)}, {"call", op_call},
        {"_compare_digest", op_compare_digest, ARITY_POS(2, 2)}, {NULL}};
#undef B
#undef IB
#undef C
#undef U
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    if (!getter_type(vm, mod, "attrgetter", attrgetter_new, attrgetter_call, attrgetter_repr) ||
        !getter_type(vm, mod, "itemgetter", itemgetter_new, itemgetter_call, itemgetter_repr) ||
        !getter_type(vm, mod, "methodcaller", methodcaller_new, methodcaller_call, methodcaller_repr))
        return -1;
    return 0;
}
