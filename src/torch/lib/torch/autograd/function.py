"""torch.autograd.function: Function and the ctx class its backward nodes derive from."""
import torch
import torch._C as _C
from torch.autograd import Function

BackwardCFunction = _C._FunctionCtx
FunctionCtx = _C._FunctionCtx

_ONCE_MSG = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(fn):
    """Decorates a custom Function's backward that is not itself differentiable: it runs under
    no_grad, and when the engine runs it with grad mode on (create_graph=True) and a gradient it
    got requires grad, its results come out of a node that raises on a second differentiation."""

    def wrapper(ctx, *args):
        with torch.no_grad():
            outputs = fn(ctx, *args)
        if not torch.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
        if not requires_grad:
            return outputs
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        return _C._delayed_error(_ONCE_MSG, outputs)

    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, attr, getattr(fn, attr, None))
    wrapper.__dict__.update(getattr(fn, "__dict__", {}))
    wrapper.__wrapped__ = fn
    # how the tracer knows this wrapper (it records the backward under it as once-differentiable)
    wrapper._ember_once_differentiable = True
    return wrapper
