# cumprod (zeros in the backward), cummax / cummin, logcumsumexp: forward, backward, dims, dtypes
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

for dt in (torch.float32, torch.float64):
    x = torch.tensor([[1.5, 2., 0., 3.], [0.5, -1., 2., 4.], [0., 0., 2., -3.]], dtype=dt, requires_grad=True)
    y = torch.cumprod(x, 1)
    show(y, y.dtype)
    (y * torch.arange(1., 5., dtype=dt)).sum().backward()
    show(x.grad)
    x.grad = None
    z = x.cumprod(dim=-2)
    z.sum().backward()
    show(z, x.grad)
    x.grad = None
    v, i = torch.cummax(x, 1)
    show(v, i)
    (v * 2).sum().backward()
    show(x.grad)
    x.grad = None
    r = x.cummin(0)
    show(r.values, r.indices)
    r.values.sum().backward()
    show(x.grad)
    x.grad = None
    l = torch.logcumsumexp(x, -1)
    show(l)
    (l * torch.tensor([1., -2., 0.5, 3.], dtype=dt)).sum().backward()
    show(x.grad)

print(torch.cummax(torch.tensor([1., 3., 3., 2., float('nan'), 5.]), 0))
print(torch.cummin(torch.tensor([2, 1, 1, 3]), 0))
print(torch.cummax(torch.tensor([True, False, True]), 0))
print(torch.cumprod(torch.tensor([1, 2, 3], dtype=torch.int32), 0))
print(torch.cumprod(torch.tensor([1., 2., 3.]), 0, dtype=torch.float64))
print(torch.cumprod(torch.tensor(3.), 0), torch.logcumsumexp(torch.tensor(2.), -1))
print(torch.logcumsumexp(torch.tensor([-float('inf'), 0., float('inf'), 1.]), 0))
print(torch.logcumsumexp(torch.tensor([-200., -100., 0.]), 0))
check(lambda: torch.cumprod(torch.ones(2, 3), 2))
check(lambda: torch.cummax(torch.ones(2, 3), -3))
check(lambda: torch.logcumsumexp(torch.ones(2, dtype=torch.long), 0))

@torch.compile
def f(x):
    return torch.cumprod(x, 0) + torch.cummax(x, 0)[0] - torch.logcumsumexp(x, 0) * torch.cummin(x, 0).values

a = torch.tensor([0.5, -2., 0., 3.], requires_grad=True)
r = f(a)
r.sum().backward()
show(r, a.grad)
