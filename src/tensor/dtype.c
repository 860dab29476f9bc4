/* dtype.c — the dtype table (ember/dtypes.def) expanded: names and sizes, the default dtype,
 * PyTorch's promotion lattice and result_type, and the conversion loop between any two dtypes
 * (copy_, to(dtype), and the operand conversions of mixed-dtype kernels). */
#include "src/tensor/dtype.h"

#include "src/tensor/iter.h"

const TensorDtypeInfo tensor__dtypes[TENSOR_DTYPE_COUNT] = {
#define DT(NAME, CT, KIND, FAM, PROMO, STR, CNAME, CTYPE, TSTR, ALIASES)                          \
    {sizeof(CT), TENSOR_KIND_##KIND, TENSOR_FAM_##FAM, PROMO, STR, CNAME, CTYPE, "torch." TSTR},
#include "ember/dtypes.def"
#undef DT
};

static const char *const dtype_names[TENSOR_DTYPE_COUNT] = {
#define DT(NAME, CT, KIND, FAM, PROMO, STR, ...) "torch." STR,
#include "ember/dtypes.def"
#undef DT
};

TensorDtype tensor__family_dtype(TensorFamily f) {
    static const TensorDtype d[TENSOR_FAMILY_COUNT] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT64, TENSOR_BOOL};
    return d[f];
}

static bool valid(TensorDtype d) { return (unsigned)d < TENSOR_DTYPE_COUNT; }

const char *tensor_dtype_name(TensorDtype d) { return valid(d) ? dtype_names[d] : "torch.unknown"; }
const char *tensor_dtype_cname(TensorDtype d) { return valid(d) ? tensor__dtypes[d].cname : "Undefined"; }
const char *tensor_dtype_ctype(TensorDtype d) { return valid(d) ? tensor__dtypes[d].ctype : "Undefined"; }
bool tensor_dtype_can_cast(TensorDtype from, TensorDtype to) { return valid(from) && valid(to) && tensor__can_cast(from, to); }
size_t tensor_dtype_size(TensorDtype d) { return valid(d) ? tensor__dtypes[d].size : 0; }
bool tensor_dtype_is_floating(TensorDtype d) { return valid(d) && tensor__dtypes[d].kind == TENSOR_KIND_FLOAT; }
bool tensor_dtype_is_signed(TensorDtype d) { return valid(d) && d != TENSOR_BOOL && d != TENSOR_UINT8; }

/* ---- the default dtype ---------------------------------------------------------------------------- */

static TensorDtype default_dtype = TENSOR_FLOAT32;

TensorDtype tensor_default_dtype(void) { return default_dtype; }

int tensor_set_default_dtype(TensorDtype d) {
    if (!tensor_dtype_is_floating(d)) {
        tensor_error_set(TENSOR_ERR_TYPE, "only floating-point types are supported as the default type");
        return -1;
    }
    default_dtype = d;
    return 0;
}

/* ---- promotion ------------------------------------------------------------------------------------- */

/* c10::promoteTypes over the dtypes Ember has, in c10's ScalarType order (dtypes.def's PROMO
 * column: u1 i1 i2 i4 i8 f2 f4 f8 b1 bf) */
enum { U1, I1, I2, I4, I8, F2, F4, F8, B1, BF, N_PROMO };
static const uint8_t promo_table[N_PROMO][N_PROMO] = {
    /*        u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
    /* u1 */ {U1, I2, I2, I4, I8, F2, F4, F8, U1, BF},
    /* i1 */ {I2, I1, I2, I4, I8, F2, F4, F8, I1, BF},
    /* i2 */ {I2, I2, I2, I4, I8, F2, F4, F8, I2, BF},
    /* i4 */ {I4, I4, I4, I4, I8, F2, F4, F8, I4, BF},
    /* i8 */ {I8, I8, I8, I8, I8, F2, F4, F8, I8, BF},
    /* f2 */ {F2, F2, F2, F2, F2, F2, F4, F8, F2, F4},
    /* f4 */ {F4, F4, F4, F4, F4, F4, F4, F8, F4, F4},
    /* f8 */ {F8, F8, F8, F8, F8, F8, F8, F8, F8, F8},
    /* b1 */ {U1, I1, I2, I4, I8, F2, F4, F8, B1, BF},
    /* bf */ {BF, BF, BF, BF, BF, F4, F4, F8, BF, BF},
};

/* ScalarType position -> table row (ScalarType numbers 11 and 15 are Bool and BFloat16) */
static int promo_row(TensorDtype d) {
    int p = tensor__dtypes[d].promo;
    return p == 11 ? B1 : p == 15 ? BF : p;
}

static TensorDtype row_dtype(int row) {
    for (int d = 0; d < TENSOR_DTYPE_COUNT; d++)
        if (promo_row((TensorDtype)d) == row) return (TensorDtype)d;
    EM_UNREACHABLE();
}

TensorDtype tensor__promote(TensorDtype a, TensorDtype b) {
    static TensorDtype memo[TENSOR_DTYPE_COUNT][TENSOR_DTYPE_COUNT];
    static bool ready;
    if (!ready) {
        for (int i = 0; i < TENSOR_DTYPE_COUNT; i++)
            for (int j = 0; j < TENSOR_DTYPE_COUNT; j++)
                memo[i][j] = row_dtype(promo_table[promo_row((TensorDtype)i)][promo_row((TensorDtype)j)]);
        ready = true;
    }
    return memo[a][b];
}

TensorDtype tensor_promote_types(TensorDtype a, TensorDtype b) { return tensor__promote(a, b); }

static TensorDtype promote_skip_undefined(TensorDtype a, TensorDtype b) {
    if (a == TENSOR_DTYPE_DEFAULT) return b;
    if (b == TENSOR_DTYPE_DEFAULT) return a;
    return tensor__promote(a, b);
}

void tensor__promo_add(TensorPromo *p, TensorDtype dt, int ndim, bool wrapped) {
    if (wrapped && tensor__is_float(dt)) dt = default_dtype;   /* a Python float: the default dtype */
    if (ndim > 0)
        p->dim = promote_skip_undefined(p->dim, dt);
    else if (wrapped)
        p->wrapped = promote_skip_undefined(p->wrapped, dt);
    else
        p->zero = promote_skip_undefined(p->zero, dt);
}

void tensor__promo_add_scalar(TensorPromo *p, TensorScalar s) { tensor__promo_add(p, s.kind, 0, true); }

/* at::native::combine_categories */
static TensorDtype combine(TensorDtype higher, TensorDtype lower) {
    if (higher != TENSOR_DTYPE_DEFAULT && tensor__is_float(higher)) return higher;
    if (higher == TENSOR_BOOL || (lower != TENSOR_DTYPE_DEFAULT && tensor__is_float(lower)))
        return promote_skip_undefined(higher, lower);
    if (higher != TENSOR_DTYPE_DEFAULT) return higher;
    return lower;
}

TensorDtype tensor__promo_result(const TensorPromo *p) { return combine(p->dim, combine(p->zero, p->wrapped)); }

TensorDtype tensor_result_type(const Tensor *const *tensors, int n_tensors, const TensorScalar *scalars, int n_scalars) {
    TensorPromo p = TENSOR_PROMO_INIT;
    for (int i = 0; i < n_tensors; i++)
        tensor__promo_add(&p, tensor_dtype(tensors[i]), tensor_ndim(tensors[i]), tensor_is_wrapped_number(tensors[i]));
    for (int i = 0; i < n_scalars; i++) tensor__promo_add_scalar(&p, scalars[i]);
    return tensor__promo_result(&p);
}

/* ---- scalars ---------------------------------------------------------------------------------------- */

void tensor_dtype_store(TensorDtype d, void *p, TensorScalar s) { tensor__st_scalar(d, p, s); }

void tensor__st_scalar(TensorDtype d, void *p, TensorScalar s) {
    if (s.kind == TENSOR_FLOAT32)
        tensor__st_d(d, p, s.f);
    else
        tensor__st_i(d, p, s.kind == TENSOR_BOOL ? s.i != 0 : s.i);
}

/* ---- conversion loops -------------------------------------------------------------------------------- */

/* Any dtype to any dtype in chunks: a row of the source is loaded into the family buffer of its
 * kind (double for floating dtypes, exact; int64 for integers and bool), then stored into the
 * destination with ATen's cast semantics — 40 small loops instead of a hundred, each of which
 * vectorises.  Same-dtype copies move bytes. */
enum { CHUNK = 256 };

#define DT(NAME, CT, ...)                                                                          \
    static void ld_d_##NAME(const char *p, int64_t st, int64_t n, double *out) {                 \
        for (int64_t i = 0; i < n; i++) out[i] = tensor__ld_d(TENSOR_##NAME, p + i * st);         \
    }                                                                                             \
    static void ld_i_##NAME(const char *p, int64_t st, int64_t n, int64_t *out) {                \
        for (int64_t i = 0; i < n; i++) out[i] = tensor__ld_i(TENSOR_##NAME, p + i * st);         \
    }                                                                                             \
    static void st_d_##NAME(char *p, int64_t st, int64_t n, const double *in) {                  \
        for (int64_t i = 0; i < n; i++) tensor__st_d(TENSOR_##NAME, p + i * st, in[i]);           \
    }                                                                                             \
    static void st_i_##NAME(char *p, int64_t st, int64_t n, const int64_t *in) {                 \
        for (int64_t i = 0; i < n; i++) tensor__st_i(TENSOR_##NAME, p + i * st, in[i]);           \
    }
#include "ember/dtypes.def"
#undef DT

typedef void (*LdD)(const char *, int64_t, int64_t, double *);
typedef void (*LdI)(const char *, int64_t, int64_t, int64_t *);
typedef void (*StD)(char *, int64_t, int64_t, const double *);
typedef void (*StI)(char *, int64_t, int64_t, const int64_t *);

static const struct {
    LdD ld_d;
    LdI ld_i;
    StD st_d;
    StI st_i;
} conv[TENSOR_DTYPE_COUNT] = {
#define DT(NAME, ...) {ld_d_##NAME, ld_i_##NAME, st_d_##NAME, st_i_##NAME},
#include "ember/dtypes.def"
#undef DT
};

/* direct loops for the conversions hot paths take (masks to floats, floats to float64) */
#define DIRECT(NAME, D, S, EXPR)                                                                  \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, int64_t n) {                \
        if (so == (int64_t)sizeof(D) && sa == (int64_t)sizeof(S)) {                              \
            D *restrict po = (D *)o;                                                              \
            const S *restrict pa = (const S *)a;                                                  \
            for (int64_t i = 0; i < n; i++) {                                                     \
                S x = pa[i];                                                              \
                po[i] = (EXPR);                                                                   \
            }                                                                                     \
        } else {                                                                                  \
            for (int64_t i = 0; i < n; i++) {                                                     \
                S x = *(const S *)(a + i * sa);                                                   \
                *(D *)(o + i * so) = (EXPR);                                                      \
            }                                                                                     \
        }                                                                                         \
    }
DIRECT(f32_from_b, float, bool, x ? 1.0f : 0.0f)
DIRECT(f32_from_i64, float, int64_t, (float)x)
DIRECT(f32_from_f64, float, double, (float)x)
DIRECT(f64_from_f32, double, float, (double)x)
DIRECT(b_from_f32, bool, float, x != 0.0f)
DIRECT(i64_from_b, int64_t, bool, x ? 1 : 0)
typedef void (*DirectFn)(char *, int64_t, const char *, int64_t, int64_t);

static DirectFn direct(TensorDtype d, TensorDtype s) {
    if (d == TENSOR_FLOAT32) return s == TENSOR_BOOL ? f32_from_b : s == TENSOR_INT64 ? f32_from_i64 : s == TENSOR_FLOAT64 ? f32_from_f64 : NULL;
    if (d == TENSOR_FLOAT64 && s == TENSOR_FLOAT32) return f64_from_f32;
    if (d == TENSOR_BOOL && s == TENSOR_FLOAT32) return b_from_f32;
    if (d == TENSOR_INT64 && s == TENSOR_BOOL) return i64_from_b;
    return NULL;
}

typedef struct ConvCtx {
    TensorDtype dst, src;
    DirectFn fn;
} ConvCtx;

/* n elements of type T from d[1] (stride s[1] bytes) to d[0] (stride s[0]); the strides are
 * multiples of the element size, and memcpy keeps the accesses free of alignment assumptions */
#define STRIDED_MOVE(T)                                                                           \
    do {                                                                                          \
        char *o_ = d[0];                                                                          \
        const char *a_ = d[1];                                                                    \
        int64_t so_ = s[0], sa_ = s[1];                                                           \
        for (int64_t i = 0; i < n; i++) {                                                         \
            T v;                                                                                  \
            memcpy(&v, a_ + i * sa_, sizeof v);                                                   \
            memcpy(o_ + i * so_, &v, sizeof v);                                                   \
        }                                                                                         \
    } while (0)

static void conv_loop(char **d, const int64_t *s, int64_t n, const void *vctx) {
    const ConvCtx *c = vctx;
    if (c->fn) {
        c->fn(d[0], s[0], d[1], s[1], n);
        return;
    }
    if (c->dst == c->src) {
        size_t es = tensor__dtypes[c->dst].size;
        if (s[0] == (int64_t)es && s[1] == (int64_t)es) {
            memmove(d[0], d[1], (size_t)n * es);
            return;
        }
        /* a strided run (a transposed gradient copied into a cat, a permute made contiguous):
         * one typed move per element, where memcpy's size dispatch per element cost ~6 cycles */
        switch (es) {
        case 4: STRIDED_MOVE(uint32_t); return;
        case 8: STRIDED_MOVE(uint64_t); return;
        case 2: STRIDED_MOVE(uint16_t); return;
        case 1: STRIDED_MOVE(uint8_t); return;
        default:
            for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * s[0], d[1] + i * s[1], es);
            return;
        }
    }
    bool fl = tensor__is_float(c->src);
    union {
        double d[CHUNK];
        int64_t i[CHUNK];
    } buf;
    for (int64_t k = 0; k < n; k += CHUNK) {
        int64_t m = n - k < CHUNK ? n - k : CHUNK;
        const char *src = d[1] + k * s[1];
        char *dst = d[0] + k * s[0];
        if (fl) {
            conv[c->src].ld_d(src, s[1], m, buf.d);
            conv[c->dst].st_d(dst, s[0], m, buf.d);
        } else {
            conv[c->src].ld_i(src, s[1], m, buf.i);
            conv[c->dst].st_i(dst, s[0], m, buf.i);
        }
    }
}

void tensor__convert_run(TensorIter *it, TensorDtype dst, TensorDtype src) {
    ConvCtx c = {dst, src, direct(dst, src)};
    tensor__iter_run(it, conv_loop, &c);
}
