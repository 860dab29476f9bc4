"""torch.nn.modules.padding: the constant / zero / reflection / replication padding layers,
each a fixed F.pad call (the padding tuple is normalised at construction, as PyTorch does)."""
import torch.nn.functional as F
from torch.nn.modules.module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return "padding={}, value={}".format(self.padding, self.value)


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = F._ntuple(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = F._ntuple(padding, 4)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = F._ntuple(padding, 6)


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.)

    def extra_repr(self):
        return "{}".format(self.padding)


class _ModePadNd(Module):
    """reflection and replication layers: F.pad in the class's mode, repr'd as the bare tuple"""
    __constants__ = ["padding"]
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = F._ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return "{}".format(self.padding)


# the six layers differ only in mode and tuple length
for _name, _mode, _n in [("ReflectionPad1d", "reflect", 2), ("ReflectionPad2d", "reflect", 4),
                         ("ReflectionPad3d", "reflect", 6), ("ReplicationPad1d", "replicate", 2),
                         ("ReplicationPad2d", "replicate", 4), ("ReplicationPad3d", "replicate", 6)]:
    globals()[_name] = type(_name, (_ModePadNd,), {"_mode": _mode, "_n": _n, "__module__": __name__})
del _name, _mode, _n
