# the rest of issue 16's math list: clamp with tensor bounds, lerp with a tensor weight, sign,
# floor_divide, remainder, linspace / logspace edge cases, tensordot, outer, bmm, baddbmm, addmm,
# trace, diag, diagonal: values, gradients, float64, errors, compiled
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

for dt in (torch.float32, torch.float64):
    x = torch.tensor([-3., -0.5, 0., 0.5, 2., 7.], dtype=dt, requires_grad=True)
    lo = torch.tensor([-1., 0., 0.5, -2., 3., 0.], dtype=dt, requires_grad=True)
    hi = torch.tensor(1.5, dtype=dt, requires_grad=True)
    c = torch.clamp(x, lo, hi)
    show(c, torch.clamp(x, min=lo), torch.clamp(x, max=lo), x.clamp(lo, hi), torch.clip(x, lo, hi))
    c.sum().backward()
    show(x.grad, lo.grad, hi.grad)
    w = torch.tensor([0., 0.25, 0.5, 0.75, 1., 2.], dtype=dt, requires_grad=True)
    e = torch.ones(6, dtype=dt, requires_grad=True)
    for p in (x, e):
        p.grad = None
    l = torch.lerp(x, e, w)
    show(l, x.lerp(e, 0.3), torch.lerp(x, e, torch.tensor(0.6, dtype=dt)))
    (l * torch.arange(6., dtype=dt)).sum().backward()
    show(x.grad, e.grad, w.grad)
    print(torch.sign(torch.tensor([-2., 0., -0., 3., float('nan')], dtype=dt)), torch.sign(torch.tensor([-2, 0, 5])), torch.sign(torch.tensor([True, False])))
    a = torch.tensor([7., -7., 7.5, -7.5, 0., 5.], dtype=dt)
    b = torch.tensor([2., 2., -2., -2., 3., 0.], dtype=dt)
    print(torch.floor_divide(a, b), a // 2, torch.remainder(a, b), a % -3, torch.fmod(a, 2.5), 5 % b[:5])
    m1 = torch.arange(6., dtype=dt).reshape(2, 3)
    m2 = torch.arange(12., dtype=dt).reshape(3, 4) / 5
    print(torch.tensordot(m1, m2, 1), torch.tensordot(m1, m2.t(), ([1], [1])), torch.tensordot(m1, m1, dims=2))
    print(torch.outer(m1[0], m2[0]), torch.bmm(m1[None], m2[None]), torch.baddbmm(torch.ones(1, 2, 4, dtype=dt), m1[None], m2[None], beta=0.5, alpha=2))
    print(torch.addmm(torch.ones(4, dtype=dt), m1, m2, beta=2, alpha=0.5), torch.trace(m2[:, :3]), torch.diag(m1), torch.diag(m1[0], 1), torch.diag(m1, -1))
    print(torch.diagonal(m2, 1), torch.diagonal(torch.arange(24., dtype=dt).reshape(2, 3, 4), 0, -1, 0), m2.diagonal(offset=-1))
print(torch.floor_divide(torch.tensor([7, -7, 0]), torch.tensor([2, 2, -3])), torch.remainder(torch.tensor([7, -7]), 3), torch.tensor([5, -5]) % torch.tensor([-3, 3]))
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 1), torch.linspace(0, 1, 0), torch.linspace(3, -1, 4, dtype=torch.float64))
print(torch.linspace(0, 10, 6, dtype=torch.int64), torch.linspace(1, 2, 3).dtype, torch.linspace(0., 1., 7)[3])
print(torch.logspace(0, 2, 3), torch.logspace(0, 1, 0), torch.logspace(-1, 1, 3, base=2), torch.logspace(0, 3, 4, dtype=torch.float64), torch.logspace(2, 2, 1))
check(lambda: torch.linspace(0, 1, -1))
check(lambda: torch.clamp(torch.ones(3)))
check(lambda: torch.floor_divide(torch.ones(2, dtype=torch.long), torch.zeros(2, dtype=torch.long)))
check(lambda: torch.remainder(torch.ones(2, dtype=torch.long), 0))
check(lambda: torch.lerp(torch.ones(2), torch.ones(2), torch.ones(2, dtype=torch.float64)))
check(lambda: torch.trace(torch.ones(2, 3, 4)))
check(lambda: torch.tensordot(torch.ones(2, 3), torch.ones(4, 5), 1))

@torch.compile
def f(x, lo, w):
    return torch.clamp(x, lo, lo + 1.5) + torch.lerp(x, lo, w) + torch.sign(x) + torch.remainder(x, 0.7) + torch.floor_divide(x.detach(), 0.3)

x = torch.tensor([-2., 0.3, 1.7], requires_grad=True)
lo = torch.tensor([-1., 0.5, 0.], requires_grad=True)
w = torch.tensor([0.2, 0.9, 0.5], requires_grad=True)
o = f(x, lo, w)
o.sum().backward()
show(o, x.grad, lo.grad, w.grad)
