/* pool.c — the worker pool fused loops run on: the calling thread and up to RT_MAX_THREADS-1
 * workers split a range of work units (contiguous parts, one per thread, taken in order).
 * Workers spin briefly after a job (the next loop usually follows within microseconds), then
 * sleep on a condition variable.  Elementwise work split this way computes every element
 * exactly as one thread would, so results do not depend on the thread count.
 *
 * EMBER_RT_THREADS=N turns the pool on with N threads (at most RT_MAX_THREADS; "all" = the online
 * CPUs).  It is off by default: spinning workers help a quiet machine and hurt a shared one
 * (several test processes, other jobs), and the eager kernels they compete with are
 * single-threaded anyway.  Jobs never nest: a job started while one runs (a re-entrant run from a
 * worker cannot happen — fused loops call no callbacks) runs on the caller alone. */
#include "src/runtime/rt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_MAX_THREADS 8
#define SPIN_ITERS 20000

typedef struct Job {
    RtTask fn;
    void *ctx;
    int64_t n;
    int parts;
    atomic_int next;         /* next part to take */
    atomic_int done;         /* parts finished */
} Job;

static struct {
    pthread_once_t once;
    int threads;             /* including the caller */
    pthread_t tid[RT_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t wake, finished;
    atomic_uint generation;  /* bumped per job */
    _Atomic(Job *) job;
    atomic_int active;       /* workers that may be looking at job */
    atomic_bool busy;
} pool = {.once = PTHREAD_ONCE_INIT};

static void run_parts(Job *j) {
    for (;;) {
        int part = atomic_fetch_add(&j->next, 1);
        if (part >= j->parts) return;
        int64_t b = j->n * part / j->parts, e = j->n * (part + 1) / j->parts;
        if (b < e) j->fn(j->ctx, b, e);
        if (atomic_fetch_add(&j->done, 1) + 1 == j->parts) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_signal(&pool.finished);
            pthread_mutex_unlock(&pool.mu);
        }
    }
}

static void *worker(void *arg) {
    (void)arg;
    unsigned seen = atomic_load(&pool.generation);
    for (;;) {
        unsigned g;
        int spin = 0;
        while ((g = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen && spin < SPIN_ITERS) spin++;
        if (g == seen) {
            pthread_mutex_lock(&pool.mu);
            while ((g = atomic_load(&pool.generation)) == seen) pthread_cond_wait(&pool.wake, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
        }
        seen = g;
        /* announce before looking: the caller waits for active == 0 before its Job (on its
         * stack) goes away */
        atomic_fetch_add(&pool.active, 1);
        Job *j = atomic_load(&pool.job);
        if (j) run_parts(j);
        atomic_fetch_sub(&pool.active, 1);
    }
    return NULL;
}

/* a forked child has none of the workers: it runs every job alone */
static void after_fork_child(void) {
    pool.threads = 1;
    atomic_store(&pool.busy, false);
    atomic_store(&pool.active, 0);
    atomic_store(&pool.job, NULL);
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
}

static void pool_init(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = 1;
    const char *env = getenv("EMBER_RT_THREADS");
    if (env && strcmp(env, "all") == 0) n = cpus > 0 ? (int)cpus : 1;
    else if (env && atoi(env) > 0) n = atoi(env);
    if (n > RT_MAX_THREADS) n = RT_MAX_THREADS;
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
    pool.threads = 1;
    for (int i = 1; i < n; i++) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&pool.tid[i], &at, worker, NULL) == 0) pool.threads++;
        pthread_attr_destroy(&at);
    }
}

int rt_pool_threads(void) {
    pthread_once(&pool.once, pool_init);
    return pool.threads;
}

void rt_parallel(int64_t n, RtTask fn, void *ctx) {
    int t = rt_pool_threads();
    bool expected = false;
    if (t <= 1 || n < 2 || !atomic_compare_exchange_strong(&pool.busy, &expected, true)) {
        fn(ctx, 0, n);
        return;
    }
    /* several parts per thread: whoever is free takes the next, so a late worker costs nothing */
    Job j = {.fn = fn, .ctx = ctx, .n = n, .parts = n < 4 * t ? (int)n : 4 * t};
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    pthread_mutex_lock(&pool.mu);
    atomic_store(&pool.job, &j);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    run_parts(&j);
    int spin = 0;
    while (atomic_load(&j.done) < j.parts && spin < SPIN_ITERS) spin++;
    if (atomic_load(&j.done) < j.parts) {
        pthread_mutex_lock(&pool.mu);
        while (atomic_load(&j.done) < j.parts) pthread_cond_wait(&pool.finished, &pool.mu);
        pthread_mutex_unlock(&pool.mu);
    }
    /* late workers find no job, or are counted in active until they leave it */
    atomic_store(&pool.job, NULL);
    while (atomic_load(&pool.active) > 0) {
    }
    atomic_store(&pool.busy, false);
}
