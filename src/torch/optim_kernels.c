/* src/torch/optim_kernels.c — see optim_kernels.h.  Each loop mirrors the sequence of tensor ops
 * of PyTorch 2.x's single-tensor SGD / Adam / AdamW, one float32 rounding per op (an add with
 * alpha, x.add_(y, alpha=a), is ATen's fused multiply-add fma(y, a, x): one rounding); the
 * loop-invariant choices are hoisted so every variant is a straight vectorizable loop. */
#include "src/torch/optim_kernels.h"

#include "src/tensor/isa.h"

#include <math.h>
#include <stddef.h>

static inline __attribute__((always_inline)) void sgd__body(float *restrict p, const float *restrict g,
                                                           float *restrict buf, int64_t n, const SgdArgs *a) {
    const float wd = a->weight_decay, m = a->momentum, omd = 1.0f - a->dampening, nlr = -a->lr;
    const float sign = a->maximize ? -1.0f : 1.0f;
    const bool has_wd = a->weight_decay != 0;
    if (a->momentum == 0) {
        if (!has_wd && !a->maximize) {
            for (int64_t i = 0; i < n; i++) p[i] = fmaf(g[i], nlr, p[i]);  /* param.add_(grad, alpha=-lr) */
            return;
        }
        for (int64_t i = 0; i < n; i++) {
            float d = sign * g[i];
            if (has_wd) d = fmaf(p[i], wd, d);                            /* d_p.add(param, alpha=wd) */
            p[i] = fmaf(d, nlr, p[i]);
        }
        return;
    }
    if (a->first) {
        for (int64_t i = 0; i < n; i++) {
            float d = sign * g[i];
            if (has_wd) d = fmaf(p[i], wd, d);
            buf[i] = d;                                                   /* buf = clone(d_p) */
            float u = a->nesterov ? fmaf(d, m, d) : d;
            p[i] = fmaf(u, nlr, p[i]);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        float d = sign * g[i];
        if (has_wd) d = fmaf(p[i], wd, d);
        float b = buf[i] * m;                                             /* buf.mul_(momentum) */
        b = fmaf(d, omd, b);                                              /*    .add_(d_p, alpha=1-dampening) */
        buf[i] = b;
        float u = a->nesterov ? fmaf(b, m, d) : b;                        /* d_p.add(buf, alpha=m) or buf */
        p[i] = fmaf(u, nlr, p[i]);                                        /* param.add_(d_p, alpha=-lr) */
    }
}

/* each loop once per vector instruction set (src/tensor/isa.h): the same bits on every path */
TENSOR_MULTIVERSION(sgd, (float *restrict p, const float *restrict g, float *restrict buf, int64_t n, const SgdArgs *a),
                    (p, g, buf, n, a))

void optim_sgd_kernel(float *p, const float *g, float *buf, int64_t n, const SgdArgs *a) {
    TENSOR_ISA_CALL(sgd, (p, g, buf, n, a));
}

/* one element loop per combination of the loop-invariant choices (AMSGRAD, L2, DECOUPLED are
 * constants where adam__loop is inlined), so each is straight-line code the compiler vectorizes:
 * no branch and no conditional store inside the loop.  The ops are PyTorch 1.13's
 * _single_tensor_adam / _single_tensor_adamw (the oracle's: 2.x moved to exp_avg.lerp_), each as
 * its ATen kernel rounds it: add with alpha is one fma, addcmul's last product is fused into its
 * add (the FMA-built kernel's contraction), addcdiv divides value * exp_avg by the denominator. */
static inline __attribute__((always_inline)) void adam__loop(float *restrict p, const float *restrict g,
                                                            float *restrict ea, float *restrict eas,
                                                            float *restrict mx, int64_t n, const bool AMSGRAD,
                                                            const bool L2, const bool DECOUPLED, float sign, float b1,
                                                            float w1, float b2, float omb2, float wd, float decay,
                                                            float fbc2, float eps, float nss) {
    for (int64_t i = 0; i < n; i++) {
        float gr = sign * g[i];
        float pv = p[i];
        if (DECOUPLED) pv = pv * decay;                                    /* AdamW: param.mul_(1 - lr*wd) */
        if (L2) gr = fmaf(pv, wd, gr);                                     /* grad.add(param, alpha=wd) */
        float m = fmaf(gr, w1, ea[i] * b1);                                /* exp_avg.mul_(b1).add_(grad, alpha=1-b1) */
        ea[i] = m;
        float v = fmaf(omb2 * gr, gr, eas[i] * b2);                        /* exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2) */
        eas[i] = v;
        float s = v;
        if (AMSGRAD) {
            float x = mx[i];
            s = (v > x || v != v) ? v : x;                                 /* torch.maximum(max, v, out=max) */
            mx[i] = s;
        }
        float den = __builtin_sqrtf(s) / fbc2 + eps;                       /* (sqrt(v) / bc2_sqrt).add_(eps) */
        p[i] = pv + nss * m / den;                                         /* param.addcdiv_(m, denom, -step_size) */
    }
}

static inline __attribute__((always_inline)) void adam__body(float *restrict p, const float *restrict g,
                                                            float *restrict ea, float *restrict eas,
                                                            float *restrict mx, int64_t n, const AdamArgs *a) {
    /* scalars as PyTorch computes them: Python floats, then float32 inside the kernels */
    double bias_correction1 = 1 - pow(a->beta1, a->step);
    double bias_correction2 = 1 - pow(a->beta2, a->step);
    double step_size = a->lr / bias_correction1;
    double bc2_sqrt = sqrt(bias_correction2);
    const float b1 = (float)a->beta1, w1 = (float)(1 - a->beta1), b2 = (float)a->beta2, omb2 = (float)(1 - a->beta2);
    const float wd = (float)a->weight_decay, decay = (float)(1 - a->lr * a->weight_decay);
    const float fbc2 = (float)bc2_sqrt, eps = (float)a->eps, nss = (float)-step_size;
    const float sign = a->maximize ? -1.0f : 1.0f;
    const bool l2 = !a->decoupled && a->weight_decay != 0, decoupled = a->decoupled, ams = mx != NULL;
#define ADAM_LOOP(AMS, L2_, DEC) adam__loop(p, g, ea, eas, mx, n, AMS, L2_, DEC, sign, b1, w1, b2, omb2, wd, decay, fbc2, eps, nss)
    /* the common cases get their own loop; the rest share one with the flags read per element */
    if (!ams && !l2 && !decoupled) ADAM_LOOP(false, false, false);
    else if (!ams && !l2 && decoupled) ADAM_LOOP(false, false, true);
    else if (!ams && l2 && !decoupled) ADAM_LOOP(false, true, false);
    else ADAM_LOOP(ams, l2, decoupled);
#undef ADAM_LOOP
}

TENSOR_MULTIVERSION(adam, (float *restrict p, const float *restrict g, float *restrict ea, float *restrict eas,
                           float *restrict mx, int64_t n, const AdamArgs *a),
                    (p, g, ea, eas, mx, n, a))

void optim_adam_kernel(float *p, const float *g, float *exp_avg, float *exp_avg_sq, float *max_sq, int64_t n,
                       const AdamArgs *a) {
    TENSOR_ISA_CALL(adam, (p, g, exp_avg, exp_avg_sq, max_sq, n, a));
}
