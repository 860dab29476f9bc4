/* pointwise.c — elementwise kernels: unary, binary (tensor-tensor and tensor-scalar),
 * comparisons, logical ops, where, and their in-place forms, with PyTorch's dtype rules and
 * error messages.  Every kernel is an expansion of the op table (ember/ops.def): one inner loop
 * per (op, dtype family) evaluating the op's scalar expression (pwexpr.h), with the contiguous
 * and broadcast-scalar operands special-cased so the common paths vectorise; the result-dtype
 * class and the available families decide which loop runs.  No op is named here. */
#include "src/tensor/pointwise.h"

#include <stdio.h>

#include "src/tensor/gelu_onednn.h"
#include "src/tensor/isa.h"
#include "src/tensor/parallel.h"   /* TENSOR_GRAIN_SIZE */

/* vmath.h's clamps and selects are if-converted into vector code only when a float compare is
 * not taken to trap (GCC's default -ftrapping-math keeps them branches); no loop here reads the
 * FP exception flags and the results are the same bits either way (PyTorch builds with
 * -fno-trapping-math throughout) */
#pragma GCC optimize("no-trapping-math")

/* ---- the table's pointwise column as data ------------------------------------------------------ */

#define U(...) PW_TUPLE_U(__VA_ARGS__)
#define B(...) PW_TUPLE_B(__VA_ARGS__)
#define UF(...) PW_TUPLE_UF(__VA_ARGS__)
#define BF(...) PW_TUPLE_BF(__VA_ARGS__)
#define T3(...) PW_TUPLE_T3(__VA_ARGS__)
#define SC(...) PW_TUPLE_SC(__VA_ARGS__)
#define RSC(...) PW_TUPLE_RSC(__VA_ARGS__)
#define IP(...) PW_TUPLE_IP(__VA_ARGS__)
#define K(...) PW_TUPLE_K(__VA_ARGS__)
#define KC(...) PW_TUPLE_KC(__VA_ARGS__)

#define PW_GEN_U(NAME, DT, COST, DOM, KINDS, F, I, B, KNAME, MSG) {PWF_UNARY, PWDT_##DT, PWC_##COST, PWD_##DOM, KINDS, TENSOR_OP_COUNT, KNAME, MSG},
#define PW_GEN_B(NAME, DT, COST, DOM, KINDS, F, I, B, KNAME, MSG) {PWF_BINARY, PWDT_##DT, PWC_##COST, PWD_##DOM, KINDS, TENSOR_OP_COUNT, KNAME, MSG},
#define PW_GEN_UF(NAME, DT, COST, DOM, KINDS, F, I, B, KNAME, MSG, ...) {PWF_UNARY, PWDT_##DT, PWC_##COST, PWD_##DOM, (KINDS) | PWK_FUSEONLY, TENSOR_OP_COUNT, KNAME, MSG},
#define PW_GEN_BF(NAME, DT, COST, DOM, KINDS, F, I, B, KNAME, MSG, ...) {PWF_BINARY, PWDT_##DT, PWC_##COST, PWD_##DOM, (KINDS) | PWK_FUSEONLY, TENSOR_OP_COUNT, KNAME, MSG},
#define PW_GEN_T3(NAME, F, ...) {PWF_TERNARY, PWDT_PROMOTE, PWC_CHEAP, PWD_NODOM, PWK_FH | PWK_I | PWK_B | PWK_MASK0 | PWK_FUSEONLY, TENSOR_OP_COUNT, NULL, NULL},
#define PW_GEN_SC(NAME, BASE) {PWF_SCALAR, 0, 0, PWD_NODOM, 0, TENSOR_OP_##BASE, NULL, NULL},
#define PW_GEN_RSC(NAME, BASE) {PWF_RSCALAR, 0, 0, PWD_NODOM, 0, TENSOR_OP_##BASE, NULL, NULL},
#define PW_GEN_IP(NAME, BASE) {PWF_INPLACE, 0, 0, PWD_NODOM, 0, TENSOR_OP_##BASE, NULL, NULL},
#define PW_GEN_K(NAME, ...) {PWF_NONE, 0, 0, PWD_NODOM, 0, TENSOR_OP_COUNT, NULL, NULL},
#define PW_GEN_KC PW_GEN_K

const PwInfo tensor__pw_infos[] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof tensor__pw_infos / sizeof tensor__pw_infos[0] == TENSOR_OP_COUNT, "one kernel column per op in ops.def");
static const PwInfo *const pw_info = tensor__pw_infos;   /* this file's short name for it */

#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_UF
#undef PW_GEN_BF
#undef PW_GEN_T3
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_K
#undef PW_GEN_KC

TensorOp tensor__pw_kernel_op(TensorOp op) {
    while ((unsigned)op < TENSOR_OP_COUNT && pw_info[op].base != TENSOR_OP_COUNT &&
           (pw_info[op].form == PWF_SCALAR || pw_info[op].form == PWF_RSCALAR || pw_info[op].form == PWF_INPLACE))
        op = pw_info[op].base;
    return op;
}

static double scalar_d(TensorScalar s) {
    if (s.kind == TENSOR_FLOAT32) return s.f;
    if (s.kind == TENSOR_BOOL) return s.i != 0 ? 1.0 : 0.0;
    return (double)s.i;
}
static int64_t scalar_i(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? (int64_t)s.f : s.i; }

/* the PwArgs of TENSOR_OP_ARGS_INIT with `alpha`: what tensor__pw_args gives a binary kernel
 * (its scalars are zero, its flags false), without building a TensorOpArgs per call */
static PwArgs pw_args_alpha(TensorScalar alpha) { return (PwArgs){.ad = scalar_d(alpha), .ai = scalar_i(alpha)}; }

void tensor__pw_args(const TensorOpArgs *a, PwArgs *c) {
    c->ad = scalar_d(a->alpha);
    c->ai = scalar_i(a->alpha);
    c->s0d = scalar_d(a->scalar);
    c->s0i = scalar_i(a->scalar);
    c->s1d = scalar_d(a->scalar2);
    c->s1i = scalar_i(a->scalar2);
    c->lo = a->has_min;
    c->hi = a->has_max;
    c->approx = a->approximate;
}

/* ---- loop generators ----------------------------------------------------------------------- */

#define PW_T_f float
#define PW_T_d double
#define PW_T_i int64_t
#define PW_T_b bool
#define PW_LOAD_f const pw_t a = (pw_t)c->ad, s0 = (pw_t)c->s0d, s1 = (pw_t)c->s1d
#define PW_LOAD_d const pw_t a = c->ad, s0 = c->s0d, s1 = c->s1d
#define PW_LOAD_i const pw_t a = c->ai, s0 = c->s0i, s1 = c->s1i
#define PW_LOAD_b const pw_t a = c->ai != 0, s0 = c->s0i != 0, s1 = c->s1i != 0
#define PW_PRELUDE(FAM)                                                                         \
    typedef PW_T_##FAM pw_t;                                                                    \
    const PwArgs *c = (const PwArgs *)vctx, *p = c;                                             \
    PW_LOAD_##FAM;                                                                              \
    (void)a;                                                                                    \
    (void)s0;                                                                                   \
    (void)s1;                                                                                   \
    (void)p

#define BIN_BODY(OT, EXPR)                                                                      \
    if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(pw_t) && s[2] == (int64_t)sizeof(pw_t)) { \
        OT *o = (OT *)d[0];                                                                     \
        const pw_t *pa = (const pw_t *)d[1], *pb = (const pw_t *)d[2];                          \
        for (int64_t i = 0; i < n; i++) {                                                       \
            pw_t x = pa[i], y = pb[i];                                                          \
            (void)x;                                                                            \
            (void)y;                                                                            \
            o[i] = (OT)(EXPR);                                                                  \
        }                                                                                       \
    } else if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(pw_t) && s[2] == 0) {    \
        OT *o = (OT *)d[0];                                                                     \
        const pw_t *pa = (const pw_t *)d[1];                                                    \
        const pw_t y = *(const pw_t *)d[2];                                                     \
        for (int64_t i = 0; i < n; i++) {                                                       \
            pw_t x = pa[i];                                                                     \
            (void)x;                                                                            \
            (void)y;                                                                            \
            o[i] = (OT)(EXPR);                                                                  \
        }                                                                                       \
    } else {                                                                                    \
        char *o = d[0];                                                                         \
        const char *pa = d[1], *pb = d[2];                                                      \
        for (int64_t i = 0; i < n; i++) {                                                       \
            pw_t x = *(const pw_t *)(pa + i * s[1]), y = *(const pw_t *)(pb + i * s[2]);        \
            (void)x;                                                                            \
            (void)y;                                                                            \
            *(OT *)(o + i * s[0]) = (OT)(EXPR);                                                 \
        }                                                                                       \
    }

/* a == 1 (add/sub without alpha) gets its own loops: the multiply folds away */
#define BIN_FN(NAME, FAM, OT, EXPR, ATTR)                                                       \
    ATTR void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                   \
        PW_PRELUDE(FAM);                                                                        \
        if (a == (pw_t)1) {                                                                     \
            const pw_t a = (pw_t)1;                                                             \
            (void)a;                                                                            \
            BIN_BODY(OT, EXPR)                                                                  \
        } else {                                                                                \
            BIN_BODY(OT, EXPR)                                                                  \
        }                                                                                       \
    }
#define BIN_LOOP(NAME, FAM, OT, EXPR) BIN_FN(NAME, FAM, OT, EXPR, static)

#define UN_FN(NAME, FAM, EXPR, ATTR)                                                            \
    ATTR void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                   \
        PW_PRELUDE(FAM);                                                                        \
        if (s[0] == (int64_t)sizeof(pw_t) && s[1] == (int64_t)sizeof(pw_t)) {                   \
            pw_t *o = (pw_t *)d[0];                                                             \
            const pw_t *pa = (const pw_t *)d[1];                                                \
            for (int64_t i = 0; i < n; i++) {                                                   \
                pw_t x = pa[i];                                                                 \
                (void)x;                                                                        \
                o[i] = (pw_t)(EXPR);                                                            \
            }                                                                                   \
        } else {                                                                                \
            char *o = d[0];                                                                     \
            const char *pa = d[1];                                                              \
            for (int64_t i = 0; i < n; i++) {                                                   \
                pw_t x = *(const pw_t *)(pa + i * s[1]);                                        \
                (void)x;                                                                        \
                *(pw_t *)(o + i * s[0]) = (pw_t)(EXPR);                                         \
            }                                                                                   \
        }                                                                                       \
    }

#define UN_LOOP(NAME, FAM, EXPR) UN_FN(NAME, FAM, EXPR, static)

/* The float loops of the LIBM ops are compiled per vector ISA (isa.h): their expressions call
 * vmath.h's exp / tanh / erf / log, which vectorise, and a wider vector computes more of them at
 * once (the same bits on every path).  The cheap ops stay single: they are memory-bound. */
#define PW_MV_INLINE static inline __attribute__((always_inline))
#define PW_MV(NAME)                                                                             \
    TENSOR_MULTIVERSION(NAME, (char **d, const int64_t *s, int64_t n, const void *vctx), (d, s, n, vctx)) \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) { TENSOR_ISA_CALL(NAME, (d, s, n, vctx)); }
#define PW_FUN_CHEAP(NAME, FAM, EXPR) UN_LOOP(NAME, FAM, EXPR)
/* the loops are unswitched on p->approx (gelu's two forms), read from a local copy of the args
 * so the compiler sees it invariant: a loop holding both forms does not vectorise */
#define PW_UNSWITCH(NAME)                                                                       \
    PW_MV_INLINE void NAME##__body(char **d, const int64_t *s, int64_t n, const void *vctx) {   \
        PwArgs c = *(const PwArgs *)vctx;                                                       \
        if (c.approx) {                                                                         \
            c.approx = true;                                                                    \
            NAME##__loop(d, s, n, &c);                                                          \
        } else {                                                                                \
            c.approx = false;                                                                   \
            NAME##__loop(d, s, n, &c);                                                          \
        }                                                                                       \
    }
#define PW_FUN_LIBM(NAME, FAM, EXPR) UN_FN(NAME##__loop, FAM, EXPR, PW_MV_INLINE) PW_UNSWITCH(NAME) PW_MV(NAME)
/* The SLEEF ops (the ops.def rows whose expression is vector-safe Sleef math) run 8 floats / 4
 * doubles at a time through Sleef's AVX2 vector forms (PW_VLOOP), as ATen's kernels do, where the
 * CPU has AVX2 + FMA and the ISA level allows; else the LIBM loop, whose purecfma (or, without
 * FMA, libm) calls give the same bits one element at a time. */
#define PW_V_f __m256
#define PW_V_d __m256d
#define PW_L_f 8
#define PW_L_d 4
#define PW_FUN_SLEEF(NAME, FAM, EXPR)                                                            \
    PW_FUN_LIBM(NAME##__scalar, FAM, EXPR)                                                       \
    VMATH_AVX2 static void NAME##__vec(char **d, const int64_t *s, int64_t n, const void *vctx) { \
        PW_PRELUDE(FAM);                                                                         \
        PW_VLOOP(pw_t, PW_V_##FAM, PW_L_##FAM, d[0], s[0], d[1], s[1], n, EXPR);                 \
    }                                                                                            \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                  \
        if (tensor__vm_sleef && tensor__isa() >= TENSOR_ISA_AVX2) NAME##__vec(d, s, n, vctx);    \
        else NAME##__scalar(d, s, n, vctx);                                                      \
    }
/* the double loops: single but for the SLEEF ops' */
#define PW_DFUN_CHEAP(NAME, FAM, EXPR) UN_LOOP(NAME, FAM, EXPR)
#define PW_DFUN_LIBM(NAME, FAM, EXPR) UN_LOOP(NAME, FAM, EXPR)
#define PW_DFUN_SLEEF(NAME, FAM, EXPR) PW_FUN_SLEEF(NAME, FAM, EXPR)
/* The cheap float binary loops get a copy compiled for AVX2 + FMA, run where the CPU has both
 * (tensor__vm_sleef: the CPUs PyTorch runs its AVX2 kernels on): add and sub are ATen's fused
 * multiply-add (pw_add_alpha; sub is add with alpha -1), which the baseline build can only reach
 * through a call of libm's fmaf per element (a loop that does not vectorise: an in-place sub_ of
 * 2,048 floats cost 14 instructions an element), while here it is one vfmadd and the loop
 * vectorises.  fma rounds once either way: the same bits. */
#define PW_FBIN_CHEAP(NAME, FAM, OT, EXPR)                                                       \
    BIN_FN(NAME##__body, FAM, OT, EXPR, PW_MV_INLINE)                                            \
    VMATH_AVX2 static void NAME##__fma(char **d, const int64_t *s, int64_t n, const void *vctx) { \
        NAME##__body(d, s, n, vctx);                                                             \
    }                                                                                            \
    static void NAME##__base(char **d, const int64_t *s, int64_t n, const void *vctx) {         \
        NAME##__body(d, s, n, vctx);                                                             \
    }                                                                                            \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *vctx) {                  \
        if (tensor__vm_sleef) NAME##__fma(d, s, n, vctx);                                         \
        else NAME##__base(d, s, n, vctx);                                                        \
    }
#define PW_FBIN_LIBM(NAME, FAM, OT, EXPR) BIN_FN(NAME##__body, FAM, OT, EXPR, PW_MV_INLINE) PW_MV(NAME)

/* comparisons write bool; every other binary op writes its compute type */
#define PW_OT_SAME(T) T
#define PW_OT_FLOAT(T) T
#define PW_OT_PROMOTE(T) T
#define PW_OT_PROMOTE_SC(T) T
#define PW_OT_SUBT(T) T
#define PW_OT_LOGIC(T) T
#define PW_OT_CMP(T) bool

#define PW_GEN_U(NAME, DT, COST, DOM, KINDS, F, I, B, ...)                                      \
    PW_FUN_##COST(pw_##NAME##_f, f, F) PW_DFUN_##COST(pw_##NAME##_d, d, F) UN_LOOP(pw_##NAME##_i, i, I) UN_LOOP(pw_##NAME##_b, b, B)
#define PW_GEN_B(NAME, DT, COST, DOM, KINDS, F, I, B, ...)                                      \
    PW_FBIN_##COST(pw_##NAME##_f, f, PW_OT_##DT(float), F) BIN_LOOP(pw_##NAME##_d, d, PW_OT_##DT(double), F) \
    BIN_LOOP(pw_##NAME##_i, i, PW_OT_##DT(int64_t), I) BIN_LOOP(pw_##NAME##_b, b, PW_OT_##DT(bool), B)
#define PW_GEN_UF PW_GEN_U
#define PW_GEN_BF PW_GEN_B
#define PW_GEN_T3(NAME, ...)
#define PW_GEN_SC(NAME, ...)
#define PW_GEN_RSC(NAME, ...)
#define PW_GEN_IP(NAME, ...)
#define PW_GEN_K(NAME, ...)
#define PW_GEN_KC(NAME, ...)

#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X

#undef PW_GEN_U
#undef PW_GEN_B
#define PW_GEN_U(NAME, ...) {pw_##NAME##_f, pw_##NAME##_d, pw_##NAME##_i, pw_##NAME##_b},
#define PW_GEN_B(NAME, ...) {pw_##NAME##_f, pw_##NAME##_d, pw_##NAME##_i, pw_##NAME##_b},
#undef PW_GEN_T3
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_K
#undef PW_GEN_KC
#define PW_GEN_T3(NAME, ...) {NULL, NULL, NULL, NULL},
#define PW_GEN_SC(NAME, ...) {NULL, NULL, NULL, NULL},
#define PW_GEN_RSC(NAME, ...) {NULL, NULL, NULL, NULL},
#define PW_GEN_IP(NAME, ...) {NULL, NULL, NULL, NULL},
#define PW_GEN_K(NAME, ...) {NULL, NULL, NULL, NULL},
#define PW_GEN_KC(NAME, ...) {NULL, NULL, NULL, NULL},

/* [op][kernel family]: float, double, int64, bool (TensorFamily order) */
static const TensorLoopFn pw_loops[][TENSOR_FAMILY_COUNT] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof pw_loops / sizeof pw_loops[0] == TENSOR_OP_COUNT, "one loop row per op in ops.def");

#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_UF
#undef PW_GEN_BF
#undef PW_GEN_T3
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_K
#undef PW_GEN_KC
#undef U
#undef B
#undef UF
#undef BF
#undef T3
#undef SC
#undef RSC
#undef IP
#undef K
#undef KC

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
        double d;
        int64_t i;
        char bytes[8];
    } v;
} StackScalar;

/* s as a 0-dim wrapped number of dtype dt (PyTorch casts a scalar operand to the common dtype) */
static Tensor *stack_scalar(StackScalar *ss, TensorScalar s, TensorDtype dt) {
    memset(&ss->t, 0, sizeof ss->t);
    memset(&ss->st, 0, sizeof ss->st);
    ss->t.refcount = 1 << 30; /* never freed */
    ss->t.dtype = (uint8_t)dt;
    ss->t.numel = 1;
    ss->t.flags = TENSOR_F_CONTIGUOUS | TENSOR_F_WRAPPED_NUMBER;
    ss->t.storage = &ss->st;
    ss->st.refcount = 1 << 30;
    ss->st.data = ss->v.bytes;
    ss->st.nbytes = sizeof ss->v;
    tensor__st_scalar(dt, ss->v.bytes, s);
    return &ss->t;
}

Tensor *tensor_scalar_tensor(TensorScalar s, TensorDtype dt) {
    if (dt == TENSOR_DTYPE_DEFAULT) dt = s.kind == TENSOR_FLOAT32 ? tensor_default_dtype() : s.kind;
    Tensor *t = tensor__new(dt, 0, NULL, false);
    if (!t) return NULL;
    tensor__st_scalar(dt, t->storage->data, s);
    return t;
}

/* ---- dtype rules (shared with shape inference and the runtime) ----------------------------------- */

/* the error of an op without a loop for dtype d (kept out of line: tensor__pw_supports runs on
 * every elementwise op) */
__attribute__((cold, noinline)) static int pw_unsupported(TensorOp op, TensorDtype d) {
    const PwInfo *k = &pw_info[op];
    if (d == TENSOR_BOOL && k->msg)
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s", k->msg);
    else if (k->kname)
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s\" not implemented for '%s'", k->kname, tensor__cname(d));
    else
        tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s_cpu\" not implemented for '%s'", tensor_op_name(op), tensor__cname(d));
    return -1;
}

static inline int pw_supports(TensorOp op, TensorDtype d) {
    unsigned need;
    switch (d) {
    case TENSOR_FLOAT16: need = PWK_H; break;
    case TENSOR_BFLOAT16: need = PWK_BF; break;
    case TENSOR_BOOL: need = PWK_B | PWK_BI; break;
    default: need = tensor__is_float(d) ? PWK_F : PWK_I; break;
    }
    return pw_info[op].kinds & need ? 0 : pw_unsupported(op, d);
}

int tensor__pw_supports(TensorOp op, TensorDtype d) { return pw_supports(op, d); }

/* the kernel family's dtype for common dtype ct (bools compute as int64 under PWK_BI) */
static TensorDtype kernel_dtype(TensorOp op, TensorDtype ct) {
    if (ct == TENSOR_BOOL && !(pw_info[op].kinds & PWK_B) && (pw_info[op].kinds & PWK_BI)) return TENSOR_INT64;
    return tensor__compute_dtype(ct);
}

/* result dtype of a unary kernel op on a `dt` input */
int tensor__unary_dtype(TensorOp op, TensorDtype dt, const TensorOpArgs *a, TensorDtype *result) {
    const PwInfo *k = &pw_info[op];
    TensorDtype ct = dt;
    switch ((PwDtype)k->dt) {
    case PWDT_FLOAT: if (!tensor__is_float(dt)) ct = tensor_default_dtype(); break;
    case PWDT_LOGIC: ct = TENSOR_BOOL; break;
    case PWDT_PROMOTE_SC: {
        TensorPromo p = TENSOR_PROMO_INIT;
        tensor__promo_add(&p, dt, 1, false);
        if (a->has_min) tensor__promo_add_scalar(&p, a->scalar);
        if (a->has_max) tensor__promo_add_scalar(&p, a->scalar2);
        ct = tensor__promo_result(&p);
        break;
    }
    default: break;
    }
    if (tensor__pw_supports(op, ct) < 0) return -1;
    *result = ct;
    return 0;
}

/* Common and result dtypes of a binary kernel op over operands (dtype, ndim, wrapped); alpha
 * for add/sub.  Inlined into its callers: as a call its eight arguments cost more than its
 * common path. */
static inline __attribute__((always_inline)) int binary_dtypes(TensorOp op, TensorDtype da, int nda, bool wa, TensorDtype db,
                                                               int ndb, bool wb, TensorScalar alpha, TensorDtype *common,
                                                               TensorDtype *result) {
    const PwInfo *k = &pw_info[op];
    if (k->dt == PWDT_SUBT && (da == TENSOR_BOOL || db == TENSOR_BOOL)) {
        if (da == TENSOR_BOOL && db == TENSOR_BOOL)
            tensor_error_set(TENSOR_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                                 "Use the `^` or `logical_xor()` operator instead.");
        else
            tensor_error_set(TENSOR_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                                                 "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        return -1;
    }
    TensorDtype ct = da;
    if (da != db || (wa && wb)) {
        /* two operands of one dtype promote to it whatever their ndims when at most one is a
         * wrapped number (a wrapped float alone would turn into the default dtype, but the other
         * operand, of the same category, then wins): the common case, tensor op tensor and the
         * scalar forms' stack scalar, skipped here because it runs on every small op; anything
         * else takes PyTorch's category rules */
        TensorPromo p = TENSOR_PROMO_INIT;
        tensor__promo_add(&p, da, nda, wa);
        tensor__promo_add(&p, db, ndb, wb);
        ct = tensor__promo_result(&p);
    }
    if (k->dt == PWDT_FLOAT && !tensor__is_float(ct)) ct = tensor_default_dtype();
    if (k->dt == PWDT_LOGIC) ct = TENSOR_BOOL;
    if (alpha.kind == TENSOR_FLOAT32 && !tensor__is_float(ct)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
        return -1;
    }
    if (pw_supports(op, ct) < 0) return -1;
    *common = ct;
    *result = k->dt == PWDT_CMP || k->dt == PWDT_LOGIC ? TENSOR_BOOL : ct;
    return 0;
}

int tensor__binary_dtype(TensorOp op, TensorDtype a, TensorDtype b, TensorScalar alpha, TensorDtype *compute, TensorDtype *result) {
    return binary_dtypes(op, a, 1, false, b, 1, false, alpha, compute, result);
}

/* ---- the small-op fast path ------------------------------------------------------------------- */

/* Most eager ops are an op over operands of one dtype, contiguous, new output: then no promotion
 * happens, no operand is converted and the iterator would hand the loop the whole op as one run.
 * pw_fast2[op][d] (binary kernel ops) is the result dtype of op over two d operands, neither a
 * wrapped number pair, when binary_dtypes computes it in d itself without a check that depends
 * on the values (an integral divisor) and d is its kernel family's own dtype; -1 otherwise.
 * pw_fast1[op][d] (unary kernel ops but clamp's, whose dtype depends on its bounds): 1 when
 * op's common dtype on d is d, its kernel's.  Both are filled once, at load, by asking the
 * dtype rules themselves (binary_dtypes, tensor__unary_dtype, kernel_dtype), so the fast path
 * cannot disagree with them; the drivers below use them to call the op's loop directly. */
static int8_t pw_fast2[TENSOR_OP_COUNT][TENSOR_DTYPE_COUNT];
static uint8_t pw_fast1[TENSOR_OP_COUNT][TENSOR_DTYPE_COUNT];

__attribute__((constructor)) static void pw_fast_init(void) {
    static const TensorScalar int_one = {1.0, 1, TENSOR_INT64};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    for (int op = 0; op < TENSOR_OP_COUNT; op++) {
        const PwInfo *k = &pw_info[op];
        for (int d = 0; d < TENSOR_DTYPE_COUNT; d++) {
            TensorDtype dt = (TensorDtype)d, ct, rt;
            pw_fast2[op][d] = -1;
            if (k->form == PWF_BINARY) {
                if (binary_dtypes((TensorOp)op, dt, 1, false, dt, 1, false, int_one, &ct, &rt) < 0) tensor_error_clear();
                else if (ct == dt && kernel_dtype((TensorOp)op, ct) == dt && !((k->kinds & PWK_ZDIV) && dt == TENSOR_INT64))
                    pw_fast2[op][d] = (int8_t)rt;
            } else if (k->form == PWF_UNARY && k->dt != PWDT_PROMOTE_SC) {
                if (tensor__unary_dtype((TensorOp)op, dt, &args, &ct) < 0) tensor_error_clear();
                else pw_fast1[op][d] = ct == dt && kernel_dtype((TensorOp)op, ct) == dt;
            }
        }
    }
}

/* alpha's own check (binary_dtypes): a floating alpha needs a floating dtype */
static inline bool alpha_fits(TensorScalar alpha, TensorDtype d) { return alpha.kind != TENSOR_FLOAT32 || tensor__is_float(d); }

/* The fast path's call: op's loop in dtype kt over the contiguous operand t and a second operand
 * (x: t's data; y: the other tensor's, stride sy, 0 for a scalar; swapped: the scalar first, as
 * rsub), into a new contiguous output of dtype rt shaped as t: what the iterator would hand the
 * loop when it does not split the op. */
static Tensor *run_direct(TensorOp op, TensorDtype kt, TensorDtype rt, const Tensor *t, const char *y, int64_t sy, bool swapped,
                          TensorScalar alpha) {
    Tensor *r = tensor__new(rt, t->ndim, t->shape, false);
    if (!r) return NULL;
    PwArgs c = pw_args_alpha(alpha);
    c.short_run = tensor__pw_short_run(t->numel, kt == TENSOR_FLOAT64);
    int64_t es = (int64_t)tensor__elsize(kt);
    char *x = tensor__data(t);
    char *data[3] = {r->storage->data, swapped ? (char *)y : x, swapped ? x : (char *)y};
    int64_t strides[3] = {(int64_t)tensor__elsize(rt), swapped ? sy : es, swapped ? es : sy};
    pw_loops[op][tensor__family(kt)](data, strides, t->numel, &c);
    return r;
}

/* the integral scalar exponent of pow must not be negative (PyTorch refuses before computing) */
static int check_scalar_pow(TensorOp base, TensorDtype x, TensorScalar s) {
    if (base == TENSOR_OP_POW_TS && !tensor__is_float(x) && s.kind != TENSOR_FLOAT32 && s.i < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
        return -1;
    }
    return 0;
}

int tensor__pw_dtype(TensorOp op, const TensorMeta *const *in, const TensorOpArgs *a, TensorDtype *compute, TensorDtype *result) {
    const PwInfo *k = &pw_info[op];
    switch ((PwForm)k->form) {
    case PWF_UNARY:
        if (tensor__unary_dtype(op, in[0]->dtype, a, compute) < 0) return -1;
        *result = *compute;
        return 0;
    case PWF_BINARY:
        return binary_dtypes(op, in[0]->dtype, in[0]->ndim, in[0]->wrapped_number, in[1]->dtype, in[1]->ndim,
                             in[1]->wrapped_number, a->alpha, compute, result);
    case PWF_TERNARY: {
        TensorPromo p = TENSOR_PROMO_INIT;
        tensor__promo_add(&p, in[1]->dtype, in[1]->ndim, in[1]->wrapped_number);
        tensor__promo_add(&p, in[2]->dtype, in[2]->ndim, in[2]->wrapped_number);
        *compute = *result = tensor__promo_result(&p);
        return 0;
    }
    case PWF_SCALAR:
    case PWF_RSCALAR: {
        TensorMeta sm = {.dtype = a->scalar.kind, .ndim = 0, .wrapped_number = true};
        const TensorMeta *pair[2] = {in[0], &sm};
        if (k->form == PWF_RSCALAR) {
            pair[0] = &sm;
            pair[1] = in[0];
        }
        if (k->form == PWF_SCALAR && check_scalar_pow(k->base, in[0]->dtype, a->scalar) < 0) return -1;
        return tensor__pw_dtype(k->base, pair, a, compute, result);
    }
    case PWF_INPLACE: return tensor__pw_dtype(k->base, in, a, compute, result);
    default: break;
    }
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s is not an elementwise kernel", tensor_op_name(op));
    return -1;
}

/* ---- binary driver --------------------------------------------------------------------------- */

static int check_int_divisor(const Tensor *b) {
    /* b is int64 here; PyTorch raises before computing anything */
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < b->numel; i++) {
        if (tensor_get_i64(b, idx) == 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "ZeroDivisionError");
            return -1;
        }
        for (int d = b->ndim - 1; d >= 0; d--) {
            if (++idx[d] < b->shape[d]) break;
            idx[d] = 0;
        }
    }
    return 0;
}

/* A new output of shape (nd, shp) laid out as TensorIterator lays out an op over the n inputs
 * ts (iter.h): `strides` receives the strides. */
static void out_layout(int n, const Tensor *const *ts, int nd, const int64_t *shp, int64_t *strides) {
    TensorGeom g[TENSOR_ITER_MAXOPS];
    for (int k = 0; k < n; k++) g[k] = (TensorGeom){ts[k]->ndim, ts[k]->shape, ts[k]->strides};
    tensor__iter_out_strides(n, g, nd, shp, strides);
}

/* a new tensor with these (dense) strides: contiguous ones take the plain allocation */
static Tensor *tensor__new_laid_out(TensorDtype dt, int nd, const int64_t *shp, const int64_t *strides) {
    if (!strides || tensor__is_contiguous_geometry(nd, shp, strides)) return tensor__new(dt, nd, shp, false);
    return tensor_empty_strided(dt, nd, shp, strides);
}

/* Runs fn over (r, ca, cb) with r of dtype lt; when out's dtype differs (in place into another
 * dtype, or a dtype computed in a wider family: float16, int8 ...), into a temporary that is
 * then converted into out. */
static Tensor *run3(TensorLoopFn fn, const PwArgs *c, Tensor *out, TensorDtype rt, TensorDtype lt, const Tensor *ca,
                    const Tensor *cb, int nd, const int64_t *shp, const int64_t *ostrides) {
    Tensor *r = out;
    if (!r) {
        r = tensor__new_laid_out(rt, nd, shp, ostrides);
        if (!r) return NULL;
    } else {
        tensor_incref(r);
    }
    TensorIter it;
    if ((TensorDtype)r->dtype != lt) {
        Tensor *tmp = tensor__new(lt, nd, shp, false);
        if (!tmp) {
            tensor_decref(r);
            return NULL;
        }
        const Tensor *ops[3] = {tmp, ca, cb};
        tensor__iter_init(&it, cb ? 3 : 2, ops, nd, shp);
        tensor__iter_run(&it, fn, c);
        int rc = tensor__copy_into(r, tmp);
        tensor_decref(tmp);
        EM_ASSERT(rc == 0, "same-shape copy");
    } else {
        const Tensor *ops[3] = {r, ca, cb};
        tensor__iter_init(&it, cb ? 3 : 2, ops, nd, shp);
        tensor__iter_run(&it, fn, c);
    }
    return r;
}

/* the number of elements of a and b broadcast together (shapes that do not broadcast: any) */
static int64_t broadcast_numel(const Tensor *a, const Tensor *b) {
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    int64_t n = 1;
    for (int i = 1; i <= nd; i++) {
        int64_t da = i <= a->ndim ? a->shape[a->ndim - i] : 1, db = i <= b->ndim ? b->shape[b->ndim - i] : 1;
        n *= da == 1 ? db : da;
    }
    return n;
}

/* Computes a (op) b into a new tensor, or into `out` (in-place: out == a). The scalar forms
 * pass b as a StackScalar. alpha applies to add/sub. */
Tensor *tensor__binary(TensorOp op, const Tensor *a, const Tensor *b, TensorScalar alpha, Tensor *out) {
    /* the fast path: one dtype, contiguous operands (not two wrapped numbers), new output, the
     * same shape, or b 0-dim and at most one grain of a (the iterator splits a larger op over the
     * thread pool; same-shape ops have always run as one call here) */
    TensorDtype da = (TensorDtype)a->dtype, db = (TensorDtype)b->dtype;
    int frt = pw_fast2[op][da];
    if (frt >= 0 && !out && da == db && (a->flags & b->flags & (TENSOR_F_CONTIGUOUS | TENSOR_F_WRAPPED_NUMBER)) == TENSOR_F_CONTIGUOUS &&
        alpha_fits(alpha, da) && !a->storage->meta && !b->storage->meta) {
        bool same = b->ndim == 0 && a->numel <= TENSOR_GRAIN_SIZE;
        if (!same && a->ndim == b->ndim) {
            same = true;
            for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
        }
        if (same) return run_direct(op, da, (TensorDtype)frt, a, tensor__data(b), b->ndim ? (int64_t)tensor__elsize(da) : 0, false, alpha);
    }
    /* every pointwise kernel called directly (tensor_add, the scalar forms, in-place forms into
     * out) passes one of the three drivers: each refuses a tensor without data (promote.c's
     * header says why the library checks) */
    if (a->storage->meta || b->storage->meta || (out && out->storage->meta)) return tensor__meta_data_error(tensor_op_name(op)), NULL;
    TensorDtype ct, rt;
    if (binary_dtypes(op, da, a->ndim, (a->flags & TENSOR_F_WRAPPED_NUMBER) != 0, db, b->ndim,
                      (b->flags & TENSOR_F_WRAPPED_NUMBER) != 0, alpha, &ct, &rt) < 0)
        return NULL;
    TensorDtype kt = kernel_dtype(op, ct), lt = rt == TENSOR_BOOL ? TENSOR_BOOL : kt;
    PwArgs c = pw_args_alpha(alpha);
    TensorLoopFn fn = pw_loops[op][tensor__family(kt)];
    c.short_run = tensor__pw_short_run(broadcast_numel(a, b), kt == TENSOR_FLOAT64);
    bool zdiv = (pw_info[op].kinds & PWK_ZDIV) && kt == TENSOR_INT64;

    int nd;
    int64_t shp[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(a->ndim, a->shape, b->ndim, b->shape, &nd, shp) < 0) return NULL;
    if (out) {
        if (!tensor__can_cast(rt, (TensorDtype)out->dtype)) {
            tensor__cast_error(rt, (TensorDtype)out->dtype);
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
    /* operands are cast to the common dtype (rounding a float32 operand of a float16 op), then
     * widened to the kernel family's dtype */
    Tensor *ca = NULL, *cb = NULL, *r = NULL;
    const Tensor *srcs[2] = {a, b};
    Tensor **dsts[2] = {&ca, &cb};
    for (int i = 0; i < 2; i++) {
        const Tensor *x = srcs[i];
        Tensor *tmp = NULL;
        if (i == 1 && out && x->storage == out->storage && x != out &&
            !(x->offset == out->offset && x->ndim == out->ndim &&
              memcmp(x->strides, out->strides, sizeof(int64_t) * x->ndim) == 0)) {
            if (!(tmp = tensor_clone(x))) goto done;
            x = tmp;
        }
        if ((TensorDtype)x->dtype != ct && ct != kt) {
            Tensor *t2 = tensor__as_dtype(x, ct);
            tensor_decref(tmp);
            if (!(tmp = t2)) goto done;
            x = tmp;
        }
        *dsts[i] = tensor__as_dtype(x, kt);
        tensor_decref(tmp);
        if (!*dsts[i]) goto done;
    }
    if (zdiv && check_int_divisor(cb) < 0) goto done;
    int64_t ost[TENSOR_MAX_DIMS];
    if (!out) out_layout(2, srcs, nd, shp, ost);
    r = run3(fn, &c, out, rt, lt, ca, cb, nd, shp, ost);
done:
    tensor_decref(ca);
    tensor_decref(cb);
    return r;
}

/* a scalar form (op SC / RSC in the table, or its in-place form): the base op's kernel with the
 * scalar as a 0-dim wrapped operand of the common dtype */
Tensor *tensor__binary_scalar(TensorOp op, const Tensor *a, TensorScalar s, TensorScalar alpha, Tensor *out) {
    while (pw_info[op].form == PWF_INPLACE) op = pw_info[op].base;
    const PwInfo *k = &pw_info[op];
    if (k->form != PWF_SCALAR && k->form != PWF_RSCALAR) {
        tensor_error_set(TENSOR_ERR_VALUE, "%s is not a scalar form", tensor_op_name(op));
        return NULL;
    }
    if (k->form == PWF_SCALAR && check_scalar_pow(k->base, (TensorDtype)a->dtype, s) < 0) return NULL;
    if (pw_info[k->base].dt == PWDT_SUBT && (a->dtype == TENSOR_BOOL || s.kind == TENSOR_BOOL)) {
        /* sub_check sees the wrapped scalar's own dtype: `t - True` is refused as PyTorch does */
        TensorDtype c, r;
        if (binary_dtypes(k->base, (TensorDtype)a->dtype, a->ndim, false, (TensorDtype)s.kind, 0, true, alpha, &c, &r) < 0)
            return NULL;
    }
    TensorDtype ct = (TensorDtype)a->dtype;
    if ((a->flags & TENSOR_F_WRAPPED_NUMBER) || !tensor__is_float(ct)) {
        /* a floating tensor keeps its dtype whatever the (wrapped) scalar: the common case,
         * decided here without the category rules that every other mix needs */
        TensorPromo p = TENSOR_PROMO_INIT;
        tensor__promo_add(&p, (TensorDtype)a->dtype, a->ndim, tensor_is_wrapped_number(a));
        tensor__promo_add_scalar(&p, s);
        ct = tensor__promo_result(&p);
    }
    if (pw_info[k->base].dt == PWDT_LOGIC) ct = TENSOR_BOOL;
    /* the fast path (tensor__binary's) without the stack scalar: a of the common dtype */
    int frt = pw_fast2[k->base][ct];
    if (frt >= 0 && !out && (TensorDtype)a->dtype == ct &&
        (a->flags & (TENSOR_F_CONTIGUOUS | TENSOR_F_WRAPPED_NUMBER)) == TENSOR_F_CONTIGUOUS && a->numel <= TENSOR_GRAIN_SIZE &&
        alpha_fits(alpha, ct) && !a->storage->meta) {
        union {
            double d;
            int64_t i;
            char bytes[8];
        } v;
        tensor__st_scalar(ct, v.bytes, s);
        return run_direct(k->base, ct, (TensorDtype)frt, a, v.bytes, 0, k->form == PWF_RSCALAR, alpha);
    }
    StackScalar ss;
    Tensor *b = stack_scalar(&ss, s, ct);
    if (k->form == PWF_RSCALAR) return tensor__binary(k->base, b, a, alpha, NULL);
    return tensor__binary(k->base, a, b, alpha, out);
}

/* ---- unary driver ---------------------------------------------------------------------------- */

/* gelu's oneDNN forms (float32 only: tensor_gelu_form), strides in elements */
static inline __attribute__((always_inline)) void gelu_onednn_rows__body(float *d, int64_t ds, const float *x, int64_t xs,
                                                                        int64_t n, bool bwd) {
    if (bwd)
        for (int64_t i = 0; i < n; i++) d[i * ds] = gelu_onednn_bwd(x[i * xs]);
    else
        for (int64_t i = 0; i < n; i++) d[i * ds] = gelu_onednn_fwd(x[i * xs]);
}
__attribute__((target("avx2,fma"))) static void gelu_onednn_rows__fma(float *d, int64_t ds, const float *x, int64_t xs,
                                                                       int64_t n, bool bwd) {
    gelu_onednn_rows__body(d, ds, x, xs, n, bwd);
}
static void gelu_onednn_rows__default(float *d, int64_t ds, const float *x, int64_t xs, int64_t n, bool bwd) {
    gelu_onednn_rows__body(d, ds, x, xs, n, bwd);
}

void tensor__gelu_onednn_rows(float *dst, int64_t dst_stride, const float *src, int64_t src_stride, int64_t n, bool bwd) {
    if (tensor__vm_sleef)   /* AVX2 and FMA (vmath.c) */
        gelu_onednn_rows__fma(dst, dst_stride, src, src_stride, n, bwd);
    else
        gelu_onednn_rows__default(dst, dst_stride, src, src_stride, n, bwd);
}

static void gelu_onednn_loop(char **d, const int64_t *s, int64_t n, const void *vctx) {
    const PwArgs *p = vctx;
    tensor__gelu_onednn_rows((float *)d[0], s[0] / (int64_t)sizeof(float), (const float *)d[1], s[1] / (int64_t)sizeof(float), n,
                             p->approx != TENSOR_GELU_ONEDNN);
}

/* op's loop over dtype kt's family: gelu's oneDNN form has its own (float32 only: NULL else) */
static inline TensorLoopFn unary_loop(TensorOp op, TensorDtype kt, const PwArgs *c) {
    if (op == TENSOR_OP_GELU && c->approx >= TENSOR_GELU_ONEDNN) return kt == TENSOR_FLOAT32 ? gelu_onednn_loop : NULL;
    return pw_loops[op][tensor__family(kt)];
}

/* a new contiguous result of fn over the contiguous a, of a's dtype */
static Tensor *run_direct1(TensorLoopFn fn, const PwArgs *c, const Tensor *a) {
    TensorDtype dt = (TensorDtype)a->dtype;
    Tensor *r = tensor__new(dt, a->ndim, a->shape, false);
    if (!r) return NULL;
    char *data[2] = {r->storage->data, tensor__data(a)};
    int64_t es = (int64_t)tensor__elsize(dt);
    int64_t strides[2] = {es, es};
    fn(data, strides, a->numel, c);
    return r;
}

Tensor *tensor__unary(TensorOp op, const Tensor *a, const TensorOpArgs *args, Tensor *out) {
    PwArgs c;
    /* the fast path: a contiguous, new output, op computing in a's dtype (pw_fast1) */
    if (!out && pw_fast1[op][a->dtype] && tensor__contig(a) && !a->storage->meta) {
        tensor__pw_args(args, &c);
        c.short_run = tensor__pw_short_run(a->numel, a->dtype == TENSOR_FLOAT64);
        TensorLoopFn fn = unary_loop(op, (TensorDtype)a->dtype, &c);
        if (fn) return run_direct1(fn, &c, a);
    }
    if (a->storage->meta || (out && out->storage->meta)) return tensor__meta_data_error(tensor_op_name(op)), NULL;
    TensorDtype ct;
    if (tensor__unary_dtype(op, (TensorDtype)a->dtype, args, &ct) < 0) return NULL;
    TensorDtype kt = kernel_dtype(op, ct);
    tensor__pw_args(args, &c);
    c.short_run = tensor__pw_short_run(a->numel, kt == TENSOR_FLOAT64);
    TensorLoopFn fn = unary_loop(op, kt, &c);
    if (!fn) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "gelu: oneDNN's form is for float32 only");
        return NULL;
    }
    if (out && !tensor__can_cast(ct, (TensorDtype)out->dtype)) {
        tensor__cast_error(ct, (TensorDtype)out->dtype);
        return NULL;
    }
    if (!out && (TensorDtype)a->dtype == kt && ct == kt && tensor__contig(a)) return run_direct1(fn, &c, a);
    Tensor *ca = tensor__as_dtype(a, kt);
    if (!ca) return NULL;
    int64_t ost[TENSOR_MAX_DIMS];
    if (!out) out_layout(1, &a, a->ndim, a->shape, ost);
    Tensor *r = run3(fn, &c, out, ct, kt, ca, NULL, a->ndim, a->shape, ost);
    tensor_decref(ca);
    return r;
}

Tensor *tensor__where(const Tensor *cond, const Tensor *a, const Tensor *b) {
    if (cond->storage->meta || a->storage->meta || b->storage->meta) return tensor__meta_data_error("where"), NULL;
    if (cond->dtype != TENSOR_BOOL) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                         tensor__cname((TensorDtype)cond->dtype));
        return NULL;
    }
    int n1, n2;
    int64_t s1[TENSOR_MAX_DIMS], s2[TENSOR_MAX_DIMS];
    if (tensor__broadcast_shapes(cond->ndim, cond->shape, a->ndim, a->shape, &n1, s1) < 0) return NULL;
    if (tensor__broadcast_shapes(n1, s1, b->ndim, b->shape, &n2, s2) < 0) return NULL;
    TensorPromo p = TENSOR_PROMO_INIT;
    tensor__promo_add(&p, (TensorDtype)a->dtype, a->ndim, tensor_is_wrapped_number(a));
    tensor__promo_add(&p, (TensorDtype)b->dtype, b->ndim, tensor_is_wrapped_number(b));
    TensorDtype ct = tensor__promo_result(&p);
    Tensor *ca = tensor__as_dtype(a, ct), *cb = ca ? tensor__as_dtype(b, ct) : NULL;
    Tensor *cc = cb ? tensor__as_dtype(cond, TENSOR_BOOL) : NULL;
    const Tensor *srcs[3] = {cond, a, b};
    int64_t ost[TENSOR_MAX_DIMS];
    out_layout(3, srcs, n2, s2, ost);
    Tensor *r = cc ? tensor__new_laid_out(ct, n2, s2, ost) : NULL;
    if (r) {
        TensorIter it;
        const Tensor *ops[4] = {r, cc, ca, cb};
        tensor__iter_init(&it, 4, ops, n2, s2);
        size_t es = tensor__elsize(ct);
        tensor__iter_run(&it, where_loop, &es);
    }
    tensor_decref(ca);
    tensor_decref(cb);
    tensor_decref(cc);
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
    const PwInfo *k = &pw_info[(unsigned)op < TENSOR_OP_COUNT ? op : 0];
    if (k->form != PWF_SCALAR || pw_info[k->base].dt != PWDT_CMP) {
        tensor_error_set(TENSOR_ERR_VALUE, "tensor_cmp_scalar: not a comparison op");
        return NULL;
    }
    return tensor__binary_scalar(op, a, s, one, NULL);
}
Tensor *tensor_where(const Tensor *cond, const Tensor *a, const Tensor *b) { return tensor__where(cond, a, b); }

Tensor *tensor_unary(TensorOp op, const Tensor *a) {
    if ((unsigned)op >= TENSOR_OP_COUNT || pw_info[op].form != PWF_UNARY) {
        tensor_error_set(TENSOR_ERR_VALUE, "tensor_unary: %s is not a unary kernel", tensor_op_name(op));
        return NULL;
    }
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    return tensor__unary(op, a, &args, NULL);
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
/* use_mkldnn(self) of ATen's gelu_out_cpu / gelu_backward_out_cpu (1.13): mkldnn enabled,
 * self.is_contiguous(), numel > 1, float32 on the CPU */
uint8_t tensor_gelu_form(const Tensor *a, bool tanh_approximation) {
    if (tanh_approximation) return TENSOR_GELU_TANH;
    if (a->dtype == TENSOR_FLOAT32 && tensor__contig(a) && a->numel > 1) return TENSOR_GELU_ONEDNN;
    return TENSOR_GELU_ERF;
}
Tensor *tensor_gelu(const Tensor *a, bool tanh_approximation) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.approximate = tensor_gelu_form(a, tanh_approximation);
    return tensor__unary(TENSOR_OP_GELU, a, &args, NULL);
}
Tensor *tensor_leaky_relu(const Tensor *a, double negative_slope) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = tensor_scalar_f(negative_slope);
    return tensor__unary(TENSOR_OP_LEAKY_RELU, a, &args, NULL);
}
static void clamp_args(TensorOpArgs *args, const TensorScalar *min, const TensorScalar *max) {
    *args = TENSOR_OP_ARGS_INIT;
    if (min) {
        args->has_min = true;
        args->scalar = *min;
    }
    if (max) {
        args->has_max = true;
        args->scalar2 = *max;
    }
}
Tensor *tensor_clamp(const Tensor *a, const TensorScalar *min, const TensorScalar *max) {
    TensorOpArgs args;
    clamp_args(&args, min, max);
    return tensor__unary(TENSOR_OP_CLAMP, a, &args, NULL);
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

int tensor__inplace_unary(TensorOp op, Tensor *a, const TensorOpArgs *args) {
    TensorDtype ct;
    if (tensor__unary_dtype(op, (TensorDtype)a->dtype, args, &ct) < 0) return -1;
    if (!tensor__can_cast(ct, (TensorDtype)a->dtype)) return tensor__cast_error(ct, (TensorDtype)a->dtype);
    if (tensor__begin_inplace(a) < 0) return -1;
    return finish_inplace(tensor__unary(op, a, args, a));
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
    TensorOpArgs args;
    clamp_args(&args, min, max);
    return tensor__inplace_unary(TENSOR_OP_CLAMP, a, &args);
}

int tensor_relu_(Tensor *a) {
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    return tensor__inplace_unary(TENSOR_OP_RELU, a, &args);
}
