# state_dict (keys in PyTorch's order, detached values, keep_vars, prefix, non-persistent
# buffers) and load_state_dict (values copied, strict and non-strict, the error messages).
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 3)
        self.register_buffer("stat", torch.zeros(3))
        self.register_buffer("hidden", torch.zeros(3), persistent=False)
        self.b = nn.Sequential(nn.Linear(3, 1), nn.Tanh())
        self.scale = nn.Parameter(torch.tensor(2.0))


def fill(model, start):
    with torch.no_grad():
        v = start
        for p in model.parameters():
            p.copy_(torch.arange(float(p.numel())).reshape(p.shape) + v)
            v += 10


net = Net()
fill(net, 0.0)
sd = net.state_dict()
print("keys", list(sd.keys()))
print("type", type(sd).__name__)
print("detached", [(k, v.requires_grad, isinstance(v, nn.Parameter)) for k, v in sd.items()][:2])
kv = net.state_dict(keep_vars=True)
print("keep_vars", kv["a.weight"].requires_grad, isinstance(kv["a.weight"], nn.Parameter), kv["scale"] is net.scale)
print("prefix", list(net.state_dict(prefix="model.").keys())[:2])
print("shares storage", sd["a.bias"].data_ptr() == net.a.bias.data_ptr())

other = Net()
print("load", other.load_state_dict(sd))
print("loaded values", other.a.weight.tolist(), other.scale.item(), other.b[0].bias.tolist())
print("still Parameters", isinstance(other.a.weight, nn.Parameter), other.a.weight.requires_grad)

partial = {k: v for k, v in sd.items() if not k.startswith("b.")}
partial["junk"] = torch.ones(1)
partial["a.extra"] = torch.ones(1)
r = other.load_state_dict(partial, strict=False)
print("non-strict", r.missing_keys, r.unexpected_keys)
print("result repr", r)
try:
    other.load_state_dict(partial)
except RuntimeError as e:
    print("RuntimeError", e)

bad = dict(sd)
bad["a.weight"] = torch.ones(2, 2)
try:
    other.load_state_dict(bad)
except RuntimeError as e:
    print("RuntimeError", e)

bad = dict(sd)
bad["scale"] = 3.0
try:
    other.load_state_dict(bad)
except RuntimeError as e:
    print("RuntimeError", e)

one = dict(sd)
one["scale"] = torch.tensor([5.0])
other.load_state_dict(one)
print("1-element into 0-dim", other.scale.item())

try:
    other.load_state_dict([1, 2])
except TypeError as e:
    print("TypeError", e)

lin = nn.Linear(2, 2, bias=False)
print("no bias keys", list(lin.state_dict().keys()))
print("empty module", nn.ReLU().state_dict(), nn.ReLU().load_state_dict({}))
