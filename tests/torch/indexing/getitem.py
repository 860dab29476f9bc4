# Indexing and slicing: ints, slices with steps, None, ..., bool masks, index tensors, lists,
# combinations; views share storage.
import torch


def show(name, t):
    print(name, list(t.shape), t.reshape(-1).tolist())


x = torch.arange(24).reshape(2, 3, 4)
show("x[1]", x[1])
show("x[-1]", x[-1])
show("x[0, 2]", x[0, 2])
show("x[0, 2, 3]", x[0, 2, 3])
print(type(x[0, 2, 3]).__name__, x[0, 2, 3].item())
show("x[:, 1]", x[:, 1])
show("x[..., 1]", x[..., 1])
show("x[1, ...]", x[1, ...])
show("x[..., 1:3]", x[..., 1:3])
show("x[:, ::2]", x[:, ::2])
show("x[:, :, ::3]", x[:, :, ::3])
show("x[:, -2:]", x[:, -2:])
show("x[0, 1:10]", x[0, 1:10])
show("x[0, 5:]", x[0, 5:])
show("x[None]", x[None])
show("x[:, None, 0]", x[:, None, 0])
show("x[..., None]", x[..., None])
show("x[None, ..., None, 1]", x[None, ..., None, 1])
m = x > 15
show("x[mask]", x[m])
show("x[0][mask row]", x[0][torch.tensor([True, False, True])])
show("x[:, mask]", x[:, torch.tensor([False, True, True])])
idx = torch.tensor([1, 0, 1])
show("x[idx]", x[idx])
show("x[0, idx]", x[0, idx])
show("x[:, :, idx]", x[:, :, idx])
show("x[[0, 1], [2, 0]]", x[[0, 1], [2, 0]])
show("x[idx2d]", x[0][torch.tensor([[0, 1], [2, 2]])])
show("x[idx, idx]", x[torch.tensor([0, 1]), torch.tensor([2, 1])])
show("x[1, [0, 2]]", x[1, [0, 2]])
show("x[0, :, [1, 3]]", x[0, :, [1, 3]])
show("x[tensor(1)]", x[torch.tensor(1)])
v = x[0, 1]
print(v.data_ptr() == x[0].data_ptr() + 4 * 8, v._base is x)
f = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
s = f[0, :] * f[:, 1]
s.sum().backward()
print(f.grad.tolist(), f[0].grad_fn.name(), f[:, 1].grad_fn.name(), f[[0, 1]].grad_fn.name())
print(f[f > 2].tolist(), f[f > 2].grad_fn.name())
print(x[0, 0, 0:0].shape, x[2:].shape, x[:, 3:].shape)
