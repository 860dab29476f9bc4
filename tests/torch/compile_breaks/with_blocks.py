# Graph breaks inside `with torch.no_grad()` / `enable_grad()` / `set_grad_enabled()` blocks
# under torch.compile: the graph before the break runs, the breaking instruction runs with the
# block's grad mode, and a resume function continues inside the block (its __exit__ restores the
# mode).  An exception raised at the break still leaves the mode as it was before the block.
import torch


def show(tag, t):
    print(tag, [round(v, 4) for v in t.reshape(-1).tolist()], t.requires_grad)


@torch.compile
def no_grad_break(x):
    y = x * 2
    with torch.no_grad():
        z = y + 1
        print("inside no_grad: grad enabled =", torch.is_grad_enabled())
        w = z * 3
    return w + y


@torch.compile
def nested(x):
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = x * a
            print("inside enable_grad:", torch.is_grad_enabled(), b.requires_grad)
            c = b.sum()
        d = a + 1
        print("back in no_grad:", torch.is_grad_enabled())
    return c, d


@torch.compile
def set_grad(x, flag):
    with torch.set_grad_enabled(flag):
        y = x.exp()
        print("set_grad_enabled(%s):" % flag, torch.is_grad_enabled())
        z = y * 2
    return z


@torch.compile
def raises_inside(x):
    with torch.no_grad():
        y = x * 2
        print("about to fail")
        int("not a number")
        return y


@torch.compile
def in_try(x):
    y = x + 1
    try:
        print("in try")
        z = y * 2
    except ValueError:
        z = y
    return z


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
r = no_grad_break(x)
show("no_grad_break", r)
r.sum().backward()
show("x.grad", x.grad)
print("after:", torch.is_grad_enabled())

x.grad = None
c, d = nested(x)
show("nested c", c)
show("nested d", d)
c.backward()
show("x.grad", x.grad)
print("after:", torch.is_grad_enabled())

for flag in [False, True]:
    show("set_grad", set_grad(x, flag))
print("after:", torch.is_grad_enabled())

try:
    raises_inside(x)
except ValueError as e:
    print("ValueError:", e)
print("after the exception: grad enabled =", torch.is_grad_enabled())

show("in_try", in_try(x))
for i in range(3):
    r = no_grad_break(x)
show("no_grad_break again", r)
