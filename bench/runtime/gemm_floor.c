/* gemm_floor.c — what the matrix products alone cost in issue 20's two compiled-vs-eager rows:
 * the sgemm calls of one training step of train_step.py's gelu_mlp_b32 (4 blocks of LayerNorm,
 * Linear 128->128, GELU, Linear 128->128, residual; head 128->10; batch 32) and gpt_block_b4
 * (width 64, 4 heads, 32 positions, batch 4: Linear 64->192 / 64->64 / 64->256 / 256->64 / head
 * 64->10 on 128 rows, and per (batch, head) the attention's 32x16 by 16x32 and 32x32 by 32x16
 * products), forward and backward (for y = x W^T: y, dx = dy W, dW = dy^T x; for the attention's
 * products both operands' gradients), on preallocated buffers, one BLAS thread.  These are the
 * calls Ember and PyTorch 1.13 make (same orientation, for PyTorch's bits), so no compiled step
 * can take less: compiled / eager is at most eager / this floor.  Prints "name microseconds"
 * lines (CPU time, best of 7 rounds).  Not a test. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static float *buf(size_t n) {
    float *p = malloc(n * sizeof(float));
    if (!p) {
        perror("malloc");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) p[i] = (float)rand() / RAND_MAX - 0.5f;
    return p;
}

typedef struct {
    int rows, in, out;
    float *x, *w, *y, *dy, *dx, *dw;
} Linear;

static void linear_init(Linear *l, int rows, int in, int out) {
    *l = (Linear){rows, in, out, buf((size_t)rows * in), buf((size_t)out * in), buf((size_t)rows * out),
                  buf((size_t)rows * out), buf((size_t)rows * in), buf((size_t)out * in)};
}

/* forward y = x W^T, backward dx = dy W and dW = dy^T x */
static void linear_step(const Linear *l) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, l->rows, l->out, l->in, 1, l->x, l->in, l->w, l->in, 0, l->y,
                l->out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, l->rows, l->in, l->out, 1, l->dy, l->out, l->w, l->in, 0,
                l->dx, l->in);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->out, l->in, l->rows, 1, l->dy, l->out, l->x, l->in, 0,
                l->dw, l->in);
}

enum { T = 32, HD = 16, HEADS = 16 /* batch 4 x 4 heads */ };

/* one (batch, head): att = q k^T, o = att v; backward datt = do v^T, dv = att^T do,
 * dq = datt k, dk = datt^T q (the scale and softmax between them are not products) */
static void attention_step(float *q, float *k, float *v, float *att, float *o, float *d_o, float *datt, float *dq,
                           float *dk, float *dv) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, HD, 1, q, HD, k, HD, 0, att, T);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, HD, T, 1, att, T, v, HD, 0, o, HD);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, HD, 1, d_o, HD, v, HD, 0, datt, T);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, T, HD, T, 1, att, T, d_o, HD, 0, dv, HD);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, HD, T, 1, datt, T, k, HD, 0, dq, HD);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, T, HD, T, 1, datt, T, q, HD, 0, dk, HD);
}

int main(int argc, char **argv) {
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    Linear gelu[9], gpt[5];
    for (int i = 0; i < 8; i++) linear_init(&gelu[i], 32, 128, 128);
    linear_init(&gelu[8], 32, 128, 10);
    const int gin[5] = {64, 64, 64, 256, 64}, gout[5] = {192, 64, 256, 64, 10};
    for (int i = 0; i < 5; i++) linear_init(&gpt[i], 128, gin[i], gout[i]);
    float *a[10];
    for (int i = 0; i < 10; i++) a[i] = buf((size_t)HEADS * T * T);
    for (int model = 0; model < 2; model++) {
        double best = 1e30;
        int iters = 300 * scale;
        for (int r = 0; r < 7; r++) {
            double t0 = cpu_seconds();
            for (int it = 0; it < iters; it++) {
                if (model == 0) {
                    for (int i = 0; i < 9; i++) linear_step(&gelu[i]);
                } else {
                    for (int i = 0; i < 5; i++) linear_step(&gpt[i]);
                    for (int h = 0; h < HEADS; h++) {
                        size_t s = (size_t)h * T * T;
                        attention_step(a[0] + s, a[1] + s, a[2] + s, a[3] + s, a[4] + s, a[5] + s, a[6] + s, a[7] + s,
                                       a[8] + s, a[9] + s);
                    }
                }
            }
            double t = (cpu_seconds() - t0) / iters * 1e6;
            if (t < best) best = t;
        }
        printf("%s %.2f\n", model == 0 ? "gemm_gelu_mlp_b32" : "gemm_gpt_block_b4", best);
    }
    return 0;
}
