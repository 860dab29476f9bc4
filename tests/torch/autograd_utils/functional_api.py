# torch.autograd.functional: jacobian / hessian / vjp / jvp / vhp / hvp values and result
# nesting, create_graph, strict mode, and PyTorch's errors.
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def show(label, r):
    if isinstance(r, tuple):
        print(label, "tuple", len(r))
        for i, el in enumerate(r):
            show(label + "[%d]" % i, el)
    else:
        print(label, tuple(r.shape), r.requires_grad, [round(float(v), 6) for v in r.reshape(-1)[:8]])


torch.manual_seed(0)
x = torch.randn(3, dtype=torch.float64)
y = torch.randn(2, dtype=torch.float64)
A = torch.randn(2, 3, dtype=torch.float64)


def f(a):
    return a.exp() * a.sum()


def g(a, b):
    return (A @ a.sin()) * b, (a * a).sum() + b.prod()


def scalar(a, b):
    return (a.pow(3).sum() * b.sum()).reshape(1)


show("jac f", jacobian(f, x))
show("jac g", jacobian(g, (x, y)))
show("jac g vec", jacobian(g, (x, y), vectorize=True))
show("jac tuple-in", jacobian(lambda a: a * 2, (x,)))
show("hess", hessian(lambda a: (a.exp() * a).sum(), x))
show("hess 2", hessian(scalar, (x, y)))
show("vjp", vjp(f, x, torch.ones(3, dtype=torch.float64)))
show("vjp scalar", vjp(lambda a: a.pow(2).sum(), x))
show("jvp", jvp(f, x, torch.arange(3.0, dtype=torch.float64)))
show("jvp g", jvp(g, (x, y), (torch.ones(3, dtype=torch.float64), torch.ones(2, dtype=torch.float64))))
show("vhp", vhp(lambda a: (a.exp() * a).sum(), x, torch.ones(3, dtype=torch.float64)))
show("hvp", hvp(lambda a: (a.exp() * a).sum(), x, torch.ones(3, dtype=torch.float64)))
xr = x.clone().requires_grad_()
j = jacobian(f, xr, create_graph=True)
print(j.requires_grad)
j.sum().backward()
show("jac grad", xr.grad)
show("independent", jacobian(lambda a, b: a * 2, (x, y)))

for label, call in [
    ("not tensor", lambda: jacobian(f, [x])),
    ("tuple not tensor", lambda: jacobian(g, (x, 1.0))),
    ("strict indep", lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True)),
    ("strict no grad", lambda: vjp(lambda a: torch.ones(3), x, torch.ones(3), strict=True)),
    ("v none", lambda: vjp(f, x)),
    ("v size", lambda: vjp(f, x, torch.ones(4, dtype=torch.float64))),
    ("v length", lambda: jvp(g, (x, y), (torch.ones(3, dtype=torch.float64),))),
    ("v single", lambda: vjp(f, x, (torch.ones(3), torch.ones(3)))),
    ("hessian vector", lambda: hessian(f, x)),
    ("hessian tuple", lambda: hessian(g, (x, y))),
    ("vhp vector", lambda: vhp(f, x, torch.ones(3, dtype=torch.float64))),
    ("strict vectorize", lambda: jacobian(f, x, strict=True, vectorize=True)),
    ("strategy", lambda: jacobian(f, x, strategy="sideways")),
    ("fwd create", lambda: jacobian(f, x, strategy="forward-mode", create_graph=True)),
]:
    try:
        call()
        print(label, "no error")
    except Exception as e:
        print(label, type(e).__name__, e)
