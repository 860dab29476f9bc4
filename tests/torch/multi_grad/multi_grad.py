# torch.autograd.graph.register_multi_grad_hook, modes "all" and "any": the seed's docstring
# example, gradients passed, inputs= and autograd.grad, removal, per-backward state, errors.
import torch

a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([[0.5, 0.5, 0.5], [2.0, 2.0, 2.0]], requires_grad=True)
c = a * b
d = a * b


def fn(grads):
    print([g is not None for g in grads])


torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
(c + d).sum().backward(retain_graph=True)


def show(grads):
    print([None if g is None else [round(v, 4) for v in g.reshape(-1).tolist()] for g in grads])


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
h = torch.autograd.graph.register_multi_grad_hook([x, y], show)
(x * y).sum().backward()
(x * 2).sum().backward()
# (not autograd.grad with a leaf input: 2.x runs the leaf's tensor hook, whose "all" logic then asks
# _will_engine_execute_node about a captured leaf and raises; 1.13 skipped the hook)
h.remove()
(x * y).sum().backward()
print("removed")

order = []
p = torch.tensor([1.0], requires_grad=True)
q = p * 2
r = p * 3
torch.autograd.graph.register_multi_grad_hook([q, r], lambda gs: order.append(("all", [g.item() for g in gs])))
q.register_hook(lambda g: order.append("q hook"))
r.register_hook(lambda g: order.append("r hook"))
(q + r * 10).backward()
print(order)

seen = []


def first(grad):
    seen.append([round(v, 4) for v in grad.reshape(-1).tolist()])
    return grad * 100


u = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([5.0], requires_grad=True)
s = u * 2
t = u * 3
handle = torch.autograd.graph.register_multi_grad_hook((s, t, v), first, mode="any")
(s.sum() + t.sum() * 2).backward(retain_graph=True)
print(seen, u.grad.tolist())
(s.sum() + t.sum() * 2).backward(retain_graph=True)
print(len(seen))
handle.remove()
(s.sum() + t.sum()).backward()
print(len(seen), type(handle).__name__, isinstance(handle, torch.utils.hooks.RemovableHandle))

n = torch.tensor([1.0], requires_grad=True)
plain = torch.tensor([2.0])
torch.autograd.graph.register_multi_grad_hook([n, plain], lambda g: print("any", g), mode="any")
(n * plain).backward()
try:
    torch.autograd.graph.register_multi_grad_hook([n, plain], lambda gs: None)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.autograd.graph.register_multi_grad_hook([n], lambda gs: None, mode="some")
except ValueError as e:
    print("ValueError", e)
