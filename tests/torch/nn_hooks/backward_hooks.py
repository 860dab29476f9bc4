# Full backward hooks (register_full_backward_hook, register_module_full_backward_hook): the
# gradients w.r.t. the module's inputs and outputs, None for inputs that need no grad or are not
# tensors, a hook replacing grad_input, tuples of outputs, global hooks, removal.
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_full_backward_hook


def r(t):
    return None if t is None else [round(v, 4) for v in t.reshape(-1).tolist()]


def show(label):
    def hook(mod, grad_input, grad_output):
        print(label, type(mod).__name__, "grad_input", [r(g) for g in grad_input],
              "grad_output", [r(g) for g in grad_output])
    return hook


lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[2.0, -1.0]]))
    lin.bias.fill_(0.5)
h = lin.register_full_backward_hook(show("lin"))
x = torch.tensor([[1.0, 3.0]], requires_grad=True)
y = lin(x)
print("output", type(y).__name__, y.grad_fn is not None)
(y * 3).sum().backward()
print("x.grad", r(x.grad), "weight.grad", r(lin.weight.grad))
h.remove()


class Mix(nn.Module):
    def forward(self, a, b, scale):
        return a * b * scale, a + b


mix = Mix()
mix.register_full_backward_hook(show("mix"))
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
p, q = mix(a, b, 2.0)
(p.sum() + 10 * q.sum()).backward()
print("a.grad", r(a.grad))


def double_input_grad(mod, grad_input, grad_output):
    return tuple(None if g is None else g * 2 for g in grad_input)


lin2 = nn.Linear(2, 2)
with torch.no_grad():
    lin2.weight.copy_(torch.eye(2))
    lin2.bias.zero_()
lin2.register_full_backward_hook(double_input_grad)
lin2.register_full_backward_hook(show("after replacement"))
x2 = torch.tensor([1.0, 1.0], requires_grad=True)
lin2(x2).sum().backward()
print("x2.grad doubled", r(x2.grad))

order = []
gh = register_module_full_backward_hook(lambda m, gi, go: order.append("global " + type(m).__name__))
net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
net[0].register_full_backward_hook(lambda m, gi, go: order.append("module " + type(m).__name__))
net(torch.ones(1, 2, requires_grad=True)).sum().backward()
print("order", order)
gh.remove()
order.clear()
net(torch.ones(1, 2, requires_grad=True)).sum().backward()
print("after removing the global hook", order)


def bad_count(mod, grad_input, grad_output):
    return (grad_input[0], grad_input[0])


lin3 = nn.Linear(2, 2)
lin3.register_full_backward_hook(bad_count)
try:
    lin3(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
