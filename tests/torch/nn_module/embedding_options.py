# nn.Embedding / F.embedding: scale_grad_by_freq scales each row's gradient by 1 / its count in the
# batch (it was ignored: the summed gradient), max_norm renormalises the looked-up rows in place
# (it raised NotImplementedError), torch.embedding_renorm_; embedding_bag with max_norm
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
w = torch.randn(4, 2, requires_grad=True)
F.embedding(torch.tensor([0, 1, 1, 3, 1]), w, scale_grad_by_freq=True).sum().backward()
print(w.grad)
e = nn.Embedding(4, 2, scale_grad_by_freq=True, padding_idx=3)
e(torch.tensor([[0, 1], [1, 3]])).pow(2).sum().backward()
print(e.weight.grad)
e = nn.Embedding(5, 3, max_norm=1.0)
print(e(torch.tensor([0, 2, 2])), e.weight)
e2 = nn.Embedding(5, 3, max_norm=0.5, norm_type=1.0)
out = e2(torch.tensor([[4, 1], [1, 0]]))
out.sum().backward()
print(out, e2.weight, e2.weight.grad)
print(torch.embedding_renorm_(torch.ones(3, 4), torch.tensor([0, 2]), 1.0, 2.0))
w = torch.randn(6, 3, requires_grad=True)
for kw in [dict(mode="mean", max_norm=1.0), dict(mode="sum", max_norm=0.8, norm_type=1.0)]:
    ww = w.detach().clone().requires_grad_(True)
    out = F.embedding_bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 2]), ww, torch.tensor([0, 3, 5]), **kw)
    out.sum().backward()
    print(kw, out, ww.grad, ww.detach())
