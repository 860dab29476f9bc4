# What a Proxy records: torch functions (__torch_function__), torch.nn.functional functions with
# their keyword arguments, tensor methods and attributes, operators with constants on either
# side, a module buffer on the left of an operator (a call_method of Tensor.add), indexing with
# slices and Ellipsis, a tensor constant made in forward; tracing plain functions, fx.wrap'd leaf
# functions, defaults of forward's parameters.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class Ops(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.tensor([1.0, -1.0, 2.0]))
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        w = torch.tensor([0.5, 0.5, 0.5]) * x
        a = self.buf + x
        b = x - self.buf
        c = F.relu(a) + torch.cat([a, b], dim=0).sum(0)
        d = F.softmax(c, dim=-1) * 2 - 1
        e = d[..., 0:2] / 3
        f = torch.flatten(e.unsqueeze(0), 1).T
        g = self.lin(self.lin(x))
        h = 1 - g ** 2
        k = (-h).abs().mean(dim=0, keepdim=True)
        return f, g.size(), x.shape[-1] * 2, k, 2 * x[:, 1], w


m = Ops()
with torch.no_grad():
    m.lin.weight.copy_(torch.arange(9, dtype=torch.float32).reshape(3, 3) * 0.1 - 0.4)
    m.lin.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
gm = torch.fx.symbolic_trace(m)
print(gm.code)
print(gm.graph)
x = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
for got, want in zip(gm(x), m(x)):
    print(r(got) if isinstance(got, torch.Tensor) else got, r(want) if isinstance(want, torch.Tensor) else want)
print(sorted(k for k in gm.state_dict()))


def fn(x, y):
    return torch.sigmoid(x) * y + 1.5


gm = torch.fx.symbolic_trace(fn)
print(gm.code)
print(type(gm).__name__, r(gm(torch.tensor([0.0, 1.0]), torch.tensor([2.0, 3.0]))))


@torch.fx.wrap
def my_helper(a, b):
    return a * 2 + b


def uses_helper(x):
    return my_helper(x, x).relu()


gm = torch.fx.symbolic_trace(uses_helper)
print(gm.code)
print(gm.graph)
print(r(gm(torch.tensor([1.0, -2.0]))))


class Defaults(nn.Module):
    def forward(self, x, scale=2.0, shift=None):
        return x * scale


gm = torch.fx.symbolic_trace(Defaults())
print(gm.code)
print(r(gm(torch.ones(2))), r(gm(torch.ones(2), 3.0)))
