# Tensor.backward and torch.autograd.backward: gradient argument, accumulation, retain_graph,
# inputs=, create_graph, several roots.
import torch


def show(name, t):
    if t is None:
        print(name, None)
    else:
        print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).sum()
y.backward()
show("x.grad", x.grad)
show("w.grad", w.grad)
y2 = (x * x).sum()
y2.backward()
show("x.grad accumulated", x.grad)
x.grad = None
w.grad = None

v = x * w
v.backward(torch.tensor([1.0, 0.5, 0.0]))
show("x.grad gradient=", x.grad)
x.grad = None
v = x * w
v.backward(gradient=torch.ones(3))
show("x.grad gradient kw", x.grad)
x.grad = None
w.grad = None

y = (x ** 2).sum()
y.backward(retain_graph=True)
y.backward()
show("x.grad twice retained", x.grad)
x.grad = None

y = (x * w).sum() + (x ** 2).sum()
y.backward(inputs=[x])
show("x.grad inputs=[x]", x.grad)
show("w.grad inputs=[x]", w.grad)
x.grad = None
y = (x * w).sum()
y.backward(inputs=w)
show("x.grad inputs=w", x.grad)
show("w.grad inputs=w", w.grad)
w.grad = None

a = (x * 2).sum()
b = (x * w).sum()
torch.autograd.backward([a, b])
show("x.grad two roots", x.grad)
show("w.grad two roots", w.grad)
x.grad = None
w.grad = None
u = x * 2
torch.autograd.backward(u, grad_tensors=torch.tensor([1.0, 2.0, 3.0]))
show("x.grad grad_tensors", x.grad)
x.grad = None
p = x * w
q = x + w
torch.autograd.backward((p, q), (torch.ones(3), torch.full((3,), 2.0)))
show("x.grad tuple roots", x.grad)
show("w.grad tuple roots", w.grad)
x.grad = None
w.grad = None
y = (x * w).sum()
torch.autograd.backward(y, inputs=[w], retain_graph=True)
show("w.grad autograd.backward inputs", w.grad)
torch.autograd.backward(y, inputs=(x,))
show("x.grad autograd.backward inputs", x.grad)
x.grad = None
w.grad = None

h = torch.tensor([2.0], requires_grad=True)
out = h * h * h
out.backward()
show("h.grad", h.grad)
n = x.detach().requires_grad_()
m = n.clone()
m.retain_grad()
(m * 3).sum().backward()
show("n.grad", n.grad)
show("m.grad retain_grad", m.grad)
print(m.retains_grad, n.retains_grad)
