# Compiled autograd gave every float64 input a zero gradient: its derivative builder counted only
# float32 values as differentiable (src/runtime/diff.c is_float), so a float64 backward's nodes
# produced no gradient and the graph accumulated zeros.  Float64 and float32 training steps,
# gradients of pointwise, reduction, matmul and LAPACK ops, and anomaly mode (which compiled
# autograd leaves to the engine: its NaN checks run per node).
import warnings

import torch
import torch.nn as nn

torch.manual_seed(0)
for dt in (torch.float64, torch.float32):
    x = torch.tensor([[1.5, 2., 0.5], [0.25, -1., 3.]], dtype=dt, requires_grad=True)
    (x * 3 + x.exp()).sum().backward()
    print(dt, x.grad)
    x.grad = None
    (torch.lgamma(x.abs() + 1) * torch.cumprod(x, 1)).mean().backward()
    print(x.grad)
    x.grad = None
    A = x @ x.t() + torch.eye(2, dtype=dt) * 4
    torch.linalg.cholesky(A).sum().backward()
    print(x.grad)

net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    loss = net(torch.randn(5, 3, dtype=torch.float64)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item(), net[0].weight.grad.sum().item())

with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        z = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
        try:
            (z.sqrt() * 0).sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
