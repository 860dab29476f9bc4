"""torch.distributions: Normal, Uniform, Bernoulli, Categorical, OneHotCategorical and
MultivariateNormal (scale_tril form) written after PyTorch's torch/distributions, drawing from the
generator through the same calls (torch.normal, Tensor.normal_, torch.rand, torch.bernoulli,
torch.multinomial) so seeded samples are PyTorch's."""
from torch.distributions import constraints
from torch.distributions.distribution import Distribution
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.normal import Normal
from torch.distributions.uniform import Uniform
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.categorical import Categorical
from torch.distributions.one_hot_categorical import OneHotCategorical
from torch.distributions.multivariate_normal import MultivariateNormal

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "MultivariateNormal", "Normal",
           "OneHotCategorical", "Uniform", "constraints"]
