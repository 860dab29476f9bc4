# tensor_split (sections, indices, tensor indices, dims), Tensor.unfold (a view), meshgrid
# ('ij', 'xy', the default's warning), take, take_along_dim, chunk, split (sizes list), stack,
# repeat_interleave, expand_as, and views sharing storage with their base.
import torch
import warnings

# meshgrid without indexing= warns once (TORCH_WARN_ONCE): recorded here, outside compiled code
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.meshgrid(torch.arange(2), torch.arange(2))
    torch.meshgrid(torch.arange(2), torch.arange(2))
print(len(w), [str(x.message) for x in w], [x.category.__name__ for x in w])


def splits(x):
    return (torch.tensor_split(x, 3), torch.tensor_split(x, 3, dim=1), x.tensor_split([1, 3], dim=-1),
            torch.tensor_split(x, (1, 10)), torch.tensor_split(x, torch.tensor([2])), torch.tensor_split(x, torch.tensor(2), 1),
            torch.tensor_split(torch.arange(7), 3), torch.tensor_split(torch.arange(7), [1, 5]),
            torch.tensor_split(torch.arange(7), [5, 1]), x.chunk(2, dim=-1), torch.chunk(x, 3),
            torch.split(x, [1, 3], dim=1), x.split(2), torch.split(x, [2, 1, 1], -1))


def unfolds(x):
    a = torch.arange(7.).unfold(0, 2, 2)
    b = x.unfold(1, 2, 1)
    c = x.unfold(-2, 2, 1)
    d = x.t().unfold(0, 3, 1)
    return a, a.shape, a.stride(), b, b.shape, b.stride(), c, c.stride(), d, d.stride(), torch.tensor(5.).unfold(0, 1, 1)


def grids(a, b, c):
    return (torch.meshgrid(a, b, indexing="ij"), torch.meshgrid(a, b, indexing="xy"), torch.meshgrid([a, b, c], indexing="xy"),
            torch.meshgrid(a, indexing="xy"), torch.meshgrid(torch.tensor(3), b, indexing="ij"))


def takes(x, i):
    return (torch.take(x, i), x.take(torch.tensor([[0, -1], [5, 2]])), torch.take_along_dim(x, torch.tensor([[0], [2], [1]]), 1),
            x.take_along_dim(torch.tensor([[2, 0, 1, 1]]), dim=0), torch.take_along_dim(x, torch.tensor([11, 0])),
            torch.take_along_dim(x, x.argmax(dim=1, keepdim=True), dim=1))


def stacks(x):
    return (torch.stack([x, x], dim=-1).shape, torch.stack([x[0], x[1]], 1), torch.stack((x, x * 2)),
            torch.repeat_interleave(x, 2, dim=1), torch.repeat_interleave(x, torch.tensor([1, 0, 2]), dim=0),
            x.repeat_interleave(2), torch.ones(1, 4).expand_as(x), torch.tensor([[1.], [2.], [3.]]).expand_as(x))


x = torch.arange(12.).reshape(3, 4)
print(*splits(x), sep="\n")
print(*unfolds(x), sep="\n")
print(*grids(torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6, 7])), sep="\n")
print(*takes(x, torch.tensor([0, 5, 11])), sep="\n")
print(*stacks(x), sep="\n")
v = torch.arange(6.)
u = v.unfold(0, 3, 1)
u[1, 1] = 100.
print(v, u, u.is_contiguous())
s = torch.tensor_split(v, 2)
s[0][0] = -1.
print(v)
