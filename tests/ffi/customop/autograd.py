# Custom ops under autograd: the op's node (grad_fn, next_functions), gradients from the
# backward kernel checked against the gradients of the same computation in plain torch ops,
# several outputs used together or one at a time (the unused one's gradient is zeros), scalar
# arguments (not differentiable), chains with built-in ops, retain_graph, hooks on outputs,
# torch.autograd.grad, and inputs that do not require grad.
import torch
import _oplib

torch.ops.load_library(_oplib.path("EMBER_TEST_OPS"))
ops = torch.ops.test


def pair(data):
    a = torch.tensor(data, requires_grad=True)
    b = torch.tensor(data, requires_grad=True)
    return a, b


x1, x2 = pair([[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]])
y1, y2 = pair([[0.5, 0.5, 0.5], [1.0, 2.0, 3.0]])
z = ops.scale_add(x1, y1, 3.0)
print(z.requires_grad, z.grad_fn.name(), z.is_leaf)
print([type(f).__name__ if f is not None else None for f, _ in z.grad_fn.next_functions])
(z * z).sum().backward()
ref = 3.0 * x2 + y2
(ref * ref).sum().backward()
print(torch.allclose(x1.grad, x2.grad), torch.allclose(y1.grad, y2.grad))
print(x1.grad)

a1, a2 = pair([0.1, 0.7, -1.3, 2.0])
s, c = ops.sincos(a1)
loss = (s * c + 2 * s).sum()
loss.backward()
(torch.sin(a2) * torch.cos(a2) + 2 * torch.sin(a2)).sum().backward()
print(torch.allclose(a1.grad, a2.grad, atol=1e-6), s.grad_fn is c.grad_fn, s.grad_fn.name())
a1.grad = None
a2.grad = None
s, c = ops.sincos(a1)
c.sum().backward()                     # s unused: its gradient arrives as zeros
torch.cos(a2).sum().backward()
print(torch.allclose(a1.grad, a2.grad, atol=1e-6))

m1, m2 = pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
r = ops.row_sum(m1 * 2, keepdim=True)
out = (r.exp() * torch.tensor([[1.0], [-1.0]])).sum()
out.backward(retain_graph=True)
((m2 * 2).sum(-1, keepdim=True).exp() * torch.tensor([[1.0], [-1.0]])).sum().backward()
print(torch.allclose(m1.grad, m2.grad, rtol=1e-4), [type(f).__name__ for f, _ in r.grad_fn.next_functions])
out.backward()
print(torch.allclose(m1.grad, 2 * m2.grad, rtol=1e-4))

p1, p2 = pair([0.5, -1.5, 2.0])
g1, = torch.autograd.grad(ops.poly(p1, 3, 2.0).sum(), p1)
g2, = torch.autograd.grad((2.0 * p2 ** 3).sum(), p2)
print(torch.allclose(g1, g2), g1)

h1, h2 = pair([1.0, 2.0])
seen = []
q = ops.scale_add(h1, h1, 1.0)
q.register_hook(lambda g: seen.append(g.tolist()))
(q * torch.tensor([3.0, 4.0])).sum().backward()
print(seen, h1.grad)

frozen = torch.tensor([1.0, 2.0])
trained = torch.tensor([3.0, 4.0], requires_grad=True)
v = ops.scale_add(frozen, trained, 5.0)
v.sum().backward()
print(trained.grad, frozen.grad, v.grad_fn.name())
n = ops.count_above(trained, 3.5)
print(n, n.requires_grad)
