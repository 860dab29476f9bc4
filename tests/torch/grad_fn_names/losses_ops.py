# Losses and torch functions Ember decomposes: the result's grad_fn is PyTorch 1.13's node for
# the op and reduction (SmoothL1LossBackward0 for every reduction, cross_entropy with class
# probabilities DivBackward1 / NegBackward0, LerpBackward0/1, ReshapeAliasBackward0 for a
# reshape that views, RepeatBackward0, ...).  Module-level calls (compiled code keeps its nodes).
import torch
import torch.nn as nn
import torch.nn.functional as F


def n(y):
    return type(y.grad_fn).__name__


torch.manual_seed(0)
x = torch.randn(4, 6, requires_grad=True)
x1 = torch.randn(6, requires_grad=True)
x0 = torch.randn((), requires_grad=True)
xd = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
x3 = torch.randn(2, 3, 8, requires_grad=True)
x4 = torch.randn(2, 3, 6, 6, requires_grad=True)
t = torch.randn(4, 6)
tp = torch.rand(4, 6)
cls = torch.tensor([1, 0, 5, 2])

print("-- losses")
print(F.smooth_l1_loss(x, t))
print(F.binary_cross_entropy_with_logits(x, tp))
print(F.cross_entropy(x, tp.softmax(1)))
print(n(F.smooth_l1_loss(x, t)), n(F.smooth_l1_loss(x, t, reduction="sum")), n(F.smooth_l1_loss(x, t, reduction="none")),
      n(F.smooth_l1_loss(x, t, beta=0.0)), n(F.smooth_l1_loss(x, t, beta=0.0, reduction="none")), n(nn.SmoothL1Loss()(x, t)),
      n(F.smooth_l1_loss(x1, x1.detach() * 2)), n(F.smooth_l1_loss(t, x)), n(F.smooth_l1_loss(xd, xd.detach() + 1)))
print(n(F.huber_loss(x, t)), n(F.huber_loss(x, t, reduction="sum")), n(F.huber_loss(x, t, reduction="none", delta=0.5)),
      n(nn.HuberLoss()(x, t)))
s = x.sigmoid()
print(n(F.binary_cross_entropy(s, tp)), n(F.binary_cross_entropy(s, tp, reduction="sum")),
      n(F.binary_cross_entropy(s, tp, reduction="none")), n(F.binary_cross_entropy(s, tp, weight=torch.rand(6))),
      n(nn.BCELoss()(s, tp)), n(F.binary_cross_entropy(x1.sigmoid(), tp[0])))
print(n(F.binary_cross_entropy_with_logits(x, tp)), n(F.binary_cross_entropy_with_logits(x, tp, reduction="sum")),
      n(F.binary_cross_entropy_with_logits(x, tp, reduction="none")),
      n(F.binary_cross_entropy_with_logits(x, tp, pos_weight=torch.rand(6))),
      n(F.binary_cross_entropy_with_logits(x, tp, weight=torch.rand(6))), n(nn.BCEWithLogitsLoss()(x, tp)))
print(n(F.soft_margin_loss(x, t.sign())), n(F.soft_margin_loss(x, t.sign(), reduction="sum")),
      n(F.soft_margin_loss(x, t.sign(), reduction="none")), n(nn.SoftMarginLoss()(x, t.sign())))
print(n(F.multi_margin_loss(x, cls)), n(F.multi_margin_loss(x, cls, reduction="sum")),
      n(F.multi_margin_loss(x, cls, reduction="none")), n(F.multi_margin_loss(x, cls, p=2, weight=torch.rand(6))),
      n(nn.MultiMarginLoss()(x, cls)), n(F.multi_margin_loss(x1, torch.tensor(2))))
pt = tp.softmax(1)
print(n(F.cross_entropy(x, pt)), n(F.cross_entropy(x, pt, reduction="sum")), n(F.cross_entropy(x, pt, reduction="none")),
      n(F.cross_entropy(x, pt, label_smoothing=0.1)), n(F.cross_entropy(x, pt, weight=torch.rand(6))),
      n(F.cross_entropy(x1, pt[0])), n(nn.CrossEntropyLoss()(x, pt)),
      n(F.cross_entropy(x, pt, label_smoothing=0.1, reduction="sum")), n(F.cross_entropy(x4, torch.rand(2, 3, 6, 6))))
for shape in [(2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 2)]:
    z = torch.randn(*shape, requires_grad=True)
    tg = torch.randint(0, 3, (shape[0],) + shape[2:])
    print(shape, [(n(F.nll_loss(z.log_softmax(1), tg, reduction=r)), n(F.cross_entropy(z, tg, reduction=r)))
                  for r in ("mean", "sum", "none")])
y = F.huber_loss(x, t)
y.backward()
print(y.grad_fn.name(), x.grad[0])

print("-- distances")
print(F.cosine_similarity(x, t))
print(n(F.cosine_similarity(x, t)), n(F.cosine_similarity(x, t, 0)), n(F.cosine_similarity(x1, x1.detach(), 0)),
      n(nn.CosineSimilarity()(x, t)), n(F.cosine_similarity(x, t[:1])), n(F.cosine_similarity(xd, xd.detach() + 1)))
print(n(F.pairwise_distance(x, t)), n(F.pairwise_distance(x, t, 1.0)), n(F.pairwise_distance(x, t, keepdim=True)),
      n(nn.PairwiseDistance()(x, t)), n(F.pairwise_distance(x1, x1.detach())), n(F.pairwise_distance(x, t, float("inf"))))
print(n(torch.cdist(x, t)), n(torch.cdist(x, t, 1.0)), n(torch.cdist(torch.randn(30, 3, requires_grad=True), torch.randn(30, 3))),
      n(torch.cdist(x, t, compute_mode="use_mm_for_euclid_dist")), n(torch.cdist(x3, x3.detach())),
      n(torch.cdist(x, t, float("inf"))), n(torch.cdist(x, t, 0.0)), n(torch.dist(x, t)))

print("-- torch functions")
print(torch.lerp(x[:1], t[:1], 0.3))
print(n(torch.lerp(x, t, 0.3)), n(torch.lerp(x, t, tp)), n(x.lerp(t, 0.7)), n(torch.lerp(t, x, 0.3)),
      n(torch.lerp(t, nog := torch.randn(4, 6), tp.clone().requires_grad_())), n(torch.lerp(x, t[0], 0.3)),
      n(torch.lerp(xd, xd.detach(), 0.3)))
print(n(torch.addcmul(x, x, t)), n(torch.addcmul(x, x, t, value=2)), n(x.addcmul(t, t)), n(torch.addcmul(t, x, t)),
      n(torch.addcmul(x1, x, t)), n(torch.addcmul(xd, xd, xd)), n(torch.addcdiv(x, x, tp + 1)))
print(n(x[:, :4].trace()), n(torch.trace(x)), n(xd.trace()), n(x.diag()), n(x1.diag()), n(x.diag(1)), n(x1.diag(-2)),
      n(torch.diagflat(x1)))
print(n(x.nan_to_num()), n(torch.nan_to_num(x, 0.0, 1.0, -1.0)), n(xd.nan_to_num()))
print(n(x.median()), n(x.median(1)[0]), n(torch.median(x)), n(x.nanmedian()), n(x.nanmedian(0)[0]))
print(n(x.rot90()), n(x.rot90(2)), n(x.rot90(0)), n(x.rot90(3)), n(x.rot90(-1)), n(x.rot90(4)), n(x4.rot90(1, (2, 3))))
print(n(torch.kron(x[:2, :2], x[:2, :2])), n(torch.kron(x1, x1)), n(x.kron(t)), n(torch.kron(x, t[0])))
print(n(torch.baddbmm(x4[0], x4[0], x4[1])), n(torch.baddbmm(x4[0], x4[0], x4[1], beta=0.5, alpha=2)),
      n(torch.baddbmm(x4[0], x4[0], x4[1], beta=0)), n(x4[0].baddbmm(x4[0], x4[1])),
      n(torch.baddbmm(x4[0, 0, 0], x4[0], x4[1])), n(torch.baddbmm(torch.randn(3, 6, 6), x4[0], x4[1])),
      n(torch.baddbmm(torch.randn(2, 20, 20), torch.randn(2, 20, 20, requires_grad=True), torch.randn(2, 20, 20))))
a3 = x[:3, :3]
print(n(torch.block_diag(x, x1)), n(torch.cross(a3, t[:3, :3])), n(torch.linalg.cross(a3, t[:3, :3])),
      n(torch.addmv(x[:, 0], x, x1)), n(torch.addmv(x[:, 0], x, x1, beta=0)), n(torch.addr(x, x[:, 0], x1)),
      n(torch.addr(x, x[:, 0], x1, beta=0, alpha=2)))

print("-- reshape, flatten, repeat")
print(x1.reshape(2, 3))
print(n(x.reshape(3, 8)), n(x.reshape(4, 6)), n(x.t().reshape(24)), n(torch.reshape(x, (-1,))), n(x4.flatten(1)),
      n(x.flatten()), n(x0.reshape(1)), n(x.reshape_as(t.t())), n(nn.Flatten()(x4)), n(xd.reshape(-1)),
      n(x4.transpose(1, 2).flatten(1)), n(x4.transpose(0, 1).flatten(2)), n(torch.flatten(x4, 2)))
print(n(x.view(24)), n(x.unflatten(1, (2, 3))), n(nn.Unflatten(1, (3, 2))(x)), n(x.ravel()), n(x.t().ravel()),
      n(torch.einsum("ij,kj->ik", x, t)), n(torch.einsum("ij,jk->ik", x, t.t())), n(torch.einsum("i,i->", x1, x1)),
      n(torch.tensordot(x3, torch.randn(8, 2), 1)), n(torch.atleast_2d(x0)))
print(x1.flatten(0) is x1, x4.flatten(3) is x4)
print(n(x.repeat(2, 1)), n(x.repeat(1, 1)), n(x.repeat(2, 1, 1)), n(x1.repeat(3)), n(x.repeat(1, 1, 1)))
r = x.repeat(1, 1)
print(r._base is x, r.data_ptr() == x.data_ptr())
z = torch.zeros(2, 3)
r = z.repeat(1, 1)
r[0, 0] = 5.0
print(z[0, 0].item(), r[0, 0].item())
r = torch.zeros(1).repeat(3)
r[0] = 1.0
print(r, r.stride())
y = x.repeat(2, 1)
y.sum().backward()
print(y.grad_fn.name(), x.grad[0])
