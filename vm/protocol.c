/* vm/protocol.c — the data model's abstract operations: binary and unary operators with
 * reflected/in-place dispatch, rich comparison, truth, hashing, containment, iteration, len,
 * item access, repr/str/format, __index__.  Built-in types take fast paths; everything else
 * goes through the special methods in type dicts, in CPython's order. */
#include <math.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/iter.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

const char *vm_type_name(VM *vm, Value v) { return vm_type_of(vm, v)->name->data; }

const char *const binop_symbol[13] = {
#define X(e, s) s,
    BINARY_OPS(X)
#undef X
};
const char *const cmp_symbol[6] = {"<", "<=", "==", "!=", ">", ">="};

/* ---- binary operators ------------------------------------------------------------------- */

static Value call_dunder(VM *vm, Value f, Value self, Value other) {
    if (f.tag == VAL_OBJ && f.as.o->type == vm->t_function) return vm_call2(vm, f, self, other);
    /* binding allocates before the call holds `other`; a native caller (sum(), reduce) may pass
     * a fresh value it holds nowhere else */
    vm_push_root(vm, other);
    Value b = vm_bind_descriptor(vm, f, self, vm_type_of(vm, self));
    if (val_is_null(b)) {
        vm_pop_root(vm);
        return b;
    }
    vm_push_root(vm, b);
    Value r = vm_call1(vm, b, other);
    vm_pop_roots(vm, 2);
    return r;
}

static bool is_notimpl(VM *vm, Value v) { return val_identical(v, vm->not_implemented); }

/* Sequence fast paths: str/list/tuple concatenation and repetition. 1 handled, 0 not. */
static int index_of_int(VM *vm, Value v, int64_t *out);

static int seq_binary(VM *vm, int op, Value a, Value b, Value *out) {
    if (a.tag != VAL_OBJ || val_is_intobj(a)) {
        if (op == BINOP_MULTIPLY && (val_is_intlike(a) || val_is_intobj(a)) && b.tag == VAL_OBJ && !val_is_intobj(b))
            return seq_binary(vm, op, b, a, out);
        return 0;
    }
    TypeObj *ta = a.as.o->type;
    if (op == BINOP_ADD && b.tag == VAL_OBJ && b.as.o->type == ta) {
        if (ta == vm->t_str) {
            StrObj *s = str_concat(vm, AS_STR(a), AS_STR(b));
            if (!s) return -1;
            *out = val_obj(s);
            return 1;
        }
        if (ta == vm->t_list || ta == vm->t_tuple) {
            int64_t na, nb;
            vm_sequence_items(vm, a, &na, NULL);
            vm_sequence_items(vm, b, &nb, NULL);
            if (ta == vm->t_list) {
                ListObj *l = list_new(vm, na + nb);
                if (!l) return -1;
                /* re-read the item arrays: the allocation may have run the collector */
                if (na) memcpy(l->items, AS_LIST(a)->items, sizeof(Value) * (size_t)na);
                if (nb) memcpy(l->items + na, AS_LIST(b)->items, sizeof(Value) * (size_t)nb);
                l->len = na + nb;
                *out = val_obj(l);
            } else {
                TupleObj *t = tuple_new(vm, na + nb);
                if (!t) return -1;
                if (na) memcpy(t->items, AS_TUPLE(a)->items, sizeof(Value) * (size_t)na);
                if (nb) memcpy(t->items + na, AS_TUPLE(b)->items, sizeof(Value) * (size_t)nb);
                *out = val_obj(t);
            }
            return 1;
        }
    }
    if (op == BINOP_MULTIPLY && (val_is_intlike(b) || val_is_intobj(b)) &&
        (ta == vm->t_str || ta == vm->t_list || ta == vm->t_tuple)) {
        int64_t k;
        if (index_of_int(vm, b, &k) < 0) return -1;
        if (k < 0) k = 0;
        if (ta == vm->t_str) {
            StrObj *s = AS_STR(a);
            if (s->len && k > (INT64_C(1) << 40) / s->len) {
                vm_no_memory(vm);
                return -1;
            }
            StrBuf sb;
            sb_init(&sb);
            for (int64_t i = 0; i < k; i++) sb_add_str(&sb, s);
            StrObj *r = sb_finish(vm, &sb);
            if (!r) return -1;
            *out = val_obj(r);
            return 1;
        }
        int64_t n;
        Value *items = vm_sequence_items(vm, a, &n, NULL);
        (void)items;
        if (n && k > (INT64_C(1) << 32) / n) {
            vm_no_memory(vm);
            return -1;
        }
        if (ta == vm->t_list) {
            ListObj *l = list_new(vm, n * k);
            if (!l) return -1;
            for (int64_t i = 0; i < k && n; i++)
                memcpy(l->items + i * n, AS_LIST(a)->items, sizeof(Value) * (size_t)n);
            l->len = n * k;
            *out = val_obj(l);
        } else {
            TupleObj *t = tuple_new(vm, n * k);
            if (!t) return -1;
            for (int64_t i = 0; i < k; i++) memcpy(t->items + i * n, AS_TUPLE(a)->items, sizeof(Value) * (size_t)n);
            *out = val_obj(t);
        }
        return 1;
    }
    return 0;
}

Value vm_binary_op(VM *vm, int op, Value a, Value b) {
    Value out;
    int r = num_binary(vm, op, a, b, &out);
    if (r) return r < 0 ? val_null() : out;
    bool inplace = op >= BINOP_INPLACE;
    int base = inplace ? op - BINOP_INPLACE : op;
    if (inplace && val_is_type(vm, a, vm->t_list) && base == BINOP_ADD) {
        if (list_extend(vm, AS_LIST(a), b) < 0) return val_null();
        return a;
    }
    if (inplace && val_is_type(vm, a, vm->t_list) && base == BINOP_MULTIPLY && val_is_intlike(b)) {
        /* lst *= n repeats in place (the list keeps its identity) */
        ListObj *l = AS_LIST(a);
        int64_t k = val_as_intlike(b), n = l->len;
        if (k <= 0 || n == 0) {
            l->len = 0;
            return a;
        }
        if (k > (INT64_C(1) << 32) / n) return vm_no_memory(vm);
        if (list_reserve(vm, l, n * k) < 0) return val_null();
        for (int64_t i = 1; i < k; i++) memcpy(l->items + i * n, l->items, sizeof(Value) * (size_t)n);
        l->len = n * k;
        return a;
    }
    r = seq_binary(vm, base, a, b, &out);
    if (r) return r < 0 ? val_null() : out;
    TypeObj *ta = vm_type_of(vm, a), *tb = vm_type_of(vm, b);
    if (inplace) {
        Value f = type_lookup(vm, ta, vm->binop_names[base][2]);
        if (!val_is_null(f)) {
            Value res = call_dunder(vm, f, a, b);
            if (val_is_null(res) || !is_notimpl(vm, res)) return res;
        }
    }
    Value fa = type_lookup(vm, ta, vm->binop_names[base][0]);
    Value fb = ta != tb ? type_lookup(vm, tb, vm->binop_names[base][1]) : val_null();
    if (!val_is_null(fb) && type_is_subtype(tb, ta) && !val_identical(fa, fb)) {
        Value res = call_dunder(vm, fb, b, a);
        if (val_is_null(res) || !is_notimpl(vm, res)) return res;
        fb = val_null();
    }
    if (!val_is_null(fa)) {
        Value res = call_dunder(vm, fa, a, b);
        if (val_is_null(res) || !is_notimpl(vm, res)) return res;
    }
    if (!val_is_null(fb)) {
        Value res = call_dunder(vm, fb, b, a);
        if (val_is_null(res) || !is_notimpl(vm, res)) return res;
    }
    if (base == BINOP_REMAINDER && val_is_type(vm, a, vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "not all arguments converted during string formatting");
    if (base == BINOP_MULTIPLY) {
        /* sequence repetition by a non-integer */
        TypeObj *seqs[] = {vm->t_list, vm->t_tuple, vm->t_str, vm->t_bytes};
        for (int k = 0; k < 4; k++) {
            if (vm_isinstance_type(vm, a, seqs[k]))
                return vm_raise(vm, vm->e_TypeError, "can't multiply sequence by non-int of type '%s'", tb->name->data);
            if (vm_isinstance_type(vm, b, seqs[k]))
                return vm_raise(vm, vm->e_TypeError, "can't multiply sequence by non-int of type '%s'", ta->name->data);
        }
    }
    return vm_raise(vm, vm->e_TypeError, "unsupported operand type(s) for %s%s: '%s' and '%s'",
                    binop_symbol[base], inplace ? "=" : "", ta->name->data, tb->name->data);
}

Value vm_unary_op(VM *vm, int opcode, Value a) {
    switch (opcode) {
    case OP_UNARY_NOT: {
        int t = vm_truthy(vm, a);
        return t < 0 ? val_null() : val_bool(!t);
    }
    case OP_UNARY_NEGATIVE:
        if (a.tag == VAL_INT) {
            if (a.as.i == INT64_MIN) return bigint_unary(vm, opcode, a);
            return val_int(-a.as.i);
        }
        if (a.tag == VAL_BOOL) return val_int(-(int64_t)a.as.b);
        if (a.tag == VAL_FLOAT) return val_float(-a.as.f);
        break;
    case OP_UNARY_POSITIVE:
        if (a.tag == VAL_INT || a.tag == VAL_FLOAT) return a;
        if (a.tag == VAL_BOOL) return val_int(a.as.b);
        break;
    case OP_UNARY_INVERT:
        if (a.tag == VAL_INT || a.tag == VAL_BOOL) return val_int(~val_as_intlike(a));
        break;
    }
    if (val_is_type(vm, a, vm->t_int)) return bigint_unary(vm, opcode, a);
    SpecialMethod sp = opcode == OP_UNARY_NEGATIVE ? SP_NEG : opcode == OP_UNARY_POSITIVE ? SP_POS : SP_INVERT;
    Value f = type_special(vm, vm_type_of(vm, a), sp);
    if (!val_is_null(f)) return vm_call_special(vm, a, sp, 0, NULL);
    const char *sym = opcode == OP_UNARY_NEGATIVE ? "-" : opcode == OP_UNARY_POSITIVE ? "+" : "~";
    return vm_raise(vm, vm->e_TypeError, "bad operand type for unary %s: '%s'", sym, vm_type_name(vm, a));
}

/* ---- comparison -------------------------------------------------------------------------- */

static const SpecialMethod cmp_special[6] = {SP_LT, SP_LE, SP_EQ, SP_NE, SP_GT, SP_GE};
static const CompareOp cmp_reflect[6] = {CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE};

static bool cmp_result(int c, CompareOp op) {
    switch (op) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

Value vm_compare(VM *vm, CompareOp op, Value a, Value b) {
    bool ok;
    bool r = num_compare(vm, a, b, op, &ok);
    if (ok) return val_bool(r);
    TypeObj *ta = vm_type_of(vm, a), *tb = vm_type_of(vm, b);
    if (ta == tb && ta == vm->t_str) return val_bool(cmp_result(str_cmp(AS_STR(a), AS_STR(b)), op));
    if (ta == tb && (ta == vm->t_list || ta == vm->t_tuple)) {
        int64_t na, nb;
        Value *ia = vm_sequence_items(vm, a, &na, NULL), *ib = vm_sequence_items(vm, b, &nb, NULL);
        return seq_richcompare(vm, ia, na, ib, nb, op);
    }
    if (val_is_none(a) && val_is_none(b) && (op == CMP_EQ || op == CMP_NE)) return val_bool(op == CMP_EQ);
    if (vm_check_recursion(vm, " in comparison") < 0) return val_null();
    Value fa = type_special(vm, ta, cmp_special[op]);
    /* the reflected method is tried for operands of the same type too (a > b falls back to
     * b < a), as CPython's do_richcompare does */
    Value fb = type_special(vm, tb, cmp_special[cmp_reflect[op]]);
    Value res = val_null();
    bool tried_b = false;
    if (!val_is_null(fb) && ta != tb && type_is_subtype(tb, ta) && !val_identical(fa, fb)) {
        res = call_dunder(vm, fb, b, a);
        tried_b = true;
        if (val_is_null(res) || !is_notimpl(vm, res)) goto done;
    }
    if (!val_is_null(fa)) {
        res = call_dunder(vm, fa, a, b);
        if (val_is_null(res) || !is_notimpl(vm, res)) goto done;
    }
    if (!val_is_null(fb) && !tried_b) {
        res = call_dunder(vm, fb, b, a);
        if (val_is_null(res) || !is_notimpl(vm, res)) goto done;
    }
    if (op == CMP_EQ || op == CMP_NE) {
        bool same = val_identical(a, b);
        res = val_bool(op == CMP_EQ ? same : !same);
        goto done;
    }
    res = vm_raise(vm, vm->e_TypeError, "'%s' not supported between instances of '%s' and '%s'",
                   cmp_symbol[op], ta->name->data, tb->name->data);
done:
    vm_leave_recursion(vm);
    return res;
}

int vm_eq(VM *vm, Value a, Value b) {
    if (val_identical(a, b)) return !(a.tag == VAL_FLOAT && isnan(a.as.f));
    if (a.tag == VAL_OBJ && b.tag == VAL_OBJ && a.as.o->type == vm->t_str && b.as.o->type == vm->t_str)
        return str_eq(AS_STR(a), AS_STR(b));
    bool ok;
    bool r = num_compare(vm, a, b, CMP_EQ, &ok);
    if (ok) return r;
    Value v = vm_compare(vm, CMP_EQ, a, b);
    if (val_is_null(v)) return -1;
    if (v.tag == VAL_BOOL) return v.as.b;
    vm_push_root(vm, v);
    int t = vm_truthy(vm, v);
    vm_pop_root(vm);
    return t;
}

int vm_lt(VM *vm, Value a, Value b) {
    Value v = vm_compare(vm, CMP_LT, a, b);
    if (val_is_null(v)) return -1;
    if (v.tag == VAL_BOOL) return v.as.b;
    vm_push_root(vm, v);
    int t = vm_truthy(vm, v);
    vm_pop_root(vm);
    return t;
}

/* ---- truth, hash ------------------------------------------------------------------------- */

int vm_truthy(VM *vm, Value v) {
    switch (v.tag) {
    case VAL_BOOL: return v.as.b;
    case VAL_NONE: return 0;
    case VAL_INT: return v.as.i != 0;
    case VAL_FLOAT: return v.as.f != 0;
    case VAL_OBJ: break;
    default: return 0;
    }
    TypeObj *t = v.as.o->type;
    if (t == vm->t_str) return AS_STR(v)->len != 0;
    if (t == vm->t_list) return AS_LIST(v)->len != 0;
    if (t == vm->t_tuple) return AS_TUPLE(v)->len != 0;
    if (t == vm->t_dict) return AS_DICT(v)->used != 0;
    if (t == vm->t_int) return 1;   /* big ints are never zero */
    Value f = type_special(vm, t, SP_BOOL);
    if (!val_is_null(f)) {
        Value r = vm_call_special(vm, v, SP_BOOL, 0, NULL);
        if (val_is_null(r)) return -1;
        if (r.tag != VAL_BOOL) {
            vm_raise(vm, vm->e_TypeError, "__bool__ should return bool, returned %s", vm_type_name(vm, r));
            return -1;
        }
        return r.as.b;
    }
    f = type_special(vm, t, SP_LEN);
    if (!val_is_null(f)) {
        int64_t n = vm_len(vm, v);
        return n < 0 ? -1 : n != 0;
    }
    return 1;
}

static int hash_tuple(VM *vm, TupleObj *t, int64_t *out) {
    if (t->hash != -1) {
        *out = t->hash;
        return 0;
    }
    /* CPython 3.11's xxHash-based tuple hash, so sets of tuples iterate in CPython's order */
    const uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL, P5 = 2870177450012600261ULL;
    uint64_t acc = P5;
    for (int64_t i = 0; i < t->len; i++) {
        int64_t lane;
        if (vm_hash(vm, t->items[i], &lane) < 0) return -1;
        acc += (uint64_t)lane * P2;
        acc = (acc << 31) | (acc >> 33);
        acc *= P1;
    }
    acc += (uint64_t)t->len ^ (P5 ^ 3527539UL);
    int64_t h = acc == (uint64_t)-1 ? 1546275796 : (int64_t)acc;
    t->hash = h;
    *out = h;
    return 0;
}

int vm_hash(VM *vm, Value v, int64_t *out) {
    switch (v.tag) {
    case VAL_INT: *out = hash_int(v.as.i); return 0;
    case VAL_BOOL: *out = v.as.b; return 0;
    case VAL_FLOAT: {
        double d = v.as.f;
        if (d == floor(d) && fabs(d) < 9.2e18) *out = hash_int((int64_t)d);
        else *out = hash_double(d);
        return 0;
    }
    case VAL_NONE: *out = 0x12345678; return 0;
    case VAL_OBJ: break;
    default: *out = 0; return 0;
    }
    TypeObj *t = v.as.o->type;
    if (t == vm->t_str) { *out = str_hash(AS_STR(v)); return 0; }
    if (t == vm->t_tuple) return hash_tuple(vm, AS_TUPLE(v), out);
    if (t == vm->t_int) { *out = bigint_hash(v); return 0; }
    Value f = type_special(vm, t, SP_HASH);
    if (val_is_null(f) || val_is_none(f)) {
        if (val_is_none(f)) {
            vm_raise(vm, vm->e_TypeError, "unhashable type: '%s'", t->name->data);
            return -1;
        }
        *out = hash_pointer(v.as.o);
        return 0;
    }
    Value r = vm_call_special(vm, v, SP_HASH, 0, NULL);
    if (val_is_null(r)) return -1;
    if (!bigint_check(vm, r)) {
        vm_raise(vm, vm->e_TypeError, "__hash__ method should return an integer");
        return -1;
    }
    /* a big result is reduced as hash(int) reduces it */
    int64_t h = val_is_intobj(r) ? bigint_hash(r) : val_as_intlike(r);
    *out = h == -1 ? -2 : h;
    return 0;
}

/* ---- containers ----------------------------------------------------------------------------- */

int vm_contains(VM *vm, Value c, Value item) {
    TypeObj *t = vm_type_of(vm, c);
    if (t == vm->t_list || t == vm->t_tuple) {
        int64_t n;
        Value *items = vm_sequence_items(vm, c, &n, NULL);
        for (int64_t i = 0; i < n; i++) {
            int eq = vm_eq(vm, items[i], item);
            if (eq) return eq;
            if (t == vm->t_list) {   /* __eq__ may have shrunk the list */
                items = AS_LIST(c)->items;
                n = AS_LIST(c)->len;
            }
        }
        return 0;
    }
    if (t == vm->t_dict) {
        Value tmp;
        return dict_lookup(vm, AS_DICT(c), item, &tmp);
    }
    if (t == vm->t_str) {
        if (!val_is_str(vm, item)) {
            vm_raise(vm, vm->e_TypeError, "'in <string>' requires string as left operand, not %s",
                     vm_type_name(vm, item));
            return -1;
        }
        StrObj *h = AS_STR(c), *n = AS_STR(item);
        if (n->len == 0) return 1;
        return memmem(h->data, (size_t)h->len, n->data, (size_t)n->len) != NULL;
    }
    if (t == vm->t_set || t == vm->t_frozenset) return set_contains(vm, (SetObj *)c.as.o, item);
    if (t == vm->t_range && val_is_intlike(item) && !((RangeObj *)c.as.o)->big) {
        RangeObj *r = (RangeObj *)c.as.o;
        int64_t x = val_as_intlike(item);
        if (r->step > 0 ? (x < r->start || x >= r->stop) : (x > r->start || x <= r->stop)) return 0;
        return (x - r->start) % r->step == 0;
    }
    Value f = type_special(vm, t, SP_CONTAINS);
    if (!val_is_null(f)) {
        Value r = vm_call_special(vm, c, SP_CONTAINS, 1, &item);
        if (val_is_null(r)) return -1;
        vm_push_root(vm, r);
        int b = vm_truthy(vm, r);
        vm_pop_root(vm);
        return b;
    }
    Value it = vm_iter(vm, c);
    if (val_is_null(it)) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "argument of type '%s' is not iterable", t->name->data);
        }
        return -1;
    }
    vm_push_root(vm, it);
    int found = 0;
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) {
            if (!val_is_null(vm->exc)) found = -1;
            break;
        }
        int eq = vm_eq(vm, x, item);
        if (eq) {
            found = eq;
            break;
        }
    }
    vm_pop_root(vm);
    return found;
}

int64_t vm_len(VM *vm, Value v) {
    if (v.tag == VAL_OBJ) {
        TypeObj *t = v.as.o->type;
        if (t == vm->t_str) return AS_STR(v)->ncp;
        if (t == vm->t_list) return AS_LIST(v)->len;
        if (t == vm->t_tuple) return AS_TUPLE(v)->len;
        if (t == vm->t_dict) return AS_DICT(v)->used;
        if (t == vm->t_set || t == vm->t_frozenset) return ((SetObj *)v.as.o)->used;
        if (t == vm->t_range && !((RangeObj *)v.as.o)->big) return ((RangeObj *)v.as.o)->len;
        if (t == vm->t_bytes) return ((BytesObj *)v.as.o)->len;
        Value f = type_special(vm, t, SP_LEN);
        if (!val_is_null(f)) {
            Value r = vm_call_special(vm, v, SP_LEN, 0, NULL);
            if (val_is_null(r)) return -1;
            int64_t n;
            if (!val_is_intlike(r)) {
                if (vm_index(vm, r, &n) < 0) return -1;
            } else {
                n = val_as_intlike(r);
            }
            if (n < 0) {
                vm_raise(vm, vm->e_ValueError, "__len__() should return >= 0");
                return -1;
            }
            return n;
        }
    }
    vm_raise(vm, vm->e_TypeError, "object of type '%s' has no len()", vm_type_name(vm, v));
    return -1;
}

static Value no_items[1];

Value *vm_sequence_items(VM *vm, Value seq, int64_t *n, Value *holder) {
    if (seq.tag == VAL_OBJ) {
        TypeObj *t = seq.as.o->type;
        if (t == vm->t_tuple || t->layout == OBJ_LAYOUT_TUPLE) {
            *n = AS_TUPLE(seq)->len;
            return AS_TUPLE(seq)->items;
        }
        if (t == vm->t_list || t->layout == OBJ_LAYOUT_LIST) {
            *n = AS_LIST(seq)->len;
            return AS_LIST(seq)->items ? AS_LIST(seq)->items : no_items;
        }
    }
    if (!holder) {
        vm_raise(vm, vm->e_TypeError, "expected a list or tuple");
        return NULL;
    }
    ListObj *l = vm_list_from_iterable(vm, seq);
    if (!l) return NULL;
    *holder = val_obj(l);
    *n = l->len;
    return l->items ? l->items : no_items;
}

ListObj *vm_list_from_iterable(VM *vm, Value iterable) {
    ListObj *l = list_new(vm, 0);
    if (!l) return NULL;
    vm_push_root(vm, val_obj(l));
    int rc = list_extend(vm, l, iterable);
    vm_pop_root(vm);
    return rc < 0 ? NULL : l;
}

/* ---- item access ----------------------------------------------------------------------------- */

Value vm_getitem(VM *vm, Value c, Value key) {
    TypeObj *t = vm_type_of(vm, c);
    if (t == vm->t_list || t == vm->t_tuple || t == vm->t_str) {
        if (val_is_intlike(key)) {
            int64_t i;
            if (t == vm->t_list) {
                if (seq_index(vm, key, AS_LIST(c)->len, "list", &i) < 0) return val_null();
                return AS_LIST(c)->items[i];
            }
            if (t == vm->t_tuple) {
                if (seq_index(vm, key, AS_TUPLE(c)->len, "tuple", &i) < 0) return val_null();
                return AS_TUPLE(c)->items[i];
            }
            if (seq_index(vm, key, AS_STR(c)->ncp, "string", &i) < 0) return val_null();
            StrObj *s = str_char_at(vm, AS_STR(c), i);
            return s ? val_obj(s) : val_null();
        }
    } else if (t == vm->t_dict) {
        Value out;
        int r = dict_lookup(vm, AS_DICT(c), key, &out);
        if (r > 0) return out;
        if (r < 0) return val_null();
        return vm_raise_key_error(vm, key);
    }
    Value f = type_special(vm, t, SP_GETITEM);
    if (!val_is_null(f)) return vm_call_special(vm, c, SP_GETITEM, 1, &key);
    if (t == vm->t_type || t->layout == OBJ_LAYOUT_TYPE) {
        TypeObj *ct = AS_TYPE(c);
        Value cg = type_lookup(vm, ct, vm->special_names[SP_CLASS_GETITEM]);
        if (!val_is_null(cg)) {
            Value b = vm_bind_descriptor(vm, cg, val_null(), ct);
            if (val_is_null(b)) return b;
            vm_push_root(vm, b);
            Value r = vm_call1(vm, b, key);
            vm_pop_root(vm);
            return r;
        }
        return vm_raise(vm, vm->e_TypeError, "type '%s' is not subscriptable", ct->name->data);
    }
    return vm_raise(vm, vm->e_TypeError, "'%s' object is not subscriptable", t->name->data);
}

int vm_setitem(VM *vm, Value c, Value key, Value v) {
    TypeObj *t = vm_type_of(vm, c);
    if (t == vm->t_list && val_is_intlike(key)) {
        int64_t i;
        if (seq_index(vm, key, AS_LIST(c)->len, "list assignment", &i) < 0) return -1;
        AS_LIST(c)->items[i] = v;
        return 0;
    }
    if (t == vm->t_dict) return dict_set(vm, AS_DICT(c), key, v);
    Value f = type_special(vm, t, SP_SETITEM);
    if (!val_is_null(f)) {
        Value args[2] = {key, v};
        Value r = vm_call_special(vm, c, SP_SETITEM, 2, args);
        return val_is_null(r) ? -1 : 0;
    }
    vm_raise(vm, vm->e_TypeError, "'%s' object does not support item assignment", t->name->data);
    return -1;
}

int vm_delitem(VM *vm, Value c, Value key) {
    TypeObj *t = vm_type_of(vm, c);
    if (t == vm->t_dict) {
        int r = dict_del(vm, AS_DICT(c), key, NULL);
        if (r < 0) return -1;
        if (r == 0) {
            vm_raise_key_error(vm, key);
            return -1;
        }
        return 0;
    }
    Value f = type_special(vm, t, SP_DELITEM);
    if (!val_is_null(f)) {
        Value r = vm_call_special(vm, c, SP_DELITEM, 1, &key);
        return val_is_null(r) ? -1 : 0;
    }
    vm_raise(vm, vm->e_TypeError, "'%s' object doesn't support item deletion", t->name->data);
    return -1;
}

/* ---- iteration --------------------------------------------------------------------------------- */

Value vm_iter(VM *vm, Value v) {
    TypeObj *t = vm_type_of(vm, v);
    Value it = iter_builtin(vm, v);
    if (!val_is_null(it) || !val_is_null(vm->exc)) return it;
    if (t->layout == OBJ_LAYOUT_ITER || t == vm->t_generator) return v;
    Value f = type_special(vm, t, SP_ITER);
    if (!val_is_null(f) && !val_is_none(f)) {
        Value r = vm_call_special(vm, v, SP_ITER, 0, NULL);
        if (val_is_null(r)) return r;
        TypeObj *rt = vm_type_of(vm, r);
        if (rt->layout != OBJ_LAYOUT_ITER && rt != vm->t_generator && val_is_null(type_special(vm, rt, SP_NEXT)))
            return vm_raise(vm, vm->e_TypeError, "iter() returned non-iterator of type '%s'", rt->name->data);
        return r;
    }
    if (!val_is_null(type_special(vm, t, SP_GETITEM)) && t->layout != OBJ_LAYOUT_DICT)
        return iter_sequence(vm, v);
    return vm_raise(vm, vm->e_TypeError, "'%s' object is not iterable", t->name->data);
}

Value vm_next(VM *vm, Value it) {
    if (it.tag == VAL_OBJ) {
        TypeObj *t = it.as.o->type;
        if (t->layout == OBJ_LAYOUT_ITER) {
            IterObj *io = (IterObj *)it.as.o;
            return io->next(vm, io);
        }
        if (t == vm->t_generator) {
            bool done;
            Value ret;
            Value r = gen_resume(vm, (GenObj *)it.as.o, val_none(), val_null(), &done, &ret);
            return r;
        }
        Value f = type_special(vm, t, SP_NEXT);
        if (!val_is_null(f)) {
            Value r = vm_call_special(vm, it, SP_NEXT, 0, NULL);
            if (val_is_null(r) && vm_exc_matches(vm, vm->e_StopIteration)) vm_clear_exc(vm);
            return r;
        }
    }
    return vm_raise(vm, vm->e_TypeError, "'%s' object is not an iterator", vm_type_name(vm, it));
}

/* ---- text ----------------------------------------------------------------------------------- */

Value vm_repr(VM *vm, Value v) {
    char buf[64];
    switch (v.tag) {
    case VAL_NONE: return vm_intern(vm, "None");
    case VAL_BOOL: return vm_intern(vm, v.as.b ? "True" : "False");
    case VAL_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)v.as.i);
        break;
    case VAL_FLOAT:
        float_repr(v.as.f, buf, sizeof buf);
        break;
    case VAL_OBJ: break;
    default: return vm_intern(vm, "<NULL>");
    }
    if (v.tag != VAL_OBJ) {
        StrObj *s = str_from_c(vm, buf);
        return s ? val_obj(s) : val_null();
    }
    TypeObj *t = v.as.o->type;
    if (t == vm->t_str) {
        StrObj *s = str_repr(vm, AS_STR(v));
        return s ? val_obj(s) : val_null();
    }
    if (t == vm->t_int) {
        StrObj *s = bigint_to_str(vm, v, 10);
        return s ? val_obj(s) : val_null();
    }
    if (vm_check_recursion(vm, " while getting the repr of an object") < 0) return val_null();
    Value r = vm_call_special(vm, v, SP_REPR, 0, NULL);
    vm_leave_recursion(vm);
    if (!val_is_null(r) && !val_is_str(vm, r) && !vm_isinstance_type(vm, r, vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "__repr__ returned non-string (type %s)", vm_type_name(vm, r));
    return r;
}

Value vm_str(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return vm_repr(vm, v);
    TypeObj *t = v.as.o->type;
    if (t == vm->t_str) return v;
    if (vm_check_recursion(vm, " while getting the str of an object") < 0) return val_null();
    Value r = vm_call_special(vm, v, SP_STR, 0, NULL);
    vm_leave_recursion(vm);
    if (!val_is_null(r) && !vm_isinstance_type(vm, r, vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "__str__ returned non-string (type %s)", vm_type_name(vm, r));
    return r;
}

Value vm_ascii(VM *vm, Value v) {
    Value r = vm_repr(vm, v);
    if (val_is_null(r)) return r;
    StrObj *s = AS_STR(r);
    if (str_is_ascii(s)) return r;
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    while (pos < s->len) {
        uint32_t c = utf8_decode(s->data, s->len, &pos);
        if (c < 0x80) sb_addc(&b, (char)c);
        else if (c < 0x100) sb_printf(&b, "\\x%02x", c);
        else if (c < 0x10000) sb_printf(&b, "\\u%04x", c);
        else sb_printf(&b, "\\U%08x", c);
    }
    StrObj *o = sb_finish(vm, &b);
    return o ? val_obj(o) : val_null();
}

Value vm_format(VM *vm, Value v, Value spec) {
    StrObj *sp = val_is_null(spec) ? vm->empty_str : AS_STR(spec);
    switch (v.tag) {
    case VAL_INT: return format_int(vm, v, sp);
    case VAL_FLOAT: return format_float(vm, v.as.f, sp);
    case VAL_BOOL:
        if (sp->len == 0) return vm_repr(vm, v);
        return format_int(vm, v, sp);
    default: break;
    }
    if (val_is_type(vm, v, vm->t_int)) return format_int(vm, v, sp);
    if (val_is_type(vm, v, vm->t_str)) return format_str(vm, AS_STR(v), sp);
    Value f = type_special(vm, vm_type_of(vm, v), SP_FORMAT);
    if (val_is_null(f)) {
        if (sp->len) return vm_raise(vm, vm->e_TypeError, "unsupported format string passed to %s.__format__", vm_type_name(vm, v));
        return vm_str(vm, v);
    }
    Value arg = val_obj(sp);
    Value r = vm_call_special(vm, v, SP_FORMAT, 1, &arg);
    if (!val_is_null(r) && !vm_isinstance_type(vm, r, vm->t_str))
        return vm_raise(vm, vm->e_TypeError, "__format__ must return a str, not %s", vm_type_name(vm, r));
    return r;
}

/* An int as an index-sized integer (CPython's PyNumber_AsSsize_t with OverflowError). */
static int index_of_int(VM *vm, Value v, int64_t *out) {
    if (!val_is_intobj(v)) {
        *out = val_as_intlike(v);
        return 0;
    }
    if (!mpz_fits_slong_p(AS_INTOBJ(v)->z)) {
        vm_raise(vm, vm->e_OverflowError, "cannot fit '%s' into an index-sized integer", vm_type_name(vm, v));
        return -1;
    }
    *out = mpz_get_si(AS_INTOBJ(v)->z);
    return 0;
}

int vm_index(VM *vm, Value v, int64_t *out) {
    if (val_is_intlike(v)) {
        *out = val_as_intlike(v);
        return 0;
    }
    if (val_is_type(vm, v, vm->t_int)) return index_of_int(vm, v, out);
    Value f = type_special(vm, vm_type_of(vm, v), SP_INDEX);
    if (!val_is_null(f)) {
        Value r = vm_call_special(vm, v, SP_INDEX, 0, NULL);
        if (val_is_null(r)) return -1;
        if (!bigint_check(vm, r)) {
            vm_raise(vm, vm->e_TypeError, "__index__ returned non-int (type %s)", vm_type_name(vm, r));
            return -1;
        }
        return index_of_int(vm, r, out);
    }
    vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
    return -1;
}

int vm_to_double(VM *vm, Value v, double *out) {
    if (val_is_number(v)) {
        *out = val_as_double(v);
        return 0;
    }
    if (val_is_type(vm, v, vm->t_int)) return bigint_to_double(vm, v, out);
    Value f = type_special(vm, vm_type_of(vm, v), SP_FLOAT);
    if (!val_is_null(f)) {
        Value r = vm_call_special(vm, v, SP_FLOAT, 0, NULL);
        if (val_is_null(r)) return -1;
        if (r.tag == VAL_FLOAT) {
            *out = r.as.f;
            return 0;
        }
        if (val_is_obj(r) && r.as.o->type->layout == OBJ_LAYOUT_FLOAT) {
            *out = ((FloatObj *)r.as.o)->v;
            return 0;
        }
        vm_raise(vm, vm->e_TypeError, "%s.__float__ returned non-float (type %s)", vm_type_name(vm, v),
                 vm_type_name(vm, r));
        return -1;
    }
    f = type_special(vm, vm_type_of(vm, v), SP_INDEX);
    if (!val_is_null(f)) {
        mpz_t z;
        mpz_init(z);
        int rc = bigint_index_mpz(vm, v, z);
        if (rc == 0) rc = bigint_mpz_to_double(vm, z, out);
        mpz_clear(z);
        return rc;
    }
    vm_raise(vm, vm->e_TypeError, "must be real number, not %s", vm_type_name(vm, v));
    return -1;
}

bool vm_is_callable(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return false;
    TypeObj *t = v.as.o->type;
    if (t == vm->t_function || t == vm->t_method || t->layout == OBJ_LAYOUT_NATIVE ||
        t->layout == OBJ_LAYOUT_TYPE)
        return true;
    return !val_is_null(type_special(vm, t, SP_CALL));
}
