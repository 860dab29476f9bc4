# InstanceNorm as ATen computes it (batch_norm over the input viewed as one sample of N*C
# channels): forward values, input/weight gradients and running stats to the last bit, and
# PyTorch's grad_fn; Ember's own per-channel statistics differed in the last bits before
import torch
import torch.nn as nn
import torch.nn.functional as F


def bits(t):
    return " ".join(float(v).hex() for v in t.detach().flatten().tolist())


torch.manual_seed(1)
for m, shape in [(nn.InstanceNorm2d(3), (2, 3, 4, 4)), (nn.InstanceNorm1d(4, affine=True), (3, 4, 7)),
                 (nn.InstanceNorm2d(2, affine=True, track_running_stats=True), (2, 2, 5, 3)),
                 (nn.InstanceNorm1d(3, eps=1e-3, momentum=0.3, track_running_stats=True), (2, 3, 9))]:
    if m.weight is not None:
        with torch.no_grad():
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.5, 0.5)
    x = torch.randn(*shape, requires_grad=True)
    y = m(x)
    print(type(m).__name__, y.grad_fn.name())
    print(bits(y))
    (y * torch.linspace(-1, 1, y.numel()).view(y.shape)).sum().backward()
    print(bits(x.grad))
    if m.weight is not None:
        print(bits(m.weight.grad), bits(m.bias.grad))
    if m.running_mean is not None:
        print(bits(m.running_mean), bits(m.running_var))
        m.eval()
        print(bits(m(torch.randn(*shape))))
x = torch.randn(2, 3, 6, dtype=torch.float64)
print(bits(F.instance_norm(x)))
try:
    F.instance_norm(torch.randn(2, 3, 1))
except ValueError as e:
    print("ValueError:", e)
