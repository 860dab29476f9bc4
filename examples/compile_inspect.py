# torch.compile, looked inside.  Run it plainly, then ask Ember what the compiler made of it:
#
#   build/src/cli/ember examples/compile_inspect.py
#   build/src/cli/ember compile --report report examples/compile_inspect.py   # then open report/index.html
#   build/src/cli/ember compile --show bytecode,graph_code,guards,side_effects examples/compile_inspect.py
#   build/src/cli/ember compile --decompile examples/compile_inspect.py     # residual code as Python
#   EMBER_LOGS=graph_breaks,recompiles build/src/cli/ember run examples/compile_inspect.py
#
# `step` does what training code does around its tensor math: it counts calls on the model
# (an attribute mutation), keeps a history (a list append), bumps a global, and puts a hook on an
# intermediate activation (so the compiled backward calls it).  The tensor math becomes one
# graph; the rest is replayed by residual bytecode after the graph runs.  (The region only
# appends to `history`, so residual code extends it and nothing guards its length: unlike
# dynamo, which rewrites the whole list and recompiles as it grows.)  The script runs unchanged
# under CPython + PyTorch and prints the same text.
import torch
import torch.nn as nn

steps_taken = 0


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)
        self.calls = 0
        self.history = []

    def forward(self, x):
        self.calls += 1
        h = torch.relu(self.fc1(x))
        h.register_hook(lambda g: g * 0.5)     # halves the gradient flowing into fc1
        out = self.fc2(h)
        self.history.append(self.calls)
        return out


def step(model, x, y):
    global steps_taken
    steps_taken += 1
    loss = ((model(x) - y) ** 2).mean()
    return loss


torch.manual_seed(0)
model = TinyNet()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + i))
x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]])
y = torch.tensor([[1.0], [0.0]])

compiled_step = torch.compile(step)
for i in range(3):
    model.zero_grad()
    loss = compiled_step(model, x, y)
    loss.backward()
    print("step", i, "loss", round(loss.item(), 4), "fc1.weight.grad[7]",
          [round(v, 4) for v in model.fc1.weight.grad[7].tolist()])
print("model.calls", model.calls, "history", model.history, "steps_taken", steps_taken)
