"""torch.ops for Ember scripts: custom operators loaded from shared libraries (see
include/ember/custom_op.h).  torch.ops.load_library(path) loads one; torch.ops.<ns>.<name> is
the op (an OpOverloadPacket, callable; .default is its OpOverload)."""
import torch._C._custom_ops as _custom_ops
from torch._C._custom_ops import OpOverloadPacket, OpOverload


class _BuiltinOp:
    """One of PyTorch's own ops that scripts call through torch.ops (the profiler's
    record_function pair), with __torch_function__ dispatch so torch.fx can trace calls of it."""

    def __init__(self, namespace, name, fn):
        self._fn = fn
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = "torch.ops." + namespace
        self._qualified_op_name = namespace + "::" + name

    def __call__(self, *args, **kwargs):
        from torch.overrides import handle_torch_function, has_torch_function
        if has_torch_function(args):
            return handle_torch_function(self, args, *args, **kwargs)
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return "torch.ops." + self._qualified_op_name.replace("::", ".")


def _record_function_enter(name, args=None):
    """The handle is a 0-dim int64 tensor, as PyTorch's: 1 when a profile recorded the range."""
    import torch
    pushed = torch._C._profiler_push(name if args is None else name + ", " + args)
    return torch.tensor(1 if pushed else 0)


def _record_function_exit(handle):
    import torch
    if int(handle) == 1:
        torch._C._profiler_pop()


_BUILTIN_OPS = {("profiler", "_record_function_enter"): _record_function_enter,
                ("profiler", "_record_function_exit"): _record_function_exit}


class _OpNamespace:
    """torch.ops.<ns>: the ops registered under one namespace, looked up on first access."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        builtin = _BUILTIN_OPS.get((self.name, op_name))
        if builtin is not None:
            op = _BuiltinOp(self.name, op_name, builtin)
            setattr(self, op_name, op)
            return op
        op = _custom_ops.lookup(self.name, op_name)
        if op is None:
            raise AttributeError("'_OpNamespace' '%s' object has no attribute '%s'" % (self.name, op_name))
        setattr(self, op_name, op)
        return op

    def __repr__(self):
        return "<module 'torch.ops.%s' from 'torch.ops'>" % self.name


class _Ops:
    """torch.ops"""

    def __init__(self):
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def load_library(self, path):
        self.loaded_libraries.add(_custom_ops.load_library(path))

    def __repr__(self):
        return "<module 'torch.ops' from '_ops.py'>"


ops = _Ops()
