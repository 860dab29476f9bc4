# Tensor attributes: shape, size(), dim(), numel(), dtype, requires_grad, grad, grad_fn, is_leaf,
# data, ndim, T, device, _version, output_nr.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x.shape, type(x.shape).__name__, x.shape == (2, 3), x.shape[1], len(x.shape))
print(x.size(), x.size(0), x.size(1), x.size(-1), x.size(dim=0))
print(x.dim(), x.ndim, x.numel(), x.nelement(), x.ndimension())
print(x.dtype, x.device, x.is_leaf, x.requires_grad, x.grad, x.grad_fn)
print(x.T.shape, x.t().shape, x.T.tolist())
print(torch.Size([2, 3]), torch.Size([2, 3]).numel(), list(torch.Size([4])))
a, b = x.shape
print(a, b, tuple(x.shape), x.shape + (7,), x.shape[1:], x.shape[:1] + x.shape[1:], (5,) + x.shape)
s = torch.tensor(3.5)
print(s.shape, s.dim(), s.numel(), s.size(), s.item())
e = torch.tensor([])
print(e.shape, e.numel(), e.dtype)

w = torch.tensor([1.0, 2.0], requires_grad=True)
print(w.requires_grad, w.is_leaf, w.grad_fn, w.output_nr)
y = w * 2
print(y.requires_grad, y.is_leaf, y.grad_fn.name(), y.output_nr)
print(y.data.requires_grad, y.data.is_leaf, y.data.tolist())
w.data.mul_(3)
print(w.tolist(), w.requires_grad)

v = torch.zeros(3)
print(v._version)
v.add_(1)
v.mul_(2)
print(v._version, v.tolist())
v[0] = 5
print(v._version, v.tolist())

g = torch.tensor([1.0, 1.0])
w.grad = g
print(w.grad is g, w.grad.tolist())
w.grad = None
print(w.grad)
w.requires_grad = False
print(w.requires_grad)
w.requires_grad_()
print(w.requires_grad)
w.requires_grad_(False)
print(w.requires_grad)
r = torch.ones(2).requires_grad_()
print(r.requires_grad, r.is_leaf)
