/* random.c — Ember's seedable generator (xoshiro256**, seeded through splitmix64) and the
 * random factories and in-place fills built on it. Values differ from PyTorch's Philox/MT. */
#include "src/tensor/random.h"

#include <math.h>

static uint64_t rng_state[4];
static uint64_t rng_seed;
static bool rng_seeded;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tensor_manual_seed(uint64_t seed) {
    rng_seed = seed;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) rng_state[i] = splitmix64(&x);
    rng_seeded = true;
}

uint64_t tensor_initial_seed(void) { return rng_seed; }

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tensor__rng_u64(void) {
    if (!rng_seeded) tensor_manual_seed(67280421310721ULL);
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* uniform in [0, 1) with 24 random bits, exact in float */
float tensor__rng_uniform_f(void) { return (float)(tensor__rng_u64() >> 40) * (1.0f / 16777216.0f); }

double tensor__rng_uniform_d(void) { return (double)(tensor__rng_u64() >> 11) * (1.0 / 9007199254740992.0); }

double tensor__rng_normal(void) {
    /* Box-Muller; u1 in (0, 1] so log is finite */
    double u1 = 1.0 - tensor__rng_uniform_d();
    double u2 = tensor__rng_uniform_d();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static double draw(int kind, double a, double b) {
    return kind == 0 ? a + (b - a) * tensor__rng_uniform_d() : a + b * tensor__rng_normal();
}

static Tensor *fill_random(Tensor *t, int kind, double a, double b) {
    if (!t) return NULL;
    TensorDtype dt = (TensorDtype)t->dtype;
    char *p = tensor__data(t);
    size_t es = tensor__elsize(dt);
    for (int64_t i = 0; i < t->numel; i++) tensor__st_d(dt, p + (size_t)i * es, draw(kind, a, b));
    return t;
}

static int check_float(TensorDtype dt, const char *what) {
    if (!tensor__is_float(dt)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", what, tensor__cname(dt));
        return -1;
    }
    return 0;
}

Tensor *tensor_rand(TensorDtype dt, int ndim, const int64_t *shape) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    if (check_float(dt, "check_uniform_bounds") < 0) return NULL;
    return fill_random(tensor__new(dt, ndim, shape, false), 0, 0.0, 1.0);
}

Tensor *tensor_randn(TensorDtype dt, int ndim, const int64_t *shape) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = tensor_default_dtype();
    if (check_float(dt, "normal_kernel_cpu") < 0) return NULL;
    return fill_random(tensor__new(dt, ndim, shape, false), 1, 0.0, 1.0);
}

Tensor *tensor_randint(int64_t low, int64_t high, int ndim, const int64_t *shape) {
    if (high <= low) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                         (long long)low, (long long)high);
        return NULL;
    }
    Tensor *t = tensor__new(TENSOR_INT64, ndim, shape, false);
    if (!t) return NULL;
    uint64_t range = (uint64_t)(high - low);
    int64_t *p = tensor__i64(t);
    for (int64_t i = 0; i < t->numel; i++) p[i] = low + (int64_t)(tensor__rng_u64() % range);
    return t;
}

Tensor *tensor_rand_like(const Tensor *t) { return tensor_rand((TensorDtype)t->dtype, t->ndim, t->shape); }
Tensor *tensor_randn_like(const Tensor *t) { return tensor_randn((TensorDtype)t->dtype, t->ndim, t->shape); }

Tensor *tensor_bernoulli(const Tensor *probs) {
    if (check_float((TensorDtype)probs->dtype, "bernoulli_tensor_cpu_p_") < 0) return NULL;
    TensorDtype dt = (TensorDtype)probs->dtype;
    Tensor *p = tensor_contiguous((Tensor *)probs);
    if (!p) return NULL;
    Tensor *r = tensor__new(dt, probs->ndim, probs->shape, false);
    if (r) {
        const char *pp = tensor__data(p);
        char *o = tensor__data(r);
        size_t es = tensor__elsize(dt);
        for (int64_t i = 0; i < r->numel; i++) {
            double pi = tensor__ld_d(dt, pp + (size_t)i * es);
            if (!(pi >= 0.0 && pi <= 1.0)) {
                tensor_decref(r);
                tensor_decref(p);
                tensor_error_set(TENSOR_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
                return NULL;
            }
            tensor__st_d(dt, o + (size_t)i * es, tensor__rng_uniform_f() < pi ? 1.0 : 0.0);
        }
    }
    tensor_decref(p);
    return r;
}

/* fills a (possibly strided) float tensor element by element in C order */
static void fill_strided(Tensor *t, int kind, double a, double b) {
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    TensorDtype dt = (TensorDtype)t->dtype;
    char *base = tensor__data(t);
    size_t es = tensor__elsize(dt);
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t off = 0;
        for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
        tensor__st_d(dt, base + off * (int64_t)es, draw(kind, a, b));
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++idx[d] < t->shape[d]) break;
            idx[d] = 0;
        }
    }
}

int tensor_normal_(Tensor *t, double mean, double std) {
    if (check_float((TensorDtype)t->dtype, "normal_kernel_cpu") < 0) return -1;
    if (std < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_strided(t, 1, mean, std);
    return 0;
}

int tensor_uniform_(Tensor *t, double from, double to) {
    if (check_float((TensorDtype)t->dtype, "check_uniform_bounds") < 0) return -1;
    if (from > to) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
        return -1;
    }
    if (tensor__begin_inplace(t) < 0) return -1;
    fill_strided(t, 0, from, to);
    return 0;
}
