/* pointwise.c — elementwise kernels: unary, binary (tensor-tensor and tensor-scalar),
 * comparisons, logical ops, where, and their in-place forms, with PyTorch's dtype rules and
 * error messages.  Inner loops are generated per (op, dtype) and special-case contiguous and
 * broadcast-scalar operands so the common paths vectorise. */
#include "src/tensor/pointwise.h"

#include <math.h>
#include <stdio.h>

/* ---- loop generators ----------------------------------------------------------------------- */

#define BIN_LOOP(NAME, T, OT, EXPR)                                                             \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                 \
        const PwCtx *c = (const PwCtx *)vctx;                                                   \
        (void)c;                                                                                \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == (int64_t)sizeof(T)) { \
            OT *o = (OT *)d[0];                                                                 \
            const T *pa = (const T *)d[1], *pb = (const T *)d[2];                               \
            for (int64_t i = 0; i < n; i++) {                                                   \
                T x = pa[i], y = pb[i];                                                         \
                o[i] = (EXPR);                                                                  \
            }                                                                                   \
        } else if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == 0) {   \
            OT *o = (OT *)d[0];                                                                 \
            const T *pa = (const T *)d[1];                                                      \
            const T y = *(const T *)d[2];                                                       \
            for (int64_t i = 0; i < n; i++) {                                                   \
                T x = pa[i];                                                                    \
                o[i] = (EXPR);                                                                  \
            }                                                                                   \
        } else {                                                                                \
            char *o = d[0];                                                                     \
            const char *pa = d[1], *pb = d[2];                                                  \
            for (int64_t i = 0; i < n; i++) {                                                   \
                T x = *(const T *)(pa + i * s[1]), y = *(const T *)(pb + i * s[2]);             \
                *(OT *)(o + i * s[0]) = (EXPR);                                                 \
            }                                                                                   \
        }                                                                                       \
    }

#define UN_LOOP(NAME, T, OT, EXPR)                                                              \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                 \
        const PwCtx *c = (const PwCtx *)vctx;                                                   \
        (void)c;                                                                                \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T)) {                        \
            OT *o = (OT *)d[0];                                                                 \
            const T *pa = (const T *)d[1];                                                      \
            for (int64_t i = 0; i < n; i++) {                                                   \
                T x = pa[i];                                                                    \
                o[i] = (EXPR);                                                                  \
            }                                                                                   \
        } else {                                                                                \
            char *o = d[0];                                                                     \
            const char *pa = d[1];                                                              \
            for (int64_t i = 0; i < n; i++) {                                                   \
                T x = *(const T *)(pa + i * s[1]);                                              \
                *(OT *)(o + i * s[0]) = (EXPR);                                                 \
            }                                                                                   \
        }                                                                                       \
    }

/* ---- scalar helpers ------------------------------------------------------------------------- */

static inline float f_remainder(float x, float y) {
    float r = fmodf(x, y);
    if (r != 0.0f && ((r < 0.0f) != (y < 0.0f))) r += y;
    return r;
}

static inline float f_floordiv(float a, float b) {
    if (b == 0.0f) return a / b;
    float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    float fl;
    if (div != 0.0f) {
        fl = floorf(div);
        if (div - fl > 0.5f) fl += 1.0f;
    } else {
        fl = copysignf(0.0f, a / b);
    }
    return fl;
}

static inline int64_t i_remainder(int64_t x, int64_t y) {
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}

static inline int64_t i_floordiv(int64_t x, int64_t y) {
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}

static inline int64_t i_pow(int64_t b, int64_t e) {
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    int64_t r = 1;
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}

static inline float f_max(float x, float y) { return (isnan(x) || isnan(y)) ? NAN : (x > y ? x : y); }
static inline float f_min(float x, float y) { return (isnan(x) || isnan(y)) ? NAN : (x < y ? x : y); }
static inline float f_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline float f_gelu(float x, bool approx) {
    if (approx) {
        const float k = 0.7978845608028654f; /* sqrt(2/pi) */
        return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
    }
    return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
}
static inline float f_sign(float x) { return (float)((x > 0.0f) - (x < 0.0f)); }
static inline float f_clamp(float x, const PwCtx *c) {
    if (isnan(x)) return x;
    if (c->has_lo && x < c->f0) x = c->f0;
    if (c->has_hi && x > c->f1) x = c->f1;
    return x;
}
static inline int64_t i_clamp(int64_t x, const PwCtx *c) {
    if (c->has_lo && x < c->i0) x = c->i0;
    if (c->has_hi && x > c->i1) x = c->i1;
    return x;
}

/* ---- binary loops ---------------------------------------------------------------------------- */

BIN_LOOP(add1_f, float, float, x + y)
BIN_LOOP(add_f, float, float, x + c->f0 * y)
BIN_LOOP(mul_f, float, float, x *y)
BIN_LOOP(div_f, float, float, x / y)
BIN_LOOP(pow_f, float, float, powf(x, y))
BIN_LOOP(max_f, float, float, f_max(x, y))
BIN_LOOP(min_f, float, float, f_min(x, y))
BIN_LOOP(rem_f, float, float, f_remainder(x, y))
BIN_LOOP(fdiv_f, float, float, f_floordiv(x, y))
BIN_LOOP(add_i, int64_t, int64_t, x + c->i0 * y)
BIN_LOOP(mul_i, int64_t, int64_t, x *y)
BIN_LOOP(pow_i, int64_t, int64_t, i_pow(x, y))
BIN_LOOP(max_i, int64_t, int64_t, x > y ? x : y)
BIN_LOOP(min_i, int64_t, int64_t, x < y ? x : y)
BIN_LOOP(rem_i, int64_t, int64_t, i_remainder(x, y))
BIN_LOOP(fdiv_i, int64_t, int64_t, i_floordiv(x, y))
BIN_LOOP(or_b, bool, bool, x || y)
BIN_LOOP(and_b, bool, bool, x &&y)
BIN_LOOP(xor_b, bool, bool, x != y)

#define CMP_LOOPS(T, SUF)                                                                       \
    BIN_LOOP(eq_##SUF, T, bool, x == y)                                                         \
    BIN_LOOP(ne_##SUF, T, bool, x != y)                                                         \
    BIN_LOOP(lt_##SUF, T, bool, x < y)                                                          \
    BIN_LOOP(le_##SUF, T, bool, x <= y)                                                         \
    BIN_LOOP(gt_##SUF, T, bool, x > y)                                                          \
    BIN_LOOP(ge_##SUF, T, bool, x >= y)
CMP_LOOPS(float, f)
CMP_LOOPS(int64_t, i)
CMP_LOOPS(bool, b)

/* ---- unary loops ----------------------------------------------------------------------------- */

UN_LOOP(neg_f, float, float, -x)
UN_LOOP(abs_f, float, float, fabsf(x))
UN_LOOP(exp_f, float, float, expf(x))
UN_LOOP(log_f, float, float, logf(x))
UN_LOOP(sqrt_f, float, float, sqrtf(x))
UN_LOOP(rsqrt_f, float, float, 1.0f / sqrtf(x))
UN_LOOP(tanh_f, float, float, tanhf(x))
UN_LOOP(sigmoid_f, float, float, f_sigmoid(x))
UN_LOOP(relu_f, float, float, (x > 0.0f || x != x) ? x : 0.0f)
UN_LOOP(gelu_f, float, float, f_gelu(x, c->approx))
UN_LOOP(silu_f, float, float, x *f_sigmoid(x))
UN_LOOP(leaky_f, float, float, x > 0.0f ? x : x * c->f0)
UN_LOOP(erf_f, float, float, erff(x))
UN_LOOP(sin_f, float, float, sinf(x))
UN_LOOP(cos_f, float, float, cosf(x))
UN_LOOP(sign_f, float, float, f_sign(x))
UN_LOOP(recip_f, float, float, 1.0f / x)
UN_LOOP(clamp_f, float, float, f_clamp(x, c))
UN_LOOP(floor_f, float, float, floorf(x))
UN_LOOP(ceil_f, float, float, ceilf(x))
UN_LOOP(round_f, float, float, nearbyintf(x))
UN_LOOP(copy_f, float, float, x)
UN_LOOP(neg_i, int64_t, int64_t, -x)
UN_LOOP(abs_i, int64_t, int64_t, x < 0 ? -x : x)
UN_LOOP(relu_i, int64_t, int64_t, x > 0 ? x : 0)
UN_LOOP(sign_i, int64_t, int64_t, (x > 0) - (x < 0))
UN_LOOP(clamp_i, int64_t, int64_t, i_clamp(x, c))
UN_LOOP(copy_i, int64_t, int64_t, x)
UN_LOOP(copy_b, bool, bool, x)
UN_LOOP(not_b, bool, bool, !x)

static void where_loop(char **d, const int64_t *s, int64_t n, const void *vctx) {
    size_t es = *(const size_t *)vctx;
    for (int64_t i = 0; i < n; i++) {
        bool cnd = *(const bool *)(d[1] + i * s[1]);
        const char *src = cnd ? d[2] + i * s[2] : d[3] + i * s[3];
        memcpy(d[0] + i * s[0], src, es);
    }
}

/* ---- stack scalars: a 0-dim tensor over a local value, for scalar operands ------------------- */

typedef struct StackScalar {
    Tensor t;
    TensorStorage st;
    union {
        float f;
        int64_t i;
        bool b;
    } v;
} StackScalar;

static Tensor *stack_scalar(StackScalar *ss, TensorScalar s, TensorDtype dt) {
    memset(&ss->t, 0, sizeof ss->t);
    memset(&ss->st, 0, sizeof ss->st);
    ss->t.refcount = 1 << 30; /* never freed */
    ss->t.dtype = (uint8_t)dt;
    ss->t.numel = 1;
    ss->t.flags = TENSOR_F_CONTIGUOUS | TENSOR_F_WRAPPED_NUMBER;
    ss->t.storage = &ss->st;
    ss->st.refcount = 1 << 30;
    ss->st.data = &ss->v;
    ss->st.nbytes = sizeof ss->v;
    if (dt == TENSOR_FLOAT32)
        ss->v.f = s.kind == TENSOR_FLOAT32 ? (float)s.f : (float)s.i;
    else if (dt == TENSOR_INT64)
        ss->v.i = s.kind == TENSOR_FLOAT32 ? (int64_t)s.f : s.i;
    else
        ss->v.b = s.kind == TENSOR_FLOAT32 ? s.f != 0.0 : s.i != 0;
    return &ss->t;
}

Tensor *tensor_scalar_tensor(TensorScalar s, TensorDtype dt) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = s.kind;
    Tensor *t = tensor__new(dt, 0, NULL, false);
    if (!t) return NULL;
    StackScalar ss;
    stack_scalar(&ss, s, dt);
    memcpy(t->storage->data, &ss.v, tensor__elsize(dt));
    return t;
}

/* ---- binary driver --------------------------------------------------------------------------- */

static bool is_cmp(TensorOp op) { return op >= TENSOR_OP_EQ && op <= TENSOR_OP_GE; }
static bool is_logical(TensorOp op) {
    return op == TENSOR_OP_LOGICAL_AND || op == TENSOR_OP_LOGICAL_OR || op == TENSOR_OP_LOGICAL_XOR;
}

static TensorLoopFn binary_loop(TensorOp op, TensorDtype ct, const PwCtx *c) {
    static const TensorLoopFn cmp[3][6] = {
        {eq_f, ne_f, lt_f, le_f, gt_f, ge_f},
        {eq_i, ne_i, lt_i, le_i, gt_i, ge_i},
        {eq_b, ne_b, lt_b, le_b, gt_b, ge_b},
    };
    if (is_cmp(op)) return cmp[ct][op - TENSOR_OP_EQ];
    switch (op) {
    case TENSOR_OP_LOGICAL_AND: return and_b;
    case TENSOR_OP_LOGICAL_OR: return or_b;
    case TENSOR_OP_LOGICAL_XOR: return xor_b;
    default: break;
    }
    if (ct == TENSOR_FLOAT32) {
        switch (op) {
        case TENSOR_OP_ADD: return c->f0 == 1.0f ? add1_f : add_f;
        case TENSOR_OP_MUL: return mul_f;
        case TENSOR_OP_DIV: return div_f;
        case TENSOR_OP_POW: return pow_f;
        case TENSOR_OP_MAXIMUM: return max_f;
        case TENSOR_OP_MINIMUM: return min_f;
        case TENSOR_OP_REMAINDER: return rem_f;
        case TENSOR_OP_FLOOR_DIVIDE: return fdiv_f;
        default: return NULL;
        }
    }
    if (ct == TENSOR_INT64) {
        switch (op) {
        case TENSOR_OP_ADD: return add_i;
        case TENSOR_OP_MUL: return mul_i;
        case TENSOR_OP_POW: return pow_i;
        case TENSOR_OP_MAXIMUM: return max_i;
        case TENSOR_OP_MINIMUM: return min_i;
        case TENSOR_OP_REMAINDER: return rem_i;
        case TENSOR_OP_FLOOR_DIVIDE: return fdiv_i;
        default: return NULL;
        }
    }
    switch (op) { /* bool arithmetic stays bool: + is or, * is and */
    case TENSOR_OP_ADD: return or_b;
    case TENSOR_OP_MUL: return and_b;
    case TENSOR_OP_MAXIMUM: return or_b;
    case TENSOR_OP_MINIMUM: return and_b;
    default: return NULL;
    }
}

static int check_int_divisor(const Tensor *b) {
    /* b is int64 here; PyTorch raises before computing anything */
    for (int64_t i = 0; i < b->numel; i++) {
        int64_t idx[TENSOR_MAX_DIMS], rem = i;
        for (int d = b->ndim - 1; d >= 0; d--) {
            idx[d] = rem % b->shape[d];
            rem /= b->shape[d];
        }
        if (tensor_get_i64(b, idx) == 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "ZeroDivisionError");
            return -1;
        }
    }
    return 0;
}

/* Computes a (op) b into a new tensor, or into `out` (in-place: out == a). The scalar forms
 * pass b as a StackScalar. alpha applies to ADD/SUB. */
int tensor__binary_dtype(TensorOp op, TensorDtype da, TensorDtype db, TensorScalar alpha, TensorDtype *compute,
                         TensorDtype *result) {
    if (op == TENSOR_OP_SUB && (da == TENSOR_BOOL || db == TENSOR_BOOL)) {
        if (da == TENSOR_BOOL && db == TENSOR_BOOL)
            tensor_error_set(TENSOR_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                                 "Use the `^` or `logical_xor()` operator instead.");
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                                                 "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        return -1;
    }
    TensorDtype ct = tensor__promote(da, db);
    if (op == TENSOR_OP_DIV) ct = TENSOR_FLOAT32;
    if (is_logical(op)) ct = TENSOR_BOOL;
    if ((op == TENSOR_OP_ADD || op == TENSOR_OP_SUB) && alpha.kind == TENSOR_FLOAT32 && ct != TENSOR_FLOAT32) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
        return -1;
    }
    if (ct == TENSOR_BOOL && !is_cmp(op) && !is_logical(op) &&
        !(op == TENSOR_OP_ADD || op == TENSOR_OP_MUL || op == TENSOR_OP_MAXIMUM || op == TENSOR_OP_MINIMUM)) {
        /* pow, remainder, floor_divide on two bools compute in int64 as PyTorch does */
        ct = TENSOR_INT64;
    }
    *compute = ct;
    *result = (is_cmp(op) || is_logical(op)) ? TENSOR_BOOL : ct;
    return 0;
}

/* Computes a (op) b into a new tensor, or into `out` (in-place: out == a). The scalar forms
 * pass b as a StackScalar. alpha applies to ADD/SUB. */
Tensor *tensor__binary(TensorOp op, const Tensor *a, const Tensor *b, TensorScalar alpha, Tensor *out) {
    TensorDtype da = (TensorDtype)a->dtype, db = (TensorDtype)b->dtype;
    TensorDtype ct, odt;
    if (tensor__binary_dtype(op, da, db, alpha, &ct, &odt) < 0) return NULL;
    if (op == TENSOR_OP_SUB) {
        op = TENSOR_OP_ADD;
        alpha.f = -alpha.f;
        alpha.i = -alpha.i;
    }

    PwCtx c = {0};
    c.f0 = alpha.kind == TENSOR_FLOAT32 ? (float)alpha.f : (float)alpha.i;
    c.i0 = alpha.kind == TENSOR_FLOAT32 ? (int64_t)alpha.f : alpha.i;

    /* fast path: same shape, contiguous, same dtype, new output */
    if (!out && da == ct && db == ct && a->ndim == b->ndim && tensor__contig(a) && tensor__contig(b) &&
        memcmp(a->shape, b->shape, sizeof(int64_t) * a->ndim) == 0 &&
        !((op == TENSOR_OP_REMAINDER || op == TENSOR_OP_FLOOR_DIVIDE) && ct == TENSOR_INT64)) {
        Tensor *r = tensor__new(odt, a->ndim, a->shape, false);
        if (!r) return NULL;
        char *data[3] = {r->storage->data, tensor__data(a), tensor__data(b)};
        int64_t es = (int64_t)tensor__elsize(ct), eo = (int64_t)tensor__elsize(odt);
        int64_t strides[3] = {eo, es, es};
        binary_loop(op, ct, &c)(data, strides, a->numel, &c);
        return r;
    }

    int nd;
    int64_t shp[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(a->ndim, a->shape, b->ndim, b->shape, &nd, shp) < 0) return NULL;
    if (out) {
        if (tensor__category(ct) > tensor__category((TensorDtype)out->dtype)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                             ct == TENSOR_FLOAT32 ? "Float" : ct == TENSOR_INT64 ? "Long" : "Bool",
                             out->dtype == TENSOR_FLOAT32 ? "Float" : out->dtype == TENSOR_INT64 ? "Long" : "Bool");
            return NULL;
        }
        if (nd != out->ndim || memcmp(shp, out->shape, sizeof(int64_t) * (size_t)nd) != 0) {
            char b1[256], b2[256];
            tensor__format_shape(b1, sizeof b1, out->ndim, out->shape);
            tensor__format_shape(b2, sizeof b2, nd, shp);
            tensor_error_set(TENSOR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
            return NULL;
        }
    }
    Tensor *ca = tensor__as_dtype(a, ct);
    if (!ca) return NULL;
    Tensor *cb = NULL;
    if (out && b->storage == out->storage && b != out &&
        !(b->offset == out->offset && b->ndim == out->ndim &&
          memcmp(b->strides, out->strides, sizeof(int64_t) * b->ndim) == 0)) {
        Tensor *tmp = tensor_clone(b);
        if (!tmp) goto fail;
        cb = tensor__as_dtype(tmp, ct);
        tensor_decref(tmp);
    } else {
        cb = tensor__as_dtype(b, ct);
    }
    if (!cb) goto fail;
    if (ct == TENSOR_INT64 && (op == TENSOR_OP_REMAINDER || op == TENSOR_OP_FLOOR_DIVIDE) && check_int_divisor(cb) < 0)
        goto fail;
    Tensor *r = out;
    if (!r) {
        r = tensor__new(odt, nd, shp, false);
        if (!r) goto fail;
    } else {
        tensor_incref(r);
    }
    if (r->dtype != odt) { /* in-place into a wider dtype: compute then convert */
        Tensor *tmp = tensor__new(odt, nd, shp, false);
        if (!tmp) {
            tensor_decref(r);
            goto fail;
        }
        TensorIter it;
        const Tensor *ops[3] = {tmp, ca, cb};
        tensor__iter_init(&it, 3, ops, nd, shp);
        tensor__iter_run(&it, binary_loop(op, ct, &c), &c);
        int rc = tensor__copy_into(r, tmp);
        tensor_decref(tmp);
        EM_ASSERT(rc == 0, "same-shape copy");
    } else {
        TensorIter it;
        const Tensor *ops[3] = {r, ca, cb};
        tensor__iter_init(&it, 3, ops, nd, shp);
        tensor__iter_run(&it, binary_loop(op, ct, &c), &c);
    }
    tensor_decref(ca);
    tensor_decref(cb);
    return r;
fail:
    tensor_decref(ca);
    tensor_decref(cb);
    return NULL;
}

Tensor *tensor__binary_scalar(TensorOp op, const Tensor *a, TensorScalar s, TensorScalar alpha, Tensor *out) {
    StackScalar ss;
    TensorDtype sdt = s.kind;
    Tensor *b = stack_scalar(&ss, s, sdt);
    switch (op) {
    case TENSOR_OP_ADD_SCALAR: case TENSOR_OP_ADD_SCALAR_: op = TENSOR_OP_ADD; break;
    case TENSOR_OP_SUB_SCALAR: case TENSOR_OP_SUB_SCALAR_: op = TENSOR_OP_SUB; break;
    case TENSOR_OP_MUL_SCALAR: case TENSOR_OP_MUL_SCALAR_: op = TENSOR_OP_MUL; break;
    case TENSOR_OP_DIV_SCALAR: case TENSOR_OP_DIV_SCALAR_: op = TENSOR_OP_DIV; break;
    case TENSOR_OP_POW_SCALAR:
        op = TENSOR_OP_POW;
        if (tensor__category((TensorDtype)a->dtype) != TENSOR_CAT_FLOAT && s.kind != TENSOR_FLOAT32 && s.i < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
            return NULL;
        }
        break;
    case TENSOR_OP_REMAINDER_SCALAR: op = TENSOR_OP_REMAINDER; break;
    case TENSOR_OP_FLOOR_DIVIDE_SCALAR: op = TENSOR_OP_FLOOR_DIVIDE; break;
    case TENSOR_OP_EQ_SCALAR: op = TENSOR_OP_EQ; break;
    case TENSOR_OP_NE_SCALAR: op = TENSOR_OP_NE; break;
    case TENSOR_OP_LT_SCALAR: op = TENSOR_OP_LT; break;
    case TENSOR_OP_LE_SCALAR: op = TENSOR_OP_LE; break;
    case TENSOR_OP_GT_SCALAR: op = TENSOR_OP_GT; break;
    case TENSOR_OP_GE_SCALAR: op = TENSOR_OP_GE; break;
    case TENSOR_OP_RSUB_SCALAR: {
        /* s - alpha * a */
        Tensor *sa = tensor__binary_scalar(TENSOR_OP_MUL_SCALAR, a, alpha, tensor_scalar_i(1), NULL);
        if (!sa) return NULL;
        Tensor *r = tensor__binary(TENSOR_OP_SUB, b, sa, tensor_scalar_i(1), NULL);
        tensor_decref(sa);
        return r;
    }
    case TENSOR_OP_RPOW_SCALAR: return tensor__binary(TENSOR_OP_POW, b, a, alpha, NULL);
    default: break;
    }
    return tensor__binary(op, a, b, alpha, out);
}

/* ---- unary driver ---------------------------------------------------------------------------- */

static bool unary_is_floating(TensorOp op) {
    switch (op) {
    case TENSOR_OP_EXP: case TENSOR_OP_LOG: case TENSOR_OP_SQRT: case TENSOR_OP_RSQRT: case TENSOR_OP_TANH:
    case TENSOR_OP_SIGMOID: case TENSOR_OP_GELU: case TENSOR_OP_SILU: case TENSOR_OP_SIN: case TENSOR_OP_COS: case TENSOR_OP_ERF:
    case TENSOR_OP_RECIPROCAL: case TENSOR_OP_LEAKY_RELU:
        return true;
    default: return false;
    }
}

static const char *dtype_cname(TensorDtype d) { return d == TENSOR_FLOAT32 ? "Float" : d == TENSOR_INT64 ? "Long" : "Bool"; }

int tensor__unary_dtype(TensorOp op, TensorDtype dt, bool clamp_float, TensorDtype *result) {
    TensorDtype ct = dt;
    if (op == TENSOR_OP_LEAKY_RELU && dt != TENSOR_FLOAT32) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"leaky_relu_cpu\" not implemented for '%s'", dtype_cname(dt));
        return -1;
    }
    if (unary_is_floating(op)) ct = TENSOR_FLOAT32;
    if (op == TENSOR_OP_LOGICAL_NOT) ct = TENSOR_BOOL;
    if (op == TENSOR_OP_CLAMP && clamp_float) ct = TENSOR_FLOAT32;
    if (ct == TENSOR_BOOL && op != TENSOR_OP_LOGICAL_NOT) {
        switch (op) {
        case TENSOR_OP_NEG:
            tensor_error_set(TENSOR_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported. "
                                                 "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
            return -1;
        case TENSOR_OP_RELU: tensor_error_set(TENSOR_ERR_RUNTIME, "Boolean inputs not supported for relu"); return -1;
        case TENSOR_OP_ABS: tensor_error_set(TENSOR_ERR_RUNTIME, "\"abs_cpu\" not implemented for 'Bool'"); return -1;
        case TENSOR_OP_CLAMP: ct = TENSOR_INT64; break;
        default: break; /* sign, floor, ceil, round, clone: identity on bools */
        }
    }
    *result = ct;
    return 0;
}

Tensor *tensor__unary(TensorOp op, const Tensor *a, const PwCtx *c, Tensor *out) {
    TensorDtype ct;
    TensorLoopFn fn = NULL;
    if (tensor__unary_dtype(op, (TensorDtype)a->dtype, c->clamp_float, &ct) < 0) return NULL;
    if (ct == TENSOR_FLOAT32) {
        switch (op) {
        case TENSOR_OP_NEG: fn = neg_f; break;
        case TENSOR_OP_ABS: fn = abs_f; break;
        case TENSOR_OP_EXP: fn = exp_f; break;
        case TENSOR_OP_LOG: fn = log_f; break;
        case TENSOR_OP_SQRT: fn = sqrt_f; break;
        case TENSOR_OP_RSQRT: fn = rsqrt_f; break;
        case TENSOR_OP_TANH: fn = tanh_f; break;
        case TENSOR_OP_SIGMOID: fn = sigmoid_f; break;
        case TENSOR_OP_RELU: fn = relu_f; break;
        case TENSOR_OP_GELU: fn = gelu_f; break;
        case TENSOR_OP_SILU: fn = silu_f; break;
        case TENSOR_OP_LEAKY_RELU: fn = leaky_f; break;
        case TENSOR_OP_ERF: fn = erf_f; break;
        case TENSOR_OP_SIN: fn = sin_f; break;
        case TENSOR_OP_COS: fn = cos_f; break;
        case TENSOR_OP_SIGN: fn = sign_f; break;
        case TENSOR_OP_RECIPROCAL: fn = recip_f; break;
        case TENSOR_OP_CLAMP: fn = clamp_f; break;
        case TENSOR_OP_FLOOR: fn = floor_f; break;
        case TENSOR_OP_CEIL: fn = ceil_f; break;
        case TENSOR_OP_ROUND: fn = round_f; break;
        default: fn = copy_f; break;
        }
    } else if (ct == TENSOR_INT64) {
        switch (op) {
        case TENSOR_OP_NEG: fn = neg_i; break;
        case TENSOR_OP_ABS: fn = abs_i; break;
        case TENSOR_OP_RELU: fn = relu_i; break;
        case TENSOR_OP_SIGN: fn = sign_i; break;
        case TENSOR_OP_CLAMP: fn = clamp_i; break;
        default: fn = copy_i; break;
        }
    } else {
        fn = op == TENSOR_OP_LOGICAL_NOT ? not_b : copy_b;
    }
    if (out && tensor__category(ct) > tensor__category((TensorDtype)out->dtype)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                         dtype_cname(ct), dtype_cname((TensorDtype)out->dtype));
        return NULL;
    }
    Tensor *ca = tensor__as_dtype(a, ct);
    if (!ca) return NULL;
    Tensor *r = out;
    if (r && (TensorDtype)r->dtype != ct) {
        Tensor *tmp = tensor__unary(op, ca, c, NULL);
        tensor_decref(ca);
        if (!tmp) return NULL;
        int rc = tensor__copy_into(r, tmp);
        tensor_decref(tmp);
        if (rc < 0) return NULL;
        tensor_incref(r);
        return r;
    }
    if (!r) {
        r = tensor__new(ct, a->ndim, a->shape, false);
        if (!r) {
            tensor_decref(ca);
            return NULL;
        }
    } else {
        tensor_incref(r);
    }
    if (tensor__contig(r) && tensor__contig(ca)) {
        char *data[2] = {tensor__data(r), tensor__data(ca)};
        int64_t es = (int64_t)tensor__elsize(ct);
        int64_t strides[2] = {es, es};
        fn(data, strides, r->numel, c);
    } else {
        TensorIter it;
        const Tensor *ops[2] = {r, ca};
        tensor__iter_init(&it, 2, ops, r->ndim, r->shape);
        tensor__iter_run(&it, fn, c);
    }
    tensor_decref(ca);
    return r;
}

/* clamp: bounds are Python numbers; a float bound makes an int tensor's result float. */
void tensor__clamp_ctx(PwCtx *c, const TensorScalar *min, const TensorScalar *max) {
    memset(c, 0, sizeof *c);
    if (min) {
        c->has_lo = true;
        c->f0 = min->kind == TENSOR_FLOAT32 ? (float)min->f : (float)min->i;
        c->i0 = min->kind == TENSOR_FLOAT32 ? (int64_t)min->f : min->i;
        if (min->kind == TENSOR_FLOAT32) c->clamp_float = true;
    }
    if (max) {
        c->has_hi = true;
        c->f1 = max->kind == TENSOR_FLOAT32 ? (float)max->f : (float)max->i;
        c->i1 = max->kind == TENSOR_FLOAT32 ? (int64_t)max->f : max->i;
        if (max->kind == TENSOR_FLOAT32) c->clamp_float = true;
    }
}

Tensor *tensor__where(const Tensor *cond, const Tensor *a, const Tensor *b) {
    if (cond->dtype != TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                         dtype_cname((TensorDtype)cond->dtype));
        return NULL;
    }
    int n1, n2;
    int64_t s1[TENSOR_MAX_DIMS], s2[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(cond->ndim, cond->shape, a->ndim, a->shape, &n1, s1) < 0) return NULL;
    if (tensor__broadcast_shapes(n1, s1, b->ndim, b->shape, &n2, s2) < 0) return NULL;
    TensorDtype ct = tensor__promote((TensorDtype)a->dtype, (TensorDtype)b->dtype);
    Tensor *ca = tensor__as_dtype(a, ct), *cb = ca ? tensor__as_dtype(b, ct) : NULL;
    Tensor *r = cb ? tensor__new(ct, n2, s2, false) : NULL;
    if (r) {
        TensorIter it;
        const Tensor *ops[4] = {r, cond, ca, cb};
        tensor__iter_init(&it, 4, ops, n2, s2);
        size_t es = tensor__elsize(ct);
        tensor__iter_run(&it, where_loop, &es);
    }
    tensor_decref(ca);
    tensor_decref(cb);
    return r;
}

/* ---- public wrappers ---------------------------------------------------------------------------- */

static const TensorScalar one = {1.0, 1, TENSOR_INT64};

Tensor *tensor_add(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_ADD, a, b, one, NULL); }
Tensor *tensor_add_alpha(const Tensor *a, const Tensor *b, TensorScalar alpha) { return tensor__binary(TENSOR_OP_ADD, a, b, alpha, NULL); }
Tensor *tensor_sub(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_SUB, a, b, one, NULL); }
Tensor *tensor_mul(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_MUL, a, b, one, NULL); }
Tensor *tensor_div(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_DIV, a, b, one, NULL); }
Tensor *tensor_pow(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_POW, a, b, one, NULL); }
Tensor *tensor_maximum(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_MAXIMUM, a, b, one, NULL); }
Tensor *tensor_minimum(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_MINIMUM, a, b, one, NULL); }
Tensor *tensor_remainder(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_REMAINDER, a, b, one, NULL); }
Tensor *tensor_floor_divide(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_FLOOR_DIVIDE, a, b, one, NULL); }
Tensor *tensor_eq(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_EQ, a, b, one, NULL); }
Tensor *tensor_ne(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_NE, a, b, one, NULL); }
Tensor *tensor_lt(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_LT, a, b, one, NULL); }
Tensor *tensor_le(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_LE, a, b, one, NULL); }
Tensor *tensor_gt(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_GT, a, b, one, NULL); }
Tensor *tensor_ge(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_GE, a, b, one, NULL); }
Tensor *tensor_logical_and(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_LOGICAL_AND, a, b, one, NULL); }
Tensor *tensor_logical_or(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_LOGICAL_OR, a, b, one, NULL); }
Tensor *tensor_logical_xor(const Tensor *a, const Tensor *b) { return tensor__binary(TENSOR_OP_LOGICAL_XOR, a, b, one, NULL); }
Tensor *tensor_add_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_ADD_SCALAR, a, s, one, NULL); }
Tensor *tensor_sub_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_SUB_SCALAR, a, s, one, NULL); }
Tensor *tensor_mul_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_MUL_SCALAR, a, s, one, NULL); }
Tensor *tensor_div_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_DIV_SCALAR, a, s, one, NULL); }
Tensor *tensor_pow_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_POW_SCALAR, a, s, one, NULL); }
Tensor *tensor_rsub_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_RSUB_SCALAR, a, s, one, NULL); }
Tensor *tensor_rpow_scalar(const Tensor *a, TensorScalar s) { return tensor__binary_scalar(TENSOR_OP_RPOW_SCALAR, a, s, one, NULL); }
Tensor *tensor_cmp_scalar(TensorOp op, const Tensor *a, TensorScalar s) {
    if (op < TENSOR_OP_EQ_SCALAR || op > TENSOR_OP_GE_SCALAR) {
        tensor_error_set(TENSOR_ERR_VALUE, "tensor_cmp_scalar: not a comparison op");
        return NULL;
    }
    return tensor__binary_scalar(op, a, s, one, NULL);
}
Tensor *tensor_where(const Tensor *cond, const Tensor *a, const Tensor *b) { return tensor__where(cond, a, b); }

Tensor *tensor_unary(TensorOp op, const Tensor *a) {
    PwCtx c = {0};
    return tensor__unary(op, a, &c, NULL);
}
Tensor *tensor_neg(const Tensor *a) { return tensor_unary(TENSOR_OP_NEG, a); }
Tensor *tensor_abs(const Tensor *a) { return tensor_unary(TENSOR_OP_ABS, a); }
Tensor *tensor_exp(const Tensor *a) { return tensor_unary(TENSOR_OP_EXP, a); }
Tensor *tensor_log(const Tensor *a) { return tensor_unary(TENSOR_OP_LOG, a); }
Tensor *tensor_sqrt(const Tensor *a) { return tensor_unary(TENSOR_OP_SQRT, a); }
Tensor *tensor_rsqrt(const Tensor *a) { return tensor_unary(TENSOR_OP_RSQRT, a); }
Tensor *tensor_tanh(const Tensor *a) { return tensor_unary(TENSOR_OP_TANH, a); }
Tensor *tensor_sigmoid(const Tensor *a) { return tensor_unary(TENSOR_OP_SIGMOID, a); }
Tensor *tensor_relu(const Tensor *a) { return tensor_unary(TENSOR_OP_RELU, a); }
Tensor *tensor_silu(const Tensor *a) { return tensor_unary(TENSOR_OP_SILU, a); }
Tensor *tensor_sin(const Tensor *a) { return tensor_unary(TENSOR_OP_SIN, a); }
Tensor *tensor_cos(const Tensor *a) { return tensor_unary(TENSOR_OP_COS, a); }
Tensor *tensor_erf(const Tensor *a) { return tensor_unary(TENSOR_OP_ERF, a); }
Tensor *tensor_floor(const Tensor *a) { return tensor_unary(TENSOR_OP_FLOOR, a); }
Tensor *tensor_ceil(const Tensor *a) { return tensor_unary(TENSOR_OP_CEIL, a); }
Tensor *tensor_round(const Tensor *a) { return tensor_unary(TENSOR_OP_ROUND, a); }
Tensor *tensor_sign(const Tensor *a) { return tensor_unary(TENSOR_OP_SIGN, a); }
Tensor *tensor_reciprocal(const Tensor *a) { return tensor_unary(TENSOR_OP_RECIPROCAL, a); }
Tensor *tensor_logical_not(const Tensor *a) { return tensor_unary(TENSOR_OP_LOGICAL_NOT, a); }
Tensor *tensor_gelu(const Tensor *a, bool tanh_approximation) {
    PwCtx c = {0};
    c.approx = tanh_approximation;
    return tensor__unary(TENSOR_OP_GELU, a, &c, NULL);
}
Tensor *tensor_leaky_relu(const Tensor *a, double negative_slope) {
    PwCtx c = {0};
    c.f0 = (float)negative_slope;
    return tensor__unary(TENSOR_OP_LEAKY_RELU, a, &c, NULL);
}
Tensor *tensor_clamp(const Tensor *a, const TensorScalar *min, const TensorScalar *max) {
    PwCtx c;
    tensor__clamp_ctx(&c, min, max);
    return tensor__unary(TENSOR_OP_CLAMP, a, &c, NULL);
}

/* ---- in place ------------------------------------------------------------------------------------ */

static int finish_inplace(Tensor *r) {
    if (!r) return -1;
    tensor_decref(r);
    return 0;
}

int tensor__inplace_binary(TensorOp op, Tensor *a, const Tensor *b, TensorScalar alpha) {
    if (tensor__begin_inplace(a) < 0) return -1;
    return finish_inplace(tensor__binary(op, a, b, alpha, a));
}

int tensor__inplace_binary_scalar(TensorOp op, Tensor *a, TensorScalar s, TensorScalar alpha) {
    if (tensor__begin_inplace(a) < 0) return -1;
    return finish_inplace(tensor__binary_scalar(op, a, s, alpha, a));
}

int tensor_add_(Tensor *a, const Tensor *b, TensorScalar alpha) { return tensor__inplace_binary(TENSOR_OP_ADD, a, b, alpha); }
int tensor_sub_(Tensor *a, const Tensor *b, TensorScalar alpha) { return tensor__inplace_binary(TENSOR_OP_SUB, a, b, alpha); }
int tensor_mul_(Tensor *a, const Tensor *b) { return tensor__inplace_binary(TENSOR_OP_MUL, a, b, one); }
int tensor_div_(Tensor *a, const Tensor *b) { return tensor__inplace_binary(TENSOR_OP_DIV, a, b, one); }
int tensor_add_scalar_(Tensor *a, TensorScalar s, TensorScalar alpha) {
    return tensor__inplace_binary_scalar(TENSOR_OP_ADD_SCALAR_, a, s, alpha);
}
int tensor_mul_scalar_(Tensor *a, TensorScalar s) { return tensor__inplace_binary_scalar(TENSOR_OP_MUL_SCALAR_, a, s, one); }
int tensor_div_scalar_(Tensor *a, TensorScalar s) { return tensor__inplace_binary_scalar(TENSOR_OP_DIV_SCALAR_, a, s, one); }

int tensor_zero_(Tensor *a) {
    if (tensor__begin_inplace(a) < 0) return -1;
    if (tensor__contig(a))
        memset(tensor__data(a), 0, (size_t)a->numel * tensor__elsize((TensorDtype)a->dtype));
    else
        tensor__fill_raw(a, tensor_scalar_i(0));
    return 0;
}

int tensor_fill_(Tensor *a, TensorScalar s) {
    if (tensor__begin_inplace(a) < 0) return -1;
    tensor__fill_raw(a, s);
    return 0;
}

int tensor_copy_(Tensor *dst, const Tensor *src) {
    if (tensor__begin_inplace(dst) < 0) return -1;
    return tensor__copy_into(dst, src);
}

int tensor_clamp_(Tensor *a, const TensorScalar *min, const TensorScalar *max) {
    PwCtx c;
    tensor__clamp_ctx(&c, min, max);
    if (a->dtype != TENSOR_FLOAT32 && c.clamp_float) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "result type Float can't be cast to the desired output type %s",
                         dtype_cname((TensorDtype)a->dtype));
        return -1;
    }
    if (tensor__begin_inplace(a) < 0) return -1;
    return finish_inplace(tensor__unary(TENSOR_OP_CLAMP, a, &c, a));
}

int tensor_relu_(Tensor *a) {
    if (a->dtype == TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Boolean inputs not supported for relu");
        return -1;
    }
    if (tensor__begin_inplace(a) < 0) return -1;
    PwCtx c = {0};
    return finish_inplace(tensor__unary(TENSOR_OP_RELU, a, &c, a));
}
