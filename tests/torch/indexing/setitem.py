# Assignment through indexing: ints, slices, None, ..., bool masks, index tensors, tensors and
# scalars as values with broadcasting, autograd through index_put.
import torch


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.reshape(-1).tolist()])


x = torch.zeros(3, 4)
x[0] = 1.0
show("x[0] = 1", x)
x[1, 2] = 5
show("x[1, 2] = 5", x)
x[:, 0] = torch.tensor([7.0, 8.0, 9.0])
show("x[:, 0] = t", x)
x[2, 1:3] = torch.tensor([-1.0, -2.0])
show("x[2, 1:3] = t", x)
x[..., 3] = 4.5
show("x[..., 3] = 4.5", x)
x[x > 4] = 0.0
show("x[mask] = 0", x)
x[torch.tensor([0, 2])] = torch.tensor([1.0, 2.0, 3.0, 4.0])
show("x[idx] = row", x)
x[[0, 1], [1, 2]] = torch.tensor([10.0, 20.0])
show("x[[0,1],[1,2]] = t", x)
x[:] = 3
show("x[:] = 3", x)
x[None, 0] = 6
show("x[None, 0] = 6", x)
x[::2, ::2] = -1
show("x[::2, ::2] = -1", x)
x[1] = torch.tensor(2.5)
show("x[1] = scalar tensor", x)
x[x < 0] = torch.tensor([100.0, 200.0, 300.0, 400.0])
show("x[mask] = values", x)
i = torch.zeros(4, dtype=torch.long)
i[1] = 3
i[2:] = torch.tensor([5, 6])
print(i.tolist(), i.dtype)
b = torch.zeros(3, dtype=torch.bool)
b[1] = True
print(b.tolist())

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = w * 2
y[1] = 0.0
print(y.grad_fn.name(), y.is_leaf)
y.sum().backward()
print(w.grad.tolist())
w2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = torch.zeros(3)
z[0:2] = w2[1:] * 3
print(z.requires_grad, z.grad_fn.name())
z.sum().backward()
print(w2.grad.tolist())
