/* nn.h — internal entry points of the nn kernels (nn.c) and indexing kernels (index.c). */
#ifndef EMBER_SRC_TENSOR_NN_H
#define EMBER_SRC_TENSOR_NN_H

#include "src/tensor/kernels.h"

Tensor *tensor__softmax(const Tensor *a, int64_t dim, bool log_mode);
/* one contiguous row's softmax / log_softmax in PyTorch's order (softmax_rows.c) */
void tensor__softmax_row_f32(const float *x, float *y, int64_t n, bool log_mode);
void tensor__softmax_row_f64(const double *x, double *y, int64_t n, bool log_mode);
/* their backward over a row (grad g, output y) */
void tensor__softmax_bw_row_f32(const float *g, const float *y, float *o, int64_t n, bool log_mode);
void tensor__softmax_bw_row_f64(const double *g, const double *y, double *o, int64_t n, bool log_mode);
/* over a dim that is not the last: inner columns per outer index, each n values inner apart */
void tensor__softmax_cols_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, bool log_mode);
void tensor__softmax_cols_f64(const double *x, double *y, int64_t outer, int64_t n, int64_t inner, bool log_mode);
void tensor__softmax_bw_cols_f32(const float *g, const float *y, float *o, int64_t outer, int64_t n, int64_t inner,
                                 bool log_mode);
void tensor__softmax_bw_cols_f64(const double *g, const double *y, double *o, int64_t outer, int64_t n, int64_t inner,
                                 bool log_mode);
/* one row of layer_norm in PyTorch's order (layer_norm_rows.c); mean_out / rstd_out may be NULL */
void tensor__layer_norm_row_f32(const float *x, const float *w, const float *b, float *y, int64_t cols, double eps,
                                float *mean_out, float *rstd_out);
/* layer_norm's backward over rows x cols (weight may be NULL): grad_input, grad_weight, grad_bias */
void tensor__layer_norm_backward_f32(const float *g, const float *x, const float *w, float *dx, float *dw, float *db,
                                     int64_t rows, int64_t cols, double eps);
void tensor__layer_norm_backward_f64(const double *g, const double *x, const double *w, double *dx, double *dw,
                                     double *db, int64_t rows, int64_t cols, double eps);
void tensor__layer_norm_row_f64(const double *x, const double *w, const double *b, double *y, int64_t cols, double eps,
                                double *mean_out, double *rstd_out);
int tensor__layer_norm_check(const TensorMeta *x, const int64_t *ns, int n, const TensorMeta *w, const TensorMeta *b,
                             int64_t *rows, int64_t *cols) EM_MUST_CHECK;
Tensor *tensor__layer_norm(const Tensor *x, const int64_t *ns, int n, const Tensor *w, const Tensor *b, double eps,
                           Tensor **mean_out, Tensor **rstd_out);
int tensor__embedding_check(const TensorMeta *w, const TensorMeta *idx) EM_MUST_CHECK;
int tensor__dropout_check(double p) EM_MUST_CHECK;
Tensor *tensor__dropout(const Tensor *x, double p, bool train, Tensor **mask_out);
int tensor__nll_check(const TensorMeta *x, const TensorMeta *t, const TensorMeta *w, TensorReduction red, TensorMeta *out) EM_MUST_CHECK;
Tensor *tensor__nll_loss(const Tensor *x, const Tensor *target, const Tensor *weight, TensorReduction red,
                         int64_t ignore_index, double *total_weight);

/* mask (bool) -> nonzero coordinates: mask->ndim int64 tensors of length nnz */
int tensor__nonzero(const Tensor *mask, Tensor **coords) EM_MUST_CHECK;

#endif
