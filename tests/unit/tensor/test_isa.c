/* test_isa.c — every vector instruction-set path of the multiversioned loops (src/tensor/isa.h)
 * that this CPU supports gives the same bits as the portable path: the outer product of
 * mm / addmm with k == 1 (contiguous and strided B, alpha / beta forms) and torch.optim's SGD
 * and Adam element loops (src/torch/optim_kernels.c).  Paths the CPU lacks are reported and
 * skipped. */
#include <string.h>

#include "src/tensor/isa.h"
#include "src/torch/optim_kernels.h"
#include "tests/support/tensor_test.h"

TestSuite(isa, .init = tt_setup);

static const TensorIsa isas[] = {TENSOR_ISA_DEFAULT, TENSOR_ISA_AVX2, TENSOR_ISA_AVX512};

static bool same_bits(const Tensor *a, const Tensor *b) {
    return tensor_numel(a) == tensor_numel(b) &&
           memcmp(tensor_data_ptr((Tensor *)a), tensor_data_ptr((Tensor *)b), sizeof(float) * (size_t)tensor_numel(a)) == 0;
}

/* the outer products a training step at batch 1 runs, under the ISA now selected */
static void outer_products(Tensor **out) {
    int64_t sa[2] = {37, 1}, sb[2] = {1, 53}, sbt[2] = {53, 1}, sc[2] = {37, 53};
    tensor_manual_seed(7);
    Tensor *a = tensor_randn(TENSOR_FLOAT32, 2, sa), *b = tensor_randn(TENSOR_FLOAT32, 2, sb);
    Tensor *b0 = tensor_randn(TENSOR_FLOAT32, 2, sbt), *bt = tensor_t(b0);          /* strided row */
    Tensor *wide = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){1, 106});
    Tensor *bs = tensor_slice(wide, 1, 0, 106, 2);                                   /* stride 2 */
    Tensor *bias = tensor_randn(TENSOR_FLOAT32, 2, sc);
    out[0] = tensor_mm(a, b);
    out[1] = tensor_mm(a, bt);
    out[2] = tensor_mm(a, bs);
    out[3] = tensor_addmm(bias, a, b, tensor_scalar_f(0.5), tensor_scalar_f(-1.25));
    out[4] = tensor_addmm(bias, a, bs, tensor_scalar_f(0.0), tensor_scalar_f(3.0));
    Tensor *k[] = {a, b, b0, bt, wide, bs, bias};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) tensor_decref(k[i]);
}

TT_TEST(isa, outer_product_same_bits_on_every_path) {
    Tensor *ref[5], *got[5];
    cr_assert_eq(tensor__isa_set(TENSOR_ISA_DEFAULT), 0);
    outer_products(ref);
    for (size_t i = 1; i < sizeof isas / sizeof isas[0]; i++) {
        if (tensor__isa_set(isas[i]) < 0) {
            cr_log_warn("%s: not supported by this CPU, skipped", tensor__isa_name(isas[i]));
            continue;
        }
        outer_products(got);
        for (int j = 0; j < 5; j++) {
            tt_ok(got[j]);
            cr_assert(same_bits(ref[j], got[j]), "%s: product %d differs from the portable path",
                      tensor__isa_name(isas[i]), j);
            tensor_decref(got[j]);
        }
    }
    for (int j = 0; j < 5; j++) tensor_decref(ref[j]);
    tensor__isa_level = -1;
}

#define N 1003
static void fill(float *x, unsigned seed) {
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 4.0f;
    }
}

/* p, buf / ea, eas, mx after a few optimizer steps under the ISA now selected */
static void optim_steps(float st[4][N]) {
    float g[N];
    fill(g, 3);
    fill(st[0], 1);
    SgdArgs sa = {0.1f, 0.9f, 0.1f, 0.01f, true, false, true};
    for (int s = 0; s < 3; s++) {
        optim_sgd_kernel(st[0], g, st[1], N, &sa);
        sa.first = false;
    }
    SgdArgs plain = {0.05f, 0, 0, 0, false, false, false};
    optim_sgd_kernel(st[0], g, NULL, N, &plain);
    memset(st[2], 0, sizeof st[2]);
    memset(st[3], 0, sizeof st[3]);
    float ea[N] = {0}, mx[N] = {0};
    for (int s = 1; s <= 3; s++) {
        AdamArgs aa = {1e-3, 0.9, 0.999, 1e-8, 0.01, (double)s, true, false, s == 2};
        optim_adam_kernel(st[2], g, ea, st[3], mx, N, &aa);
    }
    for (int i = 0; i < N; i++) st[3][i] += ea[i] + mx[i];
}

TT_TEST(isa, optimizer_loops_same_bits_on_every_path) {
    static float ref[4][N], got[4][N];
    cr_assert_eq(tensor__isa_set(TENSOR_ISA_DEFAULT), 0);
    optim_steps(ref);
    for (size_t i = 1; i < sizeof isas / sizeof isas[0]; i++) {
        if (tensor__isa_set(isas[i]) < 0) {
            cr_log_warn("%s: not supported by this CPU, skipped", tensor__isa_name(isas[i]));
            continue;
        }
        optim_steps(got);
        cr_assert(memcmp(ref, got, sizeof ref) == 0, "%s: optimizer state differs from the portable path",
                  tensor__isa_name(isas[i]));
    }
    tensor__isa_level = -1;
}
