/* random.h — the generator's primitives, for kernels that draw numbers (dropout). */
#ifndef EMBER_SRC_TENSOR_RANDOM_H
#define EMBER_SRC_TENSOR_RANDOM_H

#include "src/tensor/tensor.h"

uint64_t tensor__rng_u64(void);
float tensor__rng_uniform_f(void);
double tensor__rng_uniform_d(void);
double tensor__rng_normal(void);

#endif
