/* test_vmath.c — src/tensor/vmath.h's functions are PyTorch's: each pointwise op that ATen's vml
 * kernels compute with Sleef gives, element for element, what Sleef's 8-lane float / 4-lane
 * double function gives on the input in groups of 8 / 4 (the last group zero-padded), as ATen's
 * vec::map does, on every vector ISA path (isa.h) the CPU has; and the softmax rows give the same
 * bits on every path.  Skipped where the CPU lacks AVX2 + FMA (vmath.h then calls libm, as
 * PyTorch's DEFAULT kernels do). */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "src/tensor/isa.h"
#include "src/tensor/pointwise.h"
#include "src/tensor/vmath.h"
#include "tests/support/tensor_test.h"

TestSuite(vmath, .init = tt_setup);

/* The reference: Sleef's vector forms, linked directly (the library reaches Sleef through
 * vmath.h's table, loaded on first use).  sleef.h declares the 256-bit forms only where the
 * compiler targets AVX, which this file does not. */
#define VEC_DECL(NAME, U) __m256 Sleef_##NAME##f8_##U(__m256); __m256d Sleef_##NAME##d4_##U(__m256d);
VEC_DECL(exp, u10) VEC_DECL(log, u10) VEC_DECL(tanh, u10) VEC_DECL(erf, u10) VEC_DECL(erfc, u15)
VEC_DECL(expm1, u10) VEC_DECL(log1p, u10) VEC_DECL(log2, u10) VEC_DECL(log10, u10) VEC_DECL(tan, u10)
VEC_DECL(asin, u10) VEC_DECL(acos, u10) VEC_DECL(atan, u10) VEC_DECL(sin, u10) VEC_DECL(cos, u10)
#undef VEC_DECL

typedef __m256 (*Vf)(__m256);
typedef __m256d (*Vd)(__m256d);

/* Trigonometric functions reduce all lanes of a vector the slow way when one lane is huge, which
 * the element-wise form cannot see (vmath.h): their groups holding an |x| > 1e4 are not compared,
 * and float sin / cos, whose slow path starts lower, are left out. */
static const struct {
    const char *name;
    Vf vf;
    Vd vd;
    TensorOp op;
    bool trig;
} fns[] = {
    {"exp", Sleef_expf8_u10, Sleef_expd4_u10, TENSOR_OP_EXP},
    {"log", Sleef_logf8_u10, Sleef_logd4_u10, TENSOR_OP_LOG},
    {"tanh", Sleef_tanhf8_u10, Sleef_tanhd4_u10, TENSOR_OP_TANH},
    {"erf", Sleef_erff8_u10, Sleef_erfd4_u10, TENSOR_OP_ERF},
    {"erfc", Sleef_erfcf8_u15, Sleef_erfcd4_u15, TENSOR_OP_ERFC},
    {"expm1", Sleef_expm1f8_u10, Sleef_expm1d4_u10, TENSOR_OP_EXPM1},
    {"log1p", Sleef_log1pf8_u10, Sleef_log1pd4_u10, TENSOR_OP_LOG1P},
    {"log2", Sleef_log2f8_u10, Sleef_log2d4_u10, TENSOR_OP_LOG2},
    {"log10", Sleef_log10f8_u10, Sleef_log10d4_u10, TENSOR_OP_LOG10},
    {"tan", Sleef_tanf8_u10, Sleef_tand4_u10, TENSOR_OP_TAN, true},
    {"asin", Sleef_asinf8_u10, Sleef_asind4_u10, TENSOR_OP_ASIN},
    {"acos", Sleef_acosf8_u10, Sleef_acosd4_u10, TENSOR_OP_ACOS},
    {"atan", Sleef_atanf8_u10, Sleef_atand4_u10, TENSOR_OP_ATAN},
    {"sin", NULL, Sleef_sind4_u10, TENSOR_OP_SIN, true},
    {"cos", NULL, Sleef_cosd4_u10, TENSOR_OP_COS, true},
};

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

/* equal bits, or both NaN */
static bool same_f(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }
static bool same_d(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* what ATen's vml kernel computes: the vector function over groups, the last one zero-padded */
#define ATEN_VML(NAME, T, FN, LANES, LOAD, STORE)                                                     \
    __attribute__((target("avx2,fma"))) static void NAME(FN f, const T *x, T *y, int64_t n) {       \
        for (int64_t i = 0; i < n; i += LANES) {                                                      \
            T b[LANES] = {0};                                                                         \
            int64_t m = n - i < LANES ? n - i : LANES;                                                \
            memcpy(b, x + i, sizeof(T) * (size_t)m);                                                  \
            STORE(b, f(LOAD(b)));                                                                     \
            memcpy(y + i, b, sizeof(T) * (size_t)m);                                                  \
        }                                                                                             \
    }
ATEN_VML(aten_f, float, Vf, 8, _mm256_loadu_ps, _mm256_storeu_ps)
ATEN_VML(aten_d, double, Vd, 4, _mm256_loadu_pd, _mm256_storeu_pd)

/* edge cases and random values (37 elements more than whole groups: a tail) */
static Tensor *inputs(TensorDtype dt) {
    enum { N = NRAND + 37 };
    static double v[N + sizeof edge / sizeof edge[0]];
    uint64_t seed = 7;
    int64_t n = 0;
    for (int i = 0; i < NELEM(edge); i++) v[n++] = edge[i];
    for (int i = 0; i < N; i++) v[n++] = random_value(&seed, i);
    Tensor *x = tt_ok(tensor_from_data(TENSOR_FLOAT64, 1, (int64_t[]){n}, v));
    if (dt == TENSOR_FLOAT64) return x;
    Tensor *y = tt_ok(tensor_to_dtype(x, dt));
    tensor_decref(x);
    return y;
}

/* whether element i's vector group holds an |x| > 1e4 */
static bool huge_in_group(const Tensor *x, int64_t i, int64_t w) {
    int64_t b = i - i % w, n = tensor_numel(x);
    for (int64_t j = b; j < b + w && j < n; j++) {
        double v = tensor_dtype(x) == TENSOR_FLOAT64 ? ((const double *)tensor_data_ptr(x))[j]
                                                     : ((const float *)tensor_data_ptr(x))[j];
        if (!(fabs(v) <= 1e4)) return true;
    }
    return false;
}

static const TensorIsa isas[] = {TENSOR_ISA_DEFAULT, TENSOR_ISA_AVX2, TENSOR_ISA_AVX512};

TT_TEST(vmath, pointwise_ops_give_sleefs_vector_lanes_on_every_path) {
    if (!tensor__vm_sleef) {
        cr_log_warn("no AVX2 + FMA: vmath.h calls libm, skipped");
        return;
    }
    for (int dd = 0; dd < 2; dd++) {
        Tensor *x = inputs(dd ? TENSOR_FLOAT64 : TENSOR_FLOAT32);
        int64_t n = tensor_numel(x);
        void *want = malloc(8 * (size_t)n);
        for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
            if (tensor__isa_set(isas[k]) < 0) continue;
            for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
                if (!dd && !fns[f].vf) continue;
                TensorOpArgs args = TENSOR_OP_ARGS_INIT;
                Tensor *y = tt_ok(tensor__unary(fns[f].op, x, &args, NULL));
                if (dd) aten_d(fns[f].vd, tensor_data_ptr(x), want, n);
                else aten_f(fns[f].vf, tensor_data_ptr(x), want, n);
                for (int64_t i = 0; i < n; i++) {
                    if (fns[f].trig && huge_in_group(x, i, dd ? 4 : 8)) continue;
                    bool ok = dd ? same_d(((const double *)tensor_data_ptr(y))[i], ((double *)want)[i])
                                 : same_f(((const float *)tensor_data_ptr(y))[i], ((float *)want)[i]);
                    cr_assert(ok, "%s %s on %s: element %lld differs from Sleef's vector lane", fns[f].name,
                              dd ? "float64" : "float32", tensor__isa_name(isas[k]), (long long)i);
                }
                tensor_decref(y);
            }
        }
        tensor__isa_level = -1;
        free(want);
        tensor_decref(x);
    }
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
