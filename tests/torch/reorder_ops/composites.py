# Composite ops: outer, hstack/vstack, nan_to_num, isclose, lerp, logspace, diag/diagonal/trace,
# baddbmm, repeat_interleave, tensordot, F.one_hot, F.pad (all modes); values and gradients.
import torch
import torch.nn.functional as F

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([0.5, -1.0])
print(torch.outer(a, b), torch.ger(b, a))
print(torch.hstack([a, a]), torch.vstack([a, a]), torch.hstack([a.reshape(3, 1), a.reshape(3, 1)]), torch.vstack([a, torch.tensor(1.0).expand(3)]))
x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), -2.5])
print(torch.nan_to_num(x), torch.nan_to_num(x, nan=0.5, posinf=9.0, neginf=-9.0), torch.nan_to_num(x.double()))
print(torch.isclose(torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1.0 + 1e-9, 2.1, float("nan")])),
      torch.isclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True),
      torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])))
print(torch.lerp(a, torch.tensor([3.0, 3.0, 3.0]), 0.25), torch.lerp(a, torch.tensor([3.0, 3.0, 3.0]), 0.75),
      torch.lerp(a, torch.zeros(3), torch.tensor([0.1, 0.5, 0.9])))
print(torch.logspace(0, 2, 3), torch.logspace(-1, 1, 5, base=2.0), torch.logspace(0, 1, 4, dtype=torch.float64))
m = torch.arange(12.0).reshape(3, 4)
print(torch.diag(a), torch.diag(a, 1), torch.diag(m), torch.diag(m, -1), torch.diagonal(m, 1), torch.trace(m))
print(torch.diagonal(torch.arange(24.0).reshape(2, 3, 4), 0, 1, 2), torch.diagonal(torch.arange(24.0).reshape(2, 3, 4), 1, -1, 0))
b1 = torch.arange(12.0).reshape(2, 2, 3) / 4
b2 = torch.arange(18.0).reshape(2, 3, 3) / 5
print(torch.baddbmm(torch.ones(2, 2, 3), b1, b2), torch.baddbmm(torch.ones(2, 2, 3), b1, b2, beta=0.5, alpha=2))
print(torch.repeat_interleave(torch.tensor([1, 2, 3]), 2), torch.repeat_interleave(m, 2, dim=0).shape,
      torch.repeat_interleave(m, torch.tensor([1, 0, 2]), dim=0), torch.repeat_interleave(torch.tensor([2, 1])))
print(torch.tensordot(m, m.t(), dims=1), torch.tensordot(b1, b2, dims=([2], [1])), torch.tensordot(m, m, dims=2))
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[1], [3]]), 5))
for f in [lambda: F.one_hot(torch.tensor([0.0])), lambda: F.one_hot(torch.tensor([-1])), lambda: F.one_hot(torch.tensor([4]), 3),
          lambda: torch.outer(m, a), lambda: torch.trace(a)]:
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError", e)
p = torch.arange(6.0).reshape(1, 2, 3)
print(F.pad(p, (1, 2)), F.pad(p, (1, 1, 1, 0), value=-1.0), F.pad(p, (2, 1), mode="reflect"),
      F.pad(p, (2, 1), mode="replicate"), F.pad(p, (1, 2), mode="circular"), F.pad(p, (-1, 1)))
w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [3.0, 1.0, 0.75]], requires_grad=True)
v = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = torch.outer(v, v).sum() + torch.trace(w @ w) + torch.diag(v).pow(2).sum() + F.pad(w, (1, 1), mode="reflect").pow(2).sum()
y = y + torch.lerp(v, w[0], 0.3).sum() + torch.tensordot(w, w, dims=1).sum() + torch.nan_to_num(w.log()).sum()
y.backward()
print(w.grad, v.grad)
try:
    torch.tensordot(b1, b2, dims=([1, 2], [2, 1]))
except RuntimeError as e:
    print("RuntimeError", e)
