/* src/dist/dist_module.c — torch._C._distributed_c10d, the native side of torch.distributed:
 * the TCP store (_TCPStore), process groups on an engine (_ProcessGroup) and their works (_Work),
 * plus the launcher's entry point (_launch).  This is the one file of src/dist that knows the VM:
 * it turns tensors into the raw buffers of backend.h, keeps them alive in the work, and raises
 * the engines' failures as RuntimeError naming the rank and the operation.  Argument checking
 * with PyTorch's messages happens in torch/distributed/distributed_c10d.py; here a wrong argument
 * is a TypeError naming the method.
 *
 *   pg = _ProcessGroup("gloo", store, "default_pg/", rank, size, 30.0, None)
 *   w = pg.allreduce(t, 0)          # ReduceOp.SUM; queued on the group's worker thread
 *   w.wait()                        # True, or RuntimeError("[Rank 0] all_reduce failed: ...")
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/dist/half.h"
#include "src/dist/launch.h"
#include "src/dist/pg.h"
#include "src/dist/register.h"
#include "src/dist/store.h"
#include "src/torch/torch.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct StoreObj {
    Obj hdr;
    DistStore *s;
} StoreObj;

typedef struct PGObj {
    Obj hdr;
    DistPG *pg;
    Value store;               /* the _TCPStore it met through (None for MPI) */
    char backend[16];
} PGObj;

typedef struct WorkObj {
    Obj hdr;
    DistWork *w;
    Value pg;                  /* the _ProcessGroup: keeps it alive while the work is */
} WorkObj;

typedef struct DistTypes {
    TypeObj *t_store, *t_pg, *t_work;
} DistTypes;

static DistTypes *types_of(VM *vm) { return vm->ext[VM_EXT_DIST]; }

/* ---- GC ---------------------------------------------------------------------------------------- */

static void store_finalize(VM *vm, Obj *o) {
    (void)vm;
    StoreObj *so = (StoreObj *)o;
    dist_store_decref(so->s);
    so->s = NULL;
}

static void pg_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((PGObj *)o)->store); }

static void pg_finalize(VM *vm, Obj *o) {
    (void)vm;
    PGObj *p = (PGObj *)o;
    dist_pg_decref(p->pg);
    p->pg = NULL;
}

static void work_trace(VM *vm, Obj *o) { gc_mark_value(vm, ((WorkObj *)o)->pg); }

static void work_finalize(VM *vm, Obj *o) {
    (void)vm;
    WorkObj *w = (WorkObj *)o;
    dist_work_release(w->w);
    w->w = NULL;
}

/* ---- argument helpers ----------------------------------------------------------------------- */

static int arg_str(VM *vm, Value v, const char *what, const char **out) {
    if (!val_is_str(vm, v)) return vm_raise(vm, vm->e_TypeError, "%s must be a str", what), -1;
    *out = AS_STR(v)->data;
    return 0;
}

static int arg_int(VM *vm, Value v, const char *what, int64_t *out) {
    if (!val_is_intlike(v)) return vm_raise(vm, vm->e_TypeError, "%s must be an int", what), -1;
    *out = val_as_intlike(v);
    return 0;
}

/* seconds (int or float; None -> dflt) to milliseconds */
static int arg_ms(VM *vm, Value v, int64_t dflt, int64_t *out) {
    if (val_is_null(v) || val_is_none(v)) return *out = dflt, 0;
    double s;
    if (vm_to_double(vm, v, &s) < 0) return -1;
    *out = s <= 0 ? 1 : (int64_t)(s * 1000.0 + 0.5);
    return 0;
}

/* bytes or str -> pointer and length (borrowed from the object) */
static int arg_bytes(VM *vm, Value v, const char *what, const void **p, size_t *n) {
    if (val_is_str(vm, v)) {
        *p = AS_STR(v)->data, *n = (size_t)AS_STR(v)->len;
        return 0;
    }
    if (val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_bytes)) {
        *p = ((BytesObj *)v.as.o)->data, *n = (size_t)((BytesObj *)v.as.o)->len;
        return 0;
    }
    return vm_raise(vm, vm->e_TypeError, "%s must be bytes or str", what), -1;
}

static Value raise_err(VM *vm, const char *err) { return vm_raise(vm, vm->e_RuntimeError, "%s", err); }

typedef struct TBuf {
    Tensor *t;
    void *ptr;
    int64_t numel;
    size_t nbytes;
    DistDtype dtype;
} TBuf;

static bool dtype_of(TensorDtype d, DistDtype *out) {
    switch (d) {
    case TENSOR_FLOAT32: *out = DIST_F32; return true;
    case TENSOR_INT64: *out = DIST_I64; return true;
    case TENSOR_BOOL: *out = DIST_BOOL; return true;
    default: return false;
    }
}

static size_t dist_elsize(DistDtype d) {
    switch (d) {
    case DIST_F64: case DIST_I64: return 8;
    case DIST_F32: case DIST_I32: return 4;
    case DIST_F16: return 2;
    default: return 1;
    }
}

static int tbuf(VM *vm, Value v, const char *what, TBuf *out) {
    if (!torch_is_tensor(vm, v)) return vm_raise(vm, vm->e_TypeError, "%s must be a Tensor", what), -1;
    Tensor *t = torch_tensor_of(v);
    if (!tensor_is_contiguous(t)) return vm_raise(vm, vm->e_ValueError, "Tensors must be contiguous"), -1;
    if (!dtype_of(tensor_dtype(t), &out->dtype))
        return vm_raise(vm, vm->e_RuntimeError, "Invalid scalar type"), -1;
    out->t = t;
    out->ptr = tensor_data_ptr(t);
    out->numel = tensor_numel(t);
    out->nbytes = (size_t)out->numel * dist_elsize(out->dtype);
    return 0;
}

/* A list/tuple of tensors, each like `like` (same dtype and numel). */
static int tbuf_list(VM *vm, Value v, const char *what, const TBuf *like, int expect, TBuf *out) {
    if (!val_is_obj(v) || (!vm_isinstance_type(vm, v, vm->t_list) && !vm_isinstance_type(vm, v, vm->t_tuple)))
        return vm_raise(vm, vm->e_TypeError, "%s must be a list of tensors", what), -1;
    bool is_list = vm_isinstance_type(vm, v, vm->t_list);
    int64_t n = is_list ? AS_LIST(v)->len : AS_TUPLE(v)->len;
    Value *items = is_list ? AS_LIST(v)->items : AS_TUPLE(v)->items;
    if (n != expect)
        return vm_raise(vm, vm->e_ValueError, "%s must hold %d tensors (the group's size), got %lld", what, expect,
                        (long long)n), -1;
    for (int64_t i = 0; i < n; i++) {
        if (tbuf(vm, items[i], what, &out[i]) < 0) return -1;
        if (like && (out[i].dtype != like->dtype || out[i].numel != like->numel))
            return vm_raise(vm, vm->e_ValueError, "%s: every tensor must match the input's size and dtype", what), -1;
    }
    return 0;
}

/* ---- _TCPStore ------------------------------------------------------------------------------- */

static DistStore *self_store(VM *vm, Value self) {
    StoreObj *so = (StoreObj *)self.as.o;
    if (!so->s) vm_raise(vm, vm->e_RuntimeError, "the store is not initialised");
    return so->s;
}

static Value store_init(ARGS) {
    static const char *const names[] = {"self", "host_name", "port", "world_size", "is_master", "timeout",
                                        "wait_for_workers"};
    Value a[7];
    if (native_parse_args(vm, "_TCPStore", argc, argv, kw, 7, 3, names, 7, a) < 0) return val_null();
    const char *host;
    int64_t port, ws = 1, timeout;
    if (arg_str(vm, a[1], "host_name", &host) < 0 || arg_int(vm, a[2], "port", &port) < 0) return val_null();
    if (!val_is_null(a[3]) && !val_is_none(a[3]) && arg_int(vm, a[3], "world_size", &ws) < 0) return val_null();
    bool master = !val_is_null(a[4]) && vm_truthy(vm, a[4]) == 1;
    bool wait_workers = val_is_null(a[6]) || vm_truthy(vm, a[6]) == 1;
    if (arg_ms(vm, a[5], 300000, &timeout) < 0) return val_null();
    char err[DIST_ERR_LEN];
    DistStore *s = dist_store_tcp_new(host, (int)port, (int)ws, master, timeout, wait_workers && master && ws > 1,
                                      err, sizeof err);
    if (!s) return raise_err(vm, err);
    StoreObj *so = (StoreObj *)argv[0].as.o;
    dist_store_decref(so->s);
    so->s = s;
    return val_none();
}

static Value store_set(ARGS) {
    if (native_check_args(vm, "set", argc, kw, 3, 3) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *key;
    const void *p;
    size_t n;
    if (!s || arg_str(vm, argv[1], "key", &key) < 0 || arg_bytes(vm, argv[2], "value", &p, &n) < 0) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_set(s, key, p, n, err, sizeof err) < 0 ? raise_err(vm, err) : val_none();
}

static Value store_get(ARGS) {
    if (native_check_args(vm, "get", argc, kw, 2, 2) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *key;
    if (!s || arg_str(vm, argv[1], "key", &key) < 0) return val_null();
    char err[DIST_ERR_LEN];
    void *data;
    size_t n;
    if (dist_store_get(s, key, &data, &n, -1, err, sizeof err) < 0) return raise_err(vm, err);
    BytesObj *b = bytes_new(vm, data, (int64_t)n);
    free(data);
    return b ? val_obj(b) : val_null();
}

static Value store_add(ARGS) {
    if (native_check_args(vm, "add", argc, kw, 3, 3) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *key;
    int64_t d, out;
    if (!s || arg_str(vm, argv[1], "key", &key) < 0 || arg_int(vm, argv[2], "value", &d) < 0) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_add(s, key, d, &out, err, sizeof err) < 0 ? raise_err(vm, err) : val_int(out);
}

/* keys: a list of str -> a C array borrowed from the strings (at most 64) */
static int key_list(VM *vm, Value v, const char **keys, int *n) {
    if (!val_is_obj(v) || !vm_isinstance_type(vm, v, vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "keys must be a list of str"), -1;
    ListObj *l = AS_LIST(v);
    if (l->len > 64) return vm_raise(vm, vm->e_ValueError, "at most 64 keys at a time"), -1;
    for (int64_t i = 0; i < l->len; i++)
        if (arg_str(vm, l->items[i], "key", &keys[i]) < 0) return -1;
    *n = (int)l->len;
    return 0;
}

static Value store_check(ARGS) {
    if (native_check_args(vm, "check", argc, kw, 2, 2) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *keys[64];
    int n;
    bool all;
    if (!s || key_list(vm, argv[1], keys, &n) < 0) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_check(s, keys, n, &all, err, sizeof err) < 0 ? raise_err(vm, err) : val_bool(all);
}

static Value store_wait(ARGS) {
    if (native_check_args(vm, "wait", argc, kw, 2, 3) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *keys[64];
    int n;
    int64_t timeout;
    if (!s || key_list(vm, argv[1], keys, &n) < 0) return val_null();
    if (arg_ms(vm, argc > 2 ? argv[2] : val_null(), dist_store_timeout(s), &timeout) < 0) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_wait(s, keys, n, timeout, err, sizeof err) < 0 ? raise_err(vm, err) : val_none();
}

static Value store_delete(ARGS) {
    if (native_check_args(vm, "delete_key", argc, kw, 2, 2) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *key;
    bool deleted;
    if (!s || arg_str(vm, argv[1], "key", &key) < 0) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_delete(s, key, &deleted, err, sizeof err) < 0 ? raise_err(vm, err) : val_bool(deleted);
}

static Value store_num_keys(ARGS) {
    (void)argc, (void)kw;
    DistStore *s = self_store(vm, argv[0]);
    int64_t n;
    if (!s) return val_null();
    char err[DIST_ERR_LEN];
    return dist_store_num_keys(s, &n, err, sizeof err) < 0 ? raise_err(vm, err) : val_int(n);
}

static Value store_compare_set(ARGS) {
    if (native_check_args(vm, "compare_set", argc, kw, 4, 4) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    const char *key;
    const void *e, *d;
    size_t el, dl;
    if (!s || arg_str(vm, argv[1], "key", &key) < 0 || arg_bytes(vm, argv[2], "expected_value", &e, &el) < 0 ||
        arg_bytes(vm, argv[3], "desired_value", &d, &dl) < 0)
        return val_null();
    char err[DIST_ERR_LEN];
    void *out;
    size_t ol;
    if (dist_store_compare_set(s, key, e, el, d, dl, &out, &ol, err, sizeof err) < 0) return raise_err(vm, err);
    BytesObj *b = bytes_new(vm, out, (int64_t)ol);
    free(out);
    return b ? val_obj(b) : val_null();
}

static Value store_set_timeout(ARGS) {
    if (native_check_args(vm, "set_timeout", argc, kw, 2, 2) < 0) return val_null();
    DistStore *s = self_store(vm, argv[0]);
    int64_t ms;
    if (!s || arg_ms(vm, argv[1], 300000, &ms) < 0) return val_null();
    dist_store_set_timeout(s, ms);
    return val_none();
}

static Value store_get_port(VM *vm, Value self, void *c) {
    (void)c;
    DistStore *s = self_store(vm, self);
    return s ? val_int(dist_store_port(s)) : val_null();
}

static Value store_get_host(VM *vm, Value self, void *c) {
    (void)c;
    DistStore *s = self_store(vm, self);
    if (!s) return val_null();
    StrObj *h = str_from_c(vm, dist_store_host(s));
    return h ? val_obj(h) : val_null();
}

static Value store_get_timeout(VM *vm, Value self, void *c) {
    (void)c;
    DistStore *s = self_store(vm, self);
    return s ? val_float((double)dist_store_timeout(s) / 1000.0) : val_null();
}

/* ---- _ProcessGroup ----------------------------------------------------------------------------- */

static PGObj *self_pg(VM *vm, Value self) {
    PGObj *p = (PGObj *)self.as.o;
    if (!p->pg) {
        vm_raise(vm, vm->e_RuntimeError, "the process group has been destroyed or was never initialised");
        return NULL;
    }
    return p;
}

/* gloo's listening address: GLOO_SOCKET_IFNAME, else loopback when the master is local, else
 * this host's name (as PyTorch's default device does). */
static void gloo_address(char *host, size_t n, const char **iface) {
    const char *ifn = getenv("GLOO_SOCKET_IFNAME");
    *iface = ifn && ifn[0] ? ifn : "";
    const char *m = getenv("MASTER_ADDR");
    if (!m || !m[0] || strncmp(m, "127.", 4) == 0 || strcmp(m, "localhost") == 0 || strcmp(m, "::1") == 0 ||
        gethostname(host, n) != 0)
        snprintf(host, n, "127.0.0.1");
}

static Value pg_init(ARGS) {
    static const char *const names[] = {"self", "backend", "store", "prefix", "rank", "size", "timeout",
                                        "world_ranks"};
    Value a[8];
    if (native_parse_args(vm, "_ProcessGroup", argc, argv, kw, 8, 7, names, 8, a) < 0) return val_null();
    const char *backend, *prefix;
    int64_t rank, size, timeout;
    if (arg_str(vm, a[1], "backend", &backend) < 0 || arg_str(vm, a[3], "prefix", &prefix) < 0 ||
        arg_int(vm, a[4], "rank", &rank) < 0 || arg_int(vm, a[5], "size", &size) < 0 ||
        arg_ms(vm, a[6], 1800000, &timeout) < 0)
        return val_null();
    DistStore *store = NULL;
    if (!val_is_none(a[2])) {
        if (!vm_isinstance_type(vm, a[2], types_of(vm)->t_store))
            return vm_raise(vm, vm->e_TypeError, "store must be a _TCPStore or None");
        store = self_store(vm, a[2]);
        if (!store) return val_null();
    }
    int world_ranks[1024];
    int n_world = 0;
    Value wr = val_is_null(a[7]) ? val_none() : a[7];
    if (!val_is_none(wr)) {
        if (!vm_isinstance_type(vm, wr, vm->t_list) || AS_LIST(wr)->len > 1024)
            return vm_raise(vm, vm->e_TypeError, "world_ranks must be a list of at most 1024 ints");
        for (int64_t i = 0; i < AS_LIST(wr)->len; i++) {
            int64_t r;
            if (arg_int(vm, AS_LIST(wr)->items[i], "world_ranks[i]", &r) < 0) return val_null();
            world_ranks[n_world++] = (int)r;
        }
    }
    char err[DIST_ERR_LEN] = "";
    const DistBackend *be = dist_backend_load(backend, err, sizeof err);
    if (!be) return raise_err(vm, err);
    int wrk = -1, wsz = -1;
    if (be->init(&wrk, &wsz, err, sizeof err) < 0) return raise_err(vm, err);
    if (strcmp(be->name, "gloo") == 0 && !store)
        return vm_raise(vm, vm->e_ValueError, "the gloo backend needs a store to rendezvous through");
    char host[256];
    const char *iface;
    gloo_address(host, sizeof host, &iface);
    DistCreate ca = {
        .rank = (int)rank, .size = (int)size, .world_ranks = n_world ? world_ranks : NULL,
        .world_size = wsz, .store = store ? dist_store_ops(store) : NULL, .prefix = prefix,
        .timeout_ms = timeout, .hostname = host, .iface = iface,
    };
    DistComm *comm = be->create(&ca, err, sizeof err);
    if (!comm) {
        if (err[0]) return vm_raise(vm, vm->e_RuntimeError, "[Rank %lld] could not create the %s process group: %s",
                                    (long long)rank, backend, err);
        return val_none();   /* not a member of this group: _member() says False */
    }
    DistPG *pg = dist_pg_new(be, comm, (int)rank, (int)size, timeout);
    if (!pg) return vm_no_memory(vm);
    PGObj *p = (PGObj *)argv[0].as.o;
    dist_pg_decref(p->pg);
    p->pg = pg;
    p->store = store ? a[2] : val_none();
    snprintf(p->backend, sizeof p->backend, "%s", be->name);
    return val_none();
}

static Value pg_member(ARGS) {
    (void)vm, (void)argc, (void)kw;
    return val_bool(((PGObj *)argv[0].as.o)->pg != NULL);
}

static Value pg_rank(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    return p ? val_int(dist_pg_rank(p->pg)) : val_null();
}

static Value pg_size(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    return p ? val_int(dist_pg_size(p->pg)) : val_null();
}

static Value pg_backend_name(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    if (!p) return val_null();
    StrObj *s = str_from_c(vm, p->backend);
    return s ? val_obj(s) : val_null();
}

static Value pg_destroy(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = (PGObj *)argv[0].as.o;
    if (p->pg) dist_pg_quiesce(p->pg, 10000);
    dist_pg_decref(p->pg);
    p->pg = NULL;
    return val_none();
}

/* _blocking(): the next collective is waited for at once (async_op=False) */
static Value pg_blocking(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    if (!p) return val_null();
    dist_pg_run_next_inline(p->pg);
    return val_none();
}

static Value pg_stats(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    if (!p) return val_null();
    DistPGStats s = dist_pg_stats(p->pg);
    TupleObj *t = tuple_pack(vm, 3, val_int(s.n_ops), val_float(s.busy_s), val_float(s.wait_s));
    return t ? val_obj(t) : val_null();
}

static Value pg_reset_stats(ARGS) {
    (void)argc, (void)kw;
    PGObj *p = self_pg(vm, argv[0]);
    if (!p) return val_null();
    dist_pg_reset_stats(p->pg);
    return val_none();
}

/* A new _Work around w (which it owns from now on). */
static Value wrap_work(VM *vm, Value pgv, DistWork *w) {
    WorkObj *o = gc_alloc(vm, types_of(vm)->t_work, sizeof(WorkObj));
    if (!o) {
        dist_work_release(w);
        return val_null();
    }
    o->w = w;
    o->pg = pgv;
    return val_obj(o);
}

static int check_reduce(VM *vm, PGObj *p, DistKind kind, int64_t op, DistDtype dt) {
    if (op < 0 || op >= DIST_REDUCE_COUNT) return vm_raise(vm, vm->e_ValueError, "invalid ReduceOp %lld", (long long)op), -1;
    if (!dist_pg_backend(p->pg)->supports(kind, (DistReduce)op, dt)) {
        static const char *const opnames[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"};
        if (op == DIST_AVG)
            return vm_raise(vm, vm->e_RuntimeError, "Cannot use ReduceOp.AVG with %s",
                            strcmp(p->backend, "gloo") == 0 ? "Gloo" : "MPI"), -1;
        if (op >= DIST_BAND && (dt == DIST_F32 || dt == DIST_F64 || dt == DIST_F16))
            return vm_raise(vm, vm->e_RuntimeError, "Cannot use ReduceOp.%s with non-integral dtype", opnames[op]), -1;
        return vm_raise(vm, vm->e_RuntimeError, "ProcessGroup %s does not support ReduceOp.%s for this dtype",
                        p->backend, opnames[op]), -1;
    }
    return 0;
}

static int check_root(VM *vm, PGObj *p, const char *what, int64_t root) {
    if (root < 0 || root >= dist_pg_size(p->pg))
        return vm_raise(vm, vm->e_RuntimeError, "ProcessGroup%s::%s: invalid root rank: %lld",
                        strcmp(p->backend, "gloo") == 0 ? "Gloo" : "MPI", what, (long long)root), -1;
    return 0;
}

/* Queue a call whose buffers are in the held tensors; returns the _Work. */
static Value submit(VM *vm, Value pgv, PGObj *p, DistWork *w) {
    dist_pg_enqueue(p->pg, w);
    return wrap_work(vm, pgv, w);
}

static DistWork *new_work(VM *vm, PGObj *p, const DistCall *c, const char *opname, TBuf *held, int n_held) {
    DistWork *w = dist_work_new(p->pg, c, opname);
    if (!w) return vm_no_memory(vm), NULL;
    for (int i = 0; i < n_held; i++)
        if (dist_work_hold(w, held[i].t) < 0) {
            dist_work_release(w);
            return vm_no_memory(vm), NULL;
        }
    return w;
}

static void *stage_alloc(VM *vm, DistWork *w, size_t n) {
    w->stage = malloc(n ? n : 1);
    if (!w->stage) vm_no_memory(vm);
    return w->stage;
}

/* allreduce(tensor, op) */
static Value pg_allreduce(ARGS) {
    if (native_check_args(vm, "allreduce", argc, kw, 3, 3) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t op;
    if (!p || tbuf(vm, argv[1], "tensor", &b) < 0 || arg_int(vm, argv[2], "op", &op) < 0 ||
        check_reduce(vm, p, DIST_ALLREDUCE, op, b.dtype) < 0)
        return val_null();
    DistCall c = {.kind = DIST_ALLREDUCE, .dtype = b.dtype, .op = (DistReduce)op, .in = b.ptr, .out = b.ptr,
                  .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "all_reduce", &b, 1);
    return w ? submit(vm, argv[0], p, w) : val_null();
}

/* allreduce_fp16(tensor, divisor): what PyTorch's fp16_compress_hook computes with a half tensor,
 * on a float32 one: each value rounded to half, divided by divisor in half precision
 * (.to(torch.float16).div_(world_size)), summed across ranks as halves (gloo's float16 sum
 * rounds each addition), and the sum widened back into the tensor. */
static Value pg_allreduce_fp16(ARGS) {
    if (native_check_args(vm, "allreduce_fp16", argc, kw, 3, 3) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t divisor;
    if (!p || tbuf(vm, argv[1], "tensor", &b) < 0 || arg_int(vm, argv[2], "divisor", &divisor) < 0) return val_null();
    if (divisor == 0) return vm_raise(vm, vm->e_ZeroDivisionError, "division by zero");
    if (b.dtype != DIST_F32) return vm_raise(vm, vm->e_TypeError, "allreduce_fp16 takes a float32 tensor");
    if (check_reduce(vm, p, DIST_ALLREDUCE, DIST_SUM, DIST_F16) < 0) return val_null();
    DistCall c = {.kind = DIST_ALLREDUCE, .dtype = DIST_F16, .op = DIST_SUM, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "all_reduce", &b, 1);
    if (!w) return val_null();
    uint16_t *h = stage_alloc(vm, w, (size_t)b.numel * 2);
    if (!h) return dist_work_release(w), val_null();
    const float *f = b.ptr;
    for (int64_t i = 0; i < b.numel; i++)
        h[i] = dist_float_to_half(dist_half_to_float(dist_float_to_half(f[i])) / (float)divisor);
    w->call.in = w->call.out = h;
    if (dist_work_add_copy(w, (DistCopy){b.ptr, h, b.numel, DIST_COPY_F16_TO_F32}) < 0)
        return dist_work_release(w), vm_no_memory(vm);
    return submit(vm, argv[0], p, w);
}

/* broadcast(tensor, root) */
static Value pg_broadcast(ARGS) {
    if (native_check_args(vm, "broadcast", argc, kw, 3, 3) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t root;
    if (!p || tbuf(vm, argv[1], "tensor", &b) < 0 || arg_int(vm, argv[2], "root", &root) < 0 ||
        check_root(vm, p, "broadcast", root) < 0)
        return val_null();
    DistCall c = {.kind = DIST_BROADCAST, .dtype = b.dtype, .root = (int)root, .in = b.ptr, .out = b.ptr,
                  .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "broadcast", &b, 1);
    return w ? submit(vm, argv[0], p, w) : val_null();
}

/* reduce(tensor, op, root) */
static Value pg_reduce(ARGS) {
    if (native_check_args(vm, "reduce", argc, kw, 4, 4) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t op, root;
    if (!p || tbuf(vm, argv[1], "tensor", &b) < 0 || arg_int(vm, argv[2], "op", &op) < 0 ||
        arg_int(vm, argv[3], "root", &root) < 0 || check_reduce(vm, p, DIST_REDUCE, op, b.dtype) < 0 ||
        check_root(vm, p, "reduce", root) < 0)
        return val_null();
    DistCall c = {.kind = DIST_REDUCE, .dtype = b.dtype, .op = (DistReduce)op, .root = (int)root, .in = b.ptr,
                  .out = b.ptr, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "reduce", &b, 1);
    return w ? submit(vm, argv[0], p, w) : val_null();
}

/* The destination of a gather-like call: one tensor of size * numel elements (written in place),
 * or a list of size tensors (staged, then copied out by the worker). */
static int gather_dest(VM *vm, PGObj *p, DistWork *w, Value outs, const TBuf *in, const char *what) {
    int size = dist_pg_size(p->pg);
    if (torch_is_tensor(vm, outs)) {
        TBuf o;
        if (tbuf(vm, outs, what, &o) < 0) return -1;
        if (o.dtype != in->dtype || o.numel != in->numel * size)
            return vm_raise(vm, vm->e_ValueError, "output tensor size must be equal to world_size times input tensor size"), -1;
        if (dist_work_hold(w, o.t) < 0) return vm_no_memory(vm), -1;
        w->call.out = o.ptr;
        return 0;
    }
    TBuf *os = malloc(sizeof(TBuf) * (size_t)size);
    if (!os) return vm_no_memory(vm), -1;
    int rc = tbuf_list(vm, outs, what, in, size, os);
    char *stage = rc == 0 ? stage_alloc(vm, w, in->nbytes * (size_t)size) : NULL;
    for (int r = 0; stage && r < size; r++) {
        if (dist_work_hold(w, os[r].t) < 0 ||
            dist_work_add_copy(w, (DistCopy){os[r].ptr, stage + (size_t)r * in->nbytes, (int64_t)in->nbytes,
                                             DIST_COPY_BYTES}) < 0) {
            stage = NULL;
            vm_no_memory(vm);
        }
    }
    free(os);
    if (!stage) return -1;
    w->call.out = stage;
    return 0;
}

/* allgather(outputs, input): outputs a list of size tensors or one flat tensor */
static Value pg_allgather(ARGS) {
    if (native_check_args(vm, "allgather", argc, kw, 3, 3) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    if (!p || tbuf(vm, argv[2], "input", &b) < 0) return val_null();
    DistCall c = {.kind = DIST_ALLGATHER, .dtype = b.dtype, .in = b.ptr, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "all_gather", &b, 1);
    if (!w) return val_null();
    if (gather_dest(vm, p, w, argv[1], &b, "output_tensor_list") < 0) return dist_work_release(w), val_null();
    return submit(vm, argv[0], p, w);
}

/* gather(outputs or None, input, root) */
static Value pg_gather(ARGS) {
    if (native_check_args(vm, "gather", argc, kw, 4, 4) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t root;
    if (!p || tbuf(vm, argv[2], "input", &b) < 0 || arg_int(vm, argv[3], "root", &root) < 0 ||
        check_root(vm, p, "gather", root) < 0)
        return val_null();
    DistCall c = {.kind = DIST_GATHER, .dtype = b.dtype, .root = (int)root, .in = b.ptr, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "gather", &b, 1);
    if (!w) return val_null();
    if (!val_is_none(argv[1]) && gather_dest(vm, p, w, argv[1], &b, "gather_list") < 0)
        return dist_work_release(w), val_null();
    return submit(vm, argv[0], p, w);
}

/* The source of a scatter-like call: a list of size tensors (concatenated now) or one flat
 * tensor of size * numel elements. */
static int scatter_src(VM *vm, PGObj *p, DistWork *w, Value ins, const TBuf *out, const char *what) {
    int size = dist_pg_size(p->pg);
    if (torch_is_tensor(vm, ins)) {
        TBuf i;
        if (tbuf(vm, ins, what, &i) < 0) return -1;
        if (i.dtype != out->dtype || i.numel != out->numel * size)
            return vm_raise(vm, vm->e_ValueError, "input tensor must be the same size as output size times world size"), -1;
        if (dist_work_hold(w, i.t) < 0) return vm_no_memory(vm), -1;
        w->call.in = i.ptr;
        return 0;
    }
    TBuf *is = malloc(sizeof(TBuf) * (size_t)size);
    if (!is) return vm_no_memory(vm), -1;
    int rc = tbuf_list(vm, ins, what, out, size, is);
    char *stage = rc == 0 ? stage_alloc(vm, w, out->nbytes * (size_t)size) : NULL;
    for (int r = 0; stage && out->nbytes && r < size; r++) memcpy(stage + (size_t)r * out->nbytes, is[r].ptr, out->nbytes);
    free(is);
    if (!stage) return -1;
    w->call.in = stage;
    return 0;
}

/* scatter(output, inputs or None, root) */
static Value pg_scatter(ARGS) {
    if (native_check_args(vm, "scatter", argc, kw, 4, 4) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t root;
    if (!p || tbuf(vm, argv[1], "output", &b) < 0 || arg_int(vm, argv[3], "root", &root) < 0 ||
        check_root(vm, p, "scatter", root) < 0)
        return val_null();
    DistCall c = {.kind = DIST_SCATTER, .dtype = b.dtype, .root = (int)root, .out = b.ptr, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "scatter", &b, 1);
    if (!w) return val_null();
    if (!val_is_none(argv[2]) && scatter_src(vm, p, w, argv[2], &b, "scatter_list") < 0)
        return dist_work_release(w), val_null();
    return submit(vm, argv[0], p, w);
}

/* reduce_scatter(output, inputs, op, may_clobber=False): gloo reduces in its input buffer, so a
 * flat input is copied first unless the caller lets it be overwritten */
static Value pg_reduce_scatter(ARGS) {
    if (native_check_args(vm, "reduce_scatter", argc, kw, 4, 5) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t op;
    if (!p || tbuf(vm, argv[1], "output", &b) < 0 || arg_int(vm, argv[3], "op", &op) < 0 ||
        check_reduce(vm, p, DIST_REDUCE_SCATTER, op, b.dtype) < 0)
        return val_null();
    DistCall c = {.kind = DIST_REDUCE_SCATTER, .dtype = b.dtype, .op = (DistReduce)op, .out = b.ptr,
                  .count = b.numel};
    DistWork *w = new_work(vm, p, &c, "reduce_scatter", &b, 1);
    if (!w) return val_null();
    if (scatter_src(vm, p, w, argv[2], &b, "input_list") < 0) return dist_work_release(w), val_null();
    bool clobber = argc > 4 && vm_truthy(vm, argv[4]) == 1;
    if (!w->stage && !clobber && strcmp(p->backend, "gloo") == 0) {   /* keep the caller's input intact */
        size_t n = b.nbytes * (size_t)dist_pg_size(p->pg);
        void *s = stage_alloc(vm, w, n);
        if (!s) return dist_work_release(w), val_null();
        if (n) memcpy(s, w->call.in, n);
        w->call.in = s;
    }
    return submit(vm, argv[0], p, w);
}

static int counts_arg(VM *vm, Value v, int size, int64_t total, int64_t *out, const char *what) {
    if (val_is_none(v)) {
        if (total % size != 0)
            return vm_raise(vm, vm->e_ValueError, "Tensor's dim 0 does not divide equally across group size"), -1;
        for (int r = 0; r < size; r++) out[r] = total / size;
        return 0;
    }
    if (!vm_isinstance_type(vm, v, vm->t_list) || AS_LIST(v)->len != size)
        return vm_raise(vm, vm->e_ValueError, "%s must be a list of %d element counts", what, size), -1;
    int64_t sum = 0;
    for (int r = 0; r < size; r++) {
        if (arg_int(vm, AS_LIST(v)->items[r], what, &out[r]) < 0) return -1;
        sum += out[r];
    }
    if (sum != total) return vm_raise(vm, vm->e_ValueError, "%s must add up to the tensor's elements", what), -1;
    return 0;
}

/* alltoall(output, input, output_counts or None, input_counts or None), counts in elements */
static Value pg_alltoall(ARGS) {
    if (native_check_args(vm, "alltoall", argc, kw, 5, 5) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf bs[2];
    if (!p || tbuf(vm, argv[1], "output", &bs[0]) < 0 || tbuf(vm, argv[2], "input", &bs[1]) < 0) return val_null();
    if (bs[0].dtype != bs[1].dtype) return vm_raise(vm, vm->e_ValueError, "input and output dtypes differ");
    int size = dist_pg_size(p->pg);
    int64_t *counts = malloc(sizeof(int64_t) * 2 * (size_t)size);
    if (!counts) return vm_no_memory(vm);
    Value r = val_null();
    if (counts_arg(vm, argv[3], size, bs[0].numel, counts + size, "output_split_sizes") == 0 &&
        counts_arg(vm, argv[4], size, bs[1].numel, counts, "input_split_sizes") == 0) {
        DistCall c = {.kind = DIST_ALLTOALL, .dtype = bs[0].dtype, .in = bs[1].ptr, .out = bs[0].ptr,
                      .in_counts = counts, .out_counts = counts + size};
        DistWork *w = new_work(vm, p, &c, "all_to_all", bs, 2);
        if (w) r = submit(vm, argv[0], p, w);
    }
    free(counts);
    return r;
}

static Value pg_barrier(ARGS) {
    if (native_check_args(vm, "barrier", argc, kw, 1, 1) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    if (!p) return val_null();
    DistCall c = {.kind = DIST_BARRIER};
    DistWork *w = new_work(vm, p, &c, "barrier", NULL, 0);
    return w ? submit(vm, argv[0], p, w) : val_null();
}

/* send(tensor, dst, tag) / recv(tensor, src or -1, tag) */
static Value p2p(ARGS, bool is_send) {
    const char *name = is_send ? "send" : "recv";
    if (native_check_args(vm, name, argc, kw, 4, 4) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    TBuf b;
    int64_t peer, tag;
    if (!p || tbuf(vm, argv[1], "tensor", &b) < 0 || arg_int(vm, argv[2], "peer", &peer) < 0 ||
        arg_int(vm, argv[3], "tag", &tag) < 0)
        return val_null();
    int size = dist_pg_size(p->pg);
    if (peer >= size || peer < (is_send ? 0 : -1))
        return vm_raise(vm, vm->e_RuntimeError, "Invalid rank %lld for a group of %d processes", (long long)peer, size);
    if (tag < 0 || tag > 0xffffff) return vm_raise(vm, vm->e_RuntimeError, "Tag must be nonnegative and below 2**24");
    DistCall c = {.dtype = b.dtype, .count = b.numel};
    DistWork *w = new_work(vm, p, &c, name, &b, 1);
    if (!w) return val_null();
    char err[DIST_ERR_LEN];
    if (dist_work_start_p2p(w, is_send, b.ptr, b.nbytes, (int)peer, (uint32_t)tag, err, sizeof err) < 0) {
        dist_work_release(w);
        return vm_raise(vm, vm->e_RuntimeError, "[Rank %d] %s failed: %s", dist_pg_rank(p->pg), name, err);
    }
    return wrap_work(vm, argv[0], w);
}

static Value pg_send(ARGS) { return p2p(vm, argc, argv, kw, fn, true); }
static Value pg_recv(ARGS) { return p2p(vm, argc, argv, kw, fn, false); }

/* supports(kind, op, tensor) -> bool: what check_reduce would accept */
static Value pg_supports(ARGS) {
    if (native_check_args(vm, "supports", argc, kw, 4, 4) < 0) return val_null();
    PGObj *p = self_pg(vm, argv[0]);
    int64_t kind, op;
    TBuf b;
    if (!p || arg_int(vm, argv[1], "kind", &kind) < 0 || arg_int(vm, argv[2], "op", &op) < 0 ||
        tbuf(vm, argv[3], "tensor", &b) < 0)
        return val_null();
    if (kind < 0 || kind >= DIST_KIND_COUNT || op < 0 || op >= DIST_REDUCE_COUNT) return val_bool(false);
    return val_bool(dist_pg_backend(p->pg)->supports((DistKind)kind, (DistReduce)op, b.dtype) != 0);
}

/* ---- _Work ------------------------------------------------------------------------------------- */

static DistWork *self_work(VM *vm, Value self) {
    WorkObj *o = (WorkObj *)self.as.o;
    if (!o->w) vm_raise(vm, vm->e_RuntimeError, "the work has been released");
    return o->w;
}

static Value work_wait(ARGS) {
    static const char *const names[] = {"self", "timeout"};
    Value a[2];
    if (native_parse_args(vm, "wait", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    DistWork *w = self_work(vm, a[0]);
    int64_t timeout;
    if (!w || arg_ms(vm, a[1], -1, &timeout) < 0) return val_null();
    char err[DIST_ERR_LEN];
    int rc = dist_work_wait(w, timeout, err, sizeof err);
    DistWorkState st = w->is_p2p ? (w->waited ? w->state : DIST_WORK_RUNNING) : dist_work_state(w);
    if (st == DIST_WORK_DONE || st == DIST_WORK_FAILED) dist_work_drop_buffers(w);
    if (rc < 0) {
        const char *hint = strstr(err, "closed by peer") || strstr(err, "reset by peer") || strstr(err, "Timed out") ||
                                   strstr(err, "Timeout") || strstr(err, "timed out")
                               ? " (a peer process may have exited or stopped responding)"
                               : "";
        return vm_raise(vm, vm->e_RuntimeError, "[Rank %d] %s failed: %s%s", dist_pg_rank(w->pg), w->opname, err,
                        hint);
    }
    return val_bool(true);
}

static Value work_is_completed(ARGS) {
    (void)argc, (void)kw;
    DistWork *w = self_work(vm, argv[0]);
    if (!w) return val_null();
    if (w->is_p2p) return val_bool(w->waited);
    DistWorkState s = dist_work_state(w);
    return val_bool(s == DIST_WORK_DONE || s == DIST_WORK_FAILED);
}

static Value work_is_success(ARGS) {
    (void)argc, (void)kw;
    DistWork *w = self_work(vm, argv[0]);
    if (!w) return val_null();
    if (w->is_p2p) return val_bool(w->waited && w->state == DIST_WORK_DONE);
    return val_bool(dist_work_state(w) == DIST_WORK_DONE);
}

static Value work_exception(ARGS) {
    (void)argc, (void)kw;
    DistWork *w = self_work(vm, argv[0]);
    if (!w) return val_null();
    if (dist_work_state(w) != DIST_WORK_FAILED) return val_none();
    StrObj *s = str_from_c(vm, w->err);
    return s ? val_obj(s) : val_null();
}

static Value work_source_rank(ARGS) {
    (void)argc, (void)kw;
    DistWork *w = self_work(vm, argv[0]);
    if (!w) return val_null();
    if (w->is_p2p && strcmp(w->opname, "recv") == 0 && w->waited && w->src_rank >= 0) return val_int(w->src_rank);
    return vm_raise(vm, vm->e_RuntimeError, "sourceRank() may only be called on a completed recv operation");
}

/* (queued, started, finished) in seconds of the monotonic clock, for benchmarks */
static Value work_times(ARGS) {
    (void)argc, (void)kw;
    DistWork *w = self_work(vm, argv[0]);
    if (!w) return val_null();
    TupleObj *t = tuple_pack(vm, 3, val_float(w->t_queued), val_float(w->t_start), val_float(w->t_end));
    return t ? val_obj(t) : val_null();
}

/* ---- module functions ------------------------------------------------------------------------ */

static Value f_backend_available(ARGS) {
    const char *name;
    if (native_check_args(vm, "_backend_available", argc, kw, 1, 1) < 0 || arg_str(vm, argv[0], "name", &name) < 0)
        return val_null();
    return val_bool(dist_backend_available(name));
}

/* _mpi_world() -> (rank, size) of the job mpirun started (initialises MPI) */
static Value f_mpi_world(ARGS) {
    (void)argv;
    if (native_check_args(vm, "_mpi_world", argc, kw, 0, 0) < 0) return val_null();
    char err[DIST_ERR_LEN];
    const DistBackend *be = dist_backend_load("mpi", err, sizeof err);
    int r = -1, s = -1;
    if (!be || be->init(&r, &s, err, sizeof err) < 0) return raise_err(vm, err);
    TupleObj *t = tuple_pack(vm, 2, val_int(r), val_int(s));
    return t ? val_obj(t) : val_null();
}

/* _launch(args: list of str) -> exit status: torchrun's launcher (launch.c) */
static Value f_launch(ARGS) {
    if (native_check_args(vm, "_launch", argc, kw, 1, 1) < 0) return val_null();
    if (!vm_isinstance_type(vm, argv[0], vm->t_list)) return vm_raise(vm, vm->e_TypeError, "_launch takes a list of str");
    ListObj *l = AS_LIST(argv[0]);
    char **args = calloc((size_t)l->len + 1, sizeof(char *));
    if (!args) return vm_no_memory(vm);
    for (int64_t i = 0; i < l->len; i++) {
        const char *s;
        if (arg_str(vm, l->items[i], "argument", &s) < 0) {
            free(args);
            return val_null();
        }
        args[i] = (char *)s;
    }
    fflush(vm->out);
    fflush(vm->err);
    int rc = dist_launch_main((int)l->len, args);
    free(args);
    return val_int(rc);
}

/* _getenv(name) -> str or None (the os module is not always there) */
static Value f_getenv(ARGS) {
    const char *name;
    if (native_check_args(vm, "_getenv", argc, kw, 1, 1) < 0 || arg_str(vm, argv[0], "name", &name) < 0)
        return val_null();
    const char *v = getenv(name);
    if (!v) return val_none();
    StrObj *s = str_from_c(vm, v);
    return s ? val_obj(s) : val_null();
}

/* _bytes_to_tensor(b) -> int64 tensor holding b's bytes (zero-padded to whole words): the object
 * collectives' pickles travel in int64 tensors while the tensor library has no uint8 dtype. */
static Value f_bytes_to_tensor(ARGS) {
    const void *p;
    size_t n;
    if (native_check_args(vm, "_bytes_to_tensor", argc, kw, 1, 1) < 0 || arg_bytes(vm, argv[0], "data", &p, &n) < 0)
        return val_null();
    int64_t words = (int64_t)((n + 7) / 8);
    Tensor *t = tensor_zeros(TENSOR_INT64, 1, &words);
    if (!t) return torch_raise_error(vm);
    if (n) memcpy(tensor_data_ptr(t), p, n);
    return torch_wrap(vm, t);
}

/* _tensor_to_bytes(t, n) -> the first n bytes of a contiguous int64 tensor */
static Value f_tensor_to_bytes(ARGS) {
    if (native_check_args(vm, "_tensor_to_bytes", argc, kw, 2, 2) < 0) return val_null();
    TBuf b;
    int64_t n;
    if (tbuf(vm, argv[0], "tensor", &b) < 0 || arg_int(vm, argv[1], "size", &n) < 0) return val_null();
    if (n < 0 || (size_t)n > b.nbytes) return vm_raise(vm, vm->e_ValueError, "size out of range");
    BytesObj *o = bytes_new(vm, b.ptr, n);
    return o ? val_obj(o) : val_null();
}

/* _storage_bytes(reset_peak=False) -> (live, peak): tensor storage of this process, for the
 * memory benchmarks (FSDP vs DDP peak per rank) */
static Value f_storage_bytes(ARGS) {
    if (native_check_args(vm, "_storage_bytes", argc, kw, 0, 1) < 0) return val_null();
    TupleObj *t = tuple_pack(vm, 2, val_int((int64_t)tensor_live_storage_bytes()),
                             val_int((int64_t)tensor_peak_storage_bytes()));
    if (argc == 1 && vm_truthy(vm, argv[0]) == 1) tensor_reset_peak_storage_bytes();
    return t ? val_obj(t) : val_null();
}

/* ---- registration ---------------------------------------------------------------------------- */

static void dist_ext_trace(VM *vm, void *state) {
    DistTypes *t = state;
    gc_mark(vm, t->t_store);
    gc_mark(vm, t->t_pg);
    gc_mark(vm, t->t_work);
}

static void dist_ext_free(VM *vm, void *state) {
    vm->ext[VM_EXT_DIST] = NULL;
    free(state);
}

static int dist_module_init(VM *vm, Value mod) {
    DistTypes *t = types_of(vm);
    t->t_store = type_new_builtin(vm, "_TCPStore", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(StoreObj), 0, NULL,
                                  store_finalize, TYPEF_BASETYPE);
    if (!t->t_store || module_set(vm, mod, "_TCPStore", val_obj(t->t_store)) < 0) return -1;
    t->t_pg = type_new_builtin(vm, "_ProcessGroup", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(PGObj), 0, pg_trace,
                               pg_finalize, TYPEF_BASETYPE);
    if (!t->t_pg || module_set(vm, mod, "_ProcessGroup", val_obj(t->t_pg)) < 0) return -1;
    t->t_work = type_new_builtin(vm, "_Work", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(WorkObj), 0, work_trace,
                                 work_finalize, TYPEF_ABSTRACT_NEW);
    if (!t->t_work || module_set(vm, mod, "_Work", val_obj(t->t_work)) < 0) return -1;
    t->t_store->module = t->t_pg->module = t->t_work->module = vm_intern(vm, "torch._C._distributed_c10d");
    static const MethodDef sm[] = {
        {"__init__", store_init, NATIVEF_METHOD},
        {"set", store_set, NATIVEF_METHOD},
        {"get", store_get, NATIVEF_METHOD},
        {"add", store_add, NATIVEF_METHOD},
        {"check", store_check, NATIVEF_METHOD},
        {"wait", store_wait, NATIVEF_METHOD},
        {"delete_key", store_delete, NATIVEF_METHOD},
        {"num_keys", store_num_keys, NATIVEF_METHOD | ARITY_NOARGS},
        {"compare_set", store_compare_set, NATIVEF_METHOD},
        {"set_timeout", store_set_timeout, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef sgs[] = {
        {"port", store_get_port, NULL},
        {"host", store_get_host, NULL},
        {"timeout", store_get_timeout, NULL},
        {NULL}};
    static const MethodDef pm[] = {
        {"__init__", pg_init, NATIVEF_METHOD},
        {"_member", pg_member, NATIVEF_METHOD | ARITY_NOARGS},
        {"rank", pg_rank, NATIVEF_METHOD | ARITY_NOARGS},
        {"size", pg_size, NATIVEF_METHOD | ARITY_NOARGS},
        {"name", pg_backend_name, NATIVEF_METHOD | ARITY_NOARGS},
        {"_destroy", pg_destroy, NATIVEF_METHOD | ARITY_NOARGS},
        {"_stats", pg_stats, NATIVEF_METHOD | ARITY_NOARGS},
        {"_blocking", pg_blocking, NATIVEF_METHOD | ARITY_NOARGS},
        {"_reset_stats", pg_reset_stats, NATIVEF_METHOD | ARITY_NOARGS},
        {"allreduce", pg_allreduce, NATIVEF_METHOD},
        {"allreduce_fp16", pg_allreduce_fp16, NATIVEF_METHOD},
        {"broadcast", pg_broadcast, NATIVEF_METHOD},
        {"reduce", pg_reduce, NATIVEF_METHOD},
        {"allgather", pg_allgather, NATIVEF_METHOD},
        {"gather", pg_gather, NATIVEF_METHOD},
        {"scatter", pg_scatter, NATIVEF_METHOD},
        {"reduce_scatter", pg_reduce_scatter, NATIVEF_METHOD},
        {"alltoall", pg_alltoall, NATIVEF_METHOD},
        {"barrier", pg_barrier, NATIVEF_METHOD},
        {"send", pg_send, NATIVEF_METHOD},
        {"recv", pg_recv, NATIVEF_METHOD},
        {"supports", pg_supports, NATIVEF_METHOD},
        {NULL}};
    static const MethodDef wm[] = {
        {"wait", work_wait, NATIVEF_METHOD},
        {"is_completed", work_is_completed, NATIVEF_METHOD | ARITY_NOARGS},
        {"is_success", work_is_success, NATIVEF_METHOD | ARITY_NOARGS},
        {"exception", work_exception, NATIVEF_METHOD | ARITY_NOARGS},
        {"source_rank", work_source_rank, NATIVEF_METHOD | ARITY_NOARGS},
        {"_times", work_times, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    if (type_add_methods(vm, t->t_store, sm) < 0 || type_add_getsets(vm, t->t_store, sgs) < 0 ||
        type_add_methods(vm, t->t_pg, pm) < 0 || type_add_methods(vm, t->t_work, wm) < 0)
        return -1;
    static const MethodDef fns[] = {
        {"_backend_available", f_backend_available},
        {"_mpi_world", f_mpi_world},
        {"_launch", f_launch},
        {"_getenv", f_getenv},
        {"_bytes_to_tensor", f_bytes_to_tensor},
        {"_tensor_to_bytes", f_tensor_to_bytes},
        {"_storage_bytes", f_storage_bytes},
        {NULL}};
    static const struct { const char *name; int v; } kinds[] = {
        {"KIND_ALLREDUCE", DIST_ALLREDUCE}, {"KIND_REDUCE", DIST_REDUCE},
        {"KIND_REDUCE_SCATTER", DIST_REDUCE_SCATTER}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (module_set(vm, mod, kinds[i].name, val_int(kinds[i].v)) < 0) return -1;
    return module_add_functions(vm, mod, fns);
}

void dist_register(VM *vm) {
    DistTypes *t = calloc(1, sizeof *t);
    EM_ASSERT(t != NULL, "out of memory");
    vm->ext[VM_EXT_DIST] = t;
    vm->ext_trace[VM_EXT_DIST] = dist_ext_trace;
    vm->ext_free[VM_EXT_DIST] = dist_ext_free;
    vm_register_native_module(vm, "torch._C._distributed_c10d", dist_module_init);
}
