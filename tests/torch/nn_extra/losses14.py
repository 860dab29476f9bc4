# GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, TripletMarginWithDistanceLoss and their
# functional forms: values, gradients, reductions, reprs, errors
import torch
import torch.nn as nn
import torch.nn.functional as F

inp = ((torch.arange(12, dtype=torch.float32) % 5) - 2).reshape(3, 4) * 0.35
tgt = ((torch.arange(12, dtype=torch.float32) % 3) - 1).reshape(3, 4) * 0.5
var = torch.linspace(0.05, 1.5, 12).reshape(3, 4)

for kw in [{}, {"full": True}, {"reduction": "sum"}, {"reduction": "none"}, {"eps": 0.2}]:
    a = inp.clone().requires_grad_(True)
    v = var.clone().requires_grad_(True)
    m = nn.GaussianNLLLoss(**kw)
    y = m(a, tgt, v)
    y.sum().backward()
    print(m, kw, y.detach(), a.grad[0], v.grad[0])
v1 = var[:, :1].clone().requires_grad_(True)
y = F.gaussian_nll_loss(inp, tgt, v1)
y.backward()
print("homoscedastic", y.detach(), v1.grad)
print("var short", F.gaussian_nll_loss(inp, tgt, var[:, 0]))
for bad, exc in [(lambda: F.gaussian_nll_loss(inp, tgt, var[:2]), ValueError),
                 (lambda: F.gaussian_nll_loss(inp, tgt, -var), ValueError),
                 (lambda: F.gaussian_nll_loss(inp, tgt, var, reduction="avg"), ValueError)]:
    try:
        bad()
    except exc as e:
        print(type(e).__name__, e)

lbl = (torch.arange(12) % 3 == 0).float().reshape(3, 4)
w = torch.tensor([1.0, 0.5, 2.0, 0.25])
for m in [nn.MultiLabelSoftMarginLoss(), nn.MultiLabelSoftMarginLoss(weight=w),
          nn.MultiLabelSoftMarginLoss(reduction="none"), nn.MultiLabelSoftMarginLoss(reduction="sum")]:
    a = inp.clone().requires_grad_(True)
    y = m(a, lbl)
    y.sum().backward()
    print(m, y.detach(), a.grad)
print(F.multilabel_soft_margin_loss(inp[0], lbl[0]))

cls = torch.tensor([3, 0, 2])
for m in [nn.MultiMarginLoss(), nn.MultiMarginLoss(p=2), nn.MultiMarginLoss(margin=0.3),
          nn.MultiMarginLoss(weight=w), nn.MultiMarginLoss(p=2, margin=2.0, weight=w, reduction="none"),
          nn.MultiMarginLoss(reduction="sum")]:
    a = inp.clone().requires_grad_(True)
    y = m(a, cls)
    y.sum().backward()
    print(m, y.detach(), a.grad)
print("1-d", F.multi_margin_loss(inp[1], torch.tensor(2)), F.multi_margin_loss(inp[1], torch.tensor([2]), reduction="none"))
for bad, exc in [(lambda: nn.MultiMarginLoss(p=3), ValueError),
                 (lambda: F.multi_margin_loss(inp, cls, p=3), ValueError),
                 (lambda: F.multi_margin_loss(inp, cls, weight=w.reshape(2, 2)), ValueError),
                 (lambda: F.multi_margin_loss(inp, torch.tensor([1, 4, 0])), RuntimeError),
                 (lambda: F.multi_margin_loss(inp, torch.tensor([1, 2])), RuntimeError)]:
    try:
        bad()
    except exc as e:
        print(type(e).__name__, e)

an, po, ne = inp, tgt, (inp * tgt + 0.3)
for m in [nn.TripletMarginWithDistanceLoss(), nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True),
          nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity(), reduction="none"),
          nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: (x - y).abs().max(1).values,
                                           reduction="sum")]:
    a = an.clone().requires_grad_(True)
    y = m(a, po, ne)
    y.sum().backward()
    print(type(m).__name__, m.margin, m.swap, m.reduction, y.detach(), a.grad)
print(F.triplet_margin_with_distance_loss(an, po, ne, margin=0.5))
try:
    F.triplet_margin_with_distance_loss(an, po, ne, reduction="avg")
except ValueError as e:
    print("ValueError", e)
