/* test_parallel.c — the intra-op pool (src/tensor/parallel.h): every piece runs exactly once,
 * work at or below the grain runs inline on the caller, nested calls run inline, the pool
 * resizes with the setting, and large pointwise kernels give the same bits with 1 and 2 threads
 * (contiguous, broadcast, transposed, in place, and an output overlapping its input). */
#include "tests/support/tensor_test.h"

#include "src/tensor/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

TestSuite(parallel, .init = tt_setup);

typedef struct Count {
    atomic_int *hits;
    atomic_int calls;
    pthread_t caller;
    atomic_int on_caller;
    atomic_bool nested_inline;
} Count;

static void count_piece(void *vc, int64_t b, int64_t e) {
    Count *c = vc;
    atomic_fetch_add(&c->calls, 1);
    if (pthread_equal(pthread_self(), c->caller)) atomic_fetch_add(&c->on_caller, 1);
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
}

Test(parallel, every_piece_runs_exactly_once) {
    tensor_set_num_threads(2);
    int64_t sizes[] = {2, 1001, 32769, 100003, 1 << 20};
    int64_t grains[] = {1, 7, 1000, TENSOR_GRAIN_SIZE};
    for (int si = 0; si < NELEM(sizes); si++)
        for (int gi = 0; gi < NELEM(grains); gi++) {
            int64_t n = sizes[si];
            Count c = {.hits = calloc((size_t)n, sizeof(atomic_int)), .caller = pthread_self()};
            /* many jobs back to back: late workers of one job must not touch the next */
            for (int rep = 0; rep < 20; rep++) tensor_parallel_for(n, grains[gi], count_piece, &c);
            for (int64_t i = 0; i < n; i++)
                cr_assert_eq(atomic_load(&c.hits[i]), 20, "n %lld grain %lld: element %lld ran %d times in 20 jobs",
                             (long long)n, (long long)grains[gi], (long long)i, atomic_load(&c.hits[i]));
            if (n > grains[gi]) cr_assert_gt(atomic_load(&c.calls), 20, "n %lld was split", (long long)n);
            free(c.hits);
        }
    cr_assert_eq(tensor__pool_workers(), 1, "two threads: the caller and one worker");
}

Test(parallel, at_most_the_grain_runs_inline) {
    tensor_set_num_threads(2);
    int64_t n = TENSOR_GRAIN_SIZE;
    Count c = {.hits = calloc((size_t)n, sizeof(atomic_int)), .caller = pthread_self()};
    tensor_parallel_for(n, TENSOR_GRAIN_SIZE, count_piece, &c);
    cr_assert_eq(atomic_load(&c.calls), 1, "one call, no split");
    cr_assert_eq(atomic_load(&c.on_caller), 1, "on the calling thread");
    for (int64_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&c.hits[i]), 1);
    free(c.hits);
    /* one thread: never split, whatever the size */
    tensor_set_num_threads(1);
    n = 1 << 20;
    Count d = {.hits = calloc((size_t)n, sizeof(atomic_int)), .caller = pthread_self()};
    tensor_parallel_for(n, 1, count_piece, &d);
    cr_assert_eq(atomic_load(&d.calls), 1);
    cr_assert_eq(atomic_load(&d.on_caller), 1);
    cr_assert_eq(tensor__pool_workers(), 0, "set_num_threads(1) stopped the worker");
    free(d.hits);
}

static void nested_piece(void *vc, int64_t b, int64_t e) {
    Count *c = vc;
    cr_assert(tensor_in_parallel_region());
    Count inner = {.hits = calloc(100000, sizeof(atomic_int)), .caller = pthread_self()};
    tensor_parallel_for(100000, 1, count_piece, &inner);
    if (atomic_load(&inner.calls) != 1 || atomic_load(&inner.on_caller) != 1) atomic_store(&c->nested_inline, false);
    free(inner.hits);
    count_piece(c, b, e);
}

Test(parallel, nested_calls_run_inline) {
    tensor_set_num_threads(2);
    int64_t n = 64;
    Count c = {.hits = calloc((size_t)n, sizeof(atomic_int)), .caller = pthread_self()};
    atomic_store(&c.nested_inline, true);
    tensor_parallel_for(n, 1, nested_piece, &c);
    cr_assert(atomic_load(&c.nested_inline), "a call from inside a piece ran inline on that piece's thread");
    for (int64_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&c.hits[i]), 1);
    cr_assert(!tensor_in_parallel_region());
    free(c.hits);
}

Test(parallel, resizing_between_jobs) {
    int counts[] = {3, 1, 4, 2, 2, 1, 5, 2};
    int64_t n = 200000;
    for (int k = 0; k < NELEM(counts); k++) {
        tensor_set_num_threads(counts[k]);
        cr_assert_eq(tensor_get_num_threads(), counts[k]);
        Count c = {.hits = calloc((size_t)n, sizeof(atomic_int)), .caller = pthread_self()};
        tensor_parallel_for(n, 1000, count_piece, &c);
        for (int64_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&c.hits[i]), 1);
        cr_assert_eq(tensor__pool_workers(), counts[k] - 1);
        free(c.hits);
    }
}

/* ---- kernels: 1 thread vs 2 threads, bit for bit ---------------------------------------------- */

static void same_bits(Tensor *a, Tensor *b) {
    tt_ok(a);
    tt_ok(b);
    cr_assert_eq(tensor_numel(a), tensor_numel(b));
    Tensor *ca = tensor_contiguous(a), *cb = tensor_contiguous(b);
    cr_assert_eq(memcmp(tensor_data_ptr(ca), tensor_data_ptr(cb), (size_t)tensor_numel(a) * sizeof(float)), 0,
                 "results differ between 1 and 2 threads");
    tensor_decref(ca);
    tensor_decref(cb);
    tensor_decref(a);
    tensor_decref(b);
}

/* gelu(x * y^T + b) with x, y 700 x 600 (y transposed: strided), b broadcast */
static Tensor *chain(Tensor *x, Tensor *y, Tensor *b) {
    Tensor *yt = tensor_transpose(y, 0, 1);
    Tensor *m = tensor_mul(x, yt);
    Tensor *s = tensor_add(m, b);
    Tensor *g = tensor_gelu(s, false);
    Tensor *r = tensor_exp(g);
    Tensor *t = tensor_tanh(r);
    tensor_decref(yt);
    tensor_decref(m);
    tensor_decref(s);
    tensor_decref(g);
    tensor_decref(r);
    return t;
}

Test(parallel, big_pointwise_kernels_same_bits) {
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){700, 600});
    Tensor *y = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){600, 700});
    Tensor *b = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){600});
    tensor_set_num_threads(1);
    Tensor *one = chain(x, y, b);
    tensor_set_num_threads(2);
    Tensor *two = chain(x, y, b);
    cr_assert_eq(tensor__pool_workers(), 1, "the second run used the pool");
    same_bits(one, two);
    /* in place, exactly aliased: x += x */
    Tensor *x1 = tensor_clone(x), *x2 = tensor_clone(x);
    tensor_set_num_threads(1);
    cr_assert_eq(tensor_add_(x1, x1, tensor_scalar_f(0.5)), 0);
    tensor_set_num_threads(2);
    cr_assert_eq(tensor_add_(x2, x2, tensor_scalar_f(0.5)), 0);
    same_bits(x1, x2);
    tensor_decref(x);
    tensor_decref(y);
    tensor_decref(b);
}

/* x[1:] += x[:-1]: the output overlaps the input one element off, so one thread's order decides
 * the result; the pool must leave it serial */
static Tensor *smear(Tensor *src, int threads) {
    tensor_set_num_threads(threads);
    Tensor *x = tensor_clone(src);
    int64_t n = tensor_numel(x);
    Tensor *hi = tensor_slice(x, 0, 1, n, 1), *lo = tensor_slice(x, 0, 0, n - 1, 1);
    cr_assert_eq(tensor_add_(hi, lo, tensor_scalar_i(1)), 0);
    tensor_decref(hi);
    tensor_decref(lo);
    return x;
}

Test(parallel, overlapping_output_stays_serial) {
    Tensor *src = tensor_rand(TENSOR_FLOAT32, 1, (int64_t[]){300000});
    same_bits(smear(src, 1), smear(src, 2));
    tensor_decref(src);
}
