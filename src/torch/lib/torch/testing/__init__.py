"""torch.testing: assert_close, make_tensor, and 1.13's deprecated assert_allclose / rand / randn
(each warns with PyTorch's FutureWarning text).  make_tensor draws from the default generator
exactly as PyTorch's does (the same calls in the same order), so a seeded script makes the same
tensors."""
import collections.abc
import functools
import math
import warnings

import torch
from torch.testing._comparison import assert_close

__all__ = ["assert_close", "make_tensor", "assert_allclose", "rand", "randn"]

_INTEGRAL = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
_FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _low_high(low, high, lowest, highest, default_low, default_high, dtype):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:
        raise ValueError("make_tensor: one of low or high was NaN!")
    if low > high:
        raise ValueError("make_tensor: low must be weakly less than high!")
    low = min(max(low, lowest), highest)
    high = min(max(high, lowest), highest)
    if dtype in _INTEGRAL:
        return math.floor(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False):
    """A tensor of the given shape and dtype filled with values drawn uniformly from [low, high)
    (defaults: [-9, 9) for floats, [-9, 10) for signed integers, [0, 10) for uint8)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if requires_grad and dtype not in _FLOATING:
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    if dtype is torch.bool:
        result = torch.randint(0, 2, shape, device=device, dtype=dtype)
    elif dtype is torch.uint8:
        info = torch.iinfo(dtype)
        low, high = _low_high(low, high, info.min, info.max, 0, 10, dtype)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = torch.iinfo(dtype)
        low, high = _low_high(low, high, info.min, info.max, -9, 10, dtype)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = torch.finfo(dtype)
        low, high = _low_high(low, high, info.min, info.max, -9, 9, dtype)
        u = torch.rand(shape, device=device, dtype=dtype)
        # the interpolation as PyTorch writes it, so its rounding is the same
        result = high * u + low * (1 - u)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if noncontiguous and result.numel() > 1:
        result = torch.repeat_interleave(result, 2, dim=-1)[..., ::2]
    if exclude_zero:
        if dtype in _FLOATING:
            fill = torch.tensor(torch.finfo(dtype).tiny, device=device, dtype=dtype)
        else:
            fill = torch.tensor(1, device=device, dtype=dtype)
        result[result == 0] = fill
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result


def _deprecated(instructions):
    """Warns after a successful call, as PyTorch 1.13's deprecated torch.testing functions do."""
    def wrap(fn):
        head = f"torch.testing.{fn.__name__}() is deprecated since 1.12 and will be removed in 1.14. "

        @functools.wraps(fn)
        def call(*args, **kwargs):
            value = fn(*args, **kwargs)
            # no stacklevel: the warning names this line, as PyTorch's names its own (and the
            # default filter then shows it once per process, not once per caller)
            warnings.warn((head + instructions).strip(), FutureWarning)
            return value
        return call
    return wrap


rand = _deprecated("Use torch.rand() instead.")(torch.rand)
randn = _deprecated("Use torch.randn() instead.")(torch.randn)

# assert_allclose's own defaults, looser than assert_close's
_ALLCLOSE_PRECISIONS = {torch.float16: (1e-3, 1e-3), torch.float32: (1e-4, 1e-5),
                        torch.float64: (1e-5, 1e-8)}


@_deprecated("Use torch.testing.assert_close() instead. For detailed upgrade instructions see "
             "https://github.com/pytorch/pytorch/issues/61844.")
def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        a = _ALLCLOSE_PRECISIONS.get(actual.dtype, (0.0, 0.0))
        e = _ALLCLOSE_PRECISIONS.get(expected.dtype, (0.0, 0.0))
        rtol, atol = max(a[0], e[0]), max(a[1], e[1])
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
