/* src/torch/optim_kernels.h — the element loops of torch.optim's update steps (optim.c): plain C
 * over contiguous float32 arrays, compiled with -O3 and without FP contraction so they vectorize
 * and round exactly as the scalar formulas written in them. */
#ifndef EMBER_TORCH_OPTIM_KERNELS_H
#define EMBER_TORCH_OPTIM_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SgdArgs {
    float lr, momentum, dampening, weight_decay;
    bool nesterov, maximize, first;   /* first: buf is uninitialised (first momentum step) */
} SgdArgs;

/* p, g, buf (NULL without momentum): n elements each, not overlapping. */
void optim_sgd_kernel(float *p, const float *g, float *buf, int64_t n, const SgdArgs *a);

typedef struct AdamArgs {
    double lr, beta1, beta2, eps, weight_decay, step;
    bool amsgrad, maximize, decoupled;
} AdamArgs;

/* max_sq is NULL unless amsgrad. */
void optim_adam_kernel(float *p, const float *g, float *exp_avg, float *exp_avg_sq, float *max_sq, int64_t n,
                       const AdamArgs *a);

#endif
