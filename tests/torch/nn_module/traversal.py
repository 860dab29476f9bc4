# named_children / children / named_modules / modules / named_parameters / parameters /
# named_buffers / buffers in PyTorch's order, with prefixes, recurse=False and duplicates.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block()
        self.shared = nn.Linear(2, 2)
        self.again = self.shared
        self.gate = nn.Parameter(torch.zeros(1))
        self.alias = self.gate
        self.empty = None
        self.seq = nn.Sequential(Block(), nn.ReLU(), self.shared)


net = Net()
print("named_children", [n for n, m in net.named_children()])
print("children", [type(m).__name__ for m in net.children()])
print("named_modules", [n for n, m in net.named_modules()])
print("named_modules prefix", [n for n, m in net.named_modules(prefix="root")])
print("named_modules dups", [n for n, m in net.named_modules(remove_duplicate=False)])
print("modules", len(list(net.modules())), [type(m).__name__ for m in net.modules()])
print("named_parameters", [n for n, p in net.named_parameters()])
print("named_parameters prefix", [n for n, p in net.named_parameters(prefix="net")])
print("named_parameters no recurse", [n for n, p in net.named_parameters(recurse=False)])
print("parameters", len(list(net.parameters())), len(list(net.parameters(recurse=False))))
print("named_buffers", [n for n, b in net.named_buffers()])
print("named_buffers no recurse", [n for n, b in net.first.named_buffers(recurse=False)])
print("buffers", len(list(net.buffers())))
print("state_dict", list(net.state_dict().keys()))
it = net.parameters()
print("iterator next", list(next(it).shape), list(next(it).shape))
print("parameters are Parameters", all(isinstance(p, nn.Parameter) for p in net.parameters()))
print("submodule", type(net.get_submodule("seq.0.lin")).__name__, net.get_submodule("") is net)
try:
    net.get_submodule("seq.9")
except AttributeError as e:
    print("AttributeError", e)
try:
    net.get_submodule("gate.x")
except AttributeError as e:
    print("AttributeError", e)
