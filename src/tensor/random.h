/* random.h — the generator's draws (generator.c), for the kernels that consume them (random.c,
 * dropout in nn.c).  g is never NULL here: callers resolve NULL to tensor_default_generator(). */
#ifndef EMBER_SRC_TENSOR_RANDOM_H
#define EMBER_SRC_TENSOR_RANDOM_H

#include "src/tensor/dtype.h"
#include "src/tensor/tensor.h"

static inline TensorGenerator *tensor__gen(TensorGenerator *g) { return g ? g : tensor_default_generator(); }

#define MT_N 624

/* CPUGeneratorImpl's data: mt19937's state (MT19937RNGEngine.h) and the Box-Muller caches. The
 * draws are inline here because every random kernel makes one per element. */
struct TensorGenerator {
    uint64_t seed;
    int32_t left;
    bool seeded;
    uint32_t next;
    uint32_t state[MT_N];
    bool has_next_double, has_next_float;
    double next_double;
    float next_float;
};

void tensor__gen_next_state(TensorGenerator *g);   /* regenerates the 624 words */

/* one mt19937 draw (tempered) */
static inline uint32_t tensor__gen_random(TensorGenerator *g) {
    if (--g->left == 0) tensor__gen_next_state(g);
    uint32_t y = g->state[g->next++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* CPUGeneratorImpl::random64: two draws, the first in the high half */
static inline uint64_t tensor__gen_random64(TensorGenerator *g) {
    uint32_t hi = tensor__gen_random(g);
    uint32_t lo = tensor__gen_random(g);
    return ((uint64_t)hi << 32) | lo;
}

/* next_double_normal_sample: takes the cached second Box-Muller sample if there is one */
static inline bool tensor__gen_next_double_normal(TensorGenerator *g, double *out) {
    if (!g->has_next_double) return false;
    *out = g->next_double;
    g->has_next_double = false;
    return true;
}

static inline void tensor__gen_set_next_double_normal(TensorGenerator *g, double v) {
    g->next_double = v;
    g->has_next_double = true;
}

/* at::uniform_real_distribution<float>(0, 1) / <double>(0, 1) */
static inline float tensor__gen_uniform_f(TensorGenerator *g) {
    return (float)(tensor__gen_random(g) & ((1u << 24) - 1)) * (1.0f / 16777216.0f);
}
static inline double tensor__gen_uniform_d(TensorGenerator *g) {
    return (double)(tensor__gen_random64(g) & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* The dropout mask of PyTorch's _dropout: noise.bernoulli_(1 - p) in float, then div_(1 - p). */
void tensor__dropout_mask(float *mask, int64_t n, double p, TensorGenerator *g);
/* the same for the other floating dtypes (keep probability and scale in double) */
void tensor__dropout_mask_any(char *mask, TensorDtype dt, int64_t n, double p, TensorGenerator *g);

#endif
