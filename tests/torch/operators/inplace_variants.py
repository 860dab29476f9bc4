# In-place forms of unary and binary pointwise ops (sin_, exp_, pow_, **=, %=, //=, &=, ...):
# identity, values, version counter, autograd through them, PyTorch's errors.
import torch


def show(name, t):
    vals = t.detach().reshape(-1).tolist()
    if t.dtype == torch.float32:
        vals = [round(v, 4) for v in vals]
    print(name, t.dtype, vals, t._version)


x = torch.tensor([0.5, 1.0, 2.0])
for name in ["neg_", "abs_", "exp_", "log_", "sqrt_", "rsqrt_", "tanh_", "sigmoid_", "sin_", "cos_", "sign_",
             "reciprocal_", "floor_", "ceil_", "round_", "erf_", "negative_"]:
    t = x.clone()
    r = getattr(t, name)()
    print(r is t, end=" ")
    show(name, t)
l = torch.tensor([1.5, 0.0])
l.logical_not_()
show("logical_not_ on float", l)
i = torch.tensor([-3, 4])
i.neg_()
i.abs_()
show("int neg_ abs_", i)
p = torch.tensor([1.0, 2.0, 3.0])
p.pow_(2)
show("pow_ 2", p)
p.pow_(torch.tensor([0.5, 0.5, 1.0]))
show("pow_ tensor", p)
p **= 2
show("**=", p)
p %= 4
show("%=", p)
p //= torch.tensor([2.0, 1.0, 1.0])
show("//=", p)
p.remainder_(3)
show("remainder_", p)
p.floor_divide_(2)
show("floor_divide_", p)
m = torch.tensor([True, False, True])
m &= torch.tensor([True, True, False])
show("&=", m)
m |= torch.tensor([False, True, False])
show("|=", m)
m ^= torch.tensor([True, True, True])
show("^=", m)
m.logical_or_(torch.tensor([True, False, False]))
show("logical_or_", m)

w = torch.tensor([0.5, 1.0], requires_grad=True)


def backward_of(name, out):
    w.grad = None
    try:
        out.sum().backward()
        print(name, [round(v, 4) for v in w.grad.tolist()])
    except RuntimeError as e:
        print(name, "RuntimeError", str(e).split(". Hint")[0])


y = w * 1
y.sin_()
print(y.grad_fn.name(), y._version, y.is_leaf)
y.exp_()
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.pow_(2)
print(y.grad_fn.name())
backward_of("sin_ exp_ pow_", y)
y = w * 1
y.sin_()
y.pow_(2)
backward_of("sin_ pow_", y)
z = w * 2
z.tanh_()
z.mul_(3)
backward_of("tanh_ mul_", z)
z = w * 2
z.tanh_()
backward_of("tanh_", z * 3)
z = w * 2
z.cos_()
z.add_(1)
z.reciprocal_()
backward_of("cos_ add_ reciprocal_", z)
v = w.clone()
s = v.exp()
v.sigmoid_()
backward_of("exp then sigmoid_ of its input", s)
v2 = w.clone()
v2.exp_().sqrt_()
backward_of("exp_ sqrt_", v2)
v3 = w.clone()
v3.abs_().log_().neg_()
backward_of("abs_ log_ neg_", v3)
try:
    w.sin_()
except RuntimeError as e:
    print("RuntimeError", e)
try:
    w[0:1].exp_()
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.tensor([1, 2]).exp_()
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.tensor([1, 2]).pow_(0.5)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.ones(3).pow_(torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError", e)
with torch.no_grad():
    w.sin_()
print([round(v, 4) for v in w.tolist()], w.requires_grad, w.grad_fn)
base = torch.zeros(2, 3, requires_grad=True).clone()
row = base[1]
row.exp_()
print(base.grad_fn.name(), row.grad_fn.name(), base.tolist())
