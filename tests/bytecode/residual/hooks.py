# Residual code: a hook on an input is registered by residual code, its handle stored in the
# user's variable.
import torch


def hook(g):
    return g * 2


@torch.compile
def f(x):
    h = x.register_hook(hook)
    return (x * x).sum(), h


x = torch.ones(2, requires_grad=True)
f(x)
