/* iter.c — broadcasting, dim coalescing and the outer loop of pointwise kernels. */
#include "src/tensor/iter.h"

void tensor__iter_init(TensorIter *it, int nops, const Tensor *const *ops, int ndim, const int64_t *shape) {
    it->nops = nops;
    it->numel = tensor__shape_numel(ndim, shape);
    int64_t sh[TENSOR_MAX_DIMS];
    int64_t st[TENSOR_ITER_MAXOPS][TENSOR_MAX_DIMS];
    int n = 0;
    /* innermost first, dropping size-1 dims */
    for (int d = ndim - 1; d >= 0; d--) {
        if (shape[d] == 1) continue;
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
    if (it->ndim == 1) {
        fn(ptr, inner_strides, inner, ctx);
        return;
    }
    int64_t counter[TENSOR_MAX_DIMS] = {0};
    for (;;) {
        fn(ptr, inner_strides, inner, ctx);
        int d = 1;
        for (; d < it->ndim; d++) {
            counter[d]++;
            for (int k = 0; k < nops; k++) ptr[k] += it->strides[k][d];
            if (counter[d] < it->shape[d]) break;
            for (int k = 0; k < nops; k++) ptr[k] -= it->strides[k][d] * it->shape[d];
            counter[d] = 0;
        }
        if (d == it->ndim) return;
    }
}
