# torch.autograd.graph.allow_mutation_on_saved_tensors: the seed's docstring example, the error
# without it, nesting, clearing on exit.
import torch


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
    a = torch.ones(2, 3, requires_grad=True)
    b = a.clone()
    out = (b ** 2).sum()
    b.sin_()
    out.sum().backward()
    show("a.grad", a.grad)
    show("b", b)
    print(type(ctx).__name__)

a = torch.ones(2, 3, requires_grad=True)
b = a.clone()
out = (b ** 2).sum()
b.sin_()
try:
    out.backward()
except RuntimeError as e:
    print("RuntimeError", str(e).split(". Hint")[0])

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    z = (y * y).sum()
    y.mul_(torch.tensor(100.0))
    y.add_(torch.ones(3))
    w = (y * x).sum()
    (z + w).backward()
    show("x.grad", x.grad)
    show("y", y)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    try:
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            pass
    except RuntimeError as e:
        print("RuntimeError", e)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    m = torch.tensor([1.0, 2.0], requires_grad=True)
    n = m.clone()
    o = n.exp().sum()
    n.zero_()
    o.backward()
    show("m.grad", m.grad)
