# torch.logit / torch.special.logit / Tensor.logit(_) with and without eps: values (the domain
# edges and clipping included), dtypes, keyword and positional eps, the in-place form's dtype
# check, first and second derivatives (zero outside [eps, 1 - eps], NaN outside [0, 1] without
# eps), and the same under torch.compile around a fused chain — gradients must equal eager's.
import torch


def show(name, t):
    print(name, [round(v, 4) for v in t.flatten().tolist()], t.dtype)


x = torch.tensor([0.0, 0.05, 0.25, 0.5, 0.8, 0.999, 1.0, -0.5, 1.5, float("nan")])
show("logit", torch.logit(x))
show("eps 0.1", torch.logit(x, 0.1))
show("eps kw", torch.special.logit(x, eps=1e-6))
show("eps None", x.logit(eps=None))
show("eps 0", x.logit(0))
show("int", torch.logit(torch.tensor([0, 1, 2])))
show("int eps", torch.tensor([0, 1]).logit(0.25))
y = torch.tensor([[0.2, 0.9], [0.5, 0.01]])
y.logit_(0.05)
show("logit_", y)
for bad in [lambda: torch.tensor([0, 1]).logit_(), lambda: torch.logit(x, "a"), lambda: torch.logit(x, eps=[0.1]),
            lambda: torch.logit([0.5])]:
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)

a = torch.tensor([-0.2, 0.02, 0.3, 0.6, 0.97, 1.2], requires_grad=True)
r = torch.logit(a, eps=0.05)
print(r.grad_fn.name())
(g,) = torch.autograd.grad(r.sum(), a, create_graph=True)
show("grad eps", g)
(gg,) = torch.autograd.grad(g.sum(), a)
show("grad2 eps", gg)
(g,) = torch.autograd.grad(torch.logit(a).sum(), a)
show("grad", g)


def f(t, w):
    return (torch.special.logit(t.sigmoid() * 0.9 + 0.05, eps=0.1) * w).sum() + torch.logit(t.sigmoid()).sum()


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
