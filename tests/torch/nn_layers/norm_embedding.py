# LayerNorm (default affine init, shapes, no affine, eps, gradients) and Embedding (lookup,
# padding_idx row zero with no gradient, gradients, repr, from a given weight).
import torch
import torch.nn as nn


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


ln = nn.LayerNorm([2, 3])
print(ln, [n for n, p in ln.named_parameters()], list(ln.weight.shape))
x = torch.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]], requires_grad=True)
out = ln(x)
show("layernorm 2-D shape", out)
(out * torch.arange(6.0).reshape(1, 2, 3)).sum().backward()
show("x.grad", x.grad)
show("weight.grad", ln.weight.grad)
plain = nn.LayerNorm(3, eps=1e-3, elementwise_affine=False)
print(plain, list(plain.parameters()), plain.weight, plain.bias)
show("no affine", plain(torch.tensor([[1.0, 1.0, 4.0]])))

emb = nn.Embedding(5, 2, padding_idx=1)
print(emb, list(emb.weight.shape))
print("padding row zero", emb.weight[1].tolist())
with torch.no_grad():
    emb.weight.copy_(torch.arange(10.0).reshape(5, 2))
idx = torch.tensor([[1, 2], [4, 1]])
e = emb(idx)
show("lookup", e)
(e * 3).sum().backward()
show("weight.grad (padding row gets none)", emb.weight.grad)
fixed = nn.Embedding(3, 2, _weight=torch.ones(3, 2))
print("given weight", fixed.weight.tolist(), fixed.weight.requires_grad)
neg = nn.Embedding(4, 1, padding_idx=-1)
print("negative padding_idx", neg.padding_idx, neg.weight[3].tolist())
try:
    emb(torch.tensor([7]))
except IndexError as e:
    print("IndexError", e)
