# Tracer subclasses: is_leaf_module keeps custom blocks as call_module nodes; create_proxy,
# call_module and create_arg overrides see every recorded operation; to_bool lets control flow
# on a traced value take a branch; tracer.call_module patched with functools.partial.
import functools

import torch
import torch.nn as nn
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        return torch.sigmoid(self.lin(x)) * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block()
        self.second = Block()
        self.out = nn.Linear(2, 1)

    def forward(self, x):
        h = self.first(x)
        if h.sum() > 0:
            h = self.second(h)
        return self.out(h) + Scalar(0.5)


class Scalar:
    def __init__(self, v):
        self.v = v


net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.1 + 0.05 * i)


class BlockTracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        self.log = []

    def is_leaf_module(self, m, qualname):
        return isinstance(m, Block) or super().is_leaf_module(m, qualname)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
        self.log.append((kind, target if isinstance(target, str) else target.__name__, proxy.node.name))
        return proxy

    def call_module(self, m, forward, args, kwargs):
        self.log.append(("enter", self.path_of_module(m)))
        out = super().call_module(m, forward, args, kwargs)
        self.log.append(("exit", self.path_of_module(m)))
        return out

    def create_arg(self, a):
        if isinstance(a, Scalar):
            return a.v
        return super().create_arg(a)

    def to_bool(self, obj):
        self.log.append(("to_bool", obj.node.name))
        return True


tracer = BlockTracer()
graph = tracer.trace(net)
for entry in tracer.log:
    print(entry)
gm = torch.fx.GraphModule(net, graph, "BlockNet")
print(gm.code)
print(gm)
x = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
print(r(gm(x)))

try:
    torch.fx.Tracer().trace(net)
except Exception as e:
    print(type(e).__name__ + ":", e)

seen = []


def counting_call_module(call_module, m, forward, args, kwargs):
    seen.append(type(m).__name__)
    return call_module(m, forward, args, kwargs)


t2 = BlockTracer()
original = t2.call_module
t2.call_module = functools.partial(counting_call_module, original)
t2.trace(net)
t2.call_module = original
print(seen)
print([e for e in t2.log if e[0] in ("enter", "exit")])
