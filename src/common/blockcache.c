/* src/common/blockcache.c — the per-thread size-class cache of blockcache.h. */
#include "src/common/blockcache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define BLOCKCACHE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCKCACHE_OFF 1
#endif
#endif

#define SMALL_MAX 4096u                 /* 64-byte classes up to here */
#define LARGE_MAX (64u << 10)           /* 4 KiB classes up to here */
#define N_SMALL (SMALL_MAX / 64)        /* classes 0..63: 64..4096 bytes */
#define N_CLASSES (N_SMALL + (LARGE_MAX - SMALL_MAX) / 4096)
/* A training step's structs at their peak between two collections (tens of thousands of
 * tensors and nodes of a few hundred bytes) fit; a loop of 64 KiB temporaries keeps 512. */
#define BLOCKCACHE_MAX_BYTES ((size_t)32 << 20)

/* bytes this thread's callers hold (asked for minus given back, by the sizes they passed): the
 * VM's collector paces on it (blockcache_live_bytes).  Signed: a block freed by another thread
 * than the one that took it moves the two counts apart. */
static _Thread_local ptrdiff_t live_bytes;

size_t blockcache_live_bytes(void) { return live_bytes > 0 ? (size_t)live_bytes : 0; }

#ifndef BLOCKCACHE_OFF
typedef struct Bin {
    void *head;                         /* freed blocks, linked through their first word */
} Bin;
typedef struct Cache {
    Bin bin[N_CLASSES];
    size_t bytes;
    bool registered;                    /* the exit destructor knows this thread's cache */
} Cache;

static _Thread_local Cache cache;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* class index and the class's block size for a request of n bytes (n <= LARGE_MAX) */
static inline unsigned class_of(size_t n, size_t *size) {
    if (n <= SMALL_MAX) {
        unsigned c = n ? (unsigned)((n - 1) / 64) : 0;
        *size = (size_t)(c + 1) * 64;
        return c;
    }
    unsigned c = (unsigned)((n - SMALL_MAX - 1) / 4096);
    *size = SMALL_MAX + (size_t)(c + 1) * 4096;
    return N_SMALL + c;
}

static void flush(void *arg) {
    Cache *c = arg;
    for (unsigned i = 0; i < N_CLASSES; i++) {
        while (c->bin[i].head) {
            void *p = c->bin[i].head;
            c->bin[i].head = *(void **)p;
            free(p);
        }
    }
    c->bytes = 0;
}

static void make_key(void) { (void)pthread_key_create(&exit_key, flush); }

void *blockcache_alloc(size_t n) {
    live_bytes += (ptrdiff_t)n;
    if (n > LARGE_MAX) return malloc(n);
    size_t size;
    unsigned k = class_of(n, &size);
    void *p = cache.bin[k].head;
    if (p) {
        void *next = *(void **)p;
        cache.bin[k].head = next;
        cache.bytes -= size;
        /* Ask now for the block the class's next take will read its link from.  Between two
         * collections nothing a script dropped comes back, so a list is mostly blocks last
         * touched a collection ago (bench_ops.py's batch-1 MLP step: ~400 steps and ~13 MiB
         * of structs and storage between two), and that read was a miss the caller waited on.
         * Its first four lines: a Tensor struct is 216 bytes, and its shape and strides are
         * written and read as soon as it is made.  (A null next is a prefetch of address 0,
         * which x86 drops without a fault.) */
        __builtin_prefetch(next, 1, 3);
        if (size > 64) __builtin_prefetch((char *)next + 64, 1, 3);
        if (size > 128) __builtin_prefetch((char *)next + 128, 1, 3);
        if (size > 192) __builtin_prefetch((char *)next + 192, 1, 3);
        return p;
    }
    return size > SMALL_MAX ? aligned_alloc(64, size) : malloc(size);
}

void blockcache_free(void *p, size_t n) {
    if (!p) return;
    live_bytes -= (ptrdiff_t)n;
    size_t size;
    if (n > LARGE_MAX) {
        free(p);
        return;
    }
    unsigned k = class_of(n, &size);
    if (cache.bytes + size > BLOCKCACHE_MAX_BYTES) {
        free(p);
        return;
    }
    if (!cache.registered) {
        /* the thread's blocks go back to malloc when it exits */
        pthread_once(&exit_once, make_key);
        cache.registered = true;
        (void)pthread_setspecific(exit_key, &cache);
    }
    *(void **)p = cache.bin[k].head;
    cache.bin[k].head = p;
    cache.bytes += size;
}

bool blockcache_active(void) { return true; }
#else
bool blockcache_active(void) { return false; }
void *blockcache_alloc(size_t n) {
    live_bytes += (ptrdiff_t)n;
    return n > SMALL_MAX && n <= LARGE_MAX ? aligned_alloc(64, (n + 63) & ~(size_t)63) : malloc(n); }
void blockcache_free(void *p, size_t n) {
    if (p) live_bytes -= (ptrdiff_t)n;
    free(p);
}
#endif
