# torch.autograd.graph.save_on_cpu and disable_saved_tensors_hooks.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor([5.0, 6.0], requires_grad=True)


def f(a, b, c):
    prod_1 = a * b
    with torch.autograd.graph.save_on_cpu():
        prod_2 = prod_1 * c
    y = prod_2 * a
    return y


y = f(a, b, c)
y.sum().backward()
print(a.grad, b.grad, c.grad)
with torch.autograd.graph.save_on_cpu(pin_memory=True):
    z = (a * b).exp()
z.sum().backward()
print([round(v, 2) for v in a.grad.tolist()])

message = "saved tensors default hooks are disabled"
with torch.autograd.graph.disable_saved_tensors_hooks(message):
    try:
        with torch.autograd.graph.save_on_cpu():
            pass
    except RuntimeError as e:
        print("RuntimeError", e)
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    except RuntimeError as e:
        print("RuntimeError", e)
    w = a * b
    print(w.requires_grad)
    with torch.autograd.graph.disable_saved_tensors_hooks("inner message"):
        try:
            with torch.autograd.graph.save_on_cpu():
                pass
        except RuntimeError as e:
            print("RuntimeError", e)
    try:
        with torch.autograd.graph.save_on_cpu():
            pass
    except RuntimeError as e:
        print("RuntimeError", e)
with torch.autograd.graph.save_on_cpu():
    v = a * b
print("enabled again", v.grad_fn.name())
try:
    with torch.autograd.graph.disable_saved_tensors_hooks("during"):
        raise ValueError("inside")
except ValueError as e:
    print("ValueError", e)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    print("hooks usable after exception")
