# The decomposed functions as Tensor methods, eagerly and inside a compiled function.
import torch

a = torch.tensor([1.0, 2.0, 3.0])
m = torch.arange(9.0).reshape(3, 3)
x = torch.tensor([1.0, float("nan"), float("inf")])
print(a.outer(a), a.ger(a[:2]), x.nan_to_num(), x.nan_to_num(nan=2.0), a.isclose(a + 1e-9))
print(a.lerp(torch.zeros(3), 0.5), m.diagonal(), m.diagonal(1), a.diag(), m.diag(-1), m.trace())
print(m[None].baddbmm(m[None], m[None], alpha=0.5), a.repeat_interleave(2), m.repeat_interleave(torch.tensor([1, 2, 0]), dim=1))


def f(v, w):
    return v.outer(v) + w.diagonal().sum() + w.trace() + v.lerp(w[0], 0.25).sum() + v.nan_to_num().diag()


print(torch.compile(f)(a, m))
