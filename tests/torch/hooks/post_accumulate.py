# Tensor.register_post_accumulate_grad_hook: runs after .grad is accumulated on a leaf, can
# update the tensor in place (an optimizer step), removable; errors for non-leaves and tensors
# that do not require grad.
import torch


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
calls = []


def sgd_step(p):
    calls.append(p.grad.tolist())
    with torch.no_grad():
        p.sub_(0.1 * p.grad)


h = w.register_post_accumulate_grad_hook(sgd_step)
(w * w).sum().backward()
print(calls)
show("w after step", w)
show("w.grad", w.grad)
w.grad = None
(w * 2).sum().backward()
print(calls)
show("w after second step", w)
h.remove()
w.grad = None
(w * 2).sum().backward()
print(len(calls))
show("w after removal", w)

order = []
v = torch.tensor([1.0], requires_grad=True)
v.register_hook(lambda g: order.append("tensor hook"))
v.register_post_accumulate_grad_hook(lambda p: order.append(("post acc", p.grad.item())))
(v * 5).backward()
print(order)

u = torch.tensor([1.0, 2.0], requires_grad=True)
u.register_post_accumulate_grad_hook(lambda p: order.append("u post"))
torch.autograd.grad((u * 2).sum(), u)
print(order)

try:
    (u * 2).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.ones(2).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print("RuntimeError", e)
bad = torch.tensor([1.0], requires_grad=True)
bad.register_post_accumulate_grad_hook(lambda p: p * 2)
try:
    (bad * 2).backward()
except RuntimeError as e:
    print("RuntimeError", e)
