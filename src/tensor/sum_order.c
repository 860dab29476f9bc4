/* sum_order.c — sum and mean of float32 / float64 in the order PyTorch's CPU kernel adds, so
 * they round to the same bits: `print(loss.item())` of a mean printed PyTorch's digits only a
 * third of the time while Ember summed in double (reduce.c) and rounded once.
 *
 * The order (ATen's SumKernel.cpp, cascade_sum, as PyTorch 1.13 runs it on an AVX2 build: 8
 * float or 4 double lanes; its accumulator is the element type):
 *   - a cascade over a sequence: sums of 2^p consecutive terms (p = max(4, ceil(log2 n) / 4))
 *     are added into a second level, whose sums of 2^p of those into a third, and so on for four
 *     levels, then the levels are added in order (cascade below);
 *   - a row sum groups its terms four by four: term 4i + k goes to partial k (each a cascade),
 *     the terms left over go to partial 0, then partial 0 += 1, 2, 3 (row_sum);
 *   - a contiguous row of at least one vector: vectors of W lanes row-summed lane by lane, then
 *     the scalar tail summed, then the W lanes added to it in order (inner_sum);
 *   - reducing the rows of a row-major block (kept columns contiguous): columns in groups of 4W
 *     by one cascade each, then groups of W row-summed, then single columns row-summed; with
 *     fewer than W columns, groups of 4 by cascades and the rest row-summed (outer_sums);
 *   - a whole contiguous tensor of 32768 elements or more with more than one thread: one
 *     contiguous chunk per thread (at::parallel_for's split), then the chunks' sums row-summed;
 *   - every result is added to a zero (0 + -0 is +0), and mean is that sum divided by n in the
 *     element type.
 * tensor__sum_ordered does the layouts whose order this reproduces and says false for the others
 * (reduce.c then sums in double as before). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/tensor/isa.h"
#include "src/tensor/parallel.h"
#include "src/tensor/reduce.h"

/* the lanes' adds are independent (each lane its own sum, in its own order): vectorising them
 * changes no bits, and GCC's -O2 cost model leaves these loops scalar */
#pragma GCC optimize("O3")

#define LEVELS 4
#define MAX_LANES 32   /* 4 x 8 float lanes */

static int64_t ceil_log2(int64_t x) {
    if (x <= 2) return 1;
    return 64 - __builtin_clzll((uint64_t)(x - 1));
}

/* log2 of a cascade's level size over n terms: 2^p terms make a level-1 sum, and so on */
static int64_t level_power(int64_t n) {
    int64_t p = ceil_log2(n) / LEVELS;
    return p < 4 ? 4 : p;
}

/* T: element type, W: lanes of one vector */
#define SUM_ORDER_DEFS(S, T, W)                                                                          \
    /* level v of a cascade: n lanes at base + v * ls. After count steps of a level-0 sum: level v-1      \
     * moves into level v, up the levels while count is a multiple of the next level's size */            \
    static inline __attribute__((always_inline)) void S##_promote(T *base, int64_t ls, int64_t n,         \
                                                                  int64_t count, int64_t power) {         \
        int64_t mask = ((int64_t)1 << power) - 1;                                                         \
        for (int v = 1; v < LEVELS; v++) {                                                                \
            /* distinct levels never overlap: restrict lets the loop vectorise */                         \
            T *restrict hi = base + v * ls, *restrict lo = base + (v - 1) * ls;                           \
            for (int64_t q = 0; q < n; q++) {                                                             \
                hi[q] += lo[q];                                                                           \
                lo[q] = 0;                                                                                \
            }                                                                                             \
            if ((count & (mask << (v * power))) != 0) break;                                              \
        }                                                                                                 \
    }                                                                                                     \
    /* the levels added into level 0, in order */                                                         \
    static inline __attribute__((always_inline)) void S##_fold(T *base, int64_t ls, int64_t n) {          \
        for (int v = 1; v < LEVELS; v++) {                                                                \
            T *restrict lo = base;                                                                        \
            const T *restrict hi = base + v * ls;                                                         \
            for (int64_t q = 0; q < n; q++) lo[q] += hi[q];                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* out[k * nl + l] = the cascade over i < n of x[i * is + k * ks + l * ls] */                         \
    static void S##_cascade(T *out, const T *x, int64_t is, int nk, int64_t ks, int nl, int64_t ls,       \
                            int64_t n) {                                                                  \
        int lanes = nk * nl;                                                                              \
        T acc[LEVELS][MAX_LANES];                                                                         \
        memset(acc, 0, sizeof acc);                                                                       \
        int64_t power = level_power(n), step = (int64_t)1 << power;                                       \
        int64_t i = 0;                                                                                    \
        for (; i + step <= n; S##_promote(acc[0], MAX_LANES, lanes, i, power))                            \
            for (int64_t j = 0; j < step; j++, i++) {                                                     \
                const T *b = x + i * is;                                                                  \
                for (int k = 0; k < nk; k++)                                                              \
                    for (int l = 0; l < nl; l++) acc[0][k * nl + l] += b[k * ks + l * ls];                \
            }                                                                                             \
        for (; i < n; i++) { /* the tail's partial step is never promoted */                              \
            const T *b = x + i * is;                                                                      \
            for (int k = 0; k < nk; k++)                                                                  \
                for (int l = 0; l < nl; l++) acc[0][k * nl + l] += b[k * ks + l * ls];                    \
        }                                                                                                 \
        S##_fold(acc[0], MAX_LANES, lanes);                                                               \
        memcpy(out, acc[0], sizeof(T) * (size_t)lanes);                                                   \
    }                                                                                                     \
    /* the cascade of 4W lanes side by side (lane q of step i at x[i * is + q]), the common case */  \
    static inline __attribute__((always_inline)) void S##_cascade_wide__body(T *out, const T *x,       \
                                                                            int64_t is, int64_t n) {      \
        enum { L = 4 * W };                                                                               \
        int64_t power = level_power(n), step = (int64_t)1 << power;                                       \
        if (n < step) {                                                                                   \
            /* no level is ever promoted: the other levels stay +0, added once at the end */             \
            T a[L];                                                                                       \
            for (int q = 0; q < L; q++) a[q] = 0;                                                         \
            for (int64_t i = 0; i < n; i++)                                                               \
                for (int q = 0; q < L; q++) a[q] += x[i * is + q];                                        \
            for (int q = 0; q < L; q++) out[q] = a[q] + (T)0;                                             \
            return;                                                                                       \
        }                                                                                                 \
        T acc[LEVELS][L];                                                                                 \
        memset(acc, 0, sizeof acc);                                                                       \
        int64_t i = 0;                                                                                    \
        for (; i + step <= n; S##_promote(acc[0], L, L, i, power))                                        \
            for (int64_t j = 0; j < step; j++, i++)                                                       \
                for (int q = 0; q < L; q++) acc[0][q] += x[i * is + q];                                   \
        for (; i < n; i++) /* the tail's partial step is never promoted */                                \
            for (int q = 0; q < L; q++) acc[0][q] += x[i * is + q];                                       \
        S##_fold(acc[0], L, L);                                                                           \
        memcpy(out, acc[0], sizeof(T) * L);                                                               \
    }                                                                                                     \
    TENSOR_MULTIVERSION(S##_cascade_wide, (T *out, const T *x, int64_t is, int64_t n), (out, x, is, n))   \
    /* out[l] (l < nl) = the row sum over i < n of x[i * is + l * ls] */                                  \
    static void S##_row_sum(T *out, const T *x, int64_t is, int nl, int64_t ls, int64_t n) {              \
        T p[MAX_LANES];                                                                                   \
        int64_t n4 = n / 4;                                                                               \
        if (nl == W && ls == 1 && is == W) TENSOR_ISA_CALL(S##_cascade_wide, (p, x, 4 * is, n4));         \
        else S##_cascade(p, x, 4 * is, 4, is, nl, ls, n4);                                                \
        for (int64_t i = n4 * 4; i < n; i++)                                                              \
            for (int l = 0; l < nl; l++) p[l] += x[i * is + l * ls];                                      \
        for (int k = 1; k < 4; k++)                                                                       \
            for (int l = 0; l < nl; l++) p[l] += p[k * nl + l];                                           \
        memcpy(out, p, sizeof(T) * (size_t)nl);                                                           \
    }                                                                                                     \
    /* one row of n contiguous elements */                                                                \
    static T S##_inner_sum(const T *x, int64_t n) {                                                       \
        T r;                                                                                              \
        if (n < W) {                                                                                      \
            S##_row_sum(&r, x, 1, 1, 0, n);                                                               \
            return r;                                                                                     \
        }                                                                                                 \
        int64_t nv = n / W;                                                                               \
        T v[W];                                                                                           \
        S##_row_sum(v, x, W, W, 1, nv);                                                                   \
        r = 0;                                                                                            \
        for (int64_t k = nv * W; k < n; k++) r += x[k];                                                   \
        for (int l = 0; l < W; l++) r += v[l];                                                            \
        return r;                                                                                         \
    }                                                                                                     \
    /* the whole of n contiguous elements, split between threads as at::parallel_for splits it */         \
    static T S##_all(const T *x, int64_t n) {                                                             \
        int threads = tensor_get_num_threads();                                                           \
        if (n < TENSOR_GRAIN_SIZE || threads <= 1) return (T)0 + S##_inner_sum(x, n);                     \
        int64_t used = (n + TENSOR_GRAIN_SIZE - 1) / TENSOR_GRAIN_SIZE;                                   \
        if (used > threads) used = threads;                                                               \
        int64_t chunk = (n + used - 1) / used;                                                            \
        T part[64], r;                                                                                    \
        if (threads > 64) return (T)0 + S##_inner_sum(x, n);                                              \
        for (int t = 0; t < threads; t++) {                                                               \
            int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;                                     \
            part[t] = t < used && b < n ? (T)0 + S##_inner_sum(x + b, e - b) : (T)0;                      \
        }                                                                                                 \
        r = (T)0 + S##_inner_sum(part, threads);                                                          \
        return r;                                                                                         \
    }

SUM_ORDER_DEFS(f32, float, 8)
SUM_ORDER_DEFS(f64, double, 4)

/* ---- column sums, row after row ---------------------------------------------------------------
 * The rows of a rows x cols block reduced to cols sums, fed a row (or part of one) at a time: the
 * eager sum of a contiguous tensor's leading dims, and a fused group's column sum, which meets its
 * values unit after unit (src/runtime/fuse.c).  Which order a column gets depends on where it is
 * (outer_sums in ATen): with cols >= W, the columns of the whole groups of 4W are cascades over
 * the rows, the rest row sums; with fewer, the columns of whole groups of 4 are cascades, the rest
 * row sums.  State, level-major so that a row's adds run along the columns: level v of a cascade
 * column c at st[v * 4 * cols + c], level v of partial k of a row-sum column at
 * st[(v * 4 + k) * cols + c]. */

#define SUM_COLUMNS_DEFS(S, T, W)                                                                        \
    static inline __attribute__((always_inline)) void S##_add_run__body(T *acc, const T *x, int64_t n) {   \
        for (int64_t c = 0; c < n; c++) acc[c] += x[c];                                                   \
    }                                                                                                     \
    TENSOR_MULTIVERSION(S##_add_run, (T *acc, const T *x, int64_t n), (acc, x, n))                        \
    /* the levels of partial k of columns [c0, c1): level v at st + (v * 4 + k) * cols */                 \
    static void S##_col_promote(T *st, int64_t cols, int k, int64_t c0, int64_t c1, int64_t count,        \
                                int64_t power) {                                                          \
        S##_promote(st + k * cols + c0, 4 * cols, c1 - c0, count, power);                                 \
    }                                                                                                     \
    static void S##_col_fold(T *st, int64_t cols, int k, int64_t c0, int64_t c1) {                        \
        S##_fold(st + k * cols + c0, 4 * cols, c1 - c0);                                                  \
    }                                                                                                     \
    /* row r's values of columns [c0, c1) (x[c - c0]) */                                                  \
    static void S##_columns_row(TensorSumColumns *s, int64_t r, const T *x, int64_t c0, int64_t c1) {     \
        T *st = s->st;                                                                                    \
        int64_t cols = s->cols, m = s->cascades;                                                          \
        int64_t a0 = c0, a1 = c1 < m ? c1 : m;                                                            \
        if (a0 < a1) {                                                                                    \
            TENSOR_ISA_CALL(S##_add_run, (st + a0, x + (a0 - c0), a1 - a0));                              \
            if ((r + 1) % ((int64_t)1 << s->power) == 0) S##_col_promote(st, cols, 0, a0, a1, r + 1, s->power); \
        }                                                                                                 \
        int64_t b0 = c0 > m ? c0 : m, b1 = c1;                                                            \
        if (b0 >= b1) return;                                                                             \
        if (r < 4 * s->n4) {                                                                              \
            int k = (int)(r % 4);                                                                         \
            int64_t i = r / 4;                                                                            \
            TENSOR_ISA_CALL(S##_add_run, (st + k * cols + b0, x + (b0 - c0), b1 - b0));                   \
            if ((i + 1) % ((int64_t)1 << s->power4) == 0) S##_col_promote(st, cols, k, b0, b1, i + 1, s->power4); \
            return;                                                                                       \
        }                                                                                                 \
        if (r == 4 * s->n4)                                                                               \
            for (int k = 0; k < 4; k++) S##_col_fold(st, cols, k, b0, b1);                                    \
        for (int64_t c = b0; c < b1; c++) st[c] += x[c - c0];                                             \
    }                                                                                                     \
    void tensor__sum_columns_add_##S(TensorSumColumns *s, int64_t pos, const T *x, int64_t n) {           \
        while (n > 0) {                                                                                   \
            int64_t r = pos / s->cols, c = pos % s->cols;                                                 \
            int64_t len = s->cols - c < n ? s->cols - c : n;                                              \
            S##_columns_row(s, r, x, c, c + len);                                                         \
            x += len;                                                                                     \
            pos += len;                                                                                   \
            n -= len;                                                                                     \
        }                                                                                                 \
    }                                                                                                     \
    void tensor__sum_columns_end_##S(TensorSumColumns *s, T *out) {                                       \
        T *st = s->st;                                                                                    \
        int64_t cols = s->cols, m = s->cascades;                                                          \
        S##_col_fold(st, cols, 0, 0, m);                                                                      \
        if (s->rows == 4 * s->n4)                                                                         \
            for (int k = 0; k < 4; k++) S##_col_fold(st, cols, k, m, cols);                                   \
        for (int k = 1; k < 4; k++)                                                                       \
            for (int64_t c = m; c < cols; c++) st[c] += st[k * cols + c];                                 \
        for (int64_t c = 0; c < cols; c++) out[c] = (T)0 + st[c];                                         \
        free(s->st);                                                                                      \
        s->st = NULL;                                                                                     \
    }                                                                                                     \
    bool tensor__sum_columns_begin_##S(TensorSumColumns *s, int64_t rows, int64_t cols) {                 \
        s->rows = rows;                                                                                   \
        s->cols = cols;                                                                                   \
        s->cascades = cols >= W ? cols / (4 * W) * (4 * W) : cols / 4 * 4;                               \
        s->n4 = rows / 4;                                                                                 \
        s->power = level_power(rows);                                                                     \
        s->power4 = level_power(s->n4);                                                                   \
        s->st = calloc((size_t)(LEVELS * 4) * (size_t)(cols ? cols : 1), sizeof(T));                      \
        return s->st != NULL;                                                                             \
    }

SUM_COLUMNS_DEFS(f32, float, 8)
SUM_COLUMNS_DEFS(f64, double, 4)

/* reduced dims, by stride as TensorIterator orders them, merged where they are one run in memory
 * (as it coalesces them), size-1 dims dropped; false when an output's reduced elements are more
 * than one run */
static bool one_run(const ReducePlan *p, int64_t *len, int64_t *stride) {
    int64_t st[TENSOR_MAX_DIMS], sh[TENSOR_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < p->rd; d++) {
        if (p->rshape[d] == 1) continue;
        int at = n++;
        while (at > 0 && st[at - 1] > p->rstride[d]) {
            st[at] = st[at - 1];
            sh[at] = sh[at - 1];
            at--;
        }
        st[at] = p->rstride[d];
        sh[at] = p->rshape[d];
    }
    *len = 1;
    *stride = 1;
    if (n == 0) return true;
    int64_t cnt = sh[0];
    for (int i = 1; i < n; i++) {
        if (st[i] != st[0] * cnt) return false;
        cnt *= sh[i];
    }
    *len = cnt;
    *stride = st[0];
    return true;
}

float tensor__sum_row_ordered_f32(const float *x, int64_t n) { return (float)0 + f32_inner_sum(x, n); }

bool tensor__sum_ordered(const Tensor *t, const ReducePlan *p, void *out, bool mean) {
    TensorDtype dt = (TensorDtype)t->dtype;
    if (dt != TENSOR_FLOAT32 && dt != TENSOR_FLOAT64) return false;
    int64_t len, rs;
    if (!one_run(p, &len, &rs)) return false;
    const char *base = (const char *)t->storage->data + t->offset * (int64_t)tensor__elsize(dt);
    int64_t cnt = p->rnumel;
    if (p->onumel == 1 && p->rnumel == len && (rs == 1 || len <= 1)) {
        /* the whole tensor, one contiguous run */
        if (dt == TENSOR_FLOAT32) {
            float r = f32_all((const float *)base, len);
            ((float *)out)[0] = mean ? r / (float)cnt : r;
        } else {
            double r = f64_all((const double *)base, len);
            ((double *)out)[0] = mean ? r / (double)cnt : r;
        }
        return true;
    }
    if (rs == 1) {
        /* one contiguous run per output: each output's own row (threads split outputs only) */
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        for (int64_t oi = 0; oi < p->onumel; oi++) {
            int64_t off = 0;
            for (int d = 0; d < p->kd; d++) off += idx[d] * p->kstride[d];
            if (dt == TENSOR_FLOAT32) {
                float r = (float)0 + f32_inner_sum((const float *)base + off, len);
                ((float *)out)[oi] = mean ? r / (float)cnt : r;
            } else {
                double r = (double)0 + f64_inner_sum((const double *)base + off, len);
                ((double *)out)[oi] = mean ? r / (double)cnt : r;
            }
            for (int d = p->kd - 1; d >= 0; d--) {
                if (++idx[d] < p->kshape[d]) break;
                idx[d] = 0;
            }
        }
        return true;
    }
    /* one strided run per output (rows rs apart), the last kept dims one contiguous run (the
     * columns, as TensorIterator merges them) and the kept dims before them in memory order: per
     * index of those, a block of len rows of cols columns, whose outputs are consecutive */
    int64_t cols = 1, want = 1;
    int d = p->kd - 1;
    for (; d >= 0; d--) {
        if (p->kshape[d] == 1) continue;
        if (p->kstride[d] != want) break;
        want *= p->kshape[d];
        cols *= p->kshape[d];
    }
    if (cols == 1) return false;
    int64_t prev = cols;   /* the outer kept dims: each stride above the dims after it */
    for (int e = d; e >= 0; e--) {
        if (p->kshape[e] == 1) continue;
        if (p->kstride[e] < prev) return false;
        prev = p->kstride[e] * p->kshape[e];
    }
    int64_t blocks = p->onumel / cols, idx[TENSOR_MAX_DIMS] = {0};
    size_t el = tensor__elsize(dt);
    for (int64_t bi = 0; bi < blocks; bi++) {
        int64_t off = 0;
        for (int k = 0; k <= d; k++) off += idx[k] * p->kstride[k];
        TensorSumColumns sc;
        bool f32 = dt == TENSOR_FLOAT32;
        if (!(f32 ? tensor__sum_columns_begin_f32(&sc, len, cols) : tensor__sum_columns_begin_f64(&sc, len, cols)))
            return false;   /* out of memory: reduce.c sums every output again its own way */
        for (int64_t r = 0; r < len; r++) {
            const char *row = base + (off + r * rs) * (int64_t)el;
            if (f32) tensor__sum_columns_add_f32(&sc, r * cols, (const float *)row, cols);
            else tensor__sum_columns_add_f64(&sc, r * cols, (const double *)row, cols);
        }
        if (f32) {
            float *o = (float *)out + bi * cols;
            tensor__sum_columns_end_f32(&sc, o);
            if (mean)
                for (int64_t j = 0; j < cols; j++) o[j] /= (float)cnt;
        } else {
            double *o = (double *)out + bi * cols;
            tensor__sum_columns_end_f64(&sc, o);
            if (mean)
                for (int64_t j = 0; j < cols; j++) o[j] /= (double)cnt;
        }
        for (int k = d; k >= 0; k--) {
            if (++idx[k] < p->kshape[k]) break;
            idx[k] = 0;
        }
    }
    return true;
}
