/* src/dist/pg.h — process groups and their work, above the engines of backend.h and below the
 * VM bindings (dist_module.c).  VM-free: it knows tensors only as refcounted C tensors it keeps
 * alive while an engine reads or writes their memory.
 *
 * Design note.  A group owns one communicator of one engine and one worker thread.  Every
 * collective is queued, in call order, and run by the worker, so that calls return at once
 * (async_op=True, and DDP's bucket all-reduces launched from backward hooks) while the ranks still
 * issue the same collectives in the same order; a blocking call is a queued call followed by
 * wait.  Point-to-point operations start in the caller's thread (as in PyTorch's engines) and
 * complete in wait.  The worker only touches raw buffers: the tensors behind them are referenced
 * by the work and released on the main thread, by wait or by the reaper that runs at the next
 * call (the tensor library's refcounts are not atomic).
 *
 *   DistWork *w = dist_work_new(pg, &call);          // the call's buffers belong to tensors
 *   dist_work_hold(w, tensor);                       // kept alive until w is released
 *   dist_pg_enqueue(pg, w);
 *   if (dist_work_wait(w, -1, err, sizeof err) < 0) ... err says what failed and why
 *   dist_work_release(w);                            // main thread
 */
#ifndef EMBER_DIST_PG_H
#define EMBER_DIST_PG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ember/tensor.h"
#include "src/dist/backend.h"

typedef struct DistPG DistPG;

/* A copy the worker makes after the engine is done (staging buffer -> a tensor's memory). */
typedef enum DistCopyKind { DIST_COPY_BYTES, DIST_COPY_F16_TO_F32 } DistCopyKind;
typedef struct DistCopy {
    void *dst;
    const void *src;
    int64_t n;                 /* bytes, or elements for a conversion */
    DistCopyKind kind;
} DistCopy;

typedef enum DistWorkState { DIST_WORK_QUEUED, DIST_WORK_RUNNING, DIST_WORK_DONE, DIST_WORK_FAILED } DistWorkState;

/* A work is owned by its caller until dist_work_release; the worker never frees anything. */
typedef struct DistWork {
    DistPG *pg;                /* a reference, dropped when the work is released */
    DistCall call;
    int64_t counts[2 * 64];    /* in_counts / out_counts storage for small groups */
    int64_t *counts_heap;
    void *stage;               /* malloc'd staging buffer, or NULL */
    DistCopy *after;           /* worker copies after the call */
    int n_after;
    DistRequest *req;          /* point-to-point: the engine's request, until waited */
    bool is_p2p;
    const char *opname;        /* "all_reduce", for messages */
    DistWorkState state;       /* under the group's lock */
    char err[DIST_ERR_LEN];
    int src_rank;              /* recv: where the data came from */
    int64_t seq;
    double t_queued, t_start, t_end;   /* CLOCK_MONOTONIC seconds */
    Tensor **held;             /* kept alive until release (main thread) */
    int n_held, cap_held;
    bool waited;               /* point-to-point: the engine's request is finished */
    struct DistWork *next;     /* queue link */
    struct DistWork *orphan_next;
} DistWork;

/* Counters for benchmarks: the worker's time inside the engine, and callers' time blocked in
 * wait (their difference is the communication hidden behind computation). */
typedef struct DistPGStats {
    int64_t n_ops;
    double busy_s;
    double wait_s;
} DistPGStats;

/* Loads an engine module by name ("gloo", "mpi") once per process; NULL + err if unavailable. */
const DistBackend *dist_backend_load(const char *name, char *err, size_t errlen);
/* Whether the engine's module exists (without loading it). */
bool dist_backend_available(const char *name);

/* Steals comm. */
DistPG *dist_pg_new(const DistBackend *be, DistComm *comm, int rank, int size, int64_t timeout_ms);
void dist_pg_incref(DistPG *pg);
void dist_pg_decref(DistPG *pg);
/* destroy_process_group: a barrier (gloo) so no rank closes its links before every rank has
 * finished its collectives; failures ignored, at most max_ms */
void dist_pg_quiesce(DistPG *pg, int64_t max_ms);          /* main thread; the last one drains and joins the worker */
int dist_pg_rank(const DistPG *pg);
int dist_pg_size(const DistPG *pg);
const DistBackend *dist_pg_backend(const DistPG *pg);
DistComm *dist_pg_comm(const DistPG *pg);
int64_t dist_pg_timeout(const DistPG *pg);
DistPGStats dist_pg_stats(DistPG *pg);
void dist_pg_reset_stats(DistPG *pg);

/* A new work for pg, owned by the caller; call is copied (its count arrays too). */
DistWork *dist_work_new(DistPG *pg, const DistCall *call, const char *opname);
/* Keep t alive until the work is released.  0 or -1 (out of memory). */
int dist_work_hold(DistWork *w, Tensor *t);
int dist_work_add_copy(DistWork *w, DistCopy c);
/* Let the next dist_pg_enqueue run its work on the calling thread when nothing is queued or
 * running (the caller is about to wait for it anyway). */
void dist_pg_run_next_inline(DistPG *pg);
/* Queue a collective (or run it now, see dist_pg_run_next_inline). */
void dist_pg_enqueue(DistPG *pg, DistWork *w);
/* Start a point-to-point operation now; -1 + err if the engine refused it. */
int dist_work_start_p2p(DistWork *w, bool is_send, void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                        size_t errlen);
/* Wait until done: 0, or -1 with err (the operation's failure, or a timeout after timeout_ms;
 * < 0: the group's timeout). */
int dist_work_wait(DistWork *w, int64_t timeout_ms, char *err, size_t errlen);
DistWorkState dist_work_state(DistWork *w);
/* Once a work is finished (waited), its tensors and staging memory can go at once (main thread):
 * the engine is done with them. */
void dist_work_drop_buffers(DistWork *w);
/* Drop the caller's reference (main thread).  An unfinished work is kept by its group until it
 * finishes, so its tensors outlive the engine's use of them. */
void dist_work_release(DistWork *w);
/* Release finished works nobody references any more (main thread; also done at each enqueue). */
void dist_pg_reap(DistPG *pg);

double dist_now(void);

#endif
