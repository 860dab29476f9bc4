# ReLU (also inplace), GELU (none / tanh), Tanh, Sigmoid, SiLU, LeakyReLU, Softmax, LogSoftmax as
# modules and as torch.nn.functional calls, with gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


x = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 3.0]])
for m in [nn.ReLU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.Tanh(), nn.Sigmoid(), nn.SiLU(),
          nn.LeakyReLU(0.2), nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.Softmax(dim=0)]:
    show(repr(m), m(x))

xg = x.clone().requires_grad_(True)
for name, fn in [("relu", F.relu), ("gelu", F.gelu), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid),
                 ("softmax", lambda t: F.softmax(t, dim=1) * torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]]))]:
    xg.grad = None
    fn(xg).sum().backward()
    show("grad " + name, xg.grad)

y = x.clone()
out = nn.ReLU(inplace=True)(y)
print("inplace same object", out is y, y.tolist())
z = x.clone()
F.relu(z, inplace=True)
print("F.relu inplace", z.tolist())
show("F.leaky_relu", F.leaky_relu(x, negative_slope=0.1))
show("F.silu", F.silu(x))
show("F.log_softmax", F.log_softmax(x, dim=-1))
show("F.gelu tanh", F.gelu(x, approximate="tanh"))
show("3-D softmax dim=-1", F.softmax(torch.arange(8.0).reshape(2, 2, 2), dim=-1))
