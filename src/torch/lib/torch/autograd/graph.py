"""torch.autograd.graph: graph nodes, gradient edges, saved-tensor hooks, multi-grad hooks and
mutation of saved tensors, following /work/shared/seeds/003 (torch 2.x autograd/graph.py).

Where the seed uses stdlib modules the torch package does not import (contextlib, functools,
threading, weakref, abc), the same behaviour is written out here: context managers as classes,
the weak dictionaries of allow_mutation_on_saved_tensors on _weakref.ref, and the
TorchDispatchMode that sees in-place ops as the engine's mutation observer
(torch._C._set_mutation_observer), which runs right before the kernel of every in-place op.
"""
import torch
import torch._C as _C
from _weakref import ref as _weakref_ref
from torch.utils.hooks import RemovableHandle

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
    "Node",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
]

# The base of every grad_fn type (one subclass per node name: MulBackward0, AccumulateGrad, ...)
# and of custom Functions' backward classes: name(), next_functions, metadata, register_hook,
# register_prehook.  The seed's abstract Node recognises exactly these classes.
Node = _C._Node


def _get_grad_fn_or_grad_acc(t):
    if t.requires_grad and t.grad_fn is None:
        return t.view_as(t).grad_fn.next_functions[0][0]
    else:
        return t.grad_fn


class GradientEdge(tuple):
    """Object representing a given gradient edge within the autograd graph.
    To get the gradient edge where a given Tensor gradient will be computed,
    you can do ``edge = autograd.graph.get_gradient_edge(tensor)``.
    """

    # seed 003 makes it namedtuple("GradientEdge", ("node output_nr")); this is that namedtuple
    # written out
    __slots__ = ()
    _fields = ("node", "output_nr")

    def __new__(cls, node, output_nr):
        return tuple.__new__(cls, (node, output_nr))

    @classmethod
    def _make(cls, iterable):
        node, output_nr = iterable
        return tuple.__new__(cls, (node, output_nr))

    def _replace(self, **kwds):
        node = kwds.pop("node", self[0])
        output_nr = kwds.pop("output_nr", self[1])
        if kwds:
            raise ValueError("Got unexpected field names: " + repr(list(kwds)))
        return GradientEdge(node, output_nr)

    def _asdict(self):
        return {"node": self[0], "output_nr": self[1]}

    def __getnewargs__(self):
        return tuple(self)

    @property
    def node(self):
        return self[0]

    @property
    def output_nr(self):
        return self[1]

    def __repr__(self):
        return "GradientEdge(node=" + repr(self[0]) + ", output_nr=" + repr(self[1]) + ")"


def get_gradient_edge(tensor):
    """Get the gradient edge for computing the gradient of the given Tensor.

    In particular, it is equivalent to call
    ``g = autograd.grad(loss, input)`` and ``g = autograd.grad(loss, get_gradient_edge(input))``.
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients"
        )
    grad_fn = _get_grad_fn_or_grad_acc(tensor)
    # Note that output_nr default to 0 which is the right value
    # for the AccumulateGrad node.
    return GradientEdge(grad_fn, tensor.output_nr)


def increment_version(tensor):
    """Update autograd metadata tracking whether the given Tensor was modified in place.

    This is to enable more accurate error checking within the autograd engine.
    It is already done automatically by PyTorch functions and within custom Function
    when mark_dirty() is called appropriately so you only need to call this explicitly
    if you are doing inplace operation on the Tensor data in a way that Pytorch doesn't
    know about.

    Note that incrementing the version counter multiple times for a single inplace operation
    is not problematic.
    """
    _C._increment_version(tensor)


class saved_tensors_hooks:
    """Context-manager that sets a pair of pack / unpack hooks for saved tensors.

    ``pack_hook(tensor) -> Any`` is called every time an operation saves a tensor for backward
    (custom Functions' save_for_backward included); what it returns is stored instead of the
    tensor.  ``unpack_hook(packed) -> Tensor`` is called when backward needs the tensor.  Only
    one pair of hooks is active at a time: when nested, the innermost pair applies.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Context manager under which tensors saved by the forward pass will be stored on cpu, then
    retrieved for backward.  (Ember's tensors are always on the CPU: the copy is kept as the
    seed does, so the behaviour is PyTorch's.)"""

    def __init__(self, pin_memory=False, device_type="cuda"):
        device_module = getattr(torch, device_type, torch.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = torch.empty(
                tensor.size(),
                dtype=tensor.dtype,
                layout=tensor.layout,
                pin_memory=(device_module.is_available() and not tensor.is_sparse),
            )
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class _DisableSavedTensorsHooks:
    def __init__(self, error_message):
        self.error_message = error_message
        self.maybe_prev_message = None

    def __enter__(self):
        self.maybe_prev_message = _C._saved_tensors_hooks_disabled_message()
        try:
            # raises when saved-tensor hooks are already active
            _C._saved_tensors_hooks_disable(self.error_message)
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *args):
        # See NOTE: [disabled_error_message invariant]
        if self.maybe_prev_message is None:
            _C._saved_tensors_hooks_disable(None)
        else:
            _C._saved_tensors_hooks_disable(self.maybe_prev_message)
        return False

    def __call__(self, fn):
        # usable as a decorator, as contextlib's context managers are: each call enters anew
        message = self.error_message

        def wrapper(*args, **kwargs):
            with _DisableSavedTensorsHooks(message):
                return fn(*args, **kwargs)

        return _wraps(fn, wrapper)


def disable_saved_tensors_hooks(error_message):
    """Context-manager that disables the saved tensors default hooks feature: using
    saved_tensors_hooks (or save_on_cpu) inside raises RuntimeError(error_message)."""
    return _DisableSavedTensorsHooks(error_message)


def _wraps(fn, wrapper):
    # functools.wraps(fn)(wrapper)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        if hasattr(fn, attr):
            try:
                setattr(wrapper, attr, getattr(fn, attr))
            except (AttributeError, TypeError):
                pass
    fn_dict = getattr(fn, "__dict__", None)
    if fn_dict is not None:
        wrapper.__dict__.update(fn_dict)
    wrapper.__wrapped__ = fn
    return wrapper


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    r"""Register a multi-grad backward hook.

    Under the ``"all"`` mode, the hook will be called after gradients with respect to every
    tensor in :attr:`tensors` have been computed (tensors not part of the graph, or not needed
    for the current ``inputs``, are ignored, and ``None`` is passed for them).
    Under the ``"any"`` mode, the hook will be called after the first gradient with respect to a
    tensor in :attr:`tensors` has been computed, with that gradient as its argument.

    Example::

        >>> a = torch.rand(2, 3, requires_grad=True)
        >>> b = torch.rand(2, 3, requires_grad=True)
        >>> c = a * b
        >>> d = a * b
        >>> def fn(grads):
        ...     print([g is not None for g in grads])
        >>> torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)
        >>> c.sum().backward(retain_graph=True)
        [True, True, True, False]
        >>> c.sum().backward(inputs=(a,), retain_graph=True)
        [True, False, True, False]
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")

    class Handle(RemovableHandle):
        def __init__(self, handles):
            self.handles = handles

        def remove(self):
            for handle in self.handles:
                handle.remove()

        def __getstate__(self):
            return self.handles

        def __setstate__(self, state):
            self.handles = state

    if mode == "all":
        count = dict()
        nb_calls = None
        buffer = dict()

        grad_fns = list(map(_get_grad_fn_or_grad_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal count, nb_calls, buffer, fn
                id = torch._C._current_graph_task_id()
                assert id != -1, "expected this hook to be called inside a backward call"
                count[id] = count.get(id, 0)
                buffer[id] = buffer.get(id, [None] * len_tensors)

                if count[id] == 0:
                    # On the first call, compute the actual nb_calls and buffer
                    nb_calls = sum(torch._C._will_engine_execute_node(g) for g in grad_fns)

                buffer[id][idx] = grad
                count[id] += 1

                if count[id] == nb_calls:
                    fn(buffer[id])
                    del count[id]
                    del buffer[id]

            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    elif mode == "any":
        ran_hook = dict()

        def wrapped_fn(grad):
            nonlocal ran_hook
            id = torch._C._current_graph_task_id()
            assert id != -1, "expected this hook to be called inside a backward call"
            # (the seed holds a threading.Lock here; Ember runs backward on one thread)
            prev, ran_hook[id] = ran_hook.get(id, False), True
            if prev:
                return
            fn(grad)

        _wraps(fn, wrapped_fn)
        handles = tuple(tensor.register_hook(wrapped_fn) for tensor in tensors if tensor.requires_grad)

    return Handle(handles)


# NOTE [Allow mutation on tensors saved for backward]
#
# 1. Tensor gets saved for backward
#    - remember the python object id and the version of the tensor
#    - remember aliasing information (data_ptr of base + version)
#    - save the original so we control its lifetime
# 2. Any time a tensor gets in-placed
#    - for each tensor aliased to it:
#      - check using its object id and version to see if it has been saved
#      - if it has been saved, clone it
#      - delete the reference to the original
# 3. during backward
#    - if the clone exists, the tensor must've been modified in-place
_allow_mutation_on_saved_tensors_enabled = False


def _get_tid(t):
    return (id(t), t.data_ptr(), t._version)


def _get_sid(t):
    return (t.data_ptr(), t._version)


class _Handle:
    pass


class _WeakKeyDictionary:
    """weakref.WeakKeyDictionary for the keys used here (_Handle objects, hashed by identity):
    an entry goes away once its key has been collected."""

    def __init__(self):
        self._data = {}   # id(key) -> (ref(key), value)

    def _entry(self, key):
        entry = self._data.get(id(key))
        if entry is not None and entry[0]() is key:
            return entry
        return None

    def __contains__(self, key):
        return self._entry(key) is not None

    def __getitem__(self, key):
        entry = self._entry(key)
        if entry is None:
            raise KeyError(key)
        return entry[1]

    def __setitem__(self, key, value):
        self._data[id(key)] = (_weakref_ref(key), value)

    def __delitem__(self, key):
        if self._entry(key) is None:
            raise KeyError(key)
        del self._data[id(key)]

    def __len__(self):
        return sum(1 for ref, _ in self._data.values() if ref() is not None)

    def clear(self):
        self._data.clear()


class _WeakValueDictionary:
    """weakref.WeakValueDictionary: an entry goes away once its value has been collected."""

    def __init__(self):
        self._data = {}   # key -> ref(value)

    def __contains__(self, key):
        ref = self._data.get(key)
        return ref is not None and ref() is not None

    def __getitem__(self, key):
        ref = self._data.get(key)
        value = ref() if ref is not None else None
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        self._data[key] = _weakref_ref(value)

    def __len__(self):
        return sum(1 for ref in self._data.values() if ref() is not None)

    def clear(self):
        self._data.clear()


class _swap_with_cloned(saved_tensors_hooks):
    def __init__(self, ctx):
        def pack_hook(t):
            tid = _get_tid(t)
            sid = _get_sid(t)
            # Tensors saved for backward have an entry in _tid_to_weakhandle
            handle = None

            # Save aliasing information
            if sid not in ctx.sid_to_tid:
                ctx.sid_to_tid[sid] = set()
            ctx.sid_to_tid[sid].add(tid)

            # NB: The same tensor (of the same version) can be saved multiple times
            if tid not in ctx.tid_to_weakhandle:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = t
            else:
                # Store an additional strong reference to the handle
                handle = ctx.tid_to_weakhandle[tid]
            return handle

        def unpack_hook(tup):
            handle = tup
            error_msg = (
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                "in which the graph was originally recorded."
            )
            assert _allow_mutation_on_saved_tensors_enabled, error_msg
            if handle in ctx.cloned:
                res = ctx.cloned[handle]
            else:
                assert handle in ctx.original, error_msg
                res = ctx.original[handle]
            return res

        super().__init__(pack_hook, unpack_hook)


class _CloneArgBeforeMutateMode:
    """The seed's TorchDispatchMode: before an in-place op writes a tensor, every saved tensor
    aliased to it (same data_ptr and version) is cloned, so backward sees the saved values."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.prev = None

    def before_mutation(self, t):
        tid = _get_tid(t)
        sid = _get_sid(t)
        ctx = self.ctx
        if sid in ctx.sid_to_tid:
            for tid in ctx.sid_to_tid[sid]:
                if tid not in ctx.tid_to_weakhandle:
                    # We know that if tid is in sid_to_tid, then it must also be in
                    # tid_to_weakhandle. However, it is possible for the tensor to be
                    # saved at one point, but cleared by backward before it is modified
                    # in-place. Consider the following example:
                    #
                    # >>> a = torch.randn(2, 3, requires_grad=True).clone()
                    # >>> out = (a**2).sum()
                    # >>> out.backward()
                    # >>> a.sin_()
                    continue
                handle = ctx.tid_to_weakhandle[tid]
                if handle in ctx.cloned:
                    # The same exact tensor has been cloned already
                    continue
                ctx.cloned[handle] = ctx.original[handle].clone()
                del ctx.original[handle]

    def __enter__(self):
        self.prev = _C._set_mutation_observer(self.before_mutation)
        return self

    def __exit__(self, *args):
        _C._set_mutation_observer(self.prev)
        return False


class _AllowMutationOnSavedContext:
    def __init__(self):
        self.cloned = _WeakKeyDictionary()
        self.original = _WeakKeyDictionary()
        self.tid_to_weakhandle = _WeakValueDictionary()
        self.sid_to_tid = dict()

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


class _AllowMutationOnSavedTensors:
    """The seed's @contextlib.contextmanager generator, as a class:

        ctx = _AllowMutationOnSavedContext()
        with _swap_with_cloned(ctx), _CloneArgBeforeMutateMode(ctx):
            try:
                if _allow_mutation_on_saved_tensors_enabled:
                    raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
                _allow_mutation_on_saved_tensors_enabled = True
                yield ctx
            finally:
                ctx.clear()
                _allow_mutation_on_saved_tensors_enabled = False
    """

    def __enter__(self):
        global _allow_mutation_on_saved_tensors_enabled
        self.ctx = ctx = _AllowMutationOnSavedContext()
        self.hooks = _swap_with_cloned(ctx)
        self.mode = _CloneArgBeforeMutateMode(ctx)
        self.hooks.__enter__()
        self.mode.__enter__()
        if _allow_mutation_on_saved_tensors_enabled:
            self._leave()
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _allow_mutation_on_saved_tensors_enabled = True
        return ctx

    def _leave(self):
        global _allow_mutation_on_saved_tensors_enabled
        self.ctx.clear()
        _allow_mutation_on_saved_tensors_enabled = False
        self.mode.__exit__(None, None, None)
        self.hooks.__exit__(None, None, None)

    def __exit__(self, *args):
        self._leave()
        return False


def allow_mutation_on_saved_tensors():
    """Context manager under which mutating tensors saved for backward is allowed.

    Under this context manager, tensors saved for backward are cloned on mutation,
    so the original version can still be used during backward. Normally, mutating a tensor
    saved for backward will result in an error raised when it's used during backward.

    To ensure the correct behavior, both the forward and backward should be run under
    the same context manager.

    returns:
        An _AllowMutationOnSavedContext object storing the state managed by this
        context manager. This object can be useful for debugging purposes. The state
        managed by the context manager is automatically cleared upon exiting.

    Example::

        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     # forward
        ...     a = torch.ones(2, 3, requires_grad=True)
        ...     b = a.clone()
        ...     out = (b**2).sum()
        ...     b.sin_()
        ...     # backward
        ...     out.sum().backward()
        ...
        tensor([[0.8415, 0.8415, 0.8415],
                [0.8415, 0.8415, 0.8415]], grad_fn=<SinBackward0>)
    """
    return _AllowMutationOnSavedTensors()
