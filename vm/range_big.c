/* vm/range_big.c — range objects whose bounds or length do not fit int64 (CPython's ranges take
 * any int: _collections_abc.py makes `iter(range(1 << 1000))` at import time).
 *
 * A range keeps int64 start/stop/step/len (vm/seq.c, the fast path every loop uses) unless a
 * bound, the length, or the value one step past either end does not fit; then RangeObj.big holds
 * the four as int values (start, stop, step, len) and r->len is the length when it fits int64,
 * else -1 (len() raises OverflowError, as CPython's "Python int too large to convert to C
 * ssize_t").  Every operation of a big range goes through GMP here; its iterators are
 * `longrange_iterator`s holding the next value, the step and the count left as int values. */
#include <gmp.h>

#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/seq.h"
#include "vm/str.h"

enum { B_START, B_STOP, B_STEP, B_LEN };

static void big_part(RangeObj *r, int i, mpz_t out) { bigint_load(r->big->items[i], out); }

/* length of range(start, stop, step) (step != 0) */
static void range_len_mpz(mpz_t len, const mpz_t start, const mpz_t stop, const mpz_t step) {
    mpz_t d;
    mpz_init(d);
    if (mpz_sgn(step) > 0 && mpz_cmp(stop, start) > 0) {
        mpz_sub(d, stop, start);
        mpz_sub_ui(d, d, 1);
        mpz_fdiv_q(len, d, step);
        mpz_add_ui(len, len, 1);
    } else if (mpz_sgn(step) < 0 && mpz_cmp(start, stop) > 0) {
        mpz_sub(d, start, stop);
        mpz_sub_ui(d, d, 1);
        mpz_neg(len, step);
        mpz_fdiv_q(len, d, len);
        mpz_add_ui(len, len, 1);
    } else {
        mpz_set_ui(len, 0);
    }
    mpz_clear(d);
}

static bool fits(const mpz_t z) { return mpz_fits_slong_p(z) && sizeof(long) == sizeof(int64_t); }

/* Whether the int64 representation serves (CPython's test for a fast range_iterator): every
 * bound and the length fit, and the forward iterator's value one step past the last cannot
 * overflow (stop + step - 1 fits).  reversed() checks its own end (range_reversed_fits). */
static bool small_ok(const mpz_t start, const mpz_t stop, const mpz_t step, const mpz_t len) {
    if (!fits(start) || !fits(stop) || !fits(step) || !fits(len)) return false;
    int64_t b = mpz_get_si(stop), s = mpz_get_si(step), t;
    return mpz_sgn(len) == 0 || !__builtin_add_overflow(b, s > 0 ? s - 1 : s + 1, &t);
}

bool range_reversed_fits(RangeObj *r) {
    int64_t t;
    return !r->big && r->step != INT64_MIN && !__builtin_sub_overflow(r->start, r->step, &t);
}

static Value range_from_mpz(VM *vm, const mpz_t start, const mpz_t stop, const mpz_t step) {
    mpz_t len;
    mpz_init(len);
    range_len_mpz(len, start, stop, step);
    if (small_ok(start, stop, step, len)) {
        mpz_clear(len);
        return range_new(vm, mpz_get_si(start), mpz_get_si(stop), mpz_get_si(step));
    }
    TupleObj *t = tuple_new(vm, 4);
    Value r = val_null();
    if (!t) goto done;
    vm_push_root(vm, val_obj(t));
    const mpz_srcptr parts[4] = {start, stop, step, len};
    for (int i = 0; i < 4; i++) {
        Value v = bigint_from_mpz(vm, parts[i]);
        if (val_is_null(v)) goto popped;
        t->items[i] = v;
    }
    r = range_new(vm, 0, 0, 1);
    if (!val_is_null(r)) {
        RangeObj *ro = (RangeObj *)r.as.o;
        ro->big = t;
        ro->len = fits(len) ? mpz_get_si(len) : -1;
    }
popped:
    vm_pop_root(vm);
done:
    mpz_clear(len);
    return r;
}

Value range_new_values(VM *vm, Value start, Value stop, Value step) {
    if (start.tag == VAL_INT && stop.tag == VAL_INT && step.tag == VAL_INT) {
        int64_t a = start.as.i, b = stop.as.i, s = step.as.i, n = 0, t;
        /* the int64 fast path when nothing overflows (see small_ok) */
        if (s > 0 && b > a) n = (int64_t)(((uint64_t)b - (uint64_t)a - 1) / (uint64_t)s + 1);
        else if (s < 0 && a > b) n = (int64_t)(((uint64_t)a - (uint64_t)b - 1) / ((uint64_t)0 - (uint64_t)s) + 1);
        if (n >= 0 && (n == 0 || !__builtin_add_overflow(b, s > 0 ? s - 1 : s + 1, &t)))
            return range_new(vm, a, b, s);
    }
    mpz_t a, b, s;
    mpz_inits(a, b, s, NULL);
    bigint_load(start, a);
    bigint_load(stop, b);
    bigint_load(step, s);
    Value r = range_from_mpz(vm, a, b, s);
    mpz_clears(a, b, s, NULL);
    return r;
}

Value range_get_part(VM *vm, RangeObj *r, int which) {
    if (r->big) return r->big->items[which];
    return val_int(which == 0 ? r->start : which == 1 ? r->stop : r->step);
}

Value range_big_len(VM *vm, RangeObj *r) {
    if (r->len >= 0) return val_int(r->len);
    return vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C ssize_t");
}

/* start + i * step */
static Value item_at(VM *vm, RangeObj *r, const mpz_t i) {
    mpz_t v, t;
    mpz_inits(v, t, NULL);
    big_part(r, B_START, v);
    big_part(r, B_STEP, t);
    mpz_addmul(v, t, i);
    Value res = bigint_from_mpz(vm, v);
    mpz_clears(v, t, NULL);
    return res;
}

/* a slice's start/stop/step clamped to a sequence of length len (CPython's
 * _PySlice_GetLongIndices), in mpz */
static int slice_indices_mpz(VM *vm, SliceObj *sl, const mpz_t len, mpz_t start, mpz_t stop, mpz_t step) {
    if (val_is_none(sl->step)) mpz_set_ui(step, 1);
    else if (bigint_index_mpz(vm, sl->step, step) < 0) return -1;
    if (mpz_sgn(step) == 0) {
        vm_raise(vm, vm->e_ValueError, "slice step cannot be zero");
        return -1;
    }
    bool neg = mpz_sgn(step) < 0;
    mpz_t lower, upper;
    mpz_inits(lower, upper, NULL);
    if (neg) {
        mpz_set_si(lower, -1);
        mpz_sub_ui(upper, len, 1);
    } else {
        mpz_set_ui(lower, 0);
        mpz_set(upper, len);
    }
    Value ends[2] = {sl->start, sl->stop};
    mpz_ptr outs[2] = {start, stop};
    for (int k = 0; k < 2; k++) {
        if (val_is_none(ends[k])) {
            /* start defaults to the first element in the step's direction, stop past the last */
            mpz_set(outs[k], (k == 0) == neg ? upper : lower);
            continue;
        }
        if (bigint_index_mpz(vm, ends[k], outs[k]) < 0) {
            mpz_clears(lower, upper, NULL);
            return -1;
        }
        if (mpz_sgn(outs[k]) < 0) {
            mpz_add(outs[k], outs[k], len);
            if (mpz_cmp(outs[k], lower) < 0) mpz_set(outs[k], lower);
        } else if (mpz_cmp(outs[k], upper) > 0) {
            mpz_set(outs[k], upper);
        }
    }
    mpz_clears(lower, upper, NULL);
    return 0;
}

Value range_big_getitem(VM *vm, RangeObj *r, Value key) {
    mpz_t len, i;
    mpz_inits(len, i, NULL);
    Value res = val_null();
    if (r->big) big_part(r, B_LEN, len);
    else mpz_set_si(len, r->len);
    if (key.tag == VAL_OBJ && key.as.o->type == vm->t_slice) {
        mpz_t a, b, s, start, step, t;
        mpz_inits(a, b, s, start, step, t, NULL);
        if (slice_indices_mpz(vm, (SliceObj *)key.as.o, len, a, b, s) == 0) {
            /* range(start + a*step, start + b*step, s*step) */
            if (r->big) {
                big_part(r, B_START, start);
                big_part(r, B_STEP, step);
            } else {
                mpz_set_si(start, r->start);
                mpz_set_si(step, r->step);
            }
            mpz_mul(t, a, step);
            mpz_add(a, start, t);
            mpz_mul(t, b, step);
            mpz_add(b, start, t);
            mpz_mul(s, s, step);
            res = range_from_mpz(vm, a, b, s);
        }
        mpz_clears(a, b, s, start, step, t, NULL);
    } else if (bigint_index_mpz(vm, key, i) == 0) {
        if (mpz_sgn(i) < 0) mpz_add(i, i, len);
        if (mpz_sgn(i) < 0 || mpz_cmp(i, len) >= 0) {
            vm_raise(vm, vm->e_IndexError, "range object index out of range");
        } else if (r->big) {
            res = item_at(vm, r, i);
        } else {
            res = val_int(r->start + mpz_get_si(i) * r->step);
        }
    } else if (vm_exc_matches(vm, vm->e_TypeError)) {
        vm_clear_exc(vm);
        vm_raise(vm, vm->e_TypeError, "range indices must be integers or slices, not %s", vm_type_name(vm, key));
    }
    mpz_clears(len, i, NULL);
    return res;
}

/* x in r for an int x: 1/0 */
int range_big_contains_int(VM *vm, RangeObj *r, Value x) {
    mpz_t v, start, stop, step, t;
    mpz_inits(v, start, stop, step, t, NULL);
    bigint_load(x, v);
    for (int i = 0; i < 3; i++) bigint_load(range_get_part(vm, r, i), i == 0 ? start : i == 1 ? stop : step);
    int in;
    if (mpz_sgn(step) > 0) in = mpz_cmp(v, start) >= 0 && mpz_cmp(v, stop) < 0;
    else in = mpz_cmp(v, start) <= 0 && mpz_cmp(v, stop) > 0;
    if (in) {
        mpz_sub(t, v, start);
        in = mpz_divisible_p(t, step);
    }
    mpz_clears(v, start, stop, step, t, NULL);
    return in;
}

/* (x - start) // step for an x known to be in r */
Value range_big_index_of(VM *vm, RangeObj *r, Value x) {
    mpz_t v, start, step;
    mpz_inits(v, start, step, NULL);
    bigint_load(x, v);
    bigint_load(range_get_part(vm, r, 0), start);
    bigint_load(range_get_part(vm, r, 2), step);
    mpz_sub(v, v, start);
    mpz_divexact(v, v, step);
    Value res = bigint_from_mpz(vm, v);
    mpz_clears(v, start, step, NULL);
    return res;
}

/* ---- longrange_iterator --------------------------------------------------------------------- */

/* a: next value, b: step, c: how many are left (int values) */
static Value longrange_next(VM *vm, IterObj *it) {
    if (!bigint_truthy(it->c)) return val_null();
    mpz_t v, s;
    mpz_inits(v, s, NULL);
    Value cur = it->a;
    bigint_load(cur, v);
    bigint_load(it->b, s);
    mpz_add(v, v, s);
    vm_push_root(vm, cur);
    Value next = bigint_from_mpz(vm, v);
    Value left = val_null();
    if (!val_is_null(next)) {
        it->a = next;
        bigint_load(it->c, v);
        mpz_sub_ui(v, v, 1);
        left = bigint_from_mpz(vm, v);
        if (!val_is_null(left)) it->c = left;
    }
    vm_pop_root(vm);
    mpz_clears(v, s, NULL);
    return val_is_null(left) ? val_null() : cur;
}

Value range_big_iter(VM *vm, RangeObj *r, bool reversed) {
    Value start = range_get_part(vm, r, 0), step = range_get_part(vm, r, 2);
    Value len = r->big ? r->big->items[B_LEN] : val_int(r->len);
    if (reversed) {
        /* from the last element, stepping back: start + (len - 1) * step, -step */
        mpz_t a, s, n;
        mpz_inits(a, s, n, NULL);
        bigint_load(start, a);
        bigint_load(step, s);
        bigint_load(len, n);
        if (mpz_sgn(n) > 0) mpz_sub_ui(n, n, 1);
        mpz_addmul(a, n, s);
        mpz_neg(s, s);
        start = bigint_from_mpz(vm, a);
        vm_push_root(vm, start);
        step = bigint_from_mpz(vm, s);
        vm_pop_root(vm);
        mpz_clears(a, s, n, NULL);
        if (val_is_null(start) || val_is_null(step)) return val_null();
    }
    vm_push_root(vm, start);
    vm_push_root(vm, step);
    Value it = iter_new(vm, longrange_next, start, step, 0, 0);
    vm_pop_roots(vm, 2);
    if (!val_is_null(it)) {
        it.as.o->type = vm->t_longrange_iterator;
        ((IterObj *)it.as.o)->c = len;
    }
    return it;
}
