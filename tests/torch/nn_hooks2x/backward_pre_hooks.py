# torch 2.x full backward pre-hooks: register_full_backward_pre_hook (grad_output before the
# module's backward, may replace it), prepend, and the global
# register_module_full_backward_pre_hook; order relative to full backward hooks.
# (_backport_2x gives the PyTorch 1.13 oracle these 2.x APIs; under Ember it does nothing.)
import _backport_2x
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_full_backward_pre_hook

log = []


def r(t):
    return None if t is None else [round(v, 4) for v in t.reshape(-1).tolist()]


lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -2.0]]))
    lin.bias.zero_()


def pre(mod, grad_output):
    log.append("pre " + str([r(g) for g in grad_output]))
    return (grad_output[0] * 3,)


def pre_first(mod, grad_output):
    log.append("pre_first " + str([r(g) for g in grad_output]))


def post(mod, grad_input, grad_output):
    log.append("post grad_input=" + str([r(g) for g in grad_input]) + " grad_output=" + str([r(g) for g in grad_output]))


lin.register_full_backward_pre_hook(pre)
lin.register_full_backward_pre_hook(pre_first, prepend=True)
lin.register_full_backward_hook(post)
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
lin(x).sum().backward()
for line in log:
    print(line)
print("x.grad", r(x.grad), "weight.grad", r(lin.weight.grad))
log.clear()

g = register_module_full_backward_pre_hook(lambda mod, go: log.append("global pre " + type(mod).__name__))
net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
net(torch.ones(1, 2, requires_grad=True)).sum().backward()
print(log)
g.remove()
log.clear()
net(torch.ones(1, 2, requires_grad=True)).sum().backward()
print("after remove", log)

lin2 = nn.Linear(2, 2)
lin2.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
try:
    lin2(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
