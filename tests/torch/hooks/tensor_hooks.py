# Tensor.register_hook on leaves and intermediates: observing, replacing the gradient, order,
# removal through the handle (also as a context manager), retain_grad.
import torch


def show(name, t):
    if t is None:
        print(name, None)
    else:
        print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


log = []
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h1 = x.register_hook(lambda g: log.append(("x1", g.tolist())))
h2 = x.register_hook(lambda g: g * 10)
h3 = x.register_hook(lambda g: log.append(("x3", g.tolist())))
y = x * 2
hy = y.register_hook(lambda g: log.append(("y", g.tolist())) or g + 1)
y.sum().backward()
print(log)
show("x.grad", x.grad)
print(type(h1).__name__, hasattr(h1, "remove"), isinstance(h1.id, int))
log.clear()
h2.remove()
h2.remove()
x.grad = None
(x * 2).sum().backward()
print(log)
show("x.grad after remove", x.grad)
log.clear()
h1.remove()
h3.remove()
x.grad = None

z = torch.tensor([1.0, -1.0], requires_grad=True)
with z.register_hook(lambda g: g * 0) as h:
    (z * 3).sum().backward()
show("z.grad inside with", z.grad)
z.grad = None
(z * 3).sum().backward()
show("z.grad after with", z.grad)

a = torch.tensor([2.0], requires_grad=True)
b = a * a
c = b * 3
b.retain_grad()
c.retain_grad()
print(b.retains_grad, a.retains_grad, c.is_leaf)
c.backward()
show("a.grad", a.grad)
show("b.grad", b.grad)
show("c.grad", c.grad)

seen = []


def hook_for(name):
    def hook(g):
        seen.append(name)
    return hook


p = torch.tensor([1.0], requires_grad=True)
q = p * 2
r = q * 3
p.register_hook(hook_for("p"))
q.register_hook(hook_for("q"))
r.register_hook(hook_for("r"))
r.backward()
print(seen)

m = torch.tensor([1.0, 1.0], requires_grad=True)
n = m * 4
n.register_hook(lambda g: g * 0.5)
n.retain_grad()
n.sum().backward()
show("n.grad (retain_grad after hook)", n.grad)
show("m.grad", m.grad)

