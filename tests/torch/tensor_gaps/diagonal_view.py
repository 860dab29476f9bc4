# torch.diagonal / Tensor.diagonal is a view: it shares storage with its base, writes through it
# reach the base, and its backward is DiagonalBackward0.
import torch

a = torch.arange(12.0).reshape(3, 4)
d = a.diagonal()
print(d, d._base is a, d.data_ptr() == a.data_ptr(), d.is_contiguous(), d.stride(), d.storage_offset())
d.mul_(10)
print(a)
d1 = torch.diagonal(a, 1)
print(d1, d1.stride(), d1.storage_offset(), d1.data_ptr() == a.data_ptr() + 4)
d1.fill_(-1)
print(a)
dm = a.diagonal(-1)
print(dm, dm.storage_offset(), dm.stride())
print(a.diagonal(5), a.diagonal(5).shape, a.diagonal(-7).shape)
b = torch.arange(24.0).reshape(2, 3, 4)
v = b.diagonal(0, 1, 2)
print(v, v.shape, v.stride(), v._base is b)
v2 = torch.diagonal(b, offset=1, dim1=-1, dim2=0)
print(v2, v2.shape, v2.stride(), v2.storage_offset())
v2[...] = 0
print(b)
t = a.t().diagonal()
print(t, t.stride())
print(torch.diagonal(a, 0, 1, 0))
# version counter shared with the base
x = torch.zeros(3, 3)
dx = x.diagonal()
print(x._version, dx._version)
dx.add_(1)
print(x._version, dx._version, x)

# autograd: DiagonalBackward0, and in-place writes through the view rebase the graph
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = w.diagonal(1)
print(y, y.grad_fn.name())
(y * torch.tensor([2.0, 3.0])).sum().backward()
print(w.grad)
w2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
c = w2 * 1
c.diagonal().mul_(3)
print(c.grad_fn.name())
c.sum().backward()
print(w2.grad)
# second derivative through the view
w3 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradgradcheck(lambda t: t.diagonal().pow(3), (w3,)))
print(torch.autograd.gradcheck(lambda t: torch.diagonal(t, -1, 0, 1), (w3,)))
print(torch.diag(a), torch.diag(a)._base is None, torch.trace(a))
try:
    a.diagonal(0, 1, 1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    a.diagonal(0, 0, 2)
except IndexError as e:
    print("IndexError", e)
