# Hooks registered inside functions (so that under --compile-all the forward is a compiled
# region: hooks on intermediates become hook nodes the compiled backward calls, hooks on inputs
# are replayed by residual code), with hooks registered outside on its outputs, retain_grad,
# a node post-hook and a multi-grad hook: every call in eager's order with eager's gradients.
import torch
from torch.autograd.graph import register_multi_grad_hook


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


log = []


def tag(name, factor=None):
    def hook(g):
        log.append((name, r(g)))
        if factor is not None:
            return g * factor
    return hook


def forward(x, w, b):
    x.register_hook(tag("input x"))
    h = x @ w
    h.register_hook(tag("h (intermediate)", 0.5))
    a = torch.tanh(h + b)
    a.register_hook(lambda g: log.append(("a (lambda)", r(g))))
    out = (a * a).sum(dim=1)
    return out, a


def loss_of(out):
    return (out * torch.tensor([1.0, -2.0])).sum()


x = torch.tensor([[1.0, 0.5], [-0.5, 2.0]], requires_grad=True)
w = torch.tensor([[0.3, -0.2, 0.1], [0.4, 0.5, -0.6]], requires_grad=True)
b = torch.tensor([0.1, 0.0, -0.1], requires_grad=True)
for step in range(2):
    log.clear()
    x.grad = w.grad = b.grad = None
    out, a = forward(x, w, b)
    out.register_hook(tag("out (outside)"))
    a.retain_grad()
    out.grad_fn.register_hook(lambda gi, go: log.append(("out.grad_fn post", r(go[0]))))
    register_multi_grad_hook((out, a), lambda grads: log.append(("multi all", [r(g) for g in grads])))
    loss = loss_of(out)
    loss.backward()
    print("step", step, "loss", round(loss.item(), 4))
    for entry in log:
        print(" ", entry)
    print("  a.grad", r(a.grad))
    print("  x.grad", r(x.grad), "w.grad", r(w.grad), "b.grad", r(b.grad))
