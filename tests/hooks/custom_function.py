# A custom autograd Function inside a graph with hooks: its backward runs at the engine's
# point, sees the hooked gradient, and the hooks around it fire in order; materialized zeros
# for an unused output; gradients and node hooks on its grad_fn.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * 2 + y, x - y

    @staticmethod
    def backward(ctx, g1, g2):
        x, y = ctx.saved_tensors
        log.append(("backward", r(g1), r(g2)))
        return g1 * 2 + g2 + x * 0, g1 - g2 + y * 0


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([-1.0, 0.5], requires_grad=True)
pre = a * 3
pre.register_hook(lambda g: log.append(("pre hook", r(g))))
o1, o2 = ScaleShift.apply(pre, b)
o1.register_hook(lambda g: log.append(("o1 hook", r(g))) or g * 10)
o1.grad_fn.register_hook(lambda gI, gO: log.append(("fn post", rs(gI), rs(gO))))
(o1 * o1).sum().backward()
for entry in log:
    print(entry)
print("a.grad", r(a.grad), "b.grad", r(b.grad))

log.clear()
a.grad = None
o1, o2 = ScaleShift.apply(a * 1, b)
(o1.sum() + o2.sum() * 3).backward()
print(log, "a.grad", r(a.grad))
