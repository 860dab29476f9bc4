# torch.fx.symbolic_trace of an MLP: the GraphModule's generated code, its graph, running it
# against the eager model, and its module repr.
import torch
import torch.nn as nn
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def init_(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.03 - 0.05 * i)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)
        self.scale = nn.Parameter(torch.ones(2))

    def forward(self, x):
        h = self.act(self.fc1(x))
        y = self.fc2(h) * self.scale
        return torch.relu(y).sum(dim=-1) + x.shape[0], y.view(-1)


model = MLP()
init_(model)
gm = torch.fx.symbolic_trace(model)
print(gm.code)
print(gm.graph)
print(type(gm).__name__, isinstance(gm, torch.fx.GraphModule), isinstance(gm, nn.Module))
print(gm)

x = torch.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 1.0], [-2.0, 1.0, 0.5, 0.75]])
a, b = gm(x)
ea, eb = model(x)
print(r(a), r(b))
print(r(ea), r(eb))
print([n for n, _ in gm.named_parameters()])
print(gm.fc1 is model.fc1, gm.scale is model.scale)

for n in gm.graph.nodes:
    target = n.target if isinstance(n.target, str) else n.target.__name__
    print(n.op, n.name, repr(target), n.args, n.kwargs, list(n.users))
