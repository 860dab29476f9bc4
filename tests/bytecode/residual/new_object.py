# Residual code: an object made in the region escapes (object.__new__ + replayed stores).
import torch


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


@torch.compile
def f(t):
    return Point(t * 2, t.sum())


f(torch.ones(2))
