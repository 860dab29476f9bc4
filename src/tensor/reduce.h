/* reduce.h — internal entry points of the reductions (reduce.c). */
#ifndef EMBER_SRC_TENSOR_REDUCE_H
#define EMBER_SRC_TENSOR_REDUCE_H

#include "src/tensor/tensor.h"

/* Which dims of an input are reduced; the output shape with or without keepdim. */
typedef struct ReducePlan {
    int in_ndim, out_ndim, kd, rd;
    bool mask[TENSOR_MAX_DIMS];
    int64_t out_shape[TENSOR_MAX_DIMS];
    int64_t kshape[TENSOR_MAX_DIMS], kstride[TENSOR_MAX_DIMS];
    int64_t rshape[TENSOR_MAX_DIMS], rstride[TENSOR_MAX_DIMS];
    int64_t rnumel, onumel;
} ReducePlan;

/* dims (n of them, negative allowed) or all (n == 0 or all): PyTorch's errors for bad dims */
int tensor__reduce_plan(const TensorMeta *in, const int64_t *dims, int n, bool all, bool keepdim, ReducePlan *p) EM_MUST_CHECK;
/* sum (mean: divided by the count) of a float32 / float64 t into out (t's dtype, the plan's output
 * elements) in the order PyTorch's CPU kernel adds, for the layouts whose order it reproduces
 * (sum_order.c); false, with nothing written, for the others */
bool tensor__sum_ordered(const Tensor *t, const ReducePlan *p, void *out, bool mean);
/* 0 + the sum of one contiguous float32 row in that order (a fused row group's sum: eager's bits) */
float tensor__sum_row_ordered_f32(const float *x, int64_t n);
/* The column sums of a rows x cols row-major block in that order, fed in flat positions (any
 * split, in order): begin (false when out of memory), add, end (writes out, frees). */
typedef struct TensorSumColumns {
    int64_t rows, cols, cascades, n4, power, power4;
    void *st;
} TensorSumColumns;
bool tensor__sum_columns_begin_f32(TensorSumColumns *s, int64_t rows, int64_t cols) EM_MUST_CHECK;
void tensor__sum_columns_add_f32(TensorSumColumns *s, int64_t pos, const float *x, int64_t n);
void tensor__sum_columns_end_f32(TensorSumColumns *s, float *out);
bool tensor__sum_columns_begin_f64(TensorSumColumns *s, int64_t rows, int64_t cols) EM_MUST_CHECK;
void tensor__sum_columns_add_f64(TensorSumColumns *s, int64_t pos, const double *x, int64_t n);
void tensor__sum_columns_end_f64(TensorSumColumns *s, double *out);
double tensor__sum_f32(const float *x, int64_t stride, int64_t n);
double tensor__sum_f64(const double *x, int64_t stride, int64_t n);
/* sum(t * t, dims) of a float32 / float64 t without the product's temporary (each product
 * rounded to t's dtype as t * t stores it; a contiguous float32 run sums in sixteen lanes where
 * tensor_sum_dims uses eight, so the last bits may differ from tensor_sum_dims(t * t)) */
Tensor *tensor__sum_squares(const Tensor *t, const int64_t *dims, int n, bool keepdim);
/* the 2-norm over dims (n == 0: all) in ATen's order where ATen takes its vectorised path (a
 * contiguous float32 / float64 tensor reduced over a trailing block of dims); NULL, with no error
 * set, for other layouts */
Tensor *tensor__norm2_rows(const Tensor *t, const int64_t *dims, int n, bool keepdim);
/* the plan's kept / reduced strides re-read from t (a converted copy of the planned input) */
void tensor__reduce_plan_strides(const Tensor *t, ReducePlan *p);
/* A reduction's result-dtype class (its table entry names it): SUM and PROD (integers and bools
 * give int64), MEAN (floating only), VAR (floating, no half), LSE (integers give the default
 * float), ARGMAX / ARGMIN (int64; bool refused), BOOL (all / any: bool, uint8 kept), SAME. */
typedef enum TensorReduceDtype {
    TENSOR_RDT_SAME,
    TENSOR_RDT_SUM,
    TENSOR_RDT_PROD,
    TENSOR_RDT_MEAN,
    TENSOR_RDT_VAR,
    TENSOR_RDT_LSE,
    TENSOR_RDT_ARGMAX,
    TENSOR_RDT_ARGMIN,
    TENSOR_RDT_BOOL,
} TensorReduceDtype;
/* the result dtype of a class-cls reduction of an `in` input; -1 with PyTorch's error when the
 * dtype is refused */
int tensor__reduce_dtype(TensorReduceDtype cls, TensorDtype in, TensorDtype *out) EM_MUST_CHECK;
Tensor *tensor__prod(const Tensor *t, const int64_t *dim, bool keepdim);
/* amax / amin: the extremum's values over `dims` (nd == 0: all); ties have one value */
Tensor *tensor__amax(const Tensor *t, const int64_t *dims, int nd, bool keepdim, bool is_max);
int tensor__extremum(const Tensor *t, const int64_t *dim, bool keepdim, bool is_max, Tensor **values, Tensor **indices) EM_MUST_CHECK;
Tensor *tensor__var_std(const Tensor *t, const int64_t *dims, int n, int correction, bool keepdim, bool is_std);
Tensor *tensor__all_any(const Tensor *t, const int64_t *dim, bool keepdim, bool any);

#endif
