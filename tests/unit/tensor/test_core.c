/* test_core.c — tensor lifetime and the surfaces the VM binds to: refcounts, the storage
 * observer (GC pacing), foreign memory, user_obj identity slots, factories (dtype inference as
 * in PyTorch), the seedable generator, item(), the thread-local error state, and the block cache
 * tensors and nodes are allocated from (src/common/blockcache.h). */
#include "tests/support/tensor_test.h"

#include "src/common/blockcache.h"

TestSuite(core, .init = tt_setup);

static ptrdiff_t observed;
static int observer_calls;
static void storage_observer(void *ud, ptrdiff_t delta) {
    (void)ud;
    observed += delta;
    observer_calls++;
}

TT_TEST(core, storage_observer_tracks_bytes) {
    tensor_set_storage_observer(storage_observer, NULL);
    Tensor *a = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){100, 100});
    cr_assert_eq(observed, 40000);
    Tensor *v = tensor_view(a, (int64_t[]){10000}, 1);
    cr_assert_eq(observed, 40000, "views do not allocate storage");
    Tensor *i = tensor_zeros(TENSOR_INT64, 1, (int64_t[]){3});
    cr_assert_eq(observed, 40024);
    cr_assert_eq(tensor_live_storage_bytes(), 40024);
    TT_FREE(a, i);
    cr_assert_eq(observed, 40000, "storage lives while a view holds it");
    tensor_decref(v);
    cr_assert_eq(observed, 0);
    cr_assert_eq(observer_calls, 4);
    tensor_set_storage_observer(NULL, NULL);
}

static int released;
static void release_blob(void *ctx) { released += *(int *)ctx; }

TT_TEST(core, from_blob_and_identity_slots) {
    float data[6] = {1, 2, 3, 4, 5, 6};
    int token = 1;
    Tensor *t = tensor_from_blob(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2}, data, release_blob, &token);
    cr_assert(!tensor_is_contiguous(t));
    cr_assert_eq(tensor_get_f64(t, (int64_t[]){1, 2}), 6);
    Tensor *c = tensor_contiguous(t);
    TT_EXPECT(c, ((int64_t[]){2, 3}), ((float[]){1, 3, 5, 2, 4, 6}), 0);
    cr_assert_eq(tensor_user_obj(t), NULL);
    int wrapper;
    tensor_set_user_obj(t, &wrapper);
    cr_assert_eq(tensor_user_obj(t), &wrapper);
    tensor_incref(t);
    cr_assert_eq(tensor_refcount(t), 2);
    tensor_decref(t);
    tensor_decref(t);
    cr_assert_eq(released, 1, "foreign memory released with its storage");
    tensor_decref(c);
}

TT_TEST(core, factories_infer_dtypes_like_pytorch) {
    Tensor *ai = tensor_arange(tensor_scalar_i(0), tensor_scalar_i(5), tensor_scalar_i(1), TENSOR_DTYPE_DEFAULT);
    Tensor *af = tensor_arange(tensor_scalar_i(1), tensor_scalar_f(2.5), tensor_scalar_f(0.5), TENSOR_DTYPE_DEFAULT);
    Tensor *a3 = tensor_arange(tensor_scalar_i(0), tensor_scalar_i(1), tensor_scalar_f(0.3), TENSOR_DTYPE_DEFAULT);
    cr_assert_eq(tensor_dtype(ai), TENSOR_INT64);
    TT_EXPECT(ai, ((int64_t[]){5}), ((float[]){0, 1, 2, 3, 4}), 0);
    TT_EXPECT(af, ((int64_t[]){3}), ((float[]){1, 1.5, 2}), 0);
    TT_EXPECT(a3, ((int64_t[]){4}), ((float[]){0, 0.3f, 0.6f, 0.9f}), 1e-7);
    cr_assert_null(tensor_arange(tensor_scalar_i(0), tensor_scalar_i(5), tensor_scalar_i(0), TENSOR_DTYPE_DEFAULT));
    tt_expect_error(TENSOR_ERR_RUNTIME, "step must be nonzero");
    cr_assert_null(tensor_arange(tensor_scalar_i(5), tensor_scalar_i(0), tensor_scalar_i(1), TENSOR_DTYPE_DEFAULT));
    tt_expect_error(TENSOR_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
    Tensor *fi = tensor_full(TENSOR_DTYPE_DEFAULT, 1, (int64_t[]){2}, tensor_scalar_i(7));
    Tensor *ff = tensor_full(TENSOR_DTYPE_DEFAULT, 1, (int64_t[]){2}, tensor_scalar_f(7));
    Tensor *fb = tensor_full(TENSOR_DTYPE_DEFAULT, 1, (int64_t[]){2}, tensor_scalar_b(true));
    cr_assert_eq(tensor_dtype(fi), TENSOR_INT64);
    cr_assert_eq(tensor_dtype(ff), TENSOR_FLOAT32);
    cr_assert_eq(tensor_dtype(fb), TENSOR_BOOL);
    Tensor *e = tensor_eye(2, 3, TENSOR_FLOAT32), *e2 = tensor_eye(2, -1, TENSOR_INT64);
    TT_EXPECT(e, ((int64_t[]){2, 3}), ((float[]){1, 0, 0, 0, 1, 0}), 0);
    TT_EXPECT(e2, ((int64_t[]){2, 2}), ((float[]){1, 0, 0, 1}), 0);
    Tensor *l = tensor_linspace(0, 1, 5, TENSOR_FLOAT32), *l1 = tensor_linspace(3, 9, 1, TENSOR_FLOAT32);
    TT_EXPECT(l, ((int64_t[]){5}), ((float[]){0, 0.25, 0.5, 0.75, 1}), 0);
    TT_EXPECT(l1, ((int64_t[]){1}), ((float[]){3}), 0);
    Tensor *zl = tensor_zeros_like(e2), *ol = tensor_ones_like(e), *fl = tensor_full_like(e, tensor_scalar_f(2.5));
    cr_assert_eq(tensor_dtype(zl), TENSOR_INT64);
    TT_EXPECT(ol, ((int64_t[]){2, 3}), ((float[]){1, 1, 1, 1, 1, 1}), 0);
    TT_EXPECT(fl, ((int64_t[]){2, 3}), ((float[]){2.5, 2.5, 2.5, 2.5, 2.5, 2.5}), 0);
    TT_FREE(ai, af, a3, fi, ff, fb, e, e2, l, l1, zl, ol, fl);
}

TT_TEST(core, generator_is_seedable_and_in_range) {
    tensor_manual_seed(42);
    cr_assert_eq(tensor_initial_seed(), 42);
    int64_t n = 10000;
    Tensor *u = tensor_rand(TENSOR_FLOAT32, 1, &n), *g = tensor_randn(TENSOR_FLOAT32, 1, &n);
    Tensor *ri = tensor_randint(-3, 4, 1, &n);
    double su = 0, sg = 0, sg2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = tensor_get_f64(u, &i), w = tensor_get_f64(g, &i);
        int64_t k = tensor_get_i64(ri, &i);
        cr_assert(v >= 0 && v < 1);
        cr_assert(k >= -3 && k < 4);
        su += v;
        sg += w;
        sg2 += w * w;
    }
    cr_assert(fabs(su / n - 0.5) < 0.02);
    cr_assert(fabs(sg / n) < 0.05 && fabs(sg2 / n - 1) < 0.05);
    tensor_manual_seed(42);
    Tensor *u2 = tensor_rand(TENSOR_FLOAT32, 1, &n);
    cr_assert(tensor_equal(u, u2));
    Tensor *t = tensor_zeros(TENSOR_FLOAT32, 2, (int64_t[]){50, 40}), *tt = tensor_t(t);
    cr_assert_eq(tensor_uniform_(tt, -2, -1), 0);
    Tensor *mx = tensor_max(t), *mn = tensor_min(t);
    cr_assert(tensor_get_f64(mx, NULL) < -1 && tensor_get_f64(mn, NULL) >= -2);
    cr_assert_eq(tensor_normal_(t, 5, 0), 0);
    cr_assert_eq(tensor_get_f64(t, (int64_t[]){3, 4}), 5);
    cr_assert_null(tensor_randint(3, 3, 1, &n));
    tt_expect_error_contains(TENSOR_ERR_RUNTIME, "random_ expects 'from' to be less than 'to'");
    Tensor *p = tensor_full(TENSOR_FLOAT32, 1, (int64_t[]){1000}, tensor_scalar_f(0.3)), *bm = tensor_bernoulli(p), *bs = tensor_sum(bm);
    cr_assert(fabs(tensor_get_f64(bs, NULL) / 1000 - 0.3) < 0.06);
    TT_FREE(u, g, ri, u2, t, tt, mx, mn, p, bm, bs);
}

TT_TEST(core, item_and_buffers) {
    TensorScalar s;
    Tensor *a = TT(((int64_t[]){1, 1}), ((float[]){2.5}));
    cr_assert_eq(tensor_item(a, &s), 0);
    cr_assert_eq(s.kind, TENSOR_FLOAT32);
    cr_assert_eq(s.f, 2.5);
    Tensor *i = TI(((int64_t[]){1}), ((int64_t[]){-7}));
    cr_assert_eq(tensor_item(i, &s), 0);
    cr_assert_eq(s.kind, TENSOR_INT64);
    cr_assert_eq(s.i, -7);
    Tensor *m = tensor_ones(TENSOR_FLOAT32, 1, (int64_t[]){2});
    cr_assert_eq(tensor_item(m, &s), -1);
    tt_expect_error(TENSOR_ERR_VALUE, "only one element tensors can be converted to Python scalars");
    int64_t buf[2];
    cr_assert_eq(tensor_copy_to_buffer(m, TENSOR_INT64, buf), 0);
    cr_assert(buf[0] == 1 && buf[1] == 1);
    cr_assert_str_eq(tensor_type_string(i), "torch.LongTensor");
    cr_assert_str_eq(tensor_dtype_name(TENSOR_BOOL), "torch.bool");
    TT_FREE(a, i, m);
}

TT_TEST(core, error_state) {
    tensor_error_set(TENSOR_ERR_TYPE, "bad %s %d", "thing", 3);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_TYPE);
    cr_assert_str_eq(tensor_error_message(), "bad thing 3");
    cr_assert_str_eq(tensor_error_kind_name(TENSOR_ERR_INDEX), "IndexError");
    tensor_error_set_external();
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_EXTERNAL);
    cr_assert_str_eq(tensor_error_message(), "");
    tensor_error_clear();
    cr_assert_eq(tensor_error_kind(), TENSOR_OK);
}

/* ---- storages (src/tensor/storage.c): what torch.load builds tensors with ---- */

TT_TEST(core, set_storage_shares_and_checks_bounds) {
    TensorStorage *s = tensor_storage_new(6 * sizeof(float));
    cr_assert_eq(tensor_storage_nbytes(s), 24);
    float *p = tensor_storage_data(s);
    for (int i = 0; i < 6; i++) cr_assert_eq(p[i], 0.0f, "new storages are zero-filled");
    for (int i = 0; i < 6; i++) p[i] = (float)i;
    Tensor *a = tensor_empty(TENSOR_FLOAT32, 1, (int64_t[]){0});
    Tensor *b = tensor_empty(TENSOR_FLOAT32, 1, (int64_t[]){0});
    uint32_t v0 = tensor_version(a);
    cr_assert_eq(tensor_set_storage(a, s, 0, 2, (int64_t[]){2, 3}, NULL), 0);
    cr_assert_eq(tensor_set_storage(b, s, 0, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}), 0);   /* a.t() */
    cr_assert(tensor_version(a) == v0 + 1, "set_ is an in-place op");
    cr_assert(tensor_same_storage(a, b) && tensor_storage_of(a) == s);
    cr_assert(!tensor_is_view(a) && tensor_is_contiguous(a) && !tensor_is_contiguous(b));
    cr_assert_eq(tensor_get_f64(b, (int64_t[]){2, 1}), 5.0);   /* 2*1 + 1*3 */
    p[5] = 50.0f;
    cr_assert_eq(tensor_get_f64(a, (int64_t[]){1, 2}), 50.0, "both tensors see the storage's bytes");
    /* past the end of the storage, and negative strides, are refused */
    cr_assert_eq(tensor_set_storage(a, s, 4, 1, (int64_t[]){3}, NULL), -1);
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_NOT_IMPLEMENTED);
    cr_assert_eq(tensor_set_storage(a, s, 0, 1, (int64_t[]){2}, (int64_t[]){-1}), -1);
    cr_assert_str_eq(tensor_error_message(), "Storage size calculation overflowed with sizes=[2] and strides=[-1]");
    cr_assert_eq(tensor_set_storage(a, s, 6, 1, (int64_t[]){0}, NULL), 0, "an empty tensor needs no bytes");
    tensor_storage_decref(s);   /* the tensors keep it alive */
    cr_assert_eq(tensor_get_f64(b, (int64_t[]){1, 0}), 1.0);
    TT_FREE(a, b);
}

TT_TEST(core, storage_slices_share_memory) {
    TensorStorage *s = tensor_storage_new(16);
    TensorStorage *v = tensor_storage_slice(s, 4, 8);
    cr_assert_eq(tensor_storage_nbytes(v), 8);
    cr_assert_eq((char *)tensor_storage_data(v), (char *)tensor_storage_data(s) + 4);
    cr_assert_null(tensor_storage_slice(s, 10, 8));
    cr_assert_eq(tensor_error_kind(), TENSOR_ERR_RUNTIME);
    tensor_storage_decref(s);   /* the slice keeps its parent's bytes alive */
    ((char *)tensor_storage_data(v))[7] = 1;
    cr_assert_eq(tensor_live_storage_bytes(), 16);
    tensor_storage_decref(v);
    cr_assert_eq(tensor_live_storage_bytes(), 0);
}

/* src/common/blockcache.h: the per-thread size-class lists tensors, small storages and graph
 * nodes come from.  A freed block is the next one handed out for its class (LIFO), classes do
 * not mix, blocks over 4 KiB are 64-byte aligned (tensor data), and what is larger than the
 * largest class bypasses the cache.  Under ASan the cache is off: only alignment is checked. */
Test(core, blockcache_classes_and_reuse) {
    void *a = blockcache_alloc(100);    /* the 128-byte class */
    void *b = blockcache_alloc(200);    /* the 256-byte class */
    void *big = blockcache_alloc(5000); /* the 8 KiB class */
    cr_assert(a && b && big);
    cr_assert_eq((uintptr_t)big % 64, 0, "blocks over 4 KiB are 64-byte aligned");
    memset(a, 1, 100);
    memset(b, 2, 200);
    memset(big, 3, 5000);
    blockcache_free(a, 100);
    blockcache_free(b, 200);
    blockcache_free(big, 5000);
    void *a2 = blockcache_alloc(120);
    void *b2 = blockcache_alloc(256);
    void *big2 = blockcache_alloc(8192);
    void *huge = blockcache_alloc((size_t)1 << 20);  /* beyond the classes: malloc's */
    cr_assert(a2 && b2 && big2 && huge);
    cr_assert_eq((uintptr_t)big2 % 64, 0);
    if (blockcache_active()) {
        cr_assert_eq(a2, a, "the block freed last comes back for its class");
        cr_assert_eq(b2, b);
        cr_assert_eq(big2, big);
    }
    void *c = blockcache_alloc(100);
    cr_assert_neq(c, a2, "a block handed out is not handed out twice");
    blockcache_free(a2, 120);
    blockcache_free(b2, 256);
    blockcache_free(big2, 8192);
    blockcache_free(huge, (size_t)1 << 20);
    blockcache_free(c, 100);
    blockcache_free(NULL, 64);
}
