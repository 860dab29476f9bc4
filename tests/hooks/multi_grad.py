# torch.autograd.graph.register_multi_grad_hook: mode "all" (once every tensor's gradient that
# this backward computes is ready, None for the others) and mode "any" (on the first one),
# with backward(inputs=...), torch.autograd.grad, removal, and the order with other hooks.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
d = a + b
torch.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda gs: log.append(("all", rs(gs))))
c.register_hook(lambda g: log.append(("c hook", r(g))))
c.sum().backward(retain_graph=True)
(c * d).sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
for entry in log:
    print(entry)

log.clear()
u = torch.tensor([1.0, -1.0], requires_grad=True)
s = u * 2
t = u * 3
h = torch.autograd.graph.register_multi_grad_hook((s, t), lambda g: log.append(("any", r(g))), mode="any")
(s.sum() + (t * t).sum()).backward(retain_graph=True)
(t.sum()).backward(retain_graph=True)
h.remove()
(s.sum() + t.sum()).backward()
print(log)
print("u.grad", r(u.grad))

# a backward that reaches only some of the tensors: "all" fires with None for the others
log.clear()
x = torch.tensor([0.5, 1.5], requires_grad=True)
k = torch.tensor([2.0, 2.0], requires_grad=True)
y = x.exp()
z = y * k
torch.autograd.graph.register_multi_grad_hook((y, z, k), lambda gs: log.append(("all y z k", rs(gs))))
y.sum().backward(retain_graph=True)
z.sum().backward(inputs=[k])
print(log, r(x.grad), r(k.grad))
