# torch.nn.functional.mish and nn.Mish: values (large and very negative inputs included), the
# in-place form, dtype errors, first and second derivatives, a model trained with nn.Mish, and
# the same under torch.compile around a fused chain — gradients must equal eager's.
import torch
import torch.nn as nn
import torch.nn.functional as F


def show(name, t):
    print(name, [round(v, 4) for v in t.flatten().tolist()], t.dtype)


x = torch.tensor([[-30.0, -3.0, -0.5, 0.0], [0.25, 1.0, 4.0, 100.0]])
show("mish", F.mish(x))
y = x.clone()
r = F.mish(y, inplace=True)
show("inplace", y)
print("same tensor", r is y)
show("kw", F.mish(input=x[0]))
m = nn.Mish()
print(m, nn.Mish(inplace=True))
show("module", m(x[1]))
for bad in [lambda: F.mish(torch.tensor([1, 2])), lambda: F.mish([1.0]), lambda: F.mish(x, True, 3)]:
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)

a = torch.tensor([-2.5, -0.7, 0.1, 0.9, 3.0], requires_grad=True)
o = F.mish(a)
print(o.grad_fn.name())
(g,) = torch.autograd.grad(o.sum(), a, create_graph=True)
show("grad", g)
(gg,) = torch.autograd.grad(g.sum(), a)
show("grad2", gg)

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Mish(), nn.Linear(4, 1))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
inp = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]])
loss = net(inp).pow(2).mean()
loss.backward()
show("loss", loss.detach())
show("w0 grad", net[0].weight.grad)


def f(t, w):
    return (F.mish(t * w + 0.5) * w).sum()


w = torch.tensor([1.5, -1.0, 0.5, 2.0, -0.25], requires_grad=True)
t1 = torch.tensor([-2.0, -0.3, 0.2, 0.9, 3.0], requires_grad=True)
f(t1, w).backward()
show("eager dt", t1.grad)
show("eager dw", w.grad)
cf = torch.compile(f)
t2 = t1.detach().clone().requires_grad_(True)
w2 = w.detach().clone().requires_grad_(True)
cf(t2, w2).backward()
show("compiled dt", t2.grad)
show("compiled dw", w2.grad)
print("bitwise", torch.equal(t1.grad, t2.grad) and torch.equal(w.grad, w2.grad))
