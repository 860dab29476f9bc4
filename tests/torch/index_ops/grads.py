# Gradients of the indexing / data-movement ops: values of x.grad after backward (float32), and
# torch.autograd.gradcheck / gradgradcheck on float64 inputs (finite differences, as PyTorch
# runs them) for scatter, scatter_reduce (every reduction, include_self both ways), kthvalue,
# index_copy, index_fill, masked_scatter, take_along_dim, take, unfold, tensor_split, meshgrid,
# gather, scatter_add, index_add, index_select.
import torch
from torch.autograd import gradcheck, gradgradcheck

# scatter_reduce's beta warning (TORCH_WARN_ONCE) fires here, outside the compiled functions
torch.zeros(1).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "sum")

idx = torch.tensor([[0, 0, 3, 3, 1], [2, 2, 2, 1, 0]])


def loss_scatter(x, s):
    return (x.scatter(1, idx[:, :4].flip(1) % 4, s[:, :4]) * torch.arange(8.).reshape(2, 4)).sum()


def loss_reduce(x, s, red, inc):
    return (x.scatter_reduce(1, idx, s, red, include_self=inc) * torch.arange(1., 9.).reshape(2, 4)).sum()


def loss_moves(x):
    a = x.kthvalue(2, 1).values.sum() + x.kthvalue(1, 0, keepdim=True).values.sum() * 2
    b = (x.index_copy(1, torch.tensor([3, 0]), x[:, 1:3] * 3) ** 2).sum()
    c = (x.index_fill(0, torch.tensor([1]), 0.5) * x).sum()
    d = (x.masked_scatter(x > 0, x.flip(0) * 2) ** 2).sum()
    e = torch.take_along_dim(x, torch.tensor([[1], [0]]), 1).sum() + torch.take(x, torch.tensor([7, 0, 7])).sum()
    f = (x.unfold(1, 2, 1) * torch.arange(6.).reshape(2, 3, 1)).sum()
    g = sum((t * (i + 1)).sum() for i, t in enumerate(torch.tensor_split(x, 3, dim=1)))
    gx, gy = torch.meshgrid(x[0], x[1], indexing="xy")
    h = (gx * gy).sum()
    return a + b + c + d + e + f + g + h


x = torch.tensor([[0.5, -1.25, 2.0, 3.5], [1.5, 0.25, -2.5, 4.0]], requires_grad=True)
s = torch.tensor([[2., -3., 5., 0.5, 4.], [-1., 9., 3., 6., 2.]], requires_grad=True)
loss_scatter(x, s).backward()
print(x.grad, s.grad)
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        x.grad = None
        s.grad = None
        loss_reduce(x, s, red, inc).backward()
        print(red, inc, x.grad, s.grad)
x.grad = None
loss_moves(x).backward()
print(x.grad)

# ties: amax/amin share the gradient evenly, kthvalue sends it to its index
t = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True)
t.scatter_reduce(1, torch.tensor([[0, 0], [1, 1]]), torch.tensor([[3., 3.], [2., 1.]]), "amax").sum().backward()
print(t.grad)

xd = torch.tensor([[0.5, -1.25, 2.0, 3.5], [1.5, 0.25, -2.5, 4.0]], dtype=torch.float64, requires_grad=True)
sd = torch.tensor([[2., -3., 5., 0.5, 4.], [-1., 9., 3., 6., 2.]], dtype=torch.float64, requires_grad=True)
perm = torch.tensor([[3, 0, 1, 2], [1, 2, 0, 3]])
print("scatter", gradcheck(lambda a, b: a.scatter(1, perm[:, :3], b[:, :3]), (xd, sd)),
      gradgradcheck(lambda a, b: a.scatter(1, perm[:, :3], b[:, :3]), (xd, sd)),
      gradcheck(lambda a: a.scatter(-1, idx[:, :2], 1.5), (xd,)))

for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        print(red, inc, gradcheck(lambda a, b: a.scatter_reduce(1, idx, b, red, include_self=inc), (xd, sd)))
print("kthvalue", gradcheck(lambda a: a.kthvalue(3, -1).values, (xd,)), gradgradcheck(lambda a: a.kthvalue(2, 0, True).values, (xd,)))
print("index_copy", gradcheck(lambda a, b: a.index_copy(1, torch.tensor([3, 0]), b[:, 1:3]), (xd, sd)))
print("index_fill", gradcheck(lambda a: a.index_fill(0, torch.tensor([1]), -1.0), (xd,)))
print("masked_scatter", gradcheck(lambda a, b: a.masked_scatter(a > 0, b), (xd, sd)))
print("take", gradcheck(lambda a: torch.take_along_dim(a, torch.tensor([[1], [0]]), 1), (xd,)),
      gradcheck(lambda a: torch.take(a, torch.tensor([[7, 0], [7, 2]])), (xd,)))
print("unfold", gradcheck(lambda a: a.unfold(1, 2, 1), (xd,)), gradcheck(lambda a: a.unfold(1, 2, 2) * 2, (xd,)))
print("tensor_split", gradcheck(lambda a: torch.tensor_split(a, [1, 3], dim=1), (xd,)))
print("meshgrid", gradcheck(lambda a, b: torch.meshgrid(a, b, indexing="ij"), (xd[0].detach().requires_grad_(), sd[1].detach().requires_grad_())))
print("gather", gradcheck(lambda a: a.gather(1, idx[:, :3] % 4), (xd,)), gradgradcheck(lambda a: a.gather(1, idx[:, :3] % 4), (xd,)))
print("scatter_add", gradcheck(lambda a, b: a.scatter_add(1, idx % 4, b), (xd, sd)))
print("index_add", gradcheck(lambda a, b: a.index_add(1, torch.tensor([2, 2]), b[:, :2], alpha=0.5), (xd, sd)))
print("index_select", gradcheck(lambda a: a.index_select(-1, torch.tensor([3, 3, 1])), (xd,)))
