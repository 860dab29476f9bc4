# Matrix products print PyTorch's own bits: every product runs the BLAS routine ATen calls for it.
# mm / addmm / linear / 1-D @ 2-D are one GEMM whatever the shape (OpenBLAS 0.3.21 does not turn
# m == 1 or n == 1 into a GEMV, whose kernels add in another order), oriented as ATen orients it
# (a one-column result is column-major); mv is a GEMV ('n' on a column-major matrix, 't' on a
# row-major one, ATen's own loop for a broadcast vector); dot is sdot/ddot; bmm under 400
# multiply-adds a batch is ATen's plain loop; matmul folds batch dims into mm / mv as 1.13 does
# (also a 2-D or 1-D left operand against a batch, transposed).  Products of more than 65536 * 4
# multiply-adds are split between OpenBLAS's threads, as under PyTorch.  The products are computed
# in functions, so --compile-all runs them compiled.  Elements are printed in hex (the first ones,
# then a CRC of all), so a last-bit difference fails.
import zlib

import torch
import torch.nn.functional as F

torch.manual_seed(3)


def h(t):
    """hex of the first elements, and a CRC of the hex of all of them"""
    v = [x.hex() for x in t.detach().double().flatten().tolist()]
    return " ".join(v[:4]) + ("" if len(v) <= 4 else " .. crc %08x" % zlib.crc32(" ".join(v).encode()))


def R(*shape, dt):
    return torch.randn(*shape, dtype=dt)


def products(a, b, at, bt, bias, c):
    return a @ b, at.t() @ bt.t(), torch.addmm(bias, a, b), torch.addmm(c, a, b, beta=0.5, alpha=2.0)


def vectors(v, B, A, vs, ve, w, we):
    return v @ B, v @ A.t(), A @ v, B.t() @ v, A @ vs, A @ ve, torch.dot(v, w), we @ v


def batched(p, q, p2, w2, v2, m2, v3, pp, b4, b3, e1, e2):
    return (torch.bmm(p, q), p2 @ w2, p2 @ v2, m2 @ q, v3 @ q, pp.permute(0, 2, 1) @ w2, b4 @ b3,
            torch.einsum("bik,bjk->bij", e1, e2))


def linears(x, w, bias):
    return F.linear(x, w, bias), F.linear(x, w), F.linear(x[0], w, bias), F.linear(x.unsqueeze(0), w, bias)


def lin_loss(x, w, bias):
    return (F.linear(x, w, bias) ** 2).sum()


def mv_loss(A, v):
    return (A @ v).sum()


for dt in (torch.float32, torch.float64):
    print(dt)
    for m, n, k in [(1, 5, 8), (1, 17, 33), (3, 1, 17), (8, 1, 64), (1, 1, 33), (5, 3, 1), (17, 8, 5),
                    (2, 33, 130), (130, 2, 17), (1, 64, 130), (17, 130, 130), (130, 64, 33)]:
        r = products(R(m, k, dt=dt), R(k, n, dt=dt), R(k, m, dt=dt), R(n, k, dt=dt), R(n, dt=dt), R(m, n, dt=dt))
        print("mm", m, n, k, " | ".join(h(t) for t in r))
    for n, k in [(5, 8), (17, 33), (3, 130), (64, 17), (1, 9)]:
        r = vectors(R(k, dt=dt), R(k, n, dt=dt), R(n, k, dt=dt), R(2 * k, dt=dt)[::2], R(1, dt=dt).expand(k),
                    R(k, dt=dt), R(1, dt=dt).expand(k))
        print("vec", n, k, " | ".join(h(t) for t in r))
    for m, n, k in [(2, 3, 5), (5, 5, 8), (8, 5, 17), (17, 3, 8), (1, 33, 17)]:
        r = batched(R(2, m, k, dt=dt), R(2, k, n, dt=dt), R(2, m, k, dt=dt), R(k, n, dt=dt), R(k, dt=dt),
                    R(m, k, dt=dt), R(k, dt=dt), R(2, k, m, dt=dt), R(2, 1, m, k, dt=dt), R(3, k, n, dt=dt),
                    R(2, m, k, dt=dt), R(2, n, k, dt=dt))
        print("batch", m, n, k, " | ".join(h(t) for t in r))
        r = linears(R(m, k, dt=dt), R(n, k, dt=dt), R(n, dt=dt))
        print("  linear", " | ".join(h(t) for t in r))
    for m, n, k in [(1, 5, 17), (3, 1, 8), (5, 4, 1), (8, 17, 33)]:
        x = R(m, k, dt=dt).requires_grad_()
        w = R(n, k, dt=dt).requires_grad_()
        bias = R(n, dt=dt).requires_grad_()
        lin_loss(x, w, bias).backward()
        print("grad linear", m, n, k, h(x.grad), "|", h(w.grad), "|", h(bias.grad))
        v = R(k, dt=dt).requires_grad_()
        A = R(m, k, dt=dt).requires_grad_()
        mv_loss(A, v).backward()
        print("  mv", h(A.grad), "|", h(v.grad))
        p = R(2, m, k, dt=dt).requires_grad_()
        q = R(k, n, dt=dt).requires_grad_()
        (p @ q).backward(R(2, m, n, dt=dt))
        print("  fold", h(p.grad), "|", h(q.grad))
        v1 = R(m, dt=dt).requires_grad_()
        (v1 @ R(m, n, dt=dt)).backward(R(n, dt=dt))
        print("  vm", h(v1.grad))
a, b, o = torch.randn(3, 5), torch.randn(5, 4), torch.zeros(3, 4)
r = torch.mm(a, b, out=o)
print("out=", r is o, h(o), h(torch.matmul(a, b, out=torch.zeros(3, 4))))
