# In-place forms of the decomposed activations and functions: the tensor's new grad_fn is named
# as PyTorch 1.13's in-place node (EluBackward1, LeakyReluBackward1, HardtanhBackward0,
# ThresholdBackward1, RreluWithNoiseBackward1, MulBackward0 for dropout, AddcmulBackward0, ...);
# not for a view (PyTorch regenerates the view's node), nor under no_grad or when the op did not
# run (no node was recorded, the earlier one stays).  Module-level calls.
import torch
import torch.nn as nn
import torch.nn.functional as F


def n(y):
    return type(y.grad_fn).__name__


torch.manual_seed(0)
a = torch.randn(4, 6, requires_grad=True)
print(F.elu(a[:1] * 1, inplace=True))
print(nn.LeakyReLU(0.2, inplace=True)(a[:1] * 1))
print(n(F.relu(a * 1, inplace=True)), n(nn.ReLU(inplace=True)(a * 1)), n(F.elu(a * 1, inplace=True)), n(F.elu_(a * 1)),
      n(F.selu(a * 1, inplace=True)), n(torch.selu_(a * 1)), n(F.celu(a * 1, inplace=True)), n(torch.celu_(a * 1)))
print(n(F.hardtanh(a * 1, inplace=True)), n(F.hardtanh_(a * 1)), n(F.relu6(a * 1, inplace=True)), n(nn.ReLU6(inplace=True)(a * 1)),
      n(F.leaky_relu(a * 1, inplace=True)), n(F.leaky_relu_(a * 1, 0.2)), n(F.threshold(a * 1, 0.1, 2.0, inplace=True)),
      n(F.threshold_(a * 1, 0., 1.)), n(torch.threshold_(a * 1, 0.1, 2.)))
print(n(F.hardswish(a * 1, inplace=True)), n(nn.Hardswish(inplace=True)(a * 1)), n(F.hardsigmoid(a * 1, inplace=True)),
      n(F.silu(a * 1, inplace=True)), n(nn.SiLU(inplace=True)(a * 1)), n(F.mish(a * 1, inplace=True)))
print(n(F.rrelu(a * 1, inplace=True)), n(F.rrelu(a * 1, training=True, inplace=True)), n(torch.rrelu_(a * 1)),
      n(F.rrelu(a.double() * 1, training=True, inplace=True)))
print(n(F.dropout(a * 1, inplace=True)), n(nn.Dropout(inplace=True)(a * 1)), n(torch.dropout_(a * 1, 0.5, True)),
      n(F.alpha_dropout(a * 1, 0.5, True, inplace=True)), n(F.dropout2d((a * 1).view(1, 4, 6, 1), inplace=True)))
y = a * 1
print(n(y.add_(1)), n((a * 1).clamp_(0, 1)), n((a * 1).clamp_min_(0)), n((a * 1).clamp_max_(0)), n((a * 1).lerp_(a.detach(), 0.3)),
      n((a * 1).lerp_(a.detach(), torch.full((4, 6), 0.3))), n((a * 1).addcmul_(a, a)), n((a * 1).addcdiv_(a, a.detach().abs() + 1)),
      n((a * 1).nan_to_num_()))
print(n(F.relu((a * 1)[1:], inplace=True)), n(F.elu((a * 1)[1:], inplace=True)), n(F.hardtanh((a * 1)[1:], inplace=True)),
      n(F.leaky_relu((a * 1)[:, 2:], inplace=True)), n((a * 1)[1:].addcmul_(a[1:], a[1:])))
y = a * 1
with torch.no_grad():
    F.elu(y, inplace=True)
    F.hardtanh(y, inplace=True)
    F.dropout(y, inplace=True)
    y.addcmul_(a, a)
    y.clamp_min_(0)
    F.leaky_relu(y, inplace=True)
print("no_grad", n(y))
y = a * 1
F.dropout(y, 0.0, inplace=True)
F.dropout(y, training=False, inplace=True)
F.alpha_dropout(y, 0.5, False, inplace=True)
print("not run", n(y))
z = torch.randn(4, 6)
print(F.elu(z, inplace=True).grad_fn, n(z.lerp_(a, 0.5)))
y = F.leaky_relu(a * 2, 0.1, inplace=True)
y.sum().backward()
print(y.grad_fn.name(), a.grad[0])
