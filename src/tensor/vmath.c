/* vmath.c — whether vmath.h's functions call Sleef (the CPU runs PyTorch's AVX2 kernels) or
 * libm (PyTorch's DEFAULT kernels), decided once before main; and the table through which they
 * reach Sleef, filled from the library by the first call that needs it (vmath.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/tensor/vmath.h"

bool tensor__vm_sleef;

__attribute__((constructor)) static void vmath_init(void) {
    __builtin_cpu_init();
    tensor__vm_sleef = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static pthread_once_t sleef_once = PTHREAD_ONCE_INIT;

/* Each slot's symbol in libsleef: Sleef_<name>f1_<u>purecfma, ..d1.., <name>f8_<u>avx2, ..d4.. */
static void *sleef_symbol(void *lib, const char *name, const char *form, const char *u, const char *variant) {
    char sym[64];
    snprintf(sym, sizeof sym, "Sleef_%s%s_%s%s", name, form, u, variant);
    void *p = dlsym(lib, sym);
    if (!p) {
        fprintf(stderr, "ember: %s is missing from libsleef\n", sym);
        abort();
    }
    return p;
}

/* Sleef was a link-time dependency, so a missing library is the same fatal error it was at
 * start-up; computing with libm instead would silently change the bits. */
static void sleef_load(void) {
    void *lib = dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libsleef.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "ember: cannot load Sleef (libsleef.so.3): %s\n", dlerror());
        abort();
    }
#define VMATH_RESOLVE(NAME, U, LIBF, LIBD)                                                                   \
    __atomic_store_n((void **)&tensor__sleef.NAME##_f1, sleef_symbol(lib, #NAME, "f1", #U, "purecfma"), __ATOMIC_RELEASE); \
    __atomic_store_n((void **)&tensor__sleef.NAME##_d1, sleef_symbol(lib, #NAME, "d1", #U, "purecfma"), __ATOMIC_RELEASE); \
    __atomic_store_n((void **)&tensor__sleef.NAME##_f8, sleef_symbol(lib, #NAME, "f8", #U, "avx2"), __ATOMIC_RELEASE);     \
    __atomic_store_n((void **)&tensor__sleef.NAME##_d4, sleef_symbol(lib, #NAME, "d4", #U, "avx2"), __ATOMIC_RELEASE);
    VMATH_FUNCTIONS(VMATH_RESOLVE)
#undef VMATH_RESOLVE
    __atomic_store_n((void **)&tensor__sleef.pow_f1, sleef_symbol(lib, "pow", "f1", "u10", "purecfma"), __ATOMIC_RELEASE);
    __atomic_store_n((void **)&tensor__sleef.pow_d1, sleef_symbol(lib, "pow", "d1", "u10", "purecfma"), __ATOMIC_RELEASE);
}

/* The loaders the slots start at: load the library, then call what the slot now holds. */
#define VMATH_LOADERS(NAME, U, LIBF, LIBD)                                                           \
    static float NAME##_f1_loader(float x) {                                                         \
        pthread_once(&sleef_once, sleef_load);                                                     \
        return VMATH_SLEEF(NAME##_f1)(x);                                                          \
    }                                                                                              \
    static double NAME##_d1_loader(double x) {                                                       \
        pthread_once(&sleef_once, sleef_load);                                                     \
        return VMATH_SLEEF(NAME##_d1)(x);                                                          \
    }                                                                                              \
    VMATH_AVX2 static __m256 NAME##_f8_loader(__m256 x) {                                            \
        pthread_once(&sleef_once, sleef_load);                                                     \
        return VMATH_SLEEF(NAME##_f8)(x);                                                          \
    }                                                                                              \
    VMATH_AVX2 static __m256d NAME##_d4_loader(__m256d x) {                                          \
        pthread_once(&sleef_once, sleef_load);                                                     \
        return VMATH_SLEEF(NAME##_d4)(x);                                                          \
    }
VMATH_FUNCTIONS(VMATH_LOADERS)
#undef VMATH_LOADERS

static float pow_f1_loader(float x, float y) {
    pthread_once(&sleef_once, sleef_load);
    return VMATH_SLEEF(pow_f1)(x, y);
}
static double pow_d1_loader(double x, double y) {
    pthread_once(&sleef_once, sleef_load);
    return VMATH_SLEEF(pow_d1)(x, y);
}

#define VMATH_INIT(NAME, U, LIBF, LIBD)                                                            \
    .NAME##_f1 = NAME##_f1_loader, .NAME##_d1 = NAME##_d1_loader, .NAME##_f8 = NAME##_f8_loader, .NAME##_d4 = NAME##_d4_loader,
VmathSleef tensor__sleef = {VMATH_FUNCTIONS(VMATH_INIT) .pow_f1 = pow_f1_loader, .pow_d1 = pow_d1_loader};
#undef VMATH_INIT
