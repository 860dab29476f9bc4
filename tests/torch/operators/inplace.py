# In-place operators and methods: +=, -=, *=, /=, add_/sub_/mul_/div_, zero_, fill_, copy_,
# clamp_, masked_fill_, relu_; identity is preserved and the version counter bumps.
import torch


def show(name, t):
    print(name, t.dtype, list(t.shape), [round(v, 4) for v in t.reshape(-1).tolist()], t._version)


x = torch.tensor([1.0, 2.0, 3.0])
ident = id(x)
x += 1
show("+=", x)
x -= torch.tensor([0.5, 0.5, 0.5])
show("-=", x)
x *= 2
show("*=", x)
x /= torch.tensor([1.0, 2.0, 4.0])
show("/=", x)
print(id(x) == ident)
x.add_(1, alpha=2)
show("add_ alpha", x)
x.sub_(torch.ones(3))
show("sub_", x)
x.mul_(torch.tensor(0.5))
show("mul_", x)
x.div_(2)
show("div_", x)
x.zero_()
show("zero_", x)
x.fill_(1.25)
show("fill_", x)
x.copy_(torch.tensor([3.0, -1.0, 0.5]))
show("copy_", x)
x.clamp_(min=0.0, max=1.0)
show("clamp_", x)
x.masked_fill_(x > 0.7, -2.0)
show("masked_fill_", x)
x.relu_()
show("relu_", x)
m = torch.zeros(2, 3)
m.copy_(torch.tensor([1.0, 2.0, 3.0]))
show("copy_ broadcast", m)
m[0] += 5
show("row +=", m)
v = m[1]
v.mul_(10)
show("view mul_ changes base", m)
i = torch.tensor([1, 2, 3])
i += 2
i *= 3
print(i.tolist(), i.dtype)
r = x.add_(1)
print(r is x)
y = torch.tensor([1.0, 2.0])
z = y
y += 1
print(z is y, z.tolist())
y = y + 1
print(z is y, z.tolist(), y.tolist())
