# Linear (values, 1-D and batched inputs, no bias, gradients, shapes, errors), Identity, Bilinear.
import torch
import torch.nn as nn


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


lin = nn.Linear(3, 2)
print("shapes", list(lin.weight.shape), list(lin.bias.shape), lin.in_features, lin.out_features)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]))
    lin.bias.copy_(torch.tensor([0.1, -0.1]))
show("2-D", lin(torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])))
show("1-D", lin(torch.tensor([1.0, 1.0, 1.0])))
show("3-D", lin(torch.ones(2, 2, 3)))
x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
(lin(x) * torch.tensor([[2.0, 1.0]])).sum().backward()
show("x.grad", x.grad)
show("weight.grad", lin.weight.grad)
show("bias.grad", lin.bias.grad)
print("grad_fn", type(lin(x).grad_fn).__name__)

nb = nn.Linear(2, 3, bias=False)
print("no bias", nb.bias, [n for n, p in nb.named_parameters()])
try:
    lin(torch.ones(2, 4))
except RuntimeError as e:
    print("RuntimeError", e)

ident = nn.Identity(54, unused="x")
t = torch.ones(2)
print("identity", ident(t) is t)

bil = nn.Bilinear(2, 3, 2)
print("bilinear shapes", list(bil.weight.shape), list(bil.bias.shape))
with torch.no_grad():
    bil.weight.copy_(torch.arange(12.0).reshape(2, 2, 3) * 0.1)
    bil.bias.copy_(torch.tensor([1.0, -1.0]))
a = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
b = torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]], requires_grad=True)
out = bil(a, b)
show("bilinear", out)
out.sum().backward()
show("bilinear a.grad", a.grad)
show("bilinear b.grad", b.grad)
show("bilinear weight.grad", bil.weight.grad)
