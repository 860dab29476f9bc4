# Tensor hooks on leaves and intermediates: the order they fire in (per tensor in registration
# order, tensors in the engine's order), the gradient they see, and replacements: a hook's
# return value is what later hooks, the node and .grad see.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []


def tag(name, factor=None):
    def hook(g):
        log.append((name, r(g)))
        if factor is not None:
            return g * factor
    return hook


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
x.register_hook(tag("x first"))
x.register_hook(tag("x doubles", 2.0))
x.register_hook(tag("x sees doubled"))
y = x * w
y.register_hook(tag("y", 10.0))
z = y.tanh()
z.register_hook(tag("z"))
u = z * z + y
u.register_hook(tag("u"))
loss = u.sum()
loss.register_hook(tag("loss"))
loss.backward()
for entry in log:
    print(entry)
print("x.grad", r(x.grad))
print("w.grad", r(w.grad))

# a tensor used twice: its hook sees the summed gradient, once
log.clear()
a = torch.tensor([2.0, -3.0], requires_grad=True)
b = a * 3
b.register_hook(tag("b (used twice)"))
c = b * b + b.exp()
c.sum().backward()
print(log)
print("a.grad", r(a.grad))

# hooks across two backward calls through a retained graph: they fire each time
log.clear()
p = torch.tensor([1.5, 0.5], requires_grad=True)
q = p.sigmoid()
q.register_hook(tag("q", 0.5))
s = (q * p).sum()
s.backward(retain_graph=True)
s.backward()
print(log)
print("p.grad (accumulated twice)", r(p.grad))

# hook on a view's base and on the view
log.clear()
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
n = m * 2
v = n[1]
n.register_hook(tag("n"))
v.register_hook(tag("v row", 3.0))
(v * torch.tensor([1.0, -1.0])).sum().backward()
print(log)
print("m.grad", r(m.grad))
