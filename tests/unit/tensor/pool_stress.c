/* pool_stress.c — the intra-op pool under many back-to-back jobs, nested calls and resizes, and
 * the pooled kernels (pointwise, row reductions, blocked GEMM) at 1 vs 2 threads, bit for bit.
 * Plain C (no Criterion): it is the program the ThreadSanitizer build runs, where Criterion's
 * shared arena cannot start:
 *     meson setup build-tsan -Db_sanitize=thread && ninja -C build-tsan tests/unit/tensor/pool_stress
 *     build-tsan/tests/unit/tensor/pool_stress */
#include "ember/tensor.h"
#include "src/tensor/parallel.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int *hits;
static float *out;

static void piece(void *c, int64_t b, int64_t e) {
    (void)c;
    for (int64_t i = b; i < e; i++) {
        atomic_fetch_add(&hits[i], 1);
        out[i] = (float)i * 0.5f;   /* plain writes: each element belongs to one piece */
    }
}

static void count_only(void *c, int64_t b, int64_t e) {
    (void)c;
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&hits[i], 1);
}

/* every index of the outer job starts an inner job, which must run inline */
static void nested(void *c, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) tensor_parallel_for(1000, 1, count_only, c);
}

int main(void) {
    int64_t n = 1 << 18;
    hits = calloc((size_t)n, sizeof *hits);
    out = calloc((size_t)n, sizeof *out);
    int counts[] = {2, 3, 1, 2, 4, 2};
    int jobs = 0, nests = 0;
    for (int k = 0; k < 6; k++) {
        tensor_set_num_threads(counts[k]);
        for (int r = 0; r < 200; r++, jobs++) tensor_parallel_for(n, 1000 + r, piece, NULL);
        tensor_parallel_for(64, 1, nested, NULL);
        nests += 64;
    }
    for (int64_t i = 0; i < n; i++) {
        int want = jobs + (i < 1000 ? nests : 0);
        if (atomic_load(&hits[i]) != want) {
            fprintf(stderr, "element %lld ran %d times, not %d\n", (long long)i, atomic_load(&hits[i]), want);
            return 1;
        }
    }
    free(hits);
    free(out);
    tensor_manual_seed(3);
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){600, 700});
    Tensor *w = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){700, 500});
    Tensor *r[2][3];
    for (int t = 0; t < 2; t++) {
        tensor_set_num_threads(t + 1);
        Tensor *e = tensor_exp(x);
        r[t][0] = tensor_tanh(e);
        r[t][1] = tensor_sum_dims(e, (int64_t[]){1}, 1, false);
        r[t][2] = tensor_mm(x, w);
        tensor_decref(e);
    }
    const char *what[3] = {"tanh(exp(x))", "exp(x).sum(1)", "x @ w"};
    for (int j = 0; j < 3; j++) {
        if (!r[0][j] || !r[1][j] || !tensor_equal(r[0][j], r[1][j])) {
            fprintf(stderr, "%s differs between 1 and 2 threads\n", what[j]);
            return 1;
        }
        tensor_decref(r[0][j]);
        tensor_decref(r[1][j]);
    }
    tensor_decref(x);
    tensor_decref(w);
    printf("ok\n");
    return 0;
}
