"""torch.distributed.fsdp.fully_sharded_data_parallel: FullyShardedDataParallel, FSDP-style full
sharding on CPU (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD).

Each FSDP instance (a "unit") flattens the parameters of its module that no nested unit owns into
one flat tensor, pads it to a multiple of the world size and keeps only its rank's chunk as the
nn.Parameter the optimizer sees (_flat_param).  The original parameters leave their modules; the
modules hold views instead: of the gathered full flat tensor while the unit runs, of the local
shard otherwise.

Forward: a unit all-gathers its flat parameter (or takes the gather prefetched for it), runs its
module on views of the full tensor, and (FULL_SHARD, except the root) frees the full tensor.  The
views are taken through _UnshardFn, an autograd Function whose backward hands the unit the
gradient of the whole flat tensor; the saved tensors that are views of the full tensor are packed
as (offset, shape, strides) by saved-tensor hooks, so freeing it really frees it, and unpacked from
the tensor gathered again for backward.

Backward is driven by a ModTracker (seed 001) the root enters around its forward: its pre-backward
hook for a unit's module gathers the unit's parameters (waiting for a prefetched gather if there
is one) and prefetches the next unit in backward order; its post-backward hook, which comes after
the unit's gradient is complete (the autograd engine runs the unit's nodes, all newer than its
input, first), launches the reduce-scatter of that gradient and frees the full tensor.  An engine
callback at the end of backward waits for the reduce-scatters and accumulates the shards into
_flat_param.grad.

The order of units for prefetching is the parameter execution order that seed 002's tracer
(torch.distributed.fsdp._trace_utils, on torch.fx) records when the root is built: forward
prefetch follows it, backward prefetch runs it in reverse.  A model torch.fx cannot trace gets the
order of the first forward instead (as PyTorch's FSDP records it).

Differences from PyTorch: CPU only, no mixed precision (the tensor library has no float16), no CPU
offload (everything is on the CPU already), no optimizer-state helpers; SHARDED_STATE_DICT values
are plain tensors (this rank's flat piece of each parameter), not ShardedTensors."""
import contextlib

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp.wrap import _recursive_wrap

__all__ = ["FullyShardedDataParallel", "ShardingStrategy", "BackwardPrefetch", "StateDictType",
           "FullStateDictConfig", "LocalStateDictConfig", "ShardedStateDictConfig", "CPUOffload",
           "MixedPrecision"]

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module"
FLAT_PARAM = "_flat_param"


class _Member(object):
    """A member of one of the small enumerations below (Ember has no enum module of its own)."""

    def __init__(self, owner, name, value):
        self._owner = owner
        self.name = name
        self.value = value

    def __repr__(self):
        return "<{}.{}: {}>".format(self._owner, self.name, self.value)

    def __str__(self):
        return "{}.{}".format(self._owner, self.name)

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return hash((self._owner, self.value))


def _members(cls, names):
    for i, n in enumerate(names):
        setattr(cls, n, _Member(cls.__name__, n, i + 1))
    return cls


class ShardingStrategy(object):
    pass


class BackwardPrefetch(object):
    pass


class StateDictType(object):
    pass


_members(ShardingStrategy, ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"])
_members(BackwardPrefetch, ["BACKWARD_PRE", "BACKWARD_POST"])
_members(StateDictType, ["FULL_STATE_DICT", "LOCAL_STATE_DICT", "SHARDED_STATE_DICT"])


class StateDictConfig(object):
    def __init__(self, offload_to_cpu=False):
        self.offload_to_cpu = offload_to_cpu


class FullStateDictConfig(StateDictConfig):
    def __init__(self, offload_to_cpu=False, rank0_only=False):
        super().__init__(offload_to_cpu)
        self.rank0_only = rank0_only


class LocalStateDictConfig(StateDictConfig):
    pass


class ShardedStateDictConfig(StateDictConfig):
    pass


class CPUOffload(object):
    """Parameters already live on the CPU: offloading is accepted and changes nothing."""

    def __init__(self, offload_params=False):
        self.offload_params = offload_params


class MixedPrecision(object):
    def __init__(self, param_dtype=None, reduce_dtype=None, buffer_dtype=None, keep_low_precision_grads=False,
                 cast_forward_inputs=False, cast_root_forward_inputs=True):
        self.param_dtype = param_dtype
        self.reduce_dtype = reduce_dtype
        self.buffer_dtype = buffer_dtype


def _predivide_factor(world_size):
    """PyTorch's split of the gradient averaging: divide by this before the reduction and by
    world_size / this after it (2 and 1 for two ranks)."""
    factor = 1
    while world_size % factor == 0 and world_size / factor > factor:
        factor *= 2
    return factor


class _Entry(object):
    """One original parameter inside a unit's flat parameter."""
    __slots__ = ("module", "name", "fqn", "shape", "numel", "offset", "aliases")

    def __init__(self, module, name, fqn, shape, numel, offset):
        self.module = module
        self.name = name
        self.fqn = fqn
        self.shape = shape
        self.numel = numel
        self.offset = offset
        self.aliases = []        # (module, name, fqn) of other places the same parameter sat


class _Saved(object):
    """A saved tensor that was a view of a unit's full flat parameter."""
    __slots__ = ("unit", "offset", "shape", "stride")

    def __init__(self, unit, offset, shape, stride):
        self.unit = unit
        self.offset = offset
        self.shape = shape
        self.stride = stride


class _UnshardFn(torch.autograd.Function):
    """full = _UnshardFn.apply(flat_shard, unit): the unit's gathered full flat parameter, as a
    tensor whose gradient (the sum over every use of every view of it) is handed to the unit."""

    @staticmethod
    def forward(ctx, flat_param, unit):
        ctx.unit = unit
        return unit._full

    @staticmethod
    def backward(ctx, grad):
        ctx.unit._stash_grad(grad)
        return None, None


def _fsdp_leaf_tracer():
    """A torch.fx tracer that treats FSDP units as leaf modules (seed 002 traces modules
    without FSDP inside; a unit wrapped by hand is one call)."""
    import torch.fx

    class _FSDPLeafTracer(torch.fx.Tracer):
        def is_leaf_module(self, m, module_qualified_name):
            return isinstance(m, FullyShardedDataParallel) or super().is_leaf_module(m, module_qualified_name)

    return _FSDPLeafTracer()


def _trace_execution_info(module):
    """Seed 002's execution information of module (None when torch.fx cannot trace it)."""
    from torch.distributed.fsdp._trace_utils import _init_execution_info, _patch_tracer
    tracer = _fsdp_leaf_tracer()
    info = _init_execution_info(module)
    try:
        with _patch_tracer(tracer=tracer, root_module=module, execution_info=info):
            tracer.trace(module)
    except Exception:
        return None
    return info


class _RootState(object):
    """What the units under one root share during an iteration: the module tracker, the
    execution order, the saved-tensor hooks and the end-of-backward callback."""

    def __init__(self, root, units, order):
        from torch.distributed._tools.mod_tracker import ModTracker
        self.root = root
        self.units = units
        self.unit_of_module = {}
        for u in units:
            self.unit_of_module[u] = u
        self.order = order              # units in execution order, or None until recorded
        self.recording = order is None
        self.recorded = []
        self.callback_queued = False
        self.no_sync = False
        self.in_flight = []             # units whose reduction is running, in launch order
        self.stats = {"all_gathers": 0, "prefetched": 0, "reduce_scatters_by_tracker": 0,
                      "reduce_scatters_at_end": 0}
        self.tracker = ModTracker()
        self.tracker.register_user_hooks(pre_bw_hook=self._pre_backward, post_bw_hook=self._post_backward)

    def position(self, unit):
        return -1 if self.order is None else self.order.index(unit)

    def neighbour(self, unit, step):
        if self.order is None or unit not in self.order:
            return None
        i = self.order.index(unit) + step
        return self.order[i] if 0 <= i < len(self.order) else None

    def record(self, unit):
        if self.recording and unit not in self.recorded:
            self.recorded.append(unit)

    def finish_recording(self):
        if self.recording:
            self.recording = False
            self.order = self.recorded + [u for u in self.units if u not in self.recorded]

    # saved-tensor hooks: views of a full flat parameter travel as their place in it
    def pack(self, t):
        base = t._base
        if base is not None:
            for u in self.units:
                if u._full_fwd is base:
                    return _Saved(u, t.storage_offset(), tuple(t.shape), tuple(t.stride()))
        return t

    def unpack(self, x):
        if isinstance(x, _Saved):
            return x.unit._full_for_backward().as_strided(x.shape, x.stride, x.offset)
        return x

    # ModTracker's view of backward
    def _pre_backward(self, module, grad_output):
        unit = self.unit_of_module.get(module)
        if unit is None:
            return
        self.ensure_callback()
        self._reap()
        unit._full_for_backward()
        if unit._backward_prefetch is not None:
            nxt = self.neighbour(unit, -1)
            if nxt is not None:
                nxt._unshard_start()

    def ensure_callback(self):
        if not self.callback_queued:
            self.callback_queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._end_of_backward)

    def _post_backward(self, module, grad_input):
        unit = self.unit_of_module.get(module)
        if unit is not None and unit._launch_reduce():
            self.stats["reduce_scatters_by_tracker"] += 1
            unit._free_full()
            self.in_flight.append(unit)
        self._reap()

    def _reap(self):
        """Finishes the reductions that are done (oldest first): their full gradients go now
        rather than at the end of backward."""
        while self.in_flight and self.in_flight[0]._reduce is not None and self.in_flight[0]._reduce[0].is_completed():
            self.in_flight.pop(0)._finish_reduce()

    def _end_of_backward(self):
        self.callback_queued = False
        self.in_flight = []
        for u in self.units:
            if u._launch_reduce():
                self.stats["reduce_scatters_at_end"] += 1
            u._grad_full = None
        for u in self.units:
            u._finish_reduce()
            u._free_full()
            u._fwd_calls = 0
            u._bwd_calls = 0

    def reset_iteration(self):
        """At the root's forward: what a forward without backward left behind is released."""
        if self.callback_queued:
            return
        for u in self.units:
            u._grad_full = None
            u._fwd_calls = 0
            u._bwd_calls = 0
            if u._full is not None and u is not self.root:
                u._free_full()


class FullyShardedDataParallel(nn.Module):
    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, mixed_precision=None, ignored_modules=None,
                 param_init_fn=None, device_id=None, sync_module_states=False, forward_prefetch=False,
                 limit_all_gathers=False, use_orig_params=False, _auto_wrapped=False):
        super().__init__()
        if mixed_precision is not None and (mixed_precision.param_dtype is not None or
                                            mixed_precision.reduce_dtype is not None or
                                            mixed_precision.buffer_dtype is not None):
            raise NotImplementedError("FSDP mixed precision: the tensor library has no float16/bfloat16 tensors")
        if use_orig_params:
            raise NotImplementedError("FSDP use_orig_params=True: Ember's FSDP keeps flat parameters only")
        self._pg = process_group if process_group is not None else dist.distributed_c10d._get_default_group()
        self._rank = self._pg.rank()
        self._world_size = self._pg.size()
        self._strategy = sharding_strategy if sharding_strategy is not None else ShardingStrategy.FULL_SHARD
        self._backward_prefetch = backward_prefetch
        self._forward_prefetch = forward_prefetch
        ignored = list(ignored_modules) if ignored_modules is not None else []
        ignored_params = set()
        for m in ignored:
            for p in m.parameters():
                ignored_params.add(id(p))
        # seed 002's tracer on the module as the user built it (units wrapped by hand are leaves)
        info = None if _auto_wrapped else _trace_execution_info(module)
        if auto_wrap_policy is not None:
            kwargs = dict(process_group=process_group, sharding_strategy=sharding_strategy,
                          backward_prefetch=backward_prefetch, ignored_modules=ignored_modules,
                          forward_prefetch=forward_prefetch, _auto_wrapped=True)
            _recursive_wrap(module, auto_wrap_policy, FullyShardedDataParallel, ignored, ignored_params,
                            only_wrap_children=True, **kwargs)
        self._fsdp_wrapped_module = module
        if sync_module_states:
            self._sync_module_states(module, ignored_params)
        self._flatten(module, ignored_params)
        self._full = None          # the gathered full flat parameter, when unsharded
        self._full_fwd = None      # _UnshardFn's output for it during forward
        self._prefetch = None      # (work, tensor) of a gather in flight
        self._grad_full = None     # the unit's full flat gradient, stashed by _UnshardFn.backward
        self._accum_full = None    # gradients accumulated under no_sync()
        self._reduce = None        # (work, output) of the reduction in flight
        self._fwd_calls = 0
        self._bwd_calls = 0
        self._root_state = None
        self._is_root = None
        self._state_dict_type = StateDictType.FULL_STATE_DICT
        self._state_dict_config = FullStateDictConfig()
        self._exec_order_from_trace = self._order_from_info(info) if info is not None else None

    # ---- construction ----------------------------------------------------------------------------

    def _sync_module_states(self, module, ignored_params):
        with torch.no_grad():
            for p in module.parameters():
                if id(p) not in ignored_params:
                    dist.broadcast(p.detach(), src=0, group=self._pg)
            for b in module.buffers():
                dist.broadcast(b, src=0, group=self._pg)

    def _flatten(self, module, ignored_params):
        """Moves the parameters of module (outside nested units) into this unit's flat shard."""
        entries = []
        seen = {}
        self._module_param_names = []      # (module, [original parameter names in order])

        def visit(mod, prefix):
            names = []
            for name, p in list(mod._parameters.items()):
                if p is None or id(p) in ignored_params:
                    continue
                names.append(name)
                if id(p) in seen:
                    seen[id(p)].aliases.append((mod, name, prefix + name))
                    continue
                e = _Entry(mod, name, prefix + name, tuple(p.shape), p.numel(), 0)
                seen[id(p)] = e
                entries.append((e, p))
            self._module_param_names.append((mod, names))
            for cname, child in mod.named_children():
                if not isinstance(child, FullyShardedDataParallel):
                    visit(child, prefix + cname + ".")

        visit(module, "")
        params = [p for _, p in entries]
        rg = [p.requires_grad for p in params]
        if rg and any(rg) and not all(rg):
            raise ValueError("FlatParameter requires uniform requires_grad")
        offset = 0
        for e, p in entries:
            e.offset = offset
            offset += e.numel
        self._entries = [e for e, _ in entries]
        self._orig_param_ids = [id(p) for p in params]
        self._numel = offset
        if not entries:            # nothing of its own to shard (e.g. a root over wrapped children)
            self._flat_param = None
            self._padded = self._chunk = 0
            return
        ws = self._world_size
        self._padded = ((offset + ws - 1) // ws) * ws if offset else ws
        self._chunk = self._padded // ws
        with torch.no_grad():
            pieces = [p.detach().reshape(-1) for p in params]
            if self._padded > offset:
                pieces.append(torch.zeros(self._padded - offset, dtype=params[0].dtype if params else torch.float32))
            flat = torch.cat(pieces)
            if self._strategy is ShardingStrategy.NO_SHARD:
                local = flat.clone()
            else:
                local = flat[self._rank * self._chunk:(self._rank + 1) * self._chunk].clone()
        flat_param = nn.Parameter(local, requires_grad=all(rg) if rg else False)
        for e in self._entries:
            del e.module._parameters[e.name]
            for mod, name, _ in e.aliases:
                del mod._parameters[name]
        self.register_parameter(FLAT_PARAM, flat_param)
        self._use_sharded_views()

    def _order_from_info(self, info):
        """Units in the order seed 002's tracer saw their parameters run."""
        unit_of_param = {}
        for m in self.modules():
            if isinstance(m, FullyShardedDataParallel):
                for pid in m._orig_param_ids:
                    unit_of_param[pid] = m
                if m._flat_param is not None:
                    unit_of_param[id(m._flat_param)] = m
        order = []
        for p in info.param_exec_order:
            u = unit_of_param.get(id(p))
            if u is not None and u not in order:
                order.append(u)
        return order

    # ---- views -------------------------------------------------------------------------------------

    def _set_views(self, make):
        for e in self._entries:
            v = make(e)
            setattr(e.module, e.name, v)
            for mod, name, _ in e.aliases:
                setattr(mod, name, v)

    def _use_unsharded_views(self, full):
        self._set_views(lambda e: full[e.offset:e.offset + e.numel].view(e.shape))

    def _use_sharded_views(self):
        """Outside its forward a unit's modules hold views of the local shard: the part of each
        parameter this rank keeps (flattened; empty if none)."""
        local = self._flat_param.detach()
        if self._strategy is ShardingStrategy.NO_SHARD:
            self._set_views(lambda e: local[e.offset:e.offset + e.numel].view(e.shape))
            return
        lo = self._rank * self._chunk

        def piece(e):
            a = max(e.offset, lo)
            b = min(e.offset + e.numel, lo + self._chunk)
            return local[a - lo:max(a, b) - lo]
        self._set_views(piece)

    # ---- gathering ---------------------------------------------------------------------------------

    def _unshard_start(self):
        """Starts gathering the full flat parameter unless it is here or on its way."""
        if self._full is not None or self._prefetch is not None or self._flat_param is None:
            return
        if self._strategy is ShardingStrategy.NO_SHARD:
            self._full = self._flat_param.detach()
            return
        full = torch.empty(self._padded, dtype=self._flat_param.dtype)
        work = dist.all_gather_into_tensor(full, self._flat_param.detach(), group=self._pg, async_op=True)
        self._prefetch = (work, full)
        if self._root_state is not None:
            self._root_state.stats["all_gathers"] += 1

    def _unshard_wait(self):
        if self._full is not None or self._flat_param is None:
            return
        was_prefetched = self._prefetch is not None
        self._unshard_start()
        if self._prefetch is not None:
            work, full = self._prefetch
            self._prefetch = None
            work.wait()
            self._full = full
            if was_prefetched and self._root_state is not None:
                self._root_state.stats["prefetched"] += 1

    def _full_for_backward(self):
        self._unshard_wait()
        return self._full

    def _free_full(self):
        if self._full is None and self._full_fwd is None:
            return
        if self._prefetch is not None:
            self._prefetch[0].wait()
            self._prefetch = None
        self._full = None
        self._full_fwd = None
        if self._flat_param is not None:
            self._use_sharded_views()

    # ---- reduction ---------------------------------------------------------------------------------

    def _stash_grad(self, grad):
        self._root_state.ensure_callback()
        self._bwd_calls += 1
        self._grad_full = grad if self._grad_full is None else self._grad_full + grad

    def _launch_reduce(self):
        """Starts reducing the stashed gradient once every use of the unit has contributed to it;
        True if it started."""
        if self._grad_full is None or self._reduce is not None or self._bwd_calls < self._fwd_calls:
            return False
        # the gradient autograd handed over is this unit's alone: divide and reduce it in place
        g = self._grad_full.contiguous()
        self._grad_full = None
        if self._root_state.no_sync:
            # no_sync(): keep the unsharded gradient here until a synchronised backward
            self._accum_full = g if self._accum_full is None else self._accum_full + g
            return False
        if self._accum_full is not None:
            g = g + self._accum_full
            self._accum_full = None
        pre = _predivide_factor(self._world_size)
        with torch.no_grad():
            if pre > 1:
                g.div_(pre)
        if self._strategy is ShardingStrategy.NO_SHARD:
            work = dist.all_reduce(g, group=self._pg, async_op=True)
            self._reduce = (work, g)
        else:
            out = torch.empty(self._chunk, dtype=g.dtype)
            work = dist.distributed_c10d._reduce_scatter_consuming(out, g, group=self._pg)
            self._reduce = (work, out)
        return True

    def _finish_reduce(self):
        if self._reduce is None:
            return
        work, out = self._reduce
        self._reduce = None
        work.wait()
        post = self._world_size // _predivide_factor(self._world_size)
        with torch.no_grad():
            if post > 1:
                out.div_(post)
            fp = self._flat_param
            if fp.grad is None:
                fp.grad = out
            else:
                fp.grad.add_(out)

    # ---- forward -------------------------------------------------------------------------------------

    def _lazy_init(self):
        if self._root_state is not None:
            return
        units = [m for m in self.modules() if isinstance(m, FullyShardedDataParallel)]
        order = self._exec_order_from_trace
        if order is not None:
            order = order + [u for u in units if u not in order]
        state = _RootState(self, units, order)
        for u in units:
            u._root_state = state
            u._is_root = u is self

    def forward(self, *args, **kwargs):
        self._lazy_init()
        rs = self._root_state
        if self._is_root:
            rs.reset_iteration()
            with rs.tracker:
                # the tracker's global hooks were not there when this module's own call began:
                # it sees the root as its hooks would have
                rs.tracker._fw_pre_hook(self, args)
                if torch.is_grad_enabled():
                    with torch.autograd.graph.saved_tensors_hooks(rs.pack, rs.unpack):
                        out = self._unit_forward(args, kwargs)
                else:
                    out = self._unit_forward(args, kwargs)
                rs.tracker._fw_post_hook(self, args, out)
            rs.finish_recording()
            return out
        return self._unit_forward(args, kwargs)

    def _unit_forward(self, args, kwargs):
        rs = self._root_state
        rs.record(self)
        self._unshard_wait()
        if self._forward_prefetch:
            nxt = rs.neighbour(self, 1)
            if nxt is not None:
                nxt._unshard_start()
        if self._flat_param is not None:
            if torch.is_grad_enabled() and self._flat_param.requires_grad:
                full = _UnshardFn.apply(self._flat_param, self)
                self._full_fwd = full
                self._fwd_calls += 1
            else:
                full = self._full
            self._use_unsharded_views(full)
        out = self._fsdp_wrapped_module(*args, **kwargs)
        if self._strategy is ShardingStrategy.FULL_SHARD and not self._is_root:
            self._free_full()
        return out

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == FSDP_WRAPPED_MODULE:
                raise
            return getattr(self._fsdp_wrapped_module, name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of the backward passes inside the context accumulate unsharded on each rank,
        without communication; the first backward outside it reduces them with its own (call
        it on the root)."""
        self._lazy_init()
        rs = self._root_state
        old = rs.no_sync
        rs.no_sync = True
        try:
            yield
        finally:
            rs.no_sync = old

    # ---- full parameters -----------------------------------------------------------------------------

    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False, offload_to_cpu=False,
                           with_grads=False):
        """Inside the context the modules hold their full parameters (views of the gathered flat
        tensors); with writeback, in-place changes go back into this rank's shards on exit."""
        if with_grads:
            raise NotImplementedError("summon_full_params(with_grads=True)")
        if recurse:
            units = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        else:
            units = [module] if isinstance(module, FullyShardedDataParallel) else []
        gathered = []
        try:
            for u in units:
                if u._flat_param is None:
                    continue
                held = u._full is not None
                u._unshard_wait()
                u._use_unsharded_views(u._full)
                gathered.append((u, held))
            yield
        finally:
            for u, held in gathered:
                with torch.no_grad():
                    if writeback and u._strategy is not ShardingStrategy.NO_SHARD:
                        lo = u._rank * u._chunk
                        u._flat_param.copy_(u._full[lo:lo + u._chunk])
                if not held:
                    u._free_full()
                else:
                    u._use_unsharded_views(u._full)

    # ---- state dicts ----------------------------------------------------------------------------------

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None):
        """Sets the kind of state_dict() / load_state_dict() of every unit under module."""
        units = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if state_dict_config is None:
            state_dict_config = {StateDictType.FULL_STATE_DICT: FullStateDictConfig,
                                 StateDictType.LOCAL_STATE_DICT: LocalStateDictConfig,
                                 StateDictType.SHARDED_STATE_DICT: ShardedStateDictConfig}[state_dict_type]()
        saved = [(u, u._state_dict_type, u._state_dict_config) for u in units]
        for u in units:
            u._state_dict_type = state_dict_type
            u._state_dict_config = state_dict_config
        try:
            yield
        finally:
            for u, t, c in saved:
                u._state_dict_type = t
                u._state_dict_config = c

    def _walk(self, prefix, visit_module):
        """Visits the original modules under this unit with their clean names (units are
        transparent): visit_module(module, prefix, unit owning its parameters)."""
        def go(mod, pfx, unit):
            if isinstance(mod, FullyShardedDataParallel):
                go(mod._fsdp_wrapped_module, pfx, mod)
                return
            visit_module(mod, pfx, unit)
            for cname, child in mod.named_children():
                go(child, pfx + cname + ".", unit)
        go(self, prefix, self)

    def _param_names(self, unit, mod):
        for m, names in unit._module_param_names:
            if m is mod:
                return names
        return []

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        out = destination if destination is not None else {}
        kind = self._state_dict_type
        if kind is StateDictType.FULL_STATE_DICT:
            cfg = self._state_dict_config
            with FullyShardedDataParallel.summon_full_params(self, writeback=False):
                def visit(mod, pfx, unit):
                    for name in self._param_names(unit, mod):
                        out[pfx + name] = getattr(mod, name).detach().clone()
                    for name, b in mod._buffers.items():
                        if b is not None and name not in mod._non_persistent_buffers_set:
                            out[pfx + name] = b.detach().clone()
                self._walk(prefix, visit)
            if getattr(cfg, "rank0_only", False) and self._rank != 0:
                out.clear()
            return out
        if kind is StateDictType.LOCAL_STATE_DICT:
            def visit(mod, pfx, unit):
                if mod is unit._fsdp_wrapped_module and unit._flat_param is not None:
                    out[pfx + FLAT_PARAM] = unit._flat_param.detach()
                for name, b in mod._buffers.items():
                    if b is not None and name not in mod._non_persistent_buffers_set:
                        out[pfx + name] = b.detach()
            self._walk(prefix, visit)
            return out

        def visit(mod, pfx, unit):
            for name in self._param_names(unit, mod):
                e = unit._entry_of(mod, name)
                out[pfx + name] = unit._local_piece(e)
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent_buffers_set:
                    out[pfx + name] = b.detach()
        self._walk(prefix, visit)
        return out

    def _entry_of(self, mod, name):
        for e in self._entries:
            if e.module is mod and e.name == name:
                return e
            for m, n, _ in e.aliases:
                if m is mod and n == name:
                    return e
        raise KeyError(name)

    def _local_piece(self, e):
        """This rank's part of one parameter, flattened (SHARDED_STATE_DICT)."""
        local = self._flat_param.detach()
        if self._strategy is ShardingStrategy.NO_SHARD:
            return local[e.offset:e.offset + e.numel]
        lo = self._rank * self._chunk
        a = max(e.offset, lo)
        b = min(e.offset + e.numel, lo + self._chunk)
        return local[a - lo:max(a, b) - lo]

    def load_state_dict(self, state_dict, strict=True):
        from torch.nn.modules.module import _IncompatibleKeys
        kind = self._state_dict_type
        expected = set()
        missing = []
        with torch.no_grad():
            def visit(mod, pfx, unit):
                names = self._param_names(unit, mod)
                if kind is StateDictType.LOCAL_STATE_DICT:
                    names = [FLAT_PARAM] if mod is unit._fsdp_wrapped_module and unit._flat_param is not None else []
                for name in names:
                    key = pfx + name
                    expected.add(key)
                    if key not in state_dict:
                        missing.append(key)
                        continue
                    v = state_dict[key]
                    if kind is StateDictType.LOCAL_STATE_DICT:
                        unit._flat_param.copy_(v)
                        continue
                    e = unit._entry_of(mod, name)
                    if kind is StateDictType.FULL_STATE_DICT:
                        unit._load_full_entry(e, v)
                    else:
                        unit._local_piece(e).copy_(v.reshape(-1))
                for name, b in mod._buffers.items():
                    if b is None or name in mod._non_persistent_buffers_set:
                        continue
                    key = pfx + name
                    expected.add(key)
                    if key in state_dict:
                        b.copy_(state_dict[key])
                    else:
                        missing.append(key)
            self._walk("", visit)
        unexpected = [k for k in state_dict if k not in expected]
        if strict and (missing or unexpected):
            msgs = []
            if unexpected:
                msgs.append("Unexpected key(s) in state_dict: {}. ".format(", ".join('"{}"'.format(k) for k in unexpected)))
            if missing:
                msgs.append("Missing key(s) in state_dict: {}. ".format(", ".join('"{}"'.format(k) for k in missing)))
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(msgs)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_full_entry(self, e, value):
        """Copies this rank's part of a full parameter value into the shard."""
        flat = value.reshape(-1)
        if self._strategy is ShardingStrategy.NO_SHARD:
            self._flat_param.detach()[e.offset:e.offset + e.numel].copy_(flat)
            return
        lo = self._rank * self._chunk
        a = max(e.offset, lo)
        b = min(e.offset + e.numel, lo + self._chunk)
        if b > a:
            self._flat_param.detach()[a - lo:b - lo].copy_(flat[a - e.offset:b - e.offset])

    # ---- utilities ----------------------------------------------------------------------------------

    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Clips the gradients of every unit under this root by their total norm across ranks;
        returns the total norm."""
        if float(norm_type) != 2.0:
            raise NotImplementedError("clip_grad_norm_ with norm_type other than 2")
        units = [m for m in self.modules() if isinstance(m, FullyShardedDataParallel)]
        sq = torch.zeros(1)
        for u in units:
            g = u._flat_param.grad if u._flat_param is not None else None
            if g is not None:
                local = g if u._strategy is not ShardingStrategy.NO_SHARD or self._rank == 0 else None
                if local is not None:
                    sq += (local * local).sum()
        dist.all_reduce(sq, group=self._pg)
        total = sq.sqrt()
        coef = float(max_norm) / (total.item() + 1e-6)
        if coef < 1:
            with torch.no_grad():
                for u in units:
                    if u._flat_param is not None and u._flat_param.grad is not None:
                        u._flat_param.grad.mul_(coef)
        return total[0]

    def _exec_order_names(self):
        """The fully qualified names of the units in the execution order prefetching follows."""
        self._lazy_init()
        order = self._root_state.order or []
        names = {}
        for name, m in self.named_modules():
            if isinstance(m, FullyShardedDataParallel) and m not in names:
                names[m] = name.replace(FSDP_WRAPPED_MODULE + ".", "").replace("." + FSDP_WRAPPED_MODULE, "")
        return [names.get(u, "?") for u in order]

    def _fsdp_stats(self):
        self._lazy_init()
        return dict(self._root_state.stats)
