/* isa.h — which vector instruction set the hot element loops run with.  A loop written once as
 * an always-inline body (NAME__body) is compiled three times by TENSOR_MULTIVERSION — for
 * AVX-512 (512-bit vectors), AVX2 and the portable baseline (SSE2 on x86-64) — and
 * TENSOR_ISA_CALL picks the copy the CPU this runs on supports, once detected.  EMBER_ISA=
 * default|avx2|avx512 caps the choice (to measure or test a path); tensor__isa_set does the same
 * for tests.  The copies compute each element with the same C expression and the library is
 * built without FP contraction, so every path gives the same bits: only elementwise loops (no
 * reductions, whose order a wider vector would change) are multiversioned. */
#ifndef EMBER_TENSOR_ISA_H
#define EMBER_TENSOR_ISA_H

#include <stdbool.h>

typedef enum TensorIsa { TENSOR_ISA_DEFAULT = 0, TENSOR_ISA_AVX2 = 1, TENSOR_ISA_AVX512 = 2 } TensorIsa;

extern int tensor__isa_level;                   /* -1 until the first tensor__isa() */
TensorIsa tensor__isa_detect(void);
static inline TensorIsa tensor__isa(void) {
    int l = tensor__isa_level;
    return l >= 0 ? (TensorIsa)l : tensor__isa_detect();
}
bool tensor__isa_supported(TensorIsa isa);      /* by this CPU (and this build) */
int tensor__isa_set(TensorIsa isa);             /* -1 when unsupported; tests and benchmarks */
const char *tensor__isa_name(TensorIsa isa);

#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#define TENSOR__T_AVX512 __attribute__((target("avx512f,avx512vl")))
#else
#define TENSOR__T_AVX512 __attribute__((target("avx512f,avx512vl,prefer-vector-width=512")))
#endif
#define TENSOR__T_AVX2 __attribute__((target("avx2")))
/* Defines static NAME__avx512 / NAME__avx2 / NAME__default from `static inline
 * __attribute__((always_inline)) void NAME__body PARAMS`; ARGS are PARAMS' names. */
#define TENSOR_MULTIVERSION(NAME, PARAMS, ARGS)                                                  \
    TENSOR__T_AVX512 static void NAME##__avx512 PARAMS { NAME##__body ARGS; }                    \
    TENSOR__T_AVX2 static void NAME##__avx2 PARAMS { NAME##__body ARGS; }                        \
    static void NAME##__default PARAMS { NAME##__body ARGS; }
#define TENSOR_ISA_CALL(NAME, ARGS)                                                              \
    do {                                                                                         \
        switch (tensor__isa()) {                                                                 \
        case TENSOR_ISA_AVX512: NAME##__avx512 ARGS; break;                                      \
        case TENSOR_ISA_AVX2: NAME##__avx2 ARGS; break;                                          \
        default: NAME##__default ARGS; break;                                                    \
        }                                                                                        \
    } while (0)
#else
#define TENSOR_MULTIVERSION(NAME, PARAMS, ARGS)                                                  \
    static void NAME##__default PARAMS { NAME##__body ARGS; }
#define TENSOR_ISA_CALL(NAME, ARGS) NAME##__default ARGS
#endif

#endif
