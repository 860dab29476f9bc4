# lgamma / special.gammaln, digamma / psi, polygamma, xlogy (tensor and scalar forms): values,
# gradients, integer inputs, errors
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

for dt in (torch.float32, torch.float64):
    x = torch.tensor([0.25, 0.5, 1., 2.5, 7., 12.5, 30.], dtype=dt, requires_grad=True)
    show(torch.lgamma(x), torch.special.gammaln(x))
    show(torch.digamma(x), torch.special.digamma(x), torch.special.psi(x))
    show(torch.polygamma(1, x), torch.polygamma(2, x), torch.special.polygamma(3, x), x.polygamma(1))
    torch.lgamma(x).sum().backward()
    show(x.grad)
    x.grad = None
    torch.digamma(x).sum().backward()
    show(x.grad)
    x.grad = None
    torch.polygamma(2, x).sum().backward()
    show(x.grad)
    neg = torch.tensor([-0.5, -1., -2.5, 0., -0.], dtype=dt)
    show(torch.lgamma(neg), torch.digamma(neg), torch.polygamma(1, neg))
    a = torch.tensor([0., 1., 2., 0., -1.], dtype=dt, requires_grad=True)
    b = torch.tensor([0., 3., 0.5, float('nan'), 2.], dtype=dt, requires_grad=True)
    r = torch.xlogy(a, b)
    show(r)
    torch.xlogy(a, b.abs() + 1).sum().backward()
    show(a.grad, b.grad)

print(torch.lgamma(torch.tensor([1, 2, 5])), torch.digamma(torch.tensor([1, 2])))
print(torch.xlogy(2, torch.tensor([3., 1.])), torch.xlogy(torch.tensor([2., 0.]), 3))
print(torch.special.xlogy(torch.tensor([2, 0]), 3.5), torch.xlogy(torch.tensor([1, 2]), torch.tensor([3, 4])))
print(torch.tensor([2., 3.]).xlogy(torch.tensor([4., 5.])), torch.tensor([1., 2.], dtype=torch.float64).xlogy(2.5))
t = torch.tensor([1., 2.])
t.xlogy_(torch.tensor([2., 3.]))
print(t)
u = torch.tensor([0.5, 1.5])
u.lgamma_()
print(u)
check(lambda: torch.polygamma(-1, torch.ones(2)))
check(lambda: torch.lgamma(torch.ones(2, dtype=torch.half)))
check(lambda: torch.xlogy(torch.ones(2), torch.ones(3)))

@torch.compile
def f(x, y):
    return torch.lgamma(x) + torch.digamma(x) * torch.polygamma(1, x) + torch.xlogy(y, x) + torch.special.xlogy(y, 2.0)

x = torch.tensor([0.5, 1.5, 3.], requires_grad=True)
y = torch.tensor([0., 1., 2.], requires_grad=True)
r = f(x, y)
r.sum().backward()
show(r, x.grad, y.grad)
