/* memory_format.c — PyTorch's memory formats (contiguous, preserve, channels_last,
 * channels_last_3d): the strides a new tensor is laid out with for clone / to / contiguous and
 * the *_like factories, and is_contiguous(memory_format=).  c10's get_channels_last_strides_2d/3d,
 * compute_channels_last_contiguous_2d/3d and ATen's empty_like(preserve_format) are the model. */
#include <string.h>

#include "src/tensor/iter.h"
#include "src/tensor/tensor.h"

/* The channels-last formats: their rank, name, and dims from fastest to slowest (C, then the
 * spatial dims innermost first, then N); NULL for the others. */
typedef struct ChannelsLast {
    int rank;
    const char *name;
    int order[5];
} ChannelsLast;

static const ChannelsLast *channels_last(TensorMemoryFormat mf) {
    static const ChannelsLast cl2d = {4, "channels_last", {1, 3, 2, 0}}, cl3d = {5, "channels_last_3d", {1, 4, 3, 2, 0}};
    return mf == TENSOR_MF_CHANNELS_LAST ? &cl2d : mf == TENSOR_MF_CHANNELS_LAST_3D ? &cl3d : NULL;
}

static void strides_in_order(int nd, const int64_t *shape, const int *order, int64_t *strides) {
    int64_t s = 1;
    for (int i = 0; i < nd; i++) {
        strides[order[i]] = s;
        s *= shape[order[i]] > 1 ? shape[order[i]] : 1;
    }
}

int tensor_memory_format_strides(TensorMemoryFormat mf, int nd, const int64_t *shape, const int64_t *like_strides,
                                 int64_t *strides) {
    const ChannelsLast *cl = channels_last(mf);
    if (cl) {
        if (nd != cl->rank) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "required rank %d tensor to use %s format", cl->rank, cl->name);
            return -1;
        }
        strides_in_order(nd, shape, cl->order, strides);
        return 0;
    }
    switch (mf) {
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
    default:
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

bool tensor__contiguous_as(int nd, const int64_t *shape, const int64_t *strides, TensorMemoryFormat mf) {
    /* c10's compute_channels_last_contiguous_2d/3d: dense in the format's order */
    const ChannelsLast *cl = channels_last(mf);
    if (cl) return nd == cl->rank && tensor__dense_in_order(nd, shape, strides, cl->order);
    return tensor__is_contiguous_geometry(nd, shape, strides);
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
    for (TensorMemoryFormat mf = TENSOR_MF_CHANNELS_LAST; mf <= TENSOR_MF_CHANNELS_LAST_3D; mf++) {
        const ChannelsLast *cl = channels_last(mf);
        if (nd == cl->rank && strides_like_order(nd, shape, strides, cl->order)) return mf;
    }
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
