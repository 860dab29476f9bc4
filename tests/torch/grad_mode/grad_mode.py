# torch.no_grad / enable_grad / set_grad_enabled / inference_mode as context managers and
# decorators, is_grad_enabled, nesting, restoring on exceptions.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
    y = x * 2
    with torch.enable_grad():
        print(torch.is_grad_enabled())
        z = x * 3
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled(), y.requires_grad, y.grad_fn, z.requires_grad, z.grad_fn.name())


@torch.no_grad()
def f(t):
    return t * 2, torch.is_grad_enabled()


r, enabled = f(x)
print(r.requires_grad, enabled, torch.is_grad_enabled(), f.__name__)


@torch.no_grad()
def g(t, k=1):
    """doc of g"""
    return t + k


print(g(x, k=5).tolist(), g.__doc__, g(x).requires_grad)


@torch.enable_grad()
def h(t):
    return t * 2


with torch.no_grad():
    print(h(x).requires_grad, torch.is_grad_enabled())

with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled(), (x * 1).requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 1).requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x * 1).requires_grad)
with torch.set_grad_enabled(True):
    print((x * 1).requires_grad)
mode = False
with torch.set_grad_enabled(mode):
    print(torch.is_grad_enabled())

try:
    with torch.no_grad():
        raise ValueError("boom")
except ValueError as e:
    print("ValueError", e, torch.is_grad_enabled())

with torch.inference_mode():
    print(torch.is_grad_enabled(), (x * 2).requires_grad)
print(torch.is_grad_enabled())
with torch.inference_mode(False):
    print(torch.is_grad_enabled())

with torch.no_grad():
    x.add_(1.0)
print(x.tolist(), x.requires_grad, x.is_leaf, x.grad_fn)
with torch.no_grad():
    w = torch.ones(2, requires_grad=True)
print(w.requires_grad, w.is_leaf)
ctx = torch.no_grad()
with ctx:
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
