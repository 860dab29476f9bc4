/* test_dispatch.c — the op table as a whole: every op in ops.def runs through tensor_op_run
 * on a sample input, and tensor_op_infer predicts exactly the dtype, shape (and, for views,
 * strides and storage offset) of what the kernel produced — without running it. Also checks
 * the table's metadata (names, arity, flags) and tensor_op_num_outputs. */
#include "tests/support/tensor_test.h"

TestSuite(dispatch, .init = tt_setup);

typedef struct Case {
    Tensor *in[6];
    int n_in;
    TensorOpArgs a;
    int64_t ints[12], ints2[4];
    bool data_dependent;   /* infer must refuse */
} Case;

/* builds a sample invocation of op; inputs are new references */
static void make_case(TensorOp op, Case *c) {
    memset(c, 0, sizeof *c);
    c->a = TENSOR_OP_ARGS_INIT;
    unsigned f = tensor_op_flags(op);
    int64_t s23[2] = {2, 3};
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 2, s23);
    if (f & TENSOR_OPF_CREATION) {
        c->ints[0] = 2;
        c->ints[1] = 3;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        if (op >= TENSOR_OP_ZEROS_LIKE) {
            c->in[0] = x;
            c->n_in = 1;
        } else {
            tensor_decref(x);
        }
        switch (op) {
        case TENSOR_OP_FULL: case TENSOR_OP_FULL_LIKE: c->a.scalar = tensor_scalar_f(1.5); break;
        case TENSOR_OP_ARANGE:
            c->a.scalar = tensor_scalar_i(1);
            c->a.scalar2 = tensor_scalar_f(4.5);
            c->a.alpha = tensor_scalar_f(0.5);
            break;
        case TENSOR_OP_LINSPACE:
            c->a.scalar = tensor_scalar_f(0);
            c->a.scalar2 = tensor_scalar_f(1);
            c->a.step = 5;
            break;
        case TENSOR_OP_EYE: c->a.start = 3; c->a.end = 4; break;
        case TENSOR_OP_RANDINT: case TENSOR_OP_RANDINT_LIKE:
            c->a.scalar = tensor_scalar_i(0);
            c->a.scalar2 = tensor_scalar_i(10);
            break;
        default: break;
        }
        return;
    }
    c->in[0] = x;
    c->n_in = 1;
    if (op == TENSOR_OP_BERNOULLI) {
        Tensor *p = tensor_rand(TENSOR_FLOAT32, 2, s23);
        tensor_decref(x);
        c->in[0] = p;
        return;
    }
    if ((f & TENSOR_OPF_POINTWISE) && tensor_op_info(op)->in_max == 1) {
        switch (op) {
        case TENSOR_OP_CLAMP: case TENSOR_OP_CLAMP_:
            c->a.has_min = true;
            c->a.scalar = tensor_scalar_f(-0.5);
            break;
        case TENSOR_OP_TO_DTYPE: c->a.dtype = TENSOR_INT64; break;
        case TENSOR_OP_LEAKY_RELU: c->a.scalar = tensor_scalar_f(0.1); break;
        case TENSOR_OP_POW_SCALAR: c->a.scalar = tensor_scalar_i(2); break;
        case TENSOR_OP_NORMAL_: case TENSOR_OP_UNIFORM_: c->a.scalar2 = tensor_scalar_f(1); break;
        default: c->a.scalar = tensor_scalar_f(2.5); break;
        }
        if (op == TENSOR_OP_LOGICAL_NOT) c->in[0] = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, x, tensor_scalar_i(0)), tensor_decref(x);
        if (op == TENSOR_OP_BITWISE_NOT) c->in[0] = tensor_to_dtype(x, TENSOR_INT64), tensor_decref(x);   /* integers only */
        return;
    }
    int64_t s3[1] = {3};
    switch (op) {
    case TENSOR_OP_WHERE:
        c->in[0] = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, x, tensor_scalar_i(0));
        c->in[1] = x;
        c->in[2] = tensor_randn(TENSOR_FLOAT32, 1, s3);
        c->n_in = 3;
        return;
    case TENSOR_OP_BITWISE_AND: case TENSOR_OP_BITWISE_OR: case TENSOR_OP_BITWISE_XOR:
        /* integers only */
        c->in[0] = tensor_to_dtype(x, TENSOR_INT64);
        tensor_decref(x);
        c->in[1] = tensor_to_dtype(c->in[0], TENSOR_INT32);
        c->n_in = 2;
        return;
    case TENSOR_OP_LOGICAL_AND: case TENSOR_OP_LOGICAL_OR: case TENSOR_OP_LOGICAL_XOR:
    default:
        if ((f & TENSOR_OPF_POINTWISE) && tensor_op_info(op)->in_min == 2 && op != TENSOR_OP_MASKED_FILL && op != TENSOR_OP_MASKED_FILL_) {
            c->in[1] = tensor_randn(TENSOR_FLOAT32, 1, s3); /* broadcasts */
            c->n_in = 2;
            return;
        }
        break;
    }
    switch (op) {
    case TENSOR_OP_SUM_DIM: case TENSOR_OP_MEAN_DIM: case TENSOR_OP_VAR: case TENSOR_OP_STD: case TENSOR_OP_LOGSUMEXP:
    case TENSOR_OP_AMAX: case TENSOR_OP_AMIN: case TENSOR_OP_VECTOR_NORM: case TENSOR_OP_NORM:
        c->ints[0] = -1;
        c->a.ints = c->ints;
        c->a.n_ints = 1;
        c->a.keepdim = true;
        return;
    case TENSOR_OP_PROD_DIM: case TENSOR_OP_MAX_DIM: case TENSOR_OP_MIN_DIM:
        c->a.dim = 0;
        return;
    case TENSOR_OP_ARGMAX: case TENSOR_OP_ARGMIN: case TENSOR_OP_ALL: case TENSOR_OP_ANY:
        c->a.has_dim = true;
        c->a.dim = 1;
        return;
    case TENSOR_OP_VIEW: case TENSOR_OP_RESHAPE: case TENSOR_OP_UNSAFE_VIEW:
        c->ints[0] = 3;
        c->ints[1] = -1;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        if (op == TENSOR_OP_RESHAPE) {
            c->in[0] = tensor_t(x); /* needs a copy */
            tensor_decref(x);
        }
        return;
    case TENSOR_OP_AS_STRIDED:
        c->ints[0] = 2;
        c->ints[1] = 2;
        c->ints2[0] = 1;
        c->ints2[1] = 2;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        c->a.ints2 = c->ints2;
        c->a.n_ints2 = 2;
        c->a.start = 1;
        return;
    case TENSOR_OP_TRANSPOSE: c->a.dim = 0; c->a.dim2 = 1; return;
    case TENSOR_OP_PERMUTE:
        c->ints[0] = 1;
        c->ints[1] = 0;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        return;
    case TENSOR_OP_EXPAND:
        c->ints[0] = 4;
        c->ints[1] = 2;
        c->ints[2] = 3;
        c->a.ints = c->ints;
        c->a.n_ints = 3;
        return;
    case TENSOR_OP_SLICE: c->a.dim = 1; c->a.start = 1; c->a.end = 3; c->a.step = 1; return;
    case TENSOR_OP_SELECT: c->a.dim = 1; c->a.start = -1; return;
    case TENSOR_OP_DIAGONAL: c->a.start = 1; c->a.dim = -1; c->a.dim2 = 0; return;
    case TENSOR_OP_NARROW: c->a.dim = 1; c->a.start = 1; c->a.step = 2; return;
    case TENSOR_OP_UNSQUEEZE: c->a.dim = -1; return;
    case TENSOR_OP_SQUEEZE: case TENSOR_OP_SQUEEZE_DIM: {
        int64_t s[3] = {2, 1, 3};
        tensor_decref(x);
        c->in[0] = tensor_randn(TENSOR_FLOAT32, 3, s);
        c->a.dim = 1;
        return;
    }
    case TENSOR_OP_FLATTEN: c->a.dim = 0; c->a.dim2 = -1; return;
    case TENSOR_OP_CONTIGUOUS: c->in[0] = tensor_t(x); tensor_decref(x); return;
    case TENSOR_OP_SPLIT: c->a.start = 2; c->a.dim = 1; return;
    case TENSOR_OP_SPLIT_WITH_SIZES:
        c->ints[0] = 1;
        c->ints[1] = 2;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        c->a.dim = 1;
        return;
    case TENSOR_OP_CHUNK: c->a.start = 2; c->a.dim = 1; return;
    case TENSOR_OP_UNBIND: c->a.dim = 0; return;
    case TENSOR_OP_CAT: case TENSOR_OP_STACK: c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23); c->n_in = 2; return;
    case TENSOR_OP_MM: case TENSOR_OP_MATMUL: {
        int64_t s[2] = {3, 4};
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s);
        c->n_in = 2;
        return;
    }
    case TENSOR_OP_BMM: {
        int64_t a3[3] = {2, 2, 3}, b3[3] = {2, 3, 4};
        tensor_decref(x);
        c->in[0] = tensor_randn(TENSOR_FLOAT32, 3, a3);
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 3, b3);
        c->n_in = 2;
        return;
    }
    case TENSOR_OP_MV: c->in[1] = tensor_randn(TENSOR_FLOAT32, 1, s3); c->n_in = 2; return;
    case TENSOR_OP_DOT:
        tensor_decref(x);
        c->in[0] = tensor_randn(TENSOR_FLOAT32, 1, s3);
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 1, s3);
        c->n_in = 2;
        return;
    case TENSOR_OP_ADDMM: {
        int64_t s[2] = {3, 4}, b[1] = {4};
        c->in[1] = x;
        c->in[0] = tensor_randn(TENSOR_FLOAT32, 1, b);
        c->in[2] = tensor_randn(TENSOR_FLOAT32, 2, s);
        c->n_in = 3;
        return;
    }
    case TENSOR_OP_LINEAR: {
        int64_t w[2] = {4, 3}, b[1] = {4};
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, w);
        c->in[2] = tensor_randn(TENSOR_FLOAT32, 1, b);
        c->n_in = 3;
        return;
    }
    case TENSOR_OP_GATHER: case TENSOR_OP_SCATTER_ADD: case TENSOR_OP_SCATTER_ADD_:
        c->in[1] = tensor_from_i64(2, (int64_t[]){2, 2}, (int64_t[]){0, 2, 1, 1});
        c->a.dim = 1;
        c->n_in = 2;
        if (op != TENSOR_OP_GATHER) {
            c->in[2] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){2, 2});
            c->n_in = 3;
        }
        return;
    case TENSOR_OP_INDEX_SELECT: case TENSOR_OP_INDEX_ADD: case TENSOR_OP_INDEX_ADD_: case TENSOR_OP_INDEX:
        c->in[1] = tensor_from_i64(1, (int64_t[]){3}, (int64_t[]){2, 0, 2});
        c->a.dim = 1;
        c->n_in = 2;
        if (op == TENSOR_OP_INDEX_ADD || op == TENSOR_OP_INDEX_ADD_) {
            c->in[2] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
            c->n_in = 3;
        }
        return;
    case TENSOR_OP_INDEX_PUT: case TENSOR_OP_INDEX_PUT_:
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){1});
        c->in[2] = tensor_from_i64(1, (int64_t[]){2}, (int64_t[]){0, 2});
        c->a.dim = 1;
        c->n_in = 3;
        return;
    case TENSOR_OP_MASKED_FILL: case TENSOR_OP_MASKED_FILL_: case TENSOR_OP_MASKED_SELECT: case TENSOR_OP_MASKED_SCATTER:
    case TENSOR_OP_MASKED_SCATTER_:
        c->in[1] = tensor_from_data(TENSOR_BOOL, 1, (int64_t[]){3}, (bool[]){true, false, true});
        c->n_in = 2;
        c->a.scalar = tensor_scalar_f(-1);
        c->data_dependent = op == TENSOR_OP_MASKED_SELECT;
        if (op == TENSOR_OP_MASKED_SCATTER || op == TENSOR_OP_MASKED_SCATTER_) {
            c->in[2] = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){6});
            c->n_in = 3;
        }
        return;
    /* branch surface: scatter family, kthvalue, unique, counting ops */
    case TENSOR_OP_SCATTER: case TENSOR_OP_SCATTER_REDUCE: case TENSOR_OP_SCATTER_: case TENSOR_OP_SCATTER_REDUCE_:
        c->in[1] = tensor_from_i64(2, (int64_t[]){2, 2}, (int64_t[]){0, 2, 1, 1});
        c->a.dim = 1;
        c->a.scalar = tensor_scalar_f(2.5);
        c->n_in = 2;
        if (op == TENSOR_OP_SCATTER_REDUCE || op == TENSOR_OP_SCATTER_REDUCE_) {
            c->in[2] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){2, 2});
            c->n_in = 3;
            c->a.start = TENSOR_SCATTER_AMAX;
        }
        return;
    case TENSOR_OP_KTHVALUE: c->a.dim = -1; c->a.start = 2; return;
    case TENSOR_OP_UNIQUE: case TENSOR_OP_NONZERO: c->data_dependent = true; return;
    case TENSOR_OP_BINCOUNT:
        tensor_decref(x);
        c->in[0] = tensor_from_i64(1, (int64_t[]){4}, (int64_t[]){1, 3, 3, 0});
        c->data_dependent = true;
        return;
    case TENSOR_OP_HISTC: c->a.start = 4; c->a.scalar = tensor_scalar_f(-1); c->a.scalar2 = tensor_scalar_f(1); return;
    case TENSOR_OP_SOFTMAX: case TENSOR_OP_LOG_SOFTMAX: c->a.dim = -1; return;
    case TENSOR_OP_SOFTMAX_BACKWARD: case TENSOR_OP_LOG_SOFTMAX_BACKWARD:
        c->a.dim = -1;
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->n_in = 2;
        return;
    case TENSOR_OP_TRIL: case TENSOR_OP_TRIU: c->a.start = 1; return;
    case TENSOR_OP_ROLL: case TENSOR_OP_FLIP:
        c->ints[0] = 1;
        c->ints[1] = -1;
        c->a.ints = c->ints;
        c->a.n_ints = 1;
        if (op == TENSOR_OP_ROLL) {
            c->a.ints2 = c->ints + 1;
            c->a.n_ints2 = 1;
        }
        return;
    case TENSOR_OP_SORT: case TENSOR_OP_TOPK: case TENSOR_OP_CUMSUM:
        c->a.dim = -1;
        c->a.start = 2;
        c->a.step = -1;
        return;
    /* branch opsmath: scans and LAPACK ops (a symmetric positive-definite 2 x 2 for the square ones) */
    case TENSOR_OP_CUMPROD: case TENSOR_OP_CUMMAX: case TENSOR_OP_CUMMIN: case TENSOR_OP_LOGCUMSUMEXP:
        c->a.dim = -1;
        return;
    case TENSOR_OP_CUMPROD_BACKWARD:
        c->a.dim = 1;
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->n_in = 2;
        return;
    case TENSOR_OP_CHOLESKY: case TENSOR_OP_LINALG_INV: case TENSOR_OP_LINALG_DET: case TENSOR_OP_LINALG_SLOGDET:
    case TENSOR_OP_TRIANGULAR_SOLVE: case TENSOR_OP_LINALG_SOLVE: case TENSOR_OP_LINALG_EIGH:
        tensor_decref(x);
        c->in[0] = TT(((int64_t[]){2, 2}), ((float[]){2.f, 0.5f, 0.5f, 1.f}));
        if (op == TENSOR_OP_TRIANGULAR_SOLVE || op == TENSOR_OP_LINALG_SOLVE) {
            c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
            c->n_in = 2;
        }
        return;
    case TENSOR_OP_LINALG_QR: case TENSOR_OP_LINALG_SVDVALS: case TENSOR_OP_LINALG_SVD:
        return;
    case TENSOR_OP_LINALG_PINV:   /* (A, P): x is 2 x 3, P 3 x 2 */
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){3, 2});
        c->n_in = 2;
        return;
    case TENSOR_OP_LAYER_NORM:
        c->ints[0] = 3;
        c->a.ints = c->ints;
        c->a.n_ints = 1;
        c->in[1] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->in[2] = tensor_zeros(TENSOR_FLOAT32, 1, s3);
        c->n_in = 3;
        return;
    case TENSOR_OP_LAYER_NORM_BACKWARD:
        c->ints[0] = 3;
        c->a.ints = c->ints;
        c->a.n_ints = 1;
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->in[2] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->n_in = 3;
        return;
    case TENSOR_OP_BATCH_NORM:
        c->in[1] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->in[2] = tensor_zeros(TENSOR_FLOAT32, 1, s3);
        c->in[3] = tensor_zeros(TENSOR_FLOAT32, 1, s3);
        c->in[4] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->n_in = 5;
        return;
    case TENSOR_OP_BATCH_NORM_BACKWARD:
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->in[2] = tensor_zeros(TENSOR_FLOAT32, 1, s3);
        c->in[3] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->in[4] = tensor_ones(TENSOR_FLOAT32, 1, s3);
        c->n_in = 5;
        return;
    case TENSOR_OP_LSTM_CELL:
        tensor_decref(x);
        c->in[0] = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){2, 12});
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->n_in = 2;
        return;
    case TENSOR_OP_LSTM_CELL_BACKWARD:
        c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->in[2] = tensor_rand(TENSOR_FLOAT32, 2, (int64_t[]){2, 12});
        c->in[3] = tensor_randn(TENSOR_FLOAT32, 2, s23);
        c->n_in = 4;
        return;
    case TENSOR_OP_EMBEDDING:
        c->in[1] = tensor_from_i64(2, (int64_t[]){2, 2}, (int64_t[]){0, 1, 1, 0});
        c->n_in = 2;
        return;
    case TENSOR_OP_NLL_LOSS: case TENSOR_OP_CROSS_ENTROPY:
        c->in[1] = tensor_from_i64(1, (int64_t[]){2}, (int64_t[]){0, 2});
        c->n_in = 2;
        return;
    case TENSOR_OP_NLL_LOSS_GRAD_WEIGHTS:
        tensor_decref(c->in[0]);
        c->in[0] = tensor_from_i64(1, (int64_t[]){2}, (int64_t[]){0, 2});
        c->ints[0] = 2;
        c->ints[1] = 3;
        c->a.ints = c->ints;
        c->a.n_ints = 2;
        return;
    case TENSOR_OP_IM2COL: case TENSOR_OP_COL2IM: case TENSOR_OP_MAX_POOL2D: {
        /* (1, 2, 4, 5) images; col2im takes the (1, 2*2*3, 10) columns of kernel 2x3, stride (2, 1),
         * padding top 1 / right 2 */
        static const int64_t geo[12] = {4, 5, 2, 3, 1, 1, 1, 0, 0, 2, 2, 1}, pool[9] = {2, 3, 2, 1, 1, 1, 1, 1, 1};
        tensor_decref(x);
        bool col = op == TENSOR_OP_COL2IM;
        c->in[0] = tensor_randn(TENSOR_FLOAT32, col ? 3 : 4, col ? (int64_t[]){1, 12, 10} : (int64_t[]){1, 2, 4, 5});
        /* copy exactly the n_ints each op takes: the pool and im2col arrays are shorter than 12 */
        size_t n = op == TENSOR_OP_MAX_POOL2D ? 9 : col ? 12 : 10;
        memcpy(c->ints, op == TENSOR_OP_MAX_POOL2D ? pool : col ? geo : geo + 2, sizeof(int64_t) * n);
        c->a.ints = c->ints;
        c->a.n_ints = n;
        return;
    }
    case TENSOR_OP_MSE_LOSS: c->in[1] = tensor_randn(TENSOR_FLOAT32, 2, s23); c->n_in = 2; return;
    case TENSOR_OP_COPY_: c->in[1] = tensor_randn(TENSOR_FLOAT32, 1, s3); c->n_in = 2; return;
    case TENSOR_OP_NORMAL_: case TENSOR_OP_UNIFORM_: c->a.scalar2 = tensor_scalar_f(1); return;
    case TENSOR_OP_DETACH: case TENSOR_OP_T: case TENSOR_OP_SUM: case TENSOR_OP_MEAN: case TENSOR_OP_PROD: case TENSOR_OP_MAX:
    case TENSOR_OP_MIN: case TENSOR_OP_DROPOUT: case TENSOR_OP_NATIVE_DROPOUT: case TENSOR_OP_ZERO_: case TENSOR_OP_RELU_:
    case TENSOR_OP_SIGMOID_ROWS:
        return;
    default: break;
    }
    cr_assert_fail("no sample case for %s (%s)", tensor_op_info(op)->enum_name, tensor_op_name(op));
}

static void case_free(Case *c) {
    for (int i = 0; i < 6; i++) tensor_decref(c->in[i]);
}

TT_TEST(dispatch, infer_predicts_every_kernel) {
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        TensorOp op = (TensorOp)o;
        Case c;
        make_case(op, &c);
        TensorMeta metas[6], out_m[8];
        const TensorMeta *pm[6];
        for (int i = 0; i < c.n_in; i++) {
            tensor_meta_of(c.in[i], &metas[i]);
            pm[i] = &metas[i];
        }
        int ni = tensor_op_infer(op, pm, c.n_in, &c.a, out_m, 8);
        Tensor *out[8] = {0};
        int nr = tensor_op_run(op, c.in, c.n_in, &c.a, out, 8);
        cr_assert_geq(nr, 1, "%s failed: %s", tensor_op_info(op)->enum_name, tensor_error_message());
        if (c.data_dependent) {
            cr_assert_eq(ni, -1, "%s has a data-dependent shape", tensor_op_info(op)->enum_name);
        } else {
            cr_assert_eq(ni, nr, "%s: infer %d outputs, run %d (%s)", tensor_op_info(op)->enum_name, ni, nr, tensor_error_message());
            for (int k = 0; k < nr; k++) {
                cr_assert_eq(out_m[k].dtype, tensor_dtype(out[k]), "%s output %d dtype", tensor_op_info(op)->enum_name, k);
                tt_expect_shape(out[k], out_m[k].ndim, out_m[k].shape);
                if (tensor_is_view(out[k]) || (tensor_op_flags(op) & TENSOR_OPF_INPLACE)) {
                    for (int d = 0; d < out_m[k].ndim; d++)
                        cr_assert_eq(out_m[k].strides[d], tensor_strides(out[k])[d], "%s stride %d", tensor_op_info(op)->enum_name, d);
                    cr_assert_eq(out_m[k].offset, tensor_storage_offset(out[k]), "%s offset", tensor_op_info(op)->enum_name);
                }
            }
        }
        int no = tensor_op_num_outputs(op, c.n_in, (const Tensor *const *)c.in, &c.a);
        cr_assert_eq(no, nr, "%s num_outputs", tensor_op_info(op)->enum_name);
        for (int k = 0; k < nr; k++) tensor_decref(out[k]);
        case_free(&c);
    }
}

TT_TEST(dispatch, op_table_metadata) {
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        const TensorOpInfo *info = tensor_op_info((TensorOp)o);
        cr_assert(info && info->name && info->enum_name);
        bool differentiable = !(info->flags & (TENSOR_OPF_NONDIFF | TENSOR_OPF_COMPOSITE | TENSOR_OPF_CREATION));
        cr_assert_eq(info->node_name != NULL, differentiable, "%s: node name iff differentiable", info->enum_name);
        if (info->flags & TENSOR_OPF_INPLACE) cr_assert_geq(info->in_min, 1);
    }
    cr_assert_str_eq(tensor_op_name(TENSOR_OP_ADD), "add");
    cr_assert_str_eq(tensor_op_info(TENSOR_OP_SUM_DIM)->node_name, "SumBackward1");
    cr_assert(tensor_op_flags(TENSOR_OP_VIEW) & TENSOR_OPF_VIEW);
    cr_assert(tensor_op_flags(TENSOR_OP_ADD_) & TENSOR_OPF_INPLACE);
    cr_assert(tensor_op_flags(TENSOR_OP_MUL_SCALAR) & TENSOR_OPF_SCALAR_EDGE);
    Tensor *x = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){2});
    Tensor *out[2];
    cr_assert_eq(tensor_op_run(TENSOR_OP_ADD, &x, 1, NULL, out, 2), -1);
    tt_expect_error(TENSOR_ERR_TYPE, "add() expects 2 inputs, got 1");
    cr_assert_eq(tensor_op_run(TENSOR_OP_MAX_DIM, &x, 1, NULL, out, 1), -1);
    tt_expect_error_contains(TENSOR_ERR_VALUE, "produces 2 outputs");
    Tensor *none[2] = {x, NULL};
    cr_assert_eq(tensor_op_run(TENSOR_OP_MUL, none, 2, NULL, out, 1), -1);
    tt_expect_error(TENSOR_ERR_TYPE, "mul(): input 1 must be a tensor, not None");
    tensor_decref(x);
}

/* Meta tensors (the tracer's fakes): no data is allocated or counted, ops in meta mode give
 * meta outputs over storages of their own (the tracer tells fakes apart by storage), views
 * alias them, and every read or in-place write of their data is an error, never a load. */
TT_TEST(dispatch, meta_tensors_have_no_data) {
    size_t live = tensor_live_storage_bytes();
    int64_t s23[2] = {2, 3};
    Tensor *m = tensor_empty_meta(TENSOR_FLOAT32, 2, s23, NULL);
    cr_assert(m && !tensor_has_data(m));
    cr_assert_eq(tensor_live_storage_bytes(), live, "a meta tensor allocates no storage");
    cr_assert_eq(tensor_storage_nbytes(tensor_storage_of(m)), 24);
    bool prev = tensor_set_meta_mode(true);
    Tensor *out[2];
    Tensor *in[2] = {m, m};
    cr_assert_eq(tensor_op_run(TENSOR_OP_ADD, in, 2, NULL, out, 1), 1);
    Tensor *sum = out[0];
    cr_assert(!tensor_has_data(sum) && !tensor_same_storage(sum, m));
    cr_assert_eq(tensor_ndim(sum), 2);
    Tensor *tr = tensor_t(m);
    cr_assert(tr && tensor_same_storage(tr, m) && !tensor_has_data(tr));
    tensor_set_meta_mode(prev);
    TensorScalar s;
    Tensor *one = tensor_empty_meta(TENSOR_INT64, 0, NULL, NULL);
    cr_assert_eq(tensor_item(one, &s), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "Tensor.item() cannot be called on meta tensors");
    cr_assert_eq(tensor_cauchy_(m, 0.0, 1.0, NULL), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    cr_assert_eq(tensor_version(m), 0, "a refused write bumps no version");
    char *r = tensor_repr(m, NULL, 0);
    cr_assert_str_eq(r, "tensor(..., device='meta', size=(2, 3))");
    free(r);
    cr_assert_eq(tensor_live_storage_bytes(), live);
    TT_FREE(m, sum, tr, one);
}

/* The library's direct entry points (not tensor_op_run) on a meta tensor, as autograd and the
 * binding call them on the tracer's fakes: each refuses with an error instead of dereferencing
 * the missing data (clone and copy_ of a fake crashed compiled in-place ops on tensors requiring
 * grad: tests/trace/regress/fake_direct_kernels.py). */
TT_TEST(dispatch, meta_tensors_refused_by_direct_kernels) {
    int64_t s23[2] = {2, 3}, six = 6;
    Tensor *m = tensor_empty_meta(TENSOR_FLOAT32, 2, s23, NULL);
    Tensor *mt = tensor_t(m);   /* a view: not contiguous, so contiguous/reshape must copy */
    Tensor *real = tensor_zeros(TENSOR_FLOAT32, 2, s23);
    cr_assert(m && mt && real && !tensor_has_data(mt));
    cr_assert_null(tensor_data_ptr(m), "no address for data that does not exist");
    cr_assert_null(tensor_clone(m));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Cannot copy out of meta tensor; no data!");
    cr_assert_null(tensor_contiguous(mt));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "meta tensor");
    cr_assert_null(tensor_reshape(mt, &six, 1));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "meta tensor");
    cr_assert_null(tensor_to_dtype(m, TENSOR_FLOAT64));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "meta tensor");
    Tensor *both[2] = {real, m};
    cr_assert_null(tensor_cat(both, 2, 0));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "meta tensor");
    cr_assert_eq(tensor_copy_(real, m), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "meta tensor");
    cr_assert_eq(tensor_copy_(m, real), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    cr_assert_eq(tensor_zero_(m), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    /* the pointwise drivers: a direct kernel call, a scalar form, an in-place form into it */
    cr_assert_null(tensor_sin(m));
    tt_expect_error(TENSOR_ERR_RUNTIME, "sin cannot be called on meta tensors");
    cr_assert_null(tensor_add(real, mt));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    cr_assert_null(tensor_cmp_scalar(TENSOR_OP_EQ_SCALAR, m, tensor_scalar_i(0)));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    cr_assert_eq(tensor_add_(m, real, tensor_scalar_i(1)), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    Tensor *cond = tensor_cmp_scalar(TENSOR_OP_GT_SCALAR, real, tensor_scalar_i(0));
    cr_assert_not_null(cond);
    cr_assert_null(tensor_where(cond, real, m));
    tt_expect_error(TENSOR_ERR_RUNTIME, "where cannot be called on meta tensors");
    float buf[6];
    cr_assert_eq(tensor_copy_to_buffer(m, TENSOR_FLOAT32, buf), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "Cannot copy out of meta tensor; no data!");
    /* outside meta mode a dispatched kernel refuses it too (a fake that leaked), views do not */
    cr_assert(!tensor_meta_mode());
    Tensor *out[1];
    Tensor *in[2] = {real, m};
    cr_assert_eq(tensor_op_run(TENSOR_OP_ADD, in, 2, NULL, out, 1), -1);
    tt_expect_error(TENSOR_ERR_RUNTIME, "add cannot be called on meta tensors");
    cr_assert_eq(tensor_op_run(TENSOR_OP_SIN, &m, 1, NULL, out, 1), -1);
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "cannot be called on meta tensors");
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = &six;
    a.n_ints = 1;
    cr_assert_eq(tensor_op_run(TENSOR_OP_VIEW, &m, 1, &a, out, 1), 1);
    cr_assert(!tensor_has_data(out[0]) && tensor_same_storage(out[0], m));
    cr_assert_eq(tensor_version(m), 0, "refused writes bump no version");
    TT_FREE(out[0], cond, m, mt, real);
}
