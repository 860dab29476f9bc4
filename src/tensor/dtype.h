/* dtype.h — the dtype table (ember/dtypes.def) as data and as element access: sizes, kinds,
 * kernel families, float16/bfloat16 rounding, loads and stores of one element in a family's
 * type, and PyTorch's type promotion.  Kernels that are not per-family loops (indexing,
 * sorting, printing, item) read and write elements through these; the per-family loops of
 * pointwise.c and reduce.c never switch on a dtype inside a loop.
 *
 * A kernel family is the C type an element computes in (dtypes.def's FAMILY): float, double,
 * int64_t or bool.  float16 and bfloat16 compute in float and round to nearest even on store;
 * the narrow integers compute in int64_t and wrap on store, as PyTorch's CPU kernels do. */
#ifndef EMBER_SRC_TENSOR_DTYPE_H
#define EMBER_SRC_TENSOR_DTYPE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ember/tensor.h"

typedef enum TensorKind { TENSOR_KIND_BOOL = 0, TENSOR_KIND_INT = 1, TENSOR_KIND_FLOAT = 2 } TensorKind;
typedef enum TensorFamily { TENSOR_FAM_F32 = 0, TENSOR_FAM_F64 = 1, TENSOR_FAM_I64 = 2, TENSOR_FAM_B8 = 3 } TensorFamily;
enum { TENSOR_FAMILY_COUNT = 4 };

typedef struct TensorDtypeInfo {
    uint8_t size;            /* bytes per element */
    uint8_t kind;            /* TensorKind */
    uint8_t family;          /* TensorFamily */
    uint8_t promo;           /* position in c10's ScalarType order */
    const char *name;        /* "float32" */
    const char *cname;       /* "Float" */
    const char *ctype;       /* "float" */
    const char *type_str;    /* "torch.FloatTensor" */
} TensorDtypeInfo;

extern const TensorDtypeInfo tensor__dtypes[TENSOR_DTYPE_COUNT];

static inline const TensorDtypeInfo *tensor__dt(TensorDtype d) { return &tensor__dtypes[d]; }
static inline TensorKind tensor__kind(TensorDtype d) { return (TensorKind)tensor__dtypes[d].kind; }
static inline TensorFamily tensor__family(TensorDtype d) { return (TensorFamily)tensor__dtypes[d].family; }
static inline bool tensor__is_float(TensorDtype d) { return tensor__dtypes[d].kind == TENSOR_KIND_FLOAT; }
static inline bool tensor__is_intlike(TensorDtype d) { return tensor__dtypes[d].kind != TENSOR_KIND_FLOAT; }
static inline const char *tensor__cname(TensorDtype d) { return tensor__dtypes[d].cname; }
/* the dtype a family computes in (float32, float64, int64, bool) */
TensorDtype tensor__family_dtype(TensorFamily f);
static inline TensorDtype tensor__compute_dtype(TensorDtype d) { return tensor__family_dtype(tensor__family(d)); }

/* ---- float16 / bfloat16 ----------------------------------------------------------------------- */

/* float -> IEEE half, round to nearest even (NaN keeps its sign, payload 0x200; overflow: inf) */
static inline uint16_t tensor__f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* below half's normal range: adding 0.5 puts the value's half-subnormal bits at the
         * bottom of the float mantissa, rounded to nearest even by the FPU */
        float t;
        memcpy(&t, &ax, 4);
        t += 0.5f;
        uint32_t u;
        memcpy(&u, &t, 4);
        return (uint16_t)(sign | (u - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
    return (uint16_t)(sign | (ax >> 13));
}

static inline float tensor__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu, r;
    if (em >= 0x7c00u) {
        r = 0x7f800000u | ((em & 0x3ffu) << 13);
    } else if (em >= 0x0400u) {
        r = (em << 13) + ((uint32_t)(127 - 15) << 23);
    } else {
        float f = (float)em * 5.9604644775390625e-08f; /* em * 2^-24 */
        memcpy(&r, &f, 4);
    }
    r |= sign;
    float f;
    memcpy(&f, &r, 4);
    return f;
}

/* c10::BFloat16's round_to_nearest_even (NaN -> 0x7fc0) */
static inline uint16_t tensor__f32_to_bf16(float f) {
    if (f != f) return 0x7fc0u;
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline float tensor__bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* float -> integer as x86's truncating conversions do (static_cast in ATen's kernels): values out
 * of range (and NaN) give the most negative value, narrow types go through int32 and wrap */
static inline int64_t tensor__f2i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
static inline int32_t tensor__f2i32(double x) { return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN; }

/* ---- one element, in its family's type --------------------------------------------------------- */

/* Loads as double (floating dtypes, exactly) or int64 (integers and bool); stores from double
 * (ATen's casts: float -> integer truncates, double -> half goes through float) or int64. */
static inline double tensor__ld_d(TensorDtype d, const void *p) {
    switch (d) {
    case TENSOR_FLOAT32: return *(const float *)p;
    case TENSOR_FLOAT64: return *(const double *)p;
    case TENSOR_FLOAT16: return tensor__f16_to_f32(*(const uint16_t *)p);
    case TENSOR_BFLOAT16: return tensor__bf16_to_f32(*(const uint16_t *)p);
    case TENSOR_INT64: return (double)*(const int64_t *)p;
    case TENSOR_INT32: return *(const int32_t *)p;
    case TENSOR_INT16: return *(const int16_t *)p;
    case TENSOR_INT8: return *(const int8_t *)p;
    case TENSOR_UINT8: return *(const uint8_t *)p;
    case TENSOR_BOOL: return *(const bool *)p ? 1.0 : 0.0;
    default: return 0;
    }
}

static inline int64_t tensor__ld_i(TensorDtype d, const void *p) {
    switch (d) {
    case TENSOR_INT64: return *(const int64_t *)p;
    case TENSOR_INT32: return *(const int32_t *)p;
    case TENSOR_INT16: return *(const int16_t *)p;
    case TENSOR_INT8: return *(const int8_t *)p;
    case TENSOR_UINT8: return *(const uint8_t *)p;
    case TENSOR_BOOL: return *(const bool *)p;
    default: return tensor__f2i64(tensor__ld_d(d, p));
    }
}

static inline void tensor__st_d(TensorDtype d, void *p, double v) {
    switch (d) {
    case TENSOR_FLOAT32: *(float *)p = (float)v; break;
    case TENSOR_FLOAT64: *(double *)p = v; break;
    case TENSOR_FLOAT16: *(uint16_t *)p = tensor__f32_to_f16((float)v); break;
    case TENSOR_BFLOAT16: *(uint16_t *)p = tensor__f32_to_bf16((float)v); break;
    case TENSOR_INT64: *(int64_t *)p = tensor__f2i64(v); break;
    case TENSOR_INT32: *(int32_t *)p = tensor__f2i32(v); break;
    case TENSOR_INT16: *(int16_t *)p = (int16_t)tensor__f2i32(v); break;
    case TENSOR_INT8: *(int8_t *)p = (int8_t)tensor__f2i32(v); break;
    case TENSOR_UINT8: *(uint8_t *)p = (uint8_t)tensor__f2i32(v); break;
    case TENSOR_BOOL: *(bool *)p = v != 0.0; break;
    default: break;
    }
}

static inline void tensor__st_i(TensorDtype d, void *p, int64_t v) {
    switch (d) {
    case TENSOR_FLOAT32: *(float *)p = (float)v; break;
    case TENSOR_FLOAT64: *(double *)p = (double)v; break;
    case TENSOR_FLOAT16: *(uint16_t *)p = tensor__f32_to_f16((float)v); break;
    case TENSOR_BFLOAT16: *(uint16_t *)p = tensor__f32_to_bf16((float)v); break;
    case TENSOR_INT64: *(int64_t *)p = v; break;
    case TENSOR_INT32: *(int32_t *)p = (int32_t)(uint32_t)v; break;
    case TENSOR_INT16: *(int16_t *)p = (int16_t)(uint16_t)v; break;
    case TENSOR_INT8: *(int8_t *)p = (int8_t)(uint8_t)v; break;
    case TENSOR_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case TENSOR_BOOL: *(bool *)p = v != 0; break;
    default: break;
    }
}

/* *dst += alpha * *src in dtype d, computed in d's family as ATen's add kernels do (bool: or) */
static inline void tensor__acc(TensorDtype d, void *dst, const void *src, double alpha, int64_t ialpha) {
    switch (d) {
    case TENSOR_FLOAT32: *(float *)dst += (float)alpha * *(const float *)src; break;
    case TENSOR_FLOAT64: *(double *)dst += alpha * *(const double *)src; break;
    case TENSOR_INT64: *(int64_t *)dst += ialpha * *(const int64_t *)src; break;
    case TENSOR_BOOL: *(bool *)dst |= *(const bool *)src; break;
    default:
        if (tensor__dtypes[d].kind == TENSOR_KIND_FLOAT)
            tensor__st_d(d, dst, (float)tensor__ld_d(d, dst) + (float)alpha * (float)tensor__ld_d(d, src));
        else
            tensor__st_i(d, dst, tensor__ld_i(d, dst) + ialpha * tensor__ld_i(d, src));
        break;
    }
}

/* a Python number's value in dtype d's representation, written at p */
void tensor__st_scalar(TensorDtype d, void *p, TensorScalar s);

/* ---- type promotion ----------------------------------------------------------------------------- */

/* c10::promoteTypes */
TensorDtype tensor__promote(TensorDtype a, TensorDtype b);

/* at::native::result_type over operands of three priorities: tensors with dims beat 0-dim
 * tensors beat wrapped numbers (Python scalars, whose floats count as the default dtype), unless
 * a lower-priority operand is of a higher kind (an int tensor plus a 0-dim float tensor is
 * float).  Start from TENSOR_PROMO_INIT, add every operand, read the result. */
typedef struct TensorPromo {
    TensorDtype dim, zero, wrapped;
} TensorPromo;
#define TENSOR_PROMO_INIT ((TensorPromo){TENSOR_DTYPE_DEFAULT, TENSOR_DTYPE_DEFAULT, TENSOR_DTYPE_DEFAULT})
void tensor__promo_add(TensorPromo *p, TensorDtype dt, int ndim, bool wrapped);
void tensor__promo_add_scalar(TensorPromo *p, TensorScalar s);
TensorDtype tensor__promo_result(const TensorPromo *p);

#endif
