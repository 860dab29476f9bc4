# torch.autograd.graph.Node on every grad_fn: name(), next_functions, metadata, isinstance,
# identity, AccumulateGrad and its variable, node types.
import torch
from torch.autograd.graph import Node

a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
b = a.clone()
assert isinstance(b.grad_fn, torch.autograd.graph.Node)
print(b.grad_fn.name())
print(isinstance(b.grad_fn, Node), isinstance(a, Node), isinstance(None, Node))
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w + 1).sum()
print(y.grad_fn.name(), type(y.grad_fn).__name__, y.grad_fn is y.grad_fn)


def walk(fn, depth=0):
    if fn is None:
        print("  " * depth + "None")
        return
    print("  " * depth + fn.name())
    for nxt, nr in fn.next_functions:
        walk(nxt, depth + 1)


walk(y.grad_fn)
acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(acc.name(), type(acc).__name__, acc.variable is x, acc.next_functions)
print(isinstance(acc, Node))
print([nr for _, nr in (x * w).grad_fn.next_functions])
u, v = x.unbind()
print(u.grad_fn.name(), u.grad_fn is v.grad_fn, u.output_nr, v.output_nr)
s = (u + v)
print([(f.name(), nr) for f, nr in s.grad_fn.next_functions])
print((x * 2).grad_fn.next_functions[1], (2 * x).grad_fn.next_functions[1])
print(torch.tensor(1.0).grad_fn, x.grad_fn)
m = (x * 2).grad_fn.metadata
print(type(m).__name__, m)
n = x.exp()
n.grad_fn.metadata["tag"] = "exp node"
print(n.grad_fn.metadata, n.grad_fn.metadata is n.grad_fn.metadata)
names = []
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
ops = [t + t, t - 1, t * t, t / 2, t ** 2, 2 ** t, t.exp(), t.log(), t.sqrt(), t.tanh(), t.sigmoid(),
       t.relu(), t.abs(), -t, t.sum(), t.sum(0), t.mean(), t.mean(1), t.max(), t.view(4),
       t.t(), t.transpose(0, 1), t.permute(1, 0), t.unsqueeze(0), t.squeeze(), t[0], t[:, 1], t[0:1],
       t @ t, t.mm(t), t.clone(), t.expand(2, 2, 2), t.softmax(0), t.log_softmax(1), t.clamp(0, 2),
       torch.cat([t, t]), torch.stack([t, t]), t.where(t > 2, t * 0), t.masked_fill(t > 2, 0.0),
       t.prod(), t.var(), t.std(), t.sin(), t.cos(), t.contiguous(), t.float()]
for o in ops:
    names.append(o.grad_fn.name() if o.grad_fn is not None else None)
print(names)
print(t.contiguous() is t, t.float() is t)
