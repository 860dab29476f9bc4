# More torch functions Ember decomposes, named as PyTorch 1.13's node: unsafe_split/chunk, the
# scatter-into-view functions, clamp_min/clamp_max (Scalar and Tensor bounds), vdot, addbmm,
# trapezoid's spacing product (MulBackward1), nansum, deg2rad/rad2deg, atleast_3d of a vector,
# margin_ranking_loss / triplet_margin_loss with reduction='none', renorm.  Module-level calls.
import torch
import torch.nn.functional as F


def n(y):
    return type(y.grad_fn).__name__


torch.manual_seed(0)
a = torch.randn(4, 6, requires_grad=True)
v = torch.randn(6, requires_grad=True)
b3 = torch.randn(2, 4, 4, requires_grad=True)
print([n(p) for p in a.unsafe_chunk(3, 1)], [n(p) for p in torch.unsafe_split(a, 4, 1)], [n(p) for p in a.unsafe_split(2)])
print(n(torch.select_scatter(a, v, 0, 0)), n(torch.select_scatter(a.detach(), v, 0, 1)),
      n(torch.select_scatter(a, v.detach(), 0, 0)), n(torch.diagonal_scatter(a[:, :4], v[:4])),
      n(torch.diagonal_scatter(a, v[:4], 1)), n(torch.diag_embed(a)), n(torch.diag_embed(v, 1)))
print(torch.diag_embed(v[:3]))
print(n(a.clamp_min(0)), n(a.clamp_min(0.5)), n(torch.clamp_min(a, 1)), n(torch.clamp_max(a, 0)),
      n(torch.clamp_min(a, torch.zeros(6))), n(a.clamp_max(torch.zeros(6))), n(torch.vdot(v, v)))
print(a[0].clamp_min(0))
print(n(torch.addbmm(a[:, :4], b3, b3)), n(torch.addbmm(a[:, :4], b3, b3, beta=0.5, alpha=2)), n(a[:, :4].addbmm(b3, b3)))
print(torch.trapezoid(a, dx=0.5))
print(n(torch.trapz(a)), n(torch.trapezoid(a, dx=0.5)), n(torch.trapezoid(a, dim=0)), n(torch.trapz(v)))
print(n(a.nansum()), n(a.nansum(1)), n(torch.nansum(a, 0, True)), n(a.deg2rad()), n(torch.rad2deg(a)))
print(n(torch.atleast_3d(v)), n(torch.atleast_3d(a)), n(torch.atleast_3d(a[0, 0])), torch.atleast_3d(v).shape)
for r in ("none", "mean", "sum"):
    print(r, n(F.margin_ranking_loss(a, a.detach(), torch.ones(4, 6), reduction=r)),
          n(F.triplet_margin_loss(a, a.detach(), a.detach() * 2, reduction=r)),
          n(F.triplet_margin_loss(a, a.detach(), a.detach() * 2, reduction=r, swap=True)))
y = torch.addbmm(a[:, :4], b3, b3)
y.sum().backward()
print(a.grad[0], b3.grad[0, 0])
b = torch.randn(2, 3, 4, requires_grad=True)
print(n(a.renorm(2, 0, 1.0)), n(torch.renorm(a, 1, 1, 0.5)), n(b.renorm(2, 2, 100.0)), n(torch.renorm(a.double(), float("inf"), 0, 1.0)))
print(a.renorm(2, 0, 1.0)[0])
