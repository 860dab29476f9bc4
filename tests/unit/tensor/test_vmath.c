/* test_vmath.c — src/tensor/vmath.h's float exp / tanh / erf / log: against the correctly rounded
 * result (the double libm function rounded to float) on edge cases and random values, specials
 * (NaN, +-inf, +-0, denormals, overflow, underflow) as glibc's float functions give them, and
 * the pointwise ops and softmax rows that use them giving the same bits on every vector ISA path
 * (isa.h) the CPU has.  The exhaustive comparison over all 2^32 floats is tools/vmath_exhaustive.c
 * (slow: not in the suite). */
#include <math.h>
#include <string.h>

#include "src/tensor/isa.h"
#include "src/tensor/pointwise.h"
#include "src/tensor/vmath.h"
#include "tests/support/tensor_test.h"

TestSuite(vmath, .init = tt_setup);

typedef float (*Ff)(float);
typedef double (*Fd)(double);

static float v_exp(float x) { return tensor__vexpf(x); }
static float v_tanh(float x) { return tensor__vtanhf(x); }
static float v_erf(float x) { return tensor__verff(x); }
static float v_log(float x) { return tensor__vlogf(x); }

static const struct {
    const char *name;
    Ff ours, libf;
    Fd libd;
    TensorOp op;
} fns[] = {
    {"exp", v_exp, expf, exp, TENSOR_OP_EXP},
    {"tanh", v_tanh, tanhf, tanh, TENSOR_OP_TANH},
    {"erf", v_erf, erff, erf, TENSOR_OP_ERF},
    {"log", v_log, logf, log, TENSOR_OP_LOG},
};

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* equal bits; NaNs equal in NaN-ness and sign (glibc's and ours both return x + x for a NaN x) */
static bool same(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) && signbit(a) == signbit(b);
    return bits(a) == bits(b);
}

static float edge[] = {
    0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, 1e-45f, -1e-45f, 1.17549435e-38f,
    -1.17549435e-38f, 3.4028235e38f, -3.4028235e38f, 88.72283f, 88.72284f, 89.0f, -87.33654f, -87.4f, -103.97208f,
    -103.98f, -104.0f, -150.0f, 0.625f, -0.625f, 9.01f, -9.01f, 3.9192f, 3.92f, 3.94f, 4.0f, 4.1f, -3.92f, 0.0625f,
    0.1875f, 1e-8f, -1e-8f, 2.9802322e-8f, 0.6931472f, -0.6931472f, 0.70710677f, 1.4142135f, 0.99999994f, 1.0000001f,
    20.0f, -20.0f, 1e30f, -1e30f,
};

static float random_value(uint64_t *s, int i) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(*s >> 32);
    float u = (float)(r >> 8) * 0x1p-24f;   /* [0, 1) */
    switch (i % 4) {
    case 0: return (u - 0.5f) * 20.0f;      /* the activations' range */
    case 1: return (u - 0.5f) * 200.0f;     /* over- and underflow */
    case 2: return (u - 0.5f) * 1e-3f;      /* near 0 */
    default: {
        float f;
        memcpy(&f, &r, sizeof f);         /* any bit pattern */
        return f;
    }
    }
}

#define NRAND 200000

TT_TEST(vmath, functions_round_correctly_and_keep_glibcs_specials) {
    uint64_t seed = 1;
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        for (int i = 0; i < NELEM(edge) + NRAND; i++) {
            float x = i < NELEM(edge) ? edge[i] : random_value(&seed, i);
            float got = fns[f].ours(x), cr = (float)fns[f].libd((double)x), lib = fns[f].libf(x);
            cr_assert(same(got, cr), "%s(%a): %a, correctly rounded %a", fns[f].name, (double)x, (double)got, (double)cr);
            /* where glibc's float result is not finite or is 0, ours is the same (specials) */
            if (!isfinite(lib) || lib == 0.0f)
                cr_assert(same(got, lib), "%s(%a): %a, glibc %a", fns[f].name, (double)x, (double)got, (double)lib);
        }
    }
}

/* the op over a tensor of edge cases and random values, under the ISA now selected */
static Tensor *run_op(TensorOp op, const Tensor *x) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    return tt_ok(tensor__unary(op, x, &args, NULL));
}

static Tensor *inputs(void) {
    enum { N = NRAND / 4 + 1 };
    static float v[N + sizeof edge / sizeof edge[0]];
    uint64_t seed = 7;
    int n = 0;
    for (int i = 0; i < NELEM(edge); i++) v[n++] = edge[i];
    for (int i = 0; i < N; i++) v[n++] = random_value(&seed, i);
    return tt_ok(tensor_from_data(TENSOR_FLOAT32, 1, (int64_t[]){n}, v));
}

static const TensorIsa isas[] = {TENSOR_ISA_DEFAULT, TENSOR_ISA_AVX2, TENSOR_ISA_AVX512};

TT_TEST(vmath, pointwise_ops_match_the_functions_on_every_path) {
    Tensor *x = inputs();
    const float *px = tensor_data_ptr(x);
    int64_t n = tensor_numel(x);
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        if (tensor__isa_set(isas[k]) < 0) {
            cr_log_warn("%s: not supported by this CPU, skipped", tensor__isa_name(isas[k]));
            continue;
        }
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            Tensor *y = run_op(fns[f].op, x);
            const float *py = tensor_data_ptr(y);
            for (int64_t i = 0; i < n; i++)
                cr_assert(same(py[i], fns[f].ours(px[i])), "%s on %s: element %lld (%a) gives %a, the function %a",
                          fns[f].name, tensor__isa_name(isas[k]), (long long)i, (double)px[i], (double)py[i],
                          (double)fns[f].ours(px[i]));
            tensor_decref(y);
        }
    }
    tensor__isa_level = -1;
    tensor_decref(x);
}

/* softmax / log_softmax over rows of several lengths (tails of the 16-lane loops, a -inf row, a
 * NaN): the same bits on every path, and within a float rounding of a double computation */
TT_TEST(vmath, softmax_rows_same_bits_on_every_path) {
    static const int64_t lens[] = {1, 7, 16, 37, 64, 1000};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t L = lens[li], shape[2] = {3, L};
        tensor_manual_seed(11 + (uint64_t)li);
        Tensor *x = tt_ok(tensor_randn(TENSOR_FLOAT32, 2, shape));
        float *px = tensor_data_ptr(x);
        for (int64_t j = 0; j < L; j++) px[L + j] = -INFINITY;   /* row 1: all -inf */
        if (L > 3) px[2 * L + 3] = NAN;                           /* row 2: a NaN */
        Tensor *ref[2] = {NULL, NULL};
        for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
            if (tensor__isa_set(isas[k]) < 0) continue;
            for (int lg = 0; lg < 2; lg++) {
                Tensor *y = tt_ok(lg ? tensor_log_softmax(x, 1) : tensor_softmax(x, 1));
                if (!ref[lg]) {
                    ref[lg] = y;
                    /* row 0 against double arithmetic */
                    const float *py = tensor_data_ptr(y);
                    double mx = -INFINITY, sum = 0;
                    for (int64_t j = 0; j < L; j++) mx = px[j] > mx ? px[j] : mx;
                    for (int64_t j = 0; j < L; j++) sum += exp((double)px[j] - mx);
                    for (int64_t j = 0; j < L; j++) {
                        double want = lg ? (double)px[j] - mx - log(sum) : exp((double)px[j] - mx) / sum;
                        cr_assert(fabs(py[j] - want) <= 4e-7 * fmax(1.0, fabs(want)), "L %lld log %d: %g vs %g",
                                  (long long)L, lg, (double)py[j], want);
                    }
                    for (int64_t j = 0; j < L; j++) {
                        cr_assert(isnan(py[L + j]), "an all -inf row gives NaN (as PyTorch)");
                        if (L > 3) cr_assert(isnan(py[2 * L + j]), "a NaN in the row makes it NaN");
                    }
                    continue;
                }
                cr_assert(memcmp(tensor_data_ptr(ref[lg]), tensor_data_ptr(y), sizeof(float) * (size_t)(3 * L)) == 0,
                          "%s: %s rows of %lld differ from the portable path", tensor__isa_name(isas[k]),
                          lg ? "log_softmax" : "softmax", (long long)L);
                tensor_decref(y);
            }
        }
        tensor_decref(ref[0]);
        tensor_decref(ref[1]);
        tensor_decref(x);
    }
    tensor__isa_level = -1;
}
