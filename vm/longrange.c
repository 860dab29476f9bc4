/* vm/longrange.c — ranges whose bounds do not fit int64.  CPython's range takes any int; Ember's
 * RangeObj keeps int64 fields for the common case (loops stay unboxed) and, when a bound or the
 * length does not fit, RangeObj.big = (start, stop, step, len) as int Values and the methods
 * below answer with GMP arithmetic.  Their iterator is CPython's longrange_iterator (an IterObj:
 * a = next value, b = step, c = stop); _collections_abc registers type(iter(range(1 << 1000))). */
#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

static Value big_item(RangeObj *r, int i) { return r->big->items[i]; }

/* range(start, stop, step) with any int arguments; step already checked nonzero. */
Value longrange_new(VM *vm, const mpz_t start, const mpz_t stop, const mpz_t step) {
    mpz_t len;
    mpz_init(len);
    /* len = (stop - start - sign(step)) // step + 1 when nonempty, else 0 */
    if (mpz_sgn(step) > 0 ? mpz_cmp(stop, start) > 0 : mpz_cmp(start, stop) > 0) {
        mpz_sub(len, stop, start);
        if (mpz_sgn(step) > 0) mpz_sub_ui(len, len, 1);
        else mpz_add_ui(len, len, 1);
        mpz_tdiv_q(len, len, step);
        mpz_add_ui(len, len, 1);
    }
    if (mpz_fits_slong_p(start) && mpz_fits_slong_p(stop) && mpz_fits_slong_p(step) && mpz_fits_slong_p(len)) {
        mpz_clear(len);
        return range_new(vm, mpz_get_si(start), mpz_get_si(stop), mpz_get_si(step));
    }
    Value v[4] = {bigint_from_mpz(vm, start), val_null(), val_null(), val_null()};
    int rooted = 0;
    mpz_srcptr rest[3] = {stop, step, len};
    for (int i = 0; i < 4; i++) {
        if (i) v[i] = bigint_from_mpz(vm, rest[i - 1]);
        if (val_is_null(v[i])) break;
        vm_push_root(vm, v[i]);
        rooted++;
    }
    mpz_clear(len);
    TupleObj *t = rooted == 4 ? tuple_from_array(vm, v, 4) : NULL;
    if (!t) {
        vm_pop_roots(vm, rooted);
        return val_null();
    }
    vm_push_root(vm, val_obj(t));
    RangeObj *r = gc_alloc(vm, vm->t_range, sizeof(RangeObj));
    vm_pop_roots(vm, rooted + 1);
    if (!r) return val_null();
    r->big = t;
    return val_obj(r);
}

Value longrange_start(RangeObj *r) { return big_item(r, 0); }
Value longrange_stop(RangeObj *r) { return big_item(r, 1); }
Value longrange_step(RangeObj *r) { return big_item(r, 2); }
Value longrange_len_value(RangeObj *r) { return big_item(r, 3); }

int64_t longrange_len(VM *vm, RangeObj *r) {
    Value n = big_item(r, 3);
    if (val_is_int(n)) return n.as.i;
    vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C ssize_t");
    return -1;
}

Value longrange_repr(VM *vm, RangeObj *r) {
    StrBuf sb;
    sb_init(&sb);
    sb_adds(&sb, "range(");
    int n = val_is_int(big_item(r, 2)) && big_item(r, 2).as.i == 1 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        Value s = vm_repr(vm, big_item(r, i));
        if (val_is_null(s)) {
            sb_free(&sb);
            return s;
        }
        if (i) sb_adds(&sb, ", ");
        sb_add_str(&sb, AS_STR(s));
    }
    sb_addc(&sb, ')');
    StrObj *o = sb_finish(vm, &sb);
    return o ? val_obj(o) : val_null();
}

/* 1 if x (an int) is in r, else 0. */
int longrange_contains(VM *vm, RangeObj *r, Value x) {
    mpz_t a, lo, hi, st;
    mpz_inits(a, lo, hi, st, NULL);
    bigint_load(x, a);
    bigint_load(big_item(r, 0), lo);
    bigint_load(big_item(r, 1), hi);
    bigint_load(big_item(r, 2), st);
    int in = mpz_sgn(st) > 0 ? mpz_cmp(a, lo) >= 0 && mpz_cmp(a, hi) < 0 : mpz_cmp(a, lo) <= 0 && mpz_cmp(a, hi) > 0;
    if (in) {
        mpz_sub(a, a, lo);
        in = mpz_divisible_p(a, st) != 0;
    }
    mpz_clears(a, lo, hi, st, NULL);
    return in;
}

/* r.index(x) for an int x known to be in r. */
Value longrange_index(VM *vm, RangeObj *r, Value x) {
    mpz_t a, lo, st;
    mpz_inits(a, lo, st, NULL);
    bigint_load(x, a);
    bigint_load(big_item(r, 0), lo);
    bigint_load(big_item(r, 2), st);
    mpz_sub(a, a, lo);
    mpz_tdiv_q(a, a, st);
    Value v = bigint_from_mpz(vm, a);
    mpz_clears(a, lo, st, NULL);
    return v;
}

/* r[i] for an index (any int, negative from the end); IndexError outside. */
Value longrange_item(VM *vm, RangeObj *r, Value key) {
    mpz_t i, n, v;
    mpz_inits(i, n, v, NULL);
    Value res = val_null();
    if (bigint_index_mpz(vm, key, i) < 0) goto out;
    bigint_load(big_item(r, 3), n);
    if (mpz_sgn(i) < 0) mpz_add(i, i, n);
    if (mpz_sgn(i) < 0 || mpz_cmp(i, n) >= 0) {
        vm_raise(vm, vm->e_IndexError, "range object index out of range");
        goto out;
    }
    bigint_load(big_item(r, 2), v);
    mpz_mul(v, v, i);
    bigint_load(big_item(r, 0), i);
    mpz_add(v, v, i);
    res = bigint_from_mpz(vm, v);
out:
    mpz_clears(i, n, v, NULL);
    return res;
}

/* range equality: same length, and (when nonempty) same start, and (when longer than one) same step. */
int longrange_eq(VM *vm, RangeObj *a, RangeObj *b) {
    Value x[3], y[3];
    RangeObj *rs[2] = {a, b};
    Value *out[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        RangeObj *r = rs[k];
        if (r->big) {
            out[k][0] = big_item(r, 3);
            out[k][1] = big_item(r, 0);
            out[k][2] = big_item(r, 2);
        } else {
            out[k][0] = val_int(r->len);
            out[k][1] = val_int(r->start);
            out[k][2] = val_int(r->step);
        }
    }
    for (int i = 0; i < 3; i++) {
        int eq = vm_eq(vm, x[i], y[i]);
        if (eq <= 0) return eq;
        /* an empty range ends the comparison after the length, a one-item one after the start */
        if (val_is_int(x[0]) && x[0].as.i <= i) return 1;
    }
    return 1;
}

Value longrange_iter_next(VM *vm, IterObj *it) {
    mpz_t cur, step, stop;
    mpz_inits(cur, step, stop, NULL);
    bigint_load(it->a, cur);
    bigint_load(it->b, step);
    bigint_load(it->c, stop);
    Value res = val_null();
    if (mpz_sgn(step) > 0 ? mpz_cmp(cur, stop) < 0 : mpz_cmp(cur, stop) > 0) {
        mpz_add(cur, cur, step);
        Value next = bigint_from_mpz(vm, cur);
        if (!val_is_null(next)) {
            res = it->a;
            it->a = next;
        }
    }
    mpz_clears(cur, step, stop, NULL);
    return res;
}

/* iter(r), or reversed(r): start at the last item, step back, stop one step before the first. */
Value longrange_iter(VM *vm, RangeObj *r, bool reversed) {
    if (!reversed) {
        Value it = iter_new(vm, longrange_iter_next, big_item(r, 0), big_item(r, 2), 0, 0);
        if (!val_is_null(it)) ((IterObj *)it.as.o)->c = big_item(r, 1);
        return it;
    }
    mpz_t first, last, step, n;
    mpz_inits(first, last, step, n, NULL);
    bigint_load(big_item(r, 0), first);
    bigint_load(big_item(r, 2), step);
    bigint_load(big_item(r, 3), n);
    Value res = val_null();
    if (mpz_sgn(n) == 0) {
        mpz_set(last, first);
        mpz_add(first, first, step);   /* empty: stop where it starts */
    } else {
        mpz_sub_ui(n, n, 1);
        mpz_mul(last, n, step);
        mpz_add(last, last, first);
    }
    mpz_sub(first, first, step);   /* the reversed iterator's stop: one step before the first */
    mpz_neg(step, step);
    Value v[3] = {bigint_from_mpz(vm, last), val_null(), val_null()};
    if (!val_is_null(v[0])) {
        vm_push_root(vm, v[0]);
        v[1] = bigint_from_mpz(vm, step);
        if (!val_is_null(v[1])) {
            vm_push_root(vm, v[1]);
            v[2] = bigint_from_mpz(vm, first);
            if (!val_is_null(v[2])) {
                vm_push_root(vm, v[2]);
                res = iter_new(vm, longrange_iter_next, v[0], v[1], 0, 0);
                if (!val_is_null(res)) ((IterObj *)res.as.o)->c = v[2];
                vm_pop_root(vm);
            }
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
    }
    mpz_clears(first, last, step, n, NULL);
    return res;
}

void longrange_trace(VM *vm, Obj *o) {
    RangeObj *r = (RangeObj *)o;
    if (r->big) gc_mark_obj(vm, (Obj *)r->big);
}
