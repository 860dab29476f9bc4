/* parallel.c — the intra-op thread pool (see parallel.h) and the thread-count setting it shares
 * with the matrix products: torch.set_num_threads / get_num_threads and the inter-op count.
 *
 * A job is published in one 64-bit ticket: generation (32 bits) | pieces (16) | next piece (16).
 * A thread claims a piece by compare-and-swap on the ticket, so a worker that wakes late for an
 * old job can never take a piece of a new one; the job's fields (fn, ctx, n) are written before
 * the ticket is released and rewritten only after every piece is finished, so a thread that
 * holds a claimed piece reads them safely.  Workers spin briefly after a job (the next kernel
 * usually follows within microseconds), then sleep on a condition variable: an idle process does
 * not burn the other core.  The caller takes pieces too and waits for the last one the same way.
 *
 * Jobs never nest and never overlap: a call from inside a piece, or while another thread's job
 * runs, goes inline.  Workers only ever run kernel code on tensor memory: no VM object is touched
 * off the main thread. */
#include "src/tensor/parallel.h"

#include "ember/tensor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORKERS 63
#define MAX_PIECES 4096
/* pause iterations a worker waits for the next job, and the caller for the last piece, before
 * sleeping: tens of microseconds */
#define SPIN_ITERS 4000

#define T_GEN(t) ((uint32_t)((t) >> 32))
#define T_PIECES(t) ((uint32_t)(((t) >> 16) & 0xffff))
#define T_NEXT(t) ((uint32_t)((t)&0xffff))

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static struct {
    pthread_once_t once;
    atomic_int threads;          /* the setting (torch.get_num_threads), callers included */
    atomic_int interop;          /* 0 until set_num_interop_threads */
    pthread_mutex_t mu;          /* guards sleeping and the condition variables */
    pthread_cond_t wake, finished;
    int live;                    /* workers started; changed only while holding busy */
    atomic_int limit;            /* workers with index > limit leave */
    pthread_t tid[MAX_WORKERS + 1];
    atomic_int sleepers;
    atomic_bool busy;            /* a job (or a resize) is in progress */
    _Atomic uint64_t ticket;
    atomic_int pending;          /* pieces of the current job not yet finished */
    TensorTask fn;
    void *ctx;
    int64_t n;
} pool = {.once = PTHREAD_ONCE_INIT};

static _Thread_local bool in_parallel;

/* ---- the default count ------------------------------------------------------------------------ */

/* A positive OMP_NUM_THREADS / MKL_NUM_THREADS (PyTorch reads them with std::stoi: leading
 * digits count, anything else is ignored). */
static int env_threads(const char *name) {
    const char *s = getenv(name);
    if (!s) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    return end != s && v > 0 && v <= 1 << 20 ? (int)v : 0;
}

/* PyTorch 1.13's default (TaskThreadPoolBase::defaultNumThreads, which both the intra-op and
 * inter-op counts fall back to): std::thread::hardware_concurrency(), halved on x86-64 (taken as
 * hyper-threads), so torch.get_num_threads() prints what the reference prints on this machine.
 * PyTorch 2.x counts physical cores instead; at least 1 either way. */
static int default_threads(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
#if defined(__x86_64__)
    cpus /= 2;
#endif
    return cpus < 1 ? 1 : cpus > MAX_WORKERS + 1 ? MAX_WORKERS + 1 : (int)cpus;
}

static void after_fork_child(void);

static void pool_init(void) {
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
    pthread_atfork(NULL, NULL, after_fork_child);
    int n = env_threads("OMP_NUM_THREADS");
    int m = env_threads("MKL_NUM_THREADS");
    if (m) n = m;
    if (!n) n = default_threads();
    atomic_store(&pool.threads, n);
    atomic_store(&pool.limit, MAX_WORKERS);
}

static inline void ensure_init(void) { pthread_once(&pool.once, pool_init); }

/* A forked child has none of the workers; the next job starts them again. */
static void after_fork_child(void) {
    pool.live = 0;
    atomic_store(&pool.busy, false);
    atomic_store(&pool.sleepers, 0);
    atomic_store(&pool.pending, 0);
    atomic_store(&pool.limit, MAX_WORKERS);
    in_parallel = false;
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
}

/* ---- running a job ---------------------------------------------------------------------------- */

/* Claims and runs pieces of job generation `gen` (ticket t was read with acquire) until none is
 * left or a new job replaced it. */
static void take_pieces(uint64_t t, uint32_t gen) {
    for (;;) {
        if (T_GEN(t) != gen || T_NEXT(t) >= T_PIECES(t)) return;
        if (!atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        /* piece T_NEXT(t) is ours: the job stays as published until we finish it */
        int64_t pieces = T_PIECES(t), k = T_NEXT(t);
        int64_t b = pool.n * k / pieces, e = pool.n * (k + 1) / pieces;
        pool.fn(pool.ctx, b, e);
        if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_broadcast(&pool.finished);
            pthread_mutex_unlock(&pool.mu);
        }
        t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    }
}

static void *worker(void *arg) {
    int idx = (int)(intptr_t)arg;
    in_parallel = true;
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    uint32_t seen = T_GEN(t);
    for (;;) {
        int spin = 0;
        while ((T_GEN(t = atomic_load_explicit(&pool.ticket, memory_order_acquire))) == seen && spin < SPIN_ITERS &&
               idx <= atomic_load_explicit(&pool.limit, memory_order_relaxed)) {
            cpu_relax();
            spin++;
        }
        if (T_GEN(t) == seen) {
            pthread_mutex_lock(&pool.mu);
            atomic_fetch_add(&pool.sleepers, 1);
            while (T_GEN(t = atomic_load(&pool.ticket)) == seen && idx <= atomic_load(&pool.limit))
                pthread_cond_wait(&pool.wake, &pool.mu);
            atomic_fetch_sub(&pool.sleepers, 1);
            pthread_mutex_unlock(&pool.mu);
        }
        if (idx > atomic_load(&pool.limit)) return NULL;
        seen = T_GEN(t);
        take_pieces(t, seen);
    }
}

/* Starts workers up to want-1 or stops those beyond it; the caller holds busy. */
static void resize(int want) {
    int target = want - 1 > MAX_WORKERS ? MAX_WORKERS : want - 1;
    if (target < pool.live) {
        atomic_store(&pool.limit, target);
        pthread_mutex_lock(&pool.mu);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.mu);
        for (int i = target + 1; i <= pool.live; i++) pthread_join(pool.tid[i], NULL);
        pool.live = target;
        atomic_store(&pool.limit, MAX_WORKERS);
    }
    while (pool.live < target) {
        if (pthread_create(&pool.tid[pool.live + 1], NULL, worker, (void *)(intptr_t)(pool.live + 1)) != 0) break;
        pool.live++;
    }
}

static bool acquire_busy(void) {
    bool expected = false;
    return atomic_compare_exchange_strong(&pool.busy, &expected, true);
}

void tensor_parallel_for(int64_t n, int64_t grain, TensorTask fn, void *ctx) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    ensure_init();
    int want = atomic_load_explicit(&pool.threads, memory_order_relaxed);
    if (want <= 1 || n <= grain || in_parallel || !acquire_busy()) {
        fn(ctx, 0, n);
        return;
    }
    if (pool.live != (want - 1 > MAX_WORKERS ? MAX_WORKERS : want - 1)) resize(want);
    int threads = pool.live + 1;
    /* several pieces a thread: whoever is free takes the next, so a worker that lost its core
     * to another process delays the job by one piece, not by half of it */
    int64_t pieces = (n + grain - 1) / grain;
    if (pieces > 4 * threads) pieces = 4 * threads;
    if (pieces > MAX_PIECES) pieces = MAX_PIECES;
    if (pieces < 2 || threads < 2) {
        atomic_store(&pool.busy, false);
        fn(ctx, 0, n);
        return;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    atomic_store_explicit(&pool.pending, (int)pieces, memory_order_relaxed);
    uint32_t gen = T_GEN(atomic_load_explicit(&pool.ticket, memory_order_relaxed)) + 1;
    uint64_t t = (uint64_t)gen << 32 | (uint64_t)pieces << 16;
    atomic_store(&pool.ticket, t); /* seq_cst: pairs with the sleepers count below */
    if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.mu);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.mu);
    }
    in_parallel = true;
    take_pieces(t, gen);
    in_parallel = false;
    int spin = 0;
    while (atomic_load_explicit(&pool.pending, memory_order_acquire) > 0 && spin < SPIN_ITERS) {
        cpu_relax();
        spin++;
    }
    if (atomic_load_explicit(&pool.pending, memory_order_acquire) > 0) {
        pthread_mutex_lock(&pool.mu);
        while (atomic_load(&pool.pending) > 0) pthread_cond_wait(&pool.finished, &pool.mu);
        pthread_mutex_unlock(&pool.mu);
    }
    atomic_store(&pool.busy, false);
}

bool tensor_in_parallel_region(void) { return in_parallel; }

int tensor__pool_workers(void) {
    ensure_init();
    return pool.live;
}

/* ---- the settings ----------------------------------------------------------------------------- */

void tensor_set_num_threads(int n) {
    if (n < 1) n = 1;
    ensure_init();
    atomic_store(&pool.threads, n);
    /* workers beyond the new count leave now, not at the next job (a job in progress on
     * another thread keeps them until it ends: they are stopped by the next call) */
    if (!in_parallel && acquire_busy()) {
        if (pool.live > n - 1) resize(n);
        atomic_store(&pool.busy, false);
    }
}

int tensor_get_num_threads(void) {
    ensure_init();
    return atomic_load(&pool.threads);
}

/* Inter-op threads size the pool PyTorch runs torch.jit.fork tasks on; Ember runs such tasks
 * inline, so the setting is only kept and reported, with PyTorch's rules: set once, before use. */
int tensor_get_num_interop_threads(void) {
    ensure_init();
    int n = atomic_load(&pool.interop);
    return n > 0 ? n : default_threads();
}

int tensor_set_num_interop_threads(int n) {
    int expected = 0;
    return atomic_compare_exchange_strong(&pool.interop, &expected, n) ? 0 : -1;
}
