/* test_linalg.c — mm / bmm / mv / dot / addmm / matmul / linear against a naive triple loop,
 * with transposed and sliced operands, int64, PyTorch's matmul shape rules (1-D, folding,
 * batch broadcasting) and error messages; the library's sgemm path against direct cblas. */
#include "tests/support/tensor_test.h"

TestSuite(linalg, .init = tt_setup);

void tensor__cblas_sgemm_direct(int m, int n, int k, const float *A, const float *B, float *C);

/* C[i,j] = sum_p A[i,p] B[p,j] in double, for 2-D views */
static void check_mm(const Tensor *a, const Tensor *b, const Tensor *c, double tol) {
    tt_ok((Tensor *)c);
    int64_t m = tensor_shape(a)[0], k = tensor_shape(a)[1], n = tensor_shape(b)[1];
    tt_expect_shape(c, 2, (int64_t[]){m, n});
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t p = 0; p < k; p++) acc += tensor_get_f64(a, (int64_t[]){i, p}) * tensor_get_f64(b, (int64_t[]){p, j});
            double got = tensor_get_f64(c, (int64_t[]){i, j});
            cr_assert(fabs(got - acc) <= tol * (1 + fabs(acc)), "[%lld,%lld] got %g want %g", (long long)i, (long long)j, got, acc);
        }
}

TT_TEST(linalg, mm_all_layouts) {
    int64_t sa[2] = {5, 7}, sb[2] = {7, 3};
    Tensor *a = tensor_randn(TENSOR_FLOAT32, 2, sa), *b = tensor_randn(TENSOR_FLOAT32, 2, sb);
    int64_t sat[2] = {7, 5}, sbt[2] = {3, 7};
    Tensor *a_t0 = tensor_randn(TENSOR_FLOAT32, 2, sat), *at = tensor_t(a_t0);       /* column-major */
    Tensor *b_t0 = tensor_randn(TENSOR_FLOAT32, 2, sbt), *bt = tensor_t(b_t0);
    int64_t sw[2] = {5, 14};
    Tensor *wide = tensor_randn(TENSOR_FLOAT32, 2, sw), *as = tensor_slice(wide, 1, 0, 14, 2); /* stride 2: packed */
    Tensor *A[3] = {a, at, as}, *B[2] = {b, bt};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            Tensor *c = tensor_mm(A[i], B[j]);
            check_mm(A[i], B[j], c, 1e-5);
            tensor_decref(c);
        }
    /* expanded (stride 0) operand */
    Tensor *row = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){1, 7}), *ex = tensor_expand(row, (int64_t[]){4, 7}, 2);
    Tensor *ce = tensor_mm(ex, b);
    check_mm(ex, b, ce, 1e-5);
    /* empty inner dim gives zeros */
    Tensor *e1 = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){2, 0}), *e2 = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){0, 3});
    Tensor *ez = tensor_mm(e1, e2);
    TT_EXPECT(ez, ((int64_t[]){2, 3}), ((float[]){0, 0, 0, 0, 0, 0}), 0);
    TT_FREE(a, b, a_t0, at, b_t0, bt, wide, as, row, ex, ce, e1, e2, ez);
}

TT_TEST(linalg, int64_mm_and_dot) {
    Tensor *a = TI(((int64_t[]){2, 3}), ((int64_t[]){1, 2, 3, 4, 5, 6}));
    Tensor *b = TI(((int64_t[]){3, 2}), ((int64_t[]){1, 0, 0, 1, 1, 1}));
    Tensor *c = tensor_mm(a, b);
    cr_assert_eq(tensor_dtype(c), TENSOR_INT64);
    TT_EXPECT(c, ((int64_t[]){2, 2}), ((float[]){4, 5, 10, 11}), 0);
    Tensor *v = TI(((int64_t[]){3}), ((int64_t[]){1, 2, 3}));
    Tensor *d = tensor_dot(v, v), *mv = tensor_mv(a, v);
    cr_assert_eq(tensor_get_i64(d, NULL), 14);
    TT_EXPECT(mv, ((int64_t[]){2}), ((float[]){14, 32}), 0);
    TT_FREE(a, b, c, v, d, mv);
}

TT_TEST(linalg, bmm_mv_dot_addmm) {
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 3, (int64_t[]){4, 3, 5}), *y0 = tensor_randn(TENSOR_FLOAT32, 3, (int64_t[]){4, 2, 5});
    Tensor *y = tensor_transpose(y0, 1, 2); /* [4, 5, 2], non-contiguous */
    Tensor *z = tensor_bmm(x, y);
    tt_expect_shape(z, 3, (int64_t[]){4, 3, 2});
    for (int64_t b = 0; b < 4; b++) {
        Tensor *xb = tensor_select(x, 0, b), *yb = tensor_select(y, 0, b), *zb = tensor_select(z, 0, b);
        check_mm(xb, yb, zb, 1e-5);
        TT_FREE(xb, yb, zb);
    }
    Tensor *m = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){3, 5}), *v = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){5});
    Tensor *mv = tensor_mv(m, v), *vc = tensor_unsqueeze(v, 1), *ref = tensor_mm(m, vc), *refv = tensor_squeeze(ref);
    cr_assert(tensor_allclose(mv, refv, 1e-5, 1e-6, false) == 1);
    Tensor *mt = tensor_t(m), *v3 = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){3}), *mtv = tensor_mv(mt, v3);
    Tensor *v3r = tensor_unsqueeze(v3, 0), *ref2 = tensor_mm(v3r, m), *ref2v = tensor_squeeze(ref2);
    cr_assert(tensor_allclose(mtv, ref2v, 1e-5, 1e-6, false) == 1, "mv with a transposed matrix");
    Tensor *d = tensor_dot(v, v);
    double acc = 0;
    for (int64_t i = 0; i < 5; i++) acc += tensor_get_f64(v, &i) * tensor_get_f64(v, &i);
    cr_assert_float_eq(tensor_get_f64(d, NULL), acc, 1e-5);
    Tensor *bias = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){2}), *mm2 = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){5, 2});
    Tensor *am = tensor_addmm(bias, m, mm2, tensor_scalar_f(0.5), tensor_scalar_f(2.0));
    Tensor *p = tensor_mm(m, mm2);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++) {
            double want = 0.5 * tensor_get_f64(bias, &j) + 2.0 * tensor_get_f64(p, (int64_t[]){i, j});
            cr_assert_float_eq(tensor_get_f64(am, (int64_t[]){i, j}), want, 1e-5);
        }
    TT_FREE(x, y0, y, z, m, v, mv, vc, ref, refv, mt, v3, mtv, v3r, ref2, ref2v, d, bias, mm2, am, p);
}

static void expect_matmul_shape(const int64_t *sa, int na, const int64_t *sb, int nb, const int64_t *want, int nw) {
    Tensor *a = tensor_randn(TENSOR_FLOAT32, na, sa), *b = tensor_randn(TENSOR_FLOAT32, nb, sb);
    Tensor *c = tt_ok(tensor_matmul(a, b));
    tt_expect_shape(c, nw, want);
    TensorMeta ma, mb, mc;
    tensor_meta_of(a, &ma);
    tensor_meta_of(b, &mb);
    const TensorMeta *pm[2] = {&ma, &mb};
    cr_assert_eq(tensor_op_infer(TENSOR_OP_MATMUL, pm, 2, NULL, &mc, 1), 1);
    cr_assert_eq(mc.ndim, nw);
    for (int i = 0; i < nw; i++) cr_assert_eq(mc.shape[i], want[i]);
    /* value check through explicit broadcasting: compare one slice with mm */
    TT_FREE(a, b, c);
}

TT_TEST(linalg, matmul_shape_rules) {
    expect_matmul_shape((int64_t[]){3}, 1, (int64_t[]){3}, 1, NULL, 0);
    expect_matmul_shape((int64_t[]){2, 3}, 2, (int64_t[]){3}, 1, (int64_t[]){2}, 1);
    expect_matmul_shape((int64_t[]){3}, 1, (int64_t[]){3, 4}, 2, (int64_t[]){4}, 1);
    expect_matmul_shape((int64_t[]){2, 3}, 2, (int64_t[]){3, 4}, 2, (int64_t[]){2, 4}, 2);
    expect_matmul_shape((int64_t[]){5, 2, 3}, 3, (int64_t[]){3, 4}, 2, (int64_t[]){5, 2, 4}, 3);
    expect_matmul_shape((int64_t[]){5, 2, 3}, 3, (int64_t[]){3}, 1, (int64_t[]){5, 2}, 2);
    expect_matmul_shape((int64_t[]){3}, 1, (int64_t[]){5, 3, 4}, 3, (int64_t[]){5, 4}, 2);
    expect_matmul_shape((int64_t[]){2, 3}, 2, (int64_t[]){5, 3, 4}, 3, (int64_t[]){5, 2, 4}, 3);
    expect_matmul_shape((int64_t[]){7, 1, 2, 3}, 4, (int64_t[]){5, 3, 4}, 3, (int64_t[]){7, 5, 2, 4}, 4);
    /* batched values against per-batch mm */
    Tensor *a = tensor_randn(TENSOR_FLOAT32, 3, (int64_t[]){2, 3, 4}), *b = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){4, 5});
    Tensor *c = tensor_matmul(a, b);
    for (int64_t i = 0; i < 2; i++) {
        Tensor *ai = tensor_select(a, 0, i), *ci = tensor_select(c, 0, i);
        check_mm(ai, b, ci, 1e-5);
        TT_FREE(ai, ci);
    }
    Tensor *b3 = tensor_randn(TENSOR_FLOAT32, 3, (int64_t[]){1, 4, 2}), *c3 = tensor_matmul(a, b3);
    for (int64_t i = 0; i < 2; i++) {
        Tensor *ai = tensor_select(a, 0, i), *bi = tensor_select(b3, 0, 0), *ci = tensor_select(c3, 0, i);
        check_mm(ai, bi, ci, 1e-5);
        TT_FREE(ai, bi, ci);
    }
    TT_FREE(a, b, c, b3, c3);
}

TT_TEST(linalg, linear_matches_matmul_plus_bias) {
    Tensor *x = tensor_randn(TENSOR_FLOAT32, 3, (int64_t[]){2, 3, 4}), *w = tensor_randn(TENSOR_FLOAT32, 2, (int64_t[]){5, 4});
    Tensor *b = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){5});
    Tensor *y = tensor_linear(x, w, b), *wt = tensor_t(w), *m = tensor_matmul(x, wt), *ref = tensor_add(m, b);
    cr_assert(tensor_allclose(y, ref, 1e-5, 1e-6, false) == 1);
    Tensor *x1 = tensor_randn(TENSOR_FLOAT32, 1, (int64_t[]){4}), *y1 = tensor_linear(x1, w, NULL);
    tt_expect_shape(y1, 1, (int64_t[]){5});
    TT_FREE(x, w, b, y, wt, m, ref, x1, y1);
}

TT_TEST(linalg, errors) {
    Tensor *a = tensor_ones(TENSOR_FLOAT32, 2, (int64_t[]){2, 3});
    cr_assert_null(tensor_mm(a, a));
    tt_expect_error(TENSOR_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
    Tensor *v3 = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){3}), *v4 = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){4});
    cr_assert_null(tensor_mm(v3, a));
    tt_expect_error(TENSOR_ERR_RUNTIME, "self must be a matrix");
    cr_assert_null(tensor_matmul(v3, v4));
    tt_expect_error(TENSOR_ERR_RUNTIME,
                    "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively");
    Tensor *b1 = tensor_ones(TENSOR_FLOAT32, 3, (int64_t[]){2, 2, 3});
    cr_assert_null(tensor_bmm(b1, b1));
    tt_expect_error(TENSOR_ERR_RUNTIME, "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 2].");
    Tensor *l = tensor_ones(TENSOR_INT64, 2, (int64_t[]){3, 2});
    cr_assert_null(tensor_mm(a, l));
    tt_expect_error(TENSOR_ERR_RUNTIME, "expected scalar type Float but found Long"); /* PyTorch 1.13: torch.mm(float, long) */
    Tensor *s = tensor_scalar_tensor(tensor_scalar_f(1), TENSOR_FLOAT32);
    cr_assert_null(tensor_matmul(s, a));
    tt_expect_error(TENSOR_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
    TT_FREE(a, v3, v4, b1, l, s);
}

TT_TEST(linalg, sgemm_through_library_equals_direct_cblas) {
    int64_t s[2] = {64, 48}, s2[2] = {48, 32};
    Tensor *a = tensor_randn(TENSOR_FLOAT32, 2, s), *b = tensor_randn(TENSOR_FLOAT32, 2, s2);
    Tensor *c = tensor_mm(a, b);
    float *A = malloc(sizeof(float) * 64 * 48), *B = malloc(sizeof(float) * 48 * 32), *C = malloc(sizeof(float) * 64 * 32);
    float *got = malloc(sizeof(float) * 64 * 32);
    cr_assert_eq(tensor_copy_to_buffer(a, TENSOR_FLOAT32, A), 0);
    cr_assert_eq(tensor_copy_to_buffer(b, TENSOR_FLOAT32, B), 0);
    cr_assert_eq(tensor_copy_to_buffer(c, TENSOR_FLOAT32, got), 0);
    tensor__cblas_sgemm_direct(64, 32, 48, A, B, C);
    cr_assert_eq(memcmp(C, got, sizeof(float) * 64 * 32), 0, "bitwise identical to a direct cblas_sgemm call");
    free(A);
    free(B);
    free(C);
    free(got);
    TT_FREE(a, b, c);
}
