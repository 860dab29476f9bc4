"""torch.autograd.graph: graph nodes, gradient edges, saved-tensor hooks, multi-grad hooks and
mutation of saved tensors (the behaviour of /work/shared/seeds/003)."""
import torch
import torch._C as _C
from torch.utils.hooks import RemovableHandle

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
    # written out, as the collections module is not part of the torch package's imports
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
    _C._increment_version(tensor)


class saved_tensors_hooks:
    """Context manager that installs a (pack_hook, unpack_hook) pair for tensors saved for
    backward; the innermost pair wins."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (where Ember's tensors always are): pack keeps the
    device and a CPU copy, unpack moves it back."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class _DisableSavedTensorsHooks:
    def __init__(self, error_message):
        self.error_message = error_message
        self.prev = None

    def __enter__(self):
        self.prev = _C._saved_tensors_hooks_disabled_message()
        _C._saved_tensors_hooks_disable(self.error_message)

    def __exit__(self, *args):
        _C._saved_tensors_hooks_disable(self.prev)
        return False


def disable_saved_tensors_hooks(error_message):
    return _DisableSavedTensorsHooks(error_message)


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once every gradient the current backward will compute for
    `tensors` is known (None for the others); mode "any": fn(grad) on the first one."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError("Expects mode to be one of " + repr(supported_modes) + " but got " + str(mode))
    if mode == "all":
        count = {}
        buffer = {}
        expected = {}
        grad_fns = [_get_grad_fn_or_grad_acc(t) for t in tensors]
        n = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                task = _C._current_graph_task_id()
                assert task != -1, "expected this hook to be called inside a backward call"
                if task not in count:
                    count[task] = 0
                    buffer[task] = [None] * n
                    expected[task] = sum(1 for g in grad_fns if g is not None and _C._will_engine_execute_node(g))
                buffer[task][idx] = grad
                count[task] += 1
                if count[task] == expected[task]:
                    grads = buffer[task]
                    del count[task]
                    del buffer[task]
                    del expected[task]
                    fn(grads)
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook = {}

        def wrapped_fn(grad):
            task = _C._current_graph_task_id()
            assert task != -1, "expected this hook to be called inside a backward call"
            prev = ran_hook.get(task, False)
            ran_hook[task] = True
            if prev:
                return None
            return fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
