# torch.special.erfinv / torch.erfinv / Tensor.erfinv(_): values (the domain edges included),
# dtypes, the in-place form's dtype check, first and second derivatives, and the same under
# torch.compile (a fused chain around it) — gradients must equal eager's.
import torch


def show(name, t):
    print(name, [round(v, 4) for v in t.flatten().tolist()], t.dtype)


x = torch.tensor([-0.999, -0.5, -0.1, 0.0, 0.3, 0.75, 0.9999])
show("erfinv", torch.special.erfinv(x))
show("torch.erfinv", torch.erfinv(x))
show("method", x.erfinv())
show("edges", torch.erfinv(torch.tensor([1.0, -1.0, 1.5, -2.0, float("nan")])))
show("round trip", torch.erf(torch.erfinv(torch.tensor([-0.8, 0.25, 0.6]))))
show("int", torch.erfinv(torch.tensor([0, 1, -1])))
show("bool", torch.tensor([True, False]).erfinv())
y = torch.tensor([[0.2, -0.4], [0.6, 0.0]])
y.erfinv_()
show("erfinv_", y)
try:
    torch.tensor([0, 1]).erfinv_()
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.special.erfinv([0.5])
except TypeError as e:
    print("TypeError", e)

a = torch.tensor([-0.6, -0.2, 0.1, 0.45, 0.7], requires_grad=True)
r = torch.erfinv(a)
print(r.grad_fn.name())
(g,) = torch.autograd.grad(r.sum(), a, create_graph=True)
show("grad", g)
(gg,) = torch.autograd.grad(g.sum(), a)
show("grad2", gg)


def f(t, w):
    return (torch.special.erfinv(t * 0.5) * w + t).tanh().sum()


w = torch.tensor([1.5, -1.0, 0.5, 2.0, -0.25], requires_grad=True)
t1 = torch.tensor([-1.2, -0.3, 0.2, 0.9, 1.6], requires_grad=True)
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
