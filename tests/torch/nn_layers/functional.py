# torch.nn.functional equivalents of the layers: linear (with and without bias), bilinear,
# layer_norm, embedding (padding_idx), and their agreement with the modules.
import torch
import torch.nn as nn
import torch.nn.functional as F


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]])
w = torch.tensor([[0.1, 0.2, 0.3], [-0.5, 0.0, 0.5]])
b = torch.tensor([1.0, -1.0])
show("linear", F.linear(x, w, b))
show("linear no bias", F.linear(x, w))
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(w)
    lin.bias.copy_(b)
print("module agrees", torch.equal(lin(x), F.linear(x, w, b)))
bw = torch.arange(12.0).reshape(2, 2, 3) * 0.1
show("bilinear", F.bilinear(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.5, -1.0, 2.0]]), bw, torch.tensor([0.5, 0.0])))
show("layer_norm", F.layer_norm(x, (3,)))
show("layer_norm affine", F.layer_norm(x, [3], torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 0.1, 0.2]), eps=1e-3))
ew = torch.arange(8.0).reshape(4, 2)
show("embedding", F.embedding(torch.tensor([3, 0, 3]), ew))
ewg = ew.clone().requires_grad_(True)
F.embedding(torch.tensor([1, 2, 1]), ewg, padding_idx=1).sum().backward()
show("embedding padding grad", ewg.grad)
