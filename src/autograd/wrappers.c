/* wrappers.c — the typed ag_* convenience functions: each builds TensorOpArgs and calls
 * ag_op_run, except the hot elementwise ops (binary, scalar forms, the common unary ones), which
 * skip straight to the kernel when nothing needs recording. */
#include "src/autograd/autograd.h"
#include "src/tensor/pointwise.h"

/* the fast path runs the kernel directly: only when nothing records, observes or fakes it */
static bool recording2(const Tensor *a, const Tensor *b) {
    return tensor__op_hooked || (ag_is_grad_enabled() && (ag__requires_grad(a) || ag__requires_grad(b)));
}

static bool recording1(const Tensor *a) { return tensor__op_hooked || (ag_is_grad_enabled() && ag__requires_grad(a)); }

static Tensor *bin(TensorOp op, Tensor *a, Tensor *b) {
    Tensor *in[2] = {a, b};
    return ag_op1(op, in, 2, NULL);
}

/* the losses: (input, target) and a reduction */
static Tensor *loss(TensorOp op, Tensor *input, Tensor *target, TensorReduction reduction) {
    Tensor *in[2] = {input, target};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.reduction = reduction;
    return ag_op1(op, in, 2, &args);
}

Tensor *ag_add(Tensor *a, Tensor *b) { return recording2(a, b) ? bin(TENSOR_OP_ADD, a, b) : tensor_add(a, b); }
Tensor *ag_sub(Tensor *a, Tensor *b) { return recording2(a, b) ? bin(TENSOR_OP_SUB, a, b) : tensor_sub(a, b); }
Tensor *ag_mul(Tensor *a, Tensor *b) { return recording2(a, b) ? bin(TENSOR_OP_MUL, a, b) : tensor_mul(a, b); }
Tensor *ag_div(Tensor *a, Tensor *b) { return recording2(a, b) ? bin(TENSOR_OP_DIV, a, b) : tensor_div(a, b); }
Tensor *ag_pow(Tensor *a, Tensor *b) { return bin(TENSOR_OP_POW, a, b); }
Tensor *ag_maximum(Tensor *a, Tensor *b) { return bin(TENSOR_OP_MAXIMUM, a, b); }
Tensor *ag_minimum(Tensor *a, Tensor *b) { return bin(TENSOR_OP_MINIMUM, a, b); }
Tensor *ag_mm(Tensor *a, Tensor *b) { return bin(TENSOR_OP_MM, a, b); }
Tensor *ag_matmul(Tensor *a, Tensor *b) { return bin(TENSOR_OP_MATMUL, a, b); }
Tensor *ag_mse_loss(Tensor *a, Tensor *b, TensorReduction reduction) { return loss(TENSOR_OP_MSE_LOSS, a, b, reduction); }

Tensor *ag_add_alpha(Tensor *a, Tensor *b, TensorScalar alpha) {
    Tensor *in[2] = {a, b};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.alpha = alpha;
    return ag_op1(TENSOR_OP_ADD, in, 2, &args);
}

/* a scalar-form kernel op: the kernel directly when nothing records it */
static Tensor *scal(TensorOp op, Tensor *a, TensorScalar s) {
    if (!recording1(a)) return tensor__binary_scalar(op, a, s, tensor_scalar_i(1), NULL);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return ag_op1(op, &a, 1, &args);
}

Tensor *ag_add_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_ADD_SCALAR, a, s); }
Tensor *ag_sub_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_SUB_SCALAR, a, s); }
Tensor *ag_mul_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_MUL_SCALAR, a, s); }
Tensor *ag_div_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_DIV_SCALAR, a, s); }
Tensor *ag_pow_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_POW_SCALAR, a, s); }
Tensor *ag_rsub_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_RSUB_SCALAR, a, s); }
Tensor *ag_rpow_scalar(Tensor *a, TensorScalar s) { return scal(TENSOR_OP_RPOW_SCALAR, a, s); }

Tensor *ag_unary(TensorOp op, Tensor *a) { return ag_op1(op, &a, 1, NULL); }
/* an elementwise unary kernel op: the kernel directly when nothing records it */
static Tensor *un(TensorOp op, Tensor *a) { return recording1(a) ? ag_op1(op, &a, 1, NULL) : tensor_unary(op, a); }
Tensor *ag_neg(Tensor *a) { return un(TENSOR_OP_NEG, a); }
Tensor *ag_exp(Tensor *a) { return un(TENSOR_OP_EXP, a); }
Tensor *ag_log(Tensor *a) { return un(TENSOR_OP_LOG, a); }
Tensor *ag_tanh(Tensor *a) { return un(TENSOR_OP_TANH, a); }
Tensor *ag_sigmoid(Tensor *a) { return un(TENSOR_OP_SIGMOID, a); }
Tensor *ag_relu(Tensor *a) { return un(TENSOR_OP_RELU, a); }
Tensor *ag_clone(Tensor *a) { return ag_unary(TENSOR_OP_CLONE, a); }
Tensor *ag_gelu(Tensor *a, bool tanh_approximation) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.approximate = tensor_gelu_form(a, tanh_approximation);
    return ag_op1(TENSOR_OP_GELU, &a, 1, &args);
}
Tensor *ag_clamp(Tensor *a, const TensorScalar *min, const TensorScalar *max) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (min) {
        args.has_min = true;
        args.scalar = *min;
    }
    if (max) {
        args.has_max = true;
        args.scalar2 = *max;
    }
    return ag_op1(TENSOR_OP_CLAMP, &a, 1, &args);
}
Tensor *ag_where(Tensor *cond, Tensor *a, Tensor *b) {
    Tensor *in[3] = {cond, a, b};
    return ag_op1(TENSOR_OP_WHERE, in, 3, NULL);
}

static Tensor *dims_op(TensorOp op, Tensor *a, const int64_t *dims, int n, bool keepdim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = dims;
    args.n_ints = n;
    args.keepdim = keepdim;
    return ag_op1(op, &a, 1, &args);
}

Tensor *ag_sum(Tensor *a) { return ag_unary(TENSOR_OP_SUM, a); }
Tensor *ag_sum_dims(Tensor *a, const int64_t *dims, int n, bool keepdim) { return dims_op(TENSOR_OP_SUM_DIM, a, dims, n, keepdim); }
Tensor *ag_mean(Tensor *a) { return ag_unary(TENSOR_OP_MEAN, a); }
Tensor *ag_mean_dims(Tensor *a, const int64_t *dims, int n, bool keepdim) { return dims_op(TENSOR_OP_MEAN_DIM, a, dims, n, keepdim); }
Tensor *ag_logsumexp(Tensor *a, const int64_t *dims, int n, bool keepdim) { return dims_op(TENSOR_OP_LOGSUMEXP, a, dims, n, keepdim); }
Tensor *ag_var(Tensor *a, const int64_t *dims, int n, int correction, bool keepdim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = dims;
    args.n_ints = n;
    args.correction = correction;
    args.keepdim = keepdim;
    return ag_op1(TENSOR_OP_VAR, &a, 1, &args);
}
int ag_max_dim(Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.keepdim = keepdim;
    Tensor *out[2];
    if (ag_op_run(TENSOR_OP_MAX_DIM, &a, 1, &args, out, 2) < 0) return -1;
    *values = out[0];
    *indices = out[1];
    return 0;
}

Tensor *ag_view(Tensor *a, const int64_t *shape, int n) { return dims_op(TENSOR_OP_VIEW, a, shape, n, false); }
Tensor *ag_reshape(Tensor *a, const int64_t *shape, int n) { return dims_op(TENSOR_OP_RESHAPE, a, shape, n, false); }
Tensor *ag_permute(Tensor *a, const int64_t *dims, int n) { return dims_op(TENSOR_OP_PERMUTE, a, dims, n, false); }
Tensor *ag_expand(Tensor *a, const int64_t *shape, int n) { return dims_op(TENSOR_OP_EXPAND, a, shape, n, false); }
Tensor *ag_t(Tensor *a) { return ag_unary(TENSOR_OP_T, a); }
Tensor *ag_transpose(Tensor *a, int64_t d0, int64_t d1) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = d0;
    args.dim2 = d1;
    return ag_op1(TENSOR_OP_TRANSPOSE, &a, 1, &args);
}
Tensor *ag_slice(Tensor *a, int64_t dim, int64_t start, int64_t end, int64_t step) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.start = start;
    args.end = end;
    args.step = step;
    return ag_op1(TENSOR_OP_SLICE, &a, 1, &args);
}
Tensor *ag_select(Tensor *a, int64_t dim, int64_t index) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.start = index;
    return ag_op1(TENSOR_OP_SELECT, &a, 1, &args);
}
static Tensor *dim_op(TensorOp op, Tensor *a, int64_t dim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(op, &a, 1, &args);
}
Tensor *ag_unsqueeze(Tensor *a, int64_t dim) { return dim_op(TENSOR_OP_UNSQUEEZE, a, dim); }
Tensor *ag_squeeze_dim(Tensor *a, int64_t dim) { return dim_op(TENSOR_OP_SQUEEZE_DIM, a, dim); }
Tensor *ag_softmax(Tensor *a, int64_t dim) { return dim_op(TENSOR_OP_SOFTMAX, a, dim); }
Tensor *ag_log_softmax(Tensor *a, int64_t dim) { return dim_op(TENSOR_OP_LOG_SOFTMAX, a, dim); }
Tensor *ag_flatten(Tensor *a, int64_t start_dim, int64_t end_dim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = start_dim;
    args.dim2 = end_dim;
    return ag_op1(TENSOR_OP_FLATTEN, &a, 1, &args);
}
Tensor *ag_cat(Tensor *const *ts, int n, int64_t dim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_CAT, ts, n, &args);
}
Tensor *ag_stack(Tensor *const *ts, int n, int64_t dim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_STACK, ts, n, &args);
}
int ag_split(Tensor *a, int64_t split_size, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.start = split_size;
    args.dim = dim;
    return ag_op_run(TENSOR_OP_SPLIT, &a, 1, &args, out, max_out);
}
Tensor *ag_addmm(Tensor *bias, Tensor *a, Tensor *b) {
    Tensor *in[3] = {bias, a, b};
    return ag_op1(TENSOR_OP_ADDMM, in, 3, NULL);
}
Tensor *ag_linear(Tensor *x, Tensor *w, Tensor *b) {
    Tensor *in[3] = {x, w, b};
    return ag_op1(TENSOR_OP_LINEAR, in, b ? 3 : 2, NULL);
}
Tensor *ag_layer_norm(Tensor *x, const int64_t *ns, int n, Tensor *w, Tensor *b, double eps) {
    Tensor *in[3] = {x, w, b};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = ns;
    args.n_ints = n;
    args.eps = eps;
    return ag_op1(TENSOR_OP_LAYER_NORM, in, 3, &args);
}
Tensor *ag_embedding(Tensor *weight, Tensor *indices) {
    Tensor *in[2] = {weight, indices};
    return ag_op1(TENSOR_OP_EMBEDDING, in, 2, NULL);
}
Tensor *ag_dropout(Tensor *a, double p, bool train) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.p = p;
    args.train = train;
    return ag_op1(TENSOR_OP_DROPOUT, &a, 1, &args);
}
Tensor *ag_cross_entropy(Tensor *logits, Tensor *target, TensorReduction reduction) { return loss(TENSOR_OP_CROSS_ENTROPY, logits, target, reduction); }
Tensor *ag_nll_loss(Tensor *logp, Tensor *target, TensorReduction reduction) { return loss(TENSOR_OP_NLL_LOSS, logp, target, reduction); }
Tensor *ag_gather(Tensor *a, int64_t dim, Tensor *index) {
    Tensor *in[2] = {a, index};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_GATHER, in, 2, &args);
}
Tensor *ag_index_select(Tensor *a, int64_t dim, Tensor *index) {
    Tensor *in[2] = {a, index};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_INDEX_SELECT, in, 2, &args);
}
Tensor *ag_index(Tensor *a, int64_t dim, Tensor *const *indices, int n) {
    Tensor *in[TENSOR_MAX_DIMS + 1];
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_INDEX, "too many indices");
        return NULL;
    }
    in[0] = a;
    for (int i = 0; i < n; i++) in[i + 1] = indices[i];
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_INDEX, in, n + 1, &args);
}
Tensor *ag_masked_fill(Tensor *a, Tensor *mask, TensorScalar value) {
    Tensor *in[2] = {a, mask};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = value;
    return ag_op1(TENSOR_OP_MASKED_FILL, in, 2, &args);
}

Tensor *ag_threshold_backward(Tensor *grad, Tensor *self, TensorScalar threshold) {
    Tensor *in[2] = {grad, self};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = threshold;
    return ag_op1(TENSOR_OP_THRESHOLD_BACKWARD, in, 2, &args);
}

Tensor *ag_tanh_backward(Tensor *grad, Tensor *output) {
    Tensor *in[2] = {grad, output};
    return ag_op1(TENSOR_OP_TANH_BACKWARD, in, 2, NULL);
}

/* ---- in place ---- */

static int inplace(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a) {
    Tensor *out = NULL;
    if (ag_op_run(op, in, n, a, &out, 1) < 0) return -1;
    tensor_decref(out);
    return 0;
}

int ag_add_(Tensor *a, Tensor *b) {
    Tensor *in[2] = {a, b};
    return inplace(TENSOR_OP_ADD_, in, 2, NULL);
}
int ag_sub_(Tensor *a, Tensor *b) {
    Tensor *in[2] = {a, b};
    return inplace(TENSOR_OP_SUB_, in, 2, NULL);
}
int ag_mul_(Tensor *a, Tensor *b) {
    Tensor *in[2] = {a, b};
    return inplace(TENSOR_OP_MUL_, in, 2, NULL);
}
int ag_copy_(Tensor *dst, Tensor *src) {
    Tensor *in[2] = {dst, src};
    return inplace(TENSOR_OP_COPY_, in, 2, NULL);
}
int ag_add_scalar_(Tensor *a, TensorScalar s) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return inplace(TENSOR_OP_ADD_SCALAR_, &a, 1, &args);
}
int ag_mul_scalar_(Tensor *a, TensorScalar s) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return inplace(TENSOR_OP_MUL_SCALAR_, &a, 1, &args);
}
int ag_div_scalar_(Tensor *a, TensorScalar s) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return inplace(TENSOR_OP_DIV_SCALAR_, &a, 1, &args);
}
int ag_fill_(Tensor *a, TensorScalar s) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return inplace(TENSOR_OP_FILL_, &a, 1, &args);
}
int ag_zero_(Tensor *a) { return inplace(TENSOR_OP_ZERO_, &a, 1, NULL); }
int ag_relu_(Tensor *a) { return inplace(TENSOR_OP_RELU_, &a, 1, NULL); }
int ag_masked_fill_(Tensor *a, Tensor *mask, TensorScalar value) {
    Tensor *in[2] = {a, mask};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = value;
    return inplace(TENSOR_OP_MASKED_FILL_, in, 2, &args);
}
int ag_index_put_(Tensor *a, int64_t dim, Tensor *const *indices, int n, Tensor *values, bool accumulate) {
    Tensor *in[TENSOR_MAX_DIMS + 2];
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_INDEX, "too many indices");
        return -1;
    }
    in[0] = a;
    in[1] = values;
    for (int i = 0; i < n; i++) in[i + 2] = indices[i];
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.accumulate = accumulate;
    return inplace(TENSOR_OP_INDEX_PUT_, in, n + 2, &args);
}

/* ---- the rest of the op table, for completeness (every op also runs through ag_op_run) ---- */

Tensor *ag_abs(Tensor *a) { return ag_unary(TENSOR_OP_ABS, a); }
Tensor *ag_sqrt(Tensor *a) { return ag_unary(TENSOR_OP_SQRT, a); }
Tensor *ag_rsqrt(Tensor *a) { return ag_unary(TENSOR_OP_RSQRT, a); }
Tensor *ag_silu(Tensor *a) { return ag_unary(TENSOR_OP_SILU, a); }
Tensor *ag_erf(Tensor *a) { return ag_unary(TENSOR_OP_ERF, a); }
Tensor *ag_sin(Tensor *a) { return ag_unary(TENSOR_OP_SIN, a); }
Tensor *ag_cos(Tensor *a) { return ag_unary(TENSOR_OP_COS, a); }
Tensor *ag_sign(Tensor *a) { return ag_unary(TENSOR_OP_SIGN, a); }
Tensor *ag_reciprocal(Tensor *a) { return ag_unary(TENSOR_OP_RECIPROCAL, a); }
Tensor *ag_floor(Tensor *a) { return ag_unary(TENSOR_OP_FLOOR, a); }
Tensor *ag_ceil(Tensor *a) { return ag_unary(TENSOR_OP_CEIL, a); }
Tensor *ag_round(Tensor *a) { return ag_unary(TENSOR_OP_ROUND, a); }
Tensor *ag_leaky_relu(Tensor *a, double negative_slope) { return scal(TENSOR_OP_LEAKY_RELU, a, tensor_scalar_f(negative_slope)); }
Tensor *ag_to_dtype(Tensor *a, TensorDtype dt) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dtype = dt;
    return ag_op1(TENSOR_OP_TO_DTYPE, &a, 1, &args);
}
Tensor *ag_remainder(Tensor *a, Tensor *b) { return bin(TENSOR_OP_REMAINDER, a, b); }
Tensor *ag_prod(Tensor *a) { return ag_unary(TENSOR_OP_PROD, a); }
Tensor *ag_prod_dim(Tensor *a, int64_t dim, bool keepdim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.keepdim = keepdim;
    return ag_op1(TENSOR_OP_PROD_DIM, &a, 1, &args);
}
Tensor *ag_max(Tensor *a) { return ag_unary(TENSOR_OP_MAX, a); }
Tensor *ag_min(Tensor *a) { return ag_unary(TENSOR_OP_MIN, a); }
int ag_min_dim(Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.keepdim = keepdim;
    Tensor *out[2];
    if (ag_op_run(TENSOR_OP_MIN_DIM, &a, 1, &args, out, 2) < 0) return -1;
    *values = out[0];
    *indices = out[1];
    return 0;
}
Tensor *ag_std(Tensor *a, const int64_t *dims, int n, int correction, bool keepdim) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = dims;
    args.n_ints = n;
    args.correction = correction;
    args.keepdim = keepdim;
    return ag_op1(TENSOR_OP_STD, &a, 1, &args);
}
Tensor *ag_as_strided(Tensor *a, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = shape;
    args.n_ints = ndim;
    args.ints2 = strides;
    args.n_ints2 = ndim;
    args.start = offset;
    return ag_op1(TENSOR_OP_AS_STRIDED, &a, 1, &args);
}
Tensor *ag_narrow(Tensor *a, int64_t dim, int64_t start, int64_t length) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.start = start;
    args.step = length;
    return ag_op1(TENSOR_OP_NARROW, &a, 1, &args);
}
Tensor *ag_squeeze(Tensor *a) { return ag_unary(TENSOR_OP_SQUEEZE, a); }
Tensor *ag_contiguous(Tensor *a) { return ag_unary(TENSOR_OP_CONTIGUOUS, a); }
int ag_chunk(Tensor *a, int64_t chunks, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.start = chunks;
    args.dim = dim;
    return ag_op_run(TENSOR_OP_CHUNK, &a, 1, &args, out, max_out);
}
int ag_split_with_sizes(Tensor *a, const int64_t *sizes, int n, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = sizes;
    args.n_ints = n;
    args.dim = dim;
    return ag_op_run(TENSOR_OP_SPLIT_WITH_SIZES, &a, 1, &args, out, max_out);
}
int ag_unbind(Tensor *a, int64_t dim, Tensor **out, int max_out) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op_run(TENSOR_OP_UNBIND, &a, 1, &args, out, max_out);
}
Tensor *ag_bmm(Tensor *a, Tensor *b) { return bin(TENSOR_OP_BMM, a, b); }
Tensor *ag_mv(Tensor *a, Tensor *v) { return bin(TENSOR_OP_MV, a, v); }
Tensor *ag_dot(Tensor *a, Tensor *b) { return bin(TENSOR_OP_DOT, a, b); }
Tensor *ag_scatter_add(Tensor *a, int64_t dim, Tensor *index, Tensor *src) {
    Tensor *in[3] = {a, index, src};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    return ag_op1(TENSOR_OP_SCATTER_ADD, in, 3, &args);
}
Tensor *ag_index_add(Tensor *a, int64_t dim, Tensor *index, Tensor *src, TensorScalar alpha) {
    Tensor *in[3] = {a, index, src};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.alpha = alpha;
    return ag_op1(TENSOR_OP_INDEX_ADD, in, 3, &args);
}
Tensor *ag_index_put(Tensor *a, int64_t dim, Tensor *const *indices, int n, Tensor *values, bool accumulate) {
    Tensor *in[TENSOR_MAX_DIMS + 2];
    if (n > TENSOR_MAX_DIMS) {
        tensor_error_set(TENSOR_ERR_INDEX, "too many indices");
        return NULL;
    }
    in[0] = a;
    in[1] = values;
    for (int i = 0; i < n; i++) in[i + 2] = indices[i];
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.dim = dim;
    args.accumulate = accumulate;
    return ag_op1(TENSOR_OP_INDEX_PUT, in, n + 2, &args);
}
Tensor *ag_masked_select(Tensor *a, Tensor *mask) { return bin(TENSOR_OP_MASKED_SELECT, a, mask); }
Tensor *ag_masked_scatter(Tensor *a, Tensor *mask, Tensor *source) {
    Tensor *in[3] = {a, mask, source};
    return ag_op1(TENSOR_OP_MASKED_SCATTER, in, 3, NULL);
}
int ag_div_(Tensor *a, Tensor *b) {
    Tensor *in[2] = {a, b};
    return inplace(TENSOR_OP_DIV_, in, 2, NULL);
}
int ag_sub_scalar_(Tensor *a, TensorScalar s) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = s;
    return inplace(TENSOR_OP_SUB_SCALAR_, &a, 1, &args);
}
int ag_clamp_(Tensor *a, const TensorScalar *min, const TensorScalar *max) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    if (min) {
        args.has_min = true;
        args.scalar = *min;
    }
    if (max) {
        args.has_max = true;
        args.scalar2 = *max;
    }
    return inplace(TENSOR_OP_CLAMP_, &a, 1, &args);
}
int ag_normal_(Tensor *a, double mean, double std) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = tensor_scalar_f(mean);
    args.scalar2 = tensor_scalar_f(std);
    return inplace(TENSOR_OP_NORMAL_, &a, 1, &args);
}
int ag_uniform_(Tensor *a, double from, double to) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = tensor_scalar_f(from);
    args.scalar2 = tensor_scalar_f(to);
    return inplace(TENSOR_OP_UNIFORM_, &a, 1, &args);
}
