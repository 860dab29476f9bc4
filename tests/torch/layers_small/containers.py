import torch
import torch.nn as nn

pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
pl.append(nn.Parameter(torch.full((1,), 2.0)))
print(pl)
print(len(pl), [tuple(p.shape) for p in pl], type(pl[1]).__name__, pl[-1])
print([n for n, _ in pl.named_parameters()])
pl2 = pl[1:]
print(len(pl2))
pd = nn.ParameterDict({"b": nn.Parameter(torch.ones(2)), "a": torch.zeros(3)})
pd["c"] = nn.Parameter(torch.ones(1, 1))
print(pd)
print(list(pd.keys()), "a" in pd, len(pd), [n for n, _ in pd.named_parameters()])
print(pd.pop("b").shape, list(pd.keys()))

seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Sigmoid())
print(seq[1:3], seq[-1])
seq.append(nn.Identity())
seq.insert(1, nn.Tanh())
print(seq)
del seq[0]
print(len(seq), seq)

emb = nn.Embedding.from_pretrained(torch.arange(12.).reshape(4, 3))
print(emb, emb.weight.requires_grad, emb(torch.tensor([[0, 3], [2, 2]])))
emb2 = nn.Embedding.from_pretrained(torch.arange(12.).reshape(4, 3), freeze=False, padding_idx=1)
out = emb2(torch.tensor([1, 2, 1, 0]))
out.sum().backward()
print(emb2, emb2.weight.grad)
bag = nn.EmbeddingBag.from_pretrained(torch.arange(15.).reshape(5, 3), mode="sum")
print(bag, bag(torch.tensor([0, 1, 2, 4, 3]), torch.tensor([0, 2])))
print(nn.Dropout2d(0.2).eval()(torch.ones(1, 2, 2, 2)).sum())
for mode in ["mean", "max", "sum"]:
    b = nn.EmbeddingBag(5, 3, mode=mode)
    with torch.no_grad():
        b.weight.copy_(torch.arange(15.).reshape(5, 3) % 4 - 1.5)
    out = b(torch.tensor([[0, 1], [4, 3], [2, 2]]))
    out.sum().backward()
    print(b, out.detach(), b.weight.grad)
b = nn.EmbeddingBag(5, 2, mode="sum")
with torch.no_grad():
    b.weight.copy_(torch.arange(10.).reshape(5, 2))
print(b(torch.tensor([1, 2, 3, 4]), torch.tensor([0, 1]), per_sample_weights=torch.tensor([1., 2., 0.5, 0.25])).detach())

bil = nn.Bilinear(2, 3, 4)
with torch.no_grad():
    bil.weight.copy_(torch.arange(24.).reshape(4, 2, 3) * 0.125)
    bil.bias.copy_(torch.arange(4.))
print(bil, bil(torch.ones(5, 2), torch.ones(5, 3))[0])

m = nn.Sequential(nn.Dropout1d(0.3), nn.AlphaDropout(0.1), nn.Flatten(0), nn.Unflatten(0, (2, -1)))
m.eval()
print(m, m(torch.ones(2, 3, 4)).shape)
print(nn.Dropout1d(p=1.0)(torch.ones(2, 3, 4)).sum(), nn.Dropout2d(p=0.0)(torch.ones(2, 2, 2, 2)).sum())
