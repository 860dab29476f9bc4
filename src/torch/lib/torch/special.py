"""torch.special: the special functions of the op table (torch._C._special, generated from
ember/ops.def's Python column)."""
from torch._C._special import *
from torch._mathops import xlogy, polygamma   # branch opsmath


def softmax(input, dim, *, dtype=None):
    """torch.special.softmax: torch.softmax (one ATen op under both names)"""
    import torch
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    import torch
    return torch.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    import torch
    r = torch.logsumexp(input, dim, keepdim)
    return out.copy_(r) if out is not None else r
