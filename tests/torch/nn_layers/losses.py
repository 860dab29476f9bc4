# MSELoss, CrossEntropyLoss (class weights, ignore_index, reductions), NLLLoss, as modules and
# functions, with gradients and shape errors.
import torch
import torch.nn as nn
import torch.nn.functional as F


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


pred = torch.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
target = torch.tensor([[1.0, 1.0], [0.0, 0.0]])
for red in ("mean", "sum", "none"):
    show("mse " + red, nn.MSELoss(reduction=red)(pred, target))
loss = nn.MSELoss()(pred, target)
loss.backward()
show("mse grad", pred.grad)

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-1.0, 3.0, 0.0]], requires_grad=True)
labels = torch.tensor([0, 2, 1])
ce = nn.CrossEntropyLoss()
print(ce, ce.reduction, ce.ignore_index, ce.weight)
l = ce(logits, labels)
show("ce", l)
l.backward()
show("ce grad", logits.grad)
w = torch.tensor([1.0, 2.0, 0.5])
show("ce weighted", nn.CrossEntropyLoss(weight=w)(logits, labels))
show("ce weighted sum", nn.CrossEntropyLoss(weight=w, reduction="sum")(logits, labels))
show("ce none", nn.CrossEntropyLoss(reduction="none")(logits, labels))
show("ce ignore_index", nn.CrossEntropyLoss(ignore_index=2)(logits, labels))
print("weight is a buffer", [n for n, b in nn.CrossEntropyLoss(weight=w).named_buffers()])
show("F.cross_entropy", F.cross_entropy(logits, labels, reduction="sum"))

logp = F.log_softmax(logits.detach(), dim=1)
show("nll", nn.NLLLoss()(logp, labels))
show("nll weighted", nn.NLLLoss(weight=w)(logp, labels))
show("nll none", nn.NLLLoss(reduction="none")(logp, labels))
show("F.nll_loss", F.nll_loss(logp, labels, ignore_index=0))
show("F.mse_loss", F.mse_loss(pred, target, reduction="sum"))
try:
    nn.MSELoss(reduction="avg")(pred, target)
except ValueError as e:
    print("ValueError", e)
