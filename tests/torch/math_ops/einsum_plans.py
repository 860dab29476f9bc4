# torch.einsum's plan cache (torch/_mathops.py): the same equation again with the same shapes
# replays the steps worked out the first time, so operands of the same shapes but other strides
# (a transposed operand, a diagonal of a non-contiguous view), other shapes, other dtypes and
# requires_grad must each give PyTorch's values; the common contractions as the bench runs them.
import torch

torch.manual_seed(0)
c = torch.arange(9.).reshape(3, 3)
for t in (c, c.t(), c[:, [2, 0, 1]], c.t().contiguous(), torch.arange(16.).reshape(4, 4)[::2, 1::2][:, :2].reshape(2, 2)):
    print(torch.einsum("ii->i", t), torch.einsum("ii", t), torch.einsum("ij->ji", t), torch.einsum("ii->i", t).stride())
d = torch.arange(16.).reshape(4, 4)[:3, :3]
print(torch.einsum("ii->i", d), torch.einsum("ii->i", d).stride(), torch.einsum("ii->i", d).storage_offset())
for k in range(3):
    a = torch.arange(6.).reshape(2, 3) + k
    b = torch.arange(12.).reshape(3, 4) / (k + 1)
    print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij,jk->ik", a.double(), b.double()))
    print(torch.einsum("ij,jk->ik", a.t().contiguous().t(), b), torch.einsum("i,i->", a[0], b[:, 0]))
for shape in ((2, 3, 4), (2, 3, 4), (1, 3, 4)):
    x = torch.randn(*shape)
    y = torch.randn(2, 4, 5)
    print(torch.einsum("bij,bjk->bik", x, y))
q = (torch.randn(2, 3, 4, 5) * 4).round() / 4      # exact sums: BLAS libraries round differently
k = (torch.randn(2, 3, 6, 5) * 4).round() / 4
for _ in range(2):
    print(torch.einsum("bhqd,bhkd->bhqk", q, k))
e3 = torch.randn(3, 4, 5)
e4 = torch.randn(4, 5, 2)
for _ in range(2):
    print(torch.einsum("ijk,jkl->il", e3, e4), torch.einsum("i,j->ij", e3[0, 0], e4[0, 0]))
g = torch.randn(3, 3, requires_grad=True)
for _ in range(2):
    r = torch.einsum("ij,jk->ik", g, g) + torch.einsum("ii->i", g)
    r.sum().backward()
    print(r.detach(), g.grad)
    g.grad = None
for f in (lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 5)),
          lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 5)),
          lambda: torch.einsum("i", [1, 2]), lambda: torch.einsum("i,i", torch.ones(2), 3),
          lambda: torch.einsum(["i"], torch.ones(2)), lambda: torch.einsum("i,i", torch.ones(2), 3)):
    try:
        f()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
