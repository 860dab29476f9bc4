/* scatter.c — the scatter family: scatter (a src tensor or a value; reduce='add'/'multiply'),
 * scatter_add and scatter_reduce (sum, prod, mean, amax, amin; include_self), with ATen's checks
 * and messages (gather_scatter_check / scatter_shape_check).  The result is a contiguous clone of
 * self written through one loop over the index: the index's last dim is the inner loop, and each
 * (dtype, reduction) pair has its own inner body (float32 / float64 / int64 natively, other dtypes
 * through dtype.h's loads and stores), so scatter_add over float32 is one add per element. */
#include "src/tensor/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- checks -------------------------------------------------------------------------------------- */

static int scatter_check(const TensorMeta *self, const TensorMeta *index, const TensorMeta *src, int64_t dim) {
    if (index->dtype != TENSOR_INT64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
        return -1;
    }
    if (src && src->dtype != self->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
        return -1;
    }
    int snd = self->ndim ? self->ndim : 1, ind = index->ndim ? index->ndim : 1;
    if (snd != ind) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Index tensor must have the same number of dimensions as self tensor");
        return -1;
    }
    if (src && (src->ndim ? src->ndim : 1) != ind) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Index tensor must have the same number of dimensions as src tensor");
        return -1;
    }
    bool bad = false;
    for (int d = 0; d < index->ndim; d++) {
        if (d != dim && index->shape[d] > (self->ndim ? self->shape[d] : 1)) bad = true;
        if (src && index->shape[d] > (src->ndim ? src->shape[d] : 1)) bad = true;
    }
    if (bad) {
        char bi[256], bs[256], br[256];
        tensor__format_shape(bi, sizeof bi, index->ndim, index->shape);
        tensor__format_shape(bs, sizeof bs, self->ndim, self->shape);
        if (src) {
            tensor__format_shape(br, sizeof br, src->ndim, src->shape);
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "Expected index %s to be smaller than self %s apart from dimension %lld and to be smaller size than src %s",
                             bi, bs, (long long)dim, br);
        } else {
            tensor_error_set(TENSOR_ERR_RUNTIME, "Expected index %s to be smaller than self %s apart from dimension %lld", bi, bs,
                             (long long)dim);
        }
        return -1;
    }
    return 0;
}

/* ---- the loop ------------------------------------------------------------------------------------ */

/* Walks the index: for each element, t = the result's element (contiguous r) it selects and s the
 * src element beside it (src strides; all 0 for a value).  BODY runs with rp/sp typed pointers.
 * Each row of the index's last dim takes one of three inner loops: scattering along a contiguous
 * last dim (index and src rows contiguous: the common scatter_add(-1, ...)) checks the row's indices
 * in one vectorisable pass and then runs BODY with no index arithmetic; a row whose index is
 * broadcast along it (stride 0, as index.expand(...) gives for scatter_add(0, ...)) checks its one
 * index and runs BODY over two contiguous rows; anything else goes through the general strides. */
typedef struct {
    int nd, last;          /* dims of the walk (>= 1) and its inner dim */
    int64_t d, size;       /* the scatter dim and self's size along it */
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t rs[TENSOR_MAX_DIMS], is[TENSOR_MAX_DIMS], ss[TENSOR_MAX_DIMS];
    const int64_t *ip;
    int64_t bad;           /* the out-of-range index found, if any */
} Walk;

/* the first index of a row outside [0, size), or -1 when it has none (then bad is untouched) */
static int row_check(const int64_t *ip, int64_t L, int64_t size, int64_t *bad) {
    bool ok = true;
    for (int64_t j = 0; j < L; j++) ok &= (uint64_t)ip[j] < (uint64_t)size;
    if (ok) return 0;
    for (int64_t j = 0; j < L; j++)
        if ((uint64_t)ip[j] >= (uint64_t)size) {
            *bad = ip[j];
            break;
        }
    return -1;
}

#define WALK(w, ...)                                                                                    \
    do {                                                                                                 \
        int64_t pos_[TENSOR_MAX_DIMS] = {0};                                                             \
        int64_t L_ = (w)->shape[(w)->last], isl_ = (w)->is[(w)->last], ssl_ = (w)->ss[(w)->last];        \
        int64_t rsl_ = (w)->last == (w)->d ? 0 : (w)->rs[(w)->last], rsd_ = (w)->rs[(w)->d];              \
        bool along_ = (w)->last == (w)->d && isl_ == 1 && ssl_ == 1 && rsd_ == 1;                        \
        bool bcast_ = (w)->last != (w)->d && isl_ == 0 && ssl_ == 1 && rsl_ == 1;                        \
        int64_t outer_ = 1;                                                                              \
        for (int k_ = 0; k_ < (w)->last; k_++) outer_ *= (w)->shape[k_];                                 \
        if (L_ == 0) outer_ = 0;                                                                         \
        for (int64_t o_ = 0; o_ < outer_; o_++) {                                                        \
            int64_t br_ = 0, bi_ = 0, bs_ = 0;                                                           \
            for (int k_ = 0; k_ < (w)->last; k_++) {                                                     \
                if (k_ != (w)->d) br_ += pos_[k_] * (w)->rs[k_];                                         \
                bi_ += pos_[k_] * (w)->is[k_];                                                           \
                bs_ += pos_[k_] * (w)->ss[k_];                                                           \
            }                                                                                            \
            const int64_t *ipo_ = (w)->ip + bi_;                                                         \
            if (along_) {                                                                                \
                uint64_t n_ = (uint64_t)(w)->size;                                                       \
                int64_t j_ = 0;                                                                          \
                for (; j_ + 4 <= L_; j_ += 4) {                                                          \
                    int64_t v0_ = ipo_[j_], v1_ = ipo_[j_ + 1], v2_ = ipo_[j_ + 2], v3_ = ipo_[j_ + 3];   \
                    if (__builtin_expect(((uint64_t)v0_ >= n_) | ((uint64_t)v1_ >= n_) |                  \
                                         ((uint64_t)v2_ >= n_) | ((uint64_t)v3_ >= n_), 0)) break;        \
                    { int64_t t = br_ + v0_, s = bs_ + j_; __VA_ARGS__; }                                \
                    { int64_t t = br_ + v1_, s = bs_ + j_ + 1; __VA_ARGS__; }                            \
                    { int64_t t = br_ + v2_, s = bs_ + j_ + 2; __VA_ARGS__; }                            \
                    { int64_t t = br_ + v3_, s = bs_ + j_ + 3; __VA_ARGS__; }                            \
                }                                                                                        \
                for (; j_ < L_; j_++) {                                                                  \
                    int64_t v_ = ipo_[j_];                                                               \
                    if ((uint64_t)v_ >= n_) {                                                            \
                        (w)->bad = v_;                                                                   \
                        return -1;                                                                       \
                    }                                                                                    \
                    int64_t t = br_ + v_, s = bs_ + j_;                                                  \
                    __VA_ARGS__;                                                                         \
                }                                                                                        \
            } else if (bcast_) {                                                                         \
                if (row_check(ipo_, 1, (w)->size, &(w)->bad) < 0) return -1;                             \
                int64_t tb_ = br_ + ipo_[0] * rsd_;                                                      \
                for (int64_t j_ = 0; j_ < L_; j_++) {                                                    \
                    int64_t t = tb_ + j_, s = bs_ + j_;                                                  \
                    __VA_ARGS__;                                                                         \
                }                                                                                        \
            } else {                                                                                     \
                for (int64_t j_ = 0; j_ < L_; j_++) {                                                    \
                    int64_t v_ = ipo_[j_ * isl_];                                                        \
                    if ((uint64_t)v_ >= (uint64_t)(w)->size) {                                           \
                        (w)->bad = v_;                                                                   \
                        return -1;                                                                       \
                    }                                                                                    \
                    int64_t t = br_ + j_ * rsl_ + v_ * rsd_, s = bs_ + j_ * ssl_;                        \
                    __VA_ARGS__;                                                                         \
                }                                                                                        \
            }                                                                                            \
            for (int k_ = (w)->last - 1; k_ >= 0; k_--) {                                                \
                if (++pos_[k_] < (w)->shape[k_]) break;                                                  \
                pos_[k_] = 0;                                                                            \
            }                                                                                            \
        }                                                                                                \
    } while (0)

/* one reduction step a (op)= b in a type with NaN (PyTorch's ReduceMaximum/Minimum propagate it) */
#define MAXF(a, b) ((b) != (b) ? (b) : (a) < (b) ? (b) : (a))
#define MINF(a, b) ((b) != (b) ? (b) : (a) > (b) ? (b) : (a))
#define MAXI(a, b) ((a) < (b) ? (b) : (a))
#define MINI(a, b) ((a) > (b) ? (b) : (a))

#define TYPED_LOOPS(NAME, T, MAX, MIN)                                                                   \
    static int NAME(const Walk *cw, char *r, const char *src, TensorScatterReduce m) {                  \
        Walk *w = (Walk *)cw;                                                                            \
        T *restrict rp = (T *)r;                                                                         \
        const T *restrict sp = (const T *)src;                                                           \
        switch (m) {                                                                                     \
        case TENSOR_SCATTER_NONE: WALK(w, rp[t] = sp[s]); break;                                         \
        case TENSOR_SCATTER_SUM: case TENSOR_SCATTER_MEAN: WALK(w, rp[t] += sp[s]); break;               \
        case TENSOR_SCATTER_PROD: WALK(w, rp[t] *= sp[s]); break;                                        \
        case TENSOR_SCATTER_AMAX: WALK(w, rp[t] = MAX(rp[t], sp[s])); break;                             \
        case TENSOR_SCATTER_AMIN: WALK(w, rp[t] = MIN(rp[t], sp[s])); break;                             \
        }                                                                                                \
        return 0;                                                                                        \
    }

TYPED_LOOPS(loops_f32, float, MAXF, MINF)
TYPED_LOOPS(loops_f64, double, MAXF, MINF)
TYPED_LOOPS(loops_i64, int64_t, MAXI, MINI)

/* every other dtype: float16/bfloat16 compute in float and round on store, integers in int64 and
 * wrap on store, bool as integers stored != 0 (sum = or, prod = and) */
static int loops_generic(const Walk *cw, TensorDtype dt, char *r, const char *src, TensorScatterReduce m) {
    Walk *w = (Walk *)cw;
    size_t es = tensor__elsize(dt);
    if (m == TENSOR_SCATTER_NONE) {
        WALK(w, memcpy(r + (size_t)t * es, src + (size_t)s * es, es));
        return 0;
    }
    if (tensor__is_float(dt)) {
        WALK(w, {
            float a = (float)tensor__ld_d(dt, r + (size_t)t * es), b = (float)tensor__ld_d(dt, src + (size_t)s * es);
            float v = m == TENSOR_SCATTER_PROD ? a * b : m == TENSOR_SCATTER_AMAX ? MAXF(a, b) : m == TENSOR_SCATTER_AMIN ? MINF(a, b) : a + b;
            tensor__st_d(dt, r + (size_t)t * es, v);
        });
    } else {
        WALK(w, {
            int64_t a = tensor__ld_i(dt, r + (size_t)t * es), b = tensor__ld_i(dt, src + (size_t)s * es);
            int64_t v = m == TENSOR_SCATTER_PROD ? a * b : m == TENSOR_SCATTER_AMAX ? MAXI(a, b) : m == TENSOR_SCATTER_AMIN ? MINI(a, b) : a + b;
            tensor__st_i(dt, r + (size_t)t * es, v);
        });
    }
    return 0;
}

static int run_walk(const Walk *w, TensorDtype dt, char *r, const char *src, TensorScatterReduce m) {
    switch (dt) {
    case TENSOR_FLOAT32: return loops_f32(w, r, src, m);
    case TENSOR_FLOAT64: return loops_f64(w, r, src, m);
    case TENSOR_INT64: return loops_i64(w, r, src, m);
    default: return loops_generic(w, dt, r, src, m);
    }
}

/* counts[t] += 1 for every element the index selects (scatter_reduce's mean) */
static int count_walk(const Walk *cw, int64_t *counts) {
    Walk *w = (Walk *)cw;
    WALK(w, (void)s; counts[t]++);
    return 0;
}

/* ---- the op -------------------------------------------------------------------------------------- */

/* a value of dtype dt for scatter_reduce's include_self=False start: the reduction's identity */
static void identity_of(TensorDtype dt, TensorScatterReduce m, char *buf) {
    if (tensor__is_float(dt)) {
        double v = m == TENSOR_SCATTER_PROD ? 1 : m == TENSOR_SCATTER_AMAX ? -INFINITY : m == TENSOR_SCATTER_AMIN ? INFINITY : 0;
        tensor__st_d(dt, buf, v);
        return;
    }
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (dt) {
    case TENSOR_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    case TENSOR_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case TENSOR_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case TENSOR_UINT8: lo = 0; hi = UINT8_MAX; break;
    case TENSOR_BOOL: lo = 0; hi = 1; break;
    default: break;
    }
    tensor__st_i(dt, buf, m == TENSOR_SCATTER_PROD ? 1 : m == TENSOR_SCATTER_AMAX ? lo : m == TENSOR_SCATTER_AMIN ? hi : 0);
}

static Tensor *scatter(const Tensor *self, int64_t dim, const Tensor *index, const Tensor *src, TensorScalar value,
                        TensorScatterReduce m, bool include_self) {
    TensorMeta ms, mi, mr;
    tensor_meta_of(self, &ms);
    tensor_meta_of(index, &mi);
    if (src) tensor_meta_of(src, &mr);
    int64_t d = tensor__wrap_dim(dim, self->ndim);
    if (d < 0 || scatter_check(&ms, &mi, src ? &mr : NULL, d) < 0) return NULL;
    TensorDtype dt = (TensorDtype)self->dtype;
    size_t es = tensor__elsize(dt);
    Tensor *r = tensor_clone(self);
    if (!r) return NULL;
    if (index->numel == 0) return r;
    Walk w = {0};
    w.nd = index->ndim ? index->ndim : 1;
    w.last = w.nd - 1;
    w.d = d;
    w.size = self->ndim ? self->shape[d] : 1;
    w.ip = tensor__i64(index);
    for (int k = 0; k < w.nd; k++) {
        w.shape[k] = index->ndim ? index->shape[k] : 1;
        w.is[k] = index->ndim ? index->strides[k] : 0;
        w.rs[k] = r->ndim ? r->strides[k] : 0;
        w.ss[k] = src && src->ndim ? src->strides[k] : 0;
    }
    char vbuf[16];
    const char *sp = vbuf;
    if (src) sp = tensor__data(src);
    else tensor__st_scalar(dt, vbuf, value);
    char *rp = tensor__data(r);
    int64_t *counts = NULL;
    int rc = 0;
    if (!include_self && m != TENSOR_SCATTER_NONE) {
        char ibuf[16];
        Walk z = w;
        memset(z.ss, 0, sizeof z.ss);
        identity_of(dt, m, ibuf);
        rc = run_walk(&z, dt, rp, ibuf, TENSOR_SCATTER_NONE);
        w.bad = z.bad;
    }
    if (rc == 0) rc = run_walk(&w, dt, rp, sp, m);
    if (rc == 0 && m == TENSOR_SCATTER_MEAN) {
        counts = calloc((size_t)r->numel, sizeof(int64_t));
        if (!counts) {
            tensor_decref(r);
            tensor__oom();
            return NULL;
        }
        rc = count_walk(&w, counts);
        /* ATen: count = include_self + scatters, 0 -> 1; floating divides, integers floor-divide */
        for (int64_t i = 0; rc == 0 && i < r->numel; i++) {
            int64_t c = counts[i] + (include_self ? 1 : 0);
            if (c <= 1) continue;
            char *p = rp + (size_t)i * es;
            if (dt == TENSOR_FLOAT32) *(float *)p /= (float)c;
            else if (tensor__is_float(dt)) tensor__st_d(dt, p, dt == TENSOR_FLOAT64 ? tensor__ld_d(dt, p) / (double)c
                                                                                   : (float)tensor__ld_d(dt, p) / (float)c);
            else {
                int64_t a = tensor__ld_i(dt, p), q = a / c;
                if ((a % c != 0) && ((a < 0) != (c < 0))) q--;
                tensor__st_i(dt, p, q);
            }
        }
        free(counts);
    }
    if (rc < 0) {
        tensor_decref(r);
        tensor_error_set(TENSOR_ERR_RUNTIME, "index %lld is out of bounds for dimension %lld with size %lld", (long long)w.bad,
                         (long long)d, (long long)w.size);
        return NULL;
    }
    return r;
}

Tensor *tensor_scatter_add(const Tensor *a, int64_t dim, const Tensor *index, const Tensor *src) {
    return scatter(a, dim, index, src, tensor_scalar_i(0), TENSOR_SCATTER_SUM, true);
}

/* ---- the op table's entries (ops.def: K(scatter, scatter)) ------------------------------------------ */

static int check_reduce(TensorOp op, const TensorOpArgs *a) {
    if (op == TENSOR_OP_SCATTER_ADD) return 0;
    if (op == TENSOR_OP_SCATTER) {
        if (a->start != TENSOR_SCATTER_NONE && a->start != TENSOR_SCATTER_SUM && a->start != TENSOR_SCATTER_PROD) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "reduce argument must be either add or multiply.");
            return -1;
        }
    } else if (a->start < TENSOR_SCATTER_SUM || a->start > TENSOR_SCATTER_AMIN) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "reduce argument must be either sum, prod, mean, amax or amin.");
        return -1;
    }
    return 0;
}

int tensor__infer_scatter(TensorOp op, const TensorMeta *const *in, int n, const TensorOpArgs *a, TensorMeta *o, int max) {
    (void)max;
    const TensorMeta *self = in[0];
    if (check_reduce(op, a) < 0) return -1;
    int64_t d = tensor__wrap_dim(a->dim, self->ndim);
    if (d < 0 || scatter_check(self, in[1], n > 2 ? in[2] : NULL, d) < 0) return -1;
    tensor__meta_contiguous(o, self->dtype, self->ndim, self->shape);
    return 1;
}

int tensor__run_scatter(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a, Tensor **out, int n_out) {
    (void)n_out;
    if (check_reduce(op, a) < 0) return -1;
    TensorScatterReduce m = op == TENSOR_OP_SCATTER_ADD ? TENSOR_SCATTER_SUM : (TensorScatterReduce)a->start;
    bool include_self = op == TENSOR_OP_SCATTER_REDUCE ? a->accumulate : true;
    const Tensor *src = n > 2 ? in[2] : NULL;
    out[0] = scatter(in[0], a->dim, in[1], src, a->scalar, m, include_self);
    return out[0] ? 1 : -1;
}

TENSOR_INPLACE_OF(scatter_, SCATTER)
TENSOR_INPLACE_OF(scatter_add_, SCATTER_ADD)
TENSOR_INPLACE_OF(scatter_reduce_, SCATTER_REDUCE)
