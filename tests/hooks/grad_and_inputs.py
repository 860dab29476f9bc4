# torch.autograd.grad and backward(inputs=...): the hooks that fire (those on the part of the
# graph the engine executes), results equal to backward's, nothing accumulated by
# autograd.grad, allow_unused.  (No hooks on the tensors autograd.grad captures: torch 2.x runs
# them, the 1.13 oracle did not.)
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 0.25], requires_grad=True)
y = x * w
y.register_hook(lambda g: log.append(("y hook", r(g))) or g * 2)
s = y.sin()
s.register_hook(lambda g: log.append(("s hook", r(g))))
z = (s + y).sum()
gx, gw = torch.autograd.grad(z, (x, w), retain_graph=True)
print(log, rs([gx, gw]), x.grad, w.grad)
log.clear()
gs, = torch.autograd.grad(z, (x,), grad_outputs=torch.tensor(2.0), retain_graph=True)
print(log, r(gs))
log.clear()
w.register_hook(lambda g: log.append(("w hook", r(g))))
z.backward(inputs=[w], retain_graph=True)
print(log, x.grad, r(w.grad))
log.clear()
unused = torch.tensor([1.0], requires_grad=True)
g = torch.autograd.grad(z, (x, unused), allow_unused=True)
print(log, rs(g))
try:
    torch.autograd.grad(z, (unused,))
except RuntimeError as e:
    print("RuntimeError", e)
