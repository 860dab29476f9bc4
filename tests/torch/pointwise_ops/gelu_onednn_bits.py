# float32 gelu (approximate='none') of a contiguous tensor with more than one element: PyTorch 1.13
# runs oneDNN's eltwise gelu_erf forward and backward, not ATen's kernel; its bits differ from the
# erf formula in most elements.  Strided, one-element and float64 inputs keep ATen's kernel.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def fwd_bwd(x, g):
    x = x.clone().requires_grad_()
    y = F.gelu(x)
    y.backward(g)
    return y.detach(), x.grad


x = torch.cat([torch.randn(160) * 3, torch.randn(80), torch.randn(40) * 8,
               torch.tensor([0.0, 1e-30, -1e-30, 5.5, -5.5, 10.0, -10.0, 1e4, -1e4, -13.2, -14.0, -20.0])])
g = torch.randn(x.numel())
y, gx = fwd_bwd(x, g)
print(y.tolist())
print(gx.tolist())
print(F.gelu(torch.tensor([float('inf'), -float('inf'), 1.0])).tolist())
print(torch.isnan(F.gelu(torch.tensor([float('nan'), 1.0]))).tolist())

m = torch.randn(16, 12) * 2
print(F.gelu(m.t()).reshape(-1).tolist()[:48])      # strided: ATen's kernel
print(F.gelu(torch.tensor([1.0])).tolist())           # one element: ATen's kernel
print(F.gelu(torch.randn(16, dtype=torch.float64)).tolist())   # whole vector blocks (tails: tests/trace/footguns)


def f(x):
    return F.gelu(x * 1.5) + x


cf = torch.compile(f)
xs = torch.randn(200)
print(f(xs).tolist() == cf(xs).tolist(), cf(xs)[:8].tolist())

model = nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(64, 12)
target = torch.randn(64, 1)
for step in range(6):
    opt.zero_grad()
    loss = F.mse_loss(model(data), target)
    loss.backward()
    opt.step()
    print(step, repr(loss.item()))
print(model[0].weight.grad[0].tolist())
