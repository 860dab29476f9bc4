/* vmath.c — whether vmath.h's functions call Sleef (the CPU runs PyTorch's AVX2 kernels) or
 * libm (PyTorch's DEFAULT kernels), decided once before main. */
#include "src/tensor/vmath.h"

bool tensor__vm_sleef;

__attribute__((constructor)) static void vmath_init(void) {
    __builtin_cpu_init();
    tensor__vm_sleef = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
