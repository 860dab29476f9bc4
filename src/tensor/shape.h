/* shape.h — internal entry points of the movement ops (shape.c). */
#ifndef EMBER_SRC_TENSOR_SHAPE_H
#define EMBER_SRC_TENSOR_SHAPE_H

#include "src/tensor/kernels.h"

int tensor__infer_size(int n, const int64_t *shape, int64_t numel, int64_t *out) EM_MUST_CHECK;
int tensor__reshape_meta(const TensorMeta *in, int n, const int64_t *shape, TensorMeta *o) EM_MUST_CHECK;
bool tensor__can_view(const Tensor *t, int n, const int64_t *shape);
int tensor__flatten_shape(int nd, const int64_t *shape, int64_t start, int64_t end, int *nout, int64_t *out) EM_MUST_CHECK;
int tensor__narrow_args(const Tensor *t, int64_t dim, int64_t start, int64_t length, TensorOpArgs *a) EM_MUST_CHECK;
int tensor__chunk_split_size(const Tensor *t, int64_t chunks, int64_t dim, int64_t *split_size, int64_t *wdim) EM_MUST_CHECK;

#endif
