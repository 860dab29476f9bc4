# torch.autograd.grad: outputs/inputs, grad_outputs, allow_unused, create_graph, retain_graph,
# materialize_grads; .grad of leaves is left alone.
import torch


def show(name, t):
    if t is None:
        print(name, None)
    else:
        print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()], t.requires_grad)


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).sum()
gx, gw = torch.autograd.grad(y, [x, w])
show("gx", gx)
show("gw", gw)
print(x.grad, w.grad)
(gx2,) = torch.autograd.grad((x ** 2).sum(), x)
show("gx2", gx2)
v = x * w
(g,) = torch.autograd.grad(v, x, grad_outputs=torch.tensor([1.0, 0.0, 2.0]))
show("grad_outputs", g)
try:
    torch.autograd.grad([v], [w], grad_outputs=[torch.ones(3)])
except RuntimeError as e:
    print("RuntimeError", e)
v = x * w
(g,) = torch.autograd.grad([v], [w], grad_outputs=[torch.ones(3)])
show("grad_outputs list", g)
z = torch.tensor([1.0], requires_grad=True)
y = (x * 2).sum()
gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True)
show("gx allow_unused", gx)
show("gz allow_unused", gz)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
show("create_graph", g)
(g2,) = torch.autograd.grad(g.sum(), x)
show("second order", g2)
y = (x * w).sum()
(a,) = torch.autograd.grad(y, x, retain_graph=True)
(b,) = torch.autograd.grad(y, w)
show("retain a", a)
show("retain b", b)
h = x * 2
k = (h * h).sum()
(gh,) = torch.autograd.grad(k, h)
show("grad wrt intermediate", gh)
o1 = (x * 2).sum()
o2 = (x * 3).sum()
(gs,) = torch.autograd.grad([o1, o2], x)
show("two outputs", gs)
print(x.grad, w.grad)
try:
    torch.autograd.grad((x * 2).sum(), [x, z])
except RuntimeError as e:
    print("RuntimeError", e)
