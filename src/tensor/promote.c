/* promote.c — PyTorch's type promotion for Ember's three dtypes, shape broadcasting, and
 * dtype-converting copies (copy_, to(dtype), fill).
 *
 * With one dtype per category (bool < int64 < float32) PyTorch's rule "dimensioned tensors
 * beat 0-dim tensors beat wrapped numbers, unless a lower-priority operand is of a higher
 * category" reduces to taking the highest category present. */
#include "src/tensor/iter.h"

#include <stdio.h>

static const TensorDtype cat_dtype[3] = {TENSOR_BOOL, TENSOR_INT64, TENSOR_FLOAT32};

TensorDtype tensor__promote(TensorDtype a, TensorDtype b) {
    TensorCategory ca = tensor__category(a), cb = tensor__category(b);
    return cat_dtype[ca > cb ? ca : cb];
}

TensorDtype tensor__promote_scalar(TensorDtype t, TensorDtype scalar_kind) {
    return tensor__promote(t, scalar_kind);
}

int tensor__broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    int n = na > nb ? na : nb;
    int64_t tmp[TENSOR_MAX_DIMS];
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa == sb || sb == 1) {
            tmp[i] = sa;
        } else if (sa == 1) {
            tmp[i] = sb;
        } else {
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                             (long long)sa, (long long)sb, i);
            return -1;
        }
    }
    memcpy(out, tmp, sizeof(int64_t) * (size_t)n);
    *nout = n;
    return 0;
}

/* ---- conversion loops: dst[i] = (D)src[i] ---- */

#define CONV_LOOP(NAME, D, S, EXPR)                                                             \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *ctx) {                  \
        (void)ctx;                                                                              \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        if (s[0] == (int64_t)sizeof(D) && s[1] == (int64_t)sizeof(S)) {                        \
            D *restrict po = (D *)o;                                                            \
            const S *restrict pa = (const S *)a;                                                \
            for (int64_t i = 0; i < n; i++) {                                                   \
                S x = pa[i];                                                                    \
                po[i] = (EXPR);                                                                 \
            }                                                                                   \
        } else {                                                                                \
            for (int64_t i = 0; i < n; i++) {                                                   \
                S x = *(const S *)(a + i * s[1]);                                               \
                *(D *)(o + i * s[0]) = (EXPR);                                                  \
            }                                                                                   \
        }                                                                                       \
    }

CONV_LOOP(conv_f_f, float, float, x)
CONV_LOOP(conv_f_i, float, int64_t, (float)x)
CONV_LOOP(conv_f_b, float, bool, x ? 1.0f : 0.0f)
CONV_LOOP(conv_i_f, int64_t, float, (int64_t)x)
CONV_LOOP(conv_i_i, int64_t, int64_t, x)
CONV_LOOP(conv_i_b, int64_t, bool, x ? 1 : 0)
CONV_LOOP(conv_b_f, bool, float, x != 0.0f)
CONV_LOOP(conv_b_i, bool, int64_t, x != 0)
CONV_LOOP(conv_b_b, bool, bool, x)

static const TensorLoopFn conv_table[3][3] = {
    {conv_f_f, conv_f_i, conv_f_b},
    {conv_i_f, conv_i_i, conv_i_b},
    {conv_b_f, conv_b_i, conv_b_b},
};

static bool overlaps(const Tensor *a, const Tensor *b) {
    return a->storage == b->storage && a->numel > 0 && b->numel > 0;
}

int tensor__copy_into(Tensor *dst, const Tensor *src) {
    int nd;
    int64_t shp[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(dst->ndim, dst->shape, src->ndim, src->shape, &nd, shp) < 0) return -1;
    if (nd != dst->ndim || memcmp(shp, dst->shape, sizeof(int64_t) * (size_t)nd) != 0) {
        char b1[256], b2[256];
        tensor__format_shape(b1, sizeof b1, nd, shp);
        tensor__format_shape(b2, sizeof b2, dst->ndim, dst->shape);
        tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b2, b1);
        return -1;
    }
    Tensor *tmp = NULL;
    if (overlaps(dst, src) && src != dst) {
        tmp = tensor_clone(src);
        if (!tmp) return -1;
        src = tmp;
    }
    TensorIter it;
    const Tensor *ops[2] = {dst, src};
    tensor__iter_init(&it, 2, ops, dst->ndim, dst->shape);
    tensor__iter_run(&it, conv_table[dst->dtype][src->dtype], NULL);
    tensor_decref(tmp);
    return 0;
}

Tensor *tensor__as_dtype(const Tensor *t, TensorDtype dt) {
    if ((TensorDtype)t->dtype == dt) {
        tensor_incref((Tensor *)t);
        return (Tensor *)t;
    }
    Tensor *r = tensor__new(dt, t->ndim, t->shape, false);
    if (!r) return NULL;
    if (tensor__copy_into(r, t) < 0) {
        tensor_decref(r);
        return NULL;
    }
    return r;
}

Tensor *tensor_to_dtype(Tensor *t, TensorDtype dt) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = (TensorDtype)t->dtype;
    return tensor__as_dtype(t, dt);
}

Tensor *tensor_clone(const Tensor *t) {
    Tensor *r = tensor__new((TensorDtype)t->dtype, t->ndim, t->shape, false);
    if (!r) return NULL;
    if (t->numel) {
        if (tensor__contig(t))
            memcpy(r->storage->data, tensor__data(t), (size_t)t->numel * tensor__elsize((TensorDtype)t->dtype));
        else if (tensor__copy_into(r, t) < 0) {
            tensor_decref(r);
            return NULL;
        }
    }
    return r;
}

Tensor *tensor_contiguous(Tensor *t) {
    if (tensor__contig(t)) {
        tensor_incref(t);
        return t;
    }
    return tensor_clone(t);
}

void tensor__fill_raw(Tensor *t, TensorScalar s) {
    if (t->numel == 0) return;
    Tensor *src = tensor_scalar_tensor(s, (TensorDtype)t->dtype);
    EM_ASSERT(src, "out of memory");
    if (tensor__contig(t)) {
        char *p = tensor__data(t);
        size_t es = tensor__elsize((TensorDtype)t->dtype);
        if (t->dtype == TENSOR_FLOAT32) {
            float v = *(float *)src->storage->data;
            float *f = (float *)p;
            for (int64_t i = 0; i < t->numel; i++) f[i] = v;
        } else if (t->dtype == TENSOR_INT64) {
            int64_t v = *(int64_t *)src->storage->data;
            int64_t *q = (int64_t *)p;
            for (int64_t i = 0; i < t->numel; i++) q[i] = v;
        } else {
            memset(p, *(bool *)src->storage->data ? 1 : 0, (size_t)t->numel * es);
        }
    } else {
        int rc = tensor__copy_into(t, src);
        EM_ASSERT(rc == 0, "fill of a broadcastable scalar cannot fail");
    }
    tensor_decref(src);
}

int tensor_copy_to_buffer(const Tensor *t, TensorDtype dt, void *out) {
    Tensor *dst = tensor_from_blob(dt, t->ndim, t->shape, NULL, out, NULL, NULL);
    if (!dst) return -1;
    int rc = tensor__copy_into(dst, t);
    tensor_decref(dst);
    return rc;
}
