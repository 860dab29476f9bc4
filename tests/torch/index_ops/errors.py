# PyTorch's errors for bad dims, shapes, dtypes and arguments of the indexing ops.
import torch

x = torch.zeros(2, 3)
cases = [
    lambda: x.scatter(1, torch.tensor([[0]]).int(), 1.0),
    lambda: x.scatter_add(1, torch.tensor([[0]]).int(), x),
    lambda: x.scatter_reduce(1, torch.tensor([[0]]), x, "max"),
    lambda: x.scatter(1, torch.tensor([[0]]), x, reduce="sum"),
    lambda: x.scatter(1, torch.tensor([[5]]), x),
    lambda: x.scatter(1, torch.tensor([[-1]]), 2.0),
    lambda: x.scatter(2, torch.tensor([[0]]), x),
    lambda: x.scatter(1, torch.tensor([0]), x),
    lambda: x.scatter(1, torch.tensor([[0]]), x.double()),
    lambda: x.scatter(1, torch.tensor([[0, 1, 2, 0]]), x),
    lambda: x.scatter(0, torch.tensor([[0], [1], [0]]), 1.0),
    lambda: x.scatter_reduce(-3, torch.tensor([[0]]), x, "sum"),
    lambda: x.kthvalue(4, 1),
    lambda: x.kthvalue(0),
    lambda: x.kthvalue(1, 2),
    lambda: x.bool().kthvalue(1, 1),
    lambda: torch.zeros(2, 0).kthvalue(1),
    lambda: torch.bincount(torch.tensor([1, 3]), minlength=-1),
    lambda: torch.bincount(torch.tensor([-1])),
    lambda: torch.bincount(torch.tensor([[1]])),
    lambda: torch.bincount(torch.tensor([1.])),
    lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.])),
    lambda: torch.histc(torch.tensor([1, 2])),
    lambda: torch.histc(x, 0),
    lambda: torch.histc(x, 3, min=2, max=1),
    lambda: torch.unique(x, dim=2),
    lambda: torch.tensor_split(torch.tensor(1.), 2),
    lambda: torch.tensor_split(x, 0),
    lambda: torch.tensor_split(x, 2, dim=3),
    lambda: x.unfold(1, 4, 1),
    lambda: x.unfold(1, 2, 0),
    lambda: x.unfold(2, 1, 1),
    lambda: torch.meshgrid(torch.zeros(2), torch.zeros(2, dtype=torch.long), indexing="ij"),
    lambda: torch.meshgrid(torch.zeros(2), indexing="yx"),
    lambda: x.index_copy(0, torch.tensor([0.]), x),
    lambda: x.index_copy(0, torch.tensor([0, 1, 0]), x),
    lambda: x.index_copy(0, torch.tensor([0]), torch.zeros(1, 2)),
    lambda: x.index_copy(0, torch.tensor([0]), torch.zeros(1, 3, dtype=torch.float64)),
    lambda: x.index_fill(0, torch.tensor([0.]), 1.0),
    lambda: x.index_fill(2, torch.tensor([0]), 1.0),
    lambda: torch.take_along_dim(x, torch.tensor([[0]]).int(), 1),
    lambda: torch.take_along_dim(x, torch.tensor([0]), 1),
    lambda: x.gather(1, torch.tensor([[0]]).int()),
    lambda: x.gather(1, torch.tensor([[0, 0, 0, 0]])),
    lambda: x.masked_scatter(x > 0, torch.zeros(2, dtype=torch.float64)),
    lambda: x.requires_grad_().scatter_(1, torch.tensor([[0]]), 1.0),
    lambda: torch.unique(torch.tensor(5.), dim=0),
    lambda: torch.histc(torch.tensor([float("inf"), 1.]), 3),
    lambda: torch.meshgrid([], indexing="ij"),
]
for i, f in enumerate(cases):
    try:
        f()
        print(i, "no error")
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0])
    x = torch.zeros(2, 3)
