/* batch_norm.c — the fused batch-norm kernels (ops.def BATCH_NORM and BATCH_NORM_BACKWARD):
 * PyTorch's native_batch_norm over an (N, C, *) input, per channel, float32 and float64.
 *
 * Forward: ATen 1.13's statistics, running-statistics update and transform, operation for
 * operation (BN_KERNELS says how), updating the running statistics in place.
 * Backward: one pass per channel for sum(dy) and sum(dy * (x - mean)), one for grad_input
 * (PyTorch's batch_norm_backward_cpu_template); grad_weight and grad_bias from those sums.
 * This replaces ~14 passes per layer of the composed version (mean, var, rsqrt, mul, add, and
 * their backwards). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/kernels.h"
#include "src/tensor/tensor.h"

/* the channel count and the per-channel geometry of an (N, C, *) tensor */
static int bn_geometry(const TensorMeta *x, int64_t *N, int64_t *C, int64_t *S) {
    if (x->ndim < 2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm: expected an input of at least 2 dims, got %d", x->ndim);
        return -1;
    }
    if (x->dtype != TENSOR_FLOAT32 && x->dtype != TENSOR_FLOAT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"batch_norm\" not implemented for '%s'", tensor_dtype_name((TensorDtype)x->dtype));
        return -1;
    }
    *N = x->shape[0];
    *C = x->shape[1];
    int64_t s = 1;
    for (int i = 2; i < x->ndim; i++) s *= x->shape[i];
    *S = s;
    return 0;
}

/* a per-channel tensor (weight, bias, running stats, saved stats) must be (C,) of x's dtype */
static int bn_check_channel(const TensorMeta *t, const TensorMeta *x, int64_t C, const char *what) {
    if (!t) return 0;
    if (t->ndim != 1 || t->shape[0] != C) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm: %s should contain %lld elements", what, (long long)C);
        return -1;
    }
    if (t->dtype != x->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm: expected %s to have dtype %s, got %s", what,
                         tensor_dtype_name((TensorDtype)x->dtype), tensor_dtype_name((TensorDtype)t->dtype));
        return -1;
    }
    return 0;
}

static const TensorMeta *opt_in(const TensorMeta *const *in, int n_in, int i) { return n_in > i ? in[i] : NULL; }
static Tensor *opt_t(Tensor *const *in, int n_in, int i) { return n_in > i ? in[i] : NULL; }

/* (input, weight?, bias?, running_mean?, running_var?), train, p = momentum, eps
 *   -> (output, save_mean (C), save_invstd (C)) */
TENSOR_INFER(batch_norm) {
    (void)op, (void)a, (void)max_out;
    const TensorMeta *x = in[0];
    int64_t N, C, S;
    if (bn_geometry(x, &N, &C, &S) < 0) return -1;
    static const char *const what[] = {"", "weight", "bias", "running_mean", "running_var"};
    for (int i = 1; i < 5; i++)
        if (bn_check_channel(opt_in(in, n_in, i), x, C, what[i]) < 0) return -1;
    if (!a->train && (!opt_in(in, n_in, 3) || !opt_in(in, n_in, 4))) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm: running_mean and running_var must be defined in evaluation mode");
        return -1;
    }
    if (a->train && N * S <= 1) {
        tensor_error_set(TENSOR_ERR_VALUE, "Expected more than 1 value per channel when training, got input size %lld",
                         (long long)(N * S));
        return -1;
    }
    tensor__meta_contiguous(&out[0], (TensorDtype)x->dtype, x->ndim, x->shape);
    tensor__meta_contiguous(&out[1], (TensorDtype)x->dtype, 1, &C);
    tensor__meta_contiguous(&out[2], (TensorDtype)x->dtype, 1, &C);
    return 3;
}

/* (grad_output, input, save_mean, save_invstd, weight?), train -> (grad_input, grad_weight, grad_bias) */
TENSOR_INFER(batch_norm_backward) {
    (void)op, (void)a, (void)max_out, (void)n_in;
    const TensorMeta *x = in[1];
    int64_t N, C, S;
    if (bn_geometry(x, &N, &C, &S) < 0) return -1;
    if (in[0]->ndim != x->ndim || memcmp(in[0]->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0 ||
        in[0]->dtype != x->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm_backward: grad_output must match the input's shape and dtype");
        return -1;
    }
    if (!in[2] || !in[3] || bn_check_channel(in[2], x, C, "save_mean") < 0 || bn_check_channel(in[3], x, C, "save_invstd") < 0 ||
        bn_check_channel(opt_in(in, n_in, 4), x, C, "weight") < 0)
        return -1;
    tensor__meta_contiguous(&out[0], (TensorDtype)x->dtype, x->ndim, x->shape);
    tensor__meta_contiguous(&out[1], (TensorDtype)x->dtype, 1, &C);
    tensor__meta_contiguous(&out[2], (TensorDtype)x->dtype, 1, &C);
    return 3;
}

/* the kernels of one family: SUF f (float) or d (double), T its element type, FMA its fused
 * multiply-add, SQRT its square root.
 *
 * The forward is ATen 1.13's, operation for operation, so its bits are PyTorch's (checked
 * element by element against the oracle over 2-, 3- and 4-dim inputs, training and eval):
 *   statistics (batch_norm_cpu_collect_stats): an input with one element per channel and sample
 *   (N, C) is "channels last": per-thread rows of T accumulate the samples channel by channel
 *   (the threads split N as at::parallel_for does), their sum in double over the threads then /
 *   N gives the mean rounded to T, and the squared deviations accumulate the same way with one
 *   rounding each (ATen's vector lambda y + (x - m) * (x - m), which GCC contracts); otherwise
 *   each channel sums its elements in double in memory order, mean = sum / N rounded to T, and
 *   the deviations' squares, rounded to T, add in double;
 *   then (batch_norm_cpu_update_stats_template) invstd = 1 / sqrt(var_sum / n + eps) in double
 *   with var_sum / n divided in T, and the running statistics in T as ATen writes them (the
 *   unbiased variance's term in double);
 *   eval: invstd = 1 / sqrt(running_var + eps) in T;
 *   transform (batch_norm_cpu_collect_linear_and_constant_terms and the kernel's loop, built with
 *   FMA on PyTorch's AVX2 kernels): alpha = invstd * w, beta = fma(-mean, alpha, b),
 *   y = fma(x, alpha, beta). */
#define BN_KERNELS(SUF, T, FMA, SQRT, HSUM)                                                                                  \
    static void bn_stats_##SUF(const T *x, int64_t N, int64_t C, int64_t S, T *mean, T *var_sum) {                     \
        if (S == 1) {                                                                                                  \
            int64_t nt = tensor_get_num_threads();                                                                     \
            if (nt < 1) nt = 1;                                                                                        \
            if (nt > N) nt = N;                                                                                        \
            int64_t chunk = (N + nt - 1) / nt;                                                                         \
            T *buf = calloc((size_t)(nt * C), sizeof(T));                                                              \
            if (!buf) {                                                                                                \
                tensor__oom();                                                                                         \
                return;                                                                                                \
            }                                                                                                          \
            for (int64_t t = 0; t < nt; t++)                                                                           \
                for (int64_t i = t * chunk; i < N && i < (t + 1) * chunk; i++)                                         \
                    for (int64_t c = 0; c < C; c++) buf[t * C + c] = x[i * C + c] + buf[t * C + c];                    \
            for (int64_t c = 0; c < C; c++) {                                                                          \
                double sum = 0;                                                                                        \
                for (int64_t t = 0; t < nt; t++) sum += buf[t * C + c];                                                \
                mean[c] = (T)(sum / (double)N);                                                                        \
            }                                                                                                          \
            memset(buf, 0, sizeof(T) * (size_t)(nt * C));                                                             \
            for (int64_t t = 0; t < nt; t++)                                                                           \
                for (int64_t i = t * chunk; i < N && i < (t + 1) * chunk; i++)                                         \
                    for (int64_t c = 0; c < C; c++) {                                                                  \
                        T d = x[i * C + c] - mean[c];                                                                  \
                        buf[t * C + c] = FMA(d, d, buf[t * C + c]);                                                    \
                    }                                                                                                  \
            for (int64_t c = 0; c < C; c++) {                                                                          \
                double sum = 0;                                                                                        \
                for (int64_t t = 0; t < nt; t++) sum += buf[t * C + c];                                                \
                var_sum[c] = (T)sum;                                                                                   \
            }                                                                                                          \
            free(buf);                                                                                                 \
            return;                                                                                                    \
        }                                                                                                              \
        for (int64_t c = 0; c < C; c++) {                                                                              \
            double sum = 0;                                                                                            \
            for (int64_t i = 0; i < N; i++) {                                                                          \
                const T *p = x + (i * C + c) * S;                                                                      \
                for (int64_t j = 0; j < S; j++) sum += p[j];                                                           \
            }                                                                                                          \
            T m = (T)(sum / (double)(N * S));                                                                          \
            double vs = 0;                                                                                             \
            for (int64_t i = 0; i < N; i++) {                                                                          \
                const T *p = x + (i * C + c) * S;                                                                      \
                for (int64_t j = 0; j < S; j++) {                                                                      \
                    T d = p[j] - m;                                                                                    \
                    vs += (T)(d * d);                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
            mean[c] = m;                                                                                               \
            var_sum[c] = (T)vs;                                                                                        \
        }                                                                                                              \
    }                                                                                                                  \
    static void bn_forward_##SUF(const T *x, const T *w, const T *b, T *rm, T *rv, T *y, T *smean, T *sinvstd,          \
                                 int64_t N, int64_t C, int64_t S, bool train, double momentum, double eps) {           \
        int64_t n = N * S;                                                                                             \
        if (train) {                                                                                                   \
            /* smean receives the means, sinvstd the variance sums, then their transform */                           \
            bn_stats_##SUF(x, N, C, S, smean, sinvstd);                                                                \
            T mom = (T)momentum;                                                                                       \
            for (int64_t c = 0; c < C; c++) {                                                                          \
                T vsum = sinvstd[c];                                                                                   \
                double var = (double)(vsum / (T)n);                                                                    \
                sinvstd[c] = (var != 0 || eps != 0) ? (T)(1.0 / sqrt(var + eps)) : (T)0;                               \
                if (rm) rm[c] = mom * smean[c] + (1 - mom) * rm[c];                                                    \
                if (rv) {                                                                                              \
                    double unbiased = (double)(vsum / (T)(n - 1));                                                     \
                    rv[c] = (T)((double)mom * unbiased + (double)((1 - mom) * rv[c]));                                 \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        for (int64_t c = 0; c < C; c++) {                                                                              \
            T mean, invstd;                                                                                            \
            if (train) {                                                                                               \
                mean = smean[c];                                                                                       \
                invstd = sinvstd[c];                                                                                   \
            } else {                                                                                                   \
                mean = rm[c];                                                                                          \
                invstd = (T)1 / SQRT(rv[c] + (T)eps);                                                                  \
                /* saved for the backward, which (eval) takes invstd as ATen's backward computes it: in double */ \
                smean[c] = mean;                                                                                       \
                sinvstd[c] = (T)(1.0 / sqrt((double)rv[c] + eps));                                                     \
            }                                                                                                          \
            T alpha = invstd * (w ? w[c] : (T)1);                                                                      \
            T beta = FMA(-mean, alpha, b ? b[c] : (T)0);                                                               \
            for (int64_t i = 0; i < N; i++) {                                                                          \
                const T *p = x + (i * C + c) * S;                                                                      \
                T *q = y + (i * C + c) * S;                                                                            \
                for (int64_t j = 0; j < S; j++) q[j] = FMA(p[j], alpha, beta);                                         \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    /* ATen's vec::reduce_all / map2_reduce_all over one row of a channel: L lanes accumulate  \
     * (the first vector loaded, the rest added lane-wise, a partial last vector into its lanes; \
     * the deviation products (x - m) * dy fused into the accumulation as GCC contracts them),   \
     * then the lanes combine (HSUM); a row shorter than L adds its values in order. */          \
    static T bn_row_reduce_##SUF(const T *dy, const T *x, T m, int64_t size) {                                         \
        enum { L = 32 / (int)sizeof(T) };                                                                              \
        T acc[L];                                                                                                      \
        if (size < L) {                                                                                                \
            T r = x ? (x[0] - m) * dy[0] : dy[0];                                                                      \
            for (int64_t i = 1; i < size; i++) r = r + (x ? (x[i] - m) * dy[i] : dy[i]);                                \
            return r;                                                                                                  \
        }                                                                                                              \
        for (int k = 0; k < L; k++) acc[k] = x ? (x[k] - m) * dy[k] : dy[k];                                           \
        int64_t d = L;                                                                                                 \
        for (; d < size; d++) {                                                                                        \
            int k = (int)((d - L) % L);                                                                                \
            acc[k] = x ? FMA(x[d] - m, dy[d], acc[k]) : acc[k] + dy[d];                                                \
        }                                                                                                              \
        return HSUM(acc);                                                                                              \
    }                                                                                                                  \
    static void bn_backward_##SUF(const T *dy, const T *x, const T *w, const T *smean, const T *sinvstd, T *dx, T *dw,  \
                                  T *db, int64_t N, int64_t C, int64_t S, bool train) {                                \
        double n = (double)(N * S);                                                                                    \
        for (int64_t c = 0; c < C; c++) {                                                                              \
            if (S > 1) {                                                                                               \
                /* ATen's batch_norm_cpu_backward_contiguous_impl: per sample row, the vector sums of dy and of     \
                 * (x - mean) * dy, added in double; dx = (fma(-(x - mean), k, dy - grad_mean)) * invstd * w */      \
                T m = smean[c], inv = sinvstd[c], wv = w ? w[c] : (T)1;                                               \
                double sum = 0, dotp = 0;                                                                              \
                for (int64_t i = 0; i < N; i++) {                                                                      \
                    const T *g = dy + (i * C + c) * S, *p = x + (i * C + c) * S;                                       \
                    sum += bn_row_reduce_##SUF(g, NULL, m, S);                                                         \
                    dotp += bn_row_reduce_##SUF(g, p, m, S);                                                           \
                }                                                                                                      \
                db[c] = (T)sum;                                                                                        \
                dw[c] = (T)(dotp * inv);                                                                               \
                if (train) {                                                                                           \
                    T k = (T)dotp * inv * inv / (T)(N * S);                                                            \
                    T gm = (T)(sum / (double)(N * S));                                                                 \
                    for (int64_t i = 0; i < N; i++) {                                                                  \
                        const T *g = dy + (i * C + c) * S, *p = x + (i * C + c) * S;                                   \
                        T *q = dx + (i * C + c) * S;                                                                   \
                        for (int64_t j = 0; j < S; j++) q[j] = FMA(-(p[j] - m), k, g[j] - gm) * inv * wv;              \
                    }                                                                                                  \
                } else {                                                                                               \
                    for (int64_t i = 0; i < N; i++) {                                                                  \
                        const T *g = dy + (i * C + c) * S;                                                             \
                        T *q = dx + (i * C + c) * S;                                                                   \
                        for (int64_t j = 0; j < S; j++) q[j] = g[j] * inv * wv;                                        \
                    }                                                                                                  \
                }                                                                                                      \
                continue;                                                                                              \
            }                                                                                                          \
            /* (N, C): Ember's own formula, sums in double (ATen's channels-last backward: footguns) */               \
            double mu = smean[c], is = sinvstd[c], sum = 0, dot = 0;                                                   \
            for (int64_t i = 0; i < N; i++) {                                                                          \
                const T *g = dy + (i * C + c) * S, *p = x + (i * C + c) * S;                                           \
                double s1 = 0, s2 = 0;                                                                                 \
                for (int64_t j = 0; j < S; j++) {                                                                      \
                    s1 += g[j];                                                                                        \
                    s2 += g[j] * (p[j] - mu);                                                                          \
                }                                                                                                      \
                sum += s1;                                                                                             \
                dot += s2;                                                                                             \
            }                                                                                                          \
            double wc = w ? (double)w[c] : 1.0;                                                                        \
            db[c] = (T)sum;                                                                                            \
            dw[c] = (T)(dot * is);                                                                                     \
            if (train) {                                                                                               \
                /* dx = (dy - mean(dy) - (x - mean) * k) * invstd * w, k = dot * invstd^2 / n */                      \
                T k = (T)(dot * is * is / n), gm = (T)(sum / n), mf = (T)mu, sc = (T)(is * wc);                        \
                for (int64_t i = 0; i < N; i++) {                                                                      \
                    const T *g = dy + (i * C + c) * S, *p = x + (i * C + c) * S;                                       \
                    T *q = dx + (i * C + c) * S;                                                                       \
                    for (int64_t j = 0; j < S; j++) q[j] = (g[j] - gm - (p[j] - mf) * k) * sc;                         \
                }                                                                                                      \
            } else {                                                                                                   \
                T sc = (T)(is * wc);                                                                                   \
                for (int64_t i = 0; i < N; i++) {                                                                      \
                    const T *g = dy + (i * C + c) * S;                                                                 \
                    T *q = dx + (i * C + c) * S;                                                                       \
                    for (int64_t j = 0; j < S; j++) q[j] = g[j] * sc;                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

/* the lanes' final combination: float, AVX2's shuffle tree (halves, then pairs, then neighbours);
 * double, in lane order */
static float bn_hsum_f(float *a) {
    for (int i = 0; i < 4; i++) a[i] = a[i] + a[i + 4];
    float b0 = a[0] + a[2], b1 = a[1] + a[3];
    return b0 + b1;
}
static double bn_hsum_d(double *a) { return ((a[0] + a[1]) + a[2]) + a[3]; }
BN_KERNELS(f, float, fmaf, sqrtf, bn_hsum_f)
BN_KERNELS(d, double, fma, sqrt, bn_hsum_d)

/* contiguous views of the optional inputs (NULL stays NULL); false on allocation failure */
static bool contig_all(Tensor *const *in, int n_in, int count, Tensor **c) {
    bool ok = true;
    for (int i = 0; i < count; i++) {
        Tensor *t = opt_t(in, n_in, i);
        c[i] = t ? tensor_contiguous(t) : NULL;
        if (t && !c[i]) ok = false;
    }
    return ok;
}

static void decref_all(Tensor **c, int count) {
    for (int i = 0; i < count; i++) tensor_decref(c[i]);
}

#define P(t, T) ((t) ? (T *)tensor__data(t) : NULL)

/* the five inputs' metadata for the infer functions (NULL for an absent optional input) */
static void metas_of(Tensor *const *in, int n_in, TensorMeta m[5], const TensorMeta *mp[5]) {
    for (int i = 0; i < 5; i++) {
        Tensor *t = opt_t(in, n_in, i);
        if (t) tensor_meta_of(t, &m[i]);
        mp[i] = t ? &m[i] : NULL;
    }
}

TENSOR_RUN(batch_norm) {
    (void)n_out;
    TensorMeta m[5];
    const TensorMeta *mp[5];
    metas_of(in, n_in, m, mp);
    TensorMeta o[3];
    if (tensor__infer_batch_norm(op, mp, 5, a, o, 3) < 0) return -1;
    int64_t N = 0, C = 0, S = 0;
    bn_geometry(&m[0], &N, &C, &S);
    /* the running statistics are updated in place: a non-contiguous one (never made by the
     * modules) is refused rather than updated in a copy */
    for (int i = 3; i < 5; i++) {
        Tensor *t = opt_t(in, n_in, i);
        if (t && a->train && !tensor_is_contiguous(t)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "batch_norm: running statistics must be contiguous");
            return -1;
        }
    }
    Tensor *c[5];
    Tensor *y = NULL, *sm = NULL, *si = NULL;
    if (!contig_all(in, n_in, 5, c)) goto fail;
    y = tensor__new_from_meta(&o[0], false);
    sm = y ? tensor__new_from_meta(&o[1], false) : NULL;
    si = sm ? tensor__new_from_meta(&o[2], false) : NULL;
    if (!si) goto fail;
    /* training updates the running statistics (contiguous: c[3], c[4] are them) in place */
    for (int i = 3; i < 5 && a->train; i++)
        if (c[i] && tensor__begin_inplace(c[i]) < 0) goto fail;
    if (m[0].dtype == TENSOR_FLOAT64)
        bn_forward_d(P(c[0], const double), P(c[1], const double), P(c[2], const double), P(c[3], double), P(c[4], double),
                     P(y, double), P(sm, double), P(si, double), N, C, S, a->train, a->p, a->eps);
    else
        bn_forward_f(P(c[0], const float), P(c[1], const float), P(c[2], const float), P(c[3], float), P(c[4], float),
                     P(y, float), P(sm, float), P(si, float), N, C, S, a->train, a->p, a->eps);
    decref_all(c, 5);
    out[0] = y;
    out[1] = sm;
    out[2] = si;
    return 3;
fail:
    decref_all(c, 5);
    tensor_decref(y);
    tensor_decref(sm);
    tensor_decref(si);
    return -1;
}

TENSOR_RUN(batch_norm_backward) {
    (void)n_out;
    TensorMeta m[5];
    const TensorMeta *mp[5];
    metas_of(in, n_in, m, mp);
    TensorMeta o[3];
    if (tensor__infer_batch_norm_backward(op, mp, 5, a, o, 3) < 0) return -1;
    int64_t N = 0, C = 0, S = 0;
    bn_geometry(&m[1], &N, &C, &S);
    Tensor *c[5];
    Tensor *dx = NULL, *dw = NULL, *db = NULL;
    if (!contig_all(in, n_in, 5, c)) goto fail;
    dx = tensor__new_from_meta(&o[0], false);
    dw = dx ? tensor__new_from_meta(&o[1], false) : NULL;
    db = dw ? tensor__new_from_meta(&o[2], false) : NULL;
    if (!db) goto fail;
    if (m[1].dtype == TENSOR_FLOAT64)
        bn_backward_d(P(c[0], const double), P(c[1], const double), P(c[4], const double), P(c[2], const double),
                      P(c[3], const double), P(dx, double), P(dw, double), P(db, double), N, C, S, a->train);
    else
        bn_backward_f(P(c[0], const float), P(c[1], const float), P(c[4], const float), P(c[2], const float),
                      P(c[3], const float), P(dx, float), P(dw, float), P(db, float), N, C, S, a->train);
    decref_all(c, 5);
    out[0] = dx;
    out[1] = dw;
    out[2] = db;
    return 3;
fail:
    decref_all(c, 5);
    tensor_decref(dx);
    tensor_decref(dw);
    tensor_decref(db);
    return -1;
}
