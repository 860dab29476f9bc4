/* src/dist/gloo_backend.cc — the Gloo engine (libember_gloo.so): Ember's C++ shim over Debian's
 * libgloo, PyTorch's own CPU collective library.  It turns the plain-C calls of backend.h into
 * gloo's collectives (allreduce, broadcast, reduce, allgather, gather, scatter, alltoallv,
 * barrier, the halving-doubling reduce-scatter) and its unbound-buffer point-to-point, over the
 * TCP transport.  Rendezvous goes through Ember's store (store.c) via a gloo Store adapter, as
 * PyTorch's ProcessGroupGloo goes through its c10d store.  C++ exceptions never cross into C:
 * each entry point catches them and copies the message (gloo's own, e.g. "Connection closed by
 * peer") into the caller's buffer. */
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include "src/dist/backend.h"

namespace {

using ms = std::chrono::milliseconds;

void set_err(char *err, size_t errlen, const char *what) {
    if (err && errlen) snprintf(err, errlen, "%s", what);
}

/* gloo's rendezvous keys, stored under this group's prefix in Ember's store. */
class StoreAdapter : public gloo::rendezvous::Store {
  public:
    StoreAdapter(const DistStoreOps *ops, std::string prefix, int64_t timeout_ms)
        : ops_(ops), prefix_(std::move(prefix)), timeout_ms_(timeout_ms) {}

    void set(const std::string &key, const std::vector<char> &data) override {
        char err[DIST_ERR_LEN];
        if (ops_->set(ops_->ctx, full(key).c_str(), data.data(), data.size(), err, sizeof err) < 0)
            throw std::runtime_error(err);
    }
    std::vector<char> get(const std::string &key) override {
        char err[DIST_ERR_LEN];
        void *data = nullptr;
        size_t len = 0;
        if (ops_->get(ops_->ctx, full(key).c_str(), &data, &len, timeout_ms_, err, sizeof err) < 0)
            throw std::runtime_error(err);
        std::vector<char> out((char *)data, (char *)data + len);
        free(data);
        return out;
    }
    void wait(const std::vector<std::string> &keys) override { wait(keys, ms(timeout_ms_)); }
    void wait(const std::vector<std::string> &keys, const ms &timeout) override {
        std::vector<std::string> fulls;
        std::vector<const char *> ptrs;
        for (const auto &k : keys) fulls.push_back(full(k));
        for (const auto &k : fulls) ptrs.push_back(k.c_str());
        char err[DIST_ERR_LEN];
        if (ops_->wait(ops_->ctx, ptrs.data(), (int)ptrs.size(), timeout.count(), err, sizeof err) < 0)
            throw std::runtime_error(err);
    }

  private:
    std::string full(const std::string &key) const { return prefix_ + key; }
    const DistStoreOps *ops_;
    std::string prefix_;
    int64_t timeout_ms_;
};

/* Bitwise reductions (integral types only; gloo has none, PyTorch defines the same three). */
template <typename T> void band(void *c, const void *a, const void *b, size_t n) {
    for (size_t i = 0; i < n; i++) ((T *)c)[i] = ((const T *)a)[i] & ((const T *)b)[i];
}
template <typename T> void bor(void *c, const void *a, const void *b, size_t n) {
    for (size_t i = 0; i < n; i++) ((T *)c)[i] = ((const T *)a)[i] | ((const T *)b)[i];
}
template <typename T> void bxor(void *c, const void *a, const void *b, size_t n) {
    for (size_t i = 0; i < n; i++) ((T *)c)[i] = ((const T *)a)[i] ^ ((const T *)b)[i];
}
/* bool as one byte: sum/max are logical or, product/min logical and (as PyTorch's gloo). */
void lor(void *c, const void *a, const void *b, size_t n) {
    for (size_t i = 0; i < n; i++) ((uint8_t *)c)[i] = ((const uint8_t *)a)[i] | ((const uint8_t *)b)[i];
}
void land(void *c, const void *a, const void *b, size_t n) {
    for (size_t i = 0; i < n; i++) ((uint8_t *)c)[i] = ((const uint8_t *)a)[i] & ((const uint8_t *)b)[i];
}

using ReduceFn = void (*)(void *, const void *, const void *, size_t);

template <typename T> ReduceFn arith_fn(DistReduce op) {
    switch (op) {
    case DIST_SUM: return &gloo::sum<T>;
    case DIST_PRODUCT: return &gloo::product<T>;
    case DIST_MIN: return &gloo::min<T>;
    case DIST_MAX: return &gloo::max<T>;
    default: return nullptr;
    }
}
template <typename T> ReduceFn int_fn(DistReduce op) {
    switch (op) {
    case DIST_BAND: return &band<T>;
    case DIST_BOR: return &bor<T>;
    case DIST_BXOR: return &bxor<T>;
    default: return arith_fn<T>(op);
    }
}

ReduceFn reduce_fn(DistDtype dt, DistReduce op) {
    switch (dt) {
    case DIST_F32: return arith_fn<float>(op);
    case DIST_F64: return arith_fn<double>(op);
    case DIST_F16: return arith_fn<gloo::float16>(op);
    case DIST_I64: return int_fn<int64_t>(op);
    case DIST_I32: return int_fn<int32_t>(op);
    case DIST_I8: return int_fn<int8_t>(op);
    case DIST_U8: return int_fn<uint8_t>(op);
    case DIST_BOOL:
        if (op == DIST_SUM || op == DIST_MAX || op == DIST_BOR) return &lor;
        if (op == DIST_PRODUCT || op == DIST_MIN || op == DIST_BAND) return &land;
        return op == DIST_BXOR ? &bxor<uint8_t> : nullptr;
    default: return nullptr;
    }
}

size_t elsize(DistDtype dt) {
    switch (dt) {
    case DIST_F64: case DIST_I64: return 8;
    case DIST_F32: case DIST_I32: return 4;
    case DIST_F16: return 2;
    default: return 1;
    }
}

/* The old-style reduce-scatter algorithm is a template over the element type. */
template <typename T>
void reduce_scatter_typed(const std::shared_ptr<gloo::Context> &ctx, const DistCall *c) {
    const gloo::ReductionFunction<T> *fn = nullptr;
    switch (c->op) {
    case DIST_SUM: fn = gloo::ReductionFunction<T>::sum; break;
    case DIST_PRODUCT: fn = gloo::ReductionFunction<T>::product; break;
    case DIST_MIN: fn = gloo::ReductionFunction<T>::min; break;
    case DIST_MAX: fn = gloo::ReductionFunction<T>::max; break;
    default: throw std::runtime_error("unsupported reduction for reduce_scatter");
    }
    int size = ctx->size;
    std::vector<int> recv((size_t)size, (int)c->count);
    T *buf = (T *)c->in;
    gloo::ReduceScatterHalvingDoubling<T> algo(ctx, std::vector<T *>{buf}, (int)(c->count * size), recv, fn);
    algo.run();
    /* the reduced block of this rank is left at its offset in the input buffer */
    memcpy(c->out, buf + (size_t)ctx->rank * c->count, (size_t)c->count * sizeof(T));
}

void reduce_scatter(const std::shared_ptr<gloo::Context> &ctx, const DistCall *c) {
    switch (c->dtype) {
    case DIST_F32: return reduce_scatter_typed<float>(ctx, c);
    case DIST_F64: return reduce_scatter_typed<double>(ctx, c);
    case DIST_F16: return reduce_scatter_typed<gloo::float16>(ctx, c);
    case DIST_I64: return reduce_scatter_typed<int64_t>(ctx, c);
    case DIST_I32: return reduce_scatter_typed<int32_t>(ctx, c);
    case DIST_I8: return reduce_scatter_typed<int8_t>(ctx, c);
    case DIST_U8: return reduce_scatter_typed<uint8_t>(ctx, c);
    default: throw std::runtime_error("unsupported dtype for reduce_scatter");
    }
}

/* In-place reductions: gloo counts elements by sizeof(T) and hands the reduction function whole
 * elements, so the buffer is registered as an integer type of the element's width. */
template <typename Opts> void set_elements(Opts &o, void *p, size_t n, size_t es) {
    switch (es) {
    case 8: o.template setOutput<int64_t>((int64_t *)p, n); break;
    case 4: o.template setOutput<int32_t>((int32_t *)p, n); break;
    case 2: o.template setOutput<int16_t>((int16_t *)p, n); break;
    default: o.template setOutput<int8_t>((int8_t *)p, n); break;
    }
}

/* Point-to-point slots live under a prefix of their own, clear of the collectives' prefixes
 * (gloo/types.h, 0x01-0x08) and of the old-style algorithms' counter slots. */
constexpr uint8_t kP2PSlotPrefix = 0x40;

} // namespace

struct DistComm {
    std::shared_ptr<gloo::transport::Device> device;
    std::shared_ptr<gloo::rendezvous::Context> ctx;
};

struct DistRequest {
    std::unique_ptr<gloo::transport::UnboundBuffer> buf;
    bool is_send;
};

extern "C" {

static int gloo_init(int *world_rank, int *world_size, char *, size_t) {
    /* a write to a peer that has died must be an error, not a SIGPIPE that kills this process
     * (CPython ignores SIGPIPE at start-up, so PyTorch's processes never see it either) */
    struct sigaction sa;
    if (sigaction(SIGPIPE, nullptr, &sa) == 0 && sa.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
    *world_rank = -1;
    *world_size = -1;
    return 0;
}

static DistComm *gloo_create(const DistCreate *a, char *err, size_t errlen) {
    if (a->rank < 0) return nullptr;
    try {
        gloo::transport::tcp::attr attr;
        if (a->iface && a->iface[0])
            attr.iface = a->iface;
        else
            attr.hostname = a->hostname && a->hostname[0] ? a->hostname : "127.0.0.1";
        auto comm = std::make_unique<DistComm>();
        comm->device = gloo::transport::tcp::CreateDevice(attr);
        comm->ctx = std::make_shared<gloo::rendezvous::Context>(a->rank, a->size);
        comm->ctx->setTimeout(ms(a->timeout_ms));
        StoreAdapter store(a->store, a->prefix ? a->prefix : "", a->timeout_ms);
        comm->ctx->connectFullMesh(store, comm->device);
        return comm.release();
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
        return nullptr;
    }
}

static void gloo_destroy(DistComm *comm) {
    if (!comm) return;
    try {
        delete comm;
    } catch (...) {
    }
}

static int gloo_run(DistComm *comm, const DistCall *c, char *err, size_t errlen) {
    const std::shared_ptr<gloo::Context> ctx = comm->ctx;
    size_t es = elsize(c->dtype);
    size_t bytes = (size_t)c->count * es;
    uint32_t tag = c->tag;
    ms timeout(c->timeout_ms);
    try {
        switch (c->kind) {
        case DIST_BARRIER: {
            gloo::BarrierOptions o(ctx);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::barrier(o);
            break;
        }
        case DIST_ALLREDUCE: {
            gloo::AllreduceOptions o(ctx);
            set_elements(o, c->out, (size_t)c->count, es);
            o.setReduceFunction(reduce_fn(c->dtype, c->op));
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::allreduce(o);
            break;
        }
        case DIST_BROADCAST: {
            gloo::BroadcastOptions o(ctx);
            o.setOutput<uint8_t>((uint8_t *)c->out, bytes);
            o.setRoot(c->root);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::broadcast(o);
            break;
        }
        case DIST_REDUCE: {
            gloo::ReduceOptions o(ctx);
            set_elements(o, c->out, (size_t)c->count, es);
            o.setRoot(c->root);
            o.setReduceFunction(reduce_fn(c->dtype, c->op));
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::reduce(o);
            break;
        }
        case DIST_ALLGATHER: {
            gloo::AllgatherOptions o(ctx);
            o.setInput<uint8_t>((uint8_t *)c->in, bytes);
            o.setOutput<uint8_t>((uint8_t *)c->out, bytes * (size_t)ctx->size);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::allgather(o);
            break;
        }
        case DIST_GATHER: {
            gloo::GatherOptions o(ctx);
            o.setInput<uint8_t>((uint8_t *)c->in, bytes);
            if (ctx->rank == c->root) o.setOutput<uint8_t>((uint8_t *)c->out, bytes * (size_t)ctx->size);
            o.setRoot(c->root);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::gather(o);
            break;
        }
        case DIST_SCATTER: {
            gloo::ScatterOptions o(ctx);
            if (ctx->rank == c->root) {
                std::vector<uint8_t *> ptrs;
                for (int r = 0; r < ctx->size; r++) ptrs.push_back((uint8_t *)c->in + (size_t)r * bytes);
                o.setInputs<uint8_t>(ptrs, bytes);
            }
            o.setOutput<uint8_t>((uint8_t *)c->out, bytes);
            o.setRoot(c->root);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::scatter(o);
            break;
        }
        case DIST_REDUCE_SCATTER:
            reduce_scatter(ctx, c);
            break;
        case DIST_ALLTOALL: {
            gloo::AlltoallvOptions o(ctx);
            std::vector<int64_t> inb, outb;
            for (int r = 0; r < ctx->size; r++) {
                inb.push_back(c->in_counts[r] * (int64_t)es);
                outb.push_back(c->out_counts[r] * (int64_t)es);
            }
            o.setInput<uint8_t>((uint8_t *)c->in, inb);
            o.setOutput<uint8_t>((uint8_t *)c->out, outb);
            o.setTag(tag);
            o.setTimeout(timeout);
            gloo::alltoallv(o);
            break;
        }
        default:
            set_err(err, errlen, "unknown collective");
            return -1;
        }
        return 0;
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
        return -1;
    }
}

static DistRequest *gloo_send(DistComm *comm, const void *buf, size_t nbytes, int peer, uint32_t tag,
                              char *err, size_t errlen) {
    try {
        auto req = std::make_unique<DistRequest>();
        req->is_send = true;
        req->buf = comm->ctx->createUnboundBuffer(const_cast<void *>(buf), nbytes);
        req->buf->send(peer, gloo::Slot::build(kP2PSlotPrefix, tag));
        return req.release();
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
        return nullptr;
    }
}

static DistRequest *gloo_recv(DistComm *comm, void *buf, size_t nbytes, int peer, uint32_t tag, char *err,
                              size_t errlen) {
    try {
        auto req = std::make_unique<DistRequest>();
        req->is_send = false;
        req->buf = comm->ctx->createUnboundBuffer(buf, nbytes);
        uint64_t slot = gloo::Slot::build(kP2PSlotPrefix, tag);
        if (peer >= 0) {
            req->buf->recv(peer, slot);
        } else {
            std::vector<int> ranks;
            for (int r = 0; r < comm->ctx->size; r++)
                if (r != comm->ctx->rank) ranks.push_back(r);
            req->buf->recv(ranks, slot);
        }
        return req.release();
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
        return nullptr;
    }
}

static int gloo_wait(DistComm *, DistRequest *req, int64_t timeout_ms, int *src, char *err, size_t errlen) {
    std::unique_ptr<DistRequest> owned(req);
    try {
        int rank = -1;
        bool ok = req->is_send ? req->buf->waitSend(&rank, ms(timeout_ms))
                               : req->buf->waitRecv(&rank, ms(timeout_ms));
        if (!ok) {
            set_err(err, errlen, "operation aborted");
            return -1;
        }
        if (src) *src = rank;
        return 0;
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
        return -1;
    }
}

static int gloo_supports(DistKind kind, DistReduce op, DistDtype dt) {
    if (op == DIST_AVG) return 0;
    if (kind == DIST_REDUCE_SCATTER && (op >= DIST_BAND || dt == DIST_BOOL)) return 0;
    return reduce_fn(dt, op) != nullptr;
}

static const DistBackend gloo_backend = {
    DIST_BACKEND_ABI, "gloo", gloo_init, gloo_create, gloo_destroy, gloo_run,
    gloo_send, gloo_recv, gloo_wait, gloo_supports,
};

__attribute__((visibility("default"))) const DistBackend *ember_dist_backend_gloo(void) {
    return &gloo_backend;
}

} // extern "C"
