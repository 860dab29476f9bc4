# Node.register_hook(fn(grad_inputs, grad_outputs)) and Node.register_prehook(fn(grad_outputs)),
# with the seed's docstring examples; replacing gradients, order, removal.
import torch

a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_prehook(lambda gI: (gI[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 5.0], requires_grad=True)
y = x * w
z = y.sum()


def fmt(gs):
    return [None if g is None else [round(v, 4) for v in g.reshape(-1).tolist()] for g in gs]


# tensor hooks before node pre-hooks: 2.x runs them first whatever the order (1.13 did not)
y.register_hook(lambda g: log.append(("y tensor hook", fmt([g]))))
y.grad_fn.register_prehook(lambda gO: log.append(("mul pre", fmt(gO))))
y.grad_fn.register_hook(lambda gI, gO: log.append(("mul post", fmt(gI), fmt(gO))))
z.grad_fn.register_prehook(lambda gO: log.append(("sum pre", fmt(gO))))
z.grad_fn.register_hook(lambda gI, gO: log.append(("sum post", fmt(gI), fmt(gO))))
acc = y.grad_fn.next_functions[0][0]
acc.register_prehook(lambda gO: log.append(("acc x pre", fmt(gO))))
acc.register_hook(lambda gI, gO: log.append(("acc x post", fmt(gI), fmt(gO), x.grad is not None)))
z.backward()
for entry in log:
    print(entry)

p = torch.tensor([1.0, 2.0], requires_grad=True)
q = torch.tensor([3.0, 4.0], requires_grad=True)
r = p * q
r.grad_fn.register_hook(lambda gI, gO: (None, gI[1] * 10))
r.sum().backward()
print(p.grad, q.grad)

k = torch.tensor([1.0], requires_grad=True)
m = k * 3
m.grad_fn.register_prehook(lambda gO: None)
m.grad_fn.register_prehook(lambda gO: (gO[0] + 1,))
m.grad_fn.register_prehook(lambda gO: (gO[0] * 4,))
m.backward()
print(k.grad)
