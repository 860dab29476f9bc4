/* reorder.c — ops that move, mask or order elements along dims without arithmetic between
 * elements (beyond cumsum's running sum): tril, triu, roll, flip, sort, topk, cumsum.  They work
 * on a contiguous copy of the input and write a new contiguous output, for any dtype: elements
 * move as bytes (tensor__elsize), and sort/topk compare loaded values (double for floating
 * dtypes, int64 for the others), with PyTorch's order for NaN (greater than every number). */
#include "src/tensor/kernels.h"

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
    if (x->dtype == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"topk_cpu\" not implemented for 'Bool'");
        return -1;
    }
    if (x->ndim) shape[d] = a->start;
    return values_indices_meta(x, shape, out);
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

/* ---- sort / topk ---- */

typedef struct {
    double f;
    int64_t i;     /* integer dtypes' value */
    int64_t pos;   /* index along the dim: the tie-break that keeps the sort stable */
} SortKey;

/* ascending with NaN last (PyTorch's order); ties by position */
static int cmp_f_asc(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    bool na = isnan(a->f), nb = isnan(b->f);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->f != b->f) return a->f < b->f ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}
static int cmp_f_desc(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    bool na = isnan(a->f), nb = isnan(b->f);
    if (na != nb) return na ? -1 : 1;
    if (!na && a->f != b->f) return a->f > b->f ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}
static int cmp_i_asc(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}
static int cmp_i_desc(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    if (a->i != b->i) return a->i > b->i ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* sorts every slice along dim d and writes its first k elements (and their indices) */
static int sort_slices(const Tensor *x, int64_t d, int64_t k, bool descending, Tensor *vals, Tensor *idxs) {
    TensorDtype dt = (TensorDtype)x->dtype;
    size_t es = tensor__elsize(dt);
    bool fl = tensor__is_float(dt);
    int64_t outer, len, inner;
    split_at(x, d, &outer, &len, &inner);
    SortKey *keys = malloc(sizeof(SortKey) * (size_t)(len ? len : 1));
    if (!keys) return tensor__oom();
    int (*cmp)(const void *, const void *) = fl ? (descending ? cmp_f_desc : cmp_f_asc) : (descending ? cmp_i_desc : cmp_i_asc);
    const char *src = tensor__data(x);
    char *dv = tensor__data(vals);
    int64_t *di = (int64_t *)tensor__data(idxs);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            for (int64_t j = 0; j < len; j++) {
                const char *p = src + (size_t)((o * len + j) * inner + in) * es;
                keys[j].pos = j;
                if (fl) keys[j].f = tensor__ld_d(dt, p);
                else keys[j].i = tensor__ld_i(dt, p);
            }
            qsort(keys, (size_t)len, sizeof(SortKey), cmp);
            for (int64_t j = 0; j < k; j++) {
                int64_t out = (o * k + j) * inner + in;
                memcpy(dv + (size_t)out * es, src + (size_t)((o * len + keys[j].pos) * inner + in) * es, es);
                di[out] = keys[j].pos;
            }
        }
    free(keys);
    return 0;
}

/* ---- cumsum: accumulates in double (floating) or int64, as ATen's CPU kernel (acc_type) ---- */

static void cumsum(const Tensor *x, int64_t d, Tensor *r) {
    TensorDtype xt = (TensorDtype)x->dtype, rt = (TensorDtype)r->dtype;
    size_t xs = tensor__elsize(xt), rs = tensor__elsize(rt);
    bool fl = tensor__is_float(rt);
    int64_t outer, len, inner;
    split_at(x, d, &outer, &len, &inner);
    const char *src = tensor__data(x);
    char *dst = tensor__data(r);
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
    return sort_slices(x, x->ndim ? d : 0, x->ndim ? x->shape[d] : 1, a->step < 0, r0, r1);
}

/* topk: step -1 = largest (the default) */
static int topk_kernel(const Tensor *x, const TensorMeta *xm, const TensorOpArgs *a, Tensor *r0, Tensor *r1) {
    int64_t d = along(xm, a->dim);
    return sort_slices(x, x->ndim ? d : 0, a->start, a->step < 0, r0, r1);
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
