# torch.utils.checkpoint: gradients equal to the plain run's (bit for bit: the same ops run
# again), dropout replayed from the forward's random state, both implementations, non-tensor
# arguments, checkpoint_sequential, and PyTorch's errors and warnings.
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def bits(t):
    return [float(v).hex() for v in t.detach().reshape(-1)[:6]]


torch.manual_seed(0)
block = nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Dropout(0.3), nn.Linear(8, 4))
x = torch.randn(5, 6, requires_grad=True)


def grads(run):
    block.zero_grad()
    x.grad = None
    torch.manual_seed(7)
    out = run(x)
    (out * torch.arange(4.0)).sum().backward()
    return [bits(out), bits(x.grad)] + [bits(p.grad) for p in block.parameters()]


plain = grads(block)
reentrant = grads(lambda t: checkpoint(block, t))
nonreentrant = grads(lambda t: checkpoint(block, t, use_reentrant=False))
print(plain == reentrant, plain == nonreentrant)
print(plain[0], plain[1])


def scaled(t, factor, *, shift=0.0):
    return block(t) * factor + shift


print(grads(lambda t: checkpoint(scaled, t, 2.0)) == grads(lambda t: scaled(t, 2.0)))
print(grads(lambda t: checkpoint(scaled, t, 2.0, use_reentrant=False, shift=1.0))
      == grads(lambda t: scaled(t, 2.0, shift=1.0)))
# without preserve_rng_state the replay draws a fresh dropout mask: the gradient differs
print(grads(lambda t: checkpoint(block, t, preserve_rng_state=False)) == plain)

deep = nn.Sequential(*[nn.Sequential(nn.Linear(6, 6), nn.Tanh()) for _ in range(4)])
torch.manual_seed(1)
y = torch.randn(3, 6, requires_grad=True)
deep(y).sum().backward()
ref = [bits(p.grad) for p in deep.parameters()] + [bits(y.grad)]
deep.zero_grad()
y.grad = None
checkpoint_sequential(deep, 2, y).sum().backward()
print(ref == [bits(p.grad) for p in deep.parameters()] + [bits(y.grad)])

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = checkpoint(block, torch.randn(2, 6))
    print([str(m.message) for m in w], out.requires_grad)
try:
    checkpoint(scaled, x, 2.0, shift=1.0)
except ValueError as e:
    print("ValueError", e)
try:
    checkpoint_sequential(deep, 2, y, foo=1)
except ValueError as e:
    print("ValueError", e)
try:
    out = checkpoint(block, x)
    torch.autograd.grad(out.sum(), x)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    out = checkpoint(lambda t: block(t).detach(), x)
    out.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
out = checkpoint(block, x, use_reentrant=False)
loss = out.sum()
loss.backward(retain_graph=True)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError", e)
