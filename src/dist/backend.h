/* src/dist/backend.h — the interface between Ember's process groups (pg.c) and a collective
 * engine.  Each engine is a small shared module of Ember's own, loaded with dlopen the first time
 * a script asks for it, so that `ember` itself neither links nor loads libgloo, libstdc++ or
 * libmpi (they would cost every start-up a few milliseconds):
 *
 *   libember_gloo.so  gloo_backend.cc  Gloo (Debian libgloo-dev), PyTorch's own CPU engine
 *   libember_mpi.so   mpi_backend.c    Open MPI (libopenmpi-dev)
 *
 * A module exports one symbol, `ember_dist_backend_<name>`, a DistBackend table.  Everything
 * crossing this boundary is plain C: contiguous buffers, element counts, the engine's error text
 * copied into the caller's buffer.  The engine never sees a tensor, the VM, or a GC object, and it
 * may be called from the process group's worker thread (collectives) and from the main thread
 * (point-to-point) at the same time.
 *
 *   DistComm *c = be->create(&(DistCreate){.rank = 0, .size = 2, .store = &store, ...}, err, n);
 *   be->run(c, &(DistCall){.kind = DIST_ALLREDUCE, .dtype = DIST_F32, .op = DIST_SUM,
 *                          .in = p, .out = p, .count = 1024, .tag = seq++}, err, n);
 *   be->destroy(c);
 */
#ifndef EMBER_DIST_BACKEND_H
#define EMBER_DIST_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DIST_BACKEND_ABI 1
#define DIST_ERR_LEN 512

/* Element types on the wire (a superset of the tensor library's dtypes, so that new dtypes
 * only need a line in dist_module.c's map). */
typedef enum DistDtype {
    DIST_F32, DIST_F64, DIST_F16, DIST_I64, DIST_I32, DIST_I8, DIST_U8, DIST_BOOL,
    DIST_DTYPE_COUNT
} DistDtype;

/* Reduction operators, numbered as torch.distributed.ReduceOp. */
typedef enum DistReduce {
    DIST_SUM = 0, DIST_AVG = 1, DIST_PRODUCT = 2, DIST_MIN = 3, DIST_MAX = 4,
    DIST_BAND = 5, DIST_BOR = 6, DIST_BXOR = 7,
    DIST_REDUCE_COUNT
} DistReduce;

typedef enum DistKind {
    DIST_BARRIER,
    DIST_ALLREDUCE,       /* in == out, count elements */
    DIST_BROADCAST,       /* in == out, from root */
    DIST_REDUCE,          /* in == out, result on root */
    DIST_ALLGATHER,       /* in: count, out: size * count */
    DIST_GATHER,          /* in: count, out: size * count on root (NULL elsewhere) */
    DIST_SCATTER,         /* in: size * count on root (NULL elsewhere), out: count */
    DIST_REDUCE_SCATTER,  /* in: size * count (clobbered), out: count */
    DIST_ALLTOALL,        /* in: sum(in_counts), out: sum(out_counts) */
    DIST_KIND_COUNT
} DistKind;

typedef struct DistCall {
    DistKind kind;
    DistDtype dtype;
    DistReduce op;
    int root;
    void *in, *out;
    int64_t count;                 /* elements of one rank's block */
    const int64_t *in_counts;      /* alltoall: elements sent to / received from each rank */
    const int64_t *out_counts;
    uint32_t tag;                  /* the group's collective sequence number */
    int64_t timeout_ms;
} DistCall;

/* The rendezvous store, implemented by Ember (store.c) and handed to the engine at creation.
 * Keys are NUL-terminated; values are bytes.  0 on success, -1 with err filled. */
typedef struct DistStoreOps {
    void *ctx;
    int (*set)(void *ctx, const char *key, const void *data, size_t len, char *err, size_t errlen);
    /* *data is malloc'd (free it); waits for the key up to timeout_ms */
    int (*get)(void *ctx, const char *key, void **data, size_t *len, int64_t timeout_ms, char *err,
               size_t errlen);
    int (*wait)(void *ctx, const char *const *keys, int n, int64_t timeout_ms, char *err, size_t errlen);
} DistStoreOps;

typedef struct DistCreate {
    int rank, size;                /* rank in the new group (-1: this process is not a member) */
    const int *world_ranks;        /* the group's members as ranks of the whole job (size of them) */
    int world_size;
    const DistStoreOps *store;     /* gloo: rendezvous through the store under prefix */
    const char *prefix;
    int64_t timeout_ms;
    const char *hostname;          /* gloo: address to listen on ("127.0.0.1", a host name) */
    const char *iface;             /* gloo: or an interface name (GLOO_SOCKET_IFNAME), "" if none */
} DistCreate;

typedef struct DistComm DistComm;
typedef struct DistRequest DistRequest;

typedef struct DistBackend {
    int abi;                       /* DIST_BACKEND_ABI */
    const char *name;
    /* Once per process before anything else.  An engine that knows the job (MPI) reports the
     * world rank and size; others leave them at -1. */
    int (*init)(int *world_rank, int *world_size, char *err, size_t errlen);
    /* Every process of the parent calls create for every new group (MPI needs all of them);
     * a non-member gets NULL without an error. */
    DistComm *(*create)(const DistCreate *args, char *err, size_t errlen);
    void (*destroy)(DistComm *comm);
    /* A collective, blocking until done or failed (timeout, peer gone). */
    int (*run)(DistComm *comm, const DistCall *call, char *err, size_t errlen);
    /* Point to point: start, then wait (which frees the request whatever happens).
     * peer -1 in recv: from any rank; *src is the rank the data came from. */
    DistRequest *(*send)(DistComm *comm, const void *buf, size_t nbytes, int peer, uint32_t tag,
                         char *err, size_t errlen);
    DistRequest *(*recv)(DistComm *comm, void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                         size_t errlen);
    int (*wait)(DistComm *comm, DistRequest *req, int64_t timeout_ms, int *src, char *err, size_t errlen);
    /* Whether the engine implements a reduction for a dtype (0/1). */
    int (*supports)(DistKind kind, DistReduce op, DistDtype dtype);
} DistBackend;

typedef const DistBackend *(*DistBackendEntry)(void);

#ifdef __cplusplus
}
#endif

#endif
