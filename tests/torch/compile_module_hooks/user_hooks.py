# Module forward hooks under torch.compile: script hooks are traced inline (a pre-hook that
# replaces the arguments, a forward hook that replaces the output, hooks that record into a list
# through their closure), and adding or removing a hook after the first call is noticed (the
# module's hook dicts are guarded), so every call runs exactly the hooks eager would run.
import torch
import torch.nn as nn


def show(tag, t):
    print(tag, [round(v, 4) for v in t.reshape(-1).tolist()])


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.out = nn.Linear(3, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.lin(x)))


torch.manual_seed(0)
block = Block()
with torch.no_grad():
    block.lin.weight.copy_(torch.tensor([[0.5, -0.25, 1.0], [0.0, 1.0, -1.0], [0.75, 0.5, 0.25]]))
    block.lin.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    block.out.weight.copy_(torch.tensor([[1.0, -1.0, 0.5]]))
    block.out.bias.copy_(torch.tensor([0.05]))

calls = []


def scale_input(mod, args):
    calls.append(("pre", type(mod).__name__, len(args)))
    return (args[0] * 2,)


def shift_output(mod, args, out):
    calls.append(("post", type(mod).__name__))
    return out + 1


def step(x):
    y = block(x)
    return (y * y).sum()


compiled = torch.compile(step)
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, 0.0, 1.5]])

for phase in ["no hooks", "pre-hook", "both hooks", "pre removed"]:
    if phase == "pre-hook":
        h_pre = block.lin.register_forward_pre_hook(scale_input)
    if phase == "both hooks":
        h_post = block.out.register_forward_hook(shift_output)
    if phase == "pre removed":
        h_pre.remove()
    block.zero_grad()
    loss = compiled(x)
    loss.backward()
    print(phase, round(loss.item(), 4), calls)
    show("  lin.weight.grad", block.lin.weight.grad)
    calls.clear()

h_post.remove()
print("final", round(compiled(x).item(), 4), calls)
