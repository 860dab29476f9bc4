/* bench_tensor.c — micro and model benchmarks of the tensor library and autograd engine,
 * written against the public C API. Prints "name microseconds" lines that run.sh pairs with
 * bench_torch.py (the same workloads in PyTorch) and with direct cblas_sgemm. Times are thread
 * CPU time, best of several runs. Not a test: no timing assertions. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ember/autograd.h"

/* thread CPU time: the benchmark machines share cores, and CPU time is what a contended
 * wall clock would hide (both this program and bench_torch.py measure it) */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, tensor_error_message());
    exit(1);
}

static Tensor *leaf(int nd, const int64_t *shape, bool rg) {
    Tensor *t = tensor_randn(TENSOR_FLOAT32, nd, shape);
    if (!t) die("randn");
    if (rg && ag_set_requires_grad(t, true) < 0) die("requires_grad");
    return t;
}

/* best of 5 runs of `iters` iterations, per-iteration microseconds */
#define BEST_OF(iters, ...)                                                                    \
    ({                                                                                          \
        double best = 1e30;                                                                     \
        for (int rep = 0; rep < 5; rep++) {                                                     \
            double t0 = now();                                                                  \
            for (long it = 0; it < (iters); it++) {                                             \
                __VA_ARGS__;                                                                         \
            }                                                                                   \
            double dt = (now() - t0) / (double)(iters)*1e6;                                     \
            if (dt < best) best = dt;                                                           \
        }                                                                                       \
        best;                                                                                   \
    })

static double bench_add(bool rg) {
    int64_t s = 4;
    Tensor *a = leaf(1, &s, rg), *b = leaf(1, &s, rg);
    double us = BEST_OF(200000, {
        Tensor *c = ag_add(a, b);
        if (!c) die("add");
        tensor_decref(c);
    });
    tensor_decref(a);
    tensor_decref(b);
    return us;
}

/* backward of a chain of n ops: x -> (x * 1.0001 + 0.5) ... -> sum */
static double bench_chain(int n) {
    int64_t s = 4;
    Tensor *x = leaf(1, &s, true);
    double best = 1e30;
    for (int rep = 0; rep < 2000; rep++) {
        Tensor *y = x;
        tensor_incref(y);
        for (int i = 0; i < n - 1; i++) {
            Tensor *z = (i & 1) ? ag_add_scalar(y, tensor_scalar_f(0.5)) : ag_mul_scalar(y, tensor_scalar_f(1.0001));
            if (!z) die("chain op");
            tensor_decref(y);
            y = z;
        }
        Tensor *l = ag_sum(y);
        tensor_decref(y);
        double t0 = now();
        if (ag_backward(1, &l, NULL, false, false, 0, NULL) < 0) die("backward");
        double dt = (now() - t0) * 1e6;
        tensor_decref(l);
        if (ag_set_grad(x, NULL) < 0) die("set_grad");
        if (dt < best) best = dt;
    }
    tensor_decref(x);
    return best;
}

static void bench_sgemm(double *lib_us, double *direct_us) {
    int64_t s[2] = {512, 512};
    Tensor *a = leaf(2, s, false), *b = leaf(2, s, false);
    *lib_us = BEST_OF(20, {
        Tensor *c = tensor_mm(a, b);
        if (!c) die("mm");
        tensor_decref(c);
    });
    float *A = malloc(sizeof(float) * 512 * 512), *B = malloc(sizeof(float) * 512 * 512);
    if (tensor_copy_to_buffer(a, TENSOR_FLOAT32, A) < 0 || tensor_copy_to_buffer(b, TENSOR_FLOAT32, B) < 0) die("copy");
    *direct_us = BEST_OF(20, {
        float *C = malloc(sizeof(float) * 512 * 512);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 512, 512, 512, 1.0f, A, 512, B, 512, 0.0f, C, 512);
        free(C);
    });
    free(A);
    free(B);
    tensor_decref(a);
    tensor_decref(b);
}

static double bench_mlp(int64_t batch) {
    int64_t sw1[2] = {256, 784}, sb1 = 256, sw2[2] = {256, 256}, sb2 = 256, sw3[2] = {10, 256}, sb3 = 10;
    Tensor *W1 = leaf(2, sw1, true), *b1 = leaf(1, &sb1, true), *W2 = leaf(2, sw2, true), *b2 = leaf(1, &sb2, true);
    Tensor *W3 = leaf(2, sw3, true), *b3 = leaf(1, &sb3, true);
    Tensor *params[6] = {W1, b1, W2, b2, W3, b3};
    int64_t sx[2] = {batch, 784};
    Tensor *x = leaf(2, sx, false);
    Tensor *target = tensor_randint(0, 10, 1, &batch);
    long iters = batch == 1 ? 2000 : 200;
    double us = BEST_OF(iters, {
        Tensor *a1 = ag_linear(x, W1, b1), *h1 = ag_relu(a1);
        Tensor *a2 = ag_linear(h1, W2, b2), *h2 = ag_relu(a2);
        Tensor *out = ag_linear(h2, W3, b3);
        Tensor *loss = ag_cross_entropy(out, target, TENSOR_REDUCTION_MEAN);
        if (!loss) die("mlp forward");
        if (ag_backward(1, &loss, NULL, false, false, 0, NULL) < 0) die("mlp backward");
        Tensor *tmp[6] = {a1, h1, a2, h2, out, loss};
        for (int i = 0; i < 6; i++) tensor_decref(tmp[i]);
        for (int i = 0; i < 6; i++)
            if (ag_set_grad(params[i], NULL) < 0) die("zero_grad");
    });
    for (int i = 0; i < 6; i++) tensor_decref(params[i]);
    tensor_decref(x);
    tensor_decref(target);
    return us;
}

int main(void) {
    tensor_manual_seed(0);
    tensor_set_num_threads(1);   /* bench_torch.py runs PyTorch at one thread too */
    printf("add4_nograd %.4f\n", bench_add(false));
    printf("add4_graph %.4f\n", bench_add(true));
    double c10 = bench_chain(10), c100 = bench_chain(100);
    double per_node = (c100 - c10) / 90.0;
    printf("chain100_backward %.4f\n", c100);
    printf("chain_per_node %.4f\n", per_node);
    printf("chain_fixed %.4f\n", c10 - 10 * per_node);
    double lib, direct;
    bench_sgemm(&lib, &direct);
    printf("sgemm512_lib %.4f\n", lib);
    printf("sgemm512_direct %.4f\n", direct);
    printf("mlp_b1 %.4f\n", bench_mlp(1));
    printf("mlp_b64 %.4f\n", bench_mlp(64));
    if (tensor_live_count() != 0) fprintf(stderr, "warning: %lld tensors alive at exit\n", (long long)tensor_live_count());
    return 0;
}
