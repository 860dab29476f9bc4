"""torch.distributed.distributed_c10d: process groups, the collectives and point-to-point
operations on them, as PyTorch's module of the same name.  The engines are Gloo and Open MPI,
reached through Ember's native torch._C._distributed_c10d (src/dist): every collective is queued
on its group's worker thread and returns a Work; a blocking call waits for it.  This module does
PyTorch's argument checking, group bookkeeping (the default group, new_group, global <-> group
ranks, non-members) and the env:// rendezvous."""
import time
import warnings

import torch
from torch._C import _distributed_c10d as _C

try:
    from datetime import timedelta as _timedelta
except ImportError:          # before CPython's stdlib is on sys.path: timeouts in seconds
    _timedelta = None

from torch.distributed.constants import default_pg_timeout

__all__ = [
    "Backend", "ReduceOp", "Work", "ProcessGroup", "ProcessGroupGloo", "ProcessGroupMPI", "GroupMember",
    "group", "Store", "TCPStore", "PrefixStore", "P2POp", "init_process_group", "destroy_process_group",
    "is_initialized", "is_available", "is_gloo_available", "is_mpi_available", "is_nccl_available",
    "is_ucc_available", "is_torchelastic_launched", "get_rank", "get_world_size", "get_backend",
    "new_group", "get_group_rank", "get_global_rank", "get_process_group_ranks", "barrier",
    "monitored_barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
    "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
    "send", "recv", "isend", "irecv", "batch_isend_irecv", "broadcast_object_list",
    "all_gather_object", "gather_object", "scatter_object_list",
]


def _seconds(timeout):
    """A timedelta (or a number of seconds) as seconds."""
    if timeout is None:
        return None
    if hasattr(timeout, "total_seconds"):
        return timeout.total_seconds()
    return float(timeout)


# ---- constants -----------------------------------------------------------------------------------

class Backend(object):
    """The names of the backends, as lowercase strings; Backend("GLOO") is "gloo"."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    TCP = "tcp"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend name must be a string, but got: {}".format(name))
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.TCP:
            raise ValueError("TCP backend has been deprecated. Please use "
                             "Gloo or MPI backend for collective operations "
                             "on CPU tensors.")
        elif value == Backend.UNDEFINED:
            raise ValueError("Invalid backend: '{}'".format(name))
        return value


class ReduceOp(object):
    """Reduction operators (ReduceOp.SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR, AVG)."""
    __slots__ = ("_value", "_name")

    def __init__(self, value=0, name="SUM"):
        self._value = value
        self._name = name

    def __eq__(self, other):
        return isinstance(other, ReduceOp) and other._value == self._value

    def __hash__(self):
        return hash(self._value)

    def __int__(self):
        return self._value

    def __repr__(self):
        return "<ReduceOp.{}: {}>".format(self._name, self._value)


for _v, _n in enumerate(["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]):
    setattr(ReduceOp, _n, ReduceOp(_v, _n))
del _v, _n
ReduceOp.RedOpType = ReduceOp


def _op_value(op):
    if not isinstance(op, ReduceOp):
        raise TypeError("op must be a torch.distributed.ReduceOp, got {}".format(type(op).__name__))
    if op == ReduceOp.PREMUL_SUM:
        raise RuntimeError("ReduceOp.PREMUL_SUM is only supported by the NCCL backend")
    return op._value


# ---- stores ----------------------------------------------------------------------------------------

class Store(object):
    """Base class of the key-value stores processes meet through."""

    def _base_and_prefix(self):
        raise NotImplementedError("this store cannot be used to initialise a process group")


def _key(key):
    if not isinstance(key, str):
        raise TypeError("key must be a str, got {}".format(type(key).__name__))
    return key


def _value(v):
    if isinstance(v, (bytes, str)):
        return v
    if isinstance(v, (list, tuple, bytearray)):
        return bytes(v)
    raise TypeError("value must be bytes or str, got {}".format(type(v).__name__))


class TCPStore(Store):
    """A store served over TCP by the process created with is_master=True (rank 0)."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=None,
                 wait_for_workers=True, multi_tenant=False):
        self._s = _C._TCPStore(host_name, port, world_size, is_master,
                               _seconds(timeout) if timeout is not None else 300.0, wait_for_workers)

    @property
    def host(self):
        return self._s.host

    @property
    def port(self):
        return self._s.port

    @property
    def timeout(self):
        if _timedelta is not None:
            return _timedelta(seconds=self._s.timeout)
        return self._s.timeout

    def set(self, key, value):
        self._s.set(_key(key), _value(value))

    def get(self, key):
        return self._s.get(_key(key))

    def add(self, key, value):
        return self._s.add(_key(key), int(value))

    def compare_set(self, key, expected_value, desired_value):
        return self._s.compare_set(_key(key), _value(expected_value), _value(desired_value))

    def check(self, keys):
        return self._s.check([_key(k) for k in keys])

    def wait(self, keys, timeout=None):
        self._s.wait([_key(k) for k in keys], _seconds(timeout))

    def delete_key(self, key):
        return self._s.delete_key(_key(key))

    def num_keys(self):
        return self._s.num_keys()

    def set_timeout(self, timeout):
        self._s.set_timeout(_seconds(timeout))

    def _base_and_prefix(self):
        return self._s, ""


class PrefixStore(Store):
    """A view of another store whose keys all start with prefix + "/"."""

    def __init__(self, prefix, store):
        self._prefix = prefix
        self._store = store

    @property
    def underlying_store(self):
        return self._store

    def _k(self, key):
        return self._prefix + "/" + _key(key)

    def set(self, key, value):
        self._store.set(self._k(key), value)

    def get(self, key):
        return self._store.get(self._k(key))

    def add(self, key, value):
        return self._store.add(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self._store.compare_set(self._k(key), expected_value, desired_value)

    def check(self, keys):
        return self._store.check([self._k(k) for k in keys])

    def wait(self, keys, timeout=None):
        self._store.wait([self._k(k) for k in keys], timeout)

    def delete_key(self, key):
        return self._store.delete_key(self._k(key))

    def num_keys(self):
        return self._store.num_keys()

    def set_timeout(self, timeout):
        self._store.set_timeout(timeout)

    def _base_and_prefix(self):
        base, prefix = self._store._base_and_prefix()
        return base, prefix + self._prefix + "/"


# ---- works -------------------------------------------------------------------------------------------

class Work(object):
    """The handle of an operation in flight (async_op=True).  wait() blocks until it is done and
    raises RuntimeError if it failed; result() is the list of tensors it produced."""

    def __init__(self, native, result=None, post=None, group=None):
        self._native = native
        self._result = result if result is not None else []
        self._post = post
        self._group = group

    def _finish(self):
        post = self._post
        if post is not None:
            self._post = None
            post()

    def wait(self, timeout=None):
        self._native.wait(_seconds(timeout))
        self._finish()
        return True

    def is_completed(self):
        return self._native.is_completed()

    def is_success(self):
        warnings.warn("Work::is_success API is being deprecated, please ping "
                      "https://github.com/pytorch/pytorch/issues/46291 if you see this warning")
        return self._native.is_success()

    def exception(self):
        msg = self._native.exception()
        return None if msg is None else RuntimeError(msg)

    def source_rank(self):
        r = self._native.source_rank()
        return r if self._group is None else get_global_rank(self._group, r)

    def result(self):
        return self._result

    def synchronize(self):
        pass

    def get_future(self):
        from torch.futures import _WorkFuture
        return _WorkFuture(self)


class _DoneWork(Work):
    """A finished no-op (a collective on a group of one, or skipped by a non-member)."""

    def __init__(self, result=None):
        self._result = result if result is not None else []
        self._post = None
        self._group = None

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def exception(self):
        return None


def _finish(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


# ---- groups ------------------------------------------------------------------------------------------

class ProcessGroup(object):
    """A group of processes that run collectives together, on one backend."""

    def __init__(self, native, backend, store):
        self._native = native
        self._backend = backend
        self._store = store

    def rank(self):
        return self._native.rank()

    def size(self):
        return self._native.size()

    def name(self):
        return self._backend

    def _get_backend_name(self):
        return self._backend

    def _destroy(self):
        self._native._destroy()

    def _stats(self):
        return self._native._stats()

    def _reset_stats(self):
        self._native._reset_stats()

    def _allreduce_fp16(self, tensor, divisor):
        """All-reduce a float32 tensor the way fp16_compress_hook does with a half tensor."""
        return Work(self._native.allreduce_fp16(tensor, divisor), [tensor], group=self)


class ProcessGroupGloo(ProcessGroup):
    pass


class ProcessGroupMPI(ProcessGroup):
    pass


class GroupMember(object):
    WORLD = None
    NON_GROUP_MEMBER = object()


class group(object):
    WORLD = None


_group_class = group    # `group` is also the name of the functions' argument


_pg_map = {}            # group -> (backend, store)
_pg_names = {}          # group -> name
_pg_group_ranks = {}    # group -> {global rank: group rank}
_backend = None
_default_pg_init_method = None
_group_count = 0
STORE_BASED_BARRIER_PREFIX = "store_based_barrier_key"


def is_available():
    return True


def is_gloo_available():
    return _C._backend_available("gloo")


def is_mpi_available():
    return _C._backend_available("mpi")


def is_nccl_available():
    return False


def is_ucc_available():
    return False


def is_initialized():
    return GroupMember.WORLD is not None


def is_torchelastic_launched():
    return _C._getenv("TORCHELASTIC_RUN_ID") is not None


def _get_default_group():
    if not is_initialized():
        raise RuntimeError("Default process group has not been initialized, "
                           "please make sure to call init_process_group.")
    return GroupMember.WORLD


def _get_default_store():
    if not is_initialized():
        raise RuntimeError("Default process group has not been initialized, "
                           "please make sure to call init_process_group.")
    return _pg_map[GroupMember.WORLD][1]


def _group_or_default(g):
    if g is None or g is GroupMember.WORLD:
        return _get_default_group()
    return g


def _rank_not_in_group(g):
    if g is None:
        return False
    return g is GroupMember.NON_GROUP_MEMBER


def _warn_not_in_group(op_name):
    global_rank = -1 if GroupMember.WORLD is None else GroupMember.WORLD.rank()
    warnings.warn("Running {} on global rank {} which does not belong to the given group.".format(op_name, global_rank))


def get_backend(group=None):
    if _rank_not_in_group(group):
        raise RuntimeError("Invalid process group specified")
    pg = _group_or_default(group)
    return _pg_map[pg][0]


def get_rank(group=None):
    if _rank_not_in_group(group):
        return -1
    default_pg = _get_default_group()
    if group is None or group is GroupMember.WORLD:
        return default_pg.rank()
    return get_group_rank(group, default_pg.rank())


def get_world_size(group=None):
    if _rank_not_in_group(group):
        return -1
    return _group_or_default(group).size()


def get_group_rank(group, global_rank):
    if group is GroupMember.WORLD:
        return global_rank
    if group not in _pg_group_ranks:
        raise RuntimeError("Group {} is not registered, please create group with torch.distributed.new_group API".format(group))
    ranks = _pg_group_ranks[group]
    if global_rank not in ranks:
        raise RuntimeError("Global rank {} is not part of group {}".format(global_rank, group))
    return ranks[global_rank]


def get_global_rank(group, group_rank):
    if group is GroupMember.WORLD:
        return group_rank
    if group not in _pg_group_ranks:
        raise RuntimeError("Group {} is not registered, please create group with torch.distributed.new_group API".format(group))
    for rank, grp_rank in _pg_group_ranks[group].items():
        if grp_rank == group_rank:
            return rank
    raise RuntimeError("Group rank {} is not part of group {}".format(group_rank, group))


def get_process_group_ranks(group):
    return list(_pg_group_ranks[_group_or_default(group)].keys())


def _to_group_rank(g, global_rank, what):
    if g is None or g is GroupMember.WORLD:
        return global_rank
    return get_group_rank(g, global_rank)


# ---- init ----------------------------------------------------------------------------------------

def _rendezvous_error(msg):
    return ValueError("Error initializing torch.distributed using " + msg)


def _env(name):
    v = _C._getenv(name)
    if not v:
        raise _rendezvous_error("env:// rendezvous: environment variable {} expected, but not set".format(name))
    return v


def _parse_init_method(init_method, rank, world_size):
    """env://, or tcp://host:port (rank and world_size given); query ?rank=&world_size= as PyTorch."""
    query = {}
    url = init_method
    if "?" in url:
        url, q = url.split("?", 1)
        for part in q.split("&"):
            if "=" in part:
                k, v = part.split("=", 1)
                query[k] = v
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    if url.startswith("env://"):
        if rank == -1:
            rank = int(_env("RANK"))
        if world_size == -1:
            world_size = int(_env("WORLD_SIZE"))
        addr = _env("MASTER_ADDR")
        port = int(_env("MASTER_PORT"))
    elif url.startswith("tcp://"):
        hostport = url[len("tcp://"):].rstrip("/")
        if rank == -1 or world_size == -1:
            raise _rendezvous_error("tcp:// rendezvous: rank and world_size are required")
        if hostport.startswith("["):
            addr, port = hostport[1:].split("]:", 1)
        else:
            addr, port = hostport.rsplit(":", 1)
        port = int(port)
    else:
        raise RuntimeError("No rendezvous handler for {}".format(init_method.split("://")[0] + "://"))
    return addr, port, rank, world_size


def _store_based_barrier(rank, store, timeout, world_size):
    store_key = "{}:{}".format(STORE_BASED_BARRIER_PREFIX, _group_count)
    store.add(store_key, 1)
    worker_count = store.add(store_key, 0)
    start = time.time()
    limit = _seconds(timeout)
    while worker_count != world_size:
        time.sleep(0.01)
        worker_count = store.add(store_key, 0)
        if time.time() - start > limit:
            raise RuntimeError(
                "Timed out initializing process group in store based barrier on "
                "rank: {}, for key: {} (world_size={}, worker_count={}, timeout={})".format(
                    rank, store_key, world_size, worker_count, timeout))


def _new_process_group_helper(group_size, group_rank, global_ranks, backend, store, timeout, world_ranks=None):
    """Creates the native group (every rank of the job calls this for every group; a rank that is
    not a member gets NON_GROUP_MEMBER)."""
    global _group_count
    _group_count += 1
    name = str(_group_count)
    secs = _seconds(timeout)
    if backend == Backend.MPI:
        native = _C._ProcessGroup("mpi", None, "", -1 if group_rank is None else group_rank,
                                  group_size, secs, world_ranks)
        if group_rank is None or not native._member():
            return GroupMember.NON_GROUP_MEMBER
        pg = ProcessGroupMPI(native, Backend.MPI, None)
    elif backend == Backend.GLOO:
        if group_rank is None:
            return GroupMember.NON_GROUP_MEMBER
        base, prefix = PrefixStore(name, store)._base_and_prefix()
        native = _C._ProcessGroup("gloo", base, prefix, group_rank, group_size, secs, world_ranks)
        pg = ProcessGroupGloo(native, Backend.GLOO, store)
    else:
        raise RuntimeError("Distributed package doesn't have {} built in".format(backend.upper()))
    _pg_map[pg] = (backend, store)
    _pg_names[pg] = name
    return pg


def init_process_group(backend=None, init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None):
    global _backend, _default_pg_init_method
    if _timedelta is not None and not isinstance(timeout, _timedelta):
        raise RuntimeError("Expected timeout argument to be of type" "datetime.timedelta")
    if GroupMember.WORLD is not None:
        raise RuntimeError("trying to initialize the default process group " "twice!")
    assert (store is None) or (init_method is None), "Cannot specify both init_method and store."
    if store is not None:
        assert world_size > 0, "world_size must be positive if using store"
        assert rank >= 0, "rank must be non-negative if using store"
    elif init_method is None:
        init_method = "env://"
    if backend is None:
        backend = Backend.GLOO
    backend = Backend(backend)
    if backend == Backend.MPI:
        if world_size != -1 or rank != -1:
            warnings.warn("For MPI backend, world_size ({}) and rank ({}) are ignored since they are assigned by "
                          "the MPI runtime.".format(world_size, rank))
        rank, world_size = _C._mpi_world()
        default_pg = _new_process_group_helper(world_size, rank, [], Backend.MPI, None, timeout)
    else:
        if store is None:
            addr, port, rank, world_size = _parse_init_method(init_method, rank, world_size)
            store = TCPStore(addr, port, world_size, rank == 0, timeout)
            store = PrefixStore("default_pg", store)
        default_pg = _new_process_group_helper(world_size, rank, [], backend, store, timeout)
    GroupMember.WORLD = default_pg
    group.WORLD = default_pg
    _pg_group_ranks[default_pg] = {i: i for i in range(default_pg.size())}
    _backend = backend
    _default_pg_init_method = init_method
    if backend == Backend.MPI:
        barrier()
    else:
        _store_based_barrier(rank, store, timeout, world_size)


def destroy_process_group(group=None):
    global _backend, _default_pg_init_method, _group_count
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group is None or group is GroupMember.WORLD:
        pg = GroupMember.WORLD
    else:
        pg = group
    if pg is None or pg not in _pg_map:
        raise RuntimeError("Invalid process group specified")
    if group is None or group is GroupMember.WORLD:
        for g in list(_pg_map):
            g._destroy()
        GroupMember.WORLD = None
        _group_class.WORLD = None
        _pg_map.clear()
        _pg_names.clear()
        _pg_group_ranks.clear()
        _backend = None
        _default_pg_init_method = None
        _group_count = 0
    else:
        pg._destroy()
        del _pg_map[pg]
        del _pg_names[pg]
        del _pg_group_ranks[pg]


def new_group(ranks=None, timeout=default_pg_timeout, backend=None, pg_options=None):
    default_pg = _get_default_group()
    default_backend, default_store = _pg_map[default_pg]
    global_rank = default_pg.rank()
    global_world_size = default_pg.size()
    if not backend:
        backend = default_backend
    if ranks is not None:
        ranks = sorted(ranks)
        group_world_size = len(ranks)
        if group_world_size > global_world_size:
            raise RuntimeError("the new group's world size should be less or equal to the world size set by "
                               "init_process_group")
        for r in ranks:
            if r < 0 or r >= global_world_size:
                raise RuntimeError("The new group's rank should be within the the world_size set by init_process_group")
        group_rank = ranks.index(global_rank) if global_rank in ranks else None
    else:
        ranks = list(range(global_world_size))
        group_world_size = global_world_size
        group_rank = global_rank
    backend = Backend(backend)
    pg = _new_process_group_helper(group_world_size, group_rank, ranks, backend, default_store, timeout,
                                   world_ranks=list(ranks))
    if pg is not GroupMember.NON_GROUP_MEMBER:
        _pg_group_ranks[pg] = {g: i for i, g in enumerate(ranks)}
    # every rank of the job waits for the group to exist everywhere (PyTorch's store barrier)
    if backend == Backend.MPI:
        barrier()
    else:
        _store_based_barrier(global_rank, default_store, timeout, global_world_size)
    return pg


# ---- argument checks -------------------------------------------------------------------------------

def _check_single_tensor(param, param_name):
    if not isinstance(param, torch.Tensor):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` "
                           "to be of type torch.Tensor.".format(param_name))


def _check_tensor_list(param, param_name):
    if not isinstance(param, list) or not all(isinstance(p, torch.Tensor) for p in param):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` "
                           "to be of type List[torch.Tensor].".format(param_name))


def _ensure_all_tensors_same_dtype(*tensors):
    last_dtype = None
    for tensor in tensors:
        if isinstance(tensor, (list, tuple)):
            items = tensor
        else:
            items = [tensor]
        for t in items:
            if last_dtype is None:
                last_dtype = t.dtype
            elif t.dtype != last_dtype:
                raise RuntimeError("Invalid usage of tensors with different dtypes"
                                   "Found {} and  {}".format(last_dtype, t.dtype))


def _native(g, async_op=True):
    """The group's native process group; for a blocking call (async_op=False) the engine may run
    the collective on this thread when nothing else is queued."""
    n = _group_or_default(g)._native
    if not async_op:
        n._blocking()
    return n


def _contiguous(tensor):
    """(tensor to hand the engine, copy-back or None): a non-contiguous tensor goes through a
    contiguous copy that is copied back when the operation completes."""
    if tensor.is_contiguous():
        return tensor, None
    tmp = tensor.contiguous()

    def back():
        with torch.no_grad():
            tensor.copy_(tmp)
    return tmp, back


def _single_result_work(native, tensor, post, g):
    return Work(native, [tensor], post, group=None if g is None or g is GroupMember.WORLD else g)


# ---- collectives -----------------------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_reduce")
        return
    t, post = _contiguous(tensor)
    work = _single_result_work(_native(group, async_op).allreduce(t, _op_value(op)), tensor, post, group)
    return _finish(work, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast")
        return
    t, post = _contiguous(tensor)
    work = _single_result_work(_native(group, async_op).broadcast(t, _to_group_rank(group, src, "src")), tensor, post, group)
    return _finish(work, async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce")
        return
    t, post = _contiguous(tensor)
    work = _single_result_work(_native(group, async_op).reduce(t, _op_value(op), _to_group_rank(group, dst, "dst")),
                               tensor, post, group)
    return _finish(work, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    _ensure_all_tensors_same_dtype(tensor_list, tensor)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather")
        return
    t, _ = _contiguous(tensor)
    outs = [o if o.is_contiguous() else o.contiguous() for o in tensor_list]
    post = _copy_back_list(tensor_list, outs)
    work = Work(_native(group, async_op).allgather(outs, t), tensor_list, post)
    return _finish(work, async_op)


def _copy_back_list(dests, staged):
    pairs = [(d, s) for d, s in zip(dests, staged) if d is not s]
    if not pairs:
        return None

    def back():
        with torch.no_grad():
            for d, s in pairs:
                d.copy_(s)
    return back


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_into_tensor")
        return
    t, _ = _contiguous(input_tensor)
    o, post = _contiguous(output_tensor)
    work = Work(_native(group, async_op).allgather(o, t), [output_tensor], post)
    return _finish(work, async_op)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    warnings.warn("torch.distributed._all_gather_base is a private function and will be deprecated. "
                  "Please use torch.distributed.all_gather_into_tensor instead.")
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def _validate_output_list_for_rank(my_rank, dst, gather_list):
    if dst == my_rank:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _ensure_all_tensors_same_dtype(tensor, gather_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("gather")
        return
    _validate_output_list_for_rank(get_rank(), dst, gather_list)
    t, _ = _contiguous(tensor)
    outs = [o if o.is_contiguous() else o.contiguous() for o in gather_list]
    post = _copy_back_list(gather_list, outs)
    work = Work(_native(group, async_op).gather(outs if outs else None, t, _to_group_rank(group, dst, "dst")),
                gather_list, post)
    return _finish(work, async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _ensure_all_tensors_same_dtype(tensor, scatter_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter")
        return
    my_rank = get_rank()
    if src == my_rank:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    o, post = _contiguous(tensor)
    ins = [i.contiguous() for i in scatter_list]
    work = Work(_native(group, async_op).scatter(o, ins if ins else None, _to_group_rank(group, src, "src")), [tensor], post)
    return _finish(work, async_op)


def _check_reduce_scatter(group):
    pg = _group_or_default(group)
    return pg


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _ensure_all_tensors_same_dtype(output, input_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter")
        return
    o, post = _contiguous(output)
    ins = [i.contiguous() for i in input_list]
    work = Work(_native(group, async_op).reduce_scatter(o, ins, _op_value(op)), [output], post)
    return _finish(work, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter_tensor")
        return
    o, post = _contiguous(output)
    i, _ = _contiguous(input)
    work = Work(_native(group, async_op).reduce_scatter(o, i, _op_value(op)), [output], post)
    return _finish(work, async_op)


def _reduce_scatter_consuming(output, input, op=ReduceOp.SUM, group=None):
    """reduce_scatter_tensor(async_op=True) that may overwrite input (FSDP's gradient, which it
    owns): the engine reduces in place instead of in a copy."""
    return Work(_native(group).reduce_scatter(output, input, _op_value(op), True), [output])


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    warnings.warn("torch.distributed._reduce_scatter_base is a private function and will be deprecated. "
                  "Please use torch.distributed.reduce_scatter_tensor instead.")
    return reduce_scatter_tensor(output, input, op, group, async_op)


def _split_counts(splits, tensor):
    """Split sizes along dim 0 as element counts."""
    if splits is None:
        return None
    row = tensor.numel() // tensor.shape[0] if tensor.dim() > 0 and tensor.shape[0] else 1
    return [int(s) * row for s in splits]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _ensure_all_tensors_same_dtype(output, input)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all_single")
        return
    o, post = _contiguous(output)
    i, _ = _contiguous(input)
    work = Work(_native(group, async_op).alltoall(o, i, _split_counts(output_split_sizes, output),
                                        _split_counts(input_split_sizes, input)), [output], post)
    return _finish(work, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    _ensure_all_tensors_same_dtype(output_tensor_list, input_tensor_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all")
        return
    if get_backend(group) == Backend.GLOO:
        raise RuntimeError("ProcessGroup gloo does not support alltoall")
    flat_in = torch.cat([t.reshape(-1) for t in input_tensor_list])
    flat_out = torch.empty(sum(t.numel() for t in output_tensor_list), dtype=flat_in.dtype)
    native = _native(group, async_op).alltoall(flat_out, flat_in, [t.numel() for t in output_tensor_list],
                                     [t.numel() for t in input_tensor_list])

    def back():
        with torch.no_grad():
            off = 0
            for t in output_tensor_list:
                n = t.numel()
                t.copy_(flat_out[off:off + n].view(t.shape))
                off += n
    work = Work(native, output_tensor_list, back)
    return _finish(work, async_op)


def barrier(group=GroupMember.WORLD, async_op=False, device_ids=None):
    if _rank_not_in_group(group):
        _warn_not_in_group("barrier")
        return
    work = Work(_native(group, async_op).barrier())
    return _finish(work, async_op)


def monitored_barrier(group=GroupMember.WORLD, timeout=None, wait_all_ranks=False):
    if _rank_not_in_group(group):
        _warn_not_in_group("monitored_barrier")
        return
    if get_backend(group) != Backend.GLOO:
        raise RuntimeError("monitored_barrier is only implemented for GLOO backend.")
    work = Work(_native(group).barrier())
    work.wait(timeout if timeout is not None else None)


# ---- point to point ----------------------------------------------------------------------------------

def _check_p2p_peer(peer):
    if peer == get_rank():
        raise RuntimeError("Invalid destination rank: should not be the same as the rank of the current process.")


def isend(tensor, dst, group=None, tag=0):
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("isend")
        return
    t = tensor.contiguous()
    return Work(_native(group).send(t, _to_group_rank(group, dst, "dst"), tag), [tensor])


def irecv(tensor, src=None, group=None, tag=0):
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("irecv")
        return
    t, post = _contiguous(tensor)
    peer = -1 if src is None else _to_group_rank(group, src, "src")
    return Work(_native(group).recv(t, peer, tag), [tensor], post,
                group=None if group is None or group is GroupMember.WORLD else group)


def send(tensor, dst, group=None, tag=0):
    _check_p2p_peer(dst)
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    if src is None:
        return work.source_rank()
    return src


class P2POp(object):
    """A point-to-point operation for batch_isend_irecv: op is isend or irecv."""

    def __new__(cls, op, tensor, peer, group=None, tag=0):
        return object.__new__(cls)

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise RuntimeError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                               "``torch.distributed.irecv``.")
        _check_single_tensor(tensor, "tensor")
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag


def batch_isend_irecv(p2p_op_list):
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise RuntimeError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                           "``torch.distributed.P2POp``.")
    groups = set(id(p.group) for p in p2p_op_list)
    if len(groups) > 1:
        raise RuntimeError("All ops need to use the same group.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# ---- object collectives (pickle) ----------------------------------------------------------------------

def _object_to_tensor(obj):
    import pickle
    data = pickle.dumps(obj)
    return _C._bytes_to_tensor(data), len(data)


def _tensor_to_object(tensor, size):
    import pickle
    return pickle.loads(_C._tensor_to_bytes(tensor, size))


def all_gather_object(object_list, obj, group=None):
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_object")
        return
    input_tensor, local_size = _object_to_tensor(obj)
    group_size = get_world_size(group=group)
    sizes = torch.zeros(group_size, dtype=torch.int64)
    all_gather([sizes[i:i + 1] for i in range(group_size)], torch.tensor([local_size]), group=group)
    size_list = sizes.tolist()
    words = (max(size_list) + 7) // 8
    padded = torch.zeros(words, dtype=torch.int64)
    padded[:input_tensor.numel()] = input_tensor
    out = torch.zeros(words * group_size, dtype=torch.int64)
    all_gather_into_tensor(out, padded, group=group)
    for i in range(group_size):
        object_list[i] = _tensor_to_object(out[i * words:(i + 1) * words], size_list[i])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    if _rank_not_in_group(group):
        _warn_not_in_group("gather_object")
        return
    my_rank = get_rank()
    _validate_output_list_for_rank(my_rank, dst, object_gather_list)
    input_tensor, local_size = _object_to_tensor(obj)
    group_size = get_world_size(group=group)
    sizes = torch.zeros(group_size, dtype=torch.int64)
    all_gather([sizes[i:i + 1] for i in range(group_size)], torch.tensor([local_size]), group=group)
    size_list = sizes.tolist()
    words = (max(size_list) + 7) // 8
    padded = torch.zeros(words, dtype=torch.int64)
    padded[:input_tensor.numel()] = input_tensor
    if my_rank == dst:
        out = torch.zeros(words * group_size, dtype=torch.int64)
        gather(padded, [out[i * words:(i + 1) * words] for i in range(group_size)], dst=dst, group=group)
        for i in range(group_size):
            object_gather_list[i] = _tensor_to_object(out[i * words:(i + 1) * words], size_list[i])
    else:
        gather(padded, None, dst=dst, group=group)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast_object_list")
        return
    my_rank = get_rank()
    n = len(object_list)
    if my_rank == src:
        packed = [_object_to_tensor(obj) for obj in object_list]
        sizes = torch.tensor([size for _, size in packed])
    else:
        sizes = torch.zeros(n, dtype=torch.int64)
    broadcast(sizes, src=src, group=group)
    size_list = sizes.tolist()
    offsets = []
    total = 0
    for s in size_list:
        offsets.append(total)
        total += (s + 7) // 8
    buf = torch.zeros(max(total, 1), dtype=torch.int64)
    if my_rank == src:
        for (t, _), off in zip(packed, offsets):
            buf[off:off + t.numel()] = t
    broadcast(buf, src=src, group=group)
    if my_rank != src:
        for i, (s, off) in enumerate(zip(size_list, offsets)):
            object_list[i] = _tensor_to_object(buf[off:off + (s + 7) // 8], s)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter_object_list")
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise RuntimeError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    my_rank = get_rank()
    group_size = get_world_size(group=group)
    if my_rank == src:
        packed = [_object_to_tensor(obj) for obj in scatter_object_input_list]
        sizes = torch.tensor([size for _, size in packed])
    else:
        sizes = torch.zeros(group_size, dtype=torch.int64)
    broadcast(sizes, src=src, group=group)
    size_list = sizes.tolist()
    words = (max(size_list) + 7) // 8
    out = torch.zeros(words, dtype=torch.int64)
    if my_rank == src:
        ins = []
        for t, _ in packed:
            p = torch.zeros(words, dtype=torch.int64)
            p[:t.numel()] = t
            ins.append(p)
        scatter(out, ins, src=src, group=group)
    else:
        scatter(out, None, src=src, group=group)
    scatter_object_output_list[0] = _tensor_to_object(out, size_list[get_rank(group)])


# ---- DDP communication hooks' view of a bucket ----------------------------------------------------------

class GradBucket(object):
    """What a DDP communication hook receives: one bucket's flat gradient buffer, the gradients
    (views of it) and the parameters they belong to."""

    def __init__(self, index, buffer, gradients, parameters, is_last):
        self._index = index
        self._buffer = buffer
        self._gradients = gradients
        self._parameters = parameters
        self._is_last = is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def gradients(self):
        return self._gradients

    def parameters(self):
        return self._parameters

    def is_last(self):
        return self._is_last

    def set_buffer(self, buffer):
        self._buffer = buffer
