"""torch.utils.checkpoint: activation checkpointing as PyTorch 1.13 does it.  A checkpointed
function runs without keeping its activations; the backward runs it again (with the forward's
CPU random state, so dropout draws the same mask) to get them.

use_reentrant=True (the default): a custom autograd Function whose backward re-runs the function
under enable_grad and calls torch.autograd.backward on the recomputed outputs (a backward inside
the backward).  use_reentrant=False: saved-tensor hooks; the first unpack of any tensor the
function saved re-runs it, and the recomputed tensors stand in for the saved ones in order."""
import warnings
import weakref

import torch

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "detach_variable",
           "check_backward_validity"]


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                       type(inputs).__name__)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


class CheckpointFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = torch.get_rng_state()
        # tensors go through save_for_backward, everything else is kept as is
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, arg in enumerate(args):
            if torch.is_tensor(arg):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with torch.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not torch.autograd._is_checkpoint_valid():
            raise RuntimeError(
                "Checkpointing is not compatible with .grad() or when an `inputs` parameter"
                " is passed to .backward(). Please use .backward() and do not pass its `inputs`"
                " argument.")
        inputs = list(ctx.inputs)
        for i, saved in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = saved
        with torch.random.fork_rng(devices=[], enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                torch.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with torch.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        with_grad, grads_in = [], []
        for out, g in zip(outputs, args):
            if torch.is_tensor(out) and out.requires_grad:
                with_grad.append(out)
                grads_in.append(g)
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward(with_grad, grads_in)
        grads = tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached)
        return (None, None) + grads


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    """Runs function(*args) without keeping its activations for the backward, which recomputes
    them.  preserve_rng_state=True (default) replays the forward's random draws."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, *args, **kwargs)


def _checkpoint_without_reentrant(function, preserve_rng_state=True, *args, **kwargs):
    if preserve_rng_state:
        fwd_cpu_state = torch.get_rng_state()

    class Holder:
        pass

    # holder -> the recomputed tensor it stands for (weak: a holder dies with its node)
    storage = weakref.WeakKeyDictionary()
    holders = []

    def pack(x):
        h = Holder()
        holders.append(weakref.ref(h))
        return h

    def unpack(h):
        if len(storage) == 0:
            count = 0

            def inner_pack(inner):
                nonlocal count
                count += 1
                target = holders[count - 1]()
                if target is not None:
                    storage[target] = inner.detach()

            def inner_unpack(packed):
                raise RuntimeError("You are calling backwards on a tensor that is never exposed. "
                                   "Please open an issue.")

            with torch.random.fork_rng(devices=[], enabled=preserve_rng_state):
                if preserve_rng_state:
                    torch.set_rng_state(fwd_cpu_state)
                with torch.enable_grad(), \
                        torch.autograd.graph.saved_tensors_hooks(inner_pack, inner_unpack):
                    function(*args, **kwargs)
        if h not in storage:
            raise RuntimeError(
                "Attempt to retrieve a tensor saved by autograd multiple times without checkpoint"
                " recomputation being triggered in between, this is not currently supported. Please"
                " make sure each autograd graph that involves checkpointing is called backward only"
                " once.")
        return storage[h]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        output = function(*args, **kwargs)
    return output


def checkpoint_sequential(functions, segments, input, use_reentrant=True, **kwargs):
    """Checkpoints a Sequential (or list of modules) in `segments` chunks; the last chunk runs
    normally."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
