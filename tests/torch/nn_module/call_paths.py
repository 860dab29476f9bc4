# m(x) with no hooks calls type(m).forward directly when it is a plain function, no custom
# __getattribute__ and no instance attribute "forward" (src/torch/module_call.c); every other
# case takes the general path.  Both, and the switches between them, must behave as PyTorch.
import functools

import torch
import torch.nn as nn


class Double(nn.Module):
    def forward(self, x, scale=2.0):
        return x * scale


class Neg(nn.Module):
    def forward(self, x):
        return -x


x = torch.tensor([1.0, -2.0])
d, n = Double(), Neg()
for i in range(2):   # two module types in turn
    print(d(x), n(x))
print(d(x, scale=3.0), d(x=x), d(x, 0.5))

# an instance attribute named forward shadows the method, until deleted
d.forward = lambda x: x + 100
print(d(x))
del d.forward
print(d(x))
d.other = 1          # a non-empty __dict__ without forward
print(d(x))


# the class's forward replaced after calls
def triple(self, x):
    return x * 3


Double.forward = triple
print(d(x))


# forwards that are not plain functions
class Static(nn.Module):
    forward = staticmethod(lambda x: x - 1)


class Scaler:
    def __call__(self, x):
        return x * 10


class WithCallable(nn.Module):
    forward = Scaler()


class WithPartial(nn.Module):
    def __init__(self):
        super().__init__()
        self.forward = functools.partial(torch.add, other=5.0)


print(Static()(x), WithCallable()(x), WithPartial()(x))


# a custom __getattribute__ sees the lookup of forward
class Logged(nn.Module):
    def __getattribute__(self, name):
        if name == "forward":
            print("lookup forward")
        return super().__getattribute__(name)

    def forward(self, x):
        return x + 1


print(Logged()(x))


# a subclass inherits its base's forward
class Neg2(Neg):
    pass


print(Neg2()(x))


# errors from forward and from binding its arguments propagate unchanged
class Bad(nn.Module):
    def forward(self, x):
        raise ValueError("bad forward")


try:
    Bad()(x)
except ValueError as e:
    print("ValueError", e)
try:
    n(x, x)
except TypeError as e:
    print("TypeError", e)
try:
    n(y=x)
except TypeError as e:
    print("TypeError", e)

# a hook registered after fast calls runs; removed, the fast path resumes
h = n.register_forward_hook(lambda m, a, o: o * 0)
print(n(x))
h.remove()
print(n(x))
