# Tracing through nested modules: a custom block used twice (its submodule is called each time),
# a parameter shared between two blocks (one get_attr path, named as named_parameters names it),
# Sequential and ModuleList traced through, leaves called by their qualified paths; the
# GraphModule copies only the submodules the graph uses and runs like the eager model.
import torch
import torch.nn as nn
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        return self.norm(torch.tanh(self.lin(x)) + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()
        self.b.lin.weight = self.a.lin.weight          # shared parameter
        self.stack = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 1)])
        self.unused = nn.Linear(3, 3)
        self.w = nn.Parameter(torch.tensor([0.5, -0.5, 1.0]))

    def forward(self, x):
        y = self.a(x)
        y = self.a(y)                                   # the same module called twice
        y = self.b(y) * self.w
        y = self.stack(y)
        outs = [h(y) for h in self.heads]
        return torch.cat(outs, dim=-1) + self.b.lin.weight.sum()


net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.05 - 0.1 * i)

gm = torch.fx.symbolic_trace(net)
print(gm.code)
print(gm.graph)
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
print(r(gm(x)))
print(r(net(x)))
print([n for n, _ in gm.named_modules()])
print([n for n, _ in gm.named_parameters()])
print(gm.a.lin is net.a.lin, gm.b.lin.weight is gm.a.lin.weight, hasattr(gm, "unused"))
calls = [n.target for n in gm.graph.nodes if n.op == "call_module"]
print(calls)
