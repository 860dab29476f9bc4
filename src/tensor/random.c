/* random.c — the random factories and in-place fills, consuming the generator (generator.c)
 * exactly as PyTorch 1.13's CPU kernels do (ATen/native/cpu/DistributionTemplates.h,
 * DistributionKernels.cpp, MultinomialKernel.cpp, TensorFactories.cpp's randperm), so that a
 * seeded script prints PyTorch's numbers:
 *   - in-place fills walk the output in TensorIterator order (dims by decreasing stride);
 *   - uniform_ draws 24 bits (float) per element; bernoulli/exponential/per-element normal draw
 *     53-bit doubles;
 *   - normal_ of >= 16 contiguous floats is the AVX2 kernel PyTorch runs on this machine class:
 *     all uniforms first, then Box-Muller on blocks of 16 with avx_mathfun's log/sincos, the
 *     tail block redrawn; otherwise the double Box-Muller with its cached second sample.
 * Only float32 (and int64/bool where PyTorch accepts integers) are implemented. */
#include "src/tensor/random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- TensorIterator order ------------------------------------------------------------------------ */

/* Walks a tensor's elements in the order a one-output TensorIterator visits them: dims of size
 * 1 dropped, the rest outermost-first by decreasing stride (ties keep their order); a second
 * stride set (an input expanded to the output's shape) follows along. */
typedef struct Walk {
    int nd;
    int64_t shape[TENSOR_MAX_DIMS], s0[TENSOR_MAX_DIMS], s1[TENSOR_MAX_DIMS], idx[TENSOR_MAX_DIMS];
    int64_t off0, off1;
} Walk;

static void walk_init(Walk *w, const Tensor *t, const int64_t *strides1) {
    int perm[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] != 1) perm[n++] = d;
    for (int i = 1; i < n; i++) /* stable insertion sort, decreasing stride */
        for (int j = i; j > 0 && t->strides[perm[j]] > t->strides[perm[j - 1]]; j--) {
            int tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    w->nd = n;
    for (int i = 0; i < n; i++) {
        w->shape[i] = t->shape[perm[i]];
        w->s0[i] = t->strides[perm[i]];
        w->s1[i] = strides1 ? strides1[perm[i]] : 0;
        w->idx[i] = 0;
    }
    w->off0 = w->off1 = 0;
}

static inline void walk_next(Walk *w) {
    for (int d = w->nd - 1; d >= 0; d--) {
        w->off0 += w->s0[d];
        w->off1 += w->s1[d];
        if (++w->idx[d] < w->shape[d]) return;
        w->off0 -= w->s0[d] * w->shape[d];
        w->off1 -= w->s1[d] * w->shape[d];
        w->idx[d] = 0;
    }
}

/* (every sampler checks its target or input here first: a fake's, without data, stops it) */
static int check_float(const Tensor *t, const char *what) {
    if (t->storage->meta) return tensor__meta_data_error(what);
    if (!tensor__is_float((TensorDtype)t->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", what, tensor__cname((TensorDtype)t->dtype));
        return -1;
    }
    return 0;
}

/* Other dtypes than float32 / int64 are stored through the dtype table (rounding on store as
 * PyTorch's casts do). Their streams follow PyTorch's double kernels; only float32/int64 are
 * checked bit for bit against PyTorch so far. */
static inline void store_d(Tensor *t, int64_t off, double v) {
    TensorDtype dt = (TensorDtype)t->dtype;
    tensor__st_d(dt, tensor__data(t) + off * (int64_t)tensor__elsize(dt), v);
}

/* ---- normal: avx_mathfun's log256_ps / sincos256_ps, one lane at a time ------------------------- */

static inline uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* constants as avx_mathfun declares them: double literals stored into float arrays */
#define CF(x) ((float)(x))

/* The AVX2 build of these is compiled with -mfma and GCC's default -ffp-contract=fast: every
 * multiply feeding an add became one fused multiply-add, so they are spelled with fmaf here. */
static float avx_log(float x) {
    bool invalid = x <= 0.0f;
    float min_norm = bitsf(0x00800000u);
    x = x > min_norm ? x : min_norm;               /* _mm256_max_ps(x, min_norm_pos) */
    int32_t imm0 = (int32_t)(fbits(x) >> 23);
    x = bitsf((fbits(x) & ~0x7f800000u) | fbits(0.5f));
    imm0 -= 0x7f;
    float e = (float)imm0;
    e = e + 1.0f;
    bool mask = x < CF(0.707106781186547524);
    float tmp = mask ? x : 0.0f;
    x = x - 1.0f;
    e = e - (mask ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = CF(7.0376836292E-2);
    y = fmaf(y, x, CF(-1.1514610310E-1));
    y = fmaf(y, x, CF(1.1676998740E-1));
    y = fmaf(y, x, CF(-1.2420140846E-1));
    y = fmaf(y, x, CF(1.4249322787E-1));
    y = fmaf(y, x, CF(-1.6668057665E-1));
    y = fmaf(y, x, CF(2.0000714765E-1));
    y = fmaf(y, x, CF(-2.4999993993E-1));
    y = fmaf(y, x, CF(3.3333331174E-1));
    y = y * x;
    y = fmaf(y, z, e * CF(-2.12194440e-4));   /* GCC fuses the first multiply of a sum of two */
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    x = fmaf(e, CF(0.693359375), x);
    return invalid ? bitsf(0xffffffffu) : x;
}

static void avx_sincos(float xin, float *s, float *c) {
    uint32_t sign_bit_sin = fbits(xin) & 0x80000000u;
    float x = bitsf(fbits(xin) & 0x7fffffffu);
    float y = x * CF(1.27323954473516);
    int32_t imm2 = (int32_t)y;                     /* cvttps: truncation */
    imm2 = (imm2 + 1) & ~1;
    y = (float)imm2;
    int32_t imm4 = imm2;
    uint32_t swap_sign_bit_sin = ((uint32_t)imm2 & 4u) << 29;
    bool poly = (imm2 & 2) == 0;
    x = fmaf(y, CF(-0.78515625), x);
    x = fmaf(y, CF(-2.4187564849853515625e-4), x);
    x = fmaf(y, CF(-3.77489497744594108e-8), x);
    imm4 = imm4 - 2;
    uint32_t sign_bit_cos = ((uint32_t)~imm4 & 4u) << 29;
    sign_bit_sin ^= swap_sign_bit_sin;
    float z = x * x;
    y = CF(2.443315711809948E-005);
    y = fmaf(y, z, CF(-1.388731625493765E-003));
    y = fmaf(y, z, CF(4.166664568298827E-002));
    y = y * z;
    y = fmaf(y, z, -(z * 0.5f));
    y = y + 1.0f;
    float y2 = CF(-1.9515295891E-4);
    y2 = fmaf(y2, z, CF(8.3321608736E-3));
    y2 = fmaf(y2, z, CF(-1.6666654611E-1));
    y2 = y2 * z;
    y2 = fmaf(y2, x, x);
    float ysin2 = poly ? y2 : 0.0f, ysin1 = poly ? 0.0f : y;
    y2 = y2 - ysin2;
    y = y - ysin1;
    float r1 = ysin1 + ysin2, r2 = y + y2;
    *s = bitsf(fbits(r1) ^ sign_bit_sin);
    *c = bitsf(fbits(r2) ^ sign_bit_cos);
}

/* normal_fill_16_AVX2 */
static void normal_fill_16(float *data, float mean, float std) {
    const float two_pi = (float)(2.0f * 3.14159265358979323846);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - data[j], u2 = data[j + 8];
        float radius = sqrtf(-2.0f * avx_log(u1));
        float theta = two_pi * u2;
        float sn, cs;
        avx_sincos(theta, &sn, &cs);
        float n1 = radius * cs, n2 = radius * sn;
        data[j] = fmaf(n1, std, mean);
        data[j + 8] = fmaf(n2, std, mean);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same block with AVX2 + FMA instructions, op for op (the fused ones where the scalar code
 * calls fmaf), when the CPU has them: identical bits, 8 lanes at a time. */
#define V8(x) _mm256_set1_ps(CF(x))
__attribute__((target("avx2,fma"))) static __m256 avx2_log(__m256 x) {
    __m256 one = _mm256_set1_ps(1.0f);
    __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
    x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
    __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
    x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000)));
    x = _mm256_or_ps(x, _mm256_set1_ps(0.5f));
    imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7f));
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
    __m256 mask = _mm256_cmp_ps(x, V8(0.707106781186547524), _CMP_LT_OS);
    __m256 tmp = _mm256_and_ps(x, mask);
    x = _mm256_sub_ps(x, one);
    e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
    x = _mm256_add_ps(x, tmp);
    __m256 z = _mm256_mul_ps(x, x);
    __m256 y = V8(7.0376836292E-2);
    y = _mm256_fmadd_ps(y, x, V8(-1.1514610310E-1));
    y = _mm256_fmadd_ps(y, x, V8(1.1676998740E-1));
    y = _mm256_fmadd_ps(y, x, V8(-1.2420140846E-1));
    y = _mm256_fmadd_ps(y, x, V8(1.4249322787E-1));
    y = _mm256_fmadd_ps(y, x, V8(-1.6668057665E-1));
    y = _mm256_fmadd_ps(y, x, V8(2.0000714765E-1));
    y = _mm256_fmadd_ps(y, x, V8(-2.4999993993E-1));
    y = _mm256_fmadd_ps(y, x, V8(3.3333331174E-1));
    y = _mm256_mul_ps(y, x);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, V8(-2.12194440e-4)));
    y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
    x = _mm256_add_ps(x, y);
    x = _mm256_fmadd_ps(e, V8(0.693359375), x);
    return _mm256_or_ps(x, invalid);
}

__attribute__((target("avx2,fma"))) static void avx2_sincos(__m256 x, __m256 *s, __m256 *c) {
    __m256 sign_bit_sin = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000)));
    x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~(int)0x80000000)));
    __m256 y = _mm256_mul_ps(x, V8(1.27323954473516));
    __m256i imm2 = _mm256_cvttps_epi32(y);
    imm2 = _mm256_add_epi32(imm2, _mm256_set1_epi32(1));
    imm2 = _mm256_and_si256(imm2, _mm256_set1_epi32(~1));
    y = _mm256_cvtepi32_ps(imm2);
    __m256i imm4 = imm2;
    __m256i imm0 = _mm256_slli_epi32(_mm256_and_si256(imm2, _mm256_set1_epi32(4)), 29);
    imm2 = _mm256_cmpeq_epi32(_mm256_and_si256(imm2, _mm256_set1_epi32(2)), _mm256_setzero_si256());
    __m256 swap_sign_bit_sin = _mm256_castsi256_ps(imm0), poly_mask = _mm256_castsi256_ps(imm2);
    x = _mm256_fmadd_ps(y, V8(-0.78515625), x);
    x = _mm256_fmadd_ps(y, V8(-2.4187564849853515625e-4), x);
    x = _mm256_fmadd_ps(y, V8(-3.77489497744594108e-8), x);
    imm4 = _mm256_sub_epi32(imm4, _mm256_set1_epi32(2));
    imm4 = _mm256_andnot_si256(imm4, _mm256_set1_epi32(4));
    imm4 = _mm256_slli_epi32(imm4, 29);
    __m256 sign_bit_cos = _mm256_castsi256_ps(imm4);
    sign_bit_sin = _mm256_xor_ps(sign_bit_sin, swap_sign_bit_sin);
    __m256 z = _mm256_mul_ps(x, x);
    y = V8(2.443315711809948E-005);
    y = _mm256_fmadd_ps(y, z, V8(-1.388731625493765E-003));
    y = _mm256_fmadd_ps(y, z, V8(4.166664568298827E-002));
    y = _mm256_mul_ps(y, z);
    y = _mm256_fmsub_ps(y, z, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
    y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
    __m256 y2 = V8(-1.9515295891E-4);
    y2 = _mm256_fmadd_ps(y2, z, V8(8.3321608736E-3));
    y2 = _mm256_fmadd_ps(y2, z, V8(-1.6666654611E-1));
    y2 = _mm256_mul_ps(y2, z);
    y2 = _mm256_fmadd_ps(y2, x, x);
    __m256 ysin2 = _mm256_and_ps(poly_mask, y2), ysin1 = _mm256_andnot_ps(poly_mask, y);
    y2 = _mm256_sub_ps(y2, ysin2);
    y = _mm256_sub_ps(y, ysin1);
    *s = _mm256_xor_ps(_mm256_add_ps(ysin1, ysin2), sign_bit_sin);
    *c = _mm256_xor_ps(_mm256_add_ps(y, y2), sign_bit_cos);
}

__attribute__((target("avx2,fma"))) static void normal_fill_16_avx2(float *data, float mean, float std) {
    __m256 u1 = _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(data));
    __m256 u2 = _mm256_loadu_ps(data + 8);
    __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), avx2_log(u1)));
    __m256 theta = _mm256_mul_ps(_mm256_set1_ps((float)(2.0f * 3.14159265358979323846)), u2);
    __m256 sn, cs;
    avx2_sincos(theta, &sn, &cs);
    __m256 sv = _mm256_set1_ps(std), mv = _mm256_set1_ps(mean);
    _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, cs), sv, mv));
    _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sn), sv, mv));
}

static bool have_avx2_fma(void) {
    static int known = -1;
    if (known < 0) known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return known;
}
#else
static bool have_avx2_fma(void) { return false; }
static void normal_fill_16_avx2(float *data, float mean, float std) { normal_fill_16(data, mean, std); }
#endif

static void normal_fill(float *data, int64_t size, float mean, float std, TensorGenerator *g) {
    void (*block)(float *, float, float) = have_avx2_fma() ? normal_fill_16_avx2 : normal_fill_16;
    for (int64_t i = 0; i < size; i++) data[i] = tensor__gen_uniform_f(g);
    for (int64_t i = 0; i < size - 15; i += 16) block(data + i, mean, std);
    if (size % 16 != 0) {
        data += size - 16;   /* the last 16 are drawn again */
        for (int i = 0; i < 16; i++) data[i] = tensor__gen_uniform_f(g);
        block(data, mean, std);
    }
}

/* at::normal_distribution<double>: Box-Muller, the sin half cached in the generator */
static double normal_double(TensorGenerator *g, double mean, double std) {
    double ret;
    if (tensor__gen_next_double_normal(g, &ret)) return ret * std + mean;
    double u1 = tensor__gen_uniform_d(g), u2 = tensor__gen_uniform_d(g);
    double r = sqrt(-2.0 * log(1.0 - u2));
    double theta = 2.0 * 3.14159265358979323846 * u1;
    tensor__gen_set_next_double_normal(g, r * sin(theta));
    ret = r * cos(theta);
    return ret * std + mean;
}

/* x[i] = fma(x[i], a, b): fused like the AVX2 build's x * (to - from) + from; with FMA
 * instructions when the CPU has them (fmaf is a library call without -mfma) */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void scale_shift_avx2(float *x, int64_t n, float a, float b) {
    __m256 av = _mm256_set1_ps(a), bv = _mm256_set1_ps(b);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), av, bv));
    for (; i < n; i++) x[i] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(x[i]), _mm_set_ss(a), _mm_set_ss(b)));
}
#endif

static void scale_shift(float *x, int64_t n, float a, float b) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_avx2_fma()) {
        scale_shift_avx2(x, n, a, b);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++) x[i] = fmaf(x[i], a, b);
}

static void fill_normal(Tensor *t, double mean, double std, TensorGenerator *g) {
    if (t->dtype != TENSOR_FLOAT32) {
        Walk w;
        walk_init(&w, t, NULL);
        if (t->dtype == TENSOR_FLOAT64 && t->numel >= 16 && tensor__contig(t)) {
            /* normal_fill<double>: all uniforms, then Box-Muller on blocks of 16, tail redrawn */
            double *d = (double *)tensor__data(t);
            int64_t n = t->numel;
            for (int64_t i = 0; i < n; i++) d[i] = tensor__gen_uniform_d(g);
            for (int64_t i = 0; i <= n - 16; i += 16) {
                for (int j = 0; j < 8; j++) {
                    double u1 = 1 - d[i + j], u2 = d[i + j + 8];
                    double radius = sqrt(-2 * log(u1)), theta = 2.0f * 3.14159265358979323846 * u2;
                    d[i + j] = fma(radius * cos(theta), std, mean);
                    d[i + j + 8] = fma(radius * sin(theta), std, mean);
                }
            }
            if (n % 16 != 0) {
                double *e = d + n - 16;
                for (int j = 0; j < 16; j++) e[j] = tensor__gen_uniform_d(g);
                for (int j = 0; j < 8; j++) {
                    double u1 = 1 - e[j], u2 = e[j + 8];
                    double radius = sqrt(-2 * log(u1)), theta = 2.0f * 3.14159265358979323846 * u2;
                    e[j] = fma(radius * cos(theta), std, mean);
                    e[j + 8] = fma(radius * sin(theta), std, mean);
                }
            }
            return;
        }
        for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) store_d(t, w.off0, normal_double(g, mean, std));
        return;
    }
    if (t->numel >= 16 && tensor__contig(t)) {
        normal_fill(tensor__f32(t), t->numel, (float)mean, (float)std, g);
        return;
    }
    float *base = tensor__f32(t);
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) base[w.off0] = (float)normal_double(g, mean, std);
}

static void fill_uniform(Tensor *t, double from_, double to_, TensorGenerator *g) {
    if (t->dtype != TENSOR_FLOAT32) {
        /* uniform_real_distribution<T>: 53 bits for double, the mantissa's digits (11 half,
         * 8 bfloat16) of a 32-bit draw otherwise; from/to rounded to T first */
        TensorDtype dt = (TensorDtype)t->dtype;
        bool dbl = dt == TENSOR_FLOAT64;
        int digits = dbl ? 53 : dt == TENSOR_FLOAT16 ? 11 : 8;
        double from = from_, to = to_;
        char tmp[8];
        tensor__st_d(dt, tmp, from_);
        from = tensor__ld_d(dt, tmp);
        tensor__st_d(dt, tmp, to_);
        to = tensor__ld_d(dt, tmp);
        Walk w;
        walk_init(&w, t, NULL);
        for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) {
            uint64_t v = dbl ? tensor__gen_random64(g) : tensor__gen_random(g);
            double x = (double)(v & ((1ULL << digits) - 1)) / (double)(1ULL << digits);
            store_d(t, w.off0, dbl ? fma(x, to - from, from) : (double)fmaf((float)x, (float)to - (float)from, (float)from));
        }
        return;
    }
    float from = (float)from_, to = (float)to_, *base = tensor__f32(t);
    if (tensor__contig(t)) {
        for (int64_t i = 0; i < t->numel; i++) base[i] = tensor__gen_uniform_f(g);
        scale_shift(base, t->numel, to - from, from);
        return;
    }
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) {
        float x = tensor__gen_uniform_f(g);
        base[w.off0] = fmaf(x, to - from, from);   /* the AVX2 build contracts x * (to - from) + from */
    }
}

/* ---- factories ---------------------------------------------------------------------------------- */

Tensor *tensor_rand_gen(TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    Tensor *t = tensor__new(dt, ndim, shape, false);
    if (!t) return NULL;
    if (check_float(t, "check_uniform_bounds") < 0) {
        tensor_decref(t);
        return NULL;
    }
    fill_uniform(t, 0.0, 1.0, tensor__gen(g));
    return t;
}

Tensor *tensor_randn_gen(TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    Tensor *t = tensor__new(dt, ndim, shape, false);
    if (!t) return NULL;
    if (check_float(t, "normal_kernel_cpu") < 0) {
        tensor_decref(t);
        return NULL;
    }
    fill_normal(t, 0.0, 1.0, tensor__gen(g));
    return t;
}


/* random_(from, to): uniform_int_from_to_distribution — 32-bit draws unless the range needs 64 */
static int fill_random_from_to(Tensor *t, int64_t from, int64_t to, TensorGenerator *g) {
    if (from >= to) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                         (long long)from, (long long)to);
        return -1;
    }
    /* ATen's check_from_to_in_range: both ends within the dtype's range (integer types; floating
     * ones by their finite range) */
    double lo, hi;
    switch (t->dtype) {
    case TENSOR_UINT8: lo = 0, hi = 255; break;
    case TENSOR_INT8: lo = -128, hi = 127; break;
    case TENSOR_INT16: lo = -32768, hi = 32767; break;
    case TENSOR_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
    case TENSOR_BOOL: lo = 0, hi = 1; break;
    case TENSOR_FLOAT16: lo = -65504, hi = 65504; break;
    case TENSOR_BFLOAT16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38; break;
    case TENSOR_FLOAT32: lo = -3.4028234663852886e38, hi = 3.4028234663852886e38; break;
    default: lo = -INFINITY, hi = INFINITY; break;
    }
    const char *which = (double)from < lo || (double)from > hi ? "from"
                        : (double)(to - 1) < lo || (double)(to - 1) > hi ? "to - 1" : NULL;
    if (which) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s is out of bounds for %s", which, tensor__dt((TensorDtype)t->dtype)->ctype);
        return -1;
    }
    uint64_t range = (uint64_t)to - (uint64_t)from;
    bool wide = range >= (1ULL << 32) && t->dtype != TENSOR_BOOL;
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) {
        uint64_t v = wide ? tensor__gen_random64(g) : tensor__gen_random(g);
        int64_t r = (int64_t)((v % range) + (uint64_t)from);
        switch (t->dtype) {
        case TENSOR_FLOAT32: tensor__f32(t)[w.off0] = (float)r; break;
        case TENSOR_INT64: tensor__i64(t)[w.off0] = r; break;
        case TENSOR_BOOL: tensor__b8(t)[w.off0] = r != 0; break;
        default: store_d(t, w.off0, (double)r); break;
        }
    }
    return 0;
}

Tensor *tensor_randint_gen(int64_t low, int64_t high, TensorDtype dt, int ndim, const int64_t *shape, TensorGenerator *g) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = TENSOR_INT64;
    Tensor *t = tensor__new(dt, ndim, shape, false);
    if (!t) return NULL;
    if (fill_random_from_to(t, low, high, tensor__gen(g)) < 0) {
        tensor_decref(t);
        return NULL;
    }
    return t;
}

Tensor *tensor_randperm(int64_t n, TensorDtype dt, TensorGenerator *g) {
    if (n < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: [%lld]", (long long)n, (long long)n);
        return NULL;
    }
    if (dt == TENSOR_DTYPE_DEFAULT) dt = TENSOR_INT64;
    if (dt == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"randperm\" not implemented for 'Bool'");
        return NULL;
    }
    if (dt == TENSOR_FLOAT32 && n > (1LL << 24) + 1) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "n cannot be greater than 2^24+1 for Float type.");
        return NULL;
    }
    g = tensor__gen(g);
    int64_t *p = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!p) {
        tensor__oom();
        return NULL;
    }
    if (n < (int64_t)(UINT32_MAX / 20)) {
        /* Fisher-Yates with 32-bit draws (the only algorithm PyTorch 1.13 has) */
        for (int64_t i = 0; i < n; i++) p[i] = i;
        for (int64_t i = 0; i < n - 1; i++) {
            int64_t z = (int64_t)(tensor__gen_random(g) % (uint64_t)(n - i));
            int64_t sav = p[i];
            p[i] = p[z + i];
            p[z + i] = sav;
        }
    } else {
        /* large n: the inside-out variant with 64-bit draws, so % stays unbiased */
        for (int64_t i = 0; i < n; i++) {
            int64_t z = (int64_t)(tensor__gen_random64(g) % (uint64_t)(i + 1));
            p[i] = p[z];
            p[z] = i;
        }
    }
    Tensor *t = tensor__new(dt, 1, &n, false);
    if (t) {
        if (dt == TENSOR_INT64) memcpy(tensor__i64(t), p, sizeof(int64_t) * (size_t)n);
        else for (int64_t i = 0; i < n; i++) store_d(t, i, (double)p[i]);
    }
    free(p);
    return t;
}

/* ---- in-place fills ----------------------------------------------------------------------------- */

int tensor_normal_gen_(Tensor *t, double mean, double std, TensorGenerator *g) {
    if (check_float(t, "normal_kernel_cpu") < 0) return -1;
    if (std < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_normal(t, mean, std, tensor__gen(g));
    return 0;
}

int tensor_uniform_gen_(Tensor *t, double from, double to, TensorGenerator *g) {
    if (check_float(t, "check_uniform_bounds") < 0) return -1;
    if (from > to) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_uniform(t, from, to, tensor__gen(g));
    return 0;
}

/* The serial kernels below (DistributionTemplates.h's cpu_serial_kernel): one 53-bit uniform
 * per element in TensorIterator order, mapped by `f` with the distribution's two parameters. */
typedef double (*UniformMap)(double u, double a, double b);

static void fill_mapped_uniform(Tensor *t, TensorGenerator *g, UniformMap f, double a, double b) {
    g = tensor__gen(g);
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) store_d(t, w.off0, f(tensor__gen_uniform_d(g), a, b));
}

static double exponential_of(double u, double lambd, double unused) {
    (void)unused;
    return -1.0 / lambd * log(1.0 - u);
}

static double cauchy_of(double u, double median, double sigma) {
    return median + sigma * tan(3.14159265358979323846 * (u - 0.5));
}

static double geometric_of(double u, double p, double unused) {
    (void)unused;
    return ceil(log(u) / log1p(-p));
}

int tensor_exponential_(Tensor *t, double lambd, TensorGenerator *g) {
    if (check_float(t, "exponential_cpu") < 0) return -1;
    if (!(lambd >= 0.0)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=%g", lambd);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_mapped_uniform(t, g, exponential_of, lambd, 0);
    return 0;
}

/* cauchy_ / log_normal_ / geometric_: DistributionTemplates.h's cpu_serial_kernels, one double
 * distribution draw per element in TensorIterator order (cauchy and geometric map one 53-bit
 * uniform, log_normal uses the double Box-Muller with its cached second sample) */
int tensor_cauchy_(Tensor *t, double median, double sigma, TensorGenerator *g) {
    if (check_float(t, "cauchy_cpu") < 0) return -1;   /* ATen 1.13 does not check sigma */
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_mapped_uniform(t, g, cauchy_of, median, sigma);
    return 0;
}

int tensor_log_normal_(Tensor *t, double mean, double std, TensorGenerator *g) {
    if (check_float(t, "log_normal_cpu") < 0) return -1;
    if (!(std > 0.0)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%g", std);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    g = tensor__gen(g);
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) store_d(t, w.off0, exp(normal_double(g, mean, std)));
    return 0;
}

int tensor_geometric_(Tensor *t, double p, TensorGenerator *g) {
    if (t->dtype == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"geometric_cpu\" not implemented for 'Bool'");
        return -1;
    }
    if (!(p > 0 && p < 1)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g", p);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_mapped_uniform(t, g, geometric_of, p, 0);
    return 0;
}

/* Distributions.cpp's sample_poisson: Hoermann's transformed rejection for rates >= 10, else
 * the product of uniforms */
static int64_t sample_poisson(double lambda, TensorGenerator *g) {
    if (lambda >= 10) {
        double slam = sqrt(lambda), loglam = log(lambda);
        double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double U = tensor__gen_uniform_d(g) - 0.5, V = tensor__gen_uniform_d(g);
            double us = 0.5 - fabs(U);
            int64_t k = (int64_t)floor((2 * a / us + b) * U + lambda + 0.43);
            if (us >= 0.07 && V <= vr) return k;
            if (k < 0 || (us < 0.013 && V > us)) continue;
            if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lambda + (double)k * loglam - lgamma((double)k + 1))
                return k;
        }
    }
    if (lambda == 0) return 0;
    double enlam = exp(-lambda), prod = 1.0;
    int64_t x = 0;
    for (;;) {
        prod *= tensor__gen_uniform_d(g);
        if (prod > enlam) x++;
        else return x;
    }
}

/* torch.poisson(rates): one sample per rate, in the (contiguous) output's order */
Tensor *tensor_poisson(const Tensor *rates, TensorGenerator *g) {
    if (check_float(rates, "poisson_cpu") < 0) return NULL;
    Tensor *rc = tensor_contiguous((Tensor *)rates);
    if (!rc) return NULL;
    Tensor *r = tensor__new((TensorDtype)rates->dtype, rates->ndim, rates->shape, true);
    if (!r) {
        tensor_decref(rc);
        return NULL;
    }
    g = tensor__gen(g);
    TensorDtype dt = (TensorDtype)rc->dtype;
    size_t es = tensor__elsize(dt);
    const char *src = tensor__data(rc);
    for (int64_t i = 0; i < rc->numel; i++) {
        double lam = tensor__ld_d(dt, src + (size_t)i * es);
        if (!(lam >= 0)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "invalid Poisson rate, expected rate to be non-negative");
            tensor_decref(rc);
            tensor_decref(r);
            return NULL;
        }
        store_d(r, i, (double)sample_poisson(lam, g));
    }
    tensor_decref(rc);
    return r;
}

/* random_() / random_(to) / random_(from, to); has_to false: the dtype's full range */
int tensor_random_(Tensor *t, int64_t from, int64_t to, bool has_to, TensorGenerator *g) {
    g = tensor__gen(g);
    if (has_to) {
        if (tensor__begin_inplace(t) < 0) return -1;
        return fill_random_from_to(t, from, to, g);
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) {
        switch (t->dtype) {
        case TENSOR_INT64: tensor__i64(t)[w.off0] = (int64_t)(tensor__gen_random64(g) % ((uint64_t)INT64_MAX + 1)); break;
        case TENSOR_FLOAT32: tensor__f32(t)[w.off0] = (float)(tensor__gen_random(g) % ((1u << 24) + 1)); break;
        case TENSOR_FLOAT64: store_d(t, w.off0, (double)(tensor__gen_random64(g) % ((1ULL << 53) + 1))); break;
        case TENSOR_BOOL: tensor__b8(t)[w.off0] = (tensor__gen_random(g) & 1) != 0; break;
        default: store_d(t, w.off0, (double)tensor__gen_random(g)); break;
        }
    }
    return 0;
}

static void store01(Tensor *t, int64_t off, bool v) {
    switch (t->dtype) {
    case TENSOR_FLOAT32: tensor__f32(t)[off] = v ? 1.0f : 0.0f; break;
    case TENSOR_INT64: tensor__i64(t)[off] = v; break;
    case TENSOR_BOOL: tensor__b8(t)[off] = v; break;
    default: store_d(t, off, v ? 1.0 : 0.0); break;
    }
}

/* bernoulli_(p: float): a 53-bit uniform per element */
int tensor_bernoulli_scalar_(Tensor *t, double p, TensorGenerator *g) {
    if (!(p >= 0.0 && p <= 1.0)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    g = tensor__gen(g);
    Walk w;
    walk_init(&w, t, NULL);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) store01(t, w.off0, tensor__gen_uniform_d(g) < p);
    return 0;
}

/* bernoulli_(p: Tensor): p expanded to t's shape; float p draws 24-bit uniforms */
int tensor_bernoulli_tensor_(Tensor *t, const Tensor *p, TensorGenerator *g) {
    if (check_float(p, "bernoulli_tensor_cpu_p_") < 0) return -1;
    int64_t ps[TENSOR_MAX_DIMS];
    if (p->ndim > t->ndim) goto bad_shape;
    for (int d = 0; d < t->ndim; d++) {
        int pd = d - (t->ndim - p->ndim);
        if (pd < 0) ps[d] = 0;
        else if (p->shape[pd] == t->shape[d]) ps[d] = p->strides[pd];
        else if (p->shape[pd] == 1) ps[d] = 0;
        else goto bad_shape;
    }
    TensorDtype pdt = (TensorDtype)p->dtype;
    const char *pp = tensor__data(p);
    size_t pes = tensor__elsize(pdt);
#define PV(off) tensor__ld_d(pdt, pp + (off) * (int64_t)pes)
    Walk w;
    walk_init(&w, t, ps);
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w)) {
        double pv = PV(w.off1);
        if (!(pv >= 0.0 && pv <= 1.0)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                                                 "message be improved?  If so, please report an enhancement request to PyTorch.)");
            return -1;
        }
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    g = tensor__gen(g);
    walk_init(&w, t, ps);
    /* a double p draws 53-bit uniforms, other floating p bernoulli_distribution<float> */
    for (int64_t i = 0; i < t->numel; i++, walk_next(&w))
        store01(t, w.off0, pdt == TENSOR_FLOAT64 ? tensor__gen_uniform_d(g) < PV(w.off1) : tensor__gen_uniform_f(g) < (float)PV(w.off1));
#undef PV
    return 0;
bad_shape:;
    char a[128], b[128];
    tensor__format_shape(a, sizeof a, p->ndim, p->shape);
    tensor__format_shape(b, sizeof b, t->ndim, t->shape);
    tensor_error_set(TENSOR_ERR_RUNTIME, "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided must be compatible", a, b);
    return -1;
}

Tensor *tensor_bernoulli_gen(const Tensor *probs, TensorGenerator *g) {
    if (check_float(probs, "bernoulli_tensor_cpu_p_") < 0) return NULL;
    Tensor *r = tensor__new((TensorDtype)probs->dtype, probs->ndim, probs->shape, false);
    if (!r) return NULL;
    if (tensor_bernoulli_tensor_(r, probs, g) < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

void tensor__dropout_mask(float *mask, int64_t n, double p, TensorGenerator *g) {
    if (p >= 1.0) { /* PyTorch multiplies by zeros without drawing */
        memset(mask, 0, sizeof(float) * (size_t)n);
        return;
    }
    g = tensor__gen(g);
    double keep = 1.0 - p;
    for (int64_t i = 0; i < n; i++) mask[i] = (tensor__gen_uniform_d(g) < keep ? 1.0f : 0.0f) / (float)keep;
}

void tensor__dropout_mask_any(char *mask, TensorDtype dt, int64_t n, double p, TensorGenerator *g) {
    size_t es = tensor__elsize(dt);
    if (p >= 1.0) {
        memset(mask, 0, es * (size_t)n);
        return;
    }
    g = tensor__gen(g);
    double keep = 1.0 - p;
    for (int64_t i = 0; i < n; i++) tensor__st_d(dt, mask + (size_t)i * es, (tensor__gen_uniform_d(g) < keep ? 1.0 : 0.0) / keep);
}

/* ---- multinomial ---------------------------------------------------------------------------------- */

typedef struct { float v; int64_t i; } Ranked;

static int rank_desc(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Puts the k first entries of row in rank_desc's order at its front, in that order.  A few samples
 * out of many categories (a language model's next tokens) keep a sorted front of k and insert
 * into it only what beats its last: sorting the whole row was 3x PyTorch's time for 16 of 1000.
 * The order is rank_desc's either way, so both paths give the same samples. */
static void top_ranked(Ranked *row, int64_t n, int64_t k) {
    if (k * 16 > n) {
        qsort(row, (size_t)n, sizeof(Ranked), rank_desc);
        return;
    }
    qsort(row, (size_t)k, sizeof(Ranked), rank_desc);
    for (int64_t j = k; j < n; j++) {
        if (rank_desc(&row[j], &row[k - 1]) >= 0) continue;
        Ranked x = row[j];
        int64_t at = k - 1;
        while (at > 0 && rank_desc(&x, &row[at - 1]) < 0) {
            row[at] = row[at - 1];
            at--;
        }
        row[at] = x;
    }
}

Tensor *tensor_multinomial(const Tensor *probs, int64_t n_sample, bool replacement, TensorGenerator *g) {
    if (probs->ndim < 1 || probs->ndim > 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
        return NULL;
    }
    if (!tensor__is_float((TensorDtype)probs->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "multinomial only supports floating-point dtypes for input, got: %s",
                         tensor__cname((TensorDtype)probs->dtype));
        return NULL;
    }
    if (probs->dtype != TENSOR_FLOAT32) {
        /* the float32 kernel on a converted copy (PyTorch accumulates a double input in double) */
        Tensor *f = tensor__as_dtype(probs, TENSOR_FLOAT32);
        if (!f) return NULL;
        Tensor *r = tensor_multinomial(f, n_sample, replacement, g);
        tensor_decref(f);
        return r;
    }
    if (n_sample <= 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
        return NULL;
    }
    int64_t n_cat = probs->shape[probs->ndim - 1];
    int64_t n_dist = probs->ndim == 2 ? probs->shape[0] : 1;
    if (!replacement && n_sample > n_cat) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        return NULL;
    }
    if (n_cat > (1LL << 24)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "number of categories cannot exceed 2^24");
        return NULL;
    }
    g = tensor__gen(g);
    int64_t cs = probs->strides[probs->ndim - 1], rs = probs->ndim == 2 ? probs->strides[0] : 0;
    const float *pp = tensor__f32(probs);
    int64_t oshape[2] = {n_dist, n_sample};
    Tensor *out = probs->ndim == 2 ? tensor__new(TENSOR_INT64, 2, oshape, false) : tensor__new(TENSOR_INT64, 1, &n_sample, false);
    if (!out) return NULL;
    int64_t *o = tensor__i64(out);
    if (!replacement) {
        /* the Gumbel trick PyTorch uses: top-k of p / q with q ~ Exp(1), q drawn for every entry
         * (PyTorch 1.13 takes it without replacement only; one sample with replacement still
         * goes through the cumulative distribution below) */
        bool ok = true, zero_row = false;
        for (int64_t r = 0; r < n_dist; r++) {
            float sum = 0.0f;
            for (int64_t j = 0; j < n_cat; j++) {
                float v = pp[r * rs + j * cs];
                if (!(v < INFINITY) || !(v >= 0.0f)) ok = false;
                sum += v;
            }
            if (sum == 0.0f) zero_row = true;
        }
        if (!ok || zero_row) {
            tensor_decref(out);
            tensor_error_set(TENSOR_ERR_RUNTIME, !ok ? "probability tensor contains either `inf`, `nan` or element < 0"
                                                     : "invalid multinomial distribution (sum of probabilities <= 0)");
            return NULL;
        }
        Ranked *q = malloc(sizeof(Ranked) * (size_t)(n_dist * n_cat));
        if (!q) {
            tensor_decref(out);
            tensor__oom();
            return NULL;
        }
        for (int64_t k = 0; k < n_dist * n_cat; k++) q[k].v = (float)(-1.0 * log(1.0 - tensor__gen_uniform_d(g)));
        for (int64_t r = 0; r < n_dist; r++) {
            Ranked *row = q + r * n_cat;
            for (int64_t j = 0; j < n_cat; j++) {
                row[j].v = pp[r * rs + j * cs] / row[j].v;
                row[j].i = j;
            }
            if (n_sample == 1) {
                int64_t best = 0; /* argmax: first maximum, NaN wins */
                for (int64_t j = 1; j < n_cat; j++)
                    if (!isnan(row[best].v) && (isnan(row[j].v) || row[j].v > row[best].v)) best = j;
                o[r * n_sample] = best;
            } else {
                top_ranked(row, n_cat, n_sample);
                for (int64_t j = 0; j < n_sample; j++) o[r * n_sample + j] = row[j].i;
            }
        }
        free(q);
        return out;
    }
    float *cum = malloc(sizeof(float) * (size_t)n_cat);
    if (!cum) {
        tensor_decref(out);
        tensor__oom();
        return NULL;
    }
    for (int64_t r = 0; r < n_dist; r++) {
        float sum = 0.0f;
        for (int64_t j = 0; j < n_cat; j++) {
            float v = pp[r * rs + j * cs];
            const char *bad = !(v >= 0.0f) ? "invalid multinomial distribution (encountering probability entry < 0)"
                              : !isfinite(v) ? "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
                                             : NULL;
            if (bad) {
                free(cum);
                tensor_decref(out);
                tensor_error_set(TENSOR_ERR_RUNTIME, "%s", bad);
                return NULL;
            }
            sum += v;
            cum[j] = sum;
        }
        if (!(sum > 0.0f)) {
            free(cum);
            tensor_decref(out);
            tensor_error_set(TENSOR_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
            return NULL;
        }
        for (int64_t j = 0; j < n_cat; j++) cum[j] /= sum;
        for (int64_t j = 0; j < n_sample; j++) {
            double u = tensor__gen_uniform_d(g);
            int64_t left = 0, right = n_cat;
            cum[n_cat - 1] = 1.0f;
            while (right - left > 0) {
                int64_t mid = left + (right - left) / 2;
                if (cum[mid] < u) left = mid + 1;
                else right = mid;
            }
            o[r * n_sample + j] = left;
        }
    }
    free(cum);
    return out;
}
