"""torch.nn.parallel.distributed: DistributedDataParallel, as PyTorch's.

Construction broadcasts the module's parameters and buffers from rank 0.  Gradients are reduced in
buckets: the parameters are grouped (in reverse order, the order gradients usually arrive in, then
in the order they really arrived after the first iteration), the first bucket capped at 1 MB and
the others at bucket_cap_mb.  A post-accumulate-grad hook on each parameter copies its gradient
(divided by the world size) into its bucket's flat buffer; when a bucket is full it is all-reduced
at once, asynchronously on the group's worker thread, so communication overlaps the rest of the
backward pass.  Buckets are launched in index order on every rank, so the ranks issue the same
collectives in the same order.  An engine callback queued by the first hook waits for the buckets
at the end of backward and copies the averaged gradients back into .grad.  Hooks are ordinary
autograd hooks, so module hooks, ModTracker, torch.compile's compiled backward and compiled
autograd all see and fire them as they would without DDP."""
import contextlib
import weakref

import torch
import torch.distributed as dist
from torch.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024

_UNFINISHED_MSG = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your module has parameters that were not used in producing loss. You can enable unused "
    "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able to locate the "
    "output tensors in the return value of your module's `forward` function. Please include the loss function "
    "and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, "
    "dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {}: {}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
    "out information about which particular parameters did not receive gradient on this rank as part of this "
    "error")

_STATIC_GRAPH_MSG = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your training graph has changed in this iteration, e.g., one parameter is used in first "
    "iteration, but then got unused in the second iteration. this is not compatible with static_graph set to "
    "True.\nParameter indices which did not receive grad for rank {}: {}")


def _find_tensors(obj):
    """The tensors inside a forward's output (tensors, lists, tuples, dicts)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        out = []
        for x in obj:
            out.extend(_find_tensors(x))
        return out
    if isinstance(obj, dict):
        out = []
        for x in obj.values():
            out.extend(_find_tensors(x))
        return out
    return []


def _bucket_assignment(params, order, caps):
    """Groups parameter indices (taken in `order`) into buckets of one dtype each, closing a bucket
    once it holds its cap in bytes; each dtype's first bucket uses caps[0], the next ones caps[1]
    (PyTorch's compute_bucket_assignment_by_size)."""
    buckets = []
    open_ = {}          # dtype -> [indices, bytes]
    closed = {}         # dtype -> buckets closed so far
    for i in order:
        p = params[i]
        key = p.dtype
        cur = open_.get(key)
        if cur is None:
            cur = [[], 0]
            open_[key] = cur
        cur[0].append(i)
        cur[1] += p.numel() * p.element_size()
        n = closed.get(key, 0)
        if cur[1] >= caps[min(n, len(caps) - 1)]:
            buckets.append(cur[0])
            closed[key] = n + 1
            del open_[key]
    for cur in open_.values():
        buckets.append(cur[0])
    return buckets


class _Bucket(object):
    def __init__(self, index, indices, params):
        self.index = index
        self.indices = indices
        total = 0
        self.offsets = []
        for i in indices:
            self.offsets.append(total)
            total += params[i].numel()
        self.buffer = torch.zeros(total, dtype=params[indices[0]].dtype)
        self.views = [self.buffer[off:off + params[i].numel()].view(params[i].shape)
                      for i, off in zip(indices, self.offsets)]
        self.pending = len(indices)
        self.work = None
        self.future = None


class _Reducer(object):
    """The gradient reducer of one DistributedDataParallel module (PyTorch's C++ Reducer)."""

    def __init__(self, params, process_group, bucket_bytes_cap, find_unused_parameters, gradient_as_bucket_view,
                 static_graph):
        self.params = params
        self.pg = process_group
        self.world_size = process_group.size()
        self.caps = [_DEFAULT_FIRST_BUCKET_BYTES, bucket_bytes_cap]
        self.find_unused = find_unused_parameters
        self.as_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.comm_hook = None
        self.comm_state = None
        self.expect_hooks = False
        self.finalize_queued = False
        self.needs_finalize_check = False
        self.iteration = 0
        self.ready_order = []
        self.rebuilt = False
        self.unused = []
        self.local_used = None
        self.marked = None
        self._build(list(reversed(range(len(params)))))
        self.handles = []
        ref = weakref.ref(self)
        for i, p in enumerate(params):
            self.handles.append(p.register_post_accumulate_grad_hook(_make_hook(ref, i)))

    def _build(self, order):
        groups = _bucket_assignment(self.params, order, self.caps)
        self.buckets = [_Bucket(b, idx, self.params) for b, idx in enumerate(groups)]
        self.where = {}
        for b in self.buckets:
            for k, i in enumerate(b.indices):
                self.where[i] = (b, k)

    def _rebuild_from_first_iteration(self):
        """After the first iteration, buckets follow the order gradients became ready in; rank 0's
        order is broadcast so that every rank builds the same buckets."""
        self.rebuilt = True
        order = self.ready_order + [i for i in range(len(self.params)) if i not in set(self.ready_order)]
        t = torch.tensor(order, dtype=torch.int64)
        dist.broadcast(t, src=dist.get_global_rank(self.pg, 0) if self.pg is not dist.GroupMember.WORLD else 0,
                       group=self.pg)
        self._build(t.tolist())

    def prepare_for_forward(self):
        if self.needs_finalize_check:
            missing = [i for i in range(len(self.params)) if not self.marked[i]]
            self.needs_finalize_check = False
            msg = _STATIC_GRAPH_MSG if self.static_graph else _UNFINISHED_MSG
            raise RuntimeError(msg.format(self.pg.rank(), " ".join(str(i) for i in missing)))
        if self.iteration == 1 and not self.rebuilt and not self.find_unused and self.comm_hook is None:
            self._rebuild_from_first_iteration()

    def prepare_for_backward(self, outputs):
        self.expect_hooks = True
        self.finalize_queued = False
        self.ready_order = [] if self.iteration == 0 else self.ready_order
        self.marked = [False] * len(self.params)
        self.next_bucket = 0
        for b in self.buckets:
            b.pending = len(b.indices)
            b.work = None
            b.future = None
        self.unused = []
        if self.find_unused:
            reached = set()
            seen = set()
            stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
            while stack:
                node = stack.pop()
                if node is None or node in seen:
                    continue
                seen.add(node)
                var = getattr(node, "variable", None)
                if var is not None:
                    reached.add(id(var))
                for nxt, _ in node.next_functions:
                    stack.append(nxt)
            for t in outputs:   # an output that is itself a parameter
                reached.add(id(t))
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in reached]
            self.local_used = torch.ones(len(self.params), dtype=torch.int64)
            for i in self.unused:
                self.local_used[i] = 0

    def mark_ready(self, i):
        if not self.expect_hooks:
            return
        if not self.finalize_queued:
            self.finalize_queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self.finalize)
            for j in self.unused:
                self._ready(j, None)
        if self.marked[i]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the following "
                "reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model "
                "parameters are not shared across multiple concurrent forward-backward passes. or try to use "
                "_set_static_graph() as a workaround if this module graph does not change during training "
                "loop.2) Reused parameters in multiple reentrant backward passes. For example, if you use "
                "multiple `checkpoint` functions to wrap the same part of your model, it would result in the "
                "same set of parameters been used by different reentrant backward passes multiple times, and "
                "hence marking a variable ready multiple times. DDP does not support such use cases in default. "
                "You can try to use _set_static_graph() as a workaround if your module graph does not change "
                "over iterations.\nParameter at index {} has been marked as ready twice. This means that "
                "multiple autograd engine  hooks have fired for this particular parameter during this "
                "iteration.".format(i))
        if self.iteration == 0:
            self.ready_order.append(i)
        self._ready(i, self.params[i].grad)

    def _ready(self, i, grad):
        self.marked[i] = True
        b, k = self.where[i]
        view = b.views[k]
        with torch.no_grad():
            if grad is None:
                view.zero_()
            else:
                view.copy_(grad)
                if self.comm_hook is None:
                    view.mul_(1.0 / self.world_size)
        b.pending -= 1
        if b.pending == 0:
            while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
                self._launch(self.buckets[self.next_bucket])
                self.next_bucket += 1

    def _launch(self, b):
        if self.comm_hook is None:
            b.work = dist.all_reduce(b.buffer, group=self.pg, async_op=True)
        else:
            grads = list(b.views)
            bucket = dist.GradBucket(b.index, b.buffer, grads, [self.params[i] for i in b.indices],
                                     b.index == len(self.buckets) - 1)
            b.future = self.comm_hook(self.comm_state, bucket)

    def finalize(self):
        self.expect_hooks = False
        self.iteration += 1
        if self.next_bucket < len(self.buckets):
            # a parameter got no gradient: wait what was launched, report at the next forward
            for b in self.buckets[:self.next_bucket]:
                self._wait(b)
            self.needs_finalize_check = True
            return
        globally_used = None
        if self.find_unused:
            dist.all_reduce(self.local_used, group=self.pg)
            globally_used = self.local_used.tolist()
        for b in self.buckets:
            result = self._wait(b)
            for k, i in enumerate(b.indices):
                if globally_used is not None and globally_used[i] == 0:
                    continue
                p = self.params[i]
                view = result[b.offsets[k]:b.offsets[k] + p.numel()].view(p.shape)
                with torch.no_grad():
                    if self.as_view and result is b.buffer:
                        p.grad = view
                    elif p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)

    def _wait(self, b):
        if b.work is not None:
            b.work.wait()
            return b.buffer
        if b.future is not None:
            value = b.future.wait()
            if isinstance(value, (list, tuple)):
                value = value[0]
            return value.reshape(-1)
        return b.buffer


def _make_hook(reducer_ref, index):
    def hook(param):
        reducer = reducer_ref()
        if reducer is not None:
            reducer.mark_ready(index)
    return hook


class DistributedDataParallel(Module):
    """Data parallelism across processes: each process runs the module on its share of the batch
    and the gradients are averaged across processes during backward."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = False
        self.process_group = process_group if process_group is not None else dist.distributed_c10d._get_default_group()
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self._module_buffers = [b for b in module.buffers()]
        self._sync_module_states(list(module.parameters()) + self._module_buffers)
        self.reducer = _Reducer(params, self.process_group, self.bucket_bytes_cap, find_unused_parameters,
                                gradient_as_bucket_view, False)
        self._comm_hook_registered = False
        if static_graph:
            self._set_static_graph()

    def _sync_module_states(self, tensors):
        """Broadcasts tensors from rank 0, coalesced per dtype into one flat buffer."""
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        root = dist.get_global_rank(self.process_group, 0) if self.process_group is not dist.GroupMember.WORLD else 0
        for ts in by_dtype.values():
            with torch.no_grad():
                flat = torch.cat([t.detach().reshape(-1) for t in ts])
                dist.broadcast(flat, src=root, group=self.process_group)
                off = 0
                for t in ts:
                    n = t.numel()
                    t.copy_(flat[off:off + n].view(t.shape))
                    off += n

    def _set_static_graph(self):
        self.static_graph = True
        self.reducer.static_graph = True

    def forward(self, *inputs, **kwargs):
        self.reducer.prepare_for_forward()
        if self.broadcast_buffers and self._module_buffers and self.require_forward_param_sync:
            self._sync_module_states(self._module_buffers)
        output = self.module(*inputs, **kwargs)
        if torch.is_grad_enabled() and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        else:
            self.require_forward_param_sync = False
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside the context; the first backward outside it
        all-reduces the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        """hook(state, bucket: dist.GradBucket) -> torch.futures.Future whose value is the reduced
        bucket tensor."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self._comm_hook_registered:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if self.reducer.iteration > 0 or self.reducer.expect_hooks:
            raise RuntimeError("register_comm_hook must be called before calling backward")
        self._comm_hook_registered = True
        self.reducer.comm_hook = hook
        self.reducer.comm_state = state

    def _comm_stats(self):
        """(collectives run, seconds inside them, seconds waited for them) of the group: their
        difference is the communication that overlapped computation (benchmarks)."""
        return self.process_group._stats()
