# In-place view ops (unsqueeze_, squeeze_, t_, transpose_, swapaxes_, swapdims_) and resize_ /
# resize_as_: geometry, aliasing with views, the leaf error, history and grad_fn names when the
# tensor requires grad; all were missing
import torch
torch.manual_seed(0)
a = torch.randn(3, requires_grad=True)
for f in [lambda: a.unsqueeze_(0), lambda: a.t_(), lambda: a.squeeze_()]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
b = a * 2
print(b.unsqueeze_(0), b.shape)
b.sum().backward(); print(a.grad)
c = torch.arange(6.).view(2, 3)
print(c.t_(), c.is_contiguous(), c.transpose_(0, 1), c.unsqueeze_(1).shape, c.squeeze_(1).shape, c.squeeze_().shape, c.swapaxes_(0, 1).shape, c.swapdims_(0, 1).shape)
d = torch.zeros(2, 3)
v = d[0]
v.unsqueeze_(0); v.fill_(1); print(d, v.shape)
e = torch.arange(4.)
print(e.resize_(2, 2), e.resize_(5).shape, e.resize_as_(torch.zeros(1, 2)))
print(torch.zeros(2, 1, 3).squeeze_(1).shape, torch.zeros(1, 3).t_().shape)
try:
    torch.zeros(2, 3, 4).t_()
except Exception as ex:
    print(type(ex).__name__, ex)
a = torch.randn(2, 3, requires_grad=True)
for name, f in [("unsqueeze_", lambda b: b.unsqueeze_(0)), ("squeeze_", lambda b: b.unsqueeze(1).squeeze_()), ("squeeze_dim", lambda b: b.unsqueeze(1).squeeze_(1)),
                ("t_", lambda b: b.t_()), ("transpose_", lambda b: b.transpose_(0, 1)), ("swapaxes_", lambda b: b.swapaxes_(0, 1)), ("swapdims_", lambda b: b.swapdims_(0, 1))]:
    b = a * 2
    r = f(b)
    print(name, type(r.grad_fn).__name__, r.shape, r._version)
x = torch.randn(3, 4, requires_grad=True)
y = x * 3
v = y[1:]
v.t_()
print(v.shape, v.grad_fn.name(), v._base is y)
(v * torch.arange(8.).view(4, 2)).sum().backward()
print(x.grad)
