# softmax, log_softmax, cross_entropy / nll_loss and their gradients give PyTorch's bits: the
# kernels' lane order (8 float / 4 double lanes combined as AVX2 does), the column kernels for
# other dims (scalar tail columns with libm's exp), nll's cascade sums, and the fused multiply-adds
# the compiled ATen kernels contain.  Large results print as a digest of their hex values.
import hashlib
import torch
import torch.nn.functional as F

torch.manual_seed(1)


def h(t):
    vals = [v.hex() for v in t.detach().double().flatten().tolist()]
    if len(vals) <= 12:
        return " ".join(vals)
    return "%d values, sha1 %s" % (len(vals), hashlib.sha1(" ".join(vals).encode()).hexdigest()[:16])


for trial in range(26):
    dt = torch.float32 if trial % 3 else torch.float64
    n = [1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 64, 100, 257][trial % 13]
    b = [1, 3, 5, 16, 17, 40][trial % 6]
    x = (torch.randn(b, n) * (1 + trial % 4)).to(dt)
    t = torch.randint(0, n, (b,))
    w = torch.rand(n).to(dt)
    tt = t.clone()
    tt[0] = -100
    print(trial, dt, b, n)
    print("  log_softmax", h(F.log_softmax(x, 1)), "|", h(F.log_softmax(x, 0)))
    print("  softmax", h(F.softmax(x, -1)), "|", h(F.softmax(x, 0)))
    print("  cross_entropy", h(F.cross_entropy(x, t)), h(F.cross_entropy(x, t, reduction="sum")),
          h(F.cross_entropy(x, t, weight=w)), h(F.cross_entropy(x, tt)), h(F.cross_entropy(x, t, label_smoothing=0.1)))
    print("  nll none", h(F.nll_loss(F.log_softmax(x, 1), t, reduction="none")))
    x3 = torch.randn(b, n, 5).to(dt)
    print("  3-d", h(F.log_softmax(x3, 1)), h(F.cross_entropy(x3, torch.randint(0, n, (b, 5)))))
    xr = x.clone().requires_grad_(True)
    F.cross_entropy(xr, t).backward()
    g1 = xr.grad
    xr.grad = None
    F.softmax(xr, 1).pow(2).sum().backward()
    g2 = xr.grad
    xr.grad = None
    (F.log_softmax(xr, 0) * torch.linspace(-1, 1, n).to(dt)).sum().backward()
    print("  grads", h(g1), "|", h(g2), "|", h(xr.grad))

print(F.softmax(torch.tensor([[float("-inf"), float("-inf")], [0.0, float("nan")]]), 1))
print(F.log_softmax(torch.tensor([[1.0, float("inf")], [2.0, 3.0]]), 1))
try:
    F.cross_entropy(torch.randn(2, 3, 4), torch.zeros(2, 5, dtype=torch.long))
except RuntimeError as e:
    print("RuntimeError:", e)
