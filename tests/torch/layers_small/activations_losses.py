import torch
import torch.nn as nn
import torch.nn.functional as F

x = (torch.arange(12, dtype=torch.float32) - 5.5) * 0.5
x = x.reshape(3, 4)

acts = [nn.ELU(), nn.ELU(alpha=0.5), nn.SELU(), nn.CELU(alpha=2.0), nn.Softplus(), nn.Softplus(beta=2, threshold=3),
        nn.Softsign(), nn.LogSigmoid(), nn.Hardtanh(-2, 2), nn.ReLU6(), nn.Hardsigmoid(), nn.Hardswish(),
        nn.Tanhshrink(), nn.Threshold(0.5, -1.0), nn.Hardshrink(1.0), nn.Softshrink(0.75), nn.GLU(), nn.GLU(0),
        nn.PReLU(), nn.Softmin(dim=1), nn.SiLU(), nn.Mish(), nn.GELU(), nn.LeakyReLU(0.2)]
for m in acts:
    xi = (x if not (isinstance(m, nn.GLU) and m.dim == 0) else x[:2]).clone().requires_grad_(True)
    y = m(xi)
    y.sum().backward()
    print(m, y.detach().flatten()[:6], xi.grad.flatten()[:6])
p = nn.PReLU(num_parameters=3, init=0.1)
y = p(x.reshape(1, 3, 4))
y.sum().backward()
print(p, y.detach(), p.weight.grad)
print(nn.Softmax2d()(x.reshape(1, 3, 2, 2))[0, :, 0, 0])
print(F.relu6(x), F.normalize(x, dim=1)[0], F.cosine_similarity(x[:2], x[1:]), F.pairwise_distance(x[:2], x[1:]))
print(F.one_hot(torch.tensor([0, 2, 1]), 4))

inp = ((torch.arange(12, dtype=torch.float32) % 5) - 2).reshape(3, 4) * 0.25
tgt = ((torch.arange(12, dtype=torch.float32) % 3) - 1).reshape(3, 4) * 0.5
prob = torch.linspace(0.1, 0.9, 12).reshape(3, 4)
bin_t = (torch.arange(12) % 2).float().reshape(3, 4)


def show(name, fn, *ins):
    ins = [ins[0].clone().requires_grad_(True)] + list(ins[1:])
    out = fn(*ins)
    (out.sum() if out.dim() else out).backward()
    print(name, "%.5f" % out.sum().item(), ins[0].grad.flatten()[:4])


for red in ["mean", "sum", "none"]:
    show("L1Loss " + red, nn.L1Loss(reduction=red), inp, tgt)
    show("SmoothL1Loss " + red, nn.SmoothL1Loss(reduction=red, beta=0.5), inp, tgt)
    show("HuberLoss " + red, nn.HuberLoss(reduction=red, delta=0.5), inp, tgt)
    show("BCELoss " + red, nn.BCELoss(reduction=red), prob, bin_t)
    show("BCEWithLogits " + red, nn.BCEWithLogitsLoss(reduction=red), inp, bin_t)
    show("BCEWithLogits pos_weight " + red, nn.BCEWithLogitsLoss(reduction=red, pos_weight=torch.tensor([1.0, 2.0, 0.5, 3.0])), inp, bin_t)
    show("KLDivLoss batchmean " + red, nn.KLDivLoss(reduction="batchmean" if red == "mean" else red), F.log_softmax(inp, 1), F.softmax(tgt, 1))
    show("KLDivLoss log_target " + red, nn.KLDivLoss(reduction="sum", log_target=True), F.log_softmax(inp, 1), F.log_softmax(tgt, 1))
    show("CosineEmbeddingLoss " + red, nn.CosineEmbeddingLoss(margin=0.1, reduction=red), inp, tgt, torch.tensor([1, -1, 1]))
    show("MarginRankingLoss " + red, nn.MarginRankingLoss(margin=0.2, reduction=red), inp[0], tgt[0], torch.tensor([1., -1., 1., -1.]))
    show("TripletMarginLoss " + red, nn.TripletMarginLoss(margin=0.5, reduction=red), inp, tgt, prob)
    show("SoftMarginLoss " + red, nn.SoftMarginLoss(reduction=red), inp, bin_t * 2 - 1)
    show("HingeEmbeddingLoss " + red, nn.HingeEmbeddingLoss(reduction=red), inp, bin_t * 2 - 1)
    target = torch.tensor([1, 3, 0])
    show("CrossEntropy ls " + red, nn.CrossEntropyLoss(label_smoothing=0.1, reduction=red), inp, target)
    show("CrossEntropy ls ignore " + red, nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=3, reduction=red), inp, target)
    show("CrossEntropy ls weight " + red, nn.CrossEntropyLoss(label_smoothing=0.2, weight=torch.tensor([1., 2., 0.5, 1.]), reduction=red), inp, target)
    show("CrossEntropy probs " + red, nn.CrossEntropyLoss(reduction=red), inp, F.softmax(tgt, 1))
    show("CrossEntropy probs ls " + red, nn.CrossEntropyLoss(reduction=red, label_smoothing=0.3), inp, F.softmax(tgt, 1))
print(nn.SmoothL1Loss(), nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), nn.TripletMarginLoss())
