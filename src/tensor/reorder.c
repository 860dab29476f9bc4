/* reorder.c — ops that move, mask or order elements along dims without arithmetic between
 * elements (beyond cumsum's running sum): tril, triu, roll, flip, sort, topk, kthvalue, unique, cumsum.  They work
 * on a contiguous copy of the input and write a new contiguous output, for any dtype: elements
 * move as bytes (tensor__elsize), and sort/topk compare loaded values (double for floating
 * dtypes, int64 for the others), with PyTorch's order for NaN (greater than every number). */
#include "src/tensor/kernels.h"
#include "src/tensor/scan_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shape inference -------------------------------------------------------------------------------- */

static int need_2d(const TensorMeta *x) {
    /* a 1-D input fails ATen's wrapping of dim -2 first */
    if (x->ndim == 1) return tensor__wrap_dim(-2, 1) < 0 ? -1 : 0;
    if (x->ndim == 0) {
        tensor_error_set(TENSOR_ERR_INDEX, "Dimension specified as -2 but tensor has no dimensions");
        return -1;
    }
    return 0;
}

/* the wrapped dim of a sort/topk/cumsum over x (a 0-dim tensor has the one dim 0) */
static int64_t along(const TensorMeta *x, int64_t dim) { return tensor__wrap_dim(dim, x->ndim ? x->ndim : 1); }

/* input 0's shape and dtype */
static int same_meta(const TensorMeta *x, TensorMeta *o) {
    tensor__meta_contiguous(o, x->dtype, x->ndim, x->shape);
    return 1;
}

/* tril / triu: start = diagonal */
TENSOR_INFER(tri) {
    (void)op, (void)n_in, (void)a, (void)max_out;
    if (need_2d(in[0]) < 0) return -1;
    return same_meta(in[0], out);
}

TENSOR_INFER(roll) {
    (void)op, (void)n_in, (void)max_out;
    if (a->n_ints == 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "`shifts` required");
        return -1;
    }
    if (a->n_ints2 == 0 ? a->n_ints != 1 : a->n_ints != a->n_ints2) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d", a->n_ints, a->n_ints2);
        return -1;
    }
    for (int i = 0; i < a->n_ints2; i++)
        if (tensor__wrap_dim(a->ints2[i], in[0]->ndim) < 0) return -1;
    return same_meta(in[0], out);
}

TENSOR_INFER(flip) {
    (void)op, (void)n_in, (void)max_out;
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < a->n_ints; i++) {
        int64_t d = tensor__wrap_dim(a->ints[i], in[0]->ndim);
        if (d < 0) return -1;
        if (seen[d]) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "dim %lld appears multiple times in the list of dims", (long long)d);
            return -1;
        }
        seen[d] = true;
    }
    return same_meta(in[0], out);
}

/* (values, int64 indices) of shape `shape` */
static int values_indices_meta(const TensorMeta *x, const int64_t *shape, TensorMeta *o) {
    tensor__meta_contiguous(&o[0], x->dtype, x->ndim, shape);
    tensor__meta_contiguous(&o[1], TENSOR_INT64, x->ndim, shape);
    return 2;
}

TENSOR_INFER(sort) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (along(x, a->dim) < 0) return -1;
    if (x->dtype == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"sort\" not implemented for 'Bool'");
        return -1;
    }
    return values_indices_meta(x, x->shape, out);
}

/* topk: start = k */
TENSOR_INFER(topk) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    int64_t d = along(x, a->dim);
    if (d < 0) return -1;
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    int64_t len = x->ndim ? x->shape[d] : 1;
    if (a->start < 0 || a->start > len) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "selected index k out of range");
        return -1;
    }
    if (x->dtype == TENSOR_BOOL || x->dtype == TENSOR_FLOAT16) {
        /* PyTorch 1.13's CPU topk has no Bool or Half kernel */
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"topk_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    if (x->ndim) shape[d] = a->start;
    return values_indices_meta(x, shape, out);
}

/* kthvalue: start = k, keepdim */
TENSOR_INFER(kthvalue) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    TensorMeta *o = out;
    int64_t d = along(x, a->dim);
    if (d < 0) return -1;
    int64_t len = x->ndim ? x->shape[d] : 1;
    if (len == 0) {
        tensor_error_set(TENSOR_ERR_INDEX, "kthvalue(): Expected reduction dim %lld to have non-zero size.", (long long)d);
        return -1;
    }
    if (a->start < 1 || a->start > len) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "kthvalue(): selected number k out of range for dimension %lld", (long long)d);
        return -1;
    }
    if (x->dtype == TENSOR_BOOL || x->dtype == TENSOR_FLOAT16) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"kthvalue_cpu\" not implemented for '%s'", tensor__cname(x->dtype));
        return -1;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < x->ndim; i++) {
        if (i != d) shape[nd++] = x->shape[i];
        else if (a->keepdim) shape[nd++] = 1;
    }
    tensor__meta_contiguous(&o[0], x->dtype, nd, shape);
    tensor__meta_contiguous(&o[1], TENSOR_INT64, nd, shape);
    return 2;
}

/* unique / unique_consecutive: the output shapes depend on the data */
TENSOR_INFER(unique) {
    (void)op, (void)n_in, (void)max_out, (void)out;
    const TensorMeta *x = in[0];
    if (a->has_dim && tensor__wrap_dim(a->dim, x->ndim) < 0) return -1;
    tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "%s has a data-dependent output shape", a->start ? "unique_consecutive" : "unique");
    return -1;
}

TENSOR_INFER(cumsum) {
    (void)op, (void)n_in, (void)max_out;
    const TensorMeta *x = in[0];
    if (along(x, a->dim) < 0) return -1;
    TensorDtype dt = a->dtype != TENSOR_DTYPE_DEFAULT ? a->dtype : tensor__is_float(x->dtype) ? x->dtype : TENSOR_INT64;
    tensor__meta_contiguous(out, dt, x->ndim, x->shape);
    return 1;
}

/* ---- kernels ----------------------------------------------------------------------------------------- */

/* outer x len x inner: the contiguous layout around dim d */
static void split_at(const Tensor *t, int64_t d, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    *len = t->ndim ? t->shape[d] : 1;
    for (int i = 0; i < d; i++) *outer *= t->shape[i];
    for (int i = (int)d + 1; i < t->ndim; i++) *inner *= t->shape[i];
}

static void tri(const Tensor *x, Tensor *r, int64_t k, bool lower) {
    size_t es = tensor__elsize((TensorDtype)x->dtype);
    int64_t rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
    int64_t mats = (rows * cols) != 0 ? x->numel / (rows * cols) : 0;
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
    for (int64_t m = 0; m < mats; m++)
        for (int64_t i = 0; i < rows; i++) {
            size_t off = (size_t)((m * rows + i) * cols) * es;
            for (int64_t j = 0; j < cols; j++) {
                bool keep = lower ? j - i <= k : j - i >= k;
                if (keep) memcpy(dst + off + (size_t)j * es, src + off + (size_t)j * es, es);
                else memset(dst + off + (size_t)j * es, 0, es);
            }
        }
}

/* out[idx] = x[src(idx)] where src moves each dim's index: flipped (size-1-i) or rolled (i-shift) */
static void move_elements(const Tensor *x, Tensor *r, const bool *flip, const int64_t *shift) {
    size_t es = tensor__elsize((TensorDtype)x->dtype);
    int nd = x->ndim;
    int64_t idx[TENSOR_MAX_DIMS] = {0}, st[TENSOR_MAX_DIMS];
    tensor__compute_contiguous_strides(nd, x->shape, st);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t off = 0;
        for (int d = 0; d < nd; d++) {
            int64_t s = idx[d];
            if (flip && flip[d]) s = x->shape[d] - 1 - s;
            if (shift && shift[d]) {
                s -= shift[d];
                if (s < 0) s += x->shape[d];
            }
            off += s * st[d];
        }
        memcpy(dst + (size_t)i * es, src + (size_t)off * es, es);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
}

static int roll(const Tensor *x, Tensor *r, const TensorOpArgs *a) {
    int64_t shift[TENSOR_MAX_DIMS] = {0};
    if (a->n_ints2 == 0) {
        /* no dims: the flattened tensor rolls, keeping its shape */
        size_t es = tensor__elsize((TensorDtype)x->dtype);
        int64_t n = x->numel;
        if (n == 0) return 0;
        int64_t s = ((a->ints[0] % n) + n) % n;
        memcpy(tensor__data(r) + (size_t)s * es, tensor__data(x), (size_t)(n - s) * es);
        memcpy(tensor__data(r), tensor__data(x) + (size_t)(n - s) * es, (size_t)s * es);
        return 0;
    }
    for (int i = 0; i < a->n_ints2; i++) {
        int64_t d = tensor__wrap_dim(a->ints2[i], x->ndim);
        if (d < 0) return -1;
        int64_t size = x->shape[d];
        if (size) shift[d] = (((shift[d] + a->ints[i]) % size) + size) % size;
    }
    move_elements(x, r, NULL, shift);
    return 0;
}

/* ---- sort / topk / kthvalue ---- */

/* A slice's elements as keys: the loaded value (double for floating dtypes, int64 for the others)
 * and its position along the dim, the tie-break that makes every order total and the sort stable.
 * Sorting and selection are generated per order (ascending / descending, with NaN greater than
 * every number as in PyTorch) so the comparison inlines into the loops. */
typedef struct { double v; int64_t pos; } KeyF;
typedef struct { int64_t v; int64_t pos; } KeyI;

static inline bool lt_f_asc(const KeyF *a, const KeyF *b) {
    bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return nb;
    if (!na && a->v != b->v) return a->v < b->v;
    return a->pos < b->pos;
}
static inline bool lt_f_desc(const KeyF *a, const KeyF *b) {
    bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na;
    if (!na && a->v != b->v) return a->v > b->v;
    return a->pos < b->pos;
}
static inline bool lt_i_asc(const KeyI *a, const KeyI *b) { return a->v != b->v ? a->v < b->v : a->pos < b->pos; }
static inline bool lt_i_desc(const KeyI *a, const KeyI *b) { return a->v != b->v ? a->v > b->v : a->pos < b->pos; }

/* sort_<LT>(a, n, tmp): bottom-up merge sort over runs insertion-sorted to 16 (O(n log n), tmp
 * holds n keys); select_<LT>(a, n, k): quickselect so a[k] is the k-th key in order, a[0..k)
 * before it and a(k..n) after (median of three; falls back to sorting after 2 log n rounds) */
#define KEY_ALGOS(K, LT)                                                                             \
    static void sort_##LT(K *a, int64_t n, K *tmp) {                                                 \
        const int64_t run = 16;                                                                      \
        for (int64_t lo = 0; lo < n; lo += run) {                                                    \
            int64_t hi = lo + run < n ? lo + run : n;                                                \
            for (int64_t i = lo + 1; i < hi; i++) {                                                  \
                K x = a[i];                                                                          \
                int64_t j = i;                                                                       \
                while (j > lo && LT(&x, &a[j - 1])) {                                                \
                    a[j] = a[j - 1];                                                                 \
                    j--;                                                                             \
                }                                                                                    \
                a[j] = x;                                                                            \
            }                                                                                        \
        }                                                                                            \
        K *src = a, *dst = tmp;                                                                      \
        for (int64_t w = run; w < n; w *= 2) {                                                       \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                              \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;         \
                int64_t i = lo, j = mid, o = lo;                                                     \
                while (i < mid && j < hi) dst[o++] = LT(&src[j], &src[i]) ? src[j++] : src[i++];     \
                while (i < mid) dst[o++] = src[i++];                                                 \
                while (j < hi) dst[o++] = src[j++];                                                  \
            }                                                                                        \
            K *t = src;                                                                              \
            src = dst;                                                                               \
            dst = t;                                                                                 \
        }                                                                                            \
        if (src != a) memcpy(a, src, sizeof(K) * (size_t)n);                                         \
    }                                                                                                \
    static void select_##LT(K *a, int64_t n, int64_t k, K *tmp) {                                    \
        int64_t lo = 0, hi = n - 1, rounds = 0;                                                      \
        for (int64_t m = n; m > 1; m >>= 1) rounds += 2;                                             \
        while (hi - lo > 16) {                                                                       \
            if (rounds-- == 0) {                                                                     \
                sort_##LT(a + lo, hi - lo + 1, tmp);                                                 \
                return;                                                                              \
            }                                                                                        \
            int64_t mid = lo + (hi - lo) / 2;                                                        \
            K t;                                                                                     \
            if (LT(&a[mid], &a[lo])) { t = a[mid]; a[mid] = a[lo]; a[lo] = t; }                      \
            if (LT(&a[hi], &a[lo])) { t = a[hi]; a[hi] = a[lo]; a[lo] = t; }                         \
            if (LT(&a[hi], &a[mid])) { t = a[hi]; a[hi] = a[mid]; a[mid] = t; }                      \
            K p = a[mid];                                                                            \
            int64_t i = lo, j = hi;                                                                  \
            while (i <= j) {                                                                         \
                while (LT(&a[i], &p)) i++;                                                           \
                while (LT(&p, &a[j])) j--;                                                           \
                if (i <= j) {                                                                        \
                    t = a[i]; a[i] = a[j]; a[j] = t;                                                 \
                    i++;                                                                             \
                    j--;                                                                             \
                }                                                                                    \
            }                                                                                        \
            if (k <= j) hi = j;                                                                      \
            else if (k >= i) lo = i;                                                                 \
            else return;                                                                             \
        }                                                                                            \
        sort_##LT(a + lo, hi - lo + 1, tmp);                                                         \
    }

/* Dtypes of at most 32 bits pack value and position into one uint64: the value's bits mapped to
 * an unsigned order (NaN last, -0.0 as 0.0), inverted for descending, above the position, so an
 * order is one integer comparison over 8-byte keys. */
static inline bool lt_u64(const uint64_t *a, const uint64_t *b) { return *a < *b; }

static inline uint32_t float_order(float f) {
    if (f != f) return 0xFFFFFFFFu;
    if (f == 0) return 0x80000000u;
    uint32_t b;
    memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

static bool packs(TensorDtype dt, int64_t len) {
    return len < ((int64_t)1 << 32) && dt != TENSOR_FLOAT64 && dt != TENSOR_INT64;
}

static inline uint64_t pack_key(TensorDtype dt, const char *p, int64_t pos, bool descending) {
    uint32_t o;
    switch (dt) {
    case TENSOR_FLOAT32: o = float_order(*(const float *)p); break;
    case TENSOR_FLOAT16: case TENSOR_BFLOAT16: o = float_order((float)tensor__ld_d(dt, p)); break;
    case TENSOR_UINT8: case TENSOR_BOOL: o = (uint32_t)tensor__ld_i(dt, p); break;
    default: o = (uint32_t)(int32_t)tensor__ld_i(dt, p) ^ 0x80000000u; break;
    }
    if (descending) o = ~o;
    return ((uint64_t)o << 32) | (uint64_t)pos;
}

KEY_ALGOS(uint64_t, lt_u64)

/* topk of a few (k <= TOPK_SMALL) from packed keys: the k smallest kept sorted in best, each
 * further key compared with the k-th and inserted when smaller (about k ln(len/k) insertions for
 * keys in random order, against quickselect's passes over all len).  The keys are distinct (their
 * position is in the low bits), so the k smallest are the ones quickselect would find; they end
 * in a[0..k) in order. */
#define TOPK_SMALL 32
static void topk_small_u64(uint64_t *a, int64_t len, int64_t k, uint64_t *best) {
    for (int64_t j = 0; j < k; j++) {
        uint64_t v = a[j];
        int64_t i = j;
        while (i > 0 && best[i - 1] > v) {
            best[i] = best[i - 1];
            i--;
        }
        best[i] = v;
    }
    uint64_t kth = best[k - 1];
    for (int64_t j = k; j < len; j++) {
        uint64_t v = a[j];
        if (v >= kth) continue;
        int64_t i = k - 1;
        while (i > 0 && best[i - 1] > v) {
            best[i] = best[i - 1];
            i--;
        }
        best[i] = v;
        kth = best[k - 1];
    }
    memcpy(a, best, sizeof(uint64_t) * (size_t)k);
}
KEY_ALGOS(KeyF, lt_f_asc)
KEY_ALGOS(KeyF, lt_f_desc)
KEY_ALGOS(KeyI, lt_i_asc)
KEY_ALGOS(KeyI, lt_i_desc)

typedef enum { SEL_SORT, SEL_TOPK, SEL_KTH } SelMode;

/* Per slice along dim d: SORT orders all of it, TOPK the first k in order (select, then sort
 * the k), KTH finds the k-th (k counted from 1).  Writes the chosen values and their indices. */
static int select_slices(const Tensor *x, int64_t d, int64_t k, bool descending, SelMode mode, Tensor *vals, Tensor *idxs) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    bool fl = tensor__is_float(dt);
    int64_t outer, len, inner;
    split_at(x, d, &outer, &len, &inner);
    bool packed = packs(dt, len);
    size_t ksz = packed ? sizeof(uint64_t) : fl ? sizeof(KeyF) : sizeof(KeyI);
    char *keys = malloc(ksz * (size_t)(len ? 2 * len : 1));
    if (!keys) return tensor__oom();
    char *tmp = keys + ksz * (size_t)len;
    const char *src = tensor__data(x);
    char *dv = tensor__data(vals);
    int64_t *di = (int64_t *)tensor__data(idxs);
    int64_t n_out = mode == SEL_KTH ? 1 : k, first = mode == SEL_KTH ? k - 1 : 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const char *p = src + (size_t)(o * len * inner + in) * es;
            size_t step = (size_t)inner * es;
            if (packed) {
                uint64_t *ku = (uint64_t *)keys;
                for (int64_t j = 0; j < len; j++) ku[j] = pack_key(dt, p + (size_t)j * step, j, descending);
                if (mode == SEL_SORT) {
                    sort_lt_u64(ku, len, (uint64_t *)tmp);
                } else if (mode == SEL_TOPK && k > 0 && k <= TOPK_SMALL && k < len) {
                    topk_small_u64(ku, len, k, (uint64_t *)tmp);
                } else if (len > 0 && k > 0) {
                    select_lt_u64(ku, len, k - 1, (uint64_t *)tmp);
                    if (mode == SEL_TOPK) sort_lt_u64(ku, k, (uint64_t *)tmp);
                }
            } else if (fl) {
                KeyF *kf = (KeyF *)keys;
                if (dt == TENSOR_FLOAT32)
                    for (int64_t j = 0; j < len; j++) kf[j] = (KeyF){*(const float *)(p + (size_t)j * step), j};
                else
                    for (int64_t j = 0; j < len; j++) kf[j] = (KeyF){tensor__ld_d(dt, p + (size_t)j * step), j};
                if (mode == SEL_SORT) {
                    if (descending) sort_lt_f_desc(kf, len, (KeyF *)tmp);
                    else sort_lt_f_asc(kf, len, (KeyF *)tmp);
                } else if (len > 0 && k > 0) {
                    int64_t at = k - 1;
                    if (descending) select_lt_f_desc(kf, len, at, (KeyF *)tmp);
                    else select_lt_f_asc(kf, len, at, (KeyF *)tmp);
                    if (mode == SEL_TOPK) {
                        if (descending) sort_lt_f_desc(kf, k, (KeyF *)tmp);
                        else sort_lt_f_asc(kf, k, (KeyF *)tmp);
                    }
                }
            } else {
                KeyI *ki = (KeyI *)keys;
                for (int64_t j = 0; j < len; j++) ki[j] = (KeyI){tensor__ld_i(dt, p + (size_t)j * step), j};
                if (mode == SEL_SORT) {
                    if (descending) sort_lt_i_desc(ki, len, (KeyI *)tmp);
                    else sort_lt_i_asc(ki, len, (KeyI *)tmp);
                } else if (len > 0 && k > 0) {
                    int64_t at = k - 1;
                    if (descending) select_lt_i_desc(ki, len, at, (KeyI *)tmp);
                    else select_lt_i_asc(ki, len, at, (KeyI *)tmp);
                    if (mode == SEL_TOPK) {
                        if (descending) sort_lt_i_desc(ki, k, (KeyI *)tmp);
                        else sort_lt_i_asc(ki, k, (KeyI *)tmp);
                    }
                }
            }
            for (int64_t j = 0; j < n_out; j++) {
                int64_t pos = packed ? (int64_t)(((uint64_t *)keys)[first + j] & 0xFFFFFFFFu)
                              : fl ? ((KeyF *)keys)[first + j].pos : ((KeyI *)keys)[first + j].pos;
                int64_t out = (o * n_out + j) * inner + in;
                memcpy(dv + (size_t)out * es, p + (size_t)pos * step, es);
                di[out] = pos;
            }
        }
    free(keys);
    return 0;
}

/* ---- unique / unique_consecutive ---- */

/* elements i and j of the flat keys equal (NaN equals nothing, as ATen's == ) */
static bool rows_equal(const char *p, TensorDtype dt, int64_t rowlen, int64_t stride, int64_t i, int64_t j) {
    size_t es = tensor__elsize(dt);
    bool fl = tensor__is_float(dt);
    for (int64_t e = 0; e < rowlen; e++) {
        const char *a = p + (size_t)(i + e * stride) * es, *b = p + (size_t)(j + e * stride) * es;
        if (fl ? tensor__ld_d(dt, a) != tensor__ld_d(dt, b) : tensor__ld_i(dt, a) != tensor__ld_i(dt, b)) return false;
    }
    return true;
}

/* lexicographic order of rows i and j, each rowlen contiguous elements (by position when equal) */
typedef struct { const char *p; TensorDtype dt; int64_t rowlen; } RowCtx;
static bool row_lt(const RowCtx *c, int64_t i, int64_t j) {
    size_t es = tensor__elsize(c->dt);
    bool fl = tensor__is_float(c->dt);
    for (int64_t e = 0; e < c->rowlen; e++) {
        const char *a = c->p + (size_t)(i * c->rowlen + e) * es, *b = c->p + (size_t)(j * c->rowlen + e) * es;
        if (fl) {
            double x = tensor__ld_d(c->dt, a), y = tensor__ld_d(c->dt, b);
            if (x != y) return x < y;
        } else {
            int64_t x = tensor__ld_i(c->dt, a), y = tensor__ld_i(c->dt, b);
            if (x != y) return x < y;
        }
    }
    return i < j;
}

static void sort_rows(const RowCtx *c, int64_t *ids, int64_t n, int64_t *tmp) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = row_lt(c, ids[j], ids[i]) ? ids[j++] : ids[i++];
            while (i < mid) tmp[o++] = ids[i++];
            while (j < hi) tmp[o++] = ids[j++];
        }
        memcpy(ids, tmp, sizeof(int64_t) * (size_t)n);
    }
}

/* ---- unique(sorted=False): ATen's CPU order ---- */

/* ATen's unique_cpu_template builds a std::unordered_set from the input and copies it out in
 * iteration order, so sorted=False prints libstdc++'s hash-table order: a pure function of the
 * values in order of first appearance.  This replays the table: elements inserted one by one at
 * the front of their bucket (or of the list), the table growing by libstdc++'s rehash policy
 * (11 buckets' worth first, then at least doubling, bucket counts from its prime list, which
 * _Prime_rehash_policy::_M_next_bkt picks from) and relinking on each rehash as _M_rehash does.
 * Hashes: integers are their own (std::hash); floats are std::_Hash_bytes (64-bit MurmurHash2,
 * libstdc++'s seed) of their bytes, with 0.0 hashing to 0. */
static const uint64_t stl_primes[] = {
    17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137, 139,
    149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577,
    619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357,
    2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497,
    10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727,
    33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733,
    107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261,
    299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753, 712697, 771049,
    834181, 902483, 976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627,
    2144977, 2320627, 2510653, 2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259,
    5515729, 5967347, 6456007, 6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489, 12117689,
    13109983, 14183539, 15345007, 16601593, 17961079, 19431899, 21023161, 22744717, 24607243, 26622317, 28802401,
    31160981, 33712729, 36473443, 39460231, 42691603, 46187573, 49969847, 54061849, 58488943, 63278561, 68460391,
    74066549, 80131819, 86693767, 93793069, 101473717, 109783337, 118773397, 128499677, 139022417, 150406843,
    162723577, 176048909, 190465427, 206062531, 222936881, 241193053, 260944219, 282312799, 305431229, 330442829,
    357502601, 386778277, 418451333, 452718089, 489790921, 529899637, 573292817, 620239453, 671030513, 725980837,
    785430967, 849749479, 919334987, 994618837, 1076067617, 1164186217, 1259520799, 1362662261, 1474249943,
    1594975441, 1725587117, 1866894511, 2019773507, 2185171673, 2364114217, 2557710269, 2767159799, 2993761039,
    3238918481, 3504151727, 3791104843, 4101556399, 4294967291, 6442450933};

/* _Prime_rehash_policy::_M_next_bkt */
static uint64_t stl_next_bkt(uint64_t n) {
    static const unsigned char fast[] = {1, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13};
    if (n < 14) return fast[n];
    size_t lo = 0, hi = sizeof stl_primes / sizeof stl_primes[0] - 1;
    while (lo < hi) {   /* first prime >= n */
        size_t mid = (lo + hi) / 2;
        if (stl_primes[mid] < n) lo = mid + 1;
        else hi = mid;
    }
    return stl_primes[lo];
}

static uint64_t stl_shift_mix(uint64_t v) { return v ^ (v >> 47); }

static uint64_t stl_hash_bytes(const unsigned char *p, size_t len) {
    const uint64_t mul = ((uint64_t)0xc6a4a793UL << 32) + (uint64_t)0x5bd1e995UL;
    uint64_t hash = (uint64_t)0xc70f6907UL ^ (len * mul);
    size_t aligned = len & ~(size_t)7;
    for (size_t i = 0; i < aligned; i += 8) {
        uint64_t data;
        memcpy(&data, p + i, 8);
        hash ^= stl_shift_mix(data * mul) * mul;
        hash *= mul;
    }
    if (len & 7) {
        uint64_t data = 0;
        for (int i = (int)(len & 7) - 1; i >= 0; i--) data = (data << 8) + p[aligned + (size_t)i];
        hash ^= data;
        hash *= mul;
    }
    hash = stl_shift_mix(hash) * mul;
    return stl_shift_mix(hash);
}

static uint64_t stl_hash(TensorDtype dt, const char *v) {
    if (dt == TENSOR_FLOAT32) {
        float f;
        memcpy(&f, v, 4);
        return f != 0.0f ? stl_hash_bytes((const unsigned char *)&f, 4) : 0;
    }
    if (dt == TENSOR_FLOAT64) {
        double f;
        memcpy(&f, v, 8);
        return f != 0.0 ? stl_hash_bytes((const unsigned char *)&f, 8) : 0;
    }
    return (uint64_t)tensor__ld_i(dt, v);
}

/* does sorted=False have a hash order of its own for dt (bool: ATen counts, sorted order;
 * float16/bfloat16 stay sorted in Ember) */
static bool hash_ordered(TensorDtype dt) { return dt == TENSOR_FLOAT32 || dt == TENSOR_FLOAT64 || (!tensor__is_float(dt) && dt != TENSOR_BOOL); }

/* the replayed table: nodes are unique indices in one singly linked list; bucket[b] is the node
 * before bucket b's first (BEFORE: the list head) or EMPTY */
enum { STL_EMPTY = -2, STL_BEFORE = -1, STL_NIL = -1 };
typedef struct {
    int64_t *next, *bucket, head;
    const uint64_t *hash;
    uint64_t nb;
} StlTable;

static int64_t stl_after(const StlTable *t, int64_t prev) { return prev == STL_BEFORE ? t->head : t->next[prev]; }
static void stl_link(StlTable *t, int64_t prev, int64_t u) {
    t->next[u] = stl_after(t, prev);
    if (prev == STL_BEFORE) t->head = u;
    else t->next[prev] = u;
}

/* _M_insert_bucket_begin */
static void stl_insert(StlTable *t, int64_t u) {
    uint64_t b = t->hash[u] % t->nb;
    if (t->bucket[b] != STL_EMPTY) {
        stl_link(t, t->bucket[b], u);
        return;
    }
    stl_link(t, STL_BEFORE, u);
    if (t->next[u] != STL_NIL) t->bucket[t->hash[t->next[u]] % t->nb] = u;
    t->bucket[b] = STL_BEFORE;
}

/* _M_rehash_aux (unique keys) into nb buckets */
static int stl_rehash(StlTable *t, uint64_t nb) {
    int64_t *nbk = malloc(sizeof(int64_t) * (size_t)nb);
    if (!nbk) return tensor__oom();
    for (uint64_t b = 0; b < nb; b++) nbk[b] = STL_EMPTY;
    free(t->bucket);
    t->bucket = nbk;
    t->nb = nb;
    int64_t p = t->head;
    t->head = STL_NIL;
    uint64_t bbegin = 0;
    while (p != STL_NIL) {
        int64_t nx = t->next[p];
        uint64_t b = t->hash[p] % nb;
        if (nbk[b] == STL_EMPTY) {
            stl_link(t, STL_BEFORE, p);
            nbk[b] = STL_BEFORE;
            if (t->next[p] != STL_NIL) nbk[bbegin] = p;
            bbegin = b;
        } else {
            stl_link(t, nbk[b], p);
        }
        p = nx;
    }
    return 0;
}

/* Reorders unique's sorted results (vals: nu values, inv: len indices, cnt) into the hash
 * table's iteration order. */
static int hash_order(TensorDtype dt, int64_t len, int64_t nu, Tensor *vals, Tensor *inv, Tensor *cnt) {
    size_t es = tensor__elsize(dt);
    char *vp = tensor__data(vals);
    int64_t *ip = tensor__i64(inv), *cp = tensor__i64(cnt);
    int64_t *next = malloc(sizeof(int64_t) * (size_t)(3 * nu + 1)), *seen = next ? next + nu : NULL;
    int64_t *oldcnt = seen ? seen + nu : NULL;
    uint64_t *hash = malloc(sizeof(uint64_t) * (size_t)(nu + 1));
    char *copy = malloc(es * (size_t)(nu + 1));
    StlTable t = {next, NULL, STL_NIL, hash, 0};
    int rc = -1;
    if (!next || !hash || !copy) {
        tensor__oom();
        goto done;
    }
    for (int64_t u = 0; u < nu; u++) {
        seen[u] = 0;
        hash[u] = stl_hash(dt, vp + (size_t)u * es);
    }
    if (stl_rehash(&t, 1) < 0) goto done;
    uint64_t count = 0, next_resize = 0;
    for (int64_t r = 0; r < len; r++) {   /* inserted in order of first appearance */
        int64_t u = ip[r];
        if (seen[u]) continue;
        seen[u] = 1;
        if (count + 1 > next_resize) {   /* _M_need_rehash, max_load_factor 1 */
            uint64_t min_bkts = count + 1 > (next_resize ? 0 : 11) ? count + 1 : 11;
            if (min_bkts >= t.nb) {
                uint64_t want = min_bkts + 1 > t.nb * 2 ? min_bkts + 1 : t.nb * 2;
                uint64_t nb = stl_next_bkt(want);
                next_resize = nb;
                if (stl_rehash(&t, nb) < 0) goto done;
            } else {
                next_resize = t.nb;
            }
        }
        stl_insert(&t, u);
        count++;
    }
    /* seen[] becomes the old -> new index map; values and counts move to their new places */
    memcpy(copy, vp, es * (size_t)nu);
    memcpy(oldcnt, cp, sizeof(int64_t) * (size_t)nu);
    int64_t j = 0;
    for (int64_t u = t.head; u != STL_NIL; u = next[u], j++) {
        seen[u] = j;
        memcpy(vp + (size_t)j * es, copy + (size_t)u * es, es);
        cp[j] = oldcnt[u];
    }
    for (int64_t r = 0; r < len; r++) ip[r] = seen[ip[r]];
    rc = 0;
done:
    free(next);
    free(t.bucket);
    free(hash);
    free(copy);
    return rc;
}

/* The rows are x's slices along d (every element when there is no dim): row r's elements sit at
 * offsets base(r) + e * stride.  Rows are ordered (unless consecutive), equal neighbours merged:
 * out[0] the unique rows, out[1] each input row's unique index, out[2] the counts. */
static int unique(const Tensor *x, const TensorOpArgs *a, Tensor **out) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    bool by_dim = a->has_dim, consecutive = a->start != 0;
    int64_t d = 0, outer = 1, len = x->numel, inner = 1;
    if (by_dim) {
        d = tensor__wrap_dim(a->dim, x->ndim);
        if (d < 0) return -1;
        split_at(x, d, &outer, &len, &inner);
    }
    /* row r = (r's index along d); its elements are (o, in) pairs in row-major order */
    int64_t rowlen = by_dim ? outer * inner : 1;
    int64_t *ids = malloc(sizeof(int64_t) * (size_t)(2 * len + 1)), *tmp = ids ? ids + len : NULL;
    char *rows = NULL;
    if (!ids) return tensor__oom();
    /* gather rows contiguous: rows[r * rowlen + e] */
    rows = malloc(es * (size_t)(len * rowlen + 1));
    if (!rows) {
        free(ids);
        return tensor__oom();
    }
    const char *src = tensor__data(x);
    for (int64_t r = 0; r < len; r++)
        for (int64_t o = 0; o < outer; o++)
            for (int64_t in = 0; in < inner; in++)
                memcpy(rows + (size_t)(r * rowlen + o * inner + in) * es, src + (size_t)((o * len + r) * inner + in) * es, es);
    for (int64_t r = 0; r < len; r++) ids[r] = r;
    RowCtx c = {rows, dt, rowlen};
    if (!consecutive) {
        /* scalars: rows of one element, ordered like sort (NaN last) */
        if (!by_dim && tensor__is_float(dt)) {
            KeyF *kf = malloc(sizeof(KeyF) * (size_t)(2 * len + 1));
            if (!kf) {
                free(ids);
                free(rows);
                return tensor__oom();
            }
            for (int64_t r = 0; r < len; r++) kf[r] = (KeyF){tensor__ld_d(dt, rows + (size_t)r * es), r};
            sort_lt_f_asc(kf, len, kf + len);
            for (int64_t r = 0; r < len; r++) ids[r] = kf[r].pos;
            free(kf);
        } else if (!by_dim) {
            KeyI *ki = malloc(sizeof(KeyI) * (size_t)(2 * len + 1));
            if (!ki) {
                free(ids);
                free(rows);
                return tensor__oom();
            }
            for (int64_t r = 0; r < len; r++) ki[r] = (KeyI){tensor__ld_i(dt, rows + (size_t)r * es), r};
            sort_lt_i_asc(ki, len, ki + len);
            for (int64_t r = 0; r < len; r++) ids[r] = ki[r].pos;
            free(ki);
        } else {
            sort_rows(&c, ids, len, tmp);
        }
    }
    /* group: tmp[k] = unique index of sorted position k */
    int64_t nu = 0;
    for (int64_t k = 0; k < len; k++) {
        if (k == 0 || !rows_equal(rows, dt, rowlen, 1, ids[k - 1] * rowlen, ids[k] * rowlen)) nu++;
        tmp[k] = nu - 1;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = 1;
    if (by_dim) {
        memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
        shape[d] = nu;
        nd = x->ndim;
    } else {
        shape[0] = nu;
    }
    Tensor *vals = tensor__new(dt, nd, shape, false);
    Tensor *inv = by_dim ? tensor__new(TENSOR_INT64, 1, &len, false) : tensor__new(TENSOR_INT64, x->ndim, x->shape, false);
    Tensor *cnt = tensor__new(TENSOR_INT64, 1, &nu, true);
    if (!vals || !inv || !cnt) {
        tensor_decref(vals);
        tensor_decref(inv);
        tensor_decref(cnt);
        free(ids);
        free(rows);
        return -1;
    }
    char *vp = tensor__data(vals);
    int64_t *ip = tensor__i64(inv), *cp = tensor__i64(cnt);
    for (int64_t k = 0; k < len; k++) {
        int64_t u = tmp[k], r = ids[k];
        ip[r] = u;
        if (cp[u]++ == 0)
            for (int64_t o = 0; o < outer; o++)
                for (int64_t in = 0; in < inner; in++)
                    memcpy(vp + (size_t)((o * nu + u) * inner + in) * es, rows + (size_t)(r * rowlen + o * inner + in) * es, es);
    }
    free(ids);
    free(rows);
    if (a->accumulate && !by_dim && !consecutive && hash_ordered(dt) && hash_order(dt, len, nu, vals, inv, cnt) < 0) {
        tensor_decref(vals);
        tensor_decref(inv);
        tensor_decref(cnt);
        return -1;
    }
    out[0] = vals;
    out[1] = inv;
    out[2] = cnt;
    return 3;
}

/* ---- cumsum: accumulates in double (floating) or int64, as ATen's CPU kernel (acc_type) ---- */

/* cumsum of float32 into float32 / float64 into float64: src/tensor/scan_lines.h */
SCAN_LINES_TYPED(cumsum_f32, float, 0, +)
SCAN_LINES_TYPED(cumsum_f64, double, 0, +)

static void cumsum(const Tensor *x, int64_t d, Tensor *r) {
    TensorDtype xt = (TensorDtype)x->dtype, rt = (TensorDtype)r->dtype;
    size_t xs = tensor__elsize(xt), rs = tensor__elsize(rt);
    bool fl = tensor__is_float(rt);
    int64_t outer, len, inner;
    split_at(x, d, &outer, &len, &inner);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
    if (xt == rt && xt == TENSOR_FLOAT32 && cumsum_f32((const float *)src, (float *)dst, outer, len, inner)) return;
    if (xt == rt && xt == TENSOR_FLOAT64 && cumsum_f64((const double *)src, (double *)dst, outer, len, inner)) return;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            double fa = 0;
            int64_t ia = 0;
            for (int64_t j = 0; j < len; j++) {
                size_t e = (size_t)((o * len + j) * inner + in);
                if (fl) {
                    fa += tensor__ld_d(xt, src + e * xs);
                    tensor__st_d(rt, dst + e * rs, fa);
                } else {
                    ia += tensor__ld_i(xt, src + e * xs);
                    tensor__st_i(rt, dst + e * rs, ia);
                }
            }
        }
}

/* A reorder op's kernel body: x (contiguous input 0), its metadata xm, outputs r0 (and r1). */
typedef int (*ReorderKernel)(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1);

/* The outputs from `infer`, the kernel over a contiguous copy of input 0. */
static inline int reorder_run(TensorInferFn infer, ReorderKernel kernel, TensorOp op, Tensor *const *in, int n,
                              const TensorOpArgs *a, Tensor **out) {
    TensorMeta m[2];
    const TensorMeta *mi[1];
    TensorMeta xm;
    tensor_meta_of(in[0], &xm);
    mi[0] = &xm;
    int no = infer(op, mi, n, a, m, 2);
    if (no < 0) return -1;
    Tensor *x = tensor_contiguous(in[0]);
    if (!x) return -1;
    Tensor *r0 = tensor__new_from_meta(&m[0], false), *r1 = no > 1 ? tensor__new_from_meta(&m[1], false) : NULL;
    int rc = -1;
    if (r0 && (no == 1 || r1)) rc = kernel(x, &xm, a, r0, r1);
    tensor_decref(x);
    if (rc < 0) {
        tensor_decref(r0);
        tensor_decref(r1);
        return -1;
    }
    out[0] = r0;
    if (no > 1) out[1] = r1;
    return no;
}

static int tril_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    (void)xm, (void)r1;
    tri(x, r0, a->start, true);
    return 0;
}

static int triu_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    (void)xm, (void)r1;
    tri(x, r0, a->start, false);
    return 0;
}

static int roll_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    (void)xm, (void)r1;
    return roll(x, r0, a);
}

static int flip_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    (void)xm, (void)r1;
    bool flip[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < a->n_ints; i++) flip[tensor__wrap_dim(a->ints[i], x->ndim)] = true;
    move_elements(x, r0, flip, NULL);
    return 0;
}

/* sort: step -1 = descending */
static int sort_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    int64_t d = along(xm, a->dim);
    return select_slices(x, x->ndim ? d : 0, x->ndim ? x->shape[d] : 1, a->step < 0, SEL_SORT, r0, r1);
}

/* topk: step -1 = largest (the default) */
static int topk_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    int64_t d = along(xm, a->dim);
    return select_slices(x, x->ndim ? d : 0, a->start, a->step < 0, SEL_TOPK, r0, r1);
}

/* kthvalue: the k-th smallest (k = start, from 1) */
static int kthvalue_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    return select_slices(x, x->ndim ? along(xm, a->dim) : 0, a->start, false, SEL_KTH, r0, r1);
}

static int cumsum_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    (void)r1;
    cumsum(x, along(xm, a->dim), r0);
    return 0;
}

#define REORDER_RUN(NAME, INFER)                                                                                       \
    TENSOR_RUN(NAME) {                                                                                                 \
        (void)n_out;                                                                                                   \
        return reorder_run(tensor__infer_##INFER, NAME##_kernel, op, in, n_in, a, out);                               \
    }
REORDER_RUN(tril, tri)
REORDER_RUN(triu, tri)
REORDER_RUN(roll, roll)
REORDER_RUN(flip, flip)
REORDER_RUN(sort, sort)
REORDER_RUN(topk, topk)
REORDER_RUN(cumsum, cumsum)
REORDER_RUN(kthvalue, kthvalue)

TENSOR_RUN(unique) {
    (void)op, (void)n_in, (void)n_out;
    TensorMeta xm;
    tensor_meta_of(in[0], &xm);
    if (a->has_dim && xm.ndim == 0) {
        tensor_error_set(TENSOR_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions", (long long)a->dim);
        return -1;
    }
    if (a->has_dim && tensor__wrap_dim(a->dim, xm.ndim) < 0) return -1;
    Tensor *xc = tensor_contiguous(in[0]);
    if (!xc) return -1;
    int rc = unique(xc, a, out);
    tensor_decref(xc);
    return rc;
}
