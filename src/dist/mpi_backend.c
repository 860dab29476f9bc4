/* src/dist/mpi_backend.c — the Open MPI engine (libember_mpi.so): backend.h's calls as MPI
 * collectives and nonblocking point-to-point on communicators of MPI_COMM_WORLD.  The job (rank,
 * size, who the peers are) comes from mpirun, not from the store, as in PyTorch's
 * ProcessGroupMPI.  MPI is initialised with MPI_THREAD_MULTIPLE when the library offers it (the
 * process group's worker thread runs collectives while the main thread posts sends and
 * receives); with less, every MPI call is serialised under one mutex.  MPI has no timeouts: when a
 * rank dies, mpirun ends the whole job. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/dist/backend.h"
#include "src/dist/half.h"

struct DistComm {
    MPI_Comm comm;
    int rank, size;
};

struct DistRequest {
    MPI_Request req;
};

static int thread_multiple;
/* MPI has no half type: float16 travels as 16-bit words reduced by these operators, each
 * element widened to float, combined and rounded back (what gloo's float16 arithmetic does). */
static MPI_Op half_ops[DIST_REDUCE_COUNT];

#define HALF_OP(NAME, EXPR)                                                                        \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt) {                          \
        (void)dt;                                                                                  \
        const uint16_t *a = in;                                                                    \
        uint16_t *b = inout;                                                                       \
        for (int i = 0; i < *len; i++) {                                                           \
            float x = dist_half_to_float(a[i]), y = dist_half_to_float(b[i]);                      \
            b[i] = dist_float_to_half(EXPR);                                                       \
        }                                                                                          \
    }
HALF_OP(half_sum, y + x)
HALF_OP(half_prod, y * x)
HALF_OP(half_min, x < y ? x : y)
HALF_OP(half_max, x > y ? x : y)

static void create_half_ops(void) {
    MPI_Op_create(half_sum, 1, &half_ops[DIST_SUM]);
    MPI_Op_create(half_prod, 1, &half_ops[DIST_PRODUCT]);
    MPI_Op_create(half_min, 1, &half_ops[DIST_MIN]);
    MPI_Op_create(half_max, 1, &half_ops[DIST_MAX]);
}
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock(void) {
    if (!thread_multiple) pthread_mutex_lock(&mpi_lock);
}
static void unlock(void) {
    if (!thread_multiple) pthread_mutex_unlock(&mpi_lock);
}

static int fail(int rc, const char *what, char *err, size_t errlen) {
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, msg, &n);
    snprintf(err, errlen, "%s: %s", what, msg);
    return -1;
}

static void finalize_at_exit(void) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

static int mpi_init(int *world_rank, int *world_size, char *err, size_t errlen) {
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
        if (rc != MPI_SUCCESS) return fail(rc, "MPI_Init_thread", err, errlen);
        atexit(finalize_at_exit);
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(err, errlen, "Used MPI implementation doesn't have the minimum level of threading support: "
                              "%d. This is required by c10d package", provided);
        return -1;
    }
    thread_multiple = provided >= MPI_THREAD_MULTIPLE;
    if (!half_ops[DIST_SUM]) create_half_ops();
    /* errors come back as codes, not as an abort of the job */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, world_size);
    return 0;
}

static DistComm *mpi_create(const DistCreate *a, char *err, size_t errlen) {
    int world_size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm comm = MPI_COMM_NULL;
    lock();
    int rc;
    if (a->size == world_size && a->world_ranks == NULL) {
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    } else {
        /* collective over the whole job, as new_group is */
        MPI_Group world_group, group;
        MPI_Comm_group(MPI_COMM_WORLD, &world_group);
        MPI_Group_incl(world_group, a->size, a->world_ranks, &group);
        rc = MPI_Comm_create(MPI_COMM_WORLD, group, &comm);
        MPI_Group_free(&group);
        MPI_Group_free(&world_group);
    }
    unlock();
    if (rc != MPI_SUCCESS) return fail(rc, "MPI_Comm_create", err, errlen), NULL;
    if (comm == MPI_COMM_NULL) return NULL;   /* not a member */
    DistComm *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->comm = comm;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    return c;
}

static void mpi_destroy(DistComm *c) {
    if (!c) return;
    int done = 0;
    MPI_Finalized(&done);
    if (!done) {
        lock();
        MPI_Comm_free(&c->comm);
        unlock();
    }
    free(c);
}

static MPI_Datatype mpi_type(DistDtype dt) {
    switch (dt) {
    case DIST_F32: return MPI_FLOAT;
    case DIST_F64: return MPI_DOUBLE;
    case DIST_I64: return MPI_INT64_T;
    case DIST_I32: return MPI_INT32_T;
    case DIST_I8: return MPI_INT8_T;
    case DIST_U8: return MPI_UINT8_T;
    case DIST_BOOL: return MPI_C_BOOL;
    case DIST_F16: return MPI_UINT16_T;   /* reduced by half_ops */
    default: return MPI_DATATYPE_NULL;
    }
}

/* bool reduces logically, as PyTorch's engines treat it: sum/max are or, product/min are and */
static MPI_Op mpi_op(DistDtype dt, DistReduce op) {
    if (dt == DIST_F16) return half_ops[op] ? half_ops[op] : MPI_OP_NULL;
    if (dt == DIST_BOOL) {
        if (op == DIST_SUM || op == DIST_MAX || op == DIST_BOR) return MPI_LOR;
        if (op == DIST_PRODUCT || op == DIST_MIN || op == DIST_BAND) return MPI_LAND;
        return op == DIST_BXOR ? MPI_LXOR : MPI_OP_NULL;
    }
    switch (op) {
    case DIST_SUM: return MPI_SUM;
    case DIST_PRODUCT: return MPI_PROD;
    case DIST_MIN: return MPI_MIN;
    case DIST_MAX: return MPI_MAX;
    case DIST_BAND: return MPI_BAND;
    case DIST_BOR: return MPI_BOR;
    case DIST_BXOR: return MPI_BXOR;
    default: return MPI_OP_NULL;
    }
}

static int mpi_supports(DistKind kind, DistReduce op, DistDtype dt) {
    (void)kind;
    if (mpi_type(dt) == MPI_DATATYPE_NULL || mpi_op(dt, op) == MPI_OP_NULL) return 0;
    return !(dt == DIST_F32 || dt == DIST_F64 || dt == DIST_F16) || op <= DIST_MAX;
}

static int mpi_run(DistComm *c, const DistCall *k, char *err, size_t errlen) {
    MPI_Datatype t = mpi_type(k->dtype);
    if (k->kind != DIST_BARRIER && t == MPI_DATATYPE_NULL) {
        snprintf(err, errlen, "MPI has no type for this dtype");
        return -1;
    }
    int n = (int)k->count, rc = MPI_SUCCESS;
    const char *what = "";
    lock();
    switch (k->kind) {
    case DIST_BARRIER:
        what = "MPI_Barrier";
        rc = MPI_Barrier(c->comm);
        break;
    case DIST_ALLREDUCE:
        what = "MPI_Allreduce";
        rc = MPI_Allreduce(MPI_IN_PLACE, k->out, n, t, mpi_op(k->dtype, k->op), c->comm);
        break;
    case DIST_BROADCAST:
        what = "MPI_Bcast";
        rc = MPI_Bcast(k->out, n, t, k->root, c->comm);
        break;
    case DIST_REDUCE:
        what = "MPI_Reduce";
        rc = MPI_Reduce(c->rank == k->root ? MPI_IN_PLACE : k->out, c->rank == k->root ? k->out : NULL, n, t,
                        mpi_op(k->dtype, k->op), k->root, c->comm);
        break;
    case DIST_ALLGATHER:
        what = "MPI_Allgather";
        rc = MPI_Allgather(k->in, n, t, k->out, n, t, c->comm);
        break;
    case DIST_GATHER:
        what = "MPI_Gather";
        rc = MPI_Gather(k->in, n, t, k->out, n, t, k->root, c->comm);
        break;
    case DIST_SCATTER:
        what = "MPI_Scatter";
        rc = MPI_Scatter(k->in, n, t, k->out, n, t, k->root, c->comm);
        break;
    case DIST_REDUCE_SCATTER:
        what = "MPI_Reduce_scatter_block";
        rc = MPI_Reduce_scatter_block(k->in, k->out, n, t, mpi_op(k->dtype, k->op), c->comm);
        break;
    case DIST_ALLTOALL: {
        what = "MPI_Alltoallv";
        int *buf = malloc(sizeof(int) * 4 * (size_t)c->size);
        if (!buf) {
            unlock();
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        int *sc = buf, *sd = buf + c->size, *rcn = buf + 2 * c->size, *rd = buf + 3 * c->size;
        int so = 0, ro = 0;
        for (int r = 0; r < c->size; r++) {
            sc[r] = (int)k->in_counts[r], sd[r] = so, so += sc[r];
            rcn[r] = (int)k->out_counts[r], rd[r] = ro, ro += rcn[r];
        }
        rc = MPI_Alltoallv(k->in, sc, sd, t, k->out, rcn, rd, t, c->comm);
        free(buf);
        break;
    }
    default:
        unlock();
        snprintf(err, errlen, "unknown collective");
        return -1;
    }
    unlock();
    return rc == MPI_SUCCESS ? 0 : fail(rc, what, err, errlen);
}

static DistRequest *mpi_send(DistComm *c, const void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                             size_t errlen) {
    DistRequest *r = calloc(1, sizeof *r);
    if (!r) return snprintf(err, errlen, "out of memory"), NULL;
    lock();
    int rc = MPI_Isend(buf, (int)nbytes, MPI_BYTE, peer, (int)tag, c->comm, &r->req);
    unlock();
    if (rc != MPI_SUCCESS) {
        free(r);
        fail(rc, "MPI_Isend", err, errlen);
        return NULL;
    }
    return r;
}

static DistRequest *mpi_recv(DistComm *c, void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                             size_t errlen) {
    DistRequest *r = calloc(1, sizeof *r);
    if (!r) return snprintf(err, errlen, "out of memory"), NULL;
    lock();
    int rc = MPI_Irecv(buf, (int)nbytes, MPI_BYTE, peer < 0 ? MPI_ANY_SOURCE : peer, (int)tag, c->comm, &r->req);
    unlock();
    if (rc != MPI_SUCCESS) {
        free(r);
        fail(rc, "MPI_Irecv", err, errlen);
        return NULL;
    }
    return r;
}

/* Polls so that a serialised MPI is not held while waiting (the worker may need it). */
static int mpi_wait(DistComm *c, DistRequest *r, int64_t timeout_ms, int *src, char *err, size_t errlen) {
    (void)c;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    MPI_Status st;
    for (;;) {
        int done = 0;
        lock();
        int rc = MPI_Test(&r->req, &done, &st);
        unlock();
        if (rc != MPI_SUCCESS) {
            free(r);
            return fail(rc, "MPI_Test", err, errlen);
        }
        if (done) break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (timeout_ms > 0 && el > timeout_ms) {
            lock();
            MPI_Cancel(&r->req);
            MPI_Request_free(&r->req);
            unlock();
            free(r);
            snprintf(err, errlen, "Timed out after %lld ms waiting for a point-to-point operation",
                     (long long)timeout_ms);
            return -1;
        }
        struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
    if (src) *src = st.MPI_SOURCE;
    free(r);
    return 0;
}

static const DistBackend mpi_backend = {
    DIST_BACKEND_ABI, "mpi", mpi_init, mpi_create, mpi_destroy, mpi_run, mpi_send, mpi_recv, mpi_wait,
    mpi_supports,
};

__attribute__((visibility("default"))) const DistBackend *ember_dist_backend_mpi(void) { return &mpi_backend; }
