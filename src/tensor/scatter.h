/* scatter.h — the scatter family (scatter.c): scatter, scatter_add, scatter_reduce, for
 * dispatch.c's `scatter` category and index.c. */
#ifndef EMBER_SRC_TENSOR_SCATTER_H
#define EMBER_SRC_TENSOR_SCATTER_H

#include "src/tensor/tensor.h"

/* ATen's gather_scatter_check + scatter_shape_check (src may be NULL: the value form) */
int tensor__scatter_check(const TensorMeta *self, const TensorMeta *index, const TensorMeta *src, int64_t dim) EM_MUST_CHECK;
/* self with src (or value, when src is NULL) scattered along dim by index, reduced by m */
Tensor *tensor__scatter(const Tensor *self, int64_t dim, const Tensor *index, const Tensor *src, TensorScalar value,
                        TensorScatterReduce m, bool include_self);
int tensor__infer_scatter(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max);
int tensor__run_scatter(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out);

#endif
