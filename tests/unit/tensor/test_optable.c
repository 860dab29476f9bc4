/* test_optable.c — every row of the op table (ember/ops.def) is complete: each op has a kernel
 * and an inference function, composites (and only they) a decomposition, and the elementwise
 * rows' scalar/in-place forms point at a base op that has a kernel of its own.  (A row naming a
 * function nobody defines already fails the link; this catches rows whose entry is present but
 * inconsistent with the op's flags.) */
#include "src/tensor/kernels.h"
#include "src/tensor/pointwise.h"
#include "tests/support/tensor_test.h"

TT_TEST(optable, every_row_has_its_kernels) {
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        TensorOp op = (TensorOp)o;
        const TensorOpInfo *info = tensor_op_info(op);
        TensorRunFn run;
        TensorInferFn infer;
        TensorCompFn comp;
        tensor__kernel_entry(op, &run, &infer, &comp);
        cr_assert(run != NULL, "%s: no kernel", info->enum_name);
        cr_assert(infer != NULL, "%s: no inference", info->enum_name);
        cr_assert_eq(comp != NULL, (info->flags & TENSOR_OPF_COMPOSITE) != 0, "%s: a decomposition iff COMPOSITE (KC)",
                     info->enum_name);
        const PwInfo *k = tensor__pw_info(op);
        if (k->form == PWF_SCALAR || k->form == PWF_RSCALAR || k->form == PWF_INPLACE) {
            TensorOp base = tensor__pw_kernel_op(op);
            cr_assert(base != op && (unsigned)base < TENSOR_OP_COUNT, "%s: SC/RSC/IP names no base op", info->enum_name);
            const PwInfo *b = tensor__pw_info(base);
            cr_assert(b->form == PWF_UNARY || b->form == PWF_BINARY, "%s: base %s has no elementwise kernel", info->enum_name,
                      tensor_op_name(base));
        }
        if (k->form != PWF_NONE) cr_assert(info->flags & TENSOR_OPF_POINTWISE, "%s: elementwise kernel but not POINTWISE",
                                           info->enum_name);
    }
}

TT_TEST(optable, entries_out_of_range) {
    TensorRunFn run;
    TensorInferFn infer;
    TensorCompFn comp;
    tensor__kernel_entry(TENSOR_OP_COUNT, &run, &infer, &comp);
    cr_assert(!run && !infer && !comp);
    cr_assert_null(tensor__comp_fn(TENSOR_OP_ADD));
    cr_assert_not_null(tensor__comp_fn(TENSOR_OP_MATMUL));
}

/* ---- the small-op fast path (pointwise.c) against the general path ----------------------------- */

/* a [3,5] tensor of dtype dt with values v(i), contiguous, and one holding the same values
 * through a transposed view (not contiguous: the drivers' general path, the iterator) */
static void fast_pair(TensorDtype dt, int seed, Tensor **contig, Tensor **strided) {
    float v[15], vt[15];
    for (int i = 0; i < 15; i++) {
        int r = (i * (3 + 2 * seed) + seed) % 11 - 5;   /* some zeros: integral division refuses them */
        v[i] = dt == TENSOR_BOOL ? (float)(r > 0) : (float)r * (tensor_dtype_is_floating(dt) ? 0.37f : 1.0f);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) vt[j * 3 + i] = v[i * 5 + j];
    int64_t s[2] = {3, 5}, st[2] = {5, 3};
    Tensor *f = tensor_from_f32(2, s, v), *ft = tensor_from_f32(2, st, vt);
    *contig = tensor_to_dtype(f, dt);
    Tensor *base = tensor_to_dtype(ft, dt);
    *strided = tensor_transpose(base, 0, 1);
    cr_assert(*contig && *strided && !tensor_is_contiguous(*strided));
    tensor_decref(f);
    tensor_decref(ft);
    tensor_decref(base);
}

/* r1 and r2 both failed with one message, or hold the same dtype, shape and bytes */
static void expect_same(const char *what, Tensor *r1, const char *err1, Tensor *r2, const char *err2) {
    cr_assert_eq(r1 == NULL, r2 == NULL, "%s: one path failed (%s | %s)", what, err1, err2);
    if (!r1) {
        cr_assert_str_eq(err1, err2, "%s", what);
        return;
    }
    cr_assert_eq(tensor_dtype(r1), tensor_dtype(r2), "%s: dtype", what);
    tt_expect_shape(r2, tensor_ndim(r1), tensor_shape(r1));
    Tensor *c1 = tensor_contiguous(r1), *c2 = tensor_contiguous(r2);
    size_t nb = (size_t)tensor_numel(c1) * tensor_dtype_size(tensor_dtype(c1));
    cr_assert(memcmp(tensor_data_ptr(c1), tensor_data_ptr(c2), nb) == 0, "%s: different bits", what);
    tensor_decref(c1);
    tensor_decref(c2);
}

/* runs op on inputs (n of them) into *r, its error message into err */
static Tensor *run_op(TensorOp op, Tensor **in, int n, const TensorOpArgs *a, char *err, size_t cap) {
    Tensor *r = NULL;
    tensor_error_clear();
    if (tensor_op_run(op, in, n, a, &r, 1) < 0) r = NULL;
    snprintf(err, cap, "%s", tensor_error_message());
    return r;
}

/* Every elementwise kernel op (binary, scalar forms, unary) over every dtype, with a second
 * operand of the same shape, a 0-dim tensor and a wrapped number: the contiguous operands take
 * the fast path (the loop called directly) where it applies, the transposed ones the iterator;
 * both give the same result, or the same error. */
TT_TEST(optable, fast_path_matches_general_path) {
    static const TensorDtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT64, TENSOR_BOOL, TENSOR_FLOAT16,
                                      TENSOR_BFLOAT16, TENSOR_INT32, TENSOR_UINT8};
    static const TensorScalar scalars[] = {{1.5, 1, TENSOR_FLOAT32}, {3.0, 3, TENSOR_INT64}, {-2.0, -2, TENSOR_INT64},
                                           {1.0, 1, TENSOR_BOOL}};
    char e1[512], e2[512], what[256];
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        TensorOp op = (TensorOp)o;
        const PwInfo *k = tensor__pw_info(op);
        if ((tensor__pw_info(tensor__pw_kernel_op(op))->kinds & PWK_FUSEONLY) || k->form == PWF_INPLACE) continue;
        if (k->form != PWF_BINARY && k->form != PWF_UNARY && k->form != PWF_SCALAR && k->form != PWF_RSCALAR) continue;
        for (int d = 0; d < NELEM(dts); d++) {
            Tensor *a, *an, *b, *bn;
            fast_pair(dts[d], 0, &a, &an);
            fast_pair(dts[d], 1, &b, &bn);
            TensorOpArgs args = TENSOR_OP_ARGS_INIT;
            if (k->form == PWF_BINARY) {
                Tensor *b0 = tensor_select(b, 0, 1), *b00 = tensor_select(b0, 0, 2);   /* 0-dim, contiguous */
                Tensor *w = tensor_clone(b00);
                tensor_set_wrapped_number(w, true);
                Tensor *seconds[3][2] = {{b, bn}, {b00, b00}, {w, w}};
                for (int v = 0; v < 3; v++) {
                    for (int alpha = 0; alpha < 2; alpha++) {
                        args.alpha = alpha ? (TensorScalar){2.5, 2, TENSOR_FLOAT32} : (TensorScalar){1.0, 1, TENSOR_INT64};
                        Tensor *in1[2] = {a, seconds[v][0]}, *in2[2] = {an, seconds[v][1]};
                        Tensor *r1 = run_op(op, in1, 2, &args, e1, sizeof e1), *r2 = run_op(op, in2, 2, &args, e2, sizeof e2);
                        snprintf(what, sizeof what, "%s %s operand %d alpha %d", tensor_op_name(op), tensor_dtype_name(dts[d]), v,
                                 alpha);
                        expect_same(what, r1, e1, r2, e2);
                        tensor_decref(r1);
                        tensor_decref(r2);
                    }
                }
                tensor_decref(b0);
                tensor_decref(b00);
                tensor_decref(w);
            } else if (k->form == PWF_UNARY) {
                Tensor *r1 = run_op(op, &a, 1, &args, e1, sizeof e1), *r2 = run_op(op, &an, 1, &args, e2, sizeof e2);
                snprintf(what, sizeof what, "%s %s", tensor_op_name(op), tensor_dtype_name(dts[d]));
                expect_same(what, r1, e1, r2, e2);
                tensor_decref(r1);
                tensor_decref(r2);
            } else {
                for (int sc = 0; sc < NELEM(scalars); sc++) {
                    args.scalar = scalars[sc];
                    Tensor *r1 = run_op(op, &a, 1, &args, e1, sizeof e1), *r2 = run_op(op, &an, 1, &args, e2, sizeof e2);
                    snprintf(what, sizeof what, "%s %s scalar %d", tensor_op_name(op), tensor_dtype_name(dts[d]), sc);
                    expect_same(what, r1, e1, r2, e2);
                    tensor_decref(r1);
                    tensor_decref(r2);
                }
            }
            tensor_decref(a);
            tensor_decref(an);
            tensor_decref(b);
            tensor_decref(bn);
        }
    }
    tensor_error_clear();
}
