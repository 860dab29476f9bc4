# std / var with correction= / unbiased= and tuples of (negative) dims, std_mean / var_mean,
# logsumexp over tuples of dims: values, gradients, float64, errors, compiled
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

for dt in (torch.float32, torch.float64):
    x = (torch.arange(24., dtype=dt).reshape(2, 3, 4) / 3 - 2) ** 2
    print(x.std(), x.var(), x.std(unbiased=False), x.var(0), x.var(-1, keepdim=True))
    print(torch.std(x, (0, 2)), torch.var(x, (-1, -3), correction=0), torch.var(x, dim=1, correction=2))
    print(torch.std(x, dim=(1,), unbiased=False, keepdim=True), x.var(dim=[0, 1], unbiased=True))
    print(torch.var(x, None, correction=0), torch.std(x, None, correction=3), torch.std(x, None, correction=1))
    print(torch.logsumexp(x, (0, 2)), torch.logsumexp(x, -1, keepdim=True), x.logsumexp((1, -1)))
    print(torch.std_mean(x, 1), torch.var_mean(x, (0, 2), correction=0))
    y = x.clone().requires_grad_()
    (torch.std(y, (0, 2)) + torch.var(y, dim=1, correction=0).sum() + torch.logsumexp(y, (1, 2)).sum()[None]).sum().backward()
    show(y.grad)
check(lambda: torch.std(torch.ones(2, 3), dim=(0, 0)))
check(lambda: torch.var(torch.ones(2, 3), dim=3))
check(lambda: torch.var(torch.ones(3, dtype=torch.long)))
print(torch.var(torch.ones(1)), torch.std(torch.ones(1), None, correction=0))

@torch.compile
def f(t):
    return torch.std(t, (0, -1), correction=0) + torch.var(t, 1).sum() + torch.logsumexp(t, (0, 1)).sum()

t = torch.arange(12.).reshape(2, 2, 3).requires_grad_()
o = f(t)
o.sum().backward()
show(o, t.grad)
