# Graph.print_tabular and print(graph) of a traced Sequential model (modules and methods only:
# print_tabular shows a call_function's target by its object repr, an address in PyTorch).
import torch
import torch.nn as nn
import torch.fx


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh())
        self.out = nn.Linear(4, 3)
        self.register_buffer("offset", torch.zeros(3))

    def forward(self, x, mask=None):
        h = self.body(x.flatten(1))
        return self.out(h).softmax(dim=-1).clamp(min=0.0, max=1.0)


gm = torch.fx.symbolic_trace(Head())
gm.graph.print_tabular()
print(gm.graph)
print(gm.code)
print(len(gm.graph.nodes), [n.name for n in reversed(gm.graph.nodes)])
gm.print_readable()
