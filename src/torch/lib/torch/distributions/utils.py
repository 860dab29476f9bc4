"""Helpers shared by the distributions (PyTorch's torch/distributions/utils.py)."""
import torch

# numbers.Number / numbers.Real for what torch accepts as a Python number (without importing the
# numbers module, whose ABCs Ember's stdlib support does not load yet)
_Number = (int, float)
Number = _Number

# torch.finfo(torch.float32)
_FLOAT32_EPS = 1.1920928955078125e-07
_FLOAT32_MIN = -3.4028234663852886e+38


def broadcast_all(*values):
    if not all(isinstance(v, torch.Tensor) or isinstance(v, Number) for v in values):
        raise ValueError('Input arguments must all be instances of numbers.Number, '
                         'torch.Tensor or objects implementing __torch_function__.')
    if not all(isinstance(v, torch.Tensor) for v in values):
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(float(v)) for v in values]
    shape = []
    for v in values:
        s = list(v.shape)
        n = max(len(shape), len(s))
        a = [1] * (n - len(shape)) + shape
        b = [1] * (n - len(s)) + s
        shape = [y if x == 1 else x for x, y in zip(a, b)]
    return tuple(v.expand(shape) for v in values)


def _standard_normal(shape, dtype, device):
    return torch.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    required_shape = value.shape[:-dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = _FLOAT32_EPS
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log(1 - ps_clamped)
    return torch.log(ps_clamped)


def _bce_with_logits(input, target):
    # ATen's binary_cross_entropy_with_logits (reduction='none', no weights), op by op
    max_val = (-input).clamp(min=0)
    return (1 - target) * input + max_val + ((-max_val).exp() + (-input - max_val).exp()).log()


class lazy_property:
    """A property computed on first access and then stored as an attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
