"""torch.fft: the real-valued helpers, with PyTorch 1.13's signatures and ATen's algorithms
(fftfreq / rfftfreq: arange, the upper half shifted down by n, times 1 / (n d); fftshift /
ifftshift: roll by n // 2 / (n + 1) // 2 over the given dims, all by default).

The transforms themselves (fft, ifft, rfft, irfft, fft2, ifft2, fftn, ifftn, rfftn, irfftn,
hfft, ihfft) return or take complex tensors, and Ember has no complex dtypes
(ember/dtypes.def): they raise NotImplementedError naming that."""
import math

import torch
from torch._mathops import _outable


def _inv(n, d):
    # 1 / (n d) as C++ divides (n = 0: an infinity, multiplying an empty tensor)
    p = n * d
    return 1.0 / p if p != 0 else math.copysign(math.inf, p)


def _freq_dtype(name, dtype):
    dt = torch.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError("%s requires a floating point or complex dtype" % name)
    return dt


@_outable("fft.fftfreq")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _freq_dtype("fftfreq", dtype)
    r = torch.arange(n, dtype=dt)
    h = (n + 1) // 2
    if h < n:
        r[h:] = torch.arange(-(n // 2), 0, dtype=dt)
    r = r.mul_(_inv(n, d))
    return r.requires_grad_() if requires_grad else r


@_outable("fft.rfftfreq")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _freq_dtype("rfftfreq", dtype)
    r = torch.arange(n // 2 + 1, dtype=dt).mul_(_inv(n, d))
    return r.requires_grad_() if requires_grad else r


def _dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    if isinstance(dim, int):
        dim = [dim]
    nd = x.dim()
    out = []
    for d in dim:
        if d < -max(nd, 1) or d >= max(nd, 1):
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (-max(nd, 1), max(nd, 1) - 1, d))
        out.append(d + nd if d < 0 else d)
    return out


def fftshift(input, dim=None):
    dims = _dims(input, dim)
    return torch.roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    dims = _dims(input, dim)
    return torch.roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)


def _complex(name):
    def transform(*args, **kwargs):
        raise NotImplementedError("torch.fft.%s: Ember has no complex dtypes (complex64 / complex128), which "
                                  "this transform returns or takes" % name)
    transform.__name__ = name
    transform.__qualname__ = name
    return transform


for _name in ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn",
              "irfftn", "hfft", "ihfft"):
    globals()[_name] = _complex(_name)
del _name
