# Elementwise results are laid out as PyTorch's TensorIterator lays them out, not always
# row-major: an op over transposed or permuted inputs keeps their layout (same shape and strides:
# the input's own strides; otherwise dense in the order its strides sort the dims, broadcast dims
# deciding nothing), channels-last stays channels-last, and clone() / to() keep a dense input's
# strides (preserve_format) while contiguous() and reshape copy row-major.  It is visible in
# stride(), in which views are legal, and in the bits: a reduction adds in memory order, so
# (x.t() * 3).sum() added a row-major copy in another order than PyTorch and printed other digits
# in 8 of 12 sizes.  The ops run in functions, so --compile-all runs them compiled (a fused group
# only ever writes row-major buffers: other layouts run the eager kernel).
import torch

torch.manual_seed(7)


def hx(t):
    return " ".join(v.hex() for v in t.detach().double().flatten().tolist()[:3])


def layouts(x, y, z, w, a):
    return ((x * 3).stride(), (x + x).stride(), x.neg().stride(), (x - 1).stride(),
            (y * 2).stride(), y.relu().stride(), (y + torch.ones(3)).stride(), (y + torch.ones(4, 1, 1)).stride(),
            torch.where(y > 0, y, 0.).stride(), (y > 0).stride(),
            (z * 2).stride(), (z + torch.ones(3)).stride(), z.contiguous().stride(),
            (w * 2).stride(), w.clone().stride(), (w.t() + 1).stride(),
            (a * 2).stride(), (a + torch.ones(4, 5, 3)).stride(), (torch.ones(1, 3).t() * torch.ones(3, 4)).stride(),
            x.clone().stride(), x.double().stride(), x.to(torch.float64).stride(), x.contiguous().stride(),
            x.clone().is_contiguous(), x.reshape(-1).stride())


x = torch.randn(3, 4).t()
y = torch.randn(2, 3, 4).permute(2, 0, 1)
z = torch.randn(2, 3, 5, 5).permute(0, 2, 3, 1)
w = torch.randn(5, 6)[:, ::2]
a = torch.randn(4, 1, 3)
print(layouts(x, y, z, w, a))


def sums(x, y):
    return ((x.t() * 3).sum(), (x.t() * 3).sum(0), (x.t() + y).sum(), (x.t() * 2).clone().sum(1),
            (x.t() - y).mean(), (x.t() * y).sum(-1), (x.t() * 0.5).abs().amax(0))


for n in (5, 7, 12, 17, 22, 33, 40):
    x = torch.randn(n, n + 3)
    y = torch.randn(n + 3, n)
    print(n, " | ".join(hx(t) for t in sums(x, y)))


def grads(p, q):
    loss = ((p.t() * q) * (q.t() - p).t() + p.t().abs()).sum()
    loss.backward()
    return p.grad, q.grad


p = torch.randn(6, 8, requires_grad=True)
q = torch.randn(8, 6, requires_grad=True)
gp, gq = grads(p, q)
print(gp.stride(), gq.stride(), hx(gp), hx(gq))

r = torch.randn(4, 5).t()
try:
    (r * 2).view(-1)
except RuntimeError as e:
    print("view:", e)
print((r * 2).reshape(-1).stride(), (r + 1).flatten().stride(), (r * 2).t().is_contiguous())
