# Guards and the cache: an int attribute the region increments does not recompile; a new
# shape does; torch._dynamo.reset() empties the cache; cache_size_limit stops recompiling
# (the frame then runs eagerly, still correct).  Ember-specific (recorded with --ember).
import torch
import torch._dynamo

compiles = []


def counting_backend(gm, example_inputs):
    compiles.append(len(example_inputs))
    return gm.forward


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.scale = torch.nn.Parameter(torch.tensor([2.0]))

    def forward(self, x):
        self.calls += 1
        return x * self.scale + self.calls


m = Counter()
cm = torch.compile(m, backend=counting_backend)
for i in range(4):
    out = cm(torch.ones(2) * i)
print("calls", m.calls, "compiles", len(compiles), "out", out.tolist())
out = cm(torch.ones(3))
print("new shape: compiles", len(compiles), out.tolist())
torch._dynamo.reset()
out = cm(torch.ones(3))
print("after reset: compiles", len(compiles), out.tolist())

torch._dynamo.config.cache_size_limit = 2
torch._dynamo.reset()
compiles.clear()


@torch.compile(backend=counting_backend)
def f(x):
    return x.sum() * 2


for n in range(1, 6):
    print("n", n, f(torch.ones(n)).item())
print("compiles under a limit of 2:", len(compiles))
