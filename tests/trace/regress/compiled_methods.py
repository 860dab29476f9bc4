# Regression: @torch.compile on a method did not bind self (issue 14, defect 6): the attribute
# lookup honoured __get__ only on script classes, so A().f(x) called f(x) with x as self, and
# `@torch.compile def forward(self, x)` in a Module raised TypeError.  A compiled function
# called from a compiled region is inlined into it, bound or not.
import torch


class A:
    def __init__(self, k):
        self.k = k

    @torch.compile
    def scale(self, x):
        return x * self.k

    @torch.compile
    def twice(self, x):
        return self.scale(x) + self.scale(x)

    @staticmethod
    @torch.compile
    def shift(x):
        return x + 1


a = A(3.0)
x = torch.tensor([1.0, 2.0])
print(a.scale(x).tolist(), A.scale(a, x).tolist(), a.twice(x).tolist(), A.shift(x).tolist(), a.shift(x).tolist())
bound = a.scale
print(type(bound).__name__, bound(x).tolist())


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        with torch.no_grad():
            self.lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, -4.0]]))
            self.lin.bias.zero_()

    @torch.compile
    def forward(self, x):
        return self.lin(x).relu()


m = M()
out = m(torch.ones(1, 2))
out.sum().backward()
print(out.tolist(), m.lin.weight.grad.tolist())


@torch.compile
def inner(x):
    return x.sin()


def outer(obj, x):
    return inner(x) * obj.scale(x)


print([round(v, 4) for v in torch.compile(outer)(a, x).tolist()])
