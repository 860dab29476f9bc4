/* mlp_floor.c — the hardware floor of issue 20's MLP row: one SGD training step of the MLP
 * 784-256-256-10 (Linear, ReLU, Linear, ReLU, Linear, cross-entropy, backward, SGD with lr 0.01)
 * written directly in C on BLAS with every buffer allocated once (cblas_sgemm; at batch 1 the
 * matrix-vector and outer-product calls, sgemv / sger, which are faster there than sgemm), as train_step.py's
 * mlp_b1 / mlp_b64 run it.  floor_mlp_b1_gemm is batch 1 on the calls PyTorch 1.13 makes (and so Ember,
 * for PyTorch's bits): the products with one row through sgemm (OpenBLAS does not hand them to sgemv
 * and adds in another order), the outer product still sger.  Ember and PyTorch run the same steps.
 * Same math as nn.Linear (y = x W^T + b) and F.cross_entropy (mean over the batch).  Prints "name
 * microseconds" lines (CPU time, best of 5 rounds).  Not a test. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { D0 = 784, D1 = 256, D2 = 256, D3 = 10 };

typedef struct {
    int batch;
    float *w[3], *b[3], *gw[3], *gb[3];
    float *x, *h1, *h2, *out, *g3, *g2, *g1;
    int *y;
} Mlp;

static const int dims[4] = {D0, D1, D2, D3};

/* batch 1 on sgemm (floor_mlp_b1_gemm) rather than sgemv */
static int gemm_at_b1;

static float *buf(size_t n) {
    float *p = calloc(n, sizeof(float));
    if (!p) {
        perror("calloc");
        exit(1);
    }
    return p;
}

static void init(Mlp *m, int batch) {
    m->batch = batch;
    unsigned s = 1;
    for (int l = 0; l < 3; l++) {
        size_t n = (size_t)dims[l] * dims[l + 1];
        m->w[l] = buf(n);
        m->gw[l] = buf(n);
        m->b[l] = buf(dims[l + 1]);
        m->gb[l] = buf(dims[l + 1]);
        float bound = 1.0f / sqrtf((float)dims[l]);
        for (size_t i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            m->w[l][i] = ((float)(s >> 8) / 16777216.0f * 2 - 1) * bound;
        }
    }
    m->x = buf((size_t)batch * D0);
    for (size_t i = 0; i < (size_t)batch * D0; i++) {
        s = s * 1103515245u + 12345u;
        m->x[i] = (float)(s >> 8) / 16777216.0f;
    }
    m->y = calloc((size_t)batch, sizeof(int));
    for (int i = 0; i < batch; i++) m->y[i] = i % D3;
    m->h1 = buf((size_t)batch * D1);
    m->h2 = buf((size_t)batch * D2);
    m->out = buf((size_t)batch * D3);
    m->g3 = buf((size_t)batch * D3);
    m->g2 = buf((size_t)batch * D2);
    m->g1 = buf((size_t)batch * D1);
}

/* y[B,N] = x[B,K] W[N,K]^T + b */
static void linear(const float *x, const float *w, const float *b, float *y, int B, int K, int N) {
    for (int i = 0; i < B; i++) memcpy(y + (size_t)i * N, b, sizeof(float) * N);
    if (B == 1 && !gemm_at_b1) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, N, K, 1.0f, w, K, x, 1, 1.0f, y, 1);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, N, K, 1.0f, x, K, w, K, 1.0f, y, N);
}

static void relu(float *h, size_t n) {
    for (size_t i = 0; i < n; i++) h[i] = h[i] > 0 ? h[i] : 0;
}

/* weight/bias gradients of a linear layer and (optionally) its input gradient */
static void linear_bw(const float *x, const float *w, const float *gy, float *gw, float *gb, float *gx, int B, int K,
                      int N) {
    if (B == 1) {
        memset(gw, 0, sizeof(float) * (size_t)N * K);
        cblas_sger(CblasRowMajor, N, K, 1.0f, gy, 1, x, 1, gw, K);
        memcpy(gb, gy, sizeof(float) * N);
        if (gx && gemm_at_b1)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, K, N, 1.0f, gy, N, w, K, 0.0f, gx, K);
        else if (gx)
            cblas_sgemv(CblasRowMajor, CblasTrans, N, K, 1.0f, w, K, gy, 1, 0.0f, gx, 1);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, K, B, 1.0f, gy, N, x, K, 0.0f, gw, K);
    for (int j = 0; j < N; j++) gb[j] = 0;
    for (int i = 0; i < B; i++)
        for (int j = 0; j < N; j++) gb[j] += gy[(size_t)i * N + j];
    if (gx) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, K, N, 1.0f, gy, N, w, K, 0.0f, gx, K);
}

static float step(Mlp *m) {
    int B = m->batch;
    linear(m->x, m->w[0], m->b[0], m->h1, B, D0, D1);
    relu(m->h1, (size_t)B * D1);
    linear(m->h1, m->w[1], m->b[1], m->h2, B, D1, D2);
    relu(m->h2, (size_t)B * D2);
    linear(m->h2, m->w[2], m->b[2], m->out, B, D2, D3);
    /* cross-entropy (mean) and its gradient: softmax - onehot, / B */
    float loss = 0;
    for (int i = 0; i < B; i++) {
        float *o = m->out + (size_t)i * D3, *g = m->g3 + (size_t)i * D3, mx = o[0], sum = 0;
        for (int j = 1; j < D3; j++) mx = o[j] > mx ? o[j] : mx;
        for (int j = 0; j < D3; j++) sum += g[j] = expf(o[j] - mx);
        loss += logf(sum) + mx - o[m->y[i]];
        for (int j = 0; j < D3; j++) g[j] = g[j] / sum / (float)B;
        g[m->y[i]] -= 1.0f / (float)B;
    }
    linear_bw(m->h2, m->w[2], m->g3, m->gw[2], m->gb[2], m->g2, B, D2, D3);
    for (size_t i = 0; i < (size_t)B * D2; i++) m->g2[i] = m->h2[i] > 0 ? m->g2[i] : 0;
    linear_bw(m->h1, m->w[1], m->g2, m->gw[1], m->gb[1], m->g1, B, D1, D2);
    for (size_t i = 0; i < (size_t)B * D1; i++) m->g1[i] = m->h1[i] > 0 ? m->g1[i] : 0;
    linear_bw(m->x, m->w[0], m->g1, m->gw[0], m->gb[0], NULL, B, D0, D1);
    for (int l = 0; l < 3; l++) {
        size_t n = (size_t)dims[l] * dims[l + 1];
        cblas_saxpy((int)n, -0.01f, m->gw[l], 1, m->w[l], 1);
        cblas_saxpy(dims[l + 1], -0.01f, m->gb[l], 1, m->b[l], 1);
    }
    return loss / (float)B;
}

static double cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double bench(int batch, int iters) {
    Mlp m;
    init(&m, batch);
    volatile float sink = 0;
    for (int i = 0; i < 10; i++) sink += step(&m);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_us();
        for (int i = 0; i < iters; i++) sink += step(&m);
        double t = (cpu_us() - t0) / iters;
        best = t < best ? t : best;
    }
    (void)sink;
    return best;
}

int main(int argc, char **argv) {
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    printf("floor_mlp_b1 %.2f\n", bench(1, 2000 * scale));
    printf("floor_mlp_b64 %.2f\n", bench(64, 300 * scale));
    gemm_at_b1 = 1;
    printf("floor_mlp_b1_gemm %.2f\n", bench(1, 2000 * scale));
    return 0;
}
