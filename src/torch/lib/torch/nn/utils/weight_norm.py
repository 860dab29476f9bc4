"""torch.nn.utils.weight_norm (the forward-pre-hook form PyTorch 1.13 has): a parameter w becomes
w_g (its norm over every dim but `dim`) and w_v (its direction), and w is recomputed as
v * (g / ||v||) before each forward.  torch._weight_norm and torch.norm_except_dim are defined
here by decomposition (autograd differentiates through the ops they are made of)."""
import torch
from torch.nn.parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The p-norm of v over every dimension but `dim` (kept with size 1); dim=-1: the whole norm."""
    if dim == -1:
        return _pnorm(v, pow, None)
    if dim < 0:
        dim += v.dim()
    dims = tuple(d for d in range(v.dim()) if d != dim)
    if not dims:   # a 1-D v: the norm of each single element
        return v.abs()
    return _pnorm(v, pow, dims)


def _pnorm(v, p, dims):
    if dims is None:
        if p == 2:
            return (v * v).sum().sqrt()
        return (v.abs() ** p).sum() ** (1.0 / p)
    if p == 2:
        return (v * v).sum(dims, keepdim=True).sqrt()
    return (v.abs() ** p).sum(dims, keepdim=True) ** (1.0 / p)


def _weight_norm(v, g, dim=0):
    """v * (g / norm_except_dim(v, 2, dim)), ATen's _weight_norm."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm(object):
    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same parameter {}".format(name))
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        # the parameter leaves the module: w_g and w_v are the trainable pair from now on
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError("weight_norm of '{}' not found in {}".format(name, module))
