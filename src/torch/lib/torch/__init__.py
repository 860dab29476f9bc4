"""torch for Ember scripts: the C tensor library and autograd engine bound to the VM (torch._C),
plus the Python-level packages (autograd, nn, optim, utils, ...)."""
from torch._C import *
import torch._C as _C
from torch._C import _set_grad_enabled, is_grad_enabled


class _GradModeBase:
    """A context manager that is also a decorator (torch.no_grad() / @torch.no_grad())."""

    def __call__(self, func):
        mode = self

        def wrapper(*args, **kwargs):
            with mode.__class__(*mode._args):
                return func(*args, **kwargs)

        wrapper.__name__ = getattr(func, "__name__", "wrapper")
        wrapper.__qualname__ = getattr(func, "__qualname__", "wrapper")
        wrapper.__doc__ = getattr(func, "__doc__", None)
        wrapper.__wrapped__ = func
        return wrapper


class no_grad(_GradModeBase):
    def __init__(self):
        self._args = ()
        self.prev = False

    def __enter__(self):
        self.prev = _set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


class enable_grad(_GradModeBase):
    def __init__(self):
        self._args = ()
        self.prev = False

    def __enter__(self):
        self.prev = _set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


class set_grad_enabled(_GradModeBase):
    def __init__(self, mode):
        self._args = (mode,)
        self.prev = _set_grad_enabled(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


class inference_mode(_GradModeBase):
    def __init__(self, mode=True):
        self._args = (mode,)
        self.mode = mode
        self.prev = False

    def __enter__(self):
        self.prev = _set_grad_enabled(not self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


def is_inference_mode_enabled():
    return False


def is_floating_point(input):
    return input.is_floating_point()


def cuda_is_available():
    return False


class _Cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0


cuda = _Cuda()
float64 = float32   # Ember computes in float32; float64 requests get float32
double = float32
int32 = int64
int = int64
FloatTensor = Tensor
LongTensor = Tensor
strided = "strided"

import torch.autograd
import torch.utils
import torch.nn
import torch.optim
