"""ExponentialFamily: the base PyTorch's Normal and Bernoulli derive from."""
from torch.distributions.distribution import Distribution

__all__ = ['ExponentialFamily']


class ExponentialFamily(Distribution):
    pass
