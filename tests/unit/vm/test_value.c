/* tests/unit/vm/test_value.c — values and the hashes scripts can observe: int, float and tuple
 * hashes equal CPython 3.11's (so dict and set behaviour agrees), the iteration order of sets
 * of ints equals CPython's, identity of values, float repr round trips. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/vm/support.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

static VM *vm;
static void setup(void) { vm = t_vm_new(); }
static void teardown(void) { t_vm_free(vm); }

TestSuite(value, .init = setup, .fini = teardown);

static int64_t hash_of(Value v) {
    int64_t h;
    cr_assert_eq(vm_hash(vm, v, &h), 0);
    return h;
}

/* hash(v) in CPython 3.11 (64-bit) */
Test(value, int_hashes_match_cpython) {
    static const struct { int64_t v, h; } cases[] = {
        {0, 0}, {1, 1}, {-1, -2}, {-2, -2}, {2305843009213693950LL, 2305843009213693950LL},
        {2305843009213693951LL, 0}, {2305843009213693952LL, 1}, {4611686018427387904LL, 2},
        {-4611686018427387904LL, -2}, {INT64_MAX, 3}, {INT64_MIN, -4}, {123456789, 123456789},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(hash_of(val_int(cases[i].v)), cases[i].h, "hash(%lld)", (long long)cases[i].v);
    cr_expect_eq(hash_of(val_bool(true)), 1);
    cr_expect_eq(hash_of(val_bool(false)), 0);
}

Test(value, float_hashes_match_cpython) {
    static const struct { double v; int64_t h; } cases[] = {
        {0.0, 0}, {-0.0, 0}, {1.5, 1152921504606846977LL}, {-0.5, -1152921504606846976LL},
        {0.1, 230584300921369408LL}, {1e100, 1822893315824342674LL}, {-1e-100, -1735222877707689105LL},
        {INFINITY, 314159}, {-INFINITY, -314159}, {3.0, 3}, {2.5e10, 25000000000LL}, {1e308, 156575653125701LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(hash_of(val_float(cases[i].v)), cases[i].h, "hash(%r)", cases[i].v);
    /* numbers that compare equal hash equal */
    cr_expect_eq(hash_of(val_float(7.0)), hash_of(val_int(7)));
}

Test(value, tuple_hashes_match_cpython) {
    TupleObj *empty = tuple_new(vm, 0);
    cr_expect_eq(hash_of(val_obj(empty)), 5740354900026072187LL);
    TupleObj *one = tuple_pack(vm, 1, val_int(1));
    vm_push_root(vm, val_obj(one));
    cr_expect_eq(hash_of(val_obj(one)), -6644214454873602895LL);
    TupleObj *three = tuple_pack(vm, 3, val_int(1), val_int(2), val_int(3));
    vm_push_root(vm, val_obj(three));
    cr_expect_eq(hash_of(val_obj(three)), 529344067295497451LL);
    TupleObj *inner = tuple_pack(vm, 2, val_int(2), val_int(3));
    vm_push_root(vm, val_obj(inner));
    TupleObj *nested = tuple_pack(vm, 2, val_int(1), val_obj(inner));
    vm_push_root(vm, val_obj(nested));
    cr_expect_eq(hash_of(val_obj(nested)), 7267574591690527098LL);
    TupleObj *mixed = tuple_pack(vm, 2, val_float(1.5), val_int(-1));
    vm_push_root(vm, val_obj(mixed));
    cr_expect_eq(hash_of(val_obj(mixed)), -9002791676578425913LL);
}

/* Iteration order of sets of ints: list({...}) in CPython 3.11. */
static void expect_set_order(const char *literal, const char *expected) {
    char src[512];
    snprintf(src, sizeof src, "order = repr(list(%s))\n", literal);
    t_run(vm, src);
    Value r = t_global(vm, "order");
    cr_expect_str_eq(AS_STR(r)->data, expected, "list(%s)", literal);
}

Test(value, set_iteration_order_matches_cpython) {
    expect_set_order("{5, 3, 17, 33, 1, 9, 100, 64, 8, 1099511627776, -7}", "[64, 1, 33, 3, 100, 5, 1099511627776, 8, 9, 17, -7]");
    expect_set_order("{-1, -2, 7, 1000000, 31, 63, 15}", "[1000000, -2, 7, 31, 63, -1, 15]");
    t_run(vm, "s = set(range(0, 200, 7))\ns.discard(14)\ns.add(1000)\norder = repr(list(s))\n");
    cr_expect_str_eq(AS_STR(t_global(vm, "order"))->data,
                     "[0, 133, 7, 140, 147, 21, 154, 28, 161, 35, 168, 42, 175, 49, 182, 56, 189, 63, 196, 70, "
                     "77, 84, 91, 98, 1000, 105, 112, 119, 126]");
}

Test(value, identity_and_equality) {
    cr_assert(val_identical(val_int(5), val_int(5)));
    cr_assert(!val_identical(val_int(1), val_float(1.0)));
    cr_assert(!val_identical(val_int(1), val_bool(true)));
    cr_assert(val_identical(val_none(), val_none()));
    cr_assert_eq(vm_eq(vm, val_int(1), val_float(1.0)), 1);
    cr_assert_eq(vm_eq(vm, val_int(1), val_bool(true)), 1);
    cr_assert_eq(vm_eq(vm, val_float(NAN), val_float(NAN)), 0);
    Value nan = val_float(NAN);
    cr_assert_eq(vm_eq(vm, nan, nan), 0, "the same NaN value is still not equal to itself");
}

Test(value, float_repr_round_trips) {
    static const double xs[] = {0.1, 1.0 / 3, 1e16, 1e-5, 5e-324, 1.7976931348623157e308, 123456.789, 2.0 / 3};
    static const char *const want[] = {"0.1", "0.3333333333333333", "1e+16", "1e-05", "5e-324",
                                       "1.7976931348623157e+308", "123456.789", "0.6666666666666666"};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char buf[64];
        float_repr(xs[i], buf, sizeof buf);
        cr_expect_str_eq(buf, want[i]);
        cr_expect_eq(strtod(buf, NULL), xs[i]);
    }
}

Test(value, dict_keeps_insertion_order_through_deletes) {
    DictObj *d = dict_new(vm);
    vm_push_root(vm, val_obj(d));
    for (int i = 0; i < 50; i++) cr_assert_eq(dict_set(vm, d, val_int(i * 37 % 50), val_int(i)), 0);
    for (int i = 0; i < 50; i += 2) cr_assert_eq(dict_del(vm, d, val_int(i * 37 % 50), NULL), 1);
    int64_t pos = 0, expect = 1;
    Value k, v;
    while (dict_next(d, &pos, &k, &v)) {
        cr_assert_eq(v.as.i, expect);
        cr_assert_eq(k.as.i, expect * 37 % 50);
        expect += 2;
    }
    cr_assert_eq(expect, 51);
}
