# retain_grad on intermediates and on the output: .grad of non-leaves, filled after the tensor's
# hooks (registered first) changed the gradient, accumulated over backward calls, and a
# tensor whose gradient is unused.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = x * 3
y.register_hook(lambda g: g + 1)
y.retain_grad()
z = y.relu()
z.retain_grad()
out = (z * z).sum()
out.retain_grad()
out.backward(retain_graph=True)
print("y.grad", r(y.grad))
print("z.grad", r(z.grad))
print("out.grad", r(out.grad))
print("x.grad", r(x.grad))
out.backward()
print("y.grad twice", r(y.grad))
print("z.grad twice", r(z.grad))
print("x.grad twice", r(x.grad))
print(y.retains_grad, x.retains_grad, y.is_leaf)

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = a * 5
c.retain_grad()
b.sum().backward()
print("c.grad (not on the path)", r(c.grad))
print("a.grad", r(a.grad))

# retain_grad on a tensor also passed as backward(inputs=...)
p = torch.tensor([3.0, 4.0], requires_grad=True)
q = p.exp()
q.retain_grad()
s = q.log().sum()
s.backward(inputs=[q])
print("q.grad", r(q.grad), "p.grad", r(p.grad))
