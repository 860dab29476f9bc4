"""MultivariateNormal(loc, scale_tril=...) (PyTorch's torch/distributions/multivariate_normal.py).
The covariance_matrix / precision_matrix forms need torch.linalg.cholesky, which Ember does not
have yet; scale_tril gives sample, rsample, log_prob and entropy."""
import math

import torch
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import _standard_normal, lazy_property

__all__ = ['MultivariateNormal']


def _batch_mv(bmat, bvec):
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _solve_lower(L, b):
    # forward substitution L x = b over the last dim (batched)
    n = L.shape[-1]
    xs = []
    for i in range(n):
        acc = b[..., i]
        for j in range(i):
            acc = acc - L[..., i, j] * xs[j]
        xs.append(acc / L[..., i, i])
    return torch.stack(xs, -1)


class MultivariateNormal(Distribution):
    arg_constraints = {'loc': constraints.real_vector,
                       'scale_tril': constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is None:
            raise NotImplementedError("MultivariateNormal(covariance_matrix=/precision_matrix=) needs "
                                      "torch.linalg.cholesky, which Ember does not have yet: pass scale_tril=")
        if scale_tril.dim() < 2:
            raise ValueError("scale_tril matrix must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        n = loc.shape[-1]
        bl = tuple(loc.shape[:-1])
        bs = tuple(scale_tril.shape[:-2])
        m = max(len(bl), len(bs))
        bl = (1,) * (m - len(bl)) + bl
        bs = (1,) * (m - len(bs)) + bs
        batch_shape = tuple(b if a == 1 else a for a, b in zip(bl, bs))
        self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super(MultivariateNormal, self).__init__(torch.Size(batch_shape), event_shape, validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril

    @lazy_property
    def covariance_matrix(self):
        return torch.matmul(self._unbroadcasted_scale_tril,
                            self._unbroadcasted_scale_tril.transpose(-1, -2)).expand(
                                tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        L = self._unbroadcasted_scale_tril
        n = L.shape[-1]
        return torch.stack([L[..., i, i] for i in range(n)], -1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        shape = [max(a, b) for a, b in zip(tuple(diff.shape[:-1]), tuple(L.shape[:-2]))] if L.dim() > 2 else list(diff.shape[:-1])
        M = _solve_lower(L.expand(tuple(shape) + tuple(L.shape[-2:])) if L.dim() > 2 else L, diff).pow(2).sum(-1)
        half_log_det = self._half_log_det()
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._half_log_det()
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
