/* random.h — the generator's draws (generator.c), for the kernels that consume them (random.c,
 * dropout in nn.c).  g is never NULL here: callers resolve NULL to tensor_default_generator(). */
#ifndef EMBER_SRC_TENSOR_RANDOM_H
#define EMBER_SRC_TENSOR_RANDOM_H

#include "src/tensor/tensor.h"

static inline TensorGenerator *tensor__gen(TensorGenerator *g) { return g ? g : tensor_default_generator(); }

uint32_t tensor__gen_random(TensorGenerator *g);     /* one mt19937 draw */
uint64_t tensor__gen_random64(TensorGenerator *g);   /* two draws, the first in the high half */
bool tensor__gen_next_double_normal(TensorGenerator *g, double *out);   /* takes the cached sample */
void tensor__gen_set_next_double_normal(TensorGenerator *g, double v);

/* at::uniform_real_distribution<float>(0, 1) / <double>(0, 1) */
static inline float tensor__gen_uniform_f(TensorGenerator *g) {
    return (float)(tensor__gen_random(g) & ((1u << 24) - 1)) * (1.0f / 16777216.0f);
}
static inline double tensor__gen_uniform_d(TensorGenerator *g) {
    return (double)(tensor__gen_random64(g) & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* The dropout mask of PyTorch's _dropout: noise.bernoulli_(1 - p) in float, then div_(1 - p). */
void tensor__dropout_mask(float *mask, int64_t n, double p, TensorGenerator *g);

#endif
