# torch.compile of torch's own modules (nn.Sequential, nn.Linear, nn.TransformerEncoderLayer, a
# user subclass that keeps torch's forward): their forward is library code, which the tracer does
# not take as the frame to compile, so these calls used to run eagerly with no graph at all.  Now
# each compiles (a user-level frame calls the module, hooks inlined, as dynamo's wrap_inline), and
# the results equal eager.  Ember-specific counts: recorded with `tests/record_golden.sh --ember`
# after checking each against the source by hand (one graph per distinct input signature).
import torch
import torch.nn as nn

graphs = []


def backend(gm, example_inputs):
    graphs.append(len(example_inputs))
    return gm.forward


class Stack(nn.Sequential):
    pass


torch.manual_seed(0)
x = torch.randn(3, 8)
cases = [
    ("sequential", nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))),
    ("linear", nn.Linear(8, 5)),
    ("subclass", Stack(nn.Linear(8, 8), nn.Tanh())),
]
for name, m in cases:
    del graphs[:]
    compiled = torch.compile(m, backend=backend)
    same = all(torch.equal(compiled(x), m(x)) for _ in range(2))
    print(name, same, graphs)

seen = []
lin = nn.Linear(8, 4)
lin.register_forward_hook(lambda mod, inp, out: seen.append(tuple(out.shape)))
del graphs[:]
print(torch.equal(torch.compile(lin, backend=backend)(x), lin(x)), graphs, seen)

layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
layer.eval()
del graphs[:]
src = torch.randn(2, 5, 8)
print(torch.allclose(torch.compile(layer, backend=backend)(src), layer(src)), len(graphs))


class Reversed(nn.Sequential):
    # its own __iter__: iterated as Python would (a graph break), still equal to eager
    def __iter__(self):
        return reversed(list(self._modules.values()))

    def forward(self, t):
        for layer in self:
            t = layer(t)
        return t


rev = Reversed(nn.Linear(8, 8), nn.Tanh())
del graphs[:]
print(torch.equal(torch.compile(rev, backend=backend)(x), rev(x)))
