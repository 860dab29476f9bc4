# tril/triu, roll, flip, sort/argsort, topk, cumsum: forward over dtypes, negative dims, errors,
# and their backward (grad_fn names and gradients).
import torch

m = torch.arange(1.0, 13.0).reshape(3, 4)
print(torch.tril(m), m.triu(), m.tril(1), m.triu(-1), torch.triu(m, diagonal=2))
print(torch.tril(torch.ones(2, 3, 3, dtype=torch.int64)), torch.ones(2, 2, dtype=torch.bool).triu(1))
x = torch.arange(10).reshape(2, 5)
print(torch.roll(x, 1), x.roll(-2, 1), torch.roll(x, (1, 2), (0, 1)), x.roll(shifts=3, dims=-1))
print(torch.flip(x, [0]), x.flip(1), x.flip(0, 1), torch.flip(m, dims=(-1,)))
v = torch.tensor([[3.0, -1.0, 2.5, 0.0], [1.0, 4.0, -2.0, 7.5]])
s = torch.sort(v)
print(s.values, s.indices)
print(v.sort(dim=0, descending=True), torch.sort(v, -1, True)[1])
print(torch.argsort(v), v.argsort(dim=0, descending=True), torch.tensor([3, 1, 2]).sort())
print(torch.tensor([2.0, float("nan"), -1.0, 5.0]).sort(), torch.tensor([2.0, float("nan"), -1.0]).sort(descending=True))
t = torch.topk(v, 2)
print(t.values, t.indices, v.topk(1, dim=0), v.topk(3, largest=False), torch.topk(torch.tensor([5, 1, 9, 3]), 2))
print(torch.cumsum(v, 1), v.cumsum(0), torch.tensor([1, 2, 3]).cumsum(0), torch.tensor([True, True, False]).cumsum(0))
print(v.cumsum(-1, dtype=torch.float64), torch.cumsum(torch.tensor([1, 2], dtype=torch.int8), 0).dtype)
for f in [lambda: torch.tril(torch.ones(3)), lambda: v.topk(5), lambda: v.roll(1, (0, 1)), lambda: v.flip(0, 0),
          lambda: v.sort(dim=2), lambda: v.cumsum(3)]:
    try:
        f()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
w = torch.tensor([[0.5, -1.5, 2.0], [3.0, 0.25, -0.75]], requires_grad=True)
y = (w.tril() * 2).sum() + (w.triu(1) ** 2).sum() + (w.roll(1, 1) * torch.arange(6.0).reshape(2, 3)).sum()
y = y + (w.flip(0) * torch.tensor([1.0, 2.0, 3.0])).sum() + w.cumsum(1).pow(2).sum()
vals, idx = w.sort(dim=1, descending=True)
y = y + (vals * torch.tensor([1.0, 10.0, 100.0])).sum() + w.topk(2, dim=0).values.sum() * 3
y.backward()
print(w.grad)
print(w.tril().grad_fn.name(), w.roll(1).grad_fn.name(), w.flip(0).grad_fn.name(), w.sort()[0].grad_fn.name(),
      w.topk(1)[0].grad_fn.name(), w.cumsum(0).grad_fn.name())
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda a: (a.tril(), a.roll(1, 0), a.flip(1), a.sort(0)[0], a.topk(1)[0], a.cumsum(1)), (d,)))
try:
    torch.tril(torch.tensor(1.0))
except IndexError as e:
    print("IndexError", e)
