# nll_loss / cross_entropy gradients in float64 keep float64 precision: the 1/N (and weight)
# factor of the mean reduction is float64, not a float32 value widened (12 digits printed: a
# float32 1/3 shows as 0.333333343267)
import torch
import torch.nn.functional as F

d = torch.float64
x = torch.tensor([[0.2, -1.1, 0.7, 0.4], [1.3, 0.5, -0.6, 0.1], [-0.3, 0.9, 0.8, -1.4]], dtype=d, requires_grad=True)
t = torch.tensor([1, 3, 0])
w = torch.tensor([0.3, 1.7, 0.9, 1.1], dtype=d)


def show(g):
    print([[round(v, 12) for v in row] for row in g.tolist()])


F.nll_loss(x, t).backward()
print(x.grad.dtype)
show(x.grad)
x.grad = None
F.nll_loss(x, t, weight=w).backward()
show(x.grad)
x.grad = None
F.cross_entropy(x, t).backward()
show(x.grad)
x.grad = None
F.cross_entropy(x, t, weight=w, ignore_index=3).backward()
show(x.grad)
x.grad = None
F.nll_loss(x, t, reduction="sum").backward()
show(x.grad)
print(torch.autograd.gradcheck(lambda a: F.cross_entropy(a, t, weight=w), (x,)))
