/* tensor_test.h — helpers shared by the tensor/autograd Criterion suites: building tensors
 * from literals, comparing against expected values, and a fixture that fails a test which
 * leaves tensors alive (refcount-level leak check, on top of LeakSanitizer). */
#ifndef EMBER_TESTS_SUPPORT_TENSOR_TEST_H
#define EMBER_TESTS_SUPPORT_TENSOR_TEST_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* TT(((int64_t[]){2, 3}), ((float[]){...})) */
#define TT(shape, data) tt_new(NELEM(shape), shape, data, NELEM(data))
#define TTG(shape, data) tt_grad(TT(shape, data))
#define TI(shape, data) tt_new_i64(NELEM(shape), shape, data, NELEM(data))

static inline Tensor *tt_new(int nd, const int64_t *shape, const float *data, int n) {
    Tensor *t = tensor_from_f32(nd, shape, data);
    cr_assert(t, "tensor_from_f32: %s", tensor_error_message());
    cr_assert_eq(tensor_numel(t), n, "literal has %d values for %lld elements", n, (long long)tensor_numel(t));
    return t;
}

static inline Tensor *tt_new_i64(int nd, const int64_t *shape, const int64_t *data, int n) {
    Tensor *t = tensor_from_i64(nd, shape, data);
    cr_assert(t, "tensor_from_i64: %s", tensor_error_message());
    cr_assert_eq(tensor_numel(t), n);
    return t;
}

static inline Tensor *tt_grad(Tensor *t) {
    cr_assert_eq(ag_set_requires_grad(t, true), 0, "%s", tensor_error_message());
    return t;
}

/* non-NULL or fail with the pending error */
static inline Tensor *tt_ok(Tensor *t) {
    cr_assert(t, "unexpected error: %s: %s", tensor_error_kind_name(tensor_error_kind()), tensor_error_message());
    return t;
}

static inline void tt_expect_shape(const Tensor *t, int nd, const int64_t *shape) {
    cr_assert(t, "tensor is NULL (%s)", tensor_error_message());
    cr_assert_eq(tensor_ndim(t), nd, "ndim %d != %d", tensor_ndim(t), nd);
    for (int i = 0; i < nd; i++)
        cr_assert_eq(tensor_shape(t)[i], shape[i], "dim %d: %lld != %lld", i, (long long)tensor_shape(t)[i], (long long)shape[i]);
}

/* all elements (C order) within tol of expected */
static inline void tt_expect_values(const Tensor *t, const float *expected, int n, double tol) {
    cr_assert(t, "tensor is NULL (%s)", tensor_error_message());
    cr_assert_eq(tensor_numel(t), n, "numel %lld != %d", (long long)tensor_numel(t), n);
    float *buf = malloc(sizeof(float) * (size_t)(n ? n : 1));
    cr_assert_eq(tensor_copy_to_buffer(t, TENSOR_FLOAT32, buf), 0);
    for (int i = 0; i < n; i++) {
        bool ok = (isnan(expected[i]) && isnan(buf[i])) || fabs((double)buf[i] - (double)expected[i]) <= tol * (1 + fabs(expected[i]));
        if (!ok) {
            float got = buf[i];
            free(buf);
            cr_assert_fail("element %d: got %.7g, expected %.7g", i, got, expected[i]);
        }
    }
    free(buf);
}
#define TT_EXPECT(t, shape, vals, tol)                                                          \
    do {                                                                                        \
        tt_expect_shape(t, NELEM(shape), shape);                                                \
        tt_expect_values(t, vals, NELEM(vals), tol);                                            \
    } while (0)

#define TT_EXPECT_SCALAR(t, val, tol)                                                           \
    do {                                                                                        \
        tt_expect_shape(t, 0, NULL);                                                            \
        tt_expect_values(t, (float[]){val}, 1, tol);                                            \
    } while (0)

static inline void tt_expect_error(TensorErrorKind kind, const char *msg) {
    cr_assert_eq(tensor_error_kind(), kind, "error kind %s != %s (%s)", tensor_error_kind_name(tensor_error_kind()),
                 tensor_error_kind_name(kind), tensor_error_message());
    if (msg) cr_assert_str_eq(tensor_error_message(), msg);
}

static inline void tt_expect_error_contains(TensorErrorKind kind, const char *part) {
    cr_assert_eq(tensor_error_kind(), kind, "error kind %s != %s (%s)", tensor_error_kind_name(tensor_error_kind()),
                 tensor_error_kind_name(kind), tensor_error_message());
    cr_assert(strstr(tensor_error_message(), part), "message \"%s\" lacks \"%s\"", tensor_error_message(), part);
}

/* release a list of tensors (NULL-terminated) */
static inline void tt_free(Tensor *first, ...);
#include <stdarg.h>
static inline void tt_free(Tensor *first, ...) {
    va_list ap;
    va_start(ap, first);
    for (Tensor *t = first; t; t = va_arg(ap, Tensor *)) tensor_decref(t);
    va_end(ap);
}
#define TT_FREE(...) tt_free(__VA_ARGS__, NULL)

/* Every test ends by asserting that no tensor or storage byte is still alive (Criterion does
 * not fail a test for assertions in .fini, so the check runs inside the test body). */
static inline void tt_no_leaks(void) {
    cr_assert_eq(tensor_live_count(), 0, "LEAK: %lld tensors alive after the test", (long long)tensor_live_count());
    cr_assert_eq(tensor_live_storage_bytes(), 0, "LEAK: %zu storage bytes alive after the test", tensor_live_storage_bytes());
}

#define TT_TEST(suite, name)                                                                    \
    static void suite##_##name##_body(void);                                                    \
    Test(suite, name) {                                                                         \
        suite##_##name##_body();                                                                \
        tt_no_leaks();                                                                          \
    }                                                                                           \
    static void suite##_##name##_body(void)

static inline void tt_setup(void) {
    tensor_error_clear();
    ag_set_grad_enabled(true);
    tensor_manual_seed(1234);
}

#endif
