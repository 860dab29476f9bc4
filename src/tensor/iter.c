/* iter.c — broadcasting, dim coalescing and the outer loop of pointwise kernels. */
#include "src/tensor/iter.h"

#include "src/tensor/parallel.h"
#include "ember/tensor.h"

#include <stdbool.h>
#include <string.h>

/* ---- output layout (TensorIterator's fast set-up, compute_strides and reorder_dimensions) ---- */

/* strides dense in the order `order` (order[0] the fastest dim), size-1 dims skipped as c10's
 * contiguity checks skip them */
bool tensor__dense_in_order(int nd, const int64_t *shape, const int64_t *strides, const int *order) {
    int64_t want = 1;
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        if (shape[d] == 1) continue;
        if (strides[d] != want) return false;
        want *= shape[d];
    }
    return true;
}

/* c10's is_non_overlapping_and_dense */
bool tensor__non_overlapping_dense(int nd, const int64_t *shape, const int64_t *strides) {
    if (nd == 1) return shape[0] < 2 || strides[0] == 1;
    int perm[TENSOR_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = i;
    /* by stride, dims of size < 2 last (an insertion sort: a handful of dims) */
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool b_first = shape[a] < 2 ? shape[b] >= 2 : shape[b] >= 2 && strides[b] < strides[a];
            if (!b_first) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    int64_t want = 1;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        if (shape[d] < 2) return true;
        if (strides[d] != want) return false;
        want *= shape[d];
    }
    return true;
}

bool tensor_is_non_overlapping_and_dense(const Tensor *t) {
    return tensor__non_overlapping_dense(t->ndim, t->shape, t->strides);
}

static void dense_strides(int nd, const int64_t *shape, const int *order, int64_t *strides) {
    int64_t s = 1;
    for (int i = 0; i < nd; i++) {
        strides[order[i]] = s;
        s *= shape[order[i]];
    }
}

void tensor__iter_out_strides(int n, const TensorGeom *g, int nd, const int64_t *shape, int64_t *strides) {
    int order[TENSOR_MAX_DIMS];
    for (int i = 0; i < nd; i++) order[i] = nd - 1 - i;   /* row-major: the last dim fastest */
    if (nd <= 1 || n == 0) {
        dense_strides(nd, shape, order, strides);
        return;
    }
    /* fast set-up: every input of the iteration shape (none 0-dim) */
    bool same_shape = true, contig = true, cl = nd == 4, nod = true;
    static const int cl_order[4] = {1, 3, 2, 0};
    for (int k = 0; k < n && same_shape; k++)
        same_shape = g[k].ndim == nd && memcmp(g[k].shape, shape, sizeof(int64_t) * (size_t)nd) == 0;
    if (same_shape) {
        for (int k = 0; k < n; k++) {
            contig = contig && tensor__dense_in_order(nd, shape, g[k].strides, order);
            cl = cl && tensor__dense_in_order(nd, shape, g[k].strides, cl_order);
            nod = nod && tensor__non_overlapping_dense(nd, shape, g[k].strides);
        }
        if (contig) {
            dense_strides(nd, shape, order, strides);
            return;
        }
        if (cl) {
            dense_strides(nd, shape, cl_order, strides);
            return;
        }
        bool equal = nod;
        for (int k = 1; k < n && equal; k++) equal = memcmp(g[k].strides, g[0].strides, sizeof(int64_t) * (size_t)nd) == 0;
        if (equal) {
            memcpy(strides, g[n - 1].strides, sizeof(int64_t) * (size_t)nd);
            return;
        }
    }
    /* each input's strides on the iteration shape: 0 where it is broadcast */
    int64_t st[TENSOR_ITER_MAXOPS][TENSOR_MAX_DIMS];
    int m = n < TENSOR_ITER_MAXOPS ? n : TENSOR_ITER_MAXOPS;
    for (int k = 0; k < m; k++)
        for (int d = 0; d < nd; d++) {
            int td = d - (nd - g[k].ndim);
            st[k][d] = td < 0 || (g[k].shape[td] == 1 && shape[d] != 1) ? 0 : g[k].strides[td];
        }
    /* 1 when dim a should come after (be slower than) dim b, -1 before, 0 undecided */
    #define SHOULD_SWAP(a, b, r)                                                              \
        do {                                                                                 \
            r = 0;                                                                           \
            for (int k = 0; k < m; k++) {                                                    \
                int64_t s0 = st[k][a], s1 = st[k][b];                                        \
                if (s0 == 0 || s1 == 0) continue;                                            \
                if (s0 < s1) { r = -1; break; }                                              \
                if (s0 > s1) { r = 1; break; }                                               \
                if (shape[a] > shape[b]) { r = 1; break; }                                   \
            }                                                                                \
        } while (0)
    /* insertion sort that leaves undecided pairs where they are, fastest dim first */
    for (int i = 1; i < nd; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c;
            SHOULD_SWAP(order[d0], order[d1], c);
            if (c > 0) {
                int t = order[d0];
                order[d0] = order[d1];
                order[d1] = t;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
    #undef SHOULD_SWAP
    dense_strides(nd, shape, order, strides);
}

void tensor__iter_init(TensorIter *it, int nops, const Tensor *const *ops, int ndim, const int64_t *shape) {
    it->nops = nops;
    it->numel = tensor__shape_numel(ndim, shape);
    int64_t sh[TENSOR_MAX_DIMS];
    int64_t st[TENSOR_ITER_MAXOPS][TENSOR_MAX_DIMS];
    int n = 0;
    /* innermost first, dropping size-1 dims; in the order of the output's strides (a stable sort,
     * so a row-major output keeps the dims' order): an output laid out as transposed inputs are
     * (tensor__iter_out_strides) is then walked in memory order, and coalesces like a contiguous
     * one.  Elementwise loops only: no user of the iterator depends on the order. */
    int dims[TENSOR_MAX_DIMS], nd_kept = 0;
    const Tensor *o0 = ops[0];
    for (int d = ndim - 1; d >= 0; d--) {
        if (shape[d] == 1) continue;
        int od = d - (ndim - o0->ndim);
        int64_t key = od >= 0 && o0->shape[od] != 1 ? o0->strides[od] : 0;
        int j = nd_kept++;
        while (j > 0) {
            int pd = dims[j - 1] - (ndim - o0->ndim);
            int64_t pk = pd >= 0 && o0->shape[pd] != 1 ? o0->strides[pd] : 0;
            if (pk <= key) break;
            dims[j] = dims[j - 1];
            j--;
        }
        dims[j] = d;
    }
    for (int i = 0; i < nd_kept; i++) {
        int d = dims[i];
        sh[n] = shape[d];
        for (int k = 0; k < nops; k++) {
            const Tensor *t = ops[k];
            int td = d - (ndim - t->ndim);
            int64_t stride = 0;
            if (td >= 0 && t->shape[td] != 1) stride = t->strides[td] * (int64_t)tensor__elsize((TensorDtype)t->dtype);
            st[k][n] = stride;
        }
        n++;
    }
    for (int k = 0; k < nops; k++) it->data[k] = tensor__data(ops[k]);
    if (n == 0) {
        it->ndim = 1;
        it->shape[0] = 1;
        for (int k = 0; k < nops; k++) it->strides[k][0] = 0;
        return;
    }
    /* merge dim i into the current merged dim when contiguous for every operand */
    int m = 0;
    it->shape[0] = sh[0];
    for (int k = 0; k < nops; k++) it->strides[k][0] = st[k][0];
    for (int i = 1; i < n; i++) {
        bool can = true;
        for (int k = 0; k < nops && can; k++)
            if (st[k][i] != it->strides[k][m] * it->shape[m]) can = false;
        if (can) {
            it->shape[m] *= sh[i];
        } else {
            m++;
            it->shape[m] = sh[i];
            for (int k = 0; k < nops; k++) it->strides[k][m] = st[k][i];
        }
    }
    it->ndim = m + 1;
}

/* Advances the operand pointers from one row (dim 0) to the next, odometer-style over dims 1..;
 * false after the last row. */
static bool next_row(const TensorIter *it, int64_t *counter, char **ptr) {
    int nops = it->nops;
    for (int d = 1; d < it->ndim; d++) {
        counter[d]++;
        for (int k = 0; k < nops; k++) ptr[k] += it->strides[k][d];
        if (counter[d] < it->shape[d]) return true;
        for (int k = 0; k < nops; k++) ptr[k] -= it->strides[k][d] * it->shape[d];
        counter[d] = 0;
    }
    return false;
}

/* Runs fn over elements [b, e) of the iteration (linear order, dim 0 innermost). */
static void iter_range(const TensorIter *it, TensorLoopFn fn, const void *ctx, int64_t b, int64_t e) {
    int nops = it->nops;
    int64_t inner_strides[TENSOR_ITER_MAXOPS];
    char *ptr[TENSOR_ITER_MAXOPS];
    int64_t counter[TENSOR_MAX_DIMS] = {0};
    int64_t rest = b;
    for (int d = 0; d < it->ndim; d++) {
        counter[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int k = 0; k < nops; k++) {
        inner_strides[k] = it->strides[k][0];
        ptr[k] = it->data[k];
        for (int d = 0; d < it->ndim; d++) ptr[k] += counter[d] * it->strides[k][d];
    }
    int64_t inner = it->shape[0];
    while (b < e) {
        int64_t len = inner - counter[0];
        if (len > e - b) len = e - b;
        fn(ptr, inner_strides, len, ctx);
        b += len;
        if (b >= e) return;
        /* the next row starts at column 0 */
        for (int k = 0; k < nops; k++) ptr[k] -= counter[0] * it->strides[k][0];
        counter[0] = 0;
        if (!next_row(it, counter, ptr)) return;
    }
}

/* [lo, hi) bytes operand k touches */
static void extent(const TensorIter *it, int k, int64_t elsize, char **lo, char **hi) {
    int64_t l = 0, h = 0;
    for (int d = 0; d < it->ndim; d++) {
        int64_t span = (it->shape[d] - 1) * it->strides[k][d];
        if (span < 0) l += span;
        else h += span;
    }
    *lo = it->data[k] + l;
    *hi = it->data[k] + h + elsize;
}

/* May pieces of the output run on different threads with one thread's results?  Not when two
 * output elements share memory (a broadcast written to) or the output partly overlaps an input
 * (x[1:] op= x[:-1]): one thread's order decides those results, so they stay serial. */
static bool splittable(const TensorIter *it) {
    int64_t st[TENSOR_MAX_DIMS], sh[TENSOR_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->shape[d] == 1) continue;
        int64_t s = it->strides[0][d] < 0 ? -it->strides[0][d] : it->strides[0][d];
        if (s == 0) return false;
        int i = n++;
        for (; i > 0 && st[i - 1] > s; i--) {
            st[i] = st[i - 1];
            sh[i] = sh[i - 1];
        }
        st[i] = s;
        sh[i] = it->shape[d];
    }
    /* each stride clears the extent of the smaller ones: no two output elements meet (the
     * element size is at most the smallest stride for a tensor that was not viewed oddly) */
    for (int i = 1; i < n; i++)
        if (st[i] < st[i - 1] * sh[i - 1]) return false;
    char *olo, *ohi;
    int64_t es = n ? st[0] : 1;
    extent(it, 0, es, &olo, &ohi);
    for (int k = 1; k < it->nops; k++) {
        bool same = it->data[k] == it->data[0];
        for (int d = 0; d < it->ndim && same; d++) same = it->strides[k][d] == it->strides[0][d];
        if (same) continue; /* exact in-place: each element reads only itself */
        char *lo, *hi;
        extent(it, k, 1, &lo, &hi);
        if (lo < ohi && olo < hi) return false;
    }
    return true;
}

typedef struct IterJob {
    const TensorIter *it;
    TensorLoopFn fn;
    const void *ctx;
} IterJob;

static void iter_piece(void *vj, int64_t b, int64_t e) {
    const IterJob *j = vj;
    iter_range(j->it, j->fn, j->ctx, b, e);
}

void tensor__iter_run(const TensorIter *it, TensorLoopFn fn, const void *ctx) {
    if (it->numel == 0) return;
    int nops = it->nops;
    int64_t inner_strides[TENSOR_ITER_MAXOPS];
    char *ptr[TENSOR_ITER_MAXOPS];
    for (int k = 0; k < nops; k++) {
        inner_strides[k] = it->strides[k][0];
        ptr[k] = it->data[k];
    }
    int64_t inner = it->shape[0];
    /* large ops go to the pool (parallel.h): pieces of whole elements, computed as one thread
     * would compute them */
    if (it->numel > TENSOR_GRAIN_SIZE && tensor_get_num_threads() > 1 && splittable(it)) {
        IterJob j = {it, fn, ctx};
        tensor_parallel_for(it->numel, TENSOR_GRAIN_SIZE, iter_piece, &j);
        return;
    }
    if (it->ndim == 1) {
        fn(ptr, inner_strides, inner, ctx);
        return;
    }
    int64_t counter[TENSOR_MAX_DIMS] = {0};
    for (;;) {
        fn(ptr, inner_strides, inner, ctx);
        if (!next_row(it, counter, ptr)) return;
    }
}
