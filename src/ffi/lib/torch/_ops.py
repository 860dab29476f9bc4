"""torch.ops for Ember scripts: custom operators loaded from shared libraries (see
include/ember/custom_op.h).  torch.ops.load_library(path) loads one; torch.ops.<ns>.<name> is
the op (an OpOverloadPacket, callable; .default is its OpOverload)."""
import torch._C._custom_ops as _custom_ops
from torch._C._custom_ops import OpOverloadPacket, OpOverload


class _OpNamespace:
    """torch.ops.<ns>: the ops registered under one namespace, looked up on first access."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
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
