# The Python surface of unary pointwise ops generated from the op table (ops.def PY column):
# Tensor methods and their in-place forms, torch.*, torch.nn.functional and torch.special,
# keyword parameters, dtype rules and the errors of bad arguments; gradients eager and compiled.
import torch
import torch.nn.functional as F


def show(name, t):
    print(name, [round(v, 4) for v in t.flatten().tolist()], t.dtype)


x = torch.tensor([[-1.5, 0.25, 2.0], [0.5, -0.75, 3.0]])
show("expit", torch.special.expit(x))
show("special.erf", torch.special.erf(x))
show("special.round", torch.special.round(x))
show("sigmoid", x.sigmoid())
show("F.gelu", F.gelu(x))
show("F.gelu tanh", F.gelu(x, approximate="tanh"))
show("F.leaky_relu", F.leaky_relu(x))
show("F.leaky_relu 0.2", F.leaky_relu(x, 0.2))
show("F.leaky_relu kw", F.leaky_relu(x, negative_slope=0.3))
show("F.silu", F.silu(x))
y = x.clone()
y.tanh_()
show("tanh_", y)
show("torch.abs", torch.abs(x))
show("abs()", abs(x))
show("neg_", torch.neg_(x.clone()))
show("negative", x.negative())
show("int sqrt", torch.tensor([1, 4, 9]).sqrt())
show("int sign", torch.tensor([3, -2, 0]).sign())
show("logical_not", torch.tensor([1.5, 0.0]).logical_not())

for bad in [lambda: F.gelu(x, approximate="foo"), lambda: torch.tanh(3), lambda: torch.special.expit("a"),
            lambda: torch.tensor([True]).neg(), lambda: F.leaky_relu(torch.tensor([1, 2])),
            lambda: torch.tensor([True]).relu(), lambda: torch.tensor([1, 2]).exp_(),
            lambda: F.leaky_relu(x, "a"), lambda: torch.tensor([True, False]).floor()]:
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)


def f(a):
    return (torch.special.expit(a) * F.gelu(a) + F.leaky_relu(a, 0.1).tanh() + a.erf()).sum()


a = x.clone().requires_grad_(True)
f(a).backward()
show("grad", a.grad)
cf = torch.compile(f)
b = x.clone().requires_grad_(True)
cf(b).backward()
show("compiled grad", b.grad)
