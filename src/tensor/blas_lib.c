/* blas_lib.c — loads OpenBLAS on the first product and fills the table of its entry points
 * (blas_lib.h says why it is not linked at start-up).  The library is the one the build was
 * configured with: its pkg-config libdir first (EMBER_BLAS_LIBDIR), then the loader's search
 * path, by OpenBLAS's soname and then by its development name. */
#include "src/tensor/blas_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EMBER_BLAS_LIBDIR
#define EMBER_BLAS_LIBDIR ""
#endif

/* RTLD_DEEPBIND: most of OpenBLAS's ~16,000 symbol relocations name its own symbols; looked up
 * in the library's own scope first rather than through every object the process has loaded,
 * loading it costs 7.0M instructions instead of 14.3M (callgrind; linked at start-up it was
 * ~9.5M).  The sanitizers' runtimes refuse RTLD_DEEPBIND (they interpose malloc), so sanitized
 * builds load it the ordinary way. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EMBER_NO_DEEPBIND 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(EMBER_NO_DEEPBIND)
#define BLAS_DLOPEN_FLAGS (RTLD_LAZY | RTLD_LOCAL)
#else
#define BLAS_DLOPEN_FLAGS (RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

const BlasLib *_Atomic tensor__blas_table;

static BlasLib blas_lib;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void *open_openblas(void) {
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    char path[4096];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (EMBER_BLAS_LIBDIR[0]) {
            snprintf(path, sizeof path, "%s/%s", EMBER_BLAS_LIBDIR, names[i]);
            void *h = dlopen(path, BLAS_DLOPEN_FLAGS);
            if (h) return h;
        }
        void *h = dlopen(names[i], BLAS_DLOPEN_FLAGS);
        if (h) return h;
    }
    return NULL;
}

static void load_blas(void) {
    void *h = open_openblas();
    if (!h) {
        fprintf(stderr, "ember: cannot load OpenBLAS (libopenblas.so.0 from '%s' or the loader's path): %s\n",
                EMBER_BLAS_LIBDIR, dlerror());
        exit(1);
    }
#define EMBER_BLAS_RESOLVE(f)                                                                \
    if (!(*(void **)&blas_lib.f = dlsym(h, #f))) {                                           \
        fprintf(stderr, "ember: OpenBLAS has no symbol %s: %s\n", #f, dlerror());            \
        exit(1);                                                                             \
    }
    EMBER_BLAS_FUNCTIONS(EMBER_BLAS_RESOLVE)
#undef EMBER_BLAS_RESOLVE
    /* OpenBLAS keeps the thread count it chose for itself, as under PyTorch: how it splits a
     * product between its threads changes the bits (blas.c, GEMM_STRIDED) */
    atomic_store_explicit(&tensor__blas_table, &blas_lib, memory_order_release);
}

const BlasLib *tensor__blas_load(void) {
    pthread_once(&blas_once, load_blas);
    return &blas_lib;
}
