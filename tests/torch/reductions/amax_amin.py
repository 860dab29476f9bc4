# amax / amin: the extremum over dims (a tuple, one int, or none: all), their backward splits a
# tied extremum's gradient evenly among the ties (PyTorch: grad / count); max / min with a dim give
# it all to the index they return.  Also under torch.compile (both backends).
import torch

x = torch.tensor([[0.13, 0.68, 0.68], [0.5, 0.5, -1.0]], requires_grad=True)
x.amax(dim=1).sum().backward()
print(x.grad)
x.grad = None
x.amax().backward()
print(x.grad)
x.grad = None
x.amin(dim=0).sum().backward()
print(x.grad)
x.grad = None
torch.amin(x, (0, 1)).backward()
print(x.grad)
x.grad = None

y = torch.tensor([[[1.0, 3.0], [3.0, 2.0]], [[0.0, 0.0], [-1.0, 0.0]]], requires_grad=True)
a = y.amax(dim=(1, 2), keepdim=True)
print(a, a.grad_fn.name())
(a * torch.tensor([[[2.0]], [[3.0]]])).sum().backward()
print(y.grad)
y.grad = None
b = torch.amin(y, dim=-1)
print(b, b.grad_fn.name())
b.sum().backward()
print(y.grad)
y.grad = None
v, i = y.max(dim=2)
v.sum().backward()
print(v, i, y.grad)

print(torch.tensor([[3, 1], [3, 5]]).amax(0), torch.tensor([True, False]).amin())
print(torch.zeros(0, 3).amax(1))
for f in (lambda: torch.zeros(0, 3).amax(), lambda: torch.zeros(0, 3).amin(0),
          lambda: torch.zeros(2, 3).amax(2), lambda: torch.zeros(2).amax((0, 0))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)


@torch.compile
def f(t):
    return (t.amax(-1) * 2 + t.amin(0).sum()).sum()


z = torch.tensor([[2.0, 2.0, 1.0], [0.5, 4.0, 4.0]], requires_grad=True)
print(f(z).detach())
f(z).backward()
print(z.grad)
