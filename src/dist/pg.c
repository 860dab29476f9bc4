/* src/dist/pg.c — process groups (pg.h): engine loading, the worker thread and its queue, work
 * completion, the reaper of works released before they finished, and the counters benchmarks
 * read.  Locking: one mutex per group guards its queue, the states of its works and its orphan
 * list; one condition variable wakes the worker (work queued, stop) and another the waiters (a
 * work finished). */
#include "src/dist/pg.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/dist/half.h"

#ifndef EMBER_DIST_BUILD_DIR
#define EMBER_DIST_BUILD_DIR ""
#endif
#ifndef EMBER_DIST_INSTALL_DIR
#define EMBER_DIST_INSTALL_DIR ""
#endif

struct DistPG {
    atomic_int refcount;
    const DistBackend *be;
    DistComm *comm;
    int rank, size;
    int64_t timeout_ms;
    pthread_mutex_t lock;
    pthread_cond_t work_cv, done_cv;
    pthread_t thread;
    bool thread_started, stopping;
    bool inline_next;          /* the next enqueue may run on the caller's thread (a blocking call) */
    int running;               /* works the worker has taken and not finished */
    DistWork *head, *tail;
    DistWork *orphans;
    int64_t seq;
    DistPGStats stats;
    bool failed;               /* an operation failed: the engine's links may be gone */
};

double dist_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- engines ------------------------------------------------------------------------------- */

typedef struct LoadedBackend {
    const char *name;
    const DistBackend *be;
    char err[DIST_ERR_LEN];
    bool tried;
} LoadedBackend;

static LoadedBackend loaded[] = {{"gloo", NULL, "", false}, {"mpi", NULL, "", false}};
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* Candidate paths of an engine's module: $EMBER_DIST_LIBDIR, the build tree, the install dir. */
static int module_paths(const char *name, char paths[3][1024]) {
    int n = 0;
    const char *dirs[3] = {getenv("EMBER_DIST_LIBDIR"), EMBER_DIST_BUILD_DIR, EMBER_DIST_INSTALL_DIR};
    for (int i = 0; i < 3; i++)
        if (dirs[i] && dirs[i][0]) snprintf(paths[n++], 1024, "%s/libember_%s.so", dirs[i], name);
    return n;
}

bool dist_backend_available(const char *name) {
    char paths[3][1024];
    int n = module_paths(name, paths);
    for (int i = 0; i < n; i++)
        if (access(paths[i], R_OK) == 0) return true;
    return false;
}

const DistBackend *dist_backend_load(const char *name, char *err, size_t errlen) {
    LoadedBackend *lb = NULL;
    for (size_t i = 0; i < sizeof loaded / sizeof *loaded; i++)
        if (strcmp(loaded[i].name, name) == 0) lb = &loaded[i];
    if (!lb) {
        snprintf(err, errlen, "Invalid backend: '%s'", name);
        return NULL;
    }
    pthread_mutex_lock(&load_lock);
    if (!lb->tried) {
        lb->tried = true;
        char paths[3][1024];
        int n = module_paths(name, paths);
        snprintf(lb->err, sizeof lb->err, "the %s engine of Ember (libember_%s.so) was not built or installed "
                 "(install libgloo-dev / libopenmpi-dev and rebuild)", name, name);
        for (int i = 0; i < n && !lb->be; i++) {
            if (access(paths[i], R_OK) != 0) continue;
            /* Open MPI's own plugins resolve libmpi's symbols globally */
            void *h = dlopen(paths[i], RTLD_NOW | (strcmp(name, "mpi") == 0 ? RTLD_GLOBAL : RTLD_LOCAL));
            if (!h) {
                snprintf(lb->err, sizeof lb->err, "cannot load the %s engine: %s", name, dlerror());
                continue;
            }
            char sym[64];
            snprintf(sym, sizeof sym, "ember_dist_backend_%s", name);
            DistBackendEntry entry = (DistBackendEntry)dlsym(h, sym);
            const DistBackend *be = entry ? entry() : NULL;
            if (!be || be->abi != DIST_BACKEND_ABI) {
                snprintf(lb->err, sizeof lb->err, "%s does not provide %s (ABI %d)", paths[i], sym, DIST_BACKEND_ABI);
                dlclose(h);
                continue;
            }
            lb->be = be;
        }
    }
    const DistBackend *be = lb->be;
    if (!be) snprintf(err, errlen, "%s", lb->err);
    pthread_mutex_unlock(&load_lock);
    return be;
}

/* ---- the worker ------------------------------------------------------------------------------ */

static void run_copies(DistWork *w) {
    for (int i = 0; i < w->n_after; i++) {
        DistCopy *c = &w->after[i];
        if (c->kind == DIST_COPY_BYTES) {
            if (c->n) memcpy(c->dst, c->src, (size_t)c->n);
        } else {
            const uint16_t *s = c->src;
            float *d = c->dst;
            for (int64_t j = 0; j < c->n; j++) d[j] = dist_half_to_float(s[j]);
        }
    }
}

static void *worker_main(void *arg) {
    DistPG *pg = arg;
    pthread_mutex_lock(&pg->lock);
    for (;;) {
        while (!pg->head && !pg->stopping) pthread_cond_wait(&pg->work_cv, &pg->lock);
        DistWork *w = pg->head;
        if (!w) break;   /* stopping, queue drained */
        pg->head = w->next;
        if (!pg->head) pg->tail = NULL;
        w->state = DIST_WORK_RUNNING;
        pg->running++;
        pthread_mutex_unlock(&pg->lock);

        char err[DIST_ERR_LEN] = "";
        double t0 = dist_now();
        int rc = pg->be->run(pg->comm, &w->call, err, sizeof err);
        if (rc == 0) run_copies(w);
        double t1 = dist_now();

        pthread_mutex_lock(&pg->lock);
        pg->running--;
        w->t_start = t0;
        w->t_end = t1;
        pg->stats.n_ops++;
        pg->stats.busy_s += t1 - t0;
        if (rc == 0) {
            w->state = DIST_WORK_DONE;
        } else {
            snprintf(w->err, sizeof w->err, "%s", err);
            w->state = DIST_WORK_FAILED;
            pg->failed = true;
        }
        pthread_cond_broadcast(&pg->done_cv);
        /* w may be freed by the main thread from here on */
    }
    pthread_mutex_unlock(&pg->lock);
    return NULL;
}

/* ---- groups ------------------------------------------------------------------------------------ */

DistPG *dist_pg_new(const DistBackend *be, DistComm *comm, int rank, int size, int64_t timeout_ms) {
    DistPG *pg = calloc(1, sizeof *pg);
    if (!pg) {
        be->destroy(comm);
        return NULL;
    }
    atomic_init(&pg->refcount, 1);
    pg->be = be;
    pg->comm = comm;
    pg->rank = rank;
    pg->size = size;
    pg->timeout_ms = timeout_ms;
    pthread_mutex_init(&pg->lock, NULL);
    pthread_cond_init(&pg->work_cv, NULL);
    pthread_cond_init(&pg->done_cv, NULL);
    return pg;
}

void dist_pg_incref(DistPG *pg) { atomic_fetch_add(&pg->refcount, 1); }

static void work_free(DistWork *w);

static void wait_orphan_p2p(DistPG *pg, DistWork *w) {
    if (w->is_p2p && !w->waited && w->req) {
        char err[DIST_ERR_LEN];
        (void)pg->be->wait(pg->comm, w->req, pg->timeout_ms, NULL, err, sizeof err);
        w->req = NULL;
        w->waited = true;
    }
}

void dist_pg_decref(DistPG *pg) {
    if (!pg || atomic_fetch_sub(&pg->refcount, 1) != 1) return;
    pthread_mutex_lock(&pg->lock);
    pg->stopping = true;
    pthread_cond_signal(&pg->work_cv);
    pthread_mutex_unlock(&pg->lock);
    if (pg->thread_started) pthread_join(pg->thread, NULL);
    for (DistWork *w = pg->orphans, *next; w; w = next) {
        next = w->orphan_next;
        wait_orphan_p2p(pg, w);
        work_free(w);
    }
    pg->be->destroy(pg->comm);
    pthread_cond_destroy(&pg->work_cv);
    pthread_cond_destroy(&pg->done_cv);
    pthread_mutex_destroy(&pg->lock);
    free(pg);
}

/* Gloo fails every operation of a link on which it has read the peer's end of file, even one
 * whose data had already arrived.  A collective ends on the ranks at different moments, so a rank
 * that finishes its last one and closes its links (destroy, exit) can fail a peer still waking up
 * inside it ("Connection closed by peer").  destroy_process_group therefore first takes a barrier
 * with the group's members: no rank closes before every rank has finished its collectives.  Its
 * own failure is ignored: the barrier is then the last operation, and a peer that has exited or
 * failed (or never destroys within max_ms) only ends it early.  MPI needs none: MPI_Finalize
 * is collective, and MPI has no timeouts to bound the wait. */
void dist_pg_quiesce(DistPG *pg, int64_t max_ms) {
    pthread_mutex_lock(&pg->lock);
    bool skip = pg->failed || pg->size <= 1 || strcmp(pg->be->name, "gloo") != 0;
    pthread_mutex_unlock(&pg->lock);
    if (skip) return;
    int64_t t = pg->timeout_ms > 0 && pg->timeout_ms < max_ms ? pg->timeout_ms : max_ms;
    DistCall c = {.kind = DIST_BARRIER, .timeout_ms = t};
    DistWork *w = dist_work_new(pg, &c, "barrier");
    if (!w) return;
    dist_pg_enqueue(pg, w);
    char err[DIST_ERR_LEN];
    (void)dist_work_wait(w, t + 1000, err, sizeof err);
    dist_work_release(w);
}

int dist_pg_rank(const DistPG *pg) { return pg->rank; }
int dist_pg_size(const DistPG *pg) { return pg->size; }
const DistBackend *dist_pg_backend(const DistPG *pg) { return pg->be; }
DistComm *dist_pg_comm(const DistPG *pg) { return pg->comm; }
int64_t dist_pg_timeout(const DistPG *pg) { return pg->timeout_ms; }

DistPGStats dist_pg_stats(DistPG *pg) {
    pthread_mutex_lock(&pg->lock);
    DistPGStats s = pg->stats;
    pthread_mutex_unlock(&pg->lock);
    return s;
}

void dist_pg_reset_stats(DistPG *pg) {
    pthread_mutex_lock(&pg->lock);
    pg->stats = (DistPGStats){0};
    pthread_mutex_unlock(&pg->lock);
}

void dist_pg_reap(DistPG *pg) {
    DistWork *done = NULL;
    pthread_mutex_lock(&pg->lock);
    DistWork **link = &pg->orphans;
    while (*link) {
        DistWork *w = *link;
        bool finished = w->is_p2p ? w->waited : (w->state == DIST_WORK_DONE || w->state == DIST_WORK_FAILED);
        if (finished) {
            *link = w->orphan_next;
            w->orphan_next = done;
            done = w;
        } else {
            link = &w->orphan_next;
        }
    }
    pthread_mutex_unlock(&pg->lock);
    while (done) {
        DistWork *next = done->orphan_next;
        work_free(done);
        done = next;
    }
}

/* ---- works ----------------------------------------------------------------------------------- */

DistWork *dist_work_new(DistPG *pg, const DistCall *call, const char *opname) {
    DistWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->pg = pg;
    dist_pg_incref(pg);
    w->call = *call;
    w->opname = opname;
    w->src_rank = -1;
    if (call->in_counts || call->out_counts) {
        int64_t *c = w->counts;
        if (pg->size > 64) {
            w->counts_heap = malloc(sizeof(int64_t) * 2 * (size_t)pg->size);
            if (!w->counts_heap) {
                dist_pg_decref(pg);
                free(w);
                return NULL;
            }
            c = w->counts_heap;
        }
        for (int r = 0; r < pg->size; r++) {
            c[r] = call->in_counts ? call->in_counts[r] : call->count;
            c[pg->size + r] = call->out_counts ? call->out_counts[r] : call->count;
        }
        w->call.in_counts = c;
        w->call.out_counts = c + pg->size;
    }
    if (w->call.timeout_ms <= 0) w->call.timeout_ms = pg->timeout_ms;
    return w;
}

int dist_work_hold(DistWork *w, Tensor *t) {
    if (w->n_held == w->cap_held) {
        int cap = w->cap_held ? w->cap_held * 2 : 4;
        Tensor **h = realloc(w->held, sizeof *h * (size_t)cap);
        if (!h) return -1;
        w->held = h, w->cap_held = cap;
    }
    tensor_incref(t);
    w->held[w->n_held++] = t;
    return 0;
}

int dist_work_add_copy(DistWork *w, DistCopy c) {
    DistCopy *a = realloc(w->after, sizeof *a * (size_t)(w->n_after + 1));
    if (!a) return -1;
    w->after = a;
    w->after[w->n_after++] = c;
    return 0;
}

void dist_pg_run_next_inline(DistPG *pg) { pg->inline_next = true; }

/* A blocking call with nothing queued or running goes straight to the engine on the caller's
 * thread: the order of collectives is kept, and two thread hand-offs (each a scheduler wake-up on
 * a loaded machine) leave the critical path. */
static bool run_inline(DistPG *pg, DistWork *w) {
    if (!pg->inline_next) return false;
    pg->inline_next = false;
    pthread_mutex_lock(&pg->lock);
    bool idle = !pg->head && pg->running == 0;
    if (idle) {
        w->seq = pg->seq++;
        w->call.tag = (uint32_t)w->seq;
        w->t_queued = dist_now();
        w->state = DIST_WORK_RUNNING;
    }
    pthread_mutex_unlock(&pg->lock);
    if (!idle) return false;
    char err[DIST_ERR_LEN] = "";
    double t0 = dist_now();
    int rc = pg->be->run(pg->comm, &w->call, err, sizeof err);
    if (rc == 0) run_copies(w);
    double t1 = dist_now();
    pthread_mutex_lock(&pg->lock);
    w->t_start = t0;
    w->t_end = t1;
    pg->stats.n_ops++;
    pg->stats.busy_s += t1 - t0;
    if (rc == 0) {
        w->state = DIST_WORK_DONE;
    } else {
        snprintf(w->err, sizeof w->err, "%s", err);
        w->state = DIST_WORK_FAILED;
        pg->failed = true;
    }
    pthread_mutex_unlock(&pg->lock);
    return true;
}

void dist_pg_enqueue(DistPG *pg, DistWork *w) {
    dist_pg_reap(pg);
    if (run_inline(pg, w)) return;
    pthread_mutex_lock(&pg->lock);
    if (!pg->thread_started) {
        pg->thread_started = pthread_create(&pg->thread, NULL, worker_main, pg) == 0;
        if (!pg->thread_started) {
            snprintf(w->err, sizeof w->err, "could not start the process group's worker thread");
            w->state = DIST_WORK_FAILED;
            pthread_mutex_unlock(&pg->lock);
            return;
        }
    }
    w->seq = pg->seq++;
    w->call.tag = (uint32_t)w->seq;
    w->t_queued = dist_now();
    w->state = DIST_WORK_QUEUED;
    w->next = NULL;
    if (pg->tail)
        pg->tail->next = w;
    else
        pg->head = w;
    pg->tail = w;
    pthread_cond_signal(&pg->work_cv);
    pthread_mutex_unlock(&pg->lock);
}

int dist_work_start_p2p(DistWork *w, bool is_send, void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                        size_t errlen) {
    DistPG *pg = w->pg;
    dist_pg_reap(pg);
    w->is_p2p = true;
    w->t_queued = w->t_start = dist_now();
    w->req = is_send ? pg->be->send(pg->comm, buf, nbytes, peer, tag, err, errlen)
                     : pg->be->recv(pg->comm, buf, nbytes, peer, tag, err, errlen);
    if (!w->req) {
        w->waited = true;
        w->state = DIST_WORK_FAILED;
        snprintf(w->err, sizeof w->err, "%s", err);
        return -1;
    }
    w->state = DIST_WORK_RUNNING;
    return 0;
}

static int wait_p2p(DistWork *w, int64_t timeout_ms, char *err, size_t errlen) {
    DistPG *pg = w->pg;
    if (!w->waited) {
        double t0 = dist_now();
        int src = -1;
        int rc = pg->be->wait(pg->comm, w->req, timeout_ms, &src, w->err, sizeof w->err);
        w->req = NULL;
        w->waited = true;
        w->t_end = dist_now();
        w->state = rc == 0 ? DIST_WORK_DONE : DIST_WORK_FAILED;
        w->src_rank = src;
        pthread_mutex_lock(&pg->lock);
        pg->stats.wait_s += w->t_end - t0;
        if (rc != 0) pg->failed = true;
        pthread_mutex_unlock(&pg->lock);
    }
    if (w->state == DIST_WORK_FAILED) {
        snprintf(err, errlen, "%s", w->err);
        return -1;
    }
    return 0;
}

int dist_work_wait(DistWork *w, int64_t timeout_ms, char *err, size_t errlen) {
    DistPG *pg = w->pg;
    if (timeout_ms < 0) timeout_ms = pg->timeout_ms;
    if (w->is_p2p) return wait_p2p(w, timeout_ms, err, errlen);
    double t0 = dist_now();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) deadline.tv_sec++, deadline.tv_nsec -= 1000000000;
    int rc = 0;
    pthread_mutex_lock(&pg->lock);
    while (w->state == DIST_WORK_QUEUED || w->state == DIST_WORK_RUNNING) {
        if (pthread_cond_timedwait(&pg->done_cv, &pg->lock, &deadline) == ETIMEDOUT &&
            (w->state == DIST_WORK_QUEUED || w->state == DIST_WORK_RUNNING)) {
            snprintf(err, errlen, "Timed out after %lld ms waiting for %s (operation %lld of rank %d) to complete",
                     (long long)timeout_ms, w->opname, (long long)w->seq, pg->rank);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && w->state == DIST_WORK_FAILED) {
        snprintf(err, errlen, "%s", w->err);
        rc = -1;
    }
    pg->stats.wait_s += dist_now() - t0;
    pthread_mutex_unlock(&pg->lock);
    return rc;
}

DistWorkState dist_work_state(DistWork *w) {
    pthread_mutex_lock(&w->pg->lock);
    DistWorkState s = w->state;
    pthread_mutex_unlock(&w->pg->lock);
    return s;
}

void dist_work_drop_buffers(DistWork *w) {
    for (int i = 0; i < w->n_held; i++) tensor_decref(w->held[i]);
    free(w->held);
    free(w->after);
    free(w->stage);
    w->held = NULL;
    w->after = NULL;
    w->stage = NULL;
    w->n_held = w->cap_held = w->n_after = 0;
}

static void work_free(DistWork *w) {
    dist_work_drop_buffers(w);
    free(w->counts_heap);
    free(w);
}

void dist_work_release(DistWork *w) {
    if (!w) return;
    DistPG *pg = w->pg;
    pthread_mutex_lock(&pg->lock);
    bool finished = w->is_p2p ? w->waited : (w->state == DIST_WORK_DONE || w->state == DIST_WORK_FAILED);
    if (!finished) {
        w->orphan_next = pg->orphans;
        pg->orphans = w;
    }
    pthread_mutex_unlock(&pg->lock);
    if (finished) work_free(w);
    dist_pg_decref(pg);
}
