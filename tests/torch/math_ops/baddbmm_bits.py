# torch.baddbmm prints PyTorch 1.13's bits (baddbmm_out_cpu / bmm_out_or_baddbmm_): under 400
# multiply-adds a batch, ATen's loop starts from input * beta and adds (alpha * batch1[.., p]) *
# batch2[p, ..] for each p in order, rounding every step (it was bmm-then-add, another order);
# larger products are one GEMM a batch with beta and alpha (OpenBLAS scales by beta and adds alpha
# times the product in one rounding).  The result has batch1's dtype whatever input's; input is
# expanded before the shape checks (PyTorch's messages and order).  Hex of the first elements and a
# CRC of all, so a last-bit difference fails.  (beta = 0 on the small path is left out: ATen reads
# its uninitialised result there, r *= 0, so a NaN in that memory leaks into PyTorch's output.)
import zlib

import torch

torch.manual_seed(5)


def h(t):
    v = [x.hex() for x in t.detach().double().flatten().tolist()]
    return " ".join(v[:3]) + ("" if len(v) <= 3 else " .. crc %08x" % zlib.crc32(" ".join(v).encode()))


def bb(inp, b1, b2, beta, alpha):
    return torch.baddbmm(inp, b1, b2, beta=beta, alpha=alpha)


for dt in (torch.float32, torch.float64):
    for bs, m, k, n in [(2, 3, 4, 5), (3, 7, 8, 7), (1, 1, 399, 1), (2, 16, 16, 16), (1, 33, 17, 9), (4, 5, 40, 3)]:
        for beta, alpha in [(1, 1), (0.5, 2.0), (0, 1.5), (1, 0.3), (2, 1), (0, 1)]:
            b1 = torch.randn(bs, m, k, dtype=dt)
            b2 = torch.randn(bs, k, n, dtype=dt)
            inp = torch.randn(m, n, dtype=dt) if (m + n) % 2 else torch.randn(bs, m, n, dtype=dt)
            if beta == 0 and k * m * n < 400:
                continue
            r = bb(inp, b1, b2, beta, alpha)
            print(str(dt)[6:], bs, m, k, n, beta, alpha, tuple(r.shape), h(r))

# batch1's dtype wins; a transposed batch; the method form and the in-place form
a, b = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
print(torch.baddbmm(torch.randn(3, 5).double(), a, b, beta=0.5).dtype)
print(h(torch.randn(2, 5, 3).transpose(1, 2).baddbmm(a, b, alpha=0.25)))
c = torch.randn(2, 3, 5)
c.baddbmm_(a, b, beta=0.75, alpha=1.5)
print(h(c))

# gradients (4 digits: the backward is the composition's)
x = torch.randn(3, 5, requires_grad=True)
y = torch.randn(2, 3, 4, requires_grad=True)
z = torch.randn(2, 4, 5, requires_grad=True)
torch.baddbmm(x, y, z, beta=0.5, alpha=2.0).pow(2).sum().backward()
print(x.grad.sum().item().__round__(4), y.grad.sum().item().__round__(4), z.grad.sum().item().__round__(4))


def err(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)


err(lambda: torch.baddbmm(torch.randn(3, 6), a, b))
err(lambda: torch.baddbmm(torch.randn(3, 5), a[0], b))
err(lambda: torch.baddbmm(torch.randn(3, 5), a, b[0]))
err(lambda: torch.baddbmm(torch.randn(3, 5), a, torch.randn(3, 4, 5)))
err(lambda: torch.baddbmm(torch.randn(3, 5), a, torch.randn(2, 5, 5)))
err(lambda: torch.baddbmm(torch.randn(3, 5), a, b.double()))
