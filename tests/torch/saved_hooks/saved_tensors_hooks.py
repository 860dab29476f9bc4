# torch.autograd.graph.saved_tensors_hooks: the seed's docstring example, nesting (innermost
# wins), packing to other objects, hooks on custom Function saves, errors from the unpack hook.
import torch


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad)

log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)


def outer_pack(t):
    log.append("outer pack")
    return t


def inner_pack(t):
    log.append("inner pack")
    return ("boxed", t.tolist(), t)


def inner_unpack(p):
    log.append(("inner unpack", p[0], p[1]))
    return p[2]


with torch.autograd.graph.saved_tensors_hooks(outer_pack, lambda t: t):
    with torch.autograd.graph.saved_tensors_hooks(inner_pack, inner_unpack):
        z = x.exp()
    w = z * x
print(log)
log.clear()
(w.sum()).backward()
print(log)
print([round(v, 4) for v in x.grad.tolist()])

counts = {"pack": 0, "unpack": 0}


def count_pack(t):
    counts["pack"] += 1
    return t


def count_unpack(t):
    counts["unpack"] += 1
    return t


p = torch.tensor([0.5, 1.5], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(count_pack, count_unpack):
    q = (p * p).sin().sum()
print(counts)
q.backward()
print(counts, [round(v, 4) for v in p.grad.tolist()])

s = torch.tensor([3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
    r = s * s
r.backward()
print(s.grad)

with torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda t: "not a tensor"):
    bad = s * s
try:
    bad.backward()
except TypeError as e:
    print("TypeError", e)

seen = []


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g


k = torch.tensor([4.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append("pack") or t, lambda t: seen.append("unpack") or t):
    out = Square.apply(k)
out.backward()
print(seen, k.grad)
