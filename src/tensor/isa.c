/* isa.c — detecting the vector instruction set the multiversioned loops use (isa.h). */
#include "src/tensor/isa.h"

#include <stdlib.h>
#include <string.h>

int tensor__isa_level = -1;

bool tensor__isa_supported(TensorIsa isa) {
    switch (isa) {
    case TENSOR_ISA_DEFAULT: return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case TENSOR_ISA_AVX2: __builtin_cpu_init(); return __builtin_cpu_supports("avx2");
    case TENSOR_ISA_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#endif
    default: return false;
    }
}

const char *tensor__isa_name(TensorIsa isa) {
    return isa == TENSOR_ISA_AVX512 ? "avx512" : isa == TENSOR_ISA_AVX2 ? "avx2" : "default";
}

TensorIsa tensor__isa_detect(void) {
    TensorIsa best = TENSOR_ISA_DEFAULT;
    if (tensor__isa_supported(TENSOR_ISA_AVX512)) best = TENSOR_ISA_AVX512;
    else if (tensor__isa_supported(TENSOR_ISA_AVX2)) best = TENSOR_ISA_AVX2;
    const char *cap = getenv("EMBER_ISA");
    if (cap) {
        TensorIsa c = strcmp(cap, "avx512") == 0 ? TENSOR_ISA_AVX512 : strcmp(cap, "avx2") == 0 ? TENSOR_ISA_AVX2
                                                                                               : TENSOR_ISA_DEFAULT;
        if (c < best) best = c;
    }
    tensor__isa_level = (int)best;
    return best;
}

int tensor__isa_set(TensorIsa isa) {
    if (!tensor__isa_supported(isa)) return -1;
    tensor__isa_level = (int)isa;
    return 0;
}
