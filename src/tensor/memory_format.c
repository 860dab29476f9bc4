/* memory_format.c — PyTorch's memory formats (contiguous, preserve, channels_last,
 * channels_last_3d): the strides a new tensor is laid out with for clone / to / contiguous and
 * the *_like factories, and is_contiguous(memory_format=).  c10's get_channels_last_strides_2d/3d,
 * compute_channels_last_contiguous_2d/3d and ATen's empty_like(preserve_format) are the model. */
#include <string.h>

#include "src/tensor/iter.h"
#include "src/tensor/tensor.h"

/* dims from fastest to slowest: C, then the spatial dims innermost first, then N */
static const int cl2d_order[4] = {1, 3, 2, 0};
static const int cl3d_order[5] = {1, 4, 3, 2, 0};

static void strides_in_order(int nd, const int64_t *shape, const int *order, int64_t *strides) {
    int64_t s = 1;
    for (int i = 0; i < nd; i++) {
        strides[order[i]] = s;
        s *= shape[order[i]] > 1 ? shape[order[i]] : 1;
    }
}

int tensor_memory_format_strides(TensorMemoryFormat mf, int nd, const int64_t *shape, const int64_t *like_strides,
                                 int64_t *strides) {
    switch (mf) {
    case TENSOR_MF_CHANNELS_LAST:
        if (nd != 4) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
            return -1;
        }
        strides_in_order(nd, shape, cl2d_order, strides);
        return 0;
    case TENSOR_MF_CHANNELS_LAST_3D:
        if (nd != 5) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "required rank 5 tensor to use channels_last_3d format");
            return -1;
        }
        strides_in_order(nd, shape, cl3d_order, strides);
        return 0;
    case TENSOR_MF_PRESERVE:
        if (like_strides) {
            /* empty_like: a non-overlapping dense tensor's own strides (size-1 dims' included),
             * otherwise dense in the order of its strides, as TensorIterator would lay it out */
            if (tensor__non_overlapping_dense(nd, shape, like_strides)) {
                memcpy(strides, like_strides, sizeof(int64_t) * (size_t)nd);
            } else {
                TensorGeom g = {nd, shape, like_strides};
                tensor__iter_out_strides(1, &g, nd, shape, strides);
            }
            return 0;
        }
        break;
    case TENSOR_MF_UNSET:
    case TENSOR_MF_CONTIGUOUS:
        break;
    }
    tensor__compute_contiguous_strides(nd, shape, strides);
    return 0;
}

bool tensor__strides_are_contiguous(int nd, const int64_t *shape, const int64_t *strides) {
    int64_t c[TENSOR_MAX_DIMS];
    tensor__compute_contiguous_strides(nd, shape, c);
    return memcmp(c, strides, sizeof(int64_t) * (size_t)nd) == 0;
}

/* dense in `order`, size-1 dims skipped (c10's compute_channels_last_contiguous_2d/3d) */
static bool contiguous_in_order(int nd, const int64_t *shape, const int64_t *strides, const int *order) {
    int64_t want = 1;
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        if (shape[d] == 1) continue;
        if (strides[d] != want) return false;
        want *= shape[d];
    }
    return true;
}

bool tensor__contiguous_as(int nd, const int64_t *shape, const int64_t *strides, TensorMemoryFormat mf) {
    switch (mf) {
    case TENSOR_MF_CHANNELS_LAST: return nd == 4 && contiguous_in_order(nd, shape, strides, cl2d_order);
    case TENSOR_MF_CHANNELS_LAST_3D: return nd == 5 && contiguous_in_order(nd, shape, strides, cl3d_order);
    default: return tensor__is_contiguous_geometry(nd, shape, strides);
    }
}

bool tensor_is_contiguous_as(const Tensor *t, TensorMemoryFormat mf) {
    return tensor__contiguous_as(t->ndim, t->shape, t->strides, mf);
}

/* c10's is_channels_last_strides_2d_s4 / _3d_s5: strides that rank the dims as channels-last
 * does (C fastest, N slowest), where an ambiguous case (N111-like) stays contiguous */
static bool strides_like_order(int nd, const int64_t *shape, const int64_t *strides, const int *order) {
    int64_t min = 0;
    if (strides[1] == 0) return false;   /* a trivial C dimension: NCHW */
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        if (shape[d] == 0) return false;
        if (strides[d] < min) return false;
        if (d == 0 && min == strides[1]) return false;   /* N111 with identical strides */
        min = strides[d];
        if (shape[d] > 1) min *= shape[d];
    }
    return true;
}

TensorMemoryFormat tensor__suggest_memory_format(int nd, const int64_t *shape, const int64_t *strides) {
    if (nd == 4 && strides_like_order(nd, shape, strides, cl2d_order)) return TENSOR_MF_CHANNELS_LAST;
    if (nd == 5 && strides_like_order(nd, shape, strides, cl3d_order)) return TENSOR_MF_CHANNELS_LAST_3D;
    return TENSOR_MF_CONTIGUOUS;
}

bool tensor__to_aliases(TensorDtype dt, int x_dtype, int nd, const int64_t *shape, const int64_t *strides,
                        TensorMemoryFormat mf, bool copy) {
    return dt == (TensorDtype)x_dtype && !copy &&
           (mf == TENSOR_MF_UNSET || mf == TENSOR_MF_PRESERVE || tensor__suggest_memory_format(nd, shape, strides) == mf);
}

bool tensor_to_aliases(const Tensor *t, TensorDtype dt, TensorMemoryFormat mf, bool copy) {
    return tensor__to_aliases(dt == TENSOR_DTYPE_DEFAULT ? (TensorDtype)t->dtype : dt, t->dtype, t->ndim, t->shape,
                              t->strides, mf, copy);
}
