# torch.autograd.graph.GradientEdge and get_gradient_edge; increment_version.
import torch
from torch.autograd.graph import GradientEdge, get_gradient_edge, increment_version

x = torch.tensor([1.0, 2.0], requires_grad=True)
e = get_gradient_edge(x)
print(type(e).__name__, e.node.name(), e.output_nr, e[1], len(e), isinstance(e, tuple))
y = x * 2
ey = get_gradient_edge(y)
print(ey.node is y.grad_fn, ey.node.name(), ey.output_nr)
u, v = x.unbind()
print(get_gradient_edge(v).node is v.grad_fn, get_gradient_edge(v).output_nr)
ge = GradientEdge(y.grad_fn, 0)
print(ge.node is y.grad_fn, ge.output_nr, ge == ey, GradientEdge._fields)
n, nr = ey
print(n.name(), nr)
print(get_gradient_edge(x).node is get_gradient_edge(x).node)
try:
    get_gradient_edge(torch.ones(2))
except RuntimeError as err:
    print("RuntimeError", err)

t = torch.tensor([1.0, 2.0])
print(t._version)
increment_version(t)
print(t._version)
increment_version(t)
increment_version(t)
print(t._version, t.tolist())
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
c = (b * b).sum()
increment_version(b)
try:
    c.backward()
except RuntimeError as err:
    print("RuntimeError", str(err).split(". Hint")[0])
