# Residual code: list contents (old[:] = new for a list the region reads; old.extend(new) for
# one it only appends to, so its length is not guarded) and dict contents (clear + update).
import torch

items = [1]
log = [5]
table = {"a": 1}


@torch.compile
def f(x):
    items.append(x + 1)
    log.insert(0, len(log))
    table["b"] = x.sum()
    del table["a"]
    return x


f(torch.ones(2))
