# Residual code: list contents (old[:] = new) and dict contents (clear + update).
import torch

items = [1]
table = {"a": 1}


@torch.compile
def f(x):
    items.append(x + 1)
    table["b"] = x.sum()
    del table["a"]
    return x


f(torch.ones(2))
