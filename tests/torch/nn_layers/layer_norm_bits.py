# layer_norm and its gradients give PyTorch's bits: ATen's RowwiseMoments (Welford over 8-lane
# vectors in chunks of 16, a cascade of partial moments, the leftover elements alone), its affine
# map and its backward, with the fused multiply-adds the compiled kernels contain.  Large results
# print as a digest of their hex values.
import hashlib
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)


def h(t):
    vals = [v.hex() for v in t.detach().double().flatten().tolist()]
    if len(vals) <= 12:
        return " ".join(vals)
    return "%d values, sha1 %s" % (len(vals), hashlib.sha1(" ".join(vals).encode()).hexdigest()[:16])


for trial in range(28):
    dt = torch.float32 if trial % 4 else torch.float64
    n = [1, 3, 7, 8, 9, 16, 31, 32, 33, 64, 100, 128, 257, 768][trial % 14]
    b = [1, 2, 5, 16][trial % 4]
    x = (torch.randn(b, n) * 3 + 1).to(dt).requires_grad_(True)
    w = torch.randn(n).to(dt).requires_grad_(True)
    bb = torch.randn(n).to(dt).requires_grad_(True)
    y = F.layer_norm(x, (n,), w, bb)
    (y * torch.linspace(-1, 1, n).to(dt)).sum().backward()
    print(trial, dt, b, n, "y", h(y), "| gx", h(x.grad), "| gw", h(w.grad), "| gb", h(bb.grad))

ln = nn.LayerNorm([4, 6], elementwise_affine=False)
x = torch.randn(3, 4, 6, requires_grad=True)
y = ln(x)
y.pow(3).sum().backward()
print("no affine, 2-d shape", h(y), h(x.grad))
ln = nn.LayerNorm(10, eps=1e-3)
x = torch.randn(2, 5, 10, requires_grad=True)
out = ln(x)
out.exp().mean().backward()
print("3-d input", h(out), h(x.grad), h(ln.weight.grad), h(ln.bias.grad))
