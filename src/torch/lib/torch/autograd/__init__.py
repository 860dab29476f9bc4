"""torch.autograd: backward, grad, custom Functions, and the graph API."""
import torch._C as _C


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    return _C._backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    return _C._grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                    is_grads_batched, materialize_grads)


class Function:
    """Base class of custom autograd functions: subclasses define forward(ctx, ...) and
    backward(ctx, *grads) as staticmethods and are called through apply()."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            # (torch 2.x binds keyword arguments only for Functions that define setup_context)
            raise TypeError("apply() takes no keyword arguments")
        return _C._function_apply(cls, args)


class _ExecutionEngine:
    def queue_callback(self, callback):
        _C._queue_callback(callback)


class Variable:
    _execution_engine = _ExecutionEngine()


import torch.autograd.graph as graph
import torch.autograd.function as function
from torch.autograd.gradcheck import gradcheck, gradgradcheck
import torch.autograd.anomaly_mode as anomaly_mode
from torch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly


def _is_checkpoint_valid():
    return _C._is_checkpoint_valid()


def __getattr__(name):
    # PyTorch's `import torch` imports torch.autograd.profiler and torch.autograd.functional;
    # Ember on first use (PEP 562)
    if name in ("profiler", "profiler_util", "functional"):
        import importlib
        return importlib.import_module("torch.autograd." + name)
    raise AttributeError("module 'torch.autograd' has no attribute '%s'" % name)
