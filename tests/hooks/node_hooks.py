# Node hooks: grad_fn.register_prehook (sees and may replace the node's incoming gradients) and
# grad_fn.register_hook (sees grad_inputs and grad_outputs, may replace grad_inputs), on op
# nodes, on a multi-output node and on AccumulateGrad nodes; their order with tensor hooks
# (registered first) and with each other.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, -1.0], requires_grad=True)
y = x * w
z = y.sum()
y.register_hook(lambda g: log.append(("y tensor hook", r(g))))
y.grad_fn.register_prehook(lambda gO: log.append(("mul pre", rs(gO))))
y.grad_fn.register_prehook(lambda gO: (gO[0] * 2,))
y.grad_fn.register_hook(lambda gI, gO: log.append(("mul post", rs(gI), rs(gO))))
z.grad_fn.register_prehook(lambda gO: log.append(("sum pre", rs(gO))))
z.grad_fn.register_hook(lambda gI, gO: log.append(("sum post", rs(gI), rs(gO))))
acc_x = y.grad_fn.next_functions[0][0]
acc_w = y.grad_fn.next_functions[1][0]
print(acc_x.name(), acc_w.name())
acc_x.register_prehook(lambda gO: log.append(("acc x pre", rs(gO))))
acc_w.register_prehook(lambda gO: log.append(("acc w pre", rs(gO), w.grad is None)))
z.backward()
for entry in log:
    print(entry)
print("x.grad", r(x.grad), "w.grad", r(w.grad))

# a post hook replacing grad_inputs
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = torch.tensor([3.0, 4.0], requires_grad=True)
t = p * q
t.grad_fn.register_hook(lambda gI, gO: (gI[0] * 10, gI[1] + 1))
t.sum().backward()
print("p.grad", r(p.grad), "q.grad", r(q.grad))

# several pre hooks: each sees what the previous one returned; None keeps the gradients
k = torch.tensor([1.0], requires_grad=True)
m = k * 3
m.grad_fn.register_prehook(lambda gO: None)
m.grad_fn.register_prehook(lambda gO: (gO[0] + 1,))
m.grad_fn.register_prehook(lambda gO: (gO[0] * 4,))
m.backward()
print("k.grad", r(k.grad))

# a multi-output node: its pre hook sees one gradient per output (None where unused)
log.clear()
s = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
parts = s.unbind(0)
parts[0].grad_fn.register_prehook(lambda gO: log.append(("unbind pre", rs(gO))))
parts[0].grad_fn.register_hook(lambda gI, gO: log.append(("unbind post", rs(gI))))
(parts[1] * 2).sum().backward()
for entry in log:
    print(entry)
print("s.grad", r(s.grad))
