# Residual code: attribute stores on an existing object and an int counter (symbolic).
import torch


class State:
    pass


s = State()
s.count = 0


@torch.compile
def f(x):
    s.count += 1
    s.last = x * 2
    return s.last + s.count


f(torch.ones(2))
