/* promote.c — shape broadcasting and dtype-converting copies (copy_, to(dtype), clone, fill).
 * The promotion lattice and the conversion loops themselves are dtype.c's.
 *
 * A meta tensor (a tracer fake: no data) is refused by the library, not by its callers, so that
 * a new caller cannot forget the check: a kernel is reached either through tensor_op_run, which
 * runs none in meta mode and refuses a meta input outside it (dispatch.c run_kernel), or
 * directly, where what autograd and the binding call on fakes passes a gate that checks: a copy
 * (clone, contiguous, reshape's copy, to, copy_, cat, copy_to_buffer: tensor__copy_into or
 * tensor_clone here), a pointwise kernel (pointwise.c's binary, unary and where drivers), a write
 * (tensor__begin_inplace) or a scalar read (tensor_item).  Each refuses with PyTorch's meta
 * message, which the tracer turns into a graph break.  Before, fakes reaching clone from
 * autograd's in-place recording crashed compiled code (tests/trace/regress/fake_direct_kernels.py).
 * Not gated: the reductions, BLAS, indexing and nn kernels called directly (nothing outside the
 * library calls them on fakes today), and code that takes the data pointer itself
 * (tensor_data_ptr is NULL for a meta tensor): that code checks tensor_has_data. */
#include "src/tensor/iter.h"

#include <stdio.h>

int tensor__cast_error(TensorDtype result, TensorDtype out) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s", tensor__cname(result),
                     tensor__cname(out));
    return -1;
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

static bool overlaps(const Tensor *a, const Tensor *b) {
    return a->storage == b->storage && a->numel > 0 && b->numel > 0;
}

/* PyTorch's words for copying out of a meta tensor */
static int meta_copy_error(void) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "Cannot copy out of meta tensor; no data!");
    return -1;
}

/* Every copy the library makes outside an op (copy_, clone, contiguous, to(dtype), the copies
 * of in-place forms and of cat/stack, copy_to_buffer) comes through here or tensor_clone: a
 * tensor without data (a tracer fake) is refused on either side, as PyTorch refuses to copy out
 * of a meta tensor, so that callers outside the library (autograd's in-place recording and
 * saved copies, the binding's natives) need no check of their own. */
int tensor__copy_into(Tensor *dst, const Tensor *src) {
    if (src->storage->meta) return meta_copy_error();
    if (dst->storage->meta) return tensor__meta_data_error("copy_()");
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
    tensor__convert_run(&it, (TensorDtype)dst->dtype, (TensorDtype)src->dtype);
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
    if (t->storage->meta) return meta_copy_error(), NULL;   /* the memcpy below is a copy too */
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
    TensorDtype dt = (TensorDtype)t->dtype;
    size_t es = tensor__elsize(dt);
    union {
        double d;
        int64_t i;
        char bytes[8];
    } v;
    tensor__st_scalar(dt, v.bytes, s);
    if (tensor__contig(t)) {
        char *p = tensor__data(t);
        switch (es) {
        case 8: { int64_t x; memcpy(&x, v.bytes, 8); for (int64_t i = 0; i < t->numel; i++) ((int64_t *)p)[i] = x; break; }
        case 4: { int32_t x; memcpy(&x, v.bytes, 4); for (int64_t i = 0; i < t->numel; i++) ((int32_t *)p)[i] = x; break; }
        case 2: { int16_t x; memcpy(&x, v.bytes, 2); for (int64_t i = 0; i < t->numel; i++) ((int16_t *)p)[i] = x; break; }
        default: memset(p, v.bytes[0], (size_t)t->numel); break;
        }
        return;
    }
    /* a 0-dim source of t's dtype broadcast over t's geometry */
    Tensor src;
    TensorStorage st;
    memset(&src, 0, sizeof src);
    memset(&st, 0, sizeof st);
    src.refcount = st.refcount = 1 << 30;
    src.dtype = (uint8_t)dt;
    src.numel = 1;
    src.flags = TENSOR_F_CONTIGUOUS;
    src.storage = &st;
    st.data = v.bytes;
    st.nbytes = es;
    int rc = tensor__copy_into(t, &src);
    EM_ASSERT(rc == 0, "fill of a broadcastable scalar cannot fail");
}

int tensor_copy_to_buffer(const Tensor *t, TensorDtype dt, void *out) {
    Tensor *dst = tensor_from_blob(dt, t->ndim, t->shape, NULL, out, NULL, NULL);
    if (!dst) return -1;
    int rc = tensor__copy_into(dst, t);
    tensor_decref(dst);
    return rc;
}
