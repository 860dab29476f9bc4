# In-place scatter forms record their own autograd node (ScatterBackward0, ScatterAddBackward0,
# ...), as PyTorch's in-place ops do, not a copy_.
import warnings

import torch

warnings.filterwarnings("ignore")

idx = torch.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
src = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], requires_grad=True)

base = torch.zeros(3, 4, requires_grad=True)
y = base * 1
y.scatter_(0, idx, src)
print(y, y.grad_fn.name())
y.pow(2).sum().backward()
print(base.grad, src.grad)

base.grad = None
src.grad = None
y = base * 1
y.scatter_add_(0, idx, src)
print(y, y.grad_fn.name())
y.pow(2).sum().backward()
print(base.grad, src.grad)

for reduce in ("sum", "prod", "mean", "amax", "amin"):
    for include_self in (True, False):
        b = torch.full((3, 4), 2.0, requires_grad=True)
        s = src.detach().clone().requires_grad_(True)
        y = b * 1
        r = y.scatter_reduce_(0, idx, s, reduce, include_self=include_self)
        print(reduce, include_self, r is y, y.grad_fn.name())
        print(y)
        y.sum().backward()
        print(b.grad, s.grad)

b = torch.ones(5, 3, requires_grad=True)
y = b * 2
t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y.index_add_(0, torch.tensor([4, 1]), t, alpha=2)
print(y, y.grad_fn.name())
(y * y).sum().backward()
print(b.grad, t.grad)

b = torch.zeros(2, 3, requires_grad=True)
y = b + 1
m = torch.tensor([[True, False, True], [False, True, False]])
s = torch.arange(6.0, requires_grad=True)
y.masked_scatter_(m, s)
print(y, y.grad_fn.name())
(y * torch.arange(6.0).reshape(2, 3)).sum().backward()
print(b.grad, s.grad)

# the version counter moves and the result is self
x = torch.zeros(3)
v = x._version
r = x.scatter_add_(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]))
print(r is x, x._version - v, x)
# out-of-place forms keep their own nodes
print(torch.scatter(base, 0, idx, src).grad_fn.name(), torch.scatter_add(base, 0, idx, src).grad_fn.name())
