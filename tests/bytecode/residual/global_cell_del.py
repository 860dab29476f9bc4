# Residual code: STORE_GLOBAL, a closure cell store (STORE_DEREF) and DELETE_ATTR.
import torch

steps = 0


class Box:
    pass


box = Box()
box.tmp = 1


def make():
    seen = 0

    @torch.compile
    def g(x):
        global steps
        nonlocal seen
        steps += 1
        seen = seen + 1
        del box.tmp
        return x * 3

    return g


make()(torch.ones(2))
